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

use super::{AckInfo, CcConfig, CcInit, CongestionControl, LossInfo};
use crate::config::{Errors, Obj};
use std::sync::Arc;

/// `cc = "scalable"`, `cc_params = { a = 0.01, b = 0.125, low_window = 100 }`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ScalableConfig {
    /// Window increase per acknowledged segment above `low_window`.
    pub a: f64,
    /// Multiplicative decrease on a loss.
    pub b: f64,
    /// Below this window (segments) the increase is Reno's.
    pub low_window: f64,
}

impl Default for ScalableConfig {
    fn default() -> Self {
        ScalableConfig { a: 0.01, b: 0.125, low_window: 100.0 }
    }
}

pub struct Scalable {
    cwnd: f64,
    ssthresh: f64,
    c: ScalableConfig,
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }
    super::window_fields!();
    fn on_ack(&mut self, info: &AckInfo) {
        if self.cwnd < self.ssthresh || self.cwnd < self.c.low_window {
            self.cwnd = super::reno_increase(self.cwnd, self.ssthresh, info.acked_segs);
        } else {
            self.cwnd += self.c.a * info.acked_segs;
        }
    }
    fn on_congestion(&mut self, info: &LossInfo) {
        self.ssthresh = (info.window * (1.0 - self.c.b)).max(2.0);
        self.cwnd = self.ssthresh;
    }
    fn on_timeout(&mut self, info: &LossInfo) {
        self.ssthresh = (info.window * (1.0 - self.c.b)).max(2.0);
        self.cwnd = 1.0;
    }
}

impl CcConfig for ScalableConfig {
    fn kind(&self) -> &'static str {
        "scalable"
    }
    fn build(&self, init: CcInit) -> Box<dyn CongestionControl> {
        Box::new(Scalable { cwnd: init.initial_cwnd, ssthresh: init.initial_ssthresh, c: *self })
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
}

pub fn parse(obj: Option<&mut Obj>, errs: &mut Errors) -> Option<Arc<dyn CcConfig>> {
    let mut c = ScalableConfig::default();
    if let Some(o) = obj {
        c.a = o.float("a", 1e-6, 1.0, errs).unwrap_or(c.a);
        c.b = o.float("b", 1e-6, 0.99, errs).unwrap_or(c.b);
        c.low_window = o.float("low_window", 0.0, 1e9, errs).unwrap_or(c.low_window);
    }
    Some(Arc::new(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RTTs to regain the window after one loss, each RTT acknowledging `cwnd` segments.
    fn recovery_rtts(w: f64) -> f64 {
        let cfg = ScalableConfig::default();
        let mut s = cfg.build(CcInit { initial_cwnd: w, initial_ssthresh: 2.0 });
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

    #[test]
    fn reno_below_the_low_window_and_seven_eighths_on_loss() {
        let cfg = ScalableConfig::default();
        let mut s = cfg.build(CcInit { initial_cwnd: 50.0, initial_ssthresh: 2.0 });
        s.on_ack(&AckInfo { acked_segs: 1.0, ..Default::default() });
        assert_eq!(s.cwnd(), 50.0 + 1.0 / 50.0);
        let mut s = cfg.build(CcInit { initial_cwnd: 200.0, initial_ssthresh: 2.0 });
        s.on_ack(&AckInfo { acked_segs: 1.0, ..Default::default() });
        assert_eq!(s.cwnd(), 200.01);
        s.on_congestion(&LossInfo { window: 200.0, ..Default::default() });
        assert_eq!((s.cwnd(), s.ssthresh()), (175.0, 175.0));
    }
}
