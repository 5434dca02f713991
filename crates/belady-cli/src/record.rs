//! `belady record`: run a program under strace and keep its file reads as a file-level trace.

use anyhow::{bail, Context, Result};
use belady_core::outfile::{refuse_overwrite, OutFile, PendingTemp};
use belady_core::trace::{events, strace};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Args)]
pub struct RecordArgs {
    /// Output trace (belady's events format; compressed with gzip when the name ends in .gz).
    #[arg(long, short = 'o')]
    output: PathBuf,
    /// Convert this existing strace log (from `strace -f -ttt -T -y`) instead of running a program.
    #[arg(long, conflicts_with = "command")]
    from_strace: Option<PathBuf>,
    /// Keep strace's own log at this path.
    #[arg(long)]
    keep_log: Option<PathBuf>,
    /// Keep only files under this path (a file or directory; repeatable). The time spent in calls on
    /// other files (a program's start-up, its libraries) becomes think time.
    #[arg(long)]
    only: Vec<PathBuf>,
    /// The program and its arguments, after `--`.
    #[arg(last = true)]
    command: Vec<String>,
}

pub fn run(args: RecordArgs) -> Result<()> {
    let inputs: Vec<&Path> = args.from_strace.iter().map(PathBuf::as_path).collect();
    refuse_overwrite(&args.output, &inputs)?;
    if let Some(keep) = &args.keep_log {
        // Whether or not either exists yet: the trace would be written over the log.
        if belady_core::outfile::same_target(&args.output, keep) {
            bail!(
                "--keep-log {} is the output -o {}: the trace would replace the log; name two files",
                keep.display(),
                args.output.display()
            );
        }
    }
    // The output's temporary file is created first: a path that cannot be written is refused
    // before the program runs, not after its run is lost.
    let out = OutFile::create(&args.output)?;
    let mut tmp_log = None;
    let mut exit_code = 0;
    let log: PathBuf = match (&args.from_strace, args.command.is_empty()) {
        (Some(log), _) => log.clone(),
        (None, true) => bail!("name a program to record after `--` (belady record -o OUT -- CMD ARGS…), or use --from-strace LOG"),
        (None, false) => {
            find_program(&args.command[0])?;
            let path = match &args.keep_log {
                Some(p) => p.clone(),
                None => {
                    // Beside the output rather than in /tmp, under a hidden name, and removed
                    // when dropped: a killed `record` leaves nothing in /tmp.
                    let (tmp, _) = tmp_log.insert(hidden_temp(&args.output, "strace.log")?);
                    tmp.path().to_path_buf()
                }
            };
            // SIGTERM, SIGINT or SIGHUP while the program runs: the handler every command has
            // removes the temporary files (the output's and the log's, listed as pending).
            exit_code = trace_program(&args.command, &path)?;
            path
        }
    };
    // strace prints canonical paths, so compare with canonical prefixes.
    let only: Vec<String> = args
        .only
        .iter()
        .map(|p| {
            std::fs::canonicalize(p)
                .unwrap_or_else(|_| p.clone())
                .display()
                .to_string()
        })
        .collect();
    let (trace, times) = strace::convert_file(&log, &only)?;
    write_events(&trace, &times, out)?;
    let reads = trace
        .events
        .iter()
        .filter(|e| matches!(e.kind, belady_core::trace::file::FileEventKind::Read { .. }))
        .count();
    eprintln!(
        "wrote {} ({} events, {} reads, {} files)",
        args.output.display(),
        trace.events.len(),
        reads,
        trace.names.len()
    );
    if exit_code != 0 {
        eprintln!(
            "belady: note: {} exited with status {exit_code}; its trace is kept, and record exits with the same status",
            belady_core::error::escape_control(&args.command[0])
        );
        // `exit` runs no destructors: remove the temporary log first.
        drop(tmp_log);
        std::process::exit(exit_code);
    }
    Ok(())
}

/// A hidden temporary file beside `output`, removed when dropped or on a signal.
fn hidden_temp(output: &Path, what: &str) -> Result<(tempfile::NamedTempFile, PendingTemp)> {
    let dir = match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    belady_core::outfile::listed_temp(dir, &format!(".{name}."), &format!(".{what}"), 0o600)
        .with_context(|| {
            format!(
                "{}: cannot create a temporary file beside it",
                output.display()
            )
        })
}

/// Refuses a program that cannot be started: strace would only report it in its own log.
fn find_program(name: &str) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let runnable = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    let found = if name.contains('/') {
        runnable(Path::new(name))
    } else {
        std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|d| runnable(&d.join(name))))
    };
    if !found {
        bail!(
            "cannot run '{}': no such executable program{}",
            belady_core::error::escape_control(name),
            if name.contains('/') { "" } else { " on PATH" }
        );
    }
    Ok(())
}

/// Runs `command` under strace into `log`; returns the program's exit status (0 when it succeeded).
fn trace_program(command: &[String], log: &Path) -> Result<i32> {
    let mut child = Command::new("strace")
        .args(["-f", "-ttt", "-T", "-y", "-qq", "-e"])
        .arg(format!("trace={}", strace::TRACED_CALLS))
        .arg("-o")
        .arg(log)
        .arg("--")
        .args(command)
        .spawn()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                anyhow::anyhow!("strace is not installed (Debian: apt-get install strace)")
            } else {
                anyhow::anyhow!("cannot run strace: {e}")
            }
        })?;
    crate::on_signal::forward_to(child.id());
    let status = child.wait().context("cannot wait for strace")?;
    if !log.is_file() || std::fs::metadata(log).is_ok_and(|m| m.len() == 0) && !status.success() {
        bail!("strace wrote no log (is ptrace allowed here?)");
    }
    // strace exits with the program's status; a signal death is reported as 128 + signal.
    use std::os::unix::process::ExitStatusExt;
    Ok(match (status.code(), status.signal()) {
        (Some(c), _) => c,
        (None, Some(sig)) => 128 + sig,
        _ => 1,
    })
}

/// Writes the trace into `file` and gives it its name.
fn write_events(
    trace: &belady_core::trace::file::FileTrace,
    times: &[u64],
    file: OutFile,
) -> Result<()> {
    let out = file.path().to_path_buf();
    let failed = || format!("{}: write failed", out.display());
    let file = if out.extension().is_some_and(|e| e == "gz") {
        let mut w = flate2::write::GzEncoder::new(
            std::io::BufWriter::new(file),
            flate2::Compression::default(),
        );
        events::write(trace, Some(times), &mut w).with_context(failed)?;
        w.finish().with_context(failed)?
    } else {
        let mut w = std::io::BufWriter::new(file);
        events::write(trace, Some(times), &mut w).with_context(failed)?;
        w
    };
    file.into_inner()
        .map_err(|e| e.into_error())
        .with_context(failed)?
        .commit()?;
    Ok(())
}
