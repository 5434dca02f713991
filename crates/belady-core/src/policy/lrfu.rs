//! LRFU: Least Recently/Frequently Used.
//!
//! Paper: D. Lee, J. Choi, J.-H. Kim, S. H. Noh, S. L. Min, Y. Cho and C. S. Kim, "LRFU: A Spectrum
//! of Policies that Subsumes the Least Recently Used and Least Frequently Used Policies", IEEE
//! Transactions on Computers 50(12), 2001. Reference implementation consulted (for behaviour, not
//! code): AccuSim `sim/lrfu.cc` (Butt, Gniady and Hu's simulator, adapted from the authors' code).
//!
//! Every resident block `b` carries a Combined Recency and Frequency value
//! `CRF(b) = sum over its references at times t_i of F(t - t_i)`, with the weighing function
//! `F(x) = (1/2)^(lambda * x)`. On a reference at time `t` the paper's update is
//! `CRF = F(0) + F(t - LAST) * CRF` and `LAST = t`; a block entering the cache starts at
//! `CRF = F(0)`. The victim is the resident block with the smallest CRF *at the current time*.
//! History is kept only while a block is resident (the paper's "reference history recorded during
//! cache residency"): an evicted block restarts from `F(0)`. `lambda = 0` is LFU, `lambda = 1` is LRU.
//!
//! # No underflow: a time-invariant log-domain key
//! `(1/2)^(lambda * dt)` underflows to zero after about 1.07 M ticks at `lambda = 0.001`, after
//! which every old block would tie. Instead each block stores
//! `key(b) = log2(CRF(b) as of LAST(b)) + lambda * LAST(b)`. The CRF at any time `t` is
//! `2^(key - lambda * t)`, so comparing current CRFs is comparing keys, and the comparison does not
//! change as time advances: the heap stays valid between references. A reference at `t` computes
//! `key = lambda * t + log2(1 + 2^(key_old - lambda * t))` (the `2^` term is dropped once it is below
//! 2^-60, where it no longer changes the sum). Keys grow like `lambda * t`, so nothing overflows
//! or underflows; resolution is `lambda * t * 2^-52` in log2 units (1e-8 at 1e8 ticks with
//! `lambda = 1`).
//!
//! # Victim selection
//! An indexed binary min-heap ordered by `(key, seq)`, where `seq` increases with every insert and
//! reference: among equal keys the least recently referenced block goes first (documented LRU
//! tie-break). With it, `lambda = 1` is exactly LRU (a more recent block's key is never smaller,
//! and equal keys fall back to recency) and `lambda = 0` is exactly LFU with LRU among equal counts;
//! both are property-tested. Pinned blocks are skipped by a best-first walk down the heap from its
//! root, which leaves the heap untouched. The paper's and AccuSim's heap + LRU-list hybrid (blocks
//! older than a `threshold` kept in a list and evicted from it first) is an efficiency device
//! that is not order-preserving in general; this policy always evicts the true minimum
//! (AccuSim's variant, `heap=accusim` with `threshold`, reproduces the hybrid).
//!
//! # Prefetching (the prefetching study, Section 4)
//! A prefetched block ([`InsertKind::Prefetch`]) enters as the most recently accessed block with
//! `CRF = F(0)` and `LAST = now`. Its first demand access ([`Access::first_use`]) resets `CRF` to
//! `F(0)` with `LAST = now` instead of applying the update, so the block counts as seen once, not
//! twice. LRFU keeps no history of evicted blocks, so `Evicted::unused_prefetch` needs no
//! special case: nothing at all is remembered about an evicted block.
//!
//! # Parameters
//! `lambda` in [0, 1], default 0.001 (the paper sweeps lambda; 0.001 is in its well-performing
//! range for the disk-block traces it studies, and is the prefetching study's Table 4 value).
//! `prefetch_time=trigger` (AccuSim's; default `next`) stamps a prefetch with its triggering
//! reference's time. AccuSim's queue (`heap=accusim`, with `threshold` and `float`) is another
//! type, `AccusimLrfu` in `compat/accusim/lrfu.rs`, which the builder makes instead of this one.
//! AccuSim's optional `corperiod` and retained-history extensions are off in the study and are not
//! implemented.

use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};

use crate::cache::frames::Frames;
use crate::policy::registry::PolicySpec;

const NOWHERE: u32 = u32::MAX;

/// Below this exponent, `1 + 2^d` rounds to 1 in f64.
const NEGLIGIBLE: f64 = -60.0;

/// One heap slot: the block's order key (the f64 key mapped to an ordered integer), its
/// recency stamp, and the block.
#[derive(Copy, Clone, Debug)]
struct Slot {
    ord: u64,
    seq: u64,
    block: Block,
}

impl Slot {
    #[inline]
    fn before(&self, other: &Slot) -> bool {
        (self.ord, self.seq) < (other.ord, other.seq)
    }
}

/// Maps a finite f64 to a u64 whose unsigned order is the float order.
#[inline]
fn ordered(x: f64) -> u64 {
    let bits = x.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// Least Recently/Frequently Used replacement.
pub struct LrfuPolicy {
    lambda: f64,
    heap: Vec<Slot>,
    pos: Vec<u32>,
    key: Vec<f64>,
    last: Vec<u64>,
    seq: u64,
    frontier: Vec<usize>,
    /// `prefetch_time=trigger`: a prefetch carries its triggering reference's time.
    prefetch_at_trigger: bool,
}

impl LrfuPolicy {
    /// An empty LRFU with the given `lambda` over block ids `0..universe`.
    ///
    /// # Panics
    /// If `lambda` is not within [0, 1] (use [`LrfuPolicy::from_spec`] for user input).
    pub fn new(lambda: f64, universe: usize) -> Self {
        assert!((0.0..=1.0).contains(&lambda), "lambda must be in [0, 1]");
        LrfuPolicy {
            lambda,
            heap: Vec::new(),
            pos: vec![NOWHERE; universe],
            key: vec![0.0; universe],
            last: vec![0; universe],
            seq: 0,
            frontier: Vec::new(),
            prefetch_at_trigger: false,
        }
    }

    /// Reads `lambda` and `prefetch_time` from `spec`. `heap=accusim` is refused: AccuSim's
    /// queue (with `threshold` and `float`) is another type, which the builder makes.
    pub fn from_spec(
        spec: &PolicySpec,
        _capacity: usize,
        universe: usize,
    ) -> crate::error::Result<Self> {
        let lambda = spec.f64("lambda", 0.0, 1.0)?;
        if spec.choice("heap", &["exact", "accusim"])? == "accusim" {
            return Err(crate::error::Error::config(
                "params",
                "lrfu.heap=accusim",
                "AccuSim's queue is another type (AccusimLrfu); build the policy through \
                 builder::build",
            ));
        }
        let mut p = LrfuPolicy::new(lambda, universe);
        p.prefetch_at_trigger = spec.choice("prefetch_time", &["next", "trigger"])? == "trigger";
        Ok(p)
    }

    /// Stamps prefetches with the time of their triggering reference.
    pub fn with_prefetch_at_trigger(mut self, on: bool) -> Self {
        self.prefetch_at_trigger = on;
        self
    }

    /// The weighing parameter.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// `log2 CRF(b)` at time `t` (not before the block's last reference), if `b` is resident.
    pub fn log2_crf_at(&self, b: Block, t: u64) -> Option<f64> {
        (self.pos[b as usize] != NOWHERE).then(|| self.key[b as usize] - self.lambda * t as f64)
    }

    /// `CRF(b)` at time `t`; may be 0 for long-idle blocks (use [`Self::log2_crf_at`] to compare).
    pub fn crf_at(&self, b: Block, t: u64) -> Option<f64> {
        self.log2_crf_at(b, t).map(f64::exp2)
    }

    /// Tick of the last reference (or insertion) of resident `b`.
    pub fn last_of(&self, b: Block) -> Option<u64> {
        (self.pos[b as usize] != NOWHERE).then(|| self.last[b as usize])
    }

    #[inline]
    fn stamp(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Sets `b`'s key and recency and restores heap order (the key only grows, so it sinks).
    #[inline]
    fn rekey(&mut self, b: Block, key: f64, tick: u64) {
        let i = b as usize;
        self.key[i] = key;
        self.last[i] = tick;
        let seq = self.stamp();
        let at = self.pos[i] as usize;
        self.heap[at].ord = ordered(key);
        self.heap[at].seq = seq;
        self.sift_down(at);
    }

    #[inline]
    fn place(&mut self, at: usize, slot: Slot) {
        self.pos[slot.block as usize] = at as u32;
        self.heap[at] = slot;
    }

    fn sift_up(&mut self, mut at: usize) {
        let slot = self.heap[at];
        while at > 0 {
            let parent = (at - 1) / 2;
            if !slot.before(&self.heap[parent]) {
                break;
            }
            let p = self.heap[parent];
            self.place(at, p);
            at = parent;
        }
        self.place(at, slot);
    }

    fn sift_down(&mut self, mut at: usize) {
        let slot = self.heap[at];
        let n = self.heap.len();
        loop {
            let left = 2 * at + 1;
            if left >= n {
                break;
            }
            let right = left + 1;
            let child = if right < n && self.heap[right].before(&self.heap[left]) {
                right
            } else {
                left
            };
            if !self.heap[child].before(&slot) {
                break;
            }
            let c = self.heap[child];
            self.place(at, c);
            at = child;
        }
        self.place(at, slot);
    }
}

/// The tick an insertion is stamped with: the access's, or for a prefetch under
/// `prefetch_time=trigger` its triggering reference's, which is one less than the next one's.
#[inline]
pub(crate) fn insert_tick(kind: InsertKind, cx: &Access, prefetch_at_trigger: bool) -> u64 {
    if kind == InsertKind::Prefetch && prefetch_at_trigger {
        cx.tick.saturating_sub(1)
    } else {
        cx.tick
    }
}

impl Policy for LrfuPolicy {
    fn name(&self) -> &'static str {
        "lrfu"
    }

    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        let now = self.lambda * cx.tick as f64;
        let key = if cx.first_use {
            // The prefetching study: the first demand access is the block's first reference.
            now
        } else {
            let d = self.key[b as usize] - now;
            if d < NEGLIGIBLE {
                now
            } else {
                now + (1.0 + d.exp2()).log2()
            }
        };
        self.rekey(b, key, cx.tick);
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        let root = self.heap.first()?;
        if !frames.is_pinned(root.block) {
            return Some(root.block);
        }
        // Best-first walk from the root: the next candidate is always the smallest slot whose
        // ancestors are all pinned, so the first unpinned one found is the minimum unpinned.
        self.frontier.clear();
        self.frontier.push(0);
        while !self.frontier.is_empty() {
            let (k, &at) = self
                .frontier
                .iter()
                .enumerate()
                .min_by(|a, b| {
                    let (x, y) = (&self.heap[*a.1], &self.heap[*b.1]);
                    (x.ord, x.seq).cmp(&(y.ord, y.seq))
                })
                .expect("frontier is not empty");
            self.frontier.swap_remove(k);
            let b = self.heap[at].block;
            if !frames.is_pinned(b) {
                return Some(b);
            }
            for child in [2 * at + 1, 2 * at + 2] {
                if child < self.heap.len() {
                    self.frontier.push(child);
                }
            }
        }
        None
    }

    #[inline]
    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        let at = self.pos[b as usize] as usize;
        self.pos[b as usize] = NOWHERE;
        let last = self.heap.pop().expect("evicted block is in the heap");
        if at < self.heap.len() {
            self.place(at, last);
            self.sift_down(at);
            self.sift_up(self.pos[last.block as usize] as usize);
        }
    }

    #[inline]
    fn on_insert(&mut self, b: Block, kind: InsertKind, cx: &Access) {
        let tick = insert_tick(kind, cx, self.prefetch_at_trigger);
        // Demand or prefetch alike: CRF = F(0) as of now, the most recently accessed block.
        let i = b as usize;
        let key = self.lambda * tick as f64;
        self.key[i] = key;
        self.last[i] = tick;
        let seq = self.stamp();
        self.heap.push(Slot {
            ord: ordered(key),
            seq,
            block: b,
        });
        let at = self.heap.len() - 1;
        self.pos[i] = at as u32;
        self.sift_up(at);
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    fn len(&self) -> usize {
        self.heap.len()
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        check_same_residents(self.heap.iter().map(|s| s.block), frames)?;
        for (at, s) in self.heap.iter().enumerate() {
            let i = s.block as usize;
            if self.pos[i] as usize != at {
                return Err(format!(
                    "block {} at heap slot {at} but indexed at {}",
                    s.block, self.pos[i]
                ));
            }
            if !self.key[i].is_finite() || s.ord != ordered(self.key[i]) {
                return Err(format!(
                    "block {}: heap key out of date or not finite",
                    s.block
                ));
            }
            if s.seq == 0 || s.seq > self.seq {
                return Err(format!(
                    "block {}: recency stamp {} out of range",
                    s.block, s.seq
                ));
            }
            if at > 0 && s.before(&self.heap[(at - 1) / 2]) {
                return Err(format!("heap order broken at slot {at}"));
            }
            // CRF as of LAST is between F(0) = 1 and the sum of every possible reference.
            let log_crf = self.key[i] - self.lambda * self.last[i] as f64;
            if log_crf < -1e-9 * (1.0 + self.key[i].abs()) {
                return Err(format!(
                    "block {}: CRF below F(0) at its last reference",
                    s.block
                ));
            }
        }
        let indexed = self.pos.iter().filter(|&&p| p != NOWHERE).count();
        if indexed != self.heap.len() {
            return Err(format!(
                "{indexed} blocks indexed, heap holds {}",
                self.heap.len()
            ));
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        let mut slots = self.heap.clone();
        slots.sort_unstable_by_key(|s| (s.ord, s.seq));
        vec![("victim_first", slots.into_iter().map(|s| s.block).collect())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::testutil::{pattern, run};
    use crate::policy::NEVER;
    use proptest::prelude::*;

    /// The definition, computed directly: per resident block the list of its reference times;
    /// the victim has the smallest sum of `(1/2)^(lambda (t - t_i))`, ties to the least recently
    /// referenced.
    struct Model {
        lambda: f64,
        cap: usize,
        /// (block, reference times during residency, recency stamp)
        resident: Vec<(u32, Vec<u64>, u64)>,
        seq: u64,
        hits: u64,
    }

    impl Model {
        fn new(lambda: f64, cap: usize) -> Model {
            Model {
                lambda,
                cap,
                resident: Vec::new(),
                seq: 0,
                hits: 0,
            }
        }

        fn crf(&self, times: &[u64], t: u64) -> f64 {
            times
                .iter()
                .map(|&ti| 0.5f64.powf(self.lambda * (t - ti) as f64))
                .sum()
        }

        fn access(&mut self, b: u32, t: u64) {
            self.seq += 1;
            if let Some(r) = self.resident.iter_mut().find(|r| r.0 == b) {
                self.hits += 1;
                r.1.push(t);
                r.2 = self.seq;
                return;
            }
            if self.resident.len() == self.cap {
                let (k, _) = self
                    .resident
                    .iter()
                    .enumerate()
                    .map(|(k, r)| (k, (self.crf(&r.1, t), r.2)))
                    .min_by(|a, b| a.1 .0.total_cmp(&b.1 .0).then(a.1 .1.cmp(&b.1 .1)))
                    .unwrap();
                self.resident.remove(k);
            }
            self.resident.push((b, vec![t], self.seq));
        }

        fn order(&self, t: u64) -> Vec<u32> {
            let mut v: Vec<(f64, u64, u32)> = self
                .resident
                .iter()
                .map(|r| (self.crf(&r.1, t), r.2, r.0))
                .collect();
            v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            v.into_iter().map(|x| x.2).collect()
        }
    }

    fn refs_strategy() -> impl Strategy<Value = Vec<u32>> {
        proptest::collection::vec(0u32..10, 1..200)
    }

    #[test]
    fn hand_worked_sequence_lambda_one_half() {
        // lambda = 0.5, cap 3. F(x) = 2^(-x/2).
        // t0 a(1) t1 b(2) t2 a: CRF(a) = 1 + 2^-1 = 1.5
        // t3 c(3): full now. t4 d(4): CRF at 4: a = 1.5 * 2^-1 = 0.75, b = 2^-1.5 = 0.354,
        //   c = 2^-0.5 = 0.707 -> evict b.
        // t5 b: at 5: a = 1.5 * 2^-1.5 = 0.530, c = 2^-1 = 0.5, d = 2^-0.5 -> evict c.
        // t6 a hit: CRF(a) = 1 + 1.5 * 2^-2 = 1.375.
        let refs = [1, 2, 1, 3, 4, 2, 1];
        assert_eq!(pattern(|| LrfuPolicy::new(0.5, 5), 3, &refs), "mmhmmmh");
        let level = run(LrfuPolicy::new(0.5, 5), 3, &refs);
        // At t = 7: a = 1.375 * 2^-0.5 = 0.972, b = 2^-1 = 0.5, d = 2^-1.5 = 0.354.
        assert_eq!(level.policy.dump()[0].1, vec![4, 2, 1]);
        let crf = level.policy.crf_at(1, 6).unwrap();
        assert!((crf - 1.375).abs() < 1e-12, "{crf}");
    }

    #[test]
    fn lfu_end_keeps_the_frequent_block_and_ties_go_lru() {
        // lambda = 0, cap 2: 1 1 2 | 3 evicts 2 (count 1 against 2) | 2 evicts 3 (count 1).
        let refs = [1, 1, 2, 3, 2];
        assert_eq!(pattern(|| LrfuPolicy::new(0.0, 4), 2, &refs), "mhmmm");
        let level = run(LrfuPolicy::new(0.0, 4), 2, &refs);
        assert_eq!(level.policy.dump()[0].1, vec![2, 1]);
        // Equal counts: the less recently referenced goes first.
        let level = run(LrfuPolicy::new(0.0, 5), 3, &[1, 2, 3, 4]);
        assert_eq!(level.policy.dump()[0].1, vec![2, 3, 4]);
    }

    #[test]
    fn prefetched_block_counts_once_on_first_use() {
        let mut level = CacheLevel::new(LrfuPolicy::new(0.0, 4), 3, 4);
        level.access(1, NEVER); // t0
        level.prefetch(2, NEVER); // CRF 1 at t1
        level.access(2, NEVER); // first use at t1: reset to F(0), not 2
        level.access(3, NEVER); // t2
        level.access(1, NEVER); // t3: CRF(1) = 2
        level.check().unwrap();
        // 2 and 3 both have count 1; 2 is the less recent.
        assert_eq!(level.policy.dump()[0].1, vec![2, 3, 1]);
    }

    #[test]
    fn unused_prefetch_leaves_no_history() {
        let mut level = CacheLevel::new(LrfuPolicy::new(0.0, 4), 1, 4);
        level.access(1, NEVER);
        level.access(1, NEVER);
        level.prefetch(2, NEVER); // evicts 1 (only frame)
        level.access(3, NEVER); // evicts the unused prefetch 2
        assert_eq!(level.stats().prefetch_unused_evicted, 1);
        level.access(2, NEVER); // a plain miss, restarting at F(0)
        assert_eq!(level.stats().hits, 1);
        assert_eq!(level.policy.log2_crf_at(2, level.tick() - 1), Some(0.0));
    }

    #[test]
    fn no_underflow_on_a_long_run() {
        // lambda = 0.001. Block 0 is referenced 1000 times, block 1 once, then 2 M references to
        // block 2. Afterwards both CRFs are below 2^-1500 (0 in plain f64), yet block 0's CRF is
        // about 600 times block 1's: a new block must evict 1, not 0.
        let mut level = CacheLevel::new(LrfuPolicy::new(0.001, 4), 3, 4);
        for _ in 0..1000 {
            level.access(0, NEVER);
        }
        level.access(1, NEVER);
        for _ in 0..2_000_000 {
            level.access(2, NEVER);
        }
        let t = level.tick();
        let p = &level.policy;
        let (l0, l1) = (p.log2_crf_at(0, t).unwrap(), p.log2_crf_at(1, t).unwrap());
        assert!(l0 < -1500.0 && l1 < -1500.0, "{l0} {l1}");
        assert!(
            p.crf_at(0, t).unwrap() == 0.0,
            "plain f64 would underflow here"
        );
        assert!(l0 - l1 > 9.0 && l0 - l1 < 10.0, "{}", l0 - l1);
        // CRF(2) has converged to 1 / (1 - 2^-0.001).
        let l2 = p.log2_crf_at(2, t - 1).unwrap();
        let limit = (1.0 / (1.0 - 0.5f64.powf(0.001))).log2();
        assert!((l2 - limit).abs() < 1e-9, "{l2} {limit}");
        level.access(3, NEVER);
        level.check().unwrap();
        assert!(level.frames().is_resident(0));
        assert!(!level.frames().is_resident(1));
    }

    #[test]
    fn pinned_minimum_is_skipped() {
        let mut level = CacheLevel::new(LrfuPolicy::new(0.0, 6), 3, 6);
        for b in [1, 2, 2, 3, 3, 3] {
            level.access(b, NEVER);
        }
        level.set_pinned(1, true);
        level.access(4, NEVER); // 1 (count 1) pinned: next smallest is 2 (count 2)
        assert!(level.frames().is_resident(1) && !level.frames().is_resident(2));
        level.set_pinned(4, true);
        level.set_pinned(3, true);
        level.access(5, NEVER);
        assert_eq!(level.stats().bypassed, 1);
        level.check().unwrap();
    }

    #[test]
    fn from_spec_validates_lambda() {
        let mut spec = PolicySpec::parse("lrfu").unwrap();
        assert_eq!(LrfuPolicy::from_spec(&spec, 4, 4).unwrap().lambda(), 0.001);
        spec.set("lambda", "1.5").unwrap();
        assert!(LrfuPolicy::from_spec(&spec, 4, 4).is_err());
        spec.set("lambda", "x").unwrap();
        assert!(LrfuPolicy::from_spec(&spec, 4, 4).is_err());
    }

    proptest! {
        #[test]
        fn lambda_one_is_lru(cap in 1usize..6, refs in refs_strategy()) {
            let level = run(LrfuPolicy::new(1.0, 10), cap, &refs);
            let mut model: Vec<u32> = Vec::new();
            let mut hits = 0;
            for &b in &refs {
                if let Some(p) = model.iter().position(|&x| x == b) {
                    hits += 1;
                    model.remove(p);
                } else if model.len() == cap {
                    model.pop();
                }
                model.insert(0, b);
            }
            model.reverse();
            prop_assert_eq!(level.stats().hits, hits);
            prop_assert_eq!(&level.policy.dump()[0].1, &model);
        }

        #[test]
        fn lambda_zero_is_lfu_with_lru_ties(cap in 1usize..6, refs in refs_strategy()) {
            let level = run(LrfuPolicy::new(0.0, 10), cap, &refs);
            // (block, count, last reference index)
            let mut model: Vec<(u32, u64, usize)> = Vec::new();
            let mut hits = 0;
            for (i, &b) in refs.iter().enumerate() {
                if let Some(r) = model.iter_mut().find(|r| r.0 == b) {
                    hits += 1;
                    r.1 += 1;
                    r.2 = i;
                    continue;
                }
                if model.len() == cap {
                    let k = (0..model.len()).min_by_key(|&k| (model[k].1, model[k].2)).unwrap();
                    model.remove(k);
                }
                model.push((b, 1, i));
            }
            model.sort_by_key(|r| (r.1, r.2));
            let order: Vec<u32> = model.iter().map(|r| r.0).collect();
            prop_assert_eq!(level.stats().hits, hits);
            prop_assert_eq!(&level.policy.dump()[0].1, &order);
        }

        #[test]
        fn matches_the_definition(
            lambda in prop_oneof![Just(0.001), Just(0.01), Just(0.1), Just(0.3), Just(0.5), Just(0.7), Just(0.9)],
            cap in 1usize..6,
            refs in refs_strategy(),
        ) {
            let level = run(LrfuPolicy::new(lambda, 10), cap, &refs);
            let mut model = Model::new(lambda, cap);
            for (t, &b) in refs.iter().enumerate() {
                model.access(b, t as u64);
            }
            prop_assert_eq!(level.stats().hits, model.hits);
            prop_assert_eq!(&level.policy.dump()[0].1, &model.order(refs.len() as u64));
        }
    }
}
