//! Meters: each decides a packet's colour from its size and arrival time (and, colour-aware,
//! its current colour). Rates are bit/s, bursts bytes, sizes IP bytes; buckets start full.

use super::Color;
use crate::element::bucket::TokenBucket;
use crate::rng::{Rng, SimRng};
use crate::units::{to_secs, Time};

/// One meter's state (per key of a marker).
pub enum Meter {
    /// ns-2 `TokenBucket`: green if the bucket holds the packet's size (which it takes),
    /// else red; tokens arriving at a full bucket are lost (counted). `strict`: green only
    /// if it holds more than the packet (ns-2's tbtagger, `QueueMonitor/ED/Flow/TB`).
    TokenBucket(TokenBucket, bool),
    /// ns-2 `TSW2CM` (Clark & Fang): a time-sliding-window rate estimate `avg`; green if
    /// `avg ≤ CIR`, else red with probability `(avg − CIR)/avg`.
    Tsw2 { est: Tsw, cir: f64 },
    /// ns-2 `TSW3CM` (RFC 2859): `r = avg·U`: red if `r > PIR`, yellow if `r > CIR`, else green.
    Tsw3 { est: Tsw, cir: f64, pir: f64 },
    /// RFC 2697 single-rate three-colour marker: committed bucket C overflowing into E.
    SrTcm(SrTcm),
    /// RFC 2698 two-rate three-colour marker: buckets P (peak) and C (committed).
    TrTcm { p: TokenBucket, c: TokenBucket, aware: bool },
    /// Every packet red (OUT): best-effort traffic.
    Out,
}

/// The time-sliding-window rate estimator (RFC 2859; ns-2 `applyTSWMeter`), bytes/s.
#[derive(Clone, Debug)]
pub struct Tsw {
    pub avg: f64,
    pub t_front: f64,
    pub window: f64,
}

impl Tsw {
    pub fn new(initial_bps: f64, window_s: f64) -> Self {
        Tsw { avg: initial_bps / 8.0, t_front: 0.0, window: window_s }
    }

    /// Counts a packet of `size` bytes arriving at `now`.
    pub fn update(&mut self, now: Time, size: u32) {
        let t = to_secs(now);
        let bytes_in_win = self.avg * self.window;
        self.avg = (bytes_in_win + size as f64) / (t - self.t_front + self.window);
        self.t_front = t;
    }
}

/// RFC 2697's two buckets: tokens at CIR fill C (depth CBS), those beyond spill into E
/// (depth EBS); both start full. Bytes as floating point (ns-2 keeps doubles too).
#[derive(Clone, Debug)]
pub struct SrTcm {
    pub cir: f64,
    pub cbs: f64,
    pub ebs: f64,
    pub tc: f64,
    pub te: f64,
    pub last: Time,
    pub aware: bool,
}

impl SrTcm {
    pub fn new(cir_bps: f64, cbs: f64, ebs: f64, aware: bool) -> Self {
        SrTcm { cir: cir_bps, cbs, ebs, tc: cbs, te: ebs, last: 0, aware }
    }

    fn color(&mut self, now: Time, size: u32, pre: Color) -> Color {
        let add = self.cir / 8.0 * to_secs(now.saturating_sub(self.last));
        self.last = self.last.max(now);
        let room = self.cbs - self.tc;
        if add <= room {
            self.tc += add;
        } else {
            self.tc = self.cbs;
            self.te = (self.te + add - room).min(self.ebs);
        }
        let b = size as f64;
        if (!self.aware || pre == Color::Green) && self.tc >= b {
            self.tc -= b;
            Color::Green
        } else if (!self.aware || pre <= Color::Yellow) && self.te >= b {
            self.te -= b;
            Color::Yellow
        } else {
            Color::Red
        }
    }
}

impl Meter {
    /// The colour of a packet of `size` bytes (current colour `pre`) arriving at `now`.
    pub fn color(&mut self, now: Time, size: u32, pre: Color, rng: &mut SimRng) -> Color {
        match self {
            Meter::TokenBucket(b, strict) => {
                b.refill(now);
                if if *strict { b.exceeds(size) } else { b.conforms(size) } {
                    b.take(size);
                    Color::Green
                } else {
                    Color::Red
                }
            }
            Meter::Tsw2 { est, cir } => {
                est.update(now, size);
                let avg = est.avg * 8.0;
                if avg <= *cir || rng.gen::<f64>() > (avg - *cir) / avg {
                    Color::Green
                } else {
                    Color::Red
                }
            }
            Meter::Tsw3 { est, cir, pir } => {
                est.update(now, size);
                let r = est.avg * 8.0 * (1.0 - rng.gen::<f64>()); // U on (0, 1]
                if r > *pir {
                    Color::Red
                } else if r > *cir {
                    Color::Yellow
                } else {
                    Color::Green
                }
            }
            Meter::SrTcm(m) => m.color(now, size, pre),
            Meter::TrTcm { p, c, aware } => {
                p.refill(now);
                c.refill(now);
                if (*aware && pre == Color::Red) || !p.conforms(size) {
                    Color::Red
                } else if (*aware && pre == Color::Yellow) || !c.conforms(size) {
                    p.take(size);
                    Color::Yellow
                } else {
                    p.take(size);
                    c.take(size);
                    Color::Green
                }
            }
            Meter::Out => Color::Red,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::MS;

    fn seq(m: &mut Meter, sizes_at: &[(Time, u32)], pre: Color) -> Vec<Color> {
        let mut rng = crate::rng::stream(1, "m");
        sizes_at.iter().map(|&(t, s)| m.color(t, s, pre, &mut rng)).collect()
    }

    #[test]
    fn token_bucket_by_hand() {
        // 8 Mb/s = 1000 bytes per ms, depth 2000 bytes (full at 0).
        let mut m = Meter::TokenBucket(TokenBucket::new(8_000_000, 2000), false);
        let g = Color::Green;
        let r = Color::Red;
        // t=0: 2000 → 1000 (G) → 0 (G) → R; t=0.5 ms: 500 → R; t=1.5 ms: 1500 → G (500).
        let got = seq(&mut m, &[(0, 1000), (0, 1000), (0, 1000), (MS / 2, 1000), (3 * MS / 2, 1000)], g);
        assert_eq!(got, vec![g, g, r, r, g]);
        // Strict (ns-2's tbtagger), starting with 1 byte: at 1 ms the bucket holds exactly
        // 1001 bytes (G, 1 left), at 2 ms 1001 again (G), at 2.999 ms exactly 1000: R.
        let mut m = Meter::TokenBucket(TokenBucket::new(8_000_000, 2000).with_tokens(1), true);
        let got = seq(&mut m, &[(0, 1000), (MS, 1000), (2 * MS, 1000), (2 * MS + 999_000, 1000)], g);
        assert_eq!(got, vec![r, g, g, r]);
    }

    #[test]
    fn srtcm_by_hand() {
        // CIR 8 Mb/s (1000 B/ms), CBS 1000, EBS 1000.
        let mut m = Meter::SrTcm(SrTcm::new(8e6, 1000.0, 1000.0, false));
        let (g, y, r) = (Color::Green, Color::Yellow, Color::Red);
        // t=0: C 1000 → G; E 1000 → Y; nothing → R. t=2 ms: 2000 arrive: C fills (1000),
        // 1000 spill into E: G, Y, R.
        let got = seq(&mut m, &[(0, 1000), (0, 1000), (0, 1000), (2 * MS, 1000), (2 * MS, 1000), (2 * MS, 1000)], g);
        assert_eq!(got, vec![g, y, r, g, y, r]);
        // Colour-aware: a yellow packet never takes green tokens.
        let mut m = Meter::SrTcm(SrTcm::new(8e6, 1000.0, 1000.0, true));
        assert_eq!(seq(&mut m, &[(0, 1000), (0, 1000)], y), vec![y, r]);
    }

    #[test]
    fn trtcm_by_hand() {
        // PIR 16 Mb/s (2000 B/ms), PBS 2000; CIR 8 Mb/s, CBS 1000.
        let mut m = Meter::TrTcm { p: TokenBucket::new(16_000_000, 2000), c: TokenBucket::new(8_000_000, 1000), aware: false };
        let (g, y, r) = (Color::Green, Color::Yellow, Color::Red);
        // t=0: G (P 1000, C 0); Y (P 0); R. t=0.5 ms: P 1000, C 500: Y.
        let got = seq(&mut m, &[(0, 1000), (0, 1000), (0, 1000), (MS / 2, 1000)], g);
        assert_eq!(got, vec![g, y, r, y]);
    }

    #[test]
    fn tsw_estimates_a_constant_rate() {
        // 1000-byte packets every ms = 8 Mb/s; the estimate approaches 1 000 000 B/s with the
        // window (1 s) as time constant: within 0.1 % after 20 windows.
        let mut e = Tsw::new(0.0, 1.0);
        for i in 1..=20_000u64 {
            e.update(i * MS, 1000);
        }
        assert!((e.avg - 1e6).abs() < 1e3, "{}", e.avg);
        // TSW2CM at CIR 4 Mb/s marks about half of an 8 Mb/s stream red.
        let mut m = Meter::Tsw2 { est: Tsw::new(8e6, 1.0), cir: 4e6 };
        let pts: Vec<(Time, u32)> = (1..=20_000u64).map(|i| (i * MS, 1000)).collect();
        let reds = seq(&mut m, &pts, Color::Green).iter().filter(|c| **c == Color::Red).count();
        assert!((reds as f64 / 20_000.0 - 0.5).abs() < 0.02, "{reds}");
    }
}
