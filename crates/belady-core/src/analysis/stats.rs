//! Trace characterisation: what `belady stats` prints.
//!
//! One pass over the requests in memory proportional to the distinct blocks, never to the trace's
//! length: counts, the share of references to consecutive blocks (the prefetching study's
//! Table 2), file sizes, the LRU stack (reuse) distance histogram, and the working-set size per
//! window of references.
//!
//! Reuse distance of a reference: the number of distinct other blocks referenced since the
//! previous reference to the same block (0 for an immediate repeat; a first reference has none).
//! A cache of `c` blocks under LRU hits exactly the references with distance below `c`. The
//! exact histogram keeps, per block, the time of its last reference, and marks live "last
//! reference" times in a counted bitmap, so a distance is a prefix sum; times are renumbered when
//! the bitmap fills, which keeps it at most a small multiple of the distinct blocks
//! ([`StackDistances`], in `mrc::stack`). The
//! sampled histogram (SHARDS, Waldspurger et al., FAST 2015) keeps only blocks whose hash falls
//! below `rate` and scales distances and counts by `1 / rate`, so distances are resolved to about
//! `1 / rate` blocks.
//!
//! Object traces (oracleGeneral, lcs, native files converted from them) are counted by their
//! sizes: bytes requested is the sum of the requests' object sizes, the footprint the sum over
//! distinct objects of each one's size at its first reference (as libCacheSim's
//! `cal_working_set_size`), and [`SizeStats`] the distribution of request sizes. The
//! distribution is kept as a count per distinct size, so its percentiles are exact and its
//! memory follows the distinct sizes, not the trace's length.

use crate::error::Result;
// The same block hash as `belady mrc`'s sampler (seed 0), so both sample the same blocks.
use crate::analysis::mrc::mix64;
/// The exact stack-distance tracker lives beside the exact LRU curve, its main user.
pub use crate::analysis::mrc::stack::StackDistances;
use crate::trace::file::{file_block_key, FileEventKind, FileTrace};
use crate::trace::{BlockRequest, Op};
use rustc_hash::FxHashMap;

/// How [`Collector`] measures.
#[derive(Clone, Debug)]
pub struct StatsOptions {
    /// Bytes per block (for byte counts of block-level traces).
    pub block_size: u32,
    /// Sample blocks at this rate for the reuse distances (SHARDS); `None`: exact.
    pub sample_rate: Option<f64>,
    /// References per working-set window.
    pub window: u64,
    /// Whether each request is one object of its [`BlockRequest::bytes`] (object traces), so
    /// that sizes are reported and the footprint is the objects' bytes.
    pub object_sizes: bool,
}

impl Default for StatsOptions {
    fn default() -> Self {
        StatsOptions {
            block_size: 4096,
            sample_rate: None,
            window: 10_000,
            object_sizes: false,
        }
    }
}

/// The distribution of request sizes of an object trace, weighted by requests. A percentile
/// is the smallest size at least that share of requests does not exceed (nearest rank).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SizeStats {
    /// Smallest request size in bytes.
    pub min: u64,
    /// Median.
    pub p50: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
    /// Largest.
    pub max: u64,
    /// Mean request size in bytes (bytes requested / requests).
    pub mean: f64,
}

impl SizeStats {
    /// The statistics of `counts` (size, requests of that size), in any order; `None` when
    /// empty.
    fn of(mut counts: Vec<(u32, u64)>) -> Option<SizeStats> {
        counts.sort_unstable();
        let total: u64 = counts.iter().map(|&(_, n)| n).sum();
        if total == 0 {
            return None;
        }
        let bytes: u128 = counts.iter().map(|&(z, n)| z as u128 * n as u128).sum();
        let percentile = |p: u64| {
            // Nearest rank: the ceil(p% of total)-th smallest request (at least the first).
            let rank = (total as u128 * p as u128).div_ceil(100).max(1) as u64;
            let mut seen = 0;
            for &(z, n) in &counts {
                seen += n;
                if seen >= rank {
                    return z as u64;
                }
            }
            unreachable!("rank is at most the total")
        };
        Some(SizeStats {
            min: counts[0].0 as u64,
            p50: percentile(50),
            p90: percentile(90),
            p99: percentile(99),
            max: counts[counts.len() - 1].0 as u64,
            mean: bytes as f64 / total as f64,
        })
    }
}

/// One bucket of a log2 histogram: values in `[lo, hi]`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Bucket {
    /// Smallest value in the bucket.
    pub lo: u64,
    /// Largest value in the bucket.
    pub hi: u64,
    /// How many fell in it.
    pub count: u64,
}

/// Reuse (LRU stack) distances.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ReuseStats {
    /// Whether the distances are a SHARDS estimate.
    pub sampled: bool,
    /// Share of blocks sampled (1 when exact).
    pub sample_rate: f64,
    /// References sampled (all references when exact).
    pub sampled_references: u64,
    /// References that are a block's first (infinite distance); estimated when sampled.
    pub first_references: u64,
    /// Buckets `[0,0]`, `[1,1]`, `[2,3]`, `[4,7]`, … from the first to the last non-empty one;
    /// counts estimated when sampled.
    pub histogram: Vec<Bucket>,
}

/// File sizes of a file-level trace (largest size seen per file).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FileSizeStats {
    /// Files.
    pub files: u64,
    /// Mean size in bytes.
    pub mean_bytes: f64,
    /// Median size in bytes.
    pub median_bytes: u64,
    /// Largest size in bytes.
    pub max_bytes: u64,
    /// Files by size in bytes, buckets as in [`ReuseStats::histogram`].
    pub histogram: Vec<Bucket>,
}

/// Distinct blocks per window of references (Denning's working set over virtual time).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct WorkingSet {
    /// References per window (the last window may be shorter).
    pub window_references: u64,
    /// Smallest distinct-block count of a window.
    pub min: u64,
    /// Mean over windows.
    pub mean: f64,
    /// Largest.
    pub max: u64,
    /// Each window's distinct-block count, in order (estimated under a sample rate).
    pub series: Vec<u64>,
}

/// Everything `belady stats` reports.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TraceStats {
    /// Requests as recorded (block-level records, or file-level read and write calls).
    pub requests: u64,
    /// Read requests.
    pub read_requests: u64,
    /// Write requests.
    pub write_requests: u64,
    /// Block references (a request over n blocks is n references).
    pub references: u64,
    /// Read references.
    pub read_references: u64,
    /// Write references.
    pub write_references: u64,
    /// Distinct blocks (estimated from the sampled blocks under a sample rate).
    pub unique_blocks: u64,
    /// Distinct files (file-level traces only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unique_files: Option<u64>,
    /// Bytes per block.
    pub block_size: u32,
    /// Bytes requested: the requests' own lengths (object sizes, recorded byte lengths, the
    /// calls' lengths of file-level traces), or references × block size where the trace
    /// records none.
    pub bytes: u64,
    /// The data the trace touches: distinct blocks × block size, or for an object trace the
    /// sum of each distinct object's size at its first reference (estimated under a sample
    /// rate).
    pub footprint_bytes: u64,
    /// Request sizes of an object trace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_sizes: Option<SizeStats>,
    /// References to the block right after the previous reference's block of the same file
    /// (block-level traces: of the previous reference).
    pub sequential_references: u64,
    /// `sequential_references` as a percentage of references.
    pub sequential_percent: f64,
    /// File sizes (file-level traces only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_sizes: Option<FileSizeStats>,
    /// Reuse distances.
    pub reuse: ReuseStats,
    /// Working-set size over windows.
    pub working_set: WorkingSet,
}

/// Index of the log2 bucket holding `v`: 0 for 0, then `[2^(k-1), 2^k - 1]`.
fn bucket_of(v: u64) -> usize {
    (64 - v.leading_zeros()) as usize
}

fn buckets(counts: &[f64]) -> Vec<Bucket> {
    let last = counts.iter().rposition(|&c| c > 0.0).map_or(0, |i| i + 1);
    let first = counts.iter().position(|&c| c > 0.0).unwrap_or(0);
    counts[..last]
        .iter()
        .enumerate()
        .skip(first)
        .map(|(k, &c)| Bucket {
            lo: if k == 0 { 0 } else { 1 << (k - 1) },
            hi: if k == 0 { 0 } else { (1u64 << (k - 1)) * 2 - 1 },
            count: c.round() as u64,
        })
        .collect()
}

/// Accumulates a trace's statistics one request at a time.
pub struct Collector {
    opts: StatsOptions,
    requests: [u64; 2],
    references: [u64; 2],
    bytes: u64,
    /// Per block: the last window it was referenced in.
    windows: FxHashMap<u64, u64>,
    window_count: u64,
    series: Vec<u64>,
    distances: StackDistances,
    /// Hash threshold below which a block is sampled (`u64::MAX`: all).
    threshold: u64,
    sampled: u64,
    first: f64,
    reuse: Vec<f64>,
    sequential: u64,
    previous: Option<u64>,
    /// Per file: last block index referenced, and largest size seen.
    files: FxHashMap<u64, (Option<u64>, u64)>,
    file_level: bool,
    /// Object traces: requests per distinct size.
    sizes: FxHashMap<u32, u64>,
    /// Object traces: sizes of the (sampled) objects at their first reference.
    object_footprint: u64,
}

impl Collector {
    /// An empty collector.
    pub fn new(opts: StatsOptions) -> Self {
        let threshold = match opts.sample_rate {
            Some(r) if r < 1.0 => (r * u64::MAX as f64) as u64,
            _ => u64::MAX,
        };
        Collector {
            opts,
            requests: [0; 2],
            references: [0; 2],
            bytes: 0,
            windows: FxHashMap::default(),
            window_count: 0,
            series: Vec::new(),
            distances: StackDistances::new(),
            threshold,
            sampled: 0,
            first: 0.0,
            reuse: vec![0.0; 65],
            sequential: 0,
            previous: None,
            files: FxHashMap::default(),
            file_level: false,
            sizes: FxHashMap::default(),
            object_footprint: 0,
        }
    }

    fn rate(&self) -> f64 {
        if self.threshold == u64::MAX {
            1.0
        } else {
            self.opts.sample_rate.unwrap_or(1.0)
        }
    }

    /// Counts one request (a record or a call) moving `bytes`.
    pub fn request(&mut self, op: Op, bytes: u64) {
        self.requests[(op == Op::Write) as usize] += 1;
        self.bytes = self.bytes.saturating_add(bytes);
    }

    /// Counts one request for object `block` of `size` bytes (object traces): the request,
    /// its one reference and its size.
    pub fn object(&mut self, block: u64, op: Op, size: u32) {
        self.request(op, size as u64);
        *self.sizes.entry(size).or_insert(0) += 1;
        if self.count_reference(block, op, None) {
            self.object_footprint += size as u64;
        }
    }

    /// Counts one reference to `block`; `file` is the file and block index within it, when known.
    pub fn reference(&mut self, block: u64, op: Op, file: Option<(u64, u64)>) {
        self.count_reference(block, op, file);
    }

    /// [`Collector::reference`]; true when it is the first reference to a sampled block.
    fn count_reference(&mut self, block: u64, op: Op, file: Option<(u64, u64)>) -> bool {
        let n = self.references[0] + self.references[1];
        self.references[(op == Op::Write) as usize] += 1;
        let window = n / self.opts.window;
        if window == self.series.len() as u64 {
            self.series.push(0);
        }
        let sampled = self.threshold == u64::MAX || mix64(block) < self.threshold;
        // Under sampling only sampled blocks are tracked, so memory follows the sample; the
        // distinct counts are then estimates, scaled up in `finish`.
        let previous = if sampled {
            self.windows.insert(block, window)
        } else {
            Some(window)
        };
        if previous != Some(window) {
            self.series[window as usize] += 1;
        }
        self.window_count = window + 1;
        let consecutive = match file {
            Some((f, index)) => {
                let entry = self.files.entry(f).or_insert((None, 0));
                let hit = index > 0 && entry.0 == Some(index - 1);
                entry.0 = Some(index);
                hit
            }
            None => self.previous.is_some_and(|p| p.wrapping_add(1) == block),
        };
        self.sequential += consecutive as u64;
        self.previous = Some(block);
        if sampled {
            self.sampled += 1;
            let scale = 1.0 / self.rate();
            match self.distances.access(block) {
                Some(d) => {
                    // A sampled distance d stands for true distances in about [d, d + 1) / rate;
                    // take the middle (exact when nothing is sampled away).
                    let estimate = (d as f64 + 0.5) * scale - 0.5;
                    self.reuse[bucket_of(estimate.round() as u64)] += scale
                }
                None => self.first += scale,
            }
        }
        sampled && previous.is_none()
    }

    /// Notes that `file` is `size` bytes long (file-level traces).
    pub fn file(&mut self, file: u64, size: u64) {
        self.file_level = true;
        let entry = self.files.entry(file).or_insert((None, 0));
        entry.1 = entry.1.max(size);
    }

    /// The statistics gathered.
    pub fn finish(self) -> TraceStats {
        let references = self.references[0] + self.references[1];
        let rate = self.rate();
        let scale_up = |n: u64| (n as f64 / rate).round() as u64;
        let unique = scale_up(self.windows.len() as u64);
        let block_size = self.opts.block_size;
        let file_sizes = self.file_level.then(|| {
            let mut sizes: Vec<u64> = self.files.values().map(|&(_, s)| s).collect();
            sizes.sort_unstable();
            let mut counts = vec![0.0; 65];
            sizes.iter().for_each(|&s| counts[bucket_of(s)] += 1.0);
            FileSizeStats {
                files: sizes.len() as u64,
                mean_bytes: if sizes.is_empty() {
                    0.0
                } else {
                    sizes.iter().map(|&s| s as f64).sum::<f64>() / sizes.len() as f64
                },
                median_bytes: sizes.get(sizes.len() / 2).copied().unwrap_or(0),
                max_bytes: sizes.last().copied().unwrap_or(0),
                histogram: buckets(&counts),
            }
        });
        let series: Vec<u64> = if rate < 1.0 {
            self.series.iter().map(|&n| scale_up(n)).collect()
        } else {
            self.series
        };
        let working_set = WorkingSet {
            window_references: self.opts.window,
            min: series.iter().copied().min().unwrap_or(0),
            mean: if series.is_empty() {
                0.0
            } else {
                series.iter().sum::<u64>() as f64 / series.len() as f64
            },
            max: series.iter().copied().max().unwrap_or(0),
            series,
        };
        TraceStats {
            requests: self.requests[0] + self.requests[1],
            read_requests: self.requests[0],
            write_requests: self.requests[1],
            references,
            read_references: self.references[0],
            write_references: self.references[1],
            unique_blocks: unique,
            unique_files: self.file_level.then_some(self.files.len() as u64),
            block_size,
            bytes: self.bytes,
            footprint_bytes: if self.opts.object_sizes {
                scale_up(self.object_footprint)
            } else {
                unique.saturating_mul(block_size as u64)
            },
            object_sizes: if self.opts.object_sizes {
                SizeStats::of(self.sizes.into_iter().collect())
            } else {
                None
            },
            sequential_references: self.sequential,
            sequential_percent: if references == 0 {
                0.0
            } else {
                100.0 * self.sequential as f64 / references as f64
            },
            file_sizes,
            reuse: ReuseStats {
                sampled: rate < 1.0,
                sample_rate: rate,
                sampled_references: self.sampled,
                first_references: self.first.round() as u64,
                histogram: buckets(&self.reuse),
            },
            working_set,
        }
    }
}

/// Statistics of a block-level request stream.
pub fn block_stats(
    stream: impl Iterator<Item = Result<BlockRequest>>,
    opts: StatsOptions,
) -> Result<TraceStats> {
    let objects = opts.object_sizes;
    let mut c = Collector::new(opts);
    for (i, req) in stream.enumerate() {
        let req = req?;
        if objects {
            // Object readers give one object of 1 to u32::MAX bytes per request.
            let size = u32::try_from(req.bytes).ok().filter(|_| req.count == 1);
            let Some(size) = size else {
                return Err(crate::error::Error::config(
                    "object_sizes",
                    true,
                    format!(
                        "request {i} is not one object of at most {} bytes ({} blocks, {} bytes)",
                        u32::MAX,
                        req.count,
                        req.bytes
                    ),
                ));
            };
            c.object(req.block, req.op, size);
            continue;
        }
        c.request(req.op, req.bytes);
        for k in 0..req.count as u64 {
            c.reference(req.block.wrapping_add(k), req.op, None);
        }
    }
    Ok(c.finish())
}

/// Statistics of a file-level trace; blocks are the file blocks its reads and writes touch.
pub fn file_stats(trace: &FileTrace, opts: StatsOptions) -> TraceStats {
    let bs = opts.block_size as u64;
    let mut c = Collector::new(opts);
    for ev in &trace.events {
        if ev.kind == FileEventKind::Exit {
            continue;
        }
        c.file(ev.file, ev.file_size);
        let Some((op, first, count)) = ev.blocks(bs) else {
            continue;
        };
        if let FileEventKind::Read { len, .. } | FileEventKind::Write { len, .. } = ev.kind {
            c.request(op, len);
        }
        for index in first..first + count {
            // Past 2^32 blocks per file the key would collide; fold the file in instead.
            let key = file_block_key(ev.file, index).unwrap_or_else(|| mix64(ev.file) ^ index);
            c.reference(key, op, Some((ev.file, index)));
        }
    }
    c.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::analysis::mrc::stack::tests::naive;

    #[test]
    fn stack_distances_match_brute_force_across_renumbering() {
        let mut x = 12345u64;
        let refs: Vec<u64> = (0..5000)
            .map(|_| {
                x = mix64(x);
                // Mostly a small set, sometimes a fresh block, so renumbering happens often.
                if x % 10 == 0 {
                    1000 + x % 5000
                } else {
                    x % 60
                }
            })
            .collect();
        let mut sd = StackDistances::new();
        let got: Vec<Option<u64>> = refs.iter().map(|&b| sd.access(b)).collect();
        assert_eq!(got, naive(&refs));
    }

    #[test]
    fn counts_sequences_and_windows() {
        let reqs = [(10, 3, Op::Read), (13, 1, Op::Write), (10, 1, Op::Read)];
        let stream = reqs.iter().map(|&(block, count, op)| {
            Ok(BlockRequest {
                block,
                count,
                op,
                time_ns: None,
                bytes: count as u64 * 512,
            })
        });
        let s = block_stats(
            stream,
            StatsOptions {
                block_size: 512,
                window: 2,
                ..StatsOptions::default()
            },
        )
        .unwrap();
        assert_eq!((s.requests, s.read_requests, s.write_requests), (3, 2, 1));
        assert_eq!((s.references, s.write_references), (5, 1));
        assert_eq!(s.unique_blocks, 4);
        assert_eq!(s.bytes, 5 * 512);
        // 11 after 10, 12 after 11, 13 after 12.
        assert_eq!(s.sequential_references, 3);
        // Windows {10,11} {12,13} {10}.
        assert_eq!(s.working_set.series, vec![2, 2, 1]);
        assert_eq!(s.reuse.first_references, 4);
        // 10 again after 11, 12, 13: distance 3, bucket [2,3].
        assert_eq!(
            s.reuse.histogram.last(),
            Some(&Bucket {
                lo: 2,
                hi: 3,
                count: 1
            })
        );
    }

    #[test]
    fn sampling_estimates_the_exact_histogram() {
        // A loop over 4000 blocks: every reuse has distance 3999.
        let refs = (0..40_000u64).map(|i| {
            Ok(BlockRequest {
                block: i % 4000,
                count: 1,
                op: Op::Read,
                time_ns: None,
                bytes: 4096,
            })
        });
        let opts = StatsOptions {
            sample_rate: Some(0.1),
            ..StatsOptions::default()
        };
        let s = block_stats(refs, opts).unwrap();
        assert!(s.reuse.sampled);
        let total: u64 = s.reuse.histogram.iter().map(|b| b.count).sum();
        assert!((30_000..42_000).contains(&total), "{total}");
        // Distance 3999 scaled back lands in [2048, 4095] or the next bucket.
        let heavy = s.reuse.histogram.iter().max_by_key(|b| b.count).unwrap();
        assert!(heavy.lo == 2048 || heavy.lo == 4096, "{heavy:?}");
        // Distinct counts are estimated from the sample (10% of 4000 blocks, about 400).
        assert!(
            (3000..5000).contains(&s.unique_blocks),
            "{}",
            s.unique_blocks
        );
        assert!(s.working_set.max < 5000, "{:?}", s.working_set.max);
    }
}
