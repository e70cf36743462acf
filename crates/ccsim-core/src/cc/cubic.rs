//! CUBIC (Ha, Rhee, Xu, "CUBIC: a new TCP-friendly high-speed TCP variant", SIGOPS OSR
//! 2008), in two versions (`version`):
//!
//! - `"rfc9438"` (default): RFC 9438. In congestion avoidance `W(t) = C·(t − K)³ + W_max`,
//!   `K = ∛((W_max − cwnd_epoch)/C)`, t the time since the epoch started (the first ACK of
//!   congestion avoidance after a reduction); per acknowledged segment
//!   `cwnd += (target − cwnd)/cwnd` with `target = W(t + srtt)` clamped to
//!   `[cwnd, 1.5·cwnd]`; the Reno-friendly estimate `W_est += α·acked/cwnd`,
//!   `α = 3(1 − β)/(1 + β)` (1 once `W_est ≥ cwnd_prior`), takes over when larger. On a loss
//!   `ssthresh = cwnd = max(β·W, 2)`, β = 0.7, and `W_max = W`, or `W·(1 + β)/2` below the
//!   previous `W_max` (fast convergence).
//! - `"2.1"`: CUBIC v2.1 as Linux 2.6.22–2.6.24 and ns-2.35 carry it (PROTOCOLS.md §11.8),
//!   in Linux's integers: β = 819/1024, one segment per `cnt + 1` ACKs with
//!   `cnt = ⌊cwnd/(W(t + delay_min) − cwnd)⌋` (`100·cwnd` at or above the target), `cnt = 50`
//!   before the first loss, above the origin at most `max_increment` (16) segments per 100 ms
//!   of `delay_min`, and a Reno estimate growing one segment per `cwnd·beta_scale/8` ACKs
//!   (beta_scale = 23) that caps `cnt`; `cnt` is then scaled by the measured packets per ACK
//!   (`delayed_ack`, an EWMA ×16 that settles at 31 with one segment per ACK, so `cnt`
//!   becomes `⌊16·cnt/31⌋`), and recomputed only when cwnd changed or 1/32 s passed (31
//!   whole milliseconds: HZ / 32 jiffies, [`super::within_hz32`]); at most one segment per
//!   ACK (the count of ACKs cleared at each). `delay_min` is the smallest
//!   RTT when the flow uses timestamps and 0 without them (Linux measures it from
//!   timestamps only; ns-2.35's TCP-Linux runs without by default): then no cap and no
//!   `delay_min` look-ahead. Slow start while `cwnd ≤ ssthresh`; a timeout resets `W_max`
//!   and the EWMA (Linux's `bictcp_reset`).
//!
//! Slow start is Reno's; with `hystart = true` (the RFC 9438 default, as current Linux) HyStart
//! ends it early (`ssthresh = cwnd`, see `hystart.rs`); v2.1 has no HyStart.

use super::hystart::{HyStart, HyStartConfig};
use super::{AckInfo, CcConfig, CcInit, CongestionControl, LossInfo};
use crate::config::{Errors, Obj};
use crate::units::{floor, to_secs, Time};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Version {
    #[serde(rename = "rfc9438")]
    Rfc9438,
    #[serde(rename = "2.1")]
    V21,
}

/// `cc = "cubic"`, `cc_params = { version = "rfc9438", c = 0.4, beta = 0.7,
/// fast_convergence = true, tcp_friendliness = true, hystart = true }` (v2.1: beta 819/1024,
/// no HyStart).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct CubicConfig {
    pub version: Version,
    pub c: f64,
    pub beta: f64,
    pub fast_convergence: bool,
    pub tcp_friendliness: bool,
    pub hystart: bool,
    pub hystart_params: HyStartConfig,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            version: Version::Rfc9438,
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            tcp_friendliness: true,
            hystart: true,
            hystart_params: HyStartConfig::default(),
        }
    }
}

pub struct Cubic {
    cwnd: f64,
    ssthresh: f64,
    c: CubicConfig,
    w_max: f64,
    /// cwnd before the last reduction (RFC 9438 `cwnd_prior`).
    cwnd_prior: f64,
    epoch: Option<Time>,
    k: f64,
    origin: f64,
    w_est: f64,
    /// v2.1: acknowledged segments towards the next increment (Linux `snd_cwnd_cnt`), the
    /// Reno estimate's ACK count.
    acked: f64,
    ack_cnt: f64,
    loss_seen: bool,
    /// rfc9438: a timeout came since the last epoch (RFC 9438 §4.8: the next epoch starts
    /// with `K = 0` and `W_max` the window it starts at).
    after_timeout: bool,
    /// v2.1: packets per ACK ×16 (an EWMA with gain 1/16), the increment's ACK count `cnt`
    /// as last computed, and the window and time it was computed at.
    delayed_ack: u64,
    cnt: f64,
    last_cwnd: f64,
    last_time: Option<Time>,
    /// v2.1: `delay_min` comes from timestamps (Linux 2.6.22's `measure_delay`): without
    /// them it stays 0.
    timestamps: bool,
    hystart: Option<HyStart>,
}

/// v2.1 (Linux `ACK_RATIO_SHIFT`): `delayed_ack` holds packets per ACK ×16.
const ACK_RATIO_SHIFT: u32 = 4;

impl Cubic {
    pub fn new(c: CubicConfig, init: CcInit) -> Self {
        Cubic {
            cwnd: init.initial_cwnd,
            ssthresh: init.initial_ssthresh,
            c,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            k: 0.0,
            origin: 0.0,
            w_est: 0.0,
            acked: 0.0,
            ack_cnt: 0.0,
            loss_seen: false,
            after_timeout: false,
            delayed_ack: 2 << ACK_RATIO_SHIFT,
            cnt: 0.0,
            last_cwnd: 0.0,
            last_time: None,
            timestamps: init.timestamps,
            hystart: c.hystart.then(|| HyStart::new(c.hystart_params)),
        }
    }

    /// The cubic window `t` seconds after the epoch started.
    pub fn w(&self, t: f64) -> f64 {
        self.c.c * (t - self.k).powi(3) + self.origin
    }

    fn start_epoch(&mut self, now: Time) {
        self.epoch = Some(now);
        if std::mem::take(&mut self.after_timeout) {
            self.w_max = self.cwnd;
        }
        if self.cwnd < self.w_max {
            self.k = libm::cbrt((self.w_max - self.cwnd) / self.c.c);
            self.origin = self.w_max;
        } else {
            self.k = 0.0;
            self.origin = self.cwnd;
        }
        self.w_est = self.cwnd;
        self.ack_cnt = 0.0;
    }

    fn reduce(&mut self, window: f64) -> f64 {
        self.epoch = None;
        self.after_timeout = false;
        self.loss_seen = true;
        self.acked = 0.0; // Linux clears snd_cwnd_cnt entering recovery or loss
        if self.c.version == Version::V21 {
            // bictcp_recalc_ssthresh, in whole segments and 1/1024ths of β.
            let (w, beta) = (floor(window), libm::round(self.c.beta * 1024.0));
            self.w_max = if self.c.fast_convergence && w < self.w_max { floor(w * (1024.0 + beta) / 2048.0) } else { w };
            self.cwnd_prior = w;
            return floor(w * beta / 1024.0).max(2.0);
        }
        self.w_max = if self.c.fast_convergence && window < self.w_max { window * (1.0 + self.c.beta) / 2.0 } else { window };
        self.cwnd_prior = window;
        (window * self.c.beta).max(2.0)
    }

    fn avoid_rfc(&mut self, info: &AckInfo, t: f64) {
        let rtt = to_secs(info.srtt.max(info.min_rtt));
        let target = self.w(t + rtt).clamp(self.cwnd, 1.5 * self.cwnd);
        let credit = info.acked_segs;
        if self.c.tcp_friendliness {
            let alpha = if self.w_est >= self.cwnd_prior { 1.0 } else { 3.0 * (1.0 - self.c.beta) / (1.0 + self.c.beta) };
            self.w_est += alpha * credit / self.cwnd;
        }
        self.cwnd += credit * (target - self.cwnd) / self.cwnd;
        if self.c.tcp_friendliness && self.w(t) < self.w_est && self.w_est > self.cwnd {
            self.cwnd = self.w_est;
        }
    }

    /// v2.1's `bictcp_update` and `bictcp_cong_avoid` (Linux 2.6.22), past slow start.
    fn avoid_v21(&mut self, info: &AckInfo) {
        let cwnd = floor(self.cwnd); // Linux's window is whole segments
        self.cwnd = cwnd;
        self.ack_cnt += 1.0; // per ACK
        let fresh = cwnd == self.last_cwnd && self.last_time.is_some_and(|t| super::within_hz32(info.now, t));
        if !fresh {
            (self.last_cwnd, self.last_time) = (cwnd, Some(info.now));
            if self.epoch.is_none() {
                self.start_epoch(info.now);
                self.ack_cnt = 1.0;
            }
            let delay_min = if self.timestamps { to_secs(info.min_rtt) } else { 0.0 };
            self.cnt = self.cnt_v21(cwnd, to_secs(info.now - self.epoch.unwrap_or(info.now)), delay_min);
        }
        // One segment once cnt ACKs have been counted: one per cnt + 1 ACKs.
        super::ai_per_ack(&mut self.cwnd, &mut self.acked, self.cnt);
    }

    /// v2.1's `cnt` in Linux's integers: ACKs per one-segment increase, `t` seconds into the
    /// epoch with the smallest RTT `delay_min`.
    fn cnt_v21(&mut self, cwnd: f64, t: f64, delay_min: f64) -> f64 {
        let t = t + delay_min;
        let delta = floor(self.c.c * (t - self.k).abs().powi(3));
        let target = if t < self.k { self.origin - delta } else { self.origin + delta };
        let mut cnt = if target > cwnd { floor(cwnd / (target - cwnd)) } else { 100.0 * cwnd };
        if delay_min > 0.0 && t >= self.k {
            // Above the origin, at most max_increment (16) segments per 100 ms.
            cnt = cnt.max(floor(cwnd * 0.1 / (16.0 * delay_min)));
        }
        if !self.loss_seen {
            cnt = 50.0; // "slow start and low utilization"
        }
        if self.c.tcp_friendliness {
            let delta = floor(cwnd * 23.0 / 8.0).max(1.0);
            while self.ack_cnt > delta {
                self.ack_cnt -= delta;
                self.w_est += 1.0;
            }
            if self.w_est > cwnd {
                cnt = cnt.min(floor(cwnd / (self.w_est - cwnd)));
            }
        }
        floor(cnt * f64::from(1u32 << ACK_RATIO_SHIFT) / self.delayed_ack.max(1) as f64).max(1.0)
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }
    super::window_fields!();
    fn on_acked(&mut self, info: &AckInfo) {
        if self.c.version == Version::V21 && !info.in_recovery {
            // bictcp_acked (the Open state only): delayed_ack += pkts − delayed_ack/16.
            let pkts = super::pkts_acked(info);
            self.delayed_ack = self.delayed_ack + pkts - (self.delayed_ack >> ACK_RATIO_SHIFT);
        }
        if let Some(h) = &mut self.hystart {
            if h.on_ack(info, self.cwnd, self.cwnd < self.ssthresh).is_some() {
                self.ssthresh = self.cwnd;
            }
        }
    }
    fn on_ack(&mut self, info: &AckInfo) {
        let v21 = self.c.version == Version::V21;
        // Slow start while cwnd < ssthresh (v2.1: cwnd <= ssthresh, one step further).
        let ss = if v21 { self.ssthresh + 1.0 } else { self.ssthresh };
        if self.cwnd < ss {
            self.cwnd = super::reno_increase(self.cwnd, ss, info.acked_segs);
            return;
        }
        if v21 {
            return self.avoid_v21(info);
        }
        if self.epoch.is_none() {
            self.start_epoch(info.now);
        }
        let t = to_secs(info.now - self.epoch.unwrap_or(info.now));
        self.avoid_rfc(info, t);
    }
    fn on_congestion(&mut self, info: &LossInfo) {
        self.ssthresh = self.reduce(info.window);
        self.cwnd = self.ssthresh;
    }
    fn on_timeout(&mut self, info: &LossInfo) {
        self.ssthresh = self.reduce(info.window);
        self.cwnd = 1.0;
        if let Some(h) = &mut self.hystart {
            h.reset_after_timeout(info.now);
        }
        if self.c.version == Version::V21 {
            // Linux's bictcp_reset in TCP_CA_Loss.
            (self.w_max, self.loss_seen, self.ack_cnt, self.w_est) = (0.0, false, 0.0, 0.0);
            (self.cnt, self.last_cwnd, self.last_time) = (0.0, 0.0, None);
            self.delayed_ack = 2 << ACK_RATIO_SHIFT;
        } else {
            // RFC 9438 §4.8: the next epoch starts at the window it starts with (K = 0).
            self.after_timeout = true;
        }
    }
    fn on_packet_sent(&mut self, _now: Time, seq: u64, len: u32, _retransmission: bool) {
        if let Some(h) = &mut self.hystart {
            h.on_sent(seq, len);
        }
    }
    fn summary(&self) -> Vec<(&'static str, f64)> {
        match &self.hystart {
            Some(h) => vec![("hystart_ack_train", h.exits[0] as f64), ("hystart_delay", h.exits[1] as f64)],
            None => Vec::new(),
        }
    }
    fn restart_counters(&mut self) {
        if let Some(h) = &mut self.hystart {
            h.exits = [0; 2];
        }
    }
    fn probe_names(&self) -> &'static [&'static str] {
        &["w_max"]
    }
    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.w_max);
    }
}

impl CcConfig for CubicConfig {
    fn kind(&self) -> &'static str {
        "cubic"
    }
    fn build(&self, init: CcInit) -> Box<dyn CongestionControl> {
        Box::new(Cubic::new(*self, init))
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
}

pub fn parse(obj: Option<&mut Obj>, errs: &mut Errors) -> Option<Arc<dyn CcConfig>> {
    let mut c = CubicConfig::default();
    if let Some(o) = obj {
        let version = o.choice("version", &["rfc9438", "2.1"], Some("rfc9438"), errs);
        if version == Some("2.1") {
            c.version = Version::V21;
            c.beta = 819.0 / 1024.0;
            c.hystart = false;
        }
        c.c = o.float("c", 1e-6, 1e3, errs).unwrap_or(c.c);
        c.beta = o.float("beta", 0.01, 0.99, errs).unwrap_or(c.beta);
        c.fast_convergence = o.boolean("fast_convergence", errs).unwrap_or(c.fast_convergence);
        c.tcp_friendliness = o.boolean("tcp_friendliness", errs).unwrap_or(c.tcp_friendliness);
        c.hystart = o.boolean("hystart", errs).unwrap_or(c.hystart);
        let h = &mut c.hystart_params;
        h.low_window = o.float("hystart_low_window", 2.0, 1e9, errs).unwrap_or(h.low_window);
        // Times ("2ms", or seconds), at most 1 s.
        for (key, field) in [("hystart_ack_delta", &mut h.ack_delta), ("hystart_ack_delay", &mut h.ack_delay)] {
            if let Some(ns) = o.time(key, errs) {
                if ns > crate::units::SEC {
                    errs.add(o.at(key), format!("must be at most 1 s, got {} s", ns as f64 / 1e9));
                } else {
                    *field = ns as f64 / 1e9;
                }
            }
        }
        version?;
    }
    Some(Arc::new(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{MS, SEC};

    /// A loss at `w`, then ACKs one RTT (100 ms) apart per window: the window at each RTT.
    fn after_loss(cfg: CubicConfig, w: f64, rtts: usize) -> Vec<f64> {
        let mut c = cfg.build(CcInit { initial_cwnd: w, initial_ssthresh: 2.0, ..Default::default() });
        c.on_congestion(&LossInfo { window: w, ..Default::default() });
        let (mut now, mut out) = (0, Vec::new());
        for _ in 0..rtts {
            let n = c.cwnd() as u64;
            for i in 0..n {
                let info =
                    AckInfo { now: now + 100 * MS * i / n, acked_segs: 1.0, srtt: 100 * MS, min_rtt: 100 * MS, ..Default::default() };
                crate::cc::ack_grow(&mut c, &info);
            }
            now += 100 * MS;
            out.push(c.cwnd());
        }
        out
    }

    #[test]
    fn the_window_follows_the_cubic_function_between_losses() {
        // W_max = 1000, β = 0.7, C = 0.4: K = ∛(300/0.4) = 9.09 s.
        let cfg = CubicConfig { tcp_friendliness: false, ..Default::default() };
        let w = after_loss(cfg, 1000.0, 150);
        let k = libm::cbrt(300.0f64 / 0.4);
        let cubic = |t: f64| 0.4 * (t - k).powi(3) + 1000.0;
        // The window at the end of RTT i targets W(t + RTT): compare with W one RTT ahead.
        for (i, &got) in w.iter().enumerate().step_by(10) {
            let t = (i + 1) as f64 * 0.1;
            let want = cubic(t + 0.1).clamp(700.0, f64::MAX);
            assert!((got / want - 1.0).abs() < 0.03, "RTT {i}: {got:.1} vs {want:.1}");
        }
        // Concave up to W_max near K, convex beyond.
        let at_k = w[(k * 10.0) as usize];
        assert!((at_k / 1000.0 - 1.0).abs() < 0.01, "{at_k}");
        assert!(w[149] > 1080.0, "{}", w[149]);
    }

    #[test]
    fn reno_friendly_region_at_small_windows() {
        // W_max = 20 at 100 ms: the cubic curve barely moves in 2 s, the Reno estimate leads:
        // α = 0.53 segment per RTT from 14 to cwnd_prior = 20 (11.3 RTTs), then 1 per RTT.
        let w = after_loss(CubicConfig::default(), 20.0, 20);
        let off = after_loss(CubicConfig { tcp_friendliness: false, ..Default::default() }, 20.0, 20);
        assert!(w[19] > off[19] + 3.0, "{} vs {}", w[19], off[19]);
        let want = 20.0 + (20.0 - 6.0 / 0.5294);
        assert!((w[19] - want).abs() < 1.5, "{} vs {want}", w[19]);
    }

    #[test]
    fn v21_reduces_to_0_8_and_is_capped_before_the_first_loss() {
        let cfg = CubicConfig { version: Version::V21, beta: 819.0 / 1024.0, ..Default::default() };
        let mut c = cfg.build(CcInit { initial_cwnd: 1000.0, initial_ssthresh: 2.0, ..Default::default() });
        // Before any loss, cnt = 50, scaled by 16/31 (one segment per ACK settles Linux's
        // delayed_ack at 31): 25, one segment per 26 ACKs, so 1000 ACKs over one RTT add 38.
        for i in 0..1000 {
            crate::cc::ack_grow(&mut c, &AckInfo { now: SEC + i * 100_000, acked_segs: 1.0, min_rtt: 100 * MS, ..Default::default() });
        }
        assert_eq!(c.cwnd(), 1038.0);
        c.on_congestion(&LossInfo { window: 1000.0, ..Default::default() });
        assert_eq!(c.cwnd(), 799.0, "Linux's integers: 1000·819/1024 = 799.8");
    }

    /// v2.1 as ns-2.35's copy of Linux 2.6.22: the EWMA of packets per ACK starts at 2 (32)
    /// and settles at 31/16 with one segment per ACK (an unsigned subtraction that wraps),
    /// and a timeout brings it back to 32 with the rest of `bictcp_reset`.
    #[test]
    fn v21_scales_cnt_by_its_packets_per_ack_estimate() {
        let mut c = Cubic::new(parse_v21(), CcInit { initial_cwnd: 500.0, initial_ssthresh: 2.0, ..Default::default() });
        for i in 0..100 {
            crate::cc::ack_grow(&mut c, &AckInfo { now: SEC + i * MS, acked_segs: 1.0, min_rtt: 100 * MS, ..Default::default() });
            assert_eq!(c.delayed_ack, 31, "ACK {i}");
        }
        assert_eq!(c.cnt, 25.0, "50·16/31");
        // The ACK that ends a recovery covers a window: Linux, in its Recovery state then,
        // leaves the estimate alone (it would have jumped to 31 + 500 − 1).
        let exit = AckInfo { now: 2 * SEC, acked_bytes: 500_000, mss: 1000, acked_segs: 1.0, in_recovery: true, ..Default::default() };
        crate::cc::ack_grow(&mut c, &exit);
        assert_eq!(c.delayed_ack, 31);
        crate::cc::ack_grow(&mut c, &AckInfo { in_recovery: false, acked_bytes: 2000, ..exit });
        assert_eq!(c.delayed_ack, 31 + 2 - 1, "two packets, in the Open state");
        c.on_timeout(&LossInfo { window: 510.0, ..Default::default() });
        assert_eq!((c.delayed_ack, c.w_max, c.loss_seen, c.acked), (32, 0.0, false, 0.0));
    }

    /// Linux 2.6.22 adds at most one segment per ACK and then clears its count: ACKs counted
    /// while `cnt` was large (`100·cwnd` near the origin) are not spent at once when it falls.
    /// Its `delay_min` needs timestamps: without them there is no look-ahead.
    #[test]
    fn v21_adds_at_most_one_segment_per_ack() {
        let init = CcInit { initial_cwnd: 1000.0, initial_ssthresh: 2.0, timestamps: true };
        let mut c = Cubic::new(parse_v21(), init);
        (c.loss_seen, c.w_max, c.acked) = (true, 2000.0, 500.0);
        let ack = AckInfo { now: SEC, acked_segs: 1.0, min_rtt: 100 * MS, ..Default::default() };
        crate::cc::ack_grow(&mut c, &ack);
        assert_eq!((c.cwnd(), c.acked), (1001.0, 0.0), "cnt {}", c.cnt);
        // K = ∛(1000/0.4) = 13.57 s; t + delay_min = 0.1 s: target 2000 − ⌊0.4·13.47³⌋ = 1 022,
        // cnt ⌊1000/22⌋ = 45, scaled ⌊45·16/31⌋ = 23.
        assert_eq!(c.cnt, 23.0);
        let mut c = Cubic::new(parse_v21(), CcInit { timestamps: false, ..init });
        (c.loss_seen, c.w_max) = (true, 2000.0);
        crate::cc::ack_grow(&mut c, &ack);
        assert_eq!(c.cnt, libm::floor(100.0 * 1000.0 * 16.0 / 31.0), "no delay_min: the target is the window");
    }

    /// RFC 9438 §4.8: after a timeout the first congestion avoidance stage starts with K = 0
    /// and W_max (and W_est) the window it starts at, not the W_max of the loss before.
    #[test]
    fn after_a_timeout_the_epoch_starts_at_its_own_window() {
        let cfg = CubicConfig { tcp_friendliness: false, hystart: false, ..Default::default() };
        let mut c = Cubic::new(cfg, CcInit { initial_cwnd: 1000.0, initial_ssthresh: 2.0, ..Default::default() });
        c.on_congestion(&LossInfo { window: 1000.0, ..Default::default() });
        c.on_timeout(&LossInfo { window: 800.0, ..Default::default() });
        assert_eq!((c.ssthresh, c.w_max), (560.0, 680.0), "fast convergence as on any reduction");
        c.cwnd = 560.0; // slow start done
        let ack = |now| AckInfo { now, acked_segs: 1.0, srtt: 100 * MS, min_rtt: 100 * MS, ..Default::default() };
        crate::cc::ack_grow(&mut c, &ack(SEC));
        assert_eq!((c.k, c.origin, c.w_max, c.w_est), (0.0, 560.0, 560.0, 560.0));
        // A fast retransmit's reduction ends that rule: the next epoch aims at its W_max again.
        c.on_congestion(&LossInfo { window: 600.0, ..Default::default() });
        c.cwnd = c.ssthresh;
        crate::cc::ack_grow(&mut c, &ack(2 * SEC));
        assert_eq!(c.origin, 600.0);
        assert!(c.k > 0.0);
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        let mut c = Cubic::new(CubicConfig::default(), CcInit { initial_cwnd: 1000.0, initial_ssthresh: 2.0, ..Default::default() });
        c.w_max = 1000.0;
        assert_eq!(c.reduce(800.0), 800.0 * 0.7);
        assert_eq!(c.w_max, 800.0 * 1.7 / 2.0);
    }

    /// RFC 9438 with HyStart: a rising RTT in slow start sets ssthresh to cwnd (and growth
    /// goes on in congestion avoidance); v2.1 keeps doubling.
    #[test]
    fn hystart_ends_slow_start_on_a_delay_increase() {
        for (cfg, ends) in [(CubicConfig::default(), true), (parse_v21(), false)] {
            let mut c = cfg.build(CcInit { initial_cwnd: 20.0, initial_ssthresh: 1e9, ..Default::default() });
            c.on_packet_sent(0, 0, 1000, false);
            let first = AckInfo { now: 40 * MS, ack: 1000, acked_bytes: 1000, acked_segs: 1.0, ..Default::default() };
            crate::cc::ack_grow(&mut c, &first);
            c.on_packet_sent(0, 1000, 1_000_000, false);
            for i in 1..12u64 {
                let now = 100 * MS + i * 5 * MS;
                let info = AckInfo { now, ack: 2000 + i, ts_echo: now - 60 * MS, acked_bytes: 1000, acked_segs: 1.0, ..Default::default() };
                crate::cc::ack_grow(&mut c, &info);
            }
            assert_eq!(c.ssthresh() < 1e9, ends, "{:?}", cfg.version);
        }
    }

    #[test]
    fn hystart_times_take_units() {
        let mut errs = Errors::default();
        let v = serde_json::json!({ "hystart_ack_delta": "3ms", "hystart_ack_delay": 0.0005 });
        let mut o = Obj::new(&v, "cc_params", &mut errs).unwrap();
        let p = parse(Some(&mut o), &mut errs).unwrap().params();
        assert_eq!((p["hystart_params"]["ack_delta"].as_f64(), p["hystart_params"]["ack_delay"].as_f64()), (Some(0.003), Some(0.0005)));
        let v = serde_json::json!({ "hystart_ack_delta": "2s" });
        let mut o = Obj::new(&v, "cc_params", &mut errs).unwrap();
        parse(Some(&mut o), &mut errs);
        assert!(format!("{errs:?}").contains("must be at most 1 s, got 2 s"), "{errs:?}");
    }

    fn parse_v21() -> CubicConfig {
        let mut errs = Errors::default();
        let v = serde_json::json!({ "version": "2.1" });
        let mut o = Obj::new(&v, "cc_params", &mut errs).unwrap();
        let c = parse(Some(&mut o), &mut errs).unwrap();
        let p = c.params();
        assert_eq!(p["hystart"], false);
        CubicConfig { version: Version::V21, beta: 819.0 / 1024.0, hystart: false, ..Default::default() }
    }
}
