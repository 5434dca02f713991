//! `belady compare`: every policy in a results store against a baseline policy, across the
//! store's traces, as the S3-FIFO and SIEVE papers report it (docs/compare.md). The computation is
//! belady-core's ([`belady_core::analysis::compare`]), read from the store and grouped by setting
//! as the report's sections are ([`belady_core::sweep::comparison`]); this module prints the table
//! or JSON.

use anyhow::{Context, Result};
use belady_core::analysis::compare::{Comparison, Skip};
use belady_core::sweep::comparison::{compare_store, ComparisonError, Ratio};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `belady compare`.
#[derive(Args)]
#[command(
    after_help = "Per policy and cache size (as the experiment spelled it), over the store's traces: \
the mean and the 10th, 25th, 50th, 75th and 90th percentiles of the reduction \
(baseline - policy) / baseline of the miss ratio (the byte miss ratio with --metric byte; percentiles by linear interpolation between \
closest ranks, numpy's default: rank (n-1)p), the traces where the policy's ratio is the lowest \
of all policies compared (ties count for each) and the number of traces. A trace without the \
baseline at a size, or where the baseline's ratio is 0, is skipped at that size (the table's \
footer counts them). Runs that differ in any other setting (read-ahead, disk, cache model, \
admission, ...) are not mixed: pick one setting with --where. `belady help compare` says more."
)]
pub struct CompareArgs {
    /// Results store written by `belady sweep`.
    #[arg(long, default_value = crate::sweep::DEFAULT_STORE)]
    pub store: PathBuf,
    /// The policy every other is compared with (its label as stored, e.g. `fifo`, `lirs(hir=0.3)`).
    #[arg(long, default_value = "fifo")]
    pub baseline: String,
    /// The ratio compared: `miss` = misses / requests (the miss ratio), `byte` = the byte miss
    /// ratio (byte_misses / bytes_requested).
    #[arg(long, default_value = "miss", value_parser = ["miss", "byte"])]
    pub metric: String,
    /// Keep only runs whose setting KEY (a configuration key, as in `belady sim --print-config`)
    /// is VALUE, e.g. `--where prefetch=none`; repeat for several keys.
    #[arg(long = "where", value_name = "KEY=VALUE")]
    pub filters: Vec<String>,
    /// Compare only these policies (comma-separated labels as stored; the baseline is always
    /// included): wins then count among them alone.
    #[arg(long, value_delimiter = ',')]
    pub policies: Vec<String>,
    /// Print JSON (an array of objects: policy, cache_size, mean, p10, p25, p50, p75, p90, wins,
    /// traces; reductions as fractions) instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Runs `belady compare`.
pub fn run(args: CompareArgs) -> Result<()> {
    let ratio = Ratio::parse(&args.metric).expect("clap checks --metric");
    let comparison = compare_store(
        &args.store,
        &args.baseline,
        ratio,
        &args.filters,
        &args.policies,
    )
    .map_err(one_line)?;
    let baseline = args.baseline.trim().to_lowercase();
    let out = if args.json {
        serde_json::to_string_pretty(&comparison.rows).context("the comparison as JSON")? + "\n"
    } else {
        table(&comparison, &baseline, ratio)
    };
    std::io::Write::write_all(&mut std::io::stdout().lock(), out.as_bytes())
        .context("standard output")?;
    Ok(())
}

/// A comparison's error for `main`: the store's own error kept as it is (so its configuration
/// errors are worded as flags), a refusal as its line.
pub fn one_line(e: ComparisonError) -> anyhow::Error {
    match e {
        ComparisonError::Store(e) => e.into(),
        ComparisonError::Refused(msg) => anyhow::anyhow!(msg),
    }
}

/// The comparison as a text table: reductions in percent, then what was skipped.
pub fn table(c: &Comparison, baseline: &str, ratio: Ratio) -> String {
    let header = [
        "policy",
        "cache_size",
        "mean_%",
        "p10_%",
        "p25_%",
        "p50_%",
        "p75_%",
        "p90_%",
        "wins",
        "traces",
    ];
    let pct = |v: f64| format!("{:.2}", v * 100.0);
    let rows: Vec<Vec<String>> = c
        .rows
        .iter()
        .map(|r| {
            vec![
                r.policy.clone(),
                r.cache_size.clone(),
                pct(r.mean),
                pct(r.p10),
                pct(r.p25),
                pct(r.p50),
                pct(r.p75),
                pct(r.p90),
                r.wins.to_string(),
                r.traces.to_string(),
            ]
        })
        .collect();
    let mut out = format!(
        "{} reduction relative to {baseline}, ({baseline} - policy) / {baseline}, in percent over the \
         traces (percentiles: linear between closest ranks); wins: traces where the policy's {} is \
         the lowest of all policies (ties count for each)\n",
        ratio.name(),
        ratio.name()
    );
    out.push_str(&crate::table::aligned(&header, &rows));
    for ((size, why), traces) in &c.skipped {
        let reason = match why {
            Skip::NoBaseline => format!(
                "lack{} {baseline}",
                if traces.len() == 1 { "s" } else { "" }
            ),
            Skip::ZeroBaseline => format!(
                "{} {baseline}'s {} of 0",
                if traces.len() == 1 { "has" } else { "have" },
                ratio.name()
            ),
        };
        out.push_str(&format!(
            "at {size}: {} trace{} {reason}, skipped at that size: {}\n",
            traces.len(),
            if traces.len() == 1 { "" } else { "s" },
            traces.join(", ")
        ));
    }
    out
}
