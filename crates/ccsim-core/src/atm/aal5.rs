//! `kind = "aal5"`: AAL5 segmentation and reassembly at a node's ATM interface.
//!
//! - **Segmentation**: a packet that is not a cell and is not addressed to this node (what
//!   the node's agents send, or what it forwards onto ATM) becomes a frame of
//!   `n = ⌈(size + 8 [+ 8 LLC/SNAP]) / 48⌉` cells (53 bytes each), passed on in order; the
//!   frame itself stays in the packet pool until its last cell is gone.
//! - **Reassembly**: cells addressed to this node (or to a group it receives) are collected per virtual circuit (flow,
//!   source) until a cell with the end-of-frame bit arrives. The PDU is good if it holds
//!   exactly its frame's cells, in order: the frame (with its original uid) goes on to the
//!   node's agent. Otherwise it is **corrupted**, as AAL5's length and CRC checks would find:
//!   a lost cell, or a lost end-of-frame cell that merged two frames into one PDU. Every
//!   frame with a cell in it is then dropped (reason `corrupted`, counted for its flow), and
//!   its cells are wasted link capacity (`cells_wasted`). A frame that lost every cell,
//!   end-of-frame included, never reaches the receiver: its loss shows at the queues that
//!   dropped the cells.
//! - Cells passing through (addressed elsewhere) pass unchanged.

use super::{cells_for, CellInfo, CELL_BYTES, CELL_PAYLOAD};
use crate::config::{Errors, Obj};
use crate::element::{ElemCtx, Element, ElementConfig, Pkt};
use crate::packet::{Kind, Packet};
use crate::queue::DropReason;
use crate::rng::SimRng;
use crate::units::Time;
use std::collections::HashMap;
use std::sync::Arc;

/// AAL5's largest frame (CPCS-SDU), bytes.
pub const MAX_FRAME: u32 = 65_535;

/// `kind = "aal5"`: `llc` (false): RFC 2684 LLC/SNAP encapsulation, 8 more bytes per frame.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Aal5Config {
    pub llc: bool,
}

impl ElementConfig for Aal5Config {
    fn kind(&self) -> &'static str {
        "aal5"
    }
    fn build(&self, _rng: SimRng) -> Box<dyn Element> {
        Box::new(Aal5 { cfg: *self, rx: Reassembler::default(), c: Counters::default() })
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
}

pub fn parse(o: &mut Obj, errs: &mut Errors) -> Option<Arc<dyn ElementConfig>> {
    Some(Arc::new(Aal5Config { llc: o.boolean("llc", errs).unwrap_or(false) }))
}

#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    frames_segmented: u64,
    cells_sent: u64,
    cells_received: u64,
    frames_delivered: u64,
    frames_corrupted: u64,
    cells_wasted: u64,
}

pub struct Aal5 {
    cfg: Aal5Config,
    rx: Reassembler,
    c: Counters,
}

/// Segments frame `p` into cells handed to `out` in order (`None`: over AAL5's largest
/// frame; `p` is given back to be dropped). Returns the number of cells.
pub fn segment(ctx: &mut ElemCtx, p: Pkt, llc: bool, mut out: impl FnMut(&mut ElemCtx, Pkt)) -> Result<u32, Pkt> {
    let f: Packet = *ctx.packet(&p);
    if f.size > MAX_FRAME {
        return Err(p);
    }
    let n = cells_for(f.size, llc);
    let frame = ctx.into_frame(p, n);
    let mut left = f.size;
    for i in 0..n {
        let payload = left.min(CELL_PAYLOAD);
        left -= payload;
        let info = CellInfo { frame, index: i as u16, count: n as u16 };
        let cell = ctx.create(|q| {
            *q = Packet {
                flow: f.flow,
                src: f.src,
                dst: f.dst,
                size: CELL_BYTES,
                payload,
                kind: Kind::Cell,
                dscp: f.dscp,
                seq: f.seq,
                ack: f.ack,
                sent_at: f.sent_at,
                aux: info.encode(),
                ..Default::default()
            }
        });
        out(ctx, cell);
    }
    Ok(n)
}

/// What a PDU's end-of-frame cell completed.
pub enum Pdu {
    /// The frame, whole (a copy with the original's uid).
    Good(Pkt),
    /// A corrupted PDU: its frames were dropped (`corrupted`) and its cells consumed.
    Corrupted { frames: u32, cells: u32 },
}

/// Reassembly per virtual circuit: cells are held until their PDU's end-of-frame cell.
#[derive(Default)]
pub struct Reassembler {
    pdus: HashMap<u64, Vec<Pkt>>,
    /// Cells held.
    pub held: usize,
}

impl Reassembler {
    /// Takes cell `p` of virtual circuit `vc`; at an end-of-frame cell, the PDU's outcome.
    pub fn push(&mut self, ctx: &mut ElemCtx, vc: u64, p: Pkt) -> Option<Pdu> {
        let last = CellInfo::of(ctx.packet(&p)).expect("a cell").last();
        let from = p.from;
        self.held += 1;
        self.pdus.entry(vc).or_default().push(p);
        if !last {
            return None;
        }
        let mut cells = self.pdus.remove(&vc).unwrap_or_default();
        self.held -= cells.len();
        let info = |ctx: &ElemCtx, c: &Pkt| CellInfo::of(ctx.packet(c)).expect("only cells are collected");
        let first = info(ctx, &cells[0]);
        let good = cells.len() == first.count as usize
            && cells.iter().enumerate().all(|(i, c)| {
                let x = info(ctx, c);
                x.frame == first.frame && x.index as usize == i
            });
        let out = if good {
            let frame = ctx.frame_copy(first.frame, from);
            Pdu::Good(frame)
        } else {
            let mut seen: Vec<u32> = Vec::new();
            for c in &cells {
                let f = info(ctx, c).frame;
                if !seen.contains(&f) {
                    seen.push(f);
                    let copy = ctx.frame_copy(f, from);
                    ctx.drop(copy, DropReason::Corrupted);
                }
            }
            Pdu::Corrupted { frames: seen.len() as u32, cells: cells.len() as u32 }
        };
        for c in cells.drain(..) {
            ctx.consume(c);
        }
        // Keep the buffer's capacity for the circuit's next PDU.
        self.pdus.insert(vc, cells);
        Some(out)
    }
}

impl Element for Aal5 {
    fn on_packet(&mut self, ctx: &mut ElemCtx, p: Pkt) {
        let pk = ctx.packet(&p);
        let here = ctx.addressed_here(pk.dst);
        if CellInfo::of(pk).is_none() {
            if here {
                return ctx.pass(p);
            }
            return match segment(ctx, p, self.cfg.llc, |ctx, cell| ctx.pass(cell)) {
                Ok(n) => {
                    self.c.frames_segmented += 1;
                    self.c.cells_sent += n as u64;
                }
                Err(p) => ctx.drop(p, DropReason::Policed),
            };
        }
        if !here {
            return ctx.pass(p);
        }
        let vc = (pk.flow as u64) << 32 | pk.src as u64;
        self.c.cells_received += 1;
        match self.rx.push(ctx, vc, p) {
            None => {}
            Some(Pdu::Good(frame)) => {
                self.c.frames_delivered += 1;
                ctx.pass(frame);
            }
            Some(Pdu::Corrupted { frames, cells }) => {
                self.c.frames_corrupted += frames as u64;
                self.c.cells_wasted += cells as u64;
            }
        }
    }

    fn held(&self) -> (usize, u64) {
        (self.rx.held, self.rx.held as u64 * CELL_BYTES as u64)
    }

    fn summary(&self, _now: crate::units::Time) -> Vec<(&'static str, f64)> {
        let c = self.c;
        vec![
            ("frames_segmented", c.frames_segmented as f64),
            ("cells_sent", c.cells_sent as f64),
            ("cells_received", c.cells_received as f64),
            ("frames_delivered", c.frames_delivered as f64),
            ("frames_corrupted", c.frames_corrupted as f64),
            ("cells_wasted", c.cells_wasted as f64),
        ]
    }

    fn probe_names(&self) -> Vec<&'static str> {
        vec!["cells_pending", "frames_delivered", "frames_corrupted"]
    }

    fn probe(&self, _now: Time, out: &mut Vec<f64>) {
        out.extend([self.rx.held as f64, self.c.frames_delivered as f64, self.c.frames_corrupted as f64]);
    }

    fn restart_counters(&mut self, _now: Time) {
        self.c = Counters::default();
    }
}
