//! LRU: evict the least recently used block.
//!
//! Prefetched blocks enter at the MRU end without counting as a reference; their first demand
//! access moves them to the MRU end like any hit (the prefetching study's section 4).

use super::structures::list::Lists;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;

const QUEUE: usize = 0;

/// Least recently used replacement.
pub struct LruPolicy {
    lists: Lists,
}

impl LruPolicy {
    /// An empty LRU over block ids `0..universe`.
    pub fn new(universe: usize) -> Self {
        LruPolicy {
            lists: Lists::new(1, universe),
        }
    }
}

/// The back-most block of `list` that is not pinned.
pub(crate) fn last_unpinned(lists: &Lists, list: usize, frames: &Frames) -> Option<Block> {
    let mut cur = lists.back(list);
    while let Some(b) = cur {
        if !frames.is_pinned(b) {
            return Some(b);
        }
        cur = lists.toward_front(b);
    }
    None
}

impl Policy for LruPolicy {
    fn name(&self) -> &'static str {
        "lru"
    }

    #[inline]
    fn hint(&self, b: Block) {
        self.lists.hint(b);
    }

    #[inline]
    fn on_hit(&mut self, b: Block, _cx: &Access) {
        self.lists.move_to_front(QUEUE, b);
    }

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
        vec![("mru_to_lru", self.lists.iter(QUEUE).collect())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testutil::{pattern, run};
    use proptest::prelude::*;

    #[test]
    fn hand_worked_sequence() {
        // cap 3: 1 2 3 1 4 (evicts 2) 2 (evicts 3) 1 3 (evicts 4)
        let refs = [1, 2, 3, 1, 4, 2, 1, 3];
        assert_eq!(pattern(|| LruPolicy::new(5), 3, &refs), "mmmhmmhm");
        let level = run(LruPolicy::new(5), 3, &refs);
        assert_eq!(level.policy.dump()[0].1, vec![3, 1, 2]);
    }

    proptest! {
        #[test]
        fn matches_a_plain_vector_model(cap in 1usize..6, refs in proptest::collection::vec(0u32..10, 1..200)) {
            let level = run(LruPolicy::new(10), cap, &refs);
            let mut model: Vec<u32> = Vec::new();
            let mut hits = 0;
            for &b in &refs {
                if let Some(p) = model.iter().position(|&x| x == b) {
                    hits += 1;
                    model.remove(p);
                } else if model.len() == cap {
                    model.pop();
                }
                model.insert(0, b);
            }
            prop_assert_eq!(level.stats().hits, hits);
            prop_assert_eq!(&level.policy.dump()[0].1, &model);
        }
    }
}
