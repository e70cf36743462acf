//! Engine benchmarks (used by `ccsim bench` and `cargo run --release --example bench`).

use crate::sim::Simulation;

/// Result of one benchmark run.
#[derive(Clone, Debug)]
pub struct BenchResult {
    pub name: String,
    pub events: u64,
    /// Wall time of the event loop.
    pub wall_s: f64,
    /// Wall time to parse and validate the scenario and build the world (before the loop).
    pub setup_s: f64,
    pub sim_s: f64,
    pub bottleneck_pkts: u64,
    pub events_per_s: f64,
    pub bottleneck_pkts_per_s: f64,
    pub peak_packets: usize,
    /// Goodput after a warm-up of min(10 s, half the run) (from a second, untimed run with
    /// that warm-up), bit/s: the steady state, without start-up transients.
    pub goodput_steady_bps: f64,
    /// Payload bytes delivered by all flows × 8 / simulated time, bit/s.
    pub goodput_bps: f64,
    pub flows: usize,
    /// Each flow's start time (after its start jitter), ns: `ccsim bench --ns3` gives ns-3
    /// the same start times.
    pub starts_ns: Vec<i64>,
}

/// A CBR dumbbell: `flows` CBR sources offering `load` × the bottleneck rate in total,
/// 1500-byte packets, access links 10× the bottleneck, DropTail 100 packets.
pub fn cbr_dumbbell_toml(flows: usize, bottleneck_bps: f64, duration_s: f64, load: f64) -> String {
    format!(
        r#"
name = "bench-cbr-dumbbell"
[simulation]
duration = {duration_s}
seed = 1
[dumbbell]
senders = {flows}
access_rate = {access}
access_delay = "1ms"
bottleneck_rate = {bottleneck_bps}
bottleneck_delay = "10ms"
queue = {{ kind = "droptail", limit = 100 }}
access_queue = {{ kind = "droptail", limit = 1000 }}
[[flows]]
kind = "cbr"
count = {flows}
src = "s{{i}}"
dst = "d{{i}}"
rate = {rate}
packet_size = 1500
jitter = true
"#,
        access = bottleneck_bps * 10.0,
        rate = bottleneck_bps * load / flows as f64,
    )
}

/// The standard TCP benchmark scenarios (1500-byte packets: MSS 1460 + 40 header bytes,
/// NewReno with PRR (as ns-3's `TcpNewReno`), a SYN handshake (as ns-3), an ACK per
/// segment, DropTail queues, a window of the socket buffer ns-3's script gives each flow:
/// 1 MiB = 718 segments, 64 MiB = 45 965 segments for S2):
///
/// - `S1`: 10 flows, 100 Mb/s 10 ms bottleneck, 100-packet queue, 1 Gb/s 1 ms access, 60 s.
/// - `S2`: 1 flow, 1 Gb/s 50 ms bottleneck, one-BDP queue (8 500 packets), 10 Gb/s 1 ms access, 60 s.
/// - `S3`: 200 flows, 1 Gb/s 10 ms bottleneck, 1000-packet queue, 10 Gb/s 1 ms access, 20 s.
/// - `S4`: 1000 flows, 10 Gb/s 10 ms bottleneck, 2000-packet queue, 100 Gb/s 1 ms access, 5 s.
///
/// Flows start within the first second (uniformly at random) so that they do not all
/// slow-start in lockstep. NewReno with PRR, a handshake, the socket buffer as window and
/// the RTO back-off cleared by every new ACK: ns-3's TcpNewReno as bench/ns3/dumbbell.py
/// runs it.
pub fn tcp_scenario(name: &str) -> Option<String> {
    // The last column is the socket buffer in MiB, as bench/ns3/dumbbell.py (8 × (BDP +
    // queue) shared out per flow, at least 1 MiB, at most 64 MiB): ns-3's receive buffer
    // caps the window at that many bytes beyond the cumulative ACK.
    let (flows, rate, delay, queue, access, secs, buf_mib) = match name {
        "S1" => (10, "100Mbps", "10ms", 100, "1Gbps", 60, 1),
        "S2" => (1, "1Gbps", "50ms", 8500, "10Gbps", 60, 64),
        "S3" => (200, "1Gbps", "10ms", 1000, "10Gbps", 20, 1),
        "S4" => (1000, "10Gbps", "10ms", 2000, "100Gbps", 5, 1),
        _ => return None,
    };
    let window = (buf_mib << 20) / 1460;
    Some(format!(
        r#"
name = "bench-{name}"
[simulation]
duration = {secs}
seed = 1
[dumbbell]
senders = {flows}
access_rate = "{access}"
access_delay = "1ms"
bottleneck_rate = "{rate}"
bottleneck_delay = "{delay}"
queue = {{ kind = "droptail", limit = {queue} }}
access_queue = {{ kind = "droptail", limit = 10000 }}
[[flows]]
kind = "tcp"
profile = "ns2"
recovery = "newreno"
prr = true
handshake = true
rto_backoff_reset = "new_ack"
# ns-3: no initial ssthresh, RFC 5681's halving, limited transmit off in the ns-3 script
# (the ns2 profile has ns-2's)
initial_ssthresh = 1e9
halving = "rfc"
limited_transmit = false
count = {flows}
src = "s{{i}}"
dst = "d{{i}}"
mss = 1460
window = {window}
start_jitter = "1s"
"#
    ))
}

/// Web-like traffic at scale: a 10 Gb/s, 10 ms dumbbell (2 000-packet queue, 64 hosts on
/// each side behind 40 Gb/s, 1 ms access links), Poisson arrivals of TCP transfers (the
/// `linux` profile) with Pareto sizes (mean 50 KB, shape 1.2) between random host pairs,
/// both ways, each way offering 60 % of the bottleneck; `flows` transfers in all, then the
/// run ends when the last one completes. `slowdown`: compute each flow's time alone.
pub fn web_scenario(flows: u64, slowdown: bool) -> String {
    let per_gen = flows.div_ceil(2);
    let rate = 0.6 * 10e9 / (50_000.0 * 8.0);
    let gen = |name: &str, src: &str, dst: &str| {
        format!(
            r#"
[[generators]]
name = "{name}"
src = "{src}{{0..63}}"
dst = "{dst}{{0..63}}"
arrivals = {{ kind = "poisson", rate = {rate} }}
size = {{ kind = "pareto", mean = "50KB", shape = 1.2 }}
transport = {{ kind = "tcp", profile = "linux" }}
max_flows = {per_gen}
slowdown = {slowdown}
"#
        )
    };
    format!(
        r#"
name = "bench-web"
[simulation]
duration = 600
seed = 1
[dumbbell]
senders = 64
access_rate = "40Gbps"
access_delay = "1ms"
bottleneck_rate = "10Gbps"
bottleneck_delay = "10ms"
queue = {{ kind = "droptail", limit = 2000 }}
access_queue = {{ kind = "droptail", limit = 10000 }}
{}{}"#,
        gen("forward", "s", "d"),
        gen("reverse", "d", "s")
    )
}

/// What [`measure_web`] measures.
#[derive(Clone, Debug)]
pub struct WebBench {
    pub flows_opened: u64,
    pub flows_completed: u64,
    pub events: u64,
    pub sim_s: f64,
    /// The run itself (every flow opened and completed).
    pub run_wall_s: f64,
    /// Building the result tables, the time alone of every distinct transfer included.
    pub results_wall_s: f64,
    pub flows_per_s: f64,
    /// Data and ACK packets leaving the bottleneck's queues (both ways).
    pub bottleneck_pkts: u64,
    pub bottleneck_pkts_per_s: f64,
    pub peak_packets: usize,
    /// Flow slots: the most flows alive at once.
    pub flow_slots: usize,
    pub median_slowdown: f64,
    /// The process's peak resident memory after the run, and after the result tables
    /// (kB, Linux; 0 elsewhere).
    pub peak_rss_run_kb: u64,
    pub peak_rss_results_kb: u64,
}

/// This process's peak resident set size so far, kB (`VmHWM`; 0 where unavailable).
pub fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse().ok()))
        .unwrap_or(0)
}

/// Runs [`web_scenario`] until its last flow completes and measures it.
pub fn measure_web(flows: u64, slowdown: bool) -> Result<WebBench, String> {
    let spec = crate::scenario::from_toml(&web_scenario(flows, slowdown)).map_err(|e| format!("{e:?}"))?;
    let mut sim = Simulation::with_options(spec, &crate::sim::SimOptions { stop_when_idle: true, ..Default::default() })?;
    let t0 = std::time::Instant::now();
    let stop = sim.run(None);
    let run_wall_s = t0.elapsed().as_secs_f64();
    let peak_rss_run_kb = peak_rss_kb();
    let slots = sim.flow_slots();
    let t1 = std::time::Instant::now();
    let res = sim.results(stop, run_wall_s);
    let results_wall_s = t1.elapsed().as_secs_f64();
    let links = match res.queues.column("link") {
        Some(crate::measure::Column::Str(v)) => v.to_vec(),
        _ => vec![],
    };
    let deps = res.queues.i64("departures").unwrap_or(&[]);
    let pkts: u64 = (0..links.len()).filter(|&i| links[i] == "bottleneck").map(|i| deps[i] as u64).sum();
    let end = res.fct.f64("end_s").unwrap_or(&[]);
    let mut sd: Vec<f64> = res.fct.f64("slowdown").unwrap_or(&[]).iter().copied().filter(|x| x.is_finite()).collect();
    sd.sort_by(|a, b| a.total_cmp(b));
    Ok(WebBench {
        flows_opened: res.flows_opened,
        flows_completed: end.iter().filter(|e| !e.is_nan()).count() as u64,
        events: res.events,
        sim_s: res.sim_time_s,
        run_wall_s,
        results_wall_s,
        flows_per_s: res.flows_opened as f64 / run_wall_s,
        bottleneck_pkts: pkts,
        bottleneck_pkts_per_s: pkts as f64 / run_wall_s,
        peak_packets: res.peak_packets,
        flow_slots: slots,
        median_slowdown: sd.get(sd.len() / 2).copied().unwrap_or(f64::NAN),
        peak_rss_run_kb,
        peak_rss_results_kb: peak_rss_kb(),
    })
}

/// Names of the TCP benchmark scenarios.
pub const TCP_SCENARIOS: [&str; 4] = ["S1", "S2", "S3", "S4"];

/// Runs a scenario and measures it; `bottleneck` names the link counted. The steady-state
/// goodput comes from a second, untimed run with a warm-up.
pub fn measure(name: &str, toml: &str, bottleneck: &str) -> Result<BenchResult, String> {
    measure_with(name, toml, bottleneck, true)
}

/// As [`measure`]; `steady = false` skips the second run (NaN steady goodput), e.g. when
/// the process's peak memory is what is being measured.
pub fn measure_with(name: &str, toml: &str, bottleneck: &str, steady: bool) -> Result<BenchResult, String> {
    let t0 = std::time::Instant::now();
    let spec = crate::scenario::from_toml(toml).map_err(|e| e.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("\n"))?;
    let sim = Simulation::with_options(spec, &Default::default())?;
    let setup_s = t0.elapsed().as_secs_f64();
    let res = sim.run_to_results(None);
    // Goodput over the whole run (as the ns-3 script measures it), not per flow's active time.
    let goodput_bps: f64 = res.flows.i64("goodput_bytes").map(|v| v.iter().sum::<i64>() as f64 * 8.0 / res.sim_time_s).unwrap_or(0.0);
    let flows = res.flows.rows();
    // The table holds seconds (f64) of whole nanoseconds; for times below 10^15 ns (11 days)
    // the f64 error times 10^9 stays far under half a nanosecond, so rounding recovers them.
    let starts_ns = res.flows.f64("start_s").map(|v| v.iter().map(|s| (s * 1e9).round() as i64).collect()).unwrap_or_default();
    drop(res.series);
    let goodput_steady_bps = if steady { steady_goodput(toml)? } else { f64::NAN };
    // Departures of the bottleneck's forward (a->b) direction; link directions are listed
    // a->b first for every link.
    let links = match res.queues.column("link") {
        Some(crate::measure::Column::Str(v)) => v.to_vec(),
        _ => vec![],
    };
    let deps = res.queues.i64("departures").unwrap_or(&[]);
    let pkts: u64 = (0..links.len()).filter(|&i| links[i] == bottleneck && i % 2 == 0).map(|i| deps[i] as u64).sum();
    Ok(BenchResult {
        name: name.to_string(),
        events: res.events,
        wall_s: res.wall_s,
        setup_s,
        sim_s: res.sim_time_s,
        bottleneck_pkts: pkts,
        events_per_s: res.events as f64 / res.wall_s,
        bottleneck_pkts_per_s: pkts as f64 / res.wall_s,
        peak_packets: res.peak_packets,
        goodput_bps,
        goodput_steady_bps,
        flows,
        starts_ns,
    })
}

/// Runs `toml` again with a warm-up of min(10 s, half the run) and returns the payload
/// goodput of all flows over the rest, bit/s.
fn steady_goodput(toml: &str) -> Result<f64, String> {
    let mut spec = crate::scenario::from_toml(toml).map_err(|e| e.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("\n"))?;
    let warm = (spec.duration / 2).min(10 * crate::units::SEC);
    spec.warmup = warm;
    let res = Simulation::with_options(spec, &Default::default())?.run_to_results(None);
    let bytes: i64 = res.flows.i64("goodput_bytes").map(|v| v.iter().sum()).unwrap_or(0);
    Ok(bytes as f64 * 8.0 / (res.sim_time_s - res.warmup_s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_scenarios_are_valid() {
        for name in TCP_SCENARIOS {
            crate::scenario::from_toml(&tcp_scenario(name).unwrap()).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        }
        assert!(tcp_scenario("S9").is_none());
    }

    #[test]
    fn web_bench_opens_and_completes_every_flow() {
        let w = measure_web(8_000, false).unwrap();
        assert_eq!((w.flows_opened, w.flows_completed), (8_000, 8_000));
        assert!(w.bottleneck_pkts > 100_000, "{w:?}");
        // About 30 000 flows a second, each alive for some 80 ms: slots are reused.
        assert!(w.flow_slots < 4_000, "{} slots for 8 000 flows", w.flow_slots);
    }

    #[test]
    fn small_bench_runs_and_counts() {
        let r = measure("t", &cbr_dumbbell_toml(4, 10e6, 1.0, 1.1), "bottleneck").unwrap();
        // 10 Mb/s of 1500 B packets for 1 s ≈ 833 packets (minus the first ms of access delay).
        assert!(r.bottleneck_pkts > 800 && r.bottleneck_pkts <= 834, "{}", r.bottleneck_pkts);
        // At least a send timer and a delivery per packet (a packet taken ahead of the
        // clock counts as an event).
        assert!(r.events >= 2 * r.bottleneck_pkts, "{} events", r.events);
    }
}
