//! Long commands show a progress line on stderr when it is a terminal (here a pseudo-terminal),
//! and none when stderr is piped or `--quiet` is given; the result on stdout is the same.

mod common;
use common::*;

use std::fs::File;
use std::io::Read;
use std::os::fd::FromRawFd;
use std::process::{Command, Output, Stdio};

/// A LIRS trace of `n` references over 50,000 blocks, long enough to read for a while.
fn big_trace(dir: &std::path::Path, n: u64) -> String {
    let text: String = (0..n).map(|i| format!("{}\n", i * 7919 % 50_000)).collect();
    write(dir, "big.lirs", &text)
}

/// Runs belady with stderr on a new pseudo-terminal; (what the terminal showed, the output).
fn on_terminal(args: &[&str], after_ms: Option<&str>) -> (String, Output) {
    let (mut master, mut slave) = (0, 0);
    let size = libc::winsize {
        ws_row: 24,
        ws_col: 120,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two descriptors into the given integers; the name buffer is null.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened and are owned here alone.
    let (mut master, slave) = unsafe { (File::from_raw_fd(master), File::from_raw_fd(slave)) };
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_belady"));
    cmd.args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::from(slave));
    match after_ms {
        Some(ms) => cmd.env("BELADY_PROGRESS_AFTER_MS", ms),
        None => cmd.env_remove("BELADY_PROGRESS_AFTER_MS"),
    };
    let child = cmd.spawn().expect("run belady");
    drop(cmd); // closes this process's copy of the terminal's other end
    let reader = std::thread::spawn(move || {
        let mut shown = Vec::new();
        let mut buf = [0u8; 4096];
        // Ends with EIO once the child, the last holder of the other end, has exited.
        while let Ok(n) = master.read(&mut buf) {
            if n == 0 {
                break;
            }
            shown.extend_from_slice(&buf[..n]);
        }
        String::from_utf8_lossy(&shown).into_owned()
    });
    let out = child.wait_with_output().unwrap();
    (reader.join().unwrap(), out)
}

#[test]
fn a_terminal_sees_progress_and_the_output_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let t = big_trace(dir.path(), 150_000);
    let sim = ["sim", &t, "-p", "lru,arc,opt", "-c", "1%,10%", "--json"];
    let (shown, out) = on_terminal(&sim, Some("0"));
    let rows = json_rows(&out);
    assert!(
        shown.contains("belady sim: big.lirs (") && shown.contains(" read"),
        "no progress line on the terminal: {shown:?}"
    );
    // The line is cleared at the end: the last thing drawn is an erase.
    assert!(shown.trim_end().ends_with("\x1b[2K"), "{shown:?}");
    // Piped stderr: the same rows, and no progress on it.
    let mut piped = Command::new(env!("CARGO_BIN_EXE_belady"));
    let piped = piped
        .args(sim)
        .env("BELADY_PROGRESS_AFTER_MS", "0")
        .output()
        .unwrap();
    assert_eq!(json_rows(&piped), rows);
    assert!(
        piped.stderr.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&piped.stderr)
    );
}

#[test]
fn quiet_or_a_short_run_shows_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let t = big_trace(dir.path(), 150_000);
    let (shown, out) = on_terminal(&["sim", &t, "-c", "1%", "--quiet"], Some("0"));
    ok(&out);
    assert!(!shown.contains("belady sim"), "--quiet: {shown:?}");
    // Under the default two seconds, a small run shows nothing.
    let small = write(dir.path(), "small.lirs", "1\n2\n3\n1\n");
    let (shown, out) = on_terminal(&["sim", &small, "-c", "2"], None);
    ok(&out);
    assert!(!shown.contains("belady sim"), "a short run: {shown:?}");
}

#[test]
fn mrc_stats_and_convert_show_progress_too() {
    let dir = tempfile::tempdir().unwrap();
    let t = big_trace(dir.path(), 150_000);
    let native = path_in(dir.path(), "big.bel");
    for (name, args) in [
        ("mrc", vec!["mrc", &t, "-p", "lru,arc"]),
        ("stats", vec!["stats", &t]),
        ("convert", vec!["convert", &t, "-o", &native]),
    ] {
        let (shown, out) = on_terminal(&args, Some("0"));
        assert!(out.status.success(), "{name}: {shown}");
        assert!(
            shown.contains(&format!("belady {name}: big.lirs (")),
            "{name}: no progress line: {shown:?}"
        );
        if name == "convert" {
            // Its note comes after the cleared line, whole.
            let last = shown.rsplit("\x1b[2K").next().unwrap();
            assert!(last.contains("wrote "), "{shown:?}");
        }
        let (shown, out) = on_terminal(&[&args[..], &["--quiet"]].concat(), Some("0"));
        assert!(out.status.success(), "{name} --quiet: {shown}");
        assert!(
            !shown.contains(&format!("belady {name}:")),
            "{name} --quiet: {shown:?}"
        );
        let _ = std::fs::remove_file(&native);
    }
}
