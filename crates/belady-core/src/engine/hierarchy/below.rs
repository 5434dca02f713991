//! The levels below a client that the file engine simulates: the file engine's cache (with
//! read-ahead, clustering and the device queue) is level 0, and every block it reads goes down
//! through these levels before it may reach the disk.
//!
//! The client tells this stack about each block it places (a demand miss or a read-ahead block)
//! and the block that placement evicted: the lower levels apply their own placement (access,
//! eviction, demote, exclusive) and report whether the read reached the disk and how many links
//! it crossed. Without a device every reload completes at once. With one, [`BelowTiming`] holds
//! the links and the reload queue that the engine's event loop consults (see `timing.rs`): reloads
//! wait for idle device time and are placed when they complete.

use super::state::Notify;
use super::timing::{BelowTiming, Pending};
use super::{Hierarchy, HierarchySpec, LevelReport};
use crate::engine::run_loop::{self, Stepper};
use crate::error::Result;
use crate::policy::Block;

/// What an untimed client passed down, in order: the blocks it read (and evicted) and the
/// requests it issued, so hierarchies sharing that client replay it instead of simulating it
/// again (untimed, the client does not depend on the levels below it).
#[derive(Clone, Debug, Default)]
pub struct ClientLog {
    /// Reads: (block, evicted block or `u32::MAX`, demand); requests: (`u32::MAX`, index into
    /// `requests`, sync).
    events: Vec<(Block, Block, bool)>,
    /// Each request's blocks.
    requests: Vec<Vec<Block>>,
}

/// The disk counters of a replay: what reached the device of the requests the client issued.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplayIo {
    /// Requests with a block that missed every level.
    pub disk_requests: u64,
    /// Of those, synchronous ones.
    pub sync_requests: u64,
    /// Their blocks that missed every level.
    pub sync_blocks: u64,
    /// Asynchronous (read-ahead) requests that reached the device.
    pub async_requests: u64,
    /// Their blocks that missed every level.
    pub async_blocks: u64,
}

/// Lower levels of a hierarchy fed by a client simulated elsewhere.
pub struct Below {
    h: Hierarchy,
    /// Demand reads a lower level served.
    demand_hits: u64,
    /// Links each block's latest read crossed (the level that served it; the depth for the disk).
    hops: Vec<u8>,
    /// The timing component, with a device.
    timing: Option<Box<BelowTiming>>,
    /// Recording only (no levels run): what the client passes down.
    log: Option<ClientLog>,
}

/// The levels below stepping through a recorded client's log: reads go down, and each request
/// counts as a disk request when one of its blocks missed every level.
struct Replay<'a> {
    below: &'a mut Below,
    requests: &'a [Vec<Block>],
    /// Whether each block's latest read reached the disk.
    from_disk: Vec<bool>,
    io: ReplayIo,
}

impl Stepper<(Block, Block, bool)> for Replay<'_> {
    /// Prefetches the lower levels' state of a read's block.
    #[inline]
    fn hint(&mut self, _at: usize, &(b, _, _): &(Block, Block, bool)) {
        if b != u32::MAX {
            self.below.h.hint_below_client(b);
        }
    }

    #[inline]
    fn step(&mut self, _at: usize, &(b, x, demand): &(Block, Block, bool)) {
        if b != u32::MAX {
            let victim = (x != u32::MAX).then_some(x);
            self.from_disk[b as usize] = self.below.read(b, victim, demand, 0);
            return;
        }
        let blocks = &self.requests[x as usize];
        let n = blocks
            .iter()
            .filter(|&&b| self.from_disk[b as usize])
            .count() as u64;
        if n == 0 {
            return;
        }
        let io = &mut self.io;
        io.disk_requests += 1;
        if demand {
            io.sync_requests += 1;
            io.sync_blocks += n;
        } else {
            io.async_requests += 1;
            io.async_blocks += n;
        }
    }
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
            hops: vec![0; universe],
            timing: None,
            log: None,
        }))
    }

    /// Records what an untimed client passes down instead of running levels (every read then
    /// reaches the disk); `spec` is any hierarchy with that client.
    pub fn recorder(
        spec: &HierarchySpec,
        unique: usize,
        universe: usize,
        block_size: u32,
    ) -> Result<Below> {
        let top = HierarchySpec {
            levels: vec![spec.levels[0].clone()],
            links: spec.links.clone(),
        };
        Ok(Below {
            h: Hierarchy::with_universe(&top, unique, universe, block_size)?,
            demand_hits: 0,
            hops: Vec::new(),
            timing: None,
            log: Some(ClientLog::default()),
        })
    }

    /// The client issued a request for `blocks` (recorded when recording).
    pub(crate) fn note_request(&mut self, blocks: &[Block], sync: bool) {
        if let Some(log) = &mut self.log {
            log.events
                .push((u32::MAX, log.requests.len() as Block, sync));
            log.requests.push(blocks.to_vec());
        }
    }

    /// The recording, when this is a recorder.
    pub fn take_log(&mut self) -> Option<ClientLog> {
        self.log.take()
    }

    /// Replays what a recorded client passed down, through the one loop
    /// ([`run_loop::drive`]); returns the disk counters its requests get.
    pub fn replay(&mut self, log: &ClientLog) -> ReplayIo {
        let mut replay = Replay {
            from_disk: vec![true; self.hops.len()],
            below: self,
            requests: &log.requests,
            io: ReplayIo::default(),
        };
        run_loop::drive(&mut replay, &log.events);
        replay.io
    }

    /// Turns on the timing model of `spec.links` over the device called `disk`: reloads are
    /// deferred to the device, reads cross links, demotions make the client wait.
    pub fn with_timing(mut self, spec: &HierarchySpec, disk: &str) -> Result<Below> {
        spec.links.validate()?;
        self.h.deferred = Some(Vec::new());
        self.timing = Some(Box::new(BelowTiming::new(
            &spec.links,
            self.h.block_size,
            disk,
        )));
        Ok(self)
    }

    /// The timing component, when on.
    pub fn timing(&self) -> Option<&BelowTiming> {
        self.timing.as_deref()
    }

    pub(crate) fn timing_mut(&mut self) -> Option<&mut BelowTiming> {
        self.timing.as_deref_mut()
    }

    /// The client read `b` into its cache at `now_ns` (on demand when `demand`), evicting
    /// `victim`. Returns whether the read reached the disk.
    pub fn read(&mut self, b: Block, victim: Option<Block>, demand: bool, now_ns: u64) -> bool {
        if let Some(log) = &mut self.log {
            log.events.push((b, victim.unwrap_or(u32::MAX), demand));
            return true;
        }
        let before = self.h.disk_reads;
        self.h.served = None;
        if let Some(t) = &mut self.timing {
            t.read_at(now_ns);
            if victim.is_some() && self.h.levels[0].notify == Notify::Demoted {
                t.demoted();
            }
        }
        self.h.replay_client_miss(b, victim);
        self.queue_deferred(None);
        let from_disk = self.h.disk_reads != before;
        let depth = self.h.levels.len() - 1;
        self.hops[b as usize] = self.h.served.unwrap_or(depth).min(u8::MAX as usize) as u8;
        if demand && !from_disk {
            self.demand_hits += 1;
        }
        from_disk
    }

    /// Moves the reloads the levels asked for into the timing component's queue, queued at
    /// `at` (ns) or, for `None`, when the latest read reached the first level below.
    fn queue_deferred(&mut self, at: Option<u64>) {
        if let (Some(t), Some(d)) = (&mut self.timing, &mut self.h.deferred) {
            for (level, block) in d.drain(..) {
                t.queue_reload(level, block, at);
            }
        }
    }

    /// Links the latest read of `b` crossed.
    pub fn hops(&self, b: Block) -> u64 {
        self.hops[b as usize] as u64
    }

    /// Whether the reload `p` is not needed any more (its level holds the block).
    pub(crate) fn reload_needless(&self, p: &Pending) -> bool {
        self.h.holds(p.level, p.block)
    }

    /// Whether an exclusive level below `p`'s holds its block (and serves it without the disk).
    pub(crate) fn reload_served_below(&self, p: &Pending) -> bool {
        self.h.exclusive_below_holds(p.level, p.block)
    }

    /// The device started a reload.
    pub(crate) fn reload_started(&mut self) {
        self.h.disk_reloads += 1;
    }

    /// Reload `p` has its data at `at_ns`: places it (or counts it cancelled); what that evicts
    /// may queue further reloads, at `at_ns` (the eviction happens then, not at the latest
    /// read, which may be earlier or later than it).
    pub(crate) fn complete_reload(&mut self, p: &Pending, at_ns: u64) {
        if !self.h.complete_reload(p.level, p.block) {
            if let Some(t) = &mut self.timing {
                t.report.reloads_cancelled += 1;
            }
        }
        self.queue_deferred(Some(at_ns));
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
