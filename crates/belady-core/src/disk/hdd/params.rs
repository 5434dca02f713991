//! The parameters of [`super::HddModel`] (zones, overheads, the drive cache) and their checks.

use super::SeekSpec;
use crate::disk::check;
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// One zone (DiskSim "band"): a range of cylinders with a constant number of sectors per track.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Zone {
    /// First cylinder of the zone.
    pub first_cylinder: u32,
    /// Last cylinder of the zone (inclusive).
    pub last_cylinder: u32,
    /// Sectors per track.
    pub sectors_per_track: u32,
    /// Skew added per head switch, in sectors.
    pub track_skew: u32,
    /// Skew added per cylinder step, in sectors.
    pub cylinder_skew: u32,
    /// Sectors at the end of the zone that hold no logical block.
    #[serde(default)]
    pub spare_sectors: u64,
    /// Sectors at the start of the zone that hold no logical block (DiskSim's "Empty space at
    /// zone front"): the zone's first logical block is its `front_sectors`-th sector.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub front_sectors: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// Command overheads in ms, by hit/miss and the kind of the previous command.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overheads {
    /// Read served from the drive cache, previous command a read.
    pub read_hit_after_read_ms: f64,
    /// Read served from the drive cache, previous command a write.
    pub read_hit_after_write_ms: f64,
    /// Read that needs the media, previous command a read.
    pub read_miss_after_read_ms: f64,
    /// Read that needs the media, previous command a write.
    pub read_miss_after_write_ms: f64,
    /// Write absorbed by the write-back cache, previous command a read.
    pub write_hit_after_read_ms: f64,
    /// Write absorbed by the write-back cache, previous command a write.
    pub write_hit_after_write_ms: f64,
    /// Write to the media, previous command a read.
    pub write_miss_after_read_ms: f64,
    /// Write to the media, previous command a write.
    pub write_miss_after_write_ms: f64,
}

/// The on-drive cache.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriveCache {
    /// Number of segments.
    pub segments: u32,
    /// Sectors per segment.
    pub segment_sectors: u32,
    /// Sectors read ahead past a read miss (bounded by the segment).
    pub read_ahead_sectors: u32,
    /// Writes complete once their data is in the buffer.
    pub write_back: bool,
    /// How far a read-ahead goes (see [`ReadAhead`]).
    #[serde(default)]
    pub read_ahead: ReadAhead,
    /// A read is a hit only if its first sector is in the buffer when it arrives; one whose
    /// first sector the running read-ahead has not read yet is a miss (DiskSim without "almost
    /// read hits"). Off: it waits for the read-ahead as a hit.
    #[serde(default)]
    pub hit_needs_first_sector: bool,
    /// A read served from one segment stops the read-ahead running into another (DiskSim: the
    /// mechanism goes to the new request).
    #[serde(default)]
    pub hit_stops_read_ahead: bool,
}

/// Where a drive read-ahead stops (DiskSim's "Buffer continuous read").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReadAhead {
    /// Up to `read_ahead_sectors` past the request and the segment size; a hit in the segment
    /// being read ahead moves the limit on (the segment works as a ring).
    #[default]
    Ring,
    /// Not past the end of the track holding the request's last sector (DiskSim's scheme 1); a
    /// later read running past it is a partial hit.
    TrackEnd,
    /// DiskSim's DEC scheme (4): to the end of the track holding the sector after the request,
    /// or of the track after that one when the segment began on an earlier track. A read served
    /// from the segment raises the limit of a running read-ahead the same way; one that has
    /// stopped is not restarted.
    NextTrack,
}

/// Parameters of [`super::HddModel`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HddParams {
    /// Spindle speed, revolutions per minute.
    pub rpm: f64,
    /// Data surfaces (heads).
    pub surfaces: u32,
    /// Cylinders.
    pub cylinders: u32,
    /// Logical capacity in sectors; 0 = every sector the zones map.
    #[serde(default)]
    pub capacity_sectors: u64,
    /// Time to switch heads on the same cylinder, ms.
    pub head_switch_ms: f64,
    /// Extra settle time before a write after a seek, ms.
    pub write_settle_ms: f64,
    /// Time added after the last sector crossed the bus, ms.
    #[serde(default)]
    pub completion_ms: f64,
    /// Bus time per sector, ms (0 = infinitely fast bus).
    pub bus_ms_per_sector: f64,
    /// The zones, outermost first, in increasing and disjoint cylinder ranges.
    pub zones: Vec<Zone>,
    /// The seek curve.
    pub seek: SeekSpec,
    /// Command overheads.
    pub overheads: Overheads,
    /// The drive cache; absent = every read goes to the media.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<DriveCache>,
}

impl HddParams {
    /// Checks every parameter; errors name the key (`zones[3].sectors_per_track`, …).
    pub fn validate(&self) -> Result<()> {
        // One revolution may take at most the longest time (an hour): at least 1/60 rpm.
        check(
            self.rpm.is_finite() && self.rpm * 60.0 >= 1.0 && self.rpm <= 1e9,
            "rpm",
            self.rpm,
            "revolutions per minute from 1/60 (one per hour) to 1000000000",
        )?;
        check(
            self.surfaces >= 1,
            "surfaces",
            self.surfaces,
            "at least 1 surface",
        )?;
        check(
            self.cylinders >= 1,
            "cylinders",
            self.cylinders,
            "at least 1 cylinder",
        )?;
        for (key, v) in [
            ("head_switch_ms", self.head_switch_ms),
            ("write_settle_ms", self.write_settle_ms),
            ("completion_ms", self.completion_ms),
            ("bus_ms_per_sector", self.bus_ms_per_sector),
            (
                "overheads.read_hit_after_read_ms",
                self.overheads.read_hit_after_read_ms,
            ),
            (
                "overheads.read_hit_after_write_ms",
                self.overheads.read_hit_after_write_ms,
            ),
            (
                "overheads.read_miss_after_read_ms",
                self.overheads.read_miss_after_read_ms,
            ),
            (
                "overheads.read_miss_after_write_ms",
                self.overheads.read_miss_after_write_ms,
            ),
            (
                "overheads.write_hit_after_read_ms",
                self.overheads.write_hit_after_read_ms,
            ),
            (
                "overheads.write_hit_after_write_ms",
                self.overheads.write_hit_after_write_ms,
            ),
            (
                "overheads.write_miss_after_read_ms",
                self.overheads.write_miss_after_read_ms,
            ),
            (
                "overheads.write_miss_after_write_ms",
                self.overheads.write_miss_after_write_ms,
            ),
        ] {
            crate::limits::check_time(key, v, crate::limits::TimeUnit::Ms)?;
        }
        check(!self.zones.is_empty(), "zones", "[]", "at least one zone")?;
        let mut mapped = 0u64;
        for (i, z) in self.zones.iter().enumerate() {
            let key = |f: &str| format!("zones[{i}].{f}");
            if i > 0 {
                let prev = self.zones[i - 1].last_cylinder;
                check(
                    z.first_cylinder > prev,
                    &key("first_cylinder"),
                    z.first_cylinder,
                    &format!("a cylinder after the previous zone's last ({prev})"),
                )?;
            }
            check(
                z.last_cylinder >= z.first_cylinder && z.last_cylinder < self.cylinders,
                &key("last_cylinder"),
                z.last_cylinder,
                &format!(
                    "a cylinder from first_cylinder ({}) to cylinders - 1 ({})",
                    z.first_cylinder,
                    self.cylinders - 1
                ),
            )?;
            check(
                z.sectors_per_track >= 1,
                &key("sectors_per_track"),
                z.sectors_per_track,
                "at least 1 sector per track",
            )?;
            for (f, v) in [
                ("track_skew", z.track_skew),
                ("cylinder_skew", z.cylinder_skew),
            ] {
                check(
                    v < z.sectors_per_track,
                    &key(f),
                    v,
                    &format!("fewer sectors than a track ({})", z.sectors_per_track),
                )?;
            }
            let sectors = u64::from(z.last_cylinder - z.first_cylinder + 1)
                * u64::from(self.surfaces)
                * u64::from(z.sectors_per_track);
            check(
                z.spare_sectors < sectors,
                &key("spare_sectors"),
                z.spare_sectors,
                &format!("fewer than the zone's {sectors} sectors"),
            )?;
            check(
                z.front_sectors < sectors - z.spare_sectors,
                &key("front_sectors"),
                z.front_sectors,
                &format!(
                    "fewer than the zone's {} sectors left after its spares",
                    sectors - z.spare_sectors
                ),
            )?;
            mapped += sectors - z.spare_sectors - z.front_sectors;
        }
        check(
            self.capacity_sectors <= mapped,
            "capacity_sectors",
            self.capacity_sectors,
            &format!("at most the {mapped} sectors the zones map (0 = all of them)"),
        )?;
        self.seek.validate()?;
        if let Some(c) = &self.cache {
            check(
                c.segments >= 1,
                "cache.segments",
                c.segments,
                "at least 1 segment (omit [cache] for no drive cache)",
            )?;
            check(
                c.segment_sectors >= 1,
                "cache.segment_sectors",
                c.segment_sectors,
                "at least 1 sector",
            )?;
        }
        Ok(())
    }
}
