//! Every reader on arbitrary bytes: errors are fine, panics and hangs are not.

use belady_core::trace::{native, open_requests, BlockTrace, Format, OpFilter, ReadOptions};
use proptest::prelude::*;

fn formats() -> Vec<Format> {
    let mut f = vec![
        Format::Lirs,
        Format::Arc,
        Format::U32Le,
        Format::U32Be,
        Format::Native,
        Format::Accusim,
        Format::AccusimText,
    ];
    for preset in ["cloudphysics", "msr", "systor", "tencent"] {
        f.push(Format::parse(preset, None, None).unwrap());
    }
    f.push(
        Format::parse(
            "csv",
            Some("block=0,size=1:blocks,op=2,reads=0,writes=1,time=3:s,device=4"),
            None,
        )
        .unwrap(),
    );
    f
}

fn drain(bytes: &[u8]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fuzz");
    std::fs::write(&path, bytes).unwrap();
    for format in formats() {
        if let Ok(stream) = open_requests(&path, &format, &ReadOptions::default()) {
            // A bounded drain: a reader must end or fail on finite input.
            for (n, item) in stream.enumerate() {
                if item.is_err() || n > 100_000 {
                    break;
                }
            }
        }
        let _ = BlockTrace::load(&path, &format, &ReadOptions::default(), OpFilter::All);
    }
}

/// Bytes that look like traces: digits, separators, markers and a few letters.
fn tracey() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(
        prop_oneof![
            Just(b'0'),
            Just(b'1'),
            Just(b'9'),
            Just(b' '),
            Just(b','),
            Just(b'\n'),
            Just(b'\r'),
            Just(b'*'),
            Just(b'.'),
            Just(b'R'),
            Just(b'W'),
            Just(b'x'),
            Just(b'-'),
            any::<u8>()
        ],
        0..400,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        drain(&bytes);
    }

    #[test]
    fn trace_like_text_never_panics(bytes in tracey()) {
        drain(&bytes);
    }

    #[test]
    fn damaged_native_files_are_rejected_not_panicked(
        ids in proptest::collection::vec(0u64..50, 1..300),
        flips in proptest::collection::vec((any::<usize>(), 1u8..=255), 1..4),
        cut in any::<usize>(),
        sized in any::<bool>(),
    ) {
        // Object sizes (format version 3) vary per reference when `sized`.
        let reqs = ids.iter().enumerate().map(|(i, &b)| Ok(belady_core::trace::BlockRequest {
            block: b, count: 1, op: belady_core::trace::Op::Read, time_ns: None,
            bytes: if sized { 1 + (b * 7919 + i as u64) % 100_000 } else { 4096 },
        }));
        let trace = if sized {
            BlockTrace::from_sized_requests(reqs, OpFilter::All, false, "p".into(), 4096).unwrap()
        } else {
            BlockTrace::from_requests(reqs, OpFilter::All, false, "p".into(), 4096).unwrap()
        };
        let mut bytes = Vec::new();
        native::write(&trace, &mut bytes).unwrap();
        // Distinct positions, so that two flips never cancel out.
        let positions: std::collections::BTreeMap<usize, u8> =
            flips.into_iter().map(|(pos, mask)| (pos % bytes.len(), mask)).collect();
        let mut damaged = bytes.clone();
        for (i, mask) in positions {
            damaged[i] ^= mask;
        }
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("d.bldy");
        std::fs::write(&p, &damaged).unwrap();
        prop_assert!(native::load(&p).is_err(), "a damaged file loaded");
        // Streamed with its sizes, the damage shows by the last chunk at the latest.
        let streamed = belady_core::trace::ingest::ingest_sized(
            &p, &Format::Native, &ReadOptions::default(), OpFilter::All,
        )
        .and_then(|mut feed| {
            if feed.has_sizes() {
                while feed.next_sized_chunk()?.is_some() {}
            } else {
                while feed.next_chunk()?.is_some() {}
            }
            Ok(())
        });
        prop_assert!(streamed.is_err(), "a damaged file streamed");
        std::fs::write(&p, &bytes[..cut % bytes.len()]).unwrap();
        prop_assert!(native::load(&p).is_err(), "a truncated file loaded");
    }
}
