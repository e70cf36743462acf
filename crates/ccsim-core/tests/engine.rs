//! End-to-end engine properties: exact timing, queue bounds, determinism, validation.

use ccsim_core::measure::Column;
use ccsim_core::scenario::{from_toml, ScenarioError};
use ccsim_core::sim::{run_toml, Simulation};

fn errors(toml: &str) -> Vec<ScenarioError> {
    match from_toml(toml) {
        Ok(_) => panic!("scenario unexpectedly valid"),
        Err(e) => e,
    }
}

/// Every error of `toml`, a line each.
fn error_text(toml: &str) -> String {
    errors(toml).iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")
}

/// Two nodes on a 10 Mb/s link for `duration`, then `rest` (flows, traces).
fn two_nodes(duration: &str, rest: &str) -> String {
    format!("nodes = [\"a\", \"b\"]\n[simulation]\nduration = \"{duration}\"\n[[links]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n{rest}")
}

const TWO_NODE: &str = r#"
[simulation]
duration = "1s"
nodes = ["a", "b"]
[[links]]
a = "a"
b = "b"
rate = "10Mbps"
delay = "35ms"
queue = { kind = "droptail", limit = 100 }
[[flows]]
name = "f"
kind = "cbr"
src = "a"
dst = "b"
rate = "1Mbps"
packet_size = "1500B"
stop = "0.5s"
"#;

#[test]
fn single_packet_delivery_time_is_exact() {
    // One 1500 B packet at 1 Mb/s CBR: 12 ms apart, no queueing on a 10 Mb/s link, so every
    // packet's delay is exactly 1.2 ms serialization + 35 ms propagation.
    let toml = TWO_NODE.replace("nodes = [\"a\", \"b\"]\n", "").replace("[simulation]", "nodes = [\"a\", \"b\"]\n[simulation]");
    let res = run_toml(&toml).unwrap();
    let min = res.flows.f64("delay_min_s").unwrap()[0];
    let max = res.flows.f64("delay_max_s").unwrap()[0];
    assert_eq!(min, 0.0362);
    assert_eq!(max, 0.0362);
    // 0.5 s of 12 ms gaps: packets at 0, 12, ..., 492 ms = 42 packets.
    assert_eq!(res.flows.i64("sent_pkts").unwrap()[0], 42);
    assert_eq!(res.flows.i64("delivered_pkts").unwrap()[0], 42);
}

#[test]
fn queueing_delay_adds_exact_serialization_times() {
    // 3 Mb/s offered into a 1 Mb/s... instead: back-to-back burst. CBR at 100 Mb/s on a
    // 100 Mb/s access link, then a 10 Mb/s link: packet k waits k·1.2 ms - k·0.12 ms.
    let toml = r#"
nodes = ["a", "r", "b"]
[simulation]
duration = "1s"
[[links]]
a = "a"
b = "r"
rate = "100Mbps"
delay = "0s"
[[links]]
a = "r"
b = "b"
rate = "10Mbps"
delay = "5ms"
queue = { kind = "droptail", limit = 1000 }
[[flows]]
name = "burst"
kind = "cbr"
src = "a"
dst = "b"
rate = "100Mbps"
packet_size = 1500
stop = "0.00059s"
"#;
    let res = run_toml(toml).unwrap();
    // 5 packets sent at 0, .12, .24, .36, .48 ms. Packet k leaves the access link at
    // (k+1)·0.12 ms, leaves the bottleneck at 0.12 + (k+1)·1.2 ms, arrives 5 ms later.
    // Its delay = 0.12 + (k+1)·1.2 + 5 − k·0.12 ms; the last (k=4) has 0.12+6+5−0.48.
    assert_eq!(res.flows.i64("delivered_pkts").unwrap()[0], 5);
    assert_eq!(res.flows.f64("delay_min_s").unwrap()[0], 0.00632);
    assert!((res.flows.f64("delay_max_s").unwrap()[0] - 0.01064).abs() < 1e-12);
}

#[test]
fn droptail_never_exceeds_limit_in_a_run() {
    let toml = r#"
[simulation]
duration = "5s"
[dumbbell]
senders = 3
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
queue = { kind = "droptail", limit = 20 }
[[flows]]
kind = "cbr"
count = 3
src = "s{i}"
dst = "d{i}"
rate = "5Mbps"
jitter = true
[[traces]]
kind = "queue"
link = "bottleneck"
interval = "1ms"
"#;
    let res = run_toml(toml).unwrap();
    let q = &res.series[0].1;
    assert!(q.f64("len_pkts").unwrap().iter().all(|&x| x <= 20.0));
    let maxlen = res.queues.i64("max_len_pkts").unwrap()[res_row(&res, "r0->r1")];
    assert_eq!(maxlen, 20);
    // 15 Mb/s offered into 10 Mb/s: about a third dropped, utilisation ~1.
    let util = res.queues.f64("utilization").unwrap()[res_row(&res, "r0->r1")];
    assert!(util > 0.99, "utilisation {util}");
    let lr: f64 = res.flows.f64("loss_rate").unwrap().iter().sum::<f64>() / 3.0;
    assert!((lr - 1.0 / 3.0).abs() < 0.02, "loss rate {lr}");
}

fn res_row(res: &ccsim_core::sim::Results, dir: &str) -> usize {
    match res.queues.column("direction").unwrap() {
        Column::Str(v) => v.iter().position(|d| d == dir).unwrap(),
        _ => unreachable!(),
    }
}

#[test]
fn same_seed_same_results_different_seed_different_draws() {
    let toml = |seed: u64| {
        format!(
            r#"
[simulation]
duration = "3s"
seed = {seed}
[dumbbell]
senders = 4
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
queue = {{ kind = "red" }}
loss = {{ kind = "bernoulli", p = 0.01 }}
[[flows]]
kind = "onoff"
count = 4
src = "s{{i}}"
dst = "d{{i}}"
rate = "6Mbps"
distribution = "pareto"
"#
        )
    };
    let a = run_toml(&toml(1)).unwrap();
    let b = run_toml(&toml(1)).unwrap();
    let c = run_toml(&toml(2)).unwrap();
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.queues, b.queues);
    assert_eq!(a.events, b.events);
    assert_ne!(a.flows, c.flows);
}

#[test]
fn adding_a_flow_keeps_other_flows_draws() {
    // Two unconnected paths: flow x's wire losses on link a-b must not change when flow y
    // (on c-d, with its own loss model) is added.
    let base = r#"
nodes = ["a", "b", "c", "d"]
[simulation]
duration = "2s"
[[links]]
a = "a"
b = "b"
rate = "10Mbps"
delay = "1ms"
loss = { kind = "bernoulli", p = 0.05 }
[[flows]]
name = "x"
kind = "onoff"
src = "a"
dst = "b"
rate = "1Mbps"
"#;
    let more = format!(
        "{base}{}",
        r#"
[[links]]
a = "c"
b = "d"
rate = "10Mbps"
delay = "1ms"
loss = { kind = "bernoulli", p = 0.05 }
[[flows]]
name = "y"
kind = "onoff"
src = "c"
dst = "d"
rate = "1Mbps"
"#
    );
    let r1 = run_toml(base).unwrap();
    let r2 = run_toml(&more).unwrap();
    assert_eq!(r1.flows.i64("wire_losses").unwrap()[0], r2.flows.i64("wire_losses").unwrap()[0]);
    assert_eq!(r1.flows.i64("sent_pkts").unwrap()[0], r2.flows.i64("sent_pkts").unwrap()[0]);
}

#[test]
fn bernoulli_link_loss_within_binomial_ci() {
    let toml = r#"
nodes = ["a", "b"]
[simulation]
duration = "20s"
[[links]]
a = "a"
b = "b"
rate = "100Mbps"
delay = "1ms"
queue = { kind = "droptail", limit = 1000 }
loss = { kind = "bernoulli", p = 0.02 }
[[flows]]
name = "f"
kind = "cbr"
src = "a"
dst = "b"
rate = "50Mbps"
packet_size = 1000
"#;
    let res = run_toml(toml).unwrap();
    let sent = res.flows.i64("sent_pkts").unwrap()[0] as f64;
    let lost = res.flows.i64("wire_losses").unwrap()[0] as f64;
    let sd = (sent * 0.02 * 0.98).sqrt();
    assert!((lost - 0.02 * sent).abs() < 4.0 * sd, "{lost} of {sent}");
}

#[test]
fn warmup_restarts_counters() {
    let toml = TWO_NODE
        .replace("duration = \"1s\"", "duration = \"1s\"\nwarmup = \"0.25s\"")
        .replace("[simulation]", "nodes = [\"a\", \"b\"]\n[simulation]")
        .replace("nodes = [\"a\", \"b\"]\n[[links]]", "[[links]]");
    let res = run_toml(&toml).unwrap();
    // Packets created at 252, 264, ..., 492 ms: 21 counted after warm-up.
    assert_eq!(res.flows.i64("sent_pkts").unwrap()[0], 21);
}

#[test]
fn validation_names_the_field() {
    let cases: &[(&str, &str, &str)] = &[
        ("rate = \"10Mbps\"", "rate = \"-10Mbps\"", "links[0].rate"),
        ("rate = \"10Mbps\"", "rate = \"10Mbsp\"", "links[0].rate"),
        ("delay = \"35ms\"", "delay = \"35 mss\"", "links[0].delay"),
        ("delay = \"35ms\"", "", "links[0].delay"),
        ("kind = \"droptail\"", "kind = \"fifo\"", "links[0].queue.kind"),
        ("b = \"b\"", "b = \"zz\"", "links[0].b"),
        ("packet_size = \"1500B\"", "packet_size = 0", "flows[0].packet_size"),
        ("packet_size = \"1500B\"", "pakcet_size = 1500", "flows[0].pakcet_size"),
        ("duration = \"1s\"", "", "simulation.duration"),
        ("kind = \"cbr\"", "kind = \"tcp-magic\"", "flows[0].kind"),
    ];
    let base = TWO_NODE.replace("nodes = [\"a\", \"b\"]\n", "").replace("[simulation]", "nodes = [\"a\", \"b\"]\n[simulation]");
    for (from, to, path) in cases {
        assert!(base.contains(from), "{from}");
        let bad = base.replacen(from, to, 1);
        let errs = errors(&bad);
        assert!(errs.iter().any(|e| e.path == *path), "expected an error at {path}, got {errs:?}");
    }
    let e = errors("this is = not toml [");
    assert!(e[0].message.contains("not valid TOML"), "{e:?}");
    let e = errors(&base.replace("kind = \"droptail\"", "kind = \"fifo\""));
    assert!(e[0].message.contains("droptail") && e[0].message.contains("red"), "{e:?}");
}

#[test]
fn red_queue_runs_and_drops_early() {
    let toml = r#"
[simulation]
duration = "10s"
[dumbbell]
senders = 2
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
queue = { kind = "red", limit = 100, min_th = 5, max_th = 15, max_p = 0.1, w_q = 0.002 }
[[flows]]
kind = "cbr"
count = 2
src = "s{i}"
dst = "d{i}"
rate = "5.5Mbps"
jitter = true
"#;
    let res = run_toml(toml).unwrap();
    let i = res_row(&res, "r0->r1");
    let early = res.queues.i64("drops_early").unwrap()[i];
    let overflow = res.queues.i64("drops_overflow").unwrap()[i];
    assert!(early > 0);
    assert_eq!(overflow, 0);
    // RED keeps the mean queue well below the buffer.
    assert!(res.queues.f64("mean_len_pkts").unwrap()[i] < 40.0);
    let sim = Simulation::new(from_toml(toml).unwrap());
    assert_eq!(sim.network().links.len(), 2 * 5);
}

/// A run's `packets` and `drops` traces share a total: four of them hold at most 2.5
/// million events each (one alone, 5 million), so that tracing many links cannot take tens
/// of gigabytes.
#[test]
fn packet_and_drop_logs_share_a_total() {
    let caps = |traces: &str| {
        let toml = format!(
            r#"
nodes = ["a", "b", "c"]
[simulation]
duration = "1s"
[[links]]
a = "a"
b = "b"
rate = "10Mbps"
delay = "1ms"
[[links]]
a = "b"
b = "c"
rate = "10Mbps"
delay = "1ms"
{traces}"#
        );
        let sim = Simulation::new(ccsim_core::scenario::from_toml(&toml).unwrap());
        let net = sim.network();
        let mut caps: Vec<usize> = net.links.iter().filter_map(|l| l.packet_log.as_ref().map(|g| g.cap)).collect();
        caps.extend(net.links.iter().filter_map(|l| l.drop_log.as_ref().map(|g| g.cap)));
        caps
    };
    let one = "[[traces]]\nkind = \"packets\"\nlink = \"a->b\"\n";
    assert_eq!(caps(one), [5_000_000]);
    let four = ["a->b", "b->a", "b->c"].iter().map(|l| format!("[[traces]]\nkind = \"packets\"\nlink = \"{l}\"\n")).collect::<String>()
        + "[[traces]]\nkind = \"drops\"\nlink = \"c->b\"\n";
    assert_eq!(caps(&four), [2_500_000; 4]);
}

/// A trace samples at 0, the interval, twice it, ... up to the duration: the limit of 10⁶
/// samples counts them all (the message had said one sample fewer than the run takes).
#[test]
fn a_traces_samples_are_counted_as_taken() {
    let scenario =
        |interval: &str| two_nodes("10s", &format!("[[traces]]\nkind = \"queue\"\nlink = \"a->b\"\ninterval = \"{interval}\"\n"));
    let e = errors(&scenario("10us"));
    assert!(e[0].to_string().contains("gives 1000001 samples"), "{}", e[0]);
    assert!(e[0].to_string().contains("longer than 0.00001 s"), "{}", e[0]);
    assert!(from_toml(&scenario("10.001us")).is_ok());
    let r = run_toml(&scenario("1s")).unwrap();
    assert_eq!(r.series[0].1.rows(), 11);
}

/// A TOML date or time is read as its text: a field that takes a string keeps it, any
/// other names it in its error (the error had shown an internal
/// `{"$__toml_private_datetime": ...}` table).
#[test]
fn a_toml_date_is_read_as_its_text() {
    let v = ccsim_core::scenario::toml_to_value("name = 2024-01-01\n[t]\nat = [07:30:00]\n").unwrap();
    assert_eq!(v, serde_json::json!({"name": "2024-01-01", "t": {"at": ["07:30:00"]}}));
    let text = error_text("nodes = [\"a\"]\n[simulation]\nduration = 1979-05-27T07:32:00Z\n");
    assert!(text.contains("simulation.duration: invalid time '1979-05-27T07:32:00Z'"), "{text}");
    assert!(!text.contains("toml_private"), "{text}");
    let e = ccsim_core::scenario::toml_to_value("[a]\nb = [1.0, nan]\n").unwrap_err();
    assert_eq!((e.path.as_str(), e.message.as_str()), ("a.b[1]", "expected a finite number, got NaN"));
}

/// One sampled trace per queue, flow and element: a second of the same (another interval,
/// or `flow = "*"` over a flow traced already) had silently replaced the first's series.
/// Two pcap files whose names differ only in case are one file on macOS and Windows.
#[test]
fn a_queue_or_flow_is_traced_once() {
    let flow = "[[flows]]\nname = \"f\"\nkind = \"cbr\"\nsrc = \"a\"\ndst = \"b\"\nrate = \"1Mbps\"\n";
    let scenario = |traces: &str| two_nodes("1s", &format!("{flow}{traces}"));
    let text = |toml: String| error_text(&toml);
    let queue = "[[traces]]\nkind = \"queue\"\nlink = \"a->b\"\n[[traces]]\nkind = \"queue\"\nlink = \"a->b\"\ninterval = \"50ms\"\n";
    let e = text(scenario(queue));
    assert!(e.contains("traces[1]: the queue of a->b is traced already (traces[0])"), "{e}");
    let flows = "[[traces]]\nkind = \"flow\"\nflow = \"f\"\n[[traces]]\nkind = \"flow\"\nflow = \"*\"\n";
    let e = text(scenario(flows));
    assert!(e.contains("traces[1]: flow 'f' is traced already (traces[0])"), "{e}");
    let pcaps = "[[traces]]\nkind = \"pcap\"\nlink = \"a->b\"\nfile = \"A.pcap\"\n[[traces]]\nkind = \"pcap\"\nlink = \"b->a\"\nfile = \"a.pcap\"\n";
    let e = text(scenario(pcaps));
    assert!(e.contains("two pcap traces write 'A.pcap' and 'a.pcap'"), "{e}");
    // Different targets, and a queue beside a flow, are fine.
    let ok = "[[traces]]\nkind = \"queue\"\nlink = \"a->b\"\n[[traces]]\nkind = \"queue\"\nlink = \"b->a\"\n[[traces]]\nkind = \"flow\"\nflow = \"*\"\n";
    assert!(from_toml(&scenario(ok)).is_ok());
}

/// A range's ends read as people write them: the seed's largest is 2^63 - 1 (it read
/// 9223372036854775807 here and 2^63 - 1 from the command line).
#[test]
fn an_integer_range_reads_as_written() {
    let e = errors("nodes = [\"a\"]\n[simulation]\nduration = \"1s\"\nseed = -1\n");
    assert_eq!(e[0].to_string(), "simulation.seed: expected a whole number from 0 to 2^63 - 1, got -1");
}
