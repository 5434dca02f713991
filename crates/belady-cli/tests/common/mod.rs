//! What the CLI's integration tests share: running the binary, checking its success or its
//! one-line failure, writing small inputs and finding the shared real traces.

// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the `belady` binary under test with `args`, capturing its output.
pub fn belady(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_belady"))
        .args(args)
        .output()
        .expect("run belady")
}

/// Asserts the run succeeded (showing its stderr otherwise); its stdout.
pub fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Asserts the run succeeded; its stdout parsed as JSON rows.
pub fn json_rows(out: &Output) -> Vec<serde_json::Value> {
    serde_json::from_str(&ok(out)).expect("JSON rows on stdout")
}

/// Asserts a clean failure: non-zero exit, one line on stderr containing `needle`, no panic;
/// the stderr.
pub fn assert_error(out: &Output, needle: &str) -> String {
    assert_error_all(out, &[needle])
}

/// Like `assert_error`, the line containing every one of `needles`.
pub fn assert_error_all(out: &Output, needles: &[&str]) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "succeeded unexpectedly: {err}");
    assert!(!err.contains("panicked"), "panicked: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
    for n in needles {
        assert!(err.contains(n), "expected '{n}' in: {err}");
    }
    err
}

/// `dir/name` as a string, for the command line.
pub fn path_in(dir: &Path, name: &str) -> String {
    dir.join(name).display().to_string()
}

/// Writes `text` to `dir/name`; the path.
pub fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// `rel` under the shared traces folder (BELADY_TRACES, else `../shared/traces` beside the
/// checkout), or `None` with a message when it is absent.
pub fn shared(rel: &str) -> Option<String> {
    let traces = std::env::var_os("BELADY_TRACES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces"));
    let path = traces.join(rel);
    if path.exists() {
        Some(path.display().to_string())
    } else {
        eprintln!("skipping: {} not found (set BELADY_TRACES)", path.display());
        None
    }
}

/// `belady sim -t TRACE -f FORMAT ARGS...`.
pub fn run_sim(trace: &str, format: &str, args: &[&str]) -> Output {
    belady(&[&["sim", "-t", trace, "-f", format], args].concat())
}

/// The multi-level module's hand-worked trace 0 1 2 0 1 3 2 0 (here ids 10 11 12 13), in `dir`.
pub fn hand_worked_levels_trace(dir: &Path) -> String {
    write(dir, "t.trace", "10\n11\n12\n10\n11\n13\n12\n10\n")
}

/// The file names in `dir`, sorted: what a failed run left behind.
pub fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A lirs trace of `n` references at `dir/name`: block `7 i mod 500`, so 500 distinct blocks
/// (7 and 500 are coprime) visited in a fixed cycle.
pub fn cycle_trace(dir: &Path, name: &str, n: usize) -> String {
    let text: String = (0..n).map(|i| format!("{}\n", (i * 7) % 500)).collect();
    write(dir, name, &text)
}
