//! libCacheSim's W-TinyLFU (`libCacheSim/cache/eviction/WTinyLFU.c` with its default SLRU main
//! cache and `dataStructure/minimalIncrementCBF.c`, as libcachesim 0.3.5 runs them), a reference
//! model of that simulator, apart from the paper's (Caffeine's) W-TinyLFU in
//! [`crate::policy::wtinylfu`]. `wtinylfu.variant=libcachesim` (set by `--preset libcachesim`)
//! builds it.
//!
//! The design, for a cache of `c` objects and window share `w` (0.01):
//! - A window LRU of nominal size `floor(w c)`, which only bounds admission: an object larger than
//!   it is refused, so below `1/w` objects nothing is ever cached. The window itself grows freely:
//!   every missed object enters it, and objects leave it only through the eviction loop.
//! - A main space of `m = c - floor(w c)` objects, libCacheSim's SLRU with segments `1:4`: a
//!   probation segment of `floor(m/5)` and a protected one of `floor(4m/5)` (their sum can fall
//!   short of `m`). An object entering main goes to the lowest segment with room, or probation
//!   when neither has. A hit in probation promotes the object to protected's MRU end; while
//!   protected is over its size its LRU object moves to probation's MRU end, and while probation
//!   is over its size its LRU object is **evicted**: a hit can evict, leaving the cache short
//!   until the next miss. A hit in protected moves the object to its MRU end.
//! - A counting Bloom filter sized for `m` entries at 0.1 % error: `14.38 m` 32-bit counters
//!   (rounded up) and 10 hash positions `(a + i b) mod counters` for `i` in `0..10`, where `a` and
//!   `b` are XXH64 of the object id's 8 little-endian bytes with seeds `0x12345678` and
//!   `0x12344321`, each cut to 32 bits (the sum wraps at 32 bits). Recording an object adds one to
//!   all 10 counters (a position that repeats is added twice); its estimate is the least of them.
//!   It records each insertion, each hit in the main space (not in the window) and each window
//!   object the eviction loop takes up; after `32 m` main-space hits every counter is halved.
//! - A miss with the cache full runs the eviction loop: while the window holds objects, its LRU
//!   object is the candidate; if main has room the candidate moves into main (no eviction) and the
//!   loop goes on; otherwise it contests main's victim (probation's LRU object, else protected's):
//!   a greater estimate evicts main's victim and moves the candidate into main, else the candidate
//!   is evicted, and the loop ends either way. Every candidate is recorded. With the window empty,
//!   main's victim is evicted. Then the missed object enters the window and is recorded.
//!
//! The hashes are of the block ids belady gives the objects (dense ids, numbered in order of first
//! reference from 0), so misses equal libcachesim's exactly when the trace's ids are those
//! numbers; with other ids the two filters' collisions differ (tests/python/test_xcheck_wtinylfu.py
//! measures both cases).
//!
//! Beyond libCacheSim (which has neither): a prefetched block enters the window unrecorded and its
//! first use records it and moves it to its list's MRU end without promotion; a pinned candidate
//! or main victim is passed over for the next unpinned block towards the MRU end (main's, then the
//! window's). A peek at the victim ([`Policy::forget_victim`]) undoes the winner's move but keeps
//! the free moves into main and the recorded candidates.

use twox_hash::XxHash64;

use crate::cache::frames::Frames;
use crate::policy::lru::last_unpinned;
use crate::policy::structures::list::Lists;
use crate::policy::{check_same_residents, Access, Block, Evicted, InsertKind, Pending, Policy};

const WINDOW: usize = 0;
const PROBATION: usize = 1;
const PROTECTED: usize = 2;
/// Main-space hits between halvings, as a multiple of main's size (libCacheSim's sample size).
const SAMPLE_FACTOR: usize = 32;
/// The filter's target false-positive rate (libCacheSim's `minimalIncrementCBF_init` argument).
const FILTER_ERROR: f64 = 0.001;
/// The two XXH64 seeds (libCacheSim's `HASH_SEED0` and `HASH_SEED1`).
const SEEDS: [u64; 2] = [0x1234_5678, 0x1234_4321];

/// libCacheSim's counting Bloom filter: every recording adds to all hash positions.
pub struct CountingBloom {
    counters: Vec<u32>,
    hashes: u32,
}

impl CountingBloom {
    /// A filter for `entries` objects at `FILTER_ERROR`, sized as libCacheSim sizes it.
    pub fn new(entries: usize) -> Self {
        let per_entry = -FILTER_ERROR.ln() / std::f64::consts::LN_2.powi(2);
        let hashes = (std::f64::consts::LN_2 * per_entry).ceil() as u32;
        let wanted = (per_entry * entries as f64).ceil().min(i32::MAX as f64) as u32;
        // libCacheSim doubles the hash count when the filter would have fewer counters.
        let count = if wanted < hashes { 2 * hashes } else { wanted };
        CountingBloom {
            counters: vec![0; count as usize],
            hashes,
        }
    }

    /// The counter positions of `b`.
    fn positions(&self, b: Block) -> impl Iterator<Item = usize> {
        let key = (b as u64).to_le_bytes();
        let a = XxHash64::oneshot(SEEDS[0], &key) as u32;
        let step = XxHash64::oneshot(SEEDS[1], &key) as u32;
        let n = self.counters.len() as u32;
        (0..self.hashes).map(move |i| (a.wrapping_add(i.wrapping_mul(step)) % n) as usize)
    }

    /// Records one occurrence of `b`.
    pub fn add(&mut self, b: Block) {
        for i in self.positions(b) {
            self.counters[i] = self.counters[i].wrapping_add(1);
        }
    }

    /// The estimated count of `b`: the least of its counters.
    pub fn estimate(&self, b: Block) -> u32 {
        self.positions(b)
            .map(|i| self.counters[i])
            .min()
            .unwrap_or(0)
    }

    /// Halves every counter.
    pub fn decay(&mut self) {
        for c in &mut self.counters {
            *c >>= 1;
        }
    }

    /// Number of counters.
    pub fn len(&self) -> usize {
        self.counters.len()
    }

    /// Whether the filter has no counter (never: libCacheSim keeps at least two per hash).
    pub fn is_empty(&self) -> bool {
        self.counters.is_empty()
    }
}

/// libCacheSim's W-TinyLFU: a growing window LRU, an SLRU main space, a counting Bloom filter.
pub struct LibcachesimWTinyLfu {
    lists: Lists,
    /// The window's nominal size: an object must fit in it to be admitted.
    window_cap: usize,
    main_cap: usize,
    /// Probation's and protected's sizes.
    segment_caps: [usize; 2],
    filter: CountingBloom,
    main_hits: usize,
    sample: usize,
    /// The window candidate that won its contest: it moves into main once main's victim left.
    admitted: Option<Block>,
    /// Objects probation pushed out during a hit, for the level to evict.
    pending: Vec<Block>,
    /// Which blocks are pinned (told by `on_pin`), for the evictions during a hit, which see no
    /// frame table.
    pinned: Vec<bool>,
}

impl LibcachesimWTinyLfu {
    /// The model for a cache of `capacity` blocks with the `window` share.
    pub fn new(capacity: usize, window: f64, universe: usize) -> Self {
        // libCacheSim scales its integer cache size by the share and truncates.
        let window_cap = (capacity as f64 * window) as usize;
        let main_cap = capacity - window_cap.min(capacity);
        // SLRU's "seg-size=1:4": each segment gets its share of main, truncated.
        let share = |part: f64| (part / 5.0 * main_cap as f64) as usize;
        LibcachesimWTinyLfu {
            lists: Lists::new(3, universe),
            window_cap,
            main_cap,
            segment_caps: [share(1.0), share(4.0)],
            filter: CountingBloom::new(crate::limits::entries_for(main_cap, universe)),
            main_hits: 0,
            sample: SAMPLE_FACTOR.saturating_mul(main_cap),
            admitted: None,
            pending: Vec::new(),
            pinned: vec![false; universe],
        }
    }

    /// Reads `window` from `spec`.
    pub fn from_spec(
        spec: &crate::policy::registry::PolicySpec,
        capacity: usize,
        universe: usize,
    ) -> crate::error::Result<Self> {
        let window = spec.f64("window", 0.0, 1.0)?;
        Ok(Self::new(capacity, window, universe))
    }

    /// The window's nominal size.
    pub fn window_cap(&self) -> usize {
        self.window_cap
    }

    /// Probation's and protected's sizes.
    pub fn segment_caps(&self) -> [usize; 2] {
        self.segment_caps
    }

    /// The filter's estimate for `b`.
    pub fn estimate(&self, b: Block) -> u32 {
        self.filter.estimate(b)
    }

    fn main_len(&self) -> usize {
        self.lists.len(PROBATION) + self.lists.len(PROTECTED)
    }

    /// Puts `b` into main: the lowest segment with room, else probation.
    fn enter_main(&mut self, b: Block) {
        let segment = if self.lists.len(PROBATION) < self.segment_caps[0] {
            PROBATION
        } else if self.lists.len(PROTECTED) < self.segment_caps[1] {
            PROTECTED
        } else {
            PROBATION
        };
        self.lists.push_front(segment, b);
    }

    /// Main's victim: probation's LRU-most unpinned block, else protected's.
    fn main_victim(&self, frames: &Frames) -> Option<Block> {
        last_unpinned(&self.lists, PROBATION, frames)
            .or_else(|| last_unpinned(&self.lists, PROTECTED, frames))
    }

    /// The LRU-most block of `list` not pinned, by the pins `on_pin` reported.
    fn unpinned_back(&self, list: usize) -> Option<Block> {
        let mut cur = self.lists.back(list);
        while let Some(b) = cur {
            if !self.pinned[b as usize] {
                return Some(b);
            }
            cur = self.lists.toward_front(b);
        }
        None
    }

    /// Records a main-space hit, halving the filter after every `32 m` of them.
    fn record_main_hit(&mut self, b: Block) {
        self.filter.add(b);
        self.main_hits += 1;
        if self.main_hits >= self.sample {
            self.main_hits = 0;
            self.filter.decay();
        }
    }
}

impl Policy for LibcachesimWTinyLfu {
    fn name(&self) -> &'static str {
        "wtinylfu"
    }

    #[inline]
    fn hint(&self, b: Block) {
        self.lists.hint(b);
    }

    fn on_hit(&mut self, b: Block, cx: &Access) {
        let list = self.lists.list_of(b).expect("a hit block is resident");
        if cx.first_use {
            // Its first reference: recorded as libCacheSim records an insertion.
            self.filter.add(b);
            self.lists.move_to_front(list, b);
            return;
        }
        match list {
            WINDOW => self.lists.move_to_front(WINDOW, b),
            PROTECTED => {
                self.lists.move_to_front(PROTECTED, b);
                self.record_main_hit(b);
            }
            _ => {
                self.lists.remove(b);
                self.lists.push_front(PROTECTED, b);
                while self.lists.len(PROTECTED) > self.segment_caps[1] {
                    let cooled = self.lists.pop_back(PROTECTED).expect("protected is over");
                    self.lists.push_front(PROBATION, cooled);
                    while self.lists.len(PROBATION) > self.segment_caps[0] {
                        // Pinned blocks are passed over; with all of them pinned, probation
                        // stays over its size.
                        let Some(out) = self.unpinned_back(PROBATION) else {
                            break;
                        };
                        self.lists.remove(out);
                        self.pending.push(out);
                    }
                }
                self.record_main_hit(b);
            }
        }
    }

    fn on_pin(&mut self, b: Block, pinned: bool) {
        self.pinned[b as usize] = pinned;
    }

    fn before_insert(&mut self, _b: Block, _frames: &Frames, cx: &Access) -> bool {
        // libCacheSim admits an object only if it fits in the window's nominal size and in
        // probation.
        cx.size <= self.window_cap as u64 && cx.size <= self.segment_caps[0] as u64
    }

    fn take_pending(&mut self) -> Option<Pending> {
        self.pending.pop().map(Pending::Evict)
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        while let Some(candidate) = self.lists.back(WINDOW) {
            if self.main_len() < self.main_cap {
                self.lists.remove(candidate);
                self.enter_main(candidate);
                self.filter.add(candidate);
                continue;
            }
            let Some(victim) = self.main_victim(frames) else {
                break;
            };
            if frames.is_pinned(candidate) {
                return Some(victim);
            }
            let wins = self.filter.estimate(candidate) > self.filter.estimate(victim);
            self.filter.add(candidate);
            if wins {
                self.admitted = Some(candidate);
                return Some(victim);
            }
            return Some(candidate);
        }
        self.main_victim(frames)
            .or_else(|| last_unpinned(&self.lists, WINDOW, frames))
    }

    fn forget_victim(&mut self) {
        self.admitted = None;
    }

    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        // A block probation pushed out during a hit has left the lists already.
        self.lists.remove(b);
        if let Some(winner) = self.admitted.take() {
            self.lists.remove(winner);
            self.enter_main(winner);
        }
    }

    fn on_insert(&mut self, b: Block, kind: InsertKind, _cx: &Access) {
        self.lists.push_front(WINDOW, b);
        if kind == InsertKind::Demand {
            self.filter.add(b);
        }
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Err("libCacheSim's W-TinyLFU is modelled for unit-size objects only")
    }

    fn len(&self) -> usize {
        self.lists.len(WINDOW) + self.main_len() + self.pending.len()
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.lists.check()?;
        check_same_residents(
            self.lists
                .iter(WINDOW)
                .chain(self.lists.iter(PROBATION))
                .chain(self.lists.iter(PROTECTED))
                .chain(self.pending.iter().copied()),
            frames,
        )?;
        if self.main_len() > self.main_cap {
            return Err(format!(
                "main holds {} blocks, more than {}",
                self.main_len(),
                self.main_cap
            ));
        }
        if self.lists.len(PROTECTED) > self.segment_caps[1] {
            return Err(format!(
                "protected holds {} blocks, more than {}",
                self.lists.len(PROTECTED),
                self.segment_caps[1]
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

    fn level(capacity: usize) -> CacheLevel<LibcachesimWTinyLfu> {
        CacheLevel::new(
            LibcachesimWTinyLfu::new(capacity, 0.01, 1024),
            capacity,
            1024,
        )
    }

    #[test]
    fn the_filter_is_sized_as_libcachesims() {
        // -ln(0.001) / ln(2)^2 = 14.3776 counters per entry, ceil(ln(2) x 14.3776) = 10 hashes;
        // 990 entries: ceil(14233.8) counters.
        let mut f = CountingBloom::new(990);
        assert_eq!((f.hashes, f.len()), (10, 14234));
        assert_eq!(f.estimate(7), 0);
        for _ in 0..4 {
            f.add(7);
        }
        assert!(f.estimate(7) >= 4);
        let before = f.estimate(7);
        f.decay();
        assert_eq!(f.estimate(7), before / 2);
        // Fewer counters than hashes: twice the hash count.
        assert_eq!(CountingBloom::new(0).len(), 20);
    }

    #[test]
    fn nothing_is_cached_below_a_window_of_one_object() {
        let mut l = level(99);
        for b in [1, 2, 1, 2, 3] {
            l.access(b, NEVER);
            l.check().unwrap();
        }
        assert_eq!((l.stats().hits, l.frames().len()), (0, 0));
        assert_eq!(level(100).policy.window_cap(), 1);
    }

    #[test]
    fn the_window_fills_the_cache_then_the_loop_moves_it_into_main() {
        // 200 blocks: window 2, main 198 with probation 39 and protected 158 (sum 197).
        let mut l = level(200);
        assert_eq!(l.policy.segment_caps(), [39, 158]);
        for b in 0..200 {
            l.access(b, NEVER);
        }
        assert_eq!(
            l.policy.dump()[0].1.len(),
            200,
            "everything waits in the window"
        );
        // The next miss moves 198 window blocks into main (probation, protected, then
        // probation again past its size); block 198, recorded once, loses to probation's LRU
        // block 0, recorded twice (insertion and its move), and leaves.
        l.access(200, NEVER);
        l.check().unwrap();
        let dump = l.policy.dump();
        assert_eq!(dump[0].1, vec![200, 199]);
        assert_eq!(dump[1].1.len(), 40);
        assert_eq!(dump[2].1.len(), 158);
        assert!(!l.frames().is_resident(198));
    }

    #[test]
    fn a_probation_hit_can_evict_and_leave_the_cache_short() {
        let mut l = level(200);
        for b in 0..=200 {
            l.access(b, NEVER);
        }
        // Probation holds 40 of its 39: promoting block 5 cools protected's LRU block into
        // probation, whose LRU block (0) is evicted during the hit.
        assert_eq!(l.access(5, NEVER), crate::cache::level::Outcome::Hit);
        l.check().unwrap();
        assert!(!l.frames().is_resident(0));
        assert_eq!(l.frames().len(), 199);
        assert_eq!(l.stats().evictions, 2);
    }

    #[test]
    fn keeps_the_contract_with_prefetches_and_pins() {
        // A window of half the cache makes contests, free moves and hit evictions frequent at
        // sizes small enough to pin every block now and then.
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(26);
        for capacity in 2..12 {
            let mut l = CacheLevel::new(LibcachesimWTinyLfu::new(capacity, 0.5, 24), capacity, 24);
            for step in 0..3000 {
                let b = rng.random_range(0..24u32);
                match rng.random_range(0..10) {
                    0..6 => {
                        l.access(b, NEVER);
                    }
                    6..8 => {
                        l.prefetch(b, NEVER);
                    }
                    8 => {
                        if l.frames().is_resident(b) {
                            l.set_pinned(b, true);
                        }
                    }
                    _ => l.set_pinned(b, false),
                }
                l.check()
                    .unwrap_or_else(|e| panic!("capacity {capacity}, step {step}: {e}"));
            }
            assert!(l.stats().hits > 0);
        }
    }
}
