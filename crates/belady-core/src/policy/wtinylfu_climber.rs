//! Adaptive W-TinyLFU (`wtinylfu.window=adaptive`): Caffeine's W-TinyLFU with the hill climber of
//! its `BoundedLocalCache` (`climb`, `determineAdjustment`, `increaseWindow`, `decreaseWindow`)
//! resizing the window against main's protected segment. The lists and the admission contest are
//! [`WTinyLfuPolicy`]'s, its window starts at Caffeine's 1 %, and its sketch has as many counters
//! as Caffeine's (`FrequencySketch`: 16 four-bit counters per power of two of the cache, four
//! times the fixed window's, whose rows stay as they were). [`AdaptiveWTinyLfu`] runs a
//! [`WindowClimber`] after every request: Caffeine's [`HillClimber`] (`climber=caffeine`), or a
//! reference model of another implementation's (`climber=bitfaster`, `compat/bitfaster/`).
//!
//! The climber, for a cache of `c` blocks (Caffeine's constants):
//! - **when it starts**: Caffeine allocates its frequency sketch lazily, when an insertion finds
//!   the cache at least half full (`c >> 1` blocks); until then every request resets the sample
//!   and the previous hit rate is 0;
//! - **sample**: demand hits and demand misses (insertions) since the last adjustment; the sample
//!   ends once it holds `10 c` requests (the sketch's aging period, `sampleSize`);
//! - **direction and step**: the step starts at `-0.0625 c` (the first move shrinks the window).
//!   At the end of a sample with hit rate `h` and change `d = h - previous`, the window moves by
//!   `step` if `d >= 0` (the same direction again) and by `-step` if `d < 0` (it reverses), in
//!   whole blocks (the amount truncated toward zero);
//! - **decay and restart**: the next step is `0.98 x` the amount moved, or, when `|d| >= 0.05`
//!   (five points of hit rate), the initial magnitude `0.0625 c` again with the amount's sign.
//!   Nothing freezes the climber: once the step is under one block it moves nothing until a
//!   restart;
//! - **bounds**: growing takes blocks off protected's size and stops when protected's size is 0;
//!   shrinking keeps the window at least one block. Growing first demotes protected's overflow to
//!   probation, then moves main's LRU blocks (probation's, else protected's) to the window's MRU
//!   end; shrinking moves the window's LRU blocks to probation's MRU end. At most 1000 blocks move
//!   per request (Caffeine's `QUEUE_TRANSFER_THRESHOLD` per maintenance cycle); the rest of the
//!   amount waits for the next request, and the sizes change only by the blocks moved.
//!
//! Caffeine climbs at the end of each maintenance cycle, which it runs after writes and when a
//! read buffer fills; here, after every demand request (hits are applied at once, not buffered).
//! A prefetched block's entry is not a request; its first demand use counts as a hit.
//!
//! docs/policies.md compares this with Caffeine's simulator (`HillClimberWindowTinyLfuPolicy`
//! with its simple climber) and with BitFaster.Caching's concurrent replication, whose printed
//! OLTP figures are the check (`tests/python/test_caffeine_figures.py`).

use super::wtinylfu::{FrequencySketch, WTinyLfuPolicy, SAMPLE_FACTOR};
use super::{Access, Block, Evicted, InsertKind, OracleHooks, Policy, PrefetchHooks, SizeHooks};
use crate::cache::frames::Frames;

/// Caffeine's initial window share (`1 - PERCENT_MAIN`).
pub const INITIAL_WINDOW: f64 = 0.01;
/// The hit-rate change that restarts the climber at its initial step (`HILL_CLIMBER_RESTART_THRESHOLD`).
pub const RESTART_THRESHOLD: f64 = 0.05;
/// The initial step, as a share of the cache (`HILL_CLIMBER_STEP_PERCENT`).
pub const STEP_PERCENT: f64 = 0.0625;
/// The factor the step shrinks by after each sample (`HILL_CLIMBER_STEP_DECAY_RATE`).
pub const STEP_DECAY_RATE: f64 = 0.98;
/// Most blocks moved between the window and main per request (`QUEUE_TRANSFER_THRESHOLD`).
const TRANSFER_LIMIT: usize = 1000;

/// What resizes an adaptive W-TinyLFU's window: told of each insertion and each demand request,
/// it sets the window's and protected's sizes and moves blocks between the lists to fit them.
pub trait WindowClimber: Send {
    /// A block is about to enter `policy` (demand or prefetch).
    fn before_insert(&mut self, _policy: &WTinyLfuPolicy) {}
    /// A demand request was served (`hit`, or a miss that entered the cache).
    fn after_request(&mut self, hit: bool, policy: &mut WTinyLfuPolicy);
}

/// Caffeine's hill climber: `determineAdjustment`'s sampling and steps, and `increaseWindow` /
/// `decreaseWindow`'s moves (see the file header).
#[derive(Clone, Debug)]
pub struct HillClimber {
    /// The cache's size in blocks (the initial step's base and the half-full mark).
    capacity: usize,
    /// Requests per sample.
    sample_size: u64,
    /// Whether sampling has started (Caffeine's sketch is initialised).
    started: bool,
    hits: u64,
    misses: u64,
    previous_hit_rate: f64,
    /// The next amount to move by, signed (positive grows the window).
    step: f64,
    /// Blocks still to move, signed: the last decision less what has been moved.
    adjustment: i64,
}

impl HillClimber {
    /// The climber of a cache of `capacity` blocks, before sampling starts.
    pub fn new(capacity: usize) -> Self {
        HillClimber {
            capacity,
            sample_size: (SAMPLE_FACTOR * capacity.max(1)) as u64,
            started: false,
            hits: 0,
            misses: 0,
            previous_hit_rate: 0.0,
            step: -STEP_PERCENT * capacity as f64,
            adjustment: 0,
        }
    }

    /// Starts sampling (an insertion found the cache at least half full).
    pub fn start(&mut self) {
        self.started = true;
    }

    /// Counts a demand request in the sample.
    pub fn record(&mut self, hit: bool) {
        if hit {
            self.hits += 1;
        } else {
            self.misses += 1;
        }
    }

    /// Caffeine's `determineAdjustment`: ends the sample when it is full and sets the adjustment
    /// (see the file header).
    pub fn determine(&mut self) {
        if !self.started {
            self.previous_hit_rate = 0.0;
            self.hits = 0;
            self.misses = 0;
            return;
        }
        let requests = self.hits + self.misses;
        if requests < self.sample_size {
            return;
        }
        let hit_rate = self.hits as f64 / requests as f64;
        let change = hit_rate - self.previous_hit_rate;
        let amount = if change >= 0.0 { self.step } else { -self.step };
        self.step = if change.abs() >= RESTART_THRESHOLD {
            STEP_PERCENT * self.capacity as f64 * if amount >= 0.0 { 1.0 } else { -1.0 }
        } else {
            STEP_DECAY_RATE * amount
        };
        self.previous_hit_rate = hit_rate;
        // Whole blocks, truncated toward zero as Java's `(long)` cast.
        self.adjustment = amount as i64;
        self.hits = 0;
        self.misses = 0;
    }

    /// Blocks still to move (positive: grow the window).
    pub fn adjustment(&self) -> i64 {
        self.adjustment
    }

    /// The next step, signed.
    pub fn step(&self) -> f64 {
        self.step
    }

    /// The last full sample's hit rate (0 before the first).
    pub fn previous_hit_rate(&self) -> f64 {
        self.previous_hit_rate
    }

    /// Caffeine's `increaseWindow`: up to `amount` blocks off protected's size onto the window's.
    fn increase_window(&mut self, amount: usize, policy: &mut WTinyLfuPolicy) {
        let (window, protected) = (policy.window_cap(), policy.protected_cap());
        if protected == 0 {
            return;
        }
        let quota = amount.min(protected);
        policy.set_shares(window + quota, protected - quota);
        policy.demote_protected_overflow();
        let mut left = quota;
        for _ in 0..TRANSFER_LIMIT {
            if left == 0 || !policy.main_lru_to_window() {
                break;
            }
            left -= 1;
        }
        policy.set_shares(window + quota - left, protected - quota + left);
        self.adjustment = left as i64;
    }

    /// Caffeine's `decreaseWindow`: up to `amount` blocks off the window's size onto protected's,
    /// keeping at least one window block.
    fn decrease_window(&mut self, amount: usize, policy: &mut WTinyLfuPolicy) {
        let (window, protected) = (policy.window_cap(), policy.protected_cap());
        if window <= 1 {
            return;
        }
        let quota = amount.min(window - 1);
        let mut left = quota;
        for _ in 0..TRANSFER_LIMIT {
            if left == 0 || !policy.window_lru_to_probation() {
                break;
            }
            left -= 1;
        }
        let moved = quota - left;
        policy.set_shares(window - moved, protected + moved);
        self.adjustment = -(left as i64);
    }
}

impl WindowClimber for HillClimber {
    fn before_insert(&mut self, policy: &WTinyLfuPolicy) {
        // Caffeine initialises its sketch, and so starts sampling, when an insertion finds the
        // cache at least half full.
        if policy.len() >= self.capacity >> 1 {
            self.start();
        }
    }

    /// Caffeine's `climb`.
    fn after_request(&mut self, hit: bool, policy: &mut WTinyLfuPolicy) {
        self.record(hit);
        self.determine();
        let amount = self.adjustment;
        if amount > 0 {
            self.increase_window(amount.unsigned_abs() as usize, policy);
        } else if amount < 0 {
            self.decrease_window(amount.unsigned_abs() as usize, policy);
        }
    }
}

/// W-TinyLFU whose window a hill climber resizes: Caffeine's ([`HillClimber`]) or a reference
/// model of another implementation's (`compat/bitfaster/`).
pub struct AdaptiveWTinyLfu<C> {
    inner: WTinyLfuPolicy,
    climber: C,
    /// The cache's size, which the test checks hold the window and protected budgets to.
    #[cfg_attr(not(test), allow(dead_code))]
    capacity: usize,
}

impl<C: WindowClimber> AdaptiveWTinyLfu<C> {
    /// An adaptive W-TinyLFU of `capacity` blocks, its window starting at Caffeine's 1 %, its
    /// sketch with Caffeine's number of counters ([`FrequencySketch::caffeine_sized`]).
    pub fn new(capacity: usize, universe: usize, climber: C) -> Self {
        let sketch = FrequencySketch::caffeine_sized(capacity, universe);
        AdaptiveWTinyLfu {
            inner: WTinyLfuPolicy::with_sketch(capacity, INITIAL_WINDOW, universe, sketch),
            climber,
            capacity,
        }
    }

    /// The window's size in blocks now.
    pub fn window_cap(&self) -> usize {
        self.inner.window_cap()
    }

    /// The climber's state.
    pub fn climber(&self) -> &C {
        &self.climber
    }

    /// The climber's state, to set it up in tests.
    #[cfg(test)]
    pub(crate) fn climber_mut(&mut self) -> &mut C {
        &mut self.climber
    }
}

impl<C: WindowClimber> Policy for AdaptiveWTinyLfu<C> {
    fn name(&self) -> &'static str {
        "wtinylfu"
    }

    #[inline]
    fn hint(&self, b: Block) {
        self.inner.hint(b);
    }

    fn on_hit(&mut self, b: Block, cx: &Access) {
        self.inner.on_hit(b, cx);
        self.climber.after_request(true, &mut self.inner);
    }

    fn select_victim(&mut self, incoming: Block, frames: &Frames, cx: &Access) -> Option<Block> {
        self.inner.select_victim(incoming, frames, cx)
    }

    fn on_evict(&mut self, b: Block, ev: Evicted, cx: &Access) {
        self.inner.on_evict(b, ev, cx);
    }

    fn on_insert(&mut self, b: Block, kind: InsertKind, cx: &Access) {
        self.climber.before_insert(&self.inner);
        self.inner.on_insert(b, kind, cx);
        if kind == InsertKind::Demand {
            self.climber.after_request(false, &mut self.inner);
        }
    }

    fn len(&self) -> usize {
        self.inner.len()
    }
}

impl<C: WindowClimber> SizeHooks for AdaptiveWTinyLfu<C> {
    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Err("its window, probation and protected budgets and the hill climber's steps count entries; Caffeine's weighted budgets are not modelled")
    }
}

impl<C: WindowClimber> PrefetchHooks for AdaptiveWTinyLfu<C> {
    fn forget_victim(&mut self) {
        self.inner.forget_victim();
    }
}

impl<C: WindowClimber> OracleHooks for AdaptiveWTinyLfu<C> {}

#[cfg(test)]
impl<C: WindowClimber> crate::policy::Checked for AdaptiveWTinyLfu<C> {
    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.inner.check_invariants(frames)?;
        let (window, protected) = (self.inner.window_cap(), self.inner.protected_cap());
        if window == 0 || window + protected > self.capacity.max(1) {
            return Err(format!(
                "window {window} and protected {protected} blocks do not fit a cache of {}",
                self.capacity
            ));
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        self.inner.dump()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::Checked;
    use crate::policy::NEVER;

    /// Ends one sample of `hits` hits in `requests` requests.
    fn sample(c: &mut HillClimber, hits: u64, requests: u64) {
        for i in 0..requests {
            c.record(i < hits);
        }
        c.determine();
    }

    #[test]
    fn the_climber_steps_on_a_hand_worked_sequence() {
        // 100 blocks: samples of 1000 requests, initial step -6.25 blocks.
        let mut c = HillClimber::new(100);
        // Before sampling starts every request resets the sample.
        sample(&mut c, 900, 1000);
        assert_eq!((c.adjustment(), c.previous_hit_rate()), (0, 0.0));
        c.start();
        // A sample one short of 1000 requests decides nothing.
        sample(&mut c, 400, 999);
        assert_eq!(c.adjustment(), 0);
        // 400 + 1 hits in 1000: +0.401 from 0, so the (negative) step is taken, and the change
        // passes 0.05: the next step restarts at 6.25 with the amount's sign.
        c.record(true);
        c.determine();
        assert_eq!(c.adjustment(), -6);
        assert_eq!(c.step(), -6.25);
        // 0.42: up by 0.019, same direction; the step decays.
        sample(&mut c, 420, 1000);
        assert_eq!(c.adjustment(), -6);
        assert!((c.step() - -6.125).abs() < 1e-12);
        // 0.41: the hit rate fell, so the direction reverses: +6.125 (6 blocks), next 6.0025.
        sample(&mut c, 410, 1000);
        assert_eq!(c.adjustment(), 6);
        assert!((c.step() - 6.0025).abs() < 1e-12);
        // 0.405: fell again, reverses again: -6.0025, next -5.88245.
        sample(&mut c, 405, 1000);
        assert_eq!(c.adjustment(), -6);
        assert!((c.step() - -5.88245).abs() < 1e-12);
        // 0.30: fell by 0.105, past the restart threshold: +5.88245 now (5 blocks), then the
        // initial 6.25 in that direction.
        sample(&mut c, 300, 1000);
        assert_eq!(c.adjustment(), 5);
        assert_eq!(c.step(), 6.25);
        // Equal hit rates keep the direction and decay the step by 0.98 per sample: after 91
        // more samples it is 6.25 x 0.98^90 = 1.01 blocks when taken, then under one block,
        // which moves nothing.
        for _ in 0..91 {
            sample(&mut c, 300, 1000);
        }
        assert_eq!(c.adjustment(), 1);
        sample(&mut c, 300, 1000);
        assert_eq!(c.adjustment(), 0);
        assert!((c.step() - 6.25 * STEP_DECAY_RATE.powi(92)).abs() < 1e-9);
        // A rise of 0.06 restarts it: the amount is still the small step, the next one 6.25.
        sample(&mut c, 360, 1000);
        assert_eq!(c.adjustment(), 0);
        assert_eq!(c.step(), 6.25);
        sample(&mut c, 360, 1000);
        assert_eq!(c.adjustment(), 6);
    }

    /// A full adaptive cache of `capacity` blocks 0..capacity, each referenced once, so the
    /// window holds its LRU share and main the rest.
    fn full(capacity: usize) -> CacheLevel<AdaptiveWTinyLfu<HillClimber>> {
        let climber = HillClimber::new(capacity);
        let mut level = CacheLevel::new(
            AdaptiveWTinyLfu::new(capacity, 1024, climber),
            capacity,
            1024,
        );
        for b in 0..capacity as u32 {
            level.access(b, NEVER);
        }
        level
    }

    /// Caffeine's `increaseWindow` by `n` blocks on `level`'s policy.
    fn grow(level: &mut CacheLevel<AdaptiveWTinyLfu<HillClimber>>, n: usize) {
        let p = &mut level.policy;
        p.climber.increase_window(n, &mut p.inner);
    }

    /// Caffeine's `decreaseWindow` by `n` blocks on `level`'s policy.
    fn shrink(level: &mut CacheLevel<AdaptiveWTinyLfu<HillClimber>>, n: usize) {
        let p = &mut level.policy;
        p.climber.decrease_window(n, &mut p.inner);
    }

    #[test]
    fn growing_takes_mains_lru_blocks_into_the_window() {
        // 100 blocks: window 1 (block 99), protected 79, probation 0..=98 (98 at its MRU end).
        let mut level = full(100);
        grow(&mut level, 3);
        assert_eq!(level.policy.window_cap(), 4);
        assert_eq!(level.policy.inner.protected_cap(), 76);
        let dump = level.policy.dump();
        assert_eq!(
            dump[0].1,
            vec![2, 1, 0, 99],
            "probation's LRU blocks at the window's MRU end"
        );
        assert_eq!(dump[1].1.last(), Some(&3));
        assert_eq!(level.policy.climber.adjustment(), 0);
        level.check().unwrap();
        // Shrinking moves the window's LRU blocks to probation's MRU end, down to one block.
        shrink(&mut level, 10);
        assert_eq!(level.policy.window_cap(), 1);
        assert_eq!(level.policy.inner.protected_cap(), 79);
        let dump = level.policy.dump();
        assert_eq!(dump[0].1, vec![2]);
        assert_eq!(&dump[1].1[..3], &[1, 0, 99]);
        level.check().unwrap();
        // At one block it holds.
        shrink(&mut level, 5);
        assert_eq!(level.policy.window_cap(), 1);
    }

    #[test]
    fn growing_stops_at_protecteds_size_and_demotes_its_overflow() {
        // 20 blocks: window 1, protected 15 (floor(0.8 x 19)), probation the rest.
        let mut level = full(20);
        // A hit on 15 probation blocks promotes them: protected fills to its 15.
        for b in 0..15 {
            level.access(b, NEVER);
        }
        assert_eq!(level.policy.dump()[2].1.len(), 15);
        grow(&mut level, 40);
        assert_eq!(level.policy.inner.protected_cap(), 0);
        assert_eq!(level.policy.window_cap(), 16);
        assert_eq!(level.policy.dump()[2].1.len(), 0);
        level.check().unwrap();
        // Protected's size is 0: nothing more to take.
        grow(&mut level, 1);
        assert_eq!(level.policy.window_cap(), 16);
    }

    #[test]
    fn the_window_grows_where_recency_pays() {
        // Each new block i is referenced again 1 to 90 blocks later (spread by a fixed stride) and
        // never after. A 1 % window (one block of 100) loses nearly every such block to main's
        // victim; LRU of 100 would keep them all. Each block the window grows by keeps a few more,
        // so the hit rate rises with it and the climber follows it up.
        let refs: Vec<u32> = (0..20_000u32)
            .flat_map(|i| [i, i.saturating_sub(1 + (i * 7919) % 90)])
            .collect();
        let universe = 20_000;
        let mut fixed = CacheLevel::new(WTinyLfuPolicy::new(100, 0.01, universe), 100, universe);
        let mut adaptive = CacheLevel::new(
            AdaptiveWTinyLfu::new(100, universe, HillClimber::new(100)),
            100,
            universe,
        );
        for (i, &b) in refs.iter().enumerate() {
            fixed.access(b, NEVER);
            adaptive.access(b, NEVER);
            if i % 1000 == 0 {
                adaptive.check().unwrap();
            }
        }
        assert_eq!(fixed.policy.window_cap(), 1);
        let window = adaptive.policy.window_cap();
        assert!(window >= 20, "the window grew to {window} blocks");
        let (f, a) = (fixed.stats().hits, adaptive.stats().hits);
        assert!(a > 3 * f, "adaptive {a} hits, fixed {f}");
    }
}
