//! One cache level: the frame table, a policy, an optional admission filter, and the counters
//! every policy shares.
//!
//! In the objects model ([`CacheLevel::weighted`]) each request is one object of its size: on a
//! miss the level evicts until the object fits, and an object larger than the whole cache is
//! not inserted (a miss). A hit keeps the size the object entered with, even when the request
//! names another size: libCacheSim's `cache_find_base` does not update it either.
//!
//! A policy may also refuse a miss ([`crate::policy::SizeHooks::before_insert`]) and queue evictions or weights it
//! decided elsewhere, even during a hit ([`crate::policy::SizeHooks::take_pending`]); the level applies them, so it
//! alone changes the frame table.

use crate::cache::admission::Admission;
use crate::cache::frames::Frames;
use crate::policy::{Access, Block, Evicted, InsertKind, Pending, Policy, NEVER};

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
    /// Misses not inserted: the admission filter or the policy ([`crate::policy::SizeHooks::before_insert`],
    /// [`crate::policy::SizeHooks::evicts_incoming`]) refused them, or the object is larger than the whole cache.
    #[serde(default)]
    pub rejected: u64,
    /// Of `rejected`, misses the admission filter refused.
    #[serde(default)]
    pub admission_rejects: u64,
    /// Sum of the demand requests' sizes (objects model; 0 in the blocks model, whose bytes are
    /// requests x block size).
    #[serde(default)]
    pub bytes_requested: u64,
    /// Of those, bytes of the requests that hit.
    #[serde(default)]
    pub byte_hits: u64,
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
    /// The block was fetched but not inserted: every frame was pinned, the admission filter
    /// refused it, or it is larger than the whole cache.
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
    admission: Option<Admission>,
    /// Evictions the policy queued are being applied: one may follow a make-room eviction on the
    /// same reference (libCacheSim's Cacheus evicts SR's overflow after inserting, `linux`
    /// reclaims a batch), and only the last is kept as [`CacheLevel::last_victim`].
    draining: bool,
    /// The block of the last reference fed through [`CacheLevel::access_in_stream`].
    last_in_stream: Block,
}

/// How making room for a demand miss ended.
enum Room {
    /// The block fits now.
    Made,
    /// Every block left is pinned.
    Pinned,
    /// The policy made the incoming block its own victim ([`crate::policy::SizeHooks::evicts_incoming`]).
    IncomingLeft,
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
            draining: false,
            admission: None,
            last_in_stream: Block::MAX,
        }
    }

    /// A level of the objects model: objects `0..universe` weigh their bytes and the level holds
    /// `capacity` bytes; feed it with [`CacheLevel::access_sized`].
    pub fn weighted(policy: P, capacity: usize, universe: usize) -> Self {
        CacheLevel {
            frames: Frames::weighted(capacity, universe),
            ..CacheLevel::new(policy, 0, 0)
        }
    }

    /// Sets the filter consulted on every demand miss before insertion.
    pub fn set_admission(&mut self, admission: Option<Admission>) {
        self.admission = admission;
    }

    /// The admission filter, if any.
    pub fn admission(&self) -> Option<&Admission> {
        self.admission.as_ref()
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
        self.step::<false>(b, 1, next_use, false)
    }

    /// A demand reference to `b` that says whether it starts in the block where the previous read
    /// of the same file ended ([`crate::policy::Access::repeat`]): the file engine's reads, for
    /// policies that ask ([`Policy::wants_repeats`]).
    #[inline]
    pub fn access_repeat(&mut self, b: Block, next_use: u64, repeat: bool) -> Outcome {
        self.step::<false>(b, 1, next_use, repeat)
    }

    /// A demand reference to `b` in a block trace read as one file: it repeats the previous
    /// read's block when it names the block the reference before it (through this method) named.
    /// Each request of a block trace is a read of consecutive blocks, so only its first block can
    /// be the one the previous request ended in.
    #[inline]
    pub fn access_in_stream(&mut self, b: Block, size: Option<u32>, next_use: u64) -> Outcome {
        let repeat = b == self.last_in_stream;
        self.last_in_stream = b;
        match size {
            Some(size) => self.step::<true>(b, size, next_use, repeat),
            None => self.step::<false>(b, 1, next_use, repeat),
        }
    }

    /// A demand reference to object `b` of `size` bytes (objects model): evicts until it fits,
    /// refuses an object larger than the cache, and counts the request's bytes.
    #[inline]
    pub fn access_sized(&mut self, b: Block, size: u32, next_use: u64) -> Outcome {
        self.step::<true>(b, size, next_use, false)
    }

    #[inline(always)]
    fn step<const SIZED: bool>(
        &mut self,
        b: Block,
        size: u32,
        next_use: u64,
        repeat: bool,
    ) -> Outcome {
        // An unweighted table counts every block as one unit, whatever the request's bytes.
        let weight = if SIZED && self.frames.is_weighted() {
            size
        } else {
            1
        };
        let mut cx = Access {
            tick: self.tick,
            next_use,
            first_use: false,
            prefetch: false,
            size: weight as u64,
            repeat,
        };
        self.tick += 1;
        self.stats.requests += 1;
        if SIZED {
            self.stats.bytes_requested += size as u64;
        }
        self.last_victim = None;
        if let Some(a) = &mut self.admission {
            a.record(b);
        }
        if self.frames.is_resident(b) {
            self.stats.hits += 1;
            if SIZED {
                self.stats.byte_hits += size as u64;
            }
            if self.frames.mark_used(b) {
                cx.first_use = true;
                self.stats.prefetch_used += 1;
            }
            self.policy.on_hit(b, &cx);
            self.apply_pending(&cx);
            return Outcome::Hit;
        }
        self.stats.misses += 1;
        // A size threshold compares the object's bytes, also when objects are counted.
        let admit_size = if SIZED { size as u64 } else { 1 };
        let too_large = SIZED && weight as u64 > self.frames.capacity() as u64;
        if too_large || !self.admits(b, &cx, admit_size) {
            // The policy still sees the reference (libCacheSim looks the object up, ghosts
            // included, before deciding it cannot enter).
            self.stats.rejected += 1;
            self.stats.admission_rejects += u64::from(!too_large);
            self.policy.on_unplaced_miss(b, &cx);
            return Outcome::Bypass;
        }
        let admitted = self.policy.before_insert(b, &self.frames, &cx);
        self.apply_pending(&cx);
        if !admitted {
            self.stats.rejected += 1;
            return Outcome::Bypass;
        }
        match self.make_room(b, &cx) {
            Room::Made => {
                self.frames.insert(b, false, weight);
                self.policy.on_insert(b, InsertKind::Demand, &cx);
                self.apply_pending(&cx);
                Outcome::Miss
            }
            Room::Pinned => {
                self.stats.bypassed += 1;
                Outcome::Bypass
            }
            Room::IncomingLeft => {
                self.stats.rejected += 1;
                Outcome::Bypass
            }
        }
    }

    /// Whether the admission filter lets missed `b` (of `size` units: blocks, or an object's
    /// bytes) in; without a filter, always. Always inlined: on every miss it is one test of
    /// `admission`, which the compiler otherwise left behind a call for some policies' loops.
    #[inline(always)]
    fn admits(&mut self, b: Block, cx: &Access, size: u64) -> bool {
        let needs_victim = match &mut self.admission {
            None => return true,
            Some(a) if !a.needs_victim() => return a.admit(b, size, None),
            Some(_) => true,
        };
        debug_assert!(needs_victim);
        // TinyLFU compares the candidate with the block the policy would evict first; with room
        // to spare nothing is evicted and the candidate enters.
        if self.frames.fits(cx.size) {
            return true;
        }
        let victim = self.policy.select_victim(b, &self.frames, cx);
        self.policy.forget_victim();
        let admission = self.admission.as_mut().expect("checked above");
        admission.admit(b, size, victim)
    }

    /// A demand reference to resident `b` whose I/O has not completed: the policy sees a
    /// reference (the first, if `b` was an unused prefetch), but the access counts as a miss.
    /// `repeat` as in [`CacheLevel::access_repeat`].
    pub fn access_in_flight(&mut self, b: Block, next_use: u64, repeat: bool) {
        debug_assert!(self.frames.is_resident(b));
        let cx = Access {
            tick: self.tick,
            next_use,
            first_use: self.frames.mark_used(b),
            prefetch: false,
            size: 1,
            repeat,
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
            size: 1,
            repeat: false,
        };
        // A variant may let a block enter unmarked (AccuSim's ARC, for a remembered ghost).
        let marked = self
            .policy
            .level_hooks()
            .map_or(true, |h| h.prefetch_marked(b));
        if !matches!(self.make_room(b, &cx), Room::Made) {
            return false;
        }
        self.stats.prefetched += 1;
        self.frames.insert(b, marked, 1);
        self.policy.on_insert(b, InsertKind::Prefetch, &cx);
        // A policy that reclaims in batches evicts the rest of its batch now, as on demand.
        self.apply_pending(&cx);
        true
    }

    /// The block the policy would evict to make room for prefetched `incoming`, without evicting it; `None`
    /// when the level has room or every block is pinned. Like `select_victim`, it may advance the
    /// policy's internal order (a clock hand), so use it with order-free policies.
    pub fn peek_victim(&mut self, incoming: Block, next_use: u64) -> Option<Block> {
        if self.frames.fits(1) {
            return None;
        }
        let cx = Access {
            tick: self.tick,
            next_use,
            first_use: false,
            prefetch: true,
            size: 1,
            repeat: false,
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
            size: 1,
            repeat: false,
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
            size: 1,
            repeat: false,
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

    /// Evicts until `incoming` (of `cx.size` units) fits. Before each eviction for a demand miss
    /// the policy may make `incoming` its own victim ([`crate::policy::SizeHooks::evicts_incoming`]).
    #[inline]
    fn make_room(&mut self, incoming: Block, cx: &Access) -> Room {
        while !self.frames.fits(cx.size) {
            if !cx.prefetch && self.policy.evicts_incoming(incoming, &self.frames, cx) {
                return Room::IncomingLeft;
            }
            let Some(victim) = self.policy.select_victim(incoming, &self.frames, cx) else {
                return Room::Pinned;
            };
            self.evict(victim, cx);
        }
        Room::Made
    }

    /// Evicts resident, unpinned `victim`: counts it, remembers it as the last victim and tells
    /// the policy.
    #[inline]
    fn evict(&mut self, victim: Block, cx: &Access) {
        debug_assert!(self.frames.is_resident(victim) && !self.frames.is_pinned(victim));
        let hinted = self.frames.is_hinted(victim);
        let unused_prefetch = self.frames.remove(victim);
        self.stats.evictions += 1;
        if unused_prefetch {
            self.stats.prefetch_unused_evicted += 1;
            self.stats.hinted_unused_evicted += hinted as u64;
        }
        debug_assert!(
            self.last_victim.is_none() || self.frames.is_weighted() || self.draining,
            "one eviction makes room for a block"
        );
        self.last_victim = Some(Victim {
            block: victim,
            unused_prefetch,
        });
        self.policy
            .on_evict(victim, Evicted { unused_prefetch }, cx);
    }

    /// Applies the frame changes the policy queued ([`crate::policy::SizeHooks::take_pending`]).
    #[inline]
    fn apply_pending(&mut self, cx: &Access) {
        self.draining = true;
        while let Some(change) = self.policy.take_pending() {
            match change {
                Pending::Evict(b) => self.evict(b, cx),
                Pending::Weigh(b, units) => self.frames.reweigh(b, units),
            }
        }
        self.draining = false;
    }

    /// Current virtual time (demand references so far).
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// Checks the policy against the frame table (tests: the policy's [`crate::policy::Checked`]).
    #[cfg(test)]
    pub fn check(&self) -> Result<(), String> {
        if self.frames.used() > self.frames.capacity() as u64 {
            return Err(format!(
                "{} resident units exceed capacity {}",
                self.frames.used(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::admission::AdmissionSpec;
    use crate::policy::lru::LruPolicy;

    fn objects(capacity: usize) -> CacheLevel<LruPolicy> {
        CacheLevel::weighted(LruPolicy::new(16), capacity, 16)
    }

    fn residents(level: &CacheLevel<LruPolicy>) -> Vec<Block> {
        level.frames().resident_blocks().collect()
    }

    #[test]
    fn an_object_larger_than_the_cache_is_a_miss_and_evicts_nothing() {
        let mut level = objects(100);
        level.access_sized(1, 40, NO_ORACLE);
        level.access_sized(2, 60, NO_ORACLE);
        assert_eq!(level.access_sized(3, 101, NO_ORACLE), Outcome::Bypass);
        level.check().unwrap();
        assert_eq!(residents(&level), [1, 2]);
        let s = level.stats();
        assert_eq!((s.misses, s.rejected, s.evictions), (3, 1, 0));
        assert_eq!(s.admission_rejects, 0, "no filter refused it");
        assert_eq!((s.bytes_requested, s.byte_hits), (201, 0));
        // Exactly the capacity fits, after evicting everything else.
        assert_eq!(level.access_sized(3, 100, NO_ORACLE), Outcome::Miss);
        assert_eq!(residents(&level), [3]);
        assert_eq!(level.stats().evictions, 2);
    }

    #[test]
    fn a_miss_evicts_until_the_object_fits() {
        let mut level = objects(100);
        for (b, size) in [(1, 40), (2, 40), (3, 20)] {
            level.access_sized(b, size, NO_ORACLE);
        }
        assert_eq!(level.frames().used(), 100);
        level.access_sized(3, 20, NO_ORACLE); // 3 becomes most recent
        assert_eq!(level.access_sized(4, 70, NO_ORACLE), Outcome::Miss);
        level.check().unwrap();
        assert_eq!(residents(&level), [3, 4], "LRU 1 then 2 leave");
        assert_eq!(level.frames().used(), 90);
        assert_eq!(level.stats().evictions, 2);
        assert_eq!(level.last_victim().map(|v| v.block), Some(2));
    }

    #[test]
    fn a_hit_keeps_the_size_the_object_entered_with() {
        let mut level = objects(100);
        level.access_sized(1, 40, NO_ORACLE);
        assert_eq!(level.access_sized(1, 90, NO_ORACLE), Outcome::Hit);
        assert_eq!(level.frames().weight(1), 40);
        assert_eq!(level.frames().used(), 40);
        let s = level.stats();
        assert_eq!((s.bytes_requested, s.byte_hits), (130, 90));
        // 60 bytes are free, as the stored size says.
        level.access_sized(2, 60, NO_ORACLE);
        assert_eq!(residents(&level), [1, 2]);
    }

    #[test]
    fn an_unweighted_level_counts_blocks_whatever_the_sizes() {
        let mut level = CacheLevel::new(LruPolicy::new(16), 2, 16);
        for b in [1, 2, 3] {
            level.access_sized(b, 5000, NO_ORACLE);
        }
        assert_eq!(residents(&level), [2, 3]);
        assert_eq!(level.stats().bytes_requested, 15_000);
    }

    #[test]
    fn admission_is_consulted_on_a_miss_before_eviction() {
        let mut level = objects(100);
        level.set_admission(Some(AdmissionSpec::MaxBytes(50).build(4, 16, 1, 0)));
        level.access_sized(1, 50, NO_ORACLE);
        level.access_sized(2, 40, NO_ORACLE);
        assert_eq!(level.access_sized(3, 51, NO_ORACLE), Outcome::Bypass);
        level.check().unwrap();
        assert_eq!(
            residents(&level),
            [1, 2],
            "nothing evicted for a refused object"
        );
        assert_eq!((level.stats().rejected, level.stats().evictions), (1, 0));
        // The filter's refusal is counted as such; an object larger than the cache is not one.
        assert_eq!(level.stats().admission_rejects, 1);
        assert_eq!(level.access_sized(4, 101, NO_ORACLE), Outcome::Bypass);
        let s = level.stats();
        assert_eq!((s.rejected, s.admission_rejects), (2, 1));

        // TinyLFU: a one-off block does not displace a block seen often.
        let mut level = CacheLevel::new(LruPolicy::new(16), 1, 16);
        level.set_admission(Some(AdmissionSpec::TinyLfu.build(16, 16, 1, 0)));
        for _ in 0..4 {
            level.access(1, NO_ORACLE);
        }
        assert_eq!(level.access(2, NO_ORACLE), Outcome::Bypass);
        assert_eq!(residents_of(&level), [1]);
        for _ in 0..6 {
            level.access(2, NO_ORACLE);
        }
        assert_eq!(residents_of(&level), [2], "once more frequent, it enters");
        level.check().unwrap();
    }

    fn residents_of<P: Policy>(level: &CacheLevel<P>) -> Vec<Block> {
        level.frames().resident_blocks().collect()
    }
}

#[cfg(test)]
mod weighing_policies {
    use super::*;
    use crate::cache::builder::{build_for, check_weighs};
    use crate::cache::cache_model::Capacity;
    use crate::policy::registry::{parse_policies, PolicyVisitor, Preset};

    /// Runs sized references through a weighted level, checking the policy against the frame
    /// table after every step; returns the counters.
    struct Replay<'a>(&'a [(Block, u32)], usize);

    impl PolicyVisitor for Replay<'_> {
        type Output = LevelStats;
        fn visit<P: Policy + 'static>(self, policy: P) -> LevelStats {
            let mut level = CacheLevel::weighted(policy, self.1, 64);
            for (i, &(b, size)) in self.0.iter().enumerate() {
                let next = self.0[i + 1..]
                    .iter()
                    .position(|&(x, _)| x == b)
                    .map_or(NEVER, |d| (i + 1 + d) as u64);
                level.access_sized(b, size, next);
                level
                    .check()
                    .unwrap_or_else(|e| panic!("{} at {i}: {e}", level.policy.name()));
                assert!(level.frames().used() <= self.1 as u64);
            }
            level.into_stats()
        }
    }

    #[test]
    fn every_policy_that_weighs_keeps_its_invariants_with_sizes() {
        let mut x: u64 = 7;
        let refs: Vec<(Block, u32)> = (0..3000)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let b = ((x >> 33) % 64) as u32;
                // Sizes fixed per block but for every 16th request, which changes it.
                let size = if (x >> 20) % 16 == 0 {
                    50 + (x >> 40) % 400
                } else {
                    20 + b as u64 * 7
                };
                (b, size as u32)
            })
            .collect();
        let capacity = 1500;
        for spec in parse_policies(
            "lru,fifo,clock,opt,lrfu,lru-k,mq,fbr,arc,2q,sieve,lfu,lfuda,gdsf,lhd,s3fifo,slru",
            &[],
            Preset::Paper,
        )
        .unwrap()
        {
            check_weighs(&spec).unwrap();
            let cap = Capacity {
                units: capacity,
                weighted: true,
                entries: 8,
            };
            let stats = build_for(&spec, &cap, 64, Replay(&refs, capacity)).unwrap();
            assert_eq!(stats.hits + stats.misses, 3000, "{}", spec.label());
            assert!(stats.hits > 0 && stats.evictions > 0, "{}", spec.label());
        }
    }
}
