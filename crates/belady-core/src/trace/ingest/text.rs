//! Fast ingest of the line-oriented block formats (LIRS, ARC), through their one parser
//! ([`crate::trace::text`]).
//!
//! The input is read and decompressed on its own thread in large blocks. Each block is cut at
//! line breaks into pieces; a piece is parsed in place into a vector of original ids (LIRS) or
//! block ranges (ARC), and the vector is then mapped to dense ids in trace order, so dense ids
//! are numbered by first reference whatever the thread count. With one worker thread each piece
//! is parsed and mapped in turn (its ids stay in cache); with more, a block's pieces are parsed
//! in parallel on the rayon pool while the previous block's are mapped.

use super::{Mapper, Spool};
use crate::error::{Error, Result};
use crate::trace::input::{open_trace, MAX_LINE_BYTES};
use crate::trace::text::{cut, long_line, parse_piece, Piece, Rules, Tuning, TUNING};
use crate::trace::{Format, Op, OpFilter, ReadOptions};
use rayon::prelude::*;
use std::io::{BufRead, Read};
use std::path::Path;
use std::sync::mpsc;

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
    let rules = Rules::of(format, opts);
    let keep = ops.keeps(Op::Read);
    let parallel = rayon::current_num_threads() > 1;
    let parse_err = |line: u64, msg: String| Error::Parse {
        path: name.to_string(),
        line,
        msg,
    };
    let long_line = |line: u64| long_line(name, line);
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
    use crate::trace::text::tests::{arc_line, join, lirs_line, naive};
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

    /// Dense ids numbered by first reference from a line-by-line reading (an independent path),
    /// with each one's original, or the failing line.
    fn reference_whole(data: &[u8], format: &Format) -> OutcomeWithOriginals {
        let (requests, bad) = naive(data, matches!(format, Format::Arc));
        if let Some(line) = bad {
            return Err(line);
        }
        let mut first = std::collections::HashMap::new();
        let mut originals = Vec::new();
        let mut refs = Vec::new();
        for (block, count) in requests {
            for b in (0..count).map(|k| block + k) {
                refs.push(*first.entry(b).or_insert_with(|| {
                    originals.push(b);
                    originals.len() as u32 - 1
                }));
            }
        }
        Ok((refs, originals))
    }

    /// [`reference_whole`]'s dense ids, or the failing line.
    fn reference(data: &[u8], format: &Format) -> Outcome {
        reference_whole(data, format)
            .map(|(refs, _)| refs)
            .map_err(|line| (line, String::new()))
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

    /// Loads `data` whole through `BlockTrace::load` (from a file, as the ingest reads it) on a
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
            match crate::trace::BlockTrace::load(&path, format, &opts, OpFilter::Read) {
                Ok(t) => Ok((t.refs, t.originals)),
                Err(Error::Parse { line, .. }) => Err(line),
                // Loading refuses a trace with no reference; the reference reads none either.
                Err(Error::EmptyTrace { .. }) => Ok((Vec::new(), Vec::new())),
                Err(other) => panic!("not a parse error: {other}"),
            }
        })
    }

    /// Dense ids and originals, or the failing line.
    type OutcomeWithOriginals = std::result::Result<(Vec<u32>, Vec<u64>), u64>;

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
