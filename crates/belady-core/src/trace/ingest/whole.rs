//! A trace loaded whole into a [`BlockTrace`] (what OPT's next uses, MRC's samples and the
//! trace statistics need): each format by its fastest way, LIRS and ARC text through the same
//! parser and mapper as streaming.

use super::{expected_ids, text, Mapper, Spool};
use crate::error::{Error, Result};
use crate::trace::format::Ingest;
use crate::trace::{native, open_requests, BlockTrace, Format, OpFilter, ReadOptions};
use std::path::Path;

impl BlockTrace {
    /// Reads `path` in `format`, keeping the requests `filter` selects. Timestamps are dropped
    /// from text traces (nothing but a timed run needs them; see [`BlockTrace::load_timed`]).
    pub fn load(
        path: &Path,
        format: &Format,
        opts: &ReadOptions,
        filter: OpFilter,
    ) -> Result<BlockTrace> {
        Self::load_with(path, format, opts, filter, false)
    }

    /// [`BlockTrace::load`] keeping each reference's time when the trace records any, as a
    /// native file converted from it does: a timed run over it then sees the same think times
    /// whatever the format or path it came by.
    pub fn load_timed(
        path: &Path,
        format: &Format,
        opts: &ReadOptions,
        filter: OpFilter,
    ) -> Result<BlockTrace> {
        Self::load_with(path, format, opts, filter, true)
    }

    fn load_with(
        path: &Path,
        format: &Format,
        opts: &ReadOptions,
        filter: OpFilter,
        keep_times: bool,
    ) -> Result<BlockTrace> {
        let trace = if let Ingest::Native = format.row().ingest {
            native::load(path)?.filtered(filter)
        } else if let Ingest::Text = format.row().ingest {
            // Text carries no times or writes: the streaming parser, kept whole, is the fast way.
            load_text(path, format, opts, filter)?
        } else {
            let stream = open_requests(path, format, opts)?;
            let source = path.display().to_string();
            if format.has_object_sizes() {
                BlockTrace::from_sized_requests(
                    stream,
                    filter,
                    keep_times,
                    source,
                    opts.block_size,
                )?
            } else {
                BlockTrace::from_requests(stream, filter, keep_times, source, opts.block_size)?
            }
        };
        if trace.refs.is_empty() {
            return Err(Error::EmptyTrace {
                path: path.display().to_string(),
                what: filter.noun().to_string(),
            });
        }
        Ok(trace)
    }
}

/// Loads a LIRS or ARC trace whole, through the same parser and mapper as streaming (so the
/// same dense ids, errors and line numbers), keeping the ids in memory: what OPT and the other
/// whole-trace users get instead of the line-by-line readers.
fn load_text(
    path: &Path,
    format: &Format,
    opts: &ReadOptions,
    ops: OpFilter,
) -> Result<BlockTrace> {
    let source = path.display().to_string();
    let mut mapper = Mapper::with_capacity(expected_ids(path));
    let mut spool = Spool::whole(source.clone());
    text::parse(path, format, opts, ops, &mut mapper, &mut spool)?;
    Ok(BlockTrace {
        originals: mapper.originals()?,
        refs: spool.ids,
        source,
        block_size: opts.block_size,
        write_mask: None,
        times: None,
        sizes: None,
    })
}
