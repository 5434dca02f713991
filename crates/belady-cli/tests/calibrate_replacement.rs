//! `belady calibrate replacement`: the `linux` model against the kernel's runs saved on Linux
//! 6.18 (the fixture, no root needed), against the running kernel (root only, skipped with its
//! reason elsewhere), cleanup on stop signals, and the one-line refusals.

mod common;

use common::*;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The live tests measure the page cache: one at a time.
static LIVE: Mutex<()> = Mutex::new(());

/// The kernel's runs saved on this project's machine (Linux 6.18.44, ext4 on a virtio disk, memory
/// cgroup v1, fresh statistics, 2026-11-29; the first line of its replacement.tsv says so) by
/// `belady calibrate replacement --dir /var/tmp/... --size 640MiB --save DIR`: the eight default
/// patterns, seed 1, at 16 and 32 MiB (`--runs 3`) and at 128 MiB (`--runs 2`, in two processes of
/// four patterns each), the three files concatenated.
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/calibrate-replacement-linux-6.18-ext4")
}

fn report(out: &std::process::Output) -> Value {
    serde_json::from_str(&ok(out)).expect("a JSON report")
}

fn rows(report: &Value) -> &Vec<Value> {
    report["rows"].as_array().expect("rows")
}

fn model<'a>(row: &'a Value, policy: &str) -> &'a Value {
    row["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["policy"] == policy)
        .unwrap_or_else(|| panic!("no {policy} in {row:#?}"))
}

/// Issue 36's check on the saved runs: `linux` within max(2%, 60 misses) of the kernel's mean on
/// every pattern at 16 and 32 MiB and within 3% at 128 MiB, and closer than LRU wherever the two
/// lists matter. (Issue 36 measured the page-by-page model before it +10 to +12% off on half-page
/// reads and up to 10% off where a hot set fills 0.6 of the cache.)
#[test]
fn linux_follows_the_kernel_on_the_saved_runs() {
    let dir = fixture();
    let out = belady(&[
        "calibrate",
        "replacement",
        "--from",
        dir.to_str().unwrap(),
        "--json",
    ]);
    let report = report(&out);
    // The saved kernel had no MGLRU: linux is checked wherever the runs are read back.
    assert_eq!(report["checked"], "linux");
    assert!(
        report["mglru"]
            .as_str()
            .unwrap()
            .starts_with("not checked: the kernel measured has no /sys/kernel/mm/lru_gen"),
        "{}",
        report["mglru"]
    );
    assert_eq!(report["setting"]["statistics"], "fresh");
    let rows = rows(&report);
    assert_eq!(rows.len(), 24, "8 patterns at 3 limits");
    for r in rows {
        let linux = model(r, "linux");
        let runs = if r["limit_bytes"] == 128u64 << 20 {
            2
        } else {
            3
        };
        assert_eq!(r["runs"].as_array().unwrap().len(), runs);
        assert_eq!(
            r["within_bound"], true,
            "{} at {}: kernel {} linux {}",
            r["pattern"], r["limit_bytes"], r["kernel_misses_mean"], linux["misses"]
        );
        if r["two_lists_matter"] == true {
            assert_eq!(r["closer_than_lru"], true, "{r:#?}");
        }
    }
    // The table says the same, in one summary line.
    let table = ok(&belady(&[
        "calibrate",
        "replacement",
        "--from",
        dir.to_str().unwrap(),
    ]));
    assert!(
        table.contains("on 24 of 24 rows; closer than lru on 12 of 12"),
        "{table}"
    );
}

/// The memory cgroup directories a run of process `pid` could have left: `belady-calibrate-PID-*`
/// under the cgroup v1 memory hierarchy (its root and this process's cgroup) or cgroup v2's root.
fn leftover_cgroups(pid: u32) -> Vec<PathBuf> {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let mut dirs = Vec::new();
    for line in mountinfo.lines() {
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        let mount = PathBuf::from(left.split(' ').nth(4).unwrap_or("/"));
        if right.starts_with("cgroup2 ")
            || (right.starts_with("cgroup ") && right.contains("memory"))
        {
            dirs.push(mount.clone());
            for l in own.lines() {
                if let Some(p) = l.rsplit(':').next() {
                    dirs.push(mount.join(p.trim_start_matches('/')));
                }
            }
        }
    }
    let prefix = format!("belady-calibrate-{pid}-");
    dirs.iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect()
}

/// Whether a refusal says the kernel cannot be measured here (printed as the skip reason).
fn cannot_measure(err: &str) -> bool {
    [
        "needs root",
        "no memory cgroup",
        "global memory pressure",
        "keeps file pages in memory",
        "free on",
    ]
    .iter()
    .any(|s| err.contains(s))
}

/// Issue 36's live check, as a user runs it: two held-out patterns (parameters and a seed that
/// are not in the fixture) at 16 MiB, linux within the bound; nothing left behind; the saved runs
/// replay with --from to the same rows. Root only; skipped with the reason where the kernel
/// cannot be measured.
#[test]
fn live_kernel_matches_linux() {
    let _serial = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let work = tmp.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let save = tmp.path().join("saved");
    // The kernel's count can move when other work presses on memory: one more measurement
    // before the bound is judged.
    let mut report = Value::Null;
    for _attempt in 0..2 {
        let _ = std::fs::remove_dir_all(&save);
        let child = Command::new(env!("CARGO_BIN_EXE_belady"))
            .args(["calibrate", "replacement", "--dir", work.to_str().unwrap()])
            .args(["--limits", "16MiB", "--runs", "2", "--seed", "11"])
            .args(["--pattern", "scan-hot:hot=0.6,share=0.4,length=8"])
            .args(["--pattern", "half:hot=0.3,share=0.6,length=4"])
            .args(["--json", "--save", save.to_str().unwrap()])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        let out = child.wait_with_output().unwrap();
        assert!(leftover_cgroups(pid).is_empty(), "a cgroup was left behind");
        assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0, "files left");
        let err = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() && cannot_measure(&err) {
            println!("skipped: {}", err.trim());
            return;
        }
        report = serde_json::from_str(&ok(&out)).unwrap();
        if rows(&report).iter().all(|r| r["within_bound"] == true) {
            break;
        }
    }
    assert!(report["cgroups"].as_str().unwrap().starts_with("cgroup v"));
    // A kernel running MGLRU is compared with `mglru`, which has never been calibrated against
    // one: its rows are reported, the bound is asserted for `linux` only.
    let bounded = report["checked"] == "linux";
    if !bounded {
        println!("mglru checked, bound not asserted: {}", report["rows"]);
    }
    for r in rows(&report) {
        assert!(!bounded || r["within_bound"] == true, "{r:#?}");
        assert!(r["held_pages"].as_f64().unwrap() > 3500.0, "{r:#?}");
    }
    // --from on what was saved gives the same rows.
    let again = report_from(&save);
    assert_eq!(rows(&again), rows(&report));
}

fn report_from(dir: &Path) -> Value {
    report(&belady(&[
        "calibrate",
        "replacement",
        "--from",
        dir.to_str().unwrap(),
        "--json",
    ]))
}

/// Ctrl-C (SIGINT) or SIGTERM while measuring: the reader is killed, its cgroup removed, the
/// scratch file deleted, and the signal ends the process.
#[test]
fn stop_signals_leave_no_cgroup_file_or_process() {
    let _serial = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    for (signal, code) in [("-INT", 130), ("-TERM", 143)] {
        let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_belady"))
            .args([
                "calibrate",
                "replacement",
                "--dir",
                tmp.path().to_str().unwrap(),
            ])
            .args(["--limits", "16MiB", "--pattern", "zipf", "--runs", "1"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        let until = Instant::now() + Duration::from_secs(60);
        while leftover_cgroups(pid).is_empty() && Instant::now() < until {
            if let Some(status) = child.try_wait().unwrap() {
                let mut err = String::new();
                use std::io::Read;
                child
                    .stderr
                    .take()
                    .unwrap()
                    .read_to_string(&mut err)
                    .unwrap();
                assert!(!status.success(), "finished before it was stopped");
                assert!(cannot_measure(&err), "{err}");
                println!("skipped: {}", err.trim());
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let cgroups = leftover_cgroups(pid);
        assert_eq!(cgroups.len(), 1, "no cgroup appeared");
        // Let the reader start in it.
        std::thread::sleep(Duration::from_millis(500));
        let procs = std::fs::read_to_string(cgroups[0].join("cgroup.procs")).unwrap_or_default();
        assert!(Command::new("kill")
            .args([signal, &pid.to_string()])
            .status()
            .unwrap()
            .success());
        let status = child.wait().unwrap();
        assert_eq!(
            std::os::unix::process::ExitStatusExt::into_raw(status) & 0x7f,
            code - 128,
            "ended by the signal"
        );
        assert!(leftover_cgroups(pid).is_empty(), "{signal}: cgroup left");
        assert_eq!(
            std::fs::read_dir(tmp.path()).unwrap().count(),
            0,
            "{signal}: scratch file left"
        );
        for reader in procs.split_whitespace() {
            assert!(
                !Path::new("/proc").join(reader).exists(),
                "{signal}: reader {reader} still running"
            );
        }
    }
}

#[test]
fn refusals_and_bad_input_are_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["calibrate", "replacement", "--dir", d];
        args.extend_from_slice(extra);
        belady(&args)
    };
    assert_error(
        &run(&["--limits", "1MiB"]),
        "invalid --limits '1MiB': at least 4MiB",
    );
    assert_error(&run(&["--pattern", "lopp"]), "unknown pattern 'lopp'");
    assert_error(
        &run(&["--pattern", "zipf:universe=9", "--size", "64MiB"]),
        "needs 36864 pages at this limit, the scratch file holds 16384",
    );
    assert_error(&run(&["--runs", "0"]), "invalid --runs 0");
    // Nothing was created by the refusals.
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    // --from: a missing directory and a malformed file name the file and line.
    assert_error(
        &run(&["--from", "/nonexistent/belady"]),
        "/nonexistent/belady",
    );
    write(
        tmp.path(),
        "replacement.tsv",
        "# belady calibrate replacement: kernel x, file system ext4, statistics fresh, lru_gen absent, page 4096, file 67108864 bytes, now\n\
         loop:size=1.1,passes=8\t1\t16777216\t1\t36044\tmany\t4000\t4050\t1.0\t0\n",
    );
    assert_error(
        &run(&["--from", d]),
        "replacement.tsv line 2: misses 'many' is not a whole number",
    );
    write(
        tmp.path(),
        "replacement.tsv",
        "# belady calibrate replacement: kernel x, file system ext4, statistics fresh, page 4096, file 67108864 bytes, now\n",
    );
    assert_error(
        &run(&["--from", d]),
        "replacement.tsv line 1: the line does not say whether the kernel ran MGLRU",
    );
    std::fs::remove_file(tmp.path().join("replacement.tsv")).unwrap();
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        assert_error(&run(&["--limits", "16MiB"]), "needs root");
        return;
    }
    // A tmpfs keeps its pages in memory: nothing to replace.
    if Path::new("/dev/shm").is_dir() {
        let out = belady(&["calibrate", "replacement", "--dir", "/dev/shm"]);
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("tmpfs") {
            assert_error(&out, "keeps file pages in memory");
        }
    }
    // As another user: refused before anything is created.
    if Path::new("/usr/bin/setpriv").exists() {
        let out = Command::new("/usr/bin/setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_belady"))
            .args(["calibrate", "replacement", "--dir", "/tmp"])
            .output()
            .unwrap();
        assert_error(&out, "needs root: it creates memory cgroups");
    }
}
