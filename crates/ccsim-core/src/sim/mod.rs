//! A simulation: the world built from a validated [`Spec`] (`sim/build.rs`), its event loop
//! (here), hosts ahead of the clock (`sim/ahead.rs`) and its results (`sim/results.rs`).

mod ahead;
mod build;
mod elements;
mod fct;
mod generators;
mod results;

pub use results::{Results, StopReason};

use crate::agent::{Agent, Core, Ctx, TIMER_START, TIMER_STOP};
use crate::engine::{Event, Side};
use crate::measure::{FlowStats, Series};
use crate::net::{Network, WarmupStep};
use crate::scenario::{Spec, TraceTarget};
use crate::units::{to_secs, Time};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

struct FlowSlot {
    /// Boxed, not a `String`: one word less per flow (memory per idle flow, issue #20).
    name: Box<str>,
    kind: &'static str,
    src: u32,
    /// Where the sender sends: the receiver's node, or a multicast group address.
    dst: u32,
    start: Time,
    stop: Option<Time>,
    sender: Box<dyn Agent>,
    /// The first receiver, kept inline (a unicast flow's only one), and any others.
    receiver: RecvSlot,
    others: Vec<RecvSlot>,
    /// Timer events scheduled before this sequence number belong to an earlier flow in
    /// this slot (see [`generators`]).
    seq_floor: u64,
    /// A flow created during the run by a traffic generator.
    dynf: Option<Box<generators::DynFlow>>,
}

/// One receiver of a flow.
struct RecvSlot {
    node: u32,
    agent: Box<dyn Agent>,
    /// Per-receiver statistics ([`crate::agent::NO_RX`] for a flow with one receiver).
    rx: u32,
    /// The agent's [`Agent::timerless`], asked once: a host ahead of the clock then takes
    /// its packets without asking the agent's next wake-up (a call per packet).
    timerless: bool,
}

impl RecvSlot {
    fn new(node: u32, agent: Box<dyn Agent>, rx: u32) -> Self {
        let timerless = agent.timerless();
        debug_assert!(!timerless || agent.next_wakeup() == Some(Time::MAX), "a timerless agent has no wake-up");
        RecvSlot { node, agent, rx, timerless }
    }

    /// Replaces the agent (its promise asked again).
    fn set_agent(&mut self, agent: Box<dyn Agent>) {
        *self = RecvSlot::new(self.node, agent, self.rx);
    }
}

impl FlowSlot {
    /// End `end`'s agent (0: the sender, `1 + i`: receiver `i`).
    #[inline]
    fn agent(&self, end: u16) -> &dyn Agent {
        match end {
            0 => self.sender.as_ref(),
            1 => self.receiver.agent.as_ref(),
            e => self.others[e as usize - 2].agent.as_ref(),
        }
    }

    /// The node of end `end` (0: the sender's, `1 + i`: receiver `i`'s).
    #[inline]
    fn node(&self, end: u16) -> u32 {
        match end {
            0 => self.src,
            1 => self.receiver.node,
            e => self.others[e as usize - 2].node,
        }
    }

    /// Receiver `i`.
    #[inline]
    fn recv_mut(&mut self, i: usize) -> &mut RecvSlot {
        if i == 0 {
            &mut self.receiver
        } else {
            &mut self.others[i - 1]
        }
    }

    fn receivers(&self) -> impl Iterator<Item = &RecvSlot> {
        std::iter::once(&self.receiver).chain(self.others.iter())
    }

    fn receivers_mut(&mut self) -> impl Iterator<Item = &mut RecvSlot> {
        std::iter::once(&mut self.receiver).chain(self.others.iter_mut())
    }

    fn n_receivers(&self) -> usize {
        1 + self.others.len()
    }
}

struct TraceState {
    target: TraceTarget,
    interval: Time,
    /// Classes with their own columns.
    classes: Vec<u8>,
    series: Series,
    /// Goodput counter at the previous sample (relative to the counter's restart at
    /// warm-up: negative across it).
    prev_goodput: i64,
    row: Vec<f64>,
    /// Time of the pending sample.
    next: Time,
}

/// Where a run writes files (pcap captures).
#[derive(Clone, Debug, Default)]
pub struct SimOptions {
    /// Folder for pcap files; the current directory when `None`.
    pub output_dir: Option<std::path::PathBuf>,
    /// Run every link with an event per packet per stage (the reference implementation
    /// of the same model), instead of the event-free FIFO links and cut-through (see
    /// [`crate::net`]). Slower; for validating the fast paths.
    pub per_hop_events: bool,
    /// End the run once every traffic generator is exhausted and its flows are done
    /// (stop reason `idle`), instead of at the scenario's duration.
    pub stop_when_idle: bool,
    /// Leave [`Results::params`] empty (runs made only for one figure, such as a flow's
    /// time alone on its path).
    pub skip_params: bool,
    /// How batch routers hold the packets on their way to them (default: chosen per
    /// router as the run goes). Every policy gives the same results; for tests and
    /// benchmarks.
    pub inbox_policy: crate::net::InboxPolicy,
    /// What the batch loops ask to be brought into the cache ahead of use (default: by
    /// the world's size, [`crate::prefetch::Level::for_world`]). Hints: every level gives
    /// the same results; for tests and benchmarks.
    pub prefetch: Option<crate::prefetch::Level>,
}

pub struct Simulation {
    core: Core,
    flows: Vec<FlowSlot>,
    traces: Vec<TraceState>,
    name: String,
    seed: u64,
    duration: Time,
    warmup: Time,
    max_events: Option<u64>,
    queue_kinds: Vec<&'static str>,
    /// The batch of [`Network::early`](crate::net::Network::early) being handed over (its
    /// buffer kept between events).
    early_batch: Vec<crate::net::EarlyPacket>,
    /// What the hand-overs ask to be brought into the cache ahead of use.
    prefetch: crate::prefetch::Level,
    /// Packets may be taken ahead of the clock only if they arrive before this instant:
    /// the next reader of flow state (a flow trace's sample, the end of warm-up, the end
    /// of the run).
    horizon: Time,
    /// The `WarmupEnd` event has yet to run.
    warmup_pending: bool,
    /// The executed-event count at which [`Simulation::check_stop`] next looks further, and
    /// the one from which it next polls its `should_stop`.
    check_at: u64,
    next_poll: u64,
    /// See [`Results::taken_ahead`].
    taken_ahead: u64,
    /// See [`Results::params`].
    params: String,
    /// Node elements, and per node the indices of its elements in order.
    elements: Vec<elements::ElemSlot>,
    chains: Vec<Vec<u32>>,
    /// Traffic generators; flows below `n_static` are the scenario's, the others slots
    /// of flows created during the run (free ones in `free_slots`).
    gens: Vec<generators::GenState>,
    n_static: u32,
    free_slots: Vec<u32>,
    fct: generators::FctRows,
    flows_opened: u64,
    /// Packets of a slot's earlier flow discarded at their destination.
    stale_packets: u64,
    /// End the run as soon as every generator is exhausted and no flow of theirs is alive.
    stop_when_idle: bool,
    /// The links, with their configurations (a flow's idle path is rebuilt from them).
    link_specs: Vec<crate::scenario::LinkSpec>,
    /// The scenario's warnings (see [`Spec::warnings`]), reported with the results.
    spec_warnings: Vec<String>,
    /// Goodput bytes of each stopped flow (its statistics slot: the flow's, or a receiver's)
    /// when it stopped: its `goodput_bps` is what it delivered by its stop over
    /// `[start, stop]` (what its packets in flight deliver later is in `goodput_bytes`).
    goodput_at_stop: std::collections::HashMap<u32, u64>,
}

impl Simulation {
    /// Keeps a stopping flow's goodput bytes (see `goodput_at_stop`): its own statistics
    /// slot's (`flow`) and each receiver's with statistics of its own (`n_static + rx`, a
    /// multicast flow's).
    fn note_goodput_at_stop(&mut self, flow: u32) {
        let n = self.n_static;
        let f = &self.flows[flow as usize];
        // A stop at the end of the run is no stop: what arrives at that instant counts, as
        // for a flow without one.
        if f.dynf.is_some() || self.core.sched.now() >= self.duration {
            return;
        }
        self.goodput_at_stop.insert(flow, self.core.flows[flow as usize].goodput_bytes);
        for r in f.receivers().filter(|r| r.rx != crate::agent::NO_RX) {
            self.goodput_at_stop.insert(n + r.rx, self.core.rx[r.rx as usize].goodput_bytes);
        }
    }

    /// Builds the world (pcap files, if any, go to the current directory).
    /// Panics if a pcap file cannot be created; use [`Simulation::with_options`] to get an error.
    pub fn new(spec: Spec) -> Self {
        Self::with_options(spec, &SimOptions::default()).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The network (for inspection and tests).
    pub fn network(&self) -> &Network {
        &self.core.net
    }

    /// Per-flow statistics so far.
    pub fn flow_stats(&self) -> &[FlowStats] {
        &self.core.flows
    }

    /// Heap bytes held by the flow-completion rows so far (the one part of a run's memory
    /// that grows with every flow opened: a row per flow, about 80 bytes).
    pub fn fct_rows_bytes(&self) -> usize {
        self.fct.heap_bytes()
    }

    /// Flow slots allocated (the scenario's flows and the most generated flows alive at once).
    pub fn flow_slots(&self) -> usize {
        self.flows.len()
    }

    /// Current simulated time.
    pub fn now(&self) -> Time {
        self.core.sched.now()
    }

    fn agent_call(&mut self, flow: u32, end: u16, f: impl FnOnce(&mut dyn Agent, &mut Ctx)) {
        let now = self.core.sched.now();
        self.agent_call_at(now, flow, end, f)
    }

    /// Calls end `end` of `flow` (0: the sender, `1 + i`: receiver `i`) with `ctx.now = now`
    /// (later than the clock for a packet taken ahead).
    #[inline]
    fn agent_call_at(&mut self, now: Time, flow: u32, end: u16, f: impl FnOnce(&mut dyn Agent, &mut Ctx)) {
        let slot = &mut self.flows[flow as usize];
        let (agent, side, node, peer, rx) = if end == 0 {
            (&mut slot.sender, Side::Sender, slot.src, slot.dst, crate::agent::NO_RX)
        } else {
            let src = slot.src;
            let r = slot.recv_mut(end as usize - 1);
            (&mut r.agent, Side::Receiver, r.node, src, r.rx)
        };
        let mut ctx = Ctx { now, flow, side, end, node, peer, rx, core: &mut self.core };
        f(agent.as_mut(), &mut ctx);
    }

    /// Packet `id` arrives at `node` over link direction `from`.
    #[inline]
    fn arrive(&mut self, node: u32, id: crate::packet::PktId, from: u32) {
        if self.core.elem_node[node as usize] {
            return self.arrive_at_elements(node, id, from);
        }
        self.forward_or_deliver(node, id);
    }

    /// Packet `id`, at `node` past its elements, goes on along its route, or to the node's
    /// agent if it is (one of) the packet's destination(s).
    #[inline]
    fn forward_or_deliver(&mut self, node: u32, id: crate::packet::PktId) {
        let dst = self.core.pool.get(id).dst;
        if self.core.net.delivers_at(node, dst) {
            let now = self.core.sched.now();
            return self.deliver(now, node, id);
        }
        self.core.forward(node, id);
    }

    /// Packet `id` reaches the agent at `node` at `now`.
    #[inline]
    fn deliver(&mut self, now: Time, node: u32, id: crate::packet::PktId) {
        // The checks and counters read the packet where it is; the agent gets a copy, so
        // that it may send (and the pool grow, and reuse the slot) while reading it. (Read
        // from a copy just written, the counters' first load waited on store forwarding:
        // `perf`, 29 % of this function's samples on S2.)
        let q = self.core.pool.get(id);
        let (flow, uid, src) = (q.flow, q.uid, q.src);
        let st = &mut self.core.flows[flow as usize];
        // A packet of an earlier flow in this (reused) slot is dropped.
        let stale = uid < st.uid_floor;
        // The flow's slot and statistics looked up once (a packet handed over costs about
        // a hundred instructions besides its agent's work).
        let slot = &mut self.flows[flow as usize];
        let forward = src == slot.src;
        if !stale {
            if forward {
                st.on_delivered(now, q);
            } else {
                st.reverse_delivered_pkts += 1;
            }
        }
        let p = *q;
        self.core.pool.free(id);
        if stale {
            self.stale_packets += 1;
            return;
        }
        if !forward {
            let (node, peer) = (slot.src, slot.dst);
            let mut ctx = Ctx { now, flow, side: Side::Sender, end: 0, node, peer, rx: crate::agent::NO_RX, core: &mut self.core };
            return slot.sender.on_packet(&mut ctx, &p);
        }
        if slot.others.is_empty() {
            let (r, peer) = (&mut slot.receiver, slot.src);
            let mut ctx = Ctx { now, flow, side: Side::Receiver, end: 1, node: r.node, peer, rx: r.rx, core: &mut self.core };
            r.agent.on_packet(&mut ctx, &p);
        } else {
            let (i, r) = slot.receivers().enumerate().find(|(_, r)| r.node == node).expect("a receiver of the flow");
            self.core.rx[r.rx as usize].on_delivered(now, &p);
            self.agent_call_at(now, flow, 1 + i as u16, |a, ctx| a.on_packet(ctx, &p));
        }
        if flow >= self.n_static {
            self.dyn_delivered(flow, now);
        }
    }

    fn sample(&mut self, ti: u32) {
        let now = self.core.sched.now();
        let t = &mut self.traces[ti as usize];
        t.row.clear();
        t.row.push(to_secs(now));
        match t.target {
            TraceTarget::Queue(ld) => {
                let (st, qp, qb) = self.core.net.queue_view(ld, now);
                let l = &self.core.net.links[ld as usize];
                t.row.push(qp as f64);
                t.row.push(qb as f64);
                t.row.push(st.arrivals as f64);
                t.row.push(st.departures as f64);
                t.row.push(st.drops.total() as f64);
                l.queue.probe(&mut t.row);
                if let Some(m) = &l.loss {
                    t.row.push(m.state());
                }
                for &d in &t.classes {
                    let k = queue_class(&st, qp, d);
                    t.row.extend([k.arrivals as f64, k.departures as f64, k.drops as f64, k.len_pkts as f64]);
                }
            }
            TraceTarget::Element(ei) => {
                let e = &self.elements[ei as usize];
                let (hp, hb) = e.elem.held();
                t.row.push(e.stats.arrivals as f64);
                t.row.push(e.stats.departures as f64);
                t.row.push(e.stats.drops.iter().sum::<u64>() as f64);
                t.row.push(hp as f64);
                t.row.push(hb as f64);
                e.elem.probe(now, &mut t.row);
            }
            TraceTarget::Flow(fi) => {
                let s = &self.core.flows[fi as usize];
                t.row.push(s.sent_bytes as f64);
                t.row.push(s.delivered_bytes as f64);
                t.row.push(s.goodput_bytes as f64);
                let thr = if now == 0 { 0.0 } else { (s.goodput_bytes as i64 - t.prev_goodput) as f64 * 8.0 / to_secs(t.interval) };
                t.row.push(thr);
                t.prev_goodput = s.goodput_bytes as i64;
                self.flows[fi as usize].sender.probe(&mut t.row);
                for &d in &t.classes {
                    let k = flow_class(s, d);
                    t.row.extend([k.sent_bytes as f64, k.delivered_bytes as f64, k.delivered_payload as f64]);
                }
            }
        }
        t.series.push_row(&t.row);
        let next = now + t.interval;
        t.next = next;
        if next <= self.duration {
            self.core.sched.at(next, Event::Sample { trace: ti });
        }
        self.set_horizon();
    }

    fn end_warmup(&mut self) {
        let now = self.core.sched.now();
        self.core.net.warmup(now, &mut self.core.flows, WarmupStep::Restart);
        // Flows created during the run keep whole-life counters (their completion rows).
        let n = self.n_static as usize;
        // Throughput samples span the restart: the previous sample becomes relative to it.
        for t in &mut self.traces {
            if let TraceTarget::Flow(fi) = t.target {
                t.prev_goodput -= self.core.flows[fi as usize].goodput_bytes as i64;
            }
        }
        for s in self.core.flows[..n].iter_mut().chain(self.core.rx.iter_mut()) {
            s.reset(now);
        }
        for f in &mut self.flows[..n] {
            f.sender.restart_counters(now);
            for r in f.receivers_mut() {
                r.agent.restart_counters(now);
            }
        }
        for e in &mut self.elements {
            e.stats.reset(e.elem.held().0);
            e.elem.restart_counters(now);
        }
        self.core.net.warmup(now, &mut self.core.flows, WarmupStep::RestoreDrops);
        self.warmup_pending = false;
        self.set_horizon();
    }

    /// Runs to the end time (or `max_events`, or until `stop` is set).
    pub fn run(&mut self, stop: Option<&AtomicBool>) -> StopReason {
        match stop {
            Some(flag) => self.run_with(&mut || flag.load(Ordering::Relaxed)),
            None => self.run_with(&mut || false),
        }
    }

    /// Runs to the end time (or `max_events`); `should_stop` is polled every 16384 events
    /// (e.g. to honour Ctrl-C) and ends the run early when it returns true.
    pub fn run_with(&mut self, should_stop: &mut dyn FnMut() -> bool) -> StopReason {
        let until = self.duration;
        let max_events = self.max_events.unwrap_or(u64::MAX);
        loop {
            let Some((_, seq, ev)) = self.core.sched.pop_seq_until(until) else {
                self.core.sched.advance_to(until);
                return StopReason::EndTime;
            };
            if self.prefetch >= crate::prefetch::Level::Flows {
                // A timer next (at 10 000 flows, about one event in three): what it reads
                // into the cache while this event runs.
                if let Some(&Event::Timer { flow, end, .. }) = self.core.sched.peek_event() {
                    self.prefetch_timer(flow, end);
                }
            }
            match ev {
                Event::TxEnd { link } => self.core.net.tx_end(link, &mut self.core.sched, &mut self.core.pool, &mut self.core.flows),
                Event::LinkArrive { link } => {
                    if let Some((node, pkt)) = self.core.net.link_arrive(link, &mut self.core.sched) {
                        self.arrive(node, pkt, link)
                    }
                }
                Event::NodeArrive { node } => {
                    self.core.net.node_arrive(node, &mut self.core.sched, &mut self.core.pool, &mut self.core.flows)
                }
                // A timer scheduled before its slot's flow began is an earlier flow's: ignored.
                Event::Timer { flow, token, end, kind } if seq >= self.flows[flow as usize].seq_floor => match kind {
                    TIMER_START => self.agent_call(flow, end, |a, ctx| a.start(ctx)),
                    TIMER_STOP => {
                        self.note_goodput_at_stop(flow);
                        self.agent_call(flow, end, |a, ctx| a.stop(ctx))
                    }
                    _ => self.agent_call(flow, end, |a, ctx| a.on_timer(ctx, kind, token)),
                },
                Event::Timer { .. } => {}
                Event::Generate { gen, user } => self.generate(gen, user),
                Event::ElemTimer { elem, kind, token } => self.element_timer(elem, kind, token),
                Event::Sample { trace } => self.sample(trace),
                Event::WarmupEnd => self.end_warmup(),
            }
            if !self.core.work.is_empty() {
                // Packets sent at a node with elements go through them now.
                self.run_work();
            }
            if !self.core.flow_events.is_empty() || !self.core.flows.resolved.is_empty() {
                self.flow_events();
                if self.stop_when_idle && self.idle() {
                    return StopReason::Idle;
                }
            }
            if let Some(r) = self.check_stop(max_events, should_stop) {
                return r;
            }
            if !self.core.net.early.is_empty() {
                if let Some(r) = self.take_early(max_events, should_stop) {
                    return r;
                }
            }
        }
    }

    /// Whether to stop after the latest event (or packet taken ahead of the clock): one
    /// comparison, the rest at [`Simulation::checkpoint`] every so many events.
    #[inline]
    fn check_stop(&mut self, max_events: u64, should_stop: &mut dyn FnMut() -> bool) -> Option<StopReason> {
        let n = self.core.sched.executed();
        if n < self.check_at {
            return None;
        }
        self.checkpoint(n, max_events, should_stop)
    }

    /// Runs and collects results.
    pub fn run_to_results(mut self, stop: Option<&AtomicBool>) -> Results {
        let t0 = Instant::now();
        let reason = self.run(stop);
        let wall = t0.elapsed().as_secs_f64();
        self.results(reason, wall)
    }
}

/// A queue's counts for class `d` (class 0: the totals minus every other class), its
/// length `len_pkts` now.
pub(crate) fn queue_class(st: &crate::measure::QueueStats, len_pkts: usize, d: u8) -> crate::measure::ClassCounts {
    if d != 0 {
        return st.classes.peek(d);
    }
    let mut k = crate::measure::ClassCounts {
        arrivals: st.arrivals,
        arrival_bytes: st.arrival_bytes,
        departures: st.departures,
        departure_bytes: st.departure_bytes,
        drops: st.drops.total(),
        drop_bytes: st.drops.total_bytes(),
        drops_by: st.drops.by_reason(),
        len_pkts: len_pkts as i64,
    };
    for (_, c) in st.classes.seen() {
        k.sub(c);
        k.len_pkts -= c.len_pkts;
    }
    k
}

/// A flow's counts for class `d` (class 0: the totals minus every other class).
pub(crate) fn flow_class(s: &FlowStats, d: u8) -> crate::measure::FlowClassCounts {
    if d != 0 {
        return s.classes.iter().find(|(c, _)| *c == d).map(|(_, k)| *k).unwrap_or_default();
    }
    let (q, l) = s.forward_drops();
    let mut k = crate::measure::FlowClassCounts {
        sent_pkts: s.sent_pkts,
        sent_bytes: s.sent_bytes,
        delivered_pkts: s.delivered_pkts,
        delivered_bytes: s.delivered_bytes,
        delivered_payload: s.delivered_payload,
        drops: q + l,
    };
    for (_, c) in &s.classes {
        k.sent_pkts -= c.sent_pkts;
        k.sent_bytes -= c.sent_bytes;
        k.delivered_pkts -= c.delivered_pkts;
        k.delivered_bytes -= c.delivered_bytes;
        k.delivered_payload -= c.delivered_payload;
        k.drops = k.drops.saturating_sub(c.drops);
    }
    k
}

/// Validates a TOML scenario and runs it.
pub fn run_toml(text: &str) -> Result<Results, Vec<crate::scenario::ScenarioError>> {
    let spec = crate::scenario::from_toml(text)?;
    Ok(Simulation::new(spec).run_to_results(None))
}
