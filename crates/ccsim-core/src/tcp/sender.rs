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

use super::prr::Prr;
use super::rtt::{RttEstimator, RttMode};
use super::sack::Scoreboard;
use super::{Growth, Recovery, TcpConfig};
use crate::agent::{Agent, Ctx};
use crate::cc::{AckInfo, CcInit, CongestionControl, LossInfo};
use crate::packet::{Kind, Packet};
use crate::rng::{Rng, SimRng};
use crate::units::{floor, to_secs, Time};
use std::sync::Arc;

const TIMER_RTO: u16 = 0;
pub(super) const TIMER_PACE: u16 = 1;

/// `C`, the congestion controller, is held inline: the sender of the default controller
/// (Reno) calls it directly; every other one is a `Box<dyn CongestionControl>` (the default).
pub struct TcpSender<C: CongestionControl = Box<dyn CongestionControl>> {
    pub(super) cfg: Arc<TcpConfig>,
    /// Only kept when `overhead` needs random draws (a ChaCha state is ~300 bytes per flow).
    pub(super) rng: Option<Box<SimRng>>,
    pub(super) cc: C,
    pub(super) rtt: RttEstimator,
    pub(super) snd_una: u64,
    pub(super) snd_nxt: u64,
    pub(super) snd_max: u64,
    /// Bytes the application has made available (u64::MAX = infinite).
    pub(super) app_limit: u64,
    pub(super) rwnd: u64,
    pub(super) dupacks: u32,
    pub(super) in_recovery: bool,
    pub(super) recover: u64,
    pub(super) dupwnd: f64,
    pub(super) first_partial: bool,
    pub(super) sb: Scoreboard,
    pub(super) high_rxt: u64,
    /// Karn timing when timestamps are off: (end sequence of the timed segment, send time).
    pub(super) timed: Option<(u64, Time)>,
    pub(super) rto_deadline: Option<Time>,
    pub(super) rto_event_at: Option<Time>,
    pub(super) rto_token: u32,
    pub(super) pace_next: Time,
    pub(super) pace_pending: bool,
    /// Segments may have to wait (the controller paces, or ns-2's `overhead`): decided
    /// once, so that the common case asks nothing per segment.
    pub(super) gated: bool,
    /// With `handshake`: whether the SYN-ACK has arrived, and when the SYN now in flight
    /// was first sent (None once it was retransmitted: Karn).
    pub(super) established: bool,
    pub(super) syn_sent_at: Option<Time>,
    /// PRR state of the current recovery.
    pub(super) prr: Prr,
    /// Without SACK, with PRR: segments above `snd_una` known delivered from duplicate ACKs.
    pub(super) reno_sacked: u64,
    /// With SACK and PRR: SACKed bytes before the current ACK, and whether its blocks added any.
    pub(super) sacked_before: u64,
    pub(super) sack_grew: bool,
    pub(super) done_at: Option<Time>,
    pub(super) started_at: Time,
    /// Report counters (restart at warm-up).
    pub(super) stats: super::stats::SenderStats,
    /// `recovery = "sack1"`: ns-2 Sack1's pipe counter and scoreboard state.
    pub(super) s1: super::sack1::Sack1State,
    /// `cwnd_growth = "cwnd_limited"`: Linux's `is_cwnd_limited`, `max_packets_out` and
    /// `cwnd_usage_seq` (see [`TcpSender::cwnd_validate`]).
    pub(super) cwnd_limited: bool,
    pub(super) max_packets_out: u64,
    pub(super) cwnd_usage_seq: u64,
    /// `cwnd_growth = "in_flight"`: the segments in flight before the current ACK.
    pub(super) prior_flight: u64,
}

impl<C: CongestionControl> TcpSender<C> {
    /// A sender for `bytes` bytes (None: an infinite transfer) with the controller `cc`,
    /// built from `cfg.cc` at [`TcpSender::cc_init`].
    pub fn new(cfg: Arc<TcpConfig>, cc: C, rng: SimRng, bytes: Option<u64>) -> Self {
        let gated = cc.paces() || cfg.overhead > 0;
        let mut rng = rng;
        let mut rtt = RttEstimator::new(cfg.rtt_mode, cfg.min_rto, cfg.max_rto, cfg.initial_rto)
            .with_clamp_after_backoff(cfg.rto_clamp_after_backoff);
        if let (RttMode::Ns2 { tick }, false) = (cfg.rtt_mode, cfg.timestamps) {
            // ns-2's TcpAgent::reset: boot_time_ = Random::uniform(tcp_tick_).
            let boot = cfg.boot_time.unwrap_or_else(|| rng.gen_range(0..tick));
            rtt = rtt.with_tick_clock(boot);
        }
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
            gated,
            established,
            syn_sent_at: None,
            prr: Prr::default(),
            reno_sacked: 0,
            sacked_before: 0,
            sack_grew: false,
            done_at: None,
            started_at: 0,
            stats: Default::default(),
            s1: Default::default(),
            cwnd_limited: false,
            max_packets_out: 0,
            cwnd_usage_seq: 0,
            prior_flight: 0,
        }
    }

    /// What a sender's controller starts from.
    pub fn cc_init(cfg: &TcpConfig) -> CcInit {
        CcInit { initial_cwnd: cfg.initial_window, initial_ssthresh: cfg.initial_ssthresh, timestamps: cfg.timestamps }
    }

    /// Window growth on an ACK of new data, capped at `max_cwnd` (ns-2 `maxcwnd_`): the
    /// controller's bookkeeping, then its growth if `cwnd_growth` allows it.
    #[inline(always)]
    fn grow(&mut self, info: &AckInfo) {
        self.cc.on_acked(info);
        if self.cfg.growth != Growth::Always && !self.may_grow() {
            return;
        }
        self.cc.on_ack(info);
        if self.cfg.max_cwnd > 0.0 && floor(self.cc.cwnd()) > self.cfg.max_cwnd {
            self.cc.set_cwnd(self.cfg.max_cwnd);
        }
    }

    /// ns-2 keeps `ssthresh_` in an int: truncate a decrease (never below 2).
    pub(super) fn round_ssthresh(&mut self) {
        if self.cfg.integer_ssthresh {
            let s = self.cc.ssthresh();
            if s.is_finite() && s < 1e15 {
                self.cc.set_ssthresh(floor(s).max(2.0));
            }
        }
    }

    pub(super) fn mss(&self) -> u64 {
        self.cfg.mss as u64
    }

    /// Bytes the window allows beyond `snd_una`.
    pub(super) fn window_bytes(&self) -> u64 {
        // Truncation is floor for the non-negative window (and NaN or negatives give 1 as
        // floor().max(1.0) would), without a software floor call per ACK; through i64, one
        // conversion instruction (u64 needs a fix-up for 2⁶³ and above). A window of 2⁶⁴/mss
        // segments or more, which no run reaches, gives `rwnd` here instead of wrapping.
        let segs = ((self.cc.cwnd() + self.dupwnd) as i64).max(1) as u64;
        segs.saturating_mul(self.mss()).min(self.rwnd)
    }

    pub(super) fn inflight(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    pub(super) fn loss_info(&self, now: Time) -> LossInfo {
        let rwnd_segs = (self.rwnd / self.mss()).max(1) as f64;
        // ns-2 `precisionReduce_ false` halves the integer window().
        let w = self.cc.cwnd().min(rwnd_segs);
        LossInfo {
            now,
            window: if self.cfg.precision_reduce { w } else { floor(w) },
            inflight: self.inflight(),
            mss: self.cfg.mss,
            min_rtt: self.rtt.min_rtt,
            srtt: self.rtt.srtt(),
            ns2_halving: self.cfg.ns2_halving,
        }
    }

    // Timers -------------------------------------------------------------------------------

    /// Arms (or re-arms) the retransmission timer to fire one RTO from now. Lazy: at most
    /// one timer event is pending; an early event re-schedules itself to the deadline.
    #[inline(always)]
    pub(super) fn arm_rto(&mut self, ctx: &mut Ctx) {
        let t = self.rtt.timeout();
        self.stats.rto_armed(self.rtt.timeout_secs());
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

    pub(super) fn arm_rto_if_idle(&mut self, ctx: &mut Ctx) {
        if self.rto_deadline.is_none() {
            self.arm_rto(ctx);
        }
    }

    pub(super) fn cancel_rto(&mut self) {
        self.rto_deadline = None;
    }

    // Sending ------------------------------------------------------------------------------

    pub(super) fn send_segment(&mut self, ctx: &mut Ctx, seq: u64, len: u32) {
        if self.in_recovery && self.cfg.prr {
            self.prr.out += len as u64;
        }
        let retx = seq < self.snd_max;
        if retx {
            self.stats.retransmitted(len);
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
        let (size, flags) = (self.cfg.data_size(len), if self.cfg.timestamps { crate::packet::FLAG_TS } else { 0 });
        ctx.send_with(|p| {
            p.kind = Kind::Data;
            p.seq = seq;
            p.payload = len;
            p.size = size;
            p.flags = flags;
        });
        self.arm_rto_if_idle(ctx);
    }

    /// Sends as much as window, receiver window and application data allow (go-back-N
    /// from `snd_nxt`, skipping SACKed ranges). Always inlined, as `on_new_ack` is: the ACK
    /// path in one function (S1 −1.4 % instructions with both, against three calls).
    #[inline(always)]
    pub(super) fn send_much(&mut self, ctx: &mut Ctx) {
        if self.in_recovery && self.cfg.prr {
            // PRR sends on ACKs only (a pacing wake-up waits for the next ACK, whose
            // `sndcnt` makes up for what was held back).
            return;
        }
        if self.in_recovery && self.cfg.recovery == Recovery::Sack {
            return self.sack_send(ctx, None);
        }
        if self.in_recovery && self.cfg.recovery == Recovery::Sack1 {
            return self.sack1_send(ctx);
        }
        // ns-2 `maxburst_`, and NewReno's two new segments per ACK in recovery.
        let mut burst = if self.cfg.max_burst > 0 { self.cfg.max_burst } else { u32::MAX };
        if self.in_recovery && self.cfg.recovery == Recovery::NewReno && self.cfg.recovery_max_burst > 0 {
            burst = burst.min(self.cfg.recovery_max_burst);
        }
        // The window is read once: sending changes none of what it depends on (cwnd,
        // the inflation, the receiver's window, the cumulative ACK; a controller's
        // `on_packet_sent` must not change cwnd).
        let wnd_end = self.snd_una + self.window_bytes();
        while burst > 0 {
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
            burst -= 1;
        }
    }

    /// Sends `len` bytes of new (or go-back-N) data at `snd_nxt` if pacing allows.
    #[inline]
    pub(super) fn send_next(&mut self, ctx: &mut Ctx, len: u64) -> bool {
        if !self.pace_ok(ctx) {
            return false;
        }
        let seq = self.snd_nxt;
        self.send_segment(ctx, seq, len as u32);
        self.snd_nxt += len;
        self.paced(ctx, len as u32);
        true
    }

    // ACK processing -----------------------------------------------------------------------

    #[inline(always)]
    pub(super) fn on_new_ack(&mut self, ctx: &mut Ctx, ack: u64, info: &mut AckInfo) {
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
        if ack >= self.recover {
            self.stats.episode_end(ctx.now);
        }
        let mut restart_timer = true;
        if self.in_recovery {
            // Reno ends recovery on any new ACK, NewReno and SACK on a full one; ns-2's
            // Reno and NewReno grow cwnd on that ACK as on any new ACK (`exit_ack_grows`).
            let partial = ack < self.recover;
            if !partial || matches!(self.cfg.recovery, Recovery::Reno | Recovery::Tahoe) {
                self.in_recovery = false;
                if self.cfg.exit_recovery_fix && self.dupwnd > 0.0 && !partial {
                    // ns-2 `exit_recovery_fix_`: cwnd = min(ssthresh, maxseq − ack + 1).
                    let outstanding = (self.snd_max - ack).div_ceil(self.mss()) + 1;
                    self.cc.set_cwnd(self.cc.ssthresh().min(outstanding as f64));
                }
                self.dupwnd = 0.0;
                self.cc.on_recovery_end(ctx.now);
                if self.cfg.exit_ack_grows && !self.cfg.prr {
                    info.acked_bytes = acked;
                    info.acked_segs = if self.cfg.abc { acked as f64 / self.mss() as f64 } else { 1.0 };
                    self.grow(info);
                }
            } else {
                match self.cfg.recovery {
                    Recovery::Reno | Recovery::Tahoe => {} // left recovery above
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
                        // Partial ACK: retransmit the next hole; deflate by the acked amount
                        // (RFC 6582) or only remove the inflation (ns-2
                        // `partial_window_deflation_ 0`).
                        if self.cfg.partial_window_deflation {
                            let d = (acked as f64 / self.mss() as f64).ceil();
                            if self.dupwnd > d {
                                self.dupwnd -= d - 1.0;
                            } else {
                                let c = (self.cc.cwnd() - (d - self.dupwnd)).max(1.0);
                                self.cc.set_cwnd(c);
                                self.dupwnd = 1.0;
                            }
                        } else {
                            self.dupwnd = 0.0;
                        }
                        self.retransmit_una(ctx);
                        restart_timer = self.first_partial || self.cfg.partial_ack_timer_every;
                        self.first_partial = false;
                    }
                    Recovery::Sack if self.cfg.prr => {
                        // Safe: the ACK reports no further loss (no new SACKed data).
                        let delivered = (acked as i64 + self.sack_delta()).max(0) as u64;
                        prr_budget = Some(self.prr_sndcnt(delivered, !self.sack_grew));
                    }
                    Recovery::Sack | Recovery::Sack1 => {}
                }
            }
        } else {
            self.reno_sacked = 0;
            info.acked_bytes = acked;
            info.acked_segs = if self.cfg.abc { acked as f64 / self.mss() as f64 } else { 1.0 };
            self.grow(info);
        }
        if self.snd_una >= self.snd_max {
            self.cancel_rto();
        } else if restart_timer {
            self.arm_rto(ctx);
        }
        if self.done_at.is_none() && self.snd_una >= self.app_limit {
            self.done_at = Some(ctx.now);
            ctx.finished();
        }
        match prr_budget {
            Some(b) if self.cfg.recovery == Recovery::Sack => self.sack_send(ctx, Some(b)),
            Some(b) => self.prr_send(ctx, b),
            None => self.send_much(ctx),
        }
    }
}

impl<C: CongestionControl> TcpSender<C> {
    /// A segment from the receiver (ACK or SYN-ACK): [`Agent::on_packet`] without
    /// `cwnd_growth`'s bookkeeping around it.
    #[inline(always)]
    fn on_segment(&mut self, ctx: &mut Ctx, p: &Packet) {
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
            self.rtt.sample_at(ctx.now, r);
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
            in_recovery: self.in_recovery || self.snd_una < self.recover,
        };
        self.cc.on_ack_received(&info);
        if self.cfg.recovery == Recovery::Sack1 {
            return self.sack1_on_ack(ctx, p, &mut info);
        }
        if new {
            self.on_new_ack(ctx, ack, &mut info);
        } else if ack == self.snd_una && self.snd_max > self.snd_una {
            self.on_dupack(ctx);
        }
    }
}

impl<C: CongestionControl> Agent for TcpSender<C> {
    fn start(&mut self, ctx: &mut Ctx) {
        self.transmit_opportunity(|s| {
            s.started_at = ctx.now;
            if !s.established {
                s.syn_sent_at = Some(ctx.now);
                return s.send_syn(ctx);
            }
            s.send_much(ctx);
        })
    }

    fn stop(&mut self, _ctx: &mut Ctx) {
        // The application stops offering new data; what was sent is still delivered.
        self.app_limit = self.app_limit.min(self.snd_max);
    }

    fn on_packet(&mut self, ctx: &mut Ctx, p: &Packet) {
        self.transmit_opportunity(|s| s.on_segment(ctx, p))
    }

    fn next_wakeup(&self) -> Option<Time> {
        // A pending RTO event before the deadline only re-arms itself; the deadline counts.
        let rto = self.rto_deadline.unwrap_or(Time::MAX);
        Some(if self.pace_pending { rto.min(self.pace_next) } else { rto })
    }

    fn on_timer(&mut self, ctx: &mut Ctx, kind: u16, token: u32) {
        match kind {
            TIMER_RTO if token == self.rto_token => {
                // A timeout retransmits outside Linux's `tcp_write_xmit`: no `cwnd_growth`
                // bookkeeping here; the ACKs that follow have it.
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
            TIMER_PACE => self.transmit_opportunity(|s| {
                s.pace_pending = false;
                s.send_much(ctx);
            }),
            _ => {}
        }
    }

    fn probe_names(&self) -> Vec<&'static str> {
        let mut v = vec!["cwnd", "ssthresh", "srtt_s", "rto_s", "inflight_bytes", "retransmits", "timeouts", "fast_retransmits"];
        v.extend_from_slice(self.cc.probe_names());
        v
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.cc.cwnd() + self.dupwnd);
        out.push(self.cc.ssthresh());
        out.push(to_secs(self.rtt.srtt()));
        out.push(to_secs(self.rtt.timeout()));
        out.push(self.inflight() as f64);
        out.extend([self.stats.retrans_pkts, self.stats.timeouts, self.stats.fast_retransmits].map(|x| x as f64));
        self.cc.probe(out);
    }

    fn summary(&self) -> Vec<(&'static str, f64)> {
        let [retx, retx_bytes, timeouts, fast, syn, rto, recovery] = self.stats.columns();
        let min_rtt = if self.rtt.stats.min > 0 { to_secs(self.rtt.stats.min) } else { f64::NAN };
        let done = ("completion_s", self.done_at.map(|t| to_secs(t - self.started_at)).unwrap_or(f64::NAN));
        [retx, retx_bytes, timeouts, fast, syn, ("mean_rtt_s", self.rtt.mean_rtt()), ("min_rtt_s", min_rtt), rto]
            .into_iter()
            .chain([("final_cwnd", self.cc.cwnd()), recovery, done])
            .chain(self.cc.summary())
            .collect()
    }

    fn tables(&mut self) -> Vec<(&'static str, crate::measure::Table)> {
        self.cc.tables()
    }

    /// Every counter and average restarts (see [`super::stats::SenderStats::restart`]);
    /// `completion_s` stays the whole transfer's.
    fn restart_counters(&mut self, now: Time) {
        self.stats.restart(now);
        self.rtt.restart_stats();
        self.cc.restart_counters();
    }
}
