//! Where a logical sector lies on a zoned disk, and how the heads get there and read along.

use super::HddModel;
use crate::disk::ms_to_ns;

/// A zone with its derived mapping values.
#[derive(Clone, Debug)]
pub(super) struct ZoneGeo {
    pub(super) first_cyl: u64,
    /// Sectors before the zone's first logical block.
    pub(super) front: u64,
    pub(super) spt: u64,
    pub(super) track_skew: u64,
    pub(super) cyl_skew: u64,
    pub(super) first_lba: u64,
    pub(super) lbas: u64,
    /// Time for one sector to pass under the head, ns.
    pub(super) sector_ns: f64,
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

impl HddModel {
    /// Where logical sector `lba` lies (addresses past the capacity wrap around).
    pub fn locate(&self, lba: u64) -> Location {
        let lba = lba % self.capacity;
        let zone = self.zones.partition_point(|z| z.first_lba <= lba) - 1;
        let z = &self.zones[zone];
        debug_assert!(lba - z.first_lba < z.lbas);
        let off = lba - z.first_lba + z.front;
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
    #[cfg(test)]
    pub fn sustained_rate(&self, zone: usize) -> f64 {
        let z = &self.zones[zone];
        let per_cyl_slots = self.surfaces * z.spt + (self.surfaces - 1) * z.track_skew + z.cyl_skew;
        let bytes = (self.surfaces * z.spt * 512) as f64;
        bytes / (per_cyl_slots as f64 * z.sector_ns * 1e-9)
    }

    /// Time to move the heads from `from` to the track of `to`, ns.
    pub(super) fn position_ns(&self, from: Head, to: &Location, write: bool) -> f64 {
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
    pub(super) fn walk(
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

    /// One past the last sector of the track holding `lba`, and that track's length.
    pub(super) fn track_end(&self, lba: u64) -> (u64, u64) {
        let l = self.locate(lba);
        let z = &self.zones[l.zone];
        let end = lba - l.sector + z.spt;
        (end.min(z.first_lba + z.lbas), z.spt)
    }
}
