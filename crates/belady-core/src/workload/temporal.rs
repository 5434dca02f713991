//! Temporally clustered references: the LIRS paper's LRU-friendly category, where a block is
//! most likely re-referenced soon after its last use.

use super::{read, BlockGen, GenSpec, Rng};
use crate::error::{Error, Result};
use crate::trace::BlockRequest;
use rand::Rng as _;
use rand_distr::Distribution;

/// With probability `reuse`, repeats the reference made `d` references ago (`d` geometric with
/// mean `mean-distance`, at most `window`); otherwise references a uniformly chosen block.
pub struct Temporal {
    rng: Rng,
    blocks: u64,
    reuse: f64,
    back: rand_distr::Geometric,
    /// The last `window` references, as a ring.
    recent: Vec<u64>,
    window: usize,
    emitted: u64,
    left: u64,
}

impl Temporal {
    /// Reads `blocks`, `reuse`, `mean-distance`, `window` and `requests` from `spec`.
    pub fn new(spec: &GenSpec, rng: Rng) -> Result<Self> {
        let mean = spec.real("mean-distance", 1.0, 1e12)?;
        let window = spec.count("window", 1)?;
        if window > 1 << 26 {
            return Err(Error::config(
                "temporal window",
                window,
                "at most 67,108,864 references",
            ));
        }
        // 1 + Geometric(p) has mean 1/p.
        let back = rand_distr::Geometric::new(1.0 / mean)
            .map_err(|e| Error::config("temporal mean-distance", mean, e.to_string()))?;
        Ok(Temporal {
            rng,
            blocks: spec.count("blocks", 1)?,
            reuse: spec.real("reuse", 0.0, 1.0)?,
            back,
            recent: Vec::with_capacity(window as usize),
            window: window as usize,
            emitted: 0,
            left: spec.count("requests", 0)?,
        })
    }
}

impl Iterator for Temporal {
    type Item = BlockRequest;

    fn next(&mut self) -> Option<BlockRequest> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let seen = self.recent.len() as u64;
        let block = if seen > 0 && self.rng.random_bool(self.reuse) {
            let d = (1 + self.back.sample(&mut self.rng)).min(seen);
            let pos = (self.emitted - d) % self.window as u64;
            self.recent[pos as usize]
        } else {
            self.rng.random_range(0..self.blocks)
        };
        let slot = (self.emitted % self.window as u64) as usize;
        if slot == self.recent.len() {
            self.recent.push(block);
        } else {
            self.recent[slot] = block;
        }
        self.emitted += 1;
        Some(read(block))
    }
}

impl BlockGen for Temporal {
    fn universe(&self) -> u64 {
        self.blocks
    }
}
