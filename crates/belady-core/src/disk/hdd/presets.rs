//! The disks `cheetah9lp` and `hdd7200` describe.

use super::{DriveCache, HddParams, Overheads, ReadAhead, SeekSpec, Zone};

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
/// spare sectors (the AccuSim oracle README's table of DiskSim's model), and empty sectors at
/// the zone's front. The README gives no front space; zone 3's 5 sectors are inferred from
/// AccuSim's timed runs on `lirs-cpp`, the only shared input in that zone (docs/disk.md).
const CHEETAH9LP_ZONES: [(u32, u32, u32, u32, u32, u64, u64); 11] = [
    (0, 846, 254, 97, 133, 1270, 0),
    (848, 1643, 245, 97, 133, 980, 0),
    (1645, 2392, 238, 97, 117, 952, 0),
    (2394, 3096, 227, 97, 116, 908, 5),
    (3098, 3757, 217, 97, 108, 651, 0),
    (3759, 4379, 209, 97, 108, 627, 0),
    (4381, 4964, 201, 97, 108, 402, 0),
    (4966, 5515, 189, 88, 94, 2268, 0),
    (5516, 6031, 181, 88, 93, 1991, 0),
    (6032, 6517, 174, 88, 93, 1914, 0),
    (6518, 6961, 167, 88, 80, 218, 0),
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
                .map(|&(f, l, spt, ts, cs, sp, front)| Zone {
                    first_cylinder: f,
                    last_cylinder: l,
                    sectors_per_track: spt,
                    track_skew: ts,
                    cylinder_skew: cs,
                    spare_sectors: sp,
                    front_sectors: front,
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
                read_ahead: ReadAhead::NextTrack,
                hit_needs_first_sector: true,
                hit_stops_read_ahead: true,
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
                    front_sectors: 0,
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
                read_ahead: ReadAhead::Ring,
                hit_needs_first_sector: false,
                hit_stops_read_ahead: false,
            }),
        }
    }
}
