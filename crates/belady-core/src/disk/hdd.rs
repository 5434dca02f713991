//! A zoned mechanical disk in the manner of Ruemmler & Wilkes (1994) and DiskSim.
//!
//! **Geometry.** `surfaces` heads over `cylinders` cylinders, grouped into zones with a constant
//! number of sectors per track. Logical blocks fill a zone track by track (all surfaces of a
//! cylinder, then the next cylinder); each zone's `spare_sectors` are its last sectors and hold no
//! logical block; cylinders between two zones hold none either. Within a track, logical sector `s`
//! sits at angular slot `(s + skew) mod spt`, where the skew of a track grows by `track_skew` per
//! head switch and by `cylinder_skew` per cylinder step (counted from the zone's first track).
//!
//! **Timing of a media access** from head position `h` at time `t` to sector `x`: positioning
//! (seek curve for a cylinder change, plus `write_settle_ms` for writes; `head_switch_ms` for a
//! surface change on the same cylinder), then rotational wait until slot `x` passes under the head
//! — the platter's angle is `t mod revolution` since time 0, so consecutive requests see the real
//! position — then one sector time (`revolution / spt`) per sector. A transfer that crosses a track
//! boundary repositions (head switch or one-cylinder seek) and waits for the skewed first sector of
//! the next track, as the drive does.
//!
//! **Bus.** Sectors leave over the bus at `bus_ms_per_sector` each, no earlier than they come off
//! the platter (a pipeline); the request completes when its last sector has crossed the bus, plus
//! `completion_ms`.
//!
//! **Command overhead** precedes all mechanical work and depends on hit/miss and the previous
//! command (read hit after read, read miss after write, …).
//!
//! **Drive cache** (optional): `segments` segments of `segment_sectors`. A read miss fills the
//! segment with the request and then keeps reading ahead (up to `read_ahead_sectors` and the
//! segment size) until another request needs the mechanism. A read whose sectors lie in a segment,
//! or in the part the running read-ahead will reach, is a hit: it waits only for the read-ahead to
//! reach its last sector and for the bus. A hit in the segment being read ahead moves the
//! read-ahead limit on (the segment works as a ring), so a sequential stream of small reads is
//! served from the buffer. Segments are replaced least recently used. Writes invalidate
//! overlapping segments; with `write_back` a write completes once its data crossed the bus (the
//! later media write is not modelled), otherwise it is a positioned media write.

use super::{check, ms_to_ns, DiskAccess, DiskModel};
use crate::error::{Error, Result};
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
}

/// The seek curve: time to move the arm `d` cylinders (0 for `d = 0`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum SeekSpec {
    /// Measured points `[distance_cylinders, ms]`, strictly increasing in distance, linear in
    /// between; distances below the first point take its time, beyond the last point its time.
    Table {
        /// The curve's points.
        points: Vec<(u32, f64)>,
    },
    /// `a + b·sqrt(d)` for `d < boundary`, `c + e·d` from `boundary` on (milliseconds).
    Formula {
        /// Constant of the short-seek branch.
        a_ms: f64,
        /// Coefficient of sqrt(d) in the short-seek branch.
        b_ms: f64,
        /// Constant of the long-seek branch.
        c_ms: f64,
        /// Coefficient of d in the long-seek branch.
        e_ms: f64,
        /// First distance that uses the long-seek branch.
        boundary: u32,
    },
}

impl SeekSpec {
    /// Seek time in ms over `d` cylinders.
    pub fn time_ms(&self, d: u64) -> f64 {
        if d == 0 {
            return 0.0;
        }
        match self {
            SeekSpec::Table { points } => {
                let i = points.partition_point(|&(x, _)| u64::from(x) < d);
                if i == 0 {
                    return points[0].1;
                }
                if i == points.len() {
                    return points[i - 1].1;
                }
                let (x1, y1) = points[i];
                if u64::from(x1) == d {
                    return y1;
                }
                let (x0, y0) = points[i - 1];
                let f = (d - u64::from(x0)) as f64 / f64::from(x1 - x0);
                y0 + f * (y1 - y0)
            }
            SeekSpec::Formula {
                a_ms,
                b_ms,
                c_ms,
                e_ms,
                boundary,
            } => {
                if d < u64::from(*boundary) {
                    a_ms + b_ms * (d as f64).sqrt()
                } else {
                    c_ms + e_ms * d as f64
                }
            }
        }
    }

    /// Mean seek time in ms between two cylinders drawn uniformly and independently from
    /// `cylinders` (distance 0 included, with time 0).
    pub fn mean_random_ms(&self, cylinders: u64) -> f64 {
        let n = cylinders as f64;
        (1..cylinders)
            .map(|d| 2.0 * (n - d as f64) / (n * n) * self.time_ms(d))
            .sum()
    }

    fn validate(&self) -> Result<()> {
        match self {
            SeekSpec::Table { points } => {
                check(
                    !points.is_empty(),
                    "seek.points",
                    "[]",
                    "at least one [distance, ms] point",
                )?;
                let mut last = 0u32;
                for (i, &(d, ms)) in points.iter().enumerate() {
                    check(
                        d > last || (i == 0 && d >= 1),
                        &format!("seek.points[{i}]"),
                        format!("[{d}, {ms}]"),
                        "distances of 1 or more, strictly increasing",
                    )?;
                    check(
                        ms.is_finite() && ms >= 0.0,
                        &format!("seek.points[{i}]"),
                        format!("[{d}, {ms}]"),
                        "a seek time in milliseconds, 0 or more",
                    )?;
                    last = d;
                }
                Ok(())
            }
            SeekSpec::Formula {
                a_ms,
                b_ms,
                c_ms,
                e_ms,
                boundary,
            } => {
                for (key, v) in [
                    ("seek.a_ms", a_ms),
                    ("seek.b_ms", b_ms),
                    ("seek.c_ms", c_ms),
                    ("seek.e_ms", e_ms),
                ] {
                    check(v.is_finite(), key, v, "a finite number of milliseconds")?;
                }
                check(
                    *boundary >= 1,
                    "seek.boundary",
                    boundary,
                    "a distance of 1 cylinder or more",
                )
            }
        }
    }
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
    /// Read-ahead stops at the end of the track holding the request's last sector (DiskSim's
    /// prefetch to the end of the track); a later read that runs past it is a partial hit.
    #[serde(default)]
    pub read_ahead_to_track_end: bool,
}

/// Parameters of [`HddModel`].
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

/// The seek curve of the Cheetah 9LP as DiskSim extracted it (distance in cylinders, ms);
/// the same 106 points as `cheetah9lp-seek.tsv` in the AccuSim oracle.
const CHEETAH9LP_SEEK: [(u32, f64); 106] = [
    (1, 0.831),
    (2, 1.003),
    (3, 1.089),
    (4, 1.092),
    (5, 1.268),
    (6, 1.263),
    (7, 1.271),
    (8, 1.439),
    (9, 1.433),
    (10, 1.448),
    (12, 1.449),
    (14, 1.447),
    (16, 1.453),
    (18, 1.533),
    (20, 1.534),
    (25, 1.625),
    (30, 1.624),
    (35, 1.712),
    (40, 1.715),
    (45, 1.765),
    (50, 1.804),
    (60, 1.893),
    (70, 1.945),
    (80, 1.983),
    (90, 2.072),
    (100, 2.145),
    (125, 2.161),
    (150, 2.259),
    (175, 2.510),
    (200, 2.517),
    (225, 2.519),
    (250, 2.607),
    (275, 2.701),
    (300, 2.699),
    (325, 2.841),
    (350, 2.874),
    (375, 2.962),
    (400, 3.051),
    (425, 3.014),
    (450, 3.104),
    (475, 3.098),
    (500, 3.230),
    (600, 3.399),
    (700, 3.638),
    (800, 3.823),
    (900, 3.995),
    (1000, 4.118),
    (1100, 4.271),
    (1200, 4.397),
    (1300, 4.427),
    (1400, 4.573),
    (1500, 4.757),
    (1600, 4.833),
    (1700, 4.930),
    (1800, 4.993),
    (1900, 5.190),
    (2000, 5.282),
    (2100, 5.428),
    (2200, 5.541),
    (2300, 5.624),
    (2400, 5.726),
    (2500, 5.815),
    (2600, 5.963),
    (2700, 6.082),
    (2800, 6.163),
    (2900, 6.245),
    (3000, 6.345),
    (3100, 6.423),
    (3200, 6.665),
    (3300, 6.737),
    (3400, 6.847),
    (3500, 6.887),
    (3600, 6.977),
    (3700, 7.068),
    (3800, 7.164),
    (3900, 7.328),
    (4000, 7.419),
    (4100, 7.507),
    (4200, 7.649),
    (4300, 7.691),
    (4400, 7.831),
    (4500, 7.959),
    (4600, 8.087),
    (4700, 8.135),
    (4800, 8.223),
    (4900, 8.311),
    (5000, 8.492),
    (5100, 8.626),
    (5200, 8.659),
    (5300, 8.805),
    (5400, 8.987),
    (5500, 8.962),
    (5600, 9.106),
    (5700, 9.201),
    (5800, 9.296),
    (5900, 9.524),
    (6000, 9.698),
    (6100, 9.702),
    (6200, 9.830),
    (6300, 9.878),
    (6400, 10.009),
    (6500, 10.147),
    (6600, 10.230),
    (6700, 10.363),
    (6800, 10.540),
    (6894, 10.627),
];

/// Cheetah 9LP zones: first and last cylinder, sectors per track, track and cylinder skew,
/// spare sectors (the AccuSim oracle README's table of DiskSim's model).
const CHEETAH9LP_ZONES: [(u32, u32, u32, u32, u32, u64); 11] = [
    (0, 846, 254, 97, 133, 1270),
    (848, 1643, 245, 97, 133, 980),
    (1645, 2392, 238, 97, 117, 952),
    (2394, 3096, 227, 97, 116, 908),
    (3098, 3757, 217, 97, 108, 651),
    (3759, 4379, 209, 97, 108, 627),
    (4381, 4964, 201, 97, 108, 402),
    (4966, 5515, 189, 88, 94, 2268),
    (5516, 6031, 181, 88, 93, 1991),
    (6032, 6517, 174, 88, 93, 1914),
    (6518, 6961, 167, 88, 80, 218),
];

impl HddParams {
    /// Seagate Cheetah 9LP ST39102LW, the prefetching study's disk, as DiskSim 3.0's validated
    /// model describes it (reference notes §6.2 and the AccuSim oracle README). Overheads DiskSim
    /// lists that the notes do not give are taken equal to their counterpart: read hit after
    /// write = read hit after read, write hit after read = write hit after write, write miss
    /// after read = write miss after write.
    pub fn cheetah9lp() -> HddParams {
        HddParams {
            rpm: 10045.0,
            surfaces: 12,
            cylinders: 6962,
            capacity_sectors: 17_783_240,
            head_switch_ms: 0.030,
            write_settle_ms: 0.461,
            completion_ms: 0.0,
            bus_ms_per_sector: 0.105,
            zones: CHEETAH9LP_ZONES
                .iter()
                .map(|&(f, l, spt, ts, cs, sp)| Zone {
                    first_cylinder: f,
                    last_cylinder: l,
                    sectors_per_track: spt,
                    track_skew: ts,
                    cylinder_skew: cs,
                    spare_sectors: sp,
                })
                .collect(),
            seek: SeekSpec::Table {
                points: CHEETAH9LP_SEEK.to_vec(),
            },
            overheads: Overheads {
                read_hit_after_read_ms: 0.066,
                read_hit_after_write_ms: 0.066,
                read_miss_after_read_ms: 0.284,
                read_miss_after_write_ms: 0.087,
                write_hit_after_read_ms: 0.500,
                write_hit_after_write_ms: 0.500,
                write_miss_after_read_ms: 0.896,
                write_miss_after_write_ms: 0.896,
            },
            cache: Some(DriveCache {
                segments: 3,
                segment_sectors: 561,
                read_ahead_sectors: 561,
                write_back: true,
                read_ahead_to_track_end: true,
            }),
        }
    }

    /// A 7,200 rpm 3.5" nearline disk of about 6 TB. The geometry is synthetic (real drives do not
    /// publish theirs): 8 surfaces, 500,000 cylinders in 10 zones from 4,000 down to 2,000
    /// sectors per track, i.e. 245 MB/s outer and 123 MB/s inner media rate, the range
    /// datasheets of current 7,200 rpm drives quote for sustained transfer. Seek `0.55 +
    /// 0.04·sqrt(d)` ms below 10,000 cylinders and `4.296 + 0.0000254·d` beyond: about 0.6 ms
    /// track-to-track, 17 ms full stroke and 8.5 ms mean, the datasheet class of such drives.
    /// Head switch 1 ms with track skew sized to cover it; 0.1 ms command overheads; SATA
    /// 6 Gb/s bus (600 MB/s); a 256 MB buffer as 16 segments of 16 MB with 1 MB read-ahead;
    /// write-back on.
    pub fn hdd7200() -> HddParams {
        let zones = (0..10u32)
            .map(|i| {
                let spt = 4000 - i * 2000 / 9;
                // Skew covering the 1 ms switch: sectors passing in 1 ms, plus a margin.
                let per_ms = f64::from(spt) / (60_000.0 / 7200.0);
                let skew = (per_ms * 1.1).ceil() as u32;
                Zone {
                    first_cylinder: i * 50_000,
                    last_cylinder: i * 50_000 + 49_999,
                    sectors_per_track: spt,
                    track_skew: skew,
                    cylinder_skew: skew,
                    spare_sectors: 0,
                }
            })
            .collect();
        HddParams {
            rpm: 7200.0,
            surfaces: 8,
            cylinders: 500_000,
            capacity_sectors: 0,
            head_switch_ms: 1.0,
            write_settle_ms: 0.3,
            completion_ms: 0.0,
            bus_ms_per_sector: 512.0 / 600e6 * 1e3,
            zones,
            seek: SeekSpec::Formula {
                a_ms: 0.55,
                b_ms: 0.04,
                c_ms: 4.296,
                e_ms: 0.0000254,
                boundary: 10_000,
            },
            overheads: Overheads {
                read_hit_after_read_ms: 0.1,
                read_hit_after_write_ms: 0.1,
                read_miss_after_read_ms: 0.1,
                read_miss_after_write_ms: 0.1,
                write_hit_after_read_ms: 0.1,
                write_hit_after_write_ms: 0.1,
                write_miss_after_read_ms: 0.1,
                write_miss_after_write_ms: 0.1,
            },
            cache: Some(DriveCache {
                segments: 16,
                segment_sectors: 32_768,
                read_ahead_sectors: 2048,
                write_back: true,
                read_ahead_to_track_end: false,
            }),
        }
    }

    /// Checks every parameter; errors name the key (`zones[3].sectors_per_track`, …).
    pub fn validate(&self) -> Result<()> {
        check(
            self.rpm.is_finite() && self.rpm > 0.0,
            "rpm",
            self.rpm,
            "revolutions per minute above 0",
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
            check(
                v.is_finite() && v >= 0.0,
                key,
                v,
                "a time in milliseconds, 0 or more",
            )?;
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
            mapped += sectors - z.spare_sectors;
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

/// A zone with its derived mapping values.
#[derive(Clone, Debug)]
struct ZoneGeo {
    first_cyl: u64,
    spt: u64,
    track_skew: u64,
    cyl_skew: u64,
    first_lba: u64,
    lbas: u64,
    /// Time for one sector to pass under the head, ns.
    sector_ns: f64,
}

/// Where the heads are: cylinder and surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    /// Cylinder.
    pub cyl: u64,
    /// Surface.
    pub surf: u64,
}

/// Physical location of a logical sector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    /// Zone index.
    pub zone: usize,
    /// Cylinder.
    pub cyl: u64,
    /// Surface.
    pub surf: u64,
    /// Logical sector within the track (0..spt).
    pub sector: u64,
    /// Angular slot of the sector (0..spt), after skew.
    pub slot: u64,
}

/// A read-ahead in progress: reading sectors from `lba` towards `limit`, the heads positioned
/// from `head` starting at `t0`.
#[derive(Clone, Copy, Debug)]
struct Run {
    head: Head,
    t0: f64,
    lba: u64,
    limit: u64,
}

/// One drive-cache segment: sectors `[first, valid_end)` are in the buffer, and `run` (if the
/// segment owns the mechanism) is bringing in more.
#[derive(Clone, Debug)]
struct Segment {
    first: u64,
    valid_end: u64,
    run: Option<Run>,
    stamp: u64,
}

impl Segment {
    /// End of what the segment holds or will hold once its read-ahead is done.
    fn coverage_end(&self) -> u64 {
        self.run.map_or(self.valid_end, |r| r.limit)
    }
}

/// How the last request's time was spent (for diagnostics and the `disk` command).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Breakdown {
    /// Served from the drive cache.
    pub hit: bool,
    /// Command overhead, ns.
    pub overhead_ns: f64,
    /// Seek (or head switch) before the first sector, ns.
    pub seek_ns: f64,
    /// Rotational wait before the first sector, ns.
    pub rotation_ns: f64,
    /// Everything else: media transfer, track switches, bus, completion, ns.
    pub transfer_ns: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Read,
    Write,
}

/// The zoned disk model.
pub struct HddModel {
    name: String,
    params: HddParams,
    zones: Vec<ZoneGeo>,
    capacity: u64,
    rev_ns: f64,
    surfaces: u64,
    head: Head,
    last_op: Op,
    segments: Vec<Segment>,
    clock: u64,
    last: Breakdown,
}

impl HddModel {
    /// A model with these parameters (validated here).
    pub fn new(name: &str, params: HddParams) -> Result<HddModel> {
        params.validate()?;
        let rev_ns = 60e9 / params.rpm;
        let surfaces = u64::from(params.surfaces);
        let mut lba = 0;
        let zones: Vec<ZoneGeo> = params
            .zones
            .iter()
            .map(|z| {
                let cyls = u64::from(z.last_cylinder - z.first_cylinder + 1);
                let spt = u64::from(z.sectors_per_track);
                let lbas = cyls * surfaces * spt - z.spare_sectors;
                let g = ZoneGeo {
                    first_cyl: u64::from(z.first_cylinder),
                    spt,
                    track_skew: u64::from(z.track_skew),
                    cyl_skew: u64::from(z.cylinder_skew),
                    first_lba: lba,
                    lbas,
                    sector_ns: rev_ns / spt as f64,
                };
                lba += lbas;
                g
            })
            .collect();
        let capacity = if params.capacity_sectors == 0 {
            lba
        } else {
            params.capacity_sectors
        };
        if capacity == 0 {
            return Err(Error::config("capacity_sectors", 0, "a disk with sectors"));
        }
        Ok(HddModel {
            name: name.to_string(),
            params,
            zones,
            capacity,
            rev_ns,
            surfaces,
            head: Head { cyl: 0, surf: 0 },
            last_op: Op::Read,
            segments: Vec::new(),
            clock: 0,
            last: Breakdown::default(),
        })
    }

    /// The parameters.
    pub fn params(&self) -> &HddParams {
        &self.params
    }

    /// Logical capacity in sectors.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// One revolution, ns.
    pub fn revolution_ns(&self) -> f64 {
        self.rev_ns
    }

    /// How the last request's time was spent.
    pub fn last_breakdown(&self) -> Breakdown {
        self.last
    }

    /// Where logical sector `lba` lies (addresses past the capacity wrap around).
    pub fn locate(&self, lba: u64) -> Location {
        let lba = lba % self.capacity;
        let zone = self.zones.partition_point(|z| z.first_lba <= lba) - 1;
        let z = &self.zones[zone];
        let off = lba - z.first_lba;
        debug_assert!(off < z.lbas);
        let track = off / z.spt;
        let sector = off % z.spt;
        let cyl_in_zone = track / self.surfaces;
        let surf = track % self.surfaces;
        let skew =
            cyl_in_zone * (z.cyl_skew + (self.surfaces - 1) * z.track_skew) + surf * z.track_skew;
        Location {
            zone,
            cyl: z.first_cyl + cyl_in_zone,
            surf,
            sector,
            slot: (sector + skew) % z.spt,
        }
    }

    /// Sustained media rate of zone `zone` in bytes per second when reading track after track:
    /// each track costs a revolution plus the time its skew leaves between the last sector of a
    /// track and the first of the next.
    pub fn sustained_rate(&self, zone: usize) -> f64 {
        let z = &self.zones[zone];
        let per_cyl_slots = self.surfaces * z.spt + (self.surfaces - 1) * z.track_skew + z.cyl_skew;
        let bytes = (self.surfaces * z.spt * 512) as f64;
        bytes / (per_cyl_slots as f64 * z.sector_ns * 1e-9)
    }

    /// Time to move the heads from `from` to the track of `to`, ns.
    fn position_ns(&self, from: Head, to: &Location, write: bool) -> f64 {
        if from.cyl != to.cyl {
            let ms = self.params.seek.time_ms(from.cyl.abs_diff(to.cyl))
                + if write {
                    self.params.write_settle_ms
                } else {
                    0.0
                };
            ms_to_ns(ms)
        } else if from.surf != to.surf {
            ms_to_ns(self.params.head_switch_ms)
        } else {
            0.0
        }
    }

    /// Walks a media transfer of `[lba, lba + n)` from `head` at time `t`. For each track piece
    /// calls `f(start, k, sector_ns, head)` (the piece's first sector starts under the head at
    /// `start`; `f` returns false to stop). Returns the end time, the heads' final position and
    /// the first positioning and rotational wait.
    fn walk(
        &self,
        mut head: Head,
        mut t: f64,
        lba: u64,
        n: u64,
        write: bool,
        mut f: impl FnMut(f64, u64, f64, Head) -> bool,
    ) -> (f64, Head, f64, f64) {
        let mut done = 0;
        let mut first = None;
        while done < n {
            let loc = self.locate(lba + done);
            let z = &self.zones[loc.zone];
            let pos = self.position_ns(head, &loc, write);
            t += pos;
            let mut wait = (loc.slot as f64 * z.sector_ns - t).rem_euclid(self.rev_ns);
            // A sector that starts exactly now (up to rounding) needs no wait, not a revolution.
            if wait > self.rev_ns - 1e-3 {
                wait = 0.0;
            }
            t += wait;
            first.get_or_insert((pos, wait));
            head = Head {
                cyl: loc.cyl,
                surf: loc.surf,
            };
            let k = (z.spt - loc.sector).min(n - done);
            let go_on = f(t, k, z.sector_ns, head);
            t += k as f64 * z.sector_ns;
            done += k;
            if !go_on {
                break;
            }
        }
        let (pos, wait) = first.unwrap_or((0.0, 0.0));
        (t, head, pos, wait)
    }

    /// Bus pipeline: sectors arrive in pieces `(start, k, sector_ns)`; each leaves over the bus
    /// once it is in the buffer and the previous one has left. Returns when the last has left.
    fn bus_out(&self, out: f64, start: f64, k: u64, sector_ns: f64) -> f64 {
        let b = ms_to_ns(self.params.bus_ms_per_sector);
        let kb = k as f64 * b;
        let first_in = start + sector_ns;
        let last_in = start + k as f64 * sector_ns;
        (out + kb).max(first_in + kb).max(last_in + b)
    }

    /// Sectors a run has read by time `t`, and where the heads are then.
    fn progress(&self, run: &Run, t: f64) -> (u64, Head) {
        let mut done = 0;
        let mut head = run.head;
        self.walk(
            run.head,
            run.t0,
            run.lba,
            run.limit - run.lba,
            false,
            |start, k, d, h| {
                if t <= start {
                    return false;
                }
                head = h;
                let got = (((t - start) / d).floor() as u64).min(k);
                done += got;
                got == k
            },
        );
        (done, head)
    }

    /// Stops the running read-ahead (if any) at time `t`: what it read stays valid, and the
    /// heads are where it left them.
    fn stop_read_ahead(&mut self, t: f64) {
        for i in 0..self.segments.len() {
            if let Some(run) = self.segments[i].run {
                let (done, head) = self.progress(&run, t);
                let s = &mut self.segments[i];
                s.valid_end = run.lba + done;
                s.run = None;
                self.head = head;
            }
        }
    }

    fn overhead_ms(&self, write: bool, hit: bool) -> f64 {
        let o = &self.params.overheads;
        match (write, hit, self.last_op) {
            (false, true, Op::Read) => o.read_hit_after_read_ms,
            (false, true, Op::Write) => o.read_hit_after_write_ms,
            (false, false, Op::Read) => o.read_miss_after_read_ms,
            (false, false, Op::Write) => o.read_miss_after_write_ms,
            (true, true, Op::Read) => o.write_hit_after_read_ms,
            (true, true, Op::Write) => o.write_hit_after_write_ms,
            (true, false, Op::Read) => o.write_miss_after_read_ms,
            (true, false, Op::Write) => o.write_miss_after_write_ms,
        }
    }

    fn read(&mut self, lba: u64, n: u64, start: f64) -> f64 {
        self.clock += 1;
        let end = lba + n;
        let hit = self
            .segments
            .iter()
            .position(|s| s.first <= lba && end <= s.coverage_end());
        if let Some(i) = hit {
            return self.read_hit(i, lba, n, start);
        }
        let partial = self
            .segments
            .iter()
            .position(|s| s.first <= lba && lba < s.coverage_end());
        match partial {
            Some(i) => self.read_partial(i, lba, n, start),
            None => self.read_miss(lba, n, start),
        }
    }

    /// Where a read-ahead after a media read of `[lba, end)` stops.
    fn read_ahead_limit(&self, cache: &DriveCache, lba: u64, end: u64) -> u64 {
        let room = u64::from(cache.segment_sectors).saturating_sub(end - lba);
        let mut limit = (end + u64::from(cache.read_ahead_sectors).min(room)).min(self.capacity);
        if cache.read_ahead_to_track_end {
            let last = self.locate(end - 1);
            let spt = self.zones[last.zone].spt;
            limit = limit.min(end + (spt - 1 - last.sector));
        }
        limit
    }

    /// Bus pipeline for the part `[lba, end)` of segment `seg` (all of it held or coming):
    /// returns when the last sector left the bus, sending from `ready` on, and when the
    /// segment's read-ahead reached `end`.
    fn buffered_out(&self, seg: &Segment, lba: u64, end: u64, ready: f64) -> (f64, f64) {
        let b = ms_to_ns(self.params.bus_ms_per_sector);
        // Sectors already in the buffer leave at bus speed.
        let valid = seg.valid_end.clamp(lba, end) - lba;
        let mut out = ready + valid as f64 * b;
        let mut reached = ready;
        if let Some(run) = seg.run {
            if end > run.lba {
                let from = lba.max(run.lba);
                let mut at = run.lba;
                let (t_end, _, _, _) = self.walk(
                    run.head,
                    run.t0,
                    run.lba,
                    end - run.lba,
                    false,
                    |s, k, d, _| {
                        let lo = at.max(from);
                        let hi = (at + k).min(end);
                        if hi > lo {
                            let s2 = s + (lo - at) as f64 * d;
                            out = self.bus_out(out, s2, hi - lo, d);
                        }
                        at += k;
                        true
                    },
                );
                reached = reached.max(t_end);
            }
        }
        (out, reached)
    }

    /// A read whose first sectors are in segment `i` and the rest not: the held part goes out
    /// over the bus while the mechanism reads the rest, which continues the segment.
    fn read_partial(&mut self, i: usize, lba: u64, n: u64, start: f64) -> f64 {
        let ovh = ms_to_ns(self.overhead_ms(false, true));
        let ready = start + ovh;
        let end = lba + n;
        let seg = self.segments[i].clone();
        let held_end = seg.coverage_end();
        let (mut out, reached) = self.buffered_out(&seg, lba, held_end, ready);
        let t = ready.max(reached);
        self.stop_read_ahead(t);
        let (media_end, head, seek, rot) = self.walk(
            self.head,
            t,
            held_end,
            end - held_end,
            false,
            |s, k, d, _| {
                out = self.bus_out(out, s, k, d);
                true
            },
        );
        self.head = head;
        let cache = self
            .params
            .cache
            .clone()
            .expect("partial hits need a cache");
        let limit = self.read_ahead_limit(&cache, lba, end);
        let seg = &mut self.segments[i];
        seg.valid_end = end;
        seg.run = (limit > end).then_some(Run {
            head,
            t0: media_end,
            lba: end,
            limit,
        });
        seg.first = seg.first.max(
            limit
                .saturating_sub(u64::from(cache.segment_sectors))
                .min(lba),
        );
        seg.stamp = self.clock;
        self.last_op = Op::Read;
        let total = out + ms_to_ns(self.params.completion_ms) - start;
        self.last = Breakdown {
            hit: false,
            overhead_ns: ovh,
            seek_ns: seek,
            rotation_ns: rot,
            transfer_ns: total - ovh - seek - rot,
        };
        total
    }

    fn read_hit(&mut self, i: usize, lba: u64, n: u64, start: f64) -> f64 {
        let ovh = ms_to_ns(self.overhead_ms(false, true));
        let ready = start + ovh;
        let end = lba + n;
        let seg = self.segments[i].clone();
        let (out, _) = self.buffered_out(&seg, lba, end, ready);
        let cache = self.params.cache.clone().expect("hits need a cache");
        // The buffer works as a ring: consumed sectors make room for more read-ahead.
        let ahead = u64::from(cache.read_ahead_sectors.min(cache.segment_sectors));
        let mut want = (end + ahead).min(self.capacity);
        if cache.read_ahead_to_track_end {
            // The read-ahead never goes past its track: nothing to extend.
            want = 0;
        }
        let progress = seg.run.map(|run| self.progress(&run, start));
        let seg = &mut self.segments[i];
        if let (Some(mut run), Some((done, head))) = (seg.run, progress) {
            if run.lba + done >= run.limit {
                // The read-ahead had stopped for lack of room; it resumes from where it was.
                seg.valid_end = run.limit;
                run = Run {
                    head,
                    t0: start,
                    lba: run.limit,
                    limit: run.limit,
                };
            }
            run.limit = run.limit.max(want);
            seg.run = (run.limit > run.lba).then_some(run);
            let keep_from = seg
                .coverage_end()
                .saturating_sub(u64::from(cache.segment_sectors));
            seg.first = seg.first.max(keep_from.min(lba));
        }
        seg.stamp = self.clock;
        self.last_op = Op::Read;
        let total = out + ms_to_ns(self.params.completion_ms) - start;
        self.last = Breakdown {
            hit: true,
            overhead_ns: ovh,
            seek_ns: 0.0,
            rotation_ns: 0.0,
            transfer_ns: total - ovh,
        };
        total
    }

    fn read_miss(&mut self, lba: u64, n: u64, start: f64) -> f64 {
        let ovh = ms_to_ns(self.overhead_ms(false, false));
        let t = start + ovh;
        self.stop_read_ahead(t);
        let mut out = t;
        let (media_end, head, seek, rot) = self.walk(self.head, t, lba, n, false, |s, k, d, _| {
            out = self.bus_out(out, s, k, d);
            true
        });
        self.head = head;
        if let Some(cache) = self.params.cache.clone() {
            let end = lba + n;
            let limit = self.read_ahead_limit(&cache, lba, end);
            let seg = Segment {
                first: lba,
                valid_end: end,
                run: (limit > end).then_some(Run {
                    head,
                    t0: media_end,
                    lba: end,
                    limit,
                }),
                stamp: self.clock,
            };
            // Reuse a segment holding any of these sectors, else an empty one, else the LRU one.
            let overlapping = self
                .segments
                .iter()
                .position(|s| s.first < end && lba < s.coverage_end());
            if let Some(i) = overlapping {
                self.segments[i] = seg;
            } else if self.segments.len() < cache.segments as usize {
                self.segments.push(seg);
            } else {
                let lru = (0..self.segments.len())
                    .min_by_key(|&i| self.segments[i].stamp)
                    .expect("at least one segment");
                self.segments[lru] = seg;
            }
        }
        self.last_op = Op::Read;
        let total = out + ms_to_ns(self.params.completion_ms) - start;
        self.last = Breakdown {
            hit: false,
            overhead_ns: ovh,
            seek_ns: seek,
            rotation_ns: rot,
            transfer_ns: total - ovh - seek - rot,
        };
        total
    }

    fn write(&mut self, lba: u64, n: u64, start: f64) -> f64 {
        self.clock += 1;
        let end = lba + n;
        let write_back = self.params.cache.as_ref().is_some_and(|c| c.write_back);
        let ovh = ms_to_ns(self.overhead_ms(true, write_back));
        let t = start + ovh;
        self.stop_read_ahead(t);
        self.segments
            .retain(|s| !(s.first < end && lba < s.coverage_end()));
        let b = ms_to_ns(self.params.bus_ms_per_sector);
        let bus_done = t + n as f64 * b;
        let (done, seek, rot) = if write_back {
            let cache = self.params.cache.clone().expect("write-back needs a cache");
            let seg = Segment {
                first: lba,
                valid_end: end,
                run: None,
                stamp: self.clock,
            };
            if self.segments.len() < cache.segments as usize {
                self.segments.push(seg);
            } else {
                let lru = (0..self.segments.len())
                    .min_by_key(|&i| self.segments[i].stamp)
                    .expect("at least one segment");
                self.segments[lru] = seg;
            }
            (bus_done, 0.0, 0.0)
        } else {
            let (media_end, head, seek, rot) =
                self.walk(self.head, t, lba, n, true, |_, _, _, _| true);
            self.head = head;
            (media_end.max(bus_done), seek, rot)
        };
        self.last_op = Op::Write;
        let total = done + ms_to_ns(self.params.completion_ms) - start;
        self.last = Breakdown {
            hit: write_back,
            overhead_ns: ovh,
            seek_ns: seek,
            rotation_ns: rot,
            transfer_ns: total - ovh - seek - rot,
        };
        total
    }
}

impl DiskModel for HddModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn service_ns(&mut self, req: &DiskAccess, start_ns: u64) -> u64 {
        let n = u64::from(req.sectors.max(1));
        let lba = req.lba % self.capacity;
        // A request running past the end wraps to the start; serve it as one at the start.
        let lba = if lba + n > self.capacity { 0 } else { lba };
        let t = start_ns as f64;
        let ns = if req.write {
            self.write(lba, n, t)
        } else {
            self.read(lba, n, t)
        };
        ns.round().max(1.0) as u64
    }

    fn reset(&mut self) {
        self.head = Head { cyl: 0, surf: 0 };
        self.last_op = Op::Read;
        self.segments.clear();
        self.clock = 0;
        self.last = Breakdown::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cheetah() -> HddModel {
        HddModel::new("cheetah9lp", HddParams::cheetah9lp()).unwrap()
    }

    fn read(lba: u64, sectors: u32) -> DiskAccess {
        DiskAccess {
            lba,
            sectors,
            write: false,
        }
    }

    /// Issues `(lba, sectors)` one after another, each `gap_ns` after the previous completed
    /// (the first at time 0); returns the sum of service times in ms.
    fn replay(m: &mut HddModel, reqs: &[(u64, u32)], gap_ns: u64) -> f64 {
        let mut t = 0;
        let mut sum = 0;
        for &(lba, n) in reqs {
            let s = m.service_ns(&read(lba, n), t);
            if std::env::var("DISK_TRACE").is_ok() {
                eprintln!(
                    "  t={t} lba={lba} n={n} s={s} {:?} {:?}",
                    m.last_breakdown(),
                    m.locate(lba)
                );
            }
            sum += s;
            t += s + gap_ns;
        }
        sum as f64 / 1e6
    }

    /// Tiny deterministic generator for the statistical tests.
    fn lcg(state: &mut u64) -> u64 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *state >> 33
    }

    #[test]
    fn seek_table_interpolates_linearly_and_clamps() {
        let s = HddParams::cheetah9lp().seek;
        assert_eq!(s.time_ms(0), 0.0);
        assert_eq!(s.time_ms(1), 0.831);
        assert_eq!(s.time_ms(10), 1.448);
        // Halfway between (10, 1.448) and (12, 1.449).
        assert!((s.time_ms(11) - 1.4485).abs() < 1e-12);
        // A quarter of the way from (500, 3.230) to (600, 3.399).
        assert!((s.time_ms(525) - (3.230 + 0.25 * 0.169)).abs() < 1e-12);
        // Beyond the last point (6894 cylinders): the full-stroke time.
        assert_eq!(s.time_ms(6961), 10.627);
        let table = SeekSpec::Table {
            points: vec![(4, 2.0), (8, 4.0)],
        };
        assert_eq!(table.time_ms(1), 2.0);
        assert_eq!(table.time_ms(6), 3.0);
        assert_eq!(table.time_ms(100), 4.0);
    }

    #[test]
    fn seek_formula_branches() {
        let f = SeekSpec::Formula {
            a_ms: 3.24,
            b_ms: 0.4,
            c_ms: 8.0,
            e_ms: 0.008,
            boundary: 383,
        };
        assert!((f.time_ms(100) - 7.24).abs() < 1e-12);
        assert!((f.time_ms(1000) - 16.0).abs() < 1e-12);
        assert_eq!(f.time_ms(0), 0.0);
    }

    #[test]
    fn cheetah_mean_seek_matches_the_published_value() {
        // Reference notes §6.2: 5.47 ms averaged over uniformly random cylinder pairs.
        let m = HddParams::cheetah9lp().seek.mean_random_ms(6962);
        assert!((m - 5.47).abs() < 0.02, "{m}");
    }

    #[test]
    fn lba_mapping_follows_zones_tracks_and_skew() {
        let m = cheetah();
        assert_eq!(m.capacity(), 17_783_240);
        let l = m.locate(0);
        assert_eq!((l.zone, l.cyl, l.surf, l.sector, l.slot), (0, 0, 0, 0, 0));
        // Second track of cylinder 0: one head switch of skew.
        let l = m.locate(254);
        assert_eq!((l.cyl, l.surf, l.sector, l.slot), (0, 1, 0, 97));
        // First track of cylinder 1: 11 head switches and one cylinder step.
        let l = m.locate(254 * 12);
        assert_eq!((l.cyl, l.surf, l.slot), (1, 0, (11 * 97 + 133) % 254));
        // Zone 0 maps 847 cylinders x 12 x 254 - 1,270 spares.
        let z0 = 847 * 12 * 254 - 1270;
        let l = m.locate(z0 - 1);
        // 1,270 spares are exactly the last 5 tracks, so the last block ends surface 6.
        assert_eq!((l.zone, l.cyl, l.surf, l.sector), (0, 846, 6, 253));
        // The next sector starts zone 1 at its first cylinder (847 holds no blocks).
        let l = m.locate(z0);
        assert_eq!((l.zone, l.cyl, l.surf, l.sector, l.slot), (1, 848, 0, 0, 0));
        // The last logical sector lies in the innermost zone, before its spares.
        let l = m.locate(17_783_239);
        assert_eq!(l.zone, 10);
        assert!(l.cyl <= 6961);
        // Every zone boundary: consecutive sectors, one in each zone.
        let mut lba = 0;
        for (i, z) in HddParams::cheetah9lp().zones.iter().enumerate().take(10) {
            let cyls = u64::from(z.last_cylinder - z.first_cylinder + 1);
            lba += cyls * 12 * u64::from(z.sectors_per_track) - z.spare_sectors;
            assert_eq!(m.locate(lba - 1).zone, i);
            let next = m.locate(lba);
            assert_eq!(next.zone, i + 1);
            assert_eq!(
                next.cyl,
                u64::from(HddParams::cheetah9lp().zones[i + 1].first_cylinder)
            );
        }
    }

    #[test]
    fn rotation_is_a_function_of_absolute_time() {
        // Without a cache, reading the same sector twice costs a full revolution less the time
        // already spent, whatever the start: the second read lines up with the platter.
        let mut p = HddParams::cheetah9lp();
        p.cache = None;
        p.bus_ms_per_sector = 0.0;
        p.overheads.read_miss_after_read_ms = 0.0;
        let mut m = HddModel::new("c", p).unwrap();
        let rev = m.revolution_ns();
        let s1 = m.service_ns(&read(0, 1), 0) as f64;
        // Sector 0 of cylinder 0 is under the head at time 0: one sector time.
        assert!((s1 - rev / 254.0).abs() < 1.0, "{s1}");
        let s2 = m.service_ns(&read(0, 1), s1 as u64) as f64;
        assert!((s2 - rev).abs() < 2.0, "{s2} vs {rev}");
    }

    #[test]
    fn random_4k_reads_match_the_published_parameters() {
        // Expected from the published parameters (reference notes §6.2): read-miss overhead
        // 0.284 ms + mean seek 5.47 ms + half a revolution 2.987 ms + the first sector off the
        // platter (5.973 ms / ~215 sectors per track = 0.028 ms) + 8 sectors over the bus at
        // 0.105 ms (0.840 ms; the bus is slower than the platter, so it sets the transfer time)
        // = 9.609 ms. Uniform addresses weight the outer zones (more sectors per cylinder), so
        // the seek part is a little below 5.47 ms; the 5% band covers that.
        let expected = 0.284 + 5.47 + 2.987 + 0.028 + 0.840;
        let mut m = cheetah();
        let mut rng = 7;
        let n = 20_000;
        let (mut sum, mut seek, mut rot) = (0.0, 0.0, 0.0);
        let mut t = 0;
        for _ in 0..n {
            let lba = (lcg(&mut rng) % (m.capacity() / 8)) * 8;
            let s = m.service_ns(&read(lba, 8), t);
            let b = m.last_breakdown();
            sum += s as f64;
            seek += b.seek_ns;
            rot += b.rotation_ns;
            t += s;
        }
        let mean = sum / n as f64 / 1e6;
        let (seek, rot) = (seek / n as f64 / 1e6, rot / n as f64 / 1e6);
        eprintln!("random 4 KB: mean {mean:.3} ms (seek {seek:.3}, rotation {rot:.3}), expected {expected:.3}");
        assert!((mean / expected - 1.0).abs() < 0.05, "{mean} vs {expected}");
        assert!((rot - 2.987).abs() < 0.1, "rotation {rot}");
    }

    fn sequential_mb_s(m: &mut HddModel, start: u64, sectors: u32, count: u64) -> f64 {
        let mut t = 0;
        for i in 0..count {
            t += m.service_ns(&read(start + i * u64::from(sectors), sectors), t);
        }
        (count * u64::from(sectors) * 512) as f64 / (t as f64 * 1e-9) / 1e6
    }

    #[test]
    fn sequential_64k_reads_approach_the_media_rate() {
        // Zone 0 of the Cheetah: 254 sectors per revolution is 21.8 MB/s raw; reading track after
        // track, each head switch costs the 97-sector skew and each cylinder step the 133-sector
        // skew, which leaves a sustained rate of 12 x 254 sectors per (12 x 254 + 11 x 97 + 133)
        // sector times = 15.6 MB/s. With an infinitely fast bus, back-to-back 64 KB reads served
        // by the drive's read-ahead must reach at least 90% of that and never exceed it.
        let mut p = HddParams::cheetah9lp();
        p.bus_ms_per_sector = 0.0;
        let mut m = HddModel::new("c", p).unwrap();
        let bound = m.sustained_rate(0) / 1e6;
        assert!((bound - 15.62).abs() < 0.01, "{bound}");
        let rate = sequential_mb_s(&mut m, 0, 128, 2000);
        eprintln!("sequential 64 KB, fast bus: {rate:.2} MB/s (bound {bound:.2})");
        assert!(
            rate > 0.9 * bound && rate <= bound * 1.001,
            "{rate} vs {bound}"
        );
        // As shipped, DiskSim's Cheetah spec moves 0.105 ms per sector over the bus (4.88 MB/s),
        // so the bus, not the platter, bounds sequential reads; they reach 95% of it.
        let mut m = cheetah();
        let bus = 512.0 / 0.105e-3 / 1e6;
        let rate = sequential_mb_s(&mut m, 0, 128, 500);
        eprintln!("sequential 64 KB, shipped bus: {rate:.2} MB/s (bus {bus:.2})");
        assert!(rate > 0.95 * bus && rate <= bus, "{rate} vs {bus}");
    }

    #[test]
    fn sequential_small_reads_hit_the_drive_buffer() {
        // With read-ahead that runs on as the buffer drains (not stopping at the track end),
        // every read after the first is a hit.
        let mut p = HddParams::cheetah9lp();
        p.cache.as_mut().unwrap().read_ahead_to_track_end = false;
        let mut m = HddModel::new("c", p).unwrap();
        let mut t = 0;
        let first = m.service_ns(&read(5000, 8), t);
        assert!(!m.last_breakdown().hit);
        t += first + 2_000_000;
        for i in 1..100u64 {
            let s = m.service_ns(&read(5000 + 8 * i, 8), t);
            assert!(m.last_breakdown().hit, "read {i}");
            // Hit: 0.066 ms overhead + 8 x 0.105 ms bus.
            assert!((s as f64 / 1e6 - 0.906).abs() < 0.001, "read {i}: {s}");
            t += s + 2_000_000;
        }
        // Without a drive cache, each such read waits most of a revolution.
        let mut p = HddParams::cheetah9lp();
        p.cache = None;
        let mut m = HddModel::new("c", p).unwrap();
        let slow = replay(
            &mut m,
            &(0..100).map(|i| (5000 + 8 * i, 8)).collect::<Vec<_>>(),
            2_000_000,
        );
        assert!(slow > 300.0, "{slow}");
    }

    #[test]
    fn reset_restores_the_power_on_state() {
        let mut m = cheetah();
        let reqs: Vec<(u64, u32)> = (0..50).map(|i| (i * 7919 * 8, 8)).collect();
        let a = replay(&mut m, &reqs, 100_000);
        m.reset();
        let b = replay(&mut m, &reqs, 100_000);
        assert_eq!(a, b);
    }

    #[test]
    fn writes_invalidate_and_write_back_completes_at_bus_speed() {
        let mut m = cheetah();
        let s = m.service_ns(&read(10_000, 8), 0);
        let t = s + 1_000_000;
        let w = m.service_ns(
            &DiskAccess {
                lba: 10_008,
                sectors: 8,
                write: true,
            },
            t,
        );
        // Write hit after read 0.5 ms + 8 x 0.105 ms.
        assert!((w as f64 / 1e6 - 1.34).abs() < 0.001, "{w}");
        // The read-ahead segment that held 10,008 is gone; the written data is in the buffer.
        let r = m.service_ns(&read(10_008, 8), t + w);
        assert!(m.last_breakdown().hit);
        assert!((r as f64 / 1e6 - 0.906).abs() < 0.001, "{r}");
        let r = m.service_ns(&read(10_016, 8), t + w + r);
        assert!(!m.last_breakdown().hit, "{r}");
        // Write-through: a positioned media write with the settle time.
        let mut p = HddParams::cheetah9lp();
        p.cache.as_mut().unwrap().write_back = false;
        let mut m = HddModel::new("c", p).unwrap();
        let w = m.service_ns(
            &DiskAccess {
                lba: 3_000_000,
                sectors: 8,
                write: true,
            },
            0,
        );
        let b = m.last_breakdown();
        assert!(!b.hit && b.seek_ns > 0.461e6, "{b:?}");
        assert!(w as f64 > b.seek_ns + 0.896e6);
    }

    /// Name, requests `(lba, sectors)`, gap between completion and next issue (ns), the sum of
    /// service times AccuSim's DiskSim reported (ms).
    type Replay = (&'static str, Vec<(u64, u32)>, u64, f64);

    /// AccuSim's micro traces without prefetching issue one synchronous request at a time; the
    /// next is issued `compute + 1 µs` after the previous completes. Their `io_time_s` minus
    /// 1 µs per read record after the first is the sum of DiskSim's service times.
    #[test]
    fn accusim_micro_replays() {
        let sector = |inode: u64, block: u64| (inode * 2048 + block * 8) % 17_783_240;
        let cases: [Replay; 3] = [
            (
                "micro-seq1",
                (0..120).map(|b| (sector(77, b), 8)).collect(),
                2_001_000,
                120.840 - 0.119,
            ),
            (
                "micro-tiny",
                vec![
                    (sector(11, 1), 8),
                    (sector(11, 2), 16),
                    (sector(11, 4), 16),
                    (sector(11, 6), 16),
                    (sector(11, 8), 16),
                ],
                101_000,
                11.664 - 0.006,
            ),
            (
                "micro-rnd1",
                [100, 50, 51, 52, 53]
                    .iter()
                    .map(|&b| (sector(78, b), 8))
                    .collect(),
                101_000,
                12.138 - 0.004,
            ),
        ];
        let mut errors = Vec::new();
        for (name, reqs, gap, accusim) in cases {
            let mut m = cheetah();
            let ours = replay(&mut m, &reqs, gap);
            eprintln!("{name}: model {ours:.3} ms, AccuSim/DiskSim {accusim:.3} ms");
            errors.push(ours / accusim - 1.0);
        }
        // micro-rnd1 (two positioned misses, three hits) and micro-tiny (a miss, three hits and a
        // partial hit across a track boundary) agree to the microsecond: geometry, skew, the
        // angle at time 0, overheads, bus pipeline and the track-end read-ahead are DiskSim's.
        assert!(
            errors[1].abs() < 1e-3 && errors[2].abs() < 1e-3,
            "{errors:?}"
        );
        // micro-seq1 crosses four track boundaries with 2 ms between reads; DiskSim charges less
        // for them than this model does (+9.8%): a read-ahead rule not yet identified.
        assert!(errors[0].abs() < 0.11, "{errors:?}");
    }
}
