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

/// The stored rows of `store`, as JSON, in key order.
fn stored_rows(store: &str) -> Vec<serde_json::Value> {
    let db = rusqlite::Connection::open(store).unwrap();
    let mut stmt = db
        .prepare("SELECT result_json FROM runs ORDER BY key")
        .unwrap();
    let rows = stmt
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .map(|t| serde_json::from_str(&t.unwrap()).unwrap())
        .collect();
    rows
}

#[test]
fn a_sweep_stores_exactly_the_rows_sim_prints_for_the_same_settings() {
    let dir = tempfile::tempdir().unwrap();
    // Reads and writes, so `ops = all` matters; skewed, so every level has hits.
    let text: String = (0..4000u64)
        .map(|i| {
            let op = if i % 4 == 0 { "W" } else { "R" };
            let x = (i * 7919) % 1000;
            format!("{},{op}\n", x * x / 2500)
        })
        .collect();
    let t = write(dir.path(), "t.csv", &text);
    let head = "format = \"csv\"\ncolumns = \"block=0,op=1\"\nheader = false\n\
                compat = \"accusim\"\nprefetch = [\"linux24\"]\n";
    // A hierarchy's client reads every reference, writes included (`ops = all`); one level
    // under read-ahead reads only, as `sim` refuses writes there.
    let exp = write(
        dir.path(),
        "e.toml",
        &format!(
            "{head}ops = \"all\"\nlevels = [\"client:lru:60,storage:arc:200\"]\n\
             placement = [\"access\", \"exclusive\"]\n[[trace]]\npath = \"t.csv\"\n"
        ),
    );
    let grid = write(
        dir.path(),
        "g.toml",
        &format!(
            "{head}policies = [\"lru\", \"lirs\"]\ncache_sizes = [\"50\", \"20%\"]\n\
             [[trace]]\npath = \"t.csv\"\n"
        ),
    );
    let store = path_in(dir.path(), "r.sqlite");
    ok(&belady(&["sweep", &exp, "--store", &store, "--quiet"]));
    ok(&belady(&["sweep", &grid, "--store", &store, "--quiet"]));
    let mut stored = stored_rows(&store);
    let sim = |extra: &[&str]| -> Vec<serde_json::Value> {
        let base = [
            "sim",
            "-t",
            &t,
            "-f",
            "csv",
            "--columns",
            "block=0,op=1",
            "--compat",
            "accusim",
            "--prefetch",
            "linux24",
            "--json",
        ];
        json_rows(&belady(&[&base[..], extra].concat()))
    };
    let mut printed = sim(&[
        "--ops",
        "all",
        "--levels",
        "client:lru:60,storage:arc:200",
        "--placement",
        "access,exclusive",
    ]);
    printed.extend(sim(&["-p", "lru,lirs", "-c", "50,20%"]));
    assert_eq!(printed.len(), 2 + 2 * 2);
    for r in &printed {
        assert!(r["hits"].as_u64().unwrap() > 0, "{r}");
        assert_eq!(r["prefetch"], "linux24", "{r}");
    }
    assert_eq!(printed[0]["ops"], "all");
    assert_eq!(printed[0]["levels"].as_array().unwrap().len(), 2);
    // The stored rows name the trace by the path the sweep read; sim by the one it was given.
    for r in stored.iter_mut().chain(printed.iter_mut()) {
        r["trace"] = "t.csv".into();
    }
    let key = |r: &serde_json::Value| serde_json::to_string(r).unwrap();
    stored.sort_by_key(key);
    printed.sort_by_key(key);
    assert_eq!(stored, printed);
}

/// Runs belady with `args` and returns its peak resident memory in KiB (the child's own
/// `ru_maxrss`, read with `wait4`), after checking it succeeded.
// The child is reaped by `wait4`, which std's `wait` cannot do while returning its usage.
#[allow(clippy::zombie_processes)]
fn peak_rss_kib(args: &[&str]) -> i64 {
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_belady"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("run belady");
    let mut status = 0;
    // SAFETY: `rusage` is plain data that wait4 fills in; the pid is our own child's.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "belady {args:?} failed ({status})"
    );
    usage.ru_maxrss
}

#[test]
fn a_sweep_streams_its_trace_like_sim() {
    let dir = tempfile::tempdir().unwrap();
    let t = path_in(dir.path(), "t.bel");
    ok(&belady(&[
        "gen",
        "zipf",
        "--requests",
        "20000000",
        "--blocks",
        "1000000",
        "-o",
        &t,
    ]));
    let exp = write(
        dir.path(),
        "e.toml",
        "policies = [\"lru\"]\ncache_sizes = [\"10%\"]\n[[trace]]\npath = \"t.bel\"\n",
    );
    let store = path_in(dir.path(), "r.sqlite");
    let sim = peak_rss_kib(&["sim", "-t", &t, "-p", "lru", "-c", "10%", "--threads", "1"]);
    let sweep = peak_rss_kib(&[
        "sweep",
        &exp,
        "--store",
        &store,
        "--quiet",
        "--threads",
        "1",
    ]);
    // Loading 20 M references whole would take 80 MB for the ids alone.
    assert!(
        sweep <= sim + 16 * 1024,
        "sweep peak {sweep} KiB, sim peak {sim} KiB"
    );
    assert_eq!(stored_rows(&store).len(), 1);
}

#[test]
fn trace_paths_name_environment_variables_and_an_unset_one_is_refused_on_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let traces = dir.path().join("elsewhere");
    std::fs::create_dir(&traces).unwrap();
    let ids: String = (0..200).map(|i| format!("{}\n", (i * 7) % 40)).collect();
    write(&traces, "t.trace", &ids);
    // Two traces: one through a set variable, one through an unset one's default (relative to
    // the experiment file); the experiment sits apart from the traces and runs from another
    // directory.
    let exp = write(
        dir.path(),
        "e.toml",
        "policies = [\"lru\"]\ncache_sizes = [\"10\"]\n\
         [[trace]]\npath = \"${TRACES_FOR_THIS_TEST}/t.trace\"\nformat = \"lirs\"\nname = \"set\"\n\
         [[trace]]\npath = \"${UNSET_FOR_THIS_TEST:-elsewhere}/t.trace\"\nformat = \"lirs\"\nname = \"default\"\n",
    );
    let store = path_in(dir.path(), "r.sqlite");
    let sweep = |env: &[(&str, &str)], cwd: &std::path::Path| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_belady"));
        cmd.args(["sweep", &exp, "--store", &store, "--quiet"])
            .current_dir(cwd)
            .env_remove("UNSET_FOR_THIS_TEST")
            .env_remove("TRACES_FOR_THIS_TEST");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    };
    let out = sweep(
        &[("TRACES_FOR_THIS_TEST", traces.to_str().unwrap())],
        &std::env::temp_dir(),
    );
    ok(&out);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(
        &belady(&["results", "export", "--store", &store, "--format", "json"]).stdout,
    )
    .unwrap();
    assert_eq!(rows.len(), 2);
    // One trace read through both paths: the same hits.
    assert_eq!(rows[0]["hits"], rows[1]["hits"], "{rows:?}");
    assert!(rows[0]["requests"].as_u64() == Some(200), "{rows:?}");
    // A relative value is relative to where the command runs, as in the shell that set it.
    std::fs::remove_file(&store).unwrap();
    ok(&sweep(&[("TRACES_FOR_THIS_TEST", "elsewhere")], dir.path()));
    // Unset, with no default: one line naming the file, its line and the variable.
    assert_error_all(
        &sweep(&[], dir.path()),
        &[
            "e.toml:4:",
            "$TRACES_FOR_THIS_TEST is not set",
            "${TRACES_FOR_THIS_TEST:-DIR}",
        ],
    );
}
