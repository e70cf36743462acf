//! UDT's wire format: defined beside the packet type ([`crate::packet::udt`]), which the pcap
//! writer reads too; re-exported here for the UDT agents.

pub use crate::packet::udt::*;
