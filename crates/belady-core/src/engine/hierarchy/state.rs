//! The levels' state and how one read steps through them: placement, notices, reloads,
//! demotions, hand-ups and the conservation checks.

use super::slots::Slots;
#[cfg(test)]
use super::slots::NO_SLOT;
#[cfg(test)]
use super::HierarchyResult;
use super::{HierarchySpec, LevelReport, Placement};
use crate::cache::level::{CacheLevel, Victim};
use crate::error::{Error, Result};
use crate::policy::registry::PolicyVisitor;
use crate::policy::{Block, Policy, NEVER};

/// How a resident block entered its level.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Source {
    /// Not resident.
    None = 0,
    /// Placed by a reference that missed (access-based placement, and always at the client).
    Access = 1,
    /// Reloaded from disk after the level above evicted it.
    Reload = 2,
    /// Sent down by the level above when it evicted it.
    Demotion = 3,
}

impl Source {
    fn from_u8(v: u8) -> Source {
        match v {
            1 => Source::Access,
            2 => Source::Reload,
            3 => Source::Demotion,
            _ => Source::None,
        }
    }
}

/// What reaches a level while one demand reference is handled.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Event {
    /// The demand read, still unserved.
    Read(Block),
    /// The level above evicted this block (detected or demoted).
    Evicted(Block),
}

/// One step of a run, recorded for exact tests (`Hierarchy::with_log`; test code only, so
/// production runs have no branch for the log).
#[cfg(test)]
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

/// Builds a boxed policy, so levels of different policy types share one type.
pub(super) struct Boxed;

impl PolicyVisitor for Boxed {
    type Output = Box<dyn Policy>;
    fn visit<P: Policy + 'static>(self, policy: P) -> Box<dyn Policy> {
        Box::new(policy)
    }
}

/// What a level tells the level below about its evictions.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Notify {
    /// Nothing: the level below places on access.
    Nothing,
    /// Through the content-tracking table (eviction-based placement below).
    Tracked,
    /// The block itself is sent down (demote or exclusive placement below).
    Demoted,
}

pub(super) struct Level {
    pub(super) cache: CacheLevel<Box<dyn Policy>>,
    pub(super) placement: Placement,
    pub(super) notify: Notify,
    pub(super) source: Vec<u8>,
    pub(super) arrivals: Vec<u32>,
    pub(super) slots: Option<Slots>,
    pub(super) report: LevelReport,
}

/// The levels of a hierarchy: the file engine drives the levels below its client through
/// [`Below`](super::Below); tests also step it one demand reference at a time.
pub struct Hierarchy {
    pub(super) levels: Vec<Level>,
    pub(super) block_size: u32,
    /// Demand references of a block-level run (the reference model's).
    #[cfg(test)]
    pub(super) requests: u64,
    pub(super) disk_reads: u64,
    pub(super) disk_reloads: u64,
    pub(super) current: Vec<Event>,
    pub(super) below: Vec<Event>,
    /// The steps recorded so far, when recording (test code only).
    #[cfg(test)]
    pub(super) log: Option<Vec<Step>>,
    /// Level 0's counters when the reference model replays its output rather than simulating
    /// it (test code only: the file engine's `Below` reports its client itself).
    #[cfg(test)]
    pub(super) client_report: Option<LevelReport>,
    /// The level that served the current reference (`None`: the disk).
    pub(super) served: Option<usize>,
    /// The client sent a block down while handling the current reference.
    pub(super) client_demoted: bool,
    /// Reloads waiting for a device the caller runs (level, block), when it defers them: the
    /// file engine's (`Below` with `BelowTiming`), the one clock of a timed hierarchy.
    pub(super) deferred: Option<Vec<(usize, Block)>>,
}

impl Hierarchy {
    #[cfg(test)]
    /// Builds the levels of `spec` for a trace of `unique` blocks of `block_size` bytes.
    pub fn new(spec: &HierarchySpec, unique: usize, block_size: u32) -> Result<Hierarchy> {
        Hierarchy::with_universe(spec, unique, unique, block_size)
    }

    /// Builds the levels of `spec`, with percent sizes taken of `unique` blocks of `block_size`
    /// bytes, over ids `0..universe` (a file-level layout holds ids no demand read references).
    pub fn with_universe(
        spec: &HierarchySpec,
        unique: usize,
        universe: usize,
        block_size: u32,
    ) -> Result<Hierarchy> {
        let mut levels: Vec<Level> = Vec::with_capacity(spec.levels.len());
        // A row reports the levels' blocks together: their sum must have a value.
        let mut total: u64 = 0;
        for (i, l) in spec.levels.iter().enumerate() {
            let capacity = l.size.resolve(unique, block_size)?;
            total = total.checked_add(capacity as u64).ok_or_else(|| {
                Error::config(
                    "levels",
                    format!("{}:{}", l.name, l.size),
                    "the levels' sizes add up to more than 2^64-1 blocks, which no row can report; give smaller sizes (a level larger than the trace never evicts)",
                )
            })?;
            let mut policy_spec = l.policy.clone();
            if i > 0
                && l.placement != Placement::Access
                && policy_spec.info.name == "mq"
                && !policy_spec.params.contains_key("unused_count")
            {
                policy_spec.set("unused_count", "keep")?;
            }
            let policy = crate::cache::builder::build(&policy_spec, capacity, universe, Boxed)?;
            if i > 0 && policy.needs_oracle() {
                return Err(Error::config(
                    "levels",
                    format!("{}:{}", l.name, l.policy.info.name),
                    "OPT needs the future of the level's own requests, which depend on the levels above; use it at the client level only",
                ));
            }
            let placement = if i == 0 {
                Placement::Access
            } else {
                l.placement
            };
            let notify = match spec.levels.get(i + 1).map(|n| n.placement) {
                None | Some(Placement::Access) => Notify::Nothing,
                Some(Placement::Eviction { .. }) => Notify::Tracked,
                Some(Placement::Demote | Placement::Exclusive) => Notify::Demoted,
            };
            levels.push(Level {
                cache: CacheLevel::new(policy, capacity, universe),
                placement,
                notify,
                source: vec![0; universe],
                arrivals: if matches!(placement, Placement::Eviction { threshold } if threshold > 1)
                {
                    vec![0; universe]
                } else {
                    Vec::new()
                },
                slots: (notify == Notify::Tracked).then(|| Slots::new(universe)),
                report: LevelReport {
                    name: l.name.clone(),
                    policy: l.policy.label(),
                    placement: placement.label(),
                    cache_blocks: capacity as u64,
                    ..LevelReport::default()
                },
            });
        }
        Ok(Hierarchy {
            levels,
            block_size,
            #[cfg(test)]
            requests: 0,
            disk_reads: 0,
            disk_reloads: 0,
            current: Vec::with_capacity(8),
            below: Vec::with_capacity(8),
            #[cfg(test)]
            log: None,
            #[cfg(test)]
            client_report: None,
            served: None,
            client_demoted: false,
            deferred: None,
        })
    }

    #[cfg(test)]
    /// Records every [`Step`] from now on.
    pub fn with_log(mut self) -> Hierarchy {
        self.log = Some(Vec::new());
        self
    }

    #[cfg(test)]
    /// The steps recorded so far (empty unless [`Hierarchy::with_log`]).
    pub fn log(&self) -> &[Step] {
        self.log.as_deref().unwrap_or(&[])
    }

    /// Prefetches the frame-table and policy state of `b` at every level below the client (a
    /// hint: no effect on results; one dynamic call per level, as the levels' policies are boxed).
    #[inline]
    pub(super) fn hint_below_client(&mut self, b: Block) {
        for level in &mut self.levels[1..] {
            level.cache.hint(b);
        }
    }

    /// Whether level `level` holds `b` now.
    pub fn holds(&self, level: usize, b: Block) -> bool {
        self.levels[level].cache.frames().is_resident(b)
    }

    #[cfg(test)]
    /// Blocks level `level` holds now, in id order.
    pub fn resident(&self, level: usize) -> Vec<Block> {
        self.levels[level]
            .cache
            .frames()
            .resident_blocks()
            .collect()
    }

    #[cfg(test)]
    /// How resident `b` entered level `level` ([`Source::None`] when it is not resident).
    pub fn source(&self, level: usize, b: Block) -> Source {
        Source::from_u8(self.levels[level].source[b as usize])
    }

    #[cfg(test)]
    /// Number of levels.
    pub fn depth(&self) -> usize {
        self.levels.len()
    }

    #[cfg(test)]
    /// Slots the content-tracking table above level `level` has seen (0 when that level does
    /// not place on eviction).
    pub fn tracked_slots(&self, level: usize) -> usize {
        level
            .checked_sub(1)
            .and_then(|up| self.levels[up].slots.as_ref())
            .map_or(0, |s| s.table.slots())
    }

    #[cfg(test)]
    /// Records `s` when recording.
    pub(super) fn step(&mut self, s: Step) {
        if let Some(log) = &mut self.log {
            log.push(s);
        }
    }

    #[cfg(test)]
    /// One demand reference to `b` (untimed: a reload completes at once unless deferred);
    /// `next_use` feeds OPT at the client.
    pub fn reference(&mut self, b: Block, next_use: u64) {
        self.requests += 1;
        self.served = None;
        self.client_demoted = false;
        self.current.clear();
        self.current.push(Event::Read(b));
        self.descend(0, next_use);
    }

    /// Replays what the client passed down for one reference that missed it (recorded by a run
    /// of the client alone, whose counters stand in for level 0's): the read of `b`, and the
    /// eviction of `victim`.
    pub(super) fn replay_client_miss(&mut self, b: Block, victim: Option<Block>) {
        self.current.clear();
        self.current.push(Event::Read(b));
        let notice = match self.levels[0].notify {
            Notify::Nothing => None,
            Notify::Demoted => victim,
            Notify::Tracked => self.levels[0]
                .slots
                .as_mut()
                .expect("tracked levels keep slots")
                .read_into(b, victim),
        };
        if let Some(v) = notice {
            self.current.push(Event::Evicted(v));
        }
        self.descend(1, NEVER);
    }

    /// Handles the events in `current` at level `from` and every level below.
    pub(super) fn descend(&mut self, from: usize, next_use: u64) {
        for i in from..self.levels.len() {
            self.below.clear();
            let mut k = 0;
            while k < self.current.len() {
                let e = self.current[k];
                k += 1;
                match e {
                    Event::Read(x) => self.read(i, x, if i == 0 { next_use } else { NEVER }),
                    Event::Evicted(v) => self.notice(i, v),
                }
            }
            std::mem::swap(&mut self.current, &mut self.below);
            if self.current.is_empty() {
                return;
            }
        }
    }

    /// The demand read reaches level `i`.
    pub(super) fn read(&mut self, i: usize, b: Block, next_use: u64) {
        let level = &mut self.levels[i];
        if let Some(n) = level.arrivals.get_mut(b as usize) {
            *n = n.saturating_add(1);
        }
        let unused =
            level.cache.frames().is_resident(b) && level.cache.frames().is_unused_prefetch(b);
        let hit = if level.placement == Placement::Access {
            level.cache.access(b, next_use) == crate::cache::level::Outcome::Hit
        } else {
            level.cache.lookup(b, next_use)
        };
        if hit {
            if unused {
                match Source::from_u8(level.source[b as usize]) {
                    Source::Reload => level.report.reloads_used += 1,
                    Source::Demotion => level.report.demotions_used += 1,
                    _ => {}
                }
            }
            self.served = Some(i);
            #[cfg(test)]
            self.step(Step::Hit { level: i, block: b });
            if self.levels[i].placement == Placement::Exclusive {
                let level = &mut self.levels[i];
                level.cache.remove(b);
                level.source[b as usize] = Source::None as u8;
                level.report.handed_up += 1;
                if let Some(s) = &mut level.slots {
                    s.release(b);
                }
                #[cfg(test)]
                self.step(Step::HandUp { level: i, block: b });
            }
            return;
        }
        #[cfg(test)]
        self.step(Step::Miss { level: i, block: b });
        if i + 1 == self.levels.len() {
            self.disk_reads += 1;
            #[cfg(test)]
            self.step(Step::DiskRead { block: b });
        } else {
            self.below.push(Event::Read(b));
        }
        let level = &mut self.levels[i];
        if level.placement == Placement::Access && level.cache.frames().is_resident(b) {
            level.report.placed_on_access += 1;
            let victim = level.cache.last_victim();
            self.placed(i, b, Source::Access, victim);
        }
    }

    /// Level `i` hears that the level above evicted `v`.
    pub(super) fn notice(&mut self, i: usize, v: Block) {
        let bs = self.block_size as u64;
        let level = &mut self.levels[i];
        let how = match level.placement {
            Placement::Access => return,
            Placement::Eviction { threshold } => {
                level.report.eviction_notices += 1;
                if level.cache.frames().is_resident(v) {
                    level.report.already_resident += 1;
                    return;
                }
                if threshold > 1 && level.arrivals[v as usize] < threshold {
                    level.report.reloads_skipped += 1;
                    #[cfg(test)]
                    self.step(Step::Skip { level: i, block: v });
                    return;
                }
                Source::Reload
            }
            Placement::Demote | Placement::Exclusive => {
                level.report.eviction_notices += 1;
                level.report.demotions += 1;
                level.report.demotion_bytes += bs;
                if level.cache.frames().is_resident(v) {
                    debug_assert!(level.placement != Placement::Exclusive);
                    level.report.already_resident += 1;
                    return;
                }
                Source::Demotion
            }
        };
        if how == Source::Reload {
            if let Some(d) = &mut self.deferred {
                // The device runs it in idle time and completes it later.
                d.push((i, v));
                return;
            }
        }
        self.place_by(i, v, how);
    }

    /// Places `v` at level `i` by reload or demotion, with the bookkeeping and the notices below.
    pub(super) fn place_by(&mut self, i: usize, v: Block, how: Source) {
        let level = &mut self.levels[i];
        if !level.cache.prefetch(v, NEVER) {
            return;
        }
        let victim = level.cache.last_victim();
        // An exclusive level below gives the block up to whatever places it above, and then
        // serves the reload itself.
        let from_below = self.hand_up_below(i, v);
        let level = &mut self.levels[i];
        match how {
            Source::Reload => {
                level.report.reloads_issued += 1;
                if from_below {
                    level.report.reloads_from_below += 1;
                } else if self.deferred.is_none() {
                    // Timed reloads count as disk requests when the disk starts them.
                    self.disk_reloads += 1;
                }
            }
            _ => level.report.demotions_placed += 1,
        }
        self.placed(i, v, how, victim);
    }

    /// If the level below `i` is exclusive and holds `b`, it hands `b` up; returns whether it did.
    pub(super) fn hand_up_below(&mut self, i: usize, b: Block) -> bool {
        let Some(low) = self.levels.get_mut(i + 1) else {
            return false;
        };
        if low.placement != Placement::Exclusive || !low.cache.frames().is_resident(b) {
            return false;
        }
        if low.cache.remove(b) && low.source[b as usize] == Source::Demotion as u8 {
            low.report.demotions_unused_handed_up += 1;
        }
        low.source[b as usize] = Source::None as u8;
        low.report.handed_up += 1;
        if let Some(s) = &mut low.slots {
            s.release(b);
        }
        #[cfg(test)]
        self.step(Step::HandUp {
            level: i + 1,
            block: b,
        });
        true
    }

    /// Whether the level below `i` is exclusive and holds `b` (it would serve a reload of `b`).
    pub(super) fn exclusive_below_holds(&self, i: usize, b: Block) -> bool {
        self.levels.get(i + 1).is_some_and(|low| {
            low.placement == Placement::Exclusive && low.cache.frames().is_resident(b)
        })
    }

    /// A timed reload of `v` for level `i` has its data: places it and passes on what it
    /// evicts. Returns false when `v` is resident already (the reload is then cancelled).
    pub(super) fn complete_reload(&mut self, i: usize, v: Block) -> bool {
        if self.levels[i].cache.frames().is_resident(v) {
            return false;
        }
        self.below.clear();
        self.place_by(i, v, Source::Reload);
        std::mem::swap(&mut self.current, &mut self.below);
        self.descend(i + 1, NEVER);
        true
    }

    /// `b` entered level `i` by `how`, evicting `victim`: bookkeeping, and the notice below.
    pub(super) fn placed(&mut self, i: usize, b: Block, how: Source, victim: Option<Victim>) {
        #[cfg(test)]
        self.step(Step::Place {
            level: i,
            block: b,
            how,
        });
        let level = &mut self.levels[i];
        level.source[b as usize] = how as u8;
        if let Some(v) = victim {
            let was = Source::from_u8(std::mem::replace(
                &mut level.source[v.block as usize],
                Source::None as u8,
            ));
            if v.unused_prefetch {
                match was {
                    Source::Reload => level.report.reloads_wasted += 1,
                    Source::Demotion => level.report.demotions_wasted += 1,
                    _ => {}
                }
            }
        }
        let notice = match level.notify {
            Notify::Nothing => None,
            Notify::Demoted => {
                self.client_demoted |= i == 0 && victim.is_some();
                victim.map(|v| v.block)
            }
            Notify::Tracked => {
                let slots = level.slots.as_mut().expect("tracked levels keep slots");
                let detected = slots.read_into(b, victim.map(|v| v.block));
                debug_assert_eq!(detected, victim.map(|v| v.block));
                detected
            }
        };
        #[cfg(test)]
        if let Some(v) = victim {
            self.step(Step::Evict {
                level: i,
                block: v.block,
            });
        }
        if let Some(v) = notice {
            self.below.push(Event::Evicted(v));
        }
    }

    #[cfg(test)]
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

    pub(super) fn report_level(&self, i: usize) -> LevelReport {
        let level = &self.levels[i];
        let stats = level.cache.stats();
        let frames = level.cache.frames();
        let mut r = level.report.clone();
        r.requests = stats.requests;
        r.hits = stats.hits;
        r.misses = stats.misses;
        r.hit_ratio = stats.hit_ratio();
        r.evictions = stats.evictions;
        r.resident = frames.len() as u64;
        let unused_from = |how: Source| {
            frames
                .resident_blocks()
                .filter(|&b| frames.is_unused_prefetch(b) && level.source[b as usize] == how as u8)
                .count() as u64
        };
        r.reloads_unused_resident = unused_from(Source::Reload);
        r.demotions_unused_resident = unused_from(Source::Demotion);
        r
    }

    /// Counters per level so far.
    pub fn reports(&self) -> Vec<LevelReport> {
        (0..self.levels.len())
            .map(|i| {
                #[cfg(test)]
                if let (Some(r), 0) = (&self.client_report, i) {
                    return r.clone();
                }
                self.report_level(i)
            })
            .collect()
    }

    #[cfg(test)]
    /// The results so far, for a trace named `source` with `unique` blocks.
    pub fn result(&self, source: &str, label: String, unique: usize) -> HierarchyResult {
        let levels = self.reports();
        let hits: u64 = levels.iter().map(|l| l.hits).sum();
        let demotion_bytes = levels.iter().map(|l| l.demotion_bytes).sum();
        HierarchyResult {
            trace: source.to_string(),
            hierarchy: label,
            block_size: self.block_size,
            unique_blocks: unique as u64,
            requests: self.requests,
            hits,
            hit_ratio: if self.requests == 0 {
                0.0
            } else {
                hits as f64 / self.requests as f64
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
