//! The one grid runner: every policy × size cell of an untimed single-level grid is one run of
//! the one loop ([`super::run_loop`]), and every run of a grid is fed the same chunks.
//!
//! - A streamed trace ([`Source::Stream`]) is read once per group of runs: each chunk of dense
//!   ids (and sizes) is handed to every run of the group, in parallel over the current rayon
//!   pool, with a reading thread a few chunks ahead. A group is [`GROUP_PER_THREAD`] runs per
//!   worker thread, so memory is a group's caches and a few chunks, whatever the grid's size and
//!   the trace's length.
//! - A trace in memory ([`Source::Loaded`], for OPT, whose next uses need the whole trace, and
//!   for MRC's miniature simulations) is one chunk that every run reads in place: runs are built,
//!   fed and dropped one per worker at a time, so the trace is shared and no run waits for
//!   another.
//!
//! A run is one monomorphised loop per policy behind one dynamic call per chunk; results come
//! in cell order and do not depend on the thread count.

use super::run_loop::{self, Requests};
use crate::cache::admission::Admission;
use crate::cache::cache_model::{Capacity, LevelSetup};
use crate::cache::level::{CacheLevel, LevelStats};
use crate::error::Result;
use crate::policy::registry::{PolicySpec, PolicyVisitor};
use crate::policy::Policy;
use crate::trace::ingest::Ingested;
use rayon::prelude::*;
use std::path::Path;
use std::sync::mpsc;

/// Runs per worker thread alive at once in a streamed grid ([`in_groups`]), sharing one pass over the trace:
/// each holds tables sized by the trace's blocks, so a grid's memory is a group's runs, whatever
/// the number of cells (the block grid and the file engine's grid alike).
pub(crate) const GROUP_PER_THREAD: usize = 4;

/// One cell of a grid: a policy at a resolved capacity.
pub(crate) type Cell<'a> = (&'a PolicySpec, Capacity);

/// Where a grid's requests come from.
pub(crate) enum Source<'a> {
    /// A trace in memory, handed to every run whole.
    Loaded(Requests<'a>),
    /// A streamed trace (`sized`: each chunk with its object sizes), read again from `path` for
    /// each group of runs.
    Stream {
        /// The stream.
        feed: &'a mut Ingested,
        /// Its file, to read it again.
        path: &'a Path,
        /// Whether the runs take each request's object size.
        sized: bool,
    },
}

/// What every cell's level shares: the universe of ids, and how its admission filter is built.
#[derive(Copy, Clone)]
pub(crate) struct Levels<'a> {
    /// Blocks or objects the trace holds (every id is below it).
    pub universe: usize,
    /// Cache model, admission filter and seed.
    pub setup: &'a LevelSetup,
    /// Bytes one unit of admitted size stands for ([`super::unit_bytes`]).
    pub unit_bytes: u64,
}

/// Runs every cell over `source`; one level's counters per cell, in cell order.
pub(crate) fn run_cells(source: Source, cells: &[Cell], levels: Levels) -> Result<Vec<LevelStats>> {
    let build = |&(spec, capacity): &Cell| -> Result<Box<dyn Runner>> {
        let make = MakeLevel {
            capacity,
            universe: levels.universe,
            admission: levels
                .setup
                .admission_for(&capacity, levels.universe, levels.unit_bytes),
        };
        crate::cache::builder::build_for(spec, &capacity, levels.universe, make)
    };
    let (feed, path, sized) = match source {
        Source::Loaded(requests) => {
            return cells
                .par_iter()
                .map(|cell| {
                    let mut run = build(cell)?;
                    run.feed(requests);
                    Ok(run.finish())
                })
                .collect();
        }
        Source::Stream { feed, path, sized } => (feed, path, sized),
    };
    // Runs live together only a group at a time, so a big grid's memory is a group's caches;
    // an input that cannot be read again (a pipe) takes the whole grid at once.
    let group = if feed.can_rewind(path) {
        GROUP_PER_THREAD * rayon::current_num_threads().max(1)
    } else {
        cells.len()
    };
    // A finished group keeps only its counters: its runs' caches are dropped before the next
    // group is built.
    in_groups(
        cells,
        group,
        build,
        |k, runs| {
            if k > 0 {
                feed.rewind(path)?;
            }
            feed_all(feed, runs, sized)
        },
        |run| run.finish(),
    )
}

/// Performs `cells` a group of `group` runs at a time, the way every streamed grid runs (the
/// block grid above and the file engine's, `engine::file::run_file_grid`): builds a group's runs,
/// lets `pass(k, runs)` replay the trace once to them (`k` counts the groups, so a pass after
/// the first can rewind its input), then finishes them (in parallel) before the next group is
/// built, so only a group's caches are alive at once. Results come in cell order.
pub(crate) fn in_groups<C, R: Send, T: Send>(
    cells: &[C],
    group: usize,
    build: impl Fn(&C) -> Result<R>,
    mut pass: impl FnMut(usize, &mut [R]) -> Result<()>,
    finish: impl Fn(R) -> T + Sync + Send,
) -> Result<Vec<T>> {
    let mut out = Vec::with_capacity(cells.len());
    for (k, part) in cells.chunks(group.max(1)).enumerate() {
        let mut runs = part.iter().map(&build).collect::<Result<Vec<_>>>()?;
        pass(k, &mut runs)?;
        let finished: Vec<T> = runs.into_par_iter().map(&finish).collect();
        out.extend(finished);
    }
    Ok(out)
}

/// Hands one chunk to every run of a group: in place when the group is one run, else in
/// parallel over the current rayon pool.
pub(crate) fn step_all<R: Send, X: Copy + Send + Sync>(
    runs: &mut [R],
    chunk: X,
    step: impl Fn(&mut R, X) + Sync + Send,
) {
    if let [run] = runs {
        step(run, chunk);
    } else {
        runs.par_iter_mut().for_each(|r| step(r, chunk));
    }
}

/// One run fed chunk by chunk (the one dynamic call per chunk).
pub(crate) trait Runner: Send {
    fn feed(&mut self, requests: Requests);
    fn finish(self: Box<Self>) -> LevelStats;
}

struct Run<P: Policy> {
    level: CacheLevel<P>,
}

impl<P: Policy + Send> Runner for Run<P> {
    fn feed(&mut self, requests: Requests) {
        run_loop::feed(&mut self.level, requests);
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

/// Hands every chunk to every run. With more than one worker thread, a reading thread stays a
/// few chunks ahead (decompression and checksums overlap the runs); the runs of one chunk go in
/// parallel. Memory: the runs plus a bounded number of chunks, whatever the thread count.
fn feed_all(feed: &mut Ingested, runs: &mut [Box<dyn Runner>], sized: bool) -> Result<()> {
    let step = |runs: &mut [Box<dyn Runner>], ids: &[u32], sizes: Option<&[u32]>| {
        let requests = Requests {
            ids,
            sizes,
            next_uses: None,
        };
        step_all(runs, requests, |r, requests| r.feed(requests));
    };
    if rayon::current_num_threads() < 2 {
        if sized {
            while let Some((ids, sizes)) = feed.next_sized_chunk()? {
                step(runs, ids, Some(sizes));
            }
        } else {
            while let Some(ids) = feed.next_chunk()? {
                step(runs, ids, None);
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
            step(runs, &chunk.0, sized.then_some(&chunk.1[..]));
            let _ = back_tx.send(chunk);
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{simulate, PreparedTrace};
    use crate::policy::registry::{parse_policies, PolicyVisitor, Preset};
    use crate::trace::ingest;
    use crate::trace::{BlockRequest, BlockTrace, Format, Op, OpFilter, ReadOptions};

    fn refs() -> Vec<u32> {
        let mut x: u64 = 99;
        (0..30_000)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let r = (x >> 33) % 700;
                (r * r / 701) as u32
            })
            .collect()
    }

    fn cells(specs: &[PolicySpec]) -> Vec<Cell<'_>> {
        specs
            .iter()
            .flat_map(|s| {
                [7usize, 60, 250].map(|units| {
                    let capacity = Capacity {
                        units,
                        weighted: false,
                        entries: units,
                    };
                    (s, capacity)
                })
            })
            .collect()
    }

    /// A run straight through [`simulate`], no grid.
    struct Direct<'a>(&'a PreparedTrace, usize);

    impl PolicyVisitor for Direct<'_> {
        type Output = LevelStats;
        fn visit<P: Policy + 'static>(self, policy: P) -> LevelStats {
            simulate(policy, self.0, self.1)
        }
    }

    #[test]
    fn every_cell_of_a_grid_equals_its_run_alone_for_any_thread_count() {
        let refs = refs();
        let requests = refs.iter().map(|&r| {
            Ok(BlockRequest {
                block: r as u64 + 5,
                count: 1,
                op: Op::Read,
                time_ns: None,
                bytes: 4096,
            })
        });
        let blocks = BlockTrace::from_requests(requests, OpFilter::Read, false, "t".into(), 4096);
        let trace = PreparedTrace::new(blocks.unwrap());
        let unique = trace.unique();
        let setup = LevelSetup::default();
        let levels = Levels {
            universe: unique,
            setup: &setup,
            unit_bytes: 4096,
        };
        let specs = parse_policies("lru,opt,arc,clock", &[], Preset::Paper).unwrap();
        let cells = cells(&specs);
        let loaded = run_cells(Source::Loaded(trace.requests(None, true)), &cells, levels).unwrap();
        for (&(spec, c), got) in cells.iter().zip(&loaded) {
            let alone =
                crate::cache::builder::build(spec, c.units, unique, Direct(&trace, c.units))
                    .unwrap();
            assert_eq!(got, &alone, "{} at {}", spec.label(), c.units);
        }
        // Streamed in chunks, in groups of four runs read one after another (one thread) or
        // in parallel (two): the same counters as the loaded runs, OPT aside.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.trace");
        let text: String = refs.iter().map(|r| format!("{}\n", r + 5)).collect();
        std::fs::write(&path, text).unwrap();
        let specs = parse_policies("lru,arc,clock", &[], Preset::Paper).unwrap();
        let cells: Vec<Cell> = self::cells(&specs);
        let want: Vec<&LevelStats> = loaded
            .iter()
            .enumerate()
            .filter(|(i, _)| !(3..6).contains(i))
            .map(|(_, s)| s)
            .collect();
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let opts = ReadOptions::default();
            let mut feed = ingest::ingest(&path, &Format::Lirs, &opts, OpFilter::Read).unwrap();
            assert_eq!(feed.unique, unique);
            let source = Source::Stream {
                feed: &mut feed,
                path: &path,
                sized: false,
            };
            let got = pool.install(|| run_cells(source, &cells, levels)).unwrap();
            assert_eq!(got.iter().collect::<Vec<_>>(), want, "{threads} threads");
        }
    }
}
