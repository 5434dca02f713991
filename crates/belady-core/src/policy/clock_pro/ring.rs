//! CLOCK-Pro's clock: the page states and the circular list the hands walk.

use crate::policy::Block;

/// No slot / no hand.
pub(super) const NIL: u32 = u32::MAX;

pub(super) const HOT: u8 = 1;
pub(super) const COLD: u8 = 2;
pub(super) const GHOST: u8 = 3;
pub(super) const KIND_MASK: u8 = 3;
pub(super) const TEST_FLAG: u8 = 4;
pub(super) const BIT_FLAG: u8 = 8;
/// The page's I/O is in flight (mirrors the frame table, so pinned cold pages can be counted).
pub(super) const PIN_FLAG: u8 = 16;

/// One page in the clock. 16 bytes, so that a page's links, id and state share a cache line.
#[derive(Clone, Copy, Debug)]
pub(super) struct Node {
    /// Next page in the hands' direction (older to newer, wrapping from the head to the oldest).
    pub(super) fwd: u32,
    /// Previous page in the hands' direction.
    pub(super) bwd: u32,
    pub(super) block: Block,
    /// Kind in bits 0-1, test period in bit 2, reference bit in bit 3.
    pub(super) state: u8,
}

const FREE_NODE: Node = Node {
    fwd: NIL,
    bwd: NIL,
    block: Block::MAX,
    state: 0,
};

/// The clock: a circular doubly linked list over a slot array that holds only the pages in the
/// clock (at most m + the non-resident bound), so the hands walk a small, dense array and each
/// page costs one lookup in the per-block table.
pub(super) struct Ring {
    pub(super) nodes: Vec<Node>,
    /// Slot of each block in the clock, `NIL` for blocks outside it.
    pub(super) slot_of: Vec<u32>,
    /// The newest page (`NIL` when empty); the oldest is the one after it.
    pub(super) head: u32,
    /// Chain of unused slots through `fwd`.
    pub(super) free: u32,
    pub(super) len: usize,
}

impl Ring {
    pub(super) fn new(universe: usize, expected: usize) -> Ring {
        Ring {
            nodes: Vec::with_capacity(expected.min(universe)),
            slot_of: vec![NIL; universe],
            head: NIL,
            free: NIL,
            len: 0,
        }
    }

    #[inline]
    pub(super) fn slot(&self, b: Block) -> u32 {
        self.slot_of[b as usize]
    }

    #[inline]
    pub(super) fn node(&self, s: u32) -> &Node {
        &self.nodes[s as usize]
    }

    #[inline]
    pub(super) fn node_mut(&mut self, s: u32) -> &mut Node {
        &mut self.nodes[s as usize]
    }

    /// The oldest page, `NIL` when empty.
    #[inline]
    pub(super) fn tail(&self) -> u32 {
        if self.head == NIL {
            NIL
        } else {
            self.node(self.head).fwd
        }
    }

    /// Links slot `s` (not linked) in as the newest page.
    #[inline]
    pub(super) fn attach_head(&mut self, s: u32) {
        if self.head == NIL {
            let n = self.node_mut(s);
            n.fwd = s;
            n.bwd = s;
        } else {
            let h = self.head;
            let t = self.node(h).fwd;
            self.node_mut(h).fwd = s;
            self.node_mut(t).bwd = s;
            let n = self.node_mut(s);
            n.bwd = h;
            n.fwd = t;
        }
        self.head = s;
    }

    /// Unlinks slot `s`, keeping its node.
    #[inline]
    pub(super) fn detach(&mut self, s: u32) {
        let Node { fwd, bwd, .. } = *self.node(s);
        if fwd == s {
            self.head = NIL;
        } else {
            self.node_mut(bwd).fwd = fwd;
            self.node_mut(fwd).bwd = bwd;
            if self.head == s {
                self.head = bwd;
            }
        }
    }

    /// Puts block `b` (not in the clock) in as the newest page; returns its slot.
    #[inline]
    pub(super) fn push_head(&mut self, b: Block, state: u8) -> u32 {
        let s = if self.free != NIL {
            let s = self.free;
            self.free = self.node(s).fwd;
            s
        } else {
            self.nodes.push(FREE_NODE);
            (self.nodes.len() - 1) as u32
        };
        let n = self.node_mut(s);
        n.block = b;
        n.state = state;
        self.slot_of[b as usize] = s;
        self.attach_head(s);
        self.len += 1;
        s
    }

    /// Takes slot `s` out of the clock and frees it.
    #[inline]
    pub(super) fn remove(&mut self, s: u32) {
        self.detach(s);
        let b = self.node(s).block;
        self.slot_of[b as usize] = NIL;
        let free = self.free;
        *self.node_mut(s) = Node {
            fwd: free,
            ..FREE_NODE
        };
        self.free = s;
        self.len -= 1;
    }

    /// Slots from the newest page to the oldest.
    #[cfg(test)]
    pub(super) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let head = self.head;
        std::iter::successors((head != NIL).then_some(head), move |&s| {
            let b = self.node(s).bwd;
            (b != head).then_some(b)
        })
    }

    /// Checks links, the length and the block-to-slot table.
    #[cfg(test)]
    pub(super) fn check(&self) -> std::result::Result<(), String> {
        let mut count = 0;
        for s in self.iter() {
            let n = self.node(s);
            if self.node(n.bwd).fwd != s || self.node(n.fwd).bwd != s {
                return Err(format!("broken link at slot {s} (page {})", n.block));
            }
            if self.slot_of.get(n.block as usize) != Some(&s) {
                return Err(format!("page {} in slot {s} is not mapped to it", n.block));
            }
            count += 1;
            if count > self.len {
                return Err(format!("clock longer than its length {}", self.len));
            }
        }
        let mapped = self.slot_of.iter().filter(|&&s| s != NIL).count();
        if count != self.len || mapped != self.len {
            return Err(format!(
                "clock has {count} linked and {mapped} mapped pages, length {}",
                self.len
            ));
        }
        Ok(())
    }
}
