//! The TCP receiver: cumulative ACKs, out-of-order ranges, SACK blocks (RFC 2018: the
//! first block holds the segment that triggered the ACK, the rest follow by recency),
//! ns-2's `Sacker` as an option (`sack_blocks = "ns2"`), delayed ACKs (every `delack_count` in-order segments or after `delack_timeout`;
//! immediate ACK for out-of-order segments and for segments that fill a hole), the
//! advertised window, and the echoed timestamp of ns-2's sink: the send time of the newest
//! segment at or below the next expected byte (so dupACKs echo the last in-order segment).

use super::TcpConfig;
use crate::agent::{Agent, Ctx};
use crate::packet::{Kind, Packet};
use crate::units::Time;
use std::sync::Arc;

const TIMER_DELACK: u16 = 0;

pub struct TcpReceiver {
    cfg: Arc<TcpConfig>,
    rcv_nxt: u64,
    /// Out-of-order blocks `(start, end, update count)`, sorted: a deque, since filling the
    /// first hole removes the front block (hundreds of holes after a large overflow); its
    /// first two in the receiver itself (`tcp::ooo`).
    ooo: super::ooo::Blocks,
    ts_recent: Time,
    pending: u32,
    delack_token: u32,
    delack_armed: bool,
    /// When the armed delayed-ACK timer fires.
    delack_at: Time,
    updates: u64,
    pub acks_sent: u64,
    pub dup_segments: u64,
    /// Bytes of a finite transfer (its completion is reported once they are all here).
    total: Option<u64>,
    /// With `sack_blocks = "ns2"`: ns-2's `SackStack`, the last blocks reported (newest first).
    stack: Vec<(u64, u64)>,
    /// With `syn_immediate_ack = false`: the SYN whose ACK waits for the timer (its send time).
    syn_waiting: Option<Time>,
    /// The SYN offered SACK (for the SYN-ACK's options in traces only: RFC 2018's
    /// SACK-permitted is an answer to the SYN's).
    peer_sack: bool,
}

impl TcpReceiver {
    /// A receiver for a transfer of `total` bytes (None: infinite).
    pub fn new(cfg: Arc<TcpConfig>, total: Option<u64>) -> Self {
        TcpReceiver {
            cfg,
            rcv_nxt: 0,
            ooo: super::ooo::Blocks::default(),
            ts_recent: 0,
            pending: 0,
            delack_token: 0,
            delack_armed: false,
            delack_at: 0,
            updates: 0,
            acks_sent: 0,
            dup_segments: 0,
            total,
            stack: Vec::new(),
            syn_waiting: None,
            peer_sack: false,
        }
    }

    fn send_syn_ack(&mut self, ctx: &mut Ctx, echo: Time) {
        let (size, wnd, ts) = (self.cfg.header_bytes(0), self.cfg.window_bytes.min(u32::MAX as u64) as u32, self.cfg.timestamps);
        let options = crate::packet::syn_options(self.cfg.mss, self.cfg.sack && self.peer_sack);
        ctx.send_with(|q| {
            q.kind = Kind::Ack;
            q.flags = crate::packet::FLAG_SYN | if ts { crate::packet::FLAG_TS } else { 0 };
            q.wnd = wnd;
            q.ts_echo = echo;
            q.size = size;
            q.aux = options;
        });
    }

    /// Delays the ACK: counts the segment and arms the timer if it is not armed.
    fn delay_ack(&mut self, ctx: &mut Ctx) {
        self.pending += 1;
        if self.pending >= self.cfg.delack_count {
            self.send_ack(ctx, None);
        } else {
            self.arm_delack(ctx);
        }
    }

    fn arm_delack(&mut self, ctx: &mut Ctx) {
        if !self.delack_armed {
            self.delack_armed = true;
            self.delack_token = self.delack_token.wrapping_add(1);
            self.delack_at = ctx.now + self.cfg.delack_timeout;
            ctx.timer_at(self.delack_at, TIMER_DELACK, self.delack_token);
        }
    }

    /// ns-2's `Sacker::append_ack`: the block holding the segment just received (if above
    /// the cumulative ACK), then the blocks of the stack that it does not cover, newest
    /// first; the new block goes on top of the stack, whose oldest entry falls off. Without
    /// out-of-order data the stack empties and no block is sent.
    fn ns2_blocks(&mut self, first: Option<(u64, u64)>, out: &mut [(u64, u64); 4]) -> usize {
        if self.ooo.is_empty() {
            self.stack.clear();
            return 0;
        }
        let max = (self.cfg.max_sack_blocks as usize).min(out.len());
        let recent = first.unwrap_or((0, self.rcv_nxt));
        let mut n = 0;
        if let Some(b) = first {
            out[0] = b;
            n = 1;
        }
        let mut k = 0;
        while n < max && k < self.stack.len() {
            let b = self.stack[k];
            if recent.0 <= b.0 && recent.1 >= b.1 {
                self.stack.remove(k);
                continue;
            }
            out[n] = b;
            n += 1;
            k += 1;
        }
        if let Some(b) = first {
            if self.stack.len() >= max {
                self.stack.truncate(max.saturating_sub(1));
            }
            self.stack.insert(0, b);
        }
        n
    }

    /// Adds `[s, e)` to the out-of-order list, merging; returns the merged range.
    fn insert_ooo(&mut self, s: u64, e: u64) -> (u64, u64) {
        self.updates += 1;
        let blocks: &[super::ooo::Block] = &self.ooo;
        let i = blocks.partition_point(|b| b.1 < s);
        let mut j = i;
        let (mut ns, mut ne) = (s, e);
        while j < blocks.len() && blocks[j].0 <= ne {
            ns = ns.min(blocks[j].0);
            ne = ne.max(blocks[j].1);
            j += 1;
        }
        if j == i {
            self.ooo.insert(i, (ns, ne, self.updates));
        } else {
            self.ooo.set(i, (ns, ne, self.updates));
            self.ooo.remove_range(i + 1, j);
        }
        (ns, ne)
    }

    fn send_ack(&mut self, ctx: &mut Ctx, first: Option<(u64, u64)>) {
        let mut ns2 = [(0, 0); 4];
        let n_ns2 = if self.cfg.sack && self.cfg.ns2_sack_blocks { self.ns2_blocks(first, &mut ns2) } else { 0 };
        let cfg = &self.cfg;
        let (ooo, rcv_nxt, ts_recent) = (&self.ooo, self.rcv_nxt, self.ts_recent);
        ctx.send_with(|p| {
            p.kind = Kind::Ack;
            p.ack = rcv_nxt;
            p.ts_echo = ts_recent;
            p.wnd = cfg.window_bytes.min(u32::MAX as u64) as u32;
            if cfg.timestamps {
                p.flags |= crate::packet::FLAG_TS;
            }
            if cfg.sack && cfg.ns2_sack_blocks {
                for (i, b) in ns2[..n_ns2].iter().enumerate() {
                    p.set_sack_block(i, b.0, b.1);
                }
                p.nsack = n_ns2 as u8;
            } else if cfg.sack && !ooo.is_empty() {
                let max = cfg.max_sack_blocks as usize;
                let mut n = 0;
                if let Some((s, e)) = first {
                    p.set_sack_block(0, s, e);
                    n = 1;
                }
                // The remaining blocks, most recently updated first (no allocation: k passes).
                let mut last_pick = u64::MAX;
                while n < max.min(p.sack.len()) {
                    let pick = ooo.iter().filter(|b| Some((b.0, b.1)) != first && b.2 < last_pick).max_by_key(|b| b.2);
                    let Some(b) = pick else { break };
                    p.set_sack_block(n, b.0, b.1);
                    last_pick = b.2;
                    n += 1;
                }
                p.nsack = n as u8;
            }
            p.size = cfg.header_bytes(p.nsack);
        });
        self.acks_sent += 1;
        self.pending = 0;
        if self.delack_armed {
            self.delack_armed = false;
            self.delack_token = self.delack_token.wrapping_add(1);
        }
    }
}

impl Agent for TcpReceiver {
    fn on_packet(&mut self, ctx: &mut Ctx, p: &Packet) {
        if p.kind == Kind::Control && p.flags & crate::packet::FLAG_SYN != 0 {
            // A SYN (or a retransmitted one): answer with a SYN-ACK carrying the window, at
            // once or (ns-2 `SYN_immediate_ack_ false`) when the delayed-ACK timer fires.
            self.peer_sack = p.aux & crate::packet::SYN_SACK_PERMITTED != 0;
            if self.cfg.delayed_ack && !self.cfg.syn_immediate_ack {
                if self.syn_waiting.is_none() {
                    self.syn_waiting = Some(p.sent_at);
                    self.arm_delack(ctx);
                }
                return;
            }
            return self.send_syn_ack(ctx, p.sent_at);
        }
        if p.kind != Kind::Data {
            return;
        }
        let (s, e) = (p.seq, p.seq + p.payload as u64);
        if e <= self.rcv_nxt {
            // Entirely old: a duplicate; ACK at once (ns-2's DelAck sink delays the ACK of a
            // duplicate of the last in-order segment when no ACK is waiting).
            self.dup_segments += 1;
            if self.cfg.delayed_ack && self.cfg.delack_duplicates && e == self.rcv_nxt && !self.delack_armed {
                return self.delay_ack(ctx);
            }
            return self.send_ack(ctx, None);
        }
        if s > self.rcv_nxt {
            // Out of order: remember, duplicate ACK at once.
            let blk = self.insert_ooo(s, e);
            return self.send_ack(ctx, Some(blk));
        }
        // In order (possibly overlapping old data).
        let before = self.rcv_nxt;
        let had_holes = !self.ooo.is_empty();
        self.rcv_nxt = e;
        while let Some(&(bs, be, _)) = self.ooo.first() {
            if bs > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(be);
            self.ooo.pop_front();
        }
        self.ts_recent = p.sent_at;
        ctx.add_goodput(self.rcv_nxt - before);
        if self.total.is_some_and(|t| before < t && self.rcv_nxt >= t) {
            ctx.complete();
        }
        // A segment that filled a hole: at once if it joined data held above it, or if data
        // remains above it and RFC 2581's immediate ACK applies.
        let joined = self.rcv_nxt > e;
        if !self.cfg.delayed_ack || (had_holes && (joined || self.cfg.rfc2581_immediate_ack)) {
            return self.send_ack(ctx, None);
        }
        self.delay_ack(ctx);
    }

    fn next_wakeup(&self) -> Option<Time> {
        Some(if self.delack_armed { self.delack_at } else { Time::MAX })
    }

    /// Without delayed ACKs the receiver arms no timer (the delayed-ACK timer is its only
    /// one, the SYN's wait included).
    fn timerless(&self) -> bool {
        !self.cfg.delayed_ack
    }

    fn on_timer(&mut self, ctx: &mut Ctx, kind: u16, token: u32) {
        if kind == TIMER_DELACK && token == self.delack_token && self.delack_armed {
            self.delack_armed = false;
            if let Some(echo) = self.syn_waiting.take() {
                return self.send_syn_ack(ctx, echo);
            }
            if self.pending > 0 {
                self.send_ack(ctx, None);
            }
        }
    }

    fn holds_all(&self) -> Option<bool> {
        self.total.map(|t| self.rcv_nxt >= t)
    }

    fn summary(&self) -> Vec<(&'static str, f64)> {
        vec![("acks_sent", self.acks_sent as f64), ("duplicate_segments", self.dup_segments as f64)]
    }

    fn restart_counters(&mut self, _now: Time) {
        (self.acks_sent, self.dup_segments) = (0, 0);
    }
}
