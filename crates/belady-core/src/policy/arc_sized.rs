//! ARC over objects of different sizes, as libCacheSim's `ARC.c` (libcachesim 0.3.5) runs it:
//! T1, T2, B1 and B2 and the target p are counted in units (bytes in the objects model, blocks
//! otherwise), so with unit sizes it is the paper's ARC with a real-valued p.
//!
//! What libCacheSim adds for variable sizes, followed here:
//! - A ghost hit adapts p by `max(|B2|/|B1|, 1)` (or the inverse), in units, capped at the cache
//!   size, and leaves its ghost list when the miss is looked up, before any eviction (also when
//!   the object is then not admitted: the level reports such misses by `on_unplaced_miss`).
//! - While the missed object does not fit, each eviction after a ghost hit is REPLACE; after a
//!   miss on every list, when `|T1| + |B1| + size > c`, B1's oldest entry is dropped before
//!   REPLACE, or, with B1 empty, T1's oldest block leaves without a ghost; otherwise B2's oldest
//!   entry is dropped when all four lists hold at least 2c, then REPLACE.
//! - REPLACE takes T1's LRU block into B1 when `|T1| > p`, or `|T1| = p` and the last ghost hit
//!   was in B2, or T2 is empty; else T2's LRU block into B2.
//! - An object keeps the size it entered with (its ghost too); a hit in T1 moves it to T2.

use super::structures::weighted_lists::WeightedLists;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;

const T1: usize = 0;
const T2: usize = 1;
const B1: usize = 2;
const B2: usize = 3;

/// ARC weighing its lists in units (libCacheSim's byte-based ARC).
pub struct ArcSizedPolicy {
    /// T1, T2, B1 and B2, each block weighing the units it entered with.
    lists: WeightedLists,
    /// Target size of T1, in units.
    p: f64,
    /// Cache size in units (known from the frame table at the first eviction).
    c: u64,
    /// The last lookup found the block in B1 / B2 (libCacheSim's `curr_obj_in_L*_ghost`).
    in_b1: bool,
    in_b2: bool,
    /// Tick of the miss whose ghost hit is being served, if any.
    ghost_tick: Option<u64>,
    /// Tick of the miss already looked up.
    looked_up: Option<u64>,
    /// Whether the victim chosen goes to its ghost list.
    victim_to_ghost: bool,
}

impl ArcSizedPolicy {
    /// An empty ARC over block ids `0..universe`.
    pub fn new(universe: usize) -> Self {
        ArcSizedPolicy {
            lists: WeightedLists::new(4, universe),
            p: 0.0,
            c: 0,
            in_b1: false,
            in_b2: false,
            ghost_tick: None,
            looked_up: None,
            victim_to_ghost: true,
        }
    }

    /// libCacheSim's lookup of a missed block: a ghost hit adapts p and leaves its list.
    fn look_up(&mut self, b: Block, cx: &Access) {
        if self.looked_up == Some(cx.tick) {
            return;
        }
        self.looked_up = Some(cx.tick);
        let (b1, b2) = (self.lists.units(B1) as f64, self.lists.units(B2) as f64);
        match self.lists.list_of(b) {
            Some(B1) => {
                (self.in_b1, self.in_b2) = (true, false);
                self.p = (self.p + (b2 / b1).max(1.0)).min(self.c as f64);
            }
            Some(B2) => {
                (self.in_b1, self.in_b2) = (false, true);
                self.p = (self.p - (b1 / b2).max(1.0)).max(0.0);
            }
            _ => return,
        }
        self.ghost_tick = Some(cx.tick);
        self.lists.remove(b);
    }

    fn ghost_hit_now(&self, cx: &Access) -> bool {
        self.ghost_tick == Some(cx.tick) && (self.in_b1 || self.in_b2)
    }

    /// REPLACE's choice: T1's LRU block or T2's.
    fn replace(&self) -> Option<Block> {
        let t1 = self.lists.units(T1) as f64;
        let from_t1 = (t1 > 0.0 && (t1 > self.p || (t1 == self.p && self.in_b2)))
            || self.lists.units(T2) == 0;
        self.lists.back(if from_t1 { T1 } else { T2 })
    }
}

impl Policy for ArcSizedPolicy {
    fn name(&self) -> &'static str {
        "arc"
    }

    fn on_hit(&mut self, b: Block, _cx: &Access) {
        (self.in_b1, self.in_b2) = (false, false);
        // A hit in T1 moves the block to T2; a hit in T2 to its MRU end.
        self.lists.move_to_front(T2, b);
    }

    fn select_victim(&mut self, incoming: Block, frames: &Frames, cx: &Access) -> Option<Block> {
        self.c = frames.capacity() as u64;
        self.look_up(incoming, cx);
        self.victim_to_ghost = true;
        let victim = if self.ghost_hit_now(cx) {
            self.replace()
        } else if self.lists.units(T1) + self.lists.units(B1) + cx.size > self.c {
            if self.lists.units(B1) > 0 {
                self.lists.pop_back(B1);
                self.replace()
            } else {
                self.victim_to_ghost = false;
                self.lists.back(T1)
            }
        } else {
            if self.lists.total_units() >= 2 * self.c && self.lists.units(B2) > 0 {
                self.lists.pop_back(B2);
            }
            self.replace()
        };
        // Pinned blocks do not occur in the objects model (no I/O in flight); a pinned victim
        // is refused rather than evicted.
        victim.filter(|&v| !frames.is_pinned(v))
    }

    fn on_evict(&mut self, b: Block, ev: Evicted, _cx: &Access) {
        let Some(l) = self.lists.remove(b) else {
            return;
        };
        if self.victim_to_ghost && !ev.unused_prefetch {
            self.lists.push_front(if l == T1 { B1 } else { B2 }, b);
        }
        self.victim_to_ghost = true;
    }

    fn on_insert(&mut self, b: Block, kind: InsertKind, cx: &Access) {
        if kind == InsertKind::Demand {
            self.look_up(b, cx);
        }
        self.lists.set_weight(b, cx.size);
        if kind == InsertKind::Demand && self.ghost_hit_now(cx) {
            self.lists.push_front(T2, b);
            (self.in_b1, self.in_b2) = (false, false);
            self.ghost_tick = None;
        } else {
            self.lists.push_front(T1, b);
        }
    }

    fn on_unplaced_miss(&mut self, b: Block, cx: &Access) {
        self.look_up(b, cx);
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    fn len(&self) -> usize {
        self.lists.len(T1) + self.lists.len(T2)
    }

    fn check_invariants(&self, frames: &Frames) -> Result<(), String> {
        self.lists.check()?;
        check_same_residents(self.lists.iter(T1).chain(self.lists.iter(T2)), frames)?;
        if self.lists.units(T1) + self.lists.units(T2) != frames.used() {
            return Err("T1 + T2 differ from the frame table's use".into());
        }
        Ok(())
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        vec![
            ("T1", self.lists.iter(T1).collect()),
            ("T2", self.lists.iter(T2).collect()),
            ("B1", self.lists.iter(B1).collect()),
            ("B2", self.lists.iter(B2).collect()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::{CacheLevel, NO_ORACLE};
    use crate::policy::arc::ArcPolicy;
    use crate::policy::registry::{parse_policies, Preset};

    #[test]
    fn with_unit_sizes_it_is_the_papers_arc() {
        // A skewed reference string with loops: both ARCs must agree hit for hit.
        let mut x: u64 = 99;
        let refs: Vec<Block> = (0..20_000)
            .map(|i| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                let r = ((x >> 33) % 600) as u32;
                if i % 7 == 0 {
                    (i / 7 % 300) as u32
                } else {
                    r * r / 599
                }
            })
            .collect();
        let spec = &parse_policies("arc", &[], Preset::Paper).unwrap()[0];
        for c in [5, 37, 120] {
            let mut paper = CacheLevel::new(ArcPolicy::from_spec(spec, c, 600).unwrap(), c, 600);
            let mut sized = CacheLevel::new(ArcSizedPolicy::new(600), c, 600);
            for &b in &refs {
                paper.access(b, NO_ORACLE);
                sized.access(b, NO_ORACLE);
                sized.check().unwrap();
            }
            assert_eq!(paper.stats().hits, sized.stats().hits, "c = {c}");
        }
    }

    #[test]
    fn a_b1_ghost_hit_grows_p_and_enters_t2() {
        let mut level = CacheLevel::weighted(ArcSizedPolicy::new(8), 100, 8);
        for (b, s) in [(1, 40), (1, 40), (2, 40), (3, 40)] {
            level.access_sized(b, s, NO_ORACLE);
            level.check().unwrap();
        }
        // 3 made room by REPLACE: |T1| = 40 > p = 0, so T1's LRU block 2 went to B1.
        assert_eq!(level.policy.dump()[2], ("B1", vec![2]));
        level.access_sized(2, 40, NO_ORACLE);
        level.check().unwrap();
        let dump = level.policy.dump();
        assert_eq!(dump[1], ("T2", vec![2, 1]));
        assert_eq!(dump[2], ("B1", vec![3]));
        assert_eq!(level.policy.p, 1.0, "|B2| / |B1| < 1: p grows by one unit");
    }

    #[test]
    fn with_b1_empty_t1_overflow_leaves_no_ghost() {
        let mut level = CacheLevel::weighted(ArcSizedPolicy::new(8), 100, 8);
        for (b, s) in [(1, 40), (2, 40), (3, 40)] {
            level.access_sized(b, s, NO_ORACLE);
        }
        level.check().unwrap();
        assert_eq!(level.policy.dump()[2], ("B1", vec![]));
    }
}
