//! One fuzz target per reader: a valid input of that format, mutated by proptest (bytes flipped,
//! inserted, deleted, the tail cut), must give a result or an error naming the file, never a
//! panic or a hang. `fuzz_readers.rs` feeds random bytes to every block reader; starting from
//! valid inputs reaches the deeper states (a good header, then a bad record) that random bytes
//! rarely do. The case count is kept small so the suite stays quick.

use belady_core::prefetch::clusterfetch::PrefetchStore;
use belady_core::trace::{
    accusim, events, load_file_trace, native, open_requests, strace, BlockRequest, BlockTrace,
    Format, Op, OpFilter, ReadOptions,
};
use proptest::prelude::*;
use std::path::Path;

/// One mutation of a byte string.
#[derive(Clone, Debug)]
enum Edit {
    Flip(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    Cut(usize),
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    proptest::collection::vec(
        prop_oneof![
            (any::<usize>(), 1u8..=255).prop_map(|(i, m)| Edit::Flip(i, m)),
            (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Insert(i, b)),
            any::<usize>().prop_map(Edit::Delete),
            any::<usize>().prop_map(Edit::Cut),
        ],
        1..6,
    )
}

fn mutate(seed: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for e in edits {
        let n = b.len().max(1);
        match *e {
            Edit::Flip(i, m) if !b.is_empty() => b[i % n] ^= m,
            Edit::Insert(i, v) => b.insert(i % (b.len() + 1), v),
            Edit::Delete(i) if !b.is_empty() => {
                b.remove(i % n);
            }
            Edit::Cut(i) => b.truncate(i % (b.len() + 1)),
            _ => {}
        }
    }
    b
}

/// Writes `bytes` to a file and hands its path to `check`; an error must name the file.
fn with_file(bytes: &[u8], check: impl FnOnce(&Path) -> Option<String>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mutant");
    std::fs::write(&path, bytes).unwrap();
    if let Some(err) = check(&path) {
        assert!(
            err.contains("mutant"),
            "error does not name the file: {err}"
        );
        assert!(
            !err.chars().any(char::is_control),
            "raw control bytes in {err:?}"
        );
    }
}

/// Streams and loads a block-level trace of `format`; returns the first error seen.
fn block_reader(format: &Format) -> impl Fn(&Path) -> Option<String> + '_ {
    move |path| {
        let mut first = None;
        if let Ok(stream) = open_requests(path, format, &ReadOptions::default()) {
            for (n, item) in stream.enumerate() {
                if let Err(e) = item {
                    first = Some(e.to_string());
                    break;
                }
                if n > 200_000 {
                    break; // one mutated line may legally expand to many blocks
                }
            }
        }
        let loaded = BlockTrace::load(path, format, &ReadOptions::default(), OpFilter::All);
        first.or(loaded.err().map(|e| e.to_string()))
    }
}

fn file_reader(format: &Format) -> impl Fn(&Path) -> Option<String> + '_ {
    move |path| load_file_trace(path, format).err().map(|e| e.to_string())
}

fn fmt(name: &str) -> Format {
    Format::parse(name, None, None).unwrap()
}

const LIRS: &str = "1\n2\n3\n1\n*\n4\n2\n";
const ARC: &str = "100 2 0 0\n5 1 0 1\n100 4 0 2\n";
const MSR: &str = "128166385295514663,hm,0,Write,9056014336,2048,2833\n128166385295514700,hm,1,Read,8192,8192,100\n";
const SYSTOR: &str =
    "Timestamp,Response,IOType,LUN,Offset,Size\n1.5,0.1,R,0,4096,4096\n1.6,0.1,W,0,8192,4096\n";
const TENCENT: &str = "1,8,8,0,1058\n2,8,8,0,1063\n3,8,8,1,1058\n";
const CLOUDPHYSICS: &str = "version,time,op,size,lbn\n1,5,28,8192,16\n1,6,2a,512,7\n";
const CSV: &str = "block,op,time\n5,R,1\n6,W,2\n5,R,3\n";
const ACCUSIM_TEXT: &str = "# sample\nopen 7 3 11 40960 my file\nread 7 3 11 8192 100 40960\npread 7 3 11 4096 100 5 40960\nseek 7 3 11 0\nwrite 7 3 11 10 3 40960\nclose 7 3 11\nexit 7\n";
const EVENTS: &str = "# belady file-level trace v1\nfile 7 40960 /data/my file.db\nopen - 0 1 3 7\nread 10 2.5 1 3 7 0 8192\nseek - 0 1 3 7 100\nread - 100 1 3 7 100 10\nclose - 0 1 3 7\nexit - 0 1\n";

fn native_seed() -> Vec<u8> {
    let reqs = (0..200u64).map(|i| {
        Ok(BlockRequest {
            block: (i * 7919) % 50,
            count: 1,
            op: if i % 3 == 0 { Op::Write } else { Op::Read },
            time_ns: Some(i * 10),
            bytes: 4096,
        })
    });
    let t = BlockTrace::from_requests(reqs, OpFilter::All, true, "seed".into(), 4096).unwrap();
    let mut bytes = Vec::new();
    native::write(&t, &mut bytes).unwrap();
    bytes
}

fn accusim_binary_seed() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("t.txt");
    std::fs::write(&text, ACCUSIM_TEXT).unwrap();
    let mut out = Vec::new();
    for item in accusim::calls(&text, false).unwrap() {
        accusim::write_binary(&item.unwrap().0, &mut out).unwrap();
    }
    out
}

fn strace_seed(data: &Path) -> String {
    let p = data.display();
    format!(
        "100 1.000000 openat(AT_FDCWD, \"{p}\", O_RDONLY) = 3<{p}> <0.000010>\n\
         100 1.000100 read(3<{p}>, \"\"..., 4096) = 4096 <0.000010>\n\
         100 1.000400 lseek(3<{p}>, 100, SEEK_SET) = 100 <0.000001>\n\
         100 1.000500 pread64(3<{p}>, \"\"..., 300, 2000) = 300 <0.000002>\n\
         100 1.000600 mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, 3<{p}>, 0x1000) = 0x7f00 <0.000002>\n\
         100 1.000700 close(3<{p}>) = 0 <0.000001>\n\
         100 1.000800 +++ exited with 0 +++\n"
    )
}

fn clusterfetch_seed() -> Vec<u8> {
    let mut store = PrefetchStore::new();
    store.learn(
        "/bin/app",
        [("/lib/a.so", 0), ("/lib/a.so", 1), ("/lib/b.so", 7)],
        1 << 20,
    );
    store.learn("/bin/other", [("/lib/b.so", 3)], 1 << 20);
    store.encode()
}

macro_rules! target {
    ($name:ident, $seed:expr, $check:expr) => {
        proptest! {
            #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
            #[test]
            fn $name(e in edits()) {
                let seed: Vec<u8> = $seed;
                with_file(&mutate(&seed, &e), $check);
            }
        }
    };
}

target!(lirs, LIRS.into(), block_reader(&Format::Lirs));
target!(arc, ARC.into(), block_reader(&Format::Arc));
target!(msr, MSR.into(), block_reader(&fmt("msr")));
target!(systor, SYSTOR.into(), block_reader(&fmt("systor")));
target!(tencent, TENCENT.into(), block_reader(&fmt("tencent")));
target!(
    cloudphysics,
    CLOUDPHYSICS.into(),
    block_reader(&fmt("cloudphysics"))
);
target!(
    csv_mapped,
    CSV.into(),
    block_reader(&Format::parse("csv", Some("block=0,op=1,time=2:ns"), Some(true)).unwrap())
);
target!(
    u32le,
    vec![1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0],
    block_reader(&Format::U32Le)
);
target!(
    u32be,
    vec![0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1],
    block_reader(&Format::U32Be)
);
target!(native_file, native_seed(), block_reader(&Format::Native));
target!(
    accusim_binary,
    accusim_binary_seed(),
    file_reader(&Format::Accusim)
);
target!(
    accusim_text,
    ACCUSIM_TEXT.into(),
    file_reader(&Format::AccusimText)
);
target!(events_text, EVENTS.into(), |p: &Path| events::load(p)
    .err()
    .map(|e| e.to_string()));
target!(clusterfetch_store, clusterfetch_seed(), |p: &Path| {
    PrefetchStore::load(p).err().map(|e| e.to_string())
});

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn strace_log(e in edits()) {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data.bin");
        std::fs::write(&data, vec![0u8; 10_000]).unwrap();
        let seed = strace_seed(&data);
        with_file(&mutate(seed.as_bytes(), &e), |p| {
            strace::convert_file(p, &[]).err().map(|e| e.to_string())
        });
    }
}

/// The seeds themselves are valid: the mutations start from inputs each reader accepts.
#[test]
fn every_seed_reads() {
    let ok = |bytes: &[u8], check: &dyn Fn(&Path) -> Option<String>| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seed");
        std::fs::write(&path, bytes).unwrap();
        assert_eq!(check(&path), None);
    };
    ok(LIRS.as_bytes(), &block_reader(&Format::Lirs));
    ok(ARC.as_bytes(), &block_reader(&Format::Arc));
    ok(MSR.as_bytes(), &block_reader(&fmt("msr")));
    ok(SYSTOR.as_bytes(), &block_reader(&fmt("systor")));
    ok(TENCENT.as_bytes(), &block_reader(&fmt("tencent")));
    ok(CLOUDPHYSICS.as_bytes(), &block_reader(&fmt("cloudphysics")));
    ok(&native_seed(), &block_reader(&Format::Native));
    ok(&accusim_binary_seed(), &file_reader(&Format::Accusim));
    ok(ACCUSIM_TEXT.as_bytes(), &file_reader(&Format::AccusimText));
    ok(EVENTS.as_bytes(), &file_reader(&Format::Events));
    let store = clusterfetch_seed();
    ok(&store, &|p: &Path| {
        PrefetchStore::load(p).err().map(|e| e.to_string())
    });
    assert!(
        PrefetchStore::load(Path::new("/nonexistent")).is_ok(),
        "an absent store is an empty one"
    );
}
