//! Idle distances below a client cache (Chen, Zhou and Li, "Eviction-based cache placement for
//! storage caches", USENIX ATC 2003, section 2 and Figure 2).
//!
//! The references that reach a storage cache are the client's misses, numbered in order: that
//! numbering is the storage's clock. For a reference to block `b` at time `current(b)`, with
//! `prev(b)` the time of `b`'s previous storage reference and `evict(b)` the time of the storage
//! reference during which the client last evicted `b` (the miss the client made room for):
//! - under access-based placement `b` entered the storage at `prev(b)`, so its idle distance is
//!   the reuse distance `current(b) - prev(b)`;
//! - under eviction-based placement it entered at `evict(b)`, which is always after `prev(b)`,
//!   so its idle distance is the eviction distance `current(b) - evict(b)`, never longer.
//!
//! A storage cache of `k` blocks can keep a block only for an idle distance of about `k`
//! references, so the share of references with shorter idle distances bounds its hit ratio.
//! First references (no previous storage reference) have no distance and are counted apart.

use crate::cache::level::{CacheLevel, Outcome};
use crate::engine::run_loop;
use crate::error::Result;
use crate::policy::registry::{PolicySpec, PolicyVisitor};
use crate::policy::Policy;
use crate::PreparedTrace;

/// One log2 bucket: distances `low ..= high`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DistanceBucket {
    /// Smallest distance in the bucket (a power of two).
    pub low: u64,
    /// Largest distance in the bucket.
    pub high: u64,
    /// References with a reuse distance (access-based idle distance) in the bucket.
    pub access: u64,
    /// References with an eviction distance (eviction-based idle distance) in the bucket.
    pub eviction: u64,
}

/// Both histograms for one client configuration.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DistanceReport {
    /// Trace source.
    pub trace: String,
    /// Client policy label.
    pub client_policy: String,
    /// Client size in blocks.
    pub client_blocks: u64,
    /// References in the trace (all reach the client).
    pub requests: u64,
    /// References that missed the client: the storage's reference string.
    pub storage_references: u64,
    /// Storage references to blocks never referenced there before (no distance).
    pub first_references: u64,
    /// Log2 buckets from distance 1 up to the largest distance seen.
    pub buckets: Vec<DistanceBucket>,
    /// Mean reuse distance of the storage references that have one.
    pub mean_access: f64,
    /// Mean eviction distance of the same references.
    pub mean_eviction: f64,
}

impl DistanceReport {
    /// References whose access-based and eviction-based idle distances exceed `d`.
    pub fn longer_than(&self, d: u64) -> (u64, u64) {
        // Exact at bucket edges only; `d` is rounded down to the bucket holding it.
        self.buckets
            .iter()
            .filter(|b| b.low > d)
            .fold((0, 0), |(a, e), b| (a + b.access, e + b.eviction))
    }
}

/// Marks a block never seen at the storage.
const UNSEEN: u64 = u64::MAX;

/// Index of the log2 bucket holding distance `d >= 1`.
fn bucket(d: u64) -> usize {
    63 - d.leading_zeros() as usize
}

struct Measure<'a> {
    trace: &'a PreparedTrace,
    capacity: usize,
}

impl PolicyVisitor for Measure<'_> {
    type Output = (u64, u64, Vec<[u64; 2]>, [u128; 2]);
    fn visit<P: Policy + 'static>(self, policy: P) -> Self::Output {
        let unique = self.trace.unique();
        let oracle = policy.needs_oracle();
        let mut client = CacheLevel::new(policy, self.capacity, unique);
        let mut prev = vec![UNSEEN; unique];
        let mut evict = vec![UNSEEN; unique];
        let mut hist: Vec<[u64; 2]> = Vec::new();
        let mut sums = [0u128; 2];
        let (mut now, mut first) = (0u64, 0u64);
        let requests = self.trace.requests(None, oracle);
        run_loop::feed_observed(&mut client, requests, |client, b, outcome| {
            if outcome == Outcome::Hit {
                return;
            }
            // A storage reference at time `now`.
            let p = std::mem::replace(&mut prev[b as usize], now);
            if p == UNSEEN {
                first += 1;
            } else {
                let e = evict[b as usize];
                debug_assert!(
                    e != UNSEEN && e > p,
                    "a re-referenced block was evicted after its previous reference"
                );
                let (reuse, idle) = (now - p, now - e);
                let need = bucket(reuse) + 1;
                if hist.len() < need {
                    hist.resize(need, [0, 0]);
                }
                hist[bucket(reuse)][0] += 1;
                hist[bucket(idle)][1] += 1;
                sums[0] += reuse as u128;
                sums[1] += idle as u128;
            }
            if let Some(v) = client.last_victim() {
                evict[v.block as usize] = now;
            }
            now += 1;
        });
        (now, first, hist, sums)
    }
}

/// Reuse and eviction distances at the storage below a client of `client_blocks` blocks managed
/// by `client`.
pub fn placement_distances(
    trace: &PreparedTrace,
    client: &PolicySpec,
    client_blocks: usize,
) -> Result<DistanceReport> {
    let (storage, first, hist, sums) = crate::cache::builder::build(
        client,
        client_blocks,
        trace.unique(),
        Measure {
            trace,
            capacity: client_blocks,
        },
    )?;
    let measured = storage - first;
    let mean = |s: u128| {
        if measured == 0 {
            0.0
        } else {
            s as f64 / measured as f64
        }
    };
    Ok(DistanceReport {
        trace: trace.trace.source.clone(),
        client_policy: client.label(),
        client_blocks: client_blocks as u64,
        requests: trace.trace.refs.len() as u64,
        storage_references: storage,
        first_references: first,
        buckets: hist
            .iter()
            .enumerate()
            .map(|(k, &[a, e])| DistanceBucket {
                low: 1 << k,
                high: (1u64 << (k + 1)) - 1,
                access: a,
                eviction: e,
            })
            .collect(),
        mean_access: mean(sums[0]),
        mean_eviction: mean(sums[1]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::BlockTrace;

    fn prepared(refs: &[u32]) -> PreparedTrace {
        let unique = refs.iter().max().map_or(0, |&m| m as usize + 1);
        PreparedTrace::new(BlockTrace {
            source: "t".into(),
            block_size: 4096,
            refs: refs.to_vec(),
            originals: (0..unique as u64).collect(),
            write_mask: None,
            times: None,
            sizes: None,
        })
    }

    #[test]
    fn hand_worked_distances() {
        // Client LRU of 2 on 0 1 2 0 1 3 2 0 (the hierarchy module's hand-worked trace): every
        // reference misses, so storage time = position. Evictions: 0 at t2, 1 at t3, 2 at t4,
        // 0 at t5, 1 at t6, 3 at t7.
        //   t3 ref 0: reuse 3 - 0 = 3, eviction 3 - 2 = 1
        //   t4 ref 1: reuse 4 - 1 = 3, eviction 4 - 3 = 1
        //   t6 ref 2: reuse 6 - 2 = 4, eviction 6 - 4 = 2
        //   t7 ref 0: reuse 7 - 3 = 4, eviction 7 - 5 = 2
        let r = placement_distances(
            &prepared(&[0, 1, 2, 0, 1, 3, 2, 0]),
            &PolicySpec::parse("lru").unwrap(),
            2,
        )
        .unwrap();
        assert_eq!((r.storage_references, r.first_references), (8, 4));
        let rows: Vec<(u64, u64, u64)> = r
            .buckets
            .iter()
            .map(|b| (b.low, b.access, b.eviction))
            .collect();
        assert_eq!(rows, vec![(1, 0, 2), (2, 2, 2), (4, 2, 0)]);
        assert_eq!(r.mean_access, 3.5);
        assert_eq!(r.mean_eviction, 1.5);
        assert_eq!(r.longer_than(3), (2, 0));
    }

    #[test]
    fn client_hits_are_not_storage_references() {
        // LRU of 2 on 0 1 0 2 0: t0 0, t1 1, (0 hits), 2 evicts 1 at storage time 2, (0 hits).
        // Then 1 again: storage time 3, reuse 3 - 1 = 2, eviction 3 - 2 = 1.
        let r = placement_distances(
            &prepared(&[0, 1, 0, 2, 0, 1]),
            &PolicySpec::parse("lru").unwrap(),
            2,
        )
        .unwrap();
        assert_eq!(
            (r.requests, r.storage_references, r.first_references),
            (6, 4, 3)
        );
        assert_eq!(r.buckets[0].eviction, 1);
        assert_eq!(r.buckets[1].access, 1);
    }

    proptest::proptest! {
        /// Eviction distances never exceed reuse distances, so the eviction histogram's mass
        /// sits at or below the reuse histogram's, bucket by cumulative bucket; and the totals
        /// account for every storage reference.
        #[test]
        fn eviction_distances_are_never_longer(
            cap in 1usize..8,
            policy in proptest::sample::select(vec!["lru", "fifo", "clock", "arc", "2q", "mq", "opt"]),
            refs in proptest::collection::vec(0u32..20, 1..300),
        ) {
            let r = placement_distances(&prepared(&refs), &PolicySpec::parse(policy).unwrap(), cap).unwrap();
            let (mut a, mut e) = (0u64, 0u64);
            for b in &r.buckets {
                a += b.access;
                e += b.eviction;
                proptest::prop_assert!(e >= a);
            }
            proptest::prop_assert_eq!(a, e);
            proptest::prop_assert_eq!(a + r.first_references, r.storage_references);
            proptest::prop_assert!(r.mean_eviction <= r.mean_access);
        }
    }
}
