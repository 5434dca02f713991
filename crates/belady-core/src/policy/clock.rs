//! CLOCK (second chance), in its FIFO-with-reinsertion form.
//!
//! The list's back is the block under the hand. A hit sets the block's reference bit. To find a
//! victim the hand looks at the back: a set bit is cleared and the block goes to the front
//! (the hand passes it); a clear bit makes it the victim. New blocks enter at the front with the
//! bit clear (the CAR paper's convention and libCacheSim's `Clock` default), so a block read once
//! in a scan is not protected. A prefetched block also enters with the bit clear, and its first
//! demand access counts as its first reference (the prefetching study's rule): it goes to the
//! front with the bit still clear, as a block read on that access would have entered. Pinned
//! blocks are passed over with their bit kept.

use super::list::Lists;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::frames::Frames;

const RING: usize = 0;

/// Second-chance replacement with one reference bit per block.
pub struct ClockPolicy {
    lists: Lists,
    referenced: Vec<bool>,
}

impl ClockPolicy {
    /// An empty clock over block ids `0..universe`.
    pub fn new(universe: usize) -> Self {
        ClockPolicy {
            lists: Lists::new(1, universe),
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
        crate::frames::prefetch(self.referenced.as_ptr().wrapping_add(b as usize) as *const u8);
    }

    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        if cx.first_use {
            self.referenced[b as usize] = false;
            self.lists.move_to_front(RING, b);
        } else {
            self.referenced[b as usize] = true;
        }
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        // Two full turns suffice: the first clears every bit, the second finds a clear one
        // unless every block is pinned.
        for _ in 0..=2 * self.lists.len(RING) {
            let b = self.lists.back(RING)?;
            if !frames.is_pinned(b) && !self.referenced[b as usize] {
                return Some(b);
            }
            if !frames.is_pinned(b) {
                self.referenced[b as usize] = false;
            }
            self.lists.move_to_front(RING, b);
        }
        None
    }

    #[inline]
    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        self.lists.remove(b);
        self.referenced[b as usize] = false;
    }

    #[inline]
    fn on_insert(&mut self, b: Block, _kind: InsertKind, _cx: &Access) {
        self.referenced[b as usize] = false;
        self.lists.push_front(RING, b);
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    fn len(&self) -> usize {
        self.lists.len(RING)
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.lists.check()?;
        check_same_residents(self.lists.iter(RING), frames)?;
        if let Some(b) = (0..self.referenced.len() as Block)
            .find(|&b| self.referenced[b as usize] && !frames.is_resident(b))
        {
            return Err(format!("non-resident block {b} keeps a reference bit"));
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        let (hot, cold): (Vec<Block>, Vec<Block>) = self
            .lists
            .iter(RING)
            .partition(|&b| self.referenced[b as usize]);
        vec![
            ("front_to_hand", self.lists.iter(RING).collect()),
            ("referenced", hot),
            ("unreferenced", cold),
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
        let mut level = crate::level::CacheLevel::new(ClockPolicy::new(6), 3, 6);
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
        fn equals_the_circular_buffer_form(cap in 1usize..6, refs in proptest::collection::vec(0u32..10, 1..200)) {
            prop_assert_eq!(run(ClockPolicy::new(10), cap, &refs).stats().hits, circular_clock(cap, &refs));
        }
    }
}
