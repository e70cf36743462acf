//! Loss recovery of the TCP sender: duplicate ACKs (fast retransmit and fast recovery for
//! Tahoe, Reno, NewReno and SACK, with or without PRR), RFC 6675 transmission during SACK
//! recovery, retransmission of the first unacknowledged segment, and timeouts.

use super::sender::TcpSender;
use crate::agent::Ctx;
use crate::cc::CongestionControl;

/// Loss-recovery variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    Tahoe,
    Reno,
    NewReno,
    Sack,
    /// ns-2.35's `Agent/TCP/Sack1`: its own pipe counter and hole rule (see `sack1.rs`).
    Sack1,
}

impl Recovery {
    pub const NAMES: [&'static str; 5] = ["tahoe", "reno", "newreno", "sack", "sack1"];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// Whether the receiver sends SACK blocks for this variant.
    pub fn sack(self) -> bool {
        matches!(self, Recovery::Sack | Recovery::Sack1)
    }
}

impl<C: CongestionControl> TcpSender<C> {
    /// RFC 6675 transmission during SACK recovery: while `cwnd − pipe ≥ 1 MSS`, or, with
    /// PRR, while `budget` (bytes) holds a segment.
    pub(super) fn sack_send(&mut self, ctx: &mut Ctx, mut budget: Option<i64>) {
        let mss = self.cfg.mss;
        let dt = self.cfg.dupthresh;
        loop {
            match budget {
                Some(b) if b < mss as i64 => break,
                Some(_) => {}
                None => {
                    let cwnd = ((self.cc.cwnd() as u64).max(1) * self.mss()).min(self.rwnd);
                    let pipe = self.sb.pipe(self.snd_una, self.snd_max, self.high_rxt, mss, dt);
                    if cwnd < pipe + self.mss() {
                        break;
                    }
                }
            }
            if !self.pace_ok(ctx) {
                break;
            }
            // Rule 1: the first lost hole not yet retransmitted.
            let lost_below = self.sb.lost_boundary(mss, dt);
            let s = self.sb.next_unsacked(self.high_rxt.max(self.snd_una));
            if s < lost_below && s < self.snd_max {
                let len = self.mss().min(self.sb.next_block_start(s) - s).min(self.snd_max - s) as u32;
                self.send_segment(ctx, s, len);
                self.high_rxt = s + len as u64;
                self.paced(ctx, len);
                if let Some(b) = budget.as_mut() {
                    *b -= len as i64;
                }
                continue;
            }
            // Rule 2: new data.
            let limit = self.app_limit.min(self.snd_una + self.rwnd);
            if self.snd_max < limit {
                let len = self.mss().min(limit - self.snd_max) as u32;
                let seq = self.snd_max;
                self.send_segment(ctx, seq, len);
                self.snd_nxt = self.snd_max;
                self.paced(ctx, len);
                if let Some(b) = budget.as_mut() {
                    *b -= len as i64;
                }
                continue;
            }
            break;
        }
    }

    pub(super) fn retransmit_una(&mut self, ctx: &mut Ctx) {
        let len = self.mss().min(self.snd_max - self.snd_una).min(self.sb.next_block_start(self.snd_una) - self.snd_una);
        if len > 0 {
            let seq = self.snd_una;
            self.send_segment(ctx, seq, len as u32);
            if self.high_rxt < seq + len {
                self.high_rxt = seq + len;
            }
        }
    }

    /// Limited transmit (RFC 3042; ns-2 `singledup_`, `TcpAgent::send_one`): on the first
    /// duplicate ACKs, one new segment if the receiver's window allows and no more than
    /// `cwnd + dupacks` segments would be outstanding.
    pub(super) fn send_one(&mut self, ctx: &mut Ctx) {
        let mss = self.mss();
        let outstanding = (self.snd_nxt - self.snd_una).div_ceil(mss);
        let room = self.cc.cwnd() + self.dupacks as f64;
        if self.snd_nxt < self.app_limit && self.snd_nxt + mss <= self.snd_una + self.rwnd && (outstanding + 1) as f64 <= room {
            let len = mss.min(self.app_limit - self.snd_nxt);
            self.send_next(ctx, len);
        }
    }

    pub(super) fn on_dupack(&mut self, ctx: &mut Ctx) {
        self.dupacks += 1;
        if self.cfg.prr && self.cfg.recovery != Recovery::Sack {
            // One more segment above the cumulative ACK has arrived (at most all but one of
            // those outstanding).
            let outstanding = self.inflight().div_ceil(self.mss());
            self.reno_sacked = (self.reno_sacked + 1).min(outstanding.saturating_sub(1));
        }
        if self.in_recovery && self.cfg.prr {
            // RFC 9937: without SACK a duplicate ACK delivers one segment (until the whole
            // RecoverFS is accounted for); with SACK, what its blocks newly cover.
            let delivered = match self.cfg.recovery {
                Recovery::Sack => self.sack_delta().max(0) as u64,
                _ if self.prr.delivered < self.prr.recover_fs => self.mss(),
                _ => 0,
            };
            if delivered > 0 && self.cfg.recovery != Recovery::Tahoe {
                let snd = self.prr_sndcnt(delivered, false);
                if self.cfg.recovery == Recovery::Sack {
                    self.sack_send(ctx, Some(snd));
                } else {
                    self.prr_send(ctx, snd);
                }
            }
            return;
        }
        if self.in_recovery {
            match self.cfg.recovery {
                Recovery::Reno | Recovery::NewReno => {
                    self.dupwnd += 1.0;
                    self.send_much(ctx);
                }
                Recovery::Sack => self.sack_send(ctx, None),
                Recovery::Tahoe | Recovery::Sack1 => {} // Sack1: sack1.rs
            }
            return;
        }
        let lost_una = self.cfg.recovery == Recovery::Sack && self.sb.lost_boundary(self.cfg.mss, self.cfg.dupthresh) > self.snd_una;
        if self.dupacks != self.cfg.dupthresh && !(lost_una && self.dupacks < self.cfg.dupthresh) {
            if self.cfg.limited_transmit && self.dupacks < self.cfg.dupthresh {
                self.send_one(ctx);
            }
            return;
        }
        // ns-2 bugFix_ / RFC 6582: no new fast retransmit for losses of a window already
        // recovered from: the ACK must cover data sent after `recover` was set (ns-2:
        // `highest_ack_ > recover_`). Duplicate ACKs for exactly `recover` are what a
        // go-back-N after a timeout provokes when it resends data the receiver already
        // holds (RFC 6582, section 4). `recover` is 0 until the first loss episode.
        // ns-2 `lessCareful_` (RFC 2582 section 6) accepts an ACK of exactly `recover`.
        let at_recover = self.snd_una == self.recover && self.recover > 0 && !self.cfg.less_careful;
        if self.cfg.bug_fix && (self.snd_una < self.recover || at_recover) {
            return;
        }
        self.reduce_window(ctx);
        self.recover = self.snd_max;
        self.timed = None;
        match self.cfg.recovery {
            Recovery::Tahoe => {
                self.cc.set_cwnd(1.0);
                self.snd_nxt = self.snd_una;
                self.arm_rto(ctx);
                self.send_much(ctx);
            }
            Recovery::Reno | Recovery::NewReno if self.cfg.prr => {
                self.in_recovery = true;
                self.first_partial = true;
                self.dupwnd = 0.0;
                self.prr_begin();
                let snd = self.prr_sndcnt(self.mss(), false);
                self.retransmit_una(ctx);
                self.arm_rto(ctx);
                let left = snd - self.prr.out as i64;
                self.prr_send(ctx, left);
            }
            Recovery::Reno | Recovery::NewReno => {
                self.in_recovery = true;
                self.first_partial = true;
                self.dupwnd = self.cfg.dupthresh as f64;
                self.retransmit_una(ctx);
                self.arm_rto(ctx);
                self.send_much(ctx);
            }
            Recovery::Sack if self.cfg.prr => {
                self.in_recovery = true;
                self.high_rxt = self.snd_una;
                self.prr_begin();
                let snd = self.prr_sndcnt(self.sack_delta().max(0) as u64, false);
                self.retransmit_una(ctx);
                self.arm_rto(ctx);
                let left = snd - self.prr.out as i64;
                self.sack_send(ctx, Some(left));
            }
            Recovery::Sack1 => {} // sack1.rs
            Recovery::Sack => {
                self.in_recovery = true;
                self.high_rxt = self.snd_una;
                self.retransmit_una(ctx);
                self.arm_rto(ctx);
                self.sack_send(ctx, None);
            }
        }
    }

    /// A loss episode starts: the controller sets ssthresh and cwnd from the window, with
    /// ns-2's integer ssthresh and (`precisionReduce_ false`) integer cwnd.
    pub(super) fn reduce_window(&mut self, ctx: &mut Ctx) {
        self.stats.episode_start(ctx.now);
        let info = self.loss_info(ctx.now);
        self.cc.on_congestion(&info);
        self.round_ssthresh();
        if !self.cfg.precision_reduce {
            // ns-2 `precisionReduce_ false`: cwnd = (int)(window() / 2).
            self.cc.set_cwnd(crate::units::floor(self.cc.cwnd()));
        }
    }

    /// The retransmission timer fired: a lost SYN is sent again; otherwise the window
    /// collapses (ssthresh from the controller, cwnd = 1), the back-off doubles, recovery
    /// ends and go-back-N resends from `snd_una`.
    pub(super) fn on_timeout(&mut self, ctx: &mut Ctx) {
        if !self.established {
            // The SYN or the SYN-ACK was lost: back off and send the SYN again.
            self.stats.syn_retries += 1;
            self.syn_sent_at = None;
            self.rtt.back_off();
            return self.send_syn(ctx);
        }
        self.stats.timeouts += 1;
        if self.cfg.recovery == Recovery::Sack1 {
            self.sack1_on_timeout();
        }
        let info = self.loss_info(ctx.now);
        self.cc.on_timeout(&info);
        self.round_ssthresh();
        self.rtt.back_off();
        self.in_recovery = false;
        self.dupwnd = 0.0;
        self.dupacks = 0;
        self.reno_sacked = 0;
        self.recover = self.snd_max;
        self.timed = None;
        self.snd_nxt = self.snd_una;
        self.high_rxt = self.snd_una;
        self.arm_rto(ctx);
        self.send_much(ctx);
    }
}
