//! Paper D's rate control inside the SYN interval by RTT prediction (An, Wang, Cho, KIPS
//! 2010), on top of a DAIMD variant.
//!
//! On each full ACK the base DAIMD sets the period as usual; then, from the last three RTTs
//! carried in ACKs, `R_{t+1} = ((R_{t−1} − R_{t−2})·w1 + (R_t − R_{t−1})·w2)/2 + R_t` (eq. 4),
//! `R_idr = R_{t+1}/R_t` (eq. 5) picks the factor `PktSPW`: 0.99 if `R_idr ≤ α`, 0.999 if
//! `α < R_idr ≤ 1`, 1.0 if `1 < R_idr < β`, 1.001 if `R_idr ≥ β`. Every time the next
//! sequence number to send is a multiple of 16 (Fig 2: `if (0 == next_sequence_number %
//! 16)`), the period is multiplied by `PktSPW`, so the factor compounds through the
//! interval until the next ACK recomputes it. The base DAIMD works from the period so
//! changed. Until three RTTs are known the factor is 1.
//!
//! Paper silent, ccsim's choices (parameters): the factor acts only after slow start
//! (`in_slow_start = false`: the window, not the period, paces slow start) and the period
//! stays within the base variant's bounds (at least `min_period`, 1 µs).

use super::{CcView, DaimdConfig, LossAction, UdtCc, UdtCcConfig};
use crate::config::{Errors, Obj};
use crate::measure::{Column, Table};
use crate::rng::SimRng;
use crate::udt::Profile;
use std::sync::Arc;

/// `cc = "rttpred"`, `cc_params = { base = "ns2" | "udt4" (default: the profile), w1 =
/// 0.125, w2 = 0.875, alpha = 0.996, beta = 1.004, factors = [0.99, 0.999, 1.0, 1.001],
/// every = 16, in_slow_start = false, min_period = 1e-6, log = true, mode = "compound" }`
/// plus the base
/// DAIMD's own fields.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RttPredConfig {
    #[serde(skip)]
    pub base: DaimdConfig,
    pub w1: f64,
    pub w2: f64,
    pub alpha: f64,
    pub beta: f64,
    /// `PktSPW` for `R_idr ≤ α`, `α < R_idr ≤ 1`, `1 < R_idr < β`, `R_idr ≥ β`.
    pub factors: [f64; 4],
    /// Apply the factor when the next sequence number is a multiple of this.
    pub every: u32,
    /// Apply it in slow start too.
    pub in_slow_start: bool,
    /// The period never goes below this, seconds.
    pub min_period: f64,
    /// Keep every `R_idr` (the `ridr` table: time, the three RTTs, prediction, `R_idr`, factor).
    pub log: bool,
    /// `"compound"` (Fig 2 literally: `P = P·PktSPW` every 16 packets) or `"once"` (another
    /// reading of the text: the period used is the ACK's period times `PktSPW`).
    pub mode: &'static str,
}

impl RttPredConfig {
    pub fn new(base: DaimdConfig) -> Self {
        RttPredConfig {
            base,
            w1: 0.125,
            w2: 0.875,
            alpha: 0.996,
            beta: 1.004,
            factors: [0.99, 0.999, 1.0, 1.001],
            every: 16,
            in_slow_start: false,
            min_period: 1e-6,
            log: true,
            mode: "compound",
        }
    }
}

pub(super) fn parse(o: Option<&mut Obj>, profile: Profile, errs: &mut Errors) -> Option<Arc<dyn UdtCcConfig>> {
    let Some(o) = o else {
        return Some(Arc::new(RttPredConfig::new(DaimdConfig::read(None, profile, errs)?)));
    };
    // The base's fields share the table: `base` names the variant.
    let base_variant = o.choice("base", &["ns2", "udt4"], Some(profile.name()), errs);
    let base_profile = if base_variant == Some("udt4") { Profile::Udt4 } else { Profile::Ns2 };
    let mut c = RttPredConfig::new(DaimdConfig::Ns2(Default::default()));
    for (key, field) in [("w1", &mut c.w1), ("w2", &mut c.w2)] {
        if let Some(v) = o.float(key, 0.0, 10.0, errs) {
            *field = v;
        }
    }
    if let Some(v) = o.float("alpha", 0.0, 1.0, errs) {
        c.alpha = v;
    }
    if let Some(v) = o.float("beta", 1.0, 10.0, errs) {
        c.beta = v;
    }
    if let Some(v) = o.get("factors") {
        let f: Option<Vec<f64>> = v.as_array().and_then(|a| a.iter().map(|x| x.as_f64().filter(|x| *x > 0.0 && *x < 10.0)).collect());
        match f {
            Some(f) if f.len() == 4 => c.factors.copy_from_slice(&f),
            _ => errs.add(o.at("factors"), format!("expected four positive numbers below 10, got {}", crate::config::show(v))),
        }
    }
    if let Some(v) = o.int("every", 1, 1_000_000, errs) {
        c.every = v as u32;
    }
    if let Some(v) = o.boolean("in_slow_start", errs) {
        c.in_slow_start = v;
    }
    if let Some(v) = o.time("min_period", errs) {
        c.min_period = v.max(1) as f64 / 1e9;
    }
    if let Some(v) = o.boolean("log", errs) {
        c.log = v;
    }
    if let Some(v) = o.choice("mode", &["compound", "once"], Some("compound"), errs) {
        c.mode = v;
    }
    // The base variant's own fields (`variant` is this table's `base`).
    c.base = match base_profile {
        Profile::Ns2 => DaimdConfig::Ns2(super::daimd_ns2::Ns2DaimdConfig::read(o, errs)?),
        Profile::Udt4 => DaimdConfig::Udt4(super::daimd_udt4::Udt4DaimdConfig::read(o, errs)?),
    };
    base_variant?;
    Some(Arc::new(c))
}

impl UdtCcConfig for RttPredConfig {
    fn kind(&self) -> &'static str {
        "rttpred"
    }
    fn build(&self) -> Box<dyn UdtCc> {
        Box::new(RttPred::new(self.clone()))
    }
    fn params(&self) -> serde_json::Value {
        let mut v = crate::config::params_of(self);
        let base = self.base.daimd_params();
        if let (Some(m), Some(b)) = (v.as_object_mut(), base.as_object()) {
            for (k, x) in b {
                if k == "variant" {
                    m.insert("base".into(), x.clone());
                } else {
                    m.insert(k.clone(), x.clone());
                }
            }
        }
        v
    }
}

/// Eq. 4 and 5: the predicted next RTT and `R_idr` from `[R_{t−2}, R_{t−1}, R_t]`.
pub fn predict(r: [f64; 3], w1: f64, w2: f64) -> (f64, f64) {
    let next = ((r[1] - r[0]) * w1 + (r[2] - r[1]) * w2) / 2.0 + r[2];
    (next, if r[2] > 0.0 { next / r[2] } else { 1.0 })
}

/// Fig 2's choice of `PktSPW` for `ridr`.
pub fn factor(ridr: f64, alpha: f64, beta: f64, f: [f64; 4]) -> f64 {
    if ridr <= alpha {
        f[0]
    } else if ridr <= 1.0 {
        f[1]
    } else if ridr < beta {
        f[2]
    } else {
        f[3]
    }
}

#[derive(Default)]
struct Log {
    time: Vec<f64>,
    r: [Vec<f64>; 3],
    predicted: Vec<f64>,
    ridr: Vec<f64>,
    factor: Vec<f64>,
}

pub struct RttPred {
    c: RttPredConfig,
    base: Box<dyn UdtCc>,
    /// The last three RTTs carried in ACKs (oldest first) and how many are known.
    rtts: [f64; 3],
    known: usize,
    pktspw: f64,
    /// The period the base set at the last ACK (`mode = "once"`).
    ack_period: f64,
    applied: u64,
    counts: [u64; 4],
    log: Option<Log>,
}

impl RttPred {
    pub fn new(c: RttPredConfig) -> Self {
        RttPred {
            base: c.base.build_daimd(),
            log: c.log.then(Log::default),
            c,
            rtts: [0.0; 3],
            known: 0,
            pktspw: 1.0,
            ack_period: 0.0,
            applied: 0,
            counts: [0; 4],
        }
    }

    /// The factor now in force.
    pub fn pktspw(&self) -> f64 {
        self.pktspw
    }
}

impl UdtCc for RttPred {
    fn name(&self) -> &'static str {
        "rttpred"
    }
    fn period_us(&self) -> f64 {
        self.base.period_us()
    }
    fn cwnd(&self) -> f64 {
        self.base.cwnd()
    }
    fn in_slow_start(&self) -> bool {
        self.base.in_slow_start()
    }
    fn set_period(&mut self, period_us: f64) {
        self.base.set_period(period_us);
    }

    fn on_ack(&mut self, v: &CcView, ack: i64, ack_rtt_us: f64) {
        self.base.on_ack(v, ack, ack_rtt_us);
        self.ack_period = self.base.period_us();
        self.rtts = [self.rtts[1], self.rtts[2], ack_rtt_us];
        self.known = (self.known + 1).min(3);
        if self.known < 3 {
            return;
        }
        let (next, ridr) = predict(self.rtts, self.c.w1, self.c.w2);
        self.pktspw = factor(ridr, self.c.alpha, self.c.beta, self.c.factors);
        let i = self.c.factors.iter().position(|f| *f == self.pktspw).unwrap_or(2);
        self.counts[i] += 1;
        if let Some(log) = self.log.as_mut() {
            log.time.push(v.now as f64 / 1e9);
            for k in 0..3 {
                log.r[k].push(self.rtts[k] / 1e6);
            }
            log.predicted.push(next / 1e6);
            log.ridr.push(ridr);
            log.factor.push(self.pktspw);
        }
    }

    fn on_loss(&mut self, v: &CcView, first_lost: i64, count: u64, rng: &mut SimRng) -> LossAction {
        let a = self.base.on_loss(v, first_lost, count, rng);
        self.ack_period = self.base.period_us();
        a
    }

    fn on_timeout(&mut self, v: &CcView) {
        self.base.on_timeout(v);
        self.ack_period = self.base.period_us();
    }

    fn on_pkt_sent(&mut self, v: &CcView, seq: i64, next_seq: i64, retransmission: bool) {
        self.base.on_pkt_sent(v, seq, next_seq, retransmission);
        // Fig 2 counts the sequence numbers of new data: a retransmission leaves
        // `next_sequence_number` where it was and applies nothing.
        if retransmission
            || self.pktspw == 1.0
            || next_seq % self.c.every as i64 != 0
            || (!self.c.in_slow_start && self.base.in_slow_start())
        {
            return;
        }
        let from = if self.c.mode == "once" && self.ack_period > 0.0 { self.ack_period } else { self.base.period_us() };
        let p = (from * self.pktspw).max(self.c.min_period * 1e6);
        self.base.set_period(p);
        self.applied += 1;
    }

    fn summary(&self) -> Vec<(&'static str, f64)> {
        let mut s = self.base.summary();
        s.push(("pktspw_applied", self.applied as f64));
        for (name, n) in ["ridr_le_alpha", "ridr_le_1", "ridr_lt_beta", "ridr_ge_beta"].into_iter().zip(self.counts) {
            s.push((name, n as f64));
        }
        s
    }
    fn restart_counters(&mut self) {
        self.base.restart_counters();
        self.applied = 0;
        self.counts = [0; 4];
    }
    fn tables(&mut self) -> Vec<(&'static str, Table)> {
        let mut out = self.base.tables();
        if let Some(log) = self.log.take() {
            let mut t = Table::default();
            t.push("time", Column::F64(log.time));
            let [r0, r1, r2] = log.r;
            t.push("rtt_t2_s", Column::F64(r0));
            t.push("rtt_t1_s", Column::F64(r1));
            t.push("rtt_t_s", Column::F64(r2));
            t.push("predicted_s", Column::F64(log.predicted));
            t.push("ridr", Column::F64(log.ridr));
            t.push("pktspw", Column::F64(log.factor));
            out.push(("ridr", t));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prediction_and_factor_match_eq4_eq5_and_fig2() {
        // Rising RTTs 100, 101, 103 ms: next = ((1)·0.125 + (2)·0.875)/2 + 103 = 103.9375.
        let (next, ridr) = predict([100.0, 101.0, 103.0], 0.125, 0.875);
        assert!((next - 103.9375).abs() < 1e-12);
        assert!((ridr - 103.9375 / 103.0).abs() < 1e-12);
        let f = [0.99, 0.999, 1.0, 1.001];
        assert_eq!(factor(ridr, 0.996, 1.004, f), 1.001); // 1.0091 ≥ β
        assert_eq!(factor(1.002, 0.996, 1.004, f), 1.0);
        assert_eq!(factor(1.0, 0.996, 1.004, f), 0.999);
        assert_eq!(factor(0.997, 0.996, 1.004, f), 0.999);
        assert_eq!(factor(0.996, 0.996, 1.004, f), 0.99);
        // Steady RTTs: R_idr = 1 → 0.999 (the period shrinks slowly).
        assert_eq!(predict([50.0, 50.0, 50.0], 0.125, 0.875).1, 1.0);
    }

    #[test]
    fn factor_compounds_every_sixteenth_packet_until_the_next_ack() {
        let base = DaimdConfig::Ns2(Default::default());
        let mut cc = RttPred::new(RttPredConfig { log: false, ..RttPredConfig::new(base) });
        let v = CcView { rtt_us: 100_000.0, bandwidth: 0.0, max_cwnd: 1e9, mss: 1500, syn_us: 10_000.0, ..Default::default() };
        let mut rng = crate::rng::stream(1, "t");
        cc.on_loss(&v, 0, 1, &mut rng); // leave slow start
        cc.set_period(100.0);
        // Falling RTTs: R_idr < α → 0.99.
        for r in [100_000.0, 99_000.0, 97_000.0] {
            cc.pktspw = 1.0;
            cc.rtts = [cc.rtts[1], cc.rtts[2], r];
            cc.known += 1;
        }
        let (_, ridr) = predict(cc.rtts, 0.125, 0.875);
        cc.pktspw = factor(ridr, 0.996, 1.004, cc.c.factors);
        assert_eq!(cc.pktspw, 0.99);
        // 48 packets: next sequence numbers 1..=48 include 16, 32, 48.
        for s in 0..48 {
            cc.on_pkt_sent(&v, s, s + 1, false);
        }
        assert!((cc.period_us() - 100.0 * 0.99f64.powi(3)).abs() < 1e-9);
        // Retransmissions, whatever the next sequence, change nothing.
        for _ in 0..10 {
            cc.on_pkt_sent(&v, 5, 64, true);
        }
        assert!((cc.period_us() - 100.0 * 0.99f64.powi(3)).abs() < 1e-9);
    }
}
