//! `belady sim` end to end: the output schema, determinism, what is written, read-ahead, disks
//! and levels; `belady policies`.

mod common;

use common::*;

#[test]
fn json_rows_carry_the_documented_fields() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(dir.path(), "t.trace", "1\n2\n1\n3\n1\n2\n");
    let out = run_sim(&t, "lirs", &["-p", "lru,opt", "-c", "2,50%", "--json"]);
    let rows = json_rows(&out);
    assert_eq!(rows.len(), 4);
    let lru2 = &rows[0];
    for key in [
        "trace",
        "policy",
        "cache_blocks",
        "requests",
        "hits",
        "misses",
        "hit_ratio",
        "format",
        "ops",
    ] {
        assert!(lru2.get(key).is_some(), "missing {key}");
    }
    // lru, 2 blocks: 1 2 1(h) 3 1(h) 2 -> 2 hits of 6.
    assert_eq!(lru2["policy"], "lru");
    assert_eq!(lru2["cache_blocks"], 2);
    assert_eq!(lru2["hits"], 2);
    assert_eq!(lru2["misses"], 4);
    // 50% of 3 unique blocks = 1 block.
    assert_eq!(rows[1]["cache_blocks"], 1);
    // opt, 2 blocks: 1 2 1(h) 3 (evicts 2, next used after 1) 1(h) 2 -> 2 hits.
    assert_eq!(rows[2]["policy"], "opt");
    assert_eq!(rows[2]["hits"], 2);
}

#[test]
fn same_inputs_give_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(
        dir.path(),
        "t.trace",
        &(0..3000)
            .map(|i| format!("{}\n", (i * 37) % 101))
            .collect::<String>(),
    );
    let args = [
        "sim",
        "-t",
        &t,
        "-f",
        "lirs",
        "-p",
        "lru,fifo,clock,opt",
        "-c",
        "5,10,20,40",
        "--json",
    ];
    let a = belady(&args);
    let b = belady(&[&args[..], &["--threads", "1"]].concat());
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn writes_are_selectable() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(dir.path(), "m.csv", "0,4096,R\n0,4096,W\n8192,100,W\n");
    let run = |ops: &str| {
        let out = run_sim(
            &t,
            "csv",
            &[
                "--columns",
                "offset=0,size=1,op=2",
                "-c",
                "4",
                "--ops",
                ops,
                "--json",
            ],
        );
        let rows = json_rows(&out);
        (
            rows[0]["requests"].as_u64().unwrap(),
            rows[0]["hits"].as_u64().unwrap(),
        )
    };
    assert_eq!(run("read"), (1, 0));
    assert_eq!(run("write"), (2, 0));
    assert_eq!(run("all"), (3, 1));
}

#[test]
fn policies_lists_every_policy() {
    let out = belady(&["policies", "--json"]);
    assert!(out.status.success());
    let list: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = list.iter().map(|p| p["name"].as_str().unwrap()).collect();
    for n in ["lru", "fifo", "clock", "opt"] {
        assert!(names.contains(&n));
    }
    // Each parameter lists its three defaults; ARC's initial p is c/2 only under AccuSim.
    let arc = list.iter().find(|p| p["name"] == "arc").unwrap();
    let p0 = arc["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["name"] == "p0")
        .unwrap();
    assert_eq!(
        (&p0["default"], &p0["study"], &p0["accusim"]),
        (&"0".into(), &"0".into(), &"0.5".into())
    );
}

#[test]
fn readme_policy_table_is_what_policies_markdown_prints() {
    // docs/policies.md promises the table is this command's output; a new parameter must reach both.
    let out = belady(&["policies", "--markdown"]);
    assert!(out.status.success());
    let printed = String::from_utf8(out.stdout).unwrap();
    let readme = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/policies.md"
    ))
    .expect("docs/policies.md beside the workspace");
    let start = readme
        .find("| policy | what |")
        .expect("docs/policies.md has the policy table");
    let table = readme[start..].split("\n\n").next().unwrap();
    assert_eq!(
        table.trim_end(),
        printed.trim_end(),
        "docs/policies.md's policy table differs from `belady policies --markdown`; paste the output in"
    );
}

#[test]
fn request_log_lists_every_request_of_a_file_level_run() {
    let dir = tempfile::tempdir().unwrap();
    let evt = write(
        dir.path(),
        "t.evt",
        "open 1 3 9 200000 f\nread 1 3 9 8192 10 200000\nread 1 3 9 8192 10 200000\n",
    );
    let out = belady(&[
        "sim",
        "--trace",
        &evt,
        "--format",
        "accusim-text",
        "--policy",
        "lru",
        "--cache-size",
        "100",
        "--prefetch",
        "linux24",
        "--compat",
        "accusim",
        "--json",
        "--log-requests",
    ]);
    let rows = json_rows(&out);
    let log = rows[0]["request_log"].as_array().unwrap();
    assert_eq!(log.len() as u64, rows[0]["disk_requests"].as_u64().unwrap());
    // The first read misses blocks 0 and 1 and reads 3 ahead: one synchronous request of blocks
    // 0..3, issued by event 2 (the open is event 1); the second read's hit sends 7 blocks ahead.
    let first = |i: usize, k: &str| log[i][k].clone();
    assert_eq!(
        (
            first(0, "event"),
            first(0, "sync"),
            first(0, "first"),
            first(0, "blocks")
        ),
        (2.into(), true.into(), 0.into(), 4.into())
    );
    assert_eq!(
        (
            first(1, "event"),
            first(1, "sync"),
            first(1, "first"),
            first(1, "blocks")
        ),
        (3.into(), false.into(), 4.into(), 7.into())
    );
}

#[test]
fn disk_command_is_deterministic_for_a_seed() {
    let args = [
        "disk",
        "--model",
        "cheetah9lp",
        "--pattern",
        "random",
        "--size",
        "4KiB",
        "--count",
        "500",
        "--seed",
        "3",
        "--json",
    ];
    let a = belady(&args);
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert_eq!(a.stdout, belady(&args).stdout);
    let v: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    let mean = v["mean_ms"].as_f64().unwrap();
    assert!((8.5..11.0).contains(&mean), "{mean}");
    assert!(v["p99_ms"].as_f64().unwrap() >= v["p50_ms"].as_f64().unwrap());
    let seq = belady(&[
        "disk",
        "--model",
        "cheetah9lp",
        "--pattern",
        "sequential",
        "--size",
        "64KiB",
        "--json",
        "--count",
        "200",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&seq.stdout).unwrap();
    let rate = v["mb_per_s"].as_f64().unwrap();
    assert!((4.0..4.9).contains(&rate), "{rate}");
    let bad = belady(&["disk", "--model", "no-such-disk"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("cheetah9lp"));
}

#[test]
fn read_ahead_kb_caps_every_window() {
    // One file of 1,200 blocks read whole in 4 KB reads, on-demand read-ahead.
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("file 1 4915200 /f\nopen 0 0 1 3 1\n");
    for b in 0..1200 {
        text += &format!("read - 0 1 3 1 {} 4096\n", b * 4096);
    }
    let evt = write(dir.path(), "seq.bev", &text);
    let sim = |extra: &[&str]| {
        let mut args = vec![
            "sim",
            "-t",
            &evt,
            "-f",
            "events",
            "-p",
            "lru",
            "-c",
            "2000",
            "--prefetch",
            "ondemand",
            "--max-request",
            "1MiB",
            "--json",
            "--log-requests",
        ];
        args.extend_from_slice(extra);
        belady(&args)
    };
    let largest_request = |extra: &[&str]| {
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&sim(extra).stdout).unwrap();
        rows[0]["request_log"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["blocks"].as_u64().unwrap())
            .max()
            .unwrap()
    };
    // 128 KiB by default: windows ramp up to 32 blocks; 32 KiB caps them at 8, 1 MiB lets them
    // grow to 256.
    assert_eq!(largest_request(&[]), 32);
    assert_eq!(largest_request(&["--read-ahead-kb", "32"]), 8);
    assert_eq!(largest_request(&["--read-ahead-kb", "1024"]), 256);
    assert_error(&sim(&["--read-ahead-kb", "2"]), "--read-ahead-kb");
}

#[test]
fn levels_run_hierarchies_per_placement_in_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let t = hand_worked_levels_trace(dir.path());
    let out = run_sim(
        &t,
        "lirs",
        &[
            "--levels",
            "client:lru:2,storage:lru:2",
            "--placement",
            "access,eviction,exclusive",
            "--json",
        ],
    );
    let rows = json_rows(&out);
    assert_eq!(rows.len(), 3);
    let storage_hits: Vec<u64> = rows
        .iter()
        .map(|r| r["levels"][1]["hits"].as_u64().unwrap())
        .collect();
    assert_eq!(storage_hits, vec![0, 3, 4]);
    let ev = &rows[1];
    assert_eq!(ev["policy"], "client:lru:2 > storage:lru:2:eviction");
    assert_eq!(ev["levels"][1]["reloads_issued"], 6);
    assert_eq!(ev["levels"][1]["reloads_used"], 3);
    assert_eq!(ev["levels"][1]["reloads_wasted"], 1);
    assert_eq!(ev["disk_requests"], 11);
    assert_eq!(ev["format"], "lirs");
    assert_eq!(rows[2]["levels"][1]["demotion_bytes"], 6 * 4096);
    // A level naming its own placement overrides --placement, and runs once.
    let text = run_sim(
        &t,
        "lirs",
        &[
            "--levels",
            "client:lru:2,storage:lru:2:eviction:2",
            "--placement",
            "access,demote",
        ],
    );
    let text = String::from_utf8(text.stdout).unwrap();
    assert_eq!(text.matches("hierarchy ").count(), 1, "{text}");
    assert!(text.contains("eviction:2"), "{text}");
    // 9 disk requests: 7 demand reads (synchronous) and 2 reloads (asynchronous); the storage
    // level issued 2 reloads, 1 used, none wasted, and skipped 4.
    let row = text
        .lines()
        .find(|l| l.starts_with("client:lru:2 > storage"))
        .unwrap_or_else(|| panic!("{text}"));
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cols[8..11], &["9", "7/7", "2/2"], "{text}");
    assert!(text.contains("2/1/0"), "{text}");
}

#[test]
fn levels_with_a_disk_report_times() {
    let dir = tempfile::tempdir().unwrap();
    let t = hand_worked_levels_trace(dir.path());
    let out = run_sim(
        &t,
        "lirs",
        &[
            "--levels",
            "client:lru:2,storage:lru:2",
            "--placement",
            "eviction,demote",
            "--disk",
            "fixed",
            "--think-us",
            "5000",
            "--link-latency-us",
            "10",
            "--link-mbps",
            "819.2",
            "--json",
        ],
    );
    let rows = json_rows(&out);
    // The timing module's hand-worked case: 1 ms disk reads, 60 µs storage hits, 5 ms think.
    assert_eq!(rows[0]["timing"]["run_time_ns"], 45_480_000u64);
    // Six reloads start: the last one when the last demand read is done (still in service at
    // the end, see docs/multilevel.md).
    assert_eq!(rows[0]["timing"]["reloads_started"], 6);
    assert_eq!(rows[0]["timing"]["reloads_pending"], 1);
    assert_eq!(rows[1]["timing"]["demotion_wait_ns"], 300_000u64);
    let text = run_sim(
        &t,
        "lirs",
        &["--levels", "c:lru:2,s:lru:2", "--disk", "fixed"],
    );
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("time on fixed: run "), "{text}");
    let bad = run_sim(
        &t,
        "lirs",
        &[
            "--levels",
            "c:lru:2,s:lru:2",
            "--disk",
            "fixed",
            "--link-mbps",
            "0",
        ],
    );
    assert_error(&bad, "--link-mbps");
}

#[test]
fn prefetch_off_and_none_and_any_spelling_give_identical_rows() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(
        dir.path(),
        "t.trace",
        &(0..2000)
            .map(|i| format!("{}\n", (i * 13) % 97))
            .collect::<String>(),
    );
    let rows = |args: &[&str]| ok(&run_sim(&t, "lirs", args));
    let none = rows(&[
        "-p",
        "lru,arc",
        "-c",
        "10,40",
        "--prefetch",
        "none",
        "--json",
    ]);
    assert_eq!(
        json_rows(&run_sim(
            &t,
            "lirs",
            &["-p", "lru,arc", "-c", "10,40", "--json"]
        ))
        .len(),
        4
    );
    for other in [
        vec![
            "-p",
            "lru,arc",
            "-c",
            "10,40",
            "--prefetch",
            "off",
            "--json",
        ],
        vec![
            "-p",
            "LRU,Arc",
            "-c",
            "10,40",
            "--prefetch",
            "OFF",
            "--json",
        ],
        vec![
            "-p",
            "lru,arc",
            "-c",
            "10,40",
            "--prefetch",
            "None",
            "--disk",
            "off",
            "--json",
        ],
    ] {
        assert_eq!(rows(&other), none, "{other:?}");
    }
}

/// Read-ahead without a disk model is free: the text table says so under its rows (and only
/// then); the JSON rows keep their keys, with no time and no late reference.
#[test]
fn untimed_read_ahead_is_said_to_complete_at_once() {
    let dir = tempfile::tempdir().unwrap();
    // Three sequential passes over 2,000 blocks: read-ahead has runs to detect.
    let refs: String = (0..6000).map(|i| format!("{}\n", i % 2000)).collect();
    let t = write(dir.path(), "seq.trace", &refs);
    let note = "untimed (no --disk): read-ahead completes at once";
    let table = ok(&run_sim(
        &t,
        "lirs",
        &["-p", "lru", "-c", "100", "--prefetch", "none,linux6"],
    ));
    let last = table.trim_end().lines().last().unwrap();
    assert!(last.starts_with(note), "the footer: {table}");
    assert_eq!(table.matches(note).count(), 1);
    for args in [
        &[
            "-p",
            "lru",
            "-c",
            "100",
            "--prefetch",
            "linux6",
            "--disk",
            "hdd",
        ][..],
        &["-p", "lru", "-c", "100"][..],
        &["-p", "lru", "-c", "100", "--prefetch", "none"][..],
    ] {
        let text = ok(&run_sim(&t, "lirs", args));
        assert!(!text.contains("untimed"), "{args:?}: {text}");
    }
    let rows = json_rows(&run_sim(
        &t,
        "lirs",
        &["-p", "lru", "-c", "100", "--prefetch", "linux6", "--json"],
    ));
    assert!(rows[0].get("exec_time_s").is_none(), "{}", rows[0]);
    assert_eq!(rows[0]["late"], 0);
    assert!(rows[0].get("untimed").is_none(), "no new key");
}

/// A disk with a read cache says how many reads that cache served (they take no seek, which is
/// why a mean response time can be a tenth of a millisecond); a disk without one says nothing.
#[test]
fn the_disk_read_cache_is_named_when_it_serves_requests() {
    let dir = tempfile::tempdir().unwrap();
    // Sequential passes over neighbouring blocks, which the drive's read-ahead brings in.
    let seq: String = (0..3000).map(|i| format!("{}\n", i % 1000)).collect();
    let t = write(dir.path(), "seq.trace", &seq);
    let args = ["-p", "lru", "-c", "100", "--disk", "hdd"];
    let rows = json_rows(&run_sim(&t, "lirs", &[&args[..], &["--json"]].concat()));
    let hits = rows[0]["disk_cache_hits"]
        .as_u64()
        .expect("hdd has a read cache");
    let requests = rows[0]["disk_requests"].as_u64().unwrap();
    assert!(hits > requests / 2 && hits <= requests, "{}", rows[0]);
    assert!(
        rows[0]["mean_response_ms"].as_f64().unwrap() < 1.0,
        "{}",
        rows[0]
    );
    let text = ok(&run_sim(&t, "lirs", &args));
    let header = text.lines().nth(1).unwrap();
    assert!(header.contains(" disk_cache_hits "), "{text}");
    assert!(text.contains(&format!(" {hits} ")), "{text}");
    assert!(text.contains("disk_cache_hits: disk reads the drive served from its own read cache"));
    // A flash device has no such cache: no key, no column, no footer.
    let rows = json_rows(&run_sim(
        &t,
        "lirs",
        &["-p", "lru", "-c", "100", "--disk", "ssd", "--json"],
    ));
    assert!(rows[0].get("disk_cache_hits").is_none(), "{}", rows[0]);
    let text = ok(&run_sim(
        &t,
        "lirs",
        &["-p", "lru", "-c", "100", "--disk", "ssd"],
    ));
    assert!(!text.contains("disk_cache_hits"), "{text}");
}
