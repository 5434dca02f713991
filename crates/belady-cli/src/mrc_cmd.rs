//! `belady mrc TRACE`: miss-ratio curves at every requested size from one pass over the trace.

use crate::{emit, FormatArgs, Ops};
use anyhow::{bail, Context, Result};
use belady_core::analysis::mrc::{profile, profile_dense, Mrc, MrcOptions, MrcRow, Sizes};
use belady_core::trace::ingest::ingest;
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
    #[arg(long, short = 'p', default_value = "lru", help = format!(
        "{}. Without --sample-rate, LRU's curve is exact (stack algorithm) and other policies are \
         simulated in full at every size", crate::lists::policy_help()
    ))]
    policy: String,
    /// Policy parameter, POLICY.KEY=VALUE (repeatable).
    #[arg(long = "param")]
    params: Vec<String>,
    /// Parameter defaults: `paper`, `study` or `accusim`.
    #[arg(long, default_value = "paper")]
    preset: String,
    /// Cache sizes: `auto` (about 100 log-spaced sizes up to the unique blocks, plus LRU's
    /// knees) or a comma-separated list of blocks (500), bytes (64MiB) or shares (1%).
    #[arg(long, short = 'c', default_value = "auto")]
    sizes: String,
    /// Simulate every policy (LRU included) on this hash-chosen share of the blocks with the
    /// cache scaled by it (SHARDS sampling, miniature simulation), e.g. 0.01.
    #[arg(long)]
    sample_rate: Option<f64>,
    /// Chooses which blocks are sampled (the same seed samples the same blocks).
    #[arg(long, default_value_t = 0)]
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
    #[arg(long, value_enum, default_value = "read")]
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
    /// Worker threads for the miniature simulations (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

/// The rows as CSV with a header.
pub fn csv(rows: &[MrcRow]) -> String {
    let mut out = String::from("policy,cache_blocks,miss_ratio,hits,requests,method,sample_rate\n");
    for r in rows {
        // Policy labels may hold commas (`lirs(hir=0.01,...)`): quote them.
        out.push_str(&format!(
            "\"{}\",{},{:.6},{},{},{},{}\n",
            r.policy.replace('"', "\"\""),
            r.cache_blocks,
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
    let sizes = Sizes::parse(&args.sizes)?;
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
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("cannot start worker threads")?;
    // The trace as given names it (a native file's recorded name is provenance, not its name).
    let source = trace.display().to_string();
    crate::progress::start("mrc", Some(&trace), args.quiet);
    let mrc = if args.sample_rate.is_none() {
        // Without sampling the curves do not depend on the ids: read the dense ids a run reads,
        // in chunks (the sample's hash needs the trace's own ids, so sampling reads requests).
        let mut feed = ingest(&trace, &format, &args.how.read_options(), ops)?;
        // A text trace is read whole by now; the pass over its ids is what remains, which the
        // bytes-read figure no longer shows moving.
        crate::progress::stage(format!("counting {} references", feed.refs));
        pool.install(|| profile_dense(&mut feed, &specs, &sizes, &opts, &source))?
    } else {
        let (stream, block_size, _) = crate::open_stream(&trace, &format, &args.how)?;
        pool.install(|| profile(stream, ops, &specs, &sizes, &opts, &source, block_size))?
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
            let page = crate::mrc_chart::page(&source, &mrc, ops, warning.as_deref())?;
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
