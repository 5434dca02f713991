//! libCacheSim's byte-based LIRS (`libCacheSim/cache/eviction/LIRS.c`, libcachesim 0.3.5), as
//! a reference model of that simulator's behaviour, apart from the paper's LIRS
//! ([`crate::policy::lirs`]), which keeps refusing byte capacities. `--preset libcachesim`
//! builds it for a level that weighs objects.
//!
//! libCacheSim builds LIRS from three LRU caches, each with its own hash table, so one object
//! can have a separate copy, with its own flags and size, in each:
//! - S (the stack), copies flagged LIR or HIR and resident or not;
//! - Q (the resident HIR queue), copies always flagged resident;
//! - NH, the non-resident S entries in the order they became non-resident.
//!
//! Its counts: `lirs` (bytes of LIR copies in S), `hirs` (bytes of Q's copies), with
//! `Lhirs = max(1, floor(0.01 c))` bytes and `Llirs = c - Lhirs`. Its used room is `lirs + hirs`.
//! An object is a hit when its S copy is LIR or resident, or when it has no S copy but a Q copy.
//! - LIR hit: to the top of S, then prune (HIR copies leave S's bottom; a non-resident one also
//!   leaves NH).
//! - Resident HIR hit with an S copy: its Q copy leaves; while `lirs + size > Llirs` the bottom
//!   LIR copy is demoted ("evictLIR", below); then it is LIR.
//! - Resident HIR hit without an S copy: first the same demotions, then a new resident HIR copy
//!   on top of S; the Q copy stays.
//! - evictLIR: S's bottom copy leaves S; if it is at most `Lhirs` bytes, Q's LRU copies are
//!   evicted ("evictHIR") until it fits in Q and it enters Q's MRU end, else it leaves the cache.
//!   Then prune.
//! - evictHIR: Q's LRU copy leaves the cache; an S copy of it becomes non-resident and enters NH.
//! - Miss on an object with a non-resident S copy: demotions while `lirs + size > Llirs` (with the
//!   S copy's size), then while `lirs + hirs + request size > c`: evictHIR while `hirs >= Lhirs`,
//!   then one evictLIR. The object becomes LIR with the size its S copy has.
//! - Miss on any other object: refused when larger than `Llirs` or `Lhirs` (objects over 1 % of
//!   the cache never enter); when both `lirs + size > Llirs` and `hirs + size > Lhirs`, evictHIR
//!   until it fits in Q. It enters as LIR if `lirs + size <= Llirs`, else as resident HIR on top
//!   of S and at Q's MRU end.
//! - After every request, while S's copies weigh more than `2c` bytes, the oldest NH entries
//!   leave S and NH.
//!
//! Two consequences the model keeps, because libcachesim counts them:
//! - **Evictions during a hit.** The demotions on a resident HIR hit can evict other objects;
//!   the model queues them ([`Pending::Evict`]) and the level evicts them after the hit.
//! - **A hit on an object whose bytes left.** On a hit to an object with only a Q copy, the
//!   demotions can evict that very Q copy (Q holds a few objects: `Lhirs` is 1 % of the cache).
//!   libCacheSim then still pushes its new resident HIR copy on S: the object is no longer in its
//!   used room but is a hit on every later request, until its next hit makes it LIR again (its
//!   bytes count again, after demotions make room) or pruning drops its S copy (then it is gone).
//!   The model keeps such an object resident in the frame table weighing 0 bytes
//!   ([`Pending::Weigh`]), so the level's used room stays libCacheSim's.
//!
//! A missed object with a non-resident S copy re-enters with that copy's size even when the
//! request names another; the model reweighs it after insertion, and the level may then hold up
//! to that difference more than its capacity until its next miss makes room, as libCacheSim does.

use std::collections::VecDeque;

use crate::cache::frames::Frames;
use crate::policy::structures::list::Lists;
use crate::policy::{check_same_residents, Access, Block, Evicted, InsertKind, Pending, Policy};

const LIR: u8 = 1;
const RESIDENT: u8 = 2;

/// Which structure a copy is in, to follow one freed copy's memory (see [`Reused`]).
#[derive(Copy, Clone, PartialEq, Eq)]
enum Copy {
    S,
    Q,
    Nh,
}

/// The memory of the Q copy whose hit is being served, followed through frees and allocations
/// while that hit demotes LIR copies: libCacheSim's loop keeps reading the size field there after
/// the copy is evicted and freed. Allocation is taken as last-freed-first-reused (glibc's
/// per-size cache), so the next copy allocated after the frees on top of it lands there.
struct Reused {
    /// The copy living there, or `None` while it is free.
    holder: Option<(Copy, Block)>,
    /// Frees since it was freed (copies above it on the free list).
    depth: u32,
    /// The size field there.
    size: u32,
}

/// libCacheSim's byte-based LIRS (see the module doc).
pub struct LibcachesimLirs {
    /// Stack S, Q and NH, each a one-list `Lists` (an object can be on all three).
    s: Lists,
    q: Lists,
    nh: Lists,
    /// Flags of each object's S copy.
    s_flags: Vec<u8>,
    /// Size of each object's S copy and Q copy.
    s_size: Vec<u32>,
    q_size: Vec<u32>,
    /// Bytes of LIR copies, of Q's copies and of all S copies.
    lirs: u64,
    hirs: u64,
    s_bytes: u64,
    lirs_limit: u64,
    hirs_limit: u64,
    capacity: u64,
    /// The object whose hit is being served (its Q copy evicted makes it weigh nothing).
    hitting: Option<Block>,
    /// While `hitting` is set: the memory its Q copy occupied.
    reused: Option<Reused>,
    pending: VecDeque<Pending>,
}

impl LibcachesimLirs {
    /// A cache of `capacity` bytes over objects `0..universe`.
    pub fn new(capacity: usize, universe: usize) -> Self {
        let capacity = capacity as u64;
        let hirs_limit = ((0.01 * capacity as f64) as u64).max(1);
        LibcachesimLirs {
            s: Lists::new(1, universe),
            q: Lists::new(1, universe),
            nh: Lists::new(1, universe),
            s_flags: vec![0; universe],
            s_size: vec![0; universe],
            q_size: vec![0; universe],
            lirs: 0,
            hirs: 0,
            s_bytes: 0,
            lirs_limit: capacity.saturating_sub(hirs_limit),
            hirs_limit,
            capacity,
            hitting: None,
            reused: None,
            pending: VecDeque::new(),
        }
    }

    fn is_lir(&self, b: Block) -> bool {
        self.s.contains(0, b) && self.s_flags[b as usize] & LIR != 0
    }

    /// A hit in libCacheSim's terms.
    fn is_hit(&self, b: Block) -> bool {
        if self.s.contains(0, b) {
            self.s_flags[b as usize] & (LIR | RESIDENT) != 0
        } else {
            self.q.contains(0, b)
        }
    }

    /// Weighs nothing in libCacheSim's used room although it is a hit (see the module doc).
    fn is_weightless(&self, b: Block) -> bool {
        self.s.contains(0, b) && self.s_flags[b as usize] == RESIDENT && !self.q.contains(0, b)
    }

    /// A copy is freed (for [`Reused`]).
    fn freed(&mut self, copy: Copy, b: Block) {
        if let Some(r) = &mut self.reused {
            if r.holder == Some((copy, b)) {
                r.holder = None;
                r.depth = 0;
            } else if r.holder.is_none() {
                r.depth += 1;
            }
        }
    }

    /// A copy is allocated (for [`Reused`]).
    fn allocated(&mut self, copy: Copy, b: Block, size: u32) {
        if let Some(r) = &mut self.reused {
            if r.holder.is_none() {
                if r.depth == 0 {
                    r.holder = Some((copy, b));
                    r.size = size;
                } else {
                    r.depth -= 1;
                }
            }
        }
    }

    fn push_s(&mut self, b: Block, flags: u8, size: u32) {
        self.s.push_front(0, b);
        self.s_flags[b as usize] = flags;
        self.s_size[b as usize] = size;
        self.s_bytes += size as u64;
    }

    fn unlink_s(&mut self, b: Block) {
        if self.s.remove(b).is_some() {
            self.s_bytes -= self.s_size[b as usize] as u64;
            self.s_flags[b as usize] = 0;
            self.freed(Copy::S, b);
        }
    }

    /// S's bottom HIR copies leave S (a non-resident one leaves NH too), up to the top copy.
    fn prune(&mut self) {
        while let Some(b) = self.s.back(0) {
            if Some(b) == self.s.front(0) || self.s_flags[b as usize] & LIR != 0 {
                break;
            }
            let flags = self.s_flags[b as usize];
            if flags & RESIDENT == 0 && self.nh.remove(b).is_some() {
                self.freed(Copy::Nh, b);
            }
            let weightless = self.is_weightless(b);
            self.unlink_s(b);
            if weightless {
                // Its only trace was this copy: it leaves the cache.
                self.pending.push_back(Pending::Evict(b));
            }
        }
    }

    /// Q's LRU copy leaves the cache.
    fn evict_hir(&mut self) {
        let Some(b) = self.q.pop_back(0) else { return };
        self.hirs -= self.q_size[b as usize] as u64;
        self.freed(Copy::Q, b);
        if self.s.contains(0, b) {
            self.s_flags[b as usize] &= !RESIDENT;
            if !self.nh.contains(0, b) {
                self.nh.push_front(0, b);
                self.allocated(Copy::Nh, b, self.q_size[b as usize]);
            }
        }
        if self.hitting == Some(b) {
            self.pending.push_back(Pending::Weigh(b, 0));
        } else {
            self.pending.push_back(Pending::Evict(b));
        }
    }

    /// S's bottom copy leaves S, into Q when it fits there, else out of the cache; then prune.
    fn evict_lir(&mut self) {
        let Some(b) = self.s.back(0) else { return };
        let size = self.s_size[b as usize];
        debug_assert!(self.s_flags[b as usize] & LIR != 0, "S's bottom is LIR");
        self.lirs -= size as u64;
        self.unlink_s(b);
        if size as u64 <= self.hirs_limit {
            while self.hirs + size as u64 > self.hirs_limit && !self.q.is_empty(0) {
                self.evict_hir();
            }
            self.q.push_front(0, b);
            self.q_size[b as usize] = size;
            self.hirs += size as u64;
            self.allocated(Copy::Q, b, size);
        } else {
            self.pending.push_back(Pending::Evict(b));
        }
        self.prune();
    }

    /// Demotes S's bottom LIR copies while `lirs + size` exceeds `Llirs`, never `keep`'s own copy.
    fn demote_until(&mut self, size: u32, keep: Block) {
        while self.lirs + size as u64 > self.lirs_limit {
            match self.s.back(0) {
                Some(bottom) if bottom != keep => self.evict_lir(),
                _ => break,
            }
        }
    }

    /// While S's copies weigh more than `2c`, the oldest non-resident entries leave S and NH.
    fn limit_stack(&mut self) {
        while self.s_bytes > 2 * self.capacity {
            let Some(b) = self.nh.pop_back(0) else { break };
            self.unlink_s(b);
        }
    }

    /// libCacheSim's lookup of a missed object: its S copy moves to the top.
    fn promote(&mut self, b: Block) {
        if self.s.contains(0, b) {
            self.s.move_to_front(0, b);
        }
    }

    /// Takes `b` out of every structure (an eviction the model did not ask for).
    fn forget(&mut self, b: Block) {
        if self.is_lir(b) {
            self.lirs -= self.s_size[b as usize] as u64;
        }
        if self.q.remove(b).is_some() {
            self.hirs -= self.q_size[b as usize] as u64;
        }
        self.nh.remove(b);
        self.unlink_s(b);
        self.prune();
    }
}

impl Policy for LibcachesimLirs {
    fn name(&self) -> &'static str {
        "lirs"
    }

    fn on_hit(&mut self, b: Block, _cx: &Access) {
        let in_s = self.s.contains(0, b);
        let in_q = self.q.contains(0, b);
        if in_s {
            self.s.move_to_front(0, b);
        }
        if in_q {
            self.q.move_to_front(0, b);
        }
        if in_s && self.s_flags[b as usize] & LIR != 0 {
            self.prune();
        } else if in_s {
            // A resident HIR copy in S: its Q copy leaves, room is made, it becomes LIR.
            debug_assert!(self.s_flags[b as usize] & RESIDENT != 0);
            let size = self.s_size[b as usize];
            if in_q {
                self.hirs -= self.q_size[b as usize] as u64;
                self.q.remove(b);
            }
            self.demote_until(size, b);
            self.s_flags[b as usize] |= LIR;
            self.lirs += size as u64;
            if !in_q || self.q_size[b as usize] != size {
                self.pending.push_back(Pending::Weigh(b, size));
            }
        } else {
            // Only a Q copy: room is made for it among the LIR copies (which can evict that Q
            // copy), then it gets a resident HIR copy on top of S.
            debug_assert!(in_q);
            let size = self.q_size[b as usize];
            self.hitting = Some(b);
            self.reused = Some(Reused {
                holder: Some((Copy::Q, b)),
                depth: 0,
                size,
            });
            // libCacheSim reads the loop's size from the Q copy's memory, also once it is freed.
            while let Some(r) = &self.reused {
                if self.lirs + r.size as u64 <= self.lirs_limit {
                    break;
                }
                match self.s.back(0) {
                    Some(bottom) if bottom != b => self.evict_lir(),
                    _ => break,
                }
            }
            self.reused = None;
            self.hitting = None;
            self.push_s(b, RESIDENT, size);
        }
        self.limit_stack();
    }

    fn before_insert(&mut self, b: Block, _frames: &Frames, cx: &Access) -> bool {
        self.promote(b);
        let in_s = self.s.contains(0, b);
        if in_s {
            // A non-resident HIR copy: room among the LIR copies for the size it had.
            debug_assert!(self.s_flags[b as usize] == 0);
            self.demote_until(self.s_size[b as usize], b);
            self.nh.remove(b);
        } else {
            if cx.size > self.lirs_limit || cx.size > self.hirs_limit {
                self.limit_stack();
                return false;
            }
            if self.lirs + cx.size > self.lirs_limit && self.hirs + cx.size > self.hirs_limit {
                while self.hirs + cx.size > self.hirs_limit && !self.q.is_empty(0) {
                    self.evict_hir();
                }
            }
        }
        // libCacheSim's eviction loop, with the request's size.
        while self.lirs + self.hirs + cx.size > self.capacity {
            let before = (self.lirs, self.hirs, self.s.len(0), self.q.len(0));
            if in_s {
                while self.hirs >= self.hirs_limit && !self.q.is_empty(0) {
                    self.evict_hir();
                }
                if self.s.back(0) != Some(b) {
                    self.evict_lir();
                }
            } else if self.lirs + cx.size > self.lirs_limit && self.hirs + cx.size > self.hirs_limit
            {
                self.evict_hir();
            }
            if before == (self.lirs, self.hirs, self.s.len(0), self.q.len(0)) {
                // libCacheSim would loop for ever here; the level's own eviction takes over.
                break;
            }
        }
        true
    }

    fn select_victim(&mut self, incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        // Only reached when the model's own room-making fell short (or for an admission
        // filter's look): Q's LRU copy, else the bottom LIR copy.
        let free = |b: Block| b != incoming && frames.is_resident(b) && !frames.is_pinned(b);
        let mut at = self.q.back(0);
        while let Some(b) = at {
            if free(b) {
                return Some(b);
            }
            at = self.q.toward_front(b);
        }
        let mut at = self.s.back(0);
        while let Some(b) = at {
            if free(b) && self.is_hit(b) {
                return Some(b);
            }
            at = self.s.toward_front(b);
        }
        None
    }

    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        // Evictions the model queued are already out of its structures.
        if self.is_hit(b) {
            self.forget(b);
        }
    }

    fn on_insert(&mut self, b: Block, _kind: InsertKind, cx: &Access) {
        if self.s.contains(0, b) {
            // The non-resident S copy becomes LIR with its own size.
            let size = self.s_size[b as usize];
            self.s_flags[b as usize] = LIR | RESIDENT;
            self.lirs += size as u64;
            if size as u64 != cx.size {
                self.pending.push_back(Pending::Weigh(b, size));
            }
        } else {
            let size = cx.size as u32;
            if self.lirs + cx.size <= self.lirs_limit {
                self.push_s(b, LIR | RESIDENT, size);
                self.lirs += cx.size;
            } else {
                self.push_s(b, RESIDENT, size);
                self.q.push_front(0, b);
                self.q_size[b as usize] = size;
                self.hirs += cx.size;
            }
        }
        self.limit_stack();
    }

    fn on_unplaced_miss(&mut self, b: Block, _cx: &Access) {
        self.promote(b);
        self.limit_stack();
    }

    fn take_pending(&mut self) -> Option<Pending> {
        self.pending.pop_front()
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    fn len(&self) -> usize {
        self.q.len(0)
            + self
                .s
                .iter(0)
                .filter(|&b| self.is_lir(b) || self.is_weightless(b))
                .count()
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.s.check()?;
        self.q.check()?;
        self.nh.check()?;
        let residents = self
            .s
            .iter(0)
            .filter(|&b| self.is_lir(b) || self.is_weightless(b))
            .chain(self.q.iter(0));
        check_same_residents(residents, frames)?;
        let lirs: u64 = self
            .s
            .iter(0)
            .filter(|&b| self.is_lir(b))
            .map(|b| self.s_size[b as usize] as u64)
            .sum();
        let hirs: u64 = self.q.iter(0).map(|b| self.q_size[b as usize] as u64).sum();
        let s_bytes: u64 = self.s.iter(0).map(|b| self.s_size[b as usize] as u64).sum();
        if (lirs, hirs, s_bytes) != (self.lirs, self.hirs, self.s_bytes) {
            return Err(format!(
                "counts (lir {}, hir {}, S {}) differ from the lists' ({lirs}, {hirs}, {s_bytes})",
                self.lirs, self.hirs, self.s_bytes
            ));
        }
        if frames.is_weighted() && frames.used() != lirs + hirs {
            return Err(format!(
                "frame table uses {} bytes, libCacheSim's count is {}",
                frames.used(),
                lirs + hirs
            ));
        }
        if let Some(b) = self.nh.iter(0).find(|&b| self.s_flags[b as usize] != 0) {
            return Err(format!(
                "NH holds {b}, whose S copy is not non-resident HIR"
            ));
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        vec![
            ("S", self.s.iter(0).collect()),
            ("Q", self.q.iter(0).collect()),
            ("NH", self.nh.iter(0).collect()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::{CacheLevel, Outcome, NO_ORACLE};

    /// A 200-byte cache: `Lhirs` = 2 bytes, `Llirs` = 198.
    fn level() -> CacheLevel<LibcachesimLirs> {
        CacheLevel::weighted(LibcachesimLirs::new(200, 128), 200, 128)
    }

    fn access(level: &mut CacheLevel<LibcachesimLirs>, b: Block, size: u32) -> Outcome {
        let outcome = level.access_sized(b, size, NO_ORACLE);
        level.check().unwrap_or_else(|e| panic!("after {b}: {e}"));
        outcome
    }

    #[test]
    fn objects_over_one_percent_never_enter_though_they_fit() {
        let mut level = level();
        assert_eq!(access(&mut level, 1, 3), Outcome::Bypass);
        assert_eq!(access(&mut level, 1, 2), Outcome::Miss);
        let s = level.stats();
        assert_eq!((s.misses, s.rejected, s.evictions), (2, 1, 0));
    }

    #[test]
    fn a_hit_can_free_the_bytes_of_the_object_hit_and_later_requests_still_hit() {
        let mut level = level();
        // 99 LIR objects of 2 bytes fill Llirs; 100 enters as resident HIR (S and Q).
        for b in 0..99 {
            assert_eq!(access(&mut level, b, 2), Outcome::Miss);
        }
        assert_eq!(access(&mut level, 100, 2), Outcome::Miss);
        assert_eq!(level.policy.dump()[1], ("Q", vec![100]));
        // Re-referencing every LIR object prunes 100's S copy: it stays in Q only.
        for b in 0..99 {
            assert_eq!(access(&mut level, b, 2), Outcome::Hit);
        }
        assert!(!level.policy.dump()[0].1.contains(&100));
        // A hit on 100 demotes the bottom LIR object 0 into Q, whose 2 bytes need 100's own
        // Q copy out: libCacheSim counts the hit, then keeps a resident copy of 100 in S
        // outside its used room.
        assert_eq!(access(&mut level, 100, 2), Outcome::Hit);
        assert!(level.frames().is_resident(100));
        assert_eq!(level.frames().weight(100), 0);
        assert_eq!(level.policy.dump()[1], ("Q", vec![0]));
        assert_eq!(level.frames().used(), 198);
        assert_eq!(level.stats().evictions, 0);
        // Its next request is a hit again, and makes it LIR with its bytes counted.
        assert_eq!(access(&mut level, 100, 2), Outcome::Hit);
        assert_eq!(level.frames().weight(100), 2);
        assert_eq!(level.frames().used(), 200);
    }

    #[test]
    fn a_hit_evicts_through_the_level() {
        let mut level = level();
        for b in 0..99 {
            access(&mut level, b, 2);
        }
        // Two 1-byte objects enter as resident HIR and fill Q's 2 bytes.
        access(&mut level, 100, 1);
        access(&mut level, 101, 1);
        assert_eq!(level.policy.dump()[1], ("Q", vec![101, 100]));
        // A hit on 101 (in S and Q) makes it LIR; the bottom LIR object 0 (2 bytes) is demoted
        // into Q, which evicts 100 during the hit.
        assert_eq!(access(&mut level, 101, 1), Outcome::Hit);
        assert!(!level.frames().is_resident(100));
        assert_eq!(level.policy.dump()[1], ("Q", vec![0]));
        assert_eq!(level.stats().evictions, 1);
        assert_eq!(level.last_victim().map(|v| v.block), Some(100));
        assert_eq!(access(&mut level, 100, 1), Outcome::Miss);
    }

    #[test]
    fn random_sized_references_keep_libcachesims_counts_in_the_frame_table() {
        let mut x: u64 = 11;
        let capacity = 5000;
        let mut level = CacheLevel::weighted(LibcachesimLirs::new(capacity, 512), capacity, 512);
        let mut hits = 0;
        for i in 0..40_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Skewed ids: small ids are popular.
            let r = (x >> 33) % 512;
            let b = (r * r / 512) as Block;
            // Sizes fixed per object but for every 20th request.
            let size = if (x >> 20) % 20 == 0 {
                1 + (x >> 40) % 60
            } else {
                1 + (b as u64 * 7) % 55
            };
            if level.access_sized(b, size as u32, NO_ORACLE) == Outcome::Hit {
                hits += 1;
            }
            level
                .check()
                .unwrap_or_else(|e| panic!("request {i} ({b}, {size}): {e}"));
        }
        assert!(hits > 1000 && level.stats().evictions > 1000, "{hits}");
    }
}
