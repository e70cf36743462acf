//! The receiver's packet time window (UDT's `CPktTimeWindow`): the last 16 arrival
//! intervals (the arrival speed) and the last packet-pair intervals (the link capacity),
//! in whole microseconds, with the median filters of each variant.
//!
//! - Arrival speed: median `M` of the intervals; those inside the filter band count; with
//!   more than half of them inside, speed = `⌈10⁶ / mean⌉` packets/s, else 0. Band
//!   `(M/8, 8M)` in UDT4, `(M/2, 2M)` in the ns-2 module.
//! - Capacity: UDT4 averages the median with every probe interval inside `(M/8, 8M)`; the
//!   ns-2 module takes the plain median. Capacity = `⌈10⁶ / that⌉` packets/s.
//!
//! Initial slots (UDT 4.11): arrival intervals 1 s each (1 packet/s), probe intervals
//! 1 ms each (1000 packets/s).

use crate::units::Time;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowRules {
    /// Arrival-interval slots (16).
    pub arrival_slots: usize,
    /// Packet-pair slots (UDT4: 64 in the code, 16 in the draft; ns-2: 16).
    pub probe_slots: usize,
    /// The speed filter's band is `(M/k, k·M)`: 8 (UDT4) or 2 (ns-2).
    pub speed_band: i64,
    /// Capacity = mean of the median and the probe intervals within `(M/8, 8M)` (UDT4);
    /// false: the median alone (ns-2).
    pub capacity_mean: bool,
    /// Initial probe slots, µs (UDT4 1 ms; the ns-2 module 1000 s).
    pub probe_init_us: i64,
    /// The ns-2 module's first round: until 16 intervals are known the speed is `⌈10⁶/last⌉`
    /// if the last interval is below twice the one before, else 0.
    pub first_round: bool,
    /// UDT4 takes the median from a copy of the first `n − 1` slots (`nth_element` over
    /// `m_iAWSize − 1`).
    pub median_skips_last: bool,
    /// Intervals in whole microseconds with integer band limits and mean (UDT4's `int`s);
    /// false: exact (the ns-2 module's `double` seconds).
    pub integer_us: bool,
}

impl WindowRules {
    pub const UDT4: WindowRules = WindowRules {
        arrival_slots: 16,
        probe_slots: 64,
        speed_band: 8,
        capacity_mean: true,
        probe_init_us: 1_000,
        first_round: false,
        median_skips_last: true,
        integer_us: true,
    };
    pub const NS2: WindowRules = WindowRules {
        arrival_slots: 16,
        probe_slots: 16,
        speed_band: 2,
        capacity_mean: false,
        probe_init_us: 1_000_000_000,
        first_round: true,
        median_skips_last: false,
        integer_us: false,
    };
}

/// Intervals are kept in nanoseconds; the rules' units apply when estimating.
pub struct TimeWindow {
    rules: WindowRules,
    arrivals: Vec<i64>,
    a_next: usize,
    probes: Vec<i64>,
    p_next: usize,
    last_arrival: Option<Time>,
    /// Intervals recorded so far (for the ns-2 first round) and the last two.
    recorded: u64,
    last_two: [i64; 2],
    probe1: Option<Time>,
}

/// The most slots a window may have (the median works on a stack copy).
pub const MAX_SLOTS: usize = 64;

impl TimeWindow {
    pub fn new(rules: WindowRules) -> Self {
        assert!((1..=MAX_SLOTS).contains(&rules.arrival_slots) && (1..=MAX_SLOTS).contains(&rules.probe_slots));
        TimeWindow {
            arrivals: vec![1_000_000_000; rules.arrival_slots],
            probes: vec![rules.probe_init_us.saturating_mul(1000); rules.probe_slots],
            a_next: 0,
            p_next: 0,
            // The ns-2 module times its first interval from the agent's creation (time 0).
            last_arrival: rules.first_round.then_some(0),
            recorded: 0,
            last_two: [0; 2],
            probe1: None,
            rules,
        }
    }

    /// A data packet arrived at `now`.
    pub fn on_arrival(&mut self, now: Time) {
        if let Some(t) = self.last_arrival {
            let x = (now - t) as i64;
            self.arrivals[self.a_next] = x;
            self.a_next = (self.a_next + 1) % self.arrivals.len();
            self.recorded += 1;
            self.last_two = [self.last_two[1], x];
        }
        self.last_arrival = Some(now);
    }

    /// The first packet of a pair (sequence ≡ 0 mod 16) arrived.
    pub fn probe1(&mut self, now: Time) {
        self.probe1 = Some(now);
    }

    /// The second packet of a pair (sequence ≡ 1 mod 16) arrived: the gap since the last
    /// first one (both UDTs record it even when a first packet was lost in between).
    pub fn probe2(&mut self, now: Time) {
        if let Some(t) = self.probe1 {
            self.probes[self.p_next] = (now - t) as i64;
            self.p_next = (self.p_next + 1) % self.probes.len();
        }
    }

    /// The element of rank `n/2` (the upper median; UDT4 over the first `n − 1` slots).
    fn median(v: &[i64], skip_last: bool) -> i64 {
        let n = v.len();
        let src = if skip_last && n > 1 { &v[..n - 1] } else { v };
        let mut buf = [0i64; MAX_SLOTS];
        let copy = &mut buf[..src.len()];
        copy.copy_from_slice(src);
        let mid = (n / 2).min(copy.len() - 1);
        *copy.select_nth_unstable(mid).1
    }

    /// An interval in the rules' microseconds.
    fn us(&self, ns: i64) -> f64 {
        if self.rules.integer_us {
            (ns / 1000) as f64
        } else {
            ns as f64 / 1000.0
        }
    }

    /// `a / k` in the rules' arithmetic.
    fn div(&self, a: f64, k: f64) -> f64 {
        if self.rules.integer_us {
            (a / k).floor()
        } else {
            a / k
        }
    }

    /// `⌈10⁶ / interval⌉` packets/s (0 for an interval of 0).
    fn per_second(us: f64) -> f64 {
        if us > 0.0 {
            (1e6 / us).ceil()
        } else {
            0.0
        }
    }

    /// Packet arrival speed, packets/s (0: not enough consistent samples).
    pub fn speed(&self) -> f64 {
        if self.rules.first_round && self.recorded < self.arrivals.len() as u64 {
            let [prev, last] = self.last_two.map(|x| self.us(x));
            return if self.recorded >= 2 && last < 2.0 * prev { Self::per_second(last) } else { 0.0 };
        }
        let m = self.us(Self::median(&self.arrivals, self.rules.median_skips_last));
        let k = self.rules.speed_band as f64;
        let (lo, hi) = (self.div(m, k), m * k);
        let (mut n, mut sum) = (0u32, 0.0);
        for &x in &self.arrivals {
            let x = self.us(x);
            if x > lo && x < hi {
                n += 1;
                sum += x;
            }
        }
        if n as usize > self.arrivals.len() / 2 {
            // UDT4: an integer mean (`sum / count` on ints).
            Self::per_second(self.div(sum, n as f64))
        } else {
            0.0
        }
    }

    /// Link capacity estimate, packets/s.
    pub fn capacity(&self) -> f64 {
        let m = self.us(Self::median(&self.probes, self.rules.median_skips_last));
        let mean = if self.rules.capacity_mean {
            let (lo, hi) = (self.div(m, 8.0), m * 8.0);
            let (mut n, mut sum) = (1u32, m);
            for &x in &self.probes {
                let x = self.us(x);
                if x > lo && x < hi {
                    n += 1;
                    sum += x;
                }
            }
            sum / n as f64
        } else {
            m
        };
        Self::per_second(mean)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UDT4: WindowRules = WindowRules::UDT4;
    const NS2: WindowRules = WindowRules::NS2;

    #[test]
    fn initial_estimates() {
        let w = TimeWindow::new(UDT4);
        // 16 slots of 1 s: all inside the band → 1 packet/s; probes 1 ms → 1000 packets/s.
        assert_eq!(w.speed(), 1.0);
        assert_eq!(w.capacity(), 1000.0);
        // ns-2: no speed in the first round without two intervals; probes of 1000 s → 1.
        let mut w = TimeWindow::new(NS2);
        assert_eq!(w.speed(), 0.0);
        assert_eq!(w.capacity(), 1.0);
        w.on_arrival(0);
        w.on_arrival(12_000);
        w.on_arrival(25_000);
        assert_eq!(w.speed(), (1e6f64 / 13.0).ceil()); // 13 < 2·12
    }

    #[test]
    fn speed_filters_outliers_by_band() {
        let mut w = TimeWindow::new(UDT4);
        let mut t = 0;
        // 12 µs gaps, then a 40 µs one: inside (1.5, 96) for UDT4, outside (6, 24) for ns-2.
        w.on_arrival(t);
        for i in 0..16 {
            t += if i == 5 { 40_000 } else { 12_000 };
            w.on_arrival(t);
        }
        // Mean of 15·12 + 40 = 220 / 16 = 13 (integer) → ⌈10⁶/13⌉.
        assert_eq!(w.speed(), (1e6f64 / 13.0).ceil());
        let mut w = TimeWindow::new(NS2);
        let mut t = 0;
        w.on_arrival(t);
        for i in 0..16 {
            t += if i == 5 { 40_000 } else { 12_000 };
            w.on_arrival(t);
        }
        assert_eq!(w.speed(), (1e6f64 / 12.0).ceil());
        // Fewer than nine consistent intervals: 0 (median 100 µs, band (50, 200): eight in).
        let mut w = TimeWindow::new(NS2);
        let mut t = 0;
        w.on_arrival(t);
        for i in 0..16 {
            t += if i % 2 == 0 { 12_000 } else { 100_000 };
            w.on_arrival(t);
        }
        assert_eq!(w.speed(), 0.0);
    }

    #[test]
    fn capacity_from_packet_pairs() {
        let mut w = TimeWindow::new(NS2);
        for i in 0..16u64 {
            let t0 = i * 1_000_000;
            w.probe1(t0);
            w.probe2(t0 + if i < 10 { 12_000 } else { 20_000 });
        }
        // Median of ten 12s and six 20s (upper median, index 8) = 12 µs.
        assert_eq!(w.capacity(), (1e6f64 / 12.0).ceil());
        let mut w = TimeWindow::new(UDT4);
        for i in 0..64u64 {
            w.probe1(i * 1_000_000);
            w.probe2(i * 1_000_000 + 12_000);
        }
        assert_eq!(w.capacity(), (1e6f64 / 12.0).ceil());
    }
}
