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

/// Every page of docs/ (listed by build.rs when the binary is built).
pub const PAGES: &[Page] = include!(concat!(env!("OUT_DIR"), "/pages.rs"));

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
