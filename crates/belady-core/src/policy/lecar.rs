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
//! reached its count first. The random draws differ (libCacheSim's own generator, belady a PCG stream
//! seeded by `--seed`), so misses agree within a bound: `tests/python/test_xcheck_lecar.py`.
//!
//! Prefetching: a prefetched block enters at LRU's MRU end with count 1; its first demand access
//! moves it to the MRU end and is its first reference (the count stays 1). A prefetch of a block in
//! the history takes it out of the history without a weight update (no demand reference missed),
//! and an unused prefetch that is evicted leaves no history entry. Pinned blocks are passed over by
//! both experts.

use super::freq_buckets::FreqBuckets;
use super::list::Lists;
use super::lru::last_unpinned;
use super::registry::PolicySpec;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::error::Result;
use crate::frames::Frames;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Resident blocks in recency order (front = most recent).
const RESIDENT: usize = 0;
/// Evicted blocks in eviction order (front = latest).
const HISTORY: usize = 1;

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
    rng: Pcg64,
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
        LecarPolicy {
            lists: Lists::new(2, universe),
            counts: FreqBuckets::new(universe),
            evicted_by: vec![None; universe],
            evicted_at: vec![0; universe],
            history_cap: capacity.max(1),
            w_lru: 0.5,
            learning_rate,
            discount: discount_final.powf(1.0 / capacity.max(1) as f64),
            chosen: None,
            rng: Pcg64::seed_from_u64(seed),
        }
    }

    /// Builds from the registry's parameters (`lr`, `discount`) and the spec's seed.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> Result<Self> {
        Ok(Self::new(
            capacity,
            universe,
            spec.f64("lr", 0.0, 100.0)?,
            spec.f64("discount", f64::MIN_POSITIVE, 1.0)?,
            spec.seed,
        ))
    }

    /// The LRU expert's weight (the LFU expert's is one minus it).
    pub fn w_lru(&self) -> f64 {
        self.w_lru
    }

    /// Which expert evicted `b`, if `b` is in the history.
    pub fn in_history(&self, b: Block) -> Option<Expert> {
        self.lists
            .contains(HISTORY, b)
            .then(|| self.evicted_by[b as usize])
            .flatten()
    }

    /// A demand miss of `b` found in the history: the expert that evicted it loses weight, by
    /// regret discounted over the references since; the entry leaves the history.
    fn regret(&mut self, b: Block, cx: &Access) {
        if !self.lists.contains(HISTORY, b) {
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

    fn on_hit(&mut self, b: Block, cx: &Access) {
        self.lists.move_to_front(RESIDENT, b);
        let count = self.counts.remove(b).expect("a hit block is resident");
        let count = if cx.first_use { count } else { count + 1 };
        self.counts.push(count, b);
    }

    fn select_victim(&mut self, incoming: Block, frames: &Frames, cx: &Access) -> Option<Block> {
        self.regret(incoming, cx);
        let draw = self.rng.random_range(0..100u32) as f64 / 100.0;
        let expert = if draw < self.w_lru {
            Expert::Lru
        } else {
            Expert::Lfu
        };
        let victim = match expert {
            Expert::Lru => last_unpinned(&self.lists, RESIDENT, frames),
            Expert::Lfu => self.counts.victim_from(self.counts.min_key()?, frames),
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
        self.lists.push_front(HISTORY, b);
        while self.lists.len(HISTORY) > self.history_cap {
            let old = self.lists.pop_back(HISTORY).expect("history is not empty");
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
        if self.lists.len(HISTORY) > self.history_cap {
            return Err(format!(
                "history holds {} ids, more than {}",
                self.lists.len(HISTORY),
                self.history_cap
            ));
        }
        if let Some(b) = self
            .lists
            .iter(HISTORY)
            .find(|&b| self.evicted_by[b as usize].is_none())
        {
            return Err(format!("history entry {b} names no expert"));
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
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::CacheLevel;
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
}
