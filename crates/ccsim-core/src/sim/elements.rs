//! Packets through node elements: a node's chain of elements (in declaration order), each
//! handed the packets its filter admits; past the chain, routing or delivery.

use super::Simulation;
use crate::agent::Work;
use crate::element::{ElemCtx, ElemStats, Element, Pkt};
use crate::scenario::Filter;

/// One element placed at a node.
pub(super) struct ElemSlot {
    pub name: String,
    pub kind: &'static str,
    pub node: u32,
    /// Position in its node's chain.
    pub stage: u16,
    pub filter: Filter,
    pub elem: Box<dyn Element>,
    pub stats: ElemStats,
}

impl Simulation {
    /// Takes packets through node elements until none is waiting.
    pub(super) fn run_work(&mut self) {
        while let Some(w) = self.core.work.pop_front() {
            self.step(w);
        }
    }

    /// A packet arrives at node `node` (with elements) over link direction `from`.
    #[inline]
    pub(super) fn arrive_at_elements(&mut self, node: u32, id: crate::packet::PktId, from: u32) {
        self.core.work.push_back(Work { id, node, stage: 0, from });
        self.run_work();
    }

    /// Hands `w`'s packet to the next element whose filter admits it, or, past the chain,
    /// to routing or to the node's agent.
    fn step(&mut self, w: Work) {
        let chain = &self.chains[w.node as usize];
        let mut stage = w.stage as usize;
        while stage < chain.len() {
            let e = chain[stage] as usize;
            if self.admits(&self.elements[e].filter, w) {
                return self.call_element(e, |el, ctx| el.on_packet(ctx, Pkt { id: w.id, from: w.from }), Some(w.id));
            }
            stage += 1;
        }
        let dst = self.core.pool.get(w.id).dst;
        if self.core.net.delivers_at(w.node, dst) {
            let now = self.core.sched.now();
            self.deliver(now, w.node, w.id);
        } else {
            let c = &mut self.core;
            let ld = c.net.route(w.node, dst);
            if ld >= crate::net::BRANCH {
                // A multicast packet where its tree branches but no element replicated it
                // (validation rules this out) or off its tree: dropped, counted at the node's
                // first element.
                let e = self.chains[w.node as usize][0];
                let site = c.net.links.len() as u32 + e;
                let p = c.pool.get(w.id);
                c.flows.drop_packet(site, crate::queue::DropReason::Policed, p);
                self.elements[e as usize].stats.drops[crate::queue::DropReason::Policed as usize] += 1;
                c.pool.free(w.id);
                return;
            }
            c.net.enqueue_now(ld, w.id, &mut c.sched, &mut c.pool, &mut c.flows);
        }
    }

    fn admits(&self, f: &Filter, w: Work) -> bool {
        if f.is_open() {
            return true;
        }
        let p = self.core.pool.get(w.id);
        let has = |list: &Option<Vec<u32>>, x: u32| list.as_ref().is_none_or(|l| l.binary_search(&x).is_ok());
        if !has(&f.from, w.from) || !has(&f.flows, p.flow) {
            return false;
        }
        match &f.to {
            None => true,
            Some(l) => p.dst != w.node && l.binary_search(&self.core.net.route(w.node, p.dst)).is_ok(),
        }
    }

    /// Calls element `e` (handing it packet `arrival`, if any, counted as an arrival).
    pub(super) fn call_element(&mut self, e: usize, f: impl FnOnce(&mut dyn Element, &mut ElemCtx), arrival: Option<crate::packet::PktId>) {
        let site = self.core.net.links.len() as u32 + e as u32;
        let now = self.core.sched.now();
        let slot = &mut self.elements[e];
        if let Some(id) = arrival {
            slot.stats.arrivals += 1;
            slot.stats.arrival_bytes += self.core.pool.get(id).size as u64;
        }
        let mut ctx =
            ElemCtx { now, node: slot.node, elem: e as u32, stage: slot.stage, site, core: &mut self.core, stats: &mut slot.stats };
        f(slot.elem.as_mut(), &mut ctx);
        let held = slot.elem.held().0 as u64;
        slot.stats.max_held = slot.stats.max_held.max(held);
    }

    /// Element `e`'s timer fired.
    pub(super) fn element_timer(&mut self, e: u32, kind: u16, token: u32) {
        self.call_element(e as usize, |el, ctx| el.on_timer(ctx, kind, token), None);
        self.run_work();
    }
}
