//! RTT estimation and the retransmission timeout.
//!
//! Two estimators, chosen by profile:
//! - [`RttMode::Rfc6298`]: `SRTT`, `RTTVAR` in nanoseconds, α = 1/8, β = 1/4,
//!   `RTO = SRTT + max(G, 4·RTTVAR)`, clamped to `[min_rto, max_rto]`.
//! - [`RttMode::Ns2`]: ns-2's fixed-point estimator in clock ticks (`tcpTick_`): a sample
//!   is the number of tick boundaries of a clock started at `boot` (ns-2's `boot_time_`)
//!   between the send and the ACK (`rtt_update`), or with timestamps the RTT rounded to
//!   whole ticks, at least 1; `srtt8 += m − srtt8/8`, `rttvar4 += |m − srtt| − rttvar4/4`,
//!   `RTO = (srtt + 4·rttvar)·tick`; the timeout used is `max(RTO, minrto)·backoff`
//!   (ns-2 `rfc2988_ true`) or `max(RTO·backoff, minrto)` (`false`), capped at `maxrto`,
//!   never below two ticks; past a back-off of 8 the srtt is folded into the rttvar and
//!   restarted by the next sample (`rtt_backoff`).
//!
//! Back-off doubles the timeout on each expiry (capped) and is reset by a valid sample.

use crate::units::Time;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RttMode {
    Rfc6298 { granularity: Time },
    Ns2 { tick: Time },
}

#[derive(Clone, Debug)]
pub struct RttEstimator {
    mode: RttMode,
    /// ns-2 mode: phase of the tick clock (`boot_time_`), and whether samples count tick
    /// boundaries (no timestamps) rather than round the measured RTT.
    boot: Time,
    tick_clock: bool,
    /// ns-2 `rfc2988_ false`: the minimum applies after the back-off.
    clamp_after_backoff: bool,
    min_rto: Time,
    max_rto: Time,
    /// RTO before the first sample.
    initial_rto: Time,
    // RFC mode state (ns).
    srtt: Time,
    rttvar: Time,
    // ns-2 mode state (ticks, fixed point).
    t_srtt: i64,
    t_rttvar: i64,
    rto: Time,
    backoff: u32,
    /// Smallest sample of the whole connection (an input of some controllers).
    pub min_rtt: Time,
    samples: u64,
    /// [`RttEstimator::timeout`], kept up to date by every change of what it depends on
    /// (read on every ACK that re-arms the timer; changed once per sample or back-off),
    /// and the same in seconds (the mean-RTO statistic's addend).
    timeout: Time,
    timeout_s: f64,
    /// Statistics since the last [`RttEstimator::restart_stats`] (the end of warm-up).
    pub stats: RttStats,
}

/// Sum, count and minimum of RTT samples, for reports.
#[derive(Clone, Copy, Debug, Default)]
pub struct RttStats {
    pub samples: u64,
    pub sum: u128,
    pub min: Time,
}

const MAX_BACKOFF: u32 = 64;

impl RttEstimator {
    pub fn new(mode: RttMode, min_rto: Time, max_rto: Time, initial_rto: Time) -> Self {
        let mut e = RttEstimator {
            mode,
            boot: 0,
            tick_clock: false,
            clamp_after_backoff: false,
            min_rto,
            max_rto,
            initial_rto,
            srtt: 0,
            rttvar: 0,
            t_srtt: 0,
            t_rttvar: 0,
            rto: initial_rto,
            backoff: 1,
            min_rtt: 0,
            samples: 0,
            timeout: 0,
            timeout_s: 0.0,
            stats: RttStats::default(),
        };
        e.refresh();
        e
    }

    /// ns-2's measurement without timestamps: whole ticks of a clock whose ticks fall at
    /// `boot + k·tick`, counted between the send and `now`.
    pub fn with_tick_clock(mut self, boot: Time) -> Self {
        self.tick_clock = true;
        self.boot = boot;
        self
    }

    /// ns-2 `rfc2988_ false`: `max(RTO·backoff, minrto)` instead of `max(RTO, minrto)·backoff`.
    pub fn with_clamp_after_backoff(mut self, yes: bool) -> Self {
        self.clamp_after_backoff = yes;
        self.refresh();
        self
    }

    /// Feeds one RTT sample measured at `now` (Karn's rule is the caller's).
    pub fn sample_at(&mut self, now: Time, rtt: Time) {
        self.sample_ticks(rtt, self.tick_clock.then(|| now.saturating_sub(rtt)));
    }

    /// Feeds one RTT sample (Karn's rule is the caller's: never from a retransmission).
    pub fn sample(&mut self, rtt: Time) {
        self.sample_ticks(rtt, None)
    }

    fn sample_ticks(&mut self, rtt: Time, sent: Option<Time>) {
        self.samples += 1;
        if self.min_rtt == 0 || rtt < self.min_rtt {
            self.min_rtt = rtt.max(1);
        }
        let s = &mut self.stats;
        s.samples += 1;
        s.sum += rtt as u128;
        if s.min == 0 || rtt < s.min {
            s.min = rtt.max(1);
        }
        match self.mode {
            RttMode::Rfc6298 { granularity } => {
                if self.samples == 1 {
                    self.srtt = rtt;
                    self.rttvar = rtt / 2;
                } else {
                    let diff = self.srtt.abs_diff(rtt);
                    self.rttvar = (3 * self.rttvar + diff) / 4;
                    self.srtt = (7 * self.srtt + rtt) / 8;
                }
                self.rto = self.srtt + granularity.max(4 * self.rttvar);
            }
            RttMode::Ns2 { tick } => {
                let m = match sent {
                    // int((tao + fmod(sendtime + boot_time_, tick)) / tick)
                    Some(s) => ((rtt + (s + self.boot) % tick) / tick).max(1) as i64,
                    None => ((rtt + tick / 2) / tick).max(1) as i64,
                };
                if self.t_srtt != 0 {
                    let mut delta = m - (self.t_srtt >> 3);
                    self.t_srtt += delta;
                    if self.t_srtt <= 0 {
                        self.t_srtt = 1;
                    }
                    if delta < 0 {
                        delta = -delta;
                    }
                    delta -= self.t_rttvar >> 2;
                    self.t_rttvar += delta;
                    if self.t_rttvar <= 0 {
                        self.t_rttvar = 1;
                    }
                } else {
                    self.t_srtt = m << 3;
                    self.t_rttvar = m << 1;
                }
                // ((rttvar << (2 + 3 - 2)) + srtt) >> 3 ticks = srtt + 4·rttvar.
                let ticks = ((self.t_rttvar << 3) + self.t_srtt) >> 3;
                self.rto = ticks as Time * tick;
                self.srtt = ((self.t_srtt as Time) * tick) / 8;
                self.rttvar = ((self.t_rttvar as Time) * tick) / 4;
            }
        }
        self.backoff = 1;
        self.refresh();
    }

    /// The timeout to arm now (base RTO clamped, times back-off, capped).
    #[inline]
    pub fn timeout(&self) -> Time {
        self.timeout
    }

    /// [`RttEstimator::timeout`] in seconds.
    #[inline]
    pub fn timeout_secs(&self) -> f64 {
        self.timeout_s
    }

    /// Back-off in force (1: none).
    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// RTT samples taken.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    #[inline(never)]
    fn refresh(&mut self) {
        self.timeout = self.compute_timeout();
        self.timeout_s = crate::units::to_secs(self.timeout);
    }

    fn compute_timeout(&self) -> Time {
        // A timer never expires at the instant it is armed: with `min_rto = 0`, a clock
        // granularity of 0 and RTT samples of 0 (a zero-delay path whose packets take no
        // whole nanosecond) the timeout was 0, and timeouts ran forever at one instant. The
        // floor is taken before the back-off, which then doubles it as any timeout.
        let rto = self.rto.max(1);
        let mut t = if self.samples == 0 {
            self.initial_rto.saturating_mul(self.backoff as Time)
        } else if self.clamp_after_backoff {
            rto.saturating_mul(self.backoff as Time).max(self.min_rto)
        } else {
            rto.max(self.min_rto).saturating_mul(self.backoff as Time)
        }
        .min(self.max_rto);
        if let RttMode::Ns2 { tick } = self.mode {
            t = t.max(2 * tick);
        }
        t.max(1)
    }

    /// Ends a timeout's back-off without an RTT sample (ns-3 on every ACK of new data).
    #[inline]
    pub fn clear_backoff(&mut self) {
        if self.backoff != 1 {
            self.backoff = 1;
            self.refresh();
        }
    }

    /// A timeout expired: double the back-off (capped).
    pub fn back_off(&mut self) {
        if self.timeout() < self.max_rto && self.backoff < MAX_BACKOFF {
            self.backoff *= 2;
        }
        if matches!(self.mode, RttMode::Ns2 { .. }) && self.backoff > 8 && self.t_srtt != 0 {
            // ns-2 rtt_backoff: fold the srtt into the rttvar; the next sample restarts it.
            self.t_rttvar += self.t_srtt >> 3;
            self.t_srtt = 0;
        }
        self.refresh();
    }

    pub fn srtt(&self) -> Time {
        self.srtt
    }
    pub fn rttvar(&self) -> Time {
        self.rttvar
    }
    /// Mean of the samples since the end of warm-up (NaN without one).
    pub fn mean_rtt(&self) -> f64 {
        if self.stats.samples == 0 {
            f64::NAN
        } else {
            self.stats.sum as f64 / self.stats.samples as f64 / 1e9
        }
    }

    /// Restarts the report statistics (not the estimator).
    pub fn restart_stats(&mut self) {
        self.stats = RttStats::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{MS, SEC};

    #[test]
    fn rfc6298_first_and_later_samples() {
        let mut e = RttEstimator::new(RttMode::Rfc6298 { granularity: MS }, 200 * MS, 60_000 * MS, 1000 * MS);
        assert_eq!(e.timeout(), 1000 * MS);
        e.sample(100 * MS);
        // SRTT = 100, RTTVAR = 50, RTO = 100 + 200 = 300 ms.
        assert_eq!(e.timeout(), 300 * MS);
        e.sample(100 * MS);
        // RTTVAR = 3/4·50 = 37.5, RTO = 100 + 150 = 250 ms.
        assert_eq!(e.timeout(), 250 * MS);
        e.back_off();
        assert_eq!(e.timeout(), 500 * MS);
        e.sample(100 * MS);
        assert_eq!(e.backoff, 1);
        assert_eq!(e.min_rtt, 100 * MS);
    }

    #[test]
    fn ns2_fixed_point() {
        let tick = 10 * MS;
        let mut e = RttEstimator::new(RttMode::Ns2 { tick }, 200 * MS, 60_000 * MS, 3000 * MS);
        assert_eq!(e.timeout(), 3000 * MS);
        // 96 ms -> 10 ticks (rounded). srtt8 = 80, rttvar4 = 20 -> RTO = (160+80)>>3 = 30 ticks.
        e.sample(96 * MS);
        assert_eq!(e.timeout(), 300 * MS);
        // Same again: delta = 0; rttvar4 += 0 - 5 = 15 -> RTO = (120 + 80) >> 3 = 25 ticks.
        e.sample(100 * MS);
        assert_eq!(e.timeout(), 250 * MS);
        // Many identical samples: rttvar decays, the 200 ms floor applies.
        for _ in 0..50 {
            e.sample(100 * MS);
        }
        assert_eq!(e.timeout(), 200 * MS);
        e.back_off();
        e.back_off();
        assert_eq!(e.timeout(), 800 * MS);
    }

    /// The kept timeout is the one computed afresh, whatever the sequence of samples,
    /// back-offs and clears, in both modes and both clamp orders.
    #[test]
    fn the_kept_timeout_is_always_the_computed_one() {
        proptest::proptest!(|(ops in proptest::collection::vec((0u8..3, 1u64..2_000), 0..60), ns2: bool, clamp: bool)| {
            let mode = if ns2 { RttMode::Ns2 { tick: 10 * MS } } else { RttMode::Rfc6298 { granularity: MS } };
            let mut e = RttEstimator::new(mode, 200 * MS, 60_000 * MS, 1000 * MS).with_clamp_after_backoff(clamp);
            for (op, ms) in ops {
                match op {
                    0 => e.sample(ms * MS),
                    1 => e.back_off(),
                    _ => e.clear_backoff(),
                }
                proptest::prop_assert_eq!(e.timeout(), e.compute_timeout());
                proptest::prop_assert_eq!(e.timeout_secs().to_bits(), crate::units::to_secs(e.compute_timeout()).to_bits());
            }
        });
    }

    /// Zero samples, no granularity, no floor: the timeout is still a nanosecond, so the
    /// clock moves on (it was 0: a run that never ended).
    #[test]
    fn timeout_is_never_zero() {
        let mut e = RttEstimator::new(RttMode::Rfc6298 { granularity: 0 }, 0, SEC, SEC);
        for _ in 0..3 {
            e.sample(0);
        }
        assert_eq!(e.timeout(), 1);
        e.back_off();
        e.back_off();
        assert_eq!(e.timeout(), 4, "backed off as any timeout");
    }

    #[test]
    fn backoff_caps_at_max_rto() {
        let mut e = RttEstimator::new(RttMode::Rfc6298 { granularity: MS }, 200 * MS, 2000 * MS, 1000 * MS);
        for _ in 0..10 {
            e.back_off();
        }
        assert_eq!(e.timeout(), 2000 * MS);
    }
}
