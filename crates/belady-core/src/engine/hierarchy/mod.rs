//! Multi-level caches: a client cache over one or more lower caches (a storage server's), each
//! level with its own policy, size and placement rule.
//!
//! Every hierarchy runs on the file engine ([`crate::engine::file::run_file_hierarchies`]): its cache
//! is the client and [`Below`] holds the lower levels' state (`state.rs`), with, on a device, the
//! links, reload queue and demotion waits its event loop consults ([`timing`]): the one clock.
//! The block-level runs of [`Hierarchy`] alone, with their own clock (`clock.rs`), are the
//! reference model the tests compare that engine with (`reference.rs`); both are test code.
//!
//! Level 0 is the client: every demand reference reaches it and a miss places the block there.
//! A reference that misses level `i` goes on to level `i + 1`, and one that misses every level is
//! a disk read. How a block enters a lower level is that level's [`Placement`]:
//!
//! - `access` (inclusive, the common case): placed when a reference misses it on the way down;
//! - `eviction` (Chen, Zhou and Li, "Eviction-based cache placement for storage caches", USENIX
//!   ATC 2003): placed when the level above evicts it. The level learns of the eviction from a
//!   client content-tracking table (one entry per buffer slot of the level above, see
//!   [`ContentTable`]) and reloads the block from disk; a miss places nothing. With a threshold
//!   `N` (`eviction:N`) only blocks that reached this level at least `N` times are reloaded;
//! - `demote` (Wong and Wilkes's DEMOTE): the level above sends each block it evicts down itself,
//!   with no disk I/O but one block of transfer; a miss places nothing;
//! - `exclusive`: as `demote`, and a hit hands the block up, leaving this level, so the two
//!   levels never hold the same block. When the level above places a block by reload or demotion
//!   while this level holds it, this level hands it up too (and serves the reload: no disk read).
//!
//! Reloaded and demoted blocks enter a level the way a prefetched block does (resident, not yet
//! referenced: [`crate::policy::InsertKind::Prefetch`]), so each policy applies its own rule for
//! blocks that arrive unasked; their first hit is counted as a reload or demotion *used*, their
//! eviction before any hit as *wasted*.
//!
//! Order of events for one demand reference: the read goes down level by level first; then the
//! eviction notices and demotions it caused are handled, level by level from the top, each placed
//! block possibly evicting another and notifying the level below in turn. Untimed, a reload
//! completes at once; on a device it waits for idle device time and completes later.
//!
//! Documented choices:
//! - A notice for a block the level already holds places nothing and leaves the policy's order as
//!   it is (`already_resident`); the block was placed before and has been referenced since.
//! - A level that does not place on access still sees every reference that reaches it; its
//!   policy may record a miss in its history ([`crate::policy::Policy::on_unplaced_miss`]: MQ
//!   raises the block's count in Qout). At such levels MQ defaults to `unused_count=keep`, so a
//!   placed block evicted before its first hit keeps the count of its earlier references.
//! - Reloads go to the disk even when a level further down holds the block, as in the paper.
//! - OPT needs the future of a level's own request stream, which depends on the levels above, so
//!   it is accepted at the client level only.

pub use crate::run::rows::LevelReport;

pub mod below;
/// The reference model's own clock (test code only).
#[cfg(test)]
mod clock;
/// The block hierarchy with its own clock: the reference the file engine's hierarchies are
/// checked against (test code only).
#[cfg(test)]
pub mod reference;
/// A block-level run's results (the reference model's; test code only).
#[cfg(test)]
mod result;
mod slots;
mod spec;
mod state;
pub mod timing;
pub use below::{Below, ClientLog, ReplayIo};
#[cfg(test)]
pub(crate) use clock::{HierarchyTiming, TimedHierarchy};
#[cfg(test)]
pub(crate) use result::HierarchyResult;
pub use slots::ContentTable;
pub use spec::{HierarchySpec, LevelSpec, Placement};
#[cfg(test)]
pub use state::Step;
pub use state::{Hierarchy, Source};
pub use timing::{BelowTiming, Links, TimingReport};

#[cfg(test)]
mod tests;
