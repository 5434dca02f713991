//! Exact LRU miss-ratio curve in one pass (Mattson et al.'s stack algorithm).
//!
//! LRU has the inclusion property: a cache of `c` blocks holds the `c` most recently used
//! blocks, so a reference hits at every size above its stack distance (the number of distinct
//! other blocks referenced since the previous reference to the same block). One pass that
//! records each reference's distance therefore gives the hits at every size at once.
//!
//! The distance is found in O(log n) by [`StackDistances`] (a bitmap of last-reference times
//! with counts per block of it, renumbered when it fills): memory stays a small multiple of the distinct blocks, never
//! of the trace's length.

use super::stack::StackDistances;
use crate::cache::frames::prefetch;

/// One-pass LRU stack-distance histogram: hits of LRU at every cache size.
pub struct LruStack {
    /// The distances themselves: `belady stats` uses the same tracker for its reuse histogram.
    distances: StackDistances,
    /// `histogram[d]`: references at stack distance `d`, modulo 2^32. Half the bytes of u64
    /// counters: the counter of a random distance is touched on every reference, so the
    /// histogram's size decides how much of it the caches hold.
    histogram: Vec<u32>,
    /// Per distance, the 2^32s its counter wrapped past (allocated on the first wrap).
    wrapped: Vec<u64>,
    references: u64,
}

impl Default for LruStack {
    fn default() -> Self {
        Self::new()
    }
}

impl LruStack {
    /// An empty stack.
    pub fn new() -> Self {
        LruStack {
            distances: StackDistances::new(),
            histogram: Vec::new(),
            wrapped: Vec::new(),
            references: 0,
        }
    }

    /// References `block`; returns its stack distance, or `None` on its first reference.
    #[inline(always)]
    pub fn access(&mut self, block: u64) -> Option<u64> {
        self.references += 1;
        let d = self.distances.access(block)?;
        self.count(d);
        Some(d)
    }

    /// References every block of `blocks` in order, as [`LruStack::access`] one by one would.
    /// The tracker's state for a block is asked for a few references ahead of it (its time,
    /// then the bitmap word the time points to), and the distances of a batch are counted
    /// after the batch with each counter asked for ahead too, so memory latency overlaps the
    /// work instead of adding to it (the counters are as many as the distinct blocks).
    pub fn access_all(&mut self, blocks: &[u32]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the processor has the instruction the copy is compiled for.
            return unsafe { self.access_all_popcnt(blocks) };
        }
        self.access_all_portable(blocks)
    }

    /// [`LruStack::access_all`] compiled with the processor's population count: the tracker
    /// counts bitmap bits on every reference, which the portable build does in a dozen
    /// instructions.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn access_all_popcnt(&mut self, blocks: &[u32]) {
        self.access_all_portable(blocks)
    }

    /// [`LruStack::access_all`] for any processor (inlined into each compiled copy).
    #[inline(always)]
    fn access_all_portable(&mut self, blocks: &[u32]) {
        /// How far ahead a block's last-reference time is fetched, and its mark's word at half
        /// that distance (once the time is likely cached).
        const AHEAD: usize = 16;
        /// Distances counted at a time.
        const BATCH: usize = 256;
        /// How far ahead a distance's counter is fetched.
        const COUNT_AHEAD: usize = 8;
        let mut distances = [0u64; BATCH];
        for (start, batch) in blocks.chunks(BATCH).enumerate() {
            let start = start * BATCH;
            let mut found = 0;
            for (j, &b) in batch.iter().enumerate() {
                let i = start + j;
                if let Some(&next) = blocks.get(i + AHEAD) {
                    self.distances.hint(next as u64);
                }
                if let Some(&next) = blocks.get(i + AHEAD / 2) {
                    self.distances.hint_mark(next as u64);
                }
                if let Some(d) = self.distances.access(b as u64) {
                    distances[found] = d;
                    found += 1;
                }
            }
            self.references += batch.len() as u64;
            let found = &distances[..found];
            for (j, &d) in found.iter().enumerate() {
                if let Some(&ahead) = found.get(j + COUNT_AHEAD) {
                    if let Some(counter) = self.histogram.get(ahead as usize) {
                        prefetch(counter as *const u32 as *const u8);
                    }
                }
                self.count(d);
            }
        }
    }

    /// Counts one reference at distance `d`.
    #[inline]
    fn count(&mut self, d: u64) {
        let slot = d as usize;
        if self.histogram.len() <= slot {
            self.histogram.resize(slot + 1, 0);
        }
        let (count, wrapped) = self.histogram[slot].overflowing_add(1);
        self.histogram[slot] = count;
        if wrapped {
            self.wrap(slot);
        }
    }

    /// Carries a counter that passed 2^32.
    #[cold]
    fn wrap(&mut self, slot: usize) {
        if self.wrapped.len() <= slot {
            self.wrapped.resize(self.histogram.len(), 0);
        }
        self.wrapped[slot] += 1 << 32;
    }

    /// References seen.
    pub fn references(&self) -> u64 {
        self.references
    }

    /// Distinct blocks seen.
    pub fn unique(&self) -> u64 {
        self.distances.unique()
    }

    /// `histogram()[d]`: references at stack distance `d` (first references are not counted).
    pub fn histogram(&self) -> Vec<u64> {
        let wrapped = self.wrapped.iter().chain(std::iter::repeat(&0));
        self.histogram
            .iter()
            .zip(wrapped)
            .map(|(&h, &w)| h as u64 + w)
            .collect()
    }

    /// The finished curve.
    pub fn curve(&self) -> LruCurve {
        let mut cumulative = Vec::with_capacity(self.histogram.len() + 1);
        let mut sum = 0u64;
        cumulative.push(0);
        for h in self.histogram() {
            sum += h;
            cumulative.push(sum);
        }
        LruCurve {
            cumulative,
            references: self.references,
            unique: self.unique(),
        }
    }
}

/// LRU's hits at every size, from a stack-distance histogram.
#[derive(Clone, Debug)]
pub struct LruCurve {
    /// `cumulative[c]`: references with stack distance below `c`, i.e. LRU's hits with `c` blocks.
    cumulative: Vec<u64>,
    /// References in the trace.
    pub references: u64,
    /// Distinct blocks in the trace.
    pub unique: u64,
}

impl LruCurve {
    /// LRU's hits with a cache of `blocks` blocks (a reference at distance `d` hits when
    /// `d < blocks`).
    pub fn hits(&self, blocks: u64) -> u64 {
        let i = (blocks as usize).min(self.cumulative.len() - 1);
        self.cumulative[i]
    }

    /// LRU's miss ratio with `blocks` blocks (0 for an empty trace).
    pub fn miss_ratio(&self, blocks: u64) -> f64 {
        if self.references == 0 {
            0.0
        } else {
            1.0 - self.hits(blocks) as f64 / self.references as f64
        }
    }

    /// Hits gained by growing the cache from `c - 1` to `c` blocks, for `c` in `1..`: the
    /// references at stack distance `c - 1`.
    pub fn gains(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.cumulative
            .windows(2)
            .enumerate()
            .map(|(d, w)| (d as u64 + 1, w[1] - w[0]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::lru::LruPolicy;
    use crate::policy::NEVER;

    #[test]
    fn hand_worked_distances() {
        // 0 1 2 0 1 3 2 0: distances -, -, -, 2, 2, -, 3, 3.
        let mut s = LruStack::new();
        let d: Vec<Option<u64>> = [0, 1, 2, 0, 1, 3, 2, 0]
            .iter()
            .map(|&b| s.access(b))
            .collect();
        assert_eq!(
            d,
            vec![None, None, None, Some(2), Some(2), None, Some(3), Some(3)]
        );
        let c = s.curve();
        assert_eq!((c.hits(2), c.hits(3), c.hits(4), c.hits(100)), (0, 2, 4, 4));
        assert_eq!(c.unique, 4);
    }

    #[test]
    fn compaction_keeps_distances() {
        // A loop over 3000 blocks, longer than the first tree, forces several compactions;
        // every reference after the first pass is at distance 2999.
        let mut s = LruStack::new();
        for i in 0..20_000u64 {
            let d = s.access(i % 3000);
            assert_eq!(d, (i >= 3000).then_some(2999), "reference {i}");
        }
        assert!(
            // Four times the live blocks, rounded up to the bitmap's 512-time blocks.
            s.distances.capacity() <= 12288,
            "tree of {}",
            s.distances.capacity()
        );
    }

    #[test]
    fn counters_carry_past_two_to_the_32() {
        let mut s = LruStack::new();
        s.access(7);
        s.access(7);
        // Distance 0 once so far; put its counter at the edge and count two more.
        s.histogram[0] = u32::MAX;
        s.access(7);
        s.access(7);
        assert_eq!(s.histogram()[0], u32::MAX as u64 + 2);
        assert_eq!(s.curve().hits(1), u32::MAX as u64 + 2);
    }

    fn lru_hits(refs: &[u32], capacity: usize) -> u64 {
        let universe = refs.iter().max().map_or(0, |&m| m as usize + 1);
        let mut level = CacheLevel::new(LruPolicy::new(universe), capacity, universe);
        refs.iter().for_each(|&b| {
            level.access(b, NEVER);
        });
        level.into_stats().hits
    }

    proptest::proptest! {
        /// Referencing a chunk at once counts what referencing its blocks one by one counts:
        /// over batch boundaries, renumberings, and ids beyond the flat array (hashed).
        #[test]
        fn a_chunk_counts_what_its_blocks_count_one_by_one(
            refs in proptest::collection::vec(
                proptest::prop_oneof![0u32..300, 4_000_000u32..4_000_050],
                1..2000,
            ),
            split in 0usize..2000,
        ) {
            let mut one = LruStack::new();
            refs.iter().for_each(|&b| { one.access(b as u64); });
            let mut chunked = LruStack::new();
            let (a, b) = refs.split_at(split.min(refs.len()));
            chunked.access_all(a);
            chunked.access_all(b);
            proptest::prop_assert_eq!(chunked.histogram(), one.histogram());
            proptest::prop_assert_eq!(chunked.references(), one.references());
            proptest::prop_assert_eq!(chunked.unique(), one.unique());
        }

        /// The one-pass curve equals a separate LRU simulation at every size.
        #[test]
        fn curve_equals_per_size_simulation(
            refs in proptest::collection::vec(0u32..40, 1..400),
        ) {
            let mut s = LruStack::new();
            refs.iter().for_each(|&b| { s.access(b as u64); });
            let c = s.curve();
            for cap in 1..=45usize {
                proptest::prop_assert_eq!(c.hits(cap as u64), lru_hits(&refs, cap), "size {}", cap);
            }
        }
    }
}
