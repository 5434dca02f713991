//! S3-FIFO over objects of different sizes, as libCacheSim's `S3FIFO.c` runs it at a byte
//! capacity: the small, main and ghost queues are FIFO caches of their own byte sizes. The
//! builder makes it for a level that weighs objects (`builder::build_for`); a level that counts
//! blocks or objects gets [`super::s3fifo::S3FifoPolicy`], whose steps are the same with every
//! object weighing one. `tests/python/test_xcheck_bytes.py` asserts equal misses and missed bytes.
//!
//! Sizes: small holds `floor(small x c)` bytes, main `c` minus that, the ghost queue
//! `floor(ghost x c)` bytes of ids (each weighing the size its object left with). Every queue is
//! counted as libCacheSim counts it:
//! - Any miss first takes the object's id off the ghost queue (also when the object then cannot
//!   enter: the level reports such a miss by `on_unplaced_miss`).
//! - An object larger than the small queue is not admitted, ghost hit or not (nothing is
//!   evicted for it). One exactly the small queue's size that is not a ghost hit makes room and
//!   is then not inserted (libCacheSim's insert refuses it after its evictions): here it enters
//!   and is evicted at once, without a ghost entry, so residency and misses agree.
//! - A ghost hit enters main; another object enters small, or main while small holds its bytes or
//!   more before the first eviction.
//! - Eviction evicts from main when main holds more than its bytes or small is empty, else from
//!   small, exactly as the count-based policy does; an id evicted from small enters the ghost
//!   queue unless its object is larger than the whole ghost queue, and the oldest ids leave until
//!   it fits.
//!
//! Prefetching: a prefetched object enters like a demand miss (its ghost entry is consumed where
//! it enters); one of the small queue's size or more enters small. Pinned objects are passed over
//! where they stand, as in the count-based policy.
//!
//! The queues are the count-based policy's rings (`s3_queues`); this policy adds each
//! object's size and each queue's bytes.

use super::registry::PolicySpec;
use super::structures::s3_queues::{S3Queues, GHOST, MAIN, SMALL};
use super::{Access, Block, Evicted, InsertKind, Pending, Policy};
use crate::cache::frames::Frames;
use crate::error::Result as CoreResult;

/// S3-FIFO whose queues hold bytes (libCacheSim's S3-FIFO at a byte capacity).
pub struct S3FifoSizedPolicy {
    queues: S3Queues,
    /// Bytes of each resident object or ghost id, as it entered.
    size: Vec<u32>,
    /// Bytes on each queue.
    bytes: [u64; 3],
    small_cap: u64,
    main_cap: u64,
    ghost_cap: u64,
    threshold: u8,
    has_evicted: bool,
    /// A missed object whose id was taken off the ghost queue when its miss began.
    ghost_hit: Option<Block>,
    /// An object of the small queue's size that made room and leaves at once, until it has left.
    refused: Option<Block>,
    /// The same object, until the level has been asked to evict it.
    evict_now: Option<Block>,
}

impl S3FifoSizedPolicy {
    /// An S3-FIFO of `capacity` bytes with the given small share, ghost multiple and threshold.
    pub fn new(capacity: u64, small: f64, ghost: f64, threshold: u8, universe: usize) -> Self {
        let small_cap = (capacity as f64 * small) as u64;
        S3FifoSizedPolicy {
            queues: S3Queues::new(universe),
            size: vec![0; universe],
            bytes: [0; 3],
            small_cap,
            main_cap: capacity.saturating_sub(small_cap),
            ghost_cap: (capacity as f64 * ghost) as u64,
            threshold,
            has_evicted: false,
            ghost_hit: None,
            refused: None,
            evict_now: None,
        }
    }

    /// Reads `small`, `ghost` and `threshold` from `spec`, for a cache of `capacity` bytes.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> CoreResult<Self> {
        let small = spec.f64("small", 0.0, 1.0)?;
        let ghost = spec.f64("ghost", 0.0, 64.0)?;
        let threshold = spec.usize("threshold", 1, 255)? as u8;
        Ok(Self::new(
            capacity as u64,
            small,
            ghost,
            threshold,
            universe,
        ))
    }

    /// The small queue's size in bytes.
    pub fn small_cap(&self) -> u64 {
        self.small_cap
    }

    fn push(&mut self, list: usize, b: Block) {
        self.queues.push(list, b);
        self.bytes[list] += self.size[b as usize] as u64;
    }

    fn take(&mut self, b: Block) -> Option<usize> {
        let from = self.queues.take(b)?;
        self.bytes[from] -= self.size[b as usize] as u64;
        Some(from)
    }

    /// Takes `b`'s id off the ghost queue; whether it was there.
    fn take_ghost(&mut self, b: Block) -> bool {
        if self.queues.contains(GHOST, b) {
            self.take(b);
            true
        } else {
            false
        }
    }

    /// Remembers evicted `b` in the ghost queue, dropping the oldest ids until it fits.
    fn remember(&mut self, b: Block) {
        let size = self.size[b as usize] as u64;
        if size > self.ghost_cap {
            return;
        }
        while self.bytes[GHOST] + size > self.ghost_cap {
            let oldest = self
                .queues
                .oldest(GHOST)
                .expect("ghost bytes come from ids");
            self.take(oldest);
        }
        self.push(GHOST, b);
    }

    /// The small queue's victim (see [`S3Queues::victim_in_small`]), moving the bytes of the
    /// objects it sends to main.
    fn victim_in_small(&mut self, frames: &Frames) -> Option<Block> {
        let (size, bytes) = (&self.size, &mut self.bytes);
        self.queues.victim_in_small(self.threshold, frames, |b| {
            bytes[SMALL] -= size[b as usize] as u64;
            bytes[MAIN] += size[b as usize] as u64;
        })
    }
}

impl Policy for S3FifoSizedPolicy {
    fn name(&self) -> &'static str {
        "s3fifo"
    }

    #[inline]
    fn hint(&self, b: Block) {
        self.queues.hint(b);
    }

    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        if !cx.first_use {
            self.queues.bump(b);
        }
    }

    fn on_unplaced_miss(&mut self, b: Block, _cx: &Access) {
        self.take_ghost(b);
    }

    fn before_insert(&mut self, b: Block, _frames: &Frames, cx: &Access) -> bool {
        self.ghost_hit = self.take_ghost(b).then_some(b);
        cx.size <= self.small_cap
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        self.has_evicted = true;
        if self.bytes[MAIN] > self.main_cap || self.bytes[SMALL] == 0 {
            self.queues
                .victim_in_main(frames)
                .or_else(|| self.victim_in_small(frames))
        } else {
            self.victim_in_small(frames)
                .or_else(|| self.queues.victim_in_main(frames))
        }
    }

    fn on_evict(&mut self, b: Block, ev: Evicted, _cx: &Access) {
        let from = self.take(b);
        self.queues.set_count(b, 0);
        if self.refused == Some(b) {
            self.refused = None;
            return;
        }
        if from == Some(SMALL) && !ev.unused_prefetch {
            self.remember(b);
        }
    }

    fn on_insert(&mut self, b: Block, kind: InsertKind, cx: &Access) {
        self.queues.set_count(b, 0);
        let ghost = self.ghost_hit.take() == Some(b);
        let ghost = ghost || (kind == InsertKind::Prefetch && self.take_ghost(b));
        self.size[b as usize] = u32::try_from(cx.size).unwrap_or(u32::MAX);
        if ghost {
            self.push(MAIN, b);
        } else if kind == InsertKind::Demand && cx.size >= self.small_cap {
            // Made room, then refused (module header): in no queue, evicted by the level next.
            self.refused = Some(b);
            self.evict_now = Some(b);
        } else if !self.has_evicted && self.bytes[SMALL] >= self.small_cap {
            self.push(MAIN, b);
        } else {
            self.push(SMALL, b);
        }
    }

    fn take_pending(&mut self) -> Option<Pending> {
        self.evict_now.take().map(Pending::Evict)
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    fn len(&self) -> usize {
        self.queues.resident_len()
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.queues.check_residents(frames)?;
        for list in [SMALL, MAIN, GHOST] {
            let sum: u64 = self
                .queues
                .new_to_old(list)
                .into_iter()
                .map(|b| self.size[b as usize] as u64)
                .sum();
            if sum != self.bytes[list] {
                return Err(format!(
                    "queue {list} counts {} bytes, its objects weigh {sum}",
                    self.bytes[list]
                ));
            }
        }
        if self.bytes[GHOST] > self.ghost_cap {
            return Err(format!(
                "ghost queue holds {} bytes, more than {}",
                self.bytes[GHOST], self.ghost_cap
            ));
        }
        let ghost = self.queues.new_to_old(GHOST);
        if let Some(b) = ghost.into_iter().find(|&b| frames.is_resident(b)) {
            return Err(format!("ghost queue lists resident object {b}"));
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        vec![
            ("small_new_to_old", self.queues.new_to_old(SMALL)),
            ("main_new_to_old", self.queues.new_to_old(MAIN)),
            ("ghost_new_to_old", self.queues.new_to_old(GHOST)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::{CacheLevel, Outcome};
    use crate::policy::NEVER;

    /// 100 bytes: small 10, main 90, ghost 90.
    fn level() -> CacheLevel<S3FifoSizedPolicy> {
        CacheLevel::weighted(S3FifoSizedPolicy::new(100, 0.1, 0.9, 2, 16), 100, 16)
    }

    #[test]
    fn objects_too_big_for_the_small_queue_do_not_stay() {
        let mut l = level();
        l.access_sized(1, 5, NEVER);
        // Larger than small: refused before any eviction.
        assert_eq!(l.access_sized(2, 11, NEVER), Outcome::Bypass);
        assert_eq!((l.stats().rejected, l.stats().evictions), (1, 0));
        // Exactly small's size: enters and leaves at once, with no ghost entry.
        l.access_sized(3, 10, NEVER);
        l.check().unwrap();
        assert!(!l.frames().is_resident(3));
        assert_eq!(l.stats().evictions, 1);
        assert!(l.policy.dump()[2].1.is_empty());
        assert_eq!(l.frames().used(), 5);
    }

    #[test]
    fn ghost_ids_weigh_their_bytes_and_a_ghost_hit_enters_main() {
        // 1000 bytes: small 100, main 900, ghost 900. 1 and 2 (50 each) fill small; 3..=12 (90
        // each) go to main before the first eviction, filling the cache.
        let mut l = CacheLevel::weighted(S3FifoSizedPolicy::new(1000, 0.1, 0.9, 2, 16), 1000, 16);
        l.access_sized(1, 50, NEVER);
        l.access_sized(2, 50, NEVER);
        for b in 3..=12 {
            l.access_sized(b, 90, NEVER);
        }
        assert_eq!(l.policy.dump()[1].1.len(), 10);
        // 13 (60): main is within its 900 bytes, so small evicts 1, then 2, into the ghost.
        l.access_sized(13, 60, NEVER);
        assert_eq!(l.policy.dump()[2].1, vec![2, 1]);
        assert_eq!(l.policy.bytes[GHOST], 100);
        // 1 again: its ghost id is consumed, small evicts 13 (60 bytes) into the ghost, and 1
        // enters main.
        l.access_sized(1, 50, NEVER);
        l.check().unwrap();
        assert_eq!(l.policy.dump()[1].1.first(), Some(&1));
        assert_eq!(l.policy.dump()[2].1, vec![13, 2]);
        assert_eq!(l.policy.bytes[GHOST], 110);
    }
}
