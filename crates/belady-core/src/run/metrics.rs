//! The metric registry: every metric of a result row, described once (in the manner of
//! Caffeine's simulator, whose reporters iterate one named metric map).
//!
//! The text table, the results store's columns, `results export`'s column types, `belady
//! report`'s charts, tables and summary, Python's DataFrame dtypes and `belady.plot`'s axis
//! labels, and the key tables of docs/output.md all read [`METRICS`] (and [`FIELDS`] for the
//! keys that describe a run rather than measure it). Adding a metric is its counter, carried
//! into the row by [`RunResult::build`], plus one line here; a test checks that the keys a row
//! serialises are exactly these.

use crate::run::rows::RunResult;

/// A metric's value in one row.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Value {
    /// A count (requests, bytes).
    Int(u64),
    /// A ratio, a mean or a time.
    Float(f64),
}

impl Value {
    /// The value as a float (counts exactly up to 2^53).
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Int(v) => v as f64,
            Value::Float(v) => v,
        }
    }
}

/// What a metric is measured in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A count of references, requests or blocks.
    Count,
    /// A count of bytes.
    Bytes,
    /// A share from 0 to 1, shown in percent.
    Ratio,
    /// A mean number of blocks per request.
    PerRequest,
    /// Seconds.
    Seconds,
    /// Milliseconds.
    Millis,
}

impl Unit {
    /// Whether values are whole numbers (stored as integers).
    pub fn is_int(self) -> bool {
        matches!(self, Unit::Count | Unit::Bytes)
    }

    /// What a label adds after the metric's name: `(%)`, `(s)`, `(ms)` or nothing.
    fn suffix(self) -> &'static str {
        match self {
            Unit::Ratio => " (%)",
            Unit::Seconds => " (s)",
            Unit::Millis => " (ms)",
            Unit::Count | Unit::Bytes | Unit::PerRequest => "",
        }
    }

    /// The factor from a stored value to a shown one: ratios are shown in percent.
    pub fn scale(self) -> f64 {
        match self {
            Unit::Ratio => 100.0,
            _ => 1.0,
        }
    }

    /// Decimals a shown value gets in tables.
    pub fn decimals(self) -> usize {
        match self {
            Unit::Count | Unit::Bytes => 0,
            Unit::Ratio | Unit::PerRequest => 2,
            Unit::Seconds | Unit::Millis => 3,
        }
    }

    /// The unit's name in docs and in Python (`count`, `bytes`, `ratio`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Unit::Count => "count",
            Unit::Bytes => "bytes",
            Unit::Ratio => "ratio",
            Unit::PerRequest => "blocks/request",
            Unit::Seconds => "s",
            Unit::Millis => "ms",
        }
    }
}

/// Which way a metric is better.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Better {
    /// More is better (hit ratio).
    Higher,
    /// Less is better (misses, time).
    Lower,
    /// Neither: it describes the run (requests, evictions, blocks read ahead).
    Neither,
}

impl Better {
    /// The direction's name in docs and in Python (`higher`, `lower`, `-`).
    pub fn name(self) -> &'static str {
        match self {
            Better::Higher => "higher",
            Better::Lower => "lower",
            Better::Neither => "-",
        }
    }
}

/// Which runs a metric says something about.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Applies {
    /// Every run.
    Always,
    /// Runs of the file engine and hierarchies: a read-ahead setting (`none` included), disk
    /// requests of several blocks.
    ReadAhead,
    /// Runs timed by a disk model (`--disk`); absent from untimed rows.
    Timed,
    /// Runs of the objects model.
    Objects,
    /// Runs with an admission filter.
    Admission,
    /// Runs on a disk model with its own read cache (`hdd`, `cheetah9lp`).
    DiskCache,
}

impl Applies {
    /// Whether the condition holds for `row`.
    pub fn to(self, row: &RunResult) -> bool {
        match self {
            Applies::Always => true,
            Applies::ReadAhead => row.prefetch.is_some(),
            Applies::Timed => row.io.as_ref().is_some_and(|io| io.exec_time_s.is_some()),
            Applies::Objects => row.cache_model == "objects",
            Applies::Admission => row.admission != "none",
            Applies::DiskCache => row
                .io
                .as_ref()
                .is_some_and(|io| io.disk_cache_hits.is_some()),
        }
    }

    /// The condition's name in docs and in Python.
    pub fn name(self) -> &'static str {
        match self {
            Applies::Always => "always",
            Applies::ReadAhead => "read-ahead",
            Applies::Timed => "timed",
            Applies::Objects => "objects",
            Applies::Admission => "admission",
            Applies::DiskCache => "disk cache",
        }
    }
}

/// One metric of a result row.
#[derive(Copy, Clone, Debug)]
pub struct Metric {
    /// The row's key (JSON, store column, DataFrame column).
    pub key: &'static str,
    /// What it is, in words (`hit ratio`): axis labels and titles add the unit.
    pub name: &'static str,
    /// What it is measured in.
    pub unit: Unit,
    /// Which way is better (the report ranks policies by the metrics that have one).
    pub better: Better,
    /// Which runs it says something about (the text table shows its column when some row does).
    pub applies: Applies,
    /// The text table's column header; `None` keeps it out of the table.
    pub table: Option<&'static str>,
    /// A second metric the table shows in the same cell, after a slash (`sync_req/blk`).
    pub table_with: Option<&'static str>,
    /// Which runs `belady report` draws it for; `None` for none.
    pub report: Option<Applies>,
    /// What the key means, for docs/output.md.
    pub doc: &'static str,
    /// Reads the value from a row; `None` where the row has no such key.
    read: fn(&RunResult) -> Option<Value>,
}

impl Metric {
    const fn new(
        key: &'static str,
        name: &'static str,
        unit: Unit,
        applies: Applies,
        read: fn(&RunResult) -> Option<Value>,
    ) -> Metric {
        Metric {
            key,
            name,
            unit,
            better: Better::Neither,
            applies,
            table: None,
            table_with: None,
            report: None,
            doc: "",
            read,
        }
    }

    const fn higher(mut self) -> Metric {
        self.better = Better::Higher;
        self
    }

    const fn lower(mut self) -> Metric {
        self.better = Better::Lower;
        self
    }

    const fn table(mut self, header: &'static str) -> Metric {
        self.table = Some(header);
        self
    }

    const fn table_with(mut self, header: &'static str, second: &'static str) -> Metric {
        self.table = Some(header);
        self.table_with = Some(second);
        self
    }

    const fn report(mut self, when: Applies) -> Metric {
        self.report = Some(when);
        self
    }

    const fn doc(mut self, doc: &'static str) -> Metric {
        self.doc = doc;
        self
    }

    /// The metric's value in `row`, if the row has it.
    pub fn value(&self, row: &RunResult) -> Option<Value> {
        (self.read)(row)
    }

    /// The value as shown (ratios in percent), if the row has it.
    pub fn shown(&self, row: &RunResult) -> Option<f64> {
        self.value(row).map(|v| v.as_f64() * self.unit.scale())
    }

    /// An axis label: the name and the shown unit (`hit ratio (%)`, `execution time (s)`).
    pub fn label(&self) -> String {
        format!("{}{}", self.name, self.unit.suffix())
    }

    /// A title: the name, capitalised (`Hit ratio`).
    pub fn title(&self) -> String {
        let mut chars = self.name.chars();
        chars.next().map_or_else(String::new, |first| {
            first.to_uppercase().chain(chars).collect()
        })
    }

    /// The key as a file-name part: words joined by `-`, without a time unit's suffix
    /// (`hit-ratio`, `exec-time`).
    pub fn slug(&self) -> String {
        let key = self
            .key
            .strip_suffix("_ms")
            .or_else(|| self.key.strip_suffix("_s"))
            .unwrap_or(self.key);
        key.replace('_', "-")
    }

    /// `value` (shown, as [`Metric::shown`] gives it) with the unit's decimals.
    pub fn format(&self, shown: f64) -> String {
        format!("{shown:.*}", self.unit.decimals())
    }
}

fn int(v: u64) -> Option<Value> {
    Some(Value::Int(v))
}

fn float(v: f64) -> Option<Value> {
    Some(Value::Float(v))
}

fn io(row: &RunResult) -> Option<&crate::run::rows::IoStats> {
    row.io.as_ref()
}

use Applies::{Admission, Always, DiskCache, Objects, ReadAhead, Timed};
use Unit::{Bytes, Count, Millis, PerRequest, Ratio, Seconds};

/// Every metric of a result row, in the order tables, store columns and docs list them.
pub static METRICS: &[Metric] = &[
    Metric::new("requests", "requests", Count, Always, |r| int(r.requests))
        .table("requests")
        .doc("block references (a request spanning n blocks is n references)"),
    Metric::new("hits", "hits", Count, Always, |r| int(r.hits))
        .higher()
        .table("hits")
        .doc("demand references that found their block resident"),
    Metric::new("misses", "misses", Count, Always, |r| int(r.misses))
        .lower()
        .table("misses")
        .doc("demand references that did not"),
    Metric::new("hit_ratio", "hit ratio", Ratio, Always, |r| float(r.hit_ratio))
        .higher()
        .table("hit_ratio_%")
        .report(Always)
        .doc("`hits / requests`"),
    Metric::new("evictions", "evictions", Count, Always, |r| int(r.evictions))
        .doc("blocks (or objects) evicted"),
    Metric::new("admission_rejects", "admission rejects", Count, Admission, |r| int(r.admission_rejects))
        .table("admission_rejects")
        .report(Admission)
        .doc("misses the admission filter refused (0 without one); each is also a miss"),
    Metric::new("disk_requests", "disk requests", Count, ReadAhead, |r| {
        int(io(r)?.disk_requests)
    })
    .lower()
    .table("disk_requests")
    .report(Always)
    .doc("disk requests issued (a run without read-ahead: one per miss)"),
    Metric::new("sync_requests", "synchronous requests", Count, ReadAhead, |r| {
        int(io(r)?.sync_requests)
    })
    .table_with("sync_req/blk", "sync_blocks")
    .doc("requests holding a demand block (the program waits)"),
    Metric::new("sync_blocks", "blocks in synchronous requests", Count, ReadAhead, |r| {
        int(io(r)?.sync_blocks)
    })
    .doc("blocks in those requests"),
    Metric::new("sync_blocks_per_request", "blocks per synchronous request", PerRequest, ReadAhead, |r| {
        float(io(r)?.sync_blocks_per_request)
    })
    .doc("their mean (0 without any)"),
    Metric::new("async_requests", "asynchronous requests", Count, ReadAhead, |r| {
        int(io(r)?.async_requests)
    })
    .table_with("async_req/blk", "async_blocks")
    .doc("prefetch-only requests"),
    Metric::new("async_blocks", "blocks in asynchronous requests", Count, ReadAhead, |r| {
        int(io(r)?.async_blocks)
    })
    .doc("blocks in those requests"),
    Metric::new("async_blocks_per_request", "blocks per asynchronous request", PerRequest, ReadAhead, |r| {
        float(io(r)?.async_blocks_per_request)
    })
    .doc("their mean (0 without any)"),
    Metric::new("late", "references that waited for read-ahead", Count, ReadAhead, |r| {
        int(io(r)?.late)
    })
    .lower()
    .table("late")
    .doc("demand references that waited for a request issued earlier"),
    Metric::new("prefetched_blocks", "blocks read ahead", Count, ReadAhead, |r| {
        int(io(r)?.prefetched_blocks)
    })
    .doc("read-ahead blocks issued"),
    Metric::new("prefetch_hits", "read-ahead blocks used in time", Count, ReadAhead, |r| {
        int(io(r)?.prefetch_hits)
    })
    .higher()
    .doc("of those, first referenced after their I/O completed"),
    Metric::new("prefetch_late", "read-ahead blocks used late", Count, ReadAhead, |r| {
        int(io(r)?.prefetch_late)
    })
    .lower()
    .doc("of those, first referenced while their I/O was in flight (a miss)"),
    Metric::new("prefetch_unused_evicted", "read-ahead blocks evicted unused", Count, ReadAhead, |r| {
        int(io(r)?.prefetch_unused_evicted)
    })
    .lower()
    .doc("of those, evicted before any reference"),
    Metric::new("prefetch_unused_resident", "read-ahead blocks unused at the end", Count, ReadAhead, |r| {
        int(io(r)?.prefetch_unused_resident)
    })
    .doc("of those, never referenced and still resident at the end"),
    Metric::new("exec_time_s", "execution time", Seconds, Timed, |r| {
        float(io(r)?.exec_time_s?)
    })
    .lower()
    .table("exec_s")
    .report(Timed)
    .doc("the program's run time (absent without `--disk`: the run is untimed)"),
    Metric::new("proc_time_s", "computation time", Seconds, Timed, |r| {
        float(io(r)?.proc_time_s?)
    })
    .doc("computation (think) time"),
    Metric::new("io_time_s", "I/O time", Seconds, Timed, |r| float(io(r)?.io_time_s?))
        .lower()
        .doc("run time less computation (`io_wait_s`'s older name)"),
    Metric::new("io_wait_s", "time waiting for the disk", Seconds, Timed, |r| {
        float(io(r)?.io_wait_s?)
    })
    .lower()
    .table("io_wait_s")
    .doc("run time less computation"),
    Metric::new("disk_busy_s", "disk busy time", Seconds, Timed, |r| {
        float(io(r)?.disk_busy_s?)
    })
    .doc("time the device was busy"),
    Metric::new("disk_utilization", "disk utilization", Ratio, Timed, |r| {
        float(io(r)?.disk_utilization?)
    })
    .doc(
        "busy time over the run time (or, when read-ahead issued near the end keeps the device busy \
         after the last reference, over the span until the device is idle, so it never exceeds 1)",
    ),
    Metric::new("disk_cache_hits", "disk reads served by the drive's cache", Count, DiskCache, |r| {
        int(io(r)?.disk_cache_hits?)
    })
    .table("disk_cache_hits")
    .doc("disk reads the drive served whole from its own read cache (segments filled by its read-ahead), with no seek or rotational wait ([disk.md](disk.md))"),
    Metric::new("mean_response_ms", "mean response time", Millis, Timed, |r| {
        float(io(r)?.mean_response_ms?)
    })
    .lower()
    .doc("mean time from a request's issue to its completion (per reference on block-level hierarchies)"),
    Metric::new("p99_response_ms", "99th-percentile response time", Millis, Timed, |r| {
        float(io(r)?.p99_response_ms?)
    })
    .lower()
    .doc("the 99th percentile of that time"),
    Metric::new("bytes_requested", "bytes requested", Bytes, Always, |r| {
        int(r.bytes_requested)
    })
    .table("bytes_requested")
    .doc("bytes the demand requests asked for (blocks: `requests x block_size`; objects: the sum of their sizes)"),
    Metric::new("byte_hits", "bytes of hits", Bytes, Always, |r| int(r.byte_hits))
        .higher()
        .doc("of those, bytes of requests that hit"),
    Metric::new("byte_misses", "bytes of misses", Bytes, Always, |r| int(r.byte_misses))
        .lower()
        .table("byte_misses")
        .doc("of those, bytes of requests that missed"),
    Metric::new("byte_miss_ratio", "byte miss ratio", Ratio, Always, |r| {
        float(r.byte_miss_ratio)
    })
    .lower()
    .table("byte_miss_%")
    .report(Objects)
    .doc("`byte_misses / bytes_requested` (the report draws it for objects-model runs: a blocks run's is its miss ratio)"),
];

/// The metric of `key`, if there is one.
pub fn metric(key: &str) -> Option<&'static Metric> {
    METRICS.iter().find(|m| m.key == key)
}

/// A key of a result row that describes the run rather than measures it.
#[derive(Copy, Clone, Debug)]
pub struct Field {
    /// The row's key.
    pub key: &'static str,
    /// Which rows have it.
    pub when: &'static str,
    /// Whether its values are whole numbers (Python gives its column an integer dtype).
    pub int: bool,
    /// What it says, for docs/output.md.
    pub doc: &'static str,
}

/// The keys of a result row besides its metrics: what ran, on what, at which size; and the
/// nested reports of hierarchies, launches and ClusterFetch.
pub static FIELDS: &[Field] = &[
    Field {
        key: "trace",
        when: "always",
        int: false,
        doc: "trace path, as given on the command line (for a native file too: the name recorded inside it is provenance only); text output escapes control characters of names read from traces",
    },
    Field {
        key: "format",
        when: "always",
        int: false,
        doc: "format it was read as",
    },
    Field {
        key: "ops",
        when: "always",
        int: false,
        doc: "`read`, `write` or `all`",
    },
    Field {
        key: "policy",
        when: "always",
        int: false,
        doc: "policy name, then any overridden parameters, e.g. `lirs(hir=0.01)`; a hierarchy's levels",
    },
    Field {
        key: "cache_size",
        when: "always",
        int: false,
        doc: "the cache size as given, spelled canonically: `500`, `64MiB` (`64K`, `64KiB` and `65536B` all read `64KiB`), `10%`; a hierarchy's levels' sizes joined by `+`",
    },
    Field {
        key: "capacity",
        when: "always",
        int: true,
        doc: "the capacity in `capacity_unit`s (a percent or a byte size resolved against the trace)",
    },
    Field {
        key: "capacity_unit",
        when: "always",
        int: false,
        doc: "`blocks` (blocks model, hierarchies: their levels' sum), `objects` (objects model, a plain number counts objects) or `bytes` (objects model, objects weigh their sizes)",
    },
    Field {
        key: "cache_blocks",
        when: "blocks, objects",
        int: true,
        doc: "the capacity in blocks, or in objects when they are counted; absent for a byte capacity (older rows said 0)",
    },
    Field {
        key: "cache_bytes",
        when: "blocks, bytes",
        int: true,
        doc: "the capacity in bytes: `cache_blocks x block_size` for blocks, the byte capacity of objects weighed by size; absent for objects counted",
    },
    Field {
        key: "block_size",
        when: "always",
        int: true,
        doc: "bytes per block",
    },
    Field {
        key: "unique_blocks",
        when: "always",
        int: true,
        doc: "distinct blocks (or objects) among the simulated requests",
    },
    Field {
        key: "cache_model",
        when: "always",
        int: false,
        doc: "`blocks` or `objects` ([Cache models](#cache-models))",
    },
    Field {
        key: "admission",
        when: "always",
        int: false,
        doc: "admission filter (`none`, `tinylfu`, `size:BYTES`, `prob:P`)",
    },
    Field {
        key: "prefetch",
        when: "read-ahead",
        int: false,
        doc: "read-ahead engine (`none` included) of a file-engine run or a hierarchy",
    },
    Field {
        key: "levels",
        when: "hierarchy",
        int: false,
        doc: "each level's counters ([multilevel.md](multilevel.md))",
    },
    Field {
        key: "timing",
        when: "hierarchy, timed",
        int: false,
        doc: "the links', reloads' and demotions' times ([multilevel.md](multilevel.md))",
    },
    Field {
        key: "launch",
        when: "launch window",
        int: false,
        doc: "the launch window's time and counters ([clusterfetch.md](clusterfetch.md))",
    },
    Field {
        key: "clusterfetch",
        when: "ClusterFetch",
        int: false,
        doc: "ClusterFetch's counters ([clusterfetch.md](clusterfetch.md))",
    },
    Field {
        key: "note",
        when: "where a number would surprise",
        int: false,
        doc: "present only where a number would surprise without it ([Notes](#notes-under-the-table)): today `opt` in the objects model with a byte capacity",
    },
    Field {
        key: "request_log",
        when: "`--log-requests`",
        int: false,
        doc: "every disk request in issue order",
    },
];

/// The registry as JSON, for the Python package: `{"metrics": [...], "fields": [...]}`, each
/// metric with its key, name, label, unit, better, applies, report condition and dtype, each
/// field with its key and dtype.
pub fn registry_json() -> String {
    let metrics: Vec<serde_json::Value> = METRICS
        .iter()
        .map(|m| {
            serde_json::json!({
                "key": m.key,
                "name": m.name,
                "label": m.label(),
                "unit": m.unit.name(),
                "scale": m.unit.scale(),
                "better": m.better.name(),
                "applies": m.applies.name(),
                "report": m.report.map(Applies::name),
                "dtype": if m.unit.is_int() { "int64" } else { "float64" },
            })
        })
        .collect();
    let fields: Vec<serde_json::Value> = FIELDS
        .iter()
        .map(|f| serde_json::json!({"key": f.key, "dtype": if f.int { "int64" } else { "object" }}))
        .collect();
    serde_json::json!({"metrics": metrics, "fields": fields}).to_string()
}

/// The key tables of docs/output.md: the fields, then the metrics, as generated here.
pub fn markdown() -> String {
    let mut out = String::from("| key | rows | meaning |\n|---|---|---|\n");
    for f in FIELDS {
        out.push_str(&format!("| `{}` | {} | {} |\n", f.key, f.when, f.doc));
    }
    out.push_str("\n| metric | unit | better | applies | meaning |\n|---|---|---|---|---|\n");
    for m in METRICS {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            m.key,
            m.unit.name(),
            m.better.name(),
            m.applies.name(),
            m.doc
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn keys_are_unique_and_table_partners_are_metrics() {
        let mut keys = BTreeSet::new();
        for k in METRICS
            .iter()
            .map(|m| m.key)
            .chain(FIELDS.iter().map(|f| f.key))
        {
            assert!(keys.insert(k), "{k} listed twice");
        }
        for m in METRICS {
            if let Some(second) = m.table_with {
                assert!(metric(second).is_some(), "{}: {second}", m.key);
            }
            assert!(!m.doc.is_empty(), "{} has no doc", m.key);
        }
    }

    #[test]
    fn labels_titles_and_slugs_come_from_the_name_and_unit() {
        let hit = metric("hit_ratio").unwrap();
        assert_eq!(
            (hit.label(), hit.title(), hit.slug()),
            (
                "hit ratio (%)".into(),
                "Hit ratio".into(),
                "hit-ratio".into()
            )
        );
        let exec = metric("exec_time_s").unwrap();
        assert_eq!(
            (exec.label(), exec.slug()),
            ("execution time (s)".into(), "exec-time".into())
        );
        assert_eq!(hit.format(91.256), "91.26");
        assert_eq!(metric("misses").unwrap().format(3.0), "3");
    }

    #[test]
    fn docs_output_md_lists_every_key_as_generated() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/output.md");
        let doc = std::fs::read_to_string(path).expect("docs/output.md beside the workspace");
        let want = markdown();
        assert!(
            doc.contains(&want),
            "docs/output.md's key tables differ from the registry (run/metrics.rs); paste this in:\n{want}"
        );
    }
}
