//! LIRS: Low Inter-reference Recency Set replacement.
//!
//! Song Jiang and Xiaodong Zhang, "LIRS: An Efficient Low Inter-reference Recency Set
//! Replacement Policy to Improve Buffer Cache Performance", ACM SIGMETRICS 2002.
//! Reference implementations consulted: the authors' simulator `lirs.c` (Song Jiang, 2002, kept
//! in ben-manes/caffeine's simulator resources), AccuSim's `sim/lirs.cc` (the prefetching study's
//! simulator), Caffeine's `LirsPolicy` and libCacheSim's `LIRS.c`.
//!
//! Blocks are LIR (always resident), resident HIR, or non-resident HIR. `Llirs + Lhirs = c`.
//! Stack S holds, in recency order, LIR blocks and the HIR blocks (resident or not) more recent
//! than the bottom LIR block; its bottom is always an LIR block ("stack pruning" removes HIR
//! entries from the bottom after every change there; a pruned non-resident entry is forgotten,
//! a pruned resident one stays in Q). Queue Q holds the resident HIR blocks; its front is the
//! victim.
//!
//! - LIR hit: to the top of S, then prune.
//! - Resident HIR hit: to the top of S. If it was in S it becomes LIR and the bottom LIR block
//!   becomes resident HIR at the end of Q (then prune); otherwise it stays HIR and moves to the
//!   end of Q.
//! - Miss: the front of Q is evicted (it stays in S as non-resident if it was there). While
//!   fewer than `Llirs` blocks are LIR, a missed block becomes LIR. Otherwise a block with a
//!   non-resident entry in S becomes LIR (the bottom LIR goes to Q, then prune) and any other
//!   block becomes resident HIR at the top of S and the end of Q.
//!
//! Prefetching (the prefetching study, section 4, and AccuSim): a prefetched block is not a
//! reference, so it is not put on S; it enters Q's end as resident HIR (never LIR, even while the
//! LIR set is filling). A non-resident entry it already had in S stays where it is. Its first
//! demand access (`first_use`) is then an ordinary resident-HIR hit: LIR if it has an S entry,
//! otherwise HIR pushed on S. A prefetched block evicted unused (`unused_prefetch`) leaves no
//! new non-resident entry, and an old S entry is dropped too (AccuSim keeps it:
//! `unused_prefetch_entry=keep`, below).
//!
//! Documented choices (where implementations disagree):
//! - `hir` / `min_hir`: `Lhirs = max(floor(hir * c), min_hir)`, capped at `c - 1` so at least
//!   one block can be LIR (for `c = 1`, `Lhirs = 1`). Paper and authors' code: 1 %, minimum 2.
//!   AccuSim (study preset): 10 %, minimum 32. libCacheSim: 1 %, minimum 1.
//! - `bound`: how S / non-resident entries are limited, with `bound_size` (× cache size):
//!   `none` (the paper; the authors' `lirs.c` cap of 2500c is never reached in practice),
//!   `stack` (authors' `prune_LIRS_stack`, AccuSim with 2c: after a reference, if |S| exceeds
//!   the cap, the HIR entry nearest the bottom leaves S), `nonresident` (Caffeine: the oldest
//!   non-resident entries, by the time they became non-resident, are dropped while there are
//!   more than the cap), `stack-nonresident` (libCacheSim: the oldest non-resident entries are
//!   dropped while |S| exceeds the cap).
//! - `skip_dup`: the authors' simulator ignores a reference equal to the previous one (it is
//!   counted as a hit and changes nothing); without this a second consecutive reference to a
//!   resident HIR block makes it LIR. Default on (the paper's numbers come from that code);
//!   off under the `study` preset (AccuSim does not skip).
//! - `warmup`: when a missed block becomes LIR before the LIR set is full. `lir-count` (the
//!   paper's description, default): while fewer than `Llirs` blocks are LIR. `free-frames`
//!   (AccuSim's `lirs.cc` and the authors' `lirs.c`): only if no eviction was needed and more
//!   than `Lhirs` frames are free, i.e. fewer than `Llirs` blocks are resident. The same without
//!   prefetching; with it, resident prefetched HIR blocks use up the room, and the LIR set then
//!   grows only through re-references of HIR blocks in S.
//! - Pinned blocks: the victim is the front-most unpinned block of Q. If every resident HIR block
//!   is pinned, the unpinned LIR block nearest the bottom of S is evicted and forgotten (the
//!   paper has no non-resident LIR state); the LIR set then refills from later misses.
//!
//! AccuSim's one departure of its own, `unused_prefetch_entry=keep` (an unused prefetched block
//! that is evicted keeps the S entry it had, since AccuSim only clears the resident flag of the
//! block it evicts; the `accusim` preset sets it), is AccuSim's variant, `AccusimLirs` in
//! `compat/accusim/lirs.rs`, which the builder makes instead of this type; this type refuses it.

use super::registry::PolicySpec;
use super::structures::list::Lists;
use super::{Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;
use crate::error::Result;

const L: usize = 0;

const NONE: u8 = 0;
const LIR: u8 = 1;
const HIR: u8 = 2;
const GHOST: u8 = 3;

/// How S and the non-resident entries are bounded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Unbounded (the paper).
    None,
    /// |S| capped by moving the HIR entry nearest the bottom out of S (authors', AccuSim).
    Stack,
    /// Number of non-resident entries capped, oldest dropped first (Caffeine).
    NonResident,
    /// |S| capped by dropping the oldest non-resident entries (libCacheSim).
    StackNonResident,
}

/// LIRS with stack S, queue Q and non-resident HIR entries.
pub struct LirsPolicy {
    stack: Lists,
    queue: Lists,
    ghosts: Lists,
    state: Vec<u8>,
    n_lir: usize,
    llirs: usize,
    lhirs: usize,
    bound: Bound,
    cap: usize,
    skip_dup: bool,
    last: Option<Block>,
    /// A missed block becomes LIR while fewer than `llirs` blocks are resident (the authors'
    /// code and AccuSim), not while fewer than `llirs` blocks are LIR (the paper).
    fill_by_frames: bool,
}

impl LirsPolicy {
    /// Builds LIRS from its parameters (`hir`, `min_hir`, `bound`, `bound_size`, `skip_dup`,
    /// `warmup`). AccuSim's `unused_prefetch_entry=keep` is refused: it is AccuSim's variant's,
    /// which the builder makes.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> Result<Self> {
        if spec.choice("unused_prefetch_entry", &["drop", "keep"])? == "keep" {
            return Err(spec.variant_value("unused_prefetch_entry", "AccuSim's LIRS (AccusimLirs)"));
        }
        Self::from_paper_params(spec, capacity, universe)
    }

    /// LIRS with `spec`'s `hir`, `min_hir`, `bound`, `bound_size`, `skip_dup` and `warmup`
    /// (`unused_prefetch_entry` is not read).
    pub(crate) fn from_paper_params(
        spec: &PolicySpec,
        capacity: usize,
        universe: usize,
    ) -> Result<Self> {
        let hir = spec.f64("hir", 0.0, 1.0)?;
        let min_hir = spec.usize("min_hir", 0, usize::MAX)?;
        let bound = match spec.choice(
            "bound",
            &["none", "stack", "nonresident", "stack-nonresident"],
        )? {
            "stack" => Bound::Stack,
            "nonresident" => Bound::NonResident,
            "stack-nonresident" => Bound::StackNonResident,
            _ => Bound::None,
        };
        let factor = spec.f64("bound_size", 1.0, 1e6)?;
        let skip_dup = spec.bool("skip_dup")?;
        let warmup = spec.choice("warmup", &["lir-count", "free-frames"])?;
        Ok(
            Self::new(capacity, universe, hir, min_hir, bound, factor, skip_dup)
                .with_free_frames_warmup(warmup == "free-frames"),
        )
    }

    /// `warmup=free-frames` when `yes`: a missed block becomes LIR only while more than `Lhirs`
    /// frames are free, so resident prefetched (HIR) blocks use up the warm-up room.
    pub fn with_free_frames_warmup(mut self, yes: bool) -> Self {
        self.fill_by_frames = yes;
        self
    }

    /// LIRS for `capacity` blocks with the given parameters (see the module notes).
    pub fn new(
        capacity: usize,
        universe: usize,
        hir: f64,
        min_hir: usize,
        bound: Bound,
        bound_size: f64,
        skip_dup: bool,
    ) -> Self {
        let capacity = capacity.max(1);
        let mut lhirs = ((hir * capacity as f64) as usize).max(min_hir);
        lhirs = if capacity == 1 {
            1
        } else {
            lhirs.clamp(1, capacity - 1)
        };
        LirsPolicy {
            stack: Lists::new(1, universe),
            queue: Lists::new(1, universe),
            ghosts: Lists::new(1, universe),
            state: vec![NONE; universe],
            n_lir: 0,
            llirs: capacity - lhirs,
            lhirs,
            bound,
            cap: (bound_size * capacity as f64) as usize,
            skip_dup,
            last: None,
            fill_by_frames: false,
        }
    }

    /// Number of blocks the LIR set may hold.
    pub fn llirs(&self) -> usize {
        self.llirs
    }

    /// Number of frames for resident HIR blocks.
    pub fn lhirs(&self) -> usize {
        self.lhirs
    }

    /// Whether `b` is currently an LIR block.
    pub fn is_lir(&self, b: Block) -> bool {
        self.state[b as usize] == LIR
    }

    /// Removes HIR entries from the bottom of S until an LIR block is there.
    fn prune(&mut self) {
        while let Some(b) = self.stack.back(L) {
            match self.state[b as usize] {
                LIR => break,
                GHOST => {
                    self.ghosts.remove(b);
                    self.state[b as usize] = NONE;
                }
                _ => {}
            }
            self.stack.remove(b);
        }
    }

    /// The bottom LIR block becomes resident HIR at the end of Q; then prune.
    fn demote_bottom(&mut self) {
        let b = self
            .stack
            .back(L)
            .expect("an LIR block is at the bottom of S");
        debug_assert_eq!(self.state[b as usize], LIR);
        self.stack.remove(b);
        self.state[b as usize] = HIR;
        self.queue.push_front(L, b);
        self.n_lir -= 1;
        self.prune();
    }

    /// Makes `b` (already at the top of S) LIR, demoting the bottom LIR if the set overflows.
    fn make_lir(&mut self, b: Block) {
        self.state[b as usize] = LIR;
        self.n_lir += 1;
        if self.n_lir > self.llirs {
            self.demote_bottom();
        }
    }

    /// Forgets non-resident entry `b`.
    fn drop_ghost(&mut self, b: Block) {
        self.ghosts.remove(b);
        self.stack.remove(b);
        self.state[b as usize] = NONE;
    }

    /// Applies the S / non-resident bound after a reference. Also restores "the bottom of S is
    /// LIR" when no LIR block exists (a cache of one block, or every LIR block evicted because
    /// Q was pinned): then S is empty.
    fn enforce_bound(&mut self) {
        if self.n_lir == 0 {
            self.prune();
        }
        match self.bound {
            Bound::None => {}
            Bound::Stack => {
                if self.stack.len(L) > self.cap {
                    let mut cur = self.stack.back(L);
                    while let Some(b) = cur {
                        if self.state[b as usize] != LIR {
                            break;
                        }
                        cur = self.stack.toward_front(b);
                    }
                    if let Some(b) = cur {
                        if self.state[b as usize] == GHOST {
                            self.drop_ghost(b);
                        } else {
                            self.stack.remove(b);
                        }
                    }
                }
            }
            Bound::NonResident => {
                while self.ghosts.len(L) > self.cap {
                    let b = self.ghosts.back(L).expect("non-empty");
                    self.drop_ghost(b);
                }
            }
            Bound::StackNonResident => {
                while self.stack.len(L) > self.cap {
                    let Some(b) = self.ghosts.back(L) else { break };
                    self.drop_ghost(b);
                }
            }
        }
    }

    fn is_duplicate(&mut self, b: Block) -> bool {
        if self.skip_dup && self.last == Some(b) {
            return true;
        }
        self.last = Some(b);
        false
    }
}

impl Policy for LirsPolicy {
    fn name(&self) -> &'static str {
        "lirs"
    }

    fn on_hit(&mut self, b: Block, _cx: &Access) {
        if self.is_duplicate(b) {
            return;
        }
        match self.state[b as usize] {
            LIR => {
                let was_bottom = self.stack.back(L) == Some(b);
                self.stack.move_to_front(L, b);
                if was_bottom {
                    self.prune();
                }
            }
            _ => {
                if self.stack.contains(L, b) {
                    self.stack.move_to_front(L, b);
                    self.queue.remove(b);
                    self.make_lir(b);
                } else {
                    self.stack.push_front(L, b);
                    self.queue.move_to_front(L, b);
                }
            }
        }
        self.enforce_bound();
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        let mut cur = self.queue.back(L);
        while let Some(b) = cur {
            if !frames.is_pinned(b) {
                return Some(b);
            }
            cur = self.queue.toward_front(b);
        }
        let mut cur = self.stack.back(L);
        while let Some(b) = cur {
            if self.state[b as usize] == LIR && !frames.is_pinned(b) {
                return Some(b);
            }
            cur = self.stack.toward_front(b);
        }
        None
    }

    fn on_evict(&mut self, b: Block, ev: Evicted, _cx: &Access) {
        if self.last == Some(b) {
            self.last = None;
        }
        match self.state[b as usize] {
            LIR => {
                let was_bottom = self.stack.back(L) == Some(b);
                self.stack.remove(b);
                self.state[b as usize] = NONE;
                self.n_lir -= 1;
                if was_bottom {
                    self.prune();
                }
            }
            _ => {
                self.queue.remove(b);
                if self.stack.contains(L, b) && !ev.unused_prefetch {
                    self.state[b as usize] = GHOST;
                    self.ghosts.push_front(L, b);
                    if self.bound == Bound::NonResident {
                        self.enforce_bound();
                    }
                } else {
                    self.stack.remove(b);
                    self.state[b as usize] = NONE;
                }
            }
        }
    }

    fn on_insert(&mut self, b: Block, kind: InsertKind, _cx: &Access) {
        let in_stack = self.state[b as usize] == GHOST;
        if in_stack {
            self.ghosts.remove(b);
        }
        if kind == InsertKind::Prefetch {
            self.state[b as usize] = HIR;
            self.queue.push_front(L, b);
            return;
        }
        self.last = Some(b);
        let filling = if self.fill_by_frames {
            self.n_lir + self.queue.len(L) < self.llirs
        } else {
            self.n_lir < self.llirs
        };
        if filling {
            self.stack.move_to_front(L, b);
            self.state[b as usize] = LIR;
            self.n_lir += 1;
        } else if in_stack {
            self.stack.move_to_front(L, b);
            self.make_lir(b);
        } else {
            self.state[b as usize] = HIR;
            self.stack.push_front(L, b);
            self.queue.push_front(L, b);
        }
        self.enforce_bound();
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Err("its LIR/HIR partition counts blocks (--preset libcachesim, with no lirs parameters set, runs libCacheSim's byte-based LIRS)")
    }

    fn len(&self) -> usize {
        self.n_lir + self.queue.len(L)
    }

    fn check_invariants(&self, frames: &Frames) -> std::result::Result<(), String> {
        self.stack.check()?;
        self.queue.check()?;
        self.ghosts.check()?;
        let (mut lir, mut hir, mut ghost) = (0, 0, 0);
        for (i, &s) in self.state.iter().enumerate().take(frames.universe()) {
            let b = i as Block;
            let (in_s, in_q, in_g) = (
                self.stack.contains(L, b),
                self.queue.contains(L, b),
                self.ghosts.contains(L, b),
            );
            let ok = match s {
                NONE => !in_s && !in_q && !in_g && !frames.is_resident(b),
                LIR => {
                    lir += 1;
                    in_s && !in_q && !in_g && frames.is_resident(b)
                }
                HIR => {
                    hir += 1;
                    in_q && !in_g && frames.is_resident(b)
                }
                GHOST => {
                    ghost += 1;
                    in_s && !in_q && in_g && !frames.is_resident(b)
                }
                _ => false,
            };
            if !ok {
                return Err(format!(
                    "block {b}: state {s} but in S={in_s} Q={in_q} NR={in_g} resident={}",
                    frames.is_resident(b)
                ));
            }
        }
        if lir != self.n_lir || lir > self.llirs {
            return Err(format!(
                "{lir} LIR blocks, counter {} limit {}",
                self.n_lir, self.llirs
            ));
        }
        if hir != self.queue.len(L) || ghost != self.ghosts.len(L) {
            return Err("Q or non-resident list length disagrees with block states".into());
        }
        if lir + hir != frames.len() {
            return Err(format!(
                "{} resident per policy, {} in frames",
                lir + hir,
                frames.len()
            ));
        }
        if let Some(b) = self.stack.back(L) {
            if self.state[b as usize] != LIR {
                return Err(format!("bottom of S is block {b}, not an LIR block"));
            }
        }
        let over = match self.bound {
            Bound::None => false,
            Bound::Stack | Bound::StackNonResident => {
                self.stack.len(L) > self.cap.max(frames.capacity())
            }
            Bound::NonResident => self.ghosts.len(L) > self.cap,
        };
        if over {
            return Err(format!(
                "bound exceeded: |S| = {}, non-resident = {}, cap = {}",
                self.stack.len(L),
                self.ghosts.len(L),
                self.cap
            ));
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        vec![
            ("s_top_to_bottom", self.stack.iter(L).collect()),
            (
                "lir",
                self.stack.iter(L).filter(|&b| self.is_lir(b)).collect(),
            ),
            ("q_front_to_end", {
                let mut q: Vec<Block> = self.queue.iter(L).collect();
                q.reverse();
                q
            }),
            ("nonresident_newest_first", self.ghosts.iter(L).collect()),
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

    /// Llirs = 2, Lhirs = 1 (the LIRS paper's example sizes), unbounded, with duplicate skipping.
    fn small() -> LirsPolicy {
        LirsPolicy::new(3, 10, 0.0, 1, Bound::None, 2.0, true)
    }

    fn dump_of(p: &LirsPolicy, name: &str) -> Vec<Block> {
        p.dump().into_iter().find(|(n, _)| *n == name).unwrap().1
    }

    #[test]
    fn worked_sequence_with_llirs_2_and_lhirs_1() {
        // 1 2 become LIR while the LIR set fills; 3 is resident HIR. 4 evicts 3 (3 stays in S as
        // non-resident). 3 is re-referenced with an S entry: it becomes LIR and the bottom LIR (1)
        // becomes resident HIR; 4 is evicted (non-resident in S). 1 hits as HIR not in S: it goes
        // back on S but stays HIR. 5 evicts 1. 2 (LIR at the bottom) hits: to the top, and pruning
        // drops the non-resident 4 from the bottom.
        let refs = [1, 2, 3, 4, 3, 1, 5, 2];
        assert_eq!(pattern(small, 3, &refs), "mmmmmhmh");
        let level = run(small(), 3, &refs[..5]);
        assert_eq!(dump_of(&level.policy, "s_top_to_bottom"), vec![3, 4, 2]);
        assert_eq!(dump_of(&level.policy, "lir"), vec![3, 2]);
        assert_eq!(dump_of(&level.policy, "q_front_to_end"), vec![1]);
        assert_eq!(dump_of(&level.policy, "nonresident_newest_first"), vec![4]);
        let level = run(small(), 3, &refs);
        assert_eq!(dump_of(&level.policy, "s_top_to_bottom"), vec![2, 5, 1, 3]);
        assert_eq!(dump_of(&level.policy, "lir"), vec![2, 3]);
        assert_eq!(dump_of(&level.policy, "q_front_to_end"), vec![5]);
        assert_eq!(dump_of(&level.policy, "nonresident_newest_first"), vec![1]);
    }

    /// The LIRS paper's example (section 3, Table 1 and the figure after it): blocks A..E,
    /// `Llirs = 2`, `Lhirs = 1`. What was checked against a copy of the text (the same example,
    /// Table 2.1 of Song Jiang's thesis): A is referenced at times 1, 6 and 8; at time 10 the IRRs
    /// of A..E are 1, 1, inf, 3, inf and the recencies 1, 3, 4, 2, 0; the LIR set is {A, B}, the
    /// HIR set {C, D, E}, and E, the most recent, is the only resident HIR block. The reference
    /// string is not quoted in that text; it is rebuilt here as the only string over times 1-9
    /// that gives those numbers (an exhaustive search finds none over times 1-10, so the table's
    /// time 10 is the moment after the ninth reference), and the S/Q contents follow from the
    /// paper's rules (S keeps the entries more recent than the bottom LIR block). See
    /// docs/policies/lirs.md.
    #[test]
    fn paper_example_blocks_a_to_e() {
        const A: Block = 1;
        const B: Block = 2;
        const C: Block = 3;
        const D: Block = 4;
        const E: Block = 5;
        const INF: usize = usize::MAX;
        let table = [A, D, B, C, B, A, D, A, E];
        // The paper's rules as written: no skipping of a repeated reference (step (c) repeats E).
        let paper = || LirsPolicy::new(3, 10, 0.0, 1, Bound::None, 2.0, false);

        // IRR: distinct other blocks between the last two references; recency: distinct other
        // blocks after the last one, both seen at time 10.
        let distinct = |from: usize, to: usize, b: Block| {
            let mut seen: Vec<Block> = table[from..to]
                .iter()
                .copied()
                .filter(|&x| x != b)
                .collect();
            seen.sort_unstable();
            seen.dedup();
            seen.len()
        };
        let times =
            |b: Block| -> Vec<usize> { (0..table.len()).filter(|&i| table[i] == b).collect() };
        let irr = |b: Block| match times(b)[..] {
            [.., p, l] => distinct(p + 1, l, b),
            _ => INF,
        };
        let recency = |b: Block| distinct(times(b).last().unwrap() + 1, table.len(), b);
        assert_eq!(
            times(A).iter().map(|t| t + 1).collect::<Vec<_>>(),
            [1, 6, 8]
        );
        assert_eq!([A, B, C, D, E].map(irr), [1, 1, INF, 3, INF]);
        assert_eq!([A, B, C, D, E].map(recency), [1, 3, 4, 2, 0]);

        // Run from an empty cache, the string itself ends with LIR = {A, D}: the first two
        // distinct blocks fill the LIR set, and D's IRR of 3 was not yet known then. The paper's
        // time-10 state is the one its IRRs define, reached here by B A D A E: B and A fill
        // the LIR set, D is resident HIR, A's hit puts it above D, E's miss evicts D (left
        // non-resident in S) and enters as resident HIR.
        let level = run(paper(), 3, &table);
        assert_eq!(dump_of(&level.policy, "lir"), vec![A, D]);
        let at_10 = [B, A, D, A, E];
        let state = |extra: &[Block]| {
            let refs: Vec<Block> = at_10.iter().chain(extra).copied().collect();
            let p = run(paper(), 3, &refs).policy;
            let get = |n| dump_of(&p, n);
            (
                get("s_top_to_bottom"),
                get("lir"),
                get("q_front_to_end"),
                get("nonresident_newest_first"),
            )
        };
        // (a) Time 10. S, top to bottom: E (resident HIR), A (LIR), D (non-resident HIR),
        //     B (LIR); C, older than the bottom LIR block, is not in S. Q holds E.
        assert_eq!(state(&[]), (vec![E, A, D, B], vec![A, B], vec![E], vec![D]));
        // (b) LIR block B: to the top; B was the bottom, so pruning removes D.
        assert_eq!(pattern(paper, 3, &[B, A, D, A, E, B])[5..], *"h");
        assert_eq!(state(&[B]), (vec![B, E, A], vec![B, A], vec![E], vec![]));
        // (c) Resident HIR block E, in S: it becomes LIR; the bottom LIR block B becomes resident
        //     HIR at the end of Q, and pruning removes B and then D from the bottom of S.
        assert_eq!(pattern(paper, 3, &[B, A, D, A, E, E])[5..], *"h");
        assert_eq!(state(&[E]), (vec![E, A], vec![E, A], vec![B], vec![]));
        // (d) Non-resident HIR block D, in S: a miss. E, the front of Q, is evicted and stays in
        //     S as non-resident; D becomes LIR, B goes to the end of Q and leaves S.
        assert_eq!(pattern(paper, 3, &[B, A, D, A, E, D])[5..], *"m");
        assert_eq!(state(&[D]), (vec![D, E, A], vec![D, A], vec![B], vec![E]));
        // (e) Non-resident HIR block C, not in S: a miss. E is evicted (non-resident in S);
        //     C stays HIR, on top of S and at the end of Q.
        assert_eq!(pattern(paper, 3, &[B, A, D, A, E, C])[5..], *"m");
        assert_eq!(
            state(&[C]),
            (vec![C, E, A, D, B], vec![A, B], vec![C], vec![E, D])
        );
    }

    #[test]
    fn hir_block_with_small_irr_takes_the_lir_place() {
        // The paper's two cases at a miss: a block whose last reference is more recent than the
        // bottom LIR block's (it is in S) becomes LIR; one older than that stays HIR.
        let refs = [1, 2, 3, 1, 4, 5, 2, 4];
        // 1 2 LIR, 3 HIR; 1 hit; 4 evicts 3 (ghost), 5 evicts 4 (ghost); 2 hit (bottom -> top,
        // prune drops ghost 3); 4 is in S: LIR, bottom LIR 1 goes to Q.
        assert_eq!(pattern(small, 3, &refs), "mmmhmmhm");
        let level = run(small(), 3, &refs);
        assert_eq!(dump_of(&level.policy, "lir"), vec![4, 2]);
        assert_eq!(dump_of(&level.policy, "q_front_to_end"), vec![1]);
        assert!(!level.policy.is_lir(1));
    }

    #[test]
    fn duplicate_references_are_skipped_only_when_asked() {
        let refs = [1, 2, 3, 3];
        assert!(!run(small(), 3, &refs).policy.is_lir(3));
        let no_skip = LirsPolicy::new(3, 10, 0.0, 1, Bound::None, 2.0, false);
        assert!(run(no_skip, 3, &refs).policy.is_lir(3));
    }

    #[test]
    fn unused_prefetch_leaves_no_nonresident_entry() {
        let mut level = CacheLevel::new(small(), 3, 10);
        level.access(1, NEVER);
        level.access(2, NEVER);
        assert!(level.prefetch(7, NEVER));
        level.access(3, NEVER); // evicts 7, never used
        level.check().unwrap();
        assert_eq!(
            dump_of(&level.policy, "nonresident_newest_first"),
            Vec::<Block>::new()
        );
        level.access(7, NEVER); // a miss on a block with no history: HIR, not LIR
        level.check().unwrap();
        assert!(!level.policy.is_lir(7));
        // The same with a demand reference instead of the prefetch: 7 is a non-resident HIR
        // entry in S, so its next reference makes it LIR.
        let level = run(small(), 3, &[1, 2, 7, 3, 7]);
        assert!(level.policy.is_lir(7));
    }

    #[test]
    fn prefetched_block_keeps_its_stack_entry_and_first_use_is_a_hir_hit() {
        let mut level = CacheLevel::new(small(), 3, 10);
        for b in [1, 2, 3, 4] {
            level.access(b, NEVER); // 3 becomes non-resident in S
        }
        assert!(level.prefetch(3, NEVER)); // evicts 4; 3 resident HIR, S entry kept
        level.check().unwrap();
        assert!(!level.policy.is_lir(3));
        assert_eq!(dump_of(&level.policy, "q_front_to_end"), vec![3]);
        level.access(3, NEVER); // first use: hit, in S -> LIR
        level.check().unwrap();
        assert!(level.policy.is_lir(3));
        assert_eq!(level.stats().prefetch_used, 1);
    }

    #[test]
    fn free_frames_warmup_counts_resident_prefetches() {
        // c = 4, Lhirs = 1, Llirs = 3. Prefetch 7 and 8 (resident HIR in Q, not on S), then
        // demand misses 1 and 2, no eviction needed. lir-count: 0 and 1 LIR blocks < 3, so both
        // become LIR. free-frames: 1 finds 2 blocks resident (< 3): LIR; 2 finds 3 resident
        // (free frames 1, not more than Lhirs): resident HIR on S and at Q's end.
        let make = |frames| {
            LirsPolicy::new(4, 10, 0.0, 1, Bound::None, 2.0, false).with_free_frames_warmup(frames)
        };
        for frames in [false, true] {
            let mut level = CacheLevel::new(make(frames), 4, 10);
            assert!(level.prefetch(7, NEVER));
            assert!(level.prefetch(8, NEVER));
            level.access(1, NEVER);
            level.access(2, NEVER);
            level.check().unwrap();
            assert!(level.policy.is_lir(1));
            assert_eq!(level.policy.is_lir(2), !frames);
            let q = dump_of(&level.policy, "q_front_to_end");
            assert_eq!(q, if frames { vec![7, 8, 2] } else { vec![7, 8] });
            assert_eq!(dump_of(&level.policy, "s_top_to_bottom"), vec![2, 1]);
            // First use of 7: not in S, so a resident-HIR hit pushes it on S and it stays HIR.
            level.access(7, NEVER);
            level.check().unwrap();
            assert!(!level.policy.is_lir(7));
            assert_eq!(dump_of(&level.policy, "s_top_to_bottom"), vec![7, 2, 1]);
        }
        // Without prefetches the two rules agree.
        let refs = [1, 2, 3, 4, 5, 1, 6, 2, 3, 7, 1];
        let a = run(make(false), 4, &refs).stats().hits;
        assert_eq!(run(make(true), 4, &refs).stats().hits, a);
    }

    #[test]
    fn stack_bound_moves_out_the_hir_entry_nearest_the_bottom() {
        // Cap |S| at 4 (bound_size 1.34 x 3). 1 2 LIR, 3 HIR, 4 (3 ghost), 5 (4 ghost):
        // S = 5 4 3 2 1 has 5 entries; the HIR entry nearest the bottom (3) leaves S.
        let p = LirsPolicy::new(3, 10, 0.0, 1, Bound::Stack, 1.34, true);
        let level = run(p, 3, &[1, 2, 3, 4, 5]);
        assert_eq!(dump_of(&level.policy, "s_top_to_bottom"), vec![5, 4, 2, 1]);
        assert_eq!(dump_of(&level.policy, "nonresident_newest_first"), vec![4]);
        // Caffeine-style: at most 3 non-resident entries; the one that became non-resident first
        // (3) goes when 6 is evicted.
        let p = LirsPolicy::new(3, 10, 0.0, 1, Bound::NonResident, 1.0, true);
        let level = run(p, 3, &[1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(
            dump_of(&level.policy, "nonresident_newest_first"),
            vec![6, 5, 4]
        );
        assert_eq!(
            dump_of(&level.policy, "s_top_to_bottom"),
            vec![7, 6, 5, 4, 2, 1]
        );
    }

    #[test]
    fn lhirs_follows_rate_minimum_and_capacity() {
        let p = |c, hir, min| LirsPolicy::new(c, 1, hir, min, Bound::None, 2.0, true);
        assert_eq!(p(20, 0.01, 2).lhirs(), 2);
        assert_eq!(p(900, 0.01, 2).lhirs(), 9);
        assert_eq!(p(20, 0.01, 1).lhirs(), 1);
        assert_eq!(p(2, 0.01, 2).lhirs(), 1);
        assert_eq!(p(1, 0.01, 2).llirs(), 0);
    }

    proptest! {
        #[test]
        fn bounds_hold_and_a_loose_bound_changes_nothing(
            cap in 1usize..7,
            refs in proptest::collection::vec(0u32..14, 1..300),
        ) {
            let make = |bound, size| LirsPolicy::new(cap, 14, 0.2, 1, bound, size, false);
            let base = run(make(Bound::None, 2.0), cap, &refs).stats().hits;
            for bound in [Bound::Stack, Bound::NonResident, Bound::StackNonResident] {
                // `run` checks the invariants, including the bound, after every step.
                run(make(bound, 1.0), cap, &refs);
                run(make(bound, 2.0), cap, &refs);
                prop_assert_eq!(run(make(bound, 100.0), cap, &refs).stats().hits, base);
            }
        }
    }
}
