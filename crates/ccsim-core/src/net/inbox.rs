//! A batch router's inbox: every packet on its way to the router, in buckets by arrival
//! time (a calendar), so that a packet costs a push onto the end of its bucket and a share
//! of one small sort.
//!
//! A heap of the packets gave the same order with a walk of log₂(n) entries per packet
//! taken; with thousands of packets on their way and everything else a router's packets
//! touch in between, that walk was a chain of cache misses (the largest single source of
//! last-level misses at 10 000 flows: docs/benchmarks.md). The buckets are read and
//! written in order, a cache line per two packets.
//!
//! A bucket is a power of two of nanoseconds, at most an eighth of the look-ahead window
//! (8 to 16 buckets per window): a window's packets come in no particular order (hosts
//! send ahead of the clock, each as far ahead as it may), and sorting a few small buckets
//! costs fewer comparisons than sorting the window whole (at 10 000 flows the window's sort
//! was 300 instructions per packet). A bucket's number is a shift, not a division.

use super::router::Inbound;
use crate::units::Time;
use std::collections::{BinaryHeap, VecDeque};

/// Buckets kept ahead of the earliest one (at least 1 024 look-ahead windows); packets
/// arriving later wait in `far` (a heap) until the calendar reaches them, so that a far
/// arrival on a slow link does not make the calendar long.
const BUCKETS: usize = 16_384;

/// A bucket is at most the look-ahead window divided by this.
const PER_WINDOW: Time = 8;

/// Empty buckets the calendar adds beyond the one a push needs (see [`Inbox::push_slow`]).
const GROW_AHEAD: usize = 32;

/// An [`Inbound`] ordered by (arrival, start, sequence number), reversed for
/// [`BinaryHeap`] (a max-heap): the earliest first. The sequence number is unique.
#[derive(Clone, Copy)]
struct Far(Inbound);

impl Far {
    #[inline]
    fn key(&self) -> (Time, Time, u64) {
        key(&self.0)
    }
}

/// The order in which a router takes its packets (unique: the sequence number is).
#[inline]
pub(super) fn key(p: &Inbound) -> (Time, Time, u64) {
    (p.0, p.1, p.2)
}

impl PartialEq for Far {
    fn eq(&self, o: &Self) -> bool {
        self.key() == o.key()
    }
}

impl Eq for Far {}

impl PartialOrd for Far {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Far {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        o.key().cmp(&self.key())
    }
}

/// Packets on their way to one batch router (see the module documentation).
pub(super) struct Inbox {
    /// Bucket width: `1 << shift` ns.
    shift: u32,
    /// Number (arrival >> `shift`) of `near[0]`.
    first: u64,
    /// Buckets `first`, `first + 1`, ...: packets in the order they were pushed.
    near: VecDeque<Vec<Inbound>>,
    /// Packets of buckets from `first + BUCKETS` on (and only those), all after every
    /// bucket of `near`: a push goes here only beyond both, a calendar moved back (an
    /// arrival before it) moves them further out, and a take moves those within reach into
    /// `near` in order. So buckets, then this heap, give the packets in order.
    far: BinaryHeap<Far>,
    /// Emptied buckets, kept with their capacity.
    spare: Vec<Vec<Inbound>>,
    len: usize,
}

impl Inbox {
    /// An empty inbox for a router whose look-ahead window is `window` ns.
    pub(super) fn new(window: Time) -> Self {
        let shift = (window / PER_WINDOW).max(1).ilog2();
        Inbox { shift, first: 0, near: VecDeque::new(), far: BinaryHeap::new(), spare: Vec::new(), len: 0 }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.len
    }

    /// Adds a packet on its way: onto the end of its bucket when the calendar has it.
    #[inline(always)]
    pub(super) fn push(&mut self, p: Inbound) {
        // Before the calendar, the subtraction wraps to far beyond it.
        let i = (p.0 >> self.shift).wrapping_sub(self.first);
        if i < self.near.len() as u64 {
            self.len += 1;
            self.near[i as usize].push(p);
            return;
        }
        self.push_slow(p);
    }

    /// [`Inbox::push`] to a bucket not yet in the calendar, beyond its reach or before it
    /// (out of line: the common case stays a few instructions).
    #[inline(never)]
    fn push_slow(&mut self, p: Inbound) {
        let b = p.0 >> self.shift;
        if b < self.first {
            // Earlier than every bucket kept (not expected: a packet on its way arrives
            // at least one look-ahead after the latest batch began; kept exact anyway).
            for _ in b..self.first {
                let v = self.spare.pop().unwrap_or_default();
                self.near.push_front(v);
            }
            self.first = b;
        }
        self.len += 1;
        let i = (b - self.first) as usize;
        if i >= BUCKETS {
            self.far.push(Far(p));
            return;
        }
        // A few buckets beyond this one too: the next packets, later, then find theirs
        // in the calendar (the inlined path) instead of calling here once per bucket.
        while self.near.len() <= (i + GROW_AHEAD).min(BUCKETS - 1) {
            let v = self.spare.pop().unwrap_or_default();
            self.near.push_back(v);
        }
        self.near[i].push(p);
    }

    /// Moves every packet arriving before `horizon` onto the end of `out`, in the order a
    /// router takes them (buckets are consecutive spans of time, each sorted as it is
    /// taken); returns the earliest arrival left (`Time::MAX`: none).
    #[cfg(test)]
    pub(super) fn take(&mut self, horizon: Time, out: &mut Vec<Inbound>) -> Time {
        self.take_with(horizon, out, |p| *p)
    }

    /// [`Inbox::take`], each packet written as `f` makes it (a router keeps it without
    /// its link, in the buffer it forwards from: one copy, not two).
    #[inline]
    pub(super) fn take_with<T>(&mut self, horizon: Time, out: &mut Vec<T>, f: impl Fn(&Inbound) -> T) -> Time {
        let mut taken = 0;
        #[cfg(debug_assertions)]
        let mut prev = (0, 0, 0);
        let mut emit = |out: &mut Vec<T>, ps: &[Inbound]| {
            #[cfg(debug_assertions)]
            for p in ps {
                debug_assert!(key(p) >= prev, "taken out of order");
                prev = key(p);
            }
            out.extend(ps.iter().map(&f));
            taken += ps.len();
        };
        // The bucket holding `horizon - 1`: every earlier bucket is taken whole.
        let last = horizon.saturating_sub(1) >> self.shift;
        while self.first < last {
            let Some(mut v) = self.near.pop_front() else { break };
            v.sort_unstable_by_key(key);
            emit(out, &v);
            v.clear();
            self.spare.push(v);
            self.first += 1;
        }
        if self.first < last {
            self.first = last; // the calendar was empty up to here
        }
        if self.first == last {
            if let Some(v) = self.near.front_mut() {
                v.sort_unstable_by_key(key);
                let n = v.partition_point(|p| p.0 < horizon);
                emit(out, &v[..n]);
                v.drain(..n);
            }
        }
        // Packets beyond the calendar's reach: later than every bucket's (see `far`).
        while let Some(&Far(p)) = self.far.peek() {
            if p.0 >= horizon {
                break;
            }
            self.far.pop();
            emit(out, &[p]);
        }
        self.len -= taken;
        // Buckets now within reach of the calendar leave the heap.
        while let Some(&Far(p)) = self.far.peek() {
            let b = p.0 >> self.shift;
            if b >= self.first + BUCKETS as u64 {
                break;
            }
            self.far.pop();
            let i = (b - self.first) as usize;
            while self.near.len() <= i {
                let v = self.spare.pop().unwrap_or_default();
                self.near.push_back(v);
            }
            self.near[i].push(p);
        }
        self.earliest()
    }

    /// The earliest arrival held (`Time::MAX`: none).
    fn earliest(&self) -> Time {
        let near = self.near.iter().find(|v| !v.is_empty()).map_or(Time::MAX, |v| v.iter().map(|p| p.0).min().unwrap_or(Time::MAX));
        let far = self.far.peek().map_or(Time::MAX, |f| f.0 .0);
        near.min(far)
    }

    /// Every packet held, in no particular order (the inbox is left empty).
    pub(super) fn drain_all(&mut self, out: &mut Vec<Inbound>) {
        for v in self.near.iter_mut() {
            out.append(v);
        }
        out.extend(self.far.drain().map(|f| f.0));
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Pushes and takes in any order give what a heap of every packet gives: the packets
    /// before each horizon, in order, and the earliest left.
    fn check(window: Time, ops: &[(bool, Time)]) {
        let mut inbox = Inbox::new(window);
        let mut all: Vec<Inbound> = Vec::new();
        let (mut seq, mut clock) = (0u64, 0);
        for &(take, dt) in ops {
            if take {
                let horizon = clock + dt;
                let mut got = Vec::new();
                let next = inbox.take(horizon, &mut got);
                assert!(got.is_sorted_by_key(key), "{got:?}");
                let mut want: Vec<Inbound> = all.iter().copied().filter(|p| p.0 < horizon).collect();
                all.retain(|p| p.0 >= horizon);
                want.sort_unstable_by_key(key);
                assert_eq!(got, want);
                assert_eq!(next, all.iter().map(|p| p.0).min().unwrap_or(Time::MAX));
                assert_eq!(inbox.len(), all.len());
                clock = horizon;
            } else {
                // Arrivals at or after the clock, near or far (over the calendar's reach).
                let p = (clock + dt, clock, seq, seq as u32, 0);
                seq += 1;
                inbox.push(p);
                all.push(p);
            }
        }
        let mut rest = Vec::new();
        inbox.drain_all(&mut rest);
        rest.sort_unstable_by_key(key);
        all.sort_unstable_by_key(key);
        assert_eq!(rest, all);
    }

    #[test]
    fn an_arrival_before_the_calendar_is_still_taken_in_time() {
        let mut inbox = Inbox::new(10);
        let mut out = Vec::new();
        inbox.push((250, 0, 0, 0, 0));
        assert_eq!(inbox.take(100, &mut out), 250);
        inbox.push((50, 0, 1, 1, 0));
        assert_eq!(inbox.take(60, &mut out), 250);
        assert_eq!(out, vec![(50, 0, 1, 1, 0)]);
    }

    #[test]
    fn buckets_then_the_heap_are_in_order_after_the_calendar_moved_back() {
        // Window 10: buckets of 1 ns, the calendar's reach 16 384 ns.
        let mut inbox = Inbox::new(10);
        let mut out = Vec::new();
        assert_eq!(inbox.take(1_000, &mut out), Time::MAX); // the calendar starts at 999
        inbox.push((17_000, 0, 0, 0, 0)); // within reach: a bucket
        inbox.push((50, 0, 1, 1, 0)); // before the calendar: it moves back to 50
        inbox.push((16_500, 0, 2, 2, 0)); // beyond reach now, but a bucket the calendar has
        inbox.push((17_500, 0, 3, 3, 0)); // beyond every bucket: the heap
        assert_eq!(inbox.far.len(), 1);
        assert_eq!(inbox.take(30_000, &mut out), Time::MAX);
        assert_eq!(out.iter().map(|p| p.0).collect::<Vec<_>>(), vec![50, 16_500, 17_000, 17_500]);
    }

    #[test]
    fn buckets_are_a_power_of_two_within_an_eighth_of_the_window() {
        assert_eq!(Inbox::new(1_000_000).shift, 16); // 1 ms: 65 536 ns, 15 per window
        assert_eq!(Inbox::new(16).shift, 1);
        assert_eq!(Inbox::new(15).shift, 0);
        assert_eq!(Inbox::new(1).shift, 0);
    }

    /// A push beyond the calendar adds the buckets the next pushes will need too, so that
    /// they take the inlined path (one slow push per 32 buckets, not one per bucket), and
    /// never more than the calendar's reach.
    #[test]
    fn the_calendar_grows_ahead_of_the_pushes() {
        let mut inbox = Inbox::new(8); // buckets of 1 ns
        inbox.push((5, 0, 0, 0, 0));
        assert_eq!(inbox.near.len(), 5 + GROW_AHEAD + 1);
        inbox.push((5 + GROW_AHEAD as Time, 0, 1, 1, 0)); // within: no growth
        assert_eq!(inbox.near.len(), 5 + GROW_AHEAD + 1);
        inbox.push((BUCKETS as Time - 3, 0, 2, 2, 0));
        assert_eq!(inbox.near.len(), BUCKETS);
        let mut got = Vec::new();
        assert_eq!(inbox.take(Time::MAX, &mut got), Time::MAX);
        assert_eq!(got.iter().map(|p| p.0).collect::<Vec<_>>(), [5, 5 + GROW_AHEAD as Time, BUCKETS as Time - 3]);
    }

    #[test]
    fn far_arrivals_wait_outside_the_calendar() {
        // Window 10 (buckets of 1 ns): an arrival 100 000 ahead is 100 000 buckets out.
        check(10, &[(false, 5), (false, 100_000), (false, 15), (true, 10), (true, 99_990), (true, 100), (false, 3), (true, 4)]);
    }

    proptest! {
        #[test]
        fn the_inbox_gives_what_a_heap_gives(window in 1u64..200, ops in proptest::collection::vec((any::<bool>(), 0u64..40_000), 0..300)) {
            check(window, &ops);
        }
    }
}
