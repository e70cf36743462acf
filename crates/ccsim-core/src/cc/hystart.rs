//! HyStart (Ha and Rhee, "Taming the elephants: new TCP slow start", Computer Networks
//! 2011), as Linux's `tcp_cubic.c` runs it: slow start ends (`ssthresh = cwnd`) at the
//! first of two signs that the pipe is full, checked only while `cwnd ≥ low_window`:
//!
//! - **ACK train**: the ACKs of a round arrive back to back (each within `ack_delta` of
//!   the previous) for longer than `(delay_min + ack_delay)/2` since the round started;
//! - **delay increase**: the smallest of a round's first `min_samples` RTT samples exceeds
//!   `delay_min + clamp(delay_min/8, delay_thresh_min, delay_thresh_max)`.
//!
//! A round starts with the first ACK beyond the highest sequence sent when the previous
//! one started (`end_seq`). Every ACK of new data is an RTT sample (`now − ts_echo`, as
//! Linux measures one per ACK) and lowers `delay_min`, in slow start or not; a timeout
//! clears it and starts detection again (Linux's `bictcp_reset`). Linux's second of ignored
//! samples after a congestion-avoidance epoch starts is not modelled. Linux adds an ACK-delay cushion from the pacing rate and the
//! GSO size (at most 1 ms); ccsim has no GSO and leaves it to `ack_delay` (0 by default).

use super::AckInfo;
use crate::units::{secs, Time};

/// HyStart's constants (Linux's module parameters and macros).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct HyStartConfig {
    /// `hystart_low_window`: no detection below this window (segments).
    pub low_window: f64,
    /// `hystart_ack_delta_us`: ACKs closer than this (seconds) belong to one train.
    pub ack_delta: f64,
    /// `HYSTART_MIN_SAMPLES`: RTT samples per round before the delay test.
    pub min_samples: u32,
    /// `HYSTART_DELAY_MIN`, `HYSTART_DELAY_MAX`: the delay threshold's clamp (seconds).
    pub delay_thresh_min: f64,
    pub delay_thresh_max: f64,
    /// Linux's `hystart_ack_delay` cushion added to `delay_min` in the ACK-train test (s).
    pub ack_delay: f64,
}

impl Default for HyStartConfig {
    fn default() -> Self {
        HyStartConfig {
            low_window: 16.0,
            ack_delta: 0.002,
            min_samples: 8,
            delay_thresh_min: 0.004,
            delay_thresh_max: 0.016,
            ack_delay: 0.0,
        }
    }
}

/// Why slow start ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    AckTrain,
    Delay,
}

/// One sender's HyStart state.
#[derive(Clone, Debug, Default)]
pub struct HyStart {
    low_window: f64,
    min_samples: u32,
    /// ack_delta, delay_thresh_min, delay_thresh_max, ack_delay in ns.
    ack_delta: Time,
    thresh: (Time, Time),
    ack_delay: Time,
    snd_nxt: u64,
    end_seq: u64,
    round_start: Time,
    last_ack: Time,
    curr_rtt: Option<Time>,
    samples: u32,
    delay_min: Option<Time>,
    found: bool,
    /// Exits so far, by kind (for the flow table).
    pub exits: [u32; 2],
}

impl HyStart {
    pub fn new(c: HyStartConfig) -> Self {
        HyStart {
            low_window: c.low_window,
            min_samples: c.min_samples,
            ack_delta: secs(c.ack_delta),
            thresh: (secs(c.delay_thresh_min), secs(c.delay_thresh_max)),
            ack_delay: secs(c.ack_delay),
            ..Default::default()
        }
    }

    /// A segment `[seq, seq + len)` was sent.
    pub fn on_sent(&mut self, seq: u64, len: u32) {
        self.snd_nxt = self.snd_nxt.max(seq + len as u64);
    }

    /// A timeout (Linux's `bictcp_reset` and `bictcp_hystart_reset` in `TCP_CA_Loss`):
    /// detection starts again, from a new minimum RTT, with a round starting now.
    pub fn reset_after_timeout(&mut self, now: Time) {
        self.found = false;
        self.delay_min = None;
        self.start_round(now);
    }

    fn start_round(&mut self, now: Time) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = self.snd_nxt;
        self.curr_rtt = None;
        self.samples = 0;
    }

    /// Every ACK of new data: its RTT sample (`now − ts_echo`, one per ACK as Linux takes
    /// them, whatever the timestamp option) updates the minimum RTT; in slow start with
    /// `cwnd ≥ low_window` the tests run. `Some` when slow start should end.
    pub fn on_ack(&mut self, info: &AckInfo, cwnd: f64, slow_start: bool) -> Option<Exit> {
        if info.dup || info.acked_bytes == 0 {
            return None;
        }
        let rtt = info.now.saturating_sub(info.ts_echo).max(1);
        let delay_min = self.delay_min.map_or(rtt, |d| d.min(rtt));
        self.delay_min = Some(delay_min);
        if self.found || !slow_start || cwnd < self.low_window {
            return None;
        }
        if info.ack > self.end_seq {
            self.start_round(info.now);
        }
        let mut exit = None;
        if info.now - self.last_ack <= self.ack_delta {
            self.last_ack = info.now;
            if info.now - self.round_start > (delay_min + self.ack_delay) / 2 {
                exit = Some(Exit::AckTrain);
            }
        }
        if exit.is_none() {
            self.curr_rtt = Some(self.curr_rtt.map_or(rtt, |c| c.min(rtt)));
            if self.samples < self.min_samples {
                self.samples += 1;
            } else {
                let thresh = (delay_min / 8).clamp(self.thresh.0, self.thresh.1);
                if self.curr_rtt.is_some_and(|c| c > delay_min + thresh) {
                    exit = Some(Exit::Delay);
                }
            }
        }
        if let Some(e) = exit {
            self.found = true;
            self.exits[e as usize] += 1;
        }
        exit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::MS;

    /// An ACK of new data at `now` echoing a segment sent `rtt` earlier.
    fn ack(now: Time, ack: u64, rtt: Time) -> AckInfo {
        AckInfo { now, ack, ts_echo: now - rtt, acked_bytes: 1000, acked_segs: 1.0, ..Default::default() }
    }

    /// RTT samples 10 ms above a 40 ms floor (threshold 40 + 5 ms) end slow start at the
    /// ninth sample of a round; 4 ms above do not.
    #[test]
    fn a_delay_increase_ends_slow_start() {
        for (extra, want) in [(10 * MS, Some(Exit::Delay)), (4 * MS, None)] {
            let mut h = HyStart::new(HyStartConfig::default());
            // A first round learns the 40 ms floor; the next one sees the queue grow.
            h.on_sent(0, 1000);
            assert_eq!(h.on_ack(&ack(40 * MS, 1000, 40 * MS), 20.0, true), None);
            h.on_sent(1000, 100_000);
            let mut got = None;
            for i in 1..12u64 {
                // ACKs 5 ms apart: no train.
                got = got.or(h.on_ack(&ack(100 * MS + i * 5 * MS, 2000 + i, 40 * MS + extra), 20.0, true));
            }
            assert_eq!(got, want, "extra {extra}");
        }
    }

    /// Back-to-back ACKs (1 ms apart) spanning more than half of the 40 ms minimum RTT end
    /// slow start; below `low_window` nothing is checked.
    #[test]
    fn an_ack_train_longer_than_half_the_rtt_ends_slow_start() {
        let mut h = HyStart::new(HyStartConfig::default());
        h.on_sent(0, 1_000_000);
        let mut at = None;
        for i in 0..40u64 {
            if h.on_ack(&ack(40 * MS + i * MS, 1 + i, 40 * MS), 32.0, true).is_some() {
                at = Some(i);
                break;
            }
        }
        assert_eq!(at, Some(21), "the train exceeds 20 ms at its 22nd ACK");
        let mut h = HyStart::new(HyStartConfig::default());
        h.on_sent(0, 1_000_000);
        assert!((0..40u64).all(|i| h.on_ack(&ack(40 * MS + i * MS, 1 + i, 40 * MS), 8.0, true).is_none()));
        // Outside slow start nothing is checked either, but the minimum RTT is kept.
        let mut h = HyStart::new(HyStartConfig::default());
        h.on_sent(0, 1_000_000);
        assert!((0..40u64).all(|i| h.on_ack(&ack(40 * MS + i * MS, 1 + i, 30 * MS), 32.0, false).is_none()));
        assert_eq!(h.delay_min, Some(30 * MS));
    }
}
