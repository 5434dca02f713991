//! Plain-text tables for people; machines get `--json`.

use belady_core::RunResult;

/// One line per run, aligned; runs with read-ahead or a disk model add their I/O columns.
pub fn runs(results: &[RunResult]) -> String {
    // Block-level rows carry demand I/O counters too (one read per miss); the columns are shown
    // for runs with read-ahead or levels, where they say more than the misses.
    let with_io = results
        .iter()
        .any(|r| r.prefetch.is_some() || r.levels.is_some());
    let timed = results
        .iter()
        .any(|r| r.io.as_ref().is_some_and(|io| io.exec_time_s.is_some()));
    // With several read-ahead settings in one table (`--prefetch none,linux6`) rows of one policy
    // and size would look alike: name each row's setting.
    let prefetch_varies = results
        .iter()
        .any(|r| r.prefetch != results.first().and_then(|f| f.prefetch.clone()));
    // Object caches name their model and byte capacity (a plain count has none: `-`).
    let objects = results.iter().any(|r| r.cache_model == "objects");
    let admission = results.iter().any(|r| r.admission != "none");
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
    header.extend(["requests", "hits", "misses", "hit_ratio_%"]);
    if with_io {
        header.extend(["disk_requests", "sync_req/blk", "async_req/blk", "late"]);
    }
    if timed {
        header.extend(["exec_s", "io_wait_s"]);
    }
    header.extend(["bytes_requested", "byte_misses", "byte_miss_%"]);
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
            if objects {
                row.extend([
                    r.cache_model.clone(),
                    r.cache_blocks.map_or_else(|| "-".into(), |n| n.to_string()),
                    r.cache_bytes.map_or_else(|| "-".into(), |b| b.to_string()),
                ]);
            } else {
                row.push(r.capacity.amount.to_string());
            }
            row.extend([
                r.requests.to_string(),
                r.hits.to_string(),
                r.misses.to_string(),
                format!("{:.2}", 100.0 * r.hit_ratio),
            ]);
            if with_io {
                let io = r.io.clone().unwrap_or_default();
                row.extend([
                    io.disk_requests.to_string(),
                    format!("{}/{}", io.sync_requests, io.sync_blocks),
                    format!("{}/{}", io.async_requests, io.async_blocks),
                    io.late.to_string(),
                ]);
            }
            if timed {
                let io = r.io.clone().unwrap_or_default();
                let secs = |v: Option<f64>| v.map_or_else(|| "-".into(), |v| format!("{v:.3}"));
                row.extend([secs(io.exec_time_s), secs(io.io_wait_s)]);
            }
            row.extend([
                r.bytes_requested.to_string(),
                r.byte_misses.to_string(),
                format!("{:.2}", 100.0 * r.byte_miss_ratio),
            ]);
            row
        })
        .collect();
    let mut out = aligned(&header, &rows);
    if results.iter().any(untimed_read_ahead) {
        out.push_str(UNTIMED_NOTE);
        out.push('\n');
    }
    out
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
