//! Streaming simulation of block traces: every run of a grid is fed the same chunks of dense
//! ids as they are read, so memory is bounded by the runs' caches and the unique blocks, not by
//! the trace's length.
//!
//! [`ingest`] turns a trace into a stream of dense ids (straight from a native file, else
//! through a spool); [`run_block_grid`] builds one run per policy and size and hands each chunk
//! to all of them, in parallel over the current rayon pool. A run is one monomorphised loop per
//! policy (the only dynamic call is per chunk), so the single-run path stays as tight as
//! [`crate::engine::simulate`]. OPT needs each reference's next use, which streaming cannot
//! know; grids with OPT load the trace whole and run through [`crate::engine::run_grid`].
//!
//! The file engine streams too: [`file_spool`] keeps a file-level trace's events compactly after
//! one parsing pass, and [`crate::filesim::run_file_grid`] replays them to groups of runs.

pub mod file_spool;
pub mod ingest;
mod requests;
mod text;

use crate::admission::Admission;
use crate::cache_model::{CacheModel, Capacity, LevelSetup};
use crate::engine::{run_grid_with, PreparedTrace, RunResult};
use crate::error::Result;
use crate::level::{CacheLevel, LevelStats};
use crate::policy::registry::{self, PolicySpec, PolicyVisitor};
use crate::policy::{Policy, NEVER};
use crate::report::ByteCounts;
use crate::size::CacheSize;
use crate::trace::{BlockTrace, Format, OpFilter, ReadOptions};
use rayon::prelude::*;
use std::path::Path;
use std::sync::mpsc;

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

/// One run fed chunk by chunk: dense ids, with each reference's object size on object traces.
pub(crate) trait Runner: Send {
    fn feed(&mut self, ids: &[u32], sizes: Option<&[u32]>);
    fn finish(self: Box<Self>) -> LevelStats;
}

struct Run<P: Policy> {
    level: CacheLevel<P>,
}

impl<P: Policy + Send> Runner for Run<P> {
    fn feed(&mut self, ids: &[u32], sizes: Option<&[u32]>) {
        let Some(sizes) = sizes else {
            for (i, &b) in ids.iter().enumerate() {
                if let Some(&ahead) = ids.get(i + HINT_AHEAD) {
                    self.level.hint(ahead);
                }
                self.level.access(b, NEVER);
            }
            return;
        };
        for (i, (&b, &size)) in ids.iter().zip(sizes).enumerate() {
            if let Some(&ahead) = ids.get(i + HINT_AHEAD) {
                self.level.hint(ahead);
            }
            self.level.access_sized(b, size, NEVER);
        }
    }

    fn finish(self: Box<Self>) -> LevelStats {
        self.level.into_stats()
    }
}

/// Builds one run's level: its capacity, model and admission filter.
pub(crate) struct MakeLevel {
    /// The resolved capacity.
    pub capacity: Capacity,
    /// Blocks or objects the trace holds.
    pub universe: usize,
    /// The admission filter, built for this level.
    pub admission: Option<Admission>,
}

impl MakeLevel {
    /// The level around `policy`: weighted when the capacity is bytes.
    pub fn level<P: Policy>(self, policy: P) -> CacheLevel<P> {
        let mut level = if self.capacity.weighted {
            CacheLevel::weighted(policy, self.capacity.units, self.universe)
        } else {
            CacheLevel::new(policy, self.capacity.units, self.universe)
        };
        level.set_admission(self.admission);
        level
    }
}

impl PolicyVisitor for MakeLevel {
    type Output = Box<dyn Runner>;
    fn visit<P: Policy + 'static>(self, policy: P) -> Box<dyn Runner> {
        Box::new(Run {
            level: self.level(policy),
        })
    }
}

/// One row from a run's counters: the counts, and the bytes in the run's cache model.
#[allow(clippy::too_many_arguments)]
pub(crate) fn row(
    trace: &str,
    spec: &PolicySpec,
    capacity: &Capacity,
    model: CacheModel,
    setup: &LevelSetup,
    block_size: u32,
    unique: usize,
    stats: &LevelStats,
) -> RunResult {
    let row = RunResult {
        trace: trace.to_string(),
        policy: spec.label(),
        cache_blocks: if capacity.weighted {
            0
        } else {
            capacity.units as u64
        },
        block_size,
        unique_blocks: unique as u64,
        requests: stats.requests,
        hits: stats.hits,
        misses: stats.misses,
        hit_ratio: stats.hit_ratio(),
        evictions: stats.evictions,
        cache_model: model.name().into(),
        admission: setup.admission_label(),
        prefetch: None,
        io: Some(crate::engine::demand_io(stats.misses)),
        levels: None,
        ..Default::default()
    };
    match model {
        CacheModel::Blocks => row.with_block_bytes(),
        CacheModel::Objects => {
            let mut row = row;
            row.cache_bytes = capacity.weighted.then_some(capacity.units as u64);
            row.set_bytes(ByteCounts {
                requested: stats.bytes_requested,
                hits: stats.byte_hits,
            });
            row
        }
    }
}

/// How many references ahead a run prefetches a block's state.
const HINT_AHEAD: usize = 8;

/// Runs per worker thread alive at once in a grid, sharing one pass over the trace: each holds
/// tables sized by the trace's blocks, so a grid's memory is a group's runs, whatever the number
/// of cells (the block grid and the file engine's grid alike).
pub(crate) const GROUP_PER_THREAD: usize = 4;

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
    if specs.iter().any(|s| s.info.name == "opt") {
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
        specs.iter().try_for_each(registry::check_weighs)?;
    }
    let unit_bytes = unit_bytes(model, feed.block_size);
    let cells: Vec<(&PolicySpec, Capacity)> = specs
        .iter()
        .flat_map(|s| capacities.iter().map(move |&c| (s, c)))
        .collect();
    // Runs live together only a group at a time, so a big grid's memory is a group's caches;
    // an input that cannot be read again (a pipe) takes the rest of the grid at once.
    let group = if feed.can_rewind(source.path) {
        GROUP_PER_THREAD * rayon::current_num_threads().max(1)
    } else {
        cells.len()
    };
    // A finished group keeps only its rows: its runs' caches are dropped before the next group
    // is built.
    let mut runs = Vec::with_capacity(cells.len());
    while runs.len() < cells.len() {
        let part = &cells[runs.len()..(runs.len() + group).min(cells.len())];
        if !runs.is_empty() {
            feed.rewind(source.path)?;
        }
        let mut grid = Vec::with_capacity(part.len());
        for &(spec, capacity) in part {
            let make = MakeLevel {
                capacity,
                universe: unique,
                admission: setup.admission_for(&capacity, unit_bytes),
            };
            grid.push((
                spec,
                capacity,
                registry::build_for(spec, &capacity, unique, make)?,
            ));
        }
        feed_all(&mut feed, &mut grid, sized)?;
        runs.extend(grid.into_iter().map(|(spec, capacity, runner)| {
            let stats = runner.finish();
            row(
                &feed.source,
                spec,
                &capacity,
                model,
                setup,
                feed.block_size,
                unique,
                &stats,
            )
        }));
    }
    Ok(GridOutput {
        runs,
        references: feed.refs,
        unique,
        source: feed.source.clone(),
    })
}

/// Bytes one unit of admitted size stands for: a block's in the blocks model; in the objects
/// model the level hands the admission filter each object's bytes, counted or weighed.
pub(crate) fn unit_bytes(model: CacheModel, block_size: u32) -> u64 {
    match model {
        CacheModel::Blocks => block_size as u64,
        CacheModel::Objects => 1,
    }
}

/// Hands every chunk to every run. With more than one worker thread, a reading thread stays a
/// few chunks ahead (decompression and checksums overlap the runs); the runs of one chunk go in
/// parallel. Memory: the runs plus a bounded number of chunks, whatever the thread count.
fn feed_all(
    feed: &mut ingest::Ingested,
    grid: &mut [(&PolicySpec, Capacity, Box<dyn Runner>)],
    sized: bool,
) -> Result<()> {
    type Grid<'a, 'b> = &'a mut [(&'b PolicySpec, Capacity, Box<dyn Runner>)];
    let step = |grid: Grid, ids: &[u32], sizes: Option<&[u32]>| {
        if grid.len() == 1 {
            grid[0].2.feed(ids, sizes);
        } else {
            grid.par_iter_mut().for_each(|(_, _, r)| r.feed(ids, sizes));
        }
    };
    if rayon::current_num_threads() < 2 {
        if sized {
            while let Some((ids, sizes)) = feed.next_sized_chunk()? {
                step(grid, ids, Some(sizes));
            }
        } else {
            while let Some(ids) = feed.next_chunk()? {
                step(grid, ids, None);
            }
        }
        return Ok(());
    }
    // A chunk: its ids, and its sizes (empty when the runs take none).
    type Chunk = (Vec<u32>, Vec<u32>);
    std::thread::scope(|s| -> Result<()> {
        let (tx, rx) = mpsc::sync_channel::<Result<Chunk>>(4);
        let (back_tx, back_rx) = mpsc::channel::<Chunk>();
        s.spawn(move || loop {
            let mut buf = back_rx.try_recv().unwrap_or_default();
            buf.0.clear();
            buf.1.clear();
            let next = if sized {
                feed.next_sized_chunk().map(|c| {
                    c.map(|(ids, sizes)| {
                        buf.0.extend_from_slice(ids);
                        buf.1.extend_from_slice(sizes);
                    })
                })
            } else {
                feed.next_chunk()
                    .map(|c| c.map(|ids| buf.0.extend_from_slice(ids)))
            };
            match next {
                Ok(Some(())) => {
                    if tx.send(Ok(buf)).is_err() {
                        return;
                    }
                }
                Ok(None) => return,
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            }
        });
        for chunk in rx {
            let chunk = chunk?;
            step(grid, &chunk.0, sized.then_some(&chunk.1[..]));
            let _ = back_tx.send(chunk);
        }
        Ok(())
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
