//! Static shortest-path routing: a next-hop table by BFS over hop counts, ties to the
//! lowest-numbered link direction (deterministic), the host shortcut, and multicast trees
//! (the union of the unicast paths from a group's sender to its receivers).

use super::{Network, NO_ROUTE};
use std::collections::VecDeque;

/// [`MulticastTree::next`] of a node where the tree branches.
pub const BRANCH: u32 = NO_ROUTE - 1;

/// Shortest paths by hop count over `n` nodes and link directions `(from, to)`: the
/// table `next_hop[node * n + dst]` (BFS from every destination over reversed links; ties
/// go to the lowest-numbered link direction, so routes are deterministic).
pub fn next_hops(n: usize, links: &[(u32, u32)]) -> Vec<u32> {
    let mut next_hop = vec![NO_ROUTE; n * n];
    // incoming[v] = link dirs ending at v, in index order.
    let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (i, &(_, to)) in links.iter().enumerate() {
        incoming[to as usize].push(i as u32);
    }
    let mut dist = vec![u32::MAX; n];
    let mut queue = VecDeque::new();
    for dst in 0..n {
        dist.iter_mut().for_each(|d| *d = u32::MAX);
        dist[dst] = 0;
        queue.clear();
        queue.push_back(dst);
        while let Some(v) = queue.pop_front() {
            for &li in &incoming[v] {
                let u = links[li as usize].0 as usize;
                if dist[u] == u32::MAX {
                    dist[u] = dist[v] + 1;
                    next_hop[u * n + dst] = li;
                    queue.push_back(u);
                }
            }
        }
    }
    next_hop
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
    /// The tree from `sender` to `receivers` over the routes of `next_hop` (see
    /// [`next_hops`]); `None` if a receiver is unreachable.
    pub fn new(n: usize, next_hop: &[u32], links: &[(u32, u32)], sender: u32, receivers: &[u32]) -> Option<Self> {
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
        for &r in receivers {
            let mut at = sender;
            let mut hops = 0;
            while at != r {
                let l = next_hop[at as usize * n + r as usize];
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
    /// Shortest paths by hop count (see [`next_hops`]).
    pub(super) fn compute_routes(&mut self) {
        let ends: Vec<(u32, u32)> = self.links.iter().map(|l| (l.from, l.to)).collect();
        self.next_hop = next_hops(self.nodes.len(), &ends);
    }

    /// The link direction `node` uses towards `dst`: a node, or a multicast group address
    /// (`nodes + group`; [`NO_ROUTE`] off the tree or at a leaf, [`BRANCH`] where it
    /// branches).
    #[inline]
    pub fn route(&self, node: u32, dst: u32) -> u32 {
        let n = self.nodes.len();
        if dst as usize >= n {
            return self.groups[dst as usize - n].next[node as usize];
        }
        let sole = self.sole_link[node as usize];
        if sole != NO_ROUTE && node != dst {
            return sole;
        }
        self.next_hop[node as usize * n + dst as usize]
    }

    /// Adds a multicast group (its tree, see [`MulticastTree::new`]) and returns its
    /// address; `None` if a receiver is unreachable.
    pub fn add_group(&mut self, sender: u32, receivers: &[u32]) -> Option<u32> {
        let ends: Vec<(u32, u32)> = self.links.iter().map(|l| (l.from, l.to)).collect();
        let tree = MulticastTree::new(self.nodes.len(), &self.next_hop, &ends, sender, receivers)?;
        self.groups.push(tree);
        Some((self.nodes.len() + self.groups.len() - 1) as u32)
    }

    /// The tree of group address `dst`, if `dst` is one.
    #[inline]
    pub fn group(&self, dst: u32) -> Option<&MulticastTree> {
        (dst as usize).checked_sub(self.nodes.len()).and_then(|g| self.groups.get(g))
    }

    /// Hop-by-hop path from `src` to `dst` (link direction indices), if connected.
    pub fn path(&self, src: u32, dst: u32) -> Option<Vec<u32>> {
        let mut path = Vec::new();
        let mut at = src;
        while at != dst {
            let l = self.route(at, dst);
            if l == NO_ROUTE || path.len() > self.nodes.len() {
                return None;
            }
            path.push(l);
            at = self.links[l as usize].to;
        }
        Some(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// s - a - b - {c, d}; a - e: the tree from s to c, d, e branches at a and b.
    #[test]
    fn a_tree_is_the_union_of_the_paths_and_branches_where_they_part() {
        let names = ["s", "a", "b", "c", "d", "e"];
        let mut links = Vec::new();
        for (x, y) in [(0, 1), (1, 2), (2, 3), (2, 4), (1, 5)] {
            links.push((x, y));
            links.push((y, x));
        }
        let nh = next_hops(names.len(), &links);
        let t = MulticastTree::new(names.len(), &nh, &links, 0, &[3, 4, 5]).unwrap();
        assert_eq!(t.branch_nodes(), vec![1, 2]);
        assert_eq!(t.next[0], 0); // s -> a
        assert_eq!(t.children[1], vec![2, 8]); // a -> b, a -> e
        assert_eq!(t.children[2], vec![4, 6]); // b -> c, b -> d
        assert_eq!(t.next[3], NO_ROUTE);
        assert!(t.is_member(5) && !t.is_member(1));
        // A receiver in another component: no tree.
        assert!(MulticastTree::new(7, &next_hops(7, &links), &links, 0, &[6]).is_none());
    }
}
