//! The scenario schema and its one validator.
//!
//! A scenario is data: a TOML file or a JSON-like tree (what Python dicts become). It is
//! validated here once, into a [`Spec`] of resolved engine units, or into a list of
//! [`ScenarioError`]s that name the exact field (`links[2].delay`), the value and what is
//! allowed. Component kinds (queues, loss models, flow kinds) come from the registries of
//! their modules, so a new kind needs no change here.
//!
//! Top level: `name`, `description`, `[simulation]`, `nodes`, `[[links]]`, `[dumbbell]`,
//! `[[flows]]`, `[[traces]]`. See `docs/scenario.md` for the full reference.

pub mod reader;

use crate::agent::Agent;
use crate::loss::LossModel;
use crate::queue::{Limit, Queue};
use crate::rng::SimRng;
use crate::units::Time;
pub use reader::{Errors, Obj, ScenarioError};
use serde_json::Value;
use std::collections::HashMap;

/// What a queue or loss model may need to know about its link direction.
#[derive(Clone, Copy, Debug)]
pub struct LinkInfo {
    pub rate_bps: u64,
    pub delay: Time,
}

pub type QueueBuilder = Box<dyn Fn(SimRng) -> Box<dyn Queue> + Send + Sync>;
pub type QueueParser = fn(&mut Obj, &LinkInfo, &mut Errors) -> Option<QueueBuilder>;
pub type LossBuilder = Box<dyn Fn(SimRng) -> Box<dyn LossModel> + Send + Sync>;
pub type LossParser = fn(&mut Obj, &mut Errors) -> Option<LossBuilder>;
/// Builds (sender, receiver) agents from the flow's random stream.
pub type AppBuilder = Box<dyn Fn(SimRng) -> (Box<dyn Agent>, Box<dyn Agent>) + Send + Sync>;
pub type AppParser = fn(&mut Obj, &mut Errors) -> Option<AppBuilder>;

/// A validated, resolved scenario.
pub struct Spec {
    pub name: String,
    pub duration: Time,
    pub seed: u64,
    pub warmup: Time,
    pub max_events: Option<u64>,
    pub nodes: Vec<String>,
    pub links: Vec<LinkSpec>,
    pub flows: Vec<FlowSpec>,
    pub traces: Vec<TraceSpec>,
    pub pcaps: Vec<PcapSpec>,
    /// Link directions whose drops are logged one by one (`kind = "drops"` traces).
    pub drop_logs: Vec<u32>,
}

/// A pcap capture of one link direction, written to `file` under the run's output folder.
#[derive(Clone, Debug)]
pub struct PcapSpec {
    pub link_dir: u32,
    pub file: String,
}

/// Per direction: index 0 is `a->b`, 1 is `b->a`.
pub struct LinkSpec {
    pub name: String,
    pub a: u32,
    pub b: u32,
    pub rate_bps: u64,
    pub delay: Time,
    pub queue: [QueueBuilder; 2],
    pub queue_kind: [&'static str; 2],
    pub loss: [Option<LossBuilder>; 2],
}

pub struct FlowSpec {
    pub name: String,
    pub kind: &'static str,
    pub src: u32,
    pub dst: u32,
    pub start: Time,
    /// The actual start is `start + U[0, start_jitter)`, drawn from the flow's own stream.
    pub start_jitter: Time,
    pub stop: Option<Time>,
    pub app: AppBuilder,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceTarget {
    /// Link direction index (2·link + 0 for a->b, + 1 for b->a).
    Queue(u32),
    Flow(u32),
}

#[derive(Clone, Copy, Debug)]
pub struct TraceSpec {
    pub target: TraceTarget,
    pub interval: Time,
}

/// Parses TOML text into the JSON-like tree the validator reads.
pub fn toml_to_value(text: &str) -> Result<Value, ScenarioError> {
    let t: toml::Table = toml::from_str(text)
        .map_err(|e| ScenarioError { path: String::new(), message: format!("not valid TOML: {}", e.to_string().trim()) })?;
    serde_json::to_value(t).map_err(|e| ScenarioError { path: String::new(), message: format!("TOML value not representable: {e}") })
}

/// Validates a TOML scenario.
pub fn from_toml(text: &str) -> Result<Spec, Vec<ScenarioError>> {
    let v = toml_to_value(text).map_err(|e| vec![e])?;
    from_value(&v)
}

/// Validates a scenario tree.
pub fn from_value(v: &Value) -> Result<Spec, Vec<ScenarioError>> {
    let mut errs = Errors::default();
    let spec = parse(v, &mut errs);
    match spec {
        Some(s) if errs.is_empty() => Ok(s),
        _ => {
            if errs.is_empty() {
                errs.add("", "invalid scenario");
            }
            Err(errs.0)
        }
    }
}

fn parse(v: &Value, errs: &mut Errors) -> Option<Spec> {
    let mut top = Obj::new(v, "", errs)?;
    let name = top.string("name", errs).unwrap_or("scenario").to_string();
    top.string("description", errs);

    // [simulation]
    let (duration, seed, warmup, max_events) = match top.get("simulation") {
        None => {
            errs.add("simulation", "missing required section (needs at least duration)");
            (None, 1, 0, None)
        }
        Some(sv) => match Obj::new(sv, "simulation", errs) {
            None => (None, 1, 0, None),
            Some(mut s) => {
                let d = s.req_time("duration", errs);
                if d == Some(0) {
                    errs.add("simulation.duration", "must be greater than 0");
                }
                let seed = s.int("seed", 0, i64::MAX, errs).unwrap_or(1) as u64;
                let warmup = s.time("warmup", errs).unwrap_or(0);
                if let Some(d) = d {
                    if warmup >= d {
                        errs.add("simulation.warmup", "must be shorter than simulation.duration");
                    }
                }
                let max_events = s.int("max_events", 1, i64::MAX, errs).map(|x| x as u64);
                s.finish(errs);
                (d, seed, warmup, max_events)
            }
        },
    };

    let mut nodes: Vec<String> = Vec::new();
    let mut node_ix: HashMap<String, u32> = HashMap::new();
    let mut add_node = |name: &str, path: &str, errs: &mut Errors, nodes: &mut Vec<String>| {
        if node_ix.contains_key(name) {
            errs.add(path, format!("duplicate node name '{name}'"));
        } else {
            node_ix.insert(name.to_string(), nodes.len() as u32);
            nodes.push(name.to_string());
        }
    };

    // nodes = ["a", "b"] or [{ name = "a" }, ...]
    if let Some(nv) = top.get("nodes") {
        match nv {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let path = format!("nodes[{i}]");
                    match item {
                        Value::String(s) if !s.is_empty() => add_node(s, &path, errs, &mut nodes),
                        Value::Object(_) => {
                            let mut o = Obj::new(item, &path, errs)?;
                            if let Some(n) = o.req_string("name", errs) {
                                add_node(n, &o.at("name"), errs, &mut nodes);
                            }
                            o.finish(errs);
                        }
                        other => errs.add(path, format!("expected a node name or a table with 'name', got {}", reader::show(other))),
                    }
                }
            }
            other => errs.add("nodes", format!("expected a list of node names, got {}", reader::show(other))),
        }
    }

    let mut links: Vec<LinkSpec> = Vec::new();
    let mut pending_links: Vec<(String, String, String, LinkParts)> = Vec::new();

    // Errors in the topology would make every later reference to it fail too; those
    // follow-on errors are left out so the real problem stands alone.
    let before_topology = errs.0.len();

    // [dumbbell]
    if let Some(dv) = top.get("dumbbell") {
        if let Some(mut d) = Obj::new(dv, "dumbbell", errs) {
            parse_dumbbell(&mut d, errs, &mut |n: &str, errs: &mut Errors| add_node(n, "dumbbell", errs, &mut nodes), &mut pending_links);
            d.finish(errs);
        }
    }

    // [[links]]
    if let Some(lv) = top.get("links") {
        match lv {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let path = format!("links[{i}]");
                    let Some(mut o) = Obj::new(item, &path, errs) else { continue };
                    let a = o.req_string("a", errs);
                    let b = o.req_string("b", errs);
                    let lname = o.string("name", errs);
                    let parts = parse_link_parts(&mut o, errs);
                    o.finish(errs);
                    if let (Some(a), Some(b), Some(parts)) = (a, b, parts) {
                        let lname = lname.map(str::to_string).unwrap_or_else(|| format!("{a}-{b}"));
                        pending_links.push((path, a.to_string(), b.to_string(), LinkParts { name: Some(lname), ..parts }));
                    }
                }
            }
            other => errs.add("links", format!("expected an array of tables ([[links]]), got {}", reader::show(other))),
        }
    }

    let mut link_names: HashMap<String, u32> = HashMap::new();
    for (path, a, b, parts) in pending_links {
        let ai = node_ix.get(&a).copied();
        let bi = node_ix.get(&b).copied();
        if ai.is_none() {
            errs.add(format!("{path}.a"), format!("no node named '{a}' (declare it in nodes)"));
        }
        if bi.is_none() {
            errs.add(format!("{path}.b"), format!("no node named '{b}' (declare it in nodes)"));
        }
        if a == b {
            errs.add(format!("{path}.b"), "a link must join two different nodes");
        }
        let lname = parts.name.clone().unwrap_or_else(|| format!("{a}-{b}"));
        if link_names.insert(lname.clone(), links.len() as u32).is_some() {
            errs.add(format!("{path}.name"), format!("duplicate link name '{lname}'"));
        }
        if let (Some(ai), Some(bi)) = (ai, bi) {
            links.push(LinkSpec {
                name: lname,
                a: ai,
                b: bi,
                rate_bps: parts.rate,
                delay: parts.delay,
                queue: parts.queue,
                queue_kind: parts.queue_kind,
                loss: parts.loss,
            });
        }
    }
    let topology_ok = errs.0.len() == before_topology;
    if nodes.is_empty() && topology_ok {
        errs.add("nodes", "the scenario has no nodes (give nodes and links, or a [dumbbell])");
    }
    // Reference errors are reported against a complete topology only.
    let mut refs = Errors::default();

    // Connectivity (links are duplex): union-find.
    let mut parent: Vec<u32> = (0..nodes.len() as u32).collect();
    fn find(p: &mut [u32], x: u32) -> u32 {
        let mut x = x;
        while p[x as usize] != x {
            p[x as usize] = p[p[x as usize] as usize];
            x = p[x as usize];
        }
        x
    }
    for l in &links {
        let (ra, rb) = (find(&mut parent, l.a), find(&mut parent, l.b));
        parent[ra as usize] = rb;
    }

    // [[flows]]
    let mut flows: Vec<FlowSpec> = Vec::new();
    let mut flow_names: HashMap<String, u32> = HashMap::new();
    if let Some(fv) = top.get("flows") {
        match fv {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let path = format!("flows[{i}]");
                    let Some(mut o) = Obj::new(item, &path, errs) else { continue };
                    let count = o.int("count", 1, 1_000_000, errs).unwrap_or(1);
                    let name = o.string("name", errs).map(str::to_string).unwrap_or_else(|| format!("flow{i}"));
                    let src = o.req_string("src", errs);
                    let dst = o.req_string("dst", errs);
                    let start = o.time("start", errs).unwrap_or(0);
                    let start_jitter = o.time("start_jitter", errs).unwrap_or(0);
                    let stop = o.time("stop", errs);
                    if let Some(stop) = stop {
                        if stop <= start {
                            errs.add(o.at("stop"), "must be later than start");
                        }
                    }
                    let kinds: Vec<&'static str> = crate::app::REGISTRY.iter().map(|(k, _)| *k).collect();
                    let kind = o.choice("kind", &kinds, None, errs);
                    let app = kind.and_then(|k| {
                        let parser = crate::app::REGISTRY.iter().find(|(n, _)| *n == k).unwrap().1;
                        parser(&mut o, errs)
                    });
                    let (Some(src), Some(dst), Some(kind), Some(app)) = (src, dst, kind, app) else {
                        o.finish(errs);
                        continue;
                    };
                    let src_path = o.at("src");
                    let dst_path = o.at("dst");
                    o.finish(errs);
                    let app = std::sync::Arc::new(app);
                    for k in 0..count {
                        let sub = |s: &str| {
                            if count > 1 || s.contains("{i}") {
                                s.replace("{i}", &k.to_string())
                            } else {
                                s.to_string()
                            }
                        };
                        let mut fname = sub(&name);
                        if count > 1 && !name.contains("{i}") {
                            fname = format!("{name}-{k}");
                        }
                        let (s, d) = (sub(src), sub(dst));
                        let si = node_ix.get(&s).copied();
                        let di = node_ix.get(&d).copied();
                        if si.is_none() {
                            refs.add(src_path.clone(), format!("no node named '{s}'"));
                        }
                        if di.is_none() {
                            refs.add(dst_path.clone(), format!("no node named '{d}'"));
                        }
                        let (Some(si), Some(di)) = (si, di) else { break };
                        if si == di {
                            errs.add(dst_path.clone(), "a flow's src and dst must differ");
                            break;
                        }
                        if find(&mut parent, si) != find(&mut parent, di) {
                            refs.add(path.clone(), format!("no route from '{s}' to '{d}'"));
                            break;
                        }
                        if flow_names.insert(fname.clone(), flows.len() as u32).is_some() {
                            errs.add(format!("{path}.name"), format!("duplicate flow name '{fname}'"));
                            break;
                        }
                        let app = app.clone();
                        flows.push(FlowSpec {
                            name: fname,
                            kind,
                            src: si,
                            dst: di,
                            start,
                            start_jitter,
                            stop,
                            app: Box::new(move |rng| app(rng)),
                        });
                    }
                }
            }
            other => errs.add("flows", format!("expected an array of tables ([[flows]]), got {}", reader::show(other))),
        }
    }

    // [[traces]]
    let mut traces = Vec::new();
    let mut pcaps: Vec<PcapSpec> = Vec::new();
    let mut drop_logs: Vec<u32> = Vec::new();
    if let Some(tv) = top.get("traces") {
        match tv {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let path = format!("traces[{i}]");
                    let Some(mut o) = Obj::new(item, &path, errs) else { continue };
                    let kind = o.choice("kind", &["queue", "flow", "pcap", "drops"], None, errs);
                    let interval = if matches!(kind, Some("pcap") | Some("drops")) {
                        1
                    } else {
                        o.time("interval", errs).unwrap_or(crate::units::secs(0.1))
                    };
                    if interval == 0 {
                        errs.add(o.at("interval"), "must be greater than 0");
                    }
                    match kind {
                        Some("queue") => {
                            if let Some(l) = o.req_string("link", errs) {
                                match resolve_link_dir(l, &links, &link_names, &nodes) {
                                    Some(ld) => traces.push(TraceSpec { target: TraceTarget::Queue(ld), interval }),
                                    None => refs.add(
                                        o.at("link"),
                                        format!("no link '{l}': give a link name (its a->b direction) or 'from->to' node names of a link"),
                                    ),
                                }
                            }
                        }
                        Some("drops") => {
                            if let Some(l) = o.req_string("link", errs) {
                                match resolve_link_dir(l, &links, &link_names, &nodes) {
                                    Some(ld) => {
                                        if !drop_logs.contains(&ld) {
                                            drop_logs.push(ld)
                                        }
                                    }
                                    None => refs
                                        .add(o.at("link"), format!("no link '{l}': give a link name or 'from->to' node names of a link")),
                                }
                            }
                        }
                        Some("pcap") => {
                            let ld = o.req_string("link", errs).and_then(|l| {
                                let r = resolve_link_dir(l, &links, &link_names, &nodes);
                                if r.is_none() {
                                    refs.add(o.at("link"), format!("no link '{l}': give a link name or 'from->to' node names of a link"));
                                }
                                r
                            });
                            let file = o.string("file", errs).map(str::to_string);
                            if let Some(ld) = ld {
                                let l = &links[(ld / 2) as usize];
                                let (f, t) = if ld % 2 == 0 { (l.a, l.b) } else { (l.b, l.a) };
                                let file = file.unwrap_or_else(|| format!("{}-{}.pcap", nodes[f as usize], nodes[t as usize]));
                                let bad = file.contains('/') || file.contains('\\') || file.starts_with('.') || !file.ends_with(".pcap");
                                if bad {
                                    errs.add(
                                        o.at("file"),
                                        format!(
                                            "'{file}': give a plain file name ending in .pcap (it is written in the run's output folder)"
                                        ),
                                    );
                                } else if pcaps.iter().any(|p| p.file == file) {
                                    errs.add(o.at("file"), format!("two pcap traces write '{file}'"));
                                } else {
                                    pcaps.push(PcapSpec { link_dir: ld, file });
                                }
                            }
                        }
                        Some("flow") => {
                            if let Some(f) = o.req_string("flow", errs) {
                                if f == "*" {
                                    traces.extend((0..flows.len() as u32).map(|fi| TraceSpec { target: TraceTarget::Flow(fi), interval }));
                                } else {
                                    match flow_names.get(f) {
                                        Some(&fi) => traces.push(TraceSpec { target: TraceTarget::Flow(fi), interval }),
                                        None => errs.add(o.at("flow"), format!("no flow named '{f}' (or use '*' for every flow)")),
                                    }
                                }
                            }
                        }
                        _ => {}
                    }
                    o.finish(errs);
                }
            }
            other => errs.add("traces", format!("expected an array of tables ([[traces]]), got {}", reader::show(other))),
        }
    }

    if topology_ok {
        errs.0.extend(refs.0);
    }
    top.finish(errs);
    Some(Spec { name, duration: duration?, seed, warmup, max_events, nodes, links, flows, traces, pcaps, drop_logs })
}

/// `"name"` = forward direction of link `name`; `"x->y"` = the direction from x to y.
fn resolve_link_dir(s: &str, links: &[LinkSpec], names: &HashMap<String, u32>, nodes: &[String]) -> Option<u32> {
    if let Some(&li) = names.get(s) {
        return Some(2 * li);
    }
    let (x, y) = s.split_once("->")?;
    let (x, y) = (x.trim(), y.trim());
    for (i, l) in links.iter().enumerate() {
        let (a, b) = (&nodes[l.a as usize], &nodes[l.b as usize]);
        if a == x && b == y {
            return Some(2 * i as u32);
        }
        if a == y && b == x {
            return Some(2 * i as u32 + 1);
        }
    }
    None
}

/// The parts of a link other than its endpoints.
struct LinkParts {
    name: Option<String>,
    rate: u64,
    delay: Time,
    queue: [QueueBuilder; 2],
    queue_kind: [&'static str; 2],
    loss: [Option<LossBuilder>; 2],
}

/// Default queue when a link names none: DropTail, 50 packets (ns-2's `Queue limit_`).
pub const DEFAULT_QUEUE_LIMIT: u64 = 50;

fn parse_link_parts(o: &mut Obj, errs: &mut Errors) -> Option<LinkParts> {
    let rate = o.req_rate("rate", errs);
    let delay = o.req_time("delay", errs);
    let info = LinkInfo { rate_bps: rate.unwrap_or(1), delay: delay.unwrap_or(0) };
    let q_ab = parse_queue(o, "queue", &info, errs);
    // The reverse direction gets its own instance of `queue` unless `reverse_queue` is given.
    let q_ba = match o.get("reverse_queue") {
        Some(_) => parse_queue(o, "reverse_queue", &info, errs),
        None => queue_from(o.get("queue"), "", &info, &mut Errors::default()),
    };
    let loss = parse_loss(o, "loss", errs);
    Some(LinkParts {
        name: None,
        rate: rate?,
        delay: delay?,
        queue_kind: [q_ab.as_ref()?.0, q_ba.as_ref()?.0],
        queue: [q_ab?.1, q_ba?.1],
        loss: loss?,
    })
}

/// Parses a queue-limit value: an integer is packets; a string is `"100pkt"` / `"100p"`
/// (packets) or a byte size such as `"150KB"`.
pub fn parse_limit(o: &mut Obj, key: &'static str, default: Limit, errs: &mut Errors) -> Option<Limit> {
    let Some(v) = o.get(key) else { return Some(default) };
    let bad = |errs: &mut Errors| {
        errs.add(
            o.at(key),
            format!("invalid queue limit {}: give packets as a whole number or '100pkt', or bytes as '150KB'", reader::show(v)),
        );
        None
    };
    match v {
        Value::Number(n) => match n.as_u64() {
            Some(p) if p >= 1 => Some(Limit::Packets(p)),
            _ => bad(errs),
        },
        Value::String(s) => {
            let t = s.trim();
            for suf in ["pkts", "pkt", "packets", "p"] {
                if let Some(num) = t.strip_suffix(suf) {
                    return match num.trim().parse::<u64>() {
                        Ok(p) if p >= 1 => Some(Limit::Packets(p)),
                        _ => bad(errs),
                    };
                }
            }
            match crate::units::parse_size(t) {
                Some(b) if b >= 1.0 && b.fract() == 0.0 => Some(Limit::Bytes(b as u64)),
                _ => bad(errs),
            }
        }
        _ => bad(errs),
    }
}

fn parse_queue(o: &mut Obj, key: &'static str, info: &LinkInfo, errs: &mut Errors) -> Option<(&'static str, QueueBuilder)> {
    let v = o.get(key);
    queue_from(v, &o.at(key), info, errs)
}

/// Builds a queue from its table (`None` = the default DropTail).
fn queue_from(v: Option<&Value>, path: &str, info: &LinkInfo, errs: &mut Errors) -> Option<(&'static str, QueueBuilder)> {
    let Some(v) = v else {
        return Some(("droptail", Box::new(|_| Box::new(crate::queue::DropTail::new(Limit::Packets(DEFAULT_QUEUE_LIMIT))))));
    };
    let mut q = Obj::new(v, path, errs)?;
    let kinds: Vec<&'static str> = crate::queue::REGISTRY.iter().map(|(k, _)| *k).collect();
    let kind = q.choice("kind", &kinds, None, errs);
    let built = kind.and_then(|k| {
        let parser = crate::queue::REGISTRY.iter().find(|(n, _)| *n == k).unwrap().1;
        parser(&mut q, info, errs)
    });
    q.finish(errs);
    Some((kind?, built?))
}

fn parse_loss(o: &mut Obj, key: &'static str, errs: &mut Errors) -> Option<[Option<LossBuilder>; 2]> {
    let Some(v) = o.get(key) else { return Some([None, None]) };
    let mut l = Obj::new(v, &o.at(key), errs)?;
    let kinds: Vec<&'static str> = crate::loss::REGISTRY.iter().map(|(k, _)| *k).collect();
    let kind = l.choice("kind", &kinds, None, errs);
    let dir = l.choice("direction", &["forward", "reverse", "both"], Some("forward"), errs);
    let parser = kind.map(|k| crate::loss::REGISTRY.iter().find(|(n, _)| *n == k).unwrap().1);
    let make = |l: &mut Obj, errs: &mut Errors| parser.and_then(|p| p(l, errs));
    let out = match dir {
        Some("forward") => [make(&mut l, errs), None],
        Some("reverse") => [None, make(&mut l, errs)],
        Some("both") => {
            let f = make(&mut l, errs);
            // Each direction gets its own model instance (and its own random stream).
            [f, parser.and_then(|p| p(&mut l, &mut Errors::default()))]
        }
        _ => [None, None],
    };
    l.finish(errs);
    if kind.is_none() || dir.is_none() || out.iter().all(|x| x.is_none()) {
        return None;
    }
    Some(out)
}

/// `[dumbbell]`: `senders` hosts s0.. behind router r0, `receivers` hosts d0.. behind r1,
/// the bottleneck r0–r1 (link name `bottleneck`), access links named `s{i}-r0`, `r1-d{i}`.
fn parse_dumbbell(
    d: &mut Obj,
    errs: &mut Errors,
    add_node: &mut dyn FnMut(&str, &mut Errors),
    links: &mut Vec<(String, String, String, LinkParts)>,
) {
    let n = d.req_int("senders", 1, 100_000, errs).unwrap_or(0) as usize;
    let m = d.int("receivers", 1, 100_000, errs).map(|x| x as usize).unwrap_or(n);
    let b_rate = d.req_rate("bottleneck_rate", errs);
    let b_delay = d.req_time("bottleneck_delay", errs);
    let a_rate = d.req_rate("access_rate", errs);
    let a_delay = d.time("access_delay", errs);
    let delays = per_sender_delays(d, "access_delays", n, errs);
    if a_delay.is_none() && delays.is_none() && !d.has("access_delay") {
        errs.add(d.at("access_delay"), "missing required field (a time such as '1ms', or give access_delays per sender)");
    }
    let binfo = LinkInfo { rate_bps: b_rate.unwrap_or(1), delay: b_delay.unwrap_or(0) };
    let ainfo = LinkInfo { rate_bps: a_rate.unwrap_or(1), delay: a_delay.unwrap_or(0) };
    let bq = parse_queue(d, "queue", &binfo, errs);
    let rq = d.get("reverse_queue");
    let bq_rev = match rq {
        Some(_) => parse_queue(d, "reverse_queue", &binfo, errs),
        None => queue_from(d.get("queue"), "", &binfo, &mut Errors::default()),
    };
    let loss = parse_loss(d, "loss", errs);
    let aq_value = d.get("access_queue");
    let aq_path = d.at("access_queue");
    let aq_probe = queue_from(aq_value, &aq_path, &ainfo, errs);
    let (Some(b_rate), Some(b_delay), Some(a_rate), Some(bq), Some(bq_rev), Some(loss), Some(_)) =
        (b_rate, b_delay, a_rate, bq, bq_rev, loss, aq_probe)
    else {
        return;
    };
    for i in 0..n {
        add_node(&format!("s{i}"), errs);
    }
    add_node("r0", errs);
    add_node("r1", errs);
    for j in 0..m {
        add_node(&format!("d{j}"), errs);
    }
    // Each access link direction gets its own queue instance; the table was validated above.
    let access = |name: String, delay: Time| {
        let mut quiet = Errors::default();
        let (k1, q1) = queue_from(aq_value, &aq_path, &ainfo, &mut quiet).expect("validated");
        let (k2, q2) = queue_from(aq_value, &aq_path, &ainfo, &mut quiet).expect("validated");
        LinkParts { name: Some(name), rate: a_rate, delay, queue_kind: [k1, k2], queue: [q1, q2], loss: [None, None] }
    };
    for i in 0..n {
        let delay = delays.as_ref().map(|v| v[i]).unwrap_or(a_delay.unwrap_or(0));
        let parts = access(format!("s{i}-r0"), delay);
        links.push((format!("dumbbell (sender {i})"), format!("s{i}"), "r0".into(), parts));
    }
    links.push((
        "dumbbell".into(),
        "r0".into(),
        "r1".into(),
        LinkParts {
            name: Some("bottleneck".into()),
            rate: b_rate,
            delay: b_delay,
            queue_kind: [bq.0, bq_rev.0],
            queue: [bq.1, bq_rev.1],
            loss,
        },
    ));
    let rdelays = per_sender_delays(d, "receiver_delays", m, errs);
    for j in 0..m {
        let delay = rdelays.as_ref().map(|v| v[j]).unwrap_or(a_delay.unwrap_or(0));
        let parts = access(format!("r1-d{j}"), delay);
        links.push((format!("dumbbell (receiver {j})"), "r1".into(), format!("d{j}"), parts));
    }
}

fn per_sender_delays(d: &mut Obj, key: &'static str, n: usize, errs: &mut Errors) -> Option<Vec<Time>> {
    let v = d.get(key)?;
    let Value::Array(items) = v else {
        errs.add(d.at(key), format!("expected a list of {n} times, got {}", reader::show(v)));
        return None;
    };
    if items.len() != n {
        errs.add(d.at(key), format!("expected {n} entries (one per host), got {}", items.len()));
        return None;
    }
    let mut out = Vec::with_capacity(n);
    for (i, item) in items.iter().enumerate() {
        let t = match item {
            Value::Number(x) => x.as_f64(),
            Value::String(s) => crate::units::parse_time(s),
            _ => None,
        };
        match t {
            Some(t) if t >= 0.0 && t.is_finite() => out.push(crate::units::secs(t)),
            _ => {
                errs.add(format!("{}[{i}]", d.at(key)), format!("invalid time {}", reader::show(item)));
                return None;
            }
        }
    }
    Some(out)
}
