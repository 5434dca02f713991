//! AccuSim's read loop and I/O status departures, each on a small program where it changes the
//! outcome: switched on alone, the departure must produce AccuSim's result, and off, the paper's.

use belady_core::disk::DiskConfig;
use belady_core::engine::file::{run_file_one, Departures, FileSimConfig, PreparedFileTrace};
use belady_core::policy::registry::{PolicySpec, Preset};
use belady_core::prefetch::PrefetchKind;
use belady_core::trace::file::{FileEvent, FileEventKind, FileTrace};

const FILE: u64 = 7;
const SIZE: u64 = 40 * 4096;

fn event(think_us: u64, kind: FileEventKind) -> FileEvent {
    FileEvent {
        think_ns: think_us * 1000,
        pid: 1,
        fd: 3,
        file: FILE,
        file_size: SIZE,
        kind,
    }
}

fn read(think_us: u64, block: u64, blocks: u64) -> FileEvent {
    event(
        think_us,
        FileEventKind::Read {
            offset: block * 4096,
            len: blocks * 4096,
        },
    )
}

fn trace(events: Vec<FileEvent>) -> PreparedFileTrace {
    let trace = FileTrace {
        source: "test".into(),
        events,
        ..FileTrace::default()
    };
    PreparedFileTrace::new(trace, 4096).unwrap()
}

/// Runs `policy` (AccuSim preset when `accusim_policy`) over `t` with the named departures.
fn run(
    t: &PreparedFileTrace,
    policy: &str,
    capacity: usize,
    rules: &[&str],
    disk: Option<&str>,
) -> belady_core::engine::RunResult {
    let mut departures = Departures::default();
    for r in rules {
        departures.enable(r).unwrap();
    }
    let cfg = FileSimConfig {
        prefetch: PrefetchKind::Linux24,
        departures,
        disk: disk.map(|d| DiskConfig::preset(d).unwrap()),
        ..FileSimConfig::default()
    };
    let mut spec = PolicySpec::parse(policy).unwrap();
    spec.preset = Preset::Accusim;
    run_file_one(&spec, t, capacity, &cfg).unwrap()
}

#[test]
fn demand_blocks_the_read_ahead_reaches_are_referenced_not_prefetched() {
    // One 8 KB read from block 0 misses block 0; the synchronous read-ahead covers blocks 1..3.
    // Block 1 belongs to the call: AccuSim references it as a demand miss where the read-ahead
    // reaches it, so only blocks 2 and 3 are prefetched. The paper's engine prefetches block 1
    // too and then finds it in flight.
    let t = trace(vec![event(0, FileEventKind::Open), read(100, 0, 2)]);
    let paper = run(&t, "lru", 100, &[], None);
    let accusim = run(&t, "lru", 100, &["window-covers-call"], None);
    let prefetched = |r: &belady_core::engine::RunResult| r.io.as_ref().unwrap().prefetched_blocks;
    assert_eq!((prefetched(&paper), prefetched(&accusim)), (3, 2));
    // Both count the call's two blocks as misses and issue one synchronous request of 4 blocks.
    for r in [&paper, &accusim] {
        let io = r.io.as_ref().unwrap();
        assert_eq!((r.misses, io.sync_requests, io.sync_blocks), (2, 1, 4));
    }
}

#[test]
fn block_zero_of_a_request_from_block_zero_never_completes() {
    // The first 8 KB read's request starts at block 0, so AccuSim sends blocks 1..3 and block 0
    // is never marked done. Reading the file again from the start then finds block 0 "locked":
    // the synchronous branch starts a window of 3 over the cached blocks 1..3, and the next call
    // (blocks 2 and 3) continues it with an asynchronous read-ahead of 7 blocks. Without the
    // departure block 0 is an ordinary hit, no window forms and the second pass reads nothing.
    let t = trace(vec![
        event(0, FileEventKind::Open),
        read(100, 0, 2),
        event(0, FileEventKind::Close),
        event(0, FileEventKind::Open),
        read(100, 0, 2),
        read(100, 2, 2),
    ]);
    let rules = [
        "block0-sentinel",
        "window-covers-call",
        "in-flight-reuse-hits",
    ];
    let without = run(&t, "lru", 100, &rules, None);
    let with = run(
        &t,
        "lru",
        100,
        &[&rules[..], &["done-flags"]].concat(),
        None,
    );
    let requests = |r: &belady_core::engine::RunResult| {
        let io = r.io.as_ref().unwrap();
        (io.sync_requests, io.async_requests, io.async_blocks)
    };
    // The first request is classed by its second block (sync): the sentinel alone.
    assert_eq!(requests(&without), (1, 0, 0));
    assert_eq!(requests(&with), (1, 1, 7));
    // Block 0 is demand-fetched, not a prefetch, so its locked re-read still counts as a hit.
    assert_eq!((with.hits, with.misses), (without.hits, without.misses));
    assert_eq!((with.hits, with.misses), (4, 2));
}

#[test]
fn late_accesses_wait_only_for_requests_the_address_test_finds() {
    // Reads of blocks 0 and 1 start a window; block 1's hit sends blocks 4..10 ahead
    // asynchronously. 10 µs later the program jumps to block 8 of that request, still in flight:
    // a miss either way. The paper waits for the request that holds the block; AccuSim looks
    // for a pending request whose start lies at most as many sectors before the block as the
    // request holds blocks (7), and block 8 lies 32 sectors in, so it does not wait.
    let t = trace(vec![
        event(0, FileEventKind::Open),
        read(10, 0, 1),
        read(10, 1, 1),
        read(10, 8, 1),
    ]);
    // Requests end with their call in both runs, so block 1's read-ahead is issued at once.
    let calls = "requests-end-with-calls";
    let paper = run(&t, "lru", 100, &[calls], Some("cheetah9lp"));
    let accusim = run(
        &t,
        "lru",
        100,
        &[calls, "late-by-address"],
        Some("cheetah9lp"),
    );
    let io = |r: &belady_core::engine::RunResult| r.io.clone().unwrap();
    assert_eq!((io(&paper).late, io(&accusim).late), (1, 0));
    assert_eq!((paper.misses, accusim.misses), (2, 2));
    assert!(io(&accusim).exec_time_s.unwrap() < io(&paper).exec_time_s.unwrap());
}

#[test]
fn in_flight_blocks_already_used_are_hits() {
    // Block 1's hit sends blocks 4..10 ahead; 10 µs later block 8 is read twice while that
    // request is in flight, and (as above) AccuSim's address test does not make the program wait
    // for it. The first read is a miss either way; the second is a miss in the paper's
    // accounting and a hit in AccuSim's (only the first access of a prefetched block asks
    // whether its I/O completed).
    let t = trace(vec![
        event(0, FileEventKind::Open),
        read(10, 0, 1),
        read(10, 1, 1),
        read(10, 8, 1),
        read(10, 8, 1),
    ]);
    let base = ["requests-end-with-calls", "late-by-address", "done-flags"];
    let paper = run(&t, "lru", 100, &base, Some("cheetah9lp"));
    let accusim = run(
        &t,
        "lru",
        100,
        &[&base[..], &["in-flight-reuse-hits"]].concat(),
        Some("cheetah9lp"),
    );
    assert_eq!((paper.hits, accusim.hits), (1, 2));
}
