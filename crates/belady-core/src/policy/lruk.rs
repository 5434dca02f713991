//! LRU-K: O'Neil, O'Neil and Weikum, "The LRU-K Page Replacement Algorithm for Database Disk
//! Buffering", ACM SIGMOD 1993, with its Correlated Reference Period (CRP) and retained history.
//!
//! Per block `p`: `HIST(p, 1..K)`, the times of its K most recent *uncorrelated* references
//! (`HIST(p, 1)` newest, 0 = none), and `LAST(p)`, the time of its most recent reference of any
//! kind. Times are virtual: a demand reference at `Access::tick` happens at time `tick + 1`, so
//! that 0 can mean "no reference".
//!
//! The paper's steps, as coded here (reference to `p` at time `t`):
//! - `p` resident, `t - LAST(p) > CRP` (uncorrelated): `corr = LAST(p) - HIST(p, 1)`; for
//!   `i = K` down to 2, `HIST(p, i) = HIST(p, i-1) + corr` (the preceding correlated burst
//!   collapses to one reference; a missing reference stays missing); `HIST(p, 1) = LAST(p) = t`.
//! - `p` resident, `t - LAST(p) <= CRP` (correlated): `LAST(p) = t` only.
//! - `p` not resident: the victim is the resident block `q`, eligible (`t - LAST(q) > CRP`),
//!   with the smallest `HIST(q, K)`, i.e. the largest backward K-distance; blocks with fewer than
//!   K uncorrelated references (`HIST(q, K) = 0`, infinite distance) go first. Then `p` is
//!   fetched: if history was retained for it, `HIST(p, i) = HIST(p, i-1)` for `i = K .. 2` (no
//!   correlation term), otherwise its history starts empty; `HIST(p, 1) = LAST(p) = t`.
//!
//! Structure (no scan per miss): resident blocks referenced within the last CRP ticks sit on an
//! *ineligible* list ordered by `LAST` (newest first); before each decision the blocks at its old
//! end whose `t - LAST > CRP` move into a binary heap keyed by `(HIST(K), HIST(1), id)` (lazy
//! deletion: an entry is live while its block is eligible with that key; stale entries are
//! dropped when met on top or by a rebuild once they outnumber the live ones), whose top live
//! unpinned entry is the victim. This is the study's AccuSim `lru2.cc` organisation (a T2
//! list of ineligible blocks and a heap of eligible ones), except that the ineligible list is kept
//! in `LAST` order so only its old end is examined instead of the whole list at every reference.
//!
//! Parameters: `k` (paper's recommendation and default 2), `crp` in references, and `history`,
//! the number of evicted blocks whose history is retained, as a multiple of the cache size.
//!
//! Documented choices:
//! - `crp` default 0 (`paper` preset). The paper's CRP is a wall-clock period tied to
//!   transaction structure (its examples use a few seconds) with no counterpart in a block trace
//!   that carries no transaction or process boundaries; with CRP 0 every reference is
//!   uncorrelated, which is the LRU-K the paper analyses (its optimality result). The `study`
//!   preset uses the prefetching study's CRP = 20 references.
//! - Retained history. The paper keeps history for a Retained Information Period measured in
//!   time (purged by a demon). We bound it by count, as the study's simulator does (RIP =
//!   `cachesize` histories, oldest dropped): `history = 1` (one cache size of entries) in both
//!   presets; `history = 0` retains nothing.
//! - Subsidiary policy among equal `HIST(K)` (the paper leaves it open; only infinite distances
//!   can tie): the oldest `HIST(1)` goes first, i.e. LRU over uncorrelated references. AccuSim's
//!   heap breaks these ties arbitrarily.
//! - No eligible unpinned block (all referenced within CRP, or the eligible ones pinned): the
//!   paper's loop finds no victim; as in AccuSim the LRU-most (oldest `LAST`) unpinned ineligible
//!   block is evicted.
//! - On a miss the missed block's retained history is claimed before the victim's history is
//!   added to the bounded retained list, so the victim cannot push it out.
//! - The shift loop runs from K down to 2 (the paper's printed "for i := 2 to K" would copy one
//!   value into every slot for K > 2).
//!
//! Prefetching (the study's section 4): a prefetched block enters without a reference: its
//! history is unchanged (empty, or retained if it had some) and `LAST = t` so it is ineligible for
//! the next CRP ticks ("considered last accessed less than the CRP ago"). Its first demand access
//! (`Access::first_use`) is handled as the fetch reference of a demand miss (history shifted
//! without correlation term, `HIST(1) = LAST = t`), so the prefetch time is never taken for a
//! penultimate reference. A prefetched block evicted unused (`Evicted::unused_prefetch`) loses
//! all history and leaves no retained entry.
//!
//! AccuSim's departures (the study's `lru2.cc`: `ties=heap`, `ineligible=entry`,
//! `first_use=correlated`, `prefetch_time=trigger`; all four under the `accusim` preset) are
//! AccuSim's variant, `AccusimLruK` in `compat/accusim/lruk.rs`, which the builder makes instead
//! of this type when any is set; this type refuses them.
//!
//! The promotion scan runs before each reference is applied, as in AccuSim.
//!
//! libCacheSim's `LRU_K` has neither CRP nor retained history (history is erased on eviction) and
//! orders blocks with fewer than K references by insertion (FIFO). With `k = 2`, `crp = 0` and
//! `history = 0` the two definitions coincide and agree hit for hit (asserted in
//! `tests/python/test_xcheck_lruk.py`); for K > 2 blocks with 2 .. K-1 references are ordered
//! by insertion there and by their newest reference here.

use super::lru::last_unpinned;
use super::registry::PolicySpec;
use super::structures::list::Lists;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;
use crate::error::Result as CoreResult;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// List of resident blocks referenced within the last CRP ticks, newest `LAST` first.
pub(crate) const INELIGIBLE: usize = 0;
/// List of evicted blocks whose history is retained, newest first.
pub(crate) const RETAINED: usize = 1;
/// List of eligible resident blocks (membership only; the heap orders them).
pub(crate) const ELIGIBLE: usize = 2;

/// Largest K accepted.
pub const MAX_K: usize = 16;

/// LRU-K with correlated reference period and retained history.
pub struct LruKPolicy {
    pub(crate) k: usize,
    crp: u64,
    retain: usize,
    /// `hist[b * k + i]` = `HIST(b, i + 1)`.
    pub(crate) hist: Vec<u64>,
    pub(crate) last: Vec<u64>,
    /// Ineligible (ordered by LAST), retained (newest evicted first), eligible (membership only).
    pub(crate) lists: Lists,
    /// Eligible resident blocks by `(HIST(K), HIST(1), id)`, smallest on top, with lazy
    /// deletion: an entry counts only while its block is on the eligible list with that key.
    eligible: BinaryHeap<Reverse<(u64, u64, Block)>>,
    /// `HIST(1)` of each eligible block as of its promotion (the second key of `eligible`).
    tie: Vec<u64>,
    /// Scratch: blocks promoted by one scan; pinned entries passed over.
    batch: Vec<Block>,
    skipped: Vec<Reverse<(u64, u64, Block)>>,
    /// A missed block whose retained history was claimed before the eviction.
    claimed: Option<Block>,
}

impl LruKPolicy {
    /// LRU-K with `k`, `crp` references and up to `retain` retained histories.
    pub fn new(k: usize, crp: u64, retain: usize, universe: usize) -> Self {
        assert!((1..=MAX_K).contains(&k));
        LruKPolicy {
            k,
            crp,
            retain,
            hist: vec![0; universe * k],
            last: vec![0; universe],
            lists: Lists::new(3, universe),
            eligible: BinaryHeap::new(),
            tie: vec![0; universe],
            batch: Vec::new(),
            skipped: Vec::new(),
            claimed: None,
        }
    }

    /// Reads `k`, `crp` and `history`. AccuSim's values of `ties`, `ineligible`, `first_use`
    /// and `prefetch_time` are refused: they are AccuSim's variant's, which the builder makes.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> CoreResult<Self> {
        for (key, paper, accusim) in ACCUSIM_VALUES {
            if spec.choice(key, &[paper, accusim])? == accusim {
                return Err(spec.variant_value(key, "AccuSim's LRU-K (AccusimLruK)"));
            }
        }
        Self::from_paper_params(spec, capacity, universe)
    }

    /// LRU-K with `spec`'s `k`, `crp` and `history` (AccuSim's parameters are not read).
    pub(crate) fn from_paper_params(
        spec: &PolicySpec,
        capacity: usize,
        universe: usize,
    ) -> CoreResult<Self> {
        let k = spec.usize("k", 1, MAX_K)?;
        let crp = spec.usize("crp", 0, u32::MAX as usize)?;
        let history = spec.f64("history", 0.0, 64.0)?;
        Ok(Self::new(
            k,
            crp as u64,
            (history * capacity as f64).floor() as usize,
            universe,
        ))
    }

    /// `HIST(b, 1..K)`, newest first, in the policy's time (demand tick + 1; 0 = none).
    pub fn hist(&self, b: Block) -> &[u64] {
        let i = b as usize * self.k;
        &self.hist[i..i + self.k]
    }

    /// `LAST(b)` in the policy's time.
    pub fn last(&self, b: Block) -> u64 {
        self.last[b as usize]
    }

    /// Number of evicted blocks whose history may be retained.
    pub fn retained_capacity(&self) -> usize {
        self.retain
    }

    #[inline]
    fn key(&self, b: Block) -> (u64, u64, Block) {
        (
            self.hist[b as usize * self.k + self.k - 1],
            self.tie[b as usize],
            b,
        )
    }

    /// Puts resident `b`, just referenced or inserted at `LAST(b)`, at the new end of the
    /// ineligible list.
    #[inline]
    pub(crate) fn make_ineligible(&mut self, b: Block) {
        self.lists.move_to_front(INELIGIBLE, b);
    }

    /// Whether a heap entry still describes an eligible block.
    #[inline]
    fn is_live(&self, e: (u64, u64, Block)) -> bool {
        self.lists.contains(ELIGIBLE, e.2) && self.key(e.2) == e
    }

    /// Takes off the ineligible list, into `out` (oldest `LAST` first), every block whose last
    /// reference is more than CRP before `now`.
    #[inline]
    pub(crate) fn take_newly_eligible(&mut self, now: u64, out: &mut Vec<Block>) {
        out.clear();
        while let Some(b) = self.lists.back(INELIGIBLE) {
            if now.saturating_sub(self.last[b as usize]) <= self.crp {
                break;
            }
            self.lists.remove(b);
            out.push(b);
        }
    }

    /// Makes `blocks`, just taken off the ineligible list, eligible, in this order: on the
    /// eligible list and in the heap under their keys.
    #[inline]
    pub(crate) fn make_eligible(&mut self, blocks: &[Block]) {
        for &b in blocks {
            self.lists.push_front(ELIGIBLE, b);
            self.tie[b as usize] = self.hist[b as usize * self.k];
            let key = self.key(b);
            self.eligible.push(Reverse(key));
        }
        // Drop stale entries once they outnumber the live ones (amortised O(1) per push).
        if self.eligible.len() > 2 * self.lists.len(ELIGIBLE) + 64 {
            let live: Vec<_> = self
                .lists
                .iter(ELIGIBLE)
                .map(|b| Reverse(self.key(b)))
                .collect();
            self.eligible = BinaryHeap::from(live);
        }
    }

    /// Moves every block whose last reference is more than CRP before `now` to the eligible set.
    #[inline]
    fn promote_eligible(&mut self, now: u64) {
        let mut batch = std::mem::take(&mut self.batch);
        self.take_newly_eligible(now, &mut batch);
        if !batch.is_empty() {
            self.make_eligible(&batch);
        }
        self.batch = batch;
    }

    /// The reference that fetches `b` (a demand miss, or the first use of a prefetch).
    #[inline]
    fn fetch_reference(&mut self, b: Block, now: u64) {
        let h = &mut self.hist[b as usize * self.k..(b as usize + 1) * self.k];
        h.copy_within(0..h.len() - 1, 1);
        h[0] = now;
        self.last[b as usize] = now;
    }

    /// Records a demand reference at `now` to resident `b` in `HIST` and `LAST` (the fetch
    /// reference if it is the first use of a prefetch, otherwise uncorrelated or correlated by
    /// CRP); returns whether it was correlated. The caller moves `b` to the ineligible list.
    #[inline]
    pub(crate) fn reference(&mut self, b: Block, now: u64, first_use: bool) -> bool {
        let i = b as usize;
        if first_use {
            self.fetch_reference(b, now);
            return false;
        }
        if now - self.last[i] <= self.crp {
            self.last[i] = now;
            return true;
        }
        let last = self.last[i];
        let h = &mut self.hist[i * self.k..(i + 1) * self.k];
        let corr = last - h[0];
        for j in (1..h.len()).rev() {
            h[j] = if h[j - 1] == 0 { 0 } else { h[j - 1] + corr };
        }
        h[0] = now;
        self.last[i] = now;
        false
    }

    /// Claims missed `incoming`'s retained history: its reference is looked up when it arrives,
    /// before the victim's history joins the bounded retained list and possibly pushes it out.
    #[inline]
    pub(crate) fn claim_retained(&mut self, incoming: Block) {
        if self.lists.contains(RETAINED, incoming) {
            self.lists.remove(incoming);
            self.claimed = Some(incoming);
        }
    }

    /// Non-resident `b` enters at `now`: a demand fetch is its fetch reference, a prefetch only
    /// sets `LAST` (retained history stays in place; a block without any is all zeros). The
    /// caller then makes it ineligible and runs the promotion scan.
    #[inline]
    pub(crate) fn enter(&mut self, b: Block, kind: InsertKind, now: u64) {
        self.claimed = None;
        self.lists.remove(b);
        match kind {
            InsertKind::Demand => self.fetch_reference(b, now),
            InsertKind::Prefetch => self.last[b as usize] = now,
        }
    }

    #[inline]
    fn forget(&mut self, b: Block) {
        self.hist[b as usize * self.k..(b as usize + 1) * self.k].fill(0);
        self.last[b as usize] = 0;
    }

    /// The unpinned eligible block with the smallest key, if any.
    pub(crate) fn eligible_victim(&mut self, frames: &Frames) -> Option<Block> {
        let mut found = None;
        while let Some(&Reverse(e)) = self.eligible.peek() {
            if !self.is_live(e) {
                self.eligible.pop();
            } else if frames.is_pinned(e.2) {
                self.skipped.push(Reverse(e));
                self.eligible.pop();
            } else {
                found = Some(e.2);
                break;
            }
        }
        self.eligible.extend(self.skipped.drain(..));
        found
    }

    /// Checks that every eligible block has a live heap entry.
    pub(crate) fn check_heap(&self) -> Result<(), String> {
        let live: std::collections::BTreeSet<_> = self
            .eligible
            .iter()
            .map(|&Reverse(e)| e)
            .filter(|&e| self.is_live(e))
            .collect();
        if let Some(b) = self
            .lists
            .iter(ELIGIBLE)
            .find(|&b| !live.contains(&self.key(b)))
        {
            return Err(format!("eligible block {b} has no live heap entry"));
        }
        Ok(())
    }

    /// Checks the lists, the ineligible list's `LAST` order, the retained bound and every
    /// block's history (everything but the eligible heap).
    pub(crate) fn check_history(&self, frames: &Frames) -> Result<(), String> {
        self.lists.check()?;
        check_same_residents(
            self.lists.iter(INELIGIBLE).chain(self.lists.iter(ELIGIBLE)),
            frames,
        )?;
        let mut prev = u64::MAX;
        for b in self.lists.iter(INELIGIBLE) {
            let l = self.last[b as usize];
            if l > prev {
                return Err(format!("ineligible list out of LAST order at block {b}"));
            }
            prev = l;
        }
        if self.lists.len(RETAINED) > self.retain {
            return Err(format!(
                "{} retained histories exceed the bound {}",
                self.lists.len(RETAINED),
                self.retain
            ));
        }
        for b in 0..self.last.len() as Block {
            let h = self.hist(b);
            let referenced = match self.lists.list_of(b) {
                None => {
                    if h.iter().any(|&x| x != 0) {
                        return Err(format!("forgotten block {b} keeps history {h:?}"));
                    }
                    continue;
                }
                Some(RETAINED) => true,
                Some(_) => !frames.is_unused_prefetch(b),
            };
            if referenced && (h[0] == 0 || h[0] > self.last[b as usize]) {
                return Err(format!("block {b}: HIST {h:?} inconsistent with LAST"));
            }
            if h.windows(2).any(|w| w[1] != 0 && w[1] >= w[0]) {
                return Err(format!("block {b}: HIST {h:?} not strictly decreasing"));
            }
        }
        Ok(())
    }
}

/// AccuSim's values of LRU-K's parameters, as `(key, the paper's value, AccuSim's value)`: the
/// paper's type refuses AccuSim's, which select AccuSim's variant
/// (`compat::accusim::lruk::AccusimLruK`) in the builder.
pub(crate) const ACCUSIM_VALUES: [(&str, &str, &str); 4] = [
    ("ties", "hist1", "heap"),
    ("ineligible", "last", "entry"),
    ("first_use", "fetch", "correlated"),
    ("prefetch_time", "next", "trigger"),
];

impl Policy for LruKPolicy {
    fn name(&self) -> &'static str {
        "lru-k"
    }

    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        let now = cx.tick + 1;
        // The scan precedes the reference (the same outcome either way here; AccuSim's variant,
        // whose heap operations depend on their order, scans first as AccuSim does).
        self.promote_eligible(now);
        self.reference(b, now, cx.first_use);
        self.make_ineligible(b);
    }

    #[inline]
    fn select_victim(&mut self, incoming: Block, frames: &Frames, cx: &Access) -> Option<Block> {
        self.claim_retained(incoming);
        self.promote_eligible(cx.tick + 1);
        let victim = self
            .eligible_victim(frames)
            .or_else(|| last_unpinned(&self.lists, INELIGIBLE, frames));
        if victim.is_none() {
            // Bypass (every frame pinned): the history stays retained.
            self.forget_victim();
        }
        victim
    }

    fn forget_victim(&mut self) {
        if let Some(x) = self.claimed.take() {
            self.lists.push_front(RETAINED, x);
        }
    }

    #[inline]
    fn on_evict(&mut self, b: Block, ev: Evicted, _cx: &Access) {
        self.lists.remove(b);
        if ev.unused_prefetch || self.retain == 0 {
            self.forget(b);
            return;
        }
        self.lists.push_front(RETAINED, b);
        if self.lists.len(RETAINED) > self.retain {
            let old = self
                .lists
                .pop_back(RETAINED)
                .expect("retained list is not empty");
            self.forget(old);
        }
    }

    #[inline]
    fn on_insert(&mut self, b: Block, kind: InsertKind, cx: &Access) {
        let now = cx.tick + 1;
        self.enter(b, kind, now);
        self.make_ineligible(b);
        self.promote_eligible(now);
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    fn len(&self) -> usize {
        self.lists.len(INELIGIBLE) + self.lists.len(ELIGIBLE)
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.check_history(frames)?;
        self.check_heap()
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        let mut live: Vec<_> = self.lists.iter(ELIGIBLE).map(|b| self.key(b)).collect();
        live.sort_unstable();
        vec![
            (
                "eligible_victim_first",
                live.into_iter().map(|(_, _, b)| b).collect(),
            ),
            (
                "ineligible_newest_first",
                self.lists.iter(INELIGIBLE).collect(),
            ),
            ("retained_newest_first", self.lists.iter(RETAINED).collect()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::lru::LruPolicy;
    use crate::policy::testutil::{pattern, run};

    #[test]
    fn paper_index_versus_record_example_scaled_down() {
        // The paper's motivating example (seed 004): references alternate between a few index
        // pages, each re-referenced often, and record pages referenced once. Scaled to 2 index
        // pages (0, 1), unique records (10..) and 3 frames: LRU never keeps an index page (three
        // other pages intervene), LRU-2 keeps both once it has seen them twice.
        //
        // LRU-2, CRP 0, 3 retained histories, times t = 1, 2, ...:
        // t1 0, t2 10, t3 1: fill. t4 11: all infinite, oldest HIST(1) is 0 -> evict 0.
        // t5 0: evict 10 (oldest infinite); 0 comes back with retained HIST = (5, 1).
        // t6 12: evict 1 (infinite, HIST(1) 3). t7 1: evict 11; 1 returns with HIST (7, 3).
        // t8 13: 0 and 1 have finite distance, 12 infinite -> evict 12.
        // From t9 on every index reference hits and each record evicts the previous record.
        let refs = [0, 10, 1, 11, 0, 12, 1, 13, 0, 14, 1, 15, 0, 16, 1, 17];
        let lru2 = || LruKPolicy::new(2, 0, 3, 18);
        assert_eq!(pattern(lru2, 3, &refs), "mmmmmmmmhmhmhmhm");
        assert_eq!(pattern(|| LruPolicy::new(18), 3, &refs), "m".repeat(16));
        let level = run(lru2(), 3, &refs);
        assert_eq!(level.policy.hist(0), &[13, 9]);
        assert_eq!(level.policy.hist(1), &[15, 11]);
        assert_eq!(
            level.policy.dump(),
            vec![
                ("eligible_victim_first", vec![0, 1]),
                ("ineligible_newest_first", vec![17]),
                ("retained_newest_first", vec![16, 15, 14]),
            ]
        );
    }

    #[test]
    fn paper_index_versus_record_example_full_size() {
        // The paper's example at its own size (seed 004): 100 B-tree leaf pages (0..100) and
        // 10,000 record pages (100..10,100), references alternating between a random leaf and a
        // random record, 100 frames (the paper's 101 less the always-resident root). Each leaf is
        // referenced with probability .005 per reference, each record .00005. The paper: LRU
        // holds about 50 leaf pages (a little fewer), while the frames should hold the leaves.
        fn leaves_held<P: Policy>(policy: P) -> (f64, f64) {
            let mut level = CacheLevel::new(policy, 100, 10_100);
            let mut state: u64 = 0x2545_f491_4f6c_dd1d;
            let mut draw = |n: u64| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state % n) as Block
            };
            let (mut held, mut samples, mut leaf_hits, mut leaf_refs) = (0usize, 0usize, 0, 0);
            for i in 0..40_000 {
                let leaf = draw(100);
                let record = 100 + draw(10_000);
                let hit =
                    level.access(leaf, crate::policy::NEVER) == crate::cache::level::Outcome::Hit;
                level.access(record, crate::policy::NEVER);
                if i >= 10_000 {
                    leaf_refs += 1;
                    leaf_hits += usize::from(hit);
                    held += (0..100).filter(|&b| level.frames().is_resident(b)).count();
                    samples += 1;
                }
            }
            level.check().unwrap();
            (
                held as f64 / samples as f64,
                leaf_hits as f64 / leaf_refs as f64,
            )
        }
        let (lru_leaves, lru_hit) = leaves_held(LruPolicy::new(10_100));
        let (lru2_leaves, lru2_hit) = leaves_held(LruKPolicy::new(2, 0, 100, 10_100));
        // LRU: under 50 leaves (43.3 here) and as many leaf misses as hits.
        assert!(
            (35.0..50.0).contains(&lru_leaves),
            "LRU holds {lru_leaves} leaves"
        );
        assert!(lru_hit < 0.5, "LRU leaf hit ratio {lru_hit}");
        // LRU-2 keeps nearly every leaf (94.6 here; one frame always holds the newest record).
        assert!(lru2_leaves > 90.0, "LRU-2 holds {lru2_leaves} leaves");
        assert!(lru2_hit > 0.9, "LRU-2 leaf hit ratio {lru2_hit}");
    }

    #[test]
    fn hand_worked_crp_sequence() {
        // K 2, CRP 2, 3 frames, 3 retained histories.
        // t1 1 miss (1, -), t2 1 correlated, t3 1 correlated (LAST 3).
        // t4 2 miss, t5 3 miss.
        // t6 1: 6 - 3 > 2, uncorrelated: corr = 3 - 1 = 2, HIST = (6, 1 + 2) = (6, 3).
        // t7 4: eligible are blocks with LAST < 5: only 2 (LAST 4) -> evict 2.
        // t8 5: LAST < 6: 3 -> evict 3.
        // t9 2: LAST < 7: 1 (HIST (6, 3)) is the only eligible block -> evicted although hot;
        //       2 returns with its retained history: HIST (9, 4).
        let refs = [1, 1, 1, 2, 3, 1, 4, 5, 2];
        let make = || LruKPolicy::new(2, 2, 3, 8);
        assert_eq!(pattern(make, 3, &refs), "mhhmmhmmm");
        let level = run(make(), 3, &refs);
        assert_eq!(level.policy.hist(1), &[6, 3]);
        assert_eq!(level.policy.hist(2), &[9, 4]);
        assert_eq!(level.policy.last(1), 6);
        assert_eq!(
            level.policy.dump(),
            vec![
                ("eligible_victim_first", vec![]),
                ("ineligible_newest_first", vec![2, 5, 4]),
                ("retained_newest_first", vec![1, 3]),
            ]
        );
        // Without the correlation term the shift would have given (6, 1).
    }

    #[test]
    fn no_eligible_block_falls_back_to_oldest_last() {
        // CRP 5: at t3 neither 1 (LAST 1) nor 2 (LAST 2) is eligible; 1 is the LRU end.
        let level = run(LruKPolicy::new(2, 5, 2, 4), 2, &[1, 2, 3]);
        assert_eq!(
            level.policy.dump(),
            vec![
                ("eligible_victim_first", vec![]),
                ("ineligible_newest_first", vec![3, 2]),
                ("retained_newest_first", vec![1]),
            ]
        );
    }

    #[test]
    fn retained_history_is_bounded_and_used() {
        // c 1, 1 retained history: 1 2 1 -> 1 returns with (3, 1); 1 2 3 1 -> 1's history was
        // pushed out by 2's, so it starts fresh.
        let level = run(LruKPolicy::new(2, 0, 1, 4), 1, &[1, 2, 1]);
        assert_eq!(level.policy.hist(1), &[3, 1]);
        let level = run(LruKPolicy::new(2, 0, 1, 4), 1, &[1, 2, 3, 1]);
        assert_eq!(level.policy.hist(1), &[4, 0]);
        assert_eq!(level.policy.hist(2), &[0, 0]);
        assert_eq!(level.policy.hist(3), &[3, 0]);
    }

    #[test]
    fn k3_shift_runs_downwards_with_corr() {
        // K 3, CRP 1, one frame... 4 frames so nothing is evicted.
        // t1 1, t2 1 (corr.), t3 2, t4 1: corr = 2 - 1 = 1: HIST = (4, 2, 0).
        // t5 2, t6 1: 6 - 4 > 1, corr 0: HIST = (6, 4, 2).
        let level = run(LruKPolicy::new(3, 1, 4, 4), 4, &[1, 1, 2, 1, 2, 1]);
        assert_eq!(level.policy.hist(1), &[6, 4, 2]);
    }

    #[test]
    fn prefetch_is_not_a_reference_and_unused_prefetch_leaves_no_history() {
        let mut level = CacheLevel::new(LruKPolicy::new(2, 0, 4, 8), 1, 8);
        level.prefetch(1, u64::MAX);
        assert_eq!(level.policy.hist(1), &[0, 0]);
        level.access(2, u64::MAX); // evicts 1, unused
        level.check().unwrap();
        assert_eq!(level.policy.dump()[2].1, Vec::<Block>::new());
        level.access(1, u64::MAX); // t2: fresh history, not a retained one
        assert_eq!(level.policy.hist(1), &[2, 0]);
        // A used prefetch: its first use is its first reference.
        let mut level = CacheLevel::new(LruKPolicy::new(2, 0, 4, 8), 2, 8);
        level.access(3, u64::MAX); // t1
        level.prefetch(1, u64::MAX);
        level.access(1, u64::MAX); // t2, first use
        assert_eq!(level.policy.hist(1), &[2, 0]);
        level.access(1, u64::MAX); // t3
        assert_eq!(level.policy.hist(1), &[3, 2]);
        level.check().unwrap();
    }

    #[test]
    fn prefetched_block_is_ineligible_within_crp() {
        // CRP 1, 3 frames. t1 1, t2 4, prefetch 2 (LAST 3, no history), t3 3: only 1 is
        // eligible (3 - 1 > 1), so 1 goes although 2 (infinite distance) would sort first.
        let mut level = CacheLevel::new(LruKPolicy::new(2, 1, 3, 8), 3, 8);
        level.access(1, u64::MAX);
        level.access(4, u64::MAX);
        level.prefetch(2, u64::MAX);
        level.access(3, u64::MAX);
        assert!(!level.frames().is_resident(1));
        // t4 5: eligible is 4 (LAST 2); 2 (LAST 3) is not yet.
        level.access(5, u64::MAX);
        assert!(!level.frames().is_resident(4) && level.frames().is_resident(2));
        // t5 6: 2 is now eligible with no history and goes first.
        level.access(6, u64::MAX);
        assert!(!level.frames().is_resident(2));
        level.check().unwrap();
    }

    /// The paper's steps written directly: scan every resident block at each miss.
    fn naive_lruk(
        k: usize,
        crp: u64,
        retain: usize,
        cap: usize,
        refs: &[Block],
    ) -> (u64, Vec<Vec<u64>>) {
        let n = 16;
        let mut hist = vec![vec![0u64; k]; n];
        let mut last = vec![0u64; n];
        let mut resident: Vec<Block> = Vec::new();
        let mut retained: std::collections::VecDeque<Block> = Default::default();
        let mut hits = 0;
        for (i, &p) in refs.iter().enumerate() {
            let t = i as u64 + 1;
            let pi = p as usize;
            if resident.contains(&p) {
                hits += 1;
                if t - last[pi] > crp {
                    let corr = last[pi] - hist[pi][0];
                    for j in (1..k).rev() {
                        hist[pi][j] = if hist[pi][j - 1] == 0 {
                            0
                        } else {
                            hist[pi][j - 1] + corr
                        };
                    }
                    hist[pi][0] = t;
                }
                last[pi] = t;
                continue;
            }
            let had = retained.iter().position(|&x| x == p);
            if let Some(pos) = had {
                retained.remove(pos);
            }
            if resident.len() == cap {
                let eligible = resident
                    .iter()
                    .copied()
                    .filter(|&q| t - last[q as usize] > crp);
                let victim = eligible
                    .min_by_key(|&q| (hist[q as usize][k - 1], hist[q as usize][0]))
                    .unwrap_or_else(|| {
                        *resident.iter().min_by_key(|&&q| last[q as usize]).unwrap()
                    });
                resident.retain(|&q| q != victim);
                if retain > 0 {
                    retained.push_front(victim);
                    if retained.len() > retain {
                        let old = retained.pop_back().unwrap();
                        hist[old as usize] = vec![0; k];
                    }
                } else {
                    hist[victim as usize] = vec![0; k];
                }
            }
            if had.is_none() {
                hist[pi] = vec![0; k];
            }
            for j in (1..k).rev() {
                hist[pi][j] = hist[pi][j - 1];
            }
            hist[pi][0] = t;
            last[pi] = t;
            resident.push(p);
        }
        (hits, hist)
    }

    proptest::proptest! {
        #[test]
        fn matches_the_naive_scan(
            k in 1usize..4,
            crp in 0u64..4,
            retain in 0usize..5,
            cap in 1usize..6,
            refs in proptest::collection::vec(0u32..16, 1..300),
        ) {
            let level = run(LruKPolicy::new(k, crp, retain, 16), cap, &refs);
            let (hits, hist) = naive_lruk(k, crp, retain, cap, &refs);
            proptest::prop_assert_eq!(level.stats().hits, hits);
            for b in 0..16u32 {
                proptest::prop_assert_eq!(level.policy.hist(b), &hist[b as usize][..], "block {}", b);
            }
        }
    }

    #[test]
    fn from_spec_presets() {
        use crate::policy::registry::{PolicySpec, Preset};
        let mut spec = PolicySpec::parse("lru2").unwrap();
        assert_eq!(spec.info.name, "lru-k");
        let p = LruKPolicy::from_spec(&spec, 100, 10).unwrap();
        assert_eq!((p.k, p.crp, p.retained_capacity()), (2, 0, 100));
        spec.preset = Preset::Study;
        let p = LruKPolicy::from_spec(&spec, 100, 10).unwrap();
        assert_eq!((p.k, p.crp, p.retained_capacity()), (2, 20, 100));
        spec.set("k", "0").unwrap();
        assert!(LruKPolicy::from_spec(&spec, 100, 10).is_err());
    }
}
