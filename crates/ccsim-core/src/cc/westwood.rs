//! TCP Westwood: Reno's probing (slow start, congestion avoidance) with a loss reaction
//! set by an available-bandwidth estimate (ABE) instead of halving:
//!
//! - three duplicate ACKs: `ssthresh = max(2, ABE·RTT_min / (8·MSS))`, `cwnd = ssthresh`
//!   (Paper C §2.3: cwnd ← ABE, ssthresh ← ABE, both as windows);
//! - timeout: `cwnd = 1`, `ssthresh = max(2, ABE·RTT_min / (8·MSS))`.
//!
//! `RTT_min` is the smallest RTT sample. The estimator is pluggable ([`super::bwe`]):
//! `cc_params = { estimator = "original" | "westwood" | "westwood+" | "alg1" | "alg2" }`.
//! With `log_samples = true` every bandwidth sample (time, value, used or filtered, ABE
//! after it) is returned as the series `flow:<name>:bw_samples`.

use super::bwe::{AckEvent, BandwidthEstimator, Ewma, Filter, Tustin, WestwoodPlus};
use super::{AckInfo, CcConfig, CcInit, CongestionControl, LossInfo};
use crate::config::{Errors, Obj};
use crate::measure::{Column, Table};
use crate::units::Time;
use std::collections::VecDeque;
use std::sync::Arc;

/// How many recent transmissions are remembered to find `S_{n−1}` (algorithm 1).
const SENT_RING: usize = 1 << 14;

#[derive(Default)]
struct SampleLog {
    time: Vec<f64>,
    bps: Vec<f64>,
    used: Vec<f64>,
    abe: Vec<f64>,
}

pub struct Westwood {
    cwnd: f64,
    ssthresh: f64,
    est: Box<dyn BandwidthEstimator>,
    needs_send_times: bool,
    /// Recent transmissions in order: (send time, end sequence, previous transmission's time).
    sent: VecDeque<(Time, u64, Time)>,
    min_rtt: Time,
    log: Option<SampleLog>,
    samples: u64,
    used: u64,
}

impl Westwood {
    pub fn new(init: CcInit, est: Box<dyn BandwidthEstimator>, needs_send_times: bool, log: bool) -> Self {
        Westwood {
            cwnd: init.initial_cwnd,
            ssthresh: init.initial_ssthresh,
            est,
            needs_send_times,
            sent: VecDeque::new(),
            min_rtt: 0,
            log: log.then(SampleLog::default),
            samples: 0,
            used: 0,
        }
    }

    /// The estimate as a window in segments, at least 2.
    fn bw_window(&self, mss: u32) -> f64 {
        let w = self.est.estimate_bps() * (self.min_rtt as f64 / 1e9) / (8.0 * mss as f64);
        if w.is_finite() {
            w.max(2.0)
        } else {
            2.0
        }
    }

    /// `S_{n−1}` for the segment sent at `t` (the echoed timestamp) that ends at `ack`:
    /// the send time of the transmission just before it. Several segments can leave at the
    /// same instant; the one ending at `ack` is preferred (it is the one echoed).
    fn sent_before(&self, t: Time, ack: u64) -> Option<Time> {
        let lo = self.sent.partition_point(|e| e.0 < t);
        let hi = self.sent.partition_point(|e| e.0 <= t);
        if lo == hi {
            return None;
        }
        (lo..hi).rev().find(|&i| self.sent[i].1 == ack).or(Some(hi - 1)).map(|i| self.sent[i].2)
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }
    super::window_fields!();

    fn on_packet_sent(&mut self, now: Time, seq: u64, len: u32, _retx: bool) {
        if self.needs_send_times {
            if self.sent.len() == SENT_RING {
                self.sent.pop_front();
            }
            let prev = self.sent.back().map(|e| e.0).unwrap_or(now);
            self.sent.push_back((now, seq + len as u64, prev));
        }
    }

    fn on_ack_received(&mut self, info: &AckInfo) {
        if info.min_rtt > 0 {
            self.min_rtt = info.min_rtt;
        }
        let ev = AckEvent {
            now: info.now,
            acked_bytes: info.acked_bytes,
            dup: info.dup,
            mss: info.mss,
            srtt: info.srtt,
            sent_n: info.ts_echo,
            sent_prev: if self.needs_send_times { self.sent_before(info.ts_echo, info.ack) } else { None },
        };
        if let Some(s) = self.est.on_ack(&ev) {
            self.samples += 1;
            self.used += s.used as u64;
            if let Some(log) = self.log.as_mut() {
                log.time.push(info.now as f64 / 1e9);
                log.bps.push(s.bps);
                log.used.push(s.used as u8 as f64);
                log.abe.push(self.est.estimate_bps());
            }
        }
    }

    fn on_ack(&mut self, info: &AckInfo) {
        self.cwnd = super::reno_increase(self.cwnd, self.ssthresh, info.acked_segs);
    }

    fn on_congestion(&mut self, info: &LossInfo) {
        self.ssthresh = self.bw_window(info.mss);
        self.cwnd = self.ssthresh;
    }

    fn on_timeout(&mut self, info: &LossInfo) {
        self.ssthresh = self.bw_window(info.mss);
        self.cwnd = 1.0;
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &["abe_bps"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.est.estimate_bps());
    }

    fn summary(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("abe_final_bps", self.est.estimate_bps()),
            ("bw_samples", self.samples as f64),
            ("bw_samples_used", self.used as f64),
            ("bw_samples_filtered", (self.samples - self.used) as f64),
        ]
    }

    fn restart_counters(&mut self) {
        (self.samples, self.used) = (0, 0);
    }

    fn tables(&mut self) -> Vec<(&'static str, Table)> {
        let Some(log) = self.log.take() else { return Vec::new() };
        let mut t = Table::default();
        t.push("time", Column::F64(log.time));
        t.push("sample_bps", Column::F64(log.bps));
        t.push("used", Column::F64(log.used));
        t.push("abe_bps", Column::F64(log.abe));
        vec![("bw_samples", t)]
    }
}

/// `cc = "westwood"`, `cc_params = { estimator = "westwood", alpha = 0.1, tau = "1s",
/// s_thresh_divisor = 16, g = 0.25, h = 0.125, k = 3, log_samples = false, ack_accounting =
/// "ns2" | "literal" }`: the bandwidth estimator (`original`, `westwood` (Tustin filter,
/// ns-2's TCP Westwood), `westwood+`, the paper's `alg1` and `alg2`) and its constants.
#[derive(Clone, Debug, serde::Serialize)]
pub struct WestwoodConfig {
    pub estimator: &'static str,
    pub alpha: f64,
    /// Tustin filter time constant, seconds.
    pub tau: f64,
    pub s_thresh_divisor: f64,
    pub g: f64,
    pub h: f64,
    pub k: f64,
    pub log_samples: bool,
    /// `"ns2"` or `"literal"`.
    pub ack_accounting: &'static str,
}

impl Default for WestwoodConfig {
    fn default() -> Self {
        WestwoodConfig {
            estimator: "westwood",
            alpha: 0.1,
            tau: 1.0,
            s_thresh_divisor: 16.0,
            g: 0.25,
            h: 0.125,
            k: 3.0,
            log_samples: false,
            ack_accounting: "ns2",
        }
    }
}

impl CcConfig for WestwoodConfig {
    fn kind(&self) -> &'static str {
        "westwood"
    }
    fn build(&self, init: CcInit) -> Box<dyn CongestionControl> {
        let c = self;
        let literal = c.ack_accounting == "literal";
        let (e, needs): (Box<dyn BandwidthEstimator>, bool) = match c.estimator {
            "original" => (Box::new(Ewma::new("original", c.alpha, Filter::None).literal(literal)), false),
            "alg1" => (Box::new(Ewma::new("alg1", c.alpha, Filter::SendGap { divisor: c.s_thresh_divisor }).literal(literal)), true),
            "alg2" => (Box::new(Ewma::new("alg2", c.alpha, Filter::AckGap { g: c.g, h: c.h, k: c.k }).literal(literal)), false),
            "westwood+" => (Box::new(WestwoodPlus::new()), false),
            _ => (Box::new(Tustin::new(c.tau)), false),
        };
        Box::new(Westwood::new(init, e, needs, c.log_samples))
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
}

/// Parses `cc_params`.
pub fn parse(obj: Option<&mut Obj>, errs: &mut Errors) -> Option<Arc<dyn CcConfig>> {
    let mut c = WestwoodConfig::default();
    if let Some(o) = obj {
        let estimator = o.choice("estimator", &["original", "westwood", "westwood+", "alg1", "alg2"], Some("westwood"), errs);
        c.alpha = o.float("alpha", 1e-6, 1.0, errs).unwrap_or(c.alpha);
        c.tau = o.time("tau", errs).map(|t| t as f64 / 1e9).unwrap_or(c.tau);
        if c.tau <= 0.0 {
            errs.add(o.at("tau"), "must be greater than 0");
            return None;
        }
        c.s_thresh_divisor = o.float("s_thresh_divisor", 1e-3, 1e6, errs).unwrap_or(c.s_thresh_divisor);
        c.g = o.float("g", 1e-6, 1.0, errs).unwrap_or(c.g);
        c.h = o.float("h", 1e-6, 1.0, errs).unwrap_or(c.h);
        c.k = o.float("k", 0.0, 1e3, errs).unwrap_or(c.k);
        c.log_samples = o.boolean("log_samples", errs).unwrap_or(false);
        let accounting = o.choice("ack_accounting", &["ns2", "literal"], Some("ns2"), errs);
        // Both read before giving up, so that neither is reported as unknown.
        c.estimator = estimator?;
        c.ack_accounting = accounting?;
    }
    Some(Arc::new(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_reaction_uses_the_estimate() {
        let mut w = Westwood::new(
            CcInit { initial_cwnd: 2.0, initial_ssthresh: 1e9, ..Default::default() },
            Box::new(Ewma::new("original", 1.0, Filter::None)),
            false,
            false,
        );
        // ACKs 1.6 ms apart carrying 1000 B: ABE = 5 Mb/s with alpha = 1.
        for i in 0..3u64 {
            w.on_ack_received(&AckInfo { now: i * 1_600_000, acked_bytes: 1000, mss: 1000, min_rtt: 80_000_000, ..Default::default() });
        }
        w.cwnd = 60.0;
        w.on_congestion(&LossInfo { mss: 1000, ..Default::default() });
        // 5e6 · 0.08 / 8000 = 50 segments.
        assert!((w.ssthresh - 50.0).abs() < 1e-6, "{}", w.ssthresh);
        assert_eq!(w.cwnd, w.ssthresh);
        w.on_timeout(&LossInfo { mss: 1000, ..Default::default() });
        assert_eq!(w.cwnd, 1.0);
        assert!((w.ssthresh - 50.0).abs() < 1e-6);
        // No estimate yet: the floor of 2 segments.
        let mut z = Westwood::new(
            CcInit { initial_cwnd: 2.0, initial_ssthresh: 1e9, ..Default::default() },
            Box::new(Tustin::new(1.0)),
            false,
            false,
        );
        z.on_congestion(&LossInfo { mss: 1000, ..Default::default() });
        assert_eq!(z.ssthresh, 2.0);
    }

    #[test]
    fn finds_the_previous_transmission() {
        let mut w = Westwood::new(
            CcInit { initial_cwnd: 2.0, initial_ssthresh: 1e9, ..Default::default() },
            Box::new(Tustin::new(1.0)),
            true,
            false,
        );
        for (i, t) in [10, 20, 35, 35, 80].into_iter().enumerate() {
            w.on_packet_sent(t, 1000 * i as u64, 1000, false);
        }
        assert_eq!(w.sent_before(20, 2000), Some(10));
        // Two segments left at 35: the one ending at 3000 follows 20, the one ending at 4000 follows 35.
        assert_eq!(w.sent_before(35, 3000), Some(20));
        assert_eq!(w.sent_before(35, 4000), Some(35));
        assert_eq!(w.sent_before(10, 1000), Some(10));
        assert_eq!(w.sent_before(36, 0), None);
    }
}
