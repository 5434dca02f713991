//! AccuSim's ARC (`sim/arc.cc`, through the project's reference notes): the paper's ARC
//! ([`ArcPolicy`]) with AccuSim's departures, built by the builder when any of
//! `arc.replace=accusim`, `arc.first_use=stay`, `arc.ghost_prefetch=unmarked` or
//! `arc.directory=accusim` is set (the `accusim` preset sets all four).
//!
//! - `replace=accusim`: REPLACE takes T1's LRU block when |T1| >= max(1, p) (the paper: when
//!   |T1| >= 1 and |T1| > p, or the missed block is in B2 and |T1| = p).
//! - `first_use=stay`: the first demand access of a prefetched block clears its mark and leaves
//!   it where it is in T1 (the paper's reading moves it to T1's MRU end).
//! - `ghost_prefetch=unmarked`: a prefetched block remembered in B1 or B2 leaves the ghost list
//!   without adapting `p` and enters T1 as if fetched on demand:
//!   [`LevelHooks::prefetch_marked`] answers no, so the frame table does not mark it either.
//!   Its first demand access is then an ordinary T1 hit (to T2's MRU end, as with `defer`, and a
//!   hit even while its read is in flight when the engine counts such accesses as AccuSim does),
//!   and if it is evicted before that access it goes to B1 like any T1 block.
//! - `directory=accusim`: AccuSim's case IV, decided from the list lengths before the miss,
//!   instead of trimming the ghosts after the insert. When the directory holds 2c, B2's LRU
//!   entry goes before REPLACE even if REPLACE then drops an unused prefetch without a ghost;
//!   when |T1| + |B1| = c, B1's LRU entry goes after REPLACE unless the victim was an unused
//!   prefetch; when |T1| = c, T1's LRU block goes without a ghost. A prefetch of a ghost block,
//!   and a demand reference from AccuSim's read-ahead loop
//!   ([`LevelHooks::set_in_readahead_loop`]), first delete the ghost without adapting `p`; the
//!   block then enters T1 as a new one. REPLACE for a prefetch of a ghost uses the unadapted `p`.
//!
//! AccuSim triggers REPLACE from the directory counts, so in principle it could evict while fewer
//! than c blocks are resident; the level here evicts only when full (on the shared inputs the two
//! never differ).

use crate::cache::frames::Frames;
use crate::error::Result;
use crate::policy::arc::{ArcPolicy, GhostPrefetch, B1, B2, T1, T2};
use crate::policy::lru::last_unpinned;
use crate::policy::registry::PolicySpec;
use crate::policy::{Access, Block, Evicted, InsertKind, LevelHooks, Policy};

/// How AccuSim's case IV handles the directory for a miss on a block in no list, decided from
/// the list lengths before the miss (`directory=accusim`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Case {
    /// A demand miss on a ghost: adapt `p`, REPLACE, no ghost is discarded.
    GhostHit,
    /// |T1| + |B1| = c and |T1| < c: REPLACE, then B1's LRU entry goes unless the victim was an
    /// unused prefetch (whose entry AccuSim reuses).
    FullB1,
    /// |T1| = c: T1's LRU block goes without a ghost.
    FullT1,
    /// |T1| + |B1| < c and the directory holds 2c: B2's LRU entry goes, then REPLACE.
    FullDirectory,
    /// |T1| + |B1| < c: REPLACE only.
    Replace,
}

/// The paper's ARC with AccuSim's unmarked ghost prefetches and/or case IV directory.
pub struct AccusimArc {
    /// The paper's lists, target and REPLACE test, which this variant drives.
    arc: ArcPolicy,
    /// `replace=accusim`: REPLACE's test is |T1| >= max(1, p).
    at_least_p: bool,
    /// `first_use=stay`: a prefetched block's first use leaves it where it is.
    first_use_stays: bool,
    /// `ghost_prefetch=unmarked`.
    unmarked: bool,
    /// `directory=accusim`.
    directory: bool,
    /// The case `select_victim` chose, and whether its victim was an unused prefetch.
    case: Option<(Case, bool)>,
    /// The demand reference being made comes from AccuSim's read-ahead loop.
    in_readahead_loop: bool,
}

impl AccusimArc {
    /// Whether `spec` asks for one of AccuSim's ARC departures (and so for this type).
    pub fn wanted(spec: &PolicySpec) -> bool {
        spec.raw("replace") == "accusim"
            || spec.raw("first_use") == "stay"
            || spec.raw("ghost_prefetch") == "unmarked"
            || spec.raw("directory") == "accusim"
    }

    /// AccuSim's ARC with the parameters in `spec`, for `capacity` blocks over ids `0..universe`.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> Result<Self> {
        let (ghost_prefetch, unmarked) =
            match spec.choice("ghost_prefetch", &["defer", "forget", "unmarked"])? {
                "defer" => (GhostPrefetch::Defer, false),
                "forget" => (GhostPrefetch::Forget, false),
                // The paper's ARC treats an unmarked ghost prefetch as `forget` does (out of the
                // ghost list into T1, no promotion pending); only the frame mark differs.
                _ => (GhostPrefetch::Forget, true),
            };
        let directory = spec.choice("directory", &["paper", "accusim"])? == "accusim";
        Ok(AccusimArc {
            arc: ArcPolicy::with_ghost_prefetch(spec, capacity, universe, ghost_prefetch)?,
            at_least_p: spec.choice("replace", &["paper", "accusim"])? == "accusim",
            first_use_stays: spec.choice("first_use", &["mru", "stay"])? == "stay",
            unmarked,
            directory,
            case: None,
            in_readahead_loop: false,
        })
    }

    /// The current target size of T1.
    pub fn p(&self) -> f64 {
        self.arc.p()
    }

    /// AccuSim's case for a miss on `b`. A prefetch, or a demand reference from the read-ahead
    /// loop, of a ghost block sees the directory without that ghost, which AccuSim's lookup has
    /// deleted.
    fn case_of(&self, b: Block, cx: &Access) -> Case {
        let lists = &self.arc.lists;
        let ghost = lists.list_of(b);
        let forgets_ghost = cx.prefetch || self.in_readahead_loop;
        if matches!(ghost, Some(B1) | Some(B2)) && !forgets_ghost {
            return Case::GhostHit;
        }
        let [t1, t2, mut b1, mut b2] = [T1, T2, B1, B2].map(|l| lists.len(l));
        match ghost {
            Some(B1) => b1 -= 1,
            Some(B2) => b2 -= 1,
            _ => {}
        }
        let c = self.arc.capacity;
        if t1 + b1 == c {
            if t1 < c {
                Case::FullB1
            } else {
                Case::FullT1
            }
        } else if t1 + t2 + b1 + b2 == c.saturating_mul(2) {
            Case::FullDirectory
        } else {
            Case::Replace
        }
    }
}

/// Whether REPLACE takes T1's LRU block for target `p` and missed block `x`: AccuSim's test
/// (`at_least_p`) or the paper's.
#[inline]
fn replace_from_t1(arc: &ArcPolicy, at_least_p: bool, p: f64, x: Block) -> bool {
    if !at_least_p {
        return arc.replace_from_t1(p, x);
    }
    let t1 = arc.lists.len(T1);
    // With T2 empty T1's LRU block goes whatever p is (the paper's case IV(A)).
    (t1 >= 1 && t1 as f64 >= p.max(1.0)) || arc.lists.is_empty(T2)
}

impl LevelHooks for AccusimArc {
    fn prefetch_marked(&self, b: Block) -> bool {
        !(self.unmarked && self.arc.in_ghost(b))
    }

    fn set_in_readahead_loop(&mut self, on: bool) {
        self.in_readahead_loop = on;
    }
}

impl Policy for AccusimArc {
    fn name(&self) -> &'static str {
        "arc"
    }

    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        // The frame table clears the mark; a block awaiting promotion still goes to T2.
        if cx.first_use && self.first_use_stays && !self.arc.promotion_pending(b) {
            return;
        }
        self.arc.on_hit(b, cx);
    }

    fn select_victim(&mut self, incoming: Block, frames: &Frames, cx: &Access) -> Option<Block> {
        let at_least_p = self.at_least_p;
        if !self.directory {
            return self.arc.replace_victim(incoming, frames, |arc, p| {
                replace_from_t1(arc, at_least_p, p, incoming)
            });
        }
        let case = self.case_of(incoming, cx);
        let arc = &mut self.arc;
        let p = if case == Case::GhostHit {
            let p = arc.adapted(incoming);
            arc.pending = Some((incoming, p));
            p
        } else {
            arc.pending = None;
            arc.p
        };
        let from_t1 = case == Case::FullT1 || replace_from_t1(arc, at_least_p, p, incoming);
        let (first, second) = if from_t1 { (T1, T2) } else { (T2, T1) };
        let victim = last_unpinned(&arc.lists, first, frames)
            .or_else(|| last_unpinned(&arc.lists, second, frames));
        self.case = victim.map(|_| (case, false));
        if victim.is_none() {
            arc.pending = None;
        }
        victim
    }

    fn forget_victim(&mut self) {
        self.arc.forget_victim();
        self.case = None;
    }

    #[inline]
    fn on_evict(&mut self, b: Block, ev: Evicted, cx: &Access) {
        if !self.directory {
            self.arc.on_evict(b, ev, cx);
            return;
        }
        let lists = &mut self.arc.lists;
        let from = lists.remove(b);
        let case = self.case.as_mut().map(|c| {
            c.1 = ev.unused_prefetch;
            c.0
        });
        if ev.unused_prefetch || case == Some(Case::FullT1) {
            return;
        }
        match from {
            Some(T1) => lists.push_front(B1, b),
            Some(T2) => lists.push_front(B2, b),
            other => debug_assert!(false, "evicted block {b} was on list {other:?}"),
        }
    }

    #[inline]
    fn on_insert(&mut self, b: Block, kind: InsertKind, cx: &Access) {
        if !self.directory {
            self.arc.on_insert(b, kind, cx);
            return;
        }
        let (case, victim_unused) = match self.case.take() {
            Some(decided) => decided,
            // No room was needed: the same case, without a victim.
            None => (self.case_of(b, cx), false),
        };
        let arc = &mut self.arc;
        if case == Case::GhostHit && kind == InsertKind::Demand {
            let pending = arc.pending.take();
            arc.p = match pending {
                Some((x, p)) if x == b => p,
                _ => arc.adapted(b),
            };
            arc.lists.remove(b);
            arc.lists.push_front(T2, b);
            return;
        }
        arc.pending = None;
        if arc.in_ghost(b) {
            arc.lists.remove(b);
        }
        match case {
            Case::FullB1 if !victim_unused => {
                arc.lists.pop_back(B1);
            }
            Case::FullDirectory => {
                arc.lists.pop_back(B2);
            }
            _ => {}
        }
        arc.lists.push_front(T1, b);
    }

    fn len(&self) -> usize {
        self.arc.len()
    }

    fn check_invariants(&self, frames: &Frames) -> std::result::Result<(), String> {
        if self.case.is_some() {
            return Err("a case IV decision survived the step".into());
        }
        if self.in_readahead_loop {
            return Err("the read-ahead loop flag survived the reference".into());
        }
        self.arc.check_invariants(frames)
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        self.arc.dump()
    }

    #[inline]
    fn level_hooks(&mut self) -> Option<&mut dyn LevelHooks> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::{CacheLevel, Outcome};
    use crate::policy::arc::tests::{exercise, ops};
    use crate::policy::testutil::run;
    use crate::policy::NEVER;
    use proptest::prelude::*;

    fn spec(params: &[(&str, &str)]) -> PolicySpec {
        let mut spec = PolicySpec::parse("arc").unwrap();
        for (k, v) in params {
            spec.set(k, v).unwrap();
        }
        spec
    }

    fn accu(params: &[(&str, &str)], capacity: usize, universe: usize) -> AccusimArc {
        AccusimArc::from_spec(&spec(params), capacity, universe).unwrap()
    }

    fn paper(params: &[(&str, &str)], capacity: usize, universe: usize) -> ArcPolicy {
        ArcPolicy::from_spec(&spec(params), capacity, universe).unwrap()
    }

    fn lists(p: &impl Policy) -> Vec<Vec<Block>> {
        p.dump().into_iter().map(|(_, v)| v).collect()
    }

    #[test]
    fn the_paper_type_refuses_accusims_values_and_the_preset_builds_this_one() {
        use crate::cache::builder::build;
        use crate::cache::builder::TypeName;
        use crate::policy::registry::Preset;
        for (k, v) in [
            ("ghost_prefetch", "unmarked"),
            ("directory", "accusim"),
            ("replace", "accusim"),
            ("first_use", "stay"),
        ] {
            let err = ArcPolicy::from_spec(&spec(&[(k, v)]), 4, 4)
                .err()
                .unwrap()
                .to_string();
            assert!(err.contains("AccusimArc"), "{err}");
            assert!(AccusimArc::from_spec(&spec(&[(k, v)]), 4, 4).is_ok());
        }
        let mut s = spec(&[]);
        assert!(build(&s, 4, 4, TypeName)
            .unwrap()
            .ends_with("policy::arc::ArcPolicy"));
        s.preset = Preset::Accusim;
        for (k, v) in [
            ("p0", "0.5"),
            ("delta", "integer"),
            ("replace", "accusim"),
            ("first_use", "stay"),
            ("ghost_prefetch", "unmarked"),
            ("directory", "accusim"),
        ] {
            assert_eq!(s.raw(k), v, "{k}");
        }
        assert!(build(&s, 4, 4, TypeName).unwrap().ends_with("AccusimArc"));
        let p = AccusimArc::from_spec(&s, 7, 8).unwrap();
        assert_eq!(p.p(), 3.0);
        assert!(p.unmarked && p.directory);
    }

    #[test]
    fn accusim_directory_drops_b2_before_replace_even_for_an_unused_victim() {
        // c = 2, p = 1 (AccuSim's c/2), REPLACE takes T1 when |T1| >= max(1, p).
        // a a b b: T2 [b a]. c: T2's LRU a to B2. c c... d d: T2 [d c], B2 [b a], 2c entries.
        // Prefetch e: the directory is full, B2's LRU a goes, REPLACE sends c to B2, e enters T1
        // marked: T1 [e] T2 [d] B2 [c b]. Demand f: full again, B2's LRU b goes; REPLACE evicts
        // the unused e with no ghost: T1 [f] T2 [d] B2 [c]. The paper's trimming after the
        // insert keeps b (three ghosts and two blocks are within 2c).
        fn run_to<P: Policy>(policy: P) -> Vec<Vec<Block>> {
            let mut level = CacheLevel::new(policy, 2, 8);
            for b in [0, 0, 1, 1, 2, 2, 3, 3] {
                level.access(b, NEVER);
                level.check().unwrap();
            }
            assert_eq!(
                lists(&level.policy),
                vec![vec![], vec![3, 2], vec![], vec![1, 0]]
            );
            assert!(level.prefetch(4, NEVER));
            level.check().unwrap();
            assert_eq!(
                lists(&level.policy),
                vec![vec![4], vec![3], vec![], vec![2, 1]]
            );
            level.access(5, NEVER);
            level.check().unwrap();
            lists(&level.policy)
        }
        let params = [("p0", "0.5"), ("delta", "integer"), ("replace", "accusim")];
        let mut with_dir = params.to_vec();
        with_dir.push(("directory", "accusim"));
        assert_eq!(
            run_to(accu(&with_dir, 2, 8)),
            vec![vec![5], vec![3], vec![], vec![2]]
        );
        assert_eq!(
            run_to(accu(&params, 2, 8)),
            vec![vec![5], vec![3], vec![], vec![2, 1]]
        );
    }

    #[test]
    fn accusim_replace_test_evicts_from_t1_at_equality() {
        // c = 2, p0 = 0.5 (p = 1). 1 1 2: T1 = [2], T2 = [1]. 3: |T1| = 1 = p. The paper keeps
        // T1 and evicts T2's 1; AccuSim's |T1| >= max(1, p) evicts T1's 2.
        let refs = [1, 1, 2, 3];
        let paper = run(paper(&[("p0", "0.5")], 2, 4), 2, &refs);
        assert_eq!(
            lists(&paper.policy),
            vec![vec![3, 2], vec![], vec![], vec![1]]
        );
        let accu = run(
            accu(&[("p0", "0.5"), ("replace", "accusim")], 2, 4),
            2,
            &refs,
        );
        assert_eq!(lists(&accu.policy), vec![vec![3], vec![1], vec![2], vec![]]);
    }

    #[test]
    fn first_use_stay_leaves_a_prefetch_where_it_is() {
        // Prefetched 1, then 2: the paper moves 1 to T1's MRU end on its first use; AccuSim
        // leaves it at the LRU end. The second use is a re-reference either way: T2.
        fn run_to<P: Policy>(policy: P) -> CacheLevel<P> {
            let mut level = CacheLevel::new(policy, 3, 4);
            level.prefetch(1, NEVER);
            level.access(2, NEVER);
            level.access(1, NEVER);
            level.check().unwrap();
            level
        }
        let paper_level = run_to(paper(&[], 3, 4));
        assert_eq!(lists(&paper_level.policy)[0], vec![1, 2]);
        let mut stay = run_to(accu(&[("first_use", "stay")], 3, 4));
        assert_eq!(
            lists(&stay.policy),
            vec![vec![2, 1], vec![], vec![], vec![]]
        );
        stay.access(1, NEVER);
        stay.check().unwrap();
        assert_eq!(lists(&stay.policy)[1], vec![1]);
    }

    #[test]
    fn unmarked_ghost_prefetch_evicted_unused_is_remembered() {
        // c = 3, p = 0. 1 1 puts 1 in T2; 2 3 fill T1; 4 sends T1's LRU 2 to B1. Prefetching 2
        // takes it out of B1 into T1 (REPLACE evicts 3 to B1), p stays 0: T1 [2 4], B1 [3].
        // 5: T1's LRU 4 goes to B1 and 3 is trimmed (|T1| + |B1| <= 3): B1 [4].
        // 6: T1's LRU is the prefetched 2, never accessed. The paper's `defer` drops it;
        // `unmarked` treats it as a block fetched on demand and remembers it in B1 (4 is then
        // trimmed).
        fn run_to<P: Policy>(policy: P) -> CacheLevel<P> {
            let mut level = CacheLevel::new(policy, 3, 8);
            for b in [1, 1, 2, 3, 4] {
                level.access(b, NEVER);
            }
            assert!(level.prefetch(2, NEVER));
            level.check().unwrap();
            assert_eq!(
                lists(&level.policy),
                vec![vec![2, 4], vec![1], vec![3], vec![]]
            );
            for b in [5, 6] {
                level.access(b, NEVER);
                level.check().unwrap();
            }
            level
        }
        let defer = run_to(paper(&[], 3, 8));
        assert_eq!(defer.policy.p(), 0.0);
        assert_eq!(
            lists(&defer.policy),
            vec![vec![6, 5], vec![1], vec![4], vec![]]
        );
        let mut unmarked = run_to(accu(&[("ghost_prefetch", "unmarked")], 3, 8));
        assert_eq!(unmarked.policy.p(), 0.0);
        assert_eq!(
            lists(&unmarked.policy),
            vec![vec![6, 5], vec![1], vec![2], vec![]]
        );
        // 2 returns: a ghost hit in B1 (p = 0 + max(0/1, 1) = 1), a miss; REPLACE sends T1's
        // LRU 5 to B1 (|T1| = 2 > p) and 2 enters T2.
        assert_eq!(unmarked.access(2, NEVER), Outcome::Miss);
        unmarked.check().unwrap();
        assert_eq!(unmarked.policy.p(), 1.0);
        assert_eq!(
            lists(&unmarked.policy),
            vec![vec![6], vec![2, 1], vec![5], vec![]]
        );
    }

    #[test]
    fn unmarked_prefetched_ghost_is_promoted_on_use() {
        // c = 2: 1 1 2 3 leaves T1 = [3], T2 = [1], B1 = [2]. Prefetching 2 takes it out of B1
        // into T1, unmarked (REPLACE evicts T2's 1); p stays 0. Its first demand access is an
        // ordinary T1 hit: to T2, as the paper's `defer` promotes it.
        let mut level = CacheLevel::new(accu(&[("ghost_prefetch", "unmarked")], 2, 4), 2, 4);
        for b in [1, 1, 2, 3] {
            level.access(b, NEVER);
        }
        assert!(level.prefetch(2, NEVER));
        level.check().unwrap();
        assert!(!level.frames().is_unused_prefetch(2), "entered unmarked");
        assert_eq!(
            lists(&level.policy),
            vec![vec![2, 3], vec![], vec![], vec![1]]
        );
        assert_eq!(level.policy.p(), 0.0);
        assert_eq!(level.access(2, NEVER), Outcome::Hit);
        level.check().unwrap();
        assert_eq!(level.stats().prefetch_used, 0, "not counted as a prefetch");
        assert_eq!(
            lists(&level.policy),
            vec![vec![3], vec![2], vec![], vec![1]]
        );
    }

    #[test]
    fn a_reference_from_the_readahead_loop_forgets_the_ghost() {
        // c = 2, AccuSim's directory, p = 0. 1 1 2 3: T1 [3], T2 [1], B1 [2]. A demand for 2 is
        // a ghost hit (p rises to 1, 2 enters T2); from AccuSim's read-ahead loop the ghost is
        // dropped first and 2 enters T1 as a new block, p unchanged.
        let make = || {
            let mut level = CacheLevel::new(accu(&[("directory", "accusim")], 2, 4), 2, 4);
            for b in [1, 1, 2, 3] {
                level.access(b, NEVER);
            }
            assert_eq!(
                lists(&level.policy),
                vec![vec![3], vec![1], vec![2], vec![]]
            );
            level
        };
        let mut plain = make();
        plain.access(2, NEVER);
        plain.check().unwrap();
        assert_eq!(plain.policy.p(), 1.0);
        assert!(plain.policy.dump()[1].1.contains(&2));
        let mut looped = make();
        super::super::access_in_readahead_loop(&mut looped, 2, NEVER);
        looped.check().unwrap();
        assert_eq!(looped.policy.p(), 0.0);
        assert_eq!(looped.policy.dump()[0].1[0], 2);
    }

    proptest! {
        #[test]
        fn every_variant_keeps_the_contract(
            cap in 1usize..7,
            variant in 0usize..6,
            ops in ops(16),
        ) {
            let mut params = vec![
                ("p0", "0.5"),
                ("delta", "integer"),
                ("replace", "accusim"),
                ("first_use", "stay"),
            ];
            match variant {
                0 => params.push(("ghost_prefetch", "unmarked")),
                1 => params.push(("directory", "accusim")),
                2 => params.extend([("ghost_prefetch", "unmarked"), ("directory", "accusim")]),
                // One departure at a time, on the paper's directory.
                3 => params = vec![("p0", "0.5"), ("replace", "accusim")],
                4 => params = vec![("first_use", "stay")],
                _ => params = vec![("p0", "1"), ("delta", "integer"), ("replace", "accusim")],
            }
            exercise(accu(&params, cap, 16), cap, &ops);
        }
    }
}
