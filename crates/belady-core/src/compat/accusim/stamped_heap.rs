//! The binary max-heap of the prefetching study's simulator (AccuSim), which its OPT and LRU-2
//! share, reproduced for its tie behaviour.
//!
//! Each entry carries a key and a stamp from a counter bumped at every insertion. Sifting up
//! compares keys only, so an entry never passes an equal key; sifting down prefers, among equal
//! keys, the older stamp. Removal moves the last entry into the hole, sifts it down, then up.
//! Equal keys therefore leave mostly, but not strictly, in insertion order, which decides which
//! of several equally good victims a policy evicts.

use crate::cache::frames::Frames;
use crate::policy::Block;

const NOT_IN_HEAP: u32 = u32::MAX;

/// A max-heap of blocks by key, ties broken as AccuSim's heap breaks them (module header).
#[derive(Default)]
pub(crate) struct StampedHeap {
    /// (key, stamp, block), 0-based (AccuSim's array is 1-based; the shape is the same).
    slots: Vec<(u64, u64, Block)>,
    pos: Vec<u32>,
    stamps: u64,
}

impl StampedHeap {
    /// An empty heap over block ids `0..universe`.
    pub(crate) fn new(universe: usize) -> Self {
        StampedHeap {
            slots: Vec::new(),
            pos: vec![NOT_IN_HEAP; universe],
            stamps: 0,
        }
    }

    #[inline]
    fn swap(&mut self, i: usize, j: usize) {
        self.slots.swap(i, j);
        self.pos[self.slots[i].2 as usize] = i as u32;
        self.pos[self.slots[j].2 as usize] = j as u32;
    }

    /// Whether slot `a` belongs above slot `b` when sifting down.
    #[inline]
    fn above(&self, a: usize, b: usize) -> bool {
        let (x, y) = (self.slots[a], self.slots[b]);
        x.0 > y.0 || (x.0 == y.0 && x.1 < y.1)
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let p = (i - 1) / 2;
            if self.slots[p].0 < self.slots[i].0 {
                self.swap(i, p);
                i = p;
            } else {
                break;
            }
        }
    }

    fn sift_down(&mut self, mut i: usize) {
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut top = i;
            if l < self.slots.len() && self.above(l, top) {
                top = l;
            }
            if r < self.slots.len() && self.above(r, top) {
                top = r;
            }
            if top == i {
                break;
            }
            self.swap(i, top);
            i = top;
        }
    }

    /// Adds `b` (not in the heap) with `key` and a fresh stamp.
    pub(crate) fn insert(&mut self, b: Block, key: u64) {
        debug_assert_eq!(self.pos[b as usize], NOT_IN_HEAP);
        self.stamps += 1;
        self.slots.push((key, self.stamps, b));
        let i = self.slots.len() - 1;
        self.pos[b as usize] = i as u32;
        self.sift_up(i);
    }

    /// Removes `b` if it is in the heap.
    pub(crate) fn remove(&mut self, b: Block) {
        let i = self.pos[b as usize];
        if i == NOT_IN_HEAP {
            return;
        }
        let i = i as usize;
        let last = self.slots.len() - 1;
        self.swap(i, last);
        self.slots.pop();
        self.pos[b as usize] = NOT_IN_HEAP;
        if i < self.slots.len() {
            self.sift_down(i);
            self.sift_up(i);
        }
    }

    /// Whether `b` is in the heap.
    #[inline]
    pub(crate) fn contains(&self, b: Block) -> bool {
        self.pos[b as usize] != NOT_IN_HEAP
    }

    /// The key `b` was inserted with, if it is in the heap.
    pub(crate) fn key_of(&self, b: Block) -> Option<u64> {
        let i = self.pos[b as usize];
        (i != NOT_IN_HEAP).then(|| self.slots[i as usize].0)
    }

    /// The top entry's block.
    #[inline]
    pub(crate) fn top(&self) -> Option<Block> {
        self.slots.first().map(|s| s.2)
    }

    /// The top entry's block unless it is pinned; then the best unpinned entry by (key, stamp).
    pub(crate) fn top_unpinned(&self, frames: &Frames) -> Option<Block> {
        match self.top() {
            Some(b) if !frames.is_pinned(b) => Some(b),
            Some(_) => self
                .slots
                .iter()
                .filter(|s| !frames.is_pinned(s.2))
                .min_by_key(|s| (std::cmp::Reverse(s.0), s.1))
                .map(|s| s.2),
            None => None,
        }
    }

    /// Number of entries.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// The blocks in the order a full drain would not necessarily give, but by (key desc, stamp):
    /// the victim order of a total order on the same entries, for dumps.
    pub(crate) fn by_key(&self) -> Vec<Block> {
        let mut s = self.slots.clone();
        s.sort_unstable_by_key(|e| (std::cmp::Reverse(e.0), e.1));
        s.into_iter().map(|e| e.2).collect()
    }

    /// The blocks in the heap, in array order.
    pub(crate) fn blocks(&self) -> impl Iterator<Item = Block> + '_ {
        self.slots.iter().map(|s| s.2)
    }

    /// Checks the heap property and the position index.
    pub(crate) fn check(&self) -> Result<(), String> {
        for (i, s) in self.slots.iter().enumerate() {
            if self.pos[s.2 as usize] as usize != i {
                return Err(format!("heap slot {i} (block {}) is not indexed", s.2));
            }
            if i > 0 && self.slots[(i - 1) / 2].0 < s.0 {
                return Err(format!("heap order broken at slot {i}"));
            }
        }
        let indexed = self.pos.iter().filter(|&&p| p != NOT_IN_HEAP).count();
        if indexed != self.slots.len() {
            return Err(format!(
                "{indexed} blocks indexed, {} in the heap",
                self.slots.len()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_keys_leave_mostly_by_insertion() {
        // Keys 1 0 1 1 1 2 2 for blocks 0..6 (stamps 1..7). Array after the inserts (sifting
        // up on keys only): [5, 3, 6, 1, 4, 2, 0]. Removing 1 moves 0 (the last slot) into its
        // hole, a leaf under 3, where it stays (sifting up does not compare stamps):
        // [5, 3, 6, 0, 4, 2]. Popping then gives 5 6 2 0 3 4: block 2 (stamp 3) leaves before
        // block 0 (stamp 1) with an equal key.
        let mut h = StampedHeap::new(8);
        for (b, k) in [1, 0, 1, 1, 1, 2, 2].into_iter().enumerate() {
            h.insert(b as Block, k);
            h.check().unwrap();
        }
        h.remove(1);
        h.check().unwrap();
        assert_eq!(h.key_of(0), Some(1));
        assert!(!h.contains(1));
        let mut order = Vec::new();
        while let Some(b) = h.top() {
            order.push(b);
            h.remove(b);
            h.check().unwrap();
        }
        assert_eq!(order, vec![5, 6, 2, 0, 3, 4]);
        assert_eq!(h.len(), 0);
    }
}
