//! CLOCK-Pro: LIRS's reuse-distance classification on a clock with three hands.
//!
//! Song Jiang, Feng Chen and Xiaodong Zhang, "CLOCK-Pro: An Effective Improvement of the CLOCK
//! Replacement", USENIX ATC 2005. Reference implementation followed step by step: the authors'
//! simulator `clock-pro.c` (Song Jiang, 9/29/05, kept in ben-manes/caffeine's simulator
//! resources), in both its modes: adaptive cold allocation (`ADAPTIVE_COLD_ALLOC`, the paper's
//! section 4.4) and the fixed allocation it is compiled with by default. Also consulted:
//! Caffeine's `ClockProPolicy` (a re-formulation with an explicit cold target) and libCacheSim's
//! `ClockPro.c` (a different variant, see docs/policies/clock-pro.md).
//!
//! One circular list holds hot pages, resident cold pages and non-resident cold pages in their
//! test period, in the order the hands last passed or inserted them. Hits only set a reference
//! bit. On a miss:
//! - HAND_cold looks for a victim from the oldest resident cold page: a page with the bit clear
//!   or out of its test period is evicted (it stays as a non-resident page if it was in its test
//!   period). A page with the bit set and in its test period is promoted to hot, and HAND_hot
//!   turns the oldest hot page with a clear bit into a cold page (hot pages with the bit set are
//!   spared with the bit cleared). If HAND_hot reaches the page first, the page's test period has
//!   ended and it is evicted instead.
//! - HAND_test terminates test periods and drops non-resident pages; it runs when HAND_hot passes
//!   it and whenever there are more non-resident pages than the bound (`nonresident` × m).
//! - The missed page, if it is a non-resident page still in the clock, becomes hot (with a
//!   HAND_hot run); otherwise it enters at the head as a resident cold page in its test period.
//! - Initial fill: the first `m − min_cold` missed pages become hot, the rest cold.
//!
//! Adaptation (`adaptive = true`, the paper): a cold page re-accessed in its test period adds a
//! credit towards more cold pages; a test period ending without access removes one. As in the
//! authors' code the credits are spent when HAND_cold meets a referenced cold page in its test
//! period: with negative credit the page is promoted without demoting a hot page, with positive
//! credit a hot page is demoted without promoting this one (it gets a new test period and keeps
//! its bit); credit is cleared whenever the cold allocation `m − hot` reaches the band
//! [`cold_min`, `cold_max`] × m (each at least `cold_floor` pages). With `adaptive = false` the
//! credit stays 0 and the cold allocation is fixed at `cold_min` (the authors' compiled default:
//! 5 %, at least 2).
//!
//! Documented choices:
//! - The authors' code, in the positive-credit case, sets the reference bit of the page the hand
//!   moves on to, although its comment says the moved page keeps its bit. We follow the comment
//!   (the moved page keeps its bit) by default; `authors_bit = true` reproduces the code.
//! - `cold_max` is capped at m − 1 so a hot page always remains (with none, the authors' HAND_hot
//!   loop would not terminate).
//! - `skip_dup`: the authors' simulator ignores a reference equal to the previous one, so a miss
//!   followed by the same page does not set its bit. Default on.
//! - Prefetching (not covered by the paper): a prefetched page enters at the head as a resident
//!   cold page in its test period with the bit clear (never hot, even during the initial fill);
//!   a non-resident entry it had is dropped first (a prefetch is not a reference). Its first
//!   demand access sets the bit like any hit. A prefetched page evicted unused leaves the clock
//!   (no non-resident entry).
//! - Pinned pages are passed over by HAND_cold unchanged; if every resident cold page is pinned,
//!   the oldest unpinned page in the clock is evicted.

mod ring;

use super::registry::PolicySpec;
use super::{Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;
use crate::error::Result;

use ring::{Ring, BIT_FLAG, COLD, GHOST, HOT, KIND_MASK, NIL, PIN_FLAG, TEST_FLAG};

/// CLOCK-Pro with hot, cold and test hands.
pub struct ClockProPolicy {
    ring: Ring,
    /// Hands, as slots (`NIL` for none).
    hand_hot: u32,
    hand_cold: u32,
    hand_test: u32,
    n_hot: usize,
    n_cold: usize,
    /// Cold pages whose I/O is in flight: when all cold pages are, no cold victim exists.
    n_cold_pinned: usize,
    n_ghost: usize,
    m: usize,
    min_cold: usize,
    max_cold: usize,
    max_nonres: usize,
    adaptive: bool,
    credits: i64,
    authors_bit: bool,
    skip_dup: bool,
    last: Option<Block>,
    evicted: bool,
    /// Slot of the page `select_victim` last returned, to spare `on_evict` a table lookup.
    victim: u32,
}

impl ClockProPolicy {
    /// Builds CLOCK-Pro from its parameters.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> Result<Self> {
        let adaptive = spec.bool("adaptive")?;
        let cold_min = spec.f64("cold_min", 0.0, 1.0)?;
        let cold_max = spec.f64("cold_max", 0.0, 1.0)?;
        let floor = spec.usize("cold_floor", 1, usize::MAX)?;
        let nonres = spec.f64("nonresident", 0.0, 1e6)?;
        let authors_bit = spec.bool("authors_bit")?;
        let skip_dup = spec.bool("skip_dup")?;
        let mut p = Self::new(
            capacity, universe, adaptive, cold_min, cold_max, floor, nonres, skip_dup,
        );
        p.authors_bit = authors_bit;
        Ok(p)
    }

    /// CLOCK-Pro for `capacity` pages (see the module notes for the parameters).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        capacity: usize,
        universe: usize,
        adaptive: bool,
        cold_min: f64,
        cold_max: f64,
        cold_floor: usize,
        nonresident: f64,
        skip_dup: bool,
    ) -> Self {
        let m = capacity.max(1);
        let min_cold = ((cold_min * m as f64) as usize).max(cold_floor).clamp(1, m);
        let max_cold = if cold_max < cold_min {
            min_cold
        } else {
            ((cold_max * m as f64) as usize).max(cold_floor)
        };
        let max_cold = max_cold.min(m.saturating_sub(1)).max(min_cold);
        let max_nonres = (nonresident * m as f64) as usize;
        ClockProPolicy {
            ring: Ring::new(universe, m.saturating_add(max_nonres).saturating_add(1)),
            hand_hot: NIL,
            hand_cold: NIL,
            hand_test: NIL,
            n_hot: 0,
            n_cold: 0,
            n_cold_pinned: 0,
            n_ghost: 0,
            m,
            min_cold,
            max_cold,
            max_nonres,
            adaptive,
            credits: 0,
            authors_bit: false,
            skip_dup,
            last: None,
            evicted: false,
            victim: NIL,
        }
    }

    /// The cold allocation band `[min, max]` in pages.
    pub fn cold_band(&self) -> (usize, usize) {
        (self.min_cold, self.max_cold)
    }

    /// Number of hot pages.
    pub fn hot_pages(&self) -> usize {
        self.n_hot
    }

    #[inline]
    fn kind(&self, s: u32) -> u8 {
        self.ring.node(s).state & KIND_MASK
    }

    #[inline]
    fn set_kind(&mut self, s: u32, kind: u8) {
        let st = &mut self.ring.node_mut(s).state;
        let was_cold = *st & KIND_MASK == COLD;
        let pinned = *st & PIN_FLAG != 0;
        *st = (*st & !KIND_MASK) | kind;
        if pinned && was_cold != (kind == COLD) {
            if was_cold {
                self.n_cold_pinned -= 1;
            } else {
                self.n_cold_pinned += 1;
            }
        }
    }

    #[inline]
    fn has(&self, s: u32, flag: u8) -> bool {
        self.ring.node(s).state & flag != 0
    }

    #[inline]
    fn set_flag(&mut self, s: u32, flag: u8) {
        self.ring.node_mut(s).state |= flag;
    }

    #[inline]
    fn clear_flags(&mut self, s: u32, flags: u8) {
        self.ring.node_mut(s).state &= !flags;
    }

    /// Next page in the hands' direction (from older towards newer, wrapping at the head).
    #[inline]
    fn succ(&self, s: u32) -> u32 {
        self.ring.node(s).fwd
    }

    /// Previous page in the hands' direction.
    #[inline]
    fn pred(&self, s: u32) -> u32 {
        self.ring.node(s).bwd
    }

    /// The first resident cold page at or after `s` (from the oldest page for `NIL`). Every
    /// hand stays on a page in the clock, so `s` is one.
    #[inline]
    fn next_cold_from(&self, s: u32) -> u32 {
        if self.n_cold == 0 {
            return NIL;
        }
        let mut c = if s == NIL { self.ring.tail() } else { s };
        while self.kind(c) != COLD {
            c = self.succ(c);
        }
        c
    }

    /// Moves the hot and test hands off slot `s` (about to leave its place) to the next page;
    /// with `s` the only page, they are cleared.
    #[inline]
    fn move_hands_off(&mut self, s: u32) {
        if self.ring.len > 1 {
            let next = self.succ(s);
            if self.hand_hot == s {
                self.hand_hot = next;
            }
            if self.hand_test == s {
                self.hand_test = next;
            }
        } else {
            self.hand_hot = NIL;
            self.hand_test = NIL;
        }
    }

    /// Takes `s` out of the clock, moving any hand on it to the next page first.
    fn unlink(&mut self, s: u32) {
        self.move_hands_off(s);
        self.ring.remove(s);
        if self.hand_cold == s {
            self.hand_cold = NIL;
        }
    }

    /// Puts block `b` (outside the clock) at the head; returns its slot.
    #[inline]
    fn push_head(&mut self, b: Block, state: u8) -> u32 {
        let s = self.ring.push_head(b, state);
        if self.hand_hot == NIL {
            self.hand_hot = s;
        }
        if self.hand_test == NIL {
            self.hand_test = s;
        }
        s
    }

    /// Moves resident `s` to the head, clearing its bit and test period as the authors do.
    #[inline]
    fn move_to_head(&mut self, s: u32) {
        self.move_hands_off(s);
        if self.ring.len > 1 {
            self.ring.detach(s);
            self.ring.attach_head(s);
        } else {
            // The only page is the head already; the hands come back to it.
            self.hand_hot = s;
            self.hand_test = s;
        }
        self.clear_flags(s, TEST_FLAG | BIT_FLAG);
    }

    /// Drops non-resident `s` from the clock entirely.
    fn forget(&mut self, s: u32) {
        self.unlink(s);
        self.n_ghost -= 1;
    }

    /// HAND_test: with `step`, terminate the test period at the hand and move one page; then, if
    /// there are too many non-resident pages, run to the next one and drop it.
    fn run_hand_test(&mut self, step: bool) {
        if step {
            let t = self.hand_test;
            if t == NIL {
                return;
            }
            let next = self.succ(t);
            match self.kind(t) {
                GHOST => {
                    if self.adaptive {
                        self.credits -= 1;
                    }
                    self.hand_test = next;
                    self.forget(t);
                }
                COLD => {
                    self.clear_flags(t, TEST_FLAG | BIT_FLAG);
                    self.hand_test = next;
                }
                _ => self.hand_test = next,
            }
        }
        if self.n_ghost > self.max_nonres {
            debug_assert_ne!(self.hand_test, NIL, "ring not empty");
            let mut t = self.hand_test;
            loop {
                let n = self.ring.node_mut(t);
                match n.state & KIND_MASK {
                    GHOST => break,
                    COLD => n.state &= !(TEST_FLAG | BIT_FLAG),
                    _ => {}
                }
                t = n.fwd;
            }
            if self.adaptive {
                self.credits -= 1;
            }
            self.hand_test = self.succ(t);
            self.forget(t);
        }
    }

    /// HAND_hot, triggered by cold page `trigger`. Returns 0 if a hot page was demoted before the
    /// hand reached `trigger`, 1 if it reached `trigger` without demoting, 2 if both.
    fn run_hand_hot(&mut self, trigger: u32) -> u8 {
        let (mut done, mut matched, mut demoted) = (false, false, false);
        let mut h = if self.hand_hot == NIL {
            self.ring.tail()
        } else {
            self.hand_hot
        };
        loop {
            let kind = self.kind(h);
            if done && (kind == HOT || self.n_hot == 0) {
                break;
            }
            if kind == HOT {
                if self.has(h, BIT_FLAG) {
                    self.clear_flags(h, BIT_FLAG);
                } else {
                    self.set_kind(h, COLD);
                    self.n_hot -= 1;
                    self.n_cold += 1;
                    done = true;
                    demoted = true;
                }
                let moved = h;
                h = self.succ(moved);
                if self.hand_test == moved {
                    self.hand_test = h;
                }
                self.hand_hot = h;
                self.move_to_head(moved);
                if self.hand_cold == NIL && self.kind(moved) == COLD {
                    self.hand_cold = moved;
                }
            } else {
                if h == trigger {
                    done = true;
                    matched = true;
                }
                h = self.succ(h);
            }
            self.hand_hot = h;
            if self.pred(h) == self.hand_test {
                self.run_hand_test(true);
                if self.ring.len == 0 {
                    break;
                }
                if self.hand_hot != NIL {
                    h = self.hand_hot;
                }
            }
        }
        match (matched, demoted) {
            (true, true) => 2,
            (true, false) => 1,
            _ => 0,
        }
    }

    /// Turns resident cold `s` into a hot page at the head.
    fn promote_at_head(&mut self, s: u32) {
        self.move_to_head(s);
        self.set_kind(s, HOT);
        self.n_cold -= 1;
        self.n_hot += 1;
    }

    #[inline]
    fn is_duplicate(&mut self, b: Block) -> bool {
        if self.skip_dup && self.last == Some(b) {
            return true;
        }
        self.last = Some(b);
        false
    }

    /// Any unpinned resident page, oldest first, cold before hot.
    fn fallback_victim(&self, frames: &Frames) -> u32 {
        let mut hot = NIL;
        let mut s = self.ring.tail();
        for _ in 0..self.ring.len {
            let n = self.ring.node(s);
            if !frames.is_pinned(n.block) {
                match n.state & KIND_MASK {
                    COLD => return s,
                    // No cold page is free, so the first free hot page is the answer.
                    HOT if self.n_cold_pinned == self.n_cold => return s,
                    HOT if hot == NIL => hot = s,
                    _ => {}
                }
            }
            s = n.fwd;
        }
        hot
    }

    /// Block in slot `s`, `None` for `NIL`.
    #[inline]
    fn block_at(&self, s: u32) -> Option<Block> {
        (s != NIL).then(|| self.ring.node(s).block)
    }

    /// Inserts `b` at the head as a resident cold page in its test period, bit clear.
    fn insert_cold(&mut self, b: Block) {
        let s = self.push_head(b, COLD | TEST_FLAG);
        self.n_cold += 1;
        if self.hand_cold == NIL {
            self.hand_cold = s;
        }
    }
}

impl Policy for ClockProPolicy {
    fn name(&self) -> &'static str {
        "clock-pro"
    }

    #[inline]
    fn on_hit(&mut self, b: Block, _cx: &Access) {
        if !self.is_duplicate(b) {
            let s = self.ring.slot(b);
            self.set_flag(s, BIT_FLAG);
        }
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        if self.n_cold > 0 && self.n_cold_pinned == self.n_cold {
            // Every cold page's I/O is in flight: the cold hand would only circle them.
            self.victim = self.fallback_victim(frames);
            return self.block_at(self.victim);
        }
        let mut budget = 8 * self.ring.len + 64;
        let mut c = self.next_cold_from(self.hand_cold);
        while c != NIL {
            if budget == 0 {
                break;
            }
            budget -= 1;
            let hc = c;
            self.hand_cold = hc;
            if frames.is_pinned(self.ring.node(hc).block) {
                let n = self.succ(hc);
                c = self.next_cold_from(if n != hc { n } else { NIL });
                if c == hc {
                    break;
                }
                continue;
            }
            if !self.has(hc, BIT_FLAG) || !self.has(hc, TEST_FLAG) {
                self.victim = hc;
                return Some(self.ring.node(hc).block);
            }
            // A referenced cold page in its test period.
            if self.credits > 0 && self.m - self.n_hot >= self.max_cold {
                self.credits = 0;
            }
            if self.credits < 0 && self.m - self.n_hot <= self.min_cold {
                self.credits = 0;
            }
            let mut next = None;
            if self.credits < 0 {
                next = Some(self.succ(hc));
                self.promote_at_head(hc);
                self.clear_flags(hc, BIT_FLAG);
                self.credits += 1;
            } else if self.credits > 0 {
                let matched = self.run_hand_hot(hc);
                if matched == 0 {
                    let n = self.succ(hc);
                    next = Some(n);
                    self.move_to_head(hc);
                    if self.authors_bit {
                        if matches!(self.kind(n), HOT | COLD) {
                            self.set_flag(n, BIT_FLAG);
                        }
                    } else {
                        self.set_flag(hc, BIT_FLAG);
                    }
                    self.set_flag(hc, TEST_FLAG);
                    self.credits -= 1;
                } else {
                    self.clear_flags(hc, BIT_FLAG);
                    if matched == 2 {
                        self.credits -= 1;
                    }
                }
            } else {
                let matched = self.run_hand_hot(hc);
                if matched != 1 {
                    next = Some(self.succ(hc));
                    self.promote_at_head(hc);
                }
            }
            c = match next {
                Some(n) if n != hc => self.next_cold_from(n),
                Some(_) => self.next_cold_from(NIL),
                None => hc,
            };
        }
        self.hand_cold = c;
        self.victim = self.fallback_victim(frames);
        self.block_at(self.victim)
    }

    fn on_evict(&mut self, b: Block, ev: Evicted, _cx: &Access) {
        self.evicted = true;
        if self.last == Some(b) {
            self.last = None;
        }
        let s = match self.victim {
            v if v != NIL && self.ring.node(v).block == b && self.kind(v) != GHOST => v,
            _ => self.ring.slot(b),
        };
        self.victim = NIL;
        let was_hand = self.hand_cold == s;
        let next = if self.ring.len > 1 { self.succ(s) } else { NIL };
        if self.kind(s) == HOT {
            self.n_hot -= 1;
            self.unlink(s);
        } else {
            self.n_cold -= 1;
            if self.has(s, TEST_FLAG) && !ev.unused_prefetch {
                self.set_kind(s, GHOST);
                self.clear_flags(s, BIT_FLAG);
                self.n_ghost += 1;
            } else {
                self.unlink(s);
            }
        }
        if was_hand || self.hand_cold == NIL {
            self.hand_cold = self.next_cold_from(if next != s { next } else { NIL });
        }
        if self.ring.len != 0 {
            self.run_hand_test(false);
        }
        if self.hand_cold != NIL && self.kind(self.hand_cold) != COLD {
            self.hand_cold = self.next_cold_from(self.hand_cold);
        }
    }

    fn on_pin(&mut self, b: Block, pinned: bool) {
        let s = self.ring.slot(b);
        if s == NIL || self.ring.node(s).block != b || self.kind(s) == GHOST {
            return;
        }
        if pinned {
            self.set_flag(s, PIN_FLAG);
        } else {
            self.clear_flags(s, PIN_FLAG);
        }
        if self.kind(s) == COLD {
            if pinned {
                self.n_cold_pinned += 1;
            } else {
                self.n_cold_pinned -= 1;
            }
        }
    }

    fn on_insert(&mut self, b: Block, kind: InsertKind, _cx: &Access) {
        let evicted = std::mem::replace(&mut self.evicted, false);
        let free_before = if evicted {
            0
        } else {
            self.m - self.n_hot - self.n_cold
        };
        // `b` is not resident, so if it is in the clock it is a non-resident page.
        let ghost = self.ring.slot(b);
        if kind == InsertKind::Prefetch {
            if ghost != NIL {
                self.forget(ghost);
            }
            self.insert_cold(b);
            return;
        }
        self.last = Some(b);
        if free_before > self.min_cold {
            if ghost != NIL {
                self.forget(ghost);
            }
            self.push_head(b, HOT);
            self.n_hot += 1;
            return;
        }
        if ghost == NIL {
            self.insert_cold(b);
            return;
        }
        let matched = self.run_hand_hot(ghost);
        // HAND_test, dragged along, may have dropped `b` from the clock.
        let still_ghost = self.ring.slot(b) != NIL;
        if matched == 1 || (!still_ghost && matched != 2) {
            if still_ghost {
                self.forget(ghost);
            }
            self.insert_cold(b);
            return;
        }
        if self.adaptive {
            self.credits += 1;
        }
        if still_ghost {
            self.forget(ghost);
        }
        self.push_head(b, HOT);
        self.n_hot += 1;
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Err("its hot/cold allocation and test period count pages")
    }

    fn len(&self) -> usize {
        self.n_hot + self.n_cold
    }

    fn check_invariants(&self, frames: &Frames) -> std::result::Result<(), String> {
        self.ring.check()?;
        let (mut hot, mut cold, mut ghost, mut cold_pinned) = (0, 0, 0, 0);
        for i in 0..frames.universe() {
            let b = i as Block;
            let res = frames.is_resident(b);
            let s = self.ring.slot_of.get(i).copied().unwrap_or(NIL);
            let (k, test, bit) = if s == NIL {
                (0, false, false)
            } else {
                (self.kind(s), self.has(s, TEST_FLAG), self.has(s, BIT_FLAG))
            };
            let ok = match k {
                0 => s == NIL && !res,
                HOT => {
                    hot += 1;
                    res && !test
                }
                COLD => {
                    cold += 1;
                    res
                }
                GHOST => {
                    ghost += 1;
                    !res && test && !bit
                }
                _ => false,
            };
            if !ok {
                return Err(format!(
                    "page {b}: kind {k} in_clock={} resident={res} test={test} bit={bit}",
                    s != NIL
                ));
            }
            let pin_flag = s != NIL && self.has(s, PIN_FLAG);
            if res && pin_flag != frames.is_pinned(b) {
                return Err(format!(
                    "page {b}: pin flag {pin_flag} disagrees with the frame table"
                ));
            }
            cold_pinned += usize::from(k == COLD && pin_flag);
        }
        if cold_pinned != self.n_cold_pinned {
            return Err(format!(
                "{cold_pinned} pinned cold pages, recorded {}",
                self.n_cold_pinned
            ));
        }
        if (hot, cold, ghost) != (self.n_hot, self.n_cold, self.n_ghost) {
            return Err(format!(
                "counted hot/cold/non-resident {hot}/{cold}/{ghost}, recorded {}/{}/{}",
                self.n_hot, self.n_cold, self.n_ghost
            ));
        }
        if hot + cold != frames.len() || self.ring.len != hot + cold + ghost {
            return Err("resident count or ring length disagrees".into());
        }
        if ghost > self.max_nonres {
            return Err(format!(
                "{ghost} non-resident pages exceed {}",
                self.max_nonres
            ));
        }
        let in_clock = |s: u32| s != NIL && self.ring.iter().any(|x| x == s);
        if self.hand_cold != NIL && (!in_clock(self.hand_cold) || self.kind(self.hand_cold) != COLD)
        {
            return Err(format!(
                "HAND_cold on slot {}, not a resident cold page",
                self.hand_cold
            ));
        }
        if self.hand_cold == NIL && cold > 0 {
            return Err("resident cold pages but no HAND_cold".into());
        }
        for h in [self.hand_hot, self.hand_test] {
            if h != NIL && !in_clock(h) {
                return Err(format!(
                    "a hand points at slot {h}, which is not in the clock"
                ));
            }
        }
        if self.ring.len != 0 && (self.hand_hot == NIL || self.hand_test == NIL) {
            return Err("HAND_hot or HAND_test missing".into());
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        let order: Vec<u32> = self.ring.iter().collect();
        let pick = |f: &dyn Fn(u32) -> bool| {
            order
                .iter()
                .copied()
                .filter(|&s| f(s))
                .map(|s| self.ring.node(s).block)
                .collect()
        };
        vec![
            ("head_to_tail", pick(&|_| true)),
            ("hot", pick(&|s| self.kind(s) == HOT)),
            ("cold_resident", pick(&|s| self.kind(s) == COLD)),
            ("nonresident", pick(&|s| self.kind(s) == GHOST)),
            ("in_test", pick(&|s| self.has(s, TEST_FLAG))),
            ("referenced", pick(&|s| self.has(s, BIT_FLAG))),
            (
                "hands_hot_cold_test",
                [self.hand_hot, self.hand_cold, self.hand_test]
                    .into_iter()
                    .map(|h| self.block_at(h).unwrap_or(Block::MAX))
                    .collect(),
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::testutil::{pattern, run};
    use crate::policy::NEVER;
    use proptest::prelude::*;

    /// m = 4, fixed allocation of 2 cold pages, at most 4 non-resident pages.
    fn fixed() -> ClockProPolicy {
        ClockProPolicy::new(4, 10, false, 0.0, 0.0, 2, 1.0, true)
    }

    fn get(p: &ClockProPolicy, name: &str) -> Vec<Block> {
        p.dump().into_iter().find(|(n, _)| *n == name).unwrap().1
    }

    #[test]
    fn hand_worked_sequence() {
        // 1 2 fill the hot allocation, 3 4 the cold one (in test). 3 hits (bit set).
        // 5: HAND_cold finds 3 referenced in its test: HAND_hot demotes 1 (bit clear), 3 becomes
        //    hot; 4 (bit clear, in test) is evicted and stays as a non-resident page.
        // 4: HAND_cold evicts 1 (cold, not in test: leaves the clock). 4 is non-resident in its
        //    test: HAND_hot demotes 2, then reaches 4 and HAND_test, dragged along, ends 4's test
        //    period; since a page was demoted, 4 still becomes hot (the authors' "matched and
        //    demoted" case).
        // 5 hits. 6: HAND_cold at 5 (referenced, in test): HAND_hot demotes 3, reaches 5 and
        //    ends its test and that of 2; 5 is promoted; 2 (not in test) is evicted.
        let refs = [1, 2, 3, 4, 3, 5, 4, 5, 6];
        assert_eq!(pattern(fixed, 4, &refs), "mmmmhmmhm");
        let p = run(fixed(), 4, &refs[..6]).policy;
        assert_eq!(get(&p, "head_to_tail"), vec![5, 3, 1, 4, 2]);
        assert_eq!(get(&p, "hot"), vec![3, 2]);
        assert_eq!(get(&p, "cold_resident"), vec![5, 1]);
        assert_eq!(get(&p, "nonresident"), vec![4]);
        assert_eq!(get(&p, "hands_hot_cold_test"), vec![2, 1, 2]);
        let p = run(fixed(), 4, &refs[..7]).policy;
        assert_eq!(get(&p, "head_to_tail"), vec![4, 2, 5, 3]);
        assert_eq!(get(&p, "hot"), vec![4, 3]);
        assert_eq!(get(&p, "in_test"), vec![5]);
        let p = run(fixed(), 4, &refs).policy;
        assert_eq!(get(&p, "head_to_tail"), vec![6, 5, 3, 4]);
        assert_eq!(get(&p, "hot"), vec![5, 4]);
        assert_eq!(get(&p, "cold_resident"), vec![6, 3]);
        assert_eq!(get(&p, "in_test"), vec![6]);
        assert_eq!(get(&p, "hands_hot_cold_test"), vec![4, 3, 4]);
    }

    #[test]
    fn duplicate_after_a_miss_does_not_set_the_bit_when_skipped() {
        let refs = [1, 2, 3, 4, 4];
        assert_eq!(
            get(&run(fixed(), 4, &refs).policy, "referenced"),
            Vec::<Block>::new()
        );
        let no_skip = ClockProPolicy::new(4, 10, false, 0.0, 0.0, 2, 1.0, false);
        assert_eq!(get(&run(no_skip, 4, &refs).policy, "referenced"), vec![4]);
    }

    #[test]
    fn unused_prefetch_leaves_no_nonresident_page() {
        let mut level = CacheLevel::new(fixed(), 4, 10);
        for b in [1, 2, 3] {
            level.access(b, NEVER);
        }
        assert!(level.prefetch(7, NEVER)); // cold, in test, bit clear
        level.access(5, NEVER); // HAND_cold evicts 3 (in test: non-resident)
        level.access(6, NEVER); // then 7, unused: gone from the clock
        level.check().unwrap();
        assert_eq!(get(&level.policy, "nonresident"), vec![3]);
        level.access(7, NEVER); // a plain miss: cold, not promoted to hot
        level.check().unwrap();
        assert!(!get(&level.policy, "hot").contains(&7));
        // With a demand reference instead, 7 would be a non-resident page in its test period and
        // its re-reference would make it hot.
        let p = run(fixed(), 4, &[1, 2, 3, 7, 5, 6, 7]).policy;
        assert!(get(&p, "hot").contains(&7));
    }

    #[test]
    fn band_follows_rates_floor_and_capacity() {
        let b = |m, lo, hi| ClockProPolicy::new(m, 1, true, lo, hi, 2, 1.0, true).cold_band();
        assert_eq!(b(100, 0.01, 1.0), (2, 99));
        assert_eq!(b(900, 0.01, 1.0), (9, 899));
        assert_eq!(b(100, 0.05, 0.05), (5, 5));
        assert_eq!(b(1, 0.01, 1.0), (1, 1));
    }

    proptest! {
        #[test]
        fn every_mode_keeps_its_invariants(
            cap in 1usize..8,
            ops in proptest::collection::vec((0u8..10, 0u32..16), 1..300),
            adaptive in any::<bool>(),
            authors_bit in any::<bool>(),
            nonres in 0.0f64..2.5,
        ) {
            let mut p = ClockProPolicy::new(cap, 16, adaptive, 0.01, 1.0, 1, nonres, false);
            p.authors_bit = authors_bit;
            let mut level = CacheLevel::new(p, cap, 16);
            for (op, b) in ops {
                match op {
                    0 => { level.prefetch(b, NEVER); }
                    1 => level.set_pinned(b, true),
                    2 => level.set_pinned(b, false),
                    _ => { level.access(b, NEVER); }
                }
                prop_assert!(level.check().is_ok(), "{}", level.check().unwrap_err());
            }
        }
    }
}
