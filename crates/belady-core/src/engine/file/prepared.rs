//! A file-level trace laid out for the file engine: dense block ids per file, the counts runs
//! need before they start (references, distinct blocks), the events (held, or spooled compactly
//! when read from a file), and the next-use oracle OPT needs.

use super::LaunchWindow;
use crate::error::{Error, Result};
use crate::policy::Block;
use crate::trace::dense;
use crate::trace::events::EventReader;
use crate::trace::file::{FileEvent, FileEventKind, FileTrace};
use crate::trace::ingest::file_spool::EventSpool;
use crate::trace::{
    accusim, input, load_file_trace_with, open_requests, Format, Op, OpFilter, ReadOptions,
    DEFAULT_MAX_REQUEST_BYTES,
};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

/// Events handed to the runs at a time from a trace held in memory.
const CHUNK_EVENTS: usize = 1 << 15;

/// Dense block ids for file blocks: each file gets a contiguous range.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    base: FxHashMap<u64, (u32, u32)>,
    /// Files in order of first appearance.
    files: Vec<u64>,
    universe: u32,
}

impl Layout {
    /// Lays out every file of `trace` with room for its largest size and every block read.
    pub fn new(trace: &FileTrace, block_size: u64) -> Result<Layout> {
        let mut count = Counter::new(block_size);
        trace.events.iter().for_each(|ev| count.observe(ev));
        count.layout(&trace.source)
    }

    /// First dense id and number of blocks of `file`.
    #[inline]
    pub fn range(&self, file: u64) -> (Block, u32) {
        self.base[&file]
    }

    /// Dense id of block `index` of `file`.
    #[inline]
    pub fn block(&self, file: u64, index: u64) -> Block {
        let (base, _) = self.base[&file];
        base + index as u32
    }

    /// Number of dense ids.
    pub fn universe(&self) -> usize {
        self.universe as usize
    }

    /// Every file, in order of first appearance in the trace.
    pub fn files(&self) -> &[u64] {
        &self.files
    }
}

/// Fewest blocks a trace's files may declare in all whatever it reads (16 GiB of files at 4 KiB):
/// each run keeps about 14 bytes per declared block.
pub const MIN_LAYOUT_BLOCKS: u64 = 1 << 22;

/// Declared blocks allowed per distinct block read, past [`MIN_LAYOUT_BLOCKS`]: files may be
/// larger than what the trace reads (read-ahead reaches up to their ends), but not without limit.
pub const LAYOUT_BLOCKS_PER_READ: u64 = 64;

/// What one pass over the events learns: each file's extent and the demand reads, in memory
/// bounded by the blocks read (a bit each, 64 to a word, words kept sparse), not by the number of
/// events nor by the files' declared sizes.
struct Counter {
    block_size: u64,
    slot: FxHashMap<u64, usize>,
    /// Per file in order of first appearance: id, blocks needed, blocks read so far (bit words
    /// by word index).
    files: Vec<(u64, u64, FxHashMap<u64, u64>)>,
    references: u64,
    distinct: u64,
}

impl Counter {
    fn new(block_size: u64) -> Self {
        Counter {
            block_size,
            slot: FxHashMap::default(),
            files: Vec::new(),
            references: 0,
            distinct: 0,
        }
    }

    fn observe(&mut self, ev: &FileEvent) {
        let bs = self.block_size;
        let range = ev.blocks(bs);
        let need = match range {
            Some((_, first, count)) => (first + count).max(ev.file_size.div_ceil(bs)),
            None => ev.file_size.div_ceil(bs),
        };
        let files = &mut self.files;
        let slot = *self.slot.entry(ev.file).or_insert_with(|| {
            files.push((ev.file, 0, FxHashMap::default()));
            files.len() - 1
        });
        let entry = &mut self.files[slot];
        entry.1 = entry.1.max(need);
        if let (FileEventKind::Read { .. }, Some((_, first, count))) = (&ev.kind, range) {
            self.references += count;
            let seen = &mut entry.2;
            for i in first..first + count {
                let word = seen.entry(i / 64).or_insert(0);
                let bit = 1u64 << (i % 64);
                if *word & bit == 0 {
                    *word |= bit;
                    self.distinct += 1;
                }
            }
        }
    }

    fn layout(&self, source: &str) -> Result<Layout> {
        // Each run's tables follow the declared blocks: bound them by what the trace reads.
        let declared: u64 = self.files.iter().map(|f| f.1).fold(0, u64::saturating_add);
        let allowed = MIN_LAYOUT_BLOCKS.max(LAYOUT_BLOCKS_PER_READ.saturating_mul(self.distinct));
        if declared > allowed {
            let (file, blocks, _) = self.files.iter().max_by_key(|f| f.1).expect("a file");
            return Err(Error::config(
                "trace",
                source,
                format!(
                    "its files span {declared} blocks of {} bytes (file {file} alone {blocks}) but it reads {} distinct blocks; each run needs about 14 bytes per block of every file, so belady simulates files of at most {allowed} blocks in all ({MIN_LAYOUT_BLOCKS}, or {LAYOUT_BLOCKS_PER_READ} per block read): declare the files' real sizes",
                    self.block_size, self.distinct
                ),
            ));
        }
        let mut layout = Layout::default();
        let mut next: u64 = 0;
        for &(file, n, _) in &self.files {
            if next + n >= u32::MAX as u64 {
                return Err(Error::config(
                    "trace",
                    source,
                    "its files hold more than 2^32 blocks, more than belady can simulate",
                ));
            }
            layout.base.insert(file, (next as u32, n as u32));
            layout.files.push(file);
            next += n;
        }
        layout.universe = next as u32;
        Ok(layout)
    }
}

/// Builds a [`PreparedFileTrace`] from events read one at a time: counts them and spools them,
/// so the trace is parsed once and never held whole.
pub struct FileTraceBuilder {
    source: String,
    block_size: u32,
    count: Counter,
    spool: EventSpool,
}

impl FileTraceBuilder {
    /// A builder for the trace named `source`, laid out in `block_size`-byte blocks.
    pub fn new(source: String, block_size: u32) -> Self {
        FileTraceBuilder {
            source,
            block_size,
            count: Counter::new(block_size as u64),
            spool: EventSpool::new(),
        }
    }

    /// Adds the next event.
    pub fn push(&mut self, ev: &FileEvent) -> Result<()> {
        self.count.observe(ev);
        self.spool.push(ev)
    }

    /// The prepared trace; `names` are the files' names as the trace gave them.
    pub fn finish(mut self, names: BTreeMap<u64, String>) -> Result<PreparedFileTrace> {
        self.spool.finish()?;
        let trace = FileTrace {
            source: self.source,
            events: Vec::new(),
            names,
        };
        PreparedFileTrace::counted(trace, Some(self.spool), &self.count, self.block_size)
    }
}

/// What the first of a block trace's two reads learns for the second
/// ([`PreparedFileTrace::open_blocks`]).
struct BlockRuns {
    /// Each distinct block's run (high half) and index in it (low half).
    place: FxHashMap<u64, u64>,
    /// Each run's length in blocks.
    run_sizes: Vec<u64>,
    /// References kept.
    refs: u64,
    /// Whether any reference has a time.
    timed: bool,
}

/// Next use of each demand reference, and each block's first reference.
pub(crate) type Oracle = (Vec<u32>, Vec<u32>);

/// A file-level trace ready for simulation, shared by every run over it.
pub struct PreparedFileTrace {
    /// Source, names, and the events when held in memory (empty when spooled).
    trace: FileTrace,
    /// The events when read from a file, spooled compactly.
    spool: Option<EventSpool>,
    /// Its block layout.
    pub layout: Layout,
    /// Bytes per block the layout uses.
    pub block_size: u32,
    /// Demand block references.
    pub references: usize,
    /// Distinct blocks among the demand references.
    pub distinct: usize,
    /// The part of the trace measured as a launch, if one is set (see [`LaunchWindow`]).
    pub launch: Option<LaunchWindow>,
    oracle: OnceLock<Oracle>,
}

impl PreparedFileTrace {
    /// Lays out `trace` (held in memory) for `block_size`-byte blocks and counts its demand reads.
    pub fn new(trace: FileTrace, block_size: u32) -> Result<Self> {
        let mut count = Counter::new(block_size as u64);
        trace.events.iter().for_each(|ev| count.observe(ev));
        PreparedFileTrace::counted(trace, None, &count, block_size)
    }

    fn counted(
        trace: FileTrace,
        spool: Option<EventSpool>,
        count: &Counter,
        block_size: u32,
    ) -> Result<Self> {
        if count.references == 0 {
            return Err(Error::EmptyTrace {
                path: trace.source.clone(),
                what: "read calls".into(),
            });
        }
        if count.references >= u32::MAX as u64 {
            return Err(Error::config(
                "trace",
                &trace.source,
                "holds 2^32 block references or more, more than belady can simulate",
            ));
        }
        Ok(PreparedFileTrace {
            layout: count.layout(&trace.source)?,
            trace,
            spool,
            block_size,
            references: count.references as usize,
            distinct: count.distinct as usize,
            launch: None,
            oracle: OnceLock::new(),
        })
    }

    /// Reads the file-level trace at `path` (events, AccuSim binary or text) once, counting and
    /// spooling its events: memory is bounded by its files and blocks, not its length. A bad
    /// record anywhere fails here, naming its place, before any run starts.
    pub fn open(path: &Path, format: &Format, block_size: u32) -> Result<Self> {
        Self::open_with(path, format, block_size, DEFAULT_MAX_REQUEST_BYTES)
    }

    /// [`PreparedFileTrace::open`], refusing a read or write of more than `max_request_bytes`
    /// (its line or call is named).
    pub fn open_with(
        path: &Path,
        format: &Format,
        block_size: u32,
        max_request_bytes: u64,
    ) -> Result<Self> {
        let source = path.display().to_string();
        let mut out = FileTraceBuilder::new(source.clone(), block_size);
        let names = match format {
            Format::Events => {
                let input = input::open_text(path)?;
                let mut reader = EventReader::new(input, &source, max_request_bytes);
                while let Some((ev, _)) = reader.next_event()? {
                    out.push(&ev)?;
                }
                reader.into_names()
            }
            Format::Accusim | Format::AccusimText => {
                let mut resolver =
                    accusim::Resolver::new(source).with_max_request_bytes(max_request_bytes);
                let mut names = BTreeMap::new();
                let mut events = Vec::new();
                for item in accusim::calls(path, matches!(format, Format::Accusim))? {
                    let (call, loc) = item?;
                    events.clear();
                    resolver.resolve(&call, loc, &mut names, &mut events)?;
                    events.iter().try_for_each(|ev| out.push(ev))?;
                }
                names
            }
            // The same refusal as the loader's.
            other => {
                let trace = load_file_trace_with(path, other, max_request_bytes)?;
                return PreparedFileTrace::new(trace, block_size);
            }
        };
        out.finish(names)
    }

    /// The trace's name for reports and errors.
    pub fn source(&self) -> &str {
        &self.trace.source
    }

    /// Each file's name, as the trace gave it.
    pub fn names(&self) -> &BTreeMap<u64, String> {
        &self.trace.names
    }

    /// Hands every event to `f` in order, a chunk at a time (a spooled trace is decoded as it
    /// goes, so any number of passes cost no memory beyond a chunk).
    pub fn for_each_chunk(&self, f: impl FnMut(&[FileEvent])) -> Result<()> {
        match &self.spool {
            Some(spool) => spool.for_each_chunk(f),
            None => {
                self.trace.events.chunks(CHUNK_EVENTS).for_each(f);
                Ok(())
            }
        }
    }

    /// The whole trace in memory (for callers that rewrite it, such as a warm start).
    pub fn to_file_trace(&self) -> Result<FileTrace> {
        let mut events = Vec::new();
        self.for_each_chunk(|c| events.extend_from_slice(c))?;
        Ok(FileTrace {
            source: self.trace.source.clone(),
            events,
            names: self.trace.names.clone(),
        })
    }

    /// The whole trace in memory, consuming this one.
    pub fn into_file_trace(self) -> Result<FileTrace> {
        if self.spool.is_none() {
            return Ok(self.trace);
        }
        self.to_file_trace()
    }

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
        let bs = blocks.block_size as u64;
        let mut sorted: Vec<(u64, u32)> = blocks
            .originals
            .iter()
            .enumerate()
            .map(|(d, &o)| (o, d as u32))
            .collect();
        sorted.sort_unstable();
        // Run (file) and index within it of each dense id.
        let mut place = vec![(0u64, 0u64); sorted.len()];
        let mut run_sizes: Vec<u64> = Vec::new();
        for (i, &(orig, dense_id)) in sorted.iter().enumerate() {
            if i == 0 || sorted[i - 1].0 + 1 != orig {
                run_sizes.push(0);
            }
            let run = run_sizes.len() as u64 - 1;
            place[dense_id as usize] = (run, run_sizes[run as usize]);
            run_sizes[run as usize] += 1;
        }
        drop(sorted);
        let mut opened = vec![false; run_sizes.len()];
        let mut out = FileTraceBuilder::new(blocks.source.clone(), blocks.block_size);
        let mut last_time = None;
        for (i, &r) in blocks.refs.iter().enumerate() {
            let (run, index) = place[r as usize];
            let think_ns = match (&blocks.times, last_time) {
                (Some(t), Some(prev)) => t[i].saturating_sub(prev),
                _ => 0,
            };
            last_time = blocks.times.as_ref().map(|t| t[i]);
            let fd = u32::try_from(run + 3).map_err(|_| {
                Error::config("trace", &blocks.source, "has more than 2^32 runs of blocks")
            })?;
            let file_size = run_sizes[run as usize] * bs;
            let event = |think_ns, kind| FileEvent {
                think_ns,
                pid: 1,
                fd,
                file: run,
                file_size,
                kind,
            };
            if !std::mem::replace(&mut opened[run as usize], true) {
                out.push(&event(0, FileEventKind::Open))?;
            }
            out.push(&event(
                think_ns,
                FileEventKind::Read {
                    offset: index * bs,
                    len: bs,
                },
            ))?;
        }
        out.finish(Default::default())
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
    fn block_runs(
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
        let mut run_sizes: Vec<u64> = Vec::new();
        for (i, &orig) in sorted.iter().enumerate() {
            if i == 0 || sorted[i - 1] + 1 != orig {
                run_sizes.push(0);
            }
            let run = run_sizes.len() as u64 - 1;
            if run + 3 > u32::MAX as u64 {
                return Err(Error::config(
                    "trace",
                    &source,
                    "has more than 2^32 runs of blocks",
                ));
            }
            place.insert(orig, run << 32 | run_sizes[run as usize]);
            run_sizes[run as usize] += 1;
        }
        drop(sorted);
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
    fn spool_block_runs(
        path: &Path,
        format: &Format,
        opts: &ReadOptions,
        ops: OpFilter,
        runs: &BlockRuns,
    ) -> Result<Self> {
        let BlockRuns {
            place,
            run_sizes,
            refs,
            timed,
        } = runs;
        let (refs, timed) = (*refs, *timed);
        let source = path.display().to_string();
        let changed = |what: String| {
            Error::config(
                "trace",
                &source,
                format!("changed while it was read twice ({what}); simulate a copy that does not change"),
            )
        };
        let bs = opts.block_size as u64;
        let mut opened = vec![false; run_sizes.len()];
        let mut out = FileTraceBuilder::new(source.clone(), opts.block_size);
        // Think times as `from_block_trace` makes them from a loaded trace's times (a request
        // without a time counts as time 0 when others have one).
        let mut last_time = None;
        for req in open_requests(path, format, opts)? {
            let req = req?;
            if !ops.keeps(req.op) {
                continue;
            }
            let time = timed.then(|| req.time_ns.unwrap_or(0));
            for k in 0..req.count as u64 {
                let block = req.block + k;
                let at = *place.get(&block).ok_or_else(|| {
                    changed(format!("block {block} was not there the first time"))
                })?;
                let (run, index) = (at >> 32, at & u32::MAX as u64);
                let think_ns = match (time, last_time) {
                    (Some(t), Some(prev)) => t.saturating_sub(prev),
                    _ => 0,
                };
                last_time = time;
                let event = |think_ns, kind| FileEvent {
                    think_ns,
                    pid: 1,
                    fd: run as u32 + 3,
                    file: run,
                    file_size: run_sizes[run as usize] * bs,
                    kind,
                };
                if !std::mem::replace(&mut opened[run as usize], true) {
                    out.push(&event(0, FileEventKind::Open))?;
                }
                out.push(&event(
                    think_ns,
                    FileEventKind::Read {
                        offset: index * bs,
                        len: bs,
                    },
                ))?;
            }
        }
        if out.count.references != refs {
            return Err(changed(format!(
                "{refs} block references the first time, {} the second",
                out.count.references
            )));
        }
        out.finish(Default::default())
    }

    /// Computes OPT's oracle now, so a failure to read the spool is an error, not a panic later.
    pub(crate) fn prepare_oracle(&self) -> Result<()> {
        if self.oracle.get().is_some() {
            return Ok(());
        }
        let (n, universe) = (self.references, self.layout.universe());
        let mut refs = Vec::new();
        crate::error::try_reserve(&mut refs, n, || {
            format!("OPT's references for {n} block reads")
        })?;
        let bs = self.block_size as u64;
        self.for_each_chunk(|events| {
            for ev in events {
                if let (FileEventKind::Read { .. }, Some((_, first, count))) =
                    (&ev.kind, ev.blocks(bs))
                {
                    refs.extend((first..first + count).map(|i| self.layout.block(ev.file, i)));
                }
            }
        })?;
        let mut next = crate::error::try_filled(refs.len(), dense::NEVER, || {
            format!("OPT's next-use array for {n} block reads")
        })?;
        let mut upcoming = crate::error::try_filled(universe, dense::NEVER, || {
            format!("OPT's first-use array for {universe} blocks")
        })?;
        for i in (0..refs.len()).rev() {
            let b = refs[i] as usize;
            next[i] = upcoming[b];
            upcoming[b] = i as u32;
        }
        let _ = self.oracle.set((next, upcoming));
        Ok(())
    }

    /// Next reference of each demand reference, and each block's first reference (OPT keeps
    /// this whole: 4 bytes per reference). Call [`PreparedFileTrace::prepare_oracle`] first on
    /// a spooled trace.
    pub(crate) fn oracle(&self) -> &Oracle {
        if self.oracle.get().is_none() {
            self.prepare_oracle()
                .expect("the event spool reads back (prepare_oracle reports otherwise)");
        }
        self.oracle.get().expect("just set")
    }
}

/// The trace at `path` prepared for the file engine: a file-level trace as it is, a block-level
/// one read twice into runs of consecutive blocks as files ([`PreparedFileTrace::open_blocks`]).
pub fn load_file_engine_trace_with(
    path: &Path,
    format: &Format,
    opts: &ReadOptions,
    ops: OpFilter,
) -> Result<PreparedFileTrace> {
    if format.is_file_level() {
        return PreparedFileTrace::open_with(path, format, opts.block_size, opts.max_request_bytes);
    }
    PreparedFileTrace::open_blocks(path, format, opts, ops)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::size::CacheSize;
    use crate::engine::file::{run_file_grid, FileSimConfig};
    use crate::policy::registry::{parse_policies, Preset};
    use crate::prefetch::PrefetchKind;
    use crate::trace::events;

    /// A program reading 40 files of varied sizes, sequentially and at random, with seeks,
    /// closes and think time: enough events that the spool spills to its file under test.
    fn program() -> FileTrace {
        let mut x: u64 = 99;
        let mut rnd = |n: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % n
        };
        let mut trace = FileTrace {
            source: "prog".into(),
            ..FileTrace::default()
        };
        let sizes: Vec<u64> = (0..40).map(|f| 4096 * (1 + f % 13) * 3 + f * 100).collect();
        for (f, _) in sizes.iter().enumerate() {
            trace.names.insert(f as u64 + 1, format!("/data/f{f}"));
        }
        let ev = |file: u64, kind, think_ns| FileEvent {
            think_ns,
            pid: 1,
            fd: 3,
            file,
            file_size: sizes[file as usize - 1],
            kind,
        };
        for _ in 0..300 {
            let file = 1 + rnd(40) * rnd(40) / 40;
            let size = sizes[file as usize - 1];
            trace.events.push(ev(file, FileEventKind::Open, 0));
            let mut offset = if rnd(3) == 0 { rnd(size) } else { 0 };
            for _ in 0..1 + rnd(12) {
                let len = (1 + rnd(3)) * 4096 - rnd(2) * 100;
                let len = len.min(size - offset);
                if len == 0 {
                    break;
                }
                trace
                    .events
                    .push(ev(file, FileEventKind::Read { offset, len }, rnd(50_000)));
                offset += len;
                if rnd(5) == 0 {
                    offset = rnd(size);
                    trace
                        .events
                        .push(ev(file, FileEventKind::Seek { offset }, 0));
                }
            }
            trace.events.push(ev(file, FileEventKind::Close, 0));
        }
        trace
    }

    fn grid(trace: &PreparedFileTrace, cfg: &FileSimConfig, threads: usize) -> String {
        let specs = parse_policies("lru,arc,lirs,opt,mq", &[], Preset::Paper).unwrap();
        let sizes = CacheSize::parse_list("2%,10%,64").unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let runs = pool
            .install(|| run_file_grid(&specs, &sizes, trace, cfg))
            .unwrap();
        format!("{runs:?}")
    }

    #[test]
    fn a_spooled_trace_gives_the_held_traces_results_for_any_thread_count() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prog.bev");
        let held = program();
        let mut text = Vec::new();
        events::write(&held, None, &mut text).unwrap();
        std::fs::write(&path, text).unwrap();
        let mut held = PreparedFileTrace::new(held, 4096).unwrap();
        held.trace.source = path.display().to_string();
        let spooled = PreparedFileTrace::open(&path, &Format::Events, 4096).unwrap();
        assert!(spooled.trace.events.is_empty(), "events are not held");
        assert!(
            spooled.spool.as_ref().is_some_and(|s| s.len() > 1000),
            "enough events to spill under test"
        );
        assert_eq!(
            (
                spooled.references,
                spooled.distinct,
                spooled.layout.universe()
            ),
            (held.references, held.distinct, held.layout.universe())
        );
        assert_eq!(spooled.layout.files(), held.layout.files());
        // The writer declares the files the events use.
        let used: BTreeMap<u64, String> = held
            .layout
            .files()
            .iter()
            .map(|f| (*f, held.names()[f].clone()))
            .collect();
        assert_eq!(spooled.names(), &used);
        for cfg in [
            FileSimConfig::default(),
            FileSimConfig {
                prefetch: PrefetchKind::Ondemand,
                disk: Some(crate::disk::DiskConfig::preset("cheetah9lp").unwrap()),
                ..FileSimConfig::default()
            },
        ] {
            let want = grid(&held, &cfg, 1);
            assert_eq!(grid(&spooled, &cfg, 1), want);
            assert_eq!(grid(&spooled, &cfg, 3), want);
        }
    }

    #[test]
    fn a_bad_line_after_many_good_ones_fails_naming_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.bev");
        let mut text = Vec::new();
        events::write(&program(), None, &mut text).unwrap();
        let good_lines = text.iter().filter(|&&c| c == b'\n').count();
        text.extend_from_slice(b"read - 0 1 3 1 0 notanumber\n");
        std::fs::write(&path, text).unwrap();
        let err = match PreparedFileTrace::open(&path, &Format::Events, 4096) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("a bad line is refused"),
        };
        let place = format!("{}:{}:", path.display(), good_lines + 1);
        assert!(err.contains(&place), "{err}");
        assert!(err.contains("LEN 'notanumber'"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }

    #[test]
    fn a_block_trace_read_twice_gives_the_loaded_traces_events() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.lirs");
        let mut x: u64 = 5;
        let mut text = String::new();
        for _ in 0..3000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = (x >> 33) % 400;
            text.push_str(&format!("{}\n", 1000 + r * r / 97));
        }
        std::fs::write(&path, text).unwrap();
        let opts = ReadOptions::default();
        let loaded = dense::BlockTrace::load(&path, &Format::Lirs, &opts, OpFilter::Read).unwrap();
        let want = PreparedFileTrace::from_block_trace(&loaded).unwrap();
        let got =
            PreparedFileTrace::open_blocks(&path, &Format::Lirs, &opts, OpFilter::Read).unwrap();
        assert!(got.spool.as_ref().is_some_and(|s| s.len() > 3000));
        assert_eq!(
            (
                got.references,
                got.distinct,
                got.layout.universe(),
                got.source()
            ),
            (
                want.references,
                want.distinct,
                want.layout.universe(),
                want.source()
            )
        );
        assert_eq!(got.to_file_trace().unwrap(), want.to_file_trace().unwrap());
        let empty = dir.path().join("empty.lirs");
        std::fs::write(&empty, "").unwrap();
        let err = PreparedFileTrace::open_blocks(&empty, &Format::Lirs, &opts, OpFilter::Read);
        assert!(matches!(err, Err(Error::EmptyTrace { .. })));
    }

    #[test]
    fn a_block_trace_that_changes_between_its_two_reads_is_refused_in_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.lirs");
        std::fs::write(&path, "1\n2\n3\n1\n").unwrap();
        let (opts, f, ops) = (ReadOptions::default(), Format::Lirs, OpFilter::Read);
        let runs = PreparedFileTrace::block_runs(&path, &f, &opts, ops, false).unwrap();
        // What a writer appending between the passes does: a block the first pass never saw.
        std::fs::write(&path, "1\n2\n3\n1\n9\n").unwrap();
        let spool = |p: &Path| PreparedFileTrace::spool_block_runs(p, &f, &opts, ops, &runs);
        let err = spool(&path)
            .err()
            .expect("a grown trace is refused")
            .to_string();
        assert!(err.contains("changed while it was read twice"), "{err}");
        assert!(err.contains("block 9"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        // Only known blocks, but more of them: refused too.
        std::fs::write(&path, "1\n2\n3\n1\n2\n").unwrap();
        let err = spool(&path)
            .err()
            .expect("a longer trace is refused")
            .to_string();
        assert!(
            err.contains("4 block references the first time, 5 the second"),
            "{err}"
        );
        std::fs::write(&path, "1\n2\n3\n1\n").unwrap();
        assert_eq!(spool(&path).unwrap().references, 4);
    }

    #[test]
    fn a_block_trace_with_writes_read_twice_as_reads_gives_the_loaded_traces_events() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        // MSR lines (time, host, disk, type, offset, size, response): reads and writes of 4 KiB.
        let mut text = String::new();
        for i in 0..600u64 {
            let kind = if i % 3 == 0 { "Write" } else { "Read" };
            let block = (i * 7) % 90 + if i % 5 == 0 { 1000 } else { 0 };
            text.push_str(&format!("{i},hm,0,{kind},{},4096,1\n", block * 4096));
        }
        std::fs::write(&path, text).unwrap();
        let format = Format::parse("msr", None, None).unwrap();
        let opts = ReadOptions::default();
        // Read-ahead on a block trace refuses writes; a hierarchy's client reads them.
        let refused = PreparedFileTrace::open_blocks(&path, &format, &opts, OpFilter::All);
        assert!(refused.is_err_and(|e| e.to_string().contains("holds writes")));
        let mut loaded =
            dense::BlockTrace::load_timed(&path, &format, &opts, OpFilter::All).unwrap();
        assert!(loaded.writes() > 0);
        loaded.write_mask = None;
        let want = PreparedFileTrace::from_block_trace(&loaded).unwrap();
        let got =
            PreparedFileTrace::open_blocks_as_reads(&path, &format, &opts, OpFilter::All).unwrap();
        assert_eq!(
            (got.references, got.distinct, got.layout.universe()),
            (want.references, want.distinct, want.layout.universe())
        );
        assert_eq!(got.references, 600);
        assert_eq!(got.to_file_trace().unwrap(), want.to_file_trace().unwrap());
    }
}
