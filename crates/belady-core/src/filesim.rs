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

use crate::disk::queue::{DeviceQueue, Dispatched, Scheduler};
use crate::disk::{DiskAccess, DiskConfig, SECTOR_BYTES};
use crate::engine::RunResult;
use crate::error::{Error, Result};
use crate::io::{ClusterRules, Clusterer, DiskRequest, QueuedBlock};
use crate::level::CacheLevel;
use crate::policy::registry::{self, PolicySpec, PolicyVisitor};
use crate::policy::{Block, Policy, NEVER};
use crate::prefetch::bsd::Bsd;
use crate::prefetch::clusterfetch::{ClusterFetchConfig, PrefetchStore};
use crate::prefetch::example::ExampleReadAhead;
use crate::prefetch::linux24::Linux24;
use crate::prefetch::linux26::Linux26;
use crate::prefetch::ondemand::Ondemand;
use crate::prefetch::{Desc, Lookup, NoReadAhead, PrefetchKind, ReadAhead, ReadCall};
use crate::size::CacheSize;
use crate::trace::dense;
use crate::trace::file::{FileEvent, FileEventKind, FileTrace};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::OnceLock;

/// A named departure of AccuSim (the prefetching study's simulator) from the paper's text.
/// `--compat accusim` turns all of them on; each can be turned on alone.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Departures {
    /// Requests hold at most 33 blocks (more than RCHUNK = 32) instead of 64 KB.
    pub request_cap_33: bool,
    /// No request spans two read() calls.
    pub requests_end_with_calls: bool,
    /// A demand block after prefetched blocks starts a new request.
    pub demand_after_prefetch_splits: bool,
    /// The last partial block of a file is never read ahead (as the Linux 2.4 loop stops at
    /// `i_size >> PAGE_SHIFT`).
    pub skip_partial_last_block: bool,
    /// A request starting at file block 0 takes its sync/async class from its second block.
    pub block0_sentinel: bool,
    /// OPT gives a prefetched block that the trace never references a next reference just past
    /// the end of the trace, increasing in order of first prefetch and kept if it is prefetched
    /// again (so they go after blocks with no further reference, which tie at "never").
    pub opt_unused_prefetch_after_end: bool,
    /// Blocks whose I/O is queued or in flight may be evicted (the kernel locks them instead).
    pub evict_in_flight: bool,
    /// Block `b` of the file with inode `i` lives at sector `(i * 2048 + 8b) mod 17,783,240`
    /// (1 MB per inode, in 32-bit arithmetic) instead of files laid out one after another.
    pub inode_spaced_layout: bool,
    /// AccuSim's clock: each read or write record adds its compute time plus 1 µs (nothing when
    /// its compute time is 0), and nothing is counted until a first request has been issued.
    pub accusim_clock: bool,
    /// AccuSim's per-block read loop: after a demand block's read-ahead decision, the call's
    /// further demand blocks inside the read-ahead window are referenced at once, without a
    /// read-ahead decision of their own, and those the read-ahead itself reaches are referenced
    /// as demand misses where it reaches them (not inserted as prefetches and accessed later).
    pub window_covers_call: bool,
    /// AccuSim's per-block I/O status: a block is in flight from being queued until any request
    /// that sends it completes. With `block0_sentinel` a request starting at file block 0 never
    /// sends block 0, which therefore stays in flight until it is read again.
    pub done_flags: bool,
    /// An access to an in-flight block waits for (and counts as late against) the newest pending
    /// request whose first sector is at most the block's and that starts fewer sectors before it
    /// than the request holds blocks (AccuSim compares a block count with a sector distance, and
    /// addresses by inode, so only a request's first few blocks, or another file's request, match).
    pub late_by_address: bool,
    /// Only the first demand access of a prefetched block whose I/O is in flight is a miss; any
    /// other access to a resident block is a hit, complete or not.
    pub in_flight_reuse_hits: bool,
}

/// Names of the departures, as `--compat-rule` takes them.
pub const DEPARTURE_NAMES: &[&str] = &[
    "request-cap-33",
    "requests-end-with-calls",
    "demand-after-prefetch-splits",
    "skip-partial-last-block",
    "block0-sentinel",
    "opt-unused-prefetch-after-end",
    "evict-in-flight",
    "inode-spaced-layout",
    "accusim-clock",
    "window-covers-call",
    "done-flags",
    "late-by-address",
    "in-flight-reuse-hits",
];

impl Departures {
    /// Every departure on: AccuSim's behaviour.
    pub fn accusim() -> Self {
        Departures {
            request_cap_33: true,
            requests_end_with_calls: true,
            demand_after_prefetch_splits: true,
            skip_partial_last_block: true,
            block0_sentinel: true,
            opt_unused_prefetch_after_end: true,
            evict_in_flight: true,
            inode_spaced_layout: true,
            accusim_clock: true,
            window_covers_call: true,
            done_flags: true,
            late_by_address: true,
            in_flight_reuse_hits: true,
        }
    }

    /// Turns on the departure called `name`.
    pub fn enable(&mut self, name: &str) -> Result<()> {
        match name {
            "request-cap-33" => self.request_cap_33 = true,
            "requests-end-with-calls" => self.requests_end_with_calls = true,
            "demand-after-prefetch-splits" => self.demand_after_prefetch_splits = true,
            "skip-partial-last-block" => self.skip_partial_last_block = true,
            "block0-sentinel" => self.block0_sentinel = true,
            "opt-unused-prefetch-after-end" => self.opt_unused_prefetch_after_end = true,
            "evict-in-flight" => self.evict_in_flight = true,
            "inode-spaced-layout" => self.inode_spaced_layout = true,
            "accusim-clock" => self.accusim_clock = true,
            "window-covers-call" => self.window_covers_call = true,
            "done-flags" => self.done_flags = true,
            "late-by-address" => self.late_by_address = true,
            "in-flight-reuse-hits" => self.in_flight_reuse_hits = true,
            _ => {
                return Err(Error::config(
                    "--compat-rule",
                    name,
                    format!(
                        "unknown rule{}; expected one of {}",
                        crate::error::did_you_mean(name, DEPARTURE_NAMES.iter().copied()),
                        DEPARTURE_NAMES.join(", ")
                    ),
                ))
            }
        }
        Ok(())
    }
}

/// Everything a file-level run needs besides the policy and the cache size.
#[derive(Clone, Debug, PartialEq)]
pub struct FileSimConfig {
    /// Bytes per block.
    pub block_size: u32,
    /// Read-ahead engine.
    pub prefetch: PrefetchKind,
    /// AccuSim's departures that are on.
    pub departures: Departures,
    /// Largest request in bytes, unless `request_cap_33` is on (the study's text: 64 KB).
    pub max_request_bytes: u64,
    /// Linux 2.4 read-ahead minimum and maximum, in blocks.
    pub readahead_min: u64,
    /// See `readahead_min`.
    pub readahead_max: u64,
    /// The device serving requests; without one a request completes when it is issued.
    pub disk: Option<DiskConfig>,
    /// How the device orders waiting requests.
    pub scheduler: Scheduler,
    /// ClusterFetch on top of the read-ahead engine, with its parameters.
    pub clusterfetch: Option<ClusterFetchConfig>,
    /// Where files lie on the device.
    pub placement: Placement,
    /// Record every disk request in [`IoStats::request_log`].
    pub log_requests: bool,
    /// With a device: longest time a prefetch-only request may stay open (plugged) for later
    /// calls to extend while the program computes; Linux's block-layer unplug timer is 3 ms.
    pub unplug_delay_ns: u64,
}

impl Default for FileSimConfig {
    fn default() -> Self {
        FileSimConfig {
            block_size: 4096,
            prefetch: PrefetchKind::Linux24,
            departures: Departures::default(),
            max_request_bytes: 64 * 1024,
            readahead_min: 3,
            readahead_max: 32,
            disk: None,
            scheduler: Scheduler::Fcfs,
            clusterfetch: None,
            placement: Placement::Contiguous,
            log_requests: false,
            unplug_delay_ns: 3_000_000,
        }
    }
}

impl FileSimConfig {
    /// Checks the configuration; the only place file-level settings are validated.
    pub fn validate(&self) -> Result<()> {
        if self.block_size == 0 {
            return Err(Error::config("--block-size", 0, "must be at least 1 byte"));
        }
        if self.max_request_blocks() == 0 {
            return Err(Error::config(
                "--max-request",
                self.max_request_bytes,
                format!("is less than one {}-byte block", self.block_size),
            ));
        }
        if let Some(disk) = &self.disk {
            disk.validate()?;
        } else if self.scheduler != Scheduler::Fcfs {
            return Err(Error::config(
                "--scheduler",
                self.scheduler.name(),
                "orders a device queue, so it needs --disk",
            ));
        }
        if self.readahead_min > self.readahead_max || self.readahead_max == 0 {
            return Err(Error::config(
                "read-ahead window",
                format!("{}..{}", self.readahead_min, self.readahead_max),
                "needs 0 < max and min <= max",
            ));
        }
        if let Some(cf) = &self.clusterfetch {
            cf.validate()?;
        }
        Ok(())
    }

    /// The prefetching a run's results name: the read-ahead engine, `+clusterfetch` when on.
    pub fn prefetch_name(&self) -> String {
        match self.clusterfetch {
            Some(_) => format!("{}+clusterfetch", self.prefetch.name()),
            None => self.prefetch.name().to_string(),
        }
    }

    fn max_request_blocks(&self) -> u32 {
        if self.departures.request_cap_33 {
            33
        } else {
            (self.max_request_bytes / self.block_size as u64).min(u32::MAX as u64) as u32
        }
    }

    fn cluster_rules(&self) -> ClusterRules {
        ClusterRules {
            max_blocks: self.max_request_blocks(),
            split_at_calls: self.departures.requests_end_with_calls,
            demand_after_prefetch_splits: self.departures.demand_after_prefetch_splits,
            block0_sentinel: self.departures.block0_sentinel,
        }
    }

    fn read_ahead(&self) -> Box<dyn ReadAhead> {
        match self.prefetch {
            PrefetchKind::None => Box::new(NoReadAhead),
            PrefetchKind::Linux24 => Box::new(Linux24::new(
                self.readahead_min,
                self.readahead_max,
                self.block_size as u64,
                self.departures.skip_partial_last_block,
            )),
            PrefetchKind::Example => Box::new(ExampleReadAhead::new(self.block_size as u64)),
            PrefetchKind::Linux26 => Box::new(Linux26::new(
                4.min(self.readahead_max),
                self.readahead_max,
                self.block_size as u64,
            )),
            PrefetchKind::Ondemand => {
                Box::new(Ondemand::new(self.readahead_max, self.block_size as u64))
            }
            PrefetchKind::Bsd => Box::new(Bsd::new(self.readahead_max, self.block_size as u64)),
        }
    }
}

/// File-level options as users write them (command line, experiment files, Python), unchecked.
#[derive(Clone, Copy, Debug)]
pub struct FileOptions<'a> {
    /// Bytes per block.
    pub block_size: u32,
    /// Read-ahead engine name (`none` when absent), with `+clusterfetch` for ClusterFetch.
    pub prefetch: Option<&'a str>,
    /// Reference simulator to behave as (`accusim`).
    pub compat: Option<&'a str>,
    /// Departures to turn on one by one.
    pub compat_rules: &'a [String],
    /// Largest request, as a byte size (`64KiB`) or in blocks.
    pub max_request: &'a str,
    /// Disk preset or TOML file.
    pub disk: Option<&'a str>,
    /// Device queue scheduler name.
    pub scheduler: &'a str,
    /// Largest read-ahead window in KiB (Linux's `read_ahead_kb`); `None` keeps each engine's
    /// default of 32 blocks (128 KiB with 4 KiB blocks).
    pub read_ahead_kb: Option<u64>,
}

impl Default for FileOptions<'_> {
    fn default() -> Self {
        FileOptions {
            block_size: 4096,
            prefetch: None,
            compat: None,
            compat_rules: &[],
            max_request: "64KiB",
            disk: None,
            scheduler: "fcfs",
            read_ahead_kb: None,
        }
    }
}

impl FileSimConfig {
    /// Builds and checks the configuration the options describe (the one place they are parsed).
    pub fn from_options(o: &FileOptions) -> Result<FileSimConfig> {
        let (engine, cf) =
            crate::prefetch::clusterfetch::split_prefetch(o.prefetch.unwrap_or("none"))?;
        let mut cfg = FileSimConfig {
            block_size: o.block_size,
            prefetch: PrefetchKind::parse(engine)?,
            clusterfetch: cf.then(ClusterFetchConfig::default),
            ..FileSimConfig::default()
        };
        match o.compat {
            None => {}
            Some("accusim") => cfg.departures = Departures::accusim(),
            Some(other) => return Err(Error::config("--compat", other, "expected accusim")),
        }
        for rule in o.compat_rules {
            cfg.departures.enable(rule)?;
        }
        cfg.max_request_bytes = match CacheSize::parse(o.max_request)? {
            CacheSize::Bytes(b) => b,
            CacheSize::Blocks(b) => b.saturating_mul(o.block_size as u64),
            CacheSize::Percent(_) => {
                return Err(Error::config(
                    "--max-request",
                    o.max_request,
                    "expected a byte size such as 64KiB",
                ))
            }
        };
        if let Some(kb) = o.read_ahead_kb {
            let blocks = kb.saturating_mul(1024) / o.block_size.max(1) as u64;
            if blocks == 0 {
                return Err(Error::config(
                    "--read-ahead-kb",
                    kb,
                    format!("is less than one {}-byte block", o.block_size),
                ));
            }
            cfg.readahead_max = blocks;
            cfg.readahead_min = cfg.readahead_min.min(blocks);
        }
        if let Some(disk) = o.disk {
            cfg.disk = Some(crate::disk::load_config(disk)?);
        }
        cfg.scheduler = Scheduler::parse(o.scheduler)?;
        cfg.validate()?;
        Ok(cfg)
    }
}

/// Dense block ids for file blocks: each file gets a contiguous range.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    base: FxHashMap<u64, (u32, u32)>,
    universe: u32,
}

impl Layout {
    /// Lays out every file of `trace` with room for its largest size and every block read.
    pub fn new(trace: &FileTrace, block_size: u64) -> Result<Layout> {
        let mut blocks: FxHashMap<u64, u64> = FxHashMap::default();
        let mut order: Vec<u64> = Vec::new();
        for ev in &trace.events {
            let need = match ev.blocks(block_size) {
                Some((_, first, count)) => (first + count).max(ev.file_size.div_ceil(block_size)),
                None => ev.file_size.div_ceil(block_size),
            };
            let slot = blocks.entry(ev.file).or_insert_with(|| {
                order.push(ev.file);
                0
            });
            *slot = (*slot).max(need);
        }
        let mut layout = Layout::default();
        let mut next: u64 = 0;
        for file in order {
            let n = blocks[&file];
            if next + n >= u32::MAX as u64 {
                return Err(Error::config(
                    "trace",
                    &trace.source,
                    "its files hold more than 2^32 blocks, more than belady can simulate",
                ));
            }
            layout.base.insert(file, (next as u32, n as u32));
            next += n;
        }
        layout.universe = next as u32;
        Ok(layout)
    }

    /// First dense id and number of blocks of `file`.
    #[inline]
    pub fn range(&self, file: u64) -> (Block, u32) {
        self.base[&file]
    }

    /// Dense id of block `index` of `file`.
    #[inline]
    pub fn block(&self, file: u64, index: u64) -> Block {
        let (base, _) = self.base[&file];
        base + index as u32
    }

    /// Number of dense ids.
    pub fn universe(&self) -> usize {
        self.universe as usize
    }
}

/// A file-level trace ready for simulation, shared by every run over it.
pub struct PreparedFileTrace {
    /// The trace.
    pub trace: FileTrace,
    /// Its block layout.
    pub layout: Layout,
    /// Bytes per block the layout uses.
    pub block_size: u32,
    /// Demand block references in order.
    pub refs: Vec<Block>,
    /// Distinct blocks among the demand references.
    pub distinct: usize,
    /// The part of the trace measured as a launch, if one is set (see [`LaunchWindow`]).
    pub launch: Option<LaunchWindow>,
    oracle: OnceLock<(Vec<u32>, Vec<u32>)>,
}

impl PreparedFileTrace {
    /// Lays out `trace` for `block_size`-byte blocks and lists its demand reads.
    pub fn new(trace: FileTrace, block_size: u32) -> Result<Self> {
        let bs = block_size as u64;
        let layout = Layout::new(&trace, bs)?;
        let mut refs = Vec::new();
        for ev in &trace.events {
            if let (FileEventKind::Read { .. }, Some((_, first, count))) = (&ev.kind, ev.blocks(bs))
            {
                refs.extend((first..first + count).map(|i| layout.block(ev.file, i)));
            }
        }
        if refs.is_empty() {
            return Err(Error::EmptyTrace {
                path: trace.source.clone(),
                what: "read calls".into(),
            });
        }
        let mut seen = vec![false; layout.universe()];
        let distinct = refs
            .iter()
            .filter(|&&b| !std::mem::replace(&mut seen[b as usize], true))
            .count();
        Ok(PreparedFileTrace {
            trace,
            layout,
            block_size,
            distinct,
            refs,
            launch: None,
            oracle: OnceLock::new(),
        })
    }

    /// A block-level trace as a file-level one, so read-ahead, clustering and timing apply: each
    /// maximal run of consecutive block ids among those referenced becomes one file (read through
    /// its own descriptor, opened at its first reference), and every reference a one-block read.
    /// Read-ahead and clustering therefore stop at the edges of runs: blocks the trace never
    /// references are never read. Think time is the gap between reference times, when kept.
    pub fn from_block_trace(blocks: &dense::BlockTrace) -> Result<Self> {
        if blocks.writes() > 0 {
            return Err(Error::config(
                "--ops",
                "all",
                format!(
                    "{} holds writes; read-ahead on a block-level trace simulates reads only (use --ops read)",
                    blocks.source
                ),
            ));
        }
        let bs = blocks.block_size as u64;
        let mut sorted: Vec<(u64, u32)> = blocks
            .originals
            .iter()
            .enumerate()
            .map(|(d, &o)| (o, d as u32))
            .collect();
        sorted.sort_unstable();
        // Run (file) and index within it of each dense id.
        let mut place = vec![(0u64, 0u64); sorted.len()];
        let mut run_sizes: Vec<u64> = Vec::new();
        for (i, &(orig, dense_id)) in sorted.iter().enumerate() {
            if i == 0 || sorted[i - 1].0 + 1 != orig {
                run_sizes.push(0);
            }
            let run = run_sizes.len() as u64 - 1;
            place[dense_id as usize] = (run, run_sizes[run as usize]);
            run_sizes[run as usize] += 1;
        }
        let mut opened = vec![false; run_sizes.len()];
        let mut events = Vec::with_capacity(blocks.refs.len() + run_sizes.len());
        let mut last_time = None;
        for (i, &r) in blocks.refs.iter().enumerate() {
            let (run, index) = place[r as usize];
            let think_ns = match (&blocks.times, last_time) {
                (Some(t), Some(prev)) => t[i].saturating_sub(prev),
                _ => 0,
            };
            last_time = blocks.times.as_ref().map(|t| t[i]);
            let fd = u32::try_from(run + 3).map_err(|_| {
                Error::config("trace", &blocks.source, "has more than 2^32 runs of blocks")
            })?;
            let file_size = run_sizes[run as usize] * bs;
            let event = |think_ns, kind| FileEvent {
                think_ns,
                pid: 1,
                fd,
                file: run,
                file_size,
                kind,
            };
            if !std::mem::replace(&mut opened[run as usize], true) {
                events.push(event(0, FileEventKind::Open));
            }
            events.push(event(
                think_ns,
                FileEventKind::Read {
                    offset: index * bs,
                    len: bs,
                },
            ));
        }
        let trace = FileTrace {
            source: blocks.source.clone(),
            events,
            names: Default::default(),
        };
        PreparedFileTrace::new(trace, blocks.block_size)
    }

    /// Next reference of each demand reference, and each block's first reference.
    fn oracle(&self) -> &(Vec<u32>, Vec<u32>) {
        self.oracle.get_or_init(|| {
            let mut next = vec![dense::NEVER; self.refs.len()];
            let mut upcoming = vec![dense::NEVER; self.layout.universe()];
            for i in (0..self.refs.len()).rev() {
                let b = self.refs[i] as usize;
                next[i] = upcoming[b];
                upcoming[b] = i as u32;
            }
            (next, upcoming)
        })
    }
}

/// Counters of a file-level run.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IoStats {
    /// Demand references that waited for a request issued by an earlier call.
    pub late: u64,
    /// First demand references to completed prefetched blocks.
    pub prefetch_hits: u64,
    /// Disk requests issued.
    pub disk_requests: u64,
    /// Requests holding a demand block (the application waits).
    pub sync_requests: u64,
    /// Blocks in synchronous requests.
    pub sync_blocks: u64,
    /// Prefetch-only requests.
    pub async_requests: u64,
    /// Blocks in asynchronous requests.
    pub async_blocks: u64,
    /// Mean blocks per synchronous request (0 without any).
    #[serde(default)]
    pub sync_blocks_per_request: f64,
    /// Mean blocks per asynchronous request (0 without any).
    #[serde(default)]
    pub async_blocks_per_request: f64,
    /// Blocks inserted by read-ahead.
    pub prefetched_blocks: u64,
    /// Read-ahead blocks evicted before any demand reference.
    pub prefetch_unused_evicted: u64,
    /// With a disk model: the program's run time, seconds.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub exec_time_s: Option<f64>,
    /// With a disk model: computation (think) time, seconds.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub proc_time_s: Option<f64>,
    /// With a disk model: time spent waiting for the disk (run time less computation), seconds.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub io_time_s: Option<f64>,
    /// With a disk model: the same waiting time under the name the timing work uses.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub io_wait_s: Option<f64>,
    /// With a disk model: time the device was busy, seconds.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub disk_busy_s: Option<f64>,
    /// With a disk model: busy time over run time (the device may stay busy after the program ends).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub disk_utilization: Option<f64>,
    /// With a disk model: mean time from issue to completion of a request, ms.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub mean_response_ms: Option<f64>,
    /// With a disk model: 99th percentile of that time, ms.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub p99_response_ms: Option<f64>,
    /// The launch window's time and counters, when the trace sets one or ClusterFetch is on.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub launch: Option<LaunchStats>,
    /// ClusterFetch's counters, when it is on.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub clusterfetch: Option<CfStats>,
    /// Every disk request in issue order, when [`FileSimConfig::log_requests`] is set.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub request_log: Vec<LoggedRequest>,
}

/// One disk request as issued, for comparing runs request by request.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LoggedRequest {
    /// 1-based index of the trace event whose call issued it.
    pub event: u64,
    /// Synchronous (the application waits for it).
    pub sync: bool,
    /// File (inode).
    pub file: u64,
    /// First file block.
    pub first: u64,
    /// Number of blocks.
    pub blocks: u64,
    /// Issue time, ns (0 without a disk model).
    pub issued_ns: u64,
}

const NO_IO: u32 = u32::MAX;
const QUEUED: u32 = u32::MAX - 1;
/// Completion time of a request the device has not started yet.
const NOT_STARTED: u64 = u64::MAX;

/// One disk request of the run.
struct Request {
    /// Completion time, or `NOT_STARTED`.
    done_ns: u64,
    /// Whether its completion has been processed (each request completes exactly once).
    completed: bool,
    /// Low priority (ClusterFetch) and not promoted.
    background: bool,
    blocks: Vec<Block>,
    /// The first block is not sent (AccuSim's block-0 sentinel).
    skips_first: bool,
    /// AccuSim's address of the first block sent, in sectors.
    sector: u32,
}

/// A file-level simulation in progress: feed it events with [`FileSim::step`].
pub struct FileSim<'a, P: Policy> {
    cfg: &'a FileSimConfig,
    trace: &'a PreparedFileTrace,
    level: CacheLevel<P>,
    ra: Box<dyn ReadAhead>,
    cluster: Clusterer,
    /// Request holding each block's pending I/O (NO_IO, QUEUED, or an index into `requests`).
    io_of: Vec<u32>,
    requests: Vec<Request>,
    completions: BinaryHeap<Reverse<(u64, u32)>>,
    dispatched: Vec<Dispatched>,
    now_ns: u64,
    tick: usize,
    events: u64,
    next_pos: Vec<u32>,
    unused_prefetch_rank: u64,
    /// Rank past the end given to each never-referenced block at its first prefetch.
    unused_rank_of: FxHashMap<Block, u64>,
    io: IoStats,
    /// Blocks queued by the current read() call (the group read-ahead must not evict).
    call_group: Vec<Block>,
    /// AccuSim's per-block "I/O done" flag (`done_flags`).
    done: Vec<bool>,
    /// Every request before this one has completed.
    first_incomplete: usize,
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
        let mut sim = FileSim {
            cfg,
            trace,
            level: CacheLevel::new(policy, capacity, universe),
            ra: cfg.read_ahead(),
            cluster: Clusterer::new(cfg.cluster_rules()),
            io_of: vec![NO_IO; universe],
            requests: Vec::new(),
            completions: BinaryHeap::new(),
            dispatched: Vec::new(),
            now_ns: 0,
            tick: 0,
            events: 0,
            next_pos: Vec::new(),
            unused_prefetch_rank: 0,
            unused_rank_of: FxHashMap::default(),
            io: IoStats::default(),
            call_group: Vec::new(),
            done: vec![true; universe],
            first_incomplete: 0,
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
        };
        if sim.level.policy.needs_oracle() {
            sim.next_pos = trace.oracle().1.clone();
        }
        sim
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
        if !self.cfg.departures.accusim_clock {
            self.unplug_by_timer(self.now_ns + ev.think_ns);
            self.now_ns += ev.think_ns;
            self.proc_ns += ev.think_ns;
        } else if is_io && ev.think_ns > 0 && (self.now_ns > 0 || self.disk_event_before(ev)) {
            // AccuSim: a read or write record adds its compute time and 1 µs once its clock is
            // non-zero. The clock follows the disk simulator's events, so it starts at the first
            // wait, or at the first record whose compute time reaches past the simulator's first
            // event after a request issued at time 0.
            self.now_ns += ev.think_ns + 1000;
            self.proc_ns += ev.think_ns;
        }
        self.complete_until(self.now_ns);
        let d = (ev.pid, ev.fd);
        match ev.kind {
            FileEventKind::Open => {
                self.ra.reset(d);
                self.on_open(ev.file);
            }
            FileEventKind::Close => self.ra.forget(d),
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
        if self.requests.is_empty() {
            return false;
        }
        let first_event_ns = match &self.cfg.disk {
            Some(DiskConfig::Hdd(p)) => (p.overheads.read_miss_after_read_ms * 1e6) as u64,
            _ => 0,
        };
        ev.think_ns + 1000 > first_event_ns
    }

    /// Issues what is still queued, lets every request complete, and returns the counters.
    pub fn finish(self) -> (crate::level::LevelStats, IoStats) {
        let (stats, io, _) = self.finish_with_store();
        (stats, io)
    }

    /// Like [`FileSim::finish`], also returning ClusterFetch's learned store (when it is on).
    pub fn finish_with_store(
        mut self,
    ) -> (crate::level::LevelStats, IoStats, Option<PrefetchStore>) {
        let exec_ns = self.drain();
        let store = self.after_run(exec_ns);
        debug_assert!(self.requests.iter().all(|r| r.completed));
        // AccuSim's clock also adds 1 µs per read record, which is neither think time nor waiting.
        debug_assert!(self.cfg.departures.accusim_clock || exec_ns == self.proc_ns + self.wait_ns);
        let stats = self.level.stats().clone();
        self.io.prefetch_unused_evicted = stats.prefetch_unused_evicted;
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
            self.io.disk_utilization = Some(if exec_ns == 0 {
                0.0
            } else {
                busy_ns as f64 / exec_ns as f64
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
        let (mut first, mut count) = (r.first_index, r.blocks.len() as u64);
        if self.cfg.departures.block0_sentinel && first == 0 && count > 1 {
            // AccuSim sends a request starting at file block 0 from block 1.
            first = 1;
            count -= 1;
        }
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
        if self.cfg.departures.inode_spaced_layout {
            (file.wrapping_mul(2048).wrapping_add(index * 8) as u32 % 17_783_240) as u64
                * (spb / 8).max(1)
        } else if self.cfg.placement == Placement::Scattered {
            cf::scattered_start(self.trace.trace.names.get(&file), file) + index * spb
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
        if let Some(disk) = &mut self.disk {
            disk.dispatch_before(t, &mut self.dispatched);
            self.record_dispatches();
        }
        while let Some(&Reverse((done, req))) = self.completions.peek() {
            if done > t {
                break;
            }
            self.completions.pop();
            let r = &mut self.requests[req as usize];
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
    }

    /// AccuSim marks the blocks a request sent as done when it completes.
    fn mark_done(&mut self, req: u32) {
        let r = &self.requests[req as usize];
        for &b in &r.blocks[r.skips_first as usize..] {
            self.done[b as usize] = true;
        }
    }

    /// AccuSim's sector of block `index` of file `inode` (1 MB per inode, 32-bit arithmetic).
    fn accusim_sector(inode: u64, index: u64) -> u32 {
        (inode as u32)
            .wrapping_shl(11)
            .wrapping_add((index as u32).wrapping_mul(8))
            % 17_783_240
    }

    /// The newest pending request that AccuSim's address test matches with block `index` of
    /// `file` (`late_by_address`).
    fn pending_by_address(&mut self, file: u64, index: u64) -> Option<u32> {
        while self
            .requests
            .get(self.first_incomplete)
            .is_some_and(|r| r.completed)
        {
            self.first_incomplete += 1;
        }
        let s = Self::accusim_sector(file, index) as u64;
        (self.first_incomplete..self.requests.len())
            .rev()
            .find(|&i| {
                let r = &self.requests[i];
                let n = (r.blocks.len() - r.skips_first as usize) as u64;
                !r.completed && r.sector as u64 <= s && s < r.sector as u64 + n
            })
            .map(|i| i as u32)
    }

    /// Notes the completion times of requests the device has just started.
    fn record_dispatches(&mut self) {
        for d in self.dispatched.drain(..) {
            #[cfg(test)]
            self.service_log.push(d);
            self.requests[d.id as usize].done_ns = d.done_ns;
            self.responses_ns.push(d.done_ns - d.arrival_ns);
            self.completions.push(Reverse((d.done_ns, d.id)));
        }
    }

    /// When request `id` completes, letting the device run until it has started it. Only valid
    /// while the program is blocked: no request can arrive before the answer.
    fn done_of(&mut self, id: u32) -> u64 {
        self.promote(id);
        while self.requests[id as usize].done_ns == NOT_STARTED {
            let disk = self
                .disk
                .as_mut()
                .expect("only device requests wait to start");
            let d = disk
                .dispatch_next()
                .expect("a request not started is waiting");
            self.dispatched.push(d);
            self.record_dispatches();
        }
        self.requests[id as usize].done_ns
    }

    fn queue(&mut self, file: u64, index: u64, b: Block, demand: bool, pin: bool) {
        self.io_of[b as usize] = QUEUED;
        self.done[b as usize] = false;
        if pin && !self.cfg.departures.evict_in_flight {
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
            let id = self.requests.len() as u32;
            let n = r.blocks.len() as u64;
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
            let access = self.disk.is_some().then(|| self.disk_access(&r));
            let done_ns = match (&mut self.disk, access) {
                (Some(disk), Some(access)) => {
                    disk.submit(id, access, self.now_ns);
                    NOT_STARTED
                }
                _ => {
                    self.completions.push(Reverse((self.now_ns, id)));
                    self.now_ns
                }
            };
            let skips_first = self.cfg.departures.block0_sentinel && r.first_index == 0 && n > 1;
            self.requests.push(Request {
                done_ns,
                completed: false,
                background: false,
                sector: Self::accusim_sector(r.file, r.first_index + skips_first as u64),
                skips_first,
                blocks: r.blocks,
            });
        }
        sync
    }

    /// One demand reference to block `index` of `file`: looks it up, counts it, and queues its
    /// read if it missed. Returns what the lookup found, for the read-ahead engine. `lookahead`:
    /// the reference is made by the read-ahead loop ([`crate::policy::Access::lookahead`]).
    fn demand(&mut self, file: u64, index: u64, lookahead: bool) -> Lookup {
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
        let departures = self.cfg.departures;
        let in_flight = resident
            && if departures.done_flags {
                !self.done[b as usize]
            } else {
                pending != NO_IO
            };
        let lookup = match (resident, marked, in_flight) {
            (false, _, _) => Lookup::Miss,
            (true, true, _) => Lookup::HitMarked,
            (true, false, true) => Lookup::InFlight,
            (true, false, false) => Lookup::Hit,
        };
        if !resident {
            // Read on demand even when no frame can be freed (every one pinned).
            self.level.access_from(b, next, lookahead);
            if self.level.frames().is_resident(b) || self.io_of[b as usize] == NO_IO {
                self.queue(file, index, b, true, true);
            }
        } else if in_flight {
            if departures.in_flight_reuse_hits && !self.level.frames().is_unused_prefetch(b) {
                self.level.access(b, next);
            } else {
                self.level.access_in_flight(b, next);
            }
            let awaited = if departures.late_by_address {
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
            self.level.access(b, next);
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
        let window_covers_call = self.cfg.departures.window_covers_call;
        let (first, last) = (offset / bs, (offset + len - 1) / bs);
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
            let lookup = self.demand(file, index, false);
            let (base, blocks) = self.trace.layout.range(file);
            let plan = {
                let frames = self.level.frames();
                let cached = |j: u64| j < blocks as u64 && frames.is_resident(base + j as Block);
                self.ra.after_lookup(d, index, lookup, &cached)
            };
            if window_covers_call {
                if let Some(window_end) = plan.window_end {
                    while cb <= window_end.min(last) {
                        self.demand(file, cb, false);
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
                        self.demand(file, j, true);
                        cb += 1;
                    }
                    if stop_at_cached {
                        break;
                    }
                    continue;
                }
                if reaches_demand {
                    self.demand(file, j, true);
                    cb += 1;
                    continue;
                }
                let mut next_use = self.next_use(pb);
                if next_use == NEVER
                    && self.cfg.departures.opt_unused_prefetch_after_end
                    && self.level.policy.needs_oracle()
                    && self.trace.oracle().1[pb as usize] == dense::NEVER
                {
                    let rank = self.unused_rank_of.entry(pb).or_insert_with(|| {
                        self.unused_prefetch_rank += 1;
                        self.unused_prefetch_rank
                    });
                    next_use = self.trace.refs.len() as u64 + *rank;
                }
                if guard_group {
                    let victim = self.level.peek_victim(pb, next_use);
                    if victim.is_some_and(|v| self.call_group.contains(&v)) {
                        break;
                    }
                }
                if self.level.prefetch(pb, next_use) {
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

/// Runs every event of `trace` through `policy` with `capacity` blocks.
pub fn simulate_file<P: Policy>(
    policy: P,
    trace: &PreparedFileTrace,
    capacity: usize,
    cfg: &FileSimConfig,
) -> (crate::level::LevelStats, IoStats) {
    let (stats, io, _) = simulate_file_with_store(policy, trace, capacity, cfg, None);
    (stats, io)
}

/// Like [`simulate_file`], with ClusterFetch starting from `store` (empty when `None`); also
/// returns the store learned by the end of the run (when ClusterFetch is on).
pub fn simulate_file_with_store<P: Policy>(
    policy: P,
    trace: &PreparedFileTrace,
    capacity: usize,
    cfg: &FileSimConfig,
    store: Option<&PrefetchStore>,
) -> (crate::level::LevelStats, IoStats, Option<PrefetchStore>) {
    let mut sim = FileSim::new(policy, trace, capacity, cfg);
    if let Some(store) = store {
        sim.set_store(store.clone());
    }
    for ev in &trace.trace.events {
        sim.step(ev);
    }
    sim.finish_with_store()
}

struct SimulateFile<'a> {
    trace: &'a PreparedFileTrace,
    capacity: usize,
    cfg: &'a FileSimConfig,
    store: Option<&'a PrefetchStore>,
    /// Measure the launch window even without one set (the baseline of a ClusterFetch run).
    report_launch: bool,
}

impl PolicyVisitor for SimulateFile<'_> {
    type Output = (crate::level::LevelStats, IoStats, Option<PrefetchStore>);
    fn visit<P: Policy>(self, policy: P) -> Self::Output {
        let mut sim = FileSim::new(policy, self.trace, self.capacity, self.cfg);
        if let Some(store) = self.store {
            sim.set_store(store.clone());
        }
        if self.report_launch {
            sim.report_launch();
        }
        for ev in &self.trace.trace.events {
            sim.step(ev);
        }
        sim.finish_with_store()
    }
}

/// Runs one policy at one size over a file-level trace.
pub fn run_file_one(
    spec: &PolicySpec,
    trace: &PreparedFileTrace,
    capacity: usize,
    cfg: &FileSimConfig,
) -> Result<RunResult> {
    Ok(run_file_one_with_store(spec, trace, capacity, cfg, None)?.0)
}

/// Runs one policy at one size over a file-level trace with ClusterFetch starting from `store`;
/// returns the result and the store learned (when ClusterFetch is on). With ClusterFetch on, the
/// same run without it is simulated too, for coverage and the launch-time reduction.
pub fn run_file_one_with_store(
    spec: &PolicySpec,
    trace: &PreparedFileTrace,
    capacity: usize,
    cfg: &FileSimConfig,
    store: Option<&PrefetchStore>,
) -> Result<(RunResult, Option<PrefetchStore>)> {
    cfg.validate()?;
    let run = |cfg: &FileSimConfig, report_launch: bool| {
        registry::build(
            spec,
            capacity,
            trace.layout.universe(),
            SimulateFile {
                trace,
                capacity,
                cfg,
                store,
                report_launch,
            },
        )
    };
    let (stats, mut io, learned) = run(cfg, false)?;
    if cfg.clusterfetch.is_some() {
        let without = FileSimConfig {
            clusterfetch: None,
            ..cfg.clone()
        };
        let (base_stats, base_io, _) = run(&without, true)?;
        cf::compare_with_baseline(&mut io, &base_stats, &base_io);
    }
    let result = RunResult {
        trace: trace.trace.source.clone(),
        policy: spec.label(),
        cache_blocks: capacity as u64,
        block_size: trace.block_size,
        unique_blocks: trace.distinct as u64,
        requests: stats.requests,
        hits: stats.hits,
        misses: stats.misses,
        hit_ratio: stats.hit_ratio(),
        evictions: stats.evictions,
        prefetch: Some(cfg.prefetch_name()),
        io: Some(io),
        levels: None,
    };
    Ok((result, learned))
}

/// Runs every policy at every size over a file-level trace, in parallel, in grid order.
pub fn run_file_grid(
    specs: &[PolicySpec],
    sizes: &[CacheSize],
    trace: &PreparedFileTrace,
    cfg: &FileSimConfig,
) -> Result<Vec<RunResult>> {
    cfg.validate()?;
    let capacities: Vec<usize> = sizes
        .iter()
        .map(|s| s.resolve(trace.distinct, trace.block_size))
        .collect::<Result<_>>()?;
    if specs.iter().any(|s| s.info.name == "opt") {
        trace.oracle();
    }
    let grid: Vec<(&PolicySpec, usize)> = specs
        .iter()
        .flat_map(|s| capacities.iter().map(move |&c| (s, c)))
        .collect();
    grid.par_iter()
        .map(|&(spec, c)| run_file_one(spec, trace, c, cfg))
        .collect()
}

#[path = "filesim_cf.rs"]
mod cf;
pub use cf::{CfStats, LaunchStats, LaunchWindow, Placement};

#[cfg(test)]
#[path = "filesim_props.rs"]
mod props;
