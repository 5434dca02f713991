//! The bound on worker threads, one check for every front end (`--threads`, Python's `threads=`).

use crate::error::{Error, Result};

/// Most worker threads a run may ask for: far above any machine's cores, low enough that a typo
/// (`--threads 100000`) is refused at once instead of spending minutes starting threads.
pub const MAX_THREADS: usize = 1024;

/// `threads` if it is within 1..=[`MAX_THREADS`]; otherwise an error naming `key` (the option
/// or keyword the user gave).
pub fn check_threads(key: &str, threads: usize) -> Result<usize> {
    if (1..=MAX_THREADS).contains(&threads) {
        Ok(threads)
    } else {
        Err(Error::config(
            key,
            threads,
            format!("expected 1 to {MAX_THREADS} worker threads (omit it to use every core)"),
        ))
    }
}
