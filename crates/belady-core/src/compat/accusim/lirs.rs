//! AccuSim's LIRS (the study's `sim/lirs.cc`): the paper's LIRS ([`LirsPolicy`]) with AccuSim's
//! one departure of its own, built by the builder when `lirs.unused_prefetch_entry=keep` is set
//! (the `accusim` preset sets it, with the study's `hir`, `min_hir`, `bound` and `skip_dup` and
//! the authors' `warmup=free-frames`, which the paper's type takes as parameters).
//!
//! - `unused_prefetch_entry=keep`: a block with a non-resident entry in S that is prefetched and
//!   then evicted unused keeps that entry as a non-resident one (the paper's type drops it:
//!   unused prefetches leave no history), so that its next reference makes it LIR. AccuSim only
//!   clears the resident flag of the block it evicts, so it handles an unused prefetch as any
//!   other eviction; this type does the same by handing the paper's type the eviction without
//!   the unused-prefetch mark. A prefetched block that had no S entry still leaves none (the
//!   paper's type adds an entry only for a block already in S).

use crate::cache::frames::Frames;
use crate::error::Result;
use crate::policy::lirs::LirsPolicy;
use crate::policy::registry::PolicySpec;
use crate::policy::{Access, Block, Evicted, InsertKind, Policy};

/// The paper's LIRS whose evicted unused prefetches keep their S entries.
pub struct AccusimLirs {
    /// The paper's stack, queue and non-resident entries, which this variant drives.
    lirs: LirsPolicy,
}

impl AccusimLirs {
    /// Whether `spec` asks for AccuSim's departure (and so for this type).
    pub fn wanted(spec: &PolicySpec) -> bool {
        spec.raw("unused_prefetch_entry") == "keep"
    }

    /// AccuSim's LIRS over the paper's `lirs`.
    pub fn new(lirs: LirsPolicy) -> Self {
        AccusimLirs { lirs }
    }

    /// AccuSim's LIRS with the parameters in `spec`, for `capacity` blocks over ids `0..universe`.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> Result<Self> {
        spec.choice("unused_prefetch_entry", &["drop", "keep"])?;
        Ok(Self::new(LirsPolicy::from_paper_params(
            spec, capacity, universe,
        )?))
    }

    /// The paper's state underneath.
    pub fn paper(&self) -> &LirsPolicy {
        &self.lirs
    }
}

impl Policy for AccusimLirs {
    fn name(&self) -> &'static str {
        "lirs"
    }

    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        self.lirs.on_hit(b, cx);
    }

    #[inline]
    fn select_victim(&mut self, incoming: Block, frames: &Frames, cx: &Access) -> Option<Block> {
        self.lirs.select_victim(incoming, frames, cx)
    }

    #[inline]
    fn on_evict(&mut self, b: Block, _ev: Evicted, cx: &Access) {
        // Every eviction, used or not, leaves what any eviction leaves.
        let as_any = Evicted {
            unused_prefetch: false,
        };
        self.lirs.on_evict(b, as_any, cx);
    }

    #[inline]
    fn on_insert(&mut self, b: Block, kind: InsertKind, cx: &Access) {
        self.lirs.on_insert(b, kind, cx);
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        self.lirs.weighs_objects()
    }

    fn len(&self) -> usize {
        self.lirs.len()
    }

    fn check_invariants(&self, frames: &Frames) -> std::result::Result<(), String> {
        self.lirs.check_invariants(frames)
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        self.lirs.dump()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::lirs::Bound;
    use crate::policy::NEVER;

    /// Llirs = 2, Lhirs = 1 (the LIRS paper's example sizes), unbounded, with duplicate skipping.
    fn small() -> LirsPolicy {
        LirsPolicy::new(3, 10, 0.0, 1, Bound::None, 2.0, true)
    }

    fn dump_of(p: &impl Policy, name: &str) -> Vec<Block> {
        p.dump().into_iter().find(|(n, _)| *n == name).unwrap().1
    }

    #[test]
    fn evicted_unused_prefetch_keeps_its_old_stack_entry_only_in_accusims_variant() {
        // small(): c = 3, Llirs 2, Lhirs 1. 1 2 LIR; 3 HIR; 4 evicts 3 (non-resident in S).
        // Prefetch 3: evicts 4 (non-resident in S); 3 resident HIR, S untouched: 4 3 2 1.
        // 5 evicts the unused 3. AccuSim (keep): 3 stays non-resident in S; the paper (drop): its
        // entry goes.
        // Then 3 misses (evicting 5, non-resident in S): keep -> 3 has an S entry, becomes LIR
        // and the bottom LIR 1 goes to Q; drop -> 3 is new to S and stays HIR.
        fn steps<P: Policy>(policy: P, is_lir: impl Fn(&P, Block) -> bool, keep: bool) {
            let mut level = CacheLevel::new(policy, 3, 10);
            for b in [1, 2, 3, 4] {
                level.access(b, NEVER);
            }
            assert!(level.prefetch(3, NEVER));
            level.access(5, NEVER);
            level.check().unwrap();
            let ghosts = dump_of(&level.policy, "nonresident_newest_first");
            assert_eq!(ghosts, if keep { vec![3, 4] } else { vec![4] });
            level.access(3, NEVER);
            level.check().unwrap();
            assert_eq!(is_lir(&level.policy, 3), keep);
            if keep {
                assert_eq!(dump_of(&level.policy, "s_top_to_bottom"), vec![3, 5, 4, 2]);
                assert_eq!(dump_of(&level.policy, "q_front_to_end"), vec![1]);
            } else {
                assert_eq!(
                    dump_of(&level.policy, "s_top_to_bottom"),
                    vec![3, 5, 4, 2, 1]
                );
                assert_eq!(dump_of(&level.policy, "q_front_to_end"), vec![3]);
            }
        }
        steps(small(), LirsPolicy::is_lir, false);
        steps(AccusimLirs::new(small()), |p, b| p.paper().is_lir(b), true);
    }

    #[test]
    fn the_paper_type_refuses_accusims_value_and_the_preset_builds_this_one() {
        use crate::cache::builder::build;
        use crate::cache::builder::TypeName;
        use crate::policy::registry::Preset;
        let mut spec = PolicySpec::parse("lirs").unwrap();
        assert!(build(&spec, 4, 4, TypeName)
            .unwrap()
            .ends_with("policy::lirs::LirsPolicy"));
        spec.set("unused_prefetch_entry", "keep").unwrap();
        let err = LirsPolicy::from_spec(&spec, 4, 4)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("lirs.unused_prefetch_entry=keep") && err.contains("AccusimLirs"),
            "{err}"
        );
        assert!(build(&spec, 4, 4, TypeName)
            .unwrap()
            .ends_with("AccusimLirs"));
        // The authors' warm-up rule is the paper type's parameter.
        spec.params.clear();
        spec.set("warmup", "free-frames").unwrap();
        assert!(build(&spec, 4, 4, TypeName)
            .unwrap()
            .ends_with("policy::lirs::LirsPolicy"));
        spec.params.clear();
        spec.preset = Preset::Accusim;
        assert!(build(&spec, 4, 4, TypeName)
            .unwrap()
            .ends_with("AccusimLirs"));
        // The study's sizes: 10 %, at least 32 blocks.
        let p = AccusimLirs::from_spec(&spec, 1000, 10).unwrap();
        assert_eq!(p.paper().lhirs(), 100);
    }

    proptest::proptest! {
        #[test]
        fn keeps_the_contract_with_prefetches_and_pins(
            cap in 1usize..7,
            ops in crate::policy::arc::tests::ops(16),
        ) {
            let p = AccusimLirs::new(LirsPolicy::new(cap, 16, 0.2, 1, Bound::Stack, 2.0, false));
            crate::policy::arc::tests::exercise(p, cap, &ops);
        }
    }
}
