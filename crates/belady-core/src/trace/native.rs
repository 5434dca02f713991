//! belady's own binary trace format: dense ids, parsed once, loaded at memory speed.
//!
//! Layout, all integers little-endian (version 1):
//!
//! ```text
//! magic      8 bytes  "BELADYT\0"
//! version    u32      1
//! flags      u32      bit 0: write mask present; bit 1: timestamps present
//! block_size u32      bytes per block the ids were computed with
//! reserved   u32      0
//! unique     u64      number of distinct blocks
//! refs       u64      number of block references
//! source     u32 length + UTF-8 bytes
//! originals  unique × u64: original block id of each dense id
//! chunks     ⌈refs / 65536⌉ chunks of k ≤ 65536 references, each
//!              ids   k × u32 (dense, < unique)
//!              mask  ⌈k / 8⌉ bytes (if flag 0): bit j set when reference j writes
//!              times k × u64 nanoseconds (if flag 1)
//! checksum   u32      CRC-32 of every preceding byte
//! ```
//!
//! Chunks keep the per-reference fields together so that a reader can stream the file.

use super::dense::BlockTrace;
use super::input::open_trace;
use super::{BlockRequest, Op};
use crate::error::{Error, Result};
use std::io::{BufRead, Read, Write};
use std::path::Path;

/// First bytes of every native trace.
pub const MAGIC: &[u8; 8] = b"BELADYT\0";
/// The version this build writes and reads.
pub const VERSION: u32 = 1;
const FLAG_WRITES: u32 = 1;
const FLAG_TIMES: u32 = 2;
const CHUNK: usize = 65536;
const HEADER_BYTES: u64 = 40;

/// Writes the fixed header, the source name and the id table.
fn write_head(
    out: &mut impl Write,
    flags: u32,
    block_size: u32,
    refs: u64,
    source: &str,
    originals: &[u64],
) -> std::io::Result<()> {
    out.write_all(MAGIC)?;
    for word in [VERSION, flags, block_size, 0] {
        out.write_all(&word.to_le_bytes())?;
    }
    out.write_all(&(originals.len() as u64).to_le_bytes())?;
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
        trace.refs.len() as u64,
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
/// spill file and are copied behind the table by [`StreamWriter::finish`]. Memory holds one
/// table entry per distinct block plus one chunk; the output is byte-identical to [`write`] of
/// the same references (write mask and timestamps are kept when any reference has one).
pub struct StreamWriter {
    spill: std::io::BufWriter<std::fs::File>,
    ids: rustc_hash::FxHashMap<u64, u32>,
    originals: Vec<u64>,
    chunk_ids: Vec<u32>,
    chunk_mask: Vec<u8>,
    chunk_times: Vec<u64>,
    refs: u64,
    any_write: bool,
    any_time: bool,
    block_size: u32,
    source: String,
}

/// Most references one native file holds (dense positions are 32-bit, one value is reserved).
pub const MAX_REFS: u64 = u32::MAX as u64 - 1;

impl StreamWriter {
    /// Starts a trace whose spill file lives in `dir` (the output's folder, so it has the room).
    pub fn new(dir: &Path, source: String, block_size: u32) -> Result<StreamWriter> {
        let spill = tempfile::tempfile_in(dir).map_err(|e| Error::io(dir, e))?;
        Ok(StreamWriter {
            spill: std::io::BufWriter::with_capacity(1 << 20, spill),
            ids: rustc_hash::FxHashMap::default(),
            originals: Vec::new(),
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

    /// Distinct blocks written so far.
    pub fn unique(&self) -> usize {
        self.originals.len()
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
        let next = self.originals.len() as u32;
        let id = *self.ids.entry(block).or_insert(next);
        if id == next {
            self.originals.push(block);
        }
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
                .map_err(|e| Error::io(Path::new("<spill file>"), e))?;
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

    /// Writes the whole trace to `out`; returns the references and distinct blocks written.
    pub fn finish(mut self, out: impl Write) -> std::io::Result<(u64, usize)> {
        use std::io::Seek;
        if !self.chunk_ids.is_empty() {
            self.spill_chunk()?;
        }
        let mut spill = self.spill.into_inner().map_err(|e| e.into_error())?;
        spill.seek(std::io::SeekFrom::Start(0))?;
        let mut spill = std::io::BufReader::with_capacity(1 << 20, spill);
        let mut out = Crc32Writer {
            inner: out,
            crc: crc32fast::Hasher::new(),
        };
        let flags = if self.any_write { FLAG_WRITES } else { 0 }
            | if self.any_time { FLAG_TIMES } else { 0 };
        write_head(
            &mut out,
            flags,
            self.block_size,
            self.refs,
            &self.source,
            &self.originals,
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
        Ok((self.refs, self.originals.len()))
    }
}

/// Writes `trace` to a file at `path`.
pub fn write_file(trace: &BlockTrace, path: &Path) -> Result<()> {
    let file = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
    write(trace, std::io::BufWriter::with_capacity(1 << 20, file)).map_err(|e| Error::io(path, e))
}

/// Reads a whole native trace (compressed or not) into memory.
pub fn load(path: &Path) -> Result<BlockTrace> {
    let mut dec = Decoder::open(open_trace(path)?, path.display().to_string())?;
    let n = dec.refs as usize;
    let mut refs = Vec::with_capacity(n);
    let mut write_mask = dec.has_writes.then(|| Vec::with_capacity(n.div_ceil(8)));
    let mut times = dec.has_times.then(|| Vec::with_capacity(n));
    while dec.next_chunk()? {
        refs.extend_from_slice(&dec.ids);
        if let Some(m) = &mut write_mask {
            m.extend_from_slice(&dec.mask);
        }
        if let Some(t) = &mut times {
            t.extend_from_slice(&dec.times);
        }
    }
    Ok(BlockTrace {
        source: std::mem::take(&mut dec.source),
        block_size: dec.block_size,
        refs,
        originals: std::mem::take(&mut dec.originals),
        write_mask,
        times,
    })
}

/// Streams a native trace as block requests (original ids), in constant memory beyond the id table.
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
            block: self.dec.originals[self.dec.ids[j] as usize],
            count: 1,
            op: if write { Op::Write } else { Op::Read },
            time_ns: self.dec.has_times.then(|| self.dec.times[j]),
        }))
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
            return Err(d.error(0, "not a belady native trace (bad magic bytes)".into()));
        }
        let word = |b: &[u8], i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        let long = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        let version = word(&d.bytes, 8);
        if version != VERSION {
            return Err(d.error(
                0,
                format!("format version {version} is not supported (this build reads {VERSION})"),
            ));
        }
        let flags = word(&d.bytes, 12);
        if flags & !(FLAG_WRITES | FLAG_TIMES) != 0 {
            return Err(d.error(0, format!("unknown flags {flags:#x}")));
        }
        d.has_writes = flags & FLAG_WRITES != 0;
        d.has_times = flags & FLAG_TIMES != 0;
        d.block_size = word(&d.bytes, 16);
        let unique = long(&d.bytes, 24);
        d.refs = long(&d.bytes, 32);
        if unique > u32::MAX as u64
            || d.refs >= u32::MAX as u64
            || (d.refs > 0 && unique == 0)
            || unique > d.refs
        {
            return Err(d.error(
                0,
                format!(
                    "inconsistent header: {unique} unique blocks, {} references",
                    d.refs
                ),
            ));
        }
        d.fill(4, "source length")?;
        let len = word(&d.bytes, 0) as usize;
        if len > 1 << 16 {
            return Err(d.error(0, format!("source name of {len} bytes is implausible")));
        }
        d.fill(len, "source name")?;
        d.source = String::from_utf8_lossy(&d.bytes).into_owned();
        let mut remaining = unique as usize;
        d.originals.reserve_exact(remaining);
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
        Ok(d)
    }

    fn error(&self, record: u64, msg: String) -> Error {
        Error::Record {
            path: self.path.clone(),
            record,
            offset: self.offset,
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
        let unique = self.originals.len() as u32;
        self.fill(k * 4, "block references")?;
        self.ids.extend(
            self.bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap())),
        );
        if let Some(j) = self.ids.iter().position(|&id| id >= unique) {
            let msg = format!(
                "dense id {} is not below the {unique} unique blocks",
                self.ids[j]
            );
            return Err(self.error(self.done_refs + j as u64, msg));
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
    fn round_trip_across_chunk_boundaries() {
        let t = sample(CHUNK * 2 + 5);
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
            assert_eq!(w.finish(&mut streamed).unwrap(), (n as u64, whole.unique()));
            assert_eq!(streamed, encode(&whole), "{n} references");
        }
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
