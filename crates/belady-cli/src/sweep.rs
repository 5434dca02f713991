//! `belady sweep EXPERIMENT.toml` and `belady results export`: a grid of runs in parallel, each
//! stored in SQLite as soon as it finishes, so a sweep stopped at any moment resumes where it was.
//!
//! Every run has a key: the SHA-256 of its full configuration (trace content hash, format, block
//! size, policy with parameters, resolved cache size, read-ahead, disk, scheduler, compat rules,
//! belady version). A run whose key is in the store is skipped. Each result is written in its own
//! transaction by one writer thread, so a killed sweep leaves only whole rows behind.

use super::{file_config_from, FileOptions};
use anyhow::{bail, Context, Result};
use belady_core::filesim::{run_file_one, PreparedFileTrace};
use belady_core::trace::{detect_format, load_file_trace};
use belady_core::{
    parse_policies, run_one, BlockTrace, CacheSize, Format, OpFilter, PolicySpec, PreparedTrace,
    Preset, ReadOptions, RunResult,
};
use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

/// The store a sweep writes when neither the experiment nor `--store` names one.
pub const DEFAULT_STORE: &str = "belady-results.sqlite";

#[derive(Args)]
pub struct SweepArgs {
    /// The experiment: a TOML file (see README, "Sweeps").
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
}

#[derive(Args)]
pub struct ResultsArgs {
    #[command(subcommand)]
    command: ResultsCommand,
}

#[derive(Subcommand)]
enum ResultsCommand {
    /// Write every stored run as CSV or JSON.
    Export {
        /// Results database.
        #[arg(long, default_value = DEFAULT_STORE)]
        store: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "csv")]
        format: ExportFormat,
        /// Output file (default: standard output).
        #[arg(long, short = 'o')]
        output: Option<PathBuf>,
    },
}

#[derive(Copy, Clone, ValueEnum)]
enum ExportFormat {
    Csv,
    Json,
}

/// One trace of an experiment.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TraceSpec {
    path: PathBuf,
    format: Option<String>,
    #[serde(default = "default_block_size")]
    block_size: u32,
}

fn default_block_size() -> u32 {
    4096
}

/// An experiment file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Experiment {
    /// Name stored with every row.
    #[serde(default)]
    name: String,
    store: Option<PathBuf>,
    #[serde(default = "default_preset")]
    preset: String,
    policies: Vec<String>,
    #[serde(default)]
    params: Vec<String>,
    sizes: Vec<String>,
    #[serde(default = "default_none")]
    prefetch: Vec<String>,
    #[serde(default = "default_none")]
    disks: Vec<String>,
    #[serde(default = "default_scheduler")]
    scheduler: String,
    compat: Option<String>,
    #[serde(default = "default_max_request")]
    max_request: String,
    #[serde(rename = "trace")]
    traces: Vec<TraceSpec>,
}

fn default_preset() -> String {
    "paper".into()
}
fn default_none() -> Vec<String> {
    vec!["none".into()]
}
fn default_scheduler() -> String {
    "fcfs".into()
}
fn default_max_request() -> String {
    "64KiB".into()
}

/// The configuration of one run, as stored (its hash is the run's key).
#[derive(Clone, Debug, Serialize)]
struct RunConfig {
    trace: String,
    trace_hash: String,
    format: String,
    block_size: u32,
    policy: String,
    params: Vec<String>,
    preset: String,
    cache_size: String,
    cache_blocks: u64,
    prefetch: String,
    disk: String,
    scheduler: String,
    compat: String,
    max_request: String,
    belady_version: &'static str,
}

impl RunConfig {
    fn key(&self) -> String {
        let json = serde_json::to_vec(self).expect("configs serialise");
        hex(&Sha256::digest(json))
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A loaded trace, ready for every run over it.
enum Loaded {
    Blocks(PreparedTrace),
    Files(PreparedFileTrace),
    /// A block trace also prepared for the file-level engine (read-ahead or timing on blocks).
    Both(PreparedTrace, PreparedFileTrace),
}

struct LoadedTrace {
    label: String,
    hash: String,
    format: Format,
    block_size: u32,
    data: Loaded,
}

impl LoadedTrace {
    fn unique(&self) -> usize {
        match &self.data {
            Loaded::Blocks(t) | Loaded::Both(t, _) => t.unique(),
            Loaded::Files(f) => f.distinct,
        }
    }
}

fn sha256_file(path: &Path) -> Result<String> {
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut h = Sha256::new();
    std::io::copy(&mut file, &mut h).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(hex(&h.finalize()))
}

fn load(spec: &TraceSpec, base: &Path, needs_files: bool) -> Result<LoadedTrace> {
    let path = base.join(&spec.path);
    let format = match &spec.format {
        Some(f) => Format::parse(f, None, None)?,
        None => detect_format(&path)?,
    };
    let hash = sha256_file(&path)?;
    let data = if format.is_file_level() {
        Loaded::Files(PreparedFileTrace::new(
            load_file_trace(&path, &format)?,
            spec.block_size,
        )?)
    } else {
        let opts = ReadOptions {
            block_size: spec.block_size,
        };
        let blocks = BlockTrace::load(&path, &format, &opts, OpFilter::Read)?;
        if needs_files {
            let files = PreparedFileTrace::from_block_trace(&blocks)?;
            Loaded::Both(PreparedTrace::new(blocks), files)
        } else {
            Loaded::Blocks(PreparedTrace::new(blocks))
        }
    };
    Ok(LoadedTrace {
        label: spec.path.display().to_string(),
        hash,
        format,
        block_size: spec.block_size,
        data,
    })
}

/// Opens (creating if needed) the results store.
fn open_store(path: &Path) -> Result<Connection> {
    let db = Connection::open(path)
        .with_context(|| format!("cannot open the results store {}", path.display()))?;
    db.execute_batch(
        "PRAGMA journal_mode = WAL;
         PRAGMA synchronous = NORMAL;
         CREATE TABLE IF NOT EXISTS runs (
             key TEXT PRIMARY KEY,
             experiment TEXT NOT NULL,
             trace TEXT NOT NULL,
             trace_hash TEXT NOT NULL,
             format TEXT NOT NULL,
             policy TEXT NOT NULL,
             cache_blocks INTEGER NOT NULL,
             prefetch TEXT NOT NULL,
             disk TEXT NOT NULL,
             belady_version TEXT NOT NULL,
             requests INTEGER NOT NULL,
             hits INTEGER NOT NULL,
             misses INTEGER NOT NULL,
             hit_ratio REAL NOT NULL,
             disk_requests INTEGER,
             exec_time_s REAL,
             config_json TEXT NOT NULL,
             result_json TEXT NOT NULL
         );",
    )
    .with_context(|| format!("{} is not a belady results store", path.display()))?;
    Ok(db)
}

fn store(
    db: &Connection,
    experiment: &str,
    key: &str,
    cfg: &RunConfig,
    r: &RunResult,
) -> Result<()> {
    let io = r.io.as_ref();
    db.execute(
        "INSERT OR IGNORE INTO runs VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
        params![
            key,
            experiment,
            cfg.trace,
            cfg.trace_hash,
            cfg.format,
            r.policy,
            r.cache_blocks as i64,
            cfg.prefetch,
            cfg.disk,
            cfg.belady_version,
            r.requests as i64,
            r.hits as i64,
            r.misses as i64,
            r.hit_ratio,
            io.map(|io| io.disk_requests as i64),
            io.and_then(|io| io.exec_time_s),
            serde_json::to_string(cfg)?,
            serde_json::to_string(r)?,
        ],
    )?;
    Ok(())
}

fn stored_keys(db: &Connection) -> Result<std::collections::HashSet<String>> {
    let mut stmt = db.prepare("SELECT key FROM runs")?;
    let keys = stmt
        .query_map([], |row| row.get::<_, String>(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(keys)
}

/// One run to do: which trace, which policy, size and file-level setting.
struct Job<'a> {
    trace: &'a LoadedTrace,
    spec: &'a PolicySpec,
    capacity: usize,
    setting: usize,
    config: RunConfig,
    key: String,
}

/// Runs the experiment, storing each result as it finishes.
pub fn run(args: SweepArgs) -> Result<()> {
    let text = std::fs::read_to_string(&args.experiment)
        .with_context(|| format!("cannot read {}", args.experiment.display()))?;
    let exp: Experiment = toml::from_str(&text)
        .map_err(|e| anyhow::anyhow!("{}: {}", args.experiment.display(), e.message()))?;
    let base = args.experiment.parent().unwrap_or(Path::new("."));
    if exp.traces.is_empty() || exp.policies.is_empty() || exp.sizes.is_empty() {
        bail!(
            "{}: an experiment needs at least one [[trace]], one policy and one size",
            args.experiment.display()
        );
    }
    let preset = if exp.compat.as_deref() == Some("accusim") {
        Preset::Accusim
    } else {
        Preset::parse(&exp.preset)?
    };
    let specs = parse_policies(&exp.policies.join(","), &exp.params, preset)?;
    let sizes: Vec<(String, CacheSize)> = exp
        .sizes
        .iter()
        .map(|s| Ok((s.clone(), CacheSize::parse(s)?)))
        .collect::<Result<_>>()?;
    // Every (read-ahead, disk) pair, checked once before any trace is read.
    let mut settings = Vec::new();
    for prefetch in &exp.prefetch {
        for disk in &exp.disks {
            let cfg = file_config_from(&FileOptions {
                block_size: 4096,
                prefetch: Some(prefetch),
                compat: exp.compat.as_deref(),
                compat_rules: &[],
                max_request: &exp.max_request,
                disk: (disk != "none").then_some(disk.as_str()),
                scheduler: &exp.scheduler,
            })?;
            settings.push((prefetch.clone(), disk.clone(), cfg));
        }
    }
    let block_engine_only = |p: &str, d: &str| p == "none" && d == "none" && exp.compat.is_none();
    let needs_files = !settings.iter().all(|(p, d, _)| block_engine_only(p, d));
    let traces: Vec<LoadedTrace> = exp
        .traces
        .iter()
        .map(|t| load(t, base, needs_files))
        .collect::<Result<_>>()?;

    let store_path = args
        .store
        .clone()
        .or_else(|| exp.store.as_ref().map(|s| base.join(s)))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_STORE));
    let db = open_store(&store_path)?;
    let done = stored_keys(&db)?;

    let mut jobs = Vec::new();
    let mut total = 0usize;
    for trace in &traces {
        for (si, (prefetch, disk, _)) in settings.iter().enumerate() {
            for spec in &specs {
                for (size_text, size) in &sizes {
                    let capacity = size.resolve(trace.unique(), trace.block_size)?;
                    let config = RunConfig {
                        trace: trace.label.clone(),
                        trace_hash: trace.hash.clone(),
                        format: trace.format.name().to_string(),
                        block_size: trace.block_size,
                        policy: spec.label(),
                        params: exp.params.clone(),
                        preset: exp.preset.clone(),
                        cache_size: size_text.clone(),
                        cache_blocks: capacity as u64,
                        prefetch: prefetch.clone(),
                        disk: disk.clone(),
                        scheduler: exp.scheduler.clone(),
                        compat: exp.compat.clone().unwrap_or_default(),
                        max_request: exp.max_request.clone(),
                        belady_version: env!("CARGO_PKG_VERSION"),
                    };
                    total += 1;
                    let key = config.key();
                    if !done.contains(&key) {
                        jobs.push(Job {
                            trace,
                            spec,
                            capacity,
                            setting: si,
                            config,
                            key,
                        });
                    }
                }
            }
        }
    }
    let skipped = total - jobs.len();
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(jobs.len() as u64)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} runs, {elapsed} elapsed, about {eta} left",
        )
        .expect("a valid template"),
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("cannot start worker threads")?;
    let (tx, rx) = mpsc::channel::<(usize, Result<RunResult>)>();
    let name = if exp.name.is_empty() {
        args.experiment.display().to_string()
    } else {
        exp.name.clone()
    };
    let mut failure = None;
    std::thread::scope(|scope| -> Result<()> {
        let jobs = &jobs;
        let settings = &settings;
        scope.spawn(move || {
            pool.install(|| {
                jobs.par_iter()
                    .enumerate()
                    .for_each_with(tx, |tx, (i, job)| {
                        let (prefetch, disk, cfg) = &settings[job.setting];
                        let result = match &job.trace.data {
                            Loaded::Blocks(t) => run_one(job.spec, t, job.capacity),
                            Loaded::Both(t, _) if block_engine_only(prefetch, disk) => {
                                run_one(job.spec, t, job.capacity)
                            }
                            Loaded::Both(_, f) | Loaded::Files(f) => {
                                let cfg = belady_core::filesim::FileSimConfig {
                                    block_size: job.trace.block_size,
                                    ..cfg.clone()
                                };
                                run_file_one(job.spec, f, job.capacity, &cfg)
                            }
                        };
                        // The receiver only stops early on a store error; later results are moot.
                        let _ = tx.send((i, result.map_err(Into::into)));
                    });
            });
        });
        for (i, result) in rx {
            let job = &jobs[i];
            match result {
                Ok(r) => store(&db, &name, &job.key, &job.config, &r)
                    .with_context(|| format!("cannot write to {}", store_path.display()))?,
                Err(e) => {
                    failure.get_or_insert(e.context(format!(
                        "run {} at {} blocks on {}",
                        job.config.policy, job.capacity, job.config.trace
                    )));
                }
            }
            bar.inc(1);
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    if let Some(e) = failure {
        return Err(e);
    }
    eprintln!(
        "{} runs: {} done now, {} already in {}",
        total,
        jobs.len(),
        skipped,
        store_path.display()
    );
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
    if !store_path.exists() {
        bail!("{}: no such results store", store_path.display());
    }
    let db = open_store(store_path)?;
    let mut stmt = db.prepare(
        "SELECT experiment, config_json, result_json FROM runs
         ORDER BY trace, prefetch, disk, policy, cache_blocks, key",
    )?;
    let rows: Vec<(String, String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut out: Box<dyn std::io::Write> = match output {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => Box::new(std::io::stdout().lock()),
    };
    // One flat record per run: the configuration, then every metric (I/O and time included).
    let mut records = Vec::with_capacity(rows.len());
    for (experiment, config, result) in rows {
        let mut rec: Vec<(String, serde_json::Value)> =
            vec![("experiment".into(), experiment.into())];
        // Parsed with the configuration's own field order, so columns read in a sensible order.
        let config: RunConfigRow = serde_json::from_str(&config)?;
        let result: serde_json::Value = serde_json::from_str(&result)?;
        rec.extend(config.fields());
        rec.extend(
            flatten(&result)
                .into_iter()
                .filter(|(k, _)| !CONFIG_IN_RESULT.contains(&k.as_str())),
        );
        records.push(Record(rec));
    }
    match format {
        ExportFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &records).map_err(std::io::Error::from)?;
            writeln!(out)?;
        }
        ExportFormat::Csv => {
            let mut columns: Vec<&str> = Vec::new();
            for rec in &records {
                for (k, _) in &rec.0 {
                    if !columns.contains(&k.as_str()) {
                        columns.push(k);
                    }
                }
            }
            // Built in memory, so a closed pipe surfaces as a plain I/O error.
            let mut w = csv::Writer::from_writer(Vec::new());
            w.write_record(&columns)?;
            for rec in &records {
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
    Ok(())
}

/// Result fields that repeat the configuration (kept once, from the configuration).
const CONFIG_IN_RESULT: &[&str] = &["trace", "policy", "cache_blocks", "block_size", "prefetch"];

/// One exported run: named values in column order.
struct Record(Vec<(String, serde_json::Value)>);

impl Serialize for Record {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

/// A stored configuration read back, in the order `RunConfig` writes it.
#[derive(Deserialize)]
struct RunConfigRow {
    trace: String,
    trace_hash: String,
    format: String,
    block_size: u32,
    policy: String,
    params: Vec<String>,
    preset: String,
    cache_size: String,
    cache_blocks: u64,
    prefetch: String,
    disk: String,
    scheduler: String,
    compat: String,
    max_request: String,
    belady_version: String,
}

impl RunConfigRow {
    fn fields(self) -> Vec<(String, serde_json::Value)> {
        vec![
            ("trace".into(), self.trace.into()),
            ("trace_hash".into(), self.trace_hash.into()),
            ("format".into(), self.format.into()),
            ("block_size".into(), self.block_size.into()),
            ("policy".into(), self.policy.into()),
            ("params".into(), self.params.join(" ").into()),
            ("preset".into(), self.preset.into()),
            ("cache_size".into(), self.cache_size.into()),
            ("cache_blocks".into(), self.cache_blocks.into()),
            ("prefetch".into(), self.prefetch.into()),
            ("disk".into(), self.disk.into()),
            ("scheduler".into(), self.scheduler.into()),
            ("compat".into(), self.compat.into()),
            ("max_request".into(), self.max_request.into()),
            ("belady_version".into(), self.belady_version.into()),
        ]
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
