//! AccuSim's MQ (the study's `sim/mq.cc`): the paper's MQ ([`MqPolicy`]) with AccuSim's
//! departures, built by the builder when any of `mq.count=prefetches`, `mq.clock=before-access`
//! or `mq.adjust_on_prefetch=true` is set (the `accusim` preset sets all three, with
//! libCacheSim's `ghost_lookup=before-evict`, which the paper's type takes too). Each departure is
//! on or off alone:
//!
//! - `count=prefetches`: the count is raised only when a block is inserted by prefetch, never by
//!   a demand access; a new block starts at 0 and a block leaving Qout keeps its remembered count
//!   (plus one if it leaves by prefetch). A block thus lives in
//!   `Q[min(floor(log2(times prefetched)), m-1)]`; without prefetching MQ equals LRU. A lower
//!   level of a hierarchy then counts nothing for a reference it does not place.
//! - `clock=before-access`: the clock advances before a demand reference is handled, so the
//!   referenced block gets `expireTime = t + 1 + lifeTime` (the paper's order gives
//!   `t + lifeTime`); the `Adjust` test is the same `< t + 1`. Prefetched blocks get
//!   `t + lifeTime` either way.
//! - `adjust_on_prefetch=true`: `Adjust` also runs after a prefetch insertion, with
//!   `currentTime` = demand references so far.
//!
//! The queues, Qout and `Adjust` are the paper type's; this type decides the counts and clocks.

use crate::cache::cache_model::Capacity;
use crate::cache::frames::Frames;
use crate::compat::Variant;
use crate::error::Result;
use crate::policy::mq::{MqPolicy, ACCUSIM_VALUES};
use crate::policy::registry::{PolicyInfo, PolicySpec};
use crate::policy::{
    Access, Block, Evicted, InsertKind, OracleHooks, Policy, PrefetchHooks, SizeHooks,
};

/// AccuSim's MQ, when the spec asks for it ([`AccusimMq::wanted`]).
impl Variant for AccusimMq {
    const OF: &'static PolicyInfo = &crate::policy::mq::INFO;

    fn wanted(spec: &PolicySpec, _capacity: &Capacity) -> Result<bool> {
        Ok(AccusimMq::wanted(spec))
    }

    fn make(spec: &PolicySpec, capacity: &Capacity, universe: usize) -> Result<Self> {
        AccusimMq::from_spec(spec, capacity.entries, universe)
    }
}

/// The paper's MQ with AccuSim's prefetch counting, clock order and/or `Adjust` after prefetches.
pub struct AccusimMq {
    /// The paper's queues, Qout and `Adjust`, which this variant drives.
    mq: MqPolicy,
    /// `count=prefetches`: only prefetch insertions raise the count, not demand references.
    count_prefetches: bool,
    /// `clock=before-access`: a demand reference's expireTime is one tick later than in the
    /// paper's order.
    clock_first: bool,
    /// `adjust_on_prefetch=true`: `Adjust` also runs after a prefetch insertion.
    adjust_on_prefetch: bool,
}

impl AccusimMq {
    /// Whether `spec` asks for one of AccuSim's MQ departures (and so for this type).
    pub fn wanted(spec: &PolicySpec) -> bool {
        ACCUSIM_VALUES
            .iter()
            .any(|&(key, _, accusim)| spec.raw(key) == accusim)
            || spec.bool("adjust_on_prefetch").unwrap_or(false)
    }

    /// The paper's MQ `mq` with the named departures on.
    pub fn new(
        mq: MqPolicy,
        count_prefetches: bool,
        clock_first: bool,
        adjust_on_prefetch: bool,
    ) -> Self {
        AccusimMq {
            mq,
            count_prefetches,
            clock_first,
            adjust_on_prefetch,
        }
    }

    /// AccuSim's MQ with the parameters in `spec`, for `capacity` blocks over ids `0..universe`.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> Result<Self> {
        let [count, clock] =
            ACCUSIM_VALUES.map(|(key, paper, accusim)| spec.choice(key, &[paper, accusim]));
        Ok(Self::new(
            MqPolicy::from_paper_params(spec, capacity, universe)?,
            count? == "prefetches",
            clock? == "before-access",
            spec.bool("adjust_on_prefetch")?,
        ))
    }

    /// The paper's state underneath (counts, queues, Qout).
    pub fn paper(&self) -> &MqPolicy {
        &self.mq
    }

    /// `currentTime` while a demand reference at virtual time `tick` is processed.
    #[inline]
    fn demand_clock(&self, tick: u64) -> u64 {
        tick + u64::from(self.clock_first)
    }
}

impl Policy for AccusimMq {
    fn name(&self) -> &'static str {
        <AccusimMq as Variant>::OF.name
    }

    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        if !self.count_prefetches {
            let f = &mut self.mq.freq[b as usize];
            *f = f.saturating_add(1);
        }
        let clock = self.demand_clock(cx.tick);
        self.mq.lists.remove(b);
        self.mq.place(b, clock);
        self.mq.adjust(cx.tick + 1);
    }

    #[inline]
    fn select_victim(&mut self, incoming: Block, frames: &Frames, cx: &Access) -> Option<Block> {
        self.mq.select_victim(incoming, frames, cx)
    }

    #[inline]
    fn on_evict(&mut self, b: Block, ev: Evicted, cx: &Access) {
        self.mq.on_evict(b, ev, cx);
    }

    #[inline]
    fn on_insert(&mut self, b: Block, kind: InsertKind, cx: &Access) {
        let remembered = self.mq.take_remembered(b);
        // The count rises on whichever kind of insertion AccuSim counts.
        let counted = (kind == InsertKind::Prefetch) == self.count_prefetches;
        self.mq.freq[b as usize] = if counted {
            remembered.saturating_add(1)
        } else {
            remembered
        };
        match kind {
            InsertKind::Demand => {
                let clock = self.demand_clock(cx.tick);
                self.mq.place(b, clock);
                self.mq.adjust(cx.tick + 1);
            }
            InsertKind::Prefetch => {
                self.mq.place(b, cx.tick);
                if self.adjust_on_prefetch {
                    self.mq.adjust(cx.tick);
                }
            }
        }
    }

    fn len(&self) -> usize {
        self.mq.len()
    }
}

impl SizeHooks for AccusimMq {
    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        self.mq.weighs_objects()
    }
}

impl PrefetchHooks for AccusimMq {
    fn forget_victim(&mut self) {
        self.mq.forget_victim();
    }

    /// Under `count=prefetches` a reference raises no count, so only `Adjust` runs; otherwise
    /// as the paper's type.
    fn on_unplaced_miss(&mut self, b: Block, cx: &Access) {
        if self.count_prefetches {
            self.mq.adjust(cx.tick + 1);
        } else {
            self.mq.on_unplaced_miss(b, cx);
        }
    }
}

impl OracleHooks for AccusimMq {}

#[cfg(test)]
impl crate::policy::Checked for AccusimMq {
    fn check_invariants(&self, frames: &Frames) -> std::result::Result<(), String> {
        if self.count_prefetches {
            // Demand-fetched blocks and Qout entries may have count 0.
            self.mq.check_queues(frames)
        } else {
            self.mq.check_invariants(frames)
        }
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        self.mq.dump()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::testutil::{pattern, run};

    fn lists(p: &impl Policy) -> Vec<Vec<Block>> {
        p.dump().into_iter().map(|(_, v)| v).collect()
    }

    /// AccuSim's MQ over the paper's `MqPolicy::new(queues, qout, lifetime, universe)` with
    /// the departures `count_prefetches`, `clock_first`, `adjust_on_prefetch`.
    fn accu(mq: MqPolicy, departures: [bool; 3]) -> AccusimMq {
        let [count, clock, adjust] = departures;
        AccusimMq::new(mq, count, clock, adjust)
    }

    fn at(tick: u64) -> Access {
        Access {
            tick,
            next_use: u64::MAX,
            first_use: false,
            prefetch: false,
            size: 1,
            repeat: false,
        }
    }

    #[test]
    fn prefetch_counting_only_prefetches_raise_the_count() {
        // Demand references alone leave every block in Q0: MQ is LRU.
        let make = || accu(MqPolicy::new(4, 4, 100, 8), [true, false, false]);
        let refs = [1, 1, 1, 2, 3, 1, 4, 2, 5, 1];
        let lru = pattern(|| MqPolicy::new(1, 4, 100, 8), 3, &refs);
        assert_eq!(pattern(make, 3, &refs), lru);
        let level = run(make(), 3, &refs[..3]);
        assert_eq!(level.policy.paper().count(1), 0);
        assert_eq!(lists(&level.policy)[0], vec![1]);
        // c = 2. Prefetch 2: count 1 -> Q0. Its first use leaves the count at 1. 1 enters
        // (count 0); Q0 = [1 2]. 3 evicts 2 into Qout with count 1. Prefetching 2 again evicts
        // 1 (Qout [1 2]); 2 leaves Qout with 1 + 1 = 2 -> Q1 = floor(log2 2).
        let mut level = CacheLevel::new(make(), 2, 8);
        assert!(level.prefetch(2, u64::MAX));
        assert_eq!(level.policy.paper().count(2), 1);
        level.access(2, u64::MAX);
        assert_eq!(level.policy.paper().count(2), 1);
        level.access(1, u64::MAX);
        level.access(3, u64::MAX);
        level.check().unwrap();
        assert_eq!(lists(&level.policy)[4], vec![2]);
        assert!(level.prefetch(2, u64::MAX));
        level.check().unwrap();
        assert_eq!(level.policy.paper().count(2), 2);
        assert_eq!(
            lists(&level.policy),
            vec![vec![3], vec![2], vec![], vec![], vec![1]]
        );
        // A demand miss on 1 (in Qout with count 0) brings back 0, not 1: Q0.
        level.access(1, u64::MAX);
        level.check().unwrap();
        assert_eq!(level.policy.paper().count(1), 0);
        assert_eq!(lists(&level.policy)[0], vec![1]);
    }

    #[test]
    fn clock_before_access_demotes_one_reference_later() {
        // The expiry example above (m = 3, c = 4, lifeTime 2, refs 1 1 2 2 3 4) with the clock
        // advanced first: a reference at t sets expireTime t + 3.
        // t1: 1 -> Q1, exp 4. t3: 2 -> Q1 [2 1], exp 6; Adjust now 4: 1 (4 < 4) stays.
        // t4: 3 -> Q0; now 5: 1 (4 < 5) -> Q0 [1 3], exp 7.
        // t5: 4 -> Q0 [4 1 3]; now 6: 2 (6 < 6) stays in Q1.
        let refs = [1, 1, 2, 2, 3, 4];
        let make = || accu(MqPolicy::new(3, 4, 2, 8), [false, true, false]);
        let level = run(make(), 4, &refs);
        assert_eq!(
            lists(&level.policy),
            vec![vec![4, 1, 3], vec![2], vec![], vec![]]
        );
    }

    #[test]
    fn adjust_on_prefetch_demotes_a_second_expired_head() {
        // m = 2, lifeTime 10, paper counting, driven call by call. 1 and 2 reach count 2 and
        // leave for Qout; both are prefetched back at virtual time 4 into Q1 with expireTime
        // 14. Filler misses at t = 4 .. 14: the Adjust of t = 14 (now 15) demotes 1 only.
        // A prefetch at virtual time 15 then demotes 2 when `adjust_on_prefetch` is on.
        fn steps<P: Policy>(mut p: P) -> bool {
            let ev = Evicted::default();
            p.on_insert(1, InsertKind::Demand, &at(0));
            p.on_hit(1, &at(1));
            p.on_insert(2, InsertKind::Demand, &at(2));
            p.on_hit(2, &at(3));
            p.on_evict(1, ev, &at(4));
            p.on_evict(2, ev, &at(4));
            p.on_insert(1, InsertKind::Prefetch, &at(4));
            p.on_insert(2, InsertKind::Prefetch, &at(4));
            assert_eq!(lists(&p)[1], vec![2, 1]);
            for t in 4..=14 {
                p.on_insert(10 + t as Block, InsertKind::Demand, &at(t));
            }
            assert_eq!(lists(&p)[1], vec![2]);
            p.on_insert(30, InsertKind::Prefetch, &at(15));
            lists(&p)[1].is_empty()
        }
        assert!(!steps(MqPolicy::new(2, 8, 10, 32)));
        assert!(steps(accu(
            MqPolicy::new(2, 8, 10, 32),
            [false, false, true]
        )));
    }

    #[test]
    fn the_paper_type_refuses_accusims_values_and_the_preset_builds_this_one() {
        use crate::cache::builder::build;
        use crate::cache::builder::TypeName;
        use crate::policy::registry::Preset;
        let mut spec = PolicySpec::parse("mq").unwrap();
        assert!(build(&spec, 4, 4, TypeName)
            .unwrap()
            .ends_with("policy::mq::MqPolicy"));
        for (key, value) in [
            ("count", "prefetches"),
            ("clock", "before-access"),
            ("adjust_on_prefetch", "true"),
        ] {
            spec.params.clear();
            spec.set(key, value).unwrap();
            let err = MqPolicy::from_spec(&spec, 4, 4).err().unwrap().to_string();
            assert!(
                err.contains(&format!("mq.{key}={value}")) && err.contains("AccusimMq"),
                "{err}"
            );
            assert!(build(&spec, 4, 4, TypeName).unwrap().ends_with("AccusimMq"));
        }
        // libCacheSim's Qout lookup order is the paper type's parameter too.
        spec.params.clear();
        spec.set("ghost_lookup", "before-evict").unwrap();
        assert!(build(&spec, 4, 4, TypeName)
            .unwrap()
            .ends_with("policy::mq::MqPolicy"));
        spec.set("adjust_on_prefetch", "maybe").unwrap();
        let err = build(&spec, 4, 4, TypeName).unwrap_err().to_string();
        assert!(err.contains("mq.adjust_on_prefetch=maybe"), "{err}");
        spec.params.clear();
        spec.preset = Preset::Accusim;
        assert!(build(&spec, 100, 10, TypeName)
            .unwrap()
            .ends_with("AccusimMq"));
        let p = AccusimMq::from_spec(&spec, 100, 10).unwrap();
        assert!(p.count_prefetches && p.clock_first && p.adjust_on_prefetch);
        assert_eq!((p.paper().qout_size(), p.paper().lifetime()), (100, 100));
    }

    proptest::proptest! {
        #[test]
        fn every_departure_alone_keeps_the_contract(
            cap in 1usize..7,
            departure in 0usize..4,
            ops in crate::policy::arc::tests::ops(16),
        ) {
            // One departure at a time (0..3), then all three (3).
            let on = |i: usize| departure == i || departure == 3;
            let mq = MqPolicy::new(4, 8, 3, 16).with_lookup_before_evict(true);
            crate::policy::arc::tests::exercise(accu(mq, [on(0), on(1), on(2)]), cap, &ops);
        }
    }
}
