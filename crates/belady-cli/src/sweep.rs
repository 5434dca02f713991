//! `belady sweep EXPERIMENT.toml` and `belady results export`: a grid of runs in parallel, each
//! stored in SQLite as soon as it finishes, so a sweep stopped at any moment resumes where it was.
//!
//! Every run has a key: the SHA-256 of its full configuration (trace content hash, format, block
//! size, policy with parameters, resolved cache size, read-ahead, disk, scheduler, compat rules,
//! belady version). A run whose key is in the store is skipped. Each result is written in its own
//! transaction by one writer thread, so a killed sweep leaves only whole rows behind.

use anyhow::{bail, Context, Result};
use belady_core::outfile::OutFile;
use belady_core::sweep::store::{Store, StoredRun};
use belady_core::sweep::{Experiment, Plan};
use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use std::path::{Path, PathBuf};

pub use belady_core::sweep::DEFAULT_STORE;

#[derive(Args)]
pub struct SweepArgs {
    /// The experiment: a TOML file (`belady help sweeps` describes its keys).
    experiment: PathBuf,
    /// Results database (default: the experiment's `store`, else belady-results.sqlite).
    #[arg(long)]
    store: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Run on a Dask cluster at this scheduler address (tcp://HOST:8786) through the Python package.
    #[arg(long)]
    dask: Option<String>,
}

#[derive(Args)]
pub struct ResultsArgs {
    #[command(subcommand)]
    command: ResultsCommand,
}

#[derive(Subcommand)]
enum ResultsCommand {
    /// Write every stored run as CSV, JSON or Parquet.
    Export {
        /// Results database.
        #[arg(long, default_value = DEFAULT_STORE)]
        store: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "csv")]
        format: ExportFormat,
        /// Output file (default: standard output; required for parquet).
        #[arg(long, short = 'o')]
        output: Option<PathBuf>,
    },
}

#[derive(Copy, Clone, ValueEnum)]
enum ExportFormat {
    Csv,
    Json,
    Parquet,
}

/// Runs the experiment, storing each result as it finishes.
pub fn run(args: SweepArgs) -> Result<()> {
    if let Some(n) = args.threads {
        belady_core::threads::check_threads("--threads", n)?;
    }
    let exp = Experiment::load(&args.experiment)?;
    let base = args.experiment.parent().unwrap_or(Path::new("."));
    let store_path = args
        .store
        .clone()
        .or_else(|| exp.store.as_ref().map(|s| base.join(s)))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_STORE));
    belady_core::outfile::refuse_overwrite(&store_path, &[&args.experiment])?;
    if let Some(address) = &args.dask {
        return dask(&args.experiment, &store_path, address);
    }
    let plan = Plan::new(&exp, base, &args.experiment.display().to_string())?;
    let store = Store::open(&store_path)?;
    let todo = plan.pending(&store)?;
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(todo.len() as u64)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} runs, {elapsed} elapsed, about {eta} left",
        )
        .expect("a valid template"),
    );
    let interrupt = Interrupt::watch(&plan, &store_path, &bar)?;
    let done = plan.execute_counted(&todo, &store, args.threads, &mut || bar.inc(1));
    interrupt.finish();
    let done = done?;
    bar.finish_and_clear();
    let others = if done.left_to_others > 0 {
        format!(", {} computed by another sweep", done.left_to_others)
    } else {
        String::new()
    };
    let duplicates = if plan.duplicates > 0 {
        format!(
            " ({} duplicate runs of the experiment dropped: a trace or policy is listed twice)",
            plan.duplicates
        )
    } else {
        String::new()
    };
    let reused = plan.runs.len() - todo.len();
    let how = if reused > 0 {
        " (reused, not recomputed: --store NEW.sqlite, or deleting the store, computes them again)"
    } else {
        ""
    };
    eprintln!(
        "{} runs{duplicates}: {} done now{others}, {reused} already in {}{how}",
        plan.runs.len(),
        done.computed,
        store_path.display()
    );
    Ok(())
}

/// Ctrl-C during a sweep: a thread waits on a pipe the signal handler writes to, then says how
/// many of the experiment's runs the store holds and how to resume, and exits with 130 (the
/// shell's code for SIGINT). Each run is stored in its own transaction, so the store holds whole
/// rows only, and rerunning the command skips them.
struct Interrupt {
    write_fd: i32,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Interrupt {
    fn watch(plan: &Plan, store_path: &Path, bar: &ProgressBar) -> Result<Interrupt> {
        let mut fds = [0; 2];
        // SAFETY: pipe writes two descriptors into `fds`.
        if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
            return Err(std::io::Error::last_os_error()).context("cannot create a pipe");
        }
        let [read_fd, write_fd] = fds;
        // What the thread needs to count stored runs, owned: the plan's keys.
        let keys: Vec<String> = plan.runs.iter().map(|r| r.1.key()).collect();
        let (store_path, bar) = (store_path.to_path_buf(), bar.clone());
        let thread = std::thread::spawn(move || {
            let mut byte = [0u8; 1];
            // SAFETY: reads one byte into a live buffer from the pipe this thread owns.
            let n = unsafe { libc::read(read_fd, byte.as_mut_ptr().cast(), 1) };
            // SAFETY: the read end is this thread's alone.
            unsafe { libc::close(read_fd) };
            if n != 1 || byte[0] != b'i' {
                return;
            }
            bar.abandon();
            let stored = belady_core::sweep::store::Store::open_existing(&store_path)
                .and_then(|s| s.keys())
                .map(|done| keys.iter().filter(|k| done.contains(*k)).count());
            let what = match stored {
                Ok(n) => format!("{n} of the experiment's {} runs are stored", keys.len()),
                Err(e) => format!("cannot count the stored runs ({e})"),
            };
            eprintln!(
                "\nbelady: interrupted: {what} in {}; run the same command again to resume \
                 (stored runs are skipped)",
                store_path.display()
            );
            crate::on_signal::remove_pending();
            // Without running destructors or atexit handlers under the still-running workers.
            // SAFETY: _exit ends the process; nothing after it runs.
            unsafe { libc::_exit(130) };
        });
        crate::on_signal::interrupt_to(write_fd);
        Ok(Interrupt {
            write_fd,
            thread: Some(thread),
        })
    }

    /// The sweep ended: Ctrl-C is the default again, and the thread ends.
    fn finish(mut self) {
        crate::on_signal::interrupt_to(0);
        // SAFETY: writes one byte from static memory to the pipe this value owns, then closes it.
        unsafe {
            libc::write(self.write_fd, b"d".as_ptr().cast(), 1);
            libc::close(self.write_fd);
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Hands the sweep to the Python package's Dask driver (same plan, same store, same engine).
fn dask(experiment: &Path, store: &Path, address: &str) -> Result<()> {
    let python = std::env::var("BELADY_PYTHON").unwrap_or_else(|_| "python3".into());
    let status = std::process::Command::new(&python)
        .args(["-m", "belady.dask_sweep"])
        .arg(experiment)
        .arg("--store")
        .arg(store)
        .arg("--scheduler")
        .arg(address)
        .status()
        .with_context(|| {
            format!(
                "cannot start {python} for --dask (install the belady Python package with dask)"
            )
        })?;
    if !status.success() {
        bail!("the Dask sweep failed ({status})");
    }
    Ok(())
}

/// `belady results ...`.
pub fn results(args: ResultsArgs) -> Result<()> {
    match args.command {
        ResultsCommand::Export {
            store,
            format,
            output,
        } => export(&store, format, output.as_deref()),
    }
}

fn export(store_path: &Path, format: ExportFormat, output: Option<&Path>) -> Result<()> {
    if let Some(out) = output {
        belady_core::outfile::refuse_overwrite(out, &[store_path])?;
    }
    let store = Store::open_existing(store_path)?;
    if let ExportFormat::Parquet = format {
        let Some(path) = output else {
            bail!("--format parquet writes a binary file: name it with -o FILE");
        };
        let records: Vec<Record> = store.runs()?.into_iter().map(record).collect();
        return write_parquet(&records, path);
    }
    // A file is written under a temporary name and renamed when complete.
    let mut file = output.map(OutFile::create).transpose()?;
    let mut out: Box<dyn std::io::Write + '_> = match &mut file {
        Some(f) => Box::new(std::io::BufWriter::new(f)),
        None => Box::new(std::io::stdout().lock()),
    };
    // One flat record per run: the configuration, then every metric (I/O and time included).
    let records: Vec<Record> = store.runs()?.into_iter().map(record).collect();
    let written = write_records(&mut out, format, &records);
    drop(out);
    // A write that failed (a full disk, the file-size limit) names the output, not the store.
    let target = output.map_or("standard output".into(), |p| p.display().to_string());
    written.with_context(|| format!("{target}: cannot write the export"))?;
    if let Some(f) = file {
        f.commit()?;
    }
    Ok(())
}

/// Writes `records` to `out` as `format` (CSV or JSON), flushed.
fn write_records(
    out: &mut dyn std::io::Write,
    format: ExportFormat,
    records: &[Record],
) -> Result<()> {
    match format {
        ExportFormat::Parquet => unreachable!("handled above"),
        ExportFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, records).map_err(std::io::Error::from)?;
            writeln!(out)?;
        }
        ExportFormat::Csv => {
            let columns = columns(records);
            // Built in memory, so a closed pipe surfaces as a plain I/O error.
            let mut w = csv::Writer::from_writer(Vec::new());
            w.write_record(&columns)?;
            for rec in records {
                w.write_record(columns.iter().map(|c| {
                    match rec.0.iter().find(|(k, _)| k == c).map(|(_, v)| v) {
                        None | Some(serde_json::Value::Null) => String::new(),
                        Some(serde_json::Value::String(s)) => s.clone(),
                        Some(v) => v.to_string(),
                    }
                }))?;
            }
            out.write_all(&w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?)?;
        }
    }
    out.flush()?;
    Ok(())
}

/// The columns of `records` in first-seen order.
fn columns(records: &[Record]) -> Vec<&str> {
    let mut columns: Vec<&str> = Vec::new();
    for rec in records {
        for (k, _) in &rec.0 {
            if !columns.contains(&k.as_str()) {
                columns.push(k);
            }
        }
    }
    columns
}

/// Writes `records` as one Parquet row group: integers as INT64, other numbers as DOUBLE,
/// flags as BOOLEAN, the rest as UTF-8 strings; every column optional (absent = null).
fn write_parquet(records: &[Record], path: &Path) -> Result<()> {
    use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;
    use serde_json::Value;

    #[derive(Clone, Copy, PartialEq)]
    enum Kind {
        Int,
        Float,
        Bool,
        Text,
    }
    let names = columns(records);
    let value = |rec: &Record, c: &str| -> Option<Value> {
        rec.0
            .iter()
            .find(|(k, _)| k == c)
            .map(|(_, v)| v.clone())
            .filter(|v| !v.is_null())
    };
    let kinds: Vec<Kind> = names
        .iter()
        .map(|c| {
            // A metric's type is the registry's, whatever values the runs have (a time no run
            // has is still a DOUBLE column).
            if let Some(m) = belady_core::run::metrics::metric(c) {
                return if m.unit.is_int() {
                    Kind::Int
                } else {
                    Kind::Float
                };
            }
            let values: Vec<Value> = records.iter().filter_map(|r| value(r, c)).collect();
            if !values.is_empty() && values.iter().all(|v| v.is_i64() || v.is_u64()) {
                Kind::Int
            } else if !values.is_empty() && values.iter().all(Value::is_number) {
                Kind::Float
            } else if !values.is_empty() && values.iter().all(Value::is_boolean) {
                Kind::Bool
            } else {
                Kind::Text
            }
        })
        .collect();
    let mut schema = String::from("message belady_runs {\n");
    for (c, k) in names.iter().zip(&kinds) {
        let line = match k {
            Kind::Int => format!("  OPTIONAL INT64 {c};\n"),
            Kind::Float => format!("  OPTIONAL DOUBLE {c};\n"),
            Kind::Bool => format!("  OPTIONAL BOOLEAN {c};\n"),
            Kind::Text => format!("  OPTIONAL BINARY {c} (UTF8);\n"),
        };
        schema.push_str(&line);
    }
    schema.push('}');
    let schema = std::sync::Arc::new(parse_message_type(&schema)?);
    let mut file = OutFile::create(path)?;
    let mut sink = KeepError {
        inner: &mut file,
        error: None,
    };
    let written = (|| -> Result<()> {
        let props = std::sync::Arc::new(WriterProperties::builder().build());
        let mut writer = SerializedFileWriter::new(&mut sink, schema, props)?;
        let mut group = writer.next_row_group()?;
        for (c, kind) in names.iter().zip(&kinds) {
            let cells: Vec<Option<Value>> = records.iter().map(|r| value(r, c)).collect();
            let defs: Vec<i16> = cells.iter().map(|v| i16::from(v.is_some())).collect();
            let present = cells.iter().flatten();
            let mut col = group
                .next_column()?
                .context("the schema lists every column")?;
            match kind {
                Kind::Int => {
                    let v: Vec<i64> = present
                        .map(|v| v.as_i64().unwrap_or_else(|| v.as_u64().unwrap_or(0) as i64))
                        .collect();
                    col.typed::<Int64Type>()
                        .write_batch(&v, Some(&defs), None)?;
                }
                Kind::Float => {
                    let v: Vec<f64> = present.map(|v| v.as_f64().unwrap_or(f64::NAN)).collect();
                    col.typed::<DoubleType>()
                        .write_batch(&v, Some(&defs), None)?;
                }
                Kind::Bool => {
                    let v: Vec<bool> = present.map(|v| v.as_bool().unwrap_or(false)).collect();
                    col.typed::<BoolType>().write_batch(&v, Some(&defs), None)?;
                }
                Kind::Text => {
                    let v: Vec<ByteArray> = present
                        .map(|v| match v {
                            Value::String(s) => ByteArray::from(s.as_str()),
                            other => ByteArray::from(other.to_string().as_str()),
                        })
                        .collect();
                    col.typed::<ByteArrayType>()
                        .write_batch(&v, Some(&defs), None)?;
                }
            }
            col.close()?;
        }
        group.close()?;
        writer.close()?;
        Ok(())
    })();
    // Parquet reports a failed write as "transport error": name the output and the OS's reason.
    if let Err(e) = written {
        let e = sink.error.take().map_or(e, anyhow::Error::from);
        return Err(e.context(format!("{}: cannot write the export", path.display())));
    }
    file.commit()?;
    Ok(())
}

/// A writer that keeps its first error, which a caller may report only as a string.
struct KeepError<W> {
    inner: W,
    error: Option<std::io::Error>,
}

impl<W: std::io::Write> KeepError<W> {
    fn keep<T>(&mut self, r: std::io::Result<T>) -> std::io::Result<T> {
        r.inspect_err(|e| {
            if self.error.is_none() {
                self.error = Some(match e.raw_os_error() {
                    Some(code) => std::io::Error::from_raw_os_error(code),
                    None => std::io::Error::new(e.kind(), e.to_string()),
                });
            }
        })
    }
}

impl<W: std::io::Write> std::io::Write for KeepError<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let r = self.inner.write(buf);
        self.keep(r)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let r = self.inner.flush();
        self.keep(r)
    }
}

fn record(run: StoredRun) -> Record {
    let key = run.config.key();
    let config = serde_json::to_value(&run.config).expect("configurations serialise");
    let config = config.as_object().cloned().unwrap_or_default();
    let shown = |v: &serde_json::Value| match v {
        // Settings as one cell, as written in the experiment.
        serde_json::Value::Array(items) => items
            .iter()
            .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
            .collect::<Vec<_>>()
            .join(" ")
            .into(),
        other => other.clone(),
    };
    let mut rec: Vec<(String, serde_json::Value)> = vec![
        ("key".into(), key.into()),
        ("experiment".into(), run.experiment.into()),
    ];
    // The configuration fields in a fixed order, then any others the configuration has (so every
    // field that tells two runs apart is exported, including ones added later); a field absent
    // from a run's configuration is exported empty. The local path is not part of the run.
    for field in CONFIG_ORDER {
        let v = match *field {
            "policy" => run.result.policy.clone().into(),
            "cache_blocks" => run.result.cache_blocks.into(),
            "cache_size" => run.result.capacity.spelled.clone().into(),
            "capacity" => run.result.capacity.amount.into(),
            "capacity_unit" => run.result.capacity.unit.name().into(),
            // Empty, not null, for single-level runs, as before these became optional.
            "levels" | "placement" => config.get(*field).map_or("".into(), shown),
            _ => config.get(*field).map_or(serde_json::Value::Null, shown),
        };
        rec.push((field.to_string(), v));
    }
    for (k, v) in &config {
        if !CONFIG_ORDER.contains(&k.as_str()) && k != "trace_path" {
            rec.push((k.clone(), shown(v)));
        }
    }
    let result = serde_json::to_value(&run.result).expect("results serialise");
    for (k, v) in flatten(&result) {
        if CONFIG_IN_RESULT.contains(&k.as_str()) {
            continue;
        }
        // A result field named like a configuration field keeps both, the result's renamed.
        let k = if rec.iter().any(|(have, _)| *have == k) {
            format!("result_{k}")
        } else {
            k
        };
        rec.push((k, v));
    }
    Record(rec)
}

/// The exported configuration columns, in order.
const CONFIG_ORDER: &[&str] = &[
    "trace",
    "trace_hash",
    "format",
    "block_size",
    "policy",
    "policies",
    "levels",
    "placement",
    "params",
    "preset",
    "cache_sizes",
    "cache_size",
    "capacity",
    "capacity_unit",
    "cache_blocks",
    "prefetch",
    "disk",
    "scheduler",
    "compat",
    "max_request",
    "read_ahead_kb",
    "belady_version",
];

/// Result fields that repeat the configuration (kept once, from the configuration).
const CONFIG_IN_RESULT: &[&str] = &[
    "trace",
    "policy",
    "cache_size",
    "capacity",
    "capacity_unit",
    "cache_blocks",
    "block_size",
    "prefetch",
];

/// One exported run: named values in column order.
struct Record(Vec<(String, serde_json::Value)>);

impl Serialize for Record {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

/// A run result's fields, with nested objects (the I/O counters) lifted to the top.
fn flatten(v: &serde_json::Value) -> Vec<(String, serde_json::Value)> {
    let mut out = Vec::new();
    for (k, v) in v.as_object().into_iter().flatten() {
        match v {
            serde_json::Value::Object(inner) => {
                out.extend(inner.iter().map(|(k, v)| (k.clone(), v.clone())))
            }
            _ => out.push((k.clone(), v.clone())),
        }
    }
    out
}
