//! `belady demo`: every policy at several sizes on the shipped sample traces; `belady demo
//! clusterfetch`: ClusterFetch on recorded launches.

use anyhow::{bail, Context, Result};
use belady_core::sweep::store::Store;
use belady_core::sweep::{Experiment, Plan, PlannedTrace, TraceSpec};
use belady_core::workload::{self, GenSpec, Generator, OutFormat};
use belady_core::POLICIES;
use belady_core::{RunConfig, RunResult};
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct DemoArgs {
    /// Directory holding the sample traces (default: the copies built into belady).
    #[arg(long, global = true)]
    data: Option<PathBuf>,
    /// Where the demo writes its generated traces, results store and report.
    #[arg(long, default_value = "belady-demo")]
    out: PathBuf,
    /// Print every run's table, with a legend of the columns, instead of the summary.
    #[arg(long)]
    verbose: bool,
    #[command(subcommand)]
    which: Option<DemoKind>,
}

#[derive(Subcommand)]
enum DemoKind {
    /// Every policy on the LRU-K paper's indexed database and on scans: where LRU fails and
    /// which policies fix it.
    LruFailures(LruFailuresArgs),
    /// ClusterFetch on recorded program launches: cold, warm and assisted launch times under an
    /// HDD and an SSD model.
    Clusterfetch(crate::clusterfetch_demo::DemoArgs),
}

#[derive(Args)]
struct LruFailuresArgs {
    /// Random seed of the generated workloads.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print JSON (every run) instead of the table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: DemoArgs) -> Result<()> {
    let dir = args.data.unwrap_or_else(crate::data_dir);
    match args.which {
        Some(DemoKind::LruFailures(a)) => return lru_failures(a),
        Some(DemoKind::Clusterfetch(a)) => return crate::clusterfetch_demo::run(a, &dir),
        None => {}
    }
    let out = args.out;
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut traces = Vec::new();
    for name in ["scan-hot.trace.gz", "zipf-loop.trace.gz"] {
        let path = dir.join(name);
        if !path.is_file() {
            bail!(
                "{}: sample trace missing (run from a belady checkout or pass --data DIR)",
                path.display()
            );
        }
        traces.push(TraceSpec {
            path: std::fs::canonicalize(&path)?,
            format: Some("lirs".into()),
            block_size: Some(4096),
            name: None,
        });
    }
    // Two generated file-level programs, so read-ahead has files to work on: a cscope-like loop
    // over many files and a tpc-h-like random reader.
    for (kind, file, settings) in [
        (
            "sequential-files",
            "files-loop.bev",
            &[("requests", "60000"), ("files", "300")][..],
        ),
        (
            "random-files",
            "random-reads.bev",
            &[
                ("requests", "20000"),
                ("files", "2"),
                ("file-size", "64MiB"),
            ][..],
        ),
    ] {
        let path = out.join(file);
        let mut spec = GenSpec::new(kind)?;
        for (k, v) in settings {
            spec.set(k, v)?;
        }
        workload::write(spec.build(1)?, &path, OutFormat::Events, file, 4096)?;
        traces.push(TraceSpec {
            path: std::fs::canonicalize(&path)?,
            format: Some("events".into()),
            block_size: Some(4096),
            name: None,
        });
    }
    let exp = Experiment {
        name: "belady demo".into(),
        store: None,
        traces,
        run: RunConfig {
            policies: POLICIES.iter().map(|p| p.name.to_string()).collect(),
            cache_sizes: ["5%", "10%", "20%", "40%"].map(String::from).to_vec(),
            prefetch: vec!["none".into(), "linux24".into()],
            disk: vec!["cheetah9lp".into()],
            ..RunConfig::default()
        },
    };
    let plan = Plan::new(&exp, &out, "belady demo")?;
    let store_path = out.join("results.sqlite");
    let store = Store::open(&store_path)?;
    let todo = plan.pending(&store)?;
    // A rerun prints results computed before: say so, and how to have them computed again.
    let reused = plan.runs.len() - todo.len();
    if reused > 0 {
        eprintln!(
            "belady demo: reusing {reused} of its {} runs stored in {} (same belady version, same \
             traces); delete that file, or pass --out DIR, to compute them again",
            plan.runs.len(),
            store_path.display()
        );
    }
    plan.execute(&todo, &store, None, &mut || {})?;
    let report = out.join("report.html");
    let charts = crate::report::write_report(&store_path, &report, None, &[])?;
    // Only this demo's runs: the store may hold others (an --out reused with other settings).
    let keys: std::collections::HashSet<String> = plan.runs.iter().map(|(_, c)| c.key()).collect();
    let stored: Vec<_> = store
        .runs()?
        .into_iter()
        .filter(|r| keys.contains(&r.config.key()))
        .collect();
    // Distinct blocks of each trace, as its runs counted them.
    let unique = |trace: &PlannedTrace| {
        stored
            .iter()
            .find(|r| r.config.trace == trace.label)
            .map_or(0, |r| r.result.unique_blocks as usize)
    };
    let name = |trace: &PlannedTrace| {
        trace
            .path
            .file_name()
            .map_or_else(|| trace.label.clone(), |n| n.to_string_lossy().into_owned())
    };
    let where_ = format!(
        "{} ({} charts); every run in {}",
        report.display(),
        charts,
        store_path.display()
    );
    if !args.verbose {
        let traces: Vec<(String, String, usize)> = plan
            .traces
            .iter()
            .map(|t| (t.label.clone(), name(t), unique(t)))
            .collect();
        return crate::emit(&crate::demo_summary::summary(
            &traces,
            &stored,
            exp.run.cache_sizes.len(),
            &where_,
        ));
    }
    crate::emit(crate::demo_summary::LEGEND)?;
    for trace in &plan.traces {
        for prefetch in ["none", "linux24"] {
            let runs: Vec<RunResult> = stored
                .iter()
                .filter(|r| {
                    r.config.trace == trace.label && r.config.run.the_prefetch() == prefetch
                })
                .map(|r| r.result.clone())
                .collect();
            crate::emit(&format!(
                "\n== {}, read-ahead {prefetch}, disk cheetah9lp ({} unique blocks)\n{}",
                name(trace),
                unique(trace),
                crate::table::runs(&runs)
            ))?;
        }
    }
    crate::emit(&format!("\n{} runs; report: {where_}\n", plan.runs.len(),))?;
    Ok(())
}

/// One workload of the LRU-failure demo: a generator, its settings and the cache size.
struct Case {
    name: &'static str,
    kind: &'static str,
    params: &'static [(&'static str, &'static str)],
    cache: u64,
    what: &'static str,
}

const CASES: &[Case] = &[
    Case {
        name: "indexed-db",
        kind: "indexed-db",
        params: &[("requests", "200000")],
        cache: 101,
        what: "LRU-K paper: 100 leaf pages (p = 0.005 each) and 10,000 record pages (p = 0.00005) referenced alternately",
    },
    Case {
        name: "scan-cyclic",
        kind: "scan",
        params: &[("requests", "100000"), ("region", "600"), ("mode", "cyclic")],
        cache: 500,
        what: "scan.c cyclic: a 600-block region scanned over and over",
    },
    Case {
        name: "scan-use-once",
        kind: "scan",
        params: &[
            ("requests", "100000"),
            ("region", "5000"),
            ("mode", "use-once"),
            ("hot", "400"),
            ("hot-share", "0.5"),
        ],
        cache: 500,
        what: "scan.c use-once: a 400-block hot set (half the references) under a never-repeating scan",
    },
];

/// Whether `hit` recovers at least half of the gap between LRU and OPT.
fn fixes(hit: f64, lru: f64, opt: f64) -> bool {
    opt - lru > 1e-9 && hit - lru >= 0.5 * (opt - lru)
}

fn lru_failures(args: LruFailuresArgs) -> Result<()> {
    let all: Vec<&str> = POLICIES.iter().map(|p| p.name).collect();
    let mut columns: Vec<Vec<RunResult>> = Vec::new();
    for case in CASES {
        let mut spec = GenSpec::new(case.kind)?;
        for (k, v) in case.params {
            spec.set(k, v)?;
        }
        let gen = spec.build(args.seed)?;
        if !matches!(gen, Generator::Block(_)) {
            bail!("{} is not a block-level generator", case.kind);
        }
        // Written to a private file and run as `belady sim` runs it.
        let dir = tempfile::tempdir()?;
        let path = dir.path().join(format!("{}.bel", case.name));
        workload::write(gen, &path, OutFormat::Native, case.name, 4096)?;
        let out = belady_core::run(&RunConfig {
            trace: path,
            policies: all.iter().map(|p| p.to_string()).collect(),
            cache_sizes: vec![case.cache.to_string()],
            ..RunConfig::default()
        })?;
        columns.push(out.runs);
    }
    if args.json {
        let runs: Vec<&RunResult> = columns.iter().flatten().collect();
        return crate::emit(&format!("{}\n", serde_json::to_string_pretty(&runs)?));
    }
    let ratio = |c: usize, name: &str| {
        columns[c]
            .iter()
            .find(|r| r.policy == name)
            .map_or(0.0, |r| r.hit_ratio)
    };
    let mut out = format!("LRU's failure modes (seed {})\n", args.seed);
    for case in CASES {
        out.push_str(&format!(
            "  {:<14} {} blocks of cache; {}\n",
            case.name, case.cache, case.what
        ));
    }
    out.push_str(
        "hit ratio in %; 'fixes' = recovers at least half of the gap between LRU and OPT\n\n",
    );
    let mut header = format!("{:<10}", "policy");
    for case in CASES {
        header.push_str(&format!("  {:>14}  {:>5}", case.name, "fixes"));
    }
    out.push_str(&header);
    out.push('\n');
    let mut fix_all = Vec::new();
    for (p, &name) in all.iter().enumerate() {
        let mut line = format!("{name:<10}");
        let mut every = true;
        for (c, runs) in columns.iter().enumerate() {
            let hit = runs[p].hit_ratio;
            let verdict = if name == "lru" || name == "opt" {
                "-"
            } else if fixes(hit, ratio(c, "lru"), ratio(c, "opt")) {
                "yes"
            } else {
                every = false;
                "no"
            };
            line.push_str(&format!("  {:>14.2}  {verdict:>5}", 100.0 * hit));
        }
        if every && name != "lru" && name != "opt" {
            fix_all.push(name);
        }
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&format!(
        "\nfix LRU on every workload: {}\n",
        if fix_all.is_empty() {
            "none".to_string()
        } else {
            fix_all.join(", ")
        }
    ));
    crate::emit(&out)
}
