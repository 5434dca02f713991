//! Where each descriptor's last read ended, for policies that ask which reads start in the block
//! where the previous read of the same file ended ([`crate::policy::Policy::wants_repeats`]).
//!
//! Linux keeps this position per open file (`file_ra_state.prev_pos`, set at the end of
//! `filemap_read` in mm/filemap.c of 6.18); `filemap_read` then marks the first folio of a read
//! accessed only when `pos_same_folio(iocb->ki_pos, last_pos - 1, folio)` is false, so a page read
//! twice in a row, or in two halves, is marked once. A new open starts with no position
//! (`file_ra_state_init` sets `prev_pos` to -1). Blocks stand in for folios: the file engine's
//! pages are one block each.

use crate::prefetch::Desc;
use std::collections::HashMap;

/// The end (exclusive byte offset) of each open descriptor's last read; empty and untouched
/// when the policy does not ask.
pub(super) struct ReadEnds {
    on: bool,
    ends: HashMap<Desc, u64>,
}

impl ReadEnds {
    /// Tracking on when `on` (the policy wants repeats).
    pub(super) fn new(on: bool) -> Self {
        ReadEnds {
            on,
            ends: HashMap::new(),
        }
    }

    /// `d` was opened or closed: a fresh open file has no previous read.
    #[inline]
    pub(super) fn forget(&mut self, d: Desc) {
        if self.on {
            self.ends.remove(&d);
        }
    }

    /// A read of `d` over bytes `offset..end` in blocks of `block_size` bytes: whether its first
    /// block is the one the previous read of `d` ended in. Records `end` for the next read.
    #[inline]
    pub(super) fn read(&mut self, d: Desc, offset: u64, end: u64, block_size: u64) -> bool {
        if !self.on {
            return false;
        }
        let prev = self.ends.insert(d, end);
        prev.is_some_and(|e| e > 0 && (e - 1) / block_size == offset / block_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_repeats_when_it_starts_in_the_block_the_last_one_ended_in() {
        let mut r = ReadEnds::new(true);
        let d = (1, 3);
        assert!(!r.read(d, 0, 2048, 4096), "the first read of an open file");
        assert!(
            r.read(d, 2048, 4096, 4096),
            "the second half of the same page"
        );
        assert!(!r.read(d, 4096, 8192, 4096), "the next page");
        assert!(r.read(d, 4096, 4096 + 10, 4096), "the same page again");
        assert!(!r.read((1, 4), 4096, 8192, 4096), "another descriptor");
        r.forget(d);
        assert!(!r.read(d, 4096, 8192, 4096), "reopened");
        // A read that ends on a block boundary ended in the block before it.
        assert!(!r.read(d, 8192, 12288, 4096));
        let mut off = ReadEnds::new(false);
        off.read(d, 0, 4096, 4096);
        assert!(!off.read(d, 0, 4096, 4096), "off: never a repeat");
    }
}
