//! The shared AccuSim inputs read the same in both forms and have the counts their README lists.

use belady_core::trace::accusim::{self, write_binary};
use belady_core::trace::file::FileEventKind;
use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

fn inputs() -> Option<PathBuf> {
    let root = std::env::var("BELADY_TRACES")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces"));
    let dir = root.parent()?.join("oracles/accusim/inputs");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: AccuSim inputs not found at {}", dir.display());
        None
    }
}

#[test]
fn both_forms_agree_and_match_the_readme_table() {
    let Some(dir) = inputs() else { return };
    // trace, read calls, block references, unique blocks, files
    let table = [
        ("micro-tiny", 7, 14, 10, 1),
        ("micro-rnd1", 5, 5, 5, 1),
        ("micro-seq1", 120, 120, 120, 1),
        ("seqloop", 4895, 9650, 1930, 60),
        ("lirs-cpp", 9047, 9047, 1223, 1),
    ];
    for (name, calls, refs, unique, files) in table {
        let bin = accusim::load(&dir.join(format!("{name}.bin.gz")), true).unwrap();
        let text = accusim::load(&dir.join(format!("{name}.evt.gz")), false).unwrap();
        assert_eq!(bin.events, text.events, "{name}: binary and text differ");
        let mut n_calls = 0;
        let mut n_refs = 0;
        let mut blocks = BTreeSet::new();
        let mut inodes = BTreeSet::new();
        for e in &bin.events {
            if let FileEventKind::Read { .. } = e.kind {
                n_calls += 1;
                inodes.insert(e.file);
                if let Some((_, first, count)) = e.blocks(4096) {
                    n_refs += count;
                    blocks.extend((first..first + count).map(|b| (e.file, b)));
                }
            }
        }
        assert_eq!(
            (n_calls, n_refs, blocks.len(), inodes.len()),
            (calls, refs, unique, files),
            "{name}"
        );
    }
}

#[test]
fn binary_re_encodes_byte_for_byte() {
    let Some(dir) = inputs() else { return };
    for name in ["micro-tiny", "micro-rnd1", "seqloop"] {
        let path = dir.join(format!("{name}.bin.gz"));
        let mut original = Vec::new();
        flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap())
            .read_to_end(&mut original)
            .unwrap();
        let mut again = Vec::new();
        for item in accusim::calls(&path, true).unwrap() {
            write_binary(&item.unwrap().0, &mut again).unwrap();
        }
        assert!(again == original, "{name}: re-encoding differs");
    }
}

/// Without prefetching, LRU and OPT counts do not depend on AccuSim's departures, so block-level
/// runs over the flattened demand reads must equal every such row of the oracle.
#[test]
fn no_prefetch_lru_and_opt_rows_match_the_oracle() {
    use belady_core::trace::{Format, OpFilter, ReadOptions};
    use belady_core::{run_one, BlockTrace, PolicySpec, PreparedTrace};
    let Some(dir) = inputs() else { return };
    let table = std::fs::read_to_string(dir.parent().unwrap().join("untimed.tsv")).unwrap();
    let mut header = Vec::new();
    let mut checked = 0;
    let mut traces = std::collections::BTreeMap::new();
    for line in table.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        if header.is_empty() {
            header = cols.iter().map(|c| c.to_string()).collect();
            continue;
        }
        let col = |name: &str| cols[header.iter().position(|h| h == name).unwrap()];
        let policy = match (col("scheme"), col("prefetch")) {
            ("LRU", "0") => "lru",
            ("OPT", "0") => "opt",
            _ => continue,
        };
        let trace = traces.entry(col("trace").to_string()).or_insert_with(|| {
            let path = dir.join(format!("{}.bin.gz", col("trace")));
            PreparedTrace::new(
                BlockTrace::load(
                    &path,
                    &Format::Accusim,
                    &ReadOptions::default(),
                    OpFilter::Read,
                )
                .unwrap(),
            )
        });
        let size: usize = col("cache_blocks").parse().unwrap();
        let r = run_one(&PolicySpec::parse(policy).unwrap(), trace, size).unwrap();
        let want = (
            col("accesses").parse().unwrap(),
            col("hits").parse().unwrap(),
            col("misses").parse().unwrap(),
        );
        assert_eq!((r.requests, r.hits, r.misses), want, "{line}");
        checked += 1;
    }
    assert_eq!(checked, 2 * 14, "rows checked");
}
