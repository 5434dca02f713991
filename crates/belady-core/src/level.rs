//! One cache level: the frame table, a policy, and the counters every policy shares.

use crate::frames::Frames;
use crate::policy::{Access, Block, Evicted, InsertKind, Policy, NEVER};

/// Counters of one cache level, identical in meaning for every policy.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LevelStats {
    /// Demand block references.
    pub requests: u64,
    /// Demand references that found the block resident.
    pub hits: u64,
    /// Demand references that did not.
    pub misses: u64,
    /// Blocks evicted.
    pub evictions: u64,
    /// Blocks inserted by prefetch.
    pub prefetched: u64,
    /// Prefetched blocks whose first demand access found them resident.
    pub prefetch_used: u64,
    /// Prefetched blocks evicted before any demand access.
    pub prefetch_unused_evicted: u64,
    /// Misses served without caching because every frame was pinned.
    pub bypassed: u64,
    /// Of `prefetch_unused_evicted`, blocks prefetched on a learned hint (ClusterFetch).
    pub hinted_unused_evicted: u64,
}

impl LevelStats {
    /// Hits over requests (0 for no requests).
    pub fn hit_ratio(&self) -> f64 {
        if self.requests == 0 {
            0.0
        } else {
            self.hits as f64 / self.requests as f64
        }
    }
}

/// What a demand access found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The block was resident.
    Hit,
    /// The block was fetched and inserted.
    Miss,
    /// The block was fetched but not inserted: every frame was pinned.
    Bypass,
}

/// A cache level: frames plus the policy ordering them.
pub struct CacheLevel<P: Policy> {
    /// The replacement policy.
    pub policy: P,
    frames: Frames,
    stats: LevelStats,
    tick: u64,
    last_victim: Option<Victim>,
}

/// A block a level evicted to make room, as reported by [`CacheLevel::last_victim`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Victim {
    /// The evicted block.
    pub block: Block,
    /// It entered by prefetch (or placement) and was never demand-accessed.
    pub unused_prefetch: bool,
}

impl<P: Policy> CacheLevel<P> {
    /// A level of `capacity` blocks over ids `0..universe`.
    pub fn new(policy: P, capacity: usize, universe: usize) -> Self {
        CacheLevel {
            policy,
            frames: Frames::new(capacity, universe),
            stats: LevelStats::default(),
            tick: 0,
            last_victim: None,
        }
    }

    /// The frame table.
    pub fn frames(&self) -> &Frames {
        &self.frames
    }

    /// Counters so far.
    pub fn stats(&self) -> &LevelStats {
        &self.stats
    }

    /// Consumes the level, returning its counters.
    pub fn into_stats(self) -> LevelStats {
        self.stats
    }

    /// A hint that `b` will be referenced soon (a prefetch of its state; no effect on results).
    #[inline]
    pub fn hint(&mut self, b: Block) {
        self.frames.hint(b);
        self.policy.hint(b);
    }

    /// A demand reference to `b`; `next_use` is the tick of its next reference (for OPT).
    #[inline]
    pub fn access(&mut self, b: Block, next_use: u64) -> Outcome {
        let mut cx = Access {
            tick: self.tick,
            next_use,
            first_use: false,
            prefetch: false,
        };
        self.tick += 1;
        self.stats.requests += 1;
        self.last_victim = None;
        if self.frames.is_resident(b) {
            self.stats.hits += 1;
            if self.frames.mark_used(b) {
                cx.first_use = true;
                self.stats.prefetch_used += 1;
            }
            self.policy.on_hit(b, &cx);
            return Outcome::Hit;
        }
        self.stats.misses += 1;
        if self.make_room(b, &cx) {
            self.frames.insert(b, false);
            self.policy.on_insert(b, InsertKind::Demand, &cx);
            Outcome::Miss
        } else {
            self.stats.bypassed += 1;
            Outcome::Bypass
        }
    }

    /// A demand reference to resident `b` whose I/O has not completed: the policy sees a
    /// reference (the first, if `b` was an unused prefetch), but the access counts as a miss.
    pub fn access_in_flight(&mut self, b: Block, next_use: u64) {
        debug_assert!(self.frames.is_resident(b));
        let cx = Access {
            tick: self.tick,
            next_use,
            first_use: self.frames.mark_used(b),
            prefetch: false,
        };
        self.tick += 1;
        self.stats.requests += 1;
        self.stats.misses += 1;
        self.policy.on_hit(b, &cx);
    }

    /// Inserts `b` as a prefetch (resident, not accessed). Returns `false` when it was already
    /// resident or no frame could be freed. Prefetches do not advance the virtual clock.
    pub fn prefetch(&mut self, b: Block, next_use: u64) -> bool {
        self.last_victim = None;
        if self.frames.is_resident(b) {
            return false;
        }
        let cx = Access {
            tick: self.tick,
            next_use,
            first_use: false,
            prefetch: true,
        };
        // AccuSim's ARC lets a remembered ghost enter unmarked (compat::accusim).
        let marked = self.policy.accusim().map_or(true, |h| h.prefetch_marked(b));
        if !self.make_room(b, &cx) {
            return false;
        }
        self.stats.prefetched += 1;
        self.frames.insert(b, marked);
        self.policy.on_insert(b, InsertKind::Prefetch, &cx);
        true
    }

    /// The block the policy would evict to make room for prefetched `incoming`, without evicting it; `None`
    /// when the level has room or every block is pinned. Like `select_victim`, it may advance the
    /// policy's internal order (a clock hand), so use it with order-free policies.
    pub fn peek_victim(&mut self, incoming: Block, next_use: u64) -> Option<Block> {
        if !self.frames.is_full() {
            return None;
        }
        let cx = Access {
            tick: self.tick,
            next_use,
            first_use: false,
            prefetch: true,
        };
        let victim = self.policy.select_victim(incoming, &self.frames, &cx);
        self.policy.forget_victim();
        victim
    }

    /// A demand reference to `b` at a level that does not place blocks on access (a lower level
    /// of a hierarchy with another placement): a hit as in [`CacheLevel::access`], a miss inserts
    /// nothing (the policy may note it in its history). Returns whether it hit.
    pub fn lookup(&mut self, b: Block, next_use: u64) -> bool {
        if self.frames.is_resident(b) {
            return self.access(b, next_use) == Outcome::Hit;
        }
        let cx = Access {
            tick: self.tick,
            next_use,
            first_use: false,
            prefetch: false,
        };
        self.tick += 1;
        self.stats.requests += 1;
        self.stats.misses += 1;
        self.last_victim = None;
        self.policy.on_unplaced_miss(b, &cx);
        false
    }

    /// Takes resident, unpinned `b` out of the level without counting an eviction (an exclusive
    /// level hands a hit block up). The policy sees it leave as on an eviction. Returns whether
    /// it was an unused prefetch.
    pub fn remove(&mut self, b: Block) -> bool {
        debug_assert!(self.frames.is_resident(b) && !self.frames.is_pinned(b));
        let cx = Access {
            tick: self.tick,
            next_use: NEVER,
            first_use: false,
            prefetch: false,
        };
        let unused_prefetch = self.frames.remove(b);
        self.policy.on_evict(b, Evicted { unused_prefetch }, &cx);
        unused_prefetch
    }

    /// The block evicted by the last [`CacheLevel::access`], [`CacheLevel::lookup`] or
    /// [`CacheLevel::prefetch`], if it evicted one.
    pub fn last_victim(&self) -> Option<Victim> {
        self.last_victim
    }

    /// Flags resident `b` as prefetched on a learned hint (see [`Frames::is_hinted`]).
    pub fn set_hinted(&mut self, b: Block) {
        self.frames.set_hinted(b);
    }

    /// Flags resident `b` as a read-ahead trigger.
    pub fn set_marker(&mut self, b: Block) {
        self.frames.set_marker(b);
    }

    /// Clears `b`'s read-ahead trigger; returns whether it was set.
    pub fn take_marker(&mut self, b: Block) -> bool {
        self.frames.take_marker(b)
    }

    /// Pins or unpins resident `b` (its I/O is in flight); pinned blocks are never evicted.
    pub fn set_pinned(&mut self, b: Block, pinned: bool) {
        if self.frames.is_resident(b) && self.frames.is_pinned(b) != pinned {
            self.frames.set_pinned(b, pinned);
            self.policy.on_pin(b, pinned);
        }
    }

    #[inline]
    fn make_room(&mut self, incoming: Block, cx: &Access) -> bool {
        while self.frames.is_full() {
            let Some(victim) = self.policy.select_victim(incoming, &self.frames, cx) else {
                return false;
            };
            debug_assert!(self.frames.is_resident(victim) && !self.frames.is_pinned(victim));
            let hinted = self.frames.is_hinted(victim);
            let unused_prefetch = self.frames.remove(victim);
            self.stats.evictions += 1;
            if unused_prefetch {
                self.stats.prefetch_unused_evicted += 1;
                self.stats.hinted_unused_evicted += hinted as u64;
            }
            debug_assert!(self.last_victim.is_none(), "one eviction makes room");
            self.last_victim = Some(Victim {
                block: victim,
                unused_prefetch,
            });
            self.policy
                .on_evict(victim, Evicted { unused_prefetch }, cx);
        }
        true
    }

    /// Current virtual time (demand references so far).
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// Checks the policy against the frame table.
    pub fn check(&self) -> Result<(), String> {
        if self.frames.len() > self.frames.capacity() {
            return Err(format!(
                "{} resident blocks exceed capacity {}",
                self.frames.len(),
                self.frames.capacity()
            ));
        }
        if self.policy.len() != self.frames.len() {
            return Err(format!(
                "policy tracks {} blocks, frames hold {}",
                self.policy.len(),
                self.frames.len()
            ));
        }
        if self.stats.hits + self.stats.misses != self.stats.requests {
            return Err("hits + misses != requests".into());
        }
        self.policy.check_invariants(&self.frames)
    }
}

/// The `next_use` to pass for policies without an oracle.
pub const NO_ORACLE: u64 = NEVER;
