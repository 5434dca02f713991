//! Exact and property tests of the level model.

use super::reference::{run_hierarchies, run_hierarchy};
use super::state::Boxed;
use super::*;
use crate::cache::level::CacheLevel;
use crate::policy::registry::{PolicySpec, Preset};
use crate::policy::{Block, NEVER};
use crate::PreparedTrace;
use proptest::prelude::*;
use Source::{Access as A, Demotion as D, Reload as R};
use Step::*;

fn build(levels: &str, placement: &str, universe: usize) -> Hierarchy {
    let spec = HierarchySpec::parse(
        levels,
        &[],
        Preset::Paper,
        Placement::parse(placement).unwrap(),
    )
    .unwrap();
    Hierarchy::new(&spec, universe, 4096).unwrap().with_log()
}

fn run(levels: &str, placement: &str, refs: &[Block]) -> Hierarchy {
    let universe = refs.iter().max().map_or(1, |&m| m as usize + 1);
    let mut h = build(levels, placement, universe);
    for &b in refs {
        h.reference(b, NEVER);
        h.check().unwrap();
    }
    h
}

/// The steps of reference `t` (0-based), cut from the log at each client access.
fn steps_of(h: &Hierarchy, t: usize) -> Vec<Step> {
    let starts: Vec<usize> = h
        .log()
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s, Hit { level: 0, .. } | Miss { level: 0, .. }))
        .map(|(i, _)| i)
        .collect();
    let end = starts.get(t + 1).copied().unwrap_or(h.log().len());
    h.log()[starts[t]..end].to_vec()
}

const TRACE: [Block; 8] = [0, 1, 2, 0, 1, 3, 2, 0];

#[test]
fn two_level_lru_access_placement_by_hand() {
    // Client and storage of 2 blocks each, both LRU, storage inclusive: the storage sees
    // exactly the client's misses in the same order and always holds what the client holds,
    // so it never hits.
    let h = run("c:lru:2,s:lru:2", "access", &TRACE);
    let r = h.reports();
    assert_eq!((r[0].hits, r[0].misses), (0, 8));
    assert_eq!((r[1].requests, r[1].hits, r[1].placed_on_access), (8, 0, 8));
    assert_eq!(r[1].evictions, 6);
    assert_eq!(h.resident(0), vec![0, 2]);
    assert_eq!(h.resident(1), vec![0, 2]);
    assert_eq!(
        steps_of(&h, 5),
        vec![
            Miss { level: 0, block: 3 },
            Place {
                level: 0,
                block: 3,
                how: A
            },
            Evict { level: 0, block: 0 },
            Miss { level: 1, block: 3 },
            DiskRead { block: 3 },
            Place {
                level: 1,
                block: 3,
                how: A
            },
            Evict { level: 1, block: 0 },
        ]
    );
    let res = h.result("t", "x".into(), 4);
    assert_eq!(
        (res.disk_reads, res.disk_reloads, res.disk_requests),
        (8, 0, 8)
    );
}

#[test]
fn two_level_lru_eviction_placement_by_hand() {
    // Trace 0 1 2 0 1 3 2 0, client LRU 2, storage LRU 2 placing on eviction (lists MRU
    // first):
    // t0 0: client miss, places 0; storage miss; disk.
    // t1 1: client miss, places 1; storage miss; disk.
    // t2 2: client evicts 0; storage misses 2; disk; reload 0 -> S [0].
    // t3 0: client evicts 1; storage hits 0 (reload used); reload 1 -> S [1 0].
    // t4 1: client evicts 2; storage hits 1 (used) -> [1 0]; reload 2 evicts 0 -> [2 1].
    // t5 3: client evicts 0; storage misses 3; disk; reload 0 evicts 1 -> [0 2].
    // t6 2: client evicts 1; storage hits 2 (used) -> [2 0]; reload 1 evicts 0, never hit
    //       since its reload at t5: wasted -> [1 2].
    // t7 0: client evicts 3; storage misses 0; disk; reload 3 evicts 2 -> [3 1].
    let h = run("c:lru:2,s:lru:2", "eviction", &TRACE);
    let expect: Vec<Vec<Step>> = vec![
        vec![
            Miss { level: 0, block: 0 },
            Place {
                level: 0,
                block: 0,
                how: A,
            },
            Miss { level: 1, block: 0 },
            DiskRead { block: 0 },
        ],
        vec![
            Miss { level: 0, block: 1 },
            Place {
                level: 0,
                block: 1,
                how: A,
            },
            Miss { level: 1, block: 1 },
            DiskRead { block: 1 },
        ],
        vec![
            Miss { level: 0, block: 2 },
            Place {
                level: 0,
                block: 2,
                how: A,
            },
            Evict { level: 0, block: 0 },
            Miss { level: 1, block: 2 },
            DiskRead { block: 2 },
            Place {
                level: 1,
                block: 0,
                how: R,
            },
        ],
        vec![
            Miss { level: 0, block: 0 },
            Place {
                level: 0,
                block: 0,
                how: A,
            },
            Evict { level: 0, block: 1 },
            Hit { level: 1, block: 0 },
            Place {
                level: 1,
                block: 1,
                how: R,
            },
        ],
        vec![
            Miss { level: 0, block: 1 },
            Place {
                level: 0,
                block: 1,
                how: A,
            },
            Evict { level: 0, block: 2 },
            Hit { level: 1, block: 1 },
            Place {
                level: 1,
                block: 2,
                how: R,
            },
            Evict { level: 1, block: 0 },
        ],
        vec![
            Miss { level: 0, block: 3 },
            Place {
                level: 0,
                block: 3,
                how: A,
            },
            Evict { level: 0, block: 0 },
            Miss { level: 1, block: 3 },
            DiskRead { block: 3 },
            Place {
                level: 1,
                block: 0,
                how: R,
            },
            Evict { level: 1, block: 1 },
        ],
        vec![
            Miss { level: 0, block: 2 },
            Place {
                level: 0,
                block: 2,
                how: A,
            },
            Evict { level: 0, block: 1 },
            Hit { level: 1, block: 2 },
            Place {
                level: 1,
                block: 1,
                how: R,
            },
            Evict { level: 1, block: 0 },
        ],
        vec![
            Miss { level: 0, block: 0 },
            Place {
                level: 0,
                block: 0,
                how: A,
            },
            Evict { level: 0, block: 3 },
            Miss { level: 1, block: 0 },
            DiskRead { block: 0 },
            Place {
                level: 1,
                block: 3,
                how: R,
            },
            Evict { level: 1, block: 2 },
        ],
    ];
    for (t, want) in expect.iter().enumerate() {
        assert_eq!(&steps_of(&h, t), want, "reference {t}");
    }
    let s = &h.reports()[1];
    assert_eq!((s.requests, s.hits, s.placed_on_access), (8, 3, 0));
    assert_eq!(s.eviction_notices, 6);
    assert_eq!(
        (
            s.reloads_issued,
            s.reloads_used,
            s.reloads_wasted,
            s.reloads_unused_resident
        ),
        (6, 3, 1, 2)
    );
    assert_eq!(h.resident(1), vec![1, 3]);
    assert_eq!(h.source(1, 3), R);
    let res = h.result("t", "x".into(), 4);
    assert_eq!(
        (res.disk_reads, res.disk_reloads, res.disk_requests),
        (5, 6, 11)
    );
    assert_eq!(res.hits, 3);
    // The tracking table grew to the client's two buffer slots.
    assert_eq!(h.tracked_slots(1), 2);
}

#[test]
fn reload_threshold_skips_blocks_seen_too_rarely() {
    // As above with eviction:2: every block has reached the storage once when the client
    // first evicts it, so t2..t4 reload nothing. t5: 0 has arrived twice (t0, t3): reloaded.
    // t6: 1 has arrived twice (t1, t4): reloaded; storage misses 2 first (never placed).
    // t7: storage hits 0; 3 arrived once: skipped.
    let h = run("c:lru:2,s:lru:2", "eviction:2", &TRACE);
    let s = &h.reports()[1];
    assert_eq!(s.reloads_skipped, 4);
    assert_eq!(s.reloads_issued, 2);
    assert_eq!(s.hits, 1);
    assert_eq!(steps_of(&h, 7)[3], Hit { level: 1, block: 0 });
    assert_eq!(steps_of(&h, 7)[4], Skip { level: 1, block: 3 });
    assert_eq!(h.resident(1), vec![0, 1]);
}

#[test]
fn demote_and_exclusive_by_hand() {
    // Demote places what eviction-based placement reloads, at the same moments, so the
    // storage hits the same three times; no disk reload, six blocks sent down instead.
    let h = run("c:lru:2,s:lru:2", "demote", &TRACE);
    let s = &h.reports()[1];
    assert_eq!((s.hits, s.demotions, s.demotion_bytes), (3, 6, 6 * 4096));
    assert_eq!(
        (s.demotions_placed, s.demotions_used, s.demotions_wasted),
        (6, 3, 1)
    );
    assert_eq!(s.reloads_issued, 0);
    assert_eq!(h.source(1, 3), D);
    // Exclusive: t2 demotes 0 -> S [0]; t3 hits 0 and hands it up, 1 comes down -> [1];
    // t4 hits 1, hands it up, 2 down -> [2]; t5 misses 3, 0 down -> [0 2]; t6 hits 2, hands
    // it up, 1 down -> [1 0]; t7 hits 0, hands it up, 3 down -> [3 1]. Four hits.
    let h = run("c:lru:2,s:lru:2", "exclusive", &TRACE);
    let s = &h.reports()[1];
    assert_eq!(
        (s.hits, s.handed_up, s.demotions, s.evictions),
        (4, 4, 6, 0)
    );
    assert_eq!(h.resident(1), vec![1, 3]);
    assert_eq!(
        steps_of(&h, 7),
        vec![
            Miss { level: 0, block: 0 },
            Place {
                level: 0,
                block: 0,
                how: A
            },
            Evict { level: 0, block: 3 },
            Hit { level: 1, block: 0 },
            HandUp { level: 1, block: 0 },
            Place {
                level: 1,
                block: 3,
                how: D
            },
        ]
    );
    assert_eq!(h.result("t", "x".into(), 4).disk_reads, 4);
}

#[test]
fn parses_levels_and_rejects_bad_ones() {
    let spec = HierarchySpec::parse(
        "client:lru:256MiB,storage:mq:512MiB:eviction:2,disk-cache:fbr:1%",
        &["mq.queues=4".into()],
        Preset::Paper,
        Placement::Demote,
    )
    .unwrap();
    assert_eq!(spec.levels.len(), 3);
    assert_eq!(spec.levels[0].placement, Placement::Access);
    assert_eq!(
        spec.levels[1].placement,
        Placement::Eviction { threshold: 2 }
    );
    assert_eq!(spec.levels[2].placement, Placement::Demote);
    assert_eq!(spec.levels[1].policy.raw("queues"), "4");
    assert_eq!(
        spec.label(),
        format!(
            "client:lru:{}B > storage:mq(queues=4):{}B:eviction:2 > disk-cache:fbr:1%:demote",
            256 << 20,
            512 << 20
        )
    );
    for (bad, why) in [
        ("client:lru:10:eviction,s:lru:10", "is the client"),
        ("client:lru,s:lru:10", "NAME:POLICY:SIZE"),
        ("a:lru:10,a:lru:10", "used twice"),
        ("a:lru:10,b:lru:10:eviction:0", "reload threshold"),
        ("a:lru:10,b:lru:10:sideways", "expected access"),
        ("a:lru:10,b:nope:10", "unknown policy"),
        ("a:lru:10,b:lru:0", "at least one block"),
    ] {
        let err = HierarchySpec::parse(bad, &[], Preset::Paper, Placement::Access)
            .unwrap_err()
            .to_string();
        assert!(err.contains(why), "{bad}: {err}");
    }
    let opt_low =
        HierarchySpec::parse("a:lru:2,b:opt:2", &[], Preset::Paper, Placement::Access).unwrap();
    let err = Hierarchy::new(&opt_low, 10, 4096)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("client level only"), "{err}");
}

/// Policies that work at any level (OPT only at the client).
const LOWER: &[&str] = &[
    "lru",
    "fifo",
    "clock",
    "lirs",
    "clock-pro",
    "lrfu",
    "fbr",
    "arc",
    "car",
    "2q",
    "mq",
    "lru-k",
];
const PLACEMENTS: &[&str] = &[
    "access",
    "eviction",
    "eviction:2",
    "eviction:3",
    "demote",
    "exclusive",
];

fn level_strategy() -> impl Strategy<Value = (usize, usize, usize)> {
    (0..LOWER.len(), 1usize..7, 0..PLACEMENTS.len())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Whatever the policies, sizes and placements: every resident block was placed by a
    /// counted mechanism, placements balance evictions, reloads issued = used + wasted +
    /// resident unused, exclusive levels never share a block with the level above, and the
    /// tracking table matches the client's buffers (all checked after every reference).
    #[test]
    fn conservation_holds_for_any_hierarchy(
        levels in proptest::collection::vec(level_strategy(), 2..4),
        refs in proptest::collection::vec(0u32..12, 1..150),
        timed in proptest::option::of((0u64..3000, 0usize..4)),
    ) {
        let text: Vec<String> = levels
            .iter()
            .enumerate()
            .map(|(i, &(p, c, pl))| {
                if i == 0 {
                    format!("l{i}:{}:{c}", LOWER[p])
                } else {
                    format!("l{i}:{}:{c}:{}", LOWER[p], PLACEMENTS[pl])
                }
            })
            .collect();
        let h = build(&text.join(","), "access", 12);
        let mut h = if let Some((think_us, queue)) = timed {
            // Reloads deferred to idle disk time, some dropped by a short queue.
            let cfg = HierarchyTiming {
                think_ns: think_us * 1000,
                reload_queue: queue,
                ..HierarchyTiming::new(
                    crate::disk::DiskConfig::Fixed(crate::disk::fixed::FixedParams::default()),
                    "fixed",
                )
            };
            h.with_timing(&cfg, &(0..12).collect::<Vec<u64>>()).unwrap()
        } else {
            TimedHierarchy::untimed(h)
        };
        for &b in &refs {
            h.reference(b, NEVER);
            if let Err(e) = h.check() {
                prop_assert!(false, "{}: {e}", text.join(","));
            }
        }
        let res = h.result("t", "x".into(), 12);
        let served: u64 = res.levels.iter().map(|l| l.hits).sum();
        prop_assert_eq!(served + res.disk_reads, refs.len() as u64);
        if let Some(t) = &res.timing {
            prop_assert!(t.reloads_started + t.reloads_cancelled <= t.reloads_queued);
            prop_assert_eq!(t.reloads_started, res.disk_reloads);
        }
        prop_assert_eq!(res.disk_requests, res.disk_reads + res.disk_reloads);
        for (l, next) in res.levels.iter().zip(res.levels.iter().skip(1)) {
            prop_assert_eq!(l.misses, next.requests);
        }
    }

    /// In a hierarchy whose lower levels are all exclusive, no block is ever held twice.
    #[test]
    fn exclusive_hierarchies_never_hold_a_block_twice(
        sizes in proptest::collection::vec(1usize..6, 2..5),
        policies in proptest::collection::vec(0..LOWER.len(), 5),
        refs in proptest::collection::vec(0u32..16, 1..200),
    ) {
        let text: Vec<String> = sizes
            .iter()
            .enumerate()
            .map(|(i, c)| format!("l{i}:{}:{c}", LOWER[policies[i]]))
            .collect();
        let mut h = build(&text.join(","), "exclusive", 16);
        for &b in &refs {
            h.reference(b, NEVER);
            let mut seen = [false; 16];
            for lvl in 0..h.depth() {
                for x in h.resident(lvl) {
                    prop_assert!(!seen[x as usize], "block {} held twice in {}", x, text.join(","));
                    seen[x as usize] = true;
                }
            }
        }
    }

    /// Under access-based placement a lower level is an ordinary cache fed with the misses of
    /// the level above: its hits equal a lone level of the same policy run on that stream.
    #[test]
    fn access_placement_equals_a_lone_cache_on_the_miss_stream(
        top in 1usize..6, low in 1usize..8, p in 0..LOWER.len(),
        refs in proptest::collection::vec(0u32..12, 1..200),
    ) {
        let mut h = build(&format!("c:lru:{top},s:{}:{low}", LOWER[p]), "access", 12);
        for &b in &refs {
            h.reference(b, NEVER);
        }
        let misses: Vec<Block> = h
            .log()
            .iter()
            .filter_map(|s| match s {
                Miss { level: 0, block } => Some(*block),
                _ => None,
            })
            .collect();
        let spec = PolicySpec::parse(LOWER[p]).unwrap();
        let policy = crate::cache::builder::build(&spec, low, 12, Boxed).unwrap();
        let mut alone = CacheLevel::new(policy, low, 12);
        for &b in &misses {
            alone.access(b, NEVER);
        }
        prop_assert_eq!(h.reports()[1].hits, alone.stats().hits);
    }
}

#[test]
fn grids_sharing_a_client_match_separate_runs() {
    let mut x = 88172645463325252u64;
    let refs: Vec<Block> = (0..6000)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // A hot set, a loop and noise, so every level sees hits and evictions.
            match x % 4 {
                0 | 1 => (x >> 8) as Block % 40,
                2 => 40 + (i % 120) as Block,
                _ => 160 + (x >> 8) as Block % 200,
            }
        })
        .collect();
    let mut trace = crate::trace::BlockTrace {
        source: "synthetic".into(),
        block_size: 4096,
        refs: Vec::new(),
        originals: Vec::new(),
        write_mask: None,
        times: None,
        sizes: None,
    };
    let mut ids = std::collections::HashMap::new();
    for &b in &refs {
        let next = ids.len() as Block;
        let id = *ids.entry(b).or_insert(next);
        if id == next {
            trace.originals.push(b as u64);
        }
        trace.refs.push(id);
    }
    let t = PreparedTrace::new(trace);
    let mut specs = Vec::new();
    for client in ["c:lru:30", "c:opt:30", "c:2q:45"] {
        for low in ["s:mq:60", "s:lru:20", "s:fbr:90,d:lru:40:exclusive"] {
            for p in ["access", "eviction", "eviction:2", "demote", "exclusive"] {
                let text = format!("{client},{low}");
                specs.push(
                    HierarchySpec::parse(&text, &[], Preset::Paper, Placement::parse(p).unwrap())
                        .unwrap(),
                );
            }
        }
    }
    let shared = run_hierarchies(&specs, &t, None).unwrap();
    for (spec, got) in specs.iter().zip(&shared) {
        let alone = run_hierarchy(spec, &t, None).unwrap();
        assert_eq!(got, &alone, "{}", spec.label());
    }
    let lower_hits = shared.iter().filter(|r| r.levels[1].hits > 0).count();
    assert!(
        lower_hits > specs.len() * 3 / 4,
        "{lower_hits} of {}",
        specs.len()
    );
}

#[test]
fn content_table_reports_the_displaced_block() {
    let mut t = ContentTable::default();
    assert_eq!(t.observe_read(0, 5), None);
    assert_eq!(t.observe_read(1, 6), None);
    assert_eq!(t.observe_read(0, 7), Some(5));
    assert_eq!(t.observe_read(0, 7), None);
    t.vacate(1);
    assert_eq!(t.observe_read(1, 8), None);
    assert_eq!(t.slots(), 2);
}
