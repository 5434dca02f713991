//! Read-ahead engines for file-level traces.
//!
//! A read-ahead engine sees each read() call and, for every demand block of the call, what the
//! cache lookup found; it answers with the file blocks to read ahead. It never touches the cache:
//! the engine skips blocks already resident, inserts the rest as prefetches and queues their I/O.

pub mod bsd;
pub mod clusterfetch;
pub mod example;
pub mod linux24;
pub mod linux26;
pub mod linux6;
pub mod ondemand;

use crate::error::{Error, Result};
use std::ops::Range;

/// An open file description: process id and descriptor.
pub type Desc = (u32, u32);

/// What the cache lookup of a demand block found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Resident and its I/O complete.
    Hit,
    /// Resident and flagged as a read-ahead trigger (Linux's PG_readahead); the flag is now clear.
    HitMarked,
    /// Resident but its I/O not complete (Linux: the page is locked).
    InFlight,
    /// Not resident.
    Miss,
}

/// One read() call as the read-ahead engine sees it.
#[derive(Copy, Clone, Debug)]
pub struct ReadCall {
    /// Byte offset in the file.
    pub offset: u64,
    /// Bytes read.
    pub len: u64,
    /// File length in bytes.
    pub file_size: u64,
}

/// What a read-ahead engine asks for after a lookup.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// File blocks to read ahead; cached ones are skipped (or end the read, see
    /// [`ReadAhead::stops_at_first_cached`]).
    pub range: Range<u64>,
    /// A block of the range to flag as the next asynchronous trigger, if newly read.
    pub marker: Option<u64>,
    /// The last block the read-ahead window covers after this decision (Linux 2.4's local
    /// `raend`), for engines that reference the call's later demand blocks up to it without
    /// asking again (AccuSim, `window-covers-call`).
    pub window_end: Option<u64>,
}

impl Plan {
    /// Read `range`, no trigger.
    pub fn read(range: Range<u64>) -> Plan {
        Plan {
            range,
            ..Plan::default()
        }
    }

    /// Nothing to read.
    pub fn nothing() -> Plan {
        Plan::default()
    }
}

/// A read-ahead policy, with state per open file.
pub trait ReadAhead: Send {
    /// Registry name.
    fn name(&self) -> &'static str;
    /// The descriptor was opened or rebound: start from scratch.
    fn reset(&mut self, d: Desc);
    /// The descriptor is gone (close, exit).
    fn forget(&mut self, d: Desc);
    /// A write on the descriptor (read-ahead state is reset; writes are never read ahead).
    fn on_write(&mut self, d: Desc) {
        self.reset(d);
    }
    /// A read() call begins.
    fn begin_read(&mut self, d: Desc, call: &ReadCall);
    /// Demand block `index` of the current call was looked up; returns what to read ahead.
    /// `cached(j)` tells whether block `j` of the same file is resident. Blocks already resident
    /// in the range are skipped by the engine but still count as read ahead, as in the kernel.
    fn after_lookup(
        &mut self,
        d: Desc,
        index: u64,
        lookup: Lookup,
        cached: &dyn Fn(u64) -> bool,
    ) -> Plan;

    /// Read ahead only up to the first block already cached (so the read stays one cluster);
    /// the kernel engines skip cached blocks and go on.
    fn stops_at_first_cached(&self) -> bool {
        false
    }

    /// Stop reading ahead at a block whose insertion would evict the demand block or a block read
    /// ahead by the same call. The engine then leaves the read-ahead blocks unpinned and asks the
    /// policy for its victim before each insertion.
    fn stops_at_group_eviction(&self) -> bool {
        false
    }
}

/// No read-ahead: only demand blocks are read.
#[derive(Default)]
pub struct NoReadAhead;

impl ReadAhead for NoReadAhead {
    fn name(&self) -> &'static str {
        "none"
    }
    fn reset(&mut self, _d: Desc) {}
    fn forget(&mut self, _d: Desc) {}
    fn begin_read(&mut self, _d: Desc, _call: &ReadCall) {}
    fn after_lookup(
        &mut self,
        _d: Desc,
        _index: u64,
        _lookup: Lookup,
        _cached: &dyn Fn(u64) -> bool,
    ) -> Plan {
        Plan::nothing()
    }
}

/// Which read-ahead engine a run uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PrefetchKind {
    /// None.
    None,
    /// Linux 2.4 `generic_file_readahead` (the prefetching study's).
    Linux24,
    /// The simplified prefetcher of the study's Table 1 example.
    Example,
    /// Linux 2.6.11 current/ahead windows (`page_cache_readahead`).
    Linux26,
    /// Modern Linux on-demand read-ahead with PG_readahead markers (`ondemand_readahead`).
    Ondemand,
    /// 4.4BSD `cluster_read`.
    Bsd,
    /// Linux 6.x read-ahead with large folios (`page_cache_sync_ra` / `page_cache_async_ra`).
    Linux6,
}

/// Names accepted by [`PrefetchKind::parse`].
pub const PREFETCH_NAMES: &[&str] = &[
    "none", "linux24", "linux26", "ondemand", "linux6", "bsd", "example",
];

impl PrefetchKind {
    /// Parses a `--prefetch` value.
    pub fn parse(s: &str) -> Result<PrefetchKind> {
        match s {
            "none" | "off" => Ok(PrefetchKind::None),
            "linux24" | "linux-2.4" => Ok(PrefetchKind::Linux24),
            "example" => Ok(PrefetchKind::Example),
            "linux26" | "linux-2.6" => Ok(PrefetchKind::Linux26),
            "ondemand" => Ok(PrefetchKind::Ondemand),
            "linux6" | "linux-6" => Ok(PrefetchKind::Linux6),
            "bsd" | "4.4bsd" => Ok(PrefetchKind::Bsd),
            _ => Err(Error::config(
                "prefetch",
                s,
                format!(
                    "unknown read-ahead engine{}; expected one of {}",
                    crate::error::did_you_mean(s, PREFETCH_NAMES.iter().copied()),
                    PREFETCH_NAMES.join(", ")
                ),
            )),
        }
    }

    /// The name results carry.
    pub fn name(self) -> &'static str {
        match self {
            PrefetchKind::None => "none",
            PrefetchKind::Linux24 => "linux24",
            PrefetchKind::Example => "example",
            PrefetchKind::Linux26 => "linux26",
            PrefetchKind::Ondemand => "ondemand",
            PrefetchKind::Bsd => "bsd",
            PrefetchKind::Linux6 => "linux6",
        }
    }
}

/// A cache of unlimited size driven by one-block reads, for checking read-ahead engines against
/// the reference models' traces: I/O completes at once, so a block read ahead is simply cached.
#[cfg(test)]
pub(crate) mod drive {
    use super::{Desc, Lookup, ReadAhead, ReadCall};
    use std::collections::{BTreeMap, BTreeSet};

    /// One read-ahead decision: the reading stream, the block read, the range read ahead (first
    /// and last block) and the flagged trigger block.
    pub type Decision = (Desc, u64, u64, u64, Option<u64>);

    /// Runs one-block reads `(descriptor, file, block)` in order through `ra`; every descriptor
    /// is opened first. Files are `file_blocks` long.
    pub fn one_block_reads(
        ra: &mut dyn ReadAhead,
        reads: &[(Desc, u64, u64)],
        file_blocks: u64,
    ) -> Vec<Decision> {
        let mut cached: BTreeMap<u64, BTreeSet<u64>> = BTreeMap::new();
        let mut marked: BTreeSet<(u64, u64)> = BTreeSet::new();
        let mut opened = BTreeSet::new();
        let mut log = Vec::new();
        for &(d, file, index) in reads {
            if opened.insert(d) {
                ra.reset(d);
            }
            ra.begin_read(
                d,
                &ReadCall {
                    offset: index * 4096,
                    len: 4096,
                    file_size: file_blocks * 4096,
                },
            );
            let blocks = cached.entry(file).or_default();
            let lookup = if !blocks.contains(&index) {
                Lookup::Miss
            } else if marked.remove(&(file, index)) {
                Lookup::HitMarked
            } else {
                Lookup::Hit
            };
            let snapshot = blocks.clone();
            let plan = ra.after_lookup(d, index, lookup, &|j| snapshot.contains(&j));
            blocks.insert(index);
            let range = plan.range.start..plan.range.end.min(file_blocks);
            if !range.is_empty() {
                log.push((d, index, range.start, range.end - 1, plan.marker));
                if let Some(m) = plan.marker.filter(|m| !snapshot.contains(m)) {
                    marked.insert((file, m));
                }
                blocks.extend(range);
            }
        }
        log
    }

    /// The decisions of stream `d` alone, without the stream and marker columns.
    pub fn of(log: &[Decision], d: Desc) -> Vec<(u64, u64, u64)> {
        log.iter()
            .filter(|x| x.0 == d)
            .map(|&(_, i, a, b, _)| (i, a, b))
            .collect()
    }

    /// Sequential reads of blocks `0..n` by two streams taking turns: `a` reads `file_a` from
    /// block 0, `b` reads `file_b` from block `b_start`.
    pub fn interleaved(a: (Desc, u64), b: (Desc, u64, u64), n: u64) -> Vec<(Desc, u64, u64)> {
        (0..n)
            .flat_map(|k| [(a.0, a.1, k), (b.0, b.1, b.2 + k)])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::bsd::Bsd;
    use super::drive::{interleaved, of, one_block_reads};
    use super::linux24::Linux24;
    use super::linux26::Linux26;
    use super::ondemand::Ondemand;
    use super::{Desc, ReadAhead};

    const A: Desc = (1, 3);
    const B: Desc = (2, 3);
    const FILE_BLOCKS: u64 = 1 << 20;

    /// Builds a fresh engine.
    type Make = fn() -> Box<dyn ReadAhead>;
    /// A stream's decisions: block read, first and last block read ahead.
    type Trace = Vec<(u64, u64, u64)>;

    fn engines() -> Vec<(&'static str, Make)> {
        vec![
            ("linux24", || Box::new(Linux24::new(3, 32, 4096, true))),
            ("linux26", || Box::new(Linux26::new(4, 32, 4096))),
            ("ondemand", || Box::new(Ondemand::new(32, 4096))),
            ("bsd", || Box::new(Bsd::new(32, 4096))),
        ]
    }

    /// One-block sequential reads of blocks `0..n` of `file` through descriptor `d`.
    fn sequential(d: Desc, file: u64, start: u64, n: u64) -> Vec<(Desc, u64, u64)> {
        (start..start + n).map(|k| (d, file, k)).collect()
    }

    /// Each engine alone follows the reference models' sequential traces (ra24_model.py with the
    /// study's MAX of 32, ra26_models.py), and streams on their own descriptors follow them too.
    #[test]
    fn streams_on_their_own_descriptors_do_not_disturb_each_other() {
        // As far as 60 one-block reads reach.
        let reference: [(&str, Trace); 3] = [
            (
                "linux24",
                vec![
                    (0, 1, 3),
                    (1, 4, 10),
                    (4, 11, 23),
                    (11, 24, 48),
                    (24, 49, 81),
                    (49, 82, 114),
                ],
            ),
            (
                "linux26",
                vec![
                    (0, 0, 7),
                    (1, 8, 23),
                    (8, 24, 55),
                    (24, 56, 87),
                    (56, 88, 119),
                ],
            ),
            (
                "ondemand",
                vec![
                    (0, 0, 3),
                    (1, 4, 11),
                    (4, 12, 27),
                    (12, 28, 59),
                    (28, 60, 91),
                ],
            ),
        ];
        for (name, make) in engines() {
            let alone = of(
                &one_block_reads(&mut *make(), &sequential(A, 1, 0, 60), FILE_BLOCKS),
                A,
            );
            match reference.iter().find(|r| r.0 == name) {
                Some((_, trace)) => assert_eq!(&alone, trace, "{name}"),
                None => assert!(alone.len() >= 4, "{name} reads ahead: {alone:?}"),
            }
            // Another file read in turns: both streams see the model's trace.
            let log = one_block_reads(
                &mut *make(),
                &interleaved((A, 1), (B, 2, 0), 60),
                FILE_BLOCKS,
            );
            assert_eq!(
                (of(&log, A), of(&log, B)),
                (alone.clone(), alone.clone()),
                "{name}"
            );
            // The same file opened twice, the second reader further on: each stream decides as
            // it would alone (the kernel keeps read-ahead state per open file).
            let far = of(
                &one_block_reads(&mut *make(), &sequential(B, 1, 5000, 60), FILE_BLOCKS),
                B,
            );
            let log = one_block_reads(
                &mut *make(),
                &interleaved((A, 1), (B, 1, 5000), 60),
                FILE_BLOCKS,
            );
            assert_eq!((of(&log, A), of(&log, B)), (alone, far), "{name}");
        }
    }

    #[test]
    fn two_streams_through_one_descriptor() {
        // Blocks 0, 1000, 1, 1001, 2, ... through one open file.
        let reads = interleaved((A, 1), (A, 1, 1000), 60);
        let decisions = |make: Make| {
            let log = one_block_reads(&mut *make(), &reads, FILE_BLOCKS);
            log.iter()
                .map(|&(_, i, a, b, m)| (i, a, b, m))
                .collect::<Vec<_>>()
        };
        // Linux 2.4: every read falls outside the window and resets it, so each miss reads the
        // two blocks its `needed` asks for, and the hits after it read nothing.
        let log = decisions(engines()[0].1);
        assert_eq!(log[0], (0, 1, 3, None));
        assert!(
            log[1..]
                .iter()
                .all(|&(i, a, b, _)| (a, b) == (i + 1, i + 2)),
            "{log:?}"
        );
        // Misses: the stream at 0 at blocks 4, 7, ..., 58 after its first window; the other at
        // 1000, 1003, ..., 1057.
        assert_eq!(log.len(), 1 + 19 + 20);
        // Linux 2.6.11: the jumps look random, which turns read-ahead off: each read reads only
        // its own block.
        let log = decisions(engines()[1].1);
        assert_eq!(log[0], (0, 0, 7, None));
        assert!(log[1..].iter().all(|&(i, a, b, _)| (a, b) == (i, i)));
        // On-demand: the first jump reads only its block; the next has one cached block before
        // it, not more than it asks for, so again only its block; then the context read-ahead
        // (two cached blocks behind 1002) opens a window of three flagged at its end, and block
        // 4's flag, belonging to the stream at 0 while the state follows the other, starts a
        // window at the first uncached block after 4. Both streams then ramp up to full
        // 32-block windows.
        let log = decisions(engines()[2].1);
        assert_eq!(
            log[..6],
            [
                (0, 0, 3, Some(1)),
                (1000, 1000, 1000, None),
                (1, 4, 11, Some(4)),
                (1001, 1001, 1001, None),
                (1002, 1002, 1004, Some(1004)),
                (4, 12, 29, Some(12)),
            ]
        );
        for stream in [0..1000, 1000..2000] {
            let last = log.iter().rev().find(|d| stream.contains(&d.0)).unwrap();
            assert_eq!(last.2 - last.1 + 1, 32, "{last:?}");
        }
    }
}
