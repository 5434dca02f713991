//! `sim`'s ClusterFetch and launch options: `--prefetch ENGINE+clusterfetch`, its parameters,
//! the persistent store (`--cf-store`), the launch marker and warm starts.

use anyhow::{bail, Result};
use belady_core::filesim::{FileSimConfig, Placement, PreparedFileTrace};
use belady_core::prefetch::clusterfetch::{ClusterFetchConfig, PrefetchStore};
use belady_core::simulate::Simulation;
use belady_core::trace::{Format, OpFilter};
use belady_core::{CacheSize, Error, RunResult};
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

fn bytes(flag: &str, text: &str) -> Result<u64> {
    let bad = || {
        Error::config(
            flag,
            text,
            "expected a byte size such as 3MB, 512KiB or 1048576",
        )
    };
    match CacheSize::parse(text).map_err(|_| bad())? {
        CacheSize::Bytes(b) | CacheSize::Blocks(b) => Ok(b),
        CacheSize::Percent(_) => Err(bad().into()),
    }
}

impl CfArgs {
    /// ClusterFetch's parameters when `on`; an error when its options are given without it.
    pub fn config(&self, on: bool) -> Result<Option<ClusterFetchConfig>> {
        if !on {
            let given = [
                ("--cf-queue", self.cf_queue.is_some()),
                ("--cf-threshold", self.cf_threshold.is_some()),
                ("--cf-min-burst", self.cf_min_burst.is_some()),
                ("--cf-store-limit", self.cf_store_limit.is_some()),
                ("--cf-bandwidth", self.cf_bandwidth.is_some()),
                ("--cf-store", self.cf_store.is_some()),
            ];
            if let Some((flag, _)) = given.iter().find(|g| g.1) {
                bail!(Error::config(
                    flag,
                    "given",
                    "is a ClusterFetch option: add +clusterfetch to --prefetch"
                ));
            }
            return Ok(None);
        }
        let mut cf = ClusterFetchConfig::default();
        if let Some(q) = self.cf_queue {
            cf.queue_len = q;
        }
        if let Some(ms) = self.cf_threshold {
            if !(ms.is_finite() && ms > 0.0 && ms < 1e12) {
                bail!(Error::config(
                    "--cf-threshold",
                    ms,
                    "expected a time in milliseconds above 0"
                ));
            }
            cf.threshold_ns = (ms * 1e6).round() as u64;
        }
        if let Some(m) = self.cf_min_burst {
            cf.min_burst = m;
        }
        if let Some(t) = &self.cf_store_limit {
            cf.store_limit_bytes = bytes("--cf-store-limit", t)?;
        }
        if let Some(t) = &self.cf_bandwidth {
            cf.bandwidth_bytes_per_s = bytes("--cf-bandwidth", t)?;
        }
        cf.validate()?;
        Ok(Some(cf))
    }

    /// The trace as the run needs it: replayed twice for a warm start, with the launch marker.
    pub fn prepare(&self, trace: PreparedFileTrace) -> Result<PreparedFileTrace> {
        let mut trace = if self.warm {
            let block_size = trace.block_size;
            PreparedFileTrace::warm(trace.into_file_trace()?, block_size)?
        } else {
            trace
        };
        if let Some(name) = &self.launch_until_open {
            trace.set_launch_until_open(name)?;
        }
        Ok(trace)
    }

    /// Saves the learned store to `--cf-store`, when given.
    pub fn save_store(&self, store: Option<&PrefetchStore>) -> Result<()> {
        if let (Some(path), Some(store)) = (&self.cf_store, store) {
            store.save(path)?;
            eprintln!(
                "belady: ClusterFetch store saved to {} ({} triggers, {} bytes)",
                path.display(),
                store.len(),
                store.bytes()
            );
        }
        Ok(())
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
                r.policy, r.cache_blocks, l.time_s, l.until, l.misses, l.disk_requests
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

impl CfArgs {
    /// Whether these options need the file-level engine even on a block-level trace.
    pub fn needs_file_engine(&self) -> bool {
        self.needs_own_run() || self.layout != "contiguous"
    }

    /// Whether the trace or the run must be shaped here ([`simulate`]) rather than by
    /// `belady_core::simulate`: a warm start, a launch marker or a persistent store.
    pub fn needs_own_run(&self) -> bool {
        self.warm || self.launch_until_open.is_some() || self.cf_store.is_some()
    }

    /// The `--layout` value.
    pub fn placement(&self) -> Result<Placement> {
        Ok(Placement::parse(&self.layout)?)
    }
}

/// Runs the grid over a file-level trace. With `--cf-store`, the single run starts ClusterFetch
/// from the store at that path (when the file exists) and saves the store it learned there.
pub fn run_file(
    args: &CfArgs,
    specs: &[belady_core::PolicySpec],
    sizes: &[CacheSize],
    trace: &PreparedFileTrace,
    cfg: &FileSimConfig,
) -> Result<Vec<RunResult>> {
    let (Some(path), Some(_)) = (&args.cf_store, &cfg.clusterfetch) else {
        return Ok(belady_core::filesim::run_file_grid(
            specs, sizes, trace, cfg,
        )?);
    };
    let runs = specs.len() * sizes.len();
    if runs != 1 {
        bail!(Error::config(
            "--cf-store",
            path.display(),
            format!(
                "holds one run's store, but this call makes {runs} runs (give one policy and one cache size)"
            )
        ));
    }
    let store = PrefetchStore::load(path)?;
    let capacity = sizes[0].resolve(trace.distinct, trace.block_size)?;
    let (run, learned) = belady_core::filesim::run_file_one_with_store(
        &specs[0],
        trace,
        capacity,
        cfg,
        store.as_ref(),
    )?;
    args.save_store(learned.as_ref())?;
    Ok(vec![run])
}

/// `belady_core::simulate::simulate` on the file engine, with the trace shaped here
/// ([`CfArgs::prepare`]: warm start, launch marker) and the store of `--cf-store` ([`run_file`]).
#[allow(clippy::too_many_arguments)]
pub fn simulate(
    args: &CfArgs,
    path: &std::path::Path,
    format: &Format,
    block_size: u32,
    ops: OpFilter,
    specs: &[belady_core::PolicySpec],
    sizes: &[CacheSize],
    cfg: &FileSimConfig,
) -> Result<Simulation> {
    let trace = belady_core::simulate::load_file_engine_trace(path, format, block_size, ops)?;
    let trace = args.prepare(trace)?;
    let runs = run_file(args, specs, sizes, &trace, cfg)?;
    Ok(Simulation::of_file_runs(runs, &trace))
}
