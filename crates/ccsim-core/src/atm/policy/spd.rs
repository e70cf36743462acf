//! Same-source Packet Discard (Paper B's Fig 6): while any of the switch's output queues is
//! congested (at or above the threshold), pick the next source by round robin and take
//! that source's first whole frame out of the front of **every** congested queue, so that
//! one source — not several — loses a frame; repeat with the next source until no queue is
//! congested or no source has a frame left to take. It acts across output queues, so it
//! runs in the Multicast Server element ([`crate::atm::mcs`]), which re-sends the frames
//! it took once their port is below the threshold again.

use crate::atm::CellInfo;
use crate::element::ElemCtx;
use crate::packet::{Kind, PktId};
use crate::queue::DropReason;

/// A frame SPD took out of an output queue: its flow, sequence number and port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Taken {
    pub flow: u32,
    pub seq: u64,
    pub port: u32,
}

/// The first frame of `flow` in `port`'s queue whose first cell is still queued (a frame
/// already partly sent is left alone): its id and sequence number.
fn first_frame(ctx: &ElemCtx, port: u32, flow: u32) -> Option<(PktId, u64)> {
    let mut found = None;
    ctx.visit_queue(port, &mut |p| {
        if found.is_none() && p.flow == flow {
            if let Some(c) = CellInfo::of(p).filter(|c| c.first()) {
                found = Some((c.frame, p.seq));
            }
        }
    });
    found
}

/// Runs SPD over `ports` (congested: queue ≥ `threshold` cells) with the sources in
/// `sources` taken in turn from `*next`; appends what it took to `taken`.
pub fn run(ctx: &mut ElemCtx, ports: &[u32], threshold: usize, sources: &[u32], next: &mut usize, taken: &mut Vec<Taken>) {
    if sources.is_empty() {
        return;
    }
    loop {
        let congested = |ctx: &ElemCtx, l: u32| ctx.queue_len(l).0 >= threshold;
        if !ports.iter().any(|&l| congested(ctx, l)) {
            return;
        }
        let mut took = false;
        for _ in 0..sources.len() {
            let flow = sources[*next % sources.len()];
            *next = (*next + 1) % sources.len();
            for &port in ports {
                if !congested(ctx, port) {
                    continue;
                }
                if let Some((frame, seq)) = first_frame(ctx, port, flow) {
                    let n = ctx.remove_from_queue(
                        port,
                        &mut |p| p.kind == Kind::Cell && p.flow == flow && CellInfo::of(p).is_some_and(|c| c.frame == frame),
                        DropReason::Selective,
                    );
                    if n > 0 {
                        took = true;
                        taken.push(Taken { flow, seq, port });
                    }
                }
            }
            if took {
                break;
            }
        }
        if !took {
            return;
        }
    }
}
