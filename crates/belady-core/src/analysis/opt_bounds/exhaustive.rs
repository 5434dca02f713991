//! The optimum by exhaustive search over cache contents, for tiny traces (tests only): after
//! each request the cache holds any set of objects, drawn from what it held and the object just
//! requested, that fits its capacity. A request hits when its object is held; an object weighs
//! its size at its first request, as in the model.

use super::model::Objective;
use std::collections::HashMap;

/// The least misses or missed bytes of any schedule for `pairs` (object id, size) in a cache
/// of `capacity` bytes. At most 16 distinct ids.
pub(crate) fn optimum(pairs: &[(u64, u32)], capacity: u64, objective: Objective) -> u64 {
    let mut index = HashMap::new();
    let ids: Vec<usize> = pairs
        .iter()
        .map(|&(id, _)| {
            let n = index.len();
            *index.entry(id).or_insert(n)
        })
        .collect();
    assert!(index.len() <= 16, "too many objects for exhaustive search");
    // Each object's size at its first request.
    let mut size = vec![0u64; index.len()];
    let mut best: HashMap<u32, u64> = HashMap::from([(0u32, 0u64)]);
    for (&o, &(_, s)) in ids.iter().zip(pairs) {
        if size[o] == 0 {
            size[o] = s.max(1) as u64;
        }
        let cost = match objective {
            Objective::Misses => 1,
            Objective::Bytes => size[o],
        };
        let mut next: HashMap<u32, u64> = HashMap::new();
        for (&held, &c) in &best {
            let hit = held & (1 << o) != 0;
            let c = c + if hit { 0 } else { cost };
            // Keep any subset of what was held and the object just requested that fits.
            let pool = held | (1 << o);
            let mut keep = pool;
            loop {
                let bytes: u64 = (0..size.len())
                    .filter(|&i| keep & (1 << i) != 0)
                    .map(|i| size[i])
                    .sum();
                if bytes <= capacity {
                    let e = next.entry(keep).or_insert(u64::MAX);
                    *e = (*e).min(c);
                }
                if keep == 0 {
                    break;
                }
                keep = (keep - 1) & pool;
            }
        }
        best = next;
    }
    best.into_values().min().unwrap_or(0)
}

/// Belady's rule with bypass for objects of one size in a cache of `slots` objects: on a miss
/// with the cache full, drop whichever of the cached objects and the missed one is next
/// requested farthest in the future (the missed one: not cached). Returns the misses.
pub(crate) fn belady_with_bypass(ids: &[u64], slots: usize) -> u64 {
    let next_use = |t: usize, id: u64| {
        ids[t + 1..]
            .iter()
            .position(|&x| x == id)
            .map_or(usize::MAX, |p| t + 1 + p)
    };
    let mut cache: Vec<u64> = Vec::new();
    let mut misses = 0;
    for (t, &id) in ids.iter().enumerate() {
        if cache.contains(&id) {
            continue;
        }
        misses += 1;
        if slots == 0 {
            continue;
        }
        if cache.len() < slots {
            cache.push(id);
            continue;
        }
        let (far, far_use) = cache
            .iter()
            .enumerate()
            .map(|(i, &c)| (i, next_use(t, c)))
            .max_by_key(|&(_, u)| u)
            .expect("a full cache");
        if next_use(t, id) < far_use {
            cache[far] = id;
        }
    }
    misses
}
