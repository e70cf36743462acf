//! On/off datagram source: during ON periods it sends at `rate` like CBR, during OFF it is
//! silent. Period lengths are drawn from exponential, Pareto or constant distributions
//! (ns-2 `Application/Traffic/Exponential` and `/Pareto` draw burst and idle times the same
//! way, with burst lengths counted in packets; here they are times).

use crate::agent::{Agent, Ctx};
use crate::packet::Packet;
use crate::rng::{exponential, pareto, SimRng};
use crate::units::{secs, Time};

const SEND: u16 = 0;
const TOGGLE: u16 = 1;

/// A distribution of period lengths (seconds).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Period {
    Constant(f64),
    Exponential { mean: f64 },
    Pareto { mean: f64, shape: f64 },
}

impl Period {
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
