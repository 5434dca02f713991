//! What `belady sweep` reads: an experiment (TOML) and its traces.

use crate::config::RunOptions;
use crate::error::{Error, Result};
use crate::policy::registry::Preset;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

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
            msg: crate::error::brief(e.message()),
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

    pub(super) fn preset(&self) -> Result<Preset> {
        RunOptions {
            preset: self.preset.clone(),
            compat: self.compat.clone(),
            ..RunOptions::default()
        }
        .preset()
    }
}
