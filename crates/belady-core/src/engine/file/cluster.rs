//! I/O clustering: blocks queued for reading become disk requests.
//!
//! Consecutive blocks of the same file queued together are merged into one request up to a size
//! cap. A request is synchronous (the application waits) when it holds a demand block, otherwise
//! asynchronous (prefetch only).

use crate::policy::Block;

/// How queued blocks are merged into requests.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ClusterRules {
    /// Largest request, in blocks.
    pub max_blocks: u32,
    /// Close every request at the end of each read() call (AccuSim). Otherwise a queue holding
    /// only prefetched blocks stays open (plugged) for the next call to extend; a queue with a
    /// demand block is issued when its call ends, since the application waits for it. The engine
    /// unplugs an open queue early when the program needs one of its blocks or blocks on I/O.
    pub split_at_calls: bool,
    /// A demand block after prefetched blocks starts a new request (AccuSim).
    pub demand_after_prefetch_splits: bool,
    /// AccuSim's sentinel: a request starting at file block 0 takes its class from its second
    /// block.
    pub block0_sentinel: bool,
}

/// One block waiting to be read.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct QueuedBlock {
    /// File the block belongs to.
    pub file: u64,
    /// Block index within the file.
    pub index: u64,
    /// Dense block id.
    pub block: Block,
    /// Read on demand (part of the current read() call), not ahead.
    pub demand: bool,
}

/// A disk request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiskRequest {
    /// File of the blocks.
    pub file: u64,
    /// First file block.
    pub first_index: u64,
    /// Dense ids of the blocks, in file order.
    pub blocks: Vec<Block>,
    /// The application waits for it.
    pub sync: bool,
}

/// Builds disk requests from queued blocks.
pub struct Clusterer {
    rules: ClusterRules,
    open: Vec<QueuedBlock>,
    done: Vec<DiskRequest>,
    closed: u64,
}

impl Clusterer {
    /// A clusterer following `rules`.
    pub fn new(rules: ClusterRules) -> Self {
        Clusterer {
            rules,
            open: Vec::new(),
            done: Vec::new(),
            closed: 0,
        }
    }

    /// Whether `block` waits in the open, not yet issued, request.
    pub fn is_queued(&self, block: Block) -> bool {
        self.open.iter().any(|q| q.block == block)
    }

    /// Whether the open request holds any of blocks `first..=last` of `file`.
    pub fn open_holds(&self, file: u64, first: u64, last: u64) -> bool {
        self.open
            .iter()
            .any(|q| q.file == file && (first..=last).contains(&q.index))
    }

    /// Whether a request is open (queued blocks not yet closed into a request).
    pub fn has_open(&self) -> bool {
        !self.open.is_empty()
    }

    /// How many requests have been closed so far: an open request with the same count as when
    /// it was last seen is the same request.
    pub fn closed_count(&self) -> u64 {
        self.closed
    }

    /// Queues one block.
    pub fn push(&mut self, q: QueuedBlock) {
        if let Some(last) = self.open.last() {
            let joins = last.file == q.file
                && last.index + 1 == q.index
                && self.open.len() < self.rules.max_blocks as usize
                && !(self.rules.demand_after_prefetch_splits && q.demand && !last.demand);
            if !joins {
                self.close();
            }
        }
        self.open.push(q);
        if self.open.len() >= self.rules.max_blocks as usize {
            self.close();
        }
    }

    /// The current read() call ended; returns the requests to issue now.
    pub fn end_call(&mut self) -> Vec<DiskRequest> {
        if self.rules.split_at_calls || self.open.iter().any(|q| q.demand) {
            self.close();
        }
        std::mem::take(&mut self.done)
    }

    /// Issues whatever is still queued (end of trace, or a timer).
    pub fn flush(&mut self) -> Vec<DiskRequest> {
        self.close();
        std::mem::take(&mut self.done)
    }

    fn close(&mut self) {
        if self.open.is_empty() {
            return;
        }
        self.closed += 1;
        let first = self.open[0];
        let sync = if self.rules.block0_sentinel && first.index == 0 && self.open.len() > 1 {
            self.open[1].demand
        } else if self.rules.demand_after_prefetch_splits {
            first.demand
        } else {
            self.open.iter().any(|q| q.demand)
        };
        self.done.push(DiskRequest {
            file: first.file,
            first_index: first.index,
            blocks: self.open.drain(..).map(|q| q.block).collect(),
            sync,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(file: u64, index: u64, demand: bool) -> QueuedBlock {
        QueuedBlock {
            file,
            index,
            block: (file * 1000 + index) as Block,
            demand,
        }
    }

    const ACCUSIM: ClusterRules = ClusterRules {
        max_blocks: 33,
        split_at_calls: true,
        demand_after_prefetch_splits: true,
        block0_sentinel: true,
    };

    #[test]
    fn merges_consecutive_blocks_and_splits_on_gaps_files_and_cap() {
        let mut c = Clusterer::new(ClusterRules {
            max_blocks: 4,
            ..ACCUSIM
        });
        for i in 5..11 {
            c.push(q(1, i, i == 5));
        }
        c.push(q(2, 11, false));
        c.push(q(2, 13, false));
        let r = c.end_call();
        let shape: Vec<(u64, u64, usize, bool)> = r
            .iter()
            .map(|r| (r.file, r.first_index, r.blocks.len(), r.sync))
            .collect();
        assert_eq!(
            shape,
            vec![
                (1, 5, 4, true),
                (1, 9, 2, false),
                (2, 11, 1, false),
                (2, 13, 1, false)
            ]
        );
    }

    #[test]
    fn accusim_sentinel_and_demand_after_prefetch() {
        let mut c = Clusterer::new(ACCUSIM);
        c.push(q(1, 0, true));
        c.push(q(1, 1, false));
        c.push(q(1, 2, false));
        c.push(q(1, 3, true));
        let r = c.end_call();
        assert_eq!((r[0].blocks.len(), r[0].sync), (3, false));
        assert_eq!((r[1].first_index, r[1].sync), (3, true));
    }

    #[test]
    fn prefetch_only_queue_survives_the_call_unless_split() {
        let paper = ClusterRules {
            max_blocks: 16,
            split_at_calls: false,
            demand_after_prefetch_splits: false,
            block0_sentinel: false,
        };
        let mut c = Clusterer::new(paper);
        c.push(q(1, 4, false));
        assert!(c.end_call().is_empty());
        assert!(c.is_queued(1004));
        c.push(q(1, 5, true));
        let r = c.end_call();
        assert_eq!((r.len(), r[0].blocks.len(), r[0].sync), (1, 2, true));
    }
}
