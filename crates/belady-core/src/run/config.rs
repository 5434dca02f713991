//! How a run is configured: [`RunConfig`], the one configuration type. The CLI (`sim`,
//! `--print-config`, `--config`, `demo`, `calibrate`, the ClusterFetch demo), Python
//! (`belady.simulate`, `belady.run`), sweep cells and the Dask worker all build one, and
//! [`crate::run::run`] performs it (and alone decides the engine). [`RunConfig::normalized`]
//! spells every name one way; [`RunConfig::settings`] splits the `prefetch` × `disk` lists into
//! one configuration per setting; [`RunConfig::file_config`] derives the file engine's view of
//! one setting.
//!
//! Errors name configuration keys (`max_request`, `read_ahead_kb`); the CLI phrases them as
//! flags (`--max-request`) and Python as keyword arguments.

use crate::cache::size::CacheSize;
use crate::compat::accusim::Departures;
use crate::disk::queue::Scheduler;
use crate::engine::file::{FileSimConfig, Placement as Layout};
use crate::engine::hierarchy::Placement;
use crate::error::{Error, Result};
use crate::policy::registry::{PolicySpec, Preset};
use crate::prefetch::clusterfetch::ClusterFetchConfig;
use crate::prefetch::PrefetchKind;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

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
            block_size: 4096,
            max_request_bytes: crate::trace::DEFAULT_MAX_REQUEST_BYTES,
            ops: "read".into(),
            policies: vec!["lru".into()],
            params: Vec::new(),
            preset: "paper".into(),
            cache_sizes: Vec::new(),
            levels: Vec::new(),
            placement: "access".into(),
            prefetch: Vec::new(),
            disk: Vec::new(),
            scheduler: "fcfs".into(),
            compat: None,
            compat_rules: Vec::new(),
            max_request: "64KiB".into(),
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
    pub fn level_setup(&self) -> Result<crate::cache::cache_model::LevelSetup> {
        if let Some(m) = &self.cache_model {
            crate::cache::cache_model::CacheModel::choose(Some(m), false)?;
        }
        Ok(crate::cache::cache_model::LevelSetup {
            model: self.cache_model.clone(),
            admission: crate::cache::admission::AdmissionSpec::parse(&self.admission)?,
            seed: self.seed,
        })
    }

    /// One configuration per (read-ahead, device) pair of `prefetch` × `disk`, read-ahead
    /// major, each with at most one of each (none when the list is empty).
    pub fn settings(&self) -> Result<Vec<RunConfig>> {
        let list = |v: &[String], key: &str| -> Result<Vec<Vec<String>>> {
            if v.is_empty() {
                return Ok(vec![Vec::new()]);
            }
            v.iter()
                .map(|t| {
                    let t = t.trim();
                    if t.is_empty() {
                        Err(Error::config(key, t, "name at least one"))
                    } else {
                        Ok(vec![t.to_string()])
                    }
                })
                .collect()
        };
        let prefetches = list(&self.prefetch, "prefetch")?;
        let disks = list(&self.disk, "disk")?;
        let mut grid = Vec::new();
        for p in &prefetches {
            for d in &disks {
                grid.push(RunConfig {
                    prefetch: p.clone(),
                    disk: d.clone(),
                    ..self.clone()
                });
            }
        }
        Ok(grid)
    }

    /// The policies' preset: `compat = accusim` implies AccuSim's, whatever `preset` says.
    pub fn policy_preset(&self) -> Result<Preset> {
        if self.compat.as_deref() == Some("accusim") {
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

    /// The file engine's view of a one-setting configuration ([`RunConfig::settings`]), checked:
    /// the one place its settings are parsed.
    pub fn file_config(&self) -> Result<FileSimConfig> {
        let (engine, cf) = crate::prefetch::clusterfetch::split_prefetch(self.the_prefetch())?;
        let mut cfg = FileSimConfig {
            block_size: self.block_size,
            prefetch: PrefetchKind::parse(engine)?,
            log_requests: self.log_requests,
            placement: Layout::parse(&self.layout)?,
            admission: crate::cache::admission::AdmissionSpec::parse(&self.admission)?,
            seed: self.seed,
            ..FileSimConfig::default()
        };
        cfg.clusterfetch = self.clusterfetch(cf)?;
        match self.compat.as_deref().filter(|c| !c.is_empty()) {
            None => {}
            Some("accusim") => cfg.departures = Departures::accusim(),
            Some(other) => return Err(Error::config("compat", other, "expected accusim")),
        }
        for rule in &self.compat_rules {
            cfg.departures.enable(rule)?;
        }
        cfg.max_request_bytes = match CacheSize::parse_as(&self.max_request, "max_request")? {
            CacheSize::Bytes(b) => b,
            CacheSize::Blocks(b) => b.saturating_mul(self.block_size as u64),
            CacheSize::Percent(_) => {
                return Err(Error::config(
                    "max_request",
                    &self.max_request,
                    "expected a byte size such as 64KiB",
                ))
            }
        };
        if let Some(kb) = self.read_ahead_kb {
            let blocks = kb.saturating_mul(1024) / self.block_size.max(1) as u64;
            if blocks == 0 {
                return Err(Error::config(
                    "read_ahead_kb",
                    kb,
                    format!("is less than one {}-byte block", self.block_size),
                ));
            }
            cfg.readahead_max = blocks;
            cfg.readahead_min = cfg.readahead_min.min(blocks);
        }
        if let Some(disk) = self.the_disk() {
            cfg.disk = Some(crate::disk::load_config(disk)?);
        }
        cfg.scheduler = Scheduler::parse(&self.scheduler)?;
        cfg.validate()?;
        Ok(cfg)
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
            cf.threshold_ns =
                crate::limits::time_ns("cf_threshold", ms, crate::limits::TimeUnit::Ms)?;
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
}

/// A byte size (`3MB`, `512KiB`, `1048576`) for key `key`.
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

impl RunConfig {
    /// The configuration with every name in its one spelling: what `sim`, `sim --config`,
    /// Python, sweep cells and the Dask worker all run, so two spellings of one run (`--prefetch
    /// off` and `none`, `LRU` and `lru`, `./t.lirs` and `t.lirs`) run the same engine, print the
    /// same rows and get the same sweep key. Names that do not parse are left for the run to
    /// refuse with its own message.
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
        let o = RunConfig {
            prefetch: vec!["linux24".into()],
            max_request: "10%".into(),
            ..RunConfig::default()
        };
        let e = o.file_config().unwrap_err().to_string();
        assert!(e.contains("max_request") && !e.contains("--"), "{e}");
    }
}
