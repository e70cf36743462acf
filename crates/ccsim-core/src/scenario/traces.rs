//! `[[traces]]`: sampled queue, flow and element series, pcap captures, drop logs and
//! packet-event logs.

use super::elements::Elements;
use super::flows::Flows;
use super::topology::Topology;
use super::{PcapSpec, TraceSpec, TraceTarget};
use crate::config::{show, Errors, Obj};
use serde_json::Value;

/// The parsed traces.
#[derive(Default)]
pub(crate) struct Traces {
    pub traces: Vec<TraceSpec>,
    pub pcaps: Vec<PcapSpec>,
    pub drop_logs: Vec<u32>,
    pub packet_logs: Vec<u32>,
}

/// `classes = [0, "AF11", 12]`: code points given their own columns.
fn parse_classes(o: &mut Obj, errs: &mut Errors) -> Vec<u8> {
    let Some(v) = o.get("classes") else { return Vec::new() };
    let Value::Array(items) = v else {
        errs.add(o.at("classes"), format!("expected a list of DSCP code points (0-63 or names such as 'AF11'), got {}", show(v)));
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let wrapped = serde_json::json!({ "class": item });
        let path = format!("{}[{i}]", o.at("classes"));
        let mut local = Errors::default();
        let mut w = Obj::new(&wrapped, &path, &mut local).expect("a table");
        match w.dscp("class", &mut local) {
            Some(d) if !out.contains(&d) => out.push(d),
            Some(_) => {}
            None => errs.add(path, format!("expected a DSCP code point (0-63 or a name such as 'AF11'), got {}", show(item))),
        }
    }
    out
}

/// At most this many samples per trace (a sample is a row of a few numbers: 10⁶ rows of
/// ten columns are 80 MB).
pub const MAX_SAMPLES: u64 = 1_000_000;

/// At most this many samples over all the run's queue, flow and element traces (`flow =
/// "*"` is a trace per flow: 100 flows sampled 10⁶ times took 8.5 GB).
pub const MAX_TOTAL_SAMPLES: u64 = 10_000_000;

/// The samples a trace takes over a run of `duration`: at 0, `interval`, twice it, ... up
/// to the duration.
fn samples(duration: crate::units::Time, interval: crate::units::Time) -> u64 {
    duration / interval + 1
}

const NO_LINK: &str = "give a link name or 'from->to' node names of a link";

/// `[[traces]]`: `kind` = queue | flow | element | pcap | drops | packets, with `link`, `flow`,
/// `element`, `interval`, `file`, `classes` (queue and flow traces: per-class columns).
#[allow(clippy::too_many_arguments)]
pub(crate) fn parse(
    top: &mut Obj,
    topo: &Topology,
    flows: &Flows,
    elements: &Elements,
    duration: Option<crate::units::Time>,
    errs: &mut Errors,
    refs: &mut Errors,
) -> Traces {
    let mut out = Traces::default();
    let Some(tv) = top.get("traces") else { return out };
    let Value::Array(items) = tv else {
        errs.add("traces", format!("expected an array of tables ([[traces]]), got {}", show(tv)));
        return out;
    };
    // Each sampled trace item's path and samples (all its traces', for a '*').
    let mut sampled: Vec<(String, u64)> = Vec::new();
    // The item (`traces[i]`) that made each of `out.traces`.
    let mut trace_items: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = format!("traces[{i}]");
        let Some(mut o) = Obj::new(item, &path, errs) else { continue };
        let before = out.traces.len();
        let kind = o.choice("kind", &["queue", "flow", "element", "pcap", "drops", "packets"], None, errs);
        let logs = matches!(kind, Some("pcap") | Some("drops") | Some("packets"));
        let interval = if logs { 1 } else { o.time("interval", errs).unwrap_or(crate::units::secs(0.1)) };
        if interval == 0 {
            errs.add(o.at("interval"), "must be greater than 0");
        } else if let Some(d) = duration {
            if samples(d, interval) > MAX_SAMPLES && !logs {
                let min = crate::units::to_secs(d) / MAX_SAMPLES as f64;
                errs.add(
                    o.at("interval"),
                    format!(
                        "gives {} samples over the run (at 0, the interval, twice it, ... up to the duration); at most \
                         {MAX_SAMPLES} per trace: use an interval longer than {min} s",
                        samples(d, interval)
                    ),
                );
            }
        }
        let classes = if matches!(kind, Some("queue") | Some("flow")) { parse_classes(&mut o, errs) } else { Vec::new() };
        let link = |o: &mut Obj, errs: &mut Errors, refs: &mut Errors, what: &str| {
            let l = o.req_string("link", errs)?;
            let r = topo.link_dir(l);
            if r.is_none() {
                refs.add(o.at("link"), format!("no link '{l}': {what}"));
            }
            r
        };
        match kind {
            Some("queue") => {
                let what = "give a link name (its a->b direction) or 'from->to' node names of a link";
                if let Some(ld) = link(&mut o, errs, refs, what) {
                    out.traces.push(TraceSpec { target: TraceTarget::Queue(ld), interval, classes: classes.clone() });
                }
            }
            Some("drops") => {
                if let Some(ld) = link(&mut o, errs, refs, NO_LINK) {
                    if !out.drop_logs.contains(&ld) {
                        out.drop_logs.push(ld)
                    }
                }
            }
            Some("packets") => {
                if let Some(ld) = link(&mut o, errs, refs, NO_LINK) {
                    if !out.packet_logs.contains(&ld) {
                        out.packet_logs.push(ld)
                    }
                }
            }
            Some("pcap") => {
                let ld = link(&mut o, errs, refs, NO_LINK);
                let file = o.string("file", errs).map(str::to_string);
                if let Some(ld) = ld {
                    let (f, t) = topo.ends(ld);
                    let names = &topo.nodes.names;
                    let file = file.unwrap_or_else(|| format!("{}-{}.pcap", names[f as usize], names[t as usize]));
                    let why = if file.contains('/') || file.contains('\\') {
                        Some("a plain file name, without a folder (it is written in the run's output folder)")
                    } else if file.starts_with('.') {
                        Some("a name not starting with '.' (hidden, and the run's temporary files start with it)")
                    } else if !file.to_ascii_lowercase().ends_with(".pcap") {
                        Some("a name ending in .pcap")
                    } else if file.chars().any(|c| c.is_control()) {
                        Some("a name without control characters")
                    } else if file.len() > 200 {
                        Some("a name of at most 200 bytes")
                    } else {
                        None
                    };
                    if let Some(why) = why {
                        errs.add(o.at("file"), format!("{file:?}: give {why}"));
                    } else if let Some(p) = out.pcaps.iter().find(|p| p.file.eq_ignore_ascii_case(&file)) {
                        let which = if p.file == file {
                            format!("'{file}'")
                        } else {
                            format!("'{}' and '{file}', one file where names ignore case (macOS, Windows)", p.file)
                        };
                        errs.add(o.at("file"), format!("two pcap traces write {which}"));
                    } else {
                        out.pcaps.push(PcapSpec { link_dir: ld, file });
                    }
                }
            }
            Some("flow") => {
                if let Some(f) = o.req_string("flow", errs) {
                    if f == "*" {
                        out.traces.extend((0..flows.flows.len() as u32).map(|fi| TraceSpec {
                            target: TraceTarget::Flow(fi),
                            interval,
                            classes: classes.clone(),
                        }));
                    } else {
                        match flows.index_of(f) {
                            Some(fi) => out.traces.push(TraceSpec { target: TraceTarget::Flow(fi), interval, classes: classes.clone() }),
                            None if flows.unknown(f) => refs.add(o.at("flow"), format!("no flow named '{f}' (or use '*' for every flow)")),
                            None => {}
                        }
                    }
                }
            }
            Some("element") => {
                if let Some(e) = o.req_string("element", errs) {
                    if e == "*" {
                        out.traces.extend((0..elements.elements.len() as u32).map(|ei| TraceSpec {
                            target: TraceTarget::Element(ei),
                            interval,
                            classes: Vec::new(),
                        }));
                    } else {
                        match elements.names.get(e) {
                            Some(&ei) => out.traces.push(TraceSpec { target: TraceTarget::Element(ei), interval, classes: Vec::new() }),
                            None => refs.add(o.at("element"), format!("no element named '{e}' (or use '*' for every element)")),
                        }
                    }
                }
            }
            _ => {}
        }
        // One sampled trace per queue, flow and element: its series is named after it, and
        // a second (another interval, a `flow = "*"` over a traced flow) had silently
        // replaced the first.
        for k in before..out.traces.len() {
            let t = out.traces[k].target;
            if let Some(j) = out.traces[..before].iter().position(|u| u.target == t) {
                let what = match t {
                    TraceTarget::Queue(ld) => {
                        let (f, to) = topo.ends(ld);
                        format!("the queue of {}->{}", topo.nodes.names[f as usize], topo.nodes.names[to as usize])
                    }
                    TraceTarget::Flow(fi) => format!("flow '{}'", flows.flows[fi as usize].name),
                    TraceTarget::Element(ei) => format!("element '{}'", elements.elements[ei as usize].name),
                };
                let first = trace_items.get(j).cloned().unwrap_or_default();
                errs.add(
                    path.clone(),
                    format!("{what} is traced already ({first}): one sampled trace each (its series is named after it)"),
                );
                break;
            }
        }
        trace_items.resize(out.traces.len(), path.clone());
        if let Some(d) = duration.filter(|&d| interval > 0 && samples(d, interval) <= MAX_SAMPLES) {
            let added = (out.traces.len() - before) as u64;
            sampled.push((o.at("interval"), added.saturating_mul(samples(d, interval))));
        }
        o.finish_if(kind.is_some(), errs);
    }
    let total = sampled.iter().fold(0u64, |a, (_, n)| a.saturating_add(*n));
    if total > MAX_TOTAL_SAMPLES {
        let (at, most) = sampled.iter().max_by_key(|(_, n)| *n).expect("samples counted");
        errs.add(
            at.clone(),
            format!(
                "the run's traces give {total} samples in all ({most} from this one; `flow = \"*\"` is a trace per \
                 flow); at most {MAX_TOTAL_SAMPLES}, about a gigabyte: use a longer interval or fewer traces"
            ),
        );
    }
    out
}

/// With a pcap trace, a warning for flows (and generators' transports) whose segments an
/// IPv4 packet cannot carry (65 535 bytes: 40 of headers, 12 more with timestamps): their
/// captured length is cut while sequence numbers advance by the whole segment.
pub(crate) fn check_capture_mss(traces: &Traces, flows: &Flows, generators: &[super::GeneratorSpec], errs: &mut Errors) {
    if traces.pcaps.is_empty() {
        return;
    }
    let too_big = |app: &dyn crate::agent::FlowConfig| {
        let p = app.params();
        let ts = if p.get("timestamps").and_then(Value::as_bool) == Some(true) { 12 } else { 0 };
        p.get("mss").and_then(Value::as_u64).is_some_and(|m| m + ts > 65_495) || app.largest_packet().is_some_and(|s| s > 65_535)
    };
    let big: Vec<String> = flows
        .flows
        .iter()
        .filter(|f| too_big(f.app.as_ref()))
        .map(|f| format!("flow '{}'", f.name))
        .chain(generators.iter().filter(|g| too_big(g.transport.as_ref())).map(|g| format!("generator '{}'", g.name)))
        .collect();
    let tiny: Vec<(String, u64)> = flows
        .flows
        .iter()
        .filter_map(|f| f.app.smallest_packet(false).map(|s| (format!("flow '{}'", f.name), s)))
        .chain(generators.iter().filter_map(|g| g.transport.smallest_packet(true).map(|s| (format!("generator '{}'", g.name), s))))
        .filter(|&(_, size)| size < 28)
        .collect();
    if let Some((first, size)) = tiny.first() {
        let more = if tiny.len() > 1 { format!(" (and {} more)", tiny.len() - 1) } else { String::new() };
        errs.warn(
            "traces",
            format!(
                "{first}{more} sends packets of {size} bytes, fewer than the 28 of the IPv4 and UDP headers a pcap \
                 capture writes: Wireshark shows them as malformed"
            ),
        );
    }
    if let Some(first) = big.first() {
        let more = if big.len() > 1 { format!(" (and {} more)", big.len() - 1) } else { String::new() };
        errs.warn(
            "traces",
            format!(
                "{first}{more} sends packets larger than an IPv4 packet can be (65 535 bytes with the headers and \
                 options): pcap captures cut them to that length (and then show TCP segments as lost)"
            ),
        );
    }
}
