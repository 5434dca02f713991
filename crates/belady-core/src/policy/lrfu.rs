//! LRFU: Least Recently/Frequently Used.
//!
//! Paper: D. Lee, J. Choi, J.-H. Kim, S. H. Noh, S. L. Min, Y. Cho and C. S. Kim, "LRFU: A Spectrum
//! of Policies that Subsumes the Least Recently Used and Least Frequently Used Policies", IEEE
//! Transactions on Computers 50(12), 2001. Reference implementation consulted (for behaviour, not
//! code): AccuSim `sim/lrfu.cc` (Butt, Gniady and Hu's simulator, adapted from the authors' code).
//!
//! Every resident block `b` carries a Combined Recency and Frequency value
//! `CRF(b) = sum over its references at times t_i of F(t - t_i)`, with the weighing function
//! `F(x) = (1/2)^(lambda * x)`. On a reference at time `t` the paper's update is
//! `CRF = F(0) + F(t - LAST) * CRF` and `LAST = t`; a block entering the cache starts at
//! `CRF = F(0)`. The victim is the resident block with the smallest CRF *at the current time*.
//! History is kept only while a block is resident (the paper's "reference history recorded during
//! cache residency"): an evicted block restarts from `F(0)`. `lambda = 0` is LFU, `lambda = 1` is LRU.
//!
//! # No underflow: a time-invariant log-domain key
//! `(1/2)^(lambda * dt)` underflows to zero after about 1.07 M ticks at `lambda = 0.001`, after
//! which every old block would tie. Instead each block stores
//! `key(b) = log2(CRF(b) as of LAST(b)) + lambda * LAST(b)`. The CRF at any time `t` is
//! `2^(key - lambda * t)`, so comparing current CRFs is comparing keys, and the comparison does not
//! change as time advances: the heap stays valid between references. A reference at `t` computes
//! `key = lambda * t + log2(1 + 2^(key_old - lambda * t))` (the `2^` term is dropped once it is below
//! 2^-60, where it no longer changes the sum). Keys grow like `lambda * t`, so nothing overflows
//! or underflows; resolution is `lambda * t * 2^-52` in log2 units (1e-8 at 1e8 ticks with
//! `lambda = 1`).
//!
//! # Victim selection
//! An indexed binary min-heap ordered by `(key, seq)`, where `seq` increases with every insert and
//! reference: among equal keys the least recently referenced block goes first (documented LRU
//! tie-break). With it, `lambda = 1` is exactly LRU (a more recent block's key is never smaller,
//! and equal keys fall back to recency) and `lambda = 0` is exactly LFU with LRU among equal counts;
//! both are property-tested. Pinned blocks are skipped by a best-first walk down the heap from its
//! root, which leaves the heap untouched. The paper's and AccuSim's heap + LRU-list hybrid (blocks
//! older than a `threshold` kept in a list and evicted from it first) is an efficiency device
//! that is not order-preserving in general; the exact mode always evicts the true minimum
//! (`heap=accusim` with `threshold` reproduces the hybrid).
//!
//! # Prefetching (the prefetching study, Section 4)
//! A prefetched block ([`InsertKind::Prefetch`]) enters as the most recently accessed block with
//! `CRF = F(0)` and `LAST = now`. Its first demand access ([`Access::first_use`]) resets `CRF` to
//! `F(0)` with `LAST = now` instead of applying the update, so the block counts as seen once, not
//! twice. LRFU keeps no history of evicted blocks, so `Evicted::unused_prefetch` needs no
//! special case: nothing at all is remembered about an evicted block.
//!
//! # AccuSim departures (`--compat accusim`)
//! - `heap=accusim` ([`AccuQueue`]): AccuSim's queue: CRF values as doubles scaled by its `F(0)`
//!   (100 at lambda 0.001), decayed with `pow` at every comparison, in its 1-based heap whose
//!   sift-down moves exact ties down (right child on `>=`, swap on `>=`).
//! - `threshold` (only with `heap=accusim`): the paper's heap/LRU-list hybrid. At most
//!   `threshold` blocks in the heap; an entering block then takes the root's slot and the old
//!   root goes to an LRU list, from which victims are taken first; a block more than
//!   `threshold` ticks older compares as smaller. `auto` = AccuSim's
//!   `ceil(log_1/2(1 - 2^-lambda) / lambda)` (10,496 at 0.001; its disabled table lists 10,495).
//! - `float=x87`: comparisons as AccuSim's 32-bit x87 build makes them (first operand rounded
//!   to a double, second kept with a 64-bit mantissa), which decides exact ties by rounding.
//! - `prefetch_time=trigger`: a prefetch is stamped with its triggering reference's time.
//!
//! # Parameter
//! `lambda` in [0, 1], default 0.001 (the paper sweeps lambda; 0.001 is in its well-performing
//! range for the disk-block traces it studies, and is the prefetching study's Table 4 value).
//! AccuSim's optional `corperiod` and retained-history extensions are off in the study and are not
//! implemented.

use super::list::Lists;
use super::lru::last_unpinned;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};

use crate::frames::Frames;
use crate::policy::registry::PolicySpec;

const NOWHERE: u32 = u32::MAX;

/// Below this exponent, `1 + 2^d` rounds to 1 in f64.
const NEGLIGIBLE: f64 = -60.0;

/// One heap slot: the block's order key (the f64 key mapped to an ordered integer), its
/// recency stamp, and the block.
#[derive(Copy, Clone, Debug)]
struct Slot {
    ord: u64,
    seq: u64,
    block: Block,
}

impl Slot {
    #[inline]
    fn before(&self, other: &Slot) -> bool {
        (self.ord, self.seq) < (other.ord, other.seq)
    }
}

/// Maps a finite f64 to a u64 whose unsigned order is the float order.
#[inline]
fn ordered(x: f64) -> u64 {
    let bits = x.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// AccuSim's LRFU queue (`lrfu.cc`, after Sedgewick's priority queue): CRF values as plain
/// doubles scaled by `F(0)`, decayed with `pow` whenever two blocks are compared, in a 1-based
/// min-heap of at most `threshold` blocks; beyond it each insertion takes the heap root's slot
/// and pushes the old root onto an LRU list, from which victims are taken first.
struct AccuQueue {
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

/// Least Recently/Frequently Used replacement.
pub struct LrfuPolicy {
    lambda: f64,
    heap: Vec<Slot>,
    pos: Vec<u32>,
    key: Vec<f64>,
    last: Vec<u64>,
    seq: u64,
    frontier: Vec<usize>,
    /// `heap=accusim`: AccuSim's queue replaces the exact heap.
    accu: Option<AccuQueue>,
    /// `prefetch_time=trigger`: a prefetch carries its triggering reference's time.
    prefetch_at_trigger: bool,
}

impl LrfuPolicy {
    /// An empty LRFU with the given `lambda` over block ids `0..universe`.
    ///
    /// # Panics
    /// If `lambda` is not within [0, 1] (use [`LrfuPolicy::from_spec`] for user input).
    pub fn new(lambda: f64, universe: usize) -> Self {
        assert!((0.0..=1.0).contains(&lambda), "lambda must be in [0, 1]");
        LrfuPolicy {
            lambda,
            heap: Vec::new(),
            pos: vec![NOWHERE; universe],
            key: vec![0.0; universe],
            last: vec![0; universe],
            seq: 0,
            frontier: Vec::new(),
            accu: None,
            prefetch_at_trigger: false,
        }
    }

    /// Reads `lambda` from `spec`.
    pub fn from_spec(
        spec: &PolicySpec,
        _capacity: usize,
        universe: usize,
    ) -> crate::error::Result<Self> {
        let lambda = spec.f64("lambda", 0.0, 1.0)?;
        let mut p = LrfuPolicy::new(lambda, universe);
        let threshold = match spec.raw("threshold") {
            "none" => None,
            "auto" => hybrid_threshold(lambda),
            _ => Some(spec.usize("threshold", 1, u32::MAX as usize)?),
        };
        let x87 = spec.choice("float", &["double", "x87"])? == "x87";
        if spec.choice("heap", &["exact", "accusim"])? == "accusim" {
            p = p.with_accusim_queue(threshold, x87);
        } else if threshold.is_some() || x87 {
            // Name the parameter that needs the AccuSim queue.
            let key = if threshold.is_some() {
                "threshold"
            } else {
                "float"
            };
            return Err(crate::error::Error::config(
                &format!("--param lrfu.{key}"),
                spec.raw(key),
                "the heap/list hybrid and x87 comparisons need lrfu.heap=accusim",
            ));
        }
        p.prefetch_at_trigger = spec.choice("prefetch_time", &["next", "trigger"])? == "trigger";
        Ok(p)
    }

    /// Uses AccuSim's queue (doubles scaled by its `F(0)`, its sifting rules) with the heap/list
    /// hybrid bounded by `threshold` blocks (`None`: heap only).
    /// `x87` compares CRFs as AccuSim's 32-bit x87 build does.
    pub fn with_accusim_queue(mut self, threshold: Option<usize>, x87: bool) -> Self {
        let mut q = AccuQueue::new(self.lambda, threshold, self.pos.len());
        q.x87 = x87;
        self.accu = Some(q);
        self
    }

    /// Stamps prefetches with the time of their triggering reference.
    pub fn with_prefetch_at_trigger(mut self, on: bool) -> Self {
        self.prefetch_at_trigger = on;
        self
    }

    /// The weighing parameter.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// `log2 CRF(b)` at time `t` (not before the block's last reference), if `b` is resident.
    pub fn log2_crf_at(&self, b: Block, t: u64) -> Option<f64> {
        (self.pos[b as usize] != NOWHERE).then(|| self.key[b as usize] - self.lambda * t as f64)
    }

    /// `CRF(b)` at time `t`; may be 0 for long-idle blocks (use [`Self::log2_crf_at`] to compare).
    pub fn crf_at(&self, b: Block, t: u64) -> Option<f64> {
        self.log2_crf_at(b, t).map(f64::exp2)
    }

    /// Tick of the last reference (or insertion) of resident `b`.
    pub fn last_of(&self, b: Block) -> Option<u64> {
        (self.pos[b as usize] != NOWHERE).then(|| self.last[b as usize])
    }

    #[inline]
    fn stamp(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Sets `b`'s key and recency and restores heap order (the key only grows, so it sinks).
    #[inline]
    fn rekey(&mut self, b: Block, key: f64, tick: u64) {
        let i = b as usize;
        self.key[i] = key;
        self.last[i] = tick;
        let seq = self.stamp();
        let at = self.pos[i] as usize;
        self.heap[at].ord = ordered(key);
        self.heap[at].seq = seq;
        self.sift_down(at);
    }

    #[inline]
    fn place(&mut self, at: usize, slot: Slot) {
        self.pos[slot.block as usize] = at as u32;
        self.heap[at] = slot;
    }

    fn sift_up(&mut self, mut at: usize) {
        let slot = self.heap[at];
        while at > 0 {
            let parent = (at - 1) / 2;
            if !slot.before(&self.heap[parent]) {
                break;
            }
            let p = self.heap[parent];
            self.place(at, p);
            at = parent;
        }
        self.place(at, slot);
    }

    fn sift_down(&mut self, mut at: usize) {
        let slot = self.heap[at];
        let n = self.heap.len();
        loop {
            let left = 2 * at + 1;
            if left >= n {
                break;
            }
            let right = left + 1;
            let child = if right < n && self.heap[right].before(&self.heap[left]) {
                right
            } else {
                left
            };
            if !self.heap[child].before(&slot) {
                break;
            }
            let c = self.heap[child];
            self.place(at, c);
            at = child;
        }
        self.place(at, slot);
    }
}

impl Policy for LrfuPolicy {
    fn name(&self) -> &'static str {
        "lrfu"
    }

    #[inline]
    fn on_hit(&mut self, b: Block, cx: &Access) {
        if let Some(q) = &mut self.accu {
            q.reference(b, cx.tick as i64 + 1, cx.first_use);
            return;
        }
        let now = self.lambda * cx.tick as f64;
        let key = if cx.first_use {
            // The prefetching study: the first demand access is the block's first reference.
            now
        } else {
            let d = self.key[b as usize] - now;
            if d < NEGLIGIBLE {
                now
            } else {
                now + (1.0 + d.exp2()).log2()
            }
        };
        self.rekey(b, key, cx.tick);
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, cx: &Access) -> Option<Block> {
        if let Some(q) = &mut self.accu {
            // A prefetch happens at its trigger's time, one tick before the next reference.
            let now = if cx.prefetch && self.prefetch_at_trigger {
                cx.tick as i64
            } else {
                cx.tick as i64 + 1
            };
            return q.victim(frames, now);
        }
        let root = self.heap.first()?;
        if !frames.is_pinned(root.block) {
            return Some(root.block);
        }
        // Best-first walk from the root: the next candidate is always the smallest slot whose
        // ancestors are all pinned, so the first unpinned one found is the minimum unpinned.
        self.frontier.clear();
        self.frontier.push(0);
        while !self.frontier.is_empty() {
            let (k, &at) = self
                .frontier
                .iter()
                .enumerate()
                .min_by(|a, b| {
                    let (x, y) = (&self.heap[*a.1], &self.heap[*b.1]);
                    (x.ord, x.seq).cmp(&(y.ord, y.seq))
                })
                .expect("frontier is not empty");
            self.frontier.swap_remove(k);
            let b = self.heap[at].block;
            if !frames.is_pinned(b) {
                return Some(b);
            }
            for child in [2 * at + 1, 2 * at + 2] {
                if child < self.heap.len() {
                    self.frontier.push(child);
                }
            }
        }
        None
    }

    #[inline]
    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        if let Some(q) = &mut self.accu {
            q.leave(b);
            return;
        }
        let at = self.pos[b as usize] as usize;
        self.pos[b as usize] = NOWHERE;
        let last = self.heap.pop().expect("evicted block is in the heap");
        if at < self.heap.len() {
            self.place(at, last);
            self.sift_down(at);
            self.sift_up(self.pos[last.block as usize] as usize);
        }
    }

    #[inline]
    fn on_insert(&mut self, b: Block, kind: InsertKind, cx: &Access) {
        // The tick of the prefetch's triggering reference is one less than the next one's.
        let tick = if kind == InsertKind::Prefetch && self.prefetch_at_trigger {
            cx.tick.saturating_sub(1)
        } else {
            cx.tick
        };
        if let Some(q) = &mut self.accu {
            q.insert(b, tick as i64 + 1);
            return;
        }
        // Demand or prefetch alike: CRF = F(0) as of now, the most recently accessed block.
        let i = b as usize;
        let key = self.lambda * tick as f64;
        self.key[i] = key;
        self.last[i] = tick;
        let seq = self.stamp();
        self.heap.push(Slot {
            ord: ordered(key),
            seq,
            block: b,
        });
        let at = self.heap.len() - 1;
        self.pos[i] = at as u32;
        self.sift_up(at);
    }

    fn len(&self) -> usize {
        match &self.accu {
            Some(q) => q.used() + q.list.len(0),
            None => self.heap.len(),
        }
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        if let Some(q) = &self.accu {
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
            return Ok(());
        }
        check_same_residents(self.heap.iter().map(|s| s.block), frames)?;
        for (at, s) in self.heap.iter().enumerate() {
            let i = s.block as usize;
            if self.pos[i] as usize != at {
                return Err(format!(
                    "block {} at heap slot {at} but indexed at {}",
                    s.block, self.pos[i]
                ));
            }
            if !self.key[i].is_finite() || s.ord != ordered(self.key[i]) {
                return Err(format!(
                    "block {}: heap key out of date or not finite",
                    s.block
                ));
            }
            if s.seq == 0 || s.seq > self.seq {
                return Err(format!(
                    "block {}: recency stamp {} out of range",
                    s.block, s.seq
                ));
            }
            if at > 0 && s.before(&self.heap[(at - 1) / 2]) {
                return Err(format!("heap order broken at slot {at}"));
            }
            // CRF as of LAST is between F(0) = 1 and the sum of every possible reference.
            let log_crf = self.key[i] - self.lambda * self.last[i] as f64;
            if log_crf < -1e-9 * (1.0 + self.key[i].abs()) {
                return Err(format!(
                    "block {}: CRF below F(0) at its last reference",
                    s.block
                ));
            }
        }
        let indexed = self.pos.iter().filter(|&&p| p != NOWHERE).count();
        if indexed != self.heap.len() {
            return Err(format!(
                "{indexed} blocks indexed, heap holds {}",
                self.heap.len()
            ));
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        if let Some(q) = &self.accu {
            let mut list: Vec<Block> = q.list.iter(0).collect();
            list.reverse();
            let mut heap: Vec<Block> = q.pq[1..].to_vec();
            heap.sort_by(|&a, &b| q.keyvalue(a).total_cmp(&q.keyvalue(b)));
            return vec![("list_victim_first", list), ("heap_smallest_first", heap)];
        }
        let mut slots = self.heap.clone();
        slots.sort_unstable_by_key(|s| (s.ord, s.seq));
        vec![("victim_first", slots.into_iter().map(|s| s.block).collect())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::CacheLevel;
    use crate::policy::testutil::{pattern, run};
    use crate::policy::NEVER;
    use proptest::prelude::*;

    /// The definition, computed directly: per resident block the list of its reference times;
    /// the victim has the smallest sum of `(1/2)^(lambda (t - t_i))`, ties to the least recently
    /// referenced.
    struct Model {
        lambda: f64,
        cap: usize,
        /// (block, reference times during residency, recency stamp)
        resident: Vec<(u32, Vec<u64>, u64)>,
        seq: u64,
        hits: u64,
    }

    impl Model {
        fn new(lambda: f64, cap: usize) -> Model {
            Model {
                lambda,
                cap,
                resident: Vec::new(),
                seq: 0,
                hits: 0,
            }
        }

        fn crf(&self, times: &[u64], t: u64) -> f64 {
            times
                .iter()
                .map(|&ti| 0.5f64.powf(self.lambda * (t - ti) as f64))
                .sum()
        }

        fn access(&mut self, b: u32, t: u64) {
            self.seq += 1;
            if let Some(r) = self.resident.iter_mut().find(|r| r.0 == b) {
                self.hits += 1;
                r.1.push(t);
                r.2 = self.seq;
                return;
            }
            if self.resident.len() == self.cap {
                let (k, _) = self
                    .resident
                    .iter()
                    .enumerate()
                    .map(|(k, r)| (k, (self.crf(&r.1, t), r.2)))
                    .min_by(|a, b| a.1 .0.total_cmp(&b.1 .0).then(a.1 .1.cmp(&b.1 .1)))
                    .unwrap();
                self.resident.remove(k);
            }
            self.resident.push((b, vec![t], self.seq));
        }

        fn order(&self, t: u64) -> Vec<u32> {
            let mut v: Vec<(f64, u64, u32)> = self
                .resident
                .iter()
                .map(|r| (self.crf(&r.1, t), r.2, r.0))
                .collect();
            v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            v.into_iter().map(|x| x.2).collect()
        }
    }

    fn refs_strategy() -> impl Strategy<Value = Vec<u32>> {
        proptest::collection::vec(0u32..10, 1..200)
    }

    #[test]
    fn hand_worked_sequence_lambda_one_half() {
        // lambda = 0.5, cap 3. F(x) = 2^(-x/2).
        // t0 a(1) t1 b(2) t2 a: CRF(a) = 1 + 2^-1 = 1.5
        // t3 c(3): full now. t4 d(4): CRF at 4: a = 1.5 * 2^-1 = 0.75, b = 2^-1.5 = 0.354,
        //   c = 2^-0.5 = 0.707 -> evict b.
        // t5 b: at 5: a = 1.5 * 2^-1.5 = 0.530, c = 2^-1 = 0.5, d = 2^-0.5 -> evict c.
        // t6 a hit: CRF(a) = 1 + 1.5 * 2^-2 = 1.375.
        let refs = [1, 2, 1, 3, 4, 2, 1];
        assert_eq!(pattern(|| LrfuPolicy::new(0.5, 5), 3, &refs), "mmhmmmh");
        let level = run(LrfuPolicy::new(0.5, 5), 3, &refs);
        // At t = 7: a = 1.375 * 2^-0.5 = 0.972, b = 2^-1 = 0.5, d = 2^-1.5 = 0.354.
        assert_eq!(level.policy.dump()[0].1, vec![4, 2, 1]);
        let crf = level.policy.crf_at(1, 6).unwrap();
        assert!((crf - 1.375).abs() < 1e-12, "{crf}");
    }

    #[test]
    fn lfu_end_keeps_the_frequent_block_and_ties_go_lru() {
        // lambda = 0, cap 2: 1 1 2 | 3 evicts 2 (count 1 against 2) | 2 evicts 3 (count 1).
        let refs = [1, 1, 2, 3, 2];
        assert_eq!(pattern(|| LrfuPolicy::new(0.0, 4), 2, &refs), "mhmmm");
        let level = run(LrfuPolicy::new(0.0, 4), 2, &refs);
        assert_eq!(level.policy.dump()[0].1, vec![2, 1]);
        // Equal counts: the less recently referenced goes first.
        let level = run(LrfuPolicy::new(0.0, 5), 3, &[1, 2, 3, 4]);
        assert_eq!(level.policy.dump()[0].1, vec![2, 3, 4]);
    }

    #[test]
    fn prefetched_block_counts_once_on_first_use() {
        let mut level = CacheLevel::new(LrfuPolicy::new(0.0, 4), 3, 4);
        level.access(1, NEVER); // t0
        level.prefetch(2, NEVER); // CRF 1 at t1
        level.access(2, NEVER); // first use at t1: reset to F(0), not 2
        level.access(3, NEVER); // t2
        level.access(1, NEVER); // t3: CRF(1) = 2
        level.check().unwrap();
        // 2 and 3 both have count 1; 2 is the less recent.
        assert_eq!(level.policy.dump()[0].1, vec![2, 3, 1]);
    }

    #[test]
    fn unused_prefetch_leaves_no_history() {
        let mut level = CacheLevel::new(LrfuPolicy::new(0.0, 4), 1, 4);
        level.access(1, NEVER);
        level.access(1, NEVER);
        level.prefetch(2, NEVER); // evicts 1 (only frame)
        level.access(3, NEVER); // evicts the unused prefetch 2
        assert_eq!(level.stats().prefetch_unused_evicted, 1);
        level.access(2, NEVER); // a plain miss, restarting at F(0)
        assert_eq!(level.stats().hits, 1);
        assert_eq!(level.policy.log2_crf_at(2, level.tick() - 1), Some(0.0));
    }

    #[test]
    fn no_underflow_on_a_long_run() {
        // lambda = 0.001. Block 0 is referenced 1000 times, block 1 once, then 2 M references to
        // block 2. Afterwards both CRFs are below 2^-1500 (0 in plain f64), yet block 0's CRF is
        // about 600 times block 1's: a new block must evict 1, not 0.
        let mut level = CacheLevel::new(LrfuPolicy::new(0.001, 4), 3, 4);
        for _ in 0..1000 {
            level.access(0, NEVER);
        }
        level.access(1, NEVER);
        for _ in 0..2_000_000 {
            level.access(2, NEVER);
        }
        let t = level.tick();
        let p = &level.policy;
        let (l0, l1) = (p.log2_crf_at(0, t).unwrap(), p.log2_crf_at(1, t).unwrap());
        assert!(l0 < -1500.0 && l1 < -1500.0, "{l0} {l1}");
        assert!(
            p.crf_at(0, t).unwrap() == 0.0,
            "plain f64 would underflow here"
        );
        assert!(l0 - l1 > 9.0 && l0 - l1 < 10.0, "{}", l0 - l1);
        // CRF(2) has converged to 1 / (1 - 2^-0.001).
        let l2 = p.log2_crf_at(2, t - 1).unwrap();
        let limit = (1.0 / (1.0 - 0.5f64.powf(0.001))).log2();
        assert!((l2 - limit).abs() < 1e-9, "{l2} {limit}");
        level.access(3, NEVER);
        level.check().unwrap();
        assert!(level.frames().is_resident(0));
        assert!(!level.frames().is_resident(1));
    }

    #[test]
    fn pinned_minimum_is_skipped() {
        let mut level = CacheLevel::new(LrfuPolicy::new(0.0, 6), 3, 6);
        for b in [1, 2, 2, 3, 3, 3] {
            level.access(b, NEVER);
        }
        level.set_pinned(1, true);
        level.access(4, NEVER); // 1 (count 1) pinned: next smallest is 2 (count 2)
        assert!(level.frames().is_resident(1) && !level.frames().is_resident(2));
        level.set_pinned(4, true);
        level.set_pinned(3, true);
        level.access(5, NEVER);
        assert_eq!(level.stats().bypassed, 1);
        level.check().unwrap();
    }

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
        let make = || LrfuPolicy::new(1.0, 8).with_accusim_queue(Some(2), false);
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
            LrfuPolicy::new(0.5, 8)
                .with_accusim_queue(None, false)
                .with_prefetch_at_trigger(true),
            2,
            8,
        );
        level.access(1, NEVER);
        level.prefetch(2, NEVER);
        let q = level.policy.accu.as_ref().unwrap();
        assert_eq!((q.lastref[1], q.lastref[2]), (1, 1));
        // t2: first use of 2: CRF reset to F(0) at t2 (not F(0) + decayed F(0)).
        level.access(2, NEVER);
        let q = level.policy.accu.as_ref().unwrap();
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
    fn from_spec_validates_lambda() {
        let mut spec = PolicySpec::parse("lrfu").unwrap();
        assert_eq!(LrfuPolicy::from_spec(&spec, 4, 4).unwrap().lambda(), 0.001);
        spec.set("lambda", "1.5").unwrap();
        assert!(LrfuPolicy::from_spec(&spec, 4, 4).is_err());
        spec.set("lambda", "x").unwrap();
        assert!(LrfuPolicy::from_spec(&spec, 4, 4).is_err());
        // The hybrid needs AccuSim's queue; the accusim preset turns both on.
        let mut spec = PolicySpec::parse("lrfu").unwrap();
        spec.set("threshold", "auto").unwrap();
        assert!(LrfuPolicy::from_spec(&spec, 4, 4).is_err());
        spec.set("heap", "accusim").unwrap();
        let p = LrfuPolicy::from_spec(&spec, 4, 4).unwrap();
        assert_eq!(p.accu.as_ref().unwrap().threshold, 10496);
    }

    proptest! {
        #[test]
        fn lambda_one_is_lru(cap in 1usize..6, refs in refs_strategy()) {
            let level = run(LrfuPolicy::new(1.0, 10), cap, &refs);
            let mut model: Vec<u32> = Vec::new();
            let mut hits = 0;
            for &b in &refs {
                if let Some(p) = model.iter().position(|&x| x == b) {
                    hits += 1;
                    model.remove(p);
                } else if model.len() == cap {
                    model.pop();
                }
                model.insert(0, b);
            }
            model.reverse();
            prop_assert_eq!(level.stats().hits, hits);
            prop_assert_eq!(&level.policy.dump()[0].1, &model);
        }

        #[test]
        fn lambda_zero_is_lfu_with_lru_ties(cap in 1usize..6, refs in refs_strategy()) {
            let level = run(LrfuPolicy::new(0.0, 10), cap, &refs);
            // (block, count, last reference index)
            let mut model: Vec<(u32, u64, usize)> = Vec::new();
            let mut hits = 0;
            for (i, &b) in refs.iter().enumerate() {
                if let Some(r) = model.iter_mut().find(|r| r.0 == b) {
                    hits += 1;
                    r.1 += 1;
                    r.2 = i;
                    continue;
                }
                if model.len() == cap {
                    let k = (0..model.len()).min_by_key(|&k| (model[k].1, model[k].2)).unwrap();
                    model.remove(k);
                }
                model.push((b, 1, i));
            }
            model.sort_by_key(|r| (r.1, r.2));
            let order: Vec<u32> = model.iter().map(|r| r.0).collect();
            prop_assert_eq!(level.stats().hits, hits);
            prop_assert_eq!(&level.policy.dump()[0].1, &order);
        }

        #[test]
        fn matches_the_definition(
            lambda in prop_oneof![Just(0.001), Just(0.01), Just(0.1), Just(0.3), Just(0.5), Just(0.7), Just(0.9)],
            cap in 1usize..6,
            refs in refs_strategy(),
        ) {
            let level = run(LrfuPolicy::new(lambda, 10), cap, &refs);
            let mut model = Model::new(lambda, cap);
            for (t, &b) in refs.iter().enumerate() {
                model.access(b, t as u64);
            }
            prop_assert_eq!(level.stats().hits, model.hits);
            prop_assert_eq!(&level.policy.dump()[0].1, &model.order(refs.len() as u64));
        }
    }
}
