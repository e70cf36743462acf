//! EIMD, exponential-increase multiplicative-decrease (Yang & Kim, KIPS; Paper E §3), a
//! window-based high-speed TCP whose response function includes the RTT:
//! `w = A·RTT^r / p^s` (eq. 1; RTT in seconds, w in segments).
//!
//! - Slow start as Reno; at or below `low_window` (and before the first loss) congestion
//!   avoidance and the decrease are standard TCP's (+1 per RTT, halving), as HighSpeed TCP
//!   below its `low_window` of 38.
//! - Above it the window grows with the time `T` since the last loss, in RTTs, as
//!   `w(T) = w0 + c·T^u` (§3.2), `w0` the window the epoch starts from. The paper's per-RTT
//!   rule `w ← w + α·(w − w0)^(1−1/u)`, `α = u·c^(1/u)`, is the derivative of that curve;
//!   at `w = w0` it never leaves `w0`, so ccsim follows the curve itself: each ACK moves
//!   cwnd towards `w(T)`, `T = (now − epoch start)/RTT`, by at most the segments it
//!   acknowledges (never faster than slow start).
//! - On a loss `w ← w − β·w` (`beta`; the paper leaves β open: ccsim's default 0.2 is
//!   BIC's and CUBIC v2.1's 819/1024 decrease, the baselines Paper E is compared with).
//! - `u` solves `1 − u(1 − s)/s = −1` (`u = 2s/(1 − s)`, 9.11 for s = 0.82), so that the
//!   increase is inversely proportional to `w_max`, the window at the last loss.
//! - `c` is eq. 7 computed at each loss from `w_max` and the RTT:
//!   `c = ((A·RTT^r)^(1/(1−s)) / (1 − u·β/(u+1)))^(u(1−s)/s) · β/Γ(u+1) · w_max^(1−u(1−s)/s)`
//!   (`c_form = "paper"`). Eqs. 4–6 of the paper (a deterministic sawtooth, one loss per
//!   `1/p` packets) give the same expression without the `Γ(u+1)` factor
//!   (`c_form = "sawtooth"`); only that one meets `w = A·RTT^r/p^s` under periodic loss
//!   (docs/models/eimd.md has the derivation and the measured constants).

use super::{AckInfo, CcConfig, CcInit, CongestionControl, LossInfo};
use crate::config::{Errors, Obj};
use crate::units::{to_secs, Time};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CForm {
    /// Eq. 7 as printed, with `β/Γ(u+1)`.
    Paper,
    /// Eqs. 4–6 solved for c: `β` alone.
    Sawtooth,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RttSource {
    /// The smoothed RTT when the epoch starts (the RTT the flow experiences).
    Srtt,
    /// The smallest RTT sample (the path's propagation and serialization delay).
    Min,
}

/// `cc = "eimd"`, `cc_params = { a = 1.75, r = 0.82, s = 0.82, beta = 0.2, u = 0 (from s),
/// low_window = 38, c_form = "paper", rtt = "srtt" }`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct EimdConfig {
    /// `A` of eq. 1 (RTT in seconds).
    pub a: f64,
    /// RTT exponent `r` of eq. 1.
    pub r: f64,
    /// Loss-rate exponent `s` of eq. 1.
    pub s: f64,
    /// Multiplicative decrease on a loss.
    pub beta: f64,
    /// Growth exponent; 0 derives it from `s` (`u = 2s/(1 − s)`).
    pub u: f64,
    /// At or below this window (segments) EIMD is standard TCP.
    pub low_window: f64,
    pub c_form: CForm,
    pub rtt: RttSource,
}

impl Default for EimdConfig {
    fn default() -> Self {
        EimdConfig { a: 1.75, r: 0.82, s: 0.82, beta: 0.2, u: 0.0, low_window: 38.0, c_form: CForm::Paper, rtt: RttSource::Srtt }
    }
}

impl EimdConfig {
    /// The growth exponent in use.
    pub fn u(&self) -> f64 {
        if self.u > 0.0 {
            self.u
        } else {
            2.0 * self.s / (1.0 - self.s)
        }
    }

    /// Eq. 7: the growth coefficient after a loss at `w_max` on a path of RTT `rtt` seconds.
    pub fn c(&self, w_max: f64, rtt: f64) -> f64 {
        let (s, u, b) = (self.s, self.u(), self.beta);
        let k = 1.0 - u * b / (u + 1.0);
        let lead = libm::pow(libm::pow(self.a * libm::pow(rtt, self.r), 1.0 / (1.0 - s)) / k, u * (1.0 - s) / s);
        let gamma = match self.c_form {
            CForm::Paper => libm::tgamma(u + 1.0),
            CForm::Sawtooth => 1.0,
        };
        lead * b / gamma * libm::pow(w_max, 1.0 - u * (1.0 - s) / s)
    }

    /// Eq. 1: the response function, segments.
    pub fn response(&self, p: f64, rtt: f64) -> f64 {
        self.a * libm::pow(rtt, self.r) / libm::pow(p, self.s)
    }
}

/// The growth curve of one epoch: `w(T) = w0 + c·T^u`, T in RTTs from `start`.
#[derive(Clone, Copy, Debug)]
struct Epoch {
    start: Time,
    w0: f64,
    c: f64,
    rtt: f64,
}

pub struct Eimd {
    cwnd: f64,
    ssthresh: f64,
    c: EimdConfig,
    u: f64,
    /// Window at the last loss (0 before the first).
    w_max: f64,
    epoch: Option<Epoch>,
}

impl Eimd {
    fn start_epoch(&mut self, info: &AckInfo) -> Option<Epoch> {
        let rtt = match self.c.rtt {
            RttSource::Srtt if info.srtt > 0 => info.srtt,
            _ => info.min_rtt,
        };
        if rtt == 0 {
            return None;
        }
        let rtt = to_secs(rtt);
        let w_max = self.w_max.max(self.cwnd);
        let e = Epoch { start: info.now, w0: self.cwnd, c: self.c.c(w_max, rtt), rtt };
        self.epoch = Some(e);
        Some(e)
    }

    fn decrease(&mut self, window: f64) -> f64 {
        self.epoch = None;
        if window <= self.c.low_window {
            self.w_max = 0.0;
            return super::halve(window);
        }
        self.w_max = window;
        (window * (1.0 - self.c.beta)).max(2.0)
    }
}

impl CongestionControl for Eimd {
    fn name(&self) -> &'static str {
        "eimd"
    }
    super::window_fields!();
    fn on_ack(&mut self, info: &AckInfo) {
        if self.cwnd < self.ssthresh || self.cwnd <= self.c.low_window || self.w_max == 0.0 {
            self.cwnd = super::reno_increase(self.cwnd, self.ssthresh, info.acked_segs);
            return;
        }
        let Some(e) = self.epoch.or_else(|| self.start_epoch(info)) else {
            self.cwnd = super::reno_increase(self.cwnd, self.ssthresh, info.acked_segs);
            return;
        };
        let t = to_secs(info.now - e.start) / e.rtt;
        let target = e.w0 + e.c * libm::pow(t, self.u);
        if target > self.cwnd {
            self.cwnd = target.min(self.cwnd + info.acked_segs);
        }
    }
    fn on_congestion(&mut self, info: &LossInfo) {
        self.ssthresh = self.decrease(info.window);
        self.cwnd = self.ssthresh;
    }
    fn on_timeout(&mut self, info: &LossInfo) {
        self.ssthresh = self.decrease(info.window);
        self.cwnd = 1.0;
    }
    fn probe_names(&self) -> &'static [&'static str] {
        &["w_max", "eimd_c"]
    }
    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.w_max);
        out.push(self.epoch.map_or(f64::NAN, |e| e.c));
    }
}

impl CcConfig for EimdConfig {
    fn kind(&self) -> &'static str {
        "eimd"
    }
    fn build(&self, init: CcInit) -> Box<dyn CongestionControl> {
        Box::new(Eimd { cwnd: init.initial_cwnd, ssthresh: init.initial_ssthresh, c: *self, u: self.u(), w_max: 0.0, epoch: None })
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
}

pub fn parse(obj: Option<&mut Obj>, errs: &mut Errors) -> Option<Arc<dyn CcConfig>> {
    let mut c = EimdConfig::default();
    if let Some(o) = obj {
        c.a = o.float("a", 1e-6, 1e6, errs).unwrap_or(c.a);
        c.r = o.float("r", 0.0, 2.0, errs).unwrap_or(c.r);
        c.s = o.float("s", 0.5, 0.95, errs).unwrap_or(c.s);
        c.beta = o.float("beta", 0.01, 0.9, errs).unwrap_or(c.beta);
        c.u = o.float("u", 0.0, 50.0, errs).unwrap_or(c.u);
        c.low_window = o.float("low_window", 0.0, 1e9, errs).unwrap_or(c.low_window);
        let form = o.choice("c_form", &["paper", "sawtooth"], Some("paper"), errs);
        if form == Some("sawtooth") {
            c.c_form = CForm::Sawtooth;
        }
        let rtt = o.choice("rtt", &["srtt", "min"], Some("srtt"), errs);
        if rtt == Some("min") {
            c.rtt = RttSource::Min;
        }
        form?;
        rtt?;
    }
    Some(Arc::new(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::MS;

    /// u from `1 − u(1−s)/s = −1`: the increase scales as `1/w_max` (eq. 7's exponent).
    #[test]
    fn u_makes_the_increase_inversely_proportional_to_w_max() {
        let cfg = EimdConfig::default();
        let u = cfg.u();
        assert!((1.0 - u * (1.0 - cfg.s) / cfg.s + 1.0).abs() < 1e-12, "u = {u}");
        assert!((u - 9.111).abs() < 1e-3);
        let ratio = cfg.c(1000.0, 0.1) / cfg.c(2000.0, 0.1);
        assert!((ratio - 2.0).abs() < 1e-9, "c(1000)/c(2000) = {ratio}");
        // Paper's Γ(u+1) against the sawtooth form.
        let saw = EimdConfig { c_form: CForm::Sawtooth, ..cfg };
        let g = saw.c(1000.0, 0.1) / cfg.c(1000.0, 0.1);
        assert!((g - libm::tgamma(u + 1.0)).abs() / g < 1e-12);
    }

    /// The sawtooth form's deterministic cycle sends 1/p packets with mean window
    /// `A·RTT^r/p^s` (eqs. 4–6 closed by hand).
    #[test]
    fn sawtooth_cycle_meets_the_response_function() {
        let cfg = EimdConfig { c_form: CForm::Sawtooth, ..Default::default() };
        for (w_max, rtt) in [(500.0, 0.04), (5_000.0, 0.1), (50_000.0, 0.24)] {
            let (u, b) = (cfg.u(), cfg.beta);
            let c = cfg.c(w_max, rtt);
            let t = libm::pow(b * w_max / c, 1.0 / u); // eq. 4
            let packets = (1.0 - b) * w_max * t + c / (u + 1.0) * libm::pow(t, u + 1.0); // eq. 5
            let p = 1.0 / packets;
            let mean_w = packets / t;
            let want = cfg.response(p, rtt);
            assert!((mean_w / want - 1.0).abs() < 1e-9, "w_max {w_max}: {mean_w} vs {want}");
        }
    }

    /// After a loss the window follows w0 + c·T^u, one ACK per segment, ACKs spread over
    /// each RTT; it regains w_max after eq. 4's T.
    #[test]
    fn the_window_follows_the_growth_curve_after_a_loss() {
        let cfg = EimdConfig { c_form: CForm::Sawtooth, ..Default::default() };
        let mut e = cfg.build(CcInit { initial_cwnd: 1000.0, initial_ssthresh: 2.0, ..Default::default() });
        let rtt = 100 * MS;
        e.on_congestion(&LossInfo { window: 1000.0, ..Default::default() });
        assert_eq!(e.cwnd(), 800.0);
        let c = cfg.c(1000.0, 0.1);
        let t_cycle = libm::pow(cfg.beta * 1000.0 / c, 1.0 / cfg.u());
        let mut now: Time = 0;
        let mut regained = None;
        for k in 0..(2.0 * t_cycle) as u64 {
            let n = e.cwnd().floor() as u64;
            for i in 0..n {
                let t = k * rtt + rtt * i / n;
                now = t;
                e.on_ack(&AckInfo { now, acked_segs: 1.0, srtt: rtt, min_rtt: rtt, ..Default::default() });
            }
            let want = 800.0 + c * libm::pow(now as f64 / rtt as f64, cfg.u());
            assert!((e.cwnd() - want).abs() / want < 0.01, "RTT {k}: {} vs {want}", e.cwnd());
            if regained.is_none() && e.cwnd() >= 1000.0 {
                regained = Some(k + 1);
            }
        }
        let r = regained.expect("regains w_max") as f64;
        assert!((r - t_cycle).abs() <= 1.0, "regained after {r} RTTs, eq. 4 says {t_cycle:.1}");
    }

    #[test]
    fn standard_tcp_at_or_below_the_low_window() {
        let cfg = EimdConfig::default();
        let mut e = cfg.build(CcInit { initial_cwnd: 30.0, initial_ssthresh: 2.0, ..Default::default() });
        e.on_congestion(&LossInfo { window: 30.0, ..Default::default() });
        assert_eq!(e.cwnd(), 15.0);
        e.on_ack(&AckInfo { acked_segs: 1.0, srtt: 50 * MS, ..Default::default() });
        assert_eq!(e.cwnd(), 15.0 + 1.0 / 15.0);
        let mut e = cfg.build(CcInit { initial_cwnd: 100.0, initial_ssthresh: 2.0, ..Default::default() });
        e.on_congestion(&LossInfo { window: 100.0, ..Default::default() });
        assert_eq!(e.cwnd(), 80.0);
        e.on_timeout(&LossInfo { window: 100.0, ..Default::default() });
        assert_eq!((e.cwnd(), e.ssthresh()), (1.0, 80.0));
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let mut errs = Errors::default();
        let v = serde_json::json!({ "c_form": "exact", "beta": 2.0 });
        let mut o = Obj::new(&v, "flows[0].cc_params", &mut errs).unwrap();
        assert!(parse(Some(&mut o), &mut errs).is_none());
        let paths: Vec<&str> = errs.0.iter().map(|e| e.path.as_str()).collect();
        assert!(paths.contains(&"flows[0].cc_params.c_form"), "{paths:?}");
        assert!(paths.contains(&"flows[0].cc_params.beta"), "{paths:?}");
    }
}
