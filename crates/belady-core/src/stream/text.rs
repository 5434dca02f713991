//! Fast ingest of the line-oriented block formats (LIRS, ARC): the input is read and
//! decompressed on its own thread in large blocks, lines are split with `memchr` and parsed in
//! place, and each id goes straight to the dense mapping, with no per-line allocation, dynamic
//! call or `Result` per reference.

use super::ingest::{Mapper, Spool};
use crate::error::{Error, Result};
use crate::trace::input::{excerpt, open_trace, parse_u64, trim_line, MAX_LINE_BYTES};
use crate::trace::text::ArcReader;
use crate::trace::{Format, Op, OpFilter, ReadOptions};
use std::io::{BufRead, Read};
use std::path::Path;
use std::sync::mpsc;

/// Bytes per block the reading thread hands over.
const BLOCK: usize = 1 << 20;
/// Ids mapped together, their table slots prefetched first (see [`Mapper::map_batch`]).
const BATCH: usize = 64;

/// Parses the LIRS or ARC trace at `path`, mapping every kept block reference into `spool`.
pub(crate) fn parse(
    path: &Path,
    format: &Format,
    opts: &ReadOptions,
    ops: OpFilter,
    mapper: &mut Mapper,
    spool: &mut Spool,
) -> Result<()> {
    let input = open_trace(path)?;
    let name = path.display().to_string();
    let keep = ops.keeps(Op::Read);
    let max_blocks = opts.max_request_blocks();
    let arc = matches!(format, Format::Arc);
    let mut line_no = 0u64;
    let mut batch: Vec<u64> = Vec::with_capacity(BATCH);
    let parse_err = |line: u64, msg: String| Error::Parse {
        path: name.clone(),
        line,
        msg,
    };
    let mut on_line = |raw: &[u8], line_no: u64| -> Result<()> {
        let line = trim_line(raw);
        if arc {
            if line.is_empty() {
                return Ok(());
            }
            let req = ArcReader::parse(line).map_err(|m| parse_err(line_no, m))?;
            if req.count as u64 > max_blocks {
                return Err(parse_err(
                    line_no,
                    format!(
                        "a request of {} blocks exceeds the limit of {} bytes per request (max_request_bytes)",
                        req.count, opts.max_request_bytes
                    ),
                ));
            }
            if keep {
                for k in 0..req.count as u64 {
                    batch.push(req.block + k);
                    if batch.len() == BATCH {
                        mapper.map_batch(&batch, spool)?;
                        batch.clear();
                    }
                }
            }
            return Ok(());
        }
        if line.is_empty() || line == b"*" {
            return Ok(());
        }
        match parse_u64(line) {
            Some(block) => {
                if keep {
                    batch.push(block);
                    if batch.len() == BATCH {
                        mapper.map_batch(&batch, spool)?;
                        batch.clear();
                    }
                }
                Ok(())
            }
            None => Err(parse_err(
                line_no,
                format!("expected a block number or '*', found '{}'", excerpt(line)),
            )),
        }
    };
    let mut carry: Vec<u8> = Vec::new();
    let long_line = |line: u64| Error::Parse {
        path: name.clone(),
        line,
        msg: format!(
            "line {line} has no line break within {MAX_LINE_BYTES} bytes (the limit of a text line)"
        ),
    };
    std::thread::scope(|s| -> Result<()> {
        let (tx, rx) = mpsc::sync_channel::<std::io::Result<Vec<u8>>>(2);
        let (back_tx, back_rx) = mpsc::channel::<Vec<u8>>();
        s.spawn(move || read_blocks(input, tx, back_rx));
        for block in rx {
            let block = block.map_err(|e| Error::Io {
                path: format!("{name} (after line {line_no})"),
                cause: e,
            })?;
            let mut data = &block[..];
            if !carry.is_empty() {
                match memchr::memchr(b'\n', data) {
                    Some(i) => {
                        carry.extend_from_slice(&data[..i]);
                        if carry.len() > MAX_LINE_BYTES {
                            return Err(long_line(line_no + 1));
                        }
                        line_no += 1;
                        on_line(&carry, line_no)?;
                        carry.clear();
                        data = &data[i + 1..];
                    }
                    None => {
                        carry.extend_from_slice(data);
                        if carry.len() > MAX_LINE_BYTES {
                            return Err(long_line(line_no + 1));
                        }
                        let _ = back_tx.send(block);
                        continue;
                    }
                }
            }
            let mut pos = 0;
            for i in memchr::memchr_iter(b'\n', data) {
                line_no += 1;
                on_line(&data[pos..i], line_no)?;
                pos = i + 1;
            }
            if data.len() - pos > MAX_LINE_BYTES {
                return Err(long_line(line_no + 1));
            }
            carry.extend_from_slice(&data[pos..]);
            // The reader may have stopped; then the block is simply dropped.
            let _ = back_tx.send(block);
        }
        if !carry.is_empty() {
            line_no += 1;
            on_line(&carry, line_no)?;
        }
        Ok(())
    })?;
    mapper.map_batch(&batch, spool)
}

/// Reads `input` in blocks of [`BLOCK`] bytes (reusing those sent back), until the end, an
/// error, or the parser hanging up.
fn read_blocks(
    mut input: Box<dyn BufRead + Send>,
    tx: mpsc::SyncSender<std::io::Result<Vec<u8>>>,
    back: mpsc::Receiver<Vec<u8>>,
) {
    loop {
        let mut buf = back.try_recv().unwrap_or_default();
        buf.resize(BLOCK, 0);
        let mut filled = 0;
        while filled < BLOCK {
            match input.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            }
        }
        buf.truncate(filled);
        if filled == 0 || tx.send(Ok(buf)).is_err() {
            return;
        }
        if filled < BLOCK {
            return;
        }
    }
}
