//! Planning: an experiment's grid checked and listed, its traces read once.

use super::cell::{params_for, split_entry, CellConfig, LoadedTrace};
use super::store;
use super::Experiment;
use crate::config::RunOptions;
use crate::engine::RunResult;
use crate::error::{Error, Result};
use crate::hierarchy::{HierarchySpec, Placement};
use crate::policy::registry::{param_policy, parse_policies};
use crate::size::CacheSize;
use std::path::Path;

/// An experiment's runs, with its traces read.
pub struct Plan {
    /// The experiment's name (its file name when it has none).
    pub name: String,
    /// Traces, in experiment order.
    pub traces: Vec<LoadedTrace>,
    /// Every run of the grid, in grid order: (trace index, configuration).
    pub runs: Vec<(usize, CellConfig)>,
    /// Runs the experiment lists more than once (a trace or policy named twice): planned once.
    pub duplicates: usize,
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
        let exp = &exp.normalized();
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
        let mut options = Vec::new();
        for prefetch in &exp.prefetch {
            for disk in &exp.disks {
                let opts = RunOptions {
                    prefetch: Some(prefetch.clone()),
                    compat: exp.compat.clone(),
                    max_request: exp.max_request.clone(),
                    disk: Some(disk.clone()),
                    scheduler: exp.scheduler.clone(),
                    read_ahead_kb: exp.read_ahead_kb,
                    ..RunOptions::default()
                };
                opts.file_config()?;
                settings.push((prefetch.clone(), disk.clone()));
                options.push(opts);
            }
        }
        let grid = !exp.policies.is_empty() && !exp.sizes.is_empty();
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
                &options,
                grid,
                !exp.levels.is_empty(),
            )?);
        }
        let mut runs = Vec::new();
        let base_config = |trace: &LoadedTrace| CellConfig {
            trace: trace.label.clone(),
            trace_hash: trace.hash.clone(),
            format: trace.format().name().to_string(),
            block_size: trace.block_size(),
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
                            CellConfig {
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
                        let capacity = size.resolve(trace.unique(), trace.block_size())?;
                        runs.push((
                            ti,
                            CellConfig {
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
}
