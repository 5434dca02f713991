//! A whole trace held as dense block indices, built once and shared by every run over it.

use super::{native, open_requests, BlockRequest, Format, OpFilter, ReadOptions};
use crate::error::{Error, Result};
use rustc_hash::FxHashMap;
use std::path::Path;

/// Marks "no further reference" in next-use arrays.
pub const NEVER: u32 = u32::MAX;

/// A block trace whose ids are remapped to `0..unique()` in order of first reference.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockTrace {
    /// Where the trace came from (file path or generator), for reports.
    pub source: String,
    /// Bytes per block the ids were computed with.
    pub block_size: u32,
    /// One dense id per block reference, in trace order.
    pub refs: Vec<u32>,
    /// Original block id of each dense id.
    pub originals: Vec<u64>,
    /// Bit `i` set when reference `i` is a write; absent when the trace holds reads only.
    pub write_mask: Option<Vec<u8>>,
    /// Time of each reference in nanoseconds, when kept.
    pub times: Option<Vec<u64>>,
    /// Object size of each reference in bytes (at least 1), for traces whose requests are
    /// sized objects (oracleGeneral, lcs, native files converted from them); `None` otherwise.
    pub sizes: Option<Vec<u32>>,
}

impl BlockTrace {
    /// Reads `path` in `format`, keeping the requests `filter` selects. Timestamps are dropped
    /// from text traces (nothing but a timed run needs them; see [`BlockTrace::load_timed`]).
    pub fn load(
        path: &Path,
        format: &Format,
        opts: &ReadOptions,
        filter: OpFilter,
    ) -> Result<BlockTrace> {
        Self::load_with(path, format, opts, filter, false)
    }

    /// [`BlockTrace::load`] keeping each reference's time when the trace records any, as a
    /// native file converted from it does: a timed run over it then sees the same think times
    /// whatever the format or path it came by.
    pub fn load_timed(
        path: &Path,
        format: &Format,
        opts: &ReadOptions,
        filter: OpFilter,
    ) -> Result<BlockTrace> {
        Self::load_with(path, format, opts, filter, true)
    }

    fn load_with(
        path: &Path,
        format: &Format,
        opts: &ReadOptions,
        filter: OpFilter,
        keep_times: bool,
    ) -> Result<BlockTrace> {
        let trace = if *format == Format::Native {
            native::load(path)?.filtered(filter)
        } else if matches!(format, Format::Lirs | Format::Arc) {
            // Text carries no times or writes: the streaming parser, kept whole, is the fast way.
            crate::trace::ingest::load_text(path, format, opts, filter)?
        } else {
            let stream = open_requests(path, format, opts)?;
            let source = path.display().to_string();
            if format.has_object_sizes() {
                BlockTrace::from_sized_requests(
                    stream,
                    filter,
                    keep_times,
                    source,
                    opts.block_size,
                )?
            } else {
                BlockTrace::from_requests(stream, filter, keep_times, source, opts.block_size)?
            }
        };
        if trace.refs.is_empty() {
            return Err(Error::EmptyTrace {
                path: path.display().to_string(),
                what: filter.noun().to_string(),
            });
        }
        Ok(trace)
    }

    /// Expands requests into one reference per block and assigns dense ids.
    pub fn from_requests(
        stream: impl Iterator<Item = Result<BlockRequest>>,
        filter: OpFilter,
        keep_times: bool,
        source: String,
        block_size: u32,
    ) -> Result<BlockTrace> {
        let mut builder = Builder::new(filter == OpFilter::All, keep_times);
        for req in stream {
            let req = req?;
            if filter.keeps(req.op) {
                builder.push(&req, &source)?;
            }
        }
        Ok(builder.finish(source, block_size))
    }

    /// As [`BlockTrace::from_requests`] for object requests, keeping each one's size
    /// ([`BlockRequest::bytes`]) in [`BlockTrace::sizes`]. Each request must be one object
    /// (`count` 1) of 1 to `u32::MAX` bytes.
    pub fn from_sized_requests(
        stream: impl Iterator<Item = Result<BlockRequest>>,
        filter: OpFilter,
        keep_times: bool,
        source: String,
        block_size: u32,
    ) -> Result<BlockTrace> {
        let mut builder = Builder::new(filter == OpFilter::All, keep_times);
        builder.sizes = Some(Vec::new());
        for (i, req) in stream.enumerate() {
            let req = req?;
            if req.count != 1 || req.bytes == 0 || req.bytes > u32::MAX as u64 {
                return Err(Error::config(
                    "trace",
                    &source,
                    format!(
                        "request {i} is not one object of 1 to {} bytes ({} blocks, {} bytes)",
                        u32::MAX,
                        req.count,
                        req.bytes
                    ),
                ));
            }
            if filter.keeps(req.op) {
                builder.push(&req, &source)?;
            }
        }
        Ok(builder.finish(source, block_size))
    }

    /// Bytes requested and byte footprint (each object's first size), when references carry
    /// object sizes.
    pub fn size_totals(&self) -> Option<super::SizeTotals> {
        native::size_totals(self)
    }

    /// Number of distinct blocks referenced.
    pub fn unique(&self) -> usize {
        self.originals.len()
    }

    /// Whether reference `i` is a write.
    pub fn is_write(&self, i: usize) -> bool {
        self.write_mask
            .as_ref()
            .is_some_and(|m| m[i / 8] & (1 << (i % 8)) != 0)
    }

    /// Number of write references.
    pub fn writes(&self) -> usize {
        self.write_mask
            .as_ref()
            .map_or(0, |m| m.iter().map(|b| b.count_ones() as usize).sum())
    }

    /// Keeps only the references `filter` selects, renumbering ids densely again.
    pub fn filtered(self, filter: OpFilter) -> BlockTrace {
        if filter == OpFilter::All || (self.write_mask.is_none() && filter == OpFilter::Read) {
            return self;
        }
        let mut builder = Builder::new(false, self.times.is_some());
        if self.sizes.is_some() {
            builder.sizes = Some(Vec::new());
        }
        for (i, &r) in self.refs.iter().enumerate() {
            let op = if self.is_write(i) {
                super::Op::Write
            } else {
                super::Op::Read
            };
            if filter.keeps(op) {
                let time_ns = self.times.as_ref().map(|t| t[i]);
                if let (Some(kept), Some(sizes)) = (&mut builder.sizes, &self.sizes) {
                    kept.push(sizes[i]);
                }
                builder.push_one(self.originals[r as usize], false, time_ns);
            }
        }
        builder.finish(self.source, self.block_size)
    }

    /// For each reference, the position of the next reference to the same block ([`NEVER`] if
    /// none), plus each block's first position: the oracle OPT needs.
    pub fn next_uses(&self) -> (Vec<u32>, Vec<u32>) {
        self.try_next_uses()
            .unwrap_or_else(|e| panic!("{e} (call try_next_uses to get the error)"))
    }

    /// [`BlockTrace::next_uses`], or an error naming the memory it could not have.
    pub fn try_next_uses(&self) -> Result<(Vec<u32>, Vec<u32>)> {
        let n = self.refs.len();
        let mut next = crate::error::try_filled(n, NEVER, || {
            format!("OPT's next-use array for {n} references")
        })?;
        let u = self.unique();
        let mut upcoming =
            crate::error::try_filled(u, NEVER, || format!("OPT's first-use array for {u} blocks"))?;
        for i in (0..self.refs.len()).rev() {
            let b = self.refs[i] as usize;
            next[i] = upcoming[b];
            upcoming[b] = i as u32;
        }
        Ok((next, upcoming))
    }
}

/// Incremental construction of a [`BlockTrace`].
pub(crate) struct Builder {
    ids: FxHashMap<u64, u32>,
    refs: Vec<u32>,
    originals: Vec<u64>,
    write_mask: Option<Vec<u8>>,
    times: Option<Vec<u64>>,
    /// Whether any reference came with a time: without one the times are not kept (as the
    /// native writer does), so an untimed trace loads alike whether times were asked for or not.
    any_time: bool,
    /// Object sizes, kept by [`Builder::push`] (requests of one object each) when `Some`.
    sizes: Option<Vec<u32>>,
}

impl Builder {
    pub(crate) fn new(track_writes: bool, keep_times: bool) -> Builder {
        Builder {
            ids: FxHashMap::default(),
            refs: Vec::new(),
            originals: Vec::new(),
            write_mask: track_writes.then(Vec::new),
            times: keep_times.then(Vec::new),
            any_time: false,
            sizes: None,
        }
    }

    fn push(&mut self, req: &BlockRequest, source: &str) -> Result<()> {
        if self.refs.len() as u64 + req.count as u64 >= NEVER as u64 {
            return Err(Error::config(
                "trace",
                source,
                format!("more than {} block references are not supported", NEVER - 1),
            ));
        }
        let write = req.op == super::Op::Write;
        // The references grow by doubling; a doubling that cannot be had is an error, not an abort.
        let count = req.count as usize;
        if self.refs.capacity() - self.refs.len() < count {
            let more = self.refs.len().max(count).max(1 << 16);
            let held = self.refs.len();
            let what = || format!("{source}: the references held in memory (past {held})");
            crate::error::try_reserve(&mut self.refs, more, what)?;
            if let Some(times) = &mut self.times {
                let what = || format!("{source}: the timestamps held in memory");
                crate::error::try_reserve(times, more, what)?;
            }
        }
        if let Some(sizes) = &mut self.sizes {
            // Checked by the caller: one object of at most u32::MAX bytes.
            sizes.push(req.bytes as u32);
        }
        for k in 0..req.count as u64 {
            self.push_one(req.block + k, write, req.time_ns);
        }
        Ok(())
    }

    #[inline]
    pub(crate) fn push_one(&mut self, original: u64, write: bool, time_ns: Option<u64>) {
        let next = self.originals.len() as u32;
        let id = *self.ids.entry(original).or_insert(next);
        if id == next {
            self.originals.push(original);
        }
        let i = self.refs.len();
        self.refs.push(id);
        if let Some(mask) = &mut self.write_mask {
            if i % 8 == 0 {
                mask.push(0);
            }
            if write {
                mask[i / 8] |= 1 << (i % 8);
            }
        }
        if let Some(times) = &mut self.times {
            self.any_time |= time_ns.is_some();
            times.push(time_ns.unwrap_or(0));
        }
    }

    pub(crate) fn finish(self, source: String, block_size: u32) -> BlockTrace {
        let write_mask = self.write_mask.filter(|m| m.iter().any(|&b| b != 0));
        BlockTrace {
            source,
            block_size,
            refs: self.refs,
            originals: self.originals,
            write_mask,
            times: self.times.filter(|_| self.any_time),
            sizes: self.sizes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Op;

    fn req(block: u64, count: u32, op: Op) -> BlockRequest {
        BlockRequest {
            block,
            count,
            op,
            time_ns: None,
            bytes: count as u64 * 4096,
        }
    }

    #[test]
    fn dense_ids_follow_first_reference_and_filters_apply() {
        let reqs = vec![
            req(100, 2, Op::Read),
            req(7, 1, Op::Write),
            req(100, 1, Op::Read),
        ];
        let t = BlockTrace::from_requests(
            reqs.clone().into_iter().map(Ok),
            OpFilter::Read,
            false,
            "t".into(),
            4096,
        )
        .unwrap();
        assert_eq!(t.refs, vec![0, 1, 0]);
        assert_eq!(t.originals, vec![100, 101]);
        let all = BlockTrace::from_requests(
            reqs.into_iter().map(Ok),
            OpFilter::All,
            false,
            "t".into(),
            4096,
        )
        .unwrap();
        assert_eq!(all.refs, vec![0, 1, 2, 0]);
        assert!(all.is_write(2) && !all.is_write(1));
        assert_eq!(all.writes(), 1);
        let writes = all.clone().filtered(OpFilter::Write);
        assert_eq!(writes.refs, vec![0]);
        assert_eq!(writes.originals, vec![7]);
        assert_eq!(all.filtered(OpFilter::Read).refs, vec![0, 1, 0]);
    }

    #[test]
    fn next_uses_point_forward() {
        let reqs = vec![
            req(1, 1, Op::Read),
            req(2, 1, Op::Read),
            req(1, 1, Op::Read),
        ];
        let t = BlockTrace::from_requests(
            reqs.into_iter().map(Ok),
            OpFilter::Read,
            false,
            "t".into(),
            4096,
        )
        .unwrap();
        let (next, first) = t.next_uses();
        assert_eq!(next, vec![2, NEVER, NEVER]);
        assert_eq!(first, vec![0, 1]);
    }

    #[test]
    fn sized_requests_keep_their_sizes_through_filters_and_refuse_block_ranges() {
        let mut reqs = vec![
            req(5, 1, Op::Read),
            req(6, 1, Op::Write),
            req(5, 1, Op::Read),
        ];
        for (r, bytes) in reqs.iter_mut().zip([100, 7, 300]) {
            r.bytes = bytes;
        }
        let all = BlockTrace::from_sized_requests(
            reqs.clone().into_iter().map(Ok),
            OpFilter::All,
            false,
            "t".into(),
            4096,
        )
        .unwrap();
        assert_eq!(all.sizes, Some(vec![100, 7, 300]));
        assert_eq!(
            all.clone().filtered(OpFilter::Read).sizes,
            Some(vec![100, 300])
        );
        assert_eq!(all.filtered(OpFilter::Write).sizes, Some(vec![7]));
        reqs[1] = req(9, 2, Op::Read);
        let e = BlockTrace::from_sized_requests(
            reqs.into_iter().map(Ok),
            OpFilter::All,
            false,
            "t.og".into(),
            4096,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("t.og") && e.contains("request 1 is not one object"),
            "{e}"
        );
    }
}
