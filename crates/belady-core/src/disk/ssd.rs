//! A flash SSD as a latency-plus-bandwidth device with internal parallelism.
//!
//! A request of `b` bytes covers `p = ceil(b / page_bytes)` flash pages. The device reads (or
//! programs) up to `channels × units_per_channel` pages at once, so the media part takes
//! `ceil(p / (channels × units_per_channel))` rounds of the page latency. The data crosses the
//! flash channels (the request spread evenly over `min(p, channels)` of them) and the host link;
//! the slower of the two sets the transfer time. With a command overhead in front:
//!
//! `t = command + rounds × latency + max(b / interface_bw, (b / min(p, channels)) / channel_bw)`
//!
//! Not modelled: garbage collection, write amplification, queueing inside the device (the caller
//! sends one request at a time), the DRAM read cache. Writes use `write_latency_us`, which stands
//! for an acknowledgement from the device's write buffer unless set to the page program time.

use super::{check, DiskAccess, DiskModel, SECTOR_BYTES};
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// Parameters of [`SsdModel`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SsdParams {
    /// Per-command controller and protocol overhead, µs.
    pub command_us: f64,
    /// Flash page read latency (tR), µs.
    pub read_latency_us: f64,
    /// Time until a write is acknowledged, µs.
    pub write_latency_us: f64,
    /// Flash page size, bytes.
    pub page_bytes: u32,
    /// Flash channels.
    pub channels: u32,
    /// Pages one channel can read or program at once (chips × dies × planes).
    pub units_per_channel: u32,
    /// Bandwidth of one flash channel, MB/s (10^6 bytes).
    pub channel_mb_s: f64,
    /// Host interface bandwidth, MB/s (10^6 bytes).
    pub interface_mb_s: f64,
}

impl SsdParams {
    /// NVMe SSD after MQSim's shipped `ssdconfig.xml`: 8 channels × 4 chips × 2 dies × 2 planes,
    /// 8 KB pages, 75 µs page read, 333 MT/s channels. Assumed (not from MQSim): 5 µs command
    /// overhead, writes acknowledged from the DRAM buffer in 20 µs, a PCIe 3.0 ×4 link (3,500 MB/s).
    pub fn nvme() -> SsdParams {
        SsdParams {
            command_us: 5.0,
            read_latency_us: 75.0,
            write_latency_us: 20.0,
            page_bytes: 8192,
            channels: 8,
            units_per_channel: 16,
            channel_mb_s: 333.0,
            interface_mb_s: 3500.0,
        }
    }

    /// Checks the parameters.
    pub fn validate(&self) -> Result<()> {
        for (key, v) in [
            ("command_us", self.command_us),
            ("read_latency_us", self.read_latency_us),
            ("write_latency_us", self.write_latency_us),
        ] {
            crate::limits::check_time(key, v, crate::limits::TimeUnit::Us)?;
        }
        for (key, v) in [
            ("channel_mb_s", self.channel_mb_s),
            ("interface_mb_s", self.interface_mb_s),
        ] {
            crate::limits::check_rate(key, v, 1e6, "MB/s", crate::limits::MIN_DEVICE_BYTES_PER_S)?;
        }
        check(
            self.page_bytes >= 512,
            "page_bytes",
            self.page_bytes,
            "a page size of at least 512 bytes",
        )?;
        check(
            self.channels >= 1,
            "channels",
            self.channels,
            "at least 1 channel",
        )?;
        check(
            self.units_per_channel >= 1,
            "units_per_channel",
            self.units_per_channel,
            "at least 1 unit per channel",
        )
    }
}

/// A flash SSD (stateless apart from its parameters).
pub struct SsdModel {
    name: String,
    params: SsdParams,
}

impl SsdModel {
    /// A model with these parameters (validate them first).
    pub fn new(name: &str, params: SsdParams) -> Self {
        SsdModel {
            name: name.to_string(),
            params,
        }
    }

    /// Service time in ns of a request of `bytes` (reads when `!write`).
    pub fn time_ns(&self, bytes: u64, write: bool) -> f64 {
        let p = &self.params;
        let pages = bytes.div_ceil(u64::from(p.page_bytes)).max(1);
        let units = u64::from(p.channels) * u64::from(p.units_per_channel);
        let rounds = pages.div_ceil(units) as f64;
        let latency = if write {
            p.write_latency_us
        } else {
            p.read_latency_us
        };
        let used_channels = pages.min(u64::from(p.channels)) as f64;
        // MB/s is bytes per µs.
        let link_us = bytes as f64 / p.interface_mb_s;
        let channel_us = bytes as f64 / used_channels / p.channel_mb_s;
        (p.command_us + rounds * latency + link_us.max(channel_us)) * 1e3
    }
}

impl DiskModel for SsdModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn service_ns(&mut self, req: &DiskAccess, _start_ns: u64) -> u64 {
        let bytes = u64::from(req.sectors) * SECTOR_BYTES;
        self.time_ns(bytes, req.write).round() as u64
    }

    fn reset(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(m: &mut SsdModel, kib: u32) -> f64 {
        let req = DiskAccess {
            lba: 0,
            sectors: kib * 2,
            write: false,
        };
        m.service_ns(&req, 0) as f64 / 1e3
    }

    #[test]
    fn nvme_magnitudes() {
        let mut m = SsdModel::new("nvme", SsdParams::nvme());
        // 4 KB: 5 + 75 + 4096 B / 333 MB/s (12.3 µs) = 92.3 µs, inside the 60-100 µs band of
        // typical QD1 random reads.
        let t4 = read(&mut m, 4);
        assert!((t4 - 92.3).abs() < 0.1, "{t4}");
        // 1 MiB: 128 pages over 128 units = one 75 µs round; 131 KB per channel at 333 MB/s.
        let t1m = read(&mut m, 1024);
        let mb_s = 1_048_576.0 / t1m;
        assert!((1500.0..7000.0).contains(&mb_s), "{mb_s} MB/s");
        // Larger requests never take less time; writes are acknowledged sooner.
        let mut last = 0.0;
        for kib in [4, 8, 16, 64, 256, 1024, 4096] {
            let t = read(&mut m, kib);
            assert!(t >= last);
            last = t;
        }
        let w = m.service_ns(
            &DiskAccess {
                lba: 0,
                sectors: 8,
                write: true,
            },
            0,
        );
        assert!((w as f64) < t4 * 1e3);
    }

    #[test]
    fn channels_split_the_transfer() {
        let mut one = SsdModel::new(
            "one",
            SsdParams {
                channels: 1,
                ..SsdParams::nvme()
            },
        );
        let mut eight = SsdModel::new("eight", SsdParams::nvme());
        assert!(read(&mut one, 256) > 3.0 * read(&mut eight, 256));
    }
}
