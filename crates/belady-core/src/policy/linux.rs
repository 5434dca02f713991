//! `linux`: the kernel's classic page-cache replacement, two LRU lists with refault detection
//! (mm/swap.c, mm/vmscan.c and mm/workingset.c with `lru_gen` off), for file pages read through
//! file descriptors.
//!
//! What each step follows:
//! - **Insertion** (`filemap_add_folio` → `folio_add_lru`): a new page, demand-read or read ahead,
//!   enters at the head of the inactive list. A demand read then marks it accessed
//!   (`filemap_read` → `folio_mark_accessed`: PG_referenced set); a read-ahead page stays
//!   unreferenced until a read touches it.
//! - **Access** (`folio_mark_accessed`): an unreferenced page becomes referenced; a referenced
//!   inactive page is activated (`folio_activate`: to the head of the active list, PG_referenced
//!   cleared) and the non-resident age advances (`workingset_activation`). On the active list an
//!   access only sets PG_referenced.
//! - **Balance** (`inactive_is_low`): before a victim is taken, while
//!   `inactive × ratio < active` the tail of the active list is deactivated to the head of the
//!   inactive list (`shrink_active_list`: page-cache pages not mapped by a process have no
//!   referenced page-table entries, so every scanned page is deactivated, PG_referenced or not).
//!   `ratio` is `int_sqrt(10 × GiB)` of the lists' size in 4 KiB pages, 1 below 1 GiB.
//! - **Eviction** (`shrink_folio_list`): the tail of the inactive list. A referenced clean page
//!   of an unmapped file is reclaimed all the same (`folio_check_references` returns
//!   `FOLIOREF_RECLAIM_CLEAN`).
//! - **Shadow entries** (`workingset_eviction`): an evicted page leaves the non-resident age
//!   (advanced by one per eviction and per activation) in its slot. When the page comes back
//!   (`workingset_refault` → `workingset_test_recent`), the refault distance, the age now minus
//!   the age at its eviction, is compared with the active list's size (a file-only cache without
//!   swap); if it fits, the page enters the active list at once, and the age advances again.
//!   This holds for read-ahead pages too, as in the kernel (`filemap_add_folio` checks the shadow
//!   of every page it adds).
//!
//! Left out (documented in docs/policies.md): reclaim in batches of `SWAP_CLUSTER_MAX` pages at
//! falling priorities (one victim at a time here, the active list balanced page by page); the
//! deactivation that recent refaults force (`may_deactivate` after `WORKINGSET_ACTIVATE` moved);
//! mapped and executable pages (`folio_referenced`, `VM_EXEC` protection); anonymous pages,
//! swappiness and the anon/file balance; per-CPU LRU batches (`folio_batch`), memory cgroups and
//! NUMA nodes; the shadow shrinker (shadows are kept for as long as they can still pass the test:
//! a refault distance above the cache size never can); PG_workingset, which only feeds pressure
//! statistics here. Blocks evicted as unused prefetches leave no shadow (the kernel keeps one:
//! belady's policy contract forbids ghost entries for blocks never used).

use super::catalog::{ParamInfo, PolicyInfo};
use super::lru::last_unpinned;
use super::registry::{PolicySpec, PolicyVisitor};
use super::structures::list::Lists;
use super::{Access, Block, Evicted, InsertKind, OracleHooks, Policy, PrefetchHooks, SizeHooks};
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

/// No shadow entry for a block.
const NO_SHADOW: u64 = u64::MAX;

/// Pages of 4 KiB in a GiB (`1 << (30 - PAGE_SHIFT)`).
const PAGES_PER_GIB: u64 = 1 << 18;

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

/// Linux's active/inactive lists with shadow entries.
pub struct LinuxPolicy {
    lists: Lists,
    /// PG_referenced, by block.
    referenced: Vec<bool>,
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
}

impl LinuxPolicy {
    /// Two lists for `capacity` blocks over ids `0..universe`; `ratio` fixes `inactive_ratio`
    /// (`None`: the kernel's, from the size), `refault` turns the shadow entries on.
    pub fn new(capacity: usize, universe: usize, ratio: Option<u64>, refault: bool) -> Self {
        LinuxPolicy {
            lists: Lists::new(2, universe),
            referenced: vec![false; universe],
            shadow: vec![NO_SHADOW; universe],
            shadow_order: VecDeque::new(),
            nonresident_age: 0,
            ratio,
            refault,
            capacity,
        }
    }

    /// Reads `inactive_ratio` (`auto` or a whole number) and `refault` from `spec`.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> CoreResult<Self> {
        let ratio = match spec.raw("inactive_ratio") {
            "auto" => None,
            _ => Some(spec.usize("inactive_ratio", 1, 1 << 20)? as u64),
        };
        Ok(Self::new(capacity, universe, ratio, spec.bool("refault")?))
    }

    /// `inactive_is_low`'s ratio for the current list sizes.
    fn inactive_ratio(&self) -> u64 {
        if let Some(r) = self.ratio {
            return r;
        }
        let gb = self.len() as u64 / PAGES_PER_GIB;
        if gb == 0 {
            1
        } else {
            int_sqrt(10 * gb)
        }
    }

    /// `inactive_is_low(lruvec, LRU_INACTIVE_FILE)`.
    fn inactive_is_low(&self) -> bool {
        (self.lists.len(INACTIVE) as u64) * self.inactive_ratio() < self.lists.len(ACTIVE) as u64
    }

    /// `shrink_active_list` until the inactive list is no longer low: unmapped pages are
    /// deactivated from the active tail whatever their PG_referenced. Pinned pages stay.
    fn balance(&mut self, frames: &Frames) {
        let mut cur = self.lists.back(ACTIVE);
        while self.inactive_is_low() {
            let Some(b) = cur else { break };
            cur = self.lists.toward_front(b);
            if frames.is_pinned(b) {
                continue;
            }
            self.lists.remove(b);
            self.lists.push_front(INACTIVE, b);
        }
    }

    /// `folio_activate` + `workingset_activation`.
    fn activate(&mut self, b: Block) {
        self.lists.remove(b);
        self.lists.push_front(ACTIVE, b);
        self.referenced[b as usize] = false;
        self.nonresident_age += 1;
    }

    /// `workingset_test_recent` for `b`'s shadow (consumed): the refault distance fits in the
    /// active list.
    fn refault_is_recent(&mut self, b: Block) -> bool {
        let at = std::mem::replace(&mut self.shadow[b as usize], NO_SHADOW);
        at != NO_SHADOW && self.nonresident_age - at <= self.lists.len(ACTIVE) as u64
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

    #[inline]
    fn on_hit(&mut self, b: Block, _cx: &Access) {
        let r = &mut self.referenced[b as usize];
        if !*r {
            *r = true;
        } else if self.lists.contains(INACTIVE, b) {
            self.activate(b);
        }
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        self.balance(frames);
        last_unpinned(&self.lists, INACTIVE, frames)
            .or_else(|| last_unpinned(&self.lists, ACTIVE, frames))
    }

    fn on_evict(&mut self, b: Block, ev: Evicted, _cx: &Access) {
        self.lists.remove(b);
        self.referenced[b as usize] = false;
        // `workingset_eviction`: the age advances, and the page keeps it in its slot.
        self.nonresident_age += 1;
        if self.refault && !ev.unused_prefetch {
            self.shadow[b as usize] = self.nonresident_age;
            self.shadow_order.push_back((b, self.nonresident_age));
        }
        self.expire_shadows();
    }

    fn on_insert(&mut self, b: Block, kind: InsertKind, _cx: &Access) {
        if self.refault && self.refault_is_recent(b) {
            // `workingset_refault`: folio_set_active before folio_add_lru.
            self.lists.push_front(ACTIVE, b);
            self.nonresident_age += 1;
        } else {
            self.lists.push_front(INACTIVE, b);
        }
        // The demand read marks the new page accessed; read-ahead leaves it unreferenced.
        self.referenced[b as usize] = kind == InsertKind::Demand;
    }

    fn len(&self) -> usize {
        self.lists.len(INACTIVE) + self.lists.len(ACTIVE)
    }
}

impl SizeHooks for LinuxPolicy {}

impl PrefetchHooks for LinuxPolicy {}

impl OracleHooks for LinuxPolicy {}

#[cfg(test)]
impl crate::policy::Checked for LinuxPolicy {
    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.lists.check()?;
        crate::policy::check_same_residents(
            self.lists.iter(INACTIVE).chain(self.lists.iter(ACTIVE)),
            frames,
        )?;
        if let Some(b) = (0..self.shadow.len())
            .find(|&b| self.shadow[b] != NO_SHADOW && frames.is_resident(b as Block))
        {
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
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::lru::LruPolicy;
    use crate::policy::testutil::run;
    use crate::policy::Checked;
    use crate::policy::NEVER;

    fn linux(capacity: usize, universe: usize) -> LinuxPolicy {
        LinuxPolicy::new(capacity, universe, None, true)
    }

    fn lists(level: &CacheLevel<LinuxPolicy>) -> (Vec<Block>, Vec<Block>) {
        let d = level.policy.dump();
        (d[0].1.clone(), d[1].1.clone())
    }

    /// New pages enter the inactive list; the second reference activates (`folio_mark_accessed`).
    #[test]
    fn the_second_reference_activates() {
        let level = run(linux(4, 8), 4, &[1, 2, 3]);
        assert_eq!(lists(&level), (vec![], vec![3, 2, 1]));
        let level = run(linux(4, 8), 4, &[1, 2, 3, 2]);
        assert_eq!(lists(&level), (vec![2], vec![3, 1]));
        // On the active list a further access does not move it.
        let level = run(linux(4, 8), 4, &[1, 2, 1, 2, 1, 2]);
        assert_eq!(lists(&level), (vec![2, 1], vec![]));
    }

    /// A referenced inactive page is evicted from the tail all the same (an unmapped clean
    /// page: FOLIOREF_RECLAIM_CLEAN).
    #[test]
    fn eviction_takes_the_inactive_tail() {
        // 1 2 3 fill the inactive list (all referenced once); 4 evicts 1.
        let level = run(linux(3, 8), 3, &[1, 2, 3, 4]);
        assert_eq!(lists(&level), (vec![], vec![4, 3, 2]));
    }

    /// `inactive_is_low` with ratio 1: the active list is cut back to the inactive list's size
    /// before each victim, its tail going to the inactive head.
    #[test]
    fn the_active_list_is_kept_in_proportion() {
        // c = 4: 1 2 3 4 then each again: all four active, inactive empty.
        let refs = [1, 2, 3, 4, 1, 2, 3, 4];
        let level = run(linux(4, 16), 4, &refs);
        assert_eq!(lists(&level), (vec![4, 3, 2, 1], vec![]));
        // 5 needs a victim: inactive (0) is low against active (4): deactivate 1 and 2 (the
        // tail) until 2 × 1 >= 2, evict 1 from the inactive tail, insert 5.
        let mut r = refs.to_vec();
        r.push(5);
        let level = run(linux(4, 16), 4, &r);
        assert_eq!(lists(&level), (vec![4, 3], vec![5, 2]));
        // A fixed ratio of 3 keeps the active list at most 3 times the inactive one.
        let level = run(LinuxPolicy::new(4, 16, Some(3), true), 4, &r);
        assert_eq!(lists(&level), (vec![4, 3, 2], vec![5]));
    }

    /// The kernel's ratio: int_sqrt(10 × GiB) of the lists' size in 4 KiB pages.
    #[test]
    fn the_kernel_ratio_grows_with_the_square_root_of_the_size() {
        let mut p = linux(1 << 20, 1 << 20);
        assert_eq!(p.inactive_ratio(), 1);
        let frames_like = (0..(1u32 << 18)).collect::<Vec<_>>();
        for &b in &frames_like {
            p.lists.push_front(INACTIVE, b);
        }
        // 1 GiB: int_sqrt(10) = 3.
        assert_eq!(p.inactive_ratio(), 3);
        for b in (1u32 << 18)..(1u32 << 20) {
            p.lists.push_front(INACTIVE, b);
        }
        // 4 GiB: int_sqrt(40) = 6.
        assert_eq!(p.inactive_ratio(), 6);
        for (x, r) in [
            (0, 0),
            (1, 1),
            (99, 9),
            (100, 10),
            (u64::from(u32::MAX), 65535),
        ] {
            assert_eq!(int_sqrt(x), r, "int_sqrt({x})");
        }
    }

    /// A page evicted and read again while its refault distance fits in the active list enters
    /// the active list at once; a distant one enters the inactive list.
    #[test]
    fn a_recent_refault_is_activated() {
        // c = 4. 1 2 1 2: both active (age 2). 3 4: inactive [4 3]. 5: active 2 vs inactive 2 is
        // not low; evict 3 (age 3, shadow 3). 3 again: its own miss evicts 4 (age 4), then the
        // distance 4 - 3 = 1 <= |active| = 2: active.
        let refs = [1, 2, 1, 2, 3, 4, 5, 3];
        let level = run(linux(4, 16), 4, &refs);
        let (active, inactive) = lists(&level);
        assert_eq!(active[0], 3, "{active:?} {inactive:?}");
        // Without shadows it is an ordinary new page.
        let level = run(LinuxPolicy::new(4, 16, None, false), 4, &refs);
        let (active, inactive) = lists(&level);
        assert_eq!(inactive[0], 3, "{active:?} {inactive:?}");
        assert!(!active.contains(&3));
        // A refault after more evictions than the active list holds stays inactive:
        // 3 is evicted first, then 6..12 push the age 7 further on.
        let mut far = refs[..7].to_vec();
        far.extend([6, 7, 8, 9, 10, 11, 12, 3]);
        let level = run(linux(4, 16), 4, &far);
        let (active, inactive) = lists(&level);
        assert_eq!(inactive[0], 3, "{active:?} {inactive:?}");
    }

    /// A read-ahead page enters the inactive list unreferenced: its first use references it, its
    /// second activates it.
    #[test]
    fn a_prefetched_page_enters_the_inactive_list_unreferenced() {
        let mut level = CacheLevel::new(linux(4, 8), 4, 8);
        level.prefetch(5, NEVER);
        level.check().unwrap();
        assert_eq!(lists(&level), (vec![], vec![5]));
        level.access(5, NEVER);
        assert_eq!(
            lists(&level),
            (vec![], vec![5]),
            "first use only references it"
        );
        level.access(5, NEVER);
        assert_eq!(lists(&level), (vec![5], vec![]), "the second use activates");
        // An unused prefetch evicted leaves no shadow: it comes back inactive.
        let mut level = CacheLevel::new(linux(2, 8), 2, 8);
        level.access(1, NEVER);
        level.access(1, NEVER);
        level.prefetch(6, NEVER);
        level.access(2, NEVER);
        level.access(3, NEVER);
        level.check().unwrap();
        assert!(!level.frames().is_resident(6));
        level.access(6, NEVER);
        let (active, _) = lists(&level);
        assert!(!active.contains(&6), "{active:?}");
    }

    /// Scan resistance: a hot set read twice sits on the active list; a use-once scan longer than
    /// the cache passes through the inactive list and leaves it there, where LRU loses it.
    #[test]
    fn a_scan_does_not_flush_the_hot_set() {
        let (cap, hot) = (100usize, 40u32);
        let mut refs = Vec::new();
        let mut next_scan = 1000u32;
        for _round in 0..20 {
            for _ in 0..2 {
                refs.extend(0..hot);
            }
            refs.extend(next_scan..next_scan + 150);
            next_scan += 150;
        }
        let universe = next_scan as usize;
        let hits = |level_hits: u64| level_hits as f64 / refs.len() as f64;
        let l = run(LinuxPolicy::new(cap, universe, None, true), cap, &refs);
        let lru = run(LruPolicy::new(universe), cap, &refs);
        let (linux_ratio, lru_ratio) = (hits(l.stats().hits), hits(lru.stats().hits));
        // LRU keeps only the second pass of each round; linux keeps both passes after the first.
        assert!(
            linux_ratio > lru_ratio + 0.1,
            "linux {linux_ratio} vs lru {lru_ratio}"
        );
    }
}
