//! Nodes, duplex point-to-point links (one [`LinkDir`] per direction, each with its egress
//! queue, optional loss model and statistics), and static shortest-path routing.
//!
//! A packet starts serialization when the transmitter is free (exact serialization time
//! `size·8/rate`, sub-nanosecond remainder carried) and arrives at the far node one
//! propagation delay after its last bit left: delivery time is exactly queueing +
//! serialization + propagation. Events: a `LinkArrive` per packet (only the head of each
//! link's propagation line is in the heap), plus a `TxEnd` only when packets wait for the
//! transmitter. An idle hop costs one event, a busy one two.

use crate::engine::{Event, Scheduler};
use crate::loss::LossModel;
use crate::measure::{FlowStats, QueueStats};
use crate::packet::{PacketPool, PktId};
use crate::queue::{DropReason, Dropped, Queue};
use crate::units::{serialization, Time};
use std::collections::VecDeque;

/// No route.
pub const NO_ROUTE: u32 = u32::MAX;

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
    rem: u64,
    pub stats: QueueStats,
    /// pcap capture of packets as they start serialization.
    pub capture: Option<Box<crate::trace::pcap::PcapWriter>>,
    /// Every drop on this direction, when a `drops` trace asks for it.
    pub drop_log: Option<Box<DropLog>>,
    /// Packets in propagation: (arrival time, event sequence number, packet), in order.
    in_flight: VecDeque<(Time, u64, PktId)>,
}

impl LinkDir {
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
            rem: 0,
            stats: QueueStats::default(),
            capture: None,
            drop_log: None,
            in_flight: VecDeque::with_capacity(64),
        }
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
        self.time.push(now as f64 / 1e9);
        self.flow.push(p.flow as f64);
        self.seq.push(p.seq as f64);
        self.reason.push(reason as u8 as f64);
        self.size.push(p.size as f64);
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
    dropped: Dropped,
}

impl Network {
    pub fn new(nodes: Vec<Node>, links: Vec<LinkDir>) -> Self {
        let mut net = Network { nodes, links, next_hop: Vec::new(), sole_link: Vec::new(), dropped: Vec::with_capacity(16) };
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

    /// Offers packet `id` to link direction `ld`'s queue; starts transmission if idle.
    #[inline]
    pub fn enqueue(
        &mut self,
        ld: u32,
        id: PktId,
        sched: &mut Scheduler,
        pool: &mut PacketPool,
        flows: &mut [FlowStats],
    ) {
        let now = sched.now();
        let link = &mut self.links[ld as usize];
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
            link.in_flight.push_back((at, seq, id));
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
        link.txend_pending = false;
        Self::start_tx(link, ld, sched, pool, flows);
    }

    /// The head of `ld`'s propagation line has arrived: returns (node, packet) and puts the
    /// next one, if any, in the event heap.
    #[inline]
    pub fn link_arrive(&mut self, ld: u32, sched: &mut Scheduler) -> (u32, PktId) {
        let link = &mut self.links[ld as usize];
        let (_, _, id) = link.in_flight.pop_front().expect("LinkArrive without a packet in flight");
        if let Some(&(at, seq, _)) = link.in_flight.front() {
            sched.at_with_seq(at, seq, Event::LinkArrive { link: ld });
        }
        (link.to, id)
    }
}
