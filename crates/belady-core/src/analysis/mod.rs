//! Analyses of a trace beside simulation: statistics and reuse distances, idle distances below
//! a client, and miss-ratio curves.

pub mod distances;
pub mod mrc;
pub mod stats;
