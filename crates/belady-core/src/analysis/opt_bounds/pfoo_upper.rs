//! PFOO-U: the practical upper bound. FOO's flow over the whole trace is too large for long
//! traces, so it is solved over overlapping segments of the trace, each decision kept once made.
//!
//! Segment `k` covers requests `[k H, k H + 2H)`. Its free intervals are those starting in it
//! (every interval starting earlier was decided by an earlier segment); an interval reaching
//! past the segment's last request ends there, at the share of its cost that the segment
//! covers. Intervals already kept take their bytes off the chain's capacity. FOO's flow over
//! the segment decides the intervals that start in its first half: kept if wholly cached
//! (FOO-U's rounding); the second half is decided again by the next segment, which sees further.
//!
//! The result is a schedule, so its misses bound the optimum from above. Within a segment the
//! kept intervals fit the capacity left by the earlier ones (FOO-U's argument); past the
//! segment's end, every interval it kept also crosses the segment's last gap, where they all
//! fit, and kept intervals only leave as time goes on.
//!
//! Memory: the trace's sizes and next requests (8 bytes a request), the flow of one segment,
//! and the kept intervals still in the cache.

use super::foo::{cost_ceiling, solve, Arc};
use super::model::{Objective, SizedTrace, NONE};
use std::collections::BTreeMap;

/// Requests per segment unless the caller says otherwise (see docs/bounds.md for the
/// measurements that chose it).
pub const DEFAULT_SEGMENT: usize = 1 << 16;

/// PFOO-U's upper bound on the misses or missed bytes of a cache of `capacity` bytes, over
/// segments of `segment` requests; `progress` hears of each segment.
pub(crate) fn pfoo_upper(
    trace: &SizedTrace,
    capacity: u64,
    objective: Objective,
    segment: usize,
    progress: &mut dyn FnMut(usize, usize),
) -> u64 {
    let n = trace.requests();
    let (g, room) = trace.units(capacity);
    // Room beyond every interval's units together changes nothing; this keeps i64 safe.
    let room = room.min(1 << 60);
    let segment = segment.max(2);
    let half = segment / 2;
    let units = |s: u32| (s as u64 / g) as i64;
    let smallest = trace
        .intervals(capacity)
        .map(|(_, _, s)| s)
        .min()
        .unwrap_or(1) as f64;
    // Kept intervals that are still cached: units leaving at each end position.
    let mut leaving: BTreeMap<u32, u64> = BTreeMap::new();
    let mut kept_units = 0u64;
    let (mut hits, mut hit_bytes) = (0u64, 0u64);
    let segments = n.div_ceil(half).max(1);
    let mut arcs: Vec<Arc> = Vec::new();
    let mut starts: Vec<u32> = Vec::new();
    let mut weights: Vec<f64> = Vec::new();
    for (k, a) in (0..n).step_by(half).enumerate() {
        progress(k, segments);
        let end = (a + segment).min(n);
        let last = (end - 1) as u32;
        let decide_before = if end == n { n } else { a + half };
        // Intervals that ended by `a` no longer hold room.
        while let Some((&e, &u)) = leaving.first_key_value() {
            if e as usize > a {
                break;
            }
            kept_units -= u;
            leaving.pop_first();
        }
        arcs.clear();
        starts.clear();
        weights.clear();
        for t in a..end {
            let next = trace.next[t];
            let s = trace.sizes[t];
            if next == NONE || s as u64 > capacity || t as u32 >= last {
                continue;
            }
            let stop = next.min(last);
            let share = (stop - t as u32) as f64 / (next - t as u32) as f64;
            // Cost per unit: a miss per interval spread over its units, or one per byte.
            let weight = match objective {
                Objective::Misses => share * smallest / s as f64,
                Objective::Bytes => share,
            };
            arcs.push((t as u32, stop, units(s), 0));
            starts.push(t as u32);
            weights.push(weight);
        }
        let ceiling = cost_ceiling(arcs.len()) as f64;
        for (arc, w) in arcs.iter_mut().zip(&weights) {
            arc.3 = (w * ceiling).round() as i64;
        }
        // The room left across the gap after each position: the kept units still cached
        // there are those leaving after it.
        let ends: Vec<(u32, u64)> = leaving.range(..=last).map(|(&e, &u)| (e, u)).collect();
        let mut gone = Vec::with_capacity(ends.len() + 1);
        gone.push(0u64);
        for &(_, u) in &ends {
            gone.push(gone.last().unwrap() + u);
        }
        let room_at = |p: u32| {
            let left = kept_units - gone[ends.partition_point(|&(e, _)| e <= p)];
            (room - left.min(room)) as i64
        };
        let flows = solve(&arcs, room_at);
        for ((arc, &t), &f) in arcs.iter().zip(&starts).zip(&flows) {
            if (t as usize) >= decide_before || f != 0 {
                continue;
            }
            let next = trace.next[t as usize];
            hits += 1;
            hit_bytes += trace.sizes[t as usize] as u64;
            kept_units += arc.2 as u64;
            *leaving.entry(next).or_insert(0) += arc.2 as u64;
        }
        if end == n {
            break;
        }
    }
    match objective {
        Objective::Misses => n as u64 - hits,
        Objective::Bytes => trace.bytes_requested() - hit_bytes,
    }
}
