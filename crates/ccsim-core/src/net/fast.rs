//! The fast paths' set-up and their event handlers: which directions run event-free and
//! cut through, batch routers (`NodeArrive`), and the hand-over of packets to hosts that
//! take them ahead of the clock.

use super::lazy::LazyFifo;
use super::router::BatchRouter;
use super::{Network, NO_ROUTE};
use crate::engine::{Event, Scheduler};
use crate::packet::PktId;
use crate::units::Time;

impl Network {
    /// Turns on the event-free paths (see `net/lazy.rs`): every direction with a plain FIFO
    /// queue becomes lazy, unless it is captured to pcap, logs its drops or packets, or has its loss
    /// model's state traced (`traced`: directions with a queue trace); then cut-through is
    /// enabled where a lazy direction is the only feeder of the next one. `endpoints` are
    /// the flows' (source, sink) nodes: packets travel only between a flow's two ends,
    /// both ways, along the routes.
    pub fn enable_fast_paths(&mut self, endpoints: &[(u32, u32)], traced: &[u32], elem_node: &[bool]) {
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
        const UNUSED: u32 = NO_ROUTE - 1;
        let mut feeder = vec![UNUSED; self.links.len()];
        for &(a, b) in endpoints {
            for (s, d) in [(a, b), (b, a)] {
                let Some(path) = self.path(s, d) else { continue };
                for (i, &l) in path.iter().enumerate() {
                    // The first hop is fed by the node itself: never cut through to it.
                    let f = if i == 0 { NO_ROUTE } else { path[i - 1] };
                    let slot = &mut feeder[l as usize];
                    *slot = if *slot == UNUSED || *slot == f { f } else { NO_ROUTE };
                }
            }
        }
        for (o, &f) in feeder.iter().enumerate() {
            let single = f != UNUSED && f != NO_ROUTE;
            if single && self.links[o].lazy.is_some() && self.links[f as usize].lazy.is_some() {
                self.fed_by[o] = f;
                self.links[f as usize].cut_ok = true;
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
                let r = BatchRouter::new(v as u32, ins, look[v], self.inbox_policy);
                self.routers.push(r);
            }
        }
    }

    /// See `Network::read_horizon` (private): no queue statistics are read before `t`.
    pub fn set_read_horizon(&mut self, t: Time) {
        self.read_horizon = t;
    }

    /// Lets node `v`'s agent take packets ahead of the clock: its only incoming and
    /// outgoing directions must be lazy (checked by the caller).
    pub fn set_early_node(&mut self, v: u32) {
        for &l in self.in_links.of(v) {
            self.links[l as usize].far_early = true;
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
