//! ns-2.35's `Agent/TCP/Sack1` (`tcp-sack1.cc`, with its `ScoreBoardRQ`), as
//! `recovery = "sack1"`: the SACK recovery of every ns-2 study that used SACK.
//!
//! It differs from RFC 6675 (`recovery = "sack"`) in ways that change packet timings:
//!
//! - A duplicate ACK counts towards the fast retransmit only if it adds SACK information;
//!   the third such ACK sends the retransmission and nothing else.
//! - `pipe` is a counter, not computed from the scoreboard: at the fast retransmit it is
//!   the packets outstanding minus `dupthresh` (lost packets count as in flight, the
//!   retransmission does not); every ACK in recovery takes one off, a partial ACK two,
//!   every packet sent adds one. While `pipe < ⌊cwnd⌋` the sender sends.
//! - What it sends: the lowest un-SACKed segment above the last one retransmitted that has
//!   *any* SACKed data above it (no `IsLost` test), each once per recovery, then new data
//!   within the receiver's window. A lost retransmission therefore ends in a timeout.
//! - cwnd is halved once and stays so through recovery; the ACK that ends recovery does not
//!   grow it, and `recover` returns to 0 (so `bug_fix` only guards after a timeout).
//! - Every partial ACK re-arms the retransmission timer and clears the back-off.
//! - New ACKs outside recovery clear the scoreboard; after a timeout it is cleared too, and
//!   duplicate ACKs are ignored until a new ACK: go-back-N resends SACKed data.

use super::sender::TcpSender;
use crate::agent::Ctx;
use crate::cc::AckInfo;
use crate::cc::CongestionControl;
use crate::packet::Packet;

/// Sack1's own state beside the sender's.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sack1State {
    /// ns-2 `pipe_`, in packets (meaningful in recovery only).
    pub pipe: i64,
    /// ns-2 `h_seqno_`: no hole below this is retransmitted again (bytes).
    pub h_seq: u64,
    /// ns-2 `timeout_`: a timeout happened and no new ACK has arrived since.
    pub after_timeout: bool,
}

impl<C: CongestionControl> TcpSender<C> {
    /// Adds an ACK's SACK blocks to the scoreboard (after forgetting what the cumulative ACK
    /// covers); true if the SACKed total changed (ns-2 `CheckUpdate`).
    fn sack1_absorb(&mut self, p: &Packet) -> bool {
        let before = self.sb.sacked_bytes();
        self.sb.advance(self.snd_una);
        for i in 0..p.nsack as usize {
            let (start, end) = p.sack_block(i);
            if end > self.snd_una {
                self.sb.add(start.max(self.snd_una), end);
            }
        }
        self.sb.sacked_bytes() != before
    }

    fn sack1_forget(&mut self) {
        self.sb.clear();
        self.s1.h_seq = 0;
    }

    /// ns-2 `Sack1TcpAgent::recv` for every ACK once the connection is open.
    pub(super) fn sack1_on_ack(&mut self, ctx: &mut Ctx, p: &Packet, info: &mut AckInfo) {
        let ack = p.ack;
        if self.in_recovery {
            self.s1.pipe -= 1;
            if ack >= self.recover {
                // Recovery ends: no growth on this ACK; the scoreboard starts afresh.
                self.sack1_forget();
                self.s1.after_timeout = false;
                self.on_new_ack(ctx, ack, info);
                self.recover = 0;
                return;
            }
            if ack > self.snd_una {
                // Partial ACK: the timer restarts (at the current back-off, which then clears).
                self.snd_una = ack;
                self.snd_nxt = self.snd_nxt.max(ack);
                self.sack1_absorb(p);
                self.s1.pipe -= 1;
                self.arm_rto(ctx);
                self.rtt.clear_backoff();
            } else if !self.s1.after_timeout {
                self.sack1_absorb(p);
            }
            return self.sack1_send(ctx);
        }
        if ack > self.snd_una {
            self.sack1_forget();
            self.s1.after_timeout = false;
            return self.on_new_ack(ctx, ack, info);
        }
        if ack != self.snd_una || self.s1.after_timeout || self.snd_max <= self.snd_una || !self.sack1_absorb(p) {
            return;
        }
        self.dupacks += 1;
        if self.dupacks == self.cfg.dupthresh {
            self.sack1_fast_retransmit(ctx);
        } else if self.dupacks < self.cfg.dupthresh && self.cfg.limited_transmit {
            self.send_one(ctx);
        }
    }

    /// ns-2 `Sack1TcpAgent::dupack_action`.
    fn sack1_fast_retransmit(&mut self, ctx: &mut Ctx) {
        // bugFix_: after a timeout, only an ACK beyond its `recover` (or of the SYN alone).
        if self.cfg.bug_fix && self.snd_una <= self.recover && self.recover > 0 && self.snd_una > 0 {
            return;
        }
        let mss = self.mss();
        self.recover = self.snd_max;
        let counted = if self.cfg.sack1_pipe_from_cwnd {
            crate::units::floor(self.cc.cwnd()) as i64
        } else {
            (self.snd_max - self.snd_una).div_ceil(mss) as i64
        };
        self.s1.pipe = counted - self.cfg.dupthresh as i64;
        self.timed = None;
        self.arm_rto(ctx);
        self.in_recovery = true;
        self.s1.h_seq = self.snd_una + mss;
        self.reduce_window(ctx);
        self.retransmit_una(ctx);
    }

    /// ns-2 `Sack1TcpAgent::send_much` in recovery: holes first, in order, then new data,
    /// while `pipe < ⌊cwnd⌋`.
    pub(super) fn sack1_send(&mut self, ctx: &mut Ctx) {
        let mss = self.mss();
        let mut burst = if self.cfg.max_burst > 0 { self.cfg.max_burst } else { u32::MAX };
        while burst > 0 && self.s1.pipe < self.cc.cwnd() as i64 && self.snd_una < self.app_limit {
            if !self.pace_ok(ctx) {
                break;
            }
            let wnd_end = self.snd_una + self.rwnd;
            let s = self.sb.next_unsacked(self.s1.h_seq.max(self.snd_una));
            if s < self.sb.high() {
                self.s1.h_seq = self.s1.h_seq.max(s);
                if s + mss > wnd_end {
                    break;
                }
                let len = mss.min(self.sb.next_block_start(s) - s).min(self.snd_max - s);
                self.send_segment(ctx, s, len as u32);
                self.s1.h_seq = s + mss;
                self.paced(ctx, len as u32);
            } else if self.snd_max + mss <= wnd_end && self.snd_max < self.app_limit {
                let len = mss.min(self.app_limit - self.snd_max);
                let seq = self.snd_max;
                self.send_segment(ctx, seq, len as u32);
                self.snd_nxt = self.snd_max;
                self.paced(ctx, len as u32);
            } else {
                break;
            }
            self.s1.pipe += 1;
            burst -= 1;
        }
    }

    /// A timeout: the scoreboard is cleared and duplicate ACKs are ignored until a new ACK.
    pub(super) fn sack1_on_timeout(&mut self) {
        self.sack1_forget();
        self.s1.after_timeout = true;
    }
}
