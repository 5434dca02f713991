//! belady's own binary trace format: dense ids, parsed once, loaded at memory speed.
//!
//! Layout, all integers little-endian:
//!
//! ```text
//! magic      8 bytes  "BELADYT\0"
//! version    u32      1; 2 when flag 2 is set; 3 when flag 3 is set
//! flags      u32      bit 0: write mask present; bit 1: timestamps present;
//!                     bit 2 (version 2+): original ids, no id table;
//!                     bit 3 (version 3): object sizes present
//! block_size u32      bytes per block the ids were computed with
//! reserved   u32      0
//! unique     u64      number of distinct blocks (flag 2: one more than the largest id)
//! refs       u64      number of block references
//! source     u32 length + UTF-8 bytes
//! totals     (if flag 3) u64 bytes requested, u64 byte footprint (see below)
//! originals  unique × u64: original block id of each dense id (absent with flag 2)
//! chunks     ⌈refs / 65536⌉ chunks of k ≤ 65536 references, each
//!              ids   k × u32 (< unique: dense, or with flag 2 the original ids)
//!              mask  ⌈k / 8⌉ bytes (if flag 0): bit j set when reference j writes
//!              times k × u64 nanoseconds (if flag 1)
//!              sizes k × u32 object size in bytes, at least 1 (if flag 3)
//! checksum   u32      CRC-32 of every preceding byte
//! ```
//!
//! Chunks keep the per-reference fields together so that a reader can stream the file.
//!
//! Dense ids need a table from original id to dense id while writing, which grows with the
//! distinct blocks. A generator knows its ids are small already, so it writes them as they are
//! (flag 2): the writer then holds no table however long or wide the trace is, and
//! [`load`] renumbers them in order of first reference, giving the same [`BlockTrace`](crate::trace::BlockTrace) a file
//! with a table would. Version 1 and 2 files still read, and a file is written with the lowest
//! version its flags allow, so traces without sizes stay readable by older builds.
//!
//! Object traces (oracleGeneral, lcs) keep each reference's object size (flag 3). The header's
//! totals are the sum of every reference's size and the sum over distinct objects of the size
//! at each one's first reference (libCacheSim's working-set bytes), so a streamed run knows its
//! byte footprint before the first chunk.

mod read;
mod write;

pub use read::{load, NativeChunks, NativeRequests, SizedChunk};
pub use write::{size_totals, write, write_file, StreamWriter, MAX_REFS};

/// First bytes of every native trace.
pub const MAGIC: &[u8; 8] = b"BELADYT\0";
/// The newest version this build writes; it reads every version from 1 up to it.
pub const VERSION: u32 = 3;
pub(super) const FLAG_WRITES: u32 = 1;
pub(super) const FLAG_TIMES: u32 = 2;
pub(super) const FLAG_ORIGINAL_IDS: u32 = 4;
pub(super) const FLAG_SIZES: u32 = 8;
pub(super) const CHUNK: usize = 65536;
pub(super) const HEADER_BYTES: u64 = 40;

#[cfg(test)]
mod tests;
