//! The untimed simulation engine: the one loop that feeds requests to a cache level
//! ([`run_loop`]), the one grid runner that feeds every run of a policy × size grid the same
//! chunks (`grid.rs`), and the loaded-trace entries built on them.
//!
//! A [`PreparedTrace`] is parsed once and shared by every run; the oracle OPT needs is computed
//! at most once, on first use. [`run_grid`] runs a grid over it in the rayon pool and returns
//! results in grid order, so output is the same for any thread count; streamed traces go
//! through the same runner from [`crate::engine::block::run_block_grid`].

pub mod block;
pub mod file;
pub(crate) mod grid;
pub mod hierarchy;
pub mod run_loop;

use crate::cache::cache_model::{CacheModel, Capacity, LevelSetup};
use crate::cache::level::{CacheLevel, LevelStats};
use crate::cache::size::CacheSize;
use crate::error::Result;
use crate::policy::registry::PolicySpec;
use crate::policy::Policy;
pub use crate::run::rows::RunResult;
use crate::run::rows::{CacheCapacity, CapacityUnit, IoStats, RowParts};
use crate::trace::dense::BlockTrace;
use grid::{Cell, Levels, Source};
pub use run_loop::Requests;
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

    /// The whole trace as one run of requests, with `sizes` and, when `oracle`, the next uses
    /// (computed now if they were not).
    pub fn requests<'a>(&'a self, sizes: Option<&'a [u32]>, oracle: bool) -> Requests<'a> {
        Requests {
            ids: &self.trace.refs,
            sizes,
            next_uses: oracle.then(|| self.next_uses()),
        }
    }
}

/// Runs every demand reference of `trace` through `policy` with `capacity` blocks.
pub fn simulate<P: Policy>(policy: P, trace: &PreparedTrace, capacity: usize) -> LevelStats {
    let oracle = policy.needs_oracle();
    let mut level = CacheLevel::new(policy, capacity, trace.unique());
    run_loop::feed(&mut level, trace.requests(None, oracle));
    level.into_stats()
}

/// Whether `spec` needs each reference's next use (OPT), which only a loaded trace has.
pub(crate) fn needs_next_uses(spec: &PolicySpec) -> bool {
    spec.info.name == "opt"
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
    let cells = [(spec, capacity)];
    let given = if capacity.weighted {
        CacheSize::Bytes(capacity.units as u64)
    } else {
        CacheSize::Blocks(capacity.units as u64)
    };
    Ok(run_loaded(&cells, &[given], trace, model, setup)?
        .pop()
        .expect("one cell, one row"))
}

/// Runs every cell over the loaded trace through the one grid runner; rows in cell order, each
/// cell's size as given in `given`.
fn run_loaded(
    cells: &[Cell],
    given: &[CacheSize],
    trace: &PreparedTrace,
    model: CacheModel,
    setup: &LevelSetup,
) -> Result<Vec<RunResult>> {
    let oracle = cells.iter().any(|(s, _)| needs_next_uses(s));
    if oracle {
        trace.prepare_next_uses()?;
    }
    let sizes = match model {
        CacheModel::Objects => trace_sizes(&trace.trace),
        CacheModel::Blocks => None,
    };
    let levels = Levels {
        universe: trace.unique(),
        setup,
        unit_bytes: unit_bytes(model, trace.trace.block_size),
    };
    let stats = grid::run_cells(Source::Loaded(trace.requests(sizes, oracle)), cells, levels)?;
    Ok(cells
        .iter()
        .zip(given)
        .zip(&stats)
        .map(|((&(spec, capacity), size), stats)| {
            row(
                &trace.trace.source,
                spec,
                size,
                &capacity,
                model,
                setup,
                trace.trace.block_size,
                trace.unique(),
                stats,
            )
        })
        .collect())
}

/// Runs the cells `(policy, blocks)` over `trace` in the blocks model with nothing but the
/// policy and size set (MRC's full simulations); each run's counters, in cell order.
pub(crate) fn run_block_cells(
    cells: &[(&PolicySpec, usize)],
    trace: &PreparedTrace,
) -> Result<Vec<LevelStats>> {
    let cells: Vec<Cell> = cells
        .iter()
        .map(|&(spec, blocks)| {
            let capacity = Capacity {
                units: blocks,
                weighted: false,
                entries: blocks,
            };
            (spec, capacity)
        })
        .collect();
    let oracle = cells.iter().any(|(s, _)| needs_next_uses(s));
    if oracle {
        trace.prepare_next_uses()?;
    }
    let setup = LevelSetup::default();
    let levels = Levels {
        universe: trace.unique(),
        setup: &setup,
        unit_bytes: unit_bytes(CacheModel::Blocks, trace.trace.block_size),
    };
    grid::run_cells(Source::Loaded(trace.requests(None, oracle)), &cells, levels)
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
        specs
            .iter()
            .try_for_each(crate::cache::builder::check_weighs)?;
    }
    let grid: Vec<Cell> = specs
        .iter()
        .flat_map(|s| capacities.iter().map(move |&c| (s, c)))
        .collect();
    let given: Vec<CacheSize> = specs.iter().flat_map(|_| sizes.iter().cloned()).collect();
    run_loaded(&grid, &given, trace, model, setup)
}

/// Bytes one unit of admitted size stands for: a block's in the blocks model; in the objects
/// model the level hands the admission filter each object's bytes, counted or weighed.
pub(crate) fn unit_bytes(model: CacheModel, block_size: u32) -> u64 {
    match model {
        CacheModel::Blocks => block_size as u64,
        CacheModel::Objects => 1,
    }
}

/// One row from a run's counters: the grid's cell (policy, size as given, resolved capacity)
/// with its model and level setup.
#[allow(clippy::too_many_arguments)]
pub(crate) fn row(
    trace: &str,
    spec: &PolicySpec,
    size: &CacheSize,
    capacity: &Capacity,
    model: CacheModel,
    setup: &LevelSetup,
    block_size: u32,
    unique: usize,
    stats: &LevelStats,
) -> RunResult {
    let unit = match (model, capacity.weighted) {
        (CacheModel::Blocks, _) => CapacityUnit::Blocks,
        (CacheModel::Objects, false) => CapacityUnit::Objects,
        (CacheModel::Objects, true) => CapacityUnit::Bytes,
    };
    RunResult::build(RowParts {
        trace,
        policy: spec.label(),
        capacity: CacheCapacity::new(size, capacity.units as u64, unit),
        model,
        block_size,
        unique: unique as u64,
        admission: setup.admission_label(),
        prefetch: None,
        counts: stats,
        io: IoStats::demand(stats.misses),
        levels: None,
    })
}
