//! `[[generators]]`: traffic generators that open flows during a run, between host pools,
//! with an arrival process (open loop: Poisson or listed times; closed loop: users who
//! wait a think time after each completion), sizes from a distribution, and any sized
//! flow kind (a TCP transfer of any profile, recovery and controller, or a UDP burst).

use super::flows::flow_config;
use super::topology::Topology;
use super::{Arrivals, GeneratorSpec};
use crate::config::{show, Errors, Obj};
use crate::dist::{self, Quantity};
use crate::units::{secs, Time};
use serde_json::Value;

/// Expands `"s{0..9}"` to `s0`..`s9` (inclusive); other names stay as they are.
pub(crate) fn expand_range(name: &str) -> Option<Vec<String>> {
    let Some(open) = name.find('{') else { return Some(vec![name.to_string()]) };
    let close = open + name[open..].find('}')?;
    let (a, b) = name[open + 1..close].split_once("..")?;
    let (a, b): (u64, u64) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
    if b < a || b - a >= 1_000_000 {
        return None;
    }
    Some((a..=b).map(|i| format!("{}{i}{}", &name[..open], &name[close + 1..])).collect())
}

/// A host pool: a node name or a list of them, each possibly a range `"s{0..9}"`.
fn pool(o: &mut Obj, key: &'static str, topo: &Topology, errs: &mut Errors, refs: &mut Errors) -> Option<Vec<u32>> {
    if !o.has(key) {
        o.req_string(key, errs);
        return None;
    }
    let v = o.get(key)?;
    let names: Option<Vec<&str>> = match v {
        Value::String(s) => Some(vec![s.as_str()]),
        Value::Array(a) if !a.is_empty() => a.iter().map(|x| x.as_str()).collect(),
        _ => None,
    };
    let Some(names) = names else {
        errs.add(o.at(key), format!("expected a node name or a list of names (ranges such as 's{{0..9}}' allowed), got {}", show(v)));
        return None;
    };
    let mut out = Vec::new();
    // Unknown names, said once for the list (a range past the hosts named each one).
    let mut unknown: Vec<String> = Vec::new();
    for n in names {
        let Some(list) = expand_range(n) else {
            errs.add(o.at(key), format!("invalid range in '{n}': write 'name{{first..last}}', e.g. 's{{0..9}}'"));
            return None;
        };
        for name in list {
            match topo.nodes.get(&name) {
                Some(i) if !out.contains(&i) => out.push(i),
                Some(_) => {}
                None => unknown.push(name),
            }
        }
    }
    match unknown.as_slice() {
        [] => {}
        [one] => refs.add(o.at(key), format!("no node named '{one}'")),
        [first, .., last] => {
            refs.add(o.at(key), format!("no nodes named '{first}' … '{last}' ({} names of this list name no node)", unknown.len()))
        }
    }
    Some(out)
}

fn parse_arrivals(o: &mut Obj, errs: &mut Errors) -> Option<Arrivals> {
    let Some(v) = o.get("arrivals") else {
        errs.add(o.at("arrivals"), "missing required field: { kind = \"poisson\", rate = ... }, { kind = \"times\", ... } or { kind = \"closed\", users = ..., think = ... }");
        return None;
    };
    let path = o.at("arrivals");
    let mut a = Obj::new(v, &path, errs)?;
    let kind = a.choice("kind", &["poisson", "times", "closed"], None, errs);
    let kind_ok = kind.is_some();
    let out = match kind {
        Some("poisson") => a.req_float("rate", 1e-9, 1e9, errs).map(|rate| Arrivals::Poisson { rate }),
        Some("times") => parse_times(&mut a, errs).map(Arrivals::Times),
        Some("closed") => {
            let users = a.req_int("users", 1, 10_000_000, errs);
            let think = dist::parse_at(&mut a, "think", Quantity::Seconds, errs);
            if think.is_none() {
                errs.add(
                    a.at("think"),
                    "missing required field (a distribution of think times, e.g. { kind = \"exponential\", mean = \"1s\" })",
                );
            }
            match (users, think) {
                (Some(u), Some(Some(t))) => Some(Arrivals::Closed { users: u as u32, think: t }),
                _ => None,
            }
        }
        _ => None,
    };
    a.finish_if(kind_ok, errs);
    out
}

/// `times = [0.5, "2s", ...]` or `file = "arrivals.csv"` (one time in seconds per line).
fn parse_times(a: &mut Obj, errs: &mut Errors) -> Option<Vec<Time>> {
    let raw: Vec<(String, Value)> = match (a.get("times"), a.get("file")) {
        (Some(Value::Array(items)), None) => {
            items.iter().enumerate().map(|(i, x)| (format!("{}[{i}]", a.at("times")), x.clone())).collect()
        }
        (None, Some(Value::String(f))) => match crate::config::read_data_file(f) {
            Ok(text) => text
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty() && !l.trim().starts_with('#'))
                .map(|(i, l)| (format!("{} ({f}, line {})", a.at("file"), i + 1), Value::String(l.trim().to_string())))
                .collect(),
            Err(e) => {
                errs.add(a.at("file"), e);
                return None;
            }
        },
        _ => {
            errs.add(a.at("times"), "give times (a list of times) or file (one time in seconds per line), not both");
            return None;
        }
    };
    let mut out = Vec::with_capacity(raw.len());
    for (path, v) in raw {
        let t = match &v {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse::<f64>().ok().or_else(|| crate::units::parse_time(s)),
            _ => None,
        };
        match t {
            Some(t) if t.is_finite() && t >= 0.0 => out.push(secs(t)),
            _ => {
                errs.add(path, format!("invalid time {}", show(&v)));
                return None;
            }
        }
    }
    out.sort_unstable();
    Some(out)
}

/// `[[generators]]`: `name`, `src` and `dst` (host pools), `arrivals`, `size` (a
/// distribution of bytes), `transport` (a flow kind's table: `kind` and its fields),
/// `start`, `stop` (no flow opened from then on), `max_flows`, `slowdown` (default true).
pub(crate) fn parse(top: &mut Obj, topo: &Topology, errs: &mut Errors, refs: &mut Errors) -> Vec<GeneratorSpec> {
    let mut out: Vec<GeneratorSpec> = Vec::new();
    let Some(gv) = top.get("generators") else { return out };
    let Value::Array(items) = gv else {
        errs.add("generators", format!("expected an array of tables ([[generators]]), got {}", show(gv)));
        return out;
    };
    for (i, item) in items.iter().enumerate() {
        let path = format!("generators[{i}]");
        let Some(mut o) = Obj::new(item, &path, errs) else { continue };
        let name = o.string("name", errs).map(str::to_string).unwrap_or_else(|| format!("gen{i}"));
        let src = pool(&mut o, "src", topo, errs, refs);
        let dst = pool(&mut o, "dst", topo, errs, refs);
        let arrivals = parse_arrivals(&mut o, errs);
        let size = dist::parse_at(&mut o, "size", Quantity::Bytes, errs);
        if size.is_none() {
            errs.add(
                o.at("size"),
                "missing required field (a distribution of flow sizes, e.g. { kind = \"pareto\", mean = \"50KB\", shape = 1.2 })",
            );
        }
        let transport = match o.get("transport") {
            Some(v) => {
                let tpath = o.at("transport");
                Obj::new(v, &tpath, errs).and_then(|mut t| {
                    let kind_ok = t.is_one_of("kind", &super::flows::kind_names());
                    let c = flow_config(&mut t, errs);
                    t.finish_if(kind_ok, errs);
                    c
                })
            }
            None => {
                errs.add(o.at("transport"), "missing required field (a flow kind's table, e.g. { kind = \"tcp\", profile = \"linux\" })");
                None
            }
        };
        let start = o.time("start", errs).unwrap_or(0);
        let stop = o.time("stop", errs);
        let max_flows = o.int("max_flows", 1, i64::MAX, errs).map(|x| x as u64);
        let slowdown = o.boolean("slowdown", errs).unwrap_or(true);
        let name_path = o.at("name");
        let dst_path = o.at("dst");
        let t_path = o.at("transport");
        o.finish(errs);
        if out.iter().any(|g| g.name == name) {
            errs.add(name_path, format!("duplicate generator name '{name}'"));
            continue;
        }
        let (Some(src), Some(dst), Some(arrivals), Some(Some(size)), Some(transport)) = (src, dst, arrivals, size, transport) else {
            continue;
        };
        if !transport.sized() {
            errs.add(t_path, format!("flows of kind '{}' have no size: use a kind whose transfers end (tcp, udt, cbr)", transport.kind()));
            continue;
        }
        if src.len() == 1 && dst == src {
            errs.add(dst_path, "src and dst pools hold only the same node: a flow needs two different nodes");
            continue;
        }
        if matches!(arrivals, Arrivals::Closed { .. }) && src.len() == 1 && dst.contains(&src[0]) {
            errs.add(dst_path, "closed loop: a user receiving at the only sender would have no sender; remove it from dst or add senders");
            continue;
        }
        if let Some((a, b)) = src.iter().flat_map(|&a| dst.iter().map(move |&b| (a, b))).find(|&(a, b)| a != b && !topo.connected(a, b)) {
            refs.add(path, format!("no route from '{}' to '{}'", topo.nodes.names[a as usize], topo.nodes.names[b as usize]));
            continue;
        }
        out.push(GeneratorSpec { name, src, dst, arrivals, size, transport, start, stop, max_flows, slowdown });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::expand_range;

    #[test]
    fn ranges_expand_inclusive() {
        assert_eq!(expand_range("s{0..2}").unwrap(), vec!["s0", "s1", "s2"]);
        assert_eq!(expand_range("h{3..3}x").unwrap(), vec!["h3x"]);
        assert_eq!(expand_range("plain").unwrap(), vec!["plain"]);
        assert!(expand_range("s{5..1}").is_none() && expand_range("s{a..b}").is_none());
    }
}
