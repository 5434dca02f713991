//! One CLI convention (issue 21, item 5): a trace is given positionally or as `--trace` to every
//! command that reads one; unknown names get a suggestion; errors quote what the user typed.

use std::path::Path;
mod common;
use common::{belady, ok};

/// `belady ARGS`, which must succeed; its stdout.
fn stdout_of(args: &[&str]) -> String {
    ok(&belady(args))
}

/// A failure without a panic whose standard error holds every one of `needles`.
fn assert_fails_with(args: &[&str], needles: &[&str]) -> String {
    let out = belady(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{args:?} succeeded: {err}");
    assert!(!err.contains("panicked"), "panicked: {err}");
    for needle in needles {
        assert!(err.contains(needle), "expected '{needle}' in: {err}");
    }
    err
}

/// A LIRS trace with reuse: a hot set of 5 blocks interleaved with a loop over 53.
fn lirs_trace(dir: &Path) -> String {
    let text: String = (0..400u32)
        .map(|i| {
            let block = if i % 2 == 0 {
                i % 5
            } else {
                100 + (i * 7) % 53
            };
            format!("{block}\n")
        })
        .collect();
    let path = dir.join("t.trace");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn every_single_trace_command_takes_the_trace_positionally_and_as_an_option() {
    let dir = tempfile::tempdir().unwrap();
    let t = lirs_trace(dir.path());
    for rest in [
        &["sim", "-c", "10,40", "--json"][..],
        &["stats", "--json"],
        &["distances", "-c", "10", "--json"],
    ] {
        let (cmd, opts) = rest.split_first().unwrap();
        let positional: Vec<&str> = [*cmd, t.as_str()].iter().chain(opts).copied().collect();
        let long: Vec<&str> = [*cmd, "--trace", t.as_str()]
            .iter()
            .chain(opts)
            .copied()
            .collect();
        let short: Vec<&str> = [*cmd, "-t", t.as_str()]
            .iter()
            .chain(opts)
            .copied()
            .collect();
        let want = stdout_of(&positional);
        assert!(!want.is_empty(), "{cmd} printed nothing");
        assert_eq!(stdout_of(&long), want, "{cmd} --trace");
        assert_eq!(stdout_of(&short), want, "{cmd} -t");
        // Both at once is a mistake, not a silent choice; neither names the two ways.
        let both: Vec<&str> = [*cmd, t.as_str(), "--trace", t.as_str()]
            .iter()
            .chain(opts)
            .copied()
            .collect();
        assert_fails_with(&both, &["cannot be used with"]);
        let neither: Vec<&str> = std::iter::once(*cmd).chain(opts.iter().copied()).collect();
        assert_fails_with(&neither, &["TRACE|--trace <TRACE>"]);
    }
    // convert writes a file: the same bytes either way.
    let (a, b) = (dir.path().join("a.u32"), dir.path().join("b.u32"));
    let (a_s, b_s) = (a.display().to_string(), b.display().to_string());
    stdout_of(&["convert", &t, "--to", "u32le", "-o", &a_s]);
    stdout_of(&["convert", "--trace", &t, "--to", "u32le", "-o", &b_s]);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert_eq!(std::fs::read(&a).unwrap().len(), 400 * 4);
}

#[test]
fn unknown_names_get_a_suggestion_and_quote_what_was_typed() {
    let dir = tempfile::tempdir().unwrap();
    let t = lirs_trace(dir.path());
    assert_fails_with(
        &["sim", &t, "-p", "lru,lur", "-c", "5"],
        &["invalid --policy 'lur'", "did you mean 'lru'?"],
    );
    assert_fails_with(
        &["sim", &t, "-c", "5", "--prefetch", "linux2"],
        &["invalid --prefetch 'linux2'", "did you mean 'linux24'?"],
    );
    assert_fails_with(
        &["sim", &t, "-c", "5", "--disk", "hdd720"],
        &["'hdd720'", "did you mean 'hdd7200'?"],
    );
    assert_fails_with(
        &["sim", &t, "-c", "5", "--format", "lirz"],
        &["invalid --format 'lirz'", "did you mean 'lirs'?"],
    );
    assert_fails_with(
        &["sim", &t, "-c", "5", "--scheduler", "clok"],
        &["invalid --scheduler 'clok'", "did you mean 'clook'?"],
    );
    // Nothing close: no suggestion, the list of names instead.
    let err = assert_fails_with(
        &["sim", &t, "-p", "zzzzzz", "-c", "5"],
        &["invalid --policy 'zzzzzz'", "expected one of lru"],
    );
    assert!(!err.contains("did you mean"), "{err}");
    // Subcommands and options: clap's own suggestions.
    assert_fails_with(
        &["simm", &t],
        &["'simm'", "similar subcommand exists: 'sim'"],
    );
    assert_fails_with(
        &["sim", &t, "--cache-sise", "5"],
        &["'--cache-sise'", "similar argument exists: '--cache-size'"],
    );
}

#[test]
fn bad_values_are_reported_as_what_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let t = lirs_trace(dir.path());
    // A negative size is a bad cache size, not an unknown option `-5`.
    let err = assert_fails_with(&["sim", &t, "-c", "-5"], &["invalid --cache-size '-5'"]);
    assert!(!err.contains("unexpected argument"), "{err}");
    // No --format given and none detectable (one id per line would be read as LIRS text): say so.
    let unknown = dir.path().join("t.dat");
    std::fs::write(&unknown, "1,2\n").unwrap();
    let err = assert_fails_with(
        &["sim", unknown.to_str().unwrap(), "-c", "5"],
        &["could not detect the format of", "t.dat", "pass --format"],
    );
    assert!(!err.contains("--format ''"), "{err}");
    // A csv line without the op column: an article that fits.
    let csv = dir.path().join("t.csv");
    std::fs::write(&csv, "0,4096\n").unwrap();
    assert_fails_with(
        &[
            "sim",
            csv.to_str().unwrap(),
            "-f",
            "csv",
            "--columns",
            "offset=0,size=1,op=2",
            "-c",
            "5",
        ],
        &["t.csv:1: expected the op field in column 3 (index 2 in --columns)"],
    );
}

#[test]
fn libcachesim_traces_are_detected_and_give_the_same_hits() {
    let dir = tempfile::tempdir().unwrap();
    let t = lirs_trace(dir.path());
    let og = dir.path().join("t.oracleGeneral");
    let og_s = og.display().to_string();
    stdout_of(&["convert", &t, "--to", "oracle-general", "-o", &og_s]);
    let hits = |args: &[&str]| -> Vec<u64> {
        let rows: Vec<serde_json::Value> = serde_json::from_str(&stdout_of(args)).unwrap();
        rows.iter().map(|r| r["hits"].as_u64().unwrap()).collect()
    };
    let want = hits(&["sim", &t, "-c", "10,40", "--json"]);
    assert!(want.iter().any(|&h| h > 0));
    assert_eq!(hits(&["sim", &og_s, "-c", "10,40", "--json"]), want);
    // The same records behind an lcs v1 header: detected by the header's start marker.
    let mut lcs = vec![0u8; 8192];
    let magic = 0x1234_5678_9abc_def0u64.to_le_bytes();
    lcs[..8].copy_from_slice(&magic);
    lcs[8..16].copy_from_slice(&1u64.to_le_bytes());
    lcs[8184..].copy_from_slice(&magic);
    lcs.extend(std::fs::read(&og).unwrap());
    let lcs_path = dir.path().join("t.bin");
    std::fs::write(&lcs_path, &lcs).unwrap();
    assert_eq!(
        hits(&["sim", lcs_path.to_str().unwrap(), "-c", "10,40", "--json"]),
        want
    );
    // Cut inside a record: one line naming the record.
    std::fs::write(&lcs_path, &lcs[..lcs.len() - 5]).unwrap();
    assert_fails_with(
        &["sim", lcs_path.to_str().unwrap(), "-c", "10"],
        &["record 399 (byte offset 17768)", "ends inside a record"],
    );
}
