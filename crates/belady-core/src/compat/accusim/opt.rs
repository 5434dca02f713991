//! AccuSim's OPT: Belady's MIN as the prefetching study's simulator keeps it, built by the
//! builder instead of the paper's [`crate::policy::opt::OptPolicy`] when `opt.ties=heap` (the
//! `accusim` preset sets it).
//!
//! The blocks sit in AccuSim's binary max-heap keyed by next reference
//! (`StampedHeap`, `compat/accusim/stamped_heap.rs`), whose sifting breaks ties mostly, not strictly, by insertion order (every
//! hit re-inserts its block). Which of several never-again blocks goes first then follows that
//! heap's shape, as in the study's simulator; the paper's OPT sends the one recorded earliest.
//! The choice never changes the miss count, but it decides which blocks stay resident and so how
//! misses cluster into disk requests, which AccuSim's timed table shows.

use crate::cache::frames::Frames;
use crate::compat::accusim::stamped_heap::StampedHeap;
use crate::error::Result;
use crate::policy::registry::PolicySpec;
use crate::policy::{Access, Block, Evicted, InsertKind, Policy};

/// Belady's MIN with AccuSim's heap deciding ties (module header).
pub struct AccusimOpt {
    heap: StampedHeap,
    resident: usize,
}

impl AccusimOpt {
    /// Whether `spec` asks for AccuSim's heap (and so for this type).
    pub fn wanted(spec: &PolicySpec) -> bool {
        spec.raw("ties") == "heap"
    }

    /// AccuSim's OPT over ids `0..universe` for `spec` (whose `ties` is `heap`; it has no other
    /// parameter).
    pub fn from_spec(spec: &PolicySpec, universe: usize) -> Result<Self> {
        spec.choice("ties", &["first", "heap"])?;
        Ok(AccusimOpt::new(universe))
    }

    /// An empty AccuSim OPT over ids `0..universe`.
    pub fn new(universe: usize) -> Self {
        AccusimOpt {
            heap: StampedHeap::new(universe),
            resident: 0,
        }
    }

    /// Next-use tick recorded for resident `b` ([`crate::policy::NEVER`] if it is not
    /// referenced again).
    pub fn next_use_of(&self, b: Block) -> Option<u64> {
        self.heap.key_of(b)
    }
}

impl Policy for AccusimOpt {
    fn name(&self) -> &'static str {
        "opt"
    }

    fn needs_oracle(&self) -> bool {
        true
    }

    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        self.heap.remove(b);
        self.heap.insert(b, cx.next_use);
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        self.heap.top_unpinned(frames)
    }

    #[inline]
    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        self.heap.remove(b);
        self.resident -= 1;
    }

    #[inline]
    fn on_insert(&mut self, b: Block, _kind: InsertKind, cx: &Access) {
        self.resident += 1;
        self.heap.insert(b, cx.next_use);
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    fn len(&self) -> usize {
        self.resident
    }

    fn check_invariants(&self, frames: &Frames) -> std::result::Result<(), String> {
        self.heap.check()?;
        if self.heap.len() != self.resident || self.resident != frames.len() {
            return Err(format!(
                "{} blocks in the heap, {} counted, {} resident in frames",
                self.heap.len(),
                self.resident,
                frames.len()
            ));
        }
        match frames.resident_blocks().find(|&b| !self.heap.contains(b)) {
            Some(b) => Err(format!("resident block {b} is not in the heap")),
            None => Ok(()),
        }
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        vec![("farthest_first", self.heap.by_key())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::opt::OptPolicy;

    #[test]
    fn equal_next_uses_leave_in_the_heaps_order_not_strictly_by_insertion() {
        // The stamped heap's own example (compat/accusim/stamped_heap.rs) as next uses: blocks 0..6 with
        // next uses 101 100 101 101 101 102 102 leave the heap as [5, 3, 6, 1, 4, 2, 0]; block 1
        // then hits (next use 100 again), which moves block 0 into its slot under 3. Blocks 7..
        // with nearer next uses force evictions, each taking the root and sifting the last slot
        // down (worked by hand): 5, 6, then 2 (stamp 3, preferred to 3 at a sift), 3 (block 0,
        // stamp 1, sits a level lower), 0, 4. The paper's OPT sends the earliest recorded first:
        // 5 6 0 2 3 4. Equal misses, different residents.
        let next = [101, 100, 101, 101, 101, 102, 102];
        let victims = |accusim: bool| {
            let mut order = Vec::new();
            let mut run = |level: &mut dyn FnMut(Block, u64) -> Option<Block>| {
                for (b, &n) in next.iter().enumerate() {
                    level(b as Block, n);
                }
                level(1, 100);
                for b in 7..13 {
                    order.extend(level(b, b as u64));
                }
            };
            if accusim {
                let mut level = CacheLevel::new(AccusimOpt::new(16), 7, 16);
                run(&mut |b, n| {
                    level.access(b, n);
                    level.policy.check_invariants(level.frames()).unwrap();
                    level.last_victim().map(|v| v.block)
                });
            } else {
                let mut level = CacheLevel::new(OptPolicy::new(7, 16), 7, 16);
                run(&mut |b, n| {
                    level.access(b, n);
                    level.last_victim().map(|v| v.block)
                });
            }
            order
        };
        assert_eq!(victims(true), vec![5, 6, 2, 3, 0, 4]);
        assert_eq!(victims(false), vec![5, 6, 0, 2, 3, 4]);
    }
}

#[cfg(test)]
mod built {
    use crate::policy::registry::{parse_policies, PolicyVisitor, Preset};
    use crate::policy::Policy;

    struct Dump;
    impl PolicyVisitor for Dump {
        type Output = String;
        fn visit<P: Policy + 'static>(self, _policy: P) -> String {
            std::any::type_name::<P>().to_string()
        }
    }

    #[test]
    fn the_builder_makes_accusims_opt_for_its_preset_and_ties_heap_only() {
        let built = |name: &str, params: &[String], preset| {
            let spec = &parse_policies(name, params, preset).unwrap()[0];
            crate::cache::builder::build(spec, 4, 8, Dump).unwrap()
        };
        assert!(built("opt", &[], Preset::Accusim).ends_with("AccusimOpt"));
        assert!(built("opt", &["opt.ties=heap".into()], Preset::Paper).ends_with("AccusimOpt"));
        assert!(built("opt", &[], Preset::Paper).ends_with("OptPolicy"));
    }
}
