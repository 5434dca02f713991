//! OPT's set of the next-use positions resident blocks wait for ([`crate::policy::opt`]): a bit per
//! position in a 64-way tree of words, so the farthest one is found in a few word reads.
//!
//! A binary heap (the former index) paid a sift-down of about twenty levels per eviction, most of
//! them cache misses, and kept a stale entry for every hit; here an eviction reads the tree's top
//! words, which stay cached, and a hit clears one bit and sets another. It costs one bit per
//! position up to the farthest next use seen (1.25 MB for 10 million references).

/// A set of `u32` positions as a 64-way tree of words: a bit of level `l + 1` is set when the
/// word of level `l` below it is not zero, so the largest member is found from the top down.
#[derive(Default)]
pub(crate) struct PositionBits {
    /// `levels[0]` holds one bit per position; the last level is a single word.
    levels: Vec<Vec<u64>>,
}

impl PositionBits {
    /// Room for positions below `bound` without growing.
    pub(crate) fn with_bound(bound: u32) -> Self {
        let mut bits = PositionBits {
            levels: vec![vec![0]],
        };
        bits.grow_to(bound.max(64));
        bits
    }

    /// Grows the leaves to hold `pos` (doubling, so growth is amortised) and the levels above.
    #[cold]
    fn grow_to(&mut self, pos: u32) {
        let words = ((pos as usize) >> 6) + 1;
        let words = words.max(self.levels[0].len() * 2);
        self.levels[0].resize(words, 0);
        let mut l = 0;
        while self.levels[l].len() > 1 {
            let need = self.levels[l].len().div_ceil(64);
            if l + 1 == self.levels.len() {
                // A new level on top: its bits say which words of the old top are not zero.
                let mut top = vec![0u64; need];
                for (j, &w) in self.levels[l].iter().enumerate() {
                    if w != 0 {
                        top[j >> 6] |= 1 << (j & 63);
                    }
                }
                self.levels.push(top);
            } else {
                self.levels[l + 1].resize(need, 0);
            }
            l += 1;
        }
    }

    /// Adds `pos`; returns whether it was already a member.
    #[inline]
    pub(crate) fn insert(&mut self, pos: u32) -> bool {
        if (pos as usize >> 6) >= self.levels[0].len() {
            self.grow_to(pos);
        }
        let mut i = pos as usize;
        let leaf = self.levels[0][i >> 6];
        if leaf & (1 << (i & 63)) != 0 {
            return true;
        }
        for level in &mut self.levels {
            let word = &mut level[i >> 6];
            let was = *word;
            *word |= 1 << (i & 63);
            if was != 0 {
                // The levels above already show this word as occupied.
                break;
            }
            i >>= 6;
        }
        false
    }

    /// Removes `pos` (present).
    #[inline]
    pub(crate) fn remove(&mut self, pos: u32) {
        let mut i = pos as usize;
        for level in &mut self.levels {
            let word = &mut level[i >> 6];
            *word &= !(1 << (i & 63));
            if *word != 0 {
                break;
            }
            i >>= 6;
        }
    }

    /// The largest member below `limit`, if any.
    pub(crate) fn max_below(&self, limit: u64) -> Option<u32> {
        if limit >= (self.levels[0].len() as u64) << 6 {
            return self.max();
        }
        let top = self.levels.len() - 1;
        // Climb until a word holds a member below the limit's path, then descend by maxima.
        let mut level = 0;
        let mut i = limit;
        let found = loop {
            // Members of word `i >> 6` strictly below bit `i & 63`.
            let word = self.levels[level]
                .get((i >> 6) as usize)
                .copied()
                .unwrap_or(0);
            let below = word & ((1u64 << (i & 63)) - 1);
            if below != 0 {
                break ((i >> 6) << 6) | (63 - below.leading_zeros()) as u64;
            }
            if level == top {
                return None;
            }
            i >>= 6;
            level += 1;
        };
        let mut i = found as usize;
        while level > 0 {
            level -= 1;
            let word = self.levels[level][i];
            i = (i << 6) | (63 - word.leading_zeros()) as usize;
        }
        Some(i as u32)
    }

    /// The largest member, if any.
    #[inline]
    pub(crate) fn max(&self) -> Option<u32> {
        let top = self.levels.last()?;
        if top[0] == 0 {
            return None;
        }
        let mut i = 0usize;
        for level in self.levels.iter().rev() {
            let word = level[i];
            i = (i << 6) | (63 - word.leading_zeros()) as usize;
        }
        Some(i as u32)
    }

    /// Asks the CPU for the leaf word of `pos` (a hint; no effect on results).
    #[inline]
    pub(crate) fn hint(&self, pos: u32) {
        if let Some(w) = self.levels[0].get(pos as usize >> 6) {
            crate::cache::frames::prefetch(w as *const u64 as *const u8);
        }
    }

    /// Whether `pos` is a member.
    #[cfg(test)]
    pub(crate) fn contains(&self, pos: u32) -> bool {
        self.levels[0]
            .get(pos as usize >> 6)
            .is_some_and(|w| w & (1 << (pos & 63)) != 0)
    }

    /// Checks that every upper bit says exactly whether the word below it is occupied.
    pub(crate) fn check(&self) -> Result<(), String> {
        for l in 1..self.levels.len() {
            for (j, &w) in self.levels[l - 1].iter().enumerate() {
                let bit = self.levels[l][j >> 6] & (1 << (j & 63)) != 0;
                if bit != (w != 0) {
                    return Err(format!("level {l} bit {j} disagrees with the word below"));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        #[test]
        fn bits_agree_with_an_ordered_set(ops in prop::collection::vec((any::<bool>(), 0u32..5000), 1..400)) {
            let mut bits = PositionBits::with_bound(64);
            let mut set = BTreeSet::new();
            for (add, pos) in ops {
                if add {
                    prop_assert_eq!(bits.insert(pos), !set.insert(pos));
                } else if set.remove(&pos) {
                    bits.remove(pos);
                }
                bits.check().unwrap();
                prop_assert_eq!(bits.max(), set.iter().next_back().copied());
                let limit = pos as u64;
                prop_assert_eq!(bits.max_below(limit), set.range(..pos).next_back().copied());
                prop_assert_eq!(bits.contains(pos), set.contains(&pos));
            }
            prop_assert_eq!(bits.max_below(u64::MAX), set.iter().next_back().copied());
        }
    }

    #[test]
    fn the_tree_grows_under_members_already_set() {
        let mut bits = PositionBits::with_bound(64);
        bits.insert(3);
        bits.insert(70_000);
        bits.insert(5_000_000);
        bits.check().unwrap();
        assert_eq!(bits.max(), Some(5_000_000));
        assert_eq!(bits.max_below(5_000_000), Some(70_000));
        assert_eq!(bits.max_below(70_000), Some(3));
        assert_eq!(bits.max_below(3), None);
        bits.remove(5_000_000);
        assert_eq!(bits.max(), Some(70_000));
    }
}
