//! Lists the documentation pages (docs/*.md, docs/policies/*.md) for `belady help`: every page
//! present at build time is compiled in, so a new page needs no code change.

use std::fmt::Write;
use std::path::Path;

fn main() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    println!("cargo:rerun-if-changed={}", docs.display());
    let mut pages = Vec::new();
    for sub in ["", "policies"] {
        let dir = docs.join(sub);
        println!("cargo:rerun-if-changed={}", dir.display());
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".md"))
            .collect();
        names.sort();
        for name in names {
            let path = if sub.is_empty() {
                name.clone()
            } else {
                format!("{sub}/{name}")
            };
            pages.push((name.trim_end_matches(".md").to_string(), path));
        }
    }
    let mut code = String::from("&[\n");
    for (topic, path) in pages {
        let file = docs.join(&path);
        writeln!(
            code,
            "    Page {{ topic: {topic:?}, path: {path:?}, text: include_str!({:?}) }},",
            file.display().to_string()
        )
        .unwrap();
    }
    code.push_str("]\n");
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("pages.rs");
    std::fs::write(out, code).unwrap();
}
