//! W-TinyLFU: Einziger, Friedman, Manes, "TinyLFU: A Highly Efficient Cache Admission Policy",
//! ACM TOS 2017, as Caffeine's `BoundedLocalCache` runs it with a fixed window.
//!
//! Three LRU lists: a window (`window` share of the cache, 1 %: `c - floor(0.99 c)` blocks, at
//! least one) that every new block enters, and a main space split into probation and protected
//! (protected holds at most 80 % of the main space). A frequency sketch estimates how often each
//! block was referenced lately:
//! - a count-min sketch of four rows of 4-bit counters (each row `max(16, next power of two of c)`
//!   wide, indexed by independent hashes of the block id), with a doorkeeper bit set in front of
//!   it: a block's first reference since the last reset sets its doorkeeper bits only, later ones
//!   increment its four counters (up to 15); the estimate is the least of the four counters plus
//!   one if the doorkeeper holds the block;
//! - aging: after `10 c` recorded references every counter is halved and the doorkeeper cleared.
//!
//! Every demand reference is recorded. A hit in the window or in protected moves the block to that
//! list's MRU end; a hit in probation moves it to protected's MRU end, and protected's LRU block
//! moves to probation's MRU end while protected is over its share. When the cache is full and a
//! block must enter, the window's LRU block is the candidate to leave the window (if the window is
//! full): it enters probation if its estimate is greater than that of main's victim (probation's
//! LRU block, else protected's), which is evicted; otherwise the candidate is evicted. If the window
//! is not full (after blocks were taken out by a hierarchy), main's victim is evicted.
//!
//! Left out of Caffeine: the hill climber that resizes the window (off here: the window keeps its
//! share, as libCacheSim's `WTinyLFU.c` keeps it), and the random admission of a candidate with an
//! estimate above 5 that lost (Caffeine's guard against hash flooding). Nothing is random; the hash
//! functions are fixed, so runs are deterministic without a seed.
//!
//! libCacheSim's `WTinyLFU.c` is a different design in several respects (its main space is its
//! SLRU with a 1:4 split whose probation overflow is evicted during a hit, its window is
//! `floor(0.01 c)` and only bounds admission, so a cache under 100 objects admits nothing, its
//! sketch is a counting Bloom filter without doorkeeper, aged every 32 times main's size in main
//! hits, and it records main hits, insertions and each window candidate): the paper's variant is
//! compared within a tolerance in `tests/python/test_xcheck_wtinylfu.py`, and `variant=libcachesim`
//! builds a model of that design instead (`compat/libcachesim/wtinylfu.rs`, see docs/policies.md).
//!
//! Prefetching: a prefetched block enters the window like a demand miss but is not recorded in the
//! sketch; its first demand access is its first reference: it is recorded and moves to the MRU end
//! of the list it is in, without promotion. Pinned blocks are passed over: when the candidate is
//! pinned, main's victim is evicted; when main's victim is pinned, the next unpinned block towards
//! its MRU end (then protected's, then the window's) is taken.

use super::lru::last_unpinned;
use super::registry::PolicySpec;
use super::structures::list::Lists;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;
use crate::error::Result as CoreResult;

const WINDOW: usize = 0;
const PROBATION: usize = 1;
const PROTECTED: usize = 2;
/// Share of the main space that protected may hold (Caffeine's `PERCENT_MAIN_PROTECTED`).
const PROTECTED_SHARE: f64 = 0.8;
/// Recorded references between agings, as a multiple of the cache size (Caffeine's sample size).
const SAMPLE_FACTOR: usize = 10;
/// Largest value of a 4-bit counter.
const COUNTER_MAX: u8 = 15;
const ROWS: usize = 4;
/// Per-row seeds of the hash functions (odd 64-bit constants).
const SEEDS: [u64; ROWS] = [
    0x9E37_79B9_7F4A_7C15,
    0xC2B2_AE3D_27D4_EB4F,
    0x1656_67B1_9E37_79F9,
    0xD6E8_FEB8_6659_FD93,
];

/// A count-min sketch of 4-bit counters behind a doorkeeper, halved periodically.
pub struct FrequencySketch {
    counters: Vec<u8>,
    doorkeeper: Vec<u64>,
    width_mask: u64,
    recorded: usize,
    sample: usize,
}

/// Mixes `x` into a well-spread 64-bit value (the splitmix64 finaliser).
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl FrequencySketch {
    /// A sketch sized for a cache of `capacity` blocks over a trace of `universe` distinct ones
    /// (by the smaller: [`crate::limits::entries_for`]; a cache as large as the trace never
    /// evicts, so the sketch is never consulted past its ids).
    pub fn new(capacity: usize, universe: usize) -> Self {
        let capacity = crate::limits::entries_for(capacity, universe);
        let width = capacity.max(16).next_power_of_two();
        FrequencySketch {
            counters: vec![0; ROWS * width],
            doorkeeper: vec![0; width.div_ceil(64) * 4],
            width_mask: width as u64 - 1,
            recorded: 0,
            sample: SAMPLE_FACTOR * capacity.max(1),
        }
    }

    fn slot(&self, row: usize, b: Block) -> usize {
        row * (self.width_mask as usize + 1)
            + (mix(b as u64 ^ SEEDS[row]) & self.width_mask) as usize
    }

    /// The doorkeeper's two bit positions for `b`.
    fn door_bits(&self, b: Block) -> [usize; 2] {
        let bits = self.doorkeeper.len() as u64 * 64;
        let h = mix(b as u64 ^ 0xA076_1D64_78BD_642F);
        [(h % bits) as usize, ((h >> 32) % bits) as usize]
    }

    fn in_doorkeeper(&self, b: Block) -> bool {
        self.door_bits(b)
            .iter()
            .all(|&i| self.doorkeeper[i / 64] & (1 << (i % 64)) != 0)
    }

    /// Records one reference to `b`.
    pub fn record(&mut self, b: Block) {
        if self.in_doorkeeper(b) {
            for row in 0..ROWS {
                let s = self.slot(row, b);
                if self.counters[s] < COUNTER_MAX {
                    self.counters[s] += 1;
                }
            }
        } else {
            for i in self.door_bits(b) {
                self.doorkeeper[i / 64] |= 1 << (i % 64);
            }
        }
        self.recorded += 1;
        if self.recorded >= self.sample {
            self.age();
        }
    }

    /// Halves every counter and clears the doorkeeper.
    fn age(&mut self) {
        for c in &mut self.counters {
            *c >>= 1;
        }
        self.doorkeeper.fill(0);
        self.recorded = 0;
    }

    /// The estimated recent reference count of `b`.
    pub fn estimate(&self, b: Block) -> u32 {
        let least = (0..ROWS)
            .map(|row| self.counters[self.slot(row, b)])
            .min()
            .unwrap_or(0);
        least as u32 + self.in_doorkeeper(b) as u32
    }
}

/// W-TinyLFU: window LRU, segmented main, TinyLFU admission between them.
pub struct WTinyLfuPolicy {
    lists: Lists,
    sketch: FrequencySketch,
    window_cap: usize,
    protected_cap: usize,
    /// The window block `select_victim` admitted into probation (undone by `forget_victim`).
    admitted: Option<Block>,
}

impl WTinyLfuPolicy {
    /// A W-TinyLFU of `capacity` blocks whose window holds the `window` share.
    pub fn new(capacity: usize, window: f64, universe: usize) -> Self {
        let main = (capacity as f64 * (1.0 - window)) as usize;
        let window_cap = (capacity - main.min(capacity)).max(1).min(capacity);
        let main_cap = capacity - window_cap;
        WTinyLfuPolicy {
            lists: Lists::new(3, universe),
            sketch: FrequencySketch::new(capacity, universe),
            window_cap,
            protected_cap: (PROTECTED_SHARE * main_cap as f64) as usize,
            admitted: None,
        }
    }

    /// Reads `window` from `spec`.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> CoreResult<Self> {
        let window = spec.f64("window", 0.0, 1.0)?;
        Ok(Self::new(capacity, window, universe))
    }

    /// The window's size in blocks.
    pub fn window_cap(&self) -> usize {
        self.window_cap
    }

    /// The sketch's estimate for `b`.
    pub fn estimate(&self, b: Block) -> u32 {
        self.sketch.estimate(b)
    }

    /// Whether the window holds its share (so the next entry pushes its LRU block out).
    fn window_full(&self) -> bool {
        self.lists.len(WINDOW) >= self.window_cap
    }

    /// Main's victim: probation's LRU-most unpinned block, else protected's.
    fn main_victim(&self, frames: &Frames) -> Option<Block> {
        last_unpinned(&self.lists, PROBATION, frames)
            .or_else(|| last_unpinned(&self.lists, PROTECTED, frames))
    }
}

impl Policy for WTinyLfuPolicy {
    fn name(&self) -> &'static str {
        "wtinylfu"
    }

    #[inline]
    fn hint(&self, b: Block) {
        self.lists.hint(b);
    }

    fn on_hit(&mut self, b: Block, cx: &Access) {
        self.sketch.record(b);
        let list = self.lists.list_of(b).expect("a hit block is resident");
        if list == PROBATION && !cx.first_use {
            self.lists.remove(b);
            self.lists.push_front(PROTECTED, b);
            while self.lists.len(PROTECTED) > self.protected_cap {
                let demoted = self
                    .lists
                    .pop_back(PROTECTED)
                    .expect("protected is not empty");
                self.lists.push_front(PROBATION, demoted);
            }
        } else {
            self.lists.move_to_front(list, b);
        }
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        let main = self.main_victim(frames);
        let candidate = if self.window_full() {
            last_unpinned(&self.lists, WINDOW, frames)
                .filter(|&c| Some(c) == self.lists.back(WINDOW))
        } else {
            None
        };
        match (candidate, main) {
            (Some(c), Some(v)) => {
                if self.sketch.estimate(c) > self.sketch.estimate(v) {
                    self.lists.remove(c);
                    self.lists.push_front(PROBATION, c);
                    self.admitted = Some(c);
                    Some(v)
                } else {
                    Some(c)
                }
            }
            (Some(c), None) => Some(c),
            (None, Some(v)) => Some(v),
            (None, None) => last_unpinned(&self.lists, WINDOW, frames),
        }
    }

    fn forget_victim(&mut self) {
        if let Some(c) = self.admitted.take() {
            self.lists.remove(c);
            self.lists.push_back(WINDOW, c);
        }
    }

    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        self.admitted = None;
        self.lists.remove(b);
    }

    fn on_insert(&mut self, b: Block, kind: InsertKind, _cx: &Access) {
        if kind == InsertKind::Demand {
            self.sketch.record(b);
        }
        self.lists.push_front(WINDOW, b);
        // With room in the cache the window still keeps its share: its LRU block moves to
        // probation without a contest (Caffeine admits freely while the cache is not full).
        while self.lists.len(WINDOW) > self.window_cap {
            let moved = self.lists.pop_back(WINDOW).expect("window is not empty");
            self.lists.push_front(PROBATION, moved);
        }
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Err("its window, probation and protected budgets count entries; Caffeine's weighted budgets are not modelled")
    }

    fn len(&self) -> usize {
        self.lists.len(WINDOW) + self.lists.len(PROBATION) + self.lists.len(PROTECTED)
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.lists.check()?;
        check_same_residents(
            self.lists
                .iter(WINDOW)
                .chain(self.lists.iter(PROBATION))
                .chain(self.lists.iter(PROTECTED)),
            frames,
        )?;
        if self.lists.len(WINDOW) > self.window_cap {
            return Err(format!(
                "window holds {} blocks, more than {}",
                self.lists.len(WINDOW),
                self.window_cap
            ));
        }
        if self.lists.len(PROTECTED) > self.protected_cap {
            return Err(format!(
                "protected holds {} blocks, more than {}",
                self.lists.len(PROTECTED),
                self.protected_cap
            ));
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        vec![
            ("window_mru_to_lru", self.lists.iter(WINDOW).collect()),
            ("probation_mru_to_lru", self.lists.iter(PROBATION).collect()),
            ("protected_mru_to_lru", self.lists.iter(PROTECTED).collect()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::NEVER;

    #[test]
    fn the_sketch_counts_after_the_doorkeeper_and_ages() {
        // capacity 64: sample size 640 references.
        let mut s = FrequencySketch::new(64, 1 << 20);
        assert_eq!(s.estimate(7), 0);
        s.record(7);
        assert_eq!(
            s.estimate(7),
            1,
            "the first reference only sets the doorkeeper"
        );
        for _ in 0..4 {
            s.record(7);
        }
        assert_eq!(s.estimate(7), 5);
        // 635 references to one other block reach the sample size: counters halve (4 -> 2) and
        // the doorkeeper clears.
        for _ in 0..635 {
            s.record(1000);
        }
        assert_eq!(s.estimate(7), 2);
        assert_eq!(s.estimate(1000), 7, "15 halved");
    }

    #[test]
    fn a_frequent_block_survives_a_scan_that_lru_would_let_through() {
        // cap 10 (window 1, probation/protected 9): 1 referenced often, then a scan of 50 new blocks.
        let mut level = CacheLevel::new(WTinyLfuPolicy::new(10, 0.01, 128), 10, 128);
        for _ in 0..5 {
            for b in 1..=5 {
                level.access(b, NEVER);
            }
        }
        for b in 20..70 {
            level.access(b, NEVER);
            level.check().unwrap();
        }
        for b in 1..=5 {
            assert!(
                level.frames().is_resident(b),
                "hot block {b} was evicted by the scan"
            );
        }
    }

    #[test]
    fn window_share_follows_caffeine() {
        assert_eq!(WTinyLfuPolicy::new(1000, 0.01, 1).window_cap(), 10);
        assert_eq!(WTinyLfuPolicy::new(50, 0.01, 1).window_cap(), 1);
        assert_eq!(WTinyLfuPolicy::new(1, 0.01, 1).window_cap(), 1);
    }

    #[test]
    fn a_prefetch_is_not_recorded_until_its_first_use() {
        let mut level = CacheLevel::new(WTinyLfuPolicy::new(10, 0.01, 32), 10, 32);
        level.prefetch(5, NEVER);
        assert_eq!(level.policy.estimate(5), 0);
        level.access(5, NEVER);
        assert_eq!(level.policy.estimate(5), 1);
        assert_eq!(level.policy.dump()[0].1, vec![5]);
    }
}
