//! Bad input to the `belady` binary: one-line errors naming the file, line or option, no panic.

mod common;

use common::*;
use std::process::Output;

#[test]
fn malformed_line_names_file_line_and_expectation() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(dir.path(), "bad.trace", "1\n2\nthree\n");
    assert_error(
        &run_sim(&t, "lirs", &["-c", "2"]),
        "bad.trace:3: expected a block number or '*', found 'three'",
    );
    let a = write(dir.path(), "bad.lis", "1 1 0 0\n5 x 0 1\n");
    assert_error(
        &run_sim(&a, "arc", &["-c", "2"]),
        "bad.lis:2: expected 'start_block num_blocks ignore request_no'",
    );
}

#[test]
fn unknown_format_policy_and_size_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(dir.path(), "t.trace", "1\n");
    assert_error(
        &run_sim(&t, "parquet", &["-c", "2"]),
        "unknown trace format",
    );
    assert_error(
        &run_sim(&t, "lirs", &["-c", "0"]),
        "invalid --cache-size '0'",
    );
    assert_error(
        &run_sim(&t, "lirs", &["-c", "2", "-p", "lru,zzz"]),
        "unknown policy",
    );
    assert_error(
        &run_sim(&t, "lirs", &["-c", "1KiB", "--block-size", "4096"]),
        "less than one block",
    );
    assert_error(&run_sim(&t, "csv", &["-c", "2"]), "csv needs --columns");
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
        &run_sim(&empty, "lirs", &["-c", "2"]),
        "empty.trace: trace holds no read requests",
    );
    let writes_only = write(dir.path(), "w.csv", "0,4096,W\n");
    assert_error(
        &run_sim(
            &writes_only,
            "csv",
            &["--columns", "offset=0,size=1,op=2", "-c", "2"],
        ),
        "trace holds no read requests",
    );
    let missing = path_in(dir.path(), "nope.trace");
    let out = run_sim(&missing, "lirs", &["-c", "2"]);
    assert_error(&out, "nope.trace: No such file");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("No such file").count(), 1, "said twice: {err}");
    let a_dir = dir.path().display().to_string();
    assert_error(&run_sim(&a_dir, "lirs", &["-c", "2"]), &a_dir);
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
        let rows = json_rows(out);
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
fn gen_errors_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = path_in(dir.path(), "x");
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
fn bad_levels_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(dir.path(), "t.trace", "1\n2\n1\n");
    for (levels, needle) in [
        ("client:lru:2,storage:lru", "NAME:POLICY:SIZE"),
        ("client:lru:2,storage:lru:2:sideways", "expected access"),
        ("client:lru:2,storage:opt:2", "client level only"),
    ] {
        let out = run_sim(&t, "lirs", &["--levels", levels]);
        assert_error(&out, needle);
    }
    let out = run_sim(
        &t,
        "lirs",
        &["--levels", "c:lru:2,s:lru:2", "--placement", "later"],
    );
    assert_error(&out, "--placement");
}
