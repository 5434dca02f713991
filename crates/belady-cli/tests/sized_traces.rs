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

/// `belady` with `args`, which must succeed; its standard error.
fn stderr_of(args: &[&str]) -> String {
    let out = belady(args);
    ok(&out);
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn convert_keeps_sizes_and_times_through_native_and_lcs() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| path_in(dir.path(), n);
    // No size-0 records: belady writes only the records it keeps, so the bytes can match.
    let recs: Vec<Record> = records(20_000, 3000)
        .into_iter()
        .filter(|r| r.size > 0)
        .collect();
    let original = oracle_general(&recs);
    std::fs::write(p("a.oracleGeneral"), &original).unwrap();
    // oracleGeneral -> native -> oracleGeneral gives the same bytes: sizes, times (seconds)
    // and next-access times all survive.
    ok(&belady(&[
        "convert",
        &p("a.oracleGeneral"),
        "-o",
        &p("a.bldy"),
    ]));
    ok(&belady(&[
        "convert",
        &p("a.bldy"),
        "--to",
        "oracle-general",
        "-o",
        &p("b.oracleGeneral"),
    ]));
    assert!(std::fs::read(p("b.oracleGeneral")).unwrap() == original);
    // The native file streams the same statistics (sizes, footprint) as the original.
    let (a, n) = (stats(&p("a.oracleGeneral")), stats(&p("a.bldy")));
    for key in [
        "requests",
        "bytes",
        "footprint_bytes",
        "object_sizes",
        "reuse",
    ] {
        assert_eq!(a[key], n[key], "{key}");
    }
    // oracleGeneral -> lcs (version 2) -> oracleGeneral: the same bytes again, and the lcs
    // header counts what the records hold.
    ok(&belady(&[
        "convert",
        &p("a.oracleGeneral"),
        "--to",
        "lcs",
        "-o",
        &p("a.lcs"),
    ]));
    let lcs = std::fs::read(p("a.lcs")).unwrap();
    let word = |k: usize| u64::from_le_bytes(lcs[16 + 8 * k..24 + 8 * k].try_into().unwrap());
    assert_eq!(u64::from_le_bytes(lcs[8..16].try_into().unwrap()), 2);
    assert_eq!(word(1), recs.len() as u64);
    assert_eq!(word(3), a["bytes"].as_u64().unwrap());
    assert_eq!(word(4), a["footprint_bytes"].as_u64().unwrap());
    ok(&belady(&[
        "convert",
        &p("a.lcs"),
        "--to",
        "oracle-general",
        "-o",
        &p("c.oracleGeneral"),
    ]));
    assert!(std::fs::read(p("c.oracleGeneral")).unwrap() == original);
    // A block format holds no sizes: the conversion says what it drops, in one line.
    let err = stderr_of(&[
        "convert",
        &p("a.oracleGeneral"),
        "--to",
        "lirs",
        "-o",
        &p("a.trace"),
    ]);
    let bytes = a["bytes"].as_u64().unwrap();
    assert!(
        err.contains(&format!(
            "note: lirs holds no object sizes: each object becomes one block id and its size is dropped ({bytes} bytes over {} requests)",
            recs.len()
        )),
        "{err}"
    );
    let ids: Vec<u64> = std::fs::read_to_string(p("a.trace"))
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(ids, recs.iter().map(|r| r.id).collect::<Vec<_>>());
}

#[test]
fn convert_to_libcachesim_formats_keeps_block_traces_counted_in_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| path_in(dir.path(), n);
    // An untimed block trace: unit-size objects, and each record's time is its index.
    let lirs = write(dir.path(), "t.trace", "5\n9\n5\n");
    let err = stderr_of(&["convert", &lirs, "--to", "oracle-general", "-o", &p("t.og")]);
    assert!(err.contains("each record's time is its index"), "{err}");
    let og = std::fs::read(p("t.og")).unwrap();
    let sizes: Vec<u32> = og
        .chunks_exact(24)
        .map(|r| u32::from_le_bytes(r[12..16].try_into().unwrap()))
        .collect();
    assert_eq!(sizes, [1, 1, 1]);
    let times: Vec<u32> = og
        .chunks_exact(24)
        .map(|r| u32::from_le_bytes(r[0..4].try_into().unwrap()))
        .collect();
    assert_eq!(times, [0, 1, 2]);
    // A timed trace with writes: oracleGeneral refuses the writes in one line; lcs keeps
    // them, and reads back with the same directions.
    let csv = write(
        dir.path(),
        "t.csv",
        "block,op,time_ns\n1,R,1000000000\n2,W,3000000000\n1,R,7000000000\n",
    );
    let fmt = [
        "-f",
        "csv",
        "--header",
        "--columns",
        "block=0,op=1,time=2:ns",
    ];
    let out = belady(
        &[
            &["convert", &csv],
            &fmt[..],
            &["--to", "oracle-general", "-o", &p("w.og")],
        ]
        .concat(),
    );
    assert_error(
        &out,
        "oracle-general holds reads only and this trace has writes",
    );
    assert!(!std::path::Path::new(&p("w.og")).exists());
    ok(&belady(
        &[
            &["convert", &csv],
            &fmt[..],
            &["--to", "lcs", "-o", &p("w.lcs")],
        ]
        .concat(),
    ));
    let s = stats(&p("w.lcs"));
    assert_eq!(
        (s["read_requests"].as_u64(), s["write_requests"].as_u64()),
        (Some(2), Some(1))
    );
    let lcs = std::fs::read(p("w.lcs")).unwrap();
    let times: Vec<u32> = lcs[8192..]
        .chunks_exact(28)
        .map(|r| u32::from_le_bytes(r[0..4].try_into().unwrap()))
        .collect();
    assert_eq!(times, [1, 3, 7]);
}

/// The (id, size) of each record of an oracleGeneral file.
fn og_records(bytes: &[u8]) -> Vec<(u64, u32)> {
    bytes
        .chunks_exact(24)
        .map(|r| {
            (
                u64::from_le_bytes(r[4..12].try_into().unwrap()),
                u32::from_le_bytes(r[12..16].try_into().unwrap()),
            )
        })
        .collect()
}

/// `belady gen zipf` of 40,000 requests over 3,000 objects with heavy-tailed (Pareto) sizes.
fn gen_pareto_zipf(seed: &str, to: &str, out: &str) -> std::process::Output {
    belady(&[
        "gen",
        "zipf",
        "--alpha",
        "0.9",
        "--blocks",
        "3000",
        "--requests",
        "40000",
        "--seed",
        seed,
        "--sizes",
        "pareto:512,1.2,1MiB",
        "--to",
        to,
        "-o",
        out,
    ])
}

#[test]
fn gen_writes_zipf_objects_with_heavy_tailed_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| path_in(dir.path(), n);
    let gen = |seed: &str, to: &str, out: &str| gen_pareto_zipf(seed, to, &p(out));
    ok(&gen("3", "oracle-general", "a.oracleGeneral"));
    ok(&gen("3", "oracle-general", "b.oracleGeneral"));
    ok(&gen("4", "oracle-general", "c.oracleGeneral"));
    let read = |n: &str| std::fs::read(p(n)).unwrap();
    assert!(read("a.oracleGeneral") == read("b.oracleGeneral"));
    assert!(read("a.oracleGeneral") != read("c.oracleGeneral"));
    let recs = og_records(&read("a.oracleGeneral"));
    assert_eq!(recs.len(), 40_000);
    // One size per object, within the spec's bounds, heavy-tailed: the largest object is
    // many times the median.
    let mut size_of = HashMap::new();
    for &(id, size) in &recs {
        assert_eq!(*size_of.entry(id).or_insert(size), size, "object {id}");
        assert!((512..=1 << 20).contains(&size), "{size}");
    }
    let mut sizes: Vec<u32> = size_of.values().copied().collect();
    sizes.sort_unstable();
    assert!(
        sizes[sizes.len() - 1] > 20 * sizes[sizes.len() / 2],
        "{sizes:?}"
    );
    let s = stats(&p("a.oracleGeneral"));
    let bytes: u64 = recs.iter().map(|r| r.1 as u64).sum();
    assert_eq!(s["bytes"], bytes);
    assert_eq!(
        s["footprint_bytes"],
        size_of.values().map(|&z| z as u64).sum::<u64>()
    );
    // The native form holds the same objects: same statistics, and it converts back to the
    // same oracleGeneral bytes.
    ok(&gen("3", "native", "a.bldy"));
    let n = stats(&p("a.bldy"));
    for key in ["requests", "bytes", "footprint_bytes", "object_sizes"] {
        assert_eq!(s[key], n[key], "{key}");
    }
    ok(&belady(&[
        "convert",
        &p("a.bldy"),
        "--to",
        "oracle-general",
        "-o",
        &p("n.oracleGeneral"),
    ]));
    assert!(read("n.oracleGeneral") == read("a.oracleGeneral"));
    // A format without sizes, or a bad spec, is refused in one line.
    assert_error(
        &gen("3", "lirs", "a.trace"),
        "invalid --sizes 'pareto:512,1.2,1MiB': only native and oracle-general keep object sizes",
    );
    let bad = belady(&["gen", "zipf", "--sizes", "pareto:512", "-o", &p("x.bldy")]);
    assert_error(&bad, "invalid --sizes 'pareto:512': expected fixed:N");
}

#[test]
fn merge_keeps_object_sizes_when_both_traces_have_them() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| path_in(dir.path(), n);
    for (seed, out) in [("1", "a.oracleGeneral"), ("2", "b.oracleGeneral")] {
        ok(&belady(&[
            "gen",
            "zipf",
            "--blocks",
            "500",
            "--requests",
            "3000",
            "--sizes",
            "uniform:100-9000",
            "--seed",
            seed,
            "--to",
            "oracle-general",
            "-o",
            &p(out),
        ]));
    }
    ok(&belady(&[
        "merge",
        &p("a.oracleGeneral"),
        &p("b.oracleGeneral"),
        "-o",
        &p("m.bldy"),
    ]));
    let (a, b, m) = (
        stats(&p("a.oracleGeneral")),
        stats(&p("b.oracleGeneral")),
        stats(&p("m.bldy")),
    );
    let sum = |k: &str| a[k].as_u64().unwrap() + b[k].as_u64().unwrap();
    // B's ids are shifted apart from A's, so both totals add up.
    assert_eq!(m["bytes"], sum("bytes"));
    assert_eq!(m["footprint_bytes"], sum("footprint_bytes"));
    assert_eq!(m["requests"], 6000);
    let err = stderr_of(&[
        "merge",
        &p("a.oracleGeneral"),
        &p("b.oracleGeneral"),
        "--to",
        "lirs",
        "-o",
        &p("m.trace"),
    ]);
    assert!(
        err.contains("note: object sizes are dropped: the output format holds none"),
        "{err}"
    );
}

/// `opt` weighing objects by size is Belady's rule, which is no longer the optimum: on heavy-tailed
/// sizes GDSF beats it, and its rows say so (a footer line once, a `note` key per row).
#[test]
fn sized_opt_rows_say_belady_is_a_heuristic_once_sizes_differ() {
    let dir = tempfile::tempdir().unwrap();
    let trace = path_in(dir.path(), "z.bldy");
    ok(&gen_pareto_zipf("3", "native", &trace));
    let rows = json_rows(&belady(&[
        "sim", &trace, "-p", "opt,gdsf", "-c", "30%", "--json",
    ]));
    let (opt, gdsf) = (&rows[0], &rows[1]);
    // What the note explains happens here: the size-aware policy hits more often than `opt`.
    assert!(
        gdsf["hit_ratio"].as_f64() > opt["hit_ratio"].as_f64(),
        "{opt} {gdsf}"
    );
    let note = opt["note"].as_str().expect("the opt row has a note");
    assert!(
        note.contains("heuristic") && note.contains("docs/policies.md"),
        "{note}"
    );
    assert!(gdsf.get("note").is_none(), "{gdsf}");
    let text = ok(&belady(&["sim", &trace, "-p", "opt,lru", "-c", "1%,30%"]));
    assert_eq!(text.matches(note).count(), 1, "{text}");
    // Counted in objects, Belady's rule is the optimum again: no note.
    let rows = json_rows(&belady(&[
        "sim", &trace, "-p", "opt", "-c", "500", "--json",
    ]));
    assert!(rows[0].get("note").is_none(), "{}", rows[0]);
}
