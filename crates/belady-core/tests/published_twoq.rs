//! 2Q on the shared traces. No paper prints 2Q hit ratios for a trace in ../shared (the published
//! tables cover OPT, LRU, LIRS, CLOCK-Pro, CAR, CLOCK and ARC), so this file checks a definitional
//! identity on real traces and pins the measured values (docs/policies/2q.md).

mod common;
use belady_core::Preset;

use common::{hits_at as hits, lirs_trace};

/// The cache sizes of the CLOCK-Pro paper's Table 1 (cpp).
const CPP_SIZES: [usize; 10] = [20, 35, 50, 80, 100, 200, 300, 500, 700, 900];

#[test]
fn kin_of_the_whole_cache_is_exactly_fifo() {
    // With Kin = c, |A1in| never exceeds Kin and Am stays empty, so every victim is A1in's oldest
    // block; with Kout = 0 no id is remembered, so nothing ever enters Am.
    for name in ["cpp.trace.gz", "ps.trace.gz", "multi1.trace.gz"] {
        let Some(t) = lirs_trace(name) else { return };
        let twoq = hits(
            &t,
            "2q",
            Preset::Paper,
            &[("kin", "1"), ("kout", "0")],
            &CPP_SIZES,
        );
        let fifo = hits(&t, "fifo", Preset::Paper, &[], &CPP_SIZES);
        assert_eq!(twoq, fifo, "{name}");
    }
}

#[test]
fn cpp_measured_values() {
    let Some(t) = lirs_trace("cpp.trace.gz") else {
        return;
    };
    assert_eq!(
        hits(&t, "2q", Preset::Paper, &[], &CPP_SIZES),
        [408, 2706, 3476, 5750, 6639, 7468, 7493, 7585, 7644, 7674]
    );
    assert_eq!(
        hits(&t, "2q", Preset::Study, &[], &CPP_SIZES),
        [1569, 2019, 2760, 5681, 6657, 7477, 7546, 7586, 7644, 7674]
    );
}
