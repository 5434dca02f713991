//! Regression tests for issue #19's defects: writers leave no partial output, `-o` cannot name an
//! input, huge cache sizes do not abort, `record` checks before running, messages name the right
//! thing and escape control bytes.

mod common;

use common::*;

use std::path::Path;
use std::process::Command;

#[test]
fn a_convert_that_fails_leaves_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let src = cycle_trace(dir.path(), "t.lirs", 200_000);
    let native = path_in(dir.path(), "t.bldy");
    ok(&belady(&[
        "convert", "-t", &src, "-f", "lirs", "-o", &native,
    ]));
    // Damage the checksum: every reference decodes, the failure comes only at the end.
    let mut bytes = std::fs::read(&native).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&native, bytes).unwrap();
    let before = names(dir.path());
    for to in ["lirs", "csv", "u32le", "native", "arc"] {
        let out = path_in(dir.path(), &format!("out.{to}"));
        let r = belady(&[
            "convert", "-t", &native, "-f", "native", "--to", to, "-o", &out,
        ]);
        assert_error(&r, "checksum mismatch");
        assert_eq!(names(dir.path()), before, "--to {to} left a file behind");
    }
    // A failure over an existing output keeps the old file as it was.
    let kept = dir.path().join("kept.lirs");
    std::fs::write(&kept, "1\n2\n").unwrap();
    let r = belady(&[
        "convert",
        "-t",
        &native,
        "-f",
        "native",
        "--to",
        "lirs",
        "-o",
        &kept.display().to_string(),
    ]);
    assert_error(&r, "checksum mismatch");
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "1\n2\n");
}

#[test]
fn output_naming_the_input_is_refused_and_the_input_kept() {
    let dir = tempfile::tempdir().unwrap();
    let src = cycle_trace(dir.path(), "t.lirs", 100);
    let original = std::fs::read(&src).unwrap();
    let link = dir.path().join("link.lirs");
    std::os::unix::fs::symlink(&src, &link).unwrap();
    let link = link.display().to_string();
    let b = cycle_trace(dir.path(), "b.lirs", 50);
    for out in [&src, &link] {
        for to in ["lirs", "native", "events"] {
            let r = belady(&["convert", "-t", &src, "-f", "lirs", "--to", to, "-o", out]);
            assert_error(&r, "is the input");
        }
        let r = belady(&["merge", &b, &src, "-f", "lirs", "--to", "lirs", "-o", out]);
        assert_error(&r, "is the input");
        assert_eq!(std::fs::read(&src).unwrap(), original);
    }
    let log = dir.path().join("s.log");
    std::fs::write(&log, "").unwrap();
    let log = log.display().to_string();
    let r = belady(&["record", "--from-strace", &log, "-o", &log]);
    assert_error(&r, "is the input");
}

#[test]
fn events_to_events_keeps_every_field() {
    let dir = tempfile::tempdir().unwrap();
    let text = "# belady file-level trace v1\nfile 1 8192 /d/a b\nopen 5 0 7 3 1\nread 12.500 1.500 7 3 1 0 4096\nread - 2 7 3 1 4096 4096\nclose 30 0 7 3 1\nexit 31 0 7\n";
    let src = dir.path().join("in.bev");
    std::fs::write(&src, text).unwrap();
    let out = dir.path().join("out.bev");
    ok(&belady(&[
        "convert",
        "-t",
        &src.display().to_string(),
        "-f",
        "events",
        "--to",
        "events",
        "-o",
        &out.display().to_string(),
    ]));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), text);
}

#[test]
fn events_redeclaring_a_file_or_reading_past_its_end_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bad = |name: &str, text: &str, needle: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        let r = belady(&[
            "sim",
            "-t",
            &p.display().to_string(),
            "-f",
            "events",
            "-c",
            "10",
        ]);
        assert_error(&r, needle);
    };
    bad(
        "redeclared.bev",
        "file 1 8192 /a\nopen - 0 1 3 1\nfile 1 8192 /b\nread - 0 1 3 1 0 10\n",
        ":3: file 1 was declared as '/a'",
    );
    bad(
        "past.bev",
        "file 1 100 /a\nopen - 0 1 3 1\nread - 0 1 3 1 50 100\n",
        ":3: read of bytes 50..150 goes past the end of file 1",
    );
    // A new size for the same file is how the writer records growth: still accepted.
    let p = dir.path().join("grown.bev");
    std::fs::write(
        &p,
        "file 1 100 /a\nopen - 0 1 3 1\nfile 1 200 /a\nread - 0 1 3 1 100 100\n",
    )
    .unwrap();
    ok(&belady(&[
        "sim",
        "-t",
        &p.display().to_string(),
        "-f",
        "events",
        "-c",
        "10",
    ]));
}

#[test]
fn huge_cache_sizes_are_sized_by_the_trace() {
    let dir = tempfile::tempdir().unwrap();
    let src = cycle_trace(dir.path(), "t.lirs", 1000);
    for size in ["4000000000", "100TiB"] {
        let out = ok(&run_sim(
            &src,
            "lirs",
            &["-p", "opt,lru,arc,lirs", "-c", size, "--json"],
        ));
        let rows: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
        // 1000 references cycling twice over 500 blocks: a cache holding the whole trace
        // misses only the 500 first touches, whatever the policy.
        assert_eq!(rows.len(), 4);
        for row in &rows {
            assert_eq!(row["misses"], 500, "{row}");
            assert_eq!(row["hits"], 500, "{row}");
        }
        let level = format!("client:opt:{size},storage:lru:{size}");
        ok(&run_sim(&src, "lirs", &["--levels", &level]));
        ok(&belady(&[
            "distances",
            "-t",
            &src,
            "-f",
            "lirs",
            "-c",
            size,
            "--client-policy",
            "opt",
        ]));
    }
}

#[test]
fn a_huge_clusterfetch_queue_does_not_abort() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/launch/gcc-headers.1.bev.gz");
    ok(&belady(&[
        "sim",
        "-t",
        &data.display().to_string(),
        "--prefetch",
        "linux26+clusterfetch",
        "--cf-queue",
        "4000000000",
        "-c",
        "100",
    ]));
}

#[test]
fn messages_name_the_right_option_and_cause() {
    let dir = tempfile::tempdir().unwrap();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/launch/gcc-headers.1.bev.gz");
    let data = data.display().to_string();
    let r = belady(&["sim", "-t", &data, "-c", "100", "--max-request", "0"]);
    assert_error(&r, "invalid --max-request '0'");
    let out = path_in(dir.path(), "o.accusim");
    let r = belady(&["convert", "-t", &data, "--to", "accusim", "-o", &out]);
    assert_error(
        &r,
        "the input must be --format accusim or accusim-text, not events",
    );
    assert!(!Path::new(&out).exists());
}

#[test]
fn control_bytes_from_input_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("evil.lirs");
    std::fs::write(&p, "1\n\x1b]0;pwned\x07\n").unwrap();
    let r = belady(&[
        "sim",
        "-t",
        &p.display().to_string(),
        "-f",
        "lirs",
        "-c",
        "2",
    ]);
    let err = assert_error(&r, "\\x1b]0;pwned\\x07");
    assert!(!err.trim_end().chars().any(char::is_control), "{err:?}");
}

/// Whether strace can trace here (it needs ptrace).
fn strace_works() -> bool {
    Command::new("strace")
        .args(["-f", "-o", "/dev/null", "--", "true"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn record_checks_its_output_before_running_and_keeps_the_exit_status() {
    if !strace_works() {
        eprintln!("skipped: strace cannot trace here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let missing = path_in(dir.path(), "no/such/dir/out.bev");
    let touch = format!("touch {}", marker.display());
    let r = belady(&["record", "-o", &missing, "--", "sh", "-c", &touch]);
    assert_error(&r, "out.bev");
    assert!(
        !marker.exists(),
        "the program ran although its output cannot be written"
    );

    let out = path_in(dir.path(), "o.bev");
    let r = belady(&["record", "-o", &out, "--", "/nonexistent/prog"]);
    assert_error(&r, "cannot run '/nonexistent/prog'");
    assert!(!Path::new(&out).exists());

    let r = belady(&[
        "record",
        "-o",
        &out,
        "--",
        "sh",
        "-c",
        "cat /etc/hostname >/dev/null; exit 3",
    ]);
    assert_eq!(
        r.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(String::from_utf8_lossy(&r.stderr).contains("exited with status 3"));
    assert!(Path::new(&out).exists(), "the trace is kept");
    // Nothing but the trace is left beside it (the strace log was a hidden temporary file).
    assert_eq!(names(dir.path()), vec!["o.bev".to_string()]);
}

/// Starts `belady args`, kills it with SIGKILL once `dir` holds a temporary output of at least
/// `bytes`, and returns the names left in `dir`.
fn killed_mid_write(args: &[&str], dir: &Path, bytes: u64) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_belady"))
        .args(args)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    loop {
        let big = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .any(|e| e.metadata().is_ok_and(|m| m.len() >= bytes));
        if big || start.elapsed() > std::time::Duration::from_secs(60) {
            break;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let _ = child.kill(); // SIGKILL: no destructor or handler runs
    let _ = child.wait();
    names(dir)
}

#[test]
fn kill_9_mid_write_leaves_no_complete_looking_output() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("w");
    std::fs::create_dir(&work).unwrap();
    let out = work.join("big.lirs").display().to_string();
    // 200 M references: far more than can be written before the kill.
    let left = killed_mid_write(
        &[
            "gen",
            "scan",
            "--requests",
            "200000000",
            "--to",
            "lirs",
            "-o",
            &out,
        ],
        &work,
        1 << 20,
    );
    assert!(
        !left.contains(&"big.lirs".to_string()),
        "a killed gen left its output: {left:?}"
    );
    // What may remain is the hidden temporary file, never the requested name.
    assert!(left.iter().all(|n| n.starts_with(".big.lirs.")), "{left:?}");
    for name in &left {
        std::fs::remove_file(work.join(name)).unwrap();
    }
    // The same for convert, from a large input.
    let src = cycle_trace(dir.path(), "src.lirs", 3_000_000);
    let out = work.join("copy.lirs").display().to_string();
    let left = killed_mid_write(
        &[
            "convert", "-t", &src, "-f", "lirs", "--to", "lirs", "-o", &out,
        ],
        &work,
        1 << 20,
    );
    assert!(
        !left.contains(&"copy.lirs".to_string()),
        "a killed convert left its output: {left:?}"
    );
}

#[test]
fn msr_extra_columns_are_accepted_and_ignored_as_documented() {
    // docs/limits.md: MSR reads its seven columns; more are accepted and not used.
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.csv");
    let extra = dir.path().join("extra.csv");
    std::fs::write(
        &plain,
        "128166385295514663,hm,0,Read,8192,8192,100\n128166385295514700,hm,0,Read,8192,4096,100\n",
    )
    .unwrap();
    std::fs::write(&extra, "128166385295514663,hm,0,Read,8192,8192,100,x,y\n128166385295514700,hm,0,Read,8192,4096,100,z\n").unwrap();
    let run = |p: &Path| {
        ok(&belady(&[
            "sim",
            "-t",
            &p.display().to_string(),
            "-f",
            "msr",
            "-c",
            "10",
            "--json",
        ]))
    };
    let rows = |s: String| -> Vec<(u64, u64)> {
        let v: Vec<serde_json::Value> = serde_json::from_str(&s).unwrap();
        v.iter()
            .map(|r| (r["requests"].as_u64().unwrap(), r["hits"].as_u64().unwrap()))
            .collect()
    };
    // 2 blocks, then 1 of them again: 3 references, 1 hit.
    assert_eq!(rows(run(&plain)), vec![(3, 1)]);
    assert_eq!(rows(run(&extra)), vec![(3, 1)]);
}

#[test]
fn record_stopped_by_sigterm_leaves_no_temporary_files() {
    if !strace_works() {
        eprintln!("skipped: strace cannot trace here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = path_in(dir.path(), "o.bev");
    let mut child = Command::new(env!("CARGO_BIN_EXE_belady"))
        .args(["record", "-o", &out, "--", "sleep", "5"])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until strace has started writing its log beside the output.
    let start = std::time::Instant::now();
    while !names(dir.path()).iter().any(|n| {
        n.ends_with(".strace.log") && dir.path().join(n).metadata().is_ok_and(|m| m.len() > 0)
    }) {
        assert!(start.elapsed().as_secs() < 20, "strace never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let pid = child.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let status = child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(15), "{status:?}");
    assert_eq!(
        names(dir.path()),
        Vec::<String>::new(),
        "temporary files left"
    );
}
