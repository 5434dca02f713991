//! The LRU-K paper's indexed database (O'Neil, O'Neil & Weikum 1993, section 1.1).
//!
//! Each transaction looks up a random customer through a clustered B-tree: one reference to the
//! leaf page holding the customer's key, then one to the page holding the record. With the
//! paper's 100 leaf pages and 10,000 record pages a leaf page is referenced with probability
//! 0.005 and a record page with 0.00005 per reference, so 101 buffers should hold the root and
//! every leaf, while LRU keeps about as many record pages as leaves.
//!
//! Block ids: leaves `0..leaves`, record pages `leaves..leaves + records`, the root after them.

use super::{read, BlockGen, GenSpec, Rng};
use crate::error::Result;
use crate::trace::BlockRequest;
use rand::Rng as _;

/// Alternating leaf and record page references of uniformly chosen customers.
pub struct IndexedDb {
    rng: Rng,
    leaves: u64,
    records: u64,
    root: bool,
    left: u64,
    /// References still to come for the current customer, last first.
    pending: Vec<u64>,
}

impl IndexedDb {
    /// Reads `leaves`, `records`, `root` and `requests` from `spec`.
    pub fn new(spec: &GenSpec, rng: Rng) -> Result<Self> {
        Ok(IndexedDb {
            rng,
            leaves: spec.count("leaves", 1)?,
            records: spec.count("records", 1)?,
            root: spec.flag("root")?,
            left: spec.count("requests", 0)?,
            pending: Vec::with_capacity(3),
        })
    }
}

impl Iterator for IndexedDb {
    type Item = BlockRequest;

    fn next(&mut self) -> Option<BlockRequest> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        if self.pending.is_empty() {
            // A clustered index: the record page fixes the leaf whose key range covers it.
            let record = self.rng.random_range(0..self.records);
            let leaf = (record as u128 * self.leaves as u128 / self.records as u128) as u64;
            self.pending.push(self.leaves + record);
            self.pending.push(leaf);
            if self.root {
                self.pending.push(self.leaves + self.records);
            }
        }
        self.pending.pop().map(read)
    }
}

impl BlockGen for IndexedDb {
    fn universe(&self) -> u64 {
        self.leaves + self.records + self.root as u64
    }
}
