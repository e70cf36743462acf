//! DiffServ assured forwarding at the edge: meters that colour packets and the `marker`
//! node element that applies their colours as AF code points (RFC 2597), keyed per flow or
//! per (source node, destination node) pair as ns-2's policy table. The core's RIO queue
//! is [`crate::queue::rio`].
//!
//! Meters (PROTOCOLS.md §7.2–7.4, ns-2's `dsPolicy.cc`), one file each under this folder's
//! [`meters`] module: `token_bucket` (Paper A's marker, counting lost tokens), `tsw2cm`,
//! `tsw3cm`, `srtcm`, `trtcm` (colour-blind or colour-aware), and `out` (every packet OUT:
//! best effort). The data-buffer marker (Paper A's proposal) is a token bucket with a FIFO of
//! packets waiting for tokens: [`marker`].

pub mod marker;
pub mod meters;

/// A packet's colour: IN / green, yellow, OUT / red (two-colour meters use green and red).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Color {
    Green = 0,
    Yellow = 1,
    Red = 2,
}

impl Color {
    /// The colour a code point carries for a colour-aware meter: AFx1 green, AFx2 yellow,
    /// AFx3 (and anything else) red.
    pub fn of_dscp(dscp: u8) -> Color {
        match crate::queue::rio::precedence(dscp, 3) {
            0 => Color::Green,
            1 => Color::Yellow,
            _ => Color::Red,
        }
    }
}
