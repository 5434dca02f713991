//! Reading a trace into a [`SizedTrace`]: its requests as objects with sizes.
//!
//! - Object traces (oracleGeneral, lcs, a native file that kept their sizes): each request is
//!   its object (records of size 0 are skipped, as everywhere in belady); an object keeps the size
//!   of its first request ([`super::model`]).
//! - Block traces (csv presets such as msr, systor, tencent, cloudphysics; lirs, arc, u32): each
//!   request is one object, named by its first block (and device) and sized by the bytes it
//!   asks for, as libCacheSim reads a block trace (object id = offset, size = the request's
//!   size); a trace without a size column asks for its blocks times the block size.
//! - A native file without sizes: each reference is one block of the block size.
//!
//! File-level traces (accusim, events) are refused: their reads are not objects.

use super::model::{Linker, SizedTrace};
use crate::error::{Error, Result};
use crate::trace::ingest::{self, Mapper};
use crate::trace::{open_requests, Format, OpFilter, ReadOptions};
use std::path::Path;

/// The most requests a trace may have: positions are 32-bit.
const MAX_REQUESTS: usize = u32::MAX as usize - 1;

/// Reads the requests `ops` keeps from the trace at `path`; returns the trace and its name.
pub fn load(
    path: &Path,
    format: &Format,
    opts: &ReadOptions,
    ops: OpFilter,
) -> Result<(SizedTrace, String)> {
    let name = path.display().to_string();
    if format.is_file_level() {
        return Err(Error::config(
            "format",
            format.name(),
            "bounds reads object and block traces; a file-level trace's reads are not objects \
             (convert it to a block trace first)",
        ));
    }
    let too_long = || {
        Error::config(
            "trace",
            &name,
            format!("more than {MAX_REQUESTS} requests are not supported"),
        )
    };
    let trace = match format {
        Format::OracleGeneral | Format::Lcs | Format::Native => {
            let mut feed = ingest::ingest_sized(path, format, opts, ops)?;
            if feed.refs > MAX_REQUESTS as u64 {
                return Err(too_long());
            }
            let mut linker = Linker::new(feed.unique);
            linker.reserve(feed.refs as usize);
            if feed.has_sizes() {
                while let Some((ids, sizes)) = feed.next_sized_chunk()? {
                    for (&id, &size) in ids.iter().zip(sizes) {
                        linker.push(id, size);
                    }
                }
            } else {
                let size = feed.block_size.max(1);
                while let Some(ids) = feed.next_chunk()? {
                    for &id in ids {
                        linker.push(id, size);
                    }
                }
            }
            linker.finish()
        }
        _ => {
            let mut mapper = Mapper::with_capacity(0);
            let mut linker = Linker::new(0);
            for req in open_requests(path, format, opts)? {
                let req = req?;
                if !ops.keeps(req.op) || req.bytes == 0 {
                    continue;
                }
                let size = u32::try_from(req.bytes).map_err(|_| {
                    Error::config(
                        "trace",
                        &name,
                        format!(
                            "a request of {} bytes at block {}: object sizes above {} bytes are not supported",
                            req.bytes,
                            req.block,
                            u32::MAX
                        ),
                    )
                })?;
                if linker.len() >= MAX_REQUESTS {
                    return Err(too_long());
                }
                let id = mapper.map(req.block);
                if id as usize >= mapper.unique().max(1) - 1 {
                    linker.grow((mapper.unique() * 2).max(1024));
                }
                linker.push(id, size);
            }
            linker.finish()
        }
    };
    if trace.requests() == 0 {
        return Err(Error::EmptyTrace {
            path: name,
            what: ops.noun().to_string(),
        });
    }
    Ok((trace, name))
}
