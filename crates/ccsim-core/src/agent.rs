//! Endpoints of flows. An [`Agent`] is one end of a flow (a traffic source, a sink, a TCP
//! sender or receiver); it reacts to packets and to its own timers through a [`Ctx`], which
//! lets it send packets into the network and schedule timers, and nothing else.

use crate::config::{Errors, Obj};
use crate::engine::{Event, Scheduler, Side};
use crate::measure::FlowStats;
use crate::net::Network;
use crate::packet::{Packet, PacketPool};
use crate::rng::SimRng;
use crate::units::Time;
use std::sync::Arc;

/// Timer kinds at or above this value are reserved for the engine.
pub const RESERVED_TIMER: u16 = 0xFF00;
/// Engine timer: the flow's start time.
pub const TIMER_START: u16 = 0xFF00;
/// Engine timer: the flow's stop time.
pub const TIMER_STOP: u16 = 0xFF01;

/// The shared mutable state of a simulation, minus the agents and elements.
pub struct Core {
    pub sched: Scheduler,
    pub net: Network,
    pub pool: PacketPool,
    pub flows: crate::measure::FlowTable,
    /// Per node: whether node elements are placed there (its packets go through them).
    pub elem_node: Vec<bool>,
    /// Packets waiting to go through a node's elements, in order (see [`Work`]).
    pub work: std::collections::VecDeque<Work>,
    /// Per-receiver statistics of flows with several receivers.
    pub rx: Vec<FlowStats>,
    /// What agents reported about their flows' ends since the simulation last looked.
    pub flow_events: Vec<(u32, FlowEvent)>,
}

/// A flow end's report about its transfer (see [`Ctx::complete`], [`Ctx::finished`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowEvent {
    /// The receiver holds all the data, at this time.
    Complete(Time),
    /// The sender will send nothing more, from this time.
    Finished(Time),
}

/// A packet on its way through a node's elements: at `node`, next to element `stage` of
/// the node's chain (past the last: routing or delivery), having arrived on link
/// direction `from` ([`crate::element::LOCAL`]: sent at the node).
#[derive(Clone, Copy, Debug)]
pub struct Work {
    pub id: crate::packet::PktId,
    pub node: u32,
    pub stage: u16,
    pub from: u32,
}

impl Core {
    /// Injects or forwards packet `id` at node `node` along its route, now.
    #[inline]
    pub fn forward(&mut self, node: u32, id: crate::packet::PktId) {
        let now = self.sched.now();
        self.forward_at(node, id, now);
    }

    /// As [`Core::forward`], at time `at`: later than now only for an agent taking a
    /// packet ahead of the clock, whose outgoing link is then event-free (see
    /// [`Agent::next_wakeup`]).
    #[inline(always)]
    pub fn forward_at(&mut self, node: u32, id: crate::packet::PktId, at: Time) {
        if self.elem_node[node as usize] {
            return self.queue_for_elements(node, id, at);
        }
        let dst = self.pool.get(id).dst;
        let ld = self.net.route(node, dst);
        debug_assert!(ld != crate::net::NO_ROUTE, "no route (validated at build time)");
        self.net.enqueue_at(ld, at, id, &mut self.sched, &mut self.pool, &mut self.flows);
    }
}

impl Core {
    /// A packet sent at a node with elements goes through them first, right after the
    /// sender's call (never ahead of the clock: such a node takes no packet early).
    #[cold]
    #[inline(never)]
    fn queue_for_elements(&mut self, node: u32, id: crate::packet::PktId, at: Time) {
        debug_assert_eq!(at, self.sched.now());
        self.work.push_back(Work { id, node, stage: 0, from: u32::MAX });
    }
}

/// What an agent may do.
pub struct Ctx<'a> {
    pub now: Time,
    pub flow: u32,
    pub side: Side,
    /// Which end of the flow: 0 the sender, `1 + i` receiver `i` (flows may have several).
    pub end: u16,
    /// The node this agent sits on.
    pub node: u32,
    /// Where this agent sends: the flow's receiver (a node, or a multicast group address)
    /// for the sender, the sender's node for a receiver.
    pub peer: u32,
    /// Per-receiver statistics of a multicast receiver ([`NO_RX`]: none).
    pub(crate) rx: u32,
    pub(crate) core: &'a mut Core,
}

/// `Ctx::rx` of an agent without per-receiver statistics.
pub const NO_RX: u32 = u32::MAX;

impl<'a> Ctx<'a> {
    /// Sends `p` from this agent to the flow's other end. Fills in flow, addresses and
    /// `sent_at`; counts it in the flow's statistics.
    #[inline]
    pub fn send(&mut self, p: Packet) {
        self.send_with(|q| *q = p)
    }

    /// As [`Ctx::send`], for a packet built in place by `fill` from a default one (a
    /// packet built first and copied then can stall the copy: store forwarding).
    #[inline]
    pub fn send_with(&mut self, fill: impl FnOnce(&mut Packet)) {
        let (flow, node, peer, now) = (self.flow, self.node, self.peer, self.now);
        let id = self.core.pool.alloc_with(|q| {
            fill(q);
            q.flow = flow;
            q.src = node;
            q.dst = peer;
            q.sent_at = now;
        });
        let (size, dscp) = {
            let p = self.core.pool.get(id);
            (p.size, p.dscp)
        };
        let st = &mut self.core.flows[flow as usize];
        match self.side {
            Side::Sender => {
                st.sent_pkts += 1;
                st.sent_bytes += size as u64;
                if dscp != 0 {
                    let c = st.class(dscp);
                    c.sent_pkts += 1;
                    c.sent_bytes += size as u64;
                }
            }
            Side::Receiver => st.reverse_sent_pkts += 1,
        }
        self.core.forward_at(node, id, now);
    }

    /// Schedules this agent's timer `kind` at absolute time `at`, tagged with `token`.
    #[inline]
    pub fn timer_at(&mut self, at: Time, kind: u16, token: u32) {
        debug_assert!(kind < RESERVED_TIMER);
        self.core.sched.timer_at(at.max(self.now), Event::Timer { flow: self.flow, token, end: self.end, kind });
    }

    /// A receiver reports that it holds all the data of a finite transfer (its completion
    /// time, for flow-completion tables).
    pub fn complete(&mut self) {
        self.core.flow_events.push((self.flow, FlowEvent::Complete(self.now)));
    }

    /// A sender reports that it will send nothing more (a finite transfer fully sent and,
    /// for a reliable transport, acknowledged): its flow's state may be released once the
    /// transfer is complete.
    pub fn finished(&mut self) {
        self.core.flow_events.push((self.flow, FlowEvent::Finished(self.now)));
    }

    /// Counts `bytes` of unique application payload delivered to this receiver (goodput),
    /// for the flow and, with several receivers, for this receiver.
    #[inline]
    pub fn add_goodput(&mut self, bytes: u64) {
        self.core.flows[self.flow as usize].goodput_bytes += bytes;
        if self.rx != NO_RX {
            self.core.rx[self.rx as usize].goodput_bytes += bytes;
        }
    }

    /// This flow's statistics.
    #[inline]
    pub fn stats(&mut self) -> &mut FlowStats {
        &mut self.core.flows[self.flow as usize]
    }
}

/// One end of a flow.
pub trait Agent: Send {
    /// The flow's start time has come (called on the sender side only).
    fn start(&mut self, _ctx: &mut Ctx) {}
    /// The flow's stop time has come (sender side only): stop generating new data.
    fn stop(&mut self, _ctx: &mut Ctx) {}
    /// A packet of this flow arrived at this agent.
    fn on_packet(&mut self, ctx: &mut Ctx, pkt: &Packet);
    /// One of this agent's timers fired.
    fn on_timer(&mut self, _ctx: &mut Ctx, _kind: u16, _token: u32) {}
    /// The earliest time at which one of this agent's timers may change its state
    /// (`Some(Time::MAX)`: no timer pending), or `None` (the default) if the agent does
    /// not say.
    ///
    /// An agent that says may be handed a packet *ahead of the clock*: when its node's
    /// only link in and out run event-free, a packet decided to arrive at time `t` is
    /// given to the agent at once (with `ctx.now = t`) instead of at an event at `t`,
    /// provided `t` is before this wake-up time, before the flow's stop time and before
    /// any reader of the flow's state (a flow trace's next sample, the end of warm-up,
    /// the end of the run). Nothing else can see or change the agent in between, so the
    /// outcome is the same; the agent must therefore use only `ctx.now`, never a clock
    /// of its own, and report every timer it relies on here.
    fn next_wakeup(&self) -> Option<Time> {
        None
    }
    /// Whether this agent never sets a timer, so that [`Agent::next_wakeup`] always says
    /// `Some(Time::MAX)` (default: false). Asked once, when the agent joins its flow: the
    /// engine then takes the answer for every packet instead of asking `next_wakeup`.
    fn timerless(&self) -> bool {
        false
    }
    /// Names of the agent's state exposed to time-series traces (e.g. `cwnd`).
    fn probe_names(&self) -> Vec<&'static str> {
        Vec::new()
    }
    /// Appends current values of [`Agent::probe_names`].
    fn probe(&self, _out: &mut Vec<f64>) {}
    /// A finite transfer's receiver: whether it holds every byte of the transfer now (None,
    /// the default: not such a receiver, or a kind that does not say). A flow whose sender
    /// is done while a receiver does not hold everything (a multicast receiver the sender's
    /// ACKs do not speak for, UDT's ns-2 module whose ACKs step over holes) did not
    /// complete: its `completion_s` is NaN and its completion row says so.
    fn holds_all(&self) -> Option<bool> {
        None
    }
    /// Agent-specific summary values for the flow table (e.g. `timeouts`).
    fn summary(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
    /// Warm-up ended at `now`: every counter and average of [`Agent::summary`] restarts
    /// (state such as the final window does not). Must not change the agent's behaviour.
    fn restart_counters(&mut self, _now: Time) {}
    /// Event logs kept by the agent (e.g. every bandwidth sample), returned with the
    /// results as series named `flow:<flow>:<name>`.
    fn tables(&mut self) -> Vec<(&'static str, crate::measure::Table)> {
        Vec::new()
    }
}

/// A flow kind's typed configuration (CBR, on/off, TCP, ...), which is also its factory:
/// every flow of that kind gets its own agents, built from the flow's own random stream.
/// Parsed in the kind's own module; the scenario's flow-kind registry holds one line per
/// kind.
pub trait FlowConfig: Send + Sync + std::fmt::Debug {
    /// The scenario name of the kind (`kind = "..."`).
    fn kind(&self) -> &'static str;
    /// The sender and `receivers` receiving agents (≥ 1). `size` (bytes), when given,
    /// replaces the configured amount of data (a traffic generator's draw).
    fn build(&self, rng: SimRng, size: Option<u64>, receivers: usize) -> (Box<dyn Agent>, Vec<Box<dyn Agent>>);
    /// Every parameter, defaults resolved, as scenario values (for reports).
    fn params(&self) -> serde_json::Value;
    /// The most receivers one flow of this kind may have (1: unicast only).
    fn max_receivers(&self) -> usize {
        1
    }
    /// Whether `size` may be given to [`FlowConfig::build`] (finite transfers).
    fn sized(&self) -> bool {
        false
    }
    /// Whether the receiver reports when it holds all the data ([`Ctx::complete`]); if not
    /// (datagrams), a finite flow completes when its sender has finished and every packet
    /// it sent was delivered or dropped.
    fn receiver_completes(&self) -> bool {
        false
    }
    /// The packets an open-loop source offers in `secs` seconds whatever the network does
    /// (validation's warning about runs that would take hours); None for self-clocked
    /// kinds (TCP, UDT), which the network slows down.
    fn offered_packets(&self, _secs: f64) -> Option<f64> {
        None
    }
    /// The largest packet its sender sends, bytes as queues count them (validation warns of
    /// a queue limited in bytes below it, which drops every such packet).
    fn largest_packet(&self) -> Option<u64> {
        None
    }
    /// The smallest packet its sender may send, bytes as queues count them, when it could be
    /// under the 28 bytes of the IPv4 and UDP headers a pcap capture writes (None: never,
    /// e.g. a transport whose packets carry their own headers). `drawn_size`: the transfer's
    /// size is a generator's draw, not the configuration's.
    fn smallest_packet(&self, _drawn_size: bool) -> Option<u64> {
        None
    }
}

/// Parses a flow kind's own fields (the `[[flows]]` table's other fields).
pub type FlowParser = fn(&mut Obj, &mut Errors) -> Option<Arc<dyn FlowConfig>>;
