//! `belady sim` with ClusterFetch and `belady demo clusterfetch`, end to end.

mod common;

use common::*;

use std::path::Path;
use std::process::Output;

/// A launch in belady's events format: the trigger is opened and read, then 40 scattered blocks
/// of a data file are read back to back, then after 2 s a log file is opened.
fn launch_trace(dir: &Path) -> String {
    let mut text = String::from(
        "file 1 4096 /app/bin\nfile 2 819200 /app/data\nfile 3 4096 /app/log\n\
         open - 0 1 3 1\nread - 50000 1 3 1 0 4096\nopen - 0 1 4 2\n",
    );
    for i in 0..40u64 {
        text.push_str(&format!("read - 100 1 4 2 {} 4096\n", (1 + 5 * i) * 4096));
    }
    text.push_str("open - 2000000 1 5 3\nread - 0 1 5 3 0 4096\n");
    write(dir, "launch.bev", &text)
}

fn sim_json(trace: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "sim", "-t", trace, "-f", "events", "-p", "lru", "-c", "1000", "--disk", "fixed", "--json",
    ];
    args.extend_from_slice(extra);
    belady(&args)
}

fn row(out: &Output) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = serde_json::from_str(&ok(out)).unwrap();
    assert_eq!(rows.len(), 1);
    rows[0].clone()
}

#[test]
fn learn_on_run_one_prefetch_on_run_two() {
    let dir = tempfile::tempdir().unwrap();
    let trace = launch_trace(dir.path());
    let store = path_in(dir.path(), "app.cfstore");
    let args = [
        "--prefetch",
        "none+clusterfetch",
        "--cf-store",
        &store,
        "--launch-until-open",
        "/app/log",
    ];
    let first = row(&sim_json(&trace, &args));
    assert_eq!(first["prefetch"], "none+clusterfetch");
    assert_eq!(first["clusterfetch"]["bursts_learned"], 1);
    assert_eq!(first["clusterfetch"]["triggers"], 0);
    assert_eq!(first["launch"]["until"], "open /app/log");
    assert_eq!(first["launch"]["reached"], true);
    let bytes = std::fs::metadata(&store).unwrap().len();
    assert_eq!(first["clusterfetch"]["store_bytes"], bytes);

    let second = row(&sim_json(&trace, &args));
    let cf = &second["clusterfetch"];
    assert_eq!(cf["triggers"], 1);
    assert_eq!(cf["prefetched_blocks"], 41);
    assert_eq!(cf["accuracy"], 1.0);
    assert_eq!(cf["coverage"], 1.0);
    // 41 one-millisecond reads no longer waited for: the prefetches finish during the 50 ms of
    // start-up computation.
    let saved =
        first["launch"]["time_s"].as_f64().unwrap() - second["launch"]["time_s"].as_f64().unwrap();
    assert!((saved - 0.041).abs() < 1e-9, "saved {saved} s");
    assert_eq!(cf["baseline_launch_time_s"], first["launch"]["time_s"]);

    // Human output: the table and one summary line per run.
    let text = ok(&run_sim(
        &trace,
        "events",
        &[
            "-p",
            "lru",
            "-c",
            "1000",
            "--disk",
            "fixed",
            "--prefetch",
            "clusterfetch",
            "--cf-store",
            &store,
        ],
    ));
    assert!(
        text.contains("clusterfetch: 1 triggers, 41 blocks prefetched"),
        "{text}"
    );
}

#[test]
fn warm_start_reports_the_second_replay() {
    let dir = tempfile::tempdir().unwrap();
    let trace = launch_trace(dir.path());
    let r = row(&sim_json(
        &trace,
        &["--warm", "--launch-until-open", "/app/log"],
    ));
    assert_eq!(r["launch"]["misses"], 0);
    assert_eq!(
        r["launch"]["start_event"], 45,
        "3 opens and 42 reads in one replay"
    );
    // Computation only: 50 ms + 40 x 0.1 ms + the 2 s pause.
    let t = r["launch"]["time_s"].as_f64().unwrap();
    assert!((t - 2.054).abs() < 1e-9, "{t}");
}

#[test]
fn damaged_stores_and_misused_options_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let trace = launch_trace(dir.path());
    let store = dir.path().join("bad.cfstore");
    std::fs::write(&store, b"BLDYCFS\0\x01\0\0\0garbage garbage").unwrap();
    let s = store.display().to_string();
    assert_error_all(
        &sim_json(&trace, &["--prefetch", "clusterfetch", "--cf-store", &s]),
        &["bad.cfstore", "checksum"],
    );
    std::fs::write(&store, b"short").unwrap();
    assert_error_all(
        &sim_json(&trace, &["--prefetch", "clusterfetch", "--cf-store", &s]),
        &["bad.cfstore", "truncated"],
    );
    assert_error_all(
        &sim_json(&trace, &["--cf-queue", "8"]),
        &["--cf-queue", "+clusterfetch"],
    );
    assert_error_all(
        &sim_json(&trace, &["--prefetch", "linux24+bsd"]),
        &["--prefetch", "at most one read-ahead engine"],
    );
    assert_error_all(
        &sim_json(&trace, &["--prefetch", "clusterfetch", "--cf-queue", "1"]),
        &["--cf-queue"],
    );
    assert_error_all(
        &sim_json(
            &trace,
            &["--prefetch", "clusterfetch", "--cf-store-limit", "lots"],
        ),
        &["--cf-store-limit", "byte size"],
    );
    assert_error_all(
        &sim_json(&trace, &["--launch-until-open", "/nope"]),
        &["--launch-until-open", "/nope"],
    );
    let two = run_sim(
        &trace,
        "events",
        &[
            "-p",
            "lru,fifo",
            "-c",
            "1000",
            "--prefetch",
            "clusterfetch",
            "--cf-store",
            &s,
        ],
    );
    assert_error_all(&two, &["--cf-store", "2 runs"]);
}

#[test]
fn the_demo_shortens_launches_under_the_hdd_model() {
    let out = belady(&["demo", "clusterfetch", "--json"]);
    let text = ok(&out);
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 8, "2 programs x 2 disks x 2 placements");
    for r in &rows {
        let (cold, warm, cf) = (
            r["cold_s"].as_f64().unwrap(),
            r["warm_s"].as_f64().unwrap(),
            r["clusterfetch_s"].as_f64().unwrap(),
        );
        assert!(warm <= cf && cf <= cold, "{r}");
        if r["kind"] == "HDD" {
            assert!(r["reduction"].as_f64().unwrap() > 0.0, "{r}");
        }
        assert!(r["store_bytes"].as_u64().unwrap() <= 3_000_000);
    }
    let table = ok(&belady(&["demo", "clusterfetch"]));
    assert!(
        table.contains("15.2% (Flightgear) to 30.9% (Eclipse)"),
        "{table}"
    );
    assert!(table.contains("HDD (cheetah9lp): launch time"), "{table}");
}
