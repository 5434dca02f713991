//! Writing the native format: a whole [`BlockTrace`] at once, or reference by reference.

use super::{CHUNK, FLAG_ORIGINAL_IDS, FLAG_SIZES, FLAG_TIMES, FLAG_WRITES, MAGIC};
use crate::error::{Error, Result};
use crate::trace::dense::BlockTrace;
use crate::trace::{Op, SizeTotals};
use std::io::{Read, Write};
use std::path::Path;

/// Writes the fixed header, the source name, the size totals (with [`FLAG_SIZES`]) and the id
/// table (`unique` counts the table's entries, or bounds the ids when the table is empty under
/// [`FLAG_ORIGINAL_IDS`]).
fn write_head(
    out: &mut impl Write,
    flags: u32,
    block_size: u32,
    (unique, refs): (u64, u64),
    source: &str,
    totals: Option<SizeTotals>,
    originals: &[u64],
) -> std::io::Result<()> {
    out.write_all(MAGIC)?;
    // The lowest version that has the flags used, so older builds read what they can.
    let version = if flags & FLAG_SIZES != 0 {
        3
    } else if flags & FLAG_ORIGINAL_IDS != 0 {
        2
    } else {
        1
    };
    for word in [version, flags, block_size, 0] {
        out.write_all(&word.to_le_bytes())?;
    }
    out.write_all(&unique.to_le_bytes())?;
    out.write_all(&refs.to_le_bytes())?;
    out.write_all(&(source.len() as u32).to_le_bytes())?;
    out.write_all(source.as_bytes())?;
    if let Some(t) = totals {
        out.write_all(&t.requested.to_le_bytes())?;
        out.write_all(&t.footprint.to_le_bytes())?;
    }
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

/// The byte totals of a trace with object sizes (see [`SizeTotals`]).
pub fn size_totals(trace: &BlockTrace) -> Option<SizeTotals> {
    let sizes = trace.sizes.as_ref()?;
    let mut seen = vec![false; trace.unique()];
    let mut totals = SizeTotals::default();
    for (&r, &size) in trace.refs.iter().zip(sizes) {
        totals.requested += size as u64;
        if !std::mem::replace(&mut seen[r as usize], true) {
            totals.footprint += size as u64;
        }
    }
    Some(totals)
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
    } | if trace.times.is_some() { FLAG_TIMES } else { 0 }
        | if trace.sizes.is_some() { FLAG_SIZES } else { 0 };
    write_head(
        &mut out,
        flags,
        trace.block_size,
        (trace.originals.len() as u64, trace.refs.len() as u64),
        &trace.source,
        size_totals(trace),
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
        if let Some(sizes) = &trace.sizes {
            sizes[c * CHUNK..c * CHUNK + ids.len()]
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
/// the output is byte-identical to [`write()`] of the same references; with original ids
/// ([`StreamWriter::with_original_ids`]) it holds one chunk. Write mask and timestamps are kept
/// when any reference has one.
pub struct StreamWriter {
    spill: std::io::BufWriter<std::fs::File>,
    ids: Ids,
    chunk_ids: Vec<u32>,
    chunk_mask: Vec<u8>,
    chunk_times: Vec<u64>,
    chunk_sizes: Vec<u32>,
    refs: u64,
    any_write: bool,
    any_time: bool,
    /// Whether references carry object sizes: set by the first push (see [`StreamWriter::push_sized`]).
    sized: Option<bool>,
    totals: SizeTotals,
    /// Original ids seen so far, one bit each up to the largest (sized traces with original
    /// ids: the footprint counts an object's first size): 512 MiB at ids near `u32::MAX`, so
    /// wide sized traces should use dense ids.
    seen: Vec<u64>,
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

/// How errors writing the spill name it (it is anonymous, in the output's folder).
const SPILL_NAME: &str = "the native output's spill file (beside the output)";

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
            ids,
            chunk_ids: Vec::with_capacity(CHUNK),
            chunk_mask: Vec::with_capacity(CHUNK / 8),
            chunk_times: Vec::with_capacity(CHUNK),
            chunk_sizes: Vec::new(),
            refs: 0,
            any_write: false,
            any_time: false,
            sized: None,
            totals: SizeTotals::default(),
            seen: Vec::new(),
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
        self.push_with(block, op, time_ns, None)
    }

    /// Appends one reference to object `block` of `size` bytes (at least 1). A trace's
    /// references either all carry sizes or none does.
    pub fn push_sized(
        &mut self,
        block: u64,
        op: Op,
        time_ns: Option<u64>,
        size: u32,
    ) -> Result<()> {
        self.push_with(block, op, time_ns, Some(size))
    }

    fn push_with(
        &mut self,
        block: u64,
        op: Op,
        time_ns: Option<u64>,
        size: Option<u32>,
    ) -> Result<()> {
        if *self.sized.get_or_insert(size.is_some()) != size.is_some() {
            return Err(Error::config(
                "trace",
                &self.source,
                format!(
                    "reference {} {} an object size where the earlier ones did not: a native trace's references all carry sizes or none does",
                    self.refs,
                    if size.is_some() { "has" } else { "lacks" }
                ),
            ));
        }
        if size == Some(0) {
            return Err(Error::config(
                "trace",
                &self.source,
                format!(
                    "reference {} has an object size of 0 bytes; sizes are at least 1",
                    self.refs
                ),
            ));
        }
        if self.refs >= MAX_REFS {
            return Err(Error::config(
                "trace",
                &self.source,
                format!("a native trace holds at most {MAX_REFS} block references"),
            ));
        }
        let mut first = false;
        let id = match &mut self.ids {
            Ids::Dense { map, originals } => {
                let next = originals.len() as u32;
                let id = *map.entry(block).or_insert(next);
                if id == next {
                    originals.push(block);
                    first = true;
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
                if size.is_some() {
                    let (word, bit) = (block as usize / 64, block % 64);
                    if word >= self.seen.len() {
                        self.seen.resize(word + 1, 0);
                    }
                    first = self.seen[word] & (1 << bit) == 0;
                    self.seen[word] |= 1 << bit;
                }
                block as u32
            }
        };
        if let Some(size) = size {
            self.totals.requested += size as u64;
            if first {
                self.totals.footprint += size as u64;
            }
            self.chunk_sizes.push(size);
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
                .map_err(|e| Error::io(Path::new(SPILL_NAME), e))?;
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
        self.chunk_sizes
            .iter()
            .for_each(|t| buf.extend_from_slice(&t.to_le_bytes()));
        self.spill.write_all(&buf)?;
        self.chunk_ids.clear();
        self.chunk_mask.clear();
        self.chunk_times.clear();
        self.chunk_sizes.clear();
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
        let sized = self.sized == Some(true);
        let mut flags = if self.any_write { FLAG_WRITES } else { 0 }
            | if self.any_time { FLAG_TIMES } else { 0 }
            | if sized { FLAG_SIZES } else { 0 };
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
            sized.then_some(self.totals),
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
                (if sized { k * 4 } else { 0 }, sized),
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
