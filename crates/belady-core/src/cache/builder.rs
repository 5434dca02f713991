//! Builds the policy a [`PolicySpec`] names: a reference simulator's variant from `compat/` where
//! the spec's parameters ask for that simulator's behaviour (as the `accusim` and `libcachesim`
//! presets do; `compat/mod.rs` lists them), otherwise the paper's type from `policy/` (its
//! size-aware form for a level that weighs objects; `policy/mod.rs` lists them). The one place
//! that knows both; a policy's own file knows only its paper. Each policy's `build` hands the
//! concrete type to a [`PolicyVisitor`], so the simulation loop is compiled once per policy.

use crate::cache::cache_model::Capacity;
use crate::error::{Error, Result};
use crate::policy::registry::{PolicySpec, PolicyVisitor};
use crate::policy::Policy;

/// Builds the policy `spec` names for `capacity` blocks over ids `0..universe`.
pub fn build<V: PolicyVisitor>(
    spec: &PolicySpec,
    capacity: usize,
    universe: usize,
    visitor: V,
) -> Result<V::Output> {
    let counted = Capacity {
        units: capacity,
        weighted: false,
        entries: capacity,
    };
    build_for(spec, &counted, universe, visitor)
}

/// Builds the policy `spec` names for a level of `capacity`: a level that weighs objects gets
/// the size-aware variant where one differs (ARC, 2Q, S3-FIFO and SLRU: libCacheSim's byte-based
/// ones; LIRS under `--preset libcachesim`: the reference model of libCacheSim's byte-based LIRS;
/// LHD with its explorer budget in bytes), every other level the count-based policy.
pub fn build_for<V: PolicyVisitor>(
    spec: &PolicySpec,
    capacity: &Capacity,
    universe: usize,
    visitor: V,
) -> Result<V::Output> {
    if capacity.entries == 0 {
        return Err(Error::config(
            "cache_size",
            0,
            "a cache needs at least one block",
        ));
    }
    match crate::compat::build_variant(spec, capacity, universe, visitor)? {
        Ok(variant) => Ok(variant),
        Err(visitor) => crate::policy::build_paper(spec, capacity, universe, visitor),
    }
}

/// Parameters that concern prefetched blocks only (their first use, a prefetch of a ghost, the
/// time of a prefetch insertion): a cache that weighs objects has no read-ahead, so set there
/// they would change nothing.
const PREFETCH_ONLY: &[(&str, &str)] = &[
    ("arc", "ghost_prefetch"),
    ("arc", "first_use"),
    ("lrfu", "prefetch_time"),
    ("lru-k", "first_use"),
    ("lru-k", "prefetch_time"),
    ("mq", "adjust_on_prefetch"),
    ("mq", "unused_count"),
];

/// Refuses, in one line naming the policy, a policy that cannot weigh objects (the objects model
/// with a byte capacity: see [`crate::policy::SizeHooks::weighs_objects`]), and a parameter set by the user that
/// changes nothing there; every other parameter is read as the count-based policy reads it.
pub fn check_weighs(spec: &PolicySpec) -> Result<()> {
    if let Some((_, key)) = PREFETCH_ONLY
        .iter()
        .find(|(p, k)| *p == spec.info.name && spec.params.contains_key(*k))
    {
        return Err(Error::config(
            "params",
            format!("{}.{key}={}", spec.info.name, spec.raw(key)),
            "concerns prefetched blocks, and a cache that weighs objects has no read-ahead: \
             leave it out, or count objects (a plain -c N)",
        ));
    }
    struct Weighs;
    impl PolicyVisitor for Weighs {
        type Output = std::result::Result<(), &'static str>;
        fn visit<P: Policy + 'static>(self, policy: P) -> Self::Output {
            policy.weighs_objects()
        }
    }
    let weighted = Capacity {
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

/// A visitor that names the concrete type the builder made, for tests of which variant (the
/// paper's policy or a compat model) a spec selects.
#[cfg(test)]
pub(crate) struct TypeName;

#[cfg(test)]
impl PolicyVisitor for TypeName {
    type Output = &'static str;
    fn visit<P: Policy + 'static>(self, _: P) -> &'static str {
        std::any::type_name::<P>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::registry::{parse_policies, Preset};

    #[test]
    fn an_adaptive_window_builds_its_climber_and_refuses_what_it_cannot_run() {
        let spec = |params: &[&str], preset| {
            let params: Vec<String> = params.iter().map(|p| format!("wtinylfu.{p}")).collect();
            parse_policies("wtinylfu", &params, preset)
                .unwrap()
                .remove(0)
        };
        let made = |s: &PolicySpec| build(s, 100, 100, TypeName);
        let caffeine = made(&spec(&["window=adaptive"], Preset::Paper)).unwrap();
        assert!(
            caffeine
                .ends_with("AdaptiveWTinyLfu<belady_core::policy::wtinylfu_climber::HillClimber>"),
            "{caffeine}"
        );
        let bitfaster = made(&spec(
            &["window=adaptive", "climber=bitfaster"],
            Preset::Paper,
        ));
        assert!(bitfaster.unwrap().contains("BitfasterClimber"));
        assert!(made(&spec(&[], Preset::Paper))
            .unwrap()
            .ends_with("WTinyLfuPolicy"));
        // Each refusal is one line naming the setting.
        for (params, preset, needle) in [
            (&["window=adaptiv"][..], Preset::Paper, "or adaptive"),
            (
                &["window=adaptive", "variant=libcachesim"],
                Preset::Paper,
                "no hill climber",
            ),
            (&["window=adaptive"], Preset::Libcachesim, "no hill climber"),
            (
                &["climber=bitfaster"],
                Preset::Paper,
                "set wtinylfu.window=adaptive",
            ),
            (
                &["window=adaptive", "climber=simple"],
                Preset::Paper,
                "caffeine, bitfaster",
            ),
        ] {
            let e = made(&spec(params, preset)).unwrap_err().to_string();
            assert!(e.contains(needle) && !e.contains('\n'), "{params:?}: {e}");
        }
        // Byte capacities: refused, as the fixed window is.
        for params in [
            &["window=adaptive"][..],
            &["window=adaptive", "climber=bitfaster"],
        ] {
            let e = check_weighs(&spec(params, Preset::Paper))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("wtinylfu(") && e.contains("cannot weigh") && !e.contains('\n'),
                "{e}"
            );
        }
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
    fn at_a_byte_capacity_each_parameter_is_applied_or_refused() {
        // Applied: the same validation as the count-based policy (a bad value is refused).
        for (policy, bad) in [
            ("arc", "arc.p0=abc"),
            ("arc", "arc.delta=half"),
            ("2q", "2q.kin=1.5"),
            ("slru", "slru.segments=0"),
            ("s3fifo", "s3fifo.small=2"),
            ("lhd", "lhd.associativity=0"),
        ] {
            let spec = &parse_policies(policy, &[bad.to_string()], Preset::Paper).unwrap()[0];
            let weighted = crate::cache::cache_model::Capacity {
                units: 1 << 20,
                weighted: true,
                entries: 100,
            };
            struct Builds;
            impl PolicyVisitor for Builds {
                type Output = ();
                fn visit<P: Policy + 'static>(self, _: P) {}
            }
            let e = build_for(spec, &weighted, 100, Builds)
                .unwrap_err()
                .to_string();
            assert!(e.contains(bad) && !e.contains('\n'), "{bad}: {e}");
        }
        // Refused: what concerns prefetched blocks only.
        let spec = &parse_policies("arc", &["arc.ghost_prefetch=forget".into()], Preset::Paper)
            .unwrap()[0];
        let e = check_weighs(spec).unwrap_err().to_string();
        assert!(
            e.contains("arc.ghost_prefetch=forget") && e.contains("no read-ahead"),
            "{e}"
        );
        // AccuSim's ARC is count-based: refused as such.
        let spec =
            &parse_policies("arc", &["arc.replace=accusim".into()], Preset::Paper).unwrap()[0];
        let e = check_weighs(spec).unwrap_err().to_string();
        assert!(e.contains("cannot weigh"), "{e}");
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
    fn no_policy_file_uses_compat() {
        // policy/ holds the papers' policies; the reference simulators' variants in compat/ build
        // on them, never the other way round. Comments may point to where a variant lives.
        fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    rust_files(&path, out);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    out.push(path);
                }
            }
        }
        let mut files = Vec::new();
        rust_files(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/policy"),
            &mut files,
        );
        assert!(files.len() > 20, "found {} policy files", files.len());
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for (i, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                assert!(
                    !code.contains("compat::"),
                    "{}:{}: {line}",
                    file.display(),
                    i + 1
                );
            }
        }
    }
}
