//! The access patterns `belady calibrate` measures: the 13 the `linux6` model was built on and
//! the ones added to reach a marked folio of another stream (issue 27): interleaved streams at
//! several distances and random 64 KiB reads in a small hot region.

/// One access pattern: its name and its reads (byte offset, length).
pub struct Pattern {
    /// Name in tables and file names.
    pub name: &'static str,
    /// The pread calls.
    pub reads: Vec<(u64, u64)>,
}

/// splitmix64: the patterns' fixed random offsets without a dependency (same on every machine).
pub fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Smallest scratch file the patterns fit in.
pub const MIN_SIZE: u64 = 16 << 20;

/// Distances in pages between the two streams of the `interleaved-N` patterns: inside one
/// 64-slot xarray node, across a node boundary, past the first windows, and past the largest
/// folio (all inside the 16 MiB minimum file).
pub const INTERLEAVE_DISTANCES: [u64; 4] = [40, 100, 700, 2500];

/// Pages of the hot regions the `hot-64k-N` patterns read at random.
pub const HOT_REGIONS: [u64; 2] = [256, 1024];

/// The patterns over a file of `size` bytes with `page`-byte pages: the 13 of issue 18 first (in
/// their order, with their offsets), then the issue-27 ones.
pub fn patterns(size: u64, page: u64) -> Vec<Pattern> {
    let pages = size / page;
    let seq = |start: u64, n: u64, len: u64| -> Vec<(u64, u64)> {
        (0..n).map(|k| (start * page + k * len, len)).collect()
    };
    let mut rng = 18u64;
    let mut random = |n: u64, len_pages: u64| -> Vec<(u64, u64)> {
        (0..n)
            .map(|_| {
                let p = splitmix(&mut rng) % (pages - len_pages);
                (p * page, len_pages * page)
            })
            .collect()
    };
    let random_4k = random(300, 1);
    let random_64k = random(100, 16);
    let mid = pages / 2;
    let mut out = vec![
        Pattern {
            name: "seq-4k",
            reads: seq(0, 600, page),
        },
        Pattern {
            name: "seq-16k",
            reads: seq(0, 300, 4 * page),
        },
        Pattern {
            name: "seq-64k",
            reads: seq(0, 100, 16 * page),
        },
        Pattern {
            name: "seq-1m",
            reads: seq(0, 16, 256 * page),
        },
        Pattern {
            name: "seq-middle",
            reads: seq(mid, 600, page),
        },
        Pattern {
            name: "random-4k",
            reads: random_4k,
        },
        Pattern {
            name: "random-64k",
            reads: random_64k,
        },
        Pattern {
            name: "stride-2",
            reads: (0..300).map(|k| (2 * k * page, page)).collect(),
        },
        Pattern {
            name: "stride-16",
            reads: (0..100).map(|k| (16 * k * page, page)).collect(),
        },
        Pattern {
            name: "backward",
            reads: (0..300).map(|k| ((mid - 1 - k) * page, page)).collect(),
        },
        Pattern {
            name: "interleaved",
            reads: interleaved(0, mid, 300, page),
        },
        Pattern {
            name: "seq-then-jump",
            reads: seq(0, 300, page)
                .into_iter()
                .chain(seq(pages * 3 / 4, 300, page))
                .collect(),
        },
        Pattern {
            name: "unaligned-6000",
            reads: seq(0, 400, 6000),
        },
    ];
    // Two 4 KiB streams on one descriptor, the second `d` pages ahead: each read of one stream
    // finds the read-ahead state following the other, so its marked folios are "foreign".
    for (name, d) in [
        "interleaved-40",
        "interleaved-100",
        "interleaved-700",
        "interleaved-2500",
    ]
    .into_iter()
    .zip(INTERLEAVE_DISTANCES)
    {
        out.push(Pattern {
            name,
            reads: interleaved(0, d, 600, page),
        });
    }
    // 64 KiB reads at random pages of a small region: the reads keep landing on folios earlier
    // reads left marked, with cached neighbours all around.
    let mut hot_rng = 27u64;
    for (name, region) in ["hot-64k-256", "hot-64k-1024"].into_iter().zip(HOT_REGIONS) {
        let reads = (0..200)
            .map(|_| ((splitmix(&mut hot_rng) % (region - 16)) * page, 16 * page))
            .collect();
        out.push(Pattern { name, reads });
    }
    out
}

/// `n` pairs of one-page reads, stream one at page `a + k`, stream two at `b + k`.
fn interleaved(a: u64, b: u64, n: u64, page: u64) -> Vec<(u64, u64)> {
    (0..n)
        .flat_map(|k| [((a + k) * page, page), ((b + k) * page, page)])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_inside_the_file() {
        for size in [64 << 20, MIN_SIZE] {
            let p = patterns(size, 4096);
            assert_eq!(p.len(), 13 + INTERLEAVE_DISTANCES.len() + HOT_REGIONS.len());
            for pat in &p {
                assert!(!pat.reads.is_empty(), "{}", pat.name);
                assert!(
                    pat.reads.iter().all(|&(o, l)| o + l <= size),
                    "{} reads past the end",
                    pat.name
                );
            }
            let mut names: Vec<_> = p.iter().map(|p| p.name).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), p.len(), "pattern names are unique");
        }
    }

    /// The issue-18 patterns keep their offsets (the saved observations replay them), and the
    /// random ones are the same on every machine.
    #[test]
    fn the_first_thirteen_are_unchanged() {
        let p = patterns(64 << 20, 4096);
        assert_eq!(p[5].name, "random-4k");
        assert_eq!(p[5].reads, patterns(64 << 20, 4096)[5].reads);
        assert_eq!(p[10].name, "interleaved");
        assert_eq!(
            p[10].reads[..4],
            [
                (0, 4096),
                (8192 * 4096, 4096),
                (4096, 4096),
                (8193 * 4096, 4096)
            ]
        );
    }
}
