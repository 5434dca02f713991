//! The comparison of policies across a store's traces (`belady compare`, the report's box plots,
//! `belady.compare` in Python): the store's runs read as samples of a ratio, grouped by setting
//! ([`super::settings`]), and compared with a baseline ([`crate::analysis::compare`]).

use super::settings::{series_label, setting_of, text};
use super::store::Store;
use crate::analysis::compare::{compare, CompareError, Comparison, Sample};
use crate::error::Error;
use crate::run::metrics::metric;
use crate::run::rows::RunResult;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Why a comparison could not be read from a store.
#[derive(Debug)]
pub enum ComparisonError {
    /// The store could not be read.
    Store(Error),
    /// What the store holds cannot be compared as asked (one line saying why).
    Refused(String),
}

impl std::fmt::Display for ComparisonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ComparisonError::Store(e) => e.fmt(f),
            ComparisonError::Refused(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for ComparisonError {}

impl From<Error> for ComparisonError {
    fn from(e: Error) -> Self {
        ComparisonError::Store(e)
    }
}

type Result<T> = std::result::Result<T, ComparisonError>;

macro_rules! refuse {
    ($($arg:tt)*) => {
        return Err(ComparisonError::Refused(format!($($arg)*)))
    };
}

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

/// Which ratio the comparison reduces.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ratio {
    /// misses / requests.
    Miss,
    /// byte_misses / bytes_requested.
    Byte,
}

impl Ratio {
    /// The ratio `--metric` names: `miss` or `byte`.
    pub fn parse(name: &str) -> Option<Ratio> {
        match name {
            "miss" => Some(Ratio::Miss),
            "byte" => Some(Ratio::Byte),
            _ => None,
        }
    }

    /// The ratio's name in words.
    pub fn name(self) -> &'static str {
        match self {
            Ratio::Miss => "miss ratio",
            Ratio::Byte => "byte miss ratio",
        }
    }

    /// The row's ratio, read through the metric registry (0 for a run without requests).
    pub fn of(self, row: &RunResult) -> f64 {
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
        refuse!(
            "{}: the store holds no runs (run `belady sweep` first)",
            store.display()
        );
    }
    let mut wanted: Vec<(&str, &str)> = Vec::new();
    for f in filters {
        let Some((k, v)) = f.split_once('=') else {
            refuse!("--where {f}: expected KEY=VALUE, e.g. --where prefetch=none");
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
            _ => refuse!(
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
            refuse!(
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
        refuse!(
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
    compare(&group.samples, baseline).map_err(|e| {
        ComparisonError::Refused(match e {
            CompareError::NoBaseline(_) => format!(
                "{}: --baseline {baseline} is not in the store ({e})",
                store.display()
            ),
            e => format!("{}: {e}", store.display()),
        })
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

/// `belady compare` (and `belady.compare`): every policy of one setting of `store` (the runs that
/// match `filters`; several settings are refused, naming the `--where` flags that pick each)
/// compared with `baseline` by `ratio`, only `policies` (and the baseline) when given.
pub fn compare_store(
    store: &Path,
    baseline: &str,
    ratio: Ratio,
    filters: &[String],
    policies: &[String],
) -> Result<Comparison> {
    let baseline = baseline.trim().to_lowercase();
    let groups = load(store, ratio, filters)?;
    if groups.len() > 1 {
        let fields: Vec<&str> = groups[0].distinct.iter().map(|(k, _)| k.as_str()).collect();
        let choices: Vec<String> = groups.iter().map(|g| where_flags(&g.distinct)).collect();
        refuse!(
            "{}: the runs differ in {} besides policy, cache size and trace; compare one setting at \
             a time: {}",
            store.display(),
            fields.join(", "),
            choices.join(" | ")
        );
    }
    let mut group = groups
        .into_iter()
        .next()
        .expect("load returns a group or an error");
    if !policies.is_empty() {
        let keep: Vec<String> = policies.iter().map(|p| p.trim().to_lowercase()).collect();
        let present: BTreeSet<&str> = group.samples.iter().map(|s| s.policy.as_str()).collect();
        if let Some(absent) = keep.iter().find(|p| !present.contains(p.as_str())) {
            refuse!(
                "{}: --policies {absent} is not in the store (the policies present are {})",
                store.display(),
                present.into_iter().collect::<Vec<_>>().join(", ")
            );
        }
        group
            .samples
            .retain(|s| s.policy == baseline || keep.contains(&s.policy));
    }
    compare_group(store, &group, &baseline)
}
