//! When an ACK of new data may grow the window (`cwnd_growth`, [`Growth`]): the sender's
//! side of Linux's `tcp_is_cwnd_limited`, in its 2.6.22 form (`in_flight`, as ns-2.35's
//! TCP-Linux has it) and its current one (`cwnd_limited`, the linux profile's default).
//!
//! Current Linux (`tcp_write_xmit`, `tcp_cwnd_validate`, `tcp_is_cwnd_limited` in
//! `include/net/tcp.h` since Neal Cardwell's 2022 fix): after each transmit opportunity
//! the flow is cwnd-limited if its flight fills cwnd; that verdict holds for the window
//! then outstanding (until `snd_una` passes `cwnd_usage_seq`), a later limited opportunity
//! renews it, and while it is false the largest number of packets out is kept in
//! `max_packets_out`. Each congestion controller's `cong_avoid` returns at once unless the
//! flow was cwnd-limited or, in slow start, cwnd is below twice `max_packets_out`. A flow
//! held by the receiver's window or by its application therefore stops growing cwnd,
//! where ns-2's agents (`always`) keep growing it.

use super::sender::TcpSender;
use crate::cc::CongestionControl;

/// When an ACK of new data may grow the window (`cwnd_growth`): the test a congestion
/// controller's window increase, slow start included, is gated on. The controller's own
/// bookkeeping ([`crate::cc::CongestionControl::on_acked`]) runs on every such ACK either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Growth {
    /// Every ACK of new data outside recovery (ns-2's agents, `control_increase_ 0`).
    Always,
    /// While the packets in flight before the ACK fill cwnd: Linux 2.6.22's
    /// `tcp_is_cwnd_limited(sk, in_flight)` without segmentation offload, as ns-2.35's
    /// TCP-Linux defines it (`in_flight >= snd_cwnd`, the flight taken before the ACK).
    InFlight,
    /// Current Linux's `tcp_is_cwnd_limited`: the last window's sends were limited by cwnd
    /// (`tcp_cwnd_validate` after each transmit opportunity), or, in slow start, cwnd is
    /// below twice the most packets outstanding in that window.
    CwndLimited,
}

impl Growth {
    pub const NAMES: [&'static str; 3] = ["always", "in_flight", "cwnd_limited"];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

impl<C: CongestionControl> TcpSender<C> {
    /// Whether the window may grow on the current ACK (`cwnd_growth`): with `in_flight`,
    /// the flight before the ACK fills cwnd (Linux 2.6.22, ns-2.35's TCP-Linux); with
    /// `cwnd_limited`, Linux's `tcp_is_cwnd_limited`: cwnd limited the last window's sends,
    /// or, in slow start (`tcp_in_slow_start`, on Linux's integer windows), cwnd is below
    /// twice the most packets that window had out.
    pub(super) fn may_grow(&self) -> bool {
        // Linux's integer snd_cwnd and snd_ssthresh (truncation is floor for these).
        let cwnd = self.cc.cwnd() as i64 as u64;
        match self.cfg.growth {
            Growth::Always => true,
            Growth::InFlight => self.prior_flight >= cwnd,
            Growth::CwndLimited => {
                self.cwnd_limited || ((cwnd as f64) < crate::units::floor(self.cc.ssthresh()) && cwnd < 2 * self.max_packets_out)
            }
        }
    }

    /// The segments in flight as this sender fills its window: from `snd_una` up to
    /// `snd_nxt` (after a timeout, only what was sent again). Outside recovery the sender
    /// sends while these stay below cwnd, where Linux and ns-2.35's TCP-Linux fill their
    /// flight less the segments SACKed: measured the sender's own way, a flow held by cwnd
    /// counts as held whatever SACK blocks it has (without SACK, ns-2.35's flight subtracts
    /// nothing either).
    pub(super) fn flight_segs(&self) -> u64 {
        self.snd_nxt.saturating_sub(self.snd_una).div_ceil(self.mss())
    }

    /// What a transmit opportunity leaves for the next ACK's growth (`cwnd_growth =
    /// "cwnd_limited"`), as Linux's `tcp_write_xmit` ends: it was cwnd-limited if the
    /// flight fills cwnd, or, in recovery, if new data is left and the receiver's window
    /// has room for its next segment (Linux's PRR sets cwnd to the flight plus what it may
    /// send, so cwnd is the limit unless something else is). Linux gets there only while
    /// new data waits to be sent, and only if it sent some or was cwnd-limited; then
    /// `tcp_cwnd_validate` keeps the verdict for the window, `cwnd_usage_seq` marking its
    /// end, unless a later opportunity is limited or, while none was, more packets are out.
    pub(super) fn cwnd_validate(&mut self, snd_max_before: u64) {
        if snd_max_before >= self.app_limit {
            return; // nothing new waited: Linux's tcp_write_xmit is not called
        }
        let limited = if self.in_recovery {
            // New data is left and its next segment (a last piece may be shorter) fits the
            // receiver's window.
            let next = self.mss().min(self.app_limit.saturating_sub(self.snd_max));
            next > 0 && self.snd_max + next <= self.snd_una + self.rwnd
        } else {
            self.flight_segs() >= self.cc.cwnd() as i64 as u64
        };
        if !(self.snd_max > snd_max_before || limited) {
            return;
        }
        let packets_out = self.inflight().div_ceil(self.mss());
        if self.snd_una >= self.cwnd_usage_seq || limited || (!self.cwnd_limited && packets_out > self.max_packets_out) {
            self.cwnd_limited = limited;
            self.max_packets_out = packets_out;
            self.cwnd_usage_seq = self.snd_max;
        }
    }

    /// Runs `f`, a transmit opportunity (an ACK, a pacing timer, the start), with `cwnd_growth`'s
    /// bookkeeping around it: the flight before it (`in_flight`), Linux's
    /// `tcp_cwnd_validate` after it (`cwnd_limited`). Always inlined: one copy of the ACK
    /// path, and nothing but two comparisons for `always`.
    #[inline(always)]
    pub(super) fn transmit_opportunity(&mut self, f: impl FnOnce(&mut Self)) {
        let growth = self.cfg.growth;
        // New data sent is what Linux's tcp_write_xmit sends (retransmissions go another way).
        let before = (growth == Growth::CwndLimited).then_some(self.snd_max);
        if growth == Growth::InFlight {
            self.prior_flight = self.flight_segs();
        }
        f(self);
        if let Some(before) = before {
            self.cwnd_validate(before);
        }
    }
}
