//! The packet type and the packet pool (a slab with a free list: no heap allocation per
//! packet once the pool has grown to the simulation's peak population).

use crate::units::Time;

pub mod udt;

/// Index of a packet in the [`PacketPool`].
pub type PktId = u32;

/// What a packet is, for the endpoint that receives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum Kind {
    /// A datagram (UDP-like traffic: CBR, on/off, UDT data).
    #[default]
    Datagram = 0,
    /// Transport data segment (TCP).
    Data = 1,
    /// Transport acknowledgement (TCP ACK, UDT ACK/NAK).
    Ack = 2,
    /// Control packet (handshakes, UDT control).
    Control = 3,
    /// An ATM cell carrying part of an AAL5 frame (`aux`: see `atm::CellInfo`); its frame
    /// lives in the pool until its last cell is freed ([`PacketPool::hold_frame`]).
    Cell = 4,
}

/// `Packet::flags`: the TCP timestamps option is present (12 header bytes).
pub const FLAG_TS: u8 = 0x01;
/// `Packet::flags`: a connection-opening segment (TCP SYN on a `Control` packet, SYN-ACK on
/// an `Ack`).
pub const FLAG_SYN: u8 = 0x02;

/// A SYN's or SYN-ACK's `aux`: the options its sender announces, for traces only (the model
/// reads none of them): the MSS in the low 32 bits and SACK-permitted at bit 32.
#[inline]
pub fn syn_options(mss: u32, sack: bool) -> u64 {
    u64::from(mss) | if sack { SYN_SACK_PERMITTED } else { 0 }
}

/// See [`syn_options`].
pub const SYN_SACK_PERMITTED: u64 = 1 << 32;

/// Standard names of DSCP code points (RFC 2474 class selectors, RFC 2597 assured
/// forwarding, RFC 3246 expedited forwarding).
pub const DSCP_NAMES: &[(u8, &str)] = &[
    (0, "BE"),
    (8, "CS1"),
    (10, "AF11"),
    (12, "AF12"),
    (14, "AF13"),
    (16, "CS2"),
    (18, "AF21"),
    (20, "AF22"),
    (22, "AF23"),
    (24, "CS3"),
    (26, "AF31"),
    (28, "AF32"),
    (30, "AF33"),
    (32, "CS4"),
    (34, "AF41"),
    (36, "AF42"),
    (38, "AF43"),
    (40, "CS5"),
    (46, "EF"),
    (48, "CS6"),
    (56, "CS7"),
];

/// The name of code point `d` (`"AF11"`, `"EF"`, ... or `"DSCP5"`).
pub fn dscp_name(d: u8) -> String {
    DSCP_NAMES.iter().find(|(c, _)| *c == d).map(|(_, n)| n.to_string()).unwrap_or_else(|| format!("DSCP{d}"))
}

/// A SACK block, stored relative to the packet's cumulative `ack` (8 bytes instead of 16,
/// keeping `Packet` small): the block is `[ack + off, ack + off + len)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SackBlock {
    pub off: u32,
    pub len: u32,
}

/// Everything later protocols need, in one fixed-size `Copy` struct.
#[derive(Clone, Copy, Debug, Default)]
pub struct Packet {
    /// Globally unique id (creation order), for traces.
    pub uid: u64,
    /// Flow index.
    pub flow: u32,
    /// Source and destination node indices.
    pub src: u32,
    pub dst: u32,
    /// Size on the wire at the IP layer, bytes (headers included).
    pub size: u32,
    /// Transport payload bytes carried.
    pub payload: u32,
    pub kind: Kind,
    /// Transport flags (SYN/FIN/ECE/CWR/...), protocol-defined bits.
    pub flags: u8,
    /// DiffServ code point, 0-63: the packet's class (0 = best effort; the AF classes and
    /// their drop precedences as RFC 2597: AF11 = 10, AF12 = 12, AF13 = 14, ..., AF43 = 38;
    /// EF = 46).
    pub dscp: u8,
    /// Number of valid entries in `sack`.
    pub nsack: u8,
    /// Sequence number (byte or packet, protocol-defined).
    pub seq: u64,
    /// Cumulative acknowledgement number.
    pub ack: u64,
    /// Time the packet was created by its source.
    pub sent_at: Time,
    /// Echoed timestamp (TCP timestamps / ns-2 `ts_echo`).
    pub ts_echo: Time,
    /// Advertised receive window (bytes) on ACKs.
    pub wnd: u32,
    /// Protocol-defined auxiliary word (e.g. AAL5 frame and cell index, UDT fields).
    pub aux: u64,
    pub sack: [SackBlock; 4],
}

impl Packet {
    /// SACK block `i` as absolute `(start, end)`.
    #[inline]
    pub fn sack_block(&self, i: usize) -> (u64, u64) {
        let b = self.sack[i];
        let start = self.ack + b.off as u64;
        (start, start + b.len as u64)
    }

    /// Sets SACK block `i` to `[start, end)` (requires `start >= ack`, set `ack` first).
    #[inline]
    pub fn set_sack_block(&mut self, i: usize, start: u64, end: u64) {
        debug_assert!(start >= self.ack && end > start);
        self.sack[i] = SackBlock { off: (start - self.ack).min(u32::MAX as u64) as u32, len: (end - start).min(u32::MAX as u64) as u32 };
    }
}

/// Slab of packets with a free list.
#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<PktId>,
    next_uid: u64,
    /// Live cells of each frame held by its cells (indexed by the frame's id; grown on
    /// first use, so pools without cells carry nothing).
    cell_refs: Vec<u32>,
}

/// A cell's frame: the low 32 bits of its `aux` (`atm::CellInfo` encodes the rest).
#[inline]
fn frame_of(cell: &Packet) -> PktId {
    cell.aux as u32
}

impl PacketPool {
    pub fn new() -> Self {
        PacketPool { slots: Vec::with_capacity(4096), free: Vec::with_capacity(4096), next_uid: 0, cell_refs: Vec::new() }
    }

    /// Stores `p` and returns its id; assigns `p.uid`.
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PktId {
        self.alloc_with(|q| *q = p)
    }

    /// Stores a default packet filled in place by `fill` (no copy of a packet built
    /// elsewhere) and returns its id; assigns `uid` after `fill`.
    #[inline]
    pub fn alloc_with(&mut self, fill: impl FnOnce(&mut Packet)) -> PktId {
        let id = match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = Packet::default();
                id
            }
            None => {
                self.slots.push(Packet::default());
                (self.slots.len() - 1) as PktId
            }
        };
        let p = &mut self.slots[id as usize];
        fill(p);
        p.uid = self.next_uid;
        self.next_uid += 1;
        id
    }

    #[inline]
    pub fn get(&self, id: PktId) -> &Packet {
        &self.slots[id as usize]
    }

    /// Asks the processor to bring packet `id` into the cache ahead of its use (a hint:
    /// no effect on anything but time). Loops over a batch of packets known in advance
    /// call it a few packets ahead: at 10 000 flows a packet written when it was sent is
    /// out of the cache by the time a router or a host reads it.
    #[inline(always)]
    pub fn prefetch(&self, id: PktId) {
        if let Some(p) = self.slots.get(id as usize) {
            crate::prefetch::lines(p, 2);
        }
    }

    #[inline]
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    /// Returns a packet's slot to the pool. Freeing a frame's last cell frees the frame.
    #[inline]
    pub fn free(&mut self, id: PktId) {
        if self.slots[id as usize].kind == Kind::Cell {
            self.release_cell(id);
        }
        self.free.push(id);
    }

    /// From now on frame `frame` lives as long as its `cells` cells (packets of kind
    /// [`Kind::Cell`] whose `aux` names it, created next): it is freed with the last of them.
    pub fn hold_frame(&mut self, frame: PktId, cells: u32) {
        let i = frame as usize;
        if self.cell_refs.len() <= i {
            self.cell_refs.resize(self.slots.len().max(i + 1), 0);
        }
        debug_assert_eq!(self.cell_refs[i], 0, "frame {frame} is held already");
        self.cell_refs[i] = cells;
        if cells == 0 {
            self.free.push(frame);
        }
    }

    #[cold]
    #[inline(never)]
    fn release_cell(&mut self, cell: PktId) {
        let f = frame_of(&self.slots[cell as usize]);
        let r = &mut self.cell_refs[f as usize];
        *r -= 1;
        if *r == 0 {
            self.free(f);
        }
    }

    /// The uid the next packet will get (packets with smaller uids exist already).
    #[inline]
    pub fn next_uid(&self) -> u64 {
        self.next_uid
    }

    /// Packets currently alive.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Peak number of simultaneously alive packets.
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_stays_small() {
        assert!(std::mem::size_of::<Packet>() <= 112, "{}", std::mem::size_of::<Packet>());
        let mut p = Packet { ack: 1000, ..Default::default() };
        p.set_sack_block(0, 3000, 4500);
        assert_eq!(p.sack_block(0), (3000, 4500));
    }

    #[test]
    fn reuses_slots() {
        let mut pool = PacketPool::new();
        let a = pool.alloc(Packet { size: 100, ..Default::default() });
        let b = pool.alloc(Packet { size: 200, ..Default::default() });
        assert_eq!(pool.live(), 2);
        pool.free(a);
        let c = pool.alloc(Packet { size: 300, ..Default::default() });
        assert_eq!(c, a);
        assert_eq!(pool.get(c).size, 300);
        assert_eq!(pool.get(b).size, 200);
        assert_eq!(pool.get(c).uid, 2);
        assert_eq!(pool.capacity_used(), 2);
    }

    #[test]
    fn a_frame_lives_as_long_as_its_cells() {
        let mut pool = PacketPool::new();
        let f = pool.alloc(Packet { size: 1000, ..Default::default() });
        pool.hold_frame(f, 3);
        let cells: Vec<PktId> =
            (0..3).map(|i| pool.alloc(Packet { kind: Kind::Cell, size: 53, aux: f as u64 | (i << 32), ..Default::default() })).collect();
        assert_eq!(pool.live(), 4);
        pool.free(cells[1]);
        pool.free(cells[0]);
        assert_eq!(pool.live(), 2);
        pool.free(cells[2]);
        assert_eq!(pool.live(), 0, "the frame went with its last cell");
        // Its slot is reused, and can hold cells again.
        let g = pool.alloc(Packet { size: 500, ..Default::default() });
        pool.hold_frame(g, 1);
        let c = pool.alloc(Packet { kind: Kind::Cell, size: 53, aux: g as u64, ..Default::default() });
        pool.free(c);
        assert_eq!(pool.live(), 0);
    }
}
