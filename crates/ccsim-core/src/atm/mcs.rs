//! `kind = "mcs"`: Paper B's ATM Multicast Server, at the switch where the group's tree
//! branches.
//!
//! - **Data**: cells addressed to a group are reassembled per VC (flow, source); a whole
//!   frame goes into the source's **common buffer** (`common_buffer` bytes per source,
//!   Paper B: 5 × the sender's window; the oldest frames are evicted when it is full) and a
//!   copy, segmented again, is sent down every branch of the group's tree at this node
//!   (the output port of each receiver). Corrupted PDUs are dropped (`corrupted`).
//! - **SPD** (`spd = true`, [`super::policy::spd`]): after each frame, while an output
//!   queue holds `spd_threshold` cells or more, one source's first whole frame is taken
//!   out of every congested queue, the source chosen by round robin. With `resend`, a
//!   frame taken is re-sent from the common buffer once its port holds fewer than
//!   `resend_below` cells (default: the SPD threshold; checked at every packet through the
//!   server and every `resend_interval`), and so is a
//!   copy its port did not take whole (EPD refused it, or it overflowed); if it was
//!   evicted meanwhile the receivers must get it from the source (counted `asked_source`:
//!   their duplicate ACKs reach it). With `local_repair` (default with `resend`) the server
//!   absorbs the duplicate ACKs that ask for a frame it is re-sending itself, so that the
//!   source does not retransmit it too.
//! - **ACKs** (`ack`): the receivers' ACKs to a source pass through the server. `min`
//!   (default) forwards an ACK when the smallest cumulative ACK over the group's receivers
//!   advances (carrying that value), and forwards the duplicate ACKs of the receivers at
//!   that minimum, so that the source's fast retransmit follows the slowest receiver;
//!   every other ACK is absorbed. A SYN-ACK (the `handshake`) goes on once every
//!   receiver has answered the SYN. `all` forwards every receiver's ACK unchanged.
//! - Other packets pass unchanged.

use super::aal5::{segment, Pdu, Reassembler};
use super::policy::spd::{self, Taken};
use super::CellInfo;
use crate::config::{Errors, Obj};
use crate::element::{ElemCtx, Element, ElementConfig, Pkt};
use crate::queue::DropReason;
use crate::rng::SimRng;
use crate::units::{Time, MS};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

const RESEND: u16 = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AckPolicy {
    Min,
    All,
}

/// `kind = "mcs"`'s configuration (its factory).
#[derive(Clone, Debug, serde::Serialize)]
pub struct McsConfig {
    /// Common buffer per source, bytes.
    pub common_buffer: u64,
    pub ack: AckPolicy,
    pub spd: bool,
    /// Cells at which an output queue is congested (SPD).
    pub spd_threshold: usize,
    pub resend: bool,
    /// Cells below which a port has room again for re-sends (default: `spd_threshold`).
    pub resend_below: usize,
    pub local_repair: bool,
    #[serde(serialize_with = "crate::config::ser::secs")]
    pub resend_interval: Time,
    pub llc: bool,
}

impl ElementConfig for McsConfig {
    fn kind(&self) -> &'static str {
        "mcs"
    }
    fn build(&self, _rng: SimRng) -> Box<dyn Element> {
        Box::new(Mcs {
            cfg: self.clone(),
            data: Reassembler::default(),
            acks: Reassembler::default(),
            sources: HashMap::new(),
            order: Vec::new(),
            next: 0,
            pending: Vec::new(),
            repairing: Vec::new(),
            taken: Vec::new(),
            spare: Vec::new(),
            branches: Vec::new(),
            ports: Vec::new(),
            timer: None,
            c: Counters::default(),
        })
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
    fn combines_acks(&self) -> bool {
        matches!(self.ack, AckPolicy::Min)
    }
    fn replicates(&self) -> bool {
        true
    }
}

/// Scenario: `{ kind = "mcs", common_buffer = "40KiB", ack = "min" | "all", spd = false,
/// spd_threshold (cells, required with spd), resend = spd, resend_below = spd_threshold,
/// local_repair = resend,
/// resend_interval = "1ms", llc = false }`.
pub fn parse(o: &mut Obj, errs: &mut Errors) -> Option<Arc<dyn ElementConfig>> {
    let common_buffer = o.bytes("common_buffer", errs).unwrap_or(5 * 8192);
    let ack = match o.choice("ack", &["min", "all"], Some("min"), errs)? {
        "all" => AckPolicy::All,
        _ => AckPolicy::Min,
    };
    let spd = o.boolean("spd", errs).unwrap_or(false);
    let threshold = o.int("spd_threshold", 1, 1 << 32, errs);
    // Refused after every field is read, so that a misspelt one is reported too.
    let no_threshold = spd && threshold.is_none();
    if no_threshold {
        errs.add(o.at("spd_threshold"), "required with spd = true: the queue length (cells) at which a port is congested");
    }
    if !spd && threshold.is_some() {
        errs.add(o.at("spd_threshold"), "applies to spd = true only");
    }
    let resend = o.boolean("resend", errs).unwrap_or(spd);
    if resend && !spd {
        errs.add(o.at("resend"), "applies to spd = true only (the server re-sends the frames SPD took)");
    }
    let resend_below = o.int("resend_below", 1, 1 << 32, errs).map(|v| v as usize);
    if let (Some(b), Some(t)) = (resend_below, threshold) {
        if b as i64 > t {
            errs.add(o.at("resend_below"), format!("must be at most spd_threshold ({t})"));
        }
    }
    if resend_below.is_some() && !resend {
        errs.add(o.at("resend_below"), "applies to resend = true only");
    }
    let local_repair = o.boolean("local_repair", errs).unwrap_or(resend);
    if local_repair && !resend {
        errs.add(o.at("local_repair"), "applies to resend = true only");
    }
    let resend_interval = o.time("resend_interval", errs).unwrap_or(MS);
    let llc = o.boolean("llc", errs).unwrap_or(false);
    if no_threshold {
        return None;
    }
    Some(Arc::new(McsConfig {
        common_buffer,
        ack,
        spd,
        spd_threshold: threshold.unwrap_or(0) as usize,
        resend,
        resend_below: resend_below.unwrap_or(threshold.unwrap_or(0) as usize),
        local_repair,
        resend_interval,
        llc,
    }))
}

#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    frames_received: u64,
    frames_corrupted: u64,
    cells_wasted: u64,
    copies_sent: u64,
    spd_taken: u64,
    resent: u64,
    asked_source: u64,
    evicted: u64,
    acks_forwarded: u64,
    acks_absorbed: u64,
    dupacks_absorbed: u64,
    refused: u64,
}

/// One source (a multicast flow): its group, common buffer and receivers' ACKs.
struct Source {
    group: u32,
    frames: VecDeque<(u64, Pkt)>,
    bytes: u64,
    acks: HashMap<u32, u64>,
    forwarded: u64,
    /// The receivers that answered a SYN (with `ack = "min"`, the SYN-ACK goes on once
    /// every member has answered: the connection opens with the slowest receiver).
    opened: Vec<u32>,
}

pub struct Mcs {
    cfg: McsConfig,
    data: Reassembler,
    acks: Reassembler,
    sources: HashMap<u32, Source>,
    /// Sources in the order first seen (SPD's round robin).
    order: Vec<u32>,
    next: usize,
    /// Frames SPD took, waiting to be re-sent.
    pending: Vec<Taken>,
    /// (flow, seq) of frames the server repairs itself (taken, not yet past every receiver).
    repairing: Vec<(u32, u64)>,
    taken: Vec<Taken>,
    /// Scratch vectors (no allocation per frame once grown).
    spare: Vec<Taken>,
    branches: Vec<u32>,
    ports: Vec<u32>,
    timer: Option<Time>,
    c: Counters,
}

impl Mcs {
    /// Sends a copy of frame `i` of `flow`'s common buffer down `port`. With `resend`, a
    /// copy the port did not take whole (EPD refused it, or it overflowed) waits to be
    /// re-sent like a frame SPD took. The port's own count of cells refused on arrival
    /// tells: its queue's length does not, since a cell may start its transmission while
    /// the copy is queued (an idle port, or one whose cell ends at this instant), which had
    /// made copies taken whole look refused and re-sent (forty-third session). (On a
    /// drop-from-front port, a copy's own cells taken from the front are not counted.)
    fn send_copy(&mut self, ctx: &mut ElemCtx, flow: u32, i: usize, port: u32) {
        let (seq, copy) = {
            let (seq, f) = &self.sources[&flow].frames[i];
            (*seq, ctx.replicate(f))
        };
        let before = ctx.arrival_drops(port);
        match segment(ctx, copy, self.cfg.llc, |ctx, cell| ctx.send_on(port, cell)) {
            Ok(_) => {
                self.c.copies_sent += 1;
                if self.cfg.resend && ctx.arrival_drops(port) > before {
                    self.c.refused += 1;
                    self.wait_for_resend(Taken { flow, seq, port });
                }
            }
            Err(p) => ctx.drop(p, DropReason::Policed),
        }
    }

    fn wait_for_resend(&mut self, t: Taken) {
        if !self.pending.contains(&t) {
            self.pending.push(t);
        }
        if self.cfg.local_repair && !self.repairing.contains(&(t.flow, t.seq)) {
            self.repairing.push((t.flow, t.seq));
        }
    }

    fn on_frame(&mut self, ctx: &mut ElemCtx, frame: Pkt) {
        self.c.frames_received += 1;
        let pk = *ctx.packet(&frame);
        if !self.sources.contains_key(&pk.flow) {
            self.order.push(pk.flow);
            let s = Source { group: pk.dst, frames: VecDeque::new(), bytes: 0, acks: HashMap::new(), forwarded: 0, opened: Vec::new() };
            self.sources.insert(pk.flow, s);
        }
        let cap = self.cfg.common_buffer;
        let s = self.sources.get_mut(&pk.flow).unwrap();
        if let Some(i) = s.frames.iter().position(|(q, _)| *q == pk.seq) {
            // The source re-sent it: the newer copy replaces the one kept.
            let (_, old) = s.frames.remove(i).unwrap();
            s.bytes -= ctx.packet(&old).size as u64;
            ctx.consume(old);
        }
        s.bytes += pk.size as u64;
        s.frames.push_back((pk.seq, frame));
        while s.bytes > cap && s.frames.len() > 1 {
            let (_, old) = s.frames.pop_front().unwrap();
            s.bytes -= ctx.packet(&old).size as u64;
            ctx.consume(old);
            self.c.evicted += 1;
        }
        let i = s.frames.len() - 1;
        self.branches.clear();
        self.branches.extend_from_slice(ctx.group_branches(pk.dst));
        for k in 0..self.branches.len() {
            let port = self.branches[k];
            self.send_copy(ctx, pk.flow, i, port);
        }
        if self.cfg.spd {
            self.ports.clear();
            self.ports.extend_from_slice(ctx.out_links());
            self.taken.clear();
            spd::run(ctx, &self.ports, self.cfg.spd_threshold, &self.order, &mut self.next, &mut self.taken);
            self.c.spd_taken += self.taken.len() as u64;
            if self.cfg.resend {
                for k in 0..self.taken.len() {
                    let t = self.taken[k];
                    self.wait_for_resend(t);
                }
            }
        }
    }

    /// Re-sends the frames SPD took whose port is below the threshold again. Each waiting
    /// frame is tried once per call (a copy refused again waits for the next call).
    fn resend(&mut self, ctx: &mut ElemCtx) {
        // The waiting list moves to `spare` (both keep their capacity: no allocation).
        std::mem::swap(&mut self.pending, &mut self.spare);
        for k in 0..self.spare.len() {
            let t = self.spare[k];
            if ctx.queue_len(t.port).0 >= self.cfg.resend_below {
                if !self.pending.contains(&t) {
                    self.pending.push(t);
                }
                continue;
            }
            match self.sources[&t.flow].frames.iter().position(|(q, _)| *q == t.seq) {
                Some(i) => {
                    self.c.resent += 1;
                    self.send_copy(ctx, t.flow, i, t.port);
                }
                None => {
                    // Evicted: the receivers' duplicate ACKs must reach the source.
                    self.c.asked_source += 1;
                    self.repairing.retain(|&r| r != (t.flow, t.seq));
                }
            }
        }
        self.spare.clear();
        if !self.pending.is_empty() && self.timer.is_none() {
            let at = ctx.now + self.cfg.resend_interval;
            self.timer = Some(at);
            ctx.timer_at(at, RESEND, 0);
        }
    }

    fn on_ack(&mut self, ctx: &mut ElemCtx, ack: Pkt) {
        let a = *ctx.packet(&ack);
        let forward = match (self.cfg.ack, self.sources.get_mut(&a.flow)) {
            (AckPolicy::All, _) | (_, None) => Some(a.ack),
            (AckPolicy::Min, Some(s)) if a.flags & crate::packet::FLAG_SYN != 0 => {
                // A SYN-ACK carries no cumulative ACK to take the minimum of: it goes on
                // once every member has answered a SYN (again for a retransmitted SYN's
                // answers, which the source ignores once open).
                if !s.opened.contains(&a.src) {
                    s.opened.push(a.src);
                }
                ctx.group_members(s.group).iter().all(|m| s.opened.contains(m)).then_some(a.ack)
            }
            (AckPolicy::Min, Some(s)) => {
                s.acks.insert(a.src, a.ack);
                let members = ctx.group_members(s.group);
                let min =
                    if members.iter().all(|m| s.acks.contains_key(m)) { members.iter().map(|m| s.acks[m]).min().unwrap_or(0) } else { 0 };
                if min > s.forwarded {
                    s.forwarded = min;
                    self.repairing.retain(|&(f, q)| f != a.flow || q >= min);
                    Some(min)
                } else if a.ack == min && min > 0 {
                    if self.repairing.contains(&(a.flow, a.ack)) {
                        // A duplicate asking for a frame the server re-sends itself.
                        self.c.dupacks_absorbed += 1;
                        None
                    } else {
                        Some(min)
                    }
                } else {
                    None
                }
            }
        };
        match forward {
            Some(v) => {
                self.c.acks_forwarded += 1;
                ctx.packet_mut(&ack).ack = v;
                if let Err(p) = segment(ctx, ack, self.cfg.llc, |ctx, cell| ctx.pass(cell)) {
                    ctx.drop(p, DropReason::Policed);
                }
            }
            None => {
                self.c.acks_absorbed += 1;
                ctx.consume(ack);
            }
        }
    }
}

impl Element for Mcs {
    fn on_packet(&mut self, ctx: &mut ElemCtx, p: Pkt) {
        if !self.pending.is_empty() {
            self.resend(ctx);
        }
        let pk = ctx.packet(&p);
        if CellInfo::of(pk).is_none() {
            return ctx.pass(p);
        }
        let vc = (pk.flow as u64) << 32 | pk.src as u64;
        let to_group = !ctx.group_members(pk.dst).is_empty();
        let is_ack = !to_group && self.sources.contains_key(&pk.flow);
        if !to_group && !is_ack {
            return ctx.pass(p);
        }
        let rx = if to_group { &mut self.data } else { &mut self.acks };
        match rx.push(ctx, vc, p) {
            None => {}
            Some(Pdu::Corrupted { frames, cells }) => {
                self.c.frames_corrupted += frames as u64;
                self.c.cells_wasted += cells as u64;
            }
            Some(Pdu::Good(f)) if to_group => self.on_frame(ctx, f),
            Some(Pdu::Good(a)) => self.on_ack(ctx, a),
        }
    }

    fn on_timer(&mut self, ctx: &mut ElemCtx, kind: u16, _token: u32) {
        if kind == RESEND && self.timer == Some(ctx.now) {
            self.timer = None;
            self.resend(ctx);
        }
    }

    fn held(&self) -> (usize, u64) {
        let frames: usize = self.sources.values().map(|s| s.frames.len()).sum();
        let bytes: u64 = self.sources.values().map(|s| s.bytes).sum();
        (frames + self.data.held + self.acks.held, bytes + 53 * (self.data.held + self.acks.held) as u64)
    }

    fn summary(&self, _now: crate::units::Time) -> Vec<(&'static str, f64)> {
        let c = self.c;
        vec![
            ("frames_received", c.frames_received as f64),
            ("frames_corrupted", c.frames_corrupted as f64),
            ("cells_wasted", c.cells_wasted as f64),
            ("copies_sent", c.copies_sent as f64),
            ("spd_taken", c.spd_taken as f64),
            ("resent", c.resent as f64),
            ("asked_source", c.asked_source as f64),
            ("evicted", c.evicted as f64),
            ("acks_forwarded", c.acks_forwarded as f64),
            ("acks_absorbed", c.acks_absorbed as f64),
            ("dupacks_absorbed", c.dupacks_absorbed as f64),
            ("refused", c.refused as f64),
        ]
    }

    fn probe_names(&self) -> Vec<&'static str> {
        vec!["buffer_bytes", "pending", "spd_taken", "resent"]
    }

    fn probe(&self, _now: Time, out: &mut Vec<f64>) {
        let bytes: u64 = self.sources.values().map(|s| s.bytes).sum();
        out.extend([bytes as f64, self.pending.len() as f64, self.c.spd_taken as f64, self.c.resent as f64]);
    }

    fn restart_counters(&mut self, _now: Time) {
        self.c = Counters::default();
    }
}
