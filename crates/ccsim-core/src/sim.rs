//! A simulation: the world built from a validated [`Spec`], its event loop, and its results.

use crate::agent::{Agent, Core, Ctx, TIMER_START, TIMER_STOP};
use crate::engine::{Event, Scheduler, Side};
use crate::measure::{Column, FlowStats, Series, Table};
use crate::net::{LinkDir, Network, Node, WarmupStep};
use crate::packet::PacketPool;
use crate::queue::DropReason;
use crate::rng::stream;
use crate::scenario::{Spec, TraceTarget};
use crate::units::{to_secs, Time};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

struct FlowSlot {
    name: String,
    kind: &'static str,
    src: u32,
    dst: u32,
    start: Time,
    stop: Option<Time>,
    sender: Box<dyn Agent>,
    receiver: Box<dyn Agent>,
}

struct TraceState {
    target: TraceTarget,
    interval: Time,
    series: Series,
    prev_goodput: u64,
    row: Vec<f64>,
    /// Time of the pending sample.
    next: Time,
}

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// Reached the scenario's duration.
    EndTime,
    /// Reached `simulation.max_events`.
    MaxEvents,
    /// Asked to stop (e.g. Ctrl-C).
    Interrupted,
}

impl StopReason {
    pub fn name(self) -> &'static str {
        match self {
            StopReason::EndTime => "end_time",
            StopReason::MaxEvents => "max_events",
            StopReason::Interrupted => "interrupted",
        }
    }
}

/// Everything a run produces.
pub struct Results {
    pub name: String,
    pub seed: u64,
    /// Simulated time reached, seconds.
    pub sim_time_s: f64,
    pub warmup_s: f64,
    pub events: u64,
    pub wall_s: f64,
    pub stop: StopReason,
    pub peak_packets: usize,
    /// Packets handed to their destination's agent ahead of the clock instead of by an
    /// event (counted in `events` too; see [`crate::agent::Agent::next_wakeup`]).
    pub taken_ahead: u64,
    /// Every component's resolved parameters (JSON, see [`Spec::params`]).
    pub params: String,
    pub flows: Table,
    pub queues: Table,
    pub drops: Table,
    pub series: Vec<(String, Table)>,
    /// Files written (pcap captures): (link direction, path).
    pub files: Vec<(String, String)>,
    /// Problems that did not stop the run (e.g. a pcap write error).
    pub warnings: Vec<String>,
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
    /// Per node: the one flow end it hosts (for packets taken ahead of the clock).
    node_agent: Vec<(u32, Side)>,
    /// Packets may be taken ahead of the clock only if they arrive before this instant:
    /// the next reader of flow state (a flow trace's sample, the end of warm-up, the end
    /// of the run).
    horizon: Time,
    /// The `WarmupEnd` event has yet to run.
    warmup_pending: bool,
    /// See [`Results::taken_ahead`].
    taken_ahead: u64,
    /// See [`Results::params`].
    params: String,
}

impl Simulation {
    /// Builds the world (pcap files, if any, go to the current directory).
    /// Panics if a pcap file cannot be created; use [`Simulation::with_options`] to get an error.
    pub fn new(spec: Spec) -> Self {
        Self::with_options(spec, &SimOptions::default()).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Builds the world. Every random stream is keyed by the seed and a component's name.
    pub fn with_options(spec: Spec, opts: &SimOptions) -> Result<Self, String> {
        let seed = spec.seed;
        let params = spec.params().to_string();
        let nodes: Vec<Node> = spec.nodes.iter().map(|n| Node { name: n.clone() }).collect();
        let mut links = Vec::with_capacity(spec.links.len() * 2);
        let mut queue_kinds = Vec::with_capacity(spec.links.len() * 2);
        for l in &spec.links {
            for (dir, (from, to)) in [(l.a, l.b), (l.b, l.a)].into_iter().enumerate() {
                let dname = format!("{}->{}", spec.nodes[from as usize], spec.nodes[to as usize]);
                let tag = if dir == 0 { "ab" } else { "ba" };
                let queue = l.queue[dir].build(stream(seed, &format!("link:{}:{tag}:queue", l.name)));
                let loss = l.loss[dir].as_ref().map(|m| m.build(stream(seed, &format!("link:{}:{tag}:loss", l.name))));
                links.push(LinkDir::new(dname, l.name.clone(), dir == 0, from, to, l.rate_bps, l.delay, queue, loss));
                queue_kinds.push(l.queue[dir].kind());
            }
        }
        let dir = opts.output_dir.clone().unwrap_or_else(|| std::path::PathBuf::from("."));
        if !spec.pcaps.is_empty() {
            std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create output folder {}: {e}", dir.display()))?;
        }
        for &ld in &spec.drop_logs {
            links[ld as usize].drop_log = Some(Box::default());
        }
        for p in &spec.pcaps {
            let w = crate::trace::pcap::PcapWriter::create(&dir.join(&p.file))?;
            links[p.link_dir as usize].capture = Some(Box::new(w));
        }
        let mut net = Network::new(nodes, links);
        if !opts.per_hop_events {
            let ends: Vec<(u32, u32)> = spec.flows.iter().map(|f| (f.src, f.dst)).collect();
            let traced: Vec<u32> =
                spec.traces.iter().filter_map(|t| if let TraceTarget::Queue(ld) = t.target { Some(ld) } else { None }).collect();
            net.enable_fast_paths(&ends, &traced);
        }
        let mut sched = Scheduler::new();
        let mut flows = Vec::with_capacity(spec.flows.len());
        for (i, f) in spec.flows.into_iter().enumerate() {
            let (sender, mut receivers) = f.app.build(stream(seed, &format!("flow:{}", f.name)), None, 1);
            let receiver = receivers.pop().expect("one receiver");
            let start = if f.start_jitter > 0 {
                use crate::rng::Rng;
                f.start + stream(seed, &format!("flow:{}:start", f.name)).gen_range(0..f.start_jitter)
            } else {
                f.start
            };
            sched.at(start, Event::Timer { flow: i as u32, side: Side::Sender, kind: TIMER_START, token: 0 });
            if let Some(stop) = f.stop {
                sched.at(stop, Event::Timer { flow: i as u32, side: Side::Sender, kind: TIMER_STOP, token: 0 });
            }
            flows.push(FlowSlot { name: f.name, kind: f.app.kind(), src: f.src, dst: f.dst, start, stop: f.stop, sender, receiver });
        }
        if spec.warmup > 0 {
            sched.at(spec.warmup, Event::WarmupEnd);
        }
        let mut traces = Vec::with_capacity(spec.traces.len());
        for (i, t) in spec.traces.iter().enumerate() {
            let (name, mut cols) = match t.target {
                TraceTarget::Queue(ld) => {
                    let l = &net.links[ld as usize];
                    let mut c: Vec<String> =
                        ["time", "len_pkts", "len_bytes", "arrivals", "departures", "drops"].iter().map(|s| s.to_string()).collect();
                    c.extend(l.queue.probe_names().iter().map(|s| s.to_string()));
                    if l.loss.is_some() {
                        c.push("loss_state".into());
                    }
                    (format!("queue:{}", l.name), c)
                }
                TraceTarget::Flow(fi) => {
                    let f = &flows[fi as usize];
                    let mut c: Vec<String> = ["time", "sent_bytes", "delivered_bytes", "goodput_bytes", "throughput_bps"]
                        .iter()
                        .map(|s| s.to_string())
                        .collect();
                    c.extend(f.sender.probe_names().iter().map(|s| s.to_string()));
                    (format!("flow:{}", f.name), c)
                }
            };
            cols.shrink_to_fit();
            let width = cols.len();
            sched.at(0, Event::Sample { trace: i as u32 });
            traces.push(TraceState {
                target: t.target,
                interval: t.interval,
                series: Series::new(name, cols),
                prev_goodput: 0,
                row: Vec::with_capacity(width),
                next: 0,
            });
        }
        // Hosts whose one flow end may take packets ahead of the clock: one flow end, one
        // link in and one out, both event-free.
        let mut node_agent = vec![(u32::MAX, Side::Sender); net.nodes.len()];
        if !opts.per_hop_events {
            let mut ends = vec![0u32; net.nodes.len()];
            for (i, f) in flows.iter().enumerate() {
                ends[f.src as usize] += 1;
                ends[f.dst as usize] += 1;
                node_agent[f.src as usize] = (i as u32, Side::Sender);
                node_agent[f.dst as usize] = (i as u32, Side::Receiver);
            }
            for (v, &(fi, side)) in node_agent.iter().enumerate() {
                if ends[v] != 1 || net.lazy_host_links(v as u32).is_none() {
                    continue;
                }
                let f = &flows[fi as usize];
                let agent = if side == Side::Sender { &f.sender } else { &f.receiver };
                if agent.next_wakeup().is_some() {
                    net.set_early_node(v as u32);
                }
            }
        }
        let nflows = flows.len();
        let mut sim = Simulation {
            core: Core { sched, net, pool: PacketPool::new(), flows: vec![FlowStats::default(); nflows] },
            flows,
            traces,
            name: spec.name,
            seed,
            duration: spec.duration,
            warmup: spec.warmup,
            max_events: spec.max_events,
            queue_kinds,
            node_agent,
            horizon: 0,
            warmup_pending: spec.warmup > 0,
            taken_ahead: 0,
            params,
        };
        sim.set_horizon();
        Ok(sim)
    }

    /// Recomputes [`Simulation::horizon`] and the network's read horizon (after a
    /// reader ran): the next instants at which flow state and queue statistics are read.
    fn set_horizon(&mut self) {
        let mut h = self.duration;
        if self.warmup_pending {
            h = h.min(self.warmup);
        }
        let mut q = h;
        for t in &self.traces {
            match t.target {
                TraceTarget::Flow(_) => h = h.min(t.next),
                TraceTarget::Queue(_) => q = q.min(t.next),
            }
        }
        self.horizon = h;
        self.core.net.set_read_horizon(q);
    }

    /// The network (for inspection and tests).
    pub fn network(&self) -> &Network {
        &self.core.net
    }

    /// Per-flow statistics so far.
    pub fn flow_stats(&self) -> &[FlowStats] {
        &self.core.flows
    }

    /// Current simulated time.
    pub fn now(&self) -> Time {
        self.core.sched.now()
    }

    fn agent_call(&mut self, flow: u32, side: Side, f: impl FnOnce(&mut dyn Agent, &mut Ctx)) {
        let now = self.core.sched.now();
        self.agent_call_at(now, flow, side, f)
    }

    /// Calls an agent with `ctx.now = now` (later than the clock for a packet taken ahead).
    #[inline]
    fn agent_call_at(&mut self, now: Time, flow: u32, side: Side, f: impl FnOnce(&mut dyn Agent, &mut Ctx)) {
        let slot = &mut self.flows[flow as usize];
        let (agent, node, peer) = match side {
            Side::Sender => (&mut slot.sender, slot.src, slot.dst),
            Side::Receiver => (&mut slot.receiver, slot.dst, slot.src),
        };
        let mut ctx = Ctx { now, flow, side, node, peer, core: &mut self.core };
        f(agent.as_mut(), &mut ctx);
    }

    #[inline]
    fn arrive(&mut self, node: u32, id: crate::packet::PktId) {
        if self.core.pool.get(id).dst != node {
            self.core.forward(node, id);
            return;
        }
        let now = self.core.sched.now();
        self.deliver(now, id);
    }

    /// Packet `id` reaches its destination's agent at `now`.
    #[inline]
    fn deliver(&mut self, now: Time, id: crate::packet::PktId) {
        // Copied out so the agent may send (and the pool grow) while reading it.
        let p = *self.core.pool.get(id);
        self.core.pool.free(id);
        let side = if p.src == self.flows[p.flow as usize].src { Side::Receiver } else { Side::Sender };
        match side {
            Side::Receiver => self.core.flows[p.flow as usize].on_delivered(now, &p),
            Side::Sender => self.core.flows[p.flow as usize].reverse_delivered_pkts += 1,
        }
        self.agent_call_at(now, p.flow, side, |a, ctx| a.on_packet(ctx, &p));
    }

    /// Whether the agent of `node` may take a packet arriving at `t` now, ahead of the
    /// clock (see [`Agent::next_wakeup`]).
    #[inline]
    fn ahead_ok(&self, node: u32, t: Time) -> bool {
        if t >= self.horizon {
            return false;
        }
        let (fi, side) = self.node_agent[node as usize];
        let f = &self.flows[fi as usize];
        match side {
            Side::Sender => t < f.stop.unwrap_or(Time::MAX) && f.sender.next_wakeup().is_some_and(|w| t < w),
            Side::Receiver => f.receiver.next_wakeup().is_some_and(|w| t < w),
        }
    }

    /// Hands the packets the last event decided for hosts that take them ahead of the
    /// clock to their agents, in the order decided (each host's in its arrival order),
    /// or puts them back on the event path when the agent cannot take them yet. A host
    /// whose line still holds packets on the event path takes those first, or none.
    ///
    /// Each packet handed over counts as an executed event: `max_events` and the stop
    /// check apply to them too (a chain of hosts fed only by event-free links can run a
    /// whole simulation from one event).
    fn take_early(&mut self, max_events: u64, should_stop: &mut dyn FnMut() -> bool) -> Option<StopReason> {
        let mut i = 0;
        while i < self.core.net.early.len() {
            if i >= 4096 {
                // A long chain of hand-overs (hosts feeding each other ahead of the clock):
                // forget the handled part so that the list stays as short as the packets
                // in flight.
                self.core.net.early.drain(..i);
                i = 0;
            }
            let (t, seq, ld, id, start) = self.core.net.early[i];
            i += 1;
            let node = self.core.net.links[ld as usize].to;
            let mut ok = self.ahead_ok(node, t);
            if ok && self.core.net.in_flight_front(ld).is_some() {
                // Every packet on the line arrives by `t`: hand them over first. (The
                // first always can: the conditions only bound the arrival time.)
                let mut first = true;
                while let Some((ti, _, _, _)) = self.core.net.in_flight_front(ld) {
                    if !self.ahead_ok(node, ti) {
                        if !first {
                            self.core.net.rearm_in_flight(ld, &mut self.core.sched);
                        }
                        ok = false;
                        break;
                    }
                    let (_, _, pi, _) = self.core.net.take_in_flight(ld, first).expect("peeked");
                    first = false;
                    if let Some(r) = self.hand_over(ti, pi, max_events, should_stop) {
                        self.core.net.early.drain(..i);
                        return Some(r);
                    }
                }
                ok = ok && self.ahead_ok(node, t);
            }
            if !ok {
                self.core.net.arrive_later(ld, t, seq, id, start, &mut self.core.sched);
            } else if let Some(r) = self.hand_over(t, id, max_events, should_stop) {
                self.core.net.early.drain(..i);
                return Some(r);
            }
        }
        self.core.net.early.clear();
        None
    }

    /// Hands packet `id` to its host's agent at `t`, ahead of the clock; it counts as an
    /// executed event. Returns why to stop, if the run must stop now.
    #[inline]
    fn hand_over(
        &mut self,
        t: Time,
        id: crate::packet::PktId,
        max_events: u64,
        should_stop: &mut dyn FnMut() -> bool,
    ) -> Option<StopReason> {
        self.deliver(t, id);
        self.taken_ahead += 1;
        self.core.sched.note_executed();
        self.check_stop(max_events, should_stop)
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
                t.row.push(st.drops.iter().sum::<u64>() as f64);
                l.queue.probe(&mut t.row);
                if let Some(m) = &l.loss {
                    t.row.push(m.state());
                }
            }
            TraceTarget::Flow(fi) => {
                let s = &self.core.flows[fi as usize];
                t.row.push(s.sent_bytes as f64);
                t.row.push(s.delivered_bytes as f64);
                t.row.push(s.goodput_bytes as f64);
                // Counters restart at warm-up: a drop below the previous value means reset.
                let prev = if s.goodput_bytes < t.prev_goodput { 0 } else { t.prev_goodput };
                let thr = if now == 0 { 0.0 } else { (s.goodput_bytes - prev) as f64 * 8.0 / to_secs(t.interval) };
                t.row.push(thr);
                t.prev_goodput = s.goodput_bytes;
                self.flows[fi as usize].sender.probe(&mut t.row);
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
        for s in &mut self.core.flows {
            s.reset(now);
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
            let Some((_, ev)) = self.core.sched.pop_until(until) else {
                self.core.sched.advance_to(until);
                return StopReason::EndTime;
            };
            match ev {
                Event::TxEnd { link } => self.core.net.tx_end(link, &mut self.core.sched, &mut self.core.pool, &mut self.core.flows),
                Event::LinkArrive { link } => {
                    if let Some((node, pkt)) = self.core.net.link_arrive(link, &mut self.core.sched) {
                        self.arrive(node, pkt)
                    }
                }
                Event::NodeArrive { node } => {
                    self.core.net.node_arrive(node, &mut self.core.sched, &mut self.core.pool, &mut self.core.flows)
                }
                Event::Timer { flow, side, kind, token } => match kind {
                    TIMER_START => self.agent_call(flow, side, |a, ctx| a.start(ctx)),
                    TIMER_STOP => self.agent_call(flow, side, |a, ctx| a.stop(ctx)),
                    _ => self.agent_call(flow, side, |a, ctx| a.on_timer(ctx, kind, token)),
                },
                Event::Sample { trace } => self.sample(trace),
                Event::WarmupEnd => self.end_warmup(),
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

    /// Whether to stop after the latest event (or packet taken ahead of the clock).
    #[inline]
    fn check_stop(&self, max_events: u64, should_stop: &mut dyn FnMut() -> bool) -> Option<StopReason> {
        let n = self.core.sched.executed();
        if n >= max_events {
            return Some(StopReason::MaxEvents);
        }
        if n & 0x3FFF == 0 && should_stop() {
            return Some(StopReason::Interrupted);
        }
        None
    }

    /// Runs and collects results.
    pub fn run_to_results(mut self, stop: Option<&AtomicBool>) -> Results {
        let t0 = Instant::now();
        let reason = self.run(stop);
        let wall = t0.elapsed().as_secs_f64();
        self.results(reason, wall)
    }

    /// Builds the result tables.
    pub fn results(mut self, stop: StopReason, wall_s: f64) -> Results {
        let now = self.core.sched.now();
        self.core.net.finish(now, &mut self.core.flows);
        let mut flows = Table::default();
        let nf = self.flows.len();
        let f64col = |f: &dyn Fn(usize) -> f64| Column::F64((0..nf).map(f).collect());
        let i64col = |f: &dyn Fn(usize) -> i64| Column::I64((0..nf).map(f).collect());
        let st = &self.core.flows;
        let slots = &self.flows;
        let nodes = &self.core.net.nodes;
        let window = |i: usize| {
            let s = &slots[i];
            let begin = s.start.max(self.warmup);
            let end = s.stop.unwrap_or(now).min(now);
            to_secs(end.saturating_sub(begin))
        };
        flows.push("flow", i64col(&|i| i as i64));
        flows.push("name", Column::Str(slots.iter().map(|s| s.name.clone()).collect()));
        flows.push("kind", Column::Str(slots.iter().map(|s| s.kind.to_string()).collect()));
        flows.push("src", Column::Str(slots.iter().map(|s| nodes[s.src as usize].name.clone()).collect()));
        flows.push("dst", Column::Str(slots.iter().map(|s| nodes[s.dst as usize].name.clone()).collect()));
        flows.push("start_s", f64col(&|i| to_secs(slots[i].start)));
        flows.push("stop_s", f64col(&|i| to_secs(slots[i].stop.unwrap_or(self.duration))));
        flows.push("sent_pkts", i64col(&|i| st[i].sent_pkts as i64));
        flows.push("sent_bytes", i64col(&|i| st[i].sent_bytes as i64));
        flows.push("delivered_pkts", i64col(&|i| st[i].delivered_pkts as i64));
        flows.push("delivered_bytes", i64col(&|i| st[i].delivered_bytes as i64));
        flows.push("goodput_bytes", i64col(&|i| st[i].goodput_bytes as i64));
        flows.push(
            "goodput_bps",
            f64col(&|i| {
                let w = window(i);
                if w > 0.0 {
                    st[i].goodput_bytes as f64 * 8.0 / w
                } else {
                    0.0
                }
            }),
        );
        flows.push("queue_drops", i64col(&|i| st[i].forward_drops().0 as i64));
        flows.push("wire_losses", i64col(&|i| st[i].forward_drops().1 as i64));
        flows.push(
            "loss_rate",
            f64col(&|i| {
                let (q, l) = st[i].forward_drops();
                if st[i].sent_pkts > 0 {
                    (q + l) as f64 / st[i].sent_pkts as f64
                } else {
                    0.0
                }
            }),
        );
        flows.push("delay_mean_s", f64col(&|i| st[i].mean_delay_s()));
        flows.push("delay_min_s", f64col(&|i| if st[i].delivered_pkts > 0 { to_secs(st[i].delay_min_ns) } else { f64::NAN }));
        flows.push("delay_max_s", f64col(&|i| if st[i].delivered_pkts > 0 { to_secs(st[i].delay_max_ns) } else { f64::NAN }));
        flows.push("reverse_sent_pkts", i64col(&|i| st[i].reverse_sent_pkts as i64));
        flows.push("reverse_delivered_pkts", i64col(&|i| st[i].reverse_delivered_pkts as i64));
        // Agent-specific columns: the union over flows, NaN where a flow has none.
        let summaries: Vec<Vec<(&'static str, f64)>> =
            slots.iter().map(|s| s.sender.summary().into_iter().chain(s.receiver.summary()).collect()).collect();
        let mut extra: Vec<&'static str> = Vec::new();
        for s in &summaries {
            for (k, _) in s {
                if !extra.contains(k) {
                    extra.push(k);
                }
            }
        }
        for k in extra {
            flows.push(k, f64col(&|i| summaries[i].iter().find(|(n, _)| *n == k).map(|(_, v)| *v).unwrap_or(f64::NAN)));
        }

        let mut queues = Table::default();
        let links = &mut self.core.net.links;
        let nl = links.len();
        let means: Vec<(f64, f64)> = links
            .iter_mut()
            .map(|l| {
                let (p, b) = (l.qlen, l.qbytes);
                l.stats.mean_len(now, p, b)
            })
            .collect();
        let links = &self.core.net.links;
        let lf = |f: &dyn Fn(&LinkDir) -> f64| Column::F64(links.iter().map(f).collect());
        let li = |f: &dyn Fn(&LinkDir) -> i64| Column::I64(links.iter().map(f).collect());
        queues.push("link", Column::Str(links.iter().map(|l| l.link_name.clone()).collect()));
        queues.push("direction", Column::Str(links.iter().map(|l| l.name.clone()).collect()));
        queues.push("from", Column::Str(links.iter().map(|l| nodes[l.from as usize].name.clone()).collect()));
        queues.push("to", Column::Str(links.iter().map(|l| nodes[l.to as usize].name.clone()).collect()));
        queues.push("queue", Column::Str(self.queue_kinds.iter().map(|s| s.to_string()).collect()));
        queues.push("rate_bps", li(&|l| l.rate_bps as i64));
        queues.push("delay_s", lf(&|l| to_secs(l.delay)));
        queues.push("arrivals", li(&|l| l.stats.arrivals as i64));
        queues.push("arrival_bytes", li(&|l| l.stats.arrival_bytes as i64));
        queues.push("departures", li(&|l| l.stats.departures as i64));
        queues.push("departure_bytes", li(&|l| l.stats.departure_bytes as i64));
        for r in DropReason::ALL {
            queues.push(&format!("drops_{}", r.name()), li(&|l| l.stats.drops[r as usize] as i64));
        }
        queues.push("mean_len_pkts", Column::F64(means.iter().map(|m| m.0).collect()));
        queues.push("mean_len_bytes", Column::F64(means.iter().map(|m| m.1).collect()));
        queues.push("max_len_pkts", li(&|l| l.stats.max_pkts as i64));
        queues.push(
            "utilization",
            lf(&|l| {
                let w = now.saturating_sub(l.stats.since);
                if w > 0 {
                    (l.stats.busy_ns.min(w)) as f64 / w as f64
                } else {
                    0.0
                }
            }),
        );
        debug_assert_eq!(queues.rows(), nl);

        let mut drops = Table::default();
        let (mut d_flow, mut d_name, mut d_link, mut d_reason, mut d_dir, mut d_pkts, mut d_bytes) =
            (vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
        for (i, s) in st.iter().enumerate() {
            for site in &s.drop_sites {
                d_flow.push(i as i64);
                d_name.push(slots[i].name.clone());
                d_link.push(links[site.link as usize].name.clone());
                d_reason.push(site.reason.name().to_string());
                d_dir.push(if site.forward { "forward" } else { "reverse" }.to_string());
                d_pkts.push(site.pkts as i64);
                d_bytes.push(site.bytes as i64);
            }
        }
        drops.push("flow", Column::I64(d_flow));
        drops.push("name", Column::Str(d_name));
        drops.push("link", Column::Str(d_link));
        drops.push("reason", Column::Str(d_reason));
        drops.push("direction", Column::Str(d_dir));
        drops.push("pkts", Column::I64(d_pkts));
        drops.push("bytes", Column::I64(d_bytes));

        let mut files = Vec::new();
        let mut warnings = Vec::new();
        for l in self.core.net.links.iter_mut() {
            if let Some(cap) = l.capture.as_mut() {
                match cap.finish() {
                    Ok(p) => files.push((l.name.clone(), p.display().to_string())),
                    Err(e) => warnings.push(e),
                }
            }
        }
        let peak_packets = self.core.pool.capacity_used();
        let mut series: Vec<(String, Table)> = self.traces.into_iter().map(|t| (t.series.name.clone(), t.series.into_table())).collect();
        for l in self.core.net.links.iter_mut() {
            if let Some(log) = l.drop_log.take() {
                series.push((format!("drops:{}", l.name), log.into_table()));
            }
        }
        for f in self.flows.iter_mut() {
            for (tname, t) in f.sender.tables().into_iter().chain(f.receiver.tables()) {
                series.push((format!("flow:{}:{}", f.name, tname), t));
            }
        }
        Results {
            name: self.name,
            seed: self.seed,
            sim_time_s: to_secs(now),
            warmup_s: to_secs(self.warmup),
            events: self.core.sched.executed(),
            wall_s,
            stop,
            peak_packets,
            taken_ahead: self.taken_ahead,
            params: self.params,
            flows,
            queues,
            drops,
            series,
            files,
            warnings,
        }
    }
}

/// Validates a TOML scenario and runs it.
pub fn run_toml(text: &str) -> Result<Results, Vec<crate::scenario::ScenarioError>> {
    let spec = crate::scenario::from_toml(text)?;
    Ok(Simulation::new(spec).run_to_results(None))
}
