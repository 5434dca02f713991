//! LRU-K on the shared traces. No paper prints LRU-K hit ratios for a trace in ../shared (the
//! published tables cover OPT, LRU, LIRS, CLOCK-Pro, CAR, CLOCK and ARC), so this file checks a
//! definitional identity on real traces and pins the measured values (docs/policies/lru-k.md).

mod common;
use belady_core::Preset;

use common::{hits_at as hits, lirs_trace};

/// The cache sizes of the CLOCK-Pro paper's Table 1 (cpp).
const CPP_SIZES: [usize; 10] = [20, 35, 50, 80, 100, 200, 300, 500, 700, 900];

#[test]
fn k1_without_crp_or_history_is_exactly_lru() {
    // With K = 1 and CRP 0 the victim is the block with the oldest last reference.
    for name in ["cpp.trace.gz", "ps.trace.gz", "multi1.trace.gz"] {
        let Some(t) = lirs_trace(name) else { return };
        let lruk = hits(
            &t,
            "lru-k",
            Preset::Paper,
            &[("k", "1"), ("crp", "0"), ("history", "0")],
            &CPP_SIZES,
        );
        let lru = hits(&t, "lru", Preset::Paper, &[], &CPP_SIZES);
        assert_eq!(lruk, lru, "{name}");
    }
}

#[test]
fn cpp_measured_values() {
    let Some(t) = lirs_trace("cpp.trace.gz") else {
        return;
    };
    assert_eq!(
        hits(&t, "lru-k", Preset::Paper, &[], &CPP_SIZES),
        [1610, 1802, 2895, 6166, 7012, 7674, 7749, 7765, 7805, 7818]
    );
    assert_eq!(
        hits(&t, "lru-k", Preset::Study, &[], &CPP_SIZES),
        [56, 901, 2019, 5983, 6934, 7664, 7750, 7765, 7805, 7818]
    );
}
