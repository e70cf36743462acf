//! Gilbert-Elliott two-state Markov loss (bursty).

use super::{LossConfig, LossModel};
use crate::config::{Errors, Obj};
use crate::packet::Packet;
use crate::rng::{Rng, SimRng};
use crate::units::Time;
use std::sync::Arc;

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

/// `{ kind = "gilbert_elliott", p_gb = 0.01, p_bg = 0.3, loss_good = 0, loss_bad = 1 }`:
/// transition probabilities per packet (required) and the loss probability in each state.
#[derive(Clone, Debug, serde::Serialize)]
pub struct GilbertElliottConfig {
    pub p_gb: f64,
    pub p_bg: f64,
    pub loss_good: f64,
    pub loss_bad: f64,
}

impl LossConfig for GilbertElliottConfig {
    fn kind(&self) -> &'static str {
        "gilbert_elliott"
    }
    fn build(&self, rng: SimRng) -> Box<dyn LossModel> {
        Box::new(GilbertElliott::new(self.p_gb, self.p_bg, self.loss_good, self.loss_bad, rng))
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
}

/// Parses `p_gb`, `p_bg`, `loss_good` (default 0), `loss_bad` (default 1).
pub fn parse(o: &mut Obj, errs: &mut Errors) -> Option<Arc<dyn LossConfig>> {
    let p_gb = o.req_float("p_gb", 0.0, 1.0, errs);
    let p_bg = o.req_float("p_bg", 0.0, 1.0, errs);
    let loss_good = o.float("loss_good", 0.0, 1.0, errs).unwrap_or(0.0);
    let loss_bad = o.float("loss_bad", 0.0, 1.0, errs).unwrap_or(1.0);
    let (p_gb, p_bg) = (p_gb?, p_bg?);
    if p_gb + p_bg <= 0.0 {
        errs.add(o.at("p_bg"), "p_gb and p_bg cannot both be 0");
        return None;
    }
    Some(Arc::new(GilbertElliottConfig { p_gb, p_bg, loss_good, loss_bad }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Packet;
    use crate::rng::stream;

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
