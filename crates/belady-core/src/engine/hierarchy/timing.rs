//! The hierarchy's part of the event-driven file engine's clock: the links between the levels,
//! the low-priority reload queue and the demotion waits (the multi-level paper's section 5).
//!
//! The file engine's event loop consults this component; it has no clock of its own:
//! - a request crosses one link per level it reaches below the client: `link_latency_ns` each
//!   way down, and on the way back each link costs the latency plus the transfer of the
//!   request's blocks at `link_bytes_per_s`. A request some block of which misses every level
//!   crosses them all and reaches the device after the downward latencies;
//! - a reload (eviction-based placement) waits in a FIFO of at most `reload_queue` entries (more
//!   are dropped: a reload is a hint). The engine offers the queue's head to its device as a
//!   background request, which the device starts only when idle with no demand request waiting;
//!   a started reload is not preempted. When its turn comes a reload whose block the level
//!   holds already is cancelled, and one that an exclusive level below holds is served by that
//!   level without the device. The block is placed when the reload completes, and reloads its
//!   evictions cause further down are queued at that moment;
//! - before a call's requests leave, every block the client sent down (demote, exclusive) crosses
//!   the first link: the client waits one block transfer per demotion (`demotion_wait_ns`).

use crate::error::Result;
use crate::policy::Block;
pub use crate::run::rows::TimingReport;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// Timing parameters of the links between levels and of the reload queue.
#[derive(Clone, Debug, PartialEq)]
pub struct Links {
    /// One-way latency of a message between adjacent levels, ns.
    pub link_latency_ns: u64,
    /// Bandwidth of each link, bytes per second.
    pub link_bytes_per_s: f64,
    /// Time the client computes before each read call, ns, on top of the trace's own.
    pub think_ns: u64,
    /// Most reloads waiting for the disk; further ones are dropped.
    pub reload_queue: usize,
}

impl Default for Links {
    /// A 1 Gbit/s link with 10 µs latency, no think time, 4096 queued reloads.
    fn default() -> Self {
        Links {
            link_latency_ns: 10_000,
            link_bytes_per_s: 125e6,
            think_ns: 0,
            reload_queue: 4096,
        }
    }
}

impl Links {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<()> {
        use crate::limits::{check_time, TimeUnit};
        crate::limits::check_rate(
            "link_mbps",
            self.link_bytes_per_s * 8.0 / 1e6,
            1e6 / 8.0,
            "Mb/s",
            crate::limits::MIN_LINK_BYTES_PER_S,
        )?;
        check_time(
            "link_latency_us",
            self.link_latency_ns as f64 / 1e3,
            TimeUnit::Us,
        )?;
        check_time("think_us", self.think_ns as f64 / 1e3, TimeUnit::Us)
    }

    /// Time to send `bytes` over one link, latency included.
    pub fn transfer_ns(&self, bytes: u64) -> u64 {
        self.link_latency_ns + (bytes as f64 * 1e9 / self.link_bytes_per_s).ceil() as u64
    }
}

/// A reload waiting for, or in service on, the device.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Pending {
    /// The level it places into.
    pub level: usize,
    /// The block.
    pub block: Block,
    /// When it was queued (waiting) or completes (in service), ns.
    pub at: u64,
}

/// The links, reload queue and time counters of a hierarchy on the file engine.
#[derive(Clone, Debug)]
pub struct BelowTiming {
    pub(crate) links: Links,
    block_size: u32,
    queue: VecDeque<Pending>,
    /// The queue's head is submitted to the device (as its one background request).
    pub(crate) offered: bool,
    /// The reload the device is serving.
    pub(crate) in_service: Option<Pending>,
    /// When the latest read reached the first level below (reloads it causes queue then).
    issue_at: u64,
    /// Demotions the client made since the last call's requests left.
    demotions: u64,
    /// When the latest reload the device served completes.
    pub(crate) reload_done_ns: u64,
    /// Time back up the links of each device request not started yet, by request id.
    pub(crate) up_of: FxHashMap<u32, u64>,
    pub(crate) report: TimingReport,
}

impl BelowTiming {
    /// The component for `links`, with blocks of `block_size` bytes, on a device named `disk`.
    pub fn new(links: &Links, block_size: u32, disk: &str) -> BelowTiming {
        BelowTiming {
            links: links.clone(),
            block_size,
            queue: VecDeque::new(),
            offered: false,
            in_service: None,
            issue_at: 0,
            demotions: 0,
            reload_done_ns: 0,
            up_of: FxHashMap::default(),
            report: TimingReport {
                disk: disk.to_string(),
                ..TimingReport::default()
            },
        }
    }

    /// A read left the client at `now_ns` (reloads it causes are queued one link later).
    pub(crate) fn read_at(&mut self, now_ns: u64) {
        self.issue_at = now_ns + self.links.link_latency_ns;
    }

    /// Queues a reload of `block` for `level` at `at` (ns; `None`: when the latest read reached
    /// the first level below), or drops it when the queue is full.
    pub(crate) fn queue_reload(&mut self, level: usize, block: Block, at: Option<u64>) {
        if self.queue.len() >= self.links.reload_queue {
            self.report.reloads_dropped += 1;
            return;
        }
        self.report.reloads_queued += 1;
        self.queue.push_back(Pending {
            level,
            block,
            at: at.unwrap_or(self.issue_at),
        });
    }

    /// The reload next in line.
    pub(crate) fn head(&self) -> Option<Pending> {
        self.queue.front().copied()
    }

    /// Takes the head off the queue (started, cancelled or served below).
    pub(crate) fn pop(&mut self) -> Option<Pending> {
        self.offered = false;
        self.queue.pop_front()
    }

    /// The client sent one block down.
    pub(crate) fn demoted(&mut self) {
        self.demotions += 1;
    }

    /// The wait for the demotions made since the last call, now charged to the client.
    pub(crate) fn take_demotion_wait(&mut self) -> u64 {
        let ns = self.demotions * self.links.transfer_ns(self.block_size as u64);
        self.demotions = 0;
        self.report.demotion_wait_ns += ns;
        ns
    }

    /// Time down `hops` links.
    pub(crate) fn down_ns(&self, hops: u64) -> u64 {
        hops * self.links.link_latency_ns
    }

    /// Time back up `hops` links carrying `blocks` blocks.
    pub(crate) fn up_ns(&self, hops: u64, blocks: u64) -> u64 {
        hops * self.links.transfer_ns(blocks * self.block_size as u64)
    }

    /// The report at the end of a run: `run_ns` of which `proc_ns` computing, over `requests`
    /// demand references.
    pub(crate) fn report(&self, run_ns: u64, proc_ns: u64, requests: u64) -> TimingReport {
        TimingReport {
            run_time_ns: run_ns,
            proc_ns,
            mean_response_ns: if requests == 0 {
                0.0
            } else {
                run_ns.saturating_sub(proc_ns) as f64 / requests as f64
            },
            reloads_pending: self.queue.len() as u64 + u64::from(self.in_service.is_some()),
            ..self.report.clone()
        }
    }
}
