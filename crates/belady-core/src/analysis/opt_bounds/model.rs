//! The caching model every bound is about, and a trace held in that model's terms.
//!
//! Requests are objects with sizes. A request hits when its object stayed in the cache since the
//! object's previous request; a missed object need not be cached, and anything may be evicted at
//! any time, so a schedule is a choice of intervals (from one request of an object to its next)
//! to keep, such that the bytes kept across every gap between two requests fit the cache.
//!
//! An object has one size: its size at its first request (as the byte footprint counts it).
//! Later requests of it with another recorded size count that size too, as belady's and
//! libCacheSim's caches keep the size an object entered with when it hits. Objects larger than
//! the cache are never kept.

/// No next request.
pub(crate) const NONE: u32 = u32::MAX;

/// A trace as FOO and PFOO read it: each request's size, and where its object (same id and
/// size) is requested next.
#[derive(Clone, Debug, Default)]
pub struct SizedTrace {
    /// Each request's object size in bytes.
    pub(crate) sizes: Vec<u32>,
    /// Each request's next request of the same object, or [`NONE`].
    pub(crate) next: Vec<u32>,
    /// Distinct object ids.
    pub(crate) objects: usize,
    /// The sum of the requests' sizes (each its object's).
    pub(crate) bytes_requested: u64,
    /// The sum of each object's size at its first request (libCacheSim's working set size).
    pub(crate) footprint: u64,
}

/// Builds a [`SizedTrace`] request by request, linking each to its object's previous request.
pub(crate) struct Linker {
    trace: SizedTrace,
    /// Each object id's latest request.
    last: Vec<u32>,
    /// Each object id's size (at its first request).
    size: Vec<u32>,
}

impl Linker {
    /// A linker for dense object ids below `objects`.
    pub(crate) fn new(objects: usize) -> Linker {
        Linker {
            trace: SizedTrace::default(),
            last: vec![NONE; objects],
            size: vec![0; objects],
        }
    }

    /// Reserves room for `requests` more requests.
    pub(crate) fn reserve(&mut self, requests: usize) {
        self.trace.sizes.reserve_exact(requests);
        self.trace.next.reserve_exact(requests);
    }

    /// Requests pushed so far.
    pub(crate) fn len(&self) -> usize {
        self.trace.sizes.len()
    }

    /// Makes room for object ids below `objects` (ids are numbered as they appear).
    pub(crate) fn grow(&mut self, objects: usize) {
        if self.last.len() < objects {
            self.last.resize(objects, NONE);
            self.size.resize(objects, 0);
        }
    }

    /// Appends one request of object `id` (dense) recorded with `size` bytes (the object keeps
    /// the size of its first request).
    #[inline]
    pub(crate) fn push(&mut self, id: u32, size: u32) {
        let t = self.trace.sizes.len() as u32;
        let i = id as usize;
        let last = &mut self.last[i];
        if *last == NONE {
            self.size[i] = size;
            self.trace.footprint += size as u64;
        } else {
            self.trace.next[*last as usize] = t;
        }
        *last = t;
        let size = self.size[i];
        self.trace.sizes.push(size);
        self.trace.next.push(NONE);
        self.trace.bytes_requested += size as u64;
    }

    /// The finished trace.
    pub(crate) fn finish(mut self) -> SizedTrace {
        self.trace.objects = self.last.iter().filter(|&&l| l != NONE).count();
        self.trace
    }
}

impl SizedTrace {
    /// A trace from `(object id, size)` pairs (ids need not be dense; tests and Python-sized
    /// inputs).
    pub fn from_pairs(pairs: &[(u64, u32)]) -> SizedTrace {
        let mut dense = std::collections::HashMap::new();
        let ids: Vec<u32> = pairs
            .iter()
            .map(|&(id, _)| {
                let n = dense.len() as u32;
                *dense.entry(id).or_insert(n)
            })
            .collect();
        let mut linker = Linker::new(dense.len());
        for (&id, &(_, size)) in ids.iter().zip(pairs) {
            linker.push(id, size.max(1));
        }
        linker.finish()
    }

    /// Requests.
    pub fn requests(&self) -> usize {
        self.sizes.len()
    }

    /// Distinct object ids.
    pub fn objects(&self) -> usize {
        self.objects
    }

    /// The sum of the requests' sizes.
    pub fn bytes_requested(&self) -> u64 {
        self.bytes_requested
    }

    /// The sum of each object's size at its first request.
    pub fn footprint(&self) -> u64 {
        self.footprint
    }

    /// The intervals that can be kept in a cache of `capacity` bytes: `(start, end, size)`.
    pub(crate) fn intervals(&self, capacity: u64) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        self.next
            .iter()
            .zip(&self.sizes)
            .enumerate()
            .filter(move |&(_, (&n, &s))| n != NONE && s as u64 <= capacity)
            .map(|(t, (&n, &s))| (t as u32, n, s))
    }

    /// What a cache of `capacity` bytes gives the flow: the unit all kept intervals' sizes are
    /// multiples of (their greatest common divisor; any cache content is a multiple of it, so
    /// the capacity can be rounded down to one without losing a schedule, which makes the
    /// relaxation exact when all sizes are equal), and the capacity in those units.
    pub(crate) fn units(&self, capacity: u64) -> (u64, u64) {
        let g = self
            .intervals(capacity)
            .fold(0u64, |g, (_, _, s)| gcd(g, s as u64))
            .max(1);
        (g, capacity / g)
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// What a cache must miss whatever it keeps: requests (and their bytes) that no keepable
/// interval ends at.
pub(crate) fn compulsory(trace: &SizedTrace, capacity: u64) -> (u64, u64) {
    let (mut hits, mut hit_bytes) = (0u64, 0u64);
    for (_, _, s) in trace.intervals(capacity) {
        hits += 1;
        hit_bytes += s as u64;
    }
    (
        trace.requests() as u64 - hits,
        trace.bytes_requested - hit_bytes,
    )
}

/// What a bound is about: the miss count, or the bytes missed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Objective {
    /// Every miss costs 1: an interval's bytes cost `1 / size` each.
    Misses,
    /// Every missed byte costs 1.
    Bytes,
}

/// A lower and an upper bound on the optimum of one objective.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Bound {
    /// No schedule does better.
    pub lower: u64,
    /// A schedule that does this well exists.
    pub upper: u64,
}
