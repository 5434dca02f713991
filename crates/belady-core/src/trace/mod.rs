//! Trace model and readers.
//!
//! Two request models: a block-level stream ([`BlockRequest`]) and a file-level event stream
//! ([`file::FileEvent`]), which read-ahead needs because it works on offsets within open files.
//! Every reader streams in constant memory; [`dense::BlockTrace`] then maps block ids to dense
//! indices once so that every simulation over the trace runs on flat arrays.

pub mod accusim;
pub mod binary;
pub mod csv;
pub mod dense;
pub mod events;
pub mod export;
pub mod file;
pub mod format;
pub mod ingest;
pub mod input;
pub mod lcs;
pub mod merge;
pub mod native;
pub mod oracle_general;
pub mod strace;
pub mod text;

use crate::error::{Error, Result};

pub use dense::BlockTrace;
pub use format::{
    detect_format, load_file_trace, load_file_trace_with, open_requests, Format, FORMATS,
    FORMAT_NAMES,
};

/// Direction of a request.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// Data read from the device.
    Read,
    /// Data written to the device.
    Write,
}

/// One block-level request: `count` consecutive blocks starting at `block`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BlockRequest {
    /// First block id (already in units of the trace's block size).
    pub block: u64,
    /// Number of consecutive blocks, at least 1.
    pub count: u32,
    /// Read or write.
    pub op: Op,
    /// Time of the request in nanoseconds, when the trace records it.
    pub time_ns: Option<u64>,
    /// Bytes the request asks for: the object's size in an object trace (oracleGeneral, lcs),
    /// the recorded length in a block trace that records one (MSR, SYSTOR, Tencent, CSV with a
    /// size column, events and AccuSim lengths), else `count * block_size`.
    pub bytes: u64,
}

/// Byte totals of a trace whose references carry object sizes, as libCacheSim counts them.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SizeTotals {
    /// Sum of every kept reference's object size.
    pub requested: u64,
    /// Sum over distinct objects of the size each had at its first kept reference: the byte
    /// working set libCacheSim's `cal_working_set_size` computes (it adds an object's size the
    /// first time it sees the object and ignores later sizes).
    pub footprint: u64,
}

/// A boxed stream of block requests, as every block-level reader yields.
pub type RequestStream = Box<dyn Iterator<Item = Result<BlockRequest>> + Send>;

/// Which request directions a simulation keeps.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpFilter {
    /// Reads only (the default: a buffer cache's read hit ratio).
    #[default]
    Read,
    /// Writes only.
    Write,
    /// Reads and writes alike.
    All,
}

impl OpFilter {
    /// Whether a request of direction `op` is kept.
    pub fn keeps(self, op: Op) -> bool {
        match self {
            OpFilter::Read => op == Op::Read,
            OpFilter::Write => op == Op::Write,
            OpFilter::All => true,
        }
    }

    /// Parses `read`, `write` or `all`.
    pub fn parse(s: &str) -> Result<OpFilter> {
        match s {
            "read" | "reads" => Ok(OpFilter::Read),
            "write" | "writes" => Ok(OpFilter::Write),
            "all" | "both" => Ok(OpFilter::All),
            _ => Err(Error::config("ops", s, "expected read, write or all")),
        }
    }

    /// Plural noun used in messages ("read requests").
    pub fn noun(self) -> &'static str {
        match self {
            OpFilter::Read => "read requests",
            OpFilter::Write => "write requests",
            OpFilter::All => "requests",
        }
    }
}

/// Settings every reader shares.
#[derive(Clone, Debug)]
pub struct ReadOptions {
    /// Bytes per block, for formats that address bytes or sectors.
    pub block_size: u32,
    /// Largest request one line may make, in bytes (configuration key `max_request_bytes`):
    /// a request expands into one reference per block, so one line must not ask for millions.
    pub max_request_bytes: u64,
}

/// Default of [`ReadOptions::max_request_bytes`]: 1 GiB, far above any request in the MSR,
/// Tencent, SYSTOR, CloudPhysics or ARC traces, and 262,144 references at 4 KiB blocks.
pub const DEFAULT_MAX_REQUEST_BYTES: u64 = 1 << 30;

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions::with_block_size(4096)
    }
}

impl ReadOptions {
    /// Defaults with `block_size`-byte blocks.
    pub fn with_block_size(block_size: u32) -> Self {
        ReadOptions {
            block_size,
            max_request_bytes: DEFAULT_MAX_REQUEST_BYTES,
        }
    }

    /// The request limit in blocks (at least one block).
    pub fn max_request_blocks(&self) -> u64 {
        (self.max_request_bytes / self.block_size.max(1) as u64).max(1)
    }
}

/// Refuses a block size of 0 bytes (every reader and engine divides by it).
pub(crate) fn check_block_size(block_size: u32) -> Result<()> {
    if block_size == 0 {
        return Err(Error::config("block_size", 0, "must be at least 1 byte"));
    }
    Ok(())
}
