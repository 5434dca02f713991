//! Block-level traces through the file-level engine: runs of consecutive block ids act as files,
//! so read-ahead, I/O clustering and timing apply to traces without file information.

use belady_core::engine::file::{run_file_one, FileSimConfig, PreparedFileTrace};
use belady_core::prefetch::PrefetchKind;
use belady_core::trace::file::FileEventKind;
use belady_core::trace::{BlockRequest, Op};
use belady_core::{run_one, BlockTrace, OpFilter, PolicySpec, PreparedTrace};

fn blocks(ids: &[u64]) -> BlockTrace {
    let reqs = ids.iter().map(|&block| {
        Ok(BlockRequest {
            block,
            count: 1,
            op: Op::Read,
            time_ns: Some(block * 1000),
            bytes: 4096,
        })
    });
    BlockTrace::from_requests(reqs, OpFilter::Read, true, "t".into(), 4096).unwrap()
}

#[test]
fn runs_of_consecutive_ids_become_files() {
    // Ids 10..13 and 50..52 form two runs; 90 is alone.
    let t = blocks(&[50, 10, 11, 51, 12, 90, 13, 10]);
    let p = PreparedFileTrace::from_block_trace(&t).unwrap();
    let events = p.to_file_trace().unwrap().events;
    let reads: Vec<(u64, u64)> = events
        .iter()
        .filter_map(|e| match e.kind {
            FileEventKind::Read { offset, .. } => Some((e.file, offset / 4096)),
            _ => None,
        })
        .collect();
    // Run 0 is 10..=13, run 1 is 50..=51, run 2 is 90 (runs in id order).
    assert_eq!(
        reads,
        [
            (1, 0),
            (0, 0),
            (0, 1),
            (1, 1),
            (0, 2),
            (2, 0),
            (0, 3),
            (0, 0)
        ]
    );
    let opens = events
        .iter()
        .filter(|e| e.kind == FileEventKind::Open)
        .count();
    assert_eq!(opens, 3, "each run is opened once, at its first reference");
    assert_eq!(p.distinct, 7);
    // Think time is the gap between reference times (here id × 1 µs): id 11 comes 1 µs after id 10.
    let first_read_of_11 = events.iter().find(|e| {
        e.kind
            == FileEventKind::Read {
                offset: 4096,
                len: 4096,
            }
            && e.file == 0
    });
    assert_eq!(first_read_of_11.unwrap().think_ns, 1000);
}

#[test]
fn without_read_ahead_the_hits_equal_the_block_engine() {
    let mut x: u64 = 7;
    let ids: Vec<u64> = (0..5000)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if i % 3 == 0 {
                x % 400
            } else {
                (i / 3) % 700
            }
        })
        .collect();
    let t = blocks(&ids);
    let file = PreparedFileTrace::from_block_trace(&t).unwrap();
    let block = PreparedTrace::new(t);
    let cfg = FileSimConfig {
        prefetch: PrefetchKind::None,
        ..FileSimConfig::default()
    };
    for policy in ["lru", "arc", "lirs", "opt", "2q", "mq"] {
        let spec = PolicySpec::parse(policy).unwrap();
        let a = run_one(&spec, &block, 64).unwrap();
        let b = run_file_one(&spec, &file, 64, &cfg).unwrap();
        assert_eq!((a.hits, a.misses), (b.hits, b.misses), "{policy}");
        let io = b.io.unwrap();
        assert_eq!(io.disk_requests, b.misses, "{policy}: one request per miss");
    }
}

#[test]
fn read_ahead_clusters_a_sequential_block_trace() {
    let ids: Vec<u64> = (0..2).flat_map(|_| 1000..1600).collect();
    let t = blocks(&ids);
    let file = PreparedFileTrace::from_block_trace(&t).unwrap();
    let spec = PolicySpec::parse("lru").unwrap();
    let run = |prefetch| {
        let cfg = FileSimConfig {
            prefetch,
            ..FileSimConfig::default()
        };
        run_file_one(&spec, &file, 100, &cfg).unwrap()
    };
    let off = run(PrefetchKind::None);
    let on = run(PrefetchKind::Linux24);
    assert_eq!(off.hits, 0);
    assert!(on.hits > 1000, "{}", on.hits);
    let (a, b) = (off.io.unwrap(), on.io.unwrap());
    assert_eq!(a.disk_requests, 1200);
    assert!(b.disk_requests * 8 < a.disk_requests, "{}", b.disk_requests);
}

#[test]
fn writes_are_refused_with_the_reason() {
    let reqs = [Op::Read, Op::Write].into_iter().map(|op| {
        Ok(BlockRequest {
            block: 1,
            count: 1,
            op,
            time_ns: None,
            bytes: 4096,
        })
    });
    let t = BlockTrace::from_requests(reqs, OpFilter::All, false, "w.csv".into(), 4096).unwrap();
    let err = PreparedFileTrace::from_block_trace(&t)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("w.csv") && err.contains("--ops read"), "{err}");
}
