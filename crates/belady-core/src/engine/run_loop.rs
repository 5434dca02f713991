//! The one loop that feeds a request stream to a stack of levels: every run steps through
//! [`drive`], untimed or timed. The untimed single-level runs (the streaming grid, loaded traces
//! with OPT, MRC's full simulations, `distances`) feed dense ids to a [`CacheLevel`] through
//! [`feed`]; the file engine ([`crate::engine::file::FileSim`], the client of every hierarchy, with
//! the levels below it in [`crate::engine::hierarchy::Below`]) feeds file events; a hierarchy that
//! shares a recorded client feeds what that client passed down to the levels below
//! ([`crate::engine::hierarchy::Below::replay`]).
//!
//! [`drive`] is generic over what it steps ([`Stepper`]), so each policy gets its own compiled
//! loop with no dynamic call per request; the cache level's stepper is specialised on whether the
//! requests carry object sizes and next uses, and on whether the policy asks which references
//! repeat the previous one's block ([`Policy::wants_repeats`]: a block trace is read as one file,
//! [`CacheLevel::access_in_stream`]), so the plain path has no per-request branch for any of
//! them. Before each step the loop lets the stepper prefetch the state of the item
//! `HINT_AHEAD` (8) ahead ([`CacheLevel::hint`] of its block), which hides part of the memory
//! latency of a large trace's tables.

use crate::cache::level::{CacheLevel, Outcome};
use crate::policy::{Block, Policy, NEVER};
use crate::trace::dense;

/// How many references ahead the loop prefetches a block's state.
pub(crate) const HINT_AHEAD: usize = 8;

/// What the one loop steps through a stream of `Item`s: a cache level, the file engine, the
/// levels below a recorded client.
pub trait Stepper<Item> {
    /// Asks the CPU for the state `item`, the `at`-th of the slice being driven, will touch (a
    /// hint: no effect on results).
    fn hint(&mut self, at: usize, item: &Item);
    /// Processes `item`, the `at`-th of the slice being driven.
    fn step(&mut self, at: usize, item: &Item);
}

/// The one loop: steps through `items` in order, hinting the item `HINT_AHEAD` ahead first.
/// Monomorphised per stepper (and so per policy): no dynamic call per item.
#[inline(always)]
pub fn drive<Item, S: Stepper<Item> + ?Sized>(stepper: &mut S, items: &[Item]) {
    for (at, item) in items.iter().enumerate() {
        if let Some(ahead) = items.get(at + HINT_AHEAD) {
            stepper.hint(at + HINT_AHEAD, ahead);
        }
        stepper.step(at, item);
    }
}

/// A run of requests: dense ids, with each one's object size (objects model) and position of
/// its next reference to the same id (OPT's oracle) when known.
#[derive(Copy, Clone, Debug, Default)]
pub struct Requests<'a> {
    /// Dense ids, in order.
    pub ids: &'a [u32],
    /// Each request's object size in bytes, when the level weighs objects or counts bytes.
    pub sizes: Option<&'a [u32]>,
    /// Each request's next use as a position in the whole stream ([`dense::NEVER`] for none),
    /// for policies that need the oracle.
    pub next_uses: Option<&'a [u32]>,
}

impl<'a> Requests<'a> {
    /// Plain ids: no sizes, no oracle.
    pub fn ids(ids: &'a [u32]) -> Self {
        Requests {
            ids,
            sizes: None,
            next_uses: None,
        }
    }
}

/// Feeds every request to `level`.
#[inline]
pub fn feed<P: Policy>(level: &mut CacheLevel<P>, requests: Requests<'_>) {
    feed_observed(level, requests, |_, _, _| {});
}

/// Feeds every request to `level`, calling `observe(level, id, outcome)` after each access
/// (what `distances` measures below the level); a no-op observer compiles away.
///
/// Panics when `level`'s policy needs next uses and `requests` has none: the callers load the
/// trace for such policies, and OPT without its oracle would give silently wrong results.
#[inline]
pub fn feed_observed<P: Policy>(
    level: &mut CacheLevel<P>,
    requests: Requests<'_>,
    observe: impl FnMut(&CacheLevel<P>, Block, Outcome),
) {
    let oracle = if level.policy.needs_oracle() {
        assert!(
            requests.next_uses.is_some(),
            "{} needs each reference's next use",
            level.policy.name()
        );
        requests.next_uses
    } else {
        None
    };
    let ids = requests.ids;
    // No policy needs both the oracle and repeats: an oracle run keeps the plain accesses.
    let stream = oracle.is_none() && level.policy.wants_repeats();
    match (requests.sizes, oracle, stream) {
        (None, None, false) => steps::<P, false, false, false>(level, ids, &[], &[], observe),
        (Some(sizes), None, false) => {
            steps::<P, true, false, false>(level, ids, sizes, &[], observe)
        }
        (None, None, true) => steps::<P, false, false, true>(level, ids, &[], &[], observe),
        (Some(sizes), None, true) => steps::<P, true, false, true>(level, ids, sizes, &[], observe),
        (None, Some(next), _) => steps::<P, false, true, false>(level, ids, &[], next, observe),
        (Some(sizes), Some(next), _) => {
            steps::<P, true, true, false>(level, ids, sizes, next, observe)
        }
    }
}

/// A cache level stepped through dense ids, one copy per policy and per kind of request stream
/// (with sizes when `SIZED`, with next uses when `ORACLE`, read as one file whose repeated blocks
/// the policy is told of when `STREAM`), calling `observe` after each access.
struct LevelSteps<'l, 'r, P: Policy, O, const SIZED: bool, const ORACLE: bool, const STREAM: bool> {
    level: &'l mut CacheLevel<P>,
    sizes: &'r [u32],
    next_uses: &'r [u32],
    observe: O,
}

impl<P, O, const SIZED: bool, const ORACLE: bool, const STREAM: bool> Stepper<u32>
    for LevelSteps<'_, '_, P, O, SIZED, ORACLE, STREAM>
where
    P: Policy,
    O: FnMut(&CacheLevel<P>, Block, Outcome),
{
    #[inline(always)]
    fn hint(&mut self, at: usize, &b: &u32) {
        self.level.hint(b);
        if ORACLE {
            let next_use = self.next_uses[at];
            if next_use != dense::NEVER {
                self.level.policy.hint_next_use(next_use as u64);
            }
        }
    }

    #[inline(always)]
    fn step(&mut self, at: usize, &b: &u32) {
        let next_use = if ORACLE {
            match self.next_uses[at] {
                dense::NEVER => NEVER,
                n => n as u64,
            }
        } else {
            NEVER
        };
        let outcome = if STREAM {
            let size = SIZED.then(|| self.sizes[at]);
            self.level.access_in_stream(b, size, next_use)
        } else if SIZED {
            self.level.access_sized(b, self.sizes[at], next_use)
        } else {
            self.level.access(b, next_use)
        };
        (self.observe)(self.level, b, outcome);
    }
}

/// Drives `level` through `ids`, one copy per policy and per kind of request stream.
#[inline(always)]
fn steps<P: Policy, const SIZED: bool, const ORACLE: bool, const STREAM: bool>(
    level: &mut CacheLevel<P>,
    ids: &[u32],
    sizes: &[u32],
    next_uses: &[u32],
    observe: impl FnMut(&CacheLevel<P>, Block, Outcome),
) {
    let n = ids.len();
    // Slices of the ids' length, checked once, so the steps index them without checks.
    let mut stepper = LevelSteps::<P, _, SIZED, ORACLE, STREAM> {
        level,
        sizes: if SIZED { &sizes[..n] } else { sizes },
        next_uses: if ORACLE { &next_uses[..n] } else { next_uses },
        observe,
    };
    drive(&mut stepper, ids);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::lru::LruPolicy;

    #[test]
    fn chunks_give_the_same_counts_as_one_pass() {
        let ids: Vec<u32> = (0..5000u32)
            .map(|i| (i * 7919) % 97 % (1 + i % 53))
            .collect();
        let sizes: Vec<u32> = ids.iter().map(|&b| 100 + b * 13).collect();
        let whole = {
            let mut level = CacheLevel::weighted(LruPolicy::new(97), 3000, 97);
            feed(
                &mut level,
                Requests {
                    ids: &ids,
                    sizes: Some(&sizes),
                    next_uses: None,
                },
            );
            level.into_stats()
        };
        let mut level = CacheLevel::weighted(LruPolicy::new(97), 3000, 97);
        for (i, s) in ids.chunks(333).zip(sizes.chunks(333)) {
            feed(
                &mut level,
                Requests {
                    ids: i,
                    sizes: Some(s),
                    next_uses: None,
                },
            );
        }
        assert_eq!(level.into_stats(), whole);
        assert!(whole.hits > 0 && whole.evictions > 0);
        assert_eq!(
            whole.bytes_requested,
            sizes.iter().map(|&s| s as u64).sum::<u64>()
        );
    }

    /// Runs `ids` (with `next` uses) through a 2-frame level of the registry's `name`.
    struct Run<'a>(&'a [u32], Option<&'a [u32]>);

    impl crate::policy::registry::PolicyVisitor for Run<'_> {
        type Output = u64;
        fn visit<P: Policy + 'static>(self, policy: P) -> u64 {
            let mut level = CacheLevel::new(policy, 2, 3);
            feed(
                &mut level,
                Requests {
                    ids: self.0,
                    sizes: None,
                    next_uses: self.1,
                },
            );
            level.stats().hits
        }
    }

    #[test]
    fn the_oracle_reaches_opt_and_its_absence_is_refused() {
        // OPT with 2 frames on 0 1 2 0 1 2: on 2 it evicts 1 (used after 0), so 0 hits, then 1
        // misses and evicts 0 (never used again), and 2 hits: 2 hits.
        let ids = [0, 1, 2, 0, 1, 2];
        let next = [3, 4, 5, dense::NEVER, dense::NEVER, dense::NEVER];
        let opt = crate::policy::registry::PolicySpec::parse("opt").unwrap();
        let run = |next| crate::cache::builder::build(&opt, 2, 3, Run(&ids, next));
        assert_eq!(run(Some(&next[..])).unwrap(), 2);
        assert!(std::panic::catch_unwind(|| run(None)).is_err());
    }
}
