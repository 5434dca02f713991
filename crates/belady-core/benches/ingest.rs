//! Ingest against simulation (issue #17 item 6): parsing a 10 M-reference LIRS text trace and
//! mapping its ids to dense ids must cost no more than the LRU run over the same ids.
//!
//! `cargo bench -p belady-core --bench ingest`. Both sides run on one thread (a one-thread rayon
//! pool for ingest; its reading thread is part of the cost, as in `belady sim --threads 1`), and
//! ingest with two threads is shown beside them. The trace is a Zipf(1.0) draw over 1 M blocks
//! (fixed seed), written once to a temporary file; the LRU cache holds 10% of its unique blocks.

use belady_core::trace::ingest::ingest;
use belady_core::trace::{BlockRequest, Op};
use belady_core::{run_one, BlockTrace, Format, OpFilter, PolicySpec, PreparedTrace, ReadOptions};
use criterion::{criterion_main, Criterion, Throughput};
use std::io::Write;
use std::path::Path;

const REFS: usize = 10_000_000;
const BLOCKS: usize = 1_000_000;

/// Zipf(1.0) block ids by inverse CDF, from a fixed-seed xorshift generator (as `policies.rs`),
/// offset so that they are not already dense.
fn zipf_ids() -> Vec<u64> {
    let mut cdf = Vec::with_capacity(BLOCKS);
    let mut sum = 0.0;
    for k in 1..=BLOCKS {
        sum += 1.0 / k as f64;
        cdf.push(sum);
    }
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..REFS)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let u = (state >> 11) as f64 / (1u64 << 53) as f64 * sum;
            // Scatter the ranks over a wide id space, as real block numbers are.
            cdf.partition_point(|&c| c < u) as u64 * 7919 + 1_000_000
        })
        .collect()
}

/// Reads the whole dense-id stream, as a run does (the spool is read back chunk by chunk).
fn ingest_all(path: &Path) -> (u64, usize) {
    let opts = ReadOptions::default();
    let mut feed = ingest(path, &Format::Lirs, &opts, OpFilter::Read).unwrap();
    let mut sum = 0u64;
    while let Some(chunk) = feed.next_chunk().unwrap() {
        sum += chunk.len() as u64;
    }
    (sum, feed.unique)
}

fn ingest_vs_lru(c: &mut Criterion) {
    let ids = zipf_ids();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("zipf10m.trace");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for id in &ids {
        writeln!(out, "{id}").unwrap();
    }
    out.into_inner().unwrap().sync_all().unwrap();
    let reqs = ids.iter().map(|&block| {
        Ok(BlockRequest {
            block,
            count: 1,
            op: Op::Read,
            time_ns: None,
            bytes: 4096,
        })
    });
    let trace = PreparedTrace::new(
        BlockTrace::from_requests(reqs, OpFilter::Read, false, "zipf".into(), 4096).unwrap(),
    );
    drop(ids);
    let lru = PolicySpec::parse("lru").unwrap();
    let capacity = trace.unique() / 10;
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    assert_eq!(one.install(|| ingest_all(&path)).1, trace.unique());

    let mut group = c.benchmark_group("zipf-10M");
    group.throughput(Throughput::Elements(REFS as u64));
    group.sample_size(10);
    group.bench_function("ingest lirs text, 1 thread", |b| {
        b.iter(|| one.install(|| ingest_all(&path)))
    });
    group.bench_function("ingest lirs text, 2 threads", |b| {
        b.iter(|| two.install(|| ingest_all(&path)))
    });
    group.bench_function("lru 10%", |b| {
        b.iter(|| run_one(&lru, &trace, capacity).unwrap())
    });
    group.finish();
}

// The macro generates an undocumented function.
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::ingest_vs_lru);
}
use group::benches;
criterion_main!(benches);
