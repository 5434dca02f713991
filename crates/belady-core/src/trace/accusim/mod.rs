//! AccuSim's trace formats (the prefetching study's simulator): its binary form, written by its
//! modified strace, and the equivalent one-event-per-line text form.
//!
//! Both are read into [`Call`]s, which keep everything the file holds (so conversion between the
//! two forms is lossless up to the noted fields), and a [`Resolver`] turns calls into belady's
//! [`FileEvent`]s, keeping per-process descriptor tables as AccuSim does: `read` uses and advances
//! the descriptor's offset, `pread` names its own, `lseek` moves it.
//!
//! Binary layout (little-endian 32-bit words, records packed with no padding): a header word
//! `type | pid << 5` (type 2 exit, 3 read, 4 write, 5 open, 6 close, 7 lseek, 13 pread, 14 pwrite),
//! then the inode, then per type:
//! - open: file size, `name_len | fd << 16`, then `name_len` name bytes;
//! - read, write, lseek: `pc, pcf, pcall` (unused), requested bytes, returned bytes (lseek: the new
//!   offset in both), fd, compute time before the call in µs, file size;
//! - pread, pwrite: as read, then the offset;
//! - close: fd; exit: nothing more.
//!
//! Text layout (`#` starts a comment):
//! ```text
//! open  PID FD INODE FSIZE NAME
//! read  PID FD INODE NBYTES IOTIME_US FSIZE
//! pread PID FD INODE OFFSET NBYTES IOTIME_US FSIZE
//! write PID FD INODE NBYTES IOTIME_US FSIZE        (and pwrite, like pread)
//! seek  PID FD INODE NEWPOS
//! close PID FD INODE
//! exit  PID
//! ```
//! The text form has one byte count, so a binary record whose requested and returned sizes differ
//! keeps only the returned size (the one AccuSim uses) when written as text; `pc` fields are
//! always zero when written.

mod read;
mod resolve;
mod write;

pub use read::{BinaryCalls, TextCalls};
pub use resolve::Resolver;
pub use write::{write_binary, write_text};

use super::file::{FileEvent, FileTrace};
use super::input::{open_text, open_trace};
use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::path::Path;

const T_EXIT: u32 = 2;
const T_READ: u32 = 3;
const T_WRITE: u32 = 4;
const T_OPEN: u32 = 5;
const T_CLOSE: u32 = 6;
const T_LSEEK: u32 = 7;
const T_PREAD: u32 = 13;
const T_PWRITE: u32 = 14;

/// A data transfer call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transfer {
    /// Descriptor.
    pub fd: u32,
    /// Bytes asked for.
    pub requested: u32,
    /// Bytes transferred (what AccuSim uses).
    pub returned: u32,
    /// Compute time before the call, µs.
    pub iotime_us: u32,
    /// File size at the call, bytes.
    pub file_size: u32,
    /// Explicit offset (pread, pwrite); `None` means the descriptor's offset.
    pub offset: Option<u32>,
}

/// What an AccuSim record says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallKind {
    /// open(2).
    Open {
        /// Descriptor returned.
        fd: u32,
        /// File size, bytes.
        file_size: u32,
        /// File name as recorded.
        name: Vec<u8>,
    },
    /// read(2) or pread(2).
    Read(Transfer),
    /// write(2) or pwrite(2).
    Write(Transfer),
    /// lseek(2) to an absolute position.
    Seek {
        /// Descriptor.
        fd: u32,
        /// New offset.
        pos: u32,
        /// Compute time before the call, µs (binary form only).
        iotime_us: u32,
        /// File size at the call.
        file_size: u32,
    },
    /// close(2).
    Close {
        /// Descriptor.
        fd: u32,
    },
    /// Process exit.
    Exit,
}

/// One AccuSim record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    /// Process id.
    pub pid: u32,
    /// Inode (0 for exit).
    pub inode: u32,
    /// The call.
    pub kind: CallKind,
}

/// Where a record sits, for error messages.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Loc {
    /// Binary: 0-based record number and byte offset in the decompressed stream.
    Record {
        /// Record number.
        record: u64,
        /// Byte offset.
        offset: u64,
    },
    /// Text: 1-based line number.
    Line(u64),
}

fn located(path: &str, loc: Loc, msg: String) -> Error {
    match loc {
        Loc::Record { record, offset } => Error::Record {
            path: path.to_string(),
            record,
            offset,
            msg,
        },
        Loc::Line(line) => Error::Parse {
            path: path.to_string(),
            line,
            msg,
        },
    }
}
/// A boxed stream of located calls.
pub type CallStream = Box<dyn Iterator<Item = Result<(Call, Loc)>> + Send>;

/// The calls of an AccuSim trace in either form (`binary` selects the form).
pub fn calls(path: &Path, binary: bool) -> Result<CallStream> {
    let input = if binary {
        open_trace(path)?
    } else {
        open_text(path)?
    };
    let name = path.display().to_string();
    Ok(if binary {
        Box::new(BinaryCalls::new(input, name))
    } else {
        Box::new(TextCalls::new(input, name))
    })
}

/// Reads a whole AccuSim trace into a [`FileTrace`].
pub fn load(path: &Path, binary: bool) -> Result<FileTrace> {
    load_with(path, binary, super::DEFAULT_MAX_REQUEST_BYTES)
}

/// [`load`], refusing a read or write of more than `max_request_bytes` (its call is named).
pub fn load_with(path: &Path, binary: bool, max_request_bytes: u64) -> Result<FileTrace> {
    let mut events = Vec::new();
    let names = stream(path, binary, max_request_bytes, &mut |ev| {
        events.push(ev.clone());
        Ok(())
    })?;
    Ok(FileTrace {
        source: path.display().to_string(),
        events,
        names,
    })
}

/// Hands each file event of an AccuSim trace to `sink` in order, in memory bounded by its
/// processes' descriptor tables, and returns each file's name.
pub fn stream(
    path: &Path,
    binary: bool,
    max_request_bytes: u64,
    sink: &mut dyn FnMut(&FileEvent) -> Result<()>,
) -> Result<BTreeMap<u64, String>> {
    let mut resolver =
        Resolver::new(path.display().to_string()).with_max_request_bytes(max_request_bytes);
    let mut names = BTreeMap::new();
    let mut events = Vec::new();
    for item in calls(path, binary)? {
        let (call, loc) = item?;
        events.clear();
        resolver.resolve(&call, loc, &mut names, &mut events)?;
        events.iter().try_for_each(&mut *sink)?;
    }
    Ok(names)
}

/// Streams the demand block references of an AccuSim trace (each read or write expanded to the
/// file blocks it touches, ids from [`super::file::file_block_key`]), for block-level simulation.
pub struct AccusimRequests {
    calls: CallStream,
    resolver: Resolver,
    names: std::collections::BTreeMap<u64, String>,
    pending: std::collections::VecDeque<super::BlockRequest>,
    events: Vec<FileEvent>,
    block_size: u64,
    time_ns: u64,
}

impl AccusimRequests {
    /// Opens `path` in the binary (`binary`) or text form.
    pub fn open(path: &Path, binary: bool, block_size: u32) -> Result<Self> {
        Self::open_with(path, binary, block_size, super::DEFAULT_MAX_REQUEST_BYTES)
    }

    /// [`AccusimRequests::open`], refusing a call of more than `max_request_bytes`.
    pub fn open_with(
        path: &Path,
        binary: bool,
        block_size: u32,
        max_request_bytes: u64,
    ) -> Result<Self> {
        Ok(AccusimRequests {
            calls: calls(path, binary)?,
            resolver: Resolver::new(path.display().to_string())
                .with_max_request_bytes(max_request_bytes),
            names: Default::default(),
            pending: Default::default(),
            events: Vec::new(),
            block_size: block_size as u64,
            time_ns: 0,
        })
    }
}

impl Iterator for AccusimRequests {
    type Item = Result<super::BlockRequest>;

    fn next(&mut self) -> Option<Self::Item> {
        while self.pending.is_empty() {
            let (call, loc) = match self.calls.next()? {
                Ok(c) => c,
                Err(e) => return Some(Err(e)),
            };
            self.events.clear();
            if let Err(e) = self
                .resolver
                .resolve(&call, loc, &mut self.names, &mut self.events)
            {
                return Some(Err(e));
            }
            for ev in &self.events {
                self.time_ns += ev.think_ns;
                if let Some((op, first, count)) = ev.blocks(self.block_size) {
                    for index in first..first + count {
                        let Some(block) = super::file::file_block_key(ev.file, index) else {
                            return Some(Err(located(
                                &self.resolver.path,
                                loc,
                                format!("file block {index} of inode {} is beyond belady's 2^32 blocks per file", ev.file),
                            )));
                        };
                        self.pending.push_back(super::BlockRequest {
                            block,
                            count: 1,
                            op,
                            time_ns: Some(self.time_ns),
                            bytes: ev.bytes_in(index, self.block_size),
                        });
                    }
                }
            }
        }
        self.pending.pop_front().map(Ok)
    }
}

#[cfg(test)]
mod tests;
