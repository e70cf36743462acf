//! UDT's loss lists: sets of lost sequence numbers kept as disjoint, sorted ranges
//! (`CSndLossList`, `CRcvLossList`). A timeout may put a whole window of tens of thousands
//! of packets in at once; ranges keep that one entry.

use std::collections::BTreeMap;

/// Disjoint inclusive ranges `[start, end]` keyed by start.
#[derive(Clone, Debug, Default)]
pub struct LossList {
    ranges: BTreeMap<u64, u64>,
    len: u64,
}

impl LossList {
    /// Number of sequence numbers in the list.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds `[start, end]`; returns how many numbers were not in the list before.
    pub fn insert(&mut self, start: u64, end: u64) -> u64 {
        if end < start {
            return 0;
        }
        let (mut s, mut e) = (start, end);
        let before = self.len;
        // Merge with a range starting at or before `s` that reaches `s − 1`.
        if let Some((&ps, &pe)) = self.ranges.range(..=s).next_back() {
            if pe.saturating_add(1) >= s {
                s = ps;
                e = e.max(pe);
                self.ranges.remove(&ps);
                self.len -= pe - ps + 1;
            }
        }
        // Absorb every range starting inside `[s, e + 1]`.
        while let Some((&ns, &ne)) = self.ranges.range(s..=e.saturating_add(1)).next() {
            e = e.max(ne);
            self.ranges.remove(&ns);
            self.len -= ne - ns + 1;
        }
        self.ranges.insert(s, e);
        self.len += e - s + 1;
        self.len - before
    }

    /// Removes `seq`; returns whether it was there.
    pub fn remove(&mut self, seq: u64) -> bool {
        let Some((&s, &e)) = self.ranges.range(..=seq).next_back() else { return false };
        if seq > e {
            return false;
        }
        self.ranges.remove(&s);
        if s < seq {
            self.ranges.insert(s, seq - 1);
        }
        if seq < e {
            self.ranges.insert(seq + 1, e);
        }
        self.len -= 1;
        true
    }

    /// Removes every number below `seq` (acknowledged).
    pub fn remove_below(&mut self, seq: u64) {
        while let Some((&s, &e)) = self.ranges.iter().next() {
            if s >= seq {
                break;
            }
            self.ranges.remove(&s);
            self.len -= e - s + 1;
            if e >= seq {
                self.ranges.insert(seq, e);
                self.len += e - seq + 1;
                break;
            }
        }
    }

    /// The smallest number in the list.
    pub fn first(&self) -> Option<u64> {
        self.ranges.keys().next().copied()
    }

    /// Removes and returns the smallest number.
    pub fn pop_first(&mut self) -> Option<u64> {
        let s = self.first()?;
        self.remove(s);
        Some(s)
    }

    /// The ranges, in order.
    pub fn ranges(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.ranges.iter().map(|(&s, &e)| (s, e))
    }

    pub fn clear(&mut self) {
        self.ranges.clear();
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn merges_and_splits() {
        let mut l = LossList::default();
        assert_eq!(l.insert(10, 12), 3);
        assert_eq!(l.insert(14, 15), 2);
        assert_eq!(l.insert(13, 13), 1); // joins both
        assert_eq!(l.ranges().collect::<Vec<_>>(), vec![(10, 15)]);
        assert_eq!(l.insert(11, 20), 5);
        assert!(l.remove(12));
        assert!(!l.remove(12));
        assert_eq!(l.ranges().collect::<Vec<_>>(), vec![(10, 11), (13, 20)]);
        l.remove_below(14);
        assert_eq!(l.ranges().collect::<Vec<_>>(), vec![(14, 20)]);
        assert_eq!(l.pop_first(), Some(14));
        assert_eq!(l.len(), 6);
    }

    proptest! {
        #[test]
        fn behaves_as_a_set(ops in proptest::collection::vec((0u8..3, 0u64..60, 0u64..8), 1..80)) {
            let mut l = LossList::default();
            let mut set = std::collections::BTreeSet::new();
            for (op, a, n) in ops {
                match op {
                    0 => {
                        let added = l.insert(a, a + n);
                        let mut fresh = 0;
                        for s in a..=a + n { if set.insert(s) { fresh += 1; } }
                        prop_assert_eq!(added, fresh);
                    }
                    1 => { prop_assert_eq!(l.remove(a), set.remove(&a)); }
                    _ => { l.remove_below(a); set.retain(|s| *s >= a); }
                }
                prop_assert_eq!(l.len(), set.len() as u64);
                prop_assert_eq!(l.first(), set.iter().next().copied());
                let flat: Vec<u64> = l.ranges().flat_map(|(s, e)| s..=e).collect();
                prop_assert_eq!(flat, set.iter().copied().collect::<Vec<_>>());
                // Ranges stay disjoint and not adjacent.
                let r: Vec<_> = l.ranges().collect();
                for w in r.windows(2) { prop_assert!(w[0].1 + 1 < w[1].0); }
            }
        }
    }
}
