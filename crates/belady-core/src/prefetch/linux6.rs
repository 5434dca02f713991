//! Linux 6.x page-cache read-ahead with large folios (`page_cache_sync_ra`,
//! `page_cache_async_ra`, `page_cache_ra_order`, as of 6.18).
//!
//! The window arithmetic is the on-demand one ([`super::ondemand`]), with what large folios
//! changed around it:
//!
//! - A miss is sequential when it is at block 0, asks for more than the window may hold, or lies
//!   at most one block past where the previous read() call *ended* (`prev_pos`, a byte offset, so
//!   a call that ends inside a block leaves that block "next"); the comparison is unsigned, so a
//!   backward jump is never sequential. A sequential miss opens the initial window; otherwise
//!   enough cached history right before the miss opens a window from it, and a lone random miss
//!   reads just the request.
//! - Every asynchronous step raises the window's folio order by two and cuts the window's end
//!   down to a multiple of `2^order` (capped by the lowest set bit of the largest window), so
//!   windows end on growing folio boundaries: with `read_ahead_kb` 8192 a 4 KiB reader sees
//!   windows of 4, 16, 60, 240, 448 and 256 blocks ending at 4, 20, 80, 320, 768 and 1024.
//! - Folios are naturally aligned: a window is cut into the largest aligned pieces of at most
//!   the window's order (largest order 9, 2 MiB of 4 KiB pages), and PG_readahead lands on the
//!   whole folio holding block `start + size - async_size`; touching any block of that folio
//!   triggers the next window, and the marked folio's size decides which trigger is "expected".
//! - A synchronous window resets the order to 0.
//! - A marker hit that does not match the state (interleaved streams on one descriptor) starts
//!   the window where the kernel's hole scan (`page_cache_next_miss` from the block after the
//!   marked folio's first) stops, walked as the xarray walks it (`next_miss`): from inside a
//!   folio of 2 to 32 blocks the walk reads each slot one behind the index it reports, so a hole
//!   in the folio's 64-slot node is reported one block late; past that node's end, and from a
//!   one-block or a 64-block-or-larger folio, it stops exactly at the hole.
//!
//! Left out: `bdi->io_pages` (a read larger than the window is capped at the window, not at the
//! device's largest request), memory-pressure fallbacks (a large folio that cannot be allocated),
//! `FMODE_RANDOM`, mmap faults (`mmap_miss`), and the PG_readahead flag being a property of the
//! page shared by every descriptor (a flag one descriptor consumed through a non-first block of
//! its folio can still fire again for another descriptor reading that folio's first block; a
//! folio another descriptor marked is taken as one block long, so its hole scan is exact).
//! Shadow entries are not modelled: the hole scan treats an evicted block like one never read,
//! as the kernel does (`xa_is_value`).

use super::ondemand::{follows, history_size, init_size, next_size};
use super::{Desc, Lookup, Plan, ReadAhead, ReadCall};
use rustc_hash::FxHashMap;

/// Largest folio order the page cache uses for a file (x86-64: a 2 MiB PMD of 4 KiB pages).
pub const MAX_FOLIO_ORDER: u32 = 9;

/// Marked folios remembered per descriptor; older ones are forgotten (their window is long gone).
const FLAGS_KEPT: usize = 8;

/// A folio this descriptor's read-ahead flagged PG_readahead.
#[derive(Clone, Copy, Debug)]
struct Flag {
    start: u64,
    len: u64,
    /// The flag was consumed by a read of one of the folio's later blocks (the engine only knows
    /// the first block as marked).
    consumed: bool,
}

/// `struct file_ra_state` plus what the read path keeps.
#[derive(Clone, Debug)]
struct State {
    start: u64,
    size: u64,
    async_size: u64,
    order: u32,
    /// Byte offset where the previous read() call ended; `u64::MAX` before any (the kernel's -1).
    prev_pos: u64,
    /// Where the current call ends, becomes `prev_pos` when the next call begins.
    call_end: u64,
    /// First block past the current call (`last_index`).
    last_index: u64,
    /// File length in blocks.
    eof: u64,
    flags: Vec<Flag>,
}

impl Default for State {
    fn default() -> Self {
        State {
            start: 0,
            size: 0,
            async_size: 0,
            order: 0,
            prev_pos: u64::MAX,
            call_end: u64::MAX,
            last_index: 0,
            eof: u64::MAX,
            flags: Vec::new(),
        }
    }
}

/// Linux 6.x read-ahead state for every open file.
pub struct Linux6 {
    max: u64,
    block_size: u64,
    files: FxHashMap<Desc, State>,
}

impl Linux6 {
    /// `max` blocks per window (`read_ahead_kb` / block size).
    pub fn new(max: u64, block_size: u64) -> Self {
        Linux6 {
            max: max.max(1),
            block_size: block_size.max(1),
            files: FxHashMap::default(),
        }
    }

    /// `page_cache_ra_order`: the window `[start, start + size)` is read (the engine skips cached
    /// blocks); returns the plan and remembers the folio holding the marker block.
    fn submit(&self, s: &mut State, cached: &dyn Fn(u64) -> bool) -> Plan {
        let end = (s.start + s.size).min(s.eof);
        if end <= s.start {
            return Plan::nothing();
        }
        let limit = end - 1;
        let order = s
            .order
            .min(MAX_FOLIO_ORDER)
            .min(63 - s.size.max(1).leading_zeros());
        s.order = order;
        let mark = s.start + s.size - s.async_size;
        // Walk the folios as the kernel cuts them; a folio overlapping a cached block cannot be
        // added, and from there on the rest is read in single blocks.
        let mut index = s.start;
        let mut flag = None;
        let mut single = false;
        while index <= limit {
            let mut o = if single { 0 } else { order };
            if index & ((1 << o) - 1) != 0 {
                o = index.trailing_zeros();
            }
            while o > 0 && index + (1 << o) - 1 > limit {
                o -= 1;
            }
            let len = 1u64 << o;
            if !single && (index..index + len).any(cached) {
                single = true;
                continue;
            }
            if single && cached(index) {
                index += 1;
                continue;
            }
            if (mark & !(len - 1)) == index {
                flag = Some(Flag {
                    start: index,
                    len,
                    consumed: false,
                });
            }
            index += len;
        }
        if let Some(f) = flag {
            if s.flags.len() == FLAGS_KEPT {
                s.flags.remove(0);
            }
            s.flags.retain(|g| g.start != f.start);
            s.flags.push(f);
        }
        Plan {
            range: s.start..end,
            marker: flag.map(|f| f.start),
            window_end: None,
        }
    }

    /// `page_cache_sync_ra` for a miss at `index`.
    fn sync_ra(&self, s: &mut State, index: u64, cached: &dyn Fn(u64) -> bool) -> Plan {
        let req = s.last_index.saturating_sub(index).max(1);
        // Before any call `prev_pos` is -1, whose block is far from any real one.
        let prev_index = s.prev_pos / self.block_size;
        if index == 0 || req > self.max || follows(index, prev_index) {
            s.start = index;
            s.size = init_size(self.max, req);
            s.async_size = if s.size > req {
                s.size - req
            } else {
                s.size / 2
            };
        } else {
            // Cached history right before the miss, as a sequential stream leaves it.
            let Some(size) = history_size(self.max, index, req, cached) else {
                return Plan::read(index..index + req);
            };
            s.start = index;
            s.size = size;
            s.async_size = 1;
        }
        s.order = 0;
        self.submit(s, cached)
    }

    /// `page_cache_async_ra` for a marked folio `[folio, folio + len)`.
    fn async_ra(&self, s: &mut State, folio: u64, len: u64, cached: &dyn Fn(u64) -> bool) -> Plan {
        let req = s.last_index.saturating_sub(folio).max(1);
        let expected = (s.start + s.size - s.async_size) & !(len.max(1) - 1);
        if s.size > 0 && folio == expected {
            s.start += s.size;
            s.size = s.size.max(next_size(self.max, s.size));
        } else {
            // A marked folio without matching state (another stream): the window it belonged
            // to ends at the first uncached block after it, as the kernel's scan finds it.
            let start = next_miss(folio, len, self.max, cached);
            if start - folio > self.max {
                return Plan::nothing();
            }
            s.start = start;
            s.size = next_size(self.max, start - folio + req);
        }
        s.order += 2;
        let align = 1u64 << s.order.min(self.max.trailing_zeros());
        let end = s.start + s.size;
        let aligned_end = end & !(align - 1);
        if aligned_end > s.start {
            s.size -= end - aligned_end;
        }
        s.async_size = s.size;
        self.submit(s, cached)
    }
}

/// Slots in one xarray node (`XA_CHUNK_SIZE`).
const XA_CHUNK: u64 = 64;

/// `page_cache_next_miss(mapping, folio + 1, max)` as the kernel's xarray walk answers it for a
/// marked folio `[folio, folio + len)`: the index of the first step that finds an empty slot, or
/// `folio + 1 + max` when none of the `max` steps does.
///
/// The walk (`xas_next`) first loads the entry at `folio + 1`. When that index lies inside a
/// folio of 2 to 32 pages, the load lands on a sibling slot of a leaf node and moves the slot
/// back to the folio's first one, so every later step reads the slot one behind the index it
/// reports: a hole at `h` is reported as `h + 1`. The lag lasts to the end of that 64-slot node:
/// stepping past its last slot re-aligns slot and index one index later, so the first index of
/// the next node is never looked at, and the walk is exact from there. A one-page folio starts
/// the walk on its own slot, and a folio of 64 pages or more lives in an upper node whose slots
/// cover 64 indices each, where the walk is exact from the start.
fn next_miss(folio: u64, len: u64, max: u64, cached: &dyn Fn(u64) -> bool) -> u64 {
    let first = folio + 1;
    let lag_end = if len > 1 && len < XA_CHUNK {
        // The first index of the next node: up to it, step `i` reads slot `i - 1`.
        (folio | (XA_CHUNK - 1)) + 1
    } else {
        folio
    };
    (first..first + max)
        .find(|&i| {
            let slot = if i <= lag_end { i - 1 } else { i };
            !cached(slot)
        })
        .unwrap_or(first + max)
}

impl ReadAhead for Linux6 {
    fn name(&self) -> &'static str {
        "linux6"
    }

    fn reset(&mut self, d: Desc) {
        self.files.insert(d, State::default());
    }

    fn forget(&mut self, d: Desc) {
        self.files.remove(&d);
    }

    fn begin_read(&mut self, d: Desc, call: &ReadCall) {
        let bs = self.block_size;
        let s = self.files.entry(d).or_default();
        s.prev_pos = s.call_end;
        let end = call.offset.saturating_add(call.len.max(1));
        // The kernel copies up to the file's end and remembers where it stopped.
        s.call_end = if call.file_size > call.offset {
            end.min(call.file_size)
        } else {
            s.prev_pos
        };
        s.last_index = end.div_ceil(bs);
        s.eof = call.file_size.div_ceil(bs).max(s.last_index);
    }

    fn after_lookup(
        &mut self,
        d: Desc,
        index: u64,
        lookup: Lookup,
        cached: &dyn Fn(u64) -> bool,
    ) -> Plan {
        let mut s = self.files.remove(&d).unwrap_or_default();
        let plan = match lookup {
            Lookup::Miss => self.sync_ra(&mut s, index, cached),
            Lookup::HitMarked => {
                match s.flags.iter().position(|f| f.start == index) {
                    // Already fired through a later block of the folio.
                    Some(i) if s.flags[i].consumed => {
                        s.flags.remove(i);
                        Plan::nothing()
                    }
                    Some(i) => {
                        let f = s.flags.remove(i);
                        self.async_ra(&mut s, f.start, f.len, cached)
                    }
                    // Another descriptor's marker: its folio size is unknown here.
                    None => self.async_ra(&mut s, index, 1, cached),
                }
            }
            Lookup::Hit | Lookup::InFlight => {
                match s
                    .flags
                    .iter()
                    .position(|f| !f.consumed && f.start < index && index < f.start + f.len)
                {
                    Some(i) => {
                        s.flags[i].consumed = true;
                        let f = s.flags[i];
                        self.async_ra(&mut s, f.start, f.len, cached)
                    }
                    None => Plan::nothing(),
                }
            }
        };
        self.files.insert(d, s);
        plan
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prefetch::drive::one_block_reads;

    /// `read_ahead_kb` 8192 in 4 KiB blocks.
    const MAX: u64 = 2048;

    fn windows(reads: &[u64], file_blocks: u64) -> Vec<(u64, u64, u64)> {
        let d = (1, 3);
        let reads: Vec<_> = reads.iter().map(|&k| (d, 1, k)).collect();
        one_block_reads(&mut Linux6::new(MAX, 4096), &reads, file_blocks)
            .into_iter()
            .map(|(_, i, a, b, _)| (i, a, b + 1))
            .collect()
    }

    /// Measured on Linux 6.18 (ext4, read_ahead_kb 8192, 2026-11-25): a 4 KiB sequential
    /// reader's windows end at 4, 20, 80, 320, 768 and 1024 (mincore counts a page once its I/O
    /// is done, so read by read each window shows up one read after the block that triggers it:
    /// the window's first block, block 1 for the first window).
    #[test]
    fn sequential_windows_end_on_growing_folio_boundaries() {
        let reads: Vec<u64> = (0..600).collect();
        assert_eq!(
            windows(&reads, 16384),
            vec![
                (0, 0, 4),
                (1, 4, 20),
                (4, 20, 80),
                (20, 80, 320),
                (80, 320, 768),
                (320, 768, 1024)
            ]
        );
    }

    /// Measured: pages 10, 11, 12, 13 bring 1, then 4 (11..15), then 13 more (15..28: a 16-block
    /// window cut down to a multiple of 4), which the kernel starts at the marker on block 12.
    #[test]
    fn a_random_read_then_a_sequential_one() {
        assert_eq!(
            windows(&[10, 11, 12, 13], 16384),
            vec![(10, 10, 11), (11, 11, 15), (12, 15, 28)]
        );
    }

    /// A backward jump is never sequential; each random read brings only its block.
    #[test]
    fn backward_jumps_read_only_the_block() {
        assert_eq!(
            windows(&[500, 100, 1000], 16384),
            vec![(500, 500, 501), (100, 100, 101), (1000, 1000, 1001)]
        );
    }

    /// A stride-2 reader: every miss is one block past where the last call ended, so it opens
    /// an initial window of 4 whose marker (block 1 of it) the reader skips: 2 blocks per read.
    #[test]
    fn stride_two_reads_two_blocks_per_read() {
        let reads: Vec<u64> = (0..300).map(|k| 2 * k).collect();
        let w = windows(&reads, 16384);
        assert_eq!(w.len(), 150);
        assert!(w.iter().all(|&(i, a, b)| a == i && b == i + 4), "{w:?}");
    }

    /// Touching a later block of the marked folio triggers the next window too.
    #[test]
    fn any_block_of_the_marked_folio_triggers() {
        // 0 opens 0..4 (marker on block 1), 1 opens 4..20 with the marker on folio 4..8.
        // Reading block 6 (not the folio's first) triggers 20..80.
        let w = windows(&[0, 1, 6], 16384);
        assert_eq!(w, vec![(0, 0, 4), (1, 4, 20), (6, 20, 80)]);
    }

    /// Measured on 6.18: one descriptor, blocks 0, 1, 8192, 8193, 8194, then 4 (the marked
    /// 4-block folio of the first stream's second window, while the state follows the other
    /// stream): the window starts one past the hole at 20 and ends on a 16-block boundary.
    #[test]
    fn a_foreign_marker_starts_past_the_hole() {
        let w = windows(&[0, 1, 8192, 8193, 8194, 4], 16384);
        assert_eq!(
            w,
            vec![
                (0, 0, 4),
                (1, 4, 20),
                (8192, 8192, 8193),
                (8193, 8193, 8197),
                (8194, 8197, 8212),
                (4, 21, 80)
            ]
        );
    }

    /// Blocks `0..n` cached, except those in `holes`.
    fn cached_up_to(n: u64, holes: &[u64]) -> impl Fn(u64) -> bool + '_ {
        move |j| j < n && !holes.contains(&j)
    }

    /// Inside the marked folio's 64-slot node the walk reports a hole one index late (the
    /// measured 4-block folio at 4 with the hole at 20 gives 21).
    #[test]
    fn the_hole_scan_lags_inside_the_first_node() {
        assert_eq!(next_miss(4, 4, MAX, &cached_up_to(20, &[])), 21);
        assert_eq!(next_miss(80, 16, MAX, &cached_up_to(100, &[])), 101);
        // The last slot of the node: index 64 reports the hole at 63.
        assert_eq!(next_miss(32, 32, MAX, &cached_up_to(63, &[])), 64);
    }

    /// Past the node's end the walk re-aligns and finds the hole exactly (the 4-block folio at
    /// 92 of `interleaved-40`, hole at 824: measured window 824..2288).
    #[test]
    fn the_hole_scan_is_exact_past_the_node() {
        assert_eq!(next_miss(92, 4, MAX, &cached_up_to(824, &[])), 824);
        assert_eq!(next_miss(4, 4, MAX, &cached_up_to(65, &[])), 65);
        // The re-alignment step never looks at the next node's first slot: a hole there, with
        // the block after it cached, is walked over.
        assert_eq!(next_miss(60, 4, MAX, &cached_up_to(100, &[64])), 100);
    }

    /// A one-block folio starts the walk on its own slot, and a 64-block folio lives in an
    /// upper node: both find the hole exactly (issue 27: a marked 64-block folio at 320 with
    /// the hole at 380 starts the kernel's window at 380).
    #[test]
    fn one_block_and_64_block_folios_scan_exactly() {
        assert_eq!(next_miss(10, 1, MAX, &cached_up_to(20, &[])), 20);
        assert_eq!(next_miss(320, 64, MAX, &cached_up_to(380, &[])), 380);
        assert_eq!(next_miss(512, 512, MAX, &cached_up_to(1100, &[])), 1100);
        // No hole within the window's reach: an index past it, which the caller refuses.
        assert_eq!(next_miss(0, 4, 16, &cached_up_to(1000, &[])), 17);
    }

    /// Measured on 6.18 (`calibrate` pattern `interleaved-40`, issue 27's recorded residency):
    /// two 4 KiB streams 40 blocks apart on one descriptor. The foreign marker on the 4-block
    /// folio at 92 starts the window at the hole, 824 (the kernel's residency grows by 1464
    /// pages, 824..2288), where `hole + 1` started it at 825; the 64-block folio at 288 then
    /// starts the last one at 2288, 4288 pages in all as the kernel ends.
    #[test]
    fn interleaved_streams_40_blocks_apart() {
        let reads: Vec<u64> = (0..300).flat_map(|k| [k, 40 + k]).collect();
        let w = windows(&reads, 16384);
        assert_eq!(w[9], (92, 824, 2288));
        assert_eq!(w[10], (288, 2288, 4288));
        assert_eq!(w.len(), 11);
    }

    /// Windows stop at the file's end.
    #[test]
    fn the_file_end_bounds_every_window() {
        let reads: Vec<u64> = (0..50).collect();
        let w = windows(&reads, 50);
        assert!(w.iter().all(|&(_, _, b)| b <= 50), "{w:?}");
        assert_eq!(w.last().unwrap().2, 50);
    }
}
