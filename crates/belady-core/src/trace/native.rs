//! belady's own binary trace format: dense ids, parsed once, loaded at memory speed.
//!
//! Layout, all integers little-endian:
//!
//! ```text
//! magic      8 bytes  "BELADYT\0"
//! version    u32      1, or 2 when flag 2 is set
//! flags      u32      bit 0: write mask present; bit 1: timestamps present;
//!                     bit 2 (version 2): original ids, no id table
//! block_size u32      bytes per block the ids were computed with
//! reserved   u32      0
//! unique     u64      number of distinct blocks (flag 2: one more than the largest id)
//! refs       u64      number of block references
//! source     u32 length + UTF-8 bytes
//! originals  unique × u64: original block id of each dense id (absent with flag 2)
//! chunks     ⌈refs / 65536⌉ chunks of k ≤ 65536 references, each
//!              ids   k × u32 (< unique: dense, or with flag 2 the original ids)
//!              mask  ⌈k / 8⌉ bytes (if flag 0): bit j set when reference j writes
//!              times k × u64 nanoseconds (if flag 1)
//! checksum   u32      CRC-32 of every preceding byte
//! ```
//!
//! Chunks keep the per-reference fields together so that a reader can stream the file.
//!
//! Dense ids need a table from original id to dense id while writing, which grows with the
//! distinct blocks. A generator knows its ids are small already, so it writes them as they are
//! (flag 2): the writer then holds no table however long or wide the trace is, and
//! [`load`] renumbers them in order of first reference, giving the same [`BlockTrace`] a file
//! with a table would. Version 1 files (always with a table) still read.

use super::dense::BlockTrace;
use super::input::open_trace;
use super::{BlockRequest, Op};
use crate::error::{Error, Result};
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

/// First bytes of every native trace.
pub const MAGIC: &[u8; 8] = b"BELADYT\0";
/// The newest version this build writes; it reads every version from 1 up to it.
pub const VERSION: u32 = 2;
const FLAG_WRITES: u32 = 1;
const FLAG_TIMES: u32 = 2;
const FLAG_ORIGINAL_IDS: u32 = 4;
const CHUNK: usize = 65536;
const HEADER_BYTES: u64 = 40;

/// Writes the fixed header, the source name and the id table (`unique` counts the table's
/// entries, or bounds the ids when the table is empty under [`FLAG_ORIGINAL_IDS`]).
fn write_head(
    out: &mut impl Write,
    flags: u32,
    block_size: u32,
    (unique, refs): (u64, u64),
    source: &str,
    originals: &[u64],
) -> std::io::Result<()> {
    out.write_all(MAGIC)?;
    // Files without version 2's flag stay readable by version 1 builds.
    let version = if flags & FLAG_ORIGINAL_IDS != 0 { 2 } else { 1 };
    for word in [version, flags, block_size, 0] {
        out.write_all(&word.to_le_bytes())?;
    }
    out.write_all(&unique.to_le_bytes())?;
    out.write_all(&refs.to_le_bytes())?;
    out.write_all(&(source.len() as u32).to_le_bytes())?;
    out.write_all(source.as_bytes())?;
    let mut buf = Vec::with_capacity(CHUNK * 8);
    for chunk in originals.chunks(CHUNK) {
        buf.clear();
        chunk
            .iter()
            .for_each(|o| buf.extend_from_slice(&o.to_le_bytes()));
        out.write_all(&buf)?;
    }
    Ok(())
}

/// Writes `trace` in the native format.
pub fn write(trace: &BlockTrace, out: impl Write) -> std::io::Result<()> {
    let mut out = Crc32Writer {
        inner: out,
        crc: crc32fast::Hasher::new(),
    };
    let flags = if trace.write_mask.is_some() {
        FLAG_WRITES
    } else {
        0
    } | if trace.times.is_some() { FLAG_TIMES } else { 0 };
    write_head(
        &mut out,
        flags,
        trace.block_size,
        (trace.originals.len() as u64, trace.refs.len() as u64),
        &trace.source,
        &trace.originals,
    )?;
    let mut buf = Vec::with_capacity(CHUNK * 8);
    for (c, ids) in trace.refs.chunks(CHUNK).enumerate() {
        buf.clear();
        ids.iter()
            .for_each(|id| buf.extend_from_slice(&id.to_le_bytes()));
        if let Some(mask) = &trace.write_mask {
            let first = c * CHUNK / 8;
            buf.extend_from_slice(&mask[first..first + ids.len().div_ceil(8)]);
        }
        if let Some(times) = &trace.times {
            times[c * CHUNK..c * CHUNK + ids.len()]
                .iter()
                .for_each(|t| buf.extend_from_slice(&t.to_le_bytes()));
        }
        out.write_all(&buf)?;
    }
    let crc = out.crc.clone().finalize();
    out.inner.write_all(&crc.to_le_bytes())?;
    out.inner.flush()
}

/// Writes a native trace reference by reference, for traces too long to hold in memory.
///
/// The format puts the id table before the references, so the references go to an anonymous
/// spill file and are copied behind the table by [`StreamWriter::finish`]. With dense ids
/// ([`StreamWriter::new`]) memory holds one table entry per distinct block plus one chunk, and
/// the output is byte-identical to [`write`] of the same references; with original ids
/// ([`StreamWriter::with_original_ids`]) it holds one chunk. Write mask and timestamps are kept
/// when any reference has one.
pub struct StreamWriter {
    spill: std::io::BufWriter<std::fs::File>,
    /// What errors writing the spill name: its folder (the output's) and what it is.
    spill_name: PathBuf,
    ids: Ids,
    chunk_ids: Vec<u32>,
    chunk_mask: Vec<u8>,
    chunk_times: Vec<u64>,
    refs: u64,
    any_write: bool,
    any_time: bool,
    block_size: u32,
    source: String,
}

/// How a [`StreamWriter`] numbers blocks.
enum Ids {
    /// Dense ids in order of first reference, and each one's original id.
    Dense {
        map: rustc_hash::FxHashMap<u64, u32>,
        originals: Vec<u64>,
    },
    /// The original ids, all below `bound`.
    Original { bound: u64 },
}

/// Most references one native file holds (dense positions are 32-bit, one value is reserved).
pub const MAX_REFS: u64 = u32::MAX as u64 - 1;

impl StreamWriter {
    /// Starts a trace with dense ids; its spill file lives in `dir` (the output's folder, so it
    /// has the room).
    pub fn new(dir: &Path, source: String, block_size: u32) -> Result<StreamWriter> {
        let ids = Ids::Dense {
            map: rustc_hash::FxHashMap::default(),
            originals: Vec::new(),
        };
        Self::start(dir, source, block_size, ids)
    }

    /// Starts a trace that stores the block ids as given, without a table: for sources whose ids
    /// are already small (below `u32::MAX`), such as generators.
    pub fn with_original_ids(dir: &Path, source: String, block_size: u32) -> Result<StreamWriter> {
        Self::start(dir, source, block_size, Ids::Original { bound: 0 })
    }

    fn start(dir: &Path, source: String, block_size: u32, ids: Ids) -> Result<StreamWriter> {
        let spill = tempfile::tempfile_in(dir).map_err(|e| Error::io(dir, e))?;
        Ok(StreamWriter {
            spill: std::io::BufWriter::with_capacity(1 << 20, spill),
            spill_name: dir.join("(the native output's spill file)"),
            ids,
            chunk_ids: Vec::with_capacity(CHUNK),
            chunk_mask: Vec::with_capacity(CHUNK / 8),
            chunk_times: Vec::with_capacity(CHUNK),
            refs: 0,
            any_write: false,
            any_time: false,
            block_size,
            source,
        })
    }

    /// References written so far.
    pub fn refs(&self) -> u64 {
        self.refs
    }

    /// Distinct blocks written so far, when the writer numbers them densely.
    pub fn unique(&self) -> Option<usize> {
        match &self.ids {
            Ids::Dense { originals, .. } => Some(originals.len()),
            Ids::Original { .. } => None,
        }
    }

    /// Bytes allocated for the id table: what grows with the distinct blocks (0 with original ids).
    pub fn table_bytes(&self) -> usize {
        match &self.ids {
            // hashbrown keeps one control byte beside each slot.
            Ids::Dense { map, originals } => {
                map.capacity() * (std::mem::size_of::<(u64, u32)>() + 1) + originals.capacity() * 8
            }
            Ids::Original { .. } => 0,
        }
    }

    /// Appends one reference to `block`.
    pub fn push(&mut self, block: u64, op: Op, time_ns: Option<u64>) -> Result<()> {
        if self.refs >= MAX_REFS {
            return Err(Error::config(
                "trace",
                &self.source,
                format!("a native trace holds at most {MAX_REFS} block references"),
            ));
        }
        let id = match &mut self.ids {
            Ids::Dense { map, originals } => {
                let next = originals.len() as u32;
                let id = *map.entry(block).or_insert(next);
                if id == next {
                    originals.push(block);
                }
                id
            }
            Ids::Original { bound } => {
                if block >= u32::MAX as u64 {
                    return Err(Error::config(
                        "trace",
                        &self.source,
                        format!(
                            "block id {block} is too large to store as it is (ids must be below {})",
                            u32::MAX
                        ),
                    ));
                }
                *bound = (*bound).max(block + 1);
                block as u32
            }
        };
        let j = self.chunk_ids.len();
        self.chunk_ids.push(id);
        if j % 8 == 0 {
            self.chunk_mask.push(0);
        }
        if op == Op::Write {
            self.chunk_mask[j / 8] |= 1 << (j % 8);
            self.any_write = true;
        }
        self.any_time |= time_ns.is_some();
        self.chunk_times.push(time_ns.unwrap_or(0));
        self.refs += 1;
        if self.chunk_ids.len() == CHUNK {
            self.spill_chunk()
                .map_err(|e| Error::io(&self.spill_name, e))?;
        }
        Ok(())
    }

    /// Spills the current chunk with every per-reference field; `finish` drops unused ones.
    fn spill_chunk(&mut self) -> std::io::Result<()> {
        let mut buf = Vec::with_capacity(self.chunk_ids.len() * 13);
        self.chunk_ids
            .iter()
            .for_each(|id| buf.extend_from_slice(&id.to_le_bytes()));
        buf.extend_from_slice(&self.chunk_mask);
        self.chunk_times
            .iter()
            .for_each(|t| buf.extend_from_slice(&t.to_le_bytes()));
        self.spill.write_all(&buf)?;
        self.chunk_ids.clear();
        self.chunk_mask.clear();
        self.chunk_times.clear();
        Ok(())
    }

    /// Writes the whole trace to `out`; returns the references written and, with dense ids,
    /// the distinct blocks.
    pub fn finish(mut self, out: impl Write) -> std::io::Result<(u64, Option<usize>)> {
        use std::io::Seek;
        if !self.chunk_ids.is_empty() {
            self.spill_chunk()?;
        }
        let unique = self.unique();
        let mut spill = self.spill.into_inner().map_err(|e| e.into_error())?;
        spill.seek(std::io::SeekFrom::Start(0))?;
        let mut spill = std::io::BufReader::with_capacity(1 << 20, spill);
        let mut out = Crc32Writer {
            inner: out,
            crc: crc32fast::Hasher::new(),
        };
        let mut flags = if self.any_write { FLAG_WRITES } else { 0 }
            | if self.any_time { FLAG_TIMES } else { 0 };
        let (count, originals) = match &self.ids {
            Ids::Dense { originals, .. } => (originals.len() as u64, &originals[..]),
            Ids::Original { bound } => {
                flags |= FLAG_ORIGINAL_IDS;
                (*bound, &[][..])
            }
        };
        write_head(
            &mut out,
            flags,
            self.block_size,
            (count, self.refs),
            &self.source,
            originals,
        )?;
        let mut left = self.refs as usize;
        let mut buf = Vec::with_capacity(CHUNK * 8);
        while left > 0 {
            let k = left.min(CHUNK);
            for (bytes, keep) in [
                (k * 4, true),
                (k.div_ceil(8), self.any_write),
                (k * 8, self.any_time),
            ] {
                buf.resize(bytes, 0);
                spill.read_exact(&mut buf)?;
                if keep {
                    out.write_all(&buf)?;
                }
            }
            left -= k;
        }
        let crc = out.crc.clone().finalize();
        out.inner.write_all(&crc.to_le_bytes())?;
        out.inner.flush()?;
        Ok((self.refs, unique))
    }
}

/// Writes `trace` to a file at `path`.
pub fn write_file(trace: &BlockTrace, path: &Path) -> Result<()> {
    let mut file = crate::outfile::OutFile::create(path)?;
    write(trace, std::io::BufWriter::with_capacity(1 << 20, &mut file))
        .map_err(|e| Error::io(path, e))?;
    file.commit()
}

/// Reads a whole native trace (compressed or not) into memory.
pub fn load(path: &Path) -> Result<BlockTrace> {
    let mut dec = Decoder::open(open_trace(path)?, path.display().to_string())?;
    // The header's count is a claim until the data backs it: reserve at most a few chunks up
    // front (a 44-byte file claiming 4e9 references must not allocate 16 GB), then grow.
    let n = (dec.refs as usize).min(16 * CHUNK);
    let mut refs = Vec::with_capacity(n);
    let mut write_mask = dec.has_writes.then(|| Vec::with_capacity(n.div_ceil(8)));
    let mut times = dec.has_times.then(|| Vec::with_capacity(n));
    while dec.next_chunk()? {
        if refs.capacity() - refs.len() < dec.ids.len() {
            let (held, more) = (refs.len(), refs.len().max(dec.ids.len()));
            crate::error::try_reserve(&mut refs, more, || {
                format!("{}: the references held in memory (past {held})", dec.path)
            })?;
            if let Some(t) = &mut times {
                crate::error::try_reserve(t, more, || format!("{}: the timestamps", dec.path))?;
            }
        }
        refs.extend_from_slice(&dec.ids);
        if let Some(m) = &mut write_mask {
            m.extend_from_slice(&dec.mask);
        }
        if let Some(t) = &mut times {
            t.extend_from_slice(&dec.times);
        }
    }
    let originals = if dec.original_ids {
        densify(&mut refs, dec.bound)
    } else {
        std::mem::take(&mut dec.originals)
    };
    Ok(BlockTrace {
        source: std::mem::take(&mut dec.source),
        block_size: dec.block_size,
        refs,
        originals,
        write_mask,
        times,
    })
}

/// Renumbers original ids (all below `bound`) in order of first reference, as a file with an
/// id table holds them; returns the table.
fn densify(refs: &mut [u32], bound: u32) -> Vec<u64> {
    let mut originals = Vec::new();
    // A flat array when it is no bigger than the references themselves; a sparse one otherwise.
    if bound as usize <= refs.len().max(CHUNK) {
        let mut dense = vec![u32::MAX; bound as usize];
        for r in refs.iter_mut() {
            let d = &mut dense[*r as usize];
            if *d == u32::MAX {
                *d = originals.len() as u32;
                originals.push(*r as u64);
            }
            *r = *d;
        }
    } else {
        let mut dense = rustc_hash::FxHashMap::default();
        for r in refs.iter_mut() {
            let next = originals.len() as u32;
            let d = *dense.entry(*r).or_insert(next);
            if d == next {
                originals.push(*r as u64);
            }
            *r = d;
        }
    }
    originals
}

/// Streams a native trace as block requests (original ids), in constant memory beyond the id
/// table (none with original ids).
pub struct NativeRequests {
    dec: Decoder,
    pos: usize,
    failed: bool,
}

impl NativeRequests {
    /// Reads the header and id table of a decompressed native stream.
    pub fn open(input: Box<dyn BufRead + Send>, path: String) -> Result<Self> {
        Ok(NativeRequests {
            dec: Decoder::open(input, path)?,
            pos: 0,
            failed: false,
        })
    }

    /// Bytes per block recorded in the header.
    pub fn block_size(&self) -> u32 {
        self.dec.block_size
    }

    /// The source name recorded in the header.
    pub fn source(&self) -> &str {
        &self.dec.source
    }
}

impl Iterator for NativeRequests {
    type Item = Result<BlockRequest>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        if self.pos == self.dec.ids.len() {
            match self.dec.next_chunk() {
                Ok(true) => self.pos = 0,
                Ok(false) => return None,
                Err(e) => {
                    self.failed = true;
                    return Some(Err(e));
                }
            }
        }
        let j = self.pos;
        self.pos += 1;
        let write = self.dec.has_writes && self.dec.mask[j / 8] & (1 << (j % 8)) != 0;
        Some(Ok(BlockRequest {
            block: self.dec.original(self.dec.ids[j]),
            count: 1,
            op: if write { Op::Write } else { Op::Read },
            time_ns: self.dec.has_times.then(|| self.dec.times[j]),
        }))
    }
}

/// Reads a native trace chunk by chunk as stored (dense ids, or original ids under flag 2), for
/// the streaming engine: memory holds the id table and one chunk.
pub struct NativeChunks {
    dec: Decoder,
}

impl NativeChunks {
    /// Reads the header and id table of a decompressed native stream.
    pub fn open(input: Box<dyn BufRead + Send>, path: String) -> Result<Self> {
        Ok(NativeChunks {
            dec: Decoder::open(input, path)?,
        })
    }

    /// Bytes per block recorded in the header.
    pub fn block_size(&self) -> u32 {
        self.dec.block_size
    }

    /// The source name recorded in the header.
    pub fn source(&self) -> &str {
        &self.dec.source
    }

    /// References the header announces.
    pub fn refs(&self) -> u64 {
        self.dec.refs
    }

    /// Whether the file carries a write mask.
    pub fn has_writes(&self) -> bool {
        self.dec.has_writes
    }

    /// Whether ids are dense (numbered through the file's table); else they are original ids.
    pub fn dense(&self) -> bool {
        !self.dec.original_ids
    }

    /// Every id in the file is below this: the unique blocks when [`NativeChunks::dense`].
    pub fn bound(&self) -> u32 {
        self.dec.bound
    }

    /// The original block id of a stored id.
    pub fn original(&self, id: u32) -> u64 {
        self.dec.original(id)
    }

    /// The next chunk's ids and write mask (bit `j` of the mask: reference `j` writes); `None`
    /// once every reference was read and the checksum verified.
    pub fn next_chunk(&mut self) -> Result<Option<(&[u32], &[u8])>> {
        Ok(if self.dec.next_chunk()? {
            Some((&self.dec.ids, &self.dec.mask))
        } else {
            None
        })
    }
}

/// Reads the format chunk by chunk, validating as it goes.
struct Decoder {
    input: Box<dyn BufRead + Send>,
    path: String,
    crc: crc32fast::Hasher,
    offset: u64,
    block_size: u32,
    has_writes: bool,
    has_times: bool,
    original_ids: bool,
    /// Every id in the references is below this.
    bound: u32,
    refs: u64,
    done_refs: u64,
    source: String,
    originals: Vec<u64>,
    ids: Vec<u32>,
    mask: Vec<u8>,
    times: Vec<u64>,
    bytes: Vec<u8>,
    finished: bool,
}

impl Decoder {
    fn open(input: Box<dyn BufRead + Send>, path: String) -> Result<Decoder> {
        let mut d = Decoder {
            input,
            path,
            crc: crc32fast::Hasher::new(),
            offset: 0,
            block_size: 0,
            has_writes: false,
            has_times: false,
            original_ids: false,
            bound: 0,
            refs: 0,
            done_refs: 0,
            source: String::new(),
            originals: Vec::new(),
            ids: Vec::new(),
            mask: Vec::new(),
            times: Vec::new(),
            bytes: Vec::new(),
            finished: false,
        };
        d.fill(HEADER_BYTES as usize, "header")?;
        if &d.bytes[..8] != MAGIC {
            return Err(d.error_at(0, 0, "not a belady native trace (bad magic bytes)".into()));
        }
        let word = |b: &[u8], i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        let long = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        let version = word(&d.bytes, 8);
        if !(1..=VERSION).contains(&version) {
            return Err(d.error_at(
                0,
                8,
                format!(
                    "format version {version} is not supported (this build reads 1 to {VERSION})"
                ),
            ));
        }
        let flags = word(&d.bytes, 12);
        let known = FLAG_WRITES | FLAG_TIMES | if version >= 2 { FLAG_ORIGINAL_IDS } else { 0 };
        if flags & !known != 0 {
            return Err(d.error_at(
                0,
                12,
                format!("unknown flags {flags:#x} for format version {version}"),
            ));
        }
        d.has_writes = flags & FLAG_WRITES != 0;
        d.has_times = flags & FLAG_TIMES != 0;
        d.original_ids = flags & FLAG_ORIGINAL_IDS != 0;
        d.block_size = word(&d.bytes, 16);
        // The same check as `--block-size`: every engine divides by it.
        if super::check_block_size(d.block_size).is_err() {
            return Err(d.error_at(
                0,
                16,
                "block size 0 in the header: expected at least 1 byte".into(),
            ));
        }
        let unique = long(&d.bytes, 24);
        d.refs = long(&d.bytes, 32);
        if unique > u32::MAX as u64
            || d.refs >= u32::MAX as u64
            || (d.refs > 0 && unique == 0)
            || (unique > d.refs && !d.original_ids)
        {
            return Err(d.error_at(
                0,
                24,
                format!(
                    "inconsistent header: {unique} unique blocks, {} references",
                    d.refs
                ),
            ));
        }
        d.fill(4, "source length")?;
        let len = word(&d.bytes, 0) as usize;
        if len > 1 << 16 {
            return Err(d.error_at(
                0,
                d.offset - 4,
                format!("source name of {len} bytes is implausible"),
            ));
        }
        d.fill(len, "source name")?;
        d.source = String::from_utf8_lossy(&d.bytes).into_owned();
        d.bound = unique as u32;
        let mut remaining = if d.original_ids { 0 } else { unique as usize };
        // As above: the table grows as its bytes arrive, not by the header's word alone.
        d.originals.reserve_exact(remaining.min(16 * CHUNK));
        while remaining > 0 {
            let k = remaining.min(CHUNK);
            d.fill(k * 8, "block id table")?;
            d.originals.extend(
                d.bytes
                    .chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().unwrap())),
            );
            remaining -= k;
        }
        d.refuse_duplicate_ids()?;
        Ok(d)
    }

    /// Refuses an id table that names one block twice: two dense ids for one block would split
    /// its references (and make the file engine's runs of blocks overlap).
    fn refuse_duplicate_ids(&self) -> Result<()> {
        let mut sorted = self.originals.clone();
        sorted.sort_unstable();
        match sorted.windows(2).find(|w| w[0] == w[1]) {
            None => Ok(()),
            Some(w) => Err(self.error_at(
                0,
                self.offset - 8 * self.originals.len() as u64,
                format!("the block id table lists block {} twice", w[0]),
            )),
        }
    }

    /// The original block id of `id` (checked below `bound`).
    fn original(&self, id: u32) -> u64 {
        if self.original_ids {
            id as u64
        } else {
            self.originals[id as usize]
        }
    }

    /// An error at the current read position (where a truncated read stopped).
    fn error(&self, record: u64, msg: String) -> Error {
        self.error_at(record, self.offset, msg)
    }

    /// An error about the bytes at `offset`: the record's own position, not where reading got to.
    fn error_at(&self, record: u64, offset: u64, msg: String) -> Error {
        Error::Record {
            path: self.path.clone(),
            record,
            offset,
            msg,
        }
    }

    /// Reads exactly `n` bytes into `self.bytes`, feeding the checksum.
    fn fill(&mut self, n: usize, what: &str) -> Result<()> {
        self.bytes.resize(n, 0);
        if let Err(e) = self.input.read_exact(&mut self.bytes) {
            let msg = if e.kind() == std::io::ErrorKind::UnexpectedEof {
                format!("truncated in the {what}: expected {n} more bytes")
            } else {
                format!("unreadable {what}: {e}")
            };
            return Err(self.error(self.done_refs, msg));
        }
        self.crc.update(&self.bytes);
        self.offset += n as u64;
        Ok(())
    }

    /// Loads the next chunk; `false` once every reference was read and the checksum verified.
    fn next_chunk(&mut self) -> Result<bool> {
        self.ids.clear();
        self.mask.clear();
        self.times.clear();
        if self.finished {
            return Ok(false);
        }
        if self.done_refs == self.refs {
            self.finished = true;
            let expected = self.crc.clone().finalize();
            let mut tail = [0u8; 4];
            self.input
                .read_exact(&mut tail)
                .map_err(|_| self.error(self.refs, "truncated: the checksum is missing".into()))?;
            if u32::from_le_bytes(tail) != expected {
                return Err(self.error(self.refs, "checksum mismatch: the file is damaged".into()));
            }
            let mut extra = [0u8; 1];
            if self
                .input
                .read(&mut extra)
                .map_err(|e| Error::io(Path::new(&self.path), e))?
                != 0
            {
                return Err(self.error(self.refs, "unexpected bytes after the checksum".into()));
            }
            return Ok(false);
        }
        let k = ((self.refs - self.done_refs) as usize).min(CHUNK);
        let unique = self.bound;
        let start = self.offset;
        self.fill(k * 4, "block references")?;
        self.ids.extend(
            self.bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap())),
        );
        if let Some(j) = self.ids.iter().position(|&id| id >= unique) {
            let msg = if self.original_ids {
                format!(
                    "block id {} is not below the header's bound {unique}",
                    self.ids[j]
                )
            } else {
                format!(
                    "dense id {} is not below the {unique} unique blocks",
                    self.ids[j]
                )
            };
            return Err(self.error_at(self.done_refs + j as u64, start + 4 * j as u64, msg));
        }
        if self.has_writes {
            self.fill(k.div_ceil(8), "write mask")?;
            self.mask.extend_from_slice(&self.bytes);
        }
        if self.has_times {
            self.fill(k * 8, "timestamps")?;
            self.times.extend(
                self.bytes
                    .chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().unwrap())),
            );
        }
        self.done_refs += k as u64;
        Ok(true)
    }
}

struct Crc32Writer<W: Write> {
    inner: W,
    crc: crc32fast::Hasher,
}

impl<W: Write> Write for Crc32Writer<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::OpFilter;

    fn sample(n: usize) -> BlockTrace {
        let reqs = (0..n).map(|i| {
            Ok(BlockRequest {
                block: (i as u64 * 7919) % 1000,
                count: 1,
                op: if i % 3 == 0 { Op::Write } else { Op::Read },
                time_ns: Some(i as u64 * 10),
            })
        });
        BlockTrace::from_requests(reqs, OpFilter::All, true, "sample".into(), 512).unwrap()
    }

    fn encode(t: &BlockTrace) -> Vec<u8> {
        let mut bytes = Vec::new();
        write(t, &mut bytes).unwrap();
        bytes
    }

    fn decode(bytes: Vec<u8>) -> Result<BlockTrace> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.bldy");
        std::fs::write(&p, bytes).unwrap();
        load(&p)
    }

    #[test]
    fn a_header_claiming_billions_of_references_allocates_nothing_for_them() {
        // A valid header, then nothing: the counts say ~4e9 ids and references, the file is
        // truncated. Reserving by the counts took 32 GB for the table and 16 GB for the ids.
        let mut bytes = encode(&sample(3));
        // Keep the header and the source name ("sample", after its 4-byte length).
        bytes.truncate(HEADER_BYTES as usize + 4 + 6);
        bytes[24..32].copy_from_slice(&(u32::MAX as u64 - 1).to_le_bytes());
        bytes[32..40].copy_from_slice(&(u32::MAX as u64 - 1).to_le_bytes());
        let e = decode(bytes).unwrap_err().to_string();
        assert!(e.contains("truncated"), "{e}");
    }

    #[test]
    fn a_bad_id_names_its_own_offset_not_the_chunk_end() {
        let n = 10;
        let mut bytes = encode(&sample(n));
        // Layout from the end: checksum (4), timestamps (8 n), write mask (n/8 rounded up), ids.
        let ids_at = bytes.len() - 4 - 8 * n - n.div_ceil(8) - 4 * n;
        bytes[ids_at + 12..ids_at + 16].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = decode(bytes).unwrap_err().to_string();
        assert!(
            e.contains(&format!("record 3 (byte offset {})", ids_at + 12)),
            "{e}"
        );
    }

    #[test]
    fn round_trip_across_chunk_boundaries() {
        let t = sample(CHUNK * 2 + 5);
        // A file with a table is version 1, which every build reads.
        assert_eq!(encode(&t)[8..12], 1u32.to_le_bytes());
        assert_eq!(decode(encode(&t)).unwrap(), t);
        let streamed: Vec<BlockRequest> =
            NativeRequests::open(Box::new(std::io::Cursor::new(encode(&t))), "s".into())
                .unwrap()
                .map(|r| r.unwrap())
                .collect();
        assert_eq!(streamed.len(), t.refs.len());
        assert_eq!(streamed[3].block, t.originals[t.refs[3] as usize]);
        assert_eq!(streamed[3].op, Op::Write);
        assert_eq!(streamed[4].time_ns, Some(40));
    }

    #[test]
    fn streaming_writer_matches_the_whole_trace_writer() {
        let dir = tempfile::tempdir().unwrap();
        for (n, timed, writes) in [
            (CHUNK * 2 + 5, true, true),
            (1000, false, false),
            (0, false, false),
        ] {
            let reqs: Vec<BlockRequest> = (0..n)
                .map(|i| BlockRequest {
                    block: (i as u64 * 7919) % 1000,
                    count: 1,
                    op: if writes && i % 3 == 0 {
                        Op::Write
                    } else {
                        Op::Read
                    },
                    time_ns: timed.then_some(i as u64 * 10),
                })
                .collect();
            let whole = BlockTrace::from_requests(
                reqs.iter().copied().map(Ok),
                OpFilter::All,
                timed,
                "s".into(),
                512,
            )
            .unwrap();
            let mut w = StreamWriter::new(dir.path(), "s".into(), 512).unwrap();
            for r in &reqs {
                w.push(r.block, r.op, r.time_ns).unwrap();
            }
            let mut streamed = Vec::new();
            assert_eq!(
                w.finish(&mut streamed).unwrap(),
                (n as u64, Some(whole.unique()))
            );
            assert_eq!(streamed, encode(&whole), "{n} references");
        }
    }

    #[test]
    fn original_ids_load_like_a_file_with_a_table() {
        let dir = tempfile::tempdir().unwrap();
        // Few ids spread wide (renumbered sparsely) and many narrow ones (renumbered flat).
        for (n, step, width) in [
            (1000, 2_999_999, 3_000_000_000),
            (CHUNK * 2 + 5, 7919, 5000),
        ] {
            let reqs: Vec<BlockRequest> = (0..n)
                .map(|i| BlockRequest {
                    block: (i as u64 * step) % width,
                    count: 1,
                    op: if i % 3 == 0 { Op::Write } else { Op::Read },
                    time_ns: Some(i as u64 * 10),
                })
                .collect();
            let whole = BlockTrace::from_requests(
                reqs.iter().copied().map(Ok),
                OpFilter::All,
                true,
                "s".into(),
                512,
            )
            .unwrap();
            let mut w = StreamWriter::with_original_ids(dir.path(), "s".into(), 512).unwrap();
            for r in &reqs {
                w.push(r.block, r.op, r.time_ns).unwrap();
            }
            assert_eq!(w.table_bytes(), 0);
            let mut bytes = Vec::new();
            assert_eq!(w.finish(&mut bytes).unwrap(), (n as u64, None));
            assert_eq!(bytes[8..12], 2u32.to_le_bytes(), "version 2");
            assert_eq!(
                bytes.len() + whole.unique() * 8,
                encode(&whole).len(),
                "the same file without its table"
            );
            let streamed: Vec<BlockRequest> =
                NativeRequests::open(Box::new(std::io::Cursor::new(bytes.clone())), "s".into())
                    .unwrap()
                    .map(|r| r.unwrap())
                    .collect();
            assert_eq!(streamed, reqs);
            assert_eq!(decode(bytes).unwrap(), whole, "{n} references");
        }
    }

    #[test]
    fn only_dense_ids_hold_a_table_that_grows_with_distinct_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let held = |original: bool, n: u64| {
            let mut w = if original {
                StreamWriter::with_original_ids(dir.path(), "s".into(), 512)
            } else {
                StreamWriter::new(dir.path(), "s".into(), 512)
            }
            .unwrap();
            for b in 0..n {
                w.push(b, Op::Read, None).unwrap();
            }
            w.table_bytes()
        };
        assert!(held(false, 200_000) >= 5 * held(false, 20_000));
        assert_eq!(held(true, 200_000), 0);
    }

    #[test]
    fn ids_too_wide_to_keep_and_unknown_versions_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = StreamWriter::with_original_ids(dir.path(), "s".into(), 512).unwrap();
        let e = w.push(u32::MAX as u64, Op::Read, None).unwrap_err();
        assert!(e.to_string().contains("too large"), "{e}");
        w.push(5, Op::Read, None).unwrap();
        let mut bytes = Vec::new();
        w.finish(&mut bytes).unwrap();
        assert_eq!(decode(bytes.clone()).unwrap().originals, vec![5]);
        // Version 1 has no original-ids flag; later versions are refused by number.
        let mut v1 = bytes.clone();
        v1[8..12].copy_from_slice(&1u32.to_le_bytes());
        let e = decode(v1).unwrap_err().to_string();
        assert!(e.contains("unknown flags 0x4 for format version 1"), "{e}");
        let mut v3 = bytes.clone();
        v3[8..12].copy_from_slice(&3u32.to_le_bytes());
        let e = decode(v3).unwrap_err().to_string();
        assert!(e.contains("version 3 is not supported"), "{e}");
        // An id at or above the header's bound is damage, not a panic.
        let mut low = bytes;
        low[24..32].copy_from_slice(&5u64.to_le_bytes());
        let e = decode(low).unwrap_err().to_string();
        assert!(
            e.contains("block id 5 is not below the header's bound 5"),
            "{e}"
        );
    }

    #[test]
    fn damage_is_reported_not_panicked() {
        let bytes = encode(&sample(300));
        let mut flipped = bytes.clone();
        flipped[bytes.len() / 2] ^= 0x10;
        assert!(decode(flipped).is_err());
        let truncated = bytes[..bytes.len() - 9].to_vec();
        let e = decode(truncated).unwrap_err().to_string();
        assert!(e.contains("truncated"), "{e}");
        let mut bad_magic = bytes.clone();
        bad_magic[0] = b'X';
        assert!(decode(bad_magic).unwrap_err().to_string().contains("magic"));
        let mut extra = bytes;
        extra.push(0);
        assert!(decode(extra)
            .unwrap_err()
            .to_string()
            .contains("after the checksum"));
    }
}
