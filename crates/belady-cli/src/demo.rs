//! `belady demo`: every policy at several sizes on the shipped sample traces.

use anyhow::{bail, Result};
use belady_core::trace::{Format, OpFilter, ReadOptions};
use belady_core::workload::{self, GenSpec, Generator};
use belady_core::RunResult;
use belady_core::{
    parse_policies, run_grid, BlockTrace, CacheSize, PreparedTrace, Preset, POLICIES,
};
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct DemoArgs {
    /// Directory holding the sample traces (default: the checkout's data/).
    #[arg(long)]
    data: Option<PathBuf>,
    #[command(subcommand)]
    which: Option<DemoKind>,
}

#[derive(Subcommand)]
enum DemoKind {
    /// Every policy on the LRU-K paper's indexed database and on scans: where LRU fails and
    /// which policies fix it.
    LruFailures(LruFailuresArgs),
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
    if let Some(DemoKind::LruFailures(a)) = args.which {
        return lru_failures(a);
    }
    let dir = args.data.unwrap_or_else(crate::data_dir);
    let samples = [
        ("scan-hot.trace.gz", "250,500,750,1000,1250"),
        ("zipf-loop.trace.gz", "100,250,500,750,1000"),
    ];
    let all: Vec<&str> = POLICIES.iter().map(|p| p.name).collect();
    let specs = parse_policies(&all.join(","), &[], Preset::Paper)?;
    for (name, sizes) in samples {
        let sizes = CacheSize::parse_list(sizes)?;
        let path = dir.join(name);
        if !path.is_file() {
            bail!(
                "{}: sample trace missing (run from a belady checkout or pass --data DIR)",
                path.display()
            );
        }
        let trace = PreparedTrace::new(BlockTrace::load(
            &path,
            &Format::Lirs,
            &ReadOptions::default(),
            OpFilter::Read,
        )?);
        crate::emit(&format!(
            "\n== {} — {} references, {} unique blocks\n{}",
            name,
            trace.trace.refs.len(),
            trace.unique(),
            crate::table::runs(&run_grid(&specs, &sizes, &trace)?)
        ))?;
    }
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
    let specs = parse_policies(&all.join(","), &[], Preset::Paper)?;
    let mut columns: Vec<Vec<RunResult>> = Vec::new();
    for case in CASES {
        let mut spec = GenSpec::new(case.kind)?;
        for (k, v) in case.params {
            spec.set(k, v)?;
        }
        let Generator::Block(gen) = spec.build(args.seed)? else {
            bail!("{} is not a block-level generator", case.kind);
        };
        let trace = PreparedTrace::new(workload::block_trace(gen, case.name)?);
        columns.push(run_grid(&specs, &[CacheSize::Blocks(case.cache)], &trace)?);
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
    for (p, spec) in specs.iter().enumerate() {
        let name = spec.info.name;
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
