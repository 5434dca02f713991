//! The plugged request queue of the paper's I/O clustering: a prefetch-only request stays open
//! after its call so that the next call's read-ahead can extend it, and is issued when the
//! program needs one of its blocks, blocks on I/O, or (with a device) the unplug timer fires.

mod common;
use belady_core::disk::fixed::FixedParams;
use belady_core::disk::DiskConfig;
use belady_core::engine::file::{run_file_one, FileSimConfig, PreparedFileTrace};
use belady_core::engine::RunResult;
use belady_core::policy::registry::PolicySpec;
use belady_core::prefetch::PrefetchKind;
use belady_core::trace::file::FileEventKind;
use common::{call, program};

const BLOCKS: u64 = 64;

/// Open, then `n` one-block reads from block 0 on, `think_us` apart.
fn sequential(n: u64, think_us: u64) -> PreparedFileTrace {
    let size = BLOCKS * 4096;
    let mut events = vec![call(0, size, FileEventKind::Open)];
    events.extend((0..n).map(|b| {
        call(
            think_us,
            size,
            FileEventKind::Read {
                offset: b * 4096,
                len: 4096,
            },
        )
    }));
    program(events)
}

fn run(t: &PreparedFileTrace, cfg: &FileSimConfig) -> RunResult {
    run_file_one(&PolicySpec::parse("lru").unwrap(), t, 100, cfg).unwrap()
}

fn config(latency_ms: Option<f64>) -> FileSimConfig {
    FileSimConfig {
        prefetch: PrefetchKind::Linux24,
        disk: latency_ms.map(|latency_ms| {
            DiskConfig::Fixed(FixedParams {
                latency_ms,
                per_sector_ms: 0.0,
            })
        }),
        log_requests: true,
        ..FileSimConfig::default()
    }
}

/// Each request as (event that issued it, first block, blocks, synchronous, issue time in µs).
fn requests(r: &RunResult) -> Vec<(u64, u64, u64, bool, u64)> {
    let io = r.io.as_ref().unwrap();
    io.request_log
        .iter()
        .map(|q| (q.event, q.first, q.blocks, q.sync, q.issued_ns / 1000))
        .collect()
}

#[test]
fn untimed_reads_of_plugged_prefetches_are_hits() {
    // Event 1 opens the file; event k + 2 reads block k. The first read's synchronous request
    // (block 0 and read-ahead 1..3) is issued at once; the asynchronous read-ahead of 4..10
    // stays plugged until the read of block 4 (event 6) needs it, which issues it, and complete,
    // since without a device a request completes when issued. Likewise 11..23 at the read of
    // block 11, whose call adds 24..39 (a full 64 KB request); 40..48 is left at the end.
    let r = run(&sequential(24, 10), &config(None));
    assert_eq!((r.hits, r.misses), (23, 1));
    assert_eq!(r.io.as_ref().unwrap().prefetch_hits, 23);
    assert_eq!(
        requests(&r),
        vec![
            (2, 0, 4, true, 10),
            (6, 4, 7, false, 50),
            (13, 11, 13, false, 120),
            (13, 24, 16, false, 120),
            (25, 40, 9, false, 240),
        ]
    );
}

#[test]
fn timed_reads_wait_for_plugged_prefetches() {
    // A 1 ms device and 10 µs between reads: the program reaches blocks 4 and 11 while their
    // read-ahead is still plugged, so each read issues it and waits the full millisecond (a
    // late prefetch, counted as a miss). Run time: 24 × 10 µs of computing and three 1 ms waits.
    let r = run(&sequential(24, 10), &config(Some(1.0)));
    let io = r.io.as_ref().unwrap();
    assert_eq!((r.misses, io.late), (3, 2));
    assert_eq!(io.exec_time_s, Some(0.003_24));
    assert_eq!(requests(&r)[1], (6, 4, 7, false, 1_050));
}

#[test]
fn the_unplug_timer_issues_prefetches_while_the_program_computes() {
    // 5 ms between reads: block 1's read (at 11 ms, after the first read waited 1 ms) leaves
    // 4..10 plugged; the 3 ms unplug timer issues it at 14 ms, during the computation before
    // the next read, so it is complete when the program reaches it. Every read-ahead arrives in
    // time: one miss, nothing late.
    let t = sequential(24, 5_000);
    let r = run(&t, &config(Some(1.0)));
    let io = r.io.as_ref().unwrap();
    assert_eq!((r.misses, io.late), (1, 0));
    assert_eq!(requests(&r)[1], (4, 4, 7, false, 14_000));
    // Without the timer the request waits until the read of block 4 (event 6, at 26 ms) needs it.
    let never = FileSimConfig {
        unplug_delay_ns: u64::MAX,
        ..config(Some(1.0))
    };
    let r = run(&t, &never);
    assert_eq!(requests(&r)[1], (6, 4, 7, false, 26_000));
    assert!(r.io.as_ref().unwrap().late >= 1);
}
