//! `belady help [TOPIC]`: the documentation pages (docs/*.md) compiled into the binary, so an
//! installed `belady` shows them from any directory; a command's name shows its `--help`.

use anyhow::{bail, Result};
use clap::Command;

/// One page: its topic name and its Markdown text.
pub struct Page {
    /// The name `belady help` takes (the file's name without `.md`).
    pub topic: &'static str,
    /// The page's path under docs/.
    pub path: &'static str,
    /// The page as written.
    pub text: &'static str,
}

macro_rules! page {
    ($topic:literal, $path:literal) => {
        Page {
            topic: $topic,
            path: $path,
            text: include_str!(concat!("../../../docs/", $path)),
        }
    };
}

/// Every page of docs/ (tests/help_topics.rs checks that none is missing).
pub const PAGES: &[Page] = &[
    page!("accusim", "accusim.md"),
    page!("architecture", "architecture.md"),
    page!("benchmarks", "benchmarks.md"),
    page!("clusterfetch", "clusterfetch.md"),
    page!("demo", "demo.md"),
    page!("disk", "disk.md"),
    page!("file-level", "file-level.md"),
    page!("formats", "formats.md"),
    page!("libcachesim-traces", "libcachesim-traces.md"),
    page!("limits", "limits.md"),
    page!("mrc", "mrc.md"),
    page!("multilevel", "multilevel.md"),
    page!("output", "output.md"),
    page!("policies", "policies.md"),
    page!("python", "python.md"),
    page!("readahead", "readahead.md"),
    page!("report", "report.md"),
    page!("sweeps", "sweeps.md"),
    page!("workloads", "workloads.md"),
    page!("2q", "policies/2q.md"),
    page!("arc", "policies/arc.md"),
    page!("car", "policies/car.md"),
    page!("clock-pro", "policies/clock-pro.md"),
    page!("fbr", "policies/fbr.md"),
    page!("lirs", "policies/lirs.md"),
    page!("lrfu", "policies/lrfu.md"),
    page!("lru-k", "policies/lru-k.md"),
    page!("mq", "policies/mq.md"),
];

/// The page named `topic`, if any.
pub fn page(topic: &str) -> Option<&'static Page> {
    let topic = topic.trim_end_matches(".md");
    let topic = topic.strip_prefix("docs/").unwrap_or(topic);
    let topic = topic.strip_prefix("policies/").unwrap_or(topic);
    PAGES.iter().find(|p| p.topic == topic)
}

/// A page as the terminal shows it: links to other pages name their `belady help` topic.
pub fn shown(page: &Page) -> String {
    let mut text = page.text.to_string();
    for other in PAGES {
        let file = other.path.rsplit('/').next().unwrap_or(other.path);
        for link in [
            format!("]({})", other.path),
            format!("]({file})"),
            format!("](../{file})"),
        ] {
            text = text.replace(&link, &format!("](belady help {})", other.topic));
        }
        text = text.replace(
            &format!("docs/{}", other.path),
            &format!("`belady help {}`", other.topic),
        );
    }
    text
}

/// `belady help`: the commands and the topics; `belady help TOPIC`: that page, or that
/// command's help.
pub fn run(cli: &mut Command, topic: Option<&str>) -> Result<()> {
    // Built, the subcommands know their full name (`belady sweep`) for their usage lines.
    cli.build();
    let Some(topic) = topic else {
        let mut text = cli.render_long_help().to_string();
        text.push_str("\nDocumentation topics (`belady help TOPIC`):\n");
        for p in PAGES {
            let title = p
                .text
                .lines()
                .find_map(|l| l.strip_prefix("# "))
                .unwrap_or_default();
            text.push_str(&format!("  {:<20}{title}\n", p.topic));
        }
        return crate::emit(&text);
    };
    if let Some(p) = page(topic) {
        let mut text = shown(p);
        if cli.find_subcommand(topic).is_some() {
            text.push_str(&format!("\n(`belady {topic} --help` lists its options.)\n"));
        }
        return crate::emit(&text);
    }
    if let Some(sub) = cli.find_subcommand_mut(topic) {
        let text = sub.render_long_help().to_string();
        return crate::emit(&text);
    }
    let names = PAGES
        .iter()
        .map(|p| p.topic)
        .chain(cli.get_subcommands().map(|c| c.get_name()))
        .collect::<Vec<_>>();
    bail!(
        "no help topic or command '{topic}'{}; topics: {}",
        belady_core::error::did_you_mean(topic, names.iter().copied()),
        PAGES.iter().map(|p| p.topic).collect::<Vec<_>>().join(", ")
    )
}
