//! Event-free FIFO links.
//!
//! A link direction whose queue is a plain FIFO that decides only on arrival (DropTail)
//! needs no event per packet to be exact: when a packet is offered at time `a`, its whole
//! crossing is determined at once — whether it is admitted (the queue length at `a` is the
//! number of earlier admitted packets that have not started by `a`), when it starts
//! (`max(a, busy_until)`), when its last bit leaves, whether the loss model takes it, and
//! when it reaches the far node. The link schedules only that final arrival.
//!
//! The statistics count each crossing whole when it is decided. A reader at time `t` (a
//! queue trace, the end of warm-up, the end of the run) gets them *as of `t`*:
//! [`LazyFifo::view`] takes away the parts that lie after `t` of the crossings in a short
//! ledger, where each crossing stays until its last instant (start, or the loss at the end
//! of serialization) has passed, if that instant is after the read horizon (the next
//! reader's time, before which no reader looks) when it is decided; a crossing entirely
//! before the read horizon never enters it. The queue walk of later offers keeps its own
//! list, of the crossings that wait for the transmitter. The figures are therefore those
//! of an event per arrival and per departure, with one rule for simultaneous events: a
//! departure at the same nanosecond as an arrival happens first (the arrival does not see
//! the departing packet in the queue), in admission and statistics alike.
//!
//! Because the crossing is known in advance, a packet can also be offered to the *next*
//! link at its future arrival time when nothing else can reach that link in between: see
//! `Network::enqueue` (cut-through of single-fed links).

use super::ring::Ring;
use crate::measure::{FlowTable, QueueStats};
use crate::queue::{DropReason, Limit};
use crate::units::Time;

/// One packet's crossing of a lazy link, kept until its last instant has passed.
#[derive(Clone, Copy, Debug)]
struct Crossing {
    /// Arrival at the queue.
    arr: Time,
    /// Start of serialization (`arr` when refused).
    start: Time,
    /// Serialization time.
    tx: Time,
    /// Queue length (packets, bytes) just after the arrival was handled.
    len_pkts: u32,
    len_bytes: u64,
    flow: u32,
    size: u32,
    fate: Fate,
    /// A forward (non-ACK) packet of its flow.
    forward: bool,
    /// The packet's class (DSCP).
    dscp: u8,
}

impl Crossing {
    /// The last instant at which this crossing changes a statistic.
    #[inline]
    fn end(&self) -> Time {
        match self.fate {
            Fate::Lost => self.start + self.tx,
            _ => self.start,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fate {
    /// Transmitted and propagated.
    Sent,
    /// Refused by the full queue on arrival.
    Overflow,
    /// Transmitted, then lost by the link's loss model at the end of serialization.
    Lost,
}

/// Everything about a packet the link needs to decide its crossing.
pub(crate) struct Offer {
    /// The instant before which no reader looks at the link's statistics (the read
    /// horizon, or the current event time if later): a crossing entirely at or before it
    /// leaves no ledger entry.
    pub keep: Time,
    pub at: Time,
    pub size: u32,
    pub flow: u32,
    /// The packet's uid (a packet of an earlier flow in a reused slot is not counted).
    pub uid: u64,
    pub forward: bool,
    pub dscp: u8,
}

/// An admitted crossing that waited for the transmitter: its start and size, kept for the
/// queue walk of later offers until it has started by one.
#[derive(Clone, Copy, Debug)]
struct Wait {
    start: Time,
    size: u32,
}

/// The state of one lazy FIFO link direction (see the module documentation): two cache
/// lines of `LinkDir`, after its first two. Laid out by hand (`repr(C)`, on its own two
/// lines) so that the commonest crossing (a packet that finds the transmitter free, see
/// [`LazyFifo::pass_idle`]) reads and writes these two lines and no other line of its link
/// direction but the first (and the second at a chain's end): the ledger's length, the
/// largest packet that fits, the peak, the idle serialization time and the waiting bytes
/// in the first; the waiting crossings, the idle packet and byte counts (and the limit,
/// whose tag is the option's) in the second. `QueueStats`, on a line of its own, is left
/// alone: [`LazyFifo::view`] adds the idle counts. No wall-time gain was measured on the
/// benchmarks' machine (docs/benchmarks.md, seventeenth session): the hints already fetch
/// these lines at 10 000 flows.
///
/// Two queues of crossings, each in admission (= arrival) order: the crossings that wait
/// for the transmitter (`waits`, what a later offer's queue walk needs) and the crossings
/// a reader could still see in part (`ledger`: those ending after the read horizon when
/// they were decided). A crossing is in both, either or neither; with no reader before the
/// end of the run, the ledger stays empty (twenty-sixth session: S1 −2.8 % instructions,
/// S3 −3.4 %).
#[repr(C, align(64))]
pub(crate) struct LazyFifo {
    /// Crossings that end after the read horizon (as it was when each was decided), until
    /// [`LazyFifo::prune`] finds them entirely in the past.
    ledger: Ring<Crossing>,
    /// The largest packet (bytes) that fits the empty queue: `limit` decided once.
    alone_max: u32,
    /// Peak queue length over crossings that left the ledger or never entered it (since
    /// the last reset); a crossing's queue length is a `u32` too.
    max_pkts: u32,
    /// Arrivals before this instant do not count for the peak (just after the end of
    /// warm-up; 0 before).
    peak_from: Time,
    max_bytes: u64,
    /// Serialization time of the packets counted in `idle_pkts`.
    idle_busy: Time,
    /// The bytes of the crossings in `waits`.
    wait_bytes: u64,
    // Second line.
    /// Admitted crossings that wait (start after their arrival), from the first not known
    /// to have started by the latest offer: the queue at that offer's time.
    waits: Ring<Wait>,
    limit: Limit,
    /// Packets (and their bytes) that crossed by [`LazyFifo::pass_idle`]: each an arrival
    /// and a departure not yet in the link's `QueueStats` ([`LazyFifo::fold`]).
    idle_pkts: u64,
    idle_bytes: u64,
}

impl LazyFifo {
    pub fn new(limit: Limit) -> Self {
        let alone_max = match limit {
            Limit::Packets(0) => 0,
            Limit::Packets(_) => u32::MAX,
            Limit::Bytes(b) => b.min(u32::MAX as u64) as u32,
        };
        LazyFifo {
            limit,
            alone_max,
            ledger: Ring::new(),
            waits: Ring::new(),
            wait_bytes: 0,
            max_pkts: 0,
            max_bytes: 0,
            peak_from: 0,
            idle_pkts: 0,
            idle_bytes: 0,
            idle_busy: 0,
        }
    }

    /// Packets waiting at the latest offer's time.
    #[inline(always)]
    fn wait_pkts(&self) -> u64 {
        self.waits.len() as u64
    }

    /// Decides the crossing of a packet offered at `o.at` (never before an earlier offer):
    /// counts it whole in `stats` and `flows`, and returns `Some(start)` if it is admitted
    /// (the caller then calls [`LazyFifo::transmitted`]) or `None` if refused.
    #[inline]
    pub fn offer(&mut self, o: &Offer, busy_until: Time, stats: &mut QueueStats, flows: &mut FlowTable, ld: u32) -> Option<Time> {
        // The queue at `o.at`: admitted crossings that have not started by then.
        while let Some(w) = self.waits.front() {
            if w.start > o.at {
                break;
            }
            self.wait_bytes -= w.size as u64;
            self.waits.pop_front();
        }
        stats.arrivals += 1;
        stats.arrival_bytes += o.size as u64;
        if o.dscp != 0 {
            stats.class_arrival(o.dscp, o.size, false);
        }
        let fits = match self.limit {
            Limit::Packets(n) => self.wait_pkts() < n,
            Limit::Bytes(b) => self.wait_bytes + o.size as u64 <= b,
        };
        if !fits {
            self.refuse(o, stats, flows, ld);
            return None;
        }
        Some(o.at.max(busy_until))
    }

    /// [`LazyFifo::offer`] and [`LazyFifo::transmitted`] in one, for a packet offered
    /// when the transmitter is free (`o.at >= busy_until`): every earlier crossing has
    /// started, so the queue is empty and the packet, if it fits, starts at once. Returns
    /// whether it was admitted; `tx` and `lost` are asked for only then.
    #[inline]
    pub fn offer_idle(
        &mut self,
        o: &Offer,
        mut tx_lost: impl FnMut() -> (Time, bool),
        stats: &mut QueueStats,
        flows: &mut FlowTable,
        ld: u32,
    ) -> Option<(Time, bool)> {
        self.all_started();
        stats.arrivals += 1;
        stats.arrival_bytes += o.size as u64;
        if o.dscp != 0 {
            stats.class_arrival(o.dscp, o.size, false);
        }
        let fits = match self.limit {
            Limit::Packets(n) => n > 0,
            Limit::Bytes(b) => o.size as u64 <= b,
        };
        if !fits {
            self.refuse(o, stats, flows, ld);
            return None;
        }
        let (tx, lost) = tx_lost();
        Self::count_departure(o, tx, lost, stats, flows, ld);
        let c = Crossing {
            arr: o.at,
            start: o.at,
            tx,
            len_pkts: 1,
            len_bytes: o.size as u64,
            flow: o.flow,
            size: o.size,
            fate: if lost { Fate::Lost } else { Fate::Sent },
            forward: o.forward,
            dscp: o.dscp,
        };
        self.record(o.keep, c);
        Some((tx, lost))
    }

    /// Every admitted crossing has started (the transmitter is free at the offer's time):
    /// nothing waits. An empty queue is left unwritten (with such stores gone S2 ran 2.3 %
    /// faster in the plain build, 21 pairs).
    #[inline]
    fn all_started(&mut self) {
        if !self.waits.is_empty() {
            self.waits.clear();
            self.wait_bytes = 0;
        }
        debug_assert!(self.waits.is_empty() && self.wait_bytes == 0);
    }

    /// Crossings in the ledger now (a reader's walk is this long).
    pub fn ledger_len(&self) -> usize {
        self.ledger.len()
    }

    /// Whether a packet of `size` bytes fits the empty queue.
    #[inline]
    pub fn fits_alone(&self, size: u32) -> bool {
        size <= self.alone_max
    }

    /// [`LazyFifo::offer_idle`] for the commonest crossing: a best-effort packet (class 0)
    /// of `size` bytes that fits the empty queue of a free transmitter on a link without
    /// a loss model, offered at `at`, no reader looking before `keep`. It is sent at `at`,
    /// taking `tx`; counted exactly as the general path counts it. `who` gives the
    /// packet's flow and whether it is a forward packet, asked for only if the crossing
    /// goes into the ledger (it ends after `keep`). Its arrival and departure are counted
    /// in the idle counts, not in the link's `QueueStats` (see [`LazyFifo::fold`]).
    #[inline]
    pub fn pass_idle(&mut self, keep: Time, at: Time, size: u32, tx: Time, who: impl FnOnce() -> (u32, bool)) {
        if at <= keep {
            return self.pass_idle_settled(at, size, tx);
        }
        self.all_started();
        self.count_idle(size, tx);
        let (flow, forward) = who();
        let c = Crossing { arr: at, start: at, tx, len_pkts: 1, len_bytes: size as u64, flow, size, fate: Fate::Sent, forward, dscp: 0 };
        self.record(keep, c);
    }

    /// [`LazyFifo::pass_idle`] for a crossing entirely before any read when decided (sent
    /// at once, at `at`, at or before the read horizon or the event time), every earlier
    /// crossing started: its idle counts and its part in the peak (`record`'s rule, without
    /// building it).
    #[inline]
    pub fn pass_idle_settled(&mut self, at: Time, size: u32, tx: Time) {
        self.all_started();
        self.count_idle(size, tx);
        self.peak(at, 1, size as u64)
    }

    #[inline(always)]
    fn count_idle(&mut self, size: u32, tx: Time) {
        self.idle_pkts += 1;
        self.idle_bytes += size as u64;
        self.idle_busy += tx;
    }

    /// Counts a packet refused by the full queue at `o.at` (its arrival already counted).
    fn refuse(&mut self, o: &Offer, stats: &mut QueueStats, flows: &mut FlowTable, ld: u32) {
        stats.on_drop(DropReason::Overflow, o.size);
        if o.dscp != 0 {
            stats.class_drop(o.dscp, o.size, false, DropReason::Overflow);
        }
        flows.drop_parts(o.flow, o.uid, ld, DropReason::Overflow, o.forward, o.size, o.dscp);
        self.record(
            o.keep,
            Crossing {
                arr: o.at,
                start: o.at,
                tx: 0,
                len_pkts: self.wait_pkts() as u32,
                len_bytes: self.wait_bytes,
                flow: o.flow,
                size: o.size,
                fate: Fate::Overflow,
                forward: o.forward,
                dscp: o.dscp,
            },
        );
    }

    /// Completes an admitted crossing: serialization `tx` from `start`, `lost` or not.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn transmitted(&mut self, o: &Offer, start: Time, tx: Time, lost: bool, stats: &mut QueueStats, flows: &mut FlowTable, ld: u32) {
        let c = Crossing {
            arr: o.at,
            start,
            tx,
            len_pkts: self.wait_pkts() as u32 + 1,
            len_bytes: self.wait_bytes + o.size as u64,
            flow: o.flow,
            size: o.size,
            fate: if lost { Fate::Lost } else { Fate::Sent },
            forward: o.forward,
            dscp: o.dscp,
        };
        if start > o.at {
            self.waits.push_back(Wait { start, size: o.size });
            self.wait_bytes += o.size as u64;
        }
        let wait = (start - o.at) as u128;
        stats.add_area(wait, wait * o.size as u128);
        Self::count_departure(o, tx, lost, stats, flows, ld);
        self.record(o.keep, c);
    }

    /// Counts an admitted packet's departure (serialization `tx`) and its loss, if `lost`.
    #[inline]
    fn count_departure(o: &Offer, tx: Time, lost: bool, stats: &mut QueueStats, flows: &mut FlowTable, ld: u32) {
        stats.departures += 1;
        stats.departure_bytes += o.size as u64;
        stats.busy_ns += tx;
        if o.dscp != 0 {
            stats.class_departure(o.dscp, o.size, false);
        }
        if lost {
            stats.on_drop(DropReason::Loss, o.size);
            if o.dscp != 0 {
                stats.class_drop(o.dscp, o.size, false, DropReason::Loss);
            }
            flows.drop_parts(o.flow, o.uid, ld, DropReason::Loss, o.forward, o.size, o.dscp);
        }
    }

    /// Keeps `c` in the ledger unless it ends at or before `keep`, before any reader looks
    /// (the read horizon, or the current event time if later): then only its part in the
    /// peak is taken, as pruning would. The queue walk does not need the ledger (`waits`).
    #[inline]
    fn record(&mut self, keep: Time, c: Crossing) {
        if c.end() <= keep {
            self.note_peak(&c);
            return;
        }
        self.ledger.push_back(c);
    }

    /// Takes a crossing that leaves the ledger (or never enters it) into the peak.
    #[inline]
    fn note_peak(&mut self, c: &Crossing) {
        self.peak(c.arr, c.len_pkts, c.len_bytes);
    }

    /// A queue of `pkts` packets and `bytes` bytes just after an arrival at `arr`, taken
    /// into the peak (unless the arrival precedes the end of warm-up).
    #[inline]
    fn peak(&mut self, arr: Time, pkts: u32, bytes: u64) {
        // Written only when it grows: most crossings leave the peak as it was (as with the
        // queue walk's state in `all_started`).
        if self.counts_for_peak(arr) {
            if pkts > self.max_pkts {
                self.max_pkts = pkts;
            }
            if bytes > self.max_bytes {
                self.max_bytes = bytes;
            }
        }
    }

    /// Whether an arrival at `arr` counts for the peak queue length.
    #[inline]
    fn counts_for_peak(&self, arr: Time) -> bool {
        arr >= self.peak_from
    }

    /// Forgets crossings entirely at or before `now` (their counts are final: no reader
    /// looks before then).
    #[inline]
    pub fn prune(&mut self, now: Time) {
        while let Some(c) = self.ledger.front() {
            if c.end() > now {
                return;
            }
            let c = *c;
            self.note_peak(&c);
            self.ledger.pop_front();
        }
    }

    /// The statistics and queue length (packets, bytes) as of `t` (at or after every
    /// pruning time): `stats` minus the parts of the ledger's crossings after `t`.
    pub fn view(&self, t: Time, stats: &QueueStats) -> (QueueStats, usize, u64) {
        let mut s = stats.clone();
        let (mut qp, mut qb) = (0usize, 0u64);
        self.add_idle(&mut s);
        s.max_pkts = self.max_pkts as u64;
        s.max_bytes = self.max_bytes;
        for c in self.ledger.iter() {
            let size = c.size as u64;
            if c.dscp != 0 {
                Self::class_view(c, t, &mut s);
            }
            if c.arr > t {
                s.arrivals -= 1;
                s.arrival_bytes -= size;
            } else if self.counts_for_peak(c.arr) {
                s.max_pkts = s.max_pkts.max(c.len_pkts as u64);
                s.max_bytes = s.max_bytes.max(c.len_bytes);
            }
            if c.fate == Fate::Overflow {
                if c.arr > t {
                    s.undo_drop(DropReason::Overflow, c.size);
                }
                continue;
            }
            if c.start > t {
                s.departures -= 1;
                s.departure_bytes -= size;
                s.busy_ns -= c.tx;
                let from = c.arr.max(t);
                let wait = (c.start - from) as u128;
                s.sub_area(wait, wait * size as u128);
                if c.arr <= t {
                    qp += 1;
                    qb += size;
                }
            }
            if c.fate == Fate::Lost && c.start + c.tx > t {
                s.undo_drop(DropReason::Loss, c.size);
            }
        }
        s.set_last(t);
        (s, qp, qb)
    }

    /// A crossing's part in its class's counts after `t`, taken away (and its place in
    /// the queue at `t`, counted).
    fn class_view(c: &Crossing, t: Time, s: &mut QueueStats) {
        let k = s.classes.get(c.dscp);
        let size = c.size as u64;
        if c.arr > t {
            k.arrivals -= 1;
            k.arrival_bytes -= size;
        }
        match c.fate {
            Fate::Overflow if c.arr > t => {
                k.drops -= 1;
                k.drop_bytes -= size;
            }
            Fate::Overflow => {}
            _ => {
                if c.start > t {
                    k.departures -= 1;
                    k.departure_bytes -= size;
                    k.len_pkts += (c.arr <= t) as i64;
                }
                if c.fate == Fate::Lost && c.start + c.tx > t {
                    k.drops -= 1;
                    k.drop_bytes -= size;
                }
            }
        }
    }

    /// Drops decided for after `t`: added to (`add`) or taken from the counts of the flows
    /// below `static_flows` (flows created during a run keep whole-life counters).
    pub fn flow_drops_after(&self, t: Time, flows: &mut FlowTable, ld: u32, add: bool, static_flows: u32) {
        for c in self.ledger.iter().filter(|c| c.flow < static_flows) {
            let (at, reason) = match c.fate {
                Fate::Sent => continue,
                Fate::Overflow => (c.arr, DropReason::Overflow),
                Fate::Lost => (c.start + c.tx, DropReason::Loss),
            };
            if at > t {
                let f = &mut flows[c.flow as usize];
                if add {
                    f.on_drop_parts(ld, reason, c.forward, c.size);
                } else {
                    f.undo_drop_parts(ld, reason, c.forward, c.size);
                }
                if c.dscp != 0 && c.forward {
                    let k = f.class(c.dscp);
                    k.drops = if add { k.drops + 1 } else { k.drops.saturating_sub(1) };
                }
            }
        }
    }

    /// Moves the idle counts ([`LazyFifo::pass_idle`]) into `stats`, the link's own counts.
    pub fn fold(&mut self, stats: &mut QueueStats) {
        self.add_idle(stats);
        (self.idle_pkts, self.idle_bytes, self.idle_busy) = (0, 0, 0);
    }

    /// Adds the idle counts to `stats`: each an arrival and a departure.
    fn add_idle(&self, stats: &mut QueueStats) {
        stats.arrivals += self.idle_pkts;
        stats.arrival_bytes += self.idle_bytes;
        stats.departures += self.idle_pkts;
        stats.departure_bytes += self.idle_bytes;
        stats.busy_ns += self.idle_busy;
    }

    /// Restarts the statistics at `t` (end of warm-up): `stats` keeps only what happens
    /// after `t`. The caller restores the flows' drops after `t` with
    /// [`LazyFifo::flow_drops_after`] once it has reset the flows.
    pub fn reset(&mut self, t: Time, stats: &mut QueueStats) {
        self.fold(stats);
        let (at_t, qp, qb) = self.view(t, stats);
        stats.subtract(&at_t);
        stats.set_since(t);
        self.max_pkts = qp.min(u32::MAX as usize) as u32;
        self.max_bytes = qb;
        self.peak_from = t + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::FlowStats;

    /// A 1000-byte-per-µs link (8 Gb/s): packets of `size` bytes take `size` ns.
    fn offer(
        q: &mut LazyFifo,
        busy: &mut Time,
        stats: &mut QueueStats,
        flows: &mut FlowTable,
        now: Time,
        at: Time,
        size: u32,
    ) -> Option<Time> {
        let o = Offer { keep: now, at, size, flow: 0, uid: 0, forward: true, dscp: 0 };
        let start = q.offer(&o, *busy, stats, flows, 0)?;
        q.transmitted(&o, start, size as Time, false, stats, flows, 0);
        *busy = start + size as Time;
        Some(start)
    }

    #[test]
    fn burst_queues_drops_and_views_as_of_any_instant() {
        let mut q = LazyFifo::new(Limit::Packets(2));
        let (mut busy, mut st, mut flows) = (0, QueueStats::default(), FlowTable::new(vec![FlowStats::default()]));
        // Four 100-ns packets offered at t = 0 (decided at now = 0): one is sent at once,
        // two wait, the fourth overflows.
        let starts: Vec<_> = (0..4).map(|_| offer(&mut q, &mut busy, &mut st, &mut flows, 0, 0, 100)).collect();
        assert_eq!(starts, vec![Some(0), Some(100), Some(200), None]);
        // Counted whole at once...
        assert_eq!((st.arrivals, st.departures, st.drops.pkts(DropReason::Overflow)), (4, 3, 1));
        // ...but seen as of each instant.
        let (v, qp, _) = q.view(0, &st);
        assert_eq!((v.arrivals, v.departures, qp), (4, 1, 2));
        let (v, qp, _) = q.view(150, &st);
        assert_eq!((v.departures, qp, v.busy_ns), (2, 1, 200));
        let (v, qp, _) = q.view(1_000, &st);
        assert_eq!((v.departures, qp, v.max_pkts), (3, 0, 2));
        // Area: the packets waited 100 and 200 ns.
        let (mut v, _, _) = q.view(1_000, &st);
        assert_eq!(v.mean_len(1_000, 0, 0).0, 300.0 / 1_000.0);
        assert_eq!(flows[0].drop_sites.len(), 1);
    }

    #[test]
    fn future_offers_are_not_seen_before_they_happen_and_reset_keeps_them() {
        let mut q = LazyFifo::new(Limit::Packets(10));
        let (mut busy, mut st, mut flows) = (0, QueueStats::default(), FlowTable::new(vec![FlowStats::default()]));
        // Decided at now = 0 for arrivals at 1 000 and 1 050 (cut-through).
        offer(&mut q, &mut busy, &mut st, &mut flows, 0, 1_000, 100);
        offer(&mut q, &mut busy, &mut st, &mut flows, 0, 1_050, 100);
        let (v, qp, _) = q.view(500, &st);
        assert_eq!((v.arrivals, v.departures, qp), (0, 0, 0));
        let (v, qp, _) = q.view(1_060, &st);
        assert_eq!((v.arrivals, v.departures, qp), (2, 1, 1));
        // Warm-up ends at 1 060: only what happens after it stays.
        q.reset(1_060, &mut st);
        assert_eq!((st.arrivals, st.departures, st.since), (0, 1, 1_060));
        let (v, _, _) = q.view(2_000, &st);
        assert_eq!((v.arrivals, v.departures, v.max_pkts), (0, 1, 1));
    }

    /// The fused path for a free transmitter counts exactly as offer + transmitted: sent,
    /// lost and refused (too large for a byte limit) packets, decided at and before `at`.
    #[test]
    fn offers_to_a_free_transmitter_count_as_the_general_path() {
        let (mut general, mut fused) = (LazyFifo::new(Limit::Bytes(1_000)), LazyFifo::new(Limit::Bytes(1_000)));
        let (mut sg, mut sf) = (QueueStats::default(), QueueStats::default());
        let (mut fg, mut ff) = (FlowTable::new(vec![FlowStats::default()]), FlowTable::new(vec![FlowStats::default()]));
        // (decided at, offered at, size, lost): each offered once the previous one is sent.
        let offers = [(0, 0, 100, false), (50, 300, 200, true), (300, 700, 1_500, false), (700, 900, 400, false)];
        for &(now, at, size, lost) in &offers {
            let o = Offer { keep: now, at, size, flow: 0, uid: 0, forward: true, dscp: 0 };
            if let Some(start) = general.offer(&o, 0, &mut sg, &mut fg, 0) {
                general.transmitted(&o, start, size as Time, lost, &mut sg, &mut fg, 0);
            }
            fused.offer_idle(&o, || (size as Time, lost), &mut sf, &mut ff, 0);
        }
        for t in [0, 250, 400, 800, 1_000, 2_000] {
            let (vg, qg, bg) = general.view(t, &sg);
            let (vf, qf, bf) = fused.view(t, &sf);
            assert_eq!((qg, bg), (qf, bf), "queue at {t}");
            assert_eq!(format!("{vg:?}"), format!("{vf:?}"), "statistics at {t}");
        }
        assert_eq!((sf.arrivals, sf.departures, sf.drops.pkts(DropReason::Overflow), sf.drops.pkts(DropReason::Loss)), (4, 3, 1, 1));
        assert_eq!(format!("{fg:?}"), format!("{ff:?}"));
    }

    /// The path of the commonest crossing counts exactly as the general one: decided at
    /// and ahead of the offer, seen as of instants before and after a warm-up's restart.
    #[test]
    fn passing_an_idle_link_counts_as_the_general_path() {
        let (mut general, mut fast) = (LazyFifo::new(Limit::Packets(5)), LazyFifo::new(Limit::Packets(5)));
        let (mut sg, mut sf) = (QueueStats::default(), QueueStats::default());
        let mut fg = FlowTable::new(vec![FlowStats::default()]);
        let same = |general: &LazyFifo, fast: &LazyFifo, sg: &QueueStats, sf: &QueueStats, times: &[Time]| {
            for &t in times {
                let (vg, qg, bg) = general.view(t, sg);
                let (vf, qf, bf) = fast.view(t, sf);
                assert_eq!((qg, bg), (qf, bf), "queue at {t}");
                assert_eq!(format!("{vg:?}"), format!("{vf:?}"), "statistics at {t}");
            }
            assert_eq!(general.ledger.len(), fast.ledger.len());
        };
        // (decided at, offered at, size): sent at once, or cut through to a later instant.
        let offers = [(0, 0, 100), (50, 300, 200), (300, 700, 1_500), (1_000, 2_500, 400), (2_600, 3_000, 40)];
        for (k, &(now, at, size)) in offers.iter().enumerate() {
            if k == 3 {
                // Warm-up ends at 1 000, with the crossing at 700 still ahead when decided.
                same(&general, &fast, &sg, &sf, &[0, 250, 400, 800, 1_000]);
                for (q, st) in [(&mut general, &mut sg), (&mut fast, &mut sf)] {
                    q.prune(1_000);
                    q.reset(1_000, st);
                }
            }
            assert!(fast.fits_alone(size));
            let o = Offer { keep: now, at, size, flow: 0, uid: 0, forward: true, dscp: 0 };
            general.offer_idle(&o, || (size as Time / 2, false), &mut sg, &mut fg, 0);
            fast.pass_idle(now, at, size, size as Time / 2, || (0, true));
        }
        same(&general, &fast, &sg, &sf, &[1_000, 2_000, 2_800, 5_000]);
        // Its counts stay out of the link's statistics until folded in, views unchanged.
        assert_eq!((sf.arrivals, sf.departures), (0, 0));
        fast.fold(&mut sf);
        assert_eq!((sf.arrivals, sf.departures, fast.idle_pkts), (2, 2, 0));
        same(&general, &fast, &sg, &sf, &[1_000, 2_000, 2_800, 5_000]);
        assert!(!LazyFifo::new(Limit::Bytes(100)).fits_alone(101) && !LazyFifo::new(Limit::Packets(0)).fits_alone(1));
        assert!(LazyFifo::new(Limit::Bytes(100)).fits_alone(100) && LazyFifo::new(Limit::Packets(1)).fits_alone(u32::MAX));
        assert!(LazyFifo::new(Limit::Bytes(u64::MAX)).fits_alone(u32::MAX));
    }

    /// What the commonest crossing reads and writes ([`LazyFifo::pass_idle`], after
    /// `prune` and `fits_alone`) sits in two cache lines, the whole of it; the option that
    /// holds it in a link direction is no larger (its tag in the limit's).
    #[test]
    fn an_idle_crossing_touches_two_lines() {
        use std::mem::{offset_of, size_of};
        assert_eq!(size_of::<LazyFifo>(), 128);
        assert_eq!(size_of::<Option<LazyFifo>>(), 128);
        assert_eq!(std::mem::align_of::<LazyFifo>(), 64);
        for (name, off, len) in [
            ("ledger", offset_of!(LazyFifo, ledger), size_of::<Ring<Crossing>>()),
            ("alone_max", offset_of!(LazyFifo, alone_max), 4),
            ("max_pkts", offset_of!(LazyFifo, max_pkts), 4),
            ("peak_from", offset_of!(LazyFifo, peak_from), 8),
            ("max_bytes", offset_of!(LazyFifo, max_bytes), 8),
            ("idle_busy", offset_of!(LazyFifo, idle_busy), 8),
            ("wait_bytes", offset_of!(LazyFifo, wait_bytes), 8),
        ] {
            assert!(off + len <= 64, "{name} at {off}");
        }
        for (name, off) in [
            ("waits", offset_of!(LazyFifo, waits)),
            ("idle_pkts", offset_of!(LazyFifo, idle_pkts)),
            ("idle_bytes", offset_of!(LazyFifo, idle_bytes)),
            ("limit", offset_of!(LazyFifo, limit)),
        ] {
            assert!((64..128).contains(&off), "{name} at {off}");
        }
    }

    #[test]
    fn crossings_already_past_leave_no_ledger_entry() {
        let mut q = LazyFifo::new(Limit::Packets(10));
        let (mut busy, mut st, mut flows) = (0, QueueStats::default(), FlowTable::new(vec![FlowStats::default()]));
        for t in [0, 1_000, 2_000] {
            offer(&mut q, &mut busy, &mut st, &mut flows, t, t, 100);
        }
        assert!(q.ledger.is_empty());
        let (v, qp, _) = q.view(2_000, &st);
        assert_eq!((v.arrivals, v.departures, qp, v.max_pkts), (3, 3, 0, 1));
        // A packet that must wait is kept until its start has passed.
        offer(&mut q, &mut busy, &mut st, &mut flows, 2_050, 2_050, 100);
        assert_eq!(q.ledger.len(), 1);
        q.prune(2_100);
        assert!(q.ledger.is_empty());
    }

    /// With no reader before a far horizon, no crossing enters the ledger, waiting ones
    /// included, and every decision and every count is the same as with the ledger kept
    /// for readers at any instant: the queue walk needs only the waiting crossings.
    #[test]
    fn a_far_read_horizon_leaves_the_ledger_empty_and_decides_the_same() {
        let (mut near, mut far) = (LazyFifo::new(Limit::Packets(3)), LazyFifo::new(Limit::Packets(3)));
        let (mut sn, mut sf) = (QueueStats::default(), QueueStats::default());
        let (mut fnear, mut ffar) = (FlowTable::new(vec![FlowStats::default()]), FlowTable::new(vec![FlowStats::default()]));
        let (mut bn, mut bf) = (0, 0);
        let horizon = 1_000_000;
        // Bursts that queue, overflow, drain and find the transmitter free again.
        let arrivals = [0, 0, 10, 20, 30, 40, 500, 510, 2_000, 2_000, 2_050, 2_060, 2_070, 9_000];
        for &at in &arrivals {
            let a = offer(&mut near, &mut bn, &mut sn, &mut fnear, at, at, 100);
            let o = Offer { keep: horizon, at, size: 100, flow: 0, uid: 0, forward: true, dscp: 0 };
            let b = far.offer(&o, bf, &mut sf, &mut ffar, 0).inspect(|&start| {
                far.transmitted(&o, start, 100, false, &mut sf, &mut ffar, 0);
                bf = start + 100;
            });
            assert_eq!(a, b, "offer at {at}");
            assert!(far.ledger.is_empty());
        }
        assert!(!near.ledger.is_empty());
        near.prune(horizon);
        assert!(near.ledger.is_empty());
        let (vn, qn, _) = near.view(horizon, &sn);
        let (vf, qf, _) = far.view(horizon, &sf);
        assert_eq!((qn, format!("{vn:?}")), (qf, format!("{vf:?}")));
        assert_eq!((vf.arrivals, vf.drops.pkts(DropReason::Overflow), vf.max_pkts), (14, 3, 3));
        assert_eq!(format!("{fnear:?}"), format!("{ffar:?}"));
    }
}
