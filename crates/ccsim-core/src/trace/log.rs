//! The logs behind a link direction's `drops` and `packets` traces, kept in memory while
//! the run goes on and made into tables at its end.
//!
//! Each log holds at most its `cap` events (see [`log_cap`]): later ones are counted, not
//! kept, and the run's warnings say how many. Storage grows by doubling but never beyond
//! the cap, and a `packets` event keeps only the packet fields its table shows (56 bytes,
//! not the whole 112-byte packet). A full `packets` trace (5 million events) raised a run's
//! peak memory by 1.17 GB, 0.79 GB now, with the results handed to Python column by column
//! (forty-first session).

use crate::packet::{Kind, Packet};
use crate::queue::DropReason;
use crate::units::Time;

/// At most this many events per log.
pub const MAX_EVENTS: usize = 5_000_000;

/// At most this many events over all of a run's logs together: each log's cap is its
/// share, `MAX_TOTAL_EVENTS / logs`, when that is below [`MAX_EVENTS`] (a scenario tracing
/// every packet of 100 links had 500 million events in reach, tens of gigabytes).
pub const MAX_TOTAL_EVENTS: usize = 10_000_000;

/// The cap of each of a run's `logs` logs.
pub fn log_cap(logs: usize) -> usize {
    MAX_EVENTS.min(MAX_TOTAL_EVENTS / logs.max(1))
}

/// Pushes `v` (the caller has checked that fewer than `cap` are held); grows `vec` by
/// doubling, never beyond `cap` (a doubling past it would have held up to twice the cap's memory).
#[inline]
fn push_capped<T>(vec: &mut Vec<T>, cap: usize, v: T) {
    if vec.len() == vec.capacity() {
        vec.reserve_exact(vec.capacity().max(1024).min(cap - vec.len()));
    }
    vec.push(v);
}

/// A log of drops: time, flow, sequence number, reason, size. As a table (a `drops`
/// trace's series) the time is in seconds, the flow, sequence number and size integers
/// and the reason its name (`overflow`, `early`, ...), as in the `packets` trace and the
/// run's `drops` table.
pub struct DropLog {
    /// Drops not kept because the log was full.
    pub dropped_events: u64,
    pub cap: usize,
    time: Vec<Time>,
    flow: Vec<u32>,
    seq: Vec<u64>,
    reason: Vec<DropReason>,
    size: Vec<u32>,
}

impl Default for DropLog {
    fn default() -> Self {
        Self::with_cap(MAX_EVENTS)
    }
}

impl DropLog {
    pub fn with_cap(cap: usize) -> Self {
        DropLog { dropped_events: 0, cap, time: Vec::new(), flow: Vec::new(), seq: Vec::new(), reason: Vec::new(), size: Vec::new() }
    }

    #[cold]
    pub fn push(&mut self, now: Time, p: &Packet, reason: DropReason) {
        if self.time.len() >= self.cap {
            self.dropped_events += 1;
            return;
        }
        let cap = self.cap;
        push_capped(&mut self.time, cap, now);
        push_capped(&mut self.flow, cap, p.flow);
        push_capped(&mut self.seq, cap, p.seq);
        push_capped(&mut self.reason, cap, reason);
        push_capped(&mut self.size, cap, p.size);
    }

    pub fn into_table(self) -> crate::measure::Table {
        use crate::measure::Column;
        let mut t = crate::measure::Table::default();
        t.push("time", Column::F64(self.time.iter().map(|&x| crate::units::to_secs(x)).collect()));
        t.push("flow", Column::I64(self.flow.iter().map(|&x| x as i64).collect()));
        t.push("seq", Column::I64(self.seq.iter().map(|&x| x as i64).collect()));
        t.push("reason", Column::Str(self.reason.iter().map(|r| r.name()).collect()));
        t.push("size", Column::I64(self.size.iter().map(|&x| x as i64).collect()));
        t
    }
}

/// What a `packets` trace keeps of one event: its time and kind, and the fields of the
/// packet its table shows.
#[derive(Clone, Copy)]
struct Record {
    time: Time,
    uid: u64,
    seq: u64,
    ack: u64,
    flow: u32,
    src: u32,
    dst: u32,
    size: u32,
    payload: u32,
    kind: Kind,
    flags: u8,
    event: u8,
    /// The drop's reason, or −1.
    reason: i8,
}

/// Packet events of one link direction, as ns-2 traces them: `+` arrival at the queue, `-`
/// start of serialization, `r` arrival at the far node, `d` drop (queue or wire).
pub struct PacketLog {
    /// Events not kept because the log was full.
    pub dropped_events: u64,
    pub cap: usize,
    events: Vec<Record>,
}

impl Default for PacketLog {
    fn default() -> Self {
        Self::with_cap(MAX_EVENTS)
    }
}

impl PacketLog {
    pub fn with_cap(cap: usize) -> Self {
        PacketLog { dropped_events: 0, cap, events: Vec::new() }
    }

    pub const ENQUEUE: u8 = b'+';
    pub const DEQUEUE: u8 = b'-';
    pub const RECEIVE: u8 = b'r';
    pub const DROP: u8 = b'd';

    #[cold]
    pub fn push(&mut self, at: Time, event: u8, p: &Packet, reason: Option<DropReason>) {
        if self.events.len() >= self.cap {
            self.dropped_events += 1;
            return;
        }
        let r = Record {
            time: at,
            uid: p.uid,
            seq: p.seq,
            ack: p.ack,
            flow: p.flow,
            src: p.src,
            dst: p.dst,
            size: p.size,
            payload: p.payload,
            kind: p.kind,
            flags: p.flags,
            event,
            reason: reason.map_or(-1, |r| r as i8),
        };
        push_capped(&mut self.events, self.cap, r);
    }

    /// The events in time order (stable: same-time events keep the order they happened in).
    pub fn into_table(mut self) -> crate::measure::Table {
        use crate::measure::{Column, Text};
        let ev = &mut self.events;
        ev.sort_by_key(|r| r.time);
        let f = |g: &dyn Fn(&Record) -> f64| Column::F64(ev.iter().map(g).collect());
        let i = |g: &dyn Fn(&Record) -> i64| Column::I64(ev.iter().map(g).collect());
        let s = |g: &dyn Fn(&Record) -> &'static str| Column::Str(ev.iter().map(g).collect::<Text>());
        let mut t = crate::measure::Table::default();
        t.push("time", f(&|r| crate::units::to_secs(r.time)));
        t.push(
            "event",
            s(&|r| match r.event {
                Self::ENQUEUE => "+",
                Self::DEQUEUE => "-",
                Self::RECEIVE => "r",
                _ => "d",
            }),
        );
        t.push("flow", i(&|r| r.flow as i64));
        t.push("kind", s(&|r| kind_name(r.kind)));
        t.push("size", i(&|r| r.size as i64));
        t.push("seq", i(&|r| r.seq as i64));
        t.push("ack", i(&|r| r.ack as i64));
        t.push("payload", i(&|r| r.payload as i64));
        t.push("flags", i(&|r| r.flags as i64));
        t.push("uid", i(&|r| r.uid as i64));
        t.push("src", i(&|r| r.src as i64));
        t.push("dst", i(&|r| r.dst as i64));
        t.push("reason", s(&|r| reason_name(r.reason)));
        t
    }
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Datagram => "datagram",
        Kind::Data => "data",
        Kind::Ack => "ack",
        Kind::Control => "control",
        Kind::Cell => "cell",
    }
}

fn reason_name(r: i8) -> &'static str {
    DropReason::ALL.iter().find(|d| **d as i8 == r).map_or("", |d| d.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_log_counts_what_it_does_not_keep() {
        let mut log = PacketLog::with_cap(3);
        let mut drops = DropLog::with_cap(3);
        let p = Packet::default();
        for t in 0..5 {
            log.push(t, PacketLog::ENQUEUE, &p, None);
            drops.push(t, &p, DropReason::Overflow);
        }
        assert_eq!((log.dropped_events, drops.dropped_events), (2, 2));
        assert_eq!(log.into_table().rows(), 3);
        assert_eq!(drops.into_table().rows(), 3);
    }

    /// Storage grows by doubling up to the cap, not past it.
    #[test]
    fn storage_stops_at_the_cap() {
        let mut log = PacketLog::with_cap(5_000);
        let p = Packet::default();
        for t in 0..6_000 {
            log.push(t, PacketLog::DEQUEUE, &p, None);
        }
        assert_eq!((log.events.len(), log.events.capacity()), (5_000, 5_000));
        assert!(std::mem::size_of::<Record>() <= 56, "{}", std::mem::size_of::<Record>());
        let mut log = DropLog::with_cap(1);
        log.push(0, &p, DropReason::Loss);
        assert_eq!(log.time.capacity(), 1);
    }

    #[test]
    fn the_logs_share_a_total() {
        assert_eq!(log_cap(1), MAX_EVENTS);
        assert_eq!(log_cap(2), MAX_EVENTS);
        assert_eq!(log_cap(3), 3_333_333);
        assert_eq!(log_cap(100), 100_000);
        assert_eq!(log_cap(0), MAX_EVENTS);
    }

    /// The table keeps the packet's fields and puts same-time events in the order logged.
    #[test]
    fn the_table_is_in_time_order_with_every_field() {
        let mut log = PacketLog::default();
        let p = Packet {
            uid: 7,
            seq: 3,
            ack: 2,
            flow: 1,
            src: 4,
            dst: 5,
            size: 1500,
            payload: 1460,
            kind: Kind::Data,
            flags: 2,
            ..Default::default()
        };
        log.push(20, PacketLog::RECEIVE, &p, None);
        log.push(10, PacketLog::ENQUEUE, &p, None);
        log.push(10, PacketLog::DROP, &p, Some(DropReason::Overflow));
        let t = log.into_table();
        let text = |c: &str| match t.column(c) {
            Some(crate::measure::Column::Str(x)) => x.to_vec(),
            _ => panic!("{c}"),
        };
        assert_eq!(t.f64("time").unwrap(), &[1e-8, 1e-8, 2e-8]);
        assert_eq!(text("event"), vec!["+", "d", "r"]);
        assert_eq!(text("reason"), vec!["", "overflow", ""]);
        assert_eq!(text("kind"), vec!["data"; 3]);
        for (c, v) in
            [("uid", 7), ("seq", 3), ("ack", 2), ("flow", 1), ("src", 4), ("dst", 5), ("size", 1500), ("payload", 1460), ("flags", 2)]
        {
            assert_eq!(t.i64(c).unwrap(), &[v; 3], "{c}");
        }
    }
}
