//! Exact LRU stack distances in memory proportional to the distinct blocks: the tracker behind
//! `belady mrc`'s exact curve and `belady stats`' reuse histogram.
//!
//! Each block keeps the time of its last reference, and a bitmap over times holds a mark at every
//! block's last reference, so the distinct blocks referenced since time `t` are the marks after
//! `t`: the number of blocks seen so far less the marks at or before `t`, one prefix sum (a
//! Fenwick tree over 512-time blocks of the bitmap, see `Marks`). Times grow with the trace, so
//! when the bitmap fills the live marks are renumbered `0..live` into one twice their number.
//!
//! Last-reference times are kept in a flat array indexed by block id while the ids stay below
//! twice the distinct blocks seen (plus a constant), as the dense or near-dense ids of native
//! files and generated traces do; ids beyond the array go to a hash map. The array doubles (and
//! takes over the hash map's entries below its new end) only while that bound allows, so its
//! memory stays proportional to the distinct blocks whatever the ids.

use crate::cache::frames::prefetch;
use rustc_hash::FxHashMap;

/// No reference yet, in [`StackDistances`]'s flat array.
const UNSEEN: u32 = u32::MAX;

/// Ids below this many are always kept in the flat array (4 MiB of times).
const FLAT_FLOOR: usize = 1 << 20;

/// Positions per counted block of [`Marks`]: eight 64-bit words, one cache line of the bitmap.
const BLOCK_BITS: usize = 512;

/// Live marks over positions `0..len`: a bitmap, and a Fenwick tree of the marks per 512-position
/// block for prefix sums in O(log(n / 512)). The bitmap takes one bit per position and the tree
/// one counter per 512 of them, so both stay in the processor's caches where a Fenwick tree over
/// the positions themselves (a counter each) would not; a prefix sum reads one line of the
/// bitmap and a short walk of the small tree.
struct Marks {
    bits: Vec<u64>,
    /// Fenwick tree (1-based) over the mark counts of each block.
    blocks: Vec<u32>,
}

impl Marks {
    fn new(n: usize) -> Self {
        let n = n.div_ceil(BLOCK_BITS) * BLOCK_BITS;
        Marks {
            bits: vec![0; n / 64],
            blocks: vec![0; n / BLOCK_BITS + 1],
        }
    }

    /// Room for `n` positions with marks at `0..live`.
    fn filled(n: usize, live: usize) -> Self {
        let mut marks = Marks::new(n.max(live));
        marks.bits[..live / 64].fill(u64::MAX);
        if live % 64 != 0 {
            marks.bits[live / 64] = (1u64 << (live % 64)) - 1;
        }
        // Each block's count, then the Fenwick tree built over them in place.
        let blocks = marks.blocks.len() - 1;
        for b in 0..blocks {
            let lo = b * BLOCK_BITS;
            marks.blocks[b + 1] = live.saturating_sub(lo).min(BLOCK_BITS) as u32;
        }
        for i in 1..marks.blocks.len() {
            let j = i + (i & i.wrapping_neg());
            if j < marks.blocks.len() {
                marks.blocks[j] += marks.blocks[i];
            }
        }
        marks
    }

    fn len(&self) -> usize {
        self.bits.len() * 64
    }

    /// Asks for the bitmap word holding `pos` (a hint: no effect on results).
    #[inline(always)]
    fn hint(&self, pos: usize) {
        if let Some(w) = self.bits.get(pos / 64) {
            prefetch(w as *const u64 as *const u8);
        }
    }

    /// Sets (`delta` 1) or clears (`delta` -1) the mark at `pos`.
    #[inline(always)]
    fn add(&mut self, pos: usize, delta: i32) {
        self.bits[pos / 64] ^= 1 << (pos % 64);
        let mut i = pos / BLOCK_BITS + 1;
        while i < self.blocks.len() {
            self.blocks[i] = self.blocks[i].wrapping_add_signed(delta);
            i += i & i.wrapping_neg();
        }
    }

    /// Marks at positions `0..=pos`.
    #[inline(always)]
    fn prefix(&self, pos: usize) -> u64 {
        let block = pos / BLOCK_BITS;
        let mut sum = 0u64;
        let mut i = block;
        while i > 0 {
            sum += self.blocks[i] as u64;
            i -= i & i.wrapping_neg();
        }
        let word = pos / 64;
        for &w in &self.bits[block * (BLOCK_BITS / 64)..word] {
            sum += w.count_ones() as u64;
        }
        let upto = u64::MAX >> (63 - pos % 64);
        sum + (self.bits[word] & upto).count_ones() as u64
    }
}

/// Exact LRU stack distances in memory proportional to the distinct blocks.
pub struct StackDistances {
    marks: Marks,
    now: usize,
    /// Last-reference time of blocks `0..flat.len()` ([`UNSEEN`] for none).
    flat: Vec<u32>,
    /// Last-reference time of blocks at or beyond `flat.len()`.
    sparse: FxHashMap<u64, u32>,
    unique: u64,
}

impl Default for StackDistances {
    fn default() -> Self {
        Self::new()
    }
}

impl StackDistances {
    /// An empty tracker.
    pub fn new() -> Self {
        StackDistances {
            marks: Marks::new(1024),
            now: 0,
            flat: Vec::new(),
            sparse: FxHashMap::default(),
            unique: 0,
        }
    }

    /// Sets `block`'s last reference to `now`; returns the previous one.
    #[inline(always)]
    fn swap_last(&mut self, block: u64, now: u32) -> Option<u32> {
        if block as usize >= self.flat.len() {
            self.grow_flat(block);
        }
        if let Some(t) = self.flat.get_mut(block as usize) {
            let previous = std::mem::replace(t, now);
            return (previous != UNSEEN).then_some(previous);
        }
        self.sparse.insert(block, now)
    }

    /// Extends the flat array to cover `block` if the bound allows, moving the hash map's entries
    /// below its new end into it.
    #[cold]
    fn grow_flat(&mut self, block: u64) {
        let bound = (2 * (self.unique as usize + 1)).max(FLAT_FLOOR);
        if block as usize >= bound {
            return;
        }
        let len = (block as usize + 1)
            .next_power_of_two()
            .max(2 * self.flat.len())
            .min(bound)
            .max(block as usize + 1);
        self.flat.resize(len, UNSEEN);
        let flat = &mut self.flat;
        self.sparse.retain(|&b, &mut t| {
            let moved = (b as usize) < flat.len();
            if moved {
                flat[b as usize] = t;
            }
            !moved
        });
    }

    /// References `block`; returns its stack distance, or `None` on its first reference.
    /// Always inlined, so that a caller compiled for more of the processor (a population-count
    /// instruction) counts the bitmap with it.
    #[inline(always)]
    pub fn access(&mut self, block: u64) -> Option<u64> {
        if self.now == self.marks.len() {
            self.renumber();
        }
        let now = self.now;
        self.now += 1;
        let previous = self.swap_last(block, now as u32);
        self.marks.add(now, 1);
        let Some(t) = previous else {
            self.unique += 1;
            return None;
        };
        // Marks after the previous reference, before now: every block seen (`unique`) less
        // those whose last reference is at or before `t` (its own mark included).
        let between = self.unique - self.marks.prefix(t as usize);
        self.marks.add(t as usize, -1);
        Some(between)
    }

    /// Asks the processor for `block`'s last-reference time, a few references before it is
    /// accessed (a hint: no effect on results).
    #[inline]
    pub fn hint(&self, block: u64) {
        if let Some(t) = self.flat.get(block as usize) {
            prefetch(t as *const u32 as *const u8);
        }
    }

    /// Asks for the bitmap word of `block`'s last reference, once its time is cached (a hint:
    /// no effect on results).
    #[inline]
    pub fn hint_mark(&self, block: u64) {
        if let Some(&t) = self.flat.get(block as usize) {
            if t != UNSEEN {
                self.marks.hint(t as usize);
            }
        }
    }

    /// Distinct blocks referenced so far.
    pub fn unique(&self) -> u64 {
        self.unique
    }

    /// Positions the tree has room for (a small multiple of the distinct blocks).
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.marks.len()
    }

    /// Gives the live marks the times `0..live` in their order, in a bitmap four times their
    /// number. A live time's new time is its rank among the set bits, read from a running count
    /// of the bitmap's words: no table of times, no sort.
    fn renumber(&mut self) {
        let words = &self.marks.bits;
        let mut before = Vec::with_capacity(words.len());
        let mut count = 0u32;
        for w in words {
            before.push(count);
            count += w.count_ones();
        }
        let rank = |t: &mut u32| {
            let i = *t as usize;
            let below = words[i / 64] & ((1u64 << (i % 64)) - 1);
            *t = before[i / 64] + below.count_ones();
        };
        self.flat
            .iter_mut()
            .filter(|t| **t != UNSEEN)
            .for_each(rank);
        self.sparse.values_mut().for_each(rank);
        let live = self.unique as usize;
        debug_assert_eq!(count as usize, live);
        // At least three quarters of the bitmap are free afterwards, so renumbering costs O(1)
        // per reference amortised.
        let size = (live * 4).max(self.marks.len()).max(1024);
        self.marks = Marks::filled(size, live);
        self.now = live;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Distances by definition: distinct other blocks since the previous reference (also the
    /// reference for `stats`' distances, which use this tracker).
    pub(crate) fn naive(refs: &[u64]) -> Vec<Option<u64>> {
        (0..refs.len())
            .map(|i| {
                let prev = refs[..i].iter().rposition(|&b| b == refs[i])?;
                let mut between: Vec<u64> = refs[prev + 1..i].to_vec();
                between.sort_unstable();
                between.dedup();
                Some(between.len() as u64)
            })
            .collect()
    }

    proptest::proptest! {
        /// Ids near zero, ids far beyond the flat array and ids that the array grows to cover
        /// give the distances of the definition, across renumberings.
        #[test]
        fn flat_and_sparse_ids_give_the_defined_distances(
            refs in proptest::collection::vec(
                proptest::prop_oneof![0u64..50, 1_048_000u64..1_048_700, 5_000_000_000u64..5_000_000_040],
                1..3000,
            )
        ) {
            let mut sd = StackDistances::new();
            let got: Vec<Option<u64>> = refs.iter().map(|&b| sd.access(b)).collect();
            proptest::prop_assert_eq!(got, naive(&refs));
        }
    }

    #[test]
    fn far_ids_stay_in_the_hash_map() {
        // Ids spread over 2^40 must not make the flat array follow them.
        let mut sd = StackDistances::new();
        for i in 0..10_000u64 {
            sd.access(i << 28);
        }
        assert!(
            sd.flat.len() <= FLAT_FLOOR,
            "flat array of {}",
            sd.flat.len()
        );
        assert_eq!(sd.unique(), 10_000);
    }
}
