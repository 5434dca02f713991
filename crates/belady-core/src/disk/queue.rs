//! The device queue: requests wait here while the device is busy, and a scheduler picks which one
//! the device serves next.
//!
//! The queue is event-driven without a wall clock: the caller submits requests with their arrival
//! times and asks for the device's decisions up to a point in simulated time. A decision made at
//! time `s` only sees requests that arrived by `s`, so callers must submit every request arriving
//! at or before `s` before asking for decisions at `s` (the file-level engine does: the program is
//! the only source of requests, and it asks only for decisions strictly before its own clock).
//! Ties (same arrival, same distance) go to the request submitted first.
//!
//! Background (low-priority) requests wait in a second queue: the device starts one only when no
//! foreground request is waiting at that moment, and never before its release time (which may lie
//! in the future: a bandwidth cap spaces releases out). Background requests are served as an
//! address sweep from wherever the head is (C-LOOK; SSTF when that is the scheduler), so a
//! foreground request that pulls the head away costs one seek, not a seek there and one back to
//! where a first-come order would resume. A started request is never preempted, so a foreground
//! request arriving during a background one waits for it to finish. A program blocked on a
//! background request that has not started can promote it to the foreground.

use super::{DiskAccess, DiskModel};
use crate::error::{Error, Result};

/// How the device picks the next request among those waiting.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Scheduler {
    /// First come, first served.
    #[default]
    Fcfs,
    /// Circular LOOK: the nearest request at or above the head, else wrap to the lowest address.
    /// Seek-aware and free of starvation: every sweep serves what waited at its start.
    Clook,
    /// Shortest seek (address distance) first; can starve far requests under load.
    Sstf,
}

/// Scheduler names as `--scheduler` takes them.
pub const SCHEDULER_NAMES: &[&str] = &["fcfs", "clook", "sstf"];

impl Scheduler {
    /// The scheduler called `name`.
    pub fn parse(name: &str) -> Result<Scheduler> {
        match name {
            "fcfs" => Ok(Scheduler::Fcfs),
            "clook" | "c-look" => Ok(Scheduler::Clook),
            "sstf" => Ok(Scheduler::Sstf),
            _ => Err(Error::config(
                "scheduler",
                name,
                format!(
                    "unknown scheduler{}; expected one of {}",
                    crate::error::did_you_mean(name, SCHEDULER_NAMES.iter().copied()),
                    SCHEDULER_NAMES.join(", ")
                ),
            )),
        }
    }

    /// The name `parse` takes.
    pub fn name(self) -> &'static str {
        match self {
            Scheduler::Fcfs => "fcfs",
            Scheduler::Clook => "clook",
            Scheduler::Sstf => "sstf",
        }
    }
}

/// A request the device has started: when, and when it completes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Dispatched {
    /// The caller's request id.
    pub id: u32,
    /// When it arrived at the queue, ns.
    pub arrival_ns: u64,
    /// When the device started it, ns.
    pub start_ns: u64,
    /// When it completes, ns.
    pub done_ns: u64,
}

#[derive(Copy, Clone, Debug)]
struct Waiting {
    id: u32,
    arrival_ns: u64,
    access: DiskAccess,
}

/// A device model behind a queue with a scheduler.
pub struct DeviceQueue {
    model: Box<dyn DiskModel>,
    scheduler: Scheduler,
    waiting: Vec<Waiting>,
    /// Low-priority requests; `arrival_ns` is the release time.
    background: Vec<Waiting>,
    free_ns: u64,
    busy_ns: u64,
    /// The sector just past the last request served: where the head is, for the scheduler.
    head_lba: u64,
}

impl DeviceQueue {
    /// An idle device at time 0 with an empty queue.
    pub fn new(model: Box<dyn DiskModel>, scheduler: Scheduler) -> Self {
        DeviceQueue {
            model,
            scheduler,
            waiting: Vec::new(),
            background: Vec::new(),
            free_ns: 0,
            busy_ns: 0,
            head_lba: 0,
        }
    }

    /// Adds request `id` arriving at `arrival_ns`; arrivals must not go back in time.
    pub fn submit(&mut self, id: u32, access: DiskAccess, arrival_ns: u64) {
        debug_assert!(self
            .waiting
            .last()
            .map_or(true, |w| w.arrival_ns <= arrival_ns));
        self.waiting.push(Waiting {
            id,
            arrival_ns,
            access,
        });
    }

    /// Adds low-priority request `id`, which the device may start from `release_ns` on when no
    /// foreground request waits. Release times may be in the future and in any order.
    pub fn submit_background(&mut self, id: u32, access: DiskAccess, release_ns: u64) {
        self.background.push(Waiting {
            id,
            arrival_ns: release_ns,
            access,
        });
    }

    /// Moves background request `id`, if it has not started, to the foreground as arriving at
    /// `now_ns` (which must not precede earlier foreground arrivals); returns whether it did.
    pub fn promote(&mut self, id: u32, now_ns: u64) -> bool {
        let Some(i) = self.background.iter().position(|w| w.id == id) else {
            return false;
        };
        let w = self.background.remove(i);
        // Foreground requests may arrive later than they were issued (links to a hierarchy's
        // lower levels); the promoted one queues behind those already submitted.
        let arrival = self
            .waiting
            .last()
            .map_or(now_ns, |l| l.arrival_ns.max(now_ns));
        self.submit(w.id, w.access, arrival);
        true
    }

    /// Requests still waiting, foreground and background.
    pub fn waiting(&self) -> usize {
        self.waiting.len() + self.background.len()
    }

    /// Total time the device has been busy with the requests started so far, ns.
    pub fn busy_ns(&self) -> u64 {
        self.busy_ns
    }

    /// Reads the device served whole from its own read cache so far (`None`: it has none).
    pub fn cache_read_hits(&self) -> Option<u64> {
        self.model.cache_read_hits()
    }

    /// When the device finishes the last request started so far, ns.
    pub fn free_ns(&self) -> u64 {
        self.free_ns
    }

    /// When the device would start its next request, if one is waiting.
    pub fn next_start_ns(&self) -> Option<u64> {
        let first_arrival = self
            .waiting
            .iter()
            .chain(&self.background)
            .map(|w| w.arrival_ns)
            .min()?;
        Some(self.free_ns.max(first_arrival))
    }

    /// Starts the next request the scheduler picks, if any is waiting: a foreground request
    /// whenever one has arrived, otherwise a released background one.
    pub fn dispatch_next(&mut self) -> Option<Dispatched> {
        let (foreground, i, start) = self.choose()?;
        let w = if foreground {
            self.waiting.remove(i)
        } else {
            self.background.remove(i)
        };
        let service = self.model.service_ns(&w.access, start);
        self.free_ns = start + service;
        self.busy_ns += service;
        self.head_lba = w.access.lba + w.access.sectors as u64;
        Some(Dispatched {
            id: w.id,
            arrival_ns: w.arrival_ns,
            start_ns: start,
            done_ns: self.free_ns,
        })
    }

    /// The request [`DeviceQueue::dispatch_next`] would start, without starting it: its id,
    /// arrival (release) time and start time.
    pub fn peek_next(&self) -> Option<(u32, u64, u64)> {
        let (foreground, i, start) = self.choose()?;
        let queue = if foreground {
            &self.waiting
        } else {
            &self.background
        };
        Some((queue[i].id, queue[i].arrival_ns, start))
    }

    /// Takes background request `id` back if it has not started; returns whether it did.
    pub fn withdraw(&mut self, id: u32) -> bool {
        let Some(i) = self.background.iter().position(|w| w.id == id) else {
            return false;
        };
        self.background.remove(i);
        true
    }

    /// The next request to start: whether it is a foreground one, its index in its queue, and
    /// its start time.
    fn choose(&self) -> Option<(bool, usize, u64)> {
        let start = self.next_start_ns()?;
        if let Some(i) = self.pick(&self.waiting, self.scheduler, start) {
            return Some((true, i, start));
        }
        let sweep = match self.scheduler {
            Scheduler::Fcfs => Scheduler::Clook,
            seek_aware => seek_aware,
        };
        let i = self
            .pick(&self.background, sweep, start)
            .expect("a request has arrived by its start time");
        Some((false, i, start))
    }

    /// Starts, in order, every request the device would start strictly before `t`.
    pub fn dispatch_before(&mut self, t: u64, out: &mut Vec<Dispatched>) {
        while self.next_start_ns().is_some_and(|s| s < t) {
            out.extend(self.dispatch_next());
        }
    }

    /// Index in `queue` of the request `scheduler` starts at `start`, among those arrived by then.
    fn pick(&self, queue: &[Waiting], scheduler: Scheduler, start: u64) -> Option<usize> {
        let arrived = queue
            .iter()
            .enumerate()
            .filter(|(_, w)| w.arrival_ns <= start);
        // `waiting` is in submission order, so `min_by_key` keeps the earliest on ties.
        let chosen = match scheduler {
            Scheduler::Fcfs => arrived.min_by_key(|(i, _)| *i),
            Scheduler::Sstf => arrived.min_by_key(|(_, w)| w.access.lba.abs_diff(self.head_lba)),
            Scheduler::Clook => {
                let head = self.head_lba;
                // Ahead of the head first (in address order), then the wrap to the lowest address.
                arrived.min_by_key(|(_, w)| (w.access.lba < head, w.access.lba))
            }
        };
        chosen.map(|(i, _)| i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::fixed::{FixedModel, FixedParams};

    fn queue(s: Scheduler) -> DeviceQueue {
        let model = FixedModel::new(
            "fixed",
            FixedParams {
                latency_ms: 1.0,
                ..FixedParams::default()
            },
        );
        DeviceQueue::new(Box::new(model), s)
    }

    fn at(lba: u64) -> DiskAccess {
        DiskAccess {
            lba,
            sectors: 8,
            write: false,
        }
    }

    fn order(s: Scheduler, lbas: &[u64]) -> Vec<u32> {
        let mut q = queue(s);
        for (i, &lba) in lbas.iter().enumerate() {
            q.submit(i as u32, at(lba), 0);
        }
        let mut out = Vec::new();
        q.dispatch_before(u64::MAX, &mut out);
        out.iter().map(|d| d.id).collect()
    }

    #[test]
    fn fcfs_serves_in_arrival_order() {
        assert_eq!(order(Scheduler::Fcfs, &[500, 100, 900, 300]), [0, 1, 2, 3]);
    }

    #[test]
    fn clook_sweeps_up_then_wraps_to_the_lowest() {
        // Head at 0: the first pick is the lowest address, then upward, never back down mid-sweep.
        assert_eq!(order(Scheduler::Clook, &[500, 100, 900, 300]), [1, 3, 0, 2]);
        let mut q = queue(Scheduler::Clook);
        q.submit(0, at(600), 0);
        let mut out = Vec::new();
        q.dispatch_before(1, &mut out);
        assert_eq!(out.len(), 1);
        // Head now at 608: 700 and 900 are ahead, 100 and 300 wait for the wrap.
        for (id, lba) in [(1, 100), (2, 900), (3, 300), (4, 700)] {
            q.submit(id, at(lba), 10);
        }
        out.clear();
        q.dispatch_before(u64::MAX, &mut out);
        let ids: Vec<u32> = out.iter().map(|d| d.id).collect();
        assert_eq!(ids, [4, 2, 1, 3]);
    }

    #[test]
    fn sstf_takes_the_nearest() {
        let mut q = queue(Scheduler::Sstf);
        q.submit(0, at(600), 0);
        let mut out = Vec::new();
        q.dispatch_before(1, &mut out);
        for (id, lba) in [(1, 100), (2, 900), (3, 500), (4, 700)] {
            q.submit(id, at(lba), 10);
        }
        out.clear();
        q.dispatch_before(u64::MAX, &mut out);
        let ids: Vec<u32> = out.iter().map(|d| d.id).collect();
        // From 608: 700 is nearest (92); from 708: 900 (192) beats 500 (208); then 500, 100.
        assert_eq!(ids, [4, 2, 3, 1]);
    }

    #[test]
    fn decisions_wait_for_arrivals_and_the_device() {
        let mut q = queue(Scheduler::Fcfs);
        q.submit(0, at(0), 5_000_000);
        let mut out = Vec::new();
        q.dispatch_before(5_000_000, &mut out);
        assert!(out.is_empty(), "nothing starts before it arrives");
        q.submit(1, at(8), 5_000_000);
        q.dispatch_before(u64::MAX, &mut out);
        assert_eq!(out[0].start_ns, 5_000_000);
        assert_eq!(
            out[1].start_ns, out[0].done_ns,
            "the second waits for the first"
        );
        assert_eq!(q.busy_ns(), out[1].done_ns - out[0].start_ns);
        assert_eq!(q.waiting(), 0);
    }

    /// Total device time for a batch of scattered requests all waiting at once.
    fn batch_busy_ns(s: Scheduler) -> u64 {
        let model = crate::disk::DiskConfig::preset("cheetah9lp")
            .expect("preset")
            .build("cheetah9lp")
            .expect("valid");
        let mut q = DeviceQueue::new(model, s);
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for id in 0..64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            q.submit(id, at((x % 17_000_000) & !7), 0);
        }
        let mut out = Vec::new();
        q.dispatch_before(u64::MAX, &mut out);
        assert_eq!(out.len(), 64);
        q.busy_ns()
    }

    #[test]
    fn seek_aware_schedulers_cut_device_time_on_a_deep_queue() {
        let fcfs = batch_busy_ns(Scheduler::Fcfs);
        let clook = batch_busy_ns(Scheduler::Clook);
        let sstf = batch_busy_ns(Scheduler::Sstf);
        // 64 random 4 KB reads: FCFS pays a mean seek each (about 5.5 ms + rotation); a sweep
        // pays short seeks, leaving mostly rotation.
        assert!(clook * 10 < fcfs * 7, "clook {clook} vs fcfs {fcfs}");
        assert!(sstf * 10 < fcfs * 7, "sstf {sstf} vs fcfs {fcfs}");
    }

    #[test]
    fn background_runs_only_when_no_foreground_waits() {
        let mut q = queue(Scheduler::Fcfs);
        // Background released first, but foreground requests that have arrived go ahead of it.
        q.submit_background(10, at(0), 0);
        q.submit_background(11, at(8), 0);
        q.submit(0, at(500), 0);
        q.submit(1, at(900), 0);
        let mut out = Vec::new();
        q.dispatch_before(u64::MAX, &mut out);
        let ids: Vec<u32> = out.iter().map(|d| d.id).collect();
        assert_eq!(ids, [0, 1, 10, 11]);
        assert_eq!(
            out[2].start_ns, 2_000_000,
            "background starts when the device frees"
        );
    }

    #[test]
    fn idle_device_serves_background_and_foreground_waits_without_preemption() {
        let mut q = queue(Scheduler::Fcfs);
        q.submit_background(10, at(0), 0);
        q.submit_background(11, at(8), 0);
        let mut out = Vec::new();
        // The program's clock is at 0.5 ms: the device was idle at 0, so it took background 10.
        q.dispatch_before(500_000, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].id, out[0].start_ns), (10, 0));
        q.submit(0, at(100), 500_000);
        q.dispatch_before(u64::MAX, &mut out);
        let ids: Vec<u32> = out.iter().map(|d| d.id).collect();
        assert_eq!(ids, [10, 0, 11]);
        assert_eq!(
            out[1].start_ns, 1_000_000,
            "foreground waits for the running request"
        );
    }

    #[test]
    fn background_waits_for_its_release_time() {
        let mut q = queue(Scheduler::Fcfs);
        q.submit_background(10, at(0), 5_000_000);
        q.submit_background(11, at(8), 3_000_000);
        let mut out = Vec::new();
        q.dispatch_before(u64::MAX, &mut out);
        let starts: Vec<(u32, u64)> = out.iter().map(|d| (d.id, d.start_ns)).collect();
        assert_eq!(starts, [(11, 3_000_000), (10, 5_000_000)]);
    }

    #[test]
    fn background_sweeps_from_the_head_even_under_fcfs() {
        let mut q = queue(Scheduler::Fcfs);
        for (id, lba) in [(10, 100), (11, 300), (12, 500), (13, 700)] {
            q.submit_background(id, at(lba), 0);
        }
        let mut out = Vec::new();
        q.dispatch_before(1, &mut out);
        assert_eq!(out[0].id, 10);
        // A demand read at 600 pulls the head past 300 and 500: the sweep goes on from there
        // (700) and wraps, instead of going back to 300 first.
        q.submit(0, at(600), 1);
        q.dispatch_before(u64::MAX, &mut out);
        let ids: Vec<u32> = out.iter().map(|d| d.id).collect();
        assert_eq!(ids, [10, 0, 13, 11, 12]);
    }

    #[test]
    fn promotion_moves_a_waiting_background_request_ahead() {
        let mut q = queue(Scheduler::Fcfs);
        q.submit(0, at(0), 0);
        q.submit(1, at(8), 0);
        q.submit_background(10, at(16), 0);
        q.submit_background(11, at(24), 0);
        assert!(q.promote(11, 0));
        assert!(!q.promote(11, 0), "already in the foreground");
        assert!(!q.promote(99, 0), "unknown id");
        assert_eq!(q.waiting(), 4);
        let mut out = Vec::new();
        q.dispatch_before(u64::MAX, &mut out);
        let ids: Vec<u32> = out.iter().map(|d| d.id).collect();
        assert_eq!(ids, [0, 1, 11, 10]);
    }

    #[test]
    fn unknown_scheduler_is_a_config_error() {
        let e = Scheduler::parse("elevator").unwrap_err().to_string();
        assert!(e.contains("scheduler") && e.contains("clook"), "{e}");
        for n in SCHEDULER_NAMES {
            assert_eq!(Scheduler::parse(n).unwrap().name(), *n);
        }
    }
}
