//! The LRU-K paper's indexed database (O'Neil, O'Neil & Weikum 1993, section 1.1).
//!
//! Each transaction looks up a random customer through a clustered B-tree: one reference to the
//! leaf page holding the customer's key, then one to the page holding the record. With the
//! paper's 100 leaf pages and 10,000 record pages a leaf page is referenced with probability
//! 0.005 and a record page with 0.00005 per reference, so 101 buffers should hold the root and
//! every leaf, while LRU keeps about as many record pages as leaves.
//!
//! Other probabilities change the share of references going to the leaf level,
//! `leaves × leaf-prob`: above one half, some lookups read only the index (the leaf, not the
//! record); below, some reach the record without it. A transaction still touches only its own
//! customer's pages, so a record page follows its own leaf whenever both are referenced.
//!
//! Block ids: leaves `0..leaves`, record pages `leaves..leaves + records`, the root after them.

use super::{read, BlockGen, GenSpec, Rng};
use crate::error::Result;
use crate::trace::BlockRequest;
use rand::Rng as _;

/// Leaf and record page references of uniformly chosen customers.
pub struct IndexedDb {
    rng: Rng,
    leaves: u64,
    records: u64,
    root: bool,
    /// Whether every transaction references the leaf (else the record always, the leaf sometimes).
    leaf_always: bool,
    /// Probability that a transaction also references its other page (1: strict alternation).
    both: f64,
    left: u64,
    /// References still to come for the current customer, last first.
    pending: Vec<u64>,
}

impl IndexedDb {
    /// Reads `leaves`, `records`, `leaf-prob`, `record-prob`, `root` and `requests` from `spec`.
    pub fn new(spec: &GenSpec, rng: Rng) -> Result<Self> {
        let leaves = spec.count("leaves", 1)?;
        let records = spec.count("records", 1)?;
        let leaf_prob = spec.real_or_auto("leaf-prob", 0.0, 1.0 / leaves as f64)?;
        let record_prob = spec.real_or_auto("record-prob", 0.0, 1.0 / records as f64)?;
        let leaf_share = match (leaf_prob, record_prob) {
            (None, None) => 0.5,
            (Some(p), None) => leaves as f64 * p,
            (None, Some(q)) => 1.0 - records as f64 * q,
            (Some(p), Some(q)) => {
                let total = leaves as f64 * p + records as f64 * q;
                if (total - 1.0).abs() > 1e-9 {
                    return Err(spec.bad(
                        "leaf-prob",
                        &format!(
                            "leaves × leaf-prob + records × record-prob must be 1, not \
                             {leaves} × {p} + {records} × {q} = {total} (leave one auto)"
                        ),
                    ));
                }
                leaves as f64 * p
            }
        }
        .clamp(0.0, 1.0);
        let leaf_always = leaf_share >= 0.5;
        let (more, less) = if leaf_always {
            (leaf_share, 1.0 - leaf_share)
        } else {
            (1.0 - leaf_share, leaf_share)
        };
        // Rounding in leaves × 1/(2 leaves) must not cost the paper's case its strict alternation.
        let both = if less / more > 1.0 - 1e-12 {
            1.0
        } else {
            less / more
        };
        Ok(IndexedDb {
            rng,
            leaves,
            records,
            root: spec.flag("root")?,
            leaf_always,
            both,
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
            // Strict alternation draws nothing more, keeping the paper's traces as they were.
            let both = self.both >= 1.0 || self.rng.random_bool(self.both);
            if both || !self.leaf_always {
                self.pending.push(self.leaves + record);
            }
            if both || self.leaf_always {
                self.pending.push(leaf);
                if self.root {
                    self.pending.push(self.leaves + self.records);
                }
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
