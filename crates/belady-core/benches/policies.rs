//! Requests per second of each policy on a synthetic Zipf trace (criterion).

use belady_core::trace::{BlockRequest, Op, OpFilter};
use belady_core::{run_one, BlockTrace, PolicySpec, PreparedTrace, POLICIES};
use criterion::{criterion_main, Criterion, Throughput};

/// Zipf(alpha) block ids by inverse CDF over a table, from a fixed-seed xorshift generator.
fn zipf_trace(n: usize, objects: usize, alpha: f64) -> BlockTrace {
    let mut cdf = Vec::with_capacity(objects);
    let mut sum = 0.0;
    for k in 1..=objects {
        sum += 1.0 / (k as f64).powf(alpha);
        cdf.push(sum);
    }
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let reqs = (0..n).map(move |_| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let u = (state >> 11) as f64 / (1u64 << 53) as f64 * sum;
        let block = cdf.partition_point(|&c| c < u) as u64;
        Ok(BlockRequest {
            block,
            count: 1,
            op: Op::Read,
            time_ns: None,
            bytes: 4096,
        })
    });
    BlockTrace::from_requests(reqs, OpFilter::Read, false, "zipf".into(), 4096).unwrap()
}

fn policies(c: &mut Criterion) {
    let trace = PreparedTrace::new(zipf_trace(1_000_000, 100_000, 1.0));
    let mut group = c.benchmark_group("zipf-1M");
    group.throughput(Throughput::Elements(trace.trace.refs.len() as u64));
    group.sample_size(10);
    for info in POLICIES {
        let spec = PolicySpec::parse(info.name).unwrap();
        let capacity = trace.unique() / 10;
        group.bench_function(info.name, |b| {
            b.iter(|| run_one(&spec, &trace, capacity).unwrap())
        });
    }
    group.finish();
}

// The macro generates an undocumented function.
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::policies);
}
use group::benches;
criterion_main!(benches);
