//! A hierarchy as configured: its levels, their policies, sizes and placements.

use super::Links;
use crate::cache::size::CacheSize;
use crate::error::{Error, Result};
use crate::policy::registry::{parse_policies, PolicySpec, Preset};

/// How blocks enter a lower level of a hierarchy.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Placed when a reference misses the level (inclusive).
    Access,
    /// Placed, by a reload from disk, when the level above evicts it, if it reached this level
    /// at least `threshold` times (1 reloads every evicted block).
    Eviction {
        /// Fewest requests a block must have made at this level to be reloaded.
        threshold: u32,
    },
    /// Placed when the level above sends down a block it evicts.
    Demote,
    /// As `Demote`, and a hit hands the block up, out of this level.
    Exclusive,
}

impl Placement {
    /// Parses `access`, `eviction`, `eviction:N` (N >= 1), `demote` or `exclusive`.
    pub fn parse(text: &str) -> Result<Placement> {
        let t = text.trim().to_ascii_lowercase();
        let bad = || {
            Error::config(
                "placement",
                text,
                "expected access, eviction, eviction:N (reload threshold N >= 1), demote or exclusive",
            )
        };
        Ok(match t.as_str() {
            "access" | "inclusive" => Placement::Access,
            "eviction" => Placement::Eviction { threshold: 1 },
            "demote" => Placement::Demote,
            "exclusive" => Placement::Exclusive,
            _ => {
                let n = t.strip_prefix("eviction:").ok_or_else(bad)?;
                let threshold: u32 = n.trim().parse().map_err(|_| bad())?;
                if threshold == 0 {
                    return Err(bad());
                }
                Placement::Eviction { threshold }
            }
        })
    }

    /// The name as it parses back.
    pub fn label(&self) -> String {
        match self {
            Placement::Access => "access".into(),
            Placement::Eviction { threshold: 1 } => "eviction".into(),
            Placement::Eviction { threshold } => format!("eviction:{threshold}"),
            Placement::Demote => "demote".into(),
            Placement::Exclusive => "exclusive".into(),
        }
    }
}

/// One level of a hierarchy as configured.
#[derive(Clone, Debug)]
pub struct LevelSpec {
    /// The name shown in results (`client`, `storage`).
    pub name: String,
    /// Its replacement policy.
    pub policy: PolicySpec,
    /// Its size.
    pub size: CacheSize,
    /// How blocks enter it; always [`Placement::Access`] for the top level.
    pub placement: Placement,
}

/// A hierarchy as configured: level 0 is the client, the last level sits above the disk.
#[derive(Clone, Debug)]
pub struct HierarchySpec {
    /// The levels, top first.
    pub levels: Vec<LevelSpec>,
    /// The links between the levels and the reload queue, for runs with a device.
    pub links: Links,
}

impl HierarchySpec {
    /// Gives every level's policy the run's seed (`--seed`), for the randomised policies.
    pub fn seed_policies(&mut self, seed: u64) {
        for level in &mut self.levels {
            level.policy.seed = seed;
        }
    }

    /// Parses `NAME:POLICY:SIZE[:PLACEMENT],...` (top level first), e.g.
    /// `client:lru:256MiB,storage:mq:512MiB:eviction:2`. Lower levels without a placement take
    /// `default_placement`; `params` (`POLICY.KEY=VALUE`) apply to every level with that policy.
    pub fn parse(
        text: &str,
        params: &[String],
        preset: Preset,
        default_placement: Placement,
    ) -> Result<HierarchySpec> {
        let bad = |msg: String| Error::config("levels", text, msg);
        let mut parts = Vec::new();
        for (i, item) in text.split(',').enumerate() {
            let fields: Vec<&str> = item.split(':').map(str::trim).collect();
            if fields.len() < 3 || fields[..3].iter().any(|f| f.is_empty()) {
                return Err(bad(format!(
                    "level {} '{item}': expected NAME:POLICY:SIZE[:PLACEMENT]",
                    i + 1
                )));
            }
            let placement = if fields.len() > 3 {
                if i == 0 {
                    return Err(bad(format!(
                        "level 1 '{item}' is the client: every reference reaches it, so it takes no placement"
                    )));
                }
                Placement::parse(&fields[3..].join(":"))?
            } else {
                default_placement
            };
            let size = CacheSize::parse(fields[2])
                .map_err(|e| bad(format!("level {} '{item}': {e}", i + 1)))?;
            parts.push((
                fields[0].to_string(),
                fields[1].to_string(),
                size,
                placement,
            ));
        }
        // One level is allowed: it is the plain run of that policy and size (the same engine).
        if parts.is_empty() {
            return Err(bad("a hierarchy needs at least one level".into()));
        }
        for (i, p) in parts.iter().enumerate() {
            if parts[..i].iter().any(|q| q.0 == p.0) {
                return Err(bad(format!("level name '{}' is used twice", p.0)));
            }
        }
        let names: Vec<&str> = parts.iter().map(|p| p.1.as_str()).collect();
        let specs = parse_policies(&names.join(","), params, preset)?;
        let levels = parts
            .into_iter()
            .zip(specs)
            .enumerate()
            .map(|(i, ((name, _, size, placement), policy))| LevelSpec {
                name,
                policy,
                size,
                placement: if i == 0 { Placement::Access } else { placement },
            })
            .collect();
        Ok(HierarchySpec {
            levels,
            links: Links::default(),
        })
    }

    /// A short description: `client:lru:1000 > storage:mq:2000:eviction`.
    pub fn label(&self) -> String {
        self.levels
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let base = format!("{}:{}:{}", l.name, l.policy.label(), l.size);
                if i == 0 {
                    base
                } else {
                    format!("{base}:{}", l.placement.label())
                }
            })
            .collect::<Vec<_>>()
            .join(" > ")
    }
}
