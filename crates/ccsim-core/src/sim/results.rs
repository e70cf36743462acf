//! What a run produces: the flow, queue and drop tables, series, files and metadata.

use super::Simulation;
use crate::measure::{Column, Table, Text};
use crate::net::LinkDir;
use crate::queue::DropReason;
use crate::units::to_secs;

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// Reached the scenario's duration.
    EndTime,
    /// Reached `simulation.max_events`.
    MaxEvents,
    /// Asked to stop (e.g. Ctrl-C).
    Interrupted,
    /// Every traffic generator was exhausted and its flows done (runs that stop when idle).
    Idle,
}

impl StopReason {
    pub fn name(self) -> &'static str {
        match self {
            StopReason::EndTime => "end_time",
            StopReason::MaxEvents => "max_events",
            StopReason::Interrupted => "interrupted",
            StopReason::Idle => "idle",
        }
    }
}

/// Everything a run produces.
pub struct Results {
    pub name: String,
    pub seed: u64,
    /// Simulated time reached, seconds.
    pub sim_time_s: f64,
    pub warmup_s: f64,
    pub events: u64,
    pub wall_s: f64,
    pub stop: StopReason,
    pub peak_packets: usize,
    /// Packets handed to their destination's agent ahead of the clock instead of by an
    /// event (counted in `events` too; see [`crate::agent::Agent::next_wakeup`]).
    pub taken_ahead: u64,
    /// Every component's resolved parameters (JSON, see [`crate::scenario::Spec::params`]).
    pub params: String,
    pub flows: Table,
    pub queues: Table,
    pub drops: Table,
    /// One row per node element: arrivals, departures, drops by reason, copies, most held,
    /// and the kind's own columns.
    pub elements: Table,
    /// One row per (flow, receiver): what each receiver got (for a flow with one receiver,
    /// its row repeats the flow's delivery columns).
    pub receivers: Table,
    /// One row per flow opened by a traffic generator: size, start, end, completion time,
    /// the time alone on the idle path and the slowdown (see [`Simulation`]'s generators).
    pub fct: Table,
    /// Per-class counts (DSCP) of every link direction that carried a marked packet: one row
    /// per (direction, class), class 0 included: arrivals, departures and drops (packets,
    /// bytes), packets queued at the end.
    pub queue_classes: Table,
    /// Per-class counts of every flow with a marked packet: one row per (flow, class),
    /// class 0 included: sent, delivered (packets, bytes, payload), dropped (with the class
    /// each packet had there).
    pub flow_classes: Table,
    /// Flows opened by traffic generators.
    pub flows_opened: u64,
    /// Packets of a finished generated flow that reached a later flow's slot (discarded).
    pub stale_packets: u64,
    pub series: Vec<(String, Table)>,
    /// Files written (pcap captures): (link direction, path).
    pub files: Vec<(String, String)>,
    /// Problems that did not stop the run (e.g. a pcap write error).
    pub warnings: Vec<String>,
}

impl Simulation {
    /// Builds the result tables.
    pub fn results(mut self, stop: StopReason, wall_s: f64) -> Results {
        let now = self.core.sched.now();
        self.core.net.finish(now, &mut self.core.flows);
        let mut flows = Table::default();
        // Flows created during the run still open: their rows (incomplete) and drop sites.
        for f in self.n_static..self.flows.len() as u32 {
            if self.flows[f as usize].dynf.is_some() {
                self.fct_row(f);
                self.merge_drops(f);
            }
        }
        let fct = self.fct_table();
        let nf = self.n_static as usize;
        let f64col = |f: &dyn Fn(usize) -> f64| Column::F64((0..nf).map(f).collect());
        let i64col = |f: &dyn Fn(usize) -> i64| Column::I64((0..nf).map(f).collect());
        let st = &self.core.flows[..nf];
        let slots = &self.flows[..nf];
        let nodes = &self.core.net.nodes;
        let window = |i: usize| {
            let s = &slots[i];
            let begin = s.start.max(self.warmup);
            let end = s.stop.unwrap_or(now).min(now);
            to_secs(end.saturating_sub(begin))
        };
        flows.push("flow", i64col(&|i| i as i64));
        flows.push("name", Column::Str(slots.iter().map(|s| &*s.name).collect()));
        flows.push("kind", Column::Str(slots.iter().map(|s| s.kind).collect()));
        flows.push("src", Column::Str(slots.iter().map(|s| &nodes[s.src as usize].name).collect()));
        let dst_names = |s: &super::FlowSlot| s.receivers().map(|r| nodes[r.node as usize].name.as_str()).collect::<Vec<_>>().join(",");
        flows.push("dst", Column::Str(slots.iter().map(dst_names).collect()));
        flows.push("receivers", i64col(&|i| slots[i].n_receivers() as i64));
        flows.push("start_s", f64col(&|i| to_secs(slots[i].start)));
        flows.push("stop_s", f64col(&|i| to_secs(slots[i].stop.unwrap_or(self.duration))));
        flows.push("sent_pkts", i64col(&|i| st[i].sent_pkts as i64));
        flows.push("sent_bytes", i64col(&|i| st[i].sent_bytes as i64));
        flows.push("delivered_pkts", i64col(&|i| st[i].delivered_pkts as i64));
        flows.push("delivered_bytes", i64col(&|i| st[i].delivered_bytes as i64));
        flows.push("goodput_bytes", i64col(&|i| st[i].goodput_bytes as i64));
        let at_stop = &self.goodput_at_stop;
        flows.push(
            "goodput_bps",
            f64col(&|i| {
                let w = window(i);
                if w > 0.0 {
                    at_stop.get(&(i as u32)).copied().unwrap_or(st[i].goodput_bytes) as f64 * 8.0 / w
                } else {
                    0.0
                }
            }),
        );
        flows.push("queue_drops", i64col(&|i| st[i].forward_drops().0 as i64));
        flows.push("wire_losses", i64col(&|i| st[i].forward_drops().1 as i64));
        flows.push(
            "loss_rate",
            f64col(&|i| {
                let (q, l) = st[i].forward_drops();
                if st[i].sent_pkts > 0 {
                    (q + l) as f64 / st[i].sent_pkts as f64
                } else {
                    0.0
                }
            }),
        );
        flows.push("delay_mean_s", f64col(&|i| st[i].mean_delay_s()));
        flows.push("delay_min_s", f64col(&|i| if st[i].delivered_pkts > 0 { to_secs(st[i].delay_min_ns) } else { f64::NAN }));
        flows.push("delay_max_s", f64col(&|i| if st[i].delivered_pkts > 0 { to_secs(st[i].delay_max_ns) } else { f64::NAN }));
        flows.push("reverse_sent_pkts", i64col(&|i| st[i].reverse_sent_pkts as i64));
        flows.push("reverse_delivered_pkts", i64col(&|i| st[i].reverse_delivered_pkts as i64));
        // Agent-specific columns (the receivers' summed over receivers).
        let summaries = slots.iter().map(|s| {
            let mut v = s.sender.summary();
            for r in s.receivers() {
                for (k, x) in r.agent.summary() {
                    match v.iter_mut().find(|(n, _)| *n == k) {
                        Some(e) => e.1 += x,
                        None => v.push((k, x)),
                    }
                }
            }
            // A sender done while a receiver lacks data (see `Agent::holds_all`) did not
            // complete the transfer.
            if s.receivers().any(|r| r.agent.holds_all() == Some(false)) {
                if let Some(e) = v.iter_mut().find(|(n, _)| *n == "completion_s") {
                    e.1 = f64::NAN;
                }
            }
            v
        });
        push_summaries(&mut flows, summaries);
        let receivers = self.receiver_table(now);

        let mut queues = Table::default();
        let links = &mut self.core.net.links;
        let nl = links.len();
        let means: Vec<(f64, f64)> = links
            .iter_mut()
            .map(|l| {
                let (p, b) = (l.qlen, l.qbytes);
                l.stats.mean_len(now, p, b)
            })
            .collect();
        let links = &self.core.net.links;
        let lf = |f: &dyn Fn(&LinkDir) -> f64| Column::F64(links.iter().map(f).collect());
        let li = |f: &dyn Fn(&LinkDir) -> i64| Column::I64(links.iter().map(f).collect());
        queues.push("link", Column::Str((0..nl).map(|d| &self.link_specs[d / 2].name).collect()));
        let mut direction = Text::with_capacity(nl, 0);
        for l in links.iter() {
            direction.push_parts(&l.name_parts(nodes));
        }
        queues.push("direction", Column::Str(direction));
        queues.push("from", Column::Str(links.iter().map(|l| &nodes[l.from as usize].name).collect()));
        queues.push("to", Column::Str(links.iter().map(|l| &nodes[l.to as usize].name).collect()));
        queues.push("queue", Column::Str(self.queue_kinds.iter().collect()));
        queues.push("rate_bps", li(&|l| l.rate_bps as i64));
        queues.push("delay_s", lf(&|l| to_secs(l.delay)));
        queues.push("arrivals", li(&|l| l.stats.arrivals as i64));
        queues.push("arrival_bytes", li(&|l| l.stats.arrival_bytes as i64));
        queues.push("departures", li(&|l| l.stats.departures as i64));
        queues.push("departure_bytes", li(&|l| l.stats.departure_bytes as i64));
        for r in DropReason::ALL {
            queues.push(&format!("drops_{}", r.name()), li(&|l| l.stats.drops.pkts(r) as i64));
        }
        queues.push("mean_len_pkts", Column::F64(means.iter().map(|m| m.0).collect()));
        queues.push("mean_len_bytes", Column::F64(means.iter().map(|m| m.1).collect()));
        queues.push("max_len_pkts", li(&|l| l.stats.max_pkts as i64));
        queues.push(
            "utilization",
            lf(&|l| {
                let w = now.saturating_sub(l.stats.since);
                if w > 0 {
                    (l.stats.busy_ns.min(w)) as f64 / w as f64
                } else {
                    0.0
                }
            }),
        );
        debug_assert_eq!(queues.rows(), nl);

        let mut drops = Table::default();
        let (mut d_flow, mut d_pkts, mut d_bytes) = (vec![], vec![], vec![]);
        let (mut d_name, mut d_link, mut d_reason, mut d_dir) = (Text::default(), Text::default(), Text::default(), Text::default());
        // The scenario's flows, then each generator's flows together (flow = -1).
        let static_sites = st.iter().enumerate().map(|(i, s)| (i as i64, &*slots[i].name, &s.drop_sites));
        let gen_sites = self.gens.iter().map(|g| (-1i64, g.spec.name.as_str(), &g.drop_sites));
        for (i, name, sites) in static_sites.chain(gen_sites) {
            for site in sites {
                d_flow.push(i);
                d_name.push(name);
                match links.get(site.link as usize) {
                    Some(l) => d_link.push_parts(&l.name_parts(nodes)),
                    None => d_link.push_parts(&["element:", &self.elements[site.link as usize - links.len()].name]),
                }
                d_reason.push(site.reason.name());
                d_dir.push(if site.forward { "forward" } else { "reverse" });
                d_pkts.push(site.pkts as i64);
                d_bytes.push(site.bytes as i64);
            }
        }
        drops.push("flow", Column::I64(d_flow));
        drops.push("name", Column::Str(d_name));
        drops.push("link", Column::Str(d_link));
        drops.push("reason", Column::Str(d_reason));
        drops.push("direction", Column::Str(d_dir));
        drops.push("pkts", Column::I64(d_pkts));
        drops.push("bytes", Column::I64(d_bytes));

        let elements = self.element_table();
        let (queue_classes, flow_classes) = self.class_tables(nf);

        let mut files = Vec::new();
        let mut warnings = std::mem::take(&mut self.spec_warnings);
        for l in self.core.net.links.iter_mut() {
            if let Some(cap) = l.capture.as_mut() {
                match cap.finish() {
                    Ok(p) => files.push((l.name(nodes), p.display().to_string())),
                    Err(e) => warnings.push(format!("pcap of {} not written: {e}", l.name(nodes))),
                }
            }
        }
        let peak_packets = self.core.pool.capacity_used();
        let mut series: Vec<(String, Table)> = self.traces.into_iter().map(|t| (t.series.name.clone(), t.series.into_table())).collect();
        for l in self.core.net.links.iter_mut() {
            if let Some(log) = l.drop_log.take() {
                if log.dropped_events > 0 {
                    warnings.push(log_full("drops", &l.name(nodes), log.cap, log.dropped_events));
                }
                series.push((["drops:", &l.name(nodes)].concat(), log.into_table()));
            }
            if let Some(log) = l.packet_log.take() {
                if log.dropped_events > 0 {
                    warnings.push(log_full("packets", &l.name(nodes), log.cap, log.dropped_events));
                }
                series.push((["packets:", &l.name(nodes)].concat(), log.into_table()));
            }
        }
        for f in self.flows[..nf].iter_mut() {
            let mut tables = f.sender.tables();
            tables.extend(f.receivers_mut().flat_map(|r| r.agent.tables()));
            for (tname, t) in tables {
                series.push((format!("flow:{}:{}", f.name, tname), t));
            }
        }
        for e in self.elements.iter_mut() {
            for (tname, t) in e.elem.tables() {
                series.push((format!("element:{}:{}", e.name, tname), t));
            }
        }
        Results {
            name: self.name,
            seed: self.seed,
            sim_time_s: to_secs(now),
            warmup_s: to_secs(self.warmup),
            events: self.core.sched.executed(),
            wall_s,
            stop,
            peak_packets,
            taken_ahead: self.taken_ahead,
            params: self.params,
            flows,
            queues,
            drops,
            elements,
            receivers,
            fct,
            queue_classes,
            flow_classes,
            flows_opened: self.flows_opened,
            stale_packets: self.stale_packets,
            series,
            files,
            warnings,
        }
    }
}

impl Simulation {
    /// The elements table (see [`Results::elements`]).
    fn element_table(&self) -> Table {
        let now = self.core.sched.now();
        let els = &self.elements;
        let nodes = &self.core.net.nodes;
        let mut t = Table::default();
        let i64col = |f: &dyn Fn(&super::elements::ElemSlot) -> i64| Column::I64(els.iter().map(f).collect());
        t.push("element", Column::Str(els.iter().map(|e| &e.name).collect()));
        t.push("kind", Column::Str(els.iter().map(|e| e.kind).collect()));
        t.push("node", Column::Str(els.iter().map(|e| &nodes[e.node as usize].name).collect()));
        t.push("arrivals", i64col(&|e| e.stats.arrivals as i64));
        t.push("arrival_bytes", i64col(&|e| e.stats.arrival_bytes as i64));
        t.push("departures", i64col(&|e| e.stats.departures as i64));
        t.push("departure_bytes", i64col(&|e| e.stats.departure_bytes as i64));
        for r in DropReason::ALL {
            t.push(&format!("drops_{}", r.name()), i64col(&|e| e.stats.drops[r as usize] as i64));
        }
        t.push("copies", i64col(&|e| e.stats.copies as i64));
        t.push("created", i64col(&|e| e.stats.created as i64));
        t.push("consumed", i64col(&|e| e.stats.consumed as i64));
        t.push("held_pkts", i64col(&|e| e.elem.held().0 as i64));
        t.push("max_held_pkts", i64col(&|e| e.stats.max_held as i64));
        push_summaries(&mut t, els.iter().map(|e| e.elem.summary(now)));
        t
    }

    /// The receivers table (see [`Results::receivers`]).
    fn receiver_table(&self, now: crate::units::Time) -> Table {
        let nodes = &self.core.net.nodes;
        // Sized exactly: with 100 000 flows, doubling growth leaves megabytes of slack.
        let n: usize = self.flows[..self.n_static as usize].iter().map(|s| s.n_receivers()).sum();
        let (mut flow, mut stats, mut windows) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
        let at_stop = &self.goodput_at_stop;
        let mut rate_bytes = Vec::with_capacity(n);
        let (mut name, mut node) = (Text::with_capacity(n, 0), Text::with_capacity(n, 0));
        for (i, s) in self.flows[..self.n_static as usize].iter().enumerate() {
            let begin = s.start.max(self.warmup);
            let end = s.stop.unwrap_or(now).min(now);
            for r in s.receivers() {
                flow.push(i as i64);
                name.push(&s.name);
                node.push(&nodes[r.node as usize].name);
                let (key, st) = if r.rx == crate::agent::NO_RX {
                    (i as u32, &self.core.flows[i])
                } else {
                    (self.n_static + r.rx, &self.core.rx[r.rx as usize])
                };
                stats.push(st);
                rate_bytes.push(at_stop.get(&key).copied().unwrap_or(st.goodput_bytes));
                windows.push(to_secs(end.saturating_sub(begin)));
            }
        }
        let mut t = Table::default();
        debug_assert_eq!(n, flow.len());
        let f64col = |f: &dyn Fn(usize) -> f64| Column::F64((0..n).map(f).collect());
        let i64col = |f: &dyn Fn(usize) -> i64| Column::I64((0..n).map(f).collect());
        t.push("flow", Column::I64(flow));
        t.push("name", Column::Str(name));
        t.push("receiver", Column::Str(node));
        t.push("delivered_pkts", i64col(&|i| stats[i].delivered_pkts as i64));
        t.push("delivered_bytes", i64col(&|i| stats[i].delivered_bytes as i64));
        t.push("goodput_bytes", i64col(&|i| stats[i].goodput_bytes as i64));
        t.push("goodput_bps", f64col(&|i| if windows[i] > 0.0 { rate_bytes[i] as f64 * 8.0 / windows[i] } else { 0.0 }));
        t.push("delay_mean_s", f64col(&|i| stats[i].mean_delay_s()));
        t.push("delay_min_s", f64col(&|i| if stats[i].delivered_pkts > 0 { to_secs(stats[i].delay_min_ns) } else { f64::NAN }));
        t.push("delay_max_s", f64col(&|i| if stats[i].delivered_pkts > 0 { to_secs(stats[i].delay_max_ns) } else { f64::NAN }));
        push_summaries(&mut t, self.flows[..self.n_static as usize].iter().flat_map(|s| s.receivers().map(|r| r.agent.summary())));
        t
    }
}

impl Simulation {
    /// The per-class tables (see [`Results::queue_classes`], [`Results::flow_classes`]).
    fn class_tables(&self, nf: usize) -> (Table, Table) {
        let mut q = ClassRows::default();
        for l in &self.core.net.links {
            if l.stats.classes.any() {
                let ds: Vec<u8> = std::iter::once(0).chain(l.stats.classes.seen().map(|(d, _)| d)).collect();
                for d in ds {
                    let k = super::queue_class(&l.stats, l.qlen, d);
                    let mut vals =
                        vec![k.arrivals, k.arrival_bytes, k.departures, k.departure_bytes, k.drops, k.drop_bytes, k.len_pkts.max(0) as u64];
                    vals.extend(k.drops_by);
                    q.push(&l.name(&self.core.net.nodes), d, &vals);
                }
            }
        }
        let mut f = ClassRows::default();
        for (i, s) in self.core.flows[..nf].iter().enumerate() {
            if !s.classes.is_empty() {
                let mut ds: Vec<u8> = s.classes.iter().map(|(d, _)| *d).collect();
                ds.sort_unstable();
                for d in std::iter::once(0).chain(ds) {
                    let k = super::flow_class(s, d);
                    let vals = [k.sent_pkts, k.sent_bytes, k.delivered_pkts, k.delivered_bytes, k.delivered_payload, k.drops];
                    f.push(&self.flows[i].name, d, &vals);
                }
            }
        }
        let reasons = DropReason::ALL.map(|r| format!("drops_{}", r.name()));
        let mut queue_cols = vec!["arrivals", "arrival_bytes", "departures", "departure_bytes", "drops", "drop_bytes", "len_pkts"];
        queue_cols.extend(reasons.iter().map(String::as_str));
        let flow_cols = ["sent_pkts", "sent_bytes", "delivered_pkts", "delivered_bytes", "delivered_payload", "drops"];
        (q.table("direction", &queue_cols), f.table("flow", &flow_cols))
    }
}

/// Rows of a per-class table: (name, class, counts).
#[derive(Default)]
struct ClassRows {
    name: Text,
    class: Vec<u8>,
    vals: Vec<Vec<i64>>,
}

impl ClassRows {
    fn push(&mut self, name: &str, d: u8, vals: &[u64]) {
        self.name.push(name);
        self.class.push(d);
        if self.vals.is_empty() {
            self.vals = vec![Vec::new(); vals.len()];
        }
        for (c, &x) in self.vals.iter_mut().zip(vals) {
            c.push(x as i64);
        }
    }

    fn table(mut self, key: &str, cols: &[&str]) -> Table {
        let mut t = Table::default();
        t.push(key, Column::Str(self.name));
        t.push("class", Column::I64(self.class.iter().map(|&d| d as i64).collect()));
        t.push("class_name", Column::Str(self.class.iter().map(|&d| crate::packet::dscp_name(d)).collect()));
        self.vals.resize(cols.len(), Vec::new());
        for (c, v) in cols.iter().zip(self.vals) {
            t.push(c, Column::I64(v));
        }
        t
    }
}

/// Appends component-specific columns: the union of names over rows (in order of first
/// appearance), NaN where a row has none; a name repeated within a row keeps its first
/// value. The rows are taken one at a time (a table of 100 000 flows never holds every
/// flow's summary at once: that was 40 % of the memory per idle flow at its peak).
fn push_summaries(t: &mut Table, rows: impl Iterator<Item = Vec<(&'static str, f64)>>) {
    let mut cols: Vec<(&'static str, Vec<f64>)> = Vec::new();
    let mut set: Vec<usize> = Vec::new();
    for (n, row) in rows.enumerate() {
        for c in &mut cols {
            c.1.push(f64::NAN);
        }
        set.clear();
        for (k, x) in row {
            match cols.iter().position(|(name, _)| *name == k) {
                Some(j) if set.contains(&j) => {}
                Some(j) => {
                    cols[j].1[n] = x;
                    set.push(j);
                }
                None => {
                    let mut v = vec![f64::NAN; n + 1];
                    v[n] = x;
                    set.push(cols.len());
                    cols.push((k, v));
                }
            }
        }
    }
    for (k, v) in cols {
        t.push(k, Column::F64(v));
    }
}

/// The warning of a `drops` or `packets` trace whose log was full.
fn log_full(kind: &str, link: &str, cap: usize, later: u64) -> String {
    use crate::trace::log::{MAX_EVENTS, MAX_TOTAL_EVENTS};
    format!(
        "{kind} trace of {link}: the first {cap} events kept, {later} later ones not (a log holds at most {MAX_EVENTS} \
         events, and a run's drops and packets traces {MAX_TOTAL_EVENTS} together)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The union of names in order of first appearance, NaN where a row has none, the first
    /// of a name repeated within a row.
    #[test]
    fn summaries_become_columns_row_by_row() {
        let rows = vec![vec![("a", 1.0)], vec![], vec![("b", 2.0), ("a", 3.0), ("b", 9.0)], vec![("c", 4.0)]];
        let mut t = Table::default();
        push_summaries(&mut t, rows.into_iter());
        let names: Vec<&str> = t.columns.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        let show = |c: &str| format!("{:?}", t.f64(c).unwrap());
        assert_eq!(show("a"), "[1.0, NaN, 3.0, NaN]");
        assert_eq!(show("b"), "[NaN, NaN, 2.0, NaN]");
        assert_eq!(show("c"), "[NaN, NaN, NaN, 4.0]");
    }
}
