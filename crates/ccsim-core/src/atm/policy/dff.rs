//! Drop From Front (Lakshman, Neidhardt & Ott 1996): a cell that finds the buffer full is
//! accepted and the cell at the head of the queue — the one closest to transmission — is
//! dropped instead, so that the receiver sees the gap a buffer-drain time sooner. At frame
//! level (Paper B's DFF) every queued cell of the head cell's frame goes, and that frame's
//! cells still to come are discarded as they arrive.

use crate::atm::{vc_of, CellInfo};
use crate::packet::{PacketPool, PktId};
use crate::queue::Fifo;

/// Drops from the front of `fifo` into `removed`: the head cell alone (`frame = false`) or
/// every queued cell of its frame. Returns the (VC, frame) whose later cells must be
/// discarded when the frame's end-of-frame cell was not among those removed.
pub fn drop_front(fifo: &mut Fifo, pool: &PacketPool, frame: bool, removed: &mut Vec<PktId>) -> Option<(u64, PktId)> {
    let head = fifo.iter().next()?;
    let hp = pool.get(head);
    let (Some(info), true) = (CellInfo::of(hp), frame) else {
        removed.push(fifo.pop(pool).expect("the head is there"));
        return None;
    };
    drop_frame(fifo, pool, vc_of(hp), info.frame, removed)
}

/// Drops from `fifo` into `removed` the first frame whose first cell is still queued — a
/// whole packet, not the rest of one already partly sent, whose loss would also merge its
/// sent cells with the next frame at the receiver — every queued cell of it. Returns its
/// (VC, frame) as [`drop_front`] does. Nothing goes if no frame is queued from its first cell.
pub fn drop_first_whole(fifo: &mut Fifo, pool: &PacketPool, removed: &mut Vec<PktId>) -> Option<(u64, PktId)> {
    let (vc, frame) = fifo.iter().find_map(|id| {
        let p = pool.get(id);
        CellInfo::of(p).filter(|c| c.first()).map(|c| (vc_of(p), c.frame))
    })?;
    drop_frame(fifo, pool, vc, frame, removed)
}

/// Every queued cell of `frame` on `vc` into `removed`; its (VC, frame) when its
/// end-of-frame cell was not among them.
fn drop_frame(fifo: &mut Fifo, pool: &PacketPool, vc: u64, frame: PktId, removed: &mut Vec<PktId>) -> Option<(u64, PktId)> {
    let before = removed.len();
    fifo.remove_where(pool, &mut |p| CellInfo::of(p).is_some_and(|c| c.frame == frame) && vc_of(p) == vc, removed);
    let ended = removed[before..].iter().any(|&id| CellInfo::of(pool.get(id)).is_some_and(|c| c.last()));
    (!ended).then_some((vc, frame))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Kind, Packet};

    fn cells(pool: &mut PacketPool, fifo: &mut Fifo, frame: PktId, range: std::ops::Range<u16>, count: u16) {
        for i in range {
            let aux = CellInfo { frame, index: i, count }.encode();
            let id = pool.alloc(Packet { kind: Kind::Cell, size: 53, flow: frame, aux, ..Default::default() });
            fifo.push(id, pool);
        }
    }

    #[test]
    fn a_whole_frame_leaves_a_partly_sent_one_alone() {
        let (mut pool, mut fifo, mut out) = (PacketPool::new(), Fifo::with_capacity(8), Vec::new());
        cells(&mut pool, &mut fifo, 1, 2..4, 4); // frame 1: its cells 0, 1 already sent
        cells(&mut pool, &mut fifo, 2, 0..2, 3); // frame 2: cells 0, 1 of 3, the last to come
        cells(&mut pool, &mut fifo, 3, 0..1, 1);
        assert_eq!(drop_first_whole(&mut fifo, &pool, &mut out), Some((2u64 << 32, 2)));
        assert_eq!(out.len(), 2, "frame 2's queued cells");
        assert_eq!(fifo.len(), 3, "frame 1's rest and frame 3 stay");
        out.clear();
        assert_eq!(drop_first_whole(&mut fifo, &pool, &mut out), None, "frame 3 is whole: nothing to flag");
        assert_eq!((out.len(), fifo.len()), (1, 2));
        assert_eq!(drop_first_whole(&mut fifo, &pool, &mut out), None, "only a partly sent frame left");
        assert_eq!(fifo.len(), 2);
    }

    #[test]
    fn cell_level_takes_the_head_only() {
        let (mut pool, mut fifo, mut out) = (PacketPool::new(), Fifo::with_capacity(8), Vec::new());
        cells(&mut pool, &mut fifo, 1, 2..4, 4);
        cells(&mut pool, &mut fifo, 2, 0..2, 2);
        assert_eq!(drop_front(&mut fifo, &pool, false, &mut out), None);
        assert_eq!(out.len(), 1);
        assert_eq!(CellInfo::of(pool.get(out[0])).unwrap().index, 2);
        assert_eq!(fifo.len(), 3);
    }

    #[test]
    fn frame_level_takes_the_head_frame_and_flags_its_rest() {
        let (mut pool, mut fifo, mut out) = (PacketPool::new(), Fifo::with_capacity(8), Vec::new());
        cells(&mut pool, &mut fifo, 1, 1..3, 5); // frame 1: cells 1, 2 of 5 queued
        cells(&mut pool, &mut fifo, 2, 0..2, 2);
        cells(&mut pool, &mut fifo, 1, 3..4, 5); // frame 1's cell 3, behind frame 2
        assert_eq!(drop_front(&mut fifo, &pool, true, &mut out), Some((1u64 << 32, 1)));
        assert_eq!(out.len(), 3, "every queued cell of frame 1");
        assert_eq!(fifo.len(), 2);
        // Frame 2 is whole in the queue: its end-of-frame cell goes with it, nothing to flag.
        out.clear();
        assert_eq!(drop_front(&mut fifo, &pool, true, &mut out), None);
        assert_eq!((out.len(), fifo.len()), (2, 0));
        assert_eq!(drop_front(&mut fifo, &pool, true, &mut out), None);
    }
}
