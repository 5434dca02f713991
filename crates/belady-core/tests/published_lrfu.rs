//! LRFU on the shared traces. No paper prints LRFU hit ratios for these traces, so the test pins
//! the measured values (regressions show up as exact differences), checks the LRU end of the
//! spectrum against LRU on the same trace, and runs a long trace (OLTP, 914,145 references) to
//! show that nothing underflows at lambda = 0.001.

mod common;
use belady_core::{run_one, Format, PreparedTrace, Preset};
use common::trace;

fn hits(policy: &str, params: &[(&str, &str)], t: &PreparedTrace, size: usize) -> u64 {
    run_one(&common::spec(policy, Preset::Paper, params), t, size)
        .unwrap()
        .hits
}

const CPP_SIZES: [usize; 13] = [20, 35, 50, 80, 100, 200, 300, 400, 500, 600, 700, 800, 900];

#[test]
fn cpp_measured_hits() {
    let Some(t) = trace("lirs/cpp.trace.gz", Format::Lirs) else {
        return;
    };
    // lambda = 0.001 (default and study preset), 9,047 references.
    let expected = [
        1105, 1597, 3977, 5680, 6443, 7582, 7683, 7713, 7731, 7777, 7795, 7807, 7813,
    ];
    let measured: Vec<u64> = CPP_SIZES
        .iter()
        .map(|&s| hits("lrfu", &[], &t, s))
        .collect();
    assert_eq!(measured, expected);
    for &s in &CPP_SIZES {
        assert_eq!(
            hits("lrfu", &[("lambda", "1")], &t, s),
            hits("lru", &[], &t, s),
            "size {s}"
        );
    }
}

#[test]
fn oltp_long_trace() {
    let Some(t) = trace("arc/OLTP.lis.zst", Format::Arc) else {
        return;
    };
    // LRU: 300,122 and 490,443 hits (ARC paper Table IV: 32.83% and 53.65%).
    assert_eq!(hits("lrfu", &[], &t, 1000), 319_111);
    assert_eq!(hits("lrfu", &[], &t, 5000), 490_901);
}
