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

pub mod ingest;
mod text;

use crate::engine::{run_grid, PreparedTrace, RunResult};
use crate::error::Result;
use crate::level::{CacheLevel, LevelStats};
use crate::policy::registry::{self, PolicySpec, PolicyVisitor};
use crate::policy::{Policy, NEVER};
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

/// One run fed chunk by chunk.
trait Runner: Send {
    fn feed(&mut self, ids: &[u32]);
    fn finish(self: Box<Self>) -> LevelStats;
}

struct Run<P: Policy> {
    level: CacheLevel<P>,
}

impl<P: Policy + Send> Runner for Run<P> {
    fn feed(&mut self, ids: &[u32]) {
        for &b in ids {
            self.level.access(b, NEVER);
        }
    }

    fn finish(self: Box<Self>) -> LevelStats {
        self.level.into_stats()
    }
}

struct MakeRunner {
    capacity: usize,
    universe: usize,
}

impl PolicyVisitor for MakeRunner {
    type Output = Box<dyn Runner>;
    fn visit<P: Policy + 'static>(self, policy: P) -> Box<dyn Runner> {
        Box::new(Run {
            level: CacheLevel::new(policy, self.capacity, self.universe),
        })
    }
}

/// Simulates every policy at every size over a block trace, streaming it once; results come
/// policy-major in the order given, equal to [`run_grid`] over the loaded trace.
pub fn run_block_grid(
    source: &BlockSource,
    specs: &[PolicySpec],
    sizes: &[CacheSize],
) -> Result<GridOutput> {
    if specs.iter().any(|s| s.info.name == "opt") {
        let blocks = BlockTrace::load(source.path, source.format, source.opts, source.ops)?;
        let trace = PreparedTrace::new(blocks);
        return Ok(GridOutput {
            runs: run_grid(specs, sizes, &trace)?,
            references: trace.trace.refs.len() as u64,
            unique: trace.unique(),
            source: trace.trace.source.clone(),
        });
    }
    let mut feed = ingest::ingest(source.path, source.format, source.opts, source.ops)?;
    let unique = feed.unique;
    let capacities: Vec<usize> = sizes
        .iter()
        .map(|s| s.resolve(unique, feed.block_size))
        .collect::<Result<_>>()?;
    let mut grid = Vec::with_capacity(specs.len() * capacities.len());
    for spec in specs {
        for &capacity in &capacities {
            let universe = unique;
            let runner =
                registry::build(spec, capacity, universe, MakeRunner { capacity, universe })?;
            grid.push((spec, capacity, runner));
        }
    }
    feed_all(&mut feed, &mut grid)?;
    let runs = grid
        .into_iter()
        .map(|(spec, capacity, runner)| {
            let stats = runner.finish();
            RunResult {
                trace: feed.source.clone(),
                policy: spec.label(),
                cache_blocks: capacity as u64,
                block_size: feed.block_size,
                unique_blocks: unique as u64,
                requests: stats.requests,
                hits: stats.hits,
                misses: stats.misses,
                hit_ratio: stats.hit_ratio(),
                evictions: stats.evictions,
                prefetch: None,
                io: None,
                levels: None,
            }
        })
        .collect();
    Ok(GridOutput {
        runs,
        references: feed.refs,
        unique,
        source: feed.source.clone(),
    })
}

/// Hands every chunk to every run. With more than one worker thread, a reading thread stays a
/// few chunks ahead (decompression and checksums overlap the runs); the runs of one chunk go in
/// parallel. Memory: the runs plus a bounded number of chunks, whatever the thread count.
fn feed_all(
    feed: &mut ingest::Ingested,
    grid: &mut [(&PolicySpec, usize, Box<dyn Runner>)],
) -> Result<()> {
    let step = |grid: &mut [(&PolicySpec, usize, Box<dyn Runner>)], ids: &[u32]| {
        if grid.len() == 1 {
            grid[0].2.feed(ids);
        } else {
            grid.par_iter_mut().for_each(|(_, _, r)| r.feed(ids));
        }
    };
    if rayon::current_num_threads() < 2 {
        while let Some(ids) = feed.next_chunk()? {
            step(grid, ids);
        }
        return Ok(());
    }
    std::thread::scope(|s| -> Result<()> {
        let (tx, rx) = mpsc::sync_channel::<Result<Vec<u32>>>(4);
        let (back_tx, back_rx) = mpsc::channel::<Vec<u32>>();
        s.spawn(move || loop {
            match feed.next_chunk() {
                Ok(Some(ids)) => {
                    let mut buf = back_rx.try_recv().unwrap_or_default();
                    buf.clear();
                    buf.extend_from_slice(ids);
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
        for ids in rx {
            let ids = ids?;
            step(grid, &ids);
            let _ = back_tx.send(ids);
        }
        Ok(())
    })
}
