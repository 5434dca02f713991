//! FIFO: evict the block that entered first; hits change nothing.

use super::list::Lists;
use super::lru::last_unpinned;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::frames::Frames;

const QUEUE: usize = 0;

/// First-in, first-out replacement.
pub struct FifoPolicy {
    lists: Lists,
}

impl FifoPolicy {
    /// An empty FIFO over block ids `0..universe`.
    pub fn new(universe: usize) -> Self {
        FifoPolicy {
            lists: Lists::new(1, universe),
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
        last_unpinned(&self.lists, QUEUE, frames)
    }

    #[inline]
    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        self.lists.remove(b);
    }

    #[inline]
    fn on_insert(&mut self, b: Block, _kind: InsertKind, _cx: &Access) {
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
        check_same_residents(self.lists.iter(QUEUE), frames)
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        vec![("newest_to_oldest", self.lists.iter(QUEUE).collect())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testutil::{pattern, run};

    #[test]
    fn hand_worked_sequence() {
        // cap 3: 1 2 3 1(h) 4 evicts 1; 1 misses and evicts 2; 2 misses and evicts 3; 4 hits
        let refs = [1, 2, 3, 1, 4, 1, 2, 4];
        assert_eq!(pattern(|| FifoPolicy::new(5), 3, &refs), "mmmhmmmh");
        let level = run(FifoPolicy::new(5), 3, &refs);
        assert_eq!(level.policy.dump()[0].1, vec![2, 1, 4]);
    }
}
