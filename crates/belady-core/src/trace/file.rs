//! The file-level event stream: what a program asked of the file system, before any cache.
//!
//! Read-ahead works per open file on byte offsets, so it needs this form rather than block ids.
//! Readers of strace logs and AccuSim traces produce [`FileEvent`]s; [`FileEvent::blocks`] gives
//! the block references a read or write touches.

use super::Op;

/// What a program did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileEventKind {
    /// A file was opened; `size` is its length in bytes at that moment.
    Open {
        /// File length in bytes.
        size: u64,
    },
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
    /// The descriptor was closed.
    Close,
}

/// One file-system call of a traced program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileEvent {
    /// Time of the call, nanoseconds from the start of the trace.
    pub time_ns: u64,
    /// Computation time since the same process's previous call, in nanoseconds.
    pub think_ns: u64,
    /// Process id.
    pub pid: u32,
    /// File identity (for example device and inode folded together); paths live in a side table.
    pub file: u64,
    /// The call.
    pub kind: FileEventKind,
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_cover_every_touched_block() {
        let ev = FileEvent {
            time_ns: 0,
            think_ns: 0,
            pid: 1,
            file: 3,
            kind: FileEventKind::Read {
                offset: 4000,
                len: 200,
            },
        };
        assert_eq!(ev.blocks(4096), Some((Op::Read, 0, 2)));
        assert_eq!(file_block_key(3, 1), Some((3 << 32) | 1));
        assert_eq!(file_block_key(1 << 33, 0), None);
    }
}
