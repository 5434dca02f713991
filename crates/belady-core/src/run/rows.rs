//! The results of a run, as printed and stored: one schema for every engine. A leaf module (no
//! engine types inside), so the engines depend on it and not on each other.
//!
//! Every row carries the same top-level metrics (`hits`, `misses`, `hit_ratio`, and with the
//! I/O counters `disk_requests`, sync/async requests and blocks, with a device `exec_time_s`,
//! `io_wait_s` and response times); a multi-level row adds `levels`, one [`LevelReport`] per
//! level. Every row says its capacity in its own unit ([`CacheCapacity`]: blocks, objects or
//! bytes) and as the user spelled it. Key changes are listed in CHANGELOG.md.

use crate::cache::cache_model::CacheModel;
use crate::cache::level::LevelStats;
use crate::cache::size::CacheSize;

/// One run's configuration and results, as printed and stored. Built by [`RunResult::build`],
/// the one row builder every engine calls.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunResult {
    /// Trace source (path).
    pub trace: String,
    /// Policy label (name and any overridden parameters).
    pub policy: String,
    /// The capacity in its own unit and as the user spelled it (`cache_size`, `capacity`,
    /// `capacity_unit`).
    #[serde(flatten)]
    pub capacity: CacheCapacity,
    /// Cache size in blocks, or in objects when objects are counted; absent for a byte capacity
    /// (kept for readers of older rows; `capacity` says every size in its unit).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cache_blocks: Option<u64>,
    /// Bytes per block.
    pub block_size: u32,
    /// Distinct blocks in the (filtered) trace.
    pub unique_blocks: u64,
    /// Demand block references.
    pub requests: u64,
    /// Hits.
    pub hits: u64,
    /// Misses.
    pub misses: u64,
    /// Hits over requests.
    pub hit_ratio: f64,
    /// Blocks evicted.
    pub evictions: u64,
    /// Misses the admission filter refused (0 without one).
    #[serde(default)]
    pub admission_rejects: u64,
    /// The cache model: `blocks` (a request covers the blocks its bytes span; capacity in
    /// blocks) or `objects` (each request is one object of its size).
    #[serde(default = "blocks_model")]
    pub cache_model: String,
    /// Byte capacity: `cache_blocks x block_size` in the blocks model (absent past 2^64 - 1
    /// bytes), the byte capacity of an objects cache that weighs sizes; absent for an objects
    /// cache counted in objects.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cache_bytes: Option<u64>,
    /// The admission filter consulted on misses (`none`, `tinylfu`, `size:BYTES`, `prob:P`).
    #[serde(default = "no_admission")]
    pub admission: String,
    /// Bytes the demand requests asked for (blocks model: `requests x block_size`).
    #[serde(default)]
    pub bytes_requested: u64,
    /// Of those, bytes of requests that hit.
    #[serde(default)]
    pub byte_hits: u64,
    /// Of those, bytes of requests that missed.
    #[serde(default)]
    pub byte_misses: u64,
    /// `byte_misses / bytes_requested` (0 without requests).
    #[serde(default)]
    pub byte_miss_ratio: f64,
    /// Read-ahead engine, for file-level runs.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub prefetch: Option<String>,
    /// Read-ahead and disk request counters, for file-level runs.
    #[serde(flatten, skip_serializing_if = "Option::is_none", default)]
    pub io: Option<IoStats>,
    /// Per-level counters, for multi-level runs (then `policy` names the hierarchy).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub levels: Option<Vec<LevelReport>>,
}

fn blocks_model() -> String {
    "blocks".into()
}

fn no_admission() -> String {
    "none".into()
}

/// What a cache's capacity counts.
#[derive(
    Copy,
    Clone,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum CapacityUnit {
    /// Fixed-size blocks (the blocks model, and every hierarchy).
    #[default]
    Blocks,
    /// Objects counted whatever their sizes (the objects model with a plain number).
    Objects,
    /// Bytes, objects weighing their sizes (the objects model with a byte or percent size).
    Bytes,
}

impl CapacityUnit {
    /// The unit's name as rows print it (`blocks`, `objects`, `bytes`).
    pub fn name(self) -> &'static str {
        match self {
            CapacityUnit::Blocks => "blocks",
            CapacityUnit::Objects => "objects",
            CapacityUnit::Bytes => "bytes",
        }
    }
}

/// A run's cache capacity: in its own unit, and as the user spelled it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CacheCapacity {
    /// The size as given, spelled canonically: `500` (blocks or objects), `64MiB`, `10%`; a
    /// hierarchy's levels' sizes joined by `+`.
    #[serde(rename = "cache_size", default)]
    pub spelled: String,
    /// The capacity in `unit`s (a percent or a byte size resolved against the trace).
    #[serde(rename = "capacity", default)]
    pub amount: u64,
    /// What `amount` counts.
    #[serde(rename = "capacity_unit", default)]
    pub unit: CapacityUnit,
}

impl CacheCapacity {
    /// `amount` of `unit`, given as `size`.
    pub fn new(size: &CacheSize, amount: u64, unit: CapacityUnit) -> CacheCapacity {
        CacheCapacity {
            spelled: spell(size),
            amount,
            unit,
        }
    }

    /// A capacity of `blocks` blocks given as that number.
    pub fn blocks(blocks: u64) -> CacheCapacity {
        CacheCapacity::new(&CacheSize::Blocks(blocks), blocks, CapacityUnit::Blocks)
    }

    /// The capacity as a column or an axis names it: a byte capacity by its size (`64MiB`),
    /// others by their number and unit (`500 blocks`, `1000 objects`).
    pub fn label(&self) -> String {
        match self.unit {
            CapacityUnit::Bytes => bytes_label(self.amount),
            unit => format!("{} {}", self.amount, unit.name()),
        }
    }

    /// The order of capacities in tables and on axes: by unit, then by value within a unit.
    pub fn sort_key(&self) -> (CapacityUnit, u64) {
        (self.unit, self.amount)
    }
}

/// A cache size in its canonical spelling: blocks (or objects) as their number, a percent as
/// itself, bytes in the largest unit that divides them exactly (`64KiB`, `1MB`, `1000B`), so
/// `64K`, `64KiB` and `65536B` read the same.
pub fn spell(size: &CacheSize) -> String {
    match size {
        CacheSize::Bytes(b) => exact_bytes(*b),
        other => other.to_string(),
    }
}

/// Binary then decimal units, largest first.
const BYTE_UNITS: [(&str, u64); 8] = [
    ("TiB", 1 << 40),
    ("GiB", 1 << 30),
    ("MiB", 1 << 20),
    ("KiB", 1 << 10),
    ("TB", 1_000_000_000_000),
    ("GB", 1_000_000_000),
    ("MB", 1_000_000),
    ("KB", 1_000),
];

/// `bytes` in the largest unit that divides them exactly, else in bytes.
fn exact_bytes(bytes: u64) -> String {
    BYTE_UNITS
        .iter()
        .find(|(_, scale)| bytes >= *scale && bytes % scale == 0)
        .map_or_else(
            || format!("{bytes}B"),
            |(unit, scale)| format!("{}{unit}", bytes / scale),
        )
}

/// `bytes` as a label: exactly when a unit divides them (`64MiB`), else in the largest binary
/// unit below them with two decimals (`117.74MiB`).
pub fn bytes_label(bytes: u64) -> String {
    if BYTE_UNITS
        .iter()
        .any(|(_, scale)| bytes >= *scale && bytes % scale == 0)
        || bytes < 1024
    {
        return exact_bytes(bytes);
    }
    let (unit, scale) = BYTE_UNITS[..4]
        .iter()
        .find(|(_, scale)| bytes >= *scale)
        .expect("at least 1 KiB");
    format!("{:.2}{unit}", bytes as f64 / *scale as f64)
}

/// Everything an engine knows of one finished run; [`RunResult::build`] makes its row.
pub struct RowParts<'a> {
    /// Trace source (path).
    pub trace: &'a str,
    /// Policy (or hierarchy) label.
    pub policy: String,
    /// The capacity, in its unit and as given.
    pub capacity: CacheCapacity,
    /// The cache model.
    pub model: CacheModel,
    /// Bytes per block.
    pub block_size: u32,
    /// Distinct blocks (or objects) in the simulated requests.
    pub unique: u64,
    /// The admission filter's label (`none` without one).
    pub admission: String,
    /// Read-ahead engine, for file-engine runs.
    pub prefetch: Option<String>,
    /// The run's counters (a hierarchy's: its totals over the levels).
    pub counts: &'a LevelStats,
    /// Disk request and read-ahead counters.
    pub io: IoStats,
    /// Per-level counters, for hierarchies.
    pub levels: Option<Vec<LevelReport>>,
}

impl RunResult {
    /// The one row builder: a run's row from what its engine counted. Byte counters follow the
    /// model: in the blocks model every reference is one block of `block_size` bytes, in the
    /// objects model the level summed the objects' sizes.
    pub fn build(parts: RowParts) -> RunResult {
        let RowParts {
            trace,
            policy,
            capacity,
            model,
            block_size,
            unique,
            admission,
            prefetch,
            counts,
            io,
            levels,
        } = parts;
        let (cache_blocks, cache_bytes) = match capacity.unit {
            CapacityUnit::Blocks => (
                Some(capacity.amount),
                // A capacity of 2^64 blocks has no byte count that fits: the row says none.
                capacity.amount.checked_mul(block_size as u64),
            ),
            CapacityUnit::Objects => (Some(capacity.amount), None),
            CapacityUnit::Bytes => (None, Some(capacity.amount)),
        };
        let bytes = match model {
            CacheModel::Blocks => ByteCounts::of_blocks(counts.requests, counts.hits, block_size),
            CacheModel::Objects => ByteCounts {
                requested: counts.bytes_requested,
                hits: counts.byte_hits,
            },
        };
        let byte_misses = bytes.requested - bytes.hits;
        RunResult {
            trace: trace.to_string(),
            policy,
            capacity,
            cache_blocks,
            block_size,
            unique_blocks: unique,
            requests: counts.requests,
            hits: counts.hits,
            misses: counts.misses,
            hit_ratio: counts.hit_ratio(),
            evictions: counts.evictions,
            admission_rejects: counts.admission_rejects,
            cache_model: model.name().into(),
            cache_bytes,
            admission,
            bytes_requested: bytes.requested,
            byte_hits: bytes.hits,
            byte_misses,
            byte_miss_ratio: if bytes.requested == 0 {
                0.0
            } else {
                byte_misses as f64 / bytes.requested as f64
            },
            prefetch,
            io: Some(io),
            levels,
        }
    }

    /// A row read from a store written by an older belady, completed as today's builder would
    /// have written it: its capacity (spelled as `cache_size` when the store knows it), its byte
    /// counters (rows before them were all blocks-model runs), and a block run's demand I/O
    /// (one single-block read per miss).
    pub fn upgrade(&mut self, cache_size: Option<&str>) {
        if self.capacity.spelled.is_empty() {
            let blocks = self.cache_blocks.unwrap_or(0);
            let (amount, unit) = match (self.cache_model.as_str(), self.cache_bytes) {
                ("objects", Some(bytes)) => (bytes, CapacityUnit::Bytes),
                ("objects", None) => (blocks, CapacityUnit::Objects),
                _ => (blocks, CapacityUnit::Blocks),
            };
            let given = cache_size.and_then(|s| CacheSize::parse(s).ok());
            self.capacity = CacheCapacity {
                spelled: given.as_ref().map_or_else(|| amount.to_string(), spell),
                amount,
                unit,
            };
            if unit == CapacityUnit::Bytes {
                self.cache_blocks = None;
            }
        }
        if self.cache_model == "blocks" && self.bytes_requested == 0 && self.requests > 0 {
            let bytes = ByteCounts::of_blocks(self.requests, self.hits, self.block_size);
            self.bytes_requested = bytes.requested;
            self.byte_hits = bytes.hits;
            self.byte_misses = bytes.requested - bytes.hits;
            self.byte_miss_ratio = self.byte_misses as f64 / bytes.requested as f64;
            self.cache_bytes = self.cache_blocks.map(|b| b * self.block_size as u64);
        }
        if self.io.is_none() {
            self.io = Some(IoStats::demand(self.misses));
        }
    }
}

/// The byte counters of a row: what was requested and what missed, in bytes.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
struct ByteCounts {
    /// Bytes requested.
    requested: u64,
    /// Bytes of hits.
    hits: u64,
}

impl ByteCounts {
    /// A blocks-model run's bytes: every reference is one block of `block_size` bytes.
    fn of_blocks(requests: u64, hits: u64, block_size: u32) -> ByteCounts {
        ByteCounts {
            requested: requests * block_size as u64,
            hits: hits * block_size as u64,
        }
    }
}

/// Counters of a file-level run.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IoStats {
    /// Demand references that waited for a request issued by an earlier call.
    pub late: u64,
    /// First demand references to completed prefetched blocks.
    pub prefetch_hits: u64,
    /// Disk requests issued.
    pub disk_requests: u64,
    /// Requests holding a demand block (the application waits).
    pub sync_requests: u64,
    /// Blocks in synchronous requests.
    pub sync_blocks: u64,
    /// Prefetch-only requests.
    pub async_requests: u64,
    /// Blocks in asynchronous requests.
    pub async_blocks: u64,
    /// Mean blocks per synchronous request (0 without any).
    #[serde(default)]
    pub sync_blocks_per_request: f64,
    /// Mean blocks per asynchronous request (0 without any).
    #[serde(default)]
    pub async_blocks_per_request: f64,
    /// Blocks inserted by read-ahead.
    pub prefetched_blocks: u64,
    /// Read-ahead blocks evicted before any demand reference.
    pub prefetch_unused_evicted: u64,
    /// Read-ahead blocks never referenced and still resident at the end of the run.
    #[serde(default)]
    pub prefetch_unused_resident: u64,
    /// Read-ahead blocks whose first demand reference found their I/O still in flight (a miss,
    /// and late when an earlier call issued it). Without ClusterFetch, `prefetched_blocks =
    /// prefetch_hits + prefetch_late + prefetch_unused_evicted + prefetch_unused_resident`.
    #[serde(default)]
    pub prefetch_late: u64,
    /// With a disk model: the program's run time, seconds.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub exec_time_s: Option<f64>,
    /// With a disk model: computation (think) time, seconds.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub proc_time_s: Option<f64>,
    /// With a disk model: time spent waiting for the disk (run time less computation), seconds.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub io_time_s: Option<f64>,
    /// With a disk model: the same waiting time under the name the timing work uses.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub io_wait_s: Option<f64>,
    /// With a disk model: time the device was busy, seconds.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub disk_busy_s: Option<f64>,
    /// With a disk model: busy time over run time (the device may stay busy after the program ends).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub disk_utilization: Option<f64>,
    /// With a disk model that has a read cache (`hdd`, `cheetah9lp`): disk requests it served
    /// whole from that cache, with no seek or rotational wait.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub disk_cache_hits: Option<u64>,
    /// With a disk model: mean time from issue to completion of a request, ms.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub mean_response_ms: Option<f64>,
    /// With a disk model: 99th percentile of that time, ms.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub p99_response_ms: Option<f64>,
    /// The launch window's time and counters, when the trace sets one or ClusterFetch is on.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub launch: Option<LaunchStats>,
    /// ClusterFetch's counters, when it is on.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub clusterfetch: Option<CfStats>,
    /// A multi-level run's link, reload and demotion times, with a disk model.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub timing: Option<TimingReport>,
    /// Every disk request in issue order, when `log_requests` is set.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub request_log: Vec<LoggedRequest>,
}

impl IoStats {
    /// The I/O counters of a run without read-ahead or clustering: each miss is one synchronous
    /// one-block disk read, so every row carries the same `disk_requests` and sync/async keys.
    pub fn demand(misses: u64) -> IoStats {
        IoStats {
            disk_requests: misses,
            sync_requests: misses,
            sync_blocks: misses,
            sync_blocks_per_request: if misses > 0 { 1.0 } else { 0.0 },
            ..Default::default()
        }
    }
}

/// One disk request as issued, for comparing runs request by request.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LoggedRequest {
    /// 1-based index of the trace event whose call issued it.
    pub event: u64,
    /// Synchronous (the application waits for it).
    pub sync: bool,
    /// File (inode).
    pub file: u64,
    /// First file block.
    pub first: u64,
    /// Number of blocks.
    pub blocks: u64,
    /// Issue time, ns (0 without a disk model).
    pub issued_ns: u64,
}

/// The launch window's time and counters.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LaunchStats {
    /// Index of the event the launch started with.
    pub start_event: u64,
    /// What ended it: `open PATH` or `end of trace`.
    pub until: String,
    /// Whether the marker open happened (otherwise the launch ran to the end of the trace).
    pub reached: bool,
    /// Launch time, seconds: from the start event to the marker (with a disk model: computation
    /// and waiting; without one: computation only).
    pub time_s: f64,
    /// Demand block references in the launch.
    pub requests: u64,
    /// Those that missed.
    pub misses: u64,
    /// Demand and read-ahead disk requests issued in the launch (ClusterFetch's not included).
    pub disk_requests: u64,
}

/// ClusterFetch's counters.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CfStats {
    /// Opens of a file the store holds blocks for.
    pub triggers: u64,
    /// Low-priority requests submitted.
    pub requests: u64,
    /// Blocks those requests read into the cache.
    pub prefetched_blocks: u64,
    /// Of those, blocks a demand reference used before they left the cache.
    pub used_blocks: u64,
    /// `used_blocks / prefetched_blocks` (0 when nothing was prefetched).
    pub accuracy: f64,
    /// Requests a waiting program moved to the foreground before they started.
    pub promoted: u64,
    /// Bursts learned during the run.
    pub bursts_learned: u64,
    /// Trigger files in the store at the end.
    pub store_triggers: u64,
    /// Size of the store at the end, bytes (its encoded size: the file `--cf-store` writes).
    pub store_bytes: u64,
    /// The store's limit, bytes.
    pub store_limit_bytes: u64,
    /// Misses in the launch of the same run without ClusterFetch.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub baseline_misses: Option<u64>,
    /// Misses avoided over misses without ClusterFetch, in the launch.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub coverage: Option<f64>,
    /// Launch time of the same run without ClusterFetch, seconds.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub baseline_launch_time_s: Option<f64>,
    /// `1 - launch time / baseline launch time`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub launch_time_reduction: Option<f64>,
}

/// Counters of one level of a hierarchy.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LevelReport {
    /// The level's name.
    pub name: String,
    /// Policy label.
    pub policy: String,
    /// Placement label (`access` for the client).
    pub placement: String,
    /// Size in blocks.
    pub cache_blocks: u64,
    /// Demand references that reached the level.
    pub requests: u64,
    /// Of those, found resident.
    pub hits: u64,
    /// Of those, not found.
    pub misses: u64,
    /// Hits over requests.
    pub hit_ratio: f64,
    /// Blocks evicted to make room.
    pub evictions: u64,
    /// Blocks placed because a reference missed (access-based placement).
    pub placed_on_access: u64,
    /// Eviction notices (tracking-table detections or demotions) received from the level above.
    pub eviction_notices: u64,
    /// Notices for blocks the level already held (nothing placed).
    pub already_resident: u64,
    /// Reloads from disk (eviction-based placement).
    pub reloads_issued: u64,
    /// Reloaded blocks later hit.
    pub reloads_used: u64,
    /// Reloaded blocks evicted before any hit.
    pub reloads_wasted: u64,
    /// Reloaded blocks still resident, never hit, at the end.
    pub reloads_unused_resident: u64,
    /// Reloads served by an exclusive level below, which handed the block up (no disk request).
    pub reloads_from_below: u64,
    /// Evicted blocks not reloaded because they reached the level fewer times than the threshold.
    pub reloads_skipped: u64,
    /// Blocks the level above sent down (demote and exclusive placement).
    pub demotions: u64,
    /// Bytes those demotions moved.
    pub demotion_bytes: u64,
    /// Demoted blocks placed (not already resident).
    pub demotions_placed: u64,
    /// Demoted blocks later hit.
    pub demotions_used: u64,
    /// Demoted blocks evicted before any hit.
    pub demotions_wasted: u64,
    /// Blocks handed up (exclusive placement): on a hit, or when the level above placed them.
    pub handed_up: u64,
    /// Demoted blocks handed up to a placement above before any hit here.
    pub demotions_unused_handed_up: u64,
    /// Demoted blocks still resident, never hit, at the end.
    pub demotions_unused_resident: u64,
    /// Blocks resident at the end.
    pub resident: u64,
}

/// Time-related results of a hierarchy run.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TimingReport {
    /// The disk model.
    pub disk: String,
    /// When the last reference completed, ns.
    pub run_time_ns: u64,
    /// Think time between references, all of it, ns (`run_time_ns` less this is I/O wait).
    #[serde(default)]
    pub proc_ns: u64,
    /// Mean time from a reference's start to its completion, ns.
    pub mean_response_ns: f64,
    /// Disk time spent on demand reads, ns.
    pub demand_disk_ns: u64,
    /// Disk time spent on reloads, ns.
    pub reload_disk_ns: u64,
    /// Time demand reads waited for a reload in service, ns.
    pub reload_wait_ns: u64,
    /// Time misses waited for the client's demotion to be sent, ns.
    pub demotion_wait_ns: u64,
    /// Reloads put in the queue.
    pub reloads_queued: u64,
    /// Reloads the disk started.
    pub reloads_started: u64,
    /// Queued reloads found unnecessary (block already resident) when their turn came.
    pub reloads_cancelled: u64,
    /// Reloads dropped because the queue was full.
    pub reloads_dropped: u64,
    /// Reloads still queued or in service at the end.
    pub reloads_pending: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_spelled_canonically_and_byte_capacities_named_by_their_size() {
        let spelled = |t: &str| spell(&CacheSize::parse(t).unwrap());
        for same in ["64K", "64KiB", "65536B", "64kib"] {
            assert_eq!(spelled(same), "64KiB");
        }
        assert_eq!(spelled("1MB"), "1MB");
        assert_eq!(spelled("1000B"), "1KB");
        assert_eq!(spelled("1500B"), "1500B");
        assert_eq!(spelled("10%"), "10%");
        assert_eq!(spelled("500"), "500");
        assert_eq!(bytes_label(64 << 20), "64MiB");
        assert_eq!(bytes_label(123_456_789), "117.74MiB");
        assert_eq!(bytes_label(1000), "1KB");
        assert_eq!(bytes_label(999), "999B");
        let c = CacheCapacity::new(&CacheSize::Percent(10.0), 1234, CapacityUnit::Objects);
        assert_eq!(c.label(), "1234 objects");
        assert!(CacheCapacity::blocks(99).sort_key() < c.sort_key());
    }

    #[test]
    fn an_old_stored_byte_capacity_row_reads_with_its_capacity_in_bytes() {
        // As belady wrote an objects-model row at a byte capacity before rows had capacities.
        let mut row: RunResult = serde_json::from_str(
            r#"{"trace":"t","policy":"lru","cache_blocks":0,"block_size":4096,"unique_blocks":9,
            "requests":10,"hits":4,"misses":6,"hit_ratio":0.4,"evictions":1,"cache_model":"objects",
            "cache_bytes":65536,"bytes_requested":100,"byte_hits":40,"byte_misses":60,
            "byte_miss_ratio":0.6}"#,
        )
        .unwrap();
        row.upgrade(Some("65536B"));
        assert_eq!(
            row.cache_blocks, None,
            "no cache_blocks = 0 for a byte capacity"
        );
        assert_eq!(
            row.capacity,
            CacheCapacity {
                spelled: "64KiB".into(),
                amount: 65536,
                unit: CapacityUnit::Bytes
            }
        );
        assert_eq!(row.io.as_ref().map(|io| io.disk_requests), Some(6));
        let json = serde_json::to_value(&row).unwrap();
        assert_eq!(
            (
                &json["cache_size"],
                &json["capacity"],
                &json["capacity_unit"]
            ),
            (&"64KiB".into(), &65536.into(), &"bytes".into())
        );
        assert!(json.get("cache_blocks").is_none());
    }
}
