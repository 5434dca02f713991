//! A queue of resident blocks in entry order, kept as a ring of ids rather than a linked list:
//! the order of FIFO and of CLOCK in its FIFO-with-reinsertion form.
//!
//! A linked list costs two random writes (the neighbours' links) for every removal and insertion;
//! a ring only appends at the newest end and pops at the oldest, touching memory in sequence.
//! Blocks that leave from the middle (a hierarchy's hand-up, a victim chosen past pinned blocks,
//! a prefetched block's first use moving it to the newest end) are deleted lazily: their entry
//! stays and is skipped when it reaches the oldest end. Every entry of a block except its newest
//! is stale, and every entry of a block that left is stale, so it is enough to count each
//! block's stale entries: reading from the oldest end, a block's entry is stale exactly when
//! that count is not zero. The counts are allocated on the first lazy deletion, so a run that
//! never removes from the middle pays neither their memory nor their lookups.

use crate::policy::Block;
use std::collections::VecDeque;

/// Entries beyond twice the live count (plus this slack) trigger a compaction, so the ring's
/// memory stays proportional to the resident blocks.
const COMPACT_SLACK: usize = 1024;

/// Resident blocks, oldest first, with lazily deleted stale entries.
#[derive(Clone, Debug)]
pub struct Ring {
    entries: VecDeque<Block>,
    /// Stale entries of each block still in `entries`; empty until the first lazy deletion.
    stale_of: Vec<u32>,
    /// Sum of `stale_of`: zero means every entry is live.
    stale: usize,
    live: usize,
    universe: usize,
}

impl Ring {
    /// An empty ring over block ids `0..universe`.
    pub fn new(universe: usize) -> Ring {
        Ring {
            entries: VecDeque::new(),
            stale_of: Vec::new(),
            stale: 0,
            live: 0,
            universe,
        }
    }

    /// Live entries (the blocks in the queue).
    #[inline]
    pub fn len(&self) -> usize {
        self.live
    }

    /// Appends `b` (not in the queue) at the newest end.
    #[inline]
    pub fn push(&mut self, b: Block) {
        self.entries.push_back(b);
        self.live += 1;
    }

    /// The oldest block, after dropping the stale entries in front of it.
    #[inline]
    pub fn oldest(&mut self) -> Option<Block> {
        loop {
            let b = *self.entries.front()?;
            if self.stale == 0 || self.stale_of[b as usize] == 0 {
                return Some(b);
            }
            self.stale_of[b as usize] -= 1;
            self.stale -= 1;
            self.entries.pop_front();
        }
    }

    /// The newest entry's block; it is live whenever that block is in the queue.
    #[inline]
    pub fn newest(&self) -> Option<Block> {
        self.entries.back().copied()
    }

    /// Moves the oldest block to the newest end (a clock hand passing it). Call after
    /// [`Ring::oldest`] returned a block.
    #[inline]
    pub fn rotate(&mut self) {
        if let Some(b) = self.entries.pop_front() {
            self.entries.push_back(b);
        }
    }

    /// Takes the oldest block out and returns it.
    #[inline]
    pub fn pop_oldest(&mut self) -> Option<Block> {
        let b = self.oldest()?;
        self.entries.pop_front();
        self.live -= 1;
        Some(b)
    }

    /// Replaces the queue by `order` (oldest first, each block once): for a walk that reorders
    /// blocks in ways the ring cannot (around pinned blocks) and then hands back the result.
    pub fn set_order(&mut self, order: Vec<Block>) {
        self.clear_stale();
        self.live = order.len();
        self.entries = order.into();
    }

    /// Zeroes the stale counts of the blocks that have entries (every non-zero count is one).
    fn clear_stale(&mut self) {
        if self.stale > 0 {
            for &b in &self.entries {
                self.stale_of[b as usize] = 0;
            }
            self.stale = 0;
        }
    }

    /// Takes `b` (in the queue) out: popped when it is the oldest, else left as a stale entry.
    #[inline]
    pub fn remove(&mut self, b: Block) {
        debug_assert!(self.live > 0);
        self.live -= 1;
        if self.oldest() == Some(b) {
            self.entries.pop_front();
            return;
        }
        if self.stale_of.is_empty() {
            self.stale_of = vec![0; self.universe];
        }
        self.stale_of[b as usize] += 1;
        self.stale += 1;
        if self.entries.len() > 2 * self.live + COMPACT_SLACK {
            self.compact();
        }
    }

    /// The oldest block for which `eligible` holds, without removing anything: the blocks before
    /// it keep their places.
    pub fn oldest_where(&mut self, mut eligible: impl FnMut(Block) -> bool) -> Option<Block> {
        let b = self.oldest()?;
        if eligible(b) {
            return Some(b);
        }
        // Rare (pinned blocks in the way): walk the live entries in order.
        self.live_oldest_first().into_iter().find(|&b| eligible(b))
    }

    /// Drops every stale entry.
    fn compact(&mut self) {
        let live = self.live_oldest_first();
        self.set_order(live);
    }

    /// The live blocks, oldest first.
    pub fn live_oldest_first(&self) -> Vec<Block> {
        let mut stale_of = self.stale_of.clone();
        let mut out = Vec::with_capacity(self.live);
        for &b in &self.entries {
            match stale_of.get_mut(b as usize) {
                Some(s) if *s > 0 => *s -= 1,
                _ => out.push(b),
            }
        }
        out
    }

    /// Checks that the live entries number the recorded count and that no block is in twice.
    pub fn check(&self) -> Result<(), String> {
        let live = self.live_oldest_first();
        if live.len() != self.live {
            return Err(format!(
                "ring holds {} live entries but counts {}",
                live.len(),
                self.live
            ));
        }
        if self.stale != self.stale_of.iter().map(|&s| s as usize).sum::<usize>() {
            return Err("ring's stale total differs from its per-block counts".into());
        }
        let mut sorted = live;
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("block {} is live twice in the ring", w[0]));
        }
        Ok(())
    }
}

/// Drives two levels through the same random demand accesses, prefetches, pins, unpins and
/// removals from outside the policy, and requires the same outcome and the same order after every
/// step: how the ring-based policies are checked against their linked-list forms. Returns the
/// first level, for checks of its own.
#[cfg(test)]
pub(crate) fn assert_same_as<A: crate::policy::Policy, B: crate::policy::Policy>(
    mut ring_based: crate::cache::level::CacheLevel<A>,
    mut list_based: crate::cache::level::CacheLevel<B>,
    ops: &[(u8, Block)],
) -> crate::cache::level::CacheLevel<A> {
    use crate::policy::NEVER;
    for (step, &(op, b)) in ops.iter().enumerate() {
        let resident = ring_based.frames().is_resident(b);
        let pinned = ring_based.frames().is_pinned(b);
        match op {
            0..=4 => assert_eq!(
                ring_based.access(b, NEVER),
                list_based.access(b, NEVER),
                "step {step}: access {b}"
            ),
            5 => assert_eq!(
                ring_based.prefetch(b, NEVER),
                list_based.prefetch(b, NEVER),
                "step {step}: prefetch {b}"
            ),
            6 => {
                ring_based.set_pinned(b, true);
                list_based.set_pinned(b, true);
            }
            7 => {
                ring_based.set_pinned(b, false);
                list_based.set_pinned(b, false);
            }
            _ if resident && !pinned => {
                ring_based.remove(b);
                list_based.remove(b);
            }
            _ => {}
        }
        ring_based.check().unwrap();
        assert_eq!(
            ring_based.policy.dump(),
            list_based.policy.dump(),
            "step {step}: order after {op} on {b}"
        );
        assert_eq!(ring_based.stats(), list_based.stats(), "step {step}");
    }
    ring_based
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The ring keeps the order a plain vector of live blocks keeps, under any mix of
        /// appends, removals from anywhere, rotations, pops and reorderings.
        #[test]
        fn matches_a_vector(ops in proptest::collection::vec((0u8..6, 0u32..12), 1..400)) {
            let mut ring = Ring::new(12);
            let mut model: Vec<Block> = Vec::new();
            for (op, b) in ops {
                match op {
                    0 | 1 if !model.contains(&b) => {
                        ring.push(b);
                        model.push(b);
                    }
                    0..=2 if model.contains(&b) => {
                        ring.remove(b);
                        model.retain(|&x| x != b);
                    }
                    4 => {
                        let oldest = (!model.is_empty()).then(|| model.remove(0));
                        prop_assert_eq!(ring.pop_oldest(), oldest);
                    }
                    5 => {
                        // Reorders: the newest live block moves to the oldest end.
                        if let Some(last) = model.pop() {
                            model.insert(0, last);
                        }
                        ring.set_order(model.clone());
                    }
                    _ => {
                        prop_assert_eq!(ring.oldest(), model.first().copied());
                        if !model.is_empty() {
                            ring.rotate();
                            let first = model.remove(0);
                            model.push(first);
                        }
                    }
                }
                ring.check().unwrap();
                prop_assert_eq!(ring.live_oldest_first(), model.clone());
                prop_assert_eq!(ring.len(), model.len());
            }
        }
    }

    #[test]
    fn compaction_bounds_the_entries() {
        // A block removed from the middle and put back again and again, with nothing ever
        // evicted from the oldest end, must not grow the ring without bound.
        let mut ring = Ring::new(4);
        ring.push(0);
        for _ in 0..10_000 {
            ring.push(1);
            ring.remove(1);
        }
        assert!(ring.entries.len() <= 2 + COMPACT_SLACK + 1);
        assert_eq!(ring.live_oldest_first(), vec![0]);
    }
}
