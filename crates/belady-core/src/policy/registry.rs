//! Every built-in policy, its parameters, and the dispatch that monomorphises the hot loop.
//!
//! Adding a policy: its file under `policy/`, an entry in [`POLICIES`] (`policy/catalog.rs`), and
//! an arm in [`build`].
//! The conformance suite, the CLI and the Python bindings pick it up from here.

use super::arc::ArcPolicy;
use super::car::CarPolicy;
use super::clock::ClockPolicy;
use super::clock_pro::ClockProPolicy;
use super::fbr::FbrPolicy;
use super::fifo::FifoPolicy;
use super::lirs::LirsPolicy;
use super::lrfu::LrfuPolicy;
use super::lru::LruPolicy;
use super::lruk::LruKPolicy;
use crate::compat::libcachesim::lirs::LibcachesimLirs;
// The kernel's own replacement (issue 26 item 2).
use super::linux::LinuxPolicy;
use super::mglru::MglruPolicy;
use super::mq::MqPolicy;
use super::opt::OptPolicy;
use super::twoq::TwoQPolicy;
use super::Policy;
use super::{
    lfu::LfuPolicy, lfuda::LfudaPolicy, s3fifo::S3FifoPolicy, sieve::SievePolicy, slru::SlruPolicy,
    wtinylfu::WTinyLfuPolicy,
};
// Learned and sampled policies (issue 26: Hyperbolic, LeCaR, Cacheus).
use super::cacheus::CacheusPolicy;
use super::hyperbolic::HyperbolicPolicy;
use super::lecar::LecarPolicy;
use crate::compat::accusim::{arc::AccusimArc, lrfu::AccusimLrfu};
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
    /// papers); selected by `--compat accusim`.
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
    // Cacheus.c/SR_LRU.c: SR's target and the learning rate never move (see policy/cacheus.rs).
    ("cacheus", "adapt_size", "false"),
    ("cacheus", "adapt_rate", "false"),
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

/// Builds the policy `spec` names for `capacity` blocks over ids `0..universe`.
pub fn build<V: PolicyVisitor>(
    spec: &PolicySpec,
    capacity: usize,
    universe: usize,
    visitor: V,
) -> Result<V::Output> {
    if capacity == 0 {
        return Err(Error::config(
            "cache_size",
            0,
            "a cache needs at least one block",
        ));
    }
    Ok(match spec.info.name {
        "lru" => visitor.visit(LruPolicy::new(universe)),
        "fifo" => visitor.visit(FifoPolicy::new(universe)),
        "clock" => visitor.visit(ClockPolicy::new(universe)),
        "opt" => visitor.visit(OptPolicy::from_spec(spec, capacity, universe)?),
        // AccuSim's variants (compat::accusim) when the parameters ask for its behaviour, as
        // the accusim preset does; the papers' types otherwise.
        "lrfu" if spec.raw("heap") == "accusim" => {
            visitor.visit(AccusimLrfu::from_spec(spec, capacity, universe)?)
        }
        "lrfu" => visitor.visit(LrfuPolicy::from_spec(spec, capacity, universe)?),
        "fbr" => visitor.visit(FbrPolicy::from_spec(spec, capacity, universe)?),
        "arc" if AccusimArc::wanted(spec) => {
            visitor.visit(AccusimArc::from_spec(spec, capacity, universe)?)
        }
        "arc" => visitor.visit(ArcPolicy::from_spec(spec, capacity, universe)?),
        "car" => visitor.visit(CarPolicy::from_spec(spec, capacity, universe)?),
        "clock-pro" => visitor.visit(ClockProPolicy::from_spec(spec, capacity, universe)?),
        "lirs" => visitor.visit(LirsPolicy::from_spec(spec, capacity, universe)?),
        "lru-k" => visitor.visit(LruKPolicy::from_spec(spec, capacity, universe)?),
        "2q" => visitor.visit(TwoQPolicy::from_spec(spec, capacity, universe)?),
        "mq" => visitor.visit(MqPolicy::from_spec(spec, capacity, universe)?),
        // The kernel's own replacement (issue 26 item 2).
        "linux" => visitor.visit(LinuxPolicy::from_spec(spec, capacity, universe)?),
        "mglru" => visitor.visit(MglruPolicy::from_spec(spec, capacity, universe)?),
        "s3fifo" => visitor.visit(S3FifoPolicy::from_spec(spec, capacity, universe)?),
        "sieve" => visitor.visit(SievePolicy::new(universe)),
        "slru" => visitor.visit(SlruPolicy::from_spec(spec, capacity, universe)?),
        "lfu" => visitor.visit(LfuPolicy::new(universe)),
        "lfuda" => visitor.visit(LfudaPolicy::new(universe)),
        "gdsf" => visitor.visit(super::gdsf::GdsfPolicy::new(universe)),
        "lhd" => visitor.visit(super::lhd::LhdPolicy::from_spec(spec, capacity, universe)?),
        "wtinylfu" => visitor.visit(WTinyLfuPolicy::from_spec(spec, capacity, universe)?),
        "hyperbolic" => visitor.visit(HyperbolicPolicy::from_spec(spec, capacity, universe)?),
        "lecar" => visitor.visit(LecarPolicy::from_spec(spec, capacity, universe)?),
        "cacheus" => visitor.visit(CacheusPolicy::from_spec(spec, capacity, universe)?),
        other => unreachable!("policy {other} is listed in POLICIES but has no constructor"),
    })
}

/// Builds the policy `spec` names for a level of `capacity`: a level that weighs objects gets
/// the size-aware variant where one differs (ARC, 2Q, S3-FIFO and SLRU: libCacheSim's byte-based
/// ones; LIRS under `--preset libcachesim`: the reference model of libCacheSim's byte-based LIRS;
/// LHD with its explorer budget in bytes), every other level what [`build`] gives.
pub fn build_for<V: PolicyVisitor>(
    spec: &PolicySpec,
    capacity: &crate::cache_model::Capacity,
    universe: usize,
    visitor: V,
) -> Result<V::Output> {
    match spec.info.name {
        "arc" if capacity.weighted && !AccusimArc::wanted(spec) => {
            Ok(visitor.visit(super::arc_sized::ArcSizedPolicy::new(universe)))
        }
        "s3fifo" if capacity.weighted => Ok(visitor.visit(
            super::s3fifo_sized::S3FifoSizedPolicy::from_spec(spec, capacity.units, universe)?,
        )),
        // LHD's explorer budget is a share of the cache's bytes.
        "lhd" if capacity.weighted => Ok(visitor.visit(super::lhd::LhdPolicy::from_spec(
            spec,
            capacity.units,
            universe,
        )?)),
        "slru" if capacity.weighted => Ok(visitor.visit(
            super::slru_sized::SlruSizedPolicy::from_spec(spec, capacity.units, universe)?,
        )),
        "2q" if capacity.weighted => Ok(visitor.visit(
            super::twoq_sized::TwoQSizedPolicy::from_spec(spec, capacity.units, universe)?,
        )),
        // libCacheSim's byte-based LIRS has no parameters: set ones keep the paper's LIRS.
        "lirs"
            if capacity.weighted
                && spec.preset == Preset::Libcachesim
                && spec.params.is_empty() =>
        {
            Ok(visitor.visit(LibcachesimLirs::new(capacity.units, universe)))
        }
        _ => build(spec, capacity.entries, universe, visitor),
    }
}

/// Refuses, in one line naming the policy, a policy that cannot weigh objects (the objects model
/// with a byte capacity: see [`Policy::weighs_objects`]).
pub fn check_weighs(spec: &PolicySpec) -> Result<()> {
    struct Weighs;
    impl PolicyVisitor for Weighs {
        type Output = std::result::Result<(), &'static str>;
        fn visit<P: Policy + 'static>(self, policy: P) -> Self::Output {
            policy.weighs_objects()
        }
    }
    let weighted = crate::cache_model::Capacity {
        units: 2,
        weighted: true,
        entries: 2,
    };
    build_for(spec, &weighted, 2, Weighs)?.map_err(|why| {
        Error::config(
            "policy",
            spec.label(),
            format!(
                "cannot weigh objects of different sizes: {why}; count objects (a plain -c N) or use cache_model = blocks"
            ),
        )
    })
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
            struct Ok;
            impl PolicyVisitor for Ok {
                type Output = ();
                fn visit<P: Policy + 'static>(self, _: P) {}
            }
            build(spec, 10, 10, Ok).unwrap();
        }
        let lirs = &parse_policies("lirs", &[], Preset::Libcachesim).unwrap()[0];
        assert_eq!(
            lirs.raw("hir"),
            "0.01",
            "unlisted keys keep the paper's value"
        );
    }

    #[test]
    fn policies_that_cannot_weigh_objects_say_why_in_one_line() {
        for name in [
            "lru",
            "fifo",
            "clock",
            "opt",
            "lrfu",
            "lru-k",
            "mq",
            "fbr",
            "arc",
            "2q",
            "hyperbolic",
            "sieve",
            "lfu",
            "lfuda",
            "gdsf",
            "lhd",
            "s3fifo",
            "slru",
        ] {
            let spec = &parse_policies(name, &[], Preset::Paper).unwrap()[0];
            check_weighs(spec).unwrap();
        }
        for name in ["car", "clock-pro", "lirs", "lecar", "cacheus", "wtinylfu"] {
            let spec = &parse_policies(name, &[], Preset::Paper).unwrap()[0];
            let e = check_weighs(spec).unwrap_err().to_string();
            assert!(
                e.contains(name) && e.contains("cannot weigh") && !e.contains('\n'),
                "{e}"
            );
        }
    }

    #[test]
    fn lirs_weighs_objects_only_as_libcachesims_model() {
        let lirs = &parse_policies("lirs", &[], Preset::Libcachesim).unwrap()[0];
        check_weighs(lirs).unwrap();
        // Parameters set by hand ask for the paper's LIRS, which still refuses.
        let set =
            &parse_policies("lirs", &["lirs.hir=0.1".into()], Preset::Libcachesim).unwrap()[0];
        let e = check_weighs(set).unwrap_err().to_string();
        assert!(
            e.contains("counts blocks") && e.contains("--preset libcachesim"),
            "{e}"
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
