//! LeCaR (Vietri et al., HotStorage 2018): two experts, LRU and LFU, each proposing a victim; the
//! cache draws which one to follow with probability given by the experts' weights, remembers every
//! evicted block in a history with the expert that chose it, and when a missed block is found in
//! the history, that expert's weight is cut by regret (`w *= exp(-lr * dr^t)`, `t` the references
//! since the eviction), then both are normalised.
//!
//! As libCacheSim's `LeCaR.c`: learning rate 0.45, discount `dr = 0.005^(1/c)` for a cache of `c`
//! blocks, weights starting at 0.5 each, the draw in hundredths (`r < w_lru` follows LRU), one
//! history list of `c` ids in eviction order (the oldest leaves first), a count that starts at 1
//! when a block enters (a history hit does not restore it) and LFU ties going to the block that
//! reached its count first. The paper's variant draws from a PCG stream seeded by `--seed`.
//!
//! `variant=libcachesim` (set by `--preset libcachesim`) runs the code as libcachesim 0.3.5 runs
//! it, so misses are equal (`tests/python/test_xcheck_lecar.py`):
//! - two histories, one per expert, each of `floor(c/2)` ids (the oldest leaves first);
//! - when both experts propose the same victim nothing is drawn and the victim leaves no history;
//! - the draws come from libCacheSim's generator (`lcs_draws::Draws`): seed 0 is its initial
//!   state, so a run replays the draws of the first LeCaR of a libcachesim process.
//!
//! Prefetching: a prefetched block enters at LRU's MRU end with count 1; its first demand access
//! moves it to the MRU end and is its first reference (the count stays 1). A prefetch of a block in
//! the history takes it out of the history without a weight update (no demand reference missed),
//! and an unused prefetch that is evicted leaves no history entry. Pinned blocks are passed over by
//! both experts.

use super::lru::last_unpinned;
use super::registry::PolicySpec;
use super::structures::freq_buckets::FreqBuckets;
use super::structures::lcs_draws::Draws;
use super::structures::list::Lists;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;
use crate::error::Result;

/// Resident blocks in recency order (front = most recent).
const RESIDENT: usize = 0;
/// Evicted blocks in eviction order (front = latest); in libCacheSim's variant, those the LRU
/// expert evicted.
const HISTORY: usize = 1;
/// libCacheSim's variant: the blocks the LFU expert evicted, in eviction order.
const HISTORY_LFU: usize = 2;

/// Which expert chose a victim.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Expert {
    /// The LRU expert (least recent block).
    Lru,
    /// The LFU expert (least referenced block).
    Lfu,
}

/// LRU and LFU experts weighted by regret.
pub struct LecarPolicy {
    lists: Lists,
    counts: FreqBuckets,
    evicted_by: Vec<Option<Expert>>,
    evicted_at: Vec<u64>,
    history_cap: usize,
    w_lru: f64,
    learning_rate: f64,
    discount: f64,
    chosen: Option<Expert>,
    /// libCacheSim's variant (`variant=libcachesim`) instead of the paper's.
    lcs: bool,
    rng: Draws,
}

impl LecarPolicy {
    /// An empty LeCaR for `capacity` blocks over ids `0..universe`, with learning rate
    /// `learning_rate`, discount base `discount_final` (the discount is its `capacity`-th root)
    /// and draws seeded by `seed`.
    pub fn new(
        capacity: usize,
        universe: usize,
        learning_rate: f64,
        discount_final: f64,
        seed: u64,
    ) -> Self {
        Self::with_variant(
            capacity,
            universe,
            learning_rate,
            discount_final,
            false,
            seed,
        )
    }

    /// As [`LecarPolicy::new`]; `lcs` follows libCacheSim's `LeCaR.c` as libcachesim 0.3.5 runs
    /// it (see the file's header) instead of the paper.
    pub fn with_variant(
        capacity: usize,
        universe: usize,
        learning_rate: f64,
        discount_final: f64,
        lcs: bool,
        seed: u64,
    ) -> Self {
        LecarPolicy {
            lists: Lists::new(3, universe),
            counts: FreqBuckets::new(universe),
            evicted_by: vec![None; universe],
            evicted_at: vec![0; universe],
            // libCacheSim trims each expert's history while it holds more than c/2 (integer) ids.
            history_cap: if lcs { capacity / 2 } else { capacity.max(1) },
            w_lru: 0.5,
            learning_rate,
            discount: discount_final.powf(1.0 / capacity.max(1) as f64),
            chosen: None,
            lcs,
            rng: Draws::new(lcs, seed),
        }
    }

    /// Builds from the registry's parameters (`lr`, `discount`, `variant`) and the spec's seed.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> Result<Self> {
        Ok(Self::with_variant(
            capacity,
            universe,
            spec.f64("lr", 0.0, 100.0)?,
            spec.f64("discount", f64::MIN_POSITIVE, 1.0)?,
            spec.choice("variant", &["paper", "libcachesim"])? == "libcachesim",
            spec.seed,
        ))
    }

    /// The history list of the expert that evicted a block.
    fn history_of(&self, expert: Expert) -> usize {
        match expert {
            Expert::Lfu if self.lcs => HISTORY_LFU,
            _ => HISTORY,
        }
    }

    /// Whether `b` is in a history.
    fn in_any_history(&self, b: Block) -> bool {
        matches!(self.lists.list_of(b), Some(HISTORY | HISTORY_LFU))
    }

    /// The LRU expert's weight (the LFU expert's is one minus it).
    pub fn w_lru(&self) -> f64 {
        self.w_lru
    }

    /// Which expert evicted `b`, if `b` is in the history.
    pub fn in_history(&self, b: Block) -> Option<Expert> {
        self.in_any_history(b)
            .then(|| self.evicted_by[b as usize])
            .flatten()
    }

    /// A demand miss of `b` found in the history: the expert that evicted it loses weight, by
    /// regret discounted over the references since; the entry leaves the history.
    fn regret(&mut self, b: Block, cx: &Access) {
        if !self.in_any_history(b) {
            return;
        }
        self.lists.remove(b);
        let Some(expert) = self.evicted_by[b as usize].take() else {
            return;
        };
        if cx.prefetch {
            return;
        }
        let since = cx.tick.saturating_sub(self.evicted_at[b as usize]);
        let regret = self.discount.powf(since as f64);
        let (mut wrong, right) = match expert {
            Expert::Lru => (self.w_lru, 1.0 - self.w_lru),
            Expert::Lfu => (1.0 - self.w_lru, self.w_lru),
        };
        // The tiny additions keep a weight from reaching 0 (and staying there), as libCacheSim does.
        wrong = wrong * (-self.learning_rate * regret).exp() + 1e-10;
        let sum = wrong + right + 2e-10;
        let (wrong, right) = (wrong / sum, (right + 1e-10) / sum);
        self.w_lru = match expert {
            Expert::Lru => wrong,
            Expert::Lfu => right,
        };
    }
}

impl Policy for LecarPolicy {
    fn name(&self) -> &'static str {
        "lecar"
    }

    #[inline]
    fn hint(&self, b: Block) {
        self.lists.hint(b);
        self.counts.hint(b);
    }

    fn on_hit(&mut self, b: Block, cx: &Access) {
        self.lists.move_to_front(RESIDENT, b);
        let count = self.counts.remove(b).expect("a hit block is resident");
        let count = if cx.first_use { count } else { count + 1 };
        self.counts.push(count, b);
    }

    fn select_victim(&mut self, incoming: Block, frames: &Frames, cx: &Access) -> Option<Block> {
        self.regret(incoming, cx);
        let lru = || last_unpinned(&self.lists, RESIDENT, frames);
        let lfu = || self.counts.victim_from(self.counts.min_key()?, frames);
        if self.lcs {
            // libCacheSim draws only when the experts disagree; an agreed victim is in no history.
            let (by_lru, by_lfu) = (lru(), lfu());
            if by_lru == by_lfu {
                self.chosen = None;
                return by_lru;
            }
        }
        let draw = self.rng.below(100) as f64 / 100.0;
        let expert = if draw < self.w_lru {
            Expert::Lru
        } else {
            Expert::Lfu
        };
        let victim = match expert {
            Expert::Lru => lru(),
            Expert::Lfu => lfu(),
        };
        self.chosen = victim.map(|_| expert);
        victim
    }

    fn forget_victim(&mut self) {
        self.chosen = None;
    }

    fn on_evict(&mut self, b: Block, ev: Evicted, cx: &Access) {
        self.lists.remove(b);
        self.counts.remove(b);
        let chosen = self.chosen.take();
        if ev.unused_prefetch {
            return;
        }
        let Some(expert) = chosen else { return };
        self.evicted_by[b as usize] = Some(expert);
        self.evicted_at[b as usize] = cx.tick;
        let history = self.history_of(expert);
        self.lists.push_front(history, b);
        while self.lists.len(history) > self.history_cap {
            let old = self.lists.pop_back(history).expect("history is not empty");
            self.evicted_by[old as usize] = None;
        }
    }

    fn on_insert(&mut self, b: Block, _kind: InsertKind, cx: &Access) {
        self.regret(b, cx);
        self.lists.push_front(RESIDENT, b);
        self.counts.push(1, b);
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Err("its history holds the cache size in ids, not in bytes (libCacheSim's holds bytes)")
    }

    fn len(&self) -> usize {
        self.lists.len(RESIDENT)
    }

    fn check_invariants(&self, frames: &Frames) -> std::result::Result<(), String> {
        self.lists.check()?;
        self.counts.check()?;
        for history in [HISTORY, HISTORY_LFU] {
            if self.lists.len(history) > self.history_cap {
                return Err(format!(
                    "history holds {} ids, more than {}",
                    self.lists.len(history),
                    self.history_cap
                ));
            }
            if let Some(b) = self
                .lists
                .iter(history)
                .find(|&b| self.evicted_by[b as usize].map(|e| self.history_of(e)) != Some(history))
            {
                return Err(format!("history entry {b} names no expert or another's"));
            }
        }
        if !(0.0..=1.0).contains(&self.w_lru) {
            return Err(format!("LRU weight {} is not a probability", self.w_lru));
        }
        check_same_residents(self.counts.iter(), frames)?;
        check_same_residents(self.lists.iter(RESIDENT), frames)
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        vec![
            ("lru", self.lists.iter(RESIDENT).collect()),
            ("lfu", self.counts.iter().collect()),
            ("history", self.lists.iter(HISTORY).collect()),
            ("history_lfu", self.lists.iter(HISTORY_LFU).collect()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::testutil::run;
    use crate::policy::NEVER;

    fn lecar(seed: u64) -> LecarPolicy {
        LecarPolicy::new(3, 16, 0.45, 0.005, seed)
    }

    #[test]
    fn an_expert_whose_victim_comes_back_loses_weight() {
        // Until a history hit both weigh 0.5. 1 is the most referenced and the oldest: LRU evicts
        // it, LFU evicts 2 (count 1, earliest). Whichever was chosen, its victim returning at once
        // costs it weight.
        for seed in 0..20 {
            let level = run(lecar(seed), 3, &[1, 1, 1, 2, 3, 4]);
            let gone = if level.frames().is_resident(1) { 2 } else { 1 };
            let expert = level.policy.in_history(gone).unwrap();
            assert_eq!(expert, if gone == 1 { Expert::Lru } else { Expert::Lfu });
            let level = run(lecar(seed), 3, &[1, 1, 1, 2, 3, 4, gone]);
            let w = level.policy.w_lru();
            match expert {
                Expert::Lru => assert!(w < 0.5, "seed {seed}: {w}"),
                Expert::Lfu => assert!(w > 0.5, "seed {seed}: {w}"),
            }
            assert!(level.policy.in_history(gone).is_none());
        }
    }

    #[test]
    fn the_regret_is_the_papers_discounted_update() {
        // One reference after its eviction: w = 0.5 exp(-0.45 dr) normalised, dr = 0.005^(1/3).
        let level = run(lecar(0), 3, &[1, 1, 1, 2, 3, 4]);
        let gone = if level.frames().is_resident(1) { 2 } else { 1 };
        let level = run(lecar(0), 3, &[1, 1, 1, 2, 3, 4, gone]);
        let dr = 0.005f64.powf(1.0 / 3.0);
        let cut = 0.5 * (-0.45 * dr).exp() + 1e-10;
        let expect = cut / (cut + 0.5 + 2e-10);
        let w = level.policy.w_lru();
        let got = if gone == 1 { w } else { 1.0 - w };
        assert!((got - expect).abs() < 1e-9, "{got} vs {expect}");
    }

    #[test]
    fn the_history_holds_the_cache_size_in_ids() {
        let refs: Vec<u32> = (0..16).collect();
        let level = run(lecar(3), 3, &refs);
        assert_eq!(level.policy.dump()[2].1.len(), 3);
    }

    #[test]
    fn the_seed_decides_the_draws_and_the_same_seed_repeats_them() {
        // A skewed pseudo-random sequence (squares of a uniform draw favour low ids), so the two
        // experts disagree often.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let refs: Vec<u32> = (0..3000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let u = (x % 1000) as f64 / 1000.0;
                (u * u * 61.0) as u32
            })
            .collect();
        let hits = |seed| {
            run(LecarPolicy::new(12, 61, 0.45, 0.005, seed), 12, &refs)
                .stats()
                .hits
        };
        assert_eq!(hits(5), hits(5));
        assert!((0..8).any(|s| hits(s) != hits(5)));
    }

    #[test]
    fn unused_prefetches_leave_no_history_and_first_use_counts_once() {
        let mut level = CacheLevel::new(lecar(1), 2, 8);
        level.prefetch(1, NEVER);
        level.access(1, NEVER);
        assert_eq!(level.policy.counts.key_of(1), 1);
        level.prefetch(2, NEVER);
        level.access(3, NEVER);
        level.access(4, NEVER);
        assert!(level.policy.in_history(2).is_none());
        level.check().unwrap();
    }

    /// libCacheSim's variant at `capacity` blocks, seed 0.
    fn lcs(capacity: usize) -> LecarPolicy {
        LecarPolicy::with_variant(capacity, 64, 0.45, 0.005, true, 0)
    }

    #[test]
    fn libcachesim_draws_nothing_and_remembers_nothing_when_the_experts_agree() {
        // 1, 2, 3 each referenced once: the oldest, 1, is both LRU's and LFU's victim.
        let level = run(lcs(3), 3, &[1, 2, 3, 4]);
        assert!(!level.frames().is_resident(1));
        assert!(level.policy.in_history(1).is_none());
        match level.policy.rng {
            Draws::Lehmer(state) => assert_eq!(state, 0xdead_beef, "a draw was made"),
            Draws::Pcg(_) => panic!("the variant draws from libCacheSim's generator"),
        }
    }

    #[test]
    fn libcachesim_keeps_a_history_of_half_the_cache_per_expert() {
        // With 1 referenced twice the experts disagree at every eviction (LRU: the oldest of
        // 2..; LFU: the oldest count-1 block), so every victim enters its expert's history.
        let refs = [1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
        let level = run(lcs(5), 5, &refs);
        let dump = level.policy.dump();
        let (lru, lfu) = (&dump[2].1, &dump[3].1);
        assert!(lru.len() <= 2 && lfu.len() <= 2, "{lru:?} {lfu:?}");
        assert!(lru
            .iter()
            .all(|&b| level.policy.in_history(b) == Some(Expert::Lru)));
        assert!(lfu
            .iter()
            .all(|&b| level.policy.in_history(b) == Some(Expert::Lfu)));
        assert!(!lru.is_empty() || !lfu.is_empty());
        level.check().unwrap();
    }
}
