//! The lists of names users see (trace formats, read-ahead engines, disk models, policies) come
//! from one place: `--help`, the errors and the docs each list exactly the core's constants.

mod common;
use common::*;

use belady_core::disk::{PRESETS, PRESET_ALIASES};
use belady_core::prefetch::PREFETCH_NAMES;
use belady_core::trace::FORMAT_NAMES;
use belady_core::POLICIES;
use std::collections::BTreeSet;

fn set<'a>(names: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
    names.into_iter().map(str::to_string).collect()
}

/// The help paragraph of `option` in `belady ARGS --help`, on one line.
fn option_help(args: &[&str], option: &str) -> String {
    let mut full: Vec<&str> = args.to_vec();
    full.push("--help");
    let help = ok(&belady(&full));
    // The option's own line (not the usage's), then its wrapped help.
    let mut lines = help
        .lines()
        .skip_while(|l| !(l.trim_start().starts_with('-') && l.contains(&format!("{option} <"))));
    let first = lines
        .next()
        .unwrap_or_else(|| panic!("{option} in {args:?} --help"));
    let rest = lines.take_while(|l| !l.trim_start().starts_with('-') && !l.trim().is_empty());
    std::iter::once(first)
        .chain(rest)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The names listed between `start` and `end` in `text`, split at commas and semicolons.
fn listed(text: &str, start: &str, end: &str) -> BTreeSet<String> {
    let from = text
        .find(start)
        .unwrap_or_else(|| panic!("'{start}' in {text}"))
        + start.len();
    let to = from
        + text[from..]
            .find(end)
            .unwrap_or_else(|| panic!("'{end}' in {text}"));
    text[from..to]
        .split([',', ';'])
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

/// The first column's backquoted names of the Markdown table that starts with `header`.
fn doc_table(page: &str, header: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(format!("{}/../../docs/{page}", env!("CARGO_MANIFEST_DIR")))
        .unwrap();
    let start = text
        .find(header)
        .unwrap_or_else(|| panic!("{page} has a table '{header}'"));
    text[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .flat_map(|l| {
            let cell = l.split('|').nth(1).unwrap_or_default();
            cell.split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

fn sample_trace() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let t = write(dir.path(), "t.lirs", "1\n2\n3\n1\n");
    (dir, t)
}

#[test]
fn formats_in_help_errors_and_docs_are_the_readers() {
    let expected = set(FORMAT_NAMES.iter().copied());
    for command in ["sim", "mrc", "stats", "convert", "distances"] {
        let help = option_help(&[command], "--format");
        assert_eq!(
            listed(&help, "Trace format:", "."),
            expected,
            "{command} --help"
        );
    }
    let (_dir, t) = sample_trace();
    let err = assert_error(
        &belady(&["sim", &t, "-c", "2", "--format", "nope"]),
        "expected one of",
    );
    assert_eq!(listed(&err, "expected one of ", "\n"), expected);
    assert_eq!(doc_table("formats.md", "| `--format` |"), expected);
}

#[test]
fn read_ahead_engines_in_help_errors_and_docs_are_the_engines() {
    let expected = set(PREFETCH_NAMES.iter().copied());
    let help = option_help(&["sim"], "--prefetch");
    assert_eq!(listed(&help, "comma-separated:", "; add"), expected);
    assert!(
        help.contains("block traces"),
        "--prefetch works on block traces too: {help}"
    );
    let (_dir, t) = sample_trace();
    let err = assert_error(
        &belady(&["sim", &t, "-c", "2", "--prefetch", "nope"]),
        "expected one of",
    );
    assert_eq!(listed(&err, "expected one of ", "\n"), expected);
    assert_eq!(doc_table("readahead.md", "| name | models |"), expected);
}

#[test]
fn disk_models_in_help_errors_and_docs_are_the_presets() {
    let presets = set(PRESETS.iter().map(|p| p.0));
    let aliases: BTreeSet<String> = PRESET_ALIASES
        .iter()
        .map(|(a, p)| format!("{a} means {p}"))
        .collect();
    let expected: BTreeSet<String> = presets.union(&aliases).cloned().collect();
    for (args, option) in [(&["sim"][..], "--disk"), (&["disk"][..], "--model")] {
        let help = option_help(args, option);
        assert_eq!(
            listed(&help, "preset (", ")"),
            expected,
            "{args:?} {option}"
        );
    }
    let (_dir, t) = sample_trace();
    let err = assert_error(
        &belady(&["sim", &t, "-c", "2", "--disk", "nope"]),
        "expected a preset",
    );
    assert_eq!(listed(&err, "expected a preset (", ")"), expected);
    // Every name the simulator takes works and is in the docs' table.
    let documented = doc_table("disk.md", "| preset | model |");
    for name in PRESETS
        .iter()
        .map(|p| p.0)
        .chain(PRESET_ALIASES.iter().map(|a| a.0))
    {
        assert!(documented.contains(name), "docs/disk.md lacks {name}");
        json_rows(&belady(&[
            "sim",
            &t,
            "-c",
            "2",
            "--prefetch",
            "none",
            "--disk",
            name,
            "--json",
        ]));
    }
    assert_eq!(documented.len(), PRESETS.len() + PRESET_ALIASES.len());
}

#[test]
fn policies_in_help_errors_and_the_readme_count_are_the_registry() {
    let expected = set(POLICIES.iter().map(|p| p.name));
    for command in ["sim", "mrc"] {
        let help = option_help(&[command], "--policy");
        assert_eq!(
            listed(&help, "Comma-separated policies:", "("),
            expected,
            "{command}"
        );
    }
    let (_dir, t) = sample_trace();
    let err = assert_error(
        &belady(&["sim", &t, "-c", "2", "-p", "nope"]),
        "expected one of",
    );
    assert_eq!(listed(&err, "expected one of ", "\n"), expected);
    // The README says how many there are, in words.
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let words = [
        "",
        "One",
        "Two",
        "Three",
        "Four",
        "Five",
        "Six",
        "Seven",
        "Eight",
        "Nine",
        "Ten",
        "Eleven",
        "Twelve",
        "Thirteen",
        "Fourteen",
        "Fifteen",
        "Sixteen",
        "Seventeen",
        "Eighteen",
        "Nineteen",
        "Twenty",
    ];
    let n = POLICIES.len();
    let word = if n <= 20 {
        words[n].to_string()
    } else {
        format!("Twenty-{}", words[n - 20].to_lowercase())
    };
    assert!(
        readme.contains(&format!("{word} policies")),
        "README should say '{word} policies'"
    );
}

#[test]
fn sim_usage_and_help_say_the_cache_size_is_required() {
    let help = ok(&belady(&["sim", "--help"]));
    let usage = help.split("\n\n").nth(1).unwrap();
    assert!(usage.contains("--cache-size <SIZES> <TRACE>"), "{usage}");
    let c = option_help(&["sim"], "--cache-size");
    assert!(c.contains("Required unless --levels or --config"), "{c}");
}
