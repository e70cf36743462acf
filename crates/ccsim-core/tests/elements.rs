//! Node elements: a shaper that never exceeds its envelope, a policer that marks exactly
//! what a hand-computed bucket says, a pass-through element that changes nothing, and an
//! element that reads and empties its node's queues with full accounting.

use ccsim_core::element::{ElemCtx, Element, ElementConfig, Pkt};
use ccsim_core::queue::DropReason;
use ccsim_core::rng::SimRng;
use ccsim_core::scenario::{from_toml, ElementSpec, Filter};
use ccsim_core::sim::{Results, SimOptions, Simulation};
use std::sync::Arc;

fn run(toml: &str) -> Results {
    Simulation::new(from_toml(toml).unwrap_or_else(|e| panic!("{e:?}"))).run_to_results(None)
}

fn i64s(r: &Results, table: &str, col: &str) -> Vec<i64> {
    let t = match table {
        "flows" => &r.flows,
        "queues" => &r.queues,
        "elements" => &r.elements,
        _ => unreachable!(),
    };
    t.i64(col).unwrap_or_else(|| panic!("no column {col}")).to_vec()
}

fn series<'a>(r: &'a Results, name: &str) -> &'a ccsim_core::measure::Table {
    &r.series.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no series {name}")).1
}

const SHAPED: &str = r#"
nodes = ["h", "r", "d"]
[simulation]
duration = "20s"
seed = 4
[[links]]
a = "h"
b = "r"
rate = "100Mbps"
delay = "1ms"
[[links]]
a = "r"
b = "d"
rate = "50Mbps"
delay = "5ms"
[[flows]]
name = "bursty"
kind = "onoff"
src = "h"
dst = "d"
rate = "20Mbps"
packet_size = 1200
on_mean = "300ms"
off_mean = "300ms"
[[elements]]
name = "tbf"
kind = "shaper"
node = "h"
rate = "6Mbps"
burst = "12KB"
limit = "36KB"
log = true
[[traces]]
kind = "element"
element = "tbf"
interval = "1ms"
"#;

/// Over every interval of the departure log, bytes released ≤ rate·t + burst (exact, in
/// integer nanoseconds and bits); the shaper's queue never holds more than its limit; and
/// it does shape (the bound is met, not just respected).
#[test]
fn shaper_departures_stay_within_rate_times_t_plus_burst() {
    let r = run(SHAPED);
    let log = series(&r, "element:tbf:departures");
    let times: Vec<u64> = log.f64("time").unwrap().iter().map(|t| (t * 1e9).round() as u64).collect();
    let bytes = log.i64("bytes").unwrap();
    assert!(times.len() > 5_000, "{} departures", times.len());
    let (rate, burst) = (6_000_000i128, 12_000i128);
    // Envelope check in O(n): for each j, max over i ≤ j of (bits in [t_i, t_j]) − rate·(t_j − t_i)
    // must stay ≤ burst bits. With S_j = bits of departures 0..=j (×1e9 to stay in integers):
    // S_j − S_{i−1} ≤ rate·(t_j − t_i) + burst  ⇔  (S_j − rate·t_j) − min_{i≤j}(S_{i−1} − rate·t_i) ≤ burst.
    let mut s_prev: i128 = 0; // S_{i-1}·1e9
    let mut min_term = i128::MAX;
    let mut worst: i128 = i128::MIN;
    for (j, &t) in times.iter().enumerate() {
        min_term = min_term.min(s_prev - rate * t as i128);
        let s_j = s_prev + bytes[j] as i128 * 8 * 1_000_000_000;
        worst = worst.max((s_j - rate * t as i128) - min_term);
        s_prev = s_j;
    }
    let slack = burst * 8 * 1_000_000_000 - worst;
    assert!(slack >= 0, "the envelope is exceeded by {} bits", -slack as f64 / 1e9);
    // Tight: some interval uses the whole burst (within one packet).
    assert!(slack < 1200 * 8 * 1_000_000_000, "slack {} bits: the shaper is not shaping", slack as f64 / 1e9);
    // The queue limit holds at every sample, and overflow was dropped at the element.
    let held = series(&r, "element:tbf").f64("held_bytes").unwrap();
    assert!(held.iter().all(|&b| b <= 36_000.0));
    assert!(held.iter().any(|&b| b > 30_000.0));
    let drops = i64s(&r, "elements", "drops_buffer")[0];
    assert!(drops > 0);
    // Conservation: arrivals = departures + drops + held.
    let (a, d, h) = (i64s(&r, "elements", "arrivals")[0], i64s(&r, "elements", "departures")[0], i64s(&r, "elements", "held_pkts")[0]);
    assert_eq!(a, d + drops + h);
    // Long-run rate: below 6 Mb/s, as the shaper idles once an off period has emptied it
    // (on ≈ 300 ms at 6 Mb/s, then ≈ 48 ms to empty 36 KB, off ≈ 300 ms: ≈ 3.3 Mb/s).
    let sent: i64 = bytes.iter().sum();
    let secs = *times.last().unwrap() as f64 / 1e9;
    let out = sent as f64 * 8.0 / secs;
    assert!(out > 2.5e6 && out < 6e6, "{out} b/s");
}

/// A CBR of 1000-byte packets every 4 ms (2 Mb/s) meets a 1 Mb/s policer with a 3000-byte
/// bucket (full at start). By hand, in packets: the bucket holds 3, each gap adds 0.5, a
/// conforming packet takes 1 — packets 0-4 conform (3, 2.5, 2, 1.5, 1 tokens found), then
/// from packet 5 on every other one exceeds (0.5 found) and the next conforms (1 found).
/// Exceeding packets are re-marked AF12 (DSCP 12): the marks read back from a pcap of the
/// link after the policer must be exactly that pattern.
#[test]
fn policer_marks_exactly_the_hand_computed_packets() {
    let dir = std::env::temp_dir().join(format!("ccsim-policer-{}", std::process::id()));
    let toml = r#"
nodes = ["h", "r", "d"]
[simulation]
duration = "1.001s"
[[links]]
a = "h"
b = "r"
rate = "100Mbps"
delay = "1ms"
[[links]]
a = "r"
b = "d"
rate = "100Mbps"
delay = "1ms"
[[flows]]
kind = "cbr"
src = "h"
dst = "d"
rate = "2Mbps"
packet_size = 1000
[[elements]]
kind = "policer"
node = "r"
rate = "1Mbps"
burst = 3000
action = "remark"
exceed_dscp = 12
[[traces]]
kind = "pcap"
link = "r->d"
file = "policed.pcap"
"#;
    let opts = SimOptions { output_dir: Some(dir.clone()), ..Default::default() };
    let r = Simulation::with_options(from_toml(toml).unwrap(), &opts).unwrap().run_to_results(None);
    let pcap = std::fs::read(dir.join("policed.pcap")).unwrap();
    // Records after the 24-byte header: 16-byte record header, Ethernet (14), IPv4 (TOS at +1).
    let mut marks = Vec::new();
    let mut at = 24;
    while at + 16 <= pcap.len() {
        let caplen = u32::from_le_bytes(pcap[at + 8..at + 12].try_into().unwrap()) as usize;
        let tos = pcap[at + 16 + 14 + 1];
        marks.push(tos >> 2);
        at += 16 + caplen;
    }
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(marks.len(), 250, "one packet every 4 ms, t = 0 to 0.996 s (the next reaches the link after the end)");
    let expect: Vec<u8> = (0..marks.len()).map(|k| if k >= 5 && k % 2 == 1 { 12 } else { 0 }).collect();
    assert_eq!(marks, expect);
    assert_eq!(r.elements.f64("exceed_pkts").unwrap()[0], expect.iter().filter(|&&m| m == 12).count() as f64);
}

/// An element that passes every packet leaves every flow and queue figure unchanged,
/// although the links leaving its node then run event-driven (odd delays: no ties).
#[test]
fn a_pass_through_element_changes_nothing() {
    let base = r#"
[simulation]
duration = "20s"
seed = 9
warmup = "2s"
[dumbbell]
senders = 3
access_rate = "100Mbps"
access_delays = ["1.001ms", "3.003ms", "7.007ms"]
bottleneck_rate = "10Mbps"
bottleneck_delay = "20.011ms"
queue = { kind = "droptail", limit = 40 }
[[flows]]
kind = "tcp"
count = 3
src = "s{i}"
dst = "d{i}"
window = 64
"#;
    let with = format!("{base}\n[[elements]]\nkind = \"policer\"\nnode = \"r0\"\nrate = \"10Gbps\"\nburst = \"1MB\"\n");
    let (a, b) = (run(base), run(&with));
    for col in ["sent_pkts", "delivered_pkts", "goodput_bytes", "queue_drops", "reverse_sent_pkts"] {
        assert_eq!(i64s(&a, "flows", col), i64s(&b, "flows", col), "{col}");
    }
    for col in ["arrivals", "departures", "drops_overflow"] {
        assert_eq!(i64s(&a, "queues", col), i64s(&b, "queues", col), "{col}");
    }
    assert!(i64s(&b, "elements", "arrivals")[0] > 10_000);
}

/// A test element: when the queue of its node's first output link reaches `high`
/// packets, it takes every queued packet of the lowest-numbered flow in that queue out.
#[derive(Debug)]
struct PurgeConfig {
    high: usize,
}

struct Purge {
    high: usize,
    purged: u64,
}

impl ElementConfig for PurgeConfig {
    fn kind(&self) -> &'static str {
        "purge"
    }
    fn build(&self, _rng: SimRng) -> Box<dyn Element> {
        Box::new(Purge { high: self.high, purged: 0 })
    }
    fn params(&self) -> serde_json::Value {
        serde_json::json!({ "high": self.high })
    }
}

impl Element for Purge {
    fn on_packet(&mut self, ctx: &mut ElemCtx, p: Pkt) {
        let link = ctx.route(ctx.packet(&p).dst).unwrap();
        ctx.pass(p);
        if ctx.queue_len(link).0 >= self.high {
            let mut lowest = u32::MAX;
            ctx.visit_queue(link, &mut |q| lowest = lowest.min(q.flow));
            self.purged += ctx.remove_from_queue(link, &mut |q| q.flow == lowest, DropReason::Selective) as u64;
        }
    }
    fn summary(&self, _now: ccsim_core::units::Time) -> Vec<(&'static str, f64)> {
        vec![("purged", self.purged as f64)]
    }
}

/// Removal from a queue is accounted everywhere: the queue's `selective` drops, the flows'
/// drop sites, the element's own count; arrivals = departures + drops + queued.
#[test]
fn an_element_empties_queues_with_full_accounting() {
    let toml = r#"
[simulation]
duration = "10s"
seed = 2
[dumbbell]
senders = 2
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "5Mbps"
bottleneck_delay = "10ms"
queue = { kind = "droptail", limit = 30 }
[[flows]]
kind = "cbr"
count = 2
src = "s{i}"
dst = "d{i}"
rate = "3Mbps"
"#;
    let mut spec = from_toml(toml).unwrap();
    let r0 = spec.nodes.iter().position(|n| n == "r0").unwrap() as u32;
    spec.elements.push(ElementSpec {
        name: "purge".into(),
        node: r0,
        filter: Filter::default(),
        config: Arc::new(PurgeConfig { high: 20 }),
    });
    let r = Simulation::new(spec).run_to_results(None);
    let purged = r.elements.f64("purged").unwrap()[0] as i64;
    assert!(purged > 100, "{purged}");
    let dirs = r.queues.column("direction").unwrap();
    let ccsim_core::measure::Column::Str(dirs) = dirs else { panic!() };
    let b = dirs.iter().position(|d| d == "r0->r1").unwrap();
    let sel = i64s(&r, "queues", "drops_selective")[b];
    assert_eq!(sel, purged);
    let (arr, dep, ovf) = (i64s(&r, "queues", "arrivals")[b], i64s(&r, "queues", "departures")[b], i64s(&r, "queues", "drops_overflow")[b]);
    let left = r.queues.f64("mean_len_pkts").unwrap()[b];
    assert!(left >= 0.0);
    // What is still queued at the end: arrivals − departures − drops, never negative, at most the limit.
    let queued = arr - dep - ovf - sel;
    assert!((0..=30).contains(&queued), "{queued}");
    // Flow 0 (the lowest in the queue whenever it is there) loses most; the drops table agrees.
    let ccsim_core::measure::Column::Str(reasons) = r.drops.column("reason").unwrap() else { panic!() };
    let pk = r.drops.i64("pkts").unwrap();
    let sel_rows: i64 = reasons.iter().zip(pk).filter(|(r, _)| *r == "selective").map(|(_, p)| *p).sum();
    assert_eq!(sel_rows, purged);
    let sent = i64s(&r, "flows", "sent_pkts");
    let deliv = i64s(&r, "flows", "delivered_pkts");
    let qd = i64s(&r, "flows", "queue_drops");
    for f in 0..2 {
        // Every packet sent is delivered, dropped, or still in the network at the end.
        assert!(sent[f] - deliv[f] - qd[f] >= 0 && sent[f] - deliv[f] - qd[f] < 60, "flow {f}");
    }
}
