//! libCacheSim's SLRU (`libCacheSim/cache/eviction/SLRU.c`, as libcachesim 0.3.5 runs it) at a
//! count capacity, a reference model apart from belady's SLRU ([`crate::policy::slru`]).
//! `slru.variant=libcachesim` (set by `--preset libcachesim`) builds it.
//!
//! libCacheSim counts a cache of `c` objects as `c` bytes of one-byte objects: every segment
//! holds `floor(c / n)` of them, whether or not the segment count `n` divides `c`. Segment 0
//! grows past its share while the cache has room (a miss enters the lowest segment with room, or
//! segment 0), so a hit that promotes out of segment 0 and cools the segment above back into it
//! leaves segment 0 over its share, and libCacheSim evicts on that hit until it is back within
//! it; the cache then runs short until later misses fill it. Below `n` objects no segment holds
//! one and nothing is cached. belady's SLRU instead gives segment 0 the remainder and never
//! evicts on a hit; the two agree exactly when `n` divides `c`.
//!
//! That is libCacheSim's byte-capacity SLRU with every object weighing one unit, which
//! [`SlruSizedPolicy`] models exactly (`tests/python/test_xcheck_bytes.py`): a counting level
//! gives every reference a weight of one, so this variant is that policy at the count capacity.
//! `tests/python/test_xcheck_slru.py` checks equal misses at capacities `n` does not divide.

use crate::error::Result;
use crate::policy::registry::PolicySpec;
use crate::policy::slru::MAX_SEGMENTS;
use crate::policy::slru_sized::SlruSizedPolicy;

/// libCacheSim's SLRU of `capacity` objects, with `segments` from `spec`, over ids
/// `0..universe`.
pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> Result<SlruSizedPolicy> {
    let segments = spec.usize("segments", 1, MAX_SEGMENTS)?;
    Ok(SlruSizedPolicy::new(capacity as u64, segments, universe))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::NEVER;

    fn level(capacity: usize) -> CacheLevel<SlruSizedPolicy> {
        let mut spec = PolicySpec::parse("slru").unwrap();
        spec.set("variant", "libcachesim").unwrap();
        CacheLevel::new(from_spec(&spec, capacity, 64).unwrap(), capacity, 64)
    }

    #[test]
    fn a_hit_that_leaves_segment_zero_over_its_share_evicts() {
        // 10 objects in 4 segments of floor(10/4) = 2: while filling, 1..8 fill the segments
        // bottom up (two each), then 9 and 10 overflow segment 0 (4 objects there).
        let mut l = level(10);
        for b in 1..=10 {
            l.access(b, NEVER);
        }
        assert_eq!(l.frames().len(), 10);
        // 10 hits in segment 0: it moves up to segment 1, whose LRU block cools back down, so
        // segment 0 still holds 4 > 2 and its two LRU blocks are evicted during the hit.
        l.access(10, NEVER);
        l.check().unwrap();
        assert_eq!(l.stats().evictions, 2);
        assert_eq!(l.frames().len(), 8, "the cache runs short after the hit");
        // Below 4 objects no segment holds one: nothing is cached.
        let mut tiny = level(3);
        for b in [1, 1, 2, 2] {
            tiny.access(b, NEVER);
        }
        assert_eq!((tiny.stats().hits, tiny.frames().len()), (0, 0));
    }
}
