//! The results store: one SQLite table, one row per run, keyed by the run's configuration hash.
//!
//! Each result is written in its own transaction, so a writer killed at any moment leaves only
//! whole rows; WAL journaling lets readers (progress checks, reports) look while a sweep writes.

use super::RunConfig;
use crate::engine::RunResult;
use crate::error::{Error, Result};
use rusqlite::{params, Connection};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// An open results store.
pub struct Store {
    db: Connection,
    path: PathBuf,
}

/// One stored run as exported: its experiment, configuration and result.
#[derive(Clone, Debug)]
pub struct StoredRun {
    /// The experiment that produced it.
    pub experiment: String,
    /// Its configuration.
    pub config: RunConfig,
    /// Its result.
    pub result: RunResult,
}

fn sql_error(path: &Path, e: rusqlite::Error) -> Error {
    Error::config(
        "results store",
        path.display(),
        format!("is not a usable belady results store: {e}"),
    )
}

impl Store {
    /// Opens the store at `path`, creating it (and its table) if needed.
    pub fn open(path: &Path) -> Result<Store> {
        let db = Connection::open(path).map_err(|e| sql_error(path, e))?;
        db.execute_batch(
            "PRAGMA journal_mode = WAL;
             PRAGMA synchronous = NORMAL;
             PRAGMA busy_timeout = 10000;
             CREATE TABLE IF NOT EXISTS runs (
                 key TEXT PRIMARY KEY,
                 experiment TEXT NOT NULL,
                 trace TEXT NOT NULL,
                 trace_hash TEXT NOT NULL,
                 format TEXT NOT NULL,
                 policy TEXT NOT NULL,
                 cache_blocks INTEGER NOT NULL,
                 prefetch TEXT NOT NULL,
                 disk TEXT NOT NULL,
                 belady_version TEXT NOT NULL,
                 requests INTEGER NOT NULL,
                 hits INTEGER NOT NULL,
                 misses INTEGER NOT NULL,
                 hit_ratio REAL NOT NULL,
                 disk_requests INTEGER,
                 exec_time_s REAL,
                 config_json TEXT NOT NULL,
                 result_json TEXT NOT NULL
             );",
        )
        .map_err(|e| sql_error(path, e))?;
        Ok(Store {
            db,
            path: path.to_path_buf(),
        })
    }

    /// Opens an existing store; an absent file is an error, not a new store.
    pub fn open_existing(path: &Path) -> Result<Store> {
        if !path.is_file() {
            return Err(Error::config(
                "results store",
                path.display(),
                "does not exist (run `belady sweep` first)",
            ));
        }
        Store::open(path)
    }

    /// Where the store lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Keys of every stored run.
    pub fn keys(&self) -> Result<HashSet<String>> {
        let err = |e| sql_error(&self.path, e);
        let mut stmt = self.db.prepare("SELECT key FROM runs").map_err(err)?;
        let keys = stmt
            .query_map([], |row| row.get::<_, String>(0))
            .map_err(err)?
            .collect::<rusqlite::Result<_>>()
            .map_err(err)?;
        Ok(keys)
    }

    /// Stores one run (its own transaction); a run already stored is left as it is.
    pub fn insert(&self, experiment: &str, config: &RunConfig, r: &RunResult) -> Result<()> {
        let io = r.io.as_ref();
        let config_json = serde_json::to_string(config).expect("configurations serialise");
        let result_json = serde_json::to_string(r).expect("results serialise");
        self.db
            .execute(
                "INSERT OR IGNORE INTO runs VALUES
                 (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
                params![
                    config.key(),
                    experiment,
                    config.trace,
                    config.trace_hash,
                    config.format,
                    r.policy,
                    r.cache_blocks as i64,
                    config.prefetch,
                    config.disk,
                    config.belady_version,
                    r.requests as i64,
                    r.hits as i64,
                    r.misses as i64,
                    r.hit_ratio,
                    io.map(|io| io.disk_requests as i64),
                    io.and_then(|io| io.exec_time_s),
                    config_json,
                    result_json,
                ],
            )
            .map_err(|e| sql_error(&self.path, e))?;
        Ok(())
    }

    /// Every stored run, in a fixed order (trace, read-ahead, disk, policy, size, key).
    pub fn runs(&self) -> Result<Vec<StoredRun>> {
        let err = |e| sql_error(&self.path, e);
        let mut stmt = self
            .db
            .prepare(
                "SELECT experiment, config_json, result_json FROM runs
                 ORDER BY trace, prefetch, disk, policy, cache_blocks, key",
            )
            .map_err(err)?;
        let rows: Vec<(String, String, String)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(err)?
            .collect::<rusqlite::Result<_>>()
            .map_err(err)?;
        rows.into_iter()
            .map(|(experiment, config, result)| {
                let bad = |e: serde_json::Error| {
                    Error::config(
                        "results store",
                        self.path.display(),
                        format!("holds a row belady cannot read: {e}"),
                    )
                };
                Ok(StoredRun {
                    experiment,
                    config: serde_json::from_str(&config).map_err(bad)?,
                    result: serde_json::from_str(&result).map_err(bad)?,
                })
            })
            .collect()
    }
}
