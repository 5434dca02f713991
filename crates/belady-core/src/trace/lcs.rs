//! libCacheSim's `lcs` binary trace: an 8 KiB header (start marker, format version, the
//! trace's statistics, end marker), then packed little-endian request records whose layout
//! the version selects:
//!
//! | version | record bytes | fields |
//! |---|---|---|
//! | 1 | 24 | u32 time, u64 id, u32 size, i64 next access (the oracleGeneral record) |
//! | 2 | 28 | u32 time, u64 id, u32 size, u8 op + 24-bit tenant, i64 next access |
//! | 3 | 36 | u32 time, u64 id, i64 size, u8 op + 24-bit tenant, u32 ttl, i64 next access |
//! | 4–8 | 40, 44, 52, 68, 100 | the version 3 record, then 1, 2, 4, 8 or 16 u32 features |
//!
//! The layout was learned from libCacheSim's reader (traceReader/generalReader/lcs.h); the
//! records are decoded by [`super::oracle_general::RecordReader`], which keeps the object id,
//! size and time and maps the operation to a direction (deletes and size-0 records are
//! skipped, as libCacheSim skips them; a size above `u32::MAX` is refused).

use super::oracle_general::{Layout, RecordReader};
use crate::error::{Error, Result};
use std::io::BufRead;

/// The marker at both ends of the header (`0x123456789abcdef0`, little-endian).
pub const MAGIC: [u8; 8] = 0x1234_5678_9abc_def0u64.to_le_bytes();
/// Header bytes before the first record.
pub const HEADER_SIZE: usize = 8192;

/// What the header says about the trace.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LcsHeader {
    /// Record layout version, 1 to 8.
    pub version: u64,
    /// Requests in the trace, as the header counts them.
    pub n_req: i64,
    /// Distinct objects, as the header counts them.
    pub n_obj: i64,
}

/// Whether a (decompressed) file starts with the lcs header's marker.
pub fn is_lcs(head: &[u8]) -> bool {
    head.starts_with(&MAGIC)
}

/// The record layout of a version, `None` for a version this reader does not know.
pub fn layout(version: u64) -> Option<Layout> {
    const FEATURES: [usize; 9] = [0, 0, 0, 0, 1, 2, 4, 8, 16];
    match version {
        1 => Some(Layout::ORACLE_GENERAL),
        2 => Some(Layout {
            record_size: 28,
            op_offset: Some(16),
            size_field: (12, 4),
        }),
        3..=8 => Some(Layout {
            record_size: 36 + 4 * FEATURES[version as usize],
            op_offset: Some(20),
            size_field: (12, 8),
        }),
        _ => None,
    }
}

fn i64_at(b: &[u8], at: usize) -> i64 {
    i64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Reads an lcs stream's header: the layout of its records and the offset of the first (what
/// the fast ingest needs of it).
pub(crate) fn record_layout(input: &mut dyn BufRead, name: &str) -> Result<(Layout, u64)> {
    let header = read_header(input, name)?;
    let layout = layout(header.version).expect("read_header checked the version");
    Ok((layout, HEADER_SIZE as u64))
}

/// Reads and checks the header of an lcs stream.
pub fn read_header(input: &mut dyn BufRead, name: &str) -> Result<LcsHeader> {
    let mut head = vec![0u8; HEADER_SIZE];
    let mut got = 0;
    while got < HEADER_SIZE {
        match input.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(std::path::Path::new(name), e)),
        }
    }
    let bad = |msg: String| Error::Record {
        path: name.to_string(),
        record: 0,
        offset: 0,
        msg: format!("lcs header: {msg}"),
    };
    if got < HEADER_SIZE {
        return Err(bad(format!(
            "expected {HEADER_SIZE} header bytes, the file has {got}"
        )));
    }
    if !is_lcs(&head) {
        return Err(bad(
            "expected the start marker 0x123456789abcdef0; not an lcs trace".into(),
        ));
    }
    if head[HEADER_SIZE - 8..] != MAGIC {
        return Err(bad(
            "expected the end marker 0x123456789abcdef0 at byte 8184; the header is damaged".into(),
        ));
    }
    let version = u64::from_le_bytes(head[8..16].try_into().expect("8 bytes"));
    if layout(version).is_none() {
        return Err(bad(format!(
            "expected a format version from 1 to 8, found {version}"
        )));
    }
    // The statistics block starts at byte 16 with its own version, then n_req and n_obj.
    Ok(LcsHeader {
        version,
        n_req: i64_at(&head, 24),
        n_obj: i64_at(&head, 32),
    })
}

/// Streams the requests of an lcs trace after checking its header.
pub fn open(mut input: Box<dyn BufRead + Send>, name: String) -> Result<RecordReader> {
    let header = read_header(&mut input, &name)?;
    let layout = layout(header.version).expect("read_header checked the version");
    Ok(RecordReader::new(input, name, layout, HEADER_SIZE as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Op;

    fn header(version: u64, n_req: i64) -> Vec<u8> {
        let mut h = vec![0u8; HEADER_SIZE];
        h[..8].copy_from_slice(&MAGIC);
        h[8..16].copy_from_slice(&version.to_le_bytes());
        h[24..32].copy_from_slice(&n_req.to_le_bytes());
        h[HEADER_SIZE - 8..].copy_from_slice(&MAGIC);
        h
    }

    /// A version 3+ record: time, id, i64 size, op byte, tenant, ttl, next, then features.
    fn v3_record(version: u64, id: u64, size: i64, op: u8) -> Vec<u8> {
        let mut r = Vec::new();
        r.extend(7u32.to_le_bytes());
        r.extend(id.to_le_bytes());
        r.extend(size.to_le_bytes());
        r.extend((op as u32 | (5 << 8)).to_le_bytes());
        r.extend(0u32.to_le_bytes());
        r.extend((-1i64).to_le_bytes());
        r.resize(layout(version).unwrap().record_size, 0xab);
        r
    }

    fn read(bytes: Vec<u8>) -> Result<Vec<Result<crate::trace::BlockRequest>>> {
        Ok(open(Box::new(std::io::Cursor::new(bytes)), "t.lcs".into())?.collect())
    }

    #[test]
    fn every_version_from_3_reads_ids_and_directions() {
        for version in 3..=8 {
            let mut bytes = header(version, 3);
            bytes.extend(v3_record(version, 11, 4096, 1));
            bytes.extend(v3_record(version, 12, 10, 9)); // a delete: skipped
            bytes.extend(v3_record(version, 13, 10, 3));
            let reqs: Vec<_> = read(bytes)
                .unwrap()
                .into_iter()
                .map(|r| r.unwrap())
                .collect();
            let got: Vec<(u64, Op)> = reqs.iter().map(|r| (r.block, r.op)).collect();
            assert_eq!(got, [(11, Op::Read), (13, Op::Write)], "version {version}");
        }
    }

    #[test]
    fn version_2_has_its_op_after_a_32_bit_size() {
        let mut bytes = header(2, 1);
        bytes.extend(1u32.to_le_bytes());
        bytes.extend(99u64.to_le_bytes());
        bytes.extend(512u32.to_le_bytes());
        bytes.extend((13u32 | (1 << 8)).to_le_bytes());
        bytes.extend((-1i64).to_le_bytes());
        let reqs = read(bytes).unwrap();
        let r = reqs[0].as_ref().unwrap();
        assert_eq!(
            (r.block, r.op, r.time_ns),
            (99, Op::Write, Some(1_000_000_000))
        );
    }

    #[test]
    fn bad_headers_and_records_are_named() {
        let short = read(vec![0; 100]).err().unwrap().to_string();
        assert!(
            short.contains("expected 8192 header bytes, the file has 100"),
            "{short}"
        );
        let mut wrong = header(9, 0);
        let err = read(wrong.clone()).err().unwrap().to_string();
        assert!(err.contains("version from 1 to 8, found 9"), "{err}");
        wrong[HEADER_SIZE - 1] = 0;
        let err = read(wrong).err().unwrap().to_string();
        assert!(err.contains("end marker"), "{err}");
        let mut bytes = header(3, 1);
        bytes.extend(v3_record(3, 1, -5, 1));
        let err = read(bytes).unwrap().remove(0).unwrap_err().to_string();
        assert_eq!(
            err,
            "t.lcs: record 0 (byte offset 8192): expected a non-negative object size, found -5"
        );
    }
}
