//! Deterministic losses at listed packet indices.

use super::{LossConfig, LossModel};
use crate::config::{Errors, Obj};
use crate::packet::Packet;
use crate::rng::SimRng;
use crate::units::Time;
use std::sync::Arc;

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

/// `{ kind = "drop_list", packets = [20, 21, 25] }`: the 0-based indices (among the packets
/// crossing the link direction) of the packets to lose (required).
#[derive(Clone, Debug, serde::Serialize)]
pub struct DropListConfig {
    pub packets: Vec<u64>,
}

impl LossConfig for DropListConfig {
    fn kind(&self) -> &'static str {
        "drop_list"
    }
    fn build(&self, _rng: SimRng) -> Box<dyn LossModel> {
        Box::new(DropList::new(self.packets.clone()))
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
}

/// Parses `packets`.
pub fn parse(o: &mut Obj, errs: &mut Errors) -> Option<Arc<dyn LossConfig>> {
    let Some(v) = o.get("packets") else {
        errs.add(o.at("packets"), "missing required field (a list of packet indices, e.g. [20, 21])");
        return None;
    };
    let list: Option<Vec<u64>> = v.as_array().and_then(|a| a.iter().map(|x| x.as_u64()).collect());
    let Some(packets) = list else {
        errs.add(o.at("packets"), format!("expected a list of whole numbers >= 0, got {}", crate::config::show(v)));
        return None;
    };
    Some(Arc::new(DropListConfig { packets }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Packet;

    #[test]
    fn drop_list_drops_exactly_the_listed() {
        let mut m = DropList::new(vec![5, 2, 2, 9]);
        let lost = (0..12).filter(|_| m.lose(0, &Packet::default())).count();
        assert_eq!(lost, 3);
        let mut m = DropList::new(vec![0, 3]);
        let pattern: Vec<bool> = (0..5).map(|_| m.lose(0, &Packet::default())).collect();
        assert_eq!(pattern, vec![true, false, false, true, false]);
    }
}
