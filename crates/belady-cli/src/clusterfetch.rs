//! `sim`'s ClusterFetch and launch options: `--prefetch ENGINE+clusterfetch`, its parameters,
//! the persistent store (`--cf-store`), the launch marker and warm starts; the core's
//! [`belady_core::run()`] performs them.

use belady_core::{RunConfig, RunResult};
use clap::Args;
use std::path::PathBuf;

/// `sim`'s ClusterFetch, launch and placement options.
#[derive(Args, Clone, Default)]
pub struct CfArgs {
    /// ClusterFetch: entries of the queue of recent disk I/Os (default 16).
    #[arg(long)]
    cf_queue: Option<usize>,
    /// ClusterFetch: the queue holds a burst while it spans less than this, ms (default 500).
    #[arg(long)]
    cf_threshold: Option<f64>,
    /// ClusterFetch: fewest disk I/Os a burst needs to be stored (default 32).
    #[arg(long)]
    cf_min_burst: Option<usize>,
    /// ClusterFetch: largest store size in bytes, e.g. 3MB (default 3MB, the paper's figure).
    #[arg(long)]
    cf_store_limit: Option<String>,
    /// ClusterFetch: prefetch bandwidth cap in bytes per second, e.g. 8MiB (default: no cap).
    #[arg(long)]
    cf_bandwidth: Option<String>,
    /// ClusterFetch: load the learned store from PATH before the run (if it exists) and save the
    /// store learned by the run there after it.
    #[arg(long)]
    cf_store: Option<PathBuf>,
    /// The launch ends at the first open of the file of this name (as the trace names it);
    /// default: the end of the trace.
    #[arg(long)]
    launch_until_open: Option<String>,
    /// Warm start: replay the trace once with the same cache before the measured launch.
    #[arg(long)]
    warm: bool,
    /// Where files lie on the device: contiguous (in order of first access) or scattered (each
    /// file at a place drawn from its name within 8 GiB, like an aged file system).
    #[arg(long, default_value = "contiguous")]
    layout: String,
}

impl CfArgs {
    /// Writes these options into the run's configuration (the core checks them there).
    pub fn apply(&self, config: &mut RunConfig) {
        config.cf_queue = self.cf_queue;
        config.cf_threshold = self.cf_threshold;
        config.cf_min_burst = self.cf_min_burst;
        config.cf_store_limit = self.cf_store_limit.clone();
        config.cf_bandwidth = self.cf_bandwidth.clone();
        config.cf_store = self.cf_store.clone();
        config.launch_until_open = self.launch_until_open.clone();
        config.warm = self.warm;
        config.layout = self.layout.clone();
    }
}

/// One line per run with ClusterFetch or a launch window, under the table.
pub fn summary(results: &[RunResult]) -> String {
    let mut out = String::new();
    for r in results {
        let Some(io) = &r.io else { continue };
        if let Some(l) = &io.launch {
            out.push_str(&format!(
                "{} @ {}: launch {:.3} s to {} ({} misses, {} disk requests)\n",
                r.policy, r.capacity.amount, l.time_s, l.until, l.misses, l.disk_requests
            ));
        }
        if let Some(cf) = &io.clusterfetch {
            let pct =
                |v: Option<f64>| v.map_or_else(|| "-".into(), |v| format!("{:.1}%", 100.0 * v));
            out.push_str(&format!(
                "    clusterfetch: {} triggers, {} blocks prefetched in {} requests, accuracy {:.1}%, coverage {}, launch {} shorter than without ({} s); store {} triggers, {} of {} bytes\n",
                cf.triggers,
                cf.prefetched_blocks,
                cf.requests,
                100.0 * cf.accuracy,
                pct(cf.coverage),
                pct(cf.launch_time_reduction),
                cf.baseline_launch_time_s.map_or_else(|| "-".into(), |t| format!("{t:.3}")),
                cf.store_triggers,
                cf.store_bytes,
                cf.store_limit_bytes,
            ));
        }
    }
    out
}
