//! Flows with several receivers: one sender, a group address, replication where the tree
//! branches, per-receiver statistics.

use ccsim_core::measure::Column;
use ccsim_core::scenario::from_toml;
use ccsim_core::sim::{run_toml, Results};

fn strs(r: &ccsim_core::measure::Table, col: &str) -> Vec<String> {
    match r.column(col).unwrap() {
        Column::Str(v) => v.to_vec(),
        _ => panic!("{col} is not text"),
    }
}

fn scenario(elements: &str) -> String {
    format!(
        r#"
nodes = ["s", "r0", "r1", "d0", "d1", "d2", "r2", "d3"]
[simulation]
duration = "10s"
seed = 3
[[links]]
a = "s"
b = "r0"
rate = "100Mbps"
delay = "1ms"
[[links]]
a = "r0"
b = "r1"
rate = "10Mbps"
delay = "10ms"
[[links]]
a = "r1"
b = "d0"
rate = "100Mbps"
delay = "1ms"
[[links]]
a = "r1"
b = "d1"
rate = "2Mbps"
delay = "2ms"
queue = {{ kind = "droptail", limit = 10 }}
[[links]]
a = "r1"
b = "d2"
rate = "100Mbps"
delay = "3ms"
loss = {{ kind = "bernoulli", p = 0.05 }}
[[links]]
a = "r0"
b = "r2"
rate = "100Mbps"
delay = "1ms"
[[links]]
a = "r2"
b = "d3"
rate = "100Mbps"
delay = "1ms"
[[flows]]
name = "m"
kind = "onoff"
src = "s"
dst = ["d0", "d1", "d2", "d3"]
rate = "4Mbps"
packet_size = 1000
stop = "9s"
{elements}
"#
    )
}

const REPLICATE: &str = "[[elements]]\nkind = \"replicate\"\nnode = \"r0\"\n[[elements]]\nkind = \"replicate\"\nnode = \"r1\"\n";

fn per_receiver(r: &Results) -> Vec<(String, i64)> {
    strs(&r.receivers, "receiver").into_iter().zip(r.receivers.i64("delivered_pkts").unwrap().iter().copied()).collect()
}

/// Each receiver gets every packet not dropped on its branch; the shared links carry each
/// packet once; per-branch counts add up to sent × receivers − drops.
#[test]
fn each_receiver_gets_what_its_branch_did_not_drop() {
    let r = run_toml(&scenario(REPLICATE)).unwrap();
    let sent = r.flows.i64("sent_pkts").unwrap()[0];
    assert!(sent > 1000);
    let dirs = strs(&r.queues, "direction");
    let q = |d: &str, col: &str| r.queues.i64(col).unwrap()[dirs.iter().position(|x| x == d).unwrap()];
    // Shared links: once per packet.
    assert_eq!(q("s->r0", "departures"), sent);
    assert_eq!(q("r0->r1", "departures"), sent);
    assert_eq!(q("r0->r2", "departures"), sent);
    let drops = |d: &str| q(d, "drops_overflow") + q(d, "drops_loss");
    let got = per_receiver(&r);
    let want =
        [("d0", sent - drops("r1->d0")), ("d1", sent - drops("r1->d1")), ("d2", sent - drops("r1->d2")), ("d3", sent - drops("r2->d3"))];
    for ((name, n), (wn, w)) in got.iter().zip(want) {
        assert_eq!((name.as_str(), *n), (wn, w));
    }
    // The slow branch overflowed and the lossy one lost: receivers differ.
    assert!(drops("r1->d1") > 100 && drops("r1->d2") > 20 && drops("r1->d0") == 0);
    let total: i64 = got.iter().map(|(_, n)| n).sum();
    let all_drops: i64 = r.drops.i64("pkts").unwrap().iter().sum();
    assert_eq!(total, 4 * sent - all_drops);
    assert_eq!(r.flows.i64("delivered_pkts").unwrap()[0], total);
    // Goodput per receiver: its own bytes.
    let gp = r.receivers.i64("goodput_bytes").unwrap();
    assert_eq!(gp[0], got[0].1 * 1000);
    // r0 makes one copy per packet (two branches), r1 two (three branches).
    let copies = r.elements.i64("copies").unwrap();
    assert_eq!(copies, &[sent, q("r0->r1", "departures") * 2]);
}

#[test]
fn a_tree_that_branches_without_a_replicate_element_is_refused() {
    let e = from_toml(&scenario("[[elements]]\nkind = \"replicate\"\nnode = \"r1\"\n")).err().expect("invalid");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].message.contains("branches at node 'r0'") && e[0].message.contains("replicate"), "{}", e[0]);
    // TCP may have several receivers (each acknowledges to the sender; ATM's Multicast
    // Server combines their ACKs).
    let tcp = scenario(REPLICATE).replace("kind = \"onoff\"", "kind = \"tcp\"").replace("rate = \"4Mbps\"\npacket_size = 1000\n", "");
    assert!(from_toml(&tcp).is_ok());
}

/// Same seed, same results; unicast flows beside a multicast one are unaffected by it
/// (their rows in the receivers table repeat the flow table).
#[test]
fn unicast_rows_in_the_receivers_table_repeat_the_flow_table() {
    let r = run_toml(&scenario(REPLICATE).replace("dst = [\"d0\", \"d1\", \"d2\", \"d3\"]", "dst = \"d1\"")).unwrap();
    assert_eq!(r.receivers.rows(), 1);
    assert_eq!(r.receivers.i64("delivered_pkts").unwrap(), r.flows.i64("delivered_pkts").unwrap());
    assert_eq!(r.receivers.f64("delay_mean_s").unwrap(), r.flows.f64("delay_mean_s").unwrap());
    let a = run_toml(&scenario(REPLICATE)).unwrap();
    let b = run_toml(&scenario(REPLICATE)).unwrap();
    assert_eq!(a.receivers, b.receivers);
}

/// A replicate element whose filters do not admit a group's packets does not count.
#[test]
fn a_replicate_element_must_admit_the_group() {
    let filtered = format!("{REPLICATE}flows = [\"nope\"]\n");
    let e = from_toml(&scenario(&filtered)).err().expect("invalid");
    assert!(e.iter().any(|x| x.message.contains("branches at node 'r1'") && x.message.contains("filters")), "{e:?}");
    // `from` naming the tree's link into the node admits them.
    let ok = format!("{REPLICATE}from = \"r0->r1\"\n");
    assert!(from_toml(&scenario(&ok)).is_ok());
}
