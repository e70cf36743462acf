//! The fast paths' set-up and their event handlers: which directions run event-free and
//! cut through, batch routers (`NodeArrive`), and the hand-over of packets to hosts that
//! take them ahead of the clock.

use super::lazy::LazyFifo;
use super::link::{CUT_BY_ROUTE, CUT_TO_HOST};
use super::router::BatchRouter;
use super::{Network, NO_ROUTE};
use crate::engine::{Event, Scheduler};
use crate::packet::PktId;
use crate::units::Time;

/// In the set-up's per-direction tables: nothing seen yet.
const UNUSED: u32 = NO_ROUTE - 2;

impl Network {
    /// Turns on the event-free paths (see `net/lazy.rs`): every direction with a plain FIFO
    /// queue becomes lazy, unless it is captured to pcap, logs its drops or packets, or has its loss
    /// model's state traced (`traced`: directions with a queue trace); then cut-through is
    /// enabled where a lazy direction is the only feeder of the next one. `endpoints` are
    /// the flows' (source, sink) nodes: packets travel only between a flow's two ends,
    /// both ways, along the routes (a group's packets along its tree, and
    /// [`Network::add_group`] adjusts the cut-through hops decided here to it). A node
    /// element that sent a packet off those routes could be cut through to a wrong next
    /// hop: the built-in elements do not (cells keep their frame's address; replicators
    /// send on the group's branches).
    pub fn enable_fast_paths(&mut self, endpoints: &[(u32, u32)], traced: &[u32], elem_node: &[bool]) {
        debug_assert!(self.groups.is_empty(), "groups are added after the fast paths (see add_group)");
        for (i, l) in self.links.iter_mut().enumerate() {
            let loss_traced = l.loss.is_some() && traced.contains(&(i as u32));
            let logged = l.capture.is_some() || l.drop_log.is_some() || l.packet_log.is_some();
            // Elements read and change the queues of their node's links: real queues.
            let at_elements = elem_node[l.from as usize];
            if let (Some(limit), false) = (l.queue.fifo_limit(), loss_traced || logged || at_elements) {
                debug_assert_eq!(l.queue.len_pkts(), 0);
                l.lazy = Some(LazyFifo::new(limit));
            }
        }
        // Per direction, its only feeder and its only next hop over every route (UNUSED:
        // none seen; NO_ROUTE: more than one).
        let mut feeder = vec![UNUSED; self.links.len()];
        let mut next = vec![UNUSED; self.links.len()];
        // Per direction, whether each of its next hops is the last one, into its route's
        // destination host; and those (direction, last hop) pairs.
        let mut to_hosts = vec![true; self.links.len()];
        let mut last_hops = Vec::new();
        let only = |slot: &mut u32, x: u32| *slot = if *slot == UNUSED || *slot == x { x } else { NO_ROUTE };
        let far: Vec<u32> = self.links.iter().map(|l| l.to).collect();
        let mut path = Vec::new();
        for &(a, b) in endpoints {
            for (s, d) in [(a, b), (b, a)] {
                if !self.path_into(s, d, |l| far[l as usize], &mut path) {
                    continue;
                }
                for (i, &l) in path.iter().enumerate() {
                    // The first hop is fed by the node itself: never cut through to it.
                    only(&mut feeder[l as usize], if i == 0 { NO_ROUTE } else { path[i - 1] });
                    if let Some(&n) = path.get(i + 1) {
                        only(&mut next[l as usize], n);
                        if i + 2 == path.len() && self.routes.last_hop(d) == n {
                            last_hops.push((l, n));
                        } else {
                            to_hosts[l as usize] = false;
                        }
                    }
                }
            }
        }
        for (o, &f) in feeder.iter().enumerate() {
            let single = f != UNUSED && f != NO_ROUTE;
            if single && self.links[o].lazy.is_some() && self.links[f as usize].lazy.is_some() {
                self.fed_by[o] = f;
                // Every packet of `f` not addressed to its far node goes on to `o` when `o`
                // is `f`'s only next hop; otherwise the route says.
                self.links[f as usize].cut_next = if next[f as usize] == o as u32 { o as u32 } else { CUT_BY_ROUTE };
            }
        }
        // Where every next hop is the last one into a host, fed by this direction alone, the
        // next hop is the destination's link from its router: no route or feeder to read.
        for &(f, o) in &last_hops {
            to_hosts[f as usize] &= self.fed_by[o as usize] == f;
        }
        for (l, &h) in self.links.iter_mut().zip(&to_hosts) {
            if h && l.cut_next == CUT_BY_ROUTE {
                l.cut_next = CUT_TO_HOST;
            }
        }
        // Batch routers: no flow ends there, every link in and out is lazy, and every
        // incoming link has a delay (the look-ahead).
        let n = self.nodes.len();
        let mut endpoint = vec![false; n];
        for &(a, b) in endpoints {
            endpoint[a as usize] = true;
            endpoint[b as usize] = true;
        }
        let mut ok = vec![true; n];
        let mut look = vec![Time::MAX; n];
        for l in &self.links {
            let lazy = l.lazy.is_some();
            ok[l.from as usize] &= lazy;
            ok[l.to as usize] &= lazy && l.delay > 0;
            look[l.to as usize] = look[l.to as usize].min(l.delay);
        }
        for v in 0..n {
            let ins = self.in_links.of(v as u32);
            if ok[v] && !endpoint[v] && !ins.is_empty() {
                self.router_of[v] = self.routers.len() as u32;
                let ins = ins.to_vec();
                for &l in &ins {
                    self.links[l as usize].far_router = self.routers.len() as u32;
                }
                let mut r = BatchRouter::new(v as u32, ins, look[v], self.inbox_policy);
                r.out = self.router_out(&r.ins, &next);
                self.routers.push(r);
            }
        }
        for l in &mut self.links {
            l.send_fast = l.feeds_router_alone();
        }
    }

    /// The one link direction by which every packet a batch router takes (one not cut
    /// through past it) leaves, given its incoming directions `ins` and each direction's
    /// only next hop over the routes (`next`: [`NO_ROUTE`] for several); [`NO_ROUTE`] if
    /// they leave by several, or if that is not known.
    fn router_out(&self, ins: &[u32], next: &[u32]) -> u32 {
        let mut out = NO_ROUTE;
        for &f in ins {
            let n = next[f as usize];
            // No route goes on past the router, or every packet is cut through past it (to
            // its destination's host, or to `n`, fed by `f` alone).
            if n == UNUSED || self.links[f as usize].cut_next == CUT_TO_HOST || (n != NO_ROUTE && self.fed_by[n as usize] == f) {
                continue;
            }
            // Several next hops (some of which the router may take), or another than the
            // other links' packets.
            if n == NO_ROUTE || (out != NO_ROUTE && out != n) {
                return NO_ROUTE;
            }
            out = n;
        }
        out
    }

    /// See `Network::read_horizon` (private): no queue statistics are read before `t`.
    pub fn set_read_horizon(&mut self, t: Time) {
        self.read_horizon = t;
    }

    /// Lets node `v`'s agent, flow end `agent`, take packets ahead of the clock. Its only
    /// incoming and outgoing directions must be lazy (checked by the caller); the incoming
    /// one keeps the end for the hand-overs.
    pub(crate) fn set_early_node(&mut self, v: u32, agent: super::link::FarAgent) {
        for &l in self.in_links.of(v) {
            self.links[l as usize].far_early = true;
            self.links[l as usize].far_agent = agent;
        }
    }

    /// The only incoming and outgoing directions of node `v`, if both are lazy.
    pub fn lazy_host_links(&self, v: u32) -> Option<(u32, u32)> {
        let out = self.routes.sole[v as usize];
        if out == NO_ROUTE || self.links[out as usize].lazy.is_none() {
            return None;
        }
        match self.in_links.of(v) {
            &[i] if self.links[i as usize].lazy.is_some() => Some((i, out)),
            _ => None,
        }
    }

    /// Packets on `ld`'s propagation line (still to arrive by event), oldest first.
    #[inline]
    pub fn in_flight_front(&self, ld: u32) -> Option<(Time, u64, PktId, Time)> {
        self.links[ld as usize].in_flight.front().copied()
    }

    /// Takes the head of `ld`'s line to hand it over ahead of its event: the first call
    /// for a line makes its pending `LinkArrive` event void (`first`).
    #[inline]
    pub fn take_in_flight(&mut self, ld: u32, first: bool) -> Option<(Time, u64, PktId, Time)> {
        let link = &mut self.links[ld as usize];
        if first {
            link.void_arrivals += 1;
        }
        link.in_flight.pop_front()
    }

    /// After [`Network::take_in_flight`] stopped with packets left: the new head's event.
    pub fn rearm_in_flight(&mut self, ld: u32, sched: &mut Scheduler) {
        if let Some(&(at, seq, _, _)) = self.links[ld as usize].in_flight.front() {
            sched.at_with_seq(at, seq, Event::LinkArrive { link: ld });
        }
    }

    /// Puts a packet of [`Network::early`] back on the event path: it arrives by a
    /// `LinkArrive` event at `at`, as it would have without the early hand-over.
    #[inline]
    pub fn arrive_later(&mut self, ld: u32, at: Time, seq: u64, id: PktId, start: Time, sched: &mut Scheduler) {
        let link = &mut self.links[ld as usize];
        if link.in_flight.is_empty() {
            sched.at_with_seq(at, seq, Event::LinkArrive { link: ld });
        }
        link.in_flight.push_back((at, seq, id, start));
    }
}

#[cfg(test)]
mod tests {
    use super::super::{LinkDir, Node};
    use super::*;
    use crate::queue::{DropTail, Limit};

    /// `n` nodes joined by the duplex links `ends`, with plain FIFO queues.
    fn network(n: u32, ends: &[(u32, u32)]) -> Network {
        let nodes = (0..n).map(|i| Node { name: format!("n{i}") }).collect();
        let links = ends
            .iter()
            .flat_map(|&(a, b)| [(a, b), (b, a)])
            .enumerate()
            .map(|(i, (a, b))| LinkDir::new(i % 2 == 0, a, b, 1_000_000, 1_000, Box::new(DropTail::new(Limit::Packets(10))), None))
            .collect();
        Network::new(nodes, links)
    }

    /// [`LinkDir::cut_next`] of direction `a -> b`.
    fn cut(net: &Network, a: u32, b: u32) -> u32 {
        net.links[dir(net, a, b) as usize].cut_next
    }

    /// [`BatchRouter::out`] of the router at node `v`.
    fn out(net: &Network, v: u32) -> u32 {
        net.routers[net.router_of[v as usize] as usize].out
    }

    /// The index of direction `a -> b`.
    fn dir(net: &Network, a: u32, b: u32) -> u32 {
        net.links.iter().position(|l| (l.from, l.to) == (a, b)).unwrap() as u32
    }

    /// One flow: every hop goes on to the same next one; two flows sharing a bottleneck: the
    /// hop after it is the link into the packet's destination; a router where some routes
    /// end and others go on, or where a last hop is fed by another direction too: the
    /// route is looked up. A batch router whose packets all leave by one link knows it.
    #[test]
    fn cut_through_is_precomputed_where_every_route_goes_on_alike() {
        // Routers 0 and 1; hosts 2, 3 (senders, on 0) and 4, 5 (receivers, on 1).
        let dumbbell = [(0, 1), (2, 0), (3, 0), (1, 4), (1, 5)];
        let mut net = network(6, &dumbbell);
        net.enable_fast_paths(&[(2, 4)], &[], &[false; 6]);
        assert_eq!(cut(&net, 2, 0), dir(&net, 0, 1));
        assert_eq!(cut(&net, 0, 1), dir(&net, 1, 4));
        assert_eq!(cut(&net, 4, 1), dir(&net, 1, 0));
        assert_eq!(cut(&net, 1, 0), dir(&net, 0, 2));
        // The last hops feed no further direction.
        assert_eq!((cut(&net, 1, 4), cut(&net, 0, 2)), (NO_ROUTE, NO_ROUTE));

        let mut net = network(6, &dumbbell);
        net.enable_fast_paths(&[(2, 4), (3, 5)], &[], &[false; 6]);
        // Two access links share the bottleneck: no cut-through to it, either way.
        assert_eq!((cut(&net, 2, 0), cut(&net, 4, 1)), (NO_ROUTE, NO_ROUTE));
        // Past the bottleneck, each receiver's link is fed by it alone.
        assert_eq!((cut(&net, 0, 1), cut(&net, 1, 0)), (CUT_TO_HOST, CUT_TO_HOST));
        // So each router takes only what goes over the bottleneck: it leaves by one link.
        assert_eq!((out(&net, 0), out(&net, 1)), (dir(&net, 0, 1), dir(&net, 1, 0)));

        // A node element at the far end makes the next link a real queue: no cut-through.
        let mut net = network(6, &dumbbell);
        let mut elements = [false; 6];
        elements[1] = true;
        net.enable_fast_paths(&[(2, 4)], &[], &elements);
        assert_eq!((cut(&net, 0, 1), cut(&net, 2, 0)), (NO_ROUTE, dir(&net, 0, 1)));

        // A line of routers 0 - 1 - 2, sender 3 on 0, receivers 4 on 1 and 5 on 2: past
        // 0 -> 1 some routes end one hop further and one goes on to router 2.
        let mut net = network(6, &[(0, 1), (1, 2), (3, 0), (1, 4), (2, 5)]);
        net.enable_fast_paths(&[(3, 4), (3, 5)], &[], &[false; 6]);
        assert_eq!(cut(&net, 0, 1), CUT_BY_ROUTE);
        assert_eq!(cut(&net, 1, 2), dir(&net, 2, 5));
        // Router 1 takes only the ACKs (towards 0), but the set-up does not know that the
        // packets of 0 -> 1, with two next hops, are all cut through: it looks the route up
        // (router 2 takes none: both ways are cut through past it).
        assert_eq!((out(&net, 1), out(&net, 2)), (NO_ROUTE, NO_ROUTE));
        // Back: router 1 takes the ACKs of both receivers to router 0, then to the sender.
        assert_eq!((cut(&net, 2, 1), cut(&net, 1, 0)), (NO_ROUTE, dir(&net, 0, 3)));

        // Routes over 0 -> 1 all end one hop further, but the last hop into 5 is fed by
        // router 6's link as well: the route is looked up (into 4 it is cut through, into
        // 5 not).
        let mut net = network(8, &[(0, 1), (2, 0), (1, 4), (1, 5), (6, 1), (7, 6)]);
        net.enable_fast_paths(&[(2, 4), (2, 5), (7, 5)], &[], &[false; 8]);
        assert_eq!(cut(&net, 0, 1), CUT_BY_ROUTE);
        assert_eq!(net.fed_by[dir(&net, 1, 4) as usize], dir(&net, 0, 1));
        assert_eq!(net.fed_by[dir(&net, 1, 5) as usize], NO_ROUTE);

        // Routers 0 and 1; hosts 2, 3, 5, 6, 7, 8 on router 1, hosts 4, 9, 10 on router 0.
        // Router 1 takes packets from 5 (out by 1 -> 0) and from 2 (out by 1 -> 7, which 8
        // feeds too): two ways out, so it looks the route up.
        let mut ends = vec![(0, 1)];
        ends.extend([2, 3, 5, 6, 7, 8].map(|h| (h, 1)));
        ends.extend([4, 9, 10].map(|h| (h, 0)));
        let mut net = network(11, &ends);
        net.enable_fast_paths(&[(7, 2), (5, 4), (8, 7), (6, 9)], &[], &[false; 11]);
        assert_eq!(out(&net, 1), NO_ROUTE);
    }

    /// A node's send takes `send_lazy`'s short path only on a direction into a batch
    /// router's line with nothing cut through past it: the access links of a shared
    /// bottleneck, not those of a lone flow (cut through to the bottleneck), not the
    /// bottleneck's (cut through to the hosts), not the last hops (into hosts).
    #[test]
    fn short_sends_only_into_a_routers_line() {
        let dumbbell = [(0, 1), (2, 0), (3, 0), (1, 4), (1, 5)];
        let fast = |net: &Network, a: u32, b: u32| net.links[dir(net, a, b) as usize].send_fast;
        let mut net = network(6, &dumbbell);
        net.enable_fast_paths(&[(2, 4), (3, 5)], &[], &[false; 6]);
        assert!(fast(&net, 2, 0) && fast(&net, 3, 0) && fast(&net, 4, 1) && fast(&net, 5, 1));
        assert!(!fast(&net, 0, 1) && !fast(&net, 1, 0) && !fast(&net, 1, 4) && !fast(&net, 0, 2));
        for l in &net.links {
            assert_eq!(l.send_fast, l.feeds_router_alone());
        }

        let mut net = network(6, &dumbbell);
        net.enable_fast_paths(&[(2, 4)], &[], &[false; 6]);
        // One flow: its access links are cut through to the bottleneck.
        assert!(!fast(&net, 2, 0) && !fast(&net, 4, 1) && !fast(&net, 0, 1) && !fast(&net, 1, 0));
    }
}
