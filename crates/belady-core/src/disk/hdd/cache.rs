//! The drive cache: segments, their read-ahead and the reads they serve.

use super::{Breakdown, DriveCache, HddModel, Head, Op, ReadAhead};
use crate::disk::ms_to_ns;

/// A read-ahead in progress: reading sectors from `lba` towards `limit`, the heads positioned
/// from `head` starting at `t0`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Run {
    pub(super) head: Head,
    pub(super) t0: f64,
    pub(super) lba: u64,
    pub(super) limit: u64,
}

/// One drive-cache segment: sectors `[first, valid_end)` are in the buffer, and `run` (if the
/// segment owns the mechanism) is bringing in more.
#[derive(Clone, Debug)]
pub(super) struct Segment {
    pub(super) first: u64,
    pub(super) valid_end: u64,
    pub(super) run: Option<Run>,
    pub(super) stamp: u64,
}

impl Segment {
    /// End of what the segment holds or will hold once its read-ahead is done.
    pub(super) fn coverage_end(&self) -> u64 {
        self.run.map_or(self.valid_end, |r| r.limit)
    }
}

impl HddModel {
    /// Sectors a run has read by time `t`, and where the heads are then.
    pub(super) fn progress(&self, run: &Run, t: f64) -> (u64, Head) {
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
    pub(super) fn stop_read_ahead(&mut self, t: f64) {
        self.stop_read_ahead_except(usize::MAX, t);
    }

    /// [`Self::stop_read_ahead`] for every segment but `keep`.
    pub(super) fn stop_read_ahead_except(&mut self, keep: usize, t: f64) {
        for i in 0..self.segments.len() {
            if i == keep {
                continue;
            }
            if let Some(run) = self.segments[i].run {
                let (done, head) = self.progress(&run, t);
                let s = &mut self.segments[i];
                s.valid_end = run.lba + done;
                s.run = None;
                self.head = head;
            }
        }
    }

    /// Where a read-ahead after a media read of `[lba, end)` stops, in a segment that begins at
    /// `seg_first`.
    pub(super) fn read_ahead_limit(
        &self,
        cache: &DriveCache,
        seg_first: u64,
        lba: u64,
        end: u64,
    ) -> u64 {
        if cache.read_ahead == ReadAhead::NextTrack {
            return self.next_track_limit(seg_first, lba, end);
        }
        let room = u64::from(cache.segment_sectors).saturating_sub(end - lba);
        let mut limit = (end + u64::from(cache.read_ahead_sectors).min(room)).min(self.capacity);
        if cache.read_ahead == ReadAhead::TrackEnd {
            limit = limit.min(self.track_end(end - 1).0);
        }
        limit
    }

    /// DiskSim's DEC limit for a request `[lba, end)` in a segment beginning at `seg_first`: the
    /// end of the track holding `end`, or of the next track (of the request's track length)
    /// when the segment began before that track.
    pub(super) fn next_track_limit(&self, seg_first: u64, lba: u64, end: u64) -> u64 {
        if end >= self.capacity {
            return self.capacity;
        }
        let (track_end, spt) = self.track_end(end);
        let track_start = track_end - spt;
        if seg_first < track_start {
            (track_end + self.track_end(lba).1).min(self.capacity)
        } else {
            track_end
        }
    }

    /// Bus pipeline for the part `[lba, end)` of segment `seg` (all of it held or coming):
    /// returns when the last sector left the bus, sending from `ready` on, and when the
    /// segment's read-ahead reached `end`.
    pub(super) fn buffered_out(&self, seg: &Segment, lba: u64, end: u64, ready: f64) -> (f64, f64) {
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
    pub(super) fn read_partial(&mut self, i: usize, lba: u64, n: u64, start: f64) -> f64 {
        let ovh = ms_to_ns(self.overhead_ms(false, true));
        let ready = start + ovh;
        let end = lba + n;
        let seg = self.segments[i].clone();
        let held_end = seg.coverage_end();
        let (out, reached) = self.buffered_out(&seg, lba, held_end, ready);
        let t = ready.max(reached);
        self.stop_read_ahead(t);
        let (media_end, out, seek, rot) = self.media_read(t, held_end, end - held_end, out);
        let head = self.head;
        let cache = self
            .params
            .cache
            .clone()
            .expect("partial hits need a cache");
        let limit = self.read_ahead_limit(&cache, seg.first, lba, end);
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
        self.finish(
            Op::Read,
            Breakdown::before_transfer(false, ovh, seek, rot),
            out,
            start,
        )
    }

    pub(super) fn read_hit(&mut self, i: usize, lba: u64, n: u64, start: f64) -> f64 {
        let ovh = ms_to_ns(self.overhead_ms(false, true));
        let ready = start + ovh;
        let end = lba + n;
        let seg = self.segments[i].clone();
        let (out, _) = self.buffered_out(&seg, lba, end, ready);
        let cache = self.params.cache.clone().expect("hits need a cache");
        if cache.hit_stops_read_ahead {
            self.stop_read_ahead_except(i, start);
        }
        let want = match cache.read_ahead {
            // The buffer works as a ring: consumed sectors make room for more read-ahead.
            ReadAhead::Ring => {
                let ahead = u64::from(cache.read_ahead_sectors.min(cache.segment_sectors));
                (end + ahead).min(self.capacity)
            }
            // The read-ahead never goes past its track: nothing to extend.
            ReadAhead::TrackEnd => 0,
            ReadAhead::NextTrack => {
                self.extend_next_track(i, lba, end, start);
                return self.hit_done(i, ovh, out, start);
            }
        };
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
        self.hit_done(i, ovh, out, start)
    }

    /// DiskSim's DEC scheme on a hit in segment `i`: a running read-ahead takes the new limit; a
    /// finished one stays finished, the heads where it left them.
    pub(super) fn extend_next_track(&mut self, i: usize, lba: u64, end: u64, start: f64) {
        let cache = self.params.cache.clone().expect("hits need a cache");
        let seg = &self.segments[i];
        let want = self.next_track_limit(seg.first, lba, end);
        if let Some(run) = seg.run {
            let (done, head) = self.progress(&run, start);
            let seg = &mut self.segments[i];
            if run.lba + done >= run.limit {
                seg.valid_end = run.limit;
                seg.run = None;
                self.head = head;
            } else {
                seg.run = Some(Run {
                    limit: run.limit.max(want),
                    ..run
                });
            }
        }
        let seg = &mut self.segments[i];
        let keep_from = seg
            .coverage_end()
            .saturating_sub(u64::from(cache.segment_sectors));
        seg.first = seg.first.max(keep_from.min(lba));
    }

    /// Bookkeeping after a read served from segment `i` whose last sector left the bus at `out`;
    /// returns its service time.
    pub(super) fn hit_done(&mut self, i: usize, ovh: f64, out: f64, start: f64) -> f64 {
        self.segments[i].stamp = self.clock;
        self.finish(
            Op::Read,
            Breakdown {
                hit: true,
                overhead_ns: ovh,
                ..Breakdown::default()
            },
            out,
            start,
        )
    }
}
