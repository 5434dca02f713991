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

/// Observations of the patterns issue 27 added (interleaved streams at four distances, random
/// 64 KiB reads in two hot regions), recorded by `belady calibrate --save` on Linux 6.18.44, ext4
/// on a virtio disk, read_ahead_kb 8192, 64 MiB scratch file, 2026-11-27 (first line of its
/// observations.tsv).
fn issue27_observations() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/calibrate-linux-6.18-ext4-interleaved")
}

/// Issue #18's held-out check, tightened by issue 27: linux6 within max(5%, 8 pages) of the
/// kernel's final residency on all 13 patterns; ondemand on random 4 KiB, random 64 KiB,
/// backward and stride 16.
#[test]
fn held_out_kernel_observations() {
    let dir = observations();
    let d = dir.to_str().unwrap();
    let linux6 = json_rows(&belady(&["calibrate", "--from", d, "--json"]));
    assert_eq!(linux6.len(), 13);
    assert_eq!(within(&linux6), 13, "{linux6:#?}");
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

/// Issue 27's held-out check: on the interleaved streams, whose foreign markers send the kernel's
/// hole scan across xarray nodes, linux6 lands within the bound on every pattern. Starting the
/// window one block past every hole (`miss + 1` for folios larger than a block, the rule before
/// issue 27) missed interleaved-40 by 2001 pages, interleaved-100 by 228, interleaved-700 by
/// 1152 and interleaved-2500 by 3396.
#[test]
fn held_out_interleaved_streams() {
    let dir = issue27_observations();
    let rows = json_rows(&belady(&[
        "calibrate",
        "--from",
        dir.to_str().unwrap(),
        "--json",
    ]));
    let names: Vec<_> = rows
        .iter()
        .map(|r| r["pattern"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "interleaved-40",
            "interleaved-100",
            "interleaved-700",
            "interleaved-2500",
            "hot-64k-256",
            "hot-64k-1024"
        ]
    );
    assert_eq!(within(&rows), rows.len(), "{rows:#?}");
    // The two streams 40 pages apart: the kernel's 4288 pages exactly.
    assert_eq!(row(&rows, "interleaved-40")["kernel_pages"], 4288);
    assert_eq!(row(&rows, "interleaved-40")["model_pages"], 4288);
}

/// Issue #18's live check, on the file system of the build directory: every pattern (the 13 of
/// issue 18 and the 6 of issue 27) and linux6 within the bound on all of them on Linux 6.18,
/// where the model was measured (on other kernels, on all but two). Skipped (with the reason printed) only where the file
/// system has no page-cache read-ahead to measure.
#[test]
fn live_kernel_matches_linux6() {
    let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let save = tmp.path().join("saved");
    let work = tmp.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let slack = if release.starts_with("6.18") { 0 } else { 2 };
    // The kernel's own count can move between runs when other work shares the page cache (the
    // suite runs tests in parallel): a second measurement is taken before the bound is judged.
    let mut rows = Vec::new();
    for _attempt in 0..2 {
        let _ = std::fs::remove_dir_all(&save);
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
        rows = json_rows(&out);
        assert_eq!(rows.len(), 19);
        if within(&rows) + slack >= rows.len() {
            break;
        }
    }
    assert!(within(&rows) + slack >= rows.len(), "{release}: {rows:#?}");
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
