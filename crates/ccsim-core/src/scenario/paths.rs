//! What a flow's path needs of the nodes along it: a replicating element wherever a
//! multicast tree branches, AAL5 where its packets become cells and where cells become
//! packets again, and queues its packets fit.

use super::{topology, ElementSpec, FlowSpec, GeneratorSpec};
use crate::agent::FlowConfig;
use crate::config::Errors;
use crate::net::Routes;

/// Host pairs checked per generator (its flows may go between any of them).
const MAX_PAIRS: usize = 4096;

/// Every static flow's (sender, receiver) pairs and generators' host pairs (at most
/// [`MAX_PAIRS`] per generator): who (for messages), the static flow's index, what it runs,
/// source, destination.
fn endpoints<'a>(
    flows: &'a [FlowSpec],
    generators: &'a [GeneratorSpec],
) -> impl Iterator<Item = (String, Option<u32>, &'a dyn FlowConfig, u32, u32)> + 'a {
    let statics = flows
        .iter()
        .enumerate()
        .flat_map(|(fi, f)| f.dsts.iter().map(move |&d| (format!("flow '{}'", f.name), Some(fi as u32), f.app.as_ref(), f.src, d)));
    let generated = generators.iter().flat_map(|g| {
        let pairs = g.src.iter().flat_map(move |&s| g.dst.iter().map(move |&d| (s, d))).filter(|(s, d)| s != d);
        pairs.take(MAX_PAIRS).map(move |(s, d)| (format!("generator '{}'", g.name), None, g.transport.as_ref(), s, d))
    });
    statics.chain(generated)
}

/// The link directions of the route from `from` to `to`, in order; it ends early where no
/// route goes on (or after as many hops as there are nodes).
fn route<'a>(routes: &'a Routes, dirs: &'a [(u32, u32)], from: u32, to: u32, nodes: usize) -> impl Iterator<Item = u32> + 'a {
    let (mut at, mut hops) = (from, 0);
    std::iter::from_fn(move || {
        if at == to || hops > nodes {
            return None;
        }
        let d = routes.next(at, to);
        if d == crate::net::NO_ROUTE {
            return None;
        }
        (at, hops) = (dirs[d as usize].1, hops + 1);
        Some(d)
    })
}

/// The topology's link directions (`2·link + side`, `a→b` first), its routes, and whether
/// a direction queues cells.
fn routing(topo: &topology::Topology) -> (Vec<(u32, u32)>, Routes) {
    let dirs: Vec<(u32, u32)> = topo.links.iter().flat_map(|l| [(l.a, l.b), (l.b, l.a)]).collect();
    let routes = Routes::new(topo.nodes.names.len(), &dirs);
    (dirs, routes)
}

fn is_cell(topo: &topology::Topology, d: usize) -> bool {
    topo.links[d / 2].queue[d % 2].kind() == "cell"
}

/// Every flow with several receivers needs a replicating element (`replicate`, `mcs`) wherever its tree (the
/// union of the routes from its sender to its receivers) branches, and its receivers must
/// be the tree's leaves.
pub(super) fn check_multicast(topo: &topology::Topology, flows: &[FlowSpec], elements: &[ElementSpec], errs: &mut Errors) {
    if flows.iter().all(|f| f.dsts.len() < 2) {
        return;
    }
    let n = topo.nodes.names.len();
    let (dirs, routes) = routing(topo);
    let names = &topo.nodes.names;
    // Reliable flows whose tree has no element combining their receivers' ACKs: (flow,
    // its kind, the first branch node, whether the tree carries cells).
    let mut uncombined: Vec<(&str, &str, u32, bool)> = Vec::new();
    let cell = |d: usize| is_cell(topo, d);
    for (fi, f) in flows.iter().enumerate().filter(|(_, f)| f.dsts.len() > 1) {
        let Some(tree) = crate::net::MulticastTree::new(&routes, &dirs, f.src, &f.dsts) else { continue };
        let branches = tree.branch_nodes();
        // The branch nearest the sender, on the way to any receiver: the one node every
        // receiver's ACKs pass.
        let (mut first, mut hops) = (f.src, 0);
        while !branches.contains(&first) && first != f.dsts[0] && hops <= n {
            let d = routes.next(first, f.dsts[0]);
            if d == crate::net::NO_ROUTE {
                break;
            }
            first = dirs[d as usize].1;
            hops += 1;
        }
        let combiners: Vec<u32> =
            elements.iter().filter(|e| e.config.combines_acks() && branches.contains(&e.node)).map(|e| e.node).collect();
        if f.app.receiver_completes() && combiners.is_empty() {
            let cells = tree.children.iter().flatten().any(|&d| cell(d as usize));
            uncombined.push((&f.name, f.app.kind(), first, cells));
        }
        if let Some(&v) = combiners.iter().find(|&&v| v != first) {
            // It waits for every receiver's ACK, and those of the receivers off its subtree
            // never pass it: the flow stalls.
            errs.warn(
                "elements",
                format!(
                    "flow '{}' meets an mcs with ack = \"min\" at '{}', which not every receiver's ACKs pass (the tree \
                     first branches at '{}'): it waits for them and the flow stalls; combine ACKs at '{}' only",
                    f.name, names[v as usize], names[first as usize], names[first as usize]
                ),
            );
        }
        for v in branches {
            // The packet arrives on the tree's link into v (or is sent at v by the sender).
            let from = if v == f.src {
                crate::element::LOCAL
            } else {
                (0..dirs.len() as u32)
                    .find(|&l| dirs[l as usize].1 == v && tree.children[dirs[l as usize].0 as usize].contains(&l))
                    .unwrap_or(u32::MAX)
            };
            let admits = |e: &&ElementSpec| {
                let has = |list: &Option<Vec<u32>>, x: u32| list.as_ref().is_none_or(|l| l.contains(&x));
                has(&e.filter.from, from) && has(&e.filter.flows, fi as u32) && e.filter.to.is_none()
            };
            let here: Vec<&ElementSpec> = elements.iter().filter(|e| e.node == v && e.config.replicates()).collect();
            if here.is_empty() {
                errs.add(
                    "flows",
                    format!(
                        "flow '{}' branches at node '{}': place an element of kind \"replicate\" (or \"mcs\") there",
                        f.name, names[v as usize]
                    ),
                );
            } else if !here.iter().any(admits) {
                errs.add(
                    "flows",
                    format!(
                        "flow '{}' branches at node '{}', where no replicate element's filters (from, flows; to cannot match a branching packet) admit its packets",
                        f.name, names[v as usize]
                    ),
                );
            }
        }
        for &r in &f.dsts {
            if !tree.children[r as usize].is_empty() {
                errs.add(
                    "flows",
                    format!(
                        "receiver '{}' of flow '{}' is on the way to other receivers: receivers must be leaves of the tree",
                        names[r as usize], f.name
                    ),
                );
            }
        }
    }
    if let Some(&(name, kind, v, cells)) = uncombined.first() {
        // A reliable transport's sender hears every receiver's ACKs as one stream: the
        // fastest one's cumulative ACKs cover what a slower one lost.
        let more = match uncombined.len() {
            1 => String::new(),
            2 => " (one more flow likewise)".to_string(),
            k => format!(" ({} more flows likewise)", k - 1),
        };
        let advice = if cells {
            format!(
                "an mcs element with ack = \"min\" at '{}', where its tree first branches, makes it follow the slowest receiver",
                names[v as usize]
            )
        } else {
            "no element combines ACKs on IP links (the mcs works on cells): for reliable multicast carry it over cells \
             through an mcs, or send datagrams"
                .to_string()
        };
        errs.warn(
            "flows",
            format!(
                "flow '{name}' ({kind}) has several receivers and no element combining their ACKs{more}: its sender \
                 follows them interleaved, so a loss at one receiver may never be repaired (the flow then has no \
                 completion_s); {advice}"
            ),
        );
    }
}

/// AAL5 where a flow's packets meet cells, both ways (data to each receiver, replies
/// back): a packet becomes cells at the first node with an `aal5` element for it that it
/// passes (its sender's, or one bridging IP onto ATM), which must come before any cell link
/// (`queue = { kind = "cell" }`), and cells become packets again only at their
/// destination's `aal5`. Without them the flow's packets go nowhere and the run ends with
/// no goodput and no error. Static flows and generators' host pairs (at most
/// `MAX_PAIRS` per generator) are checked, in scenarios with a cell link or an `aal5`.
pub(super) fn check_cells(
    topo: &topology::Topology,
    flows: &[FlowSpec],
    generators: &[GeneratorSpec],
    elements: &[ElementSpec],
    errs: &mut Errors,
) {
    let cell = |d: usize| is_cell(topo, d);
    let has_aal5 = elements.iter().any(|e| e.config.kind() == "aal5");
    if !has_aal5 && !(0..2 * topo.links.len()).any(cell) {
        return;
    }
    let n = topo.nodes.names.len();
    let (dirs, routes) = routing(topo);
    let names = &topo.nodes.names;
    // An aal5 element at `v` that takes flow `fi`'s packets (a generator's flows: only an
    // element without a `flows` list).
    let aal5 = |v: u32, fi: Option<u32>| {
        elements
            .iter()
            .any(|e| e.node == v && e.config.kind() == "aal5" && e.filter.flows.as_ref().is_none_or(|l| fi.is_some_and(|f| l.contains(&f))))
    };
    // What is missing: per node, why (each reason once) and for which flows and generators.
    let mut missing: Vec<(u32, Vec<String>, Vec<String>)> = Vec::new();
    let mut need = |v: u32, why: String, who: &str| {
        let i = missing.iter().position(|(x, _, _)| *x == v).unwrap_or_else(|| {
            missing.push((v, Vec::new(), Vec::new()));
            missing.len() - 1
        });
        let (_, whys, whos) = &mut missing[i];
        if !whys.contains(&why) {
            whys.push(why);
        }
        if !whos.iter().any(|w| w == who) {
            whos.push(who.to_string());
        }
    };
    for (who, fi, _, src, dst) in endpoints(flows, generators) {
        for (from, to) in [(src, dst), (dst, src)] {
            // Where the packets became cells, if they did.
            let (mut at, mut made) = (from, None);
            for d in route(&routes, &dirs, from, to, n) {
                if made.is_none() && aal5(at, fi) {
                    made = Some(at);
                }
                if cell(d as usize) && made.is_none() {
                    let (x, y) = dirs[d as usize];
                    let why = format!(
                        "what it sends reaches the cell link {}->{} not yet cells (an aal5 at a node after it, before that \
                         link, would do too)",
                        names[x as usize], names[y as usize]
                    );
                    need(from, why, &who);
                    made = Some(from);
                }
                at = dirs[d as usize].1;
            }
            if made.is_some() && at == to && !aal5(to, fi) {
                need(to, "cells addressed to it (made by an aal5 on the way) never become packets again".to_string(), &who);
            }
        }
    }
    for (v, whys, who) in missing {
        let shown = who.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
        let more = if who.len() > 3 { format!(" and {} more", who.len() - 3) } else { String::new() };
        errs.add(
            "elements",
            format!(
                "node '{}' needs an element of kind \"aal5\" for {shown}{more}: {}; without it their packets go nowhere",
                names[v as usize],
                whys.join("; ")
            ),
        );
    }
}

/// A queue limited in bytes below the largest packet of a flow whose data crosses it drops
/// every such packet, even with its link idle (an arriving packet counts in the queue, as
/// in ns-2): warned once per link direction, naming a flow and the sizes. Static flows and
/// generators' host pairs (at most `MAX_PAIRS` per generator) are checked, in scenarios
/// with a queue limited in bytes.
pub(super) fn check_byte_limits(topo: &topology::Topology, flows: &[FlowSpec], generators: &[GeneratorSpec], errs: &mut Errors) {
    let limit = |d: usize| topo.links[d / 2].queue[d % 2].byte_limit();
    if !(0..2 * topo.links.len()).any(|d| limit(d).is_some()) {
        return;
    }
    let (dirs, routes) = routing(topo);
    // Per link direction: the first flow found too large for it, its packet and the limit.
    let mut too_small: Vec<(u32, String, u64, u64)> = Vec::new();
    for (who, _, app, src, dst) in endpoints(flows, generators) {
        let Some(size) = app.largest_packet() else { continue };
        for d in route(&routes, &dirs, src, dst, topo.nodes.names.len()) {
            if let Some(l) = limit(d as usize).filter(|&l| l < size) {
                if !too_small.iter().any(|(x, ..)| *x == d) {
                    too_small.push((d, who.clone(), size, l));
                }
            }
        }
    }
    let names = &topo.nodes.names;
    for (d, who, size, l) in too_small {
        let (x, y) = dirs[d as usize];
        errs.warn(
            "links",
            format!(
                "link '{}': the queue of {}->{} holds {l} bytes, less than the {size}-byte packets of {who}: each is \
                 dropped on arrival, even with the link idle (an arriving packet counts in the queue, as in ns-2); give a \
                 limit of at least {size}B",
                topo.links[d as usize / 2].name,
                names[x as usize],
                names[y as usize]
            ),
        );
    }
}
