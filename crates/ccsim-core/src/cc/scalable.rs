//! Scalable TCP (Kelly, "Scalable TCP: improving performance in highspeed wide area
//! networks", CCR 2003), as Linux's `tcp_scalable.c`.
//!
//! - Slow start as Reno.
//! - Congestion avoidance: `cwnd += a` per segment acknowledged (a = 0.01: +1 % per RTT),
//!   Reno's `+1/cwnd` below `low_window` (Linux's `tcp_cong_avoid_ai(min(cwnd, 100))`:
//!   100 in current Linux, 50 in 2.6.22 and ns-2.35's copy of it).
//! - On a loss: `ssthresh = cwnd = max(W − b·W, 2)`, b = 0.125 (Linux:
//!   `cwnd − (cwnd >> 3)`), at every window; a timeout sets cwnd to 1.
//!
//! A loss therefore costs `ln(1/(1 − b)) / ln(1 + a)` ≈ 13.4 RTTs whatever the rate.
//!
//! `version = "2.6.22"` is the module of Linux 2.6.22 that ns-2.35 carries, in its
//! integers: slow start while `cwnd ≤ ssthresh`; in congestion avoidance one segment per
//! `min(cwnd, low_window) + 1` ACKs (`low_window` 50: `a ≈ 1/51`, about 2 % per RTT, the
//! module's "50 instead of 100 to account for delayed ack"); on a loss
//! `ssthresh = cwnd = max(W − ⌊b·W⌋, 2)` in whole segments.

use super::{AckInfo, CcConfig, CcInit, CongestionControl, LossInfo};
use crate::config::{Errors, Obj};
use crate::units::floor;
use std::sync::Arc;

/// `cc = "scalable"`, `cc_params = { version = "current", a = 0.01, b = 0.125, low_window =
/// 100 }` (`2.6.22`: `low_window = 50`, no `a`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ScalableConfig {
    /// `current` or `2.6.22` (Linux 2.6.22 / ns-2.35).
    pub version: &'static str,
    /// Window increase per acknowledged segment above `low_window`.
    pub a: f64,
    /// Multiplicative decrease on a loss.
    pub b: f64,
    /// Below this window (segments) the increase is Reno's.
    pub low_window: f64,
}

impl Default for ScalableConfig {
    fn default() -> Self {
        ScalableConfig { version: "current", a: 0.01, b: 0.125, low_window: 100.0 }
    }
}

pub struct Scalable {
    cwnd: f64,
    ssthresh: f64,
    c: ScalableConfig,
    /// 2.6.22: ACKs towards the next increment (Linux `snd_cwnd_cnt`).
    acked: f64,
}

impl Scalable {
    fn old(&self) -> bool {
        self.c.version == "2.6.22"
    }

    fn decrease(&mut self, window: f64) -> f64 {
        self.acked = 0.0;
        if self.old() {
            let w = floor(window);
            return (w - floor(w * self.c.b)).max(2.0);
        }
        (window * (1.0 - self.c.b)).max(2.0)
    }
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }
    super::window_fields!();
    fn on_ack(&mut self, info: &AckInfo) {
        if self.old() {
            // tcp_scalable_cong_avoid of 2.6.22: slow start while cwnd <= ssthresh, then one
            // segment when the count of ACKs passes min(cwnd, 50).
            let ss = self.ssthresh + 1.0;
            if self.cwnd < ss {
                self.cwnd = super::reno_increase(self.cwnd, ss, info.acked_segs);
                return;
            }
            let cnt = floor(self.cwnd).min(self.c.low_window);
            super::ai_per_ack(&mut self.cwnd, &mut self.acked, cnt);
        } else if self.cwnd < self.ssthresh || self.cwnd < self.c.low_window {
            self.cwnd = super::reno_increase(self.cwnd, self.ssthresh, info.acked_segs);
        } else {
            self.cwnd += self.c.a * info.acked_segs;
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
}

impl CcConfig for ScalableConfig {
    fn kind(&self) -> &'static str {
        "scalable"
    }
    fn build(&self, init: CcInit) -> Box<dyn CongestionControl> {
        Box::new(Scalable { cwnd: init.initial_cwnd, ssthresh: init.initial_ssthresh, c: *self, acked: 0.0 })
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
}

pub fn parse(obj: Option<&mut Obj>, errs: &mut Errors) -> Option<Arc<dyn CcConfig>> {
    let mut c = ScalableConfig::default();
    if let Some(o) = obj {
        let version = o.choice("version", &["current", "2.6.22"], Some("current"), errs);
        if version == Some("2.6.22") {
            (c.version, c.low_window) = ("2.6.22", 50.0);
            if o.has("a") {
                errs.add(o.at("a"), "applies to version = \"current\" only (2.6.22 grows one segment per min(cwnd, low_window) + 1 ACKs)");
            }
        }
        c.a = o.float("a", 1e-6, 1.0, errs).unwrap_or(c.a);
        c.b = o.float("b", 1e-6, 0.99, errs).unwrap_or(c.b);
        c.low_window = o.float("low_window", 0.0, 1e9, errs).unwrap_or(c.low_window);
        version?;
    }
    Some(Arc::new(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RTTs to regain the window after one loss, each RTT acknowledging `cwnd` segments.
    fn recovery_rtts(w: f64) -> f64 {
        let cfg = ScalableConfig::default();
        let mut s = cfg.build(CcInit { initial_cwnd: w, initial_ssthresh: 2.0, ..Default::default() });
        s.on_congestion(&LossInfo { window: w, ..Default::default() });
        let ack = AckInfo { acked_segs: 1.0, ..Default::default() };
        let mut rtts = 0.0;
        while s.cwnd() < w {
            let (before, n) = (s.cwnd(), s.cwnd().floor() as usize);
            for _ in 0..n {
                s.on_ack(&ack);
            }
            rtts += if s.cwnd() >= w { (w - before) / (s.cwnd() - before) } else { 1.0 };
        }
        rtts
    }

    #[test]
    fn a_loss_costs_about_13_rtts_at_every_rate() {
        let want = libm::log(1.0 / 0.875) / libm::log(1.01); // 13.42
        for w in [1_000.0, 10_000.0, 100_000.0] {
            let r = recovery_rtts(w);
            assert!((r - want).abs() < 0.2, "w = {w}: {r:.2} RTTs, want {want:.2}");
        }
    }

    /// Linux 2.6.22 (ns-2.35's copy): one segment per 51 ACKs at and above 50 segments, one
    /// per cwnd + 1 below, slow start through cwnd == ssthresh, integer decrease.
    #[test]
    fn version_2_6_22_counts_acks_as_linux_did() {
        let mut errs = Errors::default();
        let v = serde_json::json!({ "version": "2.6.22" });
        let mut o = Obj::new(&v, "cc_params", &mut errs).unwrap();
        let cfg = parse(Some(&mut o), &mut errs).unwrap();
        assert_eq!(cfg.params()["low_window"], 50.0);
        let ack = AckInfo { acked_segs: 1.0, ..Default::default() };
        let mut s = cfg.build(CcInit { initial_cwnd: 200.0, initial_ssthresh: 2.0, ..Default::default() });
        for _ in 0..50 {
            s.on_ack(&ack);
        }
        assert_eq!(s.cwnd(), 200.0);
        s.on_ack(&ack);
        assert_eq!(s.cwnd(), 201.0);
        let mut s = cfg.build(CcInit { initial_cwnd: 20.0, initial_ssthresh: 2.0, ..Default::default() });
        for _ in 0..21 {
            s.on_ack(&ack);
        }
        assert_eq!(s.cwnd(), 21.0);
        let mut s = cfg.build(CcInit { initial_cwnd: 10.0, initial_ssthresh: 10.0, ..Default::default() });
        s.on_ack(&ack);
        assert_eq!(s.cwnd(), 11.0, "slow start at cwnd == ssthresh");
        s.on_congestion(&LossInfo { window: 203.0, ..Default::default() });
        assert_eq!(s.cwnd(), 203.0 - 25.0);
        // `a` does not apply to 2.6.22.
        let v = serde_json::json!({ "version": "2.6.22", "a": 0.02 });
        let mut o = Obj::new(&v, "cc_params", &mut errs).unwrap();
        parse(Some(&mut o), &mut errs);
        assert!(format!("{errs:?}").contains("only (2.6.22 grows one segment per min(cwnd, low_window) + 1 ACKs)"), "{errs:?}");
    }

    #[test]
    fn reno_below_the_low_window_and_seven_eighths_on_loss() {
        let cfg = ScalableConfig::default();
        let mut s = cfg.build(CcInit { initial_cwnd: 50.0, initial_ssthresh: 2.0, ..Default::default() });
        s.on_ack(&AckInfo { acked_segs: 1.0, ..Default::default() });
        assert_eq!(s.cwnd(), 50.0 + 1.0 / 50.0);
        let mut s = cfg.build(CcInit { initial_cwnd: 200.0, initial_ssthresh: 2.0, ..Default::default() });
        s.on_ack(&AckInfo { acked_segs: 1.0, ..Default::default() });
        assert_eq!(s.cwnd(), 200.01);
        s.on_congestion(&LossInfo { window: 200.0, ..Default::default() });
        assert_eq!((s.cwnd(), s.ssthresh()), (175.0, 175.0));
    }
}
