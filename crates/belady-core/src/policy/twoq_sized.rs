//! 2Q over objects of different sizes, as libCacheSim's `TwoQ.c` (libcachesim 0.3.5) runs it:
//! A1in, A1out and Am each have a budget in units (bytes in the objects model):
//! `Kin = floor(kin * c)` for A1in, `Kout = floor(kout * c)` for A1out's remembered ids (each
//! weighing the size it had), and `c - Kin` for Am.
//!
//! libCacheSim's steps, followed here:
//! - A hit in A1in changes nothing; a hit in Am moves the object to Am's MRU end.
//! - A miss first takes the object's id off A1out (a ghost hit), also when the object is then not
//!   admitted. An object larger than `Kin` never enters (a miss, counted as rejected), even when
//!   the cache has room.
//! - While the missed object does not fit: if A1in holds more than `Kin` units, A1in's oldest
//!   object leaves and its id enters A1out (A1out's oldest ids leave until it fits in `Kout`; an
//!   object larger than `Kout` is not remembered); otherwise Am's LRU object leaves, forgotten.
//! - A ghost hit enters Am, which first evicts its own LRU objects until it fits in `c - Kin`
//!   (evictions after the insertion's room was made: the level applies them from
//!   [`Policy::take_pending`]); any other miss enters A1in.

use std::collections::VecDeque;

use super::registry::PolicySpec;
use super::structures::weighted_lists::WeightedLists;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Pending, Policy};
use crate::cache::frames::Frames;
use crate::error::Result as CoreResult;

const A1IN: usize = 0;
const AM: usize = 1;
const A1OUT: usize = 2;

/// 2Q with its three budgets in units (libCacheSim's byte-based `TwoQ`).
pub struct TwoQSizedPolicy {
    /// A1in, Am and A1out, each object (and remembered id) weighing the units it entered with.
    lists: WeightedLists,
    kin: u64,
    kout: u64,
    am_budget: u64,
    /// The missed object whose id was just taken off A1out.
    ghost_hit: Option<Block>,
    pending: VecDeque<Pending>,
}

impl TwoQSizedPolicy {
    /// A 2Q of `capacity` units with A1in share `kin` and A1out share `kout`.
    pub fn new(kin: f64, kout: f64, capacity: usize, universe: usize) -> Self {
        // libCacheSim converts `c * ratio` to a whole number by truncation.
        let kin = (capacity as f64 * kin) as u64;
        TwoQSizedPolicy {
            lists: WeightedLists::new(3, universe),
            kin,
            kout: (capacity as f64 * kout) as u64,
            am_budget: capacity as u64 - kin.min(capacity as u64),
            ghost_hit: None,
            pending: VecDeque::new(),
        }
    }

    /// From the registry's `kin` and `kout` shares, for a level of `capacity` units.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> CoreResult<Self> {
        let kin = spec.f64("kin", 0.0, 1.0)?;
        let kout = spec.f64("kout", 0.0, 64.0)?;
        Ok(Self::new(kin, kout, capacity, universe))
    }

    /// libCacheSim's lookup of a missed object: its id leaves A1out.
    fn look_up(&mut self, b: Block) {
        self.ghost_hit = None;
        if self.lists.contains(A1OUT, b) {
            self.lists.remove(b);
            self.ghost_hit = Some(b);
        }
    }

    /// The id of an object paged out of A1in enters A1out, if it fits there at all.
    fn remember(&mut self, b: Block) {
        let size = self.lists.weight(b);
        if size > self.kout {
            return;
        }
        while self.lists.units(A1OUT) + size > self.kout {
            if self.lists.pop_back(A1OUT).is_none() {
                break;
            }
        }
        self.lists.push_front(A1OUT, b);
    }
}

impl Policy for TwoQSizedPolicy {
    fn name(&self) -> &'static str {
        "2q"
    }

    fn on_hit(&mut self, b: Block, _cx: &Access) {
        if self.lists.contains(AM, b) {
            self.lists.move_to_front(AM, b);
        }
    }

    fn before_insert(&mut self, b: Block, _frames: &Frames, cx: &Access) -> bool {
        self.look_up(b);
        cx.size <= self.kin
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        let from = if self.lists.units(A1IN) > self.kin || self.lists.is_empty(AM) {
            A1IN
        } else {
            AM
        };
        // Pinned blocks do not occur in the objects model; a pinned victim is refused.
        self.lists.back(from).filter(|&v| !frames.is_pinned(v))
    }

    fn on_evict(&mut self, b: Block, ev: Evicted, _cx: &Access) {
        // Am's own evictions (queued on insertion) are already off the lists.
        if self.lists.remove(b) == Some(A1IN) && !ev.unused_prefetch {
            self.remember(b);
        }
    }

    fn on_insert(&mut self, b: Block, _kind: InsertKind, cx: &Access) {
        self.lists.set_weight(b, cx.size);
        if self.ghost_hit.take() == Some(b) {
            while self.lists.units(AM) + cx.size > self.am_budget {
                let Some(old) = self.lists.pop_back(AM) else {
                    break;
                };
                self.pending.push_back(Pending::Evict(old));
            }
            self.lists.push_front(AM, b);
        } else {
            self.lists.push_front(A1IN, b);
        }
    }

    fn on_unplaced_miss(&mut self, b: Block, _cx: &Access) {
        self.look_up(b);
        self.ghost_hit = None;
    }

    fn take_pending(&mut self) -> Option<Pending> {
        self.pending.pop_front()
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    fn len(&self) -> usize {
        self.lists.len(A1IN) + self.lists.len(AM)
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.lists.check()?;
        check_same_residents(self.lists.iter(A1IN).chain(self.lists.iter(AM)), frames)?;
        if frames.is_weighted() && frames.used() != self.lists.units(A1IN) + self.lists.units(AM) {
            return Err("A1in and Am do not hold the frame table's units".into());
        }
        if self.lists.units(A1OUT) > self.kout || self.lists.units(AM) > self.am_budget {
            return Err("A1out or Am over its budget".into());
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        vec![
            ("A1in", self.lists.iter(A1IN).collect()),
            ("Am", self.lists.iter(AM).collect()),
            ("A1out", self.lists.iter(A1OUT).collect()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::{CacheLevel, Outcome, NO_ORACLE};

    /// 100 bytes: A1in 25, A1out 50, Am 75.
    fn level() -> CacheLevel<TwoQSizedPolicy> {
        CacheLevel::weighted(TwoQSizedPolicy::new(0.25, 0.5, 100, 16), 100, 16)
    }

    fn access(level: &mut CacheLevel<TwoQSizedPolicy>, b: Block, size: u32) -> Outcome {
        let outcome = level.access_sized(b, size, NO_ORACLE);
        level.check().unwrap_or_else(|e| panic!("after {b}: {e}"));
        outcome
    }

    #[test]
    fn objects_over_the_a1in_budget_never_enter() {
        let mut level = level();
        assert_eq!(access(&mut level, 1, 26), Outcome::Bypass);
        assert_eq!(access(&mut level, 1, 25), Outcome::Miss);
        assert_eq!(level.stats().rejected, 1);
    }

    #[test]
    fn a1in_pages_out_to_a1out_and_a_ghost_hit_enters_am_evicting_within_am() {
        let mut level = level();
        // A1in over its 25 bytes pages out its oldest object into A1out.
        for b in 1..=5 {
            access(&mut level, b, 20);
        }
        assert_eq!(level.policy.dump()[0].1, vec![5, 4, 3, 2, 1]);
        access(&mut level, 6, 20);
        assert_eq!(level.policy.dump()[2], ("A1out", vec![1]));
        // Ghost hits on 1, 2, 3 enter Am and fill its 75 bytes; A1in pages out 2, 3, 4, 5.
        for b in 1..=3 {
            assert_eq!(access(&mut level, b, 25), Outcome::Miss);
        }
        assert_eq!(level.policy.dump()[1], ("Am", vec![3, 2, 1]));
        assert_eq!(level.policy.dump()[2], ("A1out", vec![5, 4]));
        assert_eq!((level.frames().used(), level.stats().evictions), (95, 5));
        // A 5-byte ghost hit fits in the cache but not in Am's 75 bytes: Am evicts its LRU
        // object 1 when 4 enters.
        assert_eq!(access(&mut level, 4, 5), Outcome::Miss);
        assert_eq!(level.policy.dump()[1], ("Am", vec![4, 3, 2]));
        assert!(!level.frames().is_resident(1));
        assert_eq!(level.last_victim().map(|v| v.block), Some(1));
        assert_eq!((level.frames().used(), level.stats().evictions), (75, 6));
    }
}
