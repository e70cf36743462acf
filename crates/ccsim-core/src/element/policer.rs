//! A single-rate, two-colour token-bucket policer (RFC 2697's committed bucket alone, as
//! Linux's `police` action): a packet finding its size in tokens (bucket of `burst` bytes
//! filling at `rate`, full at the start) conforms and takes them; one that does not
//! exceeds and is dropped (`policed`) or re-marked with the `exceed_dscp` class and passed
//! on. Conforming packets keep their class unless `conform_dscp` is given.

use super::bucket::TokenBucket;
use super::{ElemCtx, Element, ElementConfig, Pkt};
use crate::config::{Errors, Obj};
use crate::queue::DropReason;
use crate::rng::SimRng;
use crate::units::Time;
use std::sync::Arc;

/// `kind = "policer"`: `rate` and `burst` (bytes) required; `action` = `"drop"` (default)
/// or `"remark"`; `exceed_dscp` (a code point, 0-63 or a name such as `"AF12"`; required
/// with `remark`); `conform_dscp` (optional).
#[derive(Clone, Debug, serde::Serialize)]
pub struct PolicerConfig {
    pub rate_bps: u64,
    pub burst: u64,
    pub action: &'static str,
    pub exceed_dscp: Option<u8>,
    pub conform_dscp: Option<u8>,
}

impl ElementConfig for PolicerConfig {
    fn kind(&self) -> &'static str {
        "policer"
    }
    fn build(&self, _rng: SimRng) -> Box<dyn Element> {
        Box::new(Policer { cfg: self.clone(), bucket: TokenBucket::new(self.rate_bps, self.burst), conform: 0, exceed: 0 })
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
}

/// Parses `rate`, `burst`, `action`, `exceed_dscp`, `conform_dscp`.
pub fn parse(o: &mut Obj, errs: &mut Errors) -> Option<Arc<dyn ElementConfig>> {
    let rate = o.req_rate("rate", errs);
    let burst = o.req_bytes("burst", errs);
    let action = o.choice("action", &["drop", "remark"], Some("drop"), errs);
    let exceed_dscp = o.dscp("exceed_dscp", errs);
    let conform_dscp = o.dscp("conform_dscp", errs);
    if action == Some("remark") && exceed_dscp.is_none() && !o.has("exceed_dscp") {
        errs.add(o.at("exceed_dscp"), "missing required field with action = \"remark\" (the class, 0-63, of out-of-profile packets)");
        return None;
    }
    Some(Arc::new(PolicerConfig { rate_bps: rate?, burst: burst?, action: action?, exceed_dscp, conform_dscp }))
}

pub struct Policer {
    cfg: PolicerConfig,
    bucket: TokenBucket,
    conform: u64,
    exceed: u64,
}

impl Element for Policer {
    fn on_packet(&mut self, ctx: &mut ElemCtx, p: Pkt) {
        self.bucket.refill(ctx.now);
        let size = ctx.packet(&p).size;
        if self.bucket.conforms(size) {
            self.bucket.take(size);
            self.conform += 1;
            if let Some(c) = self.cfg.conform_dscp {
                ctx.packet_mut(&p).dscp = c;
            }
            return ctx.pass(p);
        }
        self.exceed += 1;
        match self.cfg.exceed_dscp {
            Some(c) if self.cfg.action == "remark" => {
                ctx.packet_mut(&p).dscp = c;
                ctx.pass(p)
            }
            _ => ctx.drop(p, DropReason::Policed),
        }
    }
    fn probe_names(&self) -> Vec<&'static str> {
        vec!["tokens_bytes", "conform", "exceed"]
    }
    fn probe(&self, now: Time, out: &mut Vec<f64>) {
        out.extend([self.bucket.bytes_at(now), self.conform as f64, self.exceed as f64]);
    }
    fn summary(&self, _now: crate::units::Time) -> Vec<(&'static str, f64)> {
        vec![("conform_pkts", self.conform as f64), ("exceed_pkts", self.exceed as f64)]
    }
    fn restart_counters(&mut self, _now: Time) {
        (self.conform, self.exceed) = (0, 0);
    }
}
