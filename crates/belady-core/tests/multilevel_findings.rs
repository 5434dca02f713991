//! The eviction-based placement paper's findings (Chen, Zhou and Li, USENIX ATC 2003, section 3)
//! on the ARC traces, with an LRU client cache over a storage cache of LRU, FBR, 2Q or MQ:
//! placing a block in the storage cache when the client evicts it gives a higher storage hit
//! ratio than placing it when it is read; the gain is largest for LRU, and it closes as the
//! storage cache grows. Where a finding holds only in part on a trace (which policy gains least
//! on P3), the measured relation is asserted instead and the README says so.

mod common;
use belady_core::engine::file::{run_file_hierarchies, PreparedFileTrace};
use belady_core::engine::hierarchy::{HierarchySpec, Placement};
use belady_core::run::config::RunConfig;
use belady_core::{Format, PreparedTrace, Preset};
use common::trace;

const POLICIES: [&str; 4] = ["lru", "fbr", "2q", "mq"];

/// Storage hit ratios, `[policy][size]`, for access- and eviction-based placement.
struct Grid {
    sizes: Vec<usize>,
    access: Vec<Vec<f64>>,
    eviction: Vec<Vec<f64>>,
}

impl Grid {
    fn run(t: &PreparedTrace, client: usize, sizes: &[usize]) -> Grid {
        let mut specs = Vec::new();
        for p in POLICIES {
            for &s in sizes {
                for placement in [Placement::Access, Placement::Eviction { threshold: 1 }] {
                    specs.push(
                        HierarchySpec::parse(
                            &format!("client:lru:{client},storage:{p}:{s}"),
                            &[],
                            Preset::Paper,
                            placement,
                        )
                        .unwrap(),
                    );
                }
            }
        }
        // One parallel batch: every (policy, size, placement) on the rayon pool, on the one
        // engine every hierarchy runs on (untimed, no read-ahead).
        let files = PreparedFileTrace::from_block_trace(&t.trace).unwrap();
        let cfg = RunConfig::default().file_config().unwrap();
        let results = run_file_hierarchies(&specs, &files, &cfg).unwrap();
        let ratio = |i: usize| results[i].levels.as_ref().unwrap()[1].hit_ratio;
        let n = sizes.len();
        let at = |p: usize, k: usize, e: usize| ratio((p * n + k) * 2 + e);
        let grid = Grid {
            sizes: sizes.to_vec(),
            access: (0..4)
                .map(|p| (0..n).map(|k| at(p, k, 0)).collect())
                .collect(),
            eviction: (0..4)
                .map(|p| (0..n).map(|k| at(p, k, 1)).collect())
                .collect(),
        };
        for (p, name) in POLICIES.iter().enumerate() {
            for (k, s) in sizes.iter().enumerate() {
                eprintln!(
                    "{name:>3} storage {s:>7}: access {:6.2}%  eviction {:6.2}%  ({:.2}x)",
                    100.0 * grid.access[p][k],
                    100.0 * grid.eviction[p][k],
                    grid.gain(p, k)
                );
            }
        }
        grid
    }

    /// Eviction-based over access-based hit ratio.
    fn gain(&self, p: usize, k: usize) -> f64 {
        self.eviction[p][k] / self.access[p][k]
    }

    /// Mean gain over the sizes.
    fn mean_gain(&self, p: usize) -> f64 {
        (0..self.sizes.len()).map(|k| self.gain(p, k)).sum::<f64>() / self.sizes.len() as f64
    }

    /// Eviction beats access for every policy at every size.
    fn assert_eviction_wins(&self) {
        for (p, name) in POLICIES.iter().enumerate() {
            for (k, s) in self.sizes.iter().enumerate() {
                assert!(
                    self.eviction[p][k] > self.access[p][k],
                    "{name} at {s}: eviction {} <= access {}",
                    self.eviction[p][k],
                    self.access[p][k]
                );
            }
        }
    }

    /// The gap closes as the storage grows: both the ratio and the difference in hit ratio
    /// shrink from each size to the next.
    fn assert_gap_closes(&self) {
        for (p, name) in POLICIES.iter().enumerate() {
            for k in 1..self.sizes.len() {
                let diff = |k: usize| self.eviction[p][k] - self.access[p][k];
                assert!(
                    self.gain(p, k) < self.gain(p, k - 1) && diff(k) < diff(k - 1),
                    "{name}: the gap does not close from {} to {} blocks",
                    self.sizes[k - 1],
                    self.sizes[k]
                );
            }
        }
    }
}

#[test]
fn oltp_eviction_placement_beats_access_placement() {
    let Some(t) = trace("arc/OLTP.lis.zst", Format::Arc) else {
        return;
    };
    // A client of 5,000 blocks (2.7 % of the trace's blocks; LRU hits 53.65 % there) over
    // storage caches of one to eight client sizes.
    let g = Grid::run(&t, 5_000, &[5_000, 10_000, 20_000, 40_000]);
    g.assert_eviction_wins();
    g.assert_gap_closes();
    // LRU gains most at the client's size and on average over the sizes (2Q overtakes it at
    // 20,000 blocks and above); MQ gains least at every size.
    let (lru, mq) = (0, 3);
    for other in 1..3 {
        assert!(g.gain(lru, 0) > g.gain(other, 0));
        assert!(g.mean_gain(lru) > g.mean_gain(other) && g.mean_gain(mq) < g.mean_gain(other));
    }
    for (other, name) in POLICIES.iter().enumerate().take(3) {
        for (k, size) in g.sizes.iter().enumerate() {
            assert!(g.gain(mq, k) < g.gain(other, k), "{name} at {size}");
        }
    }
    // The paper's "up to 500 %" on LRU: here nearly five times at the client's size.
    assert!(g.gain(lru, 0) > 4.0, "{}", g.gain(lru, 0));
}

#[test]
fn p3_eviction_placement_beats_access_placement() {
    let Some(t) = trace("arc/P3.lis.zst", Format::Arc) else {
        return;
    };
    // A client of 65,536 blocks (8.6 % of the trace's blocks; LRU hits 12.7 %: P3 has little
    // locality) over storage caches of one to four client sizes.
    let g = Grid::run(&t, 65_536, &[65_536, 131_072, 262_144]);
    g.assert_eviction_wins();
    g.assert_gap_closes();
    let (lru, fbr, twoq, mq) = (0, 1, 2, 3);
    for other in [fbr, twoq, mq] {
        assert!(g.gain(lru, 0) > g.gain(other, 0));
        assert!(g.mean_gain(lru) > g.mean_gain(other));
    }
    // MQ gains less than LRU and FBR, but not less than 2Q: at the client's size 2Q's
    // access-based hit ratio is already the higher of the two and it gains least (README).
    for other in [lru, fbr] {
        assert!(g.mean_gain(mq) < g.mean_gain(other));
    }
    assert!(g.gain(twoq, 0) < g.gain(mq, 0));
    assert!((g.mean_gain(mq) - g.mean_gain(twoq)).abs() < 0.1);
}

/// The paper's Figure 2 on OLTP below an LRU client of 5,000 blocks: both idle-distance
/// histograms are hill-shaped with their peak beyond the client's size, and eviction distances
/// are shorter: at every bucket edge at least as many references fall below it as reuse
/// distances, and many more below the client's size.
#[test]
fn oltp_figure_2_eviction_distances_are_shorter() {
    let Some(t) = trace("arc/OLTP.lis.zst", Format::Arc) else {
        return;
    };
    let client = 5_000u64;
    let r = belady_core::analysis::distances::placement_distances(
        &t,
        &belady_core::PolicySpec::parse("lru").unwrap(),
        client as usize,
    )
    .unwrap();
    let peak = |f: fn(&belady_core::analysis::distances::DistanceBucket) -> u64| {
        r.buckets.iter().max_by_key(|b| f(b)).unwrap().low
    };
    let (peak_access, peak_eviction) = (peak(|b| b.access), peak(|b| b.eviction));
    eprintln!("peaks: access {peak_access}, eviction {peak_eviction}");
    assert!(peak_access >= client && peak_eviction >= client);
    let (mut a, mut e) = (0u64, 0u64);
    let (mut a_below, mut e_below) = (0, 0);
    for b in &r.buckets {
        a += b.access;
        e += b.eviction;
        assert!(e >= a, "fewer short eviction distances up to {}", b.high);
        if b.high < client {
            (a_below, e_below) = (a, e);
        }
    }
    eprintln!("below the client size: access {a_below}, eviction {e_below}");
    assert!(e_below > 10 * a_below.max(1));
    assert!(r.mean_eviction < r.mean_access);
}
