//! Batch routers (event `NodeArrive`): a router whose links are all event-free and where
//! no flow ends takes the packets arriving within one look-ahead window at one event, and
//! holds the packets on their way to it in one of two ways, chosen per router as the run
//! goes ([`InboxPolicy`]).

use super::inbox::Inbox;
use super::link::LinkDir;
use super::{Network, NO_ROUTE};
use crate::engine::{Event, Scheduler};
use crate::measure::FlowTable;
use crate::packet::{PacketPool, PktId};
use crate::prefetch::Level;
use crate::units::Time;

/// A packet on its way to a batch router, as the router orders them: (arrival time, start
/// of serialization on its last link, event sequence number, packet, that link).
pub(super) type Inbound = (Time, Time, u64, PktId, u32);

/// A packet a router takes (from a line or the inbox), in its order: an [`Inbound`]
/// without its link.
pub(super) type Scanned = (Time, Time, u64, PktId);

/// How batch routers hold the packets on their way to them. Either way gives the same
/// run, bit for bit; they differ in speed.
///
/// - The *scan*: the packets stay on their incoming links' propagation lines; the router
///   keeps a list of the lines that hold packets, scans it at each event and sorts what
///   arrives. Cheap while the router's lines are few or busy (each visited line yields
///   packets and stays in the cache).
/// - The *inbox*: every packet on its way in one calendar of small buckets
///   (`net/inbox.rs`), so taking a packet touches no link. Wins when lines are many (a
///   visited line is then a cache miss), however busy. With the calendar of whole windows
///   (ninth session; inbox against scan, alternating, medians of 7–15, one call each):
///   S4's routers (1 000 links at 100 Gb/s, about a packet per line per window) −13.5 %
///   wall time (L2 misses −25 %, cachegrind), 300 such links +2 %, 100 +10 %, S3's 200
///   links at 1 Gb/s +1 %, S1's 10 links +14 %. With small buckets (tenth session) the
///   inbox wins from about 128 links ([`INBOX_START_LINES`]). (With the heap the inbox was
///   before, S3's dumbbell at 1 Gb/s gained 6 / 15 / 42 % at 700 / 1 000 / 10 000 links
///   and S4 lost 14.5 %.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InboxPolicy {
    /// Chosen per router (the default): a router with at least [`INBOX_START_LINES`]
    /// incoming links keeps the inbox; one with fewer starts with the scan and every
    /// [`REVIEW_WINDOWS`] events takes the inbox if it has at least [`INBOX_MIN_LINES`]
    /// incoming links and at least [`INBOX_LINES_PER_PACKET`] of them per packet taken
    /// per event, and goes back to the scan below [`SCAN_LINES_PER_PACKET`] (hysteresis).
    #[default]
    Adaptive,
    /// The inbox for routers with at least this many incoming links, else the scan, for
    /// the whole run (tests and benchmarks).
    FromLines(usize),
    /// Starts with the scan and switches at every review, whatever the traffic: for tests
    /// (moving the packets on their way mid-run changes nothing).
    Alternate,
}

/// How many packets ahead of the one it forwards a router's batch asks for packets to be
/// brought into the cache ([`PacketPool::prefetch`](crate::packet::PacketPool::prefetch)),
/// then for the last hop's routing entry and for the last hop ([`Level::Flows`]), below
/// [`Level::Timers`].
const NEAR: (usize, usize, usize) = (6, 4, 3);

/// [`NEAR`] from [`Level::Timers`] on (2 000 flows or more): further ahead, as the
/// hand-overs' hints (`sim::ahead`; twenty-ninth session, (10, 6, 5): 10 000 flows −4.0 %
/// [−8.1, +0.6] over the hand-overs' longer distances alone, 31 pairs). The routing
/// entry asked for three packets before the last hop it names instead of one (thirty-first
/// session: `perf` put a fifth of the loop function's samples at 10 000 flows on the last
/// hop's hint waiting for that entry; (14, 9, 5) against (10, 6, 5), plain, pinned,
/// paired: 10 000 flows −1.4 % to −2.2 % in four calls, 100 000 flows −5.1 % [−12.9,
/// +0.2], 3 000 flows +1.1 % [−4.6, +3.4]; docs/benchmarks.md).
const FAR: (usize, usize, usize) = (14, 9, 5);

/// See [`InboxPolicy::Adaptive`]: events between reviews of a router's choice.
pub const REVIEW_WINDOWS: u32 = 256;
/// See [`InboxPolicy::Adaptive`]. Measured with the inbox's earlier heap on S3's dumbbell
/// at 1 Gb/s (about 83 packets per 1 ms window): 300 links (3.6 per packet) +5 % for the
/// inbox, 500 (6) −1 %, 700 (8.4) −6 %, 1 000 (12) −15 %; S4 (1.2 per packet) +14.5 %.
pub const INBOX_LINES_PER_PACKET: u64 = 6;
/// See [`InboxPolicy::Adaptive`].
pub const SCAN_LINES_PER_PACKET: u64 = 4;
/// See [`InboxPolicy::Adaptive`].
pub const INBOX_MIN_LINES: usize = 64;
/// See [`InboxPolicy::Adaptive`]: routers with this many incoming links always use the
/// inbox. Measured with the calendar's small buckets (tenth session; inbox against scan,
/// alternating, medians of 7–15): on S3's dumbbell at 1 Gb/s 30 links +1.4 %, 64 and
/// 100 −0.7 %, 128 −3.2 %, 200 −5.5 % (S3 itself −5.9 %); at S4's rates 128 links −3.9 %,
/// 300 −9.3 %; 200 links at 100 Mb/s (8 packets per window) +1.5 %; S1's 10 links +17 %.
pub const INBOX_START_LINES: usize = 128;

/// One batch router.
pub(super) struct BatchRouter {
    pub(super) node: u32,
    /// Incoming link directions.
    pub(super) ins: Vec<u32>,
    /// The one direction every packet it takes leaves by (found at set-up), or
    /// [`NO_ROUTE`]: the route is looked up per packet.
    pub(super) out: u32,
    /// The look-ahead: the smallest incoming delay.
    pub(super) lookahead: Time,
    /// Time of the pending `NodeArrive` event (`Time::MAX`: none).
    pub(super) next: Time,
    /// Holding packets in `inbox` rather than on the lines.
    pub(super) use_inbox: bool,
    /// With the scan: the incoming links whose lines hold packets, each with the arrival
    /// time of its line's head (so that a line with nothing due is passed over without
    /// touching the link).
    active: Vec<(Time, u32)>,
    /// With the inbox: every packet on its way.
    inbox: Inbox,
    /// Scratch for moving the packets on their way between the lines and the inbox (kept
    /// for its capacity).
    got: Vec<Inbound>,
    /// Events and packets taken since the last review (adaptive policy).
    windows: u32,
    taken: u64,
    /// Switches between the scan and the inbox so far (for tests and benchmarks).
    pub(super) switches: u32,
}

impl BatchRouter {
    pub(super) fn new(node: u32, ins: Vec<u32>, lookahead: Time, policy: InboxPolicy) -> Self {
        let use_inbox = match policy {
            InboxPolicy::FromLines(n) => ins.len() >= n,
            InboxPolicy::Adaptive => ins.len() >= INBOX_START_LINES,
            InboxPolicy::Alternate => false,
        };
        BatchRouter {
            node,
            ins,
            out: NO_ROUTE,
            lookahead,
            next: Time::MAX,
            use_inbox,
            active: Vec::new(),
            inbox: Inbox::new(lookahead),
            got: Vec::new(),
            windows: 0,
            taken: 0,
            switches: 0,
        }
    }

    /// A packet on its way over `link` (`p.4`, one of this router's incoming links).
    #[inline(always)]
    pub(super) fn push(&mut self, link: &mut LinkDir, p: Inbound) {
        if self.use_inbox {
            self.inbox.push(p);
        } else {
            let (arr, start, seq, id, ld) = p;
            if link.in_flight.is_empty() {
                self.active.push((arr, ld));
            }
            link.in_flight.push_back((arr, seq, id, start));
        }
    }

    /// Takes the packets arriving before `horizon` into `batch` in the order events would
    /// run them (arrival time; ties by when they started serialization on their last link,
    /// then in scheduling order); returns the earliest arrival left (`Time::MAX`: none).
    #[inline(always)]
    fn take(&mut self, now: Time, horizon: Time, links: &mut [LinkDir], batch: &mut Vec<Scanned>) -> Time {
        if self.use_inbox {
            return self.take_inbox(horizon, batch);
        }
        let mut next = Time::MAX;
        // Lines that gave packets: one line's are in order already (no sort).
        let mut lines = 0u32;
        // Lines in the order they filled, kept (compacted in place, as `retain` would):
        // the packets come out nearly in arrival order, which the sort below finds cheap.
        // A line with nothing due (most visits in S1: 78 %) costs a comparison here; a
        // closure for `retain` was a call per line.
        let mut kept = 0;
        for i in 0..self.active.len() {
            let (head, ld) = self.active[i];
            if head >= horizon {
                next = next.min(head);
                self.active[kept] = (head, ld);
                kept += 1;
                continue;
            }
            lines += 1;
            debug_assert_eq!(links[ld as usize].in_flight.front().map(|f| f.0), Some(head));
            if let Some(h) = Self::take_line(&mut links[ld as usize], now, horizon, batch) {
                next = next.min(h);
                self.active[kept] = (h, ld);
                kept += 1;
            }
        }
        self.active.truncate(kept);
        if lines > 1 {
            batch.sort_unstable_by_key(|&(at, start, seq, _)| (at, start, seq));
        }
        debug_assert!(batch.is_sorted_by_key(|&(at, start, seq, _)| (at, start, seq)));
        next
    }

    /// The packets of line `l` arriving before `horizon` into `batch`; the arrival of the
    /// first left on the line, if any (the line's ledger pruned while it is in the cache:
    /// leaving it to the next offer was slower, docs/benchmarks.md).
    #[inline]
    fn take_line(l: &mut LinkDir, now: Time, horizon: Time, batch: &mut Vec<Scanned>) -> Option<Time> {
        let mut left = None;
        while let Some(&(at, seq, id, start)) = l.in_flight.front() {
            if at >= horizon {
                left = Some(at);
                break;
            }
            batch.push((at, start, seq, id));
            l.in_flight.pop_front();
        }
        if let Some(lz) = l.lazy.as_mut() {
            lz.prune(now);
        }
        left
    }

    /// [`BatchRouter::take`] from the inbox (out of line: the scan's code stays as it was
    /// without it, S1 +0.9 % instructions inlined).
    #[inline(never)]
    fn take_inbox(&mut self, horizon: Time, batch: &mut Vec<Scanned>) -> Time {
        // In order by construction (`Inbox::take_with`).
        self.inbox.take_with(horizon, batch, |&(at, start, seq, id, _)| (at, start, seq, id))
    }

    /// Adaptive policy: counts an event that took `n` packets and, every
    /// [`REVIEW_WINDOWS`] events, reviews the choice (moving the packets on their way).
    fn review(&mut self, n: usize, links: &mut [LinkDir], policy: InboxPolicy) {
        self.windows += 1;
        self.taken += n as u64;
        if self.windows < REVIEW_WINDOWS {
            return;
        }
        // Lines per packet taken per window, compared without division.
        let lines = self.ins.len() as u64 * self.windows as u64;
        let inbox = if policy == InboxPolicy::Alternate {
            !self.use_inbox
        } else if self.ins.len() >= INBOX_START_LINES {
            true
        } else if self.use_inbox {
            lines >= SCAN_LINES_PER_PACKET * self.taken
        } else {
            self.ins.len() >= INBOX_MIN_LINES && lines >= INBOX_LINES_PER_PACKET * self.taken
        };
        (self.windows, self.taken) = (0, 0);
        if inbox != self.use_inbox {
            self.switch(links);
        }
    }

    /// Moves every packet on its way between the lines and the inbox. Each line is a FIFO
    /// in the inbox's order, so the order in which they will be taken does not change.
    pub(super) fn switch(&mut self, links: &mut [LinkDir]) {
        if self.use_inbox {
            let mut all = std::mem::take(&mut self.got);
            all.clear();
            self.inbox.drain_all(&mut all);
            all.sort_unstable_by_key(super::inbox::key);
            for &(at, start, seq, id, ld) in &all {
                let l = &mut links[ld as usize];
                if l.in_flight.is_empty() {
                    self.active.push((at, ld));
                }
                l.in_flight.push_back((at, seq, id, start));
            }
            self.got = all;
        } else {
            for (_, ld) in self.active.drain(..) {
                for (at, seq, id, start) in links[ld as usize].in_flight.drain() {
                    self.inbox.push((at, start, seq, id, ld));
                }
            }
        }
        self.use_inbox = !self.use_inbox;
        self.switches += 1;
    }
}

impl Network {
    /// A batch router's arrivals are due (event `NodeArrive`). Every packet on an incoming
    /// link arriving before `now + lookahead` is already on its way (a packet not yet sent
    /// there arrives one link delay after it is, at the earliest), so they are all taken
    /// now, in the order events would run them, each forwarded at its own arrival time;
    /// the next event is set for the earliest arrival left. A router then costs one event
    /// per look-ahead window, not one per packet.
    #[inline]
    pub fn node_arrive(&mut self, node: u32, sched: &mut Scheduler, pool: &mut PacketPool, flows: &mut FlowTable) {
        let now = sched.now();
        let ri = self.router_of[node as usize] as usize;
        let r = &mut self.routers[ri];
        if r.next != now {
            return; // superseded by an earlier event
        }
        r.next = Time::MAX;
        let (horizon, sole_out) = (now + r.lookahead, r.out);
        let mut batch = std::mem::take(&mut self.batch_buf);
        batch.clear();
        let next = r.take(now, horizon, &mut self.links, &mut batch);
        if !matches!(self.inbox_policy, InboxPolicy::FromLines(_)) {
            r.review(batch.len(), &mut self.links, self.inbox_policy);
        }
        // Only the packet's distance is chosen before the loop; the other two inside the
        // branch that uses them: all three chosen here (as a tuple or a reference) kept
        // more values live across S3's loop, which has only the packets' hints (+0.8 % and
        // +0.4 % instructions, callgrind; this form +0.06 %).
        let packet_ahead = if self.prefetch >= Level::Timers { FAR.0 } else { NEAR.0 };
        for i in 0..batch.len() {
            if self.prefetch != Level::None {
                if let Some(&(_, _, _, ahead)) = batch.get(i + packet_ahead) {
                    pool.prefetch(ahead);
                }
                if self.prefetch >= Level::Flows {
                    let (_, entry_ahead, hop_ahead) = if self.prefetch >= Level::Timers { FAR } else { NEAR };
                    // The routing entry that names it (a load that missed at 10 000 flows
                    // when read one step later, below).
                    if let Some(&(_, _, _, ahead)) = batch.get(i + entry_ahead) {
                        self.prefetch_last_hop_entry(pool.get(ahead).dst);
                    }
                    // Where the packet will likely be cut through to.
                    if let Some(&(_, _, _, ahead)) = batch.get(i + hop_ahead) {
                        self.prefetch_last_hop(pool.get(ahead).dst);
                    }
                }
            }
            let (at, _, _, id) = batch[i];
            let out = if sole_out != NO_ROUTE { sole_out } else { self.route(node, pool.get(id).dst) };
            debug_assert_eq!(out, self.route(node, pool.get(id).dst), "router {node}");
            self.forward_lazy(out, at, id, now, sched, pool, flows);
        }
        self.batch_buf = batch;
        let r = &mut self.routers[ri];
        if next < r.next {
            r.next = next;
            sched.at(next, Event::NodeArrive { node });
        }
    }

    /// What batch routers ask to be brought into the cache ahead of use (set before the
    /// run; hints, results do not depend on them).
    pub fn set_prefetch(&mut self, level: Level) {
        self.prefetch = level;
    }

    /// How batch routers hold the packets on their way to them (default
    /// [`InboxPolicy::Adaptive`]); set before [`Network::enable_fast_paths`].
    pub fn set_inbox_policy(&mut self, p: InboxPolicy) {
        self.inbox_policy = p;
    }

    /// Per batch router: (node, incoming links, using the inbox now, switches so far).
    pub fn batch_routers(&self) -> impl Iterator<Item = (u32, usize, bool, u32)> + '_ {
        self.routers.iter().map(|r| (r.node, r.ins.len(), r.use_inbox, r.switches))
    }
}
