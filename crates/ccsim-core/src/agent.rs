//! Endpoints of flows. An [`Agent`] is one end of a flow (a traffic source, a sink, a TCP
//! sender or receiver); it reacts to packets and to its own timers through a [`Ctx`], which
//! lets it send packets into the network and schedule timers, and nothing else.

use crate::engine::{Event, Scheduler, Side};
use crate::measure::FlowStats;
use crate::net::Network;
use crate::packet::{Packet, PacketPool};
use crate::units::Time;

/// Timer kinds at or above this value are reserved for the engine.
pub const RESERVED_TIMER: u16 = 0xFF00;
/// Engine timer: the flow's start time.
pub const TIMER_START: u16 = 0xFF00;
/// Engine timer: the flow's stop time.
pub const TIMER_STOP: u16 = 0xFF01;

/// The shared mutable state of a simulation, minus the agents.
pub struct Core {
    pub sched: Scheduler,
    pub net: Network,
    pub pool: PacketPool,
    pub flows: Vec<FlowStats>,
}

impl Core {
    /// Injects or forwards packet `id` at node `node` along its route.
    #[inline]
    pub fn forward(&mut self, node: u32, id: crate::packet::PktId) {
        let dst = self.pool.get(id).dst;
        let ld = self.net.route(node, dst);
        debug_assert!(ld != crate::net::NO_ROUTE, "no route (validated at build time)");
        self.net.enqueue(ld, id, &mut self.sched, &mut self.pool, &mut self.flows);
    }
}

/// What an agent may do.
pub struct Ctx<'a> {
    pub now: Time,
    pub flow: u32,
    pub side: Side,
    /// The node this agent sits on.
    pub node: u32,
    /// The node of the flow's other end.
    pub peer: u32,
    pub(crate) core: &'a mut Core,
}

impl<'a> Ctx<'a> {
    /// Sends `p` from this agent to the flow's other end. Fills in flow, addresses and
    /// `sent_at`; counts it in the flow's statistics.
    #[inline]
    pub fn send(&mut self, mut p: Packet) {
        p.flow = self.flow;
        p.src = self.node;
        p.dst = self.peer;
        p.sent_at = self.now;
        let st = &mut self.core.flows[self.flow as usize];
        match self.side {
            Side::Sender => {
                st.sent_pkts += 1;
                st.sent_bytes += p.size as u64;
            }
            Side::Receiver => st.reverse_sent_pkts += 1,
        }
        let id = self.core.pool.alloc(p);
        self.core.forward(self.node, id);
    }

    /// Schedules this agent's timer `kind` at absolute time `at`, tagged with `token`.
    #[inline]
    pub fn timer_at(&mut self, at: Time, kind: u16, token: u32) {
        debug_assert!(kind < RESERVED_TIMER);
        self.core.sched.at(at.max(self.now), Event::Timer { flow: self.flow, side: self.side, kind, token });
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
    /// Names of the agent's state exposed to time-series traces (e.g. `cwnd`).
    fn probe_names(&self) -> Vec<&'static str> {
        Vec::new()
    }
    /// Appends current values of [`Agent::probe_names`].
    fn probe(&self, _out: &mut Vec<f64>) {}
    /// Agent-specific summary values for the flow table (e.g. `timeouts`).
    fn summary(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
    /// Event logs kept by the agent (e.g. every bandwidth sample), returned with the
    /// results as series named `flow:<flow>:<name>`.
    fn tables(&mut self) -> Vec<(&'static str, crate::measure::Table)> {
        Vec::new()
    }
}
