//! AccuSim's departures from the prefetching study's text, in one place the engines consult.
//! `--compat accusim` (configuration `compat = "accusim"`) turns every one on and implies the
//! `accusim` policy preset ([`crate::run::config::RunConfig::policy_preset`]).
//!
//! Two kinds of departure live here:
//! - engine rules: [`Departures`] names them (what `--compat-rule` takes), and [`rules::Rules`]
//!   holds their formulas and the state only they need; the file engine asks it each question;
//! - AccuSim's variants of the papers' policies ([`arc::AccusimArc`]: its REPLACE test, first use,
//!   case IV directory and unmarked ghost prefetches; [`lrfu::AccusimLrfu`]: its CRF queue and
//!   heap/list hybrid; [`lruk::AccusimLruK`]: its stamped heap, entry-ordered ineligible list,
//!   correlated first use and trigger-time prefetches; [`mq::AccusimMq`]: counting prefetches,
//!   the clock before the access and `Adjust` after prefetches; [`lirs::AccusimLirs`]: evicted
//!   unused prefetches keep their S entries; [`opt::AccusimOpt`]: OPT in its binary heap, whose
//!   shape decides ties). The builder ([`crate::cache::builder`]) makes a variant
//!   instead of the paper's policy when the policy's parameters ask for AccuSim's behaviour (as
//!   the `accusim` preset does), so `policy/arc.rs`, `lrfu.rs`, `lruk.rs`, `mq.rs`, `lirs.rs` and
//!   `opt.rs` keep only what the papers (and the implementations they share a choice with)
//!   describe, and `policy/` does not import this module. Except LRFU's queue and OPT's heap, each
//!   variant wraps the paper's type and drives its state through a few `pub(crate)` steps of that
//!   type, so the paper's bookkeeping is written once.
//!
//! # Why a hook trait reached through one accessor
//! Two of the ARC variant's departures need the cache level's help, which the papers' policies
//! never do: whether a prefetch enters marked as unused ([`crate::policy::LevelHooks::prefetch_marked`]), and
//! whether a demand reference comes from AccuSim's read-ahead loop
//! ([`crate::policy::LevelHooks::set_in_readahead_loop`], for the `window-covers-call` rule). They are methods of
//! [`crate::policy::LevelHooks`] (defined beside the [`Policy`] trait, which names nothing of AccuSim's), reached
//! through the one accessor [`Policy::level_hooks`], which is `None` for every paper policy. The
//! level asks for it only on a prefetch and the file engine only for references from the
//! read-ahead loop ([`access_in_readahead_loop`]), so the plain demand path
//! (`CacheLevel::access`, monomorphised per policy) has no added call at all. A generic parameter
//! on the level would have made every engine and the hierarchy's boxed levels name the hooks;
//! wrapping types (rather than flags inside the paper types) keep the paper policies readable
//! without AccuSim's branches.

pub mod arc;
pub mod lirs;
pub mod lrfu;
pub mod lruk;
pub mod mq;
pub mod opt;
pub mod rules;
pub(crate) mod stamped_heap;

use crate::cache::level::{CacheLevel, Outcome};
use crate::error::{Error, Result};
use crate::policy::{Block, Policy};

/// A named departure of AccuSim (the prefetching study's simulator) from the paper's text.
/// `--compat accusim` turns all of them on; each can be turned on alone.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Departures {
    /// Requests hold at most 33 blocks (more than RCHUNK = 32) instead of 64 KB.
    pub request_cap_33: bool,
    /// No request spans two read() calls.
    pub requests_end_with_calls: bool,
    /// A demand block after prefetched blocks starts a new request.
    pub demand_after_prefetch_splits: bool,
    /// The last partial block of a file is never read ahead (as the Linux 2.4 loop stops at
    /// `i_size >> PAGE_SHIFT`).
    pub skip_partial_last_block: bool,
    /// A request starting at file block 0 takes its sync/async class from its second block.
    pub block0_sentinel: bool,
    /// OPT gives a prefetched block that the trace never references a next reference just past
    /// the end of the trace, increasing in order of first prefetch and kept if it is prefetched
    /// again (so they go after blocks with no further reference, which tie at "never").
    pub opt_unused_prefetch_after_end: bool,
    /// Blocks whose I/O is queued or in flight may be evicted (the kernel locks them instead).
    pub evict_in_flight: bool,
    /// Block `b` of the file with inode `i` lives at sector `(i * 2048 + 8b) mod 17,783,240`
    /// (1 MB per inode, in 32-bit arithmetic) instead of files laid out one after another.
    pub inode_spaced_layout: bool,
    /// AccuSim's clock: each read or write record adds its compute time plus 1 µs (nothing when
    /// its compute time is 0), and nothing is counted until a first request has been issued.
    pub accusim_clock: bool,
    /// AccuSim's per-block read loop: after a demand block's read-ahead decision, the call's
    /// further demand blocks inside the read-ahead window are referenced at once, without a
    /// read-ahead decision of their own, and those the read-ahead itself reaches are referenced
    /// as demand misses where it reaches them (not inserted as prefetches and accessed later).
    pub window_covers_call: bool,
    /// AccuSim's per-block I/O status: a block is in flight from being queued until any request
    /// that sends it completes. With `block0_sentinel` a request starting at file block 0 never
    /// sends block 0, which therefore stays in flight until it is read again.
    pub done_flags: bool,
    /// An access to an in-flight block waits for (and counts as late against) the newest pending
    /// request whose first sector is at most the block's and that starts fewer sectors before it
    /// than the request holds blocks (AccuSim compares a block count with a sector distance, and
    /// addresses by inode, so only a request's first few blocks, or another file's request, match).
    pub late_by_address: bool,
    /// Only the first demand access of a prefetched block whose I/O is in flight is a miss; any
    /// other access to a resident block is a hit, complete or not.
    pub in_flight_reuse_hits: bool,
}

/// Names of the departures, as `--compat-rule` takes them.
pub const DEPARTURE_NAMES: &[&str] = &[
    "request-cap-33",
    "requests-end-with-calls",
    "demand-after-prefetch-splits",
    "skip-partial-last-block",
    "block0-sentinel",
    "opt-unused-prefetch-after-end",
    "evict-in-flight",
    "inode-spaced-layout",
    "accusim-clock",
    "window-covers-call",
    "done-flags",
    "late-by-address",
    "in-flight-reuse-hits",
];

impl Departures {
    /// Every departure on: AccuSim's behaviour.
    pub fn accusim() -> Self {
        Departures {
            request_cap_33: true,
            requests_end_with_calls: true,
            demand_after_prefetch_splits: true,
            skip_partial_last_block: true,
            block0_sentinel: true,
            opt_unused_prefetch_after_end: true,
            evict_in_flight: true,
            inode_spaced_layout: true,
            accusim_clock: true,
            window_covers_call: true,
            done_flags: true,
            late_by_address: true,
            in_flight_reuse_hits: true,
        }
    }

    /// The most blocks a request holds under `request-cap-33` (AccuSim closes a request when it
    /// exceeds RCHUNK = 32 blocks); `None` when requests are bounded by bytes.
    pub fn request_block_cap(&self) -> Option<u32> {
        self.request_cap_33.then_some(33)
    }

    /// Turns on the departure called `name`.
    pub fn enable(&mut self, name: &str) -> Result<()> {
        match name {
            "request-cap-33" => self.request_cap_33 = true,
            "requests-end-with-calls" => self.requests_end_with_calls = true,
            "demand-after-prefetch-splits" => self.demand_after_prefetch_splits = true,
            "skip-partial-last-block" => self.skip_partial_last_block = true,
            "block0-sentinel" => self.block0_sentinel = true,
            "opt-unused-prefetch-after-end" => self.opt_unused_prefetch_after_end = true,
            "evict-in-flight" => self.evict_in_flight = true,
            "inode-spaced-layout" => self.inode_spaced_layout = true,
            "accusim-clock" => self.accusim_clock = true,
            "window-covers-call" => self.window_covers_call = true,
            "done-flags" => self.done_flags = true,
            "late-by-address" => self.late_by_address = true,
            "in-flight-reuse-hits" => self.in_flight_reuse_hits = true,
            _ => {
                return Err(Error::config(
                    "compat_rules",
                    name,
                    format!(
                        "unknown rule{}; expected one of {}",
                        crate::error::did_you_mean(name, DEPARTURE_NAMES.iter().copied()),
                        DEPARTURE_NAMES.join(", ")
                    ),
                ))
            }
        }
        Ok(())
    }
}

/// A demand reference to `b` made from inside AccuSim's read-ahead loop (the
/// `window-covers-call` rule): [`CacheLevel::access`] with the policy told where it comes from,
/// if the policy is an AccuSim variant that cares.
pub fn access_in_readahead_loop<P: Policy>(
    level: &mut CacheLevel<P>,
    b: Block,
    next_use: u64,
) -> Outcome {
    if let Some(h) = level.policy.level_hooks() {
        h.set_in_readahead_loop(true);
    }
    let outcome = level.access(b, next_use);
    if let Some(h) = level.policy.level_hooks() {
        h.set_in_readahead_loop(false);
    }
    outcome
}
