//! Fast ingest of the block formats other than LIRS and ARC.
//!
//! libCacheSim's binary records (oracleGeneral, lcs) are decoded in place from large blocks that
//! a reading thread decompresses (zstd, usually), with a table for the operation byte and no
//! `Result` per record: only a record that fails the quick checks goes through
//! [`decode_record`] for its message. CSV traces (whose quoted fields may hold line breaks, so
//! they cannot be cut at arbitrary line breaks) and the `u32` forms keep their readers, called
//! statically (no dynamic call per request), over an input read on its own thread.

use super::text::{read_blocks, TUNING};
use super::{Mapper, Spool};
use crate::error::{Error, Result};
use crate::trace::binary::U32Reader;
use crate::trace::csv::CsvReader;
use crate::trace::input::{open_trace, LineCap};
use crate::trace::lcs;
use crate::trace::oracle_general::{decode_record, Layout, OpClass, OP_CLASSES};
use crate::trace::{open_requests, BlockRequest, Format, Op, OpFilter, ReadOptions};
use std::io::{BufRead, Read};
use std::path::Path;
use std::sync::mpsc;

/// Original ids collected before they are mapped together.
const BATCH: usize = 4096;

/// Maps every kept block reference of the trace at `path` (any block format but native, LIRS
/// and ARC) into `spool`.
pub(crate) fn parse(
    path: &Path,
    format: &Format,
    opts: &ReadOptions,
    ops: OpFilter,
    mapper: &mut Mapper,
    spool: &mut Spool,
) -> Result<()> {
    crate::trace::check_block_size(opts.block_size)?;
    let name = path.display().to_string();
    match format {
        Format::OracleGeneral => {
            let input = threaded(open_trace(path)?);
            records(input, &name, Layout::ORACLE_GENERAL, 0, ops, mapper, spool)
        }
        Format::Lcs => {
            let mut input = threaded(open_trace(path)?);
            let header = lcs::read_header(&mut input, &name)?;
            let layout = lcs::layout(header.version).expect("read_header checked the version");
            records(
                input,
                &name,
                layout,
                lcs::HEADER_SIZE as u64,
                ops,
                mapper,
                spool,
            )
        }
        Format::Csv(spec) => {
            let input = Box::new(LineCap::new(threaded(open_trace(path)?)));
            let reader = CsvReader::new(input, name.clone(), spec, opts.block_size)?
                .with_max_request_blocks(opts.max_request_blocks());
            requests(reader, &name, opts, ops, mapper, spool)
        }
        Format::U32Le | Format::U32Be => {
            let input = Box::new(threaded(open_trace(path)?));
            let reader = U32Reader::new(input, name.clone(), *format == Format::U32Be)
                .with_block_size(opts.block_size);
            requests(reader, &name, opts, ops, mapper, spool)
        }
        // File-level formats (simulated block by block): their readers hold the trace anyway.
        _ => requests(
            open_requests(path, format, opts)?,
            &name,
            opts,
            ops,
            mapper,
            spool,
        ),
    }
}

/// Maps the kept requests of a reader, expanded to blocks, in batches.
fn requests<I: Iterator<Item = Result<BlockRequest>>>(
    reqs: I,
    name: &str,
    opts: &ReadOptions,
    ops: OpFilter,
    mapper: &mut Mapper,
    spool: &mut Spool,
) -> Result<()> {
    let max_blocks = opts.max_request_blocks();
    let mut batch: Vec<u64> = Vec::with_capacity(BATCH);
    for req in reqs {
        let req = req?;
        if !ops.keeps(req.op) {
            continue;
        }
        if req.count as u64 > max_blocks {
            return Err(Error::config(
                "trace",
                name,
                format!(
                    "a request of {} blocks at block {} exceeds the limit of {} bytes per request (max_request_bytes)",
                    req.count, req.block, opts.max_request_bytes
                ),
            ));
        }
        for k in 0..req.count as u64 {
            batch.push(req.block + k);
            if batch.len() == BATCH {
                mapper.map_all(&batch, spool)?;
                batch.clear();
            }
        }
    }
    mapper.map_all(&batch, spool)
}

/// Decodes fixed-size request records laid out as `layout`, the first at byte `offset` of the
/// decompressed stream, mapping the object id of every kept request (with its size, when the
/// spool keeps sizes).
fn records(
    input: Threaded,
    name: &str,
    layout: Layout,
    offset: u64,
    ops: OpFilter,
    mapper: &mut Mapper,
    spool: &mut Spool,
) -> Result<()> {
    if spool.is_sized() {
        records_as::<true>(input, name, layout, offset, ops, mapper, spool)
    } else {
        records_as::<false>(input, name, layout, offset, ops, mapper, spool)
    }
}

/// [`records`], with or without sizes (`SIZED`) compiled in.
fn records_as<const SIZED: bool>(
    mut input: Threaded,
    name: &str,
    layout: Layout,
    offset: u64,
    ops: OpFilter,
    mapper: &mut Mapper,
    spool: &mut Spool,
) -> Result<()> {
    let size = layout.record_size;
    let keep = [ops.keeps(Op::Read), ops.keeps(Op::Write)];
    // Records before the current block's first whole one.
    let mut record = 0u64;
    let mut carry: Vec<u8> = Vec::with_capacity(size);
    let mut ids: Vec<u64> = Vec::with_capacity(TUNING.block / size + 1);
    let mut sizes: Vec<u32> = Vec::with_capacity(if SIZED { TUNING.block / size + 1 } else { 0 });
    let error = |record: u64, msg: String| Error::Record {
        path: name.to_string(),
        record,
        offset: offset + record * size as u64,
        msg,
    };
    let mut map = |ids: &[u64], sizes: &[u32]| {
        if SIZED {
            mapper.map_all_sized(ids, sizes, spool)
        } else {
            mapper.map_all(ids, spool)
        }
    };
    loop {
        let block = match input.next_block() {
            Ok(Some(b)) => b,
            Ok(None) => break,
            Err(e) => return Err(error(record, format!("cannot read: {e}"))),
        };
        let mut data = &block[..];
        if !carry.is_empty() {
            let take = (size - carry.len()).min(data.len());
            carry.extend_from_slice(&data[..take]);
            data = &data[take..];
            if carry.len() < size {
                input.give_back(block);
                continue;
            }
            ids.clear();
            sizes.clear();
            decode::<SIZED>(&carry, layout, keep, &mut ids, &mut sizes)
                .map_err(|(i, m)| error(record + i, m))?;
            map(&ids, &sizes)?;
            record += 1;
            carry.clear();
        }
        let whole = data.len() / size * size;
        ids.clear();
        sizes.clear();
        decode::<SIZED>(&data[..whole], layout, keep, &mut ids, &mut sizes)
            .map_err(|(i, m)| error(record + i, m))?;
        map(&ids, &sizes)?;
        record += (whole / size) as u64;
        carry.extend_from_slice(&data[whole..]);
        input.give_back(block);
    }
    if !carry.is_empty() {
        return Err(error(
            record,
            format!(
                "the file ends inside a record: {} of its {size} bytes are there",
                carry.len()
            ),
        ));
    }
    Ok(())
}

/// Pushes the object id (and, when `SIZED`, the size) of every kept request among the whole
/// records of `data`; else the index of the first bad record and what is wrong with it.
/// Records of size 0 are skipped, as [`decode_record`] skips them.
fn decode<const SIZED: bool>(
    data: &[u8],
    layout: Layout,
    keep: [bool; 2],
    ids: &mut Vec<u64>,
    sizes: &mut Vec<u32>,
) -> std::result::Result<(), (u64, String)> {
    let (size_at, size_width) = layout.size_field;
    for (i, r) in data.chunks_exact(layout.record_size).enumerate() {
        let id = u64::from_le_bytes(r[4..12].try_into().expect("8 bytes"));
        let obj_size = u32::from_le_bytes(r[size_at..size_at + 4].try_into().expect("4 bytes"));
        // A 4-byte size is unsigned; an 8-byte one is negative or above u32::MAX when any of
        // its high four bytes is set.
        let bad_size = size_width == 8
            && u32::from_le_bytes(r[size_at + 4..size_at + 8].try_into().expect("4 bytes")) != 0;
        let class = layout
            .op_offset
            .map_or(OpClass::Read, |at| OP_CLASSES[r[at] as usize]);
        let kept = match class {
            OpClass::Read => keep[0],
            OpClass::Write => keep[1],
            OpClass::Skip => false,
            OpClass::Bad => true,
        };
        if bad_size || class == OpClass::Bad {
            let msg = decode_record(r, layout)
                .expect_err("the quick checks agree with decode_record (tested)");
            return Err((i as u64, msg));
        }
        if kept && obj_size != 0 {
            ids.push(id);
            if SIZED {
                sizes.push(obj_size);
            }
        }
    }
    Ok(())
}

/// An input read, and decompressed, on its own thread a few blocks ahead.
pub(crate) struct Threaded {
    rx: mpsc::Receiver<std::io::Result<Vec<u8>>>,
    back: mpsc::Sender<Vec<u8>>,
    cur: Vec<u8>,
    pos: usize,
}

/// Starts reading `input` on a thread of its own; the thread ends at the input's end or when
/// the [`Threaded`] is dropped.
pub(crate) fn threaded(input: Box<dyn BufRead + Send>) -> Threaded {
    let (tx, rx) = mpsc::sync_channel(2);
    let (back, back_rx) = mpsc::channel();
    std::thread::spawn(move || read_blocks(input, TUNING.block, tx, back_rx));
    Threaded {
        rx,
        back,
        cur: Vec::new(),
        pos: 0,
    }
}

impl Threaded {
    /// The next block whole (after what was read through `Read`/`BufRead`, which must have
    /// been consumed); `None` at the end.
    fn next_block(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        if self.pos < self.cur.len() {
            let rest = self.cur[self.pos..].to_vec();
            self.pos = self.cur.len();
            return Ok(Some(rest));
        }
        match self.rx.recv() {
            Ok(Ok(b)) => Ok(Some(b)),
            Ok(Err(e)) => Err(e),
            Err(_) => Ok(None),
        }
    }

    /// Returns a block's buffer to the reading thread for reuse.
    fn give_back(&mut self, block: Vec<u8>) {
        // The reader may have stopped; then the buffer is simply dropped.
        let _ = self.back.send(block);
    }
}

impl BufRead for Threaded {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.pos == self.cur.len() {
            if let Ok(b) = self.rx.recv() {
                let old = std::mem::replace(&mut self.cur, b?);
                self.pos = 0;
                self.give_back(old);
            }
        }
        Ok(&self.cur[self.pos..])
    }

    fn consume(&mut self, amt: usize) {
        self.pos = (self.pos + amt).min(self.cur.len());
    }
}

impl Read for Threaded {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let buf = self.fill_buf()?;
        let n = buf.len().min(out.len());
        out[..n].copy_from_slice(&buf[..n]);
        self.consume(n);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::super::ingest;
    use super::*;
    use crate::trace::BlockTrace;

    /// An lcs v3 (`v3 == true`) or oracleGeneral file of `n` records over a few hundred ids,
    /// with every operation code libCacheSim defines and sizes from 0 to 4999 bytes (an id's
    /// size changes between its references); `bad` spoils one record.
    fn trace_bytes(n: usize, v3: bool, bad: Option<(usize, bool)>) -> Vec<u8> {
        let mut out = Vec::new();
        if v3 {
            let mut h = vec![0u8; lcs::HEADER_SIZE];
            h[..8].copy_from_slice(&lcs::MAGIC);
            h[8..16].copy_from_slice(&3u64.to_le_bytes());
            h[lcs::HEADER_SIZE - 8..].copy_from_slice(&lcs::MAGIC);
            out.extend(h);
        }
        let mut x: u64 = 99;
        for i in 0..n {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            let id = (x >> 45) % 700 + (1 << 40);
            out.extend((i as u32 / 100).to_le_bytes());
            out.extend(id.to_le_bytes());
            let spoil = bad.filter(|&(at, _)| at == i);
            if v3 {
                let size: i64 = if spoil == Some((i, true)) {
                    -5
                } else {
                    size_of(x) as i64
                };
                out.extend(size.to_le_bytes());
                let op = if spoil == Some((i, false)) {
                    15
                } else {
                    (x >> 20) as u8 % 15
                };
                out.extend([op, 0, 0, 0]);
                out.extend(7u32.to_le_bytes());
            } else {
                out.extend(size_of(x).to_le_bytes());
            }
            out.extend((-1i64).to_le_bytes());
        }
        out
    }

    /// The size `trace_bytes` gives the record drawn from `x`: 0 for about one in 500.
    fn size_of(x: u64) -> u32 {
        ((x >> 25) % 5000) as u32 / 10 * 10
    }

    /// Ids and sizes through the sized streaming ingest, and its totals.
    fn streamed_sized(
        path: &Path,
        format: &Format,
        ops: OpFilter,
    ) -> Result<(Vec<u32>, Vec<u32>, crate::trace::SizeTotals)> {
        let mut feed = super::super::ingest_sized(path, format, &ReadOptions::default(), ops)?;
        assert!(feed.has_sizes());
        let (mut ids, mut sizes) = (Vec::new(), Vec::new());
        while let Some((i, z)) = feed.next_sized_chunk()? {
            assert_eq!(i.len(), z.len());
            ids.extend_from_slice(i);
            sizes.extend_from_slice(z);
        }
        Ok((ids, sizes, feed.size_totals().unwrap()))
    }

    #[test]
    fn sized_ingest_keeps_each_size_and_counts_libcachesims_totals() {
        let dir = tempfile::tempdir().unwrap();
        for (v3, format, name) in [
            (false, Format::OracleGeneral, "t.oracleGeneral"),
            (true, Format::Lcs, "t.lcs"),
        ] {
            let bytes = trace_bytes(60_000, v3, None);
            let path = dir.path().join(name);
            std::fs::write(&path, &bytes).unwrap();
            // The expected values straight from the records: size-0 records and deletes
            // (op 9) skipped, footprint by each id's first kept size.
            let (at, width) = (
                if v3 { lcs::HEADER_SIZE } else { 0 },
                if v3 { 36 } else { 24 },
            );
            let mut want_sizes = Vec::new();
            let mut first = std::collections::HashMap::new();
            for r in bytes[at..].chunks_exact(width) {
                let id = u64::from_le_bytes(r[4..12].try_into().unwrap());
                let size = u32::from_le_bytes(r[12..16].try_into().unwrap());
                if size == 0 || (v3 && r[20] == 9) {
                    continue;
                }
                want_sizes.push(size);
                first.entry(id).or_insert(size);
            }
            assert!(
                want_sizes.len() < 60_000 - 50,
                "the trace has size-0 records"
            );
            let (ids, sizes, totals) = streamed_sized(&path, &format, OpFilter::All).unwrap();
            assert_eq!(sizes, want_sizes, "{name}");
            assert_eq!(
                totals.requested,
                want_sizes.iter().map(|&z| z as u64).sum::<u64>()
            );
            assert_eq!(
                totals.footprint,
                first.values().map(|&z| z as u64).sum::<u64>()
            );
            // The same ids as the id-only ingest, and the same sizes as the loaded trace.
            assert_eq!(ids, streamed(&path, &format, OpFilter::All).unwrap());
            let trace =
                BlockTrace::load(&path, &format, &ReadOptions::default(), OpFilter::All).unwrap();
            assert_eq!(trace.refs, ids);
            assert_eq!(trace.sizes.as_ref(), Some(&sizes));
            // oracleGeneral holds reads only.
            for ops in [OpFilter::Read, OpFilter::Write]
                .into_iter()
                .take(1 + v3 as usize)
            {
                let (ids, sizes, _) = streamed_sized(&path, &format, ops).unwrap();
                let t = BlockTrace::load(&path, &format, &ReadOptions::default(), ops).unwrap();
                assert_eq!(
                    (Some(&ids), t.sizes.as_ref()),
                    (Some(&t.refs), Some(&sizes)),
                    "{ops:?}"
                );
            }
        }
    }

    #[test]
    fn a_sized_spool_reads_back_in_step_after_rewinds_and_id_only_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.oracleGeneral");
        // 60,000 references: past the test spool's 4096 in memory, so both spools spill.
        std::fs::write(&path, trace_bytes(60_000, false, None)).unwrap();
        let (ids, sizes, _) = streamed_sized(&path, &Format::OracleGeneral, OpFilter::All).unwrap();
        let mut feed = super::super::ingest_sized(
            &path,
            &Format::OracleGeneral,
            &ReadOptions::default(),
            OpFilter::All,
        )
        .unwrap();
        // One id-only chunk, then sized ones: the sizes stay with their ids.
        let skipped = feed.next_chunk().unwrap().unwrap().len();
        let mut rest = Vec::new();
        while let Some((_, z)) = feed.next_sized_chunk().unwrap() {
            rest.extend_from_slice(z);
        }
        assert_eq!(rest, sizes[skipped..]);
        feed.rewind(&path).unwrap();
        let mut again = Vec::new();
        while let Some((i, _)) = feed.next_sized_chunk().unwrap() {
            again.extend_from_slice(i);
        }
        assert_eq!(again, ids);
        // The id-only ingest has no sizes and says so.
        let mut plain = ingest(
            &path,
            &Format::OracleGeneral,
            &ReadOptions::default(),
            OpFilter::All,
        )
        .unwrap();
        assert!(!plain.has_sizes() && plain.size_totals().is_none());
        let e = plain.next_sized_chunk().unwrap_err().to_string();
        assert!(e.contains("no object sizes"), "{e}");
    }

    #[test]
    fn an_object_above_u32_max_bytes_is_refused_naming_its_record() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.lcs");
        let mut bytes = trace_bytes(100, true, None);
        let at = lcs::HEADER_SIZE + 36 * 57 + 12;
        bytes[at..at + 8].copy_from_slice(&(u32::MAX as i64 + 1).to_le_bytes());
        std::fs::write(&path, bytes).unwrap();
        let got = streamed(&path, &Format::Lcs, OpFilter::All)
            .unwrap_err()
            .to_string();
        let want = loaded(&path, &Format::Lcs, OpFilter::All)
            .unwrap_err()
            .to_string();
        assert_eq!(got, want);
        assert!(
            got.contains("record 57") && got.contains("object size 4294967296 is above 4294967295"),
            "{got}"
        );
    }

    fn streamed(path: &Path, format: &Format, ops: OpFilter) -> Result<Vec<u32>> {
        let mut feed = ingest(path, format, &ReadOptions::default(), ops)?;
        let mut ids = Vec::new();
        while let Some(chunk) = feed.next_chunk()? {
            ids.extend_from_slice(chunk);
        }
        Ok(ids)
    }

    fn loaded(path: &Path, format: &Format, ops: OpFilter) -> Result<Vec<u32>> {
        BlockTrace::load(path, format, &ReadOptions::default(), ops).map(|t| t.refs)
    }

    #[test]
    fn records_decoded_in_blocks_equal_the_record_reader() {
        let dir = tempfile::tempdir().unwrap();
        // 60,000 records of 24 and 36 bytes: records straddle the 1 MiB blocks.
        for (v3, format, name) in [
            (false, Format::OracleGeneral, "t.oracleGeneral"),
            (true, Format::Lcs, "t.lcs"),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, trace_bytes(60_000, v3, None)).unwrap();
            for ops in [OpFilter::All, OpFilter::Read, OpFilter::Write] {
                let got = streamed(&path, &format, ops).map_err(|e| e.to_string());
                let want = loaded(&path, &format, ops).map_err(|e| e.to_string());
                assert_eq!(got, want, "{name} {ops:?}");
            }
            // zstd-compressed, as libCacheSim's collections ship them.
            let zst = dir.path().join(format!("{name}.zst"));
            let bytes = zstd::encode_all(&trace_bytes(60_000, v3, None)[..], 1).unwrap();
            std::fs::write(&zst, bytes).unwrap();
            assert_eq!(
                streamed(&zst, &format, OpFilter::All).unwrap(),
                loaded(&path, &format, OpFilter::All).unwrap()
            );
        }
    }

    #[test]
    fn a_bad_or_truncated_record_fails_as_the_record_reader_words_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.lcs");
        for bad in [(50_000, true), (43_690, false), (0, false)] {
            std::fs::write(&path, trace_bytes(60_000, true, Some(bad))).unwrap();
            let got = streamed(&path, &Format::Lcs, OpFilter::All).unwrap_err();
            let want = loaded(&path, &Format::Lcs, OpFilter::All).unwrap_err();
            assert_eq!(got.to_string(), want.to_string());
            assert!(
                got.to_string().contains(&format!("record {}", bad.0)),
                "{got}"
            );
        }
        let og = dir.path().join("t.oracleGeneral");
        let mut bytes = trace_bytes(50_000, false, None);
        bytes.truncate(bytes.len() - 5);
        std::fs::write(&og, bytes).unwrap();
        let got = streamed(&og, &Format::OracleGeneral, OpFilter::All).unwrap_err();
        let want = loaded(&og, &Format::OracleGeneral, OpFilter::All).unwrap_err();
        assert_eq!(got.to_string(), want.to_string());
        assert!(got.to_string().contains("19 of its 24 bytes"), "{got}");
    }

    #[test]
    fn the_op_table_agrees_with_decode_record() {
        let layout = lcs::layout(3).unwrap();
        for code in 0..=255u8 {
            let mut r = vec![0u8; layout.record_size];
            r[20] = code;
            // A non-zero size, so that only the code decides.
            r[12] = 1;
            let want = match decode_record(&r, layout) {
                Ok(Some(rec)) if rec.op == Op::Read => OpClass::Read,
                Ok(Some(_)) => OpClass::Write,
                Ok(None) => OpClass::Skip,
                Err(_) => OpClass::Bad,
            };
            assert!(OP_CLASSES[code as usize] == want, "code {code}");
        }
    }

    #[test]
    fn csv_through_the_reading_thread_equals_the_loaded_trace() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        let mut text = String::new();
        for i in 0..30_000u64 {
            let op = if i % 3 == 0 { "Write" } else { "Read" };
            text.push_str(&format!(
                "{},host,0,{op},{},{}\n",
                128166372000000000 + i,
                (i * 7919 % 5000) * 4096,
                4096 * (1 + i % 3)
            ));
        }
        std::fs::write(&path, text).unwrap();
        let format = Format::parse("msr", None, None).unwrap();
        for ops in [OpFilter::All, OpFilter::Read, OpFilter::Write] {
            assert_eq!(
                streamed(&path, &format, ops).unwrap(),
                loaded(&path, &format, ops).unwrap()
            );
        }
    }
}
