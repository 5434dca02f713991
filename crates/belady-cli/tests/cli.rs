//! End-to-end behaviour of the `belady` binary: output schema and one-line errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn belady(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_belady"))
        .args(args)
        .output()
        .expect("run belady")
}

/// Asserts a clean failure: non-zero exit, one line on stderr containing `needle`, no panic.
fn assert_error(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "succeeded unexpectedly: {err}");
    assert!(!err.contains("panicked"), "panicked: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
    assert!(err.contains(needle), "expected '{needle}' in: {err}");
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn json_rows_carry_the_documented_fields() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(dir.path(), "t.trace", "1\n2\n1\n3\n1\n2\n");
    let out = belady(&[
        "sim", "-t", &t, "-f", "lirs", "-p", "lru,opt", "-c", "2,50%", "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), 4);
    let lru2 = &rows[0];
    for key in [
        "trace",
        "policy",
        "cache_blocks",
        "requests",
        "hits",
        "misses",
        "hit_ratio",
        "format",
        "ops",
    ] {
        assert!(lru2.get(key).is_some(), "missing {key}");
    }
    // lru, 2 blocks: 1 2 1(h) 3 1(h) 2 -> 2 hits of 6.
    assert_eq!(lru2["policy"], "lru");
    assert_eq!(lru2["cache_blocks"], 2);
    assert_eq!(lru2["hits"], 2);
    assert_eq!(lru2["misses"], 4);
    // 50% of 3 unique blocks = 1 block.
    assert_eq!(rows[1]["cache_blocks"], 1);
    // opt, 2 blocks: 1 2 1(h) 3 (evicts 2, next used after 1) 1(h) 2 -> 2 hits.
    assert_eq!(rows[2]["policy"], "opt");
    assert_eq!(rows[2]["hits"], 2);
}

#[test]
fn same_inputs_give_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(
        dir.path(),
        "t.trace",
        &(0..3000)
            .map(|i| format!("{}\n", (i * 37) % 101))
            .collect::<String>(),
    );
    let args = [
        "sim",
        "-t",
        &t,
        "-f",
        "lirs",
        "-p",
        "lru,fifo,clock,opt",
        "-c",
        "5,10,20,40",
        "--json",
    ];
    let a = belady(&args);
    let b = belady(&[&args[..], &["--threads", "1"]].concat());
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn malformed_line_names_file_line_and_expectation() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(dir.path(), "bad.trace", "1\n2\nthree\n");
    assert_error(
        &belady(&["sim", "-t", &t, "-f", "lirs", "-c", "2"]),
        "bad.trace:3: expected a block number or '*', found 'three'",
    );
    let a = write(dir.path(), "bad.lis", "1 1 0 0\n5 x 0 1\n");
    assert_error(
        &belady(&["sim", "-t", &a, "-f", "arc", "-c", "2"]),
        "bad.lis:2: expected 'start_block num_blocks ignore request_no'",
    );
}

#[test]
fn unknown_format_policy_and_size_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(dir.path(), "t.trace", "1\n");
    assert_error(
        &belady(&["sim", "-t", &t, "-f", "parquet", "-c", "2"]),
        "unknown trace format",
    );
    assert_error(
        &belady(&["sim", "-t", &t, "-f", "lirs", "-c", "0"]),
        "invalid --cache-size '0'",
    );
    assert_error(
        &belady(&["sim", "-t", &t, "-f", "lirs", "-c", "2", "-p", "lru,zzz"]),
        "unknown policy",
    );
    assert_error(
        &belady(&[
            "sim",
            "-t",
            &t,
            "-f",
            "lirs",
            "-c",
            "1KiB",
            "--block-size",
            "4096",
        ]),
        "less than one block",
    );
    assert_error(
        &belady(&["sim", "-t", &t, "-f", "csv", "-c", "2"]),
        "csv needs --columns",
    );
    // One id per line would be recognised as LIRS text by its content.
    let unknown_ext = write(dir.path(), "t.dat", "1,2\n");
    assert_error(
        &belady(&["sim", "-t", &unknown_ext, "-c", "2"]),
        "could not detect the format of",
    );
}

#[test]
fn empty_and_unreadable_traces_fail_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "empty.trace", "*\n\n");
    assert_error(
        &belady(&["sim", "-t", &empty, "-f", "lirs", "-c", "2"]),
        "empty.trace: trace holds no read requests",
    );
    let writes_only = write(dir.path(), "w.csv", "0,4096,W\n");
    assert_error(
        &belady(&[
            "sim",
            "-t",
            &writes_only,
            "-f",
            "csv",
            "--columns",
            "offset=0,size=1,op=2",
            "-c",
            "2",
        ]),
        "trace holds no read requests",
    );
    let missing = dir.path().join("nope.trace").display().to_string();
    let out = belady(&["sim", "-t", &missing, "-f", "lirs", "-c", "2"]);
    assert_error(&out, "nope.trace: No such file");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("No such file").count(), 1, "said twice: {err}");
    let a_dir = dir.path().display().to_string();
    assert_error(
        &belady(&["sim", "-t", &a_dir, "-f", "lirs", "-c", "2"]),
        &a_dir,
    );
}

#[test]
fn writes_are_selectable() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(dir.path(), "m.csv", "0,4096,R\n0,4096,W\n8192,100,W\n");
    let run = |ops: &str| {
        let out = belady(&[
            "sim",
            "-t",
            &t,
            "-f",
            "csv",
            "--columns",
            "offset=0,size=1,op=2",
            "-c",
            "4",
            "--ops",
            ops,
            "--json",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
        (
            rows[0]["requests"].as_u64().unwrap(),
            rows[0]["hits"].as_u64().unwrap(),
        )
    };
    assert_eq!(run("read"), (1, 0));
    assert_eq!(run("write"), (2, 0));
    assert_eq!(run("all"), (3, 1));
}

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
    let n = dir.path().join("t.bldy").display().to_string();
    let conv = belady(&["convert", "-t", &t, "-f", "lirs", "-o", &n]);
    assert!(
        conv.status.success(),
        "{}",
        String::from_utf8_lossy(&conv.stderr)
    );
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
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
        rows.iter()
            .map(|r| (r["policy"].clone(), r["hits"].clone()))
            .collect::<Vec<_>>()
    };
    // The native file is recognised by its magic bytes, without --format.
    assert_eq!(sim(&t, &["-f", "lirs"]), sim(&n, &[]));
}

#[test]
fn policies_lists_every_policy() {
    let out = belady(&["policies", "--json"]);
    assert!(out.status.success());
    let list: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = list.iter().map(|p| p["name"].as_str().unwrap()).collect();
    for n in ["lru", "fifo", "clock", "opt"] {
        assert!(names.contains(&n));
    }
    // Each parameter lists its three defaults; ARC's initial p is c/2 only under AccuSim.
    let arc = list.iter().find(|p| p["name"] == "arc").unwrap();
    let p0 = arc["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["name"] == "p0")
        .unwrap();
    assert_eq!(
        (&p0["default"], &p0["study"], &p0["accusim"]),
        (&"0".into(), &"0".into(), &"0.5".into())
    );
}

#[test]
fn readme_policy_table_is_what_policies_markdown_prints() {
    // docs/policies.md promises the table is this command's output; a new parameter must reach both.
    let out = belady(&["policies", "--markdown"]);
    assert!(out.status.success());
    let printed = String::from_utf8(out.stdout).unwrap();
    let readme = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/policies.md"
    ))
    .expect("docs/policies.md beside the workspace");
    let start = readme
        .find("| policy | what |")
        .expect("docs/policies.md has the policy table");
    let table = readme[start..].split("\n\n").next().unwrap();
    assert_eq!(
        table.trim_end(),
        printed.trim_end(),
        "docs/policies.md's policy table differs from `belady policies --markdown`; paste the output in"
    );
}
#[test]
fn request_log_lists_every_request_of_a_file_level_run() {
    let dir = tempfile::tempdir().unwrap();
    let evt = write(
        dir.path(),
        "t.evt",
        "open 1 3 9 200000 f\nread 1 3 9 8192 10 200000\nread 1 3 9 8192 10 200000\n",
    );
    let out = belady(&[
        "sim",
        "--trace",
        &evt,
        "--format",
        "accusim-text",
        "--policy",
        "lru",
        "--cache-size",
        "100",
        "--prefetch",
        "linux24",
        "--compat",
        "accusim",
        "--json",
        "--log-requests",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let log = rows[0]["request_log"].as_array().unwrap();
    assert_eq!(log.len() as u64, rows[0]["disk_requests"].as_u64().unwrap());
    // The first read misses blocks 0 and 1 and reads 3 ahead: one synchronous request of blocks
    // 0..3, issued by event 2 (the open is event 1); the second read's hit sends 7 blocks ahead.
    let first = |i: usize, k: &str| log[i][k].clone();
    assert_eq!(
        (
            first(0, "event"),
            first(0, "sync"),
            first(0, "first"),
            first(0, "blocks")
        ),
        (2.into(), true.into(), 0.into(), 4.into())
    );
    assert_eq!(
        (
            first(1, "event"),
            first(1, "sync"),
            first(1, "first"),
            first(1, "blocks")
        ),
        (3.into(), false.into(), 4.into(), 7.into())
    );
}

#[test]
fn demo_names_missing_sample_data() {
    // The full demo runs in tests/python/test_demo.py on the release build; here, its input check.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().display().to_string();
    assert_error(
        &belady(&["demo", "--data", &out, "--out", &out]),
        "scan-hot.trace.gz: sample trace missing",
    );
}

#[test]
fn accusim_text_converts_and_simulates() {
    let dir = tempfile::tempdir().unwrap();
    let evt = write(
        dir.path(),
        "t.evt",
        "open 1 3 9 20000 f\nread 1 3 9 8192 10 20000\npread 1 3 9 0 4096 10 20000\nclose 1 3 9\nexit 1\n",
    );
    let bin = dir.path().join("t.bin").display().to_string();
    let back = dir.path().join("back.evt").display().to_string();
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
    let out = belady(&[
        "sim", "-t", &bin, "-f", "accusim", "-p", "lru", "-c", "4", "--json",
    ]);
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

#[test]
fn disk_command_is_deterministic_for_a_seed() {
    let args = [
        "disk",
        "--model",
        "cheetah9lp",
        "--pattern",
        "random",
        "--size",
        "4KiB",
        "--count",
        "500",
        "--seed",
        "3",
        "--json",
    ];
    let a = belady(&args);
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert_eq!(a.stdout, belady(&args).stdout);
    let v: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    let mean = v["mean_ms"].as_f64().unwrap();
    assert!((8.5..11.0).contains(&mean), "{mean}");
    assert!(v["p99_ms"].as_f64().unwrap() >= v["p50_ms"].as_f64().unwrap());
    let seq = belady(&[
        "disk",
        "--model",
        "cheetah9lp",
        "--pattern",
        "sequential",
        "--size",
        "64KiB",
        "--json",
        "--count",
        "200",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&seq.stdout).unwrap();
    let rate = v["mb_per_s"].as_f64().unwrap();
    assert!((4.0..4.9).contains(&rate), "{rate}");
    let bad = belady(&["disk", "--model", "no-such-disk"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("cheetah9lp"));
}

#[test]
fn scheduler_needs_a_disk_and_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let evt = write(
        dir.path(),
        "s.evt",
        "open 1 3 9 400000 f\nread 1 3 9 8192 10 400000\npread 1 3 9 200000 4096 10 400000\n\
         pread 1 3 9 40000 4096 10 400000\npread 1 3 9 300000 4096 10 400000\nclose 1 3 9\nexit 1\n",
    );
    let run = |extra: &[&str]| {
        let mut args = vec![
            "sim",
            "-t",
            &evt,
            "-f",
            "accusim-text",
            "-p",
            "lru",
            "-c",
            "16",
            "--prefetch",
            "linux24",
            "--json",
        ];
        args.extend_from_slice(extra);
        belady(&args)
    };
    let exec = |out: &Output| {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
        rows[0]["exec_time_s"].as_f64().unwrap()
    };
    // A constant-latency device has no seeks to save: every scheduler gives the same run.
    let fcfs = exec(&run(&["--disk", "fixed"]));
    let clook = exec(&run(&["--disk", "fixed", "--scheduler", "clook"]));
    assert!(fcfs > 0.0);
    assert_eq!(fcfs, clook);
    assert_error(&run(&["--scheduler", "clook"]), "needs --disk");
    assert_error(
        &run(&["--disk", "fixed", "--scheduler", "elevator"]),
        "expected one of fcfs, clook, sstf",
    );
}

#[test]
fn read_ahead_kb_caps_every_window() {
    // One file of 1,200 blocks read whole in 4 KB reads, on-demand read-ahead.
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("file 1 4915200 /f\nopen 0 0 1 3 1\n");
    for b in 0..1200 {
        text += &format!("read - 0 1 3 1 {} 4096\n", b * 4096);
    }
    let evt = write(dir.path(), "seq.bev", &text);
    let sim = |extra: &[&str]| {
        let mut args = vec![
            "sim",
            "-t",
            &evt,
            "-f",
            "events",
            "-p",
            "lru",
            "-c",
            "2000",
            "--prefetch",
            "ondemand",
            "--max-request",
            "1MiB",
            "--json",
            "--log-requests",
        ];
        args.extend_from_slice(extra);
        belady(&args)
    };
    let largest_request = |extra: &[&str]| {
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&sim(extra).stdout).unwrap();
        rows[0]["request_log"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["blocks"].as_u64().unwrap())
            .max()
            .unwrap()
    };
    // 128 KiB by default: windows ramp up to 32 blocks; 32 KiB caps them at 8, 1 MiB lets them
    // grow to 256.
    assert_eq!(largest_request(&[]), 32);
    assert_eq!(largest_request(&["--read-ahead-kb", "32"]), 8);
    assert_eq!(largest_request(&["--read-ahead-kb", "1024"]), 256);
    assert_error(&sim(&["--read-ahead-kb", "2"]), "--read-ahead-kb");
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stats_json(path: &str) -> serde_json::Value {
    serde_json::from_str(&ok(&belady(&["stats", path, "--json"]))).unwrap()
}

#[test]
fn gen_is_deterministic_per_seed_and_stats_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
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
fn gen_errors_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x").display().to_string();
    assert_error(
        &belady(&["gen", "zipf", "--alpha", "x", "-o", &out]),
        "zipf alpha",
    );
    assert_error(
        &belady(&[
            "gen",
            "mix",
            "--part",
            "loop",
            "--part",
            "random-files",
            "-o",
            &out,
        ]),
        "not both",
    );
    assert_error(
        &belady(&["gen", "mix", "--part", "loop:colour=red", "-o", &out]),
        "no parameter 'colour'",
    );
    assert_error(
        &belady(&["gen", "sequential-files", "--to", "native", "-o", &out]),
        "events",
    );
    assert_error(
        &belady(&[
            "gen",
            "indexed-db",
            "--leaf-prob",
            "0.006",
            "--record-prob",
            "0.00005",
            "-o",
            &out,
        ]),
        "leaves × leaf-prob + records × record-prob must be 1",
    );
}

#[test]
fn generated_file_traces_simulate_with_read_ahead() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("s.bev").display().to_string();
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
    let p = |n: &str| dir.path().join(n).display().to_string();
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
    let p = |n: &str| dir.path().join(n).display().to_string();
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

/// `rel` under the shared traces folder (BELADY_TRACES, else `../shared/traces` beside the
/// checkout), or `None` with a message when it is absent.
fn shared(rel: &str) -> Option<String> {
    let traces = std::env::var_os("BELADY_TRACES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces"));
    let path = traces.join(rel);
    if path.exists() {
        Some(path.display().to_string())
    } else {
        eprintln!("skipping: {} not found (set BELADY_TRACES)", path.display());
        None
    }
}

/// `belady stats --json` of `path` read with `fmt` (empty: detected).
fn stats_as(path: &str, fmt: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(&belady(&[&["stats", path, "--json"], fmt].concat()))).unwrap()
}

#[test]
fn convert_keeps_every_reference_of_the_block_samples() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
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
    let p = |n: &str| dir.path().join(n).display().to_string();
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
fn demo_lru_failures_shows_which_policies_fix_lru() {
    let text = ok(&belady(&["demo", "lru-failures"]));
    for w in ["indexed-db", "scan-cyclic", "scan-use-once"] {
        assert!(text.contains(w), "{w} missing: {text}");
    }
    let row = |name: &str| {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no {name} row: {text}"))
            .to_string()
    };
    assert_eq!(row("lirs").matches("yes").count(), 3, "{text}");
    assert_eq!(row("clock-pro").matches("yes").count(), 3, "{text}");
    assert!(row("lru-k").contains("yes") && row("arc").contains("yes"));
    // LRU on the cyclic scan: no hits at all.
    let lru = row("lru");
    let cells: Vec<&str> = lru.split_whitespace().collect();
    assert_eq!(cells[3], "0.00", "{text}");
}

#[test]
fn sweep_exports_csv_json_and_parquet_with_the_same_runs() {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let dir = tempfile::tempdir().unwrap();
    let ids: String = (0..300).map(|i| format!("{}\n", (i * 13) % 70)).collect();
    write(dir.path(), "t.trace", &ids);
    let exp = write(
        dir.path(),
        "e.toml",
        "policies = [\"lru\", \"opt\"]\nsizes = [\"10\", \"30\"]\nprefetch = [\"none\", \"linux24\"]\n\
         [[trace]]\npath = \"t.trace\"\nformat = \"lirs\"\n",
    );
    let store = dir.path().join("r.sqlite").display().to_string();
    let out = belady(&["sweep", &exp, "--store", &store, "--quiet"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = belady(&["results", "export", "--store", &store, "--format", "json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(rows.len(), 8);
    let pq = dir.path().join("r.parquet");
    let out = belady(&[
        "results",
        "export",
        "--store",
        &store,
        "--format",
        "parquet",
        "-o",
        &pq.display().to_string(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reader = SerializedFileReader::new(std::fs::File::open(&pq).unwrap()).unwrap();
    assert_eq!(reader.metadata().file_metadata().num_rows(), 8);
    let hits: Vec<i64> = reader
        .get_row_iter(None)
        .unwrap()
        .map(|row| {
            let row = row.unwrap();
            let (_, v) = row
                .get_column_iter()
                .find(|(name, _)| name.as_str() == "hits")
                .unwrap();
            match v {
                parquet::record::Field::Long(h) => *h,
                other => panic!("hits is {other:?}"),
            }
        })
        .collect();
    let from_json: Vec<i64> = rows.iter().map(|r| r["hits"].as_i64().unwrap()).collect();
    assert_eq!(hits, from_json, "same runs, same order");
    assert_error(
        &belady(&[
            "results", "export", "--store", &store, "--format", "parquet",
        ]),
        "-o FILE",
    );
}

#[test]
fn levels_run_hierarchies_per_placement_in_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    // The multi-level module's hand-worked trace 0 1 2 0 1 3 2 0 (here ids 10 11 12 13).
    let t = write(dir.path(), "t.trace", "10\n11\n12\n10\n11\n13\n12\n10\n");
    let out = belady(&[
        "sim",
        "-t",
        &t,
        "-f",
        "lirs",
        "--levels",
        "client:lru:2,storage:lru:2",
        "--placement",
        "access,eviction,exclusive",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), 3);
    let storage_hits: Vec<u64> = rows
        .iter()
        .map(|r| r["levels"][1]["hits"].as_u64().unwrap())
        .collect();
    assert_eq!(storage_hits, vec![0, 3, 4]);
    let ev = &rows[1];
    assert_eq!(ev["policy"], "client:lru:2 > storage:lru:2:eviction");
    assert_eq!(ev["levels"][1]["reloads_issued"], 6);
    assert_eq!(ev["levels"][1]["reloads_used"], 3);
    assert_eq!(ev["levels"][1]["reloads_wasted"], 1);
    assert_eq!(ev["disk_requests"], 11);
    assert_eq!(ev["format"], "lirs");
    assert_eq!(rows[2]["levels"][1]["demotion_bytes"], 6 * 4096);
    // A level naming its own placement overrides --placement, and runs once.
    let text = belady(&[
        "sim",
        "-t",
        &t,
        "-f",
        "lirs",
        "--levels",
        "client:lru:2,storage:lru:2:eviction:2",
        "--placement",
        "access,demote",
    ]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert_eq!(text.matches("hierarchy ").count(), 1, "{text}");
    assert!(text.contains("eviction:2"), "{text}");
    // 9 disk requests: 7 demand reads (synchronous) and 2 reloads (asynchronous); the storage
    // level issued 2 reloads, 1 used, none wasted, and skipped 4.
    let row = text
        .lines()
        .find(|l| l.starts_with("client:lru:2 > storage"))
        .unwrap_or_else(|| panic!("{text}"));
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cols[8..11], &["9", "7/7", "2/2"], "{text}");
    assert!(text.contains("2/1/0"), "{text}");
}

#[test]
fn bad_levels_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(dir.path(), "t.trace", "1\n2\n1\n");
    for (levels, needle) in [
        ("client:lru:2,storage:lru", "NAME:POLICY:SIZE"),
        ("client:lru:2,storage:lru:2:sideways", "expected access"),
        ("client:lru:2,storage:opt:2", "client level only"),
    ] {
        let out = belady(&["sim", "-t", &t, "-f", "lirs", "--levels", levels]);
        assert_error(&out, needle);
    }
    let out = belady(&[
        "sim",
        "-t",
        &t,
        "-f",
        "lirs",
        "--levels",
        "c:lru:2,s:lru:2",
        "--placement",
        "later",
    ]);
    assert_error(&out, "--placement");
}

#[test]
fn distances_print_both_histograms() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(dir.path(), "t.trace", "10\n11\n12\n10\n11\n13\n12\n10\n");
    let out = belady(&["distances", "-t", &t, "-f", "lirs", "-c", "2", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
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
fn levels_with_a_disk_report_times() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(dir.path(), "t.trace", "10\n11\n12\n10\n11\n13\n12\n10\n");
    let out = belady(&[
        "sim",
        "-t",
        &t,
        "-f",
        "lirs",
        "--levels",
        "client:lru:2,storage:lru:2",
        "--placement",
        "eviction,demote",
        "--disk",
        "fixed",
        "--think-us",
        "5000",
        "--link-latency-us",
        "10",
        "--link-mbps",
        "819.2",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    // The timing module's hand-worked case: 1 ms disk reads, 60 µs storage hits, 5 ms think.
    assert_eq!(rows[0]["timing"]["run_time_ns"], 45_480_000u64);
    // Six reloads start: the last one when the last demand read is done (still in service at
    // the end, see docs/multilevel.md).
    assert_eq!(rows[0]["timing"]["reloads_started"], 6);
    assert_eq!(rows[0]["timing"]["reloads_pending"], 1);
    assert_eq!(rows[1]["timing"]["demotion_wait_ns"], 300_000u64);
    let text = belady(&[
        "sim",
        "-t",
        &t,
        "-f",
        "lirs",
        "--levels",
        "c:lru:2,s:lru:2",
        "--disk",
        "fixed",
    ]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("time on fixed: run "), "{text}");
    let bad = belady(&[
        "sim",
        "-t",
        &t,
        "-f",
        "lirs",
        "--levels",
        "c:lru:2,s:lru:2",
        "--disk",
        "fixed",
        "--link-mbps",
        "0",
    ]);
    assert_error(&bad, "--link-mbps");
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
