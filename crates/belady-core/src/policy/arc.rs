//! ARC: Adaptive Replacement Cache.
//!
//! Nimrod Megiddo and Dharmendra S. Modha, "ARC: A Self-Tuning, Low Overhead Replacement Cache",
//! USENIX FAST 2003, Figure 4. Implementations consulted for their differences (not copied):
//! libCacheSim `ARC.c`, Caffeine `ArcPolicy.java` (both as summarised in the project's reference
//! notes, and libCacheSim's file read directly), and AccuSim `sim/arc.cc` through those notes.
//!
//! Four LRU lists over block ids: T1 (resident, referenced once recently), T2 (resident,
//! referenced at least twice), and their ghosts B1 and B2 (identifiers only). A target size `p`
//! for T1 moves up on a hit in B1 and down on a hit in B2. Lists are kept MRU at the front.
//!
//! The paper's case IV deletes a ghost before REPLACE (B1's LRU when |T1|+|B1| = c, else B2's
//! LRU when all four lists hold 2c). Here the ghost lists are trimmed after the new block is in
//! place (first B1 down to |T1|+|B1| <= c, then B2 down to 2c in total). On demand-only traffic
//! this deletes exactly the entries the paper deletes (the LRU end is the same before and after
//! REPLACE, since REPLACE only adds at the MRU end of a non-empty list); it differs only where
//! prefetching removes an entry the paper would have had to make room for, in which case no
//! ghost is discarded needlessly. The paper's "|T1| = c: evict T1's LRU without a ghost" is the
//! same rule: that block lands in an empty B1 and is trimmed at once.
//!
//! # Prefetching (the prefetching study's section 4, Butt, Gniady and Hu, SIGMETRICS 2005)
//! - `InsertKind::Prefetch` puts the block at T1's MRU end, "not yet accessed"; `p` does not move.
//! - A prefetched block whose id is in B1 or B2 leaves the ghost list and goes to T1, not T2
//!   (`ghost_prefetch=defer`); if it is then demand-accessed ("prefetched correctly") that first
//!   access moves it to T2's MRU end. `p` is not adapted for it: a prefetch is not a reference
//!   and the text adapts nothing. `ghost_prefetch=forget` instead treats it as a new block.
//! - `Access::first_use` on any other prefetched block counts as its first reference: the
//!   block stays in T1 and moves to T1's MRU end.
//! - `Evicted::unused_prefetch`: the block is dropped without a B1 entry.
//!
//! The victim for a prefetch of a ghost block is chosen with the `p` a demand hit in that ghost
//! would have produced, although `p` itself is left unchanged afterwards.
//!
//! # Documented choices (parameters)
//! - `p0` (fraction of the cache, default 0): the paper starts at 0; AccuSim at c/2 (`0.5`).
//! - `delta` (`real`, default): the paper's δ = max(|B2|/|B1|, 1) in real arithmetic, `p` real.
//!   This is also what libCacheSim's `ARC` does (libcachesim 0.3.5; equal hit for hit). `integer`
//!   truncates the quotient and keeps `p` whole, as Caffeine, AccuSim and libCacheSim's 2020 code
//!   do.
//! - `ghost_prefetch` (`defer`, default; `forget`), above.
//!
//! AccuSim's own values of the other parameters (`replace=accusim`, `first_use=stay`,
//! `ghost_prefetch=unmarked`, `directory=accusim`) are another type, `AccusimArc` in
//! `compat/accusim/arc.rs`, which the builder makes instead of this one when any is set (the
//! `accusim` preset sets all four, with `p0=0.5 delta=integer`).
//!
//! Pinned blocks are passed over: REPLACE takes the LRU-most unpinned block of the list it
//! chose, else of the other list, else reports that every block is pinned.

use super::lru::last_unpinned;
use super::registry::PolicySpec;
use super::structures::list::Lists;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;
use crate::error::{Error, Result};

pub(crate) const T1: usize = 0;
pub(crate) const T2: usize = 1;
pub(crate) const B1: usize = 2;
pub(crate) const B2: usize = 3;

/// How the adaptation step δ is computed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Delta {
    /// δ = max(a/b, 1) in real arithmetic (the paper).
    Real,
    /// δ = max(⌊a/b⌋, 1) and `p` kept whole (libCacheSim, Caffeine, AccuSim).
    Integer,
}

impl Delta {
    pub(crate) fn parse(spec: &PolicySpec) -> Result<Delta> {
        Ok(match spec.choice("delta", &["real", "integer"])? {
            "real" => Delta::Real,
            _ => Delta::Integer,
        })
    }

    /// The step for a hit in a ghost list of length `mine` while the other holds `other`.
    #[inline]
    pub(crate) fn step(self, other: usize, mine: usize) -> f64 {
        debug_assert!(mine > 0);
        match self {
            Delta::Real => (other as f64 / mine as f64).max(1.0),
            Delta::Integer => (other / mine).max(1) as f64,
        }
    }

    /// The target after a demand miss in a ghost list: up by the step on a B1 hit, down on a B2
    /// hit, kept within `[0, capacity]`.
    #[inline]
    pub(crate) fn adapted(
        self,
        p: f64,
        capacity: usize,
        b1: usize,
        b2: usize,
        hit_in_b1: bool,
    ) -> f64 {
        if hit_in_b1 {
            (p + self.step(b2, b1)).min(capacity as f64)
        } else {
            (p - self.step(b1, b2)).max(0.0)
        }
    }

    /// The starting target for fraction `p0` of `capacity` blocks.
    pub(crate) fn initial(self, p0: f64, capacity: usize) -> f64 {
        let p = p0 * capacity as f64;
        match self {
            Delta::Real => p,
            Delta::Integer => p.floor(),
        }
    }
}

/// What a prefetch of a block remembered in B1 or B2 does.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GhostPrefetch {
    /// Enter T1; the first demand access moves it to T2 (the study's text).
    Defer,
    /// Enter T1 as a new block; the ghost history is dropped.
    Forget,
}

/// Adaptive Replacement Cache.
pub struct ArcPolicy {
    pub(crate) lists: Lists,
    pub(crate) capacity: usize,
    pub(crate) p: f64,
    delta: Delta,
    ghost_prefetch: GhostPrefetch,
    /// Prefetched while in a ghost list and not yet demand-accessed (`GhostPrefetch::Defer`):
    /// the first demand access moves it to T2.
    promote_on_use: Vec<bool>,
    /// The target computed in `select_victim` for a miss on a ghost block, committed on insert.
    pub(crate) pending: Option<(Block, f64)>,
}

impl ArcPolicy {
    /// ARC with the parameters in `spec`, for `capacity` resident blocks over ids `0..universe`.
    /// AccuSim's values (`ghost_prefetch=unmarked`, `directory=accusim`, `replace=accusim`,
    /// `first_use=stay`) are refused here: they are AccuSim's variant's, which the builder makes.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> Result<Self> {
        let ghost_prefetch =
            match spec.choice("ghost_prefetch", &["defer", "forget", "unmarked"])? {
                "defer" => GhostPrefetch::Defer,
                "forget" => GhostPrefetch::Forget,
                _ => return Err(Self::accusim_only(spec, "ghost_prefetch")),
            };
        for (key, paper, accusim) in [
            ("directory", "paper", "accusim"),
            ("replace", "paper", "accusim"),
            ("first_use", "mru", "stay"),
        ] {
            if spec.choice(key, &[paper, accusim])? == accusim {
                return Err(Self::accusim_only(spec, key));
            }
        }
        Self::with_ghost_prefetch(spec, capacity, universe, ghost_prefetch)
    }

    fn accusim_only(spec: &PolicySpec, key: &str) -> Error {
        Error::config(
            "params",
            format!("arc.{key}={}", spec.raw(key)),
            "AccuSim's ARC (AccusimArc) implements this value; build the policy through \
             builder::build",
        )
    }

    /// The paper's ARC with `spec`'s `delta` and `p0` and the given ghost-prefetch rule (no
    /// other parameter is read).
    pub(crate) fn with_ghost_prefetch(
        spec: &PolicySpec,
        capacity: usize,
        universe: usize,
        ghost_prefetch: GhostPrefetch,
    ) -> Result<Self> {
        let delta = Delta::parse(spec)?;
        let p0 = spec.f64("p0", 0.0, 1.0)?;
        Ok(ArcPolicy {
            lists: Lists::new(4, universe),
            capacity,
            p: delta.initial(p0, capacity),
            delta,
            ghost_prefetch,
            promote_on_use: vec![false; universe],
            pending: None,
        })
    }

    /// The current target size of T1.
    pub fn p(&self) -> f64 {
        self.p
    }

    /// The target after a demand miss on `b`, which is in B1 or B2.
    #[inline]
    pub(crate) fn adapted(&self, b: Block) -> f64 {
        let (b1, b2) = (self.lists.len(B1), self.lists.len(B2));
        self.delta
            .adapted(self.p, self.capacity, b1, b2, self.lists.contains(B1, b))
    }

    /// Whether `b` is remembered in B1 or B2.
    #[inline]
    pub(crate) fn in_ghost(&self, b: Block) -> bool {
        matches!(self.lists.list_of(b), Some(B1) | Some(B2))
    }

    /// Whether prefetched `b`'s first demand access moves it to T2 (it was prefetched out of a
    /// ghost list under `ghost_prefetch=defer`).
    #[inline]
    pub(crate) fn promotion_pending(&self, b: Block) -> bool {
        self.promote_on_use[b as usize]
    }

    /// Whether REPLACE takes T1's LRU block, for target `p` and missed block `x`: |T1| >= 1 and
    /// (|T1| > p or (x in B2 and |T1| = p)) (FAST 2003, Figure 4).
    #[inline]
    pub(crate) fn replace_from_t1(&self, p: f64, x: Block) -> bool {
        let t1 = self.lists.len(T1);
        let t = t1 as f64;
        let from_t1 = t1 >= 1 && (t > p || (t == p && self.lists.contains(B2, x)));
        // With T2 empty the paper's case IV(A) (|T1| = c) evicts T1's LRU block.
        from_t1 || self.lists.is_empty(T2)
    }

    /// REPLACE's victim for missed `incoming`, taking T1's LRU-most unpinned block when
    /// `from_t1`, else T2's (and the other list when every block of the first is pinned); a miss
    /// on a ghost stages the adapted target `p` for the insert. The paper's [`Policy::select_victim`]
    /// is this with [`ArcPolicy::replace_from_t1`]; a variant may decide `from_t1` otherwise.
    #[inline]
    pub(crate) fn replace_victim(
        &mut self,
        incoming: Block,
        frames: &Frames,
        from_t1: impl FnOnce(&ArcPolicy, f64) -> bool,
    ) -> Option<Block> {
        let p = if self.in_ghost(incoming) {
            let p = self.adapted(incoming);
            self.pending = Some((incoming, p));
            p
        } else {
            self.pending = None;
            self.p
        };
        let (first, second) = if from_t1(self, p) { (T1, T2) } else { (T2, T1) };
        let victim = last_unpinned(&self.lists, first, frames)
            .or_else(|| last_unpinned(&self.lists, second, frames));
        if victim.is_none() {
            self.pending = None;
        }
        victim
    }

    #[inline]
    fn trim_ghosts(&mut self) {
        let promote = &mut self.promote_on_use;
        trim_ghosts(&mut self.lists, self.capacity, |b| {
            promote[b as usize] = false
        });
    }
}

/// Discards ghost entries of lists T1, T2, B1, B2 (0 to 3) beyond |T1| + |B1| <= c and
/// |T1| + |T2| + |B1| + |B2| <= 2c; `dropped_b1` sees each B1 entry dropped. ARC and CAR share it.
#[inline]
pub(crate) fn trim_ghosts(lists: &mut Lists, c: usize, mut dropped_b1: impl FnMut(Block)) {
    while lists.len(T1) + lists.len(B1) > c {
        let Some(b) = lists.pop_back(B1) else {
            break;
        };
        dropped_b1(b);
    }
    while (0..4).map(|l| lists.len(l)).sum::<usize>() > c.saturating_mul(2) {
        if lists.pop_back(B2).is_none() {
            break;
        }
    }
}

impl Policy for ArcPolicy {
    fn name(&self) -> &'static str {
        "arc"
    }

    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        if cx.first_use {
            if std::mem::take(&mut self.promote_on_use[b as usize]) {
                self.lists.move_to_front(T2, b);
            } else {
                self.lists.move_to_front(T1, b);
            }
            return;
        }
        self.lists.move_to_front(T2, b);
    }

    fn select_victim(&mut self, incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        self.replace_victim(incoming, frames, |arc, p| arc.replace_from_t1(p, incoming))
    }

    fn forget_victim(&mut self) {
        self.pending = None;
    }

    #[inline]
    fn on_evict(&mut self, b: Block, ev: Evicted, _cx: &Access) {
        let from = self.lists.remove(b);
        self.promote_on_use[b as usize] = false;
        if ev.unused_prefetch {
            return;
        }
        match from {
            Some(T1) => self.lists.push_front(B1, b),
            Some(T2) => self.lists.push_front(B2, b),
            other => debug_assert!(false, "evicted block {b} was on list {other:?}"),
        }
    }

    #[inline]
    fn on_insert(&mut self, b: Block, kind: InsertKind, _cx: &Access) {
        let pending = self.pending.take();
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
                    self.promote_on_use[b as usize] = self.ghost_prefetch == GhostPrefetch::Defer;
                }
            }
        } else {
            self.lists.push_front(T1, b);
        }
        self.trim_ghosts();
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Err("this variant counts blocks; the objects model builds libCacheSim's byte-based ARC (policy::arc_sized)")
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
                "list sizes break ARC's bounds: T1 {t1} T2 {t2} B1 {b1} B2 {b2}, c {c}"
            ));
        }
        if !(0.0..=c as f64).contains(&self.p) {
            return Err(format!("target p = {} outside [0, {c}]", self.p));
        }
        if self.delta == Delta::Integer && self.p.fract() != 0.0 {
            return Err(format!("integer mode but p = {}", self.p));
        }
        if self.pending.is_some() {
            return Err("a pending adaptation survived the step".into());
        }
        for b in frames.resident_blocks() {
            if frames.is_unused_prefetch(b) && !self.lists.contains(T1, b) {
                return Err(format!("unused prefetched block {b} is not in T1"));
            }
        }
        for (b, &flag) in self.promote_on_use.iter().enumerate() {
            let b = b as Block;
            if flag
                && !(self.lists.contains(T1, b)
                    && (b as usize) < frames.universe()
                    && frames.is_unused_prefetch(b))
            {
                return Err(format!(
                    "block {b} awaits promotion but is not an unused prefetch in T1"
                ));
            }
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        [("t1", T1), ("t2", T2), ("b1", B1), ("b2", B2)]
            .into_iter()
            .map(|(name, l)| (name, self.lists.iter(l).collect()))
            .collect()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::testutil::{pattern, run};
    use crate::policy::NEVER;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    fn arc(params: &[(&str, &str)], capacity: usize, universe: usize) -> ArcPolicy {
        let mut spec = PolicySpec::parse("arc").unwrap();
        for (k, v) in params {
            spec.set(k, v).unwrap();
        }
        ArcPolicy::from_spec(&spec, capacity, universe).unwrap()
    }

    fn lists(p: &ArcPolicy) -> Vec<Vec<Block>> {
        p.dump().into_iter().map(|(_, v)| v).collect()
    }

    #[test]
    fn hand_worked_sequence() {
        // c = 2, p = 0. 1 1: 1 to T2. 2 enters T1. 3: REPLACE takes T1's LRU (|T1| 1 > p 0), so
        // B1 = [2]. 2 hits B1: p = 1, |T1| = 1 is not > 1, T2's LRU 1 goes to B2. 1 hits B2:
        // p = 0, T1's 3 goes to B1. 4: T2's LRU 2 to B2. 3 hits B1 (δ = |B2|/|B1| = 1): p = 1,
        // T2's 1 to B2. 5: all four lists hold 2c, B2's LRU 2 is dropped, T2's 3 goes to B2.
        // 4 hits in T1 and moves to T2. 3 hits B2 (δ = max(0/2, 1)): p = 0, T1's 5 to B1.
        let refs = [1, 1, 2, 3, 2, 1, 4, 3, 5, 4, 3];
        assert_eq!(pattern(|| arc(&[], 2, 6), 2, &refs), "mhmmmmmmmhm");
        let level = run(arc(&[], 2, 6), 2, &refs[..9]);
        assert_eq!(
            lists(&level.policy),
            vec![vec![5, 4], vec![], vec![], vec![3, 1]]
        );
        assert_eq!(level.policy.p(), 1.0);
        let level = run(arc(&[], 2, 6), 2, &refs);
        assert_eq!(
            lists(&level.policy),
            vec![vec![], vec![3, 4], vec![5], vec![1]]
        );
        assert_eq!(level.policy.p(), 0.0);
    }

    #[test]
    fn paper_preset_defaults() {
        // The accusim preset builds AccuSim's variant (tested with it).
        let paper = ArcPolicy::from_spec(&PolicySpec::parse("arc").unwrap(), 7, 8).unwrap();
        assert_eq!(paper.p(), 0.0);
        assert_eq!(paper.ghost_prefetch, GhostPrefetch::Defer);
    }

    #[test]
    fn real_and_integer_delta() {
        assert_eq!(Delta::Real.step(3, 2), 1.5);
        assert_eq!(Delta::Integer.step(3, 2), 1.0);
        assert_eq!(Delta::Real.step(1, 2), 1.0);
        assert_eq!(Delta::Integer.step(7, 2), 3.0);
        assert_eq!(Delta::Integer.initial(0.5, 7), 3.0);
        assert_eq!(Delta::Real.initial(0.5, 7), 3.5);
    }

    #[test]
    fn bad_parameters_are_errors() {
        for (k, v) in [
            ("p0", "2"),
            ("delta", "float"),
            ("replace", "x"),
            ("replace", "accusim"),
            ("first_use", ""),
            ("first_use", "stay"),
            ("ghost_prefetch", "marked"),
        ] {
            let mut spec = PolicySpec::parse("arc").unwrap();
            spec.set(k, v).unwrap();
            assert!(ArcPolicy::from_spec(&spec, 4, 4).is_err(), "{k}={v}");
        }
    }

    #[test]
    fn unused_prefetch_evicted_then_demanded_is_not_a_ghost_hit() {
        // c = 2: 5 5 puts 5 in T2; prefetch 1 into T1; 2 makes REPLACE take T1's LRU, the unused
        // prefetch 1, which leaves no B1 entry. The demand for 1 is then an ordinary new block.
        let mut level = CacheLevel::new(arc(&[], 2, 6), 2, 6);
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
        // The same with a demand access instead of the prefetch: 1 is remembered in B1 and its
        // return is a ghost hit that raises p and enters T2.
        let level = run(arc(&[], 2, 6), 2, &[5, 5, 1, 2, 1]);
        assert_eq!(level.policy.p(), 1.0);
        assert!(level.policy.dump()[1].1.contains(&1));
    }

    #[test]
    fn first_use_of_a_prefetch_is_a_first_reference() {
        // Prefetched 1, then 2: the first use of 1 moves it to T1's MRU end (AccuSim's
        // `first_use=stay`, which leaves it, is tested with its variant).
        let mut level = CacheLevel::new(arc(&[], 3, 4), 3, 4);
        level.prefetch(1, NEVER);
        level.access(2, NEVER);
        level.access(1, NEVER);
        level.check().unwrap();
        assert_eq!(
            lists(&level.policy),
            vec![vec![1, 2], vec![], vec![], vec![]]
        );
        // The second demand access is a re-reference: T2.
        level.access(1, NEVER);
        assert_eq!(level.policy.dump()[1].1, vec![1]);
    }

    #[test]
    fn prefetched_ghost_enters_t1_and_is_promoted_on_use() {
        // c = 2: 1 1 2 3 leaves T1 = [3], T2 = [1], B1 = [2]. Prefetching 2 takes it out of B1
        // into T1 (REPLACE, run as if for a demand hit in B1, evicts T2's 1); p stays 0.
        let setup = |mode: &str| {
            let mut level = CacheLevel::new(arc(&[("ghost_prefetch", mode)], 2, 4), 2, 4);
            for b in [1, 1, 2, 3] {
                level.access(b, NEVER);
            }
            assert!(level.prefetch(2, NEVER));
            level.check().unwrap();
            assert_eq!(
                lists(&level.policy),
                vec![vec![2, 3], vec![], vec![], vec![1]]
            );
            assert_eq!(level.policy.p(), 0.0);
            level.access(2, NEVER);
            level.check().unwrap();
            level
        };
        assert_eq!(
            lists(&setup("defer").policy),
            vec![vec![3], vec![2], vec![], vec![1]]
        );
        assert_eq!(
            lists(&setup("forget").policy),
            vec![vec![2, 3], vec![], vec![], vec![1]]
        );
    }

    /// Figure 4 of the paper, literally: case IV deletes ghosts before REPLACE.
    struct Figure4 {
        c: usize,
        p: f64,
        delta: Delta,
        t1: VecDeque<u32>,
        t2: VecDeque<u32>,
        b1: VecDeque<u32>,
        b2: VecDeque<u32>,
    }

    fn take(list: &mut VecDeque<u32>, x: u32) -> bool {
        match list.iter().position(|&y| y == x) {
            Some(i) => {
                list.remove(i);
                true
            }
            None => false,
        }
    }

    impl Figure4 {
        fn replace(&mut self, in_b2: bool) {
            let t = self.t1.len() as f64;
            if !self.t1.is_empty() && (t > self.p || (in_b2 && t == self.p)) {
                let y = self.t1.pop_back().unwrap();
                self.b1.push_front(y);
            } else {
                let y = self.t2.pop_back().unwrap();
                self.b2.push_front(y);
            }
        }

        fn access(&mut self, x: u32) -> bool {
            if take(&mut self.t1, x) || take(&mut self.t2, x) {
                self.t2.push_front(x);
                return true;
            }
            let c = self.c;
            if self.b1.contains(&x) {
                self.p = (self.p + self.delta.step(self.b2.len(), self.b1.len())).min(c as f64);
                self.replace(false);
                take(&mut self.b1, x);
                self.t2.push_front(x);
            } else if self.b2.contains(&x) {
                self.p = (self.p - self.delta.step(self.b1.len(), self.b2.len())).max(0.0);
                self.replace(true);
                take(&mut self.b2, x);
                self.t2.push_front(x);
            } else {
                let total = self.t1.len() + self.t2.len() + self.b1.len() + self.b2.len();
                if self.t1.len() + self.b1.len() == c {
                    if self.t1.len() < c {
                        self.b1.pop_back();
                        self.replace(false);
                    } else {
                        self.t1.pop_back();
                    }
                } else if total >= c {
                    if total == c.saturating_mul(2) {
                        self.b2.pop_back();
                    }
                    self.replace(false);
                }
                self.t1.push_front(x);
            }
            false
        }
    }

    proptest! {
        #[test]
        fn equals_the_papers_figure_4(
            cap in 1usize..7,
            integer in any::<bool>(),
            half in any::<bool>(),
            refs in proptest::collection::vec(0u32..14, 1..300),
        ) {
            let delta = if integer { Delta::Integer } else { Delta::Real };
            let p0 = if half { "0.5" } else { "0" };
            let params = [("delta", if integer { "integer" } else { "real" }), ("p0", p0)];
            let mut model = Figure4 {
                c: cap,
                p: delta.initial(if half { 0.5 } else { 0.0 }, cap),
                delta,
                t1: VecDeque::new(),
                t2: VecDeque::new(),
                b1: VecDeque::new(),
                b2: VecDeque::new(),
            };
            let mut level = CacheLevel::new(arc(&params, cap, 14), cap, 14);
            for &b in &refs {
                let hit = model.access(b);
                prop_assert_eq!(level.access(b, NEVER) == crate::cache::level::Outcome::Hit, hit);
                level.check().unwrap();
                let want: Vec<Vec<u32>> = [&model.t1, &model.t2, &model.b1, &model.b2]
                    .iter()
                    .map(|l| l.iter().copied().collect())
                    .collect();
                prop_assert_eq!(lists(&level.policy), want);
                prop_assert_eq!(level.policy.p(), model.p);
            }
        }
    }

    #[derive(Clone, Debug)]
    pub(crate) enum Op {
        Access(u32),
        Prefetch(u32),
        Pin(u32),
        Unpin(u32),
    }

    pub(crate) fn ops(universe: u32) -> impl Strategy<Value = Vec<Op>> {
        proptest::collection::vec(
            prop_oneof![
                6 => (0..universe).prop_map(Op::Access),
                3 => (0..universe).prop_map(Op::Prefetch),
                1 => (0..universe).prop_map(Op::Pin),
                1 => (0..universe).prop_map(Op::Unpin),
            ],
            1..200,
        )
    }

    /// Runs `ops` (with prefetches and pins) and checks the level after every step; the
    /// registry's conformance suite does the same with default parameters only.
    pub(crate) fn exercise<P: Policy>(policy: P, capacity: usize, ops: &[Op]) {
        let universe = 16;
        let mut level = CacheLevel::new(policy, capacity, universe);
        let mut pinned = vec![false; universe];
        for (i, op) in ops.iter().enumerate() {
            match *op {
                Op::Access(b) => {
                    level.access(b, NEVER);
                }
                Op::Prefetch(b) => {
                    level.prefetch(b, NEVER);
                }
                Op::Pin(b) => {
                    if level.frames().is_resident(b) {
                        level.set_pinned(b, true);
                        pinned[b as usize] = true;
                    }
                }
                Op::Unpin(b) => {
                    level.set_pinned(b, false);
                    pinned[b as usize] = false;
                }
            }
            level
                .check()
                .unwrap_or_else(|e| panic!("step {i} {op:?}: {e}"));
            for (b, &p) in pinned.iter().enumerate() {
                assert!(
                    !p || level.frames().is_resident(b as u32),
                    "pinned {b} evicted"
                );
            }
        }
    }

    proptest! {
        #[test]
        fn every_variant_keeps_the_contract(
            cap in 1usize..7,
            variant in 0usize..5,
            ops in ops(16),
        ) {
            let params: &[(&str, &str)] = match variant {
                0 => &[],
                1 => &[("delta", "integer")],
                2 => &[("p0", "0.5")],
                3 => &[("ghost_prefetch", "forget")],
                _ => &[("p0", "1"), ("delta", "integer")],
            };
            exercise(arc(params, cap, 16), cap, &ops);
        }
    }
}
