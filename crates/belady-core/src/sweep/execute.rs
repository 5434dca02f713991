//! Execution: a plan's runs on a thread pool into the store, and one run from its configuration
//! alone (what a remote worker does).

use super::cell::{sha256_file, CellConfig};
use super::{store, Plan};
use crate::error::{Error, Result};
use serde_json::Value;

/// What [`Plan::execute_counted`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Executed {
    /// Runs computed and stored by this call.
    pub computed: usize,
    /// Runs another sweep on the same store was computing, or had stored meanwhile: left to it.
    pub left_to_others: usize,
}

impl Plan {
    /// Performs the runs `todo` on `threads` workers (all cores when `None`) and stores each
    /// result as soon as it is known, from this thread alone; `progress` is called after each.
    /// The first failed run's error is returned after the others finish; stored runs stay.
    pub fn execute(
        &self,
        todo: &[usize],
        store: &store::Store,
        threads: Option<usize>,
        progress: &mut dyn FnMut(),
    ) -> Result<()> {
        self.execute_counted(todo, store, threads, progress)
            .map(|_| ())
    }

    /// [`Plan::execute`], saying how many runs it computed and how many it left to another
    /// sweep on the same store: each run is claimed in the store before it is computed, so
    /// concurrent sweeps share the work instead of each computing every run.
    pub fn execute_counted(
        &self,
        todo: &[usize],
        store: &store::Store,
        threads: Option<usize>,
        progress: &mut dyn FnMut(),
    ) -> Result<Executed> {
        use rayon::prelude::*;
        let claims = store.claims()?;
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Option<Result<Value>>)>();
        let mut failure = None;
        let mut done = Executed::default();
        std::thread::scope(|scope| -> Result<()> {
            let claims = &claims;
            scope.spawn(move || {
                let work = || {
                    todo.par_iter().for_each_with(tx, |tx, &i| {
                        let result = match claims.claim(&self.runs[i].1.key()) {
                            Ok(true) => Some(self.run(i)),
                            Ok(false) => None,
                            Err(e) => Some(Err(e)),
                        };
                        // The receiver stops early only on a store error; later results are moot.
                        let _ = tx.send((i, result));
                    })
                };
                match rayon::ThreadPoolBuilder::new()
                    .num_threads(threads.unwrap_or(0))
                    .build()
                {
                    Ok(pool) => pool.install(work),
                    Err(_) => work(),
                }
            });
            for (i, result) in rx {
                let config = &self.runs[i].1;
                match result {
                    None => done.left_to_others += 1,
                    Some(Ok(r)) => {
                        store.insert(&self.name, config, &r)?;
                        done.computed += 1;
                    }
                    Some(Err(e)) => {
                        failure.get_or_insert(Error::config(
                            "run",
                            format!(
                                "{} at {} on {}",
                                config.label(),
                                config.cache_size(),
                                config.trace
                            ),
                            e.to_string(),
                        ));
                    }
                }
                progress();
            }
            Ok(())
        })?;
        // Claims are only a lock on work in progress: stored runs need none, failed ones are
        // free for the next sweep to try.
        claims.release_all()?;
        failure.map_or(Ok(done), Err)
    }
}

/// Performs one cell through [`crate::run::run`] (which streams the trace as `belady sim`
/// does); returns its row as `belady sim --json` prints it.
pub(super) fn run_cell(cell: &CellConfig) -> Result<Value> {
    let out = crate::run::run(&cell.run)?;
    let mut rows = out.rows();
    if rows.len() != 1 {
        return Err(Error::config(
            "run",
            cell.label(),
            format!(
                "a sweep cell makes one run, but this one made {}",
                rows.len()
            ),
        ));
    }
    Ok(rows.remove(0))
}

/// Performs a run from its configuration alone, reading the trace from its `trace_path` (and
/// checking its hash): what a remote worker does. Returns the row `belady sim --json` prints.
pub fn run_config(config: &CellConfig) -> Result<Value> {
    let path = &config.run.trace;
    let hash = sha256_file(path)?;
    if hash != config.trace_hash {
        return Err(Error::config(
            "trace",
            path.display(),
            format!(
                "has SHA-256 {hash} but the run was planned for {}",
                config.trace_hash
            ),
        ));
    }
    run_cell(config)
}
