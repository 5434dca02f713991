//! Comparison of policies across traces against a baseline policy, as the S3-FIFO (SOSP 2023) and
//! SIEVE (NSDI 2024) papers report it: per policy and cache size, the distribution over traces
//! of the miss-ratio reduction `(baseline − policy) / baseline` (mean and percentiles) and on how
//! many traces each policy has the lowest miss ratio.
//!
//! Pure computation over (trace, policy, cache size, ratio) samples; `belady compare` reads them
//! from a results store, `belady report` draws them, docs/compare.md states every rule below.
//!
//! Rules, per cache size (as spelled):
//! - a trace without the baseline at that size is skipped for that size (counted in
//!   [`Comparison::skipped`] with [`Skip::NoBaseline`]);
//! - a trace whose baseline ratio is 0 is skipped too (the reduction is undefined; counted with
//!   [`Skip::ZeroBaseline`]);
//! - on every trace kept, each policy present gets the reduction; the row's `traces` is how many
//!   kept traces have that policy;
//! - a policy wins a kept trace when its ratio equals the lowest ratio of all the policies present
//!   on that trace at that size (the baseline included); ties count for each.

use std::collections::{BTreeMap, BTreeSet};

/// The percentile levels reported, in percent.
pub const LEVELS: [u32; 5] = [10, 25, 50, 75, 90];

/// One stored result: a policy's ratio (miss ratio or byte miss ratio) on a trace at a size.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The trace's identity (its name, and whatever tells two contents of one name apart).
    pub trace: String,
    /// The policy as labelled (name with any settings).
    pub policy: String,
    /// The cache size as the experiment spelled it.
    pub cache_size: String,
    /// The ratio compared (lower is better), from 0 to 1.
    pub ratio: f64,
}

/// One row of the comparison: a policy at a cache size, over the traces kept at that size.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CompareRow {
    /// The policy.
    pub policy: String,
    /// The cache size as spelled.
    pub cache_size: String,
    /// Mean of the reductions.
    pub mean: f64,
    /// 10th percentile of the reductions ([`percentile`]).
    pub p10: f64,
    /// 25th percentile.
    pub p25: f64,
    /// Median.
    pub p50: f64,
    /// 75th percentile.
    pub p75: f64,
    /// 90th percentile.
    pub p90: f64,
    /// Traces where this policy has the lowest ratio of all policies present (ties count for each).
    pub wins: u64,
    /// Traces the row is computed over.
    pub traces: u64,
}

/// Why a trace was left out at a size.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Skip {
    /// The baseline was not run on it at that size.
    NoBaseline,
    /// The baseline's ratio is 0: no reduction is defined.
    ZeroBaseline,
}

/// The comparison: its rows (sizes in the order first given, the baseline first, then policies by
/// name) and the traces left out, per size and reason.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// One row per policy and cache size.
    pub rows: Vec<CompareRow>,
    /// (cache size, reason) -> the traces skipped, by name.
    pub skipped: BTreeMap<(String, Skip), Vec<String>>,
}

/// Why no comparison could be made.
#[derive(Clone, Debug, PartialEq)]
pub enum CompareError {
    /// No samples at all.
    Empty,
    /// The baseline policy is in no sample; the policies present, by name.
    NoBaseline(Vec<String>),
    /// Every trace was skipped at every size (no baseline there, or a baseline ratio of 0).
    NothingKept,
    /// Two samples for one trace, policy and size disagree.
    Conflict {
        /// The trace.
        trace: String,
        /// The policy.
        policy: String,
        /// The size.
        cache_size: String,
        /// The two ratios.
        ratios: (f64, f64),
    },
}

impl std::fmt::Display for CompareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompareError::Empty => write!(f, "there are no runs to compare"),
            CompareError::NoBaseline(present) => {
                write!(f, "the policies present are {}", present.join(", "))
            }
            CompareError::NothingKept => write!(
                f,
                "no trace has the baseline with a ratio above 0 at any cache size"
            ),
            CompareError::Conflict {
                trace,
                policy,
                cache_size,
                ratios,
            } => write!(
                f,
                "{policy} at {cache_size} on {trace} has two different results ({} and {})",
                ratios.0, ratios.1
            ),
        }
    }
}

impl std::error::Error for CompareError {}

/// The `p`-th quantile (0 ≤ p ≤ 1) of `sorted` (ascending, not empty) by linear interpolation
/// between closest ranks, numpy's default (`method="linear"`, Hyndman and Fan's type 7): with
/// `h = (n − 1)·p`, `x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋ + 1] − x[⌊h⌋])` (0-based ranks).
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    assert!(!sorted.is_empty(), "a percentile of no values");
    let h = (sorted.len() - 1) as f64 * p.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    let frac = h - lo as f64;
    if frac == 0.0 {
        sorted[lo]
    } else {
        sorted[lo] + frac * (sorted[hi] - sorted[lo])
    }
}

/// The reduction of `policy`'s ratio relative to `baseline`'s: `(baseline − policy) / baseline`.
pub fn reduction(baseline: f64, policy: f64) -> f64 {
    (baseline - policy) / baseline
}

/// Compares every policy in `samples` with `baseline` (rules in the module's doc).
pub fn compare(samples: &[Sample], baseline: &str) -> Result<Comparison, CompareError> {
    if samples.is_empty() {
        return Err(CompareError::Empty);
    }
    let mut sizes: Vec<&str> = Vec::new();
    // size -> trace -> policy -> ratio
    let mut grid: BTreeMap<&str, BTreeMap<&str, BTreeMap<&str, f64>>> = BTreeMap::new();
    for s in samples {
        if !sizes.contains(&s.cache_size.as_str()) {
            sizes.push(&s.cache_size);
        }
        let at = grid
            .entry(&s.cache_size)
            .or_default()
            .entry(&s.trace)
            .or_default();
        match at.insert(&s.policy, s.ratio) {
            Some(old) if old != s.ratio && !(old.is_nan() && s.ratio.is_nan()) => {
                return Err(CompareError::Conflict {
                    trace: s.trace.clone(),
                    policy: s.policy.clone(),
                    cache_size: s.cache_size.clone(),
                    ratios: (old, s.ratio),
                })
            }
            _ => {}
        }
    }
    if !samples.iter().any(|s| s.policy == baseline) {
        let present: BTreeSet<&str> = samples.iter().map(|s| s.policy.as_str()).collect();
        return Err(CompareError::NoBaseline(
            present.into_iter().map(String::from).collect(),
        ));
    }
    let mut rows = Vec::new();
    let mut skipped: BTreeMap<(String, Skip), Vec<String>> = BTreeMap::new();
    for size in sizes {
        // policy -> (reductions, wins)
        let mut per_policy: BTreeMap<&str, (Vec<f64>, u64)> = BTreeMap::new();
        for (trace, ratios) in &grid[size] {
            let base = match ratios.get(baseline) {
                None => Some(Skip::NoBaseline),
                Some(&b) if b == 0.0 || b.is_nan() => Some(Skip::ZeroBaseline),
                Some(_) => None,
            };
            if let Some(why) = base {
                skipped
                    .entry((size.to_string(), why))
                    .or_default()
                    .push(trace.to_string());
                continue;
            }
            let b = ratios[baseline];
            let best = ratios.values().copied().fold(f64::INFINITY, f64::min);
            for (&policy, &r) in ratios {
                let entry = per_policy.entry(policy).or_default();
                entry.0.push(reduction(b, r));
                entry.1 += u64::from(r == best);
            }
        }
        let mut policies: Vec<&str> = per_policy.keys().copied().collect();
        // The baseline first, then the others by name.
        policies.sort_by_key(|p| (*p != baseline, *p));
        for policy in policies {
            let (mut reductions, wins) = per_policy.remove(policy).unwrap_or_default();
            let mean = reductions.iter().sum::<f64>() / reductions.len() as f64;
            reductions.sort_by(f64::total_cmp);
            let q = |level: u32| percentile(&reductions, f64::from(level) / 100.0);
            rows.push(CompareRow {
                policy: policy.to_string(),
                cache_size: size.to_string(),
                mean,
                p10: q(10),
                p25: q(25),
                p50: q(50),
                p75: q(75),
                p90: q(90),
                wins,
                traces: reductions.len() as u64,
            });
        }
    }
    if rows.is_empty() {
        return Err(CompareError::NothingKept);
    }
    Ok(Comparison { rows, skipped })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample(trace: &str, policy: &str, size: &str, ratio: f64) -> Sample {
        Sample {
            trace: trace.into(),
            policy: policy.into(),
            cache_size: size.into(),
            ratio,
        }
    }

    #[test]
    fn percentiles_match_hand_computed_values() {
        // n = 5, ranks 0..4: p10 at h = 0.4: 1 + 0.4 * (2 - 1) = 1.4; p25 at h = 1: 2;
        // p50 at h = 2: 3; p75 at h = 3: 4; p90 at h = 3.6: 4 + 0.6 * (10 - 4) = 7.6.
        let xs = [1.0, 2.0, 3.0, 4.0, 10.0];
        let got: Vec<f64> = [0.1, 0.25, 0.5, 0.75, 0.9]
            .iter()
            .map(|&p| percentile(&xs, p))
            .collect();
        let want = [1.4, 2.0, 3.0, 4.0, 7.6];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "{got:?} vs {want:?}");
        }
        // n = 4: p50 at h = 1.5 is halfway between 0.2 and 0.4; p10 at h = 0.3: -1 + 0.3 * 1.2.
        let ys = [-1.0, 0.2, 0.4, 0.5];
        assert!((percentile(&ys, 0.5) - 0.3).abs() < 1e-12);
        assert!((percentile(&ys, 0.1) - (-0.64)).abs() < 1e-12);
        // One value: every percentile is it; the ends are the extremes.
        assert_eq!(percentile(&[0.7], 0.9), 0.7);
        assert_eq!(percentile(&ys, 0.0), -1.0);
        assert_eq!(percentile(&ys, 1.0), 0.5);
    }

    #[test]
    fn reductions_wins_and_ties_count_for_each() {
        let s = [
            // t1: lru and sieve tie for the lowest; fifo 0.5.
            sample("t1", "fifo", "10", 0.5),
            sample("t1", "lru", "10", 0.25),
            sample("t1", "sieve", "10", 0.25),
            // t2: sieve alone lowest.
            sample("t2", "fifo", "10", 0.4),
            sample("t2", "lru", "10", 0.5),
            sample("t2", "sieve", "10", 0.2),
            // t3: everyone ties.
            sample("t3", "fifo", "10", 0.3),
            sample("t3", "lru", "10", 0.3),
            sample("t3", "sieve", "10", 0.3),
        ];
        let c = compare(&s, "fifo").unwrap();
        let row = |p: &str| c.rows.iter().find(|r| r.policy == p).unwrap();
        assert_eq!(c.rows[0].policy, "fifo", "the baseline first");
        assert_eq!((row("fifo").wins, row("fifo").traces), (1, 3));
        assert_eq!((row("lru").wins, row("lru").traces), (2, 3));
        assert_eq!((row("sieve").wins, row("sieve").traces), (3, 3));
        // lru: (0.5-0.25)/0.5 = 0.5, (0.4-0.5)/0.4 = -0.25, 0 -> mean 0.25/3, median 0.
        let lru = row("lru");
        assert!((lru.mean - 0.25 / 3.0).abs() < 1e-12);
        assert_eq!(lru.p50, 0.0);
        assert!((lru.p10 - (-0.25 + 0.2 * 0.25)).abs() < 1e-12);
        assert_eq!(row("fifo").mean, 0.0);
        assert!(c.skipped.is_empty());
    }

    #[test]
    fn traces_without_the_baseline_or_with_zero_are_skipped_per_size() {
        let s = [
            sample("t1", "fifo", "10", 0.5),
            sample("t1", "lru", "10", 0.4),
            sample("t2", "lru", "10", 0.3),
            sample("t3", "fifo", "10", 0.0),
            sample("t3", "lru", "10", 0.0),
            sample("t2", "fifo", "20", 0.2),
            sample("t2", "lru", "20", 0.1),
        ];
        let c = compare(&s, "fifo").unwrap();
        let sizes: Vec<(&str, &str, u64)> = c
            .rows
            .iter()
            .map(|r| (r.policy.as_str(), r.cache_size.as_str(), r.traces))
            .collect();
        assert_eq!(
            sizes,
            [
                ("fifo", "10", 1),
                ("lru", "10", 1),
                ("fifo", "20", 1),
                ("lru", "20", 1)
            ]
        );
        assert_eq!(
            c.skipped[&("10".to_string(), Skip::NoBaseline)],
            vec!["t2".to_string()]
        );
        assert_eq!(
            c.skipped[&("10".to_string(), Skip::ZeroBaseline)],
            vec!["t3".to_string()]
        );
    }

    #[test]
    fn errors_name_what_is_wrong() {
        assert_eq!(compare(&[], "fifo"), Err(CompareError::Empty));
        let s = [sample("t", "lru", "1", 0.5), sample("t", "arc", "1", 0.4)];
        assert_eq!(
            compare(&s, "fifo"),
            Err(CompareError::NoBaseline(vec!["arc".into(), "lru".into()]))
        );
        let z = [sample("t", "fifo", "1", 0.0)];
        assert_eq!(compare(&z, "fifo"), Err(CompareError::NothingKept));
        let d = [sample("t", "fifo", "1", 0.5), sample("t", "fifo", "1", 0.4)];
        assert!(matches!(
            compare(&d, "fifo"),
            Err(CompareError::Conflict { .. })
        ));
    }

    proptest! {
        #[test]
        fn percentiles_are_ordered_and_bounded(mut xs in prop::collection::vec(-5.0f64..5.0, 1..40)) {
            xs.sort_by(f64::total_cmp);
            let mut last = f64::NEG_INFINITY;
            for p in [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0] {
                let q = percentile(&xs, p);
                prop_assert!(q >= xs[0] && q <= xs[xs.len() - 1]);
                prop_assert!(q >= last);
                last = q;
            }
            // k/(n-1) lands on rank k (to rounding of the division).
            let n = xs.len();
            for (k, x) in xs.iter().enumerate() {
                if n > 1 {
                    prop_assert!((percentile(&xs, k as f64 / (n - 1) as f64) - x).abs() < 1e-9);
                }
            }
        }

        #[test]
        fn rows_follow_the_definitions_in_any_order(
            ratios in prop::collection::vec(prop::collection::vec(0u8..6, 3), 1..12),
            seed in any::<u64>(),
        ) {
            // Ratios on a coarse grid so that ties happen; three policies on each trace, one size.
            let names = ["fifo", "lru", "sieve"];
            let mut s: Vec<Sample> = Vec::new();
            for (t, row) in ratios.iter().enumerate() {
                for (p, r) in row.iter().enumerate() {
                    s.push(sample(&format!("t{t}"), names[p], "5%", f64::from(*r) / 8.0));
                }
            }
            let kept: Vec<&Vec<u8>> = ratios.iter().filter(|r| r[0] > 0).collect();
            let c = compare(&s, "fifo");
            if kept.is_empty() {
                prop_assert_eq!(c, Err(CompareError::NothingKept));
                return Ok(());
            }
            let c = c.unwrap();
            // The same comparison from the samples in another order.
            let mut shuffled = s.clone();
            let len = shuffled.len();
            let mut x = seed;
            for i in (1..len).rev() {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                shuffled.swap(i, (x >> 33) as usize % (i + 1));
            }
            prop_assert_eq!(&compare(&shuffled, "fifo").unwrap(), &c);
            let mut total_wins = 0;
            for (p, row) in c.rows.iter().enumerate() {
                prop_assert_eq!(&row.policy, names[p]);
                prop_assert_eq!(row.traces as usize, kept.len());
                let mut red: Vec<f64> = kept
                    .iter()
                    .map(|r| reduction(f64::from(r[0]), f64::from(r[p])))
                    .collect();
                let mean = red.iter().sum::<f64>() / red.len() as f64;
                prop_assert!((row.mean - mean).abs() < 1e-9);
                red.sort_by(f64::total_cmp);
                prop_assert!((row.p50 - percentile(&red, 0.5)).abs() < 1e-9);
                prop_assert!(row.p10 <= row.p25 && row.p25 <= row.p50);
                prop_assert!(row.p50 <= row.p75 && row.p75 <= row.p90);
                let wins = kept.iter().filter(|r| r[p] == *r.iter().min().unwrap()).count();
                prop_assert_eq!(row.wins as usize, wins);
                total_wins += row.wins;
            }
            // Every kept trace has at least one winner.
            prop_assert!(total_wins as usize >= kept.len());
            prop_assert_eq!(c.rows[0].mean, 0.0);
        }
    }
}
