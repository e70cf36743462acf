//! Bandwidth estimators for TCP Westwood, behind one small trait.
//!
//! | name | what | source |
//! |---|---|---|
//! | `original` | per-ACK sample `B = acked / (T_i − T_{i−1})`, EWMA `ABE = (1−α)·ABE + α·B` | Paper C §2.3 (ns-2 TCPW filter type 0) |
//! | `westwood` | per-ACK sample, Tustin low-pass filter with cut-off 1/τ | Casetti et al. MobiCom 2001 (ns-2 TCPW filter type 3) |
//! | `westwood+` | one sample per RTT window (≥ 50 ms), two cascaded 7/8 EWMAs | Linux `tcp_westwood.c` |
//! | `alg1` | `original`, skipping a sample when `S_n − S_{n−1} > RTT/16` | Paper C, algorithm 1 |
//! | `alg2` | `original`, skipping a sample when `T > T_avg + 3·T_d` | Paper C, algorithm 2 |
//!
//! Acknowledged amounts follow ns-2 TCPW v1.3 (a duplicate ACK counts one segment, a
//! cumulative ACK after duplicates is reduced by what they already counted, at most two
//! segments per ACK), except `westwood+`, which counts as Linux does.

use crate::units::{floor, Time};

/// What an estimator is told about one ACK.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckEvent {
    pub now: Time,
    /// Bytes newly acknowledged (0 for a duplicate ACK).
    pub acked_bytes: u64,
    pub dup: bool,
    pub mss: u32,
    /// Smoothed RTT (0 before the first sample).
    pub srtt: Time,
    /// `S_n`: send time of the segment that triggered this ACK (the echoed timestamp).
    pub sent_n: Time,
    /// `S_{n−1}`: send time of the segment transmitted just before it, if known.
    pub sent_prev: Option<Time>,
}

/// One bandwidth sample and whether the filter used it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub bps: f64,
    pub used: bool,
}

pub trait BandwidthEstimator: Send {
    fn name(&self) -> &'static str;
    /// Processes an ACK; returns the sample it produced, if any.
    fn on_ack(&mut self, ev: &AckEvent) -> Option<Sample>;
    /// Current estimate, bit/s.
    fn estimate_bps(&self) -> f64;
}

/// ns-2 TCPW v1.3 acknowledged-amount accounting, in segments.
#[derive(Clone, Debug, Default)]
pub struct Ns2Accounting {
    unaccounted: f64,
}

impl Ns2Accounting {
    /// Segments this ACK accounts for.
    pub fn segments(&mut self, ev: &AckEvent) -> f64 {
        let mss = ev.mss.max(1) as f64;
        let mut cumul = (ev.acked_bytes as f64 / mss).ceil();
        if ev.dup || cumul == 0.0 {
            self.unaccounted += 1.0;
            cumul = 1.0;
        } else if cumul > 1.0 {
            if self.unaccounted >= cumul {
                self.unaccounted = self.unaccounted - cumul + 1.0;
                cumul = 1.0;
            } else {
                cumul -= self.unaccounted;
                self.unaccounted = 0.0;
            }
        }
        cumul.min(2.0)
    }
}

/// The paper's ABE with an optional filter: `None` (original), algorithm 1 or algorithm 2.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Filter {
    None,
    /// Skip when `S_n − S_{n−1} > srtt / divisor` (paper: 16).
    SendGap {
        divisor: f64,
    },
    /// Skip when `T > T_avg + k·T_d` (paper: g = 0.25, h = 0.125, k = 3).
    AckGap {
        g: f64,
        h: f64,
        k: f64,
    },
}

pub struct Ewma {
    filter: Filter,
    /// Paper C's formula read literally: `ACK_i` is the bytes this ACK newly acknowledges
    /// (0 for a duplicate ACK), with no ns-2 duplicate-ACK accounting.
    literal: bool,
    alpha: f64,
    abe: f64,
    last_ack: Option<Time>,
    acct: Ns2Accounting,
    t_avg: f64,
    t_d: f64,
    gaps: u64,
    name: &'static str,
}

impl Ewma {
    pub fn new(name: &'static str, alpha: f64, filter: Filter) -> Self {
        Ewma {
            filter,
            literal: false,
            alpha,
            abe: 0.0,
            last_ack: None,
            acct: Ns2Accounting::default(),
            t_avg: 0.0,
            t_d: 0.0,
            gaps: 0,
            name,
        }
    }

    /// Counts acknowledged bytes literally (duplicate ACKs give zero samples).
    pub fn literal(mut self, on: bool) -> Self {
        self.literal = on;
        self
    }
}

impl BandwidthEstimator for Ewma {
    fn name(&self) -> &'static str {
        self.name
    }

    fn on_ack(&mut self, ev: &AckEvent) -> Option<Sample> {
        let segs = if self.literal { ev.acked_bytes as f64 / ev.mss.max(1) as f64 } else { self.acct.segments(ev) };
        let prev = self.last_ack.replace(ev.now)?;
        let gap = ev.now.saturating_sub(prev);
        if gap == 0 {
            return None;
        }
        let t = gap as f64 / 1e9;
        let bps = segs * ev.mss as f64 * 8.0 / t;
        let used = match self.filter {
            Filter::None => true,
            Filter::SendGap { divisor } => match ev.sent_prev {
                Some(sp) if ev.srtt > 0 => (ev.sent_n.saturating_sub(sp) as f64) <= ev.srtt as f64 / divisor,
                _ => true,
            },
            Filter::AckGap { g, h, k } => {
                self.gaps += 1;
                if self.gaps == 1 {
                    // First gap: initialise as RFC 6298 does for the RTT (avg = T, dev = T/2).
                    self.t_avg = t;
                    self.t_d = t / 2.0;
                } else {
                    self.t_avg = (1.0 - g) * self.t_avg + g * t;
                    self.t_d = (1.0 - h) * self.t_d + h * (self.t_avg - t).abs();
                }
                t <= self.t_avg + k * self.t_d
            }
        };
        if used {
            self.abe = (1.0 - self.alpha) * self.abe + self.alpha * bps;
        }
        Some(Sample { bps, used })
    }

    fn estimate_bps(&self) -> f64 {
        self.abe
    }
}

/// Casetti et al.'s Tustin filter (ns-2 TCPW `filter_type_ 3`), cut-off frequency 1/τ.
pub struct Tustin {
    tau: f64,
    bwe: f64,
    s_prev: f64,
    last_ack: Option<Time>,
    acct: Ns2Accounting,
}

impl Tustin {
    pub fn new(tau: f64) -> Self {
        Tustin { tau, bwe: 0.0, s_prev: 0.0, last_ack: None, acct: Ns2Accounting::default() }
    }
}

impl BandwidthEstimator for Tustin {
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn on_ack(&mut self, ev: &AckEvent) -> Option<Sample> {
        let segs = self.acct.segments(ev);
        let prev = self.last_ack.replace(ev.now)?;
        let mut delta = (ev.now.saturating_sub(prev)) as f64 / 1e9;
        if delta <= 0.0 {
            return None;
        }
        let half = self.tau / 2.0;
        let mut n = floor(delta / half);
        delta -= n * half;
        if delta < 0.010 && n > 0.0 {
            delta = half;
            n -= 1.0;
        }
        let s_k = segs * ev.mss as f64 * 8.0 / delta;
        for _ in 0..n as u64 {
            self.bwe = 0.6 * self.bwe + 0.2 * self.s_prev;
            self.s_prev = 0.0;
        }
        self.bwe = ((2.0 * self.tau - delta) * self.bwe + delta * (s_k + self.s_prev)) / (2.0 * self.tau + delta);
        self.s_prev = s_k;
        Some(Sample { bps: s_k, used: true })
    }

    fn estimate_bps(&self) -> f64 {
        self.bwe
    }
}

/// Westwood+ as in Linux: bytes acknowledged per window of at least one RTT (and 50 ms),
/// filtered by two cascaded 7/8 EWMAs.
pub struct WestwoodPlus {
    bw_ns_est: f64,
    bw_est: f64,
    win_start: Option<Time>,
    bk: f64,
    accounted: f64,
}

impl WestwoodPlus {
    pub const RTT_MIN: Time = 50_000_000;

    pub fn new() -> Self {
        WestwoodPlus { bw_ns_est: 0.0, bw_est: 0.0, win_start: None, bk: 0.0, accounted: 0.0 }
    }
}

impl Default for WestwoodPlus {
    fn default() -> Self {
        Self::new()
    }
}

impl BandwidthEstimator for WestwoodPlus {
    fn name(&self) -> &'static str {
        "westwood+"
    }

    fn on_ack(&mut self, ev: &AckEvent) -> Option<Sample> {
        let mss = ev.mss as f64;
        let mut cumul = ev.acked_bytes as f64;
        if ev.dup || cumul == 0.0 {
            self.accounted += mss;
            cumul = mss;
        } else if cumul > mss {
            if self.accounted >= cumul {
                self.accounted -= cumul;
                cumul = mss;
            } else {
                cumul -= self.accounted;
                self.accounted = 0.0;
            }
        }
        self.bk += cumul;
        let start = *self.win_start.get_or_insert(ev.now);
        let delta = ev.now.saturating_sub(start);
        if ev.srtt == 0 || delta <= ev.srtt.max(Self::RTT_MIN) {
            return None;
        }
        let sample = self.bk * 8.0 / (delta as f64 / 1e9);
        if self.bw_ns_est == 0.0 && self.bw_est == 0.0 {
            self.bw_ns_est = sample;
            self.bw_est = sample;
        } else {
            self.bw_ns_est = (7.0 * self.bw_ns_est + sample) / 8.0;
            self.bw_est = (7.0 * self.bw_est + self.bw_ns_est) / 8.0;
        }
        self.bk = 0.0;
        self.win_start = Some(ev.now);
        Some(Sample { bps: sample, used: true })
    }

    fn estimate_bps(&self) -> f64 {
        self.bw_est
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::MS;

    fn ack(now_ms: f64, acked: u64, sent_n_ms: f64, sent_prev_ms: Option<f64>) -> AckEvent {
        AckEvent {
            now: (now_ms * 1e6) as Time,
            acked_bytes: acked,
            dup: acked == 0,
            mss: 1000,
            srtt: 80 * MS,
            sent_n: (sent_n_ms * 1e6) as Time,
            sent_prev: sent_prev_ms.map(|x| (x * 1e6) as Time),
        }
    }

    /// A window of ACKs 1.6 ms apart (5 Mb/s of 1000-byte segments), then the first ACK
    /// of the next burst one RTT later: its packet left ~80 ms after its predecessor.
    fn burst_then_boundary() -> Vec<AckEvent> {
        let mut v = Vec::new();
        for i in 0..10 {
            let t = 100.0 + 1.6 * i as f64;
            v.push(ack(t, 1000, t - 80.0, Some(t - 80.0 - 0.1)));
        }
        // Boundary: ACK 80 ms after the last; its segment was sent 78 ms after the previous one.
        v.push(ack(100.0 + 1.6 * 9.0 + 80.0, 1000, 100.0 + 1.6 * 9.0, Some(100.0 + 1.6 * 9.0 - 78.0)));
        v
    }

    #[test]
    fn original_samples_and_ewma_match_hand_computation() {
        let mut e = Ewma::new("original", 0.1, Filter::None);
        let evs = burst_then_boundary();
        assert!(e.on_ack(&evs[0]).is_none()); // no previous ACK yet
        let s = e.on_ack(&evs[1]).unwrap();
        // 1000 B in 1.6 ms = 5 Mb/s.
        assert!((s.bps - 5e6).abs() < 1.0, "{}", s.bps);
        assert!((e.estimate_bps() - 0.5e6).abs() < 1e-3);
        let s2 = e.on_ack(&evs[2]).unwrap();
        assert!((e.estimate_bps() - (0.9 * 0.5e6 + 0.1 * s2.bps)).abs() < 1e-3);
        for ev in &evs[3..10] {
            e.on_ack(ev);
        }
        let before = e.estimate_bps();
        let b = e.on_ack(&evs[10]).unwrap();
        // The boundary sample is 1000 B over 80 ms = 0.1 Mb/s, and the original uses it.
        assert!((b.bps - 1e5).abs() < 1.0);
        assert!(b.used);
        assert!((e.estimate_bps() - (0.9 * before + 0.1 * 1e5)).abs() < 1e-6);
    }

    #[test]
    fn boundary_sample_is_filtered_by_algorithms_1_and_2() {
        for (name, filter) in [("alg1", Filter::SendGap { divisor: 16.0 }), ("alg2", Filter::AckGap { g: 0.25, h: 0.125, k: 3.0 })] {
            let mut e = Ewma::new(name, 0.1, filter);
            let evs = burst_then_boundary();
            let mut out = Vec::new();
            for ev in &evs {
                out.push(e.on_ack(ev));
            }
            let before = {
                let mut e2 = Ewma::new(name, 0.1, filter);
                for ev in &evs[..10] {
                    e2.on_ack(ev);
                }
                e2.estimate_bps()
            };
            let last = out[10].unwrap();
            assert!(!last.used, "{name} used the burst-boundary sample");
            assert_eq!(e.estimate_bps(), before, "{name}: a filtered sample changes nothing");
            // In-burst samples are used.
            assert!(out[1..10].iter().all(|s| s.unwrap().used), "{name}: {out:?}");
        }
    }

    #[test]
    fn alg2_threshold_follows_hand_computation() {
        let mut e = Ewma::new("alg2", 0.1, Filter::AckGap { g: 0.25, h: 0.125, k: 3.0 });
        e.on_ack(&ack(0.0, 1000, 0.0, None));
        e.on_ack(&ack(2.0, 1000, 0.0, None)); // T = 2 ms: avg 2, dev 1
                                              // T = 6 ms: avg = 0.75·2 + 0.25·6 = 3; dev = 0.875·1 + 0.125·|3 − 6| = 1.25;
                                              // threshold 3 + 3.75 = 6.75 ≥ 6: used.
        assert!(e.on_ack(&ack(8.0, 1000, 0.0, None)).unwrap().used);
        // T = 12 ms: avg = 0.75·3 + 3 = 5.25; dev = 0.875·1.25 + 0.125·6.75 = 1.9375;
        // threshold 5.25 + 5.8125 = 11.0625 < 12: filtered.
        assert!(!e.on_ack(&ack(20.0, 1000, 0.0, None)).unwrap().used);
    }

    #[test]
    fn duplicate_ack_accounting() {
        let mut a = Ns2Accounting::default();
        let dup = ack(0.0, 0, 0.0, None);
        assert_eq!(a.segments(&dup), 1.0);
        assert_eq!(a.segments(&dup), 1.0);
        // A cumulative ACK of 5 segments after 2 dupACKs accounts 3, capped at 2.
        assert_eq!(a.segments(&ack(0.0, 5000, 0.0, None)), 2.0);
        // After 4 dupACKs, a 3-segment ACK accounts 1 (4 − 3 + 1 = 2 left unaccounted).
        for _ in 0..4 {
            a.segments(&dup);
        }
        assert_eq!(a.segments(&ack(0.0, 3000, 0.0, None)), 1.0);
        assert_eq!(a.unaccounted, 2.0);
    }

    #[test]
    fn tustin_converges_to_a_steady_rate() {
        let mut e = Tustin::new(1.0);
        // 5 Mb/s: one 1000-byte ACK every 1.6 ms for 10 s.
        for i in 0..6250 {
            e.on_ack(&ack(1.6 * i as f64, 1000, 0.0, None));
        }
        assert!((e.estimate_bps() - 5e6).abs() / 5e6 < 0.01, "{}", e.estimate_bps());
    }

    #[test]
    fn westwood_plus_samples_once_per_rtt() {
        let mut e = WestwoodPlus::new();
        let mut samples = 0;
        for i in 0..6250 {
            if e.on_ack(&ack(1.6 * i as f64, 1000, 0.0, None)).is_some() {
                samples += 1;
            }
        }
        // 10 s of ACKs, windows just over 80 ms: about 124 samples.
        assert!((110..=126).contains(&samples), "{samples}");
        assert!((e.estimate_bps() - 5e6).abs() / 5e6 < 0.02, "{}", e.estimate_bps());
    }
}
