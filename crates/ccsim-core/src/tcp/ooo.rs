//! A TCP receiver's out-of-order blocks: a deque kept inside the receiver for its first
//! two blocks.
//!
//! A `VecDeque` holds its items in a heap block of its own, a cache line no hint asked
//! for: at 10 000 flows about two segments in five read or write that line (out of order,
//! or in order while blocks are held), 91 % of those finding one or two blocks, and the
//! first block's read was where the receiver waited (`perf`, twenty-ninth session; counts
//! in docs/benchmarks.md, thirty-first session). Here up to two blocks live in the
//! receiver itself ([`SmallVec`]); more spill to the heap. Removing the front block (the
//! hole below it filled) moves a start index instead of the blocks after it, as a deque
//! does: after a large overflow a receiver holds thousands of blocks (S2's, up to 17 167)
//! and fills them from the front one by one (S2 ran 10 % slower when each removal shifted
//! the rest).

use smallvec::SmallVec;

/// `(start, end, update count)` of an out-of-order block.
pub(super) type Block = (u64, u64, u64);

/// Out-of-order blocks in order (see the module documentation). Reads go through the
/// live blocks as a slice (`Deref`).
#[derive(Debug, Default)]
pub(super) struct Blocks {
    v: SmallVec<[Block; 2]>,
    /// The first live block in `v`; those before it were removed.
    head: usize,
}

impl std::ops::Deref for Blocks {
    type Target = [Block];
    #[inline]
    fn deref(&self) -> &[Block] {
        &self.v[self.head..]
    }
}

impl Blocks {
    /// No block (without building the slice, as the slice's own method would).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head == self.v.len()
    }

    /// The first block.
    #[inline]
    pub fn first(&self) -> Option<&Block> {
        self.v.get(self.head)
    }

    /// Removes the first block (none: nothing).
    #[inline]
    pub fn pop_front(&mut self) {
        if self.head >= self.v.len() {
            return;
        }
        self.head += 1;
        if self.head == self.v.len() {
            self.v.clear();
            self.head = 0;
            if self.v.spilled() {
                // Back to the receiver's own lines for the next blocks (a cleared SmallVec
                // keeps its heap block).
                self.v.shrink_to_fit();
            }
        } else if self.head >= 64 && 2 * self.head >= self.v.len() {
            // The removed blocks outnumber the live ones: drop them (amortised O(1)).
            self.v.drain(..self.head);
            self.head = 0;
        }
    }

    /// Inserts `b` before live block `i` (at the end for `i == len`).
    #[inline]
    pub fn insert(&mut self, i: usize, b: Block) {
        self.v.insert(self.head + i, b);
    }

    /// Replaces live block `i`.
    #[inline]
    pub fn set(&mut self, i: usize, b: Block) {
        let h = self.head;
        self.v[h + i] = b;
    }

    /// Removes live blocks `from..to`.
    #[inline]
    pub fn remove_range(&mut self, from: usize, to: usize) {
        let h = self.head;
        self.v.drain(h + from..h + to);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    proptest! {
        /// Every operation gives what a `VecDeque` gives.
        #[test]
        fn blocks_behave_as_a_deque(ops in proptest::collection::vec((0u8..4, any::<u16>(), any::<u16>()), 0..400)) {
            let (mut b, mut d) = (Blocks::default(), VecDeque::<Block>::new());
            for (op, x, y) in ops {
                let n = d.len();
                match op {
                    0 => {
                        let i = x as usize % (n + 1);
                        b.insert(i, (x as u64, y as u64, n as u64));
                        d.insert(i, (x as u64, y as u64, n as u64));
                    }
                    1 => {
                        b.pop_front();
                        d.pop_front();
                    }
                    2 if n > 0 => {
                        let i = x as usize % n;
                        b.set(i, (y as u64, x as u64, 7));
                        d[i] = (y as u64, x as u64, 7);
                    }
                    3 if n > 0 => {
                        let from = x as usize % n;
                        let to = from + y as usize % (n - from + 1);
                        b.remove_range(from, to);
                        d.drain(from..to);
                    }
                    _ => {}
                }
                prop_assert_eq!(&b[..], &d.iter().copied().collect::<Vec<_>>()[..]);
            }
        }
    }

    #[test]
    fn removing_many_front_blocks_keeps_the_rest() {
        let mut b = Blocks::default();
        for i in 0..500u64 {
            b.insert(b.len(), (2 * i, 2 * i + 1, i));
        }
        for _ in 0..300 {
            b.pop_front();
        }
        assert_eq!(b.len(), 200);
        assert_eq!(b[0], (600, 601, 300));
        assert!(b.head < 300, "compacted");
        for _ in 0..200 {
            b.pop_front();
        }
        assert!(b.is_empty() && !b.v.spilled(), "inline again once empty");
        b.insert(0, (1, 2, 3));
        assert_eq!(&b[..], &[(1, 2, 3)]);
    }
}
