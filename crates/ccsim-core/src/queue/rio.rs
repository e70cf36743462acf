//! RIO: RED with In and Out (Clark & Fang 1998), as ns-2's dsRED multi-RED queue runs it
//! (`diffserv/dsredq.cc`; PROTOCOLS.md §7.6–7.7, §11.12–11.14): one FIFO, one RED test per
//! drop precedence with its own thresholds, an average per precedence, and a precedence
//! read from each packet's code point.
//!
//! - **Precedence** of a packet, from its code point through the PHB table (`phb`, ns-2
//!   dsRED's `addPHBEntry` without the physical queue): by default an AF code point's drop
//!   precedence (AFx1 → 0, AFx2 → 1, AFx3 → 2, RFC 2597), capped at the last configured
//!   precedence, and any other code point (best effort) the last precedence (OUT). Paper A:
//!   IN = AF11, OUT = AF12.
//! - **Averages** (`mode`): `rio_c` (ns-2's default, "coupled"): precedence k averages the
//!   packets of precedences 0..=k, and an arrival of precedence j updates the averages of
//!   j..N−1 — the IN average moves on IN arrivals, the total on every arrival (§11.13);
//!   `rio_d` ("decoupled"): each its own packets, updated on its own arrivals; `wred`: one
//!   average of the whole queue, updated on every arrival, with per-precedence thresholds.
//!   ns-2's older `Queue/RED/RIO` (OUT arrivals test a stale total average, §7.6) is
//!   [`super::red_rio`].
//! - **Drop test** (dsRED's): the physical queue full → `overflow`; else with the arrival's
//!   average `avg` and its precedence's `(min, max, max_p)`: `avg > max` → forced drop
//!   (count 0); `min < avg ≤ max` → `count += 1`, `p_b = max_p·(avg − min)/(max − min)`,
//!   `p_a = p_b/(1 − count·p_b)` (unguarded as ns-2: negative when `count·p_b > 1`, and no
//!   early drop then; `guard = true` makes it 1), early drop if `U ≤ p_a` (count 0);
//!   `avg ≤ min` → count −1. No gentle or byte mode.
//! - **Idle decay**, per precedence as dsRED keeps it: when a packet leaves (its
//!   transmission starts) and its precedence has no packet left, that precedence turns
//!   idle (`rio_c`: with every higher one that has none either, provided no lower one has
//!   packets; `rio_d`: that one; `wred`: the one average); an arrival that updates an idle
//!   precedence's average first decays it by `(1 − w_q)^m`, `m = ⌊ptc·T⌋`, T the time since
//!   it turned idle, `ptc = rate/(8·mean_pktsize)`; a packet queued ends the idle periods
//!   its arrival updated (a dropped one does not). The physical queue's limit is checked
//!   before any average moves (an overflow leaves them alone).

use super::{reserve_for, DropReason, Dropped, Fifo, Limit, LinkInfo, Queue, QueueConfig};
use crate::config::{show, Errors, Obj};
use crate::packet::{Packet, PacketPool, PktId};
use crate::rng::{Rng, SimRng, Stream};
use crate::units::{to_secs, Time};
use serde_json::Value;
use std::sync::Arc;

/// The most drop precedences (ns-2's virtual queues).
pub const MAX_PRECEDENCES: usize = 3;

/// One precedence's RED curve, thresholds in packets.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Curve {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RioMode {
    RioC,
    RioD,
    Wred,
}

/// `kind = "rio"`'s configuration (its factory).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RioParams {
    pub limit: Limit,
    pub mode: RioMode,
    /// Per precedence, IN (0) first.
    pub curves: Vec<Curve>,
    pub w_q: f64,
    /// Precedence of each code point (index: DSCP).
    #[serde(skip)]
    pub phb: [u8; 64],
    /// The PHB table as given (code point, precedence), for reports.
    pub phb_entries: Vec<(u8, u8)>,
    pub guard: bool,
    pub ptc: f64,
}

/// The drop precedence of a code point among `n` precedences.
#[inline]
pub fn precedence(dscp: u8, n: usize) -> usize {
    let class = dscp >> 3;
    let dp = (dscp >> 1) & 3;
    if (1..=4).contains(&class) && dscp & 1 == 0 && (1..=3).contains(&dp) {
        (dp as usize - 1).min(n - 1)
    } else {
        n - 1
    }
}

pub struct Rio {
    fifo: Fifo,
    p: RioParams,
    /// Packets of each precedence queued.
    qlen: [usize; MAX_PRECEDENCES],
    avg: [f64; MAX_PRECEDENCES],
    count: [i64; MAX_PRECEDENCES],
    /// Per precedence (dsRED's `idle_`, `idletime_`): idle since this time, if idle.
    idle_since: [Option<Time>; MAX_PRECEDENCES],
    rng: SimRng,
    last_p: f64,
}

impl Rio {
    pub fn new(p: RioParams, rng: SimRng) -> Self {
        Rio {
            fifo: Fifo::with_capacity(reserve_for(p.limit)),
            p,
            qlen: [0; MAX_PRECEDENCES],
            avg: [0.0; MAX_PRECEDENCES],
            count: [-1; MAX_PRECEDENCES],
            idle_since: [Some(0); MAX_PRECEDENCES],
            rng,
            last_p: 0.0,
        }
    }

    fn n(&self) -> usize {
        self.p.curves.len()
    }

    /// A code point's drop precedence (the PHB table).
    #[inline]
    fn prec(&self, dscp: u8) -> usize {
        self.p.phb[dscp as usize & 63] as usize
    }

    /// The queue length precedence `k`'s average follows.
    fn length_for(&self, k: usize) -> f64 {
        match self.p.mode {
            RioMode::RioC => self.qlen[..=k].iter().sum::<usize>() as f64,
            RioMode::RioD => self.qlen[k] as f64,
            RioMode::Wred => self.fifo.len() as f64,
        }
    }

    /// The precedences whose averages an arrival of precedence `j` moves (dsRED keeps the
    /// one `wred` average, and its idle state, at 0).
    fn moved(&self, j: usize) -> std::ops::Range<usize> {
        match self.p.mode {
            RioMode::RioC => j..self.n(),
            RioMode::RioD => j..j + 1,
            RioMode::Wred => 0..1,
        }
    }

    /// Updates the averages an arrival of precedence `j` moves (dsRED's `calcAvg(i, m + 1)`).
    fn update(&mut self, now: Time, j: usize) {
        let w = self.p.w_q;
        for k in self.moved(j) {
            let m = self.idle_since[k].map_or(0.0, |t| libm::floor((self.p.ptc * to_secs(now.saturating_sub(t))).min(1e9)));
            let q = self.length_for(k);
            self.avg[k] = libm::pow(1.0 - w, m + 1.0) * self.avg[k] + w * q;
        }
        if self.p.mode == RioMode::Wred {
            let a = self.avg[0];
            self.avg[1..].fill(a);
        }
    }

    /// The un-spaced drop probability of precedence `k` at average `avg`.
    pub fn p_b(&self, k: usize, avg: f64) -> f64 {
        let c = self.p.curves[k];
        if avg <= c.min_th {
            0.0
        } else if avg > c.max_th {
            1.0
        } else {
            c.max_p * (avg - c.min_th) / (c.max_th - c.min_th)
        }
    }

    fn decide(&mut self, k: usize) -> Option<DropReason> {
        let c = self.p.curves[k];
        let avg = self.avg[k];
        if avg > c.max_th {
            self.count[k] = 0;
            self.last_p = 1.0;
            return Some(DropReason::Forced);
        }
        if avg > c.min_th {
            self.count[k] += 1;
            let pb = self.p_b(k, avg);
            let d = 1.0 - self.count[k] as f64 * pb;
            let pa = if d > 0.0 {
                pb / d
            } else if self.p.guard {
                1.0
            } else {
                pb / d
            };
            self.last_p = pa;
            let u: f64 = self.rng.gen();
            if u <= pa {
                self.count[k] = 0;
                return Some(DropReason::Early);
            }
            return None;
        }
        self.count[k] = -1;
        self.last_p = 0.0;
        None
    }

    /// The average precedence `k` is tested against.
    pub fn avg(&self, k: usize) -> f64 {
        match self.p.mode {
            RioMode::Wred => self.avg[0],
            _ => self.avg[k],
        }
    }
}

impl Queue for Rio {
    fn enqueue(&mut self, now: Time, id: PktId, pool: &PacketPool, dropped: &mut Dropped) {
        let pkt = pool.get(id);
        let k = self.prec(pkt.dscp);
        if !self.p.limit.admits(&self.fifo, pkt.size) {
            dropped.push((id, DropReason::Overflow));
            return;
        }
        self.update(now, k);
        if let Some(r) = self.decide(k) {
            dropped.push((id, r));
            return;
        }
        self.fifo.push(id, pool);
        self.qlen[k] += 1;
        // dsRED's updateIdleFlag: the averages this arrival moved are busy again.
        for i in self.moved(k) {
            self.idle_since[i] = None;
        }
    }

    fn dequeue(&mut self, now: Time, pool: &PacketPool) -> Option<PktId> {
        let id = self.fifo.pop(pool)?;
        let k = self.prec(pool.get(id).dscp);
        self.qlen[k] -= 1;
        if self.qlen[k] == 0 {
            // dsRED's updateREDStateVar, at the dequeue.
            match self.p.mode {
                RioMode::RioC => {
                    if self.qlen[..k].iter().all(|&q| q == 0) {
                        for i in k..self.n() {
                            if self.qlen[i] != 0 {
                                break;
                            }
                            self.idle_since[i] = Some(now);
                        }
                    }
                }
                RioMode::RioD => self.idle_since[k] = Some(now),
                RioMode::Wred => self.idle_since[0] = Some(now),
            }
        }
        Some(id)
    }

    fn remove_where(&mut self, pool: &PacketPool, pred: &mut dyn FnMut(&Packet) -> bool, removed: &mut Vec<PktId>) -> bool {
        let before = removed.len();
        self.fifo.remove_where(pool, pred, removed);
        for &id in &removed[before..] {
            self.qlen[self.prec(pool.get(id).dscp)] -= 1;
        }
        true
    }
    super::fifo_accessors!();
    fn probe_names(&self) -> &'static [&'static str] {
        &["rio_avg0", "rio_avg1", "rio_avg2", "rio_len0", "rio_len1", "rio_len2", "rio_p"]
    }
    fn probe(&self, out: &mut Vec<f64>) {
        for k in 0..MAX_PRECEDENCES {
            out.push(if k < self.n() { self.avg(k) } else { f64::NAN });
        }
        for k in 0..MAX_PRECEDENCES {
            out.push(self.qlen[k] as f64);
        }
        out.push(self.last_p);
    }
}

impl QueueConfig for RioParams {
    fn kind(&self) -> &'static str {
        "rio"
    }
    fn build(&self, rng: Stream) -> Box<dyn Queue> {
        Box::new(Rio::new(self.clone(), rng.rng()))
    }
    fn params(&self) -> Value {
        crate::config::params_of(self)
    }
    fn byte_limit(&self) -> Option<u64> {
        self.limit.bytes()
    }
}

/// Scenario: `{ kind = "rio", limit = 100, mode = "rio_c" | "rio_d" | "wred", thresholds =
/// [[min, max, max_p], ...] (IN first; default [[15, 30, 0.02], [5, 15, 0.1]]: what ns-2's
/// `Queue/RED/RIO` runs by default), phb = [[dscp, precedence], ...] (entries over the AF default),
/// w_q = 0.002, mean_pktsize = 1000, guard = false }`.
pub fn parse(o: &mut Obj, link: &LinkInfo, errs: &mut Errors) -> Option<Arc<dyn QueueConfig>> {
    let limit = super::parse_limit(o, "limit", Limit::Packets(super::DEFAULT_QUEUE_LIMIT), errs);
    let mode = match o.choice("mode", &["rio_c", "rio_d", "wred"], Some("rio_c"), errs)? {
        "rio_d" => RioMode::RioD,
        "wred" => RioMode::Wred,
        _ => RioMode::RioC,
    };
    let curves = match o.get("thresholds") {
        None => vec![Curve { min_th: 15.0, max_th: 30.0, max_p: 0.02 }, Curve { min_th: 5.0, max_th: 15.0, max_p: 0.1 }],
        Some(v) => {
            let parsed: Option<Vec<Curve>> = v.as_array().filter(|a| (1..=MAX_PRECEDENCES).contains(&a.len())).and_then(|a| {
                a.iter()
                    .map(|t| {
                        let t = t.as_array().filter(|t| t.len() == 3)?;
                        let (lo, hi, p) = (t[0].as_f64()?, t[1].as_f64()?, t[2].as_f64()?);
                        (lo >= 0.0 && hi > lo && (0.0..=1.0).contains(&p)).then_some(Curve { min_th: lo, max_th: hi, max_p: p })
                    })
                    .collect()
            });
            match parsed {
                Some(c) => c,
                None => {
                    errs.add(
                        o.at("thresholds"),
                        format!(
                            "expected 1 to 3 triples [min_th, max_th, max_p] (IN first; 0 <= min_th < max_th, 0 <= max_p <= 1), got {}",
                            show(v)
                        ),
                    );
                    return None;
                }
            }
        }
    };
    let w_q = o.float("w_q", 1e-9, 1.0, errs).unwrap_or(0.002);
    let mean = o.size("mean_pktsize", errs).unwrap_or(1000).max(1) as f64;
    let guard = o.boolean("guard", errs).unwrap_or(false);
    let n = curves.len();
    let mut phb: [u8; 64] = std::array::from_fn(|d| precedence(d as u8, n) as u8);
    let mut phb_entries = Vec::new();
    if let Some(v) = o.get("phb") {
        let entries: Option<Vec<(u8, u8)>> = v.as_array().and_then(|a| {
            a.iter()
                .map(|e| {
                    let e = e.as_array().filter(|e| e.len() == 2)?;
                    let (d, k) = (e[0].as_u64()?, e[1].as_u64()?);
                    (d < 64 && (k as usize) < n).then_some((d as u8, k as u8))
                })
                .collect()
        });
        match entries {
            Some(es) => {
                for &(d, k) in &es {
                    phb[d as usize] = k;
                }
                phb_entries = es;
            }
            None => errs.add(
                o.at("phb"),
                format!("expected pairs [code point 0-63, precedence 0-{}] (one per configured precedence), got {}", n - 1, show(v)),
            ),
        }
    }
    let ptc = link.rate_bps as f64 / (8.0 * mean);
    Some(Arc::new(RioParams { limit: limit?, mode, curves, w_q, phb, phb_entries, guard, ptc }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::MS;

    fn rio(mode: RioMode) -> (Rio, PacketPool) {
        let curves = vec![Curve { min_th: 20.0, max_th: 80.0, max_p: 0.02 }, Curve { min_th: 20.0, max_th: 50.0, max_p: 0.1 }];
        let p = RioParams {
            limit: Limit::Packets(100),
            mode,
            phb: std::array::from_fn(|d| precedence(d as u8, curves.len()) as u8),
            phb_entries: Vec::new(),
            curves,
            w_q: 1.0,
            guard: false,
            ptc: 1000.0,
        };
        (Rio::new(p, crate::rng::stream(1, "rio")), PacketPool::new())
    }

    fn put(r: &mut Rio, pool: &mut PacketPool, dscp: u8) {
        let id = pool.alloc(Packet { size: 1000, dscp, ..Default::default() });
        r.fifo.push(id, pool);
        r.qlen[precedence(dscp, r.n())] += 1;
    }

    #[test]
    fn precedences_of_code_points() {
        assert_eq!(precedence(10, 2), 0); // AF11: IN
        assert_eq!(precedence(12, 2), 1); // AF12: OUT
        assert_eq!(precedence(14, 2), 1); // AF13 capped at the last of two
        assert_eq!(precedence(14, 3), 2);
        assert_eq!(precedence(0, 2), 1); // best effort: OUT
        assert_eq!(precedence(46, 3), 2); // EF is not AF
        assert_eq!(precedence(34, 3), 0); // AF41
    }

    #[test]
    fn coupled_averages_follow_in_and_total_lengths() {
        let (mut r, mut pool) = rio(RioMode::RioC);
        r.idle_since = [None; MAX_PRECEDENCES];
        for _ in 0..10 {
            put(&mut r, &mut pool, 10);
        }
        for _ in 0..30 {
            put(&mut r, &mut pool, 12);
        }
        // w_q = 1: an OUT arrival sets the total average to 40, leaves IN's.
        r.update(0, 1);
        assert_eq!((r.avg[0], r.avg[1]), (0.0, 40.0));
        // An IN arrival moves both: IN 10, total 40.
        r.update(0, 0);
        assert_eq!((r.avg[0], r.avg[1]), (10.0, 40.0));
        // Decoupled: OUT averages its own 30.
        let (mut d, mut pool) = rio(RioMode::RioD);
        d.idle_since = [None; MAX_PRECEDENCES];
        for _ in 0..10 {
            put(&mut d, &mut pool, 10);
        }
        for _ in 0..30 {
            put(&mut d, &mut pool, 12);
        }
        d.update(0, 1);
        assert_eq!((d.avg[0], d.avg[1]), (0.0, 30.0));
    }

    #[test]
    fn drop_probability_curves_per_precedence() {
        let (r, _) = rio(RioMode::RioC);
        // IN: 20/80/0.02 → at 50, 0.01; OUT: 20/50/0.1 → at 35, 0.05; past max: 1.
        assert!((r.p_b(0, 50.0) - 0.01).abs() < 1e-12);
        assert!((r.p_b(1, 35.0) - 0.05).abs() < 1e-12);
        assert_eq!(r.p_b(1, 50.0), 0.1);
        assert_eq!(r.p_b(1, 50.1), 1.0);
        assert_eq!(r.p_b(0, 20.0), 0.0); // avg > min is strict
    }

    #[test]
    fn measured_early_drop_rates_follow_each_precedence_curve() {
        // Hold the average constant (w_q = 1, a fixed queue of one precedence): the drop
        // fraction is 1/E[gap] under p_a = p_b/(1 − count·p_b), count counting arrivals
        // since the last drop; p_b from the precedence's own curve.
        for (dscp, k, q) in [(12u8, 1usize, 25usize), (12, 1, 35), (12, 1, 45), (10, 0, 35), (10, 0, 60), (10, 0, 75)] {
            let (mut r, mut pool) = rio(RioMode::RioD);
            r.idle_since = [None; MAX_PRECEDENCES];
            for _ in 0..q {
                put(&mut r, &mut pool, dscp);
            }
            let pb = r.p_b(k, q as f64);
            let (mut drops, n) = (0, 100_000);
            r.count[k] = 0;
            for _ in 0..n {
                r.update(0, k);
                if r.decide(k).is_some() {
                    drops += 1;
                }
            }
            let (mut surv, mut mean) = (1.0, 0.0);
            for count in 1..100_000 {
                mean += surv;
                let d = 1.0 - count as f64 * pb;
                let pa = if d > 0.0 { (pb / d).min(1.0) } else { 0.0 };
                surv *= 1.0 - pa;
                if surv < 1e-15 || d <= 0.0 {
                    break;
                }
            }
            let (want, got) = (1.0 / mean, drops as f64 / n as f64);
            let tol = 5.0 * (want * (1.0 - want) / n as f64).sqrt() + 1e-3;
            assert!((got - want).abs() <= tol, "precedence {k} at {q}: {got} vs {want}");
        }
    }

    #[test]
    fn phb_table_maps_code_points_to_precedences() {
        let (mut r, _) = rio(RioMode::RioC);
        assert_eq!((r.prec(10), r.prec(12), r.prec(0), r.prec(46)), (0, 1, 1, 1));
        r.p.phb[46] = 0; // EF treated as IN
        assert_eq!(r.prec(46), 0);
    }

    /// dsRED's idle decay is per precedence: IN's average decays while OUT packets keep the
    /// link busy (before the thirty-eighth session only a wholly empty queue decayed).
    #[test]
    fn a_precedence_idles_while_others_keep_the_link_busy() {
        let (mut r, mut pool) = rio(RioMode::RioC);
        r.p.w_q = 0.5;
        r.p.curves = vec![Curve { min_th: 1e3, max_th: 2e3, max_p: 0.1 }; 2];
        fn arrive(r: &mut Rio, pool: &mut PacketPool, now: Time, dscp: u8) {
            let id = pool.alloc(Packet { size: 1000, dscp, ..Default::default() });
            r.enqueue(now, id, pool, &mut Dropped::new());
        }
        for _ in 0..4 {
            arrive(&mut r, &mut pool, 0, 12); // OUT
        }
        for _ in 0..8 {
            arrive(&mut r, &mut pool, 0, 10); // IN
        }
        assert_eq!(r.idle_since[..2], [None, None]);
        let in_avg = r.avg[0];
        assert!(in_avg > 5.0, "{in_avg}");
        // Four OUT packets then eight IN leave; the IN virtual queue empties at 12 ms while
        // two OUT packets came in behind: IN idles, OUT does not.
        for t in 0..4 {
            r.dequeue(t * MS, &pool);
        }
        arrive(&mut r, &mut pool, 4 * MS, 12);
        arrive(&mut r, &mut pool, 4 * MS, 12);
        for t in 4..12 {
            r.dequeue(t * MS, &pool);
        }
        assert_eq!(r.idle_since[0], Some(11 * MS));
        assert_eq!(r.idle_since[1], None);
        assert!(!r.fifo.is_empty());
        // An IN arrival 0.5 s after IN turned idle (ptc = 1000/s): m = 500, IN's average
        // decays by 0.5^(m + 1) (and adds half of the IN packets queued before it: none).
        let before_total = r.avg[1];
        arrive(&mut r, &mut pool, 511 * MS, 10);
        assert_eq!(r.avg[0], libm::pow(0.5, 501.0) * in_avg);
        // The total was not idle: one step, no decay.
        assert_eq!(r.avg[1], 0.5 * before_total + 0.5 * 2.0);
        assert_eq!(r.idle_since[..2], [None, None]);
        // rio_d and wred: an overflow leaves the averages alone.
        let (mut w, mut pool) = rio(RioMode::Wred);
        w.p.limit = Limit::Packets(1);
        let mut dropped = Dropped::new();
        for now in [0, 1] {
            let id = pool.alloc(Packet { size: 1000, dscp: 12, ..Default::default() });
            w.enqueue(now, id, &pool, &mut dropped);
        }
        assert_eq!(dropped.len(), 1);
        assert_eq!(w.avg, [0.0; MAX_PRECEDENCES], "w_q = 1 with an empty queue, then an overflow");
    }
}
