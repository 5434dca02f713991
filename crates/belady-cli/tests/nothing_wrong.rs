//! Regression tests for issue #27's "never a silent wrong result": every format and path of one
//! trace gives the same numbers, limits reach every reader, empty samples and foreign stores are
//! refused, and a native file is reported by the path given with its recorded name escaped.

mod common;

use common::*;

use std::path::Path;
use std::process::Command;

/// `belady ARGS` reading `trace` through a pipe as `/dev/stdin` (a FIFO, never a regular file).
fn through_pipe(trace: &str, args: &[&str]) -> std::process::Output {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    Command::new("sh")
        .arg("-c")
        .arg(format!(
            "cat '{trace}' | '{}' {}",
            env!("CARGO_BIN_EXE_belady"),
            quoted.join(" ")
        ))
        .output()
        .unwrap()
}

/// The rows without the fields that name the input (`trace`, `format`), which differ by design.
fn numbers(rows: Vec<serde_json::Value>) -> Vec<serde_json::Value> {
    rows.into_iter()
        .map(|mut r| {
            let o = r.as_object_mut().unwrap();
            o.remove("trace");
            o.remove("format");
            r
        })
        .collect()
}

#[test]
fn a_timed_block_trace_gives_the_same_numbers_as_text_native_and_pipe() {
    let Some(msr) = shared("block-samples/msr-cambridge1-sample.csv") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let native = path_in(dir.path(), "msr.bt");
    ok(&belady(&[
        "convert", "-t", &msr, "-f", "msr", "-o", &native,
    ]));
    let run = [
        "-c",
        "100,400",
        "--prefetch",
        "linux6",
        "--disk",
        "hdd7200",
        "--json",
    ];
    let text = numbers(json_rows(&run_sim(&msr, "msr", &run)));
    let from_native = numbers(json_rows(&run_sim(&native, "native", &run)));
    let piped = numbers(json_rows(&through_pipe(
        &msr,
        &[&["sim", "-t", "/dev/stdin", "-f", "msr"], &run[..]].concat(),
    )));
    // The MSR sample spans about two minutes of think time: a run that dropped the times would
    // finish in well under a second of disk time alone.
    let exec = text[0]["exec_time_s"].as_f64().unwrap();
    let proc = text[0]["proc_time_s"].as_f64().unwrap();
    assert!(
        proc > 1.0,
        "the trace's think time is kept: proc {proc} s, exec {exec} s"
    );
    assert_eq!(text, from_native, "text and native differ");
    assert_eq!(text, piped, "text and pipe differ");
    // A sweep reads the trace by another path (loaded once for all its runs): the same numbers.
    let exp = write(
        dir.path(),
        "e.toml",
        &format!(
            "policies = [\"lru\"]\nsizes = [\"100\"]\nprefetch = [\"linux6\"]\ndisks = [\"hdd7200\"]\n\
             [[trace]]\npath = \"{msr}\"\nformat = \"msr\"\n[[trace]]\npath = \"{native}\"\nformat = \"native\"\n"
        ),
    );
    let store = path_in(dir.path(), "s.sqlite");
    ok(&belady(&["sweep", &exp, "--store", &store, "--quiet"]));
    let stored = json_rows(&belady(&[
        "results", "export", "--store", &store, "--format", "json",
    ]));
    assert_eq!(stored.len(), 2);
    for row in &stored {
        for key in ["hits", "exec_time_s", "proc_time_s", "prefetch_hits"] {
            assert_eq!(row[key], text[0][key], "sweep {key} of {}", row["trace"]);
        }
    }
}

#[test]
fn max_request_bytes_reaches_events_and_accusim_calls() {
    let dir = tempfile::tempdir().unwrap();
    // One 64 KiB read and one 64 KiB pread on a 200 KB file.
    let evt = write(
        dir.path(),
        "t.evt",
        "open 1 3 9 200000 f\nread 1 3 9 65536 10 200000\npread 1 3 9 0 65536 10 200000\n\
         close 1 3 9\nexit 1\n",
    );
    let events = path_in(dir.path(), "t.events");
    ok(&belady(&[
        "convert",
        "-t",
        &evt,
        "-f",
        "accusim-text",
        "--to",
        "events",
        "-o",
        &events,
    ]));
    for (trace, format, line) in [(&evt, "accusim-text", ":2:"), (&events, "events", ":4:")] {
        let limited = ["--max-request-bytes", "4096"];
        for cmd in [
            &["sim", "-c", "4"][..],
            &["sim", "-c", "4", "--prefetch", "linux6"],
            &["stats"],
        ] {
            let r = belady(&[cmd, &["-t", trace, "-f", format], &limited[..]].concat());
            assert_error_all(&r, &[line, "LEN 65536", "max_request_bytes"]);
            // Under the default limit the same trace runs.
            ok(&belady(&[cmd, &["-t", trace, "-f", format][..]].concat()));
        }
        let out = path_in(dir.path(), "out.events");
        let r = belady(&[
            "convert",
            "-t",
            trace,
            "-f",
            format,
            "--to",
            "events",
            "-o",
            &out,
            "--max-request-bytes",
            "4096",
        ]);
        assert_error(&r, "LEN 65536");
        assert!(!Path::new(&out).exists());
    }
}

#[test]
fn stats_refuses_a_sample_that_kept_nothing_as_mrc_does() {
    let dir = tempfile::tempdir().unwrap();
    let ids: String = (0..1000).map(|i| format!("{i}\n")).collect();
    let trace = write(dir.path(), "t.lirs", &ids);
    let mrc = belady(&["mrc", "-t", &trace, "-f", "lirs", "--sample-rate", "1e-20"]);
    let stats = belady(&[
        "stats",
        "-t",
        &trace,
        "-f",
        "lirs",
        "--sample-rate",
        "1e-20",
    ]);
    let m = assert_error(&mrc, "no block of");
    let s = assert_error(&stats, "no block of");
    assert_eq!(m, s, "one check, one message");
    // Rates out of range are refused alike too.
    for rate in ["0", "1.5", "NaN"] {
        let m = assert_error(
            &belady(&["mrc", "-t", &trace, "-f", "lirs", "--sample-rate", rate]),
            "--sample-rate",
        );
        let s = assert_error(
            &belady(&["stats", "-t", &trace, "-f", "lirs", "--sample-rate", rate]),
            "--sample-rate",
        );
        assert_eq!(m, s);
    }
    // A rate that keeps blocks still reports.
    ok(&belady(&[
        "stats",
        "-t",
        &trace,
        "-f",
        "lirs",
        "--sample-rate",
        "0.5",
    ]));
}

#[test]
fn results_export_refuses_a_file_that_is_not_a_store_and_leaves_it_alone() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "empty.sqlite", "");
    let text = write(dir.path(), "text.sqlite", "hello\n");
    // A store cut short: the first page of a real one.
    let trace = write(
        dir.path(),
        "t.lirs",
        &(0..300)
            .map(|i| format!("{}\n", i % 50))
            .collect::<String>(),
    );
    let exp = write(
        dir.path(),
        "e.toml",
        &format!("policies = [\"lru\"]\nsizes = [\"10\"]\n[[trace]]\npath = \"{trace}\"\nformat = \"lirs\"\n"),
    );
    let store = path_in(dir.path(), "s.sqlite");
    ok(&belady(&["sweep", &exp, "--store", &store, "--quiet"]));
    let bytes = std::fs::read(&store).unwrap();
    let cut = dir.path().join("cut.sqlite");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let cut = cut.display().to_string();
    let cases = [
        (&empty, "not an SQLite database"),
        (&text, "not an SQLite database"),
        (&cut, "is not a usable belady results store"),
    ];
    for (file, why) in cases {
        let before = std::fs::read(file).unwrap();
        for format in ["csv", "json"] {
            let r = belady(&["results", "export", "--store", file, "--format", format]);
            assert_error(&r, why);
            assert!(r.stdout.is_empty(), "nothing printed as if exported");
        }
        let page = path_in(dir.path(), "r.html");
        assert_error(&belady(&["report", "--store", file, "-o", &page]), why);
        assert!(!Path::new(&page).exists());
        assert_eq!(std::fs::read(file).unwrap(), before, "{file} changed");
    }
    // The real store still exports.
    ok(&belady(&["results", "export", "--store", &store]));
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("empty") || n.starts_with("text") || n.starts_with("cut"))
        .collect();
    assert_eq!(
        names.len(),
        3,
        "no journal or WAL beside a refused file: {names:?}"
    );
}

#[test]
fn a_native_file_is_reported_by_the_path_given_and_names_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    // A trace whose own name holds a terminal escape: converted, the name is recorded inside.
    let evil = dir.path().join("evil\u{1b}]0;pwned\u{7}.lirs");
    std::fs::write(
        &evil,
        (0..50).map(|i| format!("{}\n", i % 20)).collect::<String>(),
    )
    .unwrap();
    let evil = evil.display().to_string();
    let native = path_in(dir.path(), "n.bt");
    ok(&belady(&[
        "convert", "-t", &evil, "-f", "lirs", "-o", &native,
    ]));
    let rows = json_rows(&run_sim(&native, "native", &["-c", "5", "--json"]));
    assert_eq!(
        rows[0]["trace"],
        native.as_str(),
        "the path given, not the recorded name"
    );
    let table = ok(&run_sim(&native, "native", &["-c", "5"]));
    assert!(table.starts_with(&format!("trace {native} ")), "{table}");
    // A name given with control bytes is printed escaped, never raw.
    for out in [
        run_sim(&evil, "lirs", &["-c", "5"]),
        belady(&["stats", "-t", &evil, "-f", "lirs"]),
    ] {
        let text = ok(&out);
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{text:?}"
        );
        assert!(text.contains("\\x1b]0;pwned\\x07"), "{text:?}");
    }
}

#[test]
fn disk_utilization_never_exceeds_one_when_read_ahead_outlasts_the_run() {
    let Some(cs) = shared("lirs/cs.trace.gz") else {
        return;
    };
    // On cs at 10 % with linux6, read-ahead issued near the end keeps the disk busy past the last
    // reference: busy time (6.06 s) exceeded run time (6.02 s) and the ratio printed was 1.0067.
    let rows = json_rows(&run_sim(
        &cs,
        "lirs",
        &[
            "-p",
            "lru",
            "-c",
            "10%",
            "--prefetch",
            "linux6",
            "--disk",
            "cheetah9lp",
            "--json",
        ],
    ));
    let row = &rows[0];
    let busy = row["disk_busy_s"].as_f64().unwrap();
    let exec = row["exec_time_s"].as_f64().unwrap();
    let utilization = row["disk_utilization"].as_f64().unwrap();
    assert!(busy > 0.0 && exec > 0.0, "{row}");
    assert!(
        utilization <= 1.0,
        "utilization {utilization} above 1: {row}"
    );
    if busy <= exec {
        assert!((utilization - busy / exec).abs() < 1e-9, "{row}");
    }
}
