//! SIEVE: Zhang, Yang, Yue, Vigfusson, Rashmi, "SIEVE is Simpler than LRU: an Efficient
//! Turn-Key Eviction Algorithm for Web Caches", NSDI 2024, with the steps of libCacheSim's
//! `Sieve.c` (`tests/python/test_xcheck_sieve.py` asserts equal misses).
//!
//! One FIFO queue (new blocks at the head) and a hand. A hit sets the block's visited bit; nothing
//! moves. To evict, the hand starts where it stopped last (at the tail the first time, or after
//! it fell off the head) and walks toward the head, clearing visited bits, wrapping to the tail at
//! the head; the first block without the bit is evicted and the hand stays at the block that was
//! next toward the head. Unlike CLOCK, passed blocks stay where they are, so new blocks between
//! the hand and the head are examined only on the next sweep.
//!
//! Prefetching: a prefetched block enters at the head with the bit clear, like a demand-fetched
//! one; its first demand access is its first reference and leaves the bit clear. Pinned blocks
//! are passed over with their bit kept.

use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;

/// A slot whose block left the queue.
const HOLE: Block = Block::MAX;

/// Holes beyond the live blocks (plus this slack) trigger a compaction.
const COMPACT_SLACK: usize = 1024;

/// SIEVE: a FIFO queue with visited bits and a hand that does not move blocks.
///
/// The queue is an array of ids from the tail (index 0) to the head, not a linked list: a block
/// enters by an append, and leaves by becoming a hole in its slot, which the hand steps over.
/// Holes are squeezed out when they outnumber the live blocks, so the array stays proportional to
/// the cache.
pub struct SievePolicy {
    slots: Vec<Block>,
    /// Every slot below this index is a hole.
    low: usize,
    /// Slot of each queued block.
    slot_of: Vec<u32>,
    live: usize,
    visited: Vec<bool>,
    /// The slot the next eviction's search starts at; `None` means the tail.
    hand: Option<usize>,
}

impl SievePolicy {
    /// An empty SIEVE over block ids `0..universe`.
    pub fn new(universe: usize) -> Self {
        SievePolicy {
            slots: Vec::new(),
            low: 0,
            slot_of: vec![0; universe],
            live: 0,
            visited: vec![false; universe],
            hand: None,
        }
    }

    /// The visited bit of `b`.
    pub fn is_visited(&self, b: Block) -> bool {
        self.visited[b as usize]
    }

    /// The block the hand points at (`None`: the tail).
    pub fn hand(&self) -> Option<Block> {
        self.hand.map(|i| self.slots[i])
    }

    /// The first live slot after `i` (toward the head), if any.
    #[inline]
    fn toward_head(&self, i: usize) -> Option<usize> {
        (i + 1..self.slots.len()).find(|&j| self.slots[j] != HOLE)
    }

    /// The tail's slot, if any block is queued.
    #[inline]
    fn tail(&mut self) -> Option<usize> {
        while self.low < self.slots.len() && self.slots[self.low] == HOLE {
            self.low += 1;
        }
        (self.low < self.slots.len()).then_some(self.low)
    }

    /// The queued blocks from the tail to the head.
    fn tail_to_head(&self) -> impl Iterator<Item = Block> + '_ {
        self.slots.iter().copied().filter(|&b| b != HOLE)
    }

    /// Squeezes the holes out, keeping the order and the hand.
    fn compact(&mut self) {
        let hand_block = self.hand();
        let live: Vec<Block> = self.tail_to_head().collect();
        for (i, &b) in live.iter().enumerate() {
            self.slot_of[b as usize] = i as u32;
        }
        self.hand = hand_block.map(|b| self.slot_of[b as usize] as usize);
        self.slots = live;
        self.low = 0;
    }
}

impl Policy for SievePolicy {
    fn name(&self) -> &'static str {
        "sieve"
    }

    #[inline]
    fn hint(&self, b: Block) {
        crate::cache::frames::prefetch(self.visited.as_ptr().wrapping_add(b as usize) as *const u8);
    }

    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        if !cx.first_use {
            self.visited[b as usize] = true;
        }
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        let mut cur = match self.hand {
            Some(i) => i,
            None => self.tail()?,
        };
        // Two full sweeps: the first clears every unpinned bit, the second finds a clear one
        // unless every block is pinned.
        for _ in 0..=2 * self.live {
            let b = self.slots[cur];
            if !frames.is_pinned(b) {
                if !self.visited[b as usize] {
                    self.hand = Some(cur);
                    return Some(b);
                }
                self.visited[b as usize] = false;
            }
            cur = match self.toward_head(cur) {
                Some(next) => next,
                None => self.tail()?,
            };
        }
        self.hand = Some(cur);
        None
    }

    #[inline]
    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        // The victim usually sits under the hand, which spares reading its slot.
        let i = match self.hand {
            Some(h) if self.slots[h] == b => h,
            _ => self.slot_of[b as usize] as usize,
        };
        if self.hand == Some(i) {
            // libCacheSim: the hand moves to the victim's neighbour toward the head, or back to
            // the tail when the victim was the head.
            self.hand = self.toward_head(i);
        }
        self.slots[i] = HOLE;
        self.live -= 1;
        self.visited[b as usize] = false;
        if self.slots.len() > 2 * self.live + COMPACT_SLACK {
            self.compact();
        }
    }

    #[inline]
    fn on_insert(&mut self, b: Block, _kind: InsertKind, _cx: &Access) {
        self.visited[b as usize] = false;
        self.slot_of[b as usize] = self.slots.len() as u32;
        self.slots.push(b);
        self.live += 1;
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    fn len(&self) -> usize {
        self.live
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        let queued: Vec<Block> = self.tail_to_head().collect();
        if queued.len() != self.live {
            return Err(format!(
                "{} blocks queued but {} counted",
                queued.len(),
                self.live
            ));
        }
        if let Some((i, &b)) = self
            .slots
            .iter()
            .enumerate()
            .find(|&(i, &b)| b != HOLE && self.slot_of[b as usize] as usize != i)
        {
            return Err(format!("block {b} sits in slot {i} but records another"));
        }
        if self.slots[..self.low].iter().any(|&b| b != HOLE) {
            return Err("a block sits below the first live slot".into());
        }
        check_same_residents(queued.into_iter(), frames)?;
        if let Some(h) = self.hand {
            if self.slots.get(h).map_or(true, |&b| b == HOLE) {
                return Err(format!("the hand points at slot {h}, which holds no block"));
            }
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        let mut order: Vec<Block> = self.tail_to_head().collect();
        order.reverse();
        vec![
            ("head_to_tail", order),
            ("hand", self.hand().into_iter().collect()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::structures::list::Lists;
    use crate::policy::testutil::{pattern, run};
    use proptest::prelude::*;

    /// SIEVE on a linked list, as it was before the array: the reference for its order.
    struct ListSieve {
        lists: Lists,
        visited: Vec<bool>,
        hand: Option<Block>,
    }

    impl ListSieve {
        fn step(&self, b: Block) -> Option<Block> {
            self.lists.toward_front(b).or_else(|| self.lists.back(0))
        }
    }

    impl Policy for ListSieve {
        fn name(&self) -> &'static str {
            "sieve-list"
        }
        fn on_hit(&mut self, b: Block, cx: &Access) {
            if !cx.first_use {
                self.visited[b as usize] = true;
            }
        }
        fn select_victim(&mut self, _i: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
            let mut cur = self.hand.or_else(|| self.lists.back(0))?;
            for _ in 0..=2 * self.lists.len(0) {
                if !frames.is_pinned(cur) {
                    if !self.visited[cur as usize] {
                        self.hand = Some(cur);
                        return Some(cur);
                    }
                    self.visited[cur as usize] = false;
                }
                cur = self.step(cur)?;
            }
            self.hand = Some(cur);
            None
        }
        fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
            if self.hand == Some(b) {
                self.hand = self.lists.toward_front(b);
            }
            self.lists.remove(b);
            self.visited[b as usize] = false;
        }
        fn on_insert(&mut self, b: Block, _kind: InsertKind, _cx: &Access) {
            self.visited[b as usize] = false;
            self.lists.push_front(0, b);
        }
        fn len(&self) -> usize {
            self.lists.len(0)
        }
        fn check_invariants(&self, _frames: &Frames) -> Result<(), String> {
            self.lists.check()
        }
        fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
            vec![
                ("head_to_tail", self.lists.iter(0).collect()),
                ("hand", self.hand.into_iter().collect()),
            ]
        }
    }

    #[test]
    fn hand_worked_sequence() {
        // cap 3: 1 2 3; 1 hits (visited). 4: hand at the tail (1) clears it, moves to 2 (clear):
        // 2 goes; the hand stays at 3. 1 hits. 5: 3 is clear and goes; the hand goes to 4.
        // 2 misses: 4 is clear and goes (1 keeps its place at the tail, visited).
        let refs = [1, 2, 3, 1, 4, 1, 5, 2];
        assert_eq!(pattern(|| SievePolicy::new(6), 3, &refs), "mmmhmhmm");
        let level = run(SievePolicy::new(6), 3, &refs);
        assert_eq!(level.policy.dump()[0].1, vec![2, 5, 1]);
        assert!(level.policy.is_visited(1));
    }

    /// The paper's pseudo-code over a vector (index 0 = tail), for the property test.
    fn model(cap: usize, refs: &[u32]) -> u64 {
        let mut q: Vec<(u32, bool)> = Vec::new();
        let mut hand: Option<usize> = None;
        let mut hits = 0;
        for &b in refs {
            if let Some(e) = q.iter_mut().find(|e| e.0 == b) {
                e.1 = true;
                hits += 1;
                continue;
            }
            if q.len() == cap {
                let mut i = hand.unwrap_or(0);
                while q[i].1 {
                    q[i].1 = false;
                    i = if i + 1 == q.len() { 0 } else { i + 1 };
                }
                q.remove(i);
                hand = (i < q.len()).then_some(i);
            }
            q.push((b, false));
        }
        hits
    }

    proptest! {
        #[test]
        fn array_keeps_the_linked_list_order(
            cap in 1usize..6,
            ops in proptest::collection::vec((0u8..9, 0u32..10), 1..300),
        ) {
            let list = ListSieve { lists: Lists::new(1, 10), visited: vec![false; 10], hand: None };
            crate::policy::structures::ring::assert_same_as(
                CacheLevel::new(SievePolicy::new(10), cap, 10),
                CacheLevel::new(list, cap, 10),
                &ops,
            );
        }

        #[test]
        fn matches_the_papers_pseudo_code(cap in 1usize..6, refs in proptest::collection::vec(0u32..10, 1..200)) {
            prop_assert_eq!(run(SievePolicy::new(10), cap, &refs).stats().hits, model(cap, &refs));
        }
    }

    #[test]
    fn compaction_keeps_the_order_and_the_hand() {
        // Thousands of evictions from the middle make holes enough for several compactions.
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let ops: Vec<(u8, Block)> = (0..4000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                ((x % 11) as u8, ((x >> 8) % 12) as Block)
            })
            .collect();
        let list = ListSieve {
            lists: Lists::new(1, 12),
            visited: vec![false; 12],
            hand: None,
        };
        let array = CacheLevel::new(SievePolicy::new(12), 4, 12);
        let list_level = CacheLevel::new(list, 4, 12);
        let level = crate::policy::structures::ring::assert_same_as(array, list_level, &ops);
        // Every insertion appends a slot: without compaction the slots would outnumber this.
        let inserted = level.stats().misses + level.stats().prefetched;
        assert!(
            inserted > (2 * 4 + COMPACT_SLACK) as u64,
            "{inserted} insertions"
        );
        assert!(level.policy.slots.len() <= 2 * 4 + COMPACT_SLACK + 1);
    }

    #[test]
    fn a_first_use_leaves_the_bit_clear() {
        let mut level = crate::cache::level::CacheLevel::new(SievePolicy::new(6), 3, 6);
        level.access(1, crate::policy::NEVER);
        level.prefetch(2, crate::policy::NEVER);
        assert_eq!(level.policy.dump()[0].1, vec![2, 1]);
        level.access(2, crate::policy::NEVER);
        assert!(!level.policy.is_visited(2));
        level.access(2, crate::policy::NEVER);
        assert!(level.policy.is_visited(2));
    }
}
