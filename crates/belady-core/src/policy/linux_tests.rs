//! Tests of `linux` (`policy::linux::tests`): each rule on sequences small enough to follow by
//! hand, with the expected lists worked out in the comments from the kernel's rules.

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

/// Runs `refs` through a fresh level of `capacity` blocks, checked after every step.
fn level_after(capacity: usize, refs: &[Block]) -> CacheLevel<LinuxPolicy> {
    run(linux(capacity, 1024), capacity, refs)
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

/// A read that starts in the page the previous read ended in marks nothing (`pos_same_folio`):
/// a page read in two halves, or twice in a row, is referenced once and stays inactive.
#[test]
fn a_repeated_read_of_the_same_page_marks_it_once() {
    let mut level = CacheLevel::new(linux(8, 8), 8, 8);
    level.access_repeat(1, NEVER, false);
    level.access_repeat(1, NEVER, true);
    level.check().unwrap();
    assert_eq!(lists(&level), (vec![], vec![1]), "the repeat marks nothing");
    level.access_repeat(1, NEVER, false);
    assert_eq!(
        lists(&level),
        (vec![1], vec![]),
        "a later read activates it"
    );
    // A block trace read as one file: the same block twice in a row is a repeat.
    let mut level = CacheLevel::new(linux(8, 8), 8, 8);
    for b in [2, 2, 3, 2] {
        level.access_in_stream(b, None, NEVER);
    }
    assert_eq!(
        lists(&level),
        (vec![2], vec![3]),
        "2 2 3 2: the third 2 activates"
    );
    // A repeat that misses enters unreferenced: its next read only references it.
    let mut level = CacheLevel::new(linux(8, 8), 8, 8);
    level.access_repeat(4, NEVER, true);
    level.access_repeat(4, NEVER, false);
    assert_eq!(lists(&level), (vec![], vec![4]));
}

/// A full cache reclaims a batch: the priority falls from 12 and each priority reclaims
/// `inactive >> priority` pages until the cycle reached 32 (`do_try_to_free_pages`).
#[test]
fn a_full_cache_reclaims_a_batch_from_the_inactive_tail() {
    // 100 pages read once: all inactive. Page 100 needs room: priorities 12..7 scan nothing
    // (100 >> 7 = 0); 6 reclaims 1 (99 left), 5 reclaims 3 (96), 4 reclaims 6 (90), 3 reclaims
    // 11 (79), 2 reclaims 19: 40 >= 32. Pages 0..39 go, oldest first.
    let mut refs: Vec<Block> = (0..100).collect();
    refs.push(100);
    let level = level_after(100, &refs);
    assert_eq!(level.stats().evictions, 40);
    assert_eq!(level.frames().len(), 61);
    let (active, inactive) = lists(&level);
    assert!(active.is_empty());
    assert_eq!(inactive, (40..=100).rev().collect::<Vec<Block>>());
    // The kernel's 16 MiB cgroup: 4096 pages read once, then one more. The list shrinks as the
    // cycle goes: priorities 12..7 reclaim 1 (4095 left), 1 (4094), 3 (4091), 7 (4084),
    // 15 (4069) and 31: 58.
    let mut refs: Vec<Block> = (0..4096).collect();
    refs.push(4096);
    let mut level = CacheLevel::new(linux(4096, 4097), 4096, 4097);
    for &b in &refs {
        level.access(b, NEVER);
    }
    level.check().unwrap();
    assert_eq!(level.stats().evictions, 58);
    // A tiny cache gives the whole inactive list: the cycle wants 32 pages.
    let level = run(linux(3, 8), 3, &[1, 2, 3, 4]);
    assert_eq!(lists(&level), (vec![], vec![4]));
}

/// `inactive_is_low` with ratio 1: while the inactive list is smaller than the active one, each
/// priority also deactivates `active >> priority` pages, at most 32 per round.
#[test]
fn a_low_inactive_list_deactivates_in_proportion() {
    // 0..59 twice: 60 active. 60..99 once: 40 inactive. Page 100:
    //   priority 5: reclaim 40>>5 = 1 (I 39), deactivate 60>>5 = 1 (I 40, A 59); 1 reclaimed
    //   priority 4: reclaim 2 (I 38), deactivate 59>>4 = 3 (I 41, A 56); 3
    //   priority 3: low (41 < 56): reclaim 5 (I 36), deactivate 7 (I 43, A 49); 8
    //   priority 2: low (43 < 49): reclaim 10 (I 33), deactivate 12 (I 45, A 37); 18
    //   priority 1: not low (45 >= 37), no refaults: reclaim 22 (I 23), deactivate none; 40.
    let mut refs: Vec<Block> = (0..60).chain(0..60).chain(60..100).collect();
    refs.push(100);
    let level = level_after(100, &refs);
    assert_eq!(level.stats().evictions, 40);
    let (active, inactive) = lists(&level);
    assert_eq!((active.len(), inactive.len()), (37, 24));
    // The deactivated pages are the active list's oldest (0..22), now at the inactive head
    // below page 100, youngest first; the reclaimed ones were the inactive list's oldest.
    assert_eq!(active, (23..60).rev().collect::<Vec<Block>>());
    assert_eq!(inactive[0], 100);
    assert!(inactive[1..].iter().all(|&b| b < 23), "{inactive:?}");
    // A fixed ratio of 3 keeps deactivating while inactive x 3 < active.
    let level = run(LinuxPolicy::new(100, 1024, Some(3), true), 100, &refs);
    let (active, _) = lists(&level);
    assert!(active.len() < 37, "{}", active.len());
}

/// `may_deactivate` also after refault activations (`prepare_scan_control`): a cycle that
/// follows one deactivates though the inactive list is not low.
#[test]
fn a_refault_activation_makes_the_next_cycle_deactivate() {
    // 0..29 twice: 30 active (30 activations: age 30); 30..99 once: 70 inactive. Page 100's
    // cycle (inactive not low) reclaims 1 + 2 + 4 + 7 + 14 + 21 = 49 pages, 30..78 with ages
    // 30..78 (age 79 after), and deactivates none.
    let mut refs: Vec<Block> = (0..30).chain(0..30).chain(30..101).collect();
    let level = level_after(100, &refs);
    assert_eq!(level.stats().evictions, 49);
    assert_eq!(lists(&level).0.len(), 30);
    // 78 comes back at distance 79 - 78 = 1 <= 30: it enters the active list. Pages 200..246
    // fill the cache; 247's cycle deactivates (31 >> 4 = 1 page at priority 4 first), because
    // of that refault.
    refs.push(78);
    let then: Vec<Block> = (200..248).collect();
    let with_refault = level_after(100, &[refs.clone(), then.clone()].concat());
    assert!(with_refault.policy.dump()[0].1.len() < 31);
    // The same with a new page instead of 78: no refault, and the active list keeps its 30.
    refs.pop();
    refs.push(300);
    let without = level_after(100, &[refs, then].concat());
    assert_eq!(without.policy.dump()[0].1.len(), 30);
}

/// The kernel's ratio: int_sqrt(10 × GiB) of the lists' size in 4 KiB pages.
#[test]
fn the_kernel_ratio_grows_with_the_square_root_of_the_size() {
    for (x, r) in [
        (0, 0),
        (1, 1),
        (10, 3),
        (40, 6),
        (99, 9),
        (100, 10),
        (u64::from(u32::MAX), 65535),
    ] {
        assert_eq!(int_sqrt(x), r, "int_sqrt({x})");
    }
    let mut p = linux(1 << 20, 1 << 20);
    assert!(!p.inactive_is_low(), "empty lists");
    // 1 GiB of lists, a quarter inactive: ratio int_sqrt(10) = 3, so 65536 x 3 = 196608 active
    // pages are not low, one more is.
    for b in 0..65536u32 {
        p.lists.push_front(INACTIVE, b);
    }
    for b in 65536..(65536 + 196608u32) {
        p.lists.push_front(ACTIVE, b);
    }
    assert!(!p.inactive_is_low());
    p.lists.push_front(ACTIVE, 300_000);
    assert!(p.inactive_is_low());
    // Below 1 GiB the ratio is 1: 10 inactive against 11 active is low.
    let mut p = linux(64, 64);
    (0..10).for_each(|b| p.lists.push_front(INACTIVE, b));
    (10..20).for_each(|b| p.lists.push_front(ACTIVE, b));
    assert!(!p.inactive_is_low());
    p.lists.push_front(ACTIVE, 20);
    assert!(p.inactive_is_low());
}

/// A page evicted and read again while its refault distance fits in the active list enters
/// the active list at once; a distant one enters the inactive list.
#[test]
fn a_recent_refault_is_activated() {
    // As in a_refault_activation_makes_the_next_cycle_deactivate: 78 left last (age 78) and
    // comes back at distance 1.
    let mut refs: Vec<Block> = (0..30).chain(0..30).chain(30..101).collect();
    refs.push(78);
    let level = level_after(100, &refs);
    assert_eq!(lists(&level).0[0], 78);
    // Without shadows it is an ordinary new page.
    let level = run(LinuxPolicy::new(100, 1024, None, false), 100, &refs);
    assert_eq!(lists(&level).1[0], 78);
    // 30 left first (age 30): distance 79 - 30 = 49 > 30 active pages.
    refs.pop();
    refs.push(30);
    let level = level_after(100, &refs);
    assert_eq!(lists(&level).1[0], 30);
}

/// Statistics flushed every N references: before the first flush reclaim sees empty lists, so
/// no refault fits the active list (`stats_every`).
#[test]
fn stale_statistics_delay_the_decisions() {
    let mut refs: Vec<Block> = (0..30).chain(0..30).chain(30..101).collect();
    refs.push(78);
    let stale = run(
        LinuxPolicy::new(100, 1024, None, true).with_stats_every(1000),
        100,
        &refs,
    );
    assert_eq!(
        lists(&stale).1[0],
        78,
        "not recent by the unflushed statistics"
    );
    let flushed = run(
        LinuxPolicy::new(100, 1024, None, true).with_stats_every(100),
        100,
        &refs,
    );
    assert_eq!(lists(&flushed).0[0], 78, "flushed at the 100th reference");
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
    // An unused prefetch evicted leaves no shadow: it comes back inactive. The cache of 2 pages
    // reclaims both at once when 3 arrives (6 unused, 2 used).
    let mut level = CacheLevel::new(linux(2, 8), 2, 8);
    level.access(1, NEVER);
    level.access(1, NEVER);
    level.prefetch(6, NEVER);
    level.check().unwrap();
    level.access(2, NEVER);
    level.access(3, NEVER);
    level.check().unwrap();
    assert!(!level.frames().is_resident(6));
    level.access(6, NEVER);
    let (active, _) = lists(&level);
    assert!(!active.contains(&6), "{active:?}");
}

/// A prefetch that needs room reclaims a batch too, and the level evicts the whole batch at once.
#[test]
fn a_prefetch_into_a_full_cache_evicts_the_batch() {
    let mut level = CacheLevel::new(linux(100, 256), 100, 256);
    for b in 0..100 {
        level.access(b, NEVER);
    }
    assert!(level.prefetch(200, NEVER));
    level.check().unwrap();
    assert_eq!(level.frames().len(), 61, "40 reclaimed, 1 added");
}

/// Scan resistance: a hot set read twice sits on the active list; a use-once scan longer than
/// the cache passes through the inactive list and leaves it there, where LRU loses it.
#[test]
fn a_scan_does_not_flush_the_hot_set() {
    let (cap, hot) = (1000usize, 400u32);
    let mut refs = Vec::new();
    let mut next_scan = 10_000u32;
    for _round in 0..20 {
        for _ in 0..2 {
            refs.extend(0..hot);
        }
        refs.extend(next_scan..next_scan + 1500);
        next_scan += 1500;
    }
    let universe = next_scan as usize;
    let hits = |level_hits: u64| level_hits as f64 / refs.len() as f64;
    fn replay<P: Policy>(policy: P, cap: usize, universe: usize, refs: &[Block]) -> CacheLevel<P> {
        let mut level = CacheLevel::new(policy, cap, universe);
        for (i, &b) in refs.iter().enumerate() {
            level.access(b, NEVER);
            if i % 5000 == 0 {
                level.check().unwrap();
            }
        }
        level
    }
    let l = replay(
        LinuxPolicy::new(cap, universe, None, true),
        cap,
        universe,
        &refs,
    );
    let lru = replay(LruPolicy::new(universe), cap, universe, &refs);
    let (linux_ratio, lru_ratio) = (hits(l.stats().hits), hits(lru.stats().hits));
    // LRU keeps only the second pass of each round; linux keeps both passes after the first.
    assert!(
        linux_ratio > lru_ratio + 0.1,
        "linux {linux_ratio} vs lru {lru_ratio}"
    );
}
