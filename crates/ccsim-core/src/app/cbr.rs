//! Constant-bit-rate datagram source (ns-2 `Application/Traffic/CBR` over UDP).
//! With `jitter`, each gap is scaled by a uniform factor in [0.5, 1.5) (ns-2 `random_ 1`),
//! keeping the mean rate.

use crate::agent::{Agent, Ctx};
use crate::packet::Packet;
use crate::rng::{Rng, SimRng};

const SEND: u16 = 0;

pub struct Cbr {
    rate_bps: u64,
    size: u32,
    jitter: bool,
    rng: SimRng,
    rem: u64,
    token: u32,
    seq: u64,
}

impl Cbr {
    pub fn new(rate_bps: u64, size: u32, jitter: bool, rng: SimRng) -> Self {
        Cbr { rate_bps, size, jitter, rng, rem: 0, token: 0, seq: 0 }
    }

    fn send_one(&mut self, ctx: &mut Ctx) {
        let (size, seq) = (self.size, self.seq);
        ctx.send_with(|p| {
            p.size = size;
            p.payload = size;
            p.seq = seq;
        });
        self.seq += 1;
        let mut g = super::gap(self.size, self.rate_bps, &mut self.rem);
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
