//! AccuSim's LRU-K (the study's `sim/lru2.cc`): the paper's LRU-K ([`LruKPolicy`]) with
//! AccuSim's departures, built by the builder when any of `lru-k.ties=heap`,
//! `lru-k.ineligible=entry`, `lru-k.first_use=correlated` or `lru-k.prefetch_time=trigger` is set
//! (the `accusim` preset sets all four). Each departure is on or off alone:
//!
//! - `ties=heap`: eligible blocks live in AccuSim's binary max-heap keyed by `MAXINT - HIST(K)`
//!   with an insertion stamp (`StampedHeap`, `compat/accusim/stamped_heap.rs`): sift-up compares keys only, sift-down prefers the
//!   older stamp among equal keys, removal fills the hole with the last entry and sifts it down
//!   then up. Equal `HIST(K)` leave mostly in promotion order (the paper's type: oldest
//!   `HIST(1)` first).
//! - `ineligible=entry`: the ineligible list keeps order of entry (a correlated reference does
//!   not move a block); the scan that promotes blocks walks it from the newest entry, and the
//!   no-eligible fallback evicts the earliest entered block.
//! - `first_use=correlated`: the first use of a prefetched block sets `HIST(1) = now` only if
//!   unset and `LAST = now`, and leaves the block where it is (an eligible one stays on the
//!   heap, and later correlated references leave it there); retained history is not shifted.
//! - `prefetch_time=trigger`: a prefetch carries the time of the demand reference that
//!   triggered it (AccuSim's clock moves only on demand references), and so does the promotion
//!   scan that makes room for it.
//!
//! The history (`HIST`, `LAST`, the retained list) is the paper type's, kept by its own code;
//! this type adds the entry order and the stamped heap, and decides where a block goes. The
//! promotion scan runs before each reference is applied, as in AccuSim (the heap's operations
//! depend on their order).

use crate::cache::frames::Frames;
use crate::compat::accusim::stamped_heap::StampedHeap;
use crate::error::Result;
use crate::policy::lru::last_unpinned;
use crate::policy::lruk::{LruKPolicy, ACCUSIM_VALUES, ELIGIBLE, INELIGIBLE};
use crate::policy::registry::PolicySpec;
use crate::policy::structures::list::Lists;
use crate::policy::{Access, Block, Evicted, InsertKind, Policy};
use std::cmp::Reverse;

/// The paper's LRU-K with AccuSim's tie order, entry-ordered ineligible list, correlated first
/// use and/or trigger-time prefetches.
pub struct AccusimLruK {
    /// The paper's history and lists, which this variant drives.
    lruk: LruKPolicy,
    /// `ties=heap`: eligible blocks in AccuSim's stamped heap instead of the paper's order.
    heap_ties: bool,
    /// `ineligible=entry`: the ineligible list is kept in order of entry.
    ineligible_by_entry: bool,
    /// `first_use=correlated`: a prefetch's first use is a correlated reference in place.
    first_use_correlated: bool,
    /// `prefetch_time=trigger`: a prefetch happens at the time of its triggering reference.
    prefetch_at_trigger: bool,
    /// Ineligible blocks in order of entry, newest first (`ineligible=entry` only).
    entry: Lists,
    /// Order of entry onto the ineligible list (`ineligible=entry` only).
    entered: Vec<u64>,
    entries: u64,
    /// Eligible blocks under `ties=heap`.
    stamped: StampedHeap,
    /// Scratch: blocks promoted by one scan.
    batch: Vec<Block>,
}

impl AccusimLruK {
    /// Whether `spec` asks for one of AccuSim's LRU-K departures (and so for this type).
    pub fn wanted(spec: &PolicySpec) -> bool {
        ACCUSIM_VALUES
            .iter()
            .any(|&(key, _, accusim)| spec.raw(key) == accusim)
    }

    /// AccuSim's LRU-K over the paper's `lruk`, with the named departures on.
    pub fn new(
        lruk: LruKPolicy,
        heap_ties: bool,
        ineligible_by_entry: bool,
        first_use_correlated: bool,
        prefetch_at_trigger: bool,
    ) -> Self {
        let universe = lruk.last.len();
        AccusimLruK {
            lruk,
            heap_ties,
            ineligible_by_entry,
            first_use_correlated,
            prefetch_at_trigger,
            entry: Lists::new(1, universe),
            entered: vec![0; universe],
            entries: 0,
            stamped: StampedHeap::new(universe),
            batch: Vec::new(),
        }
    }

    /// AccuSim's LRU-K with the parameters in `spec`, for `capacity` blocks over ids
    /// `0..universe`.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> Result<Self> {
        let mut on = [false; 4];
        for (i, (key, paper, accusim)) in ACCUSIM_VALUES.into_iter().enumerate() {
            on[i] = spec.choice(key, &[paper, accusim])? == accusim;
        }
        let lruk = LruKPolicy::from_paper_params(spec, capacity, universe)?;
        let [heap, entry, first_use, trigger] = on;
        Ok(Self::new(lruk, heap, entry, first_use, trigger))
    }

    /// The paper's state underneath (history, `LAST`, retained list).
    pub fn paper(&self) -> &LruKPolicy {
        &self.lruk
    }

    /// Puts resident `b`, just referenced or inserted, at the new end of the ineligible list.
    /// Under `ineligible=entry` a block already there keeps its entry position.
    #[inline]
    fn make_ineligible(&mut self, b: Block) {
        let already = self.lruk.lists.contains(INELIGIBLE, b);
        if !already {
            self.stamped.remove(b);
        }
        self.lruk.make_ineligible(b);
        if self.ineligible_by_entry && !already {
            self.entries += 1;
            self.entered[b as usize] = self.entries;
            self.entry.push_front(0, b);
        }
    }

    /// Moves every block whose last reference is more than CRP before `now` to the eligible set.
    /// Under `ineligible=entry` the blocks of one scan enter it newest entry first (AccuSim walks
    /// its list from the MRU end), otherwise oldest `LAST` first.
    #[inline]
    fn promote_eligible(&mut self, now: u64) {
        let mut batch = std::mem::take(&mut self.batch);
        self.lruk.take_newly_eligible(now, &mut batch);
        if !batch.is_empty() {
            if self.ineligible_by_entry {
                for &b in &batch {
                    self.entry.remove(b);
                }
                let entered = &self.entered;
                batch.sort_unstable_by_key(|&b| Reverse(entered[b as usize]));
            }
            if self.heap_ties {
                let k = self.lruk.k;
                for &b in &batch {
                    self.lruk.lists.push_front(ELIGIBLE, b);
                    // The heap is a max-heap: AccuSim keys it by MAXINT - HIST(K).
                    let hk = self.lruk.hist[b as usize * k + k - 1];
                    self.stamped.insert(b, u64::MAX - hk);
                }
            } else {
                self.lruk.make_eligible(&batch);
            }
        }
        self.batch = batch;
    }
}

impl Policy for AccusimLruK {
    fn name(&self) -> &'static str {
        "lru-k"
    }

    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        let now = cx.tick + 1;
        self.promote_eligible(now);
        if cx.first_use && self.first_use_correlated {
            // AccuSim: HIST(1) only if the block has none, LAST = now, no list movement.
            let l = &mut self.lruk;
            let i = b as usize;
            if l.hist[i * l.k] == 0 {
                l.hist[i * l.k] = now;
            }
            l.last[i] = now;
            if l.lists.contains(INELIGIBLE, b) {
                l.lists.move_to_front(INELIGIBLE, b);
            }
            return;
        }
        let correlated = self.lruk.reference(b, now, cx.first_use);
        // A block can be eligible at a correlated reference only after a correlated first use,
        // and then it stays eligible, as in AccuSim.
        if !(correlated && self.lruk.lists.contains(ELIGIBLE, b)) {
            self.make_ineligible(b);
        }
    }

    #[inline]
    fn select_victim(&mut self, incoming: Block, frames: &Frames, cx: &Access) -> Option<Block> {
        self.lruk.claim_retained(incoming);
        let now = if cx.prefetch && self.prefetch_at_trigger {
            cx.tick.max(1)
        } else {
            cx.tick + 1
        };
        self.promote_eligible(now);
        let eligible = if self.heap_ties {
            self.stamped.top_unpinned(frames)
        } else {
            self.lruk.eligible_victim(frames)
        };
        let victim = eligible.or_else(|| {
            if self.ineligible_by_entry {
                last_unpinned(&self.entry, 0, frames)
            } else {
                last_unpinned(&self.lruk.lists, INELIGIBLE, frames)
            }
        });
        if victim.is_none() {
            // Bypass (every frame pinned): the history stays retained.
            self.lruk.forget_victim();
        }
        victim
    }

    fn forget_victim(&mut self) {
        self.lruk.forget_victim();
    }

    #[inline]
    fn on_evict(&mut self, b: Block, ev: Evicted, cx: &Access) {
        self.entry.remove(b);
        self.stamped.remove(b);
        self.lruk.on_evict(b, ev, cx);
    }

    #[inline]
    fn on_insert(&mut self, b: Block, kind: InsertKind, cx: &Access) {
        let now = if kind == InsertKind::Prefetch && self.prefetch_at_trigger {
            cx.tick.max(1)
        } else {
            cx.tick + 1
        };
        self.lruk.enter(b, kind, now);
        self.make_ineligible(b);
        self.promote_eligible(now);
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        self.lruk.weighs_objects()
    }

    fn len(&self) -> usize {
        self.lruk.len()
    }

    fn check_invariants(&self, frames: &Frames) -> std::result::Result<(), String> {
        self.lruk.check_history(frames)?;
        self.entry.check()?;
        let eligible = self.lruk.lists.len(ELIGIBLE);
        if self.heap_ties {
            if self.stamped.len() != eligible {
                return Err("stamped heap and eligible list differ in size".into());
            }
            self.stamped.check()?;
            if let Some(b) = self
                .stamped
                .blocks()
                .find(|&b| !self.lruk.lists.contains(ELIGIBLE, b))
            {
                return Err(format!(
                    "stamped heap holds block {b}, which is not eligible"
                ));
            }
        } else {
            if self.stamped.len() != 0 {
                return Err("the stamped heap is used without ties=heap".into());
            }
            self.lruk.check_heap()?;
        }
        if self.ineligible_by_entry {
            if self.entry.len(0) != self.lruk.lists.len(INELIGIBLE) {
                return Err("entry list and ineligible list differ".into());
            }
            let mut prev = u64::MAX;
            for b in self.entry.iter(0) {
                if !self.lruk.lists.contains(INELIGIBLE, b) || self.entered[b as usize] >= prev {
                    return Err(format!("entry list out of order at block {b}"));
                }
                prev = self.entered[b as usize];
            }
        } else if self.entry.len(0) != 0 {
            return Err("the entry list is used without ineligible=entry".into());
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        let mut out = self.lruk.dump();
        if self.heap_ties {
            out[0].1 = self.stamped.by_key();
        }
        if self.ineligible_by_entry {
            out[1].1 = self.entry.iter(0).collect();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::testutil::run;

    fn accusim(k: usize, crp: u64, retain: usize, universe: usize) -> AccusimLruK {
        AccusimLruK::new(
            LruKPolicy::new(k, crp, retain, universe),
            true,
            true,
            true,
            true,
        )
    }

    #[test]
    fn ineligible_entry_order_survives_correlated_references() {
        // CRP 5, 2 frames: t1 1, t2 2, t3 1 (correlated), t4 3: nothing is eligible.
        // By LAST the LRU block is 2; AccuSim's list keeps 1 where it entered, so 1 goes.
        let refs = [1, 2, 1, 3];
        let level = run(LruKPolicy::new(2, 5, 2, 4), 2, &refs);
        assert!(level.frames().is_resident(1) && !level.frames().is_resident(2));
        let level = run(accusim(2, 5, 2, 4), 2, &refs);
        assert!(!level.frames().is_resident(1) && level.frames().is_resident(2));
        assert_eq!(level.policy.dump()[1].1, vec![3, 2]);
    }

    #[test]
    fn accusim_prefetch_and_first_use() {
        // K 2, CRP 0, 2 frames, 4 retained histories; the same sequence in both modes:
        // t1 1, t2 1 (HIST (2, 1)), t3 2, t4 3 evicts 2 (HIST(2) 0 < 1), t5 4 evicts 3,
        // then 2 (retained history (3, 0)) is prefetched, evicting 4; t6 uses 2; t7 5 misses.
        fn steps<P: Policy>(
            p: P,
            paper: impl Fn(&P) -> &LruKPolicy,
        ) -> (u64, Vec<u64>, CacheLevel<P>) {
            let mut level = CacheLevel::new(p, 2, 8);
            for b in [1, 1, 2, 3, 4] {
                level.access(b, u64::MAX);
            }
            level.prefetch(2, u64::MAX);
            let last = paper(&level.policy).last(2);
            level.access(2, u64::MAX);
            let hist = paper(&level.policy).hist(2).to_vec();
            level.access(5, u64::MAX);
            level.check().unwrap();
            (last, hist, level)
        }
        // Paper: the prefetch is stamped 6 (the next reference's time), the first use shifts
        // the retained history: (6, 3). At t7, 2 (HIST(2) 3) outranks 1 (HIST(2) 1): 1 goes.
        let (last, hist, level) = steps(LruKPolicy::new(2, 0, 4, 8), |p| p);
        assert_eq!((last, hist), (6, vec![6, 3]));
        assert!(!level.frames().is_resident(1) && level.frames().is_resident(2));
        // AccuSim: the prefetch happens at t5, the triggering reference's time, and so does its
        // scan: 4 (LAST 5) is not eligible yet, so the victim is 1. The prefetch is stamped 5.
        // At t6 the scan makes 4 and then 2 eligible (entry order, newest first: 2 is stamped
        // first; both keys HIST(2) = 0); the first use only sets LAST = 6 and leaves 2 on the
        // heap with its retained history (3, 0). At t7 it is the heap top (older stamp).
        let (last, hist, level) = steps(accusim(2, 0, 4, 8), AccusimLruK::paper);
        assert_eq!((last, hist), (5, vec![3, 0]));
        let resident: Vec<bool> = [1, 2, 4, 5]
            .iter()
            .map(|&b| level.frames().is_resident(b))
            .collect();
        assert_eq!(resident, vec![false, false, true, true]);
    }

    #[test]
    fn the_paper_type_refuses_accusims_values_and_the_preset_builds_this_one() {
        use crate::cache::builder::build;
        use crate::cache::builder::TypeName;
        use crate::policy::registry::Preset;
        let mut spec = PolicySpec::parse("lru-k").unwrap();
        assert!(build(&spec, 4, 4, TypeName)
            .unwrap()
            .ends_with("policy::lruk::LruKPolicy"));
        for (key, _, value) in ACCUSIM_VALUES {
            spec.params.clear();
            spec.set(key, value).unwrap();
            let err = LruKPolicy::from_spec(&spec, 4, 4)
                .err()
                .unwrap()
                .to_string();
            assert!(
                err.contains(&format!("lru-k.{key}={value}")) && err.contains("AccusimLruK"),
                "{err}"
            );
            assert!(build(&spec, 4, 4, TypeName)
                .unwrap()
                .ends_with("AccusimLruK"));
        }
        // A misspelt value is still refused by name.
        spec.params.clear();
        spec.set("ties", "heep").unwrap();
        let err = build(&spec, 4, 4, TypeName).unwrap_err().to_string();
        assert!(err.contains("lru-k.ties=heep"), "{err}");
        spec.params.clear();
        spec.preset = Preset::Accusim;
        assert!(build(&spec, 4, 4, TypeName)
            .unwrap()
            .ends_with("AccusimLruK"));
        let p = AccusimLruK::from_spec(&spec, 100, 10).unwrap();
        assert!(
            p.heap_ties && p.ineligible_by_entry && p.first_use_correlated && p.prefetch_at_trigger
        );
        assert_eq!(p.paper().retained_capacity(), 100);
    }

    proptest::proptest! {
        #[test]
        fn every_departure_alone_keeps_the_contract(
            cap in 1usize..7,
            departure in 0usize..5,
            crp in 0u64..3,
            ops in crate::policy::arc::tests::ops(16),
        ) {
            // One departure at a time (0..4), then all four (4).
            let on = |i: usize| departure == i || departure == 4;
            let p = AccusimLruK::new(LruKPolicy::new(2, crp, 3, 16), on(0), on(1), on(2), on(3));
            crate::policy::arc::tests::exercise(p, cap, &ops);
        }
    }
}
