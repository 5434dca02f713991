//! `sim --levels` on the file engine: hierarchies with read-ahead, a disk and file-level traces.

use std::path::Path;
use std::process::{Command, Output};

fn belady(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_belady"))
        .args(args)
        .output()
        .expect("run belady")
}

fn rows(out: &Output) -> Vec<serde_json::Value> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// An AccuSim binary file-level trace: a 400 KiB file read sequentially three times in 4 KiB
/// calls, interleaved with reads of a second 200 KiB file at scattered offsets, 50 µs of think
/// time per call (converted from AccuSim's text form by `belady convert`).
fn accusim_trace(dir: &Path) -> String {
    let mut evt = String::from("open 1 3 9 409600 f\nopen 1 4 10 204800 g\n");
    for pass in 0..3u64 {
        for k in 0..100u64 {
            evt.push_str("pread 1 3 9 ");
            evt.push_str(&format!("{} 4096 50 409600\n", k * 4096));
            if k % 4 == pass {
                let off = ((k * 7919 + pass * 13) % 50) * 4096;
                evt.push_str(&format!("pread 1 4 10 {off} 4096 50 204800\n"));
            }
        }
    }
    evt.push_str("close 1 3 9\nclose 1 4 10\nexit 1\n");
    let text = dir.join("t.evt");
    std::fs::write(&text, evt).unwrap();
    let bin = dir.join("t.bin.gz").display().to_string();
    let out = belady(&[
        "convert",
        "-t",
        &text.display().to_string(),
        "-f",
        "accusim-text",
        "--to",
        "accusim",
        "-o",
        &bin,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    bin
}

#[test]
fn two_levels_with_ondemand_on_a_disk_report_both_levels_and_disk_time() {
    let dir = tempfile::tempdir().unwrap();
    let bin = accusim_trace(dir.path());
    let common = [
        "sim",
        "-t",
        &bin,
        "-f",
        "accusim",
        "--prefetch",
        "ondemand",
        "--disk",
        "cheetah9lp",
        "--json",
    ];
    let two = rows(&belady(
        &[&common[..], &["--levels", "client:lru:40,storage:lru:200"]].concat(),
    ));
    let plain = rows(&belady(&[&common[..], &["-p", "lru", "-c", "40"]].concat()));
    assert_eq!(two.len(), 1);
    let (two, plain) = (&two[0], &plain[0]);
    let levels = two["levels"].as_array().expect("levels[]");
    assert_eq!(levels.len(), 2);
    assert_eq!(levels[0]["name"], "client");
    assert_eq!(levels[1]["name"], "storage");
    for key in [
        "disk_requests",
        "exec_time_s",
        "io_wait_s",
        "hits",
        "misses",
    ] {
        assert!(two.get(key).is_some(), "missing {key}: {two}");
    }
    // The client sees every demand reference; the storage level sees only what it reads.
    assert_eq!(levels[0]["requests"], plain["requests"]);
    assert!(levels[1]["requests"].as_u64().unwrap() > 0);
    // The 200-block storage level holds both files (150 blocks), so the second and third passes
    // over the 100-block file (40-block client) are served below: fewer disk requests and less
    // time than with the client alone.
    assert!(levels[1]["hits"].as_u64().unwrap() > 0, "{two}");
    let n = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap();
    assert!(n(two, "disk_requests") < n(plain, "disk_requests"));
    assert!(n(two, "exec_time_s") < n(plain, "exec_time_s"));
    assert!(n(two, "exec_time_s") > 0.0);
    assert!(n(two, "hits") >= n(&levels[0], "hits"));
}

#[test]
fn a_one_level_hierarchy_is_the_plain_run() {
    let dir = tempfile::tempdir().unwrap();
    let bin = accusim_trace(dir.path());
    for prefetch in ["none", "linux24", "ondemand"] {
        let common = [
            "sim",
            "-t",
            &bin,
            "-f",
            "accusim",
            "--prefetch",
            prefetch,
            "--disk",
            "cheetah9lp",
            "--json",
        ];
        let plain = rows(&belady(
            &[&common[..], &["-p", "lru,arc,lirs", "-c", "40"]].concat(),
        ));
        let levels = rows(&belady(
            &[
                &common[..],
                &[
                    "--levels",
                    "client:lru:40",
                    "--levels",
                    "client:arc:40",
                    "--levels",
                    "client:lirs:40",
                ],
            ]
            .concat(),
        ));
        assert_eq!(plain.len(), 3);
        assert_eq!(levels.len(), 3);
        for (p, l) in plain.iter().zip(&levels) {
            for key in ["policy", "hits", "misses", "disk_requests", "exec_time_s"] {
                assert_eq!(p[key], l[key], "{prefetch} {key}: {p} vs {l}");
            }
        }
    }
}

/// A block-level trace (LIRS form, one block number per line): a 300-block region scanned
/// sequentially twice, interleaved with a hot set of 30 blocks far away, so a 50-block client
/// over a 400-block storage level sees storage hits on the second scan.
fn block_trace(dir: &Path) -> String {
    let mut text = String::new();
    for pass in 0..2u64 {
        for k in 0..300u64 {
            text.push_str(&format!("{}\n", 1000 + k));
            if k % 3 == pass {
                text.push_str(&format!("{}\n", 50_000 + (k * 7) % 30));
            }
        }
    }
    let path = dir.join("b.lirs");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn a_block_trace_with_two_levels_on_a_disk_reports_both_levels_and_disk_time() {
    let dir = tempfile::tempdir().unwrap();
    let trace = block_trace(dir.path());
    for prefetch in ["none", "ondemand"] {
        let common = [
            "sim",
            "-t",
            &trace,
            "-f",
            "lirs",
            "--prefetch",
            prefetch,
            "--levels",
            "client:lru:50,storage:lru:400",
            "--json",
        ];
        // 50 ms of think time per call: every request (read-ahead, links) completes before the
        // next call, so no block is found in flight (a late prefetch is a miss on a disk).
        let timed = rows(&belady(
            &[
                &common[..],
                &["--disk", "cheetah9lp", "--think-us", "50000"],
            ]
            .concat(),
        ));
        let untimed = rows(&belady(&common));
        if prefetch == "none" {
            // Without read-ahead nothing can be late: no think time is needed.
            let busy = rows(&belady(&[&common[..], &["--disk", "cheetah9lp"]].concat()));
            assert_eq!(busy[0]["hits"], untimed[0]["hits"]);
            assert_eq!(busy[0]["levels"], untimed[0]["levels"]);
        }
        assert_eq!((timed.len(), untimed.len()), (1, 1));
        let (timed, untimed) = (&timed[0], &untimed[0]);
        let levels = timed["levels"].as_array().expect("levels[]");
        assert_eq!(levels.len(), 2, "{prefetch}");
        assert_eq!(
            (&levels[0]["name"], &levels[1]["name"]),
            (&"client".into(), &"storage".into())
        );
        assert!(
            levels[1]["hits"].as_u64().unwrap() > 0,
            "{prefetch}: {timed}"
        );
        for key in ["disk_requests", "exec_time_s", "io_wait_s", "timing"] {
            assert!(
                timed.get(key).is_some(),
                "{prefetch}: missing {key}: {timed}"
            );
        }
        assert!(timed["exec_time_s"].as_f64().unwrap() > 0.0);
        assert!(untimed.get("exec_time_s").is_none(), "{untimed}");
        // Access-based placement defers nothing: the disk changes times, not what hits.
        assert_eq!(timed["late"], 0, "{prefetch}");
        for key in ["hits", "misses", "requests"] {
            assert_eq!(timed[key], untimed[key], "{prefetch} {key}");
        }
        assert_eq!(timed["levels"], untimed["levels"], "{prefetch}");
        assert_eq!(
            timed["timing"]["run_time_ns"].as_f64().unwrap() / 1e9,
            timed["exec_time_s"].as_f64().unwrap()
        );
    }
}

#[test]
fn a_one_level_hierarchy_on_a_block_trace_with_only_a_disk_is_the_plain_run() {
    let dir = tempfile::tempdir().unwrap();
    let trace = block_trace(dir.path());
    let common = [
        "sim",
        "-t",
        &trace,
        "-f",
        "lirs",
        "--disk",
        "cheetah9lp",
        "--json",
    ];
    let plain = rows(&belady(
        &[&common[..], &["-p", "lru,arc,lirs", "-c", "50"]].concat(),
    ));
    let levels = rows(&belady(
        &[
            &common[..],
            &[
                "--levels",
                "client:lru:50",
                "--levels",
                "client:arc:50",
                "--levels",
                "client:lirs:50",
            ],
        ]
        .concat(),
    ));
    assert_eq!((plain.len(), levels.len()), (3, 3));
    for (p, l) in plain.iter().zip(&levels) {
        for key in ["policy", "hits", "misses", "disk_requests", "exec_time_s"] {
            assert_eq!(p[key], l[key], "{key}: {p} vs {l}");
        }
    }
}
