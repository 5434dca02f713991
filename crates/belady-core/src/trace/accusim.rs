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

use super::file::{FileEvent, FileEventKind, FileTrace};
use super::input::{excerpt, open_text, open_trace, parse_u64, trim_line};
use crate::error::{Error, Result};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::io::{BufRead, Read, Write};
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

/// Streams [`Call`]s from AccuSim's binary form.
pub struct BinaryCalls {
    input: Box<dyn BufRead + Send>,
    path: String,
    record: u64,
    offset: u64,
    done: bool,
}

impl BinaryCalls {
    /// Wraps a decompressed input; `path` is used in error messages.
    pub fn new(input: Box<dyn BufRead + Send>, path: String) -> Self {
        BinaryCalls {
            input,
            path,
            record: 0,
            offset: 0,
            done: false,
        }
    }

    fn words<const N: usize>(&mut self, loc: Loc, what: &str) -> Result<[u32; N]> {
        let mut bytes = [0u8; 64];
        let want = &mut bytes[..N * 4];
        self.input.read_exact(want).map_err(|e| {
            let msg = if e.kind() == std::io::ErrorKind::UnexpectedEof {
                format!("truncated {what} record: expected {} more bytes", N * 4)
            } else {
                format!("unreadable {what} record: {e}")
            };
            located(&self.path, loc, msg)
        })?;
        self.offset += (N * 4) as u64;
        let mut out = [0u32; N];
        for (i, w) in out.iter_mut().enumerate() {
            *w = u32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().unwrap_or_default());
        }
        Ok(out)
    }

    fn next_call(&mut self) -> Result<Option<(Call, Loc)>> {
        let loc = Loc::Record {
            record: self.record,
            offset: self.offset,
        };
        if self
            .input
            .fill_buf()
            .map_err(|e| Error::io(Path::new(&self.path), e))?
            .is_empty()
        {
            return Ok(None);
        }
        let [header, inode] = self.words::<2>(loc, "record header")?;
        let (ty, pid) = (header & 31, header >> 5);
        let kind = match ty {
            T_OPEN => {
                let [file_size, packed] = self.words::<2>(loc, "open")?;
                let mut name = vec![0u8; (packed & 0xffff) as usize];
                self.input.read_exact(&mut name).map_err(|_| {
                    located(
                        &self.path,
                        loc,
                        "truncated open record: file name cut short".into(),
                    )
                })?;
                self.offset += name.len() as u64;
                CallKind::Open {
                    fd: packed >> 16,
                    file_size,
                    name,
                }
            }
            T_READ | T_WRITE | T_LSEEK | T_PREAD | T_PWRITE => {
                let [_pc, _pcf, _pcall, requested, returned, fd, iotime_us, file_size] =
                    self.words::<8>(loc, "transfer")?;
                let offset = if ty == T_PREAD || ty == T_PWRITE {
                    Some(self.words::<1>(loc, "positional transfer")?[0])
                } else {
                    None
                };
                let t = Transfer {
                    fd,
                    requested,
                    returned,
                    iotime_us,
                    file_size,
                    offset,
                };
                match ty {
                    T_LSEEK => CallKind::Seek {
                        fd,
                        pos: returned,
                        iotime_us,
                        file_size,
                    },
                    T_WRITE | T_PWRITE => CallKind::Write(t),
                    _ => CallKind::Read(t),
                }
            }
            T_CLOSE => CallKind::Close {
                fd: self.words::<1>(loc, "close")?[0],
            },
            T_EXIT => CallKind::Exit,
            other => {
                return Err(located(
                    &self.path,
                    loc,
                    format!(
                        "unknown record type {other}; expected 2 (exit), 3, 4, 5, 6, 7, 13 or 14"
                    ),
                ))
            }
        };
        self.record += 1;
        Ok(Some((Call { pid, inode, kind }, loc)))
    }
}

impl Iterator for BinaryCalls {
    type Item = Result<(Call, Loc)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = self.next_call().transpose();
        if !matches!(item, Some(Ok(_))) {
            self.done = true;
        }
        item
    }
}

/// Streams [`Call`]s from AccuSim's text form.
pub struct TextCalls {
    input: Box<dyn BufRead + Send>,
    path: String,
    line: u64,
    buf: Vec<u8>,
    done: bool,
}

impl TextCalls {
    /// Wraps a decompressed input; `path` is used in error messages.
    pub fn new(input: Box<dyn BufRead + Send>, path: String) -> Self {
        TextCalls {
            input,
            path,
            line: 0,
            buf: Vec::new(),
            done: false,
        }
    }

    fn parse(line: &[u8]) -> std::result::Result<Call, String> {
        let fields: Vec<&[u8]> = line
            .split(|c| *c == b' ' || *c == b'\t')
            .filter(|f| !f.is_empty())
            .collect();
        let word = String::from_utf8_lossy(fields[0]).to_ascii_lowercase();
        let usage = match word.as_str() {
            "open" => "open PID FD INODE FSIZE NAME",
            "read" => "read PID FD INODE NBYTES IOTIME_US FSIZE",
            "write" => "write PID FD INODE NBYTES IOTIME_US FSIZE",
            "pread" => "pread PID FD INODE OFFSET NBYTES IOTIME_US FSIZE",
            "pwrite" => "pwrite PID FD INODE OFFSET NBYTES IOTIME_US FSIZE",
            "seek" | "lseek" => "seek PID FD INODE NEWPOS",
            "close" => "close PID FD INODE",
            "exit" => "exit PID",
            _ => {
                return Err(format!(
                    "unknown event '{}'; expected open, read, pread, write, pwrite, seek, close or exit",
                    excerpt(fields[0])
                ))
            }
        };
        let arity = usage.split(' ').count();
        let enough = if word == "open" {
            fields.len() >= arity
        } else {
            fields.len() == arity
        };
        if !enough {
            return Err(format!("expected '{usage}', found '{}'", excerpt(line)));
        }
        let num = |i: usize| -> std::result::Result<u32, String> {
            parse_u64(fields[i])
                .and_then(|v| u32::try_from(v).ok())
                .ok_or_else(|| {
                    let name = usage.split(' ').nth(i).unwrap_or("field");
                    format!(
                        "{name} '{}' is not a 32-bit unsigned number (expected '{usage}')",
                        excerpt(fields[i])
                    )
                })
        };
        let pid = num(1)?;
        if pid >= 1 << 27 {
            return Err(format!("PID {pid} does not fit AccuSim's 27 bits"));
        }
        if word == "exit" {
            return Ok(Call {
                pid,
                inode: 0,
                kind: CallKind::Exit,
            });
        }
        let (fd, inode) = (num(2)?, num(3)?);
        let kind = match word.as_str() {
            "open" => CallKind::Open {
                fd,
                file_size: num(4)?,
                name: fields[5..].join(&b' '),
            },
            "read" | "write" | "pread" | "pwrite" => {
                let positional = word.starts_with('p');
                let at = if positional { 5 } else { 4 };
                let t = Transfer {
                    fd,
                    requested: num(at)?,
                    returned: num(at)?,
                    iotime_us: num(at + 1)?,
                    file_size: num(at + 2)?,
                    offset: if positional { Some(num(4)?) } else { None },
                };
                if word.ends_with("read") {
                    CallKind::Read(t)
                } else {
                    CallKind::Write(t)
                }
            }
            "seek" | "lseek" => CallKind::Seek {
                fd,
                pos: num(4)?,
                iotime_us: 0,
                file_size: 0,
            },
            _ => CallKind::Close { fd },
        };
        Ok(Call { pid, inode, kind })
    }
}

impl Iterator for TextCalls {
    type Item = Result<(Call, Loc)>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            self.buf.clear();
            match self.input.read_until(b'\n', &mut self.buf) {
                Ok(0) => self.done = true,
                Ok(_) => {
                    self.line += 1;
                    let line = trim_line(&self.buf);
                    if line.is_empty() || line[0] == b'#' {
                        continue;
                    }
                    let loc = Loc::Line(self.line);
                    return Some(match Self::parse(line) {
                        Ok(call) => Ok((call, loc)),
                        Err(msg) => {
                            self.done = true;
                            Err(located(&self.path, loc, msg))
                        }
                    });
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(Error::io(Path::new(&self.path), e)));
                }
            }
        }
        None
    }
}

/// Writes one call in the binary form.
pub fn write_binary(call: &Call, out: &mut impl Write) -> std::io::Result<()> {
    let mut words: Vec<u32> = Vec::with_capacity(11);
    let header = |ty: u32| ty | call.pid << 5;
    let mut name: &[u8] = &[];
    match &call.kind {
        CallKind::Open {
            fd,
            file_size,
            name: n,
        } => {
            words.extend([
                header(T_OPEN),
                call.inode,
                *file_size,
                (n.len() as u32 & 0xffff) | fd << 16,
            ]);
            name = n;
        }
        CallKind::Read(t) | CallKind::Write(t) => {
            let write = matches!(call.kind, CallKind::Write(_));
            let ty = match (write, t.offset.is_some()) {
                (false, false) => T_READ,
                (false, true) => T_PREAD,
                (true, false) => T_WRITE,
                (true, true) => T_PWRITE,
            };
            words.extend([
                header(ty),
                call.inode,
                0,
                0,
                0,
                t.requested,
                t.returned,
                t.fd,
                t.iotime_us,
                t.file_size,
            ]);
            words.extend(t.offset);
        }
        CallKind::Seek {
            fd,
            pos,
            iotime_us,
            file_size,
        } => words.extend([
            header(T_LSEEK),
            call.inode,
            0,
            0,
            0,
            *pos,
            *pos,
            *fd,
            *iotime_us,
            *file_size,
        ]),
        CallKind::Close { fd } => words.extend([header(T_CLOSE), call.inode, *fd]),
        CallKind::Exit => words.extend([header(T_EXIT), call.inode]),
    }
    for w in words {
        out.write_all(&w.to_le_bytes())?;
    }
    out.write_all(name)
}

/// Writes one call as a text line.
pub fn write_text(call: &Call, out: &mut impl Write) -> std::io::Result<()> {
    let (pid, inode) = (call.pid, call.inode);
    match &call.kind {
        CallKind::Open {
            fd,
            file_size,
            name,
        } => {
            writeln!(
                out,
                "open {pid} {fd} {inode} {file_size} {}",
                String::from_utf8_lossy(name)
            )
        }
        CallKind::Read(t) | CallKind::Write(t) => {
            let verb = if matches!(call.kind, CallKind::Read(_)) {
                "read"
            } else {
                "write"
            };
            match t.offset {
                Some(off) => writeln!(
                    out,
                    "p{verb} {pid} {} {inode} {off} {} {} {}",
                    t.fd, t.returned, t.iotime_us, t.file_size
                ),
                None => writeln!(
                    out,
                    "{verb} {pid} {} {inode} {} {} {}",
                    t.fd, t.returned, t.iotime_us, t.file_size
                ),
            }
        }
        CallKind::Seek { fd, pos, .. } => writeln!(out, "seek {pid} {fd} {inode} {pos}"),
        CallKind::Close { fd } => writeln!(out, "close {pid} {fd} {inode}"),
        CallKind::Exit => writeln!(out, "exit {pid}"),
    }
}

#[derive(Clone, Copy)]
struct Descriptor {
    inode: u32,
    offset: u64,
}

/// Turns calls into file events with explicit offsets, keeping per-process descriptor tables.
pub struct Resolver {
    path: String,
    open: FxHashMap<(u32, u32), Descriptor>,
    max_request_bytes: u64,
}

impl Resolver {
    /// A resolver for the trace at `path` (used in error messages).
    pub fn new(path: String) -> Self {
        Resolver {
            path,
            open: FxHashMap::default(),
            max_request_bytes: super::DEFAULT_MAX_REQUEST_BYTES,
        }
    }

    /// Refuses a read or write of more than `max` bytes, naming its call (the
    /// `max_request_bytes` option, as the events reader applies it).
    pub fn with_max_request_bytes(mut self, max: u64) -> Self {
        self.max_request_bytes = max;
        self
    }

    fn descriptor(
        &mut self,
        call: &Call,
        fd: u32,
        loc: Loc,
        out: &mut Vec<FileEvent>,
    ) -> Result<&mut Descriptor> {
        let key = (call.pid, fd);
        let Some(d) = self.open.get(&key).copied() else {
            return Err(located(
                &self.path,
                loc,
                format!("descriptor {fd} of process {} was never opened", call.pid),
            ));
        };
        if d.inode != call.inode {
            // AccuSim rebinds a descriptor that a call names with another inode, resetting its state.
            out.push(FileEvent {
                think_ns: 0,
                pid: call.pid,
                fd,
                file: call.inode as u64,
                file_size: 0,
                kind: FileEventKind::Open,
            });
            self.open.insert(
                key,
                Descriptor {
                    inode: call.inode,
                    offset: 0,
                },
            );
        }
        Ok(self.open.get_mut(&key).expect("descriptor just checked"))
    }

    /// Appends the events `call` stands for to `out`.
    pub fn resolve(
        &mut self,
        call: &Call,
        loc: Loc,
        names: &mut std::collections::BTreeMap<u64, String>,
        out: &mut Vec<FileEvent>,
    ) -> Result<()> {
        let event = |fd: u32, think_us: u32, file_size: u32, kind: FileEventKind| FileEvent {
            think_ns: think_us as u64 * 1000,
            pid: call.pid,
            fd,
            file: call.inode as u64,
            file_size: file_size as u64,
            kind,
        };
        match &call.kind {
            CallKind::Open {
                fd,
                file_size,
                name,
            } => {
                if call.inode == 0 {
                    return Err(located(
                        &self.path,
                        loc,
                        "open of inode 0; inodes must be non-zero".into(),
                    ));
                }
                self.open.insert(
                    (call.pid, *fd),
                    Descriptor {
                        inode: call.inode,
                        offset: 0,
                    },
                );
                names
                    .entry(call.inode as u64)
                    .or_insert_with(|| String::from_utf8_lossy(name).into_owned());
                out.push(event(*fd, 0, *file_size, FileEventKind::Open));
            }
            CallKind::Read(t) | CallKind::Write(t) => {
                let d = self.descriptor(call, t.fd, loc, out)?;
                let offset = match t.offset {
                    Some(o) => o as u64,
                    None => {
                        let o = d.offset;
                        d.offset += t.returned as u64;
                        o
                    }
                };
                let len = t.returned as u64;
                if len > self.max_request_bytes {
                    return Err(located(
                        &self.path,
                        loc,
                        format!(
                            "LEN {len} is above the limit of {} bytes per request (max_request_bytes)",
                            self.max_request_bytes
                        ),
                    ));
                }
                let kind = if matches!(call.kind, CallKind::Read(_)) {
                    FileEventKind::Read { offset, len }
                } else {
                    FileEventKind::Write { offset, len }
                };
                out.push(event(t.fd, t.iotime_us, t.file_size, kind));
            }
            CallKind::Seek {
                fd,
                pos,
                iotime_us,
                file_size,
            } => {
                self.descriptor(call, *fd, loc, out)?.offset = *pos as u64;
                out.push(event(
                    *fd,
                    *iotime_us,
                    *file_size,
                    FileEventKind::Seek {
                        offset: *pos as u64,
                    },
                ));
            }
            CallKind::Close { fd } => {
                self.descriptor(call, *fd, loc, out)?;
                self.open.remove(&(call.pid, *fd));
                out.push(event(*fd, 0, 0, FileEventKind::Close));
            }
            CallKind::Exit => {
                self.open.retain(|(pid, _), _| *pid != call.pid);
                out.push(event(0, 0, 0, FileEventKind::Exit));
            }
        }
        Ok(())
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
mod tests {
    use super::*;

    fn text_calls(text: &str) -> Vec<Result<(Call, Loc)>> {
        TextCalls::new(
            Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
            "t.evt".into(),
        )
        .collect()
    }

    const SAMPLE: &str = "# sample\nopen 7 3 11 40960 my file\nread 7 3 11 8192 100 40960\npread 7 3 11 4096 100 5 40960\nseek 7 3 11 0\nwrite 7 3 11 10 3 40960\nclose 7 3 11\nexit 7\n";

    #[test]
    fn text_and_binary_forms_round_trip() {
        let calls: Vec<Call> = text_calls(SAMPLE)
            .into_iter()
            .map(|c| c.unwrap().0)
            .collect();
        assert_eq!(calls.len(), 7);
        let mut bin = Vec::new();
        let mut text = Vec::new();
        for c in &calls {
            write_binary(c, &mut bin).unwrap();
            write_text(c, &mut text).unwrap();
        }
        let back: Vec<Call> = BinaryCalls::new(Box::new(std::io::Cursor::new(bin)), "b".into())
            .map(|c| c.unwrap().0)
            .collect();
        assert_eq!(back, calls);
        let again: Vec<Call> = text_calls(&String::from_utf8(text).unwrap())
            .into_iter()
            .map(|c| c.unwrap().0)
            .collect();
        assert_eq!(again, calls);
    }

    #[test]
    fn descriptors_resolve_offsets() {
        let mut r = Resolver::new("t".into());
        let mut names = Default::default();
        let mut events = Vec::new();
        for c in text_calls(SAMPLE) {
            let (call, loc) = c.unwrap();
            r.resolve(&call, loc, &mut names, &mut events).unwrap();
        }
        let kinds: Vec<&FileEventKind> = events.iter().map(|e| &e.kind).collect();
        assert_eq!(
            kinds[1],
            &FileEventKind::Read {
                offset: 0,
                len: 8192
            }
        );
        assert_eq!(
            kinds[2],
            &FileEventKind::Read {
                offset: 4096,
                len: 100
            }
        );
        assert_eq!(kinds[3], &FileEventKind::Seek { offset: 0 });
        assert_eq!(kinds[4], &FileEventKind::Write { offset: 0, len: 10 });
        assert_eq!(events[1].think_ns, 100_000);
        assert_eq!(names.get(&11).map(String::as_str), Some("my file"));
    }

    #[test]
    fn bad_records_name_their_place() {
        let mut r = Resolver::new("t.evt".into());
        let mut names = Default::default();
        let mut events = Vec::new();
        let (call, loc) = text_calls("read 7 3 11 8192 100 40960\n")
            .remove(0)
            .unwrap();
        let err = r
            .resolve(&call, loc, &mut names, &mut events)
            .unwrap_err()
            .to_string();
        assert_eq!(err, "t.evt:1: descriptor 3 of process 7 was never opened");
        let err = text_calls("open 1 2 3\n")
            .remove(0)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("t.evt:1: expected 'open PID FD INODE FSIZE NAME'"),
            "{err}"
        );
        let err = text_calls("mmap 1 2 3\n")
            .remove(0)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown event 'mmap'"), "{err}");
        let mut bin = Vec::new();
        write_binary(
            &Call {
                pid: 1,
                inode: 5,
                kind: CallKind::Close { fd: 3 },
            },
            &mut bin,
        )
        .unwrap();
        bin.extend([9u8, 0, 0, 0, 5, 0, 0, 0]);
        let got: Vec<_> =
            BinaryCalls::new(Box::new(std::io::Cursor::new(bin.clone())), "b.bin".into()).collect();
        assert_eq!(
            got[1].as_ref().unwrap_err().to_string(),
            "b.bin: record 1 (byte offset 12): unknown record type 9; expected 2 (exit), 3, 4, 5, 6, 7, 13 or 14"
        );
        bin.truncate(bin.len() - 8);
        bin.extend([3u8, 0, 0, 0, 5, 0, 0, 0, 0, 0]);
        let got: Vec<_> =
            BinaryCalls::new(Box::new(std::io::Cursor::new(bin)), "b.bin".into()).collect();
        assert!(got[1]
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("record 1 (byte offset 12): truncated transfer record"));
    }
}
