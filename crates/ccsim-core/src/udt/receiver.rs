//! The UDT receiver: loss detection with an immediate NAK, an ACK every SYN (with the
//! repeat rules of each profile), light ACKs, the ACK window that times ACK→ACK2 round
//! trips, and the arrival-speed and capacity filters whose results ACKs carry.

use super::losslist::LossList;
use super::window::TimeWindow;
use super::wire::{self, AckFields, FLAG_UDT};
use super::UdtConfig;
use crate::agent::{Agent, Ctx};
use crate::packet::{Kind, Packet};
use crate::units::Time;
use std::collections::VecDeque;
use std::sync::Arc;

const TIMER_ACK: u16 = 0;
/// ACKs remembered for ACK2 matching (UDT's `CACKWindow`).
const ACK_WINDOW: usize = 1024;

#[derive(Clone, Debug, Default)]
struct RcvStats {
    acks: u64,
    light_acks: u64,
    naks: u64,
    nak_packets: u64,
    ack2s: u64,
    duplicates: u64,
}

pub struct UdtReceiver {
    cfg: Arc<UdtConfig>,
    /// Data packets of a finite transfer.
    total: Option<u64>,
    /// Largest sequence received (−1: none).
    lrsn: i64,
    /// Sequences below `lrsn` not received: the loss list (UDT4), or statistics only (the
    /// ns-2 module, whose ACKs ignore it).
    missing: LossList,
    last_ack: u64,
    last_ack_ack: u64,
    /// When the last ACK went out (ns-2), or the last one with rates (UDT4).
    last_ack_time: Option<Time>,
    ack_seq: u64,
    ack_window: VecDeque<(u64, u64, Time)>,
    rtt_us: f64,
    rtt_var_us: f64,
    tw: TimeWindow,
    pkt_count: u32,
    light_count: u32,
    timer_armed: bool,
    active: bool,
    completed: bool,
    stats: RcvStats,
}

impl UdtReceiver {
    pub fn new(cfg: Arc<UdtConfig>, bytes: Option<u64>) -> Self {
        UdtReceiver {
            total: bytes.map(|b| cfg.packets_for(b)),
            lrsn: -1,
            missing: LossList::default(),
            last_ack: 0,
            last_ack_ack: 0,
            last_ack_time: None,
            ack_seq: 0,
            ack_window: VecDeque::with_capacity(ACK_WINDOW),
            rtt_us: cfg.initial_rtt as f64 / 1e3,
            rtt_var_us: cfg.initial_rtt_var as f64 / 1e3,
            tw: TimeWindow::new(cfg.window),
            pkt_count: 0,
            light_count: 1,
            timer_armed: false,
            active: false,
            completed: false,
            stats: RcvStats::default(),
            cfg,
        }
    }

    /// The ACK number: the first lost sequence (UDT4), else the highest received + 1.
    fn ack_number(&self) -> u64 {
        let next = (self.lrsn + 1) as u64;
        if self.cfg.record_losses {
            self.missing.first().unwrap_or(next)
        } else {
            next
        }
    }

    fn arm(&mut self, ctx: &mut Ctx) {
        if self.timer_armed {
            return;
        }
        self.timer_armed = true;
        let syn = self.cfg.syn;
        // The ns-2 module's ACK timer runs on a fixed grid from time 0; UDT4's from now.
        let at = if self.cfg.profile == super::Profile::Ns2 { (ctx.now / syn + 1) * syn } else { ctx.now + syn };
        ctx.timer_at(at, TIMER_ACK, 0);
    }

    /// A full ACK, if the rules allow one now.
    fn send_ack(&mut self, ctx: &mut Ctx) {
        let ack = self.ack_number();
        if self.cfg.record_losses && ack == self.last_ack_ack {
            return;
        }
        let now = ctx.now;
        if ack > self.last_ack {
            self.last_ack = ack;
        } else if ack == self.last_ack {
            let wait = if self.cfg.ack_repeat_two_rtt { 2.0 * self.rtt_us } else { self.rtt_us + 4.0 * self.rtt_var_us };
            if let Some(t) = self.last_ack_time {
                if ((now - t) as f64) < wait * 1e3 || (self.cfg.ack_repeat_two_rtt && (now - t) as f64 <= wait * 1e3) {
                    return;
                }
            }
        } else {
            return;
        }
        if self.last_ack <= self.last_ack_ack {
            return;
        }
        self.ack_seq += 1;
        // UDT4 tests `> SYN`, on a clock that runs a little late at every ACK timer; on
        // ccsim's exact clock the timer comes exactly SYN later, so `>=` keeps UDT4's
        // practical behaviour (rates in every timer ACK, not every other one).
        let with_rates = !self.cfg.rates_once_per_syn || self.last_ack_time.is_none_or(|t| now - t >= self.cfg.syn);
        let rates = with_rates.then(|| (self.tw.speed() as u32, self.tw.capacity() as u32));
        if with_rates || !self.cfg.rates_once_per_syn {
            self.last_ack_time = Some(now);
        }
        let a = AckFields {
            ack_seq: self.ack_seq,
            ack: self.last_ack,
            rtt_us: self.rtt_us as u32,
            rtt_var_us: if self.cfg.ack_has_buffer { self.rtt_var_us as u32 } else { 0 },
            // UDT4's `getAvailBufSize()`: the buffer less what was acknowledged and not yet
            // read, less one; the application reads at once and out-of-order packets do not
            // count.
            buffer: if self.cfg.ack_has_buffer { self.cfg.buffer.saturating_sub(1).max(2) } else { 0 },
            rates,
        };
        let size = if rates.is_some() { self.cfg.sizes.ack } else { self.cfg.sizes.ack_short };
        ctx.send_with(|p| {
            p.kind = Kind::Ack;
            p.flags = FLAG_UDT;
            p.size = size;
            wire::put_ack(p, &a);
        });
        if self.ack_window.len() == ACK_WINDOW {
            self.ack_window.pop_front();
        }
        self.ack_window.push_back((self.ack_seq, self.last_ack, now));
        self.stats.acks += 1;
    }

    fn send_light_ack(&mut self, ctx: &mut Ctx) {
        let ack = self.ack_number();
        if ack == self.last_ack_ack {
            return;
        }
        let size = self.cfg.sizes.light_ack;
        ctx.send_with(|p| {
            p.kind = Kind::Ack;
            p.flags = FLAG_UDT;
            p.size = size;
            p.aux = wire::ACK as u64 | wire::ACK_LIGHT;
            p.ack = ack;
        });
        self.stats.light_acks += 1;
    }

    fn send_nak(&mut self, ctx: &mut Ctx, start: u64, end: u64) {
        let size = self.cfg.sizes.nak_base + 4 * wire::nak_words(&[(start, end)]);
        ctx.send_with(|p| {
            p.kind = Kind::Ack;
            p.flags = FLAG_UDT;
            p.size = size;
            wire::put_nak(p, &[(start, end)]);
        });
        self.stats.naks += 1;
        self.stats.nak_packets += end - start + 1;
    }

    fn on_data(&mut self, ctx: &mut Ctx, p: &Packet) {
        let now = ctx.now;
        self.active = true;
        self.arm(ctx);
        self.tw.on_arrival(now);
        match p.seq % 16 {
            0 => self.tw.probe1(now),
            1 => self.tw.probe2(now),
            _ => {}
        }
        let seq = p.seq as i64;
        if !self.cfg.record_losses && p.seq < self.last_ack {
            // The ns-2 module ignores what its ACK point has passed; a late packet that fills
            // a hole still brought its data to the receiving host (goodput counts it).
            if self.missing.remove(p.seq) {
                ctx.add_goodput(p.payload as u64);
            } else {
                self.stats.duplicates += 1;
            }
            return;
        }
        let fresh = if seq > self.lrsn + 1 {
            let (s, e) = ((self.lrsn + 1) as u64, p.seq - 1);
            self.missing.insert(s, e);
            self.send_nak(ctx, s, e);
            self.lrsn = seq;
            true
        } else if seq == self.lrsn + 1 {
            self.lrsn = seq;
            true
        } else {
            self.missing.remove(p.seq)
        };
        if fresh {
            ctx.add_goodput(p.payload as u64);
        } else {
            self.stats.duplicates += 1;
        }
        if self.cfg.irregular_ack && p.payload != self.cfg.payload() {
            self.send_ack(ctx);
        }
        self.pkt_count += 1;
        let every = self.cfg.light_ack_every;
        if every > 0 && self.pkt_count >= every * self.light_count {
            self.send_light_ack(ctx);
            self.light_count += 1;
        }
        if let Some(total) = self.total {
            if !self.completed && self.lrsn + 1 >= total as i64 && self.missing.is_empty() {
                self.completed = true;
                ctx.complete();
            }
        }
    }

    fn on_ack2(&mut self, ctx: &mut Ctx, p: &Packet) {
        self.stats.ack2s += 1;
        let Some(i) = self.ack_window.iter().rposition(|e| e.0 == p.seq) else { return };
        let (_, ack, t) = self.ack_window[i];
        let udt4 = self.cfg.sender_ewma_udt4;
        if !udt4 {
            // The ns-2 module's `AckWindow::acknowledge` drops the entries before the one
            // matched: a late ACK2 for an older ACK then finds nothing.
            self.ack_window.drain(..=i);
        }
        // UDT4 times in whole microseconds, the ns-2 module in double seconds.
        let rtt = if udt4 { ((ctx.now - t) / 1000) as f64 } else { (ctx.now - t) as f64 / 1e3 };
        if rtt <= 0.0 {
            return;
        }
        if udt4 {
            // Integer microseconds, as UDT4.
            self.rtt_var_us = ((3.0 * self.rtt_var_us + (rtt - self.rtt_us).abs()) / 4.0).floor();
            self.rtt_us = ((7.0 * self.rtt_us + rtt) / 8.0).floor();
        } else {
            self.rtt_us = 0.875 * self.rtt_us + 0.125 * rtt;
        }
        self.last_ack_ack = self.last_ack_ack.max(ack);
    }
}

impl Agent for UdtReceiver {
    fn on_packet(&mut self, ctx: &mut Ctx, p: &Packet) {
        if p.flags & FLAG_UDT == 0 {
            return;
        }
        match p.kind {
            Kind::Datagram => self.on_data(ctx, p),
            _ if wire::ctrl_type(p) == Some(wire::ACK2) => self.on_ack2(ctx, p),
            _ => {}
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx, kind: u16, _token: u32) {
        if kind != TIMER_ACK {
            return;
        }
        self.timer_armed = false;
        self.send_ack(ctx);
        self.pkt_count = 0;
        self.light_count = 1;
        // Keep ticking while data arrives or the last ACK is unconfirmed.
        if std::mem::take(&mut self.active) || self.last_ack > self.last_ack_ack {
            self.arm(ctx);
        }
    }

    fn holds_all(&self) -> Option<bool> {
        self.total.map(|t| self.lrsn + 1 >= t as i64 && self.missing.is_empty())
    }

    fn summary(&self) -> Vec<(&'static str, f64)> {
        let s = &self.stats;
        vec![
            ("rcv_acks_sent", s.acks as f64),
            ("rcv_light_acks_sent", s.light_acks as f64),
            ("rcv_naks_sent", s.naks as f64),
            ("rcv_nak_packets", s.nak_packets as f64),
            ("rcv_ack2_received", s.ack2s as f64),
            ("rcv_duplicates", s.duplicates as f64),
            ("rcv_rtt_s", self.rtt_us / 1e6),
            ("rcv_missing", self.missing.len() as f64),
        ]
    }

    fn restart_counters(&mut self, _now: Time) {
        self.stats = RcvStats::default();
    }

    fn probe_names(&self) -> Vec<&'static str> {
        vec!["rcv_speed_pps", "rcv_capacity_pps"]
    }
    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.tw.speed());
        out.push(self.tw.capacity());
    }
}
