//! The levels below a client that another engine simulates: the file engine's cache (with
//! read-ahead, clustering and the device queue) is level 0, and every block it reads goes down
//! through these levels before it may reach the disk.
//!
//! The client tells this stack about each block it places (a demand miss or a read-ahead block)
//! and the block that placement evicted, exactly what a recorded client passes down in
//! [`super::run_hierarchies`]: the lower levels apply their own placement (access, eviction,
//! demote, exclusive) and report whether the read reached the disk. Documented choices:
//! - A block a lower level serves costs no device time; the file engine's device sees only the
//!   blocks that missed every level.
//! - Reloads of eviction-based levels are counted as disk requests but do not occupy the device
//!   (the file engine's device queue serves the client's requests only).

use super::{Hierarchy, HierarchySpec, LevelReport};
use crate::error::Result;
use crate::policy::Block;

/// Lower levels of a hierarchy fed by a client simulated elsewhere.
pub struct Below {
    h: Hierarchy,
    /// Demand reads a lower level served.
    demand_hits: u64,
}

impl Below {
    /// The levels of `spec` below its client, sized against `unique` blocks, over `universe` ids.
    /// `None` when `spec` has the client only.
    pub fn new(
        spec: &HierarchySpec,
        unique: usize,
        universe: usize,
        block_size: u32,
    ) -> Result<Option<Below>> {
        if spec.levels.len() < 2 {
            return Ok(None);
        }
        // Level 0's policy is built but never used: the caller simulates the client; its slot
        // table (for eviction placement below) lives here.
        Ok(Some(Below {
            h: Hierarchy::with_universe(spec, unique, universe, block_size)?,
            demand_hits: 0,
        }))
    }

    /// The client read `b` into its cache (on demand when `demand`), evicting `victim`. Returns
    /// whether the read reached the disk.
    pub fn read(&mut self, b: Block, victim: Option<Block>, demand: bool) -> bool {
        let before = self.h.disk_reads;
        self.h.served = None;
        self.h.replay_client_miss(b, victim);
        let from_disk = self.h.disk_reads != before;
        if demand && !from_disk {
            self.demand_hits += 1;
        }
        from_disk
    }

    /// Demand reads a lower level served.
    pub fn demand_hits(&self) -> u64 {
        self.demand_hits
    }

    /// Reloads the eviction-based levels sent to the disk.
    pub fn disk_reloads(&self) -> u64 {
        self.h.disk_reloads
    }

    /// Every level's counters, `client` standing for level 0.
    pub fn reports(&self, client: LevelReport) -> Vec<LevelReport> {
        let mut out = self.h.reports();
        out[0] = LevelReport {
            name: out[0].name.clone(),
            placement: out[0].placement.clone(),
            ..client
        };
        out
    }
}
