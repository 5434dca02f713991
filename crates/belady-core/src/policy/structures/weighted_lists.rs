//! [`Lists`] that also count the units (bytes in the objects model) each list holds: the lists
//! of the size-aware policies (libCacheSim's byte-based ARC and 2Q), whose budgets and targets
//! are in units rather than entries. Each block weighs what it entered with, also while it is
//! remembered on a ghost list.

use super::list::Lists;
use crate::policy::Block;

/// Several linked lists over block ids, each with the sum of its blocks' weights.
pub struct WeightedLists {
    lists: Lists,
    /// Units of each listed block, as it entered.
    weight: Vec<u32>,
    /// Units on each list.
    units: Vec<u64>,
}

/// Order queries (front, back, membership, iteration) are the plain lists'; every change goes
/// through [`WeightedLists`]'s own methods, which keep the units.
impl std::ops::Deref for WeightedLists {
    type Target = Lists;
    fn deref(&self) -> &Lists {
        &self.lists
    }
}

impl WeightedLists {
    /// `count` empty lists over `universe` block ids.
    pub fn new(count: usize, universe: usize) -> Self {
        WeightedLists {
            lists: Lists::new(count, universe),
            weight: vec![0; universe],
            units: vec![0; count],
        }
    }

    /// Units `b` weighs (what it was given last by [`WeightedLists::set_weight`]).
    #[inline]
    pub fn weight(&self, b: Block) -> u64 {
        self.weight[b as usize] as u64
    }

    /// Sets the weight of `b`, which must be on no list (its units are counted when it is
    /// pushed).
    #[inline]
    pub fn set_weight(&mut self, b: Block, units: u64) {
        debug_assert!(self.lists.list_of(b).is_none());
        self.weight[b as usize] = units as u32;
    }

    /// Units on list `l`.
    #[inline]
    pub fn units(&self, l: usize) -> u64 {
        self.units[l]
    }

    /// Units on every list together.
    pub fn total_units(&self) -> u64 {
        self.units.iter().sum()
    }

    /// Puts `b` (on no list) at the front of list `l`.
    #[inline]
    pub fn push_front(&mut self, l: usize, b: Block) {
        self.lists.push_front(l, b);
        self.units[l] += self.weight(b);
    }

    /// Takes `b` off whatever list holds it; returns that list.
    #[inline]
    pub fn remove(&mut self, b: Block) -> Option<usize> {
        let l = self.lists.remove(b)?;
        self.units[l] -= self.weight(b);
        Some(l)
    }

    /// Moves `b` to the front of list `l`, from whichever list held it.
    #[inline]
    pub fn move_to_front(&mut self, l: usize, b: Block) {
        self.remove(b);
        self.push_front(l, b);
    }

    /// Removes and returns the back of list `l`.
    #[inline]
    pub fn pop_back(&mut self, l: usize) -> Option<Block> {
        let b = self.lists.back(l)?;
        self.remove(b);
        Some(b)
    }

    /// Checks the links and that each list's count is the sum of its blocks' weights.
    pub fn check(&self) -> Result<(), String> {
        self.lists.check()?;
        for (l, &counted) in self.units.iter().enumerate() {
            let sum: u64 = self.lists.iter(l).map(|b| self.weight(b)).sum();
            if sum != counted {
                return Err(format!("list {l} holds {sum} units, counted {counted}"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_follow_pushes_moves_and_removals() {
        let mut w = WeightedLists::new(2, 8);
        for (b, units) in [(1, 10), (2, 20), (3, 30)] {
            w.set_weight(b, units);
            w.push_front(0, b);
        }
        assert_eq!((w.units(0), w.units(1)), (60, 0));
        w.move_to_front(1, 2);
        assert_eq!((w.units(0), w.units(1)), (40, 20));
        assert_eq!(w.pop_back(0), Some(1));
        assert_eq!((w.units(0), w.total_units()), (30, 50));
        assert_eq!(w.remove(3), Some(0));
        assert_eq!(w.remove(3), None);
        assert_eq!(w.iter(1).collect::<Vec<_>>(), vec![2]);
        w.check().unwrap();
    }
}
