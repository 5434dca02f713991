//! Read-ahead engines for file-level traces.
//!
//! A read-ahead engine sees each read() call and, for every demand block of the call, what the
//! cache lookup found; it answers with the file blocks to read ahead. It never touches the cache:
//! the engine skips blocks already resident, inserts the rest as prefetches and queues their I/O.

pub mod example;
pub mod linux24;

use crate::error::{Error, Result};
use std::ops::Range;

/// An open file description: process id and descriptor.
pub type Desc = (u32, u32);

/// What the cache lookup of a demand block found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Resident and its I/O complete.
    Hit,
    /// Resident but its I/O not complete (Linux: the page is locked).
    InFlight,
    /// Not resident.
    Miss,
}

/// One read() call as the read-ahead engine sees it.
#[derive(Copy, Clone, Debug)]
pub struct ReadCall {
    /// Byte offset in the file.
    pub offset: u64,
    /// Bytes read.
    pub len: u64,
    /// File length in bytes.
    pub file_size: u64,
}

/// A read-ahead policy, with state per open file.
pub trait ReadAhead: Send {
    /// Registry name.
    fn name(&self) -> &'static str;
    /// The descriptor was opened or rebound: start from scratch.
    fn reset(&mut self, d: Desc);
    /// The descriptor is gone (close, exit).
    fn forget(&mut self, d: Desc);
    /// A write on the descriptor (read-ahead state is reset; writes are never read ahead).
    fn on_write(&mut self, d: Desc) {
        self.reset(d);
    }
    /// A read() call begins.
    fn begin_read(&mut self, d: Desc, call: &ReadCall);
    /// Demand block `index` of the current call was looked up; returns the file blocks to read
    /// ahead (possibly empty). Blocks already resident in the range are skipped by the engine but
    /// still count as read ahead, as in the kernel.
    fn after_lookup(&mut self, d: Desc, index: u64, lookup: Lookup) -> Range<u64>;

    /// Read ahead only up to the first block already cached (so the read stays one cluster);
    /// the kernel engines skip cached blocks and go on.
    fn stops_at_first_cached(&self) -> bool {
        false
    }

    /// Stop reading ahead at a block whose insertion would evict the demand block or a block read
    /// ahead by the same call. The engine then leaves the read-ahead blocks unpinned and asks the
    /// policy for its victim before each insertion.
    fn stops_at_group_eviction(&self) -> bool {
        false
    }
}

/// No read-ahead: only demand blocks are read.
#[derive(Default)]
pub struct NoReadAhead;

impl ReadAhead for NoReadAhead {
    fn name(&self) -> &'static str {
        "none"
    }
    fn reset(&mut self, _d: Desc) {}
    fn forget(&mut self, _d: Desc) {}
    fn begin_read(&mut self, _d: Desc, _call: &ReadCall) {}
    fn after_lookup(&mut self, _d: Desc, _index: u64, _lookup: Lookup) -> Range<u64> {
        0..0
    }
}

/// Which read-ahead engine a run uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PrefetchKind {
    /// None.
    None,
    /// Linux 2.4 `generic_file_readahead` (the prefetching study's).
    Linux24,
    /// The simplified prefetcher of the study's Table 1 example.
    Example,
}

/// Names accepted by [`PrefetchKind::parse`].
pub const PREFETCH_NAMES: &[&str] = &["none", "linux24", "example"];

impl PrefetchKind {
    /// Parses a `--prefetch` value.
    pub fn parse(s: &str) -> Result<PrefetchKind> {
        match s {
            "none" | "off" => Ok(PrefetchKind::None),
            "linux24" | "linux-2.4" => Ok(PrefetchKind::Linux24),
            "example" => Ok(PrefetchKind::Example),
            _ => Err(Error::config(
                "--prefetch",
                s,
                format!(
                    "unknown read-ahead engine; expected one of {}",
                    PREFETCH_NAMES.join(", ")
                ),
            )),
        }
    }

    /// The name results carry.
    pub fn name(self) -> &'static str {
        match self {
            PrefetchKind::None => "none",
            PrefetchKind::Linux24 => "linux24",
            PrefetchKind::Example => "example",
        }
    }
}
