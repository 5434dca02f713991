//! `belady sim --levels`: multi-level cache hierarchies, printed per level.

use crate::table::aligned;
use belady_core::engine::hierarchy::LevelReport;

/// Each file-engine hierarchy run's levels as a table (nothing for one-level runs).
pub fn run_levels(runs: &[belady_core::RunResult]) -> String {
    let mut out = String::new();
    for r in runs {
        if let Some(levels) = &r.levels {
            out.push_str(&format!("\nhierarchy {}\n", r.policy));
            out.push_str(&level_table(levels));
            if let Some(t) = r.io.as_ref().and_then(|io| io.timing.as_ref()) {
                out.push_str(&timing_line(t));
            }
        }
    }
    out
}

/// One row per level.
fn level_table(levels: &[LevelReport]) -> String {
    let rows: Vec<Vec<String>> = levels
        .iter()
        .map(|l| {
            vec![
                l.name.clone(),
                l.policy.clone(),
                l.placement.clone(),
                l.cache_blocks.to_string(),
                l.requests.to_string(),
                l.hits.to_string(),
                format!("{:.2}", 100.0 * l.hit_ratio),
                (l.placed_on_access + l.reloads_issued + l.demotions_placed).to_string(),
                format!(
                    "{}/{}/{}",
                    l.reloads_issued, l.reloads_used, l.reloads_wasted
                ),
                l.reloads_skipped.to_string(),
                l.demotions.to_string(),
                l.demotion_bytes.to_string(),
            ]
        })
        .collect();
    aligned(
        &[
            "level",
            "policy",
            "placement",
            "blocks",
            "requests",
            "hits",
            "hit_ratio_%",
            "placed",
            "reloads_issued/used/wasted",
            "reloads_skipped",
            "demotions",
            "demotion_bytes",
        ],
        &rows,
    )
}

/// The line about the hierarchy's time on the disk.
fn timing_line(t: &belady_core::engine::hierarchy::TimingReport) -> String {
    format!(
                "time on {}: run {:.3} s, mean response {:.3} ms; disk busy {:.3} s on demand reads, \
                 {:.3} s on reloads; demand reads waited {:.3} s for reloads, misses {:.3} s for demotions; \
                 reloads queued {}, started {}, cancelled {}, dropped {}, pending {}\n",
                t.disk,
                t.run_time_ns as f64 / 1e9,
                t.mean_response_ns / 1e6,
                t.demand_disk_ns as f64 / 1e9,
                t.reload_disk_ns as f64 / 1e9,
                t.reload_wait_ns as f64 / 1e9,
                t.demotion_wait_ns as f64 / 1e9,
                t.reloads_queued,
                t.reloads_started,
                t.reloads_cancelled,
                t.reloads_dropped,
                t.reloads_pending
            )
}
