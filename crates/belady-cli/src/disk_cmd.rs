//! `belady disk`: the service-time distribution of a disk model under a synthetic load, so users
//! can set a model beside measurements of their own device.

use anyhow::{bail, Result};
use belady_core::disk::{load_config, DiskAccess, SECTOR_BYTES};
use belady_core::CacheSize;
use clap::{Args, ValueEnum};

#[derive(Copy, Clone, PartialEq, Eq, ValueEnum)]
pub enum Pattern {
    /// Uniformly random, size-aligned addresses over the whole device.
    Random,
    /// Consecutive requests from address 0 on.
    Sequential,
}

#[derive(Args)]
pub struct DiskArgs {
    // Help built from the names the disk-model error lists.
    #[arg(long, default_value = "cheetah9lp", help = format!(
        "A preset ({}) or a TOML file describing the device", belady_core::disk::preset_list()
    ))]
    model: String,
    /// Access pattern.
    #[arg(long, value_enum, default_value = "random")]
    pattern: Pattern,
    /// Request size (4KiB, 64KiB, 512B; a multiple of 512 bytes).
    #[arg(long, default_value = "4KiB")]
    size: String,
    /// Number of requests.
    #[arg(long, default_value_t = 10_000)]
    count: u64,
    /// Seed of the random addresses.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Idle time between one request's completion and the next one's start, in ms.
    #[arg(long, default_value_t = 0.0)]
    think_ms: f64,
    /// Issue writes instead of reads.
    #[arg(long)]
    write: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Print the model's parameters as TOML (a starting point for a file of your own) and exit.
    #[arg(long)]
    dump_config: bool,
}

/// The printed result.
#[derive(serde::Serialize)]
struct Summary {
    model: String,
    pattern: &'static str,
    size_bytes: u64,
    count: u64,
    seed: u64,
    mean_ms: f64,
    min_ms: f64,
    p50_ms: f64,
    p90_ms: f64,
    p99_ms: f64,
    max_ms: f64,
    /// Bytes moved over the time the device was busy, in MB/s (10^6 bytes).
    mb_per_s: f64,
}

/// SplitMix64: a small deterministic generator for the addresses.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1] as f64 / 1e6
}

pub fn run(args: DiskArgs) -> Result<()> {
    let cfg = load_config(&args.model)?;
    if args.dump_config {
        print!("{}", cfg.to_toml());
        return Ok(());
    }
    let bytes = match CacheSize::parse_as(&args.size, "size")? {
        CacheSize::Bytes(b) | CacheSize::Blocks(b) => b,
        CacheSize::Percent(_) => bail!("--size takes a byte size such as 4KiB"),
    };
    if bytes == 0 || bytes % SECTOR_BYTES != 0 || bytes / SECTOR_BYTES > u64::from(u32::MAX) {
        bail!(
            "--size {}: expected a positive multiple of 512 bytes",
            args.size
        );
    }
    if args.count == 0 {
        bail!("--count: expected at least 1 request");
    }
    if !(args.think_ms.is_finite() && args.think_ms >= 0.0) {
        bail!("--think-ms {}: expected 0 or more", args.think_ms);
    }
    let sectors = bytes / SECTOR_BYTES;
    let capacity = match &cfg {
        belady_core::disk::DiskConfig::Hdd(p) => {
            belady_core::disk::hdd::HddModel::new("probe", p.clone())?.capacity()
        }
        // Flash and fixed models do not depend on the address.
        _ => u64::MAX / 2,
    };
    let slots = capacity / sectors;
    if slots == 0 {
        bail!("--size {}: larger than the device", args.size);
    }
    let mut model = belady_core::disk::load_model(&args.model)?;
    let think = (args.think_ms * 1e6).round() as u64;
    let mut rng = args.seed;
    let mut times = Vec::with_capacity(args.count as usize);
    let mut now = 0u64;
    let mut busy = 0u64;
    for i in 0..args.count {
        let lba = match args.pattern {
            Pattern::Random => (splitmix(&mut rng) % slots) * sectors,
            Pattern::Sequential => (i % slots) * sectors,
        };
        let req = DiskAccess {
            lba,
            sectors: sectors as u32,
            write: args.write,
        };
        let s = model.service_ns(&req, now);
        times.push(s);
        busy += s;
        now += s + think;
    }
    let mean = busy as f64 / args.count as f64 / 1e6;
    times.sort_unstable();
    let summary = Summary {
        model: model.name().to_string(),
        pattern: match args.pattern {
            Pattern::Random => "random",
            Pattern::Sequential => "sequential",
        },
        size_bytes: bytes,
        count: args.count,
        seed: args.seed,
        mean_ms: mean,
        min_ms: times[0] as f64 / 1e6,
        p50_ms: percentile(&times, 50.0),
        p90_ms: percentile(&times, 90.0),
        p99_ms: percentile(&times, 99.0),
        max_ms: times[times.len() - 1] as f64 / 1e6,
        mb_per_s: (bytes * args.count) as f64 / (busy as f64 * 1e-9) / 1e6,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        println!(
            "{} {} {} B x {} (seed {}): service time ms mean {:.3} min {:.3} p50 {:.3} p90 {:.3} p99 {:.3} max {:.3}; {:.2} MB/s",
            summary.model,
            summary.pattern,
            bytes,
            args.count,
            args.seed,
            summary.mean_ms,
            summary.min_ms,
            summary.p50_ms,
            summary.p90_ms,
            summary.p99_ms,
            summary.max_ms,
            summary.mb_per_s
        );
    }
    Ok(())
}
