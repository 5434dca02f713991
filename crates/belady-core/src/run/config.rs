//! How a run is configured: [`RunConfig`], the one configuration type. The CLI (`sim`,
//! `--print-config`, `--config`, `demo`, `calibrate`, the ClusterFetch demo), Python
//! (`belady.simulate`, `belady.run`), sweep cells and the Dask worker all build one, and
//! [`crate::run::run`] performs it. Its keys are flat and stay so (old `--config` files, stores'
//! configurations and Python calls keep working); [`crate::run::sections::Sections::parse`]
//! parses it once into the typed sections the engines receive. [`RunConfig::normalized`] spells
//! every name one way (sweep keys). Every default is written once, in [`defaults`]: the CLI's flags and
//! Python's keyword arguments take theirs from there.
//!
//! Errors name configuration keys (`max_request`, `read_ahead_kb`); [`crate::run::origin`]
//! phrases them as flags (`--max-request`), a file's keys or Python keyword arguments.

use crate::engine::file::FileSimConfig;
use crate::engine::hierarchy::Placement;
use crate::error::{Error, Result};
use crate::policy::registry::{PolicySpec, Preset};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub use super::origin::{flag_name, keyword_name};

/// Every default of a run, written once: [`RunConfig::default`], the CLI's flags and Python's
/// keyword arguments (through `belady._belady.defaults()`) all read them here.
pub mod defaults {
    /// Bytes per block.
    pub const BLOCK_SIZE: u32 = 4096;
    /// Largest request one trace line may make, bytes.
    pub const MAX_REQUEST_BYTES: u64 = crate::trace::DEFAULT_MAX_REQUEST_BYTES;
    /// Which requests are simulated.
    pub const OPS: &str = "read";
    /// The policy when none is named.
    pub const POLICY: &str = "lru";
    /// Parameter preset.
    pub const PRESET: &str = "paper";
    /// Placement at a hierarchy's lower levels.
    pub const PLACEMENT: &str = "access";
    /// Device queue scheduler.
    pub const SCHEDULER: &str = "fcfs";
    /// Largest disk request.
    pub const MAX_REQUEST: &str = "64KiB";
    /// Where files lie on the device.
    pub const LAYOUT: &str = "contiguous";
    /// One-way latency between a hierarchy's levels, microseconds.
    pub const LINK_LATENCY_US: f64 = 10.0;
    /// Bandwidth between a hierarchy's levels, megabits per second.
    pub const LINK_MBPS: f64 = 1000.0;
    /// Time between one reference's completion and the next in a timed hierarchy, µs.
    pub const THINK_US: f64 = 0.0;
    /// Most reloads waiting for idle disk time in a timed hierarchy.
    pub const RELOAD_QUEUE: usize = 4096;
    /// Admission filter.
    pub const ADMISSION: &str = "none";
    /// Seed of random choices.
    pub const SEED: u64 = 0;
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
        RunConfig {
            trace: PathBuf::new(),
            format: None,
            columns: None,
            header: None,
            block_size: defaults::BLOCK_SIZE,
            max_request_bytes: defaults::MAX_REQUEST_BYTES,
            ops: defaults::OPS.into(),
            policies: vec![defaults::POLICY.into()],
            params: Vec::new(),
            preset: defaults::PRESET.into(),
            cache_sizes: Vec::new(),
            levels: Vec::new(),
            placement: defaults::PLACEMENT.into(),
            prefetch: Vec::new(),
            disk: Vec::new(),
            scheduler: defaults::SCHEDULER.into(),
            compat: None,
            compat_rules: Vec::new(),
            max_request: defaults::MAX_REQUEST.into(),
            read_ahead_kb: None,
            cf_queue: None,
            cf_threshold: None,
            cf_min_burst: None,
            cf_store_limit: None,
            cf_bandwidth: None,
            cf_store: None,
            launch_until_open: None,
            warm: false,
            layout: defaults::LAYOUT.into(),
            log_requests: false,
            link_latency_us: defaults::LINK_LATENCY_US,
            link_mbps: defaults::LINK_MBPS,
            think_us: defaults::THINK_US,
            reload_queue: defaults::RELOAD_QUEUE,
            cache_model: None,
            admission: defaults::ADMISSION.into(),
            seed: defaults::SEED,
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
        serde_json::from_str(text).map_err(|e| {
            let msg = short_message(e.to_string().split(" at line ").next().unwrap_or(""));
            // serde names the expected type, not the key holding the bad value: find the key
            // (a Python keyword or a --config key) by reading each one alone.
            let msg = match culprit_key(text) {
                Some(key) if !msg.contains(&format!("`{key}`")) => format!("key `{key}`: {msg}"),
                _ => msg,
            };
            Error::Parse {
                path: origin.to_string(),
                line: e.line() as u64,
                msg,
            }
        })
    }

    /// Reads the configuration file at `path` (JSON, or TOML by its name).
    pub fn load(path: &Path) -> Result<RunConfig> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        RunConfig::parse(&text, &path.display().to_string())
    }

    /// The (read-ahead, device) pairs of `prefetch` × `disk`, read-ahead major: `none` and no
    /// device when a list is empty.
    pub fn setting_names(&self) -> Result<Vec<(String, Option<String>)>> {
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
                let p = p.clone().unwrap_or_else(|| "none".into());
                let d = d
                    .clone()
                    .filter(|d| !matches!(name(d).as_str(), "none" | "off"));
                grid.push((p, d));
            }
        }
        Ok(grid)
    }

    /// The policies' preset: `compat = accusim` implies AccuSim's, whatever `preset` says.
    pub fn policy_preset(&self) -> Result<Preset> {
        if self.compat.as_deref().map(name).as_deref() == Some("accusim") {
            Ok(Preset::Accusim)
        } else {
            Preset::parse(&self.preset)
        }
    }

    /// The read-ahead setting of a one-setting configuration (`none` when not given).
    pub fn the_prefetch(&self) -> &str {
        self.prefetch.first().map_or("none", |p| p.as_str())
    }

    /// The device of a one-setting configuration, when it has one.
    pub fn the_disk(&self) -> Option<&str> {
        self.disk
            .first()
            .map(|d| d.as_str())
            .filter(|d| *d != "none")
    }

    /// The file engine's view of a one-setting configuration (its first read-ahead and
    /// device), parsed and checked as [`crate::run::sections::Sections::parse`] parses each
    /// setting.
    pub fn file_config(&self) -> Result<FileSimConfig> {
        crate::run::sections::file_config(self, self.the_prefetch(), self.the_disk())
    }
}

impl RunConfig {
    /// The configuration with every name in its one spelling, as sweeps plan and key their
    /// cells: two spellings of one run (`--prefetch off` and `none`, `LRU` and `lru`,
    /// `./t.lirs` and `t.lirs`, `TinyLFU` and `tinylfu`) get the same sweep key. A run reads any
    /// spelling alike ([`crate::run::sections::Sections::parse`] folds case itself), so it
    /// needs no normalising first. Names that do not parse are left for the run to refuse with
    /// its own message.
    pub fn normalized(&self) -> Result<RunConfig> {
        let mut c = self.clone();
        c.trace = canonical_path(&c.trace);
        c.format = c.format.map(|f| f.trim().to_string());
        c.ops = name(&c.ops);
        c.ops = match crate::trace::OpFilter::parse(&c.ops) {
            Ok(crate::trace::OpFilter::Read) => "read".into(),
            Ok(crate::trace::OpFilter::Write) => "write".into(),
            Ok(crate::trace::OpFilter::All) => "all".into(),
            Err(_) => c.ops,
        };
        c.policies = c.policies.iter().map(|p| canonical_policy(p)).collect();
        c.params = c.params.iter().map(|p| canonical_param(p)).collect();
        c.preset = name(&c.preset);
        c.cache_sizes = c.cache_sizes.iter().map(|s| s.trim().to_string()).collect();
        c.levels = c.levels.iter().map(|l| canonical_levels(l)).collect();
        c.placement = c
            .placement
            .split(',')
            .map(canonical_placement)
            .collect::<Vec<_>>()
            .join(",");
        c.prefetch = c.prefetch.iter().map(|p| canonical_prefetch(p)).collect();
        c.disk = c.disk.iter().map(|d| canonical_disk(d)).collect();
        c.scheduler = name(&c.scheduler);
        if let Ok(s) = crate::disk::queue::Scheduler::parse(&c.scheduler) {
            c.scheduler = s.name().to_string();
        }
        c.compat = c.compat.map(|v| name(&v)).filter(|v| !v.is_empty());
        c.compat_rules = c.compat_rules.iter().map(|r| name(r)).collect();
        c.layout = name(&c.layout);
        c.cache_model = c
            .cache_model
            .map(|m| name(&m))
            .filter(|m| !m.is_empty() && m != "auto");
        c.cache_model = c.cache_model.map(|m| {
            crate::cache::cache_model::CacheModel::parse(&m).map_or(m, |m| m.name().to_string())
        });
        c.admission = match crate::cache::admission::AdmissionSpec::parse(&c.admission) {
            Ok(Some(a)) => a.to_string(),
            Ok(None) => "none".into(),
            Err(_) => c.admission.trim().to_string(),
        };
        Ok(c)
    }
}

/// A name as written, trimmed and in lower case.
fn name(text: &str) -> String {
    text.trim().to_ascii_lowercase()
}

/// `path` without `.` components: the same file written one way (`./t.lirs` is `t.lirs`),
/// without touching the file system. `dir/..` is kept: through a symbolic link it names
/// another directory.
pub fn canonical_path(path: &Path) -> PathBuf {
    use std::path::Component;
    let out: PathBuf = path
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect();
    if out.as_os_str().is_empty() && !path.as_os_str().is_empty() {
        return PathBuf::from(".");
    }
    out
}

/// A policy entry with its registered name (`LRU` -> `lru`, `Belady` -> `opt`); an entry's own
/// settings (`lirs(hir=0.01)`) are kept as written.
pub(crate) fn canonical_policy(entry: &str) -> String {
    let entry = entry.trim();
    let (head, rest) = match entry.split_once('(') {
        Some((head, rest)) => (head, Some(rest)),
        None => (entry, None),
    };
    let head =
        PolicySpec::parse(head).map_or_else(|_| head.trim().to_string(), |s| s.info.name.into());
    match rest {
        Some(rest) => format!("{head}({}", rest.trim()),
        None => head,
    }
}

/// A `POLICY.KEY=VALUE` setting with the policy's registered name.
pub(crate) fn canonical_param(item: &str) -> String {
    let Some((lhs, value)) = item.split_once('=') else {
        return item.trim().to_string();
    };
    let Some((policy, key)) = lhs.split_once('.') else {
        return item.trim().to_string();
    };
    format!(
        "{}.{}={}",
        canonical_policy(policy),
        key.trim(),
        value.trim()
    )
}

/// A placement by its name as it parses back (`Inclusive` -> `access`).
pub(crate) fn canonical_placement(text: &str) -> String {
    Placement::parse(text).map_or_else(|_| text.trim().to_string(), |p| p.label())
}

/// A hierarchy `NAME:POLICY:SIZE[:PLACEMENT],...` with canonical policies and placements.
pub(crate) fn canonical_levels(text: &str) -> String {
    text.split(',')
        .map(|level| {
            let fields: Vec<&str> = level.split(':').map(str::trim).collect();
            if fields.len() < 3 {
                return level.trim().to_string();
            }
            let mut out = vec![
                fields[0].to_string(),
                canonical_policy(fields[1]),
                fields[2].to_string(),
            ];
            if fields.len() > 3 {
                out.push(canonical_placement(&fields[3..].join(":")));
            }
            out.join(":")
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// A read-ahead setting by its engine's name (`off` -> `none`, `Linux-2.4` -> `linux24`), with
/// `+clusterfetch` after the engine.
pub(crate) fn canonical_prefetch(text: &str) -> String {
    let lower = name(text);
    let Ok((engine, cf)) = crate::prefetch::clusterfetch::split_prefetch(&lower) else {
        return lower;
    };
    let Ok(kind) = crate::prefetch::PrefetchKind::parse(engine) else {
        return lower;
    };
    match cf {
        true => format!(
            "{}+{}",
            kind.name(),
            crate::prefetch::clusterfetch::COMPONENT
        ),
        false => kind.name().to_string(),
    }
}

/// A disk setting: `none` for no device (`off`, `None`), a preset by its lower-case name, a
/// file's path as written.
pub(crate) fn canonical_disk(text: &str) -> String {
    let (trimmed, lower) = (text.trim(), name(text));
    if lower == "none" || lower == "off" {
        return "none".into();
    }
    if !Path::new(trimmed).exists() && crate::disk::DiskConfig::preset(&lower).is_some() {
        return lower;
    }
    trimmed.to_string()
}

/// A serde message without its list of every valid key (one line, the bad key first).
/// The first top-level key of the JSON object `text` whose value alone does not make a
/// configuration (every other key takes its default), or `None` when none stands out.
fn culprit_key(text: &str) -> Option<String> {
    let serde_json::Value::Object(map) = serde_json::from_str(text).ok()? else {
        return None;
    };
    map.into_iter()
        .find(|(key, value)| {
            let alone =
                serde_json::Value::Object([(key.clone(), value.clone())].into_iter().collect());
            serde_json::from_value::<RunConfig>(alone).is_err()
        })
        .map(|(key, _)| key)
}

fn short_message(msg: &str) -> String {
    match msg.split_once(", expected one of") {
        Some((head, _)) => format!(
            "{} (`belady sim --print-config` shows every key)",
            crate::error::brief(head)
        ),
        None => crate::error::brief(msg),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compat_accusim_implies_the_accusim_preset() {
        let o = RunConfig {
            compat: Some("accusim".into()),
            preset: "paper".into(),
            ..RunConfig::default()
        };
        assert_eq!(o.policy_preset().unwrap(), Preset::Accusim);
        assert_eq!(RunConfig::default().policy_preset().unwrap(), Preset::Paper);
    }

    #[test]
    fn names_are_normalised_once() {
        let c = RunConfig {
            trace: "./a/./t.lirs".into(),
            ops: " All".into(),
            policies: vec!["LRU".into(), "Belady".into(), "LIRS(hir=0.01)".into()],
            params: vec!["LIRS.hir = 0.02".into()],
            preset: "Paper".into(),
            levels: vec!["client:LRU:10,storage:MQ:20:Inclusive".into()],
            placement: "Access,EVICTION".into(),
            prefetch: vec!["off".into(), "Linux-2.4+ClusterFetch".into()],
            disk: vec!["OFF".into(), "HDD".into()],
            scheduler: "C-LOOK".into(),
            compat: Some(" ".into()),
            ..RunConfig::default()
        }
        .normalized()
        .unwrap();
        assert_eq!(c.trace, PathBuf::from("a/t.lirs"));
        assert_eq!(c.ops, "all");
        assert_eq!(c.policies, ["lru", "opt", "lirs(hir=0.01)"]);
        assert_eq!(c.params, ["lirs.hir=0.02"]);
        assert_eq!(c.preset, "paper");
        assert_eq!(c.levels, ["client:lru:10,storage:mq:20:access"]);
        assert_eq!(c.placement, "access,eviction");
        assert_eq!(c.prefetch, ["none", "linux24+clusterfetch"]);
        assert_eq!(c.disk, ["none", "hdd"]);
        assert_eq!(c.scheduler, "clook");
        assert_eq!(c.compat, None);
        assert_eq!(
            c.normalized().unwrap(),
            c,
            "normalising twice changes nothing"
        );
        assert_eq!(
            canonical_path(Path::new("../x/./y")),
            PathBuf::from("../x/y")
        );
    }

    #[test]
    fn bad_values_name_their_key() {
        let o = RunConfig {
            prefetch: vec!["linux24".into()],
            max_request: "10%".into(),
            ..RunConfig::default()
        };
        let e = o.file_config().unwrap_err().to_string();
        assert!(e.contains("max_request") && !e.contains("--"), "{e}");
    }
}
