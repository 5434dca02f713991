//! FIFO: evict the block that entered first; hits change nothing.
//!
//! The queue is a `Ring` (`ring.rs`) of ids: a miss appends at one end and evicts from the other, so the
//! policy touches no per-block state at all (the frame table's flags are the only random access).

use super::structures::ring::Ring;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;

/// First-in, first-out replacement.
pub struct FifoPolicy {
    queue: Ring,
}

impl FifoPolicy {
    /// An empty FIFO over block ids `0..universe`.
    pub fn new(universe: usize) -> Self {
        FifoPolicy {
            queue: Ring::new(universe),
        }
    }
}

impl Policy for FifoPolicy {
    fn name(&self) -> &'static str {
        "fifo"
    }

    #[inline]
    fn on_hit(&mut self, _b: Block, _cx: &Access) {}

    #[inline]
    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        self.queue.oldest_where(|b| !frames.is_pinned(b))
    }

    #[inline]
    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        self.queue.remove(b);
    }

    #[inline]
    fn on_insert(&mut self, b: Block, _kind: InsertKind, _cx: &Access) {
        self.queue.push(b);
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    fn len(&self) -> usize {
        self.queue.len()
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.queue.check()?;
        check_same_residents(self.queue.live_oldest_first().into_iter(), frames)
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        let mut order = self.queue.live_oldest_first();
        order.reverse();
        vec![("newest_to_oldest", order)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::lru::last_unpinned;
    use crate::policy::structures::list::Lists;
    use crate::policy::testutil::{pattern, run};
    use proptest::prelude::*;

    /// FIFO on a linked list, as it was before the ring: the reference for the ring's order.
    struct ListFifo(Lists);

    impl Policy for ListFifo {
        fn name(&self) -> &'static str {
            "fifo-list"
        }
        fn on_hit(&mut self, _b: Block, _cx: &Access) {}
        fn select_victim(&mut self, _i: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
            last_unpinned(&self.0, 0, frames)
        }
        fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
            self.0.remove(b);
        }
        fn on_insert(&mut self, b: Block, _kind: InsertKind, _cx: &Access) {
            self.0.push_front(0, b);
        }
        fn len(&self) -> usize {
            self.0.len(0)
        }
        fn check_invariants(&self, _frames: &Frames) -> Result<(), String> {
            self.0.check()
        }
        fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
            vec![("newest_to_oldest", self.0.iter(0).collect())]
        }
    }

    proptest! {
        #[test]
        fn ring_keeps_the_linked_list_order(
            cap in 1usize..6,
            ops in proptest::collection::vec((0u8..9, 0u32..10), 1..300),
        ) {
            crate::policy::structures::ring::assert_same_as(
                CacheLevel::new(FifoPolicy::new(10), cap, 10),
                CacheLevel::new(ListFifo(Lists::new(1, 10)), cap, 10),
                &ops,
            );
        }
    }

    #[test]
    fn hand_worked_sequence() {
        // cap 3: 1 2 3 1(h) 4 evicts 1; 1 misses and evicts 2; 2 misses and evicts 3; 4 hits
        let refs = [1, 2, 3, 1, 4, 1, 2, 4];
        assert_eq!(pattern(|| FifoPolicy::new(5), 3, &refs), "mmmhmmmh");
        let level = run(FifoPolicy::new(5), 3, &refs);
        assert_eq!(level.policy.dump()[0].1, vec![2, 1, 4]);
    }
}
