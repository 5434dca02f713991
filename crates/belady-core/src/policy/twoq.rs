//! 2Q, full version: Johnson and Shasha, "2Q: A Low Overhead High Performance Buffer
//! Management Replacement Algorithm", VLDB 1994.
//!
//! Three queues over block ids:
//! - `A1in`, a FIFO of resident blocks seen once (front = newest);
//! - `Am`, an LRU of resident blocks re-referenced after leaving `A1in` (front = MRU);
//! - `A1out`, a FIFO of the *identifiers* of blocks paged out of `A1in` (front = newest).
//!
//! The paper's steps, as coded here:
//! - a hit in `Am` moves the block to the MRU end of `Am`;
//! - a hit in `A1in` changes nothing (the paper's way of absorbing correlated references);
//! - a miss on a block listed in `A1out` removes it from `A1out` and inserts it at the MRU end
//!   of `Am`; any other miss inserts at the front of `A1in`;
//! - `reclaimfor`: a free frame is used if there is one (the level only asks for a victim when
//!   it is full); otherwise, if `|A1in| > Kin` (strict) the back of `A1in` is paged out and its
//!   id goes to the front of `A1out`, dropping the back of `A1out` once it holds more than
//!   `Kout` ids; otherwise the LRU end of `Am` is paged out and is **not** remembered.
//!
//! `Kin = floor(kin * c)` and `Kout = floor(kout * c)`. The paper recommends 25 % and 50 % of
//! the frames (the `paper` preset); the prefetching study (Butt, Gniady and Hu) uses 25 % and
//! 100 % (the `study` preset).
//!
//! References consulted: the paper's pseudo-code as summarised in the project's reference
//! notes (section 2.5), Caffeine's `TwoQueuePolicy` (which carries the pseudo-code), the
//! prefetching study's section 4, and libCacheSim's `TwoQ.c` for the cross-check.
//!
//! Prefetching (the study's section 4): a prefetched block enters `A1in` like a new block, but
//! if its id is in `A1out` it is promoted into `Am` as a demand miss would be. Its first demand
//! access (`Access::first_use`) is an ordinary hit, so in `A1in` it stays where it is, "as if it
//! is being accessed for the first time". A prefetched block paged out of `A1in` before any
//! demand access (`Evicted::unused_prefetch`) is dropped without an `A1out` entry, so a later
//! demand access to it is an ordinary first-time miss.
//!
//! AccuSim (the study's simulator, the `accusim` preset) needs no parameter beyond the `study`
//! preset (Kin = c/4, Kout = c): its A1in hits do not move, prefetched blocks enter A1in or, when
//! their id is in A1out, Am (marked), Am evictions are not remembered, and unused prefetches
//! leave no A1out entry, all as coded here. It trims A1out only on misses for new blocks, not in
//! `reclaimfor`, so A1out can briefly hold Kout + 1 ids while an A1out hit pushes the victim
//! before the hit's own id leaves. Here that id leaves first, so the push never overflows and the
//! list holds the same ids afterwards: no parameter distinguishes the two.
//!
//! Documented choices:
//! - Pinned blocks (I/O in flight) are passed over: the victim is the back-most unpinned block of
//!   the list `reclaimfor` chooses; if that list holds only pinned blocks the other list's
//!   back-most unpinned block is taken (the paper has no pinning). The same fallback covers
//!   `|A1in| <= Kin` with `Am` empty, which the paper leaves undefined (possible only when
//!   `Kin >= c`). Every page-out from `A1in` that was demand-accessed is remembered in `A1out`.
//! - The missed block's id leaves `A1out` when its miss begins, before `reclaimfor` records the
//!   victim, so it neither counts towards `Kout` nor can be pushed out by the victim (libCacheSim
//!   does the same). If every frame is pinned and the access bypasses the cache, the id is put
//!   back at the newest end of `A1out`.
//! - libCacheSim's `TwoQ` caps `Am` at `c - Kin` as a separate LRU cache. That cap can only
//!   bind while `|A1in| < Kin`, and `A1out` (hence `Am`) receives nothing before `A1in` has
//!   grown past `Kin`, after which `A1in` never falls below `Kin` again; on demand-only traces the
//!   two therefore agree hit for hit (asserted in `tests/python/test_xcheck_twoq.py`).

use super::lru::last_unpinned;
use super::registry::PolicySpec;
use super::structures::list::Lists;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;
use crate::error::Result as CoreResult;

const A1IN: usize = 0;
const AM: usize = 1;
const A1OUT: usize = 2;

/// The full 2Q policy (A1in, A1out, Am).
pub struct TwoQPolicy {
    lists: Lists,
    kin: usize,
    kout: usize,
    /// A block whose id was taken off `A1out` when its miss began (before `reclaimfor`), to be
    /// inserted into `Am`.
    promote: Option<Block>,
}

impl TwoQPolicy {
    /// A 2Q with `A1in` threshold `kin` blocks and `A1out` bound `kout` ids.
    pub fn new(kin: usize, kout: usize, universe: usize) -> Self {
        TwoQPolicy {
            lists: Lists::new(3, universe),
            kin,
            kout,
            promote: None,
        }
    }

    /// Reads `kin` and `kout` (fractions of the cache) from `spec`.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> CoreResult<Self> {
        let kin = spec.f64("kin", 0.0, 1.0)?;
        let kout = spec.f64("kout", 0.0, 64.0)?;
        Ok(Self::new(
            (kin * capacity as f64).floor() as usize,
            (kout * capacity as f64).floor() as usize,
            universe,
        ))
    }

    /// The `A1in` threshold in blocks.
    pub fn kin(&self) -> usize {
        self.kin
    }

    /// The `A1out` bound in ids.
    pub fn kout(&self) -> usize {
        self.kout
    }
}

impl Policy for TwoQPolicy {
    fn name(&self) -> &'static str {
        "2q"
    }

    #[inline]
    fn on_hit(&mut self, b: Block, _cx: &Access) {
        // A1in hits, the first use of a prefetched block included, do not move.
        if self.lists.contains(AM, b) {
            self.lists.move_to_front(AM, b);
        }
    }

    #[inline]
    fn select_victim(&mut self, incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        // The paper tests `X in A1out` before `reclaimfor(X)`, so X's id leaves A1out first and
        // does not count towards Kout while A1in's victim is being remembered.
        if self.lists.contains(A1OUT, incoming) {
            self.lists.remove(incoming);
            self.promote = Some(incoming);
        }
        let (first, second) = if self.lists.len(A1IN) > self.kin {
            (A1IN, AM)
        } else {
            (AM, A1IN)
        };
        let victim = last_unpinned(&self.lists, first, frames)
            .or_else(|| last_unpinned(&self.lists, second, frames));
        if victim.is_none() {
            // Every frame is pinned and the access bypasses the cache: keep the id remembered.
            self.forget_victim();
        }
        victim
    }

    fn forget_victim(&mut self) {
        if let Some(x) = self.promote.take() {
            self.lists.push_front(A1OUT, x);
        }
    }

    #[inline]
    fn on_evict(&mut self, b: Block, ev: Evicted, _cx: &Access) {
        let from = self.lists.remove(b);
        if from == Some(A1IN) && !ev.unused_prefetch && self.kout > 0 {
            self.lists.push_front(A1OUT, b);
            if self.lists.len(A1OUT) > self.kout {
                self.lists.pop_back(A1OUT);
            }
        }
    }

    #[inline]
    fn on_insert(&mut self, b: Block, _kind: InsertKind, _cx: &Access) {
        // Demand misses and prefetches alike: a remembered id goes to Am, anything else to A1in.
        let promoted = self.promote.take() == Some(b);
        if promoted || self.lists.contains(A1OUT, b) {
            self.lists.remove(b);
            self.lists.push_front(AM, b);
        } else {
            self.lists.push_front(A1IN, b);
        }
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        // A level that weighs objects gets `twoq_sized` (the registry's `build_for`).
        Err("its A1in/A1out bounds count blocks")
    }

    fn len(&self) -> usize {
        self.lists.len(A1IN) + self.lists.len(AM)
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.lists.check()?;
        check_same_residents(self.lists.iter(A1IN).chain(self.lists.iter(AM)), frames)?;
        if self.lists.len(A1OUT) > self.kout {
            return Err(format!(
                "A1out holds {} ids, more than Kout = {}",
                self.lists.len(A1OUT),
                self.kout
            ));
        }
        if let Some(b) = self.lists.iter(A1OUT).find(|&b| frames.is_resident(b)) {
            return Err(format!("A1out lists resident block {b}"));
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        vec![
            ("a1in_new_to_old", self.lists.iter(A1IN).collect()),
            ("am_mru_to_lru", self.lists.iter(AM).collect()),
            ("a1out_new_to_old", self.lists.iter(A1OUT).collect()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::testutil::{pattern, run};

    fn q(kin: usize, kout: usize) -> TwoQPolicy {
        TwoQPolicy::new(kin, kout, 16)
    }

    #[test]
    fn hand_worked_sequence() {
        // c = 4, Kin = 1, Kout = 2.
        // 1 2 3 4   fill A1in = [4 3 2 1]
        // 1         A1in hit, no movement
        // 5         |A1in| = 4 > 1: page out 1 -> A1out [1]; A1in [5 4 3 2]
        // 1         in A1out (a miss): its id leaves A1out, page out 2 -> A1out [2];
        //           Am [1]; A1in [5 4 3]
        // 6         page out 3 -> A1out [3 2]; A1in [6 5 4]
        // 7         page out 4 -> A1out [4 3 2] > 2, drop 2 -> [4 3]; A1in [7 6 5]
        // 5         A1in hit, stays
        // 1         Am hit
        // 3         in A1out [4 3]: its id leaves first (A1out [4]), then page out 5 ->
        //           A1out [5 4] (nothing dropped); Am [3 1]; A1in [7 6]
        let refs = [1, 2, 3, 4, 1, 5, 1, 6, 7, 5, 1, 3];
        assert_eq!(pattern(|| q(1, 2), 4, &refs), "mmmmhmmmmhhm");
        let level = run(q(1, 2), 4, &refs);
        assert_eq!(
            level.policy.dump(),
            vec![
                ("a1in_new_to_old", vec![7, 6]),
                ("am_mru_to_lru", vec![3, 1]),
                ("a1out_new_to_old", vec![5, 4]),
            ]
        );
    }

    #[test]
    fn am_evictions_are_not_remembered_and_the_kin_test_is_strict() {
        // c = 3, Kin = 1, Kout = 3.
        // 1 2 3 -> A1in [3 2 1]; 4: page out 1 (A1out [1]); 1: page out 2 (A1out [2]), Am [1];
        // A1in [4 3]. 5: |A1in| = 2 > 1: page out 3 -> A1out [3 2]; A1in [5 4].
        // 2: page out 4 -> A1out [4 3]; Am [2 1]; A1in [5]. Now |A1in| = 1 = Kin (not > Kin).
        // 6: page out Am's LRU (1), not remembered; A1in [6 5].
        let refs = [1, 2, 3, 4, 1, 5, 2, 6];
        let level = run(q(1, 3), 3, &refs);
        assert_eq!(
            level.policy.dump(),
            vec![
                ("a1in_new_to_old", vec![6, 5]),
                ("am_mru_to_lru", vec![2]),
                ("a1out_new_to_old", vec![4, 3]),
            ]
        );
        // 1 left from Am, so it is a plain miss into A1in, not a promotion.
        let refs2 = [1, 2, 3, 4, 1, 5, 2, 6, 1];
        let level = run(q(1, 3), 3, &refs2);
        assert_eq!(level.policy.dump()[0].1, vec![1, 6]);
    }

    #[test]
    fn unused_prefetch_leaves_no_a1out_entry() {
        // c = 2, Kin = 0, Kout = 4. Prefetch 1, then demand 2 3: 1 is paged out unused.
        let mut level = CacheLevel::new(q(0, 4), 2, 8);
        level.prefetch(1, u64::MAX);
        level.access(2, u64::MAX);
        level.access(3, u64::MAX);
        level.check().unwrap();
        assert!(!level.frames().is_resident(1));
        assert_eq!(level.policy.dump()[2].1, Vec::<Block>::new());
        // 1 is demanded: an ordinary miss into A1in, not a promotion to Am.
        level.access(1, u64::MAX);
        assert_eq!(level.policy.dump()[0].1, vec![1, 3]);
        assert!(level.policy.dump()[1].1.is_empty());
    }

    #[test]
    fn used_prefetch_stays_in_a1in_and_is_remembered() {
        let mut level = CacheLevel::new(q(0, 4), 2, 8);
        level.prefetch(1, u64::MAX);
        level.access(2, u64::MAX);
        assert_eq!(level.access(1, u64::MAX), crate::cache::level::Outcome::Hit);
        assert_eq!(level.policy.dump()[0].1, vec![2, 1]);
        level.access(3, u64::MAX); // pages out 1 (used), remembered
        assert_eq!(level.policy.dump()[2].1, vec![1]);
        // A prefetch of a remembered block promotes it to Am (the study's rule).
        level.prefetch(1, u64::MAX);
        assert_eq!(level.policy.dump()[1].1, vec![1]);
        level.check().unwrap();
    }

    #[test]
    fn from_spec_reads_presets_and_rejects_bad_values() {
        use crate::policy::registry::{PolicySpec, Preset};
        let mut spec = PolicySpec::parse("2q").unwrap();
        let p = TwoQPolicy::from_spec(&spec, 100, 10).unwrap();
        assert_eq!((p.kin(), p.kout()), (25, 50));
        spec.preset = Preset::Study;
        let p = TwoQPolicy::from_spec(&spec, 100, 10).unwrap();
        assert_eq!((p.kin(), p.kout()), (25, 100));
        spec.set("kin", "1.5").unwrap();
        assert!(TwoQPolicy::from_spec(&spec, 100, 10).is_err());
        spec.set("kin", "abc").unwrap();
        assert!(TwoQPolicy::from_spec(&spec, 100, 10).is_err());
        assert_eq!(PolicySpec::parse("twoq").unwrap().info.name, "2q");
    }
}
