//! Flows created during a run: completion times against a hand computation, one table row
//! per flow, closed-loop think times, determinism and independent random streams, stale
//! packets of earlier flows in reused slots.

use ccsim_core::dist::Dist;
use ccsim_core::measure::{Column, Table};
use ccsim_core::sim::{run_toml, Results};

fn strs(t: &Table, col: &str) -> Vec<String> {
    match t.column(col).unwrap() {
        Column::Str(v) => v.to_vec(),
        _ => panic!("{col} is not text"),
    }
}

/// One 8 Mb/s, 10 ms link; ns-2 TCP (1000-byte segments + 40 header bytes: 1.04 ms on the
/// wire, 40-byte ACKs: 0.04 ms, an ACK per segment, initial window 2, slow start +1 per
/// ACK, no handshake). Each generator opens one transfer, a second apart, alone.
const LONE: &str = r#"
nodes = ["a", "b"]
[simulation]
duration = "5s"
[[links]]
a = "a"
b = "b"
rate = "8Mbps"
delay = "10ms"
queue = { kind = "droptail", limit = 1000 }
[[generators]]
name = "six"
src = "a"
dst = "b"
arrivals = { kind = "times", times = [0] }
size = { kind = "fixed", value = 6000 }
transport = { kind = "tcp", handshake = false }
[[generators]]
name = "fourteen"
src = "a"
dst = "b"
arrivals = { kind = "times", times = [1] }
size = { kind = "fixed", value = 14000 }
transport = { kind = "tcp", handshake = false }
[[generators]]
name = "thirteen-and-a-half"
src = "a"
dst = "b"
arrivals = { kind = "times", times = [2] }
size = { kind = "fixed", value = 13500 }
transport = { kind = "tcp", handshake = false }
"#;

/// Without the handshake (one-way TCP as ns-2 with `syn_ false`). By hand (times in ms; a segment leaves 1.04 ms after it starts and arrives 10 ms
/// later; its ACK is back 10.04 ms after that and releases two segments):
/// - 6 segments: 1, 2 sent at 0 arrive 11.04, 12.08; ACK 1 (back 21.08) sends 3, 4
///   (leave 22.12, 23.16), ACK 2 (22.12) sends 5, 6 (24.20, 25.24): 6 arrives at 35.24.
///   The transfer ends in slow start (cwnd 4).
/// - 14 segments: 3-6 arrive 32.12 .. 35.24, their ACKs (42.16 .. 45.28) send 7-14 back to
///   back from 42.16: 14 leaves at 42.16 + 8 × 1.04 = 50.48 and arrives at 60.48.
/// - 13 500 bytes: as 14 segments but the last carries 500 bytes (540 on the wire,
///   0.54 ms): it leaves at 49.98, arrives at 59.98.
///
/// Alone on its path, each flow's slowdown is exactly 1.
#[test]
fn a_lone_transfer_completes_when_slow_start_says() {
    let r = run_toml(LONE).unwrap();
    let f = &r.fct;
    assert_eq!(f.rows(), 3);
    // Rows in generator order, then by flow.
    assert_eq!(strs(f, "generator"), ["six", "fourteen", "thirteen-and-a-half"].map(String::from));
    let fct = f.f64("fct_s").unwrap();
    let want = [35.24e-3, 60.48e-3, 59.98e-3];
    for (got, want) in fct.iter().zip(want) {
        assert!((got - want).abs() < 1e-12, "fct {got} s, by hand {want} s");
    }
    assert_eq!(f.f64("ideal_s").unwrap(), fct);
    assert!(f.f64("slowdown").unwrap().iter().all(|&s| s == 1.0));
    assert_eq!(f.i64("sent_pkts").unwrap(), &[6, 14, 14]);
    assert_eq!(r.flows_opened, 3);
    assert_eq!(r.flows.rows(), 0, "generated flows are not in the flows table");
}

const WEB: &str = r#"
[simulation]
duration = "20s"
seed = 5
[dumbbell]
senders = 4
access_rate = "100Mbps"
access_delays = ["1ms", "2ms", "3ms", "4ms"]
bottleneck_rate = "20Mbps"
bottleneck_delay = "10ms"
queue = { kind = "droptail", limit = 60 }
[[generators]]
name = "web"
src = "s{0..3}"
dst = "d{0..3}"
arrivals = { kind = "poisson", rate = 30 }
size = { kind = "pareto", mean = "30KB", shape = 1.3 }
transport = { kind = "tcp", profile = "linux", recovery = "newreno" }
[[generators]]
name = "udp"
src = "d{0..3}"
dst = "s{0..3}"
arrivals = { kind = "poisson", rate = 10 }
size = { kind = "exponential", mean = "20KB" }
transport = { kind = "cbr", rate = "2Mbps", packet_size = 1000 }
slowdown = false
"#;

/// Every flow opened has one row (those still open at the end with no end time), with
/// ids 0..n per generator; TCP flows complete with the receiver's last byte, UDP bursts
/// when each packet was delivered or dropped; the same seed gives the same table.
#[test]
fn one_row_per_flow_opened_and_the_same_table_for_the_same_seed() {
    let r = run_toml(WEB).unwrap();
    let f = &r.fct;
    assert_eq!(f.rows() as u64, r.flows_opened);
    assert!(r.flows_opened > 600, "{}", r.flows_opened);
    let gens = strs(f, "generator");
    let ids = f.i64("flow").unwrap();
    for g in ["web", "udp"] {
        let mine: Vec<i64> = gens.iter().zip(ids).filter(|(x, _)| *x == g).map(|(_, &i)| i).collect();
        assert_eq!(mine, (0..mine.len() as i64).collect::<Vec<_>>(), "{g}");
    }
    let (end, start, fct) = (f.f64("end_s").unwrap(), f.f64("start_s").unwrap(), f.f64("fct_s").unwrap());
    let open = end.iter().filter(|e| e.is_nan()).count();
    assert!(open < 20, "{open} flows still open");
    for i in 0..f.rows() {
        if !end[i].is_nan() {
            assert!(end[i] > start[i] && (fct[i] - (end[i] - start[i])).abs() < 1e-9);
        }
    }
    // UDP bursts: no ideal time asked; packets sent = ceil(size / 1000).
    let sizes = f.i64("size_bytes").unwrap();
    let sent = f.i64("sent_pkts").unwrap();
    for i in (0..f.rows()).filter(|&i| gens[i] == "udp" && !end[i].is_nan()) {
        assert_eq!(sent[i], (sizes[i] + 999) / 1000);
        assert!(f.f64("ideal_s").unwrap()[i].is_nan());
    }
    // Sizes follow their distribution (a coarse check of the tail: mean within 30 %).
    let web: Vec<f64> = (0..f.rows()).filter(|&i| gens[i] == "web").map(|i| sizes[i] as f64).collect();
    assert!(web.iter().all(|&s| s >= 30_000.0 * 0.3 / 1.3 - 1.0));
    let again = run_toml(WEB).unwrap();
    assert_eq!(r.fct, again.fct);
}

/// Adding a generator changes no draw of another: the first generator's sizes, pairs and
/// start times stay the same (its completion times may change: the flows now compete).
#[test]
fn adding_a_generator_leaves_the_others_draws_alone() {
    let only = WEB.split("[[generators]]\nname = \"udp\"").next().unwrap().to_string();
    let (a, b) = (run_toml(&only).unwrap(), run_toml(WEB).unwrap());
    let web = |r: &Results, col: &str| -> Vec<String> {
        let g = strs(&r.fct, "generator");
        let vals: Vec<String> = match r.fct.column(col).unwrap() {
            Column::Str(v) => v.to_vec(),
            Column::I64(v) => v.iter().map(|x| x.to_string()).collect(),
            Column::F64(v) => v.iter().map(|x| x.to_bits().to_string()).collect(),
        };
        g.iter().zip(vals).filter(|(g, _)| *g == "web").map(|(_, v)| v).collect()
    };
    for col in ["size_bytes", "src", "dst", "start_s"] {
        assert_eq!(web(&a, col), web(&b, col), "{col}");
    }
    assert_ne!(web(&a, "fct_s"), web(&b, "fct_s"));
}

/// Closed loop: each user waits a think time after each completion; the waits follow their
/// distribution (Kolmogorov-Smirnov against the exponential, α = 0.01).
#[test]
fn closed_loop_think_times_follow_their_distribution() {
    let toml = r#"
nodes = ["c0", "c1", "r", "srv"]
[simulation]
duration = "200s"
seed = 8
[[links]]
a = "c0"
b = "r"
rate = "50Mbps"
delay = "2ms"
[[links]]
a = "c1"
b = "r"
rate = "50Mbps"
delay = "5ms"
[[links]]
a = "r"
b = "srv"
rate = "20Mbps"
delay = "10ms"
[[generators]]
name = "users"
src = "srv"
dst = ["c0", "c1"]
arrivals = { kind = "closed", users = 6, think = { kind = "exponential", mean = "500ms" } }
size = { kind = "lognormal", mean = "20KB", sigma = 1.0 }
transport = { kind = "tcp", profile = "linux" }
"#;
    let r = run_toml(toml).unwrap();
    let f = &r.fct;
    let (user, start, end) = (f.i64("user").unwrap(), f.f64("start_s").unwrap(), f.f64("end_s").unwrap());
    let dst = strs(f, "dst");
    let mut waits = Vec::new();
    for u in 0..6 {
        let rows: Vec<usize> = (0..f.rows()).filter(|&i| user[i] == u).collect();
        // A user's flows never overlap, and it always receives at the same host.
        assert!(rows.iter().all(|&i| dst[i] == dst[rows[0]]));
        assert_eq!(dst[rows[0]], if u % 2 == 0 { "c0" } else { "c1" });
        for w in rows.windows(2) {
            assert!(start[w[1]] >= end[w[0]]);
            waits.push(start[w[1]] - end[w[0]]);
        }
    }
    assert!(waits.len() > 1000, "{}", waits.len());
    waits.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let d = Dist::Exponential { mean: 0.5 };
    let n = waits.len() as f64;
    let ks = waits
        .iter()
        .enumerate()
        .map(|(i, &w)| (d.cdf(w) - i as f64 / n).abs().max((d.cdf(w) - (i + 1) as f64 / n).abs()))
        .fold(0.0, f64::max);
    assert!(ks < 1.63 / n.sqrt(), "KS {ks} for {n} waits");
    // Against a wrong mean the same test fails.
    let wrong = Dist::Exponential { mean: 0.6 };
    let ks_wrong = waits.iter().enumerate().map(|(i, &w)| (wrong.cdf(w) - i as f64 / n).abs()).fold(0.0, f64::max);
    assert!(ks_wrong > 1.63 / n.sqrt());
}

/// Slots are reused: packets and timers of a finished flow that are still about must not
/// reach the flow that took its slot. A lossy reverse path makes spurious retransmissions
/// (their duplicates' ACKs outlive the flows); counts stay consistent.
#[test]
fn stale_packets_of_earlier_flows_are_discarded() {
    let toml = r#"
nodes = ["a", "b"]
[simulation]
duration = "60s"
seed = 2
[[links]]
a = "a"
b = "b"
rate = "10Mbps"
delay = "20ms"
queue = { kind = "droptail", limit = 10 }
loss = { kind = "bernoulli", p = 0.05, direction = "both" }
[[generators]]
name = "g"
src = "a"
dst = "b"
arrivals = { kind = "closed", users = 3, think = { kind = "exponential", mean = "10ms" } }
size = { kind = "fixed", value = "30KB" }
transport = { kind = "tcp", min_rto = "50ms", initial_rto = "100ms" }
"#;
    let r = run_toml(toml).unwrap();
    assert!(r.flows_opened > 300, "{}", r.flows_opened);
    assert!(r.stale_packets > 0, "the test should make stale packets");
    let f = &r.fct;
    let end = f.f64("end_s").unwrap();
    let done = end.iter().filter(|e| !e.is_nan()).count();
    assert!(done as u64 + 3 >= r.flows_opened, "{done} of {}", r.flows_opened);
    // Each completed transfer got exactly its 30 segments' worth: sent ≥ 30 and the
    // receiver completed (no flow finished on another flow's packets).
    assert!(f.i64("sent_pkts").unwrap().iter().zip(end).all(|(&s, e)| e.is_nan() || s >= 30));
}

/// Overlapping pools: a flow never joins a node to itself, whatever is drawn; a closed
/// loop whose user would have no sender is refused.
#[test]
fn overlapping_pools_never_pair_a_node_with_itself() {
    let toml = r#"
nodes = ["a", "b", "c"]
[simulation]
duration = "3s"
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
[[generators]]
name = "one-sender"
src = "a"
dst = ["a", "b"]
arrivals = { kind = "poisson", rate = 50 }
size = { kind = "fixed", value = 2000 }
transport = { kind = "cbr", rate = "1Mbps" }
[[generators]]
name = "mixed"
src = ["a", "b", "c"]
dst = ["a", "b", "c"]
arrivals = { kind = "poisson", rate = 50 }
size = { kind = "fixed", value = 2000 }
transport = { kind = "cbr", rate = "1Mbps" }
"#;
    let r = run_toml(toml).unwrap();
    let (src, dst, gen) = (strs(&r.fct, "src"), strs(&r.fct, "dst"), strs(&r.fct, "generator"));
    assert_eq!(r.fct.rows() as u64, r.flows_opened);
    assert!(r.flows_opened > 200);
    for i in 0..r.fct.rows() {
        assert_ne!(src[i], dst[i]);
        if gen[i] == "one-sender" {
            assert_eq!((src[i].as_str(), dst[i].as_str()), ("a", "b"));
        }
    }
    let closed = toml.replacen(
        "arrivals = { kind = \"poisson\", rate = 50 }",
        "arrivals = { kind = \"closed\", users = 2, think = { kind = \"fixed\", value = 0.1 } }",
        1,
    );
    let e = ccsim_core::scenario::from_toml(&closed).err().expect("refused");
    assert!(e.iter().any(|x| x.path == "generators[0].dst" && x.message.contains("closed loop")), "{e:?}");
}

/// `stop` ends each closed-loop user on its own: a user whose next flow would open after
/// `stop` stops, the others go on until theirs do (one user reaching `stop` once ended
/// them all).
#[test]
fn closed_loop_users_stop_one_by_one() {
    let mut toml = String::from("nodes = [\"srv\", \"r\", \"c0\", \"c1\", \"c2\", \"c3\"]\n[simulation]\nduration = \"12s\"\nseed = 4\n");
    toml += "[[links]]\na = \"srv\"\nb = \"r\"\nrate = \"100Mbps\"\ndelay = \"1ms\"\n";
    for (i, d) in ["3ms", "40ms", "90ms", "170ms"].iter().enumerate() {
        toml += &format!("[[links]]\na = \"r\"\nb = \"c{i}\"\nrate = \"50Mbps\"\ndelay = \"{d}\"\n");
    }
    toml += r#"
[[generators]]
name = "users"
src = "srv"
dst = "c{0..3}"
arrivals = { kind = "closed", users = 8, think = { kind = "fixed", value = "0.5s" } }
size = { kind = "exponential", mean = "30KB" }
transport = { kind = "tcp", profile = "linux" }
stop = "5s"
"#;
    let r = run_toml(&toml).unwrap();
    let f = &r.fct;
    let (user, start, end) = (f.i64("user").unwrap(), f.f64("start_s").unwrap(), f.f64("end_s").unwrap());
    for u in 0..8 {
        let rows: Vec<usize> = (0..f.rows()).filter(|&i| user[i] == u).collect();
        let last = *rows.last().unwrap();
        assert!(start[last] < 5.0);
        // Its next flow would have opened at end + 0.5 s: at or after stop, or it would exist.
        assert!(end[last] + 0.5 >= 5.0 - 1e-9, "user {u} stopped at {} (next at {})", end[last], end[last] + 0.5);
    }
}
