//! The prefetching study's Table 1 (Butt, Gniady, Hu, SIGMETRICS 2005, section 3): with the
//! simplified prefetcher and an 8-block cache, Belady's MIN issues 8 disk requests and LRU 6 over
//! the same 24 accesses. Every row's cache contents and I/O are checked.

use belady_core::engine::file::{FileSim, FileSimConfig, PreparedFileTrace};
use belady_core::policy::lru::LruPolicy;
use belady_core::policy::opt::OptPolicy;
use belady_core::policy::Policy;
use belady_core::prefetch::PrefetchKind;
use belady_core::trace::file::{FileEvent, FileEventKind, FileTrace};

const ACCESSES: &str = "acegikmoabcdefghijklmnop";

/// Per row: cache contents after the access and whether it issued a disk request.
const OPT_ROWS: [(&str, bool); 24] = [
    ("abc", true),
    ("abc", false),
    ("abcefghi", true),
    ("abcefghi", false),
    ("abcefghi", false),
    ("abcefgkl", true),
    ("abcefgmn", true),
    ("abcefgop", true),
    ("abcefgop", false),
    ("abcefgop", false),
    ("abcefgop", false),
    ("bcdefgop", true),
    ("bcdefgop", false),
    ("bcdefgop", false),
    ("bcdefgop", false),
    ("hijklmno", true),
    ("hijklmno", false),
    ("hijklmno", false),
    ("hijklmno", false),
    ("hijklmno", false),
    ("hijklmno", false),
    ("hijklmno", false),
    ("hijklmno", false),
    ("ijklmnop", true),
];
const LRU_ROWS: [(&str, bool); 24] = [
    ("abc", true),
    ("abc", false),
    ("efghijkl", true),
    ("efghijkl", false),
    ("efghijkl", false),
    ("efghijkl", false),
    ("giklmnop", true),
    ("giklmnop", false),
    ("abckmnop", true),
    ("abckmnop", false),
    ("abckmnop", false),
    ("defghijk", true),
    ("defghijk", false),
    ("defghijk", false),
    ("defghijk", false),
    ("defghijk", false),
    ("defghijk", false),
    ("defghijk", false),
    ("defghijk", false),
    ("ijklmnop", true),
    ("ijklmnop", false),
    ("ijklmnop", false),
    ("ijklmnop", false),
    ("ijklmnop", false),
];

fn trace() -> PreparedFileTrace {
    let event = |kind| FileEvent {
        think_ns: 0,
        pid: 1,
        fd: 3,
        file: 1,
        file_size: 16 * 4096,
        kind,
    };
    let mut events = vec![event(FileEventKind::Open)];
    for c in ACCESSES.bytes() {
        events.push(event(FileEventKind::Read {
            offset: (c - b'a') as u64 * 4096,
            len: 4096,
        }));
    }
    let trace = FileTrace {
        source: "table1".into(),
        events,
        names: Default::default(),
    };
    PreparedFileTrace::new(trace, 4096).unwrap()
}

fn replay<P: Policy>(policy: P, rows: &[(&str, bool); 24]) -> u64 {
    let trace = trace();
    let cfg = FileSimConfig {
        prefetch: PrefetchKind::Example,
        ..FileSimConfig::default()
    };
    let mut sim = FileSim::new(policy, &trace, 8, &cfg);
    let events = trace.to_file_trace().unwrap().events;
    sim.step(&events[0]);
    for (i, ev) in events[1..].iter().enumerate() {
        let before = sim.io_stats().disk_requests;
        sim.step(ev);
        let mut content: Vec<u8> = sim
            .level()
            .frames()
            .resident_blocks()
            .map(|b| b"abcdefghijklmnop"[b as usize])
            .collect();
        content.sort_unstable();
        let (want, io) = rows[i];
        assert_eq!(
            String::from_utf8(content).unwrap(),
            want,
            "row {} (access {})",
            i + 1,
            ACCESSES.as_bytes()[i] as char
        );
        assert_eq!(
            sim.io_stats().disk_requests > before,
            io,
            "I/O at row {}",
            i + 1
        );
    }
    sim.finish().1.disk_requests
}

#[test]
fn belady_issues_eight_requests() {
    assert_eq!(replay(OptPolicy::new(8, 16), &OPT_ROWS), 8);
}

#[test]
fn lru_issues_six_requests() {
    assert_eq!(replay(LruPolicy::new(16), &LRU_ROWS), 6);
}
