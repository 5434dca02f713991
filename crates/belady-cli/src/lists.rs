//! Help texts that list names (trace formats, read-ahead engines, disk models, policies), built
//! from the constants the core's errors list, so `--help`, the errors and the docs (checked by
//! tests/one_source.rs) cannot drift apart.

use belady_core::disk::preset_list;
use belady_core::prefetch::clusterfetch::COMPONENT;
use belady_core::prefetch::PREFETCH_NAMES;
use belady_core::trace::FORMAT_NAMES;
use belady_core::POLICIES;

/// The registered policy names, comma-separated.
pub fn policy_names() -> String {
    POLICIES
        .iter()
        .map(|p| p.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `--format`'s help.
pub fn format_help() -> String {
    format!(
        "Trace format: {}. Guessed from the content or name when absent (`belady help formats`)",
        FORMAT_NAMES.join(", ")
    )
}

/// `--prefetch`'s help (sim's: a comma-separated list).
pub fn prefetch_help() -> String {
    format!(
        "Read-ahead engines, comma-separated: {}; add `+{COMPONENT}` for ClusterFetch on top \
         (`{COMPONENT}` alone: no read-ahead). File-level traces read ahead per file; block \
         traces along each run of consecutive blocks (`belady help readahead`)",
        PREFETCH_NAMES.join(", ")
    )
}

/// `--disk`'s help.
pub fn disk_help() -> String {
    format!(
        "Device models for timing, comma-separated: a preset ({}) or a TOML file (`belady help disk`)",
        preset_list()
    )
}

/// `--policy`'s help.
pub fn policy_help() -> String {
    format!(
        "Comma-separated policies: {} (`belady policies` describes each, with its aliases)",
        policy_names()
    )
}
