//! Static shortest-path routing: a next-hop table by BFS over hop counts, ties to the
//! lowest-numbered link direction (deterministic), and the host shortcut.

use super::{Network, NO_ROUTE};
use std::collections::VecDeque;

impl Network {
    /// Shortest paths by hop count (BFS from every destination over reversed links).
    /// Ties go to the lowest-numbered link direction, so routes are deterministic.
    pub(super) fn compute_routes(&mut self) {
        let n = self.nodes.len();
        self.next_hop = vec![NO_ROUTE; n * n];
        // incoming[v] = link dirs ending at v, in index order.
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, l) in self.links.iter().enumerate() {
            incoming[l.to as usize].push(i as u32);
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
                    let u = self.links[li as usize].from as usize;
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v] + 1;
                        self.next_hop[u * n + dst] = li;
                        queue.push_back(u);
                    }
                }
            }
        }
    }

    /// The link direction `node` uses towards `dst`.
    #[inline]
    pub fn route(&self, node: u32, dst: u32) -> u32 {
        let sole = self.sole_link[node as usize];
        if sole != NO_ROUTE && node != dst {
            return sole;
        }
        self.next_hop[node as usize * self.nodes.len() + dst as usize]
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
