//! Loss models behind one trait, attachable to a link direction. A loss model decides, for
//! each packet that finishes serialization, whether the wire loses it (the packet still
//! consumed its transmission time, as a corrupted frame would).

use crate::packet::Packet;
use crate::rng::{Rng, SimRng};
use crate::units::Time;

pub trait LossModel: Send {
    /// Whether this packet is lost.
    fn lose(&mut self, now: Time, pkt: &Packet) -> bool;
    /// Current state for traces (e.g. Gilbert-Elliott's bad state = 1).
    fn state(&self) -> f64 {
        0.0
    }
}

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

/// Gilbert-Elliott two-state Markov loss, stepped once per packet: in the good state a
/// packet is lost with `loss_good`, in the bad state with `loss_bad`; after each packet the
/// chain moves good→bad with `p_gb` and bad→good with `p_bg`. Stationary loss rate:
/// `(p_bg·loss_good + p_gb·loss_bad)/(p_gb + p_bg)`; mean burst length in bad state 1/p_bg.
pub struct GilbertElliott {
    p_gb: f64,
    p_bg: f64,
    loss_good: f64,
    loss_bad: f64,
    bad: bool,
    rng: SimRng,
}

impl GilbertElliott {
    pub fn new(p_gb: f64, p_bg: f64, loss_good: f64, loss_bad: f64, rng: SimRng) -> Self {
        GilbertElliott { p_gb, p_bg, loss_good, loss_bad, bad: false, rng }
    }

    /// Long-run fraction of packets lost.
    pub fn stationary_loss(&self) -> f64 {
        (self.p_bg * self.loss_good + self.p_gb * self.loss_bad) / (self.p_gb + self.p_bg)
    }
}

impl LossModel for GilbertElliott {
    #[inline]
    fn lose(&mut self, _now: Time, _pkt: &Packet) -> bool {
        let p = if self.bad { self.loss_bad } else { self.loss_good };
        let lost = p > 0.0 && self.rng.gen::<f64>() < p;
        let flip = if self.bad { self.p_bg } else { self.p_gb };
        if self.rng.gen::<f64>() < flip {
            self.bad = !self.bad;
        }
        lost
    }
    fn state(&self) -> f64 {
        self.bad as u8 as f64
    }
}

/// Deterministic losses: drops the packets whose 0-based index among the packets crossing
/// this link direction is listed (ns-2's `ErrorModel/List` idea). For teaching and for
/// tests that need an exact loss pattern (several losses in one window).
pub struct DropList {
    drop: Vec<u64>,
    next: usize,
    count: u64,
}

impl DropList {
    pub fn new(mut drop: Vec<u64>) -> Self {
        drop.sort_unstable();
        drop.dedup();
        DropList { drop, next: 0, count: 0 }
    }
}

impl LossModel for DropList {
    #[inline]
    fn lose(&mut self, _now: Time, _pkt: &Packet) -> bool {
        let i = self.count;
        self.count += 1;
        if self.drop.get(self.next) == Some(&i) {
            self.next += 1;
            true
        } else {
            false
        }
    }
}

/// Scenario: `{ kind = "bernoulli", p = 0.01 }`.
pub fn parse_bernoulli(o: &mut crate::scenario::Obj, errs: &mut crate::scenario::Errors) -> Option<crate::scenario::LossBuilder> {
    let p = o.req_float("p", 0.0, 1.0, errs)?;
    Some(Box::new(move |rng| Box::new(Bernoulli::new(p, rng))))
}

/// Scenario: `{ kind = "gilbert_elliott", p_gb = 0.01, p_bg = 0.3, loss_good = 0, loss_bad = 1 }`.
pub fn parse_gilbert_elliott(o: &mut crate::scenario::Obj, errs: &mut crate::scenario::Errors) -> Option<crate::scenario::LossBuilder> {
    let p_gb = o.req_float("p_gb", 0.0, 1.0, errs);
    let p_bg = o.req_float("p_bg", 0.0, 1.0, errs);
    let lg = o.float("loss_good", 0.0, 1.0, errs).unwrap_or(0.0);
    let lb = o.float("loss_bad", 0.0, 1.0, errs).unwrap_or(1.0);
    let (p_gb, p_bg) = (p_gb?, p_bg?);
    if p_gb + p_bg <= 0.0 {
        errs.add(o.at("p_bg"), "p_gb and p_bg cannot both be 0");
        return None;
    }
    Some(Box::new(move |rng| Box::new(GilbertElliott::new(p_gb, p_bg, lg, lb, rng))))
}

/// Scenario: `{ kind = "drop_list", packets = [20, 21, 25] }`.
pub fn parse_drop_list(o: &mut crate::scenario::Obj, errs: &mut crate::scenario::Errors) -> Option<crate::scenario::LossBuilder> {
    let Some(v) = o.get("packets") else {
        errs.add(o.at("packets"), "missing required field (a list of packet indices, e.g. [20, 21])");
        return None;
    };
    let list: Option<Vec<u64>> = v.as_array().and_then(|a| a.iter().map(|x| x.as_u64()).collect());
    let Some(list) = list else {
        errs.add(o.at("packets"), format!("expected a list of whole numbers >= 0, got {}", crate::scenario::reader::show(v)));
        return None;
    };
    Some(Box::new(move |_| Box::new(DropList::new(list.clone()))))
}

/// Loss models by scenario name: one line per model.
pub const REGISTRY: &[(&str, crate::scenario::LossParser)] =
    &[("bernoulli", parse_bernoulli), ("gilbert_elliott", parse_gilbert_elliott), ("drop_list", parse_drop_list)];

#[cfg(test)]
mod tests {
    use super::*;
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
    fn drop_list_drops_exactly_the_listed() {
        let mut m = DropList::new(vec![5, 2, 2, 9]);
        let lost = (0..12).filter(|_| m.lose(0, &Packet::default())).count();
        assert_eq!(lost, 3);
        let mut m = DropList::new(vec![0, 3]);
        let pattern: Vec<bool> = (0..5).map(|_| m.lose(0, &Packet::default())).collect();
        assert_eq!(pattern, vec![true, false, false, true, false]);
    }

    #[test]
    fn bernoulli_zero_never_loses() {
        let mut m = Bernoulli::new(0.0, stream(3, "loss"));
        assert!((0..10_000).all(|_| !m.lose(0, &Packet::default())));
    }

    #[test]
    fn gilbert_elliott_is_bursty_with_its_stationary_rate() {
        let mut m = GilbertElliott::new(0.01, 0.25, 0.0, 1.0, stream(5, "ge"));
        let want = m.stationary_loss();
        let n = 2_000_000;
        let mut lost = 0usize;
        let mut bursts = 0usize;
        let mut prev = false;
        for _ in 0..n {
            let l = m.lose(0, &Packet::default());
            if l {
                lost += 1;
                if !prev {
                    bursts += 1;
                }
            }
            prev = l;
        }
        let rate = lost as f64 / n as f64;
        assert!((rate - want).abs() < 0.1 * want, "rate {rate} vs {want}");
        let mean_burst = lost as f64 / bursts as f64;
        assert!((mean_burst - 4.0).abs() < 0.3, "mean burst {mean_burst}");
    }
}
