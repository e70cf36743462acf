//! Traffic sources and sinks that are not transport protocols: constant bit rate, on/off
//! (exponential or Pareto periods), and a datagram sink.

pub mod cbr;
pub mod onoff;
pub mod sink;

pub use cbr::Cbr;
pub use onoff::{OnOff, Period};
pub use sink::DatagramSink;

use crate::units::Time;

/// Packet spacing at `rate_bps` for `size`-byte packets, exact on average: returns the
/// next gap in ns and carries the remainder (as link serialization does).
#[inline]
pub(crate) fn gap(size: u32, rate_bps: u64, rem: &mut u64) -> Time {
    crate::units::serialization(size, rate_bps, rem)
}

use crate::scenario::{AppBuilder, Errors, Obj};

/// Default datagram size when a flow gives none (ns-2's TCP packetSize_).
pub const DEFAULT_PACKET_SIZE: u32 = 1000;

/// Scenario: `kind = "cbr"`, `rate`, `packet_size` (default 1000 B), `jitter` (false).
fn parse_cbr(o: &mut Obj, errs: &mut Errors) -> Option<AppBuilder> {
    let rate = o.req_rate("rate", errs);
    let size = o.size("packet_size", errs).unwrap_or(DEFAULT_PACKET_SIZE);
    let jitter = o.boolean("jitter", errs).unwrap_or(false);
    let rate = rate?;
    Some(Box::new(move |rng| (Box::new(Cbr::new(rate, size, jitter, rng)), Box::new(DatagramSink::default()))))
}

/// Scenario: `kind = "onoff"`, `rate` (while on), `packet_size`, `on_mean`, `off_mean`
/// (default 0.5 s each, as ns-2), `distribution` = exponential | pareto | constant,
/// `shape` (Pareto, default 1.5).
fn parse_onoff(o: &mut Obj, errs: &mut Errors) -> Option<AppBuilder> {
    let rate = o.req_rate("rate", errs);
    let size = o.size("packet_size", errs).unwrap_or(DEFAULT_PACKET_SIZE);
    let on = o.time("on_mean", errs).unwrap_or(500_000_000);
    let off = o.time("off_mean", errs).unwrap_or(500_000_000);
    let dist = o.choice("distribution", &["exponential", "pareto", "constant"], Some("exponential"), errs);
    let shape = o.float("shape", 1.0001, 100.0, errs).unwrap_or(1.5);
    if on == 0 {
        errs.add(o.at("on_mean"), "must be greater than 0");
    }
    let (rate, dist) = (rate?, dist?);
    let mk = move |mean: u64| {
        let m = crate::units::to_secs(mean);
        match dist {
            "pareto" => Period::Pareto { mean: m, shape },
            "constant" => Period::Constant(m),
            _ => Period::Exponential { mean: m },
        }
    };
    let (on, off) = (mk(on), mk(off));
    Some(Box::new(move |rng| (Box::new(OnOff::new(rate, size, on, off, rng)), Box::new(DatagramSink::default()))))
}

/// Flow kinds by scenario name: one line per kind.
pub const REGISTRY: &[(&str, crate::scenario::AppParser)] = &[("cbr", parse_cbr), ("onoff", parse_onoff), ("tcp", crate::tcp::parse)];
