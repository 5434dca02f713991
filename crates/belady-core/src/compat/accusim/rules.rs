//! AccuSim's engine rules as the file engine consults them: which [`Departures`] a run turned on,
//! AccuSim's formulas behind them, and the per-run state only they need. The file engine asks
//! [`Rules`] its questions (how a record's think time moves the clock, where a block lives on the
//! device, whether a resident block is still in flight ...) and gets the paper's answer when the
//! departure is off, so AccuSim's behaviour is decided here rather than in branches spread over
//! `engine/file/`.

use super::Departures;
use crate::policy::Block;
use rustc_hash::FxHashMap;

/// AccuSim's sectors wrap at this count (its disk is 17,783,240 sectors of 512 bytes).
const ACCUSIM_DISK_SECTORS: u32 = 17_783_240;

/// How a trace record's think time moves the file engine's clock.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Think {
    /// The think time passes as time (timers fire in it): the engine's own clock.
    Elapses,
    /// AccuSim's clock: jump `clock_ns` at once, of which `compute_ns` counts as the program's
    /// processing time.
    Jumps {
        /// How far the clock moves.
        clock_ns: u64,
        /// The part of it that is the program's own compute time.
        compute_ns: u64,
    },
    /// AccuSim's clock does not move for this record.
    Stays,
}

/// The departures a file-level run follows, with the state they keep.
#[derive(Clone, Debug)]
pub struct Rules {
    /// The departures turned on.
    pub on: Departures,
    /// AccuSim's per-block "I/O done" flag (`done-flags`); empty when that rule is off.
    done: Vec<bool>,
    /// Rank past the end given to each never-referenced block at its first prefetch
    /// (`opt-unused-prefetch-after-end`).
    unused_rank_of: FxHashMap<Block, u64>,
    unused_prefetch_rank: u64,
}

impl Rules {
    /// The rules `on` for a run over block ids `0..universe`.
    pub fn new(on: Departures, universe: usize) -> Self {
        Rules {
            on,
            done: if on.done_flags {
                vec![true; universe]
            } else {
                Vec::new()
            },
            unused_rank_of: FxHashMap::default(),
            unused_prefetch_rank: 0,
        }
    }

    /// How a record's think time `think_ns` moves the clock. AccuSim's clock (`accusim-clock`)
    /// adds a read or write record's compute time plus 1 µs, nothing for a record without compute
    /// time, and nothing at all until it has started (`started` says whether it has: the engine
    /// knows the disk's events).
    #[inline]
    pub fn think(&self, is_io: bool, think_ns: u64, started: impl FnOnce() -> bool) -> Think {
        if !self.on.accusim_clock {
            Think::Elapses
        } else if is_io && think_ns > 0 && started() {
            Think::Jumps {
                clock_ns: think_ns + 1000,
                compute_ns: think_ns,
            }
        } else {
            Think::Stays
        }
    }

    /// Whether the run time is exactly processing plus waiting (AccuSim's clock also adds 1 µs
    /// per read record, which is neither).
    pub fn run_time_is_proc_plus_wait(&self) -> bool {
        !self.on.accusim_clock
    }

    /// How many leading blocks of a request of `blocks` blocks from file block `first_index` are
    /// not sent to the device: 1 for AccuSim's request from block 0 (`block0-sentinel`), which
    /// starts at block 1; else 0.
    #[inline]
    pub fn blocks_not_sent(&self, first_index: u64, blocks: u64) -> u64 {
        (self.on.block0_sentinel && first_index == 0 && blocks > 1) as u64
    }

    /// AccuSim's sector of block `index` of the file with inode `inode`: 1 MB per inode, in
    /// 32-bit arithmetic, wrapping at its disk's size.
    #[inline]
    pub fn sector(inode: u64, index: u64) -> u32 {
        (inode as u32)
            .wrapping_shl(11)
            .wrapping_add((index as u32).wrapping_mul(8))
            % ACCUSIM_DISK_SECTORS
    }

    /// The device address of block `index` of `file` under AccuSim's layout
    /// (`inode-spaced-layout`), for blocks of `sectors_per_block` sectors; `None` when the
    /// engine lays files out itself.
    #[inline]
    pub fn device_address(&self, file: u64, index: u64, sectors_per_block: u64) -> Option<u64> {
        self.on
            .inode_spaced_layout
            .then(|| Self::sector(file, index) as u64 * (sectors_per_block / 8).max(1))
    }

    /// Whether a block is pinned while its I/O is queued or in flight (the kernel locks it);
    /// AccuSim may evict it (`evict-in-flight`).
    #[inline]
    pub fn pins_in_flight(&self) -> bool {
        !self.on.evict_in_flight
    }

    /// Block `b`'s I/O was queued.
    #[inline]
    pub fn queued(&mut self, b: Block) {
        if self.on.done_flags {
            self.done[b as usize] = false;
        }
    }

    /// A request completed that sent `sent` (its blocks past those not sent).
    #[inline]
    pub fn request_done(&mut self, sent: &[Block]) {
        if self.on.done_flags {
            for &b in sent {
                self.done[b as usize] = true;
            }
        }
    }

    /// Whether resident `b`, for which a request is `pending` (queued or issued), is still in
    /// flight. With `done-flags` AccuSim's flag decides: a block queued in a request that never
    /// sends it (block 0 under `block0-sentinel`) stays in flight until it is read again.
    #[inline]
    pub fn in_flight(&self, b: Block, pending: bool) -> bool {
        if self.on.done_flags {
            !self.done[b as usize]
        } else {
            pending
        }
    }

    /// Whether a demand access to an in-flight block that is not an unused prefetch
    /// (`unused_prefetch` false) is a plain hit (`in-flight-reuse-hits`); otherwise it is a miss
    /// that waits.
    #[inline]
    pub fn in_flight_reuse_hits(&self, unused_prefetch: bool) -> bool {
        self.on.in_flight_reuse_hits && !unused_prefetch
    }

    /// Whether an access to an in-flight block waits for the request AccuSim's address test
    /// finds (`late-by-address`) rather than for the block's own request.
    #[inline]
    pub fn late_by_address(&self) -> bool {
        self.on.late_by_address
    }

    /// Whether AccuSim's read loop references the call's demand blocks inside the read-ahead
    /// window at once (`window-covers-call`).
    #[inline]
    pub fn window_covers_call(&self) -> bool {
        self.on.window_covers_call
    }

    /// OPT's next use for prefetched `b`, which the trace of `references` demand references never
    /// references: AccuSim's rank just past the end, increasing in order of first prefetch and
    /// kept if `b` is prefetched again (`opt-unused-prefetch-after-end`); `None` under the paper's
    /// rule (never).
    #[inline]
    pub fn unused_prefetch_next_use(&mut self, b: Block, references: usize) -> Option<u64> {
        if !self.on.opt_unused_prefetch_after_end {
            return None;
        }
        let rank = self.unused_rank_of.entry(b).or_insert_with(|| {
            self.unused_prefetch_rank += 1;
            self.unused_prefetch_rank
        });
        Some(references as u64 + *rank)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_off_gives_the_papers_answers() {
        let mut r = Rules::new(Departures::default(), 4);
        assert_eq!(r.think(true, 5, || true), Think::Elapses);
        assert_eq!(r.blocks_not_sent(0, 4), 0);
        assert_eq!(r.device_address(3, 1, 8), None);
        assert!(r.pins_in_flight() && r.run_time_is_proc_plus_wait());
        r.queued(2);
        assert!(r.in_flight(2, true) && !r.in_flight(2, false));
        assert!(!r.in_flight_reuse_hits(false));
        assert_eq!(r.unused_prefetch_next_use(1, 10), None);
    }

    #[test]
    fn accusims_rules_follow_its_formulas() {
        let mut r = Rules::new(Departures::accusim(), 4);
        assert_eq!(
            r.think(true, 5, || true),
            Think::Jumps {
                clock_ns: 1005,
                compute_ns: 5
            }
        );
        assert_eq!(r.think(true, 5, || false), Think::Stays);
        assert_eq!(r.think(false, 5, || true), Think::Stays);
        assert_eq!((r.blocks_not_sent(0, 4), r.blocks_not_sent(0, 1)), (1, 0));
        // Inode 3, block 1: 3 * 2048 + 8 sectors; a 32-bit wrap then the disk's size.
        assert_eq!(r.device_address(3, 1, 8), Some(6152));
        // 10,000 * 2048 = 20,480,000 sectors wraps at the disk's 17,783,240.
        assert_eq!(Rules::sector(10_000, 0), 2_696_760);
        assert_eq!(Rules::sector(1 << 21, 0), 0, "the shift wraps in 32 bits");
        assert!(!r.pins_in_flight());
        r.queued(2);
        assert!(
            r.in_flight(2, false),
            "the done flag decides, not the request"
        );
        r.request_done(&[2]);
        assert!(!r.in_flight(2, true));
        assert_eq!(r.unused_prefetch_next_use(1, 10), Some(11));
        assert_eq!(r.unused_prefetch_next_use(3, 10), Some(12));
        assert_eq!(
            r.unused_prefetch_next_use(1, 10),
            Some(11),
            "kept when prefetched again"
        );
    }
}
