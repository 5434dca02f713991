//! The file-level engine: replays a program's file calls with read-ahead, I/O clustering and a
//! clock, through one cache level.
//!
//! Per read() call: the read-ahead engine sees the call; every demand block is looked up
//! (a hit, a block whose I/O is still in flight, or a miss) and may trigger read-ahead; missed and
//! read-ahead blocks are inserted and queued; at the end of the call the clusterer turns the queue
//! into disk requests, which are issued at the current time. The application then waits for its
//! synchronous requests and for in-flight blocks it referenced. Think time between calls advances
//! the clock. Requests wait in the device queue ([`crate::disk::queue`]) and are served one at a
//! time in the order the scheduler picks (first come first served by default); each completes
//! when the device model says. Without a device model every request completes when issued, so a
//! prefetch is never late: the untimed mode.
//!
//! Accounting: a demand reference to a resident block whose I/O has not completed is a miss (and
//! "late" when its request was issued by an earlier call: the application waits for it); the
//! first demand reference to a completed prefetched block is a hit and a prefetch hit.

use crate::cache::level::CacheLevel;
use crate::compat::accusim::rules::{Rules, Think};
pub use crate::compat::accusim::{Departures, DEPARTURE_NAMES};
use crate::disk::queue::{DeviceQueue, Dispatched};
use crate::disk::{DiskAccess, DiskConfig, SECTOR_BYTES};
use crate::engine::file::cluster::{Clusterer, DiskRequest, QueuedBlock};
use crate::engine::hierarchy::Below;
use crate::policy::{Block, Policy, NEVER};
use crate::prefetch::clusterfetch::PrefetchStore;
use crate::prefetch::{Desc, Lookup, ReadAhead, ReadCall};
pub use crate::run::rows::{IoStats, LoggedRequest, RunResult};
use crate::trace::dense;
use crate::trace::file::{FileEvent, FileEventKind};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const NO_IO: u32 = u32::MAX;
const QUEUED: u32 = u32::MAX - 1;
/// Completion time of a request the device has not started yet.
const NOT_STARTED: u64 = u64::MAX;

/// A file-level simulation in progress: feed it events with [`FileSim::step`].
pub struct FileSim<'a, P: Policy> {
    cfg: &'a FileSimConfig,
    trace: &'a PreparedFileTrace,
    level: CacheLevel<P>,
    ra: Box<dyn ReadAhead>,
    cluster: Clusterer,
    /// Request holding each block's pending I/O (NO_IO, QUEUED, or an index into `requests`).
    io_of: Vec<u32>,
    requests: Requests,
    completions: BinaryHeap<Reverse<(u64, u32)>>,
    dispatched: Vec<Dispatched>,
    now_ns: u64,
    tick: usize,
    events: u64,
    next_pos: Vec<u32>,
    /// AccuSim's engine rules the run follows (every answer the paper's when none is on).
    rules: Rules,
    io: IoStats,
    /// Blocks queued by the current read() call (the group read-ahead must not evict).
    call_group: Vec<Block>,
    disk: Option<DeviceQueue>,
    proc_ns: u64,
    /// Time the program spent blocked on the disk (run time = `proc_ns` + this).
    wait_ns: u64,
    /// Earlier requests the current call referenced while in flight (it waits for them).
    awaited: Vec<u32>,
    /// The open (plugged) prefetch-only request left by an earlier call: the clusterer's closed
    /// count that identifies it, and when it was first left open.
    plugged: Option<(u64, u64)>,
    /// Every request the device started, in order (for the event-engine properties).
    #[cfg(test)]
    service_log: Vec<Dispatched>,
    responses_ns: Vec<u64>,
    /// ClusterFetch's queue, store and counters, when on.
    cf: Option<Box<cf::CfState>>,
    /// The launch window's progress.
    launch: cf::LaunchTracker,
    /// Cache levels below this one (a hierarchy whose client this is), when any.
    below: Option<Box<Below>>,
    /// With levels below: whether each block's current read reached the disk.
    from_disk: Vec<bool>,
    /// Where each descriptor's last read ended (for a policy that wants repeats).
    read_ends: ReadEnds,
}

impl<'a, P: Policy> FileSim<'a, P> {
    /// A simulation of `trace` through `policy` with `capacity` blocks.
    pub fn new(
        policy: P,
        trace: &'a PreparedFileTrace,
        capacity: usize,
        cfg: &'a FileSimConfig,
    ) -> Self {
        let universe = trace.layout.universe();
        let mut level = CacheLevel::new(policy, capacity, universe);
        level.set_admission(
            cfg.admission
                .as_ref()
                .map(|a| a.build(capacity, universe, cfg.block_size as u64, cfg.seed)),
        );
        let mut sim = FileSim {
            cfg,
            trace,
            level,
            ra: cfg.read_ahead(),
            cluster: Clusterer::new(cfg.cluster_rules()),
            io_of: vec![NO_IO; universe],
            requests: Requests::default(),
            completions: BinaryHeap::new(),
            dispatched: Vec::new(),
            now_ns: 0,
            tick: 0,
            events: 0,
            next_pos: Vec::new(),
            rules: Rules::new(cfg.departures, universe),
            io: IoStats::default(),
            call_group: Vec::new(),
            disk: cfg.disk.as_ref().map(|d| {
                let model = d.build("disk").expect("validated before the run");
                DeviceQueue::new(model, cfg.scheduler)
            }),
            proc_ns: 0,
            wait_ns: 0,
            awaited: Vec::new(),
            plugged: None,
            #[cfg(test)]
            service_log: Vec::new(),
            responses_ns: Vec::new(),
            cf: cf::CfState::new(cfg, trace).map(Box::new),
            launch: cf::LaunchTracker::new(
                trace
                    .launch
                    .clone()
                    .or_else(|| cfg.clusterfetch.as_ref().map(|_| LaunchWindow::default())),
            ),
            below: None,
            from_disk: Vec::new(),
            read_ends: ReadEnds::new(false),
        };
        sim.read_ends = ReadEnds::new(sim.level.policy.wants_repeats());
        if sim.level.policy.needs_oracle() {
            sim.next_pos = trace.oracle().1.clone();
        }
        sim
    }

    /// Puts `below` under this cache: every block it reads goes down through those levels, and
    /// only blocks that miss them all reach the device.
    pub fn set_below(&mut self, below: Below) {
        self.from_disk = vec![true; self.trace.layout.universe()];
        self.below = Some(Box::new(below));
    }

    /// This cache just read `b` (on demand when `demand`): the levels below see the read and the
    /// block it evicted, and decide whether it reaches the disk.
    fn send_down(&mut self, b: Block, demand: bool) {
        if let Some(below) = &mut self.below {
            let victim = self.level.last_victim().map(|v| v.block);
            self.from_disk[b as usize] = below.read(b, victim, demand, self.now_ns);
        }
    }

    /// The cache level (frames and policy), for observers and tests.
    pub fn level(&self) -> &CacheLevel<P> {
        &self.level
    }

    /// Disk requests issued so far.
    pub fn io_stats(&self) -> &IoStats {
        &self.io
    }

    /// Processes one event of the trace.
    pub fn step(&mut self, ev: &FileEvent) {
        self.before_event();
        self.events += 1;
        let is_io = matches!(
            ev.kind,
            FileEventKind::Read { .. } | FileEventKind::Write { .. }
        );
        // AccuSim's clock follows the disk simulator's events, so it starts at the first wait, or
        // at the first record whose compute time reaches past the simulator's first event after
        // a request issued at time 0.
        let started = || self.now_ns > 0 || self.disk_event_before(ev);
        match self.rules.think(is_io, ev.think_ns, started) {
            Think::Elapses => {
                let think_ns = ev.think_ns + self.client_think_ns(ev);
                self.unplug_by_timer(self.now_ns + think_ns);
                self.now_ns += think_ns;
                self.proc_ns += think_ns;
            }
            Think::Jumps {
                clock_ns,
                compute_ns,
            } => {
                self.now_ns += clock_ns;
                self.proc_ns += compute_ns;
            }
            Think::Stays => {}
        }
        self.complete_until(self.now_ns);
        let d = (ev.pid, ev.fd);
        match ev.kind {
            FileEventKind::Open => {
                self.ra.reset(d);
                self.read_ends.forget(d);
                self.on_open(ev.file);
            }
            FileEventKind::Close => {
                self.ra.forget(d);
                self.read_ends.forget(d);
            }
            FileEventKind::Exit => {}
            FileEventKind::Seek { .. } => {}
            FileEventKind::Write { .. } => self.ra.on_write(d),
            FileEventKind::Read { offset, len } => self.read(d, ev.file, offset, len, ev.file_size),
        }
    }

    /// AccuSim's clock at 0: whether the disk simulator has an event before this record's time
    /// (`think + 1 µs` after 0). The first one after a request arriving at 0 is the end of its
    /// command overhead (DiskSim's Cheetah 9LP: 0.284 ms for a read that misses the drive cache).
    fn disk_event_before(&self, ev: &FileEvent) -> bool {
        if self.requests.next_id() == 0 {
            return false;
        }
        let first_event_ns = match &self.cfg.disk {
            Some(DiskConfig::Hdd(p)) => (p.overheads.read_miss_after_read_ms * 1e6) as u64,
            _ => 0,
        };
        ev.think_ns + 1000 > first_event_ns
    }

    /// Issues what is still queued, lets every request complete, and returns the counters
    /// (runs keep ClusterFetch's store too, [`FileSim::finish_with_store`]).
    pub fn finish(self) -> (crate::cache::level::LevelStats, IoStats) {
        let (stats, io, _) = self.finish_with_store();
        (stats, io)
    }

    /// Issues what is still queued, lets every request complete, and returns the counters and
    /// ClusterFetch's learned store (when it is on).
    pub fn finish_with_store(
        mut self,
    ) -> (
        crate::cache::level::LevelStats,
        IoStats,
        Option<PrefetchStore>,
    ) {
        let exec_ns = self.drain();
        let store = self.after_run(exec_ns);
        debug_assert!(self.requests.live().all(|(_, r)| r.completed));
        debug_assert!(
            !self.rules.run_time_is_proc_plus_wait() || exec_ns == self.proc_ns + self.wait_ns
        );
        let stats = self.level.stats().clone();
        self.io.prefetch_unused_evicted = stats.prefetch_unused_evicted;
        let frames = self.level.frames();
        self.io.prefetch_unused_resident = frames
            .resident_blocks()
            .filter(|&b| frames.is_unused_prefetch(b))
            .count() as u64;
        self.io.set_blocks_per_request();
        if let Some(disk) = &self.disk {
            let busy_ns = disk.busy_ns();
            let s = |ns: u64| ns as f64 / 1e9;
            self.io.exec_time_s = Some(s(exec_ns));
            self.io.proc_time_s = Some(s(self.proc_ns));
            self.io.io_time_s = Some(s(exec_ns.saturating_sub(self.proc_ns)));
            self.io.io_wait_s = self.io.io_time_s;
            self.io.disk_busy_s = Some(s(busy_ns));
            self.io.disk_cache_hits = disk.cache_read_hits();
            // Read-ahead issued near the end may finish after the last reference: the device's
            // busy time is then measured over the span until it goes idle, so it stays <= 1.
            let span_ns = exec_ns.max(disk.free_ns());
            self.io.disk_utilization = Some(if span_ns == 0 {
                0.0
            } else {
                busy_ns as f64 / span_ns as f64
            });
            let r = &mut self.responses_ns;
            r.sort_unstable();
            let mean = if r.is_empty() {
                0.0
            } else {
                r.iter().sum::<u64>() as f64 / r.len() as f64
            };
            self.io.mean_response_ms = Some(mean / 1e6);
            let p99 = r
                .get((r.len() * 99).div_ceil(100).saturating_sub(1))
                .copied()
                .unwrap_or(0);
            self.io.p99_response_ms = Some(p99 as f64 / 1e6);
        }
        (stats, self.io, store)
    }
}

pub mod cluster;
mod device;
mod read;
mod run;
pub(crate) use run::run_file_one_as;
pub use run::{run_file_grid, run_file_one, run_file_one_with_store};

mod config;
pub use config::FileSimConfig;

mod blocks;
mod prepared;
pub use prepared::{load_file_engine_trace_with, FileTraceBuilder, Layout, PreparedFileTrace};

mod levels;
pub use levels::{run_file_hierarchies, run_file_hierarchy};

mod read_ends;
use read_ends::ReadEnds;

mod requests;
use requests::{Request, Requests};

mod cf;
pub use crate::run::rows::{CfStats, LaunchStats};
pub use cf::{LaunchWindow, Placement};

#[cfg(test)]
mod props;
