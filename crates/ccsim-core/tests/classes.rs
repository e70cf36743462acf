//! Per-class (DSCP) accounting: the counters equal what a pcap of the same link shows, and
//! the event-free fast paths count classes exactly as the per-hop reference.

use ccsim_core::measure::{Column, Table};
use ccsim_core::scenario::from_toml;
use ccsim_core::sim::{Results, SimOptions, Simulation};
use std::collections::BTreeMap;

/// Two flows through r: a policer there re-marks one flow's excess AF12 and conforms the
/// rest AF11; the other stays best effort. Downstream, m -> d is a shared DropTail link
/// that overflows, and d -> e a lossy last hop; both run event-free in the default mode.
const SCENARIO: &str = r#"
nodes = ["a", "b", "r", "m", "d", "e"]
[simulation]
duration = "8s"
seed = 6
warmup = "1s"
[[links]]
a = "a"
b = "r"
rate = "100Mbps"
delay = "1ms"
[[links]]
a = "b"
b = "r"
rate = "100Mbps"
delay = "2ms"
[[links]]
a = "r"
b = "m"
rate = "20Mbps"
delay = "5ms"
[[links]]
a = "m"
b = "d"
rate = "6Mbps"
delay = "3ms"
queue = { kind = "droptail", limit = 25 }
[[links]]
a = "d"
b = "e"
rate = "10Mbps"
delay = "1ms"
loss = { kind = "bernoulli", p = 0.02 }
[[flows]]
name = "marked"
kind = "cbr"
src = "a"
dst = "e"
rate = "4Mbps"
jitter = true
[[flows]]
name = "plain"
kind = "onoff"
src = "b"
dst = "e"
rate = "5Mbps"
[[elements]]
kind = "policer"
node = "r"
flows = ["marked"]
rate = "2.5Mbps"
burst = "5KB"
action = "remark"
conform_dscp = "AF11"
exceed_dscp = "AF12"
[[traces]]
kind = "queue"
link = "m->d"
interval = "100ms"
classes = ["BE", "AF11", 12]
"#;

fn strs(t: &Table, c: &str) -> Vec<String> {
    match t.column(c).unwrap() {
        Column::Str(v) => v.to_vec(),
        _ => panic!(),
    }
}

fn rows(t: &Table, key: &str, name: &str) -> BTreeMap<i64, Vec<i64>> {
    let names = strs(t, key);
    let cls = t.i64("class").unwrap();
    let mut out = BTreeMap::new();
    for i in (0..t.rows()).filter(|&i| names[i] == name) {
        let vals = t
            .columns
            .iter()
            .filter(|(n, _)| n != "class")
            .filter_map(|(_, c)| if let Column::I64(v) = c { Some(v[i]) } else { None })
            .collect();
        out.insert(cls[i], vals);
    }
    out
}

/// Departures per class from a pcap (the TOS byte of each captured packet, after warm-up).
fn pcap_classes(path: &std::path::Path, after_ns: u64) -> BTreeMap<i64, i64> {
    let b = std::fs::read(path).unwrap();
    let mut out = BTreeMap::new();
    let mut at = 24;
    while at + 16 <= b.len() {
        let sec = u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as u64;
        let ns = u32::from_le_bytes(b[at + 4..at + 8].try_into().unwrap()) as u64;
        let caplen = u32::from_le_bytes(b[at + 8..at + 12].try_into().unwrap()) as usize;
        if sec * 1_000_000_000 + ns >= after_ns {
            *out.entry((b[at + 16 + 15] >> 2) as i64).or_default() += 1;
        }
        at += 16 + caplen;
    }
    out
}

#[test]
fn class_counters_equal_a_pcap_of_the_link() {
    let dir = std::env::temp_dir().join(format!("ccsim-classes-{}", std::process::id()));
    let toml = format!("{SCENARIO}\n[[traces]]\nkind = \"pcap\"\nlink = \"m->d\"\nfile = \"md.pcap\"\n");
    let opts = SimOptions { output_dir: Some(dir.clone()), ..Default::default() };
    let r = Simulation::with_options(from_toml(&toml).unwrap(), &opts).unwrap().run_to_results(None);
    let from_pcap = pcap_classes(&dir.join("md.pcap"), 1_000_000_000);
    std::fs::remove_dir_all(&dir).ok();
    let q = rows(&r.queue_classes, "direction", "m->d");
    assert_eq!(q.keys().copied().collect::<Vec<_>>(), vec![0, 10, 12]);
    // pcap records a packet when its serialization starts: a departure.
    let departures: BTreeMap<i64, i64> = q.iter().map(|(c, v)| (*c, v[2])).collect();
    assert_eq!(departures, from_pcap);
    // Every class lost packets at this queue, and on the lossy hop after it.
    for v in q.values().chain(rows(&r.queue_classes, "direction", "d->e").values()) {
        assert!(v[4] > 0, "{v:?}");
    }
    let total: i64 = q.values().map(|v| v[0]).sum();
    let dirs = strs(&r.queues, "direction");
    let md = dirs.iter().position(|d| d == "m->d").unwrap();
    assert_eq!(total, r.queues.i64("arrivals").unwrap()[md]);
    // The policer's counts: AF11 packets are those it passed as conforming.
    let f = rows(&r.flow_classes, "flow", "marked");
    assert_eq!(f.keys().copied().collect::<Vec<_>>(), vec![0, 10, 12]);
    assert_eq!(f[&0][2], 0, "every packet of the marked flow was marked on the way");
    assert!(rows(&r.flow_classes, "flow", "plain").is_empty());
    // The per-class series has its columns and ends at the table's totals.
    let s = &r.series.iter().find(|(n, _)| n == "queue:m->d").unwrap().1;
    let last = |c: &str| *s.f64(c).unwrap().last().unwrap() as i64;
    assert_eq!(last("departures:AF11"), q[&10][2]);
    assert_eq!(last("arrivals:BE") + last("arrivals:AF11") + last("arrivals:AF12"), total);
}

#[test]
fn fast_paths_count_classes_as_the_per_hop_reference() {
    let run = |per_hop: bool| -> Results {
        let opts = SimOptions { per_hop_events: per_hop, ..Default::default() };
        Simulation::with_options(from_toml(SCENARIO).unwrap(), &opts).unwrap().run_to_results(None)
    };
    let (fast, reference) = (run(false), run(true));
    assert_eq!(fast.queue_classes, reference.queue_classes);
    assert_eq!(fast.flow_classes, reference.flow_classes);
    assert!(fast.queue_classes.rows() >= 6);
    assert_eq!(fast.series, reference.series);
}
