//! The one run entry: [`run`] performs a [`RunConfig`]. This module is the only place that
//! decides which engine runs what (the streaming block grid, the file engine, hierarchies on
//! the file engine, ClusterFetch's shaped runs); what `compat` implies for the policies'
//! parameters is [`RunConfig::policy_preset`]'s (`config.rs`);
//! `belady sim`, `belady.simulate`/`belady.run`, sweep cells, the Dask worker, `demo`,
//! `calibrate` and the ClusterFetch demo all come here with a [`RunConfig`].

pub mod config;
pub mod metrics;
pub mod notes;
pub mod origin;
pub mod rows;
pub mod sections;

use crate::cache::size::CacheSize;
use crate::engine::block::{run_block_grid_with, BlockSource};
use crate::engine::file::load_file_engine_trace_with;
use crate::engine::file::{
    run_file_grid, run_file_hierarchies, run_file_one_as, FileSimConfig, PreparedFileTrace,
};
use crate::engine::hierarchy::HierarchySpec;
use crate::engine::RunResult;
use crate::error::{Error, Result};
use crate::policy::registry::PolicySpec;
use crate::prefetch::clusterfetch::PrefetchStore;
use crate::run::config::RunConfig;
use crate::trace::{detect_format, Format, OpFilter};
use serde::Serialize;
use std::path::PathBuf;

pub use sections::{Engine, Sections};

/// A ClusterFetch store a run saved (`cf_store`).
#[derive(Clone, Debug, PartialEq)]
pub struct SavedStore {
    /// Where it was saved.
    pub path: PathBuf,
    /// Triggers it holds.
    pub triggers: usize,
    /// Its size in bytes.
    pub bytes: u64,
}

/// What a run gives: the rows and what was read.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// One result per setting, policy and size (or hierarchy), setting-major, policy-major.
    pub runs: Vec<RunResult>,
    /// Block references simulated.
    pub references: usize,
    /// Distinct blocks among them.
    pub unique: usize,
    /// The trace's name for reports.
    pub source: String,
    /// The trace's format name.
    pub format: String,
    /// Which requests were simulated.
    pub ops: OpFilter,
    /// The ClusterFetch store the run saved, if any.
    pub saved_store: Option<SavedStore>,
}

/// One row as `belady sim --json` prints it: the run plus how the trace was read.
#[derive(Serialize)]
struct Row<'a> {
    #[serde(flatten)]
    run: &'a RunResult,
    format: &'a str,
    ops: OpFilter,
    /// Why a number surprises, when it would (`run::notes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'static str>,
}

impl Outcome {
    /// No runs yet over a trace in `format`, read with `ops`.
    fn empty(format: &Format, ops: OpFilter) -> Outcome {
        Outcome {
            runs: Vec::new(),
            references: 0,
            unique: 0,
            source: String::new(),
            format: format.name().to_string(),
            ops,
            saved_store: None,
        }
    }

    /// The rows as a JSON array (`belady sim --json`, `belady.simulate`), indented when `pretty`.
    pub fn rows_json(&self, pretty: bool) -> String {
        let rows = self.rows();
        let s = if pretty {
            serde_json::to_string_pretty(&rows)
        } else {
            serde_json::to_string(&rows)
        };
        s.expect("rows serialise")
    }

    /// Each row as `belady sim --json` prints it (what a sweep stores).
    pub fn rows(&self) -> Vec<serde_json::Value> {
        self.runs
            .iter()
            .map(|run| {
                serde_json::to_value(Row {
                    run,
                    format: &self.format,
                    ops: self.ops,
                    note: crate::run::notes::row_note(run),
                })
                .expect("rows serialise")
            })
            .collect()
    }
}

impl RunConfig {
    /// The trace's format: as named, else detected from its content or name.
    pub fn trace_format(&self) -> Result<Format> {
        match &self.format {
            Some(name) => Format::parse(name.trim(), self.columns.as_deref(), self.header),
            None => detect_format(&self.trace),
        }
    }
}

/// Performs `config`: every setting of `prefetch` × `disk`, each over every policy and size (or
/// hierarchy). Runs in the current rayon pool.
pub fn run(config: &RunConfig) -> Result<Outcome> {
    let mut sections = Sections::parse(config)?;
    // Several settings read the trace once each, and the block engine reads a native file once
    // per group of runs: an input readable once is copied first, and reported under its own name.
    if sections.settings.len() > 1 || sections.trace.format == Format::Native {
        if let Some(spool) = crate::trace::input::spool_read_once(&sections.trace.path)? {
            let (given, copy) = (
                sections.trace.path.display().to_string(),
                spool.display().to_string(),
            );
            sections.trace.path = spool.to_path_buf();
            let mut out = run_sections(&sections).map_err(|e| e.renamed(&copy, &given))?;
            for name in
                std::iter::once(&mut out.source).chain(out.runs.iter_mut().map(|r| &mut r.trace))
            {
                if *name == copy {
                    name.clone_from(&given);
                }
            }
            return Ok(out);
        }
    }
    run_sections(&sections)
}

/// Performs a parsed run over a trace every setting can read again: the one place that sends
/// each setting to its engine.
pub fn run_sections(sections: &Sections) -> Result<Outcome> {
    let trace = &sections.trace;
    if let Some(specs) = &sections.hierarchies {
        return run_levels(sections, specs);
    }
    let cache = &sections.cache;
    let mut out = Outcome::empty(&trace.format, trace.ops);
    let mut first = true;
    for setting in &sections.settings {
        let (runs, references, unique, source) = match setting.engine {
            Engine::BlockGrid => {
                // Untimed block runs stream the trace (memory bounded by the caches and unique
                // blocks).
                let source = BlockSource {
                    path: &trace.path,
                    format: &trace.format,
                    opts: &trace.read,
                    ops: trace.ops,
                };
                let grid =
                    run_block_grid_with(&source, &cache.policies, &cache.sizes, &cache.setup)?;
                (
                    grid.runs,
                    grid.references as usize,
                    grid.unique,
                    grid.source,
                )
            }
            Engine::FileGrid | Engine::FileHierarchy => {
                let cfg = &setting.file;
                let mut prepared = load_file_engine_trace_with(
                    &trace.path,
                    &trace.format,
                    &trace.read,
                    trace.ops,
                )?;
                let runs = if sections.shaping.any() {
                    // Warm starts, launch markers and a persistent store shape the trace and
                    // the run.
                    prepared = shape(sections, prepared)?;
                    run_with_store(sections, &prepared, cfg, &mut out)?
                } else {
                    run_file_grid(&cache.policies, &cache.sizes, &prepared, cfg)?
                };
                let (r, u, s) = (
                    prepared.references,
                    prepared.distinct,
                    prepared.source().to_string(),
                );
                (runs, r, u, s)
            }
        };
        if first {
            (out.references, out.unique, out.source) = (references, unique, source);
            first = false;
        }
        out.runs.extend(runs);
    }
    Ok(out)
}

/// The trace as a ClusterFetch run needs it: replayed twice for a warm start, with the
/// launch marker.
fn shape(sections: &Sections, trace: PreparedFileTrace) -> Result<PreparedFileTrace> {
    let mut trace = if sections.shaping.warm {
        let block_size = trace.block_size;
        PreparedFileTrace::warm(trace.into_file_trace()?, block_size)?
    } else {
        trace
    };
    if let Some(name) = &sections.shaping.launch_until_open {
        trace.set_launch_until_open(name)?;
    }
    Ok(trace)
}

/// The file engine's grid; with `cf_store` and ClusterFetch on, the single run starts from the
/// store at that path (when the file exists) and saves the store it learned there.
fn run_with_store(
    sections: &Sections,
    trace: &PreparedFileTrace,
    cfg: &FileSimConfig,
    out: &mut Outcome,
) -> Result<Vec<RunResult>> {
    let (specs, sizes): (&[PolicySpec], &[CacheSize]) =
        (&sections.cache.policies, &sections.cache.sizes);
    let (Some(path), Some(_)) = (&sections.shaping.cf_store, &cfg.clusterfetch) else {
        return run_file_grid(specs, sizes, trace, cfg);
    };
    let runs = specs.len() * sizes.len();
    if runs != 1 {
        return Err(Error::config(
            "cf_store",
            path.display(),
            format!(
                "holds one run's store, but this call makes {runs} runs (give one policy and one cache size)"
            ),
        ));
    }
    let store = PrefetchStore::load(path)?;
    let blocks = sizes[0].resolve(trace.distinct, trace.block_size)?;
    let given = rows::CacheCapacity::new(&sizes[0], blocks as u64, rows::CapacityUnit::Blocks);
    let (run, learned) = run_file_one_as(&specs[0], trace, &given, cfg, store.as_ref())?;
    if let Some(learned) = learned {
        learned.save(path)?;
        out.saved_store = Some(SavedStore {
            path: path.clone(),
            triggers: learned.len(),
            bytes: learned.bytes(),
        });
    }
    Ok(vec![run])
}

/// Hierarchies, all on the file engine's client (the levels below see every block it reads,
/// with the links' timing under a disk).
fn run_levels(sections: &Sections, specs: &[HierarchySpec]) -> Result<Outcome> {
    let t = &sections.trace;
    let mut out = Outcome::empty(&t.format, t.ops);
    let trace = if t.format.is_file_level() {
        load_file_engine_trace_with(&t.path, &t.format, &t.read, t.ops)?
    } else {
        // Every reference of a hierarchy's client is a read of its block (as the block
        // hierarchy model always counted them); the trace is read twice, not held.
        PreparedFileTrace::open_blocks_as_reads(&t.path, &t.format, &t.read, t.ops)?
    };
    for setting in &sections.settings {
        out.runs
            .extend(run_file_hierarchies(specs, &trace, &setting.file)?);
    }
    out.references = trace.references;
    out.unique = trace.distinct;
    out.source = trace.source().to_string();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row with every optional part present: every key a row can have.
    fn full_row() -> RunResult {
        use crate::cache::cache_model::CacheModel;
        use crate::cache::level::LevelStats;
        use rows::{CacheCapacity, CfStats, IoStats, LaunchStats, LevelReport, TimingReport};
        let io = IoStats {
            exec_time_s: Some(1.0),
            proc_time_s: Some(0.5),
            io_time_s: Some(0.5),
            io_wait_s: Some(0.5),
            disk_busy_s: Some(0.4),
            disk_utilization: Some(0.4),
            mean_response_ms: Some(2.0),
            p99_response_ms: Some(9.0),
            disk_cache_hits: Some(1),
            launch: Some(LaunchStats::default()),
            clusterfetch: Some(CfStats::default()),
            timing: Some(TimingReport::default()),
            request_log: vec![rows::LoggedRequest {
                event: 1,
                sync: true,
                file: 1,
                first: 0,
                blocks: 1,
                issued_ns: 0,
            }],
            ..IoStats::demand(3)
        };
        RunResult::build(rows::RowParts {
            trace: "t",
            policy: "lru".into(),
            capacity: CacheCapacity::blocks(10),
            model: CacheModel::Blocks,
            block_size: 4096,
            unique: 20,
            admission: "tinylfu".into(),
            prefetch: Some("linux6".into()),
            counts: &LevelStats {
                requests: 5,
                hits: 2,
                misses: 3,
                ..LevelStats::default()
            },
            io,
            levels: Some(vec![LevelReport::default()]),
        })
    }

    #[test]
    fn the_registry_lists_exactly_the_keys_a_row_serialises() {
        use metrics::{FIELDS, METRICS};
        use std::collections::BTreeSet;
        let run = full_row();
        let row = serde_json::to_value(Row {
            run: &run,
            format: "lirs",
            ops: OpFilter::Read,
            note: Some("a note"),
        })
        .unwrap();
        let serialised: BTreeSet<&str> = row
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let listed: BTreeSet<&str> = METRICS
            .iter()
            .map(|m| m.key)
            .chain(FIELDS.iter().map(|f| f.key))
            .collect();
        assert_eq!(
            serialised.difference(&listed).collect::<Vec<_>>(),
            Vec::<&&str>::new(),
            "serialised but not in the registry (run/metrics.rs)"
        );
        assert_eq!(
            listed.difference(&serialised).collect::<Vec<_>>(),
            Vec::<&&str>::new(),
            "in the registry but not serialised"
        );
        // Each metric reads the value its key serialises, of its unit's kind.
        for m in METRICS {
            let v = m
                .value(&run)
                .unwrap_or_else(|| panic!("{} reads nothing", m.key));
            assert_eq!(
                matches!(v, metrics::Value::Int(_)),
                m.unit.is_int(),
                "{}",
                m.key
            );
            assert_eq!(row[m.key].as_f64(), Some(v.as_f64()), "{}", m.key);
        }
    }

    /// The engines a configuration's settings run on, over a trace `format` names.
    fn engines(config: RunConfig, format: &str) -> Vec<Engine> {
        let config = RunConfig {
            trace: "t".into(),
            format: Some(format.into()),
            cache_sizes: vec!["10".into()],
            ..config
        };
        Sections::parse(&config.normalized().unwrap())
            .unwrap()
            .settings
            .iter()
            .map(|s| s.engine)
            .collect()
    }

    #[test]
    fn compat_accusim_picks_the_file_engine_and_levels_run_on_it() {
        let accusim = RunConfig {
            compat: Some("accusim".into()),
            ..RunConfig::default()
        };
        assert_eq!(engines(accusim, "lirs"), [Engine::FileGrid]);
        assert_eq!(engines(RunConfig::default(), "lirs"), [Engine::BlockGrid]);
        assert_eq!(engines(RunConfig::default(), "events"), [Engine::FileGrid]);
        let disk = RunConfig {
            disk: vec!["none".into(), "cheetah9lp".into()],
            ..RunConfig::default()
        };
        assert_eq!(
            engines(disk.clone(), "lirs"),
            [Engine::BlockGrid, Engine::FileGrid]
        );
        let levels = RunConfig {
            trace: "t".into(),
            format: Some("lirs".into()),
            levels: vec!["c:lru:10,s:lru:20".into()],
            ..disk
        };
        let engines: Vec<Engine> = Sections::parse(&levels.normalized().unwrap())
            .unwrap()
            .settings
            .iter()
            .map(|s| s.engine)
            .collect();
        assert_eq!(engines, [Engine::FileHierarchy, Engine::FileHierarchy]);
    }

    #[test]
    fn a_config_file_with_a_bad_key_names_the_file_and_the_key() {
        let e = RunConfig::parse("{\"trace\": \"t\",\n \"polices\": [\"lru\"]}", "run.json")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("run.json:2:") && e.contains("polices"), "{e}");
        assert!(!e.contains('\n'), "{e}");
        let e = RunConfig::parse("trace = \"t\"\nsizes = [\"1\"]\n", "run.toml")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("run.toml:2:") && e.contains("sizes"), "{e}");
    }

    #[test]
    fn a_printed_config_reads_back_and_runs_as_built() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.trace");
        let ids: String = (0..500).map(|i| format!("{}\n", (i * 7) % 60)).collect();
        std::fs::write(&path, ids).unwrap();
        let config = RunConfig {
            trace: path,
            policies: vec!["lru".into(), "arc".into()],
            cache_sizes: vec!["10".into(), "50%".into()],
            prefetch: vec!["none".into(), "linux24".into()],
            ..RunConfig::default()
        };
        let json = serde_json::to_string_pretty(&config).unwrap();
        let back = RunConfig::parse(&json, "c.json").unwrap();
        assert_eq!(back, config);
        let (a, b) = (run(&config).unwrap(), run(&back).unwrap());
        assert_eq!(a.runs.len(), 2 * 2 * 2);
        assert_eq!(a.rows_json(false), b.rows_json(false));
        // Read-ahead major: the second half ran under linux24.
        assert_eq!(a.runs[0].prefetch, None, "{:?}", a.runs[0]);
        assert_eq!(a.runs[4].prefetch.as_deref(), Some("linux24"));
    }

    #[test]
    fn any_spelling_runs_as_its_one_spelling() {
        // The run parses each value once, folding case itself: no normalising beforehand.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("d")).unwrap();
        let ids: String = (0..600).map(|i| format!("{}\n", (i * 11) % 90)).collect();
        std::fs::write(dir.path().join("d/t.trace"), ids).unwrap();
        let raw = RunConfig {
            trace: dir.path().join("d/./t.trace"),
            format: Some(" lirs ".into()),
            ops: " All".into(),
            policies: vec!["LRU".into(), "Belady".into()],
            params: vec![" LRU-K.k = 3".into()],
            preset: "Paper".into(),
            cache_sizes: vec![" 10".into(), "20%".into()],
            prefetch: vec!["off".into(), "Linux-2.4".into()],
            disk: vec!["OFF".into(), " HDD ".into()],
            scheduler: "C-LOOK".into(),
            admission: "TinyLFU".into(),
            ..RunConfig::default()
        };
        let raw = RunConfig {
            policies: vec!["LRU".into(), "Belady".into(), "lru2".into()],
            ..raw
        };
        let a = run(&raw).unwrap();
        let b = run(&raw.normalized().unwrap()).unwrap();
        assert_eq!(a.runs.len(), 3 * 2 * 2 * 2);
        assert_eq!(a.rows_json(false), b.rows_json(false));
    }

    #[test]
    fn errors_name_configuration_keys() {
        let config = RunConfig {
            trace: "t".into(),
            cf_queue: Some(4),
            prefetch: vec!["linux24".into()],
            cache_sizes: vec!["10".into()],
            format: Some("lirs".into()),
            ..RunConfig::default()
        };
        let e = config.file_config().unwrap_err();
        assert!(
            matches!(&e, Error::Config { field, .. } if field == "cf_queue"),
            "{e}"
        );
        let e = run(&RunConfig {
            cache_sizes: Vec::new(),
            cf_queue: None,
            ..config
        })
        .unwrap_err();
        assert!(
            matches!(&e, Error::Config { field, .. } if field == "cache_sizes"),
            "{e}"
        );
    }
}
