//! Original block ids to dense ids, numbered by first reference: a flat array for ids below a
//! growing bound, an open-addressing hash table for the rest, both prefetched ahead.

use super::Spool;
use crate::error::Result;

/// Maps original block ids to dense ids in order of first reference.
///
/// Ids below a bound go through a flat array (4 bytes per id, no hashing): traces numbered from
/// 0 (generators', converted ones) never hash. The bound grows to cover a new id while the
/// array stays within [`FLAT_FREE`] entries or [`FLAT_PER_ID`] per distinct id (so it costs no
/// more memory than the hash table would), up to [`FLAT_MAX`]. Other ids go through an
/// open-addressing table (linear probing, one 16-byte slot per entry, at most three quarters
/// full, allocated at the first such id) rather than a general hash map, so that
/// [`Mapper::map_all`] can prefetch each entry a few lookups ahead: with a million distinct ids
/// either table is bigger than the caches, and one memory miss per reference is what mapping
/// costs.
pub(crate) struct Mapper {
    /// Dense id of each original below `flat.len()`, or `EMPTY`: every mapped id below the
    /// bound is here, every other one in `slots`.
    flat: Vec<u32>,
    /// The hash table (empty until an id above the flat bound comes).
    slots: Vec<Slot>,
    /// `slots.len() - 1` (a power of two minus one).
    mask: usize,
    /// `64 - log2(slots.len())`: the hash bits that are not the home slot.
    shift: u32,
    /// Slots the table starts with once needed.
    first_slots: usize,
    /// Ids in the hash table.
    hashed: usize,
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
/// Flat entries allowed whatever the distinct ids (4 MiB; tiny under test, so that ids are
/// hashed first and moved when the bound grows).
const FLAT_FREE: usize = if cfg!(test) { 1 << 10 } else { 1 << 20 };
/// The flat array's least length once it exists.
const FLAT_START: usize = if cfg!(test) { 1 << 6 } else { 1 << 16 };
/// Flat entries allowed per distinct id beyond that (32 bytes, what a hash slot at three
/// eighths load costs).
const FLAT_PER_ID: usize = 8;
/// The flat array's largest bound (64 MiB).
const FLAT_MAX: usize = if cfg!(test) { 1 << 14 } else { 1 << 24 };

impl Mapper {
    /// A mapper whose hash table starts with room for `expected` ids (an estimate; it grows)
    /// once an id too large for the flat array comes.
    pub(crate) fn with_capacity(expected: usize) -> Mapper {
        Mapper {
            flat: Vec::new(),
            slots: Vec::new(),
            mask: 0,
            shift: 64,
            first_slots: (expected.max(1024) * 4 / 3).next_power_of_two(),
            hashed: 0,
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
        if let Some(d) = self.flat.get_mut(flat_index(original)) {
            if *d == EMPTY {
                *d = self.len as u32;
                self.len += 1;
            }
            return *d;
        }
        self.map_wide(original)
    }

    /// [`Mapper::map`] of an id at or above the flat bound: the bound grows over it when it
    /// may, else the id is hashed.
    #[inline(never)]
    fn map_wide(&mut self, original: u64) -> u32 {
        if original < FLAT_MAX as u64 {
            let bound = (original as usize + 1).next_power_of_two();
            if bound <= FLAT_FREE.max(FLAT_PER_ID * (self.len + 1)) {
                self.grow_flat(bound.max(FLAT_START));
                return self.map(original);
            }
        }
        if self.slots.is_empty() {
            self.alloc_slots(self.first_slots);
        }
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
        self.hashed += 1;
        if self.hashed * 4 > self.slots.len() * 3 {
            self.rehash(self.slots.len() * 2);
        }
        id
    }

    /// Asks the CPU for the entry `original` will look up (a hint: no effect on results).
    #[inline(always)]
    fn prefetch_for(&self, original: u64) {
        match self.flat.get(flat_index(original)) {
            Some(entry) => prefetch(entry),
            None if !self.slots.is_empty() => prefetch(&self.slots[self.home(original)]),
            None => {}
        }
    }

    /// Maps `originals` in order, pushing each dense id to `spool`. The slot of the id
    /// [`AHEAD`] places on is prefetched before each lookup, so memory misses overlap instead of
    /// following one another; the spool's room is checked once per stretch, not per id.
    pub(crate) fn map_all(&mut self, originals: &[u64], spool: &mut Spool) -> Result<()> {
        self.map_each(originals, spool, |spool, _, id, _| spool.ids.push(id))
    }

    /// Maps `originals` in order as [`Mapper::map_all`] does, pushing each dense id and its
    /// object's size (`sizes[i]`, bytes) to a sized `spool`, which also adds up the bytes
    /// requested and the footprint (an object's size at its first reference).
    pub(crate) fn map_all_sized(
        &mut self,
        originals: &[u64],
        sizes: &[u32],
        spool: &mut Spool,
    ) -> Result<()> {
        debug_assert_eq!(originals.len(), sizes.len());
        self.map_each(originals, spool, |spool, i, id, first| {
            let size = sizes[i];
            if first {
                spool.totals.footprint += size as u64;
            }
            spool.totals.requested += size as u64;
            spool.ids.push(id);
            spool.sizes.as_mut().expect("a sized spool").push(size);
        })
    }

    /// The loop of [`Mapper::map_all`] and [`Mapper::map_all_sized`]: maps each of `originals`
    /// with the slot [`AHEAD`] places on prefetched, and hands `record` the spool, the index,
    /// the dense id and whether the id is new; the spool settles once per stretch of its room.
    #[inline(always)]
    fn map_each(
        &mut self,
        originals: &[u64],
        spool: &mut Spool,
        mut record: impl FnMut(&mut Spool, usize, u32, bool),
    ) -> Result<()> {
        spool.fit_to(self.table_bytes())?;
        for &o in originals.iter().take(AHEAD) {
            self.prefetch_for(o);
        }
        let mut done = 0;
        while done < originals.len() {
            let end = done + spool.room().min(originals.len() - done);
            for i in done..end {
                if let Some(&next) = originals.get(i + AHEAD) {
                    self.prefetch_for(next);
                }
                let before = self.len;
                let id = self.map(originals[i]);
                record(spool, i, id, self.len > before);
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

    /// An empty hash table of `slots` slots (a power of two).
    fn alloc_slots(&mut self, slots: usize) {
        self.slots = vec![EMPTY_SLOT; slots];
        self.mask = slots - 1;
        self.shift = 64 - slots.trailing_zeros();
    }

    /// Rebuilds the hash table with `slots` slots, leaving out the ids below the flat bound
    /// (copied to the flat array when it grew over them).
    fn rehash(&mut self, slots: usize) {
        let old = std::mem::take(&mut self.slots);
        self.alloc_slots(slots);
        self.hashed = 0;
        for slot in old.into_iter().filter(|s| s.value != EMPTY) {
            if flat_index(slot.key) < self.flat.len() {
                continue;
            }
            let mut i = self.home(slot.key);
            while self.slots[i].value != EMPTY {
                i = (i + 1) & self.mask;
            }
            self.slots[i] = slot;
            self.hashed += 1;
        }
    }

    /// Extends the flat array to `bound` ids, copying the hashed ids below it there. Their
    /// slots stay (ids below the bound are never looked up in the table, and the next rehash
    /// drops them): a second table beside the first, even for a moment, would double its
    /// memory.
    fn grow_flat(&mut self, bound: usize) {
        self.flat.resize(bound, EMPTY);
        for slot in self.slots.iter().filter(|s| s.value != EMPTY) {
            if let Some(d) = self.flat.get_mut(flat_index(slot.key)) {
                *d = slot.value;
            }
        }
    }

    /// Distinct ids mapped so far.
    pub(crate) fn unique(&self) -> usize {
        self.len
    }

    /// Bytes the flat array and the hash table hold.
    pub(super) fn table_bytes(&self) -> usize {
        self.flat.capacity() * std::mem::size_of::<u32>()
            + self.slots.capacity() * std::mem::size_of::<Slot>()
    }

    /// The original id of each dense id, in dense order.
    pub(super) fn originals(&self) -> Result<Vec<u64>> {
        let mut originals = crate::error::try_filled(self.len, 0u64, || {
            format!("the original ids of {} blocks", self.len)
        })?;
        for slot in self.slots.iter().filter(|s| s.value != EMPTY) {
            originals[slot.value as usize] = slot.key;
        }
        for (original, &d) in self.flat.iter().enumerate() {
            if d != EMPTY {
                originals[d as usize] = original as u64;
            }
        }
        Ok(originals)
    }
}

/// How far ahead of its lookup an id's entry is prefetched: enough misses in flight to cover
/// memory latency, few enough that the lines are still cached when used. A flat entry's lookup
/// is a few instructions, so 16 ahead left it waiting (map_all 7.5-11% of an LRU run from a
/// 10 M-line Zipf text in five profiles, 5.3-8.1% at 48).
const AHEAD: usize = 48;
/// Block ids of ARC ranges expanded at a time.
const BATCH: usize = 1024;

/// An original id as an index of the flat array (out of range when it does not fit a `usize`).
#[inline(always)]
fn flat_index(original: u64) -> usize {
    usize::try_from(original).unwrap_or(usize::MAX)
}

/// Asks the CPU to bring `slot`'s cache line in (a hint: no effect on results).
#[inline]
fn prefetch<T>(slot: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint that never faults, and SSE is part of every x86_64 target.
    unsafe {
        std::arch::x86_64::_mm_prefetch(
            slot as *const T as *const i8,
            std::arch::x86_64::_MM_HINT_T0,
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = slot;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapper_moves_hashed_ids_into_the_flat_array_as_it_grows_and_keeps_the_numbering() {
        // Scattered ids below 20,000 (the flat array stops at 16,384 under test), first few
        // (so ids above 1,024 are hashed), then many (the array grows over them), and a few
        // huge ones; every id is looked up again after the moves.
        let mut x: u64 = 99;
        let mut keys: Vec<u64> = (0..30_000)
            .map(|i| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let limit = if i < 2000 { 40 } else { 20_000 };
                (x >> 33) % limit * if i < 2000 { 499 } else { 1 }
            })
            .collect();
        keys.extend([u64::MAX, 1 << 40, 5, u64::MAX]);
        keys.extend(keys.clone());
        let mut m = Mapper::with_capacity(0);
        let mut spool = Spool::whole("t".into());
        m.map_all(&keys[..2000], &mut spool).unwrap();
        // The ids hashed while few were known, with their dense ids.
        let hashed_early: Vec<(u64, u32)> = m
            .slots
            .iter()
            .filter(|s| s.value != EMPTY)
            .map(|s| (s.key, s.value))
            .collect();
        for batch in keys[2000..].chunks(999) {
            m.map_all(batch, &mut spool).unwrap();
        }
        let mut first = std::collections::HashMap::new();
        let want: Vec<u32> = keys
            .iter()
            .map(|&k| {
                let n = first.len() as u32;
                *first.entry(k).or_insert(n)
            })
            .collect();
        assert_eq!(spool.ids, want);
        // The flat array grew past its free size over ids first hashed, which it now holds
        // with their dense ids; larger ids are still hashed.
        assert!(
            m.flat.len() > FLAT_FREE && m.flat.len() <= FLAT_MAX,
            "{}",
            m.flat.len()
        );
        let moved: Vec<_> = hashed_early
            .iter()
            .filter(|&&(k, _)| flat_index(k) < m.flat.len())
            .collect();
        assert!(!moved.is_empty() && moved.len() < hashed_early.len());
        for &&(k, d) in &moved {
            assert_eq!(m.flat[k as usize], d);
        }
        assert!(m
            .slots
            .iter()
            .any(|s| s.value != EMPTY && flat_index(s.key) >= m.flat.len()));
        let originals = m.originals().unwrap();
        assert_eq!(originals.len(), first.len());
        for (k, d) in first {
            assert_eq!(originals[d as usize], k);
        }
    }
}
