//! ClusterFetch (Jeong, Ryu, Lee, Lee, Shin & Kang, "ClusterFetch: A Lightweight Prefetcher for
//! General Workloads", ICPE 2015): learn which disk blocks a program reads in a burst right after
//! it opens a file, and prefetch them the next time that file is opened.
//!
//! * A circular queue holds the last `queue_len` disk I/Os (issue time, blocks). While the queue is
//!   full and its first and last entries are less than `threshold` apart, the I/Os form one burst:
//!   the burst starts with the queue's first entry and grows with every I/O that keeps the queue
//!   within the threshold; the first I/O that does not ends it.
//! * The burst belongs to the trigger file: the file whose open most recently preceded the burst's
//!   first I/O. Bursts of fewer than `min_burst` I/Os, or with no open before them, are dropped.
//! * The prefetch-information store maps each trigger file to the blocks of its bursts (a new burst
//!   adds to what the trigger already holds). It is bounded: when it would exceed
//!   `store_limit_bytes`, the least recently used triggers go first, and a single trigger larger
//!   than the limit keeps the blocks its bursts read first.
//! * On a later open of a trigger file the engine prefetches its blocks that are not cached, as
//!   low-priority requests sorted by disk address and clustered, paced by the bandwidth cap
//!   ([`Pacer`]).
//!
//! The paper gives no values for the queue length, threshold, minimum burst or bandwidth cap; the
//! defaults here are belady's (see [`ClusterFetchConfig::default`]). It reports a memory overhead
//! under 3 MB, which is the default store limit.
//!
//! Files are keyed by name (path), so a store learned on one recording of a program applies to
//! another recording on the same machine even though the traces number files differently; files
//! without a name are keyed `#ID`. Blocks are (file, block index in the file); the engine turns them
//! into disk addresses with its own layout.

use crate::error::{Error, Result};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{BTreeSet, VecDeque};
use std::path::Path;

/// ClusterFetch's parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterFetchConfig {
    /// Entries of the circular queue of recent disk I/Os.
    pub queue_len: usize,
    /// The queue holds a burst while its first and last entries are less than this apart, ns.
    pub threshold_ns: u64,
    /// Fewest disk I/Os a burst needs to be stored.
    pub min_burst: usize,
    /// Largest size of the prefetch-information store (its encoded size, what its file takes).
    pub store_limit_bytes: u64,
    /// Prefetch bandwidth cap in bytes per second; 0 for no cap.
    pub bandwidth_bytes_per_s: u64,
}

impl Default for ClusterFetchConfig {
    /// belady's defaults: 16 I/Os within 500 ms (a mean gap under 31 ms, which continuous I/O on a
    /// disk keeps and a program computing between reads does not), bursts of at least 32 I/Os, the
    /// paper's 3 MB of memory, no bandwidth cap (low priority already keeps prefetches out of the
    /// way of demand reads).
    fn default() -> Self {
        ClusterFetchConfig {
            queue_len: 16,
            threshold_ns: 500_000_000,
            min_burst: 32,
            store_limit_bytes: 3_000_000,
            bandwidth_bytes_per_s: 0,
        }
    }
}

impl ClusterFetchConfig {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<()> {
        if self.queue_len < 2 {
            return Err(Error::config(
                "cf_queue",
                self.queue_len,
                "the queue needs at least 2 entries to span a time",
            ));
        }
        if self.threshold_ns == 0 {
            return Err(Error::config("cf_threshold", "0", "must be more than 0 ms"));
        }
        crate::limits::check_time(
            "cf_threshold",
            self.threshold_ns as f64 / 1e6,
            crate::limits::TimeUnit::Ms,
        )?;
        if self.bandwidth_bytes_per_s > 0 {
            // 0 is no cap.
            crate::limits::check_rate(
                "cf_bandwidth",
                self.bandwidth_bytes_per_s as f64,
                1.0,
                "bytes per second",
                crate::limits::MIN_DEVICE_BYTES_PER_S,
            )?;
        }
        if self.min_burst == 0 {
            return Err(Error::config("cf_min_burst", 0, "must be at least 1 I/O"));
        }
        if self.store_limit_bytes < MIN_STORE_BYTES {
            return Err(Error::config(
                "cf_store_limit",
                self.store_limit_bytes,
                format!("must be at least {MIN_STORE_BYTES} bytes (an empty store's header)"),
            ));
        }
        Ok(())
    }
}

/// The ClusterFetch component of a `--prefetch` value.
pub const COMPONENT: &str = "clusterfetch";

/// Splits a `--prefetch` value into the read-ahead engine and whether ClusterFetch is on:
/// `linux24+clusterfetch`, `clusterfetch` (no read-ahead: `none`), `ondemand`.
pub fn split_prefetch(value: &str) -> Result<(&str, bool)> {
    let mut engine: Option<&str> = None;
    let mut cf = false;
    for part in value.split('+').map(str::trim) {
        if part == COMPONENT {
            if cf {
                return Err(Error::config("prefetch", value, "names clusterfetch twice"));
            }
            cf = true;
        } else if engine.replace(part).is_some() {
            return Err(Error::config(
                "prefetch",
                value,
                "combines at most one read-ahead engine with clusterfetch (e.g. linux24+clusterfetch)",
            ));
        }
    }
    Ok((engine.unwrap_or("none"), cf))
}

/// One disk I/O as the queue remembers it.
#[derive(Copy, Clone, Debug)]
struct Io {
    time_ns: u64,
    /// The most recent open before this I/O.
    trigger: Option<u64>,
    file: u64,
    first: u64,
    count: u64,
}

/// A burst the detector closed: the trigger file and the blocks read, in the order first read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Burst {
    /// The file whose open preceded the burst.
    pub trigger: u64,
    /// Disk I/Os in the burst.
    pub ios: usize,
    /// (file, block index) pairs, each once, in the order the burst first read them.
    pub blocks: Vec<(u64, u64)>,
}

struct Building {
    trigger: Option<u64>,
    ios: usize,
    blocks: Vec<(u64, u64)>,
    seen: FxHashSet<(u64, u64)>,
}

impl Building {
    fn add(&mut self, io: &Io) {
        self.ios += 1;
        for index in io.first..io.first + io.count {
            if self.seen.insert((io.file, index)) {
                self.blocks.push((io.file, index));
            }
        }
    }
}

/// The circular queue of recent disk I/Os and the burst it is building.
pub struct BurstDetector {
    queue_len: usize,
    threshold_ns: u64,
    min_burst: usize,
    ring: VecDeque<Io>,
    last_open: Option<u64>,
    building: Option<Building>,
}

impl BurstDetector {
    /// An empty queue with `cfg`'s length, threshold and minimum burst.
    pub fn new(cfg: &ClusterFetchConfig) -> Self {
        BurstDetector {
            queue_len: cfg.queue_len,
            threshold_ns: cfg.threshold_ns,
            min_burst: cfg.min_burst,
            // The ring fills one I/O at a time, so a huge --cf-queue must not be allocated
            // up front; it grows only as far as the trace's I/Os take it.
            ring: VecDeque::with_capacity(cfg.queue_len.min(1024)),
            last_open: None,
            building: None,
        }
    }

    /// A file was opened (the log of opens keeps only the latest: each queued I/O remembers it).
    pub fn on_open(&mut self, file: u64) {
        self.last_open = Some(file);
    }

    /// A disk I/O of `count` blocks from block `first` of `file` was issued at `time_ns` (times
    /// never go back). Returns the burst this I/O ended, if one worth storing did.
    pub fn observe(&mut self, time_ns: u64, file: u64, first: u64, count: u64) -> Option<Burst> {
        let io = Io {
            time_ns,
            trigger: self.last_open,
            file,
            first,
            count,
        };
        if self.ring.len() == self.queue_len {
            self.ring.pop_front();
        }
        self.ring.push_back(io);
        let oldest = self.ring[0];
        let continuous =
            self.ring.len() == self.queue_len && time_ns - oldest.time_ns < self.threshold_ns;
        if !continuous {
            return self.finish();
        }
        match &mut self.building {
            Some(b) => b.add(&io),
            None => {
                let mut b = Building {
                    trigger: oldest.trigger,
                    ios: 0,
                    blocks: Vec::new(),
                    seen: FxHashSet::default(),
                };
                for queued in &self.ring {
                    b.add(queued);
                }
                self.building = Some(b);
            }
        }
        None
    }

    /// Ends the burst in progress (the trace ended); returns it if it is worth storing.
    pub fn finish(&mut self) -> Option<Burst> {
        let b = self.building.take()?;
        match b.trigger {
            Some(trigger) if b.ios >= self.min_burst => Some(Burst {
                trigger,
                ios: b.ios,
                blocks: b.blocks,
            }),
            _ => None,
        }
    }
}

/// Spaces prefetch requests out so they do not exceed a bandwidth cap.
#[derive(Clone, Debug, Default)]
pub struct Pacer {
    bytes_per_s: u64,
    next_ns: u64,
}

impl Pacer {
    /// A pacer for `bytes_per_s` (0: every request is released at once).
    pub fn new(bytes_per_s: u64) -> Self {
        Pacer {
            bytes_per_s,
            next_ns: 0,
        }
    }

    /// Release time of a request of `bytes` asked for at `now_ns`: no earlier than now, and late
    /// enough that the requests released so far stay within the cap.
    pub fn release(&mut self, now_ns: u64, bytes: u64) -> u64 {
        if self.bytes_per_s == 0 {
            return now_ns;
        }
        let at = self.next_ns.max(now_ns);
        let span = (bytes as u128 * 1_000_000_000).div_ceil(self.bytes_per_s as u128);
        self.next_ns = at.saturating_add(span.min(u64::MAX as u128) as u64);
        at
    }
}

/// A run of consecutive blocks of one file in the store.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Extent {
    /// Index of the file's name in the store's name table.
    pub file: u32,
    /// First block index in the file.
    pub start: u32,
    /// Number of blocks (at least 1).
    pub len: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    trigger: u32,
    /// Sorted, disjoint and not adjacent.
    extents: Vec<Extent>,
}

const MAGIC: &[u8; 8] = b"BLDYCFS\0";
/// Format version [`PrefetchStore::encode`] writes and [`PrefetchStore::decode`] reads.
pub const STORE_VERSION: u32 = 1;
const HEADER_BYTES: u64 = 8 + 4 + 4 + 4;
const CRC_BYTES: u64 = 4;
const ENTRY_BYTES: u64 = 8;
const EXTENT_BYTES: u64 = 12;
/// Size of an empty store; no limit can be smaller.
pub const MIN_STORE_BYTES: u64 = HEADER_BYTES + CRC_BYTES;

/// The prefetch-information store: for each trigger file, the blocks to prefetch when it opens.
///
/// Layout of its encoded form (little-endian), whose length is what [`PrefetchStore::bytes`]
/// reports and the limit bounds:
///
/// ```text
/// magic      8 bytes  "BLDYCFS\0"
/// version    u32      1
/// names      u32      number of file names
/// entries    u32      number of triggers
/// names × { length u32, UTF-8 bytes }
/// entries × { trigger name index u32, extent count u32, extents × { name index u32, first block u32, blocks u32 } }
///            entries in least-recently-used-first order; extents sorted, disjoint, not adjacent
/// checksum   u32      CRC-32 of every preceding byte
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrefetchStore {
    names: Vec<String>,
    index: FxHashMap<String, u32>,
    /// Least recently used first.
    entries: Vec<Entry>,
}

impl PrefetchStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of trigger files.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no trigger is stored.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Size of the encoded store in bytes: header, the names its entries use, entries, checksum.
    pub fn bytes(&self) -> u64 {
        let mut used = vec![false; self.names.len()];
        let mut total = HEADER_BYTES + CRC_BYTES;
        for e in &self.entries {
            total += ENTRY_BYTES + EXTENT_BYTES * e.extents.len() as u64;
            used[e.trigger as usize] = true;
            for x in &e.extents {
                used[x.file as usize] = true;
            }
        }
        for (name, used) in self.names.iter().zip(used) {
            if used {
                total += 4 + name.len() as u64;
            }
        }
        total
    }

    /// The trigger files, least recently used first.
    pub fn triggers(&self) -> impl Iterator<Item = &str> {
        self.entries
            .iter()
            .map(|e| self.names[e.trigger as usize].as_str())
    }

    /// The blocks stored for `trigger` as (file name, first block, blocks) runs in file order,
    /// without marking the trigger used.
    pub fn peek(&self, trigger: &str) -> Option<Vec<(&str, u64, u64)>> {
        let t = *self.index.get(trigger)?;
        let e = self.entries.iter().find(|e| e.trigger == t)?;
        Some(
            e.extents
                .iter()
                .map(|x| {
                    (
                        self.names[x.file as usize].as_str(),
                        x.start as u64,
                        x.len as u64,
                    )
                })
                .collect(),
        )
    }

    /// Like [`PrefetchStore::peek`], and makes `trigger` the most recently used.
    pub fn lookup(&mut self, trigger: &str) -> Option<Vec<(&str, u64, u64)>> {
        let t = *self.index.get(trigger)?;
        let i = self.entries.iter().position(|e| e.trigger == t)?;
        let e = self.entries.remove(i);
        self.entries.push(e);
        self.peek(trigger)
    }

    /// Number of blocks stored for `trigger`.
    pub fn blocks_of(&self, trigger: &str) -> u64 {
        self.peek(trigger)
            .map_or(0, |runs| runs.iter().map(|r| r.2).sum())
    }

    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), i);
        i
    }

    /// Adds a burst's blocks (file name, block index; in the order read) to what `trigger` holds,
    /// makes it the most recently used, then keeps the store within `limit` bytes: least recently
    /// used triggers go first; a trigger alone over the limit keeps its older blocks, then the
    /// burst's in the order read, as many as fit. Block indices beyond 32 bits are skipped.
    pub fn learn<'a>(
        &mut self,
        trigger: &str,
        blocks: impl IntoIterator<Item = (&'a str, u64)>,
        limit: u64,
    ) {
        let t = self.intern(trigger);
        let mut order: Vec<(u32, u32)> = Vec::new();
        if let Some(i) = self.entries.iter().position(|e| e.trigger == t) {
            let old = self.entries.remove(i);
            for x in &old.extents {
                order.extend((x.start..x.start + x.len).map(|b| (x.file, b)));
            }
        }
        for (file, index) in blocks {
            if let Ok(index) = u32::try_from(index) {
                if index < u32::MAX {
                    let f = self.intern(file);
                    order.push((f, index));
                }
            }
        }
        let full = Self::extents(&order);
        self.entries.push(Entry {
            trigger: t,
            extents: full,
        });
        while self.bytes() > limit && self.entries.len() > 1 {
            self.entries.remove(0);
        }
        if self.bytes() > limit {
            self.entries.clear();
            let kept = self.prefix_within(t, &order, limit);
            if !kept.is_empty() {
                self.entries.push(Entry {
                    trigger: t,
                    extents: kept,
                });
            }
        }
        self.collect_names();
    }

    /// Sorted, merged extents of `blocks`.
    fn extents(blocks: &[(u32, u32)]) -> Vec<Extent> {
        let set: BTreeSet<(u32, u32)> = blocks.iter().copied().collect();
        let mut out: Vec<Extent> = Vec::new();
        for (file, b) in set {
            match out.last_mut() {
                Some(x) if x.file == file && x.start + x.len == b => x.len += 1,
                _ => out.push(Extent {
                    file,
                    start: b,
                    len: 1,
                }),
            }
        }
        out
    }

    /// The longest prefix of `order` whose entry for trigger `t`, alone in the store, fits `limit`.
    fn prefix_within(&self, t: u32, order: &[(u32, u32)], limit: u64) -> Vec<Extent> {
        let name_bytes = |i: u32| 4 + self.names[i as usize].len() as u64;
        let mut set: BTreeSet<(u32, u32)> = BTreeSet::new();
        let mut files: FxHashSet<u32> = FxHashSet::default();
        let mut extents: u64 = 0;
        let mut bytes = HEADER_BYTES + CRC_BYTES + ENTRY_BYTES + name_bytes(t);
        files.insert(t);
        let mut kept = 0;
        for &(f, b) in order {
            if set.contains(&(f, b)) {
                kept += 1;
                continue;
            }
            let left = b > 0 && set.contains(&(f, b - 1));
            let right = set.contains(&(f, b + 1));
            let new_extents = extents + 1 - left as u64 - right as u64;
            let new_bytes = bytes - EXTENT_BYTES * extents
                + EXTENT_BYTES * new_extents
                + if files.contains(&f) { 0 } else { name_bytes(f) };
            if new_bytes > limit {
                break;
            }
            set.insert((f, b));
            files.insert(f);
            extents = new_extents;
            bytes = new_bytes;
            kept += 1;
        }
        Self::extents(&order[..kept])
    }

    /// Drops names no entry uses and renumbers the rest in order of first use.
    fn collect_names(&mut self) {
        let mut map: Vec<Option<u32>> = vec![None; self.names.len()];
        let mut names = Vec::new();
        let mut renumber = |i: u32, names: &mut Vec<String>| -> u32 {
            *map[i as usize].get_or_insert_with(|| {
                names.push(self.names[i as usize].clone());
                names.len() as u32 - 1
            })
        };
        for e in &mut self.entries {
            e.trigger = renumber(e.trigger, &mut names);
            for x in &mut e.extents {
                x.file = renumber(x.file, &mut names);
            }
        }
        self.index = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i as u32))
            .collect();
        self.names = names;
        // Renumbering can change the sort order of extents across files.
        for e in &mut self.entries {
            e.extents.sort_unstable();
        }
    }

    /// The encoded store (the layout above).
    pub fn encode(&self) -> Vec<u8> {
        let mut s = self.clone();
        s.collect_names();
        let mut out = Vec::with_capacity(self.bytes() as usize);
        out.extend_from_slice(MAGIC);
        let put = |v: u32, out: &mut Vec<u8>| out.extend_from_slice(&v.to_le_bytes());
        put(STORE_VERSION, &mut out);
        put(s.names.len() as u32, &mut out);
        put(s.entries.len() as u32, &mut out);
        for n in &s.names {
            put(n.len() as u32, &mut out);
            out.extend_from_slice(n.as_bytes());
        }
        for e in &s.entries {
            put(e.trigger, &mut out);
            put(e.extents.len() as u32, &mut out);
            for x in &e.extents {
                put(x.file, &mut out);
                put(x.start, &mut out);
                put(x.len, &mut out);
            }
        }
        let crc = crc32fast::hash(&out);
        put(crc, &mut out);
        debug_assert_eq!(out.len() as u64, self.bytes());
        out
    }

    /// Reads an encoded store; `path` names it in errors, which say what is wrong and where.
    pub fn decode(bytes: &[u8], path: &str) -> Result<PrefetchStore> {
        let err = |offset: usize, record: u64, msg: String| Error::Record {
            path: path.to_string(),
            record,
            offset: offset as u64,
            msg: format!("{msg} (delete the file to learn a new store)"),
        };
        if bytes.len() < MIN_STORE_BYTES as usize {
            return Err(err(
                0,
                0,
                format!(
                    "ClusterFetch store is {} bytes, shorter than the {MIN_STORE_BYTES}-byte header and checksum: truncated",
                    bytes.len()
                ),
            ));
        }
        if &bytes[..8] != MAGIC {
            return Err(err(
                0,
                0,
                "not a belady ClusterFetch store (bad magic bytes)".into(),
            ));
        }
        let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
        if version != STORE_VERSION {
            return Err(err(
                8,
                0,
                format!("ClusterFetch store format version {version}; this belady reads version {STORE_VERSION}"),
            ));
        }
        let body = bytes.len() - CRC_BYTES as usize;
        let stored = u32::from_le_bytes(bytes[body..].try_into().expect("4 bytes"));
        let computed = crc32fast::hash(&bytes[..body]);
        if stored != computed {
            return Err(err(
                body,
                0,
                format!("checksum mismatch (stored {stored:#010x}, computed {computed:#010x}): the store is damaged or truncated"),
            ));
        }
        let mut r = Reader {
            bytes: &bytes[..body],
            pos: 12,
        };
        let n_names = r.u32().map_err(|m| err(r.pos, 0, m))?;
        let n_entries = r.u32().map_err(|m| err(r.pos, 0, m))?;
        let mut store = PrefetchStore::new();
        for i in 0..n_names {
            let at = r.pos;
            let len = r.u32().map_err(|m| err(at, i as u64, m))? as usize;
            let raw = r
                .take(len)
                .map_err(|m| err(at, i as u64, format!("file name {i}: {m}")))?;
            let name = std::str::from_utf8(raw)
                .map_err(|_| err(at, i as u64, format!("file name {i} is not UTF-8")))?;
            if store.index.contains_key(name) {
                return Err(err(at, i as u64, format!("file name {i} repeats '{name}'")));
            }
            store.intern(name);
        }
        let mut triggers: FxHashSet<u32> = FxHashSet::default();
        for i in 0..n_entries {
            let at = r.pos;
            let rec = i as u64;
            let trigger = r.u32().map_err(|m| err(at, rec, m))?;
            if trigger >= n_names {
                return Err(err(
                    at,
                    rec,
                    format!("trigger {i} names file {trigger}, but the store has {n_names} names"),
                ));
            }
            if !triggers.insert(trigger) {
                return Err(err(
                    at,
                    rec,
                    format!("trigger {i} repeats an earlier trigger"),
                ));
            }
            let count = r.u32().map_err(|m| err(at, rec, m))?;
            let mut extents: Vec<Extent> = Vec::new();
            for _ in 0..count {
                let xat = r.pos;
                let mut field = || r.u32().map_err(|m| err(xat, rec, m));
                let x = Extent {
                    file: field()?,
                    start: field()?,
                    len: field()?,
                };
                if x.file >= n_names || x.len == 0 || x.start.checked_add(x.len).is_none() {
                    return Err(err(
                        xat,
                        rec,
                        format!(
                            "extent (file {}, first block {}, {} blocks) is out of range",
                            x.file, x.start, x.len
                        ),
                    ));
                }
                if let Some(prev) = extents.last() {
                    let after = (prev.file, prev.start + prev.len) < (x.file, x.start);
                    if !after {
                        return Err(err(
                            xat,
                            rec,
                            "extents are not sorted, disjoint and separated".into(),
                        ));
                    }
                }
                extents.push(x);
            }
            store.entries.push(Entry { trigger, extents });
        }
        if r.pos != body {
            return Err(err(
                r.pos,
                n_entries as u64,
                format!("{} bytes follow the last entry", body - r.pos),
            ));
        }
        store.collect_names();
        Ok(store)
    }

    /// Loads the store at `path`; `None` if there is no such file (a first run learns one).
    pub fn load(path: &Path) -> Result<Option<PrefetchStore>> {
        match std::fs::read(path) {
            Ok(bytes) => Self::decode(&bytes, &path.display().to_string()).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io(path, e)),
        }
    }

    /// Writes the store to `path` through the one atomic writer, so a crash or a signal never
    /// leaves half a store nor a temporary beside it.
    pub fn save(&self, path: &Path) -> Result<()> {
        crate::outfile::write_atomic(path, &self.encode())
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> std::result::Result<&'a [u8], String> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| {
                format!(
                    "needs {n} bytes, {} remain before the checksum",
                    self.bytes.len() - self.pos
                )
            })?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn u32(&mut self) -> std::result::Result<u32, String> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
}

/// Splits `blocks` (each a disk address in sectors and the caller's payload), sorted by address,
/// into requests of at most `max_blocks` blocks whose addresses follow one another by
/// `sectors_per_block`.
pub fn cluster_by_address<T: Copy>(
    blocks: &[(u64, T)],
    sectors_per_block: u64,
    max_blocks: usize,
) -> Vec<Vec<(u64, T)>> {
    let mut out: Vec<Vec<(u64, T)>> = Vec::new();
    for &(lba, item) in blocks {
        match out.last_mut() {
            Some(run)
                if run.len() < max_blocks
                    && run
                        .last()
                        .is_some_and(|&(prev, _)| prev + sectors_per_block == lba) =>
            {
                run.push((lba, item))
            }
            _ => out.push(vec![(lba, item)]),
        }
    }
    out
}

#[cfg(test)]
mod tests;
