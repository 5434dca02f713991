//! OPT reproduces the OPT column of the CLOCK-Pro paper's Table 1 (workload cpp).

mod common;
use belady_core::{run_one, PolicySpec};

#[test]
fn opt_matches_clock_pro_table_1_on_cpp() {
    let Some(trace) = common::lirs_trace("cpp.trace.gz") else {
        return;
    };
    assert_eq!((trace.trace.refs.len(), trace.unique()), (9047, 1223));
    let published = [
        (20, 26.4),
        (35, 46.5),
        (50, 62.8),
        (80, 79.1),
        (100, 82.5),
        (300, 86.5),
        (500, 86.5),
        (700, 86.5),
        (900, 86.5),
    ];
    let opt = PolicySpec::parse("opt").unwrap();
    for (size, pct) in published {
        let r = run_one(&opt, &trace, size).unwrap();
        let measured = (1000.0 * r.hit_ratio).round() / 10.0;
        assert_eq!(
            measured,
            pct,
            "OPT at {size} blocks: {:.3}%",
            100.0 * r.hit_ratio
        );
    }
}

#[test]
fn lirs_trace_counts_match_the_readme() {
    let expected = [
        ("cpp", 9047, 1223),
        ("gli", 6015, 2529),
        ("cs", 6781, 1409),
        ("ps", 10448, 3083),
        ("multi1", 15858, 2606),
        ("2_pools", 100000, 9939),
        ("zigzag", 52001, 2001),
        ("scan", 50025, 2001),
        ("loop", 505500, 1011),
        ("backf", 9000, 751),
    ];
    for (name, refs, unique) in expected {
        let Some(t) = common::lirs_trace(&format!("{name}.trace.gz")) else {
            return;
        };
        assert_eq!((t.trace.refs.len(), t.unique()), (refs, unique), "{name}");
    }
}
