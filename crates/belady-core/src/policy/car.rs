//! CAR: Clock with Adaptive Replacement.
//!
//! Sorav Bansal and Dharmendra S. Modha, "CAR: Clock with Adaptive Replacement", USENIX FAST
//! 2004, Figure 2. Implementations consulted for their differences (not copied): Caffeine
//! `CarPolicy.java` (through the project's reference notes) and libCacheSim `CAR.c` (read
//! directly; it adapts `p` before `replace()` and uses other directory-replacement conditions).
//!
//! Two clocks T1 (pages seen once recently) and T2 (seen at least twice), each page with a
//! reference bit, and two LRU ghost lists B1 and B2. In a clock the list's front is its tail
//! (where pages enter) and its back is its head (under the hand). A hit only sets the bit.
//! `replace()` turns the hand of T1 while |T1| >= max(1, p), else the hand of T2: a head page
//! with the bit clear is demoted to its ghost list's MRU end; with the bit set it is cleared and
//! the page goes to T2's tail. On a miss on a page in B1 (B2), `p` grows by max(1, |B2|/|B1|)
//! (shrinks by max(1, |B1|/|B2|)) *after* `replace()` has run, and the page enters T2's tail with
//! the bit clear; a page in neither enters T1's tail with the bit clear. Unlike ARC, the paper
//! adapts after replacement (the reference notes, pitfall 3).
//!
//! Directory replacement (the paper's lines 6-10: discard B1's LRU page when |T1|+|B1| = c, else
//! B2's when all four lists hold 2c, for a page in neither ghost list) is applied after the new
//! page is in place, as the trim to |T1|+|B1| <= c and then to 2c in total. With demand-only
//! traffic this discards exactly the paper's pages; see `arc.rs` for the argument.
//!
//! # Prefetching (the prefetching study's section 4 treats ARC and CAR alike)
//! - `InsertKind::Prefetch`: the page enters T1's tail with the bit clear, `p` does not move.
//!   If its id was in B1 or B2 it leaves the ghost list, still enters T1, and its first demand
//!   access moves it to T2's tail (bit clear), without adapting `p`.
//! - `Access::first_use` otherwise counts as the page's first reference: the page goes to T1's
//!   tail with the bit clear, as a demand miss would have put it (setting the bit instead would
//!   let the hand promote it to T2 as if it had been referenced twice).
//! - `Evicted::unused_prefetch`: the page is dropped without a ghost entry.
//!
//! # Documented choices (parameters)
//! - `delta` (`real`, default): `p` is real-valued as in the paper; `integer` truncates the
//!   quotient.
//! - `adapt` (`after`, default): adapt after `replace()` (the paper). `before` adapts first with
//!   the ghost sizes seen on arrival, as libCacheSim's `CAR` does.
//!
//! Pinned pages: the hand clears their bit and moves them like any page, but passes a pinned
//! page whose bit is clear (to the tail of its own clock) instead of demoting it. If pins stop the
//! hand from finding a victim within 4(|T1|+|T2|)+4 steps (it needs at most 2c+1 without pins),
//! the head-most unpinned page of T1, else of T2, is taken; with every page pinned, none is.

use super::arc::{trim_ghosts, Delta};
use super::lru::last_unpinned;
use super::registry::PolicySpec;
use super::structures::list::Lists;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;
use crate::error::Result;

const T1: usize = 0;
const T2: usize = 1;
const B1: usize = 2;
const B2: usize = 3;

/// Clock with Adaptive Replacement.
pub struct CarPolicy {
    lists: Lists,
    referenced: Vec<bool>,
    capacity: usize,
    p: f64,
    delta: Delta,
    adapt_before_replace: bool,
    /// Prefetched while in a ghost list and not yet demand-accessed.
    promote_on_use: Vec<bool>,
    /// With `adapt=before`: the target computed in `select_victim`, committed on insert.
    pending: Option<(Block, f64)>,
}

impl CarPolicy {
    /// CAR with the parameters in `spec`, for `capacity` resident pages over ids `0..universe`.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> Result<Self> {
        let delta = Delta::parse(spec)?;
        let adapt_before_replace = spec.choice("adapt", &["after", "before"])? == "before";
        Ok(CarPolicy {
            lists: Lists::new(4, universe),
            referenced: vec![false; universe],
            capacity,
            p: 0.0,
            delta,
            adapt_before_replace,
            promote_on_use: vec![false; universe],
            pending: None,
        })
    }

    /// The current target size of T1.
    pub fn p(&self) -> f64 {
        self.p
    }

    /// The reference bit of `b`.
    pub fn is_referenced(&self, b: Block) -> bool {
        self.referenced[b as usize]
    }

    #[inline]
    fn in_ghost(&self, b: Block) -> bool {
        matches!(self.lists.list_of(b), Some(B1) | Some(B2))
    }

    /// The target after a demand miss on `b`, which is in B1 or B2.
    #[inline]
    fn adapted(&self, b: Block) -> f64 {
        let (b1, b2) = (self.lists.len(B1), self.lists.len(B2));
        self.delta
            .adapted(self.p, self.capacity, b1, b2, self.lists.contains(B1, b))
    }

    /// The paper's `replace()` with target `p`, up to choosing the page to demote.
    fn replace(&mut self, p: f64, frames: &Frames) -> Option<Block> {
        let steps = 4 * (self.lists.len(T1) + self.lists.len(T2)) + 4;
        for _ in 0..steps {
            let t1 = self.lists.len(T1);
            let clock = if (t1 >= 1 && t1 as f64 >= p.max(1.0)) || self.lists.is_empty(T2) {
                T1
            } else {
                T2
            };
            let head = self.lists.back(clock)?;
            if self.referenced[head as usize] {
                self.referenced[head as usize] = false;
                self.lists.move_to_front(T2, head);
            } else if frames.is_pinned(head) {
                self.lists.move_to_front(clock, head);
            } else {
                return Some(head);
            }
        }
        last_unpinned(&self.lists, T1, frames).or_else(|| last_unpinned(&self.lists, T2, frames))
    }

    #[inline]
    fn trim_ghosts(&mut self) {
        trim_ghosts(&mut self.lists, self.capacity, |_| {});
    }
}

impl Policy for CarPolicy {
    fn name(&self) -> &'static str {
        "car"
    }

    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        if cx.first_use {
            let to = if std::mem::take(&mut self.promote_on_use[b as usize]) {
                T2
            } else {
                T1
            };
            self.referenced[b as usize] = false;
            self.lists.move_to_front(to, b);
            return;
        }
        self.referenced[b as usize] = true;
    }

    fn select_victim(&mut self, incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        let p = if self.adapt_before_replace && self.in_ghost(incoming) {
            let p = self.adapted(incoming);
            self.pending = Some((incoming, p));
            p
        } else {
            self.pending = None;
            self.p
        };
        let victim = self.replace(p, frames);
        if victim.is_none() {
            self.pending = None;
        }
        victim
    }

    fn forget_victim(&mut self) {
        self.pending = None;
    }

    #[inline]
    fn on_evict(&mut self, b: Block, ev: Evicted, _cx: &Access) {
        let from = self.lists.remove(b);
        self.referenced[b as usize] = false;
        self.promote_on_use[b as usize] = false;
        if ev.unused_prefetch {
            return;
        }
        match from {
            Some(T1) => self.lists.push_front(B1, b),
            Some(T2) => self.lists.push_front(B2, b),
            other => debug_assert!(false, "evicted page {b} was on list {other:?}"),
        }
    }

    #[inline]
    fn on_insert(&mut self, b: Block, kind: InsertKind, _cx: &Access) {
        let pending = self.pending.take();
        self.referenced[b as usize] = false;
        if self.in_ghost(b) {
            match kind {
                InsertKind::Demand => {
                    self.p = match pending {
                        Some((x, p)) if x == b => p,
                        _ => self.adapted(b),
                    };
                    self.lists.remove(b);
                    self.lists.push_front(T2, b);
                }
                InsertKind::Prefetch => {
                    self.lists.remove(b);
                    self.lists.push_front(T1, b);
                    self.promote_on_use[b as usize] = true;
                }
            }
        } else {
            self.lists.push_front(T1, b);
        }
        self.trim_ghosts();
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Err("its target p and list bounds count blocks")
    }

    fn len(&self) -> usize {
        self.lists.len(T1) + self.lists.len(T2)
    }

    fn check_invariants(&self, frames: &Frames) -> std::result::Result<(), String> {
        self.lists.check()?;
        check_same_residents(self.lists.iter(T1).chain(self.lists.iter(T2)), frames)?;
        let c = self.capacity;
        let [t1, t2, b1, b2] = [T1, T2, B1, B2].map(|l| self.lists.len(l));
        if t1 + t2 > c || t1 + b1 > c || t1 + t2 + b1 + b2 > c.saturating_mul(2) {
            return Err(format!(
                "list sizes break CAR's bounds: T1 {t1} T2 {t2} B1 {b1} B2 {b2}, c {c}"
            ));
        }
        if !(0.0..=c as f64).contains(&self.p) {
            return Err(format!("target p = {} outside [0, {c}]", self.p));
        }
        if self.pending.is_some() {
            return Err("a pending adaptation survived the step".into());
        }
        for b in 0..self.referenced.len().min(frames.universe()) as Block {
            let resident = frames.is_resident(b);
            if self.referenced[b as usize] && !resident {
                return Err(format!("non-resident page {b} keeps a reference bit"));
            }
            if resident && frames.is_unused_prefetch(b) {
                if !self.lists.contains(T1, b) || self.referenced[b as usize] {
                    return Err(format!(
                        "unused prefetched page {b} is not in T1 with bit 0"
                    ));
                }
            } else if self.promote_on_use[b as usize] {
                return Err(format!(
                    "page {b} awaits promotion but is not an unused prefetch"
                ));
            }
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        let mut out: Vec<(&'static str, Vec<Block>)> =
            [("t1", T1), ("t2", T2), ("b1", B1), ("b2", B2)]
                .into_iter()
                .map(|(name, l)| (name, self.lists.iter(l).collect()))
                .collect();
        let bits = self
            .lists
            .iter(T1)
            .chain(self.lists.iter(T2))
            .filter(|&b| self.referenced[b as usize])
            .collect();
        out.push(("referenced", bits));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::{CacheLevel, Outcome};
    use crate::policy::testutil::{pattern, run};
    use crate::policy::NEVER;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    fn car(params: &[(&str, &str)], capacity: usize, universe: usize) -> CarPolicy {
        let mut spec = PolicySpec::parse("car").unwrap();
        for (k, v) in params {
            spec.set(k, v).unwrap();
        }
        CarPolicy::from_spec(&spec, capacity, universe).unwrap()
    }

    fn lists(p: &CarPolicy) -> Vec<Vec<Block>> {
        p.dump().into_iter().take(4).map(|(_, v)| v).collect()
    }

    #[test]
    fn hand_worked_sequence() {
        // c = 2, clocks listed tail (newest) first. 1 1 sets 1's bit; 2 enters T1. 3: T1's hand
        // finds 1 referenced (to T2, bit cleared), then 2 unreferenced (to B1). 2 hits B1:
        // replace() demotes 3 first, then p = 0 + max(1, 0/2) = 1 and 2 enters T2. 1 hits (bit).
        // 4: |T1| = 0 < 1, T2's hand moves 1 to the tail, demotes 2 to B2. 3 hits B1: replace()
        // demotes 4 (|T1| = 1 >= 1), then p = 1 + max(1, 1/2) = 2. 5: T2's hand demotes 1; four
        // lists hold 2c, so B2's LRU 2 goes. 2 (forgotten): T2's hand demotes 3; |T1|+|B1| = c,
        // so B1's LRU 4 goes.
        let refs = [1, 1, 2, 3, 2, 1, 4, 3, 5, 2];
        assert_eq!(pattern(|| car(&[], 2, 6), 2, &refs), "mhmmmhmmmm");
        let level = run(car(&[], 2, 6), 2, &refs[..7]);
        assert_eq!(
            lists(&level.policy),
            vec![vec![4], vec![1], vec![3], vec![2]]
        );
        assert_eq!(level.policy.p(), 1.0);
        let level = run(car(&[], 2, 6), 2, &refs[..8]);
        assert_eq!(
            lists(&level.policy),
            vec![vec![], vec![3, 1], vec![4], vec![2]]
        );
        assert_eq!(level.policy.p(), 2.0);
        let level = run(car(&[], 2, 6), 2, &refs);
        assert_eq!(
            lists(&level.policy),
            vec![vec![2, 5], vec![], vec![], vec![3, 1]]
        );
        assert_eq!(level.policy.p(), 2.0);
    }

    #[test]
    fn adapting_before_replace_changes_the_victim() {
        // At the 8th reference (3, in B1) the paper runs replace() with p = 1 and demotes T1's 4;
        // adapting first (p = 2) makes T2's hand demote 1 instead.
        let refs = [1, 1, 2, 3, 2, 1, 4, 3];
        let level = run(car(&[("adapt", "before")], 2, 6), 2, &refs);
        assert_eq!(
            lists(&level.policy),
            vec![vec![4], vec![3], vec![], vec![1, 2]]
        );
        assert_eq!(level.policy.p(), 2.0);
    }

    #[test]
    fn bad_parameters_are_errors() {
        for (k, v) in [("delta", "1"), ("adapt", "later")] {
            let mut spec = PolicySpec::parse("car").unwrap();
            spec.set(k, v).unwrap();
            assert!(CarPolicy::from_spec(&spec, 4, 4).is_err(), "{k}={v}");
        }
    }

    #[test]
    fn unused_prefetch_evicted_then_demanded_is_not_a_ghost_hit() {
        // c = 2: 5 5 (bit set), prefetch 1. 2: the hand sends 5 to T2 and takes the unused 1,
        // which leaves no B1 entry; the demand for 1 is then a new page in T1.
        let mut level = CacheLevel::new(car(&[], 2, 6), 2, 6);
        level.access(5, NEVER);
        level.access(5, NEVER);
        assert!(level.prefetch(1, NEVER));
        level.access(2, NEVER);
        level.check().unwrap();
        assert_eq!(lists(&level.policy), vec![vec![2], vec![5], vec![], vec![]]);
        level.access(1, NEVER);
        level.check().unwrap();
        assert_eq!(
            lists(&level.policy),
            vec![vec![1], vec![5], vec![2], vec![]]
        );
        assert_eq!(level.policy.p(), 0.0);
    }

    #[test]
    fn first_use_of_a_prefetch_goes_to_t1_tail_unreferenced() {
        let mut level = CacheLevel::new(car(&[], 3, 4), 3, 4);
        level.prefetch(1, NEVER);
        level.access(2, NEVER);
        level.access(1, NEVER);
        level.check().unwrap();
        assert_eq!(lists(&level.policy)[0], vec![1, 2]);
        assert!(!level.policy.is_referenced(1));
        level.access(1, NEVER);
        assert!(level.policy.is_referenced(1));
    }

    #[test]
    fn prefetched_ghost_enters_t1_and_is_promoted_on_use() {
        // c = 2: 1 1 2 3 leaves T1 = [3], T2 = [1], B1 = [2]. Prefetching 2: the hand demotes 3
        // (|T1| = 1 >= 1), 2 leaves B1 for T1; its first demand access moves it to T2.
        let mut level = CacheLevel::new(car(&[], 2, 4), 2, 4);
        for b in [1, 1, 2, 3] {
            level.access(b, NEVER);
        }
        assert!(level.prefetch(2, NEVER));
        level.check().unwrap();
        assert_eq!(
            lists(&level.policy),
            vec![vec![2], vec![1], vec![3], vec![]]
        );
        level.access(2, NEVER);
        level.check().unwrap();
        assert_eq!(
            lists(&level.policy),
            vec![vec![], vec![2, 1], vec![3], vec![]]
        );
        assert_eq!(level.policy.p(), 0.0);
    }

    /// Figure 2 of the paper, literally (clocks: front = tail, back = head).
    struct Figure2 {
        c: usize,
        p: f64,
        delta: Delta,
        t1: VecDeque<(u32, bool)>,
        t2: VecDeque<(u32, bool)>,
        b1: VecDeque<u32>,
        b2: VecDeque<u32>,
    }

    impl Figure2 {
        fn replace(&mut self) {
            loop {
                if self.t1.len() as f64 >= self.p.max(1.0) {
                    let (h, bit) = self.t1.pop_back().unwrap();
                    if !bit {
                        self.b1.push_front(h);
                        return;
                    }
                    self.t2.push_front((h, false));
                } else {
                    let (h, bit) = self.t2.pop_back().unwrap();
                    if !bit {
                        self.b2.push_front(h);
                        return;
                    }
                    self.t2.push_front((h, false));
                }
            }
        }

        fn access(&mut self, x: u32) -> bool {
            for clock in [&mut self.t1, &mut self.t2] {
                if let Some(e) = clock.iter_mut().find(|e| e.0 == x) {
                    e.1 = true;
                    return true;
                }
            }
            let c = self.c;
            let in_ghost = self.b1.contains(&x) || self.b2.contains(&x);
            if self.t1.len() + self.t2.len() == c {
                self.replace();
                let total = self.t1.len() + self.t2.len() + self.b1.len() + self.b2.len();
                if !in_ghost && self.t1.len() + self.b1.len() == c {
                    self.b1.pop_back();
                } else if !in_ghost && total == c.saturating_mul(2) {
                    self.b2.pop_back();
                }
            }
            if let Some(i) = self.b1.iter().position(|&y| y == x) {
                self.p = (self.p + self.delta.step(self.b2.len(), self.b1.len())).min(c as f64);
                self.b1.remove(i);
                self.t2.push_front((x, false));
            } else if let Some(i) = self.b2.iter().position(|&y| y == x) {
                self.p = (self.p - self.delta.step(self.b1.len(), self.b2.len())).max(0.0);
                self.b2.remove(i);
                self.t2.push_front((x, false));
            } else {
                self.t1.push_front((x, false));
            }
            false
        }
    }

    proptest! {
        #[test]
        fn equals_the_papers_figure_2(
            cap in 1usize..7,
            integer in any::<bool>(),
            refs in proptest::collection::vec(0u32..14, 1..300),
        ) {
            let delta = if integer { Delta::Integer } else { Delta::Real };
            let params = [("delta", if integer { "integer" } else { "real" })];
            let mut model = Figure2 {
                c: cap,
                p: 0.0,
                delta,
                t1: VecDeque::new(),
                t2: VecDeque::new(),
                b1: VecDeque::new(),
                b2: VecDeque::new(),
            };
            let mut level = CacheLevel::new(car(&params, cap, 14), cap, 14);
            for &b in &refs {
                let hit = model.access(b);
                prop_assert_eq!(level.access(b, NEVER) == Outcome::Hit, hit);
                level.check().unwrap();
                let ids = |l: &VecDeque<(u32, bool)>| l.iter().map(|e| e.0).collect::<Vec<_>>();
                let want = vec![
                    ids(&model.t1),
                    ids(&model.t2),
                    model.b1.iter().copied().collect(),
                    model.b2.iter().copied().collect(),
                ];
                prop_assert_eq!(lists(&level.policy), want);
                for e in model.t1.iter().chain(model.t2.iter()) {
                    prop_assert_eq!(level.policy.is_referenced(e.0), e.1);
                }
                prop_assert_eq!(level.policy.p(), model.p);
            }
        }
    }

    proptest! {
        #[test]
        fn every_variant_keeps_the_contract(
            cap in 1usize..7,
            variant in 0usize..4,
            ops in crate::policy::arc::tests::ops(16),
        ) {
            let params: &[(&str, &str)] = match variant {
                0 => &[],
                1 => &[("delta", "integer")],
                2 => &[("adapt", "before")],
                _ => &[("adapt", "before"), ("delta", "integer")],
            };
            crate::policy::arc::tests::exercise(car(params, cap, 16), cap, &ops);
        }
    }
}
