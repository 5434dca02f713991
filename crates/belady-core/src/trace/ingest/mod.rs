//! Turning a block trace into a stream of dense ids, in memory bounded by the unique blocks.
//!
//! A native file with a dense id table and nothing to filter streams as it is stored. Every
//! other trace is read once, its ids mapped to dense ids in order of first reference (as
//! [`crate::trace::BlockTrace`] numbers them, so results are the same) and the dense ids spooled:
//! in memory up to [`MEM_REFS`] references (more while the id table leaves room in
//! `INGEST_BUDGET`), then to an anonymous temporary file. The spool makes
//! the unique blocks known before the first run starts (percent sizes and the policies' tables
//! need it) without holding the trace in memory; reading it back costs little next to parsing.
//!
//! An object trace (oracleGeneral, lcs, or a native file that kept their sizes) read through
//! [`ingest_sized`] spools each reference's object size beside its id, in a second spool, and
//! counts the bytes requested and the byte footprint on the way; [`ingest`] reads ids alone,
//! exactly as before sizes were kept.

pub mod file_spool;
mod mapper;
mod requests;
mod text;

use crate::error::{Error, Result};
use crate::trace::dense::NEVER;
use crate::trace::native::NativeChunks;
pub use crate::trace::SizeTotals;
use crate::trace::{input, BlockTrace, Format, Op, OpFilter, ReadOptions};
pub(crate) use mapper::Mapper;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, Write};
use std::path::Path;

/// References per chunk handed to the runs: small enough to stay in L2 beside a run's state.
pub const CHUNK: usize = 1 << 15;
/// Largest id bound of a native file with original ids that is renumbered through a flat
/// array (4 bytes per id below the bound: 64 MiB at most) rather than a hash table.
const FLAT_BOUND: u32 = 1 << 24;
/// References a spool keeps in memory before it moves to a temporary file, at least.
pub const MEM_REFS: usize = if cfg!(test) { 1 << 12 } else { 1 << 20 };
/// Bytes the id table and the spool's memory part may hold together (48 MiB) when ids are mapped
/// in batches: a trace whose ids map through a small table keeps more references in memory and
/// so spills less or not at all (a 10 M-reference trace numbered from 0 not at all). The
/// memory part never falls below [`MEM_REFS`]. Zero under test: tests spill as before.
const INGEST_BUDGET: usize = if cfg!(test) { 0 } else { 48 << 20 };

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
    /// Byte totals of an object trace read with its sizes; `None` for ids alone.
    sized: Option<SizeTotals>,
    feed: Feed,
}

enum Feed {
    Native(Box<NativeChunks>),
    Memory {
        ids: Vec<u32>,
        sizes: Option<Vec<u32>>,
        pos: usize,
    },
    Spill(Box<SpillReader>),
}

struct SpillReader {
    file: BufReader<File>,
    /// The object sizes' spool, beside the ids' (sized traces only).
    size_file: Option<BufReader<File>>,
    left: u64,
    ids: Vec<u32>,
    sizes: Vec<u32>,
    bytes: Vec<u8>,
}

fn spool_err(e: std::io::Error) -> Error {
    Error::io(Path::new("<spool file>"), e)
}

/// Reads `k` little-endian `u32`s from `file` into `out`, through the byte buffer `bytes`.
fn read_words(
    file: &mut BufReader<File>,
    k: usize,
    bytes: &mut Vec<u8>,
    out: &mut Vec<u32>,
) -> Result<()> {
    bytes.resize(k * 4, 0);
    file.read_exact(bytes).map_err(spool_err)?;
    out.clear();
    out.extend(
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap())),
    );
    Ok(())
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
                    .map_err(spool_err)?;
                if let Some(f) = &mut s.size_file {
                    f.seek(std::io::SeekFrom::Start(0)).map_err(spool_err)?;
                }
                s.left = self.refs;
            }
        }
        Ok(())
    }

    /// Whether each reference comes with its object's size ([`Ingested::next_sized_chunk`]):
    /// an object trace read with [`ingest_sized`].
    pub fn has_sizes(&self) -> bool {
        self.sized.is_some()
    }

    /// The bytes requested and the byte footprint of a sized trace (see [`SizeTotals`]);
    /// `None` when the references carry no sizes.
    pub fn size_totals(&self) -> Option<SizeTotals> {
        self.sized
    }

    /// The next chunk of dense ids; `None` at the end. A native file's checksum is verified
    /// when its last chunk has been read, so callers must read to the end before trusting
    /// anything computed from the chunks.
    pub fn next_chunk(&mut self) -> Result<Option<&[u32]>> {
        match &mut self.feed {
            Feed::Native(chunks) => Ok(chunks.next_chunk()?.map(|(ids, _)| ids)),
            Feed::Memory { ids, pos, .. } => {
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
                read_words(&mut s.file, k, &mut s.bytes, &mut s.ids)?;
                if let Some(f) = &mut s.size_file {
                    // Keep the sizes' spool in step with the ids'.
                    f.seek_relative(k as i64 * 4).map_err(spool_err)?;
                }
                s.left -= k as u64;
                Ok(Some(&s.ids))
            }
        }
    }

    /// The next chunk of dense ids with each reference's object size in bytes (two slices of
    /// one length); `None` at the end. An error when the trace carries no sizes
    /// ([`Ingested::has_sizes`]). The checksum note of [`Ingested::next_chunk`] applies.
    pub fn next_sized_chunk(&mut self) -> Result<Option<(&[u32], &[u32])>> {
        if self.sized.is_none() {
            return Err(Error::config(
                "trace",
                &self.source,
                "its references carry no object sizes (only oracleGeneral, lcs and native files converted from them do)",
            ));
        }
        match &mut self.feed {
            Feed::Native(chunks) => Ok(chunks
                .next_sized_chunk()?
                .map(|(ids, _, sizes)| (ids, sizes))),
            Feed::Memory { ids, sizes, pos } => {
                if *pos == ids.len() {
                    return Ok(None);
                }
                let end = (*pos + CHUNK).min(ids.len());
                let start = *pos;
                *pos = end;
                let sizes = sizes.as_ref().expect("a sized spool keeps sizes");
                Ok(Some((&ids[start..end], &sizes[start..end])))
            }
            Feed::Spill(s) => {
                if s.left == 0 {
                    return Ok(None);
                }
                let k = (s.left as usize).min(CHUNK);
                read_words(&mut s.file, k, &mut s.bytes, &mut s.ids)?;
                let f = s.size_file.as_mut().expect("a sized spool keeps sizes");
                read_words(f, k, &mut s.bytes, &mut s.sizes)?;
                s.left -= k as u64;
                Ok(Some((&s.ids, &s.sizes)))
            }
        }
    }
}

/// Dense ids collected in memory and, past [`MEM_REFS`], in an anonymous temporary file; for a
/// sized trace, each reference's object size likewise in a second one.
pub(crate) struct Spool {
    pub(super) ids: Vec<u32>,
    /// Object sizes beside `ids` (a sized spool only).
    pub(super) sizes: Option<Vec<u32>>,
    file: Option<BufWriter<File>>,
    size_file: Option<BufWriter<File>>,
    spilled: u64,
    bytes: Vec<u8>,
    /// Byte totals of the sizes pushed (a sized spool only).
    pub(super) totals: SizeTotals,
    /// Keeps every id in memory (never spills), for a trace loaded whole: the name it is
    /// reported under when it outgrows memory or the references a [`BlockTrace`] can hold.
    whole: Option<String>,
    /// References the memory part holds before spilling (see [`Spool::fit_to`]).
    mem_refs: usize,
    /// [`INGEST_BUDGET`], a field so that tests can give one.
    budget: usize,
}

impl Spool {
    pub(crate) fn new() -> Spool {
        Spool {
            ids: Vec::with_capacity(CHUNK),
            sizes: None,
            file: None,
            size_file: None,
            spilled: 0,
            bytes: Vec::new(),
            totals: SizeTotals::default(),
            whole: None,
            mem_refs: MEM_REFS,
            budget: INGEST_BUDGET,
        }
    }

    /// Sizes the memory part to what the budget leaves beside an id table of `table_bytes`
    /// (at least [`MEM_REFS`] references), spilling at once if it already holds more.
    pub(crate) fn fit_to(&mut self, table_bytes: usize) -> Result<()> {
        let per_ref = if self.sizes.is_some() { 8 } else { 4 };
        self.mem_refs = (self.budget.saturating_sub(table_bytes) / per_ref).max(MEM_REFS);
        self.settle()
    }

    /// A spool that keeps every id in memory, for [`load_text`]; `source` names the trace in
    /// its errors.
    pub(crate) fn whole(source: String) -> Spool {
        Spool {
            whole: Some(source),
            ..Spool::new()
        }
    }

    /// A spool that keeps each reference's object size beside its id.
    pub(crate) fn sized() -> Spool {
        Spool {
            sizes: Some(Vec::with_capacity(CHUNK)),
            ..Spool::new()
        }
    }

    /// Whether the spool keeps sizes (pushes must then go through the sized calls).
    pub(crate) fn is_sized(&self) -> bool {
        self.sizes.is_some()
    }

    /// References pushed so far.
    pub(crate) fn len(&self) -> u64 {
        self.spilled + self.ids.len() as u64
    }

    #[inline]
    pub(crate) fn push(&mut self, id: u32) -> Result<()> {
        self.ids.push(id);
        self.settle()
    }

    /// Pushes one reference of a sized spool; `first` when it is the object's first reference
    /// (its size then counts toward the footprint).
    #[inline]
    pub(crate) fn push_sized(&mut self, id: u32, size: u32, first: bool) -> Result<()> {
        self.ids.push(id);
        self.sizes.as_mut().expect("a sized spool").push(size);
        self.totals.requested += size as u64;
        if first {
            self.totals.footprint += size as u64;
        }
        self.settle()
    }

    /// Ids that can be pushed to `ids` directly before [`Spool::settle`] must run (at least 1:
    /// a whole spool's settling leaves spare capacity).
    #[inline]
    pub(super) fn room(&self) -> usize {
        if self.whole.is_some() {
            self.ids.capacity() - self.ids.len()
        } else {
            self.mem_refs - self.ids.len()
        }
    }

    /// Spills the memory part once it is full (after direct pushes within [`Spool::room`]); a
    /// whole spool grows instead.
    #[inline]
    pub(super) fn settle(&mut self) -> Result<()> {
        if self.whole.is_some() {
            if self.ids.len() == self.ids.capacity() {
                self.grow_whole()?;
            }
        } else if self.ids.len() >= self.mem_refs {
            self.spill()?;
        }
        Ok(())
    }

    /// Doubles a whole spool's room, or says why it cannot: a failed allocation is an error,
    /// not an abort, and a [`BlockTrace`] numbers its references in `u32` below [`NEVER`].
    #[cold]
    fn grow_whole(&mut self) -> Result<()> {
        let source = self.whole.as_deref().unwrap_or_default();
        let held = self.ids.len();
        if held as u64 >= NEVER as u64 - 1 {
            return Err(Error::config(
                "trace",
                source,
                format!("more than {} block references are not supported", NEVER - 1),
            ));
        }
        let more = held.max(1 << 16).min(NEVER as usize - 1 - held);
        let what = || format!("{source}: the references held in memory (past {held})");
        crate::error::try_reserve(&mut self.ids, more, what)
    }

    /// Appends `words` to the spill file `file` (created on first use) through `bytes`.
    fn write_words(
        file: &mut Option<BufWriter<File>>,
        bytes: &mut Vec<u8>,
        words: &[u32],
    ) -> Result<()> {
        if file.is_none() {
            *file = Some(BufWriter::with_capacity(
                1 << 20,
                tempfile::tempfile().map_err(spool_err)?,
            ));
        }
        let file = file.as_mut().expect("created above");
        // Element-wise into a sized buffer (a plain copy on little-endian), a bounded part at a
        // time: a copy of a large memory part would double its memory.
        for part in words.chunks(1 << 16) {
            bytes.resize(part.len() * 4, 0);
            for (b, w) in bytes.chunks_exact_mut(4).zip(part) {
                b.copy_from_slice(&w.to_le_bytes());
            }
            file.write_all(bytes).map_err(spool_err)?;
        }
        Ok(())
    }

    fn spill(&mut self) -> Result<()> {
        Self::write_words(&mut self.file, &mut self.bytes, &self.ids)?;
        if let Some(sizes) = &mut self.sizes {
            Self::write_words(&mut self.size_file, &mut self.bytes, sizes)?;
            sizes.clear();
        }
        self.spilled += self.ids.len() as u64;
        self.ids.clear();
        Ok(())
    }

    /// The finished spill file `file`, at its start, for reading back.
    fn reopen(file: Option<BufWriter<File>>) -> Result<Option<BufReader<File>>> {
        let Some(file) = file else {
            return Ok(None);
        };
        let mut file = file.into_inner().map_err(|e| spool_err(e.into_error()))?;
        file.seek(std::io::SeekFrom::Start(0)).map_err(spool_err)?;
        Ok(Some(BufReader::with_capacity(1 << 20, file)))
    }

    fn into_feed(mut self) -> Result<Feed> {
        if self.file.is_none() {
            return Ok(Feed::Memory {
                ids: self.ids,
                sizes: self.sizes,
                pos: 0,
            });
        }
        self.spill()?;
        let file = Self::reopen(self.file.take())?.expect("spilled");
        let size_file = Self::reopen(self.size_file.take())?;
        Ok(Feed::Spill(Box::new(SpillReader {
            file,
            size_file,
            left: self.spilled,
            ids: Vec::with_capacity(CHUNK),
            sizes: Vec::new(),
            bytes: Vec::with_capacity(CHUNK * 4),
        })))
    }
}

/// Reads the block trace at `path` into a dense-id stream, keeping the requests `ops` selects.
/// Object sizes are not kept (see [`ingest_sized`]).
pub fn ingest(path: &Path, format: &Format, opts: &ReadOptions, ops: OpFilter) -> Result<Ingested> {
    ingest_with(path, format, opts, ops, false)
}

/// Reads the trace at `path` as [`ingest`] does, keeping each reference's object size when the
/// trace has them (oracleGeneral, lcs, or a native file converted from one): then
/// [`Ingested::has_sizes`] holds and [`Ingested::size_totals`] gives the byte totals. Other
/// traces are read as [`ingest`] reads them.
pub fn ingest_sized(
    path: &Path,
    format: &Format,
    opts: &ReadOptions,
    ops: OpFilter,
) -> Result<Ingested> {
    ingest_with(path, format, opts, ops, true)
}

fn ingest_with(
    path: &Path,
    format: &Format,
    opts: &ReadOptions,
    ops: OpFilter,
    sizes: bool,
) -> Result<Ingested> {
    let name = path.display().to_string();
    let ingested = match format {
        Format::Native => ingest_native(path, ops, sizes)?,
        Format::Lirs | Format::Arc => {
            let mut mapper = Mapper::with_capacity(expected_ids(path));
            let mut spool = Spool::new();
            text::parse(path, format, opts, ops, &mut mapper, &mut spool)?;
            finish(name, opts.block_size, mapper, spool)?
        }
        _ => {
            let mut mapper = Mapper::with_capacity(expected_ids(path));
            let mut spool = if sizes && format.has_object_sizes() {
                Spool::sized()
            } else {
                Spool::new()
            };
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

/// Loads a LIRS or ARC trace whole, through the same parser and mapper as streaming (so the
/// same dense ids, errors and line numbers), keeping the ids in memory: what OPT and the other
/// whole-trace users get instead of the line-by-line readers.
pub(crate) fn load_text(
    path: &Path,
    format: &Format,
    opts: &ReadOptions,
    ops: OpFilter,
) -> Result<BlockTrace> {
    let source = path.display().to_string();
    let mut mapper = Mapper::with_capacity(expected_ids(path));
    let mut spool = Spool::whole(source.clone());
    text::parse(path, format, opts, ops, &mut mapper, &mut spool)?;
    Ok(BlockTrace {
        originals: mapper.originals()?,
        refs: spool.ids,
        source,
        block_size: opts.block_size,
        write_mask: None,
        times: None,
        sizes: None,
    })
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
        sized: spool.is_sized().then_some(spool.totals),
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

fn ingest_native(path: &Path, ops: OpFilter, want_sizes: bool) -> Result<Ingested> {
    let mut chunks = NativeChunks::open(input::open_trace(path)?, path.display().to_string())?;
    // Reports name the file as the user gave it, not the name recorded inside it.
    let source = path.display().to_string();
    let block_size = chunks.block_size();
    let sized = want_sizes && chunks.has_sizes();
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
            sized: if sized { chunks.size_totals() } else { None },
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
    let mut spool = if sized { Spool::sized() } else { Spool::new() };
    let has_writes = chunks.has_writes();
    let mut kept = Vec::with_capacity(CHUNK);
    let mut kept_sizes: Vec<u32> = Vec::with_capacity(if sized { CHUNK } else { 0 });
    while let Some((ids, mask, sizes)) = chunks.next_sized_chunk()? {
        kept.clear();
        kept_sizes.clear();
        for (j, &id) in ids.iter().enumerate() {
            let write = has_writes && mask[j / 8] & (1 << (j % 8)) != 0;
            let op = if write { Op::Write } else { Op::Read };
            if ops.keeps(op) {
                kept.push(id);
                if sized {
                    kept_sizes.push(sizes[j]);
                }
            }
        }
        if flat_ids {
            for (k, &id) in kept.iter().enumerate() {
                let d = &mut flat[id as usize];
                let first = *d == u32::MAX;
                if first {
                    *d = flat_unique;
                    flat_unique += 1;
                }
                if sized {
                    spool.push_sized(*d, kept_sizes[k], first)?;
                } else {
                    spool.push(*d)?;
                }
            }
        } else {
            for (k, &id) in kept.iter().enumerate() {
                let before = mapper.unique();
                let d = mapper.map(chunks.original(id));
                if sized {
                    spool.push_sized(d, kept_sizes[k], mapper.unique() > before)?;
                } else {
                    spool.push(d)?;
                }
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

    #[test]
    fn a_budget_keeps_more_in_memory_beside_a_small_table_and_spills_when_the_table_grows() {
        let read_all = |m: Mapper, spool: Spool| {
            let mut feed = finish("t".into(), 4096, m, spool).unwrap();
            let spilled = matches!(feed.feed, Feed::Spill(_));
            let mut ids = Vec::new();
            while let Some(chunk) = feed.next_chunk().unwrap() {
                ids.extend_from_slice(chunk);
            }
            (ids, spilled)
        };
        // 20,000 references to ids below 1,000 (a 4 KiB flat array): with a 1 MiB budget
        // nothing spills, though the memory part's floor is 4,096 references under test.
        let small: Vec<u64> = (0..20_000u64).map(|i| i * 7 % 1000).collect();
        let mut m = Mapper::with_capacity(0);
        let mut spool = Spool::new();
        spool.budget = 1 << 20;
        for batch in small.chunks(500) {
            m.map_all(batch, &mut spool).unwrap();
        }
        let (ids, spilled) = read_all(m, spool);
        assert!(!spilled);
        // i * 7 % 1000 walks every id below 1000 once per 1000 references (7 is prime to
        // 1000): the dense id is the position within the walk.
        assert_eq!(ids, (0..20_000u32).map(|i| i % 1000).collect::<Vec<_>>());
        // Then hashed ids: the table (16-byte slots) outgrows the budget and the spool spills
        // what it holds; every id still comes back in order.
        let mut m = Mapper::with_capacity(0);
        let mut spool = Spool::new();
        spool.budget = 1 << 20;
        let wide: Vec<u64> = (0..100_000u64).map(|i| (i % 50_000) << 40).collect();
        for batch in wide.chunks(500) {
            m.map_all(batch, &mut spool).unwrap();
        }
        assert!(m.table_bytes() > 1 << 20);
        let (ids, spilled) = read_all(m, spool);
        assert!(spilled);
        assert_eq!(ids, (0..100_000u32).map(|i| i % 50_000).collect::<Vec<_>>());
    }
}
