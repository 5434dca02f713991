//! LFU: evict the resident block with the fewest references; among equally referenced blocks, the
//! one that reached that count earliest.
//!
//! Counts start at 1 when a block enters and are forgotten when it leaves (no history of evicted
//! blocks), as in libCacheSim's `LFU.c`, whose frequency nodes keep their objects in the order
//! they arrived at that frequency and evict the first. That order is the order of each block's
//! latest reference, so ties go to the least recently used block. The cross-check against
//! libcachesim's `LFU` is `tests/python/test_xcheck_lfu.py` (equal misses).
//!
//! Prefetching: a prefetched block enters with count 1 like a demand-fetched one; its first demand
//! access is its first reference, so the count stays 1 and it rejoins the count-1 group as its
//! newest member, where a block read on that access would have entered. Pinned blocks are passed
//! over: the victim is the oldest unpinned block of the smallest count that has one.

use super::structures::freq_buckets::FreqBuckets;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;

/// Least frequently used replacement, ties to the earliest arrival at the count.
pub struct LfuPolicy {
    counts: FreqBuckets,
}

impl LfuPolicy {
    /// An empty LFU over block ids `0..universe`.
    pub fn new(universe: usize) -> Self {
        LfuPolicy {
            counts: FreqBuckets::new(universe),
        }
    }

    /// The reference count of resident `b`.
    pub fn count(&self, b: Block) -> u64 {
        self.counts.key_of(b)
    }
}

impl Policy for LfuPolicy {
    fn name(&self) -> &'static str {
        "lfu"
    }

    #[inline]
    fn hint(&self, b: Block) {
        self.counts.hint(b);
    }

    fn on_hit(&mut self, b: Block, cx: &Access) {
        let count = self.counts.remove(b).expect("a hit block is resident");
        let count = if cx.first_use { count } else { count + 1 };
        self.counts.push(count, b);
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        self.counts.victim_from(self.counts.min_key()?, frames)
    }

    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        self.counts.remove(b);
    }

    fn on_insert(&mut self, b: Block, _kind: InsertKind, _cx: &Access) {
        self.counts.push(1, b);
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    fn len(&self) -> usize {
        self.counts.len()
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.counts.check()?;
        check_same_residents(self.counts.iter(), frames)
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        vec![("by_count_then_age", self.counts.iter().collect())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testutil::{pattern, run};
    use proptest::prelude::*;

    #[test]
    fn hand_worked_sequence() {
        // cap 2: 1 1 1 (count 3); 2 enters (1), hits (2); 3 evicts 2, the smaller count, not 1.
        let refs = [1, 1, 1, 2, 2, 3, 1, 2];
        assert_eq!(pattern(|| LfuPolicy::new(4), 2, &refs), "mhhmhmhm");
        let level = run(LfuPolicy::new(4), 2, &refs[..7]);
        assert_eq!(level.policy.count(1), 4);
        assert_eq!(level.policy.count(3), 1);
    }

    #[test]
    fn equal_counts_evict_the_earliest_to_reach_them() {
        // cap 3: 1 2 3 once each, then 2 and 1 again (count 2; 2 reached it first). 4 evicts 3,
        // the one block left at count 1; the order is count 1 (4), then count 2 by arrival (2, 1).
        let level = run(LfuPolicy::new(8), 3, &[1, 2, 3, 2, 1, 4]);
        assert_eq!(level.policy.dump()[0].1, vec![4, 2, 1]);
    }

    /// Plain vector model: (block, count, stamp of reaching the count).
    fn model(cap: usize, refs: &[u32]) -> u64 {
        let mut cache: Vec<(u32, u64, usize)> = Vec::new();
        let mut hits = 0;
        for (t, &b) in refs.iter().enumerate() {
            if let Some(e) = cache.iter_mut().find(|e| e.0 == b) {
                e.1 += 1;
                e.2 = t;
                hits += 1;
                continue;
            }
            if cache.len() == cap {
                let i = (0..cache.len())
                    .min_by_key(|&i| (cache[i].1, cache[i].2))
                    .unwrap();
                cache.remove(i);
            }
            cache.push((b, 1, t));
        }
        hits
    }

    proptest! {
        #[test]
        fn matches_a_plain_model(cap in 1usize..6, refs in proptest::collection::vec(0u32..10, 1..200)) {
            prop_assert_eq!(run(LfuPolicy::new(10), cap, &refs).stats().hits, model(cap, &refs));
        }
    }

    #[test]
    fn a_first_use_is_the_first_reference() {
        let mut level = crate::cache::level::CacheLevel::new(LfuPolicy::new(4), 2, 4);
        level.prefetch(1, crate::policy::NEVER);
        level.access(2, crate::policy::NEVER);
        level.access(1, crate::policy::NEVER);
        assert_eq!(level.policy.count(1), 1);
        // 1 rejoined the count-1 group as its newest member: 2 goes first.
        level.access(3, crate::policy::NEVER);
        assert!(level.frames().is_resident(1) && !level.frames().is_resident(2));
    }
}
