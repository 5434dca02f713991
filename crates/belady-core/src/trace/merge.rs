//! Interleaving two block traces by time, as the CLOCK-Pro paper's interference experiment does:
//! one trace's timeline is scaled onto the other's duration, then the requests are merged in
//! time order, with the second trace's block ids shifted past the first's.
//!
//! A trace whose requests all carry timestamps is timed in nanoseconds; otherwise a request's
//! time is the index of its first block reference. Ties go to the first trace. Two passes over
//! each input (the first measures the timelines and the largest id), constant memory.

use super::{BlockRequest, RequestStream};
use crate::error::{Error, Result};

/// Which trace's timeline the other is scaled onto.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ScaleTo {
    /// B is stretched or squeezed onto A's duration.
    A,
    /// A onto B's.
    B,
    /// Times are kept as they are (both timed or both untimed).
    None,
}

/// A trace's timeline and id range, from a first pass.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timeline {
    /// Requests.
    pub requests: u64,
    /// Block references.
    pub references: u64,
    /// Whether every request carries a timestamp.
    pub timed: bool,
    /// First and last request time (ns, or reference index when untimed).
    pub first: u64,
    /// See `first`.
    pub last: u64,
    /// Largest block id referenced.
    pub max_block: u64,
}

impl Timeline {
    /// Measures `stream`.
    pub fn measure(stream: RequestStream) -> Result<Timeline> {
        let mut t = Timeline {
            timed: true,
            ..Timeline::default()
        };
        for req in stream {
            let req = req?;
            let time = req.time_ns;
            t.timed &= time.is_some();
            let at = time.unwrap_or(t.references);
            if t.requests == 0 {
                t.first = at;
            }
            t.last = at;
            t.requests += 1;
            t.references += req.count as u64;
            t.max_block = t
                .max_block
                .max(req.block.saturating_add(req.count as u64 - 1));
        }
        if !t.timed {
            t.first = 0;
            t.last = t.references.saturating_sub(1);
        }
        t.timed &= t.requests > 0;
        Ok(t)
    }

    fn duration(&self) -> u64 {
        self.last.saturating_sub(self.first)
    }
}

/// What a merge did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeSummary {
    /// The first trace.
    pub a: Timeline,
    /// The second trace.
    pub b: Timeline,
    /// Added to every block id of the second trace.
    pub offset: u64,
    /// Whether the merged requests carry timestamps (nanoseconds).
    pub timed: bool,
}

/// Maps times of one trace onto another's span.
struct Scale {
    from_first: u64,
    from_span: u64,
    to_first: u64,
    to_span: u64,
}

impl Scale {
    fn identity() -> Scale {
        Scale {
            from_first: 0,
            from_span: 1,
            to_first: 0,
            to_span: 1,
        }
    }

    fn onto(from: &Timeline, to: &Timeline) -> Scale {
        Scale {
            from_first: from.first,
            from_span: from.duration(),
            to_first: to.first,
            to_span: to.duration(),
        }
    }

    fn apply(&self, t: u64) -> u64 {
        if self.from_span == 0 {
            return self.to_first;
        }
        let rel = (t.saturating_sub(self.from_first)) as u128 * self.to_span as u128
            / self.from_span as u128;
        self.to_first
            .saturating_add(rel.min(u64::MAX as u128) as u64)
    }
}

/// A stream with its next request and that request's (scaled) time.
struct Side {
    stream: RequestStream,
    next: Option<(u64, BlockRequest)>,
    references: u64,
    timed: bool,
    scale: Scale,
    offset: u64,
}

impl Side {
    fn advance(&mut self) -> Result<()> {
        self.next = match self.stream.next().transpose()? {
            None => None,
            Some(mut req) => {
                let raw = if self.timed {
                    req.time_ns.unwrap_or(0)
                } else {
                    self.references
                };
                self.references += req.count as u64;
                req.block += self.offset;
                Some((self.scale.apply(raw), req))
            }
        };
        Ok(())
    }
}

/// Merges two traces into `sink` in time order. `open_a` and `open_b` are called twice each
/// (measure, then merge). `offset` overrides the shift of B's ids (default: A's largest id + 1).
pub fn merge(
    open_a: &dyn Fn() -> Result<RequestStream>,
    open_b: &dyn Fn() -> Result<RequestStream>,
    scale: ScaleTo,
    offset: Option<u64>,
    mut sink: impl FnMut(&BlockRequest) -> Result<()>,
) -> Result<MergeSummary> {
    let a = Timeline::measure(open_a()?)?;
    let b = Timeline::measure(open_b()?)?;
    let offset = match offset {
        Some(o) => o,
        None if a.requests == 0 => 0,
        None => a.max_block + 1,
    };
    if b.requests > 0 && b.max_block.checked_add(offset).is_none() {
        return Err(Error::config(
            "merge",
            offset,
            "shifting the second trace's block ids by this overflows 64 bits",
        ));
    }
    let (scale_a, scale_b, timed) = match scale {
        ScaleTo::A => (Scale::identity(), Scale::onto(&b, &a), a.timed),
        ScaleTo::B => (Scale::onto(&a, &b), Scale::identity(), b.timed),
        ScaleTo::None => {
            if a.timed != b.timed && a.requests > 0 && b.requests > 0 {
                return Err(Error::config(
                    "--scale-to",
                    "none",
                    "one trace has timestamps and the other not; scale one onto the other (A or B)",
                ));
            }
            (Scale::identity(), Scale::identity(), a.timed || b.timed)
        }
    };
    let mut sides = [
        Side {
            stream: open_a()?,
            next: None,
            references: 0,
            timed: a.timed,
            scale: scale_a,
            offset: 0,
        },
        Side {
            stream: open_b()?,
            next: None,
            references: 0,
            timed: b.timed,
            scale: scale_b,
            offset,
        },
    ];
    for side in &mut sides {
        side.advance()?;
    }
    loop {
        let pick = match (&sides[0].next, &sides[1].next) {
            (None, None) => break,
            (Some(_), None) => 0,
            (None, Some(_)) => 1,
            (Some((ta, _)), Some((tb, _))) => usize::from(tb < ta),
        };
        let (time, mut req) = sides[pick]
            .next
            .take()
            .expect("picked a side with a request");
        req.time_ns = timed.then_some(time);
        sink(&req)?;
        sides[pick].advance()?;
    }
    Ok(MergeSummary {
        a,
        b,
        offset,
        timed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Op;

    fn stream(reqs: Vec<(u64, Option<u64>)>) -> RequestStream {
        Box::new(reqs.into_iter().map(|(block, time_ns)| {
            Ok(BlockRequest {
                block,
                count: 1,
                op: Op::Read,
                time_ns,
                bytes: 4096,
            })
        }))
    }

    #[test]
    fn untimed_b_is_spread_over_a_and_ids_kept_apart() {
        let a = || Ok(stream((0..10).map(|i| (i % 3, None)).collect()));
        let b = || Ok(stream((0..5).map(|i| (i, None)).collect()));
        let mut out = Vec::new();
        let s = merge(&a, &b, ScaleTo::A, None, |r| {
            out.push(r.block);
            Ok(())
        })
        .unwrap();
        assert_eq!(s.offset, 3);
        assert!(!s.timed);
        // A at 0..9; B's 5 references at 0, 2.25, 4.5, 6.75, 9 -> 0, 2, 4, 6, 9 (ties after A).
        assert_eq!(out, vec![0, 3, 1, 2, 4, 0, 1, 5, 2, 0, 6, 1, 2, 0, 7]);
    }

    #[test]
    fn timed_b_is_scaled_onto_a_duration() {
        let a = || Ok(stream(vec![(1, Some(100)), (2, Some(200)), (3, Some(300))]));
        let b = || Ok(stream(vec![(1, Some(0)), (2, Some(10_000))]));
        let mut out = Vec::new();
        let s = merge(&a, &b, ScaleTo::A, Some(1000), |r| {
            out.push((r.block, r.time_ns));
            Ok(())
        })
        .unwrap();
        assert!(s.timed);
        assert_eq!(
            out,
            vec![
                (1, Some(100)),
                (1001, Some(100)),
                (2, Some(200)),
                (3, Some(300)),
                (1002, Some(300))
            ]
        );
    }
}
