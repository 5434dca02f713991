//! Every reader on small inputs, plain and under each compression codec.

use belady_core::trace::{open_requests, BlockRequest, Format, Op, ReadOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

fn requests(path: &Path, format: &Format) -> Vec<BlockRequest> {
    open_requests(path, format, &ReadOptions::default())
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
}

fn compressed_copies(dir: &Path, name: &str, bytes: &[u8]) -> Vec<PathBuf> {
    let mut out = vec![dir.join(name)];
    std::fs::write(&out[0], bytes).unwrap();
    let gz = dir.join(format!("{name}.gz"));
    let mut e = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::fast(),
    );
    e.write_all(bytes).unwrap();
    e.finish().unwrap();
    let xz = dir.join(format!("{name}.xz"));
    let mut e = xz2::write::XzEncoder::new(std::fs::File::create(&xz).unwrap(), 1);
    e.write_all(bytes).unwrap();
    e.finish().unwrap();
    let zst = dir.join(format!("{name}.zst"));
    std::fs::write(&zst, zstd::encode_all(bytes, 1).unwrap()).unwrap();
    let bz = dir.join(format!("{name}.bz2"));
    let mut e = bzip2::write::BzEncoder::new(
        std::fs::File::create(&bz).unwrap(),
        bzip2::Compression::fast(),
    );
    e.write_all(bytes).unwrap();
    e.finish().unwrap();
    out.extend([gz, xz, zst, bz]);
    out
}

#[test]
fn every_codec_gives_the_same_requests() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..2000)
        .map(|i| format!("{}\r\n", (i * 13) % 500))
        .collect();
    let copies = compressed_copies(dir.path(), "t.trace", text.as_bytes());
    let plain = requests(&copies[0], &Format::Lirs);
    assert_eq!(plain.len(), 2000);
    assert_eq!(plain[1].block, 13);
    for c in &copies[1..] {
        assert_eq!(requests(c, &Format::Lirs), plain, "{}", c.display());
    }
}

#[test]
fn arc_u32_and_csv_presets_read_their_layouts() {
    let dir = tempfile::tempdir().unwrap();
    let arc = dir.path().join("a.lis");
    std::fs::write(&arc, "100 2 0 0\n5 1 0 1\n").unwrap();
    let got: Vec<(u64, u32)> = requests(&arc, &Format::Arc)
        .iter()
        .map(|r| (r.block, r.count))
        .collect();
    assert_eq!(got, vec![(100, 2), (5, 1)]);

    let bin = dir.path().join("ids.bin");
    std::fs::write(&bin, [7u8, 0, 0, 0, 0, 0, 0, 9]).unwrap();
    assert_eq!(requests(&bin, &Format::U32Le)[0].block, 7);
    assert_eq!(requests(&bin, &Format::U32Be)[1].block, 9);

    let msr = dir.path().join("m.csv");
    std::fs::write(&msr, "128166385295514663,hm,0,Write,9056014336,2048,2833\n128166385295514700,hm,1,Read,8192,8192,100\n").unwrap();
    let m = requests(&msr, &Format::parse("msr", None, None).unwrap());
    assert_eq!(m[0].op, Op::Write);
    assert_eq!(m[0].block, 9056014336 / 4096);
    assert_eq!(m[0].time_ns, Some(12816638529551466300));
    assert_eq!((m[1].count, m[1].op), (2, Op::Read));
    assert_ne!(
        m[1].block >> 44,
        m[0].block >> 44,
        "disks 0 and 1 share an id space"
    );
}

/// The shared block samples parse completely with their presets.
#[test]
fn shared_block_samples_parse() {
    let root = std::env::var("BELADY_TRACES")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces"));
    let dir = root.join("block-samples");
    if !dir.is_dir() {
        eprintln!(
            "skipped: shared traces not found at {} (set BELADY_TRACES)",
            root.display()
        );
        return;
    }
    let cases = [
        ("cloudPhysicsIO.csv.gz", "cloudphysics", 113_872),
        ("msr-cambridge1-sample.csv", "msr", 1000),
        ("systor17-traces-sample.csv.gz", "systor", 999),
        ("systor17-additional-sample.csv.gz", "systor", 999),
        ("cloud_storage-sample.bz2", "tencent", 50_000),
    ];
    for (file, preset, records) in cases {
        let reqs = requests(&dir.join(file), &Format::parse(preset, None, None).unwrap());
        assert_eq!(reqs.len(), records, "{file}");
        assert!(reqs.iter().any(|r| r.op == Op::Read), "{file} has reads");
        assert!(reqs.iter().all(|r| r.count >= 1 && r.time_ns.is_some()));
    }
}
