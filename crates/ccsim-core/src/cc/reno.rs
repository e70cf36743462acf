//! Reno / NewReno congestion avoidance (RFC 5681; ns-2 `windowOption_ 1`): slow start
//! `cwnd += acked_segs` per ACK while `cwnd < ssthresh`, else `cwnd += acked_segs/cwnd`
//! (one segment per RTT); on a congestion event `ssthresh = cwnd = max(W/2, 2)`; on a
//! timeout `ssthresh = max(W/2, 2)`, `cwnd = 1`.
//!
//! With byte counting an ACK may credit many segments (a cumulative ACK after a repaired
//! hole). As Linux's `tcp_slow_start`, slow start then stops at ssthresh and the rest of
//! the credit is applied in congestion avoidance; one segment per ACK (ns-2) is unchanged.

use super::{halve, AckInfo, CcConfig, CcInit, CongestionControl, LossInfo};
use crate::config::{Errors, Obj};
use std::sync::Arc;

pub struct Reno {
    cwnd: f64,
    ssthresh: f64,
}

impl Reno {
    pub fn new(init: CcInit) -> Self {
        Reno { cwnd: init.initial_cwnd, ssthresh: init.initial_ssthresh }
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }
    super::window_fields!();
    #[inline]
    fn on_ack(&mut self, info: &AckInfo) {
        self.cwnd = super::reno_increase(self.cwnd, self.ssthresh, info.acked_segs);
    }
    fn on_congestion(&mut self, info: &LossInfo) {
        self.ssthresh = halve(info.window);
        self.cwnd = if info.ns2_halving { (info.window / 2.0).max(1.0) } else { self.ssthresh };
    }
    fn on_timeout(&mut self, info: &LossInfo) {
        self.ssthresh = halve(info.window);
        self.cwnd = 1.0;
    }
}

/// `cc = "reno"`: no parameters.
#[derive(Clone, Copy, Debug, Default)]
pub struct RenoConfig;

impl CcConfig for RenoConfig {
    fn kind(&self) -> &'static str {
        "reno"
    }
    fn build(&self, init: CcInit) -> Box<dyn CongestionControl> {
        Box::new(Reno::new(init))
    }
    fn params(&self) -> serde_json::Value {
        serde_json::json!({})
    }
}

/// Reno takes no `cc_params` (an empty table is accepted).
pub fn parse(_obj: Option<&mut Obj>, _errs: &mut Errors) -> Option<Arc<dyn CcConfig>> {
    Some(Arc::new(RenoConfig))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack() -> AckInfo {
        AckInfo { acked_segs: 1.0, acked_bytes: 1000, mss: 1000, ..Default::default() }
    }

    #[test]
    fn slow_start_then_avoidance() {
        let mut r = Reno::new(CcInit { initial_cwnd: 2.0, initial_ssthresh: 8.0, ..Default::default() });
        for _ in 0..6 {
            r.on_ack(&ack());
        }
        assert_eq!(r.cwnd(), 8.0);
        // One RTT of CA: 8 ACKs add 8 · 1/cwnd ≈ 1 segment.
        for _ in 0..8 {
            r.on_ack(&ack());
        }
        assert!((r.cwnd() - 8.0 - 1.0).abs() < 0.07, "{}", r.cwnd());
    }

    #[test]
    fn a_large_byte_counted_ack_stops_slow_start_at_ssthresh() {
        let mut r = Reno::new(CcInit { initial_cwnd: 1.0, initial_ssthresh: 4.0, ..Default::default() });
        r.on_ack(&AckInfo { acked_segs: 40.0, ..ack() });
        // 3 segments of slow start to reach 4, then 37/4 in avoidance.
        assert!((r.cwnd() - (4.0 + 37.0 / 4.0)).abs() < 1e-12, "{}", r.cwnd());
    }

    #[test]
    fn halves_on_loss_and_collapses_on_timeout() {
        let mut r = Reno::new(CcInit { initial_cwnd: 20.0, initial_ssthresh: 1e9, ..Default::default() });
        r.on_congestion(&LossInfo { window: 20.0, ..Default::default() });
        assert_eq!((r.cwnd(), r.ssthresh()), (10.0, 10.0));
        r.on_timeout(&LossInfo { window: 3.0, ..Default::default() });
        assert_eq!((r.cwnd(), r.ssthresh()), (1.0, 2.0));
        // ns-2's slowdown keeps W/2 for cwnd below 2 segments; RFC 5681 floors it at 2.
        r.on_congestion(&LossInfo { window: 3.0, ..Default::default() });
        assert_eq!((r.cwnd(), r.ssthresh()), (2.0, 2.0));
        r.on_congestion(&LossInfo { window: 3.0, ns2_halving: true, ..Default::default() });
        assert_eq!((r.cwnd(), r.ssthresh()), (1.5, 2.0));
    }
}
