//! The scenario schema and its one validator.
//!
//! A scenario is data: a TOML file or a JSON-like tree (what Python dicts become). It is
//! validated here once, into a [`Spec`] of resolved engine units and typed component
//! configurations, or into a list of [`ScenarioError`]s that name the exact field
//! (`links[2].delay`), the value and what is allowed. Each component parses its own typed
//! configuration in its own module (queues, loss models, flow kinds, controllers); this
//! module only assembles them, one function per section.
//!
//! Top level: `name`, `description`, `[simulation]`, `nodes`, `[[links]]`, `[dumbbell]`,
//! `[[flows]]`, `[[elements]]`, `[[generators]]`, `[[traces]]`. See `docs/scenario.md` for the full reference.

mod elements;
mod flows;
mod generators;
mod names;
mod overload;
mod paths;
mod topology;
mod traces;

/// Queue kinds by scenario name: one line per discipline.
pub const QUEUE_KINDS: &[(&str, crate::queue::QueueParser)] = &[
    ("droptail", crate::queue::droptail::parse),
    ("red", crate::queue::red::parse),
    ("rio", crate::queue::rio::parse),
    ("red_rio", crate::queue::red_rio::parse),
    ("cell", crate::atm::policy::parse),
];

use crate::agent::FlowConfig;
pub use crate::config::{Errors, Obj, ScenarioError};
use crate::element::ElementConfig;
use crate::loss::LossConfig;
use crate::queue::QueueConfig;
use crate::units::Time;
pub use flows::FLOW_KINDS;
use rustc_hash::FxHashMap as HashMap;
use serde_json::Value;
use std::sync::Arc;

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
    pub elements: Vec<ElementSpec>,
    pub generators: Vec<GeneratorSpec>,
    pub traces: Vec<TraceSpec>,
    pub pcaps: Vec<PcapSpec>,
    /// Link directions whose drops are logged one by one (`kind = "drops"` traces).
    pub drop_logs: Vec<u32>,
    /// Link directions whose every packet event is logged (`packets` traces).
    pub packet_logs: Vec<u32>,
    /// Valid input that is probably not what was meant (a bare number as a rate, a flow
    /// that starts after the end, ...): reported, not refused.
    pub warnings: Vec<ScenarioError>,
}

/// A pcap capture of one link direction, written to `file` under the run's output folder.
#[derive(Clone, Debug)]
pub struct PcapSpec {
    pub link_dir: u32,
    pub file: String,
}

/// Per direction: index 0 is `a->b`, 1 is `b->a`.
#[derive(Clone)]
pub struct LinkSpec {
    pub name: String,
    pub a: u32,
    pub b: u32,
    pub rate_bps: u64,
    pub delay: Time,
    pub queue: [Arc<dyn QueueConfig>; 2],
    pub loss: [Option<Arc<dyn LossConfig>>; 2],
}

pub struct FlowSpec {
    pub name: String,
    pub src: u32,
    /// The receivers' nodes: one (unicast) or several (a multicast group, replicated by
    /// `replicate` elements where its tree branches).
    pub dsts: Vec<u32>,
    pub start: Time,
    /// The actual start is `start + U[0, start_jitter)`, drawn from the flow's own stream.
    pub start_jitter: Time,
    pub stop: Option<Time>,
    pub app: Arc<dyn FlowConfig>,
}

/// A traffic generator: flows opened during the run between host pools.
#[derive(Clone, Debug)]
pub struct GeneratorSpec {
    pub name: String,
    /// Senders and receivers: each flow goes from one of `src` to one of `dst` (not the same node).
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    pub arrivals: Arrivals,
    /// Flow sizes, bytes (each draw rounded, at least 1).
    pub size: crate::dist::Dist,
    /// What each flow runs (a sized flow kind).
    pub transport: Arc<dyn FlowConfig>,
    pub start: Time,
    /// No flow is opened at or after this time.
    pub stop: Option<Time>,
    pub max_flows: Option<u64>,
    /// Compute each flow's time alone on its idle path, and its slowdown.
    pub slowdown: bool,
}

/// When a generator opens flows.
#[derive(Clone, Debug, PartialEq)]
pub enum Arrivals {
    /// Open loop: a Poisson process of `rate` flows per second.
    Poisson { rate: f64 },
    /// Open loop: at these times (ns, sorted).
    Times(Vec<Time>),
    /// Closed loop: `users` users, each opening a flow, waiting for its completion, then
    /// thinking for a time drawn from `think` (seconds) before the next; a user's first
    /// flow comes after one think time. User `u` always receives at `dst[u % len]`.
    Closed { users: u32, think: crate::dist::Dist },
}

impl Arrivals {
    /// As scenario values (times in seconds).
    pub fn params(&self) -> Value {
        match self {
            Arrivals::Poisson { rate } => serde_json::json!({ "kind": "poisson", "rate": rate }),
            Arrivals::Times(t) => {
                serde_json::json!({ "kind": "times", "times": t.iter().map(|&x| crate::units::to_secs(x)).collect::<Vec<_>>() })
            }
            Arrivals::Closed { users, think } => serde_json::json!({ "kind": "closed", "users": users, "think": think }),
        }
    }
}

/// A node element placed on a node.
pub struct ElementSpec {
    pub name: String,
    pub node: u32,
    pub filter: Filter,
    pub config: Arc<dyn ElementConfig>,
}

/// Which packets an element is handed (the others go past it): each present list must
/// contain the packet's incoming link direction ([`crate::element::LOCAL`] for packets
/// sent at the node), outgoing link direction, or flow. Lists are sorted.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub from: Option<Vec<u32>>,
    pub to: Option<Vec<u32>>,
    pub flows: Option<Vec<u32>>,
}

impl Filter {
    /// Whether the filter lets every packet through (no list given).
    pub fn is_open(&self) -> bool {
        self.from.is_none() && self.to.is_none() && self.flows.is_none()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceTarget {
    /// Link direction index (2·link + 0 for a->b, + 1 for b->a).
    Queue(u32),
    Flow(u32),
    /// A node element's counters and probes.
    Element(u32),
}

#[derive(Clone, Debug)]
pub struct TraceSpec {
    pub target: TraceTarget,
    pub interval: Time,
    /// Traffic classes (DSCP) given their own columns (queue and flow traces).
    pub classes: Vec<u8>,
}

impl Spec {
    /// Every component's resolved parameters (defaults filled in), as scenario values:
    /// `links` (per direction: queue and loss model), `flows` (kind and parameters),
    /// `elements`, `generators`. For reports and run metadata: a run lists exactly what it
    /// simulated. Links alike in rate, delay, queues and loss models are listed once, with
    /// their count and first names (a dumbbell's thousands of access links are one entry).
    pub fn params(&self) -> Value {
        let dir = |l: &LinkSpec, d: usize| {
            serde_json::json!({
                "queue": { "kind": l.queue[d].kind(), "params": l.queue[d].params() },
                "loss": l.loss[d].as_ref().map(|m| serde_json::json!({ "kind": m.kind(), "params": m.params() })),
            })
        };
        let ptr = |c: Option<&Arc<dyn LossConfig>>| c.map(|a| Arc::as_ptr(a) as *const () as usize).unwrap_or(0);
        // Links alike: rate, delay and the identities of their four components' configurations.
        type Alike = (u64, Time, [usize; 4]);
        let mut groups: Vec<(Alike, Vec<&LinkSpec>)> = Vec::new();
        let mut index: HashMap<Alike, usize> = HashMap::default();
        for l in &self.links {
            let q = |d: usize| Arc::as_ptr(&l.queue[d]) as *const () as usize;
            let key = (l.rate_bps, l.delay, [q(0), q(1), ptr(l.loss[0].as_ref()), ptr(l.loss[1].as_ref())]);
            match index.get(&key) {
                Some(&i) => groups[i].1.push(l),
                None => {
                    index.insert(key, groups.len());
                    groups.push((key, vec![l]));
                }
            }
        }
        let links: Vec<Value> = groups
            .iter()
            .map(|(_, ls)| {
                let l = ls[0];
                let mut names: Vec<&str> = ls.iter().take(5).map(|l| l.name.as_str()).collect();
                let more = format!("... {} more", ls.len().saturating_sub(5));
                if ls.len() > 5 {
                    names.push(&more);
                }
                serde_json::json!({
                    "names": names,
                    "count": ls.len(),
                    "a": self.nodes[l.a as usize],
                    "b": self.nodes[l.b as usize],
                    "rate_bps": l.rate_bps,
                    "delay": crate::units::to_secs(l.delay),
                    "ab": dir(l, 0),
                    "ba": dir(l, 1),
                })
            })
            .collect();
        // Flows of one [[flows]] entry share their configuration: list each distinct one once.
        let mut flows: Vec<Value> = Vec::new();
        let mut seen: Vec<*const ()> = Vec::new();
        for f in &self.flows {
            let key = Arc::as_ptr(&f.app) as *const ();
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            flows.push(serde_json::json!({ "first": f.name, "kind": f.app.kind(), "params": f.app.params() }));
        }
        let elements: Vec<Value> = self
            .elements
            .iter()
            .map(|e| serde_json::json!({ "name": e.name, "node": self.nodes[e.node as usize], "kind": e.config.kind(), "params": e.config.params() }))
            .collect();
        let generators: Vec<Value> = self
            .generators
            .iter()
            .map(|g| {
                serde_json::json!({
                    "name": g.name,
                    "src": g.src.iter().map(|&v| &self.nodes[v as usize]).collect::<Vec<_>>(),
                    "dst": g.dst.iter().map(|&v| &self.nodes[v as usize]).collect::<Vec<_>>(),
                    "arrivals": g.arrivals.params(),
                    "size": g.size,
                    "transport": { "kind": g.transport.kind(), "params": g.transport.params() },
                    "start": crate::units::to_secs(g.start),
                    "stop": g.stop.map(crate::units::to_secs),
                    "max_flows": g.max_flows,
                    "slowdown": g.slowdown,
                })
            })
            .collect();
        serde_json::json!({ "links": links, "flows": flows, "elements": elements, "generators": generators })
    }
}

/// Parses TOML text into the JSON-like tree the validator reads.
pub fn toml_to_value(text: &str) -> Result<Value, ScenarioError> {
    let t: toml::Table = toml::from_str(text)
        .map_err(|e| ScenarioError { path: String::new(), message: format!("not valid TOML: {}", e.to_string().trim()) })?;
    let mut out = serde_json::Map::with_capacity(t.len());
    for (k, v) in t {
        let v = toml_to_json(v, &k)?;
        out.insert(k, v);
    }
    Ok(Value::Object(out))
}

/// One TOML value as JSON. TOML has `nan` and `inf`, which JSON has not (a NaN would arrive
/// as null, and its error would name null): refused here, by its path. A TOML date or time
/// (`name = 2024-01-01`, an unquoted `07:30:00`) becomes its text, which a field that takes
/// a string reads and any other refuses as that text (it had arrived as an internal
/// `{"$__toml_private_datetime": ...}` table, named so in errors).
fn toml_to_json(v: toml::Value, path: &str) -> Result<Value, ScenarioError> {
    Ok(match v {
        toml::Value::Float(x) if !x.is_finite() => {
            return Err(ScenarioError { path: path.to_string(), message: format!("expected a finite number, got {x}") });
        }
        toml::Value::Float(x) => Value::from(x),
        toml::Value::Integer(i) => Value::from(i),
        toml::Value::String(s) => Value::String(s),
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(a) => {
            Value::Array(a.into_iter().enumerate().map(|(i, x)| toml_to_json(x, &format!("{path}[{i}]"))).collect::<Result<_, _>>()?)
        }
        toml::Value::Table(t) => {
            let mut m = serde_json::Map::with_capacity(t.len());
            for (k, x) in t {
                let x = toml_to_json(x, &format!("{path}.{k}"))?;
                m.insert(k, x);
            }
            Value::Object(m)
        }
    })
}

/// Validates a TOML scenario.
/// `prefix`, `i` in decimal, `suffix`, without the formatting machinery (`format!` costs
/// several hundred instructions a call; a scenario of 10 000 flows names 80 000 hosts and
/// links, a set-up cost that counts against the event loop's, issue #20). The digits come
/// from `itoa` (already in the build through `serde_json`).
pub(crate) fn numbered(prefix: &str, i: usize, suffix: &str) -> String {
    let mut digits = itoa::Buffer::new();
    [prefix, digits.format(i), suffix].concat()
}

pub fn from_toml(text: &str) -> Result<Spec, Vec<ScenarioError>> {
    let v = toml_to_value(text).map_err(|e| vec![e])?;
    from_value(&v)
}

/// Validates a scenario tree.
pub fn from_value(v: &Value) -> Result<Spec, Vec<ScenarioError>> {
    let mut errs = Errors::default();
    let spec = parse(v, &mut errs);
    match spec {
        Some(mut s) if errs.is_empty() => {
            s.warnings = std::mem::take(&mut errs.1);
            Ok(s)
        }
        _ => {
            if errs.is_empty() {
                errs.add("", "invalid scenario");
            }
            Err(errs.0)
        }
    }
}

/// `[simulation]`: duration (required), seed, warmup, max_events.
struct SimSection {
    duration: Option<Time>,
    seed: u64,
    warmup: Time,
    max_events: Option<u64>,
}

fn parse_simulation(top: &mut Obj, errs: &mut Errors) -> SimSection {
    let none = SimSection { duration: None, seed: 1, warmup: 0, max_events: None };
    let Some(sv) = top.get("simulation") else {
        errs.add("simulation", "missing required section (needs at least duration)");
        return none;
    };
    let Some(mut s) = Obj::new(sv, "simulation", errs) else { return none };
    let d = s.req_time("duration", errs);
    if d == Some(0) {
        errs.add("simulation.duration", "must be greater than 0");
    }
    let seed = s.int("seed", 0, i64::MAX, errs).unwrap_or(1) as u64;
    let warmup = s.time("warmup", errs).unwrap_or(0);
    if let Some(d) = d.filter(|&d| d > 0) {
        if warmup >= d {
            let secs = |t: Time| crate::units::to_secs(t);
            errs.add("simulation.warmup", format!("must be shorter than simulation.duration ({} s), got {} s", secs(d), secs(warmup)));
        }
    }
    let max_events = s.int("max_events", 1, i64::MAX, errs).map(|x| x as u64);
    s.finish(errs);
    SimSection { duration: d, seed, warmup, max_events }
}

/// Node names and their indices, in declaration order.
#[derive(Default)]
pub(crate) struct Nodes {
    pub names: Vec<String>,
    index: names::NameIndex,
}

impl Nodes {
    /// Room for `additional` more nodes.
    pub fn reserve(&mut self, additional: usize) {
        self.names.reserve(additional);
        let names = &self.names;
        self.index.reserve(additional, |i| &names[i as usize]);
    }

    /// Declares a node and returns its index; a duplicate name is an error at `path` (and
    /// the index returned is the earlier node's).
    pub fn add(&mut self, name: &str, path: &str, errs: &mut Errors) -> u32 {
        if name.contains("->") {
            errs.add(path, format!("node name '{name}' contains '->', which names a link direction (x->y) in traces and filters"));
        }
        let v = self.names.len() as u32;
        self.names.push(name.to_string());
        let names = &self.names;
        match self.index.insert(v, |i| &names[i as usize]) {
            None => v,
            Some(earlier) => {
                self.names.pop();
                errs.add(path, format!("duplicate node name '{name}'"));
                earlier
            }
        }
    }

    pub fn get(&self, name: &str) -> Option<u32> {
        self.index.get(name, |i| &self.names[i as usize])
    }
}

fn parse(v: &Value, errs: &mut Errors) -> Option<Spec> {
    let mut top = Obj::new(v, "", errs)?;
    let name = top.string("name", errs).unwrap_or("scenario").to_string();
    top.string("description", errs);
    let sim = parse_simulation(&mut top, errs);

    // Errors in the topology would make every later reference to it fail too; those
    // follow-on errors are left out so the real problem stands alone.
    let before_topology = errs.0.len();
    let topo = topology::parse(&mut top, errs);
    let topology_ok = errs.0.len() == before_topology;
    if topo.nodes.names.is_empty() && topology_ok {
        errs.add("nodes", "the scenario has no nodes (give nodes and links, or a [dumbbell])");
    }
    // Reference errors are reported against a complete topology only.
    let mut refs = Errors::default();
    let flows = flows::parse(&mut top, &topo, errs, &mut refs);
    let before_elements = errs.0.len();
    let elements = elements::parse(&mut top, &topo, &flows, errs, &mut refs);
    // What paths need of elements, once every element is known (an element refused for its
    // own fields would read as missing here).
    let elements_ok = errs.0.len() == before_elements;
    if elements_ok {
        paths::check_multicast(&topo, &flows.flows, &elements.elements, &mut refs);
    }
    let generators = generators::parse(&mut top, &topo, errs, &mut refs);
    if elements_ok {
        paths::check_cells(&topo, &flows.flows, &generators, &elements.elements, &mut refs);
    }
    paths::check_byte_limits(&topo, &flows.flows, &generators, &mut refs);
    let tr = traces::parse(&mut top, &topo, &flows, &elements, sim.duration, errs, &mut refs);
    traces::check_capture_mss(&tr, &flows, &generators, errs);
    if topology_ok {
        errs.0.extend(refs.0);
    }
    errs.1.extend(refs.1);
    if let Some(d) = sim.duration {
        let end = crate::units::to_secs(d);
        // A few named, then one line for the rest (a `count` of 100 000 idle flows would
        // otherwise give as many warnings).
        let late: Vec<_> = flows.flows.iter().filter(|f| f.start >= d).collect();
        for f in late.iter().take(3) {
            let at = crate::units::to_secs(f.start);
            errs.warn("flows", format!("flow '{}' starts at {at} s, at or after the end of the run ({end} s): it sends nothing", f.name));
        }
        if late.len() > 3 {
            errs.warn("flows", format!("{} more flows start at or after the end of the run ({end} s): they send nothing", late.len() - 3));
        }
        for g in generators.iter() {
            let why = if g.start >= d {
                format!("starts at or after the end of the run ({end} s)")
            } else if g.stop.is_some_and(|s| s <= g.start) {
                "stops at or before its start".to_string()
            } else if matches!(&g.arrivals, Arrivals::Times(t) if t.is_empty()) {
                "has no arrival times".to_string()
            } else if matches!(&g.arrivals, Arrivals::Times(t) if !t.iter().any(|&x| x >= g.start && x < g.stop.unwrap_or(d).min(d))) {
                "has no arrival time between its start and its stop or the end of the run".to_string()
            } else {
                continue;
            };
            errs.warn("generators", format!("generator '{}' {why}: it opens no flow", g.name));
        }
        overload::overload_warnings(&topo, &flows.flows, &generators, d, errs);
    }
    top.finish(errs);
    Some(Spec {
        name,
        duration: sim.duration?,
        seed: sim.seed,
        warmup: sim.warmup,
        max_events: sim.max_events,
        nodes: topo.nodes.names,
        links: topo.links,
        flows: flows.flows,
        elements: elements.elements,
        generators,
        traces: tr.traces,
        pcaps: tr.pcaps,
        drop_logs: tr.drop_logs,
        packet_logs: tr.packet_logs,
        warnings: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    /// A field in a table that takes none (Reno's `cc_params`) says so, not "allowed: " and
    /// an empty list.
    #[test]
    fn a_table_without_fields_says_so() {
        let toml = "name = \"t\"\nnodes = [\"a\", \"b\"]\n[simulation]\nduration = 1\n[[links]]\na = \"a\"\nb = \"b\"\n\
                    rate = \"10Mbps\"\ndelay = \"1ms\"\n[[flows]]\nkind = \"tcp\"\nsrc = \"a\"\ndst = \"b\"\ncc_params = { beta = 2 }\n";
        let errs = super::from_toml(toml).err().expect("reno takes no parameters");
        let e = errs.iter().find(|e| e.path == "flows[0].cc_params.beta").expect("the field named");
        assert_eq!(e.message, "unknown field; this table takes no fields");
    }

    /// TOML's `nan` and `inf` are refused at their path (JSON, which the validator reads,
    /// has neither).
    #[test]
    fn non_finite_numbers_are_refused_by_path() {
        let e = super::toml_to_value("[simulation]\nduration = nan").expect_err("nan refused");
        assert_eq!((e.path.as_str(), e.message.as_str()), ("simulation.duration", "expected a finite number, got NaN"));
        let e = super::toml_to_value("x = [1.0, -inf]").expect_err("inf refused");
        assert_eq!(e.path, "x[1]");
        assert!(super::toml_to_value("x = [1.5, { y = 2.0 }]").is_ok());
    }

    /// A queue table without `kind` is a DropTail with its parameters; no table at all is
    /// DropTail with 50 packets; a table with a wrong field names it.
    #[test]
    fn a_queue_without_kind_is_droptail() {
        let two = |queue: &str| {
            format!(
                "name = \"q\"\nnodes = [\"a\", \"b\"]\n[simulation]\nduration = 1\n[[links]]\na = \"a\"\nb = \"b\"\n\
                 rate = \"10Mbps\"\ndelay = \"1ms\"\n{queue}"
            )
        };
        let spec = super::from_toml(&two("queue = { limit = 100 }")).expect("valid");
        let q = &spec.links[0].queue;
        assert_eq!((q[0].kind(), q[1].kind()), ("droptail", "droptail"));
        assert_eq!(q[0].params()["limit"], 100);
        let spec = super::from_toml(&two("")).expect("valid");
        assert_eq!(spec.links[0].queue[0].params()["limit"], 50);
        let errs = super::from_toml(&two("queue = { limit = 10, min_th = 5 }")).err().expect("min_th is RED's");
        assert!(errs.iter().any(|e| e.to_string().contains("links[0].queue.min_th")), "{errs:?}");
    }

    /// The names built without `format!` are `format!`'s, digit for digit.
    #[test]
    fn numbered_names_are_formatted_names() {
        for i in [0usize, 1, 9, 10, 99, 100, 12_345, 1_000_000, u32::MAX as usize, usize::MAX] {
            assert_eq!(super::numbered("s", i, "-r0"), format!("s{i}-r0"));
            assert_eq!(super::numbered("", i, ""), i.to_string());
        }
        proptest::proptest!(|(i in proptest::prelude::any::<usize>(), p in "[a-z (]{0,8}", q in "[-a-z)]{0,4}")| {
            proptest::prop_assert_eq!(super::numbered(&p, i, &q), format!("{p}{i}{q}"));
        });
    }
}
