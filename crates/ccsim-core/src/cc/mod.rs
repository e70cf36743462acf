//! Congestion control behind one small trait (cf. quinn-proto's `Controller`).
//!
//! A controller owns `cwnd` and `ssthresh`, in segments (f64, as ns-2; the sender sends
//! `floor(cwnd)` segments). It grows the window on ACKs and sets the post-loss window on a
//! congestion event or a timeout. Loss *recovery* (fast retransmit, fast recovery, partial
//! ACKs, SACK) belongs to the TCP sender, not to the controller. Each algorithm has a
//! typed configuration ([`CcConfig`], its factory; the `cc_params` table) parsed in its
//! own file. A new algorithm is one file in this folder, its tests, and one line in
//! [`REGISTRY`].

/// The window accessors of a controller that keeps `cwnd` and `ssthresh` fields (segments),
/// for its `impl CongestionControl` block: `cwnd`, `ssthresh`, `set_cwnd` (at least one
/// segment) and `set_ssthresh`.
macro_rules! window_fields {
    () => {
        fn cwnd(&self) -> f64 {
            self.cwnd
        }
        fn ssthresh(&self) -> f64 {
            self.ssthresh
        }
        fn set_cwnd(&mut self, cwnd: f64) {
            self.cwnd = cwnd.max(1.0);
        }
        fn set_ssthresh(&mut self, ssthresh: f64) {
            self.ssthresh = ssthresh;
        }
    };
}
pub(crate) use window_fields;

pub mod bic;
mod boxed;
pub mod bwe;
pub mod cubic;
pub mod eimd;
pub mod highspeed;
pub mod hystart;
pub mod reno;
pub mod scalable;
pub mod westwood;

use crate::config::{Errors, Obj};
use crate::units::Time;
use std::sync::Arc;

/// What the sender tells a controller about an ACK.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckInfo {
    pub now: Time,
    /// Bytes newly acknowledged (0 for a duplicate ACK).
    pub acked_bytes: u64,
    /// Window credit for this ACK in segments: 1 per ACK (ns-2, RFC 5681 per-ACK rule) or
    /// acked bytes / MSS with appropriate byte counting.
    pub acked_segs: f64,
    /// RTT sample carried by this ACK, if any.
    pub rtt: Option<Time>,
    /// Smallest RTT sample so far (0 before the first).
    pub min_rtt: Time,
    /// Smoothed RTT (0 before the first sample).
    pub srtt: Time,
    /// Bytes in flight after this ACK.
    pub inflight: u64,
    pub mss: u32,
    /// The ACK is a duplicate.
    pub dup: bool,
    /// Cumulative ACK number.
    pub ack: u64,
    /// Echoed send time of the segment that triggered this ACK (ns-2 `ts_echo`).
    pub ts_echo: Time,
    /// The ACK came in loss recovery: fast recovery, or after a timeout until what was
    /// outstanding at it is acknowledged (Linux's Recovery and Loss states); the ACK that
    /// ends recovery counts as in it.
    pub in_recovery: bool,
}

/// What the sender tells a controller about a congestion event or a timeout.
#[derive(Clone, Copy, Debug, Default)]
pub struct LossInfo {
    pub now: Time,
    /// Receiver-window-limited window in segments: `min(cwnd, rwnd)` (ns-2 and Linux halve
    /// this, not FlightSize).
    pub window: f64,
    pub inflight: u64,
    pub mss: u32,
    pub min_rtt: Time,
    pub srtt: Time,
    /// ns-2's `slowdown`: a halved cwnd is `W/2` (at least 1 segment), without RFC 5681's
    /// floor of 2 (ssthresh keeps it). Reno honours it; the other controllers apply their
    /// own decrease rules.
    pub ns2_halving: bool,
}

/// An ACK as the sender gives it to a controller whose window may grow: its bookkeeping,
/// then its growth (tests of one controller).
#[cfg(test)]
pub(crate) fn ack_grow(c: &mut impl CongestionControl, info: &AckInfo) {
    c.on_acked(info);
    c.on_ack(info);
}

/// Every method, defaults included, is forwarded by the impl for `Box<T>` in `boxed.rs`: a
/// method added here must be added there too (and to its test's spy), or a boxed
/// controller's override of it would be skipped for the default.
pub trait CongestionControl: Send {
    fn name(&self) -> &'static str;
    /// Congestion window, segments.
    fn cwnd(&self) -> f64;
    /// Slow-start threshold, segments.
    fn ssthresh(&self) -> f64;
    /// Recovery may override the window (Tahoe's cwnd = 1, NewReno deflation).
    fn set_cwnd(&mut self, cwnd: f64);
    /// Overrides the slow-start threshold (the sender's `integer_ssthresh` rounding).
    fn set_ssthresh(&mut self, ssthresh: f64);
    /// Every ACK, duplicates included, before the sender's loss-recovery logic (bandwidth
    /// estimators hook here).
    fn on_ack_received(&mut self, _info: &AckInfo) {}
    /// New data acknowledged outside loss recovery, before [`CongestionControl::on_ack`]
    /// and whether or not the window may grow on it (Linux's `pkts_acked`): estimates the
    /// growth depends on (BIC's and CUBIC v2.1's packets per ACK, HyStart).
    fn on_acked(&mut self, _info: &AckInfo) {}
    /// New data acknowledged outside loss recovery: grow the window. Called only when the
    /// sender's `cwnd_growth` rule lets the window grow (Linux's `cong_avoid`, which
    /// returns at once unless `tcp_is_cwnd_limited`).
    fn on_ack(&mut self, info: &AckInfo);
    /// Loss detected by duplicate ACKs / SACK: set ssthresh and the window to use once
    /// recovery ends (the sender adds Reno's inflation on top).
    fn on_congestion(&mut self, info: &LossInfo);
    /// Retransmission timeout: set ssthresh and cwnd (normally 1 segment).
    fn on_timeout(&mut self, info: &LossInfo);
    /// Loss recovery finished (a full ACK).
    fn on_recovery_end(&mut self, _now: Time) {}
    /// A segment was (re)transmitted: `seq`, `len` bytes, at `now`. Must not change the
    /// window (the sender reads it once per burst of segments).
    fn on_packet_sent(&mut self, _now: Time, _seq: u64, _len: u32, _retransmission: bool) {}
    /// Summary values for the flow table.
    fn summary(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
    /// Warm-up ended: the counters of [`CongestionControl::summary`] restart (state such
    /// as an estimate does not). Must not change the controller's behaviour.
    fn restart_counters(&mut self) {}
    /// Event logs (see `Agent::tables`).
    fn tables(&mut self) -> Vec<(&'static str, crate::measure::Table)> {
        Vec::new()
    }
    /// Optional pacing rate, bit/s. A controller that ever returns one must say so in
    /// [`CongestionControl::paces`].
    fn pacing_rate(&self) -> Option<f64> {
        None
    }
    /// Whether this controller may ever return a pacing rate. Read once, when the sender
    /// is built: for a controller that says no, the sender never asks for the rate (two
    /// virtual calls per segment saved; debug builds check the promise).
    fn paces(&self) -> bool {
        false
    }
    /// Extra state for traces.
    fn probe_names(&self) -> &'static [&'static str] {
        &[]
    }
    fn probe(&self, _out: &mut Vec<f64>) {}
}

/// Parameters common to every controller's construction.
#[derive(Clone, Copy, Debug, Default)]
pub struct CcInit {
    pub initial_cwnd: f64,
    pub initial_ssthresh: f64,
    /// The flow uses the TCP timestamps option (Linux 2.6.22's CUBIC measures its
    /// `delay_min` from timestamps only).
    pub timestamps: bool,
}

/// A controller's typed configuration (its `cc_params`), which is also its factory: each
/// TCP sender builds its own controller from it.
pub trait CcConfig: std::any::Any + Send + Sync + std::fmt::Debug {
    /// The scenario name (`cc = "..."`).
    fn kind(&self) -> &'static str;
    fn build(&self, init: CcInit) -> Box<dyn CongestionControl>;
    /// Every parameter, defaults resolved, as scenario values (for reports).
    fn params(&self) -> serde_json::Value;
}

/// Parses a controller's own fields (the `cc_params` table, which may be absent).
pub type CcParser = fn(Option<&mut Obj>, &mut Errors) -> Option<Arc<dyn CcConfig>>;

/// Congestion controllers by scenario name: one line per algorithm.
pub const REGISTRY: &[(&str, CcParser)] = &[
    ("reno", reno::parse),
    ("westwood", westwood::parse),
    ("scalable", scalable::parse),
    ("highspeed", highspeed::parse),
    ("bic", bic::parse),
    ("cubic", cubic::parse),
    ("eimd", eimd::parse),
];

/// Reno's window growth for one ACK worth `credit` segments: slow start below ssthresh
/// (stopping at ssthresh when a byte-counted ACK would overshoot it, as Linux's
/// `tcp_slow_start`), then `+credit/cwnd` (one segment per RTT). Returns the new cwnd.
#[inline]
pub fn reno_increase(cwnd: f64, ssthresh: f64, credit: f64) -> f64 {
    let (mut cwnd, mut credit) = (cwnd, credit);
    if cwnd < ssthresh {
        if credit <= 1.0 || cwnd + credit <= ssthresh {
            return cwnd + credit;
        }
        credit -= ssthresh - cwnd;
        cwnd = ssthresh;
    }
    cwnd + credit / cwnd
}

/// Linux ≤ 2.6.22's step in congestion avoidance, once per ACK (`bictcp_cong_avoid`,
/// `tcp_scalable_cong_avoid`): one segment when the count of ACKs `count` has reached `cnt`,
/// the count then cleared, else the count goes up by one. At most one segment per ACK,
/// whatever the count reached while `cnt` was larger.
#[inline]
pub fn ai_per_ack(cwnd: &mut f64, count: &mut f64, cnt: f64) {
    if *count >= cnt {
        *cwnd = crate::units::floor(*cwnd) + 1.0;
        *count = 0.0;
    } else {
        *count += 1.0;
    }
}

/// Current Linux's `tcp_cong_avoid_ai(w, acked)`: credits counted at a larger `w` are
/// applied gently (one segment, the count cleared), then `acked` is counted and every
/// whole `w` of it adds a segment.
#[inline]
pub fn ai_by_count(cwnd: &mut f64, count: &mut f64, w: f64, acked: f64) {
    let mut c = crate::units::floor(*cwnd);
    if *count >= w {
        *count = 0.0;
        c += 1.0;
    }
    *count += acked;
    if *count >= w {
        let d = crate::units::floor(*count / w);
        *count -= d * w;
        c += d;
    }
    *cwnd = c;
}

/// Whether `now` is within 1/32 s of `last` on Linux's clock (`tcp_time_stamp -
/// last_time <= HZ / 32`, BIC's and CUBIC's recompute rule): jiffies of HZ = 1000 (ns-2.35's
/// TCP-Linux, a common kernel setting), whole milliseconds since the start, so HZ / 32 is
/// 31 of them.
#[inline]
pub fn within_hz32(now: Time, last: Time) -> bool {
    const JIFFY: Time = crate::units::MS;
    now / JIFFY - last / JIFFY <= 1000 / 32
}

/// The packets an ACK covers, as Linux's `pkts_acked` counts them (the window credit's
/// rounding when the ACK gives no byte count).
#[inline]
pub fn pkts_acked(info: &AckInfo) -> u64 {
    if info.mss > 0 && info.acked_bytes > 0 {
        info.acked_bytes.div_ceil(info.mss as u64)
    } else {
        (info.acked_segs.round() as u64).max(1)
    }
}

/// Standard Reno halving: `max(window/2, 2)` segments.
#[inline]
pub fn halve(window: f64) -> f64 {
    (window / 2.0).max(2.0)
}

#[cfg(test)]
mod tests {
    use crate::units::{MS, US};

    /// Linux counts whole jiffies (1 ms at HZ = 1000): 31 of them pass the test, 32 do not,
    /// whatever the time within each.
    #[test]
    fn hz32_counts_whole_jiffies() {
        assert!(super::within_hz32(31 * MS + 999 * US, 0));
        assert!(!super::within_hz32(32 * MS, 0));
        // 31.2 ms apart, but across 32 jiffy boundaries (1/32 s would be 31.25 ms).
        assert!(!super::within_hz32(32 * MS + 100 * US, 900 * US));
        // 31.9 ms apart within 31 boundaries.
        assert!(super::within_hz32(32 * MS + 800 * US, MS + 900 * US));
    }
}
