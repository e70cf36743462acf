//! `[[flows]]`: each entry names a flow kind from [`FLOW_KINDS`] (whose own module parses
//! its fields into a typed [`FlowConfig`]) and places `count` flows between nodes.

use super::topology::Topology;
use super::FlowSpec;
use crate::agent::{FlowConfig, FlowParser};
use crate::config::{show, Errors, Obj};
use serde_json::Value;

/// Flow kinds by scenario name: one line per kind.
pub const FLOW_KINDS: &[(&str, FlowParser)] =
    &[("cbr", crate::app::cbr::parse), ("onoff", crate::app::onoff::parse), ("tcp", crate::tcp::parse), ("udt", crate::udt::parse)];

/// The kinds' names, for messages.
pub(crate) fn kind_names() -> Vec<&'static str> {
    FLOW_KINDS.iter().map(|(k, _)| *k).collect()
}

/// Parses a flow kind's configuration from `o` (its `kind` and own fields).
pub(crate) fn flow_config(o: &mut Obj, errs: &mut Errors) -> Option<std::sync::Arc<dyn FlowConfig>> {
    let kind = o.choice("kind", &kind_names(), None, errs)?;
    let parser = FLOW_KINDS.iter().find(|(n, _)| *n == kind).unwrap().1;
    parser(o, errs)
}

/// `dst`: a node name, or a non-empty list of them (several receivers: multicast).
fn receivers<'v>(o: &mut Obj<'v>, errs: &mut Errors) -> Option<Vec<&'v str>> {
    if !o.has("dst") {
        o.req_string("dst", errs);
        return None;
    }
    let v = o.get("dst")?;
    let list: Option<Vec<&str>> = match v {
        Value::String(s) if !s.is_empty() => Some(vec![s.as_str()]),
        Value::Array(items) if !items.is_empty() => items.iter().map(|x| x.as_str().filter(|s| !s.is_empty())).collect(),
        _ => None,
    };
    if list.is_none() {
        errs.add(o.at("dst"), format!("expected a node name or a non-empty list of node names (several receivers), got {}", show(v)));
    }
    list
}

/// The parsed flows and their names.
pub(crate) struct Flows {
    pub flows: Vec<FlowSpec>,
    names: super::names::NameIndex,
    /// `[[flows]]` entries left out for an error already reported: the name and count
    /// of each (a reference to one of their flows is that error's consequence, not an
    /// error of its own).
    dropped: Vec<(String, i64)>,
    /// An entry was left out whose flows' names are not known here (not a table, or a
    /// name with `{i}`): no missing name is reported then.
    dropped_unnamed: bool,
}

impl Flows {
    /// The index of the flow named `name`.
    pub fn index_of(&self, name: &str) -> Option<u32> {
        self.names.get(name, |i| &self.flows[i as usize].name)
    }

    /// Whether a reference to a flow named `name` should be reported as naming no flow:
    /// not among the flows, nor among those of an entry left out for its own error (that
    /// error is the one to fix).
    pub fn unknown(&self, name: &str) -> bool {
        self.index_of(name).is_none() && !self.dropped_unnamed && !self.dropped.iter().any(|(n, count)| names_one_of(n, *count, name))
    }

    /// Notes that the entry named `name` (before expansion), of `count` flows, is left out.
    fn drop_entry(&mut self, name: &str, count: i64) {
        if name.contains("{i}") {
            self.dropped_unnamed = true;
        } else {
            self.dropped.push((name.to_string(), count));
        }
    }
}

/// Whether `name` is one of the names an entry named `base` (without `{i}`) of `count`
/// flows gives: `base` itself for one flow, `base-0` … `base-<count-1>` for several.
fn names_one_of(base: &str, count: i64, name: &str) -> bool {
    if count <= 1 {
        return name == base;
    }
    let Some(k) = name.strip_prefix(base).and_then(|r| r.strip_prefix('-')) else { return false };
    // The numbers as `itoa` writes them: no sign, no leading zero.
    !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) && (k == "0" || !k.starts_with('0')) && k.parse::<i64>().is_ok_and(|k| k < count)
}

/// `[[flows]]`: `name` (`{i}` = 0..count-1), `kind`, `count`, `src`, `dst` (a node, or a
/// list of nodes: a multicast flow), `start`,
/// `start_jitter`, `stop`, and the kind's own fields.
pub(crate) fn parse(top: &mut Obj, topo: &Topology, errs: &mut Errors, refs: &mut Errors) -> Flows {
    let mut out = Flows { flows: Vec::new(), names: Default::default(), dropped: Vec::new(), dropped_unnamed: false };
    let Some(fv) = top.get("flows") else { return out };
    let Value::Array(items) = fv else {
        errs.add("flows", format!("expected an array of tables ([[flows]]), got {}", show(fv)));
        return out;
    };
    for (i, item) in items.iter().enumerate() {
        let path = super::numbered("flows[", i, "]");
        let Some(mut o) = Obj::new(item, &path, errs) else {
            out.dropped_unnamed = true;
            continue;
        };
        let count = o.int("count", 1, 1_000_000, errs).unwrap_or(1);
        let name = o.string("name", errs).map(str::to_string).unwrap_or_else(|| super::numbered("flow", i, ""));
        let src = o.req_string("src", errs);
        let dst = receivers(&mut o, errs);
        let start = o.time("start", errs).unwrap_or(0);
        let start_jitter = o.time("start_jitter", errs).unwrap_or(0);
        let stop = o.time("stop", errs);
        if let Some(stop) = stop {
            if stop <= start {
                errs.add(o.at("stop"), "must be later than start");
            }
        }
        let kind_ok = o.is_one_of("kind", &kind_names());
        let app = flow_config(&mut o, errs);
        let (Some(src), Some(dst), Some(app)) = (src, dst, app) else {
            o.finish_if(kind_ok, errs);
            out.drop_entry(&name, count);
            continue;
        };
        if dst.len() > app.max_receivers() {
            errs.add(
                o.at("dst"),
                format!("a '{}' flow has one receiver; several (multicast) need a kind that supports them (cbr, onoff)", app.kind()),
            );
            o.finish(errs);
            out.drop_entry(&name, count);
            continue;
        }
        let src_path = o.at("src");
        let dst_path = o.at("dst");
        o.finish(errs);
        // `{i}` in the name, src and dst becomes the instance's number; a counted flow's name
        // without one gets `-<number>` appended.
        let (name_t, src_t) = (Template::new(&name), Template::new(src));
        let dst_t: Vec<Template> = dst.iter().map(|d| Template::new(d)).collect();
        let suffixed = count > 1 && name_t.parts.len() == 1;
        let (mut s, mut d, mut digits) = (String::new(), String::new(), itoa::Buffer::new());
        out.flows.reserve(count as usize);
        {
            let flows = &out.flows;
            out.names.reserve(count as usize, |i| &flows[i as usize].name);
        }
        for k in 0..count {
            let ks = digits.format(k);
            let fname = if suffixed { [name.as_str(), "-", ks].concat() } else { name_t.expand(ks) };
            src_t.expand_into(ks, &mut s);
            let Some(si) = topo.nodes.get(&s) else {
                refs.add(src_path.clone(), format!("no node named '{s}'"));
                out.drop_entry(&name, count);
                break;
            };
            let mut dsts = Vec::with_capacity(dst.len());
            for t in &dst_t {
                t.expand_into(ks, &mut d);
                let Some(di) = topo.nodes.get(&d) else {
                    refs.add(dst_path.clone(), format!("no node named '{d}'"));
                    continue;
                };
                if si == di {
                    errs.add(dst_path.clone(), "a flow's src and dst must differ");
                } else if !topo.connected(si, di) {
                    refs.add(path.clone(), format!("no route from '{s}' to '{d}'"));
                } else if dsts.contains(&di) {
                    errs.add(dst_path.clone(), format!("receiver '{d}' is listed twice"));
                } else {
                    dsts.push(di);
                }
            }
            if dsts.len() != dst.len() {
                out.drop_entry(&name, count);
                break;
            }
            out.flows.push(FlowSpec { name: fname, src: si, dsts, start, start_jitter, stop, app: app.clone() });
            let flows = &out.flows;
            if out.names.insert(flows.len() as u32 - 1, |i| &flows[i as usize].name).is_some() {
                let fname = out.flows.pop().expect("just pushed").name;
                errs.add(format!("{path}.name"), format!("duplicate flow name '{fname}'"));
                break;
            }
        }
    }
    out
}

/// A name in which each `{i}` stands for a counted flow's instance number (as
/// `str::replace` would put it, without searching the name again for every instance).
struct Template<'a> {
    /// The text between the placeholders (one part: no placeholder).
    parts: Vec<&'a str>,
}

impl<'a> Template<'a> {
    fn new(s: &'a str) -> Self {
        Template { parts: s.split("{i}").collect() }
    }

    /// Writes the name for instance `i` (its decimal digits) into `out`.
    fn expand_into(&self, i: &str, out: &mut String) {
        out.clear();
        for (j, p) in self.parts.iter().enumerate() {
            if j > 0 {
                out.push_str(i);
            }
            out.push_str(p);
        }
    }

    fn expand(&self, i: &str) -> String {
        let mut out = String::new();
        self.expand_into(i, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::Template;

    #[test]
    fn a_template_expands_as_replace_does() {
        for s in ["s{i}", "{i}", "", "plain", "{i}{i}", "a{i}b{i}c", "{i", "i}", "{{i}}", "{i}}{i"] {
            for i in ["0", "17", "99999"] {
                assert_eq!(Template::new(s).expand(i), s.replace("{i}", i), "{s:?} {i}");
            }
        }
    }

    #[test]
    fn an_entry_left_out_covers_exactly_its_names() {
        use super::names_one_of;
        assert!(names_one_of("t", 1, "t") && !names_one_of("t", 1, "t-0") && !names_one_of("t", 1, "u"));
        for ok in ["bulk-0", "bulk-9", "bulk-10", "bulk-11"] {
            assert!(names_one_of("bulk", 12, ok), "{ok}");
        }
        for no in ["bulk", "bulk-12", "bulk-01", "bulk--1", "bulk-+1", "bulk-", "bulkx-1", "bulk-1x"] {
            assert!(!names_one_of("bulk", 12, no), "{no}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_template_expands_as_replace_does(s in "[a-z{}i]{0,12}", k in 0u32..1_000_000) {
            let i = k.to_string();
            proptest::prop_assert_eq!(Template::new(&s).expand(&i), s.replace("{i}", &i));
        }
    }
}
