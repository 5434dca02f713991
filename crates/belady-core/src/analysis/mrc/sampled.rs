//! Any policy's miss-ratio curve from a hash-chosen share of the blocks (spatial sampling).
//!
//! SHARDS (Waldspurger et al., FAST 2015) keeps the references to blocks whose hash falls below
//! `R * 2^64`: every reference to a kept block is kept, so each kept block's reuse pattern is
//! intact, and the kept blocks are a uniform `R` share of all blocks. Miniature simulation
//! (Waldspurger et al., USENIX ATC 2017) runs any policy over that sample with the cache scaled
//! by the same `R`; its miss ratio estimates the full cache's.
//!
//! Correction (SHARDS-adj): a few hot blocks can carry much of the traffic, so the kept share of
//! *references* can be far from `R` even when the kept share of blocks is right. SHARDS-adj
//! moves the difference between the expected `R * N` and the actual sampled references into
//! the smallest-distance bucket, i.e. counts it as hits at every size. Here that is: miss ratio
//! = sampled misses / (`R * N`), clamped to `[0, 1]`.

use crate::error::{Error, Result};
use crate::trace::dense::BlockTrace;
use rustc_hash::FxHashMap;

/// Spatial (hash-based) block sampling at a fixed rate: the same blocks for the same rate and
/// seed, whatever the order of the trace. `belady stats --sample-rate` uses it too.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Sampler {
    rate: f64,
    threshold: u64,
    seed: u64,
}

/// A 64-bit mix (the SplitMix64 finaliser), so sampling by hash is uniform over block ids.
pub fn mix64(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl Sampler {
    /// Samples a `rate` share of the blocks (`0 < rate <= 1`), chosen by hash; `seed` picks a
    /// different share at the same rate.
    pub fn new(rate: f64, seed: u64) -> Result<Sampler> {
        if !(rate > 0.0 && rate <= 1.0) {
            return Err(Error::config(
                "--sample-rate",
                crate::error::show_f64(rate),
                "must be above 0 and at most 1",
            ));
        }
        let threshold = if rate >= 1.0 {
            u64::MAX
        } else {
            (rate * u64::MAX as f64) as u64
        };
        Ok(Sampler {
            rate,
            threshold,
            seed,
        })
    }

    /// Refuses a sample that kept no reference of the `references` in `source`: its estimates
    /// would be zeros, not measurements (`mrc` and `stats` share this check).
    pub fn check_nonempty(rate: f64, sampled: u64, references: u64, source: &str) -> Result<()> {
        if sampled == 0 && references > 0 {
            return Err(Error::config(
                "--sample-rate",
                crate::error::show_f64(rate),
                format!(
                    "no block of {source} was sampled ({references} references); raise the rate"
                ),
            ));
        }
        Ok(())
    }

    /// The share of blocks sampled.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Whether every block is kept.
    pub fn keeps_all(&self) -> bool {
        self.threshold == u64::MAX
    }

    /// Whether references to `block` are in the sample.
    #[inline]
    pub fn keeps(&self, block: u64) -> bool {
        self.threshold == u64::MAX
            || mix64(block ^ self.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15)) < self.threshold
    }
}

/// The sampled references of a trace, collected in one pass with dense ids.
pub struct SampleCollector {
    sampler: Sampler,
    ids: FxHashMap<u64, u32>,
    refs: Vec<u32>,
    originals: Vec<u64>,
    references: u64,
}

impl SampleCollector {
    /// An empty sample.
    pub fn new(sampler: Sampler) -> Self {
        SampleCollector {
            sampler,
            ids: FxHashMap::default(),
            refs: Vec::new(),
            originals: Vec::new(),
            references: 0,
        }
    }

    /// The sampler choosing the blocks (its rate, whether it keeps every block).
    pub fn sampler(&self) -> &Sampler {
        &self.sampler
    }

    /// Offers one reference; keeps it when its block is sampled.
    #[inline]
    pub fn reference(&mut self, block: u64) -> Result<()> {
        self.references += 1;
        if !self.sampler.keeps(block) {
            return Ok(());
        }
        if self.refs.len() >= u32::MAX as usize - 1 {
            return Err(Error::config(
                "--sample-rate",
                crate::error::show_f64(self.sampler.rate),
                format!(
                    "the sample holds more than {} references; use a lower rate",
                    u32::MAX - 2
                ),
            ));
        }
        let next = self.originals.len() as u32;
        let id = *self.ids.entry(block).or_insert(next);
        if id == next {
            self.originals.push(block);
        }
        self.refs.push(id);
        Ok(())
    }

    /// All references offered.
    pub fn references(&self) -> u64 {
        self.references
    }

    /// The sample as a trace for the engine, with the sampler and the references offered.
    pub fn finish(self, source: String, block_size: u32) -> Sample {
        Sample {
            trace: BlockTrace {
                source,
                block_size,
                refs: self.refs,
                originals: self.originals,
                write_mask: None,
                times: None,
                sizes: None,
            },
            sampler: self.sampler,
            references: self.references,
        }
    }
}

/// A finished sample.
pub struct Sample {
    /// The sampled references (dense ids).
    pub trace: BlockTrace,
    /// How they were chosen.
    pub sampler: Sampler,
    /// References in the whole trace.
    pub references: u64,
}

impl Sample {
    /// The miniature cache standing for a full cache of `blocks` blocks: `blocks * R`, rounded,
    /// at least one block.
    pub fn scaled(&self, blocks: u64) -> usize {
        ((blocks as f64 * self.sampler.rate).round() as usize).max(1)
    }

    /// Estimated distinct blocks of the whole trace: sampled distinct blocks / R.
    pub fn estimated_unique(&self) -> u64 {
        (self.trace.unique() as f64 / self.sampler.rate).round() as u64
    }

    /// The full trace's miss ratio estimated from `misses` of a miniature run; `adjust` applies
    /// the SHARDS-adj correction (divide by the expected sampled references `R * N`, not the
    /// actual ones).
    pub fn miss_ratio(&self, misses: u64, adjust: bool) -> f64 {
        let total = if adjust && !self.sampler.keeps_all() {
            self.sampler.rate * self.references as f64
        } else {
            self.trace.refs.len() as f64
        };
        if total <= 0.0 {
            return if self.trace.refs.is_empty() { 0.0 } else { 1.0 };
        }
        (misses as f64 / total).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_one_keeps_everything_and_bad_rates_are_refused() {
        let s = Sampler::new(1.0, 0).unwrap();
        assert!((0..1000).all(|b| s.keeps(b)));
        for bad in [0.0, -0.1, 1.5, f64::NAN] {
            let e = Sampler::new(bad, 0).unwrap_err().to_string();
            assert!(e.contains("--sample-rate"), "{e}");
        }
    }

    #[test]
    fn kept_share_is_close_to_the_rate() {
        // 10^6 consecutive ids at 1%: a binomial count with sd ~ 99.5, so 5 sd is ~500.
        for seed in [0, 7] {
            let s = Sampler::new(0.01, seed).unwrap();
            let kept = (0..1_000_000u64).filter(|&b| s.keeps(b)).count() as i64;
            assert!((kept - 10_000).abs() < 500, "seed {seed}: kept {kept}");
        }
    }

    #[test]
    fn seeds_choose_different_blocks() {
        let a = Sampler::new(0.1, 0).unwrap();
        let b = Sampler::new(0.1, 1).unwrap();
        let differ = (0..10_000u64).filter(|&x| a.keeps(x) != b.keeps(x)).count();
        assert!(differ > 1000, "{differ}");
    }

    #[test]
    fn adjusted_ratio_uses_expected_references() {
        let mut c = SampleCollector::new(Sampler::new(0.5, 0).unwrap());
        for b in 0..1000u64 {
            c.reference(b % 100).unwrap();
        }
        let s = c.finish("t".into(), 4096);
        let kept = s.trace.refs.len() as f64;
        assert_eq!(s.miss_ratio(50, false), 50.0 / kept);
        assert_eq!(s.miss_ratio(50, true), 50.0 / 500.0);
        assert_eq!(s.scaled(3), 2);
        assert_eq!(s.scaled(1), 1);
    }
}
