//! The levels' state and how one read steps through them: placement, notices, reloads,
//! demotions, hand-ups and the conservation checks.

use super::slots::Slots;
use super::{HierarchySpec, LevelReport, Placement};
use crate::cache::level::{CacheLevel, Victim};
use crate::error::{Error, Result};
use crate::policy::registry::PolicyVisitor;
use crate::policy::{Block, Policy, NEVER};

/// Records a step in the reference model's log (`steps.rs`, `Hierarchy::with_log`): test code
/// only, so a run has no branch for it.
macro_rules! record {
    ($hierarchy:expr, if let $pattern:pat = $value:expr => $($step:tt)*) => {
        #[cfg(test)]
        if let $pattern = $value {
            $hierarchy.record(super::steps::Step::$($step)*);
        }
    };
    ($hierarchy:expr, $($step:tt)*) => {
        #[cfg(test)]
        $hierarchy.record(super::steps::Step::$($step)*);
    };
}

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
    pub(super) fn from_u8(v: u8) -> Source {
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
/// [`Below`](super::Below); the reference model steps it one demand reference at a time
/// (`steps.rs`, test code only).
pub struct Hierarchy {
    pub(super) levels: Vec<Level>,
    pub(super) block_size: u32,
    pub(super) disk_reads: u64,
    pub(super) disk_reloads: u64,
    pub(super) current: Vec<Event>,
    pub(super) below: Vec<Event>,
    /// What only the reference model keeps: its request count, log of steps and replayed
    /// client (test code only: `steps.rs`).
    #[cfg(test)]
    pub(super) model: super::steps::Model,
    /// The level that served the current reference (`None`: the disk).
    pub(super) served: Option<usize>,
    /// The client sent a block down while handling the current reference.
    pub(super) client_demoted: bool,
    /// Reloads waiting for a device the caller runs (level, block), when it defers them: the
    /// file engine's (`Below` with `BelowTiming`), the one clock of a timed hierarchy.
    pub(super) deferred: Option<Vec<(usize, Block)>>,
}

impl Hierarchy {
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
            disk_reads: 0,
            disk_reloads: 0,
            current: Vec::with_capacity(8),
            below: Vec::with_capacity(8),
            #[cfg(test)]
            model: Default::default(),
            served: None,
            client_demoted: false,
            deferred: None,
        })
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
            record!(self, Hit { level: i, block: b });
            if self.levels[i].placement == Placement::Exclusive {
                let level = &mut self.levels[i];
                level.cache.remove(b);
                level.source[b as usize] = Source::None as u8;
                level.report.handed_up += 1;
                if let Some(s) = &mut level.slots {
                    s.release(b);
                }
                record!(self, HandUp { level: i, block: b });
            }
            return;
        }
        record!(self, Miss { level: i, block: b });
        if i + 1 == self.levels.len() {
            self.disk_reads += 1;
            record!(self, DiskRead { block: b });
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
                    record!(self, Skip { level: i, block: v });
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
        record!(
            self,
            HandUp {
                level: i + 1,
                block: b,
            }
        );
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
        record!(
            self,
            Place {
                level: i,
                block: b,
                how,
            }
        );
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
        record!(self, if let Some(v) = victim => Evict { level: i, block: v.block });
        if let Some(v) = notice {
            self.below.push(Event::Evicted(v));
        }
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
            .map(|i| self.report_level(i))
            .collect()
    }
}
