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
