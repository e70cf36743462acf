//! `[[elements]]`: node elements placed on nodes (see [`crate::element`]); each entry names
//! a kind from [`ELEMENT_KINDS`], whose own module parses its fields.

use super::flows::Flows;
use super::topology::Topology;
use super::{ElementSpec, Filter};
use crate::config::{show, Errors, Obj};
use crate::element::LOCAL;
use rustc_hash::FxHashMap as HashMap;
use serde_json::Value;

/// Element kinds by scenario name: one line per kind.
pub const ELEMENT_KINDS: &[(&str, crate::element::ElementParser)] = &[
    ("shaper", crate::element::shaper::parse),
    ("policer", crate::element::policer::parse),
    ("replicate", crate::element::replicate::parse),
    ("marker", crate::diffserv::marker::parse),
    ("aal5", crate::atm::aal5::parse),
    ("mcs", crate::atm::mcs::parse),
];

/// At most this many elements at one node (a chain position is a 16-bit number).
pub const MAX_PER_NODE: usize = 1000;

/// The parsed elements and their names.
#[derive(Default)]
pub(crate) struct Elements {
    pub elements: Vec<ElementSpec>,
    pub names: HashMap<String, u32>,
}

/// A string or a list of strings.
fn strings<'v>(o: &mut Obj<'v>, key: &'static str, errs: &mut Errors) -> Option<Vec<&'v str>> {
    let v = o.get(key)?;
    let bad = |errs: &mut Errors| errs.add(o.at(key), format!("expected a name or a list of names, got {}", show(v)));
    match v {
        Value::String(s) => Some(vec![s.as_str()]),
        Value::Array(items) => {
            let list: Option<Vec<&str>> = items.iter().map(|x| x.as_str()).collect();
            if list.is_none() {
                bad(errs);
            }
            list
        }
        _ => {
            bad(errs);
            None
        }
    }
}

/// `[[elements]]`: `name` (`{i}` = 0..count-1; default `<kind><n>`), `kind`, `node`,
/// `count`, filters `from` (incoming link directions or `"local"`), `to` (outgoing link
/// directions), `flows` (flow names), and the kind's own fields. Elements at one node see
/// packets in the order they are declared.
pub(crate) fn parse(top: &mut Obj, topo: &Topology, flows: &Flows, errs: &mut Errors, refs: &mut Errors) -> Elements {
    let mut out = Elements::default();
    let Some(ev) = top.get("elements") else { return out };
    let Value::Array(items) = ev else {
        errs.add("elements", format!("expected an array of tables ([[elements]]), got {}", show(ev)));
        return out;
    };
    let kinds: Vec<&'static str> = ELEMENT_KINDS.iter().map(|(k, _)| *k).collect();
    for (i, item) in items.iter().enumerate() {
        let path = format!("elements[{i}]");
        let Some(mut o) = Obj::new(item, &path, errs) else { continue };
        let count = o.int("count", 1, 1_000_000, errs).unwrap_or(1);
        let name = o.string("name", errs).map(str::to_string);
        let node = o.req_string("node", errs);
        let from = strings(&mut o, "from", errs);
        let to = strings(&mut o, "to", errs);
        let fl = strings(&mut o, "flows", errs);
        let kind_ok = o.is_one_of("kind", &kinds);
        let kind = o.choice("kind", &kinds, None, errs);
        let config = kind.and_then(|k| (ELEMENT_KINDS.iter().find(|(n, _)| *n == k).unwrap().1)(&mut o, errs));
        let at = |k: &str| o.at(k);
        let (from_path, to_path, flows_path, node_path) = (at("from"), at("to"), at("flows"), at("node"));
        // A kind's table refused for a choice (an unknown meter, say) leaves fields unread
        // that the kind would read: not reported as unknown on top of the real error. Any
        // other refusal (a missing rate) comes after the kind has read all its fields, so
        // a misspelt one is reported (`rat` for `rate` had gone unsaid).
        let finish = kind_ok && (config.is_some() || !o.refused_choice());
        o.finish_if(finish, errs);
        let (Some(node), Some(kind), Some(config)) = (node, kind, config) else { continue };
        let name = name.unwrap_or_else(|| format!("{kind}{i}"));
        for k in 0..count {
            let sub = |s: &str| if count > 1 || s.contains("{i}") { s.replace("{i}", &k.to_string()) } else { s.to_string() };
            let mut ename = sub(&name);
            if count > 1 && !name.contains("{i}") {
                ename = format!("{name}-{k}");
            }
            let nname = sub(node);
            let Some(ni) = topo.nodes.get(&nname) else {
                refs.add(node_path.clone(), format!("no node named '{nname}'"));
                break;
            };
            let mut links = |list: &Option<Vec<&str>>, path: &str, incoming: bool| -> Option<Vec<u32>> {
                let list = list.as_ref()?;
                let mut v = Vec::new();
                for s in list {
                    let s = sub(s);
                    if incoming && s == "local" {
                        v.push(LOCAL);
                        continue;
                    }
                    match topo.link_dir(&s) {
                        Some(ld) => {
                            let (f, t) = topo.ends(ld);
                            if (incoming && t != ni) || (!incoming && f != ni) {
                                let end = if incoming { "end at" } else { "leave" };
                                refs.add(path, format!("link direction '{s}' does not {end} node '{nname}'"));
                            }
                            v.push(ld)
                        }
                        None => refs.add(path, format!("no link direction '{s}' (give 'from->to' node names or a link name)")),
                    }
                }
                v.sort_unstable();
                Some(v)
            };
            let from = links(&from, &from_path, true);
            let to = links(&to, &to_path, false);
            let flows = fl.as_ref().map(|names| {
                let mut v: Vec<u32> = names
                    .iter()
                    .filter_map(|n| {
                        let n = sub(n);
                        let f = flows.index_of(&n);
                        if flows.unknown(&n) {
                            refs.add(flows_path.clone(), format!("no flow named '{n}'"));
                        }
                        f
                    })
                    .collect();
                v.sort_unstable();
                v
            });
            if out.elements.iter().filter(|e| e.node == ni).count() >= MAX_PER_NODE {
                errs.add(node_path.clone(), format!("more than {MAX_PER_NODE} elements at node '{nname}'"));
                break;
            }
            if out.names.insert(ename.clone(), out.elements.len() as u32).is_some() {
                errs.add(format!("{path}.name"), format!("duplicate element name '{ename}'"));
                break;
            }
            out.elements.push(ElementSpec { name: ename, node: ni, filter: Filter { from, to, flows }, config: config.clone() });
        }
    }
    out
}
