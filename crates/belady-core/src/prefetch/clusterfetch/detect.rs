//! ClusterFetch's burst detection: a circular queue of the last disk I/Os, and the bursts of
//! I/Os close in time that follow an open.

use super::*;
use rustc_hash::FxHashSet;
use std::collections::VecDeque;

/// One disk I/O as the queue remembers it.
#[derive(Copy, Clone, Debug)]
pub(super) struct Io {
    time_ns: u64,
    /// The most recent open before this I/O.
    trigger: Option<u64>,
    file: u64,
    first: u64,
    count: u64,
}

/// A burst the detector closed: the trigger file and the blocks read, in the order first read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Burst {
    /// The file whose open preceded the burst.
    pub trigger: u64,
    /// Disk I/Os in the burst.
    pub ios: usize,
    /// (file, block index) pairs, each once, in the order the burst first read them.
    pub blocks: Vec<(u64, u64)>,
}

struct Building {
    trigger: Option<u64>,
    ios: usize,
    blocks: Vec<(u64, u64)>,
    seen: FxHashSet<(u64, u64)>,
}

impl Building {
    fn add(&mut self, io: &Io) {
        self.ios += 1;
        for index in io.first..io.first + io.count {
            if self.seen.insert((io.file, index)) {
                self.blocks.push((io.file, index));
            }
        }
    }
}

/// The circular queue of recent disk I/Os and the burst it is building.
pub struct BurstDetector {
    queue_len: usize,
    threshold_ns: u64,
    min_burst: usize,
    pub(super) ring: VecDeque<Io>,
    last_open: Option<u64>,
    building: Option<Building>,
}

impl BurstDetector {
    /// An empty queue with `cfg`'s length, threshold and minimum burst.
    pub fn new(cfg: &ClusterFetchConfig) -> Self {
        BurstDetector {
            queue_len: cfg.queue_len,
            threshold_ns: cfg.threshold_ns,
            min_burst: cfg.min_burst,
            // The ring fills one I/O at a time, so a huge --cf-queue must not be allocated
            // up front; it grows only as far as the trace's I/Os take it.
            ring: VecDeque::with_capacity(cfg.queue_len.min(1024)),
            last_open: None,
            building: None,
        }
    }

    /// A file was opened (the log of opens keeps only the latest: each queued I/O remembers it).
    pub fn on_open(&mut self, file: u64) {
        self.last_open = Some(file);
    }

    /// A disk I/O of `count` blocks from block `first` of `file` was issued at `time_ns` (times
    /// never go back). Returns the burst this I/O ended, if one worth storing did.
    pub fn observe(&mut self, time_ns: u64, file: u64, first: u64, count: u64) -> Option<Burst> {
        let io = Io {
            time_ns,
            trigger: self.last_open,
            file,
            first,
            count,
        };
        if self.ring.len() == self.queue_len {
            self.ring.pop_front();
        }
        self.ring.push_back(io);
        let oldest = self.ring[0];
        let continuous =
            self.ring.len() == self.queue_len && time_ns - oldest.time_ns < self.threshold_ns;
        if !continuous {
            return self.finish();
        }
        match &mut self.building {
            Some(b) => b.add(&io),
            None => {
                let mut b = Building {
                    trigger: oldest.trigger,
                    ios: 0,
                    blocks: Vec::new(),
                    seen: FxHashSet::default(),
                };
                for queued in &self.ring {
                    b.add(queued);
                }
                self.building = Some(b);
            }
        }
        None
    }

    /// Ends the burst in progress (the trace ended); returns it if it is worth storing.
    pub fn finish(&mut self) -> Option<Burst> {
        let b = self.building.take()?;
        match b.trigger {
            Some(trigger) if b.ios >= self.min_burst => Some(Burst {
                trigger,
                ios: b.ios,
                blocks: b.blocks,
            }),
            _ => None,
        }
    }
}
