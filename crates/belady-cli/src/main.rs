//! `belady`: the command-line front end of the belady simulator.

mod args;
mod calibrate;
mod clusterfetch;
mod clusterfetch_demo;
mod demo;
mod demo_summary;
mod disk_cmd;
mod distances;
mod gen_cmd;
mod levels;
mod merge_cmd;
mod mrc_chart;
mod mrc_cmd;
mod record;
mod report;
mod report_chart;
mod report_data;
mod sample_data;
mod stats_cmd;
mod sweep;
mod table;

pub use args::TraceArgs;

use anyhow::{Context, Result};
use belady_core::config::RunOptions;
use belady_core::filesim::{FileSimConfig, PreparedFileTrace};
use belady_core::outfile::{refuse_overwrite, OutFile};
use belady_core::simulate::simulate_with;
use belady_core::trace::{
    accusim, detect_format, events, export, load_file_trace, native, open_requests, BlockRequest,
    Format, OpFilter, ReadOptions, RequestStream, FORMAT_NAMES,
};
use belady_core::{parse_policies, CacheSize, PreparedTrace, Preset, RunResult, POLICIES};
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
    /// Convert a trace between formats: any readable one to native, native to the others.
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
    /// Run the built-in demonstration on the shipped sample traces (`demo lru-failures`: where
    /// LRU fails and which policies fix it).
    Demo(demo::DemoArgs),
    /// Generate a synthetic workload (deterministic for a seed, written as it is generated).
    Gen(gen_cmd::GenArgs),
    /// Characterise a trace: counts, sequentiality, file sizes, reuse distances, working set.
    Stats(stats_cmd::StatsArgs),
    /// Interleave two traces by time, one scaled onto the other's duration, ids kept apart.
    Merge(merge_cmd::MergeArgs),
    /// Record a program's file reads with strace, or convert an strace log, into a file-level trace.
    Record(record::RecordArgs),
    /// Print a disk model's service-time distribution under random or sequential requests.
    Disk(disk_cmd::DiskArgs),
    /// Run an experiment grid (TOML) in parallel into a resumable SQLite results store.
    Sweep(sweep::SweepArgs),
    /// Work with a results store: `belady results export`.
    Results(sweep::ResultsArgs),
    /// Write an HTML report with charts (and SVG files) from a results store.
    Report(report::ReportArgs),
    /// Reuse and eviction (idle) distance histograms below a client cache (log2 buckets).
    Distances(distances::DistancesArgs),
    /// Measure this kernel's page-cache read-ahead (pread + mincore on a scratch file) and
    /// compare a read-ahead model with it.
    Calibrate(calibrate::CalibrateArgs),
    /// Miss-ratio curves: LRU exactly and any policy by sampling, every size in one pass.
    Mrc(mrc_cmd::MrcArgs),
}

/// A trace's format options, without the path.
#[derive(Args, Clone)]
pub struct FormatArgs {
    /// Trace format: lirs, arc, csv, cloudphysics, msr, systor, tencent, u32le, u32be, native,
    /// accusim, accusim-text, events. Guessed from the content or name when absent.
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
    /// Largest request one trace line may make, in bytes (a bigger one is refused, naming the
    /// line): a request expands into one reference per block.
    #[arg(long, default_value_t = belady_core::trace::DEFAULT_MAX_REQUEST_BYTES)]
    max_request_bytes: u64,
}

impl FormatArgs {
    /// The format of `path`: as given, else guessed.
    pub fn format_of(&self, path: &Path, name: Option<&str>) -> Result<Format> {
        let header = if self.header {
            Some(true)
        } else if self.no_header {
            Some(false)
        } else {
            None
        };
        Ok(match name.or(self.format.as_deref()) {
            Some(name) => Format::parse(name, self.columns.as_deref(), header)?,
            None => detect_format(path)?,
        })
    }

    /// The reader settings these options give.
    pub fn read_options(&self) -> ReadOptions {
        ReadOptions {
            max_request_bytes: self.max_request_bytes,
            ..ReadOptions::with_block_size(self.block_size)
        }
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
    #[arg(
        long,
        short = 'c',
        required_unless_present = "levels",
        allow_hyphen_values = true
    )]
    cache_size: Option<String>,
    /// A cache hierarchy, top (client) first: NAME:POLICY:SIZE[:PLACEMENT],... e.g.
    /// client:lru:256MiB,storage:mq:512MiB:eviction (repeatable; replaces --policy and --cache-size).
    #[arg(long, conflicts_with = "cache_size")]
    levels: Vec<String>,
    /// Placement at lower levels that do not name one: access, eviction, eviction:N (reload only
    /// blocks requested N times), demote, exclusive; a comma-separated list runs each.
    #[arg(long, default_value = "access", requires = "levels")]
    placement: String,
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
    /// Read-ahead engine for file-level traces: none, linux24, linux26, ondemand, linux6, bsd,
    /// example; add `+clusterfetch` for ClusterFetch on top (`clusterfetch` alone: no
    /// read-ahead).
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
    /// Largest read-ahead window in KiB, as Linux's read_ahead_kb (default: 32 blocks, 128 KiB
    /// with 4 KiB blocks); applies to every read-ahead engine.
    #[arg(long)]
    read_ahead_kb: Option<u64>,
    /// Device model for timing: a preset (cheetah9lp, hdd7200, nvme, fixed) or a TOML file.
    #[arg(long)]
    disk: Option<String>,
    /// How the device orders waiting requests: fcfs, clook (seek-aware elevator) or sstf.
    #[arg(long, default_value = "fcfs")]
    scheduler: String,
    #[command(flatten)]
    cf: clusterfetch::CfArgs,
    /// File-level runs: list every disk request (event, sync, file, first block, blocks, issue
    /// time) in each JSON row's `request_log`.
    #[arg(long)]
    log_requests: bool,
    /// With --levels and --disk: one-way latency between adjacent levels, microseconds.
    #[arg(long, default_value_t = 10.0, requires = "levels")]
    link_latency_us: f64,
    /// With --levels and --disk: bandwidth between adjacent levels, megabits per second.
    #[arg(long, default_value_t = 1000.0, requires = "levels")]
    link_mbps: f64,
    /// With --levels and --disk: time between one reference's completion and the next, microseconds.
    #[arg(long, default_value_t = 0.0, requires = "levels")]
    think_us: f64,
    /// With --levels and --disk: most reloads waiting for idle disk time; more are dropped.
    #[arg(long, default_value_t = 4096, requires = "levels")]
    reload_queue: usize,
}

#[derive(Copy, Clone, PartialEq, Eq, ValueEnum)]
enum Target {
    /// belady's native binary format (dense ids).
    Native,
    /// One block id per line.
    Lirs,
    /// `start_block num_blocks 0 request_no` (the ARC traces' form), runs of consecutive blocks.
    Arc,
    /// `block,op[,time_ns]` with a header (read back with --format csv --header
    /// --columns block=0,op=1,time=2:ns).
    Csv,
    /// Back-to-back little-endian 32-bit block ids.
    U32le,
    /// Back-to-back big-endian 32-bit block ids.
    U32be,
    /// libCacheSim's oracleGeneral binary format (with next-access times).
    OracleGeneral,
    /// belady's file-level events text (from a file-level input).
    Events,
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
    /// Which requests to keep (native and csv keep the direction of each).
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

/// The engine settings of one `sim` run with read-ahead `prefetch` and device `disk` (one value
/// each of the comma-separated `--prefetch` and `--disk`).
fn run_options(args: &SimArgs, prefetch: Option<&str>, disk: Option<&str>) -> RunOptions {
    RunOptions {
        block_size: args.input.how.block_size,
        preset: args.preset.clone(),
        prefetch: prefetch.map(str::to_string),
        disk: disk.map(str::to_string),
        scheduler: args.scheduler.clone(),
        compat: args.compat.clone(),
        compat_rules: args.compat_rules.clone(),
        max_request: args.max_request.clone(),
        read_ahead_kb: args.read_ahead_kb,
        clusterfetch_options: args.cf.needs_file_engine(),
    }
}

/// One [`RunOptions`] per (read-ahead, device) pair of the comma-separated `--prefetch` and
/// `--disk` lists, read-ahead major: the grid is their product with policies and sizes.
fn option_grid(args: &SimArgs) -> Result<Vec<RunOptions>> {
    let list = |v: &Option<String>, flag: &str| -> Result<Vec<Option<String>>> {
        let Some(text) = v else {
            return Ok(vec![None]);
        };
        let items: Vec<Option<String>> = text
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(|t| Some(t.to_string()))
            .collect();
        if items.is_empty() {
            anyhow::bail!("invalid {flag} '{text}': name at least one");
        }
        Ok(items)
    };
    let prefetches = list(&args.prefetch, "--prefetch")?;
    let disks = list(&args.disk, "--disk")?;
    Ok(prefetches
        .iter()
        .flat_map(|p| {
            disks
                .iter()
                .map(move |d| run_options(args, p.as_deref(), d.as_deref()))
        })
        .collect())
}

/// The file-level settings of one run, validated in one place (the core's, plus ClusterFetch's
/// and the request log from the command line).
fn file_config(args: &SimArgs, opts: &RunOptions) -> Result<FileSimConfig> {
    let mut cfg = opts.file_config()?;
    cfg.log_requests = args.log_requests;
    cfg.clusterfetch = args.cf.config(cfg.clusterfetch.is_some())?;
    cfg.placement = args.cf.placement()?;
    cfg.validate()?;
    Ok(cfg)
}

fn sim(args: SimArgs) -> Result<()> {
    let grid = option_grid(&args)?;
    let preset = grid[0].preset()?;
    let format = args.input.format()?;
    let ops = OpFilter::from(args.ops);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("cannot start worker threads")?;
    if !args.levels.is_empty() {
        return sim_levels(&args, &grid, preset, &format, ops, &pool);
    }
    let specs = parse_policies(&args.policy, &args.params, preset)?;
    let sizes = CacheSize::parse_list(args.cache_size.as_deref().unwrap_or_default())?;
    let mut runs = Vec::new();
    let mut read = None;
    for opts in &grid {
        let cfg = opts
            .uses_file_engine(&format)
            .then(|| file_config(&args, opts))
            .transpose()?;
        let sim = pool.install(|| match &cfg {
            // Warm starts, launch markers and a persistent store shape the trace and the run.
            Some(cfg) if args.cf.needs_own_run() => clusterfetch::simulate(
                &args.cf,
                &args.input.trace,
                &format,
                args.input.how.block_size,
                ops,
                &specs,
                &sizes,
                cfg,
            ),
            _ => simulate_with(
                &args.input.trace,
                &format,
                &args.input.how.read_options(),
                ops,
                &specs,
                &sizes,
                cfg.as_ref(),
            )
            .map_err(anyhow::Error::from),
        })?;
        read.get_or_insert((sim.references, sim.unique, sim.source));
        runs.extend(sim.runs);
    }
    let (references, unique, source) = read.expect("at least one run setting");
    print_runs(&args, &runs, &format, ops, references, unique, &source)
}

/// `sim --levels`: hierarchies. With read-ahead, a device queue scheduler, compat rules or a
/// file-level trace the client level runs on the file engine (the levels below see every block
/// it reads); otherwise on the block-level hierarchy engine (with its link timing under `--disk`).
fn sim_levels(
    args: &SimArgs,
    grid: &[RunOptions],
    preset: Preset,
    format: &Format,
    ops: OpFilter,
    pool: &rayon::ThreadPool,
) -> Result<()> {
    let specs = levels::specs(&args.levels, &args.placement, &args.params, preset)?;
    // A block-level trace with only --disk keeps the hierarchy's own timing (links between the
    // levels, low-priority reloads on the disk); anything the file engine adds runs there.
    let block_engine = |o: &RunOptions| !o.levels_on_file_engine(format);
    if grid.iter().all(block_engine) {
        let trace = PreparedTrace::new(args.input.load(ops)?);
        let mut results = Vec::new();
        for opts in grid {
            let timing = levels::timing(args, opts.disk.as_deref())?;
            results.extend(pool.install(|| {
                belady_core::hierarchy::run_hierarchies(&specs, &trace, timing.as_ref())
            })?);
        }
        if args.json {
            return emit(&levels::json(&results, format.name(), ops)?);
        }
        return emit(&format!(
            "trace {} ({} {}, {} references, {} unique blocks)\n{}",
            trace.trace.source,
            format.name(),
            ops.noun(),
            trace.trace.refs.len(),
            trace.unique(),
            levels::text(&results)
        ));
    }
    let trace = if format.is_file_level() {
        PreparedFileTrace::open(&args.input.trace, format, args.input.how.block_size)?
    } else {
        PreparedFileTrace::from_block_trace(&args.input.load(ops)?)?
    };
    let mut runs = Vec::new();
    for opts in grid {
        let cfg = file_config(args, opts)?;
        runs.extend(
            pool.install(|| belady_core::filesim::run_file_hierarchies(&specs, &trace, &cfg))?,
        );
    }
    if args.json {
        return print_runs(
            args,
            &runs,
            format,
            ops,
            trace.references,
            trace.distinct,
            trace.source(),
        );
    }
    emit(&format!(
        "trace {} ({} {}, {} references, {} unique blocks)\n{}{}",
        trace.source(),
        format.name(),
        ops.noun(),
        trace.references,
        trace.distinct,
        table::runs(&runs),
        levels::run_levels(&runs)
    ))
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

/// A block-level stream of `path`, with the block size and source name it carries.
fn open_stream(
    path: &Path,
    format: &Format,
    how: &FormatArgs,
) -> Result<(RequestStream, u32, String)> {
    if *format == Format::Native {
        let reqs = native::NativeRequests::open(
            belady_core::trace::input::open_trace(path)?,
            path.display().to_string(),
        )?;
        let (bs, source) = (reqs.block_size(), reqs.source().to_string());
        return Ok((Box::new(reqs), bs, source));
    }
    Ok((
        open_requests(path, format, &how.read_options())?,
        how.block_size,
        path.display().to_string(),
    ))
}

/// Where streamed block references go: a native file or a [`export::RefWriter`].
pub(crate) enum RefSink {
    Native(native::StreamWriter, OutFile),
    Text(export::RefWriter<std::io::BufWriter<OutFile>>),
}

impl RefSink {
    /// Starts writing `out` (under a temporary name until [`RefSink::finish`]).
    fn create(to: Target, out: &Path, source: &str, block_size: u32) -> Result<RefSink> {
        let file = OutFile::create(out)?;
        let format = match to {
            Target::Native => {
                let dir = match out.parent() {
                    Some(d) if !d.as_os_str().is_empty() => d,
                    _ => Path::new("."),
                };
                return Ok(RefSink::Native(
                    native::StreamWriter::new(dir, source.to_string(), block_size)?,
                    file,
                ));
            }
            Target::Lirs => export::RefFormat::Lirs,
            Target::Arc => export::RefFormat::Arc,
            Target::Csv => export::RefFormat::Csv,
            Target::U32le => export::RefFormat::U32Le,
            Target::U32be => export::RefFormat::U32Be,
            _ => unreachable!("not a streamed block format"),
        };
        Ok(RefSink::Text(export::RefWriter::new(
            format,
            std::io::BufWriter::with_capacity(1 << 20, file),
        )))
    }

    /// Appends every block of `req`.
    fn push(&mut self, req: &BlockRequest, out: &Path) -> Result<()> {
        for k in 0..req.count as u64 {
            let block = req.block + k;
            match self {
                RefSink::Native(w, _) => w.push(block, req.op, req.time_ns)?,
                RefSink::Text(w) => w
                    .push(block, req.op, req.time_ns)
                    .with_context(|| format!("{}: cannot write", out.display()))?,
            }
        }
        Ok(())
    }

    /// Finishes the file and gives it its name; returns the unique blocks when known.
    fn finish(self, out: &Path) -> Result<Option<usize>> {
        let failed = || format!("{}: write failed", out.display());
        match self {
            RefSink::Native(w, mut file) => {
                let (_, unique) = w
                    .finish(std::io::BufWriter::with_capacity(1 << 20, &mut file))
                    .with_context(failed)?;
                file.commit()?;
                Ok(unique)
            }
            RefSink::Text(w) => {
                let file = w
                    .finish()
                    .with_context(failed)?
                    .into_inner()
                    .map_err(|e| e.into_error())
                    .with_context(failed)?;
                file.commit()?;
                Ok(None)
            }
        }
    }
}

fn convert(args: ConvertArgs) -> Result<()> {
    let out = &args.output;
    refuse_overwrite(out, &[&args.input.trace])?;
    let failed = || format!("{}: write failed", out.display());
    match args.to {
        Target::Accusim | Target::AccusimText => return convert_accusim(&args),
        Target::Events => {
            let format = args.input.format()?;
            // An events input keeps its TIME column; other inputs have none to keep.
            let (trace, times) = if format == Format::Events {
                events::load_timed(&args.input.trace)?
            } else {
                (load_file_trace(&args.input.trace, &format)?, Vec::new())
            };
            let mut w = events::Writer::new(std::io::BufWriter::new(OutFile::create(out)?))
                .with_context(failed)?;
            for (i, ev) in trace.events.iter().enumerate() {
                let path = trace.names.get(&ev.file).map_or("?", String::as_str);
                w.push(ev, times.get(i).copied().flatten(), path)
                    .with_context(failed)?;
            }
            w.finish()
                .with_context(failed)?
                .into_inner()
                .map_err(|e| e.into_error())
                .with_context(failed)?
                .commit()?;
            eprintln!(
                "wrote {} ({} events, {} files)",
                out.display(),
                trace.events.len(),
                trace.names.len()
            );
            return Ok(());
        }
        Target::OracleGeneral => {
            let trace = args.input.load(args.ops.into())?;
            let mut file = OutFile::create(out)?;
            export::write_oracle_general(&trace, &mut file).with_context(failed)?;
            file.commit()?;
            eprintln!(
                "wrote {} ({} references, {} unique blocks)",
                out.display(),
                trace.refs.len(),
                trace.unique()
            );
            return Ok(());
        }
        _ => {}
    }
    let format = args.input.format()?;
    let ops = OpFilter::from(args.ops);
    let (stream, block_size, source) = open_stream(&args.input.trace, &format, &args.input.how)?;
    let mut sink = RefSink::create(args.to, out, &source, block_size)?;
    let mut refs = 0u64;
    for req in stream {
        let req = req?;
        if ops.keeps(req.op) {
            sink.push(&req, out)?;
            refs += req.count as u64;
        }
    }
    if refs == 0 {
        // Dropping the sink removes its temporary file; nothing takes the output's name.
        drop(sink);
        return Err(belady_core::Error::EmptyTrace {
            path: args.input.trace.display().to_string(),
            what: ops.noun().to_string(),
        }
        .into());
    }
    let unique = sink.finish(out)?;
    match unique {
        Some(u) => eprintln!(
            "wrote {} ({refs} references, {u} unique blocks)",
            out.display()
        ),
        None => eprintln!("wrote {} ({refs} references)", out.display()),
    }
    Ok(())
}

/// Rewrites an AccuSim trace in its other form, record by record.
fn convert_accusim(args: &ConvertArgs) -> Result<()> {
    let out = &args.output;
    let format = args.input.format()?;
    if !matches!(format, Format::Accusim | Format::AccusimText) {
        anyhow::bail!(
            "--to accusim and accusim-text convert AccuSim traces only: they copy AccuSim's \
             records, so the input must be --format accusim or accusim-text, not {}",
            format.name()
        );
    }
    let binary_out = matches!(args.to, Target::Accusim);
    let mut w = std::io::BufWriter::new(OutFile::create(out)?);
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
    w.into_inner()
        .map_err(|e| e.into_error())
        .with_context(|| format!("{}: write failed", out.display()))?
        .commit()?;
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
                        "name": q.name, "default": q.default, "study": q.study.unwrap_or(q.default),
                        "accusim": q.accusim.or(q.study).unwrap_or(q.default), "about": q.about
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
    // The core keeps a file's OS error inside its message, not as a chained source, so both
    // places are looked at.
    e.chain().any(|c| {
        let io = c.downcast_ref::<std::io::Error>().or_else(|| {
            match c.downcast_ref::<belady_core::Error>() {
                Some(belady_core::Error::Io { cause, .. }) => Some(cause),
                _ => None,
            }
        });
        io.is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Sim(args) => sim(*args),
        Command::Convert(args) => convert(args),
        Command::Policies { json, markdown } => policies(json, markdown),
        Command::Demo(args) => demo::run(args),
        Command::Gen(args) => gen_cmd::run(args),
        Command::Stats(args) => stats_cmd::run(args),
        Command::Merge(args) => merge_cmd::run(args),
        Command::Record(args) => record::run(args),
        Command::Disk(args) => disk_cmd::run(args),
        Command::Sweep(args) => sweep::run(args),
        Command::Results(args) => sweep::results(args),
        Command::Report(args) => report::run(args),
        Command::Distances(args) => distances::run(args),
        Command::Calibrate(args) => calibrate::run(args),
        Command::Mrc(args) => mrc_cmd::run(args),
    };
    if let Err(e) = result {
        if is_broken_pipe(&e) {
            // The reader went away (`belady ... | head`): nothing left to report.
            std::process::exit(0);
        }
        // The core names configuration keys (`max_request`); here they are flags. Messages quote
        // input (a bad line, a file name): its control bytes must not reach the terminal raw,
        // whichever layer built the message.
        let chain: Vec<String> = e
            .chain()
            .map(|c| match c.downcast_ref::<belady_core::Error>() {
                Some(belady_core::Error::Config { field, value, msg }) => format!(
                    "invalid {} '{value}': {msg}",
                    belady_core::config::flag_name(field)
                ),
                _ => c.to_string(),
            })
            .collect();
        let text = chain.join(": ");
        let shown: Vec<_> = text
            .split('\n')
            .map(belady_core::error::escape_control)
            .collect();
        eprintln!("belady: error: {}", shown.join("\n"));
        std::process::exit(1);
    }
}

/// Formats accepted by `--format`, for messages.
pub fn format_names() -> String {
    FORMAT_NAMES.join(", ")
}

/// The directory of the shipped sample data: the copies built into the binary, unpacked into
/// the temporary directory, so that an installed `belady` finds them from anywhere.
pub fn data_dir() -> PathBuf {
    let dir = sample_data::default_dir();
    if let Err(e) = sample_data::unpack(&dir) {
        // The demo then names the missing file; this says why it is missing.
        eprintln!("belady: warning: cannot unpack the sample traces: {e:#}");
    }
    dir
}
