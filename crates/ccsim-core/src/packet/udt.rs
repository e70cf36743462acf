//! UDT packets in ccsim's fixed-size [`Packet`]: which fields carry what, and their sizes.
//!
//! Every UDT packet has [`FLAG_UDT`] set (the pcap writer then writes UDP and a UDT header).
//! Data packets are `Kind::Datagram` with `seq` = UDT sequence number. Control packets
//! carry their type in the low 16 bits of `aux` (0 handshake, 1 keep-alive, 2 ACK, 3 NAK,
//! 6 ACK2); those from the receiver (ACK, light ACK, NAK) are `Kind::Ack`, those from the
//! sender (ACK2, keep-alive) `Kind::Control`.
//!
//! - ACK: `seq` = ACK sequence number (UDT's "additional info"), `ack` = first sequence not
//!   received, then RTT and RTT variance (µs), available buffer (packets), arrival speed and
//!   capacity (packets/s; present when [`ACK_HAS_RATES`]); a light ACK ([`ACK_LIGHT`]) has
//!   the ACK number only.
//! - NAK: up to four lost ranges, as SACK blocks relative to `ack` (= the first lost).
//! - ACK2: `seq` = the ACK sequence number it confirms.

use super::Packet;

/// `Packet::flags`: a UDT packet.
pub const FLAG_UDT: u8 = 0x04;

pub const HANDSHAKE: u16 = 0;
pub const KEEPALIVE: u16 = 1;
pub const ACK: u16 = 2;
pub const NAK: u16 = 3;
pub const ACK2: u16 = 6;

/// `aux` bit: a light ACK (ACK number only).
pub const ACK_LIGHT: u64 = 1 << 16;
/// `aux` bit: a full ACK carrying arrival speed and capacity.
pub const ACK_HAS_RATES: u64 = 1 << 17;

/// IP + UDP header bytes.
pub const IP_UDP: u32 = 28;
/// UDT header bytes (data and control).
pub const UDT_HEADER: u32 = 16;

/// Control type of `p` (None: not a UDT control packet).
#[inline]
pub fn ctrl_type(p: &Packet) -> Option<u16> {
    (p.flags & FLAG_UDT != 0 && p.kind != super::Kind::Datagram).then_some(p.aux as u16)
}

/// The fields of a full ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AckFields {
    pub ack_seq: u64,
    pub ack: u64,
    pub rtt_us: u32,
    pub rtt_var_us: u32,
    pub buffer: u32,
    /// Arrival speed and capacity, packets/s (None: not carried).
    pub rates: Option<(u32, u32)>,
}

/// Writes a full ACK into `p`.
pub fn put_ack(p: &mut Packet, a: &AckFields) {
    p.aux = ACK as u64 | if a.rates.is_some() { ACK_HAS_RATES } else { 0 };
    p.seq = a.ack_seq;
    p.ack = a.ack;
    p.wnd = a.buffer;
    let (speed, cap) = a.rates.unwrap_or((0, 0));
    p.sack[0] = super::SackBlock { off: a.rtt_us, len: a.rtt_var_us };
    p.sack[1] = super::SackBlock { off: speed, len: cap };
}

/// Reads a full ACK from `p`.
pub fn get_ack(p: &Packet) -> AckFields {
    AckFields {
        ack_seq: p.seq,
        ack: p.ack,
        rtt_us: p.sack[0].off,
        rtt_var_us: p.sack[0].len,
        buffer: p.wnd,
        rates: (p.aux & ACK_HAS_RATES != 0).then_some((p.sack[1].off, p.sack[1].len)),
    }
}

/// Writes a NAK of the inclusive `ranges` (at most 4) into `p`.
pub fn put_nak(p: &mut Packet, ranges: &[(u64, u64)]) {
    debug_assert!(!ranges.is_empty() && ranges.len() <= 4);
    p.aux = NAK as u64;
    p.ack = ranges[0].0;
    p.nsack = ranges.len() as u8;
    for (i, &(s, e)) in ranges.iter().enumerate() {
        p.set_sack_block(i, s, e + 1);
    }
}

/// The inclusive ranges of a NAK.
pub fn nak_ranges(p: &Packet) -> impl Iterator<Item = (u64, u64)> + '_ {
    (0..p.nsack as usize).map(|i| {
        let (s, e) = p.sack_block(i);
        (s, e - 1)
    })
}

/// 32-bit words a NAK's loss list takes (a single number 1, a range 2).
pub fn nak_words(ranges: &[(u64, u64)]) -> u32 {
    ranges.iter().map(|&(s, e)| if s == e { 1 } else { 2 }).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ack_and_nak_round_trip() {
        let mut p = Packet::default();
        let a = AckFields { ack_seq: 7, ack: 1234, rtt_us: 100_250, rtt_var_us: 3_000, buffer: 8190, rates: Some((80_000, 83_334)) };
        put_ack(&mut p, &a);
        assert_eq!(get_ack(&p), a);
        let mut p = Packet::default();
        put_nak(&mut p, &[(100, 100), (105, 109)]);
        assert_eq!(nak_ranges(&p).collect::<Vec<_>>(), vec![(100, 100), (105, 109)]);
        assert_eq!(nak_words(&[(100, 100), (105, 109)]), 3);
    }
}
