//! Deterministic periodic losses: one packet in every `period` (ns-2's
//! `ErrorModel/Periodic`), the model the response functions of HighSpeed TCP (RFC 3649)
//! and EIMD (Paper E, eqs. 4–6) are derived in.

use super::{LossConfig, LossModel};
use crate::config::{Errors, Obj};
use crate::packet::Packet;
use crate::rng::SimRng;
use crate::units::Time;
use std::sync::Arc;

/// Loses packet `i` (0-based among the packets crossing this link direction) when `i`
/// reaches the next loss index: `offset`, `offset + period`, `offset + 2·period`, … rounded
/// up, so that a fractional period (`1/p`) gives exactly one loss per `period` packets on
/// average.
pub struct Periodic {
    period: f64,
    next: f64,
    count: u64,
}

impl LossModel for Periodic {
    #[inline]
    fn lose(&mut self, _now: Time, _pkt: &Packet) -> bool {
        let i = self.count as f64;
        self.count += 1;
        if i >= self.next {
            self.next += self.period;
            true
        } else {
            false
        }
    }
}

/// `{ kind = "periodic", period = 1000, offset = 999 }`: one loss every `period` packets
/// (at least 1; fractional allowed), the first at index `offset` (default `period − 1`: the
/// last packet of each period).
#[derive(Clone, Debug, serde::Serialize)]
pub struct PeriodicConfig {
    pub period: f64,
    pub offset: f64,
}

impl LossConfig for PeriodicConfig {
    fn kind(&self) -> &'static str {
        "periodic"
    }
    fn build(&self, _rng: SimRng) -> Box<dyn LossModel> {
        Box::new(Periodic { period: self.period, next: self.offset, count: 0 })
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
}

/// Parses `period` (required) and `offset`.
pub fn parse(o: &mut Obj, errs: &mut Errors) -> Option<Arc<dyn LossConfig>> {
    let offset = o.float("offset", 0.0, 1e15, errs);
    if !o.has("period") {
        errs.add(o.at("period"), "missing required field (packets per loss, at least 1, e.g. 1000)");
        return None;
    }
    let period = o.float("period", 1.0, 1e15, errs)?;
    let offset = offset.unwrap_or(period - 1.0);
    Some(Arc::new(PeriodicConfig { period, offset }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(period: f64, offset: f64, n: usize) -> Vec<usize> {
        let mut m = PeriodicConfig { period, offset }.build(crate::rng::stream(1, "t"));
        (0..n).filter(|_| m.lose(0, &Packet::default())).collect()
    }

    #[test]
    fn one_loss_per_period() {
        assert_eq!(pattern(4.0, 3.0, 12), vec![3, 7, 11]);
        // A fractional period: 1/p packets per loss on average, exactly.
        assert_eq!(pattern(2.5, 0.0, 10), vec![0, 3, 5, 8]);
        let n = 1_000_000;
        assert_eq!(pattern(1e4 / 3.0, 0.0, n).len(), 300);
    }
}
