//! `belady sim --levels`: multi-level cache hierarchies, printed per level.

use crate::table::aligned;
use anyhow::Result;
use belady_core::hierarchy::{
    HierarchyResult, HierarchySpec, HierarchyTiming, LevelReport, Placement,
};
use belady_core::{OpFilter, Preset};

/// The hierarchies `--levels` (repeatable) × `--placement` (comma-separated) ask for, in that
/// order: each `--levels` value once per placement, the placement applying to every lower level
/// that does not name its own.
pub fn specs(
    levels: &[String],
    placements: &str,
    params: &[String],
    preset: Preset,
) -> Result<Vec<HierarchySpec>> {
    let placements: Vec<Placement> = placements
        .split(',')
        .filter(|p| !p.trim().is_empty())
        .map(Placement::parse)
        .collect::<belady_core::Result<_>>()?;
    if placements.is_empty() {
        anyhow::bail!("invalid --placement '': name at least one placement");
    }
    let mut out = Vec::new();
    for text in levels {
        let named_everywhere = text.split(',').skip(1).all(|l| l.split(':').count() > 3);
        for (k, &p) in placements.iter().enumerate() {
            // A hierarchy whose levels all name their placement is the same for every --placement.
            if named_everywhere && k > 0 {
                break;
            }
            out.push(HierarchySpec::parse(text, params, preset, p)?);
        }
    }
    Ok(out)
}

/// The timing model `--disk` and the link options ask for (none without `--disk`).
pub fn timing(args: &crate::SimArgs, disk: Option<&str>) -> Result<Option<HierarchyTiming>> {
    let Some(disk) = disk.filter(|d| *d != "none") else {
        return Ok(None);
    };
    let us = |v: f64, flag: &str| -> Result<u64> {
        if v.is_finite() && v >= 0.0 {
            Ok((v * 1000.0).round() as u64)
        } else {
            Err(belady_core::Error::config(flag, v, "expected microseconds, 0 or more").into())
        }
    };
    let cfg = HierarchyTiming {
        link_latency_ns: us(args.link_latency_us, "--link-latency-us")?,
        link_bytes_per_s: args.link_mbps * 1e6 / 8.0,
        think_ns: us(args.think_us, "--think-us")?,
        reload_queue: args.reload_queue,
        ..HierarchyTiming::new(belady_core::disk::load_config(disk)?, disk)
    };
    cfg.validate()?;
    Ok(Some(cfg))
}

/// One `sim --levels --json` result: the common row (the hierarchy as `policy`, hits at any
/// level, disk requests and, with `--disk`, `exec_time_s` and the other timed keys), the levels,
/// the hierarchy's own counters and timing detail, and how the trace was read.
#[derive(serde::Serialize)]
struct Row<'a> {
    #[serde(flatten)]
    run: belady_core::RunResult,
    hierarchy: &'a str,
    disk_reads: u64,
    disk_reloads: u64,
    demotion_bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    timing: &'a Option<belady_core::hierarchy::TimingReport>,
    format: &'a str,
    ops: OpFilter,
}

/// The results as JSON (an array, one object per hierarchy).
pub fn json(results: &[HierarchyResult], format: &str, ops: OpFilter) -> Result<String> {
    let rows: Vec<Row> = results
        .iter()
        .map(|r| Row {
            run: r.summary(),
            hierarchy: &r.hierarchy,
            disk_reads: r.disk_reads,
            disk_reloads: r.disk_reloads,
            demotion_bytes: r.demotion_bytes,
            timing: &r.timing,
            format,
            ops,
        })
        .collect();
    Ok(format!("{}\n", serde_json::to_string_pretty(&rows)?))
}

/// Each file-engine hierarchy run's levels as a table (nothing for one-level runs).
pub fn run_levels(runs: &[belady_core::RunResult]) -> String {
    let mut out = String::new();
    for r in runs {
        if let Some(levels) = &r.levels {
            out.push_str(&format!("\nhierarchy {}\n", r.policy));
            out.push_str(&level_table(levels));
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

/// The results as text: per hierarchy a table of its levels and a line about the disk.
pub fn text(results: &[HierarchyResult]) -> String {
    let mut out = String::new();
    for r in results {
        out.push_str(&format!("\nhierarchy {}\n", r.hierarchy));
        out.push_str(&level_table(&r.levels));
        out.push_str(&format!(
            "all levels: {} of {} references hit ({:.2}%); disk requests {} = {} demand reads + {} reloads\n",
            r.hits,
            r.requests,
            100.0 * r.hit_ratio,
            r.disk_requests,
            r.disk_reads,
            r.disk_reloads
        ));
        if let Some(t) = &r.timing {
            out.push_str(&format!(
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
            ));
        }
    }
    out
}
