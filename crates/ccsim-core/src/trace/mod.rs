//! Packet traces written while the simulation runs.

pub mod log;
pub mod pcap;
