//! RED (Floyd & Jacobson 1993) as ns-2.35's `Queue/RED` implements it, in packet mode.
//!
//! - Average on each arrival `avg = (1 − w_q)·avg + w_q·q`; after an idle period of T the
//!   first arrival first decays `avg` by `(1 − w_q)^m`, `m = ptc·T`.
//! - Between the thresholds `p_b = max_p·(avg − min_th)/(max_th − min_th)`; gentle mode
//!   extends it linearly to 1 at `2·max_th`; above that (or above `max_th` without gentle)
//!   every arrival is dropped (forced).
//! - `count` spaces drops: with `wait` (ns-2 default) `p_a = 0` if `count·p_b < 1`,
//!   `p_b/(2 − count·p_b)` if `< 2`, else 1; without it `p_a = p_b/(1 − count·p_b)`.
//! - No early drop while the instantaneous queue holds at most one packet; when `avg`
//!   first crosses `min_th` that arrival only starts the count (a forced drop leaves that
//!   state as it is).
//! - The link is idle from the end of its last transmission (ns-2's `deque()` finding the
//!   queue empty); the arithmetic is ns-2's (`(v_a·avg + v_b)·max_p`, the decay multiplied
//!   step by step), so that with `rng = "ns2"` (ns-2's default MRG32k3a stream, after
//!   `rng_skip` draws) a run reproduces ns-2's drops.
//!
//! Defaults follow ns-2.35: when thresholds are not given, `min_th = max(5, 0.005·ptc/2)`
//! and `max_th = 3·min_th`; `w_q = 1 − exp(−1/(10·RTT·ptc))` with
//! `RTT = max(0.1, 3·(delay + 1/ptc))`; `max_p = 0.1`; gentle and wait on;
//! `mean_pktsize = 500` B; `ptc = rate/(8·mean_pktsize)`.

use super::{reserve_for, DropReason, Dropped, Fifo, Limit, LinkInfo, Queue, QueueConfig};
use crate::config::{Errors, Obj};
use crate::packet::{PacketPool, PktId};
use crate::rng::{Mrg32k3a, Rng, SimRng, Stream};
use crate::units::{to_secs, Time};
use std::sync::Arc;

/// RED's typed configuration, resolved for its link (thresholds in packets); also its
/// factory ([`QueueConfig`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RedParams {
    pub limit: Limit,
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub w_q: f64,
    pub gentle: bool,
    pub wait: bool,
    /// Packets per second at the link rate with mean-size packets (idle decay).
    pub ptc: f64,
    /// The link's rate (the end of a transmission starts an idle period).
    pub rate_bps: u64,
    /// Draw from ns-2's default RNG (MRG32k3a, seed 1) after this many draws, instead of the
    /// queue's own stream: ns-2 shares that stream with every consumer (each TCP agent
    /// draws twice before the run), so a reproduction skips what they drew.
    pub ns2_rng_skip: Option<u64>,
}

impl RedParams {
    /// ns-2.35 automatic parameters for a link of `rate_bps` and one-way `delay`.
    pub fn ns2_auto_min_th(ptc: f64) -> f64 {
        (0.005 * ptc / 2.0).max(5.0)
    }
    pub fn ns2_auto_w_q(ptc: f64, delay: Time) -> f64 {
        let rtt = (3.0 * (to_secs(delay) + 1.0 / ptc)).max(0.1);
        1.0 - libm::exp(-1.0 / (10.0 * rtt * ptc))
    }
    pub fn ptc(rate_bps: u64, mean_pktsize: f64) -> f64 {
        rate_bps as f64 / (8.0 * mean_pktsize)
    }
}

pub struct Red {
    fifo: Fifo,
    p: RedParams,
    avg: f64,
    count: i64,
    /// Whether avg was above min_th at the previous arrival (ns-2 `edv_.old`).
    old: bool,
    idle_since: Option<Time>,
    rng: Uniforms,
    last_p: f64,
    curve: Curve,
}

impl Red {
    pub fn new(p: RedParams, rng: SimRng) -> Self {
        let curve = Curve::new(p.min_th, p.max_th, p.max_p, p.gentle);
        let rng = Uniforms::new(rng, p.ns2_rng_skip);
        Red {
            fifo: Fifo::with_capacity(reserve_for(p.limit)),
            p,
            avg: 0.0,
            count: -1,
            old: false,
            idle_since: Some(0),
            rng,
            last_p: 0.0,
            curve,
        }
    }

    /// Current average queue length (packets).
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// The un-spaced drop probability `p_b` for an average `avg` (the configured curve).
    pub fn p_b(&self, avg: f64) -> f64 {
        self.curve.p_b(avg)
    }

    /// Drop probability after count-based spacing.
    fn p_a(&self, p_b: f64, count: i64) -> f64 {
        spaced(p_b, count, self.p.wait)
    }

    fn update_avg(&mut self, now: Time) {
        let w = self.p.w_q;
        let q = self.fifo.len() as f64;
        let m = match self.idle_since.take() {
            Some(t) => (self.p.ptc * to_secs(now.saturating_sub(t))) as i64,
            None => 0,
        };
        self.avg = estimator(self.avg, m, w, q);
    }

    /// The arrival's fate: `None` = accept, `Some(reason)` = drop.
    fn decide(&mut self) -> Option<DropReason> {
        let p = &self.p;
        let qlen = self.fifo.len();
        if self.avg >= p.min_th && qlen > 1 {
            if self.curve.forced(self.avg) {
                self.count = 0;
                return Some(DropReason::Forced);
            }
            if !self.old {
                self.count = 1;
                self.old = true;
                return None;
            }
            self.count += 1;
            let pb = self.p_b(self.avg);
            let pa = self.p_a(pb, self.count);
            self.last_p = pa;
            let u = self.rng.u01();
            if u <= pa && pa > 0.0 {
                self.count = 0;
                return Some(DropReason::Early);
            }
            None
        } else {
            self.old = false;
            self.count = -1;
            self.last_p = 0.0;
            None
        }
    }
}

/// One RED drop curve in ns-2's arithmetic (`REDQueue::calculate_p_new`): `p_b =
/// (v_a·avg + v_b)·max_p` between the thresholds, gentle `v_c·avg + v_d` from `max_th`.
#[derive(Clone, Copy, Debug)]
pub struct Curve {
    pub max_th: f64,
    pub max_p: f64,
    pub gentle: bool,
    v: [f64; 4],
}

impl Curve {
    pub fn new(min_th: f64, max_th: f64, max_p: f64, gentle: bool) -> Self {
        let span = max_th - min_th;
        let v = [1.0 / span, -min_th / span, (1.0 - max_p) / max_th, 2.0 * max_p - 1.0];
        Curve { max_th, max_p, gentle, v }
    }

    /// The un-spaced drop probability at average `avg` (clamped to [0, 1]).
    pub fn p_b(&self, avg: f64) -> f64 {
        let [v_a, v_b, v_c, v_d] = self.v;
        let v = if avg >= self.max_th {
            if self.gentle {
                v_c * avg + v_d
            } else {
                1.0
            }
        } else {
            (v_a * avg + v_b) * self.max_p
        };
        v.clamp(0.0, 1.0)
    }

    /// Whether `avg` is past the curve: every arrival dropped (forced).
    pub fn forced(&self, avg: f64) -> bool {
        avg >= if self.gentle { 2.0 * self.max_th } else { self.max_th }
    }
}

/// ns-2's `modify_p`: the drop probability after count-based spacing (`wait`: uniform
/// inter-drop gaps; else `p_b/(1 − count·p_b)`), at most 1.
pub fn spaced(p_b: f64, count: i64, wait: bool) -> f64 {
    let c = count as f64;
    let v = if wait {
        if c * p_b < 1.0 {
            0.0
        } else if c * p_b < 2.0 {
            p_b / (2.0 - c * p_b)
        } else {
            1.0
        }
    } else if c * p_b < 1.0 {
        p_b / (1.0 - c * p_b)
    } else {
        1.0
    };
    v.min(1.0)
}

/// ns-2's `REDQueue::estimator`: `avg` multiplied by `(1 − w)` `m + 1` times (step by step
/// as ns-2 rounds; by squaring past a long idle period), then `+ w·q`.
pub fn estimator(avg: f64, m: i64, w: f64, q: f64) -> f64 {
    let mut a = avg;
    if m < 4096 {
        for _ in 0..=m.max(0) {
            a *= 1.0 - w;
        }
    } else {
        a *= crate::rng::powi_exact(1.0 - w, (m + 1).min(u32::MAX as i64) as u32);
    }
    a + w * q
}

/// A RED queue's uniform draws: its own stream, or ns-2's default stream after some draws.
pub struct Uniforms {
    own: SimRng,
    ns2: Option<Box<Mrg32k3a>>,
}

impl Uniforms {
    pub fn new(own: SimRng, ns2_skip: Option<u64>) -> Self {
        Uniforms { own, ns2: ns2_skip.map(|k| Box::new(Mrg32k3a::ns2_default(k))) }
    }

    pub fn u01(&mut self) -> f64 {
        match self.ns2.as_mut() {
            Some(g) => g.next_u01(),
            None => self.own.gen(),
        }
    }
}

/// `rng = "own" | "ns2"` and `rng_skip`: the ns-2 stream's skip, if chosen.
pub fn parse_rng(o: &mut Obj, errs: &mut Errors) -> Option<u64> {
    let ns2 = o.choice("rng", &["own", "ns2"], Some("own"), errs) == Some("ns2");
    let skip = o.int("rng_skip", 0, 1 << 40, errs);
    if skip.is_some() && !ns2 {
        errs.add(o.at("rng_skip"), "applies to rng = \"ns2\" only");
    }
    ns2.then(|| skip.unwrap_or(0) as u64)
}

impl Queue for Red {
    fn enqueue(&mut self, now: Time, id: PktId, pool: &PacketPool, dropped: &mut Dropped) {
        self.update_avg(now);
        if let Some(reason) = self.decide() {
            dropped.push((id, reason));
            return;
        }
        if self.p.limit.admits(&self.fifo, pool.get(id).size) {
            self.fifo.push(id, pool);
        } else {
            self.count = 0;
            dropped.push((id, DropReason::Overflow));
        }
    }

    fn dequeue(&mut self, now: Time, pool: &PacketPool) -> Option<PktId> {
        let id = self.fifo.pop(pool);
        if self.fifo.is_empty() && self.idle_since.is_none() {
            // Idle once the packet now leaving has been sent (an arrival before then finds
            // the link busy: no decay).
            let tx = id.map(|i| crate::units::serialization(pool.get(i).size, self.p.rate_bps.max(1), &mut 0)).unwrap_or(0);
            self.idle_since = Some(now + tx);
        }
        id
    }

    fn remove_where(&mut self, pool: &PacketPool, pred: &mut dyn FnMut(&crate::packet::Packet) -> bool, removed: &mut Vec<PktId>) -> bool {
        self.fifo.remove_where(pool, pred, removed);
        true
    }
    super::fifo_accessors!();
    fn probe_names(&self) -> &'static [&'static str] {
        &["red_avg", "red_p"]
    }
    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.avg);
        out.push(self.last_p);
    }
}

impl QueueConfig for RedParams {
    fn kind(&self) -> &'static str {
        "red"
    }
    fn build(&self, rng: Stream) -> Box<dyn Queue> {
        Box::new(Red::new(self.clone(), rng.rng()))
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
    fn byte_limit(&self) -> Option<u64> {
        self.limit.bytes()
    }
}

/// Scenario: `{ kind = "red", limit = 50, min_th = 5, max_th = 15, max_p = 0.1, w_q = 0.002,
/// gentle = true, wait = true, mean_pktsize = 500, rng = "own" }`; omitted thresholds and
/// `w_q` take ns-2.35's automatic values for the link; `rng = "ns2"` (with `rng_skip`) draws
/// from ns-2's default stream.
pub fn parse(o: &mut Obj, link: &LinkInfo, errs: &mut Errors) -> Option<Arc<dyn QueueConfig>> {
    let limit = super::parse_limit(o, "limit", Limit::Packets(super::DEFAULT_QUEUE_LIMIT), errs);
    let mean = o.size("mean_pktsize", errs).unwrap_or(500) as f64;
    let ptc = RedParams::ptc(link.rate_bps, mean);
    let min_th = o.float("min_th", 0.0, 1e9, errs);
    let max_th = o.float("max_th", 0.0, 1e9, errs);
    let min_th = min_th.unwrap_or_else(|| RedParams::ns2_auto_min_th(ptc));
    let max_th = max_th.unwrap_or(3.0 * min_th);
    if max_th <= min_th {
        errs.add(o.at("max_th"), format!("max_th ({max_th}) must be greater than min_th ({min_th})"));
        return None;
    }
    let max_p = o.float("max_p", 0.0, 1.0, errs).unwrap_or(0.1);
    let w_q = o.float("w_q", 1e-9, 1.0, errs).unwrap_or_else(|| RedParams::ns2_auto_w_q(ptc, link.delay));
    let gentle = o.boolean("gentle", errs).unwrap_or(true);
    let wait = o.boolean("wait", errs).unwrap_or(true);
    let ns2_rng_skip = parse_rng(o, errs);
    Some(Arc::new(RedParams { limit: limit?, min_th, max_th, max_p, w_q, gentle, wait, ptc, rate_bps: link.rate_bps, ns2_rng_skip }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Packet;
    use crate::rng::stream;

    fn params(gentle: bool, wait: bool) -> RedParams {
        RedParams {
            limit: Limit::Packets(1000),
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 1.0,
            gentle,
            wait,
            ptc: 1000.0,
            rate_bps: 8_000_000,
            ns2_rng_skip: None,
        }
    }

    /// Expected long-run drop rate for a constant p_b under count-based spacing:
    /// 1 / E[arrivals between drops], computed exactly from the survival function.
    fn expected_rate(red: &Red, pb: f64) -> f64 {
        let mut surv = 1.0;
        let mut mean = 0.0;
        for count in 1..100_000i64 {
            mean += surv;
            surv *= 1.0 - red.p_a(pb, count);
            if surv < 1e-15 {
                break;
            }
        }
        1.0 / mean
    }

    /// Holds the queue at `qlen` packets (w_q = 1, so avg = qlen) and measures the
    /// fraction of arrivals dropped.
    fn measured_rate(red: &mut Red, pool: &mut PacketPool, qlen: usize, n: usize) -> f64 {
        let mut dropped = Vec::new();
        while red.len_pkts() < qlen {
            let id = pool.alloc(Packet { size: 1000, ..Default::default() });
            red.fifo.push(id, pool);
        }
        red.idle_since = None;
        // Two arrivals to settle `old`.
        let mut drops = 0;
        for i in 0..n + 2 {
            let id = pool.alloc(Packet { size: 1000, ..Default::default() });
            dropped.clear();
            red.enqueue(0, id, pool, &mut dropped);
            if dropped.is_empty() {
                let out = red.dequeue(0, pool).unwrap();
                pool.free(out);
                red.idle_since = None;
            } else {
                pool.free(id);
                if i >= 2 {
                    drops += 1;
                }
            }
        }
        drops as f64 / n as f64
    }

    #[test]
    fn drop_rate_follows_configured_curve() {
        for &(gentle, wait) in &[(true, true), (false, false), (true, false)] {
            for &qlen in &[8usize, 10, 14, 18, 25] {
                let mut red = Red::new(params(gentle, wait), stream(qlen as u64, "red"));
                let mut pool = PacketPool::new();
                let n = 200_000;
                let got = measured_rate(&mut red, &mut pool, qlen, n);
                let avg = qlen as f64;
                let forced = if gentle { avg >= 30.0 } else { avg >= 15.0 };
                let want = if forced { 1.0 } else { expected_rate(&red, red.p_b(avg)) };
                // Binomial-ish tolerance: 5 standard errors, plus a small absolute floor.
                let tol = 5.0 * (want * (1.0 - want) / n as f64).sqrt() + 1e-3;
                assert!((got - want).abs() <= tol, "gentle={gentle} wait={wait} q={qlen}: measured {got:.5}, expected {want:.5}");
            }
        }
    }

    #[test]
    fn curve_shape() {
        let red = Red::new(params(true, true), stream(1, "red"));
        assert_eq!(red.p_b(5.0), 0.0);
        assert!((red.p_b(10.0) - 0.05).abs() < 1e-12);
        assert!((red.p_b(15.0) - 0.1).abs() < 1e-12);
        assert!((red.p_b(22.5) - 0.55).abs() < 1e-12);
        assert_eq!(red.p_b(30.0), 1.0);
        let red = Red::new(params(false, true), stream(1, "red"));
        assert_eq!(red.p_b(15.0), 1.0);
    }

    #[test]
    fn below_min_th_never_drops_and_idle_decays() {
        let mut p = params(true, true);
        p.w_q = 0.002;
        let mut red = Red::new(p, stream(1, "red"));
        let mut pool = PacketPool::new();
        let mut dropped = Vec::new();
        for _ in 0..4 {
            let id = pool.alloc(Packet { size: 1000, ..Default::default() });
            red.enqueue(0, id, &pool, &mut dropped);
        }
        assert!(dropped.is_empty());
        let a = red.avg();
        while let Some(id) = red.dequeue(1_000_000, &pool) {
            pool.free(id);
        }
        // The last packet left at 1 ms and was sent by 2 ms (1000 B at 8 Mb/s): one second
        // idle at ptc = 1000, so avg decays by (1-w)^1001 then adds w·0.
        let id = pool.alloc(Packet { size: 1000, ..Default::default() });
        red.enqueue(1_002_000_000, id, &pool, &mut dropped);
        let expect = a * crate::rng::powi_exact(1.0 - 0.002, 1001);
        assert!((red.avg() - expect).abs() < 1e-12, "{} vs {}", red.avg(), expect);
    }

    #[test]
    fn an_arrival_while_the_last_packet_is_sent_sees_no_idle_period() {
        let mut p = params(true, true);
        p.w_q = 0.002;
        p.ptc = 100_000.0; // 90 steps of decay in 0.9 ms, were the link idle
        let mut red = Red::new(p, stream(1, "red"));
        let mut pool = PacketPool::new();
        let mut dropped = Vec::new();
        for _ in 0..3 {
            let id = pool.alloc(Packet { size: 1000, ..Default::default() });
            red.enqueue(0, id, &pool, &mut dropped);
        }
        let a = red.avg();
        assert!(a > 0.0);
        while let Some(out) = red.dequeue(0, &pool) {
            pool.free(out);
        }
        // The last one is sent from 0 to 1 ms at 8 Mb/s: an arrival at 0.9 ms decays avg once, as any arrival.
        let id = pool.alloc(Packet { size: 1000, ..Default::default() });
        red.enqueue(900_000, id, &pool, &mut dropped);
        assert_eq!(red.avg(), a * (1.0 - 0.002));
    }

    #[test]
    fn ns2_auto_parameters() {
        // 10 Mb/s, 500 B mean: ptc = 2500 pkt/s; min_th = max(5, 6.25) = 6.25.
        let ptc = RedParams::ptc(10_000_000, 500.0);
        assert_eq!(ptc, 2500.0);
        assert_eq!(RedParams::ns2_auto_min_th(ptc), 6.25);
        let w = RedParams::ns2_auto_w_q(ptc, 10_000_000);
        let rtt = 0.1f64.max(3.0 * (0.01 + 1.0 / 2500.0));
        assert!((w - (1.0 - libm::exp(-1.0f64 / (10.0 * rtt * 2500.0)))).abs() < 1e-15);
    }
}
