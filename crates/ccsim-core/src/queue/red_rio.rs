//! ns-2.35's `Queue/RED/RIO` (`queue/rio.cc`) as it runs, for runs that must behave as
//! ns-2 packet for packet (`tcl/test/test-suite-rio.tcl`). RIO as a model — the averages
//! of Clark and Fang, dsRED's modes — is `kind = "rio"` ([`super::rio`]); this is ns-2's
//! own older class, with its quirks (PROTOCOLS.md §7.6, §11.12):
//!
//! - **IN or OUT** (`priority`): `dscp` — IN if the code point's drop precedence is the
//!   lowest (AFx1; ns-2's `pri_` set by a tagger, `priority_method_ 0`); `ns2_flow_id` —
//!   ns-2's `priority_method_ 1`, `pri_ = fid`: every flow but the first (index 0) is IN.
//! - **Averages**: an IN arrival updates the total average (over the whole queue) and the
//!   IN average (over IN packets), each first decayed for its idle time; an **OUT arrival
//!   updates neither**, so OUT packets are tested against the total average as the last
//!   IN arrival left it. The queue is idle from the moment it is found empty; any
//!   departure clears the total's idle flag, only an IN arrival or departure the IN's, so
//!   after OUT traffic the IN average decays for the whole time since the queue was last
//!   found empty.
//! - **Drop test** per class, RED's (`≥` thresholds, `wait` spacing, gentle per class,
//!   `count` counting arrivals since the last early drop, the first arrival above `min`
//!   only starting the count): IN on the IN average with the IN curve, and only while
//!   more than one IN packet waits; OUT on the total average with the OUT curve, while
//!   more than one packet waits. A forced IN drop resets the IN count, a forced OUT drop
//!   nothing. A full queue (`limit` waiting packets) drops the arrival.
//! - **Defaults** are ns-2.35's (`ns-default.tcl`): IN 15/30 with `in_linterm_ 50` (max_p
//!   0.02), OUT 5/15 with `linterm_ 10` (max_p 0.1: `out_linterm_` is set there but not
//!   bound by `rio.cc`, so OUT uses RED's `linterm_`), gentle off, `wait` on, w_q 0.002,
//!   `mean_pktsize` 500 B.

use super::red::{estimator, spaced, Curve, Uniforms};
use super::{reserve_for, DropReason, Dropped, Fifo, Limit, LinkInfo, Queue, QueueConfig};
use crate::config::{show, Errors, Obj};
use crate::packet::{Packet, PacketPool, PktId};
use crate::rng::{SimRng, Stream};
use crate::units::{to_secs, Time};
use std::sync::Arc;

/// How a packet is classed IN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    Dscp,
    Ns2FlowId,
}

/// One class's RED parameters, thresholds in packets.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ClassParams {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub gentle: bool,
}

/// `kind = "red_rio"`'s configuration (its factory).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RedRioParams {
    pub limit: Limit,
    pub in_class: ClassParams,
    pub out_class: ClassParams,
    pub w_q: f64,
    pub wait: bool,
    pub priority: Priority,
    pub ptc: f64,
    pub rate_bps: u64,
    pub ns2_rng_skip: Option<u64>,
}

/// One class's RED state (ns-2's `edv_in_` / `edv_out_`).
struct Class {
    curve: Curve,
    min_th: f64,
    count: i64,
    old: bool,
}

impl Class {
    fn new(c: ClassParams) -> Self {
        Class { curve: Curve::new(c.min_th, c.max_th, c.max_p, c.gentle), min_th: c.min_th, count: 0, old: false }
    }
}

pub struct RedRio {
    fifo: Fifo,
    p: RedRioParams,
    /// IN packets waiting.
    in_len: usize,
    /// Total and IN averages (ns-2 `ave_`, `in_ave_`).
    avg: f64,
    in_avg: f64,
    classes: [Class; 2],
    idle: bool,
    in_idle: bool,
    idle_time: Time,
    /// The queue emptied: it is found empty at this time unless an arrival comes first.
    empty_at: Option<Time>,
    rng: Uniforms,
    last_p: f64,
}

const IN: usize = 0;
const OUT: usize = 1;

impl RedRio {
    pub fn new(p: RedRioParams, rng: SimRng) -> Self {
        RedRio {
            fifo: Fifo::with_capacity(reserve_for(p.limit)),
            in_len: 0,
            avg: 0.0,
            in_avg: 0.0,
            classes: [Class::new(p.in_class), Class::new(p.out_class)],
            idle: true,
            in_idle: true,
            idle_time: 0,
            empty_at: None,
            rng: Uniforms::new(rng, p.ns2_rng_skip),
            last_p: 0.0,
            p,
        }
    }

    fn is_in(&self, pkt: &Packet) -> bool {
        match self.p.priority {
            Priority::Dscp => super::rio::precedence(pkt.dscp, 2) == 0,
            Priority::Ns2FlowId => pkt.flow != 0,
        }
    }

    /// Packets "arrived" during the idle period (ns-2: `int(ptc · idle time)`).
    fn idle_packets(&self, now: Time) -> i64 {
        (self.p.ptc * to_secs(now.saturating_sub(self.idle_time))) as i64
    }

    /// The un-spaced drop probability of class `k` (0 IN, 1 OUT) at average `avg`.
    pub fn p_b(&self, k: usize, avg: f64) -> f64 {
        self.classes[k].curve.p_b(avg)
    }

    /// ns-2's RED test of class `k` for an arrival that sees `avg` and `waiting` packets of
    /// the class (the count already includes the arrival).
    fn test(&mut self, k: usize, avg: f64, waiting: usize) -> Option<DropReason> {
        let c = &mut self.classes[k];
        if !(avg >= c.min_th && waiting > 1) {
            c.old = false;
            self.last_p = 0.0;
            return None;
        }
        if c.curve.forced(avg) {
            self.last_p = 1.0;
            return Some(DropReason::Forced);
        }
        if !c.old {
            c.count = 1;
            c.old = true;
            return None;
        }
        let pa = spaced(c.curve.p_b(avg), c.count, self.p.wait);
        self.last_p = pa;
        if self.rng.u01() <= pa {
            c.count = 0;
            return Some(DropReason::Early);
        }
        None
    }

    /// The arrival's fate (`None`: it joins the queue).
    fn decide(&mut self, now: Time, is_in: bool, size: u32) -> Option<DropReason> {
        let qlen = self.fifo.len();
        let verdict = if is_in {
            let m_in = if std::mem::take(&mut self.in_idle) { self.idle_packets(now) } else { 0 };
            let m = if std::mem::take(&mut self.idle) { self.idle_packets(now) } else { 0 };
            self.avg = estimator(self.avg, m, self.p.w_q, qlen as f64);
            self.in_avg = estimator(self.in_avg, m_in, self.p.w_q, self.in_len as f64);
            self.classes[IN].count += 1;
            self.test(IN, self.in_avg, self.in_len)
        } else {
            self.classes[OUT].count += 1;
            self.test(OUT, self.avg, qlen)
        };
        let verdict = if self.p.limit.admits(&self.fifo, size) { verdict } else { Some(DropReason::Overflow) };
        if is_in && matches!(verdict, Some(DropReason::Forced | DropReason::Overflow)) {
            self.classes[IN].count = 0;
        }
        verdict
    }

    /// Total and IN averages.
    pub fn averages(&self) -> (f64, f64) {
        (self.avg, self.in_avg)
    }
}

impl Queue for RedRio {
    fn enqueue(&mut self, now: Time, id: PktId, pool: &PacketPool, dropped: &mut Dropped) {
        if let Some(t) = self.empty_at.take() {
            if now >= t {
                // ns-2's deque() found the queue empty at t.
                (self.idle, self.in_idle, self.idle_time) = (true, true, t);
            }
        }
        let pkt = pool.get(id);
        let is_in = self.is_in(pkt);
        if let Some(r) = self.decide(now, is_in, pkt.size) {
            dropped.push((id, r));
            return;
        }
        self.fifo.push(id, pool);
        self.in_len += is_in as usize;
    }

    fn dequeue(&mut self, now: Time, pool: &PacketPool) -> Option<PktId> {
        let id = self.fifo.pop(pool)?;
        let pkt = pool.get(id);
        self.idle = false;
        if self.is_in(pkt) {
            self.in_idle = false;
            self.in_len -= 1;
        }
        if self.fifo.is_empty() {
            self.empty_at = Some(now + crate::units::serialization(pkt.size, self.p.rate_bps.max(1), &mut 0));
        }
        Some(id)
    }

    fn remove_where(&mut self, pool: &PacketPool, pred: &mut dyn FnMut(&Packet) -> bool, removed: &mut Vec<PktId>) -> bool {
        let before = removed.len();
        self.fifo.remove_where(pool, pred, removed);
        for &id in &removed[before..] {
            self.in_len -= self.is_in(pool.get(id)) as usize;
        }
        true
    }
    super::fifo_accessors!();
    fn probe_names(&self) -> &'static [&'static str] {
        &["red_rio_avg", "red_rio_in_avg", "red_rio_in_len", "red_rio_p"]
    }
    fn probe(&self, out: &mut Vec<f64>) {
        out.extend([self.avg, self.in_avg, self.in_len as f64, self.last_p]);
    }
}

impl QueueConfig for RedRioParams {
    fn kind(&self) -> &'static str {
        "red_rio"
    }
    fn build(&self, rng: Stream) -> Box<dyn Queue> {
        Box::new(RedRio::new(self.clone(), rng.rng()))
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
    fn byte_limit(&self) -> Option<u64> {
        self.limit.bytes()
    }
}

/// A class's `[min_th, max_th, max_p]` (`field`), or its default.
fn class(o: &mut Obj, field: &'static str, default: [f64; 3], gentle: bool, errs: &mut Errors) -> Option<ClassParams> {
    let [min_th, max_th, max_p] = match o.get(field) {
        None => default,
        Some(v) => {
            let t = v.as_array().filter(|t| t.len() == 3).and_then(|t| Some([t[0].as_f64()?, t[1].as_f64()?, t[2].as_f64()?]));
            match t {
                Some([lo, hi, p]) if lo >= 0.0 && hi > lo && p > 0.0 && p <= 1.0 => [lo, hi, p],
                _ => {
                    errs.add(
                        o.at(field),
                        format!("expected [min_th, max_th, max_p] with 0 <= min_th < max_th and 0 < max_p <= 1, got {}", show(v)),
                    );
                    return None;
                }
            }
        }
    };
    Some(ClassParams { min_th, max_th, max_p, gentle })
}

/// Scenario: `{ kind = "red_rio", limit = 50, in_thresholds = [15, 30, 0.02], out_thresholds
/// = [5, 15, 0.1], gentle = false (both classes), in_gentle, out_gentle, w_q = 0.002, wait =
/// true, mean_pktsize = 500, priority = "dscp" | "ns2_flow_id", rng = "own" | "ns2", rng_skip
/// }` (ns-2's `in_thresh_`/`in_maxthresh_`/`1/in_linterm_`, `out_thresh_`/`out_maxthresh_`/
/// `1/linterm_`, `priority_method_` 0/1).
pub fn parse(o: &mut Obj, link: &LinkInfo, errs: &mut Errors) -> Option<Arc<dyn QueueConfig>> {
    let limit = super::parse_limit(o, "limit", Limit::Packets(super::DEFAULT_QUEUE_LIMIT), errs);
    let gentle = o.boolean("gentle", errs).unwrap_or(false);
    let in_gentle = o.boolean("in_gentle", errs).unwrap_or(false) || gentle;
    let out_gentle = o.boolean("out_gentle", errs).unwrap_or(false) || gentle;
    let in_class = class(o, "in_thresholds", [15.0, 30.0, 0.02], in_gentle, errs);
    let out_class = class(o, "out_thresholds", [5.0, 15.0, 0.1], out_gentle, errs);
    let w_q = o.float("w_q", 1e-9, 1.0, errs).unwrap_or(0.002);
    let wait = o.boolean("wait", errs).unwrap_or(true);
    let mean = o.size("mean_pktsize", errs).unwrap_or(500).max(1) as f64;
    let priority = match o.choice("priority", &["dscp", "ns2_flow_id"], Some("dscp"), errs)? {
        "ns2_flow_id" => Priority::Ns2FlowId,
        _ => Priority::Dscp,
    };
    let ns2_rng_skip = super::red::parse_rng(o, errs);
    Some(Arc::new(RedRioParams {
        limit: limit?,
        in_class: in_class?,
        out_class: out_class?,
        w_q,
        wait,
        priority,
        ptc: super::red::RedParams::ptc(link.rate_bps, mean),
        rate_bps: link.rate_bps,
        ns2_rng_skip,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> RedRioParams {
        RedRioParams {
            limit: Limit::Packets(100),
            in_class: ClassParams { min_th: 10.0, max_th: 20.0, max_p: 0.1, gentle: false },
            out_class: ClassParams { min_th: 3.0, max_th: 9.0, max_p: 0.1, gentle: false },
            w_q: 1.0,
            wait: false,
            priority: Priority::Dscp,
            ptc: 1000.0,
            rate_bps: 8_000_000,
            ns2_rng_skip: None,
        }
    }

    fn offer(q: &mut RedRio, pool: &mut PacketPool, now: Time, dscp: u8) -> Option<DropReason> {
        let id = pool.alloc(Packet { size: 1000, dscp, ..Default::default() });
        let mut d = Vec::new();
        q.enqueue(now, id, pool, &mut d);
        d.first().map(|&(_, r)| r)
    }

    #[test]
    fn out_arrivals_leave_both_averages_alone() {
        let (mut q, mut pool) = (RedRio::new(params(), crate::rng::stream(1, "t")), PacketPool::new());
        for _ in 0..5 {
            offer(&mut q, &mut pool, 0, 12);
        }
        assert_eq!(q.averages(), (0.0, 0.0));
        // w_q = 1: an IN arrival sets the total average to the 5 OUT packets waiting and
        // the IN average to 0 IN packets.
        offer(&mut q, &mut pool, 0, 10);
        assert_eq!(q.averages(), (5.0, 0.0));
        offer(&mut q, &mut pool, 0, 10);
        assert_eq!(q.averages(), (6.0, 1.0));
        // Total average 6 ≥ OUT max_th 9? No: early region, first arrival only counts.
        assert_eq!(offer(&mut q, &mut pool, 0, 12), None);
        assert!(q.classes[OUT].old);
        // OUT arrivals keep seeing 6 however long the queue grows (until the limit).
        for _ in 0..2000 {
            if offer(&mut q, &mut pool, 0, 12) == Some(DropReason::Overflow) {
                break;
            }
        }
        assert_eq!(q.averages(), (6.0, 1.0));
        assert_eq!(q.len_pkts(), 100);
    }

    #[test]
    fn in_test_needs_two_in_packets_waiting_and_forced_resets_the_count() {
        let mut p = params();
        p.in_class = ClassParams { min_th: 0.5, max_th: 2.5, max_p: 0.1, gentle: false };
        let (mut q, mut pool) = (RedRio::new(p, crate::rng::stream(1, "t")), PacketPool::new());
        // IN average ≥ min_th but at most one IN packet waiting: never dropped.
        assert_eq!(offer(&mut q, &mut pool, 0, 10), None);
        assert_eq!(offer(&mut q, &mut pool, 0, 10), None);
        assert!(!q.classes[IN].old);
        // Two waiting, average 2: the crossing arrival only starts the count.
        assert_eq!(offer(&mut q, &mut pool, 0, 10), None);
        assert_eq!((q.classes[IN].old, q.classes[IN].count), (true, 1));
        // Three waiting, average 3 ≥ max_th: forced, count back to 0.
        assert_eq!(offer(&mut q, &mut pool, 0, 10), Some(DropReason::Forced));
        assert_eq!(q.classes[IN].count, 0);
    }

    #[test]
    fn idle_decay_counts_from_when_the_queue_was_found_empty() {
        let mut p = params();
        p.w_q = 0.5;
        let (mut q, mut pool) = (RedRio::new(p, crate::rng::stream(1, "t")), PacketPool::new());
        offer(&mut q, &mut pool, 0, 10);
        offer(&mut q, &mut pool, 0, 10);
        let (a, i) = q.averages();
        // Both leave; the last is sent by 2 ms (1000 B at 8 Mb/s from 1 ms).
        let x = q.dequeue(0, &pool).unwrap();
        pool.free(x);
        let x = q.dequeue(1_000_000, &pool).unwrap();
        pool.free(x);
        // An OUT packet at 3 ms (idle for 1 ms: one packet time at ptc 1000) leaves by 4 ms.
        offer(&mut q, &mut pool, 3_000_000, 12);
        let x = q.dequeue(3_000_000, &pool).unwrap();
        pool.free(x);
        // An IN arrival at 3.5 ms, while the OUT packet is still being sent: the total
        // average does not decay (that departure cleared the idle flag), the IN one decays
        // for the 1.5 ms since the queue was found empty at 2 ms (1 packet time).
        offer(&mut q, &mut pool, 3_500_000, 10);
        let want_total = estimator(a, 0, 0.5, 0.0);
        let want_in = estimator(i, 1, 0.5, 0.0);
        assert_eq!(q.averages(), (want_total, want_in));
    }

    #[test]
    fn ns2_flow_id_priority_makes_every_flow_but_the_first_in() {
        let mut p = params();
        p.priority = Priority::Ns2FlowId;
        let q = RedRio::new(p, crate::rng::stream(1, "t"));
        assert!(!q.is_in(&Packet { flow: 0, dscp: 10, ..Default::default() }));
        assert!(q.is_in(&Packet { flow: 1, dscp: 0, ..Default::default() }));
    }

    /// The measured early-drop fraction at a held average, per class, against the curve
    /// under count spacing (without wait: p_b/(1 − count·p_b)).
    #[test]
    fn measured_drop_rates_follow_each_class_curve() {
        for (dscp, k, qlen) in [(12u8, OUT, 5usize), (12, OUT, 8), (10, IN, 12), (10, IN, 18)] {
            let (mut q, mut pool) = (RedRio::new(params(), crate::rng::stream(qlen as u64, "t")), PacketPool::new());
            while q.len_pkts() < qlen {
                let id = pool.alloc(Packet { size: 1000, dscp, ..Default::default() });
                q.fifo.push(id, &pool);
                q.in_len += (k == IN) as usize;
            }
            q.idle = false;
            q.in_idle = false;
            q.avg = qlen as f64; // OUT arrivals never move it
            let n = 100_000;
            let mut drops = 0;
            for i in 0..n + 2 {
                let id = pool.alloc(Packet { size: 1000, dscp, ..Default::default() });
                let mut d = Vec::new();
                q.enqueue(0, id, &pool, &mut d);
                if d.is_empty() {
                    let out = q.dequeue(0, &pool).unwrap();
                    pool.free(out);
                    q.empty_at = None;
                } else {
                    pool.free(id);
                    drops += (i >= 2) as usize;
                }
            }
            let pb = q.p_b(k, qlen as f64);
            let (mut surv, mut mean) = (1.0, 0.0);
            for count in 1..10_000 {
                mean += surv;
                surv *= 1.0 - spaced(pb, count, false);
            }
            let (want, got) = (1.0 / mean, drops as f64 / n as f64);
            let tol = 5.0 * (want * (1.0 - want) / n as f64).sqrt() + 1e-3;
            assert!((got - want).abs() <= tol, "class {k} q={qlen}: {got} vs {want}");
        }
    }
}
