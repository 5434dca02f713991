//! Analyses of a trace beyond simulating policies over it.

pub mod opt_bounds;
