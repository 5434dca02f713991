//! Regression tests for issue #27's "never lost or corrupted output": every writer goes through
//! the one atomic-output module (input refused, devices written in place, the umask's mode,
//! nothing left behind), `record` keeps its log apart from its trace and refuses what belady
//! cannot read, signals remove temporaries, and `calibrate` checks the room first.

mod common;

use common::*;

use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A private character device like /dev/null (major 1, minor 3) at `dir/name`, or `None` where
/// nodes cannot be made (not root). Tests never write to the system's /dev/null.
fn private_null(dir: &Path, name: &str) -> Option<String> {
    let node = path_in(dir, name);
    let made = Command::new("mknod")
        .args([&node, "c", "1", "3"])
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        eprintln!("skipping the device cases: mknod is not allowed here");
    }
    made.then_some(node)
}

fn is_char_device(path: &str) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_char_device())
}

/// `belady ARGS` under the umask `mask`.
fn with_umask(mask: &str, args: &[&str]) -> std::process::Output {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    Command::new("sh")
        .arg("-c")
        .arg(format!(
            "umask {mask}; exec '{}' {}",
            env!("CARGO_BIN_EXE_belady"),
            quoted.join(" ")
        ))
        .output()
        .unwrap()
}

#[test]
fn mrc_outputs_go_through_the_atomic_writer() {
    let dir = tempfile::tempdir().unwrap();
    let trace = cycle_trace(dir.path(), "t.lirs", 2000);
    let original = std::fs::read(&trace).unwrap();
    // The input is refused as -o and as --html, and kept.
    for flag in ["-o", "--html"] {
        let r = belady(&["mrc", "-t", &trace, "-f", "lirs", flag, &trace]);
        assert_error(&r, "is the input");
        assert_eq!(std::fs::read(&trace).unwrap(), original);
    }
    // The umask's mode, not 0600.
    for (mask, mode) in [("022", 0o644), ("077", 0o600), ("002", 0o664)] {
        let csv = path_in(dir.path(), &format!("m{mask}.csv"));
        let html = path_in(dir.path(), &format!("m{mask}.html"));
        ok(&with_umask(
            mask,
            &[
                "mrc", "-t", &trace, "-f", "lirs", "-o", &csv, "--html", &html,
            ],
        ));
        for out in [&csv, &html] {
            let got = std::fs::metadata(out).unwrap().permissions().mode() & 0o777;
            assert_eq!(got, mode, "{out} under umask {mask}");
        }
    }
    // A directory is refused before anything is written; nothing is left beside it.
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let before = names(dir.path());
    for flag in ["-o", "--html"] {
        let r = belady(&[
            "mrc",
            "-t",
            &trace,
            "-f",
            "lirs",
            flag,
            &sub.display().to_string(),
        ]);
        assert_error(&r, "is a directory");
        assert_eq!(names(dir.path()), before, "{flag} DIR left something");
        assert!(names(&sub).is_empty());
    }
    // A device is written through, never replaced by a regular file.
    if let Some(node) = private_null(dir.path(), "null") {
        for flag in ["-o", "--html"] {
            ok(&belady(&["mrc", "-t", &trace, "-f", "lirs", flag, &node]));
            assert!(is_char_device(&node), "mrc {flag} replaced the device");
        }
    }
}

#[test]
fn every_writer_writes_through_a_device_and_refuses_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let trace = cycle_trace(dir.path(), "t.lirs", 500);
    let native = path_in(dir.path(), "t.bt");
    ok(&belady(&[
        "convert", "-t", &trace, "-f", "lirs", "-o", &native,
    ]));
    let exp = write(
        dir.path(),
        "e.toml",
        &format!("policies = [\"lru\"]\nsizes = [\"10\"]\n[[trace]]\npath = \"{trace}\"\nformat = \"lirs\"\n"),
    );
    let store = path_in(dir.path(), "s.sqlite");
    ok(&belady(&["sweep", &exp, "--store", &store, "--quiet"]));
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let sub = sub.display().to_string();
    let node = private_null(dir.path(), "null");
    let writers = |out: &str| -> Vec<Vec<String>> {
        let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        vec![
            v(&["convert", "-t", &trace, "-f", "lirs", "-o", out]),
            v(&[
                "convert", "-t", &trace, "-f", "lirs", "--to", "csv", "-o", out,
            ]),
            v(&[
                "merge",
                &trace,
                &native,
                "-f",
                "lirs",
                "--format-b",
                "native",
                "-o",
                out,
            ]),
            v(&[
                "gen",
                "zipf",
                "--requests",
                "100",
                "--blocks",
                "50",
                "-o",
                out,
            ]),
            v(&["results", "export", "--store", &store, "-o", out]),
            v(&["report", "--store", &store, "-o", out]),
        ]
    };
    let before = names(dir.path());
    for args in writers(&sub) {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = belady(&a);
        assert_error(&r, "is a directory");
        assert_eq!(names(dir.path()), before, "{a:?} left something");
    }
    if let Some(node) = node {
        for args in writers(&node) {
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            ok(&belady(&a));
            assert!(is_char_device(&node), "{a:?} replaced the device");
        }
    }
}

#[test]
fn record_refuses_a_kept_log_that_is_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = path_in(dir.path(), "t.events");
    let dotted = format!("{}/./t.events", dir.path().display());
    // Whether the file exists or not, and however it is spelled.
    for keep in [&out, &dotted] {
        let r = belady(&["record", "-o", &out, "--keep-log", keep, "--", "true"]);
        assert_error_all(&r, &["--keep-log", "is the output"]);
        assert!(names(dir.path()).is_empty(), "nothing made");
    }
    std::fs::write(&out, "old").unwrap();
    let r = belady(&["record", "-o", &out, "--keep-log", &dotted, "--", "true"]);
    assert_error(&r, "is the output");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old");
}

/// Starts `args`, waits until its hidden temporary output appears in `dir`, sends `signal`,
/// and checks the process died of it leaving only `keep` in `dir`.
fn interrupt(dir: &Path, args: &[&str], signal: (&str, i32), keep: &[String]) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_belady"))
        .args(args)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let mut seen = false;
    while start.elapsed() < Duration::from_secs(60) {
        if names(dir)
            .iter()
            .any(|n| n.starts_with('.') && n.ends_with(".tmp"))
        {
            seen = true;
            break;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(seen, "{args:?}: no temporary appeared while it ran");
    let killed = Command::new("kill")
        .args(["-s", signal.0, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert_eq!(
        status.signal(),
        Some(signal.1),
        "{args:?} did not die of SIG{}",
        signal.0
    );
    let mut want = keep.to_vec();
    want.sort();
    assert_eq!(names(dir), want, "{args:?} after SIG{}", signal.0);
}

#[test]
fn signals_during_convert_and_merge_remove_their_temporaries() {
    let dir = tempfile::tempdir().unwrap();
    // Large enough that each run lasts well beyond the moment its temporary appears.
    let a = cycle_trace(dir.path(), "a.lirs", 1_500_000);
    let b = cycle_trace(dir.path(), "b.lirs", 1_500_000);
    let keep = vec!["a.lirs".to_string(), "b.lirs".to_string()];
    let out = path_in(dir.path(), "out");
    for signal in [("INT", 2), ("TERM", 15), ("HUP", 1)] {
        interrupt(
            dir.path(),
            &[
                "convert", "-t", &a, "-f", "lirs", "--to", "lirs", "-o", &out,
            ],
            signal,
            &keep,
        );
        interrupt(
            dir.path(),
            &["merge", &a, &b, "-f", "lirs", "--to", "lirs", "-o", &out],
            signal,
            &keep,
        );
    }
}

#[test]
fn record_refuses_at_record_time_what_belady_would_refuse_later() {
    let dir = tempfile::tempdir().unwrap();
    let data = write(dir.path(), "data.bin", &"x".repeat(8192));
    let open = format!(
        "100 1700000000.000001 openat(AT_FDCWD, \"{data}\", O_RDONLY) = 3<{data}> <0.000010>\n"
    );
    let bad_calls = [
        // An offset near 2^64.
        format!("100 1700000000.000100 pread64(3<{data}>, \"\", 4096, 18446744073709551000) = 4096 <0.000010>\n"),
        // A count of 2^63 - 1 bytes.
        format!("100 1700000000.000100 read(3<{data}>, \"\", 4096) = 9223372036854775807 <0.000010>\n"),
        // A seek to near 2^63, then a read there.
        format!("100 1700000000.000100 lseek(3<{data}>, 9223372036854775000, SEEK_SET) = 9223372036854775000 <0.000010>\n\
                 100 1700000000.000200 read(3<{data}>, \"\", 4096) = 4096 <0.000010>\n"),
    ];
    for (i, call) in bad_calls.iter().enumerate() {
        let log = write(dir.path(), &format!("s{i}.log"), &format!("{open}{call}"));
        let out = path_in(dir.path(), &format!("s{i}.events"));
        let r = belady(&["record", "--from-strace", &log, "-o", &out]);
        let err = assert_error(&r, &format!("s{i}.log:"));
        assert!(
            err.contains(":2:") || err.contains(":3:"),
            "names the strace line: {err}"
        );
        assert!(!Path::new(&out).exists(), "no trace written");
    }
    // A mapping larger than one request is recorded in pieces the reader accepts.
    let map = format!(
        "{open}100 1700000000.000100 mmap(NULL, 3221225472, PROT_READ, MAP_SHARED, 3<{data}>, 0) = 0x7f0000000000 <0.000010>\n"
    );
    let log = write(dir.path(), "map.log", &map);
    let out = path_in(dir.path(), "map.events");
    ok(&belady(&["record", "--from-strace", &log, "-o", &out]));
    ok(&belady(&["stats", "-t", &out, "-f", "events"]));
    // A byte that is not UTF-8 is named with its line.
    let mut bytes = open.into_bytes();
    bytes.extend_from_slice(b"100 1700000000.000100 read(3<\xff>, \"\", 4096) = 10 <0.000010>\n");
    let bad = dir.path().join("utf.log");
    std::fs::write(&bad, bytes).unwrap();
    let r = belady(&[
        "record",
        "--from-strace",
        &bad.display().to_string(),
        "-o",
        &path_in(dir.path(), "utf.events"),
    ]);
    assert_error_all(&r, &["utf.log:2:", "not UTF-8"]);
}

#[test]
fn calibrate_checks_the_free_space_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let start = Instant::now();
    // Far more than any test machine's disk: refused at once, nothing written. The file-size
    // limit (1 MiB) bounds what a regression could write, so it can never fill the disk.
    let r = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -f 2048; exec '{}' calibrate --dir '{d}' --size 1000000TiB --read-ahead-kb 128",
            env!("CARGO_BIN_EXE_belady")
        ))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr).into_owned();
    if err.contains("keeps file pages in memory") {
        eprintln!("skipping: the temporary directory is on tmpfs");
        return;
    }
    assert_error_all(&r, &["--size", "bytes free"]);
    assert!(start.elapsed() < Duration::from_secs(10));
    assert!(names(dir.path()).is_empty(), "no scratch file left");
}
