//! The flow-completion table and each flow's time alone on its idle path.
//!
//! A flow's *ideal* time is that of the same transfer (same transport configuration, same
//! size, same sender and receiver) alone on the same path: a simulation of just the links
//! of its forward and reverse routes, with the same rates, delays and queues, no other
//! traffic, no wire loss and no node elements. It is simulated, not estimated (so a lone
//! flow's slowdown is exactly 1), once per distinct (generator, sender, receiver, size).

use super::{SimOptions, Simulation};
use crate::dist::Dist;
use crate::measure::{Column, Table};
use crate::scenario::{Arrivals, GeneratorSpec, Spec};
use crate::units::{to_secs, Time};
use std::collections::HashMap;

/// A lone transfer that has not completed after this long (simulated) has no ideal time.
const SOLO_LIMIT: Time = 1_000_000 * crate::units::SEC;

impl Simulation {
    /// The flow-completion table, ordered by generator and flow (see [`super::Results::fct`]).
    pub(super) fn fct_table(&self) -> Table {
        let r = &self.fct;
        let mut order: Vec<usize> = (0..r.k.len()).collect();
        order.sort_unstable_by_key(|&i| (r.gen[i], r.k[i]));
        let mut memo: HashMap<(u32, u32, u32, u64), Option<Time>> = HashMap::new();
        let ideal: Vec<f64> = order
            .iter()
            .map(|&i| {
                let g = r.gen[i];
                if !self.gens[g as usize].spec.slowdown || r.end[i] == Time::MAX {
                    return f64::NAN;
                }
                let key = (g, r.src[i], r.dst[i], r.size[i]);
                let t = *memo.entry(key).or_insert_with(|| self.alone(g, r.src[i], r.dst[i], r.size[i]));
                t.map(to_secs).unwrap_or(f64::NAN)
            })
            .collect();
        let nodes = &self.core.net.nodes;
        let f64col = |f: &dyn Fn(usize) -> f64| Column::F64(order.iter().map(|&i| f(i)).collect());
        let i64col = |f: &dyn Fn(usize) -> i64| Column::I64(order.iter().map(|&i| f(i)).collect());
        let strcol = |f: &dyn Fn(usize) -> String| Column::Str(order.iter().map(|&i| f(i)).collect());
        let end = |i: usize| if r.end[i] == Time::MAX { f64::NAN } else { to_secs(r.end[i]) };
        let fct = |i: usize| if r.end[i] == Time::MAX { f64::NAN } else { to_secs(r.end[i] - r.start[i]) };
        let mut t = Table::default();
        t.push("flow", i64col(&|i| r.k[i] as i64));
        t.push("generator", strcol(&|i| self.gens[r.gen[i] as usize].spec.name.clone()));
        t.push("user", i64col(&|i| if r.user[i] == u32::MAX { -1 } else { r.user[i] as i64 }));
        t.push("src", strcol(&|i| nodes[r.src[i] as usize].name.clone()));
        t.push("dst", strcol(&|i| nodes[r.dst[i] as usize].name.clone()));
        t.push("size_bytes", i64col(&|i| r.size[i] as i64));
        t.push("start_s", f64col(&|i| to_secs(r.start[i])));
        t.push("end_s", f64col(&end));
        t.push("fct_s", f64col(&fct));
        t.push("ideal_s", Column::F64(ideal.clone()));
        t.push("slowdown", Column::F64(order.iter().zip(&ideal).map(|(&i, &id)| fct(i) / id).collect()));
        t.push("sent_pkts", i64col(&|i| r.sent[i] as i64));
        t.push("lost_pkts", i64col(&|i| r.lost[i] as i64));
        t.push("retransmitted_pkts", f64col(&|i| r.retransmitted[i]));
        t.push("timeouts", f64col(&|i| r.timeouts[i]));
        t.push("complete", i64col(&|i| r.complete[i] as i64));
        t
    }

    /// The completion time of generator `g`'s transfer of `size` bytes from `src` to `dst`
    /// alone on its idle path (see the module documentation).
    fn alone(&self, g: u32, src: u32, dst: u32, size: u64) -> Option<Time> {
        let net = &self.core.net;
        let mut links: Vec<usize> = net.path(src, dst)?.iter().chain(&net.path(dst, src)?).map(|&ld| ld as usize / 2).collect();
        links.sort_unstable();
        links.dedup();
        let mut nodes: Vec<u32> = links.iter().flat_map(|&l| [self.link_specs[l].a, self.link_specs[l].b]).collect();
        nodes.sort_unstable();
        nodes.dedup();
        let at = |v: u32| nodes.binary_search(&v).expect("a node of the path") as u32;
        let link_specs = links
            .iter()
            .map(|&l| {
                let mut s = self.link_specs[l].clone();
                (s.a, s.b) = (at(s.a), at(s.b));
                s.loss = [None, None];
                s
            })
            .collect();
        let g = &self.gens[g as usize].spec;
        let solo = GeneratorSpec {
            name: g.name.clone(),
            src: vec![at(src)],
            dst: vec![at(dst)],
            arrivals: Arrivals::Times(vec![0]),
            size: Dist::Fixed { value: size as f64 },
            transport: g.transport.clone(),
            start: 0,
            stop: None,
            max_flows: Some(1),
            slowdown: false,
        };
        let spec = Spec {
            name: format!("{}-alone", g.name),
            duration: SOLO_LIMIT,
            seed: self.seed,
            warmup: 0,
            max_events: None,
            nodes: nodes.iter().map(|&v| net.nodes[v as usize].name.clone()).collect(),
            links: link_specs,
            flows: Vec::new(),
            elements: Vec::new(),
            generators: vec![solo],
            traces: Vec::new(),
            pcaps: Vec::new(),
            drop_logs: Vec::new(),
            packet_logs: Vec::new(),
            warnings: Vec::new(),
        };
        let mut sim = Simulation::with_options(spec, &SimOptions { stop_when_idle: true, skip_params: true, ..Default::default() }).ok()?;
        sim.run(None);
        let r = &sim.fct;
        (r.end.first().copied()? != Time::MAX).then(|| r.end[0] - r.start[0])
    }
}
