//! The reference model: block-level runs of the hierarchy model on its own, every reference of a
//! block trace through [`Hierarchy`] (timed by its own clock, `clock.rs`), and grids that share a
//! client replay what it passes down. Not a run path: the CLI, Python and sweeps run every
//! hierarchy on the file engine ([`crate::engine::file::run_file_hierarchies`]); tests compare that
//! engine against these runs.

use super::slots::NO_SLOT;
use super::{
    Hierarchy, HierarchyResult, HierarchySpec, HierarchyTiming, LevelReport, TimedHierarchy,
};
use crate::error::Result;
use crate::policy::{Block, NEVER};
use crate::trace::dense;
use crate::PreparedTrace;
use rayon::prelude::*;

/// Runs every reference of `trace` through the hierarchy `spec`, timed when `timing` is given.
pub fn run_hierarchy(
    spec: &HierarchySpec,
    trace: &PreparedTrace,
    timing: Option<&HierarchyTiming>,
) -> Result<HierarchyResult> {
    let unique = trace.unique();
    let h = Hierarchy::new(spec, unique, trace.trace.block_size)?;
    let oracle = h.levels[0].cache.policy.needs_oracle();
    let mut h = match timing {
        Some(cfg) => h.with_timing(cfg, &trace.trace.originals)?,
        None => TimedHierarchy::untimed(h),
    };
    for_each_reference(oracle, trace, |b, n| h.reference(b, n));
    Ok(h.result(&trace.trace.source, spec.label(), unique))
}

/// Calls `f(block, next_use)` for each reference, with next uses when `oracle` asks for them.
fn for_each_reference(oracle: bool, trace: &PreparedTrace, mut f: impl FnMut(Block, u64)) {
    if oracle {
        for (&b, &n) in trace.trace.refs.iter().zip(trace.next_uses()) {
            f(b, if n == dense::NEVER { NEVER } else { n as u64 });
        }
    } else {
        for &b in &trace.trace.refs {
            f(b, NEVER);
        }
    }
}

/// What a client level passes down over a whole trace: for each reference that missed it, the
/// block and the block it evicted (or [`NO_SLOT`]), with the client's own counters.
struct ClientRun {
    misses: Vec<(Block, Block)>,
    report: LevelReport,
    requests: u64,
}

/// Runs the client level of `spec` alone and records what it passes down.
fn record_client(spec: &HierarchySpec, trace: &PreparedTrace) -> Result<ClientRun> {
    let top = HierarchySpec {
        levels: vec![spec.levels[0].clone()],
        links: spec.links.clone(),
    };
    let mut h = Hierarchy::new(&top, trace.unique(), trace.trace.block_size)?;
    let mut misses = Vec::new();
    let oracle = h.levels[0].cache.policy.needs_oracle();
    for_each_reference(oracle, trace, |b, n| {
        let before = h.disk_reads;
        h.reference(b, n);
        if h.disk_reads != before {
            let victim = h.levels[0].cache.last_victim();
            misses.push((b, victim.map_or(NO_SLOT, |v| v.block)));
        }
    });
    Ok(ClientRun {
        misses,
        report: h.report_level(0),
        requests: h.requests,
    })
}

/// Runs `spec` below a recorded client.
fn replay(
    spec: &HierarchySpec,
    trace: &PreparedTrace,
    client: &ClientRun,
) -> Result<HierarchyResult> {
    let unique = trace.unique();
    let mut h = Hierarchy::new(spec, unique, trace.trace.block_size)?;
    for &(b, v) in &client.misses {
        h.replay_client_miss(b, (v != NO_SLOT).then_some(v));
    }
    h.requests = client.requests;
    h.client_report = Some(LevelReport {
        name: spec.levels[0].name.clone(),
        ..client.report.clone()
    });
    Ok(h.result(&trace.trace.source, spec.label(), unique))
}

/// Runs each hierarchy in parallel (timed when `timing` is given); results come in the order
/// given. Untimed, the client level's behaviour does not depend on the levels below it, so
/// hierarchies sharing a client (same policy, parameters and size) simulate it once and replay
/// what it passes down.
pub fn run_hierarchies(
    specs: &[HierarchySpec],
    trace: &PreparedTrace,
    timing: Option<&HierarchyTiming>,
) -> Result<Vec<HierarchyResult>> {
    if timing.is_some() {
        return specs
            .par_iter()
            .map(|s| run_hierarchy(s, trace, timing))
            .collect();
    }
    let key = |s: &HierarchySpec| -> Result<String> {
        let top = &s.levels[0];
        let blocks = top.size.resolve(trace.unique(), trace.trace.block_size)?;
        Ok(format!(
            "{}|{:?}|{:?}|{blocks}",
            top.policy.info.name, top.policy.params, top.policy.preset
        ))
    };
    let keys: Vec<String> = specs.iter().map(key).collect::<Result<_>>()?;
    let mut shared: Vec<&String> = keys
        .iter()
        .filter(|k| keys.iter().filter(|x| x == k).count() > 1)
        .collect();
    shared.sort();
    shared.dedup();
    let clients: Vec<(&String, ClientRun)> = shared
        .par_iter()
        .map(|&k| {
            let first = specs[keys.iter().position(|x| x == k).expect("key of a spec")].clone();
            record_client(&first, trace).map(|c| (k, c))
        })
        .collect::<Result<_>>()?;
    specs
        .par_iter()
        .zip(&keys)
        .map(|(s, k)| match clients.iter().find(|(ck, _)| *ck == k) {
            Some((_, c)) => replay(s, trace, c),
            None => run_hierarchy(s, trace, None),
        })
        .collect()
}
