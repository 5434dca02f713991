//! Read-ahead engines for file-level traces.
//!
//! A read-ahead engine sees each read() call and, for every demand block of the call, what the
//! cache lookup found; it answers with the file blocks to read ahead. It never touches the cache:
//! the engine skips blocks already resident, inserts the rest as prefetches and queues their I/O.

pub mod bsd;
pub mod clusterfetch;
pub mod example;
pub mod linux24;
pub mod linux26;
pub mod ondemand;

use crate::error::{Error, Result};
use std::ops::Range;

/// An open file description: process id and descriptor.
pub type Desc = (u32, u32);

/// What the cache lookup of a demand block found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Resident and its I/O complete.
    Hit,
    /// Resident and flagged as a read-ahead trigger (Linux's PG_readahead); the flag is now clear.
    HitMarked,
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

/// What a read-ahead engine asks for after a lookup.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// File blocks to read ahead; cached ones are skipped (or end the read, see
    /// [`ReadAhead::stops_at_first_cached`]).
    pub range: Range<u64>,
    /// A block of the range to flag as the next asynchronous trigger, if newly read.
    pub marker: Option<u64>,
    /// The last block the read-ahead window covers after this decision (Linux 2.4's local
    /// `raend`), for engines that reference the call's later demand blocks up to it without
    /// asking again (AccuSim, `window-covers-call`).
    pub window_end: Option<u64>,
}

impl Plan {
    /// Read `range`, no trigger.
    pub fn read(range: Range<u64>) -> Plan {
        Plan {
            range,
            ..Plan::default()
        }
    }

    /// Nothing to read.
    pub fn nothing() -> Plan {
        Plan::default()
    }
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
    /// Demand block `index` of the current call was looked up; returns what to read ahead.
    /// `cached(j)` tells whether block `j` of the same file is resident. Blocks already resident
    /// in the range are skipped by the engine but still count as read ahead, as in the kernel.
    fn after_lookup(
        &mut self,
        d: Desc,
        index: u64,
        lookup: Lookup,
        cached: &dyn Fn(u64) -> bool,
    ) -> Plan;

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
    fn after_lookup(
        &mut self,
        _d: Desc,
        _index: u64,
        _lookup: Lookup,
        _cached: &dyn Fn(u64) -> bool,
    ) -> Plan {
        Plan::nothing()
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
    /// Linux 2.6.11 current/ahead windows (`page_cache_readahead`).
    Linux26,
    /// Modern Linux on-demand read-ahead with PG_readahead markers (`ondemand_readahead`).
    Ondemand,
    /// 4.4BSD `cluster_read`.
    Bsd,
}

/// Names accepted by [`PrefetchKind::parse`].
pub const PREFETCH_NAMES: &[&str] = &["none", "linux24", "linux26", "ondemand", "bsd", "example"];

impl PrefetchKind {
    /// Parses a `--prefetch` value.
    pub fn parse(s: &str) -> Result<PrefetchKind> {
        match s {
            "none" | "off" => Ok(PrefetchKind::None),
            "linux24" | "linux-2.4" => Ok(PrefetchKind::Linux24),
            "example" => Ok(PrefetchKind::Example),
            "linux26" | "linux-2.6" => Ok(PrefetchKind::Linux26),
            "ondemand" => Ok(PrefetchKind::Ondemand),
            "bsd" | "4.4bsd" => Ok(PrefetchKind::Bsd),
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
            PrefetchKind::Linux26 => "linux26",
            PrefetchKind::Ondemand => "ondemand",
            PrefetchKind::Bsd => "bsd",
        }
    }
}
