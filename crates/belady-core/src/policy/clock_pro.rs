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

use super::list::Lists;
use super::registry::PolicySpec;
use super::{Access, Block, Evicted, InsertKind, Policy};
use crate::error::Result;
use crate::frames::Frames;

const RING: usize = 0;

const OUT: u8 = 0;
const HOT: u8 = 1;
const COLD: u8 = 2;
const GHOST: u8 = 3;
const KIND_MASK: u8 = 3;
const TEST_FLAG: u8 = 4;
const BIT_FLAG: u8 = 8;

/// CLOCK-Pro with hot, cold and test hands.
pub struct ClockProPolicy {
    ring: Lists,
    /// Per page: kind in bits 0-1, test period in bit 2, reference bit in bit 3; one byte so
    /// that the hands touch one array.
    state: Vec<u8>,
    hand_hot: Option<Block>,
    hand_cold: Option<Block>,
    hand_test: Option<Block>,
    n_hot: usize,
    n_cold: usize,
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
        ClockProPolicy {
            ring: Lists::new(1, universe),
            state: vec![OUT; universe],
            hand_hot: None,
            hand_cold: None,
            hand_test: None,
            n_hot: 0,
            n_cold: 0,
            n_ghost: 0,
            m,
            min_cold,
            max_cold,
            max_nonres: (nonresident * m as f64) as usize,
            adaptive,
            credits: 0,
            authors_bit: false,
            skip_dup,
            last: None,
            evicted: false,
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
    fn kind_of(&self, p: Block) -> u8 {
        self.state[p as usize] & KIND_MASK
    }

    #[inline]
    fn set_kind(&mut self, p: Block, kind: u8) {
        let s = &mut self.state[p as usize];
        *s = (*s & !KIND_MASK) | kind;
    }

    #[inline]
    fn test_of(&self, p: Block) -> bool {
        self.state[p as usize] & TEST_FLAG != 0
    }

    #[inline]
    fn set_test(&mut self, p: Block, on: bool) {
        let s = &mut self.state[p as usize];
        *s = if on { *s | TEST_FLAG } else { *s & !TEST_FLAG };
    }

    #[inline]
    fn bit_of(&self, p: Block) -> bool {
        self.state[p as usize] & BIT_FLAG != 0
    }

    #[inline]
    fn set_bit(&mut self, p: Block, on: bool) {
        let s = &mut self.state[p as usize];
        *s = if on { *s | BIT_FLAG } else { *s & !BIT_FLAG };
    }

    /// Next page in the hands' direction (from older towards newer, wrapping at the head).
    #[inline]
    fn succ(&self, p: Block) -> Block {
        self.ring
            .toward_front(p)
            .or_else(|| self.ring.back(RING))
            .expect("ring not empty")
    }

    /// Previous page in the hands' direction.
    #[inline]
    fn pred(&self, p: Block) -> Block {
        self.ring
            .toward_back(p)
            .or_else(|| self.ring.front(RING))
            .expect("ring not empty")
    }

    /// The first resident cold page at or after `p`.
    fn next_cold_from(&self, p: Option<Block>) -> Option<Block> {
        if self.n_cold == 0 {
            return None;
        }
        let mut c = p
            .filter(|&b| self.ring.contains(RING, b))
            .or(self.ring.back(RING))?;
        while self.kind_of(c) != COLD {
            c = self.succ(c);
        }
        Some(c)
    }

    /// Takes `p` off the ring, moving any hand on it to the next page first.
    fn unlink(&mut self, p: Block) {
        if self.ring.len(RING) > 1 {
            let next = self.succ(p);
            if self.hand_hot == Some(p) {
                self.hand_hot = Some(next);
            }
            if self.hand_test == Some(p) {
                self.hand_test = Some(next);
            }
        } else {
            self.hand_hot = None;
            self.hand_test = None;
        }
        self.ring.remove(p);
        self.set_bit(p, false);
        self.set_test(p, false);
        if self.hand_cold == Some(p) {
            self.hand_cold = None;
        }
    }

    /// Puts `p` (off the ring) at the head.
    fn push_head(&mut self, p: Block) {
        self.ring.push_front(RING, p);
        if self.hand_hot.is_none() {
            self.hand_hot = Some(p);
        }
        if self.hand_test.is_none() {
            self.hand_test = Some(p);
        }
    }

    /// Moves resident `p` to the head (clearing its bit and test period, as the authors do).
    fn move_to_head(&mut self, p: Block) {
        let cold_hand = self.hand_cold;
        self.unlink(p);
        self.hand_cold = cold_hand;
        self.push_head(p);
    }

    /// Drops non-resident `p` from the ring entirely.
    fn forget(&mut self, p: Block) {
        self.unlink(p);
        self.set_kind(p, OUT);
        self.n_ghost -= 1;
    }

    /// HAND_test: with `step`, terminate the test period at the hand and move one page; then, if
    /// there are too many non-resident pages, run to the next one and drop it.
    fn run_hand_test(&mut self, step: bool) {
        if step {
            let Some(t) = self.hand_test else { return };
            let next = self.succ(t);
            match self.kind_of(t) {
                GHOST => {
                    if self.adaptive {
                        self.credits -= 1;
                    }
                    self.hand_test = Some(next);
                    self.forget(t);
                }
                COLD => {
                    self.set_test(t, false);
                    self.set_bit(t, false);
                    self.hand_test = Some(next);
                }
                _ => self.hand_test = Some(next),
            }
        }
        if self.n_ghost > self.max_nonres {
            let mut t = self.hand_test.expect("ring not empty");
            while self.kind_of(t) != GHOST {
                if self.kind_of(t) == COLD {
                    self.set_test(t, false);
                    self.set_bit(t, false);
                }
                t = self.succ(t);
            }
            if self.adaptive {
                self.credits -= 1;
            }
            self.hand_test = Some(self.succ(t));
            self.forget(t);
        }
    }

    /// HAND_hot, triggered by cold page `trigger`. Returns 0 if a hot page was demoted before the
    /// hand reached `trigger`, 1 if it reached `trigger` without demoting, 2 if both.
    fn run_hand_hot(&mut self, trigger: Block) -> u8 {
        let (mut done, mut matched, mut demoted) = (false, false, false);
        let mut h = match self.hand_hot {
            Some(h) if self.ring.contains(RING, h) => h,
            _ => self.ring.back(RING).expect("ring not empty"),
        };
        loop {
            if done && (self.kind_of(h) == HOT || self.n_hot == 0) {
                break;
            }
            if self.kind_of(h) == HOT {
                if self.bit_of(h) {
                    self.set_bit(h, false);
                } else {
                    self.set_kind(h, COLD);
                    self.n_hot -= 1;
                    self.n_cold += 1;
                    done = true;
                    demoted = true;
                }
                let moved = h;
                if self.hand_test == Some(moved) {
                    self.hand_test = Some(self.succ(moved));
                }
                h = self.succ(moved);
                self.hand_hot = Some(h);
                self.move_to_head(moved);
                if self.hand_cold.is_none() && self.kind_of(moved) == COLD {
                    self.hand_cold = Some(moved);
                }
            } else {
                if h == trigger {
                    done = true;
                    matched = true;
                }
                h = self.succ(h);
            }
            self.hand_hot = Some(h);
            if Some(self.pred(h)) == self.hand_test {
                self.run_hand_test(true);
                if self.ring.is_empty(RING) {
                    break;
                }
                h = self.hand_hot.unwrap_or(h);
            }
            if !self.ring.contains(RING, h) {
                // Only happens when the ring shrank under the hand; restart from the oldest page.
                h = self.ring.back(RING).expect("ring not empty");
                self.hand_hot = Some(h);
            }
        }
        match (matched, demoted) {
            (true, true) => 2,
            (true, false) => 1,
            _ => 0,
        }
    }

    /// Turns resident cold `p` into a hot page at the head.
    fn promote_at_head(&mut self, p: Block) {
        self.move_to_head(p);
        self.set_kind(p, HOT);
        self.n_cold -= 1;
        self.n_hot += 1;
    }

    fn is_duplicate(&mut self, b: Block) -> bool {
        if self.skip_dup && self.last == Some(b) {
            return true;
        }
        self.last = Some(b);
        false
    }

    /// Any unpinned resident page, oldest first, cold before hot.
    fn fallback_victim(&self, frames: &Frames) -> Option<Block> {
        let mut hot = None;
        for b in self.ring.iter(RING).collect::<Vec<_>>().into_iter().rev() {
            if frames.is_pinned(b) {
                continue;
            }
            match self.kind_of(b) {
                COLD => return Some(b),
                HOT if hot.is_none() => hot = Some(b),
                _ => {}
            }
        }
        hot
    }
}

impl Policy for ClockProPolicy {
    fn name(&self) -> &'static str {
        "clock-pro"
    }

    #[inline]
    fn on_hit(&mut self, b: Block, _cx: &Access) {
        if !self.is_duplicate(b) {
            self.set_bit(b, true);
        }
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        let mut budget = 8 * self.ring.len(RING) + 64;
        let mut c = self.next_cold_from(self.hand_cold);
        while let Some(hc) = c {
            if budget == 0 {
                break;
            }
            budget -= 1;
            self.hand_cold = Some(hc);
            let i = hc as usize;
            if frames.is_pinned(hc) {
                c = self.next_cold_from(Some(self.succ(hc)).filter(|&n| n != hc));
                if c == Some(hc) {
                    break;
                }
                continue;
            }
            if !self.bit_of(i as Block) || !self.test_of(i as Block) {
                return Some(hc);
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
                self.set_bit(i as Block, false);
                self.credits += 1;
            } else if self.credits > 0 {
                let matched = self.run_hand_hot(hc);
                if matched == 0 {
                    let n = self.succ(hc);
                    next = Some(n);
                    self.move_to_head(hc);
                    if self.authors_bit {
                        if matches!(self.kind_of(n), HOT | COLD) {
                            self.set_bit(n, true);
                        }
                    } else {
                        self.set_bit(i as Block, true);
                    }
                    self.set_test(i as Block, true);
                    self.credits -= 1;
                } else {
                    self.set_bit(i as Block, false);
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
                Some(n) if n != hc => self.next_cold_from(Some(n)),
                Some(_) => self.next_cold_from(None),
                None => Some(hc),
            };
        }
        self.hand_cold = c;
        self.fallback_victim(frames)
    }

    fn on_evict(&mut self, b: Block, ev: Evicted, _cx: &Access) {
        self.evicted = true;
        if self.last == Some(b) {
            self.last = None;
        }
        let i = b as usize;
        let was_hand = self.hand_cold == Some(b);
        let next = (self.ring.len(RING) > 1).then(|| self.succ(b));
        match self.kind_of(i as Block) {
            HOT => {
                self.n_hot -= 1;
                self.set_kind(i as Block, OUT);
                self.unlink(b);
            }
            _ => {
                self.n_cold -= 1;
                if self.test_of(i as Block) && !ev.unused_prefetch {
                    self.set_kind(i as Block, GHOST);
                    self.set_bit(i as Block, false);
                    self.n_ghost += 1;
                } else {
                    self.set_kind(i as Block, OUT);
                    self.unlink(b);
                }
            }
        }
        if was_hand || self.hand_cold.is_none() {
            self.hand_cold = self.next_cold_from(next.filter(|&n| n != b));
        }
        if !self.ring.is_empty(RING) {
            self.run_hand_test(false);
        }
        if self.hand_cold.is_some_and(|h| self.kind_of(h) != COLD) {
            self.hand_cold = self.next_cold_from(self.hand_cold);
        }
    }

    fn on_insert(&mut self, b: Block, kind: InsertKind, _cx: &Access) {
        let i = b as usize;
        let evicted = std::mem::replace(&mut self.evicted, false);
        let free_before = if evicted {
            0
        } else {
            self.m - self.n_hot - self.n_cold
        };
        if kind == InsertKind::Prefetch {
            if self.kind_of(i as Block) == GHOST {
                self.forget(b);
            }
            self.insert_cold(b);
            return;
        }
        self.last = Some(b);
        if free_before > self.min_cold {
            if self.kind_of(i as Block) == GHOST {
                self.forget(b);
            }
            self.set_kind(i as Block, HOT);
            self.n_hot += 1;
            self.push_head(b);
            return;
        }
        if self.kind_of(i as Block) != GHOST {
            self.insert_cold(b);
            return;
        }
        let matched = self.run_hand_hot(b);
        if matched == 1 || (self.kind_of(i as Block) != GHOST && matched != 2) {
            if self.kind_of(i as Block) == GHOST {
                self.forget(b);
            }
            self.insert_cold(b);
            return;
        }
        if self.adaptive {
            self.credits += 1;
        }
        if self.kind_of(i as Block) == GHOST {
            self.forget(b);
        }
        self.set_kind(i as Block, HOT);
        self.n_hot += 1;
        self.push_head(b);
    }

    fn len(&self) -> usize {
        self.n_hot + self.n_cold
    }

    fn check_invariants(&self, frames: &Frames) -> std::result::Result<(), String> {
        self.ring.check()?;
        let (mut hot, mut cold, mut ghost) = (0, 0, 0);
        for (i, &st) in self.state.iter().enumerate().take(frames.universe()) {
            let k = st & KIND_MASK;
            let b = i as Block;
            let on = self.ring.contains(RING, b);
            let res = frames.is_resident(b);
            let ok = match k {
                OUT => !on && !res && !self.bit_of(i as Block) && !self.test_of(i as Block),
                HOT => {
                    hot += 1;
                    on && res && !self.test_of(i as Block)
                }
                COLD => {
                    cold += 1;
                    on && res
                }
                GHOST => {
                    ghost += 1;
                    on && !res && self.test_of(i as Block) && !self.bit_of(i as Block)
                }
                _ => false,
            };
            if !ok {
                return Err(format!(
                    "page {b}: kind {k} on_ring={on} resident={res} test={} bit={}",
                    self.test_of(i as Block),
                    self.bit_of(i as Block)
                ));
            }
        }
        if (hot, cold, ghost) != (self.n_hot, self.n_cold, self.n_ghost) {
            return Err(format!(
                "counted hot/cold/non-resident {hot}/{cold}/{ghost}, recorded {}/{}/{}",
                self.n_hot, self.n_cold, self.n_ghost
            ));
        }
        if hot + cold != frames.len() || self.ring.len(RING) != hot + cold + ghost {
            return Err("resident count or ring length disagrees".into());
        }
        if ghost > self.max_nonres {
            return Err(format!(
                "{ghost} non-resident pages exceed {}",
                self.max_nonres
            ));
        }
        match self.hand_cold {
            Some(h) if self.kind_of(h) != COLD => {
                return Err(format!("HAND_cold on page {h}, not a resident cold page"))
            }
            None if cold > 0 => return Err("resident cold pages but no HAND_cold".into()),
            _ => {}
        }
        for h in [self.hand_hot, self.hand_test].into_iter().flatten() {
            if !self.ring.contains(RING, h) {
                return Err(format!(
                    "a hand points at page {h}, which is not in the clock"
                ));
            }
        }
        if !self.ring.is_empty(RING) && (self.hand_hot.is_none() || self.hand_test.is_none()) {
            return Err("HAND_hot or HAND_test missing".into());
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        let order: Vec<Block> = self.ring.iter(RING).collect();
        let pick = |f: &dyn Fn(Block) -> bool| order.iter().copied().filter(|&b| f(b)).collect();
        vec![
            ("head_to_tail", order.clone()),
            ("hot", pick(&|b| self.kind_of(b) == HOT)),
            ("cold_resident", pick(&|b| self.kind_of(b) == COLD)),
            ("nonresident", pick(&|b| self.kind_of(b) == GHOST)),
            ("in_test", pick(&|b| self.test_of(b))),
            ("referenced", pick(&|b| self.bit_of(b))),
            (
                "hands_hot_cold_test",
                [self.hand_hot, self.hand_cold, self.hand_test]
                    .into_iter()
                    .map(|h| h.unwrap_or(Block::MAX))
                    .collect(),
            ),
        ]
    }
}

impl ClockProPolicy {
    /// Inserts `b` at the head as a resident cold page in its test period, bit clear.
    fn insert_cold(&mut self, b: Block) {
        let i = b as usize;
        self.set_kind(i as Block, COLD);
        self.n_cold += 1;
        self.push_head(b);
        self.set_test(i as Block, true);
        self.set_bit(i as Block, false);
        if self.hand_cold.is_none() {
            self.hand_cold = Some(b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::CacheLevel;
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
