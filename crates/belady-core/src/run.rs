//! The one run entry: [`run`] performs a [`RunConfig`]. This module is the only place that
//! decides which engine runs what (the streaming block grid, the file engine, hierarchies on
//! the file engine, ClusterFetch's shaped runs) and what `compat` implies;
//! `belady sim`, `belady.simulate`/`belady.run`, the sweep planner and the Dask worker all come
//! here ([`run_cell`] is the sweep's per-cell form over a trace read once).

use crate::cache_model::CacheModel;
use crate::config::{RunConfig, RunOptions};
use crate::engine::{run_grid_with, PreparedTrace, RunResult};
use crate::error::{Error, Result};
use crate::filesim::{
    run_file_grid, run_file_hierarchies, run_file_hierarchy, run_file_one, run_file_one_with_store,
    FileSimConfig, Placement as Layout, PreparedFileTrace,
};
use crate::hierarchy::{HierarchySpec, Links, Placement};
use crate::policy::registry::{parse_policies, PolicySpec};
use crate::prefetch::clusterfetch::{ClusterFetchConfig, PrefetchStore};
use crate::simulate::{load_file_engine_trace_with, simulate_with};
use crate::size::CacheSize;
use crate::trace::{detect_format, BlockTrace, Format, OpFilter, ReadOptions};
use serde::Serialize;
use std::path::{Path, PathBuf};

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
    /// The engine for runs with settings `opts` over a trace in `format`; `hierarchy` when the
    /// run is of `levels`.
    pub fn of(opts: &RunOptions, format: &Format, hierarchy: bool) -> Engine {
        match hierarchy {
            true => Engine::FileHierarchy,
            false if opts.uses_file_engine(format) => Engine::FileGrid,
            false => Engine::BlockGrid,
        }
    }

    /// Whether the engine reads the trace as files (the file engine's prepared trace).
    pub fn on_files(self) -> bool {
        matches!(self, Engine::FileGrid | Engine::FileHierarchy)
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
        fn text<T: Serialize>(rows: &[T], pretty: bool) -> String {
            let s = if pretty {
                serde_json::to_string_pretty(rows)
            } else {
                serde_json::to_string(rows)
            };
            s.expect("rows serialise")
        }
        let rows: Vec<Row> = self
            .runs
            .iter()
            .map(|run| Row {
                run,
                format: &self.format,
                ops: self.ops,
            })
            .collect();
        text(&rows, pretty)
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
    pub fn hierarchy_specs(&self, opts: &RunOptions) -> Result<Vec<HierarchySpec>> {
        let preset = opts.preset()?;
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
        let us = |v: f64, key: &str| -> Result<u64> {
            if v.is_finite() && v >= 0.0 {
                Ok((v * 1000.0).round() as u64)
            } else {
                Err(Error::config(key, v, "expected microseconds, 0 or more"))
            }
        };
        let links = Links {
            link_latency_ns: us(self.link_latency_us, "link_latency_us")?,
            link_bytes_per_s: self.link_mbps * 1e6 / 8.0,
            think_ns: us(self.think_us, "think_us")?,
            reload_queue: self.reload_queue,
        };
        links.validate()?;
        Ok(links)
    }

    /// ClusterFetch's parameters when `on`; an error when its settings are given without it.
    fn clusterfetch(&self, on: bool) -> Result<Option<ClusterFetchConfig>> {
        if !on {
            let given = [
                ("cf_queue", self.cf_queue.is_some()),
                ("cf_threshold", self.cf_threshold.is_some()),
                ("cf_min_burst", self.cf_min_burst.is_some()),
                ("cf_store_limit", self.cf_store_limit.is_some()),
                ("cf_bandwidth", self.cf_bandwidth.is_some()),
                ("cf_store", self.cf_store.is_some()),
            ];
            if let Some((key, _)) = given.iter().find(|g| g.1) {
                return Err(Error::config(
                    key,
                    "given",
                    "is a ClusterFetch option: add +clusterfetch to the read-ahead engine",
                ));
            }
            return Ok(None);
        }
        let mut cf = ClusterFetchConfig::default();
        if let Some(q) = self.cf_queue {
            cf.queue_len = q;
        }
        if let Some(ms) = self.cf_threshold {
            if !(ms.is_finite() && ms > 0.0 && ms < 1e12) {
                return Err(Error::config(
                    "cf_threshold",
                    ms,
                    "expected a time in milliseconds above 0",
                ));
            }
            cf.threshold_ns = (ms * 1e6).round() as u64;
        }
        if let Some(m) = self.cf_min_burst {
            cf.min_burst = m;
        }
        if let Some(t) = &self.cf_store_limit {
            cf.store_limit_bytes = bytes("cf_store_limit", t)?;
        }
        if let Some(t) = &self.cf_bandwidth {
            cf.bandwidth_bytes_per_s = bytes("cf_bandwidth", t)?;
        }
        cf.validate()?;
        Ok(Some(cf))
    }

    /// The file engine's configuration for one setting, checked (the engine settings plus
    /// ClusterFetch, the layout and the request log).
    pub fn file_config(&self, opts: &RunOptions) -> Result<FileSimConfig> {
        let mut cfg = opts.file_config()?;
        cfg.log_requests = self.log_requests;
        cfg.admission = crate::admission::AdmissionSpec::parse(&self.admission)?;
        cfg.seed = self.seed;
        cfg.clusterfetch = self.clusterfetch(cfg.clusterfetch.is_some())?;
        cfg.placement = Layout::parse(&self.layout)?;
        cfg.validate()?;
        Ok(cfg)
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

    fn policy_specs(&self, opts: &RunOptions) -> Result<Vec<PolicySpec>> {
        let mut specs = parse_policies(&self.policies.join(","), &self.params, opts.preset()?)?;
        for spec in &mut specs {
            spec.seed = self.seed;
        }
        Ok(specs)
    }
}

fn bytes(key: &str, text: &str) -> Result<u64> {
    let bad = || {
        Error::config(
            key,
            text,
            "expected a byte size such as 3MB, 512KiB or 1048576",
        )
    };
    match CacheSize::parse(text).map_err(|_| bad())? {
        CacheSize::Bytes(b) | CacheSize::Blocks(b) => Ok(b),
        CacheSize::Percent(_) => Err(bad()),
    }
}

/// Performs `config`: every setting of `prefetch` × `disk`, each over every policy and size (or
/// hierarchy). Runs in the current rayon pool.
pub fn run(config: &RunConfig) -> Result<Outcome> {
    if config.trace.as_os_str().is_empty() {
        return Err(Error::config("trace", "", "name the trace file"));
    }
    let grid = config.option_grid()?;
    grid[0].preset()?;
    let format = config.trace_format()?;
    let ops = OpFilter::parse(&config.ops)?;
    let setup = config.level_setup()?;
    // The objects model has one untimed level: refuse what needs blocks before reading anything.
    let model = CacheModel::choose(setup.model.as_deref(), format.has_object_sizes())?;
    let file_engine = grid
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
        return run_levels(config, &grid, &format, ops);
    }
    let specs = config.policy_specs(&grid[0])?;
    let sizes = config.cache_size_list()?;
    let path = config.trace.as_path();
    let read = config.read_options();
    let mut out = Outcome::empty(&format, ops);
    let mut first = true;
    for opts in &grid {
        let cfg = match Engine::of(opts, &format, false) {
            Engine::FileGrid => Some(config.file_config(opts)?),
            _ => None,
        };
        let (runs, references, unique, source) = match &cfg {
            // Warm starts, launch markers and a persistent store shape the trace and the run.
            Some(cfg) if config.needs_own_run() => {
                let trace =
                    config.shape(load_file_engine_trace_with(path, &format, &read, ops)?)?;
                let runs = run_with_store(config, &specs, &sizes, &trace, cfg, &mut out)?;
                let (r, u, s) = (trace.references, trace.distinct, trace.source().to_string());
                (runs, r, u, s)
            }
            _ => {
                let sim = simulate_with(
                    path,
                    &format,
                    &read,
                    ops,
                    &specs,
                    &sizes,
                    cfg.as_ref(),
                    &setup,
                )?;
                (sim.runs, sim.references, sim.unique, sim.source)
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
    let capacity = sizes[0].resolve(trace.distinct, trace.block_size)?;
    let (run, learned) = run_file_one_with_store(&specs[0], trace, capacity, cfg, store.as_ref())?;
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
    grid: &[RunOptions],
    format: &Format,
    ops: OpFilter,
) -> Result<Outcome> {
    let specs = config.hierarchy_specs(&grid[0])?;
    let mut out = Outcome::empty(format, ops);
    let path = config.trace.as_path();
    let trace = if format.is_file_level() {
        load_file_engine_trace_with(path, format, &config.read_options(), ops)?
    } else {
        // Every reference of a hierarchy's client is a read of its block (as the block
        // hierarchy model always counted them); the trace is read twice, not held.
        PreparedFileTrace::open_blocks_as_reads(path, format, &config.read_options(), ops)?
    };
    for opts in grid {
        let cfg = config.file_config(opts)?;
        out.runs.extend(run_file_hierarchies(&specs, &trace, &cfg)?);
    }
    out.references = trace.references;
    out.unique = trace.distinct;
    out.source = trace.source().to_string();
    Ok(out)
}

/// A trace read once for many single runs ([`run_cell`]): the block engine's and the file
/// engine's forms, as the runs' engines need them.
pub struct Loaded {
    /// The trace's format.
    pub format: Format,
    /// Bytes per block.
    pub block_size: u32,
    blocks: Option<PreparedTrace>,
    files: Option<PreparedFileTrace>,
}

impl Loaded {
    /// Reads the trace at `path` (reads only) in the forms `engines` need.
    pub fn load(
        path: &Path,
        format: Format,
        block_size: u32,
        engines: impl IntoIterator<Item = Engine>,
    ) -> Result<Loaded> {
        let (mut need_blocks, mut need_files) = (false, false);
        for e in engines {
            if e.on_files() {
                need_files = true;
            } else {
                need_blocks = true;
            }
        }
        let (mut blocks, mut files) = (None, None);
        if format.is_file_level() {
            files = Some(PreparedFileTrace::open(path, &format, block_size)?);
        } else {
            let opts = ReadOptions::with_block_size(block_size);
            let trace = BlockTrace::load(path, &format, &opts, OpFilter::Read)?;
            if need_files {
                files = Some(PreparedFileTrace::from_block_trace(&trace)?);
            }
            if need_blocks || !need_files {
                blocks = Some(PreparedTrace::new(trace));
            }
        }
        Ok(Loaded {
            format,
            block_size,
            blocks,
            files,
        })
    }

    /// Distinct blocks referenced (what percentage sizes are of).
    pub fn unique(&self) -> usize {
        match (&self.blocks, &self.files) {
            (Some(b), _) => b.unique(),
            (None, Some(f)) => f.distinct,
            (None, None) => 0,
        }
    }

    fn blocks(&self, label: &str) -> Result<&PreparedTrace> {
        self.blocks
            .as_ref()
            .ok_or_else(|| Error::config("trace", label, "was not prepared for the block engine"))
    }

    fn files(&self, label: &str) -> Result<&PreparedFileTrace> {
        self.files
            .as_ref()
            .ok_or_else(|| Error::config("trace", label, "was not prepared for the file engine"))
    }
}

/// Performs one cell of a grid over `loaded`: `cell` names one policy at one size, or one
/// hierarchy under one placement, and at most one read-ahead engine and one disk. `label` names
/// the trace in errors.
pub fn run_cell(cell: &RunConfig, loaded: &Loaded, label: &str) -> Result<RunResult> {
    let grid = cell.option_grid()?;
    let [opts] = &grid[..] else {
        return Err(Error::config(
            "prefetch",
            cell.prefetch.join(","),
            "a single run takes one read-ahead engine and one disk",
        ));
    };
    let format = &loaded.format;
    if let Some(levels) = cell.levels.first() {
        let placement = Placement::parse(&cell.placement)?;
        let mut spec = HierarchySpec::parse(levels, &cell.params, opts.preset()?, placement)?;
        spec.links = cell.links()?;
        spec.seed_policies(cell.seed);
        return run_file_hierarchy(&spec, loaded.files(label)?, &cell.file_config(opts)?);
    }
    let spec = cell
        .policy_specs(opts)?
        .into_iter()
        .next()
        .ok_or_else(|| Error::config("policies", "", "name one policy"))?;
    let size = cell
        .cache_size_list()?
        .into_iter()
        .next()
        .expect("a checked size list is not empty");
    let setup = cell.level_setup()?;
    match Engine::of(opts, format, false) {
        Engine::FileGrid => {
            CacheModel::choose(setup.model.as_deref(), format.has_object_sizes())?
                .check_run(true, true, false)?;
            let capacity = size.resolve(loaded.unique(), loaded.block_size)?;
            run_file_one(
                &spec,
                loaded.files(label)?,
                capacity,
                &cell.file_config(opts)?,
            )
        }
        // The block path resolves the cache model as `sim` does (objects for sized traces).
        _ => Ok(
            run_grid_with(&[spec], &[size], loaded.blocks(label)?, &setup)?
                .pop()
                .expect("one policy at one size gives one run"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compat_accusim_picks_the_file_engine_and_levels_run_on_it_under_a_disk() {
        let accusim = RunOptions {
            compat: Some("accusim".into()),
            ..RunOptions::default()
        };
        assert_eq!(Engine::of(&accusim, &Format::Lirs, false), Engine::FileGrid);
        let plain = RunOptions::default();
        assert_eq!(Engine::of(&plain, &Format::Lirs, false), Engine::BlockGrid);
        assert_eq!(Engine::of(&plain, &Format::Events, false), Engine::FileGrid);
        let disk = RunOptions {
            disk: Some("cheetah9lp".into()),
            ..RunOptions::default()
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
        let e = config
            .file_config(&config.option_grid().unwrap()[0])
            .unwrap_err();
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
