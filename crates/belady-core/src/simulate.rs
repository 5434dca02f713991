//! The file engine's form of a trace: a building block of [`crate::run::run`], which decides
//! the engine.

use crate::error::Result;
use crate::filesim::PreparedFileTrace;
use crate::trace::{Format, OpFilter, ReadOptions};
use std::path::Path;

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
