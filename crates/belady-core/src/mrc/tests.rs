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
        let full = run_one(&spec, &trace, row.cache_blocks as usize).unwrap();
        assert_eq!(
            row.hits, full.hits,
            "{} at {}",
            row.policy, row.cache_blocks
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
            .find(|r| r.cache_blocks == c)
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
            let full = run_one(&lru, &trace, row.cache_blocks as usize).unwrap();
            proptest::prop_assert_eq!(row.hits, full.hits);
        }
    }
}
