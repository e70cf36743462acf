//! UDT under adversarial but valid parameters: no panic (this runs with overflow checks),
//! no stall, bounded work.

use ccsim_core::sim::run_toml;

fn scenario(flow: &str, loss: f64, rate: &str) -> String {
    format!(
        r#"
[simulation]
duration = 2
seed = 3
[dumbbell]
senders = 1
bottleneck_rate = "{rate}"
bottleneck_delay = "10ms"
access_rate = "10Gbps"
access_delay = "10us"
queue = {{ kind = "droptail", limit = 50 }}
loss = {{ kind = "bernoulli", p = {loss} }}
[[flows]]
name = "u"
kind = "udt"
src = "s0"
dst = "d0"
{flow}
"#
    )
}

fn col(r: &ccsim_core::sim::Results, name: &str) -> f64 {
    let t = &r.flows;
    if let Some(v) = t.f64(name) {
        return v[0];
    }
    t.i64(name).unwrap()[0] as f64
}

#[test]
fn extreme_parameters_run_without_panic() {
    let cases = [
        // An uncapped period that ×10 decreases drive past any clock (clamped, no overflow).
        ("cc_params = { rtt_cap = false, decrease = 10 }", 0.05, "100Mbps"),
        ("profile = \"udt4\"\ncc_params = { decrease = 10, max_decreases = 1000000 }", 0.05, "100Mbps"),
        // Tiny packets at a gigabit: sub-microsecond gaps.
        ("packet_size = 64", 0.0, "1Gbps"),
        ("profile = \"udt4\"\npacket_size = 64", 0.01, "1Gbps"),
        // The smallest buffer, a light ACK per packet, the shortest SYN.
        ("profile = \"udt4\"\nbuffer = 2\nlight_ack_every = 1\nsyn = \"100us\"", 0.01, "100Mbps"),
        ("profile = \"udt4\"\nack_has_buffer = false\nlight_ack_every = 1", 0.01, "100Mbps"),
        // The proposal with a 1 ns floor, in slow start too, on both bases.
        ("cc = \"rttpred\"\ncc_params = { min_period = \"1ns\", in_slow_start = true }", 0.01, "1Gbps"),
        ("profile = \"udt4\"\ncc = \"rttpred\"\ncc_params = { min_period = \"1ns\", in_slow_start = true }", 0.01, "1Gbps"),
        ("bytes = 1", 0.0, "100Mbps"),
        ("profile = \"udt4\"\nbytes = 1457", 0.3, "100Mbps"),
    ];
    for (flow, loss, rate) in cases {
        let r = run_toml(&scenario(flow, loss, rate)).unwrap_or_else(|e| panic!("{flow}: {e:?}"));
        assert!(col(&r, "sent_pkts") > 0.0, "{flow}");
        assert!(r.events < 50_000_000, "{flow}: {} events", r.events);
    }
}
