//! DAIMD as Yunhong Gu's ns-2 `Agent/UDT` module (`udt.cc`, 01/2006 and 03/2006, whose
//! control logic is the same), the likely UDT behind Paper D (PROTOCOLS.md §11.10 and
//! docs/models/udt.md). In its own units: period in seconds there, µs here.
//!
//! - **Window.** In slow start `W` = the ACK number (packets acknowledged so far); slow start
//!   ends at the first NAK or when `W` passes the maximum flow window (100 000), and then
//!   `W = ⌈0.875·W + 0.125·lrecv·(RTT + SYN)⌉` on each advancing ACK that reports a receive
//!   rate `lrecv` > 0. The sender may have `W + 1` packets unacknowledged (its test is
//!   `curr − last_ack < W`); [`UdtCc::cwnd`] returns that `W + 1`.
//! - **Increase** on every advancing ACK after slow start (no rate-control interval, no
//!   capacity/9 clamp, no skip after a NAK): `inc = 1/mtu` if `B < 1/P`, else
//!   `max(1/mtu, 10^⌈log10((B − 1/P)·mtu·8)⌉·1.5·10⁻⁶/mtu)`; `P = P·SYN/(P·inc + SYN)`, at
//!   least 1 µs.
//! - **Decrease** on a NAK: slow start ends *without* setting the period from the receive
//!   rate (it stays at 1 µs and grows by the decreases); a NAK past the last decrease opens
//!   a congestion period: `P ×= 1.125` (no rounding), the send after the next one waits
//!   `SYN + P` (the freeze), `avg = 1 + ⌈0.875·avg + 0.125·naks⌉`, `dec_random =
//!   ⌊u·avg⌋ + ⌈avg/5⌉`, `naks = 1`; later NAKs decrease on every `dec_random`-th, with no
//!   cap per period.
//! - After every change the period is capped at the RTT. EXP changes nothing here.
//!
//! The module draws `u` from libc's unseeded `rand()`; ccsim draws it from the flow's
//! random stream (deterministic per seed, independent across flows).

use super::{daimd_increase, increased_period, CcView, LossAction, UdtCc};
use crate::config::{Errors, Obj};
use crate::rng::{Rng, SimRng};

/// `cc = "daimd"`, `cc_params = { variant = "ns2", max_flow_window = 100000, initial_window
/// = 2, initial_period = 1e-6, decrease = 1.125, rtt_cap = true, avg_nak_init = 2 }`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Ns2DaimdConfig {
    /// `max_flow_window_` (packets): slow start ends above it, and `W` never exceeds it.
    pub max_flow_window: f64,
    /// `flow_window_size_` before the first ACK.
    pub initial_window: f64,
    /// Initial period, seconds.
    pub initial_period: f64,
    /// Period factor of a decrease.
    pub decrease: f64,
    /// Cap the period at the RTT.
    pub rtt_cap: bool,
    /// `avg_nak_num_` and `dec_random_` at the start.
    pub avg_nak_init: i64,
}

impl Default for Ns2DaimdConfig {
    fn default() -> Self {
        Ns2DaimdConfig {
            max_flow_window: 100_000.0,
            initial_window: 2.0,
            initial_period: 1e-6,
            decrease: 1.125,
            rtt_cap: true,
            avg_nak_init: 2,
        }
    }
}

impl Ns2DaimdConfig {
    pub(crate) fn read(o: &mut Obj, errs: &mut Errors) -> Option<Self> {
        let mut c = Ns2DaimdConfig::default();
        if let Some(v) = o.float("max_flow_window", 2.0, 1e9, errs) {
            c.max_flow_window = v;
        }
        if let Some(v) = o.float("initial_window", 1.0, 1e9, errs) {
            c.initial_window = v;
        }
        if let Some(v) = o.time("initial_period", errs) {
            c.initial_period = v.max(1) as f64 / 1e9;
        }
        if let Some(v) = o.float("decrease", 1.0, 10.0, errs) {
            c.decrease = v;
        }
        if let Some(v) = o.boolean("rtt_cap", errs) {
            c.rtt_cap = v;
        }
        if let Some(v) = o.int("avg_nak_init", 1, 1_000_000, errs) {
            c.avg_nak_init = v;
        }
        Some(c)
    }
}

pub struct Ns2Daimd {
    c: Ns2DaimdConfig,
    period: f64,
    window: f64,
    slow_start: bool,
    avg_nak_num: i64,
    dec_random: i64,
    nak_count: i64,
    last_dec_seq: i64,
    decreases: u64,
}

impl Ns2Daimd {
    pub fn new(c: Ns2DaimdConfig) -> Self {
        Ns2Daimd {
            period: c.initial_period * 1e6,
            window: c.initial_window,
            slow_start: true,
            avg_nak_num: c.avg_nak_init,
            dec_random: c.avg_nak_init,
            nak_count: 0,
            last_dec_seq: -1,
            decreases: 0,
            c,
        }
    }

    fn cap(&mut self, v: &CcView) {
        if self.c.rtt_cap && v.rtt_us > 0.0 && self.period > v.rtt_us {
            self.period = v.rtt_us;
        }
    }
}

impl UdtCc for Ns2Daimd {
    fn name(&self) -> &'static str {
        "daimd-ns2"
    }
    fn period_us(&self) -> f64 {
        self.period
    }
    /// Packets the sender may have unacknowledged: `W + 1`.
    fn cwnd(&self) -> f64 {
        self.window + 1.0
    }
    fn in_slow_start(&self) -> bool {
        self.slow_start
    }
    fn set_period(&mut self, period_us: f64) {
        self.period = period_us;
    }

    fn on_ack(&mut self, v: &CcView, ack: i64, _ack_rtt_us: f64) {
        if self.slow_start {
            self.window = ack as f64;
        } else if v.rcv_rate > 0.0 {
            self.window = (0.875 * self.window + 0.125 * v.rcv_rate * (v.rtt_us + v.syn_us) / 1e6).ceil();
        }
        if self.window > self.c.max_flow_window {
            self.slow_start = false;
            self.window = self.c.max_flow_window;
        }
        if !self.slow_start {
            let mtu = v.mss as f64;
            let rate = 1e6 / self.period;
            let inc = if v.bandwidth < rate { 1.0 / mtu } else { daimd_increase(v.bandwidth - rate, v.mss, 1.0 / mtu) };
            self.period = increased_period(self.period, inc, v.syn_us).max(1.0);
        }
        self.cap(v);
    }

    fn on_loss(&mut self, v: &CcView, first_lost: i64, _count: u64, rng: &mut SimRng) -> LossAction {
        self.slow_start = false;
        let mut action = LossAction::default();
        if first_lost > self.last_dec_seq {
            self.period *= self.c.decrease;
            self.avg_nak_num = 1 + (0.875 * self.avg_nak_num as f64 + 0.125 * self.nak_count as f64).ceil() as i64;
            let u: f64 = rng.gen();
            self.dec_random = ((u * self.avg_nak_num as f64) as i64 + (self.avg_nak_num as f64 / 5.0).ceil() as i64).max(1);
            self.nak_count = 1;
            self.last_dec_seq = v.snd_cur;
            self.decreases += 1;
            action.freeze = true;
        } else {
            self.nak_count += 1;
            if self.nak_count % self.dec_random == 0 {
                self.period *= self.c.decrease;
                self.last_dec_seq = v.snd_cur;
                self.decreases += 1;
            }
        }
        self.cap(v);
        action
    }

    fn on_timeout(&mut self, _v: &CcView) {}

    fn summary(&self) -> Vec<(&'static str, f64)> {
        vec![("rate_decreases", self.decreases as f64)]
    }
    fn restart_counters(&mut self) {
        self.decreases = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> CcView {
        CcView { now: 0, rtt_us: 100_000.0, rcv_rate: 0.0, bandwidth: 0.0, max_cwnd: 1e9, mss: 1500, snd_cur: 0, syn_us: 10_000.0 }
    }

    #[test]
    fn slow_start_window_is_the_ack_number_and_ends_past_the_maximum() {
        let mut cc = Ns2Daimd::new(Default::default());
        assert_eq!(cc.cwnd(), 3.0); // flow_window_size_ 2, plus one
        cc.on_ack(&view(), 500, 0.0);
        assert_eq!((cc.cwnd(), cc.in_slow_start()), (501.0, true));
        assert_eq!(cc.period_us(), 1.0); // no rate control in slow start
        cc.on_ack(&view(), 100_001, 0.0);
        assert_eq!((cc.cwnd(), cc.in_slow_start()), (100_001.0, false));
    }

    #[test]
    fn increase_by_spare_capacity_with_the_one_over_mtu_floor() {
        let mut cc = Ns2Daimd::new(Default::default());
        cc.slow_start = false;
        cc.window = 1000.0;
        // Period 100 µs (10 000 pkt/s), B = 83 333 pkt/s: spare 880 Mb/s → 1 packet per SYN.
        cc.period = 100.0;
        let v = CcView { bandwidth: 83_333.0, rcv_rate: 10_000.0, ..view() };
        cc.on_ack(&v, 10, 0.0);
        assert!((10_000.0 / cc.period_us() - 101.0).abs() < 1e-9);
        // The window follows the receive rate: ⌈0.875·1000 + 0.125·10 000·0.11⌉ = 1013.
        assert_eq!(cc.cwnd(), 1014.0);
        // Spare 100 Mb/s exactly (8 333.33 pkt/s at period 100 µs over B 18 333.33) → 0.1.
        let mut cc = Ns2Daimd::new(Default::default());
        cc.slow_start = false;
        cc.period = 100.0;
        let v = CcView { bandwidth: 10_000.0 + 100e6 / 12_000.0, ..view() };
        cc.on_ack(&v, 10, 0.0);
        assert!((10_000.0 / cc.period_us() - 100.1).abs() < 1e-6, "{}", 10_000.0 / cc.period_us());
        // Spare 10 Mb/s → 0.01.
        let mut cc = Ns2Daimd::new(Default::default());
        cc.slow_start = false;
        cc.period = 100.0;
        let v = CcView { bandwidth: 10_000.0 + 10e6 / 12_000.0, ..view() };
        cc.on_ack(&v, 10, 0.0);
        assert!((10_000.0 / cc.period_us() - 100.01).abs() < 1e-6);
        // B below the sending rate: 1/1500 packet per SYN.
        let mut cc = Ns2Daimd::new(Default::default());
        cc.slow_start = false;
        cc.period = 100.0;
        let v = CcView { bandwidth: 5_000.0, ..view() };
        cc.on_ack(&v, 10, 0.0);
        assert!((10_000.0 / cc.period_us() - (100.0 + 1.0 / 1500.0)).abs() < 1e-9);
    }

    #[test]
    fn nak_decrease_sequence_freezes_and_has_no_cap() {
        let mut cc = Ns2Daimd::new(Default::default());
        let mut rng = crate::rng::stream(3, "t");
        let v = CcView { snd_cur: 1000, ..view() };
        // First NAK: slow start ends, the period stays 1 µs and decreases to 1.125 µs.
        let a = cc.on_loss(&v, 10, 1, &mut rng);
        assert!(a.freeze);
        assert!(!cc.in_slow_start());
        assert_eq!(cc.period_us(), 1.125);
        // avg = 1 + ⌈0.875·2 + 0.125·0⌉ = 3; dec_random = ⌊u·3⌋ + ⌈3/5⌉ ∈ [1, 3].
        assert_eq!(cc.avg_nak_num, 3);
        assert!((1..=3).contains(&cc.dec_random));
        // Further NAKs of the period: every dec_random-th decreases, without a cap.
        cc.dec_random = 2;
        let mut p = cc.period_us();
        for i in 0..20 {
            let a = cc.on_loss(&v, 20, 1, &mut rng);
            assert!(!a.freeze);
            if i % 2 == 0 {
                p *= 1.125;
            }
            assert!((cc.period_us() - p).abs() < 1e-12, "NAK {i}");
        }
        assert_eq!(cc.nak_count, 21);
        // The next congestion period: avg = 1 + ⌈0.875·3 + 0.125·21⌉ = 7.
        let v = CcView { snd_cur: 5000, ..v };
        cc.on_loss(&v, 1001, 1, &mut rng);
        assert_eq!(cc.avg_nak_num, 7);
        assert!((2..=8).contains(&cc.dec_random)); // ⌊u·7⌋ + ⌈7/5⌉
    }

    #[test]
    fn period_is_capped_at_the_rtt() {
        let mut cc = Ns2Daimd::new(Default::default());
        cc.slow_start = false;
        cc.period = 95_000.0;
        let mut rng = crate::rng::stream(3, "t");
        let v = CcView { snd_cur: 10, ..view() };
        cc.on_loss(&v, 5, 1, &mut rng);
        assert_eq!(cc.period_us(), 100_000.0);
    }
}
