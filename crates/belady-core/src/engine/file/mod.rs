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

    /// Issues what is still queued, lets every request complete, and returns the counters.
    pub fn finish(self) -> (crate::cache::level::LevelStats, IoStats) {
        let (stats, io, _) = self.finish_with_store();
        (stats, io)
    }

    /// Like [`FileSim::finish`], also returning ClusterFetch's learned store (when it is on).
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
        let per = |blocks: u64, requests: u64| match requests {
            0 => 0.0,
            n => blocks as f64 / n as f64,
        };
        self.io.sync_blocks_per_request = per(self.io.sync_blocks, self.io.sync_requests);
        self.io.async_blocks_per_request = per(self.io.async_blocks, self.io.async_requests);
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

    /// Issues the open request now: the program needs one of its blocks, blocks on I/O, or the
    /// unplug timer fired.
    fn unplug(&mut self) {
        let reqs = self.cluster.flush();
        let sync = self.issue(reqs);
        debug_assert!(sync.is_empty(), "only prefetch-only requests stay open");
        self.plugged = None;
    }

    /// With a device, issues the open request at its unplug deadline if that comes by `t` (the
    /// program computes until `t`). Without one nothing waits on time, so the request stays open
    /// until a call needs it or stops extending it.
    fn unplug_by_timer(&mut self, t: u64) {
        let Some((_, since)) = self.plugged else {
            return;
        };
        let due = since.saturating_add(self.cfg.unplug_delay_ns);
        if self.disk.is_none() || due > t {
            return;
        }
        let now = self.now_ns;
        self.now_ns = due.max(now);
        self.complete_until(self.now_ns);
        self.unplug();
        self.now_ns = now;
    }

    /// Issues what is still queued and completes every request; returns the program's run time
    /// (the device may finish later).
    fn drain(&mut self) -> u64 {
        let rest = self.cluster.flush();
        self.issue(rest);
        let exec_ns = self.now_ns;
        self.complete_until(u64::MAX);
        exec_ns
    }

    /// The device address of the request's first block, and its length in sectors.
    fn disk_access(&self, r: &DiskRequest) -> DiskAccess {
        let spb = self.sectors_per_block();
        let (first, count) = (r.first_index, r.blocks.len() as u64);
        let skipped = self.rules.blocks_not_sent(first, count);
        let (first, count) = (first + skipped, count - skipped);
        DiskAccess {
            lba: self.lba_of(r.file, first),
            sectors: (count * spb).min(u32::MAX as u64) as u32,
            write: false,
        }
    }

    fn sectors_per_block(&self) -> u64 {
        (self.cfg.block_size as u64 / SECTOR_BYTES).max(1)
    }

    /// The device address of block `index` of `file`.
    fn lba_of(&self, file: u64, index: u64) -> u64 {
        let spb = self.sectors_per_block();
        if let Some(lba) = self.rules.device_address(file, index, spb) {
            lba
        } else if self.cfg.placement == Placement::Scattered {
            cf::scattered_start(self.trace.names().get(&file), file) + index * spb
        } else {
            let (base, _) = self.trace.layout.range(file);
            (base as u64 + index) * spb
        }
    }

    fn next_use(&self, b: Block) -> u64 {
        if !self.level.policy.needs_oracle() {
            return NEVER;
        }
        match self.next_pos[b as usize] {
            dense::NEVER => NEVER,
            n => n as u64,
        }
    }

    /// Lets the device start what it would start before `t`, then completes every request done
    /// by `t`. Decisions at `t` itself wait: the program may still submit requests at `t`.
    fn complete_until(&mut self, t: u64) {
        self.dispatch_before(t);
        while let Some(&Reverse((done, req))) = self.completions.peek() {
            if done > t {
                break;
            }
            self.completions.pop();
            let r = self
                .requests
                .get_mut(req)
                .expect("a request completes before it is retired");
            debug_assert!(!r.completed, "request {req} completes twice");
            r.completed = true;
            for &b in &r.blocks {
                if self.io_of[b as usize] == req {
                    self.io_of[b as usize] = NO_IO;
                    self.level.set_pinned(b, false);
                }
            }
            self.mark_done(req);
        }
        self.requests.retire();
    }

    /// AccuSim marks the blocks a request sent as done when it completes.
    fn mark_done(&mut self, req: u32) {
        let r = self.requests.get(req).expect("not retired yet");
        self.rules.request_done(&r.blocks[r.skips_first as usize..]);
    }

    /// The newest pending request that AccuSim's address test matches with block `index` of
    /// `file` (`late_by_address`).
    fn pending_by_address(&mut self, file: u64, index: u64) -> Option<u32> {
        let s = Rules::sector(file, index) as u64;
        self.requests
            .live()
            .rev()
            .find(|&(_, r)| {
                let n = (r.blocks.len() - r.skips_first as usize) as u64;
                !r.completed && r.sector as u64 <= s && s < r.sector as u64 + n
            })
            .map(|(id, _)| id)
    }

    /// Notes the completion times of requests the device has just started.
    fn record_dispatches(&mut self) {
        let mut dispatched = std::mem::take(&mut self.dispatched);
        for d in dispatched.drain(..) {
            #[cfg(test)]
            self.service_log.push(d);
            // The data then travels up the links to the client (nothing without levels below).
            let done_ns = d.done_ns + self.link_up_ns(d.id);
            if let Some(r) = self.requests.get_mut(d.id) {
                r.done_ns = done_ns;
            }
            self.responses_ns.push(d.done_ns - d.arrival_ns);
            self.completions.push(Reverse((done_ns, d.id)));
        }
        self.dispatched = dispatched;
    }

    /// When request `id` completes, letting the device run until it has started it. Only valid
    /// while the program is blocked: no request can arrive before the answer.
    fn done_of(&mut self, id: u32) -> u64 {
        self.promote(id);
        // A retired request completed before now, which no wait goes back to.
        let done_ns = |s: &Self| s.requests.get(id).map_or(0, |r| r.done_ns);
        while done_ns(self) == NOT_STARTED {
            debug_assert!(self.disk.is_some(), "only device requests wait to start");
            let d = self
                .dispatch_next()
                .expect("a request not started is waiting");
            self.dispatched.push(d);
            self.record_dispatches();
        }
        done_ns(self)
    }

    fn queue(&mut self, file: u64, index: u64, b: Block, demand: bool, pin: bool) {
        self.io_of[b as usize] = QUEUED;
        self.rules.queued(b);
        if pin && self.rules.pins_in_flight() {
            self.level.set_pinned(b, true);
        }
        self.call_group.push(b);
        self.cluster.push(QueuedBlock {
            file,
            index,
            block: b,
            demand,
        });
    }

    /// Submits `reqs` at the current time and returns the synchronous ones' ids.
    fn issue(&mut self, reqs: Vec<DiskRequest>) -> Vec<u32> {
        let mut sync = Vec::new();
        for r in reqs {
            let id = self.requests.next_id();
            let n = r.blocks.len() as u64;
            // With levels below, only the blocks that missed them all go to the device.
            let disk_blocks = match &self.below {
                Some(_) => r
                    .blocks
                    .iter()
                    .filter(|&&b| self.from_disk[b as usize])
                    .count() as u64,
                None => n,
            };
            if let Some(below) = &mut self.below {
                below.note_request(&r.blocks, r.sync);
            }
            // Links down to the deepest level the request reaches, and back (0 untimed).
            let (down_ns, up_ns) = self.link_delays(&r.blocks);
            if disk_blocks == 0 {
                if r.sync {
                    sync.push(id);
                }
                self.serve_from_below(id, r, down_ns + up_ns);
                continue;
            }
            let n = disk_blocks;
            self.io.disk_requests += 1;
            if r.sync {
                self.io.sync_requests += 1;
                self.io.sync_blocks += n;
            } else {
                self.io.async_requests += 1;
                self.io.async_blocks += n;
            }
            if self.cfg.log_requests {
                self.io.request_log.push(LoggedRequest {
                    event: self.events,
                    sync: r.sync,
                    file: r.file,
                    first: r.first_index,
                    blocks: n,
                    issued_ns: self.now_ns,
                });
            }
            for &b in &r.blocks {
                if self.io_of[b as usize] == QUEUED {
                    self.io_of[b as usize] = id;
                }
            }
            if r.sync {
                sync.push(id);
            }
            self.cf_observe(&r);
            let access = self.disk.is_some().then(|| {
                let mut a = self.disk_access(&r);
                if disk_blocks < r.blocks.len() as u64 {
                    a.sectors = (disk_blocks * self.sectors_per_block()) as u32;
                }
                a
            });
            let done_ns = match (&mut self.disk, access) {
                (Some(disk), Some(access)) => {
                    disk.submit(id, access, self.now_ns + down_ns);
                    self.note_link_up(id, up_ns);
                    NOT_STARTED
                }
                _ => {
                    self.completions.push(Reverse((self.now_ns, id)));
                    self.now_ns
                }
            };
            let skipped = self.rules.blocks_not_sent(r.first_index, n);
            self.requests.push(Request {
                done_ns,
                completed: false,
                background: false,
                sector: Rules::sector(r.file, r.first_index + skipped),
                skips_first: skipped == 1,
                blocks: r.blocks,
            });
        }
        sync
    }

    /// A request every block of which a level below holds: it completes without the device,
    /// after `links_ns` on the links (0 untimed).
    fn serve_from_below(&mut self, id: u32, r: DiskRequest, links_ns: u64) {
        for &b in &r.blocks {
            if self.io_of[b as usize] == QUEUED {
                self.io_of[b as usize] = id;
            }
        }
        let done_ns = self.now_ns + links_ns;
        self.completions.push(Reverse((done_ns, id)));
        self.requests.push(Request {
            done_ns,
            completed: false,
            background: false,
            sector: u32::MAX,
            skips_first: false,
            blocks: r.blocks,
        });
    }

    /// One demand reference to block `index` of `file`: looks it up, counts it, and queues its
    /// read if it missed. Returns what the lookup found, for the read-ahead engine. `lookahead`:
    /// the reference is made by AccuSim's read-ahead loop
    /// ([`crate::compat::accusim::access_in_readahead_loop`]); `repeat`: it starts in the block
    /// the descriptor's previous read ended in ([`crate::policy::Access::repeat`]).
    fn demand(&mut self, file: u64, index: u64, lookahead: bool, repeat: bool) -> Lookup {
        let b = self.trace.layout.block(file, index);
        let next = if self.level.policy.needs_oracle() {
            let n = self.trace.oracle().0[self.tick];
            self.next_pos[b as usize] = n;
            if n == dense::NEVER {
                NEVER
            } else {
                n as u64
            }
        } else {
            NEVER
        };
        self.tick += 1;
        let pending = self.io_of[b as usize];
        let resident = self.level.frames().is_resident(b);
        let marked = resident && self.level.take_marker(b);
        let in_flight = resident && self.rules.in_flight(b, pending != NO_IO);
        let lookup = match (resident, marked, in_flight) {
            (false, _, _) => Lookup::Miss,
            (true, true, _) => Lookup::HitMarked,
            (true, false, true) => Lookup::InFlight,
            (true, false, false) => Lookup::Hit,
        };
        if !resident {
            // Read on demand even when no frame can be freed (every one pinned).
            if lookahead {
                crate::compat::accusim::access_in_readahead_loop(&mut self.level, b, next);
            } else {
                self.level.access_repeat(b, next, repeat);
            }
            if self.level.frames().is_resident(b) || self.io_of[b as usize] == NO_IO {
                self.send_down(b, true);
                self.queue(file, index, b, true, true);
            }
        } else if in_flight {
            if self.level.frames().is_unused_prefetch(b) {
                self.io.prefetch_late += 1;
            }
            if self
                .rules
                .in_flight_reuse_hits(self.level.frames().is_unused_prefetch(b))
            {
                self.level.access_repeat(b, next, repeat);
            } else {
                self.level.access_in_flight(b, next, repeat);
            }
            let awaited = if self.rules.late_by_address() {
                self.pending_by_address(file, index)
            } else {
                (pending != QUEUED && pending != NO_IO).then_some(pending)
            };
            if let Some(id) = awaited {
                self.io.late += 1;
                self.awaited.push(id);
            }
        } else {
            if self.level.frames().is_unused_prefetch(b) {
                self.io.prefetch_hits += 1;
            }
            self.level.access_repeat(b, next, repeat);
        }
        lookup
    }

    fn read(&mut self, d: Desc, file: u64, offset: u64, len: u64, file_size: u64) {
        let bs = self.cfg.block_size as u64;
        if len == 0 {
            return;
        }
        self.ra.begin_read(
            d,
            &ReadCall {
                offset,
                len,
                file_size,
            },
        );
        self.call_group.clear();
        let stop_at_cached = self.ra.stops_at_first_cached();
        let guard_group = self.ra.stops_at_group_eviction();
        let window_covers_call = self.rules.window_covers_call();
        let (first, last) = (offset / bs, (offset + len - 1) / bs);
        let repeat = self.read_ends.read(d, offset, offset + len, bs);
        self.awaited.clear();
        if self.cluster.open_holds(file, first, last) {
            // Waiting on a block that sits in a plugged queue unplugs it (Linux 2.4's
            // `sync_page` runs the disk task queue): the prefetch is issued now, so the call
            // finds it in flight (late) or, without a device, complete.
            self.unplug();
            self.complete_until(self.now_ns);
        }
        // The next demand block of the call not referenced yet.
        let mut cb = first;
        while cb <= last {
            let index = cb;
            cb += 1;
            let lookup = self.demand(file, index, false, repeat && index == first);
            let (base, blocks) = self.trace.layout.range(file);
            let plan = {
                let frames = self.level.frames();
                let cached = |j: u64| j < blocks as u64 && frames.is_resident(base + j as Block);
                self.ra.after_lookup(d, index, lookup, &cached)
            };
            if window_covers_call {
                if let Some(window_end) = plan.window_end {
                    while cb <= window_end.min(last) {
                        self.demand(file, cb, false, false);
                        cb += 1;
                    }
                }
            }
            // The file's end bounds every plan: the layout holds the largest size the trace shows.
            let end = plan
                .range
                .end
                .min(blocks as u64)
                .min(file_size.div_ceil(bs).max(last + 1));
            for j in plan.range.start..end {
                let pb = self.trace.layout.block(file, j);
                // AccuSim: the read-ahead reaches the call's next demand block (it is always
                // `cb` then) and references it on the spot.
                let reaches_demand = window_covers_call && j >= cb && cb <= last;
                if self.level.frames().is_resident(pb) {
                    if reaches_demand {
                        self.demand(file, j, true, false);
                        cb += 1;
                    }
                    if stop_at_cached {
                        break;
                    }
                    continue;
                }
                if reaches_demand {
                    self.demand(file, j, true, false);
                    cb += 1;
                    continue;
                }
                let mut next_use = self.next_use(pb);
                if next_use == NEVER
                    && self.level.policy.needs_oracle()
                    && self.trace.oracle().1[pb as usize] == dense::NEVER
                {
                    let references = self.trace.references;
                    if let Some(n) = self.rules.unused_prefetch_next_use(pb, references) {
                        next_use = n;
                    }
                }
                if guard_group {
                    let victim = self.level.peek_victim(pb, next_use);
                    if victim.is_some_and(|v| self.call_group.contains(&v)) {
                        break;
                    }
                }
                if self.level.prefetch(pb, next_use) {
                    self.send_down(pb, false);
                    self.io.prefetched_blocks += 1;
                    self.queue(file, j, pb, j <= last, !guard_group);
                    if plan.marker == Some(j) {
                        self.level.set_marker(pb);
                    }
                }
            }
        }
        let mut reqs = self.cluster.end_call();
        if !self.awaited.is_empty() || reqs.iter().any(|r| r.sync) {
            // The program blocks, which unplugs the device queue: what is open goes too.
            reqs.extend(self.cluster.flush());
        }
        // Blocks the client sent down leave first (demote, exclusive placement below).
        self.wait_for_demotions();
        let mut awaited = std::mem::take(&mut self.awaited);
        awaited.extend(self.issue(reqs));
        self.plugged = match self.plugged {
            _ if !self.cluster.has_open() => None,
            Some((closed, since)) if closed == self.cluster.closed_count() => Some((closed, since)),
            _ => Some((self.cluster.closed_count(), self.now_ns)),
        };
        // The call's requests are all submitted before it blocks, so the device sees them together.
        let mut wait_until = self.now_ns;
        for &id in &awaited {
            wait_until = wait_until.max(self.done_of(id));
        }
        self.awaited = awaited;
        self.wait_ns += wait_until - self.now_ns;
        self.now_ns = wait_until;
        self.complete_until(self.now_ns);
    }
}

pub mod cluster;
mod run;
pub(crate) use run::run_file_one_as;
pub use run::{
    run_file_grid, run_file_one, run_file_one_with_store, simulate_file, simulate_file_with_store,
};

mod config;
pub use config::FileSimConfig;

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
