//! One call that simulates policies × sizes over a trace with whichever engine the trace and the
//! options need: what `belady sim` and `belady.simulate` (Python) both do.

use crate::engine::RunResult;
use crate::error::Result;
use crate::filesim::{run_file_grid, FileSimConfig, PreparedFileTrace};
use crate::policy::registry::PolicySpec;
use crate::size::CacheSize;
use crate::stream::{run_block_grid, BlockSource};
use crate::trace::{load_file_trace, BlockTrace, Format, OpFilter, ReadOptions};
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

/// Simulates every policy at every size over the trace at `path`. File-level formats always use
/// the file engine; block formats use it when `file` is given (read-ahead, clustering, timing),
/// else the block engine. Runs in the current rayon pool.
pub fn simulate(
    path: &Path,
    format: &Format,
    block_size: u32,
    ops: OpFilter,
    specs: &[PolicySpec],
    sizes: &[CacheSize],
    file: Option<&FileSimConfig>,
) -> Result<Simulation> {
    let opts = ReadOptions::with_block_size(block_size);
    simulate_with(path, format, &opts, ops, specs, sizes, file)
}

/// [`simulate`] with every reader setting (such as the request limit) given.
pub fn simulate_with(
    path: &Path,
    format: &Format,
    opts: &ReadOptions,
    ops: OpFilter,
    specs: &[PolicySpec],
    sizes: &[CacheSize],
    file: Option<&FileSimConfig>,
) -> Result<Simulation> {
    let block_size = opts.block_size;
    let files = |trace: PreparedFileTrace, cfg: &FileSimConfig| -> Result<Simulation> {
        let runs = run_file_grid(specs, sizes, &trace, cfg)?;
        Ok(Simulation {
            runs,
            references: trace.refs.len(),
            unique: trace.distinct,
            source: trace.trace.source.clone(),
        })
    };
    if format.is_file_level() {
        let default = FileSimConfig {
            block_size,
            ..FileSimConfig::default()
        };
        let trace = PreparedFileTrace::new(load_file_trace(path, format)?, block_size)?;
        return files(trace, file.unwrap_or(&default));
    }
    if let Some(cfg) = file {
        let blocks = BlockTrace::load(path, format, opts, ops)?;
        // Read-ahead, clustering and timing on a block trace: runs of consecutive ids act as files.
        return files(PreparedFileTrace::from_block_trace(&blocks)?, cfg);
    }
    // Untimed block runs stream the trace (memory bounded by the caches and unique blocks).
    let source = BlockSource {
        path,
        format,
        opts,
        ops,
    };
    let grid = run_block_grid(&source, specs, sizes)?;
    Ok(Simulation {
        runs: grid.runs,
        references: grid.references as usize,
        unique: grid.unique,
        source: grid.source,
    })
}
