//! Plain-text tables for people; machines get `--json`.

use belady_core::RunResult;

/// One line per run, aligned.
pub fn runs(results: &[RunResult]) -> String {
    let rows: Vec<Vec<String>> = results
        .iter()
        .map(|r| {
            vec![
                r.policy.clone(),
                r.cache_blocks.to_string(),
                r.requests.to_string(),
                r.hits.to_string(),
                r.misses.to_string(),
                format!("{:.2}", 100.0 * r.hit_ratio),
            ]
        })
        .collect();
    aligned(
        &[
            "policy",
            "cache_blocks",
            "requests",
            "hits",
            "misses",
            "hit_ratio_%",
        ],
        &rows,
    )
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
