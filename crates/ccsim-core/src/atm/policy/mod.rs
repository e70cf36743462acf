//! `queue = { kind = "cell", ... }`: a cell switch's output-port FIFO, its buffer counted in
//! cells, with the buffer policies of TCP-over-ATM studies (PROTOCOLS.md §8.3, §11.16):
//!
//! - **admission** (`epd_threshold` or `epd_fraction`): Early Packet Discard refuses a
//!   frame whose first cell finds the queue at or above the threshold ([`epd`]); drops
//!   counted `early`.
//! - **overflow** (a cell that finds the buffer full):
//!   - `tail`: that cell is lost; the rest of its frame is still queued and carried;
//!   - `ppd`: Partial Packet Discard — that cell and the rest of its frame but the
//!     end-of-frame cell ([`ppd`]);
//!   - `drop_rest`: that cell and the whole rest of its frame, end-of-frame included (the
//!     EPD variant of §11.16);
//!   - `dff_cell` / `dff_frame`: Drop From Front — the head cell, or every queued cell of
//!     the head cell's frame (and its cells still to come), goes and the arrival is
//!     accepted ([`dff`]).
//!
//!   The cell lost to a full buffer counts `overflow`; the rest of a frame discarded
//!   because of it `forced`; cells dropped from the front `front`.
//! - **`dff_at = "epd"`** (with EPD and a `dff_*` overflow): drop from front also when EPD
//!   refuses a frame, that is at EPD's threshold rather than at a full buffer only (a
//!   reading of Paper B's "EPD + DFF": whole packets dropped from the front on congestion):
//!   with `dff_frame` the first frame queued from its first cell goes, not the rest of one
//!   partly sent.
//!
//! Per-VC state (one entry per flow and destination) remembers which frame is being
//! discarded. Packets that are not cells are queued and tail-dropped as one-cell frames.

pub mod dff;
pub mod epd;
pub mod ppd;
pub mod spd;

use super::{vc_of, CellInfo};
use crate::config::{Errors, Obj};
use crate::packet::{PacketPool, PktId};
use crate::queue::{reserve_for, DropReason, Dropped, Fifo, Limit, LinkInfo, Queue, QueueConfig};
use crate::rng::Stream;
use crate::units::Time;
use ppd::{Discard, VcTable};
use std::sync::Arc;

/// What a cell that finds the buffer full does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Overflow {
    Tail,
    Ppd,
    DropRest,
    DffCell,
    DffFrame,
}

const OVERFLOWS: [(&str, Overflow); 5] = [
    ("tail", Overflow::Tail),
    ("ppd", Overflow::Ppd),
    ("drop_rest", Overflow::DropRest),
    ("dff_cell", Overflow::DffCell),
    ("dff_frame", Overflow::DffFrame),
];

/// `kind = "cell"`'s configuration (its factory).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CellQueueParams {
    /// Buffer, cells.
    pub limit: usize,
    /// EPD threshold, cells (none: no EPD).
    pub epd_threshold: Option<usize>,
    pub overflow: Overflow,
    /// Where drop from front acts: at a full buffer only, or also when EPD refuses a frame.
    pub dff_at: DffAt,
}

/// `dff_at`: where a `dff_*` overflow drops from the front.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DffAt {
    /// When a cell finds the buffer full.
    Overflow,
    /// Also when EPD refuses a frame (at EPD's threshold).
    Epd,
}

pub struct CellQueue {
    fifo: Fifo,
    p: CellQueueParams,
    vcs: VcTable,
    removed: Vec<PktId>,
}

impl CellQueue {
    pub fn new(p: CellQueueParams) -> Self {
        CellQueue {
            fifo: Fifo::with_capacity(reserve_for(Limit::Packets(p.limit as u64))),
            p,
            vcs: VcTable::default(),
            removed: Vec::new(),
        }
    }

    /// Drops from the front into `dropped`: the head cell, or with `dff_frame` the head
    /// cell's frame (`whole = false`: a full buffer) or the first frame queued from its
    /// first cell (`whole`: `dff_at = "epd"`, Paper B's "whole packets dropped from the
    /// front"). A frame whose end-of-frame cell was not queued has its later cells
    /// discarded too; returns that frame's (VC, frame).
    fn drop_front(&mut self, pool: &PacketPool, dropped: &mut Dropped, whole: bool) -> Option<(u64, PktId)> {
        self.removed.clear();
        let frame = self.p.overflow == Overflow::DffFrame;
        let flagged = if frame && whole {
            dff::drop_first_whole(&mut self.fifo, pool, &mut self.removed)
        } else {
            dff::drop_front(&mut self.fifo, pool, frame, &mut self.removed)
        };
        dropped.extend(self.removed.iter().map(|&r| (r, DropReason::Front)));
        if let Some((v, f)) = flagged {
            self.vcs.discard_frame(v, f);
        }
        flagged
    }
}

impl Queue for CellQueue {
    fn enqueue(&mut self, _now: Time, id: PktId, pool: &PacketPool, dropped: &mut Dropped) {
        let pk = pool.get(id);
        let full = self.fifo.len() >= self.p.limit;
        let Some(c) = CellInfo::of(pk) else {
            if full {
                dropped.push((id, DropReason::Overflow));
            } else {
                self.fifo.push(id, pool);
            }
            return;
        };
        let vc = vc_of(pk);
        if self.vcs.discards(vc, c) {
            return dropped.push((id, DropReason::Forced));
        }
        if c.first() && epd::refuses(self.fifo.len(), self.p.epd_threshold) {
            dropped.push((id, DropReason::Early));
            if self.p.dff_at == DffAt::Epd {
                self.drop_front(pool, dropped, true);
            }
            // After the drop from front's own discard: the refused frame's state wins on
            // its VC (the head frame is on it only if an earlier end-of-frame was lost).
            return self.vcs.start(vc, c, Discard::All);
        }
        if !full {
            return self.fifo.push(id, pool);
        }
        let rest = match self.p.overflow {
            Overflow::Tail => None,
            Overflow::Ppd => Some(Discard::KeepLast),
            Overflow::DropRest => Some(Discard::All),
            Overflow::DffCell | Overflow::DffFrame => {
                if let Some((v, f)) = self.drop_front(pool, dropped, false) {
                    if (v, f) == (vc, c.frame) {
                        // The arrival's own frame went from the front: it goes too.
                        self.vcs.discards(vc, c);
                        return dropped.push((id, DropReason::Front));
                    }
                }
                if self.fifo.len() < self.p.limit {
                    return self.fifo.push(id, pool);
                }
                None
            }
        };
        if let Some(mode) = rest {
            self.vcs.start(vc, c, mode);
        }
        dropped.push((id, DropReason::Overflow));
    }

    fn dequeue(&mut self, _now: Time, pool: &PacketPool) -> Option<PktId> {
        self.fifo.pop(pool)
    }

    fn remove_where(&mut self, pool: &PacketPool, pred: &mut dyn FnMut(&crate::packet::Packet) -> bool, removed: &mut Vec<PktId>) -> bool {
        self.fifo.remove_where(pool, pred, removed);
        true
    }
    crate::queue::fifo_accessors!();
}

impl QueueConfig for CellQueueParams {
    fn kind(&self) -> &'static str {
        "cell"
    }
    fn build(&self, _rng: Stream) -> Box<dyn Queue> {
        Box::new(CellQueue::new(self.clone()))
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
}

/// Scenario: `{ kind = "cell", limit = 1000 (cells), epd_threshold = 500 (cells) or
/// epd_fraction = 0.5 (of limit), overflow = "tail" | "ppd" | "drop_rest" | "dff_cell" |
/// "dff_frame", dff_at = "overflow" | "epd" }` (default: no EPD, `tail`, drop from front at a
/// full buffer only).
pub fn parse(o: &mut Obj, _link: &LinkInfo, errs: &mut Errors) -> Option<Arc<dyn QueueConfig>> {
    let limit = o.int("limit", 1, 1 << 32, errs).map_or(crate::queue::DEFAULT_QUEUE_LIMIT as usize, |l| l as usize);
    let cells = o.int("epd_threshold", 0, 1 << 32, errs).map(|t| t as usize);
    let fraction = o.float("epd_fraction", 0.0, 1.0, errs);
    if cells.is_some() && fraction.is_some() {
        errs.add(o.at("epd_fraction"), "give either epd_threshold (cells) or epd_fraction (of limit), not both");
    }
    let epd_threshold = cells.or(fraction.map(|f| (f * limit as f64).round() as usize));
    let names: Vec<&'static str> = OVERFLOWS.iter().map(|(n, _)| *n).collect();
    let overflow = o.choice("overflow", &names, Some("tail"), errs)?;
    let overflow = OVERFLOWS.iter().find(|(n, _)| *n == overflow).unwrap().1;
    let dff_at = if o.choice("dff_at", &["overflow", "epd"], Some("overflow"), errs)? == "epd" { DffAt::Epd } else { DffAt::Overflow };
    if dff_at == DffAt::Epd && (epd_threshold.is_none() || !matches!(overflow, Overflow::DffCell | Overflow::DffFrame)) {
        errs.add(o.at("dff_at"), "\"epd\" needs EPD (epd_threshold or epd_fraction) and overflow = \"dff_cell\" or \"dff_frame\"");
    }
    Some(Arc::new(CellQueueParams { limit, epd_threshold, overflow, dff_at }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Kind, Packet};

    /// Offers cells `range` of frame `frame` (of `count`) on VC (flow `frame`); returns
    /// the drops as (frame, index, reason).
    fn offer(
        q: &mut CellQueue,
        pool: &mut PacketPool,
        frame: PktId,
        range: std::ops::Range<u16>,
        count: u16,
    ) -> Vec<(PktId, u16, &'static str)> {
        let mut out = Vec::new();
        for i in range {
            let aux = CellInfo { frame, index: i, count }.encode();
            let id = pool.alloc(Packet { kind: Kind::Cell, size: 53, flow: frame, aux, ..Default::default() });
            let mut d = Vec::new();
            q.enqueue(0, id, pool, &mut d);
            out.extend(d.iter().map(|&(x, r)| {
                let c = CellInfo::of(pool.get(x)).unwrap();
                (c.frame, c.index, r.name())
            }));
        }
        out
    }

    fn queue(limit: usize, epd: Option<usize>, overflow: Overflow) -> (CellQueue, PacketPool) {
        (CellQueue::new(CellQueueParams { limit, epd_threshold: epd, overflow, dff_at: DffAt::Overflow }), PacketPool::new())
    }

    #[test]
    fn tail_drop_carries_the_rest_of_a_damaged_frame() {
        let (mut q, mut pool) = queue(4, None, Overflow::Tail);
        assert!(offer(&mut q, &mut pool, 1, 0..3, 3).is_empty());
        // Frame 2 (3 cells): one fits, the next is lost, the last finds room after a departure.
        assert!(offer(&mut q, &mut pool, 2, 0..1, 3).is_empty());
        assert_eq!(offer(&mut q, &mut pool, 2, 1..2, 3), vec![(2, 1, "overflow")]);
        q.dequeue(0, &pool);
        assert!(offer(&mut q, &mut pool, 2, 2..3, 3).is_empty(), "the end-of-frame cell is carried");
        assert_eq!(q.len_pkts(), 4);
    }

    #[test]
    fn ppd_discards_the_rest_but_the_last_cell() {
        let (mut q, mut pool) = queue(2, None, Overflow::Ppd);
        let d = offer(&mut q, &mut pool, 1, 0..4, 5);
        assert_eq!(d, vec![(1, 2, "overflow"), (1, 3, "forced")]);
        q.dequeue(0, &pool);
        assert!(offer(&mut q, &mut pool, 1, 4..5, 5).is_empty(), "PPD keeps the end-of-frame cell");
        // The end-of-frame cell found the buffer full too: lost as overflow, state cleared.
        let (mut q, mut pool) = queue(3, None, Overflow::Ppd);
        let d = offer(&mut q, &mut pool, 1, 0..5, 5);
        assert_eq!(d, vec![(1, 3, "overflow"), (1, 4, "overflow")]);
        assert_eq!(q.len_pkts(), 3);
        q.dequeue(0, &pool);
        assert!(offer(&mut q, &mut pool, 2, 0..1, 1).is_empty(), "the next frame is not affected");
    }

    #[test]
    fn drop_rest_takes_the_end_of_frame_cell_too() {
        let (mut q, mut pool) = queue(2, None, Overflow::DropRest);
        let d = offer(&mut q, &mut pool, 1, 0..5, 5);
        assert_eq!(d, vec![(1, 2, "overflow"), (1, 3, "forced"), (1, 4, "forced")]);
    }

    #[test]
    fn epd_refuses_whole_frames_at_the_threshold() {
        let (mut q, mut pool) = queue(10, Some(3), Overflow::Ppd);
        assert!(offer(&mut q, &mut pool, 1, 0..2, 2).is_empty());
        // Frame 2 starts at 2 < 3 queued: admitted whole, even past the threshold.
        assert!(offer(&mut q, &mut pool, 2, 0..4, 4).is_empty());
        // Frame 3 starts at 6 ≥ 3: refused, every cell.
        let d = offer(&mut q, &mut pool, 3, 0..3, 3);
        assert_eq!(d, vec![(3, 0, "early"), (3, 1, "forced"), (3, 2, "forced")]);
        // An admitted frame that overflows falls back to the overflow policy (PPD here).
        let d = offer(&mut q, &mut pool, 4, 0..1, 6);
        assert_eq!(d, vec![(4, 0, "early")]);
        while q.dequeue(0, &pool).is_some() {}
        assert!(offer(&mut q, &mut pool, 5, 0..8, 12).is_empty());
        let d = offer(&mut q, &mut pool, 5, 8..11, 12);
        assert_eq!(d, vec![(5, 10, "overflow")]);
        q.dequeue(0, &pool);
        assert!(offer(&mut q, &mut pool, 5, 11..12, 12).is_empty());
    }

    #[test]
    fn dff_frame_drops_the_head_frame_and_keeps_the_arrival() {
        let (mut q, mut pool) = queue(4, None, Overflow::DffFrame);
        assert!(offer(&mut q, &mut pool, 1, 0..2, 4).is_empty()); // frame 1: cells 0, 1 of 4
        assert!(offer(&mut q, &mut pool, 2, 0..2, 2).is_empty()); // frame 2 whole
                                                                  // Frame 3's first cell finds the buffer full: frame 1's queued cells go from the front.
        let d = offer(&mut q, &mut pool, 3, 0..1, 1);
        assert_eq!(d, vec![(1, 0, "front"), (1, 1, "front")]);
        assert_eq!(q.len_pkts(), 3);
        // Frame 1's later cells are discarded as they come, its end-of-frame cell too.
        assert_eq!(offer(&mut q, &mut pool, 1, 2..4, 4), vec![(1, 2, "forced"), (1, 3, "forced")]);
    }

    #[test]
    fn dff_at_epd_drops_the_head_frame_when_epd_refuses_one() {
        let (mut q, mut pool) = queue(10, Some(3), Overflow::DffFrame);
        q.p.dff_at = DffAt::Epd;
        assert!(offer(&mut q, &mut pool, 1, 0..2, 2).is_empty()); // frame 1 whole
        assert!(offer(&mut q, &mut pool, 2, 0..2, 3).is_empty()); // frame 2: cells 0, 1 of 3
                                                                  // Frame 3 starts at 4 ≥ 3 queued: EPD refuses it, and frame 1 goes from the front.
        let d = offer(&mut q, &mut pool, 3, 0..1, 2);
        assert_eq!(d, vec![(3, 0, "early"), (1, 0, "front"), (1, 1, "front")]);
        assert_eq!(q.len_pkts(), 2);
        // Below the threshold again: frame 4 is admitted.
        assert!(offer(&mut q, &mut pool, 4, 0..1, 1).is_empty());
        // A partly sent head frame stays: the first whole frame behind it goes.
        q.dequeue(0, &pool); // frame 2's cell 0 starts its transmission
        assert!(offer(&mut q, &mut pool, 5, 0..2, 2).is_empty()); // 4 queued: 2.1, 4, 5.0, 5.1
        let d = offer(&mut q, &mut pool, 6, 0..1, 2);
        assert_eq!(d, vec![(6, 0, "early"), (4, 0, "front")]);
        assert_eq!(q.len_pkts(), 3);
        // Without `dff_at = "epd"`, the same refusal leaves the queue alone.
        let (mut q, mut pool) = queue(10, Some(3), Overflow::DffFrame);
        assert!(offer(&mut q, &mut pool, 1, 0..4, 4).is_empty());
        assert_eq!(offer(&mut q, &mut pool, 2, 0..1, 2), vec![(2, 0, "early")]);
        assert_eq!(q.len_pkts(), 4);
    }

    #[test]
    fn dff_cell_drops_one_head_cell() {
        let (mut q, mut pool) = queue(2, None, Overflow::DffCell);
        let d = offer(&mut q, &mut pool, 1, 0..3, 3);
        assert_eq!(d, vec![(1, 0, "front")]);
        assert_eq!(q.len_pkts(), 2);
    }

    #[test]
    fn dff_frame_on_the_arrivals_own_frame_drops_the_arrival() {
        let (mut q, mut pool) = queue(2, None, Overflow::DffFrame);
        let d = offer(&mut q, &mut pool, 1, 0..4, 4);
        assert_eq!(d, vec![(1, 0, "front"), (1, 1, "front"), (1, 2, "front"), (1, 3, "forced")]);
        assert_eq!(q.len_pkts(), 0);
    }
}
