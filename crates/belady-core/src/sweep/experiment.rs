//! What `belady sweep` reads: an experiment (TOML, or its structure as JSON from Python) and its
//! traces. Every key of `belady sim --print-config` is an experiment key with the same name and
//! meaning; a list is an axis of the grid (`policies`, `cache_sizes`, `prefetch`, `disk`,
//! `levels`, `placement`), and each cell of the grid is a [`RunConfig`] with one value per list.

use crate::error::{Error, Result};
use crate::run::config::{canonical_path, RunConfig};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// One trace of an experiment.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// Path of the trace, relative to the experiment file; `$NAME`, `${NAME}` and
    /// `${NAME:-default}` name environment variables ([`TraceSpec::expanded_path`]).
    pub path: PathBuf,
    /// Format name; the experiment's `format`, else detected, when absent.
    pub format: Option<String>,
    /// Bytes per block; the experiment's `block_size` when absent.
    #[serde(default)]
    pub block_size: Option<u32>,
    /// Name in results (default: the path as written, in its canonical form).
    #[serde(default)]
    pub name: Option<String>,
}

impl TraceSpec {
    /// The path with its environment variables expanded (`${BELADY_TRACES}/lirs/ps.trace.gz`).
    /// A relative value of the variable the path starts with is relative to the current
    /// directory, as in the shell that set it; otherwise a relative result (a path as written, a
    /// `:-default`) stays relative to the experiment file. A variable that is not set and has no
    /// `:-default` is an error naming it.
    pub fn expanded_path(&self) -> std::result::Result<PathBuf, String> {
        let written = self.path.to_string_lossy();
        let leading = leading_variable(&written);
        shellexpand::env_with_context(written.as_ref(), |name| {
            std::env::var(name).map(|value| {
                let relative = !value.is_empty() && Path::new(&value).is_relative();
                Some(match std::env::current_dir() {
                    Ok(cwd) if relative && leading == Some(name) => {
                        cwd.join(&value).to_string_lossy().into_owned()
                    }
                    _ => value,
                })
            })
        })
        .map(|p| PathBuf::from(p.into_owned()))
        .map_err(|e| {
            format!(
                "[[trace]] path \"{written}\": ${} is {} (set it, or write ${{{}:-DIR}} for a default)",
                e.var_name,
                match e.cause {
                    std::env::VarError::NotPresent => "not set",
                    std::env::VarError::NotUnicode(_) => "not valid UTF-8",
                },
                e.var_name
            )
        })
    }
}

/// The name of the variable `path` starts with (`$NAME`, `${NAME}`, `${NAME:-...}`), if any.
pub(super) fn leading_variable(path: &str) -> Option<&str> {
    let rest = path.strip_prefix('$')?;
    let rest = rest.strip_prefix('{').unwrap_or(rest);
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// An experiment: its name, store and traces, and the runs' configuration whose lists span the
/// grid.
#[derive(Clone, Debug)]
pub struct Experiment {
    /// Name stored with every row.
    pub name: String,
    /// Results store (relative to the experiment file).
    pub store: Option<PathBuf>,
    /// The traces (`[[trace]]` tables).
    pub traces: Vec<TraceSpec>,
    /// Every other key, as `belady sim --config` reads it. `policies` is empty when the
    /// experiment names none (then only `levels` are run).
    pub run: RunConfig,
}

/// Keys of experiment files written before sweeps took `sim`'s names, and their names now.
const RENAMED: &[(&str, &str)] = &[
    ("sizes", "cache_sizes"),
    ("disks", "disk"),
    ("placements", "placement"),
];

impl Experiment {
    /// Parses an experiment; `origin` (the file name) prefixes every error.
    pub fn from_toml(text: &str, origin: &str) -> Result<Experiment> {
        let table: toml::Table = toml::from_str(text).map_err(|e| Error::Parse {
            path: origin.to_string(),
            line: e
                .span()
                .map_or(0, |s| text[..s.start].matches('\n').count() as u64 + 1),
            msg: crate::error::brief(e.message()),
        })?;
        let value = serde_json::to_value(table).map_err(|e| Error::Parse {
            path: origin.to_string(),
            line: 0,
            msg: e.to_string(),
        })?;
        Experiment::from_value(value, origin, Some(text))
    }

    /// Parses an experiment given as JSON with the TOML's structure (what Python passes).
    pub fn from_json(text: &str, origin: &str) -> Result<Experiment> {
        let value: Value = serde_json::from_str(text).map_err(|e| Error::Parse {
            path: origin.to_string(),
            line: e.line() as u64,
            msg: crate::error::brief(&e.to_string()),
        })?;
        Experiment::from_value(value, origin, None)
    }

    /// Reads and parses the experiment file at `path`.
    pub fn load(path: &Path) -> Result<Experiment> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Experiment::from_toml(&text, &path.display().to_string())
    }

    /// The experiment from its keys; `text` (the TOML) locates a bad key's line.
    fn from_value(value: Value, origin: &str, text: Option<&str>) -> Result<Experiment> {
        let line_of = |key: &str| -> u64 {
            let Some(text) = text else { return 0 };
            text.lines()
                .position(|l| {
                    let l = l.trim_start();
                    l.strip_prefix(key)
                        .is_some_and(|rest| rest.trim_start().starts_with('='))
                        || l.starts_with(&format!("[[{key}]]"))
                })
                .map_or(0, |i| i as u64 + 1)
        };
        // A value echoed in a message may be long or span lines: one line, cut.
        let bad = |key: &str, msg: String| Error::Parse {
            path: origin.to_string(),
            line: line_of(key),
            msg: crate::error::brief(&msg),
        };
        let Value::Object(mut map) = value else {
            return Err(bad("", "an experiment is a table of keys".into()));
        };
        let text_key = |map: &mut Map<String, Value>, key: &str| -> Result<Option<String>> {
            match map.remove(key) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s)),
                Some(other) => Err(bad(key, format!("`{key}` is a string, not {other}"))),
            }
        };
        let name = text_key(&mut map, "name")?.unwrap_or_default();
        let store = text_key(&mut map, "store")?.map(PathBuf::from);
        let traces: Vec<TraceSpec> = match map.remove("trace") {
            None => Vec::new(),
            Some(v) => serde_json::from_value(v)
                .map_err(|e| bad("trace", format!("[[trace]]: {}", short(&e.to_string()))))?,
        };
        // Older files' names still work; a file may not give both.
        for (old, new) in RENAMED {
            if let Some(v) = map.remove(*old) {
                if map.contains_key(*new) {
                    return Err(bad(
                        old,
                        format!("`{old}` is the old name of `{new}`: give one of them"),
                    ));
                }
                map.insert(new.to_string(), v);
            }
        }
        // `placement` is a list in an experiment, a comma-separated text in `sim`.
        if let Some(Value::Array(items)) = map.get("placement") {
            let joined: Vec<String> = items
                .iter()
                .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                .collect();
            map.insert("placement".into(), Value::String(joined.join(",")));
        }
        // A trace path naming an unset variable is refused here, on its own line.
        for t in &traces {
            t.expanded_path().map_err(|msg| Error::Parse {
                path: origin.to_string(),
                line: text
                    .and_then(|text| line_holding(text, &t.path.to_string_lossy()))
                    .unwrap_or(0),
                msg,
            })?;
        }
        let named_policies = map.contains_key("policies");
        let mut run: RunConfig =
            serde_json::from_value(Value::Object(map.clone())).map_err(|e| {
                // The key at fault: the first that does not read on its own.
                let key = map
                    .iter()
                    .find(|(k, v)| {
                        let one = Map::from_iter([((*k).clone(), (*v).clone())]);
                        serde_json::from_value::<RunConfig>(Value::Object(one)).is_err()
                    })
                    .map(|(k, _)| k.clone())
                    .unwrap_or_default();
                let msg = e.to_string();
                let msg = match msg.split_once(", expected one of") {
                    Some((head, _)) => format!(
                        "{head} (`belady help sweeps` and `belady sim --print-config` list the keys)"
                    ),
                    None if !key.is_empty() => format!("`{key}`: {msg}"),
                    None => msg,
                };
                let written = RENAMED
                    .iter()
                    .find(|(old, new)| *new == key && text.is_some_and(|t| t.contains(old)))
                    .map_or(key.as_str(), |(old, _)| old);
                bad(written, msg)
            })?;
        if !named_policies {
            run.policies.clear();
        }
        let grid = !run.policies.is_empty() && !run.cache_sizes.is_empty();
        if traces.is_empty() || (!grid && run.levels.is_empty()) {
            return Err(Error::config(
                "experiment",
                origin,
                "needs at least one [[trace]], and one policy and one cache size or one of `levels`",
            ));
        }
        Ok(Experiment {
            name,
            store,
            traces,
            run,
        })
    }

    /// The experiment with every name in its one spelling ([`RunConfig::normalized`]), so two
    /// spellings of one run get one key.
    pub(super) fn normalized(&self) -> Result<Experiment> {
        Ok(Experiment {
            run: self.run.normalized()?,
            traces: self
                .traces
                .iter()
                .map(|t| TraceSpec {
                    path: canonical_path(&t.path),
                    ..t.clone()
                })
                .collect(),
            ..self.clone()
        })
    }
}

/// The 1-based number of the first line of `text` holding `needle`.
fn line_holding(text: &str, needle: &str) -> Option<u64> {
    text.lines()
        .position(|l| l.contains(needle))
        .map(|i| i as u64 + 1)
}

/// A serde message without its position (the experiment's line is given instead).
fn short(msg: &str) -> String {
    msg.split(" at line ").next().unwrap_or(msg).to_string()
}
