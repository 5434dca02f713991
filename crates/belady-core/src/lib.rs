//! belady-core: a buffer-cache and prefetching simulator.
//!
//! Data flows down the tree once. A [`RunConfig`] ([`run::config`]) enters [`run::run`], the one
//! engine decision; [`trace`] reads the input (its readers, and [`trace::ingest`], which turns a
//! block trace into chunks of dense ids); the [`engine`] feeds them through its one loop
//! ([`engine::run_loop`]) to the block grid ([`engine::block`]), the file engine with read-ahead,
//! disks and hierarchies ([`engine::file`], [`engine::hierarchy`]); each run steps a
//! [`cache::level::CacheLevel`], whose [`cache::frames::Frames`] table owns all block state while
//! a [`policy::Policy`] decides order and victims; rows leave as [`run::rows::RunResult`].
//! Reference simulators' departures from the papers live in [`compat`]; [`analysis`] holds what
//! runs beside simulation (statistics, distances, miss-ratio curves, bounds on the optimum). Only the engine calls
//! across components.

pub mod analysis;
pub mod cache;
pub mod compat;
pub mod disk;
pub mod engine;
pub mod error;
pub mod limits;
pub mod outfile;
pub mod policy;
pub mod prefetch;
pub mod run;
pub mod sweep;
pub mod threads;
pub mod trace;
pub mod workload;

pub use cache::size::CacheSize;
pub use engine::{run_grid, run_one, PreparedTrace, RunResult};
pub use error::{Error, Result};
pub use policy::registry::{parse_policies, PolicySpec, Preset, POLICIES};
pub use run::config::RunConfig;
pub use run::{run, Outcome};
pub use trace::{BlockTrace, Format, OpFilter, ReadOptions};
