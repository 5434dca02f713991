//! Reference models of BitFaster.Caching's departures from Caffeine, where its published figures
//! are the check: `wtinylfu.climber=bitfaster` chooses them.

pub mod climber;
