//! Analyses of a trace beside simulation: statistics and reuse distances, idle distances below
//! a client, miss-ratio curves, and bounds on the optimum for sized objects.

pub mod distances;
pub mod mrc;
pub mod opt_bounds;
pub mod stats;
