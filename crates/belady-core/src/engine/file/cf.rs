//! ClusterFetch and launch measurement inside the file-level engine.
//!
//! The engine calls these hooks: [`FileSim::before_event`] (the launch window's start),
//! [`FileSim::on_open`] (the launch marker; ClusterFetch's open log and its prefetch of a trigger
//! file's blocks), [`FileSim::cf_observe`] (every demand or read-ahead request issued enters
//! ClusterFetch's queue; its own prefetches do not), [`FileSim::promote`] (a program waiting on a
//! low-priority request that has not started moves it to the foreground) and
//! [`FileSim::after_run`] (counters, and the learned store).
//!
//! ClusterFetch's prefetches enter the cache through [`CacheLevel::prefetch`] and carry the frame
//! table's hint flag, so the frame table tells which of them were used. Their requests go to the
//! device queue's background class: the device serves them only when no demand or read-ahead
//! request waits.
//!
//! [`CacheLevel::prefetch`]: crate::cache::level::CacheLevel::prefetch

use super::{FileSim, FileSimConfig, IoStats, PreparedFileTrace, Request, NOT_STARTED};
use crate::cache::level::LevelStats;
use crate::disk::DiskAccess;
use crate::error::{Error, Result};
use crate::policy::{Block, Policy};
use crate::prefetch::clusterfetch::{
    cluster_by_address, Burst, BurstDetector, ClusterFetchConfig, Pacer, PrefetchStore,
};
use crate::run::rows::{CfStats, LaunchStats};
use crate::trace::file::FileTrace;
use rustc_hash::FxHashMap;
use std::cmp::Reverse;

/// Where files lie on the device (AccuSim's inode spacing, a departure, overrides both).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Placement {
    /// One after another in order of first access: a freshly written or defragmented disk, the
    /// best case for a cold start (the program reads the disk almost sequentially).
    #[default]
    Contiguous,
    /// Each file contiguous, starting at a place drawn from its name (CRC-32) within the first
    /// 8 GiB of the device: an aged file system, where a program's files lie far apart.
    Scattered,
}

/// Names `--layout` takes.
pub const PLACEMENT_NAMES: &[&str] = &["contiguous", "scattered"];

impl Placement {
    /// The placement called `name`.
    pub fn parse(name: &str) -> Result<Placement> {
        match name {
            "contiguous" => Ok(Placement::Contiguous),
            "scattered" => Ok(Placement::Scattered),
            _ => Err(Error::config(
                "layout",
                name,
                format!("expected one of {}", PLACEMENT_NAMES.join(", ")),
            )),
        }
    }

    /// The name `parse` takes.
    pub fn name(self) -> &'static str {
        match self {
            Placement::Contiguous => "contiguous",
            Placement::Scattered => "scattered",
        }
    }
}

/// Sectors of the region scattered files start in (8 GiB).
const SCATTER_SECTORS: u64 = 16 << 20;

/// First sector of a file under [`Placement::Scattered`]: 4 KiB-aligned, from its name (or its
/// id when the trace names none), so the same file lies at the same place in every trace.
pub(super) fn scattered_start(name: Option<&String>, file: u64) -> u64 {
    let h = match name {
        Some(n) => crc32fast::hash(n.as_bytes()),
        None => crc32fast::hash(&file.to_le_bytes()),
    };
    (h as u64 % (SCATTER_SECTORS / 8)) * 8
}

/// The part of a trace measured as a launch: from event `start_event` (0: the start) to the first
/// later open of file `until_open`, or to the end of the trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaunchWindow {
    /// Index of the event the launch starts with.
    pub start_event: usize,
    /// The file whose open ends the launch; `None`: the end of the trace.
    pub until_open: Option<u64>,
}

impl PreparedFileTrace {
    /// `trace` replayed twice with one cache, the launch measured on the second replay: a warm
    /// start, with whatever the first replay left cached.
    pub fn warm(trace: FileTrace, block_size: u32) -> Result<Self> {
        let first = trace.events.len();
        let mut twice = trace;
        twice.events.extend_from_within(..);
        let mut prepared = PreparedFileTrace::new(twice, block_size)?;
        prepared.launch = Some(LaunchWindow {
            start_event: first,
            until_open: None,
        });
        Ok(prepared)
    }

    /// Ends the launch at the first open of the file named `name` (exactly as the trace names it)
    /// once the launch has started.
    pub fn set_launch_until_open(&mut self, name: &str) -> Result<()> {
        let file = self
            .names()
            .iter()
            .find(|(_, n)| n.as_str() == name)
            .map(|(&f, _)| f)
            .ok_or_else(|| {
                Error::config(
                    "launch_until_open",
                    name,
                    format!(
                        "{} has no file of that name (names are matched exactly, as the trace's file lines give them)",
                        self.source()
                    ),
                )
            })?;
        self.launch
            .get_or_insert_with(LaunchWindow::default)
            .until_open = Some(file);
        Ok(())
    }
}

#[derive(Copy, Clone, Debug)]
struct Snapshot {
    now_ns: u64,
    requests: u64,
    misses: u64,
    disk_requests: u64,
}

/// Progress of the launch window through a run.
#[derive(Clone, Debug, Default)]
pub(super) struct LaunchTracker {
    window: Option<LaunchWindow>,
    events: usize,
    start: Option<Snapshot>,
    end: Option<Snapshot>,
}

impl LaunchTracker {
    pub(super) fn new(window: Option<LaunchWindow>) -> Self {
        LaunchTracker {
            window,
            ..LaunchTracker::default()
        }
    }
}

/// ClusterFetch's state in a run.
pub(super) struct CfState {
    cfg: ClusterFetchConfig,
    detector: BurstDetector,
    store: PrefetchStore,
    pacer: Pacer,
    /// Store key of each file of the trace: its name, or `#ID`.
    name_of: FxHashMap<u64, String>,
    id_of: FxHashMap<String, u64>,
    stats: CfStats,
}

impl CfState {
    pub(super) fn new(cfg: &FileSimConfig, trace: &PreparedFileTrace) -> Option<CfState> {
        let cf = cfg.clusterfetch.clone()?;
        let mut name_of: FxHashMap<u64, String> = FxHashMap::default();
        let mut id_of: FxHashMap<String, u64> = FxHashMap::default();
        for &file in trace.layout.files() {
            let name = match trace.names().get(&file) {
                Some(n) => n.clone(),
                None => format!("#{file}"),
            };
            id_of.entry(name.clone()).or_insert(file);
            name_of.insert(file, name);
        }
        Some(CfState {
            detector: BurstDetector::new(&cf),
            store: PrefetchStore::new(),
            pacer: Pacer::new(cf.bandwidth_bytes_per_s),
            stats: CfStats {
                store_limit_bytes: cf.store_limit_bytes,
                ..CfStats::default()
            },
            cfg: cf,
            name_of,
            id_of,
        })
    }

    fn learn(&mut self, burst: Burst) {
        let Some(trigger) = self.name_of.get(&burst.trigger) else {
            return;
        };
        let name_of = &self.name_of;
        let blocks = burst
            .blocks
            .iter()
            .filter_map(|&(f, i)| name_of.get(&f).map(|n| (n.as_str(), i)));
        self.store
            .learn(trigger, blocks, self.cfg.store_limit_bytes);
        self.stats.bursts_learned += 1;
    }
}

impl<P: Policy> FileSim<'_, P> {
    /// Starts ClusterFetch from `store` instead of an empty one (no effect when it is off).
    pub fn set_store(&mut self, store: PrefetchStore) {
        if let Some(cf) = &mut self.cf {
            cf.store = store;
        }
    }

    /// Reports the launch window even when neither the trace sets one nor ClusterFetch is on.
    pub(super) fn report_launch(&mut self) {
        if self.launch.window.is_none() {
            self.launch.window = Some(LaunchWindow::default());
        }
    }

    fn snapshot(&self, now_ns: u64) -> Snapshot {
        let s = self.level.stats();
        Snapshot {
            now_ns,
            requests: s.requests,
            misses: s.misses,
            disk_requests: self.io.disk_requests,
        }
    }

    /// Before each event: the launch may start here.
    pub(super) fn before_event(&mut self) {
        let Some(w) = &self.launch.window else { return };
        if self.launch.events == w.start_event && self.launch.start.is_none() {
            self.launch.start = Some(self.snapshot(self.now_ns));
        }
        self.launch.events += 1;
    }

    /// A file was opened: the launch may end here; ClusterFetch logs the open and, for a trigger
    /// file, prefetches its blocks.
    pub(super) fn on_open(&mut self, file: u64) {
        if let Some(w) = &self.launch.window {
            if w.until_open == Some(file)
                && self.launch.start.is_some()
                && self.launch.end.is_none()
            {
                self.launch.end = Some(self.snapshot(self.now_ns));
            }
        }
        let Some(mut cf) = self.cf.take() else { return };
        cf.detector.on_open(file);
        let key = cf.name_of.get(&file);
        if let Some(runs) = key.and_then(|k| cf.store.lookup(k)) {
            cf.stats.triggers += 1;
            let mut wanted: Vec<(u64, Block)> = Vec::new();
            for (name, start, len) in runs {
                let Some(&f) = cf.id_of.get(name) else {
                    continue;
                };
                let (base, blocks) = self.trace.layout.range(f);
                for index in start..(start + len).min(blocks as u64) {
                    let b = base + index as Block;
                    if !self.level.frames().is_resident(b) {
                        wanted.push((self.lba_of(f, index), b));
                    }
                }
            }
            wanted.sort_unstable();
            self.prefetch_hinted(&mut cf, &wanted);
        }
        self.cf = Some(cf);
    }

    /// Inserts `wanted` (address-sorted) as hinted prefetches, at most half the cache per trigger
    /// so a large entry cannot pin every frame, and submits them as low-priority requests of
    /// address-consecutive blocks.
    fn prefetch_hinted(&mut self, cf: &mut CfState, wanted: &[(u64, Block)]) {
        let budget = (self.level.frames().capacity() / 2).max(1);
        let mut taken: Vec<(u64, Block)> = Vec::new();
        for &(lba, b) in wanted.iter().take(budget) {
            let next = self.next_use(b);
            if !self.level.prefetch(b, next) {
                break; // every frame is pinned
            }
            // The levels below see ClusterFetch's reads; its requests always go to the device.
            self.send_down(b, false);
            self.level.set_hinted(b);
            if self.rules.pins_in_flight() {
                self.level.set_pinned(b, true);
            }
            taken.push((lba, b));
        }
        let spb = self.sectors_per_block();
        for run in cluster_by_address(&taken, spb, self.cfg.max_request_blocks() as usize) {
            let id = self.requests.next_id();
            let blocks: Vec<Block> = run.iter().map(|&(_, b)| b).collect();
            for &b in &blocks {
                self.io_of[b as usize] = id;
            }
            let n = blocks.len() as u64;
            cf.stats.requests += 1;
            cf.stats.prefetched_blocks += n;
            let access = DiskAccess {
                lba: run[0].0,
                sectors: (n * spb).min(u32::MAX as u64) as u32,
                write: false,
            };
            let release = cf
                .pacer
                .release(self.now_ns, n * self.cfg.block_size as u64);
            let done_ns = match &mut self.disk {
                Some(disk) => {
                    disk.submit_background(id, access, release);
                    NOT_STARTED
                }
                None => {
                    self.completions.push(Reverse((self.now_ns, id)));
                    self.now_ns
                }
            };
            self.requests.push(Request {
                done_ns,
                completed: false,
                background: self.disk.is_some(),
                blocks,
                skips_first: false,
                // Outside AccuSim's address space: its address test never matches a prefetch.
                sector: u32::MAX,
            });
        }
    }

    /// A demand or read-ahead request was issued now: it enters ClusterFetch's queue.
    pub(super) fn cf_observe(&mut self, r: &super::DiskRequest) {
        let Some(cf) = &mut self.cf else { return };
        let n = r.blocks.len() as u64;
        if let Some(burst) = cf.detector.observe(self.now_ns, r.file, r.first_index, n) {
            cf.learn(burst);
        }
    }

    /// The program waits for request `id`: a low-priority request that has not started moves to
    /// the foreground. (When a call waits for several requests, one promoted after the device
    /// picked another of them may lose a seek-aware ordering; FCFS order is unaffected.)
    pub(super) fn promote(&mut self, id: u32) {
        let Some(r) = self.requests.get_mut(id) else {
            return;
        };
        if !r.background {
            return;
        }
        r.background = false;
        if r.done_ns != NOT_STARTED {
            return;
        }
        if let (Some(disk), Some(cf)) = (&mut self.disk, &mut self.cf) {
            if disk.promote(id, self.now_ns) {
                cf.stats.promoted += 1;
            }
        }
    }

    /// After the last request completed: the launch's and ClusterFetch's counters; the store.
    pub(super) fn after_run(&mut self, exec_ns: u64) -> Option<PrefetchStore> {
        if let (Some(w), Some(start)) = (&self.launch.window, self.launch.start) {
            let end = self.launch.end.unwrap_or_else(|| self.snapshot(exec_ns));
            let until = match w.until_open {
                Some(f) => format!(
                    "open {}",
                    self.trace
                        .names()
                        .get(&f)
                        .cloned()
                        .unwrap_or_else(|| format!("#{f}"))
                ),
                None => "end of trace".to_string(),
            };
            self.io.launch = Some(LaunchStats {
                start_event: w.start_event as u64,
                until,
                reached: self.launch.end.is_some(),
                time_s: (end.now_ns - start.now_ns) as f64 / 1e9,
                requests: end.requests - start.requests,
                misses: end.misses - start.misses,
                disk_requests: end.disk_requests - start.disk_requests,
            });
        }
        let mut cf = self.cf.take()?;
        if let Some(burst) = cf.detector.finish() {
            cf.learn(burst);
        }
        let frames = self.level.frames();
        let unused_now = if cf.stats.prefetched_blocks == 0 {
            0
        } else {
            frames
                .resident_blocks()
                .filter(|&b| frames.is_hinted(b) && frames.is_unused_prefetch(b))
                .count() as u64
        };
        let evicted = self.level.stats().hinted_unused_evicted;
        let mut stats = cf.stats.clone();
        stats.used_blocks = stats.prefetched_blocks - evicted - unused_now;
        stats.accuracy = if stats.prefetched_blocks == 0 {
            0.0
        } else {
            stats.used_blocks as f64 / stats.prefetched_blocks as f64
        };
        stats.store_triggers = cf.store.len() as u64;
        stats.store_bytes = cf.store.bytes();
        self.io.clusterfetch = Some(stats);
        Some(cf.store)
    }
}

/// Fills ClusterFetch's coverage and launch-time reduction from the same run without it.
pub(super) fn compare_with_baseline(io: &mut IoStats, base_stats: &LevelStats, base: &IoStats) {
    let (Some(cf), Some(launch)) = (io.clusterfetch.as_mut(), io.launch.as_ref()) else {
        return;
    };
    let (base_misses, base_time) = match &base.launch {
        Some(l) => (l.misses, l.time_s),
        None => (base_stats.misses, base.exec_time_s.unwrap_or(0.0)),
    };
    cf.baseline_misses = Some(base_misses);
    cf.coverage =
        (base_misses > 0).then(|| (base_misses as f64 - launch.misses as f64) / base_misses as f64);
    cf.baseline_launch_time_s = Some(base_time);
    cf.launch_time_reduction = (base_time > 0.0).then(|| 1.0 - launch.time_s / base_time);
}
