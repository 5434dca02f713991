//! Hyperbolic caching (Blankstein, Sen & Freedman, USENIX ATC 2017): each resident block has the
//! priority n / t, its references since it entered over the time it has been in the cache; the
//! victim is the lowest priority among `samples` resident blocks drawn at random.
//!
//! As libCacheSim's `Hyperbolic.c`: 64 samples drawn uniformly with replacement, the count starts at
//! 1 when a block enters and rises on every hit, the age counts demand references since the block
//! entered, and the first sample with a strictly lower priority wins. The draws differ (libCacheSim
//! samples a bucket of its hash table, belady a slot of a dense array with a PCG stream seeded by
//! `--seed`), so misses agree within a bound, not exactly: `tests/python/test_xcheck_hyperbolic.py`.
//! Sizes do not enter the priority (libCacheSim's variant; the paper's size-aware form divides by
//! the size), so the objects model evicts by n / t until the object fits.
//!
//! Prefetching: a prefetched block enters with count 1 at the prefetch's time; its first demand
//! access is its first reference, so the count stays 1 and its time in the cache restarts there,
//! as if it had been read on that access. Pinned samples are passed over; when every sample is
//! pinned, the whole resident set is searched for the lowest unpinned priority.

use super::registry::PolicySpec;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;
use crate::error::Result;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Marks a block that is not resident in [`Sampled::slot`].
const ABSENT: u32 = u32::MAX;

/// The resident blocks in a dense array, so one can be drawn uniformly in constant time.
pub(crate) struct Sampled {
    blocks: Vec<Block>,
    slot: Vec<u32>,
    rng: Pcg64,
}

impl Sampled {
    /// An empty set over block ids `0..universe`, drawing from a stream seeded with `seed`.
    pub(crate) fn new(universe: usize, seed: u64) -> Self {
        Sampled {
            blocks: Vec::new(),
            slot: vec![ABSENT; universe],
            rng: Pcg64::seed_from_u64(seed),
        }
    }

    /// Adds non-resident `b`.
    pub(crate) fn insert(&mut self, b: Block) {
        debug_assert_eq!(self.slot[b as usize], ABSENT);
        self.slot[b as usize] = self.blocks.len() as u32;
        self.blocks.push(b);
    }

    /// Removes resident `b` (the last block takes its slot).
    pub(crate) fn remove(&mut self, b: Block) {
        let at = std::mem::replace(&mut self.slot[b as usize], ABSENT) as usize;
        let last = self.blocks.pop().expect("a resident block is listed");
        if last != b {
            self.blocks[at] = last;
            self.slot[last as usize] = at as u32;
        }
    }

    /// Replaces `out` with `n` resident blocks drawn uniformly (with replacement), calling `touch`
    /// on each as it is drawn; false (and `out` empty) when none is resident.
    /// Drawing every candidate before comparing any lets `touch` prefetch what the comparisons
    /// read, so the candidates' cache misses overlap instead of following one another.
    pub(crate) fn draw_into(
        &mut self,
        n: usize,
        out: &mut Vec<Block>,
        mut touch: impl FnMut(Block),
    ) -> bool {
        out.clear();
        if self.blocks.is_empty() {
            return false;
        }
        for _ in 0..n {
            let b = self.blocks[self.rng.random_range(0..self.blocks.len())];
            touch(b);
            out.push(b);
        }
        true
    }

    /// The stream the draws come from, for a policy's other random choices (LHD's explorers).
    pub(crate) fn rng(&mut self) -> &mut Pcg64 {
        &mut self.rng
    }

    /// The resident blocks, in slot order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = Block> + '_ {
        self.blocks.iter().copied()
    }

    /// Number of resident blocks.
    pub(crate) fn len(&self) -> usize {
        self.blocks.len()
    }

    /// Every slot names the block that points at it.
    pub(crate) fn check(&self) -> std::result::Result<(), String> {
        for (i, &b) in self.blocks.iter().enumerate() {
            if self.slot[b as usize] as usize != i {
                return Err(format!("block {b} in slot {i} points at another slot"));
            }
        }
        let listed = self.slot.iter().filter(|&&s| s != ABSENT).count();
        if listed != self.blocks.len() {
            return Err(format!(
                "{listed} blocks have slots, {} are listed",
                self.blocks.len()
            ));
        }
        Ok(())
    }
}

/// A block's references since it entered and the tick it entered at, side by side so that a
/// sampled candidate costs one cache line.
#[derive(Copy, Clone, Default)]
struct Entry {
    count: u64,
    entered: u64,
}

/// Sampled eviction of the lowest references-per-time-in-cache.
pub struct HyperbolicPolicy {
    resident: Sampled,
    state: Vec<Entry>,
    samples: usize,
    /// The current eviction's candidates (kept to reuse its allocation).
    drawn: Vec<Block>,
}

impl HyperbolicPolicy {
    /// An empty cache over ids `0..universe` drawing `samples` candidates per eviction.
    pub fn new(universe: usize, samples: usize, seed: u64) -> Self {
        HyperbolicPolicy {
            resident: Sampled::new(universe, seed),
            state: vec![Entry::default(); universe],
            samples: samples.max(1),
            drawn: Vec::new(),
        }
    }

    /// Builds from the registry's parameters (`samples`) and the spec's seed.
    pub fn from_spec(spec: &PolicySpec, _capacity: usize, universe: usize) -> Result<Self> {
        let samples = spec.usize("samples", 1, 1 << 16)?;
        Ok(Self::new(universe, samples, spec.seed))
    }

    /// References of resident `b` since it entered.
    pub fn count(&self, b: Block) -> u64 {
        self.state[b as usize].count
    }

    /// Whether `a`'s priority is strictly below `b`'s at `now` (n/t compared by cross-multiplying).
    fn lower(&self, a: Block, b: Block, now: u64) -> bool {
        let (na, ta) = (self.state[a as usize].count, self.age(a, now));
        let (nb, tb) = (self.state[b as usize].count, self.age(b, now));
        (na as u128) * (tb as u128) < (nb as u128) * (ta as u128)
    }

    /// Demand references since `b` entered, at least 1 (a block prefetched at this tick).
    fn age(&self, b: Block, now: u64) -> u64 {
        now.saturating_sub(self.state[b as usize].entered).max(1)
    }
}

impl Policy for HyperbolicPolicy {
    fn name(&self) -> &'static str {
        "hyperbolic"
    }

    #[inline]
    fn hint(&self, b: Block) {
        crate::cache::frames::prefetch(self.state.as_ptr().wrapping_add(b as usize) as *const u8);
    }

    fn on_hit(&mut self, b: Block, cx: &Access) {
        if cx.first_use {
            self.state[b as usize].entered = cx.tick;
        } else {
            self.state[b as usize].count += 1;
        }
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, cx: &Access) -> Option<Block> {
        let mut drawn = std::mem::take(&mut self.drawn);
        let state = &self.state;
        if !self.resident.draw_into(self.samples, &mut drawn, |b| {
            crate::cache::frames::prefetch(state.as_ptr().wrapping_add(b as usize) as *const u8);
            frames.hint(b);
        }) {
            self.drawn = drawn;
            return None;
        }
        let mut best: Option<Block> = None;
        for &b in &drawn {
            if frames.is_pinned(b) {
                continue;
            }
            best = Some(match best {
                Some(w) if !self.lower(b, w, cx.tick) => w,
                _ => b,
            });
        }
        if best.is_none() {
            for b in self.resident.iter().filter(|&b| !frames.is_pinned(b)) {
                best = Some(match best {
                    Some(w) if !self.lower(b, w, cx.tick) => w,
                    _ => b,
                });
            }
        }
        self.drawn = drawn;
        best
    }

    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        self.resident.remove(b);
    }

    fn on_insert(&mut self, b: Block, _kind: InsertKind, cx: &Access) {
        self.resident.insert(b);
        self.state[b as usize] = Entry {
            count: 1,
            entered: cx.tick,
        };
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    fn len(&self) -> usize {
        self.resident.len()
    }

    fn check_invariants(&self, frames: &Frames) -> std::result::Result<(), String> {
        self.resident.check()?;
        if let Some(b) = self
            .resident
            .iter()
            .find(|&b| self.state[b as usize].count == 0)
        {
            return Err(format!("resident block {b} has no reference counted"));
        }
        check_same_residents(self.resident.iter(), frames)
    }

    fn dump(&self) -> Vec<(&'static str, Vec<Block>)> {
        let mut blocks: Vec<Block> = self.resident.iter().collect();
        blocks.sort_unstable();
        vec![("resident", blocks)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::level::CacheLevel;
    use crate::policy::testutil::run;
    use crate::policy::NEVER;

    #[test]
    fn with_every_block_sampled_the_lowest_n_over_t_goes() {
        // cap 3, samples far above 3 so every block is drawn. When 4 enters at tick 6: 1 has 3
        // references over 6 ticks, 2 has 2 over 5, 3 has 1 over 4, the lowest: 3 goes.
        let level = run(HyperbolicPolicy::new(8, 256, 0), 3, &[1, 2, 3, 1, 1, 2, 4]);
        assert!(!level.frames().is_resident(3));
        assert_eq!(level.policy.count(1), 3);
        // A young block with one reference can outrank an old one with more: 4 (1 over 1) beats
        // 2 (2 over 6) and 1 (3 over 7) at tick 7, so 5 evicts 2.
        let level = run(
            HyperbolicPolicy::new(8, 256, 0),
            3,
            &[1, 2, 3, 1, 1, 2, 4, 5],
        );
        assert!(level.frames().is_resident(4) && !level.frames().is_resident(2));
    }

    #[test]
    fn the_seed_decides_the_draws_and_the_same_seed_repeats_them() {
        let refs: Vec<u32> = (0..4000u32).map(|i| (i * 7919 + i / 3) % 97).collect();
        let hits = |seed| {
            run(HyperbolicPolicy::new(97, 2, seed), 20, &refs)
                .stats()
                .hits
        };
        assert_eq!(hits(1), hits(1));
        assert!(
            (0..8).any(|s| hits(s) != hits(1)),
            "two samples: seeds differ"
        );
    }

    #[test]
    fn a_first_use_is_the_first_reference_and_restarts_the_clock() {
        let mut level = CacheLevel::new(HyperbolicPolicy::new(8, 256, 0), 2, 8);
        level.prefetch(1, NEVER);
        level.access(2, NEVER);
        level.access(2, NEVER);
        level.access(1, NEVER);
        assert_eq!(level.policy.count(1), 1);
        // 1: 1 over 1 (restarted at tick 2); 2: 2 over 3 at tick 3: 2 goes.
        level.access(3, NEVER);
        assert!(level.frames().is_resident(1) && !level.frames().is_resident(2));
    }

    #[test]
    fn pinned_samples_are_passed_over() {
        let mut level = CacheLevel::new(HyperbolicPolicy::new(8, 1, 0), 2, 8);
        level.access(1, NEVER);
        level.access(2, NEVER);
        level.access(2, NEVER);
        level.set_pinned(2, true);
        // Whatever the one sample draws, the pinned block stays.
        level.access(3, NEVER);
        assert!(level.frames().is_resident(2) && !level.frames().is_resident(1));
        level.check().unwrap();
    }
}
