//! `belady bounds` and `sim --bounds`: the rows and their keys, that every policy's misses lie
//! at or above every lower bound (a policy's run is a schedule), and one-line refusals.

mod common;
use common::*;

/// An oracleGeneral file of `(id, size)` requests (next-access times are not read).
fn oracle_general(dir: &std::path::Path, name: &str, reqs: &[(u64, u32)]) -> String {
    let mut out = Vec::new();
    for (t, &(id, size)) in reqs.iter().enumerate() {
        out.extend((t as u32).to_le_bytes());
        out.extend(id.to_le_bytes());
        out.extend(size.to_le_bytes());
        out.extend((-1i64).to_le_bytes());
    }
    let path = dir.join(name);
    std::fs::write(&path, out).unwrap();
    path.display().to_string()
}

/// A skewed trace of 3,000 requests over 300 objects of 100 to 4,000 bytes.
fn skewed() -> Vec<(u64, u32)> {
    let mut x: u64 = 99;
    (0..3000)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = (x >> 33) % 300;
            let id = r * r / 300;
            (id, 100 + (id as u32 * 7919) % 3900)
        })
        .collect()
}

fn num(row: &serde_json::Value, key: &str) -> u64 {
    row[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} in {row}"))
}

#[test]
fn bounds_rows_hold_every_key_and_bracket_the_policies() {
    let dir = tempfile::tempdir().unwrap();
    let t = oracle_general(dir.path(), "t.oracleGeneral.bin", &skewed());
    let rows = json_rows(&belady(&[
        "bounds", &t, "-c", "20KiB,5%", "--method", "foo,pfoo", "--json",
    ]));
    assert_eq!(rows.len(), 4);
    let policies = json_rows(&belady(&[
        "sim",
        &t,
        "-p",
        "opt,gdsf,lru",
        "-c",
        "20KiB,5%",
        "--json",
    ]));
    for row in &rows {
        for key in ["method", "cache_size", "trace", "requests", "cache_bytes"] {
            assert!(!row[key].is_null(), "{key} missing in {row}");
        }
        assert_eq!(num(row, "requests"), 3000);
        let (lo, hi) = (num(row, "lower_misses"), num(row, "upper_misses"));
        let (blo, bhi) = (num(row, "lower_byte_misses"), num(row, "upper_byte_misses"));
        assert!(lo <= hi && blo <= bhi, "{row}");
        // A policy's run is a schedule: it misses no less than the optimum.
        for p in policies
            .iter()
            .filter(|p| p["cache_bytes"] == row["cache_bytes"])
        {
            assert!(num(p, "misses") >= lo, "{p} below {row}");
            assert!(num(p, "byte_misses") >= blo, "{p} below {row}");
        }
    }
    // 5 % of the footprint resolves as sim resolves it.
    let five = policies.iter().find(|p| p["cache_bytes"] != 20480).unwrap();
    let row = rows.iter().find(|r| r["cache_size"] == "5%").unwrap();
    assert_eq!(row["cache_bytes"], five["cache_bytes"]);
    // FOO is the tighter of the two: its bounds lie within PFOO's.
    for size in ["20480B", "5%"] {
        let of = |m: &str| {
            rows.iter()
                .find(|r| r["method"] == m && r["cache_size"] == size)
                .unwrap()
        };
        let (f, p) = (of("foo"), of("pfoo"));
        assert!(num(p, "lower_misses") <= num(f, "lower_misses"));
        assert!(num(p, "lower_byte_misses") <= num(f, "lower_byte_misses"));
    }
    // The table names the same numbers.
    let text = ok(&belady(&["bounds", &t, "-c", "20KiB", "-m", "foo"]));
    let foo = rows
        .iter()
        .find(|r| r["method"] == "foo" && r["cache_size"] == "20480B")
        .unwrap();
    assert!(
        text.contains("lower_misses") && text.contains("upper_byte_miss_%"),
        "{text}"
    );
    let line = text.lines().find(|l| l.starts_with("foo")).unwrap();
    assert!(
        line.contains(&format!(" {} ", num(foo, "lower_misses")))
            && line.contains(&format!(" {} ", num(foo, "upper_byte_misses"))),
        "{line}"
    );
}

#[test]
fn with_equal_sizes_foo_meets_and_sim_shows_it_beside_the_policies() {
    let dir = tempfile::tempdir().unwrap();
    let reqs: Vec<(u64, u32)> = skewed().iter().map(|&(id, _)| (id, 512)).collect();
    let t = oracle_general(dir.path(), "eq.oracleGeneral.bin", &reqs);
    let rows = json_rows(&belady(&[
        "sim", &t, "-p", "opt", "-c", "8KiB", "--bounds", "--json",
    ]));
    let policy = |name: &str| rows.iter().find(|r| r["policy"] == name).unwrap();
    let (lower, upper, opt) = (policy("foo-lower"), policy("foo-upper"), policy("opt"));
    assert_eq!(num(lower, "misses"), num(upper, "misses"));
    assert_eq!(num(lower, "byte_misses"), num(lower, "misses") * 512);
    // belady's opt always inserts: never better than the optimum with bypass.
    assert!(num(opt, "misses") >= num(lower, "misses"));
    assert_eq!(lower["cache_bytes"], opt["cache_bytes"]);
}

#[test]
fn bad_input_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let t = oracle_general(dir.path(), "t.oracleGeneral.bin", &skewed()[..10]);
    assert_error_all(
        &belady(&["bounds", &t, "-c", "500"]),
        &["--cache-size", "byte capacity"],
    );
    assert_error_all(
        &belady(&["bounds", &t, "-c", "1MiB", "--method", "belady"]),
        &["--method", "foo, pfoo or auto"],
    );
    // A file that ends inside a record: the file and the record.
    let mut bytes = std::fs::read(&t).unwrap();
    bytes.truncate(24 * 3 + 5);
    let cut = path_in(dir.path(), "cut.oracleGeneral.bin");
    std::fs::write(&cut, bytes).unwrap();
    assert_error_all(
        &belady(&["bounds", &cut, "-c", "1MiB"]),
        &["cut.oracleGeneral.bin", "record 3"],
    );
    let empty = write(dir.path(), "e.trace", "");
    assert_error(&belady(&["bounds", &empty, "-c", "1MiB"]), "e.trace");
    let events = write(dir.path(), "x.events", "");
    assert_error_all(
        &belady(&["bounds", &events, "--format", "events", "-c", "1MiB"]),
        &["file-level"],
    );
}

#[test]
fn block_traces_bound_their_requests_as_objects() {
    // MSR: offset and size in bytes; each request an object named by its first block.
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..200u64 {
        let off = (i * 7 % 23) * 65536;
        let size = 4096 * (1 + (i * 7 % 23) % 4);
        text.push_str(&format!(
            "{},h,0,Read,{off},{size},10\n",
            128166372003061629u64 + i
        ));
    }
    let t = write(dir.path(), "m.csv", &text);
    let rows = json_rows(&belady(&[
        "bounds", &t, "--format", "msr", "-c", "32KiB", "-m", "foo", "--json",
    ]));
    assert_eq!(num(&rows[0], "requests"), 200);
    assert_eq!(num(&rows[0], "objects"), 23);
    assert!(num(&rows[0], "lower_misses") >= 23);
}
