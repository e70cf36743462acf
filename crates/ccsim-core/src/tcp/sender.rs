//! The TCP sender: byte sequence numbers, window = min(cwnd, rwnd), RTT sampling (Karn, or
//! timestamps), RTO with back-off and go-back-N, and four loss-recovery variants:
//!
//! - **Tahoe**: on the 3rd duplicate ACK, ssthresh from the controller, cwnd = 1,
//!   retransmit and slow start from the first unacknowledged segment.
//! - **Reno**: fast retransmit + fast recovery (`cwnd = ssthresh`, inflation `dupwnd = 3`,
//!   +1 per further dupACK); the first new ACK ends recovery. As ns-2 (`bugFix_`), no new
//!   fast retransmit until the ACK passes `recover`, so several losses in one window usually
//!   end in a timeout.
//! - **NewReno** (RFC 6582, ns-2 `Agent/TCP/Newreno`): partial ACKs retransmit the next
//!   hole and deflate (`dupwnd` accounting as ns-2), the RTO timer restarts on the first
//!   partial ACK only; a full ACK (≥ `recover`) ends recovery with cwnd = ssthresh.
//! - **SACK** (RFC 6675): scoreboard, `IsLost`, `pipe`; while `cwnd − pipe ≥ 1 MSS` send
//!   the next lost hole, else new data; recovery ends when the ACK reaches `recover`.
//!
//! With `prr` (Proportional Rate Reduction, RFC 9937, which obsoletes RFC 6937; Linux's and
//! ns-3's default), how much Reno, NewReno or SACK recovery sends is set by PRR instead of
//! window inflation (Reno/NewReno) or `cwnd − pipe` (SACK): on each ACK in recovery,
//! `sndcnt = ⌈prr_delivered · ssthresh / RecoverFS⌉ − prr_out` while `pipe > ssthresh`,
//! else `min(ssthresh − pipe, max(prr_delivered − prr_out, DeliveredData) [+ MSS on a safe
//! ACK])`, at least one segment for the fast retransmit. Without SACK, each duplicate ACK
//! counts as one delivered segment (Linux's `sacked_out` for Reno) and `pipe` is the data
//! outstanding minus those segments. NewReno's retransmission on a partial ACK is sent
//! whatever `sndcnt` (as ns-3) and counts in `prr_out`.
//!
//! The congestion controller ([`crate::cc`]) only sets the window; the recovery logic
//! here is the same for every controller.

use super::rtt::RttEstimator;
use super::sack::Scoreboard;
use super::{Recovery, TcpConfig};
use crate::agent::{Agent, Ctx};
use crate::cc::{AckInfo, CcInit, CongestionControl, LossInfo};
use crate::packet::{Kind, Packet};
use crate::rng::{Rng, SimRng};
use crate::units::{to_secs, Time};
use std::sync::Arc;

const TIMER_RTO: u16 = 0;
const TIMER_PACE: u16 = 1;

pub struct TcpSender {
    cfg: Arc<TcpConfig>,
    /// Only kept when `overhead` needs random draws (a ChaCha state is ~300 bytes per flow).
    rng: Option<Box<SimRng>>,
    cc: Box<dyn CongestionControl>,
    rtt: RttEstimator,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    /// Bytes the application has made available (u64::MAX = infinite).
    app_limit: u64,
    rwnd: u64,
    dupacks: u32,
    in_recovery: bool,
    recover: u64,
    dupwnd: f64,
    first_partial: bool,
    sb: Scoreboard,
    high_rxt: u64,
    /// Karn timing when timestamps are off: (end sequence of the timed segment, send time).
    timed: Option<(u64, Time)>,
    rto_deadline: Option<Time>,
    rto_event_at: Option<Time>,
    rto_token: u32,
    pace_next: Time,
    pace_pending: bool,
    /// With `handshake`: whether the SYN-ACK has arrived, and when the SYN now in flight
    /// was first sent (None once it was retransmitted: Karn).
    established: bool,
    syn_sent_at: Option<Time>,
    syn_retries: u64,
    /// PRR state of the current recovery.
    prr: Prr,
    /// Without SACK, with PRR: segments above `snd_una` known delivered from duplicate ACKs.
    reno_sacked: u64,
    /// With SACK and PRR: SACKed bytes before the current ACK, and whether its blocks added any.
    sacked_before: u64,
    sack_grew: bool,
    // Statistics.
    retrans_pkts: u64,
    retrans_bytes: u64,
    timeouts: u64,
    fast_retransmits: u64,
    done_at: Option<Time>,
    started_at: Time,
    sum_rto: f64,
    n_rto: u64,
    /// Start of the current loss episode (fast retransmit until the ACK covers `recover`).
    episode_since: Option<Time>,
    episode_ns: u64,
    episodes: u64,
}

/// Proportional Rate Reduction (RFC 9937) accounting of one recovery: bytes delivered to
/// the receiver and bytes sent since it began, and the pipe when it began (RecoverFS).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    pub delivered: u64,
    pub out: u64,
    pub recover_fs: u64,
}

impl Prr {
    /// Adds an ACK's `delivered` bytes and returns `sndcnt`, the bytes it lets the sender
    /// transmit (≤ 0: nothing): proportional to the delivered data while `pipe > ssthresh`,
    /// else the reduction bound (conservative, plus one segment on a safe ACK), and at least
    /// one segment before anything was sent (the fast retransmission).
    pub fn sndcnt(&mut self, delivered: u64, pipe: u64, ssthresh: u64, mss: u64, safe_ack: bool) -> i64 {
        self.delivered += delivered;
        let out = self.out as i64;
        let snd = if pipe > ssthresh {
            // ⌈prr_delivered · ssthresh / RecoverFS⌉ − prr_out.
            let fs = self.recover_fs.max(1) as u128;
            (self.delivered as u128 * ssthresh as u128).div_ceil(fs) as i64 - out
        } else {
            let limit = (self.delivered as i64 - out).max(delivered as i64) + if safe_ack { mss as i64 } else { 0 };
            limit.min(ssthresh as i64 - pipe as i64)
        };
        if self.out == 0 {
            snd.max(mss as i64)
        } else {
            snd
        }
    }
}

impl TcpSender {
    /// A sender for `bytes` bytes (None: an infinite transfer).
    pub fn new(cfg: Arc<TcpConfig>, rng: SimRng, bytes: Option<u64>) -> Self {
        let cc = cfg.cc.build(CcInit { initial_cwnd: cfg.initial_window, initial_ssthresh: cfg.initial_ssthresh });
        let rtt = RttEstimator::new(cfg.rtt_mode, cfg.min_rto, cfg.max_rto, cfg.initial_rto);
        let app_limit = bytes.unwrap_or(u64::MAX);
        let established = !cfg.handshake;
        TcpSender {
            rng: (cfg.overhead > 0).then(|| Box::new(rng)),
            rwnd: cfg.window_bytes,
            cfg,
            cc,
            rtt,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_limit,
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            dupwnd: 0.0,
            first_partial: false,
            sb: Scoreboard::default(),
            high_rxt: 0,
            timed: None,
            rto_deadline: None,
            rto_event_at: None,
            rto_token: 0,
            pace_next: 0,
            pace_pending: false,
            established,
            syn_sent_at: None,
            syn_retries: 0,
            prr: Prr::default(),
            reno_sacked: 0,
            sacked_before: 0,
            sack_grew: false,
            retrans_pkts: 0,
            retrans_bytes: 0,
            timeouts: 0,
            fast_retransmits: 0,
            done_at: None,
            started_at: 0,
            sum_rto: 0.0,
            n_rto: 0,
            episode_since: None,
            episode_ns: 0,
            episodes: 0,
        }
    }

    fn mss(&self) -> u64 {
        self.cfg.mss as u64
    }

    /// Bytes the window allows beyond `snd_una`.
    fn window_bytes(&self) -> u64 {
        // Truncation is floor for the non-negative window (and NaN or negatives give 1 as
        // floor().max(1.0) would), without a software floor call per ACK.
        let segs = ((self.cc.cwnd() + self.dupwnd) as u64).max(1);
        (segs * self.mss()).min(self.rwnd)
    }

    fn inflight(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    fn loss_info(&self, now: Time) -> LossInfo {
        let rwnd_segs = (self.rwnd / self.mss()).max(1) as f64;
        LossInfo {
            now,
            window: self.cc.cwnd().min(rwnd_segs),
            inflight: self.inflight(),
            mss: self.cfg.mss,
            min_rtt: self.rtt.min_rtt,
            srtt: self.rtt.srtt(),
        }
    }

    // Timers -------------------------------------------------------------------------------

    /// Arms (or re-arms) the retransmission timer to fire one RTO from now. Lazy: at most
    /// one timer event is pending; an early event re-schedules itself to the deadline.
    fn arm_rto(&mut self, ctx: &mut Ctx) {
        let t = self.rtt.timeout();
        self.sum_rto += to_secs(t);
        self.n_rto += 1;
        let deadline = ctx.now + t;
        self.rto_deadline = Some(deadline);
        match self.rto_event_at {
            Some(at) if at <= deadline => {}
            _ => {
                self.rto_token = self.rto_token.wrapping_add(1);
                self.rto_event_at = Some(deadline);
                ctx.timer_at(deadline, TIMER_RTO, self.rto_token);
            }
        }
    }

    fn arm_rto_if_idle(&mut self, ctx: &mut Ctx) {
        if self.rto_deadline.is_none() {
            self.arm_rto(ctx);
        }
    }

    fn cancel_rto(&mut self) {
        self.rto_deadline = None;
    }

    // Sending ------------------------------------------------------------------------------

    fn send_segment(&mut self, ctx: &mut Ctx, seq: u64, len: u32) {
        if self.in_recovery && self.cfg.prr {
            self.prr.out += len as u64;
        }
        let retx = seq < self.snd_max;
        if retx {
            self.retrans_pkts += 1;
            self.retrans_bytes += len as u64;
            // Karn: a retransmission invalidates the timed segment it covers.
            if let Some((end, _)) = self.timed {
                if seq < end {
                    self.timed = None;
                }
            }
        } else if !self.cfg.timestamps && self.timed.is_none() {
            self.timed = Some((seq + len as u64, ctx.now));
        }
        self.cc.on_packet_sent(ctx.now, seq, len, retx);
        let end = seq + len as u64;
        if end > self.snd_max {
            self.snd_max = end;
        }
        let (size, flags) = (len + self.cfg.header_bytes(0), if self.cfg.timestamps { crate::packet::FLAG_TS } else { 0 });
        ctx.send_with(|p| {
            p.kind = Kind::Data;
            p.seq = seq;
            p.payload = len;
            p.size = size;
            p.flags = flags;
        });
        self.arm_rto_if_idle(ctx);
    }

    /// Pacing gate: true if a segment may leave now; otherwise schedules a wake-up.
    fn pace_ok(&mut self, ctx: &mut Ctx) -> bool {
        if (self.cc.pacing_rate().is_none() && self.cfg.overhead == 0) || ctx.now >= self.pace_next {
            return true;
        }
        if !self.pace_pending {
            self.pace_pending = true;
            ctx.timer_at(self.pace_next, TIMER_PACE, 0);
        }
        false
    }

    fn paced(&mut self, ctx: &Ctx, len: u32) {
        if self.cfg.overhead > 0 {
            // ns-2 `overhead_`: a random delay before the next transmission (breaks phase
            // effects of deterministic simulations without reordering).
            let rng = self.rng.as_mut().expect("an rng is kept whenever overhead > 0");
            self.pace_next = ctx.now + rng.gen_range(0..self.cfg.overhead);
        }
        if let Some(rate) = self.cc.pacing_rate() {
            if rate > 0.0 {
                let gap = ((len + self.cfg.header_bytes(0)) as f64 * 8.0 / rate * 1e9) as Time;
                self.pace_next = ctx.now.max(self.pace_next) + gap;
            }
        }
    }

    /// Sends as much as window, receiver window and application data allow (go-back-N
    /// from `snd_nxt`, skipping SACKed ranges).
    fn send_much(&mut self, ctx: &mut Ctx) {
        if self.in_recovery && self.cfg.prr {
            // PRR sends on ACKs only (a pacing wake-up waits for the next ACK, whose
            // `sndcnt` makes up for what was held back).
            return;
        }
        if self.in_recovery && self.cfg.recovery == Recovery::Sack {
            return self.sack_send(ctx, None);
        }
        loop {
            let wnd_end = self.snd_una + self.window_bytes();
            let limit = wnd_end.min(self.app_limit);
            if let Some(end) = self.sb.sacked_end(self.snd_nxt) {
                self.snd_nxt = end;
                continue;
            }
            if self.snd_nxt >= limit {
                break;
            }
            let len = self.mss().min(self.app_limit - self.snd_nxt).min(self.sb.next_block_start(self.snd_nxt) - self.snd_nxt);
            // Whole segments only, unless it is the application's last piece.
            if self.snd_nxt + len > wnd_end && len == self.mss() {
                break;
            }
            if !self.send_next(ctx, len) {
                break;
            }
        }
    }

    /// Sends `len` bytes of new (or go-back-N) data at `snd_nxt` if pacing allows.
    #[inline]
    fn send_next(&mut self, ctx: &mut Ctx, len: u64) -> bool {
        if !self.pace_ok(ctx) {
            return false;
        }
        let seq = self.snd_nxt;
        self.send_segment(ctx, seq, len as u32);
        self.snd_nxt += len;
        self.paced(ctx, len as u32);
        true
    }

    /// RFC 6675 transmission during SACK recovery: while `cwnd − pipe ≥ 1 MSS`, or, with
    /// PRR, while `budget` (bytes) holds a segment.
    fn sack_send(&mut self, ctx: &mut Ctx, mut budget: Option<i64>) {
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

    // Proportional Rate Reduction (RFC 9937) ------------------------------------------------

    /// `pipe`: RFC 6675's with SACK; without it, the data outstanding minus the segments
    /// duplicate ACKs reported delivered.
    fn prr_pipe(&self) -> u64 {
        if self.cfg.recovery == Recovery::Sack {
            self.sb.pipe(self.snd_una, self.snd_max, self.high_rxt, self.cfg.mss, self.cfg.dupthresh)
        } else {
            self.inflight().saturating_sub(self.reno_sacked * self.mss())
        }
    }

    /// Starts a recovery's PRR accounting (before its fast retransmission).
    fn prr_begin(&mut self) {
        self.prr = Prr { recover_fs: self.prr_pipe(), ..Prr::default() };
    }

    /// Adds `delivered` bytes and returns `sndcnt`, the bytes this ACK may send (may be ≤ 0).
    fn prr_sndcnt(&mut self, delivered: u64, safe_ack: bool) -> i64 {
        let ssthresh = (self.cc.ssthresh() * self.mss() as f64).min(u64::MAX as f64 / 4.0) as u64;
        let pipe = self.prr_pipe();
        self.prr.sndcnt(delivered, pipe, ssthresh, self.mss(), safe_ack)
    }

    /// Bytes SACKed by the current ACK, net of those its cumulative ACK absorbed.
    fn sack_delta(&self) -> i64 {
        self.sb.sacked_bytes() as i64 - self.sacked_before as i64
    }

    /// New data within a PRR budget (Reno/NewReno recovery).
    fn prr_send(&mut self, ctx: &mut Ctx, mut budget: i64) {
        loop {
            let limit = self.app_limit.min(self.snd_una + self.rwnd);
            if self.snd_nxt >= limit {
                break;
            }
            let len = self.mss().min(limit - self.snd_nxt);
            // Whole segments only, unless it is the application's last piece.
            if budget < len as i64 || (len < self.mss() && self.snd_nxt + len < self.app_limit) {
                break;
            }
            if !self.send_next(ctx, len) {
                break;
            }
            budget -= len as i64;
        }
    }

    fn retransmit_una(&mut self, ctx: &mut Ctx) {
        let len = self.mss().min(self.snd_max - self.snd_una).min(self.sb.next_block_start(self.snd_una) - self.snd_una);
        if len > 0 {
            let seq = self.snd_una;
            self.send_segment(ctx, seq, len as u32);
            if self.high_rxt < seq + len {
                self.high_rxt = seq + len;
            }
        }
    }

    // ACK processing -----------------------------------------------------------------------

    fn on_new_ack(&mut self, ctx: &mut Ctx, ack: u64, info: &mut AckInfo) {
        let acked = ack - self.snd_una;
        self.snd_una = ack;
        if self.snd_nxt < ack {
            self.snd_nxt = ack;
        }
        if self.high_rxt < ack {
            self.high_rxt = ack;
        }
        self.sb.advance(ack);
        self.dupacks = 0;
        let mut prr_budget: Option<i64> = None;
        if let Some(t0) = self.episode_since {
            if ack >= self.recover {
                self.episode_ns += ctx.now - t0;
                self.episode_since = None;
            }
        }
        let mut restart_timer = true;
        if self.in_recovery {
            if ack >= self.recover {
                self.in_recovery = false;
                self.dupwnd = 0.0;
                self.cc.on_recovery_end(ctx.now);
            } else {
                match self.cfg.recovery {
                    Recovery::Reno | Recovery::Tahoe => {
                        self.in_recovery = false;
                        self.dupwnd = 0.0;
                        self.cc.on_recovery_end(ctx.now);
                    }
                    Recovery::NewReno if self.cfg.prr => {
                        // Partial ACK: what it delivers beyond the segments duplicate ACKs
                        // already counted (at least the retransmitted one), then the next hole.
                        let d = acked.div_ceil(self.mss());
                        let delivered = d.saturating_sub(self.reno_sacked).max(1) * self.mss();
                        self.reno_sacked = self.reno_sacked.saturating_sub(d - 1);
                        let snd = self.prr_sndcnt(delivered, false);
                        let out0 = self.prr.out;
                        self.retransmit_una(ctx);
                        prr_budget = Some(snd - (self.prr.out - out0) as i64);
                        restart_timer = self.first_partial;
                        self.first_partial = false;
                    }
                    Recovery::NewReno => {
                        // Partial ACK: retransmit the next hole, deflate by the acked amount.
                        let d = (acked as f64 / self.mss() as f64).ceil();
                        if self.dupwnd > d {
                            self.dupwnd -= d - 1.0;
                        } else {
                            let c = (self.cc.cwnd() - (d - self.dupwnd)).max(1.0);
                            self.cc.set_cwnd(c);
                            self.dupwnd = 1.0;
                        }
                        self.retransmit_una(ctx);
                        restart_timer = self.first_partial;
                        self.first_partial = false;
                    }
                    Recovery::Sack if self.cfg.prr => {
                        // Safe: the ACK reports no further loss (no new SACKed data).
                        let delivered = (acked as i64 + self.sack_delta()).max(0) as u64;
                        prr_budget = Some(self.prr_sndcnt(delivered, !self.sack_grew));
                    }
                    Recovery::Sack => {}
                }
            }
        } else {
            self.reno_sacked = 0;
            info.acked_bytes = acked;
            info.acked_segs = if self.cfg.abc { acked as f64 / self.mss() as f64 } else { 1.0 };
            self.cc.on_ack(info);
        }
        if self.snd_una >= self.snd_max {
            self.cancel_rto();
        } else if restart_timer {
            self.arm_rto(ctx);
        }
        if self.done_at.is_none() && self.snd_una >= self.app_limit {
            self.done_at = Some(ctx.now);
        }
        match prr_budget {
            Some(b) if self.cfg.recovery == Recovery::Sack => self.sack_send(ctx, Some(b)),
            Some(b) => self.prr_send(ctx, b),
            None => self.send_much(ctx),
        }
    }

    fn on_dupack(&mut self, ctx: &mut Ctx) {
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
                Recovery::Tahoe => {}
            }
            return;
        }
        let lost_una = self.cfg.recovery == Recovery::Sack && self.sb.lost_boundary(self.cfg.mss, self.cfg.dupthresh) > self.snd_una;
        if self.dupacks != self.cfg.dupthresh && !(lost_una && self.dupacks < self.cfg.dupthresh) {
            return;
        }
        // ns-2 bugFix_ / RFC 6582: no new fast retransmit for losses of a window already
        // recovered from: the ACK must cover data sent after `recover` was set (ns-2:
        // `highest_ack_ > recover_`). Duplicate ACKs for exactly `recover` are what a
        // go-back-N after a timeout provokes when it resends data the receiver already
        // holds (RFC 6582, section 4). `recover` is 0 until the first loss episode.
        if self.snd_una < self.recover || (self.snd_una == self.recover && self.recover > 0) {
            return;
        }
        self.fast_retransmits += 1;
        self.episodes += 1;
        self.episode_since = Some(ctx.now);
        let info = self.loss_info(ctx.now);
        self.cc.on_congestion(&info);
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
            Recovery::Sack => {
                self.in_recovery = true;
                self.high_rxt = self.snd_una;
                self.retransmit_una(ctx);
                self.arm_rto(ctx);
                self.sack_send(ctx, None);
            }
        }
    }

    /// Sends the SYN (the connection's first segment, no data) and arms its timer: the RTO
    /// (the initial RTO, doubled for each retransmission).
    fn send_syn(&mut self, ctx: &mut Ctx) {
        let (size, flags) = (self.cfg.header_bytes(0), if self.cfg.timestamps { crate::packet::FLAG_TS } else { 0 });
        ctx.send_with(|p| {
            p.kind = Kind::Control;
            p.flags = flags | crate::packet::FLAG_SYN;
            p.size = size;
        });
        self.arm_rto(ctx);
    }

    /// The SYN-ACK: the connection is open; its RTT (unless the SYN was retransmitted)
    /// seeds the estimator, and data starts.
    fn on_syn_ack(&mut self, ctx: &mut Ctx, p: &Packet) {
        if self.established {
            return;
        }
        self.established = true;
        if let Some(t) = self.syn_sent_at.take() {
            self.rtt.sample(ctx.now - t);
        }
        if p.wnd > 0 {
            self.rwnd = p.wnd as u64;
        }
        self.cancel_rto();
        self.send_much(ctx);
    }

    fn on_timeout(&mut self, ctx: &mut Ctx) {
        if !self.established {
            // The SYN or the SYN-ACK was lost: back off and send the SYN again.
            self.syn_retries += 1;
            self.syn_sent_at = None;
            self.rtt.back_off();
            return self.send_syn(ctx);
        }
        self.timeouts += 1;
        let info = self.loss_info(ctx.now);
        self.cc.on_timeout(&info);
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

impl Agent for TcpSender {
    fn start(&mut self, ctx: &mut Ctx) {
        self.started_at = ctx.now;
        if !self.established {
            self.syn_sent_at = Some(ctx.now);
            return self.send_syn(ctx);
        }
        self.send_much(ctx);
    }

    fn stop(&mut self, _ctx: &mut Ctx) {
        // The application stops offering new data; what was sent is still delivered.
        self.app_limit = self.app_limit.min(self.snd_max);
    }

    fn on_packet(&mut self, ctx: &mut Ctx, p: &Packet) {
        if p.kind != Kind::Ack {
            return;
        }
        if p.flags & crate::packet::FLAG_SYN != 0 {
            return self.on_syn_ack(ctx, p);
        }
        if !self.established {
            return;
        }
        let ack = p.ack;
        if p.wnd > 0 {
            self.rwnd = p.wnd as u64;
        }
        if self.cfg.recovery == Recovery::Sack {
            self.sacked_before = if self.cfg.prr { self.sb.sacked_bytes() } else { 0 };
            for i in 0..p.nsack as usize {
                let (start, end) = p.sack_block(i);
                if end > self.snd_una {
                    self.sb.add(start.max(self.snd_una), end);
                }
            }
            if self.cfg.prr {
                self.sack_grew = self.sb.sacked_bytes() > self.sacked_before;
            }
        }
        let new = ack > self.snd_una;
        let mut rtt_sample = None;
        if self.cfg.timestamps {
            if new {
                rtt_sample = Some(ctx.now.saturating_sub(p.ts_echo));
            }
        } else if let Some((end, t)) = self.timed {
            if ack >= end {
                rtt_sample = Some(ctx.now - t);
                self.timed = None;
            }
        }
        if let Some(r) = rtt_sample {
            self.rtt.sample(r);
        } else if new && self.cfg.backoff_reset_on_ack {
            // ns-3: every ACK of new data re-arms the timer with the estimator's RTO.
            self.rtt.clear_backoff();
        }
        let mut info = AckInfo {
            now: ctx.now,
            acked_bytes: if new { ack - self.snd_una } else { 0 },
            acked_segs: 0.0,
            rtt: rtt_sample,
            min_rtt: self.rtt.min_rtt,
            srtt: self.rtt.srtt(),
            inflight: self.snd_max - ack.max(self.snd_una),
            mss: self.cfg.mss,
            dup: !new,
            ack,
            ts_echo: p.ts_echo,
            in_recovery: self.in_recovery,
        };
        self.cc.on_ack_received(&info);
        if new {
            self.on_new_ack(ctx, ack, &mut info);
        } else if ack == self.snd_una && self.snd_max > self.snd_una {
            self.on_dupack(ctx);
        }
    }

    fn next_wakeup(&self) -> Option<Time> {
        // A pending RTO event before the deadline only re-arms itself; the deadline counts.
        let rto = self.rto_deadline.unwrap_or(Time::MAX);
        Some(if self.pace_pending { rto.min(self.pace_next) } else { rto })
    }

    fn on_timer(&mut self, ctx: &mut Ctx, kind: u16, token: u32) {
        match kind {
            TIMER_RTO if token == self.rto_token => {
                self.rto_event_at = None;
                match self.rto_deadline {
                    None => {}
                    Some(d) if d > ctx.now => {
                        self.rto_token = self.rto_token.wrapping_add(1);
                        self.rto_event_at = Some(d);
                        ctx.timer_at(d, TIMER_RTO, self.rto_token);
                    }
                    Some(_) => {
                        self.rto_deadline = None;
                        if self.snd_una < self.snd_max || !self.established {
                            self.on_timeout(ctx);
                        }
                    }
                }
            }
            TIMER_PACE => {
                self.pace_pending = false;
                self.send_much(ctx);
            }
            _ => {}
        }
    }

    fn probe_names(&self) -> Vec<&'static str> {
        let mut v = vec!["cwnd", "ssthresh", "srtt_s", "rto_s", "inflight_bytes", "retransmits", "timeouts"];
        v.extend_from_slice(self.cc.probe_names());
        v
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.cc.cwnd() + self.dupwnd);
        out.push(self.cc.ssthresh());
        out.push(to_secs(self.rtt.srtt()));
        out.push(to_secs(self.rtt.timeout()));
        out.push(self.inflight() as f64);
        out.push(self.retrans_pkts as f64);
        out.push(self.timeouts as f64);
        self.cc.probe(out);
    }

    fn summary(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("retransmitted_pkts", self.retrans_pkts as f64),
            ("retransmitted_bytes", self.retrans_bytes as f64),
            ("timeouts", self.timeouts as f64),
            ("fast_retransmits", self.fast_retransmits as f64),
            ("syn_retries", self.syn_retries as f64),
            ("mean_rtt_s", self.rtt.mean_rtt()),
            ("min_rtt_s", if self.rtt.min_rtt > 0 { to_secs(self.rtt.min_rtt) } else { f64::NAN }),
            ("mean_rto_s", if self.n_rto > 0 { self.sum_rto / self.n_rto as f64 } else { f64::NAN }),
            ("final_cwnd", self.cc.cwnd()),
            ("mean_recovery_s", if self.episodes > 0 { self.episode_ns as f64 / 1e9 / self.episodes as f64 } else { f64::NAN }),
            ("completion_s", self.done_at.map(|t| to_secs(t - self.started_at)).unwrap_or(f64::NAN)),
        ]
        .into_iter()
        .chain(self.cc.summary())
        .collect()
    }

    fn tables(&mut self) -> Vec<(&'static str, crate::measure::Table)> {
        self.cc.tables()
    }
}

#[cfg(test)]
mod tests {
    use super::Prr;

    /// RFC 9937's basic case: one loss in a 20-segment window, ssthresh 10. PRR sends one
    /// segment per two delivered while pipe > ssthresh (the fast retransmission first), so
    /// that pipe falls smoothly to ssthresh, then one per delivered (conservative bound).
    #[test]
    fn prr_sends_in_proportion_then_holds_pipe_at_ssthresh() {
        let mss = 1000;
        // 19 of 20 outstanding segments remain in the network when recovery begins.
        let mut prr = Prr { recover_fs: 19 * mss, ..Prr::default() };
        let (mut pipe, mut sent) = (19 * mss, Vec::new());
        for _ in 0..19 {
            // Each duplicate ACK delivers one segment: it leaves the pipe.
            pipe -= mss;
            let mut budget = prr.sndcnt(mss, pipe, 10 * mss, mss, false);
            let mut n = 0;
            while budget >= mss as i64 {
                prr.out += mss;
                pipe += mss;
                budget -= mss as i64;
                n += 1;
            }
            sent.push(n);
        }
        // Whole segments of the ⌈k · ssthresh / RecoverFS⌉ bytes allowed after k ACKs: about
        // one per two ACKs, 10 in all (= ssthresh) by the end of the window.
        assert_eq!(sent.iter().sum::<u64>(), 10, "{sent:?}");
        assert_eq!(sent[0], 1, "the fast retransmission goes out on the first ACK");
        let mut total = 0;
        for (k, n) in sent.iter().enumerate().take(15) {
            total += n;
            assert_eq!(total, (((k as u64 + 1) * 10 * mss).div_ceil(19) / mss).max(1), "after {} ACKs: {sent:?}", k + 1);
        }
        assert_eq!(pipe, 10 * mss);
        // Below ssthresh (pipe 5 of 10 segments, after more losses): conservative, one for
        // one; a safe ACK adds one; never beyond ssthresh − pipe.
        // (delivered, out, pipe, safe ACK) in segments → sndcnt in segments.
        for (delivered, out, pipe, safe, want) in [(14, 12, 5, false, 3), (12, 12, 5, false, 1), (12, 12, 5, true, 2), (12, 2, 9, true, 1)]
        {
            let mut p = Prr { recover_fs: 20 * mss, delivered: delivered * mss, out: out * mss };
            assert_eq!(p.sndcnt(mss, pipe * mss, 10 * mss, mss, safe), want * mss as i64, "{delivered} {out} {pipe} {safe}");
        }
    }
}
