//! Experiments: a grid of runs (traces × read-ahead × disks × policies × sizes, or hierarchies
//! × placements), each described completely by a [`CellConfig`] (a [`crate::RunConfig`] with
//! one value per list, plus its trace's name and hash) whose SHA-256 is its key in the results
//! [`store`].
//!
//! The command line (`belady sweep`), the Python package (`belady.sweep`) and Dask workers all go
//! through here: [`Plan::new`] (`plan.rs`) checks the experiment, hashes every trace and lists the
//! cells; [`Plan::run`] performs one through [`crate::run::run`] (which alone picks the engine);
//! [`Plan::execute`] (`execute.rs`) runs them into the store (`store.rs`); [`run_config`]
//! performs a run from its configuration alone (what a remote worker gets).

mod cell;
#[cfg(test)]
mod defect_tests;
mod execute;
mod experiment;
mod plan;
mod schema;
pub mod store;
#[cfg(test)]
mod tests;

pub use cell::{sha256_file, CellConfig, PlannedTrace};
pub use execute::{run_config, Executed};
pub use experiment::{Experiment, TraceSpec};
pub use plan::Plan;

/// The store a sweep writes when nothing else is named.
pub const DEFAULT_STORE: &str = "belady-results.sqlite";
