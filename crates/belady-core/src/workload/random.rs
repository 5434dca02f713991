//! Independent references: Zipf-distributed and uniform.

use super::{read, BlockGen, GenSpec, Rng};
use crate::error::{Error, Result};
use crate::trace::BlockRequest;
use rand::Rng as _;
use rand_distr::Distribution;

/// Block `r - 1` with probability proportional to `1 / r^alpha` (rand_distr's rejection sampler).
pub struct Zipf {
    rng: Rng,
    dist: rand_distr::Zipf<f64>,
    blocks: u64,
    left: u64,
}

impl Zipf {
    /// Reads `blocks`, `alpha` and `requests` from `spec`.
    pub fn new(spec: &GenSpec, rng: Rng) -> Result<Self> {
        let blocks = spec.count("blocks", 1)?;
        let alpha = spec.real("alpha", 0.0, 100.0)?;
        let dist = rand_distr::Zipf::new(blocks as f64, alpha)
            .map_err(|e| Error::config("zipf", format!("alpha={alpha}"), e.to_string()))?;
        Ok(Zipf {
            rng,
            dist,
            blocks,
            left: spec.count("requests", 0)?,
        })
    }
}

impl Iterator for Zipf {
    type Item = BlockRequest;

    fn next(&mut self) -> Option<BlockRequest> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let rank = self.dist.sample(&mut self.rng) as u64;
        Some(read(rank.clamp(1, self.blocks) - 1))
    }
}

impl BlockGen for Zipf {
    fn universe(&self) -> u64 {
        self.blocks
    }
}

/// Every block of `0..blocks` equally likely.
pub struct Uniform {
    rng: Rng,
    blocks: u64,
    left: u64,
}

impl Uniform {
    /// Reads `blocks` and `requests` from `spec`.
    pub fn new(spec: &GenSpec, rng: Rng) -> Result<Self> {
        Ok(Uniform {
            rng,
            blocks: spec.count("blocks", 1)?,
            left: spec.count("requests", 0)?,
        })
    }
}

impl Iterator for Uniform {
    type Item = BlockRequest;

    fn next(&mut self) -> Option<BlockRequest> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        Some(read(self.rng.random_range(0..self.blocks)))
    }
}

impl BlockGen for Uniform {
    fn universe(&self) -> u64 {
        self.blocks
    }
}
