//! One cell of a sweep's grid: a [`RunConfig`] with one value per list, plus what identifies its
//! trace; the SHA-256 of its JSON (without the local path) is its key in the store.

use crate::error::{Error, Result};
use crate::policy::registry::{param_policy, PolicySpec};
use crate::run::config::RunConfig;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Everything that determines one run's result: the run as `belady sim --config` would perform
/// it (one policy at one size or one hierarchy under one placement, one read-ahead engine, one
/// disk) and the trace's name and content hash. As JSON it is one flat object: the
/// configuration's keys, `trace` naming the trace as the experiment does, `trace_path` where
/// this machine reads it (not part of the key), `trace_hash` and `belady_version`.
#[derive(Clone, Debug, PartialEq)]
pub struct CellConfig {
    /// The trace as the experiment names it.
    pub trace: String,
    /// SHA-256 of the trace file's bytes.
    pub trace_hash: String,
    /// belady's version.
    pub belady_version: String,
    /// The run; its `trace` is where this machine reads the trace.
    pub run: RunConfig,
}

impl CellConfig {
    /// The run's key: hex SHA-256 of the configuration without the local path. The planner
    /// builds cells from a normalised configuration ([`RunConfig::normalized`]), so a name
    /// spelled several ways (`LRU`, `./cpp.lirs`) gives one key.
    pub fn key(&self) -> String {
        let mut map = self.to_map();
        map.remove("trace_path");
        let json = serde_json::to_vec(&map).expect("configurations serialise");
        hex(&Sha256::digest(json))
    }

    /// The run's policy entry or hierarchy, for messages: `lirs(hir=0.3)`, `c:lru:10,s:mq:20`.
    pub fn label(&self) -> String {
        match self.run.levels.first() {
            Some(levels) => format!("{levels} ({})", self.run.placement),
            None => self.run.policies.join(","),
        }
    }

    /// The cache size as written, for messages.
    pub fn cache_size(&self) -> String {
        self.run.cache_sizes.join(",")
    }

    fn to_map(&self) -> Map<String, Value> {
        let Value::Object(mut map) =
            serde_json::to_value(&self.run).expect("configurations serialise")
        else {
            unreachable!("a configuration is a JSON object")
        };
        let path = map.remove("trace").unwrap_or(Value::Null);
        map.insert("trace".into(), self.trace.clone().into());
        map.insert("trace_path".into(), path);
        map.insert("trace_hash".into(), self.trace_hash.clone().into());
        map.insert("belady_version".into(), self.belady_version.clone().into());
        map
    }

    /// The cell's policy, built from its entry and settings (to check it before any run).
    pub(super) fn spec(&self) -> Result<PolicySpec> {
        let preset = self.run.policy_preset()?;
        let mut specs = crate::policy::registry::parse_policies(
            &self.run.policies.join(","),
            &self.run.params,
            preset,
        )?;
        Ok(specs.remove(0))
    }
}

impl Serialize for CellConfig {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.to_map().serialize(s)
    }
}

impl<'de> Deserialize<'de> for CellConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        let mut map = Map::<String, Value>::deserialize(d)?;
        let mut text = |key: &str| -> std::result::Result<String, D::Error> {
            match map.remove(key) {
                Some(Value::String(s)) => Ok(s),
                Some(other) => Err(D::Error::custom(format!(
                    "`{key}` is {other}, not a string"
                ))),
                None => Err(D::Error::custom(format!("missing field `{key}`"))),
            }
        };
        let trace = text("trace")?;
        let trace_hash = text("trace_hash")?;
        let belady_version = text("belady_version")?;
        let path = text("trace_path").unwrap_or_default();
        map.insert("trace".into(), Value::String(path));
        let run = serde_json::from_value(Value::Object(map)).map_err(D::Error::custom)?;
        Ok(CellConfig {
            trace,
            trace_hash,
            belady_version,
            run,
        })
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

/// A trace of a plan: what names it and where it is read (never loaded here: each run, or
/// group of runs, streams it as `belady sim` does).
#[derive(Clone, Debug)]
pub struct PlannedTrace {
    /// As the experiment names it.
    pub label: String,
    /// Where it is read from.
    pub path: PathBuf,
    /// SHA-256 of its bytes.
    pub hash: String,
    /// Its format's name.
    pub format: String,
    /// Bytes per block.
    pub block_size: u32,
}
