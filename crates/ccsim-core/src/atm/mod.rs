//! ATM: 53-byte cells, AAL5 segmentation and reassembly, and the buffer policies of a cell
//! switch's output ports (PROTOCOLS.md §8, §11.16).
//!
//! A cell is a packet of kind [`crate::packet::Kind::Cell`], 53 bytes on the
//! wire, with the flow, addresses and class of its frame. Its `aux` word ([`CellInfo`])
//! names its frame — the original packet, which stays in the packet pool until the last of
//! its cells is freed — its index in the frame and the frame's number of cells (the last
//! one carries AAL5's end-of-frame bit). Segmentation and reassembly are the `aal5` node
//! element ([`aal5`]); the output-port policies (tail drop, PPD, EPD, drop from front) are
//! the `cell` queue discipline ([`policy`]). Cells are routed like any packet: a cell
//! switch is a node whose links carry cells; an OC-3c link is a link of [`OC3C_BPS`]
//! (one 53-byte cell per 2.831 µs).

pub mod aal5;
pub mod mcs;
pub mod policy;

use crate::packet::{Kind, Packet, PktId};

/// Bytes of a cell on the wire: a 5-byte header and 48 bytes of payload.
pub const CELL_BYTES: u32 = 53;
/// Payload bytes of a cell.
pub const CELL_PAYLOAD: u32 = 48;
/// AAL5's CPCS trailer: CPCS-UU, CPI, length, CRC-32.
pub const AAL5_TRAILER: u32 = 8;
/// RFC 2684 LLC/SNAP encapsulation header.
pub const LLC_SNAP: u32 = 8;
/// OC-3c (STS-3c) payload rate: 9 rows × 260 bytes × 8000 frames/s × 8 bits.
pub const OC3C_BPS: u64 = 149_760_000;

/// Cells of an AAL5 frame carrying `len` bytes: `⌈(len + 8 [+ 8 with LLC/SNAP]) / 48⌉`.
pub fn cells_for(len: u32, llc: bool) -> u32 {
    (len + AAL5_TRAILER + if llc { LLC_SNAP } else { 0 }).div_ceil(CELL_PAYLOAD)
}

/// What a cell's `aux` word says: its frame (a packet id), its index in the frame, and the
/// frame's number of cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellInfo {
    pub frame: PktId,
    pub index: u16,
    pub count: u16,
}

impl CellInfo {
    pub fn encode(self) -> u64 {
        self.frame as u64 | (self.index as u64) << 32 | (self.count as u64) << 48
    }

    /// The cell information of `p`, if it is a cell.
    #[inline]
    pub fn of(p: &Packet) -> Option<CellInfo> {
        (p.kind == Kind::Cell).then_some(CellInfo { frame: p.aux as u32, index: (p.aux >> 32) as u16, count: (p.aux >> 48) as u16 })
    }

    /// The first cell of its frame.
    pub fn first(self) -> bool {
        self.index == 0
    }

    /// The last cell of its frame (AAL5's end-of-frame bit, in the PTI field).
    pub fn last(self) -> bool {
        self.index + 1 == self.count
    }
}

/// A virtual circuit: cells of one flow towards one destination (frames on a VC never
/// interleave).
#[inline]
pub fn vc_of(p: &Packet) -> u64 {
    (p.flow as u64) << 32 | p.dst as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_per_frame_as_protocols_md() {
        // §8.1's examples (no LLC / LLC): 40 B → 1 / 2; 552 → 12 / 12; 1500 → 32 / 32;
        // 4352 → 91 / 91; 9180 → 192 / 192.
        for (len, plain, llc) in [(40, 1, 2), (552, 12, 12), (1500, 32, 32), (4352, 91, 91), (9180, 192, 192)] {
            assert_eq!((cells_for(len, false), cells_for(len, true)), (plain, llc), "{len}");
        }
        // One OC-3c cell time: 424 bits / 149.76 Mb/s = 2.831 µs.
        assert!((CELL_BYTES as f64 * 8.0 / OC3C_BPS as f64 - 2.831e-6).abs() < 1e-9);
    }

    #[test]
    fn cell_info_round_trips() {
        let c = CellInfo { frame: 123_456, index: 170, count: 172 };
        let p = Packet { kind: Kind::Cell, aux: c.encode(), ..Default::default() };
        assert_eq!(CellInfo::of(&p), Some(c));
        assert!(!c.first() && !c.last());
        assert!(CellInfo { index: 171, ..c }.last());
        assert_eq!(CellInfo::of(&Packet { aux: c.encode(), ..Default::default() }), None);
    }
}
