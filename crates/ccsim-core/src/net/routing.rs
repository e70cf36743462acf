//! Static shortest-path routing ([`Routes`]: BFS over hop counts, ties to the lowest-numbered
//! link direction, memory linear in the hosts) and multicast trees (the union of the
//! unicast paths from a group's sender to its receivers).

use super::link::{CUT_BY_ROUTE, CUT_TO_HOST};
use super::{Network, NO_ROUTE};
use std::collections::VecDeque;

/// [`MulticastTree::next`] of a node where the tree branches.
pub const BRANCH: u32 = NO_ROUTE - 1;

/// Static shortest-path routes by hop count, in memory linear in the nodes for the usual
/// shapes: a *leaf* (a node with one link out and one link in, from the same neighbour: a
/// host) is reached through its neighbour, so only the other (*core*) nodes need a full
/// table, `core × core`. A dumbbell of 10⁵ hosts has two core nodes.
///
/// The routes are exactly those of a breadth-first search from every destination over
/// reversed links, ties to the lowest-numbered link direction (deterministic): a leaf never
/// relays, so the search from a leaf is the one from its neighbour, one hop longer, and
/// leaves found on the way change the order in which no other node is found.
#[derive(Clone, Debug, Default)]
pub struct Routes {
    n: usize,
    /// Per node: its one outgoing link, if it has exactly one.
    pub(super) sole: Vec<u32>,
    /// Per node as a sender: its row in `table` (`core index · core_n`; unused for a leaf).
    row: Vec<u32>,
    /// Per node as a destination: (its neighbour if it is a leaf, else [`NO_ROUTE`]; the
    /// link from that neighbour to it; the column in `table` of it or its neighbour).
    dst: Vec<[u32; 3]>,
    core_n: usize,
    /// `table[row(node) + column(dst)]` between core nodes.
    table: Vec<u32>,
}

impl Routes {
    /// Routes over `n` nodes and link directions `(from, to)`.
    pub fn new(n: usize, links: &[(u32, u32)]) -> Self {
        let (mut outs, mut ins) = (vec![0u32; n], vec![0u32; n]);
        let mut sole = vec![NO_ROUTE; n];
        let mut only_in = vec![NO_ROUTE; n];
        for (i, &(a, b)) in links.iter().enumerate() {
            outs[a as usize] += 1;
            ins[b as usize] += 1;
            sole[a as usize] = i as u32;
            only_in[b as usize] = i as u32;
        }
        let mut attach = vec![NO_ROUTE; n];
        let mut down = vec![NO_ROUTE; n];
        for v in 0..n {
            if outs[v] != 1 {
                sole[v] = NO_ROUTE;
                continue;
            }
            let (up, dn) = (sole[v], only_in[v]);
            let neighbour = links[up as usize].1;
            if ins[v] == 1 && links[dn as usize].0 == neighbour && neighbour as usize != v {
                attach[v] = neighbour;
                down[v] = dn;
            }
        }
        // A neighbour that is itself a leaf (two hosts joined by one link): both are core.
        for v in 0..n {
            let a = attach[v];
            if a != NO_ROUTE && attach[a as usize] != NO_ROUTE {
                attach[v] = NO_ROUTE;
                attach[a as usize] = NO_ROUTE;
            }
        }
        let mut core_ix = vec![NO_ROUTE; n];
        let mut core_nodes = Vec::new();
        for v in 0..n {
            if attach[v] == NO_ROUTE {
                core_ix[v] = core_nodes.len() as u32;
                core_nodes.push(v as u32);
            }
        }
        let core_n = core_nodes.len();
        // BFS from every core destination over reversed links between core nodes, in link
        // index order.
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); core_n];
        for (i, &(a, b)) in links.iter().enumerate() {
            let (ca, cb) = (core_ix[a as usize], core_ix[b as usize]);
            if ca != NO_ROUTE && cb != NO_ROUTE {
                incoming[cb as usize].push(i as u32);
            }
        }
        let mut table = vec![NO_ROUTE; core_n * core_n];
        let mut dist = vec![u32::MAX; core_n];
        let mut queue = VecDeque::new();
        for dst in 0..core_n {
            dist.iter_mut().for_each(|d| *d = u32::MAX);
            dist[dst] = 0;
            queue.clear();
            queue.push_back(dst);
            while let Some(v) = queue.pop_front() {
                for &li in &incoming[v] {
                    let u = core_ix[links[li as usize].0 as usize] as usize;
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v] + 1;
                        table[u * core_n + dst] = li;
                        queue.push_back(u);
                    }
                }
            }
        }
        let row = (0..n).map(|v| if core_ix[v] == NO_ROUTE { 0 } else { core_ix[v] * core_n as u32 }).collect();
        let dst = (0..n)
            .map(|v| {
                let col = if attach[v] == NO_ROUTE { core_ix[v] } else { core_ix[attach[v] as usize] };
                [attach[v], down[v], col]
            })
            .collect();
        Routes { n, sole, row, dst, core_n, table }
    }

    /// The link direction `node` uses towards node `dst` ([`NO_ROUTE`]: none, or `node == dst`).
    /// A node with one link out answers that link for any other destination, reachable or
    /// not (the scenario's validation refuses flows without a route).
    #[inline(always)]
    pub fn next(&self, node: u32, dst: u32) -> u32 {
        if node == dst {
            return NO_ROUTE;
        }
        let sole = self.sole[node as usize];
        if sole != NO_ROUTE {
            return sole;
        }
        let [attach, down, col] = self.dst[dst as usize];
        if attach == node {
            return down;
        }
        self.table[(self.row[node as usize] + col) as usize]
    }

    /// The link direction into `dst` from the node it hangs off, if `dst` is a leaf (a
    /// host), else [`NO_ROUTE`].
    #[inline]
    pub fn last_hop(&self, dst: u32) -> u32 {
        self.dst.get(dst as usize).map_or(NO_ROUTE, |d| d[1])
    }

    /// Nodes.
    pub fn nodes(&self) -> usize {
        self.n
    }

    /// Nodes with a full routing table (not leaves).
    pub fn core_nodes(&self) -> usize {
        self.core_n
    }
}

/// A multicast group's tree: the union of the unicast paths from its sender to each
/// receiver.
#[derive(Clone, Debug, Default)]
pub struct MulticastTree {
    /// Per node: the one link the tree continues on, [`NO_ROUTE`] (not on the tree, or a
    /// leaf), or [`BRANCH`] (several: see `children`).
    pub next: Vec<u32>,
    /// Per node: the tree's links leaving it (in index order).
    pub children: Vec<Vec<u32>>,
    /// The receivers' nodes, sorted.
    pub members: Vec<u32>,
}

impl MulticastTree {
    /// The tree from `sender` to `receivers` over `routes`; `None` if a receiver is
    /// unreachable.
    pub fn new(routes: &Routes, links: &[(u32, u32)], sender: u32, receivers: &[u32]) -> Option<Self> {
        let n = routes.nodes();
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
        for &r in receivers {
            let mut at = sender;
            let mut hops = 0;
            while at != r {
                let l = routes.next(at, r);
                if l == NO_ROUTE || hops > n {
                    return None;
                }
                if !children[at as usize].contains(&l) {
                    children[at as usize].push(l);
                }
                at = links[l as usize].1;
                hops += 1;
            }
        }
        let next = children
            .iter_mut()
            .map(|c| {
                c.sort_unstable();
                match c.len() {
                    0 => NO_ROUTE,
                    1 => c[0],
                    _ => BRANCH,
                }
            })
            .collect();
        let mut members = receivers.to_vec();
        members.sort_unstable();
        Some(MulticastTree { next, children, members })
    }

    /// Nodes where the tree branches (packets must be replicated there).
    pub fn branch_nodes(&self) -> Vec<u32> {
        (0..self.next.len() as u32).filter(|&v| self.next[v as usize] == BRANCH).collect()
    }

    /// Whether `node` is one of the group's receivers.
    #[inline]
    pub fn is_member(&self, node: u32) -> bool {
        self.members.binary_search(&node).is_ok()
    }
}

impl Network {
    /// Shortest paths by hop count (see [`Routes`]).
    pub(super) fn compute_routes(&mut self) {
        let ends: Vec<(u32, u32)> = self.links.iter().map(|l| (l.from, l.to)).collect();
        self.routes = Routes::new(self.nodes.len(), &ends);
    }

    /// The link direction `node` uses towards `dst`: a node, or a multicast group address
    /// (`nodes + group`; [`NO_ROUTE`] off the tree or at a leaf, [`BRANCH`] where it
    /// branches).
    #[inline(always)]
    pub fn route(&self, node: u32, dst: u32) -> u32 {
        let n = self.nodes.len();
        if dst as usize >= n {
            return self.groups[dst as usize - n].next[node as usize];
        }
        self.routes.next(node, dst)
    }

    /// Hint: the link direction into host `dst` (where a packet for it will be cut
    /// through to), brought into the cache.
    #[inline(always)]
    pub fn prefetch_last_hop(&self, dst: u32) {
        if let Some(l) = self.links.get(self.routes.last_hop(dst) as usize) {
            crate::prefetch::lines(l, super::link::IDLE_CROSSING_LINES);
        }
    }

    /// Hint: the routing entry [`Network::prefetch_last_hop`] reads for `dst`, brought
    /// into the cache.
    #[inline(always)]
    pub fn prefetch_last_hop_entry(&self, dst: u32) {
        if let Some(e) = self.routes.dst.get(dst as usize) {
            crate::prefetch::lines(e, 1);
        }
    }

    /// Hint: the routing entry [`Network::prefetch_out_of`] reads for `node`, brought
    /// into the cache.
    #[inline(always)]
    pub fn prefetch_route_of(&self, node: u32) {
        if let Some(e) = self.routes.sole.get(node as usize) {
            crate::prefetch::lines(e, 1);
        }
    }

    /// Hint: the only link direction out of `node`, if it has one (a host's), brought
    /// into the cache.
    #[inline(always)]
    pub fn prefetch_out_of(&self, node: u32) {
        let out = self.routes.sole.get(node as usize).copied().unwrap_or(NO_ROUTE);
        if let Some(l) = self.links.get(out as usize) {
            crate::prefetch::lines(l, super::link::IDLE_CROSSING_LINES);
        }
    }

    /// Adds a multicast group (its tree, see [`MulticastTree::new`]) and returns its
    /// address; `None` if a receiver is unreachable.
    pub fn add_group(&mut self, sender: u32, receivers: &[u32]) -> Option<u32> {
        let ends: Vec<(u32, u32)> = self.links.iter().map(|l| (l.from, l.to)).collect();
        let tree = MulticastTree::new(&self.routes, &ends, sender, receivers)?;
        // A cut-through hop decided at set-up (`LinkDir::cut_next`) is the unicast routes'
        // next hop; a group's packet on a tree link goes where the tree says, which differs
        // at a receiver that other routes pass through (the packet ends there): such links
        // look the hop up.
        for &l in tree.children.iter().flatten() {
            let link = &mut self.links[l as usize];
            if link.cut_next < CUT_TO_HOST && tree.next[link.to as usize] != link.cut_next {
                link.cut_next = CUT_BY_ROUTE;
                link.send_fast = link.feeds_router_alone();
            }
        }
        self.groups.push(tree);
        Some((self.nodes.len() + self.groups.len() - 1) as u32)
    }

    /// The tree of group address `dst`, if `dst` is one.
    #[inline]
    pub fn group(&self, dst: u32) -> Option<&MulticastTree> {
        (dst as usize).checked_sub(self.nodes.len()).and_then(|g| self.groups.get(g))
    }

    /// Whether a packet addressed to `dst` is delivered at `node`: its own address, or a
    /// group `node` receives.
    #[inline]
    pub fn delivers_at(&self, node: u32, dst: u32) -> bool {
        dst == node || self.group(dst).is_some_and(|g| g.is_member(node))
    }

    /// Hop-by-hop path from `src` to `dst` (link direction indices), if connected.
    pub fn path(&self, src: u32, dst: u32) -> Option<Vec<u32>> {
        let mut path = Vec::new();
        self.path_into(src, dst, |l| self.links[l as usize].to, &mut path).then_some(path)
    }

    /// [`Network::path`] into `path` (cleared first), each direction's far node given by
    /// `to`; false if `src` and `dst` are not connected. The set-up walks a path per flow
    /// end with a compact table of far nodes: read from the link directions themselves
    /// (448 bytes apart, 18 MB at 10 000 flows), every hop missed the cache.
    pub(super) fn path_into(&self, src: u32, dst: u32, to: impl Fn(u32) -> u32, path: &mut Vec<u32>) -> bool {
        path.clear();
        let mut at = src;
        while at != dst {
            let l = self.route(at, dst);
            if l == NO_ROUTE || path.len() > self.nodes.len() {
                return false;
            }
            path.push(l);
            at = to(l);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Rng};

    /// The plain all-pairs table: BFS from every destination over reversed links.
    fn all_pairs(n: usize, links: &[(u32, u32)]) -> Vec<u32> {
        let mut next = vec![NO_ROUTE; n * n];
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, &(_, b)) in links.iter().enumerate() {
            incoming[b as usize].push(i as u32);
        }
        for dst in 0..n {
            let mut dist = vec![u32::MAX; n];
            dist[dst] = 0;
            let mut q = VecDeque::from([dst]);
            while let Some(v) = q.pop_front() {
                for &li in &incoming[v] {
                    let u = links[li as usize].0 as usize;
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v] + 1;
                        next[u * n + dst] = li;
                        q.push_back(u);
                    }
                }
            }
        }
        next
    }

    /// Random topologies (meshes of routers with hosts hanging off them, host pairs, a
    /// disconnected part): the compressed routes equal the full table everywhere.
    #[test]
    fn compressed_routes_equal_the_full_table() {
        let mut rng = stream(4, "routes");
        for _ in 0..200 {
            let routers = rng.gen_range(1..8u32);
            let hosts = rng.gen_range(0..12u32);
            let n = (routers + hosts + 2) as usize;
            let mut links = Vec::new();
            let duplex = |a: u32, b: u32, links: &mut Vec<(u32, u32)>| {
                links.push((a, b));
                links.push((b, a));
            };
            for r in 1..routers {
                duplex(rng.gen_range(0..r), r, &mut links);
                if rng.gen_bool(0.3) {
                    duplex(rng.gen_range(0..routers), r, &mut links);
                }
            }
            for h in 0..hosts {
                duplex(rng.gen_range(0..routers), routers + h, &mut links);
                if rng.gen_bool(0.1) {
                    duplex(rng.gen_range(0..routers), routers + h, &mut links);
                }
            }
            // Two hosts joined only to each other, apart from the rest.
            duplex(routers + hosts, routers + hosts + 1, &mut links);
            let r = Routes::new(n, &links);
            let full = all_pairs(n, &links);
            for a in 0..n as u32 {
                for b in 0..n as u32 {
                    let want = if a == b { NO_ROUTE } else { full[a as usize * n + b as usize] };
                    let got = r.next(a, b);
                    // A one-link node answers its link even where no route exists.
                    let shortcut = want == NO_ROUTE && a != b && got == r.sole[a as usize];
                    assert!(got == want || shortcut, "{a} -> {b}: {got} against {want} in {links:?}");
                }
            }
        }
    }

    #[test]
    fn a_dumbbell_of_many_hosts_keeps_a_two_node_table() {
        let hosts = 100_000u32;
        let mut links = vec![(0, 1), (1, 0)];
        for h in 0..hosts {
            let (host, router) = (2 + h, h % 2);
            links.push((host, router));
            links.push((router, host));
        }
        let r = Routes::new(2 + hosts as usize, &links);
        assert_eq!(r.core_nodes(), 2);
        assert_eq!(r.next(2, 3), links.iter().position(|&l| l == (2, 0)).unwrap() as u32);
        assert_eq!(r.next(0, 3), 0);
        assert_eq!(r.next(1, 3), links.iter().position(|&l| l == (1, 3)).unwrap() as u32);
    }

    /// s - a - b - {c, d}; a - e: the tree from s to c, d, e branches at a and b.
    #[test]
    fn a_tree_is_the_union_of_the_paths_and_branches_where_they_part() {
        let names = ["s", "a", "b", "c", "d", "e"];
        let mut links = Vec::new();
        for (x, y) in [(0, 1), (1, 2), (2, 3), (2, 4), (1, 5)] {
            links.push((x, y));
            links.push((y, x));
        }
        let t = MulticastTree::new(&Routes::new(names.len(), &links), &links, 0, &[3, 4, 5]).unwrap();
        assert_eq!(t.branch_nodes(), vec![1, 2]);
        assert_eq!(t.next[0], 0); // s -> a
        assert_eq!(t.children[1], vec![2, 8]); // a -> b, a -> e
        assert_eq!(t.children[2], vec![4, 6]); // b -> c, b -> d
        assert_eq!(t.next[3], NO_ROUTE);
        assert!(t.is_member(5) && !t.is_member(1));
        // A receiver in another component: no tree.
        assert!(MulticastTree::new(&Routes::new(7, &links), &links, 0, &[6]).is_none());
    }
}
