//! Blocks grouped by an integer key (a reference count, an LFUDA priority), each group a FIFO in
//! the order blocks joined it: the structure LFU and LFUDA evict from (the oldest block of the
//! smallest key goes first, as libCacheSim's frequency nodes do).
//!
//! Groups live in an ordered map holding only non-empty groups, so the smallest key and the next
//! key above any value are a map lookup; blocks are linked inside their group through dense
//! per-block arrays.

use super::Block;
use crate::frames::Frames;
use std::collections::BTreeMap;

const NIL: u32 = u32::MAX;

/// First and last block of one group, and its size.
#[derive(Copy, Clone, Debug)]
struct Group {
    first: Block,
    last: Block,
    len: usize,
}

/// Blocks `0..universe` grouped by key, FIFO inside a group.
pub(crate) struct FreqBuckets {
    groups: BTreeMap<u64, Group>,
    prev: Vec<u32>,
    next: Vec<u32>,
    key: Vec<u64>,
    member: Vec<bool>,
    len: usize,
}

impl FreqBuckets {
    /// No block in any group.
    pub(crate) fn new(universe: usize) -> Self {
        FreqBuckets {
            groups: BTreeMap::new(),
            prev: vec![NIL; universe],
            next: vec![NIL; universe],
            key: vec![0; universe],
            member: vec![false; universe],
            len: 0,
        }
    }

    /// The key of `b`'s group (meaningful only while `b` is a member).
    pub(crate) fn key_of(&self, b: Block) -> u64 {
        self.key[b as usize]
    }

    /// Number of blocks in all groups.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether group `key` has no block.
    pub(crate) fn group_is_empty(&self, key: u64) -> bool {
        !self.groups.contains_key(&key)
    }

    /// The smallest key with a block.
    pub(crate) fn min_key(&self) -> Option<u64> {
        self.groups.keys().next().copied()
    }

    /// The smallest key with a block in `from..=to`.
    pub(crate) fn first_key_in(&self, from: u64, to: u64) -> Option<u64> {
        if from > to {
            return None;
        }
        self.groups.range(from..=to).next().map(|(k, _)| *k)
    }

    /// Appends `b` (not a member) as the newest block of group `key`.
    pub(crate) fn push(&mut self, key: u64, b: Block) {
        debug_assert!(!self.member[b as usize]);
        let i = b as usize;
        self.member[i] = true;
        self.key[i] = key;
        self.next[i] = NIL;
        self.len += 1;
        match self.groups.get_mut(&key) {
            Some(g) => {
                self.prev[i] = g.last;
                self.next[g.last as usize] = b;
                g.last = b;
                g.len += 1;
            }
            None => {
                self.prev[i] = NIL;
                self.groups.insert(
                    key,
                    Group {
                        first: b,
                        last: b,
                        len: 1,
                    },
                );
            }
        }
    }

    /// Takes `b` out of its group; returns the group's key, `None` if `b` was in none.
    pub(crate) fn remove(&mut self, b: Block) -> Option<u64> {
        let i = b as usize;
        if !self.member[i] {
            return None;
        }
        let key = self.key[i];
        let (p, n) = (self.prev[i], self.next[i]);
        if p != NIL {
            self.next[p as usize] = n;
        }
        if n != NIL {
            self.prev[n as usize] = p;
        }
        let g = self.groups.get_mut(&key).expect("a member's group exists");
        if g.first == b {
            g.first = n;
        }
        if g.last == b {
            g.last = p;
        }
        g.len -= 1;
        if g.len == 0 {
            self.groups.remove(&key);
        }
        self.member[i] = false;
        self.prev[i] = NIL;
        self.next[i] = NIL;
        self.len -= 1;
        Some(key)
    }

    /// The blocks of group `key`, oldest first.
    pub(crate) fn iter_group(&self, key: u64) -> impl Iterator<Item = Block> + '_ {
        let mut cur = self.groups.get(&key).map_or(NIL, |g| g.first);
        std::iter::from_fn(move || {
            (cur != NIL).then(|| {
                let b = cur;
                cur = self.next[b as usize];
                b
            })
        })
    }

    /// The oldest unpinned block of group `key`, else of the groups above it in key order, else of
    /// the groups below it: the victim with `key` as the preferred group.
    pub(crate) fn victim_from(&self, key: u64, frames: &Frames) -> Option<Block> {
        let unpinned = |k: u64| self.iter_group(k).find(|&b| !frames.is_pinned(b));
        self.groups
            .range(key..)
            .chain(self.groups.range(..key))
            .find_map(|(&k, _)| unpinned(k))
    }

    /// The newest unpinned block of group `key`, else of the groups above it, else below it: the
    /// victim when ties go to the most recent arrival (Cacheus's CR-LFU).
    pub(crate) fn newest_victim_from(&self, key: u64, frames: &Frames) -> Option<Block> {
        let newest_unpinned = |g: &Group| {
            let mut cur = g.last;
            while cur != NIL {
                if !frames.is_pinned(cur) {
                    return Some(cur);
                }
                cur = self.prev[cur as usize];
            }
            None
        };
        self.groups
            .range(key..)
            .chain(self.groups.range(..key))
            .find_map(|(_, g)| newest_unpinned(g))
    }

    /// Every member, by key then age.
    pub(crate) fn iter(&self) -> impl Iterator<Item = Block> + '_ {
        self.groups.keys().flat_map(move |&k| self.iter_group(k))
    }

    /// Checks links, lengths and keys.
    pub(crate) fn check(&self) -> Result<(), String> {
        let mut total = 0;
        for (&k, g) in &self.groups {
            let members: Vec<Block> = self.iter_group(k).collect();
            if members.len() != g.len || members.last() != Some(&g.last) {
                return Err(format!(
                    "group {k}: links disagree with its length or last block"
                ));
            }
            if let Some(b) = members.iter().find(|&&b| self.key[b as usize] != k) {
                return Err(format!(
                    "block {b} is in group {k} with key {}",
                    self.key[*b as usize]
                ));
            }
            total += g.len;
        }
        if total != self.len {
            return Err(format!(
                "groups hold {total} blocks, count says {}",
                self.len
            ));
        }
        Ok(())
    }
}
