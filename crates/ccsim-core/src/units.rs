//! SI quantities as users write them, converted to the engine's exact integers.
//!
//! User-facing values are SI (seconds, bit/s, bytes), written either as a bare number or
//! as a string with a unit: `"10Mbps"`, `"35ms"`, `"1500B"`. Inside the engine time is an
//! integer number of nanoseconds, rates are integer bit/s and sizes integer bytes.

/// Simulated time in nanoseconds.
pub type Time = u64;

pub const NS: Time = 1;
pub const US: Time = 1_000;
pub const MS: Time = 1_000_000;
pub const SEC: Time = 1_000_000_000;

/// Seconds (f64) to nanoseconds, rounded to the nearest nanosecond.
pub fn secs(s: f64) -> Time {
    (s * 1e9).round() as Time
}

/// Nanoseconds to seconds.
pub fn to_secs(t: Time) -> f64 {
    t as f64 / 1e9
}

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || ((c == 'e' || c == 'E') && s[i + 1..].starts_with(|d: char| d.is_ascii_digit() || d == '-' || d == '+'))
                || ((c == '-' || c == '+') && (i == 0 || matches!(&s[i - 1..i], "e" | "E"))))
        })
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let num: f64 = s[..end].parse().ok()?;
    Some((num, s[end..].trim()))
}

/// Whether a quantity written as a string names its unit (`"10Mbps"`, not `"10"`).
pub fn has_unit(s: &str) -> bool {
    split_number(s).is_some_and(|(_, unit)| !unit.is_empty())
}

/// Allowed unit spellings, shown in error messages.
pub const RATE_UNITS: &str = "bps, kbps, Mbps, Gbps, Tbps (or b/s, kb/s, Mb/s, Gb/s; B/s forms for bytes)";
pub const TIME_UNITS: &str = "s, ms, us (or µs), ns, min";
pub const SIZE_UNITS: &str = "B, KB, MB, GB (x1000), KiB, MiB, GiB (x1024)";

/// Parses a rate in bit/s. A bare number is bit/s.
pub fn parse_rate(s: &str) -> Option<f64> {
    let (n, unit) = split_number(s)?;
    let mult = match unit {
        "" | "bps" | "b/s" => 1.0,
        "kbps" | "Kbps" | "kb/s" | "Kb/s" => 1e3,
        "Mbps" | "mbps" | "Mb/s" => 1e6,
        "Gbps" | "gbps" | "Gb/s" => 1e9,
        "Tbps" | "Tb/s" => 1e12,
        "Bps" | "B/s" => 8.0,
        "kBps" | "KBps" | "kB/s" | "KB/s" => 8e3,
        "MBps" | "MB/s" => 8e6,
        "GBps" | "GB/s" => 8e9,
        _ => return None,
    };
    Some(n * mult)
}

/// Parses a time in seconds. A bare number is seconds.
pub fn parse_time(s: &str) -> Option<f64> {
    let (n, unit) = split_number(s)?;
    // Divide for sub-second units so that e.g. "10us" is the double nearest 1e-5.
    Some(match unit {
        "" | "s" | "sec" => n,
        "ms" => n / 1e3,
        // The micro sign (U+00B5) and the Greek small mu (U+03BC): keyboards give either.
        "us" | "µs" | "μs" => n / 1e6,
        "ns" => n / 1e9,
        "min" => n * 60.0,
        _ => return None,
    })
}

/// Parses a size in bytes. A bare number is bytes.
pub fn parse_size(s: &str) -> Option<f64> {
    let (n, unit) = split_number(s)?;
    let mult = match unit {
        "" | "B" | "bytes" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    Some(n * mult)
}

/// Exact serialization time of `bytes` at `rate_bps`, carrying the sub-nanosecond
/// remainder in `rem` so that a long train of packets is exact on average.
#[inline]
pub fn serialization(bytes: u32, rate_bps: u64, rem: &mut u64) -> Time {
    // bytes < 2^32 so bytes·8·10⁹ < 3.5·10¹⁹: use u64 unless that (or + rem) overflows.
    match (bytes as u64).checked_mul(8_000_000_000).and_then(|n| n.checked_add(*rem)) {
        Some(num) => {
            *rem = num % rate_bps;
            num / rate_bps
        }
        None => {
            let num = bytes as u128 * 8_000_000_000 + *rem as u128;
            let rate = rate_bps as u128;
            *rem = (num % rate) as u64;
            (num / rate) as Time
        }
    }
}

/// `x.floor()`, bit for bit, without the library call the baseline x86-64 target makes
/// for it (no SSE4.1 rounding instruction; about 25 instructions a call): a positive `x`
/// below 2⁶³ is truncated by one conversion to an integer and back (exact: the truncation
/// of a float is a float), anything else (zero, negatives, NaN, huge) takes `f64::floor`.
/// For the per-ACK window arithmetic.
#[inline(always)]
pub fn floor(x: f64) -> f64 {
    if x > 0.0 && x < 9_223_372_036_854_775_808.0 {
        (x as i64) as f64
    } else {
        x.floor()
    }
}

/// A transmitter's exact serialization clock: [`serialization`], bit for bit, with less
/// work per packet.
///
/// - A rate with a whole number of nanoseconds per byte (8·10⁹ divisible by the rate:
///   1 Gb/s, 100 Mb/s, 10 Mb/s, ...) multiplies: the carried remainder stays zero.
/// - Any other rate (10 Gb/s: 0.8 ns per byte) divides, but remembers the last crossing
///   that started and ended with no remainder carried (`bytes`, time): the same size again
///   with no remainder gives the same time and leaves none, without the 64-bit division
///   (a long-latency instruction on the chain of a packet's crossings: S2 −1.8 % wall,
///   S3 −0.7 %, S1 unchanged; docs/benchmarks.md). A link carries mostly one size each
///   way.
///
/// Three words, as before the memo: the first line of a link direction has no room for
/// a fourth.
#[derive(Clone, Copy, Debug)]
pub struct Serializer {
    /// The rate for the division; 0 for a whole rate (see `aux`).
    rate_bps: u64,
    /// A whole rate's nanoseconds per byte; any other's memo, `bytes << 32 | time`
    /// (0: a 0-byte crossing, 0 ns, which is right).
    aux: u64,
    /// The sub-nanosecond remainder carried (always 0 for a whole rate).
    rem: u64,
}

impl Serializer {
    pub fn new(rate_bps: u64) -> Self {
        // Scenarios refuse rates below 1 bit/s; 0 here would read as "whole, 0 ns per byte".
        debug_assert!(rate_bps > 0, "a link's rate is at least 1 bit/s");
        // Whole, and small enough that bytes (< 2³²) times it fits a u64 (rates ≥ 2 bit/s).
        let whole = rate_bps > 0 && 8_000_000_000 % rate_bps == 0 && 8_000_000_000 / rate_bps <= u32::MAX as u64;
        if whole {
            Serializer { rate_bps: 0, aux: 8_000_000_000 / rate_bps, rem: 0 }
        } else {
            Serializer { rate_bps, aux: 0, rem: 0 }
        }
    }

    /// The serialization time of `bytes` (carrying the sub-nanosecond remainder).
    #[inline(always)]
    pub fn time(&mut self, bytes: u32) -> Time {
        if self.rate_bps == 0 {
            // bytes·8·10⁹ + rem = bytes·per_byte·rate + rem with rem < rate: the quotient
            // is bytes·per_byte and the remainder stays rem (0).
            return bytes as u64 * self.aux;
        }
        if self.rem == 0 && (self.aux >> 32) as u32 == bytes {
            return self.aux & u32::MAX as u64;
        }
        let from_zero = self.rem == 0;
        let t = serialization(bytes, self.rate_bps, &mut self.rem);
        if from_zero && self.rem == 0 && t <= u32::MAX as Time {
            self.aux = (bytes as u64) << 32 | t;
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_quantity_names_its_unit_or_not() {
        assert!(has_unit("10Mbps") && has_unit(" 1500 B") && has_unit("1e3ms"));
        assert!(!has_unit("10") && !has_unit(" 1e3 ") && !has_unit("-5"));
    }

    #[test]
    fn floor_is_the_library_floor_bit_for_bit() {
        let edge =
            [0.0, -0.0, 0.5, 1.0, 1.5, -0.5, -1.0, -1.5, 2.0f64.powi(52) + 0.5, 2.0f64.powi(53), 2.0f64.powi(63), 2.0f64.powi(63) - 1024.0];
        let more = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, f64::MIN_POSITIVE, f64::MAX, f64::MIN, f64::EPSILON, 1e300, -1e300];
        for x in edge.into_iter().chain(more) {
            assert_eq!(floor(x).to_bits(), x.floor().to_bits(), "{x}");
        }
        proptest::proptest!(|(bits in proptest::prelude::any::<u64>(), w in 0.0..1e7f64)| {
            let x = f64::from_bits(bits);
            proptest::prop_assert_eq!(floor(x).to_bits(), x.floor().to_bits());
            proptest::prop_assert_eq!(floor(w).to_bits(), w.floor().to_bits());
        });
    }

    #[test]
    fn the_serializer_is_serialization_bit_for_bit() {
        for rate in
            [1_000_000_000u64, 100_000_000, 10_000_000, 10_000_000_000, 155_520_000, 149_760_000, 1, 3, 8_000_000_000, 16_000_000_000]
        {
            let (mut s, mut rem) = (Serializer::new(rate), 0u64);
            for i in 0..2_000u32 {
                let bytes = 40 + (i * 7919) % 1_500;
                assert_eq!(s.time(bytes), serialization(bytes, rate, &mut rem), "rate {rate}, packet {i}");
            }
            assert_eq!(s.rem, rem);
        }
        assert_eq!((Serializer::new(1_000_000_000).rate_bps, Serializer::new(1_000_000_000).aux), (0, 8));
        assert_eq!(Serializer::new(10_000_000_000).rate_bps, 10_000_000_000);
        // 1 bit/s: 8·10⁹ ns per byte would overflow for large sizes; the exact path takes it.
        assert_eq!(Serializer::new(1).rate_bps, 1);
        assert_eq!(Serializer::new(1).time(u32::MAX), serialization(u32::MAX, 1, &mut 0));
    }

    /// Sizes drawn from a few (so the memo is used, and left when a remainder appears) at
    /// any rate: the times and the remainder carried are [`serialization`]'s.
    #[test]
    fn the_serializer_remembers_only_what_is_exact() {
        let sizes = [0u32, 40, 52, 1_500, 1_500, 1_500, 9_000, 53, 1, u32::MAX];
        proptest::proptest!(|(rate in 1u64..40_000_000_000, picks in proptest::collection::vec(0usize..10, 1..200))| {
            let (mut s, mut rem) = (Serializer::new(rate), 0u64);
            for &k in &picks {
                let bytes = sizes[k];
                proptest::prop_assert_eq!(s.time(bytes), serialization(bytes, rate, &mut rem));
                proptest::prop_assert_eq!(s.rem, rem);
            }
        });
        for rate in [10_000_000_000u64, 40_000_000_000, 155_520_000, 3, 7] {
            let (mut s, mut rem) = (Serializer::new(rate), 0u64);
            for i in 0..1_000u32 {
                let bytes = [1_500, 40, 1_500, 1_500, 53][i as usize % 5];
                assert_eq!(s.time(bytes), serialization(bytes, rate, &mut rem), "rate {rate}, packet {i}");
            }
        }
    }

    #[test]
    fn parses_rates() {
        assert_eq!(parse_rate("10Mbps"), Some(10e6));
        assert_eq!(parse_rate("155.52 Mb/s"), Some(155.52e6));
        assert_eq!(parse_rate("1e9"), Some(1e9));
        assert_eq!(parse_rate("1Gbps"), Some(1e9));
        assert_eq!(parse_rate("1MBps"), Some(8e6));
        assert_eq!(parse_rate("10Mbsp"), None);
        assert_eq!(parse_rate("fast"), None);
    }

    #[test]
    fn parses_times_and_sizes() {
        assert_eq!(parse_time("35ms"), Some(0.035));
        assert_eq!(parse_time("2"), Some(2.0));
        assert_eq!(parse_time("10us"), Some(1e-5));
        assert_eq!((parse_time("10\u{b5}s"), parse_time("10\u{3bc}s")), (Some(1e-5), Some(1e-5)));
        assert_eq!(parse_time("35 mss"), None);
        assert_eq!(parse_size("1500B"), Some(1500.0));
        assert_eq!(parse_size("1KiB"), Some(1024.0));
        assert_eq!(parse_size("1.5KB"), Some(1500.0));
        assert_eq!(parse_time("-1s"), Some(-1.0));
    }

    #[test]
    fn serialization_is_exact() {
        let mut rem = 0;
        // 1500 B on 10 Mb/s = 1.2 ms exactly.
        assert_eq!(serialization(1500, 10_000_000, &mut rem), 1_200_000);
        assert_eq!(rem, 0);
        // 53-byte cells on 149.76 Mb/s: 2831.196... ns each; 1e6 cells sum exactly.
        let mut total = 0u64;
        for _ in 0..1_000_000 {
            total += serialization(53, 149_760_000, &mut rem);
        }
        let exact = 53u128 * 8 * 1_000_000_000 * 1_000_000 / 149_760_000;
        assert_eq!(total as u128, exact);
    }
}
