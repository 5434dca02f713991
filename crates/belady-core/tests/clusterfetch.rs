//! ClusterFetch on synthetic launches whose correlated blocks are known: what it learns, what it
//! saves, and how much launch time it saves under the `fixed` disk model (predicted here from the
//! model's latency and the request counts).

use belady_core::disk::DiskConfig;
use belady_core::engine::file::{
    run_file_one, run_file_one_with_store, FileSimConfig, Placement, PreparedFileTrace,
};
use belady_core::prefetch::clusterfetch::{ClusterFetchConfig, PrefetchStore};
use belady_core::prefetch::PrefetchKind;
use belady_core::trace::file::{FileEvent, FileEventKind, FileTrace};
use belady_core::{PolicySpec, RunResult};
use std::collections::BTreeSet;

const BS: u64 = 4096;
const MS: u64 = 1_000_000;
const TRIGGER: u64 = 1;
const DATA: u64 = 2;
const MARKER: u64 = 3;
const DATA_BLOCKS: u64 = 200;
/// Every fifth block of the data file from block 1: no two adjacent (nor next to the trigger's
/// block, laid out just before the data file), so each is a request of its own.
const STRIDE: u64 = 5;
/// The quiet time between the launch and the marker's open.
const PAUSE_NS: u64 = 2_000 * MS;

fn ev(file: u64, size: u64, think_ns: u64, kind: FileEventKind) -> FileEvent {
    FileEvent {
        think_ns,
        pid: 1,
        fd: 3 + file as u32,
        file,
        file_size: size,
        kind,
    }
}

fn read(file: u64, size: u64, think_ns: u64, block: u64) -> FileEvent {
    ev(
        file,
        size,
        think_ns,
        FileEventKind::Read {
            offset: block * BS,
            len: BS,
        },
    )
}

/// A launch: open the trigger, read its block after `first_think_ns`, open the data file and read
/// `order` (data blocks) with `think_ns` before each; then, after a pause, the marker file is
/// opened and read slowly (one read a second: never a burst).
fn launch(first_think_ns: u64, think_ns: u64, order: &[u64]) -> FileTrace {
    let data_size = DATA_BLOCKS * BS;
    let mut events = vec![
        ev(TRIGGER, BS, 0, FileEventKind::Open),
        read(TRIGGER, BS, first_think_ns, 0),
        ev(DATA, data_size, 0, FileEventKind::Open),
    ];
    events.extend(order.iter().map(|&b| read(DATA, data_size, think_ns, b)));
    events.push(ev(MARKER, 10 * BS, PAUSE_NS, FileEventKind::Open));
    events.extend((0..10).map(|i| read(MARKER, 10 * BS, 1_000 * MS, i)));
    FileTrace {
        source: "synthetic-launch".into(),
        events,
        names: [
            (TRIGGER, "/app/trigger".to_string()),
            (DATA, "/app/data".to_string()),
            (MARKER, "/app/marker".to_string()),
        ]
        .into(),
    }
}

fn correlated() -> Vec<u64> {
    (0..DATA_BLOCKS / STRIDE).map(|i| 1 + i * STRIDE).collect()
}

/// A shuffled copy (xorshift, fixed seed): the program reads the blocks out of address order.
fn shuffled(mut v: Vec<u64>) -> Vec<u64> {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for i in (1..v.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.swap(i, (x % (i as u64 + 1)) as usize);
    }
    v
}

fn prepared(trace: FileTrace) -> PreparedFileTrace {
    let mut p = PreparedFileTrace::new(trace, BS as u32).unwrap();
    p.set_launch_until_open("/app/marker").unwrap();
    p
}

fn fixed_latency_ns(disk: &DiskConfig) -> u64 {
    match disk {
        DiskConfig::Fixed(p) => {
            assert_eq!(
                p.per_sector_ms, 0.0,
                "the predictions assume no per-sector cost"
            );
            (p.latency_ms * 1e6).round() as u64
        }
        other => panic!("expected the fixed model, got {other:?}"),
    }
}

fn config(cf: Option<ClusterFetchConfig>) -> FileSimConfig {
    FileSimConfig {
        prefetch: PrefetchKind::None,
        disk: Some(DiskConfig::preset("fixed").unwrap()),
        clusterfetch: cf,
        ..FileSimConfig::default()
    }
}

fn run(
    trace: &PreparedFileTrace,
    cfg: &FileSimConfig,
    store: Option<&PrefetchStore>,
) -> (RunResult, Option<PrefetchStore>) {
    let lru = PolicySpec::parse("lru").unwrap();
    run_file_one_with_store(&lru, trace, 1000, cfg, store).unwrap()
}

fn launch_ns(r: &RunResult) -> u64 {
    let l =
        r.io.as_ref()
            .unwrap()
            .launch
            .as_ref()
            .expect("launch stats");
    assert!(l.reached, "the marker was opened");
    (l.time_s * 1e9).round() as u64
}

fn stored_blocks(store: &PrefetchStore, trigger: &str) -> BTreeSet<(String, u64)> {
    store
        .peek(trigger)
        .expect("trigger stored")
        .into_iter()
        .flat_map(|(f, start, len)| (start..start + len).map(move |b| (f.to_string(), b)))
        .collect()
}

#[test]
fn learns_exactly_the_launch_blocks_and_the_next_launch_overlaps_them_with_computation() {
    let order = shuffled(correlated());
    let n = order.len() as u64 + 1; // the data blocks and the trigger's own block
    let think = 250_000; // 0.25 ms of computation before each read
    let first_think = 100 * MS; // start-up computation after opening the trigger
    let trace = prepared(launch(first_think, think, &order));
    let cf = ClusterFetchConfig::default();
    let cfg = config(Some(cf.clone()));
    let latency = fixed_latency_ns(cfg.disk.as_ref().unwrap());

    // Run 1: cold, learning. Without a store ClusterFetch only watches, so the run is the cold
    // start exactly: one request per read, each waited for.
    let (cold, store) = run(&trace, &cfg, None);
    let store = store.expect("ClusterFetch on returns its store");
    let plain = run_file_one(
        &PolicySpec::parse("lru").unwrap(),
        &trace,
        1000,
        &config(None),
    )
    .unwrap();
    assert_eq!((cold.hits, cold.misses), (plain.hits, plain.misses));
    assert_eq!(
        cold.io.as_ref().unwrap().exec_time_s,
        plain.io.as_ref().unwrap().exec_time_s
    );
    let cold_ns = launch_ns(&cold);
    let thinks = first_think + think * (n - 1) + PAUSE_NS;
    assert_eq!(
        cold_ns,
        thinks + n * latency,
        "cold: every read waits one latency"
    );
    assert_eq!(
        cold.io
            .as_ref()
            .unwrap()
            .launch
            .as_ref()
            .unwrap()
            .disk_requests,
        n
    );

    // The store holds exactly the blocks read between the trigger's open and the pause.
    let mut expect: BTreeSet<(String, u64)> =
        order.iter().map(|&b| ("/app/data".into(), b)).collect();
    expect.insert(("/app/trigger".into(), 0));
    assert_eq!(stored_blocks(&store, "/app/trigger"), expect);
    assert_eq!(store.len(), 1, "the slow marker reads are no burst");
    let cfs = cold.io.as_ref().unwrap().clusterfetch.clone().unwrap();
    assert_eq!(cfs.bursts_learned, 1);
    assert_eq!(cfs.store_bytes, store.bytes());
    assert!(cfs.store_bytes <= cf.store_limit_bytes);

    // Run 2: the open of the trigger prefetches all n blocks in address order, back to back; they
    // complete after n latencies, before the start-up computation ends, so every read hits and
    // the launch is computation only: it drops by n latencies.
    assert!(n * latency < first_think);
    let (warm, again) = run(&trace, &cfg, Some(&store));
    let assisted_ns = launch_ns(&warm);
    assert_eq!(assisted_ns, thinks);
    assert_eq!(cold_ns - assisted_ns, n * latency);
    let io = warm.io.as_ref().unwrap();
    let cfs = io.clusterfetch.clone().unwrap();
    assert_eq!(
        (cfs.triggers, cfs.requests, cfs.prefetched_blocks),
        (1, n, n)
    );
    assert_eq!(cfs.used_blocks, n);
    assert_eq!(cfs.accuracy, 1.0);
    assert_eq!(cfs.coverage, Some(1.0));
    assert_eq!(cfs.baseline_misses, Some(n));
    assert_eq!(io.launch.as_ref().unwrap().misses, 0);
    let reduction = cfs.launch_time_reduction.unwrap();
    assert!((reduction - (n * latency) as f64 / cold_ns as f64).abs() < 1e-12);
    // Nothing new to learn: the launch read nothing from the disk.
    assert_eq!(again.unwrap(), store);
}

/// Completion time model of the prefetched launch when reads follow address order: prefetch `k`
/// is released at `k * gap` (the bandwidth cap), starts once released and the device is free, and
/// takes `latency`; a read that finds its request not started promotes it, and it starts at
/// once (the device is free then: the program waited for the previous one, later ones are not
/// released yet); a read waits until its request completes.
fn predicted_assisted_ns(n: u64, think: u64, latency: u64, gap: u64) -> u64 {
    let (mut t, mut free) = (0, 0);
    for k in 0..n {
        let asked = t + think;
        let start = asked.min((k * gap).max(free));
        free = start + latency;
        t = asked.max(free);
    }
    t
}

#[test]
fn a_bandwidth_cap_spaces_prefetches_and_a_waiting_read_promotes_its_request() {
    let order = correlated(); // address order
    let n = order.len() as u64 + 1;
    let think = 300_000;
    let trace = prepared(launch(think, think, &order));
    let latency = fixed_latency_ns(&DiskConfig::preset("fixed").unwrap());
    let mut store = PrefetchStore::new();
    store.learn(
        "/app/trigger",
        std::iter::once(("/app/trigger", 0)).chain(order.iter().map(|&b| ("/app/data", b))),
        1 << 20,
    );
    for (cap, gap) in [(0u64, 0u64), (BS * 500, 2 * MS), (BS * 250, 4 * MS)] {
        let cf = ClusterFetchConfig {
            bandwidth_bytes_per_s: cap,
            ..ClusterFetchConfig::default()
        };
        let (r, _) = run(&trace, &config(Some(cf)), Some(&store));
        let expect = predicted_assisted_ns(n, think, latency, gap) + PAUSE_NS;
        assert_eq!(launch_ns(&r), expect, "cap {cap} B/s");
        let cfs = r.io.as_ref().unwrap().clusterfetch.clone().unwrap();
        if gap > latency + think {
            assert!(cfs.promoted > 0, "reads outrun a tight cap and promote");
        }
        if cap == 0 {
            assert_eq!(
                cfs.promoted, 0,
                "uncapped prefetches all start before they are read"
            );
        }
    }
}

#[test]
fn the_store_persists_between_runs_and_stays_within_its_limit() {
    let order = shuffled(correlated());
    let trace = prepared(launch(100 * MS, 250_000, &order));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("launch.cfstore");
    assert!(
        PrefetchStore::load(&path).unwrap().is_none(),
        "no file: learn from scratch"
    );
    let cfg = config(Some(ClusterFetchConfig::default()));
    let (cold, learned) = run(&trace, &cfg, None);
    learned.unwrap().save(&path).unwrap();
    let loaded = PrefetchStore::load(&path).unwrap().expect("saved");
    let (assisted, _) = run(&trace, &cfg, Some(&loaded));
    assert!(launch_ns(&assisted) < launch_ns(&cold));

    // A limit too small for the whole burst keeps its first-read blocks and the size bound.
    let limit = 200;
    let small = ClusterFetchConfig {
        store_limit_bytes: limit,
        ..ClusterFetchConfig::default()
    };
    let (r, store) = run(&trace, &config(Some(small)), None);
    let store = store.unwrap();
    assert!(store.bytes() <= limit && store.encode().len() as u64 <= limit);
    let kept = store.blocks_of("/app/trigger");
    assert!(kept > 0 && kept < order.len() as u64, "{kept} blocks kept");
    assert!(stored_blocks(&store, "/app/trigger").contains(&("/app/trigger".to_string(), 0)));
    assert!(r.io.unwrap().clusterfetch.unwrap().store_bytes <= limit);

    // Damage is an error naming the file.
    let mut bytes = std::fs::read(&path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    let e = PrefetchStore::load(&path).unwrap_err().to_string();
    assert!(
        e.contains("launch.cfstore") && e.contains("checksum"),
        "{e}"
    );
}

#[test]
fn warm_start_replays_the_trace_with_its_cache() {
    let order = shuffled(correlated());
    let think = 250_000;
    let first = 100 * MS;
    let t = launch(first, think, &order);
    let mut warm = PreparedFileTrace::warm(t.clone(), BS as u32).unwrap();
    warm.set_launch_until_open("/app/marker").unwrap();
    let (r, _) = run(&warm, &config(None), None);
    let l = r.io.as_ref().unwrap().launch.clone().unwrap();
    assert_eq!(l.start_event as usize, t.events.len());
    // Everything the launch reads is cached: computation only.
    let n = order.len() as u64 + 1;
    assert_eq!(l.misses, 0);
    assert_eq!(l.requests, n);
    assert_eq!(launch_ns(&r), first + think * (n - 1) + PAUSE_NS);
}

#[test]
fn an_unknown_marker_is_a_config_error() {
    let mut p = PreparedFileTrace::new(launch(0, 0, &[0]), BS as u32).unwrap();
    let e = p.set_launch_until_open("/nope").unwrap_err().to_string();
    assert!(
        e.contains("launch_until_open") && e.contains("/nope"),
        "{e}"
    );
}

/// Scattered placement puts each file where its name says, so files read one after another cost
/// seeks on a disk (not on the fixed model), and renumbering files changes nothing.
#[test]
fn scattered_placement_follows_names_and_costs_seeks() {
    let files: Vec<(u64, String)> = (0..30)
        .map(|i| (10 + i, format!("/lib/mod{i}.py")))
        .collect();
    let trace = |ids: &dyn Fn(u64) -> u64| {
        let mut events = Vec::new();
        for (f, _) in &files {
            events.push(ev(ids(*f), 2 * BS, 0, FileEventKind::Open));
            events.push(read(ids(*f), 2 * BS, 100_000, 0));
        }
        let names = files.iter().map(|(f, n)| (ids(*f), n.clone())).collect();
        PreparedFileTrace::new(
            FileTrace {
                source: "modules".into(),
                events,
                names,
            },
            BS as u32,
        )
        .unwrap()
    };
    let a = trace(&|f| f);
    let b = trace(&|f| 1000 - f);
    let lru = PolicySpec::parse("lru").unwrap();
    let time = |t: &PreparedFileTrace, disk: &str, placement| {
        let cfg = FileSimConfig {
            prefetch: PrefetchKind::None,
            disk: Some(DiskConfig::preset(disk).unwrap()),
            placement,
            ..FileSimConfig::default()
        };
        run_file_one(&lru, t, 1000, &cfg)
            .unwrap()
            .io
            .unwrap()
            .exec_time_s
            .unwrap()
    };
    let contiguous = time(&a, "cheetah9lp", Placement::Contiguous);
    let scattered = time(&a, "cheetah9lp", Placement::Scattered);
    assert!(scattered > contiguous * 1.5, "{scattered} vs {contiguous}");
    assert_eq!(scattered, time(&b, "cheetah9lp", Placement::Scattered));
    assert_eq!(
        time(&a, "fixed", Placement::Scattered),
        time(&a, "fixed", Placement::Contiguous)
    );
}
