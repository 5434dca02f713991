//! Trace tools end to end: `convert` (through native and back), `gen`, `merge`, `stats` and
//! `distances`.

mod common;

use common::*;

#[test]
fn native_conversion_preserves_results() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(
        dir.path(),
        "t.trace",
        &(0..5000)
            .map(|i| format!("{}\n", (i * i) % 397))
            .collect::<String>(),
    );
    let n = path_in(dir.path(), "t.bldy");
    let conv = belady(&["convert", "-t", &t, "-f", "lirs", "-o", &n]);
    ok(&conv);
    let sim = |path: &str, fmt: &[&str]| {
        let out = belady(
            &[
                &[
                    "sim",
                    "-t",
                    path,
                    "-p",
                    "lru,clock,opt",
                    "-c",
                    "10,50",
                    "--json",
                ],
                fmt,
            ]
            .concat(),
        );
        let rows = json_rows(&out);
        rows.iter()
            .map(|r| (r["policy"].clone(), r["hits"].clone()))
            .collect::<Vec<_>>()
    };
    // The native file is recognised by its magic bytes, without --format.
    assert_eq!(sim(&t, &["-f", "lirs"]), sim(&n, &[]));
}

#[test]
fn accusim_text_converts_and_simulates() {
    let dir = tempfile::tempdir().unwrap();
    let evt = write(
        dir.path(),
        "t.evt",
        "open 1 3 9 20000 f\nread 1 3 9 8192 10 20000\npread 1 3 9 0 4096 10 20000\nclose 1 3 9\nexit 1\n",
    );
    let bin = path_in(dir.path(), "t.bin");
    let back = path_in(dir.path(), "back.evt");
    assert!(belady(&[
        "convert",
        "-t",
        &evt,
        "-f",
        "accusim-text",
        "--to",
        "accusim",
        "-o",
        &bin
    ])
    .status
    .success());
    assert!(belady(&[
        "convert",
        "-t",
        &bin,
        "-f",
        "accusim",
        "--to",
        "accusim-text",
        "-o",
        &back
    ])
    .status
    .success());
    assert_eq!(
        std::fs::read_to_string(&back).unwrap(),
        std::fs::read_to_string(&evt).unwrap()
    );
    let out = run_sim(&bin, "accusim", &["-p", "lru", "-c", "4", "--json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    // Blocks 0 and 1, then block 0 again: one hit of three references.
    assert_eq!(
        (rows[0]["requests"].as_u64(), rows[0]["hits"].as_u64()),
        (Some(3), Some(1))
    );
    let lirs = write(dir.path(), "x.trace", "1\n");
    assert_error(
        &belady(&[
            "convert", "-t", &lirs, "-f", "lirs", "--to", "accusim", "-o", &bin,
        ]),
        "convert AccuSim traces only",
    );
    let bad = write(dir.path(), "bad.evt", "read 1 3 9 8192 10 20000\n");
    assert_error(
        &belady(&["sim", "-t", &bad, "-f", "accusim-text", "-c", "4"]),
        "bad.evt:1: descriptor 3 of process 1 was never opened",
    );
}

fn stats_json(path: &str) -> serde_json::Value {
    serde_json::from_str(&ok(&belady(&["stats", path, "--json"]))).unwrap()
}

#[test]
fn gen_is_deterministic_per_seed_and_stats_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| path_in(dir.path(), n);
    let gen = |seed: &str, out: &str, to: &str| {
        ok(&belady(&[
            "gen",
            "zipf",
            "--alpha",
            "1.1",
            "--blocks",
            "500",
            "--requests",
            "20000",
            "--seed",
            seed,
            "--to",
            to,
            "-o",
            out,
        ]))
    };
    gen("4", &p("a.bldy"), "native");
    gen("4", &p("b.bldy"), "native");
    gen("5", &p("c.bldy"), "native");
    let bytes = |n: &str| std::fs::read(p(n)).unwrap();
    assert!(bytes("a.bldy") == bytes("b.bldy"));
    assert!(bytes("a.bldy") != bytes("c.bldy"));
    gen("4", &p("a.trace"), "lirs");
    let (native, text) = (stats_json(&p("a.bldy")), stats_json(&p("a.trace")));
    assert_eq!(native["requests"], 20000);
    assert_eq!(native["unique_blocks"], text["unique_blocks"]);
    assert_eq!(native["reuse"], text["reuse"]);
    assert!(native["unique_blocks"].as_u64().unwrap() <= 500);
    let human = ok(&belady(&["stats", &p("a.bldy")]));
    assert!(human.contains("reuse distance") && human.contains("20000"));
    // The working set over time, at most 20 windows of the 45 that --json lists.
    let args = ["stats", &p("a.bldy"), "--window", "450"];
    let series =
        serde_json::from_str::<serde_json::Value>(&ok(&belady(&[&args[..], &["--json"]].concat())))
            .unwrap()["working_set"]["series"]
            .as_array()
            .unwrap()
            .clone();
    assert_eq!(series.len(), 45);
    let human = ok(&belady(&args));
    let (head, row) = human
        .split_once("working set by window (window:distinct blocks, one window in 3)\n")
        .unwrap_or_else(|| panic!("{human}"));
    assert!(head.contains("45 windows of 450 refs"), "{head}");
    let shown: Vec<String> = (0..45)
        .step_by(3)
        .map(|i| format!("{i}:{}", series[i]))
        .collect();
    assert_eq!(row.trim(), shown.join(" "));
    // A mix is deterministic too, and keeps every part's references.
    for out in ["m1.bldy", "m2.bldy"] {
        ok(&belady(&[
            "gen",
            "mix",
            "--part",
            "loop:blocks=30,requests=300",
            "--part",
            "uniform:blocks=40,requests=100,rate=250",
            "--seed",
            "2",
            "-o",
            &p(out),
        ]));
    }
    assert!(bytes("m1.bldy") == bytes("m2.bldy"));
    assert_eq!(stats_json(&p("m1.bldy"))["requests"], 400);
}

#[test]
fn generated_file_traces_simulate_with_read_ahead() {
    let dir = tempfile::tempdir().unwrap();
    let t = path_in(dir.path(), "s.bev");
    ok(&belady(&[
        "gen",
        "sequential-files",
        "--requests",
        "600",
        "--files",
        "40",
        "-o",
        &t,
    ]));
    let s = stats_json(&t);
    assert_eq!(s["requests"], 600);
    assert!(s["sequential_percent"].as_f64().unwrap() > 60.0);
    assert!(s["file_sizes"]["files"].as_u64().unwrap() <= 40);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&ok(&belady(&[
        "sim",
        "-t",
        &t,
        "-p",
        "lru",
        "-c",
        "50",
        "--prefetch",
        "linux24",
        "--json",
    ])))
    .unwrap();
    assert!(rows[0]["prefetch_hits"].as_u64().unwrap() > 0);
}

#[test]
fn merge_keeps_every_request_and_ids_apart() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| path_in(dir.path(), n);
    ok(&belady(&[
        "gen",
        "loop",
        "--blocks",
        "20",
        "--requests",
        "300",
        "--to",
        "lirs",
        "-o",
        &p("a.trace"),
    ]));
    ok(&belady(&[
        "gen",
        "zipf",
        "--blocks",
        "50",
        "--requests",
        "200",
        "-o",
        &p("b.bldy"),
    ]));
    ok(&belady(&[
        "merge",
        &p("a.trace"),
        &p("b.bldy"),
        "--scale-to",
        "A",
        "--to",
        "lirs",
        "-o",
        &p("m.trace"),
    ]));
    let ids: Vec<u64> = std::fs::read_to_string(p("m.trace"))
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(ids.len(), 500);
    let a: Vec<u64> = ids.iter().copied().filter(|&b| b < 20).collect();
    assert_eq!(a, (0..300).map(|i| i % 20).collect::<Vec<_>>());
    assert_eq!(ids.iter().filter(|&&b| (20..70).contains(&b)).count(), 200);
    // B is spread over A's duration: some of it in each half.
    assert!(ids[..250].iter().any(|&b| b >= 20) && ids[250..].iter().any(|&b| b >= 20));
    ok(&belady(&[
        "merge",
        &p("a.trace"),
        &p("b.bldy"),
        "-o",
        &p("m.bldy"),
    ]));
    assert_eq!(stats_json(&p("m.bldy"))["requests"], 500);
}

#[test]
fn convert_round_trips_every_block_format_through_native() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| path_in(dir.path(), n);
    ok(&belady(&[
        "gen",
        "temporal",
        "--requests",
        "3000",
        "--blocks",
        "400",
        "-o",
        &p("t.bldy"),
    ]));
    let hits = |path: &str, fmt: &[&str]| {
        let out = ok(&belady(
            &[
                &["sim", "-t", path, "-p", "lru,opt", "-c", "20,100", "--json"],
                fmt,
            ]
            .concat(),
        ));
        let rows: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
        rows.iter().map(|r| r["hits"].clone()).collect::<Vec<_>>()
    };
    let want = hits(&p("t.bldy"), &[]);
    for (to, fmt) in [
        ("lirs", vec!["-f", "lirs"]),
        ("arc", vec!["-f", "arc"]),
        ("u32le", vec!["-f", "u32le"]),
        ("u32be", vec!["-f", "u32be"]),
        (
            "csv",
            vec!["-f", "csv", "--header", "--columns", "block=0,op=1"],
        ),
    ] {
        let out = p(&format!("t.{to}"));
        ok(&belady(&[
            "convert",
            "-t",
            &p("t.bldy"),
            "--to",
            to,
            "-o",
            &out,
        ]));
        assert_eq!(hits(&out, &fmt), want, "{to}");
        let back = p(&format!("back-{to}.bldy"));
        ok(&belady(
            &[&["convert", "-t", &out, "-o", &back], &fmt[..]].concat(),
        ));
        assert_eq!(hits(&back, &[]), want, "{to} back to native");
    }
}

/// `belady stats --json` of `path` read with `fmt` (empty: detected).
fn stats_as(path: &str, fmt: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(&belady(&[&["stats", path, "--json"], fmt].concat()))).unwrap()
}

#[test]
fn convert_keeps_every_reference_of_the_block_samples() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| path_in(dir.path(), n);
    for (fmt, file) in [
        ("cloudphysics", "block-samples/cloudPhysicsIO.csv.gz"),
        ("msr", "block-samples/msr-cambridge1-sample.csv"),
        ("systor", "block-samples/systor17-traces-sample.csv.gz"),
        ("tencent", "block-samples/cloud_storage-sample.bz2"),
    ] {
        let Some(src) = shared(file) else { continue };
        let native = p(&format!("{fmt}.bldy"));
        ok(&belady(&["convert", "-t", &src, "-f", fmt, "-o", &native]));
        // Every block, operation and timestamp survives: the native file exports as the sample does.
        let (direct, via) = (p(&format!("{fmt}.csv")), p(&format!("{fmt}-via.csv")));
        ok(&belady(&[
            "convert", "-t", &src, "-f", fmt, "--to", "csv", "-o", &direct,
        ]));
        ok(&belady(&[
            "convert", "-t", &native, "--to", "csv", "-o", &via,
        ]));
        let text = std::fs::read_to_string(&direct).unwrap();
        assert!(text == std::fs::read_to_string(&via).unwrap(), "{fmt}");
        let rows: Vec<Vec<&str>> = text
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect())
            .collect();
        let unique: std::collections::HashSet<&str> = rows.iter().map(|r| r[0]).collect();
        let writes = rows.iter().filter(|r| r[1] == "W").count();
        assert!(
            writes > 0 && writes < rows.len(),
            "{fmt} has reads and writes"
        );
        let n = stats_as(&native, &[]);
        assert_eq!(n["requests"], rows.len(), "{fmt}");
        assert_eq!(n["unique_blocks"], unique.len(), "{fmt}");
        assert_eq!(n["write_references"], writes, "{fmt}");
    }
}

#[test]
fn stats_reports_the_lirs_traces_readme_counts() {
    let (Some(readme), Some(_)) = (shared("README.md"), shared("lirs")) else {
        return;
    };
    let readme = std::fs::read_to_string(readme).unwrap();
    // "6,781 (+2 `*`)": the count before any note, without thousands separators.
    let number = |cell: &str| -> u64 {
        let digits: String = cell
            .split('(')
            .next()
            .unwrap()
            .chars()
            .filter(|c| *c != ',')
            .collect();
        digits.trim().parse().unwrap_or_else(|_| panic!("{cell}"))
    };
    let mut checked = 0;
    for line in readme.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 5 || !cells[1].ends_with(".trace.gz") {
            continue;
        }
        let path = shared(&format!("lirs/{}", cells[1])).expect("a trace the README lists");
        // No --format: a `.trace.gz` is read as LIRS by its name.
        let s = stats_json(&path);
        assert_eq!(s["format"], "lirs", "{}", cells[1]);
        assert_eq!(s["requests"], number(cells[2]), "{} requests", cells[1]);
        assert_eq!(s["unique_blocks"], number(cells[3]), "{} unique", cells[1]);
        checked += 1;
    }
    assert_eq!(checked, 10, "the README lists ten LIRS traces");
}

#[test]
fn convert_file_level_traces_to_native_keeps_their_block_references() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| path_in(dir.path(), n);
    let ids = |args: &[&str], name: &str| -> String {
        let out = p(name);
        ok(&belady(&[args, &["--to", "lirs", "-o", &out]].concat()));
        std::fs::read_to_string(out).unwrap()
    };
    // A small hand-written one (two files, read and pread) runs even without the shared inputs.
    let tiny = write(
        dir.path(),
        "tiny.evt",
        "open 1 3 9 20000 f\nopen 1 4 10 9000 g\nread 1 3 9 8192 10 20000\n\
         pread 1 4 10 4096 4096 10 9000\npread 1 3 9 0 4096 10 20000\nread 1 4 10 8192 10 9000\n\
         close 1 3 9\nclose 1 4 10\nexit 1\n",
    );
    let mut inputs = vec![("accusim-text", "tiny.evt", Some(tiny))];
    for (fmt, file) in [
        ("accusim", "lirs-cpp.bin.gz"),
        ("accusim-text", "lirs-cpp.evt.gz"),
        ("accusim", "seqloop.bin.gz"),
        ("accusim-text", "seqloop.evt.gz"),
    ] {
        inputs.push((
            fmt,
            file,
            shared(&format!("../oracles/accusim/inputs/{file}")),
        ));
    }
    for (fmt, file, src) in inputs {
        let Some(src) = src else { continue };
        let (native, events, from_events) = (p("t.bldy"), p("t.bev"), p("e.bldy"));
        ok(&belady(&["convert", "-t", &src, "-f", fmt, "-o", &native]));
        ok(&belady(&[
            "convert", "-t", &src, "-f", fmt, "--to", "events", "-o", &events,
        ]));
        ok(&belady(&[
            "convert",
            "-t",
            &events,
            "-f",
            "events",
            "-o",
            &from_events,
        ]));
        // The same block ids in the same order, whichever way the calls reach native.
        let want = ids(&["convert", "-t", &src, "-f", fmt], "direct.trace");
        assert!(
            want == ids(&["convert", "-t", &native], "native.trace"),
            "{file}"
        );
        assert!(
            want == ids(&["convert", "-t", &from_events], "events.trace"),
            "{file} via events"
        );
        let s = stats_as(&src, &["-f", fmt]);
        assert_eq!(want.lines().count() as u64, s["references"], "{file}");
        for n in [stats_as(&native, &[]), stats_as(&from_events, &[])] {
            assert_eq!(n["requests"], s["references"], "{file}");
            assert_eq!(n["unique_blocks"], s["unique_blocks"], "{file}");
        }
        assert_eq!(
            stats_as(&events, &["-f", "events"])["requests"],
            s["requests"]
        );
    }
}

#[test]
fn distances_print_both_histograms() {
    let dir = tempfile::tempdir().unwrap();
    let t = hand_worked_levels_trace(dir.path());
    let out = belady(&["distances", "-t", &t, "-f", "lirs", "-c", "2", "--json"]);
    let rows = json_rows(&out);
    let r = &rows[0];
    assert_eq!(r["storage_references"], 8);
    assert_eq!(r["first_references"], 4);
    let buckets: Vec<(u64, u64, u64)> = r["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["low"].as_u64().unwrap(),
                b["access"].as_u64().unwrap(),
                b["eviction"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(buckets, vec![(1, 0, 2), (2, 2, 2), (4, 2, 0)]);
    let text = belady(&["distances", "-t", &t, "-f", "lirs", "-c", "2"]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("4-7"), "{text}");
    assert!(text.contains("mean: access 3.5, eviction 1.5"), "{text}");
    let bad = belady(&[
        "distances",
        "-t",
        &t,
        "-f",
        "lirs",
        "-c",
        "2",
        "--client-policy",
        "lru,fifo",
    ]);
    assert_error(&bad, "name one policy");
}

#[test]
fn stats_distances_equals_the_distances_command() {
    let dir = tempfile::tempdir().unwrap();
    let ids: String = (0..2000)
        .map(|i| format!("{}\n", (i * 7 + i / 13) % 300))
        .collect();
    let t = write(dir.path(), "d.trace", &ids);
    let a = belady(&[
        "stats",
        &t,
        "-f",
        "lirs",
        "--distances",
        "-c",
        "50",
        "--json",
    ]);
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    let b = belady(&["distances", "-t", &t, "-f", "lirs", "-c", "50", "--json"]);
    assert_eq!(a.stdout, b.stdout);
    let v: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1);
    let missing = belady(&["stats", &t, "-f", "lirs", "--distances"]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("--client-size"));
}
