//! How a run is configured: [`RunConfig`], one serde type describing a whole run, which the CLI
//! (`sim`, `--print-config`, `--config`), Python (`belady.simulate`, `belady.run`) and the sweep
//! planner all build and [`crate::run::run`] performs; and [`RunOptions`], the engine settings of
//! one (read-ahead, disk) setting of it, whose rules ([`RunOptions::preset`],
//! [`RunOptions::uses_file_engine`]) [`crate::run::Engine::of`] applies.
//!
//! Errors name configuration keys (`max_request`, `read_ahead_kb`); the CLI phrases them as
//! flags (`--max-request`) and Python as keyword arguments.

use crate::error::{Error, Result};
use crate::filesim::{FileOptions, FileSimConfig};
use crate::policy::registry::Preset;
use crate::trace::Format;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A run's engine settings, as users write them (unchecked until used).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunOptions {
    /// Bytes per block.
    pub block_size: u32,
    /// Parameter preset of the policies (`paper`, `study`, `accusim`).
    pub preset: String,
    /// Read-ahead engine (`none` when absent), `+clusterfetch` for ClusterFetch.
    pub prefetch: Option<String>,
    /// Disk preset or TOML file; no device (untimed) when absent.
    pub disk: Option<String>,
    /// Device queue scheduler.
    pub scheduler: String,
    /// Reference simulator to behave as (`accusim`).
    pub compat: Option<String>,
    /// Departures from the paper's text turned on one by one.
    pub compat_rules: Vec<String>,
    /// Largest disk request, as a byte size or in blocks.
    pub max_request: String,
    /// Largest read-ahead window, KiB.
    pub read_ahead_kb: Option<u64>,
    /// ClusterFetch settings were given (they need the file engine).
    #[serde(skip)]
    pub clusterfetch_options: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            block_size: 4096,
            preset: "paper".into(),
            prefetch: None,
            disk: None,
            scheduler: "fcfs".into(),
            compat: None,
            compat_rules: Vec::new(),
            max_request: "64KiB".into(),
            read_ahead_kb: None,
            clusterfetch_options: false,
        }
    }
}

impl RunOptions {
    /// The policies' preset: `compat = accusim` implies AccuSim's, whatever `preset` says.
    pub fn preset(&self) -> Result<Preset> {
        if self.compat.as_deref() == Some("accusim") {
            Ok(Preset::Accusim)
        } else {
            Preset::parse(&self.preset)
        }
    }

    /// Whether runs over a trace in `format` need the file engine (read-ahead, clustering, a
    /// device, AccuSim's rules); otherwise the block engine's fast loop runs them.
    pub fn uses_file_engine(&self, format: &Format) -> bool {
        format.is_file_level()
            || self.prefetch.as_deref().is_some_and(|p| p != "none")
            || self.disk.as_deref().is_some_and(|d| d != "none")
            || self.compat.as_deref().is_some_and(|c| !c.is_empty())
            || !self.compat_rules.is_empty()
            || self.scheduler != "fcfs"
            || self.clusterfetch_options
    }

    /// The file engine's configuration, checked.
    pub fn file_config(&self) -> Result<FileSimConfig> {
        FileSimConfig::from_options(&FileOptions {
            block_size: self.block_size,
            prefetch: self.prefetch.as_deref(),
            compat: self.compat.as_deref().filter(|c| !c.is_empty()),
            compat_rules: &self.compat_rules,
            max_request: &self.max_request,
            disk: self.disk.as_deref().filter(|d| *d != "none"),
            scheduler: &self.scheduler,
            read_ahead_kb: self.read_ahead_kb,
        })
    }
}

/// A whole run, as one value: the trace and how to read it, the policies and sizes (or the
/// hierarchies), and the engine settings. `belady sim` and `belady.simulate` build one from their
/// arguments, `belady sim --print-config` shows it, `belady sim --config` and `belady.run` read it;
/// [`crate::run::run`] performs it. Keys are named as `sim`'s flags without the dashes, lists
/// where a flag takes a comma-separated list (`prefetch`, `disk`: their product is run).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunConfig {
    /// The trace file.
    pub trace: PathBuf,
    /// Format name; detected from the content or name when absent.
    pub format: Option<String>,
    /// Column mapping for csv formats.
    pub columns: Option<String>,
    /// Whether a csv trace has a header line (the format's preset when absent).
    pub header: Option<bool>,
    /// Bytes per block.
    pub block_size: u32,
    /// Largest request one trace line may make, bytes.
    pub max_request_bytes: u64,
    /// Which requests to simulate: `read`, `write` or `all`.
    pub ops: String,
    /// Policies by name (`lru` when absent).
    pub policies: Vec<String>,
    /// `POLICY.KEY=VALUE` settings.
    pub params: Vec<String>,
    /// Parameter preset (`paper`, `study`, `accusim`); `compat = "accusim"` implies `accusim`.
    pub preset: String,
    /// Cache sizes: blocks, bytes or shares of the unique blocks.
    pub cache_sizes: Vec<String>,
    /// Cache hierarchies, top first (replace `policies` and `cache_sizes` when given).
    pub levels: Vec<String>,
    /// Placements of the lower levels, comma-separated: each hierarchy runs under each.
    pub placement: String,
    /// Read-ahead engines (`none` when empty); each runs the whole grid.
    pub prefetch: Vec<String>,
    /// Disk models (untimed when empty); each runs the whole grid.
    pub disk: Vec<String>,
    /// Device queue scheduler.
    pub scheduler: String,
    /// Reference simulator to behave as (`accusim`).
    pub compat: Option<String>,
    /// AccuSim's departures turned on one by one.
    pub compat_rules: Vec<String>,
    /// Largest disk request, as a byte size or in blocks.
    pub max_request: String,
    /// Largest read-ahead window, KiB.
    pub read_ahead_kb: Option<u64>,
    /// ClusterFetch: entries of the queue of recent disk I/Os.
    pub cf_queue: Option<usize>,
    /// ClusterFetch: burst span threshold, milliseconds.
    pub cf_threshold: Option<f64>,
    /// ClusterFetch: fewest disk I/Os a stored burst has.
    pub cf_min_burst: Option<usize>,
    /// ClusterFetch: largest store size in bytes (`3MB`).
    pub cf_store_limit: Option<String>,
    /// ClusterFetch: prefetch bandwidth cap, bytes per second.
    pub cf_bandwidth: Option<String>,
    /// ClusterFetch: persistent store loaded before and saved after the (single) run.
    pub cf_store: Option<PathBuf>,
    /// The launch ends at the first open of this file.
    pub launch_until_open: Option<String>,
    /// Replay the trace once with the same cache before the measured run.
    pub warm: bool,
    /// Where files lie on the device: `contiguous` or `scattered`.
    pub layout: String,
    /// File engine: list every disk request in each row's `request_log`.
    pub log_requests: bool,
    /// Hierarchies with a disk: one-way latency between adjacent levels, microseconds.
    pub link_latency_us: f64,
    /// Hierarchies with a disk: bandwidth between adjacent levels, megabits per second.
    pub link_mbps: f64,
    /// Hierarchies with a disk: time between one reference's completion and the next, µs.
    pub think_us: f64,
    /// Hierarchies with a disk: most reloads waiting for idle disk time.
    pub reload_queue: usize,
    /// The cache model, `blocks` or `objects`; absent: objects for traces whose requests carry
    /// object sizes (oracleGeneral, lcs), blocks otherwise.
    pub cache_model: Option<String>,
    /// Admission filter consulted on each miss: `none`, `tinylfu`, `size:BYTES`, `prob:P`.
    pub admission: String,
    /// Seed of random choices (`prob:P` admission; the randomised policies' draws).
    pub seed: u64,
}

impl Default for RunConfig {
    fn default() -> Self {
        let o = RunOptions::default();
        RunConfig {
            trace: PathBuf::new(),
            format: None,
            columns: None,
            header: None,
            block_size: o.block_size,
            max_request_bytes: crate::trace::DEFAULT_MAX_REQUEST_BYTES,
            ops: "read".into(),
            policies: vec!["lru".into()],
            params: Vec::new(),
            preset: o.preset,
            cache_sizes: Vec::new(),
            levels: Vec::new(),
            placement: "access".into(),
            prefetch: Vec::new(),
            disk: Vec::new(),
            scheduler: o.scheduler,
            compat: None,
            compat_rules: Vec::new(),
            max_request: o.max_request,
            read_ahead_kb: None,
            cf_queue: None,
            cf_threshold: None,
            cf_min_burst: None,
            cf_store_limit: None,
            cf_bandwidth: None,
            cf_store: None,
            launch_until_open: None,
            warm: false,
            layout: "contiguous".into(),
            log_requests: false,
            link_latency_us: 10.0,
            link_mbps: 1000.0,
            think_us: 0.0,
            reload_queue: 4096,
            cache_model: None,
            admission: "none".into(),
            seed: 0,
        }
    }
}

impl RunConfig {
    /// Reads a configuration from JSON, or TOML when `origin` ends in `.toml`; errors name
    /// `origin` and, for an unknown or mistyped key, the key.
    pub fn parse(text: &str, origin: &str) -> Result<RunConfig> {
        if origin.ends_with(".toml") {
            return toml::from_str(text).map_err(|e| Error::Parse {
                path: origin.to_string(),
                line: e
                    .span()
                    .map_or(0, |s| text[..s.start].matches('\n').count() as u64 + 1),
                msg: short_message(e.message()),
            });
        }
        serde_json::from_str(text).map_err(|e| Error::Parse {
            path: origin.to_string(),
            line: e.line() as u64,
            msg: short_message(e.to_string().split(" at line ").next().unwrap_or("")),
        })
    }

    /// Reads the configuration file at `path` (JSON, or TOML by its name).
    pub fn load(path: &Path) -> Result<RunConfig> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        RunConfig::parse(&text, &path.display().to_string())
    }

    /// Whether any ClusterFetch or launch setting asks for the file engine (where ClusterFetch's
    /// settings without ClusterFetch are refused rather than ignored).
    pub fn clusterfetch_options(&self) -> bool {
        self.needs_own_run()
            || self.layout != "contiguous"
            || self.cf_queue.is_some()
            || self.cf_threshold.is_some()
            || self.cf_min_burst.is_some()
            || self.cf_store_limit.is_some()
            || self.cf_bandwidth.is_some()
    }

    /// Whether the trace or the run is shaped for ClusterFetch: a warm start, a launch marker
    /// or a persistent store.
    pub fn needs_own_run(&self) -> bool {
        self.warm || self.launch_until_open.is_some() || self.cf_store.is_some()
    }

    /// The level setup beyond policy and size: cache model, admission filter and seed, checked.
    pub fn level_setup(&self) -> Result<crate::cache_model::LevelSetup> {
        if let Some(m) = &self.cache_model {
            crate::cache_model::CacheModel::choose(Some(m), false)?;
        }
        Ok(crate::cache_model::LevelSetup {
            model: self.cache_model.clone(),
            admission: crate::admission::AdmissionSpec::parse(&self.admission)?,
            seed: self.seed,
        })
    }

    /// One [`RunOptions`] per (read-ahead, device) pair of `prefetch` × `disk`, read-ahead major.
    pub fn option_grid(&self) -> Result<Vec<RunOptions>> {
        let list = |v: &[String], key: &str| -> Result<Vec<Option<String>>> {
            if v.is_empty() {
                return Ok(vec![None]);
            }
            v.iter()
                .map(|t| {
                    let t = t.trim();
                    if t.is_empty() {
                        Err(Error::config(key, t, "name at least one"))
                    } else {
                        Ok(Some(t.to_string()))
                    }
                })
                .collect()
        };
        let prefetches = list(&self.prefetch, "prefetch")?;
        let disks = list(&self.disk, "disk")?;
        let mut grid = Vec::new();
        for p in &prefetches {
            for d in &disks {
                grid.push(RunOptions {
                    block_size: self.block_size,
                    preset: self.preset.clone(),
                    prefetch: p.clone(),
                    disk: d.clone(),
                    scheduler: self.scheduler.clone(),
                    compat: self.compat.clone(),
                    compat_rules: self.compat_rules.clone(),
                    max_request: self.max_request.clone(),
                    read_ahead_kb: self.read_ahead_kb,
                    clusterfetch_options: self.clusterfetch_options(),
                });
            }
        }
        Ok(grid)
    }
}

/// A serde message without its list of every valid key (one line, the bad key first).
fn short_message(msg: &str) -> String {
    match msg.split_once(", expected one of") {
        Some((head, _)) => format!("{head} (`belady sim --print-config` shows every key)"),
        None => msg.trim().to_string(),
    }
}

/// The command-line flag for configuration key `key` (`max_request` -> `--max-request`);
/// keys that are already flags or phrases are kept.
pub fn flag_name(key: &str) -> String {
    if key.starts_with('-') || key.contains(' ') {
        return key.to_string();
    }
    match key {
        "params" => "--param".into(),
        "compat_rules" => "--compat-rule".into(),
        "policies" => "--policy".into(),
        "cache_sizes" => "--cache-size".into(),
        _ => format!("--{}", key.replace('_', "-")),
    }
}

/// The Python keyword argument of `belady.simulate` for key or flag `key` (`--max-request` ->
/// `max_request`); phrases are kept.
pub fn keyword_name(key: &str) -> String {
    if key.contains(' ') {
        return key.to_string();
    }
    match key.trim_start_matches('-').replace('-', "_").as_str() {
        "param" => "params".into(),
        "policy" => "policies".into(),
        "cache_size" => "cache_sizes".into(),
        "compat_rule" => "compat_rules".into(),
        k => k.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compat_accusim_implies_the_accusim_preset_and_the_file_engine() {
        let o = RunOptions {
            compat: Some("accusim".into()),
            preset: "paper".into(),
            ..RunOptions::default()
        };
        assert_eq!(o.preset().unwrap(), Preset::Accusim);
        assert!(o.uses_file_engine(&Format::Lirs));
        assert!(!RunOptions::default().uses_file_engine(&Format::Lirs));
        assert_eq!(RunOptions::default().preset().unwrap(), Preset::Paper);
    }

    #[test]
    fn keys_are_phrased_as_flags_and_keywords() {
        assert_eq!(flag_name("max_request"), "--max-request");
        assert_eq!(flag_name("params"), "--param");
        assert_eq!(flag_name("read-ahead window"), "read-ahead window");
        assert_eq!(keyword_name("max_request"), "max_request");
        assert_eq!(keyword_name("--cache-size"), "cache_sizes");
        assert_eq!(keyword_name("--param"), "params");
    }

    #[test]
    fn bad_values_name_their_key() {
        let o = RunOptions {
            prefetch: Some("linux24".into()),
            max_request: "10%".into(),
            ..RunOptions::default()
        };
        let e = o.file_config().unwrap_err().to_string();
        assert!(e.contains("max_request") && !e.contains("--"), "{e}");
    }
}
