//! One block-level hierarchy run's results and their row in the common schema.

use super::{LevelReport, TimingReport};

/// One hierarchy run's configuration and results.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HierarchyResult {
    /// Trace source (path).
    pub trace: String,
    /// The hierarchy, as [`super::HierarchySpec::label`] prints it.
    pub hierarchy: String,
    /// Bytes per block.
    pub block_size: u32,
    /// Distinct blocks in the trace.
    pub unique_blocks: u64,
    /// Demand block references (all reach the client).
    pub requests: u64,
    /// References served by some level.
    pub hits: u64,
    /// Hits over requests.
    pub hit_ratio: f64,
    /// One entry per level, top first.
    pub levels: Vec<LevelReport>,
    /// Demand reads that missed every level.
    pub disk_reads: u64,
    /// Reloads issued to the disk by eviction-based levels.
    pub disk_reloads: u64,
    /// Every disk request: demand reads plus reloads.
    pub disk_requests: u64,
    /// Bytes moved by demotions, all levels.
    pub demotion_bytes: u64,
    /// Times, with the timing model.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub timing: Option<TimingReport>,
}

impl HierarchyResult {
    /// The run as one row of results: the hierarchy as the policy, hits anywhere as hits, every
    /// level in `levels`, disk requests (demand reads and reloads) in the I/O counters.
    pub fn summary(&self) -> crate::report::RunResult {
        let mut io = crate::report::IoStats {
            disk_requests: self.disk_requests,
            sync_requests: self.disk_reads,
            sync_blocks: self.disk_reads,
            async_requests: self.disk_reloads,
            async_blocks: self.disk_reloads,
            sync_blocks_per_request: if self.disk_reads > 0 { 1.0 } else { 0.0 },
            async_blocks_per_request: if self.disk_reloads > 0 { 1.0 } else { 0.0 },
            ..Default::default()
        };
        if let Some(t) = &self.timing {
            // The same timed keys as a file-engine row, from the hierarchy's clock.
            let s = |ns: u64| ns as f64 / 1e9;
            let busy = t.demand_disk_ns + t.reload_disk_ns;
            let wait = t.run_time_ns.saturating_sub(t.proc_ns);
            io.exec_time_s = Some(s(t.run_time_ns));
            io.proc_time_s = Some(s(t.proc_ns));
            io.io_time_s = Some(s(wait));
            io.io_wait_s = Some(s(wait));
            io.disk_busy_s = Some(s(busy));
            io.disk_utilization = Some(if t.run_time_ns == 0 {
                0.0
            } else {
                busy as f64 / t.run_time_ns as f64
            });
            io.mean_response_ms = Some(t.mean_response_ns / 1e6);
        }
        crate::report::RunResult {
            trace: self.trace.clone(),
            policy: self.hierarchy.clone(),
            cache_blocks: self.levels.iter().map(|l| l.cache_blocks).sum(),
            block_size: self.block_size,
            unique_blocks: self.unique_blocks,
            requests: self.requests,
            hits: self.hits,
            misses: self.requests - self.hits,
            hit_ratio: self.hit_ratio,
            evictions: self.levels.iter().map(|l| l.evictions).sum(),
            prefetch: None,
            io: Some(io),
            levels: Some(self.levels.clone()),
            ..Default::default()
        }
        .with_block_bytes()
    }
}
