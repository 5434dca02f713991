//! A block-level trace as a file-level one, so read-ahead, clustering and timing apply to it:
//! each maximal run of consecutive block ids among those referenced becomes one file, and every
//! reference a one-block read. One numbering of the runs ([`number_runs`]) and one writer of
//! their events ([`RunEvents`]) serve a trace in memory ([`PreparedFileTrace::from_block_trace`])
//! and one read twice from its file ([`PreparedFileTrace::open_blocks`]).

use super::{FileTraceBuilder, PreparedFileTrace};
use crate::error::{Error, Result};
use crate::trace::dense;
use crate::trace::file::{FileEvent, FileEventKind};
use crate::trace::{open_requests, Format, Op, OpFilter, ReadOptions};
use rustc_hash::FxHashMap;
use std::path::Path;

/// What the first of a block trace's two reads learns for the second
/// ([`PreparedFileTrace::open_blocks`]).
pub(super) struct BlockRuns {
    /// Each distinct block's run (high half) and index in it (low half).
    place: FxHashMap<u64, u64>,
    /// Each run's length in blocks.
    run_sizes: Vec<u64>,
    /// References kept.
    refs: u64,
    /// Whether any reference has a time.
    timed: bool,
}

/// Numbers the runs of consecutive ids among `sorted` (ascending, distinct ids, each with an
/// item): calls `place(item, run, index in the run)` for each and returns each run's length.
/// Each run is read through its own descriptor (from 3), so there may be at most 2^32 - 3.
fn number_runs<T>(
    sorted: impl IntoIterator<Item = (u64, T)>,
    source: &str,
    mut place: impl FnMut(T, u64, u64),
) -> Result<Vec<u64>> {
    let mut run_sizes: Vec<u64> = Vec::new();
    let mut previous = None;
    for (id, item) in sorted {
        if previous.map_or(true, |p: u64| p + 1 != id) {
            run_sizes.push(0);
        }
        previous = Some(id);
        let run = run_sizes.len() as u64 - 1;
        if run + 3 > u32::MAX as u64 {
            return Err(Error::config(
                "trace",
                source,
                "has more than 2^32 runs of blocks",
            ));
        }
        place(item, run, run_sizes[run as usize]);
        run_sizes[run as usize] += 1;
    }
    Ok(run_sizes)
}

/// Writes a block-level trace's references as file events, spooled as they are made: a run's
/// first reference opens it (one file and descriptor per run), each reference reads its block,
/// after the gap since the previous reference's time when the trace keeps times.
struct RunEvents<'a> {
    out: FileTraceBuilder,
    run_sizes: &'a [u64],
    opened: Vec<bool>,
    block_bytes: u64,
    last_time: Option<u64>,
    /// Reads written.
    reads: u64,
}

impl<'a> RunEvents<'a> {
    fn new(source: String, block_size: u32, run_sizes: &'a [u64]) -> Self {
        RunEvents {
            out: FileTraceBuilder::new(source, block_size),
            run_sizes,
            opened: vec![false; run_sizes.len()],
            block_bytes: block_size as u64,
            last_time: None,
            reads: 0,
        }
    }

    /// A reference to block `index` of run `run` at `time` (`None` when the trace keeps none).
    fn read(&mut self, run: u64, index: u64, time: Option<u64>) -> Result<()> {
        let think_ns = match (time, self.last_time) {
            (Some(t), Some(prev)) => t.saturating_sub(prev),
            _ => 0,
        };
        self.last_time = time;
        let bs = self.block_bytes;
        let event = |think_ns, kind| FileEvent {
            think_ns,
            pid: 1,
            fd: run as u32 + 3,
            file: run,
            file_size: self.run_sizes[run as usize] * bs,
            kind,
        };
        if !std::mem::replace(&mut self.opened[run as usize], true) {
            self.out.push(&event(0, FileEventKind::Open))?;
        }
        self.reads += 1;
        self.out.push(&event(
            think_ns,
            FileEventKind::Read {
                offset: index * bs,
                len: bs,
            },
        ))
    }

    fn finish(self) -> Result<PreparedFileTrace> {
        self.out.finish(Default::default())
    }
}

impl PreparedFileTrace {
    /// A block-level trace as a file-level one, so read-ahead, clustering and timing apply: each
    /// maximal run of consecutive block ids among those referenced becomes one file (read through
    /// its own descriptor, opened at its first reference), and every reference a one-block read.
    /// Read-ahead and clustering therefore stop at the edges of runs: blocks the trace never
    /// references are never read. Think time is the gap between reference times, when kept.
    /// The events are spooled as they are made, never held whole.
    pub fn from_block_trace(blocks: &dense::BlockTrace) -> Result<Self> {
        if blocks.writes() > 0 {
            return Err(Error::config(
                "ops",
                "all",
                format!(
                    "{} holds writes; read-ahead on a block-level trace simulates reads only (use --ops read)",
                    blocks.source
                ),
            ));
        }
        let mut sorted: Vec<(u64, u32)> = blocks
            .originals
            .iter()
            .enumerate()
            .map(|(d, &o)| (o, d as u32))
            .collect();
        sorted.sort_unstable();
        // Run (file) and index within it of each dense id.
        let mut place = vec![(0u64, 0u64); sorted.len()];
        let run_sizes = number_runs(sorted, &blocks.source, |dense_id, run, index| {
            place[dense_id as usize] = (run, index)
        })?;
        let mut out = RunEvents::new(blocks.source.clone(), blocks.block_size, &run_sizes);
        for (i, &r) in blocks.refs.iter().enumerate() {
            let (run, index) = place[r as usize];
            out.read(run, index, blocks.times.as_ref().map(|t| t[i]))?;
        }
        out.finish()
    }

    /// [`PreparedFileTrace::from_block_trace`] over the block trace at `path`, read twice instead
    /// of held: once for its distinct blocks (which form the runs), once to spool the events.
    /// Memory is bounded by the distinct blocks. A native file or an input that cannot be read
    /// twice (a pipe) is loaded whole as before.
    pub fn open_blocks(
        path: &Path,
        format: &Format,
        opts: &ReadOptions,
        ops: OpFilter,
    ) -> Result<Self> {
        Self::open_blocks_with(path, format, opts, ops, false)
    }

    /// [`PreparedFileTrace::open_blocks`] with every kept reference read, writes included: a
    /// hierarchy's client counts each reference as a read of its block (as the multi-level
    /// paper's model does), so writes are not refused there.
    pub fn open_blocks_as_reads(
        path: &Path,
        format: &Format,
        opts: &ReadOptions,
        ops: OpFilter,
    ) -> Result<Self> {
        Self::open_blocks_with(path, format, opts, ops, true)
    }

    fn open_blocks_with(
        path: &Path,
        format: &Format,
        opts: &ReadOptions,
        ops: OpFilter,
        writes_as_reads: bool,
    ) -> Result<Self> {
        let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
        if *format == Format::Native || !regular {
            let mut blocks = dense::BlockTrace::load_timed(path, format, opts, ops)?;
            if writes_as_reads {
                blocks.write_mask = None;
            }
            return PreparedFileTrace::from_block_trace(&blocks);
        }
        let runs = Self::block_runs(path, format, opts, ops, writes_as_reads)?;
        Self::spool_block_runs(path, format, opts, ops, &runs)
    }

    /// Pass 1 of [`PreparedFileTrace::open_blocks`]: each distinct block's run (high half) and
    /// index in it (low half), each run's length, the references kept and whether any has a time.
    pub(super) fn block_runs(
        path: &Path,
        format: &Format,
        opts: &ReadOptions,
        ops: OpFilter,
        writes_as_reads: bool,
    ) -> Result<BlockRuns> {
        let source = path.display().to_string();
        // Pass 1: the distinct blocks, as BlockTrace::load checks and counts them.
        let mut place: FxHashMap<u64, u64> = FxHashMap::default();
        let (mut refs, mut writes, mut timed) = (0u64, false, false);
        for req in open_requests(path, format, opts)? {
            let req = req?;
            if !ops.keeps(req.op) {
                continue;
            }
            timed |= req.time_ns.is_some();
            if refs + req.count as u64 >= dense::NEVER as u64 {
                return Err(Error::config(
                    "trace",
                    &source,
                    format!(
                        "more than {} block references are not supported",
                        dense::NEVER - 1
                    ),
                ));
            }
            refs += req.count as u64;
            writes |= req.op == Op::Write;
            for k in 0..req.count as u64 {
                place.entry(req.block + k).or_insert(0);
            }
        }
        if refs == 0 {
            return Err(Error::EmptyTrace {
                path: source,
                what: ops.noun().to_string(),
            });
        }
        if writes && ops == OpFilter::All && !writes_as_reads {
            return Err(Error::config(
                "ops",
                "all",
                format!(
                    "{source} holds writes; read-ahead on a block-level trace simulates reads only (use --ops read)"
                ),
            ));
        }
        // Runs of consecutive ids: each block's run (high half) and index in it (low half).
        let mut sorted: Vec<u64> = place.keys().copied().collect();
        sorted.sort_unstable();
        let run_sizes = number_runs(
            sorted.into_iter().map(|id| (id, id)),
            &source,
            |id, run, index| {
                place.insert(id, run << 32 | index);
            },
        )?;
        Ok(BlockRuns {
            place,
            run_sizes,
            refs,
            timed,
        })
    }

    /// Pass 2 of [`PreparedFileTrace::open_blocks`]: the events, spooled, over the runs pass 1
    /// found. A trace that changed between the passes (a block pass 1 did not see, or another
    /// number of references) is refused: its runs would not describe it.
    pub(super) fn spool_block_runs(
        path: &Path,
        format: &Format,
        opts: &ReadOptions,
        ops: OpFilter,
        runs: &BlockRuns,
    ) -> Result<Self> {
        let source = path.display().to_string();
        let changed = |what: String| {
            Error::config(
                "trace",
                &source,
                format!("changed while it was read twice ({what}); simulate a copy that does not change"),
            )
        };
        let mut out = RunEvents::new(source.clone(), opts.block_size, &runs.run_sizes);
        for req in open_requests(path, format, opts)? {
            let req = req?;
            if !ops.keeps(req.op) {
                continue;
            }
            // A request without a time counts as time 0 when others have one.
            let time = runs.timed.then(|| req.time_ns.unwrap_or(0));
            for k in 0..req.count as u64 {
                let block = req.block + k;
                let at = *runs.place.get(&block).ok_or_else(|| {
                    changed(format!("block {block} was not there the first time"))
                })?;
                out.read(at >> 32, at & u32::MAX as u64, time)?;
            }
        }
        if out.reads != runs.refs {
            return Err(changed(format!(
                "{} block references the first time, {} the second",
                runs.refs, out.reads
            )));
        }
        out.finish()
    }
}
