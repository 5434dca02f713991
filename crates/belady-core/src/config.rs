//! How a run is set up besides its trace, policies and sizes: one serde type that the CLI
//! (`sim`), Python (`belady.simulate`) and the sweep planner all build, and the one place that
//! decides the engine, the preset and what `compat` implies.
//!
//! Errors name configuration keys (`max_request`, `read_ahead_kb`); the CLI phrases them as
//! flags (`--max-request`) and Python as keyword arguments.

use crate::error::Result;
use crate::filesim::{FileOptions, FileSimConfig};
use crate::policy::registry::Preset;
use crate::trace::Format;
use serde::{Deserialize, Serialize};

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

    /// Whether a hierarchy (`levels`) over a trace in `format` runs on the file engine: always.
    /// Every hierarchy, block- or file-level, timed or not, runs there (its client with
    /// read-ahead, clustering, the device queue and compat rules; the link and reload timing
    /// of the levels below is part of that engine's clock).
    pub fn levels_on_file_engine(&self, _format: &Format) -> bool {
        true
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
