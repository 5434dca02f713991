//! `belady record`: run a program under strace and keep its file reads as a file-level trace.

use anyhow::{bail, Context, Result};
use belady_core::trace::{events, strace};
use clap::Args;
use std::io::Write;
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
    let tmp;
    let log: PathBuf = match (&args.from_strace, args.command.is_empty()) {
        (Some(log), _) => log.clone(),
        (None, true) => bail!("name a program to record after `--` (belady record -o OUT -- CMD ARGS…), or use --from-strace LOG"),
        (None, false) => {
            let path = match &args.keep_log {
                Some(p) => p.clone(),
                None => {
                    tmp = tempfile::tempdir().context("cannot create a temporary directory")?;
                    tmp.path().join("strace.log")
                }
            };
            trace_program(&args.command, &path)?;
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
    write_events(&trace, &times, &args.output)?;
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
    Ok(())
}

fn trace_program(command: &[String], log: &Path) -> Result<()> {
    let status = Command::new("strace")
        .args(["-f", "-ttt", "-T", "-y", "-qq", "-e"])
        .arg(format!("trace={}", strace::TRACED_CALLS))
        .arg("-o")
        .arg(log)
        .arg("--")
        .args(command)
        .status()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                anyhow::anyhow!("strace is not installed (Debian: apt-get install strace)")
            } else {
                anyhow::anyhow!("cannot run strace: {e}")
            }
        })?;
    if !status.success() {
        eprintln!(
            "belady: note: {} exited with {status}; its trace is kept",
            command[0]
        );
    }
    if !log.is_file() {
        bail!("strace wrote no log (is ptrace allowed here?)");
    }
    Ok(())
}

fn write_events(
    trace: &belady_core::trace::file::FileTrace,
    times: &[u64],
    out: &Path,
) -> Result<()> {
    let file =
        std::fs::File::create(out).with_context(|| format!("{}: cannot create", out.display()))?;
    let failed = || format!("{}: write failed", out.display());
    if out.extension().is_some_and(|e| e == "gz") {
        let mut w = flate2::write::GzEncoder::new(
            std::io::BufWriter::new(file),
            flate2::Compression::default(),
        );
        events::write(trace, Some(times), &mut w).with_context(failed)?;
        w.finish()
            .with_context(failed)?
            .flush()
            .with_context(failed)?;
    } else {
        let mut w = std::io::BufWriter::new(file);
        events::write(trace, Some(times), &mut w).with_context(failed)?;
        w.flush().with_context(failed)?;
    }
    Ok(())
}
