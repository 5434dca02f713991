//! The checks: every method's lower bound is at most the optimum found by exhaustive
//! search, which is at most its upper bound; with equal sizes FOO's bounds meet it, and equal
//! Belady's rule with bypass and belady's `opt` policy one object larger.

use super::exhaustive::{belady_with_bypass, optimum};
use super::model::{Objective, SizedTrace};
use super::{bounds, foo, pfoo_lower, pfoo_upper, Method};
use proptest::prelude::*;

/// Tiny traces: up to 14 requests over up to 6 objects, each object's size fixed (or, with
/// `versions`, sometimes recorded otherwise), and a capacity.
fn tiny(versions: bool) -> impl Strategy<Value = (Vec<(u64, u32)>, u64)> {
    (
        prop::collection::vec((0u64..6, 0u32..4), 1..14),
        prop::collection::vec(1u32..12, 6),
        1u64..30,
    )
        .prop_map(move |(reqs, sizes, capacity)| {
            let pairs = reqs
                .into_iter()
                .map(|(id, v)| {
                    let s = sizes[id as usize];
                    // Another recorded size now and then: the object keeps its first.
                    (id, if versions && v == 0 { s + 1 } else { s })
                })
                .collect();
            (pairs, capacity)
        })
}

fn check_all(pairs: &[(u64, u32)], capacity: u64) -> Result<(), TestCaseError> {
    let trace = SizedTrace::from_pairs(pairs);
    for objective in [Objective::Misses, Objective::Bytes] {
        let opt = optimum(pairs, capacity, objective);
        let f = foo::foo(&trace, capacity, objective);
        prop_assert!(
            f.lower <= opt && opt <= f.upper,
            "FOO {f:?} opt {opt} {objective:?}"
        );
        let l = pfoo_lower::pfoo_lower(&trace, capacity, objective);
        prop_assert!(l <= f.lower, "PFOO-L {l} above FOO-L {f:?}");
        for segment in [2, 3, 4, 8, 1 << 16] {
            let u = pfoo_upper::pfoo_upper(&trace, capacity, objective, segment, &mut |_, _| {});
            prop_assert!(opt <= u, "PFOO-U {u} below opt {opt} (segment {segment})");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn every_lower_bound_is_below_the_optimum_and_every_upper_above((pairs, capacity) in tiny(false)) {
        check_all(&pairs, capacity)?;
    }

    #[test]
    fn so_with_sizes_recorded_otherwise((pairs, capacity) in tiny(true)) {
        check_all(&pairs, capacity)?;
    }

    #[test]
    fn with_equal_sizes_foo_is_the_optimum_and_belady_with_bypass(
        ids in prop::collection::vec(0u64..7, 1..16),
        size in 1u32..5,
        capacity in 1u64..25,
    ) {
        let pairs: Vec<(u64, u32)> = ids.iter().map(|&id| (id, size)).collect();
        let trace = SizedTrace::from_pairs(&pairs);
        let b = bounds(&trace, capacity, Method::Foo, 1 << 16, &|_| {});
        let opt = optimum(&pairs, capacity, Objective::Misses);
        prop_assert_eq!((b.misses.lower, b.misses.upper), (opt, opt));
        let opt_bytes = optimum(&pairs, capacity, Objective::Bytes);
        prop_assert_eq!((b.bytes.lower, b.bytes.upper), (opt_bytes, opt_bytes));
        prop_assert_eq!(opt_bytes, opt * size as u64);
        let slots = (capacity / size as u64) as usize;
        prop_assert_eq!(belady_with_bypass(&ids, slots), opt);
    }
}

/// belady's `opt` always inserts the missed block, so with k slots it misses at least as often as
/// the optimum with bypass; with k + 1 slots it can keep everything a bypassing cache of k keeps
/// plus the object just requested, so it misses at most as often. FOO with equal sizes (the
/// optimum) lies between the two, and equals Belady's rule with bypass.
#[test]
fn foo_with_equal_sizes_lies_between_belady_opt_at_k_and_k_plus_one() {
    use crate::engine::{run_one, PreparedTrace};
    use crate::policy::registry::{parse_policies, Preset};
    use crate::trace::{BlockRequest, BlockTrace, Op, OpFilter};
    let spec = &parse_policies("opt", &[], Preset::Paper).unwrap()[0];
    let mut x: u64 = 7;
    let mut seen_gap = false;
    for case in 0..200 {
        let mut ids: Vec<u64> = Vec::new();
        let len = 5 + case % 40;
        while ids.len() < len {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let id = (x >> 33) % (3 + case as u64 % 9);
            if ids.last() != Some(&id) {
                ids.push(id);
            }
        }
        let requests = ids.iter().map(|&block| {
            Ok(BlockRequest {
                block,
                count: 1,
                op: Op::Read,
                time_ns: None,
                bytes: 4096,
            })
        });
        let blocks =
            BlockTrace::from_requests(requests, OpFilter::Read, false, "t".into(), 4096).unwrap();
        let prepared = PreparedTrace::new(blocks);
        let pairs: Vec<(u64, u32)> = ids.iter().map(|&id| (id, 4096)).collect();
        let trace = SizedTrace::from_pairs(&pairs);
        for slots in 1..6usize {
            let forced = run_one(spec, &prepared, slots).unwrap().misses;
            let larger = run_one(spec, &prepared, slots + 1).unwrap().misses;
            let b = bounds(
                &trace,
                slots as u64 * 4096 + 100,
                Method::Foo,
                1 << 16,
                &|_| {},
            );
            let best = belady_with_bypass(&ids, slots);
            assert_eq!(
                (b.misses.lower, b.misses.upper),
                (best, best),
                "{ids:?} {slots}"
            );
            assert!(
                larger <= best && best <= forced,
                "{ids:?} {slots}: {larger} {best} {forced}"
            );
            if slots == 1 {
                // One slot: `opt` must replace the object at every miss.
                seen_gap |= best < forced;
            }
        }
    }
    // Bypass matters: the bounds are below `opt`'s forced insertion on some traces.
    assert!(seen_gap);
}

#[test]
fn an_object_keeps_its_first_size() {
    // A at 10 bytes, then recorded at 20: it weighs 10 throughout, so a 10-byte cache keeps it.
    let pairs = [(1, 10), (1, 20), (1, 20)];
    let trace = SizedTrace::from_pairs(&pairs);
    assert_eq!((trace.bytes_requested(), trace.footprint()), (30, 10));
    let b = bounds(&trace, 10, Method::Foo, 1 << 16, &|_| {});
    assert_eq!((b.misses.lower, b.misses.upper), (1, 1));
    assert_eq!((b.bytes.lower, b.bytes.upper), (10, 10));
    assert_eq!(optimum(&pairs, 10, Objective::Misses), 1);
}
