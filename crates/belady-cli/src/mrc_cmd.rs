//! `belady mrc TRACE`: miss-ratio curves at every requested size from one pass over the trace.

use crate::{emit, FormatArgs, Ops};
use anyhow::{bail, Context, Result};
use belady_core::analysis::mrc::{
    profile, profile_dense, weighed_rows, Mrc, MrcOptions, MrcRow, Sizes,
};
use belady_core::cache::cache_model::CacheModel;
use belady_core::engine::block::BlockSource;
use belady_core::run::config::defaults;
use belady_core::trace::ingest::{ingest, ingest_sized};
use belady_core::{parse_policies, OpFilter, Preset};
use clap::Args;
use std::path::PathBuf;

#[derive(Args)]
pub struct MrcArgs {
    /// No progress line on stderr (it shows only on a terminal, after two seconds).
    #[arg(long)]
    quiet: bool,
    /// Trace file (or --trace).
    #[arg(conflicts_with = "trace_flag")]
    trace: Option<PathBuf>,
    /// Trace file.
    #[arg(long = "trace", short = 't')]
    trace_flag: Option<PathBuf>,
    #[command(flatten)]
    how: FormatArgs,
    // Help built from the policy registry (lists.rs).
    #[arg(long, short = 'p', default_value = defaults::POLICY, help = format!(
        "{}. Without --sample-rate, LRU's curve is exact (stack algorithm) and other policies are \
         simulated in full at every size", crate::lists::policy_help()
    ))]
    policy: String,
    /// Policy parameter, POLICY.KEY=VALUE (repeatable).
    #[arg(long = "param")]
    params: Vec<String>,
    /// Parameter defaults: `paper`, `study`, `accusim` or `libcachesim`.
    #[arg(long, default_value = defaults::PRESET)]
    preset: String,
    /// Cache sizes, read as `sim -c` reads them under the same cache model: `auto` (about 100
    /// log-spaced counts up to the unique blocks or objects, plus LRU's knees) or a
    /// comma-separated list of counts (500), bytes (64MiB) or shares (1%: of the unique blocks,
    /// or of the byte footprint in the objects model). A byte size or share in the objects
    /// model is simulated in full.
    #[arg(
        long = "cache-size",
        visible_alias = "sizes",
        short = 'c',
        default_value = "auto",
        allow_hyphen_values = true
    )]
    sizes: String,
    /// Cache model, as `sim --cache-model`: blocks or objects; default objects for oracleGeneral
    /// and lcs, blocks otherwise.
    #[arg(long)]
    cache_model: Option<String>,
    /// Simulate every policy (LRU included) on this hash-chosen share of the blocks with the
    /// cache scaled by it (SHARDS sampling, miniature simulation), e.g. 0.01.
    #[arg(long)]
    sample_rate: Option<f64>,
    /// Chooses which blocks are sampled (the same seed samples the same blocks).
    #[arg(long, default_value_t = defaults::SEED)]
    seed: u64,
    /// Report plain sampled miss ratios, without the SHARDS-adj correction for the sampled
    /// share of references.
    #[arg(long)]
    no_adjust: bool,
    /// With --sample-rate: also measure LRU on this share of the blocks (1: exactly, memory
    /// proportional to the unique blocks; 0: not at all, memory bounded by the sample) and
    /// correct every sampled curve by the sample's error on LRU.
    #[arg(long, default_value_t = 1.0)]
    control_rate: f64,
    /// Which requests to count.
    #[arg(long, value_enum, default_value = defaults::OPS)]
    ops: Ops,
    /// Print JSON (an array of rows) instead of CSV (with --html: print the rows, as JSON, besides
    /// writing the page).
    #[arg(long)]
    json: bool,
    /// Write the rows to this file instead of standard output (JSON when --json or *.json).
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// Write a self-contained HTML page with the curves (log2 size axis) and the rows, and print
    /// one line saying where; the rows go to a file only with -o.
    #[arg(long)]
    html: Option<PathBuf>,
    /// With --html: also highlight these policies' curves (comma-separated); with more than six
    /// curves the page highlights only LRU, FIFO, those lowest at some size and these.
    #[arg(long, value_delimiter = ',')]
    highlight: Vec<String>,
    /// Worker threads for the miniature simulations (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

/// The rows as CSV with a header; a `cache_bytes` column when some row has a byte capacity.
pub fn csv(rows: &[MrcRow]) -> String {
    let bytes = rows.iter().any(|r| r.cache_bytes.is_some());
    let mut out = String::from(match bytes {
        true => "policy,cache_blocks,cache_bytes,miss_ratio,hits,requests,method,sample_rate\n",
        false => "policy,cache_blocks,miss_ratio,hits,requests,method,sample_rate\n",
    });
    for r in rows {
        let cache_bytes = match (bytes, r.cache_bytes) {
            (false, _) => String::new(),
            (true, Some(b)) => format!("{b},"),
            (true, None) => ",".to_string(),
        };
        // Policy labels may hold commas (`lirs(hir=0.01,...)`): quote them.
        out.push_str(&format!(
            "\"{}\",{},{cache_bytes}{:.6},{},{},{},{}\n",
            r.policy.replace('"', "\"\""),
            // Empty for a byte capacity: its size is in cache_bytes.
            r.cache_blocks.map_or_else(String::new, |c| c.to_string()),
            r.miss_ratio,
            r.hits,
            r.requests,
            r.method.name(),
            r.sample_rate
        ));
    }
    out
}

pub fn run(args: MrcArgs) -> Result<()> {
    if let Some(n) = args.threads {
        belady_core::threads::check_threads("--threads", n)?;
    }
    let Some(trace) = args.trace.clone().or(args.trace_flag.clone()) else {
        bail!("name a trace: belady mrc TRACE (or --trace TRACE)");
    };
    let preset = Preset::parse(&args.preset)?;
    let mut specs = parse_policies(&args.policy, &args.params, preset)?;
    for spec in &mut specs {
        // The randomised policies draw from the same seed as the sampler.
        spec.seed = args.seed;
    }
    // A highlighted policy must be one of the curves, spelled as --policy takes it.
    let mut highlight = Vec::new();
    for name in &args.highlight {
        let canonical = belady_core::policy::registry::PolicySpec::parse(name)
            .map_or_else(|_| name.clone(), |s| s.info.name.to_string());
        if !specs.iter().any(|s| s.info.name == canonical) {
            bail!(
                "invalid --highlight: '{name}' is not among --policy {}",
                args.policy
            );
        }
        highlight.push(canonical);
    }
    let sizes = Sizes::parse(&args.sizes)?;
    let model = args
        .cache_model
        .as_deref()
        .map(CacheModel::parse)
        .transpose()?;
    let read = args.how.read_options()?;
    let opts = MrcOptions {
        sample_rate: args.sample_rate,
        seed: args.seed,
        adjust: !args.no_adjust,
        control_rate: belady_core::analysis::mrc::control_rate(args.control_rate)?,
    };
    if let Some(r) = args.sample_rate {
        belady_core::analysis::mrc::Sampler::new(r, args.seed)?;
    }
    // Neither output may be the trace, nor the other output.
    for (option, out) in [("--output", &args.output), ("--html", &args.html)] {
        if let Some(out) = out {
            belady_core::outfile::refuse_overwrite_as(option, out, &[&trace])?;
        }
    }
    if let (Some(o), Some(h)) = (&args.output, &args.html) {
        if belady_core::outfile::same_target(o, h) {
            bail!("-o and --html name one file ({}); name two", o.display());
        }
    }
    let format = args.how.format_of(&trace, None)?;
    let ops = OpFilter::from(args.ops);
    // Byte capacities of the objects model are simulated in full, reading the trace again: an
    // input readable once is copied first.
    let may_weigh = model != Some(CacheModel::Blocks)
        && matches!(&sizes, Sizes::List(l) if l.iter().any(|s| !matches!(s, belady_core::CacheSize::Blocks(_))));
    let spool = match may_weigh && args.sample_rate.is_none() {
        true => belady_core::trace::input::spool_read_once(&trace)?,
        false => None,
    };
    let path = spool.as_ref().map_or(trace.as_path(), |s| s.as_ref());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("cannot start worker threads")?;
    // The trace as given names it (a native file's recorded name is provenance, not its name).
    let source = trace.display().to_string();
    crate::progress::start("mrc", Some(&trace), args.quiet);
    let mrc = if let Some(rate) = args.sample_rate {
        let opened = crate::open_request_stream(&trace, &format, &args.how)?;
        let model = CacheModel::or_default(model, opened.object_sizes);
        let (counted, weighed) = sizes.split(model);
        if !weighed.is_empty() {
            return Err(belady_core::Error::config(
                "sample_rate",
                rate,
                format!(
                    "samples caches that count blocks or objects; {} is a byte capacity of the \
                     objects model, simulated only in full: leave out {}, or count objects (a \
                     plain number)",
                    weighed[0].canonical(),
                    belady_core::error::key_ref("sample_rate")
                ),
            )
            .into());
        }
        let block_size = opened.block_size;
        pool.install(|| {
            profile(
                opened.stream,
                ops,
                &specs,
                &counted,
                &opts,
                &source,
                block_size,
            )
        })?
    } else {
        // Without sampling the curves do not depend on the ids: read the dense ids a run reads,
        // in chunks (the sample's hash needs the trace's own ids, so sampling reads requests).
        // Object sizes are kept unless the blocks model is asked for, as `sim` reads them.
        let mut feed = match model {
            Some(CacheModel::Blocks) => ingest(path, &format, &read, ops)?,
            _ => ingest_sized(path, &format, &read, ops)?,
        };
        let model = CacheModel::or_default(model, feed.has_sizes());
        model.check_run(feed.has_sizes(), false, false)?;
        let (counted, weighed) = sizes.split(model);
        // A text trace is read whole by now; the pass over its ids is what remains, which the
        // bytes-read figure no longer shows moving.
        crate::progress::stage(format!("counting {} references", feed.refs));
        let mut mrc =
            pool.install(|| profile_dense(&mut feed, &specs, &counted, &opts, &source))?;
        if !weighed.is_empty() {
            crate::progress::stage(format!("simulating {} byte capacities", weighed.len()));
            let block = BlockSource {
                path,
                format: &format,
                opts: &read,
                ops,
            };
            let rows = pool.install(|| weighed_rows(&block, &specs, &weighed, args.seed))?;
            mrc.add_weighed(rows, specs.len());
        }
        mrc
    };
    crate::progress::finish();
    // A sample of a few blocks gives curves that look precise and are not: say so, and what
    // rate this trace needs, before any output (after the progress line is cleared).
    let warning = args
        .sample_rate
        .and_then(|r| mrc.small_sample_warning(r, &source));
    if let Some(w) = &warning {
        eprintln!("{w}");
    }
    let json = args.json
        || args
            .output
            .as_ref()
            .is_some_and(|p| p.extension().is_some_and(|e| e == "json"));
    let text = if json {
        format!("{}\n", serde_json::to_string_pretty(&mrc.rows)?)
    } else {
        csv(&mrc.rows)
    };
    // Through the one atomic writer: whole or absent, devices written in place, the umask's mode.
    if let Some(path) = &args.output {
        belady_core::outfile::write_atomic(path, text.as_bytes())?;
    }
    match &args.html {
        // The page holds the curves and the rows: the terminal gets one line saying where it is
        // (the rows go to a file only with -o, or to standard output with --json).
        Some(path) => {
            let page = crate::mrc_chart::page(&source, &mrc, ops, warning.as_deref(), &highlight)?;
            belady_core::outfile::write_atomic(path, page.as_bytes())?;
            if args.json && args.output.is_none() {
                return emit(&text);
            }
            emit(&wrote_page(path, &mrc, args.output.as_deref()))
        }
        None if args.output.is_none() => emit(&text),
        None => Ok(()),
    }
}

/// The one line `mrc --html` prints: where the page is, what it holds, where the rows are.
fn wrote_page(page: &std::path::Path, mrc: &Mrc, rows: Option<&std::path::Path>) -> String {
    let policies: std::collections::BTreeSet<&str> =
        mrc.rows.iter().map(|r| r.policy.as_str()).collect();
    let rows = match rows {
        Some(p) => format!("the rows also in {}", p.display()),
        None => "-o FILE also writes the rows (CSV, or JSON for *.json)".into(),
    };
    format!(
        "wrote {}: {} curve{} of {} rows; {rows}\n",
        page.display(),
        policies.len(),
        if policies.len() == 1 { "" } else { "s" },
        mrc.rows.len()
    )
}

/// One line describing the trace and the method, for the HTML page.
pub fn summary(source: &str, mrc: &Mrc, ops: OpFilter) -> String {
    format!(
        "{source}: {} references ({}), {} {} unique blocks. No miss ratio is below the \
         compulsory-miss floor {:.4} (unique blocks / references: every first reference misses), \
         the grey dashed line.",
        mrc.references,
        ops.noun(),
        if mrc.unique_estimated { "about" } else { "" },
        mrc.unique_blocks,
        mrc.floor
    )
    .replace("  ", " ")
}
