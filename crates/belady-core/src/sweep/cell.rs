//! One cell of a sweep's grid: its configuration (whose SHA-256 is its key in the store), the
//! trace it reads, and how it becomes a [`crate::RunConfig`] for [`crate::run::run_cell`].

use crate::config::RunOptions;
use crate::engine::RunResult;
use crate::error::{Error, Result};
use crate::policy::registry::{param_policy, parse_policies, PolicySpec};
use crate::run::{run_cell, Engine, Loaded};
use crate::trace::{detect_format, Format};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Everything that determines one run's result. Its SHA-256 (without `trace_path`, which may
/// differ between machines) is the run's key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellConfig {
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

impl CellConfig {
    /// The run's key: hex SHA-256 of the configuration without the local path, with the names
    /// a user may spell several ways written one way (policy and parameter names as registered,
    /// the trace without `./` or doubled slashes), so one simulation has one key. Names already
    /// written that way keep the key they always had.
    pub fn key(&self) -> String {
        let policy = if self.levels.is_empty() {
            canonical_entry(&self.policy)
        } else {
            self.policy.clone()
        };
        let keyed = CellConfig {
            trace: canonical_path(&self.trace),
            policy,
            params: self.params.iter().map(|p| canonical_param(p)).collect(),
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

    /// The run as the core's configuration: one policy at one size (or one hierarchy under one
    /// placement), one read-ahead engine and one disk, over the trace at `trace_path`.
    pub fn run_config(&self) -> Result<crate::RunConfig> {
        let (policies, params) = if self.levels.is_empty() {
            let (name, own) = split_entry(&self.policy)?;
            let params = self.params.iter().cloned().chain(own).collect();
            (vec![name.to_string()], params)
        } else {
            (Vec::new(), self.params.clone())
        };
        Ok(crate::RunConfig {
            trace: PathBuf::from(&self.trace_path),
            format: Some(self.format.clone()),
            block_size: self.block_size,
            policies,
            params,
            preset: self.preset.clone(),
            cache_sizes: vec![self.cache_blocks.to_string()],
            levels: if self.levels.is_empty() {
                Vec::new()
            } else {
                vec![self.levels.clone()]
            },
            placement: if self.placement.is_empty() {
                "access".into()
            } else {
                self.placement.clone()
            },
            prefetch: vec![self.prefetch.clone()],
            disk: vec![self.disk.clone()],
            scheduler: self.scheduler.clone(),
            compat: (!self.compat.is_empty()).then(|| self.compat.clone()),
            max_request: self.max_request.clone(),
            read_ahead_kb: self.read_ahead_kb,
            ..crate::RunConfig::default()
        })
    }

    /// The run's policy, built from its entry and settings (to check it before any run).
    pub(super) fn spec(&self) -> Result<PolicySpec> {
        let preset = self.options().preset()?;
        let (name, own) = split_entry(&self.policy)?;
        let params: Vec<String> = self.params.iter().cloned().chain(own).collect();
        let mut specs = parse_policies(name, &params, preset)?;
        Ok(specs.remove(0))
    }
}

/// Splits a policy entry, `NAME` or `NAME(KEY=VALUE,...)`, into the policy's registered name and
/// the entry's own settings as `NAME.KEY=VALUE` (applied after the experiment's, so they win).
pub(super) fn split_entry(entry: &str) -> Result<(&'static str, Vec<String>)> {
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
pub(super) fn params_for(params: &[String], names: &[&str]) -> Vec<String> {
    params
        .iter()
        .filter(|p| param_policy(p).is_ok_and(|t| names.contains(&t)))
        .cloned()
        .collect()
}

/// A policy entry with its name as registered (`LRU` is `lru`), its own settings as written;
/// an entry that does not parse is left alone (the plan refuses it before any key is made).
fn canonical_entry(entry: &str) -> String {
    let (name, rest) = match entry.trim().split_once('(') {
        Some((name, rest)) => (name, format!("({rest}")),
        None => (entry, String::new()),
    };
    match PolicySpec::parse(name) {
        Ok(spec) => format!("{}{rest}", spec.info.name),
        Err(_) => entry.to_string(),
    }
}

/// A `POLICY.KEY=VALUE` setting with the policy's registered name.
fn canonical_param(item: &str) -> String {
    match (param_policy(item), item.split_once('.')) {
        (Ok(name), Some((_, rest))) => format!("{name}.{rest}"),
        _ => item.to_string(),
    }
}

/// A path written without `.` components or repeated separators (`./a//b` is `a/b`); nothing
/// is resolved on disk, so the key does not depend on the machine.
fn canonical_path(path: &str) -> String {
    let clean: PathBuf = Path::new(path)
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    if clean.as_os_str().is_empty() {
        path.to_string()
    } else {
        clean.display().to_string()
    }
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
    /// The trace, read in the forms its runs need.
    pub loaded: Loaded,
}

impl LoadedTrace {
    /// Reads the trace at `path` for runs under each of `settings`: of policies and sizes when
    /// `grid`, of hierarchies when `levels` (the core decides which engine each needs).
    pub fn load(
        label: &str,
        path: &Path,
        format: Option<&str>,
        block_size: u32,
        settings: &[RunOptions],
        grid: bool,
        levels: bool,
    ) -> Result<LoadedTrace> {
        // Hashing and loading read the trace twice: an input readable once is copied first
        // (and the copy dropped once the trace is held), errors naming the input.
        if let Some(spool) = crate::trace::input::spool_read_once(path)? {
            let (given, copy) = (path.display().to_string(), spool.display().to_string());
            let mut trace = Self::load(label, &spool, format, block_size, settings, grid, levels)
                .map_err(|e| e.renamed(&copy, &given))?;
            trace.path = path.to_path_buf();
            return Ok(trace);
        }
        let format = match format {
            Some(f) => Format::parse(f, None, None)?,
            None => detect_format(path)?,
        };
        let hash = sha256_file(path)?;
        let engines = settings.iter().flat_map(|o| {
            let grid = grid.then(|| Engine::of(o, &format, false));
            let levels = levels.then(|| Engine::of(o, &format, true));
            grid.into_iter().chain(levels)
        });
        let engines: Vec<Engine> = engines.collect();
        Ok(LoadedTrace {
            label: label.to_string(),
            path: path.to_path_buf(),
            hash,
            loaded: Loaded::load(path, format, block_size, engines)?,
        })
    }

    /// The trace's format.
    pub fn format(&self) -> &Format {
        &self.loaded.format
    }

    /// Bytes per block.
    pub fn block_size(&self) -> u32 {
        self.loaded.block_size
    }

    /// Distinct blocks referenced (what percentage sizes are of).
    pub fn unique(&self) -> usize {
        self.loaded.unique()
    }

    /// Runs `config` over this trace.
    pub fn run(&self, config: &CellConfig) -> Result<RunResult> {
        run_cell(&config.run_config()?, &self.loaded, &self.label)
    }
}
