//! The replacement-policy contract and the built-in policies.
//!
//! A policy owns only ordering and history: which resident block to evict next, and what it
//! remembers about blocks that left. Residency, prefetch and pin state belong to the cache
//! level's [`Frames`]; a policy reads them there and never keeps a copy.
//!
//! The cache level calls, for each demand access to block `b`:
//! - `b` resident: [`Policy::on_hit`] (with `first_use` set on the first demand access to a
//!   prefetched block);
//! - `b` not resident: while the level is full, [`Policy::select_victim`] then
//!   [`Policy::on_evict`] for the chosen block; then [`Policy::on_insert`] with
//!   [`InsertKind::Demand`]. Before making room it asks [`SizeHooks::before_insert`], which may
//!   refuse the block. Before each eviction of a demand miss it asks
//!   [`SizeHooks::evicts_incoming`], which may make the entering block its own victim.
//!
//! After `on_hit`, `before_insert` and `on_insert` the level applies the frame changes the policy
//! queued ([`SizeHooks::take_pending`]): evictions decided outside `select_victim` (libCacheSim's
//! LIRS evicts during hits) and weights its own count keeps otherwise. Only the level removes.
//!
//! A prefetch of `b` takes the miss path with [`InsertKind::Prefetch`]: the block becomes resident
//! but is not accessed yet, and does not advance the virtual clock.

pub mod arc;
pub mod arc_sized;
pub mod cacheus;
pub mod car;
pub mod catalog;
pub mod clock;
pub mod clock_pro;
pub mod fbr;
pub mod fifo;
pub mod gdsf;
pub mod hyperbolic;
pub mod lecar;
pub mod lfu;
pub mod lfuda;
pub mod lhd;
pub mod linux;
pub mod lirs;
pub mod lrfu;
pub mod lru;
pub mod lruk;
pub mod mglru;
pub mod mq;
pub mod opt;
pub mod registry;
pub mod s3fifo;
pub mod s3fifo_sized;
pub mod sieve;
pub mod slru;
pub mod slru_sized;
pub mod structures;
pub mod twoq;
pub mod twoq_sized;
pub mod wtinylfu;
pub mod wtinylfu_climber;

// The built-in policies, one line each: a policy's module declares its catalogue entry (`INFO`)
// and its builder (`build`); this list makes `POLICIES` and the builder's dispatch from them.
registry::register! {
    lru,
    fifo,
    clock,
    lirs,
    clock_pro,
    opt,
    lrfu,
    fbr,
    arc,
    lruk,
    car,
    twoq,
    mq,
    // The kernel's own replacement (issue 26 item 2): docs/policies.md, "Linux's own".
    linux,
    mglru,
    // Today's policies, each matched to libCacheSim (docs/policies.md, "Against libCacheSim").
    s3fifo,
    sieve,
    slru,
    lfu,
    lfuda,
    gdsf,
    lhd,
    wtinylfu,
    // Learned and sampled policies (issue 26), randomised ones seeded by --seed (PolicySpec::seed).
    hyperbolic,
    lecar,
    cacheus,
}

#[cfg(test)]
mod conformance;

use crate::cache::frames::Frames;

/// A dense block id (see [`crate::trace::BlockTrace`]).
pub type Block = u32;

/// Marks "not referenced again" in [`Access::next_use`].
pub const NEVER: u64 = u64::MAX;

/// How a block enters a cache level.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum InsertKind {
    /// Fetched for a demand miss; counts as the block's first reference.
    Demand,
    /// Fetched by read-ahead: resident but not accessed yet. Its first demand access is its first
    /// reference (`Access::first_use`), and if it leaves unused it must not enter any ghost or
    /// history structure.
    Prefetch,
}

/// Why and how a block left a level, as the frame table knows it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Evicted {
    /// The block entered by prefetch and was never demand-accessed. Ghost and history
    /// structures MUST NOT record such a block.
    pub unused_prefetch: bool,
}

/// A change to the frame table that a policy decided outside [`Policy::select_victim`] (a
/// reference model of another simulator that evicts during a hit, or counts an object's bytes
/// otherwise than its size); the level applies it, so the frame table stays the one owner.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Pending {
    /// Evict resident `b` now: the level removes it, counts the eviction and calls
    /// [`Policy::on_evict`].
    Evict(Block),
    /// Resident `b` now weighs this many units in the level's count of used room.
    Weigh(Block, u32),
}

/// Context of the event being processed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Access {
    /// Virtual time: demand references processed before this one. Prefetches do not advance it.
    pub tick: u64,
    /// Tick of the block's next demand reference ([`NEVER`] if none); only filled in for
    /// policies whose [`OracleHooks::needs_oracle`] is true, otherwise [`NEVER`].
    pub next_use: u64,
    /// This demand hit is the first access to a block that entered by prefetch.
    pub first_use: bool,
    /// The block that enters (for `select_victim`, `on_evict` and `on_insert`) is a prefetch.
    pub prefetch: bool,
    /// Units the referenced (or entering) block weighs: 1 in the blocks model, the object's
    /// bytes in the objects model. Resident blocks' weights are in [`Frames::weight`].
    pub size: u64,
    /// This demand reference starts in the block where the previous read of the same file ended
    /// (a second read of one page, or a read that continues a page the previous one ended in):
    /// Linux's `filemap_read` does not mark that folio accessed again (`pos_same_folio`). Filled
    /// in only for policies whose [`Policy::wants_repeats`] is true, otherwise `false`.
    pub repeat: bool,
}

/// What a variant of a paper's policy may ask of the cache level beyond the [`Policy`]
/// contract, offered through the one accessor [`PrefetchHooks::level_hooks`] (AccuSim's ARC is the one
/// user). The level asks only on a prefetch, and the file engine only for demand references from
/// its read-ahead loop, so the plain demand path has no added call.
pub trait LevelHooks {
    /// Whether a prefetch of non-resident `b` enters as an unused prefetched block (the
    /// default). `false` makes it enter as an ordinary block, whose first demand access is a
    /// plain hit (AccuSim's ARC does this for a block it remembers in a ghost list). Asked
    /// before room is made.
    fn prefetch_marked(&self, _b: Block) -> bool {
        true
    }

    /// `on` before, and `off` after, a demand reference made from inside the file engine's
    /// read-ahead loop (AccuSim's `window-covers-call` rule), whose lookup has already dropped
    /// any ghost entry of the block. Default: nothing.
    fn set_in_readahead_loop(&mut self, _on: bool) {}
}

/// A replacement policy for one cache level: the core contract every policy implements.
///
/// What only some policies need is in the capability traits it extends, whose methods all have
/// defaults: [`SizeHooks`] (objects of different sizes, and the hooks of libCacheSim's size-aware
/// models), [`PrefetchHooks`] (pins, peeked victims, unmarked prefetches, hierarchy levels that
/// do not place on access), [`OracleHooks`] (the future, for OPT) and, in tests, `Checked`. A
/// policy states each capability with an `impl` (one line when it uses none of it) and overrides
/// only what it uses; the level is compiled per policy, so an unused capability's default inlines
/// to nothing.
// Nothing asks whether a policy is empty: its count is compared with the frame table's.
#[allow(clippy::len_without_is_empty)]
pub trait Policy: Send + SizeHooks + PrefetchHooks + OracleHooks + TestChecks {
    /// Registry name, as used on the command line (the policy's catalogue entry's `name`).
    fn name(&self) -> &'static str;

    /// Whether the engine should tell the policy which demand references repeat the block where
    /// the previous read of the same file ended ([`Access::repeat`]; `linux`). The engines then
    /// run a copy of their loop that tracks it, so other policies pay nothing.
    fn wants_repeats(&self) -> bool {
        false
    }

    /// A hint that `b` will be referenced soon: the policy may prefetch its state (no effect
    /// on results).
    #[inline]
    fn hint(&self, _b: Block) {}

    /// Demand access to resident block `b`.
    fn on_hit(&mut self, b: Block, cx: &Access);

    /// Chooses the block to evict so that `incoming` can enter. MUST return a resident block that
    /// `frames` does not show pinned, or `None` when every resident block is pinned. It may
    /// update internal order (a clock hand, reference bits) but MUST NOT unlink the victim:
    /// [`Policy::on_evict`] follows for the returned block.
    fn select_victim(&mut self, incoming: Block, frames: &Frames, cx: &Access) -> Option<Block>;

    /// `b` leaves the level. Ghost and history updates happen here, and MUST be skipped when
    /// `ev.unused_prefetch` is set.
    fn on_evict(&mut self, b: Block, ev: Evicted, cx: &Access);

    /// Non-resident block `b` enters the level; room has been made already.
    fn on_insert(&mut self, b: Block, kind: InsertKind, cx: &Access);

    /// Number of resident blocks the policy tracks; must equal the frame table's count.
    fn len(&self) -> usize;
}

/// Objects of different sizes (the objects model with a byte capacity, where the level evicts
/// until an object fits), and the hooks libCacheSim's size-aware models need beyond the core
/// contract.
pub trait SizeHooks {
    /// Whether the policy orders objects of different sizes: `Ok`, or why not, in one line
    /// that follows the policy's name ("lirs cannot weigh objects: ..."). Default: refused, so a
    /// new policy says so until it is checked with sizes.
    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Err("its structure has not been checked with objects of different sizes")
    }

    /// A demand miss on `b` passed the level's own checks and is about to make room and enter:
    /// return `false` to refuse it (a miss that inserts nothing, counted as rejected), as
    /// libCacheSim's per-policy `can_insert`. The policy may queue frame changes here
    /// ([`SizeHooks::take_pending`]), applied before the level makes room. Default: admit.
    #[inline]
    fn before_insert(&mut self, _b: Block, _frames: &Frames, _cx: &Access) -> bool {
        true
    }

    /// Asked before each eviction that makes room for demand-missed `incoming`: whether
    /// `incoming` itself leaves instead (libCacheSim's GDSF inserts first and evicts after, so a
    /// newcomer ranked below every resident block is its own victim). `true` ends the miss
    /// without inserting it (counted as rejected); the evictions already made stay. Default: never.
    #[inline]
    fn evicts_incoming(&mut self, _incoming: Block, _frames: &Frames, _cx: &Access) -> bool {
        false
    }

    /// The next frame change the policy queued (see [`Pending`]); the level drains them after
    /// [`Policy::on_hit`], [`SizeHooks::before_insert`] and [`Policy::on_insert`]. Default: none.
    #[inline]
    fn take_pending(&mut self) -> Option<Pending> {
        None
    }
}

/// What prefetching, pinning and the levels of a hierarchy may ask of a policy beyond the core
/// contract.
pub trait PrefetchHooks {
    /// The victim just selected will not be evicted (the caller only wanted to know it: the
    /// group guard of the prefetching study's Table 1 prefetcher, [`crate::cache::level::CacheLevel::peek_victim`]):
    /// drop anything `select_victim` kept for the eviction and insertion it expected to follow.
    /// Default: nothing.
    fn forget_victim(&mut self) {}

    /// What this policy asks of the cache level beyond its contract ([`LevelHooks`]); `None`
    /// (the default) for the papers' policies, which ask nothing more.
    #[inline]
    fn level_hooks(&mut self) -> Option<&mut dyn LevelHooks> {
        None
    }

    /// A demand reference to non-resident `b` at a level that does not place blocks on access (a
    /// lower level of a hierarchy placing on eviction): nothing enters, but a policy keeping
    /// history of non-resident blocks may record the reference. Default: nothing.
    fn on_unplaced_miss(&mut self, _b: Block, _cx: &Access) {}

    /// Resident `b` was pinned (its I/O is in flight: it cannot be a victim) or unpinned. The
    /// frame table holds the state; a policy whose victim search walks past pinned blocks may
    /// count them to know when none of its candidates is free. Default: nothing.
    fn on_pin(&mut self, _b: Block, _pinned: bool) {}
}

/// Knowledge of the future: what OPT needs from the engine.
pub trait OracleHooks {
    /// Whether the engine must supply [`Access::next_use`] (OPT).
    fn needs_oracle(&self) -> bool {
        false
    }

    /// A hint that a block referenced soon will next be used at `next_use` (oracle policies:
    /// the policy may prefetch where it will record it; no effect on results).
    #[inline]
    fn hint_next_use(&self, _next_use: u64) {}
}

/// The checks tests run after every step (compiled for tests only).
#[cfg(test)]
pub trait Checked {
    /// Checks internal consistency against the frame table.
    fn check_invariants(&self, frames: &Frames) -> Result<(), String>;

    /// Internal queues in eviction-relevant order, named, for exact-order unit tests.
    fn dump(&self) -> Vec<(&'static str, Vec<Block>)>;
}

/// Under test, every policy is [`Checked`]; outside tests this asks nothing.
#[cfg(test)]
pub trait TestChecks: Checked {}
#[cfg(test)]
impl<T: Checked + ?Sized> TestChecks for T {}
/// Under test, every policy is `Checked`; outside tests this asks nothing.
#[cfg(not(test))]
pub trait TestChecks {}
#[cfg(not(test))]
impl<T: ?Sized> TestChecks for T {}

/// A boxed policy is a policy, so levels whose policy is chosen at run time (the levels of a
/// hierarchy, each with its own type) can share one `CacheLevel<Box<dyn Policy>>` type.
impl<P: Policy + ?Sized> Policy for Box<P> {
    fn name(&self) -> &'static str {
        (**self).name()
    }
    fn wants_repeats(&self) -> bool {
        (**self).wants_repeats()
    }
    #[inline]
    fn hint(&self, b: Block) {
        (**self).hint(b)
    }
    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        (**self).on_hit(b, cx)
    }
    #[inline]
    fn select_victim(&mut self, incoming: Block, frames: &Frames, cx: &Access) -> Option<Block> {
        (**self).select_victim(incoming, frames, cx)
    }
    #[inline]
    fn on_evict(&mut self, b: Block, ev: Evicted, cx: &Access) {
        (**self).on_evict(b, ev, cx)
    }
    #[inline]
    fn on_insert(&mut self, b: Block, kind: InsertKind, cx: &Access) {
        (**self).on_insert(b, kind, cx)
    }
    fn len(&self) -> usize {
        (**self).len()
    }
}

impl<P: Policy + ?Sized> SizeHooks for Box<P> {
    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        (**self).weighs_objects()
    }
    #[inline]
    fn before_insert(&mut self, b: Block, frames: &Frames, cx: &Access) -> bool {
        (**self).before_insert(b, frames, cx)
    }
    #[inline]
    fn evicts_incoming(&mut self, b: Block, frames: &Frames, cx: &Access) -> bool {
        (**self).evicts_incoming(b, frames, cx)
    }
    #[inline]
    fn take_pending(&mut self) -> Option<Pending> {
        (**self).take_pending()
    }
}

impl<P: Policy + ?Sized> PrefetchHooks for Box<P> {
    #[inline]
    fn forget_victim(&mut self) {
        (**self).forget_victim()
    }
    #[inline]
    fn level_hooks(&mut self) -> Option<&mut dyn LevelHooks> {
        (**self).level_hooks()
    }
    fn on_unplaced_miss(&mut self, b: Block, cx: &Access) {
        (**self).on_unplaced_miss(b, cx)
    }
    fn on_pin(&mut self, b: Block, pinned: bool) {
        (**self).on_pin(b, pinned)
    }
}

impl<P: Policy + ?Sized> OracleHooks for Box<P> {
    fn needs_oracle(&self) -> bool {
        (**self).needs_oracle()
    }
    #[inline]
    fn hint_next_use(&self, next_use: u64) {
        (**self).hint_next_use(next_use)
    }
}

#[cfg(test)]
impl<P: Policy + ?Sized> Checked for Box<P> {
    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        (**self).check_invariants(frames)
    }
    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        (**self).dump()
    }
}

/// Checks that the resident blocks a policy lists are exactly the frame table's.
pub fn check_same_residents(
    policy_residents: impl Iterator<Item = Block>,
    frames: &Frames,
) -> Result<(), String> {
    let mut mine: Vec<Block> = policy_residents.collect();
    mine.sort_unstable();
    let theirs: Vec<Block> = frames.resident_blocks().collect();
    if mine != theirs {
        return Err(format!(
            "policy tracks {} resident blocks, frame table holds {}",
            mine.len(),
            theirs.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod testutil {
    use super::{Block, Policy, NEVER};
    use crate::cache::level::CacheLevel;

    /// Runs `refs` through `policy` (with a next-use oracle) and returns the level, checked
    /// after every step.
    pub fn run<P: Policy>(policy: P, capacity: usize, refs: &[Block]) -> CacheLevel<P> {
        let universe = refs.iter().max().map_or(1, |&m| m as usize + 1);
        let mut level = CacheLevel::new(policy, capacity, universe);
        for (i, &b) in refs.iter().enumerate() {
            let next = refs[i + 1..]
                .iter()
                .position(|&x| x == b)
                .map_or(NEVER, |d| (i + 1 + d) as u64);
            level.access(b, next);
            level.check().unwrap();
        }
        level
    }

    /// Which of `refs` hit, as a string of `h` and `m`.
    pub fn pattern<P: Policy>(make: impl Fn() -> P, capacity: usize, refs: &[Block]) -> String {
        (1..=refs.len())
            .map(|n| {
                let before = run(make(), capacity, &refs[..n - 1]).stats().hits;
                let after = run(make(), capacity, &refs[..n]).stats().hits;
                if after > before {
                    'h'
                } else {
                    'm'
                }
            })
            .collect()
    }
}
