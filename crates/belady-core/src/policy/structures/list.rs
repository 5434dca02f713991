//! Intrusive doubly linked lists over dense block ids, several lists sharing one set of arrays.
//!
//! A block is on at most one list of a `Lists` at a time, which fits every queue-based policy
//! (LRU's one list, ARC's T1/T2/B1/B2, 2Q's A1in/A1out/Am, MQ's queues). The front is the most
//! recently inserted end, the back the eviction end.
//!
//! A block's two links sit side by side (one 8-byte `Link` per id, so one cache line holds
//! both): unlinking or relinking a block reads and writes its own pair and one link of each
//! neighbour, and with separate `prev` and `next` arrays every one of those would be a miss of its
//! own.

use crate::policy::Block;

const NIL: u32 = u32::MAX;
const NO_LIST: u8 = u8::MAX;

/// A block's neighbours toward the front (`prev`) and toward the back (`next`).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(8))]
struct Link {
    prev: u32,
    next: u32,
}

/// Several linked lists over block ids `0..universe`.
#[derive(Clone, Debug)]
pub struct Lists {
    links: Vec<Link>,
    owner: Vec<u8>,
    head: Vec<u32>,
    tail: Vec<u32>,
    len: Vec<usize>,
}

impl Lists {
    /// `count` empty lists over `universe` block ids.
    pub fn new(count: usize, universe: usize) -> Lists {
        assert!(count < NO_LIST as usize);
        Lists {
            links: vec![
                Link {
                    prev: NIL,
                    next: NIL
                };
                universe
            ],
            owner: vec![NO_LIST; universe],
            head: vec![NIL; count],
            tail: vec![NIL; count],
            len: vec![0; count],
        }
    }

    /// The list `b` is on, if any.
    #[inline]
    pub fn list_of(&self, b: Block) -> Option<usize> {
        let o = self.owner[b as usize];
        (o != NO_LIST).then_some(o as usize)
    }

    /// Whether `b` is on list `l`.
    #[inline]
    pub fn contains(&self, l: usize, b: Block) -> bool {
        self.owner[b as usize] == l as u8
    }

    /// Length of list `l`.
    #[inline]
    pub fn len(&self, l: usize) -> usize {
        self.len[l]
    }

    /// Whether list `l` is empty.
    #[inline]
    pub fn is_empty(&self, l: usize) -> bool {
        self.len[l] == 0
    }

    /// Most recently inserted block of list `l`.
    #[inline]
    pub fn front(&self, l: usize) -> Option<Block> {
        let h = self.head[l];
        (h != NIL).then_some(h)
    }

    /// Eviction end of list `l`.
    #[inline]
    pub fn back(&self, l: usize) -> Option<Block> {
        let t = self.tail[l];
        (t != NIL).then_some(t)
    }

    /// The neighbour of `b` towards the front.
    #[inline]
    pub fn toward_front(&self, b: Block) -> Option<Block> {
        let p = self.links[b as usize].prev;
        (p != NIL).then_some(p)
    }

    /// The neighbour of `b` towards the back.
    #[inline]
    pub fn toward_back(&self, b: Block) -> Option<Block> {
        let n = self.links[b as usize].next;
        (n != NIL).then_some(n)
    }

    /// Puts `b` (on no list) at the front of list `l`.
    #[inline]
    pub fn push_front(&mut self, l: usize, b: Block) {
        debug_assert_eq!(self.owner[b as usize], NO_LIST);
        let i = b as usize;
        let h = self.head[l];
        self.links[i] = Link { prev: NIL, next: h };
        if h != NIL {
            self.links[h as usize].prev = b;
        } else {
            self.tail[l] = b;
        }
        self.head[l] = b;
        self.owner[i] = l as u8;
        self.len[l] += 1;
    }

    /// Asks the CPU to bring `b`'s links in (a hint; no effect on results).
    #[inline]
    pub fn hint(&self, b: Block) {
        crate::cache::frames::prefetch(self.links.as_ptr().wrapping_add(b as usize) as *const u8);
        crate::cache::frames::prefetch(self.owner.as_ptr().wrapping_add(b as usize));
    }

    /// Puts `b` (on no list) at the back of list `l`.
    #[inline]
    pub fn push_back(&mut self, l: usize, b: Block) {
        debug_assert_eq!(self.owner[b as usize], NO_LIST);
        let i = b as usize;
        let t = self.tail[l];
        self.links[i] = Link { prev: t, next: NIL };
        if t != NIL {
            self.links[t as usize].next = b;
        } else {
            self.head[l] = b;
        }
        self.tail[l] = b;
        self.owner[i] = l as u8;
        self.len[l] += 1;
    }

    /// Takes `b` off whatever list holds it; returns that list.
    #[inline]
    pub fn remove(&mut self, b: Block) -> Option<usize> {
        let i = b as usize;
        let l = self.owner[i];
        if l == NO_LIST {
            return None;
        }
        let l = l as usize;
        let Link { prev: p, next: n } = self.links[i];
        if p != NIL {
            self.links[p as usize].next = n;
        } else {
            self.head[l] = n;
        }
        if n != NIL {
            self.links[n as usize].prev = p;
        } else {
            self.tail[l] = p;
        }
        self.owner[i] = NO_LIST;
        self.len[l] -= 1;
        Some(l)
    }

    /// Moves `b` to the front of list `l`, from whichever list held it.
    #[inline]
    pub fn move_to_front(&mut self, l: usize, b: Block) {
        if self.head[l] == b {
            return;
        }
        self.remove(b);
        self.push_front(l, b);
    }

    /// Removes and returns the back of list `l`.
    #[inline]
    pub fn pop_back(&mut self, l: usize) -> Option<Block> {
        let t = self.back(l)?;
        self.remove(t);
        Some(t)
    }

    /// The blocks of list `l`, front to back.
    pub fn iter(&self, l: usize) -> impl Iterator<Item = Block> + '_ {
        std::iter::successors(self.front(l), move |&b| self.toward_back(b))
    }

    /// Checks links, lengths and ownership of every list.
    pub fn check(&self) -> Result<(), String> {
        let mut seen = 0;
        for l in 0..self.head.len() {
            let mut count = 0;
            let mut prev = NIL;
            let mut cur = self.head[l];
            while cur != NIL {
                if self.owner[cur as usize] != l as u8 {
                    return Err(format!(
                        "block {cur} linked on list {l} but owned by {}",
                        self.owner[cur as usize]
                    ));
                }
                if self.links[cur as usize].prev != prev {
                    return Err(format!("broken back link at block {cur} on list {l}"));
                }
                count += 1;
                if count > self.len[l] {
                    return Err(format!(
                        "list {l} is longer than its recorded length {}",
                        self.len[l]
                    ));
                }
                prev = cur;
                cur = self.links[cur as usize].next;
            }
            if prev != self.tail[l] || count != self.len[l] {
                return Err(format!(
                    "list {l}: tail or length wrong ({count} linked, {} recorded)",
                    self.len[l]
                ));
            }
            seen += count;
        }
        let owned = self.owner.iter().filter(|&&o| o != NO_LIST).count();
        if owned != seen {
            return Err(format!("{owned} blocks claim a list but {seen} are linked"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_keep_order_and_ownership() {
        let mut l = Lists::new(2, 10);
        l.push_front(0, 1);
        l.push_front(0, 2);
        l.push_back(0, 3);
        l.push_front(1, 4);
        assert_eq!(l.iter(0).collect::<Vec<_>>(), vec![2, 1, 3]);
        l.move_to_front(1, 3);
        assert_eq!(l.iter(1).collect::<Vec<_>>(), vec![3, 4]);
        assert_eq!(l.pop_back(0), Some(1));
        assert_eq!(l.list_of(1), None);
        assert_eq!(l.remove(2), Some(0));
        assert!(l.is_empty(0));
        assert_eq!(l.len(1), 2);
        l.check().unwrap();
    }
}
