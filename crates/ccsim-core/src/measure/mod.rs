//! Measurement: per-flow and per-queue counters, sampled time series, and the columnar
//! tables results leave the engine in (one `Vec` per column, never one object per sample).

use crate::packet::Packet;
use crate::queue::DropReason;
use crate::units::{to_secs, Time};

mod table;
pub use table::{Column, Table, Text};

/// Counters of one traffic class (a DSCP code point) at a queue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClassCounts {
    pub arrivals: u64,
    pub arrival_bytes: u64,
    pub departures: u64,
    pub departure_bytes: u64,
    /// Drops of every reason, wire loss included.
    pub drops: u64,
    pub drop_bytes: u64,
    /// Drops by [`DropReason`] (indexed by its value).
    pub drops_by: [u64; DropReason::COUNT],
    /// Packets of the class in the queue now (event-driven directions; lazy ones compute
    /// it when viewed).
    pub len_pkts: i64,
}

impl ClassCounts {
    pub fn sub(&mut self, o: &ClassCounts) {
        self.arrivals -= o.arrivals;
        self.arrival_bytes -= o.arrival_bytes;
        self.departures -= o.departures;
        self.departure_bytes -= o.departure_bytes;
        self.drops -= o.drops;
        self.drop_bytes -= o.drop_bytes;
        for (a, b) in self.drops_by.iter_mut().zip(o.drops_by) {
            *a -= b;
        }
    }
}

/// Per-class counters of the classes other than 0 (best effort), allocated at the first
/// packet of such a class: class 0's counts are the totals minus these, so traffic that
/// is never marked costs nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Classes(Option<Box<[ClassCounts; 64]>>);

impl Classes {
    /// Class `c`'s counters (c ≠ 0), created on first use.
    #[inline]
    pub fn get(&mut self, c: u8) -> &mut ClassCounts {
        &mut self.0.get_or_insert_with(|| Box::new([ClassCounts::default(); 64]))[c as usize & 63]
    }

    /// Class `c`'s counters (zero if none seen).
    pub fn peek(&self, c: u8) -> ClassCounts {
        self.0.as_ref().map(|a| a[c as usize & 63]).unwrap_or_default()
    }

    /// The counters of every class other than 0 seen so far.
    pub fn seen(&self) -> impl Iterator<Item = (u8, &ClassCounts)> {
        self.0.iter().flat_map(|a| a.iter().enumerate().skip(1).filter(|(_, c)| **c != ClassCounts::default()).map(|(i, c)| (i as u8, c)))
    }

    /// Whether any class other than 0 was seen.
    pub fn any(&self) -> bool {
        self.0.is_some()
    }

    fn sub(&mut self, o: &Classes) {
        if let (Some(a), Some(b)) = (self.0.as_mut(), o.0.as_ref()) {
            for (x, y) in a.iter_mut().zip(b.iter()) {
                x.sub(y);
            }
        }
    }

    /// Restarts the counters, keeping the queue lengths.
    fn reset(&mut self) {
        if let Some(a) = self.0.as_mut() {
            for c in a.iter_mut() {
                *c = ClassCounts { len_pkts: c.len_pkts, ..Default::default() };
            }
        }
    }
}

/// Drops by reason, packets and bytes: allocated at the first drop (most link directions
/// never drop; 144 bytes each otherwise).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DropCounts(Option<Box<[[u64; DropReason::COUNT]; 2]>>);

impl DropCounts {
    /// Packets dropped for `reason`.
    #[inline]
    pub fn pkts(&self, reason: DropReason) -> u64 {
        self.0.as_ref().map_or(0, |a| a[0][reason as usize])
    }

    /// Bytes dropped for `reason`.
    #[inline]
    pub fn bytes(&self, reason: DropReason) -> u64 {
        self.0.as_ref().map_or(0, |a| a[1][reason as usize])
    }

    /// Packets dropped, every reason.
    pub fn total(&self) -> u64 {
        self.0.as_ref().map_or(0, |a| a[0].iter().sum())
    }

    /// Bytes dropped, every reason.
    pub fn total_bytes(&self) -> u64 {
        self.0.as_ref().map_or(0, |a| a[1].iter().sum())
    }

    /// Packets dropped per reason (indexed by `DropReason as usize`).
    pub fn by_reason(&self) -> [u64; DropReason::COUNT] {
        self.0.as_ref().map_or([0; DropReason::COUNT], |a| a[0])
    }

    #[inline]
    fn counts(&mut self) -> &mut [[u64; DropReason::COUNT]; 2] {
        self.0.get_or_insert_with(Default::default)
    }

    /// A packet of `size` bytes dropped for `reason`.
    #[inline]
    pub fn add(&mut self, reason: DropReason, size: u32) {
        let a = self.counts();
        a[0][reason as usize] += 1;
        a[1][reason as usize] += size as u64;
    }

    /// [`DropCounts::add`] taken back.
    pub fn undo(&mut self, reason: DropReason, size: u32) {
        let a = self.counts();
        a[0][reason as usize] -= 1;
        a[1][reason as usize] -= size as u64;
    }

    /// Takes away the counts of `o` (what had been dropped by some instant).
    fn subtract(&mut self, o: &DropCounts) {
        if let Some(b) = &o.0 {
            let a = self.counts();
            for k in 0..2 {
                for i in 0..DropReason::COUNT {
                    a[k][i] -= b[k][i];
                }
            }
        }
    }
}

/// Counters of one link direction's queue. Time averages cover `[since, now]`.
/// Laid out by hand (`repr(C)`, on a cache line): the counters every packet updates in the
/// first 64 bytes.
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
pub struct QueueStats {
    pub arrivals: u64,
    pub arrival_bytes: u64,
    pub departures: u64,
    pub departure_bytes: u64,
    /// Nanoseconds spent serializing (utilisation = busy / window).
    pub busy_ns: u64,
    pub max_pkts: u64,
    pub max_bytes: u64,
    pub drops: DropCounts,
    area_pkts: u128,
    area_bytes: u128,
    last: Time,
    pub since: Time,
    /// Per-class counters (see [`Classes`]).
    pub classes: Classes,
}

impl QueueStats {
    #[inline]
    fn advance(&mut self, now: Time, len_pkts: usize, len_bytes: u64) {
        let dt = (now - self.last) as u128;
        self.area_pkts += dt * len_pkts as u128;
        self.area_bytes += dt * len_bytes as u128;
        self.last = now;
    }

    /// Called before an arrival is offered to the queue (queue lengths before it).
    #[inline]
    pub fn on_arrival(&mut self, now: Time, len_pkts: usize, len_bytes: u64, size: u32) {
        self.advance(now, len_pkts, len_bytes);
        self.arrivals += 1;
        self.arrival_bytes += size as u64;
    }

    /// Records the queue length after an arrival was handled (peak tracking).
    #[inline]
    pub fn note_len(&mut self, len_pkts: usize, len_bytes: u64) {
        self.max_pkts = self.max_pkts.max(len_pkts as u64);
        self.max_bytes = self.max_bytes.max(len_bytes);
    }

    /// Called before a departure (queue lengths before it).
    #[inline]
    pub fn on_departure(&mut self, now: Time, len_pkts: usize, len_bytes: u64, size: u32) {
        self.advance(now, len_pkts, len_bytes);
        self.departures += 1;
        self.departure_bytes += size as u64;
    }

    /// Adds queue-length area directly (packet·ns, byte·ns): lazy links count a packet's
    /// whole wait when its crossing is decided.
    #[inline]
    pub(crate) fn add_area(&mut self, pkts_ns: u128, bytes_ns: u128) {
        self.area_pkts += pkts_ns;
        self.area_bytes += bytes_ns;
    }

    pub(crate) fn sub_area(&mut self, pkts_ns: u128, bytes_ns: u128) {
        self.area_pkts -= pkts_ns;
        self.area_bytes -= bytes_ns;
    }

    pub(crate) fn undo_drop(&mut self, reason: DropReason, size: u32) {
        self.drops.undo(reason, size);
    }

    /// Marks the area as integrated up to `t`.
    pub(crate) fn set_last(&mut self, t: Time) {
        self.last = t;
    }

    /// Starts the measurement window at `t`.
    pub(crate) fn set_since(&mut self, t: Time) {
        self.since = t;
        self.last = t;
    }

    /// Takes away every additive counter of `o` (what had happened by some instant).
    pub(crate) fn subtract(&mut self, o: &QueueStats) {
        self.arrivals -= o.arrivals;
        self.arrival_bytes -= o.arrival_bytes;
        self.departures -= o.departures;
        self.departure_bytes -= o.departure_bytes;
        self.drops.subtract(&o.drops);
        self.busy_ns -= o.busy_ns;
        self.area_pkts -= o.area_pkts;
        self.area_bytes -= o.area_bytes;
        self.classes.sub(&o.classes);
    }

    /// A packet of `size` bytes taken out of the queue (holding `len_pkts` / `len_bytes`
    /// before) by a node element, at `now`.
    pub fn on_remove(&mut self, now: Time, len_pkts: usize, len_bytes: u64, reason: DropReason, size: u32) {
        self.advance(now, len_pkts, len_bytes);
        self.on_drop(reason, size);
    }

    #[inline]
    pub fn on_drop(&mut self, reason: DropReason, size: u32) {
        self.drops.add(reason, size);
    }

    /// Restarts the counters at `now` (end of warm-up) for a queue currently holding
    /// `len_pkts` / `len_bytes`.
    pub fn reset(&mut self, now: Time, len_pkts: usize, len_bytes: u64) {
        let mut classes = std::mem::take(&mut self.classes);
        classes.reset();
        *self = QueueStats { last: now, since: now, max_pkts: len_pkts as u64, max_bytes: len_bytes, classes, ..Default::default() };
    }

    /// A packet of class `c` (≠ 0), `size` bytes, arrived; `admitted` into the queue.
    #[cold]
    #[inline(never)]
    pub fn class_arrival(&mut self, c: u8, size: u32, admitted: bool) {
        let k = self.classes.get(c);
        k.arrivals += 1;
        k.arrival_bytes += size as u64;
        k.len_pkts += admitted as i64;
    }

    /// A packet of class `c` (≠ 0) left the queue (`queued`: it was in it) for the wire.
    #[cold]
    #[inline(never)]
    pub fn class_departure(&mut self, c: u8, size: u32, queued: bool) {
        let k = self.classes.get(c);
        k.departures += 1;
        k.departure_bytes += size as u64;
        k.len_pkts -= queued as i64;
    }

    /// A packet of class `c` (≠ 0) was dropped for `reason` (`queued`: out of the queue).
    #[cold]
    #[inline(never)]
    pub fn class_drop(&mut self, c: u8, size: u32, queued: bool, reason: DropReason) {
        let k = self.classes.get(c);
        k.drops += 1;
        k.drops_by[reason as usize] += 1;
        k.drop_bytes += size as u64;
        k.len_pkts -= queued as i64;
    }

    /// Time-averaged queue length (packets, bytes) over `[since, now]`.
    pub fn mean_len(&mut self, now: Time, len_pkts: usize, len_bytes: u64) -> (f64, f64) {
        self.advance(now, len_pkts, len_bytes);
        let w = (now - self.since) as f64;
        if w <= 0.0 {
            return (len_pkts as f64, len_bytes as f64);
        }
        (self.area_pkts as f64 / w, self.area_bytes as f64 / w)
    }

    /// Drops for every reason but wire loss.
    pub fn queue_drops(&self) -> u64 {
        self.drops.total() - self.drops.pkts(DropReason::Loss)
    }
}

/// Where a flow's packets were dropped.
#[derive(Clone, Debug)]
pub struct DropSite {
    pub link: u32,
    pub reason: DropReason,
    /// True for packets travelling from sender to receiver (data), false for the reverse.
    pub forward: bool,
    pub pkts: u64,
    pub bytes: u64,
}

/// A flow's drop sites, in order of their first drop. The first is kept inline: a flow
/// seldom has more than one (its bottleneck), and at 10 000 flows the separate buffer of
/// a `Vec` was a cache miss on every drop (8 % of the loop's time in `LazyFifo::refuse`,
/// sampled with `perf`).
pub type DropSites = smallvec::SmallVec<[DropSite; 1]>;

/// Counters of one flow. "Forward" packets go from the flow's source to its sink.
#[derive(Clone, Debug, Default)]
pub struct FlowStats {
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    pub delivered_pkts: u64,
    pub delivered_bytes: u64,
    /// Application payload bytes delivered (every delivery, duplicates included).
    pub delivered_payload: u64,
    /// Unique application payload bytes delivered (set by the receiving agent).
    pub goodput_bytes: u64,
    pub reverse_sent_pkts: u64,
    pub reverse_delivered_pkts: u64,
    pub drop_sites: DropSites,
    pub delay_sum_ns: u128,
    pub delay_min_ns: u64,
    pub delay_max_ns: u64,
    pub since: Time,
    /// Packets with a smaller uid belong to an earlier flow that had this slot (flows
    /// created during a run reuse the slots of finished ones): they are not counted.
    pub uid_floor: u64,
    /// Watched for completion: a drop puts the flow in [`FlowTable::resolved`].
    pub watch: bool,
    /// Per-class counts of packets of classes other than 0 (sent with, delivered with,
    /// dropped with that class; a packet's class may change on the way).
    pub classes: Vec<(u8, FlowClassCounts)>,
}

/// A flow's packets of one class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowClassCounts {
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    pub delivered_pkts: u64,
    pub delivered_bytes: u64,
    /// Bytes of application payload delivered (every delivery, duplicates included).
    pub delivered_payload: u64,
    pub drops: u64,
}

/// Every flow's counters, indexed by flow (slot), with the drop bookkeeping of flows
/// created during a run: drops of packets of an earlier flow in a reused slot are not
/// counted, and a drop of a watched flow is reported (it may complete the flow).
#[derive(Clone, Debug, Default)]
pub struct FlowTable {
    stats: Vec<FlowStats>,
    /// Watched flows that lost a packet since the simulation last looked.
    pub resolved: Vec<u32>,
}

impl FlowTable {
    pub fn new(stats: Vec<FlowStats>) -> Self {
        FlowTable { stats, resolved: Vec::new() }
    }

    /// Counts the drop of packet `p` at `site` (a link direction or an element).
    #[inline]
    pub fn drop_packet(&mut self, site: u32, reason: DropReason, p: &Packet) {
        self.drop_parts(p.flow, p.uid, site, reason, p.kind != crate::packet::Kind::Ack, p.size, p.dscp)
    }

    /// Counts the drop of packet `uid` of `flow` (`forward`: not an ACK), `size` bytes, of
    /// class `dscp`.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn drop_parts(&mut self, flow: u32, uid: u64, site: u32, reason: DropReason, forward: bool, size: u32, dscp: u8) {
        let s = &mut self.stats[flow as usize];
        if uid < s.uid_floor {
            return;
        }
        s.on_drop_parts(site, reason, forward, size);
        if dscp != 0 && forward {
            s.class(dscp).drops += 1;
        }
        if s.watch {
            self.resolved.push(flow);
        }
    }
}

impl std::ops::Deref for FlowTable {
    type Target = Vec<FlowStats>;
    fn deref(&self) -> &Vec<FlowStats> {
        &self.stats
    }
}

impl std::ops::DerefMut for FlowTable {
    fn deref_mut(&mut self) -> &mut Vec<FlowStats> {
        &mut self.stats
    }
}

impl FlowStats {
    #[cold]
    #[inline(never)]
    fn class_delivered(&mut self, p: &Packet) {
        let c = self.class(p.dscp);
        c.delivered_pkts += 1;
        c.delivered_bytes += p.size as u64;
        c.delivered_payload += p.payload as u64;
    }

    /// Class `c`'s counts (c ≠ 0).
    #[cold]
    pub fn class(&mut self, c: u8) -> &mut FlowClassCounts {
        let i = match self.classes.iter().position(|(k, _)| *k == c) {
            Some(i) => i,
            None => {
                self.classes.push((c, FlowClassCounts::default()));
                self.classes.len() - 1
            }
        };
        &mut self.classes[i].1
    }

    /// A drop of a `size`-byte packet (`forward`: a non-ACK packet of this flow).
    #[inline]
    pub fn on_drop_parts(&mut self, link: u32, reason: DropReason, forward: bool, size: u32) {
        match self.drop_sites.iter_mut().find(|s| s.link == link && s.reason == reason && s.forward == forward) {
            Some(s) => {
                s.pkts += 1;
                s.bytes += size as u64;
            }
            None => self.drop_sites.push(DropSite { link, reason, forward, pkts: 1, bytes: size as u64 }),
        }
    }

    /// Takes back a drop counted by [`FlowStats::on_drop_parts`]; a site left empty goes.
    pub fn undo_drop_parts(&mut self, link: u32, reason: DropReason, forward: bool, size: u32) {
        if let Some(i) = self.drop_sites.iter().position(|s| s.link == link && s.reason == reason && s.forward == forward) {
            let s = &mut self.drop_sites[i];
            s.pkts -= 1;
            s.bytes -= size as u64;
            if s.pkts == 0 {
                self.drop_sites.remove(i);
            }
        }
    }

    #[inline]
    pub fn on_delivered(&mut self, now: Time, p: &Packet) {
        self.delivered_pkts += 1;
        self.delivered_bytes += p.size as u64;
        self.delivered_payload += p.payload as u64;
        if p.dscp != 0 {
            self.class_delivered(p);
        }
        let d = now - p.sent_at;
        if self.delivered_pkts == 1 || d < self.delay_min_ns {
            self.delay_min_ns = d;
        }
        self.delay_max_ns = self.delay_max_ns.max(d);
        self.delay_sum_ns += d as u128;
    }

    /// Forward packets dropped in queues / lost on the wire.
    pub fn forward_drops(&self) -> (u64, u64) {
        let mut q = 0;
        let mut l = 0;
        for s in self.drop_sites.iter().filter(|s| s.forward) {
            if s.reason == DropReason::Loss {
                l += s.pkts
            } else {
                q += s.pkts
            }
        }
        (q, l)
    }

    /// Restarts the counters at `now` (end of warm-up).
    pub fn reset(&mut self, now: Time) {
        *self = FlowStats { since: now, uid_floor: self.uid_floor, watch: self.watch, ..Default::default() };
    }

    pub fn mean_delay_s(&self) -> f64 {
        if self.delivered_pkts == 0 {
            f64::NAN
        } else {
            to_secs(1) * (self.delay_sum_ns as f64 / self.delivered_pkts as f64)
        }
    }
}

/// A sampled time series: `time` plus named f64 columns, filled in place.
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub names: Vec<String>,
    pub data: Vec<Vec<f64>>,
}

impl Series {
    pub fn new(name: String, names: Vec<String>) -> Self {
        let data = names.iter().map(|_| Vec::new()).collect();
        Series { name, names, data }
    }
    /// Appends one row (must have one value per column).
    pub fn push_row(&mut self, row: &[f64]) {
        debug_assert_eq!(row.len(), self.data.len());
        for (col, v) in self.data.iter_mut().zip(row) {
            col.push(*v);
        }
    }
    pub fn into_table(self) -> Table {
        Table { columns: self.names.into_iter().zip(self.data.into_iter().map(Column::F64)).collect() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_average_is_exact() {
        let mut s = QueueStats::default();
        // Empty for 10 ns, 1 packet for 10 ns, 3 packets for 20 ns.
        s.on_arrival(10, 0, 0, 100);
        s.on_arrival(20, 1, 100, 100);
        s.on_arrival(20, 2, 200, 100);
        s.note_len(3, 300);
        let (p, b) = s.mean_len(40, 3, 300);
        assert_eq!(p, (10.0 * 1.0 + 20.0 * 3.0) / 40.0);
        assert_eq!(b, (10.0 * 100.0 + 20.0 * 300.0) / 40.0);
        assert_eq!(s.max_pkts, 3);
        s.reset(40, 3, 300);
        assert_eq!(s.mean_len(50, 3, 300).0, 3.0);
    }
}
