//! The line-oriented block traces, LIRS (one block id per line, `*` marker lines skipped) and the
//! ARC paper's form (`start_block num_blocks ignore request_no`, reads only), and their one parser.
//!
//! The parser reads a piece of whole lines at a time in place into a vector of original ids
//! (LIRS) or block ranges (ARC), with no per-line allocation, dynamic call or `Result`, and stops
//! at the first bad line, naming it. Two drivers feed it: [`crate::trace::ingest`]'s, which
//! reads the input on its own thread and parses a block's pieces in parallel before mapping them
//! to dense ids (what simulations use), and [`TextReader`], which parses one block at a time on
//! the calling thread and hands out requests (what [`crate::trace::open_requests`] gives). Both
//! read the input in blocks of `TUNING``.block` bytes and carry a line cut by a block's end
//! into the next, so they accept and refuse the same lines with the same messages.

use super::input::{excerpt, parse_u64, trim_line, MAX_LINE_BYTES};
use super::{BlockRequest, Format, Op, ReadOptions};
use crate::error::{Error, Result};
use std::io::BufRead;

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
pub(crate) struct Rules {
    /// ARC lines (`start_block num_blocks ignore request_no`); LIRS lines otherwise.
    pub arc: bool,
    max_blocks: u64,
    max_request_bytes: u64,
}

impl Rules {
    /// The rules of `format` (LIRS or ARC) under `opts`.
    pub(crate) fn of(format: &Format, opts: &ReadOptions) -> Rules {
        Rules {
            arc: matches!(format, Format::Arc),
            max_blocks: opts.max_request_blocks(),
            max_request_bytes: opts.max_request_bytes,
        }
    }
}

/// One piece's parsed content.
#[derive(Default)]
pub(crate) struct Piece {
    /// LIRS: the block ids; ARC: the first block of each request.
    pub ids: Vec<u64>,
    /// ARC: the block count of each request (empty for LIRS).
    pub counts: Vec<u32>,
    /// Lines parsed (all of the piece's lines unless `error` is set).
    pub lines: u64,
    /// The first bad line: its number within the piece (from 1) and what is wrong.
    pub error: Option<(u64, String)>,
}

impl Piece {
    /// Empties the piece for the next one, keeping its room.
    pub(crate) fn clear(&mut self) {
        self.ids.clear();
        self.counts.clear();
        self.lines = 0;
        self.error = None;
    }
}

/// Parses the lines of `data` (each ending with a line break, except perhaps the last) into
/// `out`, stopping at the first bad line.
pub(crate) fn parse_piece(data: &[u8], rules: Rules, out: &mut Piece) {
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
            None => match arc_line(line) {
                Ok(r) => r,
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

/// The start and count of an ARC line, or what is wrong with it: the general path, which words
/// the errors (and reads what [`arc_fields`] does not).
fn arc_line(line: &[u8]) -> std::result::Result<(u64, u64), String> {
    let mut fields = line
        .split(|c| *c == b' ' || *c == b'\t')
        .filter(|f| !f.is_empty());
    let expected = "expected 'start_block num_blocks ignore request_no'";
    let (Some(start), Some(count), Some(_), Some(_), None) = (
        fields.next(),
        fields.next(),
        fields.next(),
        fields.next(),
        fields.next(),
    ) else {
        return Err(format!("{expected}, found '{}'", excerpt(line)));
    };
    let block = parse_u64(start).ok_or_else(|| {
        format!(
            "{expected}: start_block '{}' is not a number",
            excerpt(start)
        )
    })?;
    let count = parse_u64(count)
        .filter(|&c| c >= 1 && c <= u32::MAX as u64)
        .ok_or_else(|| {
            format!(
                "{expected}: num_blocks '{}' is not a positive number",
                excerpt(count)
            )
        })?;
    if block.checked_add(count - 1).is_none() {
        return Err(format!("block range {block}+{count} overflows 64 bits"));
    }
    Ok((block, count))
}

/// Cuts whole lines `body` into pieces of about `piece` bytes, each ending with a line break.
pub(crate) fn cut<'a>(body: &'a [u8], piece: usize, out: &mut Vec<&'a [u8]>) {
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

/// The error for a line with no line break within [`MAX_LINE_BYTES`] bytes.
pub(crate) fn long_line(name: &str, line: u64) -> Error {
    Error::Parse {
        path: name.to_string(),
        line,
        msg: format!(
            "line {line} has no line break within {MAX_LINE_BYTES} bytes (the limit of a text line)"
        ),
    }
}

/// A LIRS or ARC trace read request by request: the parser over one block of whole lines at a
/// time, on the calling thread.
pub struct TextReader {
    input: Box<dyn BufRead + Send>,
    name: String,
    rules: Rules,
    /// Bytes read at a time ([`TUNING`]`.block`; tests make it tiny).
    block: usize,
    /// Bytes of one block, which a request of `n` blocks asks `n` times for.
    block_size: u64,
    /// The line cut by the last block's end, then the block read after it.
    buf: Vec<u8>,
    /// The parsed lines, handed out from `next`.
    piece: Piece,
    next: usize,
    /// Lines before those in `piece`.
    line_no: u64,
    /// What ends the stream once `piece` is handed out: an error, or the end (`None`).
    end: Option<Option<Error>>,
}

impl TextReader {
    /// Reads `format` (LIRS or ARC) from a decompressed `input` under `opts`; `name` is used in
    /// error messages.
    pub fn new(
        input: Box<dyn BufRead + Send>,
        name: String,
        format: &Format,
        opts: &ReadOptions,
    ) -> Self {
        TextReader {
            input,
            name,
            rules: Rules::of(format, opts),
            block: TUNING.block,
            block_size: opts.block_size as u64,
            buf: Vec::new(),
            piece: Piece::default(),
            next: 0,
            line_no: 0,
            end: None,
        }
    }

    /// Reads the next block and parses its whole lines (with the line carried into it) into
    /// `piece`; sets `end` at the end of the input or at an error.
    fn refill(&mut self) {
        self.line_no += self.piece.lines;
        self.piece.clear();
        self.next = 0;
        let carried = self.buf.len();
        let block = self.block;
        self.buf.resize(carried + block, 0);
        let mut filled = 0;
        while filled < block {
            match self.input.read(&mut self.buf[carried + filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    // The whole lines decoded before the failure go first.
                    self.buf.truncate(carried + filled);
                    self.parse_whole_lines(carried, Some(e));
                    return;
                }
            }
        }
        self.buf.truncate(carried + filled);
        if filled == 0 {
            // The last line, without a line break.
            let last = std::mem::take(&mut self.buf);
            if !last.is_empty() {
                parse_piece(&last, self.rules, &mut self.piece);
            }
            self.end = Some(self.piece_error());
            return;
        }
        self.parse_whole_lines(carried, None);
    }

    /// Parses the whole lines of `buf` (whose first `carried` bytes are a line carried from the
    /// block before) and keeps the rest for the next block; a read error `failed` ends the
    /// stream after them.
    fn parse_whole_lines(&mut self, carried: usize, failed: Option<std::io::Error>) {
        let fresh = &self.buf[carried..];
        // The carried line, completed or not, must fit as the ingest driver's must.
        let first = memchr::memchr(b'\n', fresh).unwrap_or(fresh.len());
        if carried > 0 && carried + first > MAX_LINE_BYTES {
            self.end = Some(Some(long_line(&self.name, self.line_no + 1)));
            return;
        }
        let end = memchr::memrchr(b'\n', &self.buf).map_or(0, |i| i + 1);
        parse_piece(&self.buf[..end], self.rules, &mut self.piece);
        if let Some(error) = self.piece_error() {
            self.end = Some(Some(error));
            return;
        }
        self.buf.drain(..end);
        if self.buf.len() > MAX_LINE_BYTES {
            self.end = Some(Some(long_line(
                &self.name,
                self.line_no + self.piece.lines + 1,
            )));
        } else if let Some(cause) = failed {
            self.end = Some(Some(Error::Io {
                path: format!(
                    "{} (after line {})",
                    self.name,
                    self.line_no + self.piece.lines
                ),
                cause,
            }));
        }
    }

    /// The error of the piece's bad line, if any, numbered within the whole input.
    fn piece_error(&mut self) -> Option<Error> {
        self.piece.error.take().map(|(at, msg)| Error::Parse {
            path: self.name.clone(),
            line: self.line_no + at,
            msg,
        })
    }
}

impl Iterator for TextReader {
    type Item = Result<BlockRequest>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(&block) = self.piece.ids.get(self.next) {
                let count = self.piece.counts.get(self.next).map_or(1, |&c| c);
                self.next += 1;
                return Some(Ok(BlockRequest {
                    block,
                    count,
                    op: Op::Read,
                    time_ns: None,
                    bytes: count as u64 * self.block_size,
                }));
            }
            match self.end.take() {
                // Once ended, the stream stays ended.
                Some(end) => {
                    self.end = Some(None);
                    return end.map(Err);
                }
                None => self.refill(),
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What a LIRS (or, with `arc`, ARC) text holds, read line by line with the standard library:
    /// an independent reading the parser must agree with. Each request's (block, count), and the
    /// number of the first bad line, if any.
    pub(crate) fn naive(data: &[u8], arc: bool) -> (Vec<(u64, u64)>, Option<u64>) {
        let max_blocks = ReadOptions::default().max_request_blocks();
        let number = |f: &str| {
            (!f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
                .then(|| f.parse::<u64>().ok())
                .flatten()
        };
        let text = String::from_utf8_lossy(data);
        let mut out = Vec::new();
        for (i, line) in text.split('\n').enumerate() {
            let line = line
                .trim_end_matches(['\r', ' ', '\t'])
                .trim_start_matches([' ', '\t']);
            if line.is_empty() || (!arc && line == "*") {
                continue;
            }
            let request = if arc {
                let f: Vec<&str> = line.split([' ', '\t']).filter(|f| !f.is_empty()).collect();
                (f.len() == 4)
                    .then(|| Some((number(f[0])?, number(f[1])?)))
                    .flatten()
                    .filter(|&(b, c)| {
                        (1..=max_blocks.min(u32::MAX as u64)).contains(&c)
                            && b.checked_add(c - 1).is_some()
                    })
            } else {
                number(line).map(|b| (b, 1))
            };
            match request {
                Some(r) => out.push(r),
                None => return (out, Some(i as u64 + 1)),
            }
        }
        (out, None)
    }

    /// `data` through [`TextReader`] reading `block` bytes at a time: as [`naive`] gives it.
    fn read(data: &[u8], format: &Format, block: usize) -> (Vec<(u64, u64)>, Option<u64>) {
        let input = Box::new(std::io::Cursor::new(data.to_vec()));
        let mut reader = TextReader::new(input, "t".into(), format, &ReadOptions::default());
        reader.block = block;
        let mut out = Vec::new();
        for req in reader {
            match req {
                Ok(r) => out.push((r.block, r.count as u64)),
                Err(Error::Parse { line, .. }) => return (out, Some(line)),
                Err(other) => panic!("not a parse error: {other}"),
            }
        }
        (out, None)
    }

    pub(crate) fn lirs_line() -> impl Strategy<Value = String> {
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

    pub(crate) fn arc_line() -> impl Strategy<Value = String> {
        prop_oneof![
            30 => (0u64..60, 1u32..5, 0u32..9).prop_map(|(b, c, i)| format!("{b} {c} 0 {i}")),
            2 => Just(String::new()),
            2 => (0u64..60).prop_map(|b| format!("\t{b}  1 x  7 ")),
            1 => prop::sample::select(vec!["1 0 0 0", "1 2", "x 1 0 0", "1 2 3 4 5", "+1 2 3 4"])
                .prop_map(str::to_string),
        ]
    }

    pub(crate) fn join(lines: &[String], crlf: &[bool], final_break: bool) -> Vec<u8> {
        let mut out = String::new();
        for (i, (l, &cr)) in lines.iter().zip(crlf).enumerate() {
            out.push_str(l);
            if i + 1 < lines.len() || final_break {
                out.push_str(if cr { "\r\n" } else { "\n" });
            }
        }
        out.into_bytes()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn the_reader_reads_what_a_line_by_line_reading_reads(
            lirs in prop::collection::vec(lirs_line(), 0..120),
            arc in prop::collection::vec(arc_line(), 0..120),
            crlf in prop::collection::vec(any::<bool>(), 120),
            final_break: bool,
            block in 1usize..80,
        ) {
            let data = join(&lirs, &crlf, final_break);
            prop_assert_eq!(read(&data, &Format::Lirs, block), naive(&data, false));
            let data = join(&arc, &crlf, final_break);
            prop_assert_eq!(read(&data, &Format::Arc, block), naive(&data, true));
        }
    }

    fn requests(text: &str, format: &Format, opts: &ReadOptions) -> Vec<Result<BlockRequest>> {
        let input = Box::new(std::io::Cursor::new(text.as_bytes().to_vec()));
        TextReader::new(input, "t".into(), format, opts).collect()
    }

    #[test]
    fn lirs_skips_markers_and_crlf() {
        let got: Vec<u64> = requests(
            "0\r\n1\r\n*\r\n2\r\n",
            &Format::Lirs,
            &ReadOptions::default(),
        )
        .into_iter()
        .map(|r| r.unwrap().block)
        .collect();
        assert_eq!(got, vec![0, 1, 2]);
    }

    #[test]
    fn lirs_reports_line_of_bad_entry_and_stops() {
        let got = requests("5\n6\nx7\n8\n", &Format::Lirs, &ReadOptions::default());
        assert_eq!(got.len(), 3);
        let err = got[2].as_ref().unwrap_err().to_string();
        assert_eq!(err, "t:3: expected a block number or '*', found 'x7'");
    }

    #[test]
    fn arc_expands_and_validates() {
        let opts = ReadOptions::default();
        let reqs: Vec<_> = requests("10 3 0 0\n7 1 0 1\n", &Format::Arc, &opts)
            .into_iter()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!((reqs[0].block, reqs[0].count), (10, 3));
        assert_eq!(reqs[1].block, 7);
        let bad = requests("1 0 0 0\n", &Format::Arc, &opts);
        assert!(bad[0]
            .as_ref()
            .unwrap_err()
            .to_string()
            .starts_with("t:1: "));
        let short = requests("1 2\n", &Format::Arc, &opts);
        let err = short[0].as_ref().unwrap_err().to_string();
        assert!(err.contains("expected 'start_block"), "{err}");
        let limited = ReadOptions {
            max_request_bytes: 2 * 4096,
            ..ReadOptions::default()
        };
        let err = requests("1 2 0 0\n1 3 0 0\n", &Format::Arc, &limited)[1]
            .as_ref()
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "t:2: a request of 3 blocks exceeds the limit of 8192 bytes per request (max_request_bytes)"
        );
    }

    #[test]
    fn requests_ask_for_their_blocks_bytes() {
        let opts = |block_size| ReadOptions::with_block_size(block_size);
        let arc: Vec<u64> = requests("10 3 0 0\n", &Format::Arc, &opts(512))
            .into_iter()
            .map(|r| r.unwrap().bytes)
            .collect();
        assert_eq!(arc, [3 * 512]);
        let lirs: Vec<u64> = requests("4\n", &Format::Lirs, &opts(8192))
            .into_iter()
            .map(|r| r.unwrap().bytes)
            .collect();
        assert_eq!(lirs, [8192]);
    }

    #[test]
    fn a_line_longer_than_the_limit_is_named() {
        let mut text = "1\n2\n".to_string();
        text.push_str(&"3".repeat(MAX_LINE_BYTES + 10));
        text.push_str("\n4\n");
        let got = requests(&text, &Format::Lirs, &ReadOptions::default());
        assert_eq!(got.len(), 3);
        let err = got[2].as_ref().unwrap_err().to_string();
        assert!(
            err.starts_with("t:3: line 3 has no line break within"),
            "{err}"
        );
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
}
