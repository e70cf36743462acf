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
//! arrival (DropTail) runs without any event of its own (`net/lazy.rs`): the packet's whole
//! crossing is computed when it is offered, and only its arrival at the far node is an
//! event. And where that far node is a router whose next link is fed by this link alone
//! (a dumbbell's receiver-side access links, say), the packet is offered to the next link
//! at once, for its future arrival time (cut-through): a packet then costs one event per
//! shared queue it meets, plus one at its destination. A router whose links are all lazy
//! and where no flow ends takes those shared-queue arrivals in batches, one event per
//! look-ahead window ([`Network::node_arrive`]).

mod fast;
mod inbox;
mod lazy;
mod link;
mod ring;
mod router;
mod routing;

pub use crate::trace::log::{DropLog, PacketLog};
pub(crate) use link::FarAgent;
pub use link::LinkDir;
pub use router::{InboxPolicy, INBOX_LINES_PER_PACKET, INBOX_MIN_LINES, INBOX_START_LINES, REVIEW_WINDOWS, SCAN_LINES_PER_PACKET};
pub use routing::{MulticastTree, Routes, BRANCH};

use crate::engine::{Event, Scheduler};
use crate::measure::{FlowTable, QueueStats};
use crate::packet::{PacketPool, PktId};
use crate::queue::{DropReason, Dropped};
use crate::units::Time;
use link::CUT_TO_HOST;
use router::BatchRouter;

/// No route.
pub const NO_ROUTE: u32 = u32::MAX;

/// A packet for a host that takes packets ahead of the clock (see [`Network::early`]).
pub type EarlyPacket = (Time, u64, u32, PktId, Time);

/// The steps of [`Network::warmup`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarmupStep {
    Restart,
    RestoreDrops,
}

pub struct Node {
    pub name: String,
}

/// Per node, the link directions at it (leaving it, or reaching it), in index order: one
/// flat list with each node's range (two allocations for the whole world, not two per node).
#[derive(Default)]
struct Adjacency {
    /// Node `v`'s directions are `dirs[start[v]..start[v + 1]]`.
    start: Vec<u32>,
    dirs: Vec<u32>,
}

impl Adjacency {
    /// From each direction's node (`node_of[d]`, in direction order), over `n` nodes.
    fn new(n: usize, node_of: impl Iterator<Item = u32> + Clone) -> Self {
        let mut start = vec![0u32; n + 1];
        for v in node_of.clone() {
            start[v as usize + 1] += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut next = start.clone();
        let mut dirs = vec![0u32; start[n] as usize];
        for (d, v) in node_of.enumerate() {
            dirs[next[v as usize] as usize] = d as u32;
            next[v as usize] += 1;
        }
        Adjacency { start, dirs }
    }

    fn of(&self, v: u32) -> &[u32] {
        &self.dirs[self.start[v as usize] as usize..self.start[v as usize + 1] as usize]
    }
}

/// The static network: nodes, link directions, routes.
pub struct Network {
    pub nodes: Vec<Node>,
    pub links: Vec<LinkDir>,
    /// Unicast routes (see [`Routes`]).
    routes: Routes,
    /// For a lazy direction fed by exactly one other lazy direction (over the routes of
    /// every flow, both ways) and by no local source: that feeder; else [`NO_ROUTE`].
    fed_by: Vec<u32>,
    /// Batch routers (see [`Network::node_arrive`]), and per node its index there
    /// ([`NO_ROUTE`] for other nodes), and how they hold the packets on their way.
    routers: Vec<BatchRouter>,
    router_of: Vec<u32>,
    inbox_policy: InboxPolicy,
    batch_buf: Vec<router::Scanned>,
    /// What batch routers ask to be brought into the cache ahead of use.
    prefetch: crate::prefetch::Level,
    /// Packets for such nodes, decided to arrive at `.0` (with the event sequence number
    /// they would have had, `.1`) over direction `.2`, packet `.3`, having started
    /// serialization there at `.4`: the simulation hands them to the agent after the
    /// current event, or puts them back on the event path ([`Network::arrive_later`]).
    pub early: Vec<EarlyPacket>,
    /// No queue statistics are read before this instant (set by the simulation: the next
    /// queue-trace sample, the end of warm-up or of the run), so a lazy direction may
    /// forget crossings that end by then, or by the offer being decided if earlier.
    read_horizon: Time,
    dropped: Dropped,
    removed: Vec<PktId>,
    /// Per node, its outgoing and incoming link directions.
    out_links: Adjacency,
    in_links: Adjacency,
    /// Multicast groups: group `g` has address `nodes.len() + g`.
    groups: Vec<routing::MulticastTree>,
    /// Flows below this index are the scenario's; those above were created during the run
    /// (their counters cover their whole life: warm-up does not restart them).
    pub static_flows: u32,
}

impl Network {
    pub fn new(nodes: Vec<Node>, links: Vec<LinkDir>) -> Self {
        let fed_by = vec![NO_ROUTE; links.len()];
        let n = nodes.len();
        let mut net = Network {
            nodes,
            links,
            routes: Routes::default(),
            fed_by,
            routers: Vec::new(),
            router_of: vec![NO_ROUTE; n],
            inbox_policy: InboxPolicy::Adaptive,
            batch_buf: Vec::new(),
            prefetch: crate::prefetch::Level::None,
            early: Vec::new(),
            read_horizon: 0,
            dropped: Vec::with_capacity(16),
            removed: Vec::new(),
            out_links: Adjacency::default(),
            in_links: Adjacency::default(),
            groups: Vec::new(),
            static_flows: u32::MAX,
        };
        net.compute_routes();
        net.out_links = Adjacency::new(n, net.links.iter().map(|l| l.from));
        net.in_links = Adjacency::new(n, net.links.iter().map(|l| l.to));
        net
    }

    /// [`Network::enqueue_at`] now, for packets leaving node elements: kept out of line so
    /// that the hot paths without elements stay as the compiler inlined them before.
    #[inline(never)]
    pub fn enqueue_now(&mut self, ld: u32, id: PktId, sched: &mut Scheduler, pool: &mut PacketPool, flows: &mut FlowTable) {
        let now = sched.now();
        self.enqueue_at(ld, now, id, sched, pool, flows)
    }

    /// Takes the packets for which `pred` holds out of event-driven direction `ld`'s queue
    /// at `now` (by a node element), accounting each as a drop for `reason` on `ld` (queue
    /// statistics, the flow's drop sites, the drop log) and freeing it. Returns how many
    /// were removed, or `None` if the direction's discipline cannot remove packets or the
    /// direction runs event-free.
    pub fn remove_where(
        &mut self,
        ld: u32,
        now: Time,
        pred: &mut dyn FnMut(&crate::packet::Packet) -> bool,
        reason: DropReason,
        pool: &mut PacketPool,
        flows: &mut FlowTable,
    ) -> Option<usize> {
        let link = &mut self.links[ld as usize];
        if link.lazy.is_some() {
            return None;
        }
        let mut removed = std::mem::take(&mut self.removed);
        removed.clear();
        let ok = link.queue.remove_where(pool, pred, &mut removed);
        for &id in &removed {
            let p = pool.get(id);
            link.stats.on_remove(now, link.qlen, link.qbytes, reason, p.size);
            if p.dscp != 0 {
                link.stats.class_drop(p.dscp, p.size, true, reason);
            }
            link.qlen -= 1;
            link.qbytes -= p.size as u64;
            if let Some(log) = link.drop_log.as_mut() {
                log.push(now, p, reason);
            }
            if let Some(log) = link.packet_log.as_mut() {
                log.push(now, PacketLog::DROP, p, Some(reason));
            }
            flows.drop_packet(ld, reason, p);
            pool.free(id);
        }
        debug_assert_eq!((link.qlen, link.qbytes), (link.queue.len_pkts(), link.queue.len_bytes()));
        let n = removed.len();
        self.removed = removed;
        ok.then_some(n)
    }

    /// The outgoing link directions of `node`, in index order.
    pub fn out_links(&self, node: u32) -> &[u32] {
        self.out_links.of(node)
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
    pub fn warmup(&mut self, now: Time, flows: &mut FlowTable, step: WarmupStep) {
        let static_flows = self.static_flows;
        for (i, l) in self.links.iter_mut().enumerate() {
            match (&mut l.lazy, step) {
                (Some(lz), WarmupStep::Restart) => {
                    lz.prune(now);
                    lz.reset(now, &mut l.stats);
                }
                (Some(lz), WarmupStep::RestoreDrops) => lz.flow_drops_after(now, flows, i as u32, true, static_flows),
                (None, WarmupStep::Restart) => l.stats.reset(now, l.qlen, l.qbytes),
                (None, WarmupStep::RestoreDrops) => {}
            }
        }
    }

    /// End of the run at `now`: lazy directions take back everything decided for later.
    pub fn finish(&mut self, now: Time, flows: &mut FlowTable) {
        for (i, l) in self.links.iter_mut().enumerate() {
            if let Some(lz) = l.lazy.as_mut() {
                lz.prune(now);
                lz.fold(&mut l.stats);
                let (s, p, b) = lz.view(now, &l.stats);
                (l.stats, l.qlen, l.qbytes) = (s, p, b);
                lz.flow_drops_after(now, flows, i as u32, false, self.static_flows);
            }
        }
    }

    /// Offers packet `id` to link direction `ld`'s queue at time `at`; starts
    /// transmission if idle. `at` is later than now only on a lazy direction (a packet
    /// sent by an agent ahead of the clock).
    #[inline(always)]
    pub fn enqueue_at(&mut self, ld: u32, at: Time, id: PktId, sched: &mut Scheduler, pool: &mut PacketPool, flows: &mut FlowTable) {
        let link = &self.links[ld as usize];
        if link.lazy.is_some() {
            if link.send_fast {
                return self.send_lazy(ld, at, id, sched, pool, flows);
            }
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
        let (size, dscp) = {
            let p = pool.get(id);
            (p.size, p.dscp)
        };
        link.stats.on_arrival(now, link.qlen, link.qbytes, size);
        if dscp != 0 {
            link.stats.class_arrival(dscp, size, true);
        }
        if let Some(log) = link.packet_log.as_mut() {
            log.push(now, PacketLog::ENQUEUE, pool.get(id), None);
        }
        // Fast path: an idle link with an empty pass-through queue (DropTail) sends the
        // packet at once; going through enqueue + dequeue would change nothing.
        if link.qlen == 0 && !link.txend_pending && now >= link.busy_until && link.queue.passes_through_when_empty(size) {
            // Exactly the accounting of enqueue + immediate dequeue.
            link.stats.note_len(1, size as u64);
            link.stats.on_departure(now, 1, size as u64, size);
            if dscp != 0 {
                link.stats.class_departure(dscp, size, true);
            }
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
            if p.dscp != 0 {
                link.stats.class_drop(p.dscp, p.size, true, reason);
            }
            if let Some(log) = link.drop_log.as_mut() {
                log.push(now, p, reason);
            }
            if let Some(log) = link.packet_log.as_mut() {
                log.push(now, PacketLog::DROP, p, Some(reason));
            }
            flows.drop_packet(ld, reason, p);
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

    /// [`Network::enqueue_lazy`] for a packet offered by a node (an agent's send, or a
    /// node element's) to a direction into a batch router's line with no cut-through past
    /// it and no loss model ([`LinkDir::send_fast`]), with the commonest such crossing done
    /// here: a best-effort packet that finds the transmitter free, its whole crossing
    /// before any read (`at` at or before the read horizon or now). It does what `enqueue_lazy`'s first round does in that case, without its
    /// loop. Inlined into the senders (twenty-fifth session: S1 −2.9 % instructions against
    /// a call of its own); the other cases call `enqueue_lazy` through a wrapper held out
    /// of line, so that no build (a profile-guided one included) copies that large function
    /// into every sender. In the plain build the wrapper changes no count: `enqueue_lazy`
    /// stayed a call without it too.
    #[inline(always)]
    fn send_lazy(&mut self, ld: u32, at: Time, id: PktId, sched: &mut Scheduler, pool: &mut PacketPool, flows: &mut FlowTable) {
        debug_assert!(self.links[ld as usize].feeds_router_alone() && !self.links[ld as usize].far_early, "send_lazy on {ld}");
        let p = pool.get(id);
        let settled = self.settled_at(at, sched.now());
        let link = &mut self.links[ld as usize];
        if let Some(arr) = link.cross_alone(at, p.size, p.dscp, settled) {
            let seq = sched.next_seq();
            let to = link.to;
            let r = &mut self.routers[link.far_router as usize];
            r.push(link, (arr, at, seq, id, ld));
            if arr < r.next {
                r.next = arr;
                sched.at(arr, Event::NodeArrive { node: to });
            }
            return;
        }
        self.enqueue_lazy_outlined(ld, at, id, sched, pool, flows)
    }

    /// [`Network::enqueue_lazy`] out of line, for the inlined short paths' other cases.
    #[inline(never)]
    fn enqueue_lazy_outlined(&mut self, ld: u32, at: Time, id: PktId, sched: &mut Scheduler, pool: &mut PacketPool, flows: &mut FlowTable) {
        self.enqueue_lazy(ld, at, id, sched, pool, flows)
    }

    /// A batch router's packet onto its lazy outgoing direction `out`, offered at `at`
    /// (its arrival at the router). When `out` cuts through to a next hop known without
    /// a route lookup (a set direction, or the last hop into the packet's destination
    /// host) and the crossing of `out` is the commonest ([`LinkDir::cross_alone`]), that
    /// crossing is decided here and the packet goes on to the next hop (handed over at
    /// once if that is the last, into an early host); otherwise `enqueue_lazy` as before.
    /// The same as `enqueue_lazy`'s first round in that case, without its loop.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn forward_lazy(
        &mut self,
        out: u32,
        at: Time,
        id: PktId,
        now: Time,
        sched: &mut Scheduler,
        pool: &mut PacketPool,
        flows: &mut FlowTable,
    ) {
        let link = &self.links[out as usize];
        let p = pool.get(id);
        let (cut, dst) = (link.cut_next, p.dst);
        if cut <= CUT_TO_HOST && dst != link.to && at >= link.busy_until && self.settled_at(at, now) {
            let next = if cut == CUT_TO_HOST { self.routes.last_hop(dst) } else { cut };
            if next != NO_ROUTE {
                let (size, dscp) = (p.size, p.dscp);
                if let Some(arr) = self.links[out as usize].cross_alone(at, size, dscp, true) {
                    debug_assert_eq!(next, self.route(self.links[out as usize].to, dst), "cut-through from {out}");
                    if !self.hand_to_early_host(next, arr, id, dst, now, sched, pool) {
                        self.enqueue_lazy(next, arr, id, sched, pool, flows);
                    }
                    return;
                }
            }
        }
        self.enqueue_lazy(out, at, id, sched, pool, flows);
    }

    /// [`Network::enqueue`] on a lazy direction, offered at `at` (now, or a batch router's
    /// arrival time): the crossing is decided at once, and the packet
    /// goes on through every next direction it alone feeds (each offered at the packet's
    /// arrival time there), until it meets a shared queue or its destination: only that
    /// arrival becomes an event.
    #[inline]
    fn enqueue_lazy(&mut self, mut ld: u32, mut at: Time, id: PktId, sched: &mut Scheduler, pool: &mut PacketPool, flows: &mut FlowTable) {
        let now = sched.now();
        loop {
            let link = &mut self.links[ld as usize];
            // No reader looks before then (the read horizon, or the clock if later): a
            // crossing ending by then is final apart from its counts, so it leaves the
            // ledger or never enters it. (The queue walk keeps its own list.)
            let keep = self.read_horizon.max(now);
            link.lazy.as_mut().unwrap().prune(keep);
            let Some((start, arr)) = link.admit(ld, keep, at, id, pool, flows) else { return };
            let (cut, far, dst) = (link.cut_next, link.to, pool.get(id).dst);
            if cut != NO_ROUTE && dst != far {
                if cut < CUT_TO_HOST {
                    debug_assert_eq!(cut, self.route(far, dst), "cut-through from {ld}");
                    if self.hand_to_early_host(cut, arr, id, dst, now, sched, pool) {
                        return;
                    }
                    ld = cut;
                    at = arr;
                    continue;
                }
                // A group's address is no host: its packets take the lookup.
                let host = if cut == CUT_TO_HOST { self.routes.last_hop(dst) } else { NO_ROUTE };
                if host != NO_ROUTE {
                    debug_assert_eq!((host, self.fed_by[host as usize]), (self.route(far, dst), ld), "cut-through from {ld}");
                    if self.hand_to_early_host(host, arr, id, dst, now, sched, pool) {
                        return;
                    }
                    ld = host;
                    at = arr;
                    continue;
                }
                let next = self.route(far, dst);
                if next < BRANCH && self.fed_by[next as usize] == ld {
                    ld = next;
                    at = arr;
                    continue;
                }
            }
            let link = &mut self.links[ld as usize];
            let to = link.to as usize;
            let seq = sched.next_seq();
            if link.far_early && dst == far {
                self.early.push((arr, seq, ld, id, start));
                return;
            }
            let ri = link.far_router;
            if ri != NO_ROUTE {
                // Into a batch router's line or inbox: its `NodeArrive` event takes it.
                let r = &mut self.routers[ri as usize];
                r.push(link, (arr, start, seq, id, ld));
                if arr < r.next {
                    r.next = arr;
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

    /// Whether a crossing offered at `at` to a free transmitter is entirely before any
    /// read (`at` at or before the read horizon or now: `enqueue_lazy`'s `keep`), so that
    /// nothing of it is left for the ledger.
    #[inline(always)]
    fn settled_at(&self, at: Time, now: Time) -> bool {
        at <= self.read_horizon || at <= now
    }

    /// A packet cut through onto `ld` at `at`: if `ld` is the last hop into its destination
    /// `dst`, a host taking packets ahead of the clock, and the crossing the commonest
    /// ([`LinkDir::cross_alone`]), decides it and hands the packet over, as the next round
    /// of [`Network::enqueue_lazy`]'s loop would, and returns true.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn hand_to_early_host(&mut self, ld: u32, at: Time, id: PktId, dst: u32, now: Time, sched: &mut Scheduler, pool: &PacketPool) -> bool {
        let settled = self.settled_at(at, now);
        let link = &mut self.links[ld as usize];
        if !(link.far_early && link.to == dst) {
            return false;
        }
        let p = pool.get(id);
        let Some(arr) = link.cross_alone(at, p.size, p.dscp, settled) else { return false };
        let seq = sched.next_seq();
        self.early.push((arr, seq, ld, id, at));
        true
    }

    /// Starts serializing the next queued packet (the transmitter is free). The packet's
    /// whole crossing is decided now: the loss model is consulted (in transmission order,
    /// as at the end of serialization) and a surviving packet joins the propagation line
    /// with its arrival time `now + serialization + delay`. A `TxEnd` event is scheduled
    /// only if more packets wait, so an idle link costs one event per packet, not two.
    #[inline]
    fn start_tx(link: &mut LinkDir, ld: u32, sched: &mut Scheduler, pool: &mut PacketPool, flows: &mut FlowTable) {
        let now = sched.now();
        let (lp, lb) = (link.qlen, link.qbytes);
        let Some(id) = link.queue.dequeue(now, pool) else { return };
        let (size, dscp) = {
            let p = pool.get(id);
            (p.size, p.dscp)
        };
        link.qlen -= 1;
        link.qbytes -= size as u64;
        link.stats.on_departure(now, lp, lb, size);
        if dscp != 0 {
            link.stats.class_departure(dscp, size, true);
        }
        Self::transmit(link, ld, id, size, sched, pool, flows);
    }

    /// Serializes packet `id` (already out of the queue, departure counted) starting now.
    #[inline]
    fn transmit(link: &mut LinkDir, ld: u32, id: PktId, size: u32, sched: &mut Scheduler, pool: &mut PacketPool, flows: &mut FlowTable) {
        let now = sched.now();
        if let Some(cap) = link.capture.as_mut() {
            cap.record(now, link.from, link.to, pool.get(id));
        }
        if let Some(log) = link.packet_log.as_mut() {
            log.push(now, PacketLog::DEQUEUE, pool.get(id), None);
        }
        let tx = link.ser.time(size);
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
            if p.dscp != 0 {
                link.stats.class_drop(p.dscp, p.size, false, DropReason::Loss);
            }
            if let Some(log) = link.drop_log.as_mut() {
                log.push(done, p, DropReason::Loss);
            }
            if let Some(log) = link.packet_log.as_mut() {
                log.push(done, PacketLog::DROP, p, Some(DropReason::Loss));
            }
            flows.drop_packet(ld, DropReason::Loss, p);
            pool.free(id);
        } else {
            let at = done + link.delay;
            if let Some(log) = link.packet_log.as_mut() {
                log.push(at, PacketLog::RECEIVE, pool.get(id), None);
            }
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
    pub fn tx_end(&mut self, ld: u32, sched: &mut Scheduler, pool: &mut PacketPool, flows: &mut FlowTable) {
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
}
