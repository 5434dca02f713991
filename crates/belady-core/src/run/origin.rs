//! Where a configuration came from, and its errors said in that place's words. The core names
//! configuration keys (`max_request`, and other keys inside a message as
//! [`crate::error::key_ref`]s); [`shown`] phrases one error for the place the user wrote the value:
//! a command-line flag (`invalid --max-request '5%'`), a configuration or experiment file's key
//! with the file and line (`run.toml:4: invalid `max_request` '5%'`), or a Python keyword
//! argument (`invalid max_request '5%'`). One error type, one phrasing per place: no message can
//! name a flag to a file's author, or a key to someone who typed flags.

use crate::error::{phrase_keys, Error};

/// Where the configuration of a run came from.
#[derive(Clone, Copy, Debug)]
pub enum Origin<'a> {
    /// Command-line flags.
    Flags,
    /// A file's keys (`sim --config`, an experiment): its name and, to find a key's line, its
    /// text.
    File {
        /// The file as the user named it.
        path: &'a str,
        /// Its text, when at hand.
        text: Option<&'a str>,
    },
    /// Python keyword arguments (or the keys of the dict `belady.run` takes: the same names).
    Python,
}

/// Keys of experiment files written before sweeps took `sim`'s names, and their names now.
pub const OLD_KEYS: &[(&str, &str)] = &[
    ("sizes", "cache_sizes"),
    ("disks", "disk"),
    ("placements", "placement"),
];

/// `error` as one line for the user of `origin`.
pub fn shown(error: &Error, origin: &Origin) -> String {
    let mut parts = Vec::new();
    let mut e = error;
    while let Error::Within { what, error } = e {
        parts.push(what.clone());
        e = error;
    }
    let Error::Config { field, value, msg } = e else {
        parts.push(crate::error::plain_keys(&e.to_string()));
        return parts.join(": ");
    };
    let value = crate::error::escape_control(value);
    let msg = crate::error::escape_control(msg);
    match origin {
        Origin::Flags => {
            let msg = phrase_keys(&msg, phrase_flag);
            parts.push(format!("invalid {} '{value}': {msg}", flag_name(field)));
            parts.join(": ")
        }
        Origin::Python => {
            let msg = phrase_keys(&msg, phrase_keyword);
            parts.push(format!("invalid {} '{value}': {msg}", keyword_name(field)));
            parts.join(": ")
        }
        Origin::File { path, text } => {
            let json = !path.ends_with(".toml");
            let msg = phrase_keys(&msg, |k, v| phrase_file_key(k, v, json));
            let key = config_key(field);
            let place = match text.and_then(|t| line_of(t, &key)) {
                Some(line) => format!("{path}:{line}"),
                None => path.to_string(),
            };
            let named = if key.contains(' ') {
                key
            } else {
                format!("`{key}`")
            };
            parts.push(format!("invalid {named} '{value}': {msg}"));
            format!("{place}: {}", parts.join(": "))
        }
    }
}

/// Whether `value` is written bare in TOML and JSON (a number or a boolean).
fn bare(value: &str) -> bool {
    value == "true" || value == "false" || value.parse::<f64>().is_ok()
}

/// A key reference as a flag: `--levels`, `--cache-model blocks`, `--warm`.
fn phrase_flag(key: &str, value: Option<&str>) -> String {
    match value {
        None | Some("true") => flag_name(key),
        Some(v) => format!("{} {v}", flag_name(key)),
    }
}

/// A key reference as a Python keyword: `levels`, `cache_model="blocks"`.
fn phrase_keyword(key: &str, value: Option<&str>) -> String {
    let name = keyword_name(key);
    match value {
        None => name,
        Some("true") => format!("{name}=True"),
        Some(v) if bare(v) => format!("{name}={v}"),
        Some(v) => format!("{name}=\"{v}\""),
    }
}

/// A key reference as a file's key: `` `levels` ``, `` `cache_model = "blocks"` `` (TOML) or
/// `` `"cache_model": "blocks"` `` (JSON).
fn phrase_file_key(key: &str, value: Option<&str>, json: bool) -> String {
    let key = config_key(key);
    let Some(v) = value else {
        return format!("`{key}`");
    };
    let v = if bare(v) {
        v.to_string()
    } else {
        format!("\"{v}\"")
    };
    match json {
        true => format!("`\"{key}\": {v}`"),
        false => format!("`{key} = {v}`"),
    }
}

/// The line (from 1) of `text` that sets `key` (or one of its older names), if one does.
fn line_of(text: &str, key: &str) -> Option<usize> {
    let names = std::iter::once(key).chain(
        OLD_KEYS
            .iter()
            .filter(|(_, new)| *new == key)
            .map(|(old, _)| *old),
    );
    let names: Vec<&str> = names.collect();
    text.lines()
        .position(|line| {
            let l = line.trim_start();
            names.iter().any(|k| {
                let toml = l
                    .strip_prefix(k)
                    .is_some_and(|rest| rest.trim_start().starts_with('='));
                let json = l.contains(&format!("\"{k}\"")) && {
                    let after = l.split(&format!("\"{k}\"")).nth(1).unwrap_or("");
                    after.trim_start().starts_with(':')
                };
                toml || json
            })
        })
        .map(|i| i + 1)
}

/// The configuration key a field names: `cache_size` (a size's own errors) is the list
/// `cache_sizes`, `--max-request` is `max_request`; phrases are kept.
pub fn config_key(field: &str) -> String {
    if field.contains(' ') {
        return field.to_string();
    }
    match field.trim_start_matches('-').replace('-', "_").as_str() {
        "cache_size" => "cache_sizes".into(),
        "policy" => "policies".into(),
        "param" => "params".into(),
        "compat_rule" => "compat_rules".into(),
        k => k.to_string(),
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
    config_key(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{key_is, key_ref};

    fn levels_error() -> Error {
        Error::config(
            "levels",
            "c:lru:10,s:lru:20",
            format!(
                "this trace is simulated as objects: add {}, or leave out {}",
                key_is("cache_model", "blocks"),
                key_ref("levels")
            ),
        )
    }

    #[test]
    fn keys_are_phrased_as_flags_and_keywords() {
        assert_eq!(flag_name("max_request"), "--max-request");
        assert_eq!(flag_name("params"), "--param");
        assert_eq!(flag_name("read-ahead window"), "read-ahead window");
        assert_eq!(keyword_name("max_request"), "max_request");
        assert_eq!(keyword_name("--cache-size"), "cache_sizes");
        assert_eq!(keyword_name("--param"), "params");
        assert_eq!(config_key("cache_size"), "cache_sizes");
    }

    #[test]
    fn one_error_is_said_in_the_words_of_where_the_value_came_from() {
        let e = levels_error();
        assert_eq!(
            shown(&e, &Origin::Flags),
            "invalid --levels 'c:lru:10,s:lru:20': this trace is simulated as objects: add \
             --cache-model blocks, or leave out --levels"
        );
        assert_eq!(
            shown(&e, &Origin::Python),
            "invalid levels 'c:lru:10,s:lru:20': this trace is simulated as objects: add \
             cache_model=\"blocks\", or leave out levels"
        );
        let text = "trace = \"t\"\nlevels = [\"c:lru:10,s:lru:20\"]\n";
        assert_eq!(
            shown(
                &e,
                &Origin::File {
                    path: "run.toml",
                    text: Some(text)
                }
            ),
            "run.toml:2: invalid `levels` 'c:lru:10,s:lru:20': this trace is simulated as \
             objects: add `cache_model = \"blocks\"`, or leave out `levels`"
        );
        let json = "{\n  \"trace\": \"t\",\n  \"levels\": [\"x\"]\n}";
        let file = Origin::File {
            path: "run.json",
            text: Some(json),
        };
        let shown_json = shown(&e, &file);
        assert!(
            shown_json.starts_with("run.json:3: invalid `levels`")
                && shown_json.contains("`\"cache_model\": \"blocks\"`"),
            "{shown_json}"
        );
        // The plain message (no front end) reads as keys, and carries no marker.
        let plain = e.to_string();
        assert!(plain.contains("`cache_model = \"blocks\"`"), "{plain}");
        assert!(!plain.contains(crate::error::KEY_OPEN), "{plain}");
    }

    #[test]
    fn a_part_of_a_whole_is_named_before_the_value() {
        let e = Error::config("cache_size", "0", "must be at least one block")
            .within("run lru at 0 on t.lirs");
        assert_eq!(
            shown(&e, &Origin::Flags),
            "run lru at 0 on t.lirs: invalid --cache-size '0': must be at least one block"
        );
        let text = "policies = [\"lru\"]\nsizes = [\"0\"]\n";
        assert_eq!(
            shown(
                &e,
                &Origin::File {
                    path: "e.toml",
                    text: Some(text)
                }
            ),
            "e.toml:2: run lru at 0 on t.lirs: invalid `cache_sizes` '0': must be at least one block"
        );
    }
}
