//! Queue disciplines behind one trait.
//!
//! A queue holds packet ids (the packets themselves live in the [`PacketPool`]). It decides
//! on arrival whether to accept, and may drop the arrival or other packets (drop-from-front,
//! push-out); every drop is reported with its [`DropReason`] so the link can account it.
//! Each discipline has a typed configuration ([`QueueConfig`]: documented fields with
//! ns-2 defaults, parsed in the discipline's own file) that is also its factory. A new
//! discipline is one file implementing [`Queue`] and [`QueueConfig`], its tests, and one
//! line in the scenario's queue-kind registry ([`crate::scenario::QUEUE_KINDS`]; it lives
//! there so that disciplines in other domain folders, such as `atm`'s cell queue, import
//! this module and not the reverse).

/// `visit`, `len_pkts` and `len_bytes` of a discipline that keeps its packets in a `fifo:
/// Fifo` field, for its `impl Queue` block.
macro_rules! fifo_accessors {
    () => {
        fn visit(&self, f: &mut dyn FnMut(PktId)) {
            self.fifo.iter().for_each(f);
        }
        fn len_pkts(&self) -> usize {
            self.fifo.len()
        }
        fn len_bytes(&self) -> u64 {
            self.fifo.bytes()
        }
    };
}
pub(crate) use fifo_accessors;

pub mod droptail;
pub mod red;
pub mod red_rio;
pub mod rio;

use crate::config::{Errors, Obj};
use crate::packet::{Packet, PacketPool, PktId};
use crate::rng::Stream;
use crate::units::Time;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::Arc;

pub use droptail::DropTail;
pub use red::{Red, RedParams};

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum DropReason {
    /// Buffer full (tail drop, or a full RED buffer).
    Overflow = 0,
    /// Early random drop (RED between the thresholds).
    Early = 1,
    /// Forced drop by an active queue (RED above max_th, or 2*max_th in gentle mode).
    Forced = 2,
    /// Lost on the wire by the link's loss model.
    Loss = 3,
    /// Dropped from the front of the queue to admit an arrival.
    Front = 4,
    /// Out of profile: dropped by a policer (a node element).
    Policed = 5,
    /// A node element's own buffer was full (a shaper's queue, a marker's data buffer).
    Buffer = 6,
    /// Taken out of a queue by a node element's discard rule (e.g. selective packet
    /// discard across a switch's output queues).
    Selective = 7,
    /// A frame found incomplete when reassembled (an AAL5 frame missing a cell).
    Corrupted = 8,
}

impl DropReason {
    pub const ALL: [DropReason; 9] = [
        DropReason::Overflow,
        DropReason::Early,
        DropReason::Forced,
        DropReason::Loss,
        DropReason::Front,
        DropReason::Policed,
        DropReason::Buffer,
        DropReason::Selective,
        DropReason::Corrupted,
    ];
    pub const COUNT: usize = 9;

    pub fn name(self) -> &'static str {
        match self {
            DropReason::Overflow => "overflow",
            DropReason::Early => "early",
            DropReason::Forced => "forced",
            DropReason::Loss => "loss",
            DropReason::Front => "front",
            DropReason::Policed => "policed",
            DropReason::Buffer => "buffer",
            DropReason::Selective => "selective",
            DropReason::Corrupted => "corrupted",
        }
    }
}

/// Packets a queue dropped during one operation (a reused buffer: no allocation per packet).
pub type Dropped = Vec<(PktId, DropReason)>;

/// A queue discipline.
pub trait Queue: Send {
    /// Offers packet `id`. Any packet dropped (the arrival or another) is pushed to `dropped`
    /// and is no longer in the queue.
    fn enqueue(&mut self, now: Time, id: PktId, pool: &PacketPool, dropped: &mut Dropped);
    /// Takes the next packet to transmit.
    fn dequeue(&mut self, now: Time, pool: &PacketPool) -> Option<PktId>;
    /// Packets queued.
    fn len_pkts(&self) -> usize;
    /// Bytes queued.
    fn len_bytes(&self) -> u64;
    /// True if, when the queue is empty and the transmitter idle, a packet of `size` bytes
    /// would be accepted and sent at once with no effect on the queue's state — so the link
    /// may skip `enqueue`/`dequeue` for it (DropTail; not RED, whose average must see every
    /// arrival). Must not change any result.
    fn passes_through_when_empty(&self, _size: u32) -> bool {
        false
    }
    /// `Some(limit)` if this discipline is a plain FIFO that drops only arriving packets,
    /// when the queue (packets or bytes, excluding the one in transmission) would exceed
    /// `limit` — so the link may run it without events ([`crate::net`]'s lazy links).
    fn fifo_limit(&self) -> Option<Limit> {
        None
    }
    /// Takes every queued packet for which `pred` holds out of the queue (visited in queue
    /// order; the packet in transmission is no longer queued), appending their ids to
    /// `removed`. Returns false if this discipline cannot remove packets (the default).
    /// Used by node elements (e.g. selective discard); the link does the accounting.
    fn remove_where(&mut self, _pool: &PacketPool, _pred: &mut dyn FnMut(&Packet) -> bool, _removed: &mut Vec<PktId>) -> bool {
        false
    }
    /// Calls `f` with every queued packet, in queue order.
    fn visit(&self, _f: &mut dyn FnMut(PktId)) {}
    /// Names of extra state exposed to traces (e.g. RED's average).
    fn probe_names(&self) -> &'static [&'static str] {
        &[]
    }
    /// Appends the current values of [`Queue::probe_names`] to `out`.
    fn probe(&self, _out: &mut Vec<f64>) {}
}

/// A queue's capacity: in packets or in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Packets(u64),
    Bytes(u64),
}

impl serde::Serialize for Limit {
    /// As a scenario writes it: packets as a whole number, bytes as `"64000B"`.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Limit::Packets(n) => s.serialize_u64(n),
            Limit::Bytes(b) => s.serialize_str(&format!("{b}B")),
        }
    }
}

impl Limit {
    /// The limit in bytes, if it is given in bytes.
    pub fn bytes(self) -> Option<u64> {
        match self {
            Limit::Bytes(b) => Some(b),
            Limit::Packets(_) => None,
        }
    }

    /// Whether a packet of `size` bytes fits in `fifo`.
    #[inline]
    pub fn admits(&self, fifo: &Fifo, size: u32) -> bool {
        match *self {
            Limit::Packets(n) => (fifo.len() as u64) < n,
            Limit::Bytes(b) => fifo.bytes() + size as u64 <= b,
        }
    }
}

/// The FIFO storage shared by the disciplines: ids plus a byte count.
#[derive(Default)]
pub struct Fifo {
    q: VecDeque<PktId>,
    bytes: u64,
}

impl Fifo {
    pub fn with_capacity(n: usize) -> Self {
        Fifo { q: VecDeque::with_capacity(n), bytes: 0 }
    }
    #[inline]
    pub fn push(&mut self, id: PktId, pool: &PacketPool) {
        self.bytes += pool.get(id).size as u64;
        self.q.push_back(id);
    }
    #[inline]
    pub fn pop(&mut self, pool: &PacketPool) -> Option<PktId> {
        let id = self.q.pop_front()?;
        self.bytes -= pool.get(id).size as u64;
        Some(id)
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.q.len()
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    /// Removes the packets for which `pred` holds (in queue order), appending them to `removed`.
    pub fn remove_where(&mut self, pool: &PacketPool, pred: &mut dyn FnMut(&Packet) -> bool, removed: &mut Vec<PktId>) {
        let before = removed.len();
        self.q.retain(|&id| {
            let take = pred(pool.get(id));
            if take {
                removed.push(id);
            }
            !take
        });
        for &id in &removed[before..] {
            self.bytes -= pool.get(id).size as u64;
        }
    }
    /// The queued ids in order.
    pub fn iter(&self) -> impl Iterator<Item = PktId> + '_ {
        self.q.iter().copied()
    }
}

/// Initial capacity to reserve for a queue with this limit: none (the queue grows to
/// its peak once, in amortised steps); a network of 10⁵ hosts has 4·10⁵ queues, most of
/// them never holding more than a packet or two.
pub fn reserve_for(_limit: Limit) -> usize {
    0
}

/// What a queue's configuration may need to know about its link direction.
#[derive(Clone, Copy, Debug)]
pub struct LinkInfo {
    pub rate_bps: u64,
    pub delay: Time,
}

/// A discipline's typed configuration, which is also its factory: each link direction
/// gets its own instance, with its own random stream (derived if the instance asks).
pub trait QueueConfig: Send + Sync + std::fmt::Debug {
    /// The scenario name of the discipline (`kind = "..."`).
    fn kind(&self) -> &'static str;
    /// A new, empty queue; `rng.rng()` is its random stream, for a discipline that draws.
    fn build(&self, rng: Stream) -> Box<dyn Queue>;
    /// Every parameter, defaults resolved, as scenario values (for reports).
    fn params(&self) -> Value;
    /// The queue's limit when it is given in bytes (validation warns of packets larger
    /// than it: each is dropped on arrival).
    fn byte_limit(&self) -> Option<u64> {
        None
    }
}

/// Parses a discipline's fields (the table beside `kind`).
pub type QueueParser = fn(&mut Obj, &LinkInfo, &mut Errors) -> Option<Arc<dyn QueueConfig>>;

/// Default queue limit when a link names none: 50 packets (ns-2's `Queue limit_`).
pub const DEFAULT_QUEUE_LIMIT: u64 = 50;

/// The queue of a link that names none: DropTail, [`DEFAULT_QUEUE_LIMIT`] packets.
pub fn default_config() -> Arc<dyn QueueConfig> {
    Arc::new(droptail::DropTailConfig { limit: Limit::Packets(DEFAULT_QUEUE_LIMIT) })
}

/// Parses a queue-limit value: an integer is packets; a string is `"100pkt"` / `"100p"`
/// (packets) or a byte size such as `"150KB"`.
pub fn parse_limit(o: &mut Obj, key: &'static str, default: Limit, errs: &mut Errors) -> Option<Limit> {
    let Some(v) = o.get(key) else { return Some(default) };
    let bad = |errs: &mut Errors| {
        errs.add(
            o.at(key),
            format!(
                "invalid queue limit {}: give packets as a whole number of at least 1 (100 or '100pkt'), or bytes as '150KB'",
                crate::config::show(v)
            ),
        );
        None
    };
    match v {
        Value::Number(n) => match n.as_u64() {
            Some(p) if p >= 1 => Some(Limit::Packets(p)),
            _ => bad(errs),
        },
        Value::String(s) => {
            let t = s.trim();
            for suf in ["pkts", "pkt", "packets", "p"] {
                if let Some(num) = t.strip_suffix(suf) {
                    return match num.trim().parse::<u64>() {
                        Ok(p) if p >= 1 => Some(Limit::Packets(p)),
                        _ => bad(errs),
                    };
                }
            }
            if let Some(n) = t.parse::<f64>().ok().filter(|_| !crate::units::has_unit(t)) {
                // A number is packets, a size bytes: a quoted number is neither for sure
                // (it was read as bytes: "1000" held one packet, "10" none).
                let packets = if n >= 1.0 && n.fract() == 0.0 && n < 1e15 {
                    format!("{0} (packets), '{0}pkt'", n as u64)
                } else {
                    "a whole number of packets".to_string()
                };
                errs.add(
                    o.at(key),
                    format!("queue limit {} has no unit: write {packets}, or a size such as '{t}B' or '150KB'", crate::config::show(v)),
                );
                return None;
            }
            match crate::units::parse_size(t) {
                Some(b) if b >= 1.0 && b.fract() == 0.0 => Some(Limit::Bytes(b as u64)),
                _ => bad(errs),
            }
        }
        _ => bad(errs),
    }
}
