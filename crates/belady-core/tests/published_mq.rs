//! MQ on the shared traces. No paper prints MQ hit ratios for a trace in ../shared (the published
//! tables cover OPT, LRU, LIRS, CLOCK-Pro, CAR, CLOCK and ARC), so this file checks a definitional
//! identity on real traces and pins the measured values (docs/policies/mq.md).

mod common;
use belady_core::Preset;

use common::{hits_at as hits, lirs_trace};

/// The cache sizes of the CLOCK-Pro paper's Table 1 (cpp).
const CPP_SIZES: [usize; 10] = [20, 35, 50, 80, 100, 200, 300, 500, 700, 900];

#[test]
fn one_queue_is_exactly_lru() {
    // With m = 1 every block lives in Q0, an LRU queue, and nothing is ever demoted.
    for name in ["cpp.trace.gz", "ps.trace.gz", "multi1.trace.gz"] {
        let Some(t) = lirs_trace(name) else { return };
        let mq = hits(&t, "mq", Preset::Paper, &[("queues", "1")], &CPP_SIZES);
        let lru = hits(&t, "lru", Preset::Paper, &[], &CPP_SIZES);
        assert_eq!(mq, lru, "{name}");
    }
}

#[test]
fn cpp_measured_values() {
    let Some(t) = lirs_trace("cpp.trace.gz") else {
        return;
    };
    assert_eq!(
        hits(&t, "mq", Preset::Paper, &[], &CPP_SIZES),
        [354, 1904, 4375, 6538, 7038, 7530, 7634, 7732, 7792, 7813]
    );
    assert_eq!(
        hits(&t, "mq", Preset::Study, &[], &CPP_SIZES),
        [63, 2888, 3876, 6436, 6937, 7499, 7631, 7732, 7792, 7813]
    );
}
