//! `belady`: the command-line front end of the belady simulator.

mod args;
mod bounds_cmd;
mod calibrate;
mod calibrate_cgroup;
mod calibrate_patterns;
mod calibrate_reader;
mod calibrate_replacement;
mod calibrate_replacement_patterns;
mod calibrate_runs;
mod calibrate_scratch;
mod chart;
mod clusterfetch;
mod clusterfetch_demo;
mod compare_cmd;
mod convert_cmd;
mod demo;
mod demo_summary;
mod disk_cmd;
mod distances;
mod gen_cmd;
mod help_cmd;
mod levels;
mod lists;
mod merge_cmd;
mod mrc_chart;
mod mrc_cmd;
mod on_signal;
mod oom;
mod progress;
mod record;
mod report;
mod report_chart;
mod report_compare;
mod report_data;
mod report_glance;
mod sample_data;
mod stats_cmd;
mod sweep;
mod table;

pub use args::TraceArgs;
use convert_cmd::{convert, ConvertArgs};
pub(crate) use convert_cmd::{open_request_stream, open_stream, RefSink, Target};

use anyhow::{Context, Result};
use belady_core::run::config::defaults;
use belady_core::trace::{detect_format, Format, OpFilter, ReadOptions, FORMAT_NAMES};
use belady_core::{RunConfig, POLICIES};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(
    name = "belady",
    version,
    about = "Buffer-cache and prefetching simulator",
    after_help = "`belady help TOPIC` shows a documentation page (`belady help` lists them).",
    disable_help_subcommand = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate replacement policies over a trace at one or more cache sizes.
    // The usage names the cache size, which clap leaves out of it (it is required unless
    // --levels or --config is given).
    #[command(
        override_usage = "belady sim [OPTIONS] --cache-size <SIZES> <TRACE>\n       \
                                belady sim [OPTIONS] --levels <LEVELS> <TRACE>\n       \
                                belady sim --config <FILE> [--json] [--threads <N>]"
    )]
    Sim(Box<SimArgs>),
    /// Convert a trace between formats: any readable one to native, native to the others.
    Convert(ConvertArgs),
    /// Lower and upper bounds on the optimal misses and missed bytes of a cache of sized
    /// objects (FOO and PFOO).
    Bounds(bounds_cmd::BoundsArgs),
    /// List the replacement policies and their parameters.
    Policies {
        /// Print JSON instead of a table.
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// Print a Markdown table (the one `belady help policies` shows).
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
    /// Compare every policy in a results store with a baseline across its traces: miss-ratio
    /// reductions (mean, percentiles) and wins per policy and cache size.
    Compare(compare_cmd::CompareArgs),
    /// Reuse and eviction (idle) distance histograms below a client cache (log2 buckets).
    Distances(distances::DistancesArgs),
    /// Measure this kernel's page-cache read-ahead (pread + mincore on a scratch file) and
    /// compare a read-ahead model with it; `calibrate replacement` checks page replacement in
    /// memory cgroups against `linux`.
    Calibrate(calibrate::CalibrateArgs),
    /// Miss-ratio curves: LRU exactly and any policy by sampling, every size in one pass.
    Mrc(mrc_cmd::MrcArgs),
    /// Show a documentation page (`belady help sweeps`), a command's help, or the list of both.
    Help {
        /// A page (demo, sweeps, policies, formats, ...) or a command.
        topic: Option<String>,
    },
}

/// A trace's format options, without the path.
#[derive(Args, Clone)]
pub struct FormatArgs {
    // Help built from the names the format error lists (lists.rs).
    #[arg(long, short = 'f', help = lists::format_help())]
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
    #[arg(long, default_value_t = defaults::BLOCK_SIZE)]
    block_size: u32,
    /// Largest request one trace line may make, in bytes (a bigger one is refused, naming the
    /// line): a request expands into one reference per block.
    #[arg(long, default_value_t = defaults::MAX_REQUEST_BYTES)]
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

    /// The reader settings these options give, checked as a run's are (a block size of 0 is
    /// refused here, for every command that reads a trace).
    pub fn read_options(&self) -> Result<ReadOptions> {
        Ok(belady_core::run::sections::read_options(
            self.block_size,
            self.max_request_bytes,
        )?)
    }
}

#[derive(Copy, Clone, ValueEnum)]
enum Ops {
    Read,
    Write,
    All,
}

impl Ops {
    /// The value as written (`read`, `write`, `all`).
    fn name(self) -> &'static str {
        match self {
            Ops::Read => "read",
            Ops::Write => "write",
            Ops::All => "all",
        }
    }
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
#[command(mut_group("trace_input", |g| g.arg("config")))]
struct SimArgs {
    #[command(flatten)]
    input: TraceArgs,
    // Help built from the policy registry (lists.rs).
    #[arg(long, short = 'p', default_value = defaults::POLICY, help = lists::policy_help())]
    policy: String,
    /// Required unless --levels or --config: comma-separated cache sizes, as blocks (500), bytes
    /// (64MiB) or shares of the unique blocks (1%).
    #[arg(
        long,
        short = 'c',
        required_unless_present_any = ["levels", "config"],
        allow_hyphen_values = true
    )]
    cache_size: Option<String>,
    /// A cache hierarchy, top (client) first: NAME:POLICY:SIZE[:PLACEMENT],... e.g.
    /// client:lru:256MiB,storage:mq:512MiB:eviction (repeatable; replaces --policy and --cache-size).
    // The help text shows `[:PLACEMENT]` as written, which rustdoc would read as a link.
    #[allow(rustdoc::broken_intra_doc_links)]
    #[arg(long, conflicts_with = "cache_size")]
    levels: Vec<String>,
    /// With --levels: placement at lower levels that do not name one: access, eviction,
    /// eviction:N (reload only blocks requested N times), demote, exclusive; a comma-separated
    /// list runs each.
    #[arg(long, default_value = defaults::PLACEMENT)]
    placement: String,
    /// Policy parameter, POLICY.KEY=VALUE (repeatable).
    #[arg(long = "param")]
    params: Vec<String>,
    /// Parameter defaults: `paper` (each policy's own paper), `study` (the prefetching study's
    /// Table 4), `accusim` (the study's simulator; implied by `--compat accusim`) or
    /// `libcachesim` (libCacheSim's variants).
    #[arg(long, default_value = defaults::PRESET)]
    preset: String,
    /// Cache model: blocks (a request covers the blocks it spans) or objects (each request is one
    /// object of its size); default objects for oracleGeneral and lcs, blocks otherwise.
    #[arg(long)]
    cache_model: Option<String>,
    /// Admission filter consulted on each miss: none, tinylfu, size:BYTES, prob:P.
    #[arg(long, default_value = defaults::ADMISSION)]
    admission: String,
    // Help from the catalogue's list of seeded policies, so it cannot leave one out.
    #[arg(long, default_value_t = defaults::SEED, help = seed_help())]
    seed: u64,
    /// Which requests to simulate.
    #[arg(long, value_enum, default_value = defaults::OPS)]
    ops: Ops,
    /// Print a JSON array, one object per run.
    #[arg(long)]
    json: bool,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    // Help built from the names the read-ahead error lists (lists.rs).
    #[arg(long, help = lists::prefetch_help())]
    prefetch: Option<String>,
    /// Behave as a named reference simulator where it departs from the paper: accusim.
    #[arg(long)]
    compat: Option<String>,
    /// Turn on one of AccuSim's departures alone (repeatable; `belady help accusim` lists them).
    #[arg(long = "compat-rule")]
    compat_rules: Vec<String>,
    /// Largest disk request for I/O clustering, in bytes (64KiB); `--compat accusim` uses 33 blocks.
    #[arg(long, default_value = defaults::MAX_REQUEST)]
    max_request: String,
    /// Largest read-ahead window in KiB, as Linux's read_ahead_kb (default: 32 blocks, 128 KiB
    /// with 4 KiB blocks); applies to every read-ahead engine.
    #[arg(long)]
    read_ahead_kb: Option<u64>,
    // Help built from the names the disk-model error lists (lists.rs).
    #[arg(long, help = lists::disk_help())]
    disk: Option<String>,
    /// With --disk: how the device orders waiting requests: fcfs, clook (seek-aware elevator) or
    /// sstf.
    #[arg(long, default_value = defaults::SCHEDULER)]
    scheduler: String,
    #[command(flatten)]
    cf: clusterfetch::CfArgs,
    /// File-level runs: list every disk request (event, sync, file, first block, blocks, issue
    /// time) in each JSON row's `request_log`.
    #[arg(long)]
    log_requests: bool,
    /// With --levels and --disk: one-way latency between adjacent levels, microseconds.
    #[arg(long, default_value_t = defaults::LINK_LATENCY_US)]
    link_latency_us: f64,
    /// With --levels and --disk: bandwidth between adjacent levels, megabits per second.
    #[arg(long, default_value_t = defaults::LINK_MBPS)]
    link_mbps: f64,
    /// With --levels and --disk: time between one reference's completion and the next, microseconds.
    #[arg(long, default_value_t = defaults::THINK_US)]
    think_us: f64,
    /// With --levels and --disk: most reloads waiting for idle disk time; more are dropped.
    #[arg(long, default_value_t = defaults::RELOAD_QUEUE)]
    reload_queue: usize,
    /// Print the run's configuration as JSON (what --config reads) and exit without running.
    #[arg(long)]
    print_config: bool,
    /// No progress line on stderr (it shows only on a terminal, after two seconds).
    #[arg(long)]
    quiet: bool,
    /// Add rows of the optimum's lower and upper bounds (FOO, or PFOO past 1,000,000 requests)
    /// beside the policies, for each byte capacity of an object trace (`belady help bounds`).
    #[arg(long)]
    bounds: bool,
    /// Run the configuration in FILE (JSON, or TOML when the name ends in .toml), as
    /// --print-config prints it; paths in it are relative to the working directory, as on the
    /// command line. It holds the whole run: other run options are refused with it.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

/// A comma-separated `flag` value as a list; empty items are dropped, and a value that names
/// nothing is an error.
fn list(value: &str, flag: &str) -> Result<Vec<String>> {
    let items: Vec<String> = value
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect();
    if items.is_empty() {
        anyhow::bail!("invalid {flag} '{value}': name at least one");
    }
    Ok(items)
}

/// The run `sim`'s flags describe.
fn sim_config(args: &SimArgs) -> Result<RunConfig> {
    let how = &args.input.how;
    let mut config = RunConfig {
        trace: args.input.trace.clone(),
        format: how.format.clone(),
        columns: how.columns.clone(),
        header: if how.header {
            Some(true)
        } else if how.no_header {
            Some(false)
        } else {
            None
        },
        block_size: how.block_size,
        max_request_bytes: how.max_request_bytes,
        ops: args.ops.name().to_string(),
        policies: args
            .policy
            .split(',')
            .map(|p| p.trim().to_string())
            .collect(),
        params: args.params.clone(),
        preset: args.preset.clone(),
        cache_sizes: match &args.cache_size {
            Some(c) => c.split(',').map(|c| c.trim().to_string()).collect(),
            None => Vec::new(),
        },
        levels: args.levels.clone(),
        placement: args.placement.clone(),
        prefetch: args
            .prefetch
            .as_deref()
            .map(|p| list(p, "--prefetch"))
            .transpose()?
            .unwrap_or_default(),
        disk: args
            .disk
            .as_deref()
            .map(|d| list(d, "--disk"))
            .transpose()?
            .unwrap_or_default(),
        scheduler: args.scheduler.clone(),
        compat: args.compat.clone(),
        compat_rules: args.compat_rules.clone(),
        max_request: args.max_request.clone(),
        read_ahead_kb: args.read_ahead_kb,
        log_requests: args.log_requests,
        link_latency_us: args.link_latency_us,
        link_mbps: args.link_mbps,
        think_us: args.think_us,
        reload_queue: args.reload_queue,
        cache_model: args.cache_model.clone(),
        admission: args.admission.clone(),
        seed: args.seed,
        ..RunConfig::default()
    };
    args.cf.apply(&mut config);
    Ok(config)
}

/// Arguments `sim --config` allows besides the file: how to print and where to run, not what.
const CONFIG_COMPANIONS: &[&str] = &[
    "config",
    "trace_input",
    "print_config",
    "json",
    "threads",
    "quiet",
    "bounds",
];

/// `sim --config FILE`: the file holds the whole run, so run options given with it are refused
/// (rather than silently overriding or being overridden).
fn config_file(path: &Path, matches: &clap::ArgMatches) -> Result<RunConfig> {
    let given: Vec<String> = matches
        .ids()
        .map(|id| id.as_str())
        .filter(|id| !CONFIG_COMPANIONS.contains(id))
        .filter(|id| {
            matches!(
                matches.value_source(id),
                Some(clap::parser::ValueSource::CommandLine)
            )
        })
        .map(|id| match id {
            "trace_file" => "TRACE".to_string(),
            id => belady_core::run::config::flag_name(id),
        })
        .collect();
    if !given.is_empty() {
        anyhow::bail!(
            "--config {}: the file describes the whole run; give no run options with it (found {}); \
             edit the file instead",
            path.display(),
            given.join(", ")
        );
    }
    Ok(RunConfig::load(path)?)
}

/// A core error about a configuration read from a file, said with the file and key.
#[derive(Debug)]
pub struct FromFile {
    /// The error.
    pub error: belady_core::Error,
    /// The file as the user named it.
    pub path: String,
    /// Its text, to find a key's line.
    pub text: Option<String>,
}

impl std::fmt::Display for FromFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let origin = belady_core::run::origin::Origin::File {
            path: &self.path,
            text: self.text.as_deref(),
        };
        f.write_str(&belady_core::run::origin::shown(&self.error, &origin))
    }
}

impl std::error::Error for FromFile {}

impl FromFile {
    /// `error` as the user of the file at `path` reads it: configuration errors name the file,
    /// the line and the key; any other error is left as it is.
    pub fn wrap(error: belady_core::Error, path: &Path) -> anyhow::Error {
        match error.innermost() {
            belady_core::Error::Config { .. } => FromFile {
                text: std::fs::read_to_string(path).ok(),
                path: path.display().to_string(),
                error,
            }
            .into(),
            _ => error.into(),
        }
    }
}

fn sim(args: SimArgs, matches: &clap::ArgMatches) -> Result<()> {
    if let Some(n) = args.threads {
        belady_core::threads::check_threads("--threads", n)?;
    }
    let config = match &args.config {
        Some(path) => config_file(path, matches)?,
        None => sim_config(&args)?,
    };
    if args.print_config {
        return emit(&format!("{}\n", serde_json::to_string_pretty(&config)?));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("cannot start worker threads")?;
    progress::start("sim", Some(&config.trace), args.quiet);
    let mut out = pool
        .install(|| belady_core::run(&config))
        .map_err(|e| match &args.config {
            Some(path) => FromFile::wrap(e, path),
            None => e.into(),
        })?;
    if args.bounds {
        let rows = bounds_cmd::sim_rows(&config, &out.runs)?;
        out.runs.extend(rows);
    }
    progress::finish();
    if let Some(s) = &out.saved_store {
        eprintln!(
            "belady: ClusterFetch store saved to {} ({} triggers, {} bytes)",
            s.path.display(),
            s.triggers,
            s.bytes
        );
    }
    if args.json {
        return emit(&format!("{}\n", out.rows_json(true)));
    }
    let ops = out.ops;
    let objects = out.runs.iter().any(|r| r.cache_model == "objects");
    let head = format!(
        "trace {} ({} {}, {} references, {} unique {})\n",
        out.source,
        out.format,
        ops.noun(),
        out.references,
        out.unique,
        if objects { "objects" } else { "blocks" }
    );
    let body = if !config.levels.is_empty() {
        table::runs(&out.runs) + &levels::run_levels(&out.runs)
    } else {
        table::runs(&out.runs) + &clusterfetch::summary(&out.runs)
    };
    emit(&(head + &body))
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
    progress::finish();
    let mut out = std::io::stdout().lock();
    out.write_all(printable(text).as_bytes())?;
    out.flush()?;
    Ok(())
}

/// `text` with every control character but newline and tab escaped (`\x1b`): names read from
/// traces (a native file's, an events file's paths) reach tables and summaries, and their
/// escape sequences must not reach the terminal.
fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return std::borrow::Cow::Borrowed(text);
    }
    let lines: Vec<String> = text
        .split('\n')
        .map(|line| {
            let cells: Vec<_> = line
                .split('\t')
                .map(belady_core::error::escape_control)
                .collect();
            cells.join("\t")
        })
        .collect();
    std::borrow::Cow::Owned(lines.join("\n"))
}

/// The OS error inside `e`, from either layer: the core keeps a file's OS error inside its
/// message, not as a chained source.
fn io_errors(e: &anyhow::Error) -> impl Iterator<Item = &std::io::Error> {
    e.chain().filter_map(|c| {
        c.downcast_ref::<std::io::Error>().or_else(|| {
            match c.downcast_ref::<belady_core::Error>() {
                Some(belady_core::Error::Io { cause, .. }) => Some(cause),
                _ => None,
            }
        })
    })
}

/// For a write stopped by the file-size limit (EFBIG: "File too large"), the limit itself, so
/// the line says why a file could not be written rather than only that it could not.
fn file_size_limit_note(e: &anyhow::Error) -> Option<String> {
    if !io_errors(e).any(|io| io.raw_os_error() == Some(libc::EFBIG)) {
        return None;
    }
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the limit into `limit`, a valid rlimit.
    if unsafe { libc::getrlimit(libc::RLIMIT_FSIZE, &mut limit) } != 0
        || limit.rlim_cur == libc::RLIM_INFINITY
    {
        return Some(" (past the largest file this file system allows)".into());
    }
    Some(format!(
        " (the file-size limit, `ulimit -f`, is {} bytes)",
        limit.rlim_cur
    ))
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    io_errors(e).any(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}

/// Allocation failures end the process with one error line, not an abort (see `oom`).
#[global_allocator]
static ALLOC: oom::ReportingAlloc = oom::ReportingAlloc;

fn main() {
    use clap::{CommandFactory, FromArgMatches};
    on_signal::install();
    // Past a file-size limit (`ulimit -f`) a write fails with EFBIG, which every writer reports in
    // one line naming its output and cleans up after; the default SIGXFSZ would kill the process
    // silently, leaving its temporaries behind.
    // SAFETY: setting a signal's disposition to SIG_IGN installs no handler code.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let result = match cli.command {
        Command::Sim(args) => {
            let sub = matches
                .subcommand_matches("sim")
                .expect("the sim subcommand matched");
            sim(*args, sub)
        }
        Command::Convert(args) => convert(args),
        Command::Bounds(args) => bounds_cmd::run(args),
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
        Command::Compare(args) => compare_cmd::run(args),
        Command::Distances(args) => distances::run(args),
        Command::Calibrate(args) => calibrate::run(args),
        Command::Mrc(args) => mrc_cmd::run(args),
        Command::Help { topic } => help_cmd::run(&mut Cli::command(), topic.as_deref()),
    };
    progress::finish();
    if let Err(e) = result {
        if is_broken_pipe(&e) {
            // The reader went away (`belady ... | head`): nothing left to report.
            std::process::exit(0);
        }
        // The core names configuration keys (`max_request`); here they are flags, unless the
        // command read them from a file (`FromFile`). Messages quote input (a bad line, a file
        // name): its control bytes must not reach the terminal raw, whichever layer built the
        // message.
        let chain: Vec<String> = e
            .chain()
            .map(|c| match c.downcast_ref::<belady_core::Error>() {
                Some(core) => {
                    belady_core::run::origin::shown(core, &belady_core::run::origin::Origin::Flags)
                }
                None => c.to_string(),
            })
            .collect();
        let mut text = chain.join(": ");
        if let Some(note) = file_size_limit_note(&e) {
            text.push_str(&note);
        }
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

/// `--seed`'s help: what draws from it, the seeded policies from the catalogue.
fn seed_help() -> String {
    format!(
        "Seed of random choices (prob:P admission; the draws of the {} policies)",
        belady_core::policy::catalog::SEEDED.join(", ")
    )
}
