//! Reading the native format: whole into memory, as requests, or chunk by chunk as stored.

use super::{
    CHUNK, FLAG_ORIGINAL_IDS, FLAG_SIZES, FLAG_TIMES, FLAG_WRITES, HEADER_BYTES, MAGIC, VERSION,
};
use crate::error::{Error, Result};
use crate::trace::dense::BlockTrace;
use crate::trace::input::open_trace;
use crate::trace::{BlockRequest, Op, SizeTotals};
use std::io::{BufRead, Read};
use std::path::Path;

/// Reads a whole native trace (compressed or not) into memory.
pub fn load(path: &Path) -> Result<BlockTrace> {
    let mut dec = Decoder::open(open_trace(path)?, path.display().to_string())?;
    // The header's count is a claim until the data backs it: reserve at most a few chunks up
    // front (a 44-byte file claiming 4e9 references must not allocate 16 GB), then grow.
    let n = (dec.refs as usize).min(16 * CHUNK);
    let mut refs = Vec::with_capacity(n);
    let mut write_mask = dec.has_writes.then(|| Vec::with_capacity(n.div_ceil(8)));
    let mut times = dec.has_times.then(|| Vec::with_capacity(n));
    let mut sizes = dec.has_sizes.then(|| Vec::with_capacity(n));
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
        if let Some(z) = &mut sizes {
            z.extend_from_slice(&dec.sizes);
        }
    }
    let originals = if dec.original_ids {
        densify(&mut refs, dec.bound)
    } else {
        std::mem::take(&mut dec.originals)
    };
    // Reports name the file as the user gave it; the recorded name is provenance only.
    Ok(BlockTrace {
        source: path.display().to_string(),
        block_size: dec.block_size,
        refs,
        originals,
        write_mask,
        times,
        sizes,
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

    /// Whether each request is an object whose size the file keeps (converted from
    /// oracleGeneral or lcs).
    pub fn has_sizes(&self) -> bool {
        self.dec.has_sizes
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
            bytes: if self.dec.has_sizes {
                self.dec.sizes[j] as u64
            } else {
                self.dec.block_size as u64
            },
        }))
    }
}

/// One chunk of a native trace: ids, write mask and object sizes (empty without sizes).
pub type SizedChunk<'a> = (&'a [u32], &'a [u8], &'a [u32]);

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

    /// Whether each reference carries its object's size (a trace converted from oracleGeneral
    /// or lcs).
    pub fn has_sizes(&self) -> bool {
        self.dec.has_sizes
    }

    /// The header's byte totals, when references carry sizes.
    pub fn size_totals(&self) -> Option<SizeTotals> {
        self.dec.has_sizes.then_some(self.dec.totals)
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

    /// As [`NativeChunks::next_chunk`], with each reference's object size (empty when the file
    /// has none: [`NativeChunks::has_sizes`]).
    pub fn next_sized_chunk(&mut self) -> Result<Option<SizedChunk<'_>>> {
        Ok(if self.dec.next_chunk()? {
            Some((&self.dec.ids, &self.dec.mask, &self.dec.sizes))
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
    has_sizes: bool,
    /// The header's byte totals (files with sizes), and where they are in the file.
    totals: SizeTotals,
    totals_at: u64,
    /// The totals of the references read so far, checked against the header's at the end, so
    /// a header whose totals were rewritten (checksum and all) fails the run instead of sizing
    /// its `-c 50%` cache from a footprint the data does not have.
    summed: SizeTotals,
    /// Ids seen so far (one bit each), for `summed`'s footprint.
    seen: Vec<u64>,
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
    sizes: Vec<u32>,
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
            has_sizes: false,
            totals: SizeTotals::default(),
            totals_at: 0,
            summed: SizeTotals::default(),
            seen: Vec::new(),
            original_ids: false,
            bound: 0,
            refs: 0,
            done_refs: 0,
            source: String::new(),
            originals: Vec::new(),
            ids: Vec::new(),
            mask: Vec::new(),
            times: Vec::new(),
            sizes: Vec::new(),
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
        let known = FLAG_WRITES
            | FLAG_TIMES
            | if version >= 2 { FLAG_ORIGINAL_IDS } else { 0 }
            | if version >= 3 { FLAG_SIZES } else { 0 };
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
        d.has_sizes = flags & FLAG_SIZES != 0;
        d.block_size = word(&d.bytes, 16);
        // The same check as `--block-size`: every engine divides by it.
        if crate::trace::check_block_size(d.block_size).is_err() {
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
        if d.has_sizes {
            d.totals_at = d.offset;
            d.fill(16, "size totals")?;
            d.totals = SizeTotals {
                requested: long(&d.bytes, 0),
                footprint: long(&d.bytes, 8),
            };
        }
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
        let twice = first_repeated(&self.originals);
        match twice {
            None => Ok(()),
            Some(b) => Err(self.error_at(
                0,
                self.offset - 8 * self.originals.len() as u64,
                format!("the block id table lists block {b} twice"),
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
        self.sizes.clear();
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
            if self.has_sizes && self.summed != self.totals {
                let (h, s) = (self.totals, self.summed);
                return Err(self.error_at(
                    0,
                    self.totals_at,
                    format!(
                        "inconsistent header: its size totals say {} bytes requested and a {}-byte footprint; the references sum to {} and {}",
                        h.requested, h.footprint, s.requested, s.footprint
                    ),
                ));
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
        if self.has_sizes {
            let at = self.offset;
            self.fill(k * 4, "object sizes")?;
            self.sizes.extend(
                self.bytes
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().unwrap())),
            );
            if let Some(j) = self.sizes.iter().position(|&z| z == 0) {
                return Err(self.error_at(
                    self.done_refs + j as u64,
                    at + 4 * j as u64,
                    "object size 0: sizes are at least 1 byte".into(),
                ));
            }
            self.sum_sizes();
        }
        self.done_refs += k as u64;
        Ok(true)
    }
}

impl Decoder {
    /// Adds the chunk's sizes to `summed`: every reference's to the requested bytes, each id's
    /// first to the footprint (as the writer counts the header's).
    fn sum_sizes(&mut self) {
        for (&id, &size) in self.ids.iter().zip(&self.sizes) {
            self.summed.requested += size as u64;
            let (word, bit) = (id as usize / 64, 1u64 << (id % 64));
            if word >= self.seen.len() {
                self.seen.resize(word + 1, 0);
            }
            if self.seen[word] & bit == 0 {
                self.seen[word] |= bit;
                self.summed.footprint += size as u64;
            }
        }
    }
}

/// The first id of `ids` that an earlier one repeats, if any (for the id table's check).
fn first_repeated(ids: &[u64]) -> Option<u64> {
    match ids.iter().max() {
        None => None,
        // Ids within a small multiple of their number (as `convert` and `gen` write them): one
        // bit each, in table order, with no copy of the table and no sort.
        Some(&max) if max < 8 * ids.len() as u64 + 1024 => {
            let mut seen = vec![0u64; max as usize / 64 + 1];
            ids.iter().copied().find(|&b| {
                let (word, bit) = (b as usize / 64, 1u64 << (b % 64));
                let repeated = seen[word] & bit != 0;
                seen[word] |= bit;
                repeated
            })
        }
        Some(_) => {
            let mut sorted = ids.to_vec();
            sorted.sort_unstable();
            sorted.windows(2).find(|w| w[0] == w[1]).map(|w| w[0])
        }
    }
}

#[cfg(test)]
mod repeated_ids {
    use super::first_repeated;

    proptest::proptest! {
        /// Small ids (the bitmap) and spread ids (the sort) find a repeat exactly when there
        /// is one; the bitmap names the first repeat in table order.
        #[test]
        fn a_repeat_is_found_whatever_the_ids(
            ids in proptest::collection::vec(0u64..300, 0..200),
            spread in proptest::bool::ANY,
        ) {
            let ids: Vec<u64> = if spread { ids.iter().map(|&b| b << 40).collect() } else { ids };
            let mut seen = std::collections::HashSet::new();
            let first = ids.iter().copied().find(|&b| !seen.insert(b));
            let found = first_repeated(&ids);
            proptest::prop_assert_eq!(found.is_some(), first.is_some());
            if !spread {
                proptest::prop_assert_eq!(found, first);
            }
        }
    }
}
