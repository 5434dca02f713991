//! The binary carries its documentation: `belady help TOPIC` prints each docs/ page from any
//! directory, and nothing the CLI prints points at a checkout path (docs/...), which an
//! installed `belady` does not have.

mod common;
use common::*;

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every Markdown page under docs/, as (topic, path).
fn doc_pages() -> Vec<(String, PathBuf)> {
    let mut pages = Vec::new();
    for dir in [root().join("docs"), root().join("docs/policies")] {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                let topic = path.file_stem().unwrap().to_string_lossy().into_owned();
                pages.push((topic, path));
            }
        }
    }
    pages
}

/// `belady help ARGS` run from a directory that holds no docs.
fn help_elsewhere(args: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_belady"))
        .arg("help")
        .args(args)
        .current_dir(dir.path())
        .output()
        .unwrap()
}

#[test]
fn every_docs_page_is_a_help_topic_and_prints_from_anywhere() {
    let listing = ok(&help_elsewhere(&[]));
    for (topic, path) in doc_pages() {
        assert!(
            listing.contains(&format!("\n  {topic} ")),
            "`belady help` does not list {topic}"
        );
        let shown = ok(&help_elsewhere(&[&topic]));
        let text = std::fs::read_to_string(&path).unwrap();
        // Links are rewritten to topics; every other line is the page's.
        let plain: Vec<&str> = text.lines().filter(|l| !l.contains(".md")).collect();
        let shown_lines: std::collections::HashSet<&str> = shown.lines().collect();
        let missing: Vec<&&str> = plain
            .iter()
            .filter(|l| !shown_lines.contains(**l))
            .collect();
        assert!(missing.is_empty(), "belady help {topic} lacks {missing:?}");
    }
}

#[test]
fn help_names_a_command_or_suggests_one() {
    let sweep = ok(&help_elsewhere(&["sweep"]));
    assert!(sweep.contains("Usage: belady sweep"), "{sweep}");
    assert!(
        sweep.contains("belady help sweeps"),
        "sweep --help points to its page: {sweep}"
    );
    let err = assert_error(
        &help_elsewhere(&["sweps"]),
        "no help topic or command 'sweps'",
    );
    assert!(err.contains("did you mean 'sweeps'"), "{err}");
}

/// String literals in `source` (outside comments and include_str!) that name a docs/ path.
fn checkout_paths(source: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in source.lines() {
        let code = line.trim_start();
        if code.starts_with("//") || code.contains("include_str!") {
            continue;
        }
        // The parts inside double quotes.
        for (i, part) in code.split('"').enumerate() {
            if i % 2 == 1 && part.contains("docs/") && !part.contains("../docs/") {
                found.push(line.trim().to_string());
            }
        }
    }
    found
}

#[test]
fn nothing_shown_to_users_points_into_the_checkout() {
    let mut found = Vec::new();
    for dir in ["crates/belady-cli/src", "crates/belady-core/src"] {
        let mut stack = vec![root().join(dir)];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs")
                    // The page printer maps docs/ paths to topics.
                    && !path.ends_with("help_cmd.rs")
                {
                    let text = std::fs::read_to_string(&path).unwrap();
                    // Tests may name the docs they check.
                    let text = text.split("#[cfg(test)]").next().unwrap();
                    for hit in checkout_paths(text) {
                        found.push(format!("{}: {hit}", path.display()));
                    }
                }
            }
        }
    }
    assert!(found.is_empty(), "user-facing docs/ paths: {found:#?}");
    // The help texts themselves.
    let mut texts = vec![ok(&belady(&["--help"]))];
    for command in [
        "sim",
        "sweep",
        "demo",
        "mrc",
        "report",
        "record",
        "calibrate",
        "policies",
    ] {
        texts.push(ok(&belady(&[command, "--help"])));
    }
    for text in texts {
        assert!(!text.contains("docs/"), "{text}");
        assert!(!text.contains("README"), "{text}");
    }
}
