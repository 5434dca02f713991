//! Planning: an experiment's grid checked and listed as cells, each a [`crate::RunConfig`] with
//! one value per list. Traces are hashed here, never loaded: runs stream them.

use super::cell::{params_for, sha256_file, split_entry, CellConfig, PlannedTrace};
use super::store;
use super::Experiment;
use crate::cache::size::CacheSize;
use crate::engine::hierarchy::{HierarchySpec, Placement};
use crate::error::{Error, Result};
use crate::policy::registry::{param_policy, parse_policies};
use crate::run::config::RunConfig;
use crate::trace::{detect_format, Format};
use std::path::Path;

/// An experiment's runs.
pub struct Plan {
    /// The experiment's name (its file name when it has none).
    pub name: String,
    /// Traces, in experiment order.
    pub traces: Vec<PlannedTrace>,
    /// Every run of the grid, in grid order: (trace index, configuration).
    pub runs: Vec<(usize, CellConfig)>,
    /// Runs the experiment lists more than once (a trace or policy named twice): planned once.
    pub duplicates: usize,
    /// Copies of traces readable only once (a FIFO, `/dev/stdin`): hashing and every run read
    /// the copy, removed when the plan is dropped.
    pub spools: Vec<crate::outfile::TempCopy>,
}

/// A policy visitor that only checks the policy can be built.
struct CheckBuild;

impl crate::policy::registry::PolicyVisitor for CheckBuild {
    type Output = ();
    fn visit<P: crate::policy::Policy + 'static>(self, _policy: P) {}
}

impl Plan {
    /// Checks the experiment, hashes its traces (paths relative to `base`) and lists its runs.
    pub fn new(exp: &Experiment, base: &Path, name: &str) -> Result<Plan> {
        let exp = &exp.normalized()?;
        let run = &exp.run;
        let preset = run.policy_preset()?;
        // Policy names, settings and hierarchies are checked here, once, before any trace is
        // read; each run then gets only the settings for its own policies.
        let entries: Vec<(&str, Vec<String>)> = run
            .policies
            .iter()
            .map(|p| split_entry(p))
            .collect::<Result<_>>()?;
        let placements: Vec<String> = run
            .placement
            .split(',')
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        if placements.is_empty() && !run.levels.is_empty() {
            return Err(Error::config(
                "placement",
                &run.placement,
                "name at least one placement",
            ));
        }
        let level_policies: Vec<Vec<&str>> = run
            .levels
            .iter()
            .map(|levels| {
                let spec = HierarchySpec::parse(levels, &[], preset, Placement::Access)?;
                Ok(spec.levels.iter().map(|l| l.policy.info.name).collect())
            })
            .collect::<Result<_>>()?;
        for item in &run.params {
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
                let params = params_for(&run.params, &[name]);
                let all: Vec<String> = params.iter().chain(own).cloned().collect();
                parse_policies(name, &all, preset)?;
                Ok(all)
            })
            .collect::<Result<_>>()?;
        let level_params: Vec<Vec<String>> = run
            .levels
            .iter()
            .zip(&level_policies)
            .map(|(levels, names)| {
                let params = params_for(&run.params, names);
                for p in &placements {
                    HierarchySpec::parse(levels, &params, preset, Placement::parse(p)?)?;
                }
                Ok(params)
            })
            .collect::<Result<_>>()?;
        let sizes: Vec<(String, CacheSize)> = run
            .cache_sizes
            .iter()
            .map(|s| Ok((s.clone(), CacheSize::parse(s)?)))
            .collect::<Result<_>>()?;
        // Every setting's engine configuration is checked before any run.
        let settings = run.settings()?;
        for setting in &settings {
            setting.file_config()?;
        }
        let mut traces = Vec::new();
        let mut spools = Vec::new();
        for t in &exp.traces {
            // Checked when the experiment was read; the environment may have changed since.
            let expanded = t
                .expanded_path()
                .map_err(|msg| Error::config("experiment", name, msg))?;
            let mut path = base.join(expanded);
            if let Some(spool) = crate::trace::input::spool_read_once(&path)? {
                path = spool.to_path_buf();
                spools.push(spool);
            }
            let label = t
                .name
                .clone()
                .unwrap_or_else(|| t.path.display().to_string());
            let format = match t.format.as_deref().or(run.format.as_deref()) {
                Some(f) => Format::parse(f, run.columns.as_deref(), run.header)?,
                None => detect_format(&path)?,
            };
            traces.push(PlannedTrace {
                label,
                hash: sha256_file(&path)?,
                format: format.name().to_string(),
                block_size: t.block_size.unwrap_or(run.block_size),
                path,
            });
        }
        let mut runs = Vec::new();
        let cell = |trace: &PlannedTrace, setting: &RunConfig, run: RunConfig| CellConfig {
            trace: trace.label.clone(),
            trace_hash: trace.hash.clone(),
            belady_version: env!("CARGO_PKG_VERSION").to_string(),
            run: RunConfig {
                trace: trace.path.clone(),
                format: Some(trace.format.clone()),
                block_size: trace.block_size,
                // Each cell names its read-ahead engine and disk, `none` included.
                prefetch: vec![setting.the_prefetch().to_string()],
                disk: vec![setting.the_disk().unwrap_or("none").to_string()],
                ..run
            },
        };
        let grid = !entries.is_empty() && !sizes.is_empty();
        for (ti, trace) in traces.iter().enumerate() {
            for setting in &settings {
                for (levels, params) in run.levels.iter().zip(&level_params) {
                    for placement in &placements {
                        let one = RunConfig {
                            policies: Vec::new(),
                            params: params.clone(),
                            cache_sizes: Vec::new(),
                            levels: vec![levels.clone()],
                            placement: placement.clone(),
                            ..run.clone()
                        };
                        runs.push((ti, cell(trace, setting, one)));
                    }
                }
            }
            if !grid {
                continue;
            }
            for setting in &settings {
                for ((name, _), params) in entries.iter().zip(&policy_params) {
                    for (size_text, _) in &sizes {
                        let one = RunConfig {
                            policies: vec![name.to_string()],
                            params: params.clone(),
                            cache_sizes: vec![size_text.clone()],
                            levels: Vec::new(),
                            placement: RunConfig::default().placement,
                            ..run.clone()
                        };
                        runs.push((ti, cell(trace, setting, one)));
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
        // Every run's policy is built once here, with its own parameters and (where it does not
        // depend on the trace) its size, so a bad value (`lirs.hir=abc`) fails before the first
        // run is stored, not after some were.
        let mut checked = std::collections::HashSet::new();
        for (_, config) in &runs {
            if !config.run.levels.is_empty() {
                continue;
            }
            let blocks = match CacheSize::parse(&config.cache_size())? {
                CacheSize::Blocks(b) => b,
                CacheSize::Bytes(b) => b / config.run.block_size.max(1) as u64,
                CacheSize::Percent(_) => continue,
            };
            if !checked.insert((
                config.run.policies.clone(),
                config.run.params.clone(),
                blocks,
            )) {
                continue;
            }
            let blocks = usize::try_from(blocks).unwrap_or(usize::MAX);
            config
                .spec()
                .and_then(|spec| crate::cache::builder::build(&spec, blocks, 1, CheckBuild))
                .map_err(|e| {
                    Error::config(
                        "run",
                        format!("{} at {}", config.label(), config.cache_size()),
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
            spools,
        })
    }

    /// Performs run `i` of the plan; returns its row as `belady sim --json` prints it.
    pub fn run(&self, i: usize) -> Result<serde_json::Value> {
        super::execute::run_cell(&self.runs[i].1)
    }

    /// Indices of the runs `store` does not hold yet.
    pub fn pending(&self, store: &store::Store) -> Result<Vec<usize>> {
        let done = store.keys()?;
        Ok((0..self.runs.len())
            .filter(|&i| !done.contains(&self.runs[i].1.key()))
            .collect())
    }
}
