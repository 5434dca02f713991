//! `belady report`: runs that differ in any configuration field stay apart (issue 19, item 1),
//! and the page is laid out for reading (summary, headings by file name, `--policies`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn belady(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_belady"))
        .args(args)
        .output()
        .expect("the belady binary runs")
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn sweep(exp: &str, store: &str) {
    ok(belady(&["sweep", exp, "--store", store, "--quiet"]));
}

fn report(store: &str, out: &Path, extra: &[&str]) -> String {
    let html = out.display().to_string();
    let mut args = vec!["report", "--store", store, "-o", &html];
    args.extend(extra);
    ok(belady(&args));
    std::fs::read_to_string(out).unwrap()
}

fn export(store: &str) -> Vec<serde_json::Value> {
    let out = ok(belady(&[
        "results", "export", "--store", store, "--format", "json",
    ]));
    serde_json::from_str(&out).unwrap()
}

/// The report's sections: (heading, the HTML up to the next heading).
fn sections(html: &str) -> Vec<(String, String)> {
    html.split("<h2 id=\"s")
        .skip(1)
        .map(|part| {
            let heading = part[..part.find("</h2>").unwrap()].to_string();
            (heading, part.to_string())
        })
        .collect()
}

/// The hit-ratio table's cell for `policy` at the first size, as the report prints it.
fn hit_cell(section: &str, policy: &str) -> String {
    let table = &section[section.find("<caption>Hit ratio").unwrap()..];
    let row = &table[table.find(&format!("<tr><td>{policy}</td>")).unwrap()..];
    let cell = &row[format!("<tr><td>{policy}</td><td>").len()..];
    cell[..cell.find("</td>").unwrap()].to_string()
}

#[test]
fn a_trace_whose_content_changed_gets_its_own_section_with_its_own_numbers() {
    let dir = tempfile::tempdir().unwrap();
    // LRU with 2 blocks: "1 2 1 2 1 2" hits 4 of 6 (66.67%); "1 2 3 1 2 3" never hits (0.00%).
    let trace = write(dir.path(), "t.trace", "1\n2\n1\n2\n1\n2\n");
    let exp = write(
        dir.path(),
        "e.toml",
        "policies = [\"lru\"]\nsizes = [\"2\"]\n[[trace]]\npath = \"t.trace\"\nformat = \"lirs\"\n",
    );
    let store = dir.path().join("r.sqlite").display().to_string();
    sweep(&exp, &store);
    std::fs::write(&trace, "1\n2\n3\n1\n2\n3\n").unwrap();
    sweep(&exp, &store);
    let rows = export(&store);
    assert_eq!(rows.len(), 2, "the store keeps both runs");
    let html = report(&store, &dir.path().join("r.html"), &[]);
    let found = sections(&html);
    assert_eq!(found.len(), 2, "one section per trace content");
    for row in &rows {
        let hash = row["trace_hash"].as_str().unwrap();
        let (heading, body) = found
            .iter()
            .find(|(h, _)| h.contains(&format!("trace_hash: {}", &hash[..12])))
            .unwrap_or_else(|| panic!("no heading names trace hash {hash}"));
        assert!(heading.contains("t.trace"), "{heading}");
        let want = format!("{:.2}", 100.0 * row["hit_ratio"].as_f64().unwrap());
        assert_eq!(hit_cell(body, "lru"), want, "{heading}");
    }
    let mut shown: Vec<String> = found.iter().map(|(_, b)| hit_cell(b, "lru")).collect();
    shown.sort();
    assert_eq!(shown, ["0.00", "66.67"]);
}

#[test]
fn runs_under_two_presets_are_both_shown_and_named_by_preset() {
    let dir = tempfile::tempdir().unwrap();
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/zipf-loop.trace.gz");
    let store = dir.path().join("r.sqlite").display().to_string();
    for preset in ["paper", "study"] {
        let exp = write(
            dir.path(),
            &format!("{preset}.toml"),
            &format!(
                "preset = \"{preset}\"\npolicies = [\"lirs\"]\nsizes = [\"1%\"]\n\
                 [[trace]]\npath = \"{}\"\nformat = \"lirs\"\n",
                data.display()
            ),
        );
        sweep(&exp, &store);
    }
    let rows = export(&store);
    assert_eq!(rows.len(), 2);
    let ratio = |preset: &str| {
        let row = rows.iter().find(|r| r["preset"] == preset).unwrap();
        format!("{:.2}", 100.0 * row["hit_ratio"].as_f64().unwrap())
    };
    // LIRS's HIR share differs between the presets (1% vs 10%), so at 1% of the unique blocks
    // the two runs differ; the test is only meaningful if they do.
    assert_ne!(ratio("paper"), ratio("study"));
    let html = report(&store, &dir.path().join("r.html"), &[]);
    let found = sections(&html);
    assert_eq!(found.len(), 2);
    for preset in ["paper", "study"] {
        let (_, body) = found
            .iter()
            .find(|(h, _)| h.contains(&format!("preset: {preset}")))
            .unwrap_or_else(|| panic!("no heading names preset {preset}"));
        assert_eq!(hit_cell(body, "lirs"), ratio(preset), "{preset}");
    }
}

#[test]
fn the_same_run_written_two_ways_is_shown_once_but_different_results_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "t.trace", "1\n2\n3\n1\n2\n3\n1\n4\n");
    // 50% of 4 unique blocks is the same 2-block cache as "2": two keys, one simulation.
    let exp = write(
        dir.path(),
        "e.toml",
        "policies = [\"lru\"]\nsizes = [\"2\", \"50%\"]\n[[trace]]\npath = \"t.trace\"\nformat = \"lirs\"\n",
    );
    let store = dir.path().join("r.sqlite").display().to_string();
    sweep(&exp, &store);
    assert_eq!(export(&store).len(), 2);
    let html = report(&store, &dir.path().join("r.html"), &[]);
    assert_eq!(
        html.matches("<tr><td>lru</td>").count(),
        2,
        "hit ratio and disk requests rows (no byte miss ratio: a blocks-model store)"
    );
    // A store whose two rows for one point disagree cannot be drawn without hiding one (the
    // report reads the stored rows).
    let db = rusqlite::Connection::open(&store).unwrap();
    let changed = db
        .execute(
            "UPDATE runs SET result_json = json_set(result_json, '$.hit_ratio', \
         json_extract(result_json, '$.hit_ratio') + 0.125) \
         WHERE instr(config_json, '\"cache_sizes\":[\"50%\"]') > 0",
            [],
        )
        .unwrap();
    assert_eq!(changed, 1);
    drop(db);
    let out = belady(&[
        "report",
        "--store",
        &store,
        "-o",
        &dir.path().join("bad.html").display().to_string(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("results differ") && err.lines().count() == 1,
        "{err}"
    );
}

#[test]
fn headings_are_file_names_and_policies_can_be_chosen() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["a", "b"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
        write(
            dir.path(),
            &format!("{sub}/t.trace"),
            "1\n2\n3\n1\n2\n4\n1\n",
        );
    }
    let exp = write(
        dir.path(),
        "e.toml",
        "policies = [\"opt\", \"lru\", \"fifo\", \"arc\"]\nsizes = [\"2\", \"3\"]\n\
         [[trace]]\npath = \"a/t.trace\"\nformat = \"lirs\"\n\
         [[trace]]\npath = \"b/t.trace\"\nformat = \"lirs\"\n",
    );
    let store = dir.path().join("r.sqlite").display().to_string();
    sweep(&exp, &store);
    let html = report(
        &store,
        &dir.path().join("r.html"),
        &["--policies", "lru,arc"],
    );
    let headings: Vec<String> = sections(&html).into_iter().map(|(h, _)| h).collect();
    assert_eq!(headings.len(), 2);
    assert!(headings[0].contains(">a/t.trace <"), "{headings:?}");
    assert!(headings[1].contains(">b/t.trace <"), "{headings:?}");
    let tmp = dir.path().display().to_string();
    assert!(
        !headings.iter().any(|h| h.contains(&tmp)),
        "no absolute paths in headings"
    );
    assert!(html.contains("<td>arc</td>") && html.contains("<td>lru</td>"));
    assert!(!html.contains("<td>fifo</td>"), "fifo was not chosen");
    assert!(html.contains("<td>opt</td>"), "OPT stays as the reference");
    assert!(html.contains("<h2>Summary</h2>"));
    let bad = belady(&[
        "report",
        "--store",
        &store,
        "-o",
        &dir.path().join("x.html").display().to_string(),
        "--policies",
        "lur",
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("'lur'"));
}

/// Untimed runs with read-ahead are marked as such (read-ahead completes at once) in the
/// summary, under their heading and in their tables' captions; timed ones and runs without
/// read-ahead are not. Policies tied at every size share one legend entry naming them.
#[test]
fn untimed_read_ahead_is_marked_and_tied_lines_name_their_members() {
    let dir = tempfile::tempdir().unwrap();
    // Every block once: every policy hits nothing at every size without read-ahead.
    let refs: String = (0..3000).map(|i| format!("{i}\n")).collect();
    write(dir.path(), "t.trace", &refs);
    let exp = |disks: &str| {
        format!(
            "policies = [\"lru\", \"fifo\", \"arc\"]\nsizes = [\"50\", \"100\"]\n\
             prefetch = [\"none\", \"linux6\"]\n{disks}[[trace]]\npath = \"t.trace\"\nformat = \"lirs\"\n"
        )
    };
    let untimed = write(dir.path(), "u.toml", &exp(""));
    let store = dir.path().join("u.sqlite").display().to_string();
    sweep(&untimed, &store);
    let html = report(&store, &dir.path().join("u.html"), &[]);
    assert!(html.contains("linux6 (untimed)"), "summary cell");
    assert!(html.contains("read-ahead completes at once"), "the note");
    assert!(html.contains(
        "<caption>Hit ratio — read-ahead: linux6 (untimed: read-ahead completes at once)</caption>"
    ));
    assert!(html.contains("<caption>Hit ratio — read-ahead: none</caption>"));
    // The three policies miss everything without read-ahead: one entry names all three.
    // (The legend wraps it after 17 characters.)
    assert!(
        html.contains("\narc, fifo, lru\n</text>") && html.contains("\n(tied)\n</text>"),
        "tied legend entry"
    );

    let timed = write(dir.path(), "t.toml", &exp("disks = [\"hdd\"]\n"));
    let store = dir.path().join("t.sqlite").display().to_string();
    sweep(&timed, &store);
    let html = report(&store, &dir.path().join("t.html"), &[]);
    assert!(!html.contains("untimed"), "timed runs carry no note");
}

/// The cells of each summary row and of its header row.
fn summary_rows(html: &str) -> Vec<(usize, usize)> {
    let start = html.find("<table class=\"summary\">").unwrap();
    let table = &html[start..start + html[start..].find("</table>").unwrap()];
    let header = table.matches("<th>").count();
    table
        .split("<tr>")
        .skip(2)
        .map(|row| (row.matches("<td>").count(), header))
        .collect()
}

/// Issue 35: an objects-model sweep at two byte capacities beside an object count, and a block
/// trace, is reported: each capacity in its own unit (byte capacities named by their size, sorted
/// by value, never "0"), every summary row as wide as its header.
#[test]
fn byte_capacities_beside_a_count_and_a_block_trace_are_reported_by_their_size() {
    let dir = tempfile::tempdir().unwrap();
    let og = dir
        .path()
        .join("og.oracleGeneral.bin")
        .display()
        .to_string();
    ok(belady(&[
        "gen",
        "zipf",
        "--requests",
        "20000",
        "--blocks",
        "2000",
        "--sizes",
        "lognormal:8KiB,1.5,1MiB",
        "--to",
        "oracle-general",
        "-o",
        &og,
    ]));
    let refs: String = (0..4000).map(|i| format!("{}\n", (i * 7) % 300)).collect();
    write(dir.path(), "b.trace", &refs);
    let exp = write(
        dir.path(),
        "e.toml",
        "policies = [\"opt\", \"lru\", \"arc\"]\ncache_sizes = [\"64MiB\", \"8MiB\", \"100\"]\n\
         [[trace]]\npath = \"og.oracleGeneral.bin\"\n\
         [[trace]]\npath = \"b.trace\"\nformat = \"lirs\"\n",
    );
    let store = dir.path().join("s.sqlite").display().to_string();
    sweep(&exp, &store);
    let html = report(&store, &dir.path().join("r.html"), &[]);
    for (cells, header) in summary_rows(&html) {
        assert_eq!(cells, header, "a summary row as wide as its header");
    }
    assert_eq!(summary_rows(&html).len(), 3, "bytes, objects, blocks");
    let parts = sections(&html);
    let bytes = parts
        .iter()
        .find(|(h, _)| h.contains("capacity_unit: bytes"))
        .expect("a section of byte capacities");
    assert!(
        bytes
            .1
            .contains("<tr><th>policy</th><th>8MiB</th><th>64MiB</th></tr>"),
        "byte capacities by their size, in order"
    );
    assert!(bytes.1.contains("cache size (bytes, log2 scale)"));
    let objects = parts
        .iter()
        .find(|(h, _)| h.contains("capacity_unit: objects"))
        .expect("a section of the object count");
    assert!(objects.1.contains("<th>100 objects</th>"));
    let blocks = parts
        .iter()
        .find(|(h, _)| h.contains("\">b.trace "))
        .expect("the block trace's section");
    assert!(blocks.1.contains("<th>100 blocks</th><th>2048 blocks</th>"));
    assert!(!html.contains("<th>0</th>") && !html.contains(" at 0 blocks"));
    // The store's export says each capacity in its unit, and no byte capacity as 0 blocks.
    for row in export(&store) {
        let unit = row["capacity_unit"].as_str().unwrap();
        assert!(["bytes", "objects", "blocks"].contains(&unit), "{row}");
        assert_eq!(row["cache_blocks"].is_null(), unit == "bytes", "{row}");
    }
}

/// Issue 35: the admission filter's rejections reach every output through the metric registry:
/// `sim --json`, the text table (only with a filter), the store's export and the report.
#[test]
fn admission_rejects_reach_the_json_the_table_the_export_and_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let refs: String = (0..3000).map(|i| format!("{}\n", (i * 7) % 200)).collect();
    let t = write(dir.path(), "t.trace", &refs);
    let sim = |admission: &str, json: bool| {
        let mut args = vec!["sim", &t, "-f", "lirs", "-p", "lru", "-c", "50"];
        args.extend(["--admission", admission]);
        if json {
            args.push("--json");
        }
        ok(belady(&args))
    };
    // prob:0 refuses every miss, prob:1 none; without a filter nothing is refused.
    let row = |admission: &str| -> serde_json::Value {
        serde_json::from_str::<Vec<serde_json::Value>>(&sim(admission, true)).unwrap()[0].clone()
    };
    let all = row("prob:0");
    assert_eq!(all["admission_rejects"], all["misses"]);
    assert_eq!(all["hits"], 0);
    assert_eq!(row("prob:1")["admission_rejects"], 0);
    assert_eq!(row("none")["admission_rejects"], 0);
    let tiny = row("tinylfu");
    let rejects = tiny["admission_rejects"].as_u64().unwrap();
    assert!(
        rejects > 0 && rejects <= tiny["misses"].as_u64().unwrap(),
        "{tiny}"
    );
    // The table has the column with a filter, and not without one.
    let table = sim("tinylfu", false);
    let mut lines = table.lines().skip_while(|l| !l.starts_with("policy"));
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    let cells: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    let at = header
        .iter()
        .position(|h| *h == "admission_rejects")
        .expect("a column");
    assert_eq!(cells[at], rejects.to_string());
    assert!(!sim("none", false).contains("admission_rejects"));
    // Swept: the export has the key, the report a chart and a table of it.
    let exp = write(
        dir.path(),
        "e.toml",
        "policies = [\"lru\", \"arc\"]\ncache_sizes = [\"20\", \"50\"]\nadmission = \"tinylfu\"\n\
         [[trace]]\npath = \"t.trace\"\nformat = \"lirs\"\n",
    );
    let store = dir.path().join("s.sqlite").display().to_string();
    sweep(&exp, &store);
    let exported = export(&store);
    assert!(exported
        .iter()
        .any(|r| r["admission_rejects"].as_u64().unwrap() > 0));
    let html = report(&store, &dir.path().join("r.html"), &[]);
    assert!(html.contains("<caption>Admission rejects — read-ahead: none</caption>"));
    assert!(html.contains("cache size (blocks, log2 scale)"));
}
