//! Flows created during a run by traffic generators: arrivals, flow slots reused once a
//! flow has finished (its state released; memory bounded by the flows alive at once), the
//! completion of each flow, and its row in the flow-completion table.
//!
//! A slot's earlier occupants may still have packets in the network or timers in the
//! event list. Both are told apart exactly: packets by uid (a slot records the first uid
//! it may see), timers by the event's sequence number (likewise): the earlier occupant's
//! are discarded (`stale_packets` in the run metadata).

use super::{FlowSlot, RecvSlot, Simulation};
use crate::agent::{Agent, Ctx, FlowEvent, NO_RX};
use crate::engine::Event;
use crate::measure::FlowStats;
use crate::packet::Packet;
use crate::rng::{Rng, SimRng};
use crate::scenario::{Arrivals, GeneratorSpec};
use crate::units::{secs, Time};

/// An agent that does nothing: what a released slot holds (a zero-sized box allocates nothing).
pub(super) struct Idle;

impl Agent for Idle {
    fn on_packet(&mut self, _ctx: &mut Ctx, _pkt: &Packet) {}
}

/// One generator's state.
pub(super) struct GenState {
    pub spec: GeneratorSpec,
    rng: SimRng,
    /// Flows opened so far.
    pub opened: u64,
    /// Next index in `Arrivals::Times`.
    next_time: usize,
    /// Flows alive now.
    pub alive: u32,
    /// No more flows will be opened.
    pub exhausted: bool,
    /// Closed loop: users still opening flows.
    users_active: u32,
    /// Where this generator's finished flows lost packets, summed.
    pub drop_sites: crate::measure::DropSites,
}

/// What a flow created during the run needs until it is released.
pub(super) struct DynFlow {
    gen: u32,
    k: u64,
    user: u32,
    size: u64,
    end: Option<Time>,
    finished: bool,
    last_delivery: Option<Time>,
    receiver_completes: bool,
}

/// The flow-completion table, one row per flow opened, filled as flows are released (and
/// at the end of the run for those still open).
#[derive(Default)]
pub(super) struct FctRows {
    pub gen: Vec<u32>,
    pub k: Vec<u64>,
    pub user: Vec<u32>,
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    pub size: Vec<u64>,
    pub start: Vec<Time>,
    /// `Time::MAX`: not complete by the end of the run.
    pub end: Vec<Time>,
    pub sent: Vec<u64>,
    pub lost: Vec<u64>,
    pub retransmitted: Vec<f64>,
    pub timeouts: Vec<f64>,
    /// Whether the receiver held every byte at the flow's end (see `Agent::holds_all`; a
    /// kind that does not say: whether no packet was lost).
    pub complete: Vec<bool>,
}

impl FctRows {
    /// Heap bytes the rows hold (their capacity).
    pub fn heap_bytes(&self) -> usize {
        let c = |n: usize, w: usize| n * w;
        c(self.gen.capacity(), 4)
            + c(self.k.capacity(), 8)
            + c(self.user.capacity(), 4)
            + c(self.src.capacity(), 4)
            + c(self.dst.capacity(), 4)
            + c(self.size.capacity(), 8)
            + c(self.start.capacity(), 8)
            + c(self.end.capacity(), 8)
            + c(self.sent.capacity(), 8)
            + c(self.lost.capacity(), 8)
            + c(self.retransmitted.capacity(), 8)
            + c(self.timeouts.capacity(), 8)
            + self.complete.capacity()
    }
}

impl GenState {
    pub fn new(spec: GeneratorSpec, seed: u64) -> Self {
        let rng = crate::rng::stream_of(seed, &["gen:", &spec.name]);
        let users_active = match &spec.arrivals {
            Arrivals::Closed { users, .. } => *users,
            _ => 0,
        };
        GenState { spec, rng, opened: 0, next_time: 0, alive: 0, exhausted: false, users_active, drop_sites: Default::default() }
    }

    /// A closed-loop user opens no more flows; the generator is exhausted with the last.
    fn user_stops(&mut self) {
        self.users_active = self.users_active.saturating_sub(1);
        if self.users_active == 0 {
            self.exhausted = true;
        }
    }

    /// Whether a flow may be opened at `t`.
    fn may_open(&self, t: Time) -> bool {
        !self.exhausted && self.spec.stop.is_none_or(|s| t < s) && self.spec.max_flows.is_none_or(|m| self.opened < m)
    }

    /// The first arrivals (at build time): the open loop's first, or each user's first
    /// after one think time.
    pub fn first_arrivals(&mut self, g: u32, sched: &mut crate::engine::Scheduler) {
        match self.spec.arrivals.clone() {
            Arrivals::Closed { users, think } => {
                for u in 0..users {
                    let t = self.spec.start.saturating_add(secs(think.sample(&mut self.rng)));
                    sched.at(t, Event::Generate { gen: g, user: u });
                }
            }
            _ => self.next_open_arrival(g, self.spec.start, sched),
        }
    }

    /// Schedules the open loop's next arrival after `now`, or marks the generator done.
    fn next_open_arrival(&mut self, g: u32, now: Time, sched: &mut crate::engine::Scheduler) {
        let t = match &self.spec.arrivals {
            Arrivals::Poisson { rate } => now.saturating_add(secs(crate::rng::exponential(&mut self.rng, 1.0 / rate))),
            Arrivals::Times(times) => {
                while self.next_time < times.len() && times[self.next_time] < self.spec.start {
                    self.next_time += 1;
                }
                match times.get(self.next_time) {
                    Some(&t) => {
                        self.next_time += 1;
                        t
                    }
                    None => Time::MAX,
                }
            }
            Arrivals::Closed { .. } => unreachable!("closed-loop users schedule their own arrivals"),
        };
        let opened_next = self.opened + 1;
        if t == Time::MAX || self.spec.stop.is_some_and(|s| t >= s) || self.spec.max_flows.is_some_and(|m| opened_next > m) {
            self.exhausted = true;
        } else {
            sched.at(t, Event::Generate { gen: g, user: u32::MAX });
        }
    }

    /// A (sender, receiver) pair: uniform over the pools, never the same node; a
    /// closed-loop user always receives at `dst[user % len]`.
    fn pair(&mut self, user: u32) -> Option<(u32, u32)> {
        let (src, dst) = (&self.spec.src, &self.spec.dst);
        let d = if user != u32::MAX {
            dst[user as usize % dst.len()]
        } else if src.len() == 1 {
            // The only sender cannot also be the receiver: draw among the other receivers.
            pick_except(&mut self.rng, dst, src[0])?
        } else {
            dst[self.rng.gen_range(0..dst.len())]
        };
        Some((pick_except(&mut self.rng, src, d)?, d))
    }
}

/// A uniform draw from `pool` without `x` (`None` if nothing else is there).
fn pick_except(rng: &mut SimRng, pool: &[u32], x: u32) -> Option<u32> {
    let pos = pool.iter().position(|&v| v == x);
    let n = pool.len() - pos.is_some() as usize;
    if n == 0 {
        return None;
    }
    let mut i = rng.gen_range(0..n);
    if pos.is_some_and(|p| i >= p) {
        i += 1;
    }
    Some(pool[i])
}

impl Simulation {
    /// Event `Generate`: generator `g` opens a flow (for `user`, or open loop).
    pub(super) fn generate(&mut self, g: u32, user: u32) {
        let now = self.core.sched.now();
        let st = &mut self.gens[g as usize];
        if !st.may_open(now) {
            if user == u32::MAX {
                st.exhausted = true;
            } else {
                st.user_stops();
            }
            return;
        }
        let k = st.opened;
        st.opened += 1;
        let size = (st.spec.size.sample(&mut st.rng).round() as u64).max(1);
        let pair = st.pair(user);
        if user == u32::MAX {
            st.next_open_arrival(g, now, &mut self.core.sched);
        }
        let Some((src, dst)) = pair else {
            // No pair (validation rules it out): not opened.
            st.opened = k;
            return;
        };
        let rng = crate::rng::stream_of(self.seed, &["gen:", &st.spec.name, ":", itoa::Buffer::new().format(k)]);
        let (sender, mut agents) = st.spec.transport.build(rng, Some(size), 1);
        let kind = st.spec.transport.kind();
        let receiver_completes = st.spec.transport.receiver_completes();
        st.alive += 1;
        let slot = FlowSlot {
            name: Box::default(),
            kind,
            src,
            dst,
            start: now,
            stop: None,
            sender,
            receiver: RecvSlot::new(dst, agents.pop().expect("one receiver"), NO_RX),
            others: Vec::new(),
            seq_floor: self.core.sched.peek_seq(),
            dynf: Some(Box::new(DynFlow { gen: g, k, user, size, end: None, finished: false, last_delivery: None, receiver_completes })),
        };
        let stats = FlowStats { uid_floor: self.core.pool.next_uid(), since: now, ..Default::default() };
        let f = match self.free_slots.pop() {
            Some(f) => {
                self.flows[f as usize] = slot;
                self.core.flows[f as usize] = stats;
                f
            }
            None => {
                self.flows.push(slot);
                self.core.flows.push(stats);
                (self.flows.len() - 1) as u32
            }
        };
        self.flows_opened += 1;
        self.agent_call(f, 0, |a, ctx| a.start(ctx));
    }

    /// Handles what agents reported about their flows (completion, a finished sender) and
    /// the drops of watched flows.
    pub(super) fn flow_events(&mut self) {
        let mut events = std::mem::take(&mut self.core.flow_events);
        for &(f, ev) in &events {
            let Some(d) = self.flows[f as usize].dynf.as_mut() else { continue };
            match ev {
                FlowEvent::Complete(t) => {
                    if d.end.is_none() {
                        d.end = Some(t);
                        let (g, user) = (d.gen, d.user);
                        self.user_done(g, user, t);
                    }
                }
                FlowEvent::Finished(_) => {
                    d.finished = true;
                    if !d.receiver_completes {
                        self.core.flows[f as usize].watch = true;
                    }
                }
            }
            self.check_flow(f);
        }
        events.clear();
        self.core.flow_events = events;
        let mut resolved = std::mem::take(&mut self.core.flows.resolved);
        for &f in &resolved {
            self.check_flow(f);
        }
        resolved.clear();
        self.core.flows.resolved = resolved;
    }

    /// A watched flow's packet was delivered at `now`.
    #[cold]
    pub(super) fn dyn_delivered(&mut self, f: u32, now: Time) {
        if let Some(d) = self.flows[f as usize].dynf.as_mut() {
            d.last_delivery = Some(now);
            if self.core.flows[f as usize].watch {
                self.check_flow(f);
            }
        }
    }

    /// A closed-loop user's flow completed at `t`: it thinks, then opens the next.
    fn user_done(&mut self, g: u32, user: u32, t: Time) {
        if user == u32::MAX {
            return;
        }
        let st = &mut self.gens[g as usize];
        if let Arrivals::Closed { think, .. } = &st.spec.arrivals {
            let at = t.saturating_add(secs(think.sample(&mut st.rng)));
            if st.may_open(at) {
                self.core.sched.at(at.max(self.core.sched.now()), Event::Generate { gen: g, user });
            } else {
                // Past `stop` or `max_flows`: this user opens no more flows (the others may,
                // until they reach it too).
                st.user_stops();
            }
        }
    }

    /// Completes a datagram flow whose sender finished and whose every packet was
    /// delivered or dropped, and releases any flow that is complete and finished.
    fn check_flow(&mut self, f: u32) {
        let st = &self.core.flows[f as usize];
        let Some(d) = self.flows[f as usize].dynf.as_mut() else { return };
        if d.end.is_none() && d.finished && !d.receiver_completes {
            let (q, l) = st.forward_drops();
            if st.delivered_pkts + q + l >= st.sent_pkts {
                let end = d.last_delivery.unwrap_or(self.core.sched.now());
                d.end = Some(end);
                let (g, user) = (d.gen, d.user);
                self.user_done(g, user, end);
            }
        }
        let d = self.flows[f as usize].dynf.as_ref().unwrap();
        if d.end.is_some() && d.finished {
            self.release(f);
        }
    }

    /// Writes flow `f`'s completion row and frees its slot.
    fn release(&mut self, f: u32) {
        self.fct_row(f);
        self.merge_drops(f);
        let slot = &mut self.flows[f as usize];
        let d = slot.dynf.take().expect("a flow created during the run");
        slot.sender = Box::new(Idle);
        slot.receiver.set_agent(Box::new(Idle));
        slot.seq_floor = u64::MAX;
        self.core.flows[f as usize] = FlowStats { uid_floor: u64::MAX, ..Default::default() };
        self.gens[d.gen as usize].alive -= 1;
        self.free_slots.push(f);
    }

    /// Adds flow `f`'s drop sites to its generator's.
    pub(super) fn merge_drops(&mut self, f: u32) {
        let Some(d) = self.flows[f as usize].dynf.as_ref() else { return };
        let sites = &mut self.gens[d.gen as usize].drop_sites;
        for s in &self.core.flows[f as usize].drop_sites {
            match sites.iter_mut().find(|x| x.link == s.link && x.reason == s.reason && x.forward == s.forward) {
                Some(x) => {
                    x.pkts += s.pkts;
                    x.bytes += s.bytes;
                }
                None => sites.push(s.clone()),
            }
        }
    }

    /// Appends flow `f`'s row to the flow-completion table.
    pub(super) fn fct_row(&mut self, f: u32) {
        let slot = &self.flows[f as usize];
        let Some(d) = slot.dynf.as_ref() else { return };
        let st = &self.core.flows[f as usize];
        let summary = slot.sender.summary();
        let get = |k: &str| summary.iter().find(|(n, _)| *n == k).map(|(_, v)| *v).unwrap_or(f64::NAN);
        let r = &mut self.fct;
        r.gen.push(d.gen);
        r.k.push(d.k);
        r.user.push(d.user);
        r.src.push(slot.src);
        r.dst.push(slot.dst);
        r.size.push(d.size);
        r.start.push(slot.start);
        r.end.push(d.end.unwrap_or(Time::MAX));
        r.sent.push(st.sent_pkts);
        let (q, l) = st.forward_drops();
        r.lost.push(q + l);
        r.retransmitted.push(get("retransmitted_pkts"));
        r.timeouts.push(get("timeouts"));
        let holds = slot.receivers().map(|x| x.agent.holds_all()).try_fold(true, |all, h| h.map(|h| all && h));
        r.complete.push(d.end.is_some() && holds.unwrap_or(q + l == 0));
    }

    /// Whether the run has nothing left to do: every generator exhausted and no flow alive
    /// (for runs that stop when idle).
    pub(super) fn idle(&self) -> bool {
        self.gens.iter().all(|g| g.exhausted && g.alive == 0)
    }
}
