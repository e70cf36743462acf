//! Per-component random streams derived from the scenario seed.
//!
//! Every component that draws random numbers (a loss model, a RED queue, a traffic
//! source) owns its own ChaCha8 stream, keyed by the scenario seed and the component's
//! stable name (for example `link:r0->r1:loss` or `flow:cbr3`). Adding a flow or a link
//! therefore never changes the draws of the others.

pub use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

pub type SimRng = ChaCha8Rng;

/// FNV-1a, 64 bit: a stable (platform- and version-independent) hash of a name given in
/// parts (the hash of their concatenation, without building it).
fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in parts.iter().flat_map(|p| p.as_bytes()) {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64 step, used to expand (seed, name) into a 256-bit ChaCha key.
fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The random stream of component `name` under scenario seed `seed`.
pub fn stream(seed: u64, name: &str) -> SimRng {
    stream_of(seed, &[name])
}

/// [`stream`] of the name made of `parts` (concatenated): the same stream, with no string
/// built (set-up of large worlds labels tens of thousands of components).
pub fn stream_of(seed: u64, parts: &[&str]) -> SimRng {
    let mut state = seed ^ fnv1a(parts).rotate_left(17);
    let mut key = [0u8; 32];
    for chunk in key.chunks_mut(8) {
        chunk.copy_from_slice(&splitmix(&mut state).to_le_bytes());
    }
    ChaCha8Rng::from_seed(key)
}

/// A component's random stream, derived only when the component asks for it
/// ([`Stream::rng`]): most draw nothing (a DropTail queue), and deriving a ChaCha stream
/// for each of a large world's 40 000 queues was a sizeable part of its set-up. The stream,
/// when asked for, is [`stream_of`]'s.
#[derive(Clone, Copy, Debug)]
pub struct Stream<'a> {
    seed: u64,
    parts: &'a [&'a str],
}

impl<'a> Stream<'a> {
    /// The stream of the name made of `parts` under `seed`.
    pub fn new(seed: u64, parts: &'a [&'a str]) -> Self {
        Stream { seed, parts }
    }

    /// The stream itself.
    pub fn rng(self) -> SimRng {
        stream_of(self.seed, self.parts)
    }
}

// Transcendental functions come from the `libm` crate (a pure-Rust port of musl's libm),
// not the platform's C library, so that draws are bit-identical on every platform.

/// Uniform draw on (0, 1], never 0 (safe for `ln`).
#[inline]
pub fn uniform_open0(rng: &mut SimRng) -> f64 {
    1.0 - rng.gen::<f64>()
}

/// Exponential draw with the given mean.
#[inline]
pub fn exponential(rng: &mut SimRng, mean: f64) -> f64 {
    -mean * libm::log(uniform_open0(rng))
}

/// `base^n` by repeated squaring: exact the same way on every platform (unlike `powi`,
/// whose precision Rust leaves unspecified).
#[inline]
pub fn powi_exact(base: f64, n: u32) -> f64 {
    let (mut result, mut b, mut n) = (1.0, base, n);
    while n > 0 {
        if n & 1 == 1 {
            result *= b;
        }
        b *= b;
        n >>= 1;
    }
    result
}

/// Pareto draw with the given mean and shape (> 1), as ns-2's Pareto on/off source.
#[inline]
pub fn pareto(rng: &mut SimRng, mean: f64, shape: f64) -> f64 {
    let scale = mean * (shape - 1.0) / shape;
    scale / libm::pow(uniform_open0(rng), 1.0 / shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PINNED: u64 = 4_358_189_745_428_616_832;

    /// A stream derived on demand is the one `stream_of` gives for the same name.
    #[test]
    fn a_stream_on_demand_is_the_named_stream() {
        let parts = ["link:", "r0-r1", ":", "ab", ":queue"];
        let a: [u64; 3] = Stream::new(9, &parts).rng().gen();
        let b: [u64; 3] = stream(9, "link:r0-r1:ab:queue").gen();
        assert_eq!(a, b);
    }

    #[test]
    fn streams_are_stable_and_distinct() {
        let a1: u64 = stream(1, "flow:a").gen();
        let a2: u64 = stream(1, "flow:a").gen();
        let b: u64 = stream(1, "flow:b").gen();
        let a_seed2: u64 = stream(2, "flow:a").gen();
        assert_eq!(a1, a2);
        assert_ne!(a1, b);
        assert_ne!(a1, a_seed2);
    }

    #[test]
    fn a_name_in_parts_is_the_same_stream_as_the_whole_name() {
        for (seed, parts) in [(1u64, &["link:", "s1-r0", ":", "ab", ":queue"][..]), (9, &["flow:", "f7"]), (3, &[]), (4, &["", "x", ""])] {
            let whole: u64 = stream(seed, &parts.concat()).gen();
            let split: u64 = stream_of(seed, parts).gen();
            assert_eq!(whole, split, "{parts:?}");
        }
        // Pinned: a stream's draws never change between versions (scenarios' results depend on them).
        assert_eq!(stream(1, "flow:a").gen::<u64>(), PINNED);
    }

    #[test]
    fn distributions_have_their_means() {
        let mut r = stream(7, "t");
        let n = 200_000;
        let m: f64 = (0..n).map(|_| exponential(&mut r, 2.0)).sum::<f64>() / n as f64;
        assert!((m - 2.0).abs() < 0.03, "exp mean {m}");
        let m: f64 = (0..n).map(|_| pareto(&mut r, 1.0, 2.5)).sum::<f64>() / n as f64;
        assert!((m - 1.0).abs() < 0.05, "pareto mean {m}");
    }
}

/// ns-2's default random number generator: L'Ecuyer's MRG32k3a (`RNG::U01`), as ns-2.35
/// seeds it (`$defaultRNG seed 1`: every state word 1). For bit-level reproductions of ns-2
/// runs (RED's `rng = "ns2"`); exact integer arithmetic.
#[derive(Clone, Debug)]
pub struct Mrg32k3a {
    s: [i64; 6],
}

impl Mrg32k3a {
    const M1: i64 = 4_294_967_087;
    const M2: i64 = 4_294_944_443;

    /// The stream of ns-2's default RNG after `skip` draws (in O(log skip) steps: each of
    /// the two recurrences is a 3 × 3 matrix, raised to the power `skip`; a skip of 2^40
    /// had taken three hours one draw at a time).
    pub fn ns2_default(skip: u64) -> Self {
        let mut g = Mrg32k3a { s: [1; 6] };
        g.jump(skip);
        g
    }

    /// Advances the state by `n` draws.
    pub fn jump(&mut self, n: u64) {
        type M = [[u64; 3]; 3];
        fn mul(a: &M, b: &M, m: u64) -> M {
            let mut c = [[0u64; 3]; 3];
            for (i, row) in c.iter_mut().enumerate() {
                for (j, x) in row.iter_mut().enumerate() {
                    let sum: u128 = (0..3).map(|k| a[i][k] as u128 * b[k][j] as u128).sum();
                    *x = (sum % m as u128) as u64;
                }
            }
            c
        }
        fn power(a: M, mut n: u64, m: u64) -> M {
            let (mut r, mut b) = ([[1, 0, 0], [0, 1, 0], [0, 0, 1]], a);
            while n > 0 {
                if n & 1 == 1 {
                    r = mul(&r, &b, m);
                }
                b = mul(&b, &b, m);
                n >>= 1;
            }
            r
        }
        let (m1, m2) = (Self::M1 as u64, Self::M2 as u64);
        // The recurrences on (s0, s1, s2) and (s3, s4, s5), as `next_u01` steps them.
        let a1 = power([[0, 1, 0], [0, 0, 1], [m1 - 810_728, 1_403_580, 0]], n, m1);
        let a2 = power([[0, 1, 0], [0, 0, 1], [m2 - 1_370_589, 0, 527_612]], n, m2);
        let apply = |a: &M, v: [i64; 3], m: u64| -> [i64; 3] {
            std::array::from_fn(|i| ((0..3).map(|k| a[i][k] as u128 * v[k] as u128).sum::<u128>() % m as u128) as i64)
        };
        let x = apply(&a1, [self.s[0], self.s[1], self.s[2]], m1);
        let y = apply(&a2, [self.s[3], self.s[4], self.s[5]], m2);
        self.s = [x[0], x[1], x[2], y[0], y[1], y[2]];
    }

    /// The next uniform number in (0, 1), as ns-2's `RNG::U01()`.
    pub fn next_u01(&mut self) -> f64 {
        let s = &mut self.s;
        let p1 = (1_403_580 * s[1] - 810_728 * s[0]).rem_euclid(Self::M1);
        s[0] = s[1];
        s[1] = s[2];
        s[2] = p1;
        let p2 = (527_612 * s[5] - 1_370_589 * s[3]).rem_euclid(Self::M2);
        s[3] = s[4];
        s[4] = s[5];
        s[5] = p2;
        let d = if p1 > p2 { p1 - p2 } else { p1 - p2 + Self::M1 };
        d as f64 * 2.328_306_549_295_728e-10 // ns-2 norm, 1 / (M1 + 1)
    }
}

#[cfg(test)]
mod mrg_tests {
    #[test]
    fn ns2_default_stream() {
        // The first numbers of ns-2.35's default RNG (seed 1), as its RED draws them.
        let mut g = super::Mrg32k3a::ns2_default(0);
        let first: Vec<f64> = (0..4).map(|_| g.next_u01()).collect();
        assert_eq!(first, [0.0003395772237870988, 0.5558807159827996, 0.014204660652803588, 0.08812267131393675]);
        let mut h = super::Mrg32k3a::ns2_default(2);
        assert_eq!(h.next_u01(), first[2]);
    }

    /// A jump of n draws is n draws, from the default state and from any other.
    #[test]
    fn jumps_are_draws() {
        let mut walked = super::Mrg32k3a::ns2_default(0);
        for n in 0..3_000u64 {
            let mut jumped = super::Mrg32k3a::ns2_default(n);
            assert_eq!(jumped.s, walked.s, "skip {n}");
            assert_eq!(jumped.next_u01(), walked.clone().next_u01());
            walked.next_u01();
        }
        let (mut a, mut b) = (super::Mrg32k3a::ns2_default(12_345), super::Mrg32k3a::ns2_default(12_345));
        a.jump(777_777);
        for _ in 0..777_777 {
            b.next_u01();
        }
        assert_eq!(a.s, b.s);
        // The largest skip a scenario may give, at once: two jumps of half of it agree.
        let mut half = super::Mrg32k3a::ns2_default(1 << 39);
        half.jump(1 << 39);
        assert_eq!(half.s, super::Mrg32k3a::ns2_default(1 << 40).s);
        assert_ne!(half.s, super::Mrg32k3a::ns2_default((1 << 40) - 1).s);
    }
}
