//! Linux 2.6.11 read-ahead (`page_cache_readahead`): a current window and an ahead window.
//!
//! Called once per chunk of a read() call (at its first block and wherever the previous call
//! left off), with the number of blocks the call still wants. The first sequential access reads an
//! initial window; a random access turns read-ahead off and reads just what was asked; sequential
//! accesses keep an ahead window in flight and, when the reader enters it, make it current and
//! submit the next one (4x while small, then 2x, up to the maximum). A window that finds every
//! block already cached counts towards 256 such blocks, after which read-ahead stays off until a
//! miss; a miss inside the windows (a read-ahead block was evicted) shrinks the next window by 2.

use super::{Desc, Lookup, Plan, ReadAhead, ReadCall};
use rustc_hash::FxHashMap;

/// Blocks found already cached before read-ahead switches itself off (VM_MAX_CACHE_HIT).
const MAX_CACHE_HIT: u64 = 256;

#[derive(Clone, Copy, Debug, Default)]
struct Windows {
    start: u64,
    /// Current window size; `None` means read-ahead is off after a random access.
    size: Option<u64>,
    ahead_start: u64,
    ahead_size: u64,
    prev_page: Option<u64>,
    miss: bool,
    in_cache: bool,
    cache_hit: u64,
    next_index: u64,
    last_index: u64,
}

/// Linux 2.6.11 read-ahead state for every open file.
pub struct Linux26 {
    max: u64,
    min: u64,
    block_size: u64,
    files: FxHashMap<Desc, Windows>,
}

impl Linux26 {
    /// `max` blocks per window (32 for 128 KB of 4 KB pages), `min` the smallest (4).
    pub fn new(min: u64, max: u64, block_size: u64) -> Self {
        Linux26 {
            max,
            min,
            block_size,
            files: FxHashMap::default(),
        }
    }

    fn init(&self, n: u64) -> u64 {
        let r = n.next_power_of_two();
        if r <= self.max / 64 {
            r * r
        } else if r <= self.max / 4 {
            self.max / 4
        } else {
            self.max
        }
    }
}

fn next_size(w: &mut Windows, cur: u64, min: u64, max: u64) -> u64 {
    let n = if w.miss {
        w.miss = false;
        cur.saturating_sub(2).max(min)
    } else if cur < max / 16 {
        4 * cur
    } else {
        2 * cur
    };
    n.min(max)
}

/// Counts a submitted window: all-cached windows add up towards switching read-ahead off.
fn check_success(w: &mut Windows, range: &std::ops::Range<u64>, cached: &dyn Fn(u64) -> bool) {
    if range.clone().all(cached) {
        w.cache_hit += range.end - range.start;
        if w.cache_hit >= MAX_CACHE_HIT {
            w.in_cache = true;
            w.size = None;
            w.start = 0;
            w.ahead_start = 0;
            w.ahead_size = 0;
        }
    } else {
        w.cache_hit = 0;
    }
}

impl ReadAhead for Linux26 {
    fn name(&self) -> &'static str {
        "linux26"
    }

    fn reset(&mut self, d: Desc) {
        self.files.insert(
            d,
            Windows {
                size: Some(0),
                ..Windows::default()
            },
        );
    }

    fn forget(&mut self, d: Desc) {
        self.files.remove(&d);
    }

    fn begin_read(&mut self, d: Desc, call: &ReadCall) {
        let bs = self.block_size;
        let w = self.files.entry(d).or_insert(Windows {
            size: Some(0),
            ..Windows::default()
        });
        w.next_index = call.offset / bs;
        w.last_index = (call.offset + call.len.max(1) - 1) / bs;
    }

    fn after_lookup(
        &mut self,
        d: Desc,
        index: u64,
        lookup: Lookup,
        cached: &dyn Fn(u64) -> bool,
    ) -> Plan {
        let (min, max) = (self.min, self.max);
        let initial = {
            let w = self.files.entry(d).or_insert(Windows {
                size: Some(0),
                ..Windows::default()
            });
            let windows_end = if w.ahead_start > 0 {
                w.ahead_start + w.ahead_size
            } else {
                w.start + w.size.unwrap_or(0)
            };
            if lookup == Lookup::Miss
                && w.size.unwrap_or(0) > 0
                && (w.start..windows_end).contains(&index)
            {
                // handle_ra_miss: a block the windows had read is gone (evicted before use).
                w.miss = true;
                w.in_cache = false;
                w.cache_hit = 0;
            }
            if index != w.next_index {
                return Plan::nothing();
            }
            let req = w.last_index - index + 1;
            let newsize = req.min(max);
            w.next_index = index + newsize;
            if w.prev_page == Some(index) && req == 1 && w.size != Some(0) {
                return Plan::nothing();
            }
            if w.in_cache {
                w.prev_page = Some(index);
                return Plan::nothing();
            }
            let first = (w.size == Some(0) && index == 0)
                || (w.size.is_none() && w.prev_page.map(|p| p + 1) == Some(index));
            if !first && (w.prev_page.map(|p| p + 1) != Some(index) || w.size == Some(0)) {
                // Random: read-ahead off, read what was asked.
                w.start = 0;
                w.size = None;
                w.ahead_start = 0;
                w.ahead_size = 0;
                w.prev_page = Some(index + newsize - 1);
                return Plan::read(index..index + newsize);
            }
            first.then_some(newsize)
        };
        if let Some(newsize) = initial {
            let size = self.init(newsize);
            let w = self.files.get_mut(&d).expect("state created above");
            w.start = index;
            w.size = Some(size);
            let mut range = index..index + size;
            check_success(w, &range, cached);
            if newsize >= max {
                w.ahead_start = index + size;
                w.ahead_size = next_size(w, size, min, max);
                range.end = w.ahead_start + w.ahead_size;
            }
            w.prev_page = Some(index + newsize - 1);
            return Plan::read(range);
        }
        let w = self.files.get_mut(&d).expect("state created above");
        let size = w.size.unwrap_or(0);
        let newsize = (w.last_index - index + 1).min(max);
        let mut plan = Plan::nothing();
        if w.ahead_start == 0 {
            w.ahead_size = next_size(w, size, min, max);
            w.ahead_start = w.start + size;
            plan = Plan::read(w.ahead_start..w.ahead_start + w.ahead_size);
            check_success(w, &plan.range, cached);
        }
        if index + newsize > w.ahead_start && w.ahead_start != 0 {
            w.start = w.ahead_start;
            w.size = Some(w.ahead_size);
            w.ahead_start += w.ahead_size;
            w.ahead_size = next_size(w, w.ahead_size, min, max);
            let next = w.ahead_start..w.ahead_start + w.ahead_size;
            check_success(w, &next, cached);
            plan = Plan::read(if plan.range.is_empty() {
                next
            } else {
                plan.range.start..next.end
            });
        }
        w.prev_page = Some(index + newsize - 1);
        plan
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_reads_turn_read_ahead_off() {
        let d = (1, 3);
        let mut ra = Linux26::new(4, 32, 4096);
        ra.reset(d);
        ra.begin_read(
            d,
            &ReadCall {
                offset: 50 * 4096,
                len: 4096,
                file_size: 1 << 30,
            },
        );
        assert_eq!(
            ra.after_lookup(d, 50, Lookup::Miss, &|_| false).range,
            50..51
        );
        ra.begin_read(
            d,
            &ReadCall {
                offset: 10 * 4096,
                len: 8192,
                file_size: 1 << 30,
            },
        );
        assert_eq!(
            ra.after_lookup(d, 10, Lookup::Miss, &|_| false).range,
            10..12
        );
    }
}
