//! Validation warnings for scenarios that ask far more of the engine than they seem to:
//! open-loop sources offering billions of packets (each an event, even when the first queue
//! drops it), and generators opening flows faster than their hosts' links could ever
//! carry them (the flows cannot finish, and each open flow holds memory until the end).

use super::{Arrivals, FlowSpec, GeneratorSpec};
use crate::config::Errors;
use crate::units::{to_secs, Time};

/// Packets offered in a run above which a warning says what it will cost.
pub const MANY_PACKETS: f64 = 1e9;
/// Offered load, as a multiple of the source hosts' link capacity, above which a
/// generator's flows pile up.
pub const OVERLOAD_FACTOR: f64 = 10.0;

pub(super) fn overload_warnings(
    topo: &super::topology::Topology,
    flows: &[FlowSpec],
    gens: &[GeneratorSpec],
    end: Time,
    errs: &mut Errors,
) {
    let mut total = 0.0;
    let mut largest: Option<(f64, &str)> = None;
    for f in flows {
        let from = f.start.min(end);
        let until = f.stop.unwrap_or(end).min(end);
        let secs = to_secs(until.saturating_sub(from));
        if let Some(n) = f.app.offered_packets(secs) {
            total += n;
            if largest.is_none_or(|(m, _)| n > m) {
                largest = Some((n, &f.name));
            }
        }
    }
    if total > MANY_PACKETS {
        let (n, name) = largest.unwrap_or((total, "?"));
        errs.warn(
            "flows",
            format!(
                "the open-loop flows offer up to {total:.1e} packets in the run (flow '{name}' {n:.1e}): each is an event even \
                 where a queue drops it, so at some 10^7 packets per second this run may take {} or more; check their rates",
                duration_words(total / 1e7)
            ),
        );
    }
    // The rate at which each node can send: the sum of its links' rates (one pass).
    let mut node_rate = vec![0.0; topo.nodes.names.len()];
    if gens.iter().any(|g| matches!(g.arrivals, Arrivals::Poisson { .. })) {
        for l in &topo.links {
            node_rate[l.a as usize] += l.rate_bps as f64;
            node_rate[l.b as usize] += l.rate_bps as f64;
        }
    }
    for g in gens {
        let Arrivals::Poisson { rate } = g.arrivals else { continue };
        let capacity: f64 = g.src.iter().map(|&n| node_rate[n as usize]).sum();
        let offered = rate * g.size.mean() * 8.0;
        let secs = to_secs(g.stop.unwrap_or(end).min(end).saturating_sub(g.start.min(end)));
        let flows = (rate * secs).min(g.max_flows.map_or(f64::INFINITY, |m| m as f64));
        // The bits its flows bring in the run against what the senders' links carry in
        // that time: a bounded burst (max_flows) that the links clear is no overload.
        let bits = flows * g.size.mean() * 8.0;
        if capacity > 0.0 && flows >= 1.0 && bits > OVERLOAD_FACTOR * capacity * secs {
            errs.warn(
                "generators",
                format!(
                    "generator '{}' offers {offered:.2e} b/s ({rate:.3e} flows/s of {:.3e} bytes on average), {:.0}× what its \
                     senders' links carry ({capacity:.2e} b/s): most of its flows cannot finish, and each open one holds \
                     memory (about {flows:.1e} flows in the run); lower arrivals.rate or set max_flows",
                    g.name,
                    g.size.mean(),
                    offered / capacity
                ),
            );
        }
    }
}

fn duration_words(secs: f64) -> String {
    if secs >= 3600.0 {
        format!("{:.0} hours", secs / 3600.0)
    } else {
        format!("{:.0} minutes", (secs / 60.0).max(1.0))
    }
}
