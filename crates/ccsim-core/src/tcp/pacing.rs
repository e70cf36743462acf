//! The TCP sender's pacing gate: a controller that paces (`CongestionControl::paces`), or
//! ns-2's `overhead_` (a random wait after each transmission), holds segments back until
//! `pace_next`; the common case, neither, is decided once (`gated`) and asks nothing.

use super::sender::{TcpSender, TIMER_PACE};
use crate::agent::Ctx;
use crate::cc::CongestionControl;
use crate::rng::Rng;
use crate::units::Time;

impl<C: CongestionControl> TcpSender<C> {
    /// Pacing gate: true if a segment may leave now; otherwise schedules a wake-up.
    #[inline]
    pub(super) fn pace_ok(&mut self, ctx: &mut Ctx) -> bool {
        debug_assert!(self.gated || self.cc.pacing_rate().is_none(), "a controller that paces must say so in `paces`");
        if !self.gated || ctx.now >= self.pace_next || (self.cc.pacing_rate().is_none() && self.cfg.overhead == 0) {
            return true;
        }
        if !self.pace_pending {
            self.pace_pending = true;
            ctx.timer_at(self.pace_next, TIMER_PACE, 0);
        }
        false
    }

    #[inline]
    pub(super) fn paced(&mut self, ctx: &Ctx, len: u32) {
        if self.gated {
            self.paced_gated(ctx, len);
        }
    }

    fn paced_gated(&mut self, ctx: &Ctx, len: u32) {
        if self.cfg.overhead > 0 {
            // ns-2 `overhead_`: a random delay before the next transmission (breaks phase
            // effects of deterministic simulations without reordering).
            let rng = self.rng.as_mut().expect("an rng is kept whenever overhead > 0");
            self.pace_next = ctx.now + rng.gen_range(0..self.cfg.overhead);
        }
        if let Some(rate) = self.cc.pacing_rate() {
            if rate > 0.0 {
                let gap = (self.cfg.data_size(len) as f64 * 8.0 / rate * 1e9) as Time;
                self.pace_next = ctx.now.max(self.pace_next) + gap;
            }
        }
    }
}
