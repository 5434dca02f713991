//! Reference simulators' departures from the papers, in one place the engines consult. The
//! `Policy` trait and the engines' own code keep what the papers describe; a compat rule says
//! where and how a reference simulator behaves differently.

pub mod accusim;
pub mod bitfaster;
pub mod libcachesim;
