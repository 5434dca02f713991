//! S3-FIFO's three FIFO queues (small, main, ghost) as rings of ids, with each block's queue and
//! access count side by side in one array: shared by the count-based policy
//! ([`crate::policy::s3fifo`]) and the byte-based one ([`crate::policy::s3fifo_sized`]), which differ only in
//! how they measure the queues.
//!
//! Every queue only appends at its newest end and, in a run without pinned blocks, leaves from
//! its oldest end: the small queue's walk moves its oldest block to main or evicts it, main's
//! walk moves its oldest block to its newest end (a rotation) or evicts it, and the ghost queue
//! drops its oldest id. A ghost hit takes an id from the middle, which the ring deletes lazily.
//! The walks past pinned blocks, which keep their places, are the only steps a ring cannot do in
//! place: they run over a copy of the queue's order and hand the result back (rare: a block is
//! pinned while its read is in flight, so it is usually near the newest end).

use super::ring::Ring;
use crate::cache::frames::Frames;
use crate::policy::{check_same_residents, Block};
use std::collections::VecDeque;

/// The small queue.
pub const SMALL: usize = 0;
/// The main queue.
pub const MAIN: usize = 1;
/// The ghost queue of evicted ids.
pub const GHOST: usize = 2;
/// On no queue.
const NOWHERE: u8 = u8::MAX;
/// Main-queue counts saturate here (libCacheSim's two-bit clock: `min(count, 3) - 1`).
const MAIN_COUNT_CAP: u8 = 3;

/// A block's queue and access count, read together on every hit and eviction.
#[derive(Clone, Copy, Debug)]
struct Slot {
    queue: u8,
    count: u8,
}

/// Small, main and ghost queues over block ids `0..universe`.
pub struct S3Queues {
    rings: [Ring; 3],
    slots: Vec<Slot>,
}

impl S3Queues {
    /// Three empty queues.
    pub fn new(universe: usize) -> Self {
        S3Queues {
            rings: [
                Ring::new(universe),
                Ring::new(universe),
                Ring::new(universe),
            ],
            slots: vec![
                Slot {
                    queue: NOWHERE,
                    count: 0
                };
                universe
            ],
        }
    }

    /// Asks the CPU to bring `b`'s queue and count in (no effect on results).
    #[inline]
    pub fn hint(&self, b: Block) {
        crate::cache::frames::prefetch(self.slots.as_ptr().wrapping_add(b as usize) as *const u8);
    }

    /// Blocks (or ids) on queue `q`.
    #[inline]
    pub fn len(&self, q: usize) -> usize {
        self.rings[q].len()
    }

    /// Whether `b` is on queue `q`.
    #[inline]
    pub fn contains(&self, q: usize, b: Block) -> bool {
        self.slots[b as usize].queue == q as u8
    }

    /// `b`'s access count.
    #[inline]
    pub fn count(&self, b: Block) -> u8 {
        self.slots[b as usize].count
    }

    /// Sets `b`'s access count.
    #[inline]
    pub fn set_count(&mut self, b: Block, count: u8) {
        self.slots[b as usize].count = count;
    }

    /// Adds one to `b`'s count (saturating).
    #[inline]
    pub fn bump(&mut self, b: Block) {
        let c = &mut self.slots[b as usize].count;
        *c = c.saturating_add(1);
    }

    /// Appends `b` (on no queue) at queue `q`'s newest end.
    #[inline]
    pub fn push(&mut self, q: usize, b: Block) {
        debug_assert_eq!(self.slots[b as usize].queue, NOWHERE);
        self.slots[b as usize].queue = q as u8;
        self.rings[q].push(b);
    }

    /// Takes `b` off its queue; returns the queue.
    #[inline]
    pub fn take(&mut self, b: Block) -> Option<usize> {
        let q = self.slots[b as usize].queue;
        if q == NOWHERE {
            return None;
        }
        self.slots[b as usize].queue = NOWHERE;
        self.rings[q as usize].remove(b);
        Some(q as usize)
    }

    /// Takes queue `q`'s oldest block (or id) off and returns it.
    #[inline]
    pub fn pop_oldest(&mut self, q: usize) -> Option<Block> {
        let b = self.rings[q].pop_oldest()?;
        self.slots[b as usize].queue = NOWHERE;
        Some(b)
    }

    /// Queue `q`'s oldest block.
    #[inline]
    pub fn oldest(&mut self, q: usize) -> Option<Block> {
        self.rings[q].oldest()
    }

    /// Queue `q`, newest first.
    pub fn new_to_old(&self, q: usize) -> Vec<Block> {
        let mut order = self.rings[q].live_oldest_first();
        order.reverse();
        order
    }

    /// The small queue's victim: blocks from the oldest end whose count reached `threshold` move
    /// to main with a count of 0 (`moved` is told of each); the first unpinned block below it is
    /// returned, still queued. `None` when none is left.
    pub fn victim_in_small(
        &mut self,
        threshold: u8,
        frames: &Frames,
        mut moved: impl FnMut(Block),
    ) -> Option<Block> {
        loop {
            let b = self.rings[SMALL].oldest()?;
            if frames.is_pinned(b) {
                break;
            }
            if self.count(b) < threshold {
                return Some(b);
            }
            self.move_to_main(b);
            moved(b);
        }
        // A pinned block at the oldest end: walk past it, leaving it (and the others passed
        // over) in place.
        for b in self.rings[SMALL].live_oldest_first() {
            if frames.is_pinned(b) {
                continue;
            }
            if self.count(b) < threshold {
                return Some(b);
            }
            self.move_to_main(b);
            moved(b);
        }
        None
    }

    /// Moves small-queue block `b` to main's newest end with a count of 0.
    fn move_to_main(&mut self, b: Block) {
        self.take(b);
        self.set_count(b, 0);
        self.push(MAIN, b);
    }

    /// The main queue's victim: a block with a count goes to the newest end with one less (at
    /// most 2); the first unpinned block with count 0 is returned, still queued. `None` when
    /// every block is pinned.
    pub fn victim_in_main(&mut self, frames: &Frames) -> Option<Block> {
        // Each pass over the queue lowers every unpinned count, so four passes find a victim.
        let mut budget = 4 * self.len(MAIN) + 1;
        while budget > 0 {
            let b = self.rings[MAIN].oldest()?;
            if frames.is_pinned(b) {
                return self.victim_in_main_past_pins(frames, budget);
            }
            budget -= 1;
            let c = self.count(b);
            if c == 0 {
                return Some(b);
            }
            self.set_count(b, c.min(MAIN_COUNT_CAP) - 1);
            self.rings[MAIN].rotate();
        }
        None
    }

    /// Main's walk with a pinned block at the oldest end, as the linked list it replaces walked
    /// it: from the oldest block toward the newest, pinned blocks passed where they stand, blocks
    /// with a count moved to the newest end, and back to the oldest after the newest. Runs over a
    /// copy of the order, which it hands back to the ring.
    fn victim_in_main_past_pins(&mut self, frames: &Frames, mut budget: usize) -> Option<Block> {
        // The order is `passed` (blocks behind the walk that stayed) then `ahead`, whose first
        // block is the walk's next.
        let mut passed: Vec<Block> = Vec::new();
        let mut ahead: VecDeque<Block> = self.rings[MAIN].live_oldest_first().into();
        let mut victim = None;
        while budget > 0 {
            budget -= 1;
            let b = ahead[0];
            let at_newest = ahead.len() == 1;
            if frames.is_pinned(b) {
                ahead.pop_front();
                passed.push(b);
            } else if self.count(b) == 0 {
                victim = Some(b);
                break;
            } else {
                let c = self.count(b);
                self.set_count(b, c.min(MAIN_COUNT_CAP) - 1);
                if !at_newest {
                    ahead.pop_front();
                    ahead.push_back(b);
                }
            }
            if at_newest {
                // Past the newest block the walk goes back to the oldest.
                passed.extend(ahead.drain(..));
                ahead = std::mem::take(&mut passed).into();
            }
        }
        passed.extend(ahead);
        self.rings[MAIN].set_order(passed);
        victim
    }

    /// Blocks on the small and main queues: the resident ones (the ghost queue holds ids only).
    #[inline]
    pub fn resident_len(&self) -> usize {
        self.len(SMALL) + self.len(MAIN)
    }

    /// [`S3Queues::check`], and that the small and main queues hold exactly `frames`'
    /// resident blocks.
    pub fn check_residents(&self, frames: &Frames) -> Result<(), String> {
        self.check()?;
        let small = self.new_to_old(SMALL);
        check_same_residents(small.into_iter().chain(self.new_to_old(MAIN)), frames)
    }

    /// Checks the rings and that every id's recorded queue is the queue that holds it.
    pub fn check(&self) -> Result<(), String> {
        let mut on_queues = 0;
        for (q, ring) in self.rings.iter().enumerate() {
            ring.check()?;
            for b in ring.live_oldest_first() {
                if self.slots[b as usize].queue != q as u8 {
                    return Err(format!(
                        "block {b} is on queue {q} but records queue {}",
                        self.slots[b as usize].queue
                    ));
                }
                on_queues += 1;
            }
        }
        let recorded = self.slots.iter().filter(|s| s.queue != NOWHERE).count();
        if recorded != on_queues {
            return Err(format!(
                "{recorded} ids record a queue but {on_queues} are queued"
            ));
        }
        Ok(())
    }
}
