//! Runs over a prepared file-level trace: one policy at one size, or a grid whose runs share
//! each chunk of events as it is read (the trace is replayed once per group of runs, never
//! held whole when it came from a file).

use super::{cf, FileSim, FileSimConfig, IoStats, PreparedFileTrace, RunResult};
use crate::cache::level::LevelStats;
use crate::cache::size::CacheSize;
use crate::engine::run_loop::{self, Stepper};
use crate::error::Result;
use crate::policy::registry::{PolicySpec, PolicyVisitor};
use crate::policy::Policy;
use crate::prefetch::clusterfetch::PrefetchStore;
use crate::trace::file::{FileEvent, FileEventKind};
use rayon::prelude::*;

/// What a finished run reports.
type Finished = (LevelStats, IoStats, Option<PrefetchStore>);

use crate::engine::grid::{in_groups, step_all, Runner, GROUP_PER_THREAD};

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

/// A run of the file engine's grid: fed chunks of file events (one dynamic call per chunk).
type FileRunner<'a> = dyn for<'e> Runner<&'e [FileEvent], Finished> + 'a;

impl<P: Policy> Runner<&[FileEvent], Finished> for FileSim<'_, P> {
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
    type Output = Box<FileRunner<'a>>;
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
    cfg.validate_for(trace)?;
    if spec.info.name == "opt" {
        trace.prepare_oracle()?;
    }
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
    Ok((result(spec, capacity, trace, cfg, stats, io), learned))
}

fn result(
    spec: &PolicySpec,
    capacity: usize,
    trace: &PreparedFileTrace,
    cfg: &FileSimConfig,
    stats: LevelStats,
    io: IoStats,
) -> RunResult {
    RunResult {
        trace: trace.source().to_string(),
        policy: spec.label(),
        cache_blocks: capacity as u64,
        block_size: trace.block_size,
        unique_blocks: trace.distinct as u64,
        requests: stats.requests,
        hits: stats.hits,
        misses: stats.misses,
        hit_ratio: stats.hit_ratio(),
        evictions: stats.evictions,
        prefetch: Some(cfg.prefetch_name()),
        admission: cfg
            .admission
            .as_ref()
            .map_or_else(|| "none".into(), ToString::to_string),
        io: Some(io),
        levels: None,
        ..Default::default()
    }
    .with_block_bytes()
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
    let capacities: Vec<usize> = sizes
        .iter()
        .map(|s| s.resolve(trace.distinct, trace.block_size))
        .collect::<Result<_>>()?;
    if specs.iter().any(|s| s.info.name == "opt") {
        trace.prepare_oracle()?;
    }
    let cells: Vec<(&PolicySpec, usize)> = specs
        .iter()
        .flat_map(|s| capacities.iter().map(move |&c| (s, c)))
        .collect();
    if cfg.clusterfetch.is_some() {
        // Two runs per cell (with and without ClusterFetch), each replaying the trace itself.
        return cells
            .par_iter()
            .map(|&(spec, c)| run_file_one(spec, trace, c, cfg))
            .collect();
    }
    let group = GROUP_PER_THREAD * rayon::current_num_threads().max(1);
    let build = |&(spec, capacity): &(&PolicySpec, usize)| {
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
        .map(|(&(spec, c), (stats, io, _))| result(spec, c, trace, cfg, stats, io))
        .collect())
}
