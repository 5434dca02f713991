//! The results store's columns, generated: what identifies a run (its key, experiment, trace,
//! policy, capacity, read-ahead, disk, version), then one column per metric of the registry
//! ([`METRICS`]: integers for counts, reals for the rest), then the configuration and the row as
//! JSON. Creating a store, extending an older one and inserting a run all read this one list, so
//! a metric added to the registry is a column of every store from then on.

use super::CellConfig;
use crate::engine::RunResult;
use crate::run::metrics::{Value, METRICS};
use rusqlite::types::Value as Sql;
use rusqlite::Connection;
use std::collections::HashSet;

/// The columns that say what ran, with their SQL types, in table order (metrics follow).
const RUN: &[(&str, &str)] = &[
    ("key", "TEXT PRIMARY KEY"),
    ("experiment", "TEXT NOT NULL"),
    ("trace", "TEXT NOT NULL"),
    ("trace_hash", "TEXT NOT NULL"),
    ("format", "TEXT NOT NULL"),
    ("policy", "TEXT NOT NULL"),
    // Blocks or counted objects; NULL for a byte capacity (0 in stores created before
    // capacities, whose column is NOT NULL).
    ("cache_blocks", "INTEGER"),
    ("cache_size", "TEXT"),
    ("capacity", "INTEGER"),
    ("capacity_unit", "TEXT"),
    ("cache_model", "TEXT"),
    ("admission", "TEXT"),
    ("prefetch", "TEXT NOT NULL"),
    ("disk", "TEXT NOT NULL"),
    ("belady_version", "TEXT NOT NULL"),
];

/// The JSON columns, last.
const JSON: &[(&str, &str)] = &[
    ("config_json", "TEXT NOT NULL"),
    ("result_json", "TEXT NOT NULL"),
];

/// Every column with its SQL type, in table order.
fn columns() -> impl Iterator<Item = (&'static str, &'static str)> {
    let metrics = METRICS.iter().map(|m| {
        let ty = if m.unit.is_int() { "INTEGER" } else { "REAL" };
        (m.key, ty)
    });
    RUN.iter()
        .copied()
        .chain(metrics)
        .chain(JSON.iter().copied())
}

/// The `CREATE TABLE` of a new store.
pub(super) fn create_table() -> String {
    let columns: Vec<String> = columns().map(|(c, ty)| format!("{c} {ty}")).collect();
    format!(
        "CREATE TABLE IF NOT EXISTS runs (\n    {}\n);",
        columns.join(",\n    ")
    )
}

/// The names of the `runs` table's columns, and whether `cache_blocks` must be NOT NULL.
fn present(db: &Connection) -> rusqlite::Result<(HashSet<String>, bool)> {
    let mut stmt = db.prepare("SELECT name, \"notnull\" FROM pragma_table_info('runs')")?;
    let mut names = HashSet::new();
    let mut strict = false;
    for row in stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, bool>(1)?)))? {
        let (name, not_null) = row?;
        strict |= name == "cache_blocks" && not_null;
        names.insert(name);
    }
    Ok((names, strict))
}

/// What [`migrate`] found: whether the store's `cache_blocks` column is NOT NULL (stores
/// created before capacities), so a byte capacity is written there as 0.
pub(super) struct Schema {
    /// `cache_blocks` refuses NULL.
    pub strict_cache_blocks: bool,
}

/// A store's schema as it is, read without changing it (readers opened read-only).
pub(super) fn read(db: &Connection) -> rusqlite::Result<Schema> {
    let (_, strict) = present(db)?;
    Ok(Schema {
        strict_cache_blocks: strict,
    })
}

/// Brings a store written by an older belady up to date: adds the columns it lacks (as NULL
/// for its rows), then fills them for every row that has no capacity yet, from the row's
/// stored JSON as [`RunResult::upgrade`] completes it. One transaction, taken only when there
/// is something to do; a store already current is only read.
pub(super) fn migrate(db: &mut Connection) -> rusqlite::Result<Schema> {
    let (names, strict) = present(db)?;
    let missing = columns().any(|(c, _)| !names.contains(c));
    let stale = || -> rusqlite::Result<bool> {
        db.query_row(
            "SELECT EXISTS(SELECT 1 FROM runs WHERE capacity_unit IS NULL)",
            [],
            |r| r.get(0),
        )
    };
    if !missing && !stale()? {
        return Ok(Schema {
            strict_cache_blocks: strict,
        });
    }
    // IMMEDIATE: a second process opening the store waits, then finds the work done.
    let tx = db.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let (names, strict) = present(&tx)?;
    for (column, ty) in columns().filter(|(c, _)| !names.contains(*c)) {
        // Added columns take no constraint: the rows already there have no value.
        let ty = ty.split(' ').next().unwrap_or(ty);
        tx.execute_batch(&format!("ALTER TABLE runs ADD COLUMN {column} {ty};"))?;
    }
    let old: Vec<(String, String, String, String)> = tx
        .prepare(
            "SELECT key, experiment, config_json, result_json FROM runs
             WHERE capacity_unit IS NULL",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (key, experiment, config, result) in old {
        let bad = |e: serde_json::Error| {
            rusqlite::Error::ToSqlConversionFailure(
                format!("run {key} holds a row belady cannot read: {e}").into(),
            )
        };
        let config: CellConfig = serde_json::from_str(&config).map_err(bad)?;
        let mut row: RunResult = serde_json::from_str(&result).map_err(bad)?;
        row.upgrade(config.run.cache_sizes.first().map(String::as_str));
        // The stored JSON and key stay as written; every other column is filled.
        let values: Vec<(&str, Sql)> = values(&key, &experiment, &config, &row, &result, strict)
            .into_iter()
            .filter(|(c, _)| !matches!(*c, "key" | "config_json" | "result_json"))
            .collect();
        let sets: Vec<String> = values
            .iter()
            .enumerate()
            .map(|(i, (c, _))| format!("{c} = ?{}", i + 1))
            .collect();
        let sql = format!(
            "UPDATE runs SET {} WHERE key = ?{}",
            sets.join(", "),
            values.len() + 1
        );
        let mut params: Vec<Sql> = values.into_iter().map(|(_, v)| v).collect();
        params.push(Sql::Text(key.clone()));
        tx.execute(&sql, rusqlite::params_from_iter(params))?;
    }
    tx.commit()?;
    Ok(Schema {
        strict_cache_blocks: strict,
    })
}

/// The `INSERT` of one run: every column, in table order, then its values.
pub(super) fn insert(
    experiment: &str,
    config: &CellConfig,
    row: &RunResult,
    row_json: &str,
    schema: &Schema,
) -> (String, Vec<Sql>) {
    let values = values(
        &config.key(),
        experiment,
        config,
        row,
        row_json,
        schema.strict_cache_blocks,
    );
    let names: Vec<&str> = values.iter().map(|(c, _)| *c).collect();
    let marks: Vec<String> = (1..=values.len()).map(|i| format!("?{i}")).collect();
    let sql = format!(
        "INSERT OR IGNORE INTO runs ({}) VALUES ({})",
        names.join(", "),
        marks.join(", ")
    );
    (sql, values.into_iter().map(|(_, v)| v).collect())
}

/// Every column's value for one run, in table order.
fn values(
    key: &str,
    experiment: &str,
    config: &CellConfig,
    row: &RunResult,
    row_json: &str,
    strict_cache_blocks: bool,
) -> Vec<(&'static str, Sql)> {
    let text = |s: &str| Sql::Text(s.to_string());
    let int = |v: u64| Sql::Integer(v as i64);
    let cache_blocks = match row.cache_blocks {
        Some(b) => int(b),
        None if strict_cache_blocks => Sql::Integer(0),
        None => Sql::Null,
    };
    let run = [
        ("key", text(key)),
        ("experiment", text(experiment)),
        ("trace", text(&config.trace)),
        ("trace_hash", text(&config.trace_hash)),
        (
            "format",
            text(config.run.format.as_deref().unwrap_or_default()),
        ),
        ("policy", text(&row.policy)),
        ("cache_blocks", cache_blocks),
        ("cache_size", text(&row.capacity.spelled)),
        ("capacity", int(row.capacity.amount)),
        ("capacity_unit", text(row.capacity.unit.name())),
        ("cache_model", text(&row.cache_model)),
        ("admission", text(&row.admission)),
        ("prefetch", text(config.run.the_prefetch())),
        ("disk", text(config.run.the_disk().unwrap_or("none"))),
        ("belady_version", text(&config.belady_version)),
    ];
    debug_assert!(run.iter().map(|(c, _)| *c).eq(RUN.iter().map(|(c, _)| *c)));
    let metrics = METRICS.iter().map(|m| {
        let v = match m.value(row) {
            Some(Value::Int(v)) => int(v),
            Some(Value::Float(v)) => Sql::Real(v),
            None => Sql::Null,
        };
        (m.key, v)
    });
    let config_json = serde_json::to_string(config).expect("configurations serialise");
    let json = [
        ("config_json", Sql::Text(config_json)),
        ("result_json", text(row_json)),
    ];
    run.into_iter().chain(metrics).chain(json).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_metric_is_a_column_of_its_kind() {
        let create = create_table();
        for m in METRICS {
            let ty = if m.unit.is_int() { "INTEGER" } else { "REAL" };
            assert!(
                create.contains(&format!("\n    {} {ty}", m.key)),
                "{}",
                m.key
            );
        }
        let db = Connection::open_in_memory().unwrap();
        db.execute_batch(&create).unwrap();
        let (names, strict) = present(&db).unwrap();
        assert_eq!(names.len(), RUN.len() + METRICS.len() + JSON.len());
        assert!(!strict, "a new store's cache_blocks takes NULL");
    }
}
