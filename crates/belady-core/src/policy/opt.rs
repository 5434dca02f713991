//! OPT (Belady's MIN): evict the resident block whose next reference is farthest away.
//!
//! Next references come from the engine's oracle (a backward pass over the trace). A missed block
//! is always inserted ("OPT with bypass" is a different policy). Ties (blocks never referenced
//! again) go to the block whose next reference was recorded earliest, as in the prefetching
//! study's simulator; the choice never changes the miss count but does change which blocks stay
//! resident, and so how misses cluster into disk requests.
//! A prefetched block enters with its true next reference time, which is MIN applied to the
//! stream of demand and prefetch insertions, as in the prefetching study; it is not the optimal
//! integrated prefetching and caching schedule.
//!
//! The max-heap keeps stale entries (lazy deletion) and is compacted when it grows past four
//! times the cache, so memory stays proportional to the cache, not to the trace.
//!
//! `ties=heap` (AccuSim, `--compat accusim`): the blocks sit in AccuSim's binary heap keyed by
//! next reference ([`StampedHeap`]), whose sifting breaks ties mostly, not strictly, by
//! insertion order (every hit re-inserts its block). Which never-again block goes first then
//! follows that heap's shape, as in the study's simulator.

use super::registry::PolicySpec;
use super::stamped_heap::StampedHeap;
use super::{Access, Block, Evicted, InsertKind, Policy, NEVER};
use crate::error::Result;
use crate::frames::Frames;
use std::collections::BinaryHeap;

const NOT_QUEUED: u64 = u64::MAX;

/// Belady's MIN replacement.
pub struct OptPolicy {
    heap: BinaryHeap<(u64, Block)>,
    key_of: Vec<u64>,
    seq: u32,
    resident: usize,
    compact_at: usize,
    pinned_aside: Vec<(u64, Block)>,
    /// `ties=heap`: AccuSim's heap replaces the lazy one.
    stamped: Option<StampedHeap>,
}

impl OptPolicy {
    /// An empty OPT for `capacity` blocks over ids `0..universe`.
    pub fn new(capacity: usize, universe: usize) -> Self {
        // No more than `universe` blocks can ever be resident: sizing by the requested capacity
        // would let `--cache-size 100TiB` ask for terabytes of heap before the first reference.
        let fill = capacity.min(universe);
        OptPolicy {
            heap: BinaryHeap::with_capacity(fill * 2),
            key_of: vec![NOT_QUEUED; universe],
            seq: 0,
            resident: 0,
            compact_at: 4 * fill + 1024,
            pinned_aside: Vec::new(),
            stamped: None,
        }
    }

    /// OPT with the parameters in `spec` (`ties`).
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> Result<Self> {
        let mut opt = OptPolicy::new(capacity, universe);
        if spec.choice("ties", &["first", "heap"])? == "heap" {
            opt.stamped = Some(StampedHeap::new(universe));
        }
        Ok(opt)
    }

    /// Heap key: next use in the high 32 bits, then the inverted enqueue order, so that among
    /// equal next uses the entry recorded first is the largest.
    #[inline]
    fn enqueue(&mut self, b: Block, next_use: u64) {
        self.seq = self.seq.wrapping_add(1);
        if self.seq == u32::MAX {
            self.renumber();
        }
        let key = (next_use.min(u32::MAX as u64) << 32) | (u32::MAX - self.seq) as u64;
        self.key_of[b as usize] = key;
        self.heap.push((key, b));
        if self.heap.len() > self.compact_at {
            let key_of = &self.key_of;
            self.heap.retain(|&(k, b)| key_of[b as usize] == k);
        }
    }

    /// Restarts the enqueue counter, keeping the live entries' relative order.
    fn renumber(&mut self) {
        let key_of = &self.key_of;
        let mut live: Vec<(u64, Block)> = self
            .heap
            .drain()
            .filter(|&(k, b)| key_of[b as usize] == k)
            .collect();
        live.sort_unstable_by_key(|&(k, _)| std::cmp::Reverse(k & 0xffff_ffff));
        for (i, (k, b)) in live.iter_mut().enumerate() {
            *k = (*k & !0xffff_ffff) | (u32::MAX - 1 - i as u32) as u64;
            self.key_of[*b as usize] = *k;
        }
        self.seq = live.len() as u32 + 1;
        self.heap.extend(live);
    }

    /// Next-use tick recorded for resident `b` ([`NEVER`] if it is not referenced again).
    pub fn next_use_of(&self, b: Block) -> Option<u64> {
        if let Some(h) = &self.stamped {
            return h.key_of(b);
        }
        let key = self.key_of[b as usize];
        (key != NOT_QUEUED).then(|| {
            let n = key >> 32;
            if n == u32::MAX as u64 {
                NEVER
            } else {
                n
            }
        })
    }
}

impl Policy for OptPolicy {
    fn name(&self) -> &'static str {
        "opt"
    }

    fn needs_oracle(&self) -> bool {
        true
    }

    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        if let Some(h) = &mut self.stamped {
            h.remove(b);
            h.insert(b, cx.next_use);
            return;
        }
        self.enqueue(b, cx.next_use);
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        if let Some(h) = &self.stamped {
            return h.top_unpinned(frames);
        }
        let mut victim = None;
        while let Some(&(key, b)) = self.heap.peek() {
            if self.key_of[b as usize] != key {
                self.heap.pop();
                continue;
            }
            if frames.is_pinned(b) {
                self.pinned_aside.push((key, b));
                self.heap.pop();
                continue;
            }
            victim = Some(b);
            break;
        }
        self.heap.extend(self.pinned_aside.drain(..));
        victim
    }

    #[inline]
    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        if let Some(h) = &mut self.stamped {
            h.remove(b);
        }
        self.key_of[b as usize] = NOT_QUEUED;
        self.resident -= 1;
    }

    #[inline]
    fn on_insert(&mut self, b: Block, _kind: InsertKind, cx: &Access) {
        self.resident += 1;
        if let Some(h) = &mut self.stamped {
            h.insert(b, cx.next_use);
            return;
        }
        self.enqueue(b, cx.next_use);
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    fn len(&self) -> usize {
        self.resident
    }

    fn check_invariants(&self, frames: &Frames) -> std::result::Result<(), String> {
        if let Some(h) = &self.stamped {
            h.check()?;
            if h.len() != self.resident || self.resident != frames.len() {
                return Err(format!(
                    "{} blocks in the heap, {} counted, {} resident in frames",
                    h.len(),
                    self.resident,
                    frames.len()
                ));
            }
            return match frames.resident_blocks().find(|&b| !h.contains(b)) {
                Some(b) => Err(format!("resident block {b} is not in the heap")),
                None => Ok(()),
            };
        }
        let queued = self.key_of.iter().filter(|&&k| k != NOT_QUEUED).count();
        if queued != self.resident || self.resident != frames.len() {
            return Err(format!(
                "{queued} blocks keyed, {} counted, {} resident in frames",
                self.resident,
                frames.len()
            ));
        }
        for b in frames.resident_blocks() {
            let key = self.key_of[b as usize];
            if key == NOT_QUEUED || !self.heap.iter().any(|&(k, x)| k == key && x == b) {
                return Err(format!("resident block {b} has no live heap entry"));
            }
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        if let Some(h) = &self.stamped {
            return vec![("farthest_first", h.by_key())];
        }
        let mut live: Vec<(u64, Block)> = self
            .heap
            .iter()
            .copied()
            .filter(|&(k, b)| self.key_of[b as usize] == k)
            .collect();
        live.sort_unstable_by(|a, b| b.cmp(a));
        vec![("farthest_first", live.into_iter().map(|(_, b)| b).collect())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testutil::{pattern, run};

    #[test]
    fn hand_worked_sequence() {
        // cap 2: 1 2 | 3 evicts 2 (next at 5, 1 next at 3) | 1 h | 2 evicts 3 (never again)
        // | 1 h | 2 h
        let refs = [1, 2, 3, 1, 2, 1, 2];
        assert_eq!(pattern(|| OptPolicy::new(2, 4), 2, &refs), "mmmhmhh");
        let mut level = crate::level::CacheLevel::new(OptPolicy::new(2, 4), 2, 4);
        for (b, next) in [(1, 3), (2, 4), (3, NEVER), (1, 5), (2, 6), (1, NEVER)] {
            level.access(b, next);
        }
        // Block 1 is never used again and goes before block 2, which waits for tick 6.
        assert_eq!(level.policy.dump()[0].1, vec![1, 2]);
        assert_eq!(level.policy.next_use_of(2), Some(6));
        assert_eq!(level.policy.next_use_of(1), Some(NEVER));
        // Never-again blocks: the one recorded first goes first.
        let mut level = crate::level::CacheLevel::new(OptPolicy::new(3, 4), 3, 4);
        for b in [2, 3, 1] {
            level.access(b, NEVER);
        }
        assert_eq!(level.policy.dump()[0].1, vec![2, 3, 1]);
    }

    #[test]
    fn heap_stays_bounded_on_long_runs() {
        let refs: Vec<u32> = (0..50_000).map(|i| (i * 7 % 13) as u32).collect();
        let level = run(OptPolicy::new(4, 13), 4, &refs[..2000]);
        assert!(level.policy.heap.len() <= level.policy.compact_at + 1);
    }

    #[test]
    fn a_cache_far_larger_than_the_trace_allocates_by_the_trace() {
        // 100 TiB of 4 KiB blocks over a 3-block universe: sized by capacity this asked for
        // hundreds of GB and aborted.
        let p = OptPolicy::new(26_843_545_600, 3);
        assert!(p.heap.capacity() < 1 << 20, "{}", p.heap.capacity());
        assert!(p.compact_at < 1 << 20);
    }
}
