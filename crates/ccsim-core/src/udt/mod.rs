//! UDT (UDP-based Data Transfer, Gu & Grossman 2007): the `udt` flow kind, over UDP/IP.
//!
//! A `udt` flow is a bulk transfer (infinite, or `bytes` bytes) paced by a packet sending
//! period and bounded by a window, with ACKs every SYN (10 ms), ACK2s that let the receiver
//! time its RTT, immediate NAKs with compressed loss ranges, packet pairs every 16 packets
//! for the capacity estimate, and an EXP timer. Two profiles:
//!
//! - `ns2` (default): Yunhong Gu's ns-2 `Agent/UDT` module (2006), the likely UDT of Paper
//!   D, quirks included (PROTOCOLS.md §11.10; docs/models/udt.md lists them);
//! - `udt4`: UDT 4.11 (PROTOCOLS.md §6 and §11.11).
//!
//! Every difference between the two is a field of [`UdtConfig`] that a scenario can set.
//! The congestion control sits behind [`cc::UdtCc`]: `daimd` (the profile's DAIMD) or
//! `rttpred` (Paper D).

pub mod cc;
pub mod losslist;
mod parse;
pub mod receiver;
pub mod sender;
pub mod window;
pub mod wire;

pub use parse::parse;
pub use receiver::UdtReceiver;
pub use sender::UdtSender;

use crate::agent::{Agent, FlowConfig};
use crate::rng::SimRng;
use crate::units::{Time, MS, SEC};
use std::sync::Arc;
use window::WindowRules;

/// Which UDT: Gu's ns-2 module or UDT 4.11.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    Ns2,
    Udt4,
}

impl Profile {
    pub fn name(self) -> &'static str {
        match self {
            Profile::Ns2 => "ns2",
            Profile::Udt4 => "udt4",
        }
    }
}

/// The EXP (expiry) timer's interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExpRule {
    /// UDT4: `count·(RTT + 4·RTTVar) + SYN`, at least `count · min`; reset by any packet
    /// from the peer.
    Backoff { min: Time },
    /// ns-2: `first`, then `then` after an expiry, whatever the RTT; reset only by an
    /// advancing ACK or a NAK.
    Fixed { first: Time, then: Time },
}

/// Everything a UDT endpoint needs, resolved from the profile and the scenario's overrides.
#[derive(Clone, Debug)]
pub struct UdtConfig {
    pub profile: Profile,
    /// Data packet size on the wire, bytes (UDT's MSS: IP + UDP + UDT headers included).
    pub packet_size: u32,
    /// SYN interval: the ACK timer and the rate-control interval.
    pub syn: Time,
    /// Receiver buffer, packets: the flow window ACKs advertise (`udt4`; ns-2's ACKs carry
    /// none).
    pub buffer: u32,
    /// The largest window the sender ever uses, packets (UDT4's flight flag size).
    pub flight_flag: u32,
    /// A light ACK (ACK number only) every this many data packets (0: none).
    pub light_ack_every: u32,
    /// The receiver records gaps in its loss list (ACK = first lost); false: the ns-2
    /// module's receiver, whose ACK is the highest received + 1 (a NAK is sent once).
    pub record_losses: bool,
    /// An ACK repeating the last ACK number waits `2·RTT` (ns-2) instead of `RTT + 4·RTTVar`.
    pub ack_repeat_two_rtt: bool,
    /// Full ACKs carry the rates only if more than SYN has passed since the last ones
    /// (UDT4); false: every ACK carries them (ns-2).
    pub rates_once_per_syn: bool,
    /// A data packet of irregular size is acknowledged at once (UDT4).
    pub irregular_ack: bool,
    /// ACKs carry RTT variance and the available buffer (UDT4).
    pub ack_has_buffer: bool,
    pub initial_rtt: Time,
    pub initial_rtt_var: Time,
    /// The sender smooths RTT variance, receive rate and capacity with 7/8 integer EWMAs of
    /// non-zero reports (UDT4); false: the ns-2 module (RTT by a 1/8 EWMA only, the receive
    /// rate as reported, the capacity EWMA fed zeros too and truncated).
    pub sender_ewma_udt4: bool,
    pub exp: ExpRule,
    /// EXP puts every unacknowledged packet in the loss list even when it is not empty
    /// (ns-2); UDT4 only when it is empty.
    pub exp_requeue_always: bool,
    /// Every advancing ACK sends the next packet at once (ns-2's `resched(0)`); UDT4 only
    /// wakes a sender that was waiting for the window.
    pub ack_forces_send: bool,
    /// The sender's loss list drops entries up to and including the ACK number (ns-2);
    /// UDT4 below it.
    pub ack_clears_inclusive: bool,
    /// Arrival-speed and capacity filters.
    pub window: WindowRules,
    /// Wire sizes of control packets, bytes.
    pub sizes: CtrlSizes,
    /// Bytes to transfer (None: infinite).
    pub bytes: Option<u64>,
    /// Keep every full ACK the sender processes (the `acks` table).
    pub log_acks: bool,
    pub cc: Arc<dyn cc::UdtCcConfig>,
}

/// Control packet sizes on the wire, bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CtrlSizes {
    pub ack: u32,
    /// A full ACK without the rates.
    pub ack_short: u32,
    pub light_ack: u32,
    pub ack2: u32,
    /// A NAK is this plus 4 bytes per loss-list word.
    pub nak_base: u32,
    pub keepalive: u32,
}

impl UdtConfig {
    /// Gu's ns-2 module: 1500-byte packets, 40-byte ACKs (RTT, receive rate, capacity),
    /// 32-byte ACK2s, NAKs of 32 + 4 bytes per word, no light ACKs, RTT starting at 1 s,
    /// EXP 1.01 s then 1 s, ACKs that step over holes, the `(M/2, 2M)` speed filter and the
    /// plain median capacity (probe slots starting at 1000 s).
    pub fn ns2() -> Self {
        UdtConfig {
            profile: Profile::Ns2,
            packet_size: 1500,
            syn: 10 * MS,
            buffer: u32::MAX,
            flight_flag: u32::MAX,
            light_ack_every: 0,
            record_losses: false,
            ack_repeat_two_rtt: true,
            rates_once_per_syn: false,
            irregular_ack: false,
            ack_has_buffer: false,
            initial_rtt: SEC,
            initial_rtt_var: 0,
            sender_ewma_udt4: false,
            exp: ExpRule::Fixed { first: 1010 * MS, then: SEC },
            exp_requeue_always: true,
            ack_forces_send: true,
            ack_clears_inclusive: true,
            window: WindowRules::NS2,
            sizes: CtrlSizes { ack: 40, ack_short: 40, light_ack: 40, ack2: 32, nak_base: 32, keepalive: 32 },
            bytes: None,
            log_acks: false,
            cc: Arc::new(cc::DaimdConfig::Ns2(Default::default())),
        }
    }

    /// UDT 4.11: 1500-byte packets (1456 bytes of data), 8192-packet buffers, flight flag
    /// 25 600, light ACKs every 64 packets, RTT 100 ms / RTTVar 50 ms at the start, EXP with
    /// back-off and a 300 ms minimum, the `(M/8, 8M)` filters; control sizes are IP + UDP +
    /// the 16-byte header + the control information.
    pub fn udt4() -> Self {
        let h = wire::IP_UDP + wire::UDT_HEADER;
        UdtConfig {
            profile: Profile::Udt4,
            buffer: 8192,
            flight_flag: 25_600,
            light_ack_every: 64,
            record_losses: true,
            ack_repeat_two_rtt: false,
            rates_once_per_syn: true,
            irregular_ack: true,
            ack_has_buffer: true,
            initial_rtt: 100 * MS,
            initial_rtt_var: 50 * MS,
            sender_ewma_udt4: true,
            exp: ExpRule::Backoff { min: 300 * MS },
            exp_requeue_always: false,
            ack_forces_send: false,
            ack_clears_inclusive: false,
            window: WindowRules::UDT4,
            sizes: CtrlSizes { ack: h + 24, ack_short: h + 16, light_ack: h + 4, ack2: h, nak_base: h, keepalive: h },
            cc: Arc::new(cc::DaimdConfig::Udt4(Default::default())),
            ..Self::ns2()
        }
    }

    /// Application bytes a full data packet carries (size minus IP, UDP and UDT headers).
    pub fn payload(&self) -> u32 {
        self.packet_size.saturating_sub(wire::IP_UDP + wire::UDT_HEADER).max(1)
    }

    /// Data packets in a transfer of `bytes`.
    pub fn packets_for(&self, bytes: u64) -> u64 {
        bytes.div_ceil(self.payload() as u64).max(1)
    }

    /// The static window bound: min(buffer, flight flag).
    pub fn max_window(&self) -> u32 {
        self.buffer.min(self.flight_flag)
    }
}

/// The `udt` flow kind.
#[derive(Debug)]
pub struct UdtFlow {
    pub cfg: Arc<UdtConfig>,
}

impl FlowConfig for UdtFlow {
    fn kind(&self) -> &'static str {
        "udt"
    }
    fn build(&self, rng: SimRng, size: Option<u64>, _receivers: usize) -> (Box<dyn Agent>, Vec<Box<dyn Agent>>) {
        let bytes = size.or(self.cfg.bytes);
        (Box::new(UdtSender::new(self.cfg.clone(), rng, bytes)), vec![Box::new(UdtReceiver::new(self.cfg.clone(), bytes))])
    }
    fn params(&self) -> serde_json::Value {
        parse::params(&self.cfg)
    }
    fn sized(&self) -> bool {
        true
    }
    fn receiver_completes(&self) -> bool {
        // The ns-2 module's receiver may never hold every packet (its ACKs step over holes).
        self.cfg.record_losses
    }
    fn largest_packet(&self) -> Option<u64> {
        Some(self.cfg.packet_size as u64)
    }
}
