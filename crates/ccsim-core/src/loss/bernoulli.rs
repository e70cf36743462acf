//! Independent (Bernoulli) loss: each packet is lost with probability `p`.

use super::{LossConfig, LossModel};
use crate::config::{Errors, Obj};
use crate::packet::Packet;
use crate::rng::{Rng, SimRng};
use crate::units::Time;
use std::sync::Arc;

/// Independent loss with probability `p` per packet.
pub struct Bernoulli {
    p: f64,
    rng: SimRng,
}

impl Bernoulli {
    pub fn new(p: f64, rng: SimRng) -> Self {
        Bernoulli { p, rng }
    }
}

impl LossModel for Bernoulli {
    #[inline]
    fn lose(&mut self, _now: Time, _pkt: &Packet) -> bool {
        self.p > 0.0 && self.rng.gen::<f64>() < self.p
    }
}

/// `{ kind = "bernoulli", p = 0.01 }`: each packet lost with probability `p` (required).
#[derive(Clone, Debug, serde::Serialize)]
pub struct BernoulliConfig {
    pub p: f64,
}

impl LossConfig for BernoulliConfig {
    fn kind(&self) -> &'static str {
        "bernoulli"
    }
    fn build(&self, rng: SimRng) -> Box<dyn LossModel> {
        Box::new(Bernoulli::new(self.p, rng))
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
}

/// Parses `p`.
pub fn parse(o: &mut Obj, errs: &mut Errors) -> Option<Arc<dyn LossConfig>> {
    let p = o.req_float("p", 0.0, 1.0, errs)?;
    Some(Arc::new(BernoulliConfig { p }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Packet;
    use crate::rng::stream;

    #[test]
    fn bernoulli_rate_within_binomial_ci() {
        for &p in &[1e-4, 1e-3, 1e-2, 0.1, 0.5] {
            let mut m = Bernoulli::new(p, stream(3, "loss"));
            let n = 1_000_000u32;
            let k = (0..n).filter(|_| m.lose(0, &Packet::default())).count() as f64;
            let sd = (n as f64 * p * (1.0 - p)).sqrt();
            assert!((k - n as f64 * p).abs() <= 4.0 * sd, "p={p}: {k} losses in {n}");
        }
    }

    #[test]
    fn bernoulli_zero_never_loses() {
        let mut m = Bernoulli::new(0.0, stream(3, "loss"));
        assert!((0..10_000).all(|_| !m.lose(0, &Packet::default())));
    }
}
