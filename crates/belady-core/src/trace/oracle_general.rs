//! libCacheSim's `oracleGeneral` binary trace: back-to-back packed little-endian records
//! `{u32 clock_time (s), u64 obj_id, u32 obj_size, i64 next_access_vtime}` with no header, as
//! the public Twitter, Meta, CloudPhysics, MSR, Alibaba and Tencent collections ship them
//! (usually zstd-compressed; [`super::input`] decompresses transparently).
//!
//! The reader also decodes the request records of the [`super::lcs`] format, whose version 1
//! record is this one. Each request becomes one reference to the block `obj_id` whose
//! [`BlockRequest::bytes`] is the object's size; times become nanoseconds. A record of size 0
//! is skipped, as libCacheSim's readers skip it (their `ignore_size_zero_req`, on in its
//! simulator and its Python package), so counts match libCacheSim's; a size above
//! `u32::MAX` (possible in lcs version 3 and later) is refused, naming the record.

use super::{BlockRequest, Op};
use crate::error::{Error, Result};
use std::io::{BufRead, ErrorKind, Read};

/// Bytes per oracleGeneral record (and per lcs version 1 record).
pub const RECORD_SIZE: usize = 24;

/// How one record is laid out: its size and where the operation sits, if anywhere.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Bytes per record.
    pub record_size: usize,
    /// Byte offset of the one-byte operation code (lcs v2 and later), `None` when every request
    /// is a read.
    pub op_offset: Option<usize>,
    /// Byte offset and width (4 or 8) of the object size, checked to be non-negative.
    pub size_field: (usize, usize),
}

impl Layout {
    /// The oracleGeneral record (= lcs v1).
    pub const ORACLE_GENERAL: Layout = Layout {
        record_size: RECORD_SIZE,
        op_offset: None,
        size_field: (12, 4),
    };
}

/// What a libCacheSim operation code means for a block cache: a reference in one direction,
/// or nothing (deletes).
fn op_of(code: u8) -> Option<Option<Op>> {
    // Codes of libCacheSim's req_op_e; 0 is "no operation recorded", which libCacheSim's own
    // simulator treats as an ordinary request, so it is a read here.
    match code {
        0 | 1 | 2 | 12 => Some(Some(Op::Read)),
        3..=8 | 10 | 11 | 13 | 14 => Some(Some(Op::Write)),
        9 => Some(None),
        _ => None,
    }
}

/// Streams the records of an oracleGeneral file, or of an lcs file past its header.
pub struct RecordReader {
    input: Box<dyn BufRead + Send>,
    name: String,
    layout: Layout,
    buf: Vec<u8>,
    record: u64,
    offset: u64,
    done: bool,
}

impl RecordReader {
    /// Reads records laid out as `layout` from `input`, whose first record is at byte
    /// `offset` of the decompressed stream (for messages).
    pub fn new(input: Box<dyn BufRead + Send>, name: String, layout: Layout, offset: u64) -> Self {
        RecordReader {
            input,
            name,
            buf: vec![0; layout.record_size],
            layout,
            record: 0,
            offset,
            done: false,
        }
    }

    /// An oracleGeneral file's records.
    pub fn oracle_general(input: Box<dyn BufRead + Send>, name: String) -> Self {
        Self::new(input, name, Layout::ORACLE_GENERAL, 0)
    }

    fn error(&self, msg: String) -> Error {
        Error::Record {
            path: self.name.clone(),
            record: self.record,
            offset: self.offset,
            msg,
        }
    }

    /// Fills `buf` with the next record; `Ok(false)` at a clean end of the stream.
    fn fill(&mut self) -> Result<bool> {
        let mut got = 0;
        while got < self.buf.len() {
            match self.input.read(&mut self.buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(self.error(format!("cannot read: {e}"))),
            }
        }
        match got {
            0 => Ok(false),
            n if n == self.buf.len() => Ok(true),
            n => Err(self.error(format!(
                "the file ends inside a record: {n} of its {} bytes are there",
                self.buf.len()
            ))),
        }
    }

    fn decode(&self) -> Result<Option<BlockRequest>> {
        let record = match decode_record(&self.buf, self.layout) {
            Ok(Some(r)) => r,
            Ok(None) => return Ok(None),
            Err(msg) => return Err(self.error(msg)),
        };
        Ok(Some(BlockRequest {
            block: record.id,
            count: 1,
            op: record.op,
            time_ns: Some(record.time as u64 * 1_000_000_000),
            bytes: record.size as u64,
        }))
    }
}

/// The fields of one request record belady keeps.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Record {
    /// Object id.
    pub id: u64,
    /// Read or write.
    pub op: Op,
    /// Clock time in seconds.
    pub time: u32,
    /// Object size in bytes, at least 1.
    pub size: u32,
}

/// Decodes one record `b` (exactly `layout.record_size` bytes); `None` for a record that is no
/// reference (a delete, or an object of size 0, which libCacheSim skips); else what is wrong
/// with it.
pub(crate) fn decode_record(
    b: &[u8],
    layout: Layout,
) -> std::result::Result<Option<Record>, String> {
    let time = u32::from_le_bytes(b[0..4].try_into().expect("4 bytes"));
    let id = u64::from_le_bytes(b[4..12].try_into().expect("8 bytes"));
    let (at, width) = layout.size_field;
    let size = if width == 8 {
        i64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
    } else {
        u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes")) as i64
    };
    if size < 0 {
        return Err(format!("expected a non-negative object size, found {size}"));
    }
    if size > u32::MAX as i64 {
        return Err(format!(
            "object size {size} is above {}, the largest size belady keeps",
            u32::MAX
        ));
    }
    let op = match layout.op_offset {
        None => Op::Read,
        Some(at) => match op_of(b[at]) {
            Some(Some(op)) => op,
            Some(None) => return Ok(None),
            None => {
                return Err(format!(
                    "expected an operation code from 0 to 14 (libCacheSim's req_op_e), found {}",
                    b[at]
                ))
            }
        },
    };
    if size == 0 {
        return Ok(None);
    }
    Ok(Some(Record {
        id,
        op,
        time,
        size: size as u32,
    }))
}

/// What each operation code byte means, for decoding without a branchy match per record.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum OpClass {
    /// A read reference.
    Read,
    /// A write reference.
    Write,
    /// No reference (a delete).
    Skip,
    /// Not a libCacheSim operation code.
    Bad,
}

/// [`OpClass`] of every byte value.
pub(crate) const OP_CLASSES: [OpClass; 256] = {
    let mut t = [OpClass::Bad; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = match i {
            0 | 1 | 2 | 12 => OpClass::Read,
            3..=8 | 10 | 11 | 13 | 14 => OpClass::Write,
            9 => OpClass::Skip,
            _ => OpClass::Bad,
        };
        i += 1;
    }
    t
};

impl Iterator for RecordReader {
    type Item = Result<BlockRequest>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let step = self.fill().and_then(|more| {
                if more {
                    self.decode().map(Some)
                } else {
                    Ok(None)
                }
            });
            let item = match step {
                Ok(Some(Some(req))) => Some(Ok(req)),
                // A delete: no reference, read on.
                Ok(Some(None)) => None,
                Ok(None) => {
                    self.done = true;
                    return None;
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            };
            self.record += 1;
            self.offset += self.layout.record_size as u64;
            if item.is_some() {
                return item;
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(time: u32, id: u64, size: u32, next: i64) -> Vec<u8> {
        let mut r = Vec::new();
        r.extend(time.to_le_bytes());
        r.extend(id.to_le_bytes());
        r.extend(size.to_le_bytes());
        r.extend(next.to_le_bytes());
        r
    }

    fn read(bytes: Vec<u8>) -> Vec<Result<BlockRequest>> {
        RecordReader::oracle_general(Box::new(std::io::Cursor::new(bytes)), "t".into()).collect()
    }

    #[test]
    fn reads_ids_and_times_of_each_record() {
        let mut bytes = record(3, 1 << 40, 4096, 1);
        bytes.extend(record(4, 7, 100, -1));
        let reqs: Vec<BlockRequest> = read(bytes).into_iter().map(|r| r.unwrap()).collect();
        assert_eq!(reqs.len(), 2);
        assert_eq!(reqs[0].block, 1 << 40);
        assert_eq!(reqs[0].time_ns, Some(3_000_000_000));
        assert_eq!(reqs[1].block, 7);
        assert_eq!((reqs[0].bytes, reqs[1].bytes), (4096, 100));
        assert!(reqs.iter().all(|r| r.op == Op::Read && r.count == 1));
    }

    #[test]
    fn a_size_zero_record_is_skipped_as_libcachesim_skips_it() {
        let mut bytes = record(1, 5, 10, 2);
        bytes.extend(record(2, 6, 0, -1));
        bytes.extend(record(3, 5, 10, -1));
        let ids: Vec<(u64, u64)> = read(bytes)
            .into_iter()
            .map(|r| r.map(|r| (r.block, r.bytes)).unwrap())
            .collect();
        assert_eq!(ids, [(5, 10), (5, 10)]);
    }

    #[test]
    fn a_truncated_record_is_an_error_naming_it() {
        let mut bytes = record(0, 1, 1, -1);
        bytes.extend(&record(0, 2, 1, -1)[..10]);
        let out = read(bytes);
        assert_eq!(out.len(), 2);
        let err = out[1].as_ref().unwrap_err().to_string();
        assert_eq!(
            err,
            "t: record 1 (byte offset 24): the file ends inside a record: 10 of its 24 bytes are there"
        );
    }

    #[test]
    fn reads_back_what_belady_writes_and_is_detected_by_name() {
        use crate::trace::ReadOptions;
        use crate::trace::{detect_format, export, open_requests, BlockTrace, Format, OpFilter};
        let dir = tempfile::tempdir().unwrap();
        let lirs = dir.path().join("t.trace");
        std::fs::write(&lirs, "5\n9\n5\n70000000000\n9\n").unwrap();
        let opts = ReadOptions::default();
        let trace = BlockTrace::load(&lirs, &Format::Lirs, &opts, OpFilter::Read).unwrap();
        let path = dir.path().join("t.oracleGeneral");
        export::write_oracle_general(&trace, std::fs::File::create(&path).unwrap()).unwrap();
        let format = detect_format(&path).unwrap();
        assert_eq!(format, Format::OracleGeneral);
        let ids: Vec<u64> = open_requests(&path, &format, &opts)
            .unwrap()
            .map(|r| r.unwrap().block)
            .collect();
        assert_eq!(ids, [5, 9, 5, 70_000_000_000, 9]);
    }

    #[test]
    fn op_codes_map_to_directions() {
        assert_eq!(op_of(1), Some(Some(Op::Read)));
        assert_eq!(op_of(13), Some(Some(Op::Write)));
        assert_eq!(op_of(9), Some(None));
        assert_eq!(op_of(15), None);
    }
}
