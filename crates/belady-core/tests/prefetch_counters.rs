//! The read-ahead counters add up for every policy and prefetcher: each block read ahead is, by
//! the end of the run, exactly one of a prefetch hit, a late prefetch (first referenced while its
//! I/O was in flight), an unused block evicted, or an unused block still resident.

mod common;

use belady_core::engine::file::{run_file_one, Departures, FileSimConfig, PreparedFileTrace};
use belady_core::prefetch::{PrefetchKind, PREFETCH_NAMES};
use belady_core::trace::file::{FileEvent, FileEventKind, FileTrace};
use belady_core::{PolicySpec, POLICIES};

/// Three files read through three descriptors: one sequentially twice, one at scattered offsets,
/// one in bursts of sequential calls of varying lengths (a fixed linear congruential sequence, so
/// the trace is the same every run).
fn program() -> PreparedFileTrace {
    let sizes = [600 * 4096, 300 * 4096 + 100, 900 * 4096];
    let mut events = Vec::new();
    let ev = |file: u64, think_ns: u64, kind: FileEventKind| FileEvent {
        think_ns,
        pid: 1,
        fd: file as u32 + 3,
        file,
        file_size: sizes[file as usize],
        kind,
    };
    for f in 0..3 {
        events.push(ev(f, 0, FileEventKind::Open));
    }
    let mut x: u64 = 12345;
    let mut next = || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        x >> 33
    };
    let mut seq = [0u64; 3];
    for i in 0..1500u64 {
        let f = next() % 3;
        let think = 20_000 + next() % 200_000;
        let (offset, len) = match f {
            0 => {
                let o = seq[0];
                seq[0] = (seq[0] + 4096) % sizes[0];
                (o, 4096)
            }
            1 => ((next() % 300) * 4096, 4096 + (i % 3) * 2048),
            _ => {
                if next() % 8 == 0 {
                    seq[2] = (next() % 850) * 4096;
                }
                let o = seq[2];
                seq[2] = (seq[2] + 8192) % (sizes[2] - 8192);
                (o, 8192)
            }
        };
        events.push(ev(f, think, FileEventKind::Read { offset, len }));
    }
    let trace = FileTrace {
        source: "counters".into(),
        events,
        ..FileTrace::default()
    };
    PreparedFileTrace::new(trace, 4096).unwrap()
}

#[test]
fn prefetched_blocks_are_hits_late_evicted_or_resident() {
    let trace = program();
    let disk = belady_core::disk::load_config("cheetah9lp").unwrap();
    let mut checked = 0;
    // Each term is exercised somewhere in the grid (else the identity could hold vacuously).
    let mut seen = [0u64; 4];
    for info in POLICIES {
        let spec = PolicySpec::parse(info.name).unwrap();
        for &prefetch in PREFETCH_NAMES {
            for (setting, departures, disk) in [
                ("untimed", Departures::default(), None),
                ("disk", Departures::default(), Some(disk.clone())),
                ("accusim", Departures::accusim(), Some(disk.clone())),
            ] {
                let cfg = FileSimConfig {
                    prefetch: PrefetchKind::parse(prefetch).unwrap(),
                    departures,
                    disk,
                    ..FileSimConfig::default()
                };
                for capacity in [8, 64, 400] {
                    let run = run_file_one(&spec, &trace, capacity, &cfg).unwrap();
                    let io = run.io.unwrap();
                    assert_eq!(
                        io.prefetched_blocks,
                        io.prefetch_hits
                            + io.prefetch_late
                            + io.prefetch_unused_evicted
                            + io.prefetch_unused_resident,
                        "{} {prefetch} {setting} {capacity}: {io:?}",
                        info.name
                    );
                    assert!(io.prefetch_unused_resident <= capacity as u64);
                    for (s, v) in seen.iter_mut().zip([
                        io.prefetch_hits,
                        io.prefetch_late,
                        io.prefetch_unused_evicted,
                        io.prefetch_unused_resident,
                    ]) {
                        *s += v;
                    }
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, POLICIES.len() * PREFETCH_NAMES.len() * 9);
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
}
