//! How a stored run's configuration is shown and grouped: its fields as text, the label of its
//! policy or hierarchy, and its setting (every field that is not the line's, the trace's or the
//! axis'), so that runs differing in anything are never mixed. `belady report` groups its sections
//! and `belady compare` its comparisons with these.
//!
//! A configuration is read as its stored JSON, not a fixed list of columns: a field added to the
//! configuration later tells runs apart without a change here.

use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Configuration fields that name the line a run belongs to.
pub const SERIES_FIELDS: &[&str] = &["policies", "params", "levels", "placement"];
/// A configuration value as shown; the trace hash is cut to 12 hex digits (enough to tell files
/// apart at a glance; the full hash stays in the details line).
pub fn show(field: &str, v: &Value, short: bool) -> String {
    match v {
        Value::String(s) if field == "trace_hash" && short => s.chars().take(12).collect(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|i| show(field, i, short))
            .collect::<Vec<_>>()
            .join(" "),
        Value::Null => "-".into(),
        other => other.to_string(),
    }
}

/// A configuration field as shown (empty when absent).
pub fn text(config: &Map<String, Value>, field: &str) -> String {
    config
        .get(field)
        .map_or_else(String::new, |v| show(field, v, false))
}

/// A run's setting: every configuration field as shown, but those naming its line
/// ([`SERIES_FIELDS`]) and those in `leave_out` (`belady compare` leaves out the trace's own
/// fields and the cache size, `belady report` the read-ahead it draws one chart each for).
pub fn setting_of(config: &Map<String, Value>, leave_out: &[&[&str]]) -> BTreeMap<String, String> {
    config
        .iter()
        .filter(|(k, _)| !SERIES_FIELDS.contains(&k.as_str()))
        .filter(|(k, _)| !leave_out.iter().any(|l| l.contains(&k.as_str())))
        .map(|(k, v)| (k.clone(), show(k, v, false)))
        .collect()
}

/// The line's label: the policy as written, a hierarchy by its levels, with any settings.
pub fn series_label(config: &Map<String, Value>) -> String {
    let levels = text(config, "levels");
    let mut label = if levels.is_empty() {
        text(config, "policies")
    } else {
        let placement = text(config, "placement");
        if placement.is_empty() {
            levels
        } else {
            format!("{levels} ({placement})")
        }
    };
    let params = text(config, "params");
    if !params.is_empty() {
        label.push_str(&format!(" [{params}]"));
    }
    label
}
