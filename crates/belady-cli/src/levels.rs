//! `belady sim --levels`: multi-level cache hierarchies, printed per level.

use crate::table::aligned;
use anyhow::Result;
use belady_core::hierarchy::{HierarchySpec, LevelReport, Links, Placement};
use belady_core::Preset;

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

/// The links between levels and the reload queue the link options ask for (they time runs with
/// `--disk`).
pub fn links(args: &crate::SimArgs) -> Result<Links> {
    let us = |v: f64, flag: &str| -> Result<u64> {
        if v.is_finite() && v >= 0.0 {
            Ok((v * 1000.0).round() as u64)
        } else {
            Err(belady_core::Error::config(flag, v, "expected microseconds, 0 or more").into())
        }
    };
    let links = Links {
        link_latency_ns: us(args.link_latency_us, "--link-latency-us")?,
        link_bytes_per_s: args.link_mbps * 1e6 / 8.0,
        think_ns: us(args.think_us, "--think-us")?,
        reload_queue: args.reload_queue,
    };
    links.validate()?;
    Ok(links)
}

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
fn timing_line(t: &belady_core::hierarchy::TimingReport) -> String {
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
