//! `sim` grids over comma-separated `--prefetch` and `--disk`, and core errors phrased as flags.

mod common;

use common::*;

fn trace(dir: &std::path::Path) -> String {
    // Two sequential runs of 30 blocks read twice, then a loop over a few scattered blocks.
    let mut ids: Vec<u64> = (100..130).chain(500..530).collect();
    ids.extend(ids.clone());
    ids.extend([7, 900, 7, 901, 7, 900]);
    let text: String = ids.iter().map(|i| format!("{i}\n")).collect();
    write(dir, "t.trace", &text)
}

#[test]
fn prefetch_and_disk_lists_multiply_the_grid() {
    let dir = tempfile::tempdir().unwrap();
    let t = trace(dir.path());
    let out = run_sim(
        &t,
        "lirs",
        &[
            "-p",
            "lru,arc",
            "-c",
            "8,32",
            "--prefetch",
            "none,linux24",
            "--json",
        ],
    );
    let rows = json_rows(&out);
    assert_eq!(rows.len(), 8);
    // Read-ahead major, then policy, then size.
    let key: Vec<(Option<&str>, &str, u64)> = rows
        .iter()
        .map(|r| {
            (
                r["prefetch"].as_str(),
                r["policy"].as_str().unwrap(),
                r["cache_blocks"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        key,
        vec![
            (None, "lru", 8),
            (None, "lru", 32),
            (None, "arc", 8),
            (None, "arc", 32),
            (Some("linux24"), "lru", 8),
            (Some("linux24"), "lru", 32),
            (Some("linux24"), "arc", 8),
            (Some("linux24"), "arc", 32),
        ]
    );
    // Read-ahead over the sequential runs saves disk requests against one read per miss.
    let req = |i: usize| rows[i]["disk_requests"].as_u64().unwrap();
    assert!(req(4) < req(0), "{} vs {}", req(4), req(0));
    let out = run_sim(
        &t,
        "lirs",
        &[
            "-c",
            "8",
            "--prefetch",
            "linux24",
            "--disk",
            "fixed,cheetah9lp",
            "--json",
        ],
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), 2);
    assert!(rows
        .iter()
        .all(|r| r["exec_time_s"].as_f64().unwrap() > 0.0));
    assert_ne!(rows[0]["exec_time_s"], rows[1]["exec_time_s"]);
}

#[test]
fn core_errors_name_flags_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let t = trace(dir.path());
    for (args, needle) in [
        (
            vec!["--prefetch", "linux24", "--max-request", "5%"],
            "invalid --max-request '5%'",
        ),
        (vec!["--prefetch", "nope"], "invalid --prefetch 'nope'"),
        (vec!["--scheduler", "clook"], "invalid --scheduler 'clook'"),
        (vec!["--param", "lru.x=1"], "invalid --param"),
    ] {
        let out = belady(&[&["sim", "-t", &t, "-f", "lirs", "-c", "8"][..], &args].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(needle), "expected {needle} in {err}");
    }
}
