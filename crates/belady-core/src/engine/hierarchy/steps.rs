//! `Hierarchy` stepped on its own, one demand reference at a time, for the reference model
//! (`reference.rs`, `clock.rs`) and exact tests (test code only): the model's request count, its
//! log of steps, a client replayed from a recording, the conservation checks and the results.
//! Production runs step the levels below a client through [`super::Below`] and keep none of this.

use super::slots::NO_SLOT;
use super::state::{Event, Source};
use super::{Hierarchy, HierarchyResult, HierarchySpec, LevelReport, Placement};
use crate::error::Result;
use crate::policy::Block;

/// What only the reference model keeps of a run.
#[derive(Default)]
pub(crate) struct Model {
    /// Demand references of a block-level run.
    pub(super) requests: u64,
    /// The steps recorded so far, when recording.
    pub(super) log: Option<Vec<Step>>,
    /// Level 0's counters when the reference model replays its output rather than simulating
    /// it (the file engine's `Below` reports its client itself).
    pub(super) client_report: Option<LevelReport>,
}

/// One step of a run, recorded for exact tests (`Hierarchy::with_log`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Level `level` found `block` resident.
    Hit {
        /// Level index, 0 = client.
        level: usize,
        /// The block.
        block: Block,
    },
    /// Level `level` did not hold `block`.
    Miss {
        /// Level index.
        level: usize,
        /// The block.
        block: Block,
    },
    /// `block` entered level `level` by `how`.
    Place {
        /// Level index.
        level: usize,
        /// The block.
        block: Block,
        /// The mechanism.
        how: Source,
    },
    /// Level `level` evicted `block`.
    Evict {
        /// Level index.
        level: usize,
        /// The block.
        block: Block,
    },
    /// Level `level` was told of `block`'s eviction above but did not reload it (threshold).
    Skip {
        /// Level index.
        level: usize,
        /// The block.
        block: Block,
    },
    /// Exclusive level `level` handed `block` up: on a hit, or because the level above placed it.
    HandUp {
        /// Level index.
        level: usize,
        /// The block.
        block: Block,
    },
    /// The demand read for `block` went to the disk.
    DiskRead {
        /// The block.
        block: Block,
    },
}

impl Hierarchy {
    /// Builds the levels of `spec` for a trace of `unique` blocks of `block_size` bytes.
    pub fn new(spec: &HierarchySpec, unique: usize, block_size: u32) -> Result<Hierarchy> {
        Hierarchy::with_universe(spec, unique, unique, block_size)
    }

    /// Records every [`Step`] from now on.
    pub fn with_log(mut self) -> Hierarchy {
        self.model.log = Some(Vec::new());
        self
    }

    /// The steps recorded so far (empty unless [`Hierarchy::with_log`]).
    pub fn log(&self) -> &[Step] {
        self.model.log.as_deref().unwrap_or(&[])
    }

    /// Blocks level `level` holds now, in id order.
    pub fn resident(&self, level: usize) -> Vec<Block> {
        self.levels[level]
            .cache
            .frames()
            .resident_blocks()
            .collect()
    }

    /// How resident `b` entered level `level` ([`Source::None`] when it is not resident).
    pub fn source(&self, level: usize, b: Block) -> Source {
        Source::from_u8(self.levels[level].source[b as usize])
    }

    /// Number of levels.
    pub fn depth(&self) -> usize {
        self.levels.len()
    }

    /// Slots the content-tracking table above level `level` has seen (0 when that level does
    /// not place on eviction).
    pub fn tracked_slots(&self, level: usize) -> usize {
        level
            .checked_sub(1)
            .and_then(|up| self.levels[up].slots.as_ref())
            .map_or(0, |s| s.table.slots())
    }

    /// Records `s` when recording.
    pub(super) fn record(&mut self, s: Step) {
        if let Some(log) = &mut self.model.log {
            log.push(s);
        }
    }

    /// One demand reference to `b` (untimed: a reload completes at once unless deferred);
    /// `next_use` feeds OPT at the client.
    pub fn reference(&mut self, b: Block, next_use: u64) {
        self.model.requests += 1;
        self.served = None;
        self.client_demoted = false;
        self.current.clear();
        self.current.push(Event::Read(b));
        self.descend(0, next_use);
    }

    /// Checks every level against its frame table and the conservation laws of its counters.
    pub fn check(&self) -> std::result::Result<(), String> {
        for (i, level) in self.levels.iter().enumerate() {
            let name = &level.report.name;
            level.cache.check().map_err(|e| format!("{name}: {e}"))?;
            let frames = level.cache.frames();
            let mut by = [0u64; 4];
            for (b, &s) in level.source.iter().enumerate() {
                let resident = frames.is_resident(b as Block);
                if resident != (s != Source::None as u8) {
                    return Err(format!(
                        "{name}: block {b} resident {resident} but recorded source {s}"
                    ));
                }
                by[s as usize] += 1;
            }
            let r = self.report_level(i);
            let placed = r.placed_on_access + r.reloads_issued + r.demotions_placed;
            if placed != r.resident + r.evictions + r.handed_up {
                return Err(format!(
                    "{name}: {placed} placements but {} resident + {} evicted + {} handed up",
                    r.resident, r.evictions, r.handed_up
                ));
            }
            if r.reloads_issued != r.reloads_used + r.reloads_wasted + r.reloads_unused_resident {
                return Err(format!(
                    "{name}: {} reloads issued but {} used + {} wasted + {} resident unused",
                    r.reloads_issued, r.reloads_used, r.reloads_wasted, r.reloads_unused_resident
                ));
            }
            if r.demotions_placed
                != r.demotions_used
                    + r.demotions_wasted
                    + r.demotions_unused_resident
                    + r.demotions_unused_handed_up
            {
                return Err(format!("{name}: demotion counts do not add up: {r:?}"));
            }
            if by[Source::Reload as usize] > r.reloads_issued
                || by[Source::Demotion as usize] > r.demotions_placed
                || by[Source::Access as usize] > r.placed_on_access
            {
                return Err(format!(
                    "{name}: more resident blocks of a kind than were placed"
                ));
            }
            if i > 0 && level.placement == Placement::Exclusive {
                let above = self.levels[i - 1].cache.frames();
                if let Some(b) = frames.resident_blocks().find(|&b| above.is_resident(b)) {
                    return Err(format!(
                        "{name} is exclusive but block {b} is also held above"
                    ));
                }
            }
            if let Some(slots) = &level.slots {
                for b in frames.resident_blocks() {
                    let s = slots.slot_of[b as usize];
                    if s == NO_SLOT || slots.table.held.get(s as usize) != Some(&b) {
                        return Err(format!(
                            "{name}: the tracking table does not show block {b} in its slot"
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The results so far, for a trace named `source` with `unique` blocks.
    pub fn result(&self, source: &str, label: String, unique: usize) -> HierarchyResult {
        let mut levels = self.reports();
        if let Some(client) = &self.model.client_report {
            levels[0] = client.clone();
        }
        let hits: u64 = levels.iter().map(|l| l.hits).sum();
        let demotion_bytes = levels.iter().map(|l| l.demotion_bytes).sum();
        HierarchyResult {
            trace: source.to_string(),
            hierarchy: label,
            block_size: self.block_size,
            unique_blocks: unique as u64,
            requests: self.model.requests,
            hits,
            hit_ratio: if self.model.requests == 0 {
                0.0
            } else {
                hits as f64 / self.model.requests as f64
            },
            levels,
            disk_reads: self.disk_reads,
            disk_reloads: self.disk_reloads,
            disk_requests: self.disk_reads + self.disk_reloads,
            demotion_bytes,
            timing: None,
        }
    }
}
