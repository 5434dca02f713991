//! A file-level trace laid out for the file engine: dense block ids per file, the demand
//! references, and the next-use oracle OPT needs.

use super::LaunchWindow;
use crate::error::{Error, Result};
use crate::policy::Block;
use crate::trace::dense;
use crate::trace::file::{FileEvent, FileEventKind, FileTrace};
use rustc_hash::FxHashMap;
use std::sync::OnceLock;

/// Dense block ids for file blocks: each file gets a contiguous range.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    base: FxHashMap<u64, (u32, u32)>,
    universe: u32,
}

impl Layout {
    /// Lays out every file of `trace` with room for its largest size and every block read.
    pub fn new(trace: &FileTrace, block_size: u64) -> Result<Layout> {
        let mut blocks: FxHashMap<u64, u64> = FxHashMap::default();
        let mut order: Vec<u64> = Vec::new();
        for ev in &trace.events {
            let need = match ev.blocks(block_size) {
                Some((_, first, count)) => (first + count).max(ev.file_size.div_ceil(block_size)),
                None => ev.file_size.div_ceil(block_size),
            };
            let slot = blocks.entry(ev.file).or_insert_with(|| {
                order.push(ev.file);
                0
            });
            *slot = (*slot).max(need);
        }
        let mut layout = Layout::default();
        let mut next: u64 = 0;
        for file in order {
            let n = blocks[&file];
            if next + n >= u32::MAX as u64 {
                return Err(Error::config(
                    "trace",
                    &trace.source,
                    "its files hold more than 2^32 blocks, more than belady can simulate",
                ));
            }
            layout.base.insert(file, (next as u32, n as u32));
            next += n;
        }
        layout.universe = next as u32;
        Ok(layout)
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
}

/// A file-level trace ready for simulation, shared by every run over it.
pub struct PreparedFileTrace {
    /// The trace.
    pub trace: FileTrace,
    /// Its block layout.
    pub layout: Layout,
    /// Bytes per block the layout uses.
    pub block_size: u32,
    /// Demand block references in order.
    pub refs: Vec<Block>,
    /// Distinct blocks among the demand references.
    pub distinct: usize,
    /// The part of the trace measured as a launch, if one is set (see [`LaunchWindow`]).
    pub launch: Option<LaunchWindow>,
    oracle: OnceLock<(Vec<u32>, Vec<u32>)>,
}

impl PreparedFileTrace {
    /// Lays out `trace` for `block_size`-byte blocks and lists its demand reads.
    pub fn new(trace: FileTrace, block_size: u32) -> Result<Self> {
        let bs = block_size as u64;
        let layout = Layout::new(&trace, bs)?;
        let mut refs = Vec::new();
        for ev in &trace.events {
            if let (FileEventKind::Read { .. }, Some((_, first, count))) = (&ev.kind, ev.blocks(bs))
            {
                refs.extend((first..first + count).map(|i| layout.block(ev.file, i)));
            }
        }
        if refs.is_empty() {
            return Err(Error::EmptyTrace {
                path: trace.source.clone(),
                what: "read calls".into(),
            });
        }
        let mut seen = vec![false; layout.universe()];
        let distinct = refs
            .iter()
            .filter(|&&b| !std::mem::replace(&mut seen[b as usize], true))
            .count();
        Ok(PreparedFileTrace {
            trace,
            layout,
            block_size,
            distinct,
            refs,
            launch: None,
            oracle: OnceLock::new(),
        })
    }

    /// A block-level trace as a file-level one, so read-ahead, clustering and timing apply: each
    /// maximal run of consecutive block ids among those referenced becomes one file (read through
    /// its own descriptor, opened at its first reference), and every reference a one-block read.
    /// Read-ahead and clustering therefore stop at the edges of runs: blocks the trace never
    /// references are never read. Think time is the gap between reference times, when kept.
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
        let mut opened = vec![false; run_sizes.len()];
        let mut events = Vec::with_capacity(blocks.refs.len() + run_sizes.len());
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
                events.push(event(0, FileEventKind::Open));
            }
            events.push(event(
                think_ns,
                FileEventKind::Read {
                    offset: index * bs,
                    len: bs,
                },
            ));
        }
        let trace = FileTrace {
            source: blocks.source.clone(),
            events,
            names: Default::default(),
        };
        PreparedFileTrace::new(trace, blocks.block_size)
    }

    /// Next reference of each demand reference, and each block's first reference.
    pub(crate) fn oracle(&self) -> &(Vec<u32>, Vec<u32>) {
        self.oracle.get_or_init(|| {
            let mut next = vec![dense::NEVER; self.refs.len()];
            let mut upcoming = vec![dense::NEVER; self.layout.universe()];
            for i in (0..self.refs.len()).rev() {
                let b = self.refs[i] as usize;
                next[i] = upcoming[b];
                upcoming[b] = i as u32;
            }
            (next, upcoming)
        })
    }
}
