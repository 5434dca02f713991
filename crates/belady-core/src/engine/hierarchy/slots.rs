//! The client content-tracking table of eviction-based placement and the buffer slots it watches.

use crate::policy::Block;

/// Marks a free slot in a [`ContentTable`] or a block without a slot.
pub(super) const NO_SLOT: u32 = u32::MAX;

/// The client content-tracking table of the paper's section 4: for each buffer slot of the level
/// above, the block last read into it. A read of block `b` into a slot holding another block `v`
/// means `v` was evicted to make room: the notice the lower level acts on. The table sees only
/// (slot, block) pairs, as a filter driver sees the buffer address of each read.
#[derive(Clone, Debug, Default)]
pub struct ContentTable {
    pub(super) held: Vec<Block>,
}

impl ContentTable {
    /// Records a read of `b` into `slot`; returns the block it displaced, if any.
    pub fn observe_read(&mut self, slot: u32, b: Block) -> Option<Block> {
        let s = slot as usize;
        if s >= self.held.len() {
            self.held.resize(s + 1, NO_SLOT);
        }
        let old = std::mem::replace(&mut self.held[s], b);
        (old != NO_SLOT && old != b).then_some(old)
    }

    /// Forgets the content of `slot`: its block left without being replaced (handed up).
    pub fn vacate(&mut self, slot: u32) {
        if let Some(x) = self.held.get_mut(slot as usize) {
            *x = NO_SLOT;
        }
    }

    /// Number of slots seen so far (the table grows with the buffer addresses it sees).
    pub fn slots(&self) -> usize {
        self.held.len()
    }
}

/// The buffer slots of a level whose lower neighbour places on eviction: which slot holds each
/// block (a freed victim's slot is reused by the block read in its place), and the tracking
/// table the lower level learns evictions from.
#[derive(Clone, Debug)]
pub(super) struct Slots {
    pub(super) slot_of: Vec<u32>,
    free: Vec<u32>,
    next: u32,
    pub(super) table: ContentTable,
}

impl Slots {
    pub(super) fn new(universe: usize) -> Slots {
        Slots {
            slot_of: vec![NO_SLOT; universe],
            free: Vec::new(),
            next: 0,
            table: ContentTable::default(),
        }
    }

    /// `b` was read into the level after `victim` left; returns the eviction the table detects.
    pub(super) fn read_into(&mut self, b: Block, victim: Option<Block>) -> Option<Block> {
        let slot = match victim {
            Some(v) => std::mem::replace(&mut self.slot_of[v as usize], NO_SLOT),
            None => self.free.pop().unwrap_or_else(|| {
                self.next += 1;
                self.next - 1
            }),
        };
        self.slot_of[b as usize] = slot;
        self.table.observe_read(slot, b)
    }

    /// `b` left without a replacement.
    pub(super) fn release(&mut self, b: Block) {
        let slot = std::mem::replace(&mut self.slot_of[b as usize], NO_SLOT);
        if slot != NO_SLOT {
            self.table.vacate(slot);
            self.free.push(slot);
        }
    }
}
