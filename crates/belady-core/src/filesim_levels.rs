//! Hierarchies on the file engine: the client level is the file engine's cache, with its
//! read-ahead, clustering, device and scheduler; the levels below are [`Below`]. A hierarchy of
//! one level is exactly the plain file-level run.

use super::{FileSim, FileSimConfig, IoStats, PreparedFileTrace};
use crate::engine::RunResult;
use crate::error::Result;
use crate::hierarchy::{Below, HierarchySpec, LevelReport};
use crate::level::LevelStats;
use crate::policy::registry::{self, PolicyVisitor};
use crate::policy::Policy;
use rayon::prelude::*;

struct Run<'a> {
    spec: &'a HierarchySpec,
    trace: &'a PreparedFileTrace,
    capacity: usize,
    cfg: &'a FileSimConfig,
}

/// What a run yields: the client's counters, the I/O counters and every level's report.
type Output = Result<(LevelStats, IoStats, Option<(Vec<LevelReport>, u64, u64)>)>;

impl PolicyVisitor for Run<'_> {
    type Output = Output;
    fn visit<P: Policy + 'static>(self, policy: P) -> Output {
        let mut sim = FileSim::new(policy, self.trace, self.capacity, self.cfg);
        let below = Below::new(
            self.spec,
            self.trace.distinct,
            self.trace.layout.universe(),
            self.trace.block_size,
        )?;
        if let Some(below) = below {
            sim.set_below(below);
        }
        self.trace
            .for_each_chunk(|events| events.iter().for_each(|ev| sim.step(ev)))?;
        let resident = sim.level().frames().len() as u64;
        let below = sim.below.take();
        let (stats, io, _) = sim.finish_with_store();
        let levels = below.map(|b| {
            let top = &self.spec.levels[0];
            let client = LevelReport {
                policy: top.policy.label(),
                cache_blocks: self.capacity as u64,
                requests: stats.requests,
                hits: stats.hits,
                misses: stats.misses,
                hit_ratio: stats.hit_ratio(),
                evictions: stats.evictions,
                placed_on_access: stats.misses - stats.bypassed,
                resident,
                ..LevelReport::default()
            };
            (b.reports(client), b.demand_hits(), b.disk_reloads())
        });
        Ok((stats, io, levels))
    }
}

/// Runs the hierarchy `spec` over a file-level trace: the client with the read-ahead, clustering
/// and device of `cfg`, and the levels below it. One level gives the plain run's row; more add
/// `levels`, count demand reads a lower level served as hits, and add the lower levels' reloads to
/// the disk requests (as asynchronous ones).
pub fn run_file_hierarchy(
    spec: &HierarchySpec,
    trace: &PreparedFileTrace,
    cfg: &FileSimConfig,
) -> Result<RunResult> {
    cfg.validate()?;
    let top = &spec.levels[0];
    if spec.levels.len() == 1 {
        let capacity = top.size.resolve(trace.distinct, trace.block_size)?;
        return super::run_file_one(&top.policy, trace, capacity, cfg);
    }
    let capacity = top.size.resolve(trace.distinct, trace.block_size)?;
    let (stats, mut io, levels) = registry::build(
        &top.policy,
        capacity,
        trace.layout.universe(),
        Run {
            spec,
            trace,
            capacity,
            cfg,
        },
    )??;
    let (levels, below_hits, reloads) = levels.expect("a hierarchy of two or more levels");
    io.disk_requests += reloads;
    io.async_requests += reloads;
    io.async_blocks += reloads;
    let hits = stats.hits + below_hits;
    Ok(RunResult {
        trace: trace.source().to_string(),
        policy: spec.label(),
        cache_blocks: levels.iter().map(|l| l.cache_blocks).sum(),
        block_size: trace.block_size,
        unique_blocks: trace.distinct as u64,
        requests: stats.requests,
        hits,
        misses: stats.requests - hits,
        hit_ratio: if stats.requests == 0 {
            0.0
        } else {
            hits as f64 / stats.requests as f64
        },
        evictions: levels.iter().map(|l| l.evictions).sum(),
        prefetch: Some(cfg.prefetch_name()),
        io: Some(io),
        levels: Some(levels),
    })
}

/// Runs each hierarchy over a file-level trace, in parallel, in the order given.
pub fn run_file_hierarchies(
    specs: &[HierarchySpec],
    trace: &PreparedFileTrace,
    cfg: &FileSimConfig,
) -> Result<Vec<RunResult>> {
    if specs.iter().any(|s| s.levels[0].policy.info.name == "opt") {
        trace.prepare_oracle()?;
    }
    specs
        .par_iter()
        .map(|s| run_file_hierarchy(s, trace, cfg))
        .collect()
}
