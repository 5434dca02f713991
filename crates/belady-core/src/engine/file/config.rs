//! The file engine's configuration: what a file-level run needs besides the policy and the cache
//! size, built from the options users write and checked in one place.

use super::Placement;
use crate::compat::accusim::Departures;
use crate::disk::queue::Scheduler;
use crate::disk::DiskConfig;
use crate::engine::file::cluster::ClusterRules;
use crate::error::{Error, Result};
use crate::prefetch::bsd::Bsd;
use crate::prefetch::clusterfetch::ClusterFetchConfig;
use crate::prefetch::example::ExampleReadAhead;
use crate::prefetch::linux24::Linux24;
use crate::prefetch::linux26::Linux26;
use crate::prefetch::ondemand::Ondemand;
use crate::prefetch::{NoReadAhead, PrefetchKind, ReadAhead};

/// Everything a file-level run needs besides the policy and the cache size.
#[derive(Clone, Debug, PartialEq)]
pub struct FileSimConfig {
    /// Bytes per block.
    pub block_size: u32,
    /// Read-ahead engine.
    pub prefetch: PrefetchKind,
    /// AccuSim's departures that are on.
    pub departures: Departures,
    /// Largest request in bytes, unless `request_cap_33` is on (the study's text: 64 KB).
    pub max_request_bytes: u64,
    /// Linux 2.4 read-ahead minimum and maximum, in blocks.
    pub readahead_min: u64,
    /// See `readahead_min`.
    pub readahead_max: u64,
    /// The device serving requests; without one a request completes when it is issued.
    pub disk: Option<DiskConfig>,
    /// How the device orders waiting requests.
    pub scheduler: Scheduler,
    /// ClusterFetch on top of the read-ahead engine, with its parameters.
    pub clusterfetch: Option<ClusterFetchConfig>,
    /// Where files lie on the device.
    pub placement: Placement,
    /// Record every disk request in [`crate::run::rows::IoStats::request_log`].
    pub log_requests: bool,
    /// With a device: longest time a prefetch-only request may stay open (plugged) for later
    /// calls to extend while the program computes; Linux's block-layer unplug timer is 3 ms.
    pub unplug_delay_ns: u64,
    /// Admission filter consulted on each demand miss before insertion (none when absent).
    pub admission: Option<crate::cache::admission::AdmissionSpec>,
    /// Seed of random admission.
    pub seed: u64,
}

impl Default for FileSimConfig {
    fn default() -> Self {
        FileSimConfig {
            block_size: 4096,
            prefetch: PrefetchKind::Linux24,
            departures: Departures::default(),
            max_request_bytes: 64 * 1024,
            readahead_min: 3,
            readahead_max: 32,
            disk: None,
            scheduler: Scheduler::Fcfs,
            clusterfetch: None,
            placement: Placement::Contiguous,
            log_requests: false,
            unplug_delay_ns: 3_000_000,
            admission: None,
            seed: 0,
        }
    }
}

impl FileSimConfig {
    /// Checks the configuration; the only place file-level settings are validated.
    pub fn validate(&self) -> Result<()> {
        crate::trace::check_block_size(self.block_size)?;
        if self.max_request_blocks() == 0 {
            return Err(Error::config(
                "max_request",
                self.max_request_bytes,
                format!("is less than one {}-byte block", self.block_size),
            ));
        }
        if let Some(disk) = &self.disk {
            disk.validate()?;
        } else if self.scheduler != Scheduler::Fcfs {
            return Err(Error::config(
                "scheduler",
                self.scheduler.name(),
                "orders a device queue, so it needs --disk",
            ));
        }
        if self.readahead_min > self.readahead_max || self.readahead_max == 0 {
            return Err(Error::config(
                "read-ahead window",
                format!("{}..{}", self.readahead_min, self.readahead_max),
                "needs 0 < max and min <= max",
            ));
        }
        if let Some(cf) = &self.clusterfetch {
            cf.validate()?;
        }
        Ok(())
    }

    /// [`FileSimConfig::validate`], and the trace laid out in this configuration's block size:
    /// the engine turns byte offsets into blocks with it, so another size (a native file's
    /// header, say) would index past the layout or merge blocks silently.
    pub fn validate_for(&self, trace: &super::PreparedFileTrace) -> Result<()> {
        self.validate()?;
        if trace.block_size != self.block_size {
            return Err(Error::config(
                "block_size",
                self.block_size,
                format!(
                    "{} holds {}-byte blocks: give that block size (--block-size {})",
                    trace.source(),
                    trace.block_size,
                    trace.block_size
                ),
            ));
        }
        Ok(())
    }

    /// The prefetching a run's results name: the read-ahead engine, `+clusterfetch` when on.
    pub fn prefetch_name(&self) -> String {
        match self.clusterfetch {
            Some(_) => format!("{}+clusterfetch", self.prefetch.name()),
            None => self.prefetch.name().to_string(),
        }
    }

    pub(crate) fn max_request_blocks(&self) -> u32 {
        self.departures.request_block_cap().unwrap_or(
            (self.max_request_bytes / self.block_size as u64).min(u32::MAX as u64) as u32,
        )
    }

    pub(crate) fn cluster_rules(&self) -> ClusterRules {
        ClusterRules {
            max_blocks: self.max_request_blocks(),
            split_at_calls: self.departures.requests_end_with_calls,
            demand_after_prefetch_splits: self.departures.demand_after_prefetch_splits,
            block0_sentinel: self.departures.block0_sentinel,
        }
    }

    pub(crate) fn read_ahead(&self) -> Box<dyn ReadAhead> {
        match self.prefetch {
            PrefetchKind::None => Box::new(NoReadAhead),
            PrefetchKind::Linux24 => Box::new(Linux24::new(
                self.readahead_min,
                self.readahead_max,
                self.block_size as u64,
                self.departures.skip_partial_last_block,
            )),
            PrefetchKind::Example => Box::new(ExampleReadAhead::new(self.block_size as u64)),
            PrefetchKind::Linux26 => Box::new(Linux26::new(
                4.min(self.readahead_max),
                self.readahead_max,
                self.block_size as u64,
            )),
            PrefetchKind::Ondemand => {
                Box::new(Ondemand::new(self.readahead_max, self.block_size as u64))
            }
            PrefetchKind::Bsd => Box::new(Bsd::new(self.readahead_max, self.block_size as u64)),
            PrefetchKind::Linux6 => Box::new(crate::prefetch::linux6::Linux6::new(
                self.readahead_max,
                self.block_size as u64,
            )),
        }
    }
}
