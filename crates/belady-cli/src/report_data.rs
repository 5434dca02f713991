//! The report's data: every stored run, grouped so that runs which differ in any configuration
//! field never share a line, a point or a table cell.
//!
//! A run's configuration is read from its stored JSON (not a fixed list of columns), so a field
//! added to the configuration later tells runs apart here without a change: each field is either
//! the chart's x value (cache size), the chart (read-ahead), the line (policy and its settings) or
//! part of the section (trace, trace content hash, disk and every other field, and the capacity's
//! unit: blocks, objects or bytes). Two runs left on the same point are the same simulation
//! written two ways (`10%` and `185` blocks); if their results differ the report refuses rather
//! than show one of them. The values drawn are the registry's ([`METRICS`]), read from the stored
//! rows.

use anyhow::{bail, Result};
use belady_core::run::metrics::{Applies, Metric, METRICS};
use belady_core::run::rows::CacheCapacity;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Configuration fields that name the line a run belongs to.
const SERIES_FIELDS: &[&str] = &["policies", "params", "levels", "placement"];
/// Configuration fields that are not part of what was simulated or are drawn on the x axis.
const NOT_SETTING: &[&str] = &["trace_path", "cache_sizes", "cache_blocks", "prefetch"];

/// One stored run, as the report needs it.
#[derive(Clone, Debug)]
pub struct Point {
    /// The line's label: the policy with its settings, or a hierarchy.
    pub series: String,
    /// The policy's registered name (`lirs` for `lirs(hir=0.01)`), for `--policies`.
    pub policy: String,
    /// The cache's capacity, in its unit (the section's) and as given.
    pub capacity: CacheCapacity,
    /// Whether a disk model timed the run.
    pub timed: bool,
    /// The report's metrics this run has, as shown (ratios in percent), by key: a metric the
    /// registry draws for runs like this one ([`Metric::report`]).
    values: BTreeMap<&'static str, f64>,
    key: String,
    cache_size: String,
}

impl Point {
    /// The run's value of `metric` as shown, if the report draws it for this run.
    pub fn value(&self, metric: &Metric) -> Option<f64> {
        self.values.get(metric.key).copied()
    }

    /// The capacity's value on the size axis (the section's unit).
    pub fn size(&self) -> u64 {
        self.capacity.amount
    }
}

/// The metrics the report draws, in the registry's order.
pub fn metrics() -> impl Iterator<Item = &'static Metric> {
    METRICS.iter().filter(|m| m.report.is_some())
}

/// Runs that share everything but the policy, cache size and read-ahead: one heading in the
/// report, one chart per read-ahead setting and metric. The capacity's unit is part of the
/// setting, so blocks, objects and bytes never share an axis.
#[derive(Debug)]
pub struct Section {
    /// The trace as the experiment named it.
    pub trace: String,
    /// The heading's name: the trace's file name, with parent directories when two traces share it.
    pub name: String,
    /// Every setting field (trace hash, disk, preset, ...) with its value as shown.
    pub setting: BTreeMap<String, String>,
    /// The setting fields whose values differ between sections of the same trace (shown in the
    /// heading, so two sections never look alike).
    pub distinct: Vec<(String, String)>,
    /// Read-ahead engine -> its runs, `none` first.
    pub charts: Vec<(String, Vec<Point>)>,
}

impl Section {
    /// The heading's qualifier: the disk, then whatever tells this section from its trace's others.
    pub fn qualifier(&self) -> String {
        let mut parts = vec![format!(
            "disk: {}",
            self.setting.get("disk").map_or("none", String::as_str)
        )];
        for (k, v) in &self.distinct {
            if k != "disk" {
                parts.push(format!("{k}: {v}"));
            }
        }
        parts.join(", ")
    }
}

/// A configuration value as shown; the trace hash is cut to 12 hex digits (enough to tell files
/// apart at a glance; the full hash stays in the details line).
fn show(field: &str, v: &Value, short: bool) -> String {
    match v {
        Value::String(s) if field == "trace_hash" && short => s.chars().take(12).collect(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|i| show(field, i, short))
            .collect::<Vec<_>>()
            .join(" "),
        Value::Null => "-".into(),
        other => other.to_string(),
    }
}

fn text(config: &Map<String, Value>, field: &str) -> String {
    config
        .get(field)
        .map_or_else(String::new, |v| show(field, v, false))
}

/// Reads every run in `store`, grouped into sections.
pub fn load(store: &Path) -> Result<Vec<Section>> {
    if !store.exists() {
        bail!(
            "{}: no such results store (run `belady sweep` first)",
            store.display()
        );
    }
    // An empty, foreign or cut file is refused in one line, unchanged, as `results export` does;
    // rows of older stores read completed as today's (capacity, bytes, demand I/O).
    let runs = belady_core::sweep::store::Store::open_existing(store)?.runs()?;
    if runs.is_empty() {
        bail!("{}: the store holds no runs", store.display());
    }
    // (trace, setting) -> prefetch -> series -> capacity -> run
    type Grid = BTreeMap<String, BTreeMap<String, BTreeMap<u64, Point>>>;
    let mut groups: BTreeMap<(String, BTreeMap<String, String>), Grid> = BTreeMap::new();
    for run in runs {
        let config = match serde_json::to_value(&run.config) {
            Ok(Value::Object(map)) => map,
            _ => bail!(
                "{}: run {} has a configuration belady cannot read",
                store.display(),
                run.key
            ),
        };
        let mut setting: BTreeMap<String, String> = config
            .iter()
            .filter(|(k, _)| {
                !SERIES_FIELDS.contains(&k.as_str()) && !NOT_SETTING.contains(&k.as_str())
            })
            .filter(|(k, _)| k.as_str() != "trace")
            .map(|(k, v)| (k.clone(), show(k, v, false)))
            .collect();
        setting.insert(
            "capacity_unit".into(),
            run.result.capacity.unit.name().into(),
        );
        let values = metrics()
            .filter(|m| m.report.is_some_and(|when| when.to(&run.result)))
            .filter_map(|m| Some((m.key, m.shown(&run.result)?)))
            .collect();
        let point = Point {
            series: series_label(&config),
            policy: text(&config, "policies")
                .split('(')
                .next()
                .unwrap_or_default()
                .to_string(),
            capacity: run.result.capacity.clone(),
            timed: Applies::Timed.to(&run.result),
            values,
            cache_size: text(&config, "cache_sizes"),
            key: run.key,
        };
        let prefetch = config
            .get("prefetch")
            .map_or_else(|| "none".into(), |v| show("prefetch", v, false));
        let at = groups
            .entry((text(&config, "trace"), setting))
            .or_default()
            .entry(prefetch)
            .or_default()
            .entry(point.series.clone())
            .or_default();
        match at.get(&point.size()) {
            None => {
                at.insert(point.size(), point);
            }
            Some(first) => same_simulation(first, &point)?,
        }
    }
    let names = display_names(groups.keys().map(|(trace, _)| trace.as_str()));
    let mut sections: Vec<Section> = groups
        .into_iter()
        .map(|((trace, setting), grid)| {
            let mut charts: Vec<(String, Vec<Point>)> = grid
                .into_iter()
                .map(|(prefetch, series)| {
                    (
                        prefetch,
                        series
                            .into_values()
                            .flat_map(BTreeMap::into_values)
                            .collect(),
                    )
                })
                .collect();
            // Without read-ahead first, as the study's figures put the baseline first.
            charts.sort_by(|a, b| (a.0 != "none", &a.0).cmp(&(b.0 != "none", &b.0)));
            Section {
                name: names[&trace].clone(),
                trace,
                setting,
                distinct: Vec::new(),
                charts,
            }
        })
        .collect();
    mark_distinct(&mut sections);
    sections.sort_by(|a, b| (&a.name, &a.trace, &a.setting).cmp(&(&b.name, &b.trace, &b.setting)));
    Ok(sections)
}

/// Two runs on one point differ only in how the cache size was written; their results must agree.
fn same_simulation(a: &Point, b: &Point) -> Result<()> {
    if a.values == b.values {
        return Ok(());
    }
    let hit = |p: &Point| p.values.get("hit_ratio").map_or(f64::NAN, |v| v / 100.0);
    bail!(
        "cannot report runs {} and {}: both are {} at {} (sizes written {:?} and {:?}) with every \
         other setting equal, yet their results differ (hit ratio {} vs {}); the store is inconsistent",
        a.key,
        b.key,
        a.series,
        a.capacity.label(),
        a.cache_size,
        b.cache_size,
        hit(a),
        hit(b)
    )
}

/// The line's label: the policy as written, a hierarchy by its levels, with any settings.
fn series_label(config: &Map<String, Value>) -> String {
    let levels = text(config, "levels");
    let mut label = if levels.is_empty() {
        text(config, "policies")
    } else {
        let placement = text(config, "placement");
        if placement.is_empty() {
            levels
        } else {
            format!("{levels} ({placement})")
        }
    };
    let params = text(config, "params");
    if !params.is_empty() {
        label.push_str(&format!(" [{params}]"));
    }
    label
}

/// Heading names: each trace's file name, with as many parent directories as it takes to tell
/// traces of the same file name apart (the whole label if nothing shorter does).
fn display_names<'a>(traces: impl Iterator<Item = &'a str>) -> BTreeMap<String, String> {
    let mut traces: Vec<&str> = traces.collect();
    traces.dedup();
    let suffix = |t: &str, n: usize| -> String {
        let parts: Vec<&str> = t.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
        if parts.len() <= n {
            t.to_string()
        } else {
            parts[parts.len() - n..].join("/")
        }
    };
    let mut out = BTreeMap::new();
    for t in &traces {
        let mut n = 1;
        let name = loop {
            let mine = suffix(t, n);
            let clash = traces.iter().any(|o| o != t && suffix(o, n) == mine);
            if !clash || mine == *t {
                break if clash { t.to_string() } else { mine };
            }
            n += 1;
        };
        out.insert(t.to_string(), name);
    }
    out
}

/// Fills each section's `distinct`: the setting fields whose values are not the same across the
/// sections of its trace (the trace hash when the file changed, the preset, the disk, ...).
fn mark_distinct(sections: &mut [Section]) {
    let mut varying: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for s in sections.iter() {
        let fields = varying.entry(s.trace.clone()).or_default();
        for o in sections.iter().filter(|o| o.trace == s.trace) {
            for k in s.setting.keys().chain(o.setting.keys()) {
                if s.setting.get(k) != o.setting.get(k) {
                    fields.insert(k.clone());
                }
            }
        }
    }
    for s in sections.iter_mut() {
        s.distinct = varying[&s.trace]
            .iter()
            .map(|k| {
                let v = match s.setting.get(k) {
                    None => "unset".to_string(),
                    Some(v) if k == "trace_hash" => v.chars().take(12).collect(),
                    Some(v) => v.clone(),
                };
                (k.clone(), v)
            })
            .collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_file_names_get_their_parent_directories() {
        let names = display_names(
            [
                "/a/x/cpp.trace",
                "/b/x/cpp.trace",
                "/c/y/ps.trace",
                "cpp.trace",
            ]
            .into_iter(),
        );
        // No shorter suffix tells it from b/x/cpp.trace and cpp.trace: the whole label.
        assert_eq!(names["/a/x/cpp.trace"], "/a/x/cpp.trace");
        assert_eq!(names["/b/x/cpp.trace"], "/b/x/cpp.trace");
        assert_eq!(names["/c/y/ps.trace"], "ps.trace");
        assert_eq!(names["cpp.trace"], "cpp.trace");
    }
}
