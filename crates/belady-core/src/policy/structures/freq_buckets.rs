//! Blocks grouped by an integer key (a reference count, an LFUDA priority), each group a FIFO in
//! the order blocks joined it: the structure LFU and LFUDA evict from (the oldest block of the
//! smallest key goes first, as libCacheSim's frequency nodes do).
//!
//! The non-empty groups form a doubly linked list in key order (the classic O(1) LFU layout), and
//! a hash map finds a group by its key. A new group is linked in by walking the list from a hint:
//! the place of the group the last removed block left, so an LFU count moving from `c` to `c + 1`
//! costs one step, and an entry at the smallest or above the largest key costs none. Blocks are
//! linked inside their group through dense per-block arrays; group slots are reused, so nothing
//! is allocated per access once the cache is warm.

use crate::cache::frames::Frames;
use crate::policy::Block;
use rustc_hash::FxHashMap;

const NIL: u32 = u32::MAX;

/// One non-empty group: its key, first and last block, size, and its neighbours in key order.
#[derive(Copy, Clone, Debug)]
struct Group {
    key: u64,
    first: Block,
    last: Block,
    /// 0 marks a free slot.
    len: usize,
    lower: u32,
    higher: u32,
}

/// Blocks `0..universe` grouped by key, FIFO inside a group.
pub(crate) struct FreqBuckets {
    groups: Vec<Group>,
    free_groups: Vec<u32>,
    by_key: FxHashMap<u64, u32>,
    /// The group with the smallest key, and the one with the largest.
    head: u32,
    tail: u32,
    /// Where the last removal happened, as adjacent groups `(lower, higher)` (either may be NIL
    /// for an end): where the walk for a new group starts. Checked before use.
    hint: (u32, u32),
    prev: Vec<u32>,
    next: Vec<u32>,
    /// Each block's group slot, NIL when the block is in none.
    group_of: Vec<u32>,
    len: usize,
}

impl FreqBuckets {
    /// No block in any group.
    pub(crate) fn new(universe: usize) -> Self {
        FreqBuckets {
            groups: Vec::new(),
            free_groups: Vec::new(),
            by_key: FxHashMap::default(),
            head: NIL,
            tail: NIL,
            hint: (NIL, NIL),
            prev: vec![NIL; universe],
            next: vec![NIL; universe],
            group_of: vec![NIL; universe],
            len: 0,
        }
    }

    /// Asks the CPU to bring `b`'s links and group slot in (a hint; no effect on results).
    #[inline]
    pub(crate) fn hint(&self, b: Block) {
        crate::cache::frames::prefetch(self.prev.as_ptr().wrapping_add(b as usize) as *const u8);
        crate::cache::frames::prefetch(self.next.as_ptr().wrapping_add(b as usize) as *const u8);
        crate::cache::frames::prefetch(self.group_of.as_ptr().wrapping_add(b as usize) as *const u8);
    }

    /// The key of `b`'s group (meaningful only while `b` is a member).
    pub(crate) fn key_of(&self, b: Block) -> u64 {
        match self.group_of[b as usize] {
            NIL => 0,
            g => self.groups[g as usize].key,
        }
    }

    /// Number of blocks in all groups.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether group `key` has no block.
    pub(crate) fn group_is_empty(&self, key: u64) -> bool {
        !self.by_key.contains_key(&key)
    }

    /// The smallest key with a block.
    pub(crate) fn min_key(&self) -> Option<u64> {
        (self.head != NIL).then(|| self.groups[self.head as usize].key)
    }

    /// The first group (in key order) whose key is at least `key`, NIL if none.
    fn first_group_from(&self, key: u64) -> u32 {
        let mut g = self.head;
        while g != NIL && self.groups[g as usize].key < key {
            g = self.groups[g as usize].higher;
        }
        g
    }

    /// The smallest key with a block in `from..=to`.
    pub(crate) fn first_key_in(&self, from: u64, to: u64) -> Option<u64> {
        if from > to {
            return None;
        }
        let g = self.first_group_from(from);
        (g != NIL)
            .then(|| self.groups[g as usize].key)
            .filter(|&k| k <= to)
    }

    /// Whether `(lower, higher)` are adjacent live groups (NIL standing for an end of the list).
    fn is_gap(&self, (lower, higher): (u32, u32)) -> bool {
        let live = |g: u32| (g as usize) < self.groups.len() && self.groups[g as usize].len > 0;
        let lower_ok = if lower == NIL {
            self.head == higher
        } else {
            live(lower) && self.groups[lower as usize].higher == higher
        };
        let higher_ok = if higher == NIL {
            self.tail == lower
        } else {
            live(higher) && self.groups[higher as usize].lower == lower
        };
        lower_ok && higher_ok
    }

    /// Creates the empty-yet group `key` (absent) in its place in key order; returns its slot.
    fn new_group(&mut self, key: u64) -> u32 {
        let key_at = |s: &Self, g: u32| s.groups[g as usize].key;
        let (mut lower, mut higher) = if self.head == NIL {
            (NIL, NIL)
        } else if key < key_at(self, self.head) {
            (NIL, self.head)
        } else if key > key_at(self, self.tail) {
            (self.tail, NIL)
        } else if self.is_gap(self.hint) {
            self.hint
        } else {
            (NIL, self.head)
        };
        while higher != NIL && key_at(self, higher) < key {
            lower = higher;
            higher = self.groups[higher as usize].higher;
        }
        while lower != NIL && key_at(self, lower) > key {
            higher = lower;
            lower = self.groups[lower as usize].lower;
        }
        let group = Group {
            key,
            first: NIL,
            last: NIL,
            len: 0,
            lower,
            higher,
        };
        let slot = match self.free_groups.pop() {
            Some(s) => {
                self.groups[s as usize] = group;
                s
            }
            None => {
                self.groups.push(group);
                u32::try_from(self.groups.len() - 1).expect("fewer groups than blocks")
            }
        };
        match lower {
            NIL => self.head = slot,
            l => self.groups[l as usize].higher = slot,
        }
        match higher {
            NIL => self.tail = slot,
            h => self.groups[h as usize].lower = slot,
        }
        self.by_key.insert(key, slot);
        slot
    }

    /// Appends `b` (not a member) as the newest block of group `key`.
    pub(crate) fn push(&mut self, key: u64, b: Block) {
        let i = b as usize;
        debug_assert_eq!(self.group_of[i], NIL);
        let slot = match self.by_key.get(&key) {
            Some(&s) => s,
            None => self.new_group(key),
        };
        let g = &mut self.groups[slot as usize];
        self.prev[i] = g.last;
        self.next[i] = NIL;
        if g.last == NIL {
            g.first = b;
        } else {
            self.next[g.last as usize] = b;
        }
        g.last = b;
        g.len += 1;
        self.group_of[i] = slot;
        self.len += 1;
    }

    /// Takes `b` out of its group; returns the group's key, `None` if `b` was in none.
    pub(crate) fn remove(&mut self, b: Block) -> Option<u64> {
        let i = b as usize;
        let slot = self.group_of[i];
        if slot == NIL {
            return None;
        }
        let (p, n) = (self.prev[i], self.next[i]);
        if p != NIL {
            self.next[p as usize] = n;
        }
        if n != NIL {
            self.prev[n as usize] = p;
        }
        let g = &mut self.groups[slot as usize];
        let key = g.key;
        if g.first == b {
            g.first = n;
        }
        if g.last == b {
            g.last = p;
        }
        g.len -= 1;
        if g.len == 0 {
            let (lower, higher) = (g.lower, g.higher);
            match lower {
                NIL => self.head = higher,
                l => self.groups[l as usize].higher = higher,
            }
            match higher {
                NIL => self.tail = lower,
                h => self.groups[h as usize].lower = lower,
            }
            self.by_key.remove(&key);
            self.free_groups.push(slot);
            self.hint = (lower, higher);
        } else {
            self.hint = (g.lower, slot);
        }
        self.group_of[i] = NIL;
        self.prev[i] = NIL;
        self.next[i] = NIL;
        self.len -= 1;
        Some(key)
    }

    /// The blocks of group slot `g`, oldest first.
    fn iter_slot(&self, g: u32) -> impl Iterator<Item = Block> + '_ {
        let mut cur = if g == NIL {
            NIL
        } else {
            self.groups[g as usize].first
        };
        std::iter::from_fn(move || {
            (cur != NIL).then(|| {
                let b = cur;
                cur = self.next[b as usize];
                b
            })
        })
    }

    /// Group slots in key order from `from` (a slot or NIL) to the largest.
    fn slots_from(&self, from: u32) -> impl Iterator<Item = u32> + '_ {
        let mut cur = from;
        std::iter::from_fn(move || {
            (cur != NIL).then(|| {
                let g = cur;
                cur = self.groups[g as usize].higher;
                g
            })
        })
    }

    /// Group slots at or above `key`, then those below it, each part in key order.
    fn slots_wrapping_from(&self, key: u64) -> impl Iterator<Item = u32> + '_ {
        let start = self.first_group_from(key);
        self.slots_from(start)
            .chain(self.slots_from(self.head).take_while(move |&g| g != start))
    }

    /// The oldest unpinned block of group `key`, else of the groups above it in key order, else of
    /// the groups below it: the victim with `key` as the preferred group.
    pub(crate) fn victim_from(&self, key: u64, frames: &Frames) -> Option<Block> {
        self.slots_wrapping_from(key)
            .find_map(|g| self.iter_slot(g).find(|&b| !frames.is_pinned(b)))
    }

    /// The newest unpinned block of group `key`, else of the groups above it, else below it: the
    /// victim when ties go to the most recent arrival (Cacheus's CR-LFU).
    pub(crate) fn newest_victim_from(&self, key: u64, frames: &Frames) -> Option<Block> {
        let newest_unpinned = |g: u32| {
            let mut cur = self.groups[g as usize].last;
            while cur != NIL {
                if !frames.is_pinned(cur) {
                    return Some(cur);
                }
                cur = self.prev[cur as usize];
            }
            None
        };
        self.slots_wrapping_from(key).find_map(newest_unpinned)
    }

    /// Every member, by key then age.
    pub(crate) fn iter(&self) -> impl Iterator<Item = Block> + '_ {
        self.slots_from(self.head)
            .flat_map(move |g| self.iter_slot(g))
    }

    /// Checks links, lengths, key order and the key index.
    pub(crate) fn check(&self) -> Result<(), String> {
        let mut total = 0;
        let mut groups = 0;
        let mut below: Option<(u32, u64)> = None;
        for g in self.slots_from(self.head) {
            let group = &self.groups[g as usize];
            let k = group.key;
            if let Some((lower, lower_key)) = below {
                if lower_key >= k || group.lower != lower {
                    return Err(format!("group {k} is linked out of key order"));
                }
            }
            if self.by_key.get(&k) != Some(&g) {
                return Err(format!("group {k} is not indexed by its key"));
            }
            let members: Vec<Block> = self.iter_slot(g).collect();
            if members.len() != group.len || members.last() != Some(&group.last) {
                return Err(format!(
                    "group {k}: links disagree with its length or last block"
                ));
            }
            if let Some(b) = members.iter().find(|&&b| self.group_of[b as usize] != g) {
                return Err(format!("block {b} is in group {k} but not recorded there"));
            }
            total += group.len;
            groups += 1;
            below = Some((g, k));
        }
        if below.map(|(g, _)| g) != (self.tail != NIL).then_some(self.tail) {
            return Err("the last group is not the recorded largest".into());
        }
        if groups != self.by_key.len() {
            return Err(format!(
                "{groups} linked groups, {} indexed",
                self.by_key.len()
            ));
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    proptest! {
        /// Any sequence of pushes at arbitrary keys and removals keeps the members in the order of
        /// a plain ordered-map model (key, then arrival), whatever place the walk starts from.
        #[test]
        fn matches_an_ordered_map_model(ops in proptest::collection::vec((0u32..12, 0u64..40), 1..300)) {
            let mut buckets = FreqBuckets::new(12);
            let mut model: BTreeMap<u64, Vec<Block>> = BTreeMap::new();
            for (b, key) in ops {
                if buckets.remove(b).is_some() {
                    for group in model.values_mut() {
                        group.retain(|&m| m != b);
                    }
                    model.retain(|_, g| !g.is_empty());
                } else {
                    buckets.push(key, b);
                    model.entry(key).or_default().push(b);
                }
                prop_assert!(buckets.check().is_ok(), "{:?}", buckets.check());
                let expected: Vec<Block> = model.values().flatten().copied().collect();
                prop_assert_eq!(buckets.iter().collect::<Vec<_>>(), expected);
                prop_assert_eq!(buckets.min_key(), model.keys().next().copied());
                prop_assert_eq!(buckets.first_key_in(10, 25), model.range(10..=25).next().map(|(k, _)| *k));
            }
        }
    }
}
