//! Engine benchmarks (used by `ccsim bench` and `cargo run --release --example bench`).

use crate::sim::Simulation;

/// Result of one benchmark run.
#[derive(Clone, Debug)]
pub struct BenchResult {
    pub name: String,
    pub events: u64,
    pub wall_s: f64,
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
count = {flows}
src = "s{{i}}"
dst = "d{{i}}"
mss = 1460
window = {window}
start_jitter = "1s"
"#
    ))
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
    let spec = crate::scenario::from_toml(toml).map_err(|e| e.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("\n"))?;
    let sim = Simulation::with_options(spec, &Default::default())?;
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
        Some(crate::measure::Column::Str(v)) => v.clone(),
        _ => vec![],
    };
    let deps = res.queues.i64("departures").unwrap_or(&[]);
    let pkts: u64 = (0..links.len()).filter(|&i| links[i] == bottleneck && i % 2 == 0).map(|i| deps[i] as u64).sum();
    Ok(BenchResult {
        name: name.to_string(),
        events: res.events,
        wall_s: res.wall_s,
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
    fn small_bench_runs_and_counts() {
        let r = measure("t", &cbr_dumbbell_toml(4, 10e6, 1.0, 1.1), "bottleneck").unwrap();
        // 10 Mb/s of 1500 B packets for 1 s ≈ 833 packets (minus the first ms of access delay).
        assert!(r.bottleneck_pkts > 800 && r.bottleneck_pkts <= 834, "{}", r.bottleneck_pkts);
        // At least a send timer and a delivery per packet (a packet taken ahead of the
        // clock counts as an event).
        assert!(r.events >= 2 * r.bottleneck_pkts, "{} events", r.events);
    }
}
