//! Building the world from a validated [`Spec`]: link directions with their queues and loss
//! models, the fast paths, flows and their start and stop timers, traces, and the hosts
//! that may take packets ahead of the clock.

use super::elements::ElemSlot;
use super::generators::GenState;
use super::{FlowSlot, RecvSlot, SimOptions, Simulation, TraceState};
use crate::agent::{Core, TIMER_START, TIMER_STOP};
use crate::engine::{Event, Scheduler};
use crate::measure::{FlowStats, Series};
use crate::net::{FarAgent, LinkDir, Network, Node};
use crate::packet::PacketPool;
use crate::rng::{stream_of, Stream};
use crate::scenario::{Spec, TraceTarget};

impl Simulation {
    /// Builds the world. Every random stream is keyed by the seed and a component's name.
    pub fn with_options(mut spec: Spec, opts: &SimOptions) -> Result<Self, String> {
        // Large worlds on huge pages, where the binary installed the allocator for it.
        crate::hugepages::enable_for_world(spec.flows.len(), !spec.generators.is_empty());
        let prefetch = opts.prefetch.unwrap_or_else(|| crate::prefetch::Level::for_world(spec.flows.len(), !spec.generators.is_empty()));
        let seed = spec.seed;
        let params = if opts.skip_params { String::new() } else { spec.params().to_string() };
        let nodes: Vec<Node> = std::mem::take(&mut spec.nodes).into_iter().map(|name| Node { name }).collect();
        let mut links = Vec::with_capacity(spec.links.len() * 2);
        let mut queue_kinds = Vec::with_capacity(spec.links.len() * 2);
        for l in &spec.links {
            for (dir, (from, to)) in [(l.a, l.b), (l.b, l.a)].into_iter().enumerate() {
                let tag = if dir == 0 { "ab" } else { "ba" };
                let queue = l.queue[dir].build(Stream::new(seed, &["link:", &l.name, ":", tag, ":queue"]));
                let loss = l.loss[dir].as_ref().map(|m| m.build(stream_of(seed, &["link:", &l.name, ":", tag, ":loss"])));
                links.push(LinkDir::new(dir == 0, from, to, l.rate_bps, l.delay, queue, loss));
                queue_kinds.push(l.queue[dir].kind());
            }
        }
        let dir = opts.output_dir.clone().unwrap_or_else(|| std::path::PathBuf::from("."));
        if !spec.pcaps.is_empty() {
            std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create output folder {}: {e}", dir.display()))?;
        }
        // The logs share a total ([`crate::trace::log::MAX_TOTAL_EVENTS`]).
        let cap = crate::trace::log::log_cap(spec.drop_logs.len() + spec.packet_logs.len());
        for &ld in &spec.drop_logs {
            links[ld as usize].drop_log = Some(Box::new(crate::net::DropLog::with_cap(cap)));
        }
        for &ld in &spec.packet_logs {
            links[ld as usize].packet_log = Some(Box::new(crate::net::PacketLog::with_cap(cap)));
        }
        for p in &spec.pcaps {
            let w = crate::trace::pcap::PcapWriter::create(&dir.join(&p.file), nodes.len() as u32)?;
            links[p.link_dir as usize].capture = Some(Box::new(w));
        }
        let mut net = Network::new(nodes, links);
        // Node elements, chained per node in declaration order.
        let nn = net.nodes.len();
        let mut chains: Vec<Vec<u32>> = vec![Vec::new(); nn];
        let mut elements = Vec::with_capacity(spec.elements.len());
        for (i, e) in spec.elements.iter().enumerate() {
            let stage = chains[e.node as usize].len() as u16;
            chains[e.node as usize].push(i as u32);
            elements.push(ElemSlot {
                name: e.name.clone(),
                kind: e.config.kind(),
                node: e.node,
                stage,
                filter: e.filter.clone(),
                elem: e.config.build(stream_of(seed, &["element:", &e.name])),
                stats: Default::default(),
            });
        }
        let elem_node: Vec<bool> = chains.iter().map(|c| !c.is_empty()).collect();
        if !opts.per_hop_events {
            let mut ends: Vec<(u32, u32)> = spec.flows.iter().flat_map(|f| f.dsts.iter().map(|&d| (f.src, d))).collect();
            for g in &spec.generators {
                ends.extend(g.src.iter().flat_map(|&s| g.dst.iter().filter(move |&&d| d != s).map(move |&d| (s, d))));
            }
            // Elements may originate packets towards any flow end: their paths count too.
            let flow_ends: Vec<u32> = ends.iter().flat_map(|&(a, b)| [a, b]).collect();
            for (v, _) in elem_node.iter().enumerate().filter(|(_, e)| **e) {
                ends.extend(flow_ends.iter().filter(|&&x| x != v as u32).map(|&x| (v as u32, x)));
            }
            let traced: Vec<u32> =
                spec.traces.iter().filter_map(|t| if let TraceTarget::Queue(ld) = t.target { Some(ld) } else { None }).collect();
            net.set_inbox_policy(opts.inbox_policy);
            net.set_prefetch(prefetch);
            net.enable_fast_paths(&ends, &traced, &elem_node);
        }
        let mut sched = Scheduler::new();
        let mut flows = Vec::with_capacity(spec.flows.len());
        let mut rx_count = 0u32;
        for (i, f) in spec.flows.into_iter().enumerate() {
            let (sender, agents) = f.app.build(stream_of(seed, &["flow:", &f.name]), None, f.dsts.len());
            let multi = f.dsts.len() > 1;
            let dst = if multi {
                net.add_group(f.src, &f.dsts).ok_or_else(|| format!("flow {}: a receiver is unreachable", f.name))?
            } else {
                f.dsts[0]
            };
            let mut receivers: Vec<RecvSlot> = f
                .dsts
                .iter()
                .zip(agents)
                .map(|(&node, agent)| {
                    let rx = if multi { rx_count } else { crate::agent::NO_RX };
                    rx_count += multi as u32;
                    RecvSlot::new(node, agent, rx)
                })
                .collect();
            let start = if f.start_jitter > 0 {
                use crate::rng::Rng;
                f.start + stream_of(seed, &["flow:", &f.name, ":start"]).gen_range(0..f.start_jitter)
            } else {
                f.start
            };
            sched.at(start, Event::Timer { flow: i as u32, token: 0, end: 0, kind: TIMER_START });
            if let Some(stop) = f.stop {
                sched.at(stop, Event::Timer { flow: i as u32, token: 0, end: 0, kind: TIMER_STOP });
            }
            let receiver = receivers.remove(0);
            flows.push(FlowSlot {
                name: f.name.into_boxed_str(),
                kind: f.app.kind(),
                src: f.src,
                dst,
                start,
                stop: f.stop,
                sender,
                receiver,
                others: receivers,
                seq_floor: 0,
                dynf: None,
            });
        }
        if spec.warmup > 0 {
            sched.at(spec.warmup, Event::WarmupEnd);
        }
        let mut traces = Vec::with_capacity(spec.traces.len());
        for (i, t) in spec.traces.iter().enumerate() {
            let (name, mut cols) = match t.target {
                TraceTarget::Queue(ld) => {
                    let l = &net.links[ld as usize];
                    let mut c: Vec<String> =
                        ["time", "len_pkts", "len_bytes", "arrivals", "departures", "drops"].iter().map(|s| s.to_string()).collect();
                    c.extend(l.queue.probe_names().iter().map(|s| s.to_string()));
                    if l.loss.is_some() {
                        c.push("loss_state".into());
                    }
                    for d in &t.classes {
                        let n = crate::packet::dscp_name(*d);
                        c.extend(["arrivals", "departures", "drops", "len_pkts"].map(|k| format!("{k}:{n}")));
                    }
                    (["queue:", &l.name(&net.nodes)].concat(), c)
                }
                TraceTarget::Element(ei) => {
                    let e: &ElemSlot = &elements[ei as usize];
                    let mut c: Vec<String> =
                        ["time", "arrivals", "departures", "drops", "held_pkts", "held_bytes"].iter().map(|s| s.to_string()).collect();
                    c.extend(e.elem.probe_names().iter().map(|s| s.to_string()));
                    (format!("element:{}", e.name), c)
                }
                TraceTarget::Flow(fi) => {
                    let f = &flows[fi as usize];
                    let mut c: Vec<String> = ["time", "sent_bytes", "delivered_bytes", "goodput_bytes", "throughput_bps"]
                        .iter()
                        .map(|s| s.to_string())
                        .collect();
                    c.extend(f.sender.probe_names().iter().map(|s| s.to_string()));
                    for d in &t.classes {
                        let n = crate::packet::dscp_name(*d);
                        c.extend(["sent_bytes", "delivered_bytes", "delivered_payload"].map(|k| format!("{k}:{n}")));
                    }
                    (format!("flow:{}", f.name), c)
                }
            };
            cols.shrink_to_fit();
            let width = cols.len();
            sched.at(0, Event::Sample { trace: i as u32 });
            traces.push(TraceState {
                target: t.target,
                interval: t.interval,
                classes: t.classes.clone(),
                series: Series::new(name, cols),
                prev_goodput: 0,
                row: Vec::with_capacity(width),
                next: 0,
            });
        }
        // Hosts whose one flow end may take packets ahead of the clock: one flow end, one
        // link in and one out, both event-free. The link in keeps the end (`far_agent`).
        let mut node_agent = vec![(u32::MAX, 0u16); net.nodes.len()];
        if !opts.per_hop_events {
            let mut ends = vec![0u32; net.nodes.len()];
            // Hosts of generated flows hold many flow ends over the run: never taken ahead.
            for g in &spec.generators {
                for &v in g.src.iter().chain(&g.dst) {
                    ends[v as usize] += 2;
                }
            }
            for (i, f) in flows.iter().enumerate() {
                ends[f.src as usize] += 1;
                node_agent[f.src as usize] = (i as u32, 0);
                for (k, r) in f.receivers().enumerate() {
                    // Multicast receivers get group packets, never taken ahead: count them twice.
                    ends[r.node as usize] += if f.n_receivers() > 1 { 2 } else { 1 };
                    node_agent[r.node as usize] = (i as u32, 1 + k as u16);
                }
            }
            for (v, &(fi, end)) in node_agent.iter().enumerate() {
                if ends[v] != 1 || net.lazy_host_links(v as u32).is_none() {
                    continue;
                }
                if flows[fi as usize].agent(end).next_wakeup().is_some() {
                    // A flow's stop reads its receiver's goodput: such a receiver is asked.
                    let takes_all = end > 0 && flows[fi as usize].receiver.timerless && flows[fi as usize].stop.is_none();
                    net.set_early_node(v as u32, FarAgent { flow: fi, end, takes_all });
                }
            }
        }
        let nflows = flows.len();
        net.static_flows = nflows as u32;
        let mut gens: Vec<GenState> = spec.generators.iter().map(|g| GenState::new(g.clone(), seed)).collect();
        for (i, g) in gens.iter_mut().enumerate() {
            g.first_arrivals(i as u32, &mut sched);
        }
        let mut sim = Simulation {
            core: Core {
                sched,
                net,
                pool: PacketPool::new(),
                flows: crate::measure::FlowTable::new(vec![FlowStats::default(); nflows]),
                elem_node,
                work: Default::default(),
                flow_events: Vec::new(),
                rx: vec![FlowStats::default(); rx_count as usize],
            },
            flows,
            traces,
            name: spec.name,
            seed,
            duration: spec.duration,
            warmup: spec.warmup,
            max_events: spec.max_events,
            queue_kinds,
            early_batch: Vec::new(),
            prefetch,
            horizon: 0,
            warmup_pending: spec.warmup > 0,
            check_at: 0,
            next_poll: super::ahead::POLL_EVERY,
            taken_ahead: 0,
            params,
            elements,
            chains,
            gens,
            n_static: nflows as u32,
            free_slots: Vec::new(),
            fct: Default::default(),
            flows_opened: 0,
            stale_packets: 0,
            stop_when_idle: opts.stop_when_idle,
            link_specs: spec.links,
            spec_warnings: spec.warnings.iter().map(|w| w.to_string()).collect(),
            goodput_at_stop: Default::default(),
        };
        sim.set_horizon();
        Ok(sim)
    }
}
