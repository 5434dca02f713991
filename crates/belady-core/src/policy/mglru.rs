//! `mglru`: the multi-generational LRU of Linux 6 (mm/vmscan.c's `lru_gen` code,
//! include/linux/mm_inline.h, mm/workingset.c), with its default build settings, for file pages
//! read through file descriptors.
//!
//! What each step follows (Linux 6.18):
//! - **Generations**: sequence numbers `min_seq..=max_seq`, between `MIN_NR_GENS` = 2 and
//!   `MAX_NR_GENS` = 4 of them (a fresh lruvec starts with `min_seq` 0 and `max_seq` 3); a
//!   block's list is `seq % MAX_NR_GENS`, new blocks at the head, eviction from the tail.
//! - **Insertion** (`lru_gen_folio_seq`): a clean file page enters generation
//!   `max(max_seq - MAX_NR_GENS + 1 + workingset, min_seq)`: the oldest one, or the one after it
//!   for a page that refaulted as part of the working set. Read-ahead pages enter the same way.
//! - **Access through a descriptor** (`folio_mark_accessed` → `lru_gen_inc_refs`): the first
//!   sets PG_referenced, the next three count in `LRU_REFS` (2 bits), a further one sets
//!   PG_workingset. `folio_lru_refs` is 0 without PG_referenced, else the count plus one; the
//!   tier is `order_base_2(refs)` (tiers 0, 1, 2), or 3 (`MAX_NR_TIERS - 1`) with PG_workingset
//!   (`lru_tier_from_refs`). An access never moves a page between generations: only mapped pages'
//!   page-table walks do that, and descriptors have none.
//! - **Eviction** (`evict_folios` → `scan_folios` → `sort_folio`): the oldest generation from
//!   its tail. A page whose tier is above `tier_idx`, or whose refs are saturated with
//!   PG_workingset set, is protected: moved to generation `min_seq + 1` (`folio_inc_gen`, which
//!   clears its refs and PG_referenced) at the head. Otherwise it is evicted, and its shadow
//!   keeps `min_seq`, `refs - 1` and PG_workingset (`lru_gen_eviction`).
//! - **Tier selection** (`get_tier_idx`): the refault rate of each tier against tier 0's with
//!   gains 3 and 2 and a floor of `MIN_LRU_BATCH` = 64 refaults (`positive_ctrl_err`); the
//!   counts of refaults, evictions and protections are averaged into the history at each
//!   `min_seq` step (`reset_ctrl_pos` with carry-over, `NR_HIST_GENS` = 1).
//! - **Generation steps**: an empty oldest generation is retired while more than `MIN_NR_GENS`
//!   remain (`try_to_inc_min_seq`); aging (`inc_max_seq`) opens a new youngest generation, first
//!   moving the oldest generation's pages into the next one when all `MAX_NR_GENS` are in use
//!   (`inc_min_seq`). `aging = kswapd` (default) ages whenever 3 or fewer generations remain, as
//!   background reclaim does (`lru_gen_age_node` → `should_run_aging`); `aging = direct` only when
//!   eviction would stall at `MIN_NR_GENS`, as direct reclaim at the default priority does.
//! - **Refaults** (`lru_gen_refault`, `lru_gen_test_recent`): a page whose shadow generation is
//!   within `MAX_NR_GENS` of `max_seq` counts as a refault of its tier; with PG_workingset it
//!   comes back with PG_workingset (one generation younger), otherwise with its refs count
//!   restored (which the demand read's first access then resets, as `lru_gen_inc_refs` does).
//!
//! Left out or simplified: the PID controller between anon and file (`get_type_to_scan`, no
//! anonymous pages here); the PID controller between tiers is the kernel's comparison on
//! averaged counts, but taken once per victim rather than once per scan batch; batches
//! (`MAX_LRU_BATCH`), priorities, `min_ttl_ms` and the thrashing guard; page-table walks,
//! `lru_gen_look_around` and the Bloom filters (no mapped pages); zones, memory cgroups and
//! `memcg` generations; dirty and writeback pages (a pinned page, whose I/O is in flight, is
//! passed over in place). A page kept by protection more often than the cache's size in one
//! victim search ends the search at the oldest generation's tail (the kernel's scan budget).
//! Blocks evicted as unused prefetches leave no shadow (belady's policy contract).

use super::registry::PolicySpec;
use super::structures::list::Lists;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;
use crate::error::Result as CoreResult;
use std::collections::VecDeque;

/// `MIN_NR_GENS`.
pub const MIN_NR_GENS: u64 = 2;
/// `MAX_NR_GENS`.
pub const MAX_NR_GENS: u64 = 4;
/// `MAX_NR_TIERS`.
const MAX_NR_TIERS: usize = 4;
/// Largest value of the 2-bit `LRU_REFS` counter.
const REFS_MAX: u8 = 3;
/// `MIN_LRU_BATCH` (`BITS_PER_LONG`).
const MIN_LRU_BATCH: u64 = 64;
/// No shadow entry.
const NO_SHADOW: u64 = u64::MAX;

/// When aging opens a new generation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Aging {
    /// Whenever `MIN_NR_GENS + 1` or fewer generations remain (kswapd's `lru_gen_age_node`).
    Kswapd,
    /// Only when eviction would stall at `MIN_NR_GENS` (direct reclaim at the default priority).
    Direct,
}

/// Per-tier feedback counts (`lrugen->refaulted`, `evicted`, `protected` and their averages).
#[derive(Clone, Debug, Default)]
struct TierCounts {
    refaulted: [u64; MAX_NR_TIERS],
    evicted: [u64; MAX_NR_TIERS],
    protected: [u64; MAX_NR_TIERS],
    avg_refaulted: [u64; MAX_NR_TIERS],
    avg_total: [u64; MAX_NR_TIERS],
}

impl TierCounts {
    /// `read_ctrl_pos`: (refaulted, total) of `tier`.
    fn pos(&self, tier: usize) -> (u64, u64) {
        (
            self.avg_refaulted[tier] + self.refaulted[tier],
            self.avg_total[tier] + self.protected[tier] + self.evicted[tier],
        )
    }

    /// `get_tier_idx`: the highest tier whose refault rate, and every lower tier's, is not above
    /// tier 0's (gains 2 for tier 0, 3 for the others); pages above it are protected.
    fn tier_idx(&self) -> usize {
        let (sp_ref, sp_total) = self.pos(0);
        let mut tier = 1;
        while tier < MAX_NR_TIERS {
            let (pv_ref, pv_total) = self.pos(tier);
            // `positive_ctrl_err(sp, pv)`.
            let positive = pv_ref < MIN_LRU_BATCH
                || pv_ref * (sp_total + MIN_LRU_BATCH) * 2 <= (sp_ref + 1) * pv_total * 3;
            if !positive {
                break;
            }
            tier += 1;
        }
        tier - 1
    }

    /// `reset_ctrl_pos(.., carryover = true)` with one history generation.
    fn carry_over(&mut self) {
        for t in 0..MAX_NR_TIERS {
            self.avg_refaulted[t] = (self.avg_refaulted[t] + self.refaulted[t]) / 2;
            self.avg_total[t] = (self.avg_total[t] + self.protected[t] + self.evicted[t]) / 2;
            self.refaulted[t] = 0;
            self.evicted[t] = 0;
            self.protected[t] = 0;
        }
    }
}

/// `lru_tier_from_refs`.
fn tier_of(refs: u8, workingset: bool) -> usize {
    if workingset {
        MAX_NR_TIERS - 1
    } else {
        // order_base_2: 0, 1 -> 0; 2 -> 1; 3, 4 -> 2.
        match refs {
            0 | 1 => 0,
            2 => 1,
            _ => 2,
        }
    }
}

/// The multi-generational LRU for file pages.
pub struct MglruPolicy {
    lists: Lists,
    min_seq: u64,
    max_seq: u64,
    /// Generation of each resident block.
    seq: Vec<u64>,
    /// PG_referenced.
    referenced: Vec<bool>,
    /// The `LRU_REFS` counter.
    counter: Vec<u8>,
    /// PG_workingset.
    workingset: Vec<bool>,
    /// Shadow: `min_seq` at eviction ([`NO_SHADOW`] when none), `refs - 1`, PG_workingset.
    shadow_seq: Vec<u64>,
    shadow_refs: Vec<u8>,
    shadow_ws: Vec<bool>,
    /// Shadows in eviction order, dropped once too old to be recent.
    shadow_order: VecDeque<(Block, u64)>,
    tiers: TierCounts,
    aging: Aging,
    refault: bool,
    capacity: usize,
}

impl MglruPolicy {
    /// An MGLRU for `capacity` blocks over ids `0..universe`.
    pub fn new(capacity: usize, universe: usize, aging: Aging, refault: bool) -> Self {
        MglruPolicy {
            lists: Lists::new(MAX_NR_GENS as usize, universe),
            min_seq: 0,
            max_seq: MIN_NR_GENS + 1,
            seq: vec![0; universe],
            referenced: vec![false; universe],
            counter: vec![0; universe],
            workingset: vec![false; universe],
            shadow_seq: vec![NO_SHADOW; universe],
            shadow_refs: vec![0; universe],
            shadow_ws: vec![false; universe],
            shadow_order: VecDeque::new(),
            tiers: TierCounts::default(),
            aging,
            refault,
            capacity,
        }
    }

    /// Reads `aging` and `refault` from `spec`.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> CoreResult<Self> {
        let aging = match spec.choice("aging", &["kswapd", "direct"])? {
            "direct" => Aging::Direct,
            _ => Aging::Kswapd,
        };
        Ok(Self::new(capacity, universe, aging, spec.bool("refault")?))
    }

    /// `(min_seq, max_seq)`.
    pub fn seqs(&self) -> (u64, u64) {
        (self.min_seq, self.max_seq)
    }

    /// The generation of resident block `b`.
    pub fn generation(&self, b: Block) -> u64 {
        self.seq[b as usize]
    }

    fn gens(&self) -> u64 {
        self.max_seq - self.min_seq + 1
    }

    fn list_of(seq: u64) -> usize {
        (seq % MAX_NR_GENS) as usize
    }

    /// `folio_lru_refs`.
    fn refs(&self, b: Block) -> u8 {
        if self.referenced[b as usize] {
            self.counter[b as usize] + 1
        } else {
            0
        }
    }

    /// `lru_gen_inc_refs`.
    fn inc_refs(&mut self, b: Block) {
        let i = b as usize;
        if !self.referenced[i] {
            self.referenced[i] = true;
            self.counter[i] = 0;
        } else if self.counter[i] == REFS_MAX {
            self.workingset[i] = true;
        } else {
            self.counter[i] += 1;
        }
    }

    /// Moves `b` to the head of generation `seq`.
    fn place(&mut self, b: Block, seq: u64) {
        if self.lists.list_of(b).is_some() {
            self.lists.remove(b);
        }
        self.seq[b as usize] = seq;
        self.lists.push_front(Self::list_of(seq), b);
    }

    /// `folio_inc_gen`: to `min_seq + 1`, refs and PG_referenced cleared.
    fn inc_gen(&mut self, b: Block) {
        self.referenced[b as usize] = false;
        self.counter[b as usize] = 0;
        self.place(b, self.min_seq + 1);
    }

    /// `try_to_inc_min_seq` for an empty oldest generation.
    fn retire_oldest(&mut self) {
        self.min_seq += 1;
        self.tiers.carry_over();
    }

    /// `inc_max_seq`: a new youngest generation; with every generation in use, the oldest one's
    /// pages first move into the next (`inc_min_seq`).
    fn age(&mut self) {
        if self.gens() == MAX_NR_GENS {
            let oldest = Self::list_of(self.min_seq);
            while let Some(b) = self.lists.back(oldest) {
                self.lists.remove(b);
                self.seq[b as usize] = self.min_seq + 1;
                self.lists.push_back(Self::list_of(self.min_seq + 1), b);
            }
            self.retire_oldest();
        }
        self.max_seq += 1;
        self.expire_shadows();
    }

    /// Drops shadows no longer within `MAX_NR_GENS` of `max_seq`.
    fn expire_shadows(&mut self) {
        while let Some(&(b, seq)) = self.shadow_order.front() {
            if self.max_seq - seq < MAX_NR_GENS {
                break;
            }
            self.shadow_order.pop_front();
            if self.shadow_seq[b as usize] == seq {
                self.shadow_seq[b as usize] = NO_SHADOW;
            }
        }
    }

    /// Whether aging is due before evicting.
    fn aging_due(&self) -> bool {
        match self.aging {
            Aging::Kswapd => self.gens() <= MIN_NR_GENS + 1,
            Aging::Direct => self.gens() <= MIN_NR_GENS,
        }
    }

    /// The tail-most unpinned block of generation list `l`.
    fn last_unpinned(&self, l: usize, frames: &Frames) -> Option<Block> {
        let mut cur = self.lists.back(l);
        while let Some(b) = cur {
            if !frames.is_pinned(b) {
                return Some(b);
            }
            cur = self.lists.toward_front(b);
        }
        None
    }
}

impl Policy for MglruPolicy {
    fn name(&self) -> &'static str {
        "mglru"
    }

    #[inline]
    fn on_hit(&mut self, b: Block, _cx: &Access) {
        self.inc_refs(b);
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        if self.len() == 0 {
            return None;
        }
        if self.aging_due() {
            self.age();
        }
        let tier_idx = self.tiers.tier_idx();
        let mut budget = self.capacity.max(self.len()) + 1;
        loop {
            let oldest = Self::list_of(self.min_seq);
            if self.lists.is_empty(oldest) {
                if self.gens() > MIN_NR_GENS {
                    self.retire_oldest();
                } else {
                    self.age();
                }
                continue;
            }
            let Some(b) = self.last_unpinned(oldest, frames) else {
                // Every page of the oldest generation is under I/O: the youngest-most unpinned
                // tail of any other generation, if there is one.
                return (1..MAX_NR_GENS)
                    .map(|k| Self::list_of(self.min_seq + k))
                    .find_map(|l| self.last_unpinned(l, frames));
            };
            let refs = self.refs(b);
            let ws = self.workingset[b as usize];
            let tier = tier_of(refs, ws);
            let saturated = refs == REFS_MAX + 1 && ws;
            if budget > 0 && (tier > tier_idx || saturated) {
                budget -= 1;
                self.inc_gen(b);
                if !saturated {
                    self.tiers.protected[tier] += 1;
                }
                continue;
            }
            return Some(b);
        }
    }

    fn on_evict(&mut self, b: Block, ev: Evicted, _cx: &Access) {
        let i = b as usize;
        let refs = self.refs(b);
        let ws = self.workingset[i];
        self.tiers.evicted[tier_of(refs, ws)] += 1;
        self.lists.remove(b);
        if self.refault && !ev.unused_prefetch {
            self.shadow_seq[i] = self.min_seq;
            self.shadow_refs[i] = refs.saturating_sub(1);
            self.shadow_ws[i] = ws;
            self.shadow_order.push_back((b, self.min_seq));
        }
        self.referenced[i] = false;
        self.counter[i] = 0;
        self.workingset[i] = false;
    }

    fn on_insert(&mut self, b: Block, kind: InsertKind, _cx: &Access) {
        let i = b as usize;
        self.referenced[i] = false;
        self.counter[i] = 0;
        self.workingset[i] = false;
        let shadow = std::mem::replace(&mut self.shadow_seq[i], NO_SHADOW);
        if self.refault && shadow != NO_SHADOW && self.max_seq - shadow < MAX_NR_GENS {
            let refs = self.shadow_refs[i] + 1;
            let ws = self.shadow_ws[i];
            self.tiers.refaulted[tier_of(refs, ws)] += 1;
            if ws {
                self.workingset[i] = true;
            } else {
                self.counter[i] = refs - 1;
            }
        }
        let ws = u64::from(self.workingset[i]);
        let seq = (self.max_seq + 1 + ws)
            .saturating_sub(MAX_NR_GENS)
            .max(self.min_seq);
        self.place(b, seq);
        if kind == InsertKind::Demand {
            self.inc_refs(b);
        }
    }

    fn len(&self) -> usize {
        (0..MAX_NR_GENS as usize).map(|l| self.lists.len(l)).sum()
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.lists.check()?;
        let all = (0..MAX_NR_GENS as usize).flat_map(|l| self.lists.iter(l));
        check_same_residents(all, frames)?;
        if !(MIN_NR_GENS..=MAX_NR_GENS).contains(&self.gens()) {
            return Err(format!(
                "{} generations ({}..={})",
                self.gens(),
                self.min_seq,
                self.max_seq
            ));
        }
        for l in 0..MAX_NR_GENS as usize {
            for b in self.lists.iter(l) {
                let s = self.seq[b as usize];
                if s < self.min_seq || s > self.max_seq || Self::list_of(s) != l {
                    return Err(format!(
                        "block {b} of generation {s} is on list {l} ({}..={})",
                        self.min_seq, self.max_seq
                    ));
                }
            }
        }
        if let Some(b) = (0..self.shadow_seq.len())
            .find(|&b| self.shadow_seq[b] != NO_SHADOW && frames.is_resident(b as Block))
        {
            return Err(format!("resident block {b} has a shadow entry"));
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        const NAMES: [&str; MAX_NR_GENS as usize] =
            ["max_seq", "max_seq-1", "max_seq-2", "max_seq-3"];
        NAMES
            .iter()
            .enumerate()
            .map(|(k, name)| {
                let s = self.max_seq.checked_sub(k as u64);
                let blocks = match s {
                    Some(s) if s >= self.min_seq => self.lists.iter(Self::list_of(s)).collect(),
                    _ => Vec::new(),
                };
                (*name, blocks)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::testutil::run;
    use crate::policy::NEVER;

    fn mglru(capacity: usize, universe: usize) -> MglruPolicy {
        MglruPolicy::new(capacity, universe, Aging::Kswapd, true)
    }

    /// New pages enter the oldest generation (`max_seq - 3` on a fresh lruvec: `min_seq`).
    #[test]
    fn new_pages_enter_the_oldest_generation() {
        let level = run(mglru(4, 8), 4, &[1, 2, 3]);
        assert_eq!(level.policy.seqs(), (0, 3));
        assert_eq!(level.policy.dump()[3], ("max_seq-3", vec![3, 2, 1]));
        for b in [1, 2, 3] {
            assert_eq!(level.policy.generation(b), 0);
        }
    }

    /// Accesses raise refs and tiers without moving a page; the fifth sets PG_workingset.
    #[test]
    fn accesses_count_refs_then_workingset() {
        let mut p = mglru(4, 8);
        let mut level = CacheLevel::new(mglru(4, 8), 4, 8);
        level.access(1, NEVER);
        assert_eq!(
            (level.policy.refs(1), level.policy.workingset[1]),
            (1, false)
        );
        for _ in 0..3 {
            level.access(1, NEVER);
        }
        assert_eq!(
            (level.policy.refs(1), level.policy.workingset[1]),
            (4, false)
        );
        level.access(1, NEVER);
        assert_eq!(
            (level.policy.refs(1), level.policy.workingset[1]),
            (4, true)
        );
        assert_eq!(level.policy.generation(1), 0, "accesses do not move pages");
        assert_eq!(tier_of(4, true), 3);
        assert_eq!(tier_of(2, false), 1);
        p.inc_refs(2);
        assert_eq!(p.refs(2), 1);
    }

    /// Eviction takes the oldest generation's tail; a saturated working-set page is protected
    /// instead: moved to `min_seq + 1` with its refs cleared.
    #[test]
    fn eviction_protects_the_saturated_working_set() {
        // c = 3: 1 read five times (saturated, PG_workingset), then 2 and 3, then 4.
        let refs = [1, 1, 1, 1, 1, 2, 3, 4];
        let level = run(mglru(3, 8), 3, &refs);
        let p = &level.policy;
        assert!(level.frames().is_resident(1));
        assert!(
            !level.frames().is_resident(2),
            "2 was the oldest unprotected"
        );
        assert!(p.generation(1) > p.generation(3), "1 moved up a generation");
        assert_eq!(p.refs(1), 0, "folio_inc_gen cleared its refs");
        // Pages read once are not protected: plain FIFO within the oldest generation.
        let level = run(mglru(3, 8), 3, &[1, 2, 3, 1, 4]);
        assert!(!level.frames().is_resident(1));
    }

    /// With new pages entering the oldest generation, a protected page waits in `min_seq + 1`
    /// for as long as the oldest generation keeps receiving pages: a stream cannot push it out.
    #[test]
    fn a_protected_page_outlives_a_stream() {
        let mut level = CacheLevel::new(mglru(2, 64), 2, 64);
        for _ in 0..5 {
            level.access(1, NEVER);
        }
        for b in 2..60 {
            level.access(b, NEVER);
            level.check().unwrap();
        }
        assert!(level.frames().is_resident(1));
        assert_eq!(level.policy.seqs(), (0, 3), "generation 0 never emptied");
    }

    /// Five accesses to each block: refs saturated and PG_workingset set.
    fn saturate(level: &mut CacheLevel<MglruPolicy>, blocks: &[Block]) {
        for &b in blocks {
            for _ in 0..5 {
                level.access(b, NEVER);
            }
        }
    }

    /// Generation steps: an oldest generation emptied by protection is retired (four
    /// generations become three), and the next victim search ages first under kswapd (a new
    /// youngest generation), or not under direct aging until only two are left.
    #[test]
    fn generations_age() {
        let mut level = CacheLevel::new(mglru(2, 16), 2, 16);
        saturate(&mut level, &[1, 2]);
        assert_eq!(level.policy.seqs(), (0, 3));
        // 3: both protected into generation 1, generation 0 retired, 1 (refs cleared, tier 3
        // not above tier_idx 3 without refault history) evicted.
        level.access(3, NEVER);
        level.check().unwrap();
        assert_eq!(level.policy.seqs(), (1, 3));
        assert!(!level.frames().is_resident(1));
        assert_eq!(
            level.policy.generation(3),
            1,
            "max_seq - 3 clamped to min_seq"
        );
        // 4: three generations left, kswapd ages first.
        level.access(4, NEVER);
        level.check().unwrap();
        assert_eq!(level.policy.seqs(), (1, 4));
        assert_eq!(level.policy.generation(4), 1);
        // Direct aging waits: after the same steps, still three generations.
        let mut d = CacheLevel::new(MglruPolicy::new(2, 16, Aging::Direct, true), 2, 16);
        saturate(&mut d, &[1, 2]);
        d.access(3, NEVER);
        d.access(4, NEVER);
        d.check().unwrap();
        assert_eq!(d.policy.seqs(), (1, 3));
    }

    /// A page evicted with PG_workingset and read again within `MAX_NR_GENS` generations comes
    /// back with PG_workingset, one generation younger than a new page (`max_seq - 2`), and
    /// counts as a refault of tier 3.
    #[test]
    fn a_working_set_refault_enters_one_generation_younger() {
        let refault = |on: bool| {
            let mut level = CacheLevel::new(MglruPolicy::new(2, 16, Aging::Kswapd, on), 2, 16);
            saturate(&mut level, &[1, 2]);
            // 3 evicts 1 (see generations_age); 1 again ages to (1, 4) and evicts 2.
            level.access(3, NEVER);
            level.access(1, NEVER);
            level.check().unwrap();
            level
        };
        let level = refault(true);
        assert_eq!(level.policy.seqs(), (1, 4));
        assert!(level.policy.workingset[1]);
        assert_eq!(level.policy.generation(1), 2);
        assert_eq!(level.policy.tiers.refaulted[3], 1);
        // Without shadows it is a new page: the oldest generation, no PG_workingset.
        let level = refault(false);
        assert!(!level.policy.workingset[1]);
        assert_eq!(level.policy.generation(1), 1);
    }

    /// Read-ahead pages enter the oldest generation unreferenced; the first use references them.
    #[test]
    fn a_prefetched_page_enters_the_oldest_generation_unreferenced() {
        let mut level = CacheLevel::new(mglru(4, 8), 4, 8);
        level.prefetch(5, NEVER);
        level.check().unwrap();
        assert_eq!(level.policy.generation(5), 0);
        assert_eq!(level.policy.refs(5), 0);
        level.access(5, NEVER);
        assert_eq!(level.policy.refs(5), 1);
    }

    /// The tier controller: with no refault history nothing is protected by tier; a tier that
    /// refaults far more often than tier 0 (past the 64-refault floor) is.
    #[test]
    fn tiers_refaulting_more_than_tier_zero_are_protected() {
        let mut t = TierCounts::default();
        assert_eq!(t.tier_idx(), MAX_NR_TIERS - 1);
        t.evicted[0] = 1000;
        t.refaulted[0] = 10;
        t.evicted[1] = 100;
        t.refaulted[1] = 80;
        assert_eq!(t.tier_idx(), 0, "tier 1 refaults 80% against tier 0's 1%");
        t.carry_over();
        assert_eq!(t.avg_refaulted[1], 40);
        assert_eq!(t.refaulted[1], 0);
    }
}
