//! One direction of a duplex link: its egress queue, optional loss model, statistics,
//! propagation line, and (when event-free) its lazy FIFO.

use super::lazy::{LazyFifo, Offer};
use super::ring::Ring;
use crate::loss::LossModel;
use crate::measure::{FlowTable, QueueStats};
use crate::packet::{Kind, PacketPool, PktId};
use crate::queue::Queue;
use crate::trace::log::{DropLog, PacketLog};
use crate::units::{Serializer, Time};

/// One direction of a duplex link.
///
/// Laid out by hand (`repr(C)`), hottest first and on cache-line boundaries: what every
/// packet's crossing reads (times, serializer, far node, propagation line) in the first
/// two 64-byte lines, the lazy ledger's state in the next two, the counters after them,
/// and what only set-up, tracing and results touch (the queue discipline object, logs)
/// last. Its name and its link's are not kept here (see [`LinkDir::name`]).
#[repr(C, align(64))]
pub struct LinkDir {
    /// When the transmitter is free again.
    pub busy_until: Time,
    pub delay: Time,
    pub(super) ser: Serializer,
    pub loss: Option<Box<dyn LossModel>>,
    pub to: u32,
    /// Where packets reaching the far node go on without an event (cut-through; see
    /// `Network::enqueue_lazy`): [`NO_ROUTE`](super::NO_ROUTE), never; a link direction,
    /// every packet not addressed to the far node goes on to it (the only next hop of
    /// every route over this direction, and fed by it alone); [`CUT_TO_HOST`], the link
    /// into the packet's destination host (every route over this direction ends one hop
    /// further, and this direction alone feeds each of those last hops); [`CUT_BY_ROUTE`],
    /// the next hop is looked up, and taken if it is fed by this direction alone.
    pub(super) cut_next: u32,
    /// Packets in propagation: (arrival time, event sequence number, packet, start of its
    /// serialization here), in order.
    pub(super) in_flight: Ring<(Time, u64, PktId, Time)>,
    /// The queue's length in packets and bytes, mirrored here (no virtual call per query).
    pub qlen: usize,
    pub qbytes: u64,
    /// A `TxEnd` event is scheduled (packets wait for the transmitter).
    pub(super) txend_pending: bool,
    /// Whether this is the scenario's `a->b` direction.
    pub forward: bool,
    /// The far node's agent takes packets ahead of the clock (see [`Network::early`]).
    pub(super) far_early: bool,
    /// Lazy, into a batch router's line, no cut-through past it and no loss model: a
    /// node's send here may take `Network::send_lazy`'s short path (set with the fast
    /// paths, [`LinkDir::feeds_router_alone`]).
    pub(super) send_fast: bool,
    /// `LinkArrive` events in the heap made void because their packets were handed to
    /// the far node's agent ahead of the clock (see [`Network::early`]).
    pub(super) void_arrivals: u32,
    /// `TxEnd` events in the heap made void by a departure taken early (see `enqueue`).
    pub(super) void_txends: u32,
    /// The far node's batch router (its index, [`super::NO_ROUTE`]: not one). Kept here,
    /// as `far_early` is, so that a crossing's end reads no table indexed by node.
    pub(super) far_router: u32,
    /// The far node's one flow end when it takes packets ahead of the clock (`far_early`),
    /// so that a hand-over reads no table indexed by node.
    pub(crate) far_agent: FarAgent,
    /// Set when this direction runs event-free (see [`lazy`]); `queue` then stays empty.
    pub(super) lazy: Option<LazyFifo>,
    /// The direction's counters. On a lazy direction they are complete only at the end of
    /// the run: during it, crossings that found the transmitter free are counted in the
    /// lazy FIFO (`LazyFifo::fold`) and crossings decided ahead of the clock are counted
    /// whole; read them through [`Network::queue_view`](super::Network::queue_view), which
    /// gives them as of an instant.
    pub(crate) stats: QueueStats,
    pub queue: Box<dyn Queue>,
    /// pcap capture of packets as they start serialization.
    pub capture: Option<Box<crate::trace::pcap::PcapWriter>>,
    /// Every drop on this direction, when a `drops` trace asks for it.
    pub drop_log: Option<Box<DropLog>>,
    /// Every packet event on this direction (ns-2's trace), when a `packets` trace asks.
    pub packet_log: Option<Box<PacketLog>>,
    pub rate_bps: u64,
    pub from: u32,
}

/// A host's one flow end, as the link into it keeps it ([`LinkDir::far_agent`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FarAgent {
    /// The flow ([`FarAgent::NONE`]: `u32::MAX`, no host taking packets ahead).
    pub flow: u32,
    /// Its end: 0 the sender, 1 + k its k-th receiver.
    pub end: u16,
    /// A receiver that never sets a timer (`Agent::timerless`): it may take every packet
    /// at once, whatever its arrival time before the simulation's horizon.
    pub takes_all: bool,
}

impl FarAgent {
    pub const NONE: FarAgent = FarAgent { flow: u32::MAX, end: 0, takes_all: false };
}

/// The cache lines of a `LinkDir` that a packet finding its transmitter free reads: its
/// first two and the lazy FIFO's two (not the statistics' line; see `LazyFifo`).
pub(super) const IDLE_CROSSING_LINES: usize = 4;

/// [`LinkDir::cut_next`]: the next hop depends on the packet's destination, and is looked up.
pub(super) const CUT_BY_ROUTE: u32 = super::NO_ROUTE - 1;
/// [`LinkDir::cut_next`]: the next hop is the last, into the packet's destination host
/// ([`Routes::last_hop`](super::Routes::last_hop)), and fed by this direction alone.
pub(super) const CUT_TO_HOST: u32 = super::NO_ROUTE - 2;

impl LinkDir {
    /// The crossings its lazy FIFO keeps for readers (0 on an event-driven direction): what
    /// a queue trace's sample walks.
    pub fn ledger_len(&self) -> usize {
        self.lazy.as_ref().map_or(0, LazyFifo::ledger_len)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn new(
        forward: bool,
        from: u32,
        to: u32,
        rate_bps: u64,
        delay: Time,
        queue: Box<dyn Queue>,
        loss: Option<Box<dyn LossModel>>,
    ) -> Self {
        LinkDir {
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
            far_router: super::NO_ROUTE,
            far_agent: FarAgent::NONE,
            far_early: false,
            ser: Serializer::new(rate_bps),
            stats: QueueStats::default(),
            capture: None,
            drop_log: None,
            packet_log: None,
            in_flight: Ring::new(),
            lazy: None,
            cut_next: super::NO_ROUTE,
            send_fast: false,
            void_arrivals: 0,
        }
    }

    /// `"from->to"` with the names of `nodes` (this direction's name in results and traces;
    /// built when asked, not kept: large worlds have tens of thousands of directions).
    pub fn name(&self, nodes: &[super::Node]) -> String {
        self.name_parts(nodes).concat()
    }

    /// [`LinkDir::name`] in its three parts, for writing it where it goes without building it.
    pub fn name_parts<'a>(&self, nodes: &'a [super::Node]) -> [&'a str; 3] {
        [&nodes[self.from as usize].name, "->", &nodes[self.to as usize].name]
    }

    /// Whether this direction is lazy and leads into a batch router's line with nothing
    /// cut through past it and no loss model ([`LinkDir::send_fast`]).
    pub(super) fn feeds_router_alone(&self) -> bool {
        self.lazy.is_some() && self.far_router != super::NO_ROUTE && self.cut_next == super::NO_ROUTE && self.loss.is_none()
    }

    /// The commonest crossing of a lazy direction, decided whole: a best-effort packet of
    /// `size` bytes offered at `at` (`settled`: at or before the read horizon or the event
    /// time, so nothing of it is left for the ledger) to a free transmitter, with no loss
    /// model and room in the empty queue. Returns its arrival at the far node, counted as
    /// [`LinkDir::admit`] counts it; `None` (nothing done) for any other crossing.
    #[inline(always)]
    pub(super) fn cross_alone(&mut self, at: Time, size: u32, dscp: u8, settled: bool) -> Option<Time> {
        if !(settled && at >= self.busy_until && dscp == 0 && self.loss.is_none()) {
            return None;
        }
        let lz = self.lazy.as_mut()?;
        if !lz.fits_alone(size) {
            return None;
        }
        let tx = self.ser.time(size);
        lz.pass_idle_settled(at, size, tx);
        self.busy_until = at + tx;
        Some(at + tx + self.delay)
    }

    /// Offers packet `id` to this lazy direction at time `at` (not before any earlier
    /// offer), no reader looking at its statistics before `keep`. Returns the start of the
    /// packet's serialization and its arrival time at the far node, or `None` if it was
    /// refused or lost (and freed).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn admit(
        &mut self,
        ld: u32,
        keep: Time,
        at: Time,
        id: PktId,
        pool: &mut PacketPool,
        flows: &mut FlowTable,
    ) -> Option<(Time, Time)> {
        let lz = self.lazy.as_mut().expect("admit on a lazy link");
        let p = pool.get(id);
        if at >= self.busy_until && p.dscp == 0 && self.loss.is_none() && lz.fits_alone(p.size) {
            // The commonest crossing, without the general path's machinery.
            let size = p.size;
            let tx = self.ser.time(size);
            lz.pass_idle(keep, at, size, tx, || (p.flow, p.kind != Kind::Ack));
            self.busy_until = at + tx;
            return Some((at, at + tx + self.delay));
        }
        let o = Offer { keep, at, size: p.size, flow: p.flow, uid: p.uid, forward: p.kind != Kind::Ack, dscp: p.dscp };
        if at >= self.busy_until {
            // The transmitter is free: the common case of a lightly loaded link.
            let (ser, loss) = (&mut self.ser, &mut self.loss);
            let tx_lost = || {
                let tx = ser.time(o.size);
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
        let tx = self.ser.time(o.size);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A link direction stays small: every packet touches one (and a flow with its own
    /// hosts has four). Drops by reason are counted out of line (`DropCounts`). Eight
    /// cache lines, aligned, of which a crossing reads the first five.
    #[test]
    fn a_link_direction_stays_small() {
        let size = std::mem::size_of::<LinkDir>();
        eprintln!("LinkDir: {size} bytes, QueueStats: {}", std::mem::size_of::<QueueStats>());
        assert!(size <= 512, "{size}");
    }

    /// What every crossing reads sits in the first lines: two lines of times, serializer,
    /// far node and propagation line, then the lazy ledger's state, then the counters
    /// (their per-packet part on one line); logs and the queue object after.
    #[test]
    fn hot_fields_lead() {
        use std::mem::{align_of, offset_of};
        assert_eq!(align_of::<LinkDir>(), 64);
        for off in [
            offset_of!(LinkDir, busy_until),
            offset_of!(LinkDir, delay),
            offset_of!(LinkDir, ser),
            offset_of!(LinkDir, loss),
            offset_of!(LinkDir, to),
            offset_of!(LinkDir, cut_next),
        ] {
            assert!(off < 64, "{off}");
        }
        assert!(offset_of!(LinkDir, in_flight) + 32 <= 128 && offset_of!(LinkDir, far_early) < 128);
        // A hand-over reads the far node's agent with the far node.
        assert!(offset_of!(LinkDir, far_agent) + 8 <= 128);
        assert_eq!(offset_of!(LinkDir, lazy), 128);
        assert_eq!(offset_of!(LinkDir, stats) % 64, 0);
        assert!(offset_of!(LinkDir, stats) <= 256);
        let s = offset_of!(LinkDir, stats);
        for off in [offset_of!(QueueStats, arrivals), offset_of!(QueueStats, busy_ns), offset_of!(QueueStats, max_bytes)] {
            assert!(off < 64, "{off}");
        }
        assert!(offset_of!(LinkDir, queue) >= s + 64 && offset_of!(LinkDir, rate_bps) > s);
    }
}
