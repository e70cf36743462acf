//! A first-in, first-out ring of small `Copy` items: a link direction's packets in
//! propagation and a lazy link's ledger of crossings.
//!
//! `std`'s `VecDeque` does the same, but its `push_back` stayed an out-of-line call on the
//! hottest path (`Network::send_lazy`: about 24 instructions a packet with the call, the
//! capacity check, the wrap by compare and subtract and the write). Here the capacity is
//! a power of two, a position wraps by one mask, the common operations are always inlined
//! and growing (doubling, in order) is kept out of line. An empty ring holds no
//! allocation, as `VecDeque::new`.

/// A FIFO of `T` in a buffer whose length is zero or a power of two.
#[derive(Clone, Debug)]
pub(crate) struct Ring<T> {
    buf: Box<[T]>,
    /// Position of the first item.
    head: u32,
    /// Items held (at most 2^31: [`Ring::grow`]). Positions and length in 32 bits keep a
    /// ring in 24 bytes, so that a lazy link's two (its ledger and its waiting crossings)
    /// fit its two cache lines with the rest of its state.
    len: u32,
}

impl<T: Copy> Default for Ring<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy> Ring<T> {
    pub fn new() -> Self {
        Ring { buf: Box::new([]), head: 0, len: 0 }
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The buffer's length less one: positions wrap by `& mask` (zero-length: never used).
    #[inline(always)]
    fn mask(&self) -> usize {
        self.buf.len().wrapping_sub(1)
    }

    #[inline(always)]
    pub fn front(&self) -> Option<&T> {
        if self.len == 0 {
            None
        } else {
            Some(&self.buf[self.head as usize])
        }
    }

    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let v = self.buf[self.head as usize];
        self.head = ((self.head as usize + 1) & self.mask()) as u32;
        self.len -= 1;
        Some(v)
    }

    /// Empties the ring (the buffer is kept).
    #[inline(always)]
    pub fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
    }

    #[inline(always)]
    pub fn push_back(&mut self, v: T) {
        if self.len() == self.buf.len() {
            self.grow(v);
        }
        let i = (self.head as usize + self.len()) & self.mask();
        self.buf[i] = v;
        self.len += 1;
    }

    /// Item `i` from the front.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        if i < self.len() {
            Some(&self.buf[(self.head as usize + i) & self.mask()])
        } else {
            None
        }
    }

    /// The items, first to last.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len()).map(move |i| &self.buf[(self.head as usize + i) & self.mask()])
    }

    /// Takes every item out, first to last (the buffer is kept).
    pub fn drain(&mut self) -> impl Iterator<Item = T> + '_ {
        let (head, len, mask) = (self.head as usize, self.len(), self.mask());
        self.head = 0;
        self.len = 0;
        (0..len).map(move |i| self.buf[(head + i) & mask])
    }

    /// Doubles the buffer (at least 4 items), the items first to last at its start; `fill`
    /// fills the rest (its slots are written before they are read).
    #[cold]
    #[inline(never)]
    fn grow(&mut self, fill: T) {
        let cap = (self.buf.len() * 2).max(4);
        assert!(cap <= 1 << 31, "a ring of more than 2^31 items");
        let mut b = Vec::with_capacity(cap);
        b.extend(self.iter().copied());
        b.resize(cap, fill);
        self.buf = b.into_boxed_slice();
        self.head = 0;
    }
}

impl<T: Copy> std::ops::Index<usize> for Ring<T> {
    type Output = T;

    #[inline]
    fn index(&self, i: usize) -> &T {
        self.get(i).expect("ring index out of range")
    }
}

#[cfg(test)]
mod tests {
    use super::Ring;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    #[test]
    fn an_empty_ring_holds_nothing() {
        let r: Ring<u64> = Ring::new();
        assert_eq!((r.len(), r.front(), r.get(0), r.buf.len()), (0, None, None, 0));
        assert_eq!(std::mem::size_of::<Ring<(u64, u64, u32, u64)>>(), 24, "smaller than a VecDeque");
    }

    #[test]
    fn wraps_and_grows_in_order() {
        let mut r = Ring::new();
        for i in 0..3u32 {
            r.push_back(i);
        }
        assert_eq!(r.pop_front(), Some(0));
        assert_eq!(r.pop_front(), Some(1));
        // Past the end of the four slots, then grown while wrapped.
        for i in 3..9u32 {
            r.push_back(i);
        }
        assert_eq!(r.iter().copied().collect::<Vec<_>>(), (2..9).collect::<Vec<_>>());
        assert_eq!((r[0], r[6], r.len()), (2, 8, 7));
        assert_eq!(r.buf.len(), 8);
        assert_eq!(r.drain().collect::<Vec<_>>(), (2..9).collect::<Vec<_>>());
        assert!(r.is_empty() && r.pop_front().is_none());
        r.push_back(42);
        assert_eq!(r.front(), Some(&42));
    }

    proptest! {
        /// Any sequence of pushes and pops behaves as `VecDeque`'s.
        #[test]
        fn matches_vecdeque(ops in proptest::collection::vec(any::<Option<u16>>(), 0..400)) {
            let (mut r, mut q) = (Ring::new(), VecDeque::new());
            for op in ops {
                match op {
                    Some(v) => {
                        r.push_back(v);
                        q.push_back(v);
                    }
                    None => prop_assert_eq!(r.pop_front(), q.pop_front()),
                }
                prop_assert_eq!(r.len(), q.len());
                prop_assert_eq!(r.front(), q.front());
                prop_assert!(r.iter().eq(q.iter()));
            }
        }
    }
}
