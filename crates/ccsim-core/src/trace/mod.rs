//! Packet traces written while the simulation runs.

pub mod pcap;
