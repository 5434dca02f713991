//! Random draws for policies with a libCacheSim variant: a PCG stream seeded by `--seed` (the
//! paper's variant), or the generator libCacheSim's `next_rand` is, so a run can replay
//! libcachesim's choices (Cacheus, LeCaR).

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// libCacheSim's generator state in a thread nobody seeded: each process starts here, and the
/// stream carries on from one cache to the next in that thread.
const LIBCACHESIM_START: u128 = 0xdead_beef;

/// The policy's random draws: a PCG stream, or the Lehmer generator libCacheSim's `next_rand` is
/// (state times 0xda942042e4dd58b5 modulo 2^128, the high 64 bits drawn), taken modulo `n` as
/// libCacheSim takes it, so seed 0 replays the draws of the first cache in a libcachesim process.
pub(crate) enum Draws {
    Pcg(Box<Pcg64>),
    Lehmer(u128),
}

impl Draws {
    /// libCacheSim's generator if `libcachesim` (seed 0 is its initial state, any other seed its
    /// state), else a PCG stream seeded by `seed`.
    pub(crate) fn new(libcachesim: bool, seed: u64) -> Draws {
        if libcachesim {
            Draws::Lehmer(if seed == 0 {
                LIBCACHESIM_START
            } else {
                seed as u128
            })
        } else {
            Draws::Pcg(Box::new(Pcg64::seed_from_u64(seed)))
        }
    }

    /// A draw from `0..n`.
    pub(crate) fn below(&mut self, n: u32) -> u32 {
        match self {
            Draws::Pcg(rng) => rng.random_range(0..n),
            Draws::Lehmer(state) => {
                *state = state.wrapping_mul(0xda94_2042_e4dd_58b5);
                ((*state >> 64) as u64 % n as u64) as u32
            }
        }
    }

    /// A learning rate from 0.001 to 1 in thousandths, as libCacheSim's Cacheus draws it.
    pub(crate) fn rate(&mut self) -> f64 {
        0.001 + self.below(1000) as f64 / 1000.0
    }
}
