//! An exact token bucket: tokens in bytes accrue at `rate` up to `depth`, kept as integers
//! (units of a bit·10⁹, so that one nanosecond at `rate` bit/s adds exactly `rate` units):
//! no rounding ever lets a packet conform early.

use crate::units::Time;

const UNITS_PER_BYTE: u128 = 8 * 1_000_000_000;

#[derive(Clone, Debug)]
pub struct TokenBucket {
    rate_bps: u64,
    depth: u128,
    tokens: u128,
    last: Time,
    /// Tokens that arrived at a full bucket (Paper A's "lost tokens"), in units.
    lost: u128,
}

impl TokenBucket {
    /// A full bucket of `depth` bytes filling at `rate_bps`.
    pub fn new(rate_bps: u64, depth_bytes: u64) -> Self {
        let depth = depth_bytes as u128 * UNITS_PER_BYTE;
        TokenBucket { rate_bps, depth, tokens: depth, last: 0, lost: 0 }
    }

    /// Adds the tokens accrued up to `now`.
    pub fn refill(&mut self, now: Time) {
        if now > self.last {
            let t = self.tokens + (now - self.last) as u128 * self.rate_bps as u128;
            self.lost += t.saturating_sub(self.depth);
            self.tokens = t.min(self.depth);
            self.last = now;
        }
    }

    /// Starts the bucket with `bytes` of tokens (at most its depth) instead of full.
    pub fn with_tokens(mut self, bytes: u64) -> Self {
        self.tokens = (bytes as u128 * UNITS_PER_BYTE).min(self.depth);
        self
    }

    /// Whether `size` bytes conform now (after [`TokenBucket::refill`]).
    pub fn conforms(&self, size: u32) -> bool {
        self.tokens >= size as u128 * UNITS_PER_BYTE
    }

    /// Whether the bucket holds more than `size` bytes (ns-2's tbtagger: `size < tbucket_`).
    pub fn exceeds(&self, size: u32) -> bool {
        self.tokens > size as u128 * UNITS_PER_BYTE
    }

    /// Whether `size` bytes could ever conform (the bucket is deep enough).
    pub fn fits(&self, size: u32) -> bool {
        self.depth >= size as u128 * UNITS_PER_BYTE
    }

    /// Takes the tokens of `size` bytes (which must conform).
    pub fn take(&mut self, size: u32) {
        self.tokens -= size as u128 * UNITS_PER_BYTE;
    }

    /// The earliest time at which `size` bytes conform (`now` if they do).
    pub fn ready_at(&self, size: u32) -> Time {
        let need = (size as u128 * UNITS_PER_BYTE).saturating_sub(self.tokens);
        self.last + need.div_ceil(self.rate_bps as u128) as Time
    }

    /// Bytes of tokens lost so far (arrived at a full bucket), up to `now`.
    pub fn lost_bytes_at(&self, now: Time) -> f64 {
        let t = self.tokens + now.saturating_sub(self.last) as u128 * self.rate_bps as u128;
        (self.lost + t.saturating_sub(self.depth)) as f64 / UNITS_PER_BYTE as f64
    }

    /// Bytes of tokens at `now` (for traces), without changing the bucket.
    pub fn bytes_at(&self, now: Time) -> f64 {
        let t = (self.tokens + now.saturating_sub(self.last) as u128 * self.rate_bps as u128).min(self.depth);
        t as f64 / UNITS_PER_BYTE as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accrues_exactly_and_caps_at_depth() {
        // 8 Mb/s = 1 byte per µs; 1500-byte bucket.
        let mut b = TokenBucket::new(8_000_000, 1500);
        assert!(b.conforms(1500));
        b.take(1500);
        assert!(!b.conforms(1));
        assert_eq!(b.ready_at(1000), 1_000_000);
        b.refill(999_999);
        assert!(!b.conforms(1000));
        b.refill(1_000_000);
        assert!(b.conforms(1000) && !b.conforms(1001));
        b.refill(10_000_000_000);
        assert_eq!(b.bytes_at(10_000_000_000), 1500.0);
        // Full since 1 000 µs + 1 500 bytes of accrual: 10 s at 1 byte/µs, less 500 bytes
        // that went in, are lost.
        assert_eq!(b.lost_bytes_at(10_000_000_000), 10_000_000.0 - 1_000.0 - 500.0);
        assert!(!b.fits(1501));
    }
}
