//! What a flow's path needs of the nodes along it: a replicating element wherever a
//! multicast tree branches, and AAL5 where its packets become cells and where cells
//! become packets again.

use super::{topology, ElementSpec, FlowSpec};
use crate::config::Errors;

/// Every flow with several receivers needs a replicating element (`replicate`, `mcs`) wherever its tree (the
/// union of the routes from its sender to its receivers) branches, and its receivers must
/// be the tree's leaves.
pub(super) fn check_multicast(topo: &topology::Topology, flows: &[FlowSpec], elements: &[ElementSpec], errs: &mut Errors) {
    if flows.iter().all(|f| f.dsts.len() < 2) {
        return;
    }
    let n = topo.nodes.names.len();
    let dirs: Vec<(u32, u32)> = topo.links.iter().flat_map(|l| [(l.a, l.b), (l.b, l.a)]).collect();
    let routes = crate::net::Routes::new(n, &dirs);
    let names = &topo.nodes.names;
    // Reliable flows branching where nothing combines their receivers' ACKs.
    let mut uncombined: Vec<(&str, &str, u32)> = Vec::new();
    for (fi, f) in flows.iter().enumerate().filter(|(_, f)| f.dsts.len() > 1) {
        let Some(tree) = crate::net::MulticastTree::new(&routes, &dirs, f.src, &f.dsts) else { continue };
        for v in tree.branch_nodes() {
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
            if f.app.receiver_completes() && !here.is_empty() && !here.iter().any(|e| e.config.combines_acks()) {
                uncombined.push((&f.name, f.app.kind(), v));
            }
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
    if let Some(&(name, kind, v)) = uncombined.first() {
        // A reliable transport's sender hears every receiver's ACKs as one stream: the
        // fastest one's cumulative ACKs cover what a slower one lost.
        let more = match uncombined.len() {
            1 => String::new(),
            2 => " (one more flow likewise)".to_string(),
            k => format!(" ({} more flows likewise)", k - 1),
        };
        errs.warn(
            "flows",
            format!(
                "flow '{name}' ({kind}) branches at node '{}' with no element combining its receivers' ACKs{more}: its \
                 sender follows them interleaved, so a loss at one receiver may never be repaired (the flow then has no \
                 completion_s); an mcs element with ack = \"min\" there makes it follow the slowest receiver",
                names[v as usize]
            ),
        );
    }
}

/// AAL5 where a flow's packets meet cells, both ways (data to each receiver, replies
/// back): a packet becomes cells at the first node with an `aal5` element it passes (its
/// sender's, or one bridging IP onto ATM), which must come before any cell link (`queue =
/// { kind = "cell" }`), and cells become packets again only at their destination's `aal5`.
/// Without them the flow's packets go nowhere and the run ends with no goodput and no
/// error. Only scenarios with a cell link are checked.
pub(super) fn check_cells<'a>(topo: &topology::Topology, flows: &'a [FlowSpec], elements: &[ElementSpec], errs: &mut Errors) {
    let cell = |d: usize| topo.links[d / 2].queue[d % 2].kind() == "cell";
    if !(0..2 * topo.links.len()).any(cell) {
        return;
    }
    let n = topo.nodes.names.len();
    let dirs: Vec<(u32, u32)> = topo.links.iter().flat_map(|l| [(l.a, l.b), (l.b, l.a)]).collect();
    let routes = crate::net::Routes::new(n, &dirs);
    let names = &topo.nodes.names;
    let aal5 = |v: u32| elements.iter().any(|e| e.node == v && e.config.kind() == "aal5");
    // Per node lacking AAL5: the flows that need it there.
    let mut missing: Vec<(u32, Vec<&str>)> = Vec::new();
    let mut need = |v: u32, flow: &'a str| match missing.iter_mut().find(|(x, _)| *x == v) {
        Some((_, fl)) if fl.contains(&flow) => {}
        Some((_, fl)) => fl.push(flow),
        None => missing.push((v, vec![flow])),
    };
    for f in flows {
        for &dst in &f.dsts {
            for (from, to) in [(f.src, dst), (dst, f.src)] {
                // Packets become cells at the first node with AAL5 they pass (the sender's
                // own, or one bridging IP onto ATM); a cell link before it, or cells with
                // no AAL5 at their destination, leave the flow's packets nowhere.
                let (mut at, mut cells, mut hops) = (from, false, 0);
                while at != to && hops <= n {
                    cells |= aal5(at);
                    let d = routes.next(at, to);
                    if d == crate::net::NO_ROUTE {
                        break;
                    }
                    if cell(d as usize) && !cells {
                        need(from, &f.name);
                        cells = true;
                    }
                    at = dirs[d as usize].1;
                    hops += 1;
                }
                if cells && at == to && !aal5(to) {
                    need(to, &f.name);
                }
            }
        }
    }
    for (v, fl) in missing {
        let shown: Vec<String> = fl.iter().take(3).map(|f| format!("'{f}'")).collect();
        let more = if fl.len() > 3 { format!(" and {} more", fl.len() - 3) } else { String::new() };
        errs.add(
            "elements",
            format!(
                "node '{}' needs an element of kind \"aal5\": {} {}{more} {} a cell link to or from it, and without \
                 AAL5 packets do not become cells there (nor cells addressed to it packets again), so they go nowhere",
                names[v as usize],
                if fl.len() == 1 { "flow" } else { "flows" },
                shown.join(", "),
                if fl.len() == 1 { "crosses" } else { "cross" }
            ),
        );
    }
}
