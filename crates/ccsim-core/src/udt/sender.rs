//! The UDT sender: retransmissions from its loss list first, else new data while the
//! unacknowledged packets stay within min(flow window, congestion window); one packet per
//! sending period, except that a packet whose sequence is a multiple of 16 is followed at
//! once by the next (the packet pair the receiver's capacity filter times); ACK2 for full
//! ACKs; the EXP timer. The congestion controller ([`super::cc`]) sets period and window.

use super::cc::{CcView, UdtCc};
use super::losslist::LossList;
use super::wire::{self, FLAG_UDT};
use super::{ExpRule, UdtConfig};
use crate::agent::{Agent, Ctx};
use crate::measure::{Column, Table};
use crate::packet::{Kind, Packet};
use crate::rng::SimRng;
use crate::units::{to_secs, Time, SEC};
use std::sync::Arc;

const TIMER_SEND: u16 = 0;
const TIMER_EXP: u16 = 1;

#[derive(Clone, Debug, Default)]
struct SndStats {
    retrans: u64,
    naks: u64,
    nak_packets: u64,
    acks: u64,
    light_acks: u64,
    ack2s: u64,
    timeouts: u64,
    keepalives: u64,
    rtt_sum_us: f64,
    rtt_n: u64,
}

#[derive(Default)]
struct AckLog {
    time: Vec<f64>,
    ack_rtt: Vec<f64>,
    rtt: Vec<f64>,
    period: Vec<f64>,
    rcv_rate: Vec<f64>,
    bandwidth: Vec<f64>,
    cwnd: Vec<f64>,
}

pub struct UdtSender {
    cfg: Arc<UdtConfig>,
    cc: Box<dyn UdtCc>,
    rng: SimRng,
    /// Data packets of a finite transfer, and its bytes.
    total: Option<(u64, u64)>,
    next_seq: u64,
    /// First sequence not acknowledged (UDT's `m_iSndLastAck`).
    snd_una: u64,
    /// The last ACK that released data (`m_iSndLastDataAck`).
    last_data_ack: u64,
    loss: LossList,
    flow_window: f64,
    rtt_us: f64,
    rtt_var_us: f64,
    rcv_rate: f64,
    bandwidth: f64,
    exp_count: u32,
    expired_once: bool,
    last_rsp: Time,
    exp_armed: Option<Time>,
    send_token: u32,
    /// When the next packet is due (None: waiting for the window or idle).
    send_at: Option<Time>,
    freeze: bool,
    stopped: bool,
    broken: bool,
    done: bool,
    started_at: Time,
    done_at: Option<Time>,
    stats: SndStats,
    log: Option<AckLog>,
}

impl UdtSender {
    pub fn new(cfg: Arc<UdtConfig>, rng: SimRng, bytes: Option<u64>) -> Self {
        let cc = cfg.cc.build();
        UdtSender {
            total: bytes.map(|b| (cfg.packets_for(b), b)),
            cc,
            rng,
            next_seq: 0,
            snd_una: 0,
            last_data_ack: 0,
            loss: LossList::default(),
            flow_window: cfg.max_window() as f64,
            rtt_us: cfg.initial_rtt as f64 / 1e3,
            rtt_var_us: cfg.initial_rtt_var as f64 / 1e3,
            // UDT4's initial delivery rate and bandwidth (16 and 1 packets/s); the ns-2
            // module leaves them unset (zero here).
            rcv_rate: if cfg.sender_ewma_udt4 { 16.0 } else { 0.0 },
            bandwidth: if cfg.sender_ewma_udt4 { 1.0 } else { 0.0 },
            exp_count: 1,
            expired_once: false,
            last_rsp: 0,
            exp_armed: None,
            send_token: 0,
            send_at: None,
            freeze: false,
            stopped: false,
            broken: false,
            done: false,
            started_at: 0,
            done_at: None,
            stats: SndStats::default(),
            log: cfg.log_acks.then(AckLog::default),
            cfg,
        }
    }

    fn view(&self, now: Time) -> CcView {
        CcView {
            now,
            rtt_us: self.rtt_us,
            rcv_rate: self.rcv_rate,
            bandwidth: self.bandwidth,
            max_cwnd: self.cfg.max_window() as f64,
            mss: self.cfg.packet_size,
            snd_cur: self.next_seq as i64 - 1,
            syn_us: self.cfg.syn as f64 / 1e3,
        }
    }

    /// The period in ns, between 1 ns and 10⁴ s (a controller left uncapped can grow it
    /// without bound: `rtt_cap = false` with large decreases).
    fn period_ns(&self) -> Time {
        (self.cc.period_us() * 1e3).round().clamp(1.0, 1e13) as Time
    }

    /// Schedules the next packet at `at`, replacing any pending one.
    fn schedule(&mut self, ctx: &mut Ctx, at: Time) {
        self.send_token = self.send_token.wrapping_add(1);
        self.send_at = Some(at);
        ctx.timer_at(at, TIMER_SEND, self.send_token);
    }

    /// Sends now unless a packet is already due (UDT4 waking a sender off the send list).
    fn wake(&mut self, ctx: &mut Ctx) {
        if self.send_at.is_none() && !self.done {
            self.schedule(ctx, ctx.now);
        }
    }

    fn exp_interval(&self) -> Time {
        match self.cfg.exp {
            ExpRule::Backoff { min } => {
                let n = self.exp_count as f64;
                let t = ((n * (self.rtt_us + 4.0 * self.rtt_var_us) + self.cfg.syn as f64 / 1e3) * 1e3) as Time;
                t.max(self.exp_count as Time * min)
            }
            ExpRule::Fixed { first, then } => {
                if self.expired_once {
                    then
                } else {
                    first
                }
            }
        }
    }

    fn arm_exp(&mut self, ctx: &mut Ctx) {
        let at = self.last_rsp + self.exp_interval();
        if self.exp_armed.is_none_or(|t| t > at) {
            self.exp_armed = Some(at);
            ctx.timer_at(at, TIMER_EXP, 0);
        }
    }

    /// The peer answered: the EXP back-off restarts.
    fn heard(&mut self, now: Time) {
        self.exp_count = 1;
        self.last_rsp = now;
    }

    fn unacked(&self) -> bool {
        self.next_seq > self.snd_una
    }

    /// Whether every packet of a finite transfer is acknowledged (then the sender is done).
    fn check_done(&mut self, ctx: &mut Ctx) {
        if let Some((n, _)) = self.total {
            if !self.done && self.snd_una >= n {
                self.done = true;
                self.done_at = Some(ctx.now);
                self.send_token = self.send_token.wrapping_add(1);
                self.send_at = None;
                ctx.finished();
            }
        }
    }

    fn send_next(&mut self, ctx: &mut Ctx) {
        self.send_at = None;
        if self.done || self.broken {
            return;
        }
        let mut pick = None;
        // Entries a light ACK has passed (UDT4 skips by its last data ACK).
        self.loss.remove_below(self.snd_una);
        while let Some(s) = self.loss.pop_first() {
            if s >= self.snd_una {
                pick = Some((s, true));
                break;
            }
        }
        if pick.is_none() {
            let more = !self.stopped && self.total.is_none_or(|(n, _)| self.next_seq < n);
            let limit = self.flow_window.min(self.cc.cwnd()).floor();
            if more && (self.next_seq + 1 - self.snd_una) as f64 <= limit {
                pick = Some((self.next_seq, false));
                self.next_seq += 1;
            }
        }
        let Some((seq, retrans)) = pick else { return };
        let payload = match self.total {
            Some((n, bytes)) if seq + 1 == n => (bytes - seq * self.cfg.payload() as u64) as u32,
            _ => self.cfg.payload(),
        };
        let size = payload + wire::IP_UDP + wire::UDT_HEADER;
        ctx.send_with(|p| {
            p.kind = Kind::Datagram;
            p.flags = FLAG_UDT;
            p.seq = seq;
            p.size = size;
            p.payload = payload;
        });
        if retrans {
            self.stats.retrans += 1;
        }
        let v = self.view(ctx.now);
        self.cc.on_pkt_sent(&v, seq as i64, self.next_seq as i64, retrans);
        let gap = if !retrans && seq % 16 == 0 {
            0
        } else if std::mem::take(&mut self.freeze) {
            self.cfg.syn.saturating_add(self.period_ns())
        } else {
            self.period_ns()
        };
        self.schedule(ctx, ctx.now.saturating_add(gap));
    }

    fn on_ack(&mut self, ctx: &mut Ctx, p: &Packet) {
        let now = ctx.now;
        let a = wire::get_ack(p);
        send_ctrl(ctx, wire::ACK2, self.cfg.sizes.ack2, a.ack_seq);
        self.stats.ack2s += 1;
        self.stats.acks += 1;
        // UDT4's EXP restarts at any packet from the peer; the ns-2 module's at an
        // advancing ACK (or a NAK) only.
        let backoff = matches!(self.cfg.exp, ExpRule::Backoff { .. });
        if backoff {
            self.heard(now);
        }
        if a.ack > self.next_seq {
            return;
        }
        if a.ack >= self.snd_una {
            // Without a buffer field (ns-2) the flow window is the static bound again,
            // whatever light ACKs took off it.
            let w = if self.cfg.ack_has_buffer { a.buffer } else { u32::MAX };
            self.flow_window = w.min(self.cfg.max_window()) as f64;
            self.snd_una = a.ack;
        }
        if a.ack <= self.last_data_ack {
            return;
        }
        if !backoff {
            self.last_rsp = now;
        }
        let udt4 = self.cfg.sender_ewma_udt4;
        self.last_data_ack = a.ack;
        self.loss.remove_below(if self.cfg.ack_clears_inclusive { a.ack + 1 } else { a.ack });
        let rtt = a.rtt_us as f64;
        if udt4 {
            self.rtt_var_us = ((3.0 * self.rtt_var_us + (rtt - self.rtt_us).abs()) / 4.0).floor();
            self.rtt_us = ((7.0 * self.rtt_us + rtt) / 8.0).floor();
            if let Some((speed, cap)) = a.rates {
                if speed > 0 {
                    self.rcv_rate = ((7.0 * self.rcv_rate + speed as f64) / 8.0).floor();
                }
                if cap > 0 {
                    self.bandwidth = ((7.0 * self.bandwidth + cap as f64) / 8.0).floor();
                }
            }
        } else {
            self.rtt_us = 0.875 * self.rtt_us + 0.125 * rtt;
            let (speed, cap) = a.rates.unwrap_or((0, 0));
            self.rcv_rate = speed as f64;
            self.bandwidth = (0.875 * self.bandwidth + 0.125 * cap as f64).trunc();
        }
        self.stats.rtt_sum_us += self.rtt_us;
        self.stats.rtt_n += 1;
        let v = self.view(now);
        self.cc.on_ack(&v, a.ack as i64, rtt);
        if let Some(log) = self.log.as_mut() {
            log.time.push(to_secs(now));
            log.ack_rtt.push(rtt / 1e6);
            log.rtt.push(self.rtt_us / 1e6);
            log.period.push(self.cc.period_us());
            log.rcv_rate.push(self.rcv_rate);
            log.bandwidth.push(self.bandwidth);
            log.cwnd.push(self.cc.cwnd());
        }
        self.check_done(ctx);
        if self.cfg.ack_forces_send && !self.done {
            self.schedule(ctx, now);
        } else {
            self.wake(ctx);
        }
        self.arm_exp(ctx);
    }

    fn on_light_ack(&mut self, ctx: &mut Ctx, p: &Packet) {
        self.stats.light_acks += 1;
        self.heard(ctx.now);
        if p.ack >= self.snd_una && p.ack <= self.next_seq {
            self.flow_window -= (p.ack - self.snd_una) as f64;
            self.snd_una = p.ack;
            self.check_done(ctx);
            self.wake(ctx);
        }
    }

    fn on_nak(&mut self, ctx: &mut Ctx, p: &Packet) {
        self.stats.naks += 1;
        self.heard(ctx.now);
        let first = wire::nak_ranges(p).next().map(|r| r.0).unwrap_or(0);
        let count: u64 = wire::nak_ranges(p).map(|(s, e)| e - s + 1).sum();
        let v = self.view(ctx.now);
        let action = self.cc.on_loss(&v, first as i64, count, &mut self.rng);
        for (s, e) in wire::nak_ranges(p) {
            // Sanity checks as UDT's: a range past what was sent is ignored.
            if s > e || e >= self.next_seq {
                continue;
            }
            let s = s.max(self.snd_una);
            if s <= e {
                self.stats.nak_packets += self.loss.insert(s, e);
            }
        }
        if action.freeze {
            self.freeze = true;
        }
        if !self.done {
            self.schedule(ctx, ctx.now);
        }
        self.arm_exp(ctx);
    }

    fn on_exp(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        self.exp_armed = None;
        if self.done || self.broken {
            return;
        }
        let due = self.last_rsp + self.exp_interval();
        if now < due {
            return self.arm_exp(ctx);
        }
        if let ExpRule::Backoff { .. } = self.cfg.exp {
            if self.exp_count > 16 && now - self.last_rsp > 5 * SEC {
                // UDT4 declares the connection broken.
                self.broken = true;
                self.send_token = self.send_token.wrapping_add(1);
                self.send_at = None;
                return;
            }
        }
        let fixed = matches!(self.cfg.exp, ExpRule::Fixed { .. });
        if self.unacked() || fixed {
            // The ns-2 module's `timeOut` requeues and sends at once, data or not (no
            // keep-alive).
            if self.unacked() && (self.cfg.exp_requeue_always || self.loss.is_empty()) {
                self.loss.insert(self.snd_una, self.next_seq - 1);
            }
            if self.unacked() {
                self.stats.timeouts += 1;
                let v = self.view(now);
                self.cc.on_timeout(&v);
            }
            self.schedule(ctx, now);
        } else {
            send_ctrl(ctx, wire::KEEPALIVE, self.cfg.sizes.keepalive, 0);
            self.stats.keepalives += 1;
        }
        self.exp_count += 1;
        self.expired_once = true;
        self.last_rsp = now;
        self.arm_exp(ctx);
    }
}

/// Sends a sender-side control packet (ACK2, keep-alive) of type `ctype`, `size` bytes on
/// the wire, with `info` in its additional-information field.
fn send_ctrl(ctx: &mut Ctx, ctype: u16, size: u32, info: u64) {
    ctx.send_with(|q| {
        q.kind = Kind::Control;
        q.flags = FLAG_UDT;
        q.size = size;
        q.aux = ctype as u64;
        q.seq = info;
    });
}

impl Agent for UdtSender {
    fn start(&mut self, ctx: &mut Ctx) {
        self.started_at = ctx.now;
        self.last_rsp = ctx.now;
        self.schedule(ctx, ctx.now);
        self.arm_exp(ctx);
    }

    fn stop(&mut self, _ctx: &mut Ctx) {
        self.stopped = true;
    }

    fn on_packet(&mut self, ctx: &mut Ctx, p: &Packet) {
        match wire::ctrl_type(p) {
            Some(wire::ACK) if p.aux & wire::ACK_LIGHT != 0 => self.on_light_ack(ctx, p),
            Some(wire::ACK) => self.on_ack(ctx, p),
            Some(wire::NAK) => self.on_nak(ctx, p),
            _ => {}
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx, kind: u16, token: u32) {
        match kind {
            TIMER_SEND if token == self.send_token && self.send_at.is_some() => self.send_next(ctx),
            TIMER_EXP if self.exp_armed == Some(ctx.now) => self.on_exp(ctx),
            _ => {}
        }
    }

    fn probe_names(&self) -> Vec<&'static str> {
        vec!["period_us", "send_rate_bps", "cwnd", "flow_window", "rtt_s", "bandwidth_bps", "rcv_rate_bps", "loss_list"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        let bits = self.cfg.packet_size as f64 * 8.0;
        out.extend([
            self.cc.period_us(),
            bits * 1e6 / self.cc.period_us(),
            self.cc.cwnd(),
            self.flow_window,
            self.rtt_us / 1e6,
            self.bandwidth * bits,
            self.rcv_rate * bits,
            self.loss.len() as f64,
        ]);
    }

    fn summary(&self) -> Vec<(&'static str, f64)> {
        let s = &self.stats;
        let bits = self.cfg.packet_size as f64 * 8.0;
        let mean_rtt = if s.rtt_n > 0 { s.rtt_sum_us / s.rtt_n as f64 / 1e6 } else { f64::NAN };
        let mut v = vec![
            ("retransmitted_pkts", s.retrans as f64),
            ("naks_received", s.naks as f64),
            ("nak_packets", s.nak_packets as f64),
            ("acks_received", s.acks as f64),
            ("light_acks_received", s.light_acks as f64),
            ("ack2_sent", s.ack2s as f64),
            ("timeouts", s.timeouts as f64),
            ("keepalives", s.keepalives as f64),
            ("mean_rtt_s", mean_rtt),
            ("final_period_us", self.cc.period_us()),
            ("final_cwnd", self.cc.cwnd()),
            ("bandwidth_est_bps", self.bandwidth * bits),
            ("rcv_rate_bps", self.rcv_rate * bits),
            ("broken", self.broken as u8 as f64),
            ("completion_s", self.done_at.map(|t| to_secs(t - self.started_at)).unwrap_or(f64::NAN)),
        ];
        v.extend(self.cc.summary());
        v
    }

    fn restart_counters(&mut self, _now: Time) {
        self.stats = SndStats::default();
        self.cc.restart_counters();
    }

    fn tables(&mut self) -> Vec<(&'static str, Table)> {
        let mut out = self.cc.tables();
        if let Some(log) = self.log.take() {
            let mut t = Table::default();
            t.push("time", Column::F64(log.time));
            t.push("ack_rtt_s", Column::F64(log.ack_rtt));
            t.push("rtt_s", Column::F64(log.rtt));
            t.push("period_us", Column::F64(log.period));
            t.push("rcv_rate_pps", Column::F64(log.rcv_rate));
            t.push("bandwidth_pps", Column::F64(log.bandwidth));
            t.push("cwnd", Column::F64(log.cwnd));
            out.push(("acks", t));
        }
        out
    }
}
