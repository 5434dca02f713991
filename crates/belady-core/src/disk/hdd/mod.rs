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
//! segment with the request and then keeps reading ahead until another request needs the
//! mechanism or the read-ahead reaches its limit, which [`ReadAhead`] sets: the segment as a ring
//! (each hit moves the limit on), the end of the request's track, or DiskSim's DEC scheme (the
//! end of the track after the request's when the segment began on an earlier track). A read
//! whose sectors lie in a segment, or in the part the running read-ahead will reach, is a hit: it
//! waits only for the read-ahead to reach its last sector and for the bus; with
//! `hit_needs_first_sector` its first sector must already be in (DiskSim's rule). A read that
//! starts in a segment and runs past it is a partial hit. Segments are replaced least recently
//! used. Writes invalidate overlapping segments; with `write_back` a write completes once its
//! data crossed the bus (the later media write is not modelled), otherwise it is a positioned
//! media write.

mod cache;
mod geometry;
mod params;
mod presets;
mod seek;
#[cfg(test)]
mod tests;

pub use geometry::{Head, Location};
pub use params::{DriveCache, HddParams, Overheads, ReadAhead, Zone};
pub use seek::SeekSpec;

use super::{ms_to_ns, DiskAccess, DiskModel};
use crate::error::{Error, Result};
use cache::{Run, Segment};
use geometry::ZoneGeo;

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

impl Breakdown {
    /// The overhead, seek and rotation of a request; `HddModel::finish` adds the transfer.
    fn before_transfer(hit: bool, overhead_ns: f64, seek_ns: f64, rotation_ns: f64) -> Self {
        Breakdown {
            hit,
            overhead_ns,
            seek_ns,
            rotation_ns,
            transfer_ns: 0.0,
        }
    }
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
    /// Reads served whole from the drive cache since the last reset.
    read_hits: u64,
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
                let lbas = cyls * surfaces * spt - z.spare_sectors - z.front_sectors;
                let g = ZoneGeo {
                    first_cyl: u64::from(z.first_cylinder),
                    front: z.front_sectors,
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
            read_hits: 0,
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

    /// Reads `[lba, lba + n)` from the media from time `t`, the sectors leaving over the bus
    /// after `out` (see `bus_out`); the heads stay where it ended. Returns when the media and
    /// when the bus were done, and the first positioning and rotational wait.
    fn media_read(&mut self, t: f64, lba: u64, n: u64, mut out: f64) -> (f64, f64, f64, f64) {
        let (media_end, head, seek, rot) = self.walk(self.head, t, lba, n, false, |s, k, d, _| {
            out = self.bus_out(out, s, k, d);
            true
        });
        self.head = head;
        (media_end, out, seek, rot)
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
        let first_needed = self
            .params
            .cache
            .as_ref()
            .is_some_and(|c| c.hit_needs_first_sector);
        // Where each segment's data that counts for a hit ends: what it holds by now, or also
        // what its running read-ahead will bring.
        let held: Vec<u64> = self
            .segments
            .iter()
            .map(|s| match s.run {
                Some(run) if first_needed => run.lba + self.progress(&run, start).0,
                _ => s.coverage_end(),
            })
            .collect();
        let starts_in = |i: usize| {
            let s = &self.segments[i];
            s.first <= lba && lba < held[i]
        };
        let hit = (0..self.segments.len())
            .find(|&i| starts_in(i) && end <= self.segments[i].coverage_end());
        if let Some(i) = hit {
            return self.read_hit(i, lba, n, start);
        }
        let partial = (0..self.segments.len()).find(|&i| starts_in(i));
        match partial {
            Some(i) => self.read_partial(i, lba, n, start),
            None => self.read_miss(lba, n, start),
        }
    }

    fn read_miss(&mut self, lba: u64, n: u64, start: f64) -> f64 {
        let ovh = ms_to_ns(self.overhead_ms(false, false));
        let t = start + ovh;
        self.stop_read_ahead(t);
        let (media_end, out, seek, rot) = self.media_read(t, lba, n, t);
        let head = self.head;
        if let Some(cache) = self.params.cache.clone() {
            let end = lba + n;
            let limit = self.read_ahead_limit(&cache, lba, lba, end);
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
            match overlapping {
                Some(i) => self.segments[i] = seg,
                None => self.place_segment(seg, cache.segments as usize),
            }
        }
        self.finish(
            Op::Read,
            Breakdown::before_transfer(false, ovh, seek, rot),
            out,
            start,
        )
    }

    /// Puts `seg` in an empty segment of the `segments` the drive has, else in place of the
    /// least recently used one.
    fn place_segment(&mut self, seg: Segment, segments: usize) {
        if self.segments.len() < segments {
            self.segments.push(seg);
        } else {
            let lru = (0..self.segments.len())
                .min_by_key(|&i| self.segments[i].stamp)
                .expect("at least one segment");
            self.segments[lru] = seg;
        }
    }

    /// Ends a request of kind `op` that started at `start` and whose data were done at `done`
    /// (`b` without its transfer time, which is the rest): its service time.
    fn finish(&mut self, op: Op, mut b: Breakdown, done: f64, start: f64) -> f64 {
        self.last_op = op;
        let total = done + ms_to_ns(self.params.completion_ms) - start;
        b.transfer_ns = total - b.overhead_ns - b.seek_ns - b.rotation_ns;
        self.last = b;
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
            self.place_segment(seg, cache.segments as usize);
            (bus_done, 0.0, 0.0)
        } else {
            let (media_end, head, seek, rot) =
                self.walk(self.head, t, lba, n, true, |_, _, _, _| true);
            self.head = head;
            (media_end.max(bus_done), seek, rot)
        };
        self.finish(
            Op::Write,
            Breakdown::before_transfer(write_back, ovh, seek, rot),
            done,
            start,
        )
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
            let ns = self.read(lba, n, t);
            self.read_hits += u64::from(self.last.hit);
            ns
        };
        ns.round().max(1.0) as u64
    }

    fn reset(&mut self) {
        self.head = Head { cyl: 0, surf: 0 };
        self.last_op = Op::Read;
        self.segments.clear();
        self.clock = 0;
        self.last = Breakdown::default();
        self.read_hits = 0;
    }

    fn cache_read_hits(&self) -> Option<u64> {
        self.params.cache.is_some().then_some(self.read_hits)
    }
}
