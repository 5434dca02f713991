//! Streaming simulation of block traces: every run of a grid is fed the same chunks of dense
//! ids as they are read, so memory is bounded by the runs' caches and the unique blocks, not by
//! the trace's length.
//!
//! [`crate::trace::ingest`] turns a trace into a stream of dense ids (straight from a native file, else
//! through a spool); [`run_block_grid`] resolves the grid's cells and hands the stream to the
//! one grid runner (`engine::grid`), which feeds each chunk to every run of a group through the
//! one loop ([`crate::engine::run_loop`]). OPT needs each reference's next use, which streaming
//! cannot know; grids with OPT load the trace whole and run through the same runner from
//! [`crate::engine::run_grid`].
//!
//! The file engine streams too: [`crate::trace::ingest::file_spool`] keeps a file-level trace's events compactly after
//! one parsing pass, and [`crate::engine::file::run_file_grid`] replays them to groups of runs.

use crate::trace::ingest;

use crate::cache::cache_model::{CacheModel, Capacity, LevelSetup};
use crate::cache::size::CacheSize;
use crate::engine::grid::{self, Cell, Levels, Source};
use crate::engine::{needs_next_uses, row, run_grid_with, unit_bytes, PreparedTrace, RunResult};
use crate::error::Result;
use crate::policy::registry::PolicySpec;
use crate::trace::{BlockTrace, Format, OpFilter, ReadOptions};
use std::path::Path;

/// Where a block trace comes from and how to read it.
#[derive(Clone, Copy, Debug)]
pub struct BlockSource<'a> {
    /// The trace file.
    pub path: &'a Path,
    /// Its format (block-level).
    pub format: &'a Format,
    /// Reader settings.
    pub opts: &'a ReadOptions,
    /// Which requests are simulated.
    pub ops: OpFilter,
}

/// The runs of a grid and what was read.
#[derive(Clone, Debug)]
pub struct GridOutput {
    /// One result per policy and size, policy-major.
    pub runs: Vec<RunResult>,
    /// Block references simulated.
    pub references: u64,
    /// Distinct blocks among them.
    pub unique: usize,
    /// The trace's name for reports.
    pub source: String,
}

/// Simulates every policy at every size over a block trace, streaming it once; results come
/// policy-major in the order given, equal to [`crate::engine::run_grid`] over the loaded trace.
pub fn run_block_grid(
    source: &BlockSource,
    specs: &[PolicySpec],
    sizes: &[CacheSize],
) -> Result<GridOutput> {
    run_block_grid_with(source, specs, sizes, &LevelSetup::default())
}

/// [`run_block_grid`] with a cache model and an admission filter.
pub fn run_block_grid_with(
    source: &BlockSource,
    specs: &[PolicySpec],
    sizes: &[CacheSize],
    setup: &LevelSetup,
) -> Result<GridOutput> {
    if specs.iter().any(needs_next_uses) {
        let blocks = BlockTrace::load(source.path, source.format, source.opts, source.ops)?;
        let trace = PreparedTrace::new(blocks);
        return Ok(GridOutput {
            runs: run_grid_with(specs, sizes, &trace, setup)?,
            references: trace.trace.refs.len() as u64,
            unique: trace.unique(),
            source: trace.trace.source.clone(),
        });
    }
    // Sizes are read unless the blocks model is asked for (a native file shows whether it kept
    // them only once opened).
    let explicit = setup.model.as_deref().map(CacheModel::parse).transpose()?;
    let mut feed = if explicit == Some(CacheModel::Blocks) {
        ingest::ingest(source.path, source.format, source.opts, source.ops)?
    } else {
        ingest::ingest_sized(source.path, source.format, source.opts, source.ops)?
    };
    let unique = feed.unique;
    let model = CacheModel::choose(setup.model.as_deref(), feed.has_sizes())?;
    model.check_run(feed.has_sizes(), false, false)?;
    let sized = model == CacheModel::Objects;
    let footprint = feed.size_totals().map(|t| t.footprint);
    let capacities: Vec<Capacity> = sizes
        .iter()
        .map(|s| Capacity::resolve(s, model, unique, feed.block_size, footprint))
        .collect::<Result<_>>()?;
    if capacities.iter().any(|c| c.weighted) {
        specs
            .iter()
            .try_for_each(crate::cache::builder::check_weighs)?;
    }
    let cells: Vec<Cell> = specs
        .iter()
        .flat_map(|s| capacities.iter().map(move |&c| (s, c)))
        .collect();
    let levels = Levels {
        universe: unique,
        setup,
        unit_bytes: unit_bytes(model, feed.block_size),
    };
    let source = Source::Stream {
        feed: &mut feed,
        path: source.path,
        sized,
    };
    let stats = grid::run_cells(source, &cells, levels)?;
    // Cells are policy-major: the sizes repeat for each policy.
    let given = specs.iter().flat_map(|_| sizes.iter());
    let runs = cells
        .iter()
        .zip(given)
        .zip(&stats)
        .map(|((&(spec, capacity), size), stats)| {
            row(
                &feed.source,
                spec,
                size,
                &capacity,
                model,
                setup,
                feed.block_size,
                unique,
                stats,
            )
        })
        .collect();
    Ok(GridOutput {
        runs,
        references: feed.refs,
        unique,
        source: feed.source.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::registry::{parse_policies, Preset};
    use crate::trace::{native, BlockRequest, Op};
    use std::fmt::Write as _;

    const POLICIES: &str = "lru,fifo,clock,lirs,clock-pro,lrfu,fbr,arc,lru-k,car,2q,mq";

    /// A skewed trace with reads and writes, long enough to spill the spool (its memory part
    /// holds 4096 references under test).
    fn requests() -> Vec<BlockRequest> {
        let mut x: u64 = 12345;
        (0..20_000)
            .map(|i| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let r = (x >> 33) % 1000;
                BlockRequest {
                    block: 1_000_000 + r * r / 997,
                    count: 1,
                    op: if i % 5 == 0 { Op::Write } else { Op::Read },
                    time_ns: None,
                    bytes: 4096,
                }
            })
            .collect()
    }

    fn expected(ops: OpFilter, specs: &[PolicySpec], sizes: &[CacheSize]) -> Vec<RunResult> {
        let blocks =
            BlockTrace::from_requests(requests().into_iter().map(Ok), ops, false, "t".into(), 4096)
                .unwrap();
        crate::engine::run_grid(specs, sizes, &PreparedTrace::new(blocks)).unwrap()
    }

    fn streamed(path: &Path, format: &Format, ops: OpFilter) -> GridOutput {
        let specs = parse_policies(POLICIES, &[], Preset::Paper).unwrap();
        let sizes = CacheSize::parse_list("1%,10%,37").unwrap();
        let opts = ReadOptions::default();
        let source = BlockSource {
            path,
            format,
            opts: &opts,
            ops,
        };
        run_block_grid(&source, &specs, &sizes).unwrap()
    }

    fn same_counts(got: &[RunResult], want: &[RunResult]) {
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert_eq!(
                (
                    &g.policy,
                    g.cache_blocks,
                    g.unique_blocks,
                    g.requests,
                    g.hits,
                    g.evictions
                ),
                (
                    &w.policy,
                    w.cache_blocks,
                    w.unique_blocks,
                    w.requests,
                    w.hits,
                    w.evictions
                )
            );
        }
    }

    #[test]
    fn streaming_text_gives_the_loaded_grids_results() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.trace");
        let mut text = String::new();
        for r in requests().iter().filter(|r| r.op == Op::Read) {
            writeln!(text, "{}", r.block).unwrap();
        }
        std::fs::write(&path, text).unwrap();
        let specs = parse_policies(POLICIES, &[], Preset::Paper).unwrap();
        let sizes = CacheSize::parse_list("1%,10%,37").unwrap();
        let got = streamed(&path, &Format::Lirs, OpFilter::Read);
        assert_eq!(got.references, 16_000);
        same_counts(&got.runs, &expected(OpFilter::Read, &specs, &sizes));
    }

    #[test]
    fn streaming_native_gives_the_loaded_grids_results_for_every_filter() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.bel");
        let all = BlockTrace::from_requests(
            requests().into_iter().map(Ok),
            OpFilter::All,
            false,
            "t".into(),
            4096,
        )
        .unwrap();
        native::write_file(&all, &path).unwrap();
        let specs = parse_policies(POLICIES, &[], Preset::Paper).unwrap();
        let sizes = CacheSize::parse_list("1%,10%,37").unwrap();
        for ops in [OpFilter::All, OpFilter::Read, OpFilter::Write] {
            let got = streamed(&path, &Format::Native, ops);
            same_counts(&got.runs, &expected(ops, &specs, &sizes));
        }
        // A generator's file: original ids (below 2^32), no table.
        let raw = dir.path().join("raw.bel");
        let mut w = native::StreamWriter::with_original_ids(dir.path(), "t".into(), 4096).unwrap();
        for r in requests() {
            w.push(r.block - 1_000_000 + 7, r.op, None).unwrap();
        }
        w.finish(std::fs::File::create(&raw).unwrap()).unwrap();
        for ops in [OpFilter::All, OpFilter::Read] {
            let got = streamed(&raw, &Format::Native, ops);
            same_counts(&got.runs, &expected(ops, &specs, &sizes));
        }
    }

    #[test]
    fn a_line_without_a_break_ends_in_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.trace");
        let mut bytes = b"1\n2\n".to_vec();
        bytes.resize(bytes.len() + crate::trace::input::MAX_LINE_BYTES + 10, b'7');
        std::fs::write(&path, bytes).unwrap();
        let specs = parse_policies("lru", &[], Preset::Paper).unwrap();
        let sizes = CacheSize::parse_list("1").unwrap();
        let opts = ReadOptions::default();
        let source = BlockSource {
            path: &path,
            format: &Format::Lirs,
            opts: &opts,
            ops: OpFilter::Read,
        };
        let err = run_block_grid(&source, &specs, &sizes)
            .unwrap_err()
            .to_string();
        assert!(err.contains(":3: line 3 has no line break"), "{err}");
    }

    #[test]
    fn a_request_above_the_limit_is_refused_naming_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.lis");
        std::fs::write(&path, "5 2 0 0\n9 300000 0 1\n").unwrap();
        let specs = parse_policies("lru", &[], Preset::Paper).unwrap();
        let sizes = CacheSize::parse_list("1").unwrap();
        let run = |max_request_bytes| {
            let opts = ReadOptions {
                max_request_bytes,
                ..ReadOptions::default()
            };
            let source = BlockSource {
                path: &path,
                format: &Format::Arc,
                opts: &opts,
                ops: OpFilter::Read,
            };
            run_block_grid(&source, &specs, &sizes)
        };
        let err = run(crate::trace::DEFAULT_MAX_REQUEST_BYTES)
            .unwrap_err()
            .to_string();
        assert!(err.contains(":2: a request of 300000 blocks"), "{err}");
        let ok = run(300_000 * 4096).unwrap();
        assert_eq!(ok.references, 300_002);
    }
}
