//! The simulation engine: runs block traces through cache levels, one or many runs at a time.
//!
//! A [`PreparedTrace`] is parsed once and shared by every run; the oracle OPT needs is computed
//! at most once, on first use. [`run_grid`] spreads the runs of a policy × size grid over the
//! rayon pool and returns results in grid order, so output is the same for any thread count.

use crate::error::Result;
use crate::level::{CacheLevel, LevelStats};
use crate::policy::registry::{self, PolicySpec, PolicyVisitor};
use crate::policy::{Policy, NEVER};
pub use crate::report::RunResult;
use crate::size::CacheSize;
use crate::trace::dense::{self, BlockTrace};
use rayon::prelude::*;
use std::sync::OnceLock;

/// A trace ready for simulation, with lazily computed next-use oracle.
pub struct PreparedTrace {
    /// The trace.
    pub trace: BlockTrace,
    next_uses: OnceLock<Vec<u32>>,
}

impl PreparedTrace {
    /// Wraps a loaded trace.
    pub fn new(trace: BlockTrace) -> Self {
        PreparedTrace {
            trace,
            next_uses: OnceLock::new(),
        }
    }

    /// Computes [`PreparedTrace::next_uses`] now, so memory it cannot have is an error here.
    pub fn prepare_next_uses(&self) -> Result<()> {
        if self.next_uses.get().is_none() {
            let (next, _) = self.trace.try_next_uses()?;
            let _ = self.next_uses.set(next);
        }
        Ok(())
    }

    /// Position of each reference's next reference to the same block.
    pub fn next_uses(&self) -> &[u32] {
        self.next_uses.get_or_init(|| self.trace.next_uses().0)
    }

    /// Distinct blocks in the trace.
    pub fn unique(&self) -> usize {
        self.trace.unique()
    }
}

/// Runs every demand reference of `trace` through `policy` with `capacity` blocks.
pub fn simulate<P: Policy>(policy: P, trace: &PreparedTrace, capacity: usize) -> LevelStats {
    let mut level = CacheLevel::new(policy, capacity, trace.unique());
    if level.policy.needs_oracle() {
        for (&b, &n) in trace.trace.refs.iter().zip(trace.next_uses()) {
            level.access(b, if n == dense::NEVER { NEVER } else { n as u64 });
        }
    } else {
        for &b in &trace.trace.refs {
            level.access(b, NEVER);
        }
    }
    level.into_stats()
}

struct Simulate<'a> {
    trace: &'a PreparedTrace,
    capacity: usize,
}

impl PolicyVisitor for Simulate<'_> {
    type Output = LevelStats;
    fn visit<P: Policy>(self, policy: P) -> LevelStats {
        simulate(policy, self.trace, self.capacity)
    }
}

/// Runs one policy at one size.
pub fn run_one(spec: &PolicySpec, trace: &PreparedTrace, capacity: usize) -> Result<RunResult> {
    let stats = registry::build(spec, capacity, trace.unique(), Simulate { trace, capacity })?;
    Ok(RunResult {
        trace: trace.trace.source.clone(),
        policy: spec.label(),
        cache_blocks: capacity as u64,
        block_size: trace.trace.block_size,
        unique_blocks: trace.unique() as u64,
        requests: stats.requests,
        hits: stats.hits,
        misses: stats.misses,
        hit_ratio: stats.hit_ratio(),
        evictions: stats.evictions,
        prefetch: None,
        io: Some(demand_io(stats.misses)),
        levels: None,
    })
}

/// The I/O counters of a run without read-ahead or clustering: each miss is one synchronous
/// one-block disk read, so every row carries the same `disk_requests` and sync/async keys.
pub fn demand_io(misses: u64) -> crate::report::IoStats {
    crate::report::IoStats {
        disk_requests: misses,
        sync_requests: misses,
        sync_blocks: misses,
        sync_blocks_per_request: if misses > 0 { 1.0 } else { 0.0 },
        ..Default::default()
    }
}

/// Runs every policy at every size in parallel; results come policy-major, in the order given.
pub fn run_grid(
    specs: &[PolicySpec],
    sizes: &[CacheSize],
    trace: &PreparedTrace,
) -> Result<Vec<RunResult>> {
    let capacities: Vec<usize> = sizes
        .iter()
        .map(|s| s.resolve(trace.unique(), trace.trace.block_size))
        .collect::<Result<_>>()?;
    if specs.iter().any(|s| s.info.name == "opt") {
        trace.prepare_next_uses()?;
    }
    let grid: Vec<(&PolicySpec, usize)> = specs
        .iter()
        .flat_map(|s| capacities.iter().map(move |&c| (s, c)))
        .collect();
    grid.par_iter()
        .map(|&(spec, capacity)| run_one(spec, trace, capacity))
        .collect()
}
