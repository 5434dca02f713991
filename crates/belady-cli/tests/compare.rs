//! `belady compare`: its JSON equals what the store's exported rows give by the definitions of
//! docs/compare.md, recomputed here from `belady results export`; its one-line refusals.

mod common;
use common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Three small generated traces (Zipf, temporal, scan with a hot set) swept with five policies at
/// three sizes, without and with read-ahead, into `dir/store.sqlite`; the store's path.
fn swept_store(dir: &Path) -> String {
    let gen = |args: &[&str]| ok(&belady(&[&["gen"], args].concat()));
    let z = path_in(dir, "zipf.lirs");
    let t = path_in(dir, "temporal.lirs");
    let s = path_in(dir, "scan.lirs");
    gen(&[
        "zipf",
        "--requests",
        "3000",
        "--blocks",
        "500",
        "--to",
        "lirs",
        "-o",
        &z,
    ]);
    gen(&[
        "temporal",
        "--seed",
        "2",
        "--requests",
        "3000",
        "--blocks",
        "800",
        "--to",
        "lirs",
        "-o",
        &t,
    ]);
    gen(&[
        "scan",
        "--requests",
        "3000",
        "--region",
        "300",
        "--hot",
        "100",
        "--to",
        "lirs",
        "-o",
        &s,
    ]);
    let exp = write(
        dir,
        "exp.toml",
        r#"name = "compare"
store = "store.sqlite"
policies = ["fifo", "lru", "sieve", "s3fifo", "arc"]
cache_sizes = ["5%", "10%", "50"]
prefetch = ["none", "linux24"]
[[trace]]
path = "zipf.lirs"
format = "lirs"
[[trace]]
path = "temporal.lirs"
format = "lirs"
[[trace]]
path = "scan.lirs"
format = "lirs"
"#,
    );
    ok(&belady(&["sweep", &exp]));
    path_in(dir, "store.sqlite")
}

/// numpy's default percentile: rank h = (n-1)p, linear between the closest ranks.
fn numpy_linear(sorted: &[f64], p: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * p;
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// The comparison by its definitions, from exported rows of one read-ahead setting.
fn expected(rows: &[Value], prefetch: &str, baseline: &str, byte: bool) -> Vec<Value> {
    // size -> trace -> policy -> ratio
    let mut grid: BTreeMap<String, BTreeMap<String, BTreeMap<String, f64>>> = BTreeMap::new();
    let mut sizes: Vec<(u64, String)> = Vec::new();
    for r in rows.iter().filter(|r| r["prefetch"] == prefetch) {
        let ratio = if byte {
            r["byte_miss_ratio"].as_f64().unwrap()
        } else {
            r["misses"].as_f64().unwrap() / r["requests"].as_f64().unwrap()
        };
        let size = r["cache_size"].as_str().unwrap().to_string();
        sizes.push((r["capacity"].as_u64().unwrap(), size.clone()));
        grid.entry(size)
            .or_default()
            .entry(r["trace"].as_str().unwrap().into())
            .or_default()
            .insert(r["policy"].as_str().unwrap().into(), ratio);
    }
    // Sizes in the order of their smallest capacity (a percent resolves per trace).
    sizes.sort();
    let mut order: Vec<String> = Vec::new();
    for (_, size) in sizes {
        if !order.contains(&size) {
            order.push(size);
        }
    }
    let mut out = Vec::new();
    for size in order {
        let traces: Vec<&BTreeMap<String, f64>> = grid[&size]
            .values()
            .filter(|t| t.get(baseline).is_some_and(|b| *b > 0.0))
            .collect();
        let mut policies: Vec<&String> = traces.iter().flat_map(|t| t.keys()).collect();
        policies.sort_by_key(|p| (p.as_str() != baseline, p.to_string()));
        policies.dedup();
        for p in policies {
            let mut red = Vec::new();
            let mut wins = 0;
            for t in &traces {
                let Some(r) = t.get(p) else { continue };
                red.push((t[baseline] - r) / t[baseline]);
                let best = t.values().cloned().fold(f64::INFINITY, f64::min);
                wins += u64::from(*r == best);
            }
            let mean = red.iter().sum::<f64>() / red.len() as f64;
            red.sort_by(f64::total_cmp);
            out.push(serde_json::json!({
                "policy": p, "cache_size": size, "mean": mean,
                "p10": numpy_linear(&red, 0.1), "p25": numpy_linear(&red, 0.25),
                "p50": numpy_linear(&red, 0.5), "p75": numpy_linear(&red, 0.75),
                "p90": numpy_linear(&red, 0.9), "wins": wins, "traces": red.len(),
            }));
        }
    }
    out
}

fn assert_same(got: &[Value], want: &[Value]) {
    assert_eq!(got.len(), want.len(), "{got:#?}\nvs\n{want:#?}");
    for (g, w) in got.iter().zip(want) {
        let g = g.as_object().unwrap();
        let keys: Vec<&String> = g.keys().collect();
        let mut want_keys = vec![
            "cache_size",
            "mean",
            "p10",
            "p25",
            "p50",
            "p75",
            "p90",
            "policy",
            "traces",
            "wins",
        ];
        want_keys.sort();
        assert_eq!(keys, want_keys, "exactly these keys");
        for (k, v) in g {
            match v.as_f64() {
                Some(x) if k != "wins" && k != "traces" => {
                    let y = w[k].as_f64().unwrap();
                    assert!((x - y).abs() < 1e-12, "{k}: {x} vs {y} in {g:?}");
                }
                _ => assert_eq!(v, &w[k], "{k} in {g:?}"),
            }
        }
    }
}

#[test]
fn json_equals_the_definitions_over_the_exported_rows() {
    let dir = tempfile::tempdir().unwrap();
    let store = swept_store(dir.path());
    let rows = json_rows(&belady(&[
        "results", "export", "--store", &store, "--format", "json",
    ]));
    assert_eq!(rows.len(), 3 * 5 * 3 * 2);
    for prefetch in ["none", "linux24"] {
        let filter = format!("prefetch={prefetch}");
        for (metric, byte) in [("miss", false), ("byte", true)] {
            let got = json_rows(&belady(&[
                "compare", "--store", &store, "--where", &filter, "--metric", metric, "--json",
            ]));
            let want = expected(&rows, prefetch, "fifo", byte);
            assert_eq!(want.len(), 5 * 3);
            assert_same(&got, &want);
        }
        // Another baseline: the same definitions with lru's ratios underneath.
        let got = json_rows(&belady(&[
            "compare",
            "--store",
            &store,
            "--where",
            &filter,
            "--baseline",
            "LRU",
            "--json",
        ]));
        assert_same(&got, &expected(&rows, prefetch, "lru", false));
    }
    // The text table: a row per policy and size, every number as the JSON's in percent.
    let table = ok(&belady(&[
        "compare",
        "--store",
        &store,
        "--where",
        "prefetch=none",
    ]));
    let want = expected(&rows, "none", "fifo", false);
    let sieve = want
        .iter()
        .find(|r| r["policy"] == "sieve" && r["cache_size"] == "10%")
        .unwrap();
    let line = table
        .lines()
        .find(|l| l.starts_with("sieve ") && l.split_whitespace().nth(1) == Some("10%"))
        .unwrap();
    let cells: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(
        cells[2],
        format!("{:.2}", sieve["mean"].as_f64().unwrap() * 100.0)
    );
    assert_eq!(cells[8], sieve["wins"].to_string());
    assert_eq!(cells[9], "3");
}

#[test]
fn the_report_draws_a_box_plot_per_setting_with_compares_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let store = swept_store(dir.path());
    let html = path_in(dir.path(), "r.html");
    ok(&belady(&["report", "--store", &store, "-o", &html]));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("id=\"across\""), "no comparison section");
    // One chart per read-ahead setting, each with compare's numbers in its table.
    for (n, prefetch) in [(0, "linux24"), (1, "none")] {
        let svg = dir
            .path()
            .join(format!("r-charts/across-traces-{n:02}-miss-ratio.svg"));
        assert!(svg.exists(), "{}", svg.display());
        let rows = json_rows(&belady(&[
            "compare",
            "--store",
            &store,
            "--where",
            &format!("prefetch={prefetch}"),
            "--json",
        ]));
        let arc = rows
            .iter()
            .find(|r| r["policy"] == "arc" && r["cache_size"] == "50")
            .unwrap();
        let cell = format!(
            "<td>arc</td><td>50</td><td>{:.2}</td><td>{:.2}</td>",
            arc["mean"].as_f64().unwrap() * 100.0,
            arc["p10"].as_f64().unwrap() * 100.0
        );
        assert!(page.contains(&cell), "{cell}");
    }
}

#[test]
fn missing_baselines_are_skipped_and_refusals_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let store = swept_store(dir.path());
    // Runs of several read-ahead settings are not mixed.
    assert_error_all(
        &belady(&["compare", "--store", &store]),
        &["differ in prefetch", "--where prefetch=none"],
    );
    // A baseline absent from the store: the policies present.
    assert_error_all(
        &belady(&[
            "compare",
            "--store",
            &store,
            "--where",
            "prefetch=none",
            "--baseline",
            "opt",
        ]),
        &["--baseline opt", "arc, fifo, lru, s3fifo, sieve"],
    );
    assert_error(
        &belady(&["compare", "--store", &store, "--where", "nosuch=1"]),
        "no run has a setting nosuch",
    );
    // Without fifo on one trace at 10%, that trace is skipped there, and said so.
    let db = rusqlite::Connection::open(&store).unwrap();
    let gone = db
        .execute(
            "DELETE FROM runs WHERE policy = 'fifo' AND trace = 'zipf.lirs' AND config_json LIKE '%\"10\\%\"%' ESCAPE '\\'",
            [],
        )
        .unwrap();
    assert_eq!(gone, 2, "fifo at 10% on zipf, with and without read-ahead");
    let rows = json_rows(&belady(&[
        "results", "export", "--store", &store, "--format", "json",
    ]));
    let args = ["compare", "--store", &store, "--where", "prefetch=none"];
    let got = json_rows(&belady(&[&args[..], &["--json"]].concat()));
    assert_same(&got, &expected(&rows, "none", "fifo", false));
    assert!(got
        .iter()
        .all(|r| r["traces"] == if r["cache_size"] == "10%" { 2 } else { 3 }));
    let table = ok(&belady(&args));
    assert!(
        table.contains("at 10%: 1 trace lacks fifo, skipped at that size: zipf.lirs"),
        "{table}"
    );
    // An empty store.
    db.execute("DELETE FROM runs", []).unwrap();
    drop(db);
    assert_error(
        &belady(&["compare", "--store", &store]),
        "the store holds no runs",
    );
}
