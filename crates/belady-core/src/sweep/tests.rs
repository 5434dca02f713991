//! The sweep's planning and execution, against direct runs.

use super::*;
use crate::engine::file::run_file_hierarchy;
use crate::engine::{run_one, PreparedTrace, RunResult};
use crate::policy::registry::{PolicySpec, Preset};
use crate::run::config::RunConfig;
use crate::trace::{BlockTrace, Format, OpFilter, ReadOptions};
use std::path::{Path, PathBuf};

/// A stored row's result.
fn result(row: serde_json::Value) -> RunResult {
    serde_json::from_value(row).unwrap()
}

impl Plan {
    /// Run `i`'s result.
    fn result(&self, i: usize) -> crate::Result<RunResult> {
        self.run(i).map(result)
    }
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn a_plan_lists_the_grid_and_runs_match_their_configs() {
    let dir = tempfile::tempdir().unwrap();
    let ids: String = (0..400).map(|i| format!("{}\n", (i * 7) % 90)).collect();
    write(dir.path(), "t.trace", &ids);
    let exp = Experiment::from_toml(
            "policies = [\"lru\", \"arc\"]\nsizes = [\"10\", \"50%\"]\nprefetch = [\"none\", \"linux24\"]\n\
             [[trace]]\npath = \"t.trace\"\nformat = \"lirs\"\n",
            "e.toml",
        )
        .unwrap();
    let plan = Plan::new(&exp, dir.path(), "e").unwrap();
    assert_eq!(plan.runs.len(), 2 * 2 * 2);
    assert_eq!(
        plan.result(1).unwrap().capacity.amount,
        45,
        "50% of 90 unique blocks"
    );
    let keys: std::collections::HashSet<String> = plan.runs.iter().map(|(_, c)| c.key()).collect();
    assert_eq!(
        keys.len(),
        plan.runs.len(),
        "every configuration has its own key"
    );
    for i in 0..plan.runs.len() {
        let here = plan.run(i).unwrap();
        let remote = run_config(&plan.runs[i].1).unwrap();
        assert_eq!(here, remote);
    }
    // The key ignores where this machine keeps the trace.
    let mut moved = plan.runs[0].1.clone();
    moved.run.trace = "/elsewhere/t.trace".into();
    assert_eq!(moved.key(), plan.runs[0].1.key());
    // A changed trace is refused rather than silently simulated.
    write(dir.path(), "t.trace", "1\n2\n");
    let err = run_config(&plan.runs[0].1).unwrap_err().to_string();
    assert!(err.contains("SHA-256"), "{err}");
}

#[test]
fn read_ahead_kb_reaches_the_runs_and_their_keys() {
    let dir = tempfile::tempdir().unwrap();
    let ids: String = (0..600).map(|i| format!("{}\n", i % 300)).collect();
    write(dir.path(), "t.trace", &ids);
    let plan = |extra: &str| {
        let text = format!(
            "policies = [\"lru\"]\nsizes = [\"100\"]\nprefetch = [\"linux24\"]\n{extra}\
                 [[trace]]\npath = \"t.trace\"\nformat = \"lirs\"\n"
        );
        Plan::new(
            &Experiment::from_toml(&text, "e.toml").unwrap(),
            dir.path(),
            "e",
        )
        .unwrap()
    };
    let (default, small) = (plan(""), plan("read_ahead_kb = 16\n"));
    let (d, s) = (&default.runs[0].1, &small.runs[0].1);
    assert_eq!((d.run.read_ahead_kb, s.run.read_ahead_kb), (None, Some(16)));
    assert_ne!(d.key(), s.key());
    // 16 KiB windows (4 blocks) read the 300-block loop in more, smaller requests.
    let requests = |p: &Plan| p.result(0).unwrap().io.unwrap().disk_requests;
    assert!(requests(&small) > requests(&default));
}

#[test]
fn each_run_gets_the_settings_of_its_own_policy() {
    let dir = tempfile::tempdir().unwrap();
    let ids: String = (0..3000)
        .map(|i| format!("{}\n", (i * 31 + i / 7) % 400))
        .collect();
    write(dir.path(), "t.trace", &ids);
    let trace_toml = "[[trace]]\npath = \"t.trace\"\nformat = \"lirs\"\n";
    let plan = |head: &str| {
        let text = format!("sizes = [\"40\", \"120\"]\n{head}\n{trace_toml}");
        Plan::new(&Experiment::from_toml(&text, "e.toml")?, dir.path(), "e")
    };
    let read_ahead = "prefetch = [\"none\", \"linux24\"]";
    let plain = plan(&format!("policies = [\"lru\", \"lirs\"]\n{read_ahead}")).unwrap();
    let tuned = plan(&format!(
            "policies = [\"lru\", \"lirs\", \"LIRS(hir=0.3)\"]\nparams = [\"lirs.hir=0.1\"]\n{read_ahead}"
        ))
        .unwrap();
    assert_eq!(tuned.runs.len(), 2 * 3 * 2);
    // Runs of a policy without settings keep the configuration, hence the key, they had in
    // a sweep without `params`: a store filled by that sweep counts them as done.
    let lru = |p: &Plan| -> Vec<CellConfig> {
        p.runs
            .iter()
            .filter(|(_, c)| c.run.policies == ["lru"])
            .map(|(_, c)| c.clone())
            .collect()
    };
    assert_eq!(lru(&tuned).len(), 4);
    assert_eq!(lru(&tuned), lru(&plain));
    let trace = PreparedTrace::new(
        BlockTrace::load(
            &dir.path().join("t.trace"),
            &Format::Lirs,
            &ReadOptions::default(),
            OpFilter::Read,
        )
        .unwrap(),
    );
    let mut lirs_hits = std::collections::BTreeMap::new();
    for (i, (_, config)) in tuned.runs.iter().enumerate() {
        let got = tuned.result(i).unwrap();
        assert_eq!(
            got,
            result(run_config(config).unwrap()),
            "a worker gets the same"
        );
        let (label, params): (&str, &[&str]) = match config.run.params.len() {
            0 => ("lru", &[]),
            1 => ("lirs(hir=0.1)", &["lirs.hir=0.1"]),
            _ => ("lirs(hir=0.3)", &["lirs.hir=0.1", "lirs.hir=0.3"]),
        };
        assert_eq!(got.policy, label);
        assert_eq!(config.run.params, params);
        if config.run.the_prefetch() == "none" {
            let mut spec = PolicySpec::parse(label.split('(').next().unwrap()).unwrap();
            if let Some(hir) = label.strip_prefix("lirs(hir=") {
                spec.set("hir", hir.trim_end_matches(')')).unwrap();
            }
            let direct = run_one(&spec, &trace, got.capacity.amount as usize).unwrap();
            assert_eq!(got.hits, direct.hits, "{label}");
            lirs_hits.insert((label, got.capacity.amount), got.hits);
        }
    }
    assert_ne!(
        lirs_hits[&("lirs(hir=0.1)", 40)],
        lirs_hits[&("lirs(hir=0.3)", 40)],
        "the entry's own setting wins over the experiment's"
    );
    // Hierarchies get the settings of their levels' policies, single policies theirs.
    let mixed = plan(
        "policies = [\"lirs\"]\nparams = [\"lirs.hir=0.1\", \"lru-k.k=3\"]\n\
             levels = [\"client:lru-k:40,storage:lru:80\"]",
    )
    .unwrap();
    let params: Vec<&[String]> = mixed.runs.iter().map(|(_, c)| &c.run.params[..]).collect();
    assert_eq!(
        params,
        [&["lru-k.k=3"][..], &["lirs.hir=0.1"], &["lirs.hir=0.1"]]
    );
    for i in 0..mixed.runs.len() {
        mixed.run(i).unwrap();
    }
    // A setting for a policy no run uses is refused once, before any trace is read.
    let exp = Experiment::from_toml(
        "policies = [\"lru\", \"lirs\"]\nparams = [\"arc.p=1\"]\nsizes = [\"4\"]\n\
             [[trace]]\npath = \"absent.trace\"\n",
        "x.toml",
    )
    .unwrap();
    let err = Plan::new(&exp, dir.path(), "x").err().unwrap().to_string();
    assert!(
        err.contains("arc.p=1") && err.contains("in none of the experiment's policies"),
        "{err}"
    );
    for (entry, wanted) in [
        ("lirs(hir=0.1", "expected NAME or NAME(KEY=VALUE,...)"),
        ("lirs(hir)", "expected NAME or NAME(KEY=VALUE,...)"),
        ("lirs((hir=1))", "expected NAME or NAME(KEY=VALUE,...)"),
        ("lirs(bogus=1)", "has no parameter 'bogus'"),
        ("lru,fifo", "unknown policy"),
    ] {
        let err = plan(&format!("policies = [\"{entry}\"]"))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains(wanted), "{entry}: {err}");
    }
}

#[test]
fn experiments_sweep_hierarchies_too() {
    let dir = tempfile::tempdir().unwrap();
    let ids: String = (0..3000)
        .map(|i| format!("{}\n", (i * 31 + i / 7) % 400))
        .collect();
    write(dir.path(), "h.trace", &ids);
    let exp = Experiment::from_toml(
        "levels = [\"client:lru:40,storage:lru:80\", \"client:lru:40,storage:mq:80\"]\n\
             placements = [\"access\", \"eviction\"]\n\
             [[trace]]\npath = \"h.trace\"\nformat = \"lirs\"\n",
        "h.toml",
    )
    .unwrap();
    let plan = Plan::new(&exp, dir.path(), "h").unwrap();
    assert_eq!(plan.runs.len(), 2 * 2);
    let trace = PreparedTrace::new(
        BlockTrace::load(
            &dir.path().join("h.trace"),
            &Format::Lirs,
            &ReadOptions::default(),
            OpFilter::Read,
        )
        .unwrap(),
    );
    for (i, (_, config)) in plan.runs.iter().enumerate() {
        let got = plan.result(i).unwrap();
        let spec = crate::engine::hierarchy::HierarchySpec::parse(
            &config.run.levels[0],
            &[],
            Preset::Paper,
            crate::engine::hierarchy::Placement::parse(&config.run.placement).unwrap(),
        )
        .unwrap();
        let direct =
            crate::engine::hierarchy::reference::run_hierarchy(&spec, &trace, None).unwrap();
        assert_eq!(got.levels.as_ref(), Some(&direct.levels));
        assert_eq!((got.hits, got.requests), (direct.hits, direct.requests));
        assert_eq!(got, result(run_config(config).unwrap()));
    }
    // Hierarchies compose with read-ahead: each setting runs every hierarchy, on the file
    // engine, with the same result as a direct run.
    let exp = Experiment::from_toml(
        "levels = [\"client:lru:40,storage:lru:80\"]\nprefetch = [\"none\", \"linux24\"]\n\
             [[trace]]\npath = \"h.trace\"\nformat = \"lirs\"\n",
        "ra.toml",
    )
    .unwrap();
    let plan = Plan::new(&exp, dir.path(), "ra").unwrap();
    assert_eq!(plan.runs.len(), 2);
    let with_ra = plan.result(1).unwrap();
    assert_eq!(with_ra.prefetch.as_deref(), Some("linux24"));
    assert_eq!(with_ra.levels.as_ref().map(Vec::len), Some(2));
    let files = crate::engine::file::PreparedFileTrace::from_block_trace(&trace.trace).unwrap();
    let spec = crate::engine::hierarchy::HierarchySpec::parse(
        "client:lru:40,storage:lru:80",
        &[],
        Preset::Paper,
        crate::engine::hierarchy::Placement::Access,
    )
    .unwrap();
    let cfg = RunConfig {
        prefetch: vec!["linux24".into()],
        ..RunConfig::default()
    }
    .file_config()
    .unwrap();
    assert_eq!(with_ra, run_file_hierarchy(&spec, &files, &cfg).unwrap());
    assert_eq!(with_ra, result(run_config(&plan.runs[1].1).unwrap()));
}

#[test]
fn bad_experiments_name_the_file_and_line() {
    let err = Experiment::from_toml("policies = [\"lru\"]\nsizes = 3\n", "x.toml")
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("x.toml:2:"), "{err}");
    let err = Experiment::from_toml(
        "policies = [\"lru\"]\nsizes = [\"1\"]\ntrace = []\n",
        "y.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("y.toml") && err.contains("[[trace]]"), "{err}");
}

#[test]
fn cells_run_as_the_core_runs_the_same_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let ids: String = (0..2000)
        .map(|i| format!("{}\n", (i * 13 + i / 9) % 300))
        .collect();
    let path = write(dir.path(), "s.trace", &ids);
    // Untimed, on a disk with a scheduler, and under read-ahead: the block engine and the file
    // engine, chosen for the plan's cells by the same rule as for a whole run.
    let exp = Experiment::from_toml(
        "policies = [\"lru\", \"arc\"]\nsizes = [\"30\", \"20%\"]\nprefetch = [\"none\", \"linux24\"]\n\
         disks = [\"none\", \"hdd7200\"]\nscheduler = \"clook\"\n\
         [[trace]]\npath = \"s.trace\"\nformat = \"lirs\"\n",
        "s.toml",
    )
    .unwrap();
    let plan = Plan::new(&exp, dir.path(), "s");
    // A scheduler orders a device queue: without a disk the plan is refused before any run.
    assert!(plan.is_err());
    let exp = Experiment::from_toml(
        "policies = [\"lru\", \"arc\"]\nsizes = [\"30\", \"20%\"]\nprefetch = [\"none\", \"linux24\"]\n\
         disks = [\"none\", \"hdd7200\"]\n[[trace]]\npath = \"s.trace\"\nformat = \"lirs\"\n",
        "s.toml",
    )
    .unwrap();
    let plan = Plan::new(&exp, dir.path(), "s").unwrap();
    assert_eq!(plan.runs.len(), 2 * 2 * 2 * 2);
    for (i, (_, cell)) in plan.runs.iter().enumerate() {
        let got = plan.run(i).unwrap();
        // The same run through the one entry, as `sim --config` would read it.
        let whole = crate::run(&RunConfig {
            trace: path.clone(),
            ..cell.run.clone()
        })
        .unwrap();
        assert_eq!(whole.rows(), vec![got], "{}", cell.label());
    }
}

#[test]
fn two_spellings_of_one_run_get_one_key() {
    let dir = tempfile::tempdir().unwrap();
    let ids: String = (0..300).map(|i| format!("{}\n", (i * 7) % 50)).collect();
    write(dir.path(), "t.trace", &ids);
    let keys = |policy: &str, path: &str, prefetch: &str| -> Vec<String> {
        let text = format!(
            "policies = [\"{policy}\"]\nsizes = [\"10\"]\nprefetch = [\"{prefetch}\"]\n\
             [[trace]]\npath = \"{path}\"\nformat = \"lirs\"\n"
        );
        let exp = Experiment::from_toml(&text, "e.toml").unwrap();
        let plan = Plan::new(&exp, dir.path(), "e").unwrap();
        plan.runs.iter().map(|(_, c)| c.key()).collect()
    };
    let canonical = keys("lru", "t.trace", "none");
    assert_eq!(keys("LRU", "./t.trace", "off"), canonical);
    assert_eq!(keys("Lru", "./././t.trace", "None"), canonical);
    assert_ne!(keys("fifo", "t.trace", "none"), canonical);
}

#[test]
fn every_key_of_sim_is_an_experiment_key_and_old_names_still_work() {
    let dir = tempfile::tempdir().unwrap();
    let ids: String = (0..300).map(|i| format!("{}\n", (i * 7) % 50)).collect();
    write(dir.path(), "t.trace", &ids);
    let trace = "[[trace]]\npath = \"t.trace\"\nformat = \"lirs\"\n";
    let old = Experiment::from_toml(
        &format!("policies = [\"lru\"]\nsizes = [\"10\"]\ndisks = [\"none\"]\n{trace}"),
        "old.toml",
    )
    .unwrap();
    let new = Experiment::from_toml(
        &format!("policies = [\"lru\"]\ncache_sizes = [\"10\"]\ndisk = [\"none\"]\n{trace}"),
        "new.toml",
    )
    .unwrap();
    let keys = |e: &Experiment| -> Vec<String> {
        let p = Plan::new(e, dir.path(), "e").unwrap();
        p.runs.iter().map(|(_, c)| c.key()).collect()
    };
    assert_eq!(keys(&old), keys(&new));
    let err = Experiment::from_toml(
        &format!("policies = [\"lru\"]\nsizes = [\"1\"]\ncache_sizes = [\"2\"]\n{trace}"),
        "both.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with("both.toml:2:") && err.contains("old name of `cache_sizes`"),
        "{err}"
    );
    // Keys `sim` has and the old experiments lacked: ops, compat rules, link timing, ...
    let exp = Experiment::from_toml(
        &format!(
            "policies = [\"lru\"]\ncache_sizes = [\"10\"]\nops = \"all\"\n\
             compat_rules = [\"request-cap-33\"]\nprefetch = [\"linux24\"]\nlink_mbps = 100.0\n{trace}"
        ),
        "all.toml",
    )
    .unwrap();
    let plan = Plan::new(&exp, dir.path(), "all").unwrap();
    let cell = &plan.runs[0].1;
    assert_eq!(cell.run.ops, "all");
    assert_eq!(cell.run.compat_rules, ["request-cap-33"]);
    assert_eq!(cell.run.link_mbps, 100.0);
    let err = Experiment::from_toml(&format!("polices = [\"lru\"]\n{trace}"), "typo.toml")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("typo.toml:1:") && err.contains("polices"),
        "{err}"
    );
    assert!(!err.contains('\n'), "{err}");
}

#[test]
fn the_variable_a_trace_path_starts_with_is_found() {
    use super::experiment::leading_variable;
    assert_eq!(
        leading_variable("${BELADY_TRACES}/lirs/x"),
        Some("BELADY_TRACES")
    );
    assert_eq!(leading_variable("${T:-../t}/x"), Some("T"));
    assert_eq!(leading_variable("$T/x"), Some("T"));
    assert_eq!(leading_variable("traces/${T}/x"), None);
    assert_eq!(leading_variable("$/x"), None);
}
