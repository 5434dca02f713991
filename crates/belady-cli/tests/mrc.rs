//! `belady mrc`: the curves against `belady sim` on the shared real traces, output forms, errors.

mod common;

use common::*;

fn get_u64(row: &serde_json::Value, key: &str) -> u64 {
    row[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} in {row}"))
}

#[test]
fn exact_lru_equals_sim_on_p3() {
    let Some(p3) = shared("arc/P3.lis.zst") else {
        return;
    };
    let sizes = "1000,10000,100000";
    let mrc = json_rows(&belady(&[
        "mrc", &p3, "--policy", "lru", "--sizes", sizes, "--json",
    ]));
    let sim = json_rows(&belady(&[
        "sim", "-t", &p3, "--policy", "lru", "-c", sizes, "--json",
    ]));
    assert_eq!(mrc.len(), 3);
    for (m, s) in mrc.iter().zip(&sim) {
        assert_eq!(get_u64(m, "cache_blocks"), get_u64(s, "cache_blocks"));
        assert_eq!(get_u64(m, "hits"), get_u64(s, "hits"));
        assert_eq!(get_u64(m, "requests"), get_u64(s, "requests"));
        assert_eq!(m["method"], "exact");
        assert_eq!(m["sample_rate"], 1.0);
    }
}

/// Mean absolute miss-ratio error of `arc,lirs,2q` sampled at 1% against full simulation, at
/// 10 log-spaced sizes from 1% to 50% of the unique blocks.
fn sampled_error(trace: &str) -> f64 {
    let policies = "arc,lirs,2q";
    let stats: serde_json::Value =
        serde_json::from_str(&ok(&belady(&["stats", trace, "--json"]))).unwrap();
    let unique = get_u64(&stats, "unique_blocks") as f64;
    let sizes: Vec<String> = (0..10)
        .map(|i| ((unique * 0.01 * 50f64.powf(i as f64 / 9.0)) as u64).to_string())
        .collect();
    let sizes = sizes.join(",");
    let mrc = json_rows(&belady(&[
        "mrc",
        trace,
        "--policy",
        policies,
        "--sizes",
        &sizes,
        "--sample-rate",
        "0.01",
        "--json",
    ]));
    let sim = json_rows(&belady(&[
        "sim", "-t", trace, "--policy", policies, "-c", &sizes, "--json",
    ]));
    assert_eq!(mrc.len(), 30);
    assert_eq!(sim.len(), 30);
    let mut total = 0.0;
    for (m, s) in mrc.iter().zip(&sim) {
        assert_eq!(m["policy"], s["policy"]);
        assert_eq!(m["cache_blocks"], s["cache_blocks"]);
        assert_eq!(m["method"], "sampled");
        let full = 1.0 - s["hit_ratio"].as_f64().unwrap();
        total += (m["miss_ratio"].as_f64().unwrap() - full).abs();
    }
    total / 30.0
}

#[test]
fn sampled_curves_are_within_a_hundredth_on_p3_and_oltp() {
    for rel in ["arc/P3.lis.zst", "arc/OLTP.lis.zst"] {
        let Some(trace) = shared(rel) else {
            return;
        };
        let e = sampled_error(&trace);
        eprintln!("{rel}: mean absolute error {e:.4}");
        assert!(e <= 0.01, "{rel}: mean absolute error {e}");
    }
}

#[test]
fn csv_html_and_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.trace");
    let refs: String = (0..3000).map(|i| format!("{}\n", i % 50)).collect();
    std::fs::write(&trace, refs).unwrap();
    let t = trace.display().to_string();
    let csv = ok(&belady(&[
        "mrc", "--trace", &t, "-p", "lru,fifo", "-c", "10,50",
    ]));
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "policy,cache_blocks,miss_ratio,hits,requests,method,sample_rate"
    );
    // A loop of 50: both policies miss everything below 50 blocks and only the first pass at 50.
    assert_eq!(lines[1], "\"lru\",10,1.000000,0,3000,exact,1");
    assert_eq!(lines[2], "\"lru\",50,0.016667,2950,3000,exact,1");
    assert_eq!(lines[4], "\"fifo\",50,0.016667,2950,3000,exact,1");
    let html = dir.path().join("c.html");
    let out = dir.path().join("rows.json");
    ok(&belady(&[
        "mrc",
        &t,
        "-p",
        "lru,arc",
        "--html",
        html.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<svg") && page.contains("arc (exact)"));
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert!(rows.iter().any(|r| r["cache_blocks"] == 50));
    // --html alone: the page, and one line on the terminal saying where (no rows).
    std::fs::remove_file(&html).unwrap();
    let said = ok(&belady(&[
        "mrc",
        &t,
        "-p",
        "lru,arc",
        "-c",
        "10,50",
        "--html",
        html.to_str().unwrap(),
    ]));
    assert_eq!(
        said,
        format!(
            "wrote {}: 2 curves of 4 rows; -o FILE also writes the rows (CSV, or JSON for *.json)\n",
            html.display()
        )
    );
    assert!(std::fs::read_to_string(&html)
        .unwrap()
        .contains("arc (exact)"));
    // --json asks for the rows on standard output, page or not.
    let rows = json_rows(&belady(&[
        "mrc",
        &t,
        "-p",
        "lru",
        "-c",
        "10,50",
        "--html",
        html.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(rows.len(), 2);
}

#[test]
fn bad_arguments_fail_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.trace");
    std::fs::write(&trace, "1\n2\nx\n").unwrap();
    let t = trace.display().to_string();
    assert_error(&belady(&["mrc", &t]), "t.trace:3");
    std::fs::write(&trace, "1\n2\n1\n").unwrap();
    assert_error(
        &belady(&["mrc", &t, "-p", "arc", "--sample-rate", "2"]),
        "--sample-rate",
    );
    assert_error(
        &belady(&[
            "mrc",
            &t,
            "-p",
            "arc",
            "--sample-rate",
            "0.5",
            "--control-rate",
            "0.1",
        ]),
        "--control-rate",
    );
    assert_error(&belady(&["mrc", &t, "-c", "0"]), "0");
    assert_error(&belady(&["mrc"]), "name a trace");
    let out = dir.path().join("never.csv");
    assert_error(
        &belady(&["mrc", &t, "-p", "nosuch", "-o", out.to_str().unwrap()]),
        "nosuch",
    );
    assert!(!out.exists(), "no output on failure");
}

/// The README's quick start: `belady mrc ps.trace.gz --policy lru,arc --sample-rate 0.01 --html
/// mrc.html` samples about 31 of the trace's blocks. It must say so on stderr in one line, with
/// what to do, and no row (nor the page) may go below the compulsory misses.
#[test]
fn a_too_small_sample_warns_and_no_row_is_below_the_compulsory_misses() {
    let Some(ps) = shared("lirs/ps.trace.gz") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let html = path_in(dir.path(), "mrc.html");
    let stats: serde_json::Value =
        serde_json::from_str(&ok(&belady(&["stats", &ps, "--json"]))).unwrap();
    let unique = get_u64(&stats, "unique_blocks");
    let references = get_u64(&stats, "read_references");
    let floor = unique as f64 / references as f64;
    let rows_csv = dir.path().join("mrc.csv");
    let out = belady(&[
        "mrc",
        &ps,
        "--policy",
        "lru,arc",
        "--sample-rate",
        "0.01",
        "--html",
        &html,
        "-o",
        rows_csv.to_str().unwrap(),
    ]);
    let said = ok(&out);
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(
        said.contains("the rows also in") && said.contains("mrc.csv"),
        "{said}"
    );
    let csv = std::fs::read_to_string(&rows_csv).unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    let sampled = (0.01 * unique as f64).round() as u64;
    for needle in [
        format!("samples about {sampled} of the {unique} blocks"),
        "leave out --sample-rate".to_string(),
    ] {
        assert!(err.contains(&needle), "'{needle}' in: {err}");
    }
    let mut rows = 0;
    for line in csv.lines().skip(1) {
        let cells: Vec<&str> = line.rsplitn(6, ',').collect();
        // rsplitn: sample_rate, method, requests, hits, miss_ratio, "policy",size.
        let miss: f64 = cells[4].parse().unwrap();
        assert!(miss >= floor - 5e-7, "{line}: below the floor {floor}");
        rows += 1;
    }
    assert!(rows > 100, "{rows} rows");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("samples about") && page.contains("compulsory"));
    // A rate that samples enough blocks (2,000 or more) is used without a word.
    let rate = format!("{:.2}", 2100.0 / unique as f64);
    let out = belady(&["mrc", &ps, "--policy", "lru,arc", "--sample-rate", &rate]);
    ok(&out);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
