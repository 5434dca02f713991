//! ClusterFetch (Jeong, Ryu, Lee, Lee, Shin & Kang, "ClusterFetch: A Lightweight Prefetcher for
//! General Workloads", ICPE 2015): learn which disk blocks a program reads in a burst right after
//! it opens a file, and prefetch them the next time that file is opened.
//!
//! * A circular queue holds the last `queue_len` disk I/Os (issue time, blocks). While the queue is
//!   full and its first and last entries are less than `threshold` apart, the I/Os form one burst:
//!   the burst starts with the queue's first entry and grows with every I/O that keeps the queue
//!   within the threshold; the first I/O that does not ends it.
//! * The burst belongs to the trigger file: the file whose open most recently preceded the burst's
//!   first I/O. Bursts of fewer than `min_burst` I/Os, or with no open before them, are dropped.
//! * The prefetch-information store maps each trigger file to the blocks of its bursts (a new burst
//!   adds to what the trigger already holds). It is bounded: when it would exceed
//!   `store_limit_bytes`, the least recently used triggers go first, and a single trigger larger
//!   than the limit keeps the blocks its bursts read first.
//! * On a later open of a trigger file the engine prefetches its blocks that are not cached, as
//!   low-priority requests sorted by disk address and clustered, paced by the bandwidth cap
//!   ([`Pacer`]).
//!
//! The paper gives no values for the queue length, threshold, minimum burst or bandwidth cap; the
//! defaults here are belady's (see [`ClusterFetchConfig::default`]). It reports a memory overhead
//! under 3 MB, which is the default store limit.
//!
//! Files are keyed by name (path), so a store learned on one recording of a program applies to
//! another recording on the same machine even though the traces number files differently; files
//! without a name are keyed `#ID`. Blocks are (file, block index in the file); the engine turns them
//! into disk addresses with its own layout.

mod detect;
mod store;

pub use detect::{Burst, BurstDetector};
pub use store::{Extent, PrefetchStore, MIN_STORE_BYTES, STORE_VERSION};

use crate::error::{Error, Result};

/// ClusterFetch's parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterFetchConfig {
    /// Entries of the circular queue of recent disk I/Os.
    pub queue_len: usize,
    /// The queue holds a burst while its first and last entries are less than this apart, ns.
    pub threshold_ns: u64,
    /// Fewest disk I/Os a burst needs to be stored.
    pub min_burst: usize,
    /// Largest size of the prefetch-information store (its encoded size, what its file takes).
    pub store_limit_bytes: u64,
    /// Prefetch bandwidth cap in bytes per second; 0 for no cap.
    pub bandwidth_bytes_per_s: u64,
}

impl Default for ClusterFetchConfig {
    /// belady's defaults: 16 I/Os within 500 ms (a mean gap under 31 ms, which continuous I/O on a
    /// disk keeps and a program computing between reads does not), bursts of at least 32 I/Os, the
    /// paper's 3 MB of memory, no bandwidth cap (low priority already keeps prefetches out of the
    /// way of demand reads).
    fn default() -> Self {
        ClusterFetchConfig {
            queue_len: 16,
            threshold_ns: 500_000_000,
            min_burst: 32,
            store_limit_bytes: 3_000_000,
            bandwidth_bytes_per_s: 0,
        }
    }
}

impl ClusterFetchConfig {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<()> {
        if self.queue_len < 2 {
            return Err(Error::config(
                "cf_queue",
                self.queue_len,
                "the queue needs at least 2 entries to span a time",
            ));
        }
        if self.threshold_ns == 0 {
            return Err(Error::config("cf_threshold", "0", "must be more than 0 ms"));
        }
        crate::limits::check_time(
            "cf_threshold",
            self.threshold_ns as f64 / 1e6,
            crate::limits::TimeUnit::Ms,
        )?;
        if self.bandwidth_bytes_per_s > 0 {
            // 0 is no cap.
            crate::limits::check_rate(
                "cf_bandwidth",
                self.bandwidth_bytes_per_s as f64,
                1.0,
                "bytes per second",
                crate::limits::MIN_DEVICE_BYTES_PER_S,
            )?;
        }
        if self.min_burst == 0 {
            return Err(Error::config("cf_min_burst", 0, "must be at least 1 I/O"));
        }
        if self.store_limit_bytes < MIN_STORE_BYTES {
            return Err(Error::config(
                "cf_store_limit",
                self.store_limit_bytes,
                format!("must be at least {MIN_STORE_BYTES} bytes (an empty store's header)"),
            ));
        }
        Ok(())
    }
}

/// The ClusterFetch component of a `--prefetch` value.
pub const COMPONENT: &str = "clusterfetch";

/// Splits a `--prefetch` value into the read-ahead engine and whether ClusterFetch is on:
/// `linux24+clusterfetch`, `clusterfetch` (no read-ahead: `none`), `ondemand`.
pub fn split_prefetch(value: &str) -> Result<(&str, bool)> {
    let mut engine: Option<&str> = None;
    let mut cf = false;
    for part in value.split('+').map(str::trim) {
        if part == COMPONENT {
            if cf {
                return Err(Error::config("prefetch", value, "names clusterfetch twice"));
            }
            cf = true;
        } else if engine.replace(part).is_some() {
            return Err(Error::config(
                "prefetch",
                value,
                "combines at most one read-ahead engine with clusterfetch (e.g. linux24+clusterfetch)",
            ));
        }
    }
    Ok((engine.unwrap_or("none"), cf))
}
/// Spaces prefetch requests out so they do not exceed a bandwidth cap.
#[derive(Clone, Debug, Default)]
pub struct Pacer {
    bytes_per_s: u64,
    next_ns: u64,
}

impl Pacer {
    /// A pacer for `bytes_per_s` (0: every request is released at once).
    pub fn new(bytes_per_s: u64) -> Self {
        Pacer {
            bytes_per_s,
            next_ns: 0,
        }
    }

    /// Release time of a request of `bytes` asked for at `now_ns`: no earlier than now, and late
    /// enough that the requests released so far stay within the cap.
    pub fn release(&mut self, now_ns: u64, bytes: u64) -> u64 {
        if self.bytes_per_s == 0 {
            return now_ns;
        }
        let at = self.next_ns.max(now_ns);
        let span = (bytes as u128 * 1_000_000_000).div_ceil(self.bytes_per_s as u128);
        self.next_ns = at.saturating_add(span.min(u64::MAX as u128) as u64);
        at
    }
}
/// Splits `blocks` (each a disk address in sectors and the caller's payload), sorted by address,
/// into requests of at most `max_blocks` blocks whose addresses follow one another by
/// `sectors_per_block`.
pub fn cluster_by_address<T: Copy>(
    blocks: &[(u64, T)],
    sectors_per_block: u64,
    max_blocks: usize,
) -> Vec<Vec<(u64, T)>> {
    let mut out: Vec<Vec<(u64, T)>> = Vec::new();
    for &(lba, item) in blocks {
        match out.last_mut() {
            Some(run)
                if run.len() < max_blocks
                    && run
                        .last()
                        .is_some_and(|&(prev, _)| prev + sectors_per_block == lba) =>
            {
                run.push((lba, item))
            }
            _ => out.push(vec![(lba, item)]),
        }
    }
    out
}

#[cfg(test)]
mod tests;
