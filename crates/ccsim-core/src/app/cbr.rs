//! Constant-bit-rate datagram source (ns-2 `Application/Traffic/CBR` over UDP).
//! With `jitter`, each gap is scaled by a uniform factor in [0.5, 1.5) (ns-2 `random_ 1`),
//! keeping the mean rate.

use crate::agent::{Agent, Ctx, FlowConfig};
use crate::config::{Errors, Obj};
use crate::packet::Packet;
use crate::rng::{Rng, SimRng};
use std::sync::Arc;

const SEND: u16 = 0;

pub struct Cbr {
    rate_bps: u64,
    size: u32,
    /// Bytes left to send in a finite burst (u64::MAX: unlimited).
    left: u64,
    jitter: bool,
    rng: SimRng,
    rem: u64,
    token: u32,
    seq: u64,
}

impl Cbr {
    pub fn new(rate_bps: u64, size: u32, jitter: bool, rng: SimRng) -> Self {
        Cbr { rate_bps, size, left: u64::MAX, jitter, rng, rem: 0, token: 0, seq: 0 }
    }

    /// A burst of `bytes` bytes: full packets, the last one carrying the rest.
    pub fn with_bytes(mut self, bytes: Option<u64>) -> Self {
        self.left = bytes.unwrap_or(u64::MAX);
        self
    }

    fn send_one(&mut self, ctx: &mut Ctx) {
        let size = self.size.min(self.left.min(u32::MAX as u64) as u32);
        let seq = self.seq;
        ctx.send_with(|p| {
            p.size = size;
            p.payload = size;
            p.seq = seq;
        });
        self.seq += 1;
        if self.left != u64::MAX {
            self.left -= size as u64;
            if self.left == 0 {
                ctx.finished();
                return;
            }
        }
        let mut g = super::gap(size, self.rate_bps, &mut self.rem);
        if self.jitter {
            g = (g as f64 * (0.5 + self.rng.gen::<f64>())) as u64;
        }
        ctx.timer_at(ctx.now + g.max(1), SEND, self.token);
    }
}

impl Agent for Cbr {
    fn start(&mut self, ctx: &mut Ctx) {
        self.send_one(ctx);
    }
    fn stop(&mut self, _ctx: &mut Ctx) {
        self.token = self.token.wrapping_add(1);
    }
    fn on_packet(&mut self, _ctx: &mut Ctx, _pkt: &Packet) {}
    fn on_timer(&mut self, ctx: &mut Ctx, kind: u16, token: u32) {
        if kind == SEND && token == self.token {
            self.send_one(ctx);
        }
    }
}

/// `kind = "cbr"`: `rate` (required), `packet_size` (default 1000 B), `jitter` (default
/// false: gaps exactly `packet_size·8/rate`; true: each gap scaled by U[0.5, 1.5), as ns-2's
/// `random_ 1`), `bytes` (default: unlimited; a finite burst, its last packet carrying the
/// rest: a UDP transfer for traffic generators).
#[derive(Clone, Debug, serde::Serialize)]
pub struct CbrConfig {
    pub rate_bps: u64,
    pub packet_size: u32,
    pub jitter: bool,
    pub bytes: Option<u64>,
}

impl FlowConfig for CbrConfig {
    fn kind(&self) -> &'static str {
        "cbr"
    }
    fn build(&self, rng: SimRng, size: Option<u64>, receivers: usize) -> (Box<dyn Agent>, Vec<Box<dyn Agent>>) {
        let sinks = (0..receivers).map(|_| Box::new(super::DatagramSink::default()) as Box<dyn Agent>).collect();
        (Box::new(Cbr::new(self.rate_bps, self.packet_size, self.jitter, rng).with_bytes(size.or(self.bytes))), sinks)
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
    fn largest_packet(&self) -> Option<u64> {
        Some(self.packet_size as u64)
    }
    /// Its packet size, or the last packet of a `bytes` burst that is not a whole number of
    /// packets (that packet carries the rest).
    fn smallest_packet(&self, drawn_size: bool) -> Option<u64> {
        let size = self.packet_size as u64;
        let rest = self.bytes.filter(|_| !drawn_size).map_or(0, |b| b % size.max(1));
        Some(if rest > 0 { rest } else { size })
    }
    fn offered_packets(&self, secs: f64) -> Option<f64> {
        let bytes = self.rate_bps as f64 / 8.0 * secs;
        Some(self.bytes.map_or(bytes, |b| bytes.min(b as f64)) / self.packet_size.max(1) as f64)
    }
    fn max_receivers(&self) -> usize {
        usize::MAX
    }
    fn sized(&self) -> bool {
        true
    }
}

/// Parses `rate`, `packet_size`, `jitter`, `bytes`.
pub fn parse(o: &mut Obj, errs: &mut Errors) -> Option<Arc<dyn FlowConfig>> {
    let rate = o.req_rate("rate", errs);
    let packet_size = o.size("packet_size", errs).unwrap_or(super::DEFAULT_PACKET_SIZE);
    let jitter = o.boolean("jitter", errs).unwrap_or(false);
    let bytes = o.bytes("bytes", errs);
    Some(Arc::new(CbrConfig { rate_bps: rate?, packet_size, jitter, bytes }))
}
