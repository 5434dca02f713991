//! Plain-text tables for people; machines get `--json`.

use belady_core::run::metrics::{metric, Metric, METRICS};
use belady_core::RunResult;

/// One line per run, aligned: what ran, then every metric the registry gives a column
/// ([`METRICS`]) that applies to some run (I/O columns with read-ahead or levels, times with a
/// disk model, rejections with an admission filter).
pub fn runs(results: &[RunResult]) -> String {
    // With several read-ahead settings in one table (`--prefetch none,linux6`) rows of one policy
    // and size would look alike: name each row's setting.
    let prefetch_varies = results
        .iter()
        .any(|r| r.prefetch != results.first().and_then(|f| f.prefetch.clone()));
    // Object caches name their model and byte capacity (a plain count has none: `-`).
    let objects = results.iter().any(|r| r.cache_model == "objects");
    // The disk's own read cache, named where it served requests (its hits take no seek).
    let drive_cache = results.iter().any(|r| disk_cache_hits(r) > 0);
    let admission = results.iter().any(|r| r.admission != "none");
    let metrics: Vec<(&Metric, &str)> = METRICS
        .iter()
        .filter_map(|m| Some((m, m.table?)))
        .filter(|(m, _)| results.iter().any(|r| m.applies.to(r)))
        .collect();
    let mut header = vec!["policy"];
    if prefetch_varies {
        header.push("prefetch");
    }
    if admission {
        header.push("admission");
    }
    if objects {
        header.extend(["cache_model", "cache_objects", "cache_bytes"]);
    } else {
        header.push("cache_blocks");
    }
    header.extend(metrics.iter().map(|(_, h)| *h));
    let rows: Vec<Vec<String>> = results
        .iter()
        .map(|r| {
            let mut row = vec![r.policy.clone()];
            if prefetch_varies {
                row.push(r.prefetch.clone().unwrap_or_else(|| "none".into()));
            }
            if admission {
                row.push(r.admission.clone());
            }
            let or_dash = |v: Option<u64>| v.map_or_else(|| "-".into(), |v| v.to_string());
            if objects {
                row.extend([
                    r.cache_model.clone(),
                    or_dash(r.cache_blocks),
                    or_dash(r.cache_bytes),
                ]);
            } else {
                row.push(r.capacity.amount.to_string());
            }
            for (m, _) in &metrics {
                let mut text = cell(m, r);
                if let Some(second) = m.table_with.and_then(metric) {
                    text = format!("{text}/{}", cell(second, r));
                }
                row.push(text);
            }
            row
        })
        .collect();
    let mut out = aligned(&header, &rows);
    if results.iter().any(untimed_read_ahead) {
        out.push_str(UNTIMED_NOTE);
        out.push('\n');
    }
    if drive_cache {
        out.push_str(DRIVE_CACHE_NOTE);
        out.push('\n');
    }
    // Each row note once, in the order the rows first carry it.
    let mut notes: Vec<&str> = Vec::new();
    for note in results.iter().filter_map(belady_core::run::notes::row_note) {
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    for note in notes {
        out.push_str(note);
        out.push('\n');
    }
    out
}

/// The footer of a table where the disk's own read cache served requests.
pub const DRIVE_CACHE_NOTE: &str =
    "disk_cache_hits: disk reads the drive served from its own read \
cache (segments filled by its read-ahead), with no seek or rotational wait, which is why the mean \
response time can be far below a seek (docs/disk.md, \"Drive cache\")";

/// Reads a run's disk served from its own read cache (0 without a disk or its cache).
fn disk_cache_hits(r: &RunResult) -> u64 {
    r.io.as_ref().and_then(|io| io.disk_cache_hits).unwrap_or(0)
}

/// A metric's cell: counts as they are, ratios in percent, times in seconds; `-` where the run
/// has no value.
fn cell(m: &Metric, r: &RunResult) -> String {
    m.shown(r).map_or_else(|| "-".into(), |v| m.format(v))
}

/// The footer of a table holding untimed runs with read-ahead.
pub const UNTIMED_NOTE: &str = "untimed (no --disk): read-ahead completes at once, so every \
block read ahead is ready in time and no reference waits for one (late is 0); time the runs \
with a disk model (e.g. --disk hdd) to see the waits";

/// Whether `r` ran read-ahead without a disk model: its read-ahead was free.
pub fn untimed_read_ahead(r: &RunResult) -> bool {
    r.prefetch.as_deref().is_some_and(|p| p != "none")
        && r.io.as_ref().map_or(true, |io| io.exec_time_s.is_none())
}

/// `header` and `rows` in columns: the first left-aligned, the rest right-aligned.
pub fn aligned(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let mut out = String::new();
    let line = |cells: &[&str], out: &mut String| {
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            if i == 0 {
                out.push_str(&format!("{cell:<w$}"));
            } else {
                out.push_str(&format!("  {cell:>w$}"));
            }
        }
        out.push('\n');
    };
    line(header, &mut out);
    for row in rows {
        line(
            &row.iter().map(String::as_str).collect::<Vec<_>>(),
            &mut out,
        );
    }
    out
}
