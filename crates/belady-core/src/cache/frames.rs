//! The frame table: the single owner of every block's residency, prefetch and pin state.
//!
//! Policies decide order and victims but never keep their own copy of these facts; they read
//! them here (for example to skip pinned blocks) and the cache level updates them.
//!
//! Capacity and use are counted in units: one per block in the blocks model (no weight is
//! stored, so the blocks path costs nothing more), an object's bytes in the objects model
//! ([`Frames::weighted`]), where each resident block holds its weight.

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
    /// Each resident block's weight in units; empty when every block weighs one unit.
    weights: Vec<u32>,
    resident: usize,
    /// Units held by resident blocks (equal to `resident` when unweighted).
    used: u64,
    capacity: usize,
}

impl Frames {
    /// A table for blocks `0..universe` with room for `capacity` resident blocks.
    pub fn new(capacity: usize, universe: usize) -> Frames {
        Frames {
            flags: vec![0; universe],
            weights: Vec::new(),
            resident: 0,
            used: 0,
            capacity,
        }
    }

    /// A table for objects `0..universe` that weigh their bytes, with room for `capacity` bytes.
    pub fn weighted(capacity: usize, universe: usize) -> Frames {
        Frames {
            weights: vec![0; universe],
            ..Frames::new(capacity, universe)
        }
    }

    /// Whether blocks carry their own weight (the objects model with sizes).
    #[inline]
    pub fn is_weighted(&self) -> bool {
        !self.weights.is_empty()
    }

    /// Units resident `b` holds (1 in an unweighted table; 0 for a block that is not resident
    /// in a weighted one).
    #[inline]
    pub fn weight(&self, b: Block) -> u64 {
        if self.weights.is_empty() {
            1
        } else {
            self.weights[b as usize] as u64
        }
    }

    /// Units held by resident blocks (blocks, or bytes in a weighted table).
    #[inline]
    pub fn used(&self) -> u64 {
        self.used
    }

    /// Whether a block of `weight` units fits in the free room now.
    #[inline]
    pub fn fits(&self, weight: u64) -> bool {
        self.used + weight <= self.capacity as u64
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

    /// Capacity in units: blocks, or bytes in a weighted table.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Whether inserting a one-unit block needs an eviction first.
    #[inline]
    pub fn is_full(&self) -> bool {
        self.used >= self.capacity as u64
    }

    /// Number of block ids the table covers.
    pub fn universe(&self) -> usize {
        self.flags.len()
    }

    /// Makes `b` resident with `weight` units (ignored, taken as 1, in an unweighted table).
    #[inline]
    pub(crate) fn insert(&mut self, b: Block, prefetch: bool, weight: u32) {
        self.flags[b as usize] = RESIDENT | if prefetch { UNUSED_PREFETCH } else { 0 };
        self.resident += 1;
        if self.weights.is_empty() {
            self.used += 1;
        } else {
            self.weights[b as usize] = weight;
            self.used += weight as u64;
        }
        debug_assert!(self.used <= self.capacity as u64);
    }

    /// Sets resident `b`'s weight to `weight` units (a policy's [`crate::policy::Pending::Weigh`]).
    /// No capacity check: libCacheSim's LIRS, which the reference model follows, can hold more
    /// than its capacity until its next miss makes room.
    #[inline]
    pub(crate) fn reweigh(&mut self, b: Block, weight: u32) {
        debug_assert!(self.is_resident(b));
        if let Some(w) = self.weights.get_mut(b as usize) {
            self.used = self.used - *w as u64 + weight as u64;
            *w = weight;
        }
    }

    /// Clears `b`; returns whether it was an unused prefetch.
    #[inline]
    pub(crate) fn remove(&mut self, b: Block) -> bool {
        debug_assert!(self.is_resident(b) && !self.is_pinned(b));
        let unused = self.is_unused_prefetch(b);
        self.flags[b as usize] = 0;
        self.resident -= 1;
        if self.weights.is_empty() {
            self.used -= 1;
        } else {
            self.used -= std::mem::take(&mut self.weights[b as usize]) as u64;
        }
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
