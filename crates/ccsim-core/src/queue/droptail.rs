//! DropTail: FIFO that drops arrivals when full (limit in packets or bytes).

use super::{reserve_for, DropReason, Dropped, Fifo, Limit, LinkInfo, Queue, QueueConfig};
use crate::config::{Errors, Obj};
use crate::packet::{PacketPool, PktId};
use crate::rng::Stream;
use crate::units::Time;
use std::sync::Arc;

pub struct DropTail {
    fifo: Fifo,
    limit: Limit,
}

impl DropTail {
    pub fn new(limit: Limit) -> Self {
        DropTail { fifo: Fifo::with_capacity(reserve_for(limit)), limit }
    }
}

impl Queue for DropTail {
    #[inline]
    fn enqueue(&mut self, _now: Time, id: PktId, pool: &PacketPool, dropped: &mut Dropped) {
        if self.limit.admits(&self.fifo, pool.get(id).size) {
            self.fifo.push(id, pool);
        } else {
            dropped.push((id, DropReason::Overflow));
        }
    }
    #[inline]
    fn dequeue(&mut self, _now: Time, pool: &PacketPool) -> Option<PktId> {
        self.fifo.pop(pool)
    }
    #[inline]
    fn passes_through_when_empty(&self, size: u32) -> bool {
        debug_assert!(self.fifo.is_empty());
        self.limit.admits(&self.fifo, size)
    }
    fn fifo_limit(&self) -> Option<Limit> {
        Some(self.limit)
    }
    fn remove_where(&mut self, pool: &PacketPool, pred: &mut dyn FnMut(&crate::packet::Packet) -> bool, removed: &mut Vec<PktId>) -> bool {
        self.fifo.remove_where(pool, pred, removed);
        true
    }
    super::fifo_accessors!();
}

/// DropTail's configuration: `{ kind = "droptail", limit = 100 }` (packets; `"64KB"` for
/// bytes). Default limit: 50 packets (ns-2's `Queue limit_`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct DropTailConfig {
    /// Capacity, excluding the packet in transmission.
    pub limit: Limit,
}

impl QueueConfig for DropTailConfig {
    fn kind(&self) -> &'static str {
        "droptail"
    }
    fn build(&self, _rng: Stream) -> Box<dyn Queue> {
        Box::new(DropTail::new(self.limit))
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
    fn byte_limit(&self) -> Option<u64> {
        self.limit.bytes()
    }
}

/// Parses `limit`.
pub fn parse(o: &mut Obj, _link: &LinkInfo, errs: &mut Errors) -> Option<Arc<dyn QueueConfig>> {
    let limit = super::parse_limit(o, "limit", Limit::Packets(super::DEFAULT_QUEUE_LIMIT), errs)?;
    Some(Arc::new(DropTailConfig { limit }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Packet;

    fn pkt(pool: &mut PacketPool, size: u32) -> PktId {
        pool.alloc(Packet { size, ..Default::default() })
    }

    #[test]
    fn never_exceeds_packet_limit() {
        let mut pool = PacketPool::new();
        let mut q = DropTail::new(Limit::Packets(3));
        let mut dropped = Vec::new();
        for _ in 0..10 {
            let id = pkt(&mut pool, 1000);
            q.enqueue(0, id, &pool, &mut dropped);
            assert!(q.len_pkts() <= 3);
        }
        assert_eq!(q.len_pkts(), 3);
        assert_eq!(dropped.len(), 7);
        assert!(dropped.iter().all(|d| d.1 == DropReason::Overflow));
    }

    #[test]
    fn never_exceeds_byte_limit() {
        let mut pool = PacketPool::new();
        let mut q = DropTail::new(Limit::Bytes(2500));
        let mut dropped = Vec::new();
        for size in [1000, 1000, 1000, 400, 100, 1] {
            let id = pkt(&mut pool, size);
            q.enqueue(0, id, &pool, &mut dropped);
            assert!(q.len_bytes() <= 2500);
        }
        assert_eq!(q.len_bytes(), 2500);
        assert_eq!(dropped.len(), 2);
        let first = q.dequeue(0, &pool).unwrap();
        assert_eq!(pool.get(first).size, 1000);
        assert_eq!(q.len_bytes(), 1500);
    }
}
