//! `belady demo clusterfetch`: cold, warm and ClusterFetch-assisted launch times of programs
//! recorded on a real machine (`scripts/record_launches.sh`), under an HDD and an SSD model.
//!
//! Each program was recorded twice. ClusterFetch learns its store on the first recording (a cold
//! run) and prefetches from it on the second, as from one boot to the next; cold and warm starts
//! are the second recording with an empty cache and with the cache a previous run of it left.
//! Every run is a [`RunConfig`] performed by [`belady_core::run()`], the path `belady sim` takes
//! (`--prefetch ondemand+clusterfetch --cf-store FILE`, `--warm`).

use anyhow::{bail, Context, Result};
use belady_core::{RunConfig, RunResult};
use clap::Args;
use std::path::{Path, PathBuf};

/// Options of `belady demo clusterfetch`.
#[derive(Args)]
pub struct DemoArgs {
    /// Print one JSON object per program, disk and placement instead of the table.
    #[arg(long)]
    json: bool,
}

/// The recorded programs: file stem under `data/launch/` and what was run.
const PROGRAMS: &[(&str, &str)] = &[
    (
        "python-imports",
        "python3 -c 'import json, email, http.client, xml.dom.minidom, sqlite3, decimal, asyncio'",
    ),
    ("gcc-headers", "gcc -O2 -c hello.c (24 system headers)"),
];
const DISKS: &[(&str, &str)] = &[("cheetah9lp", "HDD"), ("nvme", "SSD")];
/// Where files lie on the device (`layout`).
const PLACEMENTS: &[&str] = &["contiguous", "scattered"];
/// A desktop-sized page cache for the launches (256 MiB of 4 KiB blocks): nothing is evicted.
const CACHE_BLOCKS: usize = 65_536;
/// The paper's launch-time reductions (Table 1: Flightgear, Eclipse), as printed there.
const PAPER_RANGE: (f64, f64) = (15.2, 30.9);
/// The paper's Table 1 launch rows: cold, warm and ClusterFetch-assisted launch times, seconds.
const PAPER_LAUNCHES: &[(&str, f64, f64, f64)] = &[
    ("Eclipse", 16.5, 6.1, 11.4),
    ("Flightgear", 27.5, 18.9, 23.3),
];

/// One program under one disk and placement.
#[derive(serde::Serialize)]
struct Row {
    program: String,
    disk: String,
    kind: String,
    placement: String,
    cold_s: f64,
    warm_s: f64,
    clusterfetch_s: f64,
    reduction: f64,
    /// Share of the cold-to-warm difference ClusterFetch removes.
    gap_closed: f64,
    accuracy: f64,
    coverage: Option<f64>,
    prefetched_blocks: u64,
    store_triggers: u64,
    store_bytes: u64,
}

fn launch_s(r: &RunResult) -> Result<f64> {
    match r.io.as_ref().and_then(|io| io.launch.as_ref()) {
        Some(l) => Ok(l.time_s),
        None => bail!("{}: the run measured no launch", r.trace),
    }
}

/// The recording `run` of program `stem`.
fn recording(dir: &Path, stem: &str, run: u32) -> Result<PathBuf> {
    let path = dir.join(format!("{stem}.{run}.bev.gz"));
    if !path.is_file() {
        bail!(
            "{}: recorded launch missing (run from a belady checkout, pass --data DIR, or record one with scripts/record_launches.sh)",
            path.display()
        );
    }
    Ok(path)
}

/// Performs `config` through the one run path (as `belady sim` would) and returns its one row.
fn run_one(config: &RunConfig) -> Result<RunResult> {
    let mut out = belady_core::run(config)?;
    match out.runs.len() {
        1 => Ok(out.runs.remove(0)),
        n => bail!("{}: expected one run, got {n}", config.trace.display()),
    }
}

fn measure(dir: &Path) -> Result<Vec<Row>> {
    // Each learned store lives here between the run that learns it and the run that uses it.
    let stores = tempfile::tempdir().context("a temporary directory for the learned stores")?;
    let mut rows = Vec::new();
    for &(stem, _) in PROGRAMS {
        let first = recording(dir, stem, 1)?;
        let second = recording(dir, stem, 2)?;
        for &(disk, kind) in DISKS {
            for &placement in PLACEMENTS {
                // `belady sim SECOND -p lru -c 65536 --prefetch ondemand+clusterfetch --disk DISK
                // --layout PLACEMENT`, as one configuration.
                let assisted_config = RunConfig {
                    trace: second.clone(),
                    format: Some("events".into()),
                    policies: vec!["lru".into()],
                    cache_sizes: vec![CACHE_BLOCKS.to_string()],
                    prefetch: vec!["ondemand+clusterfetch".into()],
                    disk: vec![disk.into()],
                    layout: placement.into(),
                    cf_store: Some(stores.path().join(format!("{stem}-{disk}-{placement}.cfs"))),
                    ..RunConfig::default()
                };
                // Run 1 (cold) learns the store and saves it; run 2 starts from it, and its
                // baseline (the same run without ClusterFetch) is the cold launch.
                run_one(&RunConfig {
                    trace: first.clone(),
                    ..assisted_config.clone()
                })?;
                let assisted = run_one(&assisted_config)?;
                // A warm start: run 2 replayed twice with one cache, the second replay measured.
                let warmed = run_one(&RunConfig {
                    prefetch: vec!["ondemand".into()],
                    cf_store: None,
                    warm: true,
                    ..assisted_config.clone()
                })?;
                let cf = assisted
                    .io
                    .as_ref()
                    .and_then(|io| io.clusterfetch.clone())
                    .expect("ClusterFetch was on");
                let cold_s = cf
                    .baseline_launch_time_s
                    .expect("a ClusterFetch run measures its baseline");
                let (cf_s, warm_s) = (launch_s(&assisted)?, launch_s(&warmed)?);
                rows.push(Row {
                    program: stem.to_string(),
                    disk: disk.to_string(),
                    kind: kind.to_string(),
                    placement: placement.to_string(),
                    cold_s,
                    warm_s,
                    clusterfetch_s: cf_s,
                    reduction: 1.0 - cf_s / cold_s,
                    gap_closed: (cold_s - cf_s) / (cold_s - warm_s),
                    accuracy: cf.accuracy,
                    coverage: cf.coverage,
                    prefetched_blocks: cf.prefetched_blocks,
                    store_triggers: cf.store_triggers,
                    store_bytes: cf.store_bytes,
                });
            }
        }
    }
    Ok(rows)
}

fn table(rows: &[Row]) -> String {
    let header = [
        "program",
        "disk",
        "placement",
        "cold_s",
        "warm_s",
        "clusterfetch_s",
        "reduction",
        "gap_closed",
        "accuracy",
        "coverage",
        "store_bytes",
    ];
    let pct = |v: f64| format!("{:.1}%", 100.0 * v);
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.program.clone(),
                format!("{} ({})", r.disk, r.kind),
                r.placement.clone(),
                format!("{:.3}", r.cold_s),
                format!("{:.3}", r.warm_s),
                format!("{:.3}", r.clusterfetch_s),
                pct(r.reduction),
                pct(r.gap_closed),
                pct(r.accuracy),
                r.coverage.map_or_else(|| "-".into(), pct),
                r.store_bytes.to_string(),
            ]
        })
        .collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.len());
        }
    }
    let mut out = String::new();
    let line = |cells: Vec<&str>, out: &mut String| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (c, w))| {
                if i < 3 {
                    format!("{c:<w$}")
                } else {
                    format!("{c:>w$}")
                }
            })
            .collect();
        out.push_str(padded.join("  ").trim_end());
        out.push('\n');
    };
    line(header.to_vec(), &mut out);
    for row in &cells {
        line(row.iter().map(String::as_str).collect(), &mut out);
    }
    out
}

/// The smallest and largest reduction among `rows` of disk kind `kind`.
fn range(rows: &[Row], kind: &str) -> Option<(f64, f64)> {
    let v: Vec<f64> = rows
        .iter()
        .filter(|r| r.kind == kind)
        .map(|r| 100.0 * r.reduction)
        .collect();
    let lo = v.iter().copied().reduce(f64::min)?;
    let hi = v.iter().copied().reduce(f64::max)?;
    Some((lo, hi))
}

/// Runs the demonstration on the launches under `data/launch` and prints the table (or JSON).
pub fn run(args: DemoArgs, data: &Path) -> Result<()> {
    let dir = data.join("launch");
    let rows = measure(&dir)?;
    if args.json {
        let mut out = String::new();
        for r in &rows {
            out.push_str(&serde_json::to_string(r)?);
            out.push('\n');
        }
        return crate::emit(&out);
    }
    let shown = std::fs::canonicalize(&dir).unwrap_or(dir.clone());
    let mut out = format!(
        "ClusterFetch on recorded launches ({}): LRU, {} MiB cache, ondemand read-ahead; \
         the store is learned on run 1 (cold) and used on run 2\n",
        shown.display(),
        (CACHE_BLOCKS * 4096) >> 20
    );
    for &(stem, what) in PROGRAMS {
        out.push_str(&format!("  {stem}: {what}\n"));
    }
    out.push('\n');
    out.push_str(&table(&rows));
    out.push('\n');
    for &(disk, kind) in DISKS {
        if let Some((lo, hi)) = range(&rows, kind) {
            out.push_str(&format!(
                "{kind} ({disk}): launch time {lo:.1}% to {hi:.1}% shorter with ClusterFetch than cold\n"
            ));
        }
    }
    out.push_str(&format!(
        "Paper (Jeong et al., ICPE 2015, Table 1): {:.1}% (Flightgear) to {:.1}% (Eclipse) on a SATA HDD",
        PAPER_RANGE.0, PAPER_RANGE.1
    ));
    let gaps: Vec<String> = PAPER_LAUNCHES
        .iter()
        .map(|&(app, cold, warm, cf)| format!("{app} {:.0}%", 100.0 * (cold - cf) / (cold - warm)))
        .collect();
    out.push_str(&format!(
        "; share of the cold-to-warm gap closed: {}\n",
        gaps.join(", ")
    ));
    crate::emit(&out)
}
