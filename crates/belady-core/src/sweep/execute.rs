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
    /// Runs another sweep on the same store claimed and has stored since: this call waited
    /// for them (every run counted here is in the store when the call returns).
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
    /// concurrent sweeps share the work instead of each computing every run. The claimed runs
    /// that differ only in policy and cache size form one grid (`groups`), performed by one
    /// [`crate::run::run`]: the trace is streamed once per grid and each chunk shared by its runs,
    /// as `belady sim` does, and the pool's threads work inside each grid.
    ///
    /// A run another sweep holds is waited for: the call returns once it is stored, and takes
    /// it over when that sweep stops without storing it (killed, failed), so a successful return
    /// means every run of `todo` is in the store.
    pub fn execute_counted(
        &self,
        todo: &[usize],
        store: &store::Store,
        threads: Option<usize>,
        progress: &mut dyn FnMut(),
    ) -> Result<Executed> {
        let claims = store.claims()?;
        let mut done = Executed::default();
        let mut pending = todo.to_vec();
        loop {
            let (computed, held) =
                self.execute_pass(&pending, store, &claims, threads, progress)?;
            done.computed += computed;
            if held.is_empty() {
                return Ok(done);
            }
            std::thread::sleep(WAIT_FOR_OTHERS);
            let stored = store.keys()?;
            pending.clear();
            for i in held {
                if stored.contains(&self.runs[i].1.key()) {
                    done.left_to_others += 1;
                    progress();
                } else {
                    pending.push(i);
                }
            }
        }
    }

    /// One pass of [`Plan::execute_counted`]: claims what it can of `todo`, computes and stores
    /// it; the runs computed, and those another sweep holds (or stored before they were claimed).
    fn execute_pass(
        &self,
        todo: &[usize],
        store: &store::Store,
        claims: &store::Claims,
        threads: Option<usize>,
        progress: &mut dyn FnMut(),
    ) -> Result<(usize, Vec<usize>)> {
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Option<Result<Value>>)>();
        let mut failure = None;
        let mut computed = 0;
        let mut held = Vec::new();
        std::thread::scope(|scope| -> Result<()> {
            scope.spawn(move || {
                let mut claimed = Vec::new();
                for &i in todo {
                    match claims.claim(&self.runs[i].1.key()) {
                        Ok(true) => claimed.push(i),
                        Ok(false) => {
                            let _ = tx.send((i, None));
                        }
                        Err(e) => {
                            let _ = tx.send((i, Some(Err(e))));
                        }
                    }
                }
                let work = || {
                    for group in groups(self, &claimed) {
                        for (i, result) in run_group(self, &group) {
                            // The receiver stops early only on a store error; later results
                            // are moot.
                            let _ = tx.send((i, Some(result)));
                        }
                    }
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
                    None => {
                        held.push(i);
                        continue;
                    }
                    Some(Ok(r)) => {
                        store.insert(&self.name, config, &r)?;
                        computed += 1;
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
        failure.map_or(Ok((computed, held)), Err)
    }
}

/// How long a sweep waits between looks at runs another sweep holds.
const WAIT_FOR_OTHERS: std::time::Duration = std::time::Duration::from_millis(200);

/// The runs `todo` in grids: runs over one trace whose configurations differ only in policy and
/// cache size, with the same policy settings (a cell's settings are for its own policy, so a
/// policy with settings of its own forms its own grid). Grids come in the order of their first run.
fn groups(plan: &Plan, todo: &[usize]) -> Vec<Vec<usize>> {
    let mut order: Vec<String> = Vec::new();
    let mut by_key: std::collections::HashMap<String, Vec<usize>> = Default::default();
    for &i in todo {
        let (t, cell) = &plan.runs[i];
        let shared = crate::RunConfig {
            policies: Vec::new(),
            cache_sizes: Vec::new(),
            ..cell.run.clone()
        };
        let key = format!(
            "{t}|{}",
            serde_json::to_string(&shared).expect("configurations serialise")
        );
        by_key
            .entry(key.clone())
            .or_insert_with(|| {
                order.push(key);
                Vec::new()
            })
            .push(i);
    }
    order
        .into_iter()
        .map(|k| by_key.remove(&k).expect("listed"))
        .collect()
}

/// Performs one grid ([`groups`]) as one run of its policies × sizes; each cell's row, or the
/// grid's error for every cell.
fn run_group(plan: &Plan, group: &[usize]) -> Vec<(usize, Result<Value>)> {
    let first = &plan.runs[group[0]].1;
    if group.len() == 1 || !first.run.levels.is_empty() {
        return group.iter().map(|&i| (i, plan.run(i))).collect();
    }
    let mut policies: Vec<String> = Vec::new();
    let mut sizes: Vec<String> = Vec::new();
    for &i in group {
        let run = &plan.runs[i].1.run;
        for (list, item) in [
            (&mut policies, &run.policies[0]),
            (&mut sizes, &run.cache_sizes[0]),
        ] {
            if !list.contains(item) {
                list.push(item.clone());
            }
        }
    }
    let grid = crate::RunConfig {
        policies: policies.clone(),
        cache_sizes: sizes.clone(),
        ..first.run.clone()
    };
    let rows = match crate::run::run(&grid) {
        Ok(out) if out.runs.len() == policies.len() * sizes.len() => out.rows(),
        // A grid that fails is run cell by cell, so each cell gets its own error.
        _ => return group.iter().map(|&i| (i, plan.run(i))).collect(),
    };
    group
        .iter()
        .map(|&i| {
            let run = &plan.runs[i].1.run;
            let p = policies.iter().position(|x| *x == run.policies[0]);
            let s = sizes.iter().position(|x| *x == run.cache_sizes[0]);
            let (Some(p), Some(s)) = (p, s) else {
                unreachable!("every cell's policy and size are in its grid")
            };
            (i, Ok(rows[p * sizes.len() + s].clone()))
        })
        .collect()
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
