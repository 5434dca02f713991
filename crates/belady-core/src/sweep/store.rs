//! The results store: one SQLite table, one row per run, keyed by the run's configuration hash.
//!
//! Each result is written in its own transaction, so a writer killed at any moment leaves only
//! whole rows; WAL journaling lets readers (progress checks, reports) look while a sweep writes.

use super::schema::{self, Schema};
use super::CellConfig;
use crate::engine::RunResult;
use crate::error::{Error, Result};
use rusqlite::{params, Connection};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// An open results store.
pub struct Store {
    db: Connection,
    path: PathBuf,
    schema: Schema,
}

/// One stored run as exported: its experiment, configuration and result.
#[derive(Clone, Debug)]
pub struct StoredRun {
    /// Its key in the store.
    pub key: String,
    /// The experiment that produced it.
    pub experiment: String,
    /// Its configuration.
    pub config: CellConfig,
    /// Its result.
    pub result: RunResult,
}

fn sql_error(path: &Path, e: rusqlite::Error) -> Error {
    // SQLite's reason, without the statement rusqlite appends to some (one line, not SQL).
    let reason = match &e {
        rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
        other => other.to_string(),
    };
    let reason = reason.lines().next().unwrap_or_default().to_string();
    Error::config(
        "results store",
        path.display(),
        format!("is not a usable belady results store: {reason}"),
    )
}

/// Columns of the `runs` table, as [`Store::open`] creates it.
const RUN_COLUMNS: [&str; 18] = [
    "key",
    "experiment",
    "trace",
    "trace_hash",
    "format",
    "policy",
    "cache_blocks",
    "prefetch",
    "disk",
    "belady_version",
    "requests",
    "hits",
    "misses",
    "hit_ratio",
    "disk_requests",
    "exec_time_s",
    "config_json",
    "result_json",
];

/// Refuses a file that is not a belady store (an empty or foreign file, another database, a
/// store cut short) in one line, opening it read-only so nothing is created or changed.
fn check_is_store(path: &Path) -> Result<()> {
    open_read_only(path).map(drop)
}

/// Opens a belady store read-only, creating nothing beside it (immutable, unless a killed
/// writer left a WAL, which is read too), after checking that it is one ([`check_is_store`]).
fn open_read_only(path: &Path) -> Result<Connection> {
    let not_store = |why: String| {
        Error::config(
            "results store",
            path.display(),
            format!("is not a belady results store: {why}"),
        )
    };
    let mut magic = [0u8; 16];
    let read = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => not_store("not an SQLite database".into()),
            _ => Error::io(path, e),
        });
    read?;
    if &magic != b"SQLite format 3\0" {
        return Err(not_store("not an SQLite database".into()));
    }
    // Immutable: SQLite reads the file as it is, creating no journal, WAL or lock file beside it.
    let mut uri = String::from("file:");
    for c in path.display().to_string().chars() {
        match c {
            '%' | '?' | '#' => uri.push_str(&format!("%{:02X}", c as u32)),
            c => uri.push(c),
        }
    }
    // A store whose writer was killed keeps its latest pages (even its table) in the WAL beside
    // it: read those too, still read-only. Without a WAL, immutable: no file is created beside it.
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    if !Path::new(&wal).exists() {
        uri.push_str("?immutable=1");
    }
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI;
    let db = Connection::open_with_flags(&uri, flags).map_err(|e| sql_error(path, e))?;
    let mut columns = db
        .prepare("SELECT name FROM pragma_table_info('runs')")
        .map_err(|e| sql_error(path, e))?;
    let names: HashSet<String> = columns
        .query_map([], |row| row.get(0))
        .and_then(|rows| rows.collect())
        .map_err(|e| sql_error(path, e))?;
    if names.is_empty() {
        return Err(not_store("it has no runs table".into()));
    }
    if let Some(missing) = RUN_COLUMNS.iter().find(|c| !names.contains(**c)) {
        return Err(not_store(format!("its runs table has no {missing} column")));
    }
    drop(columns);
    Ok(db)
}

impl Store {
    /// Opens the store at `path`, creating it (and its table) if needed; a file there that holds
    /// anything but a store is refused, unchanged.
    pub fn open(path: &Path) -> Result<Store> {
        if std::fs::metadata(path).is_ok_and(|m| m.len() > 0) {
            check_is_store(path)?;
        }
        let mut db = Connection::open(path).map_err(|e| sql_error(path, e))?;
        db.execute_batch(&format!(
            "PRAGMA journal_mode = WAL;
             PRAGMA synchronous = NORMAL;
             PRAGMA busy_timeout = 10000;
             {}",
            schema::create_table()
        ))
        .map_err(|e| sql_error(path, e))?;
        let schema = schema::migrate(&mut db).map_err(|e| sql_error(path, e))?;
        Ok(Store {
            db,
            path: path.to_path_buf(),
            schema,
        })
    }

    /// Opens an existing store to read it (`results export`, `report`); an absent file is an
    /// error, not a new store. Read-only: nothing is written to it or created beside it (no
    /// journal, WAL or shared-memory file), as docs/limits.md says.
    pub fn open_existing(path: &Path) -> Result<Store> {
        if !path.is_file() {
            return Err(Error::config(
                "results store",
                path.display(),
                "does not exist (run `belady sweep` first)",
            ));
        }
        // Nothing to read from an empty or foreign file: refuse it rather than make it a store.
        let db = open_read_only(path)?;
        let schema = schema::read(&db).map_err(|e| sql_error(path, e))?;
        Ok(Store {
            db,
            path: path.to_path_buf(),
            schema,
        })
    }

    /// The store's connection, for readers that query it themselves (`report`).
    pub fn into_connection(self) -> Connection {
        self.db
    }

    /// A second connection for claiming runs from worker threads (see [`Claims`]).
    pub fn claims(&self) -> Result<Claims> {
        let err = |e| sql_error(&self.path, e);
        let db = Connection::open(&self.path).map_err(err)?;
        db.execute_batch(
            "PRAGMA busy_timeout = 10000;
             CREATE TABLE IF NOT EXISTS claims (
                 key TEXT PRIMARY KEY,
                 owner TEXT NOT NULL
             );",
        )
        .map_err(err)?;
        Ok(Claims {
            db: std::sync::Mutex::new(db),
            path: self.path.clone(),
            owner: owner_id(),
        })
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

    /// Stores one run (its own transaction) with its row as `belady sim --json` prints it; a
    /// run already stored is left as it is.
    pub fn insert(
        &self,
        experiment: &str,
        config: &CellConfig,
        row: &serde_json::Value,
    ) -> Result<()> {
        let r: RunResult = serde_json::from_value(row.clone()).map_err(|e| {
            Error::config("run result", config.label(), format!("is not a row: {e}"))
        })?;
        let result_json = serde_json::to_string(row).expect("results serialise");
        let (sql, values) = schema::insert(experiment, config, &r, &result_json, &self.schema);
        self.db
            .execute(&sql, rusqlite::params_from_iter(values))
            .map_err(|e| sql_error(&self.path, e))?;
        Ok(())
    }

    /// Every stored run, in a fixed order: trace, read-ahead, disk, policy, capacity (by unit,
    /// then by value), key.
    pub fn runs(&self) -> Result<Vec<StoredRun>> {
        let err = |e| sql_error(&self.path, e);
        let mut stmt = self
            .db
            .prepare(
                "SELECT key, experiment, trace, prefetch, disk, policy, config_json, result_json
                 FROM runs",
            )
            .map_err(err)?;
        type Stored = (
            String,
            String,
            String,
            String,
            String,
            String,
            String,
            String,
        );
        let rows: Vec<Stored> = stmt
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                ))
            })
            .map_err(err)?
            .collect::<rusqlite::Result<_>>()
            .map_err(err)?;
        let mut runs = rows
            .into_iter()
            .map(
                |(key, experiment, trace, prefetch, disk, policy, config, result)| {
                    let bad = |e: serde_json::Error| {
                        Error::config(
                            "results store",
                            self.path.display(),
                            format!("holds a row belady cannot read: {e}"),
                        )
                    };
                    let config: CellConfig = serde_json::from_str(&config).map_err(bad)?;
                    let mut result: RunResult = serde_json::from_str(&result).map_err(bad)?;
                    result.upgrade(config.run.cache_sizes.first().map(String::as_str));
                    let order = (trace, prefetch, disk, policy, result.capacity.sort_key());
                    let run = StoredRun {
                        key,
                        experiment,
                        config,
                        result,
                    };
                    Ok((order, run))
                },
            )
            .collect::<Result<Vec<_>>>()?;
        runs.sort_by(|a, b| (&a.0, &a.1.key).cmp(&(&b.0, &b.1.key)));
        Ok(runs.into_iter().map(|(_, run)| run).collect())
    }
}

/// Runs being computed, recorded in the store so that concurrent sweeps compute each run once.
///
/// A claim names its owner as `pid:start-time:count` of the sweep's process; a claim whose owner is no
/// longer running (a sweep killed with `kill -9`) is taken over, so it never blocks a resume.
/// Owners are checked through `/proc`: sweeps sharing a store over a network file system from
/// several machines are not coordinated (SQLite's locking is not reliable there either).
pub struct Claims {
    db: std::sync::Mutex<Connection>,
    path: PathBuf,
    owner: String,
}

/// A new claim owner in this process: its pid and start time (so a reused pid is not mistaken
/// for it) and a count, so two sweeps in one process (a Python session) are told apart too.
fn owner_id() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let pid = std::process::id();
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{pid}:{}:{n}", start_time(pid).unwrap_or_default())
}

/// The start time of process `pid` in clock ticks since boot (field 22 of /proc/PID/stat).
fn start_time(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: count from its last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19).map(str::to_string)
}

/// Whether the process that wrote `owner` still runs.
fn owner_alive(owner: &str) -> bool {
    let mut parts = owner.split(':');
    let (Some(pid), Some(start)) = (parts.next(), parts.next()) else {
        return false;
    };
    let Ok(pid) = pid.parse::<u32>() else {
        return false;
    };
    start_time(pid).is_some_and(|s| s == start)
}

impl Claims {
    /// Claims the run `key` for this process; `false` when it is stored already or a running
    /// sweep holds it.
    pub fn claim(&self, key: &str) -> Result<bool> {
        let err = |e| sql_error(&self.path, e);
        let mut db = self.db.lock().unwrap_or_else(|p| p.into_inner());
        // IMMEDIATE: the check and the claim are one step for every process on the store.
        let tx = db
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(err)?;
        let stored: bool = tx
            .query_row(
                "SELECT EXISTS(SELECT 1 FROM runs WHERE key = ?1)",
                [key],
                |r| r.get(0),
            )
            .map_err(err)?;
        if stored {
            return Ok(false);
        }
        let holder: Option<String> = tx
            .query_row("SELECT owner FROM claims WHERE key = ?1", [key], |r| {
                r.get(0)
            })
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })
            .map_err(err)?;
        if let Some(h) = holder {
            if h != self.owner && owner_alive(&h) {
                return Ok(false);
            }
        }
        tx.execute(
            "INSERT OR REPLACE INTO claims (key, owner) VALUES (?1, ?2)",
            params![key, self.owner],
        )
        .map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(true)
    }

    /// Drops every claim this process holds.
    pub fn release_all(&self) -> Result<()> {
        let db = self.db.lock().unwrap_or_else(|p| p.into_inner());
        db.execute("DELETE FROM claims WHERE owner = ?1", [&self.owner])
            .map_err(|e| sql_error(&self.path, e))?;
        Ok(())
    }
}

impl Drop for Claims {
    fn drop(&mut self) {
        // A sweep that stopped on an error must not keep its runs from a later one in the same
        // process; a failure here only leaves claims that end with the process.
        let _ = self.release_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_without_byte_columns_is_read_and_extended() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.sqlite");
        // The table as stores were written before byte counters, with one row whose result
        // has no byte keys.
        let old = Connection::open(&path).unwrap();
        old.execute_batch(
            "CREATE TABLE runs (key TEXT PRIMARY KEY, experiment TEXT NOT NULL, trace TEXT NOT NULL,
             trace_hash TEXT NOT NULL, format TEXT NOT NULL, policy TEXT NOT NULL,
             cache_blocks INTEGER NOT NULL, prefetch TEXT NOT NULL, disk TEXT NOT NULL,
             belady_version TEXT NOT NULL, requests INTEGER NOT NULL, hits INTEGER NOT NULL,
             misses INTEGER NOT NULL, hit_ratio REAL NOT NULL, disk_requests INTEGER,
             exec_time_s REAL, config_json TEXT NOT NULL, result_json TEXT NOT NULL);",
        )
        .unwrap();
        let cell = |policy: &str| -> CellConfig {
            serde_json::from_value(serde_json::json!({
                "trace": "t", "trace_hash": "h", "format": "lirs", "block_size": 4096,
                "policies": [policy], "cache_sizes": ["10"], "prefetch": ["none"],
                "disk": ["none"], "belady_version": "0"
            }))
            .unwrap()
        };
        let config = cell("lru");
        let result = r#"{"trace":"t","policy":"lru","cache_blocks":10,"block_size":4096,
            "unique_blocks":50,"requests":100,"hits":40,"misses":60,"hit_ratio":0.4,"evictions":50}"#;
        old.execute(
            "INSERT INTO runs VALUES ('k', 'e', 't', 'h', 'lirs', 'lru', 10, 'none', 'none', '0',
             100, 40, 60, 0.4, NULL, NULL, ?1, ?2)",
            params![serde_json::to_string(&config).unwrap(), result],
        )
        .unwrap();
        drop(old);
        let store = Store::open(&path).unwrap();
        let runs = store.runs().unwrap();
        let r = &runs[0].result;
        assert_eq!(r.cache_model, "blocks");
        assert_eq!((r.bytes_requested, r.byte_misses), (409_600, 245_760));
        assert!((r.byte_miss_ratio - 0.6).abs() < 1e-12);
        // New rows go into the extended table beside the old one.
        let mut new = r.clone();
        new.policy = "fifo".into();
        store
            .insert("e", &cell("fifo"), &serde_json::to_value(&new).unwrap())
            .unwrap();
        let misses: i64 = store
            .db
            .query_row(
                "SELECT byte_misses FROM runs WHERE policy = 'fifo'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(misses, 245_760);
        assert_eq!(store.runs().unwrap().len(), 2);
        // The old row's new columns were filled from its JSON when the store was opened.
        let (unit, capacity, size, late): (String, i64, String, i64) = store
            .db
            .query_row(
                "SELECT capacity_unit, capacity, cache_size, late FROM runs WHERE policy = 'lru'",
                [],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)),
            )
            .unwrap();
        assert_eq!(
            (unit.as_str(), capacity, size.as_str(), late),
            ("blocks", 10, "10", 0)
        );
        // A byte capacity in this old store (whose cache_blocks is NOT NULL) is written as 0
        // there; in a new store as NULL. Its row has no cache_blocks either way.
        let mut bytes = r.clone();
        bytes.policy = "arc".into();
        bytes.cache_model = "objects".into();
        bytes.cache_blocks = None;
        bytes.capacity = crate::run::rows::CacheCapacity::new(
            &crate::cache::size::CacheSize::Bytes(1 << 20),
            1 << 20,
            crate::run::rows::CapacityUnit::Bytes,
        );
        let row = serde_json::to_value(&bytes).unwrap();
        store.insert("e", &cell("arc"), &row).unwrap();
        let fresh = Store::open(&dir.path().join("new.sqlite")).unwrap();
        fresh.insert("e", &cell("arc"), &row).unwrap();
        let blocks = |s: &Store| -> Option<i64> {
            s.db.query_row(
                "SELECT cache_blocks FROM runs WHERE policy = 'arc'",
                [],
                |row| row.get(0),
            )
            .unwrap()
        };
        assert_eq!((blocks(&store), blocks(&fresh)), (Some(0), None));
        let arc = store
            .runs()
            .unwrap()
            .into_iter()
            .find(|r| r.result.policy == "arc")
            .unwrap();
        assert_eq!(
            (arc.result.cache_blocks, arc.result.capacity.label()),
            (None, "1MiB".into())
        );
    }

    #[test]
    fn a_run_is_claimed_once_and_a_dead_owners_claim_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let mine = store.claims().unwrap();
        assert!(mine.claim("k1").unwrap());
        assert!(mine.claim("k1").unwrap(), "a claim's owner may claim again");
        // A second sweep in this (live) process.
        let other = store.claims().unwrap();
        assert!(other.claim("k2").unwrap());
        assert!(!mine.claim("k2").unwrap(), "held by a running sweep");
        assert!(!other.claim("k1").unwrap());
        // A sweep that died (no such process) leaves a claim that is taken over.
        let dead = Claims {
            db: std::sync::Mutex::new(Connection::open(store.path()).unwrap()),
            path: store.path().to_path_buf(),
            owner: format!("{}:1:0", u32::MAX - 1),
        };
        assert!(dead.claim("k3").unwrap());
        assert!(mine.claim("k3").unwrap());
        mine.release_all().unwrap();
        assert!(other.claim("k1").unwrap());
    }
}
