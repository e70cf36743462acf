//! Traffic sources and sinks that are not transport protocols: constant bit rate, on/off
//! (exponential or Pareto periods), and a datagram sink.

pub mod cbr;
pub mod onoff;
pub mod sink;

pub use cbr::{Cbr, CbrConfig};
pub use onoff::{OnOff, OnOffConfig, Period};
pub use sink::DatagramSink;

use crate::units::Time;

/// Packet spacing at `rate_bps` for `size`-byte packets, exact on average: returns the
/// next gap in ns and carries the remainder (as link serialization does).
#[inline]
pub(crate) fn gap(size: u32, rate_bps: u64, rem: &mut u64) -> Time {
    crate::units::serialization(size, rate_bps, rem)
}

/// Default datagram size when a flow gives none (ns-2's TCP packetSize_).
pub const DEFAULT_PACKET_SIZE: u32 = 1000;
