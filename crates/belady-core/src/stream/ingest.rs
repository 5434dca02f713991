//! Turning a block trace into a stream of dense ids, in memory bounded by the unique blocks.
//!
//! A native file with a dense id table and nothing to filter streams as it is stored. Every
//! other trace is read once, its ids mapped to dense ids in order of first reference (as
//! [`crate::trace::BlockTrace`] numbers them, so results are the same) and the dense ids spooled:
//! in memory up to [`MEM_REFS`] references, then to an anonymous temporary file. The spool makes
//! the unique blocks known before the first run starts (percent sizes and the policies' tables
//! need it) without holding the trace in memory; reading it back costs little next to parsing.

use super::{requests, text};
use crate::error::{Error, Result};
use crate::trace::native::NativeChunks;
use crate::trace::{input, Format, Op, OpFilter, ReadOptions};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, Write};
use std::path::Path;

/// References per chunk handed to the runs: small enough to stay in L2 beside a run's state.
pub const CHUNK: usize = 1 << 15;
/// Largest id bound of a native file with original ids that is renumbered through a flat
/// array (4 bytes per id below the bound: 64 MiB at most) rather than a hash table.
const FLAT_BOUND: u32 = 1 << 24;
/// References a spool keeps in memory before it moves to a temporary file.
pub const MEM_REFS: usize = if cfg!(test) { 1 << 12 } else { 1 << 20 };

/// A trace's dense ids, ready to be read chunk by chunk.
pub struct Ingested {
    /// The trace's name for reports.
    pub source: String,
    /// Bytes per block the ids were computed with.
    pub block_size: u32,
    /// Distinct blocks (every dense id is below this).
    pub unique: usize,
    /// Block references.
    pub refs: u64,
    feed: Feed,
}

enum Feed {
    Native(Box<NativeChunks>),
    Memory { ids: Vec<u32>, pos: usize },
    Spill(Box<SpillReader>),
}

struct SpillReader {
    file: BufReader<File>,
    left: u64,
    ids: Vec<u32>,
    bytes: Vec<u8>,
}

impl Ingested {
    /// Whether [`Ingested::rewind`] can start over: not for a native file read through a pipe.
    pub fn can_rewind(&self, path: &Path) -> bool {
        !matches!(self.feed, Feed::Native(_)) || std::fs::metadata(path).is_ok_and(|m| m.is_file())
    }

    /// Starts the stream again from its first chunk, for another group of runs (see
    /// [`Ingested::can_rewind`]).
    pub fn rewind(&mut self, path: &Path) -> Result<()> {
        match &mut self.feed {
            Feed::Native(chunks) => {
                **chunks =
                    NativeChunks::open(input::open_trace(path)?, path.display().to_string())?;
            }
            Feed::Memory { pos, .. } => *pos = 0,
            Feed::Spill(s) => {
                s.file
                    .seek(std::io::SeekFrom::Start(0))
                    .map_err(|e| Error::io(Path::new("<spool file>"), e))?;
                s.left = self.refs;
            }
        }
        Ok(())
    }

    /// The next chunk of dense ids; `None` at the end. A native file's checksum is verified
    /// when its last chunk has been read, so callers must read to the end before trusting
    /// anything computed from the chunks.
    pub fn next_chunk(&mut self) -> Result<Option<&[u32]>> {
        match &mut self.feed {
            Feed::Native(chunks) => Ok(chunks.next_chunk()?.map(|(ids, _)| ids)),
            Feed::Memory { ids, pos } => {
                if *pos == ids.len() {
                    return Ok(None);
                }
                let end = (*pos + CHUNK).min(ids.len());
                let chunk = &ids[*pos..end];
                *pos = end;
                Ok(Some(chunk))
            }
            Feed::Spill(s) => {
                if s.left == 0 {
                    return Ok(None);
                }
                let k = (s.left as usize).min(CHUNK);
                s.bytes.resize(k * 4, 0);
                s.file
                    .read_exact(&mut s.bytes)
                    .map_err(|e| Error::io(Path::new("<spool file>"), e))?;
                s.ids.clear();
                s.ids.extend(
                    s.bytes
                        .chunks_exact(4)
                        .map(|c| u32::from_le_bytes(c.try_into().unwrap())),
                );
                s.left -= k as u64;
                Ok(Some(&s.ids))
            }
        }
    }
}

/// Maps original block ids to dense ids in order of first reference.
///
/// An open-addressing table (linear probing, one 16-byte slot per entry, at most three quarters
/// full) rather than a general hash map, so that [`Mapper::map_all`] can prefetch each slot a
/// few lookups ahead: with a million distinct ids the table is far bigger than the caches, and
/// one memory miss per reference is what mapping costs.
pub(crate) struct Mapper {
    slots: Vec<Slot>,
    /// `slots.len() - 1` (a power of two minus one).
    mask: usize,
    /// `64 - log2(slots.len())`: the hash bits that are not the home slot.
    shift: u32,
    /// Distinct ids mapped so far.
    len: usize,
}

#[derive(Copy, Clone)]
#[repr(C, align(16))]
struct Slot {
    key: u64,
    /// Dense id, or `EMPTY`.
    value: u32,
}

const EMPTY: u32 = u32::MAX;
const EMPTY_SLOT: Slot = Slot {
    key: 0,
    value: EMPTY,
};

impl Mapper {
    /// A mapper whose table starts with room for `expected` ids (an estimate; it grows).
    pub(crate) fn with_capacity(expected: usize) -> Mapper {
        let slots = (expected.max(1024) * 4 / 3).next_power_of_two();
        Mapper {
            slots: vec![EMPTY_SLOT; slots],
            mask: slots - 1,
            shift: 64 - slots.trailing_zeros(),
            len: 0,
        }
    }

    #[inline(always)]
    fn home(&self, key: u64) -> usize {
        // Fibonacci hashing: the high bits of a multiplicative hash.
        let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> self.shift) as usize
    }

    /// The dense id of `original`, numbering it next when it is new.
    #[inline(always)]
    pub(crate) fn map(&mut self, original: u64) -> u32 {
        let mut i = self.home(original);
        loop {
            let slot = self.slots[i];
            if slot.value == EMPTY {
                break;
            }
            if slot.key == original {
                return slot.value;
            }
            i = (i + 1) & self.mask;
        }
        let id = self.len as u32;
        self.slots[i] = Slot {
            key: original,
            value: id,
        };
        self.len += 1;
        if self.len * 4 > self.slots.len() * 3 {
            self.grow();
        }
        id
    }

    /// Maps `originals` in order, pushing each dense id to `spool`. The slot of the id
    /// [`AHEAD`] places on is prefetched before each lookup, so memory misses overlap instead of
    /// following one another; the spool's room is checked once per stretch, not per id.
    pub(crate) fn map_all(&mut self, originals: &[u64], spool: &mut Spool) -> Result<()> {
        for &o in originals.iter().take(AHEAD) {
            prefetch(&self.slots[self.home(o)]);
        }
        let mut done = 0;
        while done < originals.len() {
            let end = done + spool.room().min(originals.len() - done);
            for i in done..end {
                if let Some(&next) = originals.get(i + AHEAD) {
                    prefetch(&self.slots[self.home(next)]);
                }
                let id = self.map(originals[i]);
                spool.ids.push(id);
            }
            spool.settle()?;
            done = end;
        }
        Ok(())
    }

    /// Maps the blocks `starts[i] .. starts[i] + counts[i]` of every request in order (ARC's
    /// ranges), a batch of consecutive blocks at a time through [`Mapper::map_all`].
    pub(crate) fn map_ranges(
        &mut self,
        starts: &[u64],
        counts: &[u32],
        spool: &mut Spool,
    ) -> Result<()> {
        let mut batch: Vec<u64> = Vec::with_capacity(BATCH);
        for (&start, &count) in starts.iter().zip(counts) {
            for k in 0..count as u64 {
                batch.push(start + k);
                if batch.len() == BATCH {
                    self.map_all(&batch, spool)?;
                    batch.clear();
                }
            }
        }
        self.map_all(&batch, spool)
    }

    fn grow(&mut self) {
        let bigger = vec![EMPTY_SLOT; self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, bigger);
        self.mask = self.slots.len() - 1;
        self.shift = 64 - self.slots.len().trailing_zeros();
        for slot in old.into_iter().filter(|s| s.value != EMPTY) {
            let mut i = self.home(slot.key);
            while self.slots[i].value != EMPTY {
                i = (i + 1) & self.mask;
            }
            self.slots[i] = slot;
        }
    }

    pub(crate) fn unique(&self) -> usize {
        self.len
    }
}

/// How far ahead of its lookup an id's slot is prefetched: enough misses in flight to cover
/// memory latency, few enough that the lines are still cached when used.
const AHEAD: usize = 16;
/// Block ids of ARC ranges expanded at a time.
const BATCH: usize = 1024;

/// Asks the CPU to bring `slot`'s cache line in (a hint: no effect on results).
#[inline]
fn prefetch(slot: &Slot) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint that never faults, and SSE is part of every x86_64 target.
    unsafe {
        std::arch::x86_64::_mm_prefetch(
            slot as *const Slot as *const i8,
            std::arch::x86_64::_MM_HINT_T0,
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = slot;
}

/// Dense ids collected in memory and, past [`MEM_REFS`], in an anonymous temporary file.
pub(crate) struct Spool {
    ids: Vec<u32>,
    file: Option<BufWriter<File>>,
    spilled: u64,
    bytes: Vec<u8>,
}

impl Spool {
    pub(crate) fn new() -> Spool {
        Spool {
            ids: Vec::with_capacity(CHUNK),
            file: None,
            spilled: 0,
            bytes: Vec::new(),
        }
    }

    /// References pushed so far.
    pub(crate) fn len(&self) -> u64 {
        self.spilled + self.ids.len() as u64
    }

    #[inline]
    pub(crate) fn push(&mut self, id: u32) -> Result<()> {
        self.ids.push(id);
        if self.ids.len() >= MEM_REFS {
            self.spill()?;
        }
        Ok(())
    }

    /// Ids that can be pushed to `ids` directly before [`Spool::settle`] must run (at least 1).
    #[inline]
    fn room(&self) -> usize {
        MEM_REFS - self.ids.len()
    }

    /// Spills the memory part once it is full (after direct pushes within [`Spool::room`]).
    #[inline]
    fn settle(&mut self) -> Result<()> {
        if self.ids.len() >= MEM_REFS {
            self.spill()?;
        }
        Ok(())
    }

    fn spill(&mut self) -> Result<()> {
        let spool_err = |e| Error::io(Path::new("<spool file>"), e);
        if self.file.is_none() {
            self.file = Some(BufWriter::with_capacity(
                1 << 20,
                tempfile::tempfile().map_err(spool_err)?,
            ));
        }
        // Element-wise into a sized buffer: this compiles to a plain copy on little-endian.
        self.bytes.resize(self.ids.len() * 4, 0);
        for (b, id) in self.bytes.chunks_exact_mut(4).zip(&self.ids) {
            b.copy_from_slice(&id.to_le_bytes());
        }
        let file = self.file.as_mut().expect("created above");
        file.write_all(&self.bytes).map_err(spool_err)?;
        self.spilled += self.ids.len() as u64;
        self.ids.clear();
        Ok(())
    }

    fn into_feed(mut self) -> Result<Feed> {
        if self.file.is_none() {
            return Ok(Feed::Memory {
                ids: self.ids,
                pos: 0,
            });
        }
        self.spill()?;
        let spool_err = |e| Error::io(Path::new("<spool file>"), e);
        let mut file = self
            .file
            .take()
            .expect("spilled")
            .into_inner()
            .map_err(|e| spool_err(e.into_error()))?;
        file.seek(std::io::SeekFrom::Start(0)).map_err(spool_err)?;
        Ok(Feed::Spill(Box::new(SpillReader {
            file: BufReader::with_capacity(1 << 20, file),
            left: self.spilled,
            ids: Vec::with_capacity(CHUNK),
            bytes: Vec::with_capacity(CHUNK * 4),
        })))
    }
}

/// Reads the block trace at `path` into a dense-id stream, keeping the requests `ops` selects.
pub fn ingest(path: &Path, format: &Format, opts: &ReadOptions, ops: OpFilter) -> Result<Ingested> {
    let name = path.display().to_string();
    let ingested = match format {
        Format::Native => ingest_native(path, ops)?,
        Format::Lirs | Format::Arc => {
            let mut mapper = Mapper::with_capacity(expected_ids(path));
            let mut spool = Spool::new();
            text::parse(path, format, opts, ops, &mut mapper, &mut spool)?;
            finish(name, opts.block_size, mapper, spool)?
        }
        _ => {
            let mut mapper = Mapper::with_capacity(expected_ids(path));
            let mut spool = Spool::new();
            requests::parse(path, format, opts, ops, &mut mapper, &mut spool)?;
            finish(name, opts.block_size, mapper, spool)?
        }
    };
    if ingested.unique == 0 {
        return Err(Error::EmptyTrace {
            path: path.display().to_string(),
            what: ops.noun().to_string(),
        });
    }
    Ok(ingested)
}

pub(crate) fn finish(
    source: String,
    block_size: u32,
    mapper: Mapper,
    spool: Spool,
) -> Result<Ingested> {
    Ok(Ingested {
        source,
        block_size,
        unique: mapper.unique(),
        refs: spool.len(),
        feed: spool.into_feed()?,
    })
}

/// A first guess at the distinct ids, so the table rarely rehashes: a compressed or small
/// file gets no reservation (the table grows as needed).
fn expected_ids(path: &Path) -> usize {
    let len = std::fs::metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map_or(0, |m| m.len());
    // About 8 bytes a line, and traces reuse blocks: a sixteenth is the middle of the range;
    // capped so a long trace over few blocks does not reserve much more than it uses.
    ((len / 128) as usize).min(1 << 20)
}

fn ingest_native(path: &Path, ops: OpFilter) -> Result<Ingested> {
    let mut chunks = NativeChunks::open(input::open_trace(path)?, path.display().to_string())?;
    // Reports name the file as the user gave it, not the name recorded inside it.
    let source = path.display().to_string();
    let block_size = chunks.block_size();
    let keeps_all = match ops {
        OpFilter::All => true,
        OpFilter::Read => !chunks.has_writes(),
        OpFilter::Write => false,
    };
    if keeps_all && chunks.dense() {
        return Ok(Ingested {
            source,
            block_size,
            unique: chunks.bound() as usize,
            refs: chunks.refs(),
            feed: Feed::Native(Box::new(chunks)),
        });
    }
    // Filtered or original ids: renumber in order of first reference, as `BlockTrace` does.
    // Original ids below a small bound (a generator's) map through a flat array, as `load`
    // does: no hashing.
    let flat_ids = !chunks.dense() && chunks.bound() <= FLAT_BOUND;
    let mut flat = if flat_ids {
        vec![u32::MAX; chunks.bound() as usize]
    } else {
        Vec::new()
    };
    let mut flat_unique = 0u32;
    let mut mapper = Mapper::with_capacity(if flat_ids {
        0
    } else {
        (chunks.bound() as usize).min(1 << 20)
    });
    let mut spool = Spool::new();
    let has_writes = chunks.has_writes();
    let mut kept = Vec::with_capacity(CHUNK);
    while let Some((ids, mask)) = chunks.next_chunk()? {
        kept.clear();
        for (j, &id) in ids.iter().enumerate() {
            let write = has_writes && mask[j / 8] & (1 << (j % 8)) != 0;
            let op = if write { Op::Write } else { Op::Read };
            if ops.keeps(op) {
                kept.push(id);
            }
        }
        if flat_ids {
            for &id in &kept {
                let d = &mut flat[id as usize];
                if *d == u32::MAX {
                    *d = flat_unique;
                    flat_unique += 1;
                }
                spool.push(*d)?;
            }
        } else {
            for &id in &kept {
                spool.push(mapper.map(chunks.original(id)))?;
            }
        }
    }
    let mut done = finish(source, block_size, mapper, spool)?;
    if flat_ids {
        done.unique = flat_unique as usize;
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapper_numbers_by_first_reference_across_growth_and_batches() {
        let mut m = Mapper::with_capacity(1);
        let mut spool = Spool::new();
        // Keys that collide in the low bits and the extremes of u64.
        let keys: Vec<u64> = (0..5000u64)
            .map(|i| (i % 3000) << 40)
            .chain([u64::MAX, 0, u64::MAX])
            .collect();
        for batch in keys.chunks(700) {
            m.map_all(batch, &mut spool).unwrap();
        }
        let unique = m.unique();
        // 5003 ids: the spool spills (its memory part holds 4096 under test).
        let mut feed = finish("t".into(), 4096, m, spool).unwrap();
        let mut ids = Vec::new();
        while let Some(chunk) = feed.next_chunk().unwrap() {
            ids.extend_from_slice(chunk);
        }
        let mut first = std::collections::HashMap::new();
        let want: Vec<u32> = keys
            .iter()
            .map(|&k| {
                let n = first.len() as u32;
                *first.entry(k).or_insert(n)
            })
            .collect();
        assert_eq!(ids, want);
        assert_eq!(unique, 3001);
        assert_eq!(feed.refs, 5003);
    }
}
