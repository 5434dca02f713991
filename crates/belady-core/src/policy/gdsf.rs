//! GDSF, GreedyDual-Size-Frequency (Cherkasova, "Improving WWW proxies performance with
//! Greedy-Dual-Size-Frequency caching policy", HP Labs 1998), with the steps of libCacheSim's
//! `GDSF.cpp` so that misses agree exactly, count-based and at byte capacities
//! (`tests/python/test_xcheck_bytes.py`, `tests/python/test_xcheck_gdsf.py`).
//!
//! Each resident object has a priority `L + frequency x 10^6 / size` (a real number), where `L`, the
//! cache's inflation value, is the priority of the last victim (0 at the start), `frequency` counts
//! the object's references since it entered (1 on entry) and `size` is the bytes it entered with
//! (1 when objects are counted). The victim is the object of lowest priority; among equal
//! priorities, the one whose priority was set longest ago.
//! - A hit adds one to the frequency and recomputes the priority with the current `L`.
//! - A miss computes the newcomer's priority with `L` as it is before anything leaves. libCacheSim
//!   inserts the object first and evicts after, so the newcomer competes with the residents: while
//!   the cache is over its size the lowest-priority object leaves and `L` becomes its priority,
//!   and if that is the newcomer it leaves too (a miss that inserts nothing; the objects evicted
//!   before it stay evicted). Here the level asks [`Policy::evicts_incoming`] before each
//!   eviction, which compares the newcomer with the resident victim; a newcomer wins no tie, being
//!   the newest.
//!
//! Priorities are computed in `f64` with libCacheSim's operations in its order, so they are equal
//! to the last bit. They never go below 0, so their bit patterns order as the numbers do.
//!
//! Prefetching: a prefetched object enters with frequency 1 and the priority `L + 10^6 / size` of
//! the moment it enters (after room is made; it never competes with its victims); its first
//! demand access is its first reference, so the frequency stays 1 and only the priority is
//! recomputed. Pinned objects are passed over: the victim is the lowest-priority unpinned one.

use super::structures::freq_buckets::FreqBuckets;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;
use std::collections::BTreeMap;

/// The weight of one reference in a priority, as libCacheSim scales it.
const SCALE: f64 = 1.0e6;

/// A priority and the stamp that orders equal priorities (older first).
type Key = (u64, u64);

/// The resident objects in (priority, stamp) order.
///
/// While every object weighs one unit (count-based runs) a priority is `L + frequency x 10^6`
/// with `L` itself such a sum, so few priorities are in use at once: groups of equal priority in
/// key order, each a FIFO ([`FreqBuckets`]), make a hit a constant number of steps (as for LFUDA).
/// With objects of many sizes nearly every priority is distinct and linking a new group in could
/// walk past many, so the first object of another size moves the order into an ordered map.
enum Order {
    /// Groups by priority bits; within a group, the order of entry (the stamps' order).
    Groups(FreqBuckets),
    /// By (priority bits, stamp).
    Tree(BTreeMap<Key, Block>),
}

/// GreedyDual-Size-Frequency with libCacheSim's rules.
pub struct GdsfPolicy {
    /// Resident objects by (priority bits, stamp).
    order: Order,
    /// Each resident object's key (`None` when not resident).
    key: Vec<Option<Key>>,
    freq: Vec<u32>,
    /// Units each object entered with.
    size: Vec<u32>,
    /// The inflation value `L`: the priority of the last victim.
    inflation: f64,
    stamp: u64,
    /// The victim `select_victim` chose, and its priority (the next `L`).
    victim: Option<(Block, f64)>,
    /// The demand-missed object about to enter, with the priority it was given before any
    /// eviction for it.
    entering: Option<(Block, f64)>,
}

impl GdsfPolicy {
    /// An empty GDSF over object ids `0..universe`.
    pub fn new(universe: usize) -> Self {
        GdsfPolicy {
            order: Order::Groups(FreqBuckets::new(universe)),
            key: vec![None; universe],
            freq: vec![0; universe],
            size: vec![0; universe],
            inflation: 0.0,
            stamp: 0,
            victim: None,
            entering: None,
        }
    }

    /// The inflation value `L`.
    pub fn inflation(&self) -> f64 {
        self.inflation
    }

    /// The priority of resident `b`.
    pub fn priority(&self, b: Block) -> Option<f64> {
        self.key[b as usize].map(|(bits, _)| f64::from_bits(bits))
    }

    /// `L + freq x 10^6 / size`, in libCacheSim's order of operations.
    fn rank(&self, freq: u32, size: u32) -> f64 {
        self.inflation + freq as f64 * SCALE / size.max(1) as f64
    }

    fn enter(&mut self, b: Block, priority: f64) {
        debug_assert!(priority >= 0.0);
        self.stamp += 1;
        let key = (priority.to_bits(), self.stamp);
        match &mut self.order {
            Order::Groups(groups) => groups.push(key.0, b),
            Order::Tree(tree) => {
                tree.insert(key, b);
            }
        }
        self.key[b as usize] = Some(key);
    }

    fn leave(&mut self, b: Block) -> Option<f64> {
        let key = self.key[b as usize].take()?;
        match &mut self.order {
            Order::Groups(groups) => {
                groups.remove(b);
            }
            Order::Tree(tree) => {
                tree.remove(&key);
            }
        }
        Some(f64::from_bits(key.0))
    }

    /// Moves the order into the ordered map (an object of more than one unit is entering). The
    /// keys carry the stamps, so the order, ties included, is unchanged.
    fn order_by_tree(&mut self) {
        if let Order::Groups(groups) = &self.order {
            let tree = groups
                .iter()
                .map(|b| (self.key[b as usize].expect("a grouped object has a key"), b))
                .collect();
            self.order = Order::Tree(tree);
        }
    }

    /// The resident objects, lowest priority first, older first among equals.
    fn ordered(&self) -> Box<dyn Iterator<Item = Block> + '_> {
        match &self.order {
            Order::Groups(groups) => Box::new(groups.iter()),
            Order::Tree(tree) => Box::new(tree.values().copied()),
        }
    }

    /// The lowest-priority unpinned resident object and its priority.
    fn lowest_unpinned(&self, frames: &Frames) -> Option<(Block, f64)> {
        let b = match &self.order {
            Order::Groups(groups) => groups.victim_from(groups.min_key()?, frames)?,
            Order::Tree(tree) => *tree.values().find(|&&b| !frames.is_pinned(b))?,
        };
        self.priority(b).map(|p| (b, p))
    }
}

impl Policy for GdsfPolicy {
    fn name(&self) -> &'static str {
        "gdsf"
    }

    #[inline]
    fn hint(&self, b: Block) {
        crate::cache::frames::prefetch(self.key.as_ptr().wrapping_add(b as usize) as *const u8);
        if let Order::Groups(groups) = &self.order {
            groups.hint(b);
        }
    }

    fn on_hit(&mut self, b: Block, cx: &Access) {
        self.leave(b);
        if !cx.first_use {
            self.freq[b as usize] = self.freq[b as usize].saturating_add(1);
        }
        let priority = self.rank(self.freq[b as usize], self.size[b as usize]);
        self.enter(b, priority);
    }

    fn before_insert(&mut self, b: Block, _frames: &Frames, cx: &Access) -> bool {
        let size = u32::try_from(cx.size).unwrap_or(u32::MAX);
        self.entering = Some((b, self.rank(1, size)));
        true
    }

    fn evicts_incoming(&mut self, incoming: Block, frames: &Frames, _cx: &Access) -> bool {
        let Some((b, mine)) = self.entering else {
            return false;
        };
        if b != incoming {
            return false;
        }
        match self.lowest_unpinned(frames) {
            // The newcomer is the newest, so it leaves first only when strictly lower.
            Some((_, lowest)) if mine < lowest => {
                self.inflation = mine;
                self.entering = None;
                true
            }
            _ => false,
        }
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        self.victim = self.lowest_unpinned(frames);
        self.victim.map(|(b, _)| b)
    }

    fn forget_victim(&mut self) {
        self.victim = None;
    }

    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        self.leave(b);
        match self.victim.take() {
            Some((v, priority)) if v == b => self.inflation = priority,
            // Taken out by a hierarchy, not chosen as a victim: `L` stays.
            _ => {}
        }
    }

    fn on_insert(&mut self, b: Block, _kind: InsertKind, cx: &Access) {
        let size = u32::try_from(cx.size).unwrap_or(u32::MAX);
        if size > 1 {
            self.order_by_tree();
        }
        self.freq[b as usize] = 1;
        self.size[b as usize] = size;
        let priority = match self.entering.take() {
            Some((e, priority)) if e == b => priority,
            _ => self.rank(1, size),
        };
        self.enter(b, priority);
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    fn len(&self) -> usize {
        match &self.order {
            Order::Groups(groups) => groups.len(),
            Order::Tree(tree) => tree.len(),
        }
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        check_same_residents(self.ordered(), frames)?;
        match &self.order {
            Order::Groups(groups) => groups.check()?,
            Order::Tree(tree) => {
                if let Some((_, b)) = tree.iter().find(|(&k, &b)| self.key[b as usize] != Some(k)) {
                    return Err(format!("block {b} is ordered under a key it does not hold"));
                }
            }
        }
        let mut below: Option<Key> = None;
        for b in self.ordered() {
            let Some(key) = self.key[b as usize] else {
                return Err(format!("block {b} is ordered without a key"));
            };
            if let Order::Groups(groups) = &self.order {
                if groups.key_of(b) != key.0 {
                    return Err(format!("block {b} is grouped under a key it does not hold"));
                }
            }
            if below.is_some_and(|k| k >= key) {
                return Err(format!("block {b} is ordered before a lower key"));
            }
            if f64::from_bits(key.0) < 0.0 {
                return Err(format!("block {b} has a negative priority"));
            }
            below = Some(key);
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        vec![("by_priority_then_age", self.ordered().collect())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::{CacheLevel, Outcome};
    use crate::policy::testutil::{pattern, run};
    use crate::policy::NEVER;

    #[test]
    fn counted_objects_rank_by_frequency_then_age() {
        // cap 2: 1 2 enter at 10^6; 1 hits (2 x 10^6). 3 is given L + 10^6 = 10^6 before anything
        // leaves; 2 ties with it but is older, so 2 leaves and L = 10^6. 4 is given 2 x 10^6 and
        // evicts 3, the lowest; 1 (2 x 10^6, older than 4) is next in line.
        let level = run(GdsfPolicy::new(8), 2, &[1, 2, 1, 3]);
        assert_eq!(level.policy.inflation(), 1.0e6);
        assert_eq!(level.policy.priority(3), Some(1.0e6));
        assert_eq!(level.policy.dump()[0].1, vec![3, 1]);
        let level = run(GdsfPolicy::new(8), 2, &[1, 2, 1, 3, 4]);
        assert_eq!(level.policy.dump()[0].1, vec![1, 4]);
        assert_eq!(
            pattern(|| GdsfPolicy::new(8), 2, &[1, 2, 1, 3, 4, 3, 1]),
            "mmhmmmm"
        );
    }

    #[test]
    fn a_newcomer_below_every_resident_is_its_own_victim() {
        // cap 2: 1 and 2 hit twice each (3 x 10^6). 3 enters at 10^6, below both: it leaves at
        // once (a rejected miss), L becomes 10^6, and 1 and 2 stay.
        let mut level = CacheLevel::new(GdsfPolicy::new(8), 2, 8);
        for b in [1, 2, 1, 2, 1, 2] {
            level.access(b, NEVER);
        }
        assert_eq!(level.access(3, NEVER), Outcome::Bypass);
        level.check().unwrap();
        assert_eq!(level.policy.inflation(), 1.0e6);
        assert_eq!(level.frames().resident_blocks().collect::<Vec<_>>(), [1, 2]);
        assert_eq!((level.stats().rejected, level.stats().evictions), (1, 0));
        // The next newcomer enters at L + 10^6 = 2 x 10^6, still below 3 x 10^6.
        assert_eq!(level.access(4, NEVER), Outcome::Bypass);
        assert_eq!(level.policy.inflation(), 2.0e6);
    }

    #[test]
    fn sizes_divide_the_priority_and_earlier_victims_stay_evicted() {
        // 200 bytes. 1 (40 B) enters at 25000. Seven 150-byte objects 2..8 follow, each evicting
        // the one before (each enters at L + 6666.7, and L climbs to 20000); 8 enters at 26666.7,
        // above 1. Then 9 (160 B) enters at 20000 + 6250 = 26250: 1 (25000) leaves first and L
        // becomes 25000, but 8 (26666.7) ranks above 9, so 9 leaves itself with L = 26250.
        let mut level = CacheLevel::weighted(GdsfPolicy::new(16), 200, 16);
        level.access_sized(1, 40, NEVER);
        for b in 2..=8 {
            level.access_sized(b, 150, NEVER);
        }
        assert_eq!(level.policy.priority(1), Some(25000.0));
        assert_eq!(level.access_sized(9, 160, NEVER), Outcome::Bypass);
        level.check().unwrap();
        assert_eq!(level.frames().resident_blocks().collect::<Vec<_>>(), [8]);
        assert_eq!(level.policy.inflation(), 26250.0);
        assert_eq!((level.stats().rejected, level.stats().evictions), (1, 7));
    }

    #[test]
    fn an_object_of_another_size_keeps_the_order_when_the_groups_become_a_map() {
        // Unit objects fill the groups (ties among 2, 3, 4 by age); a 2-unit object then moves
        // the order into the map, which must list the residents as the groups did.
        let mut level = CacheLevel::weighted(GdsfPolicy::new(16), 6, 16);
        for b in [1, 2, 3, 1, 4, 1] {
            level.access_sized(b, 1, NEVER);
        }
        let before = level.policy.dump()[0].1.clone();
        assert_eq!(before, vec![2, 3, 4, 1]);
        assert!(matches!(level.policy.order, Order::Groups(_)));
        level.access_sized(5, 2, NEVER);
        assert!(matches!(level.policy.order, Order::Tree(_)));
        level.check().unwrap();
        // 5 enters at L + 10^6 / 2 = 5 x 10^5, below every unit object, so it leads the order.
        assert_eq!(level.policy.dump()[0].1, [vec![5], before].concat());
    }

    #[test]
    fn a_first_use_recomputes_without_counting() {
        let mut level = CacheLevel::new(GdsfPolicy::new(8), 2, 8);
        level.access(1, NEVER);
        level.access(2, NEVER);
        level.access(3, NEVER); // evicts 1: L = 10^6
        level.prefetch(4, NEVER); // evicts 2: L = 10^6; 4 enters at 2 x 10^6
        level.access(4, NEVER); // first use: frequency stays 1
        assert_eq!(level.policy.priority(4), Some(2.0e6));
        level.access(4, NEVER);
        assert_eq!(level.policy.priority(4), Some(3.0e6));
        level.check().unwrap();
    }
}
