//! 4.4BSD clustered read-ahead (`cluster_read`, vfs_cluster.c 8.10, 4.4BSD-Lite2).
//!
//! Per open file: the last block read (`lastr`), the read-ahead length (`ralen`) and the last
//! block covered by read-ahead (`maxra`). A read of block `b` is sequential when `b` is not block 0
//! and is `lastr` or `lastr + 1`; a random read resets the length and reads nothing ahead. On a
//! sequential read the cluster starts at the demand block (on a miss) or `ralen` blocks after it (on
//! a hit, if that block is not cached); the length doubles from 1 up to the cluster maximum, and is
//! halved when a block it should find was already read ahead (`<= maxra`) but is gone: read-ahead
//! blocks were evicted before use. Only whole blocks are read ahead (the last fragment of a file is
//! not), and files are taken as laid out contiguously, so clusters are limited only by the maximum
//! and the end of the file.

use super::{Desc, Lookup, Plan, ReadAhead, ReadCall};
use rustc_hash::FxHashMap;

#[derive(Clone, Copy, Debug, Default)]
struct Cluster {
    lastr: Option<u64>,
    ralen: u64,
    maxra: u64,
    whole_blocks: u64,
}

/// 4.4BSD read-ahead state for every open file.
pub struct Bsd {
    max_cluster: u64,
    block_size: u64,
    files: FxHashMap<Desc, Cluster>,
}

impl Bsd {
    /// Clusters of at most `max_cluster` blocks (the study: usually 32).
    pub fn new(max_cluster: u64, block_size: u64) -> Self {
        Bsd {
            max_cluster,
            block_size,
            files: FxHashMap::default(),
        }
    }
}

impl ReadAhead for Bsd {
    fn name(&self) -> &'static str {
        "bsd"
    }

    fn reset(&mut self, d: Desc) {
        self.files.insert(d, Cluster::default());
    }

    fn forget(&mut self, d: Desc) {
        self.files.remove(&d);
    }

    fn begin_read(&mut self, d: Desc, call: &ReadCall) {
        self.files.entry(d).or_default().whole_blocks = call.file_size / self.block_size;
    }

    fn after_lookup(
        &mut self,
        d: Desc,
        lblk: u64,
        lookup: Lookup,
        cached: &dyn Fn(u64) -> bool,
    ) -> Plan {
        let max = self.max_cluster;
        let c = self.files.entry(d).or_default();
        let hit = lookup != Lookup::Miss;
        let ioblk = if hit { lblk + c.ralen.max(1) } else { lblk };
        let in_core = hit && cached(ioblk);
        let sequential = lblk != 0 && c.lastr.is_some_and(|l| lblk == l || lblk == l + 1);
        let mut plan = Plan::nothing();
        if !sequential {
            c.ralen = 0;
            c.maxra = lblk;
        } else if ioblk < c.whole_blocks && !in_core {
            // Blocks after ioblk the cluster may cover: whole blocks only, at most max - 1.
            let mut num_ra = (c.whole_blocks - ioblk - 1).min(max - 1);
            if num_ra > 0 {
                if ioblk <= c.maxra && c.maxra > 0 {
                    c.ralen = (c.ralen / 2).max(1);
                } else if num_ra > c.ralen && Some(lblk) != c.lastr {
                    c.ralen = if c.ralen == 0 {
                        1
                    } else {
                        (2 * c.ralen).min(num_ra)
                    };
                }
                num_ra = num_ra.min(c.ralen);
            }
            plan = Plan::read(ioblk..ioblk + 1 + num_ra);
            c.maxra = ioblk + num_ra;
        }
        c.lastr = Some(lblk);
        plan
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sequential one-block reads from block `from`, every read-ahead block kept: returns the
    /// blocks each read-ahead added (the first one, on a miss, also reads the demand block).
    fn sequential(
        ra: &mut Bsd,
        d: Desc,
        blocks: std::ops::Range<u64>,
        cached: &mut std::collections::BTreeSet<u64>,
    ) -> Vec<usize> {
        let mut added = Vec::new();
        for b in blocks {
            ra.begin_read(
                d,
                &ReadCall {
                    offset: b * 4096,
                    len: 4096,
                    file_size: 1000 * 4096,
                },
            );
            let lookup = if cached.contains(&b) {
                Lookup::Hit
            } else {
                Lookup::Miss
            };
            cached.insert(b);
            let snapshot = cached.clone();
            let plan = ra.after_lookup(d, b, lookup, &|j| snapshot.contains(&j));
            let fresh = plan.range.clone().filter(|j| !cached.contains(j)).count();
            if fresh > 0 {
                added.push(fresh);
            }
            cached.extend(plan.range);
        }
        added
    }

    /// The read-ahead length doubles 1, 2, 4 … so clusters (1 + length blocks) are 2, 3, 5, 9,
    /// 17, then the 32-block maximum.
    #[test]
    fn sequential_reads_double_the_cluster() {
        let d = (1, 3);
        let mut ra = Bsd::new(32, 4096);
        ra.reset(d);
        let added = sequential(&mut ra, d, 0..200, &mut Default::default());
        assert_eq!(&added[..7], &[1, 3, 5, 9, 17, 32, 32]);
    }

    #[test]
    fn random_reads_read_nothing_ahead_and_evictions_halve_the_length() {
        let d = (1, 3);
        let mut ra = Bsd::new(32, 4096);
        ra.reset(d);
        for b in [40u64, 7, 900] {
            ra.begin_read(
                d,
                &ReadCall {
                    offset: b * 4096,
                    len: 4096,
                    file_size: 1000 * 4096,
                },
            );
            assert!(ra.after_lookup(d, b, Lookup::Miss, &|_| false).range.end <= b + 1);
        }
        // Grow the length to 16, then lose every block read ahead: the next miss is inside the
        // read-ahead range, so the length halves to 8 and the cluster is 1 + 8 blocks.
        ra.reset(d);
        let mut cached = Default::default();
        let mut b = 0;
        while ra.files.get(&d).map_or(0, |c| c.ralen) < 16 {
            sequential(&mut ra, d, b..b + 1, &mut cached);
            b += 1;
            assert!(b < 100, "the length never reached 16");
        }
        assert!(ra.files[&d].maxra > b);
        let call = ReadCall {
            offset: b * 4096,
            len: 4096,
            file_size: 1000 * 4096,
        };
        ra.begin_read(d, &call);
        let plan = ra.after_lookup(d, b, Lookup::Miss, &|_| false);
        assert_eq!((plan.range.start, plan.range.end), (b, b + 1 + 8));
    }
}
