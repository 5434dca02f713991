//! The frame table: the single owner of every block's residency, prefetch and pin state.
//!
//! Policies decide order and victims but never keep their own copy of these facts; they read
//! them here (for example to skip pinned blocks) and the cache level updates them.

use crate::policy::Block;

const RESIDENT: u8 = 1;
const UNUSED_PREFETCH: u8 = 2;
const PINNED: u8 = 4;
const MARKED: u8 = 8;
const HINTED: u8 = 16;

/// Per-block state of one cache level, indexed by dense block id.
#[derive(Clone, Debug)]
pub struct Frames {
    flags: Vec<u8>,
    resident: usize,
    capacity: usize,
}

impl Frames {
    /// A table for blocks `0..universe` with room for `capacity` resident blocks.
    pub fn new(capacity: usize, universe: usize) -> Frames {
        Frames {
            flags: vec![0; universe],
            resident: 0,
            capacity,
        }
    }

    /// Asks the CPU to bring `b`'s flags in (a hint; no effect on results).
    #[inline]
    pub fn hint(&self, b: Block) {
        prefetch(self.flags.as_ptr().wrapping_add(b as usize));
    }

    /// Whether `b` holds a frame (including blocks whose I/O is still in flight).
    #[inline]
    pub fn is_resident(&self, b: Block) -> bool {
        self.flags[b as usize] & RESIDENT != 0
    }

    /// Whether `b` entered by prefetch and has not been demand-accessed since.
    #[inline]
    pub fn is_unused_prefetch(&self, b: Block) -> bool {
        self.flags[b as usize] & UNUSED_PREFETCH != 0
    }

    /// Whether `b` is pinned (its I/O is in flight); pinned blocks must not be evicted.
    #[inline]
    pub fn is_pinned(&self, b: Block) -> bool {
        self.flags[b as usize] & PINNED != 0
    }

    /// Number of resident blocks.
    #[inline]
    pub fn len(&self) -> usize {
        self.resident
    }

    /// Whether no block is resident.
    pub fn is_empty(&self) -> bool {
        self.resident == 0
    }

    /// Maximum number of resident blocks.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Whether inserting a block needs an eviction first.
    #[inline]
    pub fn is_full(&self) -> bool {
        self.resident >= self.capacity
    }

    /// Number of block ids the table covers.
    pub fn universe(&self) -> usize {
        self.flags.len()
    }

    #[inline]
    pub(crate) fn insert(&mut self, b: Block, prefetch: bool) {
        debug_assert!(!self.is_resident(b) && self.resident < self.capacity);
        self.flags[b as usize] = RESIDENT | if prefetch { UNUSED_PREFETCH } else { 0 };
        self.resident += 1;
    }

    /// Clears `b`; returns whether it was an unused prefetch.
    #[inline]
    pub(crate) fn remove(&mut self, b: Block) -> bool {
        debug_assert!(self.is_resident(b) && !self.is_pinned(b));
        let unused = self.is_unused_prefetch(b);
        self.flags[b as usize] = 0;
        self.resident -= 1;
        unused
    }

    /// Records the first demand access of a prefetched block; returns whether it was unused.
    #[inline]
    pub(crate) fn mark_used(&mut self, b: Block) -> bool {
        let unused = self.is_unused_prefetch(b);
        self.flags[b as usize] &= !UNUSED_PREFETCH;
        unused
    }

    /// Whether `b` was prefetched on a learned hint (ClusterFetch) rather than by read-ahead;
    /// the flag lives as long as the frame.
    #[inline]
    pub fn is_hinted(&self, b: Block) -> bool {
        self.flags[b as usize] & HINTED != 0
    }

    /// Flags resident `b` as prefetched on a learned hint.
    pub(crate) fn set_hinted(&mut self, b: Block) {
        if self.is_resident(b) {
            self.flags[b as usize] |= HINTED;
        }
    }

    /// Flags resident `b` as a read-ahead trigger (Linux's PG_readahead).
    pub(crate) fn set_marker(&mut self, b: Block) {
        if self.is_resident(b) {
            self.flags[b as usize] |= MARKED;
        }
    }

    /// Clears `b`'s read-ahead trigger; returns whether it was set.
    pub(crate) fn take_marker(&mut self, b: Block) -> bool {
        let was = self.flags[b as usize] & MARKED != 0;
        self.flags[b as usize] &= !MARKED;
        was
    }

    pub(crate) fn set_pinned(&mut self, b: Block, pinned: bool) {
        if pinned {
            self.flags[b as usize] |= PINNED;
        } else {
            self.flags[b as usize] &= !PINNED;
        }
    }

    /// Every resident block, in id order (for invariant checks and tests).
    pub fn resident_blocks(&self) -> impl Iterator<Item = Block> + '_ {
        self.flags
            .iter()
            .enumerate()
            .filter(|(_, f)| **f & RESIDENT != 0)
            .map(|(b, _)| b as Block)
    }
}

/// Prefetches the cache line at `p` (a hint that never faults).
#[inline]
pub(crate) fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint that never faults, and SSE is part of every x86_64 target.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
