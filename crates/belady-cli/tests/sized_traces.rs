//! Object traces keep their sizes (issue 25): `stats` reports their true bytes, size
//! distribution and byte footprint, and `convert` keeps sizes and times where the target holds
//! them. Every expected number is computed here from the records the test writes.

mod common;

use common::*;
use std::collections::HashMap;

/// One oracleGeneral record as the test writes it.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Record {
    time: u32,
    id: u64,
    size: u32,
}

/// `n` records over about `objects` ids with skewed popularity, sizes from 1 B to about
/// 1 MiB (heavy-tailed; an object's size changes now and then, as in KV traces), times
/// rising by 0 to 2 seconds, and a few size-0 records (which libCacheSim skips).
fn records(n: usize, objects: u64) -> Vec<Record> {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut time = 1000u32;
    (0..n)
        .map(|i| {
            let r = next();
            // Squaring a uniform draw favours small ids.
            let u = (r >> 11) as f64 / (1u64 << 53) as f64;
            let id = 1_000_000 + (u * u * objects as f64) as u64;
            let s = next();
            let size = if i % 997 == 0 {
                0
            } else if s % 7 == 0 {
                // The occasional new size for an object.
                1 + (s >> 40) as u32 % 5000
            } else {
                // A per-object size: 1 B to ~1 MiB, log-spread.
                let h = id.wrapping_mul(0x9e37_79b9_7f4a_7c15);
                1 + ((h >> 44) as u32 % 1000) * ((1 << ((h >> 20) % 11)) as u32)
            };
            time += (s % 3) as u32;
            Record { time, id, size }
        })
        .collect()
}

/// The records as an oracleGeneral file, next-access times by record index (-1: none).
fn oracle_general(records: &[Record]) -> Vec<u8> {
    let mut next_at: HashMap<u64, i64> = HashMap::new();
    let mut next = vec![-1i64; records.len()];
    for (i, r) in records.iter().enumerate().rev() {
        if r.size == 0 {
            continue;
        }
        next[i] = *next_at.get(&r.id).unwrap_or(&-1);
        next_at.insert(r.id, i as i64);
    }
    let mut out = Vec::with_capacity(records.len() * 24);
    for (r, n) in records.iter().zip(&next) {
        out.extend(r.time.to_le_bytes());
        out.extend(r.id.to_le_bytes());
        out.extend(r.size.to_le_bytes());
        out.extend(n.to_le_bytes());
    }
    out
}

fn stats(path: &str) -> serde_json::Value {
    serde_json::from_str(&ok(&belady(&["stats", path, "--json"]))).unwrap()
}

#[test]
fn stats_reports_an_object_traces_bytes_sizes_and_footprint() {
    let dir = tempfile::tempdir().unwrap();
    let recs = records(30_000, 4000);
    let path = path_in(dir.path(), "t.oracleGeneral");
    std::fs::write(&path, oracle_general(&recs)).unwrap();
    // What libCacheSim counts: size-0 records skipped; footprint by first-seen sizes.
    let kept: Vec<&Record> = recs.iter().filter(|r| r.size > 0).collect();
    assert!(kept.len() < recs.len(), "the trace has size-0 records");
    let bytes: u64 = kept.iter().map(|r| r.size as u64).sum();
    let mut first = HashMap::new();
    for r in &kept {
        first.entry(r.id).or_insert(r.size as u64);
    }
    let footprint: u64 = first.values().sum();
    let mut sizes: Vec<u64> = kept.iter().map(|r| r.size as u64).collect();
    sizes.sort_unstable();
    let rank = |p: usize| sizes[(sizes.len() * p).div_ceil(100) - 1];
    let s = stats(&path);
    assert_eq!(s["format"], "oracle-general");
    assert_eq!(s["requests"], kept.len());
    assert_eq!(s["unique_blocks"], first.len());
    assert_eq!(s["bytes"], bytes);
    assert_eq!(s["footprint_bytes"], footprint);
    let z = &s["object_sizes"];
    assert_eq!(z["min"], sizes[0]);
    assert_eq!(z["p50"], rank(50));
    assert_eq!(z["p90"], rank(90));
    assert_eq!(z["p99"], rank(99));
    assert_eq!(z["max"], *sizes.last().unwrap());
    let mean = bytes as f64 / kept.len() as f64;
    assert!((z["mean"].as_f64().unwrap() - mean).abs() < 1e-6 * mean);
    // The text form prints the same numbers.
    let human = ok(&belady(&["stats", &path]));
    for want in [
        format!("bytes requested            {bytes} "),
        format!("data size (footprint)      {footprint} "),
        format!("unique objects             {}", first.len()),
        format!("p90 {} B", rank(90)),
    ] {
        assert!(human.contains(&want), "{want}\n{human}");
    }
    // A block trace has no size distribution: its bytes are its blocks'.
    let lirs = write(dir.path(), "t.trace", "1\n2\n1\n");
    let b = stats(&lirs);
    assert!(b.get("object_sizes").is_none(), "{b}");
    assert_eq!(b["bytes"], 3 * 4096);
}
