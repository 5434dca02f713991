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
