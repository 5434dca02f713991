//! Regression tests for issue #27's "errors that say what is wrong": each a single line naming
//! the option, key, file and line the user gave.

mod common;

use common::*;

use std::path::Path;
use std::time::{Duration, Instant};

fn lirs(dir: &Path) -> String {
    write(
        dir,
        "t.lirs",
        &(0..200)
            .map(|i| format!("{}\n", i % 40))
            .collect::<String>(),
    )
}

#[test]
fn sizes_beyond_u64_are_too_large() {
    let dir = tempfile::tempdir().unwrap();
    let t = lirs(dir.path());
    for size in [
        "99999999999999999999999",
        "99999999999999999999999GiB",
        "20000000TiB",
    ] {
        let r = run_sim(&t, "lirs", &["-c", size]);
        let err = assert_error_all(&r, &["--cache-size", "too large"]);
        assert!(!err.contains("whole number"), "{err}");
    }
}

#[test]
fn a_bad_fbr_share_names_the_setting_given() {
    let dir = tempfile::tempdir().unwrap();
    let t = lirs(dir.path());
    // new + old > 1 with old at its default: the user wrote fbr.new, so that is named.
    let r = run_sim(
        &t,
        "lirs",
        &["-c", "10", "-p", "fbr", "--param", "fbr.new=0.99"],
    );
    let err = assert_error(&r, "fbr.new=0.99");
    assert!(!err.contains("fbr.old"), "{err}");
    let r = run_sim(
        &t,
        "lirs",
        &["-c", "10", "-p", "fbr", "--param", "fbr.old=0.9"],
    );
    assert_error(&r, "fbr.old=0.9");
}

#[test]
fn calibrate_size_speaks_of_scratch_file_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    for size in ["1000", "50%", "10x", ""] {
        let r = belady(&["calibrate", "--dir", &d, "--size", size]);
        let err = assert_error_all(&r, &["--size", "scratch file", "bytes"]);
        assert!(
            !err.contains("cache_size") && !err.contains("blocks"),
            "{err}"
        );
    }
    let r = belady(&[
        "calibrate",
        "--dir",
        &d,
        "--size",
        "99999999999999999999999GiB",
    ]);
    assert_error_all(&r, &["--size", "too large"]);
}

#[test]
fn convert_to_events_does_not_speak_of_read_ahead() {
    let dir = tempfile::tempdir().unwrap();
    let t = lirs(dir.path());
    let out = path_in(dir.path(), "o.events");
    let r = belady(&[
        "convert", "-t", &t, "-f", "lirs", "--to", "events", "-o", &out,
    ]);
    let err = assert_error_all(&r, &["--to events", "file-level"]);
    assert!(!err.contains("read-ahead"), "{err}");
}

#[test]
fn a_foreign_store_is_one_line_without_sql() {
    let dir = tempfile::tempdir().unwrap();
    let foreign = dir.path().join("f.sqlite");
    let db = rusqlite::Connection::open(&foreign).unwrap();
    db.execute_batch("CREATE TABLE runs (a INTEGER); INSERT INTO runs VALUES (1);")
        .unwrap();
    drop(db);
    let f = foreign.display().to_string();
    for args in [
        vec!["results", "export", "--store", &f],
        vec!["results", "export", "--store", &f, "--format", "json"],
    ] {
        let err = assert_error(&belady(&args), "is not a belady results store");
        assert!(!err.contains("SELECT") && !err.contains("offset"), "{err}");
    }
    let page = path_in(dir.path(), "r.html");
    let err = assert_error(
        &belady(&["report", "--store", &f, "-o", &page]),
        "is not a belady results store",
    );
    assert!(!err.contains("SELECT"), "{err}");
}

#[test]
fn deeply_nested_or_long_toml_errors_are_cut() {
    let dir = tempfile::tempdir().unwrap();
    let t = lirs(dir.path());
    let deep = format!("model = {}{}\n", "[".repeat(3000), "]".repeat(3000));
    let disk = write(dir.path(), "d.toml", &deep);
    let long = format!("policies = \"{}\"\n", "x".repeat(5000));
    let exp = write(dir.path(), "e.toml", &long);
    let nested = format!(
        "trace = \"{t}\"\ncache_sizes = [\"5\"]\npolicies = {}1{}\n",
        "[".repeat(60),
        "]".repeat(60)
    );
    let config = write(dir.path(), "c.toml", &nested);
    for (r, needle) in [
        (run_sim(&t, "lirs", &["-c", "5", "--disk", &disk]), "d.toml"),
        (belady(&["sweep", &exp]), "e.toml:1"),
        (belady(&["sim", "--config", &config]), "c.toml:3"),
    ] {
        let err = assert_error(&r, needle);
        assert!(err.len() < 400, "{} bytes: {err}", err.len());
    }
}

#[test]
fn threads_beyond_the_bound_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let t = lirs(dir.path());
    let start = Instant::now();
    for cmd in [
        vec![
            "sim",
            "-t",
            &t,
            "-f",
            "lirs",
            "-c",
            "5",
            "--threads",
            "100000",
        ],
        vec!["mrc", "-t", &t, "-f", "lirs", "--threads", "100000"],
        vec!["sim", "-t", &t, "-f", "lirs", "-c", "5", "--threads", "0"],
    ] {
        assert_error_all(&belady(&cmd), &["--threads", "1024"]);
    }
    let exp = write(
        dir.path(),
        "e.toml",
        &format!(
            "policies = [\"lru\"]\nsizes = [\"5\"]\n[[trace]]\npath = \"{t}\"\nformat = \"lirs\"\n"
        ),
    );
    let store = path_in(dir.path(), "s.sqlite");
    assert_error(
        &belady(&["sweep", &exp, "--store", &store, "--threads", "100000"]),
        "--threads",
    );
    assert!(
        !Path::new(&store).exists(),
        "refused before the store is made"
    );
    assert!(start.elapsed() < Duration::from_secs(20));
    ok(&run_sim(&t, "lirs", &["-c", "5", "--threads", "1024"]));
}

#[test]
fn csv_and_compressed_stream_errors_name_the_real_line() {
    let dir = tempfile::tempdir().unwrap();
    // Columns count from 1 in messages: the offset at index 0 is the first column.
    let csv = write(dir.path(), "c.csv", "1,2\n3,4\nx,5\n");
    let r = belady(&[
        "sim",
        "-t",
        &csv,
        "-f",
        "csv",
        "--columns",
        "offset=0:bytes,size=1",
        "-c",
        "5",
    ]);
    assert_error_all(&r, &["c.csv:3:", "column 1 (index 0 in --columns)"]);
    // A quoted field holding a line break: the bad record is on line 4 of the file.
    let csv = write(dir.path(), "q.csv", "1,2,x\n3,4,\"a\nb\"\ny,5,z\n");
    let r = belady(&[
        "sim",
        "-t",
        &csv,
        "-f",
        "csv",
        "--columns",
        "offset=0:bytes,size=1",
        "-c",
        "5",
    ]);
    assert_error(&r, "q.csv:4:");
    // A gzip stream cut short after 45,000-odd whole lines names how far it got, not line 0.
    let lines: String = (1..=100_000).map(|i| format!("{i}\n")).collect();
    let mut gz = flate_gzip(lines.as_bytes());
    gz.truncate(gz.len() / 2);
    for (name, format, extra) in [
        ("cut.lirs.gz", "lirs", vec![]),
        (
            "cut.csv.gz",
            "csv",
            vec!["--columns", "offset=0:bytes,size=0"],
        ),
    ] {
        let p = dir.path().join(name);
        std::fs::write(&p, &gz).unwrap();
        let p = p.display().to_string();
        let r = belady(&[&["sim", "-t", &p, "-f", format, "-c", "5"][..], &extra[..]].concat());
        let err = assert_error(&r, "(after line ");
        let n: u64 = err
            .split("(after line ")
            .nth(1)
            .and_then(|s| s.split(')').next())
            .and_then(|s| s.parse().ok())
            .unwrap();
        // What a decoder reads from the cut stream: every whole line before the cut.
        let whole = count_whole_lines(&gz);
        assert_eq!(n, whole, "{err}");
        assert!(n > 1000, "{err}");
    }
}

/// gzip of `data`, made by the system's gzip (the test crate has no compressor of its own).
fn flate_gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut child = std::process::Command::new("gzip")
        .arg("-c")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(data).unwrap();
    child.wait_with_output().unwrap().stdout
}

/// Newlines `gzip -dc` recovers from a damaged stream before it fails.
fn count_whole_lines(gz: &[u8]) -> u64 {
    use std::io::Write;
    let mut child = std::process::Command::new("gzip")
        .arg("-dc")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(gz).unwrap();
    let out = child.wait_with_output().unwrap().stdout;
    out.iter().filter(|&&b| b == b'\n').count() as u64
}

#[test]
fn a_json_config_error_names_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let t = lirs(dir.path());
    for (key, value) in [
        ("block_size", "\"abc\""),
        ("cache_sizes", "5"),
        ("read_ahead_kb", "-1"),
    ] {
        let mut text = format!("{{\"trace\": \"{t}\", \"cache_sizes\": [\"5\"]");
        if key == "cache_sizes" {
            text = format!("{{\"trace\": \"{t}\"");
        }
        text.push_str(&format!(", \"{key}\": {value}}}"));
        let config = write(dir.path(), "c.json", &text);
        assert_error(
            &belady(&["sim", "--config", &config]),
            &format!("key `{key}`"),
        );
    }
}
