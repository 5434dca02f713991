//! Policies × sizes over a trace on the block engine, or on the file engine when its configuration
//! is given, and the file engine's form of a trace: building blocks of [`crate::run::run`], which
//! decides the engine.

use crate::cache_model::LevelSetup;
use crate::engine::RunResult;
use crate::error::Result;
use crate::filesim::{run_file_grid, FileSimConfig, PreparedFileTrace};
use crate::policy::registry::PolicySpec;
use crate::size::CacheSize;
use crate::stream::{run_block_grid_with, BlockSource};
use crate::trace::{Format, OpFilter, ReadOptions};
use std::path::Path;

/// The runs of one simulation and what was read.
#[derive(Clone, Debug)]
pub struct Simulation {
    /// One result per policy and size, policy-major.
    pub runs: Vec<RunResult>,
    /// Block references simulated.
    pub references: usize,
    /// Distinct blocks among them.
    pub unique: usize,
    /// The trace's name for reports.
    pub source: String,
}

/// The trace at `path` prepared for the file engine: a file-level trace as it is, a block-level
/// one read twice into runs of consecutive blocks as files ([`PreparedFileTrace::open_blocks`]).
pub fn load_file_engine_trace_with(
    path: &Path,
    format: &Format,
    opts: &ReadOptions,
    ops: OpFilter,
) -> Result<PreparedFileTrace> {
    if format.is_file_level() {
        return PreparedFileTrace::open_with(path, format, opts.block_size, opts.max_request_bytes);
    }
    PreparedFileTrace::open_blocks(path, format, opts, ops)
}

impl Simulation {
    /// The file engine's `runs` over `trace`.
    pub fn of_file_runs(runs: Vec<RunResult>, trace: &PreparedFileTrace) -> Simulation {
        Simulation {
            runs,
            references: trace.references,
            unique: trace.distinct,
            source: trace.source().to_string(),
        }
    }
}

/// Simulates every policy at every size over the trace at `path`: on the file engine with `file`'s
/// configuration when given (the caller, [`crate::run::run`], decides), else on the streaming
/// block engine. Runs in the current rayon pool.
// The block engine's settings travel as separate arguments until one configuration type holds
// them all (issue 25's "one configuration").
#[allow(clippy::too_many_arguments)]
pub fn simulate_with(
    path: &Path,
    format: &Format,
    opts: &ReadOptions,
    ops: OpFilter,
    specs: &[PolicySpec],
    sizes: &[CacheSize],
    file: Option<&FileSimConfig>,
    setup: &LevelSetup,
) -> Result<Simulation> {
    if let Some(cfg) = file {
        let trace = load_file_engine_trace_with(path, format, opts, ops)?;
        return Ok(Simulation::of_file_runs(
            run_file_grid(specs, sizes, &trace, cfg)?,
            &trace,
        ));
    }
    // Untimed block runs stream the trace (memory bounded by the caches and unique blocks).
    let source = BlockSource {
        path,
        format,
        opts,
        ops,
    };
    let grid = run_block_grid_with(&source, specs, sizes, setup)?;
    Ok(Simulation {
        runs: grid.runs,
        references: grid.references as usize,
        unique: grid.unique,
        source: grid.source,
    })
}
