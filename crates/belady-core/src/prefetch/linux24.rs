//! Linux 2.4 read-ahead (`do_generic_file_read` + `generic_file_readahead`), the prefetcher of
//! the prefetching study (Butt, Gniady, Hu, SIGMETRICS 2005, section 2.1).
//!
//! Per open file: `raend` (just past the last block read ahead), `ralen` (the last read-ahead
//! group), `rawin` (the window: previous and current group), `ramax` (current maximum). Each
//! read() call resets the state when it starts outside the window, and sets `ramax` to what the
//! call needs (at least MIN when the access continues the window, at most MAX). Each demand block
//! then either takes the synchronous branch (it missed, or its I/O is still in flight: read `ramax`
//! blocks after it unless it lies in the current group) or, on a hit inside the last group, the
//! asynchronous branch (read `ramax + 1` blocks from `raend`). Every read-ahead doubles `ramax`.
//! Read-ahead also runs on hits. Blocks already cached count towards a group without I/O.
//!
//! Where the kernel stops at `i_size >> PAGE_SHIFT` (so the last partial block of a file is never
//! read ahead), the paper's description reads ahead to the end of the file; `skip_partial_last`
//! selects the kernel's (and AccuSim's) behaviour.

use super::{Desc, Lookup, Plan, ReadAhead, ReadCall};
use rustc_hash::FxHashMap;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Window {
    raend: u64,
    ralen: u64,
    rawin: u64,
    ramax: u64,
    reada_ok: bool,
    end_index: u64,
}

/// Linux 2.4 read-ahead state for every open file.
pub struct Linux24 {
    min: u64,
    max: u64,
    block_size: u64,
    skip_partial_last: bool,
    files: FxHashMap<Desc, Window>,
}

impl Linux24 {
    /// `min`/`max` in blocks (the study: 3 and 32).
    pub fn new(min: u64, max: u64, block_size: u64, skip_partial_last: bool) -> Self {
        Linux24 {
            min,
            max,
            block_size,
            skip_partial_last,
            files: FxHashMap::default(),
        }
    }

    /// The state of `d` as (raend, ralen, rawin, ramax), for tests.
    pub fn window(&self, d: Desc) -> (u64, u64, u64, u64) {
        let w = self.files.get(&d).copied().unwrap_or_default();
        (w.raend, w.ralen, w.rawin, w.ramax)
    }
}

impl ReadAhead for Linux24 {
    fn name(&self) -> &'static str {
        "linux24"
    }

    fn reset(&mut self, d: Desc) {
        self.files.insert(d, Window::default());
    }

    fn forget(&mut self, d: Desc) {
        self.files.remove(&d);
    }

    fn begin_read(&mut self, d: Desc, call: &ReadCall) {
        let bs = self.block_size;
        let w = self.files.entry(d).or_default();
        let index = call.offset / bs;
        let in_block = call.offset % bs;
        if index > w.raend || index + w.rawin < w.raend {
            *w = Window::default();
        } else {
            w.reada_ok = true;
        }
        if index == 0 && in_block + call.len <= bs / 2 {
            w.ramax = 0;
        } else {
            let needed = (in_block + call.len) / bs + 1;
            w.ramax = w.ramax.max(needed);
            if w.reada_ok && w.ramax < self.min {
                w.ramax = self.min;
            }
            w.ramax = w.ramax.min(self.max);
        }
        w.end_index = if self.skip_partial_last {
            call.file_size / bs
        } else {
            call.file_size.div_ceil(bs)
        };
    }

    fn after_lookup(
        &mut self,
        d: Desc,
        index: u64,
        lookup: Lookup,
        _cached: &dyn Fn(u64) -> bool,
    ) -> Plan {
        let w = self.files.entry(d).or_default();
        // Without a read-ahead, the window still covers the call up to the current raend.
        let idle = Plan {
            window_end: Some(w.raend),
            ..Plan::nothing()
        };
        let (base, max_ahead) = match lookup {
            Lookup::Miss | Lookup::InFlight => {
                if !(w.ralen == 0 || index >= w.raend || index + w.rawin < w.raend) {
                    return idle;
                }
                let max_ahead = if index < w.end_index { w.ramax } else { 0 };
                w.rawin = 0;
                w.ralen = 1;
                if max_ahead == 0 {
                    w.raend = index + w.ralen;
                    w.rawin += w.ralen;
                    return Plan {
                        window_end: Some(index),
                        ..Plan::nothing()
                    };
                }
                (index, max_ahead)
            }
            Lookup::Hit | Lookup::HitMarked => {
                let sequential = w.reada_ok
                    && w.ramax > 0
                    && w.raend >= 1
                    && index <= w.raend
                    && index + w.ralen >= w.raend;
                if !sequential {
                    return idle;
                }
                let base = w.raend - 1;
                if base >= w.end_index {
                    return Plan {
                        window_end: Some(base),
                        ..Plan::nothing()
                    };
                }
                w.rawin = w.ralen;
                w.ralen = 0;
                (base, w.ramax + 1)
            }
        };
        // The kernel counts the block that hits end of file as read ahead too.
        let mut ahead = 0;
        let mut read = 0;
        while ahead < max_ahead {
            ahead += 1;
            if base + ahead >= w.end_index {
                break;
            }
            read = ahead;
        }
        w.ralen += ahead;
        w.rawin += w.ralen;
        w.raend = base + ahead + 1;
        w.ramax = (2 * w.ramax).min(self.max);
        Plan {
            window_end: Some(base),
            ..Plan::read(base + 1..base + 1 + read)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const D: Desc = (1, 3);

    /// Sequential 4 KB reads from block 0, every I/O complete before the next read, with Linux
    /// 2.4.32's own maximum of 31 pages: the reference notes' printed trace (steady-state groups
    /// of MAX + 1 = 32 pages). The study's MAX of 32 is checked with the other engines in
    /// `prefetch::tests`.
    #[test]
    fn sequential_reads_follow_the_printed_trace_at_max_31() {
        use crate::prefetch::drive::{of, one_block_reads};
        let reads: Vec<_> = (0..60).map(|k| (D, 1, k)).collect();
        let log = one_block_reads(&mut Linux24::new(3, 31, 4096, true), &reads, 1 << 20);
        assert_eq!(
            of(&log, D),
            vec![
                (0, 1, 3),
                (1, 4, 10),
                (4, 11, 23),
                (11, 24, 48),
                (24, 49, 80),
                (49, 81, 112)
            ]
        );
    }

    #[test]
    fn random_read_reads_two_ahead_and_eof_stops_at_whole_blocks() {
        let mut ra = Linux24::new(3, 32, 4096, true);
        ra.reset(D);
        ra.begin_read(
            D,
            &ReadCall {
                offset: 100 * 4096,
                len: 4096,
                file_size: 200 * 4096,
            },
        );
        assert_eq!(
            ra.after_lookup(D, 100, Lookup::Miss, &|_| false).range,
            101..103
        );
        assert_eq!(ra.window(D), (103, 3, 3, 4));
        // A 10-block file read in 8 KB pieces: the async group stops at block 9.
        ra.reset(D);
        ra.begin_read(
            D,
            &ReadCall {
                offset: 0,
                len: 8192,
                file_size: 40960,
            },
        );
        assert_eq!(ra.after_lookup(D, 0, Lookup::Miss, &|_| false).range, 1..4);
        assert_eq!(
            ra.after_lookup(D, 1, Lookup::InFlight, &|_| false).range,
            0..0
        );
        ra.begin_read(
            D,
            &ReadCall {
                offset: 8192,
                len: 8192,
                file_size: 40960,
            },
        );
        assert_eq!(ra.after_lookup(D, 2, Lookup::Hit, &|_| false).range, 4..10);
        // The partial last block: 7965 bytes hold blocks 0 and 1, block 1 partial.
        ra.reset(D);
        ra.begin_read(
            D,
            &ReadCall {
                offset: 0,
                len: 7965,
                file_size: 7965,
            },
        );
        assert!(ra
            .after_lookup(D, 0, Lookup::Miss, &|_| false)
            .range
            .is_empty());
        let mut paper = Linux24::new(3, 32, 4096, false);
        paper.reset(D);
        paper.begin_read(
            D,
            &ReadCall {
                offset: 0,
                len: 7965,
                file_size: 7965,
            },
        );
        assert_eq!(
            paper.after_lookup(D, 0, Lookup::Miss, &|_| false).range,
            1..2
        );
    }

    #[test]
    fn window_end_is_the_local_raend_of_each_branch() {
        let mut ra = Linux24::new(3, 32, 4096, true);
        ra.reset(D);
        let call = |offset_blocks: u64| ReadCall {
            offset: offset_blocks * 4096,
            len: 8192,
            file_size: 1 << 20,
        };
        // Synchronous branch on a miss: the window ends at the missed block.
        ra.begin_read(D, &call(0));
        let p = ra.after_lookup(D, 0, Lookup::Miss, &|_| false);
        assert_eq!((p.range, p.window_end), (1..4, Some(0)));
        // No branch (block 1 in flight inside the group): the window ends at raend.
        let p = ra.after_lookup(D, 1, Lookup::InFlight, &|_| false);
        assert_eq!((p.range, p.window_end), (0..0, Some(4)));
        // Asynchronous branch: the window ends one before the old raend, where reading starts.
        ra.begin_read(D, &call(2));
        let p = ra.after_lookup(D, 2, Lookup::Hit, &|_| false);
        assert_eq!((p.range, p.window_end), (4..11, Some(3)));
    }
}
