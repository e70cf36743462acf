//! Multicast replication: at a node where a multicast group's tree branches, a packet
//! addressed to the group leaves as one copy per branch (the original on the last). Other
//! packets, and group packets where the tree does not branch, pass on unchanged.

use super::{ElemCtx, Element, ElementConfig, Pkt};
use crate::config::{Errors, Obj};
use crate::rng::SimRng;
use std::sync::Arc;

/// `kind = "replicate"`: no parameters (the branches come from the groups' trees).
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct ReplicateConfig {}

impl ElementConfig for ReplicateConfig {
    fn kind(&self) -> &'static str {
        "replicate"
    }
    fn build(&self, _rng: SimRng) -> Box<dyn Element> {
        Box::new(Replicate { replicated: 0, branches: Vec::new() })
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
    fn replicates(&self) -> bool {
        true
    }
}

/// No fields to parse.
pub fn parse(_o: &mut Obj, _errs: &mut Errors) -> Option<Arc<dyn ElementConfig>> {
    Some(Arc::new(ReplicateConfig {}))
}

pub struct Replicate {
    replicated: u64,
    branches: Vec<u32>,
}

impl Element for Replicate {
    fn on_packet(&mut self, ctx: &mut ElemCtx, p: Pkt) {
        let dst = ctx.packet(&p).dst;
        self.branches.clear();
        self.branches.extend_from_slice(ctx.group_branches(dst));
        if self.branches.len() < 2 {
            return ctx.pass(p);
        }
        self.replicated += 1;
        let last = self.branches.len() - 1;
        for i in 0..last {
            let copy = ctx.replicate(&p);
            ctx.send_on(self.branches[i], copy);
        }
        ctx.send_on(self.branches[last], p);
    }
    fn summary(&self, _now: crate::units::Time) -> Vec<(&'static str, f64)> {
        vec![("replicated_pkts", self.replicated as f64)]
    }
    fn restart_counters(&mut self, _now: crate::units::Time) {
        self.replicated = 0;
    }
}
