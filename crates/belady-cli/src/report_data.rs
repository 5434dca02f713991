//! The report's data: every stored run, grouped so that runs which differ in any configuration
//! field never share a line, a point or a table cell.
//!
//! A run's configuration is read from its stored JSON (not a fixed list of columns), so a field
//! added to the configuration later tells runs apart here without a change: each field is either
//! the chart's x value (cache size), the chart (read-ahead), the line (policy and its settings) or
//! part of the section (trace, trace content hash, disk and every other field). Two runs left on
//! the same point are the same simulation written two ways (`10%` and `185` blocks); if their
//! results differ the report refuses rather than show one of them.

use anyhow::{bail, Context, Result};
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
    /// Cache size in blocks.
    pub cache_blocks: u64,
    /// Hit ratio, 0..1.
    pub hit_ratio: f64,
    /// Disk requests (misses for the block engine, which issues one request per miss).
    pub disk_requests: Option<f64>,
    /// Execution time, when a disk model timed the run.
    pub exec_time_s: Option<f64>,
    /// Missed bytes over requested bytes, for objects-model runs (in the blocks model it is the
    /// miss ratio, which the hit-ratio chart already shows).
    pub byte_miss_ratio: Option<f64>,
    key: String,
    cache_size: String,
}

/// Runs that share everything but the policy, cache size and read-ahead: one heading in the
/// report, one chart per read-ahead setting and metric.
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
    // An empty, foreign or cut file is refused in one line, unchanged, as `results export` does.
    // Read-only: nothing is created beside the store.
    let db = belady_core::sweep::store::Store::open_existing(store)?.into_connection();
    // Only objects-model runs have a byte miss ratio of their own; stores written before rows had
    // byte counters hold blocks-model runs only.
    let has_bytes: bool = db
        .query_row(
            "SELECT EXISTS(SELECT 1 FROM pragma_table_info('runs') WHERE name = 'byte_miss_ratio')",
            [],
            |r| r.get(0),
        )
        .unwrap_or(false);
    let byte_miss = if has_bytes {
        "CASE WHEN cache_model = 'objects' THEN byte_miss_ratio END"
    } else {
        "NULL"
    };
    let mut stmt = db
        .prepare(&format!(
            // The block engine has no clustering: each miss is one single-block request.
            "SELECT key, config_json, cache_blocks, hit_ratio,
                    COALESCE(disk_requests, misses), exec_time_s, {byte_miss}
             FROM runs ORDER BY key"
        ))
        .with_context(|| format!("{} is not a belady results store", store.display()))?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, i64>(2)?,
            r.get::<_, f64>(3)?,
            r.get::<_, Option<i64>>(4)?,
            r.get::<_, Option<f64>>(5)?,
            r.get::<_, Option<f64>>(6)?,
        ))
    })?;
    // (trace, setting) -> prefetch -> series -> cache size -> run
    type Grid = BTreeMap<String, BTreeMap<String, BTreeMap<u64, Point>>>;
    let mut groups: BTreeMap<(String, BTreeMap<String, String>), Grid> = BTreeMap::new();
    let mut total = 0;
    for row in rows {
        let (key, config, cache_blocks, hit_ratio, disk_requests, exec_time_s, byte_miss_ratio) =
            row?;
        let config: Map<String, Value> = serde_json::from_str(&config).with_context(|| {
            format!(
                "{}: run {key} has a configuration belady cannot read",
                store.display()
            )
        })?;
        let setting: BTreeMap<String, String> = config
            .iter()
            .filter(|(k, _)| {
                !SERIES_FIELDS.contains(&k.as_str()) && !NOT_SETTING.contains(&k.as_str())
            })
            .filter(|(k, _)| k.as_str() != "trace")
            .map(|(k, v)| (k.clone(), show(k, v, false)))
            .collect();
        let point = Point {
            series: series_label(&config),
            policy: text(&config, "policies")
                .split('(')
                .next()
                .unwrap_or_default()
                .to_string(),
            cache_blocks: cache_blocks.max(0) as u64,
            hit_ratio,
            disk_requests: disk_requests.map(|v| v as f64),
            exec_time_s,
            byte_miss_ratio,
            cache_size: text(&config, "cache_sizes"),
            key,
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
        match at.get(&point.cache_blocks) {
            None => {
                at.insert(point.cache_blocks, point);
            }
            Some(first) => same_simulation(first, &point)?,
        }
        total += 1;
    }
    if total == 0 {
        bail!("{}: the store holds no runs", store.display());
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
    let same = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (Some(x), Some(y)) => x == y,
        (None, None) => true,
        _ => false,
    };
    if a.hit_ratio == b.hit_ratio
        && same(a.disk_requests, b.disk_requests)
        && same(a.exec_time_s, b.exec_time_s)
    {
        return Ok(());
    }
    bail!(
        "cannot report runs {} and {}: both are {} at {} blocks (sizes written {:?} and {:?}) with every \
         other setting equal, yet their results differ (hit ratio {} vs {}); the store is inconsistent",
        a.key,
        b.key,
        a.series,
        a.cache_blocks,
        a.cache_size,
        b.cache_size,
        a.hit_ratio,
        b.hit_ratio
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
