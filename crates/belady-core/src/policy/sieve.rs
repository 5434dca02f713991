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

use super::list::Lists;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::frames::Frames;

const QUEUE: usize = 0;

/// SIEVE: a FIFO queue with visited bits and a hand that does not move blocks.
pub struct SievePolicy {
    lists: Lists,
    visited: Vec<bool>,
    /// The block the next eviction's search starts at; `None` means the tail.
    hand: Option<Block>,
}

impl SievePolicy {
    /// An empty SIEVE over block ids `0..universe`.
    pub fn new(universe: usize) -> Self {
        SievePolicy {
            lists: Lists::new(1, universe),
            visited: vec![false; universe],
            hand: None,
        }
    }

    /// The visited bit of `b`.
    pub fn is_visited(&self, b: Block) -> bool {
        self.visited[b as usize]
    }

    /// Where the hand points (`None`: the tail).
    pub fn hand(&self) -> Option<Block> {
        self.hand
    }

    /// One step of the hand toward the head, wrapping to the tail.
    fn step(&self, b: Block) -> Option<Block> {
        self.lists
            .toward_front(b)
            .or_else(|| self.lists.back(QUEUE))
    }
}

impl Policy for SievePolicy {
    fn name(&self) -> &'static str {
        "sieve"
    }

    #[inline]
    fn hint(&self, b: Block) {
        crate::frames::prefetch(self.visited.as_ptr().wrapping_add(b as usize) as *const u8);
    }

    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        if !cx.first_use {
            self.visited[b as usize] = true;
        }
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        let mut cur = self.hand.or_else(|| self.lists.back(QUEUE))?;
        // Two full sweeps: the first clears every unpinned bit, the second finds a clear one
        // unless every block is pinned.
        for _ in 0..=2 * self.lists.len(QUEUE) {
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

    #[inline]
    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        if self.hand == Some(b) {
            // libCacheSim: the hand moves to the victim's neighbour toward the head, or back to
            // the tail when the victim was the head.
            self.hand = self.lists.toward_front(b);
        }
        self.lists.remove(b);
        self.visited[b as usize] = false;
    }

    #[inline]
    fn on_insert(&mut self, b: Block, _kind: InsertKind, _cx: &Access) {
        self.visited[b as usize] = false;
        self.lists.push_front(QUEUE, b);
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    fn len(&self) -> usize {
        self.lists.len(QUEUE)
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.lists.check()?;
        check_same_residents(self.lists.iter(QUEUE), frames)?;
        if let Some(h) = self.hand {
            if !self.lists.contains(QUEUE, h) {
                return Err(format!("the hand points at block {h}, which is not queued"));
            }
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        vec![
            ("head_to_tail", self.lists.iter(QUEUE).collect()),
            ("hand", self.hand.into_iter().collect()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testutil::{pattern, run};
    use proptest::prelude::*;

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
        fn matches_the_papers_pseudo_code(cap in 1usize..6, refs in proptest::collection::vec(0u32..10, 1..200)) {
            prop_assert_eq!(run(SievePolicy::new(10), cap, &refs).stats().hits, model(cap, &refs));
        }
    }

    #[test]
    fn a_first_use_leaves_the_bit_clear() {
        let mut level = crate::level::CacheLevel::new(SievePolicy::new(6), 3, 6);
        level.access(1, crate::policy::NEVER);
        level.prefetch(2, crate::policy::NEVER);
        assert_eq!(level.policy.dump()[0].1, vec![2, 1]);
        level.access(2, crate::policy::NEVER);
        assert!(!level.policy.is_visited(2));
        level.access(2, crate::policy::NEVER);
        assert!(level.policy.is_visited(2));
    }
}
