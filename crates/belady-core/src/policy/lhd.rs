//! LHD, Least Hit Density (Beckmann, Chen & Cidon, "LHD: Improving cache hit rate by maximizing
//! hit density", NSDI 2018), with the steps of the authors' simulator as libCacheSim carries it
//! (`LHD/lhd.cpp`), so that miss ratios agree within a bound (`tests/python/test_xcheck_lhd.py`).
//!
//! Each resident object's hit density is the expected hits per unit of space and time its class
//! earns at its age, divided by its size; the victim is the lowest density among `associativity`
//! objects drawn at random (8 until the model has been reconfigured 50 times) and the last
//! `admissions` objects admitted with a density below the running average of victims' densities.
//! - Time counts references (hits and insertions). An age is the time since the object's last
//!   reference, shifted right by a coarsening (10 bits at first); an age of `MAX_AGE - 1` (20000)
//!   or more ranks below everything.
//! - An object's class is the log of its last two hit ages' sum (16 classes); each class keeps, per
//!   age, decayed counts of hits and evictions. Every 2^20 references the counts decay by 0.9 and
//!   the densities are recomputed from them (the paper's hits over expected lifetime, summed from
//!   the oldest age down); the coarsening is adapted to the number of objects at the 5th and 25th
//!   reconfiguration. Before the first reconfiguration the densities are libCacheSim's start
//!   values, `(class + 1) / (age + 1)` with the class numbered as libCacheSim numbers it (its
//!   application 1: classes 16 to 31), a GDSF-like order.
//! - One reference in 32 makes its object an explorer (density + 1, never a likely victim) while
//!   explorers weigh under 1 % of the cache, during the first 50 reconfigurations.
//!
//! The random draws differ from libCacheSim's (its own generator, belady a PCG stream seeded by
//! `--seed`, one stream for the samples and the explorer draws), so victims differ now and then and
//! miss ratios agree within a bound, not exactly; docs/policies.md gives the measured gap. Sizes:
//! an object keeps the size it entered with (libCacheSim's tag takes each request's size, which
//! only differs when a trace changes an object's size).
//!
//! Prefetching: a prefetched object enters stamped at the prefetch's time without counting as a
//! reference; its first demand access is its first reference (restamped, the explorer drawn, time
//! advanced), with no hit counted for its class. Pinned samples are passed over; when every sample
//! and admission is pinned, the whole resident set is searched.

use super::hyperbolic::Sampled;
use super::registry::PolicySpec;
use super::{check_same_residents, Access, Block, Evicted, InsertKind, Policy};
use crate::cache::frames::Frames;
use crate::error::Result as CoreResult;
use rand::Rng;

/// Ages are coarsened into this many slots; the last one means "too old".
const MAX_AGE: usize = 20_000;
/// Classes by the log of the last two hit ages.
const HIT_AGE_CLASSES: usize = 16;
/// libCacheSim's application id, which numbers the classes its start densities use.
const APP: usize = 1;
/// References between reconfigurations of the model.
const RECONFIGURE_EVERY: u64 = 1 << 20;
/// Decay of the hit and eviction counts per reconfiguration, and of the victims' average.
const EWMA_DECAY: f32 = 0.9;
/// One reference in this many makes an explorer.
const EXPLORE_INVERSE_PROBABILITY: u32 = 32;
/// Explorers may weigh this share of the cache.
const EXPLORER_BUDGET_FRACTION: f32 = 0.01;
/// The coarsening aims at ages within this share of `MAX_AGE`.
const AGE_COARSENING_ERROR_TOLERANCE: f32 = 0.01;
/// Reconfigurations after which sampling uses `associativity` candidates (8 before).
const WARMUP_RECONFIGURATIONS: u32 = 50;
/// Candidates drawn per eviction during warm-up.
const WARMUP_CANDIDATES: usize = 8;

/// Per-age statistics of one class.
struct Class {
    hits: Vec<f32>,
    evictions: Vec<f32>,
    densities: Vec<f32>,
}

/// What LHD tracks about a resident object.
#[derive(Clone, Copy, Default)]
struct Tag {
    /// Time of the last reference.
    stamp: u64,
    last_hit_age: u64,
    last_last_hit_age: u64,
    size: u32,
    explorer: bool,
}

/// Least Hit Density with the authors' model and libCacheSim's settings.
pub struct LhdPolicy {
    resident: Sampled,
    tags: Vec<Tag>,
    classes: Vec<Class>,
    associativity: usize,
    /// The last objects admitted with a density below the victims' average (a ring).
    recent: Vec<Option<Block>>,
    recent_head: usize,
    ewma_victim_density: f32,
    explorer_budget: i64,
    now: u64,
    next_reconfiguration: u64,
    reconfigurations: u32,
    coarsening_shift: u32,
    ewma_objects: f32,
    ewma_objects_mass: f32,
    /// The current eviction's sampled candidates (kept to reuse its allocation).
    drawn: Vec<Block>,
}

impl LhdPolicy {
    /// An empty LHD over ids `0..universe` for a cache of `capacity` units (blocks or bytes),
    /// drawing from a stream seeded with `seed`.
    pub fn new(
        universe: usize,
        capacity: usize,
        associativity: usize,
        admissions: usize,
        seed: u64,
    ) -> Self {
        let classes = (0..HIT_AGE_CLASSES)
            .map(|h| {
                let id = (APP * HIT_AGE_CLASSES + h) as f64;
                Class {
                    hits: vec![0.0; MAX_AGE],
                    evictions: vec![0.0; MAX_AGE],
                    densities: (0..MAX_AGE)
                        .map(|a| ((id + 1.0) / (a as f64 + 1.0)) as f32)
                        .collect(),
                }
            })
            .collect();
        LhdPolicy {
            resident: Sampled::new(universe, seed),
            tags: vec![Tag::default(); universe],
            classes,
            associativity: associativity.max(1),
            recent: vec![None; admissions],
            recent_head: 0,
            ewma_victim_density: 0.0,
            explorer_budget: (capacity as f32 * EXPLORER_BUDGET_FRACTION) as i64,
            now: 0,
            next_reconfiguration: RECONFIGURE_EVERY,
            reconfigurations: 0,
            coarsening_shift: 10,
            ewma_objects: 0.0,
            ewma_objects_mass: 0.0,
            drawn: Vec::new(),
        }
    }

    /// Reads `associativity` and `admissions` from `spec`, and its seed.
    pub fn from_spec(spec: &PolicySpec, capacity: usize, universe: usize) -> CoreResult<Self> {
        let associativity = spec.usize("associativity", 1, 1 << 16)?;
        let admissions = spec.usize("admissions", 0, 1 << 10)?;
        Ok(Self::new(
            universe,
            capacity,
            associativity,
            admissions,
            spec.seed,
        ))
    }

    /// The coarsened age of `b` now; `MAX_AGE - 1` for anything older.
    fn age(&self, b: Block) -> usize {
        let age = (self.now - self.tags[b as usize].stamp) >> self.coarsening_shift;
        age.min(MAX_AGE as u64 - 1) as usize
    }

    /// The class of a tag: about log(MAX_AGE / (its last two hit ages' sum)).
    fn class_of(tag: &Tag) -> usize {
        let mut age = tag.last_hit_age + tag.last_last_hit_age;
        if age == 0 {
            return HIT_AGE_CLASSES - 1;
        }
        let mut log = 0;
        while age < MAX_AGE as u64 && log < HIT_AGE_CLASSES - 1 {
            age <<= 1;
            log += 1;
        }
        log
    }

    /// The hit density of resident `b` (per unit of size).
    fn density(&self, b: Block) -> f32 {
        let age = self.age(b);
        if age == MAX_AGE - 1 {
            return f32::MIN;
        }
        let tag = &self.tags[b as usize];
        let mut density = self.classes[Self::class_of(tag)].densities[age] / tag.size as f32;
        if tag.explorer {
            density += 1.0;
        }
        density
    }

    /// A reference to `b` (a hit when `hit`, else its insertion or first use): stamps it, draws
    /// whether it explores, and advances time.
    fn reference(&mut self, b: Block, hit: bool, inserted: bool) {
        if hit {
            let age = self.age(b);
            let tag = self.tags[b as usize];
            self.classes[Self::class_of(&tag)].hits[age] += 1.0;
            let tag = &mut self.tags[b as usize];
            tag.last_last_hit_age = tag.last_hit_age;
            tag.last_hit_age = age as u64;
        }
        let tag = &mut self.tags[b as usize];
        if tag.explorer {
            self.explorer_budget += tag.size as i64;
        }
        tag.stamp = self.now;
        let explore = self
            .resident
            .rng()
            .random_range(0..EXPLORE_INVERSE_PROBABILITY)
            == 0;
        let tag = &mut self.tags[b as usize];
        tag.explorer =
            explore && self.explorer_budget > 0 && self.reconfigurations < WARMUP_RECONFIGURATIONS;
        if tag.explorer {
            self.explorer_budget -= tag.size as i64;
        }
        if inserted
            && !explore
            && !self.recent.is_empty()
            && self.density(b) < self.ewma_victim_density
        {
            let slot = self.recent_head % self.recent.len();
            self.recent[slot] = Some(b);
            self.recent_head += 1;
        }
        self.now += 1;
        self.next_reconfiguration -= 1;
        if self.next_reconfiguration == 0 {
            self.reconfigure();
            self.next_reconfiguration = RECONFIGURE_EVERY;
            self.reconfigurations += 1;
        }
    }

    /// Decays the counts, adapts the coarsening and recomputes every class's densities.
    fn reconfigure(&mut self) {
        for cl in &mut self.classes {
            for a in 0..MAX_AGE {
                cl.hits[a] *= EWMA_DECAY;
                cl.evictions[a] *= EWMA_DECAY;
            }
        }
        self.adapt_coarsening();
        for cl in &mut self.classes {
            let mut events = cl.hits[MAX_AGE - 1] + cl.evictions[MAX_AGE - 1];
            let mut hits = cl.hits[MAX_AGE - 1];
            // The expected lifetime from each age, accumulated from the oldest age down.
            let mut lifetime = events;
            for a in (0..MAX_AGE - 1).rev() {
                hits += cl.hits[a];
                events += cl.hits[a] + cl.evictions[a];
                lifetime += events;
                cl.densities[a] = if events > 1e-5 { hits / lifetime } else { 0.0 };
            }
        }
    }

    /// At the 5th and 25th reconfiguration, sets the coarsening so that the average number of
    /// resident objects spans about 1 % of the ages, and rescales the counts to it.
    fn adapt_coarsening(&mut self) {
        self.ewma_objects = self.ewma_objects * EWMA_DECAY + self.resident.len() as f32;
        self.ewma_objects_mass = self.ewma_objects_mass * EWMA_DECAY + 1.0;
        if self.reconfigurations != 5 && self.reconfigurations != 25 {
            return;
        }
        let objects = self.ewma_objects / self.ewma_objects_mass;
        let optimal = objects as f64 / (AGE_COARSENING_ERROR_TOLERANCE * MAX_AGE as f32) as f64;
        let mut log2 = 1u32;
        while ((1u64 << log2) as f64) < optimal {
            log2 += 1;
        }
        let delta = log2 as i64 - self.coarsening_shift as i64;
        self.coarsening_shift = log2;
        self.ewma_objects *= 8.0;
        self.ewma_objects_mass *= 8.0;
        for cl in &mut self.classes {
            for counts in [&mut cl.hits, &mut cl.evictions] {
                rescale(counts, delta);
            }
        }
    }
}

/// Stretches (`delta < 0`) or compresses (`delta > 0`) per-age counts to a new coarsening, as
/// the authors' code does.
fn rescale(counts: &mut [f32], delta: i64) {
    let shift = delta.unsigned_abs() as u32;
    if shift == 0 || shift >= 32 {
        return;
    }
    if delta < 0 {
        for a in (MAX_AGE >> shift)..MAX_AGE - 1 {
            counts[MAX_AGE - 1] += counts[a];
        }
        for a in (0..MAX_AGE - 1).rev() {
            counts[a] = counts[a >> shift] / (1u32 << shift) as f32;
        }
    } else {
        for a in 0..(MAX_AGE >> shift) {
            let from = a << shift;
            counts[a] = counts[from..from + (1 << shift)].iter().sum();
        }
        for c in counts.iter_mut().take(MAX_AGE - 1).skip(MAX_AGE >> shift) {
            *c = 0.0;
        }
    }
}

impl Policy for LhdPolicy {
    fn name(&self) -> &'static str {
        "lhd"
    }

    #[inline]
    fn hint(&self, b: Block) {
        crate::cache::frames::prefetch(self.tags.as_ptr().wrapping_add(b as usize) as *const u8);
    }

    fn on_hit(&mut self, b: Block, cx: &Access) {
        self.reference(b, !cx.first_use, false);
    }

    fn select_victim(&mut self, _incoming: Block, frames: &Frames, _cx: &Access) -> Option<Block> {
        let candidates = if self.reconfigurations > WARMUP_RECONFIGURATIONS {
            self.associativity
        } else {
            WARMUP_CANDIDATES
        };
        // The first candidate of strictly lowest density wins.
        fn consider(victim: &mut Option<(Block, f32)>, b: Block, density: f32) {
            if victim.map_or(true, |(_, best)| density < best) {
                *victim = Some((b, density));
            }
        }
        let mut victim: Option<(Block, f32)> = None;
        let mut drawn = std::mem::take(&mut self.drawn);
        let tags = &self.tags;
        let any = self.resident.draw_into(candidates, &mut drawn, |b| {
            crate::cache::frames::prefetch(tags.as_ptr().wrapping_add(b as usize) as *const u8);
            frames.hint(b);
        });
        for &b in &drawn {
            if !frames.is_pinned(b) {
                consider(&mut victim, b, self.density(b));
            }
        }
        self.drawn = drawn;
        if !any {
            return None;
        }
        for &b in self.recent.iter().flatten() {
            if frames.is_resident(b) && !frames.is_pinned(b) {
                consider(&mut victim, b, self.density(b));
            }
        }
        if victim.is_none() {
            for b in self.resident.iter().filter(|&b| !frames.is_pinned(b)) {
                consider(&mut victim, b, self.density(b));
            }
        }
        let (b, density) = victim?;
        self.ewma_victim_density =
            EWMA_DECAY * self.ewma_victim_density + (1.0 - EWMA_DECAY) * density;
        Some(b)
    }

    fn on_evict(&mut self, b: Block, _ev: Evicted, _cx: &Access) {
        let age = self.age(b);
        let tag = self.tags[b as usize];
        self.classes[Self::class_of(&tag)].evictions[age] += 1.0;
        if tag.explorer {
            self.explorer_budget += tag.size as i64;
        }
        self.tags[b as usize].explorer = false;
        self.resident.remove(b);
    }

    fn on_insert(&mut self, b: Block, kind: InsertKind, cx: &Access) {
        self.resident.insert(b);
        self.tags[b as usize] = Tag {
            stamp: self.now,
            last_hit_age: 0,
            last_last_hit_age: MAX_AGE as u64,
            size: u32::try_from(cx.size).unwrap_or(u32::MAX).max(1),
            explorer: false,
        };
        if kind == InsertKind::Demand {
            self.reference(b, false, true);
        }
    }

    fn weighs_objects(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    fn len(&self) -> usize {
        self.resident.len()
    }

    fn check_invariants(&self, frames: &Frames) -> std::result::Result<(), String> {
        self.resident.check()?;
        check_same_residents(self.resident.iter(), frames)?;
        if let Some(b) = self
            .resident
            .iter()
            .find(|&b| self.tags[b as usize].stamp > self.now)
        {
            return Err(format!("resident object {b} is stamped in the future"));
        }
        Ok(())
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

    fn lhd(seed: u64) -> LhdPolicy {
        LhdPolicy::new(64, 8, 256, 8, seed)
    }

    #[test]
    fn classes_follow_the_log_of_the_last_two_hit_ages() {
        let tag = |last, last_last| Tag {
            last_hit_age: last,
            last_last_hit_age: last_last,
            ..Tag::default()
        };
        // A new object (ages 0 and MAX_AGE) is in class 0; a hit at age 0 twice in the last.
        assert_eq!(LhdPolicy::class_of(&tag(0, MAX_AGE as u64)), 0);
        assert_eq!(LhdPolicy::class_of(&tag(0, 0)), HIT_AGE_CLASSES - 1);
        // 1 doubles 15 times before reaching 20000 (capped at 15), 2 fourteen times, 10000 once.
        assert_eq!(LhdPolicy::class_of(&tag(1, 0)), 15);
        assert_eq!(LhdPolicy::class_of(&tag(1, 1)), 14);
        assert_eq!(LhdPolicy::class_of(&tag(5000, 5000)), 1);
    }

    #[test]
    fn before_any_reconfiguration_a_hit_object_outranks_a_new_one() {
        // cap 2, every object sampled (associativity only applies after warm-up, but 8 draws of
        // 2 objects miss one with probability 2^-7; the admissions list holds 2's insertion if
        // its density was below the running average). 1 hits at age 0: class 15, density 32;
        // 2 is new: class 0, density 17. 3 evicts 2 whatever the seed, as long as 2 is drawn.
        for seed in 0..8 {
            let level = run(lhd(seed), 2, &[1, 2, 1, 3]);
            assert!(level.frames().is_resident(1), "seed {seed}");
            assert!(!level.frames().is_resident(2), "seed {seed}");
        }
    }

    #[test]
    fn larger_objects_have_lower_density() {
        // 100 bytes: 1 (10 B) and 2 (80 B), both new (density 17 / size). 3 (20 B) evicts 2.
        let mut level = CacheLevel::weighted(lhd(0), 100, 64);
        level.access_sized(1, 10, NEVER);
        level.access_sized(2, 80, NEVER);
        level.access_sized(3, 20, NEVER);
        level.check().unwrap();
        assert!(level.frames().is_resident(1) && !level.frames().is_resident(2));
    }

    #[test]
    fn the_seed_decides_the_draws_and_repeats_them() {
        let refs: Vec<u32> = (0..6000u32).map(|i| (i * 7919 + i / 3) % 61).collect();
        let hits = |seed| run(lhd(seed), 20, &refs).stats().hits;
        assert_eq!(hits(3), hits(3));
        assert!((0..8).any(|s| hits(s) != hits(3)));
    }

    #[test]
    fn rescaling_folds_and_spreads_the_counts_as_the_authors_code() {
        let mut counts = vec![0.0f32; MAX_AGE];
        counts[0] = 4.0;
        counts[5] = 2.0;
        counts[MAX_AGE - 1] = 1.0;
        let mut compressed = counts.clone();
        rescale(&mut compressed, 2); // ages 0..3 fold into 0, 4..7 into 1, ...
        assert_eq!((compressed[0], compressed[1]), (4.0, 2.0));
        // The oldest slot is folded into slot 4999 and also kept (the authors' loop bounds).
        assert_eq!(
            (compressed[MAX_AGE / 4 - 1], compressed[MAX_AGE - 1]),
            (1.0, 1.0)
        );
        assert_eq!(compressed.iter().sum::<f32>(), 8.0);
        let mut stretched = counts;
        rescale(&mut stretched, -1); // age a takes half of age a / 2
        assert_eq!((stretched[0], stretched[1]), (2.0, 2.0));
        assert_eq!(
            (stretched[10], stretched[11], stretched[5]),
            (1.0, 1.0, 0.0)
        );
    }

    #[test]
    fn a_first_use_is_a_reference_without_a_hit() {
        let mut level = CacheLevel::new(lhd(0), 4, 64);
        level.prefetch(1, NEVER);
        assert_eq!(level.policy.now, 0, "a prefetch is not a reference");
        level.access(1, NEVER);
        assert_eq!(level.policy.now, 1);
        assert_eq!(level.policy.classes[0].hits[0], 0.0);
        level.access(1, NEVER);
        assert_eq!(level.policy.classes[0].hits[0], 1.0);
        level.check().unwrap();
    }
}
