//! The synthetic workloads: their statistics, their determinism, and the LRU failures they are
//! built to show (the LRU-K paper's indexed database, loops one block larger than the cache).

mod common;

use belady_core::analysis::stats::{block_stats, file_stats, StatsOptions};
use belady_core::engine::file::{run_file_one, FileSimConfig, PreparedFileTrace};
use belady_core::prefetch::PrefetchKind;
use belady_core::trace::file::FileEventKind;
use belady_core::trace::merge::{merge, ScaleTo};
use belady_core::trace::{events, open_requests, BlockRequest, Format, ReadOptions, RequestStream};
use belady_core::workload::{
    self, BlockGen, FileGen, GenSpec, Generator, MixPart, OutFormat, GENERATORS,
};
use belady_core::{run_one, PolicySpec, PreparedTrace, Preset};

fn spec(kind: &str, params: &[(&str, &str)]) -> GenSpec {
    let mut s = GenSpec::new(kind).unwrap();
    for (k, v) in params {
        s.set(k, v).unwrap();
    }
    s
}

fn block_gen(kind: &str, params: &[(&str, &str)], seed: u64) -> Box<dyn BlockGen> {
    match spec(kind, params).build(seed).unwrap() {
        Generator::Block(g) => g,
        Generator::File(_) => panic!("{kind} is block-level"),
    }
}

fn file_gen(kind: &str, params: &[(&str, &str)], seed: u64) -> Box<dyn FileGen> {
    match spec(kind, params).build(seed).unwrap() {
        Generator::File(g) => g,
        Generator::Block(_) => panic!("{kind} is file-level"),
    }
}

fn blocks(kind: &str, params: &[(&str, &str)], seed: u64) -> Vec<u64> {
    block_gen(kind, params, seed).map(|r| r.block).collect()
}

fn prepared(kind: &str, params: &[(&str, &str)], seed: u64) -> PreparedTrace {
    PreparedTrace::new(workload::block_trace(block_gen(kind, params, seed), kind).unwrap())
}

fn hit_ratio(trace: &PreparedTrace, policy: &str, cache: usize) -> f64 {
    let mut spec = PolicySpec::parse(policy).unwrap();
    spec.preset = Preset::Paper;
    run_one(&spec, trace, cache).unwrap().hit_ratio
}

#[test]
fn zipf_rank_frequencies_follow_the_power_law() {
    for alpha in [0.6, 1.0] {
        let n = 200_000;
        let a = alpha.to_string();
        let refs = blocks(
            "zipf",
            &[
                ("blocks", "1000"),
                ("alpha", &a),
                ("requests", &n.to_string()),
            ],
            11,
        );
        let mut counts = vec![0u64; 1000];
        refs.iter().for_each(|&b| counts[b as usize] += 1);
        let h: f64 = (1..=1000).map(|r| (r as f64).powf(-alpha)).sum();
        // Each of the top ranks within 5 standard deviations of its expected count.
        for r in 1..=20usize {
            let expected = n as f64 * (r as f64).powf(-alpha) / h;
            let got = counts[r - 1] as f64;
            assert!(
                (got - expected).abs() < 5.0 * expected.sqrt(),
                "alpha {alpha} rank {r}: {got} vs {expected:.0}"
            );
        }
        // Least-squares slope of log frequency on log rank over ranks 1..=100 is -alpha.
        let pts: Vec<(f64, f64)> = (1..=100)
            .map(|r| ((r as f64).ln(), (counts[r - 1] as f64).ln()))
            .collect();
        let mx = pts.iter().map(|p| p.0).sum::<f64>() / 100.0;
        let my = pts.iter().map(|p| p.1).sum::<f64>() / 100.0;
        let slope = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>()
            / pts.iter().map(|p| (p.0 - mx).powi(2)).sum::<f64>();
        assert!((slope + alpha).abs() < 0.05, "alpha {alpha}: slope {slope}");
    }
}

#[test]
fn scans_repeat_with_the_region_period_or_never() {
    let cyclic = blocks("scan", &[("region", "37"), ("requests", "1000")], 1);
    assert!((0..cyclic.len() - 37).all(|i| cyclic[i] == cyclic[i + 37]));
    let mut first: Vec<u64> = cyclic[..37].to_vec();
    first.sort_unstable();
    first.dedup();
    assert_eq!(first.len(), 37, "one period holds every region block once");

    let once = blocks(
        "scan",
        &[("region", "37"), ("mode", "use-once"), ("requests", "1000")],
        1,
    );
    let mut sorted = once.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), once.len(), "a use-once scan never repeats");

    let hot = blocks(
        "scan",
        &[
            ("region", "50"),
            ("hot", "20"),
            ("hot-share", "0.3"),
            ("requests", "20000"),
        ],
        3,
    );
    let scan: Vec<u64> = hot.iter().copied().filter(|&b| b >= 20).collect();
    assert!((0..scan.len() - 50).all(|i| scan[i] == scan[i + 50]));
    assert_eq!(scan[0], 20);
    let share = 1.0 - scan.len() as f64 / hot.len() as f64;
    assert!((share - 0.3).abs() < 0.02, "hot share {share}");
}

#[test]
fn indexed_db_alternates_leaf_and_record_pages_with_the_papers_probabilities() {
    let n = 400_000;
    let refs = blocks("indexed-db", &[("requests", &n.to_string())], 5);
    assert!(refs
        .chunks(2)
        .all(|p| p[0] < 100 && p[1] >= 100 && p[1] < 10_100));
    // A clustered index: the record page lies in its leaf's key range.
    assert!(refs.chunks(2).all(|p| p[0] == (p[1] - 100) / 100));
    let leaves = refs.iter().filter(|&&b| b < 100).count();
    assert_eq!(leaves * 2, n);
    let mut per_leaf = [0u64; 100];
    refs.iter()
        .filter(|&&b| b < 100)
        .for_each(|&b| per_leaf[b as usize] += 1);
    // Each leaf is referenced with probability 0.005 (2000 of 400,000; sd about 45).
    assert!(
        per_leaf.iter().all(|&c| (1750..2250).contains(&c)),
        "{per_leaf:?}"
    );
    // Each record page with probability 0.00005: 20 on average.
    let mut per_record = vec![0u64; 10_000];
    refs.iter()
        .filter(|&&b| b >= 100)
        .for_each(|&b| per_record[b as usize - 100] += 1);
    let mean = per_record.iter().sum::<u64>() as f64 / 10_000.0;
    assert!((mean - 20.0).abs() < 1e-9);
    let root = blocks("indexed-db", &[("requests", "9"), ("root", "true")], 5);
    assert_eq!(
        root.iter().step_by(3).copied().collect::<Vec<_>>(),
        vec![10_100; 3]
    );
}

#[test]
fn indexed_db_takes_the_page_probabilities_as_parameters() {
    let n = 400_000;
    let requests = n.to_string();
    let share = |refs: &[u64]| refs.iter().filter(|&&b| b < 100).count() as f64 / n as f64;
    // Leaves at 0.008 each: 80% of references go to the index, every record page gets 0.00002.
    let index_heavy = blocks(
        "indexed-db",
        &[("requests", &requests), ("leaf-prob", "0.008")],
        5,
    );
    assert!(
        (share(&index_heavy) - 0.8).abs() < 0.005,
        "{}",
        share(&index_heavy)
    );
    // Giving the record pages' probability instead leaves the same share to the leaves.
    let by_records = blocks(
        "indexed-db",
        &[("requests", &requests), ("record-prob", "0.00002")],
        5,
    );
    assert!((share(&by_records) - 0.8).abs() < 0.005);
    // Fewer index references than record ones: every leaf now 0.002.
    let record_heavy = blocks(
        "indexed-db",
        &[("requests", &requests), ("leaf-prob", "0.002")],
        5,
    );
    assert!((share(&record_heavy) - 0.2).abs() < 0.005);
    let mut per_leaf = [0u64; 100];
    record_heavy
        .iter()
        .filter(|&&b| b < 100)
        .for_each(|&b| per_leaf[b as usize] += 1);
    // 800 expected per leaf (sd about 28).
    assert!(
        per_leaf.iter().all(|&c| (650..950).contains(&c)),
        "{per_leaf:?}"
    );
    // A record page referenced right after a leaf is that leaf's customer's.
    for refs in [&index_heavy, &record_heavy] {
        let pairs = refs
            .windows(2)
            .filter(|p| p[0] < 100 && p[1] >= 100)
            .collect::<Vec<_>>();
        assert!(pairs.len() > n / 10);
        assert!(pairs.iter().all(|p| p[0] == (p[1] - 100) / 100));
    }
    // Explicit defaults give the paper's trace exactly.
    let paper = [("requests", "5000"), ("leaf-prob", "0.005")];
    assert_eq!(
        blocks("indexed-db", &paper, 5),
        blocks("indexed-db", &[("requests", "5000")], 5)
    );
    let both = [("leaf-prob", "0.005"), ("record-prob", "0.00005")];
    assert_eq!(
        blocks("indexed-db", &[&paper[..1], &both[..]].concat(), 5),
        blocks("indexed-db", &[("requests", "5000")], 5)
    );
    for (params, needle) in [
        (
            &[("leaf-prob", "0.006"), ("record-prob", "0.00005")][..],
            "must be 1",
        ),
        (&[("leaf-prob", "0.02")][..], "must be between 0 and 0.01"),
        (&[("record-prob", "x")][..], "expected a number"),
    ] {
        let e = spec("indexed-db", params)
            .build(1)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("indexed-db") && e.contains(needle), "{e}");
    }
}

#[test]
fn indexed_db_with_101_buffers_lru_keeps_half_the_leaves_lru2_nearly_all() {
    let trace = prepared("indexed-db", &[("requests", "200000")], 1);
    // Half the references go to leaves; record pages hit at most 101/10000 of their references,
    // so the leaf hit ratio, the share of leaves resident, lies in [2h - 0.0101, 2h].
    let leaf_share = |h: f64| 2.0 * h;
    let lru = leaf_share(hit_ratio(&trace, "lru", 101));
    let lru2 = leaf_share(hit_ratio(&trace, "lru-k", 101));
    assert!(
        (0.35..0.6).contains(&lru),
        "LRU keeps {lru:.3} of the leaves"
    );
    assert!(lru2 > 0.9, "LRU-2 keeps {lru2:.3} of the leaves");
    let opt = leaf_share(hit_ratio(&trace, "opt", 101));
    assert!(opt >= lru2);
}

#[test]
fn loop_one_block_larger_than_the_cache_defeats_lru_only() {
    let trace = prepared("loop", &[("blocks", "1001"), ("requests", "20000")], 1);
    assert_eq!(hit_ratio(&trace, "lru", 1000), 0.0);
    for p in ["opt", "lirs", "clock-pro"] {
        let h = hit_ratio(&trace, p, 1000);
        assert!(h > 0.5, "{p}: {h}");
    }
}

#[test]
fn temporal_locality_favours_lru_over_uniform_references() {
    let temporal = prepared("temporal", &[("blocks", "5000")], 2);
    let uniform = prepared("uniform", &[("blocks", "5000")], 2);
    let (t, u) = (
        hit_ratio(&temporal, "lru", 250),
        hit_ratio(&uniform, "lru", 250),
    );
    // Uniform: about 250/5000 = 5 %; temporal: mostly re-references within 250 distinct blocks.
    assert!((u - 0.05).abs() < 0.01, "uniform {u}");
    assert!(t > 0.7, "temporal {t}");
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let run = |kind: &str, seed: u64, to: OutFormat, name: &str| -> Vec<u8> {
        let path = dir.path().join(name);
        let mut s = spec(kind, &[("requests", "70000")]);
        if kind == "scan" {
            // Without a hot set a scan draws nothing at random.
            s.set("hot", "100").unwrap();
        }
        workload::write(s.build(seed).unwrap(), &path, to, kind, 4096).unwrap();
        std::fs::read(path).unwrap()
    };
    for g in GENERATORS {
        let to = match g.level {
            workload::Level::Block => OutFormat::Native,
            workload::Level::File => OutFormat::Events,
        };
        let a = run(g.name, 7, to, "a");
        assert!(
            a == run(g.name, 7, to, "b"),
            "{} differs for one seed",
            g.name
        );
        if g.name != "loop" {
            assert!(a != run(g.name, 8, to, "c"), "{} ignores its seed", g.name);
        }
    }
    let a = run("zipf", 7, OutFormat::Lirs, "l1");
    assert!(a == run("zipf", 7, OutFormat::Lirs, "l2"));
}

#[test]
fn native_output_reads_back_as_generated() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.bldy");
    let gen = spec("temporal", &[("requests", "70000")]).build(4).unwrap();
    let w = workload::write(gen, &path, OutFormat::Native, "t", 4096).unwrap();
    assert_eq!(w.records, 70_000);
    let back: Vec<u64> = open_requests(&path, &Format::Native, &ReadOptions::default())
        .unwrap()
        .map(|r| r.unwrap().block)
        .collect();
    assert_eq!(back, blocks("temporal", &[("requests", "70000")], 4));
    // Loaded whole, the ids are dense in order of first reference, as from any other format.
    let loaded = belady_core::trace::native::load(&path).unwrap();
    let want =
        workload::block_trace(block_gen("temporal", &[("requests", "70000")], 4), "t").unwrap();
    assert_eq!((loaded.refs, loaded.originals), (want.refs, want.originals));
}

#[test]
fn native_output_holds_no_table_growing_with_requests() {
    // `gen` streams billions of requests: what the writer holds must not grow with them, even
    // when every reference is a new block (use-once scans) or the blocks are many (uniform).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.bldy");
    let cases: [(&str, &[(&str, &str)]); 3] = [
        ("scan", &[("mode", "use-once")]),
        ("scan", &[("mode", "use-once"), ("hot", "100")]),
        ("uniform", &[("blocks", "100000000")]),
    ];
    for (kind, params) in cases {
        let held = |n: u64| {
            let requests = n.to_string();
            let mut p = params.to_vec();
            p.push(("requests", &requests));
            let gen = spec(kind, &p).build(3).unwrap();
            let w = workload::write(gen, &path, OutFormat::Native, kind, 4096).unwrap();
            assert_eq!(w.records, n);
            w.table_bytes
        };
        let (small, large) = (held(50_000), held(500_000));
        assert!(
            large <= small && large < 1 << 16,
            "{kind} {params:?}: {small} bytes after 50k requests, {large} after 500k"
        );
        let s = block_stats(
            open_requests(&path, &Format::Native, &ReadOptions::default()).unwrap(),
            StatsOptions::default(),
        )
        .unwrap();
        assert_eq!(s.references, 500_000, "{kind} {params:?}");
        if params.len() == 1 && kind == "scan" {
            assert_eq!(
                s.unique_blocks, 500_000,
                "a use-once scan never repeats a block"
            );
        }
    }
}

#[test]
fn block_mix_interleaves_parts_by_time_with_ids_apart() {
    let parts = [
        MixPart::parse("loop:blocks=10,requests=100,rate=1000").unwrap(),
        MixPart::parse("zipf:blocks=50,requests=30,rate=100,start=0.05").unwrap(),
    ];
    let Generator::Block(gen) = workload::build_mix(&parts, 9).unwrap() else {
        panic!("block mix")
    };
    let reqs: Vec<BlockRequest> = gen.collect();
    assert_eq!(reqs.len(), 130);
    let times: Vec<u64> = reqs.iter().map(|r| r.time_ns.unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
    let looped: Vec<u64> = reqs.iter().map(|r| r.block).filter(|&b| b < 10).collect();
    assert_eq!(looped, (0..100).map(|i| i % 10).collect::<Vec<_>>());
    let zipf: Vec<&BlockRequest> = reqs.iter().filter(|r| r.block >= 10).collect();
    assert_eq!(zipf.len(), 30);
    assert!(zipf.iter().all(|r| r.block < 60));
    // The zipf part starts at 50 ms, one request per 10 ms.
    assert_eq!(zipf[0].time_ns, Some(50_000_000));
    assert_eq!(zipf[1].time_ns, Some(60_000_000));
    assert!(MixPart::parse("loop:rate=-1").is_err());
    let mixed = [
        MixPart::parse("loop").unwrap(),
        MixPart::parse("random-files").unwrap(),
    ];
    assert!(workload::build_mix(&mixed, 1).is_err());
}

#[test]
fn file_mix_runs_parts_as_processes_on_one_clock() {
    let parts = [
        MixPart::parse("sequential-files:files=5,requests=40,think-us=100").unwrap(),
        MixPart::parse("random-files:files=2,file-size=1MiB,requests=40,think-us=250").unwrap(),
    ];
    let Generator::File(gen) = workload::build_mix(&parts, 2).unwrap() else {
        panic!("file mix")
    };
    let trace = workload::file_trace(gen, "mix");
    let reads = |pid: u32| {
        trace
            .events
            .iter()
            .filter(|e| e.pid == pid && matches!(e.kind, FileEventKind::Read { .. }))
            .count()
    };
    assert_eq!((reads(1), reads(2)), (40, 40));
    // Files 1..=5 belong to the first process, 6..=7 to the second.
    assert!(trace
        .events
        .iter()
        .filter(|e| e.kind != FileEventKind::Exit)
        .all(|e| (e.pid == 1) == (e.file <= 5)));
    // Total think time is the later process's clock: 40 reads of 250 µs.
    let total: u64 = trace.events.iter().map(|e| e.think_ns).sum();
    assert_eq!(total, 40 * 250_000);
}

#[test]
fn file_workloads_have_the_studys_sequentiality_and_read_ahead_helps_only_the_sequential() {
    let seq = workload::file_trace(
        file_gen("sequential-files", &[("requests", "3000")], 1),
        "s",
    );
    let rnd = workload::file_trace(
        file_gen(
            "random-files",
            &[("requests", "3000"), ("file-size", "64MiB")],
            1,
        ),
        "r",
    );
    let (s, r) = (
        file_stats(&seq, StatsOptions::default()),
        file_stats(&rnd, StatsOptions::default()),
    );
    // cscope/glimpse-like: most references continue a file; tpc-h-like: about `seq` = 3 %.
    assert!(s.sequential_percent > 70.0, "{}", s.sequential_percent);
    assert!(
        (1.0..6.0).contains(&r.sequential_percent),
        "{}",
        r.sequential_percent
    );
    assert_eq!(s.requests, 3000);
    let sizes = s.file_sizes.unwrap();
    // Log-normal sizes with a 16 KiB median.
    assert!(
        (8_000..32_000).contains(&sizes.median_bytes),
        "{}",
        sizes.median_bytes
    );
    assert_eq!(r.unique_files, Some(4));
    // The events text round-trips.
    let mut text = Vec::new();
    events::write(&seq, None, &mut text).unwrap();
    let back = events::read(std::io::Cursor::new(text), "s").unwrap();
    assert_eq!(back.events, seq.events);
    // Read-ahead cuts the sequential workload's disk requests, not the random one's.
    let requests = |t: &belady_core::trace::file::FileTrace, ra: &str| {
        let cfg = FileSimConfig {
            prefetch: PrefetchKind::parse(ra).unwrap(),
            ..FileSimConfig::default()
        };
        let prepared = PreparedFileTrace::new(t.clone(), 4096).unwrap();
        let spec = PolicySpec::parse("lru").unwrap();
        run_file_one(&spec, &prepared, 200, &cfg)
            .unwrap()
            .io
            .unwrap()
            .disk_requests
    };
    assert!(requests(&seq, "linux24") * 2 < requests(&seq, "none"));
    assert!(requests(&rnd, "linux24") >= requests(&rnd, "none") * 9 / 10);
}

fn stream_of(refs: Vec<u64>) -> RequestStream {
    Box::new(refs.into_iter().map(|block| {
        Ok(BlockRequest {
            block,
            count: 1,
            op: belady_core::trace::Op::Read,
            time_ns: None,
            bytes: 4096,
        })
    }))
}

#[test]
fn merge_preserves_every_request_of_both_traces() {
    let a = blocks("zipf", &[("blocks", "300"), ("requests", "5000")], 1);
    let b = blocks("scan", &[("region", "80"), ("requests", "1300")], 1);
    let max_a = *a.iter().max().unwrap();
    for scale in [ScaleTo::A, ScaleTo::B, ScaleTo::None] {
        let mut out = Vec::new();
        let s = merge(
            &|| Ok(stream_of(a.clone())),
            &|| Ok(stream_of(b.clone())),
            scale,
            None,
            |r| {
                out.push(r.block);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(s.offset, max_a + 1);
        assert_eq!(out.len(), a.len() + b.len());
        let from_a: Vec<u64> = out.iter().copied().filter(|&x| x <= max_a).collect();
        let from_b: Vec<u64> = out
            .iter()
            .filter(|&&x| x > max_a)
            .map(|&x| x - s.offset)
            .collect();
        assert_eq!(from_a, a, "{scale:?}");
        assert_eq!(from_b, b, "{scale:?}");
    }
}

#[test]
fn stats_on_the_lirs_traces_match_the_traces_readme() {
    let dir = common::traces();
    let Ok(readme) = std::fs::read_to_string(dir.join("README.md")) else {
        eprintln!("skipping: {} not found (set BELADY_TRACES)", dir.display());
        return;
    };
    let number = |cell: &str| -> u64 {
        let digits: String = cell
            .split('(')
            .next()
            .unwrap()
            .chars()
            .filter(|c| c.is_ascii_digit())
            .collect();
        digits.parse().unwrap()
    };
    let mut checked = 0;
    for line in readme.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 5 || !cells[1].ends_with(".trace.gz") {
            continue;
        }
        let path = dir.join("lirs").join(cells[1]);
        let stream = open_requests(&path, &Format::Lirs, &ReadOptions::default()).unwrap();
        let s = block_stats(stream, StatsOptions::default()).unwrap();
        assert_eq!(s.requests, number(cells[2]), "{} requests", cells[1]);
        assert_eq!(s.unique_blocks, number(cells[3]), "{} unique", cells[1]);
        // The exact reuse histogram accounts for every non-first reference.
        let reused: u64 = s.reuse.histogram.iter().map(|b| b.count).sum();
        assert_eq!(reused + s.reuse.first_references, s.references);
        checked += 1;
    }
    assert_eq!(checked, 10, "the README lists ten LIRS traces");
}

#[test]
fn reuse_histogram_predicts_lru_hits() {
    // LRU with c blocks hits exactly the references whose reuse distance is below c.
    let trace = prepared("temporal", &[("blocks", "3000"), ("requests", "30000")], 6);
    let s = block_stats(
        trace
            .trace
            .refs
            .iter()
            .map(|&r| {
                Ok(BlockRequest {
                    block: trace.trace.originals[r as usize],
                    count: 1,
                    op: belady_core::trace::Op::Read,
                    time_ns: None,
                    bytes: 4096,
                })
            })
            .collect::<Vec<_>>()
            .into_iter(),
        StatsOptions::default(),
    )
    .unwrap();
    for c in [64u64, 256, 1024] {
        let below: u64 = s
            .reuse
            .histogram
            .iter()
            .filter(|b| b.hi < c)
            .map(|b| b.count)
            .sum();
        let hits = (hit_ratio(&trace, "lru", c as usize) * s.references as f64).round() as u64;
        assert_eq!(hits, below, "cache {c}");
    }
}
