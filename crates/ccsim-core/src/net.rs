//! Nodes, duplex point-to-point links (one [`LinkDir`] per direction, each with its egress
//! queue, optional loss model and statistics), and static shortest-path routing.
//!
//! A packet crossing a link direction costs two events: `TxEnd` when its last bit leaves the
//! sender (exact serialization time `size·8/rate`, sub-nanosecond remainder carried), and
//! `Arrive` at the far node one propagation delay later. Delivery time is therefore exactly
//! queueing + serialization + propagation.

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
    /// The packet being serialized, if any.
    pub in_tx: Option<PktId>,
    rem: u64,
    pub stats: QueueStats,
    /// pcap capture of packets as they start serialization.
    pub capture: Option<Box<crate::trace::pcap::PcapWriter>>,
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
            in_tx: None,
            rem: 0,
            stats: QueueStats::default(),
            capture: None,
        }
    }
}

/// The static network: nodes, link directions, routes.
pub struct Network {
    pub nodes: Vec<Node>,
    pub links: Vec<LinkDir>,
    /// `next_hop[node * n + dst]` = outgoing link direction, or [`NO_ROUTE`].
    next_hop: Vec<u32>,
    dropped: Dropped,
}

impl Network {
    pub fn new(nodes: Vec<Node>, links: Vec<LinkDir>) -> Self {
        let mut net = Network { nodes, links, next_hop: Vec::new(), dropped: Vec::with_capacity(16) };
        net.compute_routes();
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
        link.stats.on_arrival(now, link.queue.len_pkts(), link.queue.len_bytes(), size);
        self.dropped.clear();
        link.queue.enqueue(now, id, pool, &mut self.dropped);
        link.stats.note_len(link.queue.len_pkts(), link.queue.len_bytes());
        for &(d, reason) in &self.dropped {
            let p = pool.get(d);
            link.stats.on_drop(reason, p.size);
            flows[p.flow as usize].on_drop(ld, reason, p);
            pool.free(d);
        }
        if link.in_tx.is_none() {
            Self::start_tx(link, ld, sched, pool);
        }
    }

    #[inline]
    fn start_tx(link: &mut LinkDir, ld: u32, sched: &mut Scheduler, pool: &PacketPool) {
        let now = sched.now();
        let (lp, lb) = (link.queue.len_pkts(), link.queue.len_bytes());
        if let Some(id) = link.queue.dequeue(now, pool) {
            let size = pool.get(id).size;
            link.stats.on_departure(now, lp, lb, size);
            if let Some(cap) = link.capture.as_mut() {
                cap.record(now, link.from, link.to, pool.get(id));
            }
            let tx = serialization(size, link.rate_bps, &mut link.rem);
            link.stats.busy_ns += tx;
            link.in_tx = Some(id);
            sched.after(tx, Event::TxEnd { link: ld });
        }
    }

    /// The packet in serialization on `ld` has left: apply the loss model, propagate it,
    /// and start the next transmission.
    #[inline]
    pub fn tx_end(&mut self, ld: u32, sched: &mut Scheduler, pool: &mut PacketPool, flows: &mut [FlowStats]) {
        let now = sched.now();
        let link = &mut self.links[ld as usize];
        let id = link.in_tx.take().expect("TxEnd without a packet in transmission");
        let lost = match link.loss.as_mut() {
            Some(m) => m.lose(now, pool.get(id)),
            None => false,
        };
        if lost {
            let p = pool.get(id);
            link.stats.on_drop(DropReason::Loss, p.size);
            flows[p.flow as usize].on_drop(ld, DropReason::Loss, p);
            pool.free(id);
        } else {
            sched.after(link.delay, Event::Arrive { node: link.to, pkt: id });
        }
        Self::start_tx(link, ld, sched, pool);
    }
}
