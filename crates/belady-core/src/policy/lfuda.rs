//! LFUDA, LFU with dynamic aging (Arlitt, Cherkasova, Dilley, Friedrich, Jin, "Evaluating content
//! management techniques for Web proxy caches", 2000), as libCacheSim's `LFUDA.c` computes it.
//!
//! Each resident block has an integer priority; the cache age `L` is the priority of the group the
//! last victim came from. A block enters with priority `L + 1`. The victim is the oldest block of
//! the group the age points at. libCacheSim (whose steps are followed here so that misses agree
//! exactly; `tests/python/test_xcheck_lfuda.py`) differs from the paper's `K = L + count` in how a
//! hit raises the priority and in when `L` moves:
//! - a hit adds the current age to the priority (`K += L`), where the paper recomputes `L + count`;
//!   before the first eviction `L` is 0, so a hit only makes the block its group's newest member;
//! - `L` moves up to the next non-empty group above it (looking no higher than the largest
//!   priority ever given) when its group empties, by an eviction or by a hit taking its last
//!   block away; the hit block joins its new group only after that search, so the age can pass it;
//! - an eviction first sets `L` to the victim group's priority (1 while `L` is still 0).
//!
//! libCacheSim dereferences an empty group when the group `L` names has emptied with nothing above
//! it (a one-block cache after a hit); here the victim then comes from the nearest non-empty group,
//! above first. Pinned blocks are passed over the same way.
//!
//! Prefetching: a prefetched block enters with priority `L + 1`, as a demand miss would; its first
//! demand access is its first reference, so it re-enters as the newest block of group `L + 1` at
//! that moment's age instead of having its priority raised.

use super::structures::freq_buckets::FreqBuckets;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;

/// LFU with dynamic aging, libCacheSim's rules.
pub struct LfudaPolicy {
    groups: FreqBuckets,
    /// The cache age `L` (libCacheSim's `min_freq`).
    age: u64,
    /// The largest priority ever given (bounds the search for the next age).
    max_priority: u64,
    /// The group `select_victim` took its victim for, to become the age on eviction.
    victim_group: Option<u64>,
}

impl LfudaPolicy {
    /// An empty LFUDA over block ids `0..universe`.
    pub fn new(universe: usize) -> Self {
        LfudaPolicy {
            groups: FreqBuckets::new(universe),
            age: 0,
            max_priority: 0,
            victim_group: None,
        }
    }

    /// The cache age `L`.
    pub fn age(&self) -> u64 {
        self.age
    }

    /// The priority of resident `b`.
    pub fn priority(&self, b: Block) -> u64 {
        self.groups.key_of(b)
    }

    fn enter(&mut self, b: Block, priority: u64) {
        self.max_priority = self.max_priority.max(priority);
        self.groups.push(priority, b);
    }

    /// Moves the age to the next non-empty group above it, if any (else it stays).
    fn advance_age(&mut self) {
        if let Some(k) = self
            .groups
            .first_key_in(self.age.saturating_add(1), self.max_priority)
        {
            self.age = k;
        }
    }

    /// Takes `b` out; if that empties the age's group, the age moves on.
    fn leave(&mut self, b: Block) {
        if let Some(k) = self.groups.remove(b) {
            if k == self.age && self.groups.group_is_empty(k) {
                self.advance_age();
            }
        }
    }
}

impl Policy for LfudaPolicy {
    fn name(&self) -> &'static str {
        "lfuda"
    }

    #[inline]
    fn hint(&self, b: Block) {
        self.groups.hint(b);
    }

    fn on_hit(&mut self, b: Block, cx: &Access) {
        if cx.first_use {
            self.leave(b);
            self.enter(b, self.age.saturating_add(1));
            return;
        }
        // Saturating: libCacheSim's int64 would wrap; a saturated priority stays the largest.
        let raised = self.priority(b).saturating_add(self.age);
        // libCacheSim raises the bound before the search, and the block joins its group after it.
        self.max_priority = self.max_priority.max(raised);
        self.leave(b);
        self.enter(b, raised);
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        let group = self.age.max(1);
        let victim = self.groups.victim_from(group, frames)?;
        self.victim_group = Some(group);
        Some(victim)
    }

    fn forget_victim(&mut self) {
        self.victim_group = None;
    }

    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        match self.victim_group.take() {
            Some(group) => {
                self.age = group;
                self.groups.remove(b);
                if self.groups.group_is_empty(group) {
                    self.advance_age();
                }
            }
            // Taken out by the hierarchy, not chosen as a victim: a plain removal.
            None => self.leave(b),
        }
    }

    fn on_insert(&mut self, b: Block, _kind: InsertKind, _cx: &Access) {
        self.enter(b, self.age.saturating_add(1));
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    fn len(&self) -> usize {
        self.groups.len()
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.groups.check()?;
        check_same_residents(self.groups.iter(), frames)?;
        if let Some(b) = self
            .groups
            .iter()
            .find(|&b| self.priority(b) > self.max_priority)
        {
            return Err(format!(
                "block {b} has priority {} above the recorded largest {}",
                self.priority(b),
                self.max_priority
            ));
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        vec![("by_priority_then_age", self.groups.iter().collect())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testutil::{pattern, run};

    #[test]
    fn hits_before_the_first_eviction_only_reorder() {
        // cap 2: 1 2 enter at priority 1 (age 0); 1 hits: priority stays 1, 1 becomes newest.
        // 3 evicts 2, the oldest of group 1, and the age becomes 1; 3 enters at 2.
        let level = run(LfudaPolicy::new(5), 2, &[1, 2, 1, 3]);
        assert_eq!(level.policy.priority(1), 1);
        assert_eq!(level.policy.priority(3), 2);
        assert_eq!(level.policy.age(), 1);
        assert_eq!(level.policy.dump()[0].1, vec![1, 3]);
    }

    #[test]
    fn a_hit_adds_the_age() {
        // Continuing: 3 hits and gets 2 + age 1 = 3. 4 evicts 1 (group 1); group 1 empties and
        // the age moves to the next non-empty group, 3. 4 enters at 4.
        let refs = [1, 2, 1, 3, 3, 4, 1];
        let level = run(LfudaPolicy::new(5), 2, &refs[..6]);
        assert_eq!(level.policy.priority(3), 3);
        assert_eq!(level.policy.age(), 3);
        assert_eq!(level.policy.priority(4), 4);
        assert_eq!(pattern(|| LfudaPolicy::new(5), 2, &refs), "mmhmhmm");
    }

    #[test]
    fn a_hit_that_empties_the_age_group_moves_the_age() {
        // cap 3, one eviction first so the age is 1: 1 2 3, 4 (evicts 1; age 1; 4 at 2).
        // 2 and 3 hit (1 + age 1 = 2 each): group 1 empties on 3's hit, and the search finds
        // group 2 (4 and 2 are there), so the age becomes 2.
        let level = run(LfudaPolicy::new(6), 3, &[1, 2, 3, 4, 2, 3]);
        assert_eq!(level.policy.age(), 2);
        assert_eq!(level.policy.priority(2), 2);
        assert_eq!(level.policy.priority(3), 2);
    }

    #[test]
    fn a_first_use_re_enters_at_the_current_age() {
        // cap 2: 1 2, 3 evicts 1 (age 1). 4 is prefetched (evicts 2, age 1 -> priority 2); its
        // first use re-enters it at age + 1 = 2, not 2 + age.
        let mut level = crate::cache::level::CacheLevel::new(LfudaPolicy::new(6), 2, 6);
        for b in [1, 2, 3] {
            level.access(b, crate::policy::NEVER);
        }
        level.prefetch(4, crate::policy::NEVER);
        let age = level.policy.age();
        level.access(4, crate::policy::NEVER);
        assert_eq!(level.policy.priority(4), age + 1);
        level.check().unwrap();
    }
}
