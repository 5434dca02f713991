//! Sequential scans: `scan.c`'s cyclic and use-once scans (optionally over a hot working set),
//! and the plain loop.

use super::{read, BlockGen, GenSpec, Rng};
use crate::error::Result;
use crate::trace::BlockRequest;
use rand::Rng as _;

/// Scan passes over a region, interleaved with uniform references to a hot set.
///
/// Block ids: the hot set is `0..hot`; the scan starts at `hot`. A cyclic scan rescans
/// `hot..hot + region`; a use-once scan continues into new blocks, so no scan block repeats.
pub struct Scan {
    rng: Rng,
    region: u64,
    use_once: bool,
    hot: u64,
    hot_share: f64,
    left: u64,
    requests: u64,
    /// Scan blocks emitted so far.
    scanned: u64,
}

impl Scan {
    /// Reads `region`, `mode`, `hot`, `hot-share` and `requests` from `spec`.
    pub fn new(spec: &GenSpec, rng: Rng) -> Result<Self> {
        let requests = spec.count("requests", 0)?;
        let hot = spec.count("hot", 0)?;
        Ok(Scan {
            rng,
            region: spec.count("region", 1)?,
            use_once: spec.choice("mode", &["cyclic", "use-once"])? == "use-once",
            hot,
            hot_share: if hot == 0 {
                0.0
            } else {
                spec.real("hot-share", 0.0, 1.0)?
            },
            left: requests,
            requests,
            scanned: 0,
        })
    }
}

impl Iterator for Scan {
    type Item = BlockRequest;

    fn next(&mut self) -> Option<BlockRequest> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        if self.hot_share > 0.0 && self.rng.random_bool(self.hot_share) {
            return Some(read(self.rng.random_range(0..self.hot)));
        }
        let k = self.scanned;
        self.scanned += 1;
        let offset = if self.use_once { k } else { k % self.region };
        Some(read(self.hot + offset))
    }
}

impl BlockGen for Scan {
    fn universe(&self) -> u64 {
        if self.use_once {
            self.hot + self.requests.max(1)
        } else {
            self.hot + self.region
        }
    }
}

/// `0, 1, …, blocks-1, 0, 1, …`.
pub struct Loop {
    blocks: u64,
    next: u64,
    left: u64,
}

impl Loop {
    /// Reads `blocks` and `requests` from `spec`.
    pub fn new(spec: &GenSpec) -> Result<Self> {
        Ok(Loop {
            blocks: spec.count("blocks", 1)?,
            next: 0,
            left: spec.count("requests", 0)?,
        })
    }
}

impl Iterator for Loop {
    type Item = BlockRequest;

    fn next(&mut self) -> Option<BlockRequest> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let b = self.next;
        self.next = (self.next + 1) % self.blocks;
        Some(read(b))
    }
}

impl BlockGen for Loop {
    fn universe(&self) -> u64 {
        self.blocks
    }
}
