//! Per-virtual-circuit frame state: whether the rest of the frame now arriving on a VC is
//! being discarded — Partial Packet Discard (Armitage & Adams: every later cell but the
//! end-of-frame one, so that the receiver can delimit the damaged frame) or the whole rest,
//! end-of-frame cell included (what EPD does to a refused frame, and the "drop the rest"
//! variant of §11.16).

use crate::atm::CellInfo;
use crate::packet::PktId;
use std::collections::HashMap;

/// What happens to the remaining cells of a VC's current frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Discard {
    /// Accepted (subject to room).
    Nothing,
    /// Discarded, but the end-of-frame cell (PPD).
    KeepLast,
    /// Discarded, end-of-frame cell included.
    All,
}

/// The frame state of every VC seen (ATM switches keep it per VC).
#[derive(Default)]
pub struct VcTable {
    vcs: HashMap<u64, (PktId, Discard)>,
}

impl VcTable {
    /// Whether cell `c` arriving on `vc` is discarded because its frame is. A frame's
    /// first cell (or a cell of a frame not seen before) starts with nothing discarded;
    /// its last cell ends the frame's state.
    pub fn discards(&mut self, vc: u64, c: CellInfo) -> bool {
        let e = self.vcs.entry(vc).or_insert((c.frame, Discard::Nothing));
        if c.first() || e.0 != c.frame {
            *e = (c.frame, Discard::Nothing);
        }
        let verdict = match e.1 {
            Discard::Nothing => false,
            Discard::KeepLast => !c.last(),
            Discard::All => true,
        };
        if c.last() {
            e.1 = Discard::Nothing;
        }
        verdict
    }

    /// From the next cell of `c`'s frame on, discard as `mode` (nothing to do if `c` is the
    /// frame's last cell).
    pub fn start(&mut self, vc: u64, c: CellInfo, mode: Discard) {
        if !c.last() {
            self.vcs.insert(vc, (c.frame, mode));
        }
    }

    /// Discards the rest of `frame` on `vc` (cells of it still to come).
    pub fn discard_frame(&mut self, vc: u64, frame: PktId) {
        self.vcs.insert(vc, (frame, Discard::All));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(frame: PktId, index: u16, count: u16) -> CellInfo {
        CellInfo { frame, index, count }
    }

    #[test]
    fn ppd_keeps_the_end_of_frame_cell_then_forgets() {
        let mut t = VcTable::default();
        assert!(!t.discards(1, cell(7, 0, 4)));
        assert!(!t.discards(1, cell(7, 1, 4)));
        t.start(1, cell(7, 1, 4), Discard::KeepLast); // cell 1 was lost at a full buffer
        assert!(t.discards(1, cell(7, 2, 4)));
        assert!(!t.discards(1, cell(7, 3, 4)), "the end-of-frame cell is kept");
        assert!(!t.discards(1, cell(8, 0, 2)), "the next frame starts clean");
        // Another VC is not affected.
        t.start(1, cell(8, 0, 2), Discard::KeepLast);
        assert!(!t.discards(2, cell(9, 0, 2)));
    }

    #[test]
    fn drop_all_takes_the_end_of_frame_cell_too() {
        let mut t = VcTable::default();
        t.discards(1, cell(7, 0, 3));
        t.start(1, cell(7, 0, 3), Discard::All);
        assert!(t.discards(1, cell(7, 1, 3)));
        assert!(t.discards(1, cell(7, 2, 3)));
        assert!(!t.discards(1, cell(8, 0, 3)));
    }

    #[test]
    fn a_lost_end_of_frame_does_not_carry_the_state_into_the_next_frame() {
        let mut t = VcTable::default();
        t.discards(1, cell(7, 0, 3));
        t.start(1, cell(7, 0, 3), Discard::All);
        // Cells 1 and 2 of frame 7 never reach this queue; frame 8 arrives.
        assert!(!t.discards(1, cell(8, 0, 3)));
        // A frame whose first cell was lost upstream is new here too.
        t.start(1, cell(8, 0, 3), Discard::All);
        assert!(!t.discards(1, cell(9, 1, 3)));
        // A one-cell frame refused by EPD leaves no state behind.
        t.start(1, cell(10, 0, 1), Discard::All);
        assert!(!t.discards(1, cell(11, 0, 2)));
    }
}
