//! Properties of the event engine, on random programs, policies, read-ahead engines, devices and
//! schedulers: simulated time never goes backwards, every request completes exactly once, no
//! block is evicted while its I/O is in flight, and the run time is the think time plus the
//! waiting the device did not hide (during every wait the device is busy).

use super::*;
use crate::disk::queue::{Scheduler, SCHEDULER_NAMES};
use crate::engine::run_loop;
use crate::policy::registry::{self, PolicySpec, PolicyVisitor};
use crate::prefetch::clusterfetch::ClusterFetchConfig;
use crate::prefetch::PrefetchKind;
use crate::trace::file::{FileEvent, FileEventKind, FileTrace};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// One program action: which process and file, what it does, after how much computation.
#[derive(Clone, Debug)]
struct Action {
    pid: u32,
    file: u64,
    think_us: u64,
    what: u8,
    offset_blocks: u64,
    len_bytes: u64,
}

fn action() -> impl Strategy<Value = Action> {
    (
        0u32..2,
        0u64..4,
        0u64..3000,
        0u8..10,
        0u64..40,
        1u64..40_000,
    )
        .prop_map(
            |(pid, file, think_us, what, offset_blocks, len_bytes)| Action {
                pid,
                file,
                think_us,
                what,
                offset_blocks,
                len_bytes,
            },
        )
}

/// Turns actions into a valid program: reads continue sequentially most of the time, sometimes
/// jump, and files are opened before use and closed now and then.
fn program(actions: &[Action]) -> FileTrace {
    let sizes = [3 * 4096 + 100, 40 * 4096, 150 * 4096 + 7, 9 * 4096];
    let mut open: BTreeMap<(u32, u64), u64> = BTreeMap::new();
    let mut events = Vec::new();
    let ev = |a: &Action, kind: FileEventKind| FileEvent {
        think_ns: a.think_us * 1000,
        pid: a.pid,
        fd: 3 + a.file as u32,
        file: 100 + a.file,
        file_size: sizes[a.file as usize],
        kind,
    };
    for a in actions {
        let size = sizes[a.file as usize];
        let key = (a.pid, a.file);
        if let std::collections::btree_map::Entry::Vacant(slot) = open.entry(key) {
            slot.insert(0);
            events.push(ev(a, FileEventKind::Open));
        }
        if a.what == 9 {
            open.remove(&key);
            events.push(ev(a, FileEventKind::Close));
            continue;
        }
        let pos = open.get_mut(&key).expect("opened above");
        if a.what >= 7 {
            *pos = (a.offset_blocks * 4096) % size;
        }
        let len = a.len_bytes.min(size - *pos);
        if len == 0 {
            *pos = 0;
            continue;
        }
        events.push(ev(a, FileEventKind::Read { offset: *pos, len }));
        *pos += len;
    }
    FileTrace {
        source: "generated".into(),
        events,
        names: BTreeMap::new(),
    }
}

#[derive(Clone, Debug)]
struct Setup {
    policy: &'static str,
    prefetch: PrefetchKind,
    disk: Option<&'static str>,
    scheduler: &'static str,
    capacity: usize,
    compat: bool,
    /// ClusterFetch on, with this bandwidth cap (bytes/s, 0: none) and threshold (ms).
    clusterfetch: Option<(u64, u64)>,
    scattered: bool,
}

fn setup() -> impl Strategy<Value = Setup> {
    let policies = [
        "lru",
        "opt",
        "arc",
        "lirs",
        "2q",
        "mq",
        "lru-k",
        "lrfu",
        "clock-pro",
        "clock",
        "car",
        "fbr",
        "fifo",
    ];
    let prefetches = [
        PrefetchKind::None,
        PrefetchKind::Linux24,
        PrefetchKind::Linux26,
        PrefetchKind::Ondemand,
        PrefetchKind::Bsd,
        PrefetchKind::Example,
    ];
    let disks = [None, Some("fixed"), Some("cheetah9lp"), Some("nvme")];
    (
        prop::sample::select(policies.to_vec()),
        prop::sample::select(prefetches.to_vec()),
        prop::sample::select(disks.to_vec()),
        prop::sample::select(SCHEDULER_NAMES),
        2usize..48,
        prop::bool::weighted(0.2),
        prop::option::weighted(
            0.3,
            (
                prop::sample::select(vec![0u64, 1 << 20, 1 << 24]),
                prop::sample::select(vec![2u64, 8, 20]),
            ),
        ),
        prop::bool::ANY,
    )
        .prop_map(
            |(policy, prefetch, disk, scheduler, capacity, compat, clusterfetch, scattered)| {
                Setup {
                    policy,
                    prefetch,
                    disk,
                    scheduler: if disk.is_some() { scheduler } else { "fcfs" },
                    capacity,
                    compat,
                    clusterfetch,
                    scattered,
                }
            },
        )
}

/// Runs the program step by step and checks the properties after every step.
struct Checked<'a> {
    trace: &'a PreparedFileTrace,
    capacity: usize,
    cfg: &'a FileSimConfig,
}

impl PolicyVisitor for Checked<'_> {
    type Output = std::result::Result<(), TestCaseError>;

    fn visit<P: Policy>(self, policy: P) -> Self::Output {
        let cfg = self.cfg;
        let mut sim = FileSim::new(policy, self.trace, self.capacity, cfg);
        let may_evict_in_flight = cfg.departures.evict_in_flight;
        // Blocks resident with their I/O in flight, and the request carrying it.
        let mut guarded: Vec<(Block, u32)> = Vec::new();
        let mut think_total = 0u64;
        for ev in &self.trace.to_file_trace().expect("held in memory").events {
            let before = sim.now_ns;
            let issued_before = sim.requests.next_id();
            sim.step(ev);
            if let Err(e) = sim.level.check() {
                return Err(TestCaseError::fail(format!("policy state: {e}")));
            }
            prop_assert!(
                sim.now_ns >= before,
                "time went back: {} -> {}",
                before,
                sim.now_ns
            );
            if !cfg.departures.accusim_clock {
                think_total += ev.think_ns;
                prop_assert!(sim.now_ns >= before + ev.think_ns);
            }
            if sim.disk.is_none() {
                prop_assert_eq!(sim.wait_ns, 0, "without a device nothing waits");
            }
            if !may_evict_in_flight {
                for &(b, id) in &guarded {
                    if !sim.requests.ever(id).completed {
                        prop_assert!(
                            sim.level.frames().is_resident(b),
                            "block {} evicted while request {} is in flight",
                            b,
                            id
                        );
                    }
                }
                guarded.retain(|&(_, id)| !sim.requests.ever(id).completed);
                for id in issued_before..sim.requests.next_id() {
                    for &b in &sim.requests.ever(id).blocks {
                        if sim.io_of[b as usize] == id && sim.level.frames().is_resident(b) {
                            guarded.push((b, id));
                        }
                    }
                }
            }
        }
        let exec_ns = sim.drain();
        prop_assert!(sim.completions.is_empty());
        prop_assert!(sim.disk.as_ref().map_or(true, |d| d.waiting() == 0));
        let all = sim
            .requests
            .retired
            .iter()
            .chain(sim.requests.live().map(|(_, r)| r));
        for (id, r) in all.enumerate() {
            prop_assert!(r.completed, "request {} never completed", id);
            prop_assert!(r.done_ns != NOT_STARTED);
        }
        if sim.disk.is_some() {
            let log = &sim.service_log;
            prop_assert_eq!(
                log.len(),
                sim.requests.next_id() as usize,
                "each request is served once"
            );
            let mut seen = vec![false; log.len()];
            for (i, d) in log.iter().enumerate() {
                prop_assert!(!std::mem::replace(&mut seen[d.id as usize], true));
                prop_assert!(d.start_ns >= d.arrival_ns && d.done_ns >= d.start_ns);
                if i > 0 {
                    prop_assert!(
                        d.start_ns >= log[i - 1].done_ns,
                        "the device serves one at a time"
                    );
                }
            }
        }
        if !cfg.departures.accusim_clock {
            prop_assert_eq!(sim.proc_ns, think_total);
            prop_assert_eq!(
                exec_ns,
                sim.proc_ns + sim.wait_ns,
                "run time = think + waiting"
            );
        }
        Ok(())
    }
}

/// Checks that whenever the program waits, the device is busy: the waiting is not overlapped
/// with computation, and the device never idles while the program is blocked on it.
struct WaitsCovered<'a>(Checked<'a>);

impl PolicyVisitor for WaitsCovered<'_> {
    type Output = std::result::Result<(), TestCaseError>;

    fn visit<P: Policy>(self, policy: P) -> Self::Output {
        let Checked {
            trace,
            capacity,
            cfg,
        } = self.0;
        let mut sim = FileSim::new(policy, trace, capacity, cfg);
        let mut waits: Vec<(u64, u64)> = Vec::new();
        for ev in &trace.to_file_trace().expect("held in memory").events {
            let waited = sim.wait_ns;
            sim.step(ev);
            let w = sim.wait_ns - waited;
            if w > 0 {
                waits.push((sim.now_ns - w, sim.now_ns));
            }
        }
        sim.drain();
        let log = &sim.service_log;
        for &(from, to) in &waits {
            let mut covered = from;
            for d in log.iter().filter(|d| d.done_ns > from && d.start_ns < to) {
                prop_assert!(
                    d.start_ns <= covered,
                    "device idle from {} to {} while the program waited {}..{}",
                    covered,
                    d.start_ns,
                    from,
                    to
                );
                covered = covered.max(d.done_ns);
            }
            prop_assert!(
                covered >= to,
                "wait {}..{} outlasts the device's work",
                from,
                to
            );
        }
        Ok(())
    }
}

/// Feeds the program through the one loop in chunks of `chunk` events; returns the counters.
struct Chunked<'a> {
    trace: &'a PreparedFileTrace,
    capacity: usize,
    cfg: &'a FileSimConfig,
    chunk: usize,
}

impl PolicyVisitor for Chunked<'_> {
    type Output = (crate::cache::level::LevelStats, IoStats);

    fn visit<P: Policy>(self, policy: P) -> Self::Output {
        let events = self.trace.to_file_trace().expect("held in memory").events;
        let mut sim = FileSim::new(policy, self.trace, self.capacity, self.cfg);
        for part in events.chunks(self.chunk) {
            run_loop::drive(&mut sim, part);
        }
        sim.finish()
    }
}

fn config(s: &Setup) -> FileSimConfig {
    FileSimConfig {
        prefetch: s.prefetch,
        departures: if s.compat {
            Departures::accusim()
        } else {
            Departures::default()
        },
        disk: s.disk.map(|d| DiskConfig::preset(d).expect("a preset")),
        scheduler: Scheduler::parse(s.scheduler).expect("a scheduler name"),
        // A short queue and low minimum so random programs learn bursts and reopen triggers.
        clusterfetch: s.clusterfetch.map(|(cap, ms)| ClusterFetchConfig {
            queue_len: 2,
            threshold_ns: ms * 1_000_000,
            min_burst: 2,
            bandwidth_bytes_per_s: cap,
            ..ClusterFetchConfig::default()
        }),
        placement: if s.scattered {
            Placement::Scattered
        } else {
            Placement::Contiguous
        },
        ..FileSimConfig::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn event_engine_invariants(actions in prop::collection::vec(action(), 1..120), s in setup()) {
        let prepared = match PreparedFileTrace::new(program(&actions), 4096) {
            Ok(p) => p,
            Err(_) => return Ok(()), // no read calls: nothing to simulate
        };
        let cfg = config(&s);
        prop_assert!(cfg.validate().is_ok());
        let mut spec = PolicySpec::parse(s.policy).expect("a listed policy");
        if s.compat {
            spec.preset = registry::Preset::Accusim;
        }
        let universe = prepared.layout.universe();
        let checked = Checked { trace: &prepared, capacity: s.capacity, cfg: &cfg };
        crate::cache::builder::build(&spec, s.capacity, universe, checked).expect("builds")?;
        if cfg.disk.is_some() && !s.compat {
            let checked = Checked { trace: &prepared, capacity: s.capacity, cfg: &cfg };
            crate::cache::builder::build(&spec, s.capacity, universe, WaitsCovered(checked)).expect("builds")?;
        }
    }

    #[test]
    fn chunks_of_any_size_give_the_same_counters_as_one_pass(
        actions in prop::collection::vec(action(), 1..120),
        s in setup(),
        chunk in 1usize..20,
    ) {
        // The one loop hints the event 8 ahead within a chunk only: where chunks end must not
        // change a result, timed or not, with or without ClusterFetch and AccuSim's rules.
        let Ok(prepared) = PreparedFileTrace::new(program(&actions), 4096) else { return Ok(()) };
        let cfg = config(&s);
        let mut spec = PolicySpec::parse(s.policy).expect("a listed policy");
        if s.compat {
            spec.preset = registry::Preset::Accusim;
        }
        let universe = prepared.layout.universe();
        let run = |chunk| {
            let run = Chunked { trace: &prepared, capacity: s.capacity, cfg: &cfg, chunk };
            crate::cache::builder::build(&spec, s.capacity, universe, run).expect("builds")
        };
        let (whole, chunked) = (run(usize::MAX), run(chunk));
        prop_assert!(whole.0.requests > 0);
        prop_assert_eq!(whole, chunked);
    }

    #[test]
    fn untimed_results_do_not_depend_on_the_clock(
        actions in prop::collection::vec(action(), 1..80),
        s in setup(),
    ) {
        // Without a device every request completes at issue, so think times change nothing
        // (except to ClusterFetch, whose bursts are defined by time).
        let mut trace = program(&actions);
        let Ok(a) = PreparedFileTrace::new(trace.clone(), 4096) else { return Ok(()) };
        for e in &mut trace.events {
            e.think_ns = 0;
        }
        let b = PreparedFileTrace::new(trace, 4096).expect("same reads");
        let cfg = FileSimConfig {
            disk: None,
            scheduler: Scheduler::Fcfs,
            clusterfetch: None,
            ..config(&s)
        };
        let spec = PolicySpec::parse(s.policy).expect("a listed policy");
        let ra = run_file_one(&spec, &a, s.capacity, &cfg).expect("runs");
        let rb = run_file_one(&spec, &b, s.capacity, &cfg).expect("runs");
        prop_assert_eq!((ra.hits, ra.misses, ra.io), (rb.hits, rb.misses, rb.io));
    }
}
