//! The topology sections: `nodes`, `[[links]]` and `[dumbbell]`, each link's queue and
//! loss model (parsed by the registries of [`crate::queue`] and [`crate::loss`]), and the
//! names by which later sections refer to nodes and link directions.

use super::{LinkSpec, Nodes};
use crate::config::{show, Errors, Obj};
use crate::loss::LossConfig;
use crate::queue::{LinkInfo, QueueConfig};
use crate::units::Time;
use serde_json::Value;
use std::sync::Arc;

/// The validated topology.
#[derive(Default)]
pub(crate) struct Topology {
    pub nodes: Nodes,
    pub links: Vec<LinkSpec>,
    /// The links by name.
    link_names: super::names::NameIndex,
    /// Per node: its connected component (links are duplex).
    component: Vec<u32>,
}

impl Topology {
    /// Whether a path joins `a` and `b`.
    pub fn connected(&self, a: u32, b: u32) -> bool {
        self.component[a as usize] == self.component[b as usize]
    }

    /// `"name"` = forward direction of link `name`; `"x->y"` = the direction from x to y.
    pub fn link_dir(&self, s: &str) -> Option<u32> {
        if let Some(li) = self.link_names.get(s, |i| &self.links[i as usize].name) {
            return Some(2 * li);
        }
        let (x, y) = s.split_once("->")?;
        let (x, y) = (x.trim(), y.trim());
        let nodes = &self.nodes.names;
        for (i, l) in self.links.iter().enumerate() {
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

    /// The (from, to) nodes of link direction `ld`.
    pub fn ends(&self, ld: u32) -> (u32, u32) {
        let l = &self.links[(ld / 2) as usize];
        if ld.is_multiple_of(2) {
            (l.a, l.b)
        } else {
            (l.b, l.a)
        }
    }
}

/// A link read from the scenario, before its ends are resolved to nodes.
struct Pending {
    /// Where it was declared (for error messages).
    at: LinkAt,
    a: End,
    b: End,
    parts: LinkParts,
}

/// Where a link was declared: its path in the scenario, built only for an error message.
enum LinkAt {
    /// `links[i]`.
    Listed(usize),
    /// The dumbbell's access link of sender `i`, of receiver `i`, its bottleneck.
    Sender(usize),
    Receiver(usize),
    Bottleneck,
}

impl std::fmt::Display for LinkAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinkAt::Listed(i) => write!(f, "links[{i}]"),
            LinkAt::Sender(i) => write!(f, "dumbbell (sender {i})"),
            LinkAt::Receiver(i) => write!(f, "dumbbell (receiver {i})"),
            LinkAt::Bottleneck => f.write_str("dumbbell"),
        }
    }
}

/// A link's end: a node's name as written (`[[links]]`), or a node the dumbbell declared.
enum End {
    Name(String),
    Node(u32),
}

/// The parts of a link other than its endpoints.
struct LinkParts {
    name: Option<String>,
    rate: u64,
    delay: Time,
    queue: [Arc<dyn QueueConfig>; 2],
    loss: [Option<Arc<dyn LossConfig>>; 2],
}

/// Parses `nodes`, `[dumbbell]` and `[[links]]`, in that order.
pub(crate) fn parse(top: &mut Obj, errs: &mut Errors) -> Topology {
    let mut t = Topology::default();
    parse_nodes(top, &mut t.nodes, errs);
    let mut pending: Vec<Pending> = Vec::new();
    if let Some(dv) = top.get("dumbbell") {
        if let Some(mut d) = Obj::new(dv, "dumbbell", errs) {
            parse_dumbbell(&mut d, errs, &mut t.nodes, &mut pending);
            d.finish(errs);
        }
    }
    parse_links(top, errs, &mut pending);
    // Names of links not kept (an end names no node): only for the duplicate check.
    let mut unkept: rustc_hash::FxHashSet<String> = Default::default();
    t.links.reserve(pending.len());
    {
        let links = &t.links;
        t.link_names.reserve(pending.len(), |i| &links[i as usize].name);
    }
    // No node declared at all (`nodes` missing or misplaced): said once, not per link end.
    let no_nodes = t.nodes.names.is_empty();
    if no_nodes && pending.iter().any(|p| matches!(p.a, End::Name(_)) || matches!(p.b, End::Name(_))) {
        errs.add("nodes", "no node is declared, but links name nodes: give nodes = [\"a\", \"b\", ...] at the top level");
    }
    for Pending { at: path, a, b, mut parts } in pending {
        let resolve = |e: &End, key: &str, errs: &mut Errors| match e {
            End::Node(v) => Some(*v),
            End::Name(n) => {
                let v = t.nodes.get(n);
                if v.is_none() && !no_nodes {
                    errs.add(format!("{path}.{key}"), format!("no node named '{n}' (declare it in nodes)"));
                }
                v
            }
        };
        let ai = resolve(&a, "a", errs);
        let bi = resolve(&b, "b", errs);
        let same = match (&a, &b) {
            (End::Name(x), End::Name(y)) => x == y,
            _ => ai.is_some() && ai == bi,
        };
        if same {
            errs.add(format!("{path}.b"), "a link must join two different nodes");
        }
        let lname = parts.name.take().expect("every pending link is named");
        // A link with an unknown end is not kept (the scenario is refused), but its name
        // still counts among the others', before and after it.
        let duplicate = if let (Some(a), Some(b)) = (ai, bi) {
            t.links.push(LinkSpec { name: lname, a, b, rate_bps: parts.rate, delay: parts.delay, queue: parts.queue, loss: parts.loss });
            let links = &t.links;
            let name = &links[links.len() - 1].name;
            let taken = t.link_names.insert(links.len() as u32 - 1, |i| &links[i as usize].name).is_some();
            (taken || unkept.contains(name)).then(|| name.clone())
        } else {
            let taken = t.link_names.get(&lname, |i| &t.links[i as usize].name).is_some();
            let again = !unkept.insert(lname.clone());
            (taken || again).then_some(lname)
        };
        if let Some(lname) = duplicate {
            errs.add(format!("{path}.name"), format!("duplicate link name '{lname}'"));
        }
        let arrow_in_ends = [ai, bi].iter().flatten().any(|&v| t.nodes.names[v as usize].contains("->"));
        if let Some(l) = t.links.last().filter(|l| l.name.contains("->") && ai.is_some() && bi.is_some() && !arrow_in_ends) {
            // A link's name and a direction "x->y" are looked up alike (traces, filters).
            errs.add(format!("{path}.name"), format!("link name '{}' contains '->', which names a link direction (x->y)", l.name));
        }
    }
    t.component = components(t.nodes.names.len(), t.links.iter().map(|l| (l.a, l.b)));
    t
}

/// Each node's connected component (a union-find with path halving and union by size:
/// near-linear in nodes and links).
fn components(n: usize, edges: impl Iterator<Item = (u32, u32)>) -> Vec<u32> {
    let mut parent: Vec<u32> = (0..n as u32).collect();
    let mut size = vec![1u32; n];
    fn find(p: &mut [u32], mut x: u32) -> u32 {
        while p[x as usize] != x {
            p[x as usize] = p[p[x as usize] as usize];
            x = p[x as usize];
        }
        x
    }
    for (a, b) in edges {
        let (mut ra, mut rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            if size[ra as usize] < size[rb as usize] {
                std::mem::swap(&mut ra, &mut rb);
            }
            parent[rb as usize] = ra;
            size[ra as usize] += size[rb as usize];
        }
    }
    (0..n as u32).map(|v| find(&mut parent, v)).collect()
}

/// `nodes = ["a", "b"]` or `[{ name = "a" }, ...]`.
fn parse_nodes(top: &mut Obj, nodes: &mut Nodes, errs: &mut Errors) {
    let Some(nv) = top.get("nodes") else { return };
    let Value::Array(items) = nv else {
        errs.add("nodes", format!("expected a list of node names, got {}", show(nv)));
        return;
    };
    for (i, item) in items.iter().enumerate() {
        let path = format!("nodes[{i}]");
        match item {
            Value::String(s) if !s.is_empty() => {
                nodes.add(s, &path, errs);
            }
            Value::Object(_) => {
                let Some(mut o) = Obj::new(item, &path, errs) else { continue };
                if let Some(n) = o.req_string("name", errs) {
                    nodes.add(n, &o.at("name"), errs);
                }
                o.finish(errs);
            }
            other => errs.add(path, format!("expected a node name or a table with 'name', got {}", show(other))),
        }
    }
}

/// `[[links]]`: `a`, `b`, `name`, `rate`, `delay`, `queue`, `reverse_queue`, `loss`.
fn parse_links(top: &mut Obj, errs: &mut Errors, pending: &mut Vec<Pending>) {
    let Some(lv) = top.get("links") else { return };
    let Value::Array(items) = lv else {
        errs.add("links", format!("expected an array of tables ([[links]]), got {}", show(lv)));
        return;
    };
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
            let (a, b) = (End::Name(a.to_string()), End::Name(b.to_string()));
            pending.push(Pending { at: LinkAt::Listed(i), a, b, parts: LinkParts { name: Some(lname), ..parts } });
        }
    }
}

fn parse_link_parts(o: &mut Obj, errs: &mut Errors) -> Option<LinkParts> {
    let rate = o.req_rate("rate", errs);
    let delay = o.req_time("delay", errs);
    let info = LinkInfo { rate_bps: rate.unwrap_or(1), delay: delay.unwrap_or(0) };
    let q_ab = parse_queue(o, "queue", &info, errs);
    // The reverse direction builds its own instance of `queue` unless `reverse_queue` is given.
    let q_ba = match o.get("reverse_queue") {
        Some(_) => parse_queue(o, "reverse_queue", &info, errs),
        None => q_ab.clone(),
    };
    let loss = parse_loss(o, "loss", errs);
    Some(LinkParts { name: None, rate: rate?, delay: delay?, queue: [q_ab?, q_ba?], loss: loss? })
}

fn parse_queue(o: &mut Obj, key: &'static str, info: &LinkInfo, errs: &mut Errors) -> Option<Arc<dyn QueueConfig>> {
    let v = o.get(key);
    queue_from(v, &o.at(key), info, errs)
}

/// A queue's configuration from its table (`None` = the default DropTail). A table
/// without `kind` is a DropTail with the table's parameters, so that `queue = { limit =
/// 100 }` (or the override `dumbbell.queue.limit=100` on a scenario that gave no queue)
/// changes the default queue's limit.
fn queue_from(v: Option<&Value>, path: &str, info: &LinkInfo, errs: &mut Errors) -> Option<Arc<dyn QueueConfig>> {
    let Some(v) = v else { return Some(crate::queue::default_config()) };
    let mut q = Obj::new(v, path, errs)?;
    let kinds: Vec<&'static str> = super::QUEUE_KINDS.iter().map(|(k, _)| *k).collect();
    let kind = q.choice("kind", &kinds, Some("droptail"), errs);
    let built = kind.and_then(|k| {
        let parser = super::QUEUE_KINDS.iter().find(|(n, _)| *n == k).unwrap().1;
        parser(&mut q, info, errs)
    });
    // A kind whose table was refused for a value (RIO's `mode = "rio_x"`) leaves fields
    // unread that it would read: not also reported as unknown.
    q.finish_if(built.is_some(), errs);
    built
}

/// `loss = { kind = ..., direction = "forward" | "reverse" | "both", ... }`: each direction
/// that has the model builds its own instance (with its own random stream).
fn parse_loss(o: &mut Obj, key: &'static str, errs: &mut Errors) -> Option<[Option<Arc<dyn LossConfig>>; 2]> {
    let Some(v) = o.get(key) else { return Some([None, None]) };
    let mut l = Obj::new(v, &o.at(key), errs)?;
    let kinds: Vec<&'static str> = crate::loss::REGISTRY.iter().map(|(k, _)| *k).collect();
    let kind = l.choice("kind", &kinds, None, errs);
    let dir = l.choice("direction", &["forward", "reverse", "both"], Some("forward"), errs);
    let parser = kind.map(|k| crate::loss::REGISTRY.iter().find(|(n, _)| *n == k).unwrap().1);
    // Read (and checked) whatever the direction says: a wrong direction left the model's
    // fields unread, reported as unknown (`p: unknown field` beside the direction's error).
    let model = parser.and_then(|p| p(&mut l, errs));
    let out = match dir {
        Some("forward") => [model, None],
        Some("reverse") => [None, model],
        Some("both") => [model.clone(), model],
        _ => [None, None],
    };
    l.finish_if(kind.is_some(), errs);
    if kind.is_none() || dir.is_none() || out.iter().all(|x| x.is_none()) {
        return None;
    }
    Some(out)
}

/// `[dumbbell]`: `senders` hosts s0.. behind router r0, `receivers` hosts d0.. behind r1,
/// the bottleneck r0–r1 (link name `bottleneck`), access links named `s{i}-r0`, `r1-d{i}`.
fn parse_dumbbell(d: &mut Obj, errs: &mut Errors, nodes: &mut Nodes, links: &mut Vec<Pending>) {
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
        None => bq.clone(),
    };
    let loss = parse_loss(d, "loss", errs);
    let aq_value = d.get("access_queue");
    let aq_path = d.at("access_queue");
    let aq = queue_from(aq_value, &aq_path, &ainfo, errs);
    let (Some(b_rate), Some(b_delay), Some(a_rate), Some(bq), Some(bq_rev), Some(loss), Some(aq)) =
        (b_rate, b_delay, a_rate, bq, bq_rev, loss, aq)
    else {
        return;
    };
    nodes.reserve(n + m + 2);
    links.reserve(n + m + 1);
    let mut add_node = |n: &str, errs: &mut Errors| nodes.add(n, "dumbbell", errs);
    let senders: Vec<u32> = (0..n).map(|i| add_node(&super::numbered("s", i, ""), errs)).collect();
    let r0 = add_node("r0", errs);
    let r1 = add_node("r1", errs);
    let receivers: Vec<u32> = (0..m).map(|j| add_node(&super::numbered("d", j, ""), errs)).collect();
    // Each access link direction builds its own queue instance from the one configuration.
    let access = |name: String, delay: Time| LinkParts {
        name: Some(name),
        rate: a_rate,
        delay,
        queue: [aq.clone(), aq.clone()],
        loss: [None, None],
    };
    for i in 0..n {
        let delay = delays.as_ref().map(|v| v[i]).unwrap_or(a_delay.unwrap_or(0));
        let parts = access(super::numbered("s", i, "-r0"), delay);
        links.push(Pending { at: LinkAt::Sender(i), a: End::Node(senders[i]), b: End::Node(r0), parts });
    }
    let parts = LinkParts { name: Some("bottleneck".into()), rate: b_rate, delay: b_delay, queue: [bq, bq_rev], loss };
    links.push(Pending { at: LinkAt::Bottleneck, a: End::Node(r0), b: End::Node(r1), parts });
    let rdelays = per_sender_delays(d, "receiver_delays", m, errs);
    for j in 0..m {
        let delay = rdelays.as_ref().map(|v| v[j]).unwrap_or(a_delay.unwrap_or(0));
        let parts = access(super::numbered("r1-d", j, ""), delay);
        links.push(Pending { at: LinkAt::Receiver(j), a: End::Node(r1), b: End::Node(receivers[j]), parts });
    }
}

fn per_sender_delays(d: &mut Obj, key: &'static str, n: usize, errs: &mut Errors) -> Option<Vec<Time>> {
    let v = d.get(key)?;
    let Value::Array(items) = v else {
        errs.add(d.at(key), format!("expected a list of {n} times, got {}", show(v)));
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
            Some(t) if (0.0..=crate::config::MAX_TIME_S).contains(&t) => out.push(crate::units::secs(t)),
            _ => {
                errs.add(format!("{}[{i}]", d.at(key)), format!("invalid time {}", show(item)));
                return None;
            }
        }
    }
    Some(out)
}
