//! FOO: the flow-based offline optimum (Berger, Beckmann, Harchol-Balter, SIGMETRICS 2018).
//!
//! Each keepable interval is an arc from its start request to its end request carrying the
//! object's bytes; the same bytes may instead travel along the chain of requests, whose arcs
//! hold the cache's capacity. Bytes on the interval's own arc are missed and cost
//! `1 / size` each when misses are counted (so a wholly missed interval costs one miss), 1 each
//! when bytes are. The flow's least cost is the linear relaxation's optimum: FOO-L, a lower
//! bound. Keeping exactly the intervals whose arc carries nothing is a schedule (the chain's
//! flow across any gap is at least the bytes of the intervals wholly on it, and at most the
//! capacity): FOO-U, an upper bound.
//!
//! Bounds stay exact in integers. Sizes are counted in units of their greatest common divisor
//! (`SizedTrace::units`). The miss objective's cost `1 / s` is scaled by an integer `M` and
//! rounded down, so the flow's least cost over `M` never exceeds the relaxation's optimum: the
//! lower bound stays a lower bound, and with equal sizes (every cost equal) it is exact.

use super::model::{compulsory, Bound, Objective, SizedTrace};
use super::simplex::{ChainFlow, MAX_PATH_COST};

/// An interval as the flow takes it: start and end positions, units, cost per unit.
pub(crate) type Arc = (u32, u32, i64, i64);

/// Solves the flow over `arcs` (start before end) whose chain has `room(p)` units free across
/// the gap after each node position `p` (and up to the next node); returns each arc's flow
/// (the units missed).
pub(crate) fn solve(arcs: &[Arc], room: impl Fn(u32) -> i64) -> Vec<i64> {
    let mut positions: Vec<u32> = arcs.iter().flat_map(|a| [a.0, a.1]).collect();
    positions.sort_unstable();
    positions.dedup();
    if positions.is_empty() {
        return Vec::new();
    }
    let node = |p: u32| positions.binary_search(&p).expect("an endpoint") as u32;
    let chain: Vec<i64> = positions[..positions.len() - 1]
        .iter()
        .map(|&p| room(p).max(0))
        .collect();
    let ends: Vec<(u32, u32)> = arcs.iter().map(|a| (node(a.0), node(a.1))).collect();
    let cached = greedy(arcs, &ends, &chain);
    let mut g = ChainFlow::new(&chain, arcs.len());
    for ((&(_, _, units, cost), &(a, b)), &c) in arcs.iter().zip(&ends).zip(&cached) {
        g.add_interval(a, b, units, cost, c);
    }
    g.solve();
    (0..arcs.len()).map(|k| g.flow(k)).collect()
}

/// A starting schedule for the simplex: intervals in order of cost per unit per gap spanned
/// (PFOO-L's order: the most valuable use of the cache first), each kept whole where the chain
/// still has room for it all. Most of FOO's decisions follow that order, so the simplex starts
/// near the optimum and pivots only around the boundary.
fn greedy(arcs: &[Arc], ends: &[(u32, u32)], chain: &[i64]) -> Vec<bool> {
    let mut order: Vec<usize> = (0..arcs.len()).collect();
    let value = |k: usize| arcs[k].3 as f64 / (ends[k].1 - ends[k].0) as f64;
    order.sort_by(|&x, &y| value(y).total_cmp(&value(x)).then(x.cmp(&y)));
    let mut room = RoomTree::new(chain);
    let mut cached = vec![false; arcs.len()];
    for k in order {
        let (a, b) = (ends[k].0 as usize, ends[k].1 as usize);
        if room.min(a, b) >= arcs[k].2 {
            room.add(a, b, -arcs[k].2);
            cached[k] = true;
        }
    }
    cached
}

/// The chain's room per arc, with the least over a range and an addition over a range in
/// logarithmic time (a segment tree with pending additions).
struct RoomTree {
    size: usize,
    min: Vec<i64>,
    pending: Vec<i64>,
}

impl RoomTree {
    fn new(values: &[i64]) -> RoomTree {
        let size = values.len().next_power_of_two().max(1);
        let mut min = vec![i64::MAX; 2 * size];
        min[size..size + values.len()].copy_from_slice(values);
        for i in (1..size).rev() {
            min[i] = min[2 * i].min(min[2 * i + 1]);
        }
        RoomTree {
            size,
            min,
            pending: vec![0; 2 * size],
        }
    }

    /// The least room over arcs `[a, b)`.
    fn min(&self, a: usize, b: usize) -> i64 {
        self.query(1, 0, self.size, a, b)
    }

    fn query(&self, node: usize, lo: usize, hi: usize, a: usize, b: usize) -> i64 {
        if b <= lo || hi <= a {
            return i64::MAX;
        }
        if a <= lo && hi <= b {
            return self.min[node];
        }
        let mid = (lo + hi) / 2;
        let below =
            self.query(2 * node, lo, mid, a, b)
                .min(self.query(2 * node + 1, mid, hi, a, b));
        below.saturating_add(self.pending[node])
    }

    /// Adds `delta` to the room of arcs `[a, b)`.
    fn add(&mut self, a: usize, b: usize, delta: i64) {
        self.update(1, 0, self.size, a, b, delta);
    }

    fn update(&mut self, node: usize, lo: usize, hi: usize, a: usize, b: usize, delta: i64) {
        if b <= lo || hi <= a {
            return;
        }
        if a <= lo && hi <= b {
            self.min[node] = self.min[node].saturating_add(delta);
            self.pending[node] += delta;
            return;
        }
        let mid = (lo + hi) / 2;
        self.update(2 * node, lo, mid, a, b, delta);
        self.update(2 * node + 1, mid, hi, a, b, delta);
        self.min[node] = self.min[2 * node]
            .min(self.min[2 * node + 1])
            .saturating_add(self.pending[node]);
    }
}

/// The largest cost per unit an arc may have among `arcs` arcs: every path stays within
/// [`MAX_PATH_COST`].
pub(crate) fn cost_ceiling(arcs: usize) -> i64 {
    MAX_PATH_COST / (2 * arcs as i64 + 2)
}

/// FOO's lower and upper bounds for a cache of `capacity` bytes.
pub(crate) fn foo(trace: &SizedTrace, capacity: u64, objective: Objective) -> Bound {
    let (g, room) = trace.units(capacity);
    let intervals: Vec<(u32, u32, u32)> = trace.intervals(capacity).collect();
    let (misses, missed_bytes) = compulsory(trace, capacity);
    let units = |s: u32| (s as u64 / g) as i64;
    // The scale of the miss objective: the smallest interval's cost is the ceiling.
    let ceiling = cost_ceiling(intervals.len());
    let smallest = intervals.iter().map(|i| units(i.2)).min().unwrap_or(1);
    let scale = ceiling as u128 * smallest as u128;
    let arcs: Vec<Arc> = intervals
        .iter()
        .map(|&(a, b, s)| {
            let u = units(s);
            let cost = match objective {
                Objective::Misses => (scale / u as u128) as i64,
                Objective::Bytes => 1,
            };
            (a, b, u, cost)
        })
        .collect();
    // More room than every interval's units together changes nothing, and keeps i64 safe.
    let total: i64 = arcs.iter().map(|a| a.2).sum();
    let room = room.min(total as u64) as i64;
    let flows = solve(&arcs, |_| room);
    match objective {
        Objective::Misses => {
            let cost: u128 = arcs
                .iter()
                .zip(&flows)
                .map(|(a, &f)| a.3 as u128 * f as u128)
                .sum();
            let missed = flows.iter().filter(|&&f| f > 0).count() as u64;
            Bound {
                lower: misses + cost.div_ceil(scale.max(1)) as u64,
                upper: misses + missed,
            }
        }
        Objective::Bytes => {
            let lost: u64 = flows.iter().map(|&f| f as u64 * g).sum();
            let missed: u64 = intervals
                .iter()
                .zip(&flows)
                .filter(|(_, &f)| f > 0)
                .map(|(i, _)| i.2 as u64)
                .sum();
            Bound {
                lower: missed_bytes + lost,
                upper: missed_bytes + missed,
            }
        }
    }
}
