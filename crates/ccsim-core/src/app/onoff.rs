//! On/off datagram source: during ON periods it sends at `rate` like CBR, during OFF it is
//! silent. Period lengths are drawn from exponential, Pareto or constant distributions
//! (ns-2 `Application/Traffic/Exponential` and `/Pareto` draw burst and idle times the same
//! way, with burst lengths counted in packets; here they are times).

use crate::agent::{Agent, Ctx, FlowConfig};
use crate::config::{Errors, Obj};
use crate::packet::Packet;
use crate::rng::{exponential, pareto, SimRng};
use crate::units::{secs, Time};
use std::sync::Arc;

const SEND: u16 = 0;
const TOGGLE: u16 = 1;

/// A distribution of period lengths (seconds).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Period {
    Constant(f64),
    Exponential { mean: f64 },
    Pareto { mean: f64, shape: f64 },
}

impl Period {
    /// The mean length, in seconds.
    fn mean(&self) -> f64 {
        match *self {
            Period::Constant(v) => v,
            Period::Exponential { mean } | Period::Pareto { mean, .. } => mean,
        }
    }

    fn draw(&self, rng: &mut SimRng) -> Time {
        let s = match *self {
            Period::Constant(v) => v,
            Period::Exponential { mean } => exponential(rng, mean),
            Period::Pareto { mean, shape } => pareto(rng, mean, shape),
        };
        secs(s).max(1)
    }
}

pub struct OnOff {
    rate_bps: u64,
    size: u32,
    on: Period,
    off: Period,
    rng: SimRng,
    rem: u64,
    is_on: bool,
    running: bool,
    token: u32,
    seq: u64,
}

impl OnOff {
    pub fn new(rate_bps: u64, size: u32, on: Period, off: Period, rng: SimRng) -> Self {
        OnOff { rate_bps, size, on, off, rng, rem: 0, is_on: false, running: false, token: 0, seq: 0 }
    }

    fn send_one(&mut self, ctx: &mut Ctx) {
        let (size, seq) = (self.size, self.seq);
        ctx.send_with(|p| {
            p.size = size;
            p.payload = size;
            p.seq = seq;
        });
        self.seq += 1;
        let g = super::gap(self.size, self.rate_bps, &mut self.rem);
        ctx.timer_at(ctx.now + g.max(1), SEND, self.token);
    }

    fn begin_on(&mut self, ctx: &mut Ctx) {
        self.is_on = true;
        let len = self.on.draw(&mut self.rng);
        ctx.timer_at(ctx.now + len, TOGGLE, self.token);
        self.send_one(ctx);
    }
}

impl Agent for OnOff {
    fn start(&mut self, ctx: &mut Ctx) {
        self.running = true;
        self.begin_on(ctx);
    }
    fn stop(&mut self, _ctx: &mut Ctx) {
        self.running = false;
        self.token = self.token.wrapping_add(1);
    }
    fn on_packet(&mut self, _ctx: &mut Ctx, _pkt: &Packet) {}
    fn on_timer(&mut self, ctx: &mut Ctx, kind: u16, token: u32) {
        if token != self.token || !self.running {
            return;
        }
        match kind {
            SEND if self.is_on => self.send_one(ctx),
            TOGGLE if self.is_on => {
                // ON ends: invalidate the pending SEND, schedule the next ON.
                self.is_on = false;
                self.token = self.token.wrapping_add(1);
                let len = self.off.draw(&mut self.rng);
                ctx.timer_at(ctx.now + len, TOGGLE, self.token);
            }
            TOGGLE => self.begin_on(ctx),
            _ => {}
        }
    }
    fn probe_names(&self) -> Vec<&'static str> {
        vec!["on"]
    }
    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.is_on as u8 as f64);
    }
}
/// `kind = "onoff"`: `rate` while on (required), `packet_size` (default 1000 B), `on_mean`
/// and `off_mean` (default 0.5 s each, as ns-2), `distribution` = exponential (default) |
/// pareto | constant, `shape` (Pareto, default 1.5).
#[derive(Clone, Debug, serde::Serialize)]
pub struct OnOffConfig {
    pub rate_bps: u64,
    pub packet_size: u32,
    pub on: Period,
    pub off: Period,
}

impl FlowConfig for OnOffConfig {
    fn kind(&self) -> &'static str {
        "onoff"
    }
    fn build(&self, rng: SimRng, _size: Option<u64>, receivers: usize) -> (Box<dyn Agent>, Vec<Box<dyn Agent>>) {
        let sinks = (0..receivers).map(|_| Box::new(super::DatagramSink::default()) as Box<dyn Agent>).collect();
        (Box::new(OnOff::new(self.rate_bps, self.packet_size, self.on, self.off, rng)), sinks)
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
    fn largest_packet(&self) -> Option<u64> {
        Some(self.packet_size as u64)
    }
    fn smallest_packet(&self, _drawn_size: bool) -> Option<u64> {
        Some(self.packet_size as u64)
    }
    /// At most: the rate all the time, and a packet more per burst: each on period begins with
    /// a packet however short it is (bursts of a nanosecond at 1 Mb/s had been counted as
    /// 83 packets a second, not the 5·10⁸ they send).
    fn offered_packets(&self, secs: f64) -> Option<f64> {
        let cycle = self.on.mean().max(1e-9) + self.off.mean().max(1e-9);
        Some(self.rate_bps as f64 / 8.0 * secs / self.packet_size.max(1) as f64 + secs / cycle)
    }
    fn max_receivers(&self) -> usize {
        usize::MAX
    }
}

/// Parses `rate`, `packet_size`, `on_mean`, `off_mean`, `distribution`, `shape`.
pub fn parse(o: &mut Obj, errs: &mut Errors) -> Option<Arc<dyn FlowConfig>> {
    let rate = o.req_rate("rate", errs);
    let packet_size = o.size("packet_size", errs).unwrap_or(super::DEFAULT_PACKET_SIZE);
    let on = o.time("on_mean", errs).unwrap_or(500_000_000);
    let off = o.time("off_mean", errs).unwrap_or(500_000_000);
    let dist = o.choice("distribution", &["exponential", "pareto", "constant"], Some("exponential"), errs);
    let shape = o.float("shape", 1.0001, 100.0, errs).unwrap_or(1.5);
    if on == 0 {
        errs.add(o.at("on_mean"), "must be greater than 0");
    }
    let (rate_bps, dist) = (rate?, dist?);
    let mk = move |mean: u64| {
        let m = crate::units::to_secs(mean);
        match dist {
            "pareto" => Period::Pareto { mean: m, shape },
            "constant" => Period::Constant(m),
            _ => Period::Exponential { mean: m },
        }
    };
    Some(Arc::new(OnOffConfig { rate_bps, packet_size, on: mk(on), off: mk(off) }))
}
