//! BitFaster.Caching's hill climber (`wtinylfu.window=adaptive`, `wtinylfu.climber=bitfaster`): a
//! model of how its `ConcurrentLfu` resized the window when it printed the OLTP figures of pull
//! request 191 (`LfuCapacityPartition.OptimizePartitioning`, called from the cache's maintenance
//! with the sketch's reset sample size, then `ReFitProtected`). It is a port of Caffeine's
//! `determineAdjustment` with Caffeine's constants, but keeps the split as a ratio:
//! - the main space's share starts at 0.99, the step at `+0.0625` (a share of the cache) and the
//!   previous hit rate at 1.0, so the first sample's rate falls and the first move shrinks the
//!   window, as Caffeine's does;
//! - the sample counts every hit and miss from the cache's first request (no wait for the cache to
//!   fill) and ends at `10 c` requests;
//! - at its end, with change `d`: amount `step` if `d >= 0`, else `-step`; next step `0.98 x`
//!   the amount, or `0.0625` with its sign when `|d| >= 0.05`; the main share moves by `-amount`
//!   and is clamped to `[0.2, 0.999]`; no rounding of the step (the share carries fractions);
//! - the sizes follow from the share as at the start: window `c - floor(share c)`, protected
//!   `floor(0.8 (c - window))` (main's 80/20 split is kept, where Caffeine takes only protected's
//!   blocks), probation the rest;
//! - no block moves to fill a larger window: new misses fill it (main's victim leaves meanwhile).
//!   A smaller window passes its overflow, oldest first, to probation's MRU end at the next
//!   maintenance, and protected's overflow is demoted to probation's MRU end.
//!
//! BitFaster buffers reads and applies them at its maintenance, which its foreground scheduler
//! runs on every miss; here every request is applied at once and the climber runs after each one.
//! Its later two-pass eviction (pull request 196) is not modelled.

use crate::policy::wtinylfu::{WTinyLfuPolicy, SAMPLE_FACTOR};
use crate::policy::wtinylfu_climber::{
    WindowClimber, INITIAL_WINDOW, RESTART_THRESHOLD, STEP_DECAY_RATE, STEP_PERCENT,
};

/// The main space's share is kept within these bounds (BitFaster's `MinMainPercentage`,
/// `MaxMainPercentage`).
const MAIN_SHARE: (f64, f64) = (0.2, 0.999);
/// Protected's share of the main space (BitFaster recomputes the split from it after each move).
const PROTECTED_SHARE: f64 = 0.8;

/// BitFaster.Caching's `LfuCapacityPartition` climber.
#[derive(Clone, Debug)]
pub struct BitfasterClimber {
    capacity: usize,
    sample_size: u64,
    hits: u64,
    misses: u64,
    previous_hit_rate: f64,
    /// The next change of the main share, signed (negative grows the main space).
    step: f64,
    main_share: f64,
}

impl BitfasterClimber {
    /// The climber of a cache of `capacity` blocks.
    pub fn new(capacity: usize) -> Self {
        BitfasterClimber {
            capacity,
            sample_size: (SAMPLE_FACTOR * capacity.max(1)) as u64,
            hits: 0,
            misses: 0,
            previous_hit_rate: 1.0,
            step: STEP_PERCENT,
            main_share: 1.0 - INITIAL_WINDOW,
        }
    }

    /// The main space's share now.
    pub fn main_share(&self) -> f64 {
        self.main_share
    }

    /// The next step (a change of the window's share; positive grows it).
    pub fn step(&self) -> f64 {
        self.step
    }

    /// The window's and protected's sizes for the current share.
    pub fn sizes(&self) -> (usize, usize) {
        let c = self.capacity;
        let window = c - ((self.main_share * c as f64) as usize).min(c);
        (window, (PROTECTED_SHARE * (c - window) as f64) as usize)
    }

    /// Ends the sample when it is full: moves the share and returns `true`.
    fn optimize(&mut self) -> bool {
        let requests = self.hits + self.misses;
        if requests < self.sample_size {
            return false;
        }
        let hit_rate = self.hits as f64 / requests as f64;
        let change = hit_rate - self.previous_hit_rate;
        let amount = if change >= 0.0 { self.step } else { -self.step };
        self.step = if change.abs() >= RESTART_THRESHOLD {
            STEP_PERCENT * if amount >= 0.0 { 1.0 } else { -1.0 }
        } else {
            STEP_DECAY_RATE * amount
        };
        self.previous_hit_rate = hit_rate;
        self.hits = 0;
        self.misses = 0;
        self.main_share = (self.main_share - amount).clamp(MAIN_SHARE.0, MAIN_SHARE.1);
        true
    }
}

impl WindowClimber for BitfasterClimber {
    fn after_request(&mut self, hit: bool, policy: &mut WTinyLfuPolicy) {
        if hit {
            self.hits += 1;
        } else {
            self.misses += 1;
        }
        if !self.optimize() {
            return;
        }
        let (window, protected) = self.sizes();
        policy.set_shares(window, protected);
        policy.demote_protected_overflow();
        while policy.window_len() > window {
            policy.window_lru_to_probation();
        }
    }
}

/// BitFaster.Caching's climber resizing W-TinyLFU's window: `wtinylfu.window=adaptive` with
/// `wtinylfu.climber=bitfaster`.
impl crate::compat::Variant
    for crate::policy::wtinylfu_climber::AdaptiveWTinyLfu<BitfasterClimber>
{
    const OF: &'static crate::policy::registry::PolicyInfo = &crate::policy::wtinylfu::INFO;

    fn wanted(
        spec: &crate::policy::registry::PolicySpec,
        _capacity: &crate::cache::cache_model::Capacity,
    ) -> crate::error::Result<bool> {
        use crate::policy::wtinylfu::{Climber, WindowShare};
        Ok(WindowShare::from_spec(spec)? == WindowShare::Adaptive(Climber::Bitfaster))
    }

    fn make(
        _spec: &crate::policy::registry::PolicySpec,
        capacity: &crate::cache::cache_model::Capacity,
        universe: usize,
    ) -> crate::error::Result<Self> {
        let climber = BitfasterClimber::new(capacity.entries);
        Ok(crate::policy::wtinylfu_climber::AdaptiveWTinyLfu::new(
            capacity.entries,
            universe,
            climber,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::wtinylfu_climber::AdaptiveWTinyLfu;
    use crate::policy::Checked;
    use crate::policy::NEVER;

    #[test]
    fn the_share_moves_as_bitfasters_partition_does() {
        // 100 blocks: samples of 1000 requests, window 1 and protected 79 at the start.
        let mut c = BitfasterClimber::new(100);
        assert_eq!(c.sizes(), (1, 79));
        let sample = |c: &mut BitfasterClimber, hits: u64| {
            c.hits = hits;
            c.misses = 1000 - hits;
            assert!(c.optimize());
        };
        // 0.40 after the initial 1.0: it fell, so the share moves by +0.0625 (the window
        // shrinks; clamped at 0.999), and past the restart threshold the next step is -0.0625.
        sample(&mut c, 400);
        assert_eq!(c.main_share(), 0.999);
        assert_eq!(c.step(), -STEP_PERCENT);
        // 0.50: it rose, the same direction: the window would shrink again (still clamped).
        sample(&mut c, 500);
        assert_eq!(c.sizes(), (1, 79));
        // 0.44: it fell by 0.06, so the window grows by 0.0625 of the cache: share 0.9365,
        // window 100 - 93 = 7, protected floor(0.8 x 93) = 74; the step restarts at +0.0625.
        sample(&mut c, 440);
        assert!((c.main_share() - 0.9365).abs() < 1e-12);
        assert_eq!(c.sizes(), (7, 74));
        assert_eq!(c.step(), STEP_PERCENT);
        // 0.46: it rose by 0.02, the same direction; the step decays: share 0.874, window 13,
        // protected floor(0.8 x 87) = 69, next step 0.06125.
        sample(&mut c, 460);
        assert_eq!(c.sizes(), (13, 69));
        assert!((c.step() - STEP_DECAY_RATE * STEP_PERCENT).abs() < 1e-12);
        // A sample one request short moves nothing.
        c.misses = 999;
        assert!(!c.optimize());
    }

    #[test]
    fn a_larger_window_fills_with_new_misses_not_with_mains_blocks() {
        // 100 blocks, filled with 0..100 (window [99], probation the rest).
        let mut level = CacheLevel::new(
            AdaptiveWTinyLfu::new(100, 1000, BitfasterClimber::new(100)),
            100,
            1000,
        );
        for b in 0..100 {
            level.access(b, NEVER);
        }
        // The next miss ends a sample at hit rate 0: it fell from 1.0, the window shrinks (it
        // stays at one block) and the step becomes -0.0625.
        let c = level.policy.climber_mut();
        (c.hits, c.misses) = (0, 999);
        level.access(100, NEVER);
        assert_eq!(level.policy.window_cap(), 1);
        // The next one ends a sample at 0.5 after 0.9: it fell, so the window grows to 7 blocks,
        // but holds only the one it had.
        let c = level.policy.climber_mut();
        (c.hits, c.misses, c.previous_hit_rate) = (500, 499, 0.9);
        level.access(101, NEVER);
        assert_eq!(level.policy.window_cap(), 7);
        assert_eq!(level.policy.dump()[0].1, vec![101]);
        // New misses fill it while main's victims leave.
        for b in 102..108 {
            level.access(b, NEVER);
            level.check().unwrap();
        }
        assert_eq!(
            level.policy.dump()[0].1,
            (101..108).rev().collect::<Vec<_>>()
        );
        assert!((0..6).all(|b| !level.frames().is_resident(b)));
        // One more pushes the window's oldest block into the contest.
        level.access(108, NEVER);
        assert_eq!(level.policy.dump()[0].1.len(), 7);
        level.check().unwrap();
    }
}
