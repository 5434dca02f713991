//! `belady bounds`: lower and upper bounds on the optimal misses and missed bytes of a cache of
//! sized objects (FOO and PFOO; docs/bounds.md), and the rows `sim --bounds` adds beside the
//! policies.

use crate::{progress, table, Ops, TraceArgs};
use anyhow::Result;
use belady_core::analysis::opt_bounds::{self, BoundsRow, Method, SizedTrace, DEFAULT_SEGMENT};
use belady_core::{CacheSize, OpFilter, RunConfig, RunResult};
use clap::Args;

/// `belady bounds`'s options.
#[derive(Args)]
pub struct BoundsArgs {
    #[command(flatten)]
    input: TraceArgs,
    /// Comma-separated cache sizes: bytes (64MiB) or percents of the trace's byte footprint (1%).
    #[arg(long, short = 'c', allow_hyphen_values = true)]
    cache_size: String,
    /// Which bounds: foo (one flow over the whole trace), pfoo (the practical bounds), or auto
    /// (FOO up to 1,000,000 requests, PFOO beyond); a comma-separated list runs each.
    #[arg(long, short = 'm', default_value = "auto")]
    method: String,
    /// Requests per PFOO-U segment (segments overlap by half; longer is tighter and slower).
    #[arg(long, default_value_t = DEFAULT_SEGMENT as u64, value_parser = clap::value_parser!(u64).range(2..=1 << 30))]
    segment: u64,
    /// Which requests to read.
    #[arg(long, value_enum, default_value = "read")]
    ops: Ops,
    /// Print a JSON array, one object per method and size.
    #[arg(long)]
    json: bool,
    /// No progress line on stderr (it shows only on a terminal, after two seconds).
    #[arg(long)]
    quiet: bool,
}

/// Runs `belady bounds`.
pub fn run(args: BoundsArgs) -> Result<()> {
    let sizes = CacheSize::parse_list(&args.cache_size)?;
    let format = args.input.format()?;
    progress::start("bounds", Some(&args.input.trace), args.quiet);
    progress::stage("reading the trace");
    let (trace, source) = opt_bounds::load(
        &args.input.trace,
        &format,
        &args.input.how.read_options(),
        OpFilter::from(args.ops),
    )?;
    let methods = Method::parse_list(&args.method, trace.requests())?;
    let rows = opt_bounds::rows(
        &trace,
        &source,
        &sizes,
        &methods,
        args.segment as usize,
        &|stage| progress::stage(stage),
    )?;
    if args.json {
        return crate::emit(&format!("{}\n", serde_json::to_string_pretty(&rows)?));
    }
    let head = format!(
        "trace {source} ({} requests, {} objects, {} bytes requested, {}-byte footprint)\n",
        trace.requests(),
        trace.objects(),
        trace.bytes_requested(),
        trace.footprint()
    );
    crate::emit(&(head + &text_table(&rows)))
}

/// The rows as a table for people: each bound beside its ratio.
fn text_table(rows: &[BoundsRow]) -> String {
    let pct = |v: u64, of: u64| format!("{:.2}", 100.0 * v as f64 / of.max(1) as f64);
    let header = [
        "method",
        "cache_size",
        "cache_bytes",
        "lower_misses",
        "upper_misses",
        "lower_miss_%",
        "upper_miss_%",
        "lower_byte_misses",
        "upper_byte_misses",
        "lower_byte_miss_%",
        "upper_byte_miss_%",
    ];
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.method.clone(),
                r.cache_size.clone(),
                r.cache_bytes.to_string(),
                r.lower_misses.to_string(),
                r.upper_misses.to_string(),
                pct(r.lower_misses, r.requests),
                pct(r.upper_misses, r.requests),
                r.lower_byte_misses.to_string(),
                r.upper_byte_misses.to_string(),
                pct(r.lower_byte_misses, r.bytes_requested),
                pct(r.upper_byte_misses, r.bytes_requested),
            ]
        })
        .collect();
    table::aligned(&header, &cells)
}

/// `sim --bounds`: for each byte capacity of the objects-model runs, two rows per method beside
/// the policies' (`foo-lower`, `foo-upper`, or `pfoo-…` past 1,000,000 requests), each a
/// bound's misses and missed bytes, in the policies' columns.
pub fn sim_rows(config: &RunConfig, runs: &[RunResult]) -> Result<Vec<RunResult>> {
    let mut capacities: Vec<(u64, &RunResult)> = Vec::new();
    for r in runs {
        if let (Some(bytes), "objects") = (r.cache_bytes, r.cache_model.as_str()) {
            if r.levels.is_none() && !capacities.iter().any(|(b, _)| *b == bytes) {
                capacities.push((bytes, r));
            }
        }
    }
    if capacities.is_empty() {
        anyhow::bail!(
            "--bounds bounds byte capacities of object caches: give a byte or percent --cache-size \
             on an object trace (oracleGeneral, lcs, or native with sizes)"
        );
    }
    progress::stage("bounds: reading the trace");
    let (trace, _) = opt_bounds::load(
        &config.trace,
        &config.trace_format()?,
        &config.read_options(),
        OpFilter::parse(&config.ops)?,
    )?;
    let method = Method::parse_list("auto", trace.requests())?[0];
    let mut rows = Vec::new();
    for (bytes, like) in capacities {
        let b = opt_bounds::bounds(&trace, bytes, method, DEFAULT_SEGMENT, &|stage| {
            progress::stage(format!("bounds at {bytes} bytes: {stage}"))
        });
        for (side, misses, byte_misses) in [
            ("lower", b.misses.lower, b.bytes.lower),
            ("upper", b.misses.upper, b.bytes.upper),
        ] {
            rows.push(bound_row(
                like,
                &format!("{}-{side}", method.name()),
                &trace,
                misses,
                byte_misses,
            ));
        }
    }
    Ok(rows)
}

/// A policy row of `like`'s cache holding a bound's misses and missed bytes.
fn bound_row(
    like: &RunResult,
    label: &str,
    trace: &SizedTrace,
    misses: u64,
    byte_misses: u64,
) -> RunResult {
    let requests = trace.requests() as u64;
    let bytes = trace.bytes_requested();
    let mut row = like.clone();
    row.policy = label.to_string();
    row.admission = "none".into();
    row.requests = requests;
    row.misses = misses;
    row.hits = requests - misses;
    row.hit_ratio = row.hits as f64 / requests.max(1) as f64;
    row.evictions = 0;
    row.bytes_requested = bytes;
    row.byte_misses = byte_misses;
    row.byte_hits = bytes - byte_misses;
    row.byte_miss_ratio = byte_misses as f64 / bytes.max(1) as f64;
    row.io = None;
    row
}
