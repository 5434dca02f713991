//! CLOCK against the CLOCK column of the CLOCK-Pro paper's Table 1 (workload cpp).
//!
//! belady's CLOCK is the textbook second chance with new blocks entering with the bit clear; it
//! equals libCacheSim's `Clock` hit for hit (tests/python). The paper's column is not reproduced
//! by any of the four usual variants (bit clear or set on insert, hand advancing or staying after
//! a replacement) at 35 … 100 blocks, and the paper's own text calls LRU "almost the same as
//! CLOCK" while LRU gives 9.3% at 50 blocks against the column's 18.6%. So the cells are asserted
//! as measured, and those within 1.0 percentage point of the paper are checked to stay so.

mod common;
use belady_core::{run_one, PolicySpec};

#[test]
fn clock_on_cpp_against_clock_pro_table_1() {
    let Some(trace) = common::lirs_trace("cpp.trace.gz") else {
        return;
    };
    // (size, published %, measured hits, within 1 pp of the paper)
    let cells = [
        (20, 0.6, 56, true),
        (35, 4.2, 91, false),
        (50, 18.6, 922, false),
        (80, 60.4, 4764, false),
        (100, 72.6, 6456, false),
        (300, 83.5, 7597, true),
        (500, 84.7, 7744, true),
        (700, 85.4, 7805, true),
        (900, 85.7, 7818, true),
    ];
    let clock = PolicySpec::parse("clock").unwrap();
    for (size, published, hits, met) in cells {
        let r = run_one(&clock, &trace, size).unwrap();
        assert_eq!(r.hits, hits, "CLOCK at {size} blocks");
        let gap = (100.0 * r.hit_ratio - published).abs();
        assert_eq!(
            gap <= 1.0,
            met,
            "CLOCK at {size}: {:.2}% vs published {published}%",
            100.0 * r.hit_ratio
        );
    }
}
