//! PFOO-L: the practical lower bound. FOO's constraint that the cache hold at most its capacity
//! across every gap between requests is relaxed to one constraint over the whole trace: the
//! bytes kept, summed over all gaps, at most the capacity times the gaps. An interval then costs
//! its size times its length, and the best use of that budget is a fractional knapsack: take
//! intervals from the cheapest per hit (per byte hit, for missed bytes) until the budget runs
//! out, the last one in part. Its hits bound every schedule's hits from above.
//!
//! The knapsack's boundary is found without sorting or storing the intervals: each pass over
//! the trace sums the intervals' resources into 65,536 buckets of the key range that holds the
//! boundary, and the next pass splits that bucket, until it holds one key (at most five passes;
//! memory is the buckets). Every sum is an exact integer.

use super::model::{Objective, SizedTrace};

/// Buckets per pass.
const BUCKETS: usize = 1 << 16;

/// PFOO-L's lower bound on the misses or missed bytes of a cache of `capacity` bytes (the upper
/// field is left at the trace's total).
pub(crate) fn pfoo_lower(trace: &SizedTrace, capacity: u64, objective: Objective) -> u64 {
    let (g, units) = trace.units(capacity);
    let gaps = trace.requests().saturating_sub(1) as u128;
    let budget = (units as u128 * g as u128) * gaps;
    // Each interval: its key (ascending = better value per resource), resource and value.
    let items = |f: &mut dyn FnMut(u64, u128, u128)| {
        for (a, b, s) in trace.intervals(capacity) {
            let len = (b - a) as u64;
            let resource = s as u128 * len as u128;
            match objective {
                // One hit for s * len: the key is the resource itself.
                Objective::Misses => f(s as u64 * len, resource, 1),
                // s bytes hit for s * len: 1 / len per unit of resource.
                Objective::Bytes => f(len, resource, s as u128),
            }
        }
    };
    let hits = knapsack(items, budget);
    let total = match objective {
        Objective::Misses => trace.requests() as u128,
        Objective::Bytes => trace.bytes_requested() as u128,
    };
    (total - hits.min(total)) as u64
}

/// The fractional knapsack's value, rounded down, over the items `items` calls back with
/// `(key, resource, value)`, where every item of one key has value / resource = 1 / key, under
/// a resource `budget`.
fn knapsack(items: impl Fn(&mut dyn FnMut(u64, u128, u128)), budget: u128) -> u128 {
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    let (mut total_resource, mut total_value) = (0u128, 0u128);
    items(&mut |key, r, v| {
        lo = lo.min(key);
        hi = hi.max(key);
        total_resource += r;
        total_value += v;
    });
    if total_resource <= budget {
        return total_value;
    }
    // Items with keys below `lo`: all taken.
    let (mut below_resource, mut below_value) = (0u128, 0u128);
    let mut resource = vec![0u128; BUCKETS];
    let mut value = vec![0u128; BUCKETS];
    while lo < hi {
        let width = (hi - lo) as u128 + 1;
        let mut shift = 0u32;
        while (width - 1) >> shift >= BUCKETS as u128 {
            shift += 1;
        }
        resource.fill(0);
        value.fill(0);
        items(&mut |key, r, v| {
            if key >= lo && key <= hi {
                let b = ((key - lo) >> shift) as usize;
                resource[b] += r;
                value[b] += v;
            }
        });
        // The first bucket that overflows the budget holds the boundary.
        let mut b = 0;
        while below_resource + resource[b] <= budget {
            below_resource += resource[b];
            below_value += value[b];
            b += 1;
        }
        let start = lo + ((b as u64) << shift);
        hi = hi.min(start.saturating_add((1u64 << shift) - 1));
        lo = start;
    }
    // Every item of key `lo` has value / resource = 1 / lo: the budget left buys that share.
    below_value + (budget - below_resource) / lo.max(1) as u128
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_knapsack_takes_the_cheapest_first_and_the_boundary_in_part() {
        // Keys 1, 5, 5, 1000 with resource = key and value 1 each (value / resource = 1 / key).
        let keys = [1000u64, 5, 1, 5];
        let items = |f: &mut dyn FnMut(u64, u128, u128)| {
            for &k in &keys {
                f(k, k as u128, 1);
            }
        };
        assert_eq!(knapsack(items, 1), 1);
        assert_eq!(knapsack(items, 10), 2); // 1 + 5 taken, 4 of the next 5: 0.8 → 2
        assert_eq!(knapsack(items, 11), 3);
        assert_eq!(knapsack(items, 510), 3); // 499 of 1000: 0.499 more
        assert_eq!(knapsack(items, 1011), 4);
        // Keys far apart need several passes.
        let wide = [3u64, 1 << 40, (1 << 40) + 7, u64::MAX / 2];
        let items = |f: &mut dyn FnMut(u64, u128, u128)| {
            for &k in &wide {
                f(k, k as u128, 1);
            }
        };
        assert_eq!(knapsack(items, 3 + (1 << 40)), 2);
        assert_eq!(knapsack(items, 3 + (1 << 40) + (1 << 40) + 6), 2);
        assert_eq!(knapsack(items, 3 + (1 << 40) + (1 << 40) + 7), 3);
    }
}
