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
//! The resident blocks are indexed by next use, with no heap: a never-again block joins the back
//! of one list; a block with a next use sets that position's bit in a 64-way tree of words
//! (`next_use_index.rs`) and is written at that position in a table indexed by position, so an
//! eviction reads the tree's top words and one table entry, and a hit reads the table at the
//! current position (the table is read in order as the trace advances) and writes it at the new
//! next use. Next uses are positions of references, so two resident blocks share one only when
//! the caller repeats it; such blocks wait in a chain in the order they were recorded. The table
//! costs four bytes per position up to the farthest next use seen (as much as the next-use array
//! the engine hands OPT), the tree one bit. The loop tells OPT the next use of the reference eight
//! ahead ([`Policy::hint_next_use`]), so that position's table entry and bit are in the caches
//! by the time the block is recorded there.
//!
//! AccuSim's tie order (`ties=heap`, `--compat accusim`) is a variant built by the builder:
//! `compat/accusim/opt.rs`.

use super::registry::PolicySpec;
use super::structures::next_use_index::PositionBits;
use super::{Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;
use crate::error::Result;

/// The key shared by blocks not referenced again (and next uses at or past `u32::MAX`).
const NEVER_KEY: u32 = u32::MAX;
/// No block: the end of a chain or list.
const NONE: u32 = u32::MAX;

/// A resident block's place in the index (stale for a block that is not resident). Twelve
/// bytes, so a large universe's table keeps more of itself in the caches.
#[derive(Copy, Clone)]
struct Node {
    /// Next use, [`NEVER_KEY`] for never again.
    key: u32,
    /// The block recorded before this one in the never-again list.
    earlier: u32,
    /// The block recorded after this one with the same key (never-again list or chain).
    later: u32,
}

/// Belady's MIN replacement.
pub struct OptPolicy {
    nodes: Vec<Node>,
    /// Positions that resident blocks wait for.
    positions: PositionBits,
    /// Each such position's earliest-recorded block (stale where `positions` has no bit).
    first_at: Vec<u32>,
    /// The never-again list, earliest recorded first.
    never_first: u32,
    never_last: u32,
    resident: usize,
}

impl OptPolicy {
    /// An empty OPT for `capacity` blocks over ids `0..universe`.
    pub fn new(capacity: usize, universe: usize) -> Self {
        // No more than `universe` blocks can ever be resident: sizing by the requested capacity
        // would let `--cache-size 100TiB` ask for terabytes before the first reference.
        let fill = capacity.min(universe);
        OptPolicy {
            nodes: vec![
                Node {
                    key: NEVER_KEY,
                    earlier: NONE,
                    later: NONE,
                };
                universe
            ],
            positions: PositionBits::with_bound(fill.min(1 << 20) as u32),
            first_at: vec![NONE; fill.min(1 << 20)],
            never_first: NONE,
            never_last: NONE,
            resident: 0,
        }
    }

    /// OPT with the parameters in `spec` (`ties=first`). `ties=heap` is refused here: it is
    /// AccuSim's variant's (`AccusimOpt`), which the builder makes.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> Result<Self> {
        if spec.choice("ties", &["first", "heap"])? == "heap" {
            return Err(crate::error::Error::config(
                "params",
                format!("opt.ties={}", spec.raw("ties")),
                "AccuSim's OPT (AccusimOpt) implements this value; build the policy through \
                 builder::build",
            ));
        }
        Ok(OptPolicy::new(capacity, universe))
    }

    /// Records `b` as waiting for `next_use`, after every block already waiting for it.
    #[inline]
    fn enqueue(&mut self, b: Block, next_use: u64) {
        let key = next_use.min(NEVER_KEY as u64) as u32;
        self.nodes[b as usize] = Node {
            key,
            earlier: NONE,
            later: NONE,
        };
        if key == NEVER_KEY {
            self.nodes[b as usize].earlier = self.never_last;
            match self.never_last {
                NONE => self.never_first = b,
                last => self.nodes[last as usize].later = b,
            }
            self.never_last = b;
            return;
        }
        let pos = key;
        if pos as usize >= self.first_at.len() {
            self.grow_table(pos);
        }
        if !self.positions.insert(pos) {
            self.first_at[pos as usize] = b;
            return;
        }
        let mut at = self.first_at[pos as usize];
        while self.nodes[at as usize].later != NONE {
            at = self.nodes[at as usize].later;
        }
        self.nodes[at as usize].later = b;
    }

    /// Makes room in the table for `pos`, an eighth more than it holds at least: growth stays
    /// amortised (a large vector grows in place by remapping) and overshoots the trace by at most
    /// an eighth, where doubling could leave nearly half the table untouched.
    #[cold]
    fn grow_table(&mut self, pos: u32) {
        let len = (pos as usize + 1).max(self.first_at.len() + self.first_at.len() / 8 + 4096);
        self.first_at.resize(len, NONE);
    }

    /// Takes resident `b` out of the index.
    #[inline]
    fn dequeue(&mut self, b: Block) {
        let Node {
            key,
            earlier,
            later,
        } = self.nodes[b as usize];
        if key == NEVER_KEY {
            match earlier {
                NONE => self.never_first = later,
                e => self.nodes[e as usize].later = later,
            }
            match later {
                NONE => self.never_last = earlier,
                l => self.nodes[l as usize].earlier = earlier,
            }
            return;
        }
        let pos = key;
        let first = self.first_at[pos as usize];
        if first == b {
            match later {
                NONE => self.positions.remove(pos),
                l => self.first_at[pos as usize] = l,
            }
            return;
        }
        let mut at = first;
        while self.nodes[at as usize].later != b {
            at = self.nodes[at as usize].later;
        }
        self.nodes[at as usize].later = later;
    }

    /// The first unpinned block of the chain or list starting at `b`.
    fn first_unpinned(&self, mut b: u32, frames: &Frames) -> Option<Block> {
        while b != NONE {
            if !frames.is_pinned(b) {
                return Some(b);
            }
            b = self.nodes[b as usize].later;
        }
        None
    }

    /// The resident blocks, farthest next use first (the eviction order).
    fn farthest_first(&self) -> Vec<Block> {
        let mut order = Vec::with_capacity(self.resident);
        let push_chain = |mut b: u32, order: &mut Vec<Block>| {
            while b != NONE {
                order.push(b);
                b = self.nodes[b as usize].later;
            }
        };
        push_chain(self.never_first, &mut order);
        let mut limit = u64::MAX;
        while let Some(pos) = self.positions.max_below(limit) {
            push_chain(self.first_at[pos as usize], &mut order);
            limit = pos as u64;
        }
        order
    }

    /// Next-use tick recorded for resident `b` ([`NEVER`] if it is not referenced again).
    #[cfg(test)]
    fn next_use_of(&self, b: Block) -> u64 {
        match self.nodes[b as usize].key {
            NEVER_KEY => super::NEVER,
            n => n as u64,
        }
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
    fn hint(&self, b: Block) {
        crate::cache::frames::prefetch(self.nodes.as_ptr().wrapping_add(b as usize) as *const u8);
    }

    #[inline]
    fn hint_next_use(&self, next_use: u64) {
        // Where the block will be recorded: its position's table entry and bit.
        if let Some(first) = self.first_at.get(next_use as usize) {
            crate::cache::frames::prefetch(first as *const u32 as *const u8);
            self.positions.hint(next_use as u32);
        }
    }

    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        self.dequeue(b);
        self.enqueue(b, cx.next_use);
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        if let Some(b) = self.first_unpinned(self.never_first, frames) {
            return Some(b);
        }
        let mut at = self.positions.max();
        while let Some(pos) = at {
            if let Some(b) = self.first_unpinned(self.first_at[pos as usize], frames) {
                return Some(b);
            }
            at = self.positions.max_below(pos as u64);
        }
        None
    }

    #[inline]
    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        self.dequeue(b);
        self.resident -= 1;
    }

    #[inline]
    fn on_insert(&mut self, b: Block, _kind: InsertKind, cx: &Access) {
        self.resident += 1;
        self.enqueue(b, cx.next_use);
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    fn len(&self) -> usize {
        self.resident
    }

    fn check_invariants(&self, frames: &Frames) -> std::result::Result<(), String> {
        self.positions.check()?;
        if self.resident != frames.len() {
            return Err(format!(
                "{} blocks counted, {} resident in frames",
                self.resident,
                frames.len()
            ));
        }
        let order = self.farthest_first();
        if order.len() != self.resident {
            return Err(format!(
                "{} blocks reachable in the index, {} resident",
                order.len(),
                self.resident
            ));
        }
        for (i, &b) in order.iter().enumerate() {
            if !frames.is_resident(b) {
                return Err(format!("indexed block {b} is not resident"));
            }
            if i > 0 && self.nodes[order[i - 1] as usize].key < self.nodes[b as usize].key {
                return Err(format!("block {b} is out of next-use order"));
            }
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        vec![("farthest_first", self.farthest_first())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testutil::pattern;
    use crate::policy::NEVER;
    use proptest::prelude::*;

    #[test]
    fn accusims_tie_order_is_refused_here_and_typos_everywhere() {
        for (value, built) in [("first", true), ("heap", false), ("heaps", false)] {
            let mut spec = PolicySpec::parse("opt").unwrap();
            spec.set("ties", value).unwrap();
            assert_eq!(OptPolicy::from_spec(&spec, 4, 4).is_ok(), built, "{value}");
        }
    }

    #[test]
    fn hand_worked_sequence() {
        // cap 2: 1 2 | 3 evicts 2 (next at 5, 1 next at 3) | 1 h | 2 evicts 3 (never again)
        // | 1 h | 2 h
        let refs = [1, 2, 3, 1, 2, 1, 2];
        assert_eq!(pattern(|| OptPolicy::new(2, 4), 2, &refs), "mmmhmhh");
        let mut level = crate::cache::level::CacheLevel::new(OptPolicy::new(2, 4), 2, 4);
        for (b, next) in [(1, 3), (2, 4), (3, NEVER), (1, 5), (2, 6), (1, NEVER)] {
            level.access(b, next);
        }
        // Block 1 is never used again and goes before block 2, which waits for tick 6.
        assert_eq!(level.policy.dump()[0].1, vec![1, 2]);
        assert_eq!(level.policy.next_use_of(2), 6);
        assert_eq!(level.policy.next_use_of(1), NEVER);
        // Never-again blocks: the one recorded first goes first.
        let mut level = crate::cache::level::CacheLevel::new(OptPolicy::new(3, 4), 3, 4);
        for b in [2, 3, 1] {
            level.access(b, NEVER);
        }
        assert_eq!(level.policy.dump()[0].1, vec![2, 3, 1]);
    }

    #[test]
    fn a_cache_far_larger_than_the_trace_allocates_by_the_trace() {
        // 100 TiB of 4 KiB blocks over a 3-block universe: sized by capacity this asked for
        // hundreds of GB and aborted.
        let p = OptPolicy::new(26_843_545_600, 3);
        assert!(p.first_at.capacity() < 1 << 20, "{}", p.first_at.capacity());
        // The table grows with the next uses it is given, not with the cache.
        let mut level = crate::cache::level::CacheLevel::new(OptPolicy::new(2, 3), 2, 3);
        level.access(0, 5_000_000);
        level.access(1, 7);
        level.access(2, NEVER);
        assert_eq!(level.policy.dump()[0].1, vec![2, 1]);
        assert!(level.policy.first_at.len() > 5_000_000);
    }

    /// The former index's rule, by brute force: the farthest next use (clamped to `u32::MAX`,
    /// as never again), then the earliest recorded, skipping pinned blocks.
    fn reference_victims(cap: usize, refs: &[(u32, u64, bool)]) -> (Vec<u32>, Vec<u32>) {
        let mut resident: Vec<(u32, u64, u64, bool)> = Vec::new(); // (block, key, recorded, pinned)
        let mut victims = Vec::new();
        for (seq, &(b, next, pin)) in refs.iter().enumerate() {
            let key = next.min(u32::MAX as u64);
            let seq = seq as u64;
            if let Some(r) = resident.iter_mut().find(|r| r.0 == b) {
                (r.1, r.2, r.3) = (key, seq, pin);
                continue;
            }
            if resident.len() == cap {
                let best = resident
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| !r.3)
                    .max_by_key(|(_, r)| (r.1, std::cmp::Reverse(r.2)))
                    .map(|(i, _)| i);
                match best {
                    Some(i) => victims.push(resident.remove(i).0),
                    None => continue, // every frame pinned: the miss bypasses
                }
            }
            resident.push((b, key, seq, pin));
        }
        resident.sort_by_key(|r| (std::cmp::Reverse(r.1), r.2));
        (victims, resident.into_iter().map(|r| r.0).collect())
    }

    proptest! {
        #[test]
        fn victims_are_the_former_heaps_even_with_repeated_next_uses(
            cap in 1usize..6,
            refs in prop::collection::vec(
                (
                    0u32..12,
                    prop_oneof![
                        4 => 0u64..40,
                        1 => 1000u64..100_000,
                        1 => Just(NEVER),
                        1 => Just(u32::MAX as u64 + 7),
                    ],
                    prop::bool::weighted(0.15),
                ),
                1..300,
            ),
        ) {
            let mut level = crate::cache::level::CacheLevel::new(OptPolicy::new(cap, 12), cap, 12);
            let mut victims = Vec::new();
            for &(b, next, pin) in &refs {
                let before = level.stats().evictions;
                level.access(b, next);
                if level.stats().evictions > before {
                    victims.push(level.last_victim().unwrap().block);
                }
                if level.frames().is_resident(b) {
                    level.set_pinned(b, pin);
                }
                level.policy.check_invariants(level.frames()).map_err(TestCaseError::fail)?;
            }
            let (want, order) = reference_victims(cap, &refs);
            prop_assert_eq!(victims, want);
            prop_assert_eq!(&level.policy.dump()[0].1, &order);
        }
    }
}
