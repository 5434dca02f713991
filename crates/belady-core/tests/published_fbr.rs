//! FBR on the shared traces. No paper prints FBR hit ratios for these traces, so the test pins the
//! measured values with the default parameters (new 25%, old 25%, a-max 100, c-max 1000) and
//! checks that FBR with an old section of the whole cache and no new section, with counts capped
//! at 1, is LRU (every block then has count 1 and ties go to the least recently used).

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
    let expected = [
        548, 821, 1662, 5026, 6712, 7562, 7707, 7741, 7733, 7765, 7787, 7804, 7805,
    ];
    let measured: Vec<u64> = CPP_SIZES.iter().map(|&s| hits("fbr", &[], &t, s)).collect();
    assert_eq!(measured, expected);
    let as_lru = [("new", "0"), ("old", "1"), ("a-max", "1"), ("c-max", "1")];
    for &s in &CPP_SIZES {
        assert_eq!(
            hits("fbr", &as_lru, &t, s),
            hits("lru", &[], &t, s),
            "size {s}"
        );
    }
}

#[test]
fn oltp_measured_hits() {
    let Some(t) = trace("arc/OLTP.lis.zst", Format::Arc) else {
        return;
    };
    // LRU: 300,122 and 490,443 hits (ARC paper Table IV: 32.83% and 53.65%).
    assert_eq!(hits("fbr", &[], &t, 1000), 334_221);
    assert_eq!(hits("fbr", &[], &t, 5000), 499_156);
}
