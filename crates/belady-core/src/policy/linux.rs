//! `linux`: the kernel's classic page-cache replacement, two LRU lists with refault detection
//! (mm/filemap.c, mm/swap.c, mm/vmscan.c and mm/workingset.c of Linux 6.18 with `lru_gen` off),
//! for file pages read through file descriptors, as a memory cgroup's limit reclaims them.
//!
//! What each step follows:
//! - **Insertion** (`filemap_add_folio` → `folio_add_lru`): a new page, demand-read or read ahead,
//!   enters at the head of the inactive list. A demand read then marks it accessed
//!   (`filemap_read` → `folio_mark_accessed`: PG_referenced set); a read-ahead page stays
//!   unreferenced until a read touches it.
//! - **Access** (`folio_mark_accessed`): an unreferenced page becomes referenced; a referenced
//!   inactive page is activated (`folio_activate`: to the head of the active list, PG_referenced
//!   cleared) and the non-resident age advances (`workingset_activation`). On the active list an
//!   access only sets PG_referenced. **A read that starts in the page where the previous read of
//!   the same file ended marks nothing** (`filemap_read`: `pos_same_folio(iocb->ki_pos,
//!   last_pos - 1, folio)` with `last_pos = ra->prev_pos`): a page read twice in a row, or in two
//!   halves, counts once. The engine says which references these are ([`Access::repeat`]).
//! - **Reclaim** (`try_charge_memcg` → `try_to_free_mem_cgroup_pages` → `do_try_to_free_pages`):
//!   when a page must enter a full cache, one reclaim cycle frees a batch. `nr_to_reclaim` is
//!   `SWAP_CLUSTER_MAX` (32); the priority falls from `DEF_PRIORITY` (12) to 0 until the pages
//!   reclaimed in the cycle reach it. At each priority, `prepare_scan_control` decides whether the
//!   active list may be deactivated (`may_deactivate`: the inactive list is low, or refault
//!   activations happened since the last cycle), `get_scan_count` scans `size >> priority` of each
//!   list, and `shrink_lruvec` alternates `min(left, 32)` pages of the inactive list
//!   (`shrink_inactive_list`) and of the active list (`shrink_active_list`, only when it may
//!   deactivate) until both are scanned or 32 pages were reclaimed at that priority. A cycle that
//!   reclaims nothing is run again with `force_deactivate`.
//! - **Eviction** (`shrink_folio_list`): the inactive tail, oldest first. A referenced clean page
//!   of an unmapped file is reclaimed all the same (`folio_check_references` returns
//!   `FOLIOREF_RECLAIM_CLEAN`). A page under I/O (pinned) is kept in place.
//! - **Deactivation** (`shrink_active_list`): page-cache pages not mapped by a process have no
//!   referenced page-table entries (`folio_referenced` returns 0), so every scanned active page
//!   moves to the inactive head, keeping its PG_referenced.
//! - **Balance** (`inactive_is_low`): the inactive list is low while `inactive × ratio < active`;
//!   `ratio` is `int_sqrt(10 × GiB)` of the lists' size in 4 KiB pages, 1 below 1 GiB.
//! - **Shadow entries** (`workingset_eviction`): an evicted page leaves the non-resident age in
//!   its slot, read before the age advances by one. When the page comes back
//!   (`workingset_refault` → `workingset_test_recent`), the refault distance, the age now minus
//!   the age at its eviction, is compared with the active list's size (file pages without swap);
//!   if it fits, the page enters the active list at once, the age advances, and the refault
//!   activation is counted (`WORKINGSET_ACTIVATE_FILE`, which `may_deactivate` watches). This
//!   holds for read-ahead pages too (`filemap_add_folio` checks the shadow of every page it adds).
//! - **Statistics**: `inactive_is_low`, the refault activations and the refault test read the
//!   memory cgroup's statistics (`lruvec_page_state`), which the kernel flushes every 2 seconds
//!   (`flush_memcg_stats_dwork`) or when something reads them (memory.stat). By default the model
//!   reads them fresh; `stats_every = N` refreshes them every N demand references instead, an
//!   approximation of the 2-second flush in a model without a clock.
//!
//! The cache's capacity is the cgroup's limit in pages: the level is full at the limit, and a
//! reclaim cycle then frees its batch (32 to 63 pages), so the cache holds about half a batch
//! less on average.
//!
//! Left out (documented in docs/policies.md): per-CPU LRU batches (`folio_batch`), NUMA nodes,
//! nested cgroups and global (kswapd) reclaim; mapped and executable pages (`folio_referenced`,
//! `VM_EXEC` protection); anonymous pages, swappiness and the anon/file balance; the shadow
//! shrinker (shadows are kept for as long as they can still pass the test: a refault distance
//! above the cache size never can); PG_workingset, which only feeds pressure statistics here.
//! Blocks evicted as unused prefetches leave no shadow (the kernel keeps one: belady's policy
//! contract forbids ghost entries for blocks never used).

use super::catalog::{ParamInfo, PolicyInfo};
use super::lru::last_unpinned;
use super::registry::{PolicySpec, PolicyVisitor};
use super::structures::list::Lists;
use super::{
    Access, Block, Evicted, InsertKind, OracleHooks, Pending, Policy, PrefetchHooks, SizeHooks,
};
use crate::cache::cache_model::Capacity;
use crate::cache::frames::Frames;
use crate::error::Result as CoreResult;
use std::collections::VecDeque;

/// The catalogue entry: name, aliases, description and parameters.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "linux",
    aliases: &["linux-lru", "two-list"],
    about: "Linux's active/inactive lists (mm/vmscan.c) with refault detection by shadow entries (mm/workingset.c)",
    params: &[
        ParamInfo {
            name: "inactive_ratio",
            default: "auto",
            study: None,
            accusim: None,
            about: "inactive_is_low's ratio: the active list is cut back while inactive x ratio < active; auto = int_sqrt(10 x GiB of 4 KiB pages), 1 below 1 GiB",
        },
        ParamInfo {
            name: "refault",
            default: "true",
            study: None,
            accusim: None,
            about: "shadow entries: a page refaulting within the active list's size of its eviction enters the active list",
        },
        ParamInfo {
            name: "stats_every",
            default: "0",
            study: None,
            accusim: None,
            about: "demand references between flushes of the memory cgroup statistics that reclaim and the refault test read (0: always fresh; the kernel flushes every 2 s, or when memory.stat is read)",
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
    Ok(visitor.visit(LinuxPolicy::from_spec(spec, capacity.entries, universe)?))
}

const INACTIVE: usize = 0;
const ACTIVE: usize = 1;

/// [`LinuxPolicy::flags`]: PG_referenced.
const REFERENCED: u8 = 1;
/// [`LinuxPolicy::flags`]: taken off the inactive list by the current reclaim cycle, still in the
/// frame table until the level evicts it.
const RECLAIMED: u8 = 2;

/// No shadow entry for a block.
const NO_SHADOW: u64 = u64::MAX;

/// Pages of 4 KiB in a GiB (`1 << (30 - PAGE_SHIFT)`).
const PAGES_PER_GIB: u64 = 1 << 18;

/// `SWAP_CLUSTER_MAX`: a reclaim cycle's target and the scan chunk.
const SWAP_CLUSTER_MAX: u64 = 32;

/// `DEF_PRIORITY`: a cycle starts by scanning `size >> 12` of each list.
const DEF_PRIORITY: u32 = 12;

/// The kernel's `int_sqrt`: the largest `r` with `r * r <= x`.
fn int_sqrt(x: u64) -> u64 {
    let mut r = (x as f64).sqrt() as u64;
    while r * r > x {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= x {
        r += 1;
    }
    r
}

/// The memory cgroup statistics reclaim decides on (`lruvec_page_state`).
#[derive(Copy, Clone, Default, Debug, PartialEq, Eq)]
struct Stats {
    inactive: u64,
    active: u64,
    /// `WORKINGSET_ACTIVATE_FILE`: refaults that entered the active list.
    refault_activations: u64,
}

/// Linux's active/inactive lists with shadow entries and batched reclaim.
pub struct LinuxPolicy {
    lists: Lists,
    /// [`REFERENCED`] and [`RECLAIMED`], by block.
    flags: Vec<u8>,
    /// The current reclaim cycle's pages, oldest first; those before `reclaimed_from` are gone.
    reclaimed: Vec<Block>,
    reclaimed_from: usize,
    /// Non-resident age at eviction, by block ([`NO_SHADOW`] when none).
    shadow: Vec<u64>,
    /// Shadows in eviction order, to drop those too old to pass the refault test.
    shadow_order: VecDeque<(Block, u64)>,
    /// `lruvec->nonresident_age`: evictions plus activations so far.
    nonresident_age: u64,
    /// Fixed `inactive_ratio`, or `None` for the kernel's `int_sqrt(10 × GiB)`.
    ratio: Option<u64>,
    /// Shadow entries on (`workingset_refault`); off gives the two lists alone.
    refault: bool,
    capacity: usize,
    /// Refault activations so far.
    refault_activations: u64,
    /// `target_lruvec->refaults[WORKINGSET_FILE]`: the activations the statistics showed when the
    /// last reclaim cycle ended (`snapshot_refaults`).
    refaults_at_reclaim: u64,
    /// Demand references between statistics flushes (0: always fresh).
    stats_every: u64,
    /// Demand references so far (for `stats_every`).
    references: u64,
    /// The statistics as last flushed (used when `stats_every` > 0).
    flushed: Stats,
}

impl LinuxPolicy {
    /// Two lists for `capacity` blocks over ids `0..universe`; `ratio` fixes `inactive_ratio`
    /// (`None`: the kernel's, from the size), `refault` turns the shadow entries on.
    pub fn new(capacity: usize, universe: usize, ratio: Option<u64>, refault: bool) -> Self {
        LinuxPolicy {
            lists: Lists::new(2, universe),
            flags: vec![0; universe],
            reclaimed: Vec::new(),
            reclaimed_from: 0,
            shadow: vec![NO_SHADOW; universe],
            shadow_order: VecDeque::new(),
            nonresident_age: 0,
            ratio,
            refault,
            capacity,
            refault_activations: 0,
            refaults_at_reclaim: 0,
            stats_every: 0,
            references: 0,
            flushed: Stats::default(),
        }
    }

    /// Statistics flushed every `n` demand references instead of read fresh (0: fresh).
    pub fn with_stats_every(mut self, n: u64) -> Self {
        self.stats_every = n;
        self
    }

    /// Reads `inactive_ratio` (`auto` or a whole number), `refault` and `stats_every` from `spec`.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> CoreResult<Self> {
        let ratio = match spec.raw("inactive_ratio") {
            "auto" => None,
            _ => Some(spec.usize("inactive_ratio", 1, 1 << 20)? as u64),
        };
        let every = spec.usize("stats_every", 0, u32::MAX as usize)? as u64;
        Ok(Self::new(capacity, universe, ratio, spec.bool("refault")?).with_stats_every(every))
    }

    /// The statistics as they are now.
    fn fresh(&self) -> Stats {
        Stats {
            inactive: self.lists.len(INACTIVE) as u64,
            active: self.lists.len(ACTIVE) as u64,
            refault_activations: self.refault_activations,
        }
    }

    /// The statistics reclaim reads: fresh, or as last flushed.
    fn stats(&self) -> Stats {
        if self.stats_every == 0 {
            self.fresh()
        } else {
            self.flushed
        }
    }

    /// Counts a demand reference, flushing the statistics every `stats_every`.
    #[inline]
    fn count_reference(&mut self) {
        if self.stats_every > 0 {
            self.references += 1;
            if self.references % self.stats_every == 0 {
                self.flushed = self.fresh();
            }
        }
    }

    /// `inactive_is_low(lruvec, LRU_INACTIVE_FILE)` on the statistics.
    fn inactive_is_low(&self) -> bool {
        let s = self.stats();
        let ratio = self.ratio.unwrap_or_else(|| {
            let gb = (s.inactive + s.active) / PAGES_PER_GIB;
            if gb == 0 {
                1
            } else {
                int_sqrt(10 * gb)
            }
        });
        s.inactive * ratio < s.active
    }

    /// One reclaim cycle (`do_try_to_free_pages` for a memory cgroup at its limit): takes the
    /// pages it reclaims off the lists into `reclaimed`, oldest first, stamping their shadows.
    fn reclaim(&mut self, frames: &Frames) {
        for force_deactivate in [false, true] {
            let mut reclaimed = 0;
            for priority in (0..=DEF_PRIORITY).rev() {
                // prepare_scan_control: when refaults are seen, a new working set is being
                // established, so stale active pages go.
                let may_deactivate = force_deactivate
                    || self.inactive_is_low()
                    || self.stats().refault_activations != self.refaults_at_reclaim;
                reclaimed += self.shrink_lruvec(priority, may_deactivate, frames);
                if reclaimed >= SWAP_CLUSTER_MAX {
                    break;
                }
            }
            // snapshot_refaults
            self.refaults_at_reclaim = self.stats().refault_activations;
            // A cycle that reclaimed nothing is retried with force_deactivate.
            if reclaimed > 0 {
                return;
            }
        }
    }

    /// `shrink_lruvec` at `priority`: returns the pages reclaimed.
    fn shrink_lruvec(&mut self, priority: u32, may_deactivate: bool, frames: &Frames) -> u64 {
        // get_scan_count (SCAN_FILE: no swap) reads the lists' exact sizes.
        let mut inactive = self.lists.len(INACTIVE) as u64 >> priority;
        let mut active = self.lists.len(ACTIVE) as u64 >> priority;
        let mut reclaimed = 0;
        while inactive > 0 || active > 0 {
            let n = inactive.min(SWAP_CLUSTER_MAX);
            inactive -= n;
            reclaimed += self.shrink_inactive(n, frames);
            let n = active.min(SWAP_CLUSTER_MAX);
            active -= n;
            if may_deactivate {
                self.shrink_active(n);
            }
            // Memory cgroup reclaim stops once a round reached the target (no anonymous list
            // to keep in proportion).
            if reclaimed >= SWAP_CLUSTER_MAX {
                break;
            }
        }
        reclaimed
    }

    /// `shrink_inactive_list`: scans `n` pages from the inactive tail and reclaims them (every
    /// clean unmapped page, referenced or not); a pinned page is passed over in place.
    fn shrink_inactive(&mut self, n: u64, frames: &Frames) -> u64 {
        let mut cur = self.lists.back(INACTIVE);
        let mut reclaimed = 0;
        for _ in 0..n {
            let Some(b) = cur else { break };
            cur = self.lists.toward_front(b);
            if frames.is_pinned(b) {
                continue;
            }
            self.lists.remove(b);
            self.reclaimed.push(b);
            self.evicted(b, frames.is_unused_prefetch(b));
            self.flags[b as usize] = RECLAIMED;
            reclaimed += 1;
        }
        reclaimed
    }

    /// `shrink_active_list`: `n` pages from the active tail move to the inactive head, in order.
    fn shrink_active(&mut self, n: u64) {
        for _ in 0..n {
            let Some(b) = self.lists.back(ACTIVE) else {
                break;
            };
            self.lists.remove(b);
            self.lists.push_front(INACTIVE, b);
        }
    }

    /// `workingset_eviction` for `b` leaving the lists: its shadow keeps the age, which then
    /// advances. An unused prefetch leaves no shadow (the policy contract).
    fn evicted(&mut self, b: Block, unused_prefetch: bool) {
        self.flags[b as usize] = 0;
        let at = self.nonresident_age;
        self.nonresident_age += 1;
        if self.refault && !unused_prefetch {
            self.shadow[b as usize] = at;
            self.shadow_order.push_back((b, at));
        }
        self.expire_shadows();
    }

    /// `folio_mark_accessed`.
    #[inline]
    fn mark_accessed(&mut self, b: Block) {
        let f = &mut self.flags[b as usize];
        if *f & REFERENCED == 0 {
            *f |= REFERENCED;
        } else if self.lists.contains(INACTIVE, b) {
            // folio_activate + workingset_activation.
            *f &= !REFERENCED;
            self.lists.remove(b);
            self.lists.push_front(ACTIVE, b);
            self.nonresident_age += 1;
        }
    }

    /// The next page of the reclaim cycle for the level to evict.
    fn next_reclaimed(&self) -> Option<Block> {
        self.reclaimed.get(self.reclaimed_from).copied()
    }

    /// The reclaim cycle's pages still in the frame table.
    fn still_reclaimed(&self) -> &[Block] {
        &self.reclaimed[self.reclaimed_from..]
    }

    /// Where flagged `b` is in the cycle's pages.
    fn position_reclaimed(&self, b: Block) -> usize {
        self.reclaimed_from
            + self
                .still_reclaimed()
                .iter()
                .position(|&x| x == b)
                .expect("a flagged page is in the cycle")
    }

    /// A page of the reclaim cycle stays after all: only when the level kept it (an admission
    /// filter asked for the victim and refused the newcomer, or `forget_victim`). It returns as a
    /// new inactive page without a shadow; the cycle's ages stay counted.
    fn unreclaim(&mut self, b: Block) {
        let at = self.position_reclaimed(b);
        self.reclaimed.remove(at);
        self.flags[b as usize] = 0;
        self.shadow[b as usize] = NO_SHADOW;
        self.lists.push_front(INACTIVE, b);
    }

    /// `workingset_test_recent` for `b`'s shadow (consumed): the refault distance fits in the
    /// active list, as the statistics show it.
    fn refault_is_recent(&mut self, b: Block) -> bool {
        let at = std::mem::replace(&mut self.shadow[b as usize], NO_SHADOW);
        at != NO_SHADOW && self.nonresident_age - at <= self.stats().active
    }

    /// Drops shadows whose distance already exceeds the cache size: the active list never
    /// holds more, so they can never pass the test.
    fn expire_shadows(&mut self) {
        while let Some(&(b, at)) = self.shadow_order.front() {
            if self.nonresident_age - at <= self.capacity as u64 {
                break;
            }
            self.shadow_order.pop_front();
            if self.shadow[b as usize] == at {
                self.shadow[b as usize] = NO_SHADOW;
            }
        }
    }
}

impl Policy for LinuxPolicy {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn wants_repeats(&self) -> bool {
        true
    }

    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        self.count_reference();
        if self.flags[b as usize] & RECLAIMED != 0 {
            self.unreclaim(b);
        }
        if !cx.repeat {
            self.mark_accessed(b);
        }
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        if self.next_reclaimed().is_none() {
            self.reclaimed.clear();
            self.reclaimed_from = 0;
            self.reclaim(frames);
        }
        self.next_reclaimed()
            .or_else(|| last_unpinned(&self.lists, INACTIVE, frames))
            .or_else(|| last_unpinned(&self.lists, ACTIVE, frames))
    }

    fn on_evict(&mut self, b: Block, ev: Evicted, _cx: &Access) {
        if self.flags[b as usize] & RECLAIMED == 0 {
            self.lists.remove(b);
            self.evicted(b, ev.unused_prefetch);
            return;
        }
        // A page of the reclaim cycle has its shadow already; the level evicts them in order
        // (another eviction of one, as an exclusive level's hand-over, takes it out of turn).
        self.flags[b as usize] = 0;
        if self.next_reclaimed() == Some(b) {
            self.reclaimed_from += 1;
        } else {
            let at = self.position_reclaimed(b);
            self.reclaimed.remove(at);
        }
    }

    fn on_insert(&mut self, b: Block, kind: InsertKind, cx: &Access) {
        if kind == InsertKind::Demand {
            self.count_reference();
        }
        if self.refault && self.refault_is_recent(b) {
            // `workingset_refault`: folio_set_active before folio_add_lru.
            self.lists.push_front(ACTIVE, b);
            self.nonresident_age += 1;
            self.refault_activations += 1;
        } else {
            self.lists.push_front(INACTIVE, b);
        }
        // The demand read marks the new page accessed, unless it starts where the previous read
        // ended; read-ahead leaves it unreferenced.
        self.flags[b as usize] = if kind == InsertKind::Demand && !cx.repeat {
            REFERENCED
        } else {
            0
        };
    }

    fn len(&self) -> usize {
        self.lists.len(INACTIVE) + self.lists.len(ACTIVE) + self.still_reclaimed().len()
    }
}

impl SizeHooks for LinuxPolicy {
    fn take_pending(&mut self) -> Option<Pending> {
        // The rest of the cycle's batch leaves at once, as the kernel frees it.
        self.next_reclaimed().map(Pending::Evict)
    }
}

impl PrefetchHooks for LinuxPolicy {
    fn forget_victim(&mut self) {
        // Asked only to know the victim: the cycle's pages go back to the inactive tail, oldest
        // last, with no shadow (the ages and deactivations of the cycle stay).
        for i in (self.reclaimed_from..self.reclaimed.len()).rev() {
            let b = self.reclaimed[i];
            self.flags[b as usize] = 0;
            self.shadow[b as usize] = NO_SHADOW;
            self.lists.push_back(INACTIVE, b);
        }
        self.reclaimed.truncate(self.reclaimed_from);
    }
}

impl OracleHooks for LinuxPolicy {}

#[cfg(test)]
impl crate::policy::Checked for LinuxPolicy {
    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.lists.check()?;
        crate::policy::check_same_residents(
            self.lists
                .iter(INACTIVE)
                .chain(self.lists.iter(ACTIVE))
                .chain(self.still_reclaimed().iter().copied()),
            frames,
        )?;
        if let Some(&b) = self
            .still_reclaimed()
            .iter()
            .find(|&&b| self.flags[b as usize] & RECLAIMED == 0)
        {
            return Err(format!("reclaimed block {b} is not flagged"));
        }
        if let Some(b) = (0..self.shadow.len()).find(|&b| {
            self.shadow[b] != NO_SHADOW
                && frames.is_resident(b as Block)
                && self.flags[b] & RECLAIMED == 0
        }) {
            return Err(format!("resident block {b} has a shadow entry"));
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        vec![
            ("active_head_to_tail", self.lists.iter(ACTIVE).collect()),
            ("inactive_head_to_tail", self.lists.iter(INACTIVE).collect()),
        ]
    }
}

#[cfg(test)]
#[path = "linux_tests.rs"]
mod tests;
