//! pcap capture of a link direction, with synthesized Ethernet / IPv4 / TCP or UDP headers
//! (real sequence and ACK numbers, SACK and timestamp options, checksums) that Wireshark
//! and tshark open and analyse. Nanosecond-resolution pcap (magic `0xa1b23c4d`); only
//! headers are captured (`caplen` < `len`; the payload is not simulated).
//!
//! Addressing: node `n` is `10.a.b.c` with `a.b.c` = n + 1 in base 256, MAC `02:00:` + the
//! same four bytes. A flow's sender uses port `1024 + flow` and its receiver port 5201.
//! TCP sequence numbers start at 1 (as if a SYN had used 0); the receiver's at 1.

use crate::packet::{Kind, Packet};
use crate::units::Time;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

const RECEIVER_PORT: u16 = 5201;

pub struct PcapWriter {
    out: Option<BufWriter<File>>,
    tmp: PathBuf,
    path: PathBuf,
    pub packets: u64,
    pub error: Option<String>,
    buf: Vec<u8>,
    /// Addresses from here on are multicast groups.
    nodes: u32,
    /// The window-scale shift each flow's SYN-ACK announced here: its later ACKs' window
    /// field is scaled by it (flows without a captured SYN-ACK show the window, at most
    /// 65 535).
    wscale: HashMap<u32, u8>,
}

/// The window-scale shift (RFC 7323) that fits `wnd` bytes in the 16-bit field, at most 14.
fn wscale_for(wnd: u32) -> u8 {
    let mut s = 0;
    while s < 14 && (wnd >> s) > 65535 {
        s += 1;
    }
    s
}

/// Rewrites an IPv4 header's total length and its checksum.
fn set_ip_length(ip: &mut [u8], total: u16) {
    ip[2..4].copy_from_slice(&total.to_be_bytes());
    ip[10..12].fill(0);
    let c = checksum(ip, 0);
    ip[10..12].copy_from_slice(&c.to_be_bytes());
}

fn ip_of(node: u32) -> [u8; 4] {
    let n = node + 1;
    [10, (n >> 16) as u8, (n >> 8) as u8, n as u8]
}

/// A packet's address: a node's `10.x.y.z`, or a multicast group's `239.x.y.z`.
fn ip_of_addr(addr: u32, nodes: u32) -> [u8; 4] {
    match addr.checked_sub(nodes) {
        Some(g) => [239, (g >> 16) as u8, (g >> 8) as u8, g as u8],
        None => ip_of(addr),
    }
}

fn checksum(data: &[u8], mut sum: u32) -> u16 {
    for chunk in data.chunks(2) {
        let w = if chunk.len() == 2 { u16::from_be_bytes([chunk[0], chunk[1]]) } else { u16::from_be_bytes([chunk[0], 0]) };
        sum += w as u32;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The UDT header and, for control packets, their control information (UDT4's wire format,
/// which Wireshark's UDT dissector decodes: `-d udp.port==5201,udt`). Data packets are
/// captured up to their 16-byte header; sequence numbers are 31-bit as on the wire. The
/// destination socket id is the flow number + 1.
fn wire_ctrl(p: &Packet) -> bool {
    crate::packet::udt::ctrl_type(p).is_some()
}

fn udt_header(b: &mut Vec<u8>, now: Time, p: &Packet) {
    use crate::packet::udt as wire;
    let ts = ((now / 1000) & 0xffff_ffff) as u32;
    let id = p.flow.wrapping_add(1);
    let seq = |x: u64| (x & 0x7fff_ffff) as u32;
    let put = |b: &mut Vec<u8>, w: u32| b.extend_from_slice(&w.to_be_bytes());
    match wire::ctrl_type(p) {
        None => {
            put(b, seq(p.seq));
            put(b, 0xc000_0001); // a whole message (first and last), message number 1
            put(b, ts);
            put(b, id);
        }
        Some(t) => {
            let info = match t {
                wire::ACK | wire::ACK2 => p.seq as u32,
                _ => 0,
            };
            put(b, 0x8000_0000 | ((t as u32) << 16));
            put(b, info);
            put(b, ts);
            put(b, id);
            match t {
                wire::ACK if p.aux & wire::ACK_LIGHT != 0 => put(b, seq(p.ack)),
                wire::ACK => {
                    let a = wire::get_ack(p);
                    for w in [seq(a.ack), a.rtt_us, a.rtt_var_us, a.buffer] {
                        put(b, w);
                    }
                    if let Some((speed, cap)) = a.rates {
                        put(b, speed);
                        put(b, cap);
                    }
                }
                wire::NAK => {
                    for (s, e) in wire::nak_ranges(p) {
                        if s == e {
                            put(b, seq(s));
                        } else {
                            put(b, 0x8000_0000 | seq(s));
                            put(b, seq(e));
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

impl PcapWriter {
    /// Creates `path` (through a temporary name; [`PcapWriter::finish`] renames it) for a
    /// network of `nodes` nodes.
    pub fn create(path: &Path, nodes: u32) -> Result<Self, String> {
        let tmp = path.with_extension("pcap.partial");
        let f = File::create(&tmp).map_err(|e| format!("cannot create pcap file {}: {e}", path.display()))?;
        let mut w = PcapWriter {
            out: Some(BufWriter::with_capacity(1 << 16, f)),
            tmp,
            path: path.to_path_buf(),
            packets: 0,
            error: None,
            buf: Vec::with_capacity(160),
            nodes,
            wscale: HashMap::new(),
        };
        let mut hdr = Vec::with_capacity(24);
        hdr.extend_from_slice(&0xa1b2_3c4du32.to_le_bytes());
        hdr.extend_from_slice(&2u16.to_le_bytes());
        hdr.extend_from_slice(&4u16.to_le_bytes());
        hdr.extend_from_slice(&0i32.to_le_bytes());
        hdr.extend_from_slice(&0u32.to_le_bytes());
        hdr.extend_from_slice(&65535u32.to_le_bytes());
        hdr.extend_from_slice(&1u32.to_le_bytes()); // LINKTYPE_ETHERNET
        w.write(&hdr);
        Ok(w)
    }

    fn write(&mut self, bytes: &[u8]) {
        if let Some(out) = self.out.as_mut() {
            if let Err(e) = out.write_all(bytes) {
                self.error = Some(format!("writing {}: {e}", self.path.display()));
                self.out = None;
            }
        }
    }

    /// Records `p` leaving `from` towards `to` at time `now`.
    pub fn record(&mut self, now: Time, from: u32, to: u32, p: &Packet) {
        if self.out.is_none() {
            return;
        }
        let mut b = std::mem::take(&mut self.buf);
        b.clear();
        // Ethernet.
        let (mf, mt) = (ip_of(from), ip_of(to));
        b.extend_from_slice(&[0x02, 0x00, mt[0], mt[1], mt[2], mt[3], 0x02, 0x00, mf[0], mf[1], mf[2], mf[3], 0x08, 0x00]);
        // IPv4.
        let udt = p.flags & crate::packet::udt::FLAG_UDT != 0;
        let tcp = !udt && matches!(p.kind, Kind::Data | Kind::Ack | Kind::Control);
        let (src, dst) = (ip_of(p.src), ip_of_addr(p.dst, self.nodes));
        let ip_start = b.len();
        let mut total = p.size.min(65535) as u16;
        b.extend_from_slice(&[0x45, p.dscp << 2]);
        b.extend_from_slice(&total.to_be_bytes());
        b.extend_from_slice(&((p.uid & 0xffff) as u16).to_be_bytes());
        b.extend_from_slice(&[0x40, 0x00, 64, if tcp { 6 } else { 17 }, 0, 0]);
        b.extend_from_slice(&src);
        b.extend_from_slice(&dst);
        let c = checksum(&b[ip_start..ip_start + 20], 0);
        b[ip_start + 10..ip_start + 12].copy_from_slice(&c.to_be_bytes());
        let from_sender = p.kind != Kind::Ack;
        let sport = if from_sender { 1024 + (p.flow % 60000) as u16 } else { RECEIVER_PORT };
        let dport = if from_sender { RECEIVER_PORT } else { 1024 + (p.flow % 60000) as u16 };
        let l4_start = b.len();
        if tcp {
            let ts = p.flags & crate::packet::FLAG_TS != 0;
            let syn = p.flags & crate::packet::FLAG_SYN != 0;
            let (seq, ack, flags) = match p.kind {
                Kind::Control if syn => (0u32, 0u32, 0x02u8),
                Kind::Ack if syn => (0u32, 1u32, 0x12u8),
                Kind::Ack => (1u32, (p.ack as u32).wrapping_add(1), 0x10u8),
                _ => ((p.seq as u32).wrapping_add(1), 1u32, 0x18u8),
            };
            b.extend_from_slice(&sport.to_be_bytes());
            b.extend_from_slice(&dport.to_be_bytes());
            b.extend_from_slice(&seq.to_be_bytes());
            b.extend_from_slice(&ack.to_be_bytes());
            b.push(0); // data offset, patched below
            b.push(flags);
            // Window scaling (RFC 7323): a SYN offers shift 0, a SYN-ACK the shift its
            // window needs; later ACKs of the flow carry the window scaled by it.
            let shift = match p.kind {
                Kind::Ack if syn => {
                    let s = wscale_for(p.wnd);
                    self.wscale.insert(p.flow, s);
                    Some(s)
                }
                Kind::Control if syn => Some(0),
                _ => None,
            };
            let wnd = match p.kind {
                Kind::Ack if !syn => match self.wscale.get(&p.flow) {
                    Some(&s) => (p.wnd >> s).min(65535) as u16,
                    None => p.wnd.min(65535) as u16,
                },
                Kind::Ack => p.wnd.min(65535) as u16,
                _ => 65535,
            };
            b.extend_from_slice(&wnd.to_be_bytes());
            b.extend_from_slice(&[0, 0, 0, 0]);
            if syn {
                // MSS (RFC 9293) and SACK-permitted (RFC 2018), as the connection announced
                // them (`packet::syn_options`); a SYN without them (another model's) has none.
                let mss = (p.aux & u64::from(u32::MAX)).min(65535) as u16;
                if mss > 0 {
                    b.extend_from_slice(&[2, 4]);
                    b.extend_from_slice(&mss.to_be_bytes());
                }
                if p.aux & crate::packet::SYN_SACK_PERMITTED != 0 {
                    b.extend_from_slice(&[1, 1, 4, 2]);
                }
            }
            if let Some(s) = shift {
                b.extend_from_slice(&[1, 3, 3, s]);
            }
            if ts {
                b.extend_from_slice(&[1, 1, 8, 10]);
                b.extend_from_slice(&((p.sent_at / 1000) as u32).to_be_bytes());
                let ecr = if p.kind == Kind::Ack { (p.ts_echo / 1000) as u32 } else { 0 };
                b.extend_from_slice(&ecr.to_be_bytes());
            }
            if p.nsack > 0 {
                b.extend_from_slice(&[1, 1, 5, 2 + 8 * p.nsack]);
                for i in 0..p.nsack as usize {
                    let (start, end) = p.sack_block(i);
                    b.extend_from_slice(&(start as u32).wrapping_add(1).to_be_bytes());
                    b.extend_from_slice(&(end as u32).wrapping_add(1).to_be_bytes());
                }
            }
            let hlen = b.len() - l4_start;
            b[l4_start + 12] = ((hlen / 4) as u8) << 4;
            // The IP length is the headers written plus the payload, whatever size the model
            // charged on the wire: a size without the SACK option's 4 bytes (ns-2's sink), or
            // the payload alone (`headers = false`), would make the payload look shorter
            // than the sequence numbers say.
            let real = (20 + hlen + p.payload as usize).min(65535) as u16;
            if real != total {
                total = real;
                set_ip_length(&mut b[ip_start..ip_start + 20], total);
            }
            // Checksum over the pseudo-header and the header (the payload is zeros).
            let tcp_len = (total as u32).saturating_sub(20);
            let pseudo = u32::from(u16::from_be_bytes([src[0], src[1]]))
                + u32::from(u16::from_be_bytes([src[2], src[3]]))
                + u32::from(u16::from_be_bytes([dst[0], dst[1]]))
                + u32::from(u16::from_be_bytes([dst[2], dst[3]]))
                + 6
                + tcp_len;
            let c = checksum(&b[l4_start..], pseudo);
            b[l4_start + 16..l4_start + 18].copy_from_slice(&c.to_be_bytes());
        } else {
            b.extend_from_slice(&sport.to_be_bytes());
            b.extend_from_slice(&dport.to_be_bytes());
            b.extend_from_slice(&(total.saturating_sub(20)).to_be_bytes());
            b.extend_from_slice(&[0, 0]);
            if udt {
                udt_header(&mut b, now, p);
                // A control packet sized smaller than its UDT4 encoding (the ns-2 module's
                // 32- and 40-byte ones): the IP and UDP lengths cover what is written.
                let need = (b.len() - ip_start) as u16;
                if wire_ctrl(p) && total != need {
                    total = need;
                    set_ip_length(&mut b[ip_start..ip_start + 20], total);
                    b[l4_start + 4..l4_start + 6].copy_from_slice(&(total - 20).to_be_bytes());
                }
            }
        }
        let caplen = b.len() as u32;
        let orig = 14 + if tcp { u32::from(total) } else { p.size };
        let mut rec = [0u8; 16];
        rec[0..4].copy_from_slice(&((now / 1_000_000_000) as u32).to_le_bytes());
        rec[4..8].copy_from_slice(&((now % 1_000_000_000) as u32).to_le_bytes());
        rec[8..12].copy_from_slice(&caplen.to_le_bytes());
        rec[12..16].copy_from_slice(&orig.max(caplen).to_le_bytes());
        self.write(&rec);
        self.write(&b);
        self.buf = b;
        self.packets += 1;
    }

    /// Flushes and moves the file to its final name. Returns the path, or the first error.
    pub fn finish(&mut self) -> Result<PathBuf, String> {
        if let Some(mut out) = self.out.take() {
            if let Err(e) = out.flush() {
                self.error.get_or_insert(format!("writing {}: {e}", self.path.display()));
            }
        }
        if let Some(e) = &self.error {
            let _ = std::fs::remove_file(&self.tmp);
            return Err(e.clone());
        }
        std::fs::rename(&self.tmp, &self.path).map_err(|e| format!("writing {}: {e}", self.path.display()))?;
        Ok(self.path.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv4_header_checksum_verifies() {
        // A header with its checksum filled in sums to 0xffff.
        let mut h = [0x45, 0, 0, 40, 0, 1, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2];
        let c = checksum(&h, 0);
        h[10..12].copy_from_slice(&c.to_be_bytes());
        assert_eq!(checksum(&h, 0), 0);
    }

    /// The capture of `packets` (time, from, to, packet), as written.
    fn capture(name: &str, packets: &[(Time, u32, u32, Packet)]) -> Vec<u8> {
        let dir = std::env::temp_dir().join(format!("ccsim-pcap-test-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut w = PcapWriter::create(&dir.join("t.pcap"), 16).unwrap();
        for (t, from, to, p) in packets {
            w.record(*t, *from, *to, p);
        }
        let bytes = std::fs::read(w.finish().unwrap()).unwrap();
        std::fs::remove_dir_all(&dir).ok();
        bytes
    }

    #[test]
    fn writes_header_and_records() {
        let p = Packet { kind: Kind::Data, seq: 1000, payload: 1000, size: 1040, src: 0, dst: 1, ..Default::default() };
        let bytes = capture("r", &[(1_500_000_001, 0, 1, p)]);
        assert_eq!(&bytes[0..4], &0xa1b2_3c4du32.to_le_bytes());
        // Record header: 1 s + 500000001 ns, caplen 54, len 1054.
        assert_eq!(u32::from_le_bytes(bytes[24..28].try_into().unwrap()), 1);
        assert_eq!(u32::from_le_bytes(bytes[28..32].try_into().unwrap()), 500_000_001);
        assert_eq!(u32::from_le_bytes(bytes[32..36].try_into().unwrap()), 54);
        assert_eq!(u32::from_le_bytes(bytes[36..40].try_into().unwrap()), 1054);
        // TCP sequence number = 1000 + 1.
        let tcp = 40 + 14 + 20;
        assert_eq!(u32::from_be_bytes(bytes[tcp + 4..tcp + 8].try_into().unwrap()), 1001);
    }

    #[test]
    fn a_large_window_is_announced_by_window_scaling() {
        let syn_ack =
            Packet { kind: Kind::Ack, flags: crate::packet::FLAG_SYN, wnd: 1 << 20, size: 40, src: 1, dst: 0, ..Default::default() };
        let ack = Packet { kind: Kind::Ack, wnd: 1 << 20, ack: 1000, size: 40, src: 1, dst: 0, ..Default::default() };
        let bytes = capture("w", &[(1, 1, 0, syn_ack), (2, 1, 0, ack)]);
        // First record: TCP header of 24 bytes with NOP, window scale 5 (2^20 >> 5 = 32 768).
        let tcp = 24 + 16 + 14 + 20;
        assert_eq!(bytes[tcp + 12] >> 4, 6);
        assert_eq!(u16::from_be_bytes([bytes[tcp + 14], bytes[tcp + 15]]), 65535); // a SYN's window is not scaled
        assert_eq!(&bytes[tcp + 20..tcp + 24], &[1, 3, 3, 5]);
        // Second record: the window field scaled.
        let tcp2 = tcp + 24 + 16 + 14 + 20;
        assert_eq!(u16::from_be_bytes([bytes[tcp2 + 14], bytes[tcp2 + 15]]), 32768);
        assert_eq!((wscale_for(65535), wscale_for(65536), wscale_for(u32::MAX)), (0, 1, 14));
    }

    #[test]
    fn a_syn_announces_its_mss_and_sack() {
        let syn = |aux| Packet { kind: Kind::Control, flags: crate::packet::FLAG_SYN, aux, size: 40, src: 0, dst: 1, ..Default::default() };
        let bytes = capture("s", &[(1, 0, 1, syn(crate::packet::syn_options(1460, true))), (2, 0, 1, syn(0))]);
        // MSS 1460, NOP NOP SACK-permitted, NOP window scale 0: a 32-byte header.
        let tcp = 24 + 16 + 14 + 20;
        assert_eq!(bytes[tcp + 12] >> 4, 8);
        assert_eq!(&bytes[tcp + 20..tcp + 32], &[2, 4, 0x05, 0xb4, 1, 1, 4, 2, 1, 3, 3, 0]);
        // A SYN that announces nothing (no MSS, no SACK) carries the window scale alone.
        let tcp2 = tcp + 32 + 16 + 14 + 20;
        assert_eq!(bytes[tcp2 + 12] >> 4, 6);
        assert_eq!(&bytes[tcp2 + 20..tcp2 + 24], &[1, 3, 3, 0]);
    }

    #[test]
    fn the_ip_length_covers_headers_and_payload_whatever_the_wire_size() {
        // `headers = false`: the model charges the payload alone (1000 bytes on the wire).
        let p = Packet { kind: Kind::Data, seq: 0, payload: 1000, size: 1000, src: 0, dst: 1, ..Default::default() };
        let bytes = capture("h", &[(1, 0, 1, p)]);
        assert_eq!(u32::from_le_bytes(bytes[36..40].try_into().unwrap()), 14 + 1040);
        let ip = 40 + 14;
        assert_eq!(u16::from_be_bytes(bytes[ip + 2..ip + 4].try_into().unwrap()), 1040);
        assert_eq!(checksum(&bytes[ip..ip + 20], 0), 0);
    }
}
