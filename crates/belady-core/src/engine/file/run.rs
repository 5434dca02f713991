//! Runs over a prepared file-level trace: one policy at one size, or a grid whose runs share
//! each chunk of events as it is read (the trace is replayed once per group of runs, never
//! held whole when it came from a file).

use super::{cf, FileSim, FileSimConfig, IoStats, PreparedFileTrace, RunResult};
use crate::cache::cache_model::CacheModel;
use crate::cache::level::LevelStats;
use crate::cache::size::CacheSize;
use crate::engine::run_loop::{self, Stepper};
use crate::error::Result;
use crate::policy::registry::{PolicySpec, PolicyVisitor};
use crate::policy::Policy;
use crate::prefetch::clusterfetch::PrefetchStore;
use crate::run::rows::{CacheCapacity, CapacityUnit, RowParts};
use crate::trace::file::{FileEvent, FileEventKind};
use rayon::prelude::*;

/// What a finished run reports.
type Finished = (LevelStats, IoStats, Option<PrefetchStore>);

use crate::engine::grid::{in_groups, step_all, GROUP_PER_THREAD};

/// Runs every event of `trace` through `policy` with `capacity` blocks.
pub fn simulate_file<P: Policy>(
    policy: P,
    trace: &PreparedFileTrace,
    capacity: usize,
    cfg: &FileSimConfig,
) -> Result<(LevelStats, IoStats)> {
    let (stats, io, _) = simulate_file_with_store(policy, trace, capacity, cfg, None)?;
    Ok((stats, io))
}

/// Like [`simulate_file`], with ClusterFetch starting from `store` (empty when `None`); also
/// returns the store learned by the end of the run (when ClusterFetch is on).
pub fn simulate_file_with_store<P: Policy>(
    policy: P,
    trace: &PreparedFileTrace,
    capacity: usize,
    cfg: &FileSimConfig,
    store: Option<&PrefetchStore>,
) -> Result<Finished> {
    if policy.needs_oracle() {
        trace.prepare_oracle()?;
    }
    let mut sim = FileSim::new(policy, trace, capacity, cfg);
    if let Some(store) = store {
        sim.set_store(store.clone());
    }
    trace.for_each_chunk(|events| run_loop::drive(&mut sim, events))?;
    Ok(sim.finish_with_store())
}

/// The file engine steps through file events in the one loop ([`run_loop::drive`]).
impl<P: Policy> Stepper<FileEvent> for FileSim<'_, P> {
    /// Prefetches the frame-table and policy state of a read's first block.
    #[inline]
    fn hint(&mut self, _at: usize, ev: &FileEvent) {
        if let FileEventKind::Read { offset, len } = ev.kind {
            if len > 0 {
                let index = offset / self.cfg.block_size as u64;
                self.level.hint(self.trace.layout.block(ev.file, index));
            }
        }
    }

    #[inline]
    fn step(&mut self, _at: usize, ev: &FileEvent) {
        FileSim::step(self, ev);
    }
}

/// A run of a grid, fed chunk by chunk (the one dynamic call per chunk).
trait FileRunner: Send {
    fn feed(&mut self, events: &[FileEvent]);
    fn finish(self: Box<Self>) -> Finished;
}

impl<P: Policy> FileRunner for FileSim<'_, P> {
    fn feed(&mut self, events: &[FileEvent]) {
        run_loop::drive(self, events);
    }

    fn finish(self: Box<Self>) -> Finished {
        self.finish_with_store()
    }
}

struct MakeRunner<'a> {
    trace: &'a PreparedFileTrace,
    capacity: usize,
    cfg: &'a FileSimConfig,
    store: Option<&'a PrefetchStore>,
    /// Measure the launch window even without one set (the baseline of a ClusterFetch run).
    report_launch: bool,
}

impl<'a> PolicyVisitor for MakeRunner<'a> {
    type Output = Box<dyn FileRunner + 'a>;
    fn visit<P: Policy + 'static>(self, policy: P) -> Self::Output {
        let mut sim = FileSim::new(policy, self.trace, self.capacity, self.cfg);
        if let Some(store) = self.store {
            sim.set_store(store.clone());
        }
        if self.report_launch {
            sim.report_launch();
        }
        Box::new(sim)
    }
}

/// Runs one policy at one size over a file-level trace.
pub fn run_file_one(
    spec: &PolicySpec,
    trace: &PreparedFileTrace,
    capacity: usize,
    cfg: &FileSimConfig,
) -> Result<RunResult> {
    Ok(run_file_one_with_store(spec, trace, capacity, cfg, None)?.0)
}

/// Runs one policy at one size over a file-level trace with ClusterFetch starting from `store`;
/// returns the result and the store learned (when ClusterFetch is on). With ClusterFetch on, the
/// same run without it is simulated too, for coverage and the launch-time reduction.
pub fn run_file_one_with_store(
    spec: &PolicySpec,
    trace: &PreparedFileTrace,
    capacity: usize,
    cfg: &FileSimConfig,
    store: Option<&PrefetchStore>,
) -> Result<(RunResult, Option<PrefetchStore>)> {
    let capacity = CacheCapacity::blocks(capacity as u64);
    run_file_one_as(spec, trace, &capacity, cfg, store)
}

/// [`run_file_one_with_store`] at a capacity given as the user spelled it.
pub(crate) fn run_file_one_as(
    spec: &PolicySpec,
    trace: &PreparedFileTrace,
    given: &CacheCapacity,
    cfg: &FileSimConfig,
    store: Option<&PrefetchStore>,
) -> Result<(RunResult, Option<PrefetchStore>)> {
    cfg.validate_for(trace)?;
    if spec.info.name == "opt" {
        trace.prepare_oracle()?;
    }
    let capacity = given.amount as usize;
    let run = |cfg: &FileSimConfig, report_launch: bool| -> Result<Finished> {
        let make = MakeRunner {
            trace,
            capacity,
            cfg,
            store,
            report_launch,
        };
        let mut sim = crate::cache::builder::build(spec, capacity, trace.layout.universe(), make)?;
        trace.for_each_chunk(|events| sim.feed(events))?;
        Ok(sim.finish())
    };
    let (stats, mut io, learned) = run(cfg, false)?;
    if cfg.clusterfetch.is_some() {
        let without = FileSimConfig {
            clusterfetch: None,
            ..cfg.clone()
        };
        let (base_stats, base_io, _) = run(&without, true)?;
        cf::compare_with_baseline(&mut io, &base_stats, &base_io);
    }
    Ok((result(spec, given.clone(), trace, cfg, &stats, io), learned))
}

/// The row of a file-engine run.
fn result(
    spec: &PolicySpec,
    capacity: CacheCapacity,
    trace: &PreparedFileTrace,
    cfg: &FileSimConfig,
    stats: &LevelStats,
    io: IoStats,
) -> RunResult {
    RunResult::build(row_parts(trace, cfg, spec.label(), capacity, stats, io))
}

/// What the row of a run on the file engine says (a plain run's, or a hierarchy's with its
/// `levels` added): the trace, the blocks model, the admission filter and read-ahead of `cfg`.
pub(super) fn row_parts<'a>(
    trace: &'a PreparedFileTrace,
    cfg: &FileSimConfig,
    policy: String,
    capacity: CacheCapacity,
    counts: &'a LevelStats,
    io: IoStats,
) -> RowParts<'a> {
    RowParts {
        trace: trace.source(),
        policy,
        capacity,
        model: CacheModel::Blocks,
        block_size: trace.block_size,
        unique: trace.distinct as u64,
        admission: cfg
            .admission
            .as_ref()
            .map_or_else(|| "none".into(), ToString::to_string),
        prefetch: Some(cfg.prefetch_name()),
        counts,
        io,
        levels: None,
    }
}

/// Runs every policy at every size over a file-level trace, in grid order (policy-major). The
/// runs of a group step through each chunk of events together, in parallel over the current
/// rayon pool; results do not depend on the thread count.
pub fn run_file_grid(
    specs: &[PolicySpec],
    sizes: &[CacheSize],
    trace: &PreparedFileTrace,
    cfg: &FileSimConfig,
) -> Result<Vec<RunResult>> {
    cfg.validate_for(trace)?;
    let capacities: Vec<CacheCapacity> = sizes
        .iter()
        .map(|s| {
            let blocks = s.resolve(trace.distinct, trace.block_size)?;
            Ok(CacheCapacity::new(s, blocks as u64, CapacityUnit::Blocks))
        })
        .collect::<Result<_>>()?;
    if specs.iter().any(|s| s.info.name == "opt") {
        trace.prepare_oracle()?;
    }
    let cells: Vec<(&PolicySpec, &CacheCapacity)> = specs
        .iter()
        .flat_map(|s| capacities.iter().map(move |c| (s, c)))
        .collect();
    if cfg.clusterfetch.is_some() {
        // Two runs per cell (with and without ClusterFetch), each replaying the trace itself.
        return cells
            .par_iter()
            .map(|&(spec, c)| Ok(run_file_one_as(spec, trace, c, cfg, None)?.0))
            .collect();
    }
    let group = GROUP_PER_THREAD * rayon::current_num_threads().max(1);
    let build = |&(spec, given): &(&PolicySpec, &CacheCapacity)| {
        let capacity = given.amount as usize;
        let make = MakeRunner {
            trace,
            capacity,
            cfg,
            store: None,
            report_launch: false,
        };
        crate::cache::builder::build(spec, capacity, trace.layout.universe(), make)
    };
    let finished = in_groups(
        &cells,
        group,
        build,
        |_, runs| trace.for_each_chunk(|events| step_all(runs, events, |r, e| r.feed(e))),
        |run| run.finish(),
    )?;
    Ok(cells
        .iter()
        .zip(finished)
        .map(|(&(spec, c), (stats, io, _))| result(spec, c.clone(), trace, cfg, &stats, io))
        .collect())
}
