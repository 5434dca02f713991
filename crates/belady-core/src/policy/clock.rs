//! CLOCK (second chance), in its FIFO-with-reinsertion form.
//!
//! The queue's oldest end is the block under the hand. A hit sets the block's reference bit. To
//! find a victim the hand looks at the oldest end: a set bit is cleared and the block goes to the
//! newest end (the hand passes it); a clear bit makes it the victim. New blocks enter at the
//! newest end with the bit clear (the CAR paper's convention and libCacheSim's `Clock` default),
//! so a block read once in a scan is not protected. A prefetched block also enters with the bit clear, and its first
//! demand access counts as its first reference (the prefetching study's rule): it goes to the
//! newest end with the bit still clear, as a block read on that access would have entered. Pinned
//! blocks are passed over with their bit kept.
//!
//! The order is a `Ring` (`ring.rs`) of ids whose oldest end is the hand: passing a block moves its id from
//! one end to the other, with no linked list to relink; the bits sit beside it, one byte per id.

use super::structures::ring::Ring;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;

/// Second-chance replacement with one reference bit per block.
pub struct ClockPolicy {
    ring: Ring,
    referenced: Vec<bool>,
}

impl ClockPolicy {
    /// An empty clock over block ids `0..universe`.
    pub fn new(universe: usize) -> Self {
        ClockPolicy {
            ring: Ring::new(universe),
            referenced: vec![false; universe],
        }
    }

    /// The reference bit of `b`.
    pub fn is_referenced(&self, b: Block) -> bool {
        self.referenced[b as usize]
    }
}

impl Policy for ClockPolicy {
    fn name(&self) -> &'static str {
        "clock"
    }

    #[inline]
    fn hint(&self, b: Block) {
        crate::cache::frames::prefetch(
            self.referenced.as_ptr().wrapping_add(b as usize) as *const u8
        );
    }

    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        if cx.first_use {
            self.referenced[b as usize] = false;
            if self.ring.newest() != Some(b) {
                self.ring.remove(b);
                self.ring.push(b);
            }
        } else {
            self.referenced[b as usize] = true;
        }
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        // Two full turns suffice: the first clears every bit, the second finds a clear one
        // unless every block is pinned.
        for _ in 0..=2 * self.ring.len() {
            let b = self.ring.oldest()?;
            if !frames.is_pinned(b) && !self.referenced[b as usize] {
                return Some(b);
            }
            if !frames.is_pinned(b) {
                self.referenced[b as usize] = false;
            }
            self.ring.rotate();
        }
        None
    }

    #[inline]
    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        self.ring.remove(b);
        self.referenced[b as usize] = false;
    }

    #[inline]
    fn on_insert(&mut self, b: Block, _kind: InsertKind, _cx: &Access) {
        self.referenced[b as usize] = false;
        self.ring.push(b);
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    fn len(&self) -> usize {
        self.ring.len()
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.ring.check()?;
        check_same_residents(self.ring.live_oldest_first().into_iter(), frames)?;
        if let Some(b) = (0..self.referenced.len() as Block)
            .find(|&b| self.referenced[b as usize] && !frames.is_resident(b))
        {
            return Err(format!("non-resident block {b} keeps a reference bit"));
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        let mut order = self.ring.live_oldest_first();
        order.reverse();
        let (hot, cold): (Vec<Block>, Vec<Block>) =
            order.iter().partition(|&&b| self.referenced[b as usize]);
        vec![
            ("front_to_hand", order),
            ("referenced", hot),
            ("unreferenced", cold),
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

    /// CLOCK on a linked list, as it was before the ring: the reference for the ring's order.
    struct ListClock(Lists, Vec<bool>);

    impl Policy for ListClock {
        fn name(&self) -> &'static str {
            "clock-list"
        }
        fn on_hit(&mut self, b: Block, cx: &Access) {
            if cx.first_use {
                self.1[b as usize] = false;
                self.0.move_to_front(0, b);
            } else {
                self.1[b as usize] = true;
            }
        }
        fn select_victim(&mut self, _i: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
            for _ in 0..=2 * self.0.len(0) {
                let b = self.0.back(0)?;
                if !frames.is_pinned(b) && !self.1[b as usize] {
                    return Some(b);
                }
                if !frames.is_pinned(b) {
                    self.1[b as usize] = false;
                }
                self.0.move_to_front(0, b);
            }
            None
        }
        fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
            self.0.remove(b);
            self.1[b as usize] = false;
        }
        fn on_insert(&mut self, b: Block, _kind: InsertKind, _cx: &Access) {
            self.1[b as usize] = false;
            self.0.push_front(0, b);
        }
        fn len(&self) -> usize {
            self.0.len(0)
        }
        fn check_invariants(&self, _frames: &Frames) -> Result<(), String> {
            self.0.check()
        }
        fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
            let order: Vec<Block> = self.0.iter(0).collect();
            let (hot, cold) = order.iter().partition(|&&b| self.1[b as usize]);
            vec![
                ("front_to_hand", order),
                ("referenced", hot),
                ("unreferenced", cold),
            ]
        }
    }

    #[test]
    fn hand_worked_sequence() {
        // cap 3: 1 2 3 enter clear; 1 hits (bit set). 4: hand at 1 (set) clears it and passes;
        // 2 is clear and goes. 1 hits; 5: hand at 3 (clear) evicts 3.
        let refs = [1, 2, 3, 1, 4, 1, 5, 2];
        assert_eq!(pattern(|| ClockPolicy::new(6), 3, &refs), "mmmhmhmm");
        let level = run(ClockPolicy::new(6), 3, &refs[..7]);
        assert_eq!(level.policy.dump()[0].1, vec![5, 4, 1]);
        assert!(level.policy.is_referenced(1));
    }

    #[test]
    fn first_use_of_a_prefetch_is_its_first_reference() {
        // cap 3: 1 2 enter on demand; 3 is prefetched in front of them; 1 hits (bit set). The
        // first demand access to 3 is its first reference: its bit stays clear. 4: the hand
        // passes 1 (set, cleared) and evicts 2. 5: the hand finds 3 clear and evicts it, where a
        // prefetch counted as a first reference would have protected 3 and cost 1 instead.
        let mut level = crate::cache::level::CacheLevel::new(ClockPolicy::new(6), 3, 6);
        level.access(1, crate::policy::NEVER);
        level.access(2, crate::policy::NEVER);
        level.prefetch(3, crate::policy::NEVER);
        level.access(1, crate::policy::NEVER);
        level.access(3, crate::policy::NEVER);
        level.check().unwrap();
        assert!(!level.policy.is_referenced(3));
        assert_eq!(level.policy.dump()[0].1, vec![3, 2, 1]);
        level.access(4, crate::policy::NEVER);
        assert_eq!(level.policy.dump()[0].1, vec![4, 1, 3]);
        level.access(5, crate::policy::NEVER);
        assert_eq!(level.policy.dump()[0].1, vec![5, 4, 1]);
        assert!(!level.frames().is_resident(3));
    }

    /// The textbook form: frames in a circle and a hand that stops after the frame it filled.
    fn circular_clock(cap: usize, refs: &[u32]) -> u64 {
        let mut frames: Vec<(u32, bool)> = Vec::new();
        let mut hand = 0;
        let mut hits = 0;
        for &b in refs {
            if let Some(f) = frames.iter_mut().find(|f| f.0 == b) {
                f.1 = true;
                hits += 1;
                continue;
            }
            if frames.len() < cap {
                frames.push((b, false));
                continue;
            }
            while frames[hand].1 {
                frames[hand].1 = false;
                hand = (hand + 1) % cap;
            }
            frames[hand] = (b, false);
            hand = (hand + 1) % cap;
        }
        hits
    }

    proptest! {
        #[test]
        fn ring_keeps_the_linked_list_order(
            cap in 1usize..6,
            ops in proptest::collection::vec((0u8..9, 0u32..10), 1..300),
        ) {
            crate::policy::structures::ring::assert_same_as(
                CacheLevel::new(ClockPolicy::new(10), cap, 10),
                CacheLevel::new(ListClock(Lists::new(1, 10), vec![false; 10]), cap, 10),
                &ops,
            );
        }

        #[test]
        fn equals_the_circular_buffer_form(cap in 1usize..6, refs in proptest::collection::vec(0u32..10, 1..200)) {
            prop_assert_eq!(run(ClockPolicy::new(10), cap, &refs).stats().hits, circular_clock(cap, &refs));
        }
    }
}
