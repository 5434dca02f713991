//! Fixed-width binary block ids (`u32le`, `u32be`).

use super::{BlockRequest, Op};
use crate::error::{Error, Result};
use std::io::{BufRead, Read};

/// Reads back-to-back 32-bit block ids.
pub struct U32Reader {
    input: Box<dyn BufRead + Send>,
    path: String,
    big_endian: bool,
    record: u64,
    done: bool,
    block_size: u64,
}

impl U32Reader {
    /// Wraps a decompressed input; `path` is used in error messages.
    pub fn new(input: Box<dyn BufRead + Send>, path: String, big_endian: bool) -> Self {
        U32Reader {
            input,
            path,
            big_endian,
            record: 0,
            done: false,
            block_size: super::ReadOptions::default().block_size as u64,
        }
    }

    /// Sets the bytes of one block, which each request asks for (default 4096).
    pub fn with_block_size(mut self, block_size: u32) -> Self {
        self.block_size = block_size as u64;
        self
    }
}

impl Iterator for U32Reader {
    type Item = Result<BlockRequest>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut word = [0u8; 4];
        let mut filled = 0;
        while filled < 4 {
            match self.input.read(&mut word[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.done = true;
                    return Some(Err(Error::Io {
                        path: self.path.clone(),
                        cause: e,
                    }));
                }
            }
        }
        if filled == 0 {
            self.done = true;
            return None;
        }
        let record = self.record;
        self.record += 1;
        if filled < 4 {
            self.done = true;
            return Some(Err(Error::Record {
                path: self.path.clone(),
                record,
                offset: record * 4,
                msg: format!("truncated: expected 4 bytes, found {filled}"),
            }));
        }
        let block = if self.big_endian {
            u32::from_be_bytes(word)
        } else {
            u32::from_le_bytes(word)
        };
        Some(Ok(BlockRequest {
            block: block as u64,
            count: 1,
            op: Op::Read,
            time_ns: None,
            bytes: self.block_size,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_endians_and_rejects_partial_record() {
        let bytes = vec![1, 0, 0, 0, 0, 0, 1, 0, 9];
        let le: Vec<_> = U32Reader::new(
            Box::new(std::io::Cursor::new(bytes.clone())),
            "f".into(),
            false,
        )
        .collect();
        assert_eq!(le[0].as_ref().unwrap().block, 1);
        assert_eq!(le[1].as_ref().unwrap().block, 65536);
        assert_eq!(
            le[2].as_ref().unwrap_err().to_string(),
            "f: record 2 (byte offset 8): truncated: expected 4 bytes, found 1"
        );
        let be: Vec<_> =
            U32Reader::new(Box::new(std::io::Cursor::new(bytes)), "f".into(), true).collect();
        assert_eq!(be[0].as_ref().unwrap().block, 1 << 24);
        assert_eq!(be[1].as_ref().unwrap().block, 256);
    }
}
