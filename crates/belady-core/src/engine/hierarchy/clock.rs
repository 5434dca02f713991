//! The reference model's clock (test code only): time for a block hierarchy run, one client
//! issuing references one at a time over links to the lower levels and a disk below the last
//! level. Production timing is the file engine's one clock, with the links and reload queue of
//! `timing.rs`; the tests check that engine against this model.
//!
//! A reference starts `think_ns` after the previous one completed. A client hit takes no time. A
//! miss sends a request down one link per level (`link_latency_ns` each); a hit at level `i`
//! returns the block over `i` links, each costing the latency plus the block's transfer time at
//! `link_bytes_per_s`; a miss everywhere is a disk read at the moment the request reaches the
//! last level, then the block travels up every link.
//!
//! Reloads (eviction-based placement) are low priority, as in the paper's section 5: each waits
//! in a queue of at most `reload_queue` requests (more are dropped, which is harmless: a reload
//! is a hint) and the disk starts one only when it is idle and no demand read is waiting. A
//! started reload is not preempted, so a demand read that arrives while one is in service waits
//! for it (`reload_wait_ns`); the block is placed when its reload completes (at the next moment
//! the simulation looks: the start of a reference or a demand read's arrival at the disk), and the
//! reloads its evictions cause further down are queued at its completion time. A
//! queued reload whose block is resident by the time the disk would start it is cancelled.
//!
//! Demotions cost the client: before the read for a miss can leave, the block the client evicted
//! must be sent down (one block transfer on the first link, `demotion_wait_ns`), as the paper
//! describes for DEMOTE. Eviction notices for eviction-based placement ride on the read and cost
//! nothing.

use super::{Hierarchy, HierarchyResult};
use crate::disk::{DiskAccess, DiskConfig, DiskModel, SECTOR_BYTES};
use crate::error::{Error, Result};
use crate::policy::Block;
pub use crate::run::rows::TimingReport;
use std::collections::VecDeque;

/// Timing parameters of a hierarchy run.
#[derive(Clone, Debug, PartialEq)]
pub struct HierarchyTiming {
    /// The device below the last level.
    pub disk: DiskConfig,
    /// Its name in results (preset or file).
    pub disk_name: String,
    /// One-way latency of a message between adjacent levels, ns.
    pub link_latency_ns: u64,
    /// Bandwidth of each link, bytes per second.
    pub link_bytes_per_s: f64,
    /// Time from one reference's completion to the next reference, ns.
    pub think_ns: u64,
    /// Most reloads waiting for the disk; further ones are dropped.
    pub reload_queue: usize,
}

impl HierarchyTiming {
    /// Defaults for the links and the reload queue (a 1 Gbit/s link with 10 µs latency, no think
    /// time, 4096 queued reloads) over `disk`.
    pub fn new(disk: DiskConfig, disk_name: &str) -> HierarchyTiming {
        HierarchyTiming {
            disk,
            disk_name: disk_name.to_string(),
            link_latency_ns: 10_000,
            link_bytes_per_s: 125e6,
            think_ns: 0,
            reload_queue: 4096,
        }
    }

    /// Checks the parameters.
    pub fn validate(&self) -> Result<()> {
        self.disk.validate()?;
        if !(self.link_bytes_per_s.is_finite() && self.link_bytes_per_s > 0.0) {
            return Err(Error::config(
                "link_mbps",
                self.link_bytes_per_s * 8.0 / 1e6,
                "expected a bandwidth above 0",
            ));
        }
        Ok(())
    }

    /// Time to send one block of `block_size` bytes over one link, latency included.
    pub fn block_transfer_ns(&self, block_size: u32) -> u64 {
        self.link_latency_ns + (block_size as f64 * 1e9 / self.link_bytes_per_s).ceil() as u64
    }
}

#[derive(Copy, Clone, Debug)]
struct Pending {
    level: usize,
    block: Block,
    /// When it was queued (queued) or completes (in service), ns.
    at: u64,
}

/// The simulated clock, the disk and the reload queue of a timed run.
pub(super) struct Clock {
    pub(super) cfg: HierarchyTiming,
    disk: Box<dyn DiskModel>,
    now: u64,
    /// When the current request reaches the level that may queue a reload.
    issue_at: u64,
    disk_free: u64,
    queue: VecDeque<Pending>,
    in_service: Option<Pending>,
    lba: Vec<u64>,
    sectors: u32,
    responses: u64,
    response_sum: u128,
    report: TimingReport,
}

impl Clock {
    /// Queues a reload of `block` for `level`.
    pub(super) fn queue_reload(&mut self, level: usize, block: Block) {
        if self.queue.len() >= self.cfg.reload_queue {
            self.report.reloads_dropped += 1;
            return;
        }
        self.report.reloads_queued += 1;
        self.queue.push_back(Pending {
            level,
            block,
            at: self.issue_at,
        });
    }

    fn access(&self, b: Block) -> DiskAccess {
        DiskAccess {
            lba: self.lba[b as usize],
            sectors: self.sectors,
            write: false,
        }
    }

    /// The report as of now.
    pub(super) fn report(&self) -> TimingReport {
        TimingReport {
            run_time_ns: self.now,
            mean_response_ns: if self.responses == 0 {
                0.0
            } else {
                self.response_sum as f64 / self.responses as f64
            },
            reloads_pending: self.queue.len() as u64 + u64::from(self.in_service.is_some()),
            ..self.report.clone()
        }
    }
}

/// A block hierarchy with its own clock (test code): the reference the file engine's timed
/// hierarchies are checked against. The hierarchy defers its reloads, as under the file engine,
/// and this clock queues them, runs them in idle disk time and completes them.
pub(crate) struct TimedHierarchy {
    h: Hierarchy,
    clock: Option<Box<Clock>>,
}

impl Hierarchy {
    /// Turns on the timing model; `originals` are the trace's block numbers (block `b` is at
    /// sector `originals[b] * block_size / 512` of the disk).
    pub(crate) fn with_timing(
        mut self,
        cfg: &HierarchyTiming,
        originals: &[u64],
    ) -> Result<TimedHierarchy> {
        cfg.validate()?;
        let disk = cfg.disk.build(&cfg.disk_name)?;
        let spb = (self.block_size as u64 / SECTOR_BYTES).max(1);
        self.deferred = Some(Vec::new());
        let clock = Clock {
            cfg: cfg.clone(),
            disk,
            now: 0,
            issue_at: 0,
            disk_free: 0,
            queue: VecDeque::new(),
            in_service: None,
            lba: originals.iter().map(|&o| o.wrapping_mul(spb)).collect(),
            sectors: spb.min(u32::MAX as u64) as u32,
            responses: 0,
            response_sum: 0,
            report: TimingReport {
                disk: cfg.disk_name.clone(),
                ..TimingReport::default()
            },
        };
        Ok(TimedHierarchy {
            h: self,
            clock: Some(Box::new(clock)),
        })
    }
}

impl TimedHierarchy {
    /// `h` without a clock: every reference as [`Hierarchy::reference`].
    pub(crate) fn untimed(h: Hierarchy) -> TimedHierarchy {
        TimedHierarchy { h, clock: None }
    }

    /// One demand reference, timed when the clock is on.
    pub(crate) fn reference(&mut self, b: Block, next_use: u64) {
        if self.clock.is_some() {
            self.timed_reference(b, next_use);
        } else {
            self.h.reference(b, next_use);
        }
    }

    /// Checks the hierarchy's levels and counters.
    pub(crate) fn check(&self) -> std::result::Result<(), String> {
        self.h.check()
    }

    /// The results so far, with the clock's timing report.
    pub(crate) fn result(&self, source: &str, label: String, unique: usize) -> HierarchyResult {
        let mut r = self.h.result(source, label, unique);
        r.timing = self.clock.as_ref().map(|c| TimingReport {
            proc_ns: c.cfg.think_ns.saturating_mul(self.h.requests),
            ..c.report()
        });
        r
    }

    fn clock(&mut self) -> &mut Clock {
        self.clock.as_mut().expect("the timing model is on")
    }

    /// Moves the reloads the levels asked for into the clock's queue, as they were asked.
    fn queue_deferred(&mut self) {
        let clock = self.clock.as_mut().expect("the timing model is on");
        let asked = self.h.deferred.as_mut().expect("timed runs defer reloads");
        for (level, block) in asked.drain(..) {
            clock.queue_reload(level, block);
        }
    }

    /// One demand reference with the timing model on.
    fn timed_reference(&mut self, b: Block, next_use: u64) {
        let start = {
            let c = self.clock();
            c.now + c.cfg.think_ns
        };
        self.run_reloads_until(start);
        let latency = self.clock().cfg.link_latency_ns;
        self.clock().issue_at = start + latency;
        self.h.reference(b, next_use);
        // The reloads this reference asked for wait for idle disk time, queued when the
        // request reached the level below.
        self.queue_deferred();
        let h = &self.h;
        let (served, demoted, depth) = (h.served, h.client_demoted, h.levels.len());
        let block_ns = {
            let bs = self.h.block_size;
            self.clock().cfg.block_transfer_ns(bs)
        };
        let mut t = start;
        if served != Some(0) {
            if demoted {
                t += block_ns;
                self.clock().report.demotion_wait_ns += block_ns;
            }
            let hops = served.unwrap_or(depth - 1) as u64;
            t += hops * latency;
            if served.is_none() {
                // The disk takes demand reads first; one already busy is busy with a reload.
                self.run_reloads_until(t);
                let c = self.clock();
                let begin = t.max(c.disk_free);
                c.report.reload_wait_ns += begin - t;
                let service = c.disk.service_ns(&c.access(b), begin);
                c.disk_free = begin + service;
                c.report.demand_disk_ns += service;
                t = begin + service;
            }
            t += hops * block_ns;
        }
        // The disk keeps deciding until the reference completes (the file engine's device does
        // too), so reloads due before the run's end start even after the last reference.
        self.run_reloads_until(t);
        let c = self.clock();
        c.responses += 1;
        c.response_sum += (t - start) as u128;
        c.now = t;
    }

    /// Completes reloads that finish by `t` and starts those the idle disk would start before
    /// `t`, in queue order.
    fn run_reloads_until(&mut self, t: u64) {
        loop {
            let c = self.clock();
            if let Some(p) = c.in_service {
                if p.at > t {
                    return;
                }
                c.in_service = None;
                self.complete_timed_reload(p.level, p.block, p.at);
                continue;
            }
            let Some(&p) = c.queue.front() else {
                return;
            };
            let begin = c.disk_free.max(p.at);
            if begin >= t {
                return;
            }
            c.queue.pop_front();
            if self.h.levels[p.level].cache.frames().is_resident(p.block) {
                self.clock().report.reloads_cancelled += 1;
                continue;
            }
            if self.h.exclusive_below_holds(p.level, p.block) {
                // Served by the level below, which hands the block up: no disk time.
                self.complete_timed_reload(p.level, p.block, begin);
                continue;
            }
            let c = self.clock();
            let service = c.disk.service_ns(&c.access(p.block), begin);
            c.disk_free = begin + service;
            c.report.reload_disk_ns += service;
            c.report.reloads_started += 1;
            c.in_service = Some(Pending {
                at: begin + service,
                ..p
            });
            self.h.disk_reloads += 1;
        }
    }

    /// The reload of `v` for level `i` has its data at `at`: place it, or count it cancelled.
    /// Reloads the placement's evictions cause are queued at `at`, when the eviction happens,
    /// not at the current request's `issue_at`, which may be before or after it.
    fn complete_timed_reload(&mut self, i: usize, v: Block, at: u64) {
        let issue_at = std::mem::replace(&mut self.clock().issue_at, at);
        if !self.h.complete_reload(i, v) {
            self.clock().report.reloads_cancelled += 1;
        }
        self.queue_deferred();
        self.clock().issue_at = issue_at;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{HierarchySpec, Placement};
    use super::*;
    use crate::disk::fixed::FixedParams;
    use crate::policy::registry::Preset;
    use crate::policy::NEVER;

    /// A 1 ms disk, 10 µs links moving a 4 KiB block in 40 µs, and `think_us` between references.
    fn timing(think_us: u64) -> HierarchyTiming {
        HierarchyTiming {
            link_latency_ns: 10_000,
            link_bytes_per_s: 1.024e8,
            think_ns: think_us * 1000,
            ..HierarchyTiming::new(DiskConfig::Fixed(FixedParams::default()), "fixed")
        }
    }

    fn run(
        placement: &str,
        cfg: &HierarchyTiming,
        refs: &[Block],
    ) -> super::super::HierarchyResult {
        let spec = HierarchySpec::parse(
            "c:lru:2,s:lru:2",
            &[],
            Preset::Paper,
            Placement::parse(placement).unwrap(),
        )
        .unwrap();
        let universe = refs.iter().max().map_or(1, |&m| m as usize + 1);
        let originals: Vec<u64> = (0..universe as u64).map(|b| 1000 + b).collect();
        let mut h = Hierarchy::new(&spec, universe, 4096)
            .unwrap()
            .with_timing(cfg, &originals)
            .unwrap();
        for &b in refs {
            h.reference(b, NEVER);
            h.check().unwrap();
        }
        h.result("t", spec.label(), universe)
    }

    const TRACE: [Block; 8] = [0, 1, 2, 0, 1, 3, 2, 0];

    #[test]
    fn reloads_fill_idle_time_by_hand() {
        // Think 5 ms. A miss everywhere: 10 µs down, 1 ms disk, 50 µs up = 1060 µs; a storage
        // hit: 60 µs. The reload each client eviction asks for starts when the disk is idle and
        // completes within the next think time, so the caches evolve as untimed: storage hits at
        // references 3, 4 and 6, disk reads at 0, 1, 2, 5 and 7.
        //   ref 2 starts at 17120 µs; reload 0 queued at 17130, the demand read takes the disk
        //   17130-18130; reload 0 runs 18130-19130 and is placed when ref 3 starts (23180).
        //   Reloads 1, 2, 0, 1 likewise; reload 3 (queued by ref 7) starts when ref 7's demand
        //   read is done and is still in service at the end (pending).
        let r = run("eviction", &timing(5000), &TRACE);
        let t = r.timing.as_ref().unwrap();
        assert_eq!(r.levels[1].hits, 3);
        assert_eq!((r.disk_reads, r.disk_reloads), (5, 6));
        assert_eq!(t.run_time_ns, (8 * 5000 + 5 * 1060 + 3 * 60) * 1000);
        assert_eq!(
            t.mean_response_ns,
            (5 * 1060 + 3 * 60) as f64 * 1000.0 / 8.0
        );
        assert_eq!((t.demand_disk_ns, t.reload_disk_ns), (5_000_000, 6_000_000));
        assert_eq!(t.reload_wait_ns, 0);
        assert_eq!(
            (t.reloads_queued, t.reloads_started, t.reloads_pending),
            (6, 6, 1)
        );
        assert_eq!(r.levels[1].reloads_issued, 5);
        // Access-based placement: every reference misses both levels.
        let r = run("access", &timing(5000), &TRACE);
        assert_eq!(r.timing.unwrap().run_time_ns, (8 * 5000 + 8 * 1060) * 1000);
    }

    #[test]
    fn demotions_delay_the_misses_that_evict() {
        // As eviction-based placement, but the six client evictions (references 2 to 7) each
        // send a block down first: 50 µs more on each of those misses, and no reloads.
        let r = run("demote", &timing(5000), &TRACE);
        let t = r.timing.unwrap();
        assert_eq!(r.levels[1].hits, 3);
        assert_eq!(t.demotion_wait_ns, 6 * 50_000);
        assert_eq!(
            t.run_time_ns,
            (8 * 5000 + 5 * 1060 + 3 * 60 + 6 * 50) * 1000
        );
        assert_eq!((r.disk_reloads, t.reloads_queued), (0, 0));
    }

    #[test]
    fn without_idle_time_reloads_delay_demands_and_arrive_late() {
        // No think time: the disk is idle only while the client is served from the caches, so a
        // started reload makes the next demand read wait, and blocks arrive too late to hit.
        let busy = run("eviction", &timing(0), &TRACE);
        let idle = run("eviction", &timing(5000), &TRACE);
        let t = busy.timing.as_ref().unwrap();
        assert!(t.reload_wait_ns > 0);
        assert!(t.reload_wait_ns <= t.reloads_started * 1_000_000);
        assert!(busy.levels[1].hits < idle.levels[1].hits);
        assert!(t.reloads_started + t.reloads_cancelled <= t.reloads_queued);
        // A queue with no room drops every reload: nothing is placed in the storage cache.
        let none = HierarchyTiming {
            reload_queue: 0,
            ..timing(0)
        };
        let r = run("eviction", &none, &TRACE);
        let t = r.timing.unwrap();
        assert_eq!((t.reloads_dropped, t.reloads_queued), (6, 0));
        assert_eq!((r.levels[1].reloads_issued, r.levels[1].hits), (0, 0));
    }

    proptest::proptest! {
        /// With access-based placement nothing is deferred: the timed run's counters equal the
        /// untimed run's, and its run time is think time plus each reference's path.
        #[test]
        fn access_placement_times_do_not_change_counts(
            refs in proptest::collection::vec(0u32..10, 1..120),
            think in 0u64..3000,
        ) {
            let cfg = timing(think);
            let timed = run("access", &cfg, &refs);
            let spec = HierarchySpec::parse("c:lru:2,s:lru:2", &[], Preset::Paper, Placement::Access).unwrap();
            let mut h = Hierarchy::new(&spec, 10, 4096).unwrap();
            for &b in &refs {
                h.reference(b, NEVER);
            }
            let untimed = h.result("t", spec.label(), 10);
            proptest::prop_assert_eq!(&timed.levels, &untimed.levels);
            let c = &timed.levels[0];
            let s = &timed.levels[1];
            let expect = refs.len() as u64 * think * 1000
                + s.hits * 60_000
                + (c.misses - s.hits) * 1_060_000;
            proptest::prop_assert_eq!(timed.timing.unwrap().run_time_ns, expect);
        }
    }
}
