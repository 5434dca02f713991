//! Multi-level caches: a client cache over one or more lower caches (a storage server's), each
//! level with its own policy, size and placement rule, in one block-level simulation.
//!
//! Level 0 is the client: every demand reference reaches it and a miss places the block there.
//! A reference that misses level `i` goes on to level `i + 1`, and one that misses every level is
//! a disk read. How a block enters a lower level is that level's [`Placement`]:
//!
//! - `access` (inclusive, the common case): placed when a reference misses it on the way down;
//! - `eviction` (Chen, Zhou and Li, "Eviction-based cache placement for storage caches", USENIX
//!   ATC 2003): placed when the level above evicts it. The level learns of the eviction from a
//!   client content-tracking table (one entry per buffer slot of the level above, see
//!   [`ContentTable`]) and reloads the block from disk; a miss places nothing. With a threshold
//!   `N` (`eviction:N`) only blocks that reached this level at least `N` times are reloaded;
//! - `demote` (Wong and Wilkes's DEMOTE): the level above sends each block it evicts down itself,
//!   with no disk I/O but one block of transfer; a miss places nothing;
//! - `exclusive`: as `demote`, and a hit hands the block up, leaving this level, so the two
//!   levels never hold the same block. When the level above places a block by reload or demotion
//!   while this level holds it, this level hands it up too (and serves the reload: no disk read).
//!
//! Reloaded and demoted blocks enter a level the way a prefetched block does (resident, not yet
//! referenced: [`crate::policy::InsertKind::Prefetch`]), so each policy applies its own rule for
//! blocks that arrive unasked; their first hit is counted as a reload or demotion *used*, their
//! eviction before any hit as *wasted*.
//!
//! Order of events for one demand reference: the read goes down level by level first; then the
//! eviction notices and demotions it caused are handled, level by level from the top, each placed
//! block possibly evicting another and notifying the level below in turn. In this untimed model a
//! reload completes at once; the timing model decides when it would really run.
//!
//! Documented choices:
//! - A notice for a block the level already holds places nothing and leaves the policy's order as
//!   it is (`already_resident`); the block was placed before and has been referenced since.
//! - A level that does not place on access still sees every reference that reaches it; its
//!   policy may record a miss in its history ([`crate::policy::Policy::on_unplaced_miss`]: MQ
//!   raises the block's count in Qout). At such levels MQ defaults to `unused_count=keep`, so a
//!   placed block evicted before its first hit keeps the count of its earlier references.
//! - Reloads go to the disk even when a level further down holds the block, as in the paper.
//! - OPT needs the future of a level's own request stream, which depends on the levels above, so
//!   it is accepted at the client level only.

use crate::error::{Error, Result};
use crate::level::{CacheLevel, Victim};
use crate::policy::registry::{self, parse_policies, PolicySpec, PolicyVisitor, Preset};
use crate::policy::{Block, Policy, NEVER};
pub use crate::report::LevelReport;
use crate::size::CacheSize;
use crate::trace::dense;
use crate::PreparedTrace;
use rayon::prelude::*;

pub mod below;
pub mod timing;
pub use below::Below;
pub use timing::{HierarchyTiming, TimingReport};

/// How blocks enter a lower level of a hierarchy.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Placed when a reference misses the level (inclusive).
    Access,
    /// Placed, by a reload from disk, when the level above evicts it, if it reached this level
    /// at least `threshold` times (1 reloads every evicted block).
    Eviction {
        /// Fewest requests a block must have made at this level to be reloaded.
        threshold: u32,
    },
    /// Placed when the level above sends down a block it evicts.
    Demote,
    /// As `Demote`, and a hit hands the block up, out of this level.
    Exclusive,
}

impl Placement {
    /// Parses `access`, `eviction`, `eviction:N` (N >= 1), `demote` or `exclusive`.
    pub fn parse(text: &str) -> Result<Placement> {
        let t = text.trim().to_ascii_lowercase();
        let bad = || {
            Error::config(
                "placement",
                text,
                "expected access, eviction, eviction:N (reload threshold N >= 1), demote or exclusive",
            )
        };
        Ok(match t.as_str() {
            "access" | "inclusive" => Placement::Access,
            "eviction" => Placement::Eviction { threshold: 1 },
            "demote" => Placement::Demote,
            "exclusive" => Placement::Exclusive,
            _ => {
                let n = t.strip_prefix("eviction:").ok_or_else(bad)?;
                let threshold: u32 = n.trim().parse().map_err(|_| bad())?;
                if threshold == 0 {
                    return Err(bad());
                }
                Placement::Eviction { threshold }
            }
        })
    }

    /// The name as it parses back.
    pub fn label(&self) -> String {
        match self {
            Placement::Access => "access".into(),
            Placement::Eviction { threshold: 1 } => "eviction".into(),
            Placement::Eviction { threshold } => format!("eviction:{threshold}"),
            Placement::Demote => "demote".into(),
            Placement::Exclusive => "exclusive".into(),
        }
    }
}

/// One level of a hierarchy as configured.
#[derive(Clone, Debug)]
pub struct LevelSpec {
    /// The name shown in results (`client`, `storage`).
    pub name: String,
    /// Its replacement policy.
    pub policy: PolicySpec,
    /// Its size.
    pub size: CacheSize,
    /// How blocks enter it; always [`Placement::Access`] for the top level.
    pub placement: Placement,
}

/// A hierarchy as configured: level 0 is the client, the last level sits above the disk.
#[derive(Clone, Debug)]
pub struct HierarchySpec {
    /// The levels, top first.
    pub levels: Vec<LevelSpec>,
}

impl HierarchySpec {
    /// Parses `NAME:POLICY:SIZE[:PLACEMENT],...` (top level first), e.g.
    /// `client:lru:256MiB,storage:mq:512MiB:eviction:2`. Lower levels without a placement take
    /// `default_placement`; `params` (`POLICY.KEY=VALUE`) apply to every level with that policy.
    pub fn parse(
        text: &str,
        params: &[String],
        preset: Preset,
        default_placement: Placement,
    ) -> Result<HierarchySpec> {
        let bad = |msg: String| Error::config("levels", text, msg);
        let mut parts = Vec::new();
        for (i, item) in text.split(',').enumerate() {
            let fields: Vec<&str> = item.split(':').map(str::trim).collect();
            if fields.len() < 3 || fields[..3].iter().any(|f| f.is_empty()) {
                return Err(bad(format!(
                    "level {} '{item}': expected NAME:POLICY:SIZE[:PLACEMENT]",
                    i + 1
                )));
            }
            let placement = if fields.len() > 3 {
                if i == 0 {
                    return Err(bad(format!(
                        "level 1 '{item}' is the client: every reference reaches it, so it takes no placement"
                    )));
                }
                Placement::parse(&fields[3..].join(":"))?
            } else {
                default_placement
            };
            let size = CacheSize::parse(fields[2])
                .map_err(|e| bad(format!("level {} '{item}': {e}", i + 1)))?;
            parts.push((
                fields[0].to_string(),
                fields[1].to_string(),
                size,
                placement,
            ));
        }
        // One level is allowed: it is the plain run of that policy and size (the same engine).
        if parts.is_empty() {
            return Err(bad("a hierarchy needs at least one level".into()));
        }
        for (i, p) in parts.iter().enumerate() {
            if parts[..i].iter().any(|q| q.0 == p.0) {
                return Err(bad(format!("level name '{}' is used twice", p.0)));
            }
        }
        let names: Vec<&str> = parts.iter().map(|p| p.1.as_str()).collect();
        let specs = parse_policies(&names.join(","), params, preset)?;
        let levels = parts
            .into_iter()
            .zip(specs)
            .enumerate()
            .map(|(i, ((name, _, size, placement), policy))| LevelSpec {
                name,
                policy,
                size,
                placement: if i == 0 { Placement::Access } else { placement },
            })
            .collect();
        Ok(HierarchySpec { levels })
    }

    /// A short description: `client:lru:1000 > storage:mq:2000:eviction`.
    pub fn label(&self) -> String {
        self.levels
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let base = format!("{}:{}:{}", l.name, l.policy.label(), l.size);
                if i == 0 {
                    base
                } else {
                    format!("{base}:{}", l.placement.label())
                }
            })
            .collect::<Vec<_>>()
            .join(" > ")
    }
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
    fn from_u8(v: u8) -> Source {
        match v {
            1 => Source::Access,
            2 => Source::Reload,
            3 => Source::Demotion,
            _ => Source::None,
        }
    }
}

/// Marks a free slot in a [`ContentTable`] or a block without a slot.
const NO_SLOT: u32 = u32::MAX;

/// The client content-tracking table of the paper's section 4: for each buffer slot of the level
/// above, the block last read into it. A read of block `b` into a slot holding another block `v`
/// means `v` was evicted to make room: the notice the lower level acts on. The table sees only
/// (slot, block) pairs, as a filter driver sees the buffer address of each read.
#[derive(Clone, Debug, Default)]
pub struct ContentTable {
    held: Vec<Block>,
}

impl ContentTable {
    /// Records a read of `b` into `slot`; returns the block it displaced, if any.
    pub fn observe_read(&mut self, slot: u32, b: Block) -> Option<Block> {
        let s = slot as usize;
        if s >= self.held.len() {
            self.held.resize(s + 1, NO_SLOT);
        }
        let old = std::mem::replace(&mut self.held[s], b);
        (old != NO_SLOT && old != b).then_some(old)
    }

    /// Forgets the content of `slot`: its block left without being replaced (handed up).
    pub fn vacate(&mut self, slot: u32) {
        if let Some(x) = self.held.get_mut(slot as usize) {
            *x = NO_SLOT;
        }
    }

    /// Number of slots seen so far (the table grows with the buffer addresses it sees).
    pub fn slots(&self) -> usize {
        self.held.len()
    }
}

/// The buffer slots of a level whose lower neighbour places on eviction: which slot holds each
/// block (a freed victim's slot is reused by the block read in its place), and the tracking
/// table the lower level learns evictions from.
#[derive(Clone, Debug)]
struct Slots {
    slot_of: Vec<u32>,
    free: Vec<u32>,
    next: u32,
    table: ContentTable,
}

impl Slots {
    fn new(universe: usize) -> Slots {
        Slots {
            slot_of: vec![NO_SLOT; universe],
            free: Vec::new(),
            next: 0,
            table: ContentTable::default(),
        }
    }

    /// `b` was read into the level after `victim` left; returns the eviction the table detects.
    fn read_into(&mut self, b: Block, victim: Option<Block>) -> Option<Block> {
        let slot = match victim {
            Some(v) => std::mem::replace(&mut self.slot_of[v as usize], NO_SLOT),
            None => self.free.pop().unwrap_or_else(|| {
                self.next += 1;
                self.next - 1
            }),
        };
        self.slot_of[b as usize] = slot;
        self.table.observe_read(slot, b)
    }

    /// `b` left without a replacement.
    fn release(&mut self, b: Block) {
        let slot = std::mem::replace(&mut self.slot_of[b as usize], NO_SLOT);
        if slot != NO_SLOT {
            self.table.vacate(slot);
            self.free.push(slot);
        }
    }
}

/// One hierarchy run's configuration and results.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HierarchyResult {
    /// Trace source (path).
    pub trace: String,
    /// The hierarchy, as [`HierarchySpec::label`] prints it.
    pub hierarchy: String,
    /// Bytes per block.
    pub block_size: u32,
    /// Distinct blocks in the trace.
    pub unique_blocks: u64,
    /// Demand block references (all reach the client).
    pub requests: u64,
    /// References served by some level.
    pub hits: u64,
    /// Hits over requests.
    pub hit_ratio: f64,
    /// One entry per level, top first.
    pub levels: Vec<LevelReport>,
    /// Demand reads that missed every level.
    pub disk_reads: u64,
    /// Reloads issued to the disk by eviction-based levels.
    pub disk_reloads: u64,
    /// Every disk request: demand reads plus reloads.
    pub disk_requests: u64,
    /// Bytes moved by demotions, all levels.
    pub demotion_bytes: u64,
    /// Times, with the timing model.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub timing: Option<TimingReport>,
}

impl HierarchyResult {
    /// The run as one row of results: the hierarchy as the policy, hits anywhere as hits, every
    /// level in `levels`, disk requests (demand reads and reloads) in the I/O counters.
    pub fn summary(&self) -> crate::report::RunResult {
        let mut io = crate::report::IoStats {
            disk_requests: self.disk_requests,
            sync_requests: self.disk_reads,
            sync_blocks: self.disk_reads,
            async_requests: self.disk_reloads,
            async_blocks: self.disk_reloads,
            sync_blocks_per_request: if self.disk_reads > 0 { 1.0 } else { 0.0 },
            async_blocks_per_request: if self.disk_reloads > 0 { 1.0 } else { 0.0 },
            ..Default::default()
        };
        if let Some(t) = &self.timing {
            // The same timed keys as a file-engine row, from the hierarchy's clock.
            let s = |ns: u64| ns as f64 / 1e9;
            let busy = t.demand_disk_ns + t.reload_disk_ns;
            let wait = t.run_time_ns.saturating_sub(t.proc_ns);
            io.exec_time_s = Some(s(t.run_time_ns));
            io.proc_time_s = Some(s(t.proc_ns));
            io.io_time_s = Some(s(wait));
            io.io_wait_s = Some(s(wait));
            io.disk_busy_s = Some(s(busy));
            io.disk_utilization = Some(if t.run_time_ns == 0 {
                0.0
            } else {
                busy as f64 / t.run_time_ns as f64
            });
            io.mean_response_ms = Some(t.mean_response_ns / 1e6);
        }
        crate::report::RunResult {
            trace: self.trace.clone(),
            policy: self.hierarchy.clone(),
            cache_blocks: self.levels.iter().map(|l| l.cache_blocks).sum(),
            block_size: self.block_size,
            unique_blocks: self.unique_blocks,
            requests: self.requests,
            hits: self.hits,
            misses: self.requests - self.hits,
            hit_ratio: self.hit_ratio,
            evictions: self.levels.iter().map(|l| l.evictions).sum(),
            prefetch: None,
            io: Some(io),
            levels: Some(self.levels.clone()),
        }
    }
}

/// What reaches a level while one demand reference is handled.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Event {
    /// The demand read, still unserved.
    Read(Block),
    /// The level above evicted this block (detected or demoted).
    Evicted(Block),
}

/// One step of a run, for exact tests and debugging (see [`Hierarchy::with_log`]).
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
struct Boxed;

impl PolicyVisitor for Boxed {
    type Output = Box<dyn Policy>;
    fn visit<P: Policy + 'static>(self, policy: P) -> Box<dyn Policy> {
        Box::new(policy)
    }
}

/// What a level tells the level below about its evictions.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Notify {
    /// Nothing: the level below places on access.
    Nothing,
    /// Through the content-tracking table (eviction-based placement below).
    Tracked,
    /// The block itself is sent down (demote or exclusive placement below).
    Demoted,
}

struct Level {
    cache: CacheLevel<Box<dyn Policy>>,
    placement: Placement,
    notify: Notify,
    source: Vec<u8>,
    arrivals: Vec<u32>,
    slots: Option<Slots>,
    report: LevelReport,
}

/// A hierarchy being simulated, one demand reference at a time.
pub struct Hierarchy {
    levels: Vec<Level>,
    block_size: u32,
    requests: u64,
    disk_reads: u64,
    disk_reloads: u64,
    current: Vec<Event>,
    below: Vec<Event>,
    log: Option<Vec<Step>>,
    /// Level 0's counters when its output is replayed rather than simulated.
    client_report: Option<LevelReport>,
    /// The level that served the current reference (`None`: the disk).
    served: Option<usize>,
    /// The client sent a block down while handling the current reference.
    client_demoted: bool,
    /// The timing model, when on.
    timing: Option<Box<timing::Clock>>,
}

impl Hierarchy {
    /// Builds the levels of `spec` for a trace of `unique` blocks of `block_size` bytes.
    pub fn new(spec: &HierarchySpec, unique: usize, block_size: u32) -> Result<Hierarchy> {
        Hierarchy::with_universe(spec, unique, unique, block_size)
    }

    /// Like [`Hierarchy::new`], with percent sizes taken of `unique` blocks over ids
    /// `0..universe` (a file-level layout holds ids no demand read references).
    pub fn with_universe(
        spec: &HierarchySpec,
        unique: usize,
        universe: usize,
        block_size: u32,
    ) -> Result<Hierarchy> {
        let mut levels: Vec<Level> = Vec::with_capacity(spec.levels.len());
        for (i, l) in spec.levels.iter().enumerate() {
            let capacity = l.size.resolve(unique, block_size)?;
            let mut policy_spec = l.policy.clone();
            if i > 0
                && l.placement != Placement::Access
                && policy_spec.info.name == "mq"
                && !policy_spec.params.contains_key("unused_count")
            {
                policy_spec.set("unused_count", "keep")?;
            }
            let policy = registry::build(&policy_spec, capacity, universe, Boxed)?;
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
            requests: 0,
            disk_reads: 0,
            disk_reloads: 0,
            current: Vec::with_capacity(8),
            below: Vec::with_capacity(8),
            log: None,
            client_report: None,
            served: None,
            client_demoted: false,
            timing: None,
        })
    }

    /// Records every [`Step`] from now on.
    pub fn with_log(mut self) -> Hierarchy {
        self.log = Some(Vec::new());
        self
    }

    /// The steps recorded so far (empty unless [`Hierarchy::with_log`]).
    pub fn log(&self) -> &[Step] {
        self.log.as_deref().unwrap_or(&[])
    }

    /// Whether level `level` holds `b` now.
    pub fn holds(&self, level: usize, b: Block) -> bool {
        self.levels[level].cache.frames().is_resident(b)
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

    fn step(&mut self, s: Step) {
        if let Some(log) = &mut self.log {
            log.push(s);
        }
    }

    /// One demand reference to `b`; `next_use` feeds OPT at the client.
    pub fn reference(&mut self, b: Block, next_use: u64) {
        if self.timing.is_some() {
            self.timed_reference(b, next_use);
        } else {
            self.handle(b, next_use);
        }
    }

    /// The cache side of one demand reference.
    fn handle(&mut self, b: Block, next_use: u64) {
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
    fn replay_client_miss(&mut self, b: Block, victim: Option<Block>) {
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
    fn descend(&mut self, from: usize, next_use: u64) {
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
    fn read(&mut self, i: usize, b: Block, next_use: u64) {
        let level = &mut self.levels[i];
        if let Some(n) = level.arrivals.get_mut(b as usize) {
            *n = n.saturating_add(1);
        }
        let unused =
            level.cache.frames().is_resident(b) && level.cache.frames().is_unused_prefetch(b);
        let hit = if level.placement == Placement::Access {
            level.cache.access(b, next_use) == crate::level::Outcome::Hit
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
            self.step(Step::Hit { level: i, block: b });
            if self.levels[i].placement == Placement::Exclusive {
                let level = &mut self.levels[i];
                level.cache.remove(b);
                level.source[b as usize] = Source::None as u8;
                level.report.handed_up += 1;
                if let Some(s) = &mut level.slots {
                    s.release(b);
                }
                self.step(Step::HandUp { level: i, block: b });
            }
            return;
        }
        self.step(Step::Miss { level: i, block: b });
        if i + 1 == self.levels.len() {
            self.disk_reads += 1;
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
    fn notice(&mut self, i: usize, v: Block) {
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
            if let Some(clock) = &mut self.timing {
                // With the timing model the reload waits for idle disk time (timing.rs).
                clock.queue_reload(i, v);
                return;
            }
        }
        self.place_by(i, v, how);
    }

    /// Places `v` at level `i` by reload or demotion, with the bookkeeping and the notices below.
    fn place_by(&mut self, i: usize, v: Block, how: Source) {
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
                } else if self.timing.is_none() {
                    // Timed reloads count as disk requests when the disk starts them.
                    self.disk_reloads += 1;
                }
            }
            _ => level.report.demotions_placed += 1,
        }
        self.placed(i, v, how, victim);
    }

    /// If the level below `i` is exclusive and holds `b`, it hands `b` up; returns whether it did.
    fn hand_up_below(&mut self, i: usize, b: Block) -> bool {
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
        self.step(Step::HandUp {
            level: i + 1,
            block: b,
        });
        true
    }

    /// `b` entered level `i` by `how`, evicting `victim`: bookkeeping, and the notice below.
    fn placed(&mut self, i: usize, b: Block, how: Source, victim: Option<Victim>) {
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

    fn report_level(&self, i: usize) -> LevelReport {
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
            .map(|i| match (&self.client_report, i) {
                (Some(r), 0) => r.clone(),
                _ => self.report_level(i),
            })
            .collect()
    }

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
            timing: self.timing.as_ref().map(|c| TimingReport {
                proc_ns: c.cfg.think_ns.saturating_mul(self.requests),
                ..c.report()
            }),
        }
    }
}

/// Runs every reference of `trace` through the hierarchy `spec`, timed when `timing` is given.
pub fn run_hierarchy(
    spec: &HierarchySpec,
    trace: &PreparedTrace,
    timing: Option<&HierarchyTiming>,
) -> Result<HierarchyResult> {
    let unique = trace.unique();
    let mut h = Hierarchy::new(spec, unique, trace.trace.block_size)?;
    if let Some(cfg) = timing {
        h = h.with_timing(cfg, &trace.trace.originals)?;
    }
    let oracle = h.levels[0].cache.policy.needs_oracle();
    for_each_reference(oracle, trace, |b, n| h.reference(b, n));
    Ok(h.result(&trace.trace.source, spec.label(), unique))
}

/// Calls `f(block, next_use)` for each reference, with next uses when `oracle` asks for them.
fn for_each_reference(oracle: bool, trace: &PreparedTrace, mut f: impl FnMut(Block, u64)) {
    if oracle {
        for (&b, &n) in trace.trace.refs.iter().zip(trace.next_uses()) {
            f(b, if n == dense::NEVER { NEVER } else { n as u64 });
        }
    } else {
        for &b in &trace.trace.refs {
            f(b, NEVER);
        }
    }
}

/// What a client level passes down over a whole trace: for each reference that missed it, the
/// block and the block it evicted (or [`NO_SLOT`]), with the client's own counters.
struct ClientRun {
    misses: Vec<(Block, Block)>,
    report: LevelReport,
    requests: u64,
}

/// Runs the client level of `spec` alone and records what it passes down.
fn record_client(spec: &HierarchySpec, trace: &PreparedTrace) -> Result<ClientRun> {
    let top = HierarchySpec {
        levels: vec![spec.levels[0].clone()],
    };
    let mut h = Hierarchy::new(&top, trace.unique(), trace.trace.block_size)?;
    let mut misses = Vec::new();
    let oracle = h.levels[0].cache.policy.needs_oracle();
    for_each_reference(oracle, trace, |b, n| {
        let before = h.disk_reads;
        h.reference(b, n);
        if h.disk_reads != before {
            let victim = h.levels[0].cache.last_victim();
            misses.push((b, victim.map_or(NO_SLOT, |v| v.block)));
        }
    });
    Ok(ClientRun {
        misses,
        report: h.report_level(0),
        requests: h.requests,
    })
}

/// Runs `spec` below a recorded client.
fn replay(
    spec: &HierarchySpec,
    trace: &PreparedTrace,
    client: &ClientRun,
) -> Result<HierarchyResult> {
    let unique = trace.unique();
    let mut h = Hierarchy::new(spec, unique, trace.trace.block_size)?;
    for &(b, v) in &client.misses {
        h.replay_client_miss(b, (v != NO_SLOT).then_some(v));
    }
    h.requests = client.requests;
    h.client_report = Some(LevelReport {
        name: spec.levels[0].name.clone(),
        ..client.report.clone()
    });
    Ok(h.result(&trace.trace.source, spec.label(), unique))
}

/// Runs each hierarchy in parallel (timed when `timing` is given); results come in the order
/// given. Untimed, the client level's behaviour does not depend on the levels below it, so
/// hierarchies sharing a client (same policy, parameters and size) simulate it once and replay
/// what it passes down.
pub fn run_hierarchies(
    specs: &[HierarchySpec],
    trace: &PreparedTrace,
    timing: Option<&HierarchyTiming>,
) -> Result<Vec<HierarchyResult>> {
    if timing.is_some() {
        return specs
            .par_iter()
            .map(|s| run_hierarchy(s, trace, timing))
            .collect();
    }
    let key = |s: &HierarchySpec| -> Result<String> {
        let top = &s.levels[0];
        let blocks = top.size.resolve(trace.unique(), trace.trace.block_size)?;
        Ok(format!(
            "{}|{:?}|{:?}|{blocks}",
            top.policy.info.name, top.policy.params, top.policy.preset
        ))
    };
    let keys: Vec<String> = specs.iter().map(key).collect::<Result<_>>()?;
    let mut shared: Vec<&String> = keys
        .iter()
        .filter(|k| keys.iter().filter(|x| x == k).count() > 1)
        .collect();
    shared.sort();
    shared.dedup();
    let clients: Vec<(&String, ClientRun)> = shared
        .par_iter()
        .map(|&k| {
            let first = specs[keys.iter().position(|x| x == k).expect("key of a spec")].clone();
            record_client(&first, trace).map(|c| (k, c))
        })
        .collect::<Result<_>>()?;
    specs
        .par_iter()
        .zip(&keys)
        .map(|(s, k)| match clients.iter().find(|(ck, _)| *ck == k) {
            Some((_, c)) => replay(s, trace, c),
            None => run_hierarchy(s, trace, None),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::CacheLevel;
    use proptest::prelude::*;
    use Source::{Access as A, Demotion as D, Reload as R};
    use Step::*;

    fn build(levels: &str, placement: &str, universe: usize) -> Hierarchy {
        let spec = HierarchySpec::parse(
            levels,
            &[],
            Preset::Paper,
            Placement::parse(placement).unwrap(),
        )
        .unwrap();
        Hierarchy::new(&spec, universe, 4096).unwrap().with_log()
    }

    fn run(levels: &str, placement: &str, refs: &[Block]) -> Hierarchy {
        let universe = refs.iter().max().map_or(1, |&m| m as usize + 1);
        let mut h = build(levels, placement, universe);
        for &b in refs {
            h.reference(b, NEVER);
            h.check().unwrap();
        }
        h
    }

    /// The steps of reference `t` (0-based), cut from the log at each client access.
    fn steps_of(h: &Hierarchy, t: usize) -> Vec<Step> {
        let starts: Vec<usize> = h
            .log()
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s, Hit { level: 0, .. } | Miss { level: 0, .. }))
            .map(|(i, _)| i)
            .collect();
        let end = starts.get(t + 1).copied().unwrap_or(h.log().len());
        h.log()[starts[t]..end].to_vec()
    }

    const TRACE: [Block; 8] = [0, 1, 2, 0, 1, 3, 2, 0];

    #[test]
    fn two_level_lru_access_placement_by_hand() {
        // Client and storage of 2 blocks each, both LRU, storage inclusive: the storage sees
        // exactly the client's misses in the same order and always holds what the client holds,
        // so it never hits.
        let h = run("c:lru:2,s:lru:2", "access", &TRACE);
        let r = h.reports();
        assert_eq!((r[0].hits, r[0].misses), (0, 8));
        assert_eq!((r[1].requests, r[1].hits, r[1].placed_on_access), (8, 0, 8));
        assert_eq!(r[1].evictions, 6);
        assert_eq!(h.resident(0), vec![0, 2]);
        assert_eq!(h.resident(1), vec![0, 2]);
        assert_eq!(
            steps_of(&h, 5),
            vec![
                Miss { level: 0, block: 3 },
                Place {
                    level: 0,
                    block: 3,
                    how: A
                },
                Evict { level: 0, block: 0 },
                Miss { level: 1, block: 3 },
                DiskRead { block: 3 },
                Place {
                    level: 1,
                    block: 3,
                    how: A
                },
                Evict { level: 1, block: 0 },
            ]
        );
        let res = h.result("t", "x".into(), 4);
        assert_eq!(
            (res.disk_reads, res.disk_reloads, res.disk_requests),
            (8, 0, 8)
        );
    }

    #[test]
    fn two_level_lru_eviction_placement_by_hand() {
        // Trace 0 1 2 0 1 3 2 0, client LRU 2, storage LRU 2 placing on eviction (lists MRU
        // first):
        // t0 0: client miss, places 0; storage miss; disk.
        // t1 1: client miss, places 1; storage miss; disk.
        // t2 2: client evicts 0; storage misses 2; disk; reload 0 -> S [0].
        // t3 0: client evicts 1; storage hits 0 (reload used); reload 1 -> S [1 0].
        // t4 1: client evicts 2; storage hits 1 (used) -> [1 0]; reload 2 evicts 0 -> [2 1].
        // t5 3: client evicts 0; storage misses 3; disk; reload 0 evicts 1 -> [0 2].
        // t6 2: client evicts 1; storage hits 2 (used) -> [2 0]; reload 1 evicts 0, never hit
        //       since its reload at t5: wasted -> [1 2].
        // t7 0: client evicts 3; storage misses 0; disk; reload 3 evicts 2 -> [3 1].
        let h = run("c:lru:2,s:lru:2", "eviction", &TRACE);
        let expect: Vec<Vec<Step>> = vec![
            vec![
                Miss { level: 0, block: 0 },
                Place {
                    level: 0,
                    block: 0,
                    how: A,
                },
                Miss { level: 1, block: 0 },
                DiskRead { block: 0 },
            ],
            vec![
                Miss { level: 0, block: 1 },
                Place {
                    level: 0,
                    block: 1,
                    how: A,
                },
                Miss { level: 1, block: 1 },
                DiskRead { block: 1 },
            ],
            vec![
                Miss { level: 0, block: 2 },
                Place {
                    level: 0,
                    block: 2,
                    how: A,
                },
                Evict { level: 0, block: 0 },
                Miss { level: 1, block: 2 },
                DiskRead { block: 2 },
                Place {
                    level: 1,
                    block: 0,
                    how: R,
                },
            ],
            vec![
                Miss { level: 0, block: 0 },
                Place {
                    level: 0,
                    block: 0,
                    how: A,
                },
                Evict { level: 0, block: 1 },
                Hit { level: 1, block: 0 },
                Place {
                    level: 1,
                    block: 1,
                    how: R,
                },
            ],
            vec![
                Miss { level: 0, block: 1 },
                Place {
                    level: 0,
                    block: 1,
                    how: A,
                },
                Evict { level: 0, block: 2 },
                Hit { level: 1, block: 1 },
                Place {
                    level: 1,
                    block: 2,
                    how: R,
                },
                Evict { level: 1, block: 0 },
            ],
            vec![
                Miss { level: 0, block: 3 },
                Place {
                    level: 0,
                    block: 3,
                    how: A,
                },
                Evict { level: 0, block: 0 },
                Miss { level: 1, block: 3 },
                DiskRead { block: 3 },
                Place {
                    level: 1,
                    block: 0,
                    how: R,
                },
                Evict { level: 1, block: 1 },
            ],
            vec![
                Miss { level: 0, block: 2 },
                Place {
                    level: 0,
                    block: 2,
                    how: A,
                },
                Evict { level: 0, block: 1 },
                Hit { level: 1, block: 2 },
                Place {
                    level: 1,
                    block: 1,
                    how: R,
                },
                Evict { level: 1, block: 0 },
            ],
            vec![
                Miss { level: 0, block: 0 },
                Place {
                    level: 0,
                    block: 0,
                    how: A,
                },
                Evict { level: 0, block: 3 },
                Miss { level: 1, block: 0 },
                DiskRead { block: 0 },
                Place {
                    level: 1,
                    block: 3,
                    how: R,
                },
                Evict { level: 1, block: 2 },
            ],
        ];
        for (t, want) in expect.iter().enumerate() {
            assert_eq!(&steps_of(&h, t), want, "reference {t}");
        }
        let s = &h.reports()[1];
        assert_eq!((s.requests, s.hits, s.placed_on_access), (8, 3, 0));
        assert_eq!(s.eviction_notices, 6);
        assert_eq!(
            (
                s.reloads_issued,
                s.reloads_used,
                s.reloads_wasted,
                s.reloads_unused_resident
            ),
            (6, 3, 1, 2)
        );
        assert_eq!(h.resident(1), vec![1, 3]);
        assert_eq!(h.source(1, 3), R);
        let res = h.result("t", "x".into(), 4);
        assert_eq!(
            (res.disk_reads, res.disk_reloads, res.disk_requests),
            (5, 6, 11)
        );
        assert_eq!(res.hits, 3);
        // The tracking table grew to the client's two buffer slots.
        assert_eq!(h.tracked_slots(1), 2);
    }

    #[test]
    fn reload_threshold_skips_blocks_seen_too_rarely() {
        // As above with eviction:2: every block has reached the storage once when the client
        // first evicts it, so t2..t4 reload nothing. t5: 0 has arrived twice (t0, t3): reloaded.
        // t6: 1 has arrived twice (t1, t4): reloaded; storage misses 2 first (never placed).
        // t7: storage hits 0; 3 arrived once: skipped.
        let h = run("c:lru:2,s:lru:2", "eviction:2", &TRACE);
        let s = &h.reports()[1];
        assert_eq!(s.reloads_skipped, 4);
        assert_eq!(s.reloads_issued, 2);
        assert_eq!(s.hits, 1);
        assert_eq!(steps_of(&h, 7)[3], Hit { level: 1, block: 0 });
        assert_eq!(steps_of(&h, 7)[4], Skip { level: 1, block: 3 });
        assert_eq!(h.resident(1), vec![0, 1]);
    }

    #[test]
    fn demote_and_exclusive_by_hand() {
        // Demote places what eviction-based placement reloads, at the same moments, so the
        // storage hits the same three times; no disk reload, six blocks sent down instead.
        let h = run("c:lru:2,s:lru:2", "demote", &TRACE);
        let s = &h.reports()[1];
        assert_eq!((s.hits, s.demotions, s.demotion_bytes), (3, 6, 6 * 4096));
        assert_eq!(
            (s.demotions_placed, s.demotions_used, s.demotions_wasted),
            (6, 3, 1)
        );
        assert_eq!(s.reloads_issued, 0);
        assert_eq!(h.source(1, 3), D);
        // Exclusive: t2 demotes 0 -> S [0]; t3 hits 0 and hands it up, 1 comes down -> [1];
        // t4 hits 1, hands it up, 2 down -> [2]; t5 misses 3, 0 down -> [0 2]; t6 hits 2, hands
        // it up, 1 down -> [1 0]; t7 hits 0, hands it up, 3 down -> [3 1]. Four hits.
        let h = run("c:lru:2,s:lru:2", "exclusive", &TRACE);
        let s = &h.reports()[1];
        assert_eq!(
            (s.hits, s.handed_up, s.demotions, s.evictions),
            (4, 4, 6, 0)
        );
        assert_eq!(h.resident(1), vec![1, 3]);
        assert_eq!(
            steps_of(&h, 7),
            vec![
                Miss { level: 0, block: 0 },
                Place {
                    level: 0,
                    block: 0,
                    how: A
                },
                Evict { level: 0, block: 3 },
                Hit { level: 1, block: 0 },
                HandUp { level: 1, block: 0 },
                Place {
                    level: 1,
                    block: 3,
                    how: D
                },
            ]
        );
        assert_eq!(h.result("t", "x".into(), 4).disk_reads, 4);
    }

    #[test]
    fn parses_levels_and_rejects_bad_ones() {
        let spec = HierarchySpec::parse(
            "client:lru:256MiB,storage:mq:512MiB:eviction:2,disk-cache:fbr:1%",
            &["mq.queues=4".into()],
            Preset::Paper,
            Placement::Demote,
        )
        .unwrap();
        assert_eq!(spec.levels.len(), 3);
        assert_eq!(spec.levels[0].placement, Placement::Access);
        assert_eq!(
            spec.levels[1].placement,
            Placement::Eviction { threshold: 2 }
        );
        assert_eq!(spec.levels[2].placement, Placement::Demote);
        assert_eq!(spec.levels[1].policy.raw("queues"), "4");
        assert_eq!(
            spec.label(),
            format!(
                "client:lru:{}B > storage:mq(queues=4):{}B:eviction:2 > disk-cache:fbr:1%:demote",
                256 << 20,
                512 << 20
            )
        );
        for (bad, why) in [
            ("client:lru:10:eviction,s:lru:10", "is the client"),
            ("client:lru,s:lru:10", "NAME:POLICY:SIZE"),
            ("a:lru:10,a:lru:10", "used twice"),
            ("a:lru:10,b:lru:10:eviction:0", "reload threshold"),
            ("a:lru:10,b:lru:10:sideways", "expected access"),
            ("a:lru:10,b:nope:10", "unknown policy"),
            ("a:lru:10,b:lru:0", "at least one block"),
        ] {
            let err = HierarchySpec::parse(bad, &[], Preset::Paper, Placement::Access)
                .unwrap_err()
                .to_string();
            assert!(err.contains(why), "{bad}: {err}");
        }
        let opt_low =
            HierarchySpec::parse("a:lru:2,b:opt:2", &[], Preset::Paper, Placement::Access).unwrap();
        let err = Hierarchy::new(&opt_low, 10, 4096)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("client level only"), "{err}");
    }

    /// Policies that work at any level (OPT only at the client).
    const LOWER: &[&str] = &[
        "lru",
        "fifo",
        "clock",
        "lirs",
        "clock-pro",
        "lrfu",
        "fbr",
        "arc",
        "car",
        "2q",
        "mq",
        "lru-k",
    ];
    const PLACEMENTS: &[&str] = &[
        "access",
        "eviction",
        "eviction:2",
        "eviction:3",
        "demote",
        "exclusive",
    ];

    fn level_strategy() -> impl Strategy<Value = (usize, usize, usize)> {
        (0..LOWER.len(), 1usize..7, 0..PLACEMENTS.len())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        /// Whatever the policies, sizes and placements: every resident block was placed by a
        /// counted mechanism, placements balance evictions, reloads issued = used + wasted +
        /// resident unused, exclusive levels never share a block with the level above, and the
        /// tracking table matches the client's buffers (all checked after every reference).
        #[test]
        fn conservation_holds_for_any_hierarchy(
            levels in proptest::collection::vec(level_strategy(), 2..4),
            refs in proptest::collection::vec(0u32..12, 1..150),
            timed in proptest::option::of((0u64..3000, 0usize..4)),
        ) {
            let text: Vec<String> = levels
                .iter()
                .enumerate()
                .map(|(i, &(p, c, pl))| {
                    if i == 0 {
                        format!("l{i}:{}:{c}", LOWER[p])
                    } else {
                        format!("l{i}:{}:{c}:{}", LOWER[p], PLACEMENTS[pl])
                    }
                })
                .collect();
            let mut h = build(&text.join(","), "access", 12);
            if let Some((think_us, queue)) = timed {
                // Reloads deferred to idle disk time, some dropped by a short queue.
                let cfg = HierarchyTiming {
                    think_ns: think_us * 1000,
                    reload_queue: queue,
                    ..HierarchyTiming::new(
                        crate::disk::DiskConfig::Fixed(crate::disk::fixed::FixedParams::default()),
                        "fixed",
                    )
                };
                h = h.with_timing(&cfg, &(0..12).collect::<Vec<u64>>()).unwrap();
            }
            for &b in &refs {
                h.reference(b, NEVER);
                if let Err(e) = h.check() {
                    prop_assert!(false, "{}: {e}", text.join(","));
                }
            }
            let res = h.result("t", "x".into(), 12);
            let served: u64 = res.levels.iter().map(|l| l.hits).sum();
            prop_assert_eq!(served + res.disk_reads, refs.len() as u64);
            if let Some(t) = &res.timing {
                prop_assert!(t.reloads_started + t.reloads_cancelled <= t.reloads_queued);
                prop_assert_eq!(t.reloads_started, res.disk_reloads);
            }
            prop_assert_eq!(res.disk_requests, res.disk_reads + res.disk_reloads);
            for (l, next) in res.levels.iter().zip(res.levels.iter().skip(1)) {
                prop_assert_eq!(l.misses, next.requests);
            }
        }

        /// In a hierarchy whose lower levels are all exclusive, no block is ever held twice.
        #[test]
        fn exclusive_hierarchies_never_hold_a_block_twice(
            sizes in proptest::collection::vec(1usize..6, 2..5),
            policies in proptest::collection::vec(0..LOWER.len(), 5),
            refs in proptest::collection::vec(0u32..16, 1..200),
        ) {
            let text: Vec<String> = sizes
                .iter()
                .enumerate()
                .map(|(i, c)| format!("l{i}:{}:{c}", LOWER[policies[i]]))
                .collect();
            let mut h = build(&text.join(","), "exclusive", 16);
            for &b in &refs {
                h.reference(b, NEVER);
                let mut seen = [false; 16];
                for lvl in 0..h.depth() {
                    for x in h.resident(lvl) {
                        prop_assert!(!seen[x as usize], "block {} held twice in {}", x, text.join(","));
                        seen[x as usize] = true;
                    }
                }
            }
        }

        /// Under access-based placement a lower level is an ordinary cache fed with the misses of
        /// the level above: its hits equal a lone level of the same policy run on that stream.
        #[test]
        fn access_placement_equals_a_lone_cache_on_the_miss_stream(
            top in 1usize..6, low in 1usize..8, p in 0..LOWER.len(),
            refs in proptest::collection::vec(0u32..12, 1..200),
        ) {
            let mut h = build(&format!("c:lru:{top},s:{}:{low}", LOWER[p]), "access", 12);
            for &b in &refs {
                h.reference(b, NEVER);
            }
            let misses: Vec<Block> = h
                .log()
                .iter()
                .filter_map(|s| match s {
                    Miss { level: 0, block } => Some(*block),
                    _ => None,
                })
                .collect();
            let spec = PolicySpec::parse(LOWER[p]).unwrap();
            let policy = registry::build(&spec, low, 12, Boxed).unwrap();
            let mut alone = CacheLevel::new(policy, low, 12);
            for &b in &misses {
                alone.access(b, NEVER);
            }
            prop_assert_eq!(h.reports()[1].hits, alone.stats().hits);
        }
    }

    #[test]
    fn grids_sharing_a_client_match_separate_runs() {
        let mut x = 88172645463325252u64;
        let refs: Vec<Block> = (0..6000)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // A hot set, a loop and noise, so every level sees hits and evictions.
                match x % 4 {
                    0 | 1 => (x >> 8) as Block % 40,
                    2 => 40 + (i % 120) as Block,
                    _ => 160 + (x >> 8) as Block % 200,
                }
            })
            .collect();
        let mut trace = crate::trace::BlockTrace {
            source: "synthetic".into(),
            block_size: 4096,
            refs: Vec::new(),
            originals: Vec::new(),
            write_mask: None,
            times: None,
        };
        let mut ids = std::collections::HashMap::new();
        for &b in &refs {
            let next = ids.len() as Block;
            let id = *ids.entry(b).or_insert(next);
            if id == next {
                trace.originals.push(b as u64);
            }
            trace.refs.push(id);
        }
        let t = PreparedTrace::new(trace);
        let mut specs = Vec::new();
        for client in ["c:lru:30", "c:opt:30", "c:2q:45"] {
            for low in ["s:mq:60", "s:lru:20", "s:fbr:90,d:lru:40:exclusive"] {
                for p in ["access", "eviction", "eviction:2", "demote", "exclusive"] {
                    let text = format!("{client},{low}");
                    specs.push(
                        HierarchySpec::parse(
                            &text,
                            &[],
                            Preset::Paper,
                            Placement::parse(p).unwrap(),
                        )
                        .unwrap(),
                    );
                }
            }
        }
        let shared = run_hierarchies(&specs, &t, None).unwrap();
        for (spec, got) in specs.iter().zip(&shared) {
            let alone = run_hierarchy(spec, &t, None).unwrap();
            assert_eq!(got, &alone, "{}", spec.label());
        }
        let lower_hits = shared.iter().filter(|r| r.levels[1].hits > 0).count();
        assert!(
            lower_hits > specs.len() * 3 / 4,
            "{lower_hits} of {}",
            specs.len()
        );
    }

    #[test]
    fn content_table_reports_the_displaced_block() {
        let mut t = ContentTable::default();
        assert_eq!(t.observe_read(0, 5), None);
        assert_eq!(t.observe_read(1, 6), None);
        assert_eq!(t.observe_read(0, 7), Some(5));
        assert_eq!(t.observe_read(0, 7), None);
        t.vacate(1);
        assert_eq!(t.observe_read(1, 8), None);
        assert_eq!(t.slots(), 2);
    }
}
