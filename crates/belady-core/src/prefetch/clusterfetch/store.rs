//! ClusterFetch's prefetch-information store: each trigger file's extents, bounded by its byte
//! limit, and its checksummed binary form on disk.

use super::*;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeSet;
use std::path::Path;

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
