//! Every built-in policy's name and parameters: parsing a policy list, presets and overrides into
//! [`PolicySpec`]s. [`crate::cache::builder::build`] (`cache/builder.rs`) turns a spec into the policy.
//!
//! Adding a policy: its file under `policy/`, an entry in [`POLICIES`] (`policy/catalog.rs`), and
//! an arm in [`crate::cache::builder::build`] (`cache/builder.rs`).
//! The conformance suite, the CLI and the Python bindings pick it up from here.

use super::Policy;
use crate::error::{Error, Result};
use std::collections::BTreeMap;

pub use super::catalog::{ParamInfo, PolicyInfo, POLICIES};

/// Named sets of parameter defaults.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Preset {
    /// Each algorithm's own paper.
    #[default]
    Paper,
    /// The prefetching study's Table 4 (Butt, Gniady and Hu, SIGMETRICS 2005).
    Study,
    /// What the study's simulator, AccuSim, does (the study's values plus its departures from the
    /// papers); the AccuSim compatibility mode selects it.
    Accusim,
    /// libCacheSim's variants ([`LIBCACHESIM`]), so one switch reproduces that simulator.
    Libcachesim,
}

/// The parameters `--preset libcachesim` sets, as (policy, key, value): what libCacheSim's
/// (libcachesim 0.3.5) variant of each policy does where it differs from the paper's default.
/// Policies not listed already match with their defaults (LRU, FIFO, CLOCK, ARC, 2Q, OPT) or
/// have no libCacheSim equivalent in belady (CAR, CLOCK-Pro: see docs/policies.md).
pub static LIBCACHESIM: &[(&str, &str, &str)] = &[
    // LIRS.c: Lhirs = 1% of the cache with a minimum of one block, no duplicate skipping, and
    // |S| bounded by dropping the oldest non-resident entries.
    ("lirs", "min_hir", "1"),
    ("lirs", "bound", "stack-nonresident"),
    ("lirs", "skip_dup", "false"),
    // LRU_K.cpp: every reference counts (no correlated period) and history leaves with the block.
    ("lru-k", "crp", "0"),
    ("lru-k", "history", "0"),
    // MQ.c: a missed block leaves Qout before the eviction.
    ("mq", "ghost_lookup", "before-evict"),
    // Cacheus.c/SR_LRU.c as libcachesim 0.3.5 runs them (see policy/cacheus.rs): capped SR and R,
    // SR's overflow evicted with room free, growth-only SR, libCacheSim's learning-rate step.
    ("cacheus", "variant", "libcachesim"),
    // LeCaR.c: a history per expert of c/2 ids, no draw when the experts agree, libCacheSim's
    // generator (see policy/lecar.rs).
    ("lecar", "variant", "libcachesim"),
    // SLRU.c at a count capacity: every segment floor(c/n), segment 0 trimmed by evicting on a
    // hit (compat/libcachesim/slru.rs).
    ("slru", "variant", "libcachesim"),
    // WTinyLFU.c: its own design (SLRU main, counting Bloom filter, eviction loop), modelled in
    // compat/libcachesim/wtinylfu.rs.
    ("wtinylfu", "variant", "libcachesim"),
];

impl Preset {
    /// Parses `paper` or `study`.
    pub fn parse(s: &str) -> Result<Preset> {
        match s {
            "paper" => Ok(Preset::Paper),
            "study" => Ok(Preset::Study),
            "accusim" => Ok(Preset::Accusim),
            "libcachesim" => Ok(Preset::Libcachesim),
            _ => Err(Error::config(
                "preset",
                s,
                format!(
                    "expected paper, study, accusim or libcachesim{}",
                    crate::error::did_you_mean(s, ["paper", "study", "accusim", "libcachesim"])
                ),
            )),
        }
    }
}

/// A policy chosen by name, with parameter overrides.
#[derive(Clone, Debug)]
pub struct PolicySpec {
    /// The registered policy.
    pub info: &'static PolicyInfo,
    /// Values set by the user, by key; unset keys take the preset's value.
    pub params: BTreeMap<String, String>,
    /// Which defaults unset keys take.
    pub preset: Preset,
    /// Seed of the policy's random draws (`--seed`), for the randomised policies.
    pub seed: u64,
}

impl PolicySpec {
    /// Looks up a policy by name or alias.
    pub fn parse(name: &str) -> Result<PolicySpec> {
        let wanted = name.trim().to_ascii_lowercase();
        let info = POLICIES
            .iter()
            .find(|p| p.name == wanted || p.aliases.contains(&wanted.as_str()))
            .ok_or_else(|| {
                let names: Vec<&str> = POLICIES.iter().map(|p| p.name).collect();
                let known = POLICIES
                    .iter()
                    .flat_map(|p| std::iter::once(p.name).chain(p.aliases.iter().copied()));
                Error::config(
                    "policy",
                    name,
                    format!(
                        "unknown policy{}; expected one of {}",
                        crate::error::did_you_mean(name, known),
                        names.join(", ")
                    ),
                )
            })?;
        Ok(PolicySpec {
            info,
            params: BTreeMap::new(),
            preset: Preset::Paper,
            seed: 0,
        })
    }

    /// The text value of parameter `key`: the user's, else the preset's default.
    ///
    /// # Panics
    /// If the policy does not declare `key` (a programming error, not bad input).
    pub fn raw(&self, key: &str) -> &str {
        let info = self
            .info
            .params
            .iter()
            .find(|p| p.name == key)
            .unwrap_or_else(|| panic!("policy {} declares no parameter {key}", self.info.name));
        if let Some(v) = self.params.get(key) {
            return v;
        }
        match self.preset {
            Preset::Paper => info.default,
            Preset::Study => info.study.unwrap_or(info.default),
            Preset::Accusim => info.accusim.or(info.study).unwrap_or(info.default),
            Preset::Libcachesim => LIBCACHESIM
                .iter()
                .find(|(p, k, _)| *p == self.info.name && *k == key)
                .map_or(info.default, |(_, _, v)| v),
        }
    }

    fn invalid(&self, key: &str, expected: &str) -> Error {
        Error::config(
            "params",
            format!("{}.{key}={}", self.info.name, self.raw(key)),
            expected.to_string(),
        )
    }

    /// The error for the value of `key`, which a reference simulator's variant (`variant`, in
    /// `compat/`) implements rather than the paper's type: the builder makes that variant instead.
    pub(crate) fn variant_value(&self, key: &str, variant: &str) -> Error {
        self.invalid(
            key,
            &format!("{variant} implements this value; build the policy through builder::build"),
        )
    }

    /// Parameter `key` as a real number within `[min, max]`.
    pub fn f64(&self, key: &str, min: f64, max: f64) -> Result<f64> {
        self.raw(key)
            .parse::<f64>()
            .ok()
            .filter(|v| *v >= min && *v <= max)
            .ok_or_else(|| self.invalid(key, &format!("expected a number from {min} to {max}")))
    }

    /// Parameter `key` as a whole number within `[min, max]`.
    pub fn usize(&self, key: &str, min: usize, max: usize) -> Result<usize> {
        self.raw(key)
            .parse::<usize>()
            .ok()
            .filter(|v| *v >= min && *v <= max)
            .ok_or_else(|| {
                self.invalid(key, &format!("expected a whole number from {min} to {max}"))
            })
    }

    /// Parameter `key` as a boolean (`true`/`false`, `yes`/`no`, `1`/`0`).
    pub fn bool(&self, key: &str) -> Result<bool> {
        match self.raw(key) {
            "true" | "yes" | "1" | "on" => Ok(true),
            "false" | "no" | "0" | "off" => Ok(false),
            _ => Err(self.invalid(key, "expected true or false")),
        }
    }

    /// Parameter `key` as one of the listed words.
    pub fn choice(&self, key: &str, allowed: &[&'static str]) -> Result<&'static str> {
        let v = self.raw(key);
        allowed
            .iter()
            .find(|a| **a == v)
            .copied()
            .ok_or_else(|| self.invalid(key, &format!("expected one of {}", allowed.join(", "))))
    }

    /// Sets parameter `key`, rejecting keys the policy does not have.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        if !self.info.params.iter().any(|p| p.name == key) {
            let known: Vec<&str> = self.info.params.iter().map(|p| p.name).collect();
            let expected = if known.is_empty() {
                "it has no parameters".to_string()
            } else {
                format!(
                    "expected one of {}{}",
                    known.join(", "),
                    crate::error::did_you_mean(key, known.iter().copied())
                )
            };
            return Err(Error::config(
                "params",
                format!("{}.{key}={value}", self.info.name),
                format!("{} has no parameter '{key}'; {expected}", self.info.name),
            ));
        }
        self.params.insert(key.to_string(), value.to_string());
        Ok(())
    }

    /// The name shown in results: the policy name, then any overridden parameters.
    pub fn label(&self) -> String {
        if self.params.is_empty() {
            return self.info.name.to_string();
        }
        let set: Vec<String> = self
            .params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!("{}({})", self.info.name, set.join(","))
    }
}

/// Receives a freshly built policy as a concrete type, so the simulation loop is compiled
/// once per policy.
pub trait PolicyVisitor {
    /// What the visit returns.
    type Output;
    /// Runs with the concrete policy.
    fn visit<P: Policy + 'static>(self, policy: P) -> Self::Output;
}

/// Parses a comma-separated policy list, applies a preset and `POLICY.KEY=VALUE` overrides.
pub fn parse_policies(list: &str, params: &[String], preset: Preset) -> Result<Vec<PolicySpec>> {
    let mut specs: Vec<PolicySpec> = list
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|name| {
            PolicySpec::parse(name).map(|mut s| {
                s.preset = preset;
                s
            })
        })
        .collect::<Result<_>>()?;
    if specs.is_empty() {
        return Err(Error::config("policy", list, "name at least one policy"));
    }
    for item in params {
        let (target, key, value) = split_param(item)?;
        let mut matched = false;
        for spec in specs.iter_mut().filter(|s| s.info.name == target) {
            spec.set(key, value)?;
            matched = true;
        }
        if !matched {
            return Err(Error::config(
                "params",
                item,
                format!("policy '{target}' is not among those selected with --policy"),
            ));
        }
    }
    Ok(specs)
}

/// Splits `POLICY.KEY=VALUE` into the policy's registered name, the key and the value.
fn split_param(item: &str) -> Result<(&'static str, &str, &str)> {
    let bad = || Error::config("params", item, "expected POLICY.KEY=VALUE");
    let (lhs, value) = item.split_once('=').ok_or_else(bad)?;
    let (policy, key) = lhs.split_once('.').ok_or_else(bad)?;
    Ok((
        PolicySpec::parse(policy)?.info.name,
        key.trim(),
        value.trim(),
    ))
}

/// The registered name of the policy a `POLICY.KEY=VALUE` setting is for (aliases resolved).
pub fn param_policy(item: &str) -> Result<&'static str> {
    split_param(item).map(|(policy, _, _)| policy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_libcachesim_preset_names_real_parameters_with_valid_values() {
        for (policy, key, value) in LIBCACHESIM {
            let spec = &parse_policies(policy, &[], Preset::Libcachesim).unwrap()[0];
            assert_eq!(spec.raw(key), *value, "{policy}.{key}");
            struct Builds;
            impl PolicyVisitor for Builds {
                type Output = ();
                fn visit<P: Policy + 'static>(self, _: P) {}
            }
            crate::cache::builder::build(spec, 10, 10, Builds).unwrap();
        }
        let lirs = &parse_policies("lirs", &[], Preset::Libcachesim).unwrap()[0];
        assert_eq!(
            lirs.raw("hir"),
            "0.01",
            "unlisted keys keep the paper's value"
        );
    }

    #[test]
    fn names_aliases_and_params_are_checked() {
        assert_eq!(PolicySpec::parse("Belady").unwrap().info.name, "opt");
        assert!(PolicySpec::parse("nope")
            .unwrap_err()
            .to_string()
            .contains("expected one of lru"));
        let err = parse_policies("lru", &["lru.x=1".into()], Preset::Paper)
            .unwrap_err()
            .to_string();
        assert!(err.contains("has no parameter 'x'"), "{err}");
        assert!(parse_policies("lru", &["fifo.x=1".into()], Preset::Paper).is_err());
        assert!(parse_policies(" , ", &[], Preset::Paper).is_err());
        assert_eq!(
            parse_policies("lru,fifo", &[], Preset::Paper)
                .unwrap()
                .len(),
            2
        );
    }
}
