//! Reference models of libCacheSim's (libcachesim 0.3.5) variants where they cannot be reached
//! by parameters of the papers' policies; `--preset libcachesim` chooses them.

pub mod lirs;
pub mod slru;
pub mod wtinylfu;
