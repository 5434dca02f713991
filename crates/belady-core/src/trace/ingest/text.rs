//! Fast ingest of the line-oriented block formats (LIRS, ARC).
//!
//! The input is read and decompressed on its own thread in large blocks. Each block is cut at
//! line breaks into pieces; a piece is parsed in place into a vector of original ids (LIRS) or
//! block ranges (ARC), with no per-line allocation, dynamic call or `Result`, and the vector is
//! then mapped to dense ids in trace order, so dense ids are numbered by first reference
//! whatever the thread count. With one worker thread each piece is parsed and mapped in turn
//! (its ids stay in cache); with more, a block's pieces are parsed in parallel on the rayon pool
//! while the previous block's are mapped.

use super::{Mapper, Spool};
use crate::error::{Error, Result};
use crate::trace::input::{excerpt, open_trace, parse_u64, trim_line, MAX_LINE_BYTES};
use crate::trace::text::ArcReader;
use crate::trace::{Format, Op, OpFilter, ReadOptions};
use rayon::prelude::*;
use std::io::{BufRead, Read};
use std::path::Path;
use std::sync::mpsc;

/// Block and piece sizes; tests make them tiny so that piece and block edges fall everywhere.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Tuning {
    /// Bytes per block the reading thread hands over.
    pub block: usize,
    /// Bytes per piece a block is cut into (then extended to the next line break).
    pub piece: usize,
}

/// The sizes used outside tests: 1 MiB blocks (the reading thread stays ahead by two), 64 KiB
/// pieces (about 8 K ids, whose vector stays in L2 between parsing and mapping).
pub(crate) const TUNING: Tuning = Tuning {
    block: 1 << 20,
    piece: 1 << 16,
};

/// What a piece's lines hold and which are refused.
#[derive(Copy, Clone)]
struct Rules {
    arc: bool,
    max_blocks: u64,
    max_request_bytes: u64,
}

/// One piece's parsed content.
#[derive(Default)]
struct Piece {
    /// LIRS: the block ids; ARC: the first block of each request.
    ids: Vec<u64>,
    /// ARC: the block count of each request (empty for LIRS).
    counts: Vec<u32>,
    /// Lines parsed (all of the piece's lines unless `error` is set).
    lines: u64,
    /// The first bad line: its number within the piece (from 1) and what is wrong.
    error: Option<(u64, String)>,
}

impl Piece {
    fn clear(&mut self) {
        self.ids.clear();
        self.counts.clear();
        self.lines = 0;
        self.error = None;
    }
}

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
    parse_input(input, &name, format, opts, ops, mapper, spool, TUNING)
}

/// [`parse`] over an opened input, with the block and piece sizes given.
#[allow(clippy::too_many_arguments)]
pub(crate) fn parse_input(
    input: Box<dyn BufRead + Send>,
    name: &str,
    format: &Format,
    opts: &ReadOptions,
    ops: OpFilter,
    mapper: &mut Mapper,
    spool: &mut Spool,
    tuning: Tuning,
) -> Result<()> {
    let rules = Rules {
        arc: matches!(format, Format::Arc),
        max_blocks: opts.max_request_blocks(),
        max_request_bytes: opts.max_request_bytes,
    };
    let keep = ops.keeps(Op::Read);
    let parallel = rayon::current_num_threads() > 1;
    let parse_err = |line: u64, msg: String| Error::Parse {
        path: name.to_string(),
        line,
        msg,
    };
    let long_line = |line: u64| {
        parse_err(
            line,
            format!(
                "line {line} has no line break within {MAX_LINE_BYTES} bytes (the limit of a text line)"
            ),
        )
    };
    // Lines before the region being handled.
    let mut line_no = 0u64;
    // The start of a line cut by a block's end, and that line once complete.
    let mut carry: Vec<u8> = Vec::new();
    let mut first_line: Vec<u8> = Vec::new();
    // Parallel mode: the previous region's pieces (awaiting mapping) and this region's.
    let mut parsed: Vec<Piece> = Vec::new();
    let mut parsing: Vec<Piece> = Vec::new();
    let mut one = Piece::default();
    std::thread::scope(|s| -> Result<()> {
        let (tx, rx) = mpsc::sync_channel::<std::io::Result<Vec<u8>>>(2);
        let (back_tx, back_rx) = mpsc::channel::<Vec<u8>>();
        let block_size = tuning.block;
        s.spawn(move || read_blocks(input, block_size, tx, back_rx));
        for block in rx {
            let block = block.map_err(|e| Error::Io {
                path: format!("{name} (after line {line_no})"),
                cause: e,
            })?;
            let mut data = &block[..];
            first_line.clear();
            if !carry.is_empty() {
                match memchr::memchr(b'\n', data) {
                    Some(i) => {
                        carry.extend_from_slice(&data[..i]);
                        if carry.len() > MAX_LINE_BYTES {
                            return Err(long_line(line_no + 1));
                        }
                        carry.push(b'\n');
                        std::mem::swap(&mut carry, &mut first_line);
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
            let end = memchr::memrchr(b'\n', data).map_or(0, |i| i + 1);
            let (body, tail) = data.split_at(end);
            // The region: the completed carried line, then the block's whole lines.
            let mut slices: Vec<&[u8]> = Vec::with_capacity(body.len() / tuning.piece + 2);
            if !first_line.is_empty() {
                slices.push(&first_line);
            }
            cut(body, tuning.piece, &mut slices);
            if parallel {
                parsing.resize_with(slices.len(), Piece::default);
                let (mapped, ()) = rayon::join(
                    || map_pieces(&parsed, rules, keep, mapper, spool),
                    || {
                        parsing[..slices.len()]
                            .par_iter_mut()
                            .zip(slices.par_iter())
                            .for_each(|(p, s)| {
                                p.clear();
                                parse_piece(s, rules, p);
                            })
                    },
                );
                mapped?;
                for p in &parsing {
                    if let Some((at, msg)) = &p.error {
                        return Err(parse_err(line_no + at, msg.clone()));
                    }
                    line_no += p.lines;
                }
                std::mem::swap(&mut parsed, &mut parsing);
            } else {
                for s in &slices {
                    one.clear();
                    parse_piece(s, rules, &mut one);
                    if let Some((at, msg)) = one.error.take() {
                        return Err(parse_err(line_no + at, msg));
                    }
                    line_no += one.lines;
                    map_piece(&one, rules, keep, mapper, spool)?;
                }
            }
            if tail.len() > MAX_LINE_BYTES {
                return Err(long_line(line_no + 1));
            }
            carry.clear();
            carry.extend_from_slice(tail);
            // The reader may have stopped; then the block is simply dropped.
            let _ = back_tx.send(block);
        }
        Ok(())
    })?;
    map_pieces(&parsed, rules, keep, mapper, spool)?;
    if !carry.is_empty() {
        one.clear();
        parse_piece(&carry, rules, &mut one);
        if let Some((at, msg)) = one.error.take() {
            return Err(parse_err(line_no + at, msg));
        }
        map_piece(&one, rules, keep, mapper, spool)?;
    }
    Ok(())
}

/// Cuts whole lines `body` into pieces of about `piece` bytes, each ending with a line break.
fn cut<'a>(body: &'a [u8], piece: usize, out: &mut Vec<&'a [u8]>) {
    let mut pos = 0;
    while pos < body.len() {
        let end = if body.len() - pos <= piece {
            body.len()
        } else {
            memchr::memchr(b'\n', &body[pos + piece - 1..]).map_or(body.len(), |i| pos + piece + i)
        };
        out.push(&body[pos..end]);
        pos = end;
    }
}

fn map_pieces(
    pieces: &[Piece],
    rules: Rules,
    keep: bool,
    mapper: &mut Mapper,
    spool: &mut Spool,
) -> Result<()> {
    pieces
        .iter()
        .try_for_each(|p| map_piece(p, rules, keep, mapper, spool))
}

/// Maps a parsed piece's references to dense ids, in order, into `spool`.
fn map_piece(
    piece: &Piece,
    rules: Rules,
    keep: bool,
    mapper: &mut Mapper,
    spool: &mut Spool,
) -> Result<()> {
    if !keep {
        return Ok(());
    }
    if rules.arc {
        mapper.map_ranges(&piece.ids, &piece.counts, spool)
    } else {
        mapper.map_all(&piece.ids, spool)
    }
}

/// Parses the lines of `data` (each ending with a line break, except perhaps the last) into
/// `out`, stopping at the first bad line.
fn parse_piece(data: &[u8], rules: Rules, out: &mut Piece) {
    if rules.arc {
        parse_arc(data, rules, out)
    } else {
        parse_lirs(data, out)
    }
}

/// LIRS: the common line (1 to 19 digits, then `\n`) is read in one pass over its bytes; any
/// other line (CRLF, spaces, `*`, blank, 20 digits, bad) takes the general path.
fn parse_lirs(data: &[u8], out: &mut Piece) {
    // Locals, not `out`'s fields, in the loop: stores through `out` would be redone per line.
    let mut ids = std::mem::take(&mut out.ids);
    let mut lines = 0u64;
    let n = data.len();
    let mut i = 0;
    while i < n {
        // Most lines are short: 1 to 7 digits and `\n` read as one word.
        if let Some(word) = data.get(i..i + 8) {
            if let Some((value, len)) = short_line(u64::from_le_bytes(word.try_into().unwrap())) {
                ids.push(value);
                lines += 1;
                i += len + 1;
                continue;
            }
        }
        let start = i;
        let mut value: u64 = 0;
        while i < n {
            let d = data[i].wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            // 19 digits cannot overflow; longer runs are rejected below and re-read.
            value = value.wrapping_mul(10).wrapping_add(d as u64);
            i += 1;
        }
        let digits = i - start;
        if i < n && data[i] == b'\n' && (1..=19).contains(&digits) {
            ids.push(value);
            lines += 1;
            i += 1;
            continue;
        }
        let end = memchr::memchr(b'\n', &data[start..]).map_or(n, |k| start + k);
        lines += 1;
        let line = trim_line(&data[start..end]);
        i = end + 1;
        if line.is_empty() || line == b"*" {
            continue;
        }
        match parse_u64(line) {
            Some(block) => ids.push(block),
            None => {
                out.error = Some((
                    lines,
                    format!("expected a block number or '*', found '{}'", excerpt(line)),
                ));
                break;
            }
        }
    }
    out.ids = ids;
    out.lines = lines;
}

/// The value and digit count of a line of 1 to 7 ASCII digits and `\n` at the start of the
/// little-endian `word` (eight bytes of input); `None` for anything else. Branch-free over the
/// word's bytes (SWAR): which are digits, where the first non-digit is, then the digits'
/// value by three multiplications.
#[inline(always)]
fn short_line(word: u64) -> Option<(u64, usize)> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    // A byte is a digit when its high nibble is 3 both as it is and with 6 added (0x3A-0x3F
    // become 0x40-0x45). A carry out of a byte of 0xFA or more reaches only later bytes, and
    // such a byte is not a digit, so the first non-digit is still found.
    let high = (word & (0xF0 * ONES)) ^ (0x30 * ONES);
    let plus6 = (word.wrapping_add(0x06 * ONES) & (0xF0 * ONES)) ^ (0x30 * ONES);
    let odd = high | plus6;
    // Bit 7 of each byte of `odd` that is not zero.
    let flags = (((odd & (0x7F * ONES)) + (0x7F * ONES)) | odd) & (0x80 * ONES);
    let len = (flags.trailing_zeros() / 8) as usize;
    if len == 0 || len == 8 || (word >> (8 * len)) as u8 != b'\n' {
        return None;
    }
    // The digits moved to the word's top (the first digit the most significant of eight,
    // zeros before it), then pairs, quads and the eight combined.
    let v = (word << (8 * (8 - len))) & (0x0F * ONES);
    let v = (v.wrapping_mul(10 * 256 + 1) >> 8) & 0x00FF_00FF_00FF_00FF;
    let v = (v.wrapping_mul(100 * 65536 + 1) >> 16) & 0x0000_FFFF_0000_FFFF;
    let v = v.wrapping_mul(10000 * (1 << 32) + 1) >> 32;
    Some((v, len))
}

/// ARC: `start_block num_blocks ignore request_no` lines become (start, count) pairs.
fn parse_arc(data: &[u8], rules: Rules, out: &mut Piece) {
    let mut pos = 0;
    while pos < data.len() {
        let end = memchr::memchr(b'\n', &data[pos..]).map_or(data.len(), |k| pos + k);
        let line = trim_line(&data[pos..end]);
        pos = end + 1;
        out.lines += 1;
        if line.is_empty() {
            continue;
        }
        let (block, count) = match arc_fields(line) {
            Some(r) => r,
            // The general parser words the error (or reads what the quick one does not).
            None => match ArcReader::parse(line, 1) {
                Ok(r) => (r.block, r.count as u64),
                Err(msg) => {
                    out.error = Some((out.lines, msg));
                    return;
                }
            },
        };
        if count > rules.max_blocks {
            out.error = Some((
                out.lines,
                format!(
                    "a request of {count} blocks exceeds the limit of {} bytes per request (max_request_bytes)",
                    rules.max_request_bytes
                ),
            ));
            return;
        }
        out.ids.push(block);
        out.counts.push(count as u32);
    }
}

/// The start and count of a well-formed ARC line (four fields, the first two numbers, the
/// count from 1 to `u32::MAX`, the range within 64 bits); `None` for anything else.
#[inline]
fn arc_fields(line: &[u8]) -> Option<(u64, u64)> {
    let mut fields = line
        .split(|c| *c == b' ' || *c == b'\t')
        .filter(|f| !f.is_empty());
    let block = parse_u64(fields.next()?)?;
    let count = parse_u64(fields.next()?)?;
    fields.next()?;
    fields.next()?;
    if fields.next().is_some() || count == 0 || count > u32::MAX as u64 {
        return None;
    }
    block.checked_add(count - 1)?;
    Some((block, count))
}

/// Reads `input` in blocks of `size` bytes (reusing those sent back), until the end, an
/// error, or the parser hanging up.
pub(crate) fn read_blocks(
    mut input: Box<dyn BufRead + Send>,
    size: usize,
    tx: mpsc::SyncSender<std::io::Result<Vec<u8>>>,
    back: mpsc::Receiver<Vec<u8>>,
) {
    loop {
        let mut buf = back.try_recv().unwrap_or_default();
        buf.resize(size, 0);
        let mut filled = 0;
        while filled < size {
            match input.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    // The bytes decoded before the failure go first, so the error is reported
                    // after the last whole line read, not after the previous block.
                    buf.truncate(filled);
                    if filled > 0 && tx.send(Ok(buf)).is_err() {
                        return;
                    }
                    let _ = tx.send(Err(e));
                    return;
                }
            }
        }
        buf.truncate(filled);
        if filled == 0 || tx.send(Ok(buf)).is_err() {
            return;
        }
        if filled < size {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::text::{ArcReader, LirsReader};
    use crate::trace::BlockTrace;
    use proptest::prelude::*;

    /// Dense ids, or the failing line and message.
    type Outcome = std::result::Result<Vec<u32>, (u64, String)>;

    fn outcome(r: Result<Vec<u32>>) -> Outcome {
        r.map_err(|e| match e {
            Error::Parse { line, msg, .. } => (line, msg),
            other => panic!("not a parse error: {other}"),
        })
    }

    /// Parses `data` with this module on a pool of `threads` workers.
    fn streamed(data: &[u8], format: &Format, threads: usize, tuning: Tuning) -> Outcome {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        outcome(pool.install(|| {
            let mut mapper = Mapper::with_capacity(0);
            let mut spool = Spool::new();
            let input = Box::new(std::io::Cursor::new(data.to_vec()));
            let opts = ReadOptions::default();
            parse_input(
                input,
                "t",
                format,
                &opts,
                OpFilter::Read,
                &mut mapper,
                &mut spool,
                tuning,
            )?;
            let mut feed = super::super::finish("t".into(), 4096, mapper, spool)?;
            let mut ids = Vec::new();
            while let Some(chunk) = feed.next_chunk()? {
                ids.extend_from_slice(chunk);
            }
            Ok(ids)
        }))
    }

    /// The same through the line-by-line readers and `BlockTrace` (an independent path).
    fn reference(data: &[u8], format: &Format) -> Outcome {
        let input = Box::new(std::io::Cursor::new(data.to_vec()));
        let stream: crate::trace::RequestStream = match format {
            Format::Arc => Box::new(ArcReader::new(input, "t".into())),
            _ => Box::new(LirsReader::new(input, "t".into())),
        };
        outcome(
            BlockTrace::from_requests(stream, OpFilter::Read, false, "t".into(), 4096)
                .map(|t| t.refs),
        )
    }

    fn lirs_line() -> impl Strategy<Value = String> {
        prop_oneof![
            30 => (0u64..60).prop_map(|b| b.to_string()),
            2 => Just("18446744073709551615".to_string()),
            2 => Just("9999999999999999999".to_string()),
            2 => Just("*".to_string()),
            3 => Just(String::new()),
            2 => (0u64..60).prop_map(|b| format!(" \t{b} ")),
            1 => prop::sample::select(vec!["x", "1a", "-3", "18446744073709551616", "1 2"])
                .prop_map(str::to_string),
        ]
    }

    fn arc_line() -> impl Strategy<Value = String> {
        prop_oneof![
            30 => (0u64..60, 1u32..5, 0u32..9).prop_map(|(b, c, i)| format!("{b} {c} 0 {i}")),
            2 => Just(String::new()),
            2 => (0u64..60).prop_map(|b| format!("\t{b}  1 x  7 ")),
            1 => prop::sample::select(vec!["1 0 0 0", "1 2", "x 1 0 0", "1 2 3 4 5"])
                .prop_map(str::to_string),
        ]
    }

    fn join(lines: &[String], crlf: &[bool], final_break: bool) -> Vec<u8> {
        let mut out = String::new();
        for (i, (l, &cr)) in lines.iter().zip(crlf).enumerate() {
            out.push_str(l);
            if i + 1 < lines.len() || final_break {
                out.push_str(if cr { "\r\n" } else { "\n" });
            }
        }
        out.into_bytes()
    }

    fn check(data: &[u8], format: &Format, block: usize, piece: usize) {
        let tuning = Tuning { block, piece };
        let one = streamed(data, format, 1, tuning);
        let many = streamed(data, format, 3, tuning);
        assert_eq!(one, many, "one thread vs three");
        let want = reference(data, format);
        match (&one, &want) {
            (Err((line, _)), Err((want_line, _))) => assert_eq!(line, want_line),
            _ => assert_eq!(one, want, "streamed vs line reader"),
        }
    }

    /// Loads `data` whole through [`load_text`] (from a file, as `BlockTrace::load` does) on a
    /// pool of `threads` workers: the dense ids and each one's original, or the failing line.
    fn loaded(data: &[u8], format: &Format, threads: usize) -> OutcomeWithOriginals {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        std::fs::write(&path, data).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let opts = ReadOptions::default();
        pool.install(|| {
            crate::trace::ingest::load_text(&path, format, &opts, OpFilter::Read)
                .map(|t| (t.refs, t.originals))
                .map_err(|e| match e {
                    Error::Parse { line, .. } => line,
                    other => panic!("not a parse error: {other}"),
                })
        })
    }

    /// Dense ids and originals, or the failing line.
    type OutcomeWithOriginals = std::result::Result<(Vec<u32>, Vec<u64>), u64>;

    /// The line-by-line readers' `BlockTrace` (an independent path) for [`loaded`].
    fn reference_whole(data: &[u8], format: &Format) -> OutcomeWithOriginals {
        let input = Box::new(std::io::Cursor::new(data.to_vec()));
        let stream: crate::trace::RequestStream = match format {
            Format::Arc => Box::new(ArcReader::new(input, "t".into())),
            _ => Box::new(LirsReader::new(input, "t".into())),
        };
        BlockTrace::from_requests(stream, OpFilter::Read, false, "t".into(), 4096)
            .map(|t| (t.refs, t.originals))
            .map_err(|e| match e {
                Error::Parse { line, .. } => line,
                other => panic!("not a parse error: {other}"),
            })
    }

    fn check_whole(data: &[u8], format: &Format) {
        let want = reference_whole(data, format);
        for threads in [1, 3] {
            assert_eq!(loaded(data, format, threads), want, "{threads} thread(s)");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn lirs_pieces_in_parallel_equal_sequential_and_the_line_reader(
            lines in prop::collection::vec(lirs_line(), 0..120),
            crlf in prop::collection::vec(any::<bool>(), 120),
            final_break: bool,
            block in 1usize..80,
            piece in 1usize..40,
        ) {
            check(&join(&lines, &crlf, final_break), &Format::Lirs, block, piece);
        }

        #[test]
        fn arc_pieces_in_parallel_equal_sequential_and_the_line_reader(
            lines in prop::collection::vec(arc_line(), 0..120),
            crlf in prop::collection::vec(any::<bool>(), 120),
            final_break: bool,
            block in 1usize..80,
            piece in 1usize..40,
        ) {
            check(&join(&lines, &crlf, final_break), &Format::Arc, block, piece);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(60))]

        #[test]
        fn loading_whole_equals_the_line_readers_trace(
            lines in prop::collection::vec(lirs_line(), 0..120),
            arc_lines in prop::collection::vec(arc_line(), 0..120),
            crlf in prop::collection::vec(any::<bool>(), 120),
            final_break: bool,
        ) {
            check_whole(&join(&lines, &crlf, final_break), &Format::Lirs);
            check_whole(&join(&arc_lines, &crlf, final_break), &Format::Arc);
        }
    }

    #[test]
    fn loading_whole_keeps_first_reference_order_past_the_spools_memory_part() {
        // 200,000 lines over 5,000 scattered ids: the whole spool grows past its first
        // reservation (a streaming spool would spill at 4096 references under test).
        let mut text = String::new();
        let mut x: u64 = 7;
        for _ in 0..200_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            text.push_str(&format!("{}\n", (x >> 40) % 5000 * 1_000_003));
        }
        check_whole(text.as_bytes(), &Format::Lirs);
        let (refs, originals) = loaded(text.as_bytes(), &Format::Lirs, 1).unwrap();
        assert_eq!((refs.len(), originals.len()), (200_000, 5000));
    }

    #[test]
    fn a_long_trace_spills_and_keeps_first_reference_order_at_real_sizes() {
        // 200,000 lines over 5,000 blocks: several blocks of 64 KiB pieces, and the spool
        // (4096 references in memory under test) spills.
        let mut text = String::new();
        let mut x: u64 = 7;
        for _ in 0..200_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            text.push_str(&format!("{}\n", (x >> 40) % 5000 * 1_000_003));
        }
        let small = Tuning {
            block: 1 << 14,
            piece: 1 << 11,
        };
        for tuning in [TUNING, small] {
            let one = streamed(text.as_bytes(), &Format::Lirs, 1, tuning);
            assert_eq!(one, streamed(text.as_bytes(), &Format::Lirs, 2, tuning));
            assert_eq!(one, reference(text.as_bytes(), &Format::Lirs));
        }
    }

    #[test]
    fn short_lines_read_as_words_equal_the_bytewise_reading() {
        // Every word of digits, breaks, CR, spaces, `*`, and the bytes around the digit range
        // and the carry edge, in every position.
        let alphabet = [
            b'0', b'1', b'5', b'9', b'\n', b'\r', b' ', b'*', b'/', b':', 0xFA, 0xFF, 0,
        ];
        let mut x: u64 = 3;
        for _ in 0..300_000 {
            let mut bytes = [0u8; 8];
            for b in &mut bytes {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                *b = alphabet[(x >> 33) as usize % alphabet.len()];
            }
            let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
            let want = ((1..=7).contains(&digits) && bytes[digits] == b'\n').then(|| {
                let text = std::str::from_utf8(&bytes[..digits]).unwrap();
                (text.parse::<u64>().unwrap(), digits)
            });
            assert_eq!(short_line(u64::from_le_bytes(bytes)), want, "{bytes:?}");
        }
        assert_eq!(
            short_line(u64::from_le_bytes(*b"9999999\n")),
            Some((9_999_999, 7))
        );
        assert_eq!(short_line(u64::from_le_bytes(*b"0\n123456")), Some((0, 1)));
        assert_eq!(short_line(u64::from_le_bytes(*b"12345678")), None);
    }

    #[test]
    fn an_error_names_its_line_across_pieces_and_blocks() {
        let mut text = String::new();
        for i in 0..5000 {
            text.push_str(&format!("{i}\n"));
        }
        text.push_str("12x\n1\n");
        for threads in [1, 2] {
            let got = streamed(
                text.as_bytes(),
                &Format::Lirs,
                threads,
                Tuning {
                    block: 333,
                    piece: 17,
                },
            );
            assert_eq!(
                got,
                Err((
                    5001,
                    "expected a block number or '*', found '12x'".to_string()
                ))
            );
        }
    }
}
