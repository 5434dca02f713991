//! Inputs that must end, and end cleanly: endless lines, huge requests, traces through pipes.

mod common;

use common::*;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs belady under a 4 GiB address-space limit, killing it after `secs` seconds.
fn belady_bounded(args: &[&str], secs: u64) -> (Output, Duration) {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("ulimit -v 4194304; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_belady"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd.spawn().expect("run belady");
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(secs) {
            child.kill().unwrap();
            let out = child.wait_with_output().unwrap();
            panic!(
                "belady {args:?} still ran after {secs} s: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    (child.wait_with_output().unwrap(), start.elapsed())
}

#[test]
fn an_endless_line_ends_in_an_error_naming_it() {
    for format in ["lirs", "arc", "msr"] {
        let (out, took) = belady_bounded(
            &[
                "sim",
                "-t",
                "/dev/zero",
                "-f",
                format,
                "-p",
                "lru",
                "-c",
                "10",
            ],
            15,
        );
        assert_error(&out, "1 has no line break within 1048576 bytes");
        assert!(took < Duration::from_secs(15));
    }
}

#[test]
fn a_huge_request_is_refused_naming_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let msr = dir.path().join("t.csv");
    std::fs::write(
        &msr,
        "128166372003061629,wdev,0,Read,0,12288,100\n128166372003061630,wdev,0,Read,0,1099511627776,100\n",
    )
    .unwrap();
    let msr = msr.display().to_string();
    let (out, _) = belady_bounded(
        &["sim", "-t", &msr, "-f", "msr", "-p", "lru", "-c", "10"],
        15,
    );
    assert_error(&out, ":2: a request of 268435456 blocks");
    // The limit is configurable: a small one refuses even the first line.
    let (out, _) = belady_bounded(
        &[
            "sim",
            "-t",
            &msr,
            "-f",
            "msr",
            "-p",
            "lru",
            "-c",
            "10",
            "--max-request-bytes",
            "1024",
        ],
        15,
    );
    assert_error(&out, ":1: a request of 3 blocks");

    let events = dir.path().join("t.bev");
    std::fs::write(
        &events,
        "# belady file-level trace v1\nfile 1 4096 /a\nread - 0 1 3 1 0 1099511627776\n",
    )
    .unwrap();
    let events = events.display().to_string();
    let (out, _) = belady_bounded(&["sim", "-t", &events, "-p", "lru", "-c", "10"], 15);
    assert_error(&out, ":3: LEN 1099511627776 is above the limit");
}

/// Writes `bytes` into a new FIFO at `path` from a thread, once a reader opens it.
fn feed_fifo(path: &Path, bytes: Vec<u8>) -> std::thread::JoinHandle<()> {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success());
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        use std::io::Write;
        // The reader may close early (an error); a broken pipe is then expected.
        if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&path) {
            let _ = f.write_all(&bytes);
        }
    })
}

#[test]
fn traces_through_a_fifo_are_detected_and_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("t.trace");
    std::fs::write(&text, "1\n2\n1\n3\n*\n1\n").unwrap();
    let native = dir.path().join("t.bldy");
    let out = Command::new(env!("CARGO_BIN_EXE_belady"))
        .args(["convert", "-t"])
        .arg(&text)
        .args(["-f", "lirs", "-o"])
        .arg(&native)
        .output()
        .unwrap();
    ok(&out);
    for (name, bytes) in [
        ("native-fifo", std::fs::read(&native).unwrap()),
        ("text-fifo", std::fs::read(&text).unwrap()),
    ] {
        let fifo = dir.path().join(name);
        let writer = feed_fifo(&fifo, bytes);
        let fifo = fifo.display().to_string();
        let (out, _) = belady_bounded(&["sim", "-t", &fifo, "-p", "lru", "-c", "2", "--json"], 15);
        writer.join().unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(rows[0]["requests"], 5, "{name}");
        assert_eq!(rows[0]["hits"], 2, "{name}");
    }
}
