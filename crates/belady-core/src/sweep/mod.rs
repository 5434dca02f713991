//! Experiments: a grid of runs (traces × read-ahead × disks × policies × sizes), each described
//! completely by a [`RunConfig`] whose SHA-256 is its key in the results [`store`].
//!
//! The command line (`belady sweep`), the Python package (`belady.sweep`) and Dask workers all go
//! through here: [`Plan::new`] reads every trace once and lists the runs; [`Plan::run`] performs
//! one; [`run_config`] performs a run from its configuration alone (what a remote worker gets).

#[cfg(test)]
mod defect_tests;
pub mod store;

use crate::config::RunOptions;
use crate::engine::{run_one, PreparedTrace, RunResult};
use crate::error::{Error, Result};
use crate::filesim::{run_file_hierarchy, run_file_one, FileSimConfig, PreparedFileTrace};
use crate::hierarchy::{HierarchySpec, Placement};
use crate::policy::registry::{param_policy, parse_policies, PolicySpec, Preset};
use crate::size::CacheSize;
use crate::trace::{detect_format, BlockTrace, Format, OpFilter, ReadOptions};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The store a sweep writes when nothing else is named.
pub const DEFAULT_STORE: &str = "belady-results.sqlite";

/// One trace of an experiment.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// Path (relative to the experiment file) of the trace.
    pub path: PathBuf,
    /// Format name; detected when absent.
    pub format: Option<String>,
    /// Bytes per block.
    #[serde(default = "default_block_size")]
    pub block_size: u32,
    /// Name in results (default: the path as written).
    #[serde(default)]
    pub name: Option<String>,
}

fn default_block_size() -> u32 {
    4096
}

/// An experiment: what `belady sweep` reads from TOML.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    /// Name stored with every row.
    #[serde(default)]
    pub name: String,
    /// Results store (relative to the experiment file).
    pub store: Option<PathBuf>,
    /// Parameter preset: paper or study.
    #[serde(default = "default_preset")]
    pub preset: String,
    /// Policies by name, each optionally with its own settings: `lirs(hir=0.01)`.
    #[serde(default)]
    pub policies: Vec<String>,
    /// `POLICY.KEY=VALUE` settings; each run gets those for its own policies.
    #[serde(default)]
    pub params: Vec<String>,
    /// Cache sizes: blocks, bytes or percentages.
    #[serde(default)]
    pub sizes: Vec<String>,
    /// Multi-level hierarchies (`client:lru:5000,storage:mq:10000`, as `sim --levels`); when
    /// given, the grid is traces × hierarchies × placements instead of policies × sizes.
    #[serde(default)]
    pub levels: Vec<String>,
    /// Placements of the lower levels, for `levels`.
    #[serde(default = "default_placements")]
    pub placements: Vec<String>,
    /// Read-ahead engines.
    #[serde(default = "default_none")]
    pub prefetch: Vec<String>,
    /// Disk models (`none` for untimed).
    #[serde(default = "default_none")]
    pub disks: Vec<String>,
    /// Device queue scheduler.
    #[serde(default = "default_scheduler")]
    pub scheduler: String,
    /// Reference simulator to behave as (`accusim`).
    pub compat: Option<String>,
    /// Largest disk request.
    #[serde(default = "default_max_request")]
    pub max_request: String,
    /// Largest read-ahead window in KiB (`sim --read-ahead-kb`); absent: each engine's default.
    #[serde(default)]
    pub read_ahead_kb: Option<u64>,
    /// The traces.
    #[serde(rename = "trace")]
    pub traces: Vec<TraceSpec>,
}

fn default_placements() -> Vec<String> {
    vec!["access".into()]
}
fn default_preset() -> String {
    "paper".into()
}
fn default_none() -> Vec<String> {
    vec!["none".into()]
}
fn default_scheduler() -> String {
    "fcfs".into()
}
fn default_max_request() -> String {
    "64KiB".into()
}

impl Experiment {
    /// Parses an experiment; `origin` (the file name) prefixes every error.
    pub fn from_toml(text: &str, origin: &str) -> Result<Experiment> {
        let exp: Experiment = toml::from_str(text).map_err(|e| Error::Parse {
            path: origin.to_string(),
            line: e
                .span()
                .map_or(0, |s| text[..s.start].matches('\n').count() as u64 + 1),
            msg: e.message().to_string(),
        })?;
        let grid = !exp.policies.is_empty() && !exp.sizes.is_empty();
        if exp.traces.is_empty() || (!grid && exp.levels.is_empty()) {
            return Err(Error::config(
                "experiment",
                origin,
                "needs at least one [[trace]], and one policy and one size or one of `levels`",
            ));
        }
        Ok(exp)
    }

    /// Reads and parses the experiment file at `path`.
    pub fn load(path: &Path) -> Result<Experiment> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Experiment::from_toml(&text, &path.display().to_string())
    }

    fn preset(&self) -> Result<Preset> {
        RunOptions {
            preset: self.preset.clone(),
            compat: self.compat.clone(),
            ..RunOptions::default()
        }
        .preset()
    }
}

/// Everything that determines one run's result. Its SHA-256 (without `trace_path`, which may
/// differ between machines) is the run's key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    /// The trace as the experiment names it.
    pub trace: String,
    /// SHA-256 of the trace file's bytes.
    pub trace_hash: String,
    /// Format name.
    pub format: String,
    /// Bytes per block.
    pub block_size: u32,
    /// Policy as named in the experiment, with any settings of its own: `lirs(hir=0.01)`.
    pub policy: String,
    /// The experiment's `POLICY.KEY=VALUE` settings for this run's policies (only those, so a
    /// run's key does not change when settings for other policies are added).
    pub params: Vec<String>,
    /// Parameter preset.
    pub preset: String,
    /// Cache size as written.
    pub cache_size: String,
    /// Cache size in blocks.
    pub cache_blocks: u64,
    /// Read-ahead engine.
    pub prefetch: String,
    /// Disk model or `none`.
    pub disk: String,
    /// Device queue scheduler.
    pub scheduler: String,
    /// Reference simulator behaviour, or empty.
    pub compat: String,
    /// Largest disk request.
    pub max_request: String,
    /// Largest read-ahead window in KiB, when set (absent from the key otherwise, so runs stored
    /// before the setting existed keep their keys).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub read_ahead_kb: Option<u64>,
    /// belady's version.
    pub belady_version: String,
    /// For a multi-level run: the hierarchy as written (then `policy` and sizes are unused).
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub levels: String,
    /// For a multi-level run: the lower levels' placement.
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub placement: String,
    /// Where this machine reads the trace (not part of the key).
    #[serde(default)]
    pub trace_path: String,
}

impl RunConfig {
    /// The run's key: hex SHA-256 of the configuration without the local path.
    pub fn key(&self) -> String {
        let keyed = RunConfig {
            trace_path: String::new(),
            ..self.clone()
        };
        let json = serde_json::to_vec(&keyed).expect("configurations serialise");
        hex(&Sha256::digest(json))
    }

    /// The run's engine settings, in the form every front end builds.
    pub fn options(&self) -> RunOptions {
        RunOptions {
            block_size: self.block_size,
            preset: self.preset.clone(),
            prefetch: Some(self.prefetch.clone()),
            disk: Some(self.disk.clone()),
            scheduler: self.scheduler.clone(),
            compat: (!self.compat.is_empty()).then(|| self.compat.clone()),
            compat_rules: Vec::new(),
            max_request: self.max_request.clone(),
            read_ahead_kb: self.read_ahead_kb,
            clusterfetch_options: false,
        }
    }

    fn uses_file_engine(&self, format: &Format) -> bool {
        if self.levels.is_empty() {
            self.options().uses_file_engine(format)
        } else {
            self.options().levels_on_file_engine(format)
        }
    }

    fn file_config(&self) -> Result<FileSimConfig> {
        self.options().file_config()
    }

    fn spec(&self) -> Result<PolicySpec> {
        let preset = self.options().preset()?;
        let (name, own) = split_entry(&self.policy)?;
        let params: Vec<String> = self.params.iter().cloned().chain(own).collect();
        let mut specs = parse_policies(name, &params, preset)?;
        Ok(specs.remove(0))
    }
}

/// Splits a policy entry, `NAME` or `NAME(KEY=VALUE,...)`, into the policy's registered name and
/// the entry's own settings as `NAME.KEY=VALUE` (applied after the experiment's, so they win).
fn split_entry(entry: &str) -> Result<(&'static str, Vec<String>)> {
    let Some((name, rest)) = entry.trim().split_once('(') else {
        return Ok((PolicySpec::parse(entry)?.info.name, Vec::new()));
    };
    let bad = || Error::config("policy", entry, "expected NAME or NAME(KEY=VALUE,...)");
    let inner = rest.strip_suffix(')').ok_or_else(bad)?;
    let name = PolicySpec::parse(name)?.info.name;
    let mut own = Vec::new();
    for setting in inner.split(',') {
        let (key, value) = setting.split_once('=').ok_or_else(bad)?;
        let (key, value) = (key.trim(), value.trim());
        if key.is_empty() || value.is_empty() || setting.contains(['(', ')']) {
            return Err(bad());
        }
        own.push(format!("{name}.{key}={value}"));
    }
    Ok((name, own))
}

/// The experiment's settings for any of `names`, in experiment order (already checked).
fn params_for(params: &[String], names: &[&str]) -> Vec<String> {
    params
        .iter()
        .filter(|p| param_policy(p).is_ok_and(|t| names.contains(&t)))
        .cloned()
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 of a file's bytes, hex.
pub fn sha256_file(path: &Path) -> Result<String> {
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut h = Sha256::new();
    std::io::copy(&mut file, &mut h).map_err(|e| Error::io(path, e))?;
    Ok(hex(&h.finalize()))
}

/// A trace read once for every run over it.
pub struct LoadedTrace {
    /// As the experiment names it.
    pub label: String,
    /// Where it was read from.
    pub path: PathBuf,
    /// SHA-256 of its bytes.
    pub hash: String,
    format: Format,
    block_size: u32,
    blocks: Option<PreparedTrace>,
    files: Option<PreparedFileTrace>,
}

impl LoadedTrace {
    /// Reads the trace at `path` for the block engine, the file engine, or both.
    pub fn load(
        label: &str,
        path: &Path,
        format: Option<&str>,
        block_size: u32,
        need_blocks: bool,
        need_files: bool,
    ) -> Result<LoadedTrace> {
        let format = match format {
            Some(f) => Format::parse(f, None, None)?,
            None => detect_format(path)?,
        };
        let hash = sha256_file(path)?;
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
        Ok(LoadedTrace {
            label: label.to_string(),
            path: path.to_path_buf(),
            hash,
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

    /// Runs `config` over this trace.
    pub fn run(&self, config: &RunConfig) -> Result<RunResult> {
        if !config.levels.is_empty() {
            let opts = config.options();
            let placement = Placement::parse(&config.placement)?;
            let spec =
                HierarchySpec::parse(&config.levels, &config.params, opts.preset()?, placement)?;
            if opts.levels_on_file_engine(&self.format) {
                let files = self.files.as_ref().ok_or_else(|| {
                    Error::config("trace", &self.label, "was not prepared for the file engine")
                })?;
                return run_file_hierarchy(&spec, files, &opts.file_config()?);
            }
            let blocks = self.blocks.as_ref().ok_or_else(|| {
                Error::config(
                    "trace",
                    &self.label,
                    "was not prepared for the block engine",
                )
            })?;
            let timing = match opts.disk.as_deref().filter(|d| *d != "none") {
                Some(disk) => Some(crate::hierarchy::HierarchyTiming::new(
                    crate::disk::load_config(disk)?,
                    disk,
                )),
                None => None,
            };
            return Ok(crate::hierarchy::run_hierarchy(&spec, blocks, timing.as_ref())?.summary());
        }
        let spec = config.spec()?;
        let capacity = config.cache_blocks as usize;
        if config.uses_file_engine(&self.format) {
            let files = self.files.as_ref().ok_or_else(|| {
                Error::config("trace", &self.label, "was not prepared for the file engine")
            })?;
            run_file_one(&spec, files, capacity, &config.file_config()?)
        } else {
            let blocks = self.blocks.as_ref().ok_or_else(|| {
                Error::config(
                    "trace",
                    &self.label,
                    "was not prepared for the block engine",
                )
            })?;
            run_one(&spec, blocks, capacity)
        }
    }
}

/// An experiment's runs, with its traces read.
pub struct Plan {
    /// The experiment's name (its file name when it has none).
    pub name: String,
    /// Traces, in experiment order.
    pub traces: Vec<LoadedTrace>,
    /// Every run of the grid, in grid order: (trace index, configuration).
    pub runs: Vec<(usize, RunConfig)>,
    /// Runs the experiment lists more than once (a trace or policy named twice): planned once.
    pub duplicates: usize,
}

/// What [`Plan::execute_counted`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Executed {
    /// Runs computed and stored by this call.
    pub computed: usize,
    /// Runs another sweep on the same store was computing, or had stored meanwhile: left to it.
    pub left_to_others: usize,
}

/// A policy visitor that only checks the policy can be built.
struct CheckBuild;

impl crate::policy::registry::PolicyVisitor for CheckBuild {
    type Output = ();
    fn visit<P: crate::policy::Policy + 'static>(self, _policy: P) {}
}

impl Plan {
    /// Checks the experiment, reads its traces (paths relative to `base`) and lists its runs.
    pub fn new(exp: &Experiment, base: &Path, name: &str) -> Result<Plan> {
        let preset = exp.preset()?;
        // Policy names, settings and hierarchies are checked here, once, before any trace is
        // read; each run then gets only the settings for its own policies.
        let entries: Vec<(&str, Vec<String>)> = exp
            .policies
            .iter()
            .map(|p| split_entry(p))
            .collect::<Result<_>>()?;
        let level_policies: Vec<Vec<&str>> = exp
            .levels
            .iter()
            .map(|levels| {
                let spec = HierarchySpec::parse(levels, &[], preset, Placement::Access)?;
                Ok(spec.levels.iter().map(|l| l.policy.info.name).collect())
            })
            .collect::<Result<_>>()?;
        for item in &exp.params {
            let target = param_policy(item)?;
            let selected = entries.iter().map(|e| e.0);
            if !selected
                .chain(level_policies.iter().flatten().copied())
                .any(|n| n == target)
            {
                return Err(Error::config(
                    "params",
                    item,
                    format!("policy '{target}' is in none of the experiment's policies or levels"),
                ));
            }
        }
        let policy_params: Vec<Vec<String>> = entries
            .iter()
            .map(|(name, own)| {
                let params = params_for(&exp.params, &[name]);
                let all: Vec<String> = params.iter().chain(own).cloned().collect();
                parse_policies(name, &all, preset)?;
                Ok(params)
            })
            .collect::<Result<_>>()?;
        let level_params: Vec<Vec<String>> = exp
            .levels
            .iter()
            .zip(&level_policies)
            .map(|(levels, names)| {
                let params = params_for(&exp.params, names);
                for p in &exp.placements {
                    HierarchySpec::parse(levels, &params, preset, Placement::parse(p)?)?;
                }
                Ok(params)
            })
            .collect::<Result<_>>()?;
        let sizes: Vec<(String, CacheSize)> = exp
            .sizes
            .iter()
            .map(|s| Ok((s.clone(), CacheSize::parse(s)?)))
            .collect::<Result<_>>()?;
        let mut settings = Vec::new();
        for prefetch in &exp.prefetch {
            for disk in &exp.disks {
                RunOptions {
                    prefetch: Some(prefetch.clone()),
                    compat: exp.compat.clone(),
                    max_request: exp.max_request.clone(),
                    disk: Some(disk.clone()),
                    scheduler: exp.scheduler.clone(),
                    read_ahead_kb: exp.read_ahead_kb,
                    ..RunOptions::default()
                }
                .file_config()?;
                settings.push((prefetch.clone(), disk.clone()));
            }
        }
        let plain = |p: &str, d: &str| p == "none" && d == "none" && exp.compat.is_none();
        let need_blocks = settings.iter().any(|(p, d)| plain(p, d)) || !exp.levels.is_empty();
        let need_files = settings.iter().any(|(p, d)| !plain(p, d));
        let mut traces = Vec::new();
        for t in &exp.traces {
            let path = base.join(&t.path);
            let label = t
                .name
                .clone()
                .unwrap_or_else(|| t.path.display().to_string());
            traces.push(LoadedTrace::load(
                &label,
                &path,
                t.format.as_deref(),
                t.block_size,
                need_blocks,
                need_files,
            )?);
        }
        let mut runs = Vec::new();
        let base_config = |trace: &LoadedTrace| RunConfig {
            trace: trace.label.clone(),
            trace_hash: trace.hash.clone(),
            format: trace.format.name().to_string(),
            block_size: trace.block_size,
            policy: String::new(),
            params: Vec::new(),
            preset: exp.preset.clone(),
            cache_size: String::new(),
            cache_blocks: 0,
            prefetch: "none".into(),
            disk: "none".into(),
            scheduler: exp.scheduler.clone(),
            compat: String::new(),
            max_request: exp.max_request.clone(),
            read_ahead_kb: exp.read_ahead_kb,
            belady_version: env!("CARGO_PKG_VERSION").to_string(),
            trace_path: trace.path.display().to_string(),
            levels: String::new(),
            placement: String::new(),
        };
        for (ti, trace) in traces.iter().enumerate() {
            for (prefetch, disk) in &settings {
                for (levels, params) in exp.levels.iter().zip(&level_params) {
                    for placement in &exp.placements {
                        runs.push((
                            ti,
                            RunConfig {
                                policy: "hierarchy".into(),
                                params: params.clone(),
                                levels: levels.clone(),
                                placement: placement.clone(),
                                prefetch: prefetch.clone(),
                                disk: disk.clone(),
                                compat: exp.compat.clone().unwrap_or_default(),
                                ..base_config(trace)
                            },
                        ));
                    }
                }
            }
            if exp.policies.is_empty() || exp.sizes.is_empty() {
                continue;
            }
            for (prefetch, disk) in &settings {
                for (policy, params) in exp.policies.iter().zip(&policy_params) {
                    for (size_text, size) in &sizes {
                        let capacity = size.resolve(trace.unique(), trace.block_size)?;
                        runs.push((
                            ti,
                            RunConfig {
                                policy: policy.clone(),
                                params: params.clone(),
                                cache_size: size_text.clone(),
                                cache_blocks: capacity as u64,
                                prefetch: prefetch.clone(),
                                disk: disk.clone(),
                                compat: exp.compat.clone().unwrap_or_default(),
                                ..base_config(trace)
                            },
                        ));
                    }
                }
            }
        }
        // A trace or policy listed twice gives runs with one key: the store keeps one row, so
        // the plan keeps one run and says how many it dropped.
        let mut seen = std::collections::HashSet::new();
        let listed = runs.len();
        runs.retain(|(_, config)| seen.insert(config.key()));
        let duplicates = listed - runs.len();
        // Every run's policy is built once here, with its own parameters and size, so a bad
        // value (`lirs.hir=abc`) fails before the first run is stored, not after some were.
        let mut checked = std::collections::HashSet::new();
        for (_, config) in &runs {
            if config.policy == "hierarchy"
                || !checked.insert((
                    config.policy.clone(),
                    config.params.clone(),
                    config.cache_blocks,
                ))
            {
                continue;
            }
            let blocks = usize::try_from(config.cache_blocks).unwrap_or(usize::MAX);
            config
                .spec()
                .and_then(|spec| crate::policy::registry::build(&spec, blocks, 1, CheckBuild))
                .map_err(|e| {
                    Error::config(
                        "run",
                        format!("{} at {} blocks", config.policy, config.cache_blocks),
                        e.to_string(),
                    )
                })?;
        }
        let name = if exp.name.is_empty() {
            name.to_string()
        } else {
            exp.name.clone()
        };
        Ok(Plan {
            name,
            traces,
            runs,
            duplicates,
        })
    }

    /// Performs run `i` of the plan.
    pub fn run(&self, i: usize) -> Result<RunResult> {
        let (t, config) = &self.runs[i];
        self.traces[*t].run(config)
    }

    /// Indices of the runs `store` does not hold yet.
    pub fn pending(&self, store: &store::Store) -> Result<Vec<usize>> {
        let done = store.keys()?;
        Ok((0..self.runs.len())
            .filter(|&i| !done.contains(&self.runs[i].1.key()))
            .collect())
    }

    /// Performs the runs `todo` on `threads` workers (all cores when `None`) and stores each
    /// result as soon as it is known, from this thread alone; `progress` is called after each.
    /// The first failed run's error is returned after the others finish; stored runs stay.
    pub fn execute(
        &self,
        todo: &[usize],
        store: &store::Store,
        threads: Option<usize>,
        progress: &mut dyn FnMut(),
    ) -> Result<()> {
        self.execute_counted(todo, store, threads, progress)
            .map(|_| ())
    }

    /// [`Plan::execute`], saying how many runs it computed and how many it left to another
    /// sweep on the same store: each run is claimed in the store before it is computed, so
    /// concurrent sweeps share the work instead of each computing every run.
    pub fn execute_counted(
        &self,
        todo: &[usize],
        store: &store::Store,
        threads: Option<usize>,
        progress: &mut dyn FnMut(),
    ) -> Result<Executed> {
        use rayon::prelude::*;
        let claims = store.claims()?;
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Option<Result<RunResult>>)>();
        let mut failure = None;
        let mut done = Executed::default();
        std::thread::scope(|scope| -> Result<()> {
            let claims = &claims;
            scope.spawn(move || {
                let work = || {
                    todo.par_iter().for_each_with(tx, |tx, &i| {
                        let result = match claims.claim(&self.runs[i].1.key()) {
                            Ok(true) => Some(self.run(i)),
                            Ok(false) => None,
                            Err(e) => Some(Err(e)),
                        };
                        // The receiver stops early only on a store error; later results are moot.
                        let _ = tx.send((i, result));
                    })
                };
                match rayon::ThreadPoolBuilder::new()
                    .num_threads(threads.unwrap_or(0))
                    .build()
                {
                    Ok(pool) => pool.install(work),
                    Err(_) => work(),
                }
            });
            for (i, result) in rx {
                let config = &self.runs[i].1;
                match result {
                    None => done.left_to_others += 1,
                    Some(Ok(r)) => {
                        store.insert(&self.name, config, &r)?;
                        done.computed += 1;
                    }
                    Some(Err(e)) => {
                        failure.get_or_insert(Error::config(
                            "run",
                            format!(
                                "{} at {} blocks on {}",
                                config.policy, config.cache_blocks, config.trace
                            ),
                            e.to_string(),
                        ));
                    }
                }
                progress();
            }
            Ok(())
        })?;
        // Claims are only a lock on work in progress: stored runs need none, failed ones are
        // free for the next sweep to try.
        claims.release_all()?;
        failure.map_or(Ok(done), Err)
    }
}

/// Performs a run from its configuration alone, reading the trace from `trace_path` (and checking
/// its hash): what a remote worker does.
pub fn run_config(config: &RunConfig) -> Result<RunResult> {
    let path = Path::new(&config.trace_path);
    let format = Format::parse(&config.format, None, None)?;
    let file_engine = config.uses_file_engine(&format);
    let trace = LoadedTrace::load(
        &config.trace,
        path,
        Some(&config.format),
        config.block_size,
        !file_engine,
        file_engine,
    )?;
    if trace.hash != config.trace_hash {
        return Err(Error::config(
            "trace",
            path.display(),
            format!(
                "has SHA-256 {} but the run was planned for {}",
                trace.hash, config.trace_hash
            ),
        ));
    }
    trace.run(config)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(plan.runs[1].1.cache_blocks, 45, "50% of 90 unique blocks");
        let keys: std::collections::HashSet<String> =
            plan.runs.iter().map(|(_, c)| c.key()).collect();
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
        moved.trace_path = "/elsewhere/t.trace".into();
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
        assert_eq!((d.read_ahead_kb, s.read_ahead_kb), (None, Some(16)));
        // Unset, the setting stays out of the configuration, so older stores keep their keys.
        assert!(!serde_json::to_string(d).unwrap().contains("read_ahead_kb"));
        assert_ne!(d.key(), s.key());
        // 16 KiB windows (4 blocks) read the 300-block loop in more, smaller requests.
        let requests = |p: &Plan| p.run(0).unwrap().io.unwrap().disk_requests;
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
        let lru = |p: &Plan| -> Vec<RunConfig> {
            p.runs
                .iter()
                .filter(|(_, c)| c.policy == "lru")
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
            let got = tuned.run(i).unwrap();
            assert_eq!(got, run_config(config).unwrap(), "a worker gets the same");
            let (label, params): (&str, &[&str]) = match config.policy.as_str() {
                "lru" => ("lru", &[]),
                "lirs" => ("lirs(hir=0.1)", &["lirs.hir=0.1"]),
                _ => ("lirs(hir=0.3)", &["lirs.hir=0.1"]),
            };
            assert_eq!(got.policy, label);
            assert_eq!(config.params, params);
            if config.prefetch == "none" {
                let mut spec = PolicySpec::parse(label.split('(').next().unwrap()).unwrap();
                if let Some(hir) = label.strip_prefix("lirs(hir=") {
                    spec.set("hir", hir.trim_end_matches(')')).unwrap();
                }
                let direct = run_one(&spec, &trace, config.cache_blocks as usize).unwrap();
                assert_eq!(got, direct, "{label}");
                lirs_hits.insert((label, config.cache_blocks), got.hits);
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
        let params: Vec<&[String]> = mixed.runs.iter().map(|(_, c)| &c.params[..]).collect();
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
            let got = plan.run(i).unwrap();
            let spec = crate::hierarchy::HierarchySpec::parse(
                &config.levels,
                &[],
                Preset::Paper,
                crate::hierarchy::Placement::parse(&config.placement).unwrap(),
            )
            .unwrap();
            let direct = crate::hierarchy::run_hierarchy(&spec, &trace, None).unwrap();
            assert_eq!(got.levels.as_ref(), Some(&direct.levels));
            assert_eq!((got.hits, got.requests), (direct.hits, direct.requests));
            assert_eq!(got, run_config(config).unwrap());
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
        let with_ra = plan.run(1).unwrap();
        assert_eq!(with_ra.prefetch.as_deref(), Some("linux24"));
        assert_eq!(with_ra.levels.as_ref().map(Vec::len), Some(2));
        let files = crate::filesim::PreparedFileTrace::from_block_trace(&trace.trace).unwrap();
        let spec = crate::hierarchy::HierarchySpec::parse(
            "client:lru:40,storage:lru:80",
            &[],
            Preset::Paper,
            crate::hierarchy::Placement::Access,
        )
        .unwrap();
        let cfg = RunOptions {
            prefetch: Some("linux24".into()),
            ..RunOptions::default()
        }
        .file_config()
        .unwrap();
        assert_eq!(with_ra, run_file_hierarchy(&spec, &files, &cfg).unwrap());
        assert_eq!(with_ra, run_config(&plan.runs[1].1).unwrap());
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
}
