//! The one run entry: [`run`] performs a [`RunConfig`]. This module is the only place that
//! decides which engine runs what (the streaming block grid, the file engine, hierarchies on
//! the file engine, ClusterFetch's shaped runs) and what `compat` implies;
//! `belady sim`, `belady.simulate`/`belady.run`, sweep cells, the Dask worker, `demo`,
//! `calibrate` and the ClusterFetch demo all come here with a [`RunConfig`].

pub mod config;
pub mod metrics;
pub mod notes;
pub mod rows;

use crate::cache::cache_model::CacheModel;
use crate::cache::size::CacheSize;
use crate::engine::block::{run_block_grid_with, BlockSource};
use crate::engine::file::load_file_engine_trace_with;
use crate::engine::file::{
    run_file_grid, run_file_hierarchies, run_file_one_as, FileSimConfig, PreparedFileTrace,
};
use crate::engine::hierarchy::{HierarchySpec, Links, Placement};
use crate::engine::RunResult;
use crate::error::{Error, Result};
use crate::policy::registry::{parse_policies, PolicySpec};
use crate::prefetch::clusterfetch::PrefetchStore;
use crate::run::config::RunConfig;
use crate::trace::{detect_format, Format, OpFilter, ReadOptions};
use serde::Serialize;
use std::path::PathBuf;

/// Which engine performs a run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The untimed block engine's streaming grid (one tight loop per policy and size).
    BlockGrid,
    /// The file engine: read-ahead, clustering, a device, AccuSim's rules, ClusterFetch.
    FileGrid,
    /// Hierarchies under the file engine's client (the links' timing under a disk).
    FileHierarchy,
}

impl Engine {
    /// The engine for one setting ([`RunConfig::settings`]) of a normalised configuration over
    /// a trace in `format`; `hierarchy` when the run is of `levels`. The only place the engine
    /// is decided: read-ahead, clustering, a device, AccuSim's rules, ClusterFetch's settings or
    /// a file-level trace need the file engine; the rest runs on the block grid's fast loop.
    pub fn of(setting: &RunConfig, format: &Format, hierarchy: bool) -> Engine {
        let file_engine = format.is_file_level()
            || setting.the_prefetch() != "none"
            || setting.the_disk().is_some()
            || setting.compat.as_deref().is_some_and(|c| !c.is_empty())
            || !setting.compat_rules.is_empty()
            || setting.scheduler != "fcfs"
            || setting.clusterfetch_options();
        match hierarchy {
            true => Engine::FileHierarchy,
            false if file_engine => Engine::FileGrid,
            false => Engine::BlockGrid,
        }
    }
}

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
            Some(name) => Format::parse(name, self.columns.as_deref(), self.header),
            None => detect_format(&self.trace),
        }
    }

    /// The reader settings.
    pub fn read_options(&self) -> ReadOptions {
        ReadOptions {
            max_request_bytes: self.max_request_bytes,
            ..ReadOptions::with_block_size(self.block_size)
        }
    }

    /// The hierarchies `levels` × `placement` ask for, in that order: each hierarchy once per
    /// placement, the placement applying to every lower level that does not name its own.
    pub fn hierarchy_specs(&self) -> Result<Vec<HierarchySpec>> {
        let preset = self.policy_preset()?;
        let placements: Vec<Placement> = self
            .placement
            .split(',')
            .filter(|p| !p.trim().is_empty())
            .map(Placement::parse)
            .collect::<Result<_>>()?;
        if placements.is_empty() {
            return Err(Error::config(
                "placement",
                &self.placement,
                "name at least one placement",
            ));
        }
        let mut out = Vec::new();
        for text in &self.levels {
            let named_everywhere = text.split(',').skip(1).all(|l| l.split(':').count() > 3);
            for (k, &p) in placements.iter().enumerate() {
                // A hierarchy whose levels all name their placement is the same for each placement.
                if named_everywhere && k > 0 {
                    break;
                }
                let mut spec = HierarchySpec::parse(text, &self.params, preset, p)?;
                spec.links = self.links()?;
                spec.seed_policies(self.seed);
                out.push(spec);
            }
        }
        Ok(out)
    }

    /// The links between levels and the reload queue (they time hierarchies under a disk).
    fn links(&self) -> Result<Links> {
        use crate::limits::{time_ns, TimeUnit};
        crate::limits::check_rate(
            "link_mbps",
            self.link_mbps,
            1e6 / 8.0,
            "Mb/s",
            crate::limits::MIN_LINK_BYTES_PER_S,
        )?;
        let links = Links {
            link_latency_ns: time_ns("link_latency_us", self.link_latency_us, TimeUnit::Us)?,
            link_bytes_per_s: self.link_mbps * 1e6 / 8.0,
            think_ns: time_ns("think_us", self.think_us, TimeUnit::Us)?,
            reload_queue: self.reload_queue,
        };
        links.validate()?;
        Ok(links)
    }

    /// The trace as a ClusterFetch run needs it: replayed twice for a warm start, with the
    /// launch marker.
    fn shape(&self, trace: PreparedFileTrace) -> Result<PreparedFileTrace> {
        let mut trace = if self.warm {
            let block_size = trace.block_size;
            PreparedFileTrace::warm(trace.into_file_trace()?, block_size)?
        } else {
            trace
        };
        if let Some(name) = &self.launch_until_open {
            trace.set_launch_until_open(name)?;
        }
        Ok(trace)
    }

    fn cache_size_list(&self) -> Result<Vec<CacheSize>> {
        if self.cache_sizes.is_empty() {
            return Err(Error::config(
                "cache_sizes",
                "",
                "name at least one cache size (blocks, bytes or a percentage)",
            ));
        }
        CacheSize::parse_list(&self.cache_sizes.join(","))
    }

    fn policy_specs(&self) -> Result<Vec<PolicySpec>> {
        let mut specs = parse_policies(
            &self.policies.join(","),
            &self.params,
            self.policy_preset()?,
        )?;
        for spec in &mut specs {
            // The randomised policies draw from the run's seed (`--seed`).
            spec.seed = self.seed;
        }
        Ok(specs)
    }
}

/// Performs `config`: every setting of `prefetch` × `disk`, each over every policy and size (or
/// hierarchy). Runs in the current rayon pool.
pub fn run(config: &RunConfig) -> Result<Outcome> {
    let config = &config.normalized()?;
    if config.trace.as_os_str().is_empty() {
        return Err(Error::config("trace", "", "name the trace file"));
    }
    // Several settings read the trace once each, and the block engine reads a native file once
    // per group of runs: an input readable once is copied first, and reported under its own name.
    if config.settings()?.len() > 1 || config.trace_format()? == Format::Native {
        if let Some(spool) = crate::trace::input::spool_read_once(&config.trace)? {
            let (given, copy) = (
                config.trace.display().to_string(),
                spool.display().to_string(),
            );
            let spooled = RunConfig {
                trace: spool.to_path_buf(),
                ..config.clone()
            };
            let mut out = run_each(&spooled).map_err(|e| e.renamed(&copy, &given))?;
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
    run_each(config)
}

/// [`run`] over a trace every setting can read again.
fn run_each(config: &RunConfig) -> Result<Outcome> {
    let settings = config.settings()?;
    config.policy_preset()?;
    let format = config.trace_format()?;
    let ops = OpFilter::parse(&config.ops)?;
    let setup = config.level_setup()?;
    // The objects model has one untimed level: refuse what needs blocks before reading anything.
    let model = CacheModel::choose(setup.model.as_deref(), format.has_object_sizes())?;
    let file_engine = settings
        .iter()
        .any(|o| Engine::of(o, &format, false) == Engine::FileGrid);
    model.check_run(true, file_engine, !config.levels.is_empty())?;
    if !config.levels.is_empty() && setup.admission.is_some() {
        return Err(Error::config(
            "admission",
            &config.admission,
            "applies to single-level runs; a hierarchy's levels have no admission filter",
        ));
    }
    if !config.levels.is_empty() {
        return run_levels(config, &settings, &format, ops);
    }
    let specs = config.policy_specs()?;
    let sizes = config.cache_size_list()?;
    let path = config.trace.as_path();
    let read = config.read_options();
    let mut out = Outcome::empty(&format, ops);
    let mut first = true;
    for setting in &settings {
        let (runs, references, unique, source) = match Engine::of(setting, &format, false) {
            Engine::BlockGrid => {
                // Untimed block runs stream the trace (memory bounded by the caches and unique
                // blocks).
                let source = BlockSource {
                    path,
                    format: &format,
                    opts: &read,
                    ops,
                };
                let grid = run_block_grid_with(&source, &specs, &sizes, &setup)?;
                (
                    grid.runs,
                    grid.references as usize,
                    grid.unique,
                    grid.source,
                )
            }
            Engine::FileGrid | Engine::FileHierarchy => {
                let cfg = setting.file_config()?;
                let mut trace = load_file_engine_trace_with(path, &format, &read, ops)?;
                let runs = if config.needs_own_run() {
                    // Warm starts, launch markers and a persistent store shape the trace and
                    // the run.
                    trace = config.shape(trace)?;
                    run_with_store(config, &specs, &sizes, &trace, &cfg, &mut out)?
                } else {
                    run_file_grid(&specs, &sizes, &trace, &cfg)?
                };
                let (r, u, s) = (trace.references, trace.distinct, trace.source().to_string());
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

/// The file engine's grid; with `cf_store` and ClusterFetch on, the single run starts from the
/// store at that path (when the file exists) and saves the store it learned there.
fn run_with_store(
    config: &RunConfig,
    specs: &[PolicySpec],
    sizes: &[CacheSize],
    trace: &PreparedFileTrace,
    cfg: &FileSimConfig,
    out: &mut Outcome,
) -> Result<Vec<RunResult>> {
    let (Some(path), Some(_)) = (&config.cf_store, &cfg.clusterfetch) else {
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
fn run_levels(
    config: &RunConfig,
    settings: &[RunConfig],
    format: &Format,
    ops: OpFilter,
) -> Result<Outcome> {
    let specs = config.hierarchy_specs()?;
    let mut out = Outcome::empty(format, ops);
    let path = config.trace.as_path();
    let trace = if format.is_file_level() {
        load_file_engine_trace_with(path, format, &config.read_options(), ops)?
    } else {
        // Every reference of a hierarchy's client is a read of its block (as the block
        // hierarchy model always counted them); the trace is read twice, not held.
        PreparedFileTrace::open_blocks_as_reads(path, format, &config.read_options(), ops)?
    };
    for setting in settings {
        let cfg = setting.file_config()?;
        out.runs.extend(run_file_hierarchies(&specs, &trace, &cfg)?);
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

    #[test]
    fn compat_accusim_picks_the_file_engine_and_levels_run_on_it_under_a_disk() {
        let accusim = RunConfig {
            compat: Some("accusim".into()),
            ..RunConfig::default()
        };
        assert_eq!(Engine::of(&accusim, &Format::Lirs, false), Engine::FileGrid);
        let plain = RunConfig::default();
        assert_eq!(Engine::of(&plain, &Format::Lirs, false), Engine::BlockGrid);
        assert_eq!(Engine::of(&plain, &Format::Events, false), Engine::FileGrid);
        let disk = RunConfig {
            disk: vec!["cheetah9lp".into()],
            ..RunConfig::default()
        };
        assert_eq!(Engine::of(&disk, &Format::Lirs, false), Engine::FileGrid);
        assert_eq!(
            Engine::of(&disk, &Format::Lirs, true),
            Engine::FileHierarchy
        );
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
    fn errors_name_configuration_keys() {
        let config = RunConfig {
            trace: "t".into(),
            cf_queue: Some(4),
            prefetch: vec!["linux24".into()],
            cache_sizes: vec!["10".into()],
            format: Some("lirs".into()),
            ..RunConfig::default()
        };
        let e = config.settings().unwrap()[0].file_config().unwrap_err();
        assert!(
            matches!(&e, Error::Config { field, .. } if field == "cf_queue"),
            "{e}"
        );
        let e = run(&RunConfig {
            cache_sizes: Vec::new(),
            ..config
        })
        .unwrap_err();
        assert!(
            matches!(&e, Error::Config { field, .. } if field == "cache_sizes"),
            "{e}"
        );
    }
}
