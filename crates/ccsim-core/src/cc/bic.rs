//! BIC TCP (Xu, Harfoush, Rhee, "Binary increase congestion control for fast, long
//! distance networks", INFOCOM 2004), as Linux's `tcp_bic.c` (current).
//!
//! After a loss the window searches for the last maximum `last_max` by halving the gap: in
//! congestion avoidance it grows by one segment per `cnt` acknowledged, with
//!
//! - `cwnd ≤ low_window` (14): `cnt = cwnd` (Reno; neither the cap below nor the scaling);
//! - below `last_max`: `dist = (last_max − cwnd)/B` (B = 4): `+max_increment` (16) per RTT
//!   while `dist > 16`, `+0.2` per RTT (`cnt = cwnd·smooth_part/B`) once `dist ≤ 1`, else
//!   `+dist` per RTT;
//! - above it ("max probing"): `cnt = cwnd·smooth_part/B` within B segments,
//!   `cwnd·(B − 1)/(cwnd − last_max)` within `max_increment·(B − 1)`, else `cwnd/16`;
//! - no loss yet: at least 5 % per RTT (`cnt ≤ 20`); `cnt` is scaled by the measured
//!   packets per ACK (`delayed_ack`, ×16) and recomputed only when cwnd changed or 1/32 s
//!   passed (31 whole milliseconds: HZ / 32 jiffies, [`super::within_hz32`]).
//!
//! On a loss: `last_max = cwnd·(1 + β)/2` if cwnd is below the previous maximum (fast
//! convergence), else `cwnd`; `ssthresh = cwnd·β` (β = 819/1024), Reno's halving at or
//! below `low_window`. A timeout resets the search (Linux's `bictcp_reset` in `TCP_CA_Loss`).
//! Windows are whole segments, as Linux's.
//!
//! `version = "2.6.22"` is the module of Linux 2.6.22 that ns-2.35 carries (and Paper E's
//! era): slow start while `cwnd ≤ ssthresh`, the 5 %-per-RTT floor until the first loss
//! (`loss_cwnd == 0`, where the current module keys it on `last_max == 0`), and one
//! increment per `cnt + 1` acknowledgements. Whether the window may grow at all (Linux's
//! `tcp_is_cwnd_limited`, checked first in both versions) is the sender's `cwnd_growth`
//! rule; the packets-per-ACK estimate ([`CongestionControl::on_acked`]) runs either way.

use super::{AckInfo, CcConfig, CcInit, CongestionControl, LossInfo};
use crate::config::{Errors, Obj};
use crate::units::Time;
use std::sync::Arc;

const B: u64 = 4;
const ACK_RATIO_SHIFT: u32 = 4;

/// `cc = "bic"`, `cc_params = { beta = 819, max_increment = 16, low_window = 14,
/// smooth_part = 20, fast_convergence = true }` (β in 1/1024).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct BicConfig {
    /// `current` or `2.6.22` (Linux 2.6.22 / ns-2.35).
    pub version: &'static str,
    pub beta: u64,
    pub max_increment: u64,
    pub low_window: u64,
    pub smooth_part: u64,
    pub fast_convergence: bool,
}

impl Default for BicConfig {
    fn default() -> Self {
        BicConfig { version: "current", beta: 819, max_increment: 16, low_window: 14, smooth_part: 20, fast_convergence: true }
    }
}

pub struct Bic {
    cwnd: f64,
    ssthresh: f64,
    c: BicConfig,
    cnt: u64,
    last_max: u64,
    last_cwnd: u64,
    last_time: Option<Time>,
    /// The window at the last loss (0: none since the start or the last timeout).
    loss_cwnd: u64,
    /// Packets per ACK ×16 (an EWMA with gain 1/16).
    delayed_ack: u64,
    /// Acknowledged segments towards the next increment (Linux `snd_cwnd_cnt`).
    acked: f64,
}

impl Bic {
    fn new(c: BicConfig, init: CcInit) -> Self {
        Bic {
            cwnd: init.initial_cwnd,
            ssthresh: init.initial_ssthresh,
            c,
            cnt: 0,
            last_max: 0,
            last_cwnd: 0,
            last_time: None,
            loss_cwnd: 0,
            delayed_ack: 2 << ACK_RATIO_SHIFT,
            acked: 0.0,
        }
    }

    /// Linux's `bictcp_update`: segments acknowledged per one-segment increase.
    fn update(&mut self, now: Time) {
        let cwnd = self.cwnd as u64;
        if cwnd == self.last_cwnd && self.last_time.is_some_and(|t| super::within_hz32(now, t)) {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = Some(now);
        if cwnd <= self.c.low_window {
            // "start off normal": Reno's cnt, neither capped nor scaled by delayed_ack.
            self.cnt = cwnd;
            return;
        }
        self.cnt = self.raw_cnt(cwnd);
        let no_loss = if self.c.version == "2.6.22" { self.loss_cwnd == 0 } else { self.last_max == 0 };
        if no_loss && self.cnt > 20 {
            self.cnt = 20; // at least 5 % per RTT before the first loss
        }
        self.cnt = ((self.cnt << ACK_RATIO_SHIFT) / self.delayed_ack.max(1)).max(1);
    }

    fn raw_cnt(&self, cwnd: u64) -> u64 {
        let c = &self.c;
        if cwnd < self.last_max {
            let dist = (self.last_max - cwnd) / B;
            if dist > c.max_increment {
                cwnd / c.max_increment
            } else if dist <= 1 {
                cwnd * c.smooth_part / B
            } else {
                cwnd / dist
            }
        } else if cwnd < self.last_max + B {
            cwnd * c.smooth_part / B
        } else if cwnd < self.last_max + c.max_increment * (B - 1) {
            cwnd * (B - 1) / (cwnd - self.last_max)
        } else {
            cwnd / c.max_increment
        }
    }

    fn decrease(&mut self, window: f64) -> f64 {
        let w = window as u64;
        self.last_max = if w < self.last_max && self.c.fast_convergence { w * (1024 + self.c.beta) / 2048 } else { w };
        self.loss_cwnd = w;
        let s = if w <= self.c.low_window { w / 2 } else { w * self.c.beta / 1024 };
        (s as f64).max(2.0)
    }
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }
    super::window_fields!();
    fn on_acked(&mut self, info: &AckInfo) {
        // Linux's bictcp_acked (in the Open state only: not on the ACK that ends recovery
        // nor while a timeout's data is acknowledged): delayed_ack += pkts − delayed_ack/16.
        if !info.in_recovery {
            let pkts = super::pkts_acked(info);
            self.delayed_ack = self.delayed_ack + pkts - (self.delayed_ack >> ACK_RATIO_SHIFT);
        }
    }
    fn on_ack(&mut self, info: &AckInfo) {
        let old = self.c.version == "2.6.22";
        // Slow start while cwnd < ssthresh (2.6.22: cwnd <= ssthresh, one step further).
        let ss = if old { self.ssthresh + 1.0 } else { self.ssthresh };
        if self.cwnd < ss {
            self.cwnd = super::reno_increase(self.cwnd, ss, info.acked_segs);
            return;
        }
        self.update(info.now);
        if old {
            // 2.6.22's bictcp_cong_avoid: one segment per cnt + 1 ACKs, at most one per ACK.
            super::ai_per_ack(&mut self.cwnd, &mut self.acked, self.cnt as f64);
        } else {
            // tcp_cong_avoid_ai(cnt, acked): one segment per cnt acknowledged.
            super::ai_by_count(&mut self.cwnd, &mut self.acked, self.cnt as f64, info.acked_segs);
        }
    }
    fn on_congestion(&mut self, info: &LossInfo) {
        self.ssthresh = self.decrease(info.window);
        self.cwnd = self.ssthresh;
        // Linux clears snd_cwnd_cnt entering recovery; `bictcp_recalc_ssthresh` leaves the
        // recompute time (`last_time`) as it is.
        self.acked = 0.0;
    }
    fn on_timeout(&mut self, info: &LossInfo) {
        self.ssthresh = self.decrease(info.window);
        self.cwnd = 1.0;
        // bictcp_reset: the search starts afresh.
        (self.cnt, self.last_max, self.last_cwnd, self.last_time, self.acked, self.loss_cwnd) = (0, 0, 0, None, 0.0, 0);
        self.delayed_ack = 2 << ACK_RATIO_SHIFT;
    }
}

impl CcConfig for BicConfig {
    fn kind(&self) -> &'static str {
        "bic"
    }
    fn build(&self, init: CcInit) -> Box<dyn CongestionControl> {
        Box::new(Bic::new(*self, init))
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
}

pub fn parse(obj: Option<&mut Obj>, errs: &mut Errors) -> Option<Arc<dyn CcConfig>> {
    let mut c = BicConfig::default();
    if let Some(o) = obj {
        let version = o.choice("version", &["current", "2.6.22"], Some("current"), errs);
        c.beta = o.int("beta", 1, 1023, errs).unwrap_or(c.beta as i64) as u64;
        c.max_increment = o.int("max_increment", 1, 1 << 20, errs).unwrap_or(c.max_increment as i64) as u64;
        c.low_window = o.int("low_window", 0, 1 << 30, errs).unwrap_or(c.low_window as i64) as u64;
        c.smooth_part = o.int("smooth_part", 1, 1 << 20, errs).unwrap_or(c.smooth_part as i64) as u64;
        c.fast_convergence = o.boolean("fast_convergence", errs).unwrap_or(c.fast_convergence);
        c.version = if version? == "2.6.22" { "2.6.22" } else { "current" };
    }
    Some(Arc::new(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::SEC;

    fn bic(cwnd: f64, last_max: u64) -> Bic {
        let mut b = Bic::new(BicConfig::default(), CcInit { initial_cwnd: cwnd, initial_ssthresh: 2.0, ..Default::default() });
        b.last_max = last_max;
        b
    }

    #[test]
    fn increments_by_region() {
        // Per RTT the increase is cwnd / cnt: +16 far below last_max, a
        // quarter of the gap near it, 0.2 at it, then slow and faster max probing.
        let cases = [(800, 1000, 50), (960, 1000, 96), (998, 1000, 4990), (1002, 1000, 5010), (1020, 1000, 153), (1100, 1000, 68)];
        for (cwnd, last_max, cnt) in cases {
            let b = bic(cwnd as f64, last_max);
            assert_eq!(b.raw_cnt(cwnd), cnt, "cwnd {cwnd}, last_max {last_max}");
        }
        // Before any loss: at least 5 % per RTT; with one ACK per segment delayed_ack is
        // 2 × 16 initially, so cnt is halved.
        let mut b = bic(1000.0, 0);
        b.update(0);
        assert_eq!(b.cnt, 10);
        // At or below low_window, Reno's cnt = cwnd, returned before the cap and the scaling
        // (Linux's "start off normal"): one segment per RTT, not two.
        for version in ["current", "2.6.22"] {
            let mut b = Bic::new(
                BicConfig { version, ..Default::default() },
                CcInit { initial_cwnd: 10.0, initial_ssthresh: 2.0, ..Default::default() },
            );
            b.update(0);
            assert_eq!(b.cnt, 10, "{version}");
        }
    }

    #[test]
    fn version_2_6_22_increments_per_cnt_plus_one_and_floors_until_a_loss() {
        let cfg = BicConfig { version: "2.6.22", ..Default::default() };
        let ack = |now| AckInfo { now, acked_segs: 1.0, ..Default::default() };
        // Before a loss, cnt = 20 scaled by the initial ACK ratio (2): 10, so 11 ACKs per
        // increment; the current module adds one per 10.
        let mut old = Bic::new(cfg, CcInit { initial_cwnd: 1000.0, initial_ssthresh: 2.0, ..Default::default() });
        let mut new = Bic::new(BicConfig::default(), CcInit { initial_cwnd: 1000.0, initial_ssthresh: 2.0, ..Default::default() });
        for _ in 0..11 {
            crate::cc::ack_grow(&mut old, &ack(0));
            crate::cc::ack_grow(&mut new, &ack(0));
        }
        assert_eq!((old.cwnd(), new.cwnd()), (1001.0, 1001.0));
        assert_eq!(old.acked, 0.0);
        assert_eq!(new.acked, 1.0);
        // After a timeout the floor returns in 2.6.22 (loss_cwnd = 0) as in current (last_max = 0).
        old.on_congestion(&LossInfo { window: 1000.0, ..Default::default() });
        assert_eq!(old.loss_cwnd, 1000);
        old.on_timeout(&LossInfo { window: 799.0, ..Default::default() });
        assert_eq!(old.loss_cwnd, 0);
        // Slow start at cwnd == ssthresh in 2.6.22 only.
        let mut a = Bic::new(cfg, CcInit { initial_cwnd: 10.0, initial_ssthresh: 10.0, ..Default::default() });
        let mut b = Bic::new(BicConfig::default(), CcInit { initial_cwnd: 10.0, initial_ssthresh: 10.0, ..Default::default() });
        crate::cc::ack_grow(&mut a, &ack(0));
        crate::cc::ack_grow(&mut b, &ack(0));
        assert_eq!(a.cwnd(), 11.0);
        assert!(b.cwnd() < 11.0);
    }

    #[test]
    fn decrease_and_fast_convergence() {
        let mut b = bic(1000.0, 0);
        assert_eq!(b.decrease(1000.0), 799.0);
        assert_eq!(b.last_max, 1000);
        // A loss below the previous maximum: last_max = cwnd (1 + β) / 2.
        assert_eq!(b.decrease(900.0), 719.0);
        assert_eq!(b.last_max, 900 * 1843 / 2048);
        // Reno at or below low_window.
        assert_eq!(b.decrease(12.0), 6.0);
    }

    #[test]
    fn the_window_climbs_back_to_the_last_maximum_and_slows_there() {
        let mut b = bic(1000.0, 0);
        b.on_congestion(&LossInfo { window: 1000.0, ..Default::default() });
        let (mut rtts, mut now) = (0, 0);
        let ack = AckInfo { acked_segs: 1.0, ..Default::default() };
        while b.cwnd() < 999.0 && rtts < 100 {
            for _ in 0..b.cwnd() as usize {
                now += SEC / 10_000;
                crate::cc::ack_grow(&mut b, &AckInfo { now, ..ack });
            }
            rtts += 1;
        }
        // 799 -> 936 at +16 per RTT (about 9 RTTs; the first ACKs measure the ACK ratio),
        // then a quarter of the gap per RTT: about 20 RTTs in all.
        assert!((12..=30).contains(&rtts), "{rtts} RTTs");
        for _ in 0..1000 {
            now += SEC / 10_000;
            crate::cc::ack_grow(&mut b, &AckInfo { now, ..ack });
        }
        assert!(b.cwnd() < 1001.0, "{}", b.cwnd());
    }
}
