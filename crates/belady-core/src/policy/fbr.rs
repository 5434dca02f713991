//! FBR: Frequency-Based Replacement.
//!
//! Paper: J. T. Robinson and M. V. Devarakonda, "Data Cache Management Using Frequency-Based
//! Replacement", ACM SIGMETRICS 1990 (Performance Evaluation Review 18(1)). No public reference
//! implementation of the full algorithm was found (libCacheSim, Caffeine and AccuSim have none;
//! the SNK-DB buffer manager has a simplified version without aging); the definition below
//! follows the paper as summarised in the project's reference notes and in Jain & Lin,
//! "Cache Replacement Policies" (2019), section 3.2.
//!
//! The resident blocks form one LRU stack split by position into three sections: the *new*
//! section (the `new` share of the cache at the MRU end), the *old* section (the `old` share at
//! the LRU end) and the *middle* section between them. Every block has a reference count.
//! - Miss: the new block enters at the MRU end with count 1.
//! - Hit: the block moves to the MRU end; its count is incremented unless it was in the new
//!   section (this "factors out locality": bursts of re-references count once). Counts never
//!   exceed `c-max`.
//! - Victim: the block with the smallest count in the old section, the least recently used
//!   among equal counts.
//! - Aging: when the average count of the resident blocks exceeds `a-max`, every count `c`
//!   becomes `ceil(c / 2)` (checked after every reference and insertion).
//!
//! # Documented choices
//! - Section sizes are fixed block counts computed from the capacity `c`:
//!   `new = floor(F_new * c)` (may be 0) and `old = max(1, floor(F_old * c))`; the middle holds the
//!   rest. While the cache is not full, positions count from the MRU end as in a full cache, so
//!   the old section is what lies beyond `c - old` positions (empty until the cache fills).
//! - Defaults `new = 0.25`, `old = 0.25`, `a-max = 100`, `c-max = 1000`, still unverified
//!   against the paper: no copy of its text, and no source quoting its recommended values, was
//!   reachable (docs/policies/fbr.md lists what was searched and what the sources found say).
//!   Set them with `--param fbr.new=…` etc. `c-max` must be at least `a-max`, or the average
//!   could never exceed `a-max` and aging would never run.
//! - If every block of the old section is pinned, the victim is the least recently used unpinned
//!   block of the middle section, then of the new section (the paper has no pinning).
//! - Prefetching (FBR is not in the prefetching study; its Section 4 rule for frequency-based
//!   policies is applied): a prefetched block enters at the MRU end with count 0, "not accessed
//!   yet". Its first demand access ([`Access::first_use`]) is its first reference: the count
//!   becomes 1 (wherever the block is) and it moves to the MRU end. FBR keeps no history of
//!   evicted blocks, so `Evicted::unused_prefetch` needs no special case.
//!
//! # Efficiency
//! The three sections are three lists of one [`Lists`]; a hit or insertion moves at most one block
//! across each boundary. Blocks of the old section are also kept in per-count LRU buckets with a
//! bitmap of non-empty buckets, so the victim is found in O(c-max / 64) without scanning the old
//! section. Aging rebuilds the buckets (O(cache) once every many references).

use super::structures::list::Lists;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;
use crate::error::Error;
use crate::policy::registry::PolicySpec;

const NEW: usize = 0;
const MIDDLE: usize = 1;
const OLD: usize = 2;
const NIL: u32 = u32::MAX;

/// Per-count LRU buckets over the blocks of the old section.
struct Buckets {
    prev: Vec<u32>,
    next: Vec<u32>,
    head: Vec<u32>,
    tail: Vec<u32>,
    nonempty: Vec<u64>,
}

impl Buckets {
    fn new(counts: usize, universe: usize) -> Buckets {
        Buckets {
            prev: vec![NIL; universe],
            next: vec![NIL; universe],
            head: vec![NIL; counts],
            tail: vec![NIL; counts],
            nonempty: vec![0; counts.div_ceil(64)],
        }
    }

    /// Puts `b` at the most recent end of bucket `k`.
    #[inline]
    fn push_front(&mut self, k: usize, b: Block) {
        let h = self.head[k];
        self.prev[b as usize] = NIL;
        self.next[b as usize] = h;
        if h == NIL {
            self.tail[k] = b;
            self.nonempty[k / 64] |= 1 << (k % 64);
        } else {
            self.prev[h as usize] = b;
        }
        self.head[k] = b;
    }

    #[inline]
    fn remove(&mut self, k: usize, b: Block) {
        let (p, n) = (self.prev[b as usize], self.next[b as usize]);
        if p == NIL {
            self.head[k] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NIL {
            self.tail[k] = p;
        } else {
            self.prev[n as usize] = p;
        }
        if self.head[k] == NIL {
            self.nonempty[k / 64] &= !(1 << (k % 64));
        }
    }

    fn clear(&mut self) {
        self.head.fill(NIL);
        self.tail.fill(NIL);
        self.nonempty.fill(0);
    }

    /// Non-empty buckets in increasing count order.
    fn counts(&self) -> impl Iterator<Item = usize> + '_ {
        self.nonempty.iter().enumerate().flat_map(|(w, &word)| {
            let mut bits = word;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let k = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    w * 64 + k
                })
            })
        })
    }

    /// Bucket `k` from least to most recent.
    fn iter_lru(&self, k: usize) -> impl Iterator<Item = Block> + '_ {
        let t = self.tail[k];
        std::iter::successors((t != NIL).then_some(t), move |&b| {
            let p = self.prev[b as usize];
            (p != NIL).then_some(p)
        })
    }
}

/// Frequency-based replacement.
pub struct FbrPolicy {
    lists: Lists,
    buckets: Buckets,
    count: Vec<u32>,
    sum: u64,
    new_cap: usize,
    mid_cap: usize,
    a_max: f64,
    c_max: u32,
}

impl FbrPolicy {
    /// An empty FBR for `capacity` blocks over ids `0..universe`, with section shares `f_new`
    /// and `f_old` (`f_new < 1`, `0 < f_old`, `f_new + f_old <= 1`), aging threshold `a_max`
    /// and count cap `c_max`.
    pub fn new(
        capacity: usize,
        universe: usize,
        f_new: f64,
        f_old: f64,
        a_max: f64,
        c_max: u32,
    ) -> crate::error::Result<Self> {
        let bad = |key: &str, v: String, why: &str| {
            Error::config("params", format!("fbr.{key}={v}"), why.to_string())
        };
        if !(0.0..1.0).contains(&f_new) {
            return Err(bad(
                "new",
                f_new.to_string(),
                "expected a share from 0 to below 1",
            ));
        }
        if !(f_old > 0.0 && f_old <= 1.0) || f_new + f_old > 1.0 {
            return Err(bad(
                "old",
                f_old.to_string(),
                "expected a share above 0 with new + old <= 1",
            ));
        }
        if a_max.is_nan() || a_max < 1.0 {
            return Err(bad(
                "a-max",
                a_max.to_string(),
                "expected a number of at least 1",
            ));
        }
        if (c_max as f64) < a_max {
            return Err(bad(
                "c-max",
                c_max.to_string(),
                "expected a whole number at least a-max",
            ));
        }
        let new_cap = (f_new * capacity as f64).floor() as usize;
        let old_cap = ((f_old * capacity as f64).floor() as usize).max(1);
        let mid_cap = capacity.saturating_sub(new_cap + old_cap);
        Ok(FbrPolicy {
            lists: Lists::new(3, universe),
            buckets: Buckets::new(c_max as usize + 1, universe),
            count: vec![0; universe],
            sum: 0,
            new_cap,
            mid_cap,
            a_max,
            c_max,
        })
    }

    /// Reads `new`, `old`, `a-max` and `c-max` from `spec`.
    pub fn from_spec(
        spec: &PolicySpec,
        capacity: usize,
        universe: usize,
    ) -> crate::error::Result<Self> {
        let f_new = spec.f64("new", 0.0, 1.0)?;
        let f_old = spec.f64("old", 0.0, 1.0)?;
        let a_max = spec.f64("a-max", 1.0, 1e9)?;
        let c_max = spec.usize("c-max", 1, 1 << 24)? as u32;
        if f_new + f_old > 1.0 {
            // Name the setting the user gave (a default they never wrote would puzzle them).
            let (key, value) = if spec.params.contains_key("old") {
                ("old", f_old)
            } else {
                ("new", f_new)
            };
            return Err(Error::config(
                "params",
                format!("fbr.{key}={value}"),
                format!("new + old must be at most 1 (here new {f_new} + old {f_old})"),
            ));
        }
        FbrPolicy::new(capacity, universe, f_new, f_old, a_max, c_max)
    }

    /// Reference count of resident `b`.
    pub fn count_of(&self, b: Block) -> Option<u32> {
        self.lists.list_of(b).map(|_| self.count[b as usize])
    }

    /// Blocks in the new and the middle section when the cache is full.
    pub fn section_sizes(&self) -> (usize, usize) {
        (self.new_cap, self.mid_cap)
    }

    #[inline]
    fn set_count(&mut self, b: Block, c: u32) {
        self.sum = self.sum + c as u64 - self.count[b as usize] as u64;
        self.count[b as usize] = c;
    }

    /// Takes `b` off its section (and its bucket).
    #[inline]
    fn unlink(&mut self, b: Block) -> Option<usize> {
        let l = self.lists.remove(b)?;
        if l == OLD {
            self.buckets.remove(self.count[b as usize] as usize, b);
        }
        Some(l)
    }

    /// Restores the section sizes: the sections are consecutive pieces of one LRU stack.
    #[inline]
    fn rebalance(&mut self) {
        // Spill across the boundaries towards the LRU end.
        while self.lists.len(NEW) > self.new_cap {
            let b = self.lists.pop_back(NEW).expect("non-empty");
            self.lists.push_front(MIDDLE, b);
        }
        while self.lists.len(MIDDLE) > self.mid_cap {
            let b = self.lists.pop_back(MIDDLE).expect("non-empty");
            self.lists.push_front(OLD, b);
            self.buckets.push_front(self.count[b as usize] as usize, b);
        }
        // Fill gaps from the LRU side (after an eviction or a hit took a block out).
        while self.lists.len(NEW) < self.new_cap {
            let from = if self.lists.is_empty(MIDDLE) {
                OLD
            } else {
                MIDDLE
            };
            let Some(b) = self.lists.front(from) else {
                break;
            };
            self.unlink(b);
            self.lists.push_back(NEW, b);
        }
        while self.lists.len(MIDDLE) < self.mid_cap {
            let Some(b) = self.lists.front(OLD) else {
                break;
            };
            self.unlink(b);
            self.lists.push_back(MIDDLE, b);
        }
    }

    /// Halves every count (rounding up) while the average exceeds `a_max`.
    fn age_if_needed(&mut self) {
        let n = self.lists.len(NEW) + self.lists.len(MIDDLE) + self.lists.len(OLD);
        if n == 0 || (self.sum as f64) <= self.a_max * n as f64 {
            return;
        }
        let mut sum = 0;
        for l in [NEW, MIDDLE, OLD] {
            let mut cur = self.lists.front(l);
            while let Some(b) = cur {
                let c = &mut self.count[b as usize];
                *c = c.div_ceil(2);
                sum += *c as u64;
                cur = self.lists.toward_back(b);
            }
        }
        self.sum = sum;
        self.buckets.clear();
        let mut cur = self.lists.back(OLD);
        while let Some(b) = cur {
            self.buckets.push_front(self.count[b as usize] as usize, b);
            cur = self.lists.toward_front(b);
        }
    }
}

impl Policy for FbrPolicy {
    fn name(&self) -> &'static str {
        "fbr"
    }

    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        let section = self.unlink(b).expect("hit on a resident block");
        if cx.first_use {
            self.set_count(b, 1);
        } else if section != NEW {
            let c = (self.count[b as usize] + 1).min(self.c_max);
            self.set_count(b, c);
        }
        self.lists.push_front(NEW, b);
        self.rebalance();
        self.age_if_needed();
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        for k in self.buckets.counts() {
            if let Some(b) = self.buckets.iter_lru(k).find(|&b| !frames.is_pinned(b)) {
                return Some(b);
            }
        }
        for l in [MIDDLE, NEW] {
            let mut cur = self.lists.back(l);
            while let Some(b) = cur {
                if !frames.is_pinned(b) {
                    return Some(b);
                }
                cur = self.lists.toward_front(b);
            }
        }
        None
    }

    #[inline]
    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        self.unlink(b);
        self.set_count(b, 0);
        self.rebalance();
    }

    #[inline]
    fn on_insert(&mut self, b: Block, kind: InsertKind, _cx: &Access) {
        let c = match kind {
            InsertKind::Demand => 1,
            InsertKind::Prefetch => 0,
        };
        self.set_count(b, c);
        self.lists.push_front(NEW, b);
        self.rebalance();
        self.age_if_needed();
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    fn len(&self) -> usize {
        self.lists.len(NEW) + self.lists.len(MIDDLE) + self.lists.len(OLD)
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.lists.check()?;
        let all: Vec<Block> = [NEW, MIDDLE, OLD]
            .into_iter()
            .flat_map(|l| self.lists.iter(l))
            .collect();
        check_same_residents(all.iter().copied(), frames)?;
        let n = self.len();
        let (new, mid) = (self.lists.len(NEW), self.lists.len(MIDDLE));
        if new != n.min(self.new_cap) || mid != (n - new).min(self.mid_cap) {
            return Err(format!(
                "sections {new}/{mid}/{} do not match caps {}/{} for {n} blocks",
                self.lists.len(OLD),
                self.new_cap,
                self.mid_cap
            ));
        }
        let mut sum = 0;
        for &b in &all {
            let c = self.count[b as usize];
            if c > self.c_max {
                return Err(format!("block {b}: count {c} above c-max"));
            }
            sum += c as u64;
        }
        if sum != self.sum {
            return Err(format!("count sum {} recorded, {sum} actual", self.sum));
        }
        if n > 0 && sum as f64 > self.a_max * n as f64 {
            return Err(format!(
                "average count {} above a-max",
                sum as f64 / n as f64
            ));
        }
        // Buckets hold exactly the old section, each in the old section's recency order.
        let mut in_buckets = 0;
        let mut order = self.lists.iter(OLD).collect::<Vec<_>>();
        order.reverse();
        for k in 0..self.buckets.head.len() {
            let members: Vec<Block> = self.buckets.iter_lru(k).collect();
            let flagged = self.buckets.nonempty[k / 64] >> (k % 64) & 1 == 1;
            if flagged == members.is_empty() {
                return Err(format!("bucket {k}: non-empty bit wrong"));
            }
            let mut at = 0;
            for &b in &members {
                if !self.lists.contains(OLD, b) || self.count[b as usize] as usize != k {
                    return Err(format!(
                        "block {b} in bucket {k} but not an old block of that count"
                    ));
                }
                match order[at..].iter().position(|&x| x == b) {
                    Some(p) => at += p + 1,
                    None => return Err(format!("bucket {k} out of recency order at block {b}")),
                }
            }
            in_buckets += members.len();
        }
        if in_buckets != self.lists.len(OLD) {
            return Err(format!(
                "{in_buckets} blocks in buckets, {} in the old section",
                self.lists.len(OLD)
            ));
        }
        for b in 0..self.count.len() as Block {
            if self.lists.list_of(b).is_none() && self.count[b as usize] != 0 {
                return Err(format!("non-resident block {b} keeps a count"));
            }
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        vec![
            ("new", self.lists.iter(NEW).collect()),
            ("middle", self.lists.iter(MIDDLE).collect()),
            ("old", self.lists.iter(OLD).collect()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::testutil::{pattern, run};
    use crate::policy::NEVER;
    use proptest::prelude::*;

    fn fbr(cap: usize, f_new: f64, f_old: f64, a_max: f64, c_max: u32) -> FbrPolicy {
        FbrPolicy::new(cap, 16, f_new, f_old, a_max, c_max).unwrap()
    }

    /// The definition, computed directly on a vector stack (MRU first) of (block, count).
    struct Model {
        cap: usize,
        new_cap: usize,
        old_cap: usize,
        a_max: f64,
        c_max: u32,
        stack: Vec<(u32, u32)>,
        hits: u64,
    }

    impl Model {
        fn new(cap: usize, f_new: f64, f_old: f64, a_max: f64, c_max: u32) -> Model {
            Model {
                cap,
                new_cap: (f_new * cap as f64).floor() as usize,
                old_cap: ((f_old * cap as f64).floor() as usize).max(1),
                a_max,
                c_max,
                stack: Vec::new(),
                hits: 0,
            }
        }

        fn age(&mut self) {
            let sum: u64 = self.stack.iter().map(|e| e.1 as u64).sum();
            if sum as f64 > self.a_max * self.stack.len() as f64 {
                for e in &mut self.stack {
                    e.1 = e.1.div_ceil(2);
                }
            }
        }

        fn access(&mut self, b: u32) {
            if let Some(p) = self.stack.iter().position(|e| e.0 == b) {
                self.hits += 1;
                let (_, mut c) = self.stack.remove(p);
                if p >= self.new_cap {
                    c = (c + 1).min(self.c_max);
                }
                self.stack.insert(0, (b, c));
            } else {
                if self.stack.len() == self.cap {
                    // Old section = the last old_cap positions; least count, LRU among ties.
                    let mut victim = self.cap - 1;
                    for p in (self.cap - self.old_cap..self.cap).rev() {
                        if self.stack[p].1 < self.stack[victim].1 {
                            victim = p;
                        }
                    }
                    self.stack.remove(victim);
                }
                self.stack.insert(0, (b, 1));
            }
            self.age();
        }

        fn sections(&self) -> Vec<Vec<u32>> {
            let blocks: Vec<u32> = self.stack.iter().map(|e| e.0).collect();
            let n = blocks.len();
            let new_end = self.new_cap.min(n);
            let old_start = (self.cap - self.old_cap).min(n).max(new_end);
            vec![
                blocks[..new_end].to_vec(),
                blocks[new_end..old_start].to_vec(),
                blocks[old_start..].to_vec(),
            ]
        }
    }

    fn sections(p: &FbrPolicy) -> Vec<Vec<u32>> {
        p.dump().into_iter().map(|(_, v)| v).collect()
    }

    #[test]
    fn hand_worked_sequence() {
        // cap 4, new = 1 block, old = 2 blocks, middle = 1 block.
        // 1 2 3 4: stack 4 | 3 | 2 1, counts all 1.
        // 4 (in new): no increment. 3 (middle): count 2, stack 3 | 4 | 2 1.
        // 2 (old): count 2, stack 2 | 3 | 4 1.
        // 5: old = {4 (1), 1 (1)}: tie -> LRU = 1 goes. stack 5 | 2 | 3 4.
        // 6: old = {3 (2), 4 (1)} -> 4 goes although it is not the LRU block. stack 6 | 5 | 2 3.
        // 1: old = {2 (2), 3 (2)} -> tie, LRU = 3 goes. stack 1 | 6 | 5 2.
        // 7: old = {5 (1), 2 (2)} -> 5 goes, where LRU would evict 2. stack 7 | 1 | 6 2.
        let refs = [1, 2, 3, 4, 4, 3, 2, 5, 6, 1, 7];
        let make = || fbr(4, 0.25, 0.5, 100.0, 1000);
        assert_eq!(pattern(make, 4, &refs), "mmmmhhhmmmm");
        let level = run(make(), 4, &refs);
        assert_eq!(sections(&level.policy), vec![vec![7], vec![1], vec![6, 2]]);
        assert_eq!(level.policy.count_of(2), Some(2));
        assert_eq!(level.policy.count_of(6), Some(1));
        assert!(!level.frames().is_resident(5));
    }

    #[test]
    fn aging_halves_counts_rounding_up() {
        // cap 2, new 0, old 1 (middle 1), a-max 2: 1 1 1 -> count 3, an average of 3 > 2, so it
        // becomes 2. Then 2 2 2: counts 2 and 3, average 2.5 > 2 -> ceil halves to 1 and 2.
        let mut level = CacheLevel::new(fbr(2, 0.0, 0.5, 2.0, 8), 2, 16);
        for b in [1, 1, 1] {
            level.access(b, NEVER);
        }
        assert_eq!(level.policy.count_of(1), Some(2));
        for b in [2, 2, 2] {
            level.access(b, NEVER);
        }
        level.check().unwrap();
        assert_eq!(level.policy.count_of(1), Some(1));
        assert_eq!(level.policy.count_of(2), Some(2));
    }

    #[test]
    fn counts_stop_at_c_max() {
        let mut level = CacheLevel::new(fbr(2, 0.0, 0.5, 100.0, 100), 2, 16);
        for _ in 0..150 {
            level.access(1, NEVER);
        }
        assert_eq!(level.policy.count_of(1), Some(100));
    }

    #[test]
    fn prefetch_counts_zero_until_first_use() {
        // cap 3, new 0, old 3.
        let mut level = CacheLevel::new(fbr(3, 0.0, 1.0, 100.0, 1000), 3, 16);
        level.access(1, NEVER);
        level.access(1, NEVER); // count 2
        level.prefetch(2, NEVER); // count 0, MRU
        assert_eq!(level.policy.count_of(2), Some(0));
        level.access(3, NEVER); // count 1
        level.access(4, NEVER); // evicts the unused prefetch (count 0)
        assert!(!level.frames().is_resident(2));
        assert_eq!(level.stats().prefetch_unused_evicted, 1);
        level.prefetch(5, NEVER); // evicts 3 (count 1, LRU among the count-1 blocks)
        level.access(5, NEVER); // first use: count 1, not 2
        assert_eq!(level.policy.count_of(5), Some(1));
        level.access(2, NEVER); // no history: an ordinary miss
        assert_eq!(level.stats().hits, 2);
        level.check().unwrap();
    }

    #[test]
    fn pinned_old_section_falls_back_to_the_middle() {
        // cap 3, new 0, old 1: 1 2 3 -> middle [3, 2], old [1].
        let mut level = CacheLevel::new(fbr(3, 0.0, 0.34, 100.0, 1000), 3, 16);
        for b in [1, 2, 3] {
            level.access(b, NEVER);
        }
        level.set_pinned(1, true);
        level.access(4, NEVER); // old = {1} pinned -> LRU unpinned of the middle: 2
        assert!(level.frames().is_resident(1) && !level.frames().is_resident(2));
        level.check().unwrap();
        assert_eq!(sections(&level.policy), vec![vec![], vec![4, 3], vec![1]]);
    }

    #[test]
    fn from_spec_validates() {
        let mut spec = PolicySpec::parse("fbr").unwrap();
        let p = FbrPolicy::from_spec(&spec, 100, 4).unwrap();
        assert_eq!(p.section_sizes(), (25, 50));
        spec.set("new", "0.8").unwrap();
        assert!(FbrPolicy::from_spec(&spec, 100, 4).is_err());
        spec.set("new", "0.25").unwrap();
        spec.set("old", "0").unwrap();
        assert!(FbrPolicy::from_spec(&spec, 100, 4).is_err());
        spec.set("old", "0.25").unwrap();
        spec.set("c-max", "10").unwrap();
        assert!(FbrPolicy::from_spec(&spec, 100, 4).is_err());
        spec.set("c-max", "abc").unwrap();
        assert!(FbrPolicy::from_spec(&spec, 100, 4).is_err());
    }

    proptest! {
        #[test]
        fn matches_the_definition(
            cap in 1usize..9,
            f_new in prop_oneof![Just(0.0), Just(0.25), Just(0.5)],
            f_old in prop_oneof![Just(0.1), Just(0.25), Just(0.5)],
            (a_max, c_max) in prop_oneof![
                Just((1.5, 3)), Just((2.0, 3)), Just((2.0, 4)), Just((3.0, 5)), Just((100.0, 1000))
            ],
            refs in proptest::collection::vec(0u32..12, 1..250),
        ) {
            let level = run(fbr(cap, f_new, f_old, a_max, c_max), cap, &refs);
            let mut model = Model::new(cap, f_new, f_old, a_max, c_max);
            for &b in &refs {
                model.access(b);
            }
            prop_assert_eq!(level.stats().hits, model.hits);
            prop_assert_eq!(sections(&level.policy), model.sections());
            for &(b, c) in &model.stack {
                prop_assert_eq!(level.policy.count_of(b), Some(c));
            }
        }
    }
}
