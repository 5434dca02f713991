//! Tests of the AccuSim readers, writers and resolver.

use super::*;
use crate::trace::file::FileEventKind;

fn text_calls(text: &str) -> Vec<Result<(Call, Loc)>> {
    TextCalls::new(
        Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
        "t.evt".into(),
    )
    .collect()
}

const SAMPLE: &str = "# sample\nopen 7 3 11 40960 my file\nread 7 3 11 8192 100 40960\npread 7 3 11 4096 100 5 40960\nseek 7 3 11 0\nwrite 7 3 11 10 3 40960\nclose 7 3 11\nexit 7\n";

#[test]
fn text_and_binary_forms_round_trip() {
    let calls: Vec<Call> = text_calls(SAMPLE)
        .into_iter()
        .map(|c| c.unwrap().0)
        .collect();
    assert_eq!(calls.len(), 7);
    let mut bin = Vec::new();
    let mut text = Vec::new();
    for c in &calls {
        write_binary(c, &mut bin).unwrap();
        write_text(c, &mut text).unwrap();
    }
    let back: Vec<Call> = BinaryCalls::new(Box::new(std::io::Cursor::new(bin)), "b".into())
        .map(|c| c.unwrap().0)
        .collect();
    assert_eq!(back, calls);
    let again: Vec<Call> = text_calls(&String::from_utf8(text).unwrap())
        .into_iter()
        .map(|c| c.unwrap().0)
        .collect();
    assert_eq!(again, calls);
}

#[test]
fn descriptors_resolve_offsets() {
    let mut r = Resolver::new("t".into());
    let mut names = Default::default();
    let mut events = Vec::new();
    for c in text_calls(SAMPLE) {
        let (call, loc) = c.unwrap();
        r.resolve(&call, loc, &mut names, &mut events).unwrap();
    }
    let kinds: Vec<&FileEventKind> = events.iter().map(|e| &e.kind).collect();
    assert_eq!(
        kinds[1],
        &FileEventKind::Read {
            offset: 0,
            len: 8192
        }
    );
    assert_eq!(
        kinds[2],
        &FileEventKind::Read {
            offset: 4096,
            len: 100
        }
    );
    assert_eq!(kinds[3], &FileEventKind::Seek { offset: 0 });
    assert_eq!(kinds[4], &FileEventKind::Write { offset: 0, len: 10 });
    assert_eq!(events[1].think_ns, 100_000);
    assert_eq!(names.get(&11).map(String::as_str), Some("my file"));
}

#[test]
fn bad_records_name_their_place() {
    let mut r = Resolver::new("t.evt".into());
    let mut names = Default::default();
    let mut events = Vec::new();
    let (call, loc) = text_calls("read 7 3 11 8192 100 40960\n")
        .remove(0)
        .unwrap();
    let err = r
        .resolve(&call, loc, &mut names, &mut events)
        .unwrap_err()
        .to_string();
    assert_eq!(err, "t.evt:1: descriptor 3 of process 7 was never opened");
    let err = text_calls("open 1 2 3\n")
        .remove(0)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("t.evt:1: expected 'open PID FD INODE FSIZE NAME'"),
        "{err}"
    );
    let err = text_calls("mmap 1 2 3\n")
        .remove(0)
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown event 'mmap'"), "{err}");
    let mut bin = Vec::new();
    write_binary(
        &Call {
            pid: 1,
            inode: 5,
            kind: CallKind::Close { fd: 3 },
        },
        &mut bin,
    )
    .unwrap();
    bin.extend([9u8, 0, 0, 0, 5, 0, 0, 0]);
    let got: Vec<_> =
        BinaryCalls::new(Box::new(std::io::Cursor::new(bin.clone())), "b.bin".into()).collect();
    assert_eq!(
        got[1].as_ref().unwrap_err().to_string(),
        "b.bin: record 1 (byte offset 12): unknown record type 9; expected 2 (exit), 3, 4, 5, 6, 7, 13 or 14"
    );
    bin.truncate(bin.len() - 8);
    bin.extend([3u8, 0, 0, 0, 5, 0, 0, 0, 0, 0]);
    let got: Vec<_> =
        BinaryCalls::new(Box::new(std::io::Cursor::new(bin)), "b.bin".into()).collect();
    assert!(got[1]
        .as_ref()
        .unwrap_err()
        .to_string()
        .contains("record 1 (byte offset 12): truncated transfer record"));
}
