//! `belady calibrate`: the Linux 6 read-ahead model against kernel observations saved on Linux
//! 6.18 (held out), against the running kernel (live), and its error and cleanup paths.

mod common;

use common::*;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn row<'a>(rows: &'a [Value], pattern: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["pattern"] == pattern)
        .unwrap_or_else(|| panic!("no row {pattern}"))
}

fn within(rows: &[Value]) -> usize {
    rows.iter().filter(|r| r["within_bound"] == true).count()
}

/// Observations `belady calibrate --save` recorded on Linux 6.18.44, ext4 on a virtio disk,
/// read_ahead_kb 8192, 64 MiB scratch file, 2026-11-25 (the file's first line says so; the
/// events traces are gzipped).
fn observations() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/calibrate-linux-6.18-ext4")
}

/// Issue #18's held-out check: linux6 within max(5%, 8 pages) of the kernel's final residency on
/// at least 11 of the 13 patterns; ondemand on random 4 KiB, random 64 KiB, backward and
/// stride 16.
#[test]
fn held_out_kernel_observations() {
    let dir = observations();
    let d = dir.to_str().unwrap();
    let linux6 = json_rows(&belady(&["calibrate", "--from", d, "--json"]));
    assert_eq!(linux6.len(), 13);
    assert!(within(&linux6) >= 11, "{linux6:#?}");
    // The folio-aligned windows: a 4 KiB reader ends at exactly 1024 pages, where ondemand's
    // pre-folio windows reach 1876.
    assert_eq!(row(&linux6, "seq-4k")["model_pages"], 1024);
    assert_eq!(row(&linux6, "seq-4k")["kernel_pages"], 1024);
    let ondemand = json_rows(&belady(&[
        "calibrate",
        "--from",
        d,
        "--prefetch",
        "ondemand",
        "--json",
    ]));
    for p in ["random-4k", "random-64k", "backward", "stride-16"] {
        assert_eq!(row(&ondemand, p)["within_bound"], true, "ondemand {p}");
    }
    assert_eq!(row(&ondemand, "seq-4k")["within_bound"], false);
}

/// Issue #18's live check, on the file system of the build directory: at least 13 patterns and
/// linux6 within the bound on at least 11. Skipped (with the reason printed) only where the file
/// system has no page-cache read-ahead to measure.
#[test]
fn live_kernel_matches_linux6() {
    let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let save = tmp.path().join("saved");
    let work = tmp.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let out = belady(&[
        "calibrate",
        "--dir",
        work.to_str().unwrap(),
        "--size",
        "64MiB",
        "--json",
        "--save",
        save.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success()
        && ["no page-cache read-ahead", "read-ahead is off"]
            .iter()
            .any(|s| err.contains(s))
    {
        println!("skipped: {}", err.trim());
        return;
    }
    let rows = json_rows(&out);
    assert!(rows.len() >= 13);
    assert!(within(&rows) >= 11, "{rows:#?}");
    // The scratch file is gone; the saved traces replay with `belady sim`.
    assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0);
    let tsv = std::fs::read_to_string(save.join("observations.tsv")).unwrap();
    assert!(tsv.starts_with("# belady calibrate observations: kernel Linux"));
    let sim = belady(&[
        "sim",
        "--trace",
        save.join("seq-4k.events").to_str().unwrap(),
        "-c",
        "20000",
        "--prefetch",
        "linux6",
        "--read-ahead-kb",
        &row(&rows, "seq-4k")["read_ahead_kb"].to_string(),
        "--json",
    ]);
    ok(&sim);
    // --from on what was saved gives the same rows.
    let again = belady(&["calibrate", "--from", save.to_str().unwrap(), "--json"]);
    assert_eq!(json_rows(&again), rows);
}

#[test]
fn bad_arguments_are_one_line_errors() {
    let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let d = tmp.path().to_str().unwrap();
    assert_error(
        &belady(&["calibrate", "--dir", d, "--size", "1MiB"]),
        "at least 16MiB",
    );
    assert_error(
        &belady(&[
            "calibrate",
            "--dir",
            "/nonexistent/belady",
            "--size",
            "16MiB",
        ]),
        "/nonexistent/belady",
    );
    assert_error(
        &belady(&["calibrate", "--dir", d, "--prefetch", "linux7"]),
        "unknown read-ahead engine",
    );
    // Nothing was left behind by the failures.
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    // A tmpfs keeps pages in memory: nothing to measure.
    if Path::new("/dev/shm").is_dir() {
        let out = belady(&["calibrate", "--dir", "/dev/shm", "--size", "16MiB"]);
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("tmpfs") {
            assert_error(&out, "no page-cache read-ahead");
        }
    }
}

#[test]
fn malformed_observations_name_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let tsv = tmp.path().join("observations.tsv");
    std::fs::write(
        &tsv,
        "# read_ahead_kb 8192\npattern\treads\tkernel_pages\tevents\nseq-4k\t600\tmany\tx.events\n",
    )
    .unwrap();
    let d = tmp.path().to_str().unwrap();
    assert_error(
        &belady(&["calibrate", "--from", d]),
        "observations.tsv line 3: kernel_pages 'many' is not a whole number",
    );
    std::fs::write(&tsv, "pattern\treads\tkernel_pages\tevents\nseq-4k\t600\n").unwrap();
    assert_error(
        &belady(&["calibrate", "--from", d]),
        "observations.tsv line 2: expected 4 tab-separated columns",
    );
}

/// Ctrl-C (SIGINT) while measuring removes the scratch file.
#[test]
fn interrupted_run_removes_the_scratch_file() {
    let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_belady"))
        .args(["calibrate", "--dir", tmp.path().to_str().unwrap()])
        .args(["--size", "64MiB", "--read-ahead-kb", "8192"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(20);
    while std::fs::read_dir(tmp.path()).unwrap().count() == 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        1,
        "no scratch file appeared"
    );
    let pid = child.id().to_string();
    let kill = Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(kill.success());
    let status = child.wait().unwrap();
    assert!(!status.success());
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "the scratch file was left behind"
    );
}
