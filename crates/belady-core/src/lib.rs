//! belady-core: a buffer-cache and prefetching simulator.
//!
//! Pipeline: a trace reader ([`trace`]) yields requests; [`trace::BlockTrace`] maps block ids to
//! dense indices once; the [`engine`] runs the references through a [`level::CacheLevel`], whose
//! [`frames::Frames`] table owns all block state while a [`policy::Policy`] decides order and
//! victims. Only the engine calls across components.

pub mod admission;
pub mod analysis;
pub mod bounds;
pub mod builder;
pub mod cache_model;
pub mod compat;
pub mod config;
pub mod disk;
pub mod distances;
pub mod engine;
pub mod error;
pub mod filesim;
pub mod frames;
pub mod hierarchy;
pub mod io;
pub mod level;
pub mod mrc;
pub mod outfile;
pub mod policy;
pub mod prefetch;
pub mod report;
pub mod run;
pub mod simulate;
pub mod size;
pub mod stats;
pub mod stream;
pub mod sweep;
pub mod threads;
pub mod trace;
pub mod workload;

pub use config::RunConfig;
pub use engine::{run_grid, run_one, PreparedTrace, RunResult};
pub use error::{Error, Result};
pub use policy::registry::{parse_policies, PolicySpec, Preset, POLICIES};
pub use run::{run, Outcome};
pub use size::CacheSize;
pub use trace::{BlockTrace, Format, OpFilter, ReadOptions};
