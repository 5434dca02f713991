//! ClusterFetch's unit tests: the burst detector, the correlation store and the launch window.

use super::*;

fn cfg(queue_len: usize, threshold_ms: u64, min_burst: usize) -> ClusterFetchConfig {
    ClusterFetchConfig {
        queue_len,
        threshold_ns: threshold_ms * 1_000_000,
        min_burst,
        ..ClusterFetchConfig::default()
    }
}

const MS: u64 = 1_000_000;

#[test]
fn a_huge_queue_length_is_not_allocated_up_front() {
    // --cf-queue 4000000000 used to reserve 4e9 queue entries (~100 GB) and abort.
    let mut d = BurstDetector::new(&cfg(4_000_000_000, 10, 4));
    assert!(d.ring.capacity() <= 1024 * 2, "{}", d.ring.capacity());
    d.on_open(1);
    for i in 0..10 {
        assert!(d.observe(i * MS, 1, i, 1).is_none());
    }
    assert_eq!(d.ring.len(), 10);
}

#[test]
fn a_burst_spans_the_ios_the_queue_keeps_within_the_threshold() {
    let mut d = BurstDetector::new(&cfg(4, 10, 4));
    d.on_open(7);
    // Slow I/Os (20 ms apart): the queue never fits in 10 ms.
    for i in 0..5 {
        assert!(d.observe(i * 20 * MS, 1, i, 1).is_none());
    }
    d.on_open(9);
    // Six I/Os 1 ms apart: the queue fits once it holds four of them.
    let t0 = 200 * MS;
    for i in 0..6 {
        assert!(d.observe(t0 + i * MS, 2, 10 + 2 * i, 2).is_none());
    }
    // A gap ends the burst; it goes to file 9, opened before its first I/O.
    let b = d.observe(t0 + 100 * MS, 3, 0, 1).expect("a burst");
    assert_eq!(b.trigger, 9);
    assert_eq!(b.ios, 6);
    let expect: Vec<(u64, u64)> = (10..22).map(|i| (2, i)).collect();
    assert_eq!(b.blocks, expect);
}

#[test]
fn the_trigger_is_the_open_before_the_first_io_not_the_latest() {
    let mut d = BurstDetector::new(&cfg(3, 10, 3));
    d.on_open(1);
    d.observe(0, 5, 0, 1);
    d.on_open(2);
    d.observe(MS, 5, 1, 1);
    d.on_open(3);
    d.observe(2 * MS, 5, 2, 1);
    let b = d.finish().expect("a burst");
    assert_eq!((b.trigger, b.ios), (1, 3));
}

#[test]
fn short_bursts_and_bursts_without_an_open_are_dropped() {
    let mut d = BurstDetector::new(&cfg(3, 10, 5));
    d.on_open(1);
    for i in 0..4 {
        d.observe(i * MS, 5, i, 1);
    }
    assert!(d.finish().is_none(), "4 I/Os < minimum 5");
    let mut d = BurstDetector::new(&cfg(3, 10, 3));
    for i in 0..4 {
        d.observe(i * MS, 5, i, 1);
    }
    assert!(d.finish().is_none(), "no open before the burst");
}

#[test]
fn repeated_blocks_are_kept_once_in_first_read_order() {
    let mut d = BurstDetector::new(&cfg(2, 10, 2));
    d.on_open(1);
    d.observe(0, 5, 3, 2);
    d.observe(MS, 5, 0, 4);
    let b = d.finish().unwrap();
    assert_eq!(b.blocks, [(5, 3), (5, 4), (5, 0), (5, 1), (5, 2)]);
}

#[test]
fn pacer_spaces_requests_by_the_cap() {
    let mut p = Pacer::new(1_000_000); // 1 MB/s: 4096 bytes take 4.096 ms
    assert_eq!(p.release(0, 4096), 0);
    assert_eq!(p.release(0, 4096), 4_096_000);
    assert_eq!(p.release(0, 8192), 8_192_000);
    assert_eq!(
        p.release(100 * MS, 4096),
        100 * MS,
        "idle time is not banked"
    );
    let mut free = Pacer::new(0);
    assert_eq!(free.release(5, 1 << 30), 5);
    assert_eq!(free.release(5, 1 << 30), 5);
}

fn sample() -> PrefetchStore {
    let mut s = PrefetchStore::new();
    let blocks = [("/lib/a.so", 0), ("/lib/a.so", 1), ("/lib/b.so", 7)];
    s.learn("/bin/app", blocks, 1 << 20);
    s.learn("/etc/conf", [("/lib/a.so", 5), ("/lib/a.so", 2)], 1 << 20);
    s
}

#[test]
fn store_merges_blocks_into_extents_and_learning_adds() {
    let mut s = sample();
    assert_eq!(
        s.peek("/bin/app").unwrap(),
        [("/lib/a.so", 0, 2), ("/lib/b.so", 7, 1)]
    );
    s.learn("/bin/app", [("/lib/b.so", 8), ("/lib/a.so", 2)], 1 << 20);
    assert_eq!(
        s.peek("/bin/app").unwrap(),
        [("/lib/a.so", 0, 3), ("/lib/b.so", 7, 2)]
    );
    assert_eq!(s.blocks_of("/bin/app"), 5);
    assert_eq!(s.triggers().collect::<Vec<_>>(), ["/etc/conf", "/bin/app"]);
    s.lookup("/etc/conf");
    assert_eq!(s.triggers().collect::<Vec<_>>(), ["/bin/app", "/etc/conf"]);
    assert!(s.peek("/nothing").is_none());
}

#[test]
fn encode_decode_round_trip_and_size_is_bytes() {
    let s = sample();
    let e = s.encode();
    assert_eq!(e.len() as u64, s.bytes());
    let back = PrefetchStore::decode(&e, "x").unwrap();
    assert_eq!(back.encode(), e);
    assert_eq!(back.peek("/bin/app"), s.peek("/bin/app"));
    assert_eq!(
        back.triggers().collect::<Vec<_>>(),
        s.triggers().collect::<Vec<_>>()
    );
    let empty = PrefetchStore::new();
    assert_eq!(empty.encode().len() as u64, MIN_STORE_BYTES);
    assert!(PrefetchStore::decode(&empty.encode(), "x")
        .unwrap()
        .is_empty());
}

#[test]
fn every_truncation_and_bit_flip_is_an_error_naming_the_file() {
    let e = sample().encode();
    for len in 0..e.len() {
        let msg = PrefetchStore::decode(&e[..len], "store.cf")
            .expect_err("truncated")
            .to_string();
        assert!(msg.starts_with("store.cf: "), "{msg}");
        assert!(
            msg.contains("truncated") || msg.contains("magic"),
            "{len}: {msg}"
        );
    }
    for bit in 0..e.len() * 8 {
        let mut d = e.clone();
        d[bit / 8] ^= 1 << (bit % 8);
        let msg = PrefetchStore::decode(&d, "store.cf")
            .expect_err("flipped")
            .to_string();
        assert!(msg.starts_with("store.cf: "), "{msg}");
        let named = ["magic", "version", "checksum"];
        assert!(named.iter().any(|w| msg.contains(w)), "bit {bit}: {msg}");
    }
}

/// Re-encodes a store body with a valid checksum, to reach the structural checks.
fn sealed(mut body: Vec<u8>) -> Vec<u8> {
    let crc = crc32fast::hash(&body);
    body.extend_from_slice(&crc.to_le_bytes());
    body
}

#[test]
fn structural_errors_behind_a_valid_checksum_are_reported() {
    let e = sample().encode();
    let body = e[..e.len() - 4].to_vec();
    // Claim one more entry than there is.
    let mut more = body.clone();
    more[16] += 1;
    let msg = PrefetchStore::decode(&sealed(more), "s")
        .unwrap_err()
        .to_string();
    assert!(msg.contains("remain before the checksum"), "{msg}");
    // Trailing garbage.
    let mut tail = body.clone();
    tail.extend_from_slice(&[0, 0, 0]);
    let msg = PrefetchStore::decode(&sealed(tail), "s")
        .unwrap_err()
        .to_string();
    assert!(msg.contains("3 bytes follow"), "{msg}");
    // A huge name count must not allocate or panic.
    let mut huge = body;
    huge[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(PrefetchStore::decode(&sealed(huge), "s").is_err());
}

#[test]
fn the_limit_evicts_least_recently_used_triggers_then_truncates() {
    let mut s = PrefetchStore::new();
    let limit = 400;
    for t in 0..20u64 {
        let trigger = format!("/t{t}");
        let blocks: Vec<(String, u64)> = (0..4).map(|i| (format!("/f{t}"), i * 2)).collect();
        s.learn(
            &trigger,
            blocks.iter().map(|(f, i)| (f.as_str(), *i)),
            limit,
        );
        assert!(s.bytes() <= limit, "{} > {limit}", s.bytes());
        assert!(s.encode().len() as u64 <= limit);
    }
    // The newest triggers survive.
    let kept: Vec<&str> = s.triggers().collect();
    assert_eq!(*kept.last().unwrap(), "/t19");
    assert!(kept.len() > 1 && kept.len() < 20, "{kept:?}");
    // One trigger larger than the limit keeps its first blocks in read order.
    let mut one = PrefetchStore::new();
    let blocks: Vec<u64> = (0..100).map(|i| 1000 - 3 * i).collect();
    one.learn("/big", blocks.iter().map(|&b| ("/data", b)), 200);
    assert!(one.bytes() <= 200);
    let runs = one.peek("/big").unwrap();
    let first: Vec<u64> = runs.iter().map(|r| r.1).collect();
    let n = first.len();
    assert!(n > 3, "{runs:?}");
    let mut expect: Vec<u64> = blocks[..n].to_vec();
    expect.sort_unstable();
    assert_eq!(first, expect);
}

#[test]
fn clustering_follows_addresses_and_the_cap() {
    let blocks: Vec<(u64, u32)> = [0, 8, 16, 40, 48, 56, 64, 72]
        .iter()
        .enumerate()
        .map(|(i, &l)| (l, i as u32))
        .collect();
    let runs = cluster_by_address(&blocks, 8, 3);
    let shape: Vec<Vec<u32>> = runs
        .iter()
        .map(|r| r.iter().map(|x| x.1).collect())
        .collect();
    assert_eq!(shape, vec![vec![0, 1, 2], vec![3, 4, 5], vec![6, 7]]);
}

#[test]
fn config_checks() {
    assert!(ClusterFetchConfig::default().validate().is_ok());
    for bad in [
        ClusterFetchConfig {
            queue_len: 1,
            ..ClusterFetchConfig::default()
        },
        ClusterFetchConfig {
            threshold_ns: 0,
            ..ClusterFetchConfig::default()
        },
        ClusterFetchConfig {
            min_burst: 0,
            ..ClusterFetchConfig::default()
        },
        ClusterFetchConfig {
            store_limit_bytes: 10,
            ..ClusterFetchConfig::default()
        },
    ] {
        let e = bad.validate().unwrap_err().to_string();
        assert!(e.contains("cf_"), "{e}");
    }
}
