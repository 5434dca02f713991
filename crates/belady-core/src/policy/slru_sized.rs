//! Segmented LRU over objects of different sizes, as libCacheSim's `SLRU.c` runs it at a byte
//! capacity: each of the `segments` LRU segments holds `floor(c / segments)` bytes. The builder
//! makes it for a level that weighs objects (`builder::build_for`); a level that counts blocks
//! or objects gets [`super::slru::SlruPolicy`]. `tests/python/test_xcheck_bytes.py` asserts equal
//! misses and missed bytes.
//!
//! Steps, as libCacheSim takes them:
//! - An object larger than one segment is not admitted (nothing is evicted for it).
//! - A miss evicts the LRU object of the lowest non-empty segment until the object fits in the
//!   cache, then inserts it at the MRU end of the lowest segment with room for it, or of segment 0
//!   when none has, which may take segment 0 past its bytes.
//! - A hit in the last segment moves the object to its MRU end. A hit in segment `k` moves it to
//!   the MRU end of segment `k + 1`; while that segment holds more than its bytes its LRU object
//!   moves down to the MRU end of the segment below, and so on down; segment 0 over its bytes
//!   evicts its LRU object. Those evictions happen on the hit: the policy queues them
//!   ([`Pending::Evict`]) and the level applies them, so the frame table stays the one owner.
//!
//! Prefetching: a prefetched object enters as a demand miss would; its first demand access moves
//! it to its segment's MRU end without promotion. Pinned objects are passed over by evictions
//! (the victim is the LRU-most unpinned object of the lowest segment that has one; with none,
//! segment 0 stays over its bytes); demotions move pinned objects like any other.

use super::lru::last_unpinned;
use super::registry::PolicySpec;
use super::slru::MAX_SEGMENTS;
use super::structures::list::Lists;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Pending, Policy};
use crate::cache::frames::Frames;
use crate::error::Result as CoreResult;
use std::collections::VecDeque;

/// Segmented LRU whose segments hold bytes (libCacheSim's SLRU at a byte capacity).
pub struct SlruSizedPolicy {
    lists: Lists,
    segments: usize,
    /// Bytes each segment holds at most.
    share: u64,
    /// Bytes of each resident object, as it entered.
    size: Vec<u32>,
    /// Bytes on each segment.
    bytes: Vec<u64>,
    pinned: Vec<bool>,
    /// Objects a hit evicted, for the level to take out.
    evicted: VecDeque<Block>,
}

impl SlruSizedPolicy {
    /// An empty SLRU of `capacity` bytes in `segments` segments over ids `0..universe`.
    pub fn new(capacity: u64, segments: usize, universe: usize) -> Self {
        assert!((1..=MAX_SEGMENTS).contains(&segments));
        SlruSizedPolicy {
            lists: Lists::new(segments, universe),
            segments,
            share: capacity / segments as u64,
            size: vec![0; universe],
            bytes: vec![0; segments],
            pinned: vec![false; universe],
            evicted: VecDeque::new(),
        }
    }

    /// Reads `segments` from `spec`, for a cache of `capacity` bytes.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> CoreResult<Self> {
        let segments = spec.usize("segments", 1, MAX_SEGMENTS)?;
        Ok(Self::new(capacity as u64, segments, universe))
    }

    /// The segment `b` is in.
    pub fn segment_of(&self, b: Block) -> Option<usize> {
        self.lists.list_of(b)
    }

    fn push(&mut self, k: usize, b: Block) {
        self.lists.push_front(k, b);
        self.bytes[k] += self.size[b as usize] as u64;
    }

    fn take(&mut self, b: Block) -> Option<usize> {
        let k = self.lists.remove(b)?;
        self.bytes[k] -= self.size[b as usize] as u64;
        Some(k)
    }

    /// Brings segment `k` within its bytes by moving LRU objects down (segment 0 evicts); `false`
    /// when segment 0 is over and every object is pinned.
    fn cool(&mut self, k: usize) -> bool {
        if k == 0 {
            let victim = (0..self.segments).find_map(|s| {
                let mut cur = self.lists.back(s);
                while let Some(b) = cur {
                    if !self.pinned[b as usize] {
                        return Some(b);
                    }
                    cur = self.lists.toward_front(b);
                }
                None
            });
            let Some(victim) = victim else {
                return false;
            };
            self.take(victim);
            self.evicted.push_back(victim);
            return true;
        }
        let b = self
            .lists
            .back(k)
            .expect("an over-full segment has objects");
        self.take(b);
        self.push(k - 1, b);
        while self.bytes[k - 1] > self.share {
            if !self.cool(k - 1) {
                return false;
            }
        }
        true
    }
}

impl Policy for SlruSizedPolicy {
    fn name(&self) -> &'static str {
        "slru"
    }

    #[inline]
    fn hint(&self, b: Block) {
        self.lists.hint(b);
    }

    fn on_hit(&mut self, b: Block, cx: &Access) {
        let k = self.lists.list_of(b).expect("a hit object is resident");
        if cx.first_use || k + 1 == self.segments {
            self.lists.move_to_front(k, b);
            return;
        }
        self.take(b);
        self.push(k + 1, b);
        // libCacheSim cools the segment the hit object is in until it fits; cooling may move
        // the object itself down, or (from segment 0) evict it.
        while let Some(k) = self.lists.list_of(b) {
            if self.bytes[k] <= self.share || !self.cool(k) {
                break;
            }
        }
    }

    fn before_insert(&mut self, _b: Block, _frames: &Frames, cx: &Access) -> bool {
        cx.size <= self.share
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        (0..self.segments).find_map(|k| last_unpinned(&self.lists, k, frames))
    }

    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        // Objects a hit evicted are out of the segments already.
        self.take(b);
    }

    fn on_insert(&mut self, b: Block, _kind: InsertKind, cx: &Access) {
        let size = u32::try_from(cx.size).unwrap_or(u32::MAX);
        self.size[b as usize] = size;
        let k = (0..self.segments)
            .find(|&k| self.bytes[k] + size as u64 <= self.share)
            .unwrap_or(0);
        self.push(k, b);
    }

    fn on_pin(&mut self, b: Block, pinned: bool) {
        self.pinned[b as usize] = pinned;
    }

    fn take_pending(&mut self) -> Option<Pending> {
        self.evicted.pop_front().map(Pending::Evict)
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    fn len(&self) -> usize {
        (0..self.segments).map(|k| self.lists.len(k)).sum::<usize>() + self.evicted.len()
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.lists.check()?;
        check_same_residents((0..self.segments).flat_map(|k| self.lists.iter(k)), frames)?;
        for k in 0..self.segments {
            let sum: u64 = self
                .lists
                .iter(k)
                .map(|b| self.size[b as usize] as u64)
                .sum();
            if sum != self.bytes[k] {
                return Err(format!(
                    "segment {k} counts {} bytes, its objects weigh {sum}",
                    self.bytes[k]
                ));
            }
            if k > 0 && self.bytes[k] > self.share {
                return Err(format!(
                    "segment {k} holds {} bytes, more than its {}",
                    self.bytes[k], self.share
                ));
            }
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
    use crate::cache::level::{CacheLevel, Outcome};
    use crate::policy::NEVER;

    fn level(capacity: usize) -> CacheLevel<SlruSizedPolicy> {
        CacheLevel::weighted(SlruSizedPolicy::new(capacity as u64, 2, 16), capacity, 16)
    }

    #[test]
    fn objects_enter_the_lowest_segment_with_room_and_a_big_one_is_refused() {
        // 100 bytes, 2 segments of 50: 1 (30) and 2 (20) fill segment 0, 3 (40) goes to 1.
        let mut l = level(100);
        for (b, size) in [(1, 30), (2, 20), (3, 40)] {
            l.access_sized(b, size, NEVER);
        }
        assert_eq!(l.policy.dump()[0].1, vec![2, 1]);
        assert_eq!(l.policy.dump()[1].1, vec![3]);
        // 51 bytes is more than a segment: refused, nothing evicted.
        assert_eq!(l.access_sized(4, 51, NEVER), Outcome::Bypass);
        assert_eq!((l.stats().rejected, l.stats().evictions), (1, 0));
        // 5 (10) fits in the cache without an eviction; segment 0 has no room left, segment 1
        // has 10 bytes: it enters segment 1.
        l.access_sized(5, 10, NEVER);
        assert_eq!(l.policy.segment_of(5), Some(1));
        l.check().unwrap();
    }

    #[test]
    fn a_hit_that_overfills_segment_zero_evicts_on_the_hit() {
        // 100 bytes, 2 segments of 50: 1 (30) 2 (20) in segment 0, 3 (50) in segment 1. 1 hits:
        // segment 1 (80) is over, so 3 moves down to segment 0 (70), which evicts 2 (its LRU)
        // and then holds 50.
        let mut l = level(100);
        for (b, size) in [(1, 30), (2, 20), (3, 50)] {
            l.access_sized(b, size, NEVER);
        }
        assert_eq!(l.access_sized(1, 30, NEVER), Outcome::Hit);
        l.check().unwrap();
        assert_eq!(l.policy.dump()[1].1, vec![1]);
        assert_eq!(l.policy.dump()[0].1, vec![3]);
        assert!(!l.frames().is_resident(2));
        assert_eq!(l.stats().evictions, 1);
        assert_eq!(l.frames().used(), 80);
    }
}
