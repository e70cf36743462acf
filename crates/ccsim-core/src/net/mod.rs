//! Nodes, duplex point-to-point links (one [`LinkDir`] per direction, each with its egress
//! queue, optional loss model and statistics), and static shortest-path routing.
//!
//! A packet starts serialization when the transmitter is free (exact serialization time
//! `size·8/rate`, sub-nanosecond remainder carried) and arrives at the far node one
//! propagation delay after its last bit left: delivery time is exactly queueing +
//! serialization + propagation. Events: a `LinkArrive` per packet (only the head of each
//! link's propagation line is in the heap), plus a `TxEnd` only when packets wait for the
//! transmitter. An idle hop costs one event, a busy one two.
//!
//! Faster, with the same model: a link direction whose queue is a plain FIFO deciding on
//! arrival (DropTail) runs without any event of its own ([`lazy`]): the packet's whole
//! crossing is computed when it is offered, and only its arrival at the far node is an
//! event. And where that far node is a router whose next link is fed by this link alone
//! (a dumbbell's receiver-side access links, say), the packet is offered to the next link
//! at once, for its future arrival time (cut-through): a packet then costs one event per
//! shared queue it meets, plus one at its destination. A router whose links are all lazy
//! and where no flow ends takes those shared-queue arrivals in batches, one event per
//! look-ahead window ([`Network::node_arrive`]).

mod lazy;

use crate::engine::{Event, Scheduler};
use crate::loss::LossModel;
use crate::measure::{FlowStats, QueueStats};
use crate::packet::{Kind, PacketPool, PktId};
use crate::queue::{DropReason, Dropped, Queue};
use crate::units::{serialization, Time};
use lazy::{LazyFifo, Offer};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// No route.
pub const NO_ROUTE: u32 = u32::MAX;

/// A line's first packet, as a router's merge orders lines: (arrival time, start of
/// serialization on the line, event sequence number, line).
type LineHead = (Time, Time, u64, u32);

/// A batch router with at most this many incoming lines scans them all at each of its
/// events; one with more keeps those holding packets in a heap (see `Network::lines`).
const SCAN_LINES: usize = 24;

/// The steps of [`Network::warmup`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarmupStep {
    Restart,
    RestoreDrops,
}

pub struct Node {
    pub name: String,
}

/// One direction of a duplex link.
pub struct LinkDir {
    /// `"from->to"` with node names.
    pub name: String,
    /// The duplex link's name (as in the scenario).
    pub link_name: String,
    /// Whether this is the scenario's `a->b` direction.
    pub forward: bool,
    pub from: u32,
    pub to: u32,
    pub rate_bps: u64,
    pub delay: Time,
    pub queue: Box<dyn Queue>,
    pub loss: Option<Box<dyn LossModel>>,
    /// When the transmitter is free again.
    pub busy_until: Time,
    /// The queue's length in packets and bytes, mirrored here (no virtual call per query).
    pub qlen: usize,
    pub qbytes: u64,
    /// A `TxEnd` event is scheduled (packets wait for the transmitter).
    txend_pending: bool,
    /// `TxEnd` events in the heap made void by a departure taken early (see `enqueue`).
    void_txends: u32,
    rem: u64,
    pub stats: QueueStats,
    /// pcap capture of packets as they start serialization.
    pub capture: Option<Box<crate::trace::pcap::PcapWriter>>,
    /// Every drop on this direction, when a `drops` trace asks for it.
    pub drop_log: Option<Box<DropLog>>,
    /// Packets in propagation: (arrival time, event sequence number, packet, start of its
    /// serialization here), in order.
    in_flight: VecDeque<(Time, u64, PktId, Time)>,
    /// Set when this direction runs event-free (see [`lazy`]); `queue` then stays empty.
    lazy: Option<LazyFifo>,
    /// Lazy, and packets reaching the far node may be cut through to a next link.
    cut_ok: bool,
    /// `LinkArrive` events in the heap made void because their packets were handed to
    /// the far node's agent ahead of the clock (see [`Network::early`]).
    void_arrivals: u32,
}

impl LinkDir {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        link_name: String,
        forward: bool,
        from: u32,
        to: u32,
        rate_bps: u64,
        delay: Time,
        queue: Box<dyn Queue>,
        loss: Option<Box<dyn LossModel>>,
    ) -> Self {
        LinkDir {
            name,
            link_name,
            forward,
            from,
            to,
            rate_bps,
            delay,
            queue,
            loss,
            busy_until: 0,
            qlen: 0,
            qbytes: 0,
            txend_pending: false,
            void_txends: 0,
            rem: 0,
            stats: QueueStats::default(),
            capture: None,
            drop_log: None,
            in_flight: VecDeque::with_capacity(64),
            lazy: None,
            cut_ok: false,
            void_arrivals: 0,
        }
    }

    /// Offers packet `id` to this lazy direction at time `at` (not before any earlier
    /// offer). Returns the start of the packet's serialization and its arrival time at
    /// the far node, or `None` if it was refused or lost (and freed).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn admit(&mut self, ld: u32, now: Time, at: Time, id: PktId, pool: &mut PacketPool, flows: &mut [FlowStats]) -> Option<(Time, Time)> {
        let lz = self.lazy.as_mut().expect("admit on a lazy link");
        let p = pool.get(id);
        let o = Offer { now, at, size: p.size, flow: p.flow, forward: p.kind != Kind::Ack };
        if at >= self.busy_until {
            // The transmitter is free: the common case of a lightly loaded link.
            let (rate, rem, loss) = (self.rate_bps, &mut self.rem, &mut self.loss);
            let tx_lost = || {
                let tx = serialization(o.size, rate, rem);
                let lost = match loss.as_mut() {
                    Some(m) => m.lose(at + tx, pool.get(id)),
                    None => false,
                };
                (tx, lost)
            };
            let decided = lz.offer_idle(&o, tx_lost, &mut self.stats, flows, ld);
            return match decided {
                Some((tx, false)) => {
                    self.busy_until = at + tx;
                    Some((at, at + tx + self.delay))
                }
                Some((tx, true)) => {
                    self.busy_until = at + tx;
                    pool.free(id);
                    None
                }
                None => {
                    pool.free(id);
                    None
                }
            };
        }
        let Some(start) = lz.offer(&o, self.busy_until, &mut self.stats, flows, ld) else {
            pool.free(id);
            return None;
        };
        let tx = serialization(o.size, self.rate_bps, &mut self.rem);
        let done = start + tx;
        self.busy_until = done;
        let lost = match self.loss.as_mut() {
            Some(m) => m.lose(done, pool.get(id)),
            None => false,
        };
        lz.transmitted(&o, start, tx, lost, &mut self.stats, flows, ld);
        if lost {
            pool.free(id);
            return None;
        }
        Some((start, done + self.delay))
    }
}

/// A log of drops: time, flow, sequence number, reason, size.
#[derive(Default)]
pub struct DropLog {
    pub time: Vec<f64>,
    pub flow: Vec<f64>,
    pub seq: Vec<f64>,
    pub reason: Vec<f64>,
    pub size: Vec<f64>,
}

impl DropLog {
    pub fn push(&mut self, now: Time, p: &crate::packet::Packet, reason: DropReason) {
        self.push_parts(now, p.flow, p.seq, reason, p.size)
    }

    pub fn push_parts(&mut self, now: Time, flow: u32, seq: u64, reason: DropReason, size: u32) {
        self.time.push(now as f64 / 1e9);
        self.flow.push(flow as f64);
        self.seq.push(seq as f64);
        self.reason.push(reason as u8 as f64);
        self.size.push(size as f64);
    }

    pub fn into_table(self) -> crate::measure::Table {
        use crate::measure::Column;
        let mut t = crate::measure::Table::default();
        t.push("time", Column::F64(self.time));
        t.push("flow", Column::F64(self.flow));
        t.push("seq", Column::F64(self.seq));
        t.push("reason", Column::F64(self.reason));
        t.push("size", Column::F64(self.size));
        t
    }
}

/// The static network: nodes, link directions, routes.
pub struct Network {
    pub nodes: Vec<Node>,
    pub links: Vec<LinkDir>,
    /// `next_hop[node * n + dst]` = outgoing link direction, or [`NO_ROUTE`].
    next_hop: Vec<u32>,
    /// For a node with a single outgoing link (a host): that link, used without a table
    /// look-up (the n×n table does not fit in cache for large topologies).
    sole_link: Vec<u32>,
    /// For a lazy direction fed by exactly one other lazy direction (over the routes of
    /// every flow, both ways) and by no local source: that feeder; else [`NO_ROUTE`].
    fed_by: Vec<u32>,
    /// Batch routers (see [`Network::node_arrive`]): per node, its incoming directions
    /// (empty for other nodes), the look-ahead (smallest incoming delay), the time of
    /// its pending `NodeArrive` event (`Time::MAX`: none), and its incoming lines that
    /// hold packets, by their first packet's (arrival, start of serialization, sequence
    /// number): a router's lines merged in the order events would run the arrivals.
    batch_in: Vec<Vec<u32>>,
    lookahead: Vec<Time>,
    node_next: Vec<Time>,
    lines: Vec<BinaryHeap<Reverse<LineHead>>>,
    batch_buf: Vec<(Time, PktId)>,
    scan_buf: Vec<(Time, Time, u64, PktId)>,
    /// Nodes whose agent may take packets ahead of the clock (set by the simulation).
    early_node: Vec<bool>,
    /// Packets for such nodes, decided to arrive at `.0` (with the event sequence number
    /// they would have had, `.1`) over direction `.2`, packet `.3`, having started
    /// serialization there at `.4`: the simulation hands them to the agent after the
    /// current event, or puts them back on the event path ([`Network::arrive_later`]).
    pub early: Vec<(Time, u64, u32, PktId, Time)>,
    /// No queue statistics are read before this instant (set by the simulation: the next
    /// queue-trace sample, the end of warm-up or of the run), so a lazy direction may
    /// forget crossings that end by then, or by the offer being decided if earlier.
    read_horizon: Time,
    dropped: Dropped,
}

impl Network {
    pub fn new(nodes: Vec<Node>, links: Vec<LinkDir>) -> Self {
        let fed_by = vec![NO_ROUTE; links.len()];
        let n = nodes.len();
        let mut net = Network {
            nodes,
            links,
            next_hop: Vec::new(),
            sole_link: Vec::new(),
            fed_by,
            batch_in: vec![Vec::new(); n],
            lookahead: vec![0; n],
            node_next: vec![Time::MAX; n],
            lines: (0..n).map(|_| BinaryHeap::new()).collect(),
            batch_buf: Vec::new(),
            scan_buf: Vec::new(),
            early_node: vec![false; n],
            early: Vec::new(),
            read_horizon: 0,
            dropped: Vec::with_capacity(16),
        };
        net.compute_routes();
        let mut out_degree = vec![0u32; net.nodes.len()];
        net.sole_link = vec![NO_ROUTE; net.nodes.len()];
        for (i, l) in net.links.iter().enumerate() {
            out_degree[l.from as usize] += 1;
            net.sole_link[l.from as usize] = i as u32;
        }
        for (v, d) in out_degree.iter().enumerate() {
            if *d != 1 {
                net.sole_link[v] = NO_ROUTE;
            }
        }
        net
    }

    /// Turns on the event-free paths (see [`lazy`]): every direction with a plain FIFO
    /// queue becomes lazy, unless it is captured to pcap, logs its drops, or has its loss
    /// model's state traced (`traced`: directions with a queue trace); then cut-through is
    /// enabled where a lazy direction is the only feeder of the next one. `endpoints` are
    /// the flows' (source, sink) nodes: packets travel only between a flow's two ends,
    /// both ways, along the routes.
    pub fn enable_fast_paths(&mut self, endpoints: &[(u32, u32)], traced: &[u32]) {
        for (i, l) in self.links.iter_mut().enumerate() {
            let loss_traced = l.loss.is_some() && traced.contains(&(i as u32));
            let logged = l.capture.is_some() || l.drop_log.is_some();
            if let (Some(limit), false) = (l.queue.fifo_limit(), loss_traced || logged) {
                debug_assert_eq!(l.queue.len_pkts(), 0);
                l.lazy = Some(LazyFifo::new(limit));
            }
        }
        const UNUSED: u32 = NO_ROUTE - 1;
        let mut feeder = vec![UNUSED; self.links.len()];
        for &(a, b) in endpoints {
            for (s, d) in [(a, b), (b, a)] {
                let Some(path) = self.path(s, d) else { continue };
                for (i, &l) in path.iter().enumerate() {
                    // The first hop is fed by the node itself: never cut through to it.
                    let f = if i == 0 { NO_ROUTE } else { path[i - 1] };
                    let slot = &mut feeder[l as usize];
                    *slot = if *slot == UNUSED || *slot == f { f } else { NO_ROUTE };
                }
            }
        }
        for (o, &f) in feeder.iter().enumerate() {
            let single = f != UNUSED && f != NO_ROUTE;
            if single && self.links[o].lazy.is_some() && self.links[f as usize].lazy.is_some() {
                self.fed_by[o] = f;
                self.links[f as usize].cut_ok = true;
            }
        }
        // Batch routers: no flow ends there, every link in and out is lazy, and every
        // incoming link has a delay (the look-ahead).
        let n = self.nodes.len();
        let mut endpoint = vec![false; n];
        for &(a, b) in endpoints {
            endpoint[a as usize] = true;
            endpoint[b as usize] = true;
        }
        let mut ok = vec![true; n];
        let mut ins: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut look = vec![Time::MAX; n];
        for (i, l) in self.links.iter().enumerate() {
            let lazy = l.lazy.is_some();
            ok[l.from as usize] &= lazy;
            ok[l.to as usize] &= lazy && l.delay > 0;
            ins[l.to as usize].push(i as u32);
            look[l.to as usize] = look[l.to as usize].min(l.delay);
        }
        for v in 0..n {
            if ok[v] && !endpoint[v] && !ins[v].is_empty() {
                self.batch_in[v] = std::mem::take(&mut ins[v]);
                self.lookahead[v] = look[v];
            }
        }
    }

    /// A batch router's arrivals are due (event `NodeArrive`). Every packet on an incoming
    /// link arriving before `now + lookahead` is already in that link's propagation line
    /// (a packet not yet sent there arrives one link delay after it is, at the earliest),
    /// so they are all taken now, in order of arrival time (ties in the order the packets
    /// were sent on their last link, as events would run),
    /// each forwarded at its own arrival time; the next event is set for the earliest
    /// arrival left. A router then costs one event per look-ahead window, not one per
    /// packet.
    pub fn node_arrive(&mut self, node: u32, sched: &mut Scheduler, pool: &mut PacketPool, flows: &mut [FlowStats]) {
        let now = sched.now();
        let v = node as usize;
        if self.node_next[v] != now {
            return; // superseded by an earlier event
        }
        self.node_next[v] = Time::MAX;
        let horizon = now + self.lookahead[v];
        let mut batch = std::mem::take(&mut self.batch_buf);
        batch.clear();
        let mut next = Time::MAX;
        // Simultaneous arrivals come in the order events would run them: by when they
        // started serialization on their last link (a packet's arrival event is scheduled
        // then), then in scheduling order. A router with few lines scans them all and
        // sorts; one with many merges the lines that hold packets through a heap.
        if self.batch_in[v].len() <= SCAN_LINES {
            let mut sorted = std::mem::take(&mut self.scan_buf);
            sorted.clear();
            for &f in &self.batch_in[v] {
                let l = &mut self.links[f as usize];
                while let Some(&(at, seq, id, start)) = l.in_flight.front() {
                    if at >= horizon {
                        next = next.min(at);
                        break;
                    }
                    sorted.push((at, start, seq, id));
                    l.in_flight.pop_front();
                }
                if let Some(lz) = l.lazy.as_mut() {
                    lz.prune(now);
                }
            }
            sorted.sort_unstable_by_key(|&(at, start, seq, _)| (at, start, seq));
            batch.extend(sorted.iter().map(|&(at, _, _, id)| (at, id)));
            self.scan_buf = sorted;
        } else {
            let lines = &mut self.lines[v];
            while let Some(&Reverse((at, _, _, f))) = lines.peek() {
                if at >= horizon {
                    next = at;
                    break;
                }
                lines.pop();
                let l = &mut self.links[f as usize];
                let (_, _, id, _) = l.in_flight.pop_front().expect("a line in the heap holds packets");
                batch.push((at, id));
                if let Some(&(a, seq, _, start)) = l.in_flight.front() {
                    lines.push(Reverse((a, start, seq, f)));
                }
                if let Some(lz) = l.lazy.as_mut() {
                    lz.prune(now);
                }
            }
        }
        for &(at, id) in &batch {
            let out = self.route(node, pool.get(id).dst);
            self.enqueue_lazy(out, at, id, sched, pool, flows);
        }
        self.batch_buf = batch;
        if next < self.node_next[v] {
            self.node_next[v] = next;
            sched.at(next, Event::NodeArrive { node });
        }
    }

    /// Direction `ld`'s statistics and queue length (packets, bytes) as of `now`.
    pub fn queue_view(&self, ld: u32, now: Time) -> (QueueStats, usize, u64) {
        let l = &self.links[ld as usize];
        match &l.lazy {
            Some(lz) => lz.view(now, &l.stats),
            None => (l.stats.clone(), l.qlen, l.qbytes),
        }
    }

    /// End of warm-up at `now`, in three steps around the flows' own reset: `Restart`
    /// restarts every direction's statistics; after the flows were reset, `RestoreDrops`
    /// gives them back the drops lazy directions have already decided for after `now`.
    pub fn warmup(&mut self, now: Time, flows: &mut [FlowStats], step: WarmupStep) {
        for (i, l) in self.links.iter_mut().enumerate() {
            match (&mut l.lazy, step) {
                (Some(lz), WarmupStep::Restart) => {
                    lz.prune(now);
                    lz.reset(now, &mut l.stats);
                }
                (Some(lz), WarmupStep::RestoreDrops) => lz.flow_drops_after(now, flows, i as u32, true),
                (None, WarmupStep::Restart) => l.stats.reset(now, l.qlen, l.qbytes),
                (None, WarmupStep::RestoreDrops) => {}
            }
        }
    }

    /// End of the run at `now`: lazy directions take back everything decided for later.
    pub fn finish(&mut self, now: Time, flows: &mut [FlowStats]) {
        for (i, l) in self.links.iter_mut().enumerate() {
            if let Some(lz) = l.lazy.as_mut() {
                lz.prune(now);
                let (s, p, b) = lz.view(now, &l.stats);
                (l.stats, l.qlen, l.qbytes) = (s, p, b);
                lz.flow_drops_after(now, flows, i as u32, false);
            }
        }
    }

    /// Shortest paths by hop count (BFS from every destination over reversed links).
    /// Ties go to the lowest-numbered link direction, so routes are deterministic.
    fn compute_routes(&mut self) {
        let n = self.nodes.len();
        self.next_hop = vec![NO_ROUTE; n * n];
        // incoming[v] = link dirs ending at v, in index order.
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, l) in self.links.iter().enumerate() {
            incoming[l.to as usize].push(i as u32);
        }
        let mut dist = vec![u32::MAX; n];
        let mut queue = VecDeque::new();
        for dst in 0..n {
            dist.iter_mut().for_each(|d| *d = u32::MAX);
            dist[dst] = 0;
            queue.clear();
            queue.push_back(dst);
            while let Some(v) = queue.pop_front() {
                for &li in &incoming[v] {
                    let u = self.links[li as usize].from as usize;
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v] + 1;
                        self.next_hop[u * n + dst] = li;
                        queue.push_back(u);
                    }
                }
            }
        }
    }

    /// The link direction `node` uses towards `dst`.
    #[inline]
    pub fn route(&self, node: u32, dst: u32) -> u32 {
        let sole = self.sole_link[node as usize];
        if sole != NO_ROUTE && node != dst {
            return sole;
        }
        self.next_hop[node as usize * self.nodes.len() + dst as usize]
    }

    /// Hop-by-hop path from `src` to `dst` (link direction indices), if connected.
    pub fn path(&self, src: u32, dst: u32) -> Option<Vec<u32>> {
        let mut path = Vec::new();
        let mut at = src;
        while at != dst {
            let l = self.route(at, dst);
            if l == NO_ROUTE || path.len() > self.nodes.len() {
                return None;
            }
            path.push(l);
            at = self.links[l as usize].to;
        }
        Some(path)
    }

    /// Offers packet `id` to link direction `ld`'s queue at time `at`; starts
    /// transmission if idle. `at` is later than now only on a lazy direction (a packet
    /// sent by an agent ahead of the clock).
    #[inline]
    pub fn enqueue_at(&mut self, ld: u32, at: Time, id: PktId, sched: &mut Scheduler, pool: &mut PacketPool, flows: &mut [FlowStats]) {
        if self.links[ld as usize].lazy.is_some() {
            return self.enqueue_lazy(ld, at, id, sched, pool, flows);
        }
        let now = sched.now();
        debug_assert_eq!(at, now, "only a lazy direction takes a packet ahead of the clock");
        let link = &mut self.links[ld as usize];
        if link.txend_pending && link.busy_until <= now {
            // A departure due at this very instant goes before the arrival (the rule of the
            // lazy links too); the `TxEnd` already in the heap is then void.
            link.txend_pending = false;
            link.void_txends += 1;
            Self::start_tx(link, ld, sched, pool, flows);
        }
        let size = pool.get(id).size;
        link.stats.on_arrival(now, link.qlen, link.qbytes, size);
        // Fast path: an idle link with an empty pass-through queue (DropTail) sends the
        // packet at once; going through enqueue + dequeue would change nothing.
        if link.qlen == 0 && !link.txend_pending && now >= link.busy_until && link.queue.passes_through_when_empty(size) {
            // Exactly the accounting of enqueue + immediate dequeue.
            link.stats.note_len(1, size as u64);
            link.stats.on_departure(now, 1, size as u64, size);
            Self::transmit(link, ld, id, size, sched, pool, flows);
            return;
        }
        self.dropped.clear();
        link.queue.enqueue(now, id, pool, &mut self.dropped);
        // Mirror the queue's length without asking it (every packet leaves a queue by
        // `dequeue` or in `dropped`: the trait's contract).
        link.qlen += 1;
        link.qbytes += size as u64;
        for &(d, reason) in &self.dropped {
            let p = pool.get(d);
            link.qlen -= 1;
            link.qbytes -= p.size as u64;
            link.stats.on_drop(reason, p.size);
            if let Some(log) = link.drop_log.as_mut() {
                log.push(now, p, reason);
            }
            flows[p.flow as usize].on_drop(ld, reason, p);
            pool.free(d);
        }
        debug_assert_eq!((link.qlen, link.qbytes), (link.queue.len_pkts(), link.queue.len_bytes()));
        link.stats.note_len(link.qlen, link.qbytes);
        if !link.txend_pending {
            if now >= link.busy_until {
                Self::start_tx(link, ld, sched, pool, flows);
            } else if link.qlen > 0 {
                link.txend_pending = true;
                sched.at(link.busy_until, Event::TxEnd { link: ld });
            }
        }
    }

    /// [`Network::enqueue`] on a lazy direction, offered at `at` (now, or a batch router's
    /// arrival time): the crossing is decided at once, and the packet
    /// goes on through every next direction it alone feeds (each offered at the packet's
    /// arrival time there), until it meets a shared queue or its destination: only that
    /// arrival becomes an event.
    #[inline]
    fn enqueue_lazy(
        &mut self,
        mut ld: u32,
        mut at: Time,
        id: PktId,
        sched: &mut Scheduler,
        pool: &mut PacketPool,
        flows: &mut [FlowStats],
    ) {
        let now = sched.now();
        loop {
            let link = &mut self.links[ld as usize];
            // Everything ending by then is final: no later offer (at or after `at`) and
            // no reader (at or after the read horizon) can see it apart from its counts.
            // Taken ahead of the clock, `at` may be far beyond `now`.
            let settled = at.min(self.read_horizon).max(now);
            link.lazy.as_mut().unwrap().prune(settled);
            let Some((start, arr)) = link.admit(ld, settled, at, id, pool, flows) else { return };
            let (cut_ok, far, dst) = (link.cut_ok, link.to, pool.get(id).dst);
            if cut_ok && dst != far {
                let next = self.route(far, dst);
                if self.fed_by[next as usize] == ld {
                    ld = next;
                    at = arr;
                    continue;
                }
            }
            let link = &mut self.links[ld as usize];
            let to = link.to as usize;
            let seq = sched.next_seq();
            if self.early_node[to] && dst == far {
                self.early.push((arr, seq, ld, id, start));
                return;
            }
            if !self.batch_in[to].is_empty() {
                // Into a batch router's line: its `NodeArrive` event takes it.
                if link.in_flight.is_empty() && self.batch_in[to].len() > SCAN_LINES {
                    self.lines[to].push(Reverse((arr, start, seq, ld)));
                }
                link.in_flight.push_back((arr, seq, id, start));
                if arr < self.node_next[to] {
                    self.node_next[to] = arr;
                    sched.at(arr, Event::NodeArrive { node: to as u32 });
                }
                return;
            }
            if link.in_flight.is_empty() {
                sched.at_with_seq(arr, seq, Event::LinkArrive { link: ld });
            }
            link.in_flight.push_back((arr, seq, id, start));
            return;
        }
    }

    /// Starts serializing the next queued packet (the transmitter is free). The packet's
    /// whole crossing is decided now: the loss model is consulted (in transmission order,
    /// as at the end of serialization) and a surviving packet joins the propagation line
    /// with its arrival time `now + serialization + delay`. A `TxEnd` event is scheduled
    /// only if more packets wait, so an idle link costs one event per packet, not two.
    #[inline]
    fn start_tx(link: &mut LinkDir, ld: u32, sched: &mut Scheduler, pool: &mut PacketPool, flows: &mut [FlowStats]) {
        let now = sched.now();
        let (lp, lb) = (link.qlen, link.qbytes);
        let Some(id) = link.queue.dequeue(now, pool) else { return };
        let size = pool.get(id).size;
        link.qlen -= 1;
        link.qbytes -= size as u64;
        link.stats.on_departure(now, lp, lb, size);
        Self::transmit(link, ld, id, size, sched, pool, flows);
    }

    /// Serializes packet `id` (already out of the queue, departure counted) starting now.
    #[inline]
    fn transmit(link: &mut LinkDir, ld: u32, id: PktId, size: u32, sched: &mut Scheduler, pool: &mut PacketPool, flows: &mut [FlowStats]) {
        let now = sched.now();
        if let Some(cap) = link.capture.as_mut() {
            cap.record(now, link.from, link.to, pool.get(id));
        }
        let tx = serialization(size, link.rate_bps, &mut link.rem);
        link.stats.busy_ns += tx;
        let done = now + tx;
        link.busy_until = done;
        let lost = match link.loss.as_mut() {
            Some(m) => m.lose(done, pool.get(id)),
            None => false,
        };
        if lost {
            let p = pool.get(id);
            link.stats.on_drop(DropReason::Loss, p.size);
            if let Some(log) = link.drop_log.as_mut() {
                log.push(done, p, DropReason::Loss);
            }
            flows[p.flow as usize].on_drop(ld, DropReason::Loss, p);
            pool.free(id);
        } else {
            let at = done + link.delay;
            let seq = sched.next_seq();
            if link.in_flight.is_empty() {
                sched.at_with_seq(at, seq, Event::LinkArrive { link: ld });
            }
            link.in_flight.push_back((at, seq, id, now));
        }
        if link.qlen > 0 {
            link.txend_pending = true;
            sched.at(done, Event::TxEnd { link: ld });
        }
    }

    /// The transmitter of `ld` is free again and packets wait: start the next one.
    #[inline]
    pub fn tx_end(&mut self, ld: u32, sched: &mut Scheduler, pool: &mut PacketPool, flows: &mut [FlowStats]) {
        let link = &mut self.links[ld as usize];
        if link.void_txends > 0 {
            link.void_txends -= 1;
            return;
        }
        link.txend_pending = false;
        Self::start_tx(link, ld, sched, pool, flows);
    }

    /// The head of `ld`'s propagation line has arrived: returns (node, packet) and puts the
    /// next one, if any, in the event heap. `None` for a void event.
    #[inline]
    pub fn link_arrive(&mut self, ld: u32, sched: &mut Scheduler) -> Option<(u32, PktId)> {
        let link = &mut self.links[ld as usize];
        if link.void_arrivals > 0 {
            link.void_arrivals -= 1;
            return None;
        }
        if let Some(lz) = link.lazy.as_mut() {
            lz.prune(sched.now());
        }
        let (_, _, id, _) = link.in_flight.pop_front().expect("LinkArrive without a packet in flight");
        if let Some(&(at, seq, _, _)) = link.in_flight.front() {
            sched.at_with_seq(at, seq, Event::LinkArrive { link: ld });
        }
        Some((link.to, id))
    }

    /// See [`Network::read_horizon`].
    pub fn set_read_horizon(&mut self, t: Time) {
        self.read_horizon = t;
    }

    /// Lets node `v`'s agent take packets ahead of the clock: its only incoming and
    /// outgoing directions must be lazy (checked by the caller).
    pub fn set_early_node(&mut self, v: u32) {
        self.early_node[v as usize] = true;
    }

    /// The only incoming and outgoing directions of node `v`, if both are lazy.
    pub fn lazy_host_links(&self, v: u32) -> Option<(u32, u32)> {
        let out = self.sole_link[v as usize];
        if out == NO_ROUTE || self.links[out as usize].lazy.is_none() {
            return None;
        }
        let mut ins = self.links.iter().enumerate().filter(|(_, l)| l.to == v);
        match (ins.next(), ins.next()) {
            (Some((i, l)), None) if l.lazy.is_some() => Some((i as u32, out)),
            _ => None,
        }
    }

    /// Packets on `ld`'s propagation line (still to arrive by event), oldest first.
    #[inline]
    pub fn in_flight_front(&self, ld: u32) -> Option<(Time, u64, PktId, Time)> {
        self.links[ld as usize].in_flight.front().copied()
    }

    /// Takes the head of `ld`'s line to hand it over ahead of its event: the first call
    /// for a line makes its pending `LinkArrive` event void (`first`).
    #[inline]
    pub fn take_in_flight(&mut self, ld: u32, first: bool) -> Option<(Time, u64, PktId, Time)> {
        let link = &mut self.links[ld as usize];
        if first {
            link.void_arrivals += 1;
        }
        link.in_flight.pop_front()
    }

    /// After [`Network::take_in_flight`] stopped with packets left: the new head's event.
    pub fn rearm_in_flight(&mut self, ld: u32, sched: &mut Scheduler) {
        if let Some(&(at, seq, _, _)) = self.links[ld as usize].in_flight.front() {
            sched.at_with_seq(at, seq, Event::LinkArrive { link: ld });
        }
    }

    /// Puts a packet of [`Network::early`] back on the event path: it arrives by a
    /// `LinkArrive` event at `at`, as it would have without the early hand-over.
    #[inline]
    pub fn arrive_later(&mut self, ld: u32, at: Time, seq: u64, id: PktId, start: Time, sched: &mut Scheduler) {
        let link = &mut self.links[ld as usize];
        if link.in_flight.is_empty() {
            sched.at_with_seq(at, seq, Event::LinkArrive { link: ld });
        }
        link.in_flight.push_back((at, seq, id, start));
    }
}
