//! The kernel's own replacement, `linux` and `mglru` (issue 26 item 2), through the command
//! line: scan resistance on `belady gen`'s LRU-failure workloads, every read-ahead engine with
//! the disk model, sweeps, and `belady policies`.

mod common;

use common::*;

/// Hit ratio (%) of each `policy` row of a `sim --json` run.
fn hit_ratio(rows: &[serde_json::Value], policy: &str, size: u64) -> f64 {
    let r = rows
        .iter()
        .find(|r| r["policy"] == policy && r["cache_blocks"] == size)
        .unwrap_or_else(|| panic!("no {policy} row at {size}: {rows:#?}"));
    r["hits"].as_f64().unwrap() / r["requests"].as_f64().unwrap()
}

/// `gen scan --mode use-once --hot 400`: half the references go to a 400-block hot set, the
/// other half scan blocks never seen again. LRU lets the scan flush the hot set; `linux` keeps it
/// on the active list (read twice), as the kernel's two lists intend.
#[test]
fn linux_protects_a_scan_polluted_hot_set() {
    let dir = tempfile::tempdir().unwrap();
    let t = path_in(dir.path(), "scan.bldy");
    ok(&belady(&[
        "gen",
        "scan",
        "--mode",
        "use-once",
        "--hot",
        "400",
        "--requests",
        "50000",
        "-o",
        &t,
    ]));
    let rows = json_rows(&belady(&[
        "sim",
        "-t",
        &t,
        "-p",
        "lru,linux,mglru",
        "-c",
        "500,1000",
        "--json",
    ]));
    for size in [500, 1000] {
        let (lru, linux) = (
            hit_ratio(&rows, "lru", size),
            hit_ratio(&rows, "linux", size),
        );
        // A reclaim cycle frees 32 to 63 pages at once, a larger share of a small cache: the
        // lists keep 4 pp more than LRU at 500 blocks, 5.4 pp at 1000.
        assert!(
            linux > lru + 0.03,
            "{size} blocks: linux {linux} vs lru {lru}"
        );
        // MGLRU too: hot pages read five times saturate their refs and are promoted out of
        // the oldest generation, where the scan's pages come and go.
        let mglru = hit_ratio(&rows, "mglru", size);
        assert!(mglru > lru, "{size} blocks: mglru {mglru} vs lru {lru}");
    }
    // A loop longer than the cache defeats them all: every page is read once per pass, never
    // activated, and an empty active list admits no refault (the kernel's known weakness).
    let l = path_in(dir.path(), "loop.bldy");
    ok(&belady(&[
        "gen",
        "loop",
        "--blocks",
        "1000",
        "--requests",
        "5000",
        "-o",
        &l,
    ]));
    let rows = json_rows(&belady(&[
        "sim",
        "-t",
        &l,
        "-p",
        "lru,linux",
        "-c",
        "900",
        "--json",
    ]));
    assert_eq!(hit_ratio(&rows, "linux", 900), hit_ratio(&rows, "lru", 900));
}

/// Under every read-ahead engine with the HDD model: prefetched blocks enter the inactive list
/// (the oldest generation), every prefetched block is accounted for, and the kernel's lists beat
/// LRU on the scan-polluted hot set.
#[test]
fn kernel_policies_run_under_read_ahead_and_the_disk() {
    let dir = tempfile::tempdir().unwrap();
    let t = path_in(dir.path(), "scan.bldy");
    ok(&belady(&[
        "gen",
        "scan",
        "--mode",
        "use-once",
        "--hot",
        "400",
        "--requests",
        "20000",
        "-o",
        &t,
    ]));
    for engine in ["linux6", "ondemand", "linux24", "linux26", "bsd"] {
        let rows = json_rows(&belady(&[
            "sim",
            "-t",
            &t,
            "-p",
            "lru,linux,mglru",
            "-c",
            "1000",
            "--prefetch",
            engine,
            "--disk",
            "hdd",
            "--json",
        ]));
        assert_eq!(rows.len(), 3, "{engine}");
        for r in &rows {
            let n = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("{engine}: no {k}"));
            assert_eq!(
                n("prefetched_blocks"),
                n("prefetch_hits")
                    + n("prefetch_late")
                    + n("prefetch_unused_evicted")
                    + n("prefetch_unused_resident"),
                "{engine} {}",
                r["policy"]
            );
            assert!(r["exec_time_s"].as_f64().unwrap() > 0.0);
        }
        let (lru, linux) = (
            hit_ratio(&rows, "lru", 1000),
            hit_ratio(&rows, "linux", 1000),
        );
        assert!(linux > lru, "{engine}: linux {linux} vs lru {lru}");
    }
}

/// Sweeps take them by name like any registered policy, with their parameters.
#[test]
fn kernel_policies_in_a_sweep_and_the_policy_list() {
    let dir = tempfile::tempdir().unwrap();
    let ids: String = (0..400).map(|i| format!("{}\n", (i * 13) % 70)).collect();
    write(dir.path(), "t.trace", &ids);
    let exp = write(
        dir.path(),
        "e.toml",
        "policies = [\"linux\", \"mglru\", \"lru\"]\nsizes = [\"10\", \"30\"]\n\
         prefetch = [\"none\", \"linux24\"]\n[[trace]]\npath = \"t.trace\"\nformat = \"lirs\"\n",
    );
    let store = path_in(dir.path(), "r.sqlite");
    ok(&belady(&["sweep", &exp, "--store", &store, "--quiet"]));
    let json = belady(&["results", "export", "--store", &store, "--format", "json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(rows.len(), 12);
    assert_eq!(rows.iter().filter(|r| r["policy"] == "mglru").count(), 4);
    let list = ok(&belady(&["policies"]));
    for p in [
        "linux.inactive_ratio = auto",
        "linux.refault = true",
        "mglru.aging = kswapd",
        "mglru.refault = true",
    ] {
        assert!(list.contains(p), "{p} missing: {list}");
    }
    assert_error(
        &belady(&[
            "sim",
            "-t",
            &path_in(dir.path(), "t.trace"),
            "-p",
            "mglru",
            "-c",
            "10",
            "--param",
            "mglru.aging=sometimes",
        ]),
        "mglru.aging=sometimes",
    );
}
