//! CAR against the CLOCK-Pro paper's Table 1 (Jiang, Chen and Zhang, USENIX ATC 2005; seed 001),
//! workload cpp. A faithful CAR (p real, adapted after replace()) lands within 0.3 percentage
//! points of every cell (published-tables.md); the issue asks for 1.0.

mod common;
use belady_core::{run_one, PolicySpec};

#[test]
fn cpp_table_1() {
    let Some(t) = common::lirs_trace("cpp.trace.gz") else {
        return;
    };
    let spec = PolicySpec::parse("car").unwrap();
    for (c, published) in [
        (20, 17.6),
        (35, 26.1),
        (50, 37.5),
        (80, 70.1),
        (100, 77.0),
        (300, 85.6),
        (500, 85.8),
        (700, 86.3),
        (900, 86.4),
    ] {
        let got = 100.0 * run_one(&spec, &t, c).unwrap().hit_ratio;
        eprintln!("cpp c={c}: {got:.2} (published {published})");
        assert!(
            (got - published).abs() <= 1.0,
            "c={c}: {got:.2} vs {published}"
        );
    }
}
