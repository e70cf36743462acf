//! The discrete-event scheduler: a binary heap of events keyed by integer-nanosecond time
//! and an insertion sequence number, so events at the same instant run in the order they
//! were scheduled (deterministic tie-breaking, independent of heap layout).

use crate::packet::PktId;
use crate::units::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Which end of a flow an event or packet belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Side {
    /// The flow's source (data sender).
    Sender = 0,
    /// The flow's sink (data receiver).
    Receiver = 1,
}

/// Everything that can happen. Small and `Copy`: no allocation per event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The packet being serialized on link direction `link` has left the sender.
    TxEnd { link: u32 },
    /// Packet `pkt` arrives at node `node` (after propagation).
    Arrive { node: u32, pkt: PktId },
    /// The packet at the head of link direction `link`'s propagation line arrives at the
    /// far node. Packets in propagation on one link direction form a FIFO (same delay,
    /// departure order), so only the head is in the event heap: it carries the sequence
    /// number its packet was given at departure, so the global event order is exactly the
    /// one-event-per-packet order, with a much smaller heap.
    LinkArrive { link: u32 },
    /// A timer of one endpoint of `flow`. `kind` and `token` are the agent's own; an agent
    /// ignores a token it no longer expects (cancellation without heap removal).
    Timer { flow: u32, side: Side, kind: u16, token: u32 },
    /// Sample trace `trace`.
    Sample { trace: u32 },
    /// End of the warm-up period: measurement counters restart.
    WarmupEnd,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: Time,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap, we want the earliest first.
        other.time.cmp(&self.time).then_with(|| other.seq.cmp(&self.seq))
    }
}

/// The event list.
#[derive(Default)]
pub struct Scheduler {
    heap: BinaryHeap<Entry>,
    seq: u64,
    now: Time,
    executed: u64,
}

impl Scheduler {
    pub fn new() -> Self {
        Scheduler { heap: BinaryHeap::with_capacity(1024), ..Default::default() }
    }

    /// Current simulated time.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Events executed so far.
    pub fn executed(&self) -> u64 {
        self.executed
    }

    /// Schedules `event` at absolute time `at` (never in the past).
    #[inline]
    pub fn at(&mut self, at: Time, event: Event) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let seq = self.seq;
        self.seq += 1;
        self.heap.push(Entry { time: at.max(self.now), seq, event });
    }

    /// Takes the next sequence number (for an event queued outside the heap, see
    /// [`Event::LinkArrive`]).
    #[inline]
    pub fn next_seq(&mut self) -> u64 {
        let s = self.seq;
        self.seq += 1;
        s
    }

    /// Schedules `event` at `at` with a sequence number taken earlier by [`Scheduler::next_seq`].
    #[inline]
    pub fn at_with_seq(&mut self, at: Time, seq: u64, event: Event) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        self.heap.push(Entry { time: at, seq, event });
    }

    /// Schedules `event` after `delay`.
    #[inline]
    pub fn after(&mut self, delay: Time, event: Event) {
        self.at(self.now + delay, event)
    }

    /// Pops the next event if it is due at or before `until`, advancing the clock.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, Event)> {
        match self.heap.peek() {
            Some(e) if e.time <= until => {
                let e = self.heap.pop().unwrap();
                self.now = e.time;
                self.executed += 1;
                Some((e.time, e.event))
            }
            _ => None,
        }
    }

    /// Moves the clock to `t` (used at the end of a run).
    pub fn advance_to(&mut self, t: Time) {
        if t > self.now {
            self.now = t;
        }
    }

    /// Number of pending events.
    pub fn pending(&self) -> usize {
        self.heap.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_run_in_scheduling_order() {
        let mut s = Scheduler::new();
        for i in 0..100u32 {
            s.at(10, Event::Sample { trace: i });
        }
        s.at(5, Event::WarmupEnd);
        assert_eq!(s.pop_until(100), Some((5, Event::WarmupEnd)));
        for i in 0..100u32 {
            assert_eq!(s.pop_until(100), Some((10, Event::Sample { trace: i })));
        }
        assert_eq!(s.pop_until(100), None);
        assert_eq!(s.executed(), 101);
    }

    #[test]
    fn stops_at_horizon() {
        let mut s = Scheduler::new();
        s.at(50, Event::WarmupEnd);
        assert_eq!(s.pop_until(49), None);
        assert_eq!(s.pending(), 1);
        assert_eq!(s.now(), 0);
    }
}
