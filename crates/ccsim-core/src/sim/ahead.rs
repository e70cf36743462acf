//! Hosts ahead of the clock (see docs/architecture.md): which packets a host's agent may
//! take when their arrival is decided rather than at an event, and the hand-over itself.

use super::{Simulation, StopReason};
use crate::net::{EarlyPacket, FarAgent};
use crate::prefetch::Level;
use crate::scenario::TraceTarget;
use crate::units::Time;

/// How many packets ahead of the one it hands over each stage of the loop's hints looks
/// (each stage reads only lines an earlier one asked for): the packet
/// ([`crate::packet::PacketPool::prefetch`]), its flow's slot and statistics, the host's
/// entries, then the agent and the host's way out.
struct Stages {
    packet: usize,
    slot: usize,
    host: usize,
    agent: usize,
}

/// The distances below [`Level::Timers`] (fewer than 2 000 flows, whose state the caches
/// mostly hold; the packets' alone at [`Level::Packets`]).
const NEAR: Stages = Stages { packet: 6, slot: 3, host: 2, agent: 1 };

/// The distances from [`Level::Timers`] on: about twice [`NEAR`]'s. With one packet's
/// lead a hand-over at 10 000 flows still waited on lines its hint had asked for (`perf`,
/// which samples where the processor waits: a fifth of the sender's wake-up bound's
/// samples on a line hinted one packet earlier); with these (and the routers' longer
/// distances, `net::router`), 10 000 flows ran 2–6 % faster in eight of ten paired calls
/// of the variants tried, none in the two made when the machine was fast (twenty-ninth
/// session, docs/benchmarks.md). Not below, where the hinted lines mostly stay in the caches:
/// 1 000 flows showed no gain, and S3 (200 flows, the packets' hint alone) ran +1.7 %
/// with the longer packet distance. (Even so S3 and 1 000 flows, whose hints this leaves
/// as they were, ran 1–2 % slower: the loop's code, not its hints.)
const FAR: Stages = Stages { packet: 12, slot: 8, host: 5, agent: 3 };

/// The most lines of an agent a timer's hint asks for: all of a TCP sender's (576 bytes,
/// ten lines where it straddles one).
const TIMER_AGENT_LINES: usize = 10;

/// The lines of an agent a hand-over's hint asks for: a TCP sender's first six. (All ten
/// would also cover the fields its wake-up bound reads at every hand-over, which lie
/// beyond them in the compiler's layout: about two misses per packet fewer in a 1 MB model
/// at 10 000 flows, but −1.0 % [−3.7, +3.0] in time, 31 pairs; twenty-eighth session.)
const AGENT_LINES: usize = 6;

/// How many of a queue trace's intervals past its next sample hosts may run ahead: each
/// sample then walks about this many intervals' crossings of a link (fortieth session:
/// 80 s of one 100 Mb/s flow sampled every 10 ms in 0.12 s, its hosts taking as many
/// packets ahead as without the bound; `examples/tcp_dumbbell.toml` unchanged, events
/// included).
const QUEUE_TRACE_LEAD: u64 = 8;

/// How far past the clock hosts may run ahead in a run that may stop at any event
/// (`max_events`): its read horizon is the clock, so every crossing decided ahead stays in
/// its link's ledger until the clock passes it. Without this bound, hosts that ran ahead
/// to the end of the run kept the whole run's crossings (60 s of one 1 Gb/s flow: 630 MB
/// instead of 150 MB, growing with the run; forty-first session). One second covers any
/// path's delay; the bound follows the clock every [`LEAD_EVERY`] events
/// ([`Simulation::checkpoint`]), so hosts still take most packets ahead.
const STOP_LEAD: Time = 1_000_000_000;

/// How often (executed events, packets taken ahead included) a run polls its
/// `should_stop` (Ctrl-C), and a run with `max_events` moves its hosts' lead on.
pub(super) const POLL_EVERY: u64 = 1 << 14;
const LEAD_EVERY: u64 = 1 << 10;

impl Simulation {
    /// Recomputes [`Simulation::horizon`] and the network's read horizon (after a
    /// reader ran): the next instants at which flow state and queue statistics are read.
    pub(super) fn set_horizon(&mut self) {
        let mut h = self.duration;
        if self.warmup_pending {
            h = h.min(self.warmup);
        }
        let mut q = h;
        for t in &self.traces {
            match t.target {
                TraceTarget::Flow(_) => h = h.min(t.next),
                // A queue trace bounds the hosts' lead too, to its next sample and
                // [`QUEUE_TRACE_LEAD`] intervals more: a crossing decided ahead of the
                // clock that ends after the next sample stays in its link's ledger, which
                // each sample walks, so hosts running ahead to the end of the run (one
                // flow on its links) kept the whole run's crossings there, a walk of them
                // all per sample (quadratic: 80 s of one 100 Mb/s flow sampled every 10 ms
                // took 23 s instead of 0.1 s, and memory grew with the run). Bounded at the
                // next sample itself, hosts whose packets arrive more than an interval after
                // they are decided (a path's delay above the interval) took none ahead.
                TraceTarget::Queue(_) => {
                    q = q.min(t.next);
                    h = h.min(t.next.saturating_add(t.interval.saturating_mul(QUEUE_TRACE_LEAD)));
                }
                // Elements sit at nodes that never take packets ahead of the clock, and
                // their links run event-driven.
                TraceTarget::Element(_) => {}
            }
        }
        if self.max_events.is_some() {
            h = h.min(self.core.sched.now().saturating_add(STOP_LEAD));
        }
        self.horizon = h;
        // A run that may stop at any event (`max_events`) has no later reader to promise:
        // its queues are read as of the clock, where it stops.
        self.core.net.set_read_horizon(if self.max_events.is_some() { 0 } else { q });
    }

    /// Whether flow end `(fi, end)`, a host's one agent, may take a packet arriving at `t`
    /// now, ahead of the clock (see [`Agent::next_wakeup`]). The end comes from the link
    /// the packet arrives on (`LinkDir::far_agent`), not from a table indexed by node:
    /// one load fewer on the chain every hand-over waits on (S1 about −1 %, 10 000 flows
    /// about −4 %; thirtieth session). A receiver without timers (`takes_all`) takes every
    /// packet, so its slot is not read here at all (S1 about −1 %, S3 and 10 000 flows
    /// about −2 %); debug builds still check its promise at every hand-over.
    #[inline]
    pub(super) fn ahead_ok(&self, a: FarAgent, t: Time) -> bool {
        if t >= self.horizon {
            return false;
        }
        if a.takes_all {
            #[cfg(debug_assertions)]
            {
                let r = &self.flows[a.flow as usize].receiver;
                assert!(a.end == 1 && r.timerless, "flow {}: end {} is not a receiver without timers", a.flow, a.end);
                assert!(r.agent.next_wakeup() == Some(Time::MAX), "flow {}: a timerless receiver's timer", a.flow);
            }
            return true;
        }
        let f = &self.flows[a.flow as usize];
        match a.end {
            0 => t < f.stop.unwrap_or(Time::MAX) && f.sender.next_wakeup().is_some_and(|w| t < w),
            // A stop reads the receiver's goodput (`goodput_at_stop`): nothing after it is
            // taken early.
            _ => t < f.stop.unwrap_or(Time::MAX) && f.receiver.agent.next_wakeup().is_some_and(|w| t < w),
        }
    }

    /// What [`Simulation::check_stop`] does every so many events: stops at `max_events`;
    /// polls `should_stop` every [`POLL_EVERY`] events (from the first count at or past
    /// each multiple, should one be skipped); in a run with `max_events`, moves the hosts'
    /// lead on with the clock every [`LEAD_EVERY`] events.
    #[cold]
    #[inline(never)]
    pub(super) fn checkpoint(&mut self, n: u64, max_events: u64, should_stop: &mut dyn FnMut() -> bool) -> Option<StopReason> {
        if n >= max_events {
            return Some(StopReason::MaxEvents);
        }
        let step = if self.max_events.is_some() {
            self.set_horizon();
            LEAD_EVERY
        } else {
            POLL_EVERY
        };
        self.check_at = ((n | (step - 1)) + 1).min(max_events);
        if n >= self.next_poll {
            self.next_poll = (n | (POLL_EVERY - 1)) + 1;
            if should_stop() {
                return Some(StopReason::Interrupted);
            }
        }
        None
    }

    /// Hands the packets the last event decided for hosts that take them ahead of the
    /// clock to their agents, in the order decided (each host's in its arrival order),
    /// or puts them back on the event path when the agent cannot take them yet. A host
    /// whose line still holds packets on the event path takes those first, or none.
    ///
    /// Each packet handed over counts as an executed event: `max_events` and the stop
    /// check apply to them too (a chain of hosts fed only by event-free links can run a
    /// whole simulation from one event).
    pub(super) fn take_early(&mut self, max_events: u64, should_stop: &mut dyn FnMut() -> bool) -> Option<StopReason> {
        // Packets decided while these are handed over join `net.early` behind them: taking
        // the list a batch at a time (each batch what the previous one decided) keeps the
        // order, and moves nothing however long a chain of hand-overs runs.
        let mut batch = std::mem::take(&mut self.early_batch);
        let mut stop = None;
        while stop.is_none() && !self.core.net.early.is_empty() {
            batch.clear();
            std::mem::swap(&mut batch, &mut self.core.net.early);
            let d = if self.prefetch >= Level::Timers { &FAR } else { &NEAR };
            for i in 0..batch.len() {
                if self.prefetch != Level::None {
                    self.prefetch_ahead(&batch, i, d);
                }
                if let Some(r) = self.take_one(batch[i], max_events, should_stop) {
                    // Still to hand over: the rest of this batch, then what it decided.
                    let mut rest = batch.split_off(i + 1);
                    rest.append(&mut self.core.net.early);
                    self.core.net.early = rest;
                    stop = Some(r);
                    break;
                }
            }
        }
        batch.clear();
        self.early_batch = batch;
        stop
    }

    /// Hints for the packets `batch[i]` is followed by ([`Level`]), at distances `d`.
    #[inline(always)]
    fn prefetch_ahead(&self, batch: &[crate::net::EarlyPacket], i: usize, d: &Stages) {
        if let Some(&(_, _, _, ahead, _)) = batch.get(i + d.packet) {
            self.core.pool.prefetch(ahead);
        }
        if self.prefetch >= Level::Flows {
            if let Some(&(_, _, _, ahead, _)) = batch.get(i + d.slot) {
                self.prefetch_flow(ahead);
            }
            if let Some(&(_, _, ld, _, _)) = batch.get(i + d.host) {
                // The host's way-out entry, read where its link (in the cache: just
                // crossed) names it: a load that missed at 10 000 flows. (Its agent's
                // place is on the link itself, `far_agent`.)
                let net = &self.core.net;
                if let Some(l) = net.links.get(ld as usize) {
                    net.prefetch_route_of(l.to);
                }
            }
            if let Some(&(_, _, ld, ahead, _)) = batch.get(i + d.agent) {
                self.prefetch_agent(ahead);
                // The host's way out, for what its agent sends in reply.
                let net = &self.core.net;
                if let Some(l) = net.links.get(ld as usize) {
                    net.prefetch_out_of(l.to);
                }
            }
        }
    }

    /// Hints for a packet to be handed over a few packets from now (its packet already
    /// asked for): its flow's slot and statistics. Not the link it arrives on: the event
    /// that decided the hand-over has just crossed it (a hint for its two lines found them
    /// in a 1 MB cache model every time at 10 000 flows; twenty-eighth session).
    #[inline(always)]
    fn prefetch_flow(&self, id: crate::packet::PktId) {
        use crate::prefetch::lines;
        let flow = self.core.pool.get(id).flow as usize;
        if let (Some(slot), Some(st)) = (self.flows.get(flow), self.core.flows.get(flow)) {
            lines(slot, 3);
            lines(st, 3);
        }
    }

    /// Hints for the next packet to be handed over (its flow's slot already asked for):
    /// the agent that takes it.
    #[inline(always)]
    fn prefetch_agent(&self, id: crate::packet::PktId) {
        let p = self.core.pool.get(id);
        if let Some(slot) = self.flows.get(p.flow as usize) {
            let agent = if p.src != slot.src { &slot.sender } else { &slot.receiver.agent };
            crate::prefetch::lines(agent.as_ref(), AGENT_LINES);
        }
    }

    /// Hints for the timer event that runs next: its flow's slot ([`Level::Flows`]); the
    /// agent it calls, and what that agent's reply (a timeout's retransmission) touches:
    /// the flow's statistics and the end's way out ([`Level::Timers`]). At thousands of
    /// flows a timer is often the first event of its flow for a round trip or more, and
    /// all of these are out of the cache.
    #[inline(always)]
    pub(super) fn prefetch_timer(&self, flow: u32, end: u16) {
        use crate::prefetch::lines;
        let Some(slot) = self.flows.get(flow as usize) else { return };
        lines(slot, 2);
        if self.prefetch < Level::Timers {
            return;
        }
        lines(slot.agent(end), TIMER_AGENT_LINES);
        if let Some(st) = self.core.flows.get(flow as usize) {
            lines(st, 3);
        }
        self.core.net.prefetch_out_of(slot.node(end));
    }

    /// One packet of [`Network::early`](crate::net::Network::early): handed over (after
    /// the packets still on its line), or put back on the event path.
    #[inline]
    fn take_one(
        &mut self,
        (t, seq, ld, id, start): EarlyPacket,
        max_events: u64,
        should_stop: &mut dyn FnMut() -> bool,
    ) -> Option<StopReason> {
        let l = &self.core.net.links[ld as usize];
        let (node, agent) = (l.to, l.far_agent);
        debug_assert!(agent != FarAgent::NONE, "link {ld}: a hand-over without the far node's agent");
        let mut ok = self.ahead_ok(agent, t);
        if ok && self.core.net.in_flight_front(ld).is_some() {
            // Every packet on the line arrives by `t`: hand them over first. (The first
            // always can: the conditions only bound the arrival time.)
            let mut first = true;
            while let Some((ti, _, _, _)) = self.core.net.in_flight_front(ld) {
                if !self.ahead_ok(agent, ti) {
                    if !first {
                        self.core.net.rearm_in_flight(ld, &mut self.core.sched);
                    }
                    ok = false;
                    break;
                }
                let (_, _, pi, _) = self.core.net.take_in_flight(ld, first).expect("peeked");
                first = false;
                if let Some(r) = self.hand_over(ti, node, pi, max_events, should_stop) {
                    // The rest of the line and the packet itself go back on the event
                    // path, so that a run resumed after the stop still delivers them.
                    self.core.net.rearm_in_flight(ld, &mut self.core.sched);
                    self.core.net.arrive_later(ld, t, seq, id, start, &mut self.core.sched);
                    return Some(r);
                }
            }
            ok = ok && self.ahead_ok(agent, t);
        }
        if !ok {
            self.core.net.arrive_later(ld, t, seq, id, start, &mut self.core.sched);
            None
        } else {
            self.hand_over(t, node, id, max_events, should_stop)
        }
    }

    /// Hands packet `id` to its host's agent at `t`, ahead of the clock; it counts as an
    /// executed event. Returns why to stop, if the run must stop now.
    #[inline]
    pub(super) fn hand_over(
        &mut self,
        t: Time,
        node: u32,
        id: crate::packet::PktId,
        max_events: u64,
        should_stop: &mut dyn FnMut() -> bool,
    ) -> Option<StopReason> {
        self.deliver(t, node, id);
        self.taken_ahead += 1;
        self.core.sched.note_executed();
        self.check_stop(max_events, should_stop)
    }
}
