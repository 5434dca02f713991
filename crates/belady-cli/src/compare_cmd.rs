//! `belady compare`: every policy in a results store against a baseline policy, across the
//! store's traces, as the S3-FIFO and SIEVE papers report it (docs/compare.md). The computation is
//! belady-core's ([`belady_core::analysis::compare`]); this module reads the store, groups its runs
//! by setting as the report does ([`crate::report_data::setting_of`]) and prints the table or JSON.

use crate::report_data::{series_label, setting_of, text};
use anyhow::{bail, Context, Result};
use belady_core::analysis::compare::{compare, CompareError, Comparison, Sample, Skip};
use belady_core::run::metrics::metric;
use belady_core::sweep::store::Store;
use belady_core::RunResult;
use clap::{Args, ValueEnum};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Configuration fields that belong to the trace (each trace is one sample of the distribution)
/// or that the comparison lays out itself (the cache size): never part of a setting.
const TRACE_FIELDS: &[&str] = &[
    "trace",
    "trace_path",
    "trace_hash",
    "format",
    "columns",
    "header",
    "block_size",
    "cache_sizes",
    "cache_blocks",
];

/// Arguments of `belady compare`.
#[derive(Args)]
#[command(
    after_help = "Per policy and cache size (as the experiment spelled it), over the store's traces: \
the mean and the 10th, 25th, 50th, 75th and 90th percentiles of the reduction \
(baseline - policy) / baseline of the miss ratio (percentiles by linear interpolation between \
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
    #[arg(long, value_enum, default_value = "miss")]
    pub metric: Ratio,
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

/// Which ratio the comparison reduces.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Ratio {
    /// misses / requests.
    Miss,
    /// byte_misses / bytes_requested.
    Byte,
}

impl Ratio {
    /// The ratio's name in words.
    pub fn name(self) -> &'static str {
        match self {
            Ratio::Miss => "miss ratio",
            Ratio::Byte => "byte miss ratio",
        }
    }

    /// The row's ratio, read through the metric registry (0 for a run without requests).
    fn of(self, row: &RunResult) -> f64 {
        let get = |key: &str| {
            metric(key)
                .and_then(|m| m.value(row))
                .map_or(0.0, |v| v.as_f64())
        };
        match self {
            Ratio::Miss => {
                let requests = get("requests");
                if requests == 0.0 {
                    0.0
                } else {
                    get("misses") / requests
                }
            }
            Ratio::Byte => get("byte_miss_ratio"),
        }
    }
}

/// The runs of one setting, as samples.
pub struct Group {
    /// The setting fields that tell this group from the store's others, with their values.
    pub distinct: Vec<(String, String)>,
    /// One sample per run.
    pub samples: Vec<Sample>,
}

/// Reads `store`'s runs into samples of `ratio`, grouped by setting, keeping the runs that match
/// every `KEY=VALUE` of `filters`.
pub fn load(store: &Path, ratio: Ratio, filters: &[String]) -> Result<Vec<Group>> {
    let runs = Store::open_existing(store)?.runs()?;
    if runs.is_empty() {
        bail!(
            "{}: the store holds no runs (run `belady sweep` first)",
            store.display()
        );
    }
    let mut wanted: Vec<(&str, &str)> = Vec::new();
    for f in filters {
        let Some((k, v)) = f.split_once('=') else {
            bail!("--where {f}: expected KEY=VALUE, e.g. --where prefetch=none");
        };
        wanted.push((k.trim(), v.trim()));
    }
    // (trace, hash) of every run, to name a trace whose file changed between runs apart.
    let mut hashes: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    // setting -> runs, each as (trace name, trace hash, policy, size order, sample size, ratio)
    type Run = (String, String, String, (u8, u64), String, f64);
    let mut groups: BTreeMap<BTreeMap<String, String>, Vec<Run>> = BTreeMap::new();
    let mut keys_seen: BTreeSet<String> = BTreeSet::new();
    let mut values_seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for run in runs {
        let config: Map<String, Value> = match serde_json::to_value(&run.config) {
            Ok(Value::Object(map)) => map,
            _ => bail!(
                "{}: run {} has a configuration belady cannot read",
                store.display(),
                run.key
            ),
        };
        let setting = setting_of(&config, &[TRACE_FIELDS]);
        keys_seen.extend(setting.keys().cloned());
        for (k, _) in &wanted {
            values_seen
                .entry(k.to_string())
                .or_default()
                .insert(setting.get(*k).cloned().unwrap_or_else(|| "unset".into()));
        }
        if !wanted
            .iter()
            .all(|(k, v)| setting.get(*k).map(String::as_str) == Some(*v))
        {
            continue;
        }
        let trace = text(&config, "trace");
        let hash = text(&config, "trace_hash");
        hashes
            .entry(trace.clone())
            .or_default()
            .insert(hash.clone());
        let unit = run.result.capacity.unit as u8;
        groups.entry(setting).or_default().push((
            trace,
            hash,
            series_label(&config),
            (unit, run.result.capacity.amount),
            run.result.capacity.spelled.clone(),
            ratio.of(&run.result),
        ));
    }
    for (k, _) in &wanted {
        if !keys_seen.contains(*k) {
            bail!(
                "--where {k}=...: no run has a setting {k} (settings: {})",
                keys_seen.iter().cloned().collect::<Vec<_>>().join(", ")
            );
        }
    }
    if groups.is_empty() {
        let present: Vec<String> = values_seen
            .iter()
            .map(|(k, vs)| format!("{k}: {}", vs.iter().cloned().collect::<Vec<_>>().join(", ")))
            .collect();
        bail!(
            "--where {}: no run matches (values present: {})",
            filters.join(" --where "),
            present.join("; ")
        );
    }
    // The fields whose values differ between groups.
    let all: Vec<&BTreeMap<String, String>> = groups.keys().collect();
    let varying: BTreeSet<String> = all
        .iter()
        .flat_map(|s| s.keys())
        .filter(|k| all.iter().any(|o| o.get(*k) != all[0].get(*k)))
        .cloned()
        .collect();
    Ok(groups
        .into_iter()
        .map(|(setting, mut runs)| {
            // Sizes in capacity order (unit, then amount), then as spelled.
            runs.sort_by(|a, b| (a.3, &a.4, &a.0, &a.2).cmp(&(b.3, &b.4, &b.0, &b.2)));
            let samples = runs
                .into_iter()
                .map(|(trace, hash, policy, _, cache_size, ratio)| {
                    let trace = if hashes[&trace].len() > 1 {
                        format!("{trace}@{}", hash.chars().take(12).collect::<String>())
                    } else {
                        trace
                    };
                    Sample {
                        trace,
                        policy,
                        cache_size,
                        ratio,
                    }
                })
                .collect();
            let distinct = varying
                .iter()
                .map(|k| {
                    let v = setting.get(k).cloned().unwrap_or_else(|| "unset".into());
                    (k.clone(), v)
                })
                .collect();
            Group { distinct, samples }
        })
        .collect())
}

/// Compares one group's samples with `baseline`, as a one-line error naming the store.
pub fn compare_group(store: &Path, group: &Group, baseline: &str) -> Result<Comparison> {
    compare(&group.samples, baseline).map_err(|e| match e {
        CompareError::NoBaseline(_) => anyhow::anyhow!(
            "{}: --baseline {baseline} is not in the store ({e})",
            store.display()
        ),
        e => anyhow::anyhow!("{}: {e}", store.display()),
    })
}

/// The setting fields and values, as `--where` takes them.
pub fn where_flags(distinct: &[(String, String)]) -> String {
    distinct
        .iter()
        .map(|(k, v)| format!("--where {k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs `belady compare`.
pub fn run(args: CompareArgs) -> Result<()> {
    let baseline = args.baseline.trim().to_lowercase();
    let groups = load(&args.store, args.metric, &args.filters)?;
    if groups.len() > 1 {
        let fields: Vec<&str> = groups[0].distinct.iter().map(|(k, _)| k.as_str()).collect();
        let choices: Vec<String> = groups.iter().map(|g| where_flags(&g.distinct)).collect();
        bail!(
            "{}: the runs differ in {} besides policy, cache size and trace; compare one setting at \
             a time: {}",
            args.store.display(),
            fields.join(", "),
            choices.join(" | ")
        );
    }
    let mut group = groups
        .into_iter()
        .next()
        .expect("load returns a group or an error");
    if !args.policies.is_empty() {
        let keep: Vec<String> = args
            .policies
            .iter()
            .map(|p| p.trim().to_lowercase())
            .collect();
        let present: BTreeSet<&str> = group.samples.iter().map(|s| s.policy.as_str()).collect();
        if let Some(absent) = keep.iter().find(|p| !present.contains(p.as_str())) {
            bail!(
                "{}: --policies {absent} is not in the store (the policies present are {})",
                args.store.display(),
                present.into_iter().collect::<Vec<_>>().join(", ")
            );
        }
        group
            .samples
            .retain(|s| s.policy == baseline || keep.contains(&s.policy));
    }
    let group = &group;
    let comparison = compare_group(&args.store, group, &baseline)?;
    let out = if args.json {
        serde_json::to_string_pretty(&comparison.rows).context("the comparison as JSON")? + "\n"
    } else {
        table(&comparison, &baseline, args.metric)
    };
    std::io::Write::write_all(&mut std::io::stdout().lock(), out.as_bytes())
        .context("standard output")?;
    Ok(())
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
        "{} reduction relative to {baseline}, (baseline - policy) / baseline, over traces (percentiles: \
         linear between closest ranks); wins: traces where the policy's {} is the lowest of all \
         policies (ties count for each)\n",
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
