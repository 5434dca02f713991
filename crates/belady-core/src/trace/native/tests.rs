//! Tests of the native format: round trips, streaming, damage.

use super::*;
use crate::error::Result;
use crate::trace::{BlockRequest, BlockTrace, Format, Op, OpFilter, SizeTotals};

fn sample(n: usize) -> BlockTrace {
    let reqs = (0..n).map(|i| {
        Ok(BlockRequest {
            block: (i as u64 * 7919) % 1000,
            count: 1,
            op: if i % 3 == 0 { Op::Write } else { Op::Read },
            time_ns: Some(i as u64 * 10),
            bytes: 512,
        })
    });
    BlockTrace::from_requests(reqs, OpFilter::All, true, "sample".into(), 512).unwrap()
}

fn encode(t: &BlockTrace) -> Vec<u8> {
    let mut bytes = Vec::new();
    write(t, &mut bytes).unwrap();
    bytes
}

/// Loads `bytes` from a file; the result names the file as given, so its source is put back to
/// the name recorded in the header for comparison with what was encoded.
fn decode(bytes: Vec<u8>) -> Result<BlockTrace> {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.bldy");
    std::fs::write(&p, &bytes).unwrap();
    let mut t = load(&p)?;
    assert_eq!(
        t.source,
        p.display().to_string(),
        "reports name the path given"
    );
    t.source = NativeRequests::open(Box::new(std::io::Cursor::new(bytes)), "s".into())?
        .source()
        .to_string();
    Ok(t)
}

#[test]
fn a_header_claiming_billions_of_references_allocates_nothing_for_them() {
    // A valid header, then nothing: the counts say ~4e9 ids and references, the file is
    // truncated. Reserving by the counts took 32 GB for the table and 16 GB for the ids.
    let mut bytes = encode(&sample(3));
    // Keep the header and the source name ("sample", after its 4-byte length).
    bytes.truncate(HEADER_BYTES as usize + 4 + 6);
    bytes[24..32].copy_from_slice(&(u32::MAX as u64 - 1).to_le_bytes());
    bytes[32..40].copy_from_slice(&(u32::MAX as u64 - 1).to_le_bytes());
    let e = decode(bytes).unwrap_err().to_string();
    assert!(e.contains("truncated"), "{e}");
}

#[test]
fn a_bad_id_names_its_own_offset_not_the_chunk_end() {
    let n = 10;
    let mut bytes = encode(&sample(n));
    // Layout from the end: checksum (4), timestamps (8 n), write mask (n/8 rounded up), ids.
    let ids_at = bytes.len() - 4 - 8 * n - n.div_ceil(8) - 4 * n;
    bytes[ids_at + 12..ids_at + 16].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = decode(bytes).unwrap_err().to_string();
    assert!(
        e.contains(&format!("record 3 (byte offset {})", ids_at + 12)),
        "{e}"
    );
}

#[test]
fn round_trip_across_chunk_boundaries() {
    let t = sample(CHUNK * 2 + 5);
    // A file with a table is version 1, which every build reads.
    assert_eq!(encode(&t)[8..12], 1u32.to_le_bytes());
    assert_eq!(decode(encode(&t)).unwrap(), t);
    let streamed: Vec<BlockRequest> =
        NativeRequests::open(Box::new(std::io::Cursor::new(encode(&t))), "s".into())
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
    assert_eq!(streamed.len(), t.refs.len());
    assert_eq!(streamed[3].block, t.originals[t.refs[3] as usize]);
    assert_eq!(streamed[3].op, Op::Write);
    assert_eq!(streamed[4].time_ns, Some(40));
}

#[test]
fn streaming_writer_matches_the_whole_trace_writer() {
    let dir = tempfile::tempdir().unwrap();
    for (n, timed, writes) in [
        (CHUNK * 2 + 5, true, true),
        (1000, false, false),
        (0, false, false),
    ] {
        let reqs: Vec<BlockRequest> = (0..n)
            .map(|i| BlockRequest {
                block: (i as u64 * 7919) % 1000,
                count: 1,
                op: if writes && i % 3 == 0 {
                    Op::Write
                } else {
                    Op::Read
                },
                time_ns: timed.then_some(i as u64 * 10),
                bytes: 512,
            })
            .collect();
        let whole = BlockTrace::from_requests(
            reqs.iter().copied().map(Ok),
            OpFilter::All,
            timed,
            "s".into(),
            512,
        )
        .unwrap();
        let mut w = StreamWriter::new(dir.path(), "s".into(), 512).unwrap();
        for r in &reqs {
            w.push(r.block, r.op, r.time_ns).unwrap();
        }
        let mut streamed = Vec::new();
        assert_eq!(
            w.finish(&mut streamed).unwrap(),
            (n as u64, Some(whole.unique()))
        );
        assert_eq!(streamed, encode(&whole), "{n} references");
    }
}

#[test]
fn original_ids_load_like_a_file_with_a_table() {
    let dir = tempfile::tempdir().unwrap();
    // Few ids spread wide (renumbered sparsely) and many narrow ones (renumbered flat).
    for (n, step, width) in [
        (1000, 2_999_999, 3_000_000_000),
        (CHUNK * 2 + 5, 7919, 5000),
    ] {
        let reqs: Vec<BlockRequest> = (0..n)
            .map(|i| BlockRequest {
                block: (i as u64 * step) % width,
                count: 1,
                op: if i % 3 == 0 { Op::Write } else { Op::Read },
                time_ns: Some(i as u64 * 10),
                bytes: 512,
            })
            .collect();
        let whole = BlockTrace::from_requests(
            reqs.iter().copied().map(Ok),
            OpFilter::All,
            true,
            "s".into(),
            512,
        )
        .unwrap();
        let mut w = StreamWriter::with_original_ids(dir.path(), "s".into(), 512).unwrap();
        for r in &reqs {
            w.push(r.block, r.op, r.time_ns).unwrap();
        }
        assert_eq!(w.table_bytes(), 0);
        let mut bytes = Vec::new();
        assert_eq!(w.finish(&mut bytes).unwrap(), (n as u64, None));
        assert_eq!(bytes[8..12], 2u32.to_le_bytes(), "version 2");
        assert_eq!(
            bytes.len() + whole.unique() * 8,
            encode(&whole).len(),
            "the same file without its table"
        );
        let streamed: Vec<BlockRequest> =
            NativeRequests::open(Box::new(std::io::Cursor::new(bytes.clone())), "s".into())
                .unwrap()
                .map(|r| r.unwrap())
                .collect();
        assert_eq!(streamed, reqs);
        assert_eq!(decode(bytes).unwrap(), whole, "{n} references");
    }
}

#[test]
fn only_dense_ids_hold_a_table_that_grows_with_distinct_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let held = |original: bool, n: u64| {
        let mut w = if original {
            StreamWriter::with_original_ids(dir.path(), "s".into(), 512)
        } else {
            StreamWriter::new(dir.path(), "s".into(), 512)
        }
        .unwrap();
        for b in 0..n {
            w.push(b, Op::Read, None).unwrap();
        }
        w.table_bytes()
    };
    assert!(held(false, 200_000) >= 5 * held(false, 20_000));
    assert_eq!(held(true, 200_000), 0);
}

#[test]
fn ids_too_wide_to_keep_and_unknown_versions_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = StreamWriter::with_original_ids(dir.path(), "s".into(), 512).unwrap();
    let e = w.push(u32::MAX as u64, Op::Read, None).unwrap_err();
    assert!(e.to_string().contains("too large"), "{e}");
    w.push(5, Op::Read, None).unwrap();
    let mut bytes = Vec::new();
    w.finish(&mut bytes).unwrap();
    assert_eq!(decode(bytes.clone()).unwrap().originals, vec![5]);
    // Version 1 has no original-ids flag; later versions are refused by number.
    let mut v1 = bytes.clone();
    v1[8..12].copy_from_slice(&1u32.to_le_bytes());
    let e = decode(v1).unwrap_err().to_string();
    assert!(e.contains("unknown flags 0x4 for format version 1"), "{e}");
    let mut v4 = bytes.clone();
    v4[8..12].copy_from_slice(&4u32.to_le_bytes());
    let e = decode(v4).unwrap_err().to_string();
    assert!(e.contains("version 4 is not supported"), "{e}");
    // An id at or above the header's bound is damage, not a panic.
    let mut low = bytes;
    low[24..32].copy_from_slice(&5u64.to_le_bytes());
    let e = decode(low).unwrap_err().to_string();
    assert!(
        e.contains("block id 5 is not below the header's bound 5"),
        "{e}"
    );
}

#[test]
fn damage_is_reported_not_panicked() {
    let bytes = encode(&sample(300));
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 0x10;
    assert!(decode(flipped).is_err());
    let truncated = bytes[..bytes.len() - 9].to_vec();
    let e = decode(truncated).unwrap_err().to_string();
    assert!(e.contains("truncated"), "{e}");
    let mut bad_magic = bytes.clone();
    bad_magic[0] = b'X';
    assert!(decode(bad_magic).unwrap_err().to_string().contains("magic"));
    let mut extra = bytes;
    extra.push(0);
    assert!(decode(extra)
        .unwrap_err()
        .to_string()
        .contains("after the checksum"));
}

/// A sized trace of `n` object requests (sizes vary per reference; some ids recur with a
/// new size), with writes and times.
fn sized_requests(n: usize) -> Vec<BlockRequest> {
    (0..n)
        .map(|i| BlockRequest {
            block: (i as u64 * 7919) % 1000,
            count: 1,
            op: if i % 3 == 0 { Op::Write } else { Op::Read },
            time_ns: Some(i as u64 * 1_000_000_000),
            bytes: 1 + (i as u64 * 104_729) % 70_000,
        })
        .collect()
}

#[test]
fn sizes_round_trip_and_stream_back_with_the_headers_totals() {
    let dir = tempfile::tempdir().unwrap();
    let reqs = sized_requests(CHUNK * 2 + 5);
    let whole = BlockTrace::from_sized_requests(
        reqs.iter().copied().map(Ok),
        OpFilter::All,
        true,
        "s".into(),
        4096,
    )
    .unwrap();
    let bytes = encode(&whole);
    assert_eq!(bytes[8..12], 3u32.to_le_bytes(), "sizes need version 3");
    assert_eq!(decode(bytes.clone()).unwrap(), whole);
    // The streaming writer writes the same bytes.
    let mut w = StreamWriter::new(dir.path(), "s".into(), 4096).unwrap();
    for r in &reqs {
        w.push_sized(r.block, r.op, r.time_ns, r.bytes as u32)
            .unwrap();
    }
    let mut streamed = Vec::new();
    w.finish(&mut streamed).unwrap();
    assert_eq!(streamed, bytes);
    // Requests read back carry their sizes.
    let back: Vec<BlockRequest> =
        NativeRequests::open(Box::new(std::io::Cursor::new(bytes.clone())), "s".into())
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
    assert_eq!(back, reqs);
    // Totals: every size, and each id's first one, computed here from the requests.
    let requested: u64 = reqs.iter().map(|r| r.bytes).sum();
    let mut first = std::collections::HashMap::new();
    for r in &reqs {
        first.entry(r.block).or_insert(r.bytes);
    }
    let want = SizeTotals {
        requested,
        footprint: first.values().sum(),
    };
    assert_eq!(size_totals(&whole), Some(want));
    let path = dir.path().join("t.bldy");
    std::fs::write(&path, &bytes).unwrap();
    let opts = crate::trace::ReadOptions::default();
    // Unfiltered: streamed as stored, totals from the header; filtered: renumbered.
    for ops in [OpFilter::All, OpFilter::Read] {
        let mut feed =
            crate::trace::ingest::ingest_sized(&path, &Format::Native, &opts, ops).unwrap();
        let (mut ids, mut sizes) = (Vec::new(), Vec::new());
        while let Some((i, z)) = feed.next_sized_chunk().unwrap() {
            ids.extend_from_slice(i);
            sizes.extend_from_slice(z);
        }
        let t = whole.clone().filtered(ops);
        assert_eq!(ids, t.refs, "{ops:?}");
        assert_eq!(Some(sizes), t.sizes, "{ops:?}");
        assert_eq!(feed.size_totals(), size_totals(&t), "{ops:?}");
    }
    assert_eq!(
        size_totals(&whole.clone().filtered(OpFilter::All)),
        Some(want)
    );
}

#[test]
fn sized_original_ids_load_like_the_sized_table_and_sizes_must_be_all_or_none() {
    let dir = tempfile::tempdir().unwrap();
    let reqs = sized_requests(5000);
    let whole = BlockTrace::from_sized_requests(
        reqs.iter().copied().map(Ok),
        OpFilter::All,
        true,
        "s".into(),
        4096,
    )
    .unwrap();
    let mut w = StreamWriter::with_original_ids(dir.path(), "s".into(), 4096).unwrap();
    for r in &reqs {
        w.push_sized(r.block, r.op, r.time_ns, r.bytes as u32)
            .unwrap();
    }
    let mut bytes = Vec::new();
    w.finish(&mut bytes).unwrap();
    assert_eq!(decode(bytes.clone()).unwrap(), whole);
    let path = dir.path().join("o.bldy");
    std::fs::write(&path, &bytes).unwrap();
    let opts = crate::trace::ReadOptions::default();
    let feed =
        crate::trace::ingest::ingest_sized(&path, &Format::Native, &opts, OpFilter::All).unwrap();
    assert_eq!(feed.size_totals(), size_totals(&whole));
    // A file without sizes streams without them, whichever ingest reads it.
    let plain = dir.path().join("p.bldy");
    std::fs::write(&plain, encode(&sample(100))).unwrap();
    let feed =
        crate::trace::ingest::ingest_sized(&plain, &Format::Native, &opts, OpFilter::All).unwrap();
    assert!(!feed.has_sizes());
    let mut w = StreamWriter::new(dir.path(), "s".into(), 4096).unwrap();
    w.push_sized(1, Op::Read, None, 10).unwrap();
    let e = w.push(2, Op::Read, None).unwrap_err().to_string();
    assert!(e.contains("reference 1 lacks an object size"), "{e}");
    let e = w.push_sized(2, Op::Read, None, 0).unwrap_err().to_string();
    assert!(e.contains("object size of 0 bytes"), "{e}");
}

/// Rewrites the 8-byte word at `at` and recomputes the checksum, as a tool that edits a header
/// carefully would.
fn rewrite_word(bytes: &mut [u8], at: usize, value: u64) {
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
    let end = bytes.len() - 4;
    let crc = crc32fast::hash(&bytes[..end]);
    bytes[end..].copy_from_slice(&crc.to_le_bytes());
}

#[test]
fn size_totals_that_the_references_do_not_sum_to_are_refused() {
    // Issue 37: a header's byte totals were trusted, so a rewritten footprint (checksum and all)
    // sized `-c 50%` caches from bytes the trace does not have. Every reader now sums the sizes
    // and refuses the file at its end, naming the totals' offset.
    let reqs = sized_requests(CHUNK + 7);
    let whole = BlockTrace::from_sized_requests(
        reqs.iter().copied().map(Ok),
        OpFilter::All,
        true,
        "s".into(),
        4096,
    )
    .unwrap();
    let bytes = encode(&whole);
    let totals = size_totals(&whole).unwrap();
    // The totals follow the 40-byte header and the source name ("s": 4 + 1 bytes).
    let at = HEADER_BYTES as usize + 5;
    assert_eq!(bytes[at..at + 8], totals.requested.to_le_bytes());
    for (word, value) in [
        (at + 8, totals.footprint * 2),
        (at + 8, totals.footprint - 1),
        (at, totals.requested + 1),
    ] {
        let mut bad = bytes.clone();
        rewrite_word(&mut bad, word, value);
        let e = decode(bad.clone()).unwrap_err().to_string();
        assert!(
            e.contains("inconsistent header") && e.contains(&format!("byte offset {at})")),
            "{e}"
        );
        let mut chunks =
            NativeChunks::open(Box::new(std::io::Cursor::new(bad.clone())), "s".into()).unwrap();
        let streamed = loop {
            match chunks.next_sized_chunk() {
                Ok(Some(_)) => continue,
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        assert!(streamed.is_err(), "streamed chunks must fail too");
        let requests = NativeRequests::open(Box::new(std::io::Cursor::new(bad)), "s".into())
            .unwrap()
            .collect::<Result<Vec<_>>>();
        assert!(requests.is_err(), "requests must fail too");
    }
    // The untouched file reads.
    assert!(decode(bytes).is_ok());
}
