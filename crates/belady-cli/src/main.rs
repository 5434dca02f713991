//! `belady`: the command-line front end of the belady simulator.

mod clusterfetch;
mod clusterfetch_demo;
mod demo;
mod disk_cmd;
mod record;
mod table;

use anyhow::{Context, Result};
use belady_core::filesim::{Departures, FileSimConfig, PreparedFileTrace};
use belady_core::prefetch::PrefetchKind;
use belady_core::trace::{
    accusim, detect_format, export, load_file_trace, native, Format, OpFilter, ReadOptions,
    FORMAT_NAMES,
};
use belady_core::{
    parse_policies, run_grid, BlockTrace, CacheSize, PreparedTrace, Preset, RunResult, POLICIES,
};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(
    name = "belady",
    version,
    about = "Buffer-cache and prefetching simulator"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate replacement policies over a trace at one or more cache sizes.
    Sim(Box<SimArgs>),
    /// Convert a trace to belady's native format (or to another tool's format).
    Convert(ConvertArgs),
    /// List the replacement policies and their parameters.
    Policies {
        /// Print JSON instead of a table.
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// Print a Markdown table (as in the README).
        #[arg(long)]
        markdown: bool,
    },
    /// Run the built-in demonstration on the shipped sample traces.
    Demo(demo::DemoArgs),
    /// Record a program's file reads with strace, or convert an strace log, into a file-level trace.
    Record(record::RecordArgs),
    /// Print a disk model's service-time distribution under random or sequential requests.
    Disk(disk_cmd::DiskArgs),
}

/// How to read a trace; shared by every command that takes one.
#[derive(Args, Clone)]
struct TraceArgs {
    /// Trace file (gzip, xz, zstd or bzip2 compressed files are read transparently).
    #[arg(long, short = 't')]
    trace: PathBuf,
    /// Trace format: lirs, arc, csv, cloudphysics, msr, systor, tencent, u32le, u32be, native.
    /// Guessed from the content or name when absent.
    #[arg(long, short = 'f')]
    format: Option<String>,
    /// Column mapping for csv formats, e.g. 'offset=4:bytes,size=5,op=3,time=0:us,device=2'.
    #[arg(long)]
    columns: Option<String>,
    /// The csv trace has a header line to skip.
    #[arg(long, conflicts_with = "no_header")]
    header: bool,
    /// The csv trace has no header line (overrides a preset).
    #[arg(long)]
    no_header: bool,
    /// Bytes per block, for formats that address bytes or sectors.
    #[arg(long, default_value_t = 4096)]
    block_size: u32,
}

impl TraceArgs {
    fn format(&self) -> Result<Format> {
        let header = if self.header {
            Some(true)
        } else if self.no_header {
            Some(false)
        } else {
            None
        };
        Ok(match &self.format {
            Some(name) => Format::parse(name, self.columns.as_deref(), header)?,
            None => detect_format(&self.trace)?,
        })
    }

    fn load(&self, ops: OpFilter) -> Result<BlockTrace> {
        let format = self.format()?;
        let opts = ReadOptions {
            block_size: self.block_size,
        };
        Ok(BlockTrace::load(&self.trace, &format, &opts, ops)?)
    }
}

#[derive(Copy, Clone, ValueEnum)]
enum Ops {
    Read,
    Write,
    All,
}

impl From<Ops> for OpFilter {
    fn from(o: Ops) -> OpFilter {
        match o {
            Ops::Read => OpFilter::Read,
            Ops::Write => OpFilter::Write,
            Ops::All => OpFilter::All,
        }
    }
}

#[derive(Args)]
struct SimArgs {
    #[command(flatten)]
    input: TraceArgs,
    /// Comma-separated policies (see `belady policies`).
    #[arg(long, short = 'p', default_value = "lru")]
    policy: String,
    /// Comma-separated cache sizes: blocks (500), bytes (64MiB) or shares of the unique blocks (1%).
    #[arg(long, short = 'c')]
    cache_size: String,
    /// Policy parameter, POLICY.KEY=VALUE (repeatable).
    #[arg(long = "param")]
    params: Vec<String>,
    /// Parameter defaults: `paper` (each policy's own paper), `study` (the prefetching study's
    /// Table 4) or `accusim` (the study's simulator; implied by `--compat accusim`).
    #[arg(long, default_value = "paper")]
    preset: String,
    /// Which requests to simulate.
    #[arg(long, value_enum, default_value = "read")]
    ops: Ops,
    /// Print a JSON array, one object per run.
    #[arg(long)]
    json: bool,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Read-ahead engine for file-level traces: none, linux24, linux26, ondemand, bsd, example;
    /// add `+clusterfetch` for ClusterFetch on top (`clusterfetch` alone: no read-ahead).
    #[arg(long)]
    prefetch: Option<String>,
    /// Behave as a named reference simulator where it departs from the paper: accusim.
    #[arg(long)]
    compat: Option<String>,
    /// Turn on one of AccuSim's departures alone (repeatable; see the README).
    #[arg(long = "compat-rule")]
    compat_rules: Vec<String>,
    /// Largest disk request for I/O clustering, in bytes (64KiB); `--compat accusim` uses 33 blocks.
    #[arg(long, default_value = "64KiB")]
    max_request: String,
    /// Device model for timing: a preset (cheetah9lp, hdd7200, nvme, fixed) or a TOML file.
    #[arg(long)]
    disk: Option<String>,
    /// How the device orders waiting requests: fcfs, clook (seek-aware elevator) or sstf.
    #[arg(long, default_value = "fcfs")]
    scheduler: String,
    #[command(flatten)]
    cf: clusterfetch::CfArgs,
}

#[derive(Copy, Clone, ValueEnum)]
enum Target {
    /// belady's native binary format (dense ids).
    Native,
    /// One block id per line.
    Lirs,
    /// libCacheSim's oracleGeneral binary format (with next-access times).
    OracleGeneral,
    /// AccuSim's binary file-level form (from an AccuSim input only).
    Accusim,
    /// AccuSim's text file-level form (from an AccuSim input only).
    AccusimText,
}

#[derive(Args)]
struct ConvertArgs {
    #[command(flatten)]
    input: TraceArgs,
    /// Output file.
    #[arg(long, short = 'o')]
    output: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "native")]
    to: Target,
    /// Which requests to keep (native keeps the direction of each).
    #[arg(long, value_enum, default_value = "all")]
    ops: Ops,
}

/// One `sim` result as printed: the run plus how the trace was read.
#[derive(serde::Serialize)]
struct SimRow<'a> {
    #[serde(flatten)]
    run: &'a RunResult,
    format: &'a str,
    ops: OpFilter,
}

/// The file-level settings a `sim` call asks for, validated in one place.
fn file_config(args: &SimArgs) -> Result<FileSimConfig> {
    let (engine, cf) = clusterfetch::split_prefetch(args.prefetch.as_deref().unwrap_or("none"))?;
    let mut cfg = FileSimConfig {
        block_size: args.input.block_size,
        prefetch: PrefetchKind::parse(&engine)?,
        clusterfetch: args.cf.config(cf)?,
        placement: args.cf.placement()?,
        ..FileSimConfig::default()
    };
    match args.compat.as_deref() {
        None => {}
        Some("accusim") => cfg.departures = Departures::accusim(),
        Some(other) => {
            return Err(belady_core::Error::config("--compat", other, "expected accusim").into())
        }
    }
    for rule in &args.compat_rules {
        cfg.departures.enable(rule)?;
    }
    cfg.max_request_bytes = match CacheSize::parse(&args.max_request)? {
        CacheSize::Bytes(b) => b,
        CacheSize::Blocks(b) => b.saturating_mul(args.input.block_size as u64),
        CacheSize::Percent(_) => {
            return Err(belady_core::Error::config(
                "--max-request",
                &args.max_request,
                "expected a byte size such as 64KiB",
            )
            .into())
        }
    };
    if let Some(disk) = &args.disk {
        cfg.disk = Some(belady_core::disk::load_config(disk)?);
    }
    cfg.scheduler = belady_core::disk::queue::Scheduler::parse(&args.scheduler)?;
    cfg.validate()?;
    Ok(cfg)
}

fn sim(args: SimArgs) -> Result<()> {
    let preset = if args.compat.as_deref() == Some("accusim") {
        Preset::Accusim
    } else {
        Preset::parse(&args.preset)?
    };
    let specs = parse_policies(&args.policy, &args.params, preset)?;
    let sizes = CacheSize::parse_list(&args.cache_size)?;
    let format = args.input.format()?;
    let ops = OpFilter::from(args.ops);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("cannot start worker threads")?;
    if format.is_file_level() {
        let cfg = file_config(&args)?;
        let events = load_file_trace(&args.input.trace, &format)?;
        let trace = args
            .cf
            .prepare(PreparedFileTrace::new(events, args.input.block_size)?)?;
        let results =
            pool.install(|| clusterfetch::run_file(&args.cf, &specs, &sizes, &trace, &cfg))?;
        return print_runs(
            &args,
            &results,
            &format,
            ops,
            trace.refs.len(),
            trace.distinct,
            &trace.trace.source,
        );
    }
    if args.prefetch.as_deref().is_some_and(|p| p != "none")
        || args.compat.is_some()
        || !args.compat_rules.is_empty()
        || args.disk.is_some()
        || args.scheduler != "fcfs"
        || args.cf.needs_file_engine()
    {
        // Read-ahead, clustering and timing on a block trace: runs of consecutive ids act as files.
        let cfg = file_config(&args)?;
        let trace = args
            .cf
            .prepare(PreparedFileTrace::from_block_trace(&args.input.load(ops)?)?)?;
        let results =
            pool.install(|| clusterfetch::run_file(&args.cf, &specs, &sizes, &trace, &cfg))?;
        return print_runs(
            &args,
            &results,
            &format,
            ops,
            trace.refs.len(),
            trace.distinct,
            &trace.trace.source,
        );
    }
    let trace = PreparedTrace::new(args.input.load(ops)?);
    let results = pool.install(|| run_grid(&specs, &sizes, &trace))?;
    print_runs(
        &args,
        &results,
        &format,
        ops,
        trace.trace.refs.len(),
        trace.unique(),
        &trace.trace.source,
    )
}

fn print_runs(
    args: &SimArgs,
    results: &[RunResult],
    format: &Format,
    ops: OpFilter,
    references: usize,
    unique: usize,
    source: &str,
) -> Result<()> {
    if args.json {
        let rows: Vec<SimRow> = results
            .iter()
            .map(|run| SimRow {
                run,
                format: format.name(),
                ops,
            })
            .collect();
        emit(&format!("{}\n", serde_json::to_string_pretty(&rows)?))?;
    } else {
        emit(&format!(
            "trace {} ({} {}, {} references, {} unique blocks)\n{}{}",
            source,
            format.name(),
            ops.noun(),
            references,
            unique,
            table::runs(results),
            clusterfetch::summary(results)
        ))?;
    }
    Ok(())
}

fn convert(args: ConvertArgs) -> Result<()> {
    let out = &args.output;
    let file =
        || std::fs::File::create(out).with_context(|| format!("{}: cannot create", out.display()));
    let failed = || format!("{}: write failed", out.display());
    if let Target::Accusim | Target::AccusimText = args.to {
        return convert_accusim(&args);
    }
    let trace = args.input.load(args.ops.into())?;
    match args.to {
        Target::Native => native::write_file(&trace, out)?,
        Target::Lirs => export::write_lirs(&trace, file()?).with_context(failed)?,
        Target::OracleGeneral => {
            export::write_oracle_general(&trace, file()?).with_context(failed)?
        }
        Target::Accusim | Target::AccusimText => unreachable!("handled above"),
    }
    eprintln!(
        "wrote {} ({} references, {} unique blocks)",
        out.display(),
        trace.refs.len(),
        trace.unique()
    );
    Ok(())
}

/// Rewrites an AccuSim trace in its other form, record by record.
fn convert_accusim(args: &ConvertArgs) -> Result<()> {
    let out = &args.output;
    let format = args.input.format()?;
    if !format.is_file_level() {
        anyhow::bail!(
            "--to accusim and accusim-text convert AccuSim traces only (--format accusim or accusim-text), not {}",
            format.name()
        );
    }
    let binary_out = matches!(args.to, Target::Accusim);
    let created =
        std::fs::File::create(out).with_context(|| format!("{}: cannot create", out.display()))?;
    let mut w = std::io::BufWriter::new(created);
    let mut records = 0u64;
    for item in accusim::calls(&args.input.trace, format == Format::Accusim)? {
        let (call, _) = item?;
        if binary_out {
            accusim::write_binary(&call, &mut w)
        } else {
            accusim::write_text(&call, &mut w)
        }
        .with_context(|| format!("{}: write failed", out.display()))?;
        records += 1;
    }
    std::io::Write::flush(&mut w).with_context(|| format!("{}: write failed", out.display()))?;
    eprintln!("wrote {} ({records} records)", out.display());
    Ok(())
}

fn policies(json: bool, markdown: bool) -> Result<()> {
    if markdown {
        let mut text = String::from(
            "| policy | what | parameters: paper default (study preset) |\n|---|---|---|\n",
        );
        for p in POLICIES {
            let params: Vec<String> = p
                .params
                .iter()
                .map(|q| match q.study {
                    Some(s) => format!("`{}`={} ({s})", q.name, q.default),
                    None => format!("`{}`={}", q.name, q.default),
                })
                .collect();
            let names = std::iter::once(p.name)
                .chain(p.aliases.iter().copied())
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>();
            text.push_str(&format!(
                "| {} | {} | {} |\n",
                names.join(", "),
                p.about,
                params.join(", ")
            ));
        }
        return emit(&text);
    }
    if json {
        let list: Vec<serde_json::Value> = POLICIES
            .iter()
            .map(|p| {
                serde_json::json!({
                    "name": p.name,
                    "aliases": p.aliases,
                    "about": p.about,
                    "params": p.params.iter().map(|q| serde_json::json!({
                        "name": q.name, "default": q.default, "study": q.study.unwrap_or(q.default), "about": q.about
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        return emit(&format!("{}\n", serde_json::to_string_pretty(&list)?));
    }
    let mut text = String::new();
    for p in POLICIES {
        let aliases = if p.aliases.is_empty() {
            String::new()
        } else {
            format!(" (also {})", p.aliases.join(", "))
        };
        text.push_str(&format!("{}{aliases}: {}\n", p.name, p.about));
        for q in p.params {
            let study = q
                .study
                .map(|s| format!(" (study: {s})"))
                .unwrap_or_default();
            text.push_str(&format!(
                "    {}.{} = {}{study}    {}\n",
                p.name, q.name, q.default, q.about
            ));
        }
    }
    emit(&text)
}

/// Writes to standard output, reporting failures (a closed pipe) as errors instead of panicking.
pub fn emit(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Sim(args) => sim(*args),
        Command::Convert(args) => convert(args),
        Command::Policies { json, markdown } => policies(json, markdown),
        Command::Demo(args) => demo::run(args),
        Command::Record(args) => record::run(args),
        Command::Disk(args) => disk_cmd::run(args),
    };
    if let Err(e) = result {
        if is_broken_pipe(&e) {
            // The reader went away (`belady ... | head`): nothing left to report.
            std::process::exit(0);
        }
        let chain: Vec<String> = e.chain().map(|c| c.to_string()).collect();
        eprintln!("belady: error: {}", chain.join(": "));
        std::process::exit(1);
    }
}

/// Formats accepted by `--format`, for messages.
pub fn format_names() -> String {
    FORMAT_NAMES.join(", ")
}

/// The directory of shipped sample data, next to the workspace root when run from a checkout.
pub fn data_dir() -> PathBuf {
    let beside_manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data");
    if beside_manifest.is_dir() {
        beside_manifest
    } else {
        PathBuf::from("data")
    }
}
