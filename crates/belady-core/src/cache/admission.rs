//! Admission filters: consulted by a cache level on a demand miss, before anything is evicted,
//! to decide whether the missed block enters at all.
//!
//! - `none`: every miss enters (the default).
//! - `tinylfu`: TinyLFU (Einziger, Friedman & Manes, ToS 2017) as Caffeine's simulator has it: a
//!   count-min sketch of 4-bit counters records every access, a doorkeeper (a Bloom filter) takes
//!   each block's first access of a period, and every `10 x entries` accesses all counters are
//!   halved and the doorkeeper cleared. A miss enters when its estimate beats that of the block
//!   the policy would evict first (strictly greater, as Caffeine's `TinyLfu.admit`).
//! - `size:BYTES`: objects up to BYTES enter (the size threshold of CDN caches); in the blocks
//!   model every block weighs its block size.
//! - `prob:P`: a miss enters with probability P, from a PCG stream seeded by the run's seed, so a
//!   run is reproducible.

use crate::cache::size::CacheSize;
use crate::error::{Error, Result};
use crate::policy::Block;
use rand::{Rng as _, SeedableRng};

/// An admission filter as configured, before it is built for a level.
#[derive(Clone, Debug, PartialEq)]
pub enum AdmissionSpec {
    /// TinyLFU with a doorkeeper.
    TinyLfu,
    /// Admit objects of at most this many bytes.
    MaxBytes(u64),
    /// Admit with this probability.
    Probability(f64),
}

impl AdmissionSpec {
    /// Parses `none` (giving `None`), `tinylfu`, `size:BYTES` or `prob:P`; errors name key
    /// `admission`.
    pub fn parse(text: &str) -> Result<Option<AdmissionSpec>> {
        let t = text.trim();
        let bad = |msg: &str| Error::config("admission", text, msg.to_string());
        let (name, arg) = match t.split_once(':') {
            Some((n, a)) => (n.trim(), Some(a.trim())),
            None => (t, None),
        };
        match (name.to_ascii_lowercase().as_str(), arg) {
            ("none" | "off" | "", None) => Ok(None),
            ("tinylfu", None) => Ok(Some(AdmissionSpec::TinyLfu)),
            ("size", Some(a)) => match CacheSize::parse_as(a, "admission") {
                Ok(CacheSize::Bytes(b) | CacheSize::Blocks(b)) => {
                    Ok(Some(AdmissionSpec::MaxBytes(b)))
                }
                _ => Err(bad("size:BYTES takes a byte size such as size:64KiB")),
            },
            ("prob", Some(a)) => match a.parse::<f64>() {
                Ok(p) if (0.0..=1.0).contains(&p) => Ok(Some(AdmissionSpec::Probability(p))),
                _ => Err(bad(
                    "prob:P takes a probability from 0 to 1, such as prob:0.25",
                )),
            },
            _ => Err(bad(
                "expected none, tinylfu, size:BYTES (size:64KiB) or prob:P (prob:0.25)",
            )),
        }
    }

    /// The filter for one level: `entries` is the number of blocks or objects the level holds
    /// about and `universe` the trace's distinct ids (TinyLFU sizes its sketch and period by the
    /// smaller, [`crate::limits::entries_for`]), `unit_bytes` the bytes one unit of weight stands
    /// for (the block size in the blocks model, 1 for objects), `seed` the run's.
    pub fn build(&self, entries: usize, universe: usize, unit_bytes: u64, seed: u64) -> Admission {
        match *self {
            AdmissionSpec::TinyLfu => Admission::TinyLfu(TinyLfu::new(entries, universe)),
            AdmissionSpec::MaxBytes(max) => Admission::MaxUnits(max / unit_bytes.max(1)),
            AdmissionSpec::Probability(p) => Admission::Probability {
                p,
                rng: rand_pcg::Pcg64::seed_from_u64(seed),
            },
        }
    }
}

impl std::fmt::Display for AdmissionSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AdmissionSpec::TinyLfu => write!(f, "tinylfu"),
            AdmissionSpec::MaxBytes(b) => write!(f, "size:{b}"),
            AdmissionSpec::Probability(p) => write!(f, "prob:{}", crate::error::show_f64(*p)),
        }
    }
}

/// A built admission filter, owned by one cache level.
#[derive(Clone, Debug)]
pub enum Admission {
    /// TinyLFU's frequency sketch.
    TinyLfu(TinyLfu),
    /// Blocks or objects of at most this many units of weight enter.
    MaxUnits(u64),
    /// Enter with probability `p`.
    Probability {
        /// The probability.
        p: f64,
        /// The seeded stream.
        rng: rand_pcg::Pcg64,
    },
}

impl Admission {
    /// Records a demand access to `b` (every access, hit or miss; only TinyLFU keeps anything).
    #[inline]
    pub fn record(&mut self, b: Block) {
        if let Admission::TinyLfu(t) = self {
            t.record(b);
        }
    }

    /// Whether [`Admission::admit`] needs the policy's first victim.
    #[inline]
    pub fn needs_victim(&self) -> bool {
        matches!(self, Admission::TinyLfu(_))
    }

    /// Whether missed `candidate` of `weight` units enters, given the block the policy would
    /// evict first (`None` when nothing would be evicted).
    pub fn admit(&mut self, candidate: Block, weight: u64, victim: Option<Block>) -> bool {
        match self {
            Admission::TinyLfu(t) => victim.map_or(true, |v| t.estimate(candidate) > t.estimate(v)),
            Admission::MaxUnits(max) => weight <= *max,
            Admission::Probability { p, rng } => rng.random::<f64>() < *p,
        }
    }
}

/// Rows of the count-min sketch.
const DEPTH: usize = 4;
/// Bits the doorkeeper sets per block.
const DOOR_BITS: usize = 3;
/// A 4-bit counter's largest value.
const MAX_COUNT: u8 = 15;

/// TinyLFU: a count-min sketch of 4-bit counters behind a doorkeeper, aged by halving.
#[derive(Clone, Debug)]
pub struct TinyLfu {
    /// `DEPTH` rows of `mask + 1` counters (one byte each; values stay within 4 bits).
    counters: Vec<u8>,
    mask: u64,
    /// The doorkeeper's bits.
    door: Vec<u64>,
    door_mask: u64,
    /// Accesses since the last halving, and the period.
    additions: u64,
    sample: u64,
}

impl TinyLfu {
    /// A sketch for a cache of about `entries` blocks over a trace of `universe` distinct ones:
    /// rows of the next power of two at or above the smaller (at least 16), halving every
    /// `10 x` that many accesses (Caffeine's sample size), and a doorkeeper of 10 bits per access
    /// of a period (under 2% false positives with three bits per block). A cache at least as
    /// large as the trace never evicts, so the sketch is never consulted past its ids.
    pub fn new(entries: usize, universe: usize) -> TinyLfu {
        let entries = crate::limits::entries_for(entries, universe);
        let width = entries.max(16).next_power_of_two();
        let door_bits = (entries.max(16) * 100).next_power_of_two();
        TinyLfu {
            counters: vec![0; width * DEPTH],
            mask: width as u64 - 1,
            door: vec![0; door_bits / 64],
            door_mask: door_bits as u64 - 1,
            additions: 0,
            sample: 10 * entries.max(1) as u64,
        }
    }

    fn hash(b: Block, row: usize) -> u64 {
        // splitmix64's finaliser over the block and the row: independent enough per row.
        let mut z = (b as u64)
            .wrapping_add((row as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn door_bit(&self, b: Block, k: usize) -> (usize, u64) {
        let bit = Self::hash(b, DEPTH + k) & self.door_mask;
        ((bit / 64) as usize, 1 << (bit % 64))
    }

    fn in_door(&self, b: Block) -> bool {
        (0..DOOR_BITS).all(|k| {
            let (w, m) = self.door_bit(b, k);
            self.door[w] & m != 0
        })
    }

    /// Records an access: the first of a period only enters the doorkeeper.
    pub fn record(&mut self, b: Block) {
        if self.in_door(b) {
            for row in 0..DEPTH {
                let i = row * (self.mask as usize + 1) + (Self::hash(b, row) & self.mask) as usize;
                if self.counters[i] < MAX_COUNT {
                    self.counters[i] += 1;
                }
            }
        } else {
            for k in 0..DOOR_BITS {
                let (w, m) = self.door_bit(b, k);
                self.door[w] |= m;
            }
        }
        self.additions += 1;
        if self.additions >= self.sample {
            self.age();
        }
    }

    /// Halves every counter and clears the doorkeeper (the sketch's reset).
    fn age(&mut self) {
        for c in &mut self.counters {
            *c >>= 1;
        }
        self.door.iter_mut().for_each(|w| *w = 0);
        self.additions /= 2;
    }

    /// The estimated frequency of `b`: the smallest of its counters, plus one if the doorkeeper
    /// holds it.
    pub fn estimate(&self, b: Block) -> u32 {
        let width = self.mask as usize + 1;
        let min = (0..DEPTH)
            .map(|row| self.counters[row * width + (Self::hash(b, row) & self.mask) as usize])
            .min()
            .unwrap_or(0);
        min as u32 + self.in_door(b) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_bad_ones_name_the_key() {
        assert_eq!(AdmissionSpec::parse("none").unwrap(), None);
        assert_eq!(
            AdmissionSpec::parse("tinylfu").unwrap(),
            Some(AdmissionSpec::TinyLfu)
        );
        assert_eq!(
            AdmissionSpec::parse("size:64KiB").unwrap(),
            Some(AdmissionSpec::MaxBytes(65536))
        );
        assert_eq!(
            AdmissionSpec::parse("prob:0.25").unwrap(),
            Some(AdmissionSpec::Probability(0.25))
        );
        // Issue 37 probe: a tiny probability was labelled with 320 zeros in every row.
        let tiny = AdmissionSpec::parse("prob:1e-320").unwrap().unwrap();
        assert_eq!(tiny.to_string(), "prob:1e-320");
        assert_eq!(AdmissionSpec::Probability(0.25).to_string(), "prob:0.25");
        for bad in ["lfu", "prob:2", "size:1%", "size", "prob:x"] {
            let e = AdmissionSpec::parse(bad).unwrap_err().to_string();
            assert!(e.contains("admission"), "{bad}: {e}");
        }
    }

    #[test]
    fn tinylfu_counts_after_the_doorkeeper_and_halves() {
        let mut t = TinyLfu::new(64, 1 << 20);
        assert_eq!(t.estimate(7), 0);
        t.record(7);
        assert_eq!(t.estimate(7), 1, "the doorkeeper holds the first access");
        for _ in 0..5 {
            t.record(7);
        }
        assert_eq!(t.estimate(7), 6);
        // 640 accesses (10 x 64) end the period: counters halve and the doorkeeper clears.
        for _ in 0..(640 - 6) {
            t.record(999);
        }
        assert_eq!(t.estimate(999), MAX_COUNT as u32 / 2);
        assert_eq!(
            t.estimate(7),
            2,
            "5 counted accesses halve to 2, doorkeeper cleared"
        );
        for _ in 0..20 {
            t.record(7);
        }
        assert_eq!(
            t.estimate(7),
            MAX_COUNT as u32 + 1,
            "4-bit counters saturate"
        );
    }

    #[test]
    fn tinylfu_admits_only_a_more_frequent_candidate() {
        let mut a = AdmissionSpec::TinyLfu.build(64, 1 << 20, 1, 0);
        for _ in 0..3 {
            a.record(1);
        }
        a.record(2);
        assert!(a.admit(1, 1, Some(2)));
        assert!(!a.admit(2, 1, Some(1)));
        assert!(!a.admit(2, 1, Some(2)), "a tie does not admit");
        assert!(a.admit(2, 1, None), "nothing to evict: admitted");
    }

    #[test]
    fn size_threshold_counts_in_units() {
        let mut objects = AdmissionSpec::MaxBytes(1000).build(10, 1 << 20, 1, 0);
        assert!(objects.admit(1, 1000, None));
        assert!(!objects.admit(1, 1001, None));
        // Blocks of 4 KiB: 10,000 bytes admit one-block units, 1,000 bytes admit none.
        let mut blocks = AdmissionSpec::MaxBytes(10_000).build(10, 1 << 20, 4096, 0);
        assert!(blocks.admit(1, 1, None));
        let mut none = AdmissionSpec::MaxBytes(1000).build(10, 1 << 20, 4096, 0);
        assert!(!none.admit(1, 1, None));
    }

    #[test]
    fn probability_is_seeded_and_near_p() {
        let draws = |seed| {
            let mut a = AdmissionSpec::Probability(0.25).build(10, 1 << 20, 1, seed);
            (0..10_000).map(|b| a.admit(b, 1, None)).collect::<Vec<_>>()
        };
        let one = draws(7);
        assert_eq!(one, draws(7), "same seed, same decisions");
        assert_ne!(one, draws(8));
        let admitted = one.iter().filter(|&&x| x).count();
        assert!((2300..2700).contains(&admitted), "{admitted}");
        let mut never = AdmissionSpec::Probability(0.0).build(10, 1 << 20, 1, 1);
        assert!((0..100).all(|b| !never.admit(b, 1, None)));
    }
}
