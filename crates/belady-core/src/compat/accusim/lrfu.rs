//! AccuSim's LRFU queue (`sim/lrfu.cc`, Butt, Gniady and Hu's simulator adapted from the LRFU
//! authors' code), built by the registry instead of the paper's
//! [`crate::policy::lrfu::LrfuPolicy`] when `lrfu.heap=accusim` (the `accusim` preset sets it).
//!
//! - `heap=accusim` (`AccuQueue`): CRF values as doubles scaled by its `F(0)` (100 at lambda
//!   0.001), decayed with `pow` at every comparison, in its 1-based heap whose sift-down moves
//!   exact ties down (right child on `>=`, swap on `>=`).
//! - `threshold`: the paper's heap/LRU-list hybrid. At most `threshold` blocks in the heap; an
//!   entering block then takes the root's slot and the old root goes to an LRU list, from which
//!   victims are taken first; a block more than `threshold` ticks older compares as smaller.
//!   `auto` = AccuSim's `ceil(log_1/2(1 - 2^-lambda) / lambda)` (10,496 at 0.001; its disabled
//!   table lists 10,495).
//! - `float=x87`: comparisons as AccuSim's 32-bit x87 build makes them (first operand rounded to
//!   a double, second kept with a 64-bit mantissa), which decides exact ties by rounding.
//! - `prefetch_time=trigger`: a prefetch is stamped with its triggering reference's time (the
//!   paper's policy takes this parameter too).
//!
//! As in the paper's policy, a prefetched block enters with `F(0)` and its first demand access
//! resets its CRF to `F(0)`; nothing is remembered about an evicted block.

use crate::cache::frames::Frames;
use crate::error::Result;
use crate::policy::lrfu::insert_tick;
use crate::policy::lru::last_unpinned;
use crate::policy::registry::PolicySpec;
use crate::policy::structures::list::Lists;
use crate::policy::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};

/// AccuSim's LRFU queue (`lrfu.cc`, after Sedgewick's priority queue): CRF values as plain
/// doubles scaled by `F(0)`, decayed with `pow` whenever two blocks are compared, in a 1-based
/// min-heap of at most `threshold` blocks; beyond it each insertion takes the heap root's slot
/// and pushes the old root onto an LRU list, from which victims are taken first.
pub(crate) struct AccuQueue {
    lambda: f64,
    /// `F(0)`: 100 for lambda in [0.001, 0.01) (AccuSim's `calc_defaultinit`).
    init: f64,
    /// Most blocks the heap holds; also the age gap beyond which the older block compares as
    /// smaller regardless of value.
    threshold: usize,
    value: Vec<f64>,
    lastref: Vec<i64>,
    /// `pq[1..]` is the heap; `pq[0]` is unused.
    pq: Vec<Block>,
    index: Vec<u32>,
    /// Blocks pushed out of the heap, newest first.
    list: Lists,
    /// AccuSim's clock while sifting.
    now: i64,
    /// `float=x87`: compare CRFs as the 32-bit x87 build does (see [`AccuQueue::cmp_kv`]).
    x87: bool,
}

/// A positive extended-precision value: 64-bit mantissa (top bit set) and exponent.
type Ext = (i32, u64);

/// The product of two positive doubles rounded to a 64-bit mantissa (x87 extended precision).
fn ext_product(x: f64, y: f64) -> Ext {
    if x == 0.0 || y == 0.0 {
        return (i32::MIN, 0);
    }
    let split = |v: f64| {
        let bits = v.to_bits();
        let e = ((bits >> 52) & 0x7ff) as i32;
        let m = bits & ((1u64 << 52) - 1);
        if e == 0 {
            (m, -1074)
        } else {
            (m | (1u64 << 52), e - 1075)
        }
    };
    let ((mx, ex), (my, ey)) = (split(x), split(y));
    let prod = mx as u128 * my as u128;
    let bits = 128 - prod.leading_zeros() as i32;
    let shift = bits - 64;
    let (mut m, mut e) = if shift > 0 {
        let kept = (prod >> shift) as u64;
        let rest = prod & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        let up = rest > half || (rest == half && kept & 1 == 1);
        (kept as u128 + up as u128, ex + ey + shift)
    } else {
        (prod << (-shift), ex + ey + shift)
    };
    if m >> 64 != 0 {
        m >>= 1;
        e += 1;
    }
    (e, m as u64)
}

/// An extended value rounded to a double's 53-bit mantissa, kept in extended form.
fn round_to_double(v: Ext) -> Ext {
    let (e, m) = v;
    if m == 0 {
        return v;
    }
    let kept = m >> 11;
    let rest = m & 0x7ff;
    let up = rest > 0x400 || (rest == 0x400 && kept & 1 == 1);
    let k = kept + up as u64;
    if k >> 53 != 0 {
        (e + 1, (k >> 1) << 11)
    } else {
        (e, k << 11)
    }
}

/// AccuSim's `calc_defaultinit`.
fn accusim_init(lambda: f64) -> f64 {
    if lambda >= 0.1 {
        100000.0
    } else if lambda >= 0.01 {
        1000.0
    } else if lambda >= 0.001 {
        100.0
    } else if lambda >= 0.0001 {
        10.0
    } else {
        1.0
    }
}

/// The paper's heap size bound for `lambda`: the age `g` beyond which a block's whole possible
/// CRF, `F(g) / (1 - F(1))`, falls below `F(0)`: `ceil(log_1/2(1 - (1/2)^lambda) / lambda)`
/// (10,495 for lambda = 0.001). `None` for lambda = 0 (LFU: no age ever suffices).
pub fn hybrid_threshold(lambda: f64) -> Option<usize> {
    if lambda <= 0.0 {
        return None;
    }
    let g = ((1.0 - 0.5f64.powf(lambda)).ln() / 0.5f64.ln() / lambda).ceil();
    Some(g.max(1.0) as usize)
}

impl AccuQueue {
    fn new(lambda: f64, threshold: Option<usize>, universe: usize) -> Self {
        AccuQueue {
            lambda,
            init: accusim_init(lambda),
            threshold: threshold.unwrap_or(usize::MAX),
            value: vec![0.0; universe],
            lastref: vec![0; universe],
            pq: vec![0],
            index: vec![0; universe],
            list: Lists::new(1, universe),
            now: 0,
            x87: false,
        }
    }

    fn used(&self) -> usize {
        self.pq.len() - 1
    }

    #[inline]
    fn keyvalue(&self, b: Block) -> f64 {
        let delta = self.now - self.lastref[b as usize];
        0.5f64.powf(self.lambda * delta as f64) * self.value[b as usize]
    }

    /// Whether `a` counts as smaller than or equal to `b` (AccuSim's `>=` test read from `b`).
    #[inline]
    fn older_by_threshold(&self, a: Block, b: Block) -> bool {
        self.lastref[b as usize] - self.lastref[a as usize] > self.threshold as i64
    }

    #[inline]
    fn swap(&mut self, i: usize, j: usize) {
        self.pq.swap(i, j);
        self.index[self.pq[i] as usize] = i as u32;
        self.index[self.pq[j] as usize] = j as u32;
    }

    /// `keyvalue(a)` against `keyvalue(b)` as the 32-bit x87 build evaluates it: the first
    /// operand spilled to a double, the second kept in 64-bit-mantissa extended precision.
    #[inline]
    fn cmp_kv(&self, a: Block, b: Block) -> std::cmp::Ordering {
        if !self.x87 {
            return self.keyvalue(a).total_cmp(&self.keyvalue(b));
        }
        let pa = 0.5f64.powf(self.lambda * (self.now - self.lastref[a as usize]) as f64);
        let pb = 0.5f64.powf(self.lambda * (self.now - self.lastref[b as usize]) as f64);
        let ea = ext_product(pa, self.value[a as usize]);
        let la = round_to_double(ea);
        let rb = ext_product(pb, self.value[b as usize]);
        la.cmp(&rb)
    }

    fn upheap(&mut self, mut i: usize) {
        while i > 1 {
            let (p, c) = (self.pq[i / 2], self.pq[i]);
            if self.older_by_threshold(c, p) || self.cmp_kv(p, c).is_gt() {
                self.swap(i, i / 2);
                i /= 2;
            } else {
                break;
            }
        }
    }

    fn downheap(&mut self, mut i: usize) {
        let used = self.used();
        while i <= used / 2 {
            let mut j = 2 * i;
            if j < used {
                let (l, r) = (self.pq[j], self.pq[j + 1]);
                if self.older_by_threshold(r, l) || self.cmp_kv(l, r).is_ge() {
                    j += 1;
                }
            }
            let (p, c) = (self.pq[i], self.pq[j]);
            if self.older_by_threshold(c, p) || self.cmp_kv(p, c).is_ge() {
                self.swap(i, j);
            } else {
                break;
            }
            i = j;
        }
    }

    fn in_heap(&self, b: Block) -> bool {
        self.index[b as usize] != 0
    }

    /// Puts `b` (off both structures) into the heap, or in the root's slot with the old root
    /// pushed onto the list when the heap is full.
    fn enter(&mut self, b: Block) {
        if self.used() < self.threshold {
            self.pq.push(b);
            let i = self.used();
            self.index[b as usize] = i as u32;
            self.upheap(i);
        } else {
            let old = self.pq[1];
            self.index[old as usize] = 0;
            self.pq[1] = b;
            self.index[b as usize] = 1;
            self.downheap(1);
            self.list.push_front(0, old);
        }
    }

    /// Takes `b` out of the heap (AccuSim's `pqout` when `b` is the root) or off the list.
    fn leave(&mut self, b: Block) {
        if self.list.remove(b).is_some() {
            return;
        }
        let i = self.index[b as usize] as usize;
        self.index[b as usize] = 0;
        let last = self.pq.pop().expect("block is in the heap");
        if i <= self.used() {
            self.pq[i] = last;
            self.index[last as usize] = i as u32;
            self.downheap(i);
            if i > 1 {
                let i = self.index[last as usize] as usize;
                self.upheap(i);
            }
        }
    }

    fn insert(&mut self, b: Block, now: i64) {
        self.now = now;
        self.value[b as usize] = self.init;
        self.lastref[b as usize] = now;
        self.enter(b);
    }

    fn reference(&mut self, b: Block, now: i64, first_use: bool) {
        self.now = now;
        let i = b as usize;
        let delta = now - self.lastref[i];
        let decayed = 0.5f64.powf(self.lambda * delta as f64) * self.value[i];
        self.value[i] = if first_use {
            self.init
        } else {
            self.init + decayed
        };
        self.lastref[i] = now;
        if self.in_heap(b) {
            let at = self.index[i] as usize;
            if decayed > self.value[i] {
                self.upheap(at);
            } else {
                self.downheap(at);
            }
        } else {
            self.list.remove(b);
            self.enter(b);
        }
    }

    fn victim(&mut self, frames: &Frames, now: i64) -> Option<Block> {
        self.now = now;
        if let Some(b) = last_unpinned(&self.list, 0, frames) {
            return Some(b);
        }
        if self.used() == 0 {
            return None;
        }
        if !frames.is_pinned(self.pq[1]) {
            return Some(self.pq[1]);
        }
        // Every frame is unpinned under AccuSim; this only serves other engines' pins.
        self.pq[1..]
            .iter()
            .copied()
            .filter(|&b| !frames.is_pinned(b))
            .min_by(|&a, &b| self.keyvalue(a).total_cmp(&self.keyvalue(b)))
    }
}

/// Checks, for the paper's LRFU (`heap=exact`), that `spec` sets none of the parameters only
/// AccuSim's queue takes (`threshold`, `float`): they would otherwise be dropped silently.
pub(crate) fn refuse_queue_params(spec: &PolicySpec) -> Result<()> {
    let lambda = spec.f64("lambda", 0.0, 1.0)?;
    spec.choice("heap", &["exact", "accusim"])?;
    let (threshold, x87) = queue_params(spec, lambda)?;
    if threshold.is_none() && !x87 {
        return Ok(());
    }
    // Name the parameter that needs the AccuSim queue.
    let key = if threshold.is_some() {
        "threshold"
    } else {
        "float"
    };
    Err(crate::error::Error::config(
        &format!("--param lrfu.{key}"),
        spec.raw(key),
        "the heap/list hybrid and x87 comparisons need lrfu.heap=accusim",
    ))
}

/// `threshold` and `float` from `spec` (`None`: heap only; `true`: x87 comparisons), which only
/// AccuSim's queue takes.
fn queue_params(spec: &PolicySpec, lambda: f64) -> Result<(Option<usize>, bool)> {
    let threshold = match spec.raw("threshold") {
        "none" => None,
        "auto" => hybrid_threshold(lambda),
        _ => Some(spec.usize("threshold", 1, u32::MAX as usize)?),
    };
    let x87 = spec.choice("float", &["double", "x87"])? == "x87";
    Ok((threshold, x87))
}

/// LRFU with AccuSim's queue (`lrfu.heap=accusim`).
pub struct AccusimLrfu {
    queue: AccuQueue,
    /// `prefetch_time=trigger`: a prefetch carries its triggering reference's time.
    prefetch_at_trigger: bool,
}

impl AccusimLrfu {
    /// AccuSim's queue for `lambda` over ids `0..universe`, with the heap/list hybrid bounded by
    /// `threshold` blocks (`None`: heap only); `x87` compares CRFs as AccuSim's 32-bit x87 build
    /// does.
    ///
    /// # Panics
    /// If `lambda` is not within [0, 1] (use [`AccusimLrfu::from_spec`] for user input).
    pub fn new(lambda: f64, universe: usize, threshold: Option<usize>, x87: bool) -> Self {
        assert!((0.0..=1.0).contains(&lambda), "lambda must be in [0, 1]");
        let mut queue = AccuQueue::new(lambda, threshold, universe);
        queue.x87 = x87;
        AccusimLrfu {
            queue,
            prefetch_at_trigger: false,
        }
    }

    /// Reads `lambda`, `threshold`, `float` and `prefetch_time` from `spec` (`heap` is not read:
    /// the builder makes this type for `heap=accusim`).
    pub fn from_spec(spec: &PolicySpec, _capacity: usize, universe: usize) -> Result<Self> {
        let lambda = spec.f64("lambda", 0.0, 1.0)?;
        let (threshold, x87) = queue_params(spec, lambda)?;
        let mut p = AccusimLrfu::new(lambda, universe, threshold, x87);
        p.prefetch_at_trigger = spec.choice("prefetch_time", &["next", "trigger"])? == "trigger";
        Ok(p)
    }

    /// Stamps prefetches with the time of their triggering reference.
    pub fn with_prefetch_at_trigger(mut self, on: bool) -> Self {
        self.prefetch_at_trigger = on;
        self
    }
}

impl Policy for AccusimLrfu {
    fn name(&self) -> &'static str {
        "lrfu"
    }

    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        self.queue.reference(b, cx.tick as i64 + 1, cx.first_use);
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, cx: &Access) -> Option<Block> {
        // A prefetch happens at its trigger's time, one tick before the next reference.
        let now = if cx.prefetch && self.prefetch_at_trigger {
            cx.tick as i64
        } else {
            cx.tick as i64 + 1
        };
        self.queue.victim(frames, now)
    }

    #[inline]
    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        self.queue.leave(b);
    }

    #[inline]
    fn on_insert(&mut self, b: Block, kind: InsertKind, cx: &Access) {
        let tick = insert_tick(kind, cx, self.prefetch_at_trigger);
        self.queue.insert(b, tick as i64 + 1);
    }

    fn len(&self) -> usize {
        self.queue.used() + self.queue.list.len(0)
    }

    fn check_invariants(&self, frames: &Frames) -> std::result::Result<(), String> {
        let q = &self.queue;
        q.list.check()?;
        check_same_residents(q.pq[1..].iter().copied().chain(q.list.iter(0)), frames)?;
        if q.used() > q.threshold {
            return Err(format!("heap holds {} > {} blocks", q.used(), q.threshold));
        }
        for (i, &b) in q.pq.iter().enumerate().skip(1) {
            if q.index[b as usize] as usize != i || q.list.list_of(b).is_some() {
                return Err(format!("block {b} misindexed at heap slot {i}"));
            }
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        let q = &self.queue;
        let mut list: Vec<Block> = q.list.iter(0).collect();
        list.reverse();
        let mut heap: Vec<Block> = q.pq[1..].to_vec();
        heap.sort_by(|&a, &b| q.keyvalue(a).total_cmp(&q.keyvalue(b)));
        vec![("list_victim_first", list), ("heap_smallest_first", heap)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::testutil::run;
    use crate::policy::NEVER;

    #[test]
    fn hybrid_threshold_follows_the_paper_bound() {
        // ceil(10495.05): AccuSim's code computes 10496; its disabled lookup table lists the
        // floor (10495, 717, 3, 1) instead.
        assert_eq!(hybrid_threshold(0.001), Some(10496));
        assert_eq!(hybrid_threshold(0.01), Some(718));
        assert_eq!(hybrid_threshold(0.5), Some(4));
        assert_eq!(hybrid_threshold(1.0), Some(1));
        assert_eq!(hybrid_threshold(0.0), None);
    }

    #[test]
    fn accusim_queue_hybrid_pushes_the_heap_minimum_to_the_list() {
        // lambda 1 (F(0) = 100000), heap of 2 blocks, 3 frames. Times t1.. (demand count).
        // t1 1, t2 2 fill the heap. t3 3: heap full: 3 takes the root's slot and the root,
        // 1 (oldest), goes to the list. t4 2 hits (in the heap). t5 4 misses: the victim comes
        // from the list first (1); 4 enters the heap's root slot, pushing out the smallest
        // heap block at t5: 3 (100000 * 2^-2) against 2 (100000 * (1 + 2^-2) * 2^-1).
        let make = || AccusimLrfu::new(1.0, 8, Some(2), false);
        let level = run(make(), 3, &[1, 2, 3]);
        assert_eq!(
            level.policy.dump(),
            vec![
                ("list_victim_first", vec![1]),
                ("heap_smallest_first", vec![2, 3])
            ]
        );
        let level = run(make(), 3, &[1, 2, 3, 2, 4]);
        assert_eq!(
            level.policy.dump(),
            vec![
                ("list_victim_first", vec![3]),
                ("heap_smallest_first", vec![2, 4])
            ]
        );
        assert!(!level.frames().is_resident(1));
    }

    #[test]
    fn accusim_prefetch_at_trigger_and_first_use() {
        // lambda 0.5, 2 frames, AccuSim queue. t1 1, then 2 is prefetched: with
        // prefetch_time=trigger it is stamped t1 like block 1 and ties with it (both F(0) at
        // t1); the heap keeps insertion order on a tie, so t2 3 evicts 1. With the default
        // (stamped t2) block 1 is older and goes as well; the difference shows in the stamp.
        let mut level = CacheLevel::new(
            AccusimLrfu::new(0.5, 8, None, false).with_prefetch_at_trigger(true),
            2,
            8,
        );
        level.access(1, NEVER);
        level.prefetch(2, NEVER);
        let q = &level.policy.queue;
        assert_eq!((q.lastref[1], q.lastref[2]), (1, 1));
        // t2: first use of 2: CRF reset to F(0) at t2 (not F(0) + decayed F(0)).
        level.access(2, NEVER);
        let q = &level.policy.queue;
        assert_eq!((q.value[2], q.lastref[2]), (q.init, 2));
        level.access(3, NEVER); // t3 evicts 1 (F(0) at t1 < F(0) at t2)
        assert!(!level.frames().is_resident(1) && level.frames().is_resident(2));
        level.check().unwrap();
    }

    #[test]
    fn x87_comparison_breaks_exact_ties_by_rounding() {
        // Two blocks with the same value and time have equal CRFs. Compared as the x87 build
        // does, the first operand is rounded to a double and the second is not, so the
        // outcome follows the rounding direction of the product; with F(0) exactly (no
        // decay) the product is exact and the tie stays a tie.
        let mut q = AccuQueue::new(0.001, None, 4);
        q.x87 = true;
        q.value[0] = 100.0;
        q.value[1] = 100.0;
        q.now = 7;
        q.lastref[0] = 7;
        q.lastref[1] = 7;
        assert_eq!(q.cmp_kv(0, 1), std::cmp::Ordering::Equal);
        // Decayed by 2^-0.003: 100 * p is not a double; find its direction by hand.
        q.now = 10;
        let p = 0.5f64.powf(0.001 * 3.0);
        let ext = ext_product(p, 100.0);
        let dbl = round_to_double(ext);
        assert_ne!(ext, dbl, "100 * p needs more than 53 bits");
        assert_eq!(q.cmp_kv(0, 1), dbl.cmp(&ext));
        // The double product is the rounded extended one.
        let d = p * 100.0;
        assert_eq!(round_to_double(ext_product(d, 1.0)), dbl);
    }

    #[test]
    fn the_paper_type_refuses_the_queue_and_the_preset_builds_this_one() {
        use crate::cache::builder::build;
        use crate::cache::builder::TypeName;
        use crate::policy::lrfu::LrfuPolicy;
        use crate::policy::registry::Preset;
        let mut spec = PolicySpec::parse("lrfu").unwrap();
        assert!(build(&spec, 4, 4, TypeName)
            .unwrap()
            .ends_with("policy::lrfu::LrfuPolicy"));
        // The hybrid needs this queue: the paper's LRFU refuses it rather than drop it.
        spec.set("threshold", "auto").unwrap();
        let err = build(&spec, 4, 4, TypeName).unwrap_err().to_string();
        assert!(
            err.contains("lrfu.threshold") && err.contains("heap=accusim"),
            "{err}"
        );
        spec.params.clear();
        spec.preset = Preset::Accusim;
        let err = LrfuPolicy::from_spec(&spec, 4, 4)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("AccusimLrfu"), "{err}");
        assert!(build(&spec, 4, 4, TypeName)
            .unwrap()
            .ends_with("AccusimLrfu"));
        let p = AccusimLrfu::from_spec(&spec, 4, 4).unwrap();
        assert_eq!(p.queue.threshold, 10496);
        assert!(p.queue.x87 && p.prefetch_at_trigger);
        assert_eq!(p.queue.init, 100.0);
    }
}
