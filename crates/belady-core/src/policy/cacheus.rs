//! Cacheus (Rodriguez et al., FAST 2021): two experts, SR-LRU (scan-resistant LRU) and CR-LFU
//! (churn-resistant LFU), drawn by weight as in LeCaR, with a learning rate that adapts to the hit
//! rate instead of a fixed one.
//!
//! The steps, as libCacheSim's `Cacheus.c`, `SR_LRU.c` and `CR_LFU.c` take them:
//! - **SR-LRU** keeps resident blocks in two LRU lists, SR (new blocks, and blocks demoted from R)
//!   and R (blocks referenced again), with targets `sr` and `c - sr` (`sr` starts at `c/2`), and a
//!   history H of ids evicted from the cache (at most `c - 1`, oldest out first). A new block enters
//!   SR; a hit in SR moves the block to R; a miss found in H enters R. When R is over its target its
//!   LRU block is demoted to SR's MRU end. The expert's victim is SR's LRU block (R's when SR is
//!   empty).
//! - **CR-LFU**: counts start at 1, or at the count remembered in H plus 1; ties among the least
//!   counted go to the most recent arrival (the churn resistance).
//! - **Cacheus** draws in hundredths which expert to follow (`r < w_lru` follows SR-LRU); when both
//!   name the same block no history is written, otherwise the block goes to the choosing expert's
//!   history (`c/2` ids each). A miss found in an expert's history multiplies its weight by
//!   `exp(-lr)`, then the weights are normalised.
//!
//! With `adapt_size` and `adapt_rate` (the defaults, the paper) SR's target moves (a miss found
//! in H on a block that entered new grows SR by `max(1, demoted/new)`; a hit on a demoted block
//! shrinks it by `max(1, new/demoted)`) and every `c` references the learning rate follows the hit
//! rate's gradient, kept inside (0.001, 1) as the authors' code does, restarting at random after 10
//! intervals without improvement; a belady level evicts only to make room.
//!
//! `variant=libcachesim` (set by `--preset libcachesim`) runs the code as libcachesim 0.3.5 runs
//! it, found by replaying its Cacheus request by request against a step-by-step model:
//! - SR and R each hold at most `floor(c/2)` blocks (R is not `c - sr`), and a block entering SR
//!   beyond its target pushes SR's LRU block into H at once, room or not (an odd `c` never fills
//!   the cache, so no expert is ever drawn there); those evictions write no expert history.
//! - SR grows (with `adapt_size`) when a block that entered new comes back from H, by
//!   `max(1, C_demoted / C_new)` in integers, where `C_new` counts blocks that ever entered H new
//!   and `C_demoted` demotions less demoted blocks that left the cache, and to at most the resident
//!   blocks less one; R's target becomes `c - sr`. It never shrinks.
//! - The learning rate (with `adapt_rate`) takes the hit rate as an integer division (1 only for an
//!   interval of hits alone), steps by `|lr * d_lr|` against the gradient's sign with no upper bound
//!   and 0.0001 below 0.001, and is redrawn when an interval of hits alone follows 10 without gain.
//!   Without such intervals every step lowers it (`lr - lr^2` first, then by shrinking steps), to
//!   about 0.17 from 0.5, 0.05 from 0.8 and 0.0001 from 0.99: the weights then barely move, which
//!   is what sends some runs several points above the others.
//! - The draws come from libCacheSim's generator (Lehmer, see `lcs_draws::Draws`); seed 0 is its initial
//!   state, so a run replays the first Cacheus of a libcachesim process exactly.
//!
//! On one reference such a level can evict twice (the drawn victim was an R block, then SR
//! overflows); a hierarchy's level below hears only the second. `tests/python/test_xcheck_cacheus.py`
//! asserts equal misses.
//!
//! Prefetching: a prefetched block enters SR (taking any count H remembers, without adding one) and
//! its history entries leave without a weight update; its first demand access is its first reference
//! (no count, no move to R: it moves to its list's MRU end). An unused prefetch evicted leaves no
//! history. Pinned blocks are passed over by both experts (and by SR's overflow in libCacheSim's
//! variant, where a prefetch leaves SR over its target until the next demand insert).

use super::catalog::{ParamInfo, PolicyInfo};
use super::lru::last_unpinned;
use super::registry::{PolicySpec, PolicyVisitor};
use super::structures::freq_buckets::FreqBuckets;
use super::structures::lcs_draws::Draws;
use super::structures::list::Lists;
use super::{
    Access, Block, Evicted, InsertKind, OracleHooks, Pending, Policy, PrefetchHooks, SizeHooks,
};
use crate::cache::cache_model::Capacity;
use crate::cache::frames::Frames;
use crate::error::Result;

/// The catalogue entry: name, aliases, description and parameters.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "cacheus",
    aliases: &[],
    about: "Cacheus (Rodriguez et al., FAST 2021): SR-LRU and CR-LFU experts drawn by weight, adaptive learning rate",
    params: &[
        ParamInfo {
            name: "adapt_size",
            default: "true",
            study: None,
            accusim: None,
            about: "move SR's target by demoted and new history hits (paper); false keeps it at c/2, as libCacheSim's code does",
        },
        ParamInfo {
            name: "adapt_rate",
            default: "true",
            study: None,
            accusim: None,
            about: "move the learning rate along the hit rate every c references (paper); false keeps the first random rate, as libCacheSim's code does",
        },
        ParamInfo {
            name: "variant",
            default: "paper",
            study: None,
            accusim: None,
            about: "paper, or libcachesim: SR and R capped at floor(c/2) each with SR's overflow leaving even with room free, SR growing but never shrinking, the learning rate stepped and the draws made as libcachesim 0.3.5 does (seed 0 replays its first cache in a process)",
        },
    ],
};

/// Builds the policy for a level of `capacity` over ids `0..universe` (the registry's entry point).
pub fn build<V: PolicyVisitor>(
    spec: &PolicySpec,
    capacity: &Capacity,
    universe: usize,
    visitor: V,
) -> crate::error::Result<V::Output> {
    Ok(visitor.visit(CacheusPolicy::from_spec(spec, capacity.entries, universe)?))
}

/// SR-LRU's lists: new and demoted blocks.
const SR: usize = 0;
/// SR-LRU's lists: blocks referenced again.
const R: usize = 1;
/// SR-LRU's history of ids evicted from the cache.
const H: usize = 2;
/// Ids evicted on SR-LRU's choice.
const LRU_GHOST: usize = 0;
/// Ids evicted on CR-LFU's choice.
const LFU_GHOST: usize = 1;

/// Which expert chose a victim, and whether the other named the same block.
#[derive(Copy, Clone, Debug)]
struct Choice {
    lru: bool,
    agreed: bool,
}

/// SR-LRU and CR-LFU experts weighted by regret with an adaptive learning rate.
pub struct CacheusPolicy {
    lists: Lists,
    ghosts: Lists,
    counts: FreqBuckets,
    remembered: Vec<u64>,
    new_block: Vec<bool>,
    demoted: Vec<bool>,
    new_in_history: u64,
    demoted_resident: u64,
    /// libCacheSim's `C_new`: blocks that entered H new, never decremented.
    lcs_new: u64,
    /// libCacheSim's `C_demoted`: demotions, less demoted blocks that left the cache (a demoted
    /// block hit back into R is not subtracted).
    lcs_demoted: u64,
    capacity: usize,
    sr_target: usize,
    r_size: usize,
    ghost_cap: usize,
    adapt_size: bool,
    adapt_rate: bool,
    /// libCacheSim's variant (`variant=libcachesim`) instead of the paper's.
    lcs: bool,
    pinned: Vec<bool>,
    overflow: Vec<Block>,
    w_lru: f64,
    lr: f64,
    lr_before: f64,
    hit_rate_before: f64,
    unlearn: u32,
    interval_hits: u64,
    chosen: Option<Choice>,
    rng: Draws,
}

impl CacheusPolicy {
    /// An empty Cacheus for `capacity` blocks over ids `0..universe`; `adapt_size` moves SR's
    /// target and `adapt_rate` the learning rate (both: the paper), `seed` seeds the draws.
    pub fn new(
        capacity: usize,
        universe: usize,
        adapt_size: bool,
        adapt_rate: bool,
        seed: u64,
    ) -> Self {
        Self::with_variant(capacity, universe, adapt_size, adapt_rate, false, seed)
    }

    /// As [`CacheusPolicy::new`]; `lcs` follows libCacheSim's `SR_LRU.c` and `Cacheus.c` as
    /// libcachesim 0.3.5 runs them (see the file's header) instead of the paper.
    pub fn with_variant(
        capacity: usize,
        universe: usize,
        adapt_size: bool,
        adapt_rate: bool,
        lcs: bool,
        seed: u64,
    ) -> Self {
        let capacity = capacity.max(1);
        let mut rng = Draws::new(lcs, seed);
        CacheusPolicy {
            lists: Lists::new(3, universe),
            ghosts: Lists::new(2, universe),
            counts: FreqBuckets::new(universe),
            remembered: vec![0; universe],
            new_block: vec![false; universe],
            demoted: vec![false; universe],
            new_in_history: 0,
            demoted_resident: 0,
            lcs_new: 0,
            lcs_demoted: 0,
            capacity,
            sr_target: capacity / 2,
            // libCacheSim sizes R as its own half cache, floor(c/2), so with an odd c both lists
            // together hold c - 1 blocks; the paper's R is the rest of the cache.
            r_size: if lcs {
                capacity / 2
            } else {
                capacity - capacity / 2
            },
            ghost_cap: (capacity / 2).max(1),
            adapt_size,
            adapt_rate,
            lcs,
            pinned: vec![false; universe],
            overflow: Vec::new(),
            w_lru: 0.5,
            lr: rng.rate(),
            lr_before: 0.0,
            hit_rate_before: 0.0,
            unlearn: 0,
            interval_hits: 0,
            chosen: None,
            rng,
        }
    }

    /// Builds from the registry's parameters (`adapt_size`, `adapt_rate`, `variant`) and the
    /// spec's seed.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> Result<Self> {
        Ok(Self::with_variant(
            capacity,
            universe,
            spec.bool("adapt_size")?,
            spec.bool("adapt_rate")?,
            spec.choice("variant", &["paper", "libcachesim"])? == "libcachesim",
            spec.seed,
        ))
    }

    /// SR-LRU's weight (CR-LFU's is one minus it).
    pub fn w_lru(&self) -> f64 {
        self.w_lru
    }

    /// The current learning rate.
    pub fn learning_rate(&self) -> f64 {
        self.lr
    }

    /// SR's target size in blocks.
    pub fn sr_target(&self) -> usize {
        self.sr_target
    }

    fn r_target(&self) -> usize {
        self.r_size
    }

    /// Moves SR's target; R's becomes the rest of the cache (in libCacheSim too, once SR moves).
    fn set_sr_target(&mut self, target: usize) {
        self.sr_target = target;
        self.r_size = self.capacity - target;
    }

    /// libCacheSim's variant: queues SR's LRU-most unpinned blocks for eviction until SR is back at its
    /// target (libCacheSim's `SR_LRU_insert` evicts them into H whether or not the cache is full).
    fn queue_sr_overflow(&mut self) {
        let mut excess = self.lists.len(SR).saturating_sub(self.sr_target);
        let mut at = self.lists.back(SR);
        while excess > 0 {
            let Some(b) = at else { break };
            at = self.lists.toward_front(b);
            if !self.pinned[b as usize] {
                self.overflow.push(b);
                excess -= 1;
            }
        }
        // LRU-most leaves first: `take_pending` pops from the end.
        self.overflow.reverse();
    }

    /// Moves R's LRU blocks to SR's MRU end until `b` fits in R, then puts `b` at R's MRU end.
    fn enter_r(&mut self, b: Block) {
        while self.lists.len(R) >= self.r_target() {
            let Some(x) = self.lists.pop_back(R) else {
                break;
            };
            self.lists.push_front(SR, x);
            if !self.demoted[x as usize] {
                self.demoted[x as usize] = true;
                self.demoted_resident += 1;
                self.lcs_demoted += 1;
            }
        }
        self.lists.push_front(R, b);
        self.new_block[b as usize] = false;
    }

    /// A miss of `b`: an entry in an expert's history costs that expert weight (a demand miss
    /// only), and the entries leave.
    fn check_histories(&mut self, b: Block, cx: &Access) {
        let in_lru = self.ghosts.contains(LRU_GHOST, b);
        let in_lfu = self.ghosts.contains(LFU_GHOST, b);
        if !(in_lru || in_lfu) {
            return;
        }
        self.ghosts.remove(b);
        if cx.prefetch {
            return;
        }
        let (mut w_lru, mut w_lfu) = (self.w_lru, 1.0 - self.w_lru);
        if in_lru {
            w_lru *= (-self.lr).exp();
        } else {
            w_lfu *= (-self.lr).exp();
        }
        self.w_lru = w_lru / (w_lru + w_lfu);
    }

    /// The end of a demand reference: every `c` references the learning rate adapts.
    fn end_reference(&mut self, cx: &Access) {
        if (cx.tick + 1) % self.capacity as u64 != 0 {
            return;
        }
        if self.adapt_rate && self.lcs {
            self.lcs_adapt_rate();
        } else if self.adapt_rate {
            self.adapt_rate();
        }
        self.interval_hits = 0;
    }

    /// libCacheSim's learning-rate step, as libcachesim 0.3.5 runs it: the hit rate is an integer
    /// division (1 only for an interval of hits alone, else 0), the step is `|lr * d_lr|` against
    /// the sign of the gradient, with no upper bound and 0.0001 below 0.001; the rate is redrawn
    /// when an interval of hits alone follows 10 intervals without gain.
    fn lcs_adapt_rate(&mut self) {
        let hit_rate = if self.interval_hits >= self.capacity as u64 {
            1.0
        } else {
            0.0
        };
        let (next, d_hit) = self.gradient_step(hit_rate);
        if let Some(next) = next {
            self.lr = if next > 0.001 { next } else { 0.0001 };
            self.unlearn = 0;
        } else if hit_rate == 0.0 || d_hit <= 0.0 {
            self.unlearn += 1;
        } else if self.unlearn >= 10 {
            self.unlearn = 0;
            self.lr = self.rng.rate();
        }
    }

    /// Closes a learning-rate interval with `hit_rate`: returns the next rate one step along the
    /// hit rate's gradient (unbounded; each variant bounds it its own way) when the rate moved in
    /// the interval, else `None`, and the interval's change in hit rate.
    fn gradient_step(&mut self, hit_rate: f64) -> (Option<f64>, f64) {
        let d_hit = hit_rate - self.hit_rate_before;
        let d_lr = self.lr - self.lr_before;
        self.lr_before = self.lr;
        self.hit_rate_before = hit_rate;
        if d_lr == 0.0 {
            return (None, d_hit);
        }
        let sign = if d_hit / d_lr > 0.0 { 1.0 } else { -1.0 };
        (Some(self.lr + sign * (self.lr * d_lr).abs()), d_hit)
    }

    /// The paper's learning-rate step: along the hit rate's gradient, or a random restart after 10
    /// intervals without improvement.
    fn adapt_rate(&mut self) {
        let hit_rate = self.interval_hits as f64 / self.capacity as f64;
        let (next, d_hit) = self.gradient_step(hit_rate);
        if let Some(next) = next {
            // The authors' code keeps the rate inside (0.001, 1): a rate that grows past 1 drives a
            // weight to exactly 0, where no regret can move it again.
            self.lr = if next >= 1.0 {
                0.9
            } else if next <= 0.001 {
                0.005
            } else {
                next
            };
            self.unlearn = 0;
        } else if hit_rate == 0.0 || d_hit <= 0.0 {
            self.unlearn += 1;
            if self.unlearn >= 10 {
                self.unlearn = 0;
                self.lr = self.rng.rate();
            }
        }
    }
}

impl Policy for CacheusPolicy {
    fn name(&self) -> &'static str {
        INFO.name
    }

    #[inline]
    fn hint(&self, b: Block) {
        self.lists.hint(b);
        self.ghosts.hint(b);
        self.counts.hint(b);
    }

    fn on_hit(&mut self, b: Block, cx: &Access) {
        self.interval_hits += 1;
        let count = self.counts.remove(b).expect("a hit block is resident");
        let count = if cx.first_use { count } else { count + 1 };
        self.counts.push(count, b);
        if self.lists.contains(R, b) || cx.first_use {
            let list = self.lists.list_of(b).expect("a hit block is listed");
            self.lists.move_to_front(list, b);
        } else {
            self.lists.remove(b);
            let was_demoted = std::mem::take(&mut self.demoted[b as usize]);
            if was_demoted {
                self.demoted_resident -= 1;
            }
            self.enter_r(b);
            if self.adapt_size && was_demoted && !self.lcs {
                // A demoted block came back: R was too small. (libCacheSim never shrinks SR.)
                let delta = (self.new_in_history / self.demoted_resident.max(1)).max(1) as usize;
                self.set_sr_target(self.sr_target.saturating_sub(delta).max(1));
            }
        }
        self.end_reference(cx);
    }

    fn select_victim(&mut self, incoming: Block, frames: &Frames, cx: &Access) -> Option<Block> {
        self.check_histories(incoming, cx);
        let lru = last_unpinned(&self.lists, SR, frames)
            .or_else(|| last_unpinned(&self.lists, R, frames));
        let lfu = self
            .counts
            .newest_victim_from(self.counts.min_key()?, frames);
        let draw = self.rng.below(100) as f64 / 100.0;
        let (victim, by_lru) = if draw < self.w_lru {
            lru.map_or((lfu, false), |v| (Some(v), true))
        } else {
            lfu.map_or((lru, true), |v| (Some(v), false))
        };
        self.chosen = victim.map(|_| Choice {
            lru: by_lru,
            agreed: lru == lfu,
        });
        victim
    }

    fn on_evict(&mut self, b: Block, ev: Evicted, _cx: &Access) {
        let choice = self.chosen.take();
        self.overflow.retain(|&x| x != b);
        self.lists.remove(b);
        let count = self.counts.remove(b).unwrap_or(1);
        if std::mem::take(&mut self.demoted[b as usize]) {
            self.demoted_resident -= 1;
            self.lcs_demoted -= 1;
        }
        if ev.unused_prefetch {
            self.new_block[b as usize] = false;
            return;
        }
        self.lists.push_front(H, b);
        self.remembered[b as usize] = count;
        if self.new_block[b as usize] {
            self.new_in_history += 1;
            self.lcs_new += 1;
        }
        // libCacheSim trims H while it holds c or more ids.
        while self.lists.len(H) >= self.capacity {
            let old = self.lists.pop_back(H).expect("history is not empty");
            if std::mem::take(&mut self.new_block[old as usize]) {
                self.new_in_history -= 1;
            }
        }
        if let Some(Choice { lru, agreed: false }) = choice {
            let ghost = if lru { LRU_GHOST } else { LFU_GHOST };
            self.ghosts.push_front(ghost, b);
            while self.ghosts.len(ghost) > self.ghost_cap {
                self.ghosts.pop_back(ghost);
            }
        }
    }

    fn on_insert(&mut self, b: Block, kind: InsertKind, cx: &Access) {
        self.check_histories(b, cx);
        let demand = kind == InsertKind::Demand;
        let in_history = self.lists.contains(H, b);
        let count = match (in_history, demand) {
            (true, true) => self.remembered[b as usize] + 1,
            (true, false) => self.remembered[b as usize].max(1),
            (false, _) => 1,
        };
        self.counts.push(count, b);
        let was_new = in_history && self.new_block[b as usize];
        if in_history {
            self.lists.remove(b);
            if was_new {
                self.new_in_history -= 1;
            }
        }
        if in_history && demand {
            self.enter_r(b);
            if self.adapt_size && was_new && self.lcs {
                // libCacheSim's growth step: C_demoted / C_new (integer) but at least 1, and SR
                // at most the blocks now resident less one (as libcachesim 0.3.5 runs it).
                let delta = (self.lcs_demoted / self.lcs_new.max(1)).max(1) as usize;
                let bound = self.len().saturating_sub(1);
                self.set_sr_target((self.sr_target + delta).min(bound));
            } else if self.adapt_size && was_new {
                // A new block came back soon after leaving SR: SR was too small.
                let delta = (self.demoted_resident / self.new_in_history.max(1)).max(1) as usize;
                self.set_sr_target((self.sr_target + delta).min(self.capacity - 1));
            }
        } else {
            self.lists.push_front(SR, b);
            self.new_block[b as usize] = true;
        }
        // SR's overflow is queued on a demand insert only, so a prefetch leaves SR over its
        // target until the next demand insert (libCacheSim has no prefetching).
        if self.lcs && demand {
            self.queue_sr_overflow();
        }
        if demand {
            self.end_reference(cx);
        }
    }

    fn len(&self) -> usize {
        self.lists.len(SR) + self.lists.len(R)
    }
}

impl SizeHooks for CacheusPolicy {
    fn take_pending(&mut self) -> Option<Pending> {
        self.overflow.pop().map(Pending::Evict)
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Err("its SR/R targets and histories count blocks")
    }
}

impl PrefetchHooks for CacheusPolicy {
    fn forget_victim(&mut self) {
        self.chosen = None;
    }

    fn on_pin(&mut self, b: Block, pinned: bool) {
        self.pinned[b as usize] = pinned;
    }
}

impl OracleHooks for CacheusPolicy {}

#[cfg(test)]
impl crate::policy::Checked for CacheusPolicy {
    fn check_invariants(&self, frames: &Frames) -> std::result::Result<(), String> {
        self.lists.check()?;
        self.ghosts.check()?;
        self.counts.check()?;
        crate::policy::check_same_residents(self.counts.iter(), frames)?;
        crate::policy::check_same_residents(self.lists.iter(SR).chain(self.lists.iter(R)), frames)?;
        if let Some(b) = self.lists.iter(H).find(|&b| frames.is_resident(b)) {
            return Err(format!("history entry {b} is resident"));
        }
        for ghost in [LRU_GHOST, LFU_GHOST] {
            if self.ghosts.len(ghost) > self.ghost_cap {
                return Err(format!("expert history {ghost} is over its size"));
            }
        }
        let new_in_history = self
            .lists
            .iter(H)
            .filter(|&b| self.new_block[b as usize])
            .count() as u64;
        if new_in_history != self.new_in_history {
            return Err(format!(
                "{new_in_history} history entries entered new, the count says {}",
                self.new_in_history
            ));
        }
        let demoted = frames
            .resident_blocks()
            .filter(|&b| self.demoted[b as usize])
            .count() as u64;
        if demoted != self.demoted_resident {
            return Err(format!(
                "{demoted} resident blocks are demoted, the count says {}",
                self.demoted_resident
            ));
        }
        if !(0.0..=1.0).contains(&self.w_lru) || self.sr_target > self.capacity {
            return Err(format!(
                "weight {} or SR target {} out of range",
                self.w_lru, self.sr_target
            ));
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        vec![
            ("sr", self.lists.iter(SR).collect()),
            ("r", self.lists.iter(R).collect()),
            ("history", self.lists.iter(H).collect()),
            ("lfu", self.counts.iter().collect()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::testutil::run;
    use crate::policy::Checked;
    use crate::policy::NEVER;

    #[test]
    fn new_blocks_enter_sr_and_a_second_reference_moves_them_to_r() {
        let level = run(CacheusPolicy::new(4, 16, true, true, 0), 4, &[1, 2, 3, 1]);
        let d = level.policy.dump();
        assert_eq!(d[0].1, vec![3, 2], "SR, MRU first");
        assert_eq!(d[1].1, vec![1], "R");
    }

    #[test]
    fn a_full_r_demotes_its_lru_block_to_sr() {
        // c = 4: R's target is 2. 1, 2, 3 each referenced twice: 3 entering R demotes 1.
        let level = run(
            CacheusPolicy::new(4, 16, false, false, 0),
            4,
            &[1, 2, 3, 1, 2, 3],
        );
        let d = level.policy.dump();
        assert_eq!(d[1].1, vec![3, 2]);
        assert_eq!(d[0].1, vec![1]);
        assert!(level.policy.demoted[1]);
    }

    #[test]
    fn the_history_restores_counts_and_sends_the_block_to_r() {
        // c = 2: 1 is referenced 3 times, then 2 and 3 push it out; on its return its count is
        // the remembered 3 plus 1 and it enters R.
        let mut level = CacheLevel::new(CacheusPolicy::new(2, 8, false, false, 0), 2, 8);
        for b in [1, 1, 1, 2, 3, 4] {
            level.access(b, NEVER);
        }
        if !level.frames().is_resident(1) && level.policy.lists.contains(H, 1) {
            level.access(1, NEVER);
            assert_eq!(level.policy.counts.key_of(1), 4);
            assert!(level.policy.lists.contains(R, 1));
        }
        level.check().unwrap();
    }

    #[test]
    fn an_expert_whose_victim_comes_back_loses_weight() {
        for seed in 0..20 {
            let mut p = CacheusPolicy::new(3, 16, false, false, seed);
            let lr = p.learning_rate();
            p.ghosts.push_front(LRU_GHOST, 9);
            let mut level = CacheLevel::new(p, 3, 16);
            level.access(9, NEVER);
            let expect = (0.5 * (-lr).exp()) / (0.5 * (-lr).exp() + 0.5);
            assert!((level.policy.w_lru() - expect).abs() < 1e-12);
        }
    }

    #[test]
    fn without_adapt_the_sr_target_and_learning_rate_stay() {
        let refs: Vec<u32> = (0..2000u32).map(|i| (i * 31 + i / 7) % 23).collect();
        let p = CacheusPolicy::new(8, 23, false, false, 4);
        let lr = p.learning_rate();
        let level = run(p, 8, &refs);
        assert_eq!(level.policy.sr_target(), 4);
        assert_eq!(level.policy.learning_rate(), lr);
    }

    #[test]
    fn the_seed_decides_the_draws_and_the_same_seed_repeats_them() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
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
            run(CacheusPolicy::new(12, 61, true, true, seed), 12, &refs)
                .stats()
                .hits
        };
        assert_eq!(hits(5), hits(5));
        assert!((0..8).any(|s| hits(s) != hits(5)));
    }

    #[test]
    fn unused_prefetches_leave_no_history() {
        let mut level = CacheLevel::new(CacheusPolicy::new(2, 8, true, true, 1), 2, 8);
        level.prefetch(1, NEVER);
        level.access(2, NEVER);
        level.access(3, NEVER);
        level.access(4, NEVER);
        assert!(!level.policy.lists.contains(H, 1));
        assert!(!level.policy.ghosts.contains(LRU_GHOST, 1));
        assert!(!level.policy.ghosts.contains(LFU_GHOST, 1));
        level.check().unwrap();
    }

    /// libCacheSim's variant at `capacity` blocks, seed 0.
    fn lcs(capacity: usize) -> CacheusPolicy {
        CacheusPolicy::with_variant(capacity, 64, true, true, true, 0)
    }

    #[test]
    fn libcachesim_evicts_srs_overflow_while_the_cache_has_room() {
        // c = 4: SR holds 2; the third new block pushes the first out with two frames free.
        let level = run(lcs(4), 4, &[1, 2, 3]);
        assert_eq!(level.frames().len(), 2);
        assert_eq!(level.stats().evictions, 1);
        assert!(level.policy.lists.contains(H, 1));
        level.check().unwrap();
    }

    #[test]
    fn libcachesim_caps_both_lists_at_half_so_an_odd_cache_never_fills() {
        let refs: Vec<u32> = (0..3000u32).map(|i| (i * 7 + i / 11) % 29).collect();
        let mut level = CacheLevel::new(
            CacheusPolicy::with_variant(5, 64, false, false, true, 0),
            5,
            64,
        );
        for &b in &refs {
            level.access(b, NEVER);
            assert!(level.frames().len() <= 4);
        }
        level.check().unwrap();
    }

    #[test]
    fn libcachesim_grows_sr_on_a_returning_new_block_bounded_by_the_residents() {
        // c = 8 (SR and R hold 4): 1 and 2 in R, 3..6 fill SR, 7 pushes 3 (new) into H; 3 comes
        // back into R and SR's target grows by one (7 residents less one bound it at 6).
        let level = run(lcs(8), 8, &[1, 1, 2, 2, 3, 4, 5, 6, 7, 3]);
        assert!(level.policy.lists.contains(R, 3));
        assert_eq!(level.policy.sr_target(), 5);
        // 1..4 fill SR, 5 pushes 1 out; 1 comes back to 5 residents: the bound, 4, holds it.
        let level = run(lcs(8), 8, &[1, 2, 3, 4, 5, 1]);
        assert_eq!(level.policy.sr_target(), 4);
    }

    #[test]
    fn libcachesim_never_shrinks_sr() {
        // c = 4, R holds 2: 1, 2, 3 each referenced twice demote 1 to SR; its hit moves it back
        // to R, which shrinks SR in the paper but not in libCacheSim.
        let level = run(lcs(4), 4, &[1, 2, 1, 2, 3, 3, 1]);
        assert_eq!(level.policy.sr_target(), 2);
        let paper = run(
            CacheusPolicy::new(4, 64, true, false, 0),
            4,
            &[1, 2, 1, 2, 3, 3, 1],
        );
        assert_eq!(paper.policy.sr_target(), 1);
    }

    #[test]
    fn libcachesims_rate_step_uses_the_steps_absolute_value_and_an_integer_hit_rate() {
        let mut p = lcs(10);
        p.lr = 0.5;
        p.interval_hits = 9; // 9 of 10: an integer hit rate of 0
        p.lcs_adapt_rate();
        // d_lr = 0.5 - 0 > 0, d_hit = 0: sign -1, step |0.5 * 0.5|.
        assert_eq!(p.learning_rate(), 0.25);
        p.interval_hits = 10; // all hits: hit rate 1, d_lr = -0.25: sign -1 again
        p.lcs_adapt_rate();
        assert_eq!(p.learning_rate(), 0.25 - 0.0625);
    }

    #[test]
    fn libcachesims_generator_gives_its_first_rate_for_seed_0() {
        // libCacheSim's first draw from its initial state 0xdeadbeef: (state * 0xda942042e4dd58b5
        // mod 2^128) >> 64, mod 1000, as thousandths above 0.001.
        let first = ((0xdead_beef_u128.wrapping_mul(0xda94_2042_e4dd_58b5) >> 64) as u64) % 1000;
        assert_eq!(lcs(8).learning_rate(), 0.001 + first as f64 / 1000.0);
        assert_ne!(
            CacheusPolicy::with_variant(8, 64, true, true, true, 7).learning_rate(),
            lcs(8).learning_rate()
        );
    }
}
