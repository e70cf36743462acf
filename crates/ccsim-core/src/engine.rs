//! The discrete-event scheduler: a 4-ary heap of events keyed by integer-nanosecond time
//! and an insertion sequence number, so events at the same instant run in the order they
//! were scheduled (deterministic tie-breaking, independent of heap layout). Agents' timers
//! far ahead of the clock wait in a wheel of millisecond slots and join the heap a slot
//! at a time, before anything later could run (`FarWheel`): the order is unchanged.

use crate::units::Time;

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
    /// The packet at the head of link direction `link`'s propagation line arrives at the
    /// far node. Packets in propagation on one link direction form a FIFO (same delay,
    /// departure order), so only the head is in the event heap: it carries the sequence
    /// number its packet was given at departure, so the global event order is exactly the
    /// one-event-per-packet order, with a much smaller heap.
    LinkArrive { link: u32 },
    /// The arrivals due at batch router `node` (see `Network::node_arrive`).
    NodeArrive { node: u32 },
    /// A timer of one endpoint of `flow`: `end` 0 is the sender, `1 + i` receiver `i`.
    /// `kind` and `token` are the agent's own; an agent ignores a token it no longer
    /// expects (cancellation without heap removal).
    Timer { flow: u32, token: u32, end: u16, kind: u16 },
    /// Traffic generator `gen` opens a flow (for closed-loop user `user`; `u32::MAX`: open loop).
    Generate { gen: u32, user: u32 },
    /// A timer of node element `elem` (its `kind` and `token`, as agents' timers).
    ElemTimer { elem: u32, kind: u16, token: u32 },
    /// Sample trace `trace`.
    Sample { trace: u32 },
    /// End of the warm-up period: measurement counters restart.
    WarmupEnd,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    /// `time << 64 | seq`: one integer comparison orders by time, then scheduling order.
    key: u128,
    event: Event,
}

impl Entry {
    #[inline]
    fn new(at: Time, seq: u64, event: Event) -> Self {
        Entry { key: ((at as u128) << 64) | seq as u128, event }
    }

    #[inline]
    fn time(&self) -> Time {
        (self.key >> 64) as Time
    }
}

/// A 4-ary min-heap keyed by `Entry::key`: half the depth of a binary heap, and the four
/// children of a node share a cache line or two (measured in docs/benchmarks.md).
#[derive(Default)]
struct QuadHeap {
    v: Vec<Entry>,
}

impl QuadHeap {
    fn with_capacity(n: usize) -> Self {
        QuadHeap { v: Vec::with_capacity(n) }
    }

    #[inline]
    fn len(&self) -> usize {
        self.v.len()
    }

    #[inline]
    fn peek(&self) -> Option<&Entry> {
        self.v.first()
    }

    #[inline]
    fn peek_key(&self) -> Option<u128> {
        self.peek().map(|e| e.key)
    }

    #[inline]
    fn push(&mut self, e: Entry) {
        let mut i = self.v.len();
        self.v.push(e);
        while i > 0 {
            let p = (i - 1) / 4;
            if self.v[p].key <= e.key {
                break;
            }
            self.v[i] = self.v[p];
            i = p;
        }
        self.v[i] = e;
    }

    #[inline]
    fn pop(&mut self) -> Option<Entry> {
        let last = self.v.pop()?;
        let n = self.v.len();
        if n == 0 {
            return Some(last);
        }
        let top = self.v[0];
        let mut i = 0;
        loop {
            let c = 4 * i + 1;
            if c >= n {
                break;
            }
            let end = (c + 4).min(n);
            let mut m = c;
            let mut mk = self.v[c].key;
            for j in c + 1..end {
                let k = self.v[j].key;
                if k < mk {
                    mk = k;
                    m = j;
                }
            }
            if mk >= last.key {
                break;
            }
            self.v[i] = self.v[m];
            i = m;
        }
        self.v[i] = last;
        Some(top)
    }
}

/// Events at least this far ahead of the clock wait in the [`FarWheel`] (2^24 ns, about
/// 16.8 ms: beyond a packet's crossing of the usual link, within a retransmission timeout).
const FAR_SHIFT: u32 = 24;
/// Width of one slot of the wheel: 2^20 ns, about 1.05 ms.
const SLOT_SHIFT: u32 = 20;
/// Slots in the wheel: a span of about 1.07 s.
const SLOTS: usize = 1024;
/// Width of one coarse slot: the wheel's whole span (2^30 ns, about 1.07 s).
const COARSE_SHIFT: u32 = SLOT_SHIFT + SLOTS.trailing_zeros();
/// Coarse slots, for events beyond the wheel's span: about 68.7 s more; events beyond
/// them go to the heap.
const COARSE_SLOTS: usize = 64;

/// Events far ahead of the clock (retransmission timers, most of them), held in slots of
/// 2^20 ns and moved into the heap a slot at a time, in time order, before the heap could
/// pop anything later. Events beyond the slots' span (timers backed off after repeated
/// timeouts: at 10 000 flows most pending ones) wait in coarse slots of a whole span each,
/// moved into the slots when the span they fall in begins. Their keys are unchanged, so
/// the order in which events run is the heap's alone: the same run, event for event. The
/// heap stays as deep as the near events need instead of holding every flow's timer.
struct FarWheel {
    slots: Vec<Vec<Entry>>,
    /// Events at or after the start of the span after `cursor`'s, by the span they fall
    /// in (its index modulo [`COARSE_SLOTS`]).
    coarse: Vec<Vec<Entry>>,
    /// Start of the first slot not yet moved into the heap: every event held is at or
    /// after it; those in `slots` before `cursor + SLOTS << SLOT_SHIFT`.
    cursor: Time,
    /// Events held, in `slots` and in `coarse`.
    held: usize,
    /// Of which in `slots`.
    fine: usize,
}

impl Default for FarWheel {
    fn default() -> Self {
        FarWheel {
            slots: (0..SLOTS).map(|_| Vec::new()).collect(),
            coarse: (0..COARSE_SLOTS).map(|_| Vec::new()).collect(),
            cursor: 0,
            held: 0,
            fine: 0,
        }
    }
}

impl FarWheel {
    #[inline]
    fn slot(t: Time) -> usize {
        (t >> SLOT_SHIFT) as usize & (SLOTS - 1)
    }

    /// Holds `e` (at time `t`, at least [`FAR_SHIFT`] ahead of `now`) if it falls within
    /// the wheel's span or its coarse slots'; gives it back otherwise.
    #[inline]
    fn hold(&mut self, now: Time, t: Time, e: Entry) -> Option<Entry> {
        if self.held == 0 {
            // Nothing held: the wheel starts again at the clock's slot.
            self.cursor = now >> SLOT_SHIFT << SLOT_SHIFT;
        }
        if t < self.cursor {
            return Some(e);
        }
        if t - self.cursor < (SLOTS as Time) << SLOT_SHIFT {
            self.slots[Self::slot(t)].push(e);
            self.fine += 1;
        } else {
            // A span after the cursor's (t is a whole span or more past the cursor).
            let span = t >> COARSE_SHIFT;
            if span - (self.cursor >> COARSE_SHIFT) > COARSE_SLOTS as Time {
                return Some(e);
            }
            self.coarse[span as usize & (COARSE_SLOTS - 1)].push(e);
        }
        self.held += 1;
        None
    }

    /// Moves the first slot's events into `heap` (with no event in the slots, moves the
    /// cursor to the next span at once).
    #[inline(never)]
    fn release(&mut self, heap: &mut QuadHeap) {
        if self.fine == 0 {
            self.cursor = ((self.cursor >> COARSE_SHIFT) + 1) << COARSE_SHIFT;
        } else {
            let slot = &mut self.slots[Self::slot(self.cursor)];
            self.held -= slot.len();
            self.fine -= slot.len();
            for e in slot.drain(..) {
                heap.push(e);
            }
            // Wraps only past the last slot of time, when nothing is held any more.
            self.cursor = self.cursor.wrapping_add(1 << SLOT_SHIFT);
        }
        if self.cursor & ((1 << COARSE_SHIFT) - 1) == 0 {
            // A span begins: its events move from their coarse slot into the slots, all
            // of which lie ahead of the cursor now. The coarse slot's memory goes with them
            // (each of them fills once a span: kept, they would all keep the largest).
            let coarse = std::mem::take(&mut self.coarse[(self.cursor >> COARSE_SHIFT) as usize & (COARSE_SLOTS - 1)]);
            self.fine += coarse.len();
            for e in coarse {
                debug_assert!(e.time() >= self.cursor && e.time() - self.cursor < (SLOTS as Time) << SLOT_SHIFT);
                self.slots[Self::slot(e.time())].push(e);
            }
        }
    }
}

#[cfg(test)]
impl FarWheel {
    /// Every held event where it belongs: a slot's within the span from the cursor and in
    /// its own slot, a coarse slot's in one of the spans after the cursor's, in its own
    /// coarse slot; the counts match.
    fn check(&self) {
        let span = (SLOTS as Time) << SLOT_SHIFT;
        let mut fine = 0;
        for (i, slot) in self.slots.iter().enumerate() {
            for e in slot {
                let t = e.time();
                assert!(t >= self.cursor && t - self.cursor < span && Self::slot(t) == i, "slot {i}: {t} (cursor {})", self.cursor);
            }
            fine += slot.len();
        }
        let mut coarse = 0;
        for (i, slot) in self.coarse.iter().enumerate() {
            for e in slot {
                let k = e.time() >> COARSE_SHIFT;
                let ahead = k - (self.cursor >> COARSE_SHIFT);
                assert!(
                    (1..=COARSE_SLOTS as Time).contains(&ahead) && k as usize & (COARSE_SLOTS - 1) == i,
                    "coarse slot {i}: span {k} (cursor {})",
                    self.cursor
                );
            }
            coarse += slot.len();
        }
        assert_eq!((self.fine, self.held), (fine, fine + coarse));
    }
}

/// The event list.
#[derive(Default)]
pub struct Scheduler {
    heap: QuadHeap,
    far: FarWheel,
    seq: u64,
    now: Time,
    executed: u64,
}

impl Scheduler {
    pub fn new() -> Self {
        Scheduler { heap: QuadHeap::with_capacity(1024), ..Default::default() }
    }

    /// Moves far events into the heap until its first event comes before every one still
    /// held (so that the heap's order is the whole list's).
    #[inline]
    fn settle(&mut self) {
        while self.far.held > 0 && self.heap.peek_key().is_none_or(|k| (k >> 64) as Time >= self.far.cursor) {
            self.far.release(&mut self.heap);
        }
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

    /// Counts work done in place of an event (a packet taken ahead of the clock).
    #[inline]
    pub fn note_executed(&mut self) {
        self.executed += 1;
    }

    /// Schedules `event` at absolute time `at` (never in the past).
    #[inline]
    pub fn at(&mut self, at: Time, event: Event) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let seq = self.seq;
        self.seq += 1;
        self.heap.push(Entry::new(at.max(self.now), seq, event));
    }

    /// [`Scheduler::at`] for an agent's timer: one far ahead of the clock waits in the
    /// wheel of far events instead of deepening the heap (at 10 000 flows most pending
    /// events are retransmission timers). Runs in the same order as [`Scheduler::at`].
    #[inline]
    pub fn timer_at(&mut self, at: Time, event: Event) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let seq = self.seq;
        self.seq += 1;
        let at = at.max(self.now);
        let e = Entry::new(at, seq, event);
        if at - self.now >= 1 << FAR_SHIFT {
            if let Some(e) = self.far.hold(self.now, at, e) {
                self.heap.push(e);
            }
        } else {
            self.heap.push(e);
        }
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
        self.heap.push(Entry::new(at, seq, event));
    }

    /// Schedules `event` after `delay`.
    #[inline]
    pub fn after(&mut self, delay: Time, event: Event) {
        self.at(self.now + delay, event)
    }

    /// Pops the next event if it is due at or before `until`, advancing the clock.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, Event)> {
        self.pop_seq_until(until).map(|(t, _, e)| (t, e))
    }

    /// As [`Scheduler::pop_until`], with the event's sequence number (the order in which
    /// it was scheduled: an event scheduled before sequence number `s` has one below `s`).
    #[inline]
    pub fn pop_seq_until(&mut self, until: Time) -> Option<(Time, u64, Event)> {
        self.settle();
        match self.heap.peek_key() {
            Some(k) if (k >> 64) as Time <= until => {
                let e = self.heap.pop().unwrap();
                let t = e.time();
                self.now = t;
                self.executed += 1;
                Some((t, e.key as u64, e.event))
            }
            _ => None,
        }
    }

    /// The event that will run next, if any (for prefetch hints: the run does not depend
    /// on it).
    #[inline]
    pub fn peek_event(&self) -> Option<&Event> {
        let e = self.heap.peek()?;
        (self.far.held == 0 || e.time() < self.far.cursor).then_some(&e.event)
    }

    /// The sequence number the next scheduled event will get.
    #[inline]
    pub fn peek_seq(&self) -> u64 {
        self.seq
    }

    /// Moves the clock to `t` (used at the end of a run).
    pub fn advance_to(&mut self, t: Time) {
        if t > self.now {
            self.now = t;
        }
    }

    /// Number of pending events.
    pub fn pending(&self) -> usize {
        self.heap.len() + self.far.held
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
    fn heap_orders_like_a_sort() {
        use crate::rng::{stream, Rng};
        let mut r = stream(1, "heap");
        let mut s = Scheduler::new();
        let mut want = Vec::new();
        // Interleave pushes and pops; compare against a sorted reference.
        for round in 0..50u32 {
            for _ in 0..200 {
                let t = s.now() + r.gen_range(0..1000u64);
                let seq = s.seq;
                s.at(t, Event::Sample { trace: round });
                want.push((t, seq));
            }
            want.sort_unstable();
            want.reverse();
            for _ in 0..150 {
                let (t, _) = s.pop_until(u64::MAX).unwrap();
                let (wt, _) = want.pop().unwrap();
                assert_eq!(t, wt);
            }
        }
    }

    /// Timers far ahead (in the wheel, beyond its span, or near) mixed with events of
    /// every other kind run in exactly the order of their keys, as with the heap alone.
    #[test]
    fn far_timers_run_in_key_order() {
        use crate::rng::{stream, Rng};
        let mut r = stream(1, "far");
        let mut s = Scheduler::new();
        let mut want = Vec::new();
        let span = (SLOTS as Time) << SLOT_SHIFT;
        for round in 0..300u32 {
            // A sequence number taken now, its event scheduled after later ones (a link's
            // arrival, `at_with_seq`).
            let reserved = (s.now() + r.gen_range(0..span), s.next_seq());
            for i in 0..100u32 {
                let ahead = match r.gen_range(0..7u32) {
                    0 => r.gen_range(0..1000u64),
                    1 => r.gen_range(0..2 << FAR_SHIFT),
                    2 => r.gen_range(0..span),
                    3 => r.gen_range(0..3 * span),
                    // Within the coarse slots, at their edge, beyond them.
                    4 => r.gen_range(0..(COARSE_SLOTS as Time + 3) * span),
                    5 => (COARSE_SLOTS as Time * span).saturating_sub(r.gen_range(0..2 * span)),
                    _ => (1 << FAR_SHIFT) + r.gen_range(0..4u64),
                };
                let t = s.now() + ahead;
                let seq = s.peek_seq();
                let ev = Event::Timer { flow: round, token: i, end: 0, kind: 0 };
                if r.gen_range(0..2u32) == 0 {
                    s.timer_at(t, ev);
                } else {
                    s.at(t, ev);
                }
                want.push((t, seq));
            }
            s.at_with_seq(reserved.0, reserved.1, Event::LinkArrive { link: round });
            want.push(reserved);
            s.far.check();
            assert_eq!(s.pending(), want.len());
            want.sort_unstable();
            want.reverse();
            for _ in 0..r.gen_range(0..150u32) {
                // Up to any instant, as a run's end or a stop asks.
                let until = s.now() + if r.gen_range(0..10u32) == 0 { r.gen_range(0..80 * span) } else { r.gen_range(0..2 * span) };
                let Some((t, seq, _)) = s.pop_seq_until(until) else {
                    assert!(want.last().is_none_or(|&(wt, _)| wt > until));
                    s.advance_to(until); // as the run's end does
                    continue;
                };
                assert_eq!((t, seq), want.pop().unwrap());
                s.far.check();
                // The hint names the event that runs next, or nothing.
                if s.peek_event().is_some() {
                    assert_eq!(s.heap.peek_key().unwrap() as u64, want.last().unwrap().1);
                }
            }
            assert_eq!(s.pending(), want.len());
        }
        while let Some((t, seq, _)) = s.pop_seq_until(u64::MAX) {
            assert_eq!((t, seq), want.pop().unwrap());
        }
        assert!(want.is_empty());
        assert_eq!(s.pending(), 0);
    }

    /// A timer several spans ahead waits in a coarse slot, alone or behind others, and
    /// runs at its time; one beyond the coarse slots goes to the heap.
    #[test]
    fn coarse_timers_wait_for_their_span() {
        let span = (SLOTS as Time) << SLOT_SHIFT;
        let mut s = Scheduler::new();
        let (a, b, c) = (5 * span + 7, 5 * span + 3, (COARSE_SLOTS as Time + 2) * span);
        s.timer_at(a, Event::WarmupEnd);
        s.timer_at(b, Event::Sample { trace: 1 });
        s.timer_at(c, Event::Sample { trace: 2 });
        assert_eq!((s.far.held, s.far.fine, s.heap.len()), (2, 0, 1));
        s.timer_at(span / 2, Event::Sample { trace: 0 });
        assert_eq!((s.far.held, s.far.fine), (3, 1));
        assert_eq!(s.pop_until(b - 1), Some((span / 2, Event::Sample { trace: 0 })));
        assert_eq!(s.pop_until(b - 1), None);
        assert_eq!(s.pop_until(u64::MAX), Some((b, Event::Sample { trace: 1 })));
        assert_eq!(s.pop_until(u64::MAX), Some((a, Event::WarmupEnd)));
        assert_eq!(s.pop_until(u64::MAX), Some((c, Event::Sample { trace: 2 })));
        assert_eq!((s.pending(), s.far.held, s.far.fine), (0, 0, 0));
    }

    /// A far timer beyond `until` stays pending; the clock does not move.
    #[test]
    fn far_timer_waits_for_its_time() {
        let mut s = Scheduler::new();
        let t = 5 << FAR_SHIFT;
        s.timer_at(t, Event::WarmupEnd);
        assert_eq!(s.far.held, 1);
        assert_eq!(s.pop_until(t - 1), None);
        assert_eq!((s.now(), s.pending()), (0, 1));
        assert_eq!(s.pop_until(t), Some((t, Event::WarmupEnd)));
        assert_eq!(s.pending(), 0);
    }

    #[test]
    fn events_stay_small() {
        assert!(std::mem::size_of::<Event>() <= 16, "{}", std::mem::size_of::<Event>());
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
