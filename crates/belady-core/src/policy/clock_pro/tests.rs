//! Tests of CLOCK-Pro: the paper's examples, the authors' simulator's steps, and properties.

use super::*;
use crate::cache::level::CacheLevel;
use crate::policy::testutil::{pattern, run};
use crate::policy::Checked;
use crate::policy::NEVER;
use proptest::prelude::*;

/// m = 4, fixed allocation of 2 cold pages, at most 4 non-resident pages.
fn fixed() -> ClockProPolicy {
    ClockProPolicy::new(4, 10, false, 0.0, 0.0, 2, 1.0, true)
}

fn get(p: &ClockProPolicy, name: &str) -> Vec<Block> {
    p.dump().into_iter().find(|(n, _)| *n == name).unwrap().1
}

#[test]
fn hand_worked_sequence() {
    // 1 2 fill the hot allocation, 3 4 the cold one (in test). 3 hits (bit set).
    // 5: HAND_cold finds 3 referenced in its test: HAND_hot demotes 1 (bit clear), 3 becomes
    //    hot; 4 (bit clear, in test) is evicted and stays as a non-resident page.
    // 4: HAND_cold evicts 1 (cold, not in test: leaves the clock). 4 is non-resident in its
    //    test: HAND_hot demotes 2, then reaches 4 and HAND_test, dragged along, ends 4's test
    //    period; since a page was demoted, 4 still becomes hot (the authors' "matched and
    //    demoted" case).
    // 5 hits. 6: HAND_cold at 5 (referenced, in test): HAND_hot demotes 3, reaches 5 and
    //    ends its test and that of 2; 5 is promoted; 2 (not in test) is evicted.
    let refs = [1, 2, 3, 4, 3, 5, 4, 5, 6];
    assert_eq!(pattern(fixed, 4, &refs), "mmmmhmmhm");
    let p = run(fixed(), 4, &refs[..6]).policy;
    assert_eq!(get(&p, "head_to_tail"), vec![5, 3, 1, 4, 2]);
    assert_eq!(get(&p, "hot"), vec![3, 2]);
    assert_eq!(get(&p, "cold_resident"), vec![5, 1]);
    assert_eq!(get(&p, "nonresident"), vec![4]);
    assert_eq!(get(&p, "hands_hot_cold_test"), vec![2, 1, 2]);
    let p = run(fixed(), 4, &refs[..7]).policy;
    assert_eq!(get(&p, "head_to_tail"), vec![4, 2, 5, 3]);
    assert_eq!(get(&p, "hot"), vec![4, 3]);
    assert_eq!(get(&p, "in_test"), vec![5]);
    let p = run(fixed(), 4, &refs).policy;
    assert_eq!(get(&p, "head_to_tail"), vec![6, 5, 3, 4]);
    assert_eq!(get(&p, "hot"), vec![5, 4]);
    assert_eq!(get(&p, "cold_resident"), vec![6, 3]);
    assert_eq!(get(&p, "in_test"), vec![6]);
    assert_eq!(get(&p, "hands_hot_cold_test"), vec![4, 3, 4]);
}

#[test]
fn duplicate_after_a_miss_does_not_set_the_bit_when_skipped() {
    let refs = [1, 2, 3, 4, 4];
    assert_eq!(
        get(&run(fixed(), 4, &refs).policy, "referenced"),
        Vec::<Block>::new()
    );
    let no_skip = ClockProPolicy::new(4, 10, false, 0.0, 0.0, 2, 1.0, false);
    assert_eq!(get(&run(no_skip, 4, &refs).policy, "referenced"), vec![4]);
}

#[test]
fn unused_prefetch_leaves_no_nonresident_page() {
    let mut level = CacheLevel::new(fixed(), 4, 10);
    for b in [1, 2, 3] {
        level.access(b, NEVER);
    }
    assert!(level.prefetch(7, NEVER)); // cold, in test, bit clear
    level.access(5, NEVER); // HAND_cold evicts 3 (in test: non-resident)
    level.access(6, NEVER); // then 7, unused: gone from the clock
    level.check().unwrap();
    assert_eq!(get(&level.policy, "nonresident"), vec![3]);
    level.access(7, NEVER); // a plain miss: cold, not promoted to hot
    level.check().unwrap();
    assert!(!get(&level.policy, "hot").contains(&7));
    // With a demand reference instead, 7 would be a non-resident page in its test period and
    // its re-reference would make it hot.
    let p = run(fixed(), 4, &[1, 2, 3, 7, 5, 6, 7]).policy;
    assert!(get(&p, "hot").contains(&7));
}

#[test]
fn band_follows_rates_floor_and_capacity() {
    let b = |m, lo, hi| ClockProPolicy::new(m, 1, true, lo, hi, 2, 1.0, true).cold_band();
    assert_eq!(b(100, 0.01, 1.0), (2, 99));
    assert_eq!(b(900, 0.01, 1.0), (9, 899));
    assert_eq!(b(100, 0.05, 0.05), (5, 5));
    assert_eq!(b(1, 0.01, 1.0), (1, 1));
}

proptest! {
    #[test]
    fn every_mode_keeps_its_invariants(
        cap in 1usize..8,
        ops in proptest::collection::vec((0u8..10, 0u32..16), 1..300),
        adaptive in any::<bool>(),
        authors_bit in any::<bool>(),
        nonres in 0.0f64..2.5,
    ) {
        let mut p = ClockProPolicy::new(cap, 16, adaptive, 0.01, 1.0, 1, nonres, false);
        p.authors_bit = authors_bit;
        let mut level = CacheLevel::new(p, cap, 16);
        for (op, b) in ops {
            match op {
                0 => { level.prefetch(b, NEVER); }
                1 => level.set_pinned(b, true),
                2 => level.set_pinned(b, false),
                _ => { level.access(b, NEVER); }
            }
            prop_assert!(level.check().is_ok(), "{}", level.check().unwrap_err());
        }
    }
}
