//! Modern Linux on-demand read-ahead (`ondemand_readahead`, 2.6.23 onwards, as of about v6.8).
//!
//! Read-ahead runs only on a miss (synchronous) or on a hit to a block flagged PG_readahead
//! (asynchronous). A window `[start, start + size)` is submitted with the flag on block
//! `start + size - async_size`, so the reader triggers the next window while the current one is
//! still ahead of it. A sequential miss or a read at block 0 starts an initial window; an expected
//! marker hit ramps the window up (4x while small, then 2x, capped at `read_ahead_kb`); a marker hit
//! that belongs to another stream searches for the first uncached block; a random miss with
//! enough cached history before it reads ahead from the history; any other random miss reads just
//! what was asked.

use super::{Desc, Lookup, Plan, ReadAhead, ReadCall};
use rustc_hash::FxHashMap;

/// The first window for a request of `req` blocks with windows of at most `max` blocks
/// (`get_init_ra_size`): the request rounded up to a power of two, times 4 while small, times 2
/// while under a quarter of `max`, else `max`.
pub(super) fn init_size(max: u64, req: u64) -> u64 {
    let r = req.max(1).next_power_of_two();
    if r <= max / 32 {
        4 * r
    } else if r <= max / 4 {
        2 * r
    } else {
        max
    }
}

/// The window after one of `cur` blocks (`get_next_ra_size`): 4x while under a sixteenth of
/// `max`, 2x up to half of it, then `max`.
pub(super) fn next_size(max: u64, cur: u64) -> u64 {
    if cur < max / 16 {
        4 * cur
    } else if cur <= max / 2 {
        2 * cur
    } else {
        max
    }
}

/// Whether a miss at block `index` is sequential after block `prev`. The kernel's test is
/// unsigned (`index - prev_index <= 1`): only the same block or the next one is sequential; a
/// backward jump wraps around and is not.
pub(super) fn follows(index: u64, prev: u64) -> bool {
    index.wrapping_sub(prev) <= 1
}

/// The window a random miss of `req` blocks at `index` opens from the cached history right
/// before it (`try_context_readahead`), or `None` when that history is no longer than the
/// request. History reaching back to the file's first block counts twice (a whole-file read).
pub(super) fn history_size(
    max: u64,
    index: u64,
    req: u64,
    cached: &dyn Fn(u64) -> bool,
) -> Option<u64> {
    let history = (1..=index.min(max))
        .take_while(|&k| cached(index - k))
        .count() as u64;
    if history <= req {
        return None;
    }
    let count = if history == index {
        2 * history
    } else {
        history
    };
    Some((count + req).min(max))
}

#[derive(Clone, Copy, Debug, Default)]
struct Window {
    start: u64,
    size: u64,
    async_size: u64,
    prev_index: Option<u64>,
    last_index: u64,
}

/// On-demand read-ahead state for every open file.
pub struct Ondemand {
    max: u64,
    block_size: u64,
    files: FxHashMap<Desc, Window>,
}

impl Ondemand {
    /// `max` blocks per window (`read_ahead_kb` / block size; 128 KB gives 32 pages).
    pub fn new(max: u64, block_size: u64) -> Self {
        Ondemand {
            max,
            block_size,
            files: FxHashMap::default(),
        }
    }

    fn submit(&self, w: &mut Window, index: u64) -> Plan {
        if index == w.start && w.size == w.async_size {
            let add = next_size(self.max, w.size);
            if w.size + add <= self.max {
                w.async_size = add;
                w.size += add;
            } else {
                w.size = self.max;
                w.async_size = self.max / 2;
            }
        }
        Plan {
            range: w.start..w.start + w.size,
            marker: Some(w.start + w.size - w.async_size),
            window_end: None,
        }
    }
}

impl ReadAhead for Ondemand {
    fn name(&self) -> &'static str {
        "ondemand"
    }

    fn reset(&mut self, d: Desc) {
        self.files.insert(d, Window::default());
    }

    fn forget(&mut self, d: Desc) {
        self.files.remove(&d);
    }

    fn begin_read(&mut self, d: Desc, call: &ReadCall) {
        let bs = self.block_size;
        self.files.entry(d).or_default().last_index = (call.offset + call.len.max(1) - 1) / bs;
    }

    fn after_lookup(
        &mut self,
        d: Desc,
        index: u64,
        lookup: Lookup,
        cached: &dyn Fn(u64) -> bool,
    ) -> Plan {
        let mut w = self.files.get(&d).copied().unwrap_or_default();
        let marker = lookup == Lookup::HitMarked;
        let plan = if lookup != Lookup::Miss && !marker {
            Plan::nothing()
        } else {
            let req = w.last_index.saturating_sub(index) + 1;
            let initial = |w: &mut Window| {
                w.start = index;
                w.size = init_size(self.max, req);
                w.async_size = if w.size > req { w.size - req } else { w.size };
            };
            if index == 0 {
                initial(&mut w);
                self.submit(&mut w, index)
            } else if index == w.start + w.size - w.async_size || index == w.start + w.size {
                w.start += w.size;
                w.size = next_size(self.max, w.size);
                w.async_size = w.size;
                self.submit(&mut w, index)
            } else if marker {
                match (index + 1..=index + self.max).find(|&j| !cached(j)) {
                    None => Plan::nothing(),
                    Some(s) => {
                        w.start = s;
                        w.size = next_size(self.max, s - index + req);
                        w.async_size = w.size;
                        self.submit(&mut w, index)
                    }
                }
            } else if req > self.max || w.prev_index.is_some_and(|p| follows(index, p)) {
                initial(&mut w);
                self.submit(&mut w, index)
            } else if let Some(size) = history_size(self.max, index, req, cached) {
                w.start = index;
                w.size = size;
                w.async_size = 1;
                self.submit(&mut w, index)
            } else {
                Plan::read(index..index + req)
            }
        };
        w.prev_index = Some(index);
        self.files.insert(d, w);
        plan
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One-block sequential reads, I/O instant: the reference model's trace (ra26_models.py),
    /// windows and the blocks flagged PG_readahead.
    #[test]
    fn sequential_reads_follow_the_reference_model() {
        use crate::prefetch::drive::one_block_reads;
        let d = (1, 3);
        let reads: Vec<_> = (0..80).map(|k| (d, 1, k)).collect();
        let log: Vec<_> = one_block_reads(&mut Ondemand::new(32, 4096), &reads, 300)
            .into_iter()
            .map(|(_, i, a, b, m)| (i, a, b, m.unwrap()))
            .collect();
        assert_eq!(
            log,
            vec![
                (0, 0, 3, 1),
                (1, 4, 11, 4),
                (4, 12, 27, 12),
                (12, 28, 59, 28),
                (28, 60, 91, 60),
                (60, 92, 123, 92)
            ]
        );
    }

    /// Reads one block at `index` and returns what the engine read ahead.
    fn one(ra: &mut Ondemand, index: u64) -> Plan {
        let d = (1, 3);
        ra.begin_read(
            d,
            &ReadCall {
                offset: index * 4096,
                len: 4096,
                file_size: 1 << 30,
            },
        );
        ra.after_lookup(d, index, Lookup::Miss, &|_| false)
    }

    /// Backward jumps are not sequential (issue #18): blocks 500 -> 100 -> 1000 read one block
    /// each; before the fix the jump back to 100 opened a four-block window.
    #[test]
    fn a_backward_jump_does_not_start_a_window() {
        let mut ra = Ondemand::new(32, 4096);
        ra.reset((1, 3));
        let got: Vec<_> = [500, 100, 1000].map(|i| one(&mut ra, i).range).into();
        assert_eq!(got, vec![500..501, 100..101, 1000..1001]);
        // The same block again, or the next one, still is.
        assert_eq!(one(&mut ra, 1000).range, 1000..1004);
    }

    #[test]
    fn random_misses_read_only_what_is_asked() {
        let d = (1, 3);
        let mut ra = Ondemand::new(32, 4096);
        ra.reset(d);
        ra.begin_read(
            d,
            &ReadCall {
                offset: 100 * 4096,
                len: 4096,
                file_size: 1 << 30,
            },
        );
        assert_eq!(
            ra.after_lookup(d, 100, Lookup::Miss, &|_| false),
            Plan::read(100..101)
        );
        ra.begin_read(
            d,
            &ReadCall {
                offset: 500 * 4096,
                len: 4096,
                file_size: 1 << 30,
            },
        );
        assert_eq!(
            ra.after_lookup(d, 500, Lookup::Miss, &|_| false),
            Plan::read(500..501)
        );
        // A sequential miss right after starts a window.
        ra.begin_read(
            d,
            &ReadCall {
                offset: 501 * 4096,
                len: 4096,
                file_size: 1 << 30,
            },
        );
        assert_eq!(
            ra.after_lookup(d, 501, Lookup::Miss, &|_| false).range,
            501..505
        );
    }
}
