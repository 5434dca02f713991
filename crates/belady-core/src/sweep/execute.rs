//! Execution: a plan's runs on a thread pool into the store, and one run from its configuration
//! alone (what a remote worker does).

use super::cell::{CellConfig, LoadedTrace};
use super::{store, Plan};
use crate::engine::RunResult;
use crate::error::{Error, Result};
use std::path::Path;

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
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Option<Result<RunResult>>)>();
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
                                "{} at {} blocks on {}",
                                config.policy, config.cache_blocks, config.trace
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

/// Performs a run from its configuration alone, reading the trace from `trace_path` (and checking
/// its hash): what a remote worker does.
pub fn run_config(config: &CellConfig) -> Result<RunResult> {
    let path = Path::new(&config.trace_path);
    let options = config.run_config()?.option_grid()?;
    let levels = !config.levels.is_empty();
    let trace = LoadedTrace::load(
        &config.trace,
        path,
        Some(&config.format),
        config.block_size,
        &options,
        !levels,
        levels,
    )?;
    if trace.hash != config.trace_hash {
        return Err(Error::config(
            "trace",
            path.display(),
            format!(
                "has SHA-256 {} but the run was planned for {}",
                trace.hash, config.trace_hash
            ),
        ));
    }
    trace.run(config)
}
