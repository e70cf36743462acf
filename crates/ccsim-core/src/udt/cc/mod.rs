//! UDT's congestion control behind one small trait, as TCP's ([`crate::cc`]).
//!
//! A controller owns the packet sending period (µs between two packets, as UDT's
//! `m_dPktSndPeriod`) and the congestion window (packets, `m_dCWndSize`). The sender tells
//! it about full ACKs, NAKs, EXP timeouts and every packet it sends; it reads the period
//! and the window back after each call (UDT's `CCUpdate`). Three controllers:
//!
//! - `daimd` with `variant = "ns2"` ([`daimd_ns2`]): Gu's ns-2 `Agent/UDT` module (2006);
//! - `daimd` with `variant = "udt4"` ([`daimd_udt4`]): UDT 4.11's `CUDTCC`;
//! - `rttpred` ([`rttpred`]): Paper D's RTT-prediction control inside the SYN interval, on
//!   top of either DAIMD variant.
//!
//! Each has a typed configuration (its `cc_params`), which is its factory. A new controller
//! is one file here, its tests, and one line in [`REGISTRY`].

pub mod daimd_ns2;
pub mod daimd_udt4;
pub mod rttpred;

use super::Profile;
use crate::config::{Errors, Obj};
use crate::measure::Table;
use crate::rng::SimRng;
use crate::units::Time;
use std::sync::Arc;

/// What the sender knows when it calls its controller (UDT's `CCC` fields).
#[derive(Clone, Copy, Debug, Default)]
pub struct CcView {
    pub now: Time,
    /// The sender's smoothed RTT, µs (`m_iRTT`).
    pub rtt_us: f64,
    /// Packet arrival rate reported by the receiver, smoothed, packets/s (`m_iRcvRate`).
    pub rcv_rate: f64,
    /// Link capacity estimate reported by the receiver, smoothed, packets/s (`m_iBandwidth`).
    pub bandwidth: f64,
    /// The flow window, packets (`m_dMaxCWndSize`).
    pub max_cwnd: f64,
    /// Packet size on the wire, bytes (UDT's MSS).
    pub mss: u32,
    /// The largest sequence number sent so far (`m_iSndCurrSeqNo`; −1 before the first).
    pub snd_cur: i64,
    /// The rate-control interval, µs (SYN, 10 000).
    pub syn_us: f64,
}

/// What a NAK makes the sender do besides the new period.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LossAction {
    /// The send after the next one waits SYN + period (the ns-2 module's freeze at the start
    /// of a congestion period; an advancing ACK cancels it).
    pub freeze: bool,
}

pub trait UdtCc: Send {
    fn name(&self) -> &'static str;
    /// Packet sending period, µs.
    fn period_us(&self) -> f64;
    /// Congestion window, packets.
    fn cwnd(&self) -> f64;
    /// Still in slow start (window-limited, the period at its initial value).
    fn in_slow_start(&self) -> bool;
    /// Overrides the period (Paper D's per-16-packet factor), µs.
    fn set_period(&mut self, period_us: f64);
    /// A full ACK moved the ACK point to `ack` (the first sequence not yet received), carrying
    /// the receiver's RTT `ack_rtt_us`.
    fn on_ack(&mut self, v: &CcView, ack: i64, ack_rtt_us: f64);
    /// A NAK reported `first_lost` (its first lost sequence) and `count` lost packets.
    fn on_loss(&mut self, v: &CcView, first_lost: i64, count: u64, rng: &mut SimRng) -> LossAction;
    /// The EXP timer expired with data outstanding.
    fn on_timeout(&mut self, v: &CcView);
    /// A packet `seq` left (a retransmission if `retransmission`); `next_seq` is the next
    /// new sequence.
    fn on_pkt_sent(&mut self, _v: &CcView, _seq: i64, _next_seq: i64, _retransmission: bool) {}
    /// Summary values for the flow table.
    fn summary(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
    /// Warm-up ended: the counters of [`UdtCc::summary`] restart.
    fn restart_counters(&mut self) {}
    /// Event logs (see `Agent::tables`).
    fn tables(&mut self) -> Vec<(&'static str, Table)> {
        Vec::new()
    }
}

/// A controller's typed configuration (`cc_params`), which builds one controller per flow.
pub trait UdtCcConfig: Send + Sync + std::fmt::Debug {
    /// The scenario name (`cc = "..."`).
    fn kind(&self) -> &'static str;
    fn build(&self) -> Box<dyn UdtCc>;
    /// Every parameter, defaults resolved, as scenario values.
    fn params(&self) -> serde_json::Value;
}

/// Parses a controller's `cc_params` (absent: defaults), given the flow's profile.
pub type UdtCcParser = fn(Option<&mut Obj>, Profile, &mut Errors) -> Option<Arc<dyn UdtCcConfig>>;

/// UDT controllers by scenario name: one line each.
pub const REGISTRY: &[(&str, UdtCcParser)] = &[("daimd", parse_daimd), ("rttpred", rttpred::parse)];

/// The DAIMD rules of one variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DaimdVariant {
    Ns2,
    Udt4,
}

impl DaimdVariant {
    pub fn name(self) -> &'static str {
        match self {
            DaimdVariant::Ns2 => "ns2",
            DaimdVariant::Udt4 => "udt4",
        }
    }
}

/// `cc = "daimd"`: `cc_params = { variant = "ns2" | "udt4" }` (default: the flow's profile)
/// and the chosen variant's own fields.
#[derive(Clone, Debug)]
pub enum DaimdConfig {
    Ns2(daimd_ns2::Ns2DaimdConfig),
    Udt4(daimd_udt4::Udt4DaimdConfig),
}

impl DaimdConfig {
    pub fn variant(&self) -> DaimdVariant {
        match self {
            DaimdConfig::Ns2(_) => DaimdVariant::Ns2,
            DaimdConfig::Udt4(_) => DaimdVariant::Udt4,
        }
    }

    /// Reads `variant` and the variant's fields from `o` (which may hold other keys: the
    /// caller finishes it).
    pub(crate) fn read(o: Option<&mut Obj>, profile: Profile, errs: &mut Errors) -> Option<Self> {
        let default = profile.name();
        match o {
            None => Some(match profile {
                Profile::Ns2 => DaimdConfig::Ns2(Default::default()),
                Profile::Udt4 => DaimdConfig::Udt4(Default::default()),
            }),
            Some(o) => match o.choice("variant", &["ns2", "udt4"], Some(default), errs)? {
                "ns2" => daimd_ns2::Ns2DaimdConfig::read(o, errs).map(DaimdConfig::Ns2),
                _ => daimd_udt4::Udt4DaimdConfig::read(o, errs).map(DaimdConfig::Udt4),
            },
        }
    }

    pub fn build_daimd(&self) -> Box<dyn UdtCc> {
        match self {
            DaimdConfig::Ns2(c) => Box::new(daimd_ns2::Ns2Daimd::new(c.clone())),
            DaimdConfig::Udt4(c) => Box::new(daimd_udt4::Udt4Daimd::new(c.clone())),
        }
    }

    pub fn daimd_params(&self) -> serde_json::Value {
        let mut v = match self {
            DaimdConfig::Ns2(c) => crate::config::params_of(c),
            DaimdConfig::Udt4(c) => crate::config::params_of(c),
        };
        if let Some(m) = v.as_object_mut() {
            m.insert("variant".into(), self.variant().name().into());
        }
        v
    }
}

impl UdtCcConfig for DaimdConfig {
    fn kind(&self) -> &'static str {
        "daimd"
    }
    fn build(&self) -> Box<dyn UdtCc> {
        self.build_daimd()
    }
    fn params(&self) -> serde_json::Value {
        self.daimd_params()
    }
}

fn parse_daimd(o: Option<&mut Obj>, profile: Profile, errs: &mut Errors) -> Option<Arc<dyn UdtCcConfig>> {
    DaimdConfig::read(o, profile, errs).map(|c| Arc::new(c) as Arc<dyn UdtCcConfig>)
}

/// DAIMD's additive increase in packets per SYN for spare bandwidth `spare_pps` (packets/s)
/// and packets of `mss` bytes: `10^⌈log10(spare · mss · 8)⌉ · 1.5·10⁻⁶ / mss`, at least
/// `min_inc` (Gu & Grossman 2007, eq. 1; Paper D's eq. 1).
pub fn daimd_increase(spare_pps: f64, mss: u32, min_inc: f64) -> f64 {
    if spare_pps <= 0.0 {
        return min_inc;
    }
    let mss = mss as f64;
    let inc = libm::pow(10.0, libm::ceil(libm::log10(spare_pps * mss * 8.0))) * 1.5e-6 / mss;
    inc.max(min_inc)
}

/// The period after an increase of `inc` packets per SYN: `P·SYN / (P·inc + SYN)` (eq. 2).
#[inline]
pub fn increased_period(period: f64, inc: f64, syn_us: f64) -> f64 {
    period * syn_us / (period * inc + syn_us)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn increase_matches_hand_computed_values() {
        // Spare 10 Mb/s, 100 Mb/s, 1 Gb/s in packets/s of 1500 bytes.
        let pps = |bps: f64| bps / (1500.0 * 8.0);
        // 10 Mb/s: 10^7 · 1.5e-6 / 1500 = 0.01 packets per SYN.
        assert!((daimd_increase(pps(10e6), 1500, 0.0) - 0.01).abs() < 1e-12);
        // 100 Mb/s: 10^8 → 0.1; 1 Gb/s: 10^9 → 1.
        assert!((daimd_increase(pps(100e6), 1500, 0.0) - 0.1).abs() < 1e-12);
        assert!((daimd_increase(pps(1e9), 1500, 0.0) - 1.0).abs() < 1e-12);
        // 101 Mb/s rounds up to the next decade: 1 packet per SYN.
        assert!((daimd_increase(pps(101e6), 1500, 0.0) - 1.0).abs() < 1e-12);
        // No spare bandwidth: the floor (1/1500 in ns-2 and UDT 4.0-4.10, 0.01 in 4.11).
        assert_eq!(daimd_increase(0.0, 1500, 1.0 / 1500.0), 1.0 / 1500.0);
        assert_eq!(daimd_increase(-5.0, 1500, 0.01), 0.01);
        // 1 Mb/s spare: 10^6 · 1.5e-6 / 1500 = 0.001 < 0.01: the 4.11 floor applies.
        assert_eq!(daimd_increase(pps(1e6), 1500, 0.01), 0.01);
    }

    #[test]
    fn increased_period_adds_inc_packets_per_syn() {
        // 100 µs period = 100 packets per 10 ms; +1 packet per SYN → 101 per SYN.
        let p = increased_period(100.0, 1.0, 10_000.0);
        assert!((10_000.0 / p - 101.0).abs() < 1e-9);
    }
}
