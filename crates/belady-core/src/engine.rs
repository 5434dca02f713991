//! The simulation engine: runs block traces through cache levels, one or many runs at a time.
//!
//! A [`PreparedTrace`] is parsed once and shared by every run; the oracle OPT needs is computed
//! at most once, on first use. [`run_grid`] spreads the runs of a policy × size grid over the
//! rayon pool and returns results in grid order, so output is the same for any thread count.

use crate::cache_model::{CacheModel, Capacity, LevelSetup};
use crate::error::Result;
use crate::level::{CacheLevel, LevelStats};
use crate::policy::registry::{self, PolicySpec, PolicyVisitor};
use crate::policy::{Policy, NEVER};
pub use crate::report::RunResult;
use crate::size::CacheSize;
use crate::stream::{row, unit_bytes, MakeLevel};
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
    feed(
        CacheLevel::new(policy, capacity, trace.unique()),
        trace,
        None,
    )
}

/// Feeds every demand reference of `trace` to `level`, with each reference's object size when
/// `sizes` is given (the objects model), and returns the level's counters.
fn feed<P: Policy>(
    mut level: CacheLevel<P>,
    trace: &PreparedTrace,
    sizes: Option<&[u32]>,
) -> LevelStats {
    let refs = &trace.trace.refs;
    let oracle = |n: u32| if n == dense::NEVER { NEVER } else { n as u64 };
    match (level.policy.needs_oracle(), sizes) {
        (true, None) => {
            for (&b, &n) in refs.iter().zip(trace.next_uses()) {
                level.access(b, oracle(n));
            }
        }
        (false, None) => {
            for &b in refs {
                level.access(b, NEVER);
            }
        }
        (true, Some(sizes)) => {
            for ((&b, &n), &size) in refs.iter().zip(trace.next_uses()).zip(sizes) {
                level.access_sized(b, size, oracle(n));
            }
        }
        (false, Some(sizes)) => {
            for (&b, &size) in refs.iter().zip(sizes) {
                level.access_sized(b, size, NEVER);
            }
        }
    }
    level.into_stats()
}

struct Simulate<'a> {
    trace: &'a PreparedTrace,
    make: MakeLevel,
    sizes: Option<&'a [u32]>,
}

impl PolicyVisitor for Simulate<'_> {
    type Output = LevelStats;
    fn visit<P: Policy>(self, policy: P) -> LevelStats {
        feed(self.make.level(policy), self.trace, self.sizes)
    }
}

/// Runs one policy at one size.
pub fn run_one(spec: &PolicySpec, trace: &PreparedTrace, capacity: usize) -> Result<RunResult> {
    let capacity = Capacity {
        units: capacity,
        weighted: false,
        entries: capacity,
    };
    run_one_with(
        spec,
        trace,
        capacity,
        CacheModel::Blocks,
        &LevelSetup::default(),
    )
}

/// Runs one policy at one resolved capacity under `model` and `setup`.
pub fn run_one_with(
    spec: &PolicySpec,
    trace: &PreparedTrace,
    capacity: Capacity,
    model: CacheModel,
    setup: &LevelSetup,
) -> Result<RunResult> {
    let sizes = match model {
        CacheModel::Objects => trace_sizes(&trace.trace),
        CacheModel::Blocks => None,
    };
    let unit_bytes = unit_bytes(model, trace.trace.block_size);
    let make = MakeLevel {
        capacity,
        universe: trace.unique(),
        admission: setup.admission_for(&capacity, unit_bytes),
    };
    let stats = registry::build_for(
        spec,
        &capacity,
        trace.unique(),
        Simulate { trace, make, sizes },
    )?;
    Ok(row(
        &trace.trace.source,
        spec,
        &capacity,
        model,
        setup,
        trace.trace.block_size,
        trace.unique(),
        &stats,
    ))
}

/// Each reference's object size, when the trace kept them.
fn trace_sizes(trace: &BlockTrace) -> Option<&[u32]> {
    trace.sizes.as_deref()
}

/// The trace's byte footprint, when it kept object sizes (each object's size at its first
/// reference, summed: libCacheSim's working-set size).
fn trace_footprint(trace: &BlockTrace) -> Option<u64> {
    trace.size_totals().map(|t| t.footprint)
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
    run_grid_with(specs, sizes, trace, &LevelSetup::default())
}

/// [`run_grid`] with a cache model and an admission filter.
pub fn run_grid_with(
    specs: &[PolicySpec],
    sizes: &[CacheSize],
    trace: &PreparedTrace,
    setup: &LevelSetup,
) -> Result<Vec<RunResult>> {
    let sized = trace_sizes(&trace.trace).is_some();
    let model = CacheModel::choose(setup.model.as_deref(), sized)?;
    model.check_run(sized, false, false)?;
    let footprint = trace_footprint(&trace.trace);
    let capacities: Vec<Capacity> = sizes
        .iter()
        .map(|s| Capacity::resolve(s, model, trace.unique(), trace.trace.block_size, footprint))
        .collect::<Result<_>>()?;
    if capacities.iter().any(|c| c.weighted) {
        specs.iter().try_for_each(registry::check_weighs)?;
    }
    if specs.iter().any(|s| s.info.name == "opt") {
        trace.prepare_next_uses()?;
    }
    let grid: Vec<(&PolicySpec, Capacity)> = specs
        .iter()
        .flat_map(|s| capacities.iter().map(move |&c| (s, c)))
        .collect();
    grid.par_iter()
        .map(|&(spec, capacity)| run_one_with(spec, trace, capacity, model, setup))
        .collect()
}
