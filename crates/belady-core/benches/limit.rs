//! The limit loop (issue #29): the least work a single-size LRU, FIFO or CLOCK simulation over
//! dense ids can do, with no policy trait, frame table, counters beyond hits, or ingest. It is
//! the bound `bench/compare_libcachesim.py` measures each belady policy against.
//!
//! `cargo bench -p belady-core --bench limit`. The ids come from `BELADY_LIMIT_TRACE` (a file of
//! little-endian u32 ids below `BELADY_LIMIT_IDS`, as the comparison script writes its Zipf
//! trace) or, without it, a fixed-seed Zipf(0.9) draw of 10 M references over 1 M ids. The cache
//! holds `BELADY_LIMIT_CACHE` blocks (default: 10% of the distinct ids). Each loop hints the
//! block 8 references ahead, as belady's feed loop does; the hits are printed so the loops can
//! be checked against `belady sim`.

use criterion::{criterion_main, Criterion, Throughput};
use std::hint::black_box;

const NIL: u32 = u32::MAX;
const AHEAD: usize = 8;

#[inline]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint that never faults.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// LRU: a doubly linked list over ids, the head most recent; `prev`/`next` side by side.
fn lru(ids: &[u32], universe: usize, capacity: usize) -> u64 {
    let mut links = vec![[NIL, NIL]; universe];
    let mut resident = vec![false; universe];
    let (mut head, mut tail, mut len, mut hits) = (NIL, NIL, 0usize, 0u64);
    for (i, &b) in ids.iter().enumerate() {
        if let Some(&a) = ids.get(i + AHEAD) {
            prefetch(resident.as_ptr().wrapping_add(a as usize));
            prefetch(links.as_ptr().wrapping_add(a as usize));
        }
        let bi = b as usize;
        if resident[bi] {
            hits += 1;
            if head == b {
                continue;
            }
            let [p, n] = links[bi];
            links[p as usize][1] = n;
            if n != NIL {
                links[n as usize][0] = p;
            } else {
                tail = p;
            }
        } else {
            if len == capacity {
                let v = tail;
                tail = links[v as usize][0];
                if tail == NIL {
                    head = NIL;
                } else {
                    links[tail as usize][1] = NIL;
                }
                resident[v as usize] = false;
            } else {
                len += 1;
            }
            resident[bi] = true;
            if head == NIL {
                links[bi] = [NIL, NIL];
                head = b;
                tail = b;
                continue;
            }
        }
        links[bi] = [NIL, head];
        links[head as usize][0] = b;
        head = b;
    }
    hits
}

/// FIFO: a ring of ids and a resident bit per id.
fn fifo(ids: &[u32], universe: usize, capacity: usize) -> u64 {
    let mut resident = vec![false; universe];
    let mut ring = vec![0u32; capacity];
    let (mut hand, mut len, mut hits) = (0usize, 0usize, 0u64);
    for (i, &b) in ids.iter().enumerate() {
        if let Some(&a) = ids.get(i + AHEAD) {
            prefetch(resident.as_ptr().wrapping_add(a as usize));
        }
        if resident[b as usize] {
            hits += 1;
            continue;
        }
        if len == capacity {
            resident[ring[hand] as usize] = false;
        } else {
            len += 1;
        }
        ring[hand] = b;
        resident[b as usize] = true;
        hand = (hand + 1) % capacity;
    }
    hits
}

/// CLOCK: a ring of ids, a state byte per id (1 resident, 2 referenced).
fn clock(ids: &[u32], universe: usize, capacity: usize) -> u64 {
    let mut state = vec![0u8; universe];
    let mut ring = vec![0u32; capacity];
    let (mut hand, mut len, mut hits) = (0usize, 0usize, 0u64);
    for (i, &b) in ids.iter().enumerate() {
        if let Some(&a) = ids.get(i + AHEAD) {
            prefetch(state.as_ptr().wrapping_add(a as usize));
        }
        if state[b as usize] != 0 {
            hits += 1;
            state[b as usize] = 3;
            continue;
        }
        if len == capacity {
            while state[ring[hand] as usize] == 3 {
                state[ring[hand] as usize] = 1;
                hand = (hand + 1) % capacity;
            }
            state[ring[hand] as usize] = 0;
        } else {
            len += 1;
        }
        ring[hand] = b;
        state[b as usize] = 1;
        hand = (hand + 1) % capacity;
    }
    hits
}

/// Zipf(0.9) ids by inverse CDF over 1 M ranks, from a fixed-seed xorshift generator.
fn zipf_ids(refs: usize, universe: usize) -> Vec<u32> {
    let mut cdf = Vec::with_capacity(universe);
    let mut sum = 0.0;
    for k in 1..=universe {
        sum += 1.0 / (k as f64).powf(0.9);
        cdf.push(sum);
    }
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..refs)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let u = (x >> 11) as f64 / (1u64 << 53) as f64 * sum;
            cdf.partition_point(|&c| c < u) as u32
        })
        .collect()
}

fn ids() -> Vec<u32> {
    match std::env::var_os("BELADY_LIMIT_TRACE") {
        Some(path) => {
            let bytes = std::fs::read(&path)
                .unwrap_or_else(|e| panic!("BELADY_LIMIT_TRACE {}: {e}", path.to_string_lossy()));
            bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        }
        None => zipf_ids(10_000_000, 1_000_000),
    }
}

/// A limit loop: ids, universe, cache blocks -> hits.
type Loop = fn(&[u32], usize, usize) -> u64;

fn limit(c: &mut Criterion) {
    let ids = ids();
    let universe = ids.iter().max().map_or(1, |&m| m as usize + 1);
    let mut seen = vec![false; universe];
    let unique = ids
        .iter()
        .filter(|&&b| !std::mem::replace(&mut seen[b as usize], true))
        .count();
    let capacity = std::env::var("BELADY_LIMIT_CACHE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(unique / 10)
        .max(1);
    let mut group = c.benchmark_group("limit");
    group.throughput(Throughput::Elements(ids.len() as u64));
    group.sample_size(10);
    let loops: [(&str, Loop); 3] = [("lru", lru), ("fifo", fifo), ("clock", clock)];
    for (name, run) in loops {
        println!(
            "limit {name}: {} references, {unique} distinct, cache {capacity}: {} hits",
            ids.len(),
            run(&ids, universe, capacity)
        );
        group.bench_function(name, |b| {
            b.iter(|| run(black_box(&ids), universe, capacity))
        });
    }
    group.finish();
}

// The macro generates an undocumented function.
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::limit);
}
use group::benches;
criterion_main!(benches);
