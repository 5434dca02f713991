//! The file-level event stream: what a program asked of the file system, before any cache.
//!
//! Read-ahead works per open file on byte offsets, so it needs this form rather than block ids.
//! Readers of AccuSim traces (and later strace logs) produce [`FileEvent`]s with explicit offsets:
//! descriptor offsets are already resolved. [`FileEvent::blocks`] gives the blocks a transfer touches.

use super::Op;
use std::collections::BTreeMap;

/// What a program did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileEventKind {
    /// The descriptor was opened on the file.
    Open,
    /// `len` bytes were read at byte `offset`.
    Read {
        /// Byte offset in the file.
        offset: u64,
        /// Bytes transferred.
        len: u64,
    },
    /// `len` bytes were written at byte `offset`.
    Write {
        /// Byte offset in the file.
        offset: u64,
        /// Bytes transferred.
        len: u64,
    },
    /// The descriptor's offset was moved to `offset`.
    Seek {
        /// New byte offset.
        offset: u64,
    },
    /// The descriptor was closed.
    Close,
    /// The process ended (its descriptors are gone).
    Exit,
}

/// One file-system call of a traced program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileEvent {
    /// Computation time before this call, in nanoseconds (the think time the clock replays).
    pub think_ns: u64,
    /// Process id.
    pub pid: u32,
    /// Descriptor within the process (0 for process-wide events such as exit).
    pub fd: u32,
    /// File identity (inode, or device and inode folded together); names are in a side table.
    pub file: u64,
    /// File length in bytes at the time of the call (read-ahead stops at the end of file).
    pub file_size: u64,
    /// The call.
    pub kind: FileEventKind,
}

/// A whole file-level trace: the events and the file names seen at open.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileTrace {
    /// Where it came from.
    pub source: String,
    /// Events in order.
    pub events: Vec<FileEvent>,
    /// Name of each file, as given when it was first opened.
    pub names: BTreeMap<u64, String>,
}

impl FileEvent {
    /// The direction and the range of file blocks `[first, first + count)` a read or write
    /// touches, or `None` for other events and empty transfers.
    pub fn blocks(&self, block_size: u64) -> Option<(Op, u64, u64)> {
        let (op, offset, len) = match self.kind {
            FileEventKind::Read { offset, len } => (Op::Read, offset, len),
            FileEventKind::Write { offset, len } => (Op::Write, offset, len),
            _ => return None,
        };
        if len == 0 {
            return None;
        }
        let first = offset / block_size;
        let last = offset.saturating_add(len - 1) / block_size;
        Some((op, first, last - first + 1))
    }

    /// Bytes of a read or write that fall in file block `index` (0 for other events): what
    /// the block's reference asks for, so the references of one call add up to its length.
    pub fn bytes_in(&self, index: u64, block_size: u64) -> u64 {
        let (offset, len) = match self.kind {
            FileEventKind::Read { offset, len } | FileEventKind::Write { offset, len } => {
                (offset, len)
            }
            _ => return 0,
        };
        let start = offset.max(index.saturating_mul(block_size));
        let end = offset
            .saturating_add(len)
            .min(index.saturating_add(1).saturating_mul(block_size));
        end.saturating_sub(start)
    }
}

/// Bits of a file-block key given to the block number within the file.
pub const FILE_BLOCK_BITS: u32 = 32;

/// The block id used for block `index` of file `file` when file traces are simulated as blocks.
pub fn file_block_key(file: u64, index: u64) -> Option<u64> {
    if file >= 1 << (64 - FILE_BLOCK_BITS) || index >= 1 << FILE_BLOCK_BITS {
        return None;
    }
    Some((file << FILE_BLOCK_BITS) | index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_cover_every_touched_block() {
        let ev = FileEvent {
            think_ns: 0,
            pid: 1,
            fd: 3,
            file: 3,
            file_size: 10_000,
            kind: FileEventKind::Read {
                offset: 4000,
                len: 200,
            },
        };
        assert_eq!(ev.blocks(4096), Some((Op::Read, 0, 2)));
        // 96 bytes in block 0 and 104 in block 1: the call's 200 bytes, split where they fall.
        assert_eq!((ev.bytes_in(0, 4096), ev.bytes_in(1, 4096)), (96, 104));
        assert_eq!(ev.bytes_in(2, 4096), 0);
        assert_eq!(file_block_key(3, 1), Some((3 << 32) | 1));
        assert_eq!(file_block_key(1 << 33, 0), None);
    }
}
