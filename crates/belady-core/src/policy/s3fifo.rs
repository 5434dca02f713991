//! S3-FIFO: Yang, Zhang, Qiu, Yue, Vinayak, "FIFO queues are all you need for cache eviction",
//! SOSP 2023, with the steps of libCacheSim's `S3FIFO.c` (the authors' simulator), so that misses
//! agree exactly (`tests/python/test_xcheck_s3fifo.py`).
//!
//! Three FIFO queues: a small one (`small` share of the cache, 10 %), a main one (the rest) and a
//! ghost queue of ids evicted from the small queue (`ghost` times the cache, 0.9). Each resident
//! block has a small access count.
//! - A hit adds one to the count (in either queue); nothing moves.
//! - A miss on an id in the ghost queue takes it out of the ghost queue (before anything is
//!   evicted, so the victim's ghost entry cannot push it out) and inserts the block into main;
//!   any other miss inserts into small, except that before the first eviction a block that finds
//!   the small queue full goes to main (libCacheSim's current `S3FIFO.c`; its `S3FIFOv0.c` does
//!   not).
//! - Eviction evicts from main when main holds more than its share or small is empty, else from
//!   small. From small: the oldest block moves to main with a count of 0 if its count has reached
//!   the move-to-main `threshold` (2), and the next oldest is tried; the first below the threshold
//!   is evicted and its id enters the ghost queue (the oldest id leaves when it is full). If small
//!   empties this way, main is evicted from. From main: the oldest block with a count is
//!   reinserted at the new end with `min(count, 3) - 1` (a two-bit clock); the first with count 0
//!   is evicted.
//!
//! Sizes: small holds `floor(small * c)` blocks, at least one; main `c` minus that; the ghost queue
//! `floor(ghost * c)` ids. libCacheSim refuses to cache anything that is not a ghost hit when the
//! small queue holds fewer than two objects (an object may not fill it), so below 20 blocks its
//! S3-FIFO caches nothing; here the small queue keeps one block and the policy works. Capacity
//! arithmetic is in `S3FifoPolicy::small_over` and `main_over` only.
//!
//! Prefetching: a prefetched block enters like a demand miss (main if its id is a ghost, else
//! small) with count 0; its first demand access is its first reference and leaves the count at 0.
//! A prefetched block evicted unused from small leaves no ghost entry. Pinned blocks are passed
//! over where they stand (neither moved nor evicted, their counts kept).
//!
//! The queues are rings of ids, not linked lists (`s3_queues`): every step but a ghost hit
//! and a walk past pinned blocks appends at one end or leaves from the other.

use super::registry::PolicySpec;
use super::structures::s3_queues::{S3Queues, GHOST, MAIN, SMALL};
use super::{Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;
use crate::error::Result as CoreResult;

/// S3-FIFO with small, main and ghost FIFO queues.
pub struct S3FifoPolicy {
    queues: S3Queues,
    small_cap: usize,
    main_cap: usize,
    ghost_cap: usize,
    threshold: u8,
    has_evicted: bool,
    /// A missed block whose id was taken off the ghost queue when its miss began.
    ghost_hit: Option<Block>,
}

impl S3FifoPolicy {
    /// An S3-FIFO of `capacity` blocks with the given small share, ghost multiple and threshold.
    pub fn new(capacity: usize, small: f64, ghost: f64, threshold: u8, universe: usize) -> Self {
        let small_cap = ((capacity as f64 * small) as usize).clamp(1, capacity.max(1));
        S3FifoPolicy {
            queues: S3Queues::new(universe),
            small_cap,
            main_cap: capacity - small_cap.min(capacity),
            ghost_cap: (capacity as f64 * ghost) as usize,
            threshold,
            has_evicted: false,
            ghost_hit: None,
        }
    }

    /// Reads `small`, `ghost` and `threshold` from `spec`.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> CoreResult<Self> {
        let small = spec.f64("small", 0.0, 1.0)?;
        let ghost = spec.f64("ghost", 0.0, 64.0)?;
        let threshold = spec.usize("threshold", 1, 255)? as u8;
        Ok(Self::new(capacity, small, ghost, threshold, universe))
    }

    /// The small queue's size in blocks.
    pub fn small_cap(&self) -> usize {
        self.small_cap
    }

    /// Whether the small queue holds its share or more.
    fn small_over(&self) -> bool {
        self.queues.len(SMALL) >= self.small_cap
    }

    /// Whether the main queue holds more than its share.
    fn main_over(&self) -> bool {
        self.queues.len(MAIN) > self.main_cap
    }

    fn victim_in_small(&mut self, frames: &Frames) -> Option<Block> {
        self.queues.victim_in_small(self.threshold, frames, |_| {})
    }
}

impl Policy for S3FifoPolicy {
    fn name(&self) -> &'static str {
        "s3fifo"
    }

    #[inline]
    fn hint(&self, b: Block) {
        self.queues.hint(b);
    }

    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        if !cx.first_use {
            self.queues.bump(b);
        }
    }

    fn select_victim(&mut self, incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        if self.queues.contains(GHOST, incoming) {
            self.queues.take(incoming);
            self.ghost_hit = Some(incoming);
        }
        self.has_evicted = true;
        let victim = if self.main_over() || self.queues.len(SMALL) == 0 {
            self.queues
                .victim_in_main(frames)
                .or_else(|| self.victim_in_small(frames))
        } else {
            self.victim_in_small(frames)
                .or_else(|| self.queues.victim_in_main(frames))
        };
        if victim.is_none() {
            self.forget_victim();
        }
        victim
    }

    fn forget_victim(&mut self) {
        if let Some(b) = self.ghost_hit.take() {
            self.queues.push(GHOST, b);
        }
    }

    fn on_evict(&mut self, b: Block, ev: Evicted, _cx: &Access) {
        let from = self.queues.take(b);
        self.queues.set_count(b, 0);
        if from == Some(SMALL) && !ev.unused_prefetch && self.ghost_cap > 0 {
            self.queues.push(GHOST, b);
            if self.queues.len(GHOST) > self.ghost_cap {
                self.queues.pop_oldest(GHOST);
            }
        }
    }

    fn on_insert(&mut self, b: Block, _kind: InsertKind, _cx: &Access) {
        self.queues.set_count(b, 0);
        let was_ghost = self.ghost_hit.take() == Some(b) || self.queues.contains(GHOST, b);
        if was_ghost {
            self.queues.take(b);
            self.queues.push(MAIN, b);
        } else if !self.has_evicted && self.small_over() {
            self.queues.push(MAIN, b);
        } else {
            self.queues.push(SMALL, b);
        }
    }

    fn len(&self) -> usize {
        self.queues.resident_len()
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.queues.check_residents(frames)?;
        if self.queues.len(GHOST) > self.ghost_cap {
            return Err(format!(
                "ghost queue holds {} ids, more than {}",
                self.queues.len(GHOST),
                self.ghost_cap
            ));
        }
        let ghost = self.queues.new_to_old(GHOST);
        if let Some(b) = ghost.into_iter().find(|&b| frames.is_resident(b)) {
            return Err(format!("ghost queue lists resident block {b}"));
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        vec![
            ("small_new_to_old", self.queues.new_to_old(SMALL)),
            ("main_new_to_old", self.queues.new_to_old(MAIN)),
            ("ghost_new_to_old", self.queues.new_to_old(GHOST)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::check_same_residents;
    use crate::policy::structures::list::Lists;
    use crate::policy::testutil::run;
    use crate::policy::NEVER;
    use proptest::prelude::*;

    const SMALL: usize = 0;
    const MAIN: usize = 1;
    const GHOST: usize = 2;
    const MAIN_COUNT_CAP: u8 = 3;

    /// S3-FIFO on linked lists, as it was before the rings: the reference for their order.
    struct ListS3Fifo {
        lists: Lists,
        count: Vec<u8>,
        small_cap: usize,
        main_cap: usize,
        ghost_cap: usize,
        threshold: u8,
        has_evicted: bool,
        /// A missed block whose id was taken off the ghost queue when its miss began.
        ghost_hit: Option<Block>,
    }

    impl ListS3Fifo {
        /// An S3-FIFO of `capacity` blocks with the given small share, ghost multiple and threshold.
        fn new(capacity: usize, small: f64, ghost: f64, threshold: u8, universe: usize) -> Self {
            let small_cap = ((capacity as f64 * small) as usize).clamp(1, capacity.max(1));
            ListS3Fifo {
                lists: Lists::new(3, universe),
                count: vec![0; universe],
                small_cap,
                main_cap: capacity - small_cap.min(capacity),
                ghost_cap: (capacity as f64 * ghost) as usize,
                threshold,
                has_evicted: false,
                ghost_hit: None,
            }
        }

        /// Whether the small queue holds its share or more.
        fn small_over(&self) -> bool {
            self.lists.len(SMALL) >= self.small_cap
        }

        /// Whether the main queue holds more than its share.
        fn main_over(&self) -> bool {
            self.lists.len(MAIN) > self.main_cap
        }

        /// The small queue's victim: blocks at the old end whose count reached the threshold move to
        /// main; the first unpinned block below it is returned. `None` when none is left.
        fn victim_in_small(&mut self, frames: &Frames) -> Option<Block> {
            let mut cur = self.lists.back(SMALL);
            while let Some(b) = cur {
                cur = self.lists.toward_front(b);
                if frames.is_pinned(b) {
                    continue;
                }
                if self.count[b as usize] >= self.threshold {
                    self.lists.remove(b);
                    self.count[b as usize] = 0;
                    self.lists.push_front(MAIN, b);
                } else {
                    return Some(b);
                }
            }
            None
        }

        /// The main queue's victim: a block with a count is reinserted with one less (at most 2); the
        /// first unpinned block with count 0 is returned. `None` when every block is pinned.
        fn victim_in_main(&mut self, frames: &Frames) -> Option<Block> {
            // Each pass over the queue lowers every unpinned count, so four passes find a victim.
            let mut budget = 4 * self.lists.len(MAIN) + 1;
            let mut cur = self.lists.back(MAIN);
            while budget > 0 {
                budget -= 1;
                let b = cur.or_else(|| self.lists.back(MAIN))?;
                cur = self.lists.toward_front(b);
                if frames.is_pinned(b) {
                    continue;
                }
                let c = self.count[b as usize];
                if c == 0 {
                    return Some(b);
                }
                self.count[b as usize] = c.min(MAIN_COUNT_CAP) - 1;
                self.lists.move_to_front(MAIN, b);
            }
            None
        }
    }

    impl Policy for ListS3Fifo {
        fn name(&self) -> &'static str {
            "s3fifo-list"
        }

        #[inline]
        fn on_hit(&mut self, b: Block, cx: &Access) {
            if !cx.first_use {
                let c = &mut self.count[b as usize];
                *c = c.saturating_add(1);
            }
        }

        fn select_victim(
            &mut self,
            incoming: Block,
            frames: &Frames,
            _cx: &Access,
        ) -> Option<Block> {
            if self.lists.contains(GHOST, incoming) {
                self.lists.remove(incoming);
                self.ghost_hit = Some(incoming);
            }
            self.has_evicted = true;
            let victim = if self.main_over() || self.lists.is_empty(SMALL) {
                self.victim_in_main(frames)
                    .or_else(|| self.victim_in_small(frames))
            } else {
                self.victim_in_small(frames)
                    .or_else(|| self.victim_in_main(frames))
            };
            if victim.is_none() {
                self.forget_victim();
            }
            victim
        }

        fn forget_victim(&mut self) {
            if let Some(b) = self.ghost_hit.take() {
                self.lists.push_front(GHOST, b);
            }
        }

        fn on_evict(&mut self, b: Block, ev: Evicted, _cx: &Access) {
            let from = self.lists.remove(b);
            self.count[b as usize] = 0;
            if from == Some(SMALL) && !ev.unused_prefetch && self.ghost_cap > 0 {
                self.lists.push_front(GHOST, b);
                if self.lists.len(GHOST) > self.ghost_cap {
                    self.lists.pop_back(GHOST);
                }
            }
        }

        fn on_insert(&mut self, b: Block, _kind: InsertKind, _cx: &Access) {
            self.count[b as usize] = 0;
            let was_ghost = self.ghost_hit.take() == Some(b) || self.lists.contains(GHOST, b);
            if was_ghost {
                self.lists.remove(b);
                self.lists.push_front(MAIN, b);
            } else if !self.has_evicted && self.small_over() {
                self.lists.push_front(MAIN, b);
            } else {
                self.lists.push_front(SMALL, b);
            }
        }

        fn len(&self) -> usize {
            self.lists.len(SMALL) + self.lists.len(MAIN)
        }

        fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
            self.lists.check()?;
            check_same_residents(self.lists.iter(SMALL).chain(self.lists.iter(MAIN)), frames)?;
            if self.lists.len(GHOST) > self.ghost_cap {
                return Err(format!(
                    "ghost queue holds {} ids, more than {}",
                    self.lists.len(GHOST),
                    self.ghost_cap
                ));
            }
            if let Some(b) = self.lists.iter(GHOST).find(|&b| frames.is_resident(b)) {
                return Err(format!("ghost queue lists resident block {b}"));
            }
            Ok(())
        }

        fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
            vec![
                ("small_new_to_old", self.lists.iter(SMALL).collect()),
                ("main_new_to_old", self.lists.iter(MAIN).collect()),
                ("ghost_new_to_old", self.lists.iter(GHOST).collect()),
            ]
        }
    }

    proptest! {
        /// The rings keep the linked lists' order (small, main and ghost) under demand accesses,
        /// prefetches, pins and removals, at the paper's shares and at others.
        #[test]
        fn rings_keep_the_linked_list_order(
            cap in 1usize..12,
            small in prop_oneof![Just(0.1), Just(0.2), Just(0.5)],
            threshold in 1u8..3,
            ops in proptest::collection::vec((0u8..10, 0u32..24), 1..400),
        ) {
            crate::policy::structures::ring::assert_same_as(
                CacheLevel::new(S3FifoPolicy::new(cap, small, 0.9, threshold, 24), cap, 24),
                CacheLevel::new(ListS3Fifo::new(cap, small, 0.9, threshold, 24), cap, 24),
                &ops,
            );
        }
    }

    fn s3(cap: usize) -> S3FifoPolicy {
        // small share 0.2 so that a 10-block cache has a 2-block small queue.
        S3FifoPolicy::new(cap, 0.2, 0.9, 2, 64)
    }

    #[test]
    fn before_the_first_eviction_a_full_small_queue_sends_blocks_to_main() {
        let level = run(s3(10), 10, &[1, 2, 3, 4]);
        assert_eq!(level.policy.dump()[0].1, vec![2, 1]);
        assert_eq!(level.policy.dump()[1].1, vec![4, 3]);
    }

    #[test]
    fn small_evicts_once_seen_blocks_into_the_ghost_and_moves_twice_seen_ones() {
        // cap 10 (small 2, main 8): 1..10 fill (1 2 in small, 3..10 in main). 1 hits twice.
        // 11: main is not over its share and small is not empty, so small evicts: 1 (count 2)
        // moves to main, 2 (count 0) is evicted into the ghost. 11 enters small.
        let mut refs: Vec<u32> = (1..=10).collect();
        refs.extend([1, 1, 11]);
        let level = run(s3(10), 10, &refs);
        let d = level.policy.dump();
        assert_eq!(d[0].1, vec![11]);
        assert_eq!(d[1].1[0], 1);
        assert_eq!(d[2].1, vec![2]);
        // 2 again: a ghost hit, it enters main. Main (1 3..10 2 = 10) is over its 8, so 12
        // makes main evict: 3, the oldest, has count 0.
        let mut level = level;
        level.access(2, NEVER);
        assert!(level.policy.dump()[1].1.first() == Some(&2));
        assert!(level.policy.dump()[2].1.is_empty());
    }

    #[test]
    fn main_reinserts_blocks_with_a_count_and_lowers_it() {
        // cap 10: fill, then 3 (in main) hits 5 times; make main evict by a ghost hit.
        let mut level = CacheLevel::new(s3(10), 10, 64);
        for b in 1..=10 {
            level.access(b, NEVER);
        }
        for _ in 0..5 {
            level.access(3, NEVER);
        }
        level.access(11, NEVER); // small evicts 1 into the ghost
        level.access(1, NEVER); // ghost hit: small evicts 2 (ghost), 1 enters main
        level.access(12, NEVER); // main is 9 > 8: 3 (count 5) goes to the new end with 2; 4 leaves
        assert!(level.frames().is_resident(3));
        assert!(!level.frames().is_resident(4));
        assert_eq!(level.policy.queues.count(3), 2);
        level.check().unwrap();
    }

    #[test]
    fn a_first_use_is_not_a_hit_and_an_unused_prefetch_leaves_no_ghost() {
        // threshold 1, so a first use counted as a hit would move a block to main.
        let mut level = CacheLevel::new(S3FifoPolicy::new(10, 0.2, 0.9, 1, 64), 10, 64);
        for b in 1..=10 {
            level.access(b, NEVER);
        }
        level.access(11, NEVER); // small evicts 1 into the ghost; small is [11, 2]
        level.prefetch(20, NEVER); // evicts 2 (ghost); 20 enters small with count 0
        level.access(20, NEVER); // first use: count stays 0
        assert_eq!(level.policy.queues.count(20), 0);
        level.prefetch(21, NEVER); // evicts 11
        level.prefetch(22, NEVER); // evicts 20: count 0, so it leaves (into the ghost)
        assert!(!level.frames().is_resident(20));
        level.prefetch(23, NEVER); // evicts 21, never used: no ghost entry
        let ghost = &level.policy.dump()[2].1;
        assert!(ghost.contains(&20) && !ghost.contains(&21), "{ghost:?}");
        level.check().unwrap();
    }
}
