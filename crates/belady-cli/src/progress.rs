//! A progress line on stderr for commands that may run long (sim, mrc, stats, convert,
//! calibrate): it appears once the command has run for [`DEFAULT_AFTER`] (or
//! `BELADY_PROGRESS_AFTER_MS`), only when stderr is a terminal and `--quiet` is not given, shows
//! how much of the trace has been read and the time elapsed, and is cleared when the work ends,
//! so output piped or redirected carries no trace of it.

use indicatif::{HumanBytes, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a command runs before its progress line appears.
pub const DEFAULT_AFTER: Duration = Duration::from_secs(2);

/// The environment variable that overrides [`DEFAULT_AFTER`], in milliseconds.
pub const AFTER_VAR: &str = "BELADY_PROGRESS_AFTER_MS";

/// A running progress line; dropping it stops and clears the line.
pub struct Progress {
    stop: Arc<AtomicBool>,
    stage: Arc<Mutex<String>>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    /// Starts the progress of `command` (`sim`) over `trace` (its size, when it is a file, is
    /// shown beside the bytes read); does nothing when `quiet` or stderr is not a terminal.
    pub fn start(command: &str, trace: Option<&Path>, quiet: bool) -> Progress {
        let stop = Arc::new(AtomicBool::new(false));
        let stage = Arc::new(Mutex::new(String::new()));
        if quiet || !std::io::stderr().is_terminal() {
            return Progress {
                stop,
                stage,
                thread: None,
            };
        }
        let after = std::env::var(AFTER_VAR)
            .ok()
            .and_then(|ms| ms.parse().ok())
            .map_or(DEFAULT_AFTER, Duration::from_millis);
        let name = trace
            .and_then(|t| t.file_name())
            .map(|n| belady_core::error::escape_control(&n.to_string_lossy()).into_owned());
        let size = trace
            .and_then(|t| std::fs::metadata(t).ok())
            .filter(|m| m.is_file())
            .map(|m| m.len());
        let start_bytes = belady_core::trace::input::trace_bytes_read();
        let label = format!("belady {command}");
        let thread = {
            let (stop, stage) = (stop.clone(), stage.clone());
            std::thread::spawn(move || {
                let started = Instant::now();
                while started.elapsed() < after {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(20).min(after));
                }
                let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                bar.set_style(
                    ProgressStyle::with_template("{spinner} {prefix}: {wide_msg} {elapsed}")
                        .expect("a valid template"),
                );
                bar.set_prefix(label);
                while !stop.load(Ordering::Relaxed) {
                    let read = belady_core::trace::input::trace_bytes_read() - start_bytes;
                    let mut msg = match (&name, size) {
                        // A trace may be read more than once (format detection, two-pass
                        // policies, one pass per grid): the bytes read, beside the file's size.
                        (Some(n), Some(s)) => {
                            format!("{n} ({}): {} read", HumanBytes(s), HumanBytes(read))
                        }
                        (Some(n), None) => format!("{n}: {} read", HumanBytes(read)),
                        _ => String::new(),
                    };
                    let stage = stage.lock().unwrap_or_else(|e| e.into_inner()).clone();
                    if !stage.is_empty() {
                        if !msg.is_empty() {
                            msg.push_str("; ");
                        }
                        msg.push_str(&stage);
                    }
                    bar.set_message(msg);
                    bar.tick();
                    std::thread::sleep(Duration::from_millis(100));
                }
                bar.finish_and_clear();
            })
        };
        Progress {
            stop,
            stage,
            thread: Some(thread),
        }
    }

    /// Says what the command is doing now (`pattern 3 of 12: random 4KiB`), beside the bytes.
    pub fn stage(&self, text: impl Into<String>) {
        *self.stage.lock().unwrap_or_else(|e| e.into_inner()) = text.into();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The command's progress line, if one was started.
static ACTIVE: Mutex<Option<Progress>> = Mutex::new(None);

/// Starts the command's progress line (see [`Progress::start`]); [`finish`] ends it.
pub fn start(command: &str, trace: Option<&Path>, quiet: bool) {
    let progress = Progress::start(command, trace, quiet);
    *ACTIVE.lock().unwrap_or_else(|e| e.into_inner()) = Some(progress);
}

/// Says what the command is doing now, on its progress line.
pub fn stage(text: impl Into<String>) {
    if let Some(p) = ACTIVE.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
        p.stage(text);
    }
}

/// Clears the progress line before anything else is printed (a result, a note, an error): a
/// line redrawn afterwards would erase what was printed. Does nothing when none is shown.
pub fn finish() {
    let progress = ACTIVE.lock().unwrap_or_else(|e| e.into_inner()).take();
    drop(progress);
}

/// `eprintln!` after clearing the progress line (see [`finish`]).
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {{
        $crate::progress::finish();
        eprintln!($($arg)*);
    }};
}
