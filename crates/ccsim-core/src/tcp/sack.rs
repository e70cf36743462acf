//! A SACK scoreboard: sorted, disjoint, merged byte ranges `[start, end)` above the
//! cumulative ACK, and RFC 6675's `IsLost` and `pipe` on top of it.

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// A deque: the cumulative ACK removes blocks from the front (hundreds of them after a
    /// large overflow, one at a time).
    blocks: std::collections::VecDeque<(u64, u64)>,
    /// Sum of the blocks' lengths (kept as they change: an ACK asks for it twice).
    sacked: u64,
}

impl Scoreboard {
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    pub fn clear(&mut self) {
        self.blocks.clear();
        self.sacked = 0;
    }

    pub fn blocks(&self) -> impl Iterator<Item = &(u64, u64)> {
        self.blocks.iter()
    }

    /// Records `[s, e)` as SACKed (merging with neighbours).
    pub fn add(&mut self, s: u64, e: u64) {
        if e <= s {
            return;
        }
        let i = self.blocks.partition_point(|b| b.1 < s);
        let mut j = i;
        let (mut ns, mut ne) = (s, e);
        while j < self.blocks.len() && self.blocks[j].0 <= ne {
            ns = ns.min(self.blocks[j].0);
            ne = ne.max(self.blocks[j].1);
            self.sacked -= self.blocks[j].1 - self.blocks[j].0;
            j += 1;
        }
        self.sacked += ne - ns;
        if j == i {
            self.blocks.insert(i, (ns, ne));
        } else {
            self.blocks[i] = (ns, ne);
            self.blocks.drain(i + 1..j);
        }
    }

    /// Forgets everything below the cumulative ACK `una`.
    #[inline(always)]
    pub fn advance(&mut self, una: u64) {
        if !self.blocks.is_empty() {
            // (Without SACK or loss, the common case, there is nothing to walk.)
            self.advance_blocks(una);
        }
    }

    #[inline(never)]
    fn advance_blocks(&mut self, una: u64) {
        let k = self.blocks.partition_point(|b| b.1 <= una);
        self.sacked -= self.blocks.range(..k).map(|b| b.1 - b.0).sum::<u64>();
        self.blocks.drain(..k);
        if let Some(first) = self.blocks.front_mut() {
            let start = first.0.max(una);
            self.sacked -= start - first.0;
            first.0 = start;
        }
    }

    /// If `seq` is SACKed, the end of its block.
    #[inline]
    pub fn sacked_end(&self, seq: u64) -> Option<u64> {
        if self.blocks.is_empty() {
            return None;
        }
        let i = self.blocks.partition_point(|b| b.1 <= seq);
        self.blocks.get(i).filter(|b| b.0 <= seq).map(|b| b.1)
    }

    /// Start of the first SACKed block above `seq` (u64::MAX if none).
    #[inline]
    pub fn next_block_start(&self, seq: u64) -> u64 {
        if self.blocks.is_empty() {
            return u64::MAX;
        }
        let i = self.blocks.partition_point(|b| b.0 <= seq);
        self.blocks.get(i).map(|b| b.0).unwrap_or(u64::MAX)
    }

    /// Smallest un-SACKed sequence number at or above `seq`.
    pub fn next_unsacked(&self, seq: u64) -> u64 {
        self.sacked_end(seq).unwrap_or(seq)
    }

    /// SACKed bytes in all (everything recorded lies above the cumulative ACK).
    pub fn sacked_bytes(&self) -> u64 {
        debug_assert_eq!(self.sacked, self.blocks.iter().map(|b| b.1 - b.0).sum::<u64>());
        self.sacked
    }

    /// Highest SACKed sequence number + 1 (0 if none).
    pub fn high(&self) -> u64 {
        self.blocks.back().map(|b| b.1).unwrap_or(0)
    }

    /// RFC 6675 `IsLost` as a boundary: every un-SACKed byte below the returned sequence
    /// number is lost (at least `dupthresh` SACKed blocks, or more than
    /// `(dupthresh − 1)·mss` SACKed bytes, lie above it). 0 when nothing is lost.
    pub fn lost_boundary(&self, mss: u32, dupthresh: u32) -> u64 {
        let mut bytes = 0u64;
        for (count, b) in self.blocks.iter().rev().enumerate() {
            bytes += b.1 - b.0;
            if count as u32 + 1 >= dupthresh || bytes > (dupthresh as u64 - 1) * mss as u64 {
                return b.0;
            }
        }
        0
    }

    /// Un-SACKed bytes in `[a, b)`.
    pub fn unsacked_in(&self, a: u64, b: u64) -> u64 {
        if b <= a {
            return 0;
        }
        let mut sacked = 0;
        let i = self.blocks.partition_point(|x| x.1 <= a);
        for x in self.blocks.range(i..) {
            if x.0 >= b {
                break;
            }
            sacked += x.1.min(b) - x.0.max(a);
        }
        (b - a) - sacked
    }

    /// RFC 6675 `SetPipe`: un-SACKed bytes not deemed lost, plus retransmitted un-SACKed
    /// bytes (below `high_rxt`), between `una` and `max`.
    pub fn pipe(&self, una: u64, max: u64, high_rxt: u64, mss: u32, dupthresh: u32) -> u64 {
        let lost_below = self.lost_boundary(mss, dupthresh).clamp(una, max);
        self.unsacked_in(lost_below, max) + self.unsacked_in(una, high_rxt.min(max))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_and_advances() {
        let mut s = Scoreboard::default();
        s.add(3000, 4000);
        s.add(5000, 6000);
        s.add(4000, 5000);
        assert!(s.blocks().eq(&[(3000, 6000)]));
        s.add(8000, 9000);
        s.add(1000, 2000);
        assert!(s.blocks().eq(&[(1000, 2000), (3000, 6000), (8000, 9000)]));
        assert_eq!(s.sacked_end(3500), Some(6000));
        assert_eq!(s.sacked_end(2500), None);
        assert_eq!(s.next_unsacked(1000), 2000);
        assert_eq!(s.next_block_start(2000), 3000);
        assert_eq!(s.sacked_bytes(), 1000 + 3000 + 1000);
        s.advance(4000);
        assert!(s.blocks().eq(&[(4000, 6000), (8000, 9000)]));
        assert_eq!(s.sacked_bytes(), 3000);
    }

    #[test]
    fn is_lost_and_pipe() {
        let mss = 1000;
        let mut s = Scoreboard::default();
        // Segment 0 lost, 1..=3 SACKed: more than 2 MSS SACKed above 0 -> 0 lost.
        s.add(1000, 4000);
        assert_eq!(s.lost_boundary(mss, 3), 1000);
        // Outstanding 0..6000: pipe = [1000,6000) unsacked not lost = 2000 (4000..6000).
        assert_eq!(s.pipe(0, 6000, 0, mss, 3), 2000);
        // After retransmitting segment 0: +1000.
        assert_eq!(s.pipe(0, 6000, 1000, mss, 3), 3000);
        // Only one SACKed segment above: nothing is lost yet.
        let mut t = Scoreboard::default();
        t.add(1000, 2000);
        assert_eq!(t.lost_boundary(mss, 3), 0);
        assert_eq!(t.pipe(0, 3000, 0, mss, 3), 2000);
        // Three discontiguous blocks: lost below the third from the top.
        t.add(3000, 3100);
        t.add(4000, 4100);
        assert_eq!(t.lost_boundary(mss, 3), 1000);
        assert_eq!(t.unsacked_in(0, 5000), 5000 - 1000 - 100 - 100);
    }
}
