//! Opening the connection (`handshake`): the SYN, its retransmission on the RTO, and the
//! SYN-ACK that starts data (ns-2.35 `syn_` / `delay_growth_`, real stacks).

use super::sender::TcpSender;
use crate::agent::Ctx;
use crate::cc::CongestionControl;
use crate::packet::{Kind, Packet};

impl<C: CongestionControl> TcpSender<C> {
    /// Sends the SYN (the connection's first segment, no data) and arms its timer: the RTO
    /// (the initial RTO, doubled for each retransmission).
    pub(super) fn send_syn(&mut self, ctx: &mut Ctx) {
        let (size, flags) = (self.cfg.header_bytes(0), if self.cfg.timestamps { crate::packet::FLAG_TS } else { 0 });
        let options = crate::packet::syn_options(self.cfg.mss, self.cfg.sack);
        ctx.send_with(|p| {
            p.kind = Kind::Control;
            p.flags = flags | crate::packet::FLAG_SYN;
            p.size = size;
            p.aux = options;
        });
        self.arm_rto(ctx);
    }

    /// The SYN-ACK: the connection is open; its RTT (unless the SYN was retransmitted)
    /// seeds the estimator, and data starts.
    pub(super) fn on_syn_ack(&mut self, ctx: &mut Ctx, p: &Packet) {
        if self.established {
            return;
        }
        self.established = true;
        if let Some(t) = self.syn_sent_at.take() {
            self.rtt.sample_at(ctx.now, ctx.now - t);
        }
        if p.wnd > 0 {
            self.rwnd = p.wnd as u64;
        }
        self.cancel_rto();
        self.send_much(ctx);
    }
}
