//! Line-oriented block traces: the LIRS one-id-per-line form and the ARC paper's form.

use super::input::{excerpt, parse_u64, trim_line};
use super::{BlockRequest, Op};
use crate::error::{Error, Result};
use std::io::BufRead;

/// Reads lines and tracks their numbers, shared by the text readers.
struct Lines {
    input: Box<dyn BufRead + Send>,
    path: String,
    line_no: u64,
    buf: Vec<u8>,
    failed: bool,
}

impl Lines {
    fn new(input: Box<dyn BufRead + Send>, path: String) -> Self {
        Lines {
            input,
            path,
            line_no: 0,
            buf: Vec::with_capacity(128),
            failed: false,
        }
    }

    /// Advances to the next line; `None` at the end or after an error was reported.
    fn advance(&mut self) -> Option<Result<()>> {
        if self.failed {
            return None;
        }
        self.buf.clear();
        match self.input.read_until(b'\n', &mut self.buf) {
            Ok(0) => None,
            Ok(_) => {
                self.line_no += 1;
                Some(Ok(()))
            }
            Err(e) => {
                self.failed = true;
                Some(Err(Error::Io {
                    path: format!("{} (after line {})", self.path, self.line_no),
                    cause: e,
                }))
            }
        }
    }

    fn error(&mut self, msg: String) -> Error {
        self.failed = true;
        Error::Parse {
            path: self.path.clone(),
            line: self.line_no,
            msg,
        }
    }
}

/// The LIRS / CLOCK-Pro trace form: one block id per line, `*` marker lines skipped.
pub struct LirsReader {
    lines: Lines,
    block_size: u64,
}

impl LirsReader {
    /// Wraps a decompressed input; `path` is used in error messages.
    pub fn new(input: Box<dyn BufRead + Send>, path: String) -> Self {
        LirsReader {
            lines: Lines::new(input, path),
            block_size: super::ReadOptions::default().block_size as u64,
        }
    }

    /// Sets the bytes of one block, which each request asks for (default 4096).
    pub fn with_block_size(mut self, block_size: u32) -> Self {
        self.block_size = block_size as u64;
        self
    }
}

impl Iterator for LirsReader {
    type Item = Result<BlockRequest>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Err(e) = self.lines.advance()? {
                return Some(Err(e));
            }
            let line = trim_line(&self.lines.buf);
            if line.is_empty() || line == b"*" {
                continue;
            }
            return Some(match parse_u64(line) {
                Some(block) => Ok(BlockRequest {
                    block,
                    count: 1,
                    op: Op::Read,
                    time_ns: None,
                    bytes: self.block_size,
                }),
                None => {
                    let msg = format!("expected a block number or '*', found '{}'", excerpt(line));
                    Err(self.lines.error(msg))
                }
            });
        }
    }
}

/// The ARC paper's form: `start_block num_blocks ignore request_no`, reads only.
pub struct ArcReader {
    lines: Lines,
    max_blocks: u64,
    block_size: u64,
}

impl ArcReader {
    /// Wraps a decompressed input; `path` is used in error messages.
    pub fn new(input: Box<dyn BufRead + Send>, path: String) -> Self {
        ArcReader {
            lines: Lines::new(input, path),
            max_blocks: super::ReadOptions::default().max_request_blocks(),
            block_size: super::ReadOptions::default().block_size as u64,
        }
    }

    /// Sets the bytes of one block: a request of `n` blocks asks for `n` of them (default 4096).
    pub fn with_block_size(mut self, block_size: u32) -> Self {
        self.block_size = block_size as u64;
        self
    }

    /// Refuses requests of more than `max_blocks` blocks (see [`super::ReadOptions`]).
    pub fn with_max_request_blocks(mut self, max_blocks: u64) -> Self {
        self.max_blocks = max_blocks;
        self
    }

    /// Parses one trimmed line of `block_size`-byte blocks.
    pub(crate) fn parse(line: &[u8], block_size: u64) -> std::result::Result<BlockRequest, String> {
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
        Ok(BlockRequest {
            block,
            count: count as u32,
            op: Op::Read,
            time_ns: None,
            bytes: count * block_size,
        })
    }
}

impl Iterator for ArcReader {
    type Item = Result<BlockRequest>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Err(e) = self.lines.advance()? {
                return Some(Err(e));
            }
            let line = trim_line(&self.lines.buf);
            if line.is_empty() {
                continue;
            }
            let max = self.max_blocks;
            let req = Self::parse(line, self.block_size).and_then(|r| {
                if r.count as u64 > max {
                    Err(format!(
                        "a request of {} blocks is above the limit of {max} blocks (max_request_bytes)",
                        r.count
                    ))
                } else {
                    Ok(r)
                }
            });
            return Some(req.map_err(|msg| self.lines.error(msg)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lirs(text: &str) -> Vec<Result<BlockRequest>> {
        LirsReader::new(
            Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
            "t".into(),
        )
        .collect()
    }

    #[test]
    fn lirs_skips_markers_and_crlf() {
        let got: Vec<u64> = lirs("0\r\n1\r\n*\r\n2\r\n")
            .into_iter()
            .map(|r| r.unwrap().block)
            .collect();
        assert_eq!(got, vec![0, 1, 2]);
    }

    #[test]
    fn lirs_reports_line_of_bad_entry_and_stops() {
        let got = lirs("5\n6\nx7\n8\n");
        assert_eq!(got.len(), 3);
        let err = got[2].as_ref().unwrap_err().to_string();
        assert_eq!(err, "t:3: expected a block number or '*', found 'x7'");
    }

    #[test]
    fn arc_expands_and_validates() {
        let reqs: Vec<_> = ArcReader::new(
            Box::new(std::io::Cursor::new(b"10 3 0 0\n7 1 0 1\n".to_vec())),
            "a".into(),
        )
        .map(|r| r.unwrap())
        .collect();
        assert_eq!(reqs[0].block, 10);
        assert_eq!(reqs[0].count, 3);
        assert_eq!(reqs[1].block, 7);
        let bad: Vec<_> = ArcReader::new(
            Box::new(std::io::Cursor::new(b"1 0 0 0\n".to_vec())),
            "a".into(),
        )
        .collect();
        assert!(bad[0]
            .as_ref()
            .unwrap_err()
            .to_string()
            .starts_with("a:1: "));
        let short: Vec<_> = ArcReader::new(
            Box::new(std::io::Cursor::new(b"1 2\n".to_vec())),
            "a".into(),
        )
        .collect();
        assert!(short[0]
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("expected 'start_block"));
    }

    #[test]
    fn requests_ask_for_their_blocks_bytes() {
        let input = |t: &str| Box::new(std::io::Cursor::new(t.as_bytes().to_vec()));
        let arc: Vec<u64> = ArcReader::new(input("10 3 0 0\n"), "t".into())
            .with_block_size(512)
            .map(|r| r.unwrap().bytes)
            .collect();
        assert_eq!(arc, [3 * 512]);
        let lirs: Vec<u64> = LirsReader::new(input("4\n"), "t".into())
            .with_block_size(8192)
            .map(|r| r.unwrap().bytes)
            .collect();
        assert_eq!(lirs, [8192]);
    }
}
