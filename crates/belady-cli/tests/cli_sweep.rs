//! `belady sweep` and its exports, and the `demo` built on a sweep.

mod common;

use common::*;

#[test]
fn demo_lru_failures_shows_which_policies_fix_lru() {
    let text = ok(&belady(&["demo", "lru-failures"]));
    for w in ["indexed-db", "scan-cyclic", "scan-use-once"] {
        assert!(text.contains(w), "{w} missing: {text}");
    }
    let row = |name: &str| {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no {name} row: {text}"))
            .to_string()
    };
    assert_eq!(row("lirs").matches("yes").count(), 3, "{text}");
    assert_eq!(row("clock-pro").matches("yes").count(), 3, "{text}");
    assert!(row("lru-k").contains("yes") && row("arc").contains("yes"));
    // LRU on the cyclic scan: no hits at all.
    let lru = row("lru");
    let cells: Vec<&str> = lru.split_whitespace().collect();
    assert_eq!(cells[3], "0.00", "{text}");
}

#[test]
fn sweep_exports_csv_json_and_parquet_with_the_same_runs() {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let dir = tempfile::tempdir().unwrap();
    let ids: String = (0..300).map(|i| format!("{}\n", (i * 13) % 70)).collect();
    write(dir.path(), "t.trace", &ids);
    let exp = write(
        dir.path(),
        "e.toml",
        "policies = [\"lru\", \"opt\"]\nsizes = [\"10\", \"30\"]\nprefetch = [\"none\", \"linux24\"]\n\
         [[trace]]\npath = \"t.trace\"\nformat = \"lirs\"\n",
    );
    let store = path_in(dir.path(), "r.sqlite");
    let out = belady(&["sweep", &exp, "--store", &store, "--quiet"]);
    ok(&out);
    let json = belady(&["results", "export", "--store", &store, "--format", "json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(rows.len(), 8);
    let pq = dir.path().join("r.parquet");
    let out = belady(&[
        "results",
        "export",
        "--store",
        &store,
        "--format",
        "parquet",
        "-o",
        &pq.display().to_string(),
    ]);
    ok(&out);
    let reader = SerializedFileReader::new(std::fs::File::open(&pq).unwrap()).unwrap();
    assert_eq!(reader.metadata().file_metadata().num_rows(), 8);
    let hits: Vec<i64> = reader
        .get_row_iter(None)
        .unwrap()
        .map(|row| {
            let row = row.unwrap();
            let (_, v) = row
                .get_column_iter()
                .find(|(name, _)| name.as_str() == "hits")
                .unwrap();
            match v {
                parquet::record::Field::Long(h) => *h,
                other => panic!("hits is {other:?}"),
            }
        })
        .collect();
    let from_json: Vec<i64> = rows.iter().map(|r| r["hits"].as_i64().unwrap()).collect();
    assert_eq!(hits, from_json, "same runs, same order");
    assert_error(
        &belady(&[
            "results", "export", "--store", &store, "--format", "parquet",
        ]),
        "-o FILE",
    );
}
