//! UDT 4.11's native congestion control, `CUDTCC` in `ccc.cpp` ("DAIMD": decreasing additive
//! increase, multiplicative decrease), as PROTOCOLS.md §6.4 and §11.11 restate it.
//!
//! - **onACK** acts at most once per rate-control interval (SYN): in slow start the window
//!   grows by the packets acknowledged (`seqlen(lastAck, ack)`, inclusive) until it passes
//!   the flow window, then the period becomes `10⁶/RcvRate` (or `(RTT+SYN)/cwnd`, 4.10:
//!   `cwnd/(RTT+SYN)`); afterwards `cwnd = RcvRate·(RTT+SYN) + 16`. No increase in slow
//!   start or in the interval after a NAK; else spare `B = capacity − 10⁶/period` (integer),
//!   clamped to capacity/9 while the period is above the one before the last decrease,
//!   `inc` = [`super::daimd_increase`] (floor `min_inc`), period `P·SYN/(P·inc + SYN)`.
//! - **onLoss** (a NAK): slow start ends (period `10⁶/RcvRate`, and nothing else this time);
//!   a NAK past the last decrease opens a congestion period: period `⌈1.125·P⌉`,
//!   `AvgNAKNum = ⌈0.875·avg + 0.125·NAKCount⌉`, `DecRandom = ⌈avg·rand⌉` (≥ 1, `rand`
//!   seeded with the last sent sequence); later NAKs of the period decrease again when
//!   `DecCount++ < 5` and every `DecRandom`-th NAK.
//! - **onTimeout**: ends slow start as onLoss does; nothing else (4.x comments out the
//!   period doubling).
//!
//! `⌈ ⌉` acts on whole microseconds: at periods under 10 µs (above ~1 Gb/s) each decrease
//! is coarser than 1/8, as in UDT.

use super::{daimd_increase, increased_period, CcView, LossAction, UdtCc};
use crate::config::{Errors, Obj};
use crate::rng::SimRng;

/// `cc = "daimd"`, `cc_params = { variant = "udt4", version = "4.11", min_inc = 0.01,
/// initial_cwnd = 16, initial_period = 1e-6, decrease = 1.125, max_decreases = 5 }`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Udt4DaimdConfig {
    /// `"4.11"` or `"4.10"` (4.0–4.10: `min_inc = 1/MSS`, slow-start exit without a receive
    /// rate sets the period to `cwnd/(RTT+SYN)`).
    pub version: &'static str,
    /// The smallest increase, packets per SYN (None: the version's: 0.01 or 1/MSS).
    pub min_inc: Option<f64>,
    pub initial_cwnd: f64,
    /// Initial period, seconds (1 µs).
    pub initial_period: f64,
    /// Period factor of a decrease (1.125: the rate × 8/9).
    pub decrease: f64,
    /// Decreases per congestion period, the first included.
    pub max_decreases: u32,
}

impl Default for Udt4DaimdConfig {
    fn default() -> Self {
        Udt4DaimdConfig { version: "4.11", min_inc: None, initial_cwnd: 16.0, initial_period: 1e-6, decrease: 1.125, max_decreases: 5 }
    }
}

impl Udt4DaimdConfig {
    pub(crate) fn read(o: &mut Obj, errs: &mut Errors) -> Option<Self> {
        let version = o.choice("version", &["4.11", "4.10"], Some("4.11"), errs)?;
        let mut c = Udt4DaimdConfig { version, min_inc: o.float("min_inc", 0.0, 1e9, errs), ..Default::default() };
        if let Some(v) = o.float("initial_cwnd", 2.0, 1e9, errs) {
            c.initial_cwnd = v;
        }
        if let Some(v) = o.time("initial_period", errs) {
            c.initial_period = v.max(1) as f64 / 1e9;
        }
        if let Some(v) = o.float("decrease", 1.0, 10.0, errs) {
            c.decrease = v;
        }
        if let Some(v) = o.int("max_decreases", 1, 1_000_000, errs) {
            c.max_decreases = v as u32;
        }
        Some(c)
    }
}

pub struct Udt4Daimd {
    c: Udt4DaimdConfig,
    period: f64,
    cwnd: f64,
    slow_start: bool,
    last_ack: i64,
    loss: bool,
    last_dec_seq: i64,
    last_dec_period: f64,
    avg_nak_num: i64,
    nak_count: i64,
    dec_random: i64,
    dec_count: u32,
    /// Time of the last rate control (ns; None before the first ACK).
    last_rc: Option<u64>,
    decreases: u64,
}

impl Udt4Daimd {
    pub fn new(c: Udt4DaimdConfig) -> Self {
        Udt4Daimd {
            period: c.initial_period * 1e6,
            cwnd: c.initial_cwnd,
            slow_start: true,
            last_ack: -1,
            loss: false,
            last_dec_seq: -2,
            last_dec_period: 1.0,
            avg_nak_num: 0,
            nak_count: 0,
            dec_random: 1,
            dec_count: 0,
            last_rc: None,
            decreases: 0,
            c,
        }
    }

    fn min_inc(&self, mss: u32) -> f64 {
        self.c.min_inc.unwrap_or(if self.c.version == "4.10" { 1.0 / mss as f64 } else { 0.01 })
    }

    /// Slow start ends on a NAK or a timeout. Returns true when the receive rate set the
    /// period (nothing more to do for this NAK).
    fn leave_slow_start(&mut self, v: &CcView) -> bool {
        if !self.slow_start {
            return false;
        }
        self.slow_start = false;
        if v.rcv_rate > 0.0 {
            self.period = 1e6 / v.rcv_rate;
            return true;
        }
        // UDT 4.x's expression (a rate where a period is meant: a known quirk).
        self.period = self.cwnd / (v.rtt_us + v.syn_us);
        false
    }
}

/// UDT 4's `srand(seq); rand()/RAND_MAX`, as a uniform draw that depends on `seq` alone.
pub(crate) fn seeded_uniform(seq: i64) -> f64 {
    let mut z = (seq as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

impl UdtCc for Udt4Daimd {
    fn name(&self) -> &'static str {
        "daimd-udt4"
    }
    fn period_us(&self) -> f64 {
        self.period
    }
    fn cwnd(&self) -> f64 {
        self.cwnd
    }
    fn in_slow_start(&self) -> bool {
        self.slow_start
    }
    fn set_period(&mut self, period_us: f64) {
        self.period = period_us;
    }

    fn on_ack(&mut self, v: &CcView, ack: i64, _ack_rtt_us: f64) {
        let syn_ns = (v.syn_us * 1e3) as u64;
        if let Some(t) = self.last_rc {
            if v.now.saturating_sub(t) < syn_ns {
                return;
            }
        }
        self.last_rc = Some(v.now);
        if self.slow_start {
            self.cwnd += (ack - self.last_ack + 1) as f64;
            self.last_ack = ack;
            if self.cwnd > v.max_cwnd {
                self.slow_start = false;
                self.period = if v.rcv_rate > 0.0 {
                    1e6 / v.rcv_rate
                } else if self.c.version == "4.10" {
                    self.cwnd / (v.rtt_us + v.syn_us)
                } else {
                    (v.rtt_us + v.syn_us) / self.cwnd
                };
            }
        } else {
            self.cwnd = v.rcv_rate / 1e6 * (v.rtt_us + v.syn_us) + 16.0;
        }
        if self.slow_start {
            return;
        }
        if self.loss {
            self.loss = false;
            return;
        }
        let mut spare = (v.bandwidth - 1e6 / self.period).trunc();
        if self.period > self.last_dec_period && (v.bandwidth / 9.0).trunc() < spare {
            spare = (v.bandwidth / 9.0).trunc();
        }
        let inc = daimd_increase(spare, v.mss, self.min_inc(v.mss));
        self.period = increased_period(self.period, inc, v.syn_us);
    }

    fn on_loss(&mut self, v: &CcView, first_lost: i64, _count: u64, _rng: &mut SimRng) -> LossAction {
        if self.leave_slow_start(v) {
            return LossAction::default();
        }
        self.loss = true;
        if first_lost > self.last_dec_seq {
            self.last_dec_period = self.period;
            self.period = (self.period * self.c.decrease).ceil();
            self.avg_nak_num = (self.avg_nak_num as f64 * 0.875 + self.nak_count as f64 * 0.125).ceil() as i64;
            self.nak_count = 1;
            self.dec_count = 1;
            self.last_dec_seq = v.snd_cur;
            self.dec_random = ((self.avg_nak_num as f64 * seeded_uniform(self.last_dec_seq)).ceil() as i64).max(1);
            self.decreases += 1;
        } else {
            // `(DecCount++ < 5) && (0 == ++NAKCount % DecRandom)`: NAKCount stops counting
            // once DecCount has reached the cap (C's short-circuit).
            let under = self.dec_count < self.c.max_decreases;
            self.dec_count += 1;
            if under {
                self.nak_count += 1;
                if self.nak_count % self.dec_random == 0 {
                    self.period = (self.period * self.c.decrease).ceil();
                    self.last_dec_seq = v.snd_cur;
                    self.decreases += 1;
                }
            }
        }
        LossAction::default()
    }

    fn on_timeout(&mut self, v: &CcView) {
        self.leave_slow_start(v);
    }

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

    fn view(now: u64) -> CcView {
        CcView { now, rtt_us: 100_000.0, rcv_rate: 0.0, bandwidth: 0.0, max_cwnd: 8192.0, mss: 1500, snd_cur: 0, syn_us: 10_000.0 }
    }

    fn after_slow_start(period: f64) -> Udt4Daimd {
        let mut cc = Udt4Daimd::new(Default::default());
        cc.slow_start = false;
        cc.period = period;
        cc
    }

    #[test]
    fn slow_start_grows_by_the_inclusive_count_and_ends_past_the_flow_window() {
        let mut cc = Udt4Daimd::new(Default::default());
        let mut v = view(0);
        cc.on_ack(&v, 99, 0.0); // lastAck −1 → 99: 101 packets (seqlen is inclusive)
        assert_eq!(cc.cwnd(), 16.0 + 101.0);
        assert!(cc.in_slow_start());
        // A second ACK within the same 10 ms does nothing.
        v.now = 5_000_000;
        cc.on_ack(&v, 199, 0.0);
        assert_eq!(cc.cwnd(), 117.0);
        v.now = 10_000_000;
        v.max_cwnd = 200.0;
        v.rcv_rate = 50_000.0;
        cc.on_ack(&v, 199, 0.0);
        assert!(!cc.in_slow_start());
        // 10⁶ / 50 000 = 20 µs, then this ACK's increase (UDT4 goes on past the exit): no
        // capacity known, so min_inc 0.01 → 20·SYN/(20·0.01 + SYN).
        assert!((cc.period_us() - 20.0 * 1e4 / (0.2 + 1e4)).abs() < 1e-12);
    }

    #[test]
    fn increase_by_spare_bandwidth_with_the_ninth_clamp() {
        // Capacity 83 333 pkt/s (1 Gb/s), sending at 10 000 pkt/s (period 100 µs): spare
        // 73 333 pkt/s = 880 Mb/s → inc 1 packet per SYN; the period was never decreased.
        let mut cc = after_slow_start(100.0);
        let v = CcView { bandwidth: 83_333.0, rcv_rate: 10_000.0, ..view(0) };
        cc.on_ack(&v, 10, 0.0);
        assert!((10_000.0 / cc.period_us() - 101.0).abs() < 1e-9, "{}", cc.period_us());
        // After a decrease (period above the pre-decrease one) spare is clamped to B/9 =
        // 9 259 pkt/s = 111 Mb/s: still the 10⁹ decade → 1 packet.
        let mut cc = after_slow_start(100.0);
        cc.last_dec_period = 50.0;
        cc.on_ack(&v, 10, 0.0);
        assert!((10_000.0 / cc.period_us() - 101.0).abs() < 1e-9);
        // Capacity 8 333 pkt/s (100 Mb/s), at 8 000 pkt/s: spare 333 pkt/s = 4 Mb/s → 0.01.
        let mut cc = after_slow_start(125.0);
        let v = CcView { bandwidth: 8_333.0, ..view(0) };
        cc.on_ack(&v, 10, 0.0);
        assert!((10_000.0 / cc.period_us() - 80.01).abs() < 1e-9, "{}", 10_000.0 / cc.period_us());
    }

    #[test]
    fn no_increase_in_the_interval_after_a_nak() {
        let mut cc = after_slow_start(100.0);
        let mut rng = crate::rng::stream(1, "t");
        let v = CcView { bandwidth: 83_333.0, snd_cur: 500, ..view(0) };
        cc.on_loss(&v, 10, 1, &mut rng);
        assert_eq!(cc.period_us(), 113.0); // ⌈112.5⌉
        cc.on_ack(&v, 20, 0.0);
        assert_eq!(cc.period_us(), 113.0);
        let v2 = CcView { now: 10_000_000, ..v };
        cc.on_ack(&v2, 30, 0.0);
        assert!(cc.period_us() < 113.0);
    }

    #[test]
    fn nak_decrease_sequence_caps_at_five_per_congestion_period() {
        let mut cc = after_slow_start(8.0);
        let mut rng = crate::rng::stream(1, "t");
        let v = CcView { snd_cur: 1000, ..view(0) };
        // New congestion period: ⌈8 · 1.125⌉ = 9, avg = ⌈0.875·0 + 0.125·0⌉ = 0 → DecRandom 1.
        cc.on_loss(&v, 100, 1, &mut rng);
        assert_eq!((cc.period_us(), cc.dec_random, cc.last_dec_seq), (9.0, 1, 1000));
        // DecRandom 1: each further NAK of the period decreases, four more at most.
        let periods: Vec<f64> = (0..6)
            .map(|_| {
                cc.on_loss(&v, 200, 1, &mut rng);
                cc.period_us()
            })
            .collect();
        // ⌈9·1.125⌉ = 11, ⌈12.375⌉ = 13, ⌈14.625⌉ = 15, ⌈16.875⌉ = 17, then capped.
        assert_eq!(periods, vec![11.0, 13.0, 15.0, 17.0, 17.0, 17.0]);
        assert_eq!(cc.nak_count, 5); // stopped counting at the cap
                                     // The next congestion period: avg = ⌈0.875·0 + 0.125·5⌉ = 1; DecRandom = ⌈1·u⌉ = 1.
        let v = CcView { snd_cur: 3000, ..v };
        cc.on_loss(&v, 1001, 1, &mut rng);
        assert_eq!((cc.period_us(), cc.avg_nak_num, cc.dec_random), (20.0, 1, 1));
        // ⌈19.125⌉
    }

    #[test]
    fn decrease_random_count_follows_the_average_nak_number() {
        let mut cc = after_slow_start(1000.0);
        let mut rng = crate::rng::stream(1, "t");
        cc.nak_count = 80;
        cc.avg_nak_num = 40;
        let v = CcView { snd_cur: 77, ..view(0) };
        cc.on_loss(&v, 10, 1, &mut rng);
        // avg = ⌈0.875·40 + 0.125·80⌉ = 45; DecRandom = ⌈45·u(77)⌉.
        assert_eq!(cc.avg_nak_num, 45);
        assert_eq!(cc.dec_random, ((45.0 * seeded_uniform(77)).ceil() as i64).max(1));
        assert!((1..=45).contains(&cc.dec_random));
    }

    #[test]
    fn first_nak_in_slow_start_sets_the_receive_rate_and_stops() {
        let mut cc = Udt4Daimd::new(Default::default());
        let mut rng = crate::rng::stream(1, "t");
        let v = CcView { rcv_rate: 80_000.0, ..view(0) };
        cc.on_loss(&v, 5, 1, &mut rng);
        assert!(!cc.in_slow_start());
        assert_eq!(cc.period_us(), 12.5);
        assert!(!cc.loss); // returned before the decrease
    }

    #[test]
    fn version_4_10_floor_is_one_over_mss() {
        let mut cc = Udt4Daimd::new(Udt4DaimdConfig { version: "4.10", ..Default::default() });
        cc.slow_start = false;
        cc.period = 100.0;
        let v = CcView { bandwidth: 10_000.0, ..view(0) };
        cc.on_ack(&v, 10, 0.0);
        assert!((10_000.0 / cc.period_us() - (100.0 + 1.0 / 1500.0)).abs() < 1e-9);
    }
}
