//! The configuration boundary (issue 35 item 3, issue 37's configuration bullets): every value is
//! checked where it enters, an option that changes nothing is refused naming what it needs, and
//! each error names the value as its user wrote it: a flag on the command line, a file's key and
//! line for `--config` and experiments.

mod common;

use common::*;
use std::path::Path;

/// A lirs trace of 400 references over 60 blocks.
fn lirs(dir: &Path) -> String {
    let ids: String = (0..400).map(|i| format!("{}\n", (i * 7) % 60)).collect();
    write(dir, "t.lirs", &ids)
}

/// An ARC trace (`start count ignore request`) of 200 requests.
fn arc(dir: &Path) -> String {
    let lines: String = (0..200)
        .map(|i| format!("{} 2 0 {i}\n", (i * 5) % 80))
        .collect();
    write(dir, "t.arc", &lines)
}

/// A generated oracleGeneral trace of objects of lognormal sizes (8 KiB median, up to 4 MiB).
fn object_trace(dir: &Path) -> String {
    let out = path_in(dir, "t.oracleGeneral.bin");
    ok(&belady(&[
        "gen",
        "zipf",
        "--requests",
        "20000",
        "--blocks",
        "2000",
        "--sizes",
        "lognormal:8KiB,1.5,4MiB",
        "--to",
        "oracle-general",
        "-o",
        &out,
    ]));
    out
}

#[test]
fn options_that_change_nothing_are_refused_naming_what_they_need() {
    let dir = tempfile::tempdir().unwrap();
    let t = lirs(dir.path());
    let levels = ["--levels", "c:lru:10,s:lru:20"];
    for (args, needles) in [
        (
            vec!["-c", "10", "--think-us", "5"],
            vec!["invalid --think-us '5'", "--levels", "--disk"],
        ),
        (
            vec!["-c", "10", "--link-mbps", "10"],
            vec!["invalid --link-mbps", "--levels"],
        ),
        (
            vec!["-c", "10", "--link-latency-us", "50"],
            vec!["invalid --link-latency-us", "--levels"],
        ),
        (
            vec!["-c", "10", "--reload-queue", "3"],
            vec!["invalid --reload-queue", "--levels"],
        ),
        // With levels but without a disk the links time nothing either.
        (
            [&levels[..], &["--think-us", "5"]].concat(),
            vec!["invalid --think-us", "--disk"],
        ),
        (
            vec!["-c", "10", "--read-ahead-kb", "64"],
            vec!["invalid --read-ahead-kb", "--prefetch"],
        ),
        (
            vec!["-c", "10", "--read-ahead-kb", "64", "--prefetch", "none"],
            vec!["invalid --read-ahead-kb", "--prefetch"],
        ),
        (
            vec!["-c", "10", "--layout", "scattered"],
            vec!["invalid --layout", "--disk"],
        ),
        (
            vec!["-c", "10", "--max-request", "32KiB"],
            vec!["invalid --max-request", "--prefetch"],
        ),
        (
            vec![
                "-c",
                "10",
                "--max-request",
                "32KiB",
                "--prefetch",
                "linux24",
                "--compat",
                "accusim",
            ],
            vec!["invalid --max-request", "33-block"],
        ),
        (
            vec!["-c", "10", "--log-requests"],
            vec!["invalid --log-requests", "--disk"],
        ),
        (
            vec!["-c", "10", "--placement", "eviction"],
            vec!["invalid --placement", "--levels"],
        ),
        (
            [&levels[..], &["--warm"]].concat(),
            vec!["invalid --warm", "--levels"],
        ),
        (
            vec!["-c", "10", "--header"],
            vec!["invalid --header", "csv"],
        ),
        (
            vec!["-c", "10", "--scheduler", "clook"],
            vec!["invalid --scheduler", "--disk"],
        ),
    ] {
        let out = belady(&[&["sim", "-t", &t][..], &args].concat());
        assert_error_all(&out, &needles);
    }
    // Where they change the run they are taken, also when only one setting has what they need.
    for args in [
        vec![
            "-c",
            "10",
            "--read-ahead-kb",
            "64",
            "--prefetch",
            "none,linux24",
        ],
        vec!["-c", "10", "--layout", "scattered", "--disk", "hdd"],
        vec!["-c", "10", "--scheduler", "clook", "--disk", "none,hdd"],
        vec![
            "-c",
            "10",
            "--max-request",
            "32KiB",
            "--prefetch",
            "linux24",
        ],
        [&levels[..], &["--think-us", "5", "--disk", "hdd"]].concat(),
        [&levels[..], &["--placement", "eviction"]].concat(),
    ] {
        ok(&belady(&[&["sim", "-t", &t][..], &args].concat()));
    }
    // The link options change the timed hierarchy's rows.
    let timed = |extra: &[&str]| {
        json_rows(&belady(
            &[
                &["sim", "-t", &t][..],
                &levels,
                &["--disk", "hdd", "--json"],
                extra,
            ]
            .concat(),
        ))
    };
    assert_ne!(timed(&[]), timed(&["--think-us", "500"]));
}

#[test]
fn a_block_size_of_zero_is_refused_for_every_trace_and_entry() {
    let dir = tempfile::tempdir().unwrap();
    // lirs and arc traces took it (bytes_requested 0, -c 1MiB as 1,048,576 blocks).
    for (t, format) in [(lirs(dir.path()), "lirs"), (arc(dir.path()), "arc")] {
        let out = run_sim(&t, format, &["-c", "1MiB", "--block-size", "0"]);
        assert_error(&out, "invalid --block-size '0'");
        let out = belady(&["mrc", "-t", &t, "-f", format, "--block-size", "0"]);
        assert_error(&out, "invalid --block-size '0'");
        let config = write(
            dir.path(),
            "zero.json",
            &format!(
                "{{\n  \"trace\": \"{t}\",\n  \"format\": \"{format}\",\n  \"cache_sizes\": [\"1MiB\"],\n  \"block_size\": 0\n}}\n"
            ),
        );
        let out = belady(&["sim", "--config", &config]);
        assert_error(&out, &format!("{config}:5: invalid `block_size` '0'"));
    }
}

#[test]
fn a_misspelt_policy_in_a_setting_is_the_settings_fault() {
    let dir = tempfile::tempdir().unwrap();
    let t = lirs(dir.path());
    let out = run_sim(&t, "lirs", &["-c", "10", "--param", "lruu.x=1"]);
    let err = assert_error_all(&out, &["invalid --param 'lruu.x=1'", "did you mean 'lru'"]);
    assert!(!err.contains("--policy"), "{err}");
}

#[test]
fn config_file_errors_name_the_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let t = lirs(dir.path());
    let json = write(
        dir.path(),
        "run.json",
        &format!(
            "{{\n  \"trace\": \"{t}\",\n  \"format\": \"lirs\",\n  \"cache_sizes\": [\"10\"],\n  \"think_us\": 5.0\n}}\n"
        ),
    );
    let err = assert_error(
        &belady(&["sim", "--config", &json]),
        &format!("{json}:5: invalid `think_us` '5'"),
    );
    assert!(
        err.contains("`levels`") && err.contains("`disk`") && !err.contains("--"),
        "{err}"
    );
    let toml = write(
        dir.path(),
        "run.toml",
        &format!("trace = \"{t}\"\nformat = \"lirs\"\ncache_sizes = [\"10\"]\nmax_request = \"5%\"\nprefetch = [\"linux24\"]\n"),
    );
    let err = assert_error(
        &belady(&["sim", "--config", &toml]),
        &format!("{toml}:4: invalid `max_request` '5%'"),
    );
    assert!(!err.contains("--"), "{err}");
}

#[test]
fn an_object_traces_default_model_is_named_when_it_refuses_what_the_user_gave() {
    let dir = tempfile::tempdir().unwrap();
    let t = object_trace(dir.path());
    for (args, flag) in [
        (vec!["--levels", "c:lru:100,s:lru:200"], "invalid --levels"),
        (
            vec!["-c", "100", "--prefetch", "linux24"],
            "invalid --prefetch 'linux24'",
        ),
        (vec!["-c", "100", "--disk", "hdd"], "invalid --disk 'hdd'"),
    ] {
        let out = belady(&[&["sim", &t][..], &args].concat());
        let err = assert_error_all(&out, &[flag, "by default", "--cache-model blocks"]);
        assert!(
            !err.contains("invalid --cache-model") && !err.contains("cache_model ="),
            "{err}"
        );
        // As advised, the blocks model runs it.
        ok(&belady(
            &[&["sim", &t, "--cache-model", "blocks"][..], &args].concat(),
        ));
    }
}

#[test]
fn sweep_errors_name_the_experiment_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let t = lirs(dir.path());
    let store = path_in(dir.path(), "s.sqlite");
    for (body, needles) in [
        // A size too small for the trace fails in its run: the run, the file and the key.
        (
            "policies = [\"lru\"]\nsizes = [\"1%\"]\n",
            vec![":2: run lru at 1% on", "invalid `cache_sizes` '1%'"],
        ),
        // A bad setting fails when planned.
        (
            "policies = [\"lirs\"]\nsizes = [\"10\"]\nparams = [\"lirs.hir=abc\"]\n",
            vec![":3: run lirs at 10 on", "invalid `params` 'lirs.hir=abc'"],
        ),
        (
            "policies = [\"lru\"]\nsizes = [\"10\"]\nthink_us = 3.0\n",
            vec![":3: invalid `think_us` '3'", "`levels`"],
        ),
    ] {
        let exp = write(
            dir.path(),
            "e.toml",
            &format!("{body}[[trace]]\npath = \"{t}\"\nformat = \"lirs\"\n"),
        );
        let tiny = write(dir.path(), "tiny.lirs", "1\n2\n3\n");
        let exp_text = std::fs::read_to_string(&exp).unwrap().replace(&t, &tiny);
        std::fs::write(&exp, exp_text).unwrap();
        let err = assert_error_all(&belady(&["sweep", &exp, "--store", &store]), &needles);
        assert!(
            err.contains(&exp) && !err.contains("--run") && !err.contains("invalid --"),
            "{err}"
        );
    }
}

#[test]
fn mrc_reads_sizes_as_sim_does_on_an_object_trace() {
    let dir = tempfile::tempdir().unwrap();
    let t = object_trace(dir.path());
    for model in [None, Some("blocks"), Some("objects")] {
        let extra: Vec<&str> = model.map_or(Vec::new(), |m| vec!["--cache-model", m]);
        let sim = json_rows(&belady(
            &[
                &["sim", &t, "-p", "lru,arc", "-c", "100,1MiB,5%", "--json"][..],
                &extra,
            ]
            .concat(),
        ));
        let mrc = json_rows(&belady(
            &[
                &["mrc", &t, "-p", "lru,arc", "-c", "100,1MiB,5%", "--json"][..],
                &extra,
            ]
            .concat(),
        ));
        assert_eq!(sim.len(), mrc.len(), "{model:?}");
        // Both give each policy's rows by size; mrc orders counted sizes first.
        // A row's capacity: its count, or its bytes when it weighs objects (count 0; a blocks
        // row's `cache_bytes` is its blocks' bytes, not its capacity's unit).
        let key = |r: &serde_json::Value| {
            let count = r["cache_blocks"].as_u64().unwrap_or(0);
            let bytes = r["cache_bytes"].as_u64().filter(|_| count == 0);
            (r["policy"].as_str().unwrap().to_string(), bytes, count)
        };
        for s in &sim {
            let m = mrc
                .iter()
                .find(|m| key(m) == key(s))
                .unwrap_or_else(|| panic!("{model:?}: no mrc row for {s}"));
            let sim_mr = s["misses"].as_f64().unwrap() / s["requests"].as_f64().unwrap();
            assert!(
                (m["miss_ratio"].as_f64().unwrap() - sim_mr).abs() < 1e-12,
                "{model:?}: {m} vs {s}"
            );
            assert_eq!(m["hits"], s["hits"], "{model:?}");
        }
        // In the objects model 1MiB and 5% are byte capacities, as in sim, and such a row
        // has no block count (it once said 0).
        let weighed = mrc.iter().filter(|r| r["cache_bytes"].is_u64()).count();
        assert_eq!(weighed, if model == Some("blocks") { 0 } else { 4 });
        for r in mrc.iter().filter(|r| r["cache_bytes"].is_u64()) {
            assert!(r.get("cache_blocks").is_none(), "{model:?}: {r}");
        }
    }
    // Sampling measures counted caches: a byte capacity with it is refused in one line.
    let out = belady(&["mrc", &t, "-c", "1MiB", "--sample-rate", "0.1"]);
    assert_error_all(&out, &["invalid --sample-rate '0.1'", "1MiB"]);
    // The CSV says which rows are byte capacities.
    let csv = ok(&belady(&["mrc", &t, "-c", "100,1MiB"]));
    assert!(csv.starts_with("policy,cache_blocks,cache_bytes,"), "{csv}");
    assert!(csv.contains("\",,1048576,"), "{csv}");
    assert!(!csv.contains(",0,1048576,"), "{csv}");
}

#[test]
fn spellings_of_one_run_store_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let t = lirs(dir.path());
    let store = path_in(dir.path(), "s.sqlite");
    let sweep = |body: &str| {
        let exp = write(
            dir.path(),
            "e.toml",
            &format!("{body}[[trace]]\npath = \"{t}\"\nformat = \"lirs\"\n"),
        );
        let out = belady(&["sweep", &exp, "--store", &store, "--quiet"]);
        ok(&out);
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // Three spellings of 64 KiB in one experiment: one run.
    let said = sweep("policies = [\"lru\"]\nsizes = [\"64KiB\", \"65536B\", \"64K\"]\n");
    assert!(said.starts_with("1 runs (2 duplicate"), "{said}");
    // The same run spelled otherwise later, an admission rule in capitals, a policy's name and
    // a setting's number written another way: nothing new to compute.
    assert!(sweep("policies = [\"LRU\"]\nsizes = [\"65536 B\"]\n").contains("0 done now"));
    sweep("policies = [\"lru\"]\nsizes = [\"10\"]\nadmission = \"size:64KiB\"\n");
    for body in [
        "policies = [\"lru\"]\nsizes = [\"10\"]\nadmission = \"size:65536\"\n",
        "policies = [\"lru\"]\nsizes = [\"10\"]\nadmission = \"SIZE:64K\"\n",
    ] {
        assert!(sweep(body).contains("0 done now"), "{body}");
    }
    sweep("policies = [\"lru\"]\nsizes = [\"10\"]\nadmission = \"tinylfu\"\n");
    assert!(
        sweep("policies = [\"lru\"]\nsizes = [\"10\"]\nadmission = \"TinyLFU\"\n")
            .contains("0 done now")
    );
    sweep("policies = [\"lirs\"]\nsizes = [\"10\"]\nparams = [\"lirs.hir=0.05\"]\n");
    assert!(
        sweep("policies = [\"LIRS\"]\nsizes = [\"10\"]\nparams = [\"lirs.hir=0.050\"]\n")
            .contains("0 done now")
    );
    // An option that changes nothing in a cell is not part of its key: the cell without
    // read-ahead is the one stored above.
    let said = sweep(
        "policies = [\"lru\"]\nsizes = [\"64KiB\"]\nprefetch = [\"none\", \"linux24\"]\nread_ahead_kb = 64\n",
    );
    assert!(
        said.contains("1 done now") && said.contains("1 already"),
        "{said}"
    );
}

#[test]
fn a_store_an_older_version_keyed_otherwise_is_still_found() {
    let dir = tempfile::tempdir().unwrap();
    let t = lirs(dir.path());
    let store = path_in(dir.path(), "s.sqlite");
    let exp = write(
        dir.path(),
        "e.toml",
        &format!("policies = [\"lru\"]\nsizes = [\"64K\"]\nadmission = \"TinyLFU\"\n[[trace]]\npath = \"{t}\"\nformat = \"lirs\"\n"),
    );
    ok(&belady(&["sweep", &exp, "--store", &store, "--quiet"]));
    // An older version hashed the spelling as written: its key column holds another key.
    let db = rusqlite::Connection::open(&store).unwrap();
    db.execute("UPDATE runs SET key = 'written-by-an-older-version'", [])
        .unwrap();
    drop(db);
    let out = belady(&["sweep", &exp, "--store", &store, "--quiet"]);
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    ok(&out);
    assert!(said.contains("0 done now, 1 already"), "{said}");
}
