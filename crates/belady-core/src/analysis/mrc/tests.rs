//! Tests of the whole profiler against the simulation engine.

use super::*;
use crate::engine::run_one;
use crate::trace::dense::BlockTrace;
use crate::trace::Op;

fn requests(refs: &[u64]) -> Vec<Result<BlockRequest>> {
    refs.iter()
        .map(|&b| {
            Ok(BlockRequest {
                block: b,
                count: 1,
                op: Op::Read,
                time_ns: None,
                bytes: 4096,
            })
        })
        .collect()
}

fn prepared(refs: &[u64]) -> PreparedTrace {
    PreparedTrace::new(
        BlockTrace::from_requests(
            requests(refs).into_iter(),
            OpFilter::Read,
            false,
            "t".into(),
            4096,
        )
        .unwrap(),
    )
}

fn specs(list: &str) -> Vec<PolicySpec> {
    crate::parse_policies(list, &[], crate::Preset::Paper).unwrap()
}

fn run(refs: &[u64], list: &str, sizes: &str, opts: &MrcOptions) -> Mrc {
    profile(
        requests(refs).into_iter(),
        OpFilter::Read,
        &specs(list),
        &Sizes::parse(sizes).unwrap(),
        opts,
        "t",
        4096,
    )
    .unwrap()
}

/// A deterministic skewed trace: a small hot set among a larger cold one.
fn skewed(n: usize, blocks: u64) -> Vec<u64> {
    let mut x = 12345u64;
    (0..n)
        .map(|_| {
            x = mix64(x.wrapping_add(1));
            if x % 4 == 0 {
                x % blocks
            } else {
                (x >> 8) % (blocks / 10).max(1)
            }
        })
        .collect()
}

#[test]
fn without_sampling_every_row_equals_full_simulation() {
    let refs = skewed(5000, 400);
    let trace = prepared(&refs);
    let m = run(&refs, "lru,arc,2q", "5,20,50%,300", &MrcOptions::default());
    assert_eq!(m.unique_blocks, trace.unique() as u64);
    assert!(!m.unique_estimated);
    assert_eq!(m.rows.len(), 3 * 4);
    for row in &m.rows {
        let spec = PolicySpec::parse(&row.policy).unwrap();
        let full = run_one(&spec, &trace, row.cache_blocks.unwrap() as usize).unwrap();
        assert_eq!(
            row.hits,
            full.hits,
            "{} at {}",
            row.policy,
            row.cache_blocks.unwrap()
        );
        assert_eq!(row.method, Method::Exact);
        assert_eq!(row.requests, refs.len() as u64);
    }
}

#[test]
fn sampled_rows_scale_sizes_and_are_deterministic() {
    let refs = skewed(20_000, 2000);
    let opts = MrcOptions {
        sample_rate: Some(0.5),
        ..MrcOptions::default()
    };
    let a = run(&refs, "lru,lirs", "10,100,1000", &opts);
    let b = run(&refs, "lru,lirs", "10,100,1000", &opts);
    assert_eq!(a, b);
    assert!(a.rows.iter().all(|r| r.method == Method::Sampled));
    assert!(a.rows.iter().all(|r| r.sample_rate == 0.5));
    // Miss ratios fall (weakly) with size for LRU, a stack policy.
    let lru: Vec<f64> = a.rows[..3].iter().map(|r| r.miss_ratio).collect();
    assert!(lru.windows(2).all(|w| w[1] <= w[0]), "{lru:?}");
}

#[test]
fn auto_sizes_find_a_loops_knee() {
    // A loop over 700 blocks: LRU misses everything below 700 blocks and hits everything
    // after the first pass at 700, so 700 must be among the sizes.
    let refs: Vec<u64> = (0..7000u64).map(|i| i % 700).collect();
    let m = run(&refs, "lru", "auto", &MrcOptions::default());
    assert!(m.sizes.contains(&700), "{:?}", m.sizes);
    assert!(
        m.sizes.len() >= 90 && m.sizes.len() <= 110,
        "{}",
        m.sizes.len()
    );
    assert_eq!(*m.sizes.last().unwrap(), 700);
    let at = |c: u64| {
        m.rows
            .iter()
            .find(|r| r.cache_blocks == Some(c))
            .unwrap()
            .miss_ratio
    };
    let below = m.sizes[m.sizes.len() - 2];
    assert_eq!(at(below), 1.0);
    assert!((at(700) - 0.1).abs() < 1e-12);
}

#[test]
fn empty_and_unsampled_traces_are_errors() {
    let e = profile(
        std::iter::empty(),
        OpFilter::Read,
        &specs("lru"),
        &Sizes::Auto,
        &MrcOptions::default(),
        "empty.trace",
        4096,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("empty.trace"), "{e}");
    let e = profile(
        requests(&[1, 2, 3]).into_iter(),
        OpFilter::Read,
        &specs("arc"),
        &Sizes::Auto,
        &MrcOptions {
            sample_rate: Some(1e-9),
            ..MrcOptions::default()
        },
        "tiny.trace",
        4096,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("no block of tiny.trace was sampled"), "{e}");
}

#[test]
fn writes_are_filtered_like_sim() {
    let reqs = vec![
        Ok(BlockRequest {
            block: 1,
            count: 3,
            op: Op::Read,
            time_ns: None,
            bytes: 3 * 4096,
        }),
        Ok(BlockRequest {
            block: 2,
            count: 1,
            op: Op::Write,
            time_ns: None,
            bytes: 4096,
        }),
        Ok(BlockRequest {
            block: 2,
            count: 1,
            op: Op::Read,
            time_ns: None,
            bytes: 4096,
        }),
    ];
    let m = profile(
        reqs.into_iter(),
        OpFilter::Read,
        &specs("lru"),
        &Sizes::parse("1,2,3").unwrap(),
        &MrcOptions::default(),
        "t",
        4096,
    )
    .unwrap();
    // Reads 1 2 3 2: the last has distance 1, so it hits from 2 blocks up.
    assert_eq!(m.references, 4);
    let hits: Vec<u64> = m.rows.iter().map(|r| r.hits).collect();
    assert_eq!(hits, vec![0, 1, 1]);
}

#[test]
fn dense_ids_give_the_curves_of_the_requests() {
    // The trace's own ids are scattered; its dense ids number them in order of first reference.
    let refs: Vec<u64> = skewed(6000, 500).iter().map(|b| b * 7919 + 3).collect();
    let dense = prepared(&refs).trace.refs;
    let list = "lru,arc";
    let opts = MrcOptions::default();
    let want = run(&refs, list, "auto", &opts);
    let mut p = Profiler::new(&specs(list), &opts).unwrap();
    for chunk in dense.chunks(1000) {
        p.dense_ids(chunk).unwrap();
    }
    let got = p.finish(&Sizes::Auto, "t", 4096).unwrap();
    assert_eq!(got, want);
    assert!(got.rows.iter().any(|r| r.policy == "arc"));
}

#[test]
fn dense_ids_refuse_a_sample() {
    // A sample is chosen by hashing the trace's own ids: dense ids would choose other blocks.
    let opts = MrcOptions {
        sample_rate: Some(0.5),
        ..MrcOptions::default()
    };
    let mut p = Profiler::new(&specs("lru"), &opts).unwrap();
    let e = p.dense_ids(&[0, 1, 0]).unwrap_err().to_string();
    assert!(e.contains("--sample-rate '0.5'"), "{e}");
}

proptest::proptest! {
    /// The exact curve equals a separate LRU simulation at every size, on random small traces.
    #[test]
    fn exact_curve_equals_per_size_lru(
        refs in proptest::collection::vec(0u64..60, 1..500),
    ) {
        let trace = prepared(&refs);
        let m = run(&refs, "lru", "auto", &MrcOptions::default());
        let lru = PolicySpec::parse("lru").unwrap();
        for row in &m.rows {
            let full = run_one(&lru, &trace, row.cache_blocks.unwrap() as usize).unwrap();
            proptest::prop_assert_eq!(row.hits, full.hits);
        }
    }
}

/// One hot block referenced `hot` times among `cold` blocks referenced once each; the hot block
/// is one the sampler at `rate` keeps, so the sample holds far more hits than the trace does.
fn hot_sampled(rate: f64, cold: u64, hot: usize) -> Vec<u64> {
    let sampler = Sampler::new(rate, 0).unwrap();
    let h = (1_000_000..).find(|&b| sampler.keeps(b)).unwrap();
    let mut refs: Vec<u64> = (0..cold).collect();
    refs.extend(std::iter::repeat(h).take(hot));
    refs
}

#[test]
fn no_row_is_below_the_compulsory_miss_floor() {
    let refs = hot_sampled(0.01, 1000, 10_000);
    let floor = 1001.0 / 11_000.0;
    // Plain sampling of a sample that caught the hot block: about 10,000 hits among some
    // 10,010 sampled references, an estimate near 0.001, where every first reference misses.
    let opts = MrcOptions {
        sample_rate: Some(0.01),
        adjust: false,
        control_rate: None,
        ..MrcOptions::default()
    };
    let m = run(&refs, "lru,arc", "100,500,1000", &opts);
    // Without the exact control the unique blocks, so the floor, are estimated from the sample.
    assert!(m.unique_estimated);
    assert_eq!(m.floor, m.unique_blocks as f64 / 11_000.0);
    assert!(
        m.raised_to_floor > 0,
        "the plain estimate fell below the floor"
    );
    for r in &m.rows {
        assert!(r.miss_ratio >= m.floor, "{r:?} below {}", m.floor);
    }
    // Exact rows never need raising, and sit on the floor once everything fits.
    let exact = run(&refs, "lru,arc", "2000", &MrcOptions::default());
    assert_eq!(exact.raised_to_floor, 0);
    assert!((exact.floor - floor).abs() < 1e-12);
    for r in &exact.rows {
        assert!((r.miss_ratio - floor).abs() < 1e-12, "{r:?}");
    }
}

#[test]
fn a_small_sample_warns_with_the_rate_the_trace_needs() {
    let mrc = |unique: u64| Mrc {
        rows: Vec::new(),
        references: 10 * unique,
        unique_blocks: unique,
        unique_estimated: false,
        sizes: Vec::new(),
        floor: 0.1,
        raised_to_floor: 4,
    };
    // The quick start's trace: 3,083 blocks at 1% is 31 sampled; sampling cannot help here.
    let w = mrc(3083).small_sample_warning(0.01, "ps.trace.gz").unwrap();
    assert!(
        w.contains("about 31 of the 3083 blocks of ps.trace.gz"),
        "{w}"
    );
    assert!(w.contains("leave out --sample-rate"), "{w}");
    assert!(
        w.contains("4 points fell below the compulsory-miss floor 0.1000"),
        "{w}"
    );
    assert!(!w.contains('\n'), "one line: {w}");
    // 100,000 blocks need 2% for 2,000 sampled blocks.
    let w = mrc(100_000).small_sample_warning(0.01, "t").unwrap();
    assert!(w.contains("use --sample-rate 0.02 or more"), "{w}");
    assert_eq!(mrc(100_000).rate_needed(0.01), Some(0.02));
    // 30,000 blocks: 0.0667, rounded up to two digits.
    let w = mrc(30_000).small_sample_warning(0.01, "t").unwrap();
    assert!(w.contains("use --sample-rate 0.067 or more"), "{w}");
    // Enough blocks, or no sampling at all: nothing to say.
    assert_eq!(mrc(1_000_000).small_sample_warning(0.01, "t"), None);
    assert_eq!(mrc(3083).small_sample_warning(1.0, "t"), None);
}
