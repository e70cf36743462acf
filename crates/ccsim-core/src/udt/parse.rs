//! The `udt` flow kind's scenario fields and their report form.

use super::{cc, ExpRule, Profile, UdtConfig, UdtFlow};
use crate::agent::FlowConfig;
use crate::config::{Errors, Obj};
use std::sync::Arc;

/// Scenario: `kind = "udt"`, `profile` (`ns2` | `udt4`, default `ns2`), `cc` (`daimd` |
/// `rttpred`, default `daimd`), `cc_params` (table), and overrides: `packet_size`, `syn`,
/// `buffer`, `flight_flag` (packets), `light_ack_every`, `record_losses`, `ack_repeat`
/// (`two_rtt` | `rtt_var`), `rates_once_per_syn`, `irregular_ack`, `ack_has_buffer`,
/// `initial_rtt`, `initial_rtt_var`, `sender_ewma` (`ns2` | `udt4`), `exp` (`fixed` |
/// `backoff`), `exp_first`, `exp_then`, `exp_min`, `exp_requeue_always`, `ack_forces_send`,
/// `ack_clears_inclusive`, `speed_band`, `probe_slots`, `capacity` (`mean` | `median`),
/// `bytes`, `log_acks`.
pub fn parse(o: &mut Obj, errs: &mut Errors) -> Option<Arc<dyn FlowConfig>> {
    let mut ok = true;
    let profile = match o.choice("profile", &["ns2", "udt4"], Some("ns2"), errs) {
        Some("udt4") => Profile::Udt4,
        Some(_) => Profile::Ns2,
        None => {
            ok = false;
            Profile::Ns2
        }
    };
    let mut c = if profile == Profile::Udt4 { UdtConfig::udt4() } else { UdtConfig::ns2() };
    if let Some(v) = o.size("packet_size", errs) {
        if !(64..=65_535).contains(&v) {
            errs.add(o.at("packet_size"), format!("must be between 64 and 65535 bytes, got {v}"));
        }
        c.packet_size = v.clamp(64, 65_535);
    }
    if let Some(v) = o.time("syn", errs) {
        // UDT's SYN is 10 ms; below 100 µs the per-SYN ACK timer would dominate the run.
        if v < 100 * crate::units::US {
            errs.add(o.at("syn"), format!("must be at least 100us (UDT's is 10ms), got {} s", v as f64 / 1e9));
        }
        c.syn = v.max(100 * crate::units::US);
    }
    for (key, field) in [("buffer", &mut c.buffer), ("flight_flag", &mut c.flight_flag)] {
        if let Some(v) = o.int(key, 2, u32::MAX as i64, errs) {
            *field = v as u32;
        }
    }
    if let Some(v) = o.int("light_ack_every", 0, 1_000_000, errs) {
        c.light_ack_every = v as u32;
    }
    for (key, field) in [
        ("record_losses", &mut c.record_losses),
        ("rates_once_per_syn", &mut c.rates_once_per_syn),
        ("irregular_ack", &mut c.irregular_ack),
        ("ack_has_buffer", &mut c.ack_has_buffer),
        ("exp_requeue_always", &mut c.exp_requeue_always),
        ("ack_forces_send", &mut c.ack_forces_send),
        ("ack_clears_inclusive", &mut c.ack_clears_inclusive),
        ("log_acks", &mut c.log_acks),
    ] {
        if let Some(v) = o.boolean(key, errs) {
            *field = v;
        }
    }
    if o.has("ack_repeat") {
        if let Some(v) = o.choice("ack_repeat", &["two_rtt", "rtt_var"], None, errs) {
            c.ack_repeat_two_rtt = v == "two_rtt";
        }
    }
    if o.has("sender_ewma") {
        if let Some(v) = o.choice("sender_ewma", &["ns2", "udt4"], None, errs) {
            c.sender_ewma_udt4 = v == "udt4";
        }
    }
    if let Some(v) = o.time("initial_rtt", errs) {
        if v == 0 {
            errs.add(o.at("initial_rtt"), "must be greater than 0");
        }
        c.initial_rtt = v.max(1);
    }
    if let Some(v) = o.time("initial_rtt_var", errs) {
        c.initial_rtt_var = v;
    }
    let exp_kind =
        o.choice("exp", &["fixed", "backoff"], Some(if matches!(c.exp, ExpRule::Fixed { .. }) { "fixed" } else { "backoff" }), errs);
    let (mut first, mut then, mut min) = match c.exp {
        ExpRule::Fixed { first, then } => (first, then, 300 * crate::units::MS),
        ExpRule::Backoff { min } => (1010 * crate::units::MS, crate::units::SEC, min),
    };
    for (key, field) in [("exp_first", &mut first), ("exp_then", &mut then), ("exp_min", &mut min)] {
        if let Some(v) = o.time(key, errs) {
            if v < crate::units::MS {
                errs.add(o.at(key), format!("must be at least 1ms, got {} s", v as f64 / 1e9));
            }
            *field = v.max(crate::units::MS);
        }
    }
    c.exp = if exp_kind == Some("backoff") { ExpRule::Backoff { min } } else { ExpRule::Fixed { first, then } };
    if let Some(v) = o.int("speed_band", 2, 1000, errs) {
        c.window.speed_band = v;
    }
    if let Some(v) = o.int("probe_slots", 1, super::window::MAX_SLOTS as i64, errs) {
        c.window.probe_slots = v as usize;
    }
    if o.has("capacity") {
        if let Some(v) = o.choice("capacity", &["mean", "median"], None, errs) {
            c.window.capacity_mean = v == "mean";
        }
    }
    if let Some(b) = o.bytes("bytes", errs) {
        c.bytes = Some(b.max(1));
    }
    let names: Vec<&'static str> = cc::REGISTRY.iter().map(|(n, _)| *n).collect();
    o.allow(&["cc_params"]);
    let cc_name = o.choice("cc", &names, Some("daimd"), errs)?;
    if !ok {
        return None;
    }
    let parser = cc::REGISTRY.iter().find(|(n, _)| *n == cc_name).unwrap().1;
    c.cc = match o.get("cc_params") {
        Some(v) => {
            let path = o.at("cc_params");
            let mut p = Obj::new(v, &path, errs)?;
            let built = parser(Some(&mut p), profile, errs);
            p.finish(errs);
            built
        }
        None => parser(None, profile, errs),
    }?;
    Some(Arc::new(UdtFlow { cfg: Arc::new(c) }))
}

/// Every parameter as scenario values (times in seconds).
pub(super) fn params(c: &UdtConfig) -> serde_json::Value {
    let s = crate::units::to_secs;
    let (exp, first, then, min) = match c.exp {
        ExpRule::Fixed { first, then } => ("fixed", Some(s(first)), Some(s(then)), None),
        ExpRule::Backoff { min } => ("backoff", None, None, Some(s(min))),
    };
    let big = |v: u32| if v == u32::MAX { serde_json::Value::Null } else { v.into() };
    serde_json::json!({
        "profile": c.profile.name(),
        "packet_size": c.packet_size,
        "payload": c.payload(),
        "syn": s(c.syn),
        "buffer": big(c.buffer),
        "flight_flag": big(c.flight_flag),
        "light_ack_every": c.light_ack_every,
        "record_losses": c.record_losses,
        "ack_repeat": if c.ack_repeat_two_rtt { "two_rtt" } else { "rtt_var" },
        "rates_once_per_syn": c.rates_once_per_syn,
        "irregular_ack": c.irregular_ack,
        "ack_has_buffer": c.ack_has_buffer,
        "initial_rtt": s(c.initial_rtt),
        "initial_rtt_var": s(c.initial_rtt_var),
        "sender_ewma": if c.sender_ewma_udt4 { "udt4" } else { "ns2" },
        "exp": exp, "exp_first": first, "exp_then": then, "exp_min": min,
        "exp_requeue_always": c.exp_requeue_always,
        "ack_forces_send": c.ack_forces_send,
        "ack_clears_inclusive": c.ack_clears_inclusive,
        "speed_band": c.window.speed_band,
        "probe_slots": c.window.probe_slots,
        "capacity": if c.window.capacity_mean { "mean" } else { "median" },
        "control_sizes": crate::config::params_of(&c.sizes),
        "bytes": c.bytes,
        "log_acks": c.log_acks,
        "cc": c.cc.kind(),
        "cc_params": c.cc.params(),
    })
}
