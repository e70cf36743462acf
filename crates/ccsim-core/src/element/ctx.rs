//! What an element may do: [`ElemCtx`].

use super::{ElemStats, Pkt, LOCAL};
use crate::agent::{Core, Work};
use crate::engine::Event;
use crate::packet::Packet;
use crate::queue::DropReason;
use crate::units::Time;

/// An element's view of the simulation while it handles a packet or a timer.
pub struct ElemCtx<'a> {
    pub now: Time,
    /// The node the element is placed at.
    pub node: u32,
    pub(crate) elem: u32,
    /// The element's position in its node's chain.
    pub(crate) stage: u16,
    /// Where this element's own drops are counted (after the link directions).
    pub(crate) site: u32,
    pub(crate) core: &'a mut Core,
    pub(crate) stats: &'a mut ElemStats,
}

impl<'a> ElemCtx<'a> {
    /// The packet behind a handle.
    #[inline]
    pub fn packet(&self, p: &Pkt) -> &Packet {
        self.core.pool.get(p.id)
    }

    /// The packet behind a handle, to rewrite its fields (class, mark, ...).
    #[inline]
    pub fn packet_mut(&mut self, p: &Pkt) -> &mut Packet {
        self.core.pool.get_mut(p.id)
    }

    /// Passes the packet on: to the next element at this node, then to routing (or to the
    /// node's agent, if it is the destination).
    #[inline]
    pub fn pass(&mut self, p: Pkt) {
        self.count_departure(&p);
        self.core.work.push_back(Work { id: p.id, node: self.node, stage: self.stage + 1, from: p.from });
    }

    /// Drops the packet, counted for `reason` at this element (its statistics, the flow's
    /// drop sites: `drops.parquet`).
    pub fn drop(&mut self, p: Pkt, reason: DropReason) {
        self.stats.drops[reason as usize] += 1;
        let pk = self.core.pool.get(p.id);
        self.core.flows.drop_packet(self.site, reason, pk);
        self.core.pool.free(p.id);
    }

    /// Frees a packet whose content lives on elsewhere (a cell merged into a frame): not
    /// a drop.
    pub fn consume(&mut self, p: Pkt) {
        self.stats.consumed += 1;
        self.core.pool.free(p.id);
    }

    /// Turns the packet into a frame carried by `cells` cells, which the element creates
    /// next (packets of kind `Cell` whose `aux` names the returned id): the frame stays in
    /// the pool, unchanged, until the last of its cells is freed — delivered, dropped or
    /// consumed anywhere. Counted as consumed here (its content lives on in the cells).
    pub fn into_frame(&mut self, p: Pkt, cells: u32) -> crate::packet::PktId {
        self.stats.consumed += 1;
        self.core.pool.hold_frame(p.id, cells);
        p.id
    }

    /// A copy of a frame held by its cells (see [`ElemCtx::into_frame`]), keeping its uid:
    /// the reassembled packet. `from`: the link its last cell arrived on.
    pub fn frame_copy(&mut self, frame: crate::packet::PktId, from: u32) -> Pkt {
        self.stats.created += 1;
        self.copy_of(frame, from)
    }

    /// A new packet in the pool with packet `id`'s content and uid.
    fn copy_of(&mut self, id: crate::packet::PktId, from: u32) -> Pkt {
        let copy = *self.core.pool.get(id);
        let new = self.core.pool.alloc(copy);
        self.core.pool.get_mut(new).uid = copy.uid;
        Pkt { id: new, from }
    }

    /// Whether a packet addressed to `dst` is for this node (its own address, or a group
    /// this node receives).
    pub fn addressed_here(&self, dst: u32) -> bool {
        self.core.net.delivers_at(self.node, dst)
    }

    /// The receivers of group `dst` (empty if `dst` is not a group).
    pub fn group_members(&self, dst: u32) -> &[u32] {
        self.core.net.group(dst).map_or(&[], |g| &g.members)
    }

    /// Enqueues the packet on link direction `link`, which must leave this node, now
    /// (skipping later elements and routing).
    pub fn send_on(&mut self, link: u32, p: Pkt) {
        assert_eq!(self.core.net.links[link as usize].from, self.node, "send_on: link {link} does not leave node {}", self.node);
        self.count_departure(&p);
        let c = &mut *self.core;
        c.net.enqueue_now(link, p.id, &mut c.sched, &mut c.pool, &mut c.flows);
    }

    /// A copy of the packet (a new packet in the pool), owned by the element. It keeps the
    /// original's uid: it is the same packet (as an IP multicast copy keeps its IP id), so a
    /// copy of an earlier flow's packet is still recognised as such.
    pub fn replicate(&mut self, p: &Pkt) -> Pkt {
        self.stats.copies += 1;
        self.copy_of(p.id, p.from)
    }

    /// A new packet originated here, built by `fill` (which sets flow, addresses, size,
    /// kind, ...), owned by the element.
    pub fn create(&mut self, fill: impl FnOnce(&mut Packet)) -> Pkt {
        self.stats.created += 1;
        let now = self.now;
        let id = self.core.pool.alloc_with(|q| {
            q.sent_at = now;
            fill(q)
        });
        Pkt { id, from: LOCAL }
    }

    /// Schedules this element's timer `kind` at `at` (not before now), tagged with `token`.
    pub fn timer_at(&mut self, at: Time, kind: u16, token: u32) {
        let at = at.max(self.now);
        self.core.sched.at(at, Event::ElemTimer { elem: self.elem, kind, token });
    }

    /// The link direction this node uses towards node `dst`, if any.
    pub fn route(&self, dst: u32) -> Option<u32> {
        let l = self.core.net.route(self.node, dst);
        (l != crate::net::NO_ROUTE).then_some(l)
    }

    /// The links a packet for multicast group address `dst` leaves this node on (several
    /// where the group's tree branches; none for a unicast address or off the tree).
    pub fn group_branches(&self, dst: u32) -> &[u32] {
        match self.core.net.group(dst) {
            Some(t) => &t.children[self.node as usize],
            None => &[],
        }
    }

    /// The link directions leaving this node.
    pub fn out_links(&self) -> &[u32] {
        self.core.net.out_links(self.node)
    }

    /// Packets and bytes waiting in the queue of `link` (a direction leaving this node).
    pub fn queue_len(&self, link: u32) -> (usize, u64) {
        let l = &self.core.net.links[link as usize];
        debug_assert_eq!(l.from, self.node);
        (l.qlen, l.qbytes)
    }

    /// Packets the queue of `link` (a direction leaving this node) has refused on arrival
    /// since the last restart of its counters: dropped for overflow, early or forced, not
    /// those it took from its front nor those removed by elements. (A direction leaving an
    /// element's node is never event-free, so its counts are up to date.)
    pub fn arrival_drops(&self, link: u32) -> u64 {
        let l = &self.core.net.links[link as usize];
        debug_assert_eq!(l.from, self.node);
        [DropReason::Overflow, DropReason::Early, DropReason::Forced].iter().map(|&r| l.stats.drops.pkts(r)).sum()
    }

    /// Calls `f` with every packet waiting in the queue of `link`, in queue order.
    pub fn visit_queue(&self, link: u32, f: &mut dyn FnMut(&Packet)) {
        let c = &*self.core;
        c.net.links[link as usize].queue.visit(&mut |id| f(c.pool.get(id)));
    }

    /// Takes the packets for which `pred` holds (visited in queue order, the packet in
    /// transmission excluded) out of the queue of `link` (a direction leaving this node),
    /// each counted as a drop for `reason` at that queue. Returns how many were removed;
    /// panics if the link's discipline cannot remove packets.
    pub fn remove_from_queue(&mut self, link: u32, pred: &mut dyn FnMut(&Packet) -> bool, reason: DropReason) -> usize {
        assert_eq!(self.core.net.links[link as usize].from, self.node, "remove_from_queue: link {link} does not leave node {}", self.node);
        let now = self.now;
        let c = &mut *self.core;
        c.net
            .remove_where(link, now, pred, reason, &mut c.pool, &mut c.flows)
            .unwrap_or_else(|| panic!("the queue of link direction {link} cannot remove packets"))
    }

    fn count_departure(&mut self, p: &Pkt) {
        self.stats.departures += 1;
        self.stats.departure_bytes += self.core.pool.get(p.id).size as u64;
    }
}
