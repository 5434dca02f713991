//! A [`RunConfig`] parsed once, at the boundary, into typed sections: the trace and how to read
//! it, the cache (policies, sizes, model, admission), the hierarchies, one read-ahead-and-disk
//! setting per pair of `prefetch` × `disk` (each with its engine and, for the file engine, its
//! [`FileSimConfig`], which holds the compat rules and ClusterFetch's parameters), and
//! ClusterFetch's shaping of the run. [`crate::run::run`] and the sweep planner receive these;
//! no configuration string is parsed after [`Sections::parse`].
//!
//! Here too an option that changes nothing in the run is refused in one line naming what it
//! needs (`think_us` without `levels` and `disk`, `read_ahead_kb` without a read-ahead engine
//! that has a window), and the trace's default cache model is named when it is what refuses an
//! option the user gave.

use crate::cache::admission::AdmissionSpec;
use crate::cache::cache_model::{CacheModel, LevelSetup};
use crate::cache::size::CacheSize;
use crate::compat::accusim::Departures;
use crate::disk::queue::Scheduler;
use crate::engine::file::{FileSimConfig, Placement as Layout};
use crate::engine::hierarchy::{HierarchySpec, Links, Placement};
use crate::error::{key_is, key_ref, Error, Result};
use crate::policy::registry::{parse_policies, PolicySpec, Preset};
use crate::prefetch::clusterfetch::ClusterFetchConfig;
use crate::prefetch::PrefetchKind;
use crate::run::config::RunConfig;
use crate::trace::{Format, OpFilter, ReadOptions};
use std::path::PathBuf;

/// Which engine performs a setting of a run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The untimed block engine's streaming grid (one tight loop per policy and size).
    BlockGrid,
    /// The file engine: read-ahead, clustering, a device, AccuSim's rules, ClusterFetch.
    FileGrid,
    /// Hierarchies under the file engine's client (the links' timing under a disk).
    FileHierarchy,
}

/// How the trace is read.
#[derive(Clone, Debug)]
pub struct TraceSection {
    /// The file.
    pub path: PathBuf,
    /// Its format, as named or detected.
    pub format: Format,
    /// Block size and request limit.
    pub read: ReadOptions,
    /// Which requests are simulated.
    pub ops: OpFilter,
}

/// The cache of a single-level run.
#[derive(Clone, Debug)]
pub struct CacheSection {
    /// The policies, with their settings and seed (empty for a run of hierarchies).
    pub policies: Vec<PolicySpec>,
    /// The cache sizes (empty for a run of hierarchies).
    pub sizes: Vec<CacheSize>,
    /// Cache model, admission filter and seed.
    pub setup: LevelSetup,
}

/// One read-ahead-and-disk setting of a run.
#[derive(Clone, Debug)]
pub struct Setting {
    /// The engine that performs it.
    pub engine: Engine,
    /// The read-ahead engine.
    pub prefetch: PrefetchKind,
    /// Whether ClusterFetch runs on top of it.
    pub clusterfetch: bool,
    /// Whether it has a device.
    pub disk: bool,
    /// The file engine's configuration (read-ahead, disk, compat rules, ClusterFetch), checked
    /// when the engine is the file engine.
    pub file: FileSimConfig,
}

/// How ClusterFetch shapes a single-level run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shaping {
    /// Replay the trace once with the same cache before the measured run.
    pub warm: bool,
    /// The launch ends at the first open of this file.
    pub launch_until_open: Option<String>,
    /// The persistent store loaded before and saved after the run.
    pub cf_store: Option<PathBuf>,
}

impl Shaping {
    /// Whether the trace or the run is shaped at all.
    pub fn any(&self) -> bool {
        self.warm || self.launch_until_open.is_some() || self.cf_store.is_some()
    }
}

/// A run's configuration, parsed.
#[derive(Clone, Debug)]
pub struct Sections {
    /// The trace.
    pub trace: TraceSection,
    /// Policies, sizes and the level setup.
    pub cache: CacheSection,
    /// The hierarchies, `levels` × `placement` in that order, when the run is of levels.
    pub hierarchies: Option<Vec<HierarchySpec>>,
    /// One setting per pair of `prefetch` × `disk`, read-ahead major.
    pub settings: Vec<Setting>,
    /// ClusterFetch's shaping of the run.
    pub shaping: Shaping,
}

impl Sections {
    /// Parses and checks a configuration, each value once, whatever its spelling (`LRU`,
    /// `Linux-2.4`, `C-LOOK`, `./t.lirs`); reads the trace's head when its format is not named,
    /// and a disk model's file when one is named.
    pub fn parse(config: &RunConfig) -> Result<Sections> {
        if config.trace.as_os_str().is_empty() {
            return Err(Error::config("trace", "", "name the trace file"));
        }
        let pairs = config.setting_names()?;
        let read = read_options(config.block_size, config.max_request_bytes)?;
        let format = config.trace_format()?;
        let ops = OpFilter::parse(&name(&config.ops))?;
        let preset = config.policy_preset()?;
        let setup = LevelSetup {
            model: config
                .cache_model
                .as_deref()
                .map(str::trim)
                .filter(|m| !m.is_empty() && *m != "auto")
                .map(CacheModel::parse)
                .transpose()?,
            admission: AdmissionSpec::parse(&config.admission)?,
            seed: config.seed,
        };
        check_csv_options(config, &format)?;
        let common = Common::parse(config, setup.admission.clone())?;
        let levels = !config.levels.is_empty();
        let settings: Vec<Setting> = pairs
            .iter()
            .map(|(p, d)| common.setting(config, p, d.as_deref(), &format, levels))
            .collect::<Result<_>>()?;
        check_levels_alone(config)?;
        check_applies(config, &common, &settings)?;
        check_model(config, &setup, &format, &settings)?;
        if levels && setup.admission.is_some() {
            return Err(Error::config(
                "admission",
                &config.admission,
                format!(
                    "applies to single-level runs; a hierarchy's levels ({}) have no admission filter",
                    key_ref("levels")
                ),
            ));
        }
        for s in settings.iter().filter(|s| s.engine != Engine::BlockGrid) {
            s.file.validate()?;
        }
        let (cache, hierarchies) = if levels {
            let cache = CacheSection {
                policies: Vec::new(),
                sizes: Vec::new(),
                setup,
            };
            let specs = hierarchy_specs(config, preset, &common)?;
            (cache, Some(specs))
        } else {
            let mut policies = parse_policies(&config.policies.join(","), &config.params, preset)?;
            for spec in &mut policies {
                // The randomised policies draw from the run's seed (`--seed`).
                spec.seed = config.seed;
            }
            if config.cache_sizes.is_empty() {
                return Err(Error::config(
                    "cache_sizes",
                    "",
                    "name at least one cache size (blocks, bytes or a percentage)",
                ));
            }
            let sizes = CacheSize::parse_list(&config.cache_sizes.join(","))?;
            let cache = CacheSection {
                policies,
                sizes,
                setup,
            };
            (cache, None)
        };
        Ok(Sections {
            trace: TraceSection {
                path: crate::run::config::canonical_path(&config.trace),
                format,
                read,
                ops,
            },
            cache,
            hierarchies,
            settings,
            shaping: Shaping {
                warm: config.warm,
                launch_until_open: config.launch_until_open.clone(),
                cf_store: config.cf_store.clone(),
            },
        })
    }
}

/// A name as written, trimmed and in lower case (how every name is compared).
fn name(text: &str) -> String {
    text.trim().to_ascii_lowercase()
}

/// The reader settings for `block_size`-byte blocks and requests of at most `max_request_bytes`,
/// checked: the one place a block size is checked for every command that reads a trace.
pub fn read_options(block_size: u32, max_request_bytes: u64) -> Result<ReadOptions> {
    if block_size == 0 {
        return Err(Error::config("block_size", 0, "must be at least 1 byte"));
    }
    Ok(ReadOptions {
        max_request_bytes,
        ..ReadOptions::with_block_size(block_size)
    })
}

/// `columns` and `header` describe csv traces: refused for any other format.
fn check_csv_options(config: &RunConfig, format: &Format) -> Result<()> {
    if matches!(format, Format::Csv(_)) {
        return Ok(());
    }
    let refuse = |key: &str, value: String| {
        Err(Error::config(
            key,
            value,
            format!(
                "describes csv traces, and this one is read as {}: name a csv format with {}",
                format.name(),
                key_ref("format")
            ),
        ))
    };
    if let Some(c) = &config.columns {
        return refuse("columns", c.clone());
    }
    if let Some(h) = config.header {
        return refuse("header", h.to_string());
    }
    Ok(())
}

/// What every setting of a run shares, parsed once: the file engine's configuration but for
/// the read-ahead engine and the device (compat rules, request cap, read-ahead window,
/// scheduler, layout, admission), ClusterFetch's parameters and the hierarchies' placements.
#[derive(Clone, Debug)]
pub(crate) struct Common {
    /// The file engine's configuration without a read-ahead engine, ClusterFetch or a device.
    file: FileSimConfig,
    /// ClusterFetch's parameters, when any is given.
    clusterfetch: Option<ClusterFetchConfig>,
    /// The first ClusterFetch option given, to refuse it where ClusterFetch is off.
    cf_given: Option<&'static str>,
    /// The placements of `placement`, in order.
    placements: Vec<Placement>,
}

impl Common {
    /// Parses what `config`'s settings share; `admission` is its parsed filter.
    fn parse(config: &RunConfig, admission: Option<AdmissionSpec>) -> Result<Common> {
        let mut file = FileSimConfig {
            block_size: config.block_size,
            prefetch: PrefetchKind::None,
            log_requests: config.log_requests,
            placement: Layout::parse(&name(&config.layout))?,
            admission,
            seed: config.seed,
            ..FileSimConfig::default()
        };
        match config.compat.as_deref().map(name).filter(|c| !c.is_empty()) {
            None => {}
            Some(c) if c == "accusim" => file.departures = Departures::accusim(),
            Some(other) => return Err(Error::config("compat", other, "expected accusim")),
        }
        for rule in &config.compat_rules {
            file.departures.enable(&name(rule))?;
        }
        file.max_request_bytes = match CacheSize::parse_as(&config.max_request, "max_request")? {
            CacheSize::Bytes(b) => b,
            CacheSize::Blocks(b) => b.saturating_mul(config.block_size as u64),
            CacheSize::Percent(_) => {
                return Err(Error::config(
                    "max_request",
                    &config.max_request,
                    "expected a byte size such as 64KiB",
                ))
            }
        };
        if let Some(kb) = config.read_ahead_kb {
            let blocks = kb.saturating_mul(1024) / config.block_size.max(1) as u64;
            if blocks == 0 {
                return Err(Error::config(
                    "read_ahead_kb",
                    kb,
                    format!("is less than one {}-byte block", config.block_size),
                ));
            }
            file.readahead_max = blocks;
            file.readahead_min = file.readahead_min.min(blocks);
        }
        file.scheduler = Scheduler::parse(&name(&config.scheduler))?;
        let given = [
            ("cf_queue", config.cf_queue.is_some()),
            ("cf_threshold", config.cf_threshold.is_some()),
            ("cf_min_burst", config.cf_min_burst.is_some()),
            ("cf_store_limit", config.cf_store_limit.is_some()),
            ("cf_bandwidth", config.cf_bandwidth.is_some()),
            ("cf_store", config.cf_store.is_some()),
        ];
        let cf_given = given.iter().find(|g| g.1).map(|g| g.0);
        let clusterfetch = match cf_given {
            Some(_) => Some(clusterfetch_params(config)?),
            None => None,
        };
        let placements: Vec<Placement> = config
            .placement
            .split(',')
            .filter(|p| !p.trim().is_empty())
            .map(Placement::parse)
            .collect::<Result<_>>()?;
        Ok(Common {
            file,
            clusterfetch,
            cf_given,
            placements,
        })
    }

    /// One setting: its read-ahead (`none` for none) and device (`None` for none) parsed, its
    /// engine decided (the one place: read-ahead, clustering, a device, AccuSim's rules,
    /// ClusterFetch's settings or a file-level trace need the file engine; hierarchies run on
    /// it; the rest runs on the block grid's fast loop).
    fn setting(
        &self,
        config: &RunConfig,
        prefetch: &str,
        disk: Option<&str>,
        format: &Format,
        levels: bool,
    ) -> Result<Setting> {
        let mut file = self.file_config(prefetch, disk)?;
        let cf = file.clusterfetch.is_some();
        // What changes nothing in this setting does not choose its engine either: a scheduler
        // without a device, a layout without a device or ClusterFetch (the run refuses them when
        // no setting has what they need).
        if file.disk.is_none() {
            file.scheduler = Scheduler::Fcfs;
            if !cf {
                file.placement = Layout::Contiguous;
            }
        }
        let file_engine = format.is_file_level()
            || file.prefetch != PrefetchKind::None
            || cf
            || file.disk.is_some()
            || file.departures != Departures::default()
            || config
                .compat
                .as_deref()
                .is_some_and(|c| !c.trim().is_empty())
            || file.scheduler != Scheduler::Fcfs
            || file.placement != Layout::Contiguous
            || self.cf_given.is_some()
            || config.warm
            || config.launch_until_open.is_some();
        let engine = match levels {
            true => Engine::FileHierarchy,
            false if file_engine => Engine::FileGrid,
            false => Engine::BlockGrid,
        };
        Ok(Setting {
            engine,
            prefetch: file.prefetch,
            clusterfetch: cf,
            disk: file.disk.is_some(),
            file,
        })
    }

    /// The file engine's configuration of one setting (not yet checked as a whole).
    fn file_config(&self, prefetch: &str, disk: Option<&str>) -> Result<FileSimConfig> {
        let prefetch = name(prefetch);
        let (engine, cf) = crate::prefetch::clusterfetch::split_prefetch(&prefetch)?;
        let mut file = FileSimConfig {
            prefetch: PrefetchKind::parse(engine)?,
            ..self.file.clone()
        };
        file.clusterfetch = match (cf, self.cf_given) {
            (true, _) => Some(self.clusterfetch.clone().unwrap_or_default()),
            (false, Some(key)) => {
                return Err(Error::config(
                    key,
                    "given",
                    "is a ClusterFetch option: add +clusterfetch to the read-ahead engine",
                ))
            }
            (false, None) => None,
        };
        if let Some(disk) = disk {
            file.disk = Some(crate::disk::load_config(disk.trim())?);
        }
        Ok(file)
    }
}

/// The file engine's configuration of the setting (`prefetch`, `disk`) of `config`, checked.
pub(crate) fn file_config(
    config: &RunConfig,
    prefetch: &str,
    disk: Option<&str>,
) -> Result<FileSimConfig> {
    let admission = AdmissionSpec::parse(&config.admission)?;
    let file = Common::parse(config, admission)?.file_config(prefetch, disk)?;
    file.validate()?;
    Ok(file)
}

/// ClusterFetch's parameters as given, checked.
fn clusterfetch_params(config: &RunConfig) -> Result<ClusterFetchConfig> {
    let mut cf = ClusterFetchConfig::default();
    if let Some(q) = config.cf_queue {
        cf.queue_len = q;
    }
    if let Some(ms) = config.cf_threshold {
        cf.threshold_ns = crate::limits::time_ns("cf_threshold", ms, crate::limits::TimeUnit::Ms)?;
    }
    if let Some(m) = config.cf_min_burst {
        cf.min_burst = m;
    }
    if let Some(t) = &config.cf_store_limit {
        cf.store_limit_bytes = bytes("cf_store_limit", t)?;
    }
    if let Some(t) = &config.cf_bandwidth {
        cf.bandwidth_bytes_per_s = bytes("cf_bandwidth", t)?;
    }
    cf.validate()?;
    Ok(cf)
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

/// The objects model has one untimed level: what needs blocks is refused before anything is
/// read, naming the option the user gave and, when the model is the trace's default, saying so.
fn check_model(
    config: &RunConfig,
    setup: &LevelSetup,
    format: &Format,
    settings: &[Setting],
) -> Result<()> {
    let model = CacheModel::or_default(setup.model, format.has_object_sizes());
    if model != CacheModel::Objects {
        return Ok(());
    }
    // What needs blocks, as the user gave it.
    let first = |key: &'static str, value: String| Some((key, value));
    let given = |v: &&String| !matches!(name(v).as_str(), "none" | "off" | "");
    let culprit = if let Some(levels) = config.levels.first() {
        first("levels", levels.clone())
    } else if let Some(p) = config.prefetch.iter().find(given) {
        first("prefetch", p.clone())
    } else if let Some(d) = config.disk.iter().find(given) {
        first("disk", d.clone())
    } else if let Some(c) = config.compat.as_ref().filter(|c| !c.trim().is_empty()) {
        first("compat", c.clone())
    } else if let Some(r) = config.compat_rules.first() {
        first("compat_rules", r.clone())
    } else if config.warm {
        first("warm", "true".into())
    } else if let Some(l) = &config.launch_until_open {
        first("launch_until_open", l.clone())
    } else if format.is_file_level() {
        return Err(Error::config(
            "cache_model",
            "objects",
            format!(
                "needs a trace whose requests carry object sizes (oracleGeneral, lcs); {} is \
                 file-level: use {}",
                format.name(),
                key_is("cache_model", "blocks")
            ),
        ));
    } else if settings.iter().any(|s| s.engine != Engine::BlockGrid) {
        // Another file-engine option (a layout, ClusterFetch's settings): the model is named.
        return Err(Error::config(
            "cache_model",
            "objects",
            format!(
                "has one untimed level, and this run needs the file engine: use {}",
                key_is("cache_model", "blocks")
            ),
        ));
    } else {
        None
    };
    let Some((key, value)) = culprit else {
        return Ok(());
    };
    let what = match key {
        "levels" => "a hierarchy",
        "prefetch" => "read-ahead",
        "disk" => "a disk",
        _ => "the file engine",
    };
    let why = match setup.model {
        Some(_) => format!("the objects model ({}) has one untimed level", key_is("cache_model", "objects")),
        None => format!(
            "this {} trace is simulated as objects of their sizes by default, with one untimed level",
            format.name()
        ),
    };
    Err(Error::config(
        key,
        value,
        format!(
            "{what} needs the blocks model, and {why}: add {}",
            key_is("cache_model", "blocks")
        ),
    ))
}

/// An option that changes a run only together with others: refused, naming what it needs,
/// when it applies to none of the run's settings.
struct Applies {
    key: &'static str,
    value: String,
    /// Whether the option is set to anything but its default.
    set: bool,
    /// Whether it changes the run under a setting.
    applies: fn(&RunConfig, &Setting) -> bool,
    /// What it needs, for the message.
    needs: String,
}

/// Whether a setting's file engine takes read-ahead windows from `read_ahead_kb`.
fn has_window(s: &Setting) -> bool {
    !matches!(s.prefetch, PrefetchKind::None | PrefetchKind::Example)
}

/// The options that need others, as `config` sets them (`common`: its shared settings, parsed).
fn conditional_options(config: &RunConfig, common: &Common) -> Vec<Applies> {
    let d = RunConfig::default();
    let file = &common.file;
    let default_file = FileSimConfig::default();
    let links_need = format!(
        "times a hierarchy's links under a disk, so it needs {} and {}",
        key_ref("levels"),
        key_ref("disk")
    );
    let mut options = vec![
        Applies {
            key: "read_ahead_kb",
            value: config
                .read_ahead_kb
                .map_or(String::new(), |k| k.to_string()),
            set: config.read_ahead_kb.is_some(),
            applies: |_, s| has_window(s),
            needs: format!(
                "sizes the read-ahead window, so it needs {} with an engine that has one \
                 (linux24, linux26, ondemand, linux6, bsd)",
                key_ref("prefetch")
            ),
        },
        Applies {
            key: "max_request",
            value: config.max_request.clone(),
            set: file.max_request_bytes != default_file.max_request_bytes,
            applies: |_, s| {
                s.engine != Engine::BlockGrid && s.file.departures.request_block_cap().is_none()
            },
            needs: format!(
                "caps the file engine's disk requests, so it needs read-ahead ({}), a disk ({}), \
                 {} or a file-level trace, without AccuSim's 33-block cap",
                key_ref("prefetch"),
                key_ref("disk"),
                key_ref("levels")
            ),
        },
        Applies {
            key: "scheduler",
            value: config.scheduler.clone(),
            set: file.scheduler != Scheduler::Fcfs,
            applies: |_, s| s.disk,
            needs: format!("orders a device queue, so it needs {}", key_ref("disk")),
        },
        Applies {
            key: "layout",
            value: config.layout.clone(),
            set: file.placement != Layout::Contiguous,
            applies: |_, s| s.disk || s.clusterfetch,
            needs: format!(
                "places files on a device, so it needs {} (or ClusterFetch)",
                key_ref("disk")
            ),
        },
        Applies {
            key: "log_requests",
            value: "true".into(),
            set: config.log_requests,
            applies: |_, s| s.engine != Engine::BlockGrid,
            needs: format!(
                "lists the file engine's disk requests, so it needs read-ahead ({}), a disk ({}), \
                 {} or a file-level trace",
                key_ref("prefetch"),
                key_ref("disk"),
                key_ref("levels")
            ),
        },
        Applies {
            key: "placement",
            value: config.placement.clone(),
            set: common.placements != [Placement::Access],
            applies: |c, _| !c.levels.is_empty(),
            needs: format!(
                "places blocks in a hierarchy's lower levels, so it needs {}",
                key_ref("levels")
            ),
        },
        Applies {
            key: "reload_queue",
            value: config.reload_queue.to_string(),
            set: config.reload_queue != d.reload_queue,
            applies: timed_hierarchy,
            needs: format!(
                "holds a hierarchy's reloads waiting for the disk, so it needs {} and {}",
                key_ref("levels"),
                key_ref("disk")
            ),
        },
        Applies {
            key: "warm",
            value: "true".into(),
            set: config.warm,
            applies: |c, _| c.levels.is_empty(),
            needs: format!(
                "replays the trace before a single-level run; hierarchies ({}) have no warm start",
                key_ref("levels")
            ),
        },
        Applies {
            key: "launch_until_open",
            value: config.launch_until_open.clone().unwrap_or_default(),
            set: config.launch_until_open.is_some(),
            applies: |c, _| c.levels.is_empty(),
            needs: format!(
                "ends a single-level run's launch; hierarchies ({}) have no launch window",
                key_ref("levels")
            ),
        },
    ];
    // The links' three timings, alike.
    let links = [
        ("link_latency_us", config.link_latency_us, d.link_latency_us),
        ("link_mbps", config.link_mbps, d.link_mbps),
        ("think_us", config.think_us, d.think_us),
    ];
    options.extend(links.map(|(key, value, default)| Applies {
        key,
        value: value.to_string(),
        set: value != default,
        applies: timed_hierarchy,
        needs: links_need.clone(),
    }));
    options
}

/// Whether a setting times a hierarchy (levels over a device).
fn timed_hierarchy(config: &RunConfig, setting: &Setting) -> bool {
    !config.levels.is_empty() && setting.disk
}

/// `levels` replace `policies` and `cache_sizes` in one run: both given is refused (the
/// single-level ones would be dropped without a word).
fn check_levels_alone(config: &RunConfig) -> Result<()> {
    if config.levels.is_empty() {
        return Ok(());
    }
    let both = |key: &str, value: String, what: &str| {
        Err(Error::config(
            key,
            value,
            format!(
                "names single-level {what}, and {} name each level's: give one of them",
                key_ref("levels")
            ),
        ))
    };
    if !config.cache_sizes.is_empty() {
        return both("cache_sizes", config.cache_sizes.join(","), "cache sizes");
    }
    // `policies` holds its default (`lru`) unless set: only another policy is refused.
    let default = crate::run::config::defaults::POLICY;
    if config.policies.iter().any(|p| name(p) != default) {
        return both("policies", config.policies.join(","), "policies");
    }
    Ok(())
}

/// Refuses an option set in `config` that changes none of its settings.
fn check_applies(config: &RunConfig, common: &Common, settings: &[Setting]) -> Result<()> {
    for option in conditional_options(config, common) {
        if option.set && !settings.iter().any(|s| (option.applies)(config, s)) {
            return Err(Error::config(option.key, option.value, option.needs));
        }
    }
    Ok(())
}

/// A sweep cell's configuration (one read-ahead and one device) parsed as far as its options
/// need: what its settings share and its one setting, over the format it names.
pub(crate) struct CellView {
    common: Common,
    setting: Setting,
}

impl CellView {
    /// Parses `config`, a sweep cell's.
    pub(crate) fn parse(config: &RunConfig) -> Result<CellView> {
        let Some(name) = &config.format else {
            return Err(Error::config(
                "format",
                "",
                "a sweep cell names its trace's format",
            ));
        };
        let format = Format::parse(name, config.columns.as_deref(), config.header)?;
        let common = Common::parse(config, AdmissionSpec::parse(&config.admission)?)?;
        let setting = common.setting(
            config,
            config.the_prefetch(),
            config.the_disk(),
            &format,
            !config.levels.is_empty(),
        )?;
        Ok(CellView { common, setting })
    }

    /// The keys of the options `config` sets that change its run.
    pub(crate) fn applying(&self, config: &RunConfig) -> Vec<&'static str> {
        conditional_options(config, &self.common)
            .into_iter()
            .filter(|o| o.set && (o.applies)(config, &self.setting))
            .map(|o| o.key)
            .collect()
    }

    /// `config` without the options that change nothing in its run, each back at its
    /// default: two spellings of one sweep cell (`read_ahead_kb = 64` with no read-ahead, and
    /// none) are one run.
    pub(crate) fn without_inert(&self, config: &RunConfig) -> RunConfig {
        let mut out = config.clone();
        let d = RunConfig::default();
        for option in conditional_options(config, &self.common) {
            if !option.set || (option.applies)(config, &self.setting) {
                continue;
            }
            match option.key {
                "read_ahead_kb" => out.read_ahead_kb = d.read_ahead_kb,
                "max_request" => out.max_request = d.max_request.clone(),
                "scheduler" => out.scheduler = d.scheduler.clone(),
                "layout" => out.layout = d.layout.clone(),
                "log_requests" => out.log_requests = d.log_requests,
                "placement" => out.placement = d.placement.clone(),
                "link_latency_us" => out.link_latency_us = d.link_latency_us,
                "link_mbps" => out.link_mbps = d.link_mbps,
                "think_us" => out.think_us = d.think_us,
                "reload_queue" => out.reload_queue = d.reload_queue,
                "warm" => out.warm = d.warm,
                "launch_until_open" => out.launch_until_open = d.launch_until_open.clone(),
                other => unreachable!("{other} has no default to return to"),
            }
        }
        out
    }
}

/// Refuses an option `experiment` sets that changes none of its cells (`applied`: the keys
/// that change some cell, from [`CellView::applying`]).
pub(crate) fn refuse_unapplied(
    experiment: &RunConfig,
    applied: &std::collections::HashSet<&'static str>,
) -> Result<()> {
    let common = Common::parse(experiment, AdmissionSpec::parse(&experiment.admission)?)?;
    match conditional_options(experiment, &common)
        .into_iter()
        .find(|o| o.set && !applied.contains(o.key))
    {
        Some(o) => Err(Error::config(o.key, o.value, o.needs)),
        None => Ok(()),
    }
}

/// The hierarchies `levels` × `placement` ask for, in that order: each hierarchy once per
/// placement, the placement applying to every lower level that does not name its own.
fn hierarchy_specs(
    config: &RunConfig,
    preset: Preset,
    common: &Common,
) -> Result<Vec<HierarchySpec>> {
    let placements = &common.placements;
    if placements.is_empty() {
        return Err(Error::config(
            "placement",
            &config.placement,
            "name at least one placement",
        ));
    }
    let links = links(config)?;
    let mut out = Vec::new();
    for text in &config.levels {
        // Which lower levels name their own placement (a fourth field), read off the text; the
        // hierarchy is parsed once, and each placement given to the others.
        let named: Vec<bool> = text.split(',').map(|l| l.split(':').count() > 3).collect();
        let named_everywhere = named.iter().skip(1).all(|&n| n);
        let mut parsed = HierarchySpec::parse(text, &config.params, preset, placements[0])?;
        parsed.links = links.clone();
        parsed.seed_policies(config.seed);
        for (k, &p) in placements.iter().enumerate() {
            // A hierarchy whose levels all name their placement is the same for each placement.
            if named_everywhere && k > 0 {
                break;
            }
            let mut spec = parsed.clone();
            for (level, &own) in spec.levels.iter_mut().zip(&named).skip(1) {
                if !own {
                    level.placement = p;
                }
            }
            out.push(spec);
        }
    }
    Ok(out)
}

/// The links between levels and the reload queue (they time hierarchies under a disk).
fn links(config: &RunConfig) -> Result<Links> {
    use crate::limits::{time_ns, TimeUnit};
    crate::limits::check_rate(
        "link_mbps",
        config.link_mbps,
        1e6 / 8.0,
        "Mb/s",
        crate::limits::MIN_LINK_BYTES_PER_S,
    )?;
    let links = Links {
        link_latency_ns: time_ns("link_latency_us", config.link_latency_us, TimeUnit::Us)?,
        link_bytes_per_s: config.link_mbps * 1e6 / 8.0,
        think_ns: time_ns("think_us", config.think_us, TimeUnit::Us)?,
        reload_queue: config.reload_queue,
    };
    links.validate()?;
    Ok(links)
}

/// The defaults a fresh configuration has are the documented ones (one place: [`defaults`]).
#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::config::defaults;

    #[test]
    fn the_defaults_are_the_documented_constants() {
        let d = RunConfig::default();
        assert_eq!(d.block_size, defaults::BLOCK_SIZE);
        assert_eq!(d.scheduler, defaults::SCHEDULER);
        assert_eq!(d.link_mbps, defaults::LINK_MBPS);
    }
}
