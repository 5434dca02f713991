//! `belady stats TRACE`: what a trace holds (the prefetching study's Table 2 and more).

use crate::{emit, TraceArgs};
use anyhow::Result;
use belady_core::analysis::stats::{block_stats, file_stats, Bucket, StatsOptions, TraceStats};
use belady_core::trace::load_file_trace_with;
use belady_core::{BlockTrace, OpFilter, PreparedTrace};
use clap::Args;

#[derive(Args)]
pub struct StatsArgs {
    #[command(flatten)]
    input: TraceArgs,
    /// No progress line on stderr (it shows only on a terminal, after two seconds).
    #[arg(long)]
    quiet: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Estimate reuse distances from this share of the blocks (SHARDS spatial sampling, e.g.
    /// 0.01) instead of exactly: for huge traces (the sample should hold thousands of blocks;
    /// distances are resolved to about 1/rate). Distinct-block counts (unique blocks, working
    /// set) are then estimated from the sample too, so memory follows the sample.
    #[arg(long)]
    sample_rate: Option<f64>,
    /// References per working-set window.
    #[arg(long, default_value_t = 10_000)]
    window: u64,
    /// Instead: reuse- and eviction (idle)-distance histograms below a client cache, for
    /// access-based and eviction-based placement (log2 buckets; needs --client-size).
    #[arg(long, requires = "client_size")]
    distances: bool,
    /// With --distances: client cache size(s), blocks, bytes or % (comma-separated).
    #[arg(long, short = 'c')]
    client_size: Option<String>,
    /// With --distances: the client's replacement policy.
    #[arg(long, default_value = "lru")]
    client_policy: String,
}

#[derive(serde::Serialize)]
struct Report<'a> {
    trace: String,
    format: &'a str,
    #[serde(flatten)]
    stats: &'a TraceStats,
}

pub fn run(args: StatsArgs) -> Result<()> {
    // The rate is checked as `mrc` checks it: the same sampler's rules.
    if let Some(r) = args.sample_rate {
        belady_core::analysis::mrc::Sampler::new(r, 0)?;
    }
    if args.window == 0 {
        return Err(belady_core::Error::config("--window", 0, "must be at least 1").into());
    }
    let format = args.input.how.format_of(&args.input.trace, None)?;
    crate::progress::start("stats", Some(&args.input.trace), args.quiet);
    if args.distances {
        let trace = PreparedTrace::new(BlockTrace::load(
            &args.input.trace,
            &format,
            &args.input.how.read_options(),
            OpFilter::Read,
        )?);
        return crate::distances::report(
            &trace,
            &args.client_policy,
            args.client_size.as_deref().unwrap_or_default(),
            args.json,
        );
    }
    let opts = StatsOptions {
        block_size: args.input.how.block_size,
        sample_rate: args.sample_rate,
        window: args.window,
        object_sizes: false,
    };
    let stats = if format.is_file_level() {
        let max = args.input.how.max_request_bytes;
        file_stats(
            &load_file_trace_with(&args.input.trace, &format, max)?,
            opts,
        )
    } else {
        let opened = crate::open_request_stream(&args.input.trace, &format, &args.input.how)?;
        block_stats(
            opened.stream,
            StatsOptions {
                block_size: opened.block_size,
                object_sizes: opened.object_sizes,
                ..opts
            },
        )?
    };
    if stats.reuse.sampled {
        let source = args.input.trace.display().to_string();
        belady_core::analysis::mrc::Sampler::check_nonempty(
            stats.reuse.sample_rate,
            stats.reuse.sampled_references,
            stats.references,
            &source,
        )?;
    }
    let report = Report {
        trace: args.input.trace.display().to_string(),
        format: format.name(),
        stats: &stats,
    };
    if args.json {
        return emit(&format!("{}\n", serde_json::to_string_pretty(&report)?));
    }
    emit(&human(&report))
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1 << 20) as f64)
}

fn histogram(out: &mut String, title: &str, buckets: &[Bucket], unit: &str) {
    let total: u64 = buckets.iter().map(|b| b.count).sum();
    out.push_str(&format!("{title}\n"));
    if buckets.is_empty() {
        out.push_str("  (none)\n");
    }
    for b in buckets {
        let range = if b.lo == b.hi {
            format!("{}", b.lo)
        } else {
            format!("{}-{}", b.lo, b.hi)
        };
        out.push_str(&format!(
            "  {range:>23} {unit}  {:>12}  {:>6.2}%\n",
            b.count,
            if total == 0 {
                0.0
            } else {
                100.0 * b.count as f64 / total as f64
            }
        ));
    }
}

fn human(r: &Report) -> String {
    let s = r.stats;
    let mut out = format!("trace {} ({})\n", r.trace, r.format);
    let mut row = |k: &str, v: String| out.push_str(&format!("  {k:<26} {v}\n"));
    row(
        "requests",
        format!(
            "{} ({} reads, {} writes)",
            s.requests, s.read_requests, s.write_requests
        ),
    );
    if let Some(z) = &s.object_sizes {
        row("unique objects", s.unique_blocks.to_string());
        row(
            "object size (per request)",
            format!(
                "min {} B, p50 {} B, p90 {} B, p99 {} B, max {} B, mean {:.1} B",
                z.min, z.p50, z.p90, z.p99, z.max, z.mean
            ),
        );
    } else {
        row(
            "block references",
            format!(
                "{} ({} reads, {} writes)",
                s.references, s.read_references, s.write_references
            ),
        );
        row(
            "unique blocks",
            format!("{} ({} bytes each)", s.unique_blocks, s.block_size),
        );
    }
    if let Some(f) = s.unique_files {
        row("unique files", f.to_string());
    }
    row("bytes requested", format!("{} ({})", s.bytes, mib(s.bytes)));
    row(
        "data size (footprint)",
        format!("{} ({})", s.footprint_bytes, mib(s.footprint_bytes)),
    );
    row(
        "consecutive-block refs",
        format!(
            "{:.1}% ({} references)",
            s.sequential_percent, s.sequential_references
        ),
    );
    let w = &s.working_set;
    row(
        "working set per window",
        format!(
            "{} windows of {} refs: min {}, mean {:.1}, max {}",
            w.series.len(),
            w.window_references,
            w.min,
            w.mean,
            w.max
        ),
    );
    if let Some(fs) = &s.file_sizes {
        out.push_str(&format!(
            "  {:<26} {} files, mean {:.0} B, median {} B, max {} B\n",
            "file sizes", fs.files, fs.mean_bytes, fs.median_bytes, fs.max_bytes
        ));
        histogram(&mut out, "file sizes (bytes)", &fs.histogram, "B");
    }
    let reuse = &s.reuse;
    let title = if reuse.sampled {
        format!(
            "reuse distance (distinct blocks in between; SHARDS estimate from {:.2}% of blocks, {} sampled references); first references: {}",
            100.0 * reuse.sample_rate,
            reuse.sampled_references,
            reuse.first_references
        )
    } else {
        format!(
            "reuse distance (distinct blocks in between); first references: {}",
            reuse.first_references
        )
    };
    histogram(&mut out, &title, &reuse.histogram, "  ");
    if w.series.len() > 1 {
        // At most 20 evenly spaced windows; --json has every one.
        let step = w.series.len().div_ceil(20);
        let shown: Vec<String> = w
            .series
            .iter()
            .enumerate()
            .step_by(step)
            .map(|(i, v)| format!("{}:{v}", i))
            .collect();
        out.push_str(&format!(
            "working set by window (window:distinct blocks{})\n  {}\n",
            if step > 1 {
                format!(", one window in {step}")
            } else {
                String::new()
            },
            shown.join(" ")
        ));
    }
    out
}
