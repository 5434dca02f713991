//! Segmented LRU (Karedla, Love, Wherry, "Caching strategies to improve disk system
//! performance", IEEE Computer 1994), generalised to `segments` LRU segments as libCacheSim's
//! `SLRU.c` does (its default, four equal segments, is the default here;
//! `tests/python/test_xcheck_slru.py` asserts equal misses).
//!
//! Segment 0 is the probationary one, the last the most protected. Steps, as libCacheSim takes
//! them:
//! - a block enters at the MRU end of the lowest segment with room: while the cache fills, the
//!   upper segments fill with blocks seen once; once it is full, the eviction frees room in
//!   segment 0 (the victim's segment, or an empty one), so new blocks enter there;
//! - a hit in the last segment moves the block to its MRU end; a hit in segment `k` moves it to the
//!   MRU end of segment `k + 1`, and while a segment holds more than its share its LRU block moves
//!   down to the MRU end of the segment below;
//! - the victim is the LRU block of the lowest non-empty segment.
//!
//! Shares: segments 1 and up hold `floor(c / segments)` blocks each and segment 0 the rest.
//! libCacheSim gives every segment `floor(c / segments)`, lets segment 0 grow past it when the
//! others are full, and evicts on a hit to bring it back, which leaves frames empty (a cache
//! level here never evicts on a hit). The two agree exactly when `segments` divides `c`.
//! `variant=libcachesim` (set by `--preset libcachesim`) builds libCacheSim's sizing instead
//! (`compat/libcachesim/slru.rs`). The shares are computed in [`SlruPolicy::share`] only.
//!
//! Prefetching: a prefetched block enters as a demand-fetched one would; its first demand access
//! is its first reference, so it moves to the MRU end of the segment it is in without promotion.
//! Pinned blocks are passed over: the victim is the LRU-most unpinned block of the lowest segment
//! that has one. Demotions move pinned blocks like any other (they stay resident).

use super::lru::last_unpinned;
use super::registry::PolicySpec;
use super::structures::list::Lists;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;
use crate::error::Result as CoreResult;

/// The most segments `slru.segments` accepts.
pub const MAX_SEGMENTS: usize = 16;

/// Segmented LRU with `segments` segments.
pub struct SlruPolicy {
    lists: Lists,
    capacity: usize,
    segments: usize,
}

impl SlruPolicy {
    /// An empty SLRU of `capacity` blocks in `segments` segments over ids `0..universe`.
    pub fn new(capacity: usize, segments: usize, universe: usize) -> Self {
        assert!((1..=MAX_SEGMENTS).contains(&segments));
        SlruPolicy {
            lists: Lists::new(segments, universe),
            capacity,
            segments,
        }
    }

    /// Reads `segments` from `spec`.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> CoreResult<Self> {
        let segments = spec.usize("segments", 1, MAX_SEGMENTS)?;
        Ok(Self::new(capacity, segments, universe))
    }

    /// How many blocks segment `k` holds at most.
    pub fn share(&self, k: usize) -> usize {
        let upper = self.capacity / self.segments;
        if k == 0 {
            self.capacity - upper * (self.segments - 1)
        } else {
            upper
        }
    }

    /// The segment `b` is in.
    pub fn segment_of(&self, b: Block) -> Option<usize> {
        self.lists.list_of(b)
    }

    /// Moves LRU blocks down from segment `k` while it holds more than its share, then from the
    /// segment below, down to segment 1.
    fn demote_from(&mut self, mut k: usize) {
        while k > 0 && self.lists.len(k) > self.share(k) {
            let b = self
                .lists
                .pop_back(k)
                .expect("an over-full segment has blocks");
            self.lists.push_front(k - 1, b);
            if self.lists.len(k) <= self.share(k) {
                k -= 1;
            }
        }
    }
}

impl Policy for SlruPolicy {
    fn name(&self) -> &'static str {
        "slru"
    }

    #[inline]
    fn hint(&self, b: Block) {
        self.lists.hint(b);
    }

    fn on_hit(&mut self, b: Block, cx: &Access) {
        let k = self.lists.list_of(b).expect("a hit block is resident");
        if cx.first_use || k + 1 == self.segments {
            self.lists.move_to_front(k, b);
            return;
        }
        self.lists.remove(b);
        self.lists.push_front(k + 1, b);
        self.demote_from(k + 1);
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        (0..self.segments).find_map(|k| last_unpinned(&self.lists, k, frames))
    }

    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        self.lists.remove(b);
    }

    fn on_insert(&mut self, b: Block, _kind: InsertKind, _cx: &Access) {
        // The segments' shares add up to the cache, so a segment has room whenever a block
        // enters. After an eviction that is the victim's segment, the lowest non-empty one, or an
        // empty one below it: segment 0 unless pinned blocks kept the victim out of it, which is
        // libCacheSim's "insert into segment 0 after evicting".
        let k = (0..self.segments)
            .find(|&k| self.lists.len(k) < self.share(k))
            .unwrap_or(0);
        self.lists.push_front(k, b);
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Err("this form counts blocks; a level weighing objects is given slru_sized::SlruSizedPolicy")
    }

    fn len(&self) -> usize {
        (0..self.segments).map(|k| self.lists.len(k)).sum()
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.lists.check()?;
        check_same_residents((0..self.segments).flat_map(|k| self.lists.iter(k)), frames)?;
        if let Some(k) = (0..self.segments).find(|&k| self.lists.len(k) > self.share(k)) {
            return Err(format!(
                "segment {k} holds {} blocks, more than its {}",
                self.lists.len(k),
                self.share(k)
            ));
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        const NAMES: [&str; MAX_SEGMENTS] = [
            "seg0", "seg1", "seg2", "seg3", "seg4", "seg5", "seg6", "seg7", "seg8", "seg9",
            "seg10", "seg11", "seg12", "seg13", "seg14", "seg15",
        ];
        (0..self.segments)
            .map(|k| (NAMES[k], self.lists.iter(k).collect()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testutil::{pattern, run};

    #[test]
    fn filling_puts_blocks_in_the_lowest_segment_with_room() {
        // cap 4, 2 segments of 2: 1 2 go to segment 0, 3 4 to segment 1.
        let level = run(SlruPolicy::new(4, 2, 8), 4, &[1, 2, 3, 4]);
        assert_eq!(level.policy.dump()[0].1, vec![2, 1]);
        assert_eq!(level.policy.dump()[1].1, vec![4, 3]);
    }

    #[test]
    fn a_hit_promotes_and_the_upper_segment_demotes_its_lru() {
        // Continuing: 1 hits and moves to segment 1, whose LRU (3) moves down. 5 evicts 2 (the
        // LRU of segment 0) and enters segment 0.
        let refs = [1, 2, 3, 4, 1, 5, 2];
        let level = run(SlruPolicy::new(4, 2, 8), 4, &refs[..6]);
        assert_eq!(level.policy.dump()[0].1, vec![5, 3]);
        assert_eq!(level.policy.dump()[1].1, vec![1, 4]);
        assert_eq!(pattern(|| SlruPolicy::new(4, 2, 8), 4, &refs), "mmmmhmm");
    }

    #[test]
    fn one_segment_is_lru() {
        let refs = [1, 2, 3, 1, 4, 2, 1, 3];
        assert_eq!(
            pattern(|| SlruPolicy::new(3, 1, 5), 3, &refs),
            pattern(|| crate::policy::lru::LruPolicy::new(5), 3, &refs)
        );
    }

    #[test]
    fn segment_zero_takes_the_remainder() {
        let p = SlruPolicy::new(10, 4, 4);
        assert_eq!(
            (0..4).map(|k| p.share(k)).collect::<Vec<_>>(),
            vec![4, 2, 2, 2]
        );
    }

    #[test]
    fn a_first_use_refreshes_without_promotion() {
        // cap 4, 2 segments: 1 enters segment 0, 2 is prefetched into segment 0 too.
        let mut level = crate::cache::level::CacheLevel::new(SlruPolicy::new(4, 2, 8), 4, 8);
        level.prefetch(2, crate::policy::NEVER);
        level.access(1, crate::policy::NEVER);
        assert_eq!(level.policy.dump()[0].1, vec![1, 2]);
        level.access(2, crate::policy::NEVER); // first use: MRU of segment 0
        assert_eq!(level.policy.segment_of(2), Some(0));
        assert_eq!(level.policy.dump()[0].1, vec![2, 1]);
        level.access(2, crate::policy::NEVER); // a real hit promotes
        assert_eq!(level.policy.segment_of(2), Some(1));
    }
}
