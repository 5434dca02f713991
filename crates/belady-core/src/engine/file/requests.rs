//! The disk requests of a file-level run, by id. Completed requests at the front are retired,
//! so memory follows the requests in flight rather than the trace's length (a 10 M-reference
//! trace issues millions of requests; keeping them all cost ~70 bytes each per run).

use crate::policy::Block;
use std::collections::VecDeque;

/// One disk request of the run.
pub(super) struct Request {
    /// Completion time, or `NOT_STARTED`.
    pub done_ns: u64,
    /// Whether its completion has been processed (each request completes exactly once).
    pub completed: bool,
    /// Low priority (ClusterFetch) and not promoted.
    pub background: bool,
    pub blocks: Vec<Block>,
    /// The first block is not sent (AccuSim's block-0 sentinel).
    pub skips_first: bool,
    /// AccuSim's address of the first block sent, in sectors.
    pub sector: u32,
}

/// Requests from the oldest one not yet completed to the newest; ids count every request issued.
#[derive(Default)]
pub(super) struct Requests {
    /// Id of `live[0]`.
    base: u32,
    live: VecDeque<Request>,
    /// Retired requests, kept under test so properties can check every request of a run.
    #[cfg(test)]
    pub retired: Vec<Request>,
}

impl Requests {
    /// The id the next request gets (the number issued so far).
    pub fn next_id(&self) -> u32 {
        self.base + self.live.len() as u32
    }

    /// Adds the request with id [`Requests::next_id`].
    pub fn push(&mut self, r: Request) {
        self.live.push_back(r);
    }

    /// Request `id`, unless it completed and was retired.
    pub fn get(&self, id: u32) -> Option<&Request> {
        id.checked_sub(self.base)
            .and_then(|i| self.live.get(i as usize))
    }

    /// Request `id` to change, unless it completed and was retired.
    pub fn get_mut(&mut self, id: u32) -> Option<&mut Request> {
        id.checked_sub(self.base)
            .and_then(|i| self.live.get_mut(i as usize))
    }

    /// Drops completed requests from the front.
    pub fn retire(&mut self) {
        while self.live.front().is_some_and(|r| r.completed) {
            let _r = self.live.pop_front();
            self.base += 1;
            #[cfg(test)]
            self.retired.extend(_r);
        }
    }

    /// The requests not retired, oldest first, with their ids.
    pub fn live(&self) -> impl DoubleEndedIterator<Item = (u32, &Request)> {
        (self.base..self.next_id()).zip(self.live.iter())
    }

    /// Request `id` whether retired or not (under test only).
    #[cfg(test)]
    pub fn ever(&self, id: u32) -> &Request {
        if id < self.base {
            &self.retired[id as usize]
        } else {
            &self.live[(id - self.base) as usize]
        }
    }
}
