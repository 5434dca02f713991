//! CLOCK-Pro against the CLOCK-Pro paper's Table 1 (workload cpp).
//!
//! The implementation follows the authors' simulator step by step; it reproduces to the printed
//! precision what that simulator gives on cpp (published-tables.md): adaptive with the band
//! [1 %, 100 %] (our default) 17.5 42.7 55.5 73.1 77.3 85.1 85.9 86.3 86.4, and with [10 %, 100 %]
//! 17.5 41.7 53.4 71.4 76.2 85.4 85.9 86.4 86.4 (the latter with the authors' reference-bit quirk).
//! The paper's cells at 20 … 100 blocks are not met by the authors' own code either; those cells
//! assert the measured values (docs/policies/clock-pro.md explains each). Every cell is met once
//! non-resident pages may number 2m (Caffeine's bound; the paper and the authors' code say m) and
//! the band starts at 10 %: that row is asserted too, hit for hit.

mod common;
use belady_core::{run_one, PolicySpec, PreparedTrace};

const SIZES: [usize; 9] = [20, 35, 50, 80, 100, 300, 500, 700, 900];
/// Table 1, CLOCK-Pro column.
const PAPER: [f64; 9] = [23.9, 41.2, 53.1, 71.4, 76.2, 85.1, 85.9, 86.3, 86.4];
const REQUESTS: f64 = 9047.0;

fn hits(trace: &PreparedTrace, params: &[(&str, &str)]) -> Vec<u64> {
    let mut spec = PolicySpec::parse("clock-pro").unwrap();
    for (k, v) in params {
        spec.set(k, v).unwrap();
    }
    SIZES
        .iter()
        .map(|&s| {
            let r = run_one(&spec, trace, s).unwrap();
            assert_eq!(r.requests as f64, REQUESTS);
            r.hits
        })
        .collect()
}

/// Hit ratios in percent, rounded to the table's precision.
fn percent(hits: &[u64]) -> Vec<f64> {
    hits.iter()
        .map(|&h| (1000.0 * h as f64 / REQUESTS).round() / 10.0)
        .collect()
}

fn ratios(trace: &PreparedTrace, params: &[(&str, &str)]) -> Vec<f64> {
    percent(&hits(trace, params))
}

#[test]
fn clock_pro_against_table_1_on_cpp() {
    let Some(trace) = common::lirs_trace("cpp.trace.gz") else {
        return;
    };

    // Default: adaptive, band [1 %, 100 %], at least 2 cold pages, non-resident <= m.
    let got = ratios(&trace, &[]);
    assert_eq!(got, [17.5, 42.7, 55.5, 73.1, 77.3, 85.1, 85.9, 86.3, 86.4]);
    // Met within 1.0 pp at 300 … 900 blocks; at 20 … 100 the measured values are asserted above.
    for i in 5..9 {
        assert!((got[i] - PAPER[i]).abs() <= 1.0, "{} blocks", SIZES[i]);
    }

    // Band [10 %, 100 %]: every cell but 20 blocks is within 1.0 pp.
    let got = ratios(&trace, &[("cold_min", "0.1")]);
    assert_eq!(got, [17.5, 41.7, 53.4, 71.5, 76.3, 85.4, 85.9, 86.4, 86.4]);
    for i in 1..9 {
        assert!((got[i] - PAPER[i]).abs() <= 1.0, "{} blocks", SIZES[i]);
    }
    // … and with the authors' reference-bit quirk it is the authors' simulator's row exactly.
    let got = ratios(&trace, &[("cold_min", "0.1"), ("authors_bit", "true")]);
    assert_eq!(got, [17.5, 41.7, 53.4, 71.4, 76.2, 85.4, 85.9, 86.4, 86.4]);

    // The authors' simulator as compiled by default: fixed 5 % cold allocation.
    let got = ratios(&trace, &[("adaptive", "false"), ("cold_min", "0.05")]);
    assert_eq!(got, [17.5, 42.7, 55.5, 72.3, 77.1, 85.2, 86.0, 86.3, 86.4]);

    // Non-resident pages bounded by 2m instead of m: the 20-block cell is met (a page evicted from
    // the two cold frames then stays on the clock until cpp comes back to it), the others barely move.
    let got = hits(&trace, &[("nonresident", "2")]);
    assert_eq!(got, [2159, 3845, 5026, 6612, 6986, 7703, 7772, 7808, 7818]);
    assert_eq!(
        percent(&got),
        [23.9, 42.5, 55.6, 73.1, 77.2, 85.1, 85.9, 86.3, 86.4]
    );
    // With the band [10 %, 100 %] as well, every cell is within 1.0 pp (measured: at most 0.5).
    let got = hits(&trace, &[("nonresident", "2"), ("cold_min", "0.1")]);
    assert_eq!(got, [2159, 3771, 4841, 6440, 6907, 7726, 7772, 7814, 7820]);
    let got = percent(&got);
    assert_eq!(got, [23.9, 41.7, 53.5, 71.2, 76.3, 85.4, 85.9, 86.4, 86.4]);
    for i in 0..9 {
        assert!((got[i] - PAPER[i]).abs() <= 1.0, "{} blocks", SIZES[i]);
    }
}
