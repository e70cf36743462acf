"""Warm-up restarts every counter: each column after warm-up is derived independently — from
pcap captures (dpkt) read after the warm-up instant, from whole-run trace totals, or as a
whole run minus a run that ends at the warm-up instant (runs are identical up to then) —
and compared with what ccsim reports."""

import copy
import math
from pathlib import Path

import dpkt
import pytest

import ccsim

# The flows stop sending new data a second before the end: nothing is left queued at the
# senders' access links, where a capture would not see it.
WARMUP, DURATION = 6.0, 15.0
ACCESS_BPS, ACCESS_DELAY = 100e6, 0.001

SCENARIO = f"""
name = "warmup-check"
[simulation]
duration = "{DURATION}s"
warmup = "{WARMUP}s"
seed = 13
[dumbbell]
senders = 2
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "20ms"
queue = {{ kind = "droptail", limit = 12 }}
loss = {{ kind = "bernoulli", p = 0.03 }}
[[flows]]
name = "ns2"
kind = "tcp"
profile = "ns2"
src = "s0"
dst = "d0"
stop = "14s"
[[flows]]
name = "linux"
kind = "tcp"
profile = "linux"
cc = "westwood"
src = "s1"
dst = "d1"
start = "0.3s"
stop = "14s"
[[traces]]
kind = "pcap"
link = "s0->r0"
[[traces]]
kind = "pcap"
link = "r1->d0"
[[traces]]
kind = "pcap"
link = "d0->r1"
[[traces]]
kind = "pcap"
link = "s1->r0"
[[traces]]
kind = "pcap"
link = "r0->s1"
[[traces]]
kind = "pcap"
link = "r0->r1"
[[traces]]
kind = "flow"
flow = "ns2"
interval = "{WARMUP / 4}s"
[[traces]]
kind = "flow"
flow = "linux"
interval = "{WARMUP / 4}s"
"""


def packets(path, delay=0.0, rate=None):
    """(time, ip, tcp, payload bytes) of every captured packet; `time` is the capture time
    (start of serialization) plus, with `rate`, the serialization and `delay`: the arrival
    at the far end."""
    out = []
    with open(path, "rb") as f:
        for ts, buf in dpkt.pcap.Reader(f):
            ip = dpkt.ethernet.Ethernet(buf).data
            tcp = ip.data
            t = float(ts) + (ip.len * 8 / rate + delay if rate else 0.0)
            out.append((t, ip, tcp, ip.len - 4 * ip.hl - 4 * tcp.off))
    return out


def after(pkts):
    # No event may sit so close to the boundary that the capture's rounding could move it.
    assert all(abs(t - WARMUP) > 5e-6 for t, *_ in pkts), "an event within 5 us of the warm-up instant"
    return [p for p in pkts if p[0] >= WARMUP]


def ts_ecr(tcp):
    for kind, data in dpkt.tcp.parse_opts(tcp.opts):
        if kind == dpkt.tcp.TCP_OPT_TIMESTAMP:
            return int.from_bytes(data[4:8], "big")
    return None


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("warmup")
    scen = ccsim.loads(SCENARIO)
    res = ccsim.run(scen, pcap_dir=d / "pcap")
    cut = ccsim.loads(SCENARIO)
    cut["simulation"]["duration"] = f"{WARMUP}s"
    del cut["simulation"]["warmup"]
    cut["traces"] = [t for t in cut["traces"] if t["kind"] != "pcap"]
    whole = ccsim.loads(SCENARIO)
    del whole["simulation"]["warmup"]
    whole["traces"] = list(cut["traces"])
    return res, ccsim.run(whole), ccsim.run(cut), d / "pcap"


def row(table, name, col="name"):
    return table[table[col] == name].iloc[0]


def test_sender_counters_match_the_capture(runs):
    res, _, _, pcap = runs
    for flow, link in (("ns2", "s0-r0"), ("linux", "s1-r0")):
        f = row(res.flows, flow)
        pk = packets(pcap / f"{link}.pcap")
        high, sent, sent_bytes, retx, retx_bytes = 0, 0, 0, 0, 0
        for t, ip, tcp, n in pk:
            if n <= 0 and not tcp.flags & dpkt.tcp.TH_SYN:
                continue
            if t >= WARMUP:
                sent += 1
                sent_bytes += ip.len
                if n > 0 and tcp.seq < high:
                    retx += 1
                    retx_bytes += n
            if n > 0:
                high = max(high, tcp.seq + n)
        after(pk)
        assert f["retransmitted_pkts"] > 5, "the run must be lossy for the test to mean anything"
        assert (f["sent_pkts"], f["sent_bytes"]) == (sent, sent_bytes)
        assert (f["retransmitted_pkts"], f["retransmitted_bytes"]) == (retx, retx_bytes)


def test_receiver_counters_match_the_capture(runs):
    res, _, _, pcap = runs
    f = row(res.flows, "ns2")
    # Segments as the receiver gets them, and its rcv_nxt rebuilt from the whole capture.
    data = packets(pcap / "r1-d0.pcap", ACCESS_DELAY, ACCESS_BPS)
    rcv_nxt, ooo, dups, delivered = None, [], 0, 0
    for t, ip, tcp, n in data:
        if n <= 0:
            continue
        s, e = tcp.seq, tcp.seq + n
        rcv_nxt = s if rcv_nxt is None else rcv_nxt
        if t >= WARMUP:
            delivered += 1
            dups += e <= rcv_nxt
        if s <= rcv_nxt < e:
            rcv_nxt = e
            ooo.sort()
            while ooo and ooo[0][0] <= rcv_nxt:
                rcv_nxt = max(rcv_nxt, ooo.pop(0)[1])
        elif s > rcv_nxt:
            ooo.append((s, e))
    after(data)
    acks = after(packets(pcap / "d0-r1.pcap"))
    assert f["duplicate_segments"] > 0
    assert f["duplicate_segments"] == dups
    assert f["delivered_pkts"] == delivered
    assert f["acks_sent"] == len(acks)


def test_rtt_statistics_match_the_timestamps(runs):
    """With timestamps every ACK of new data is an RTT sample: its arrival minus the echoed
    time (the capture holds it in microseconds)."""
    res, _, _, pcap = runs
    f = row(res.flows, "linux")
    samples, high = [], 0
    for t, ip, tcp, n in packets(pcap / "r0-s1.pcap", ACCESS_DELAY, ACCESS_BPS):
        if tcp.flags & dpkt.tcp.TH_SYN:
            continue
        if tcp.ack > high:
            if t >= WARMUP and high:
                samples.append(t - ts_ecr(tcp) * 1e-6)
            high = tcp.ack
    assert len(samples) > 100
    assert f["mean_rtt_s"] == pytest.approx(sum(samples) / len(samples), abs=2e-6)
    assert f["min_rtt_s"] == pytest.approx(min(samples), abs=2e-6)


def test_bottleneck_counters_match_the_capture(runs):
    res, _, _, pcap = runs
    q = row(res.queues, "r0->r1", "direction")
    dep = after(packets(pcap / "r0-r1.pcap"))
    assert q["departures"] == len(dep)
    assert q["departure_bytes"] == sum(ip.len for _, ip, _, _ in dep)
    assert q["drops_overflow"] > 0


def test_whole_minus_cut_and_traces(runs):
    """Every counter after warm-up = whole run − the run cut at the warm-up instant; traces'
    totals restart too and end at the table's values; throughput samples are unchanged."""
    res, whole, cut, _ = runs
    counters = ["sent_pkts", "sent_bytes", "delivered_pkts", "delivered_bytes", "goodput_bytes", "queue_drops",
                "wire_losses", "reverse_sent_pkts", "reverse_delivered_pkts", "retransmitted_pkts",
                "retransmitted_bytes", "timeouts", "fast_retransmits", "syn_retries", "acks_sent",
                "duplicate_segments"]
    for flow in ("ns2", "linux"):
        a, w, c = row(res.flows, flow), row(whole.flows, flow), row(cut.flows, flow)
        for col in counters:
            assert a[col] == w[col] - c[col], (flow, col)
        tr, tw = res.series(f"flow:{flow}"), whole.series(f"flow:{flow}")
        last = tr.iloc[-1]
        assert last["time"] == DURATION
        for col, trace_col in (("retransmitted_pkts", "retransmits"), ("timeouts", "timeouts"),
                               ("fast_retransmits", "fast_retransmits"), ("goodput_bytes", "goodput_bytes"),
                               ("sent_bytes", "sent_bytes")):
            assert a[col] == last[trace_col], (flow, col)
        before = tr["time"] < WARMUP  # the sample at the warm-up instant follows the restart
        for col in ("retransmits", "sent_bytes"):
            assert (tr[col][before] == tw[col][before]).all(), col
        # Throughput is per interval: the same with or without warm-up, also across it.
        assert (tr["throughput_bps"] == tw["throughput_bps"]).all()
    a, w, c = row(res.flows, "linux"), row(whole.flows, "linux"), row(cut.flows, "linux")
    for col in ("bw_samples", "bw_samples_used", "bw_samples_filtered"):
        assert a[col] == w[col] - c[col], col
    assert a["fast_retransmits"] > 0 and a["bw_samples"] > 0
    # Averages: the period's own, not the whole run's.
    for col in ("mean_rtt_s", "mean_rto_s", "mean_recovery_s"):
        assert math.isfinite(a[col]) and a[col] != w[col], col
    # States are not restarted.
    assert a["final_cwnd"] == w["final_cwnd"]
    for col in ("arrivals", "departures", "drops_overflow", "drops_loss"):
        qa, qw, qc = (row(r.queues, "r0->r1", "direction") for r in (res, whole, cut))
        assert qa[col] == qw[col] - qc[col], col


@pytest.mark.parametrize("example", ["shaper.toml", "multicast.toml"])
def test_elements_and_receivers_restart(example):
    """Element counters (policer, shaper, replicate), the elements table and the receivers
    table: after warm-up = whole run − the run cut at the warm-up instant."""
    base = ccsim.load(Path(__file__).resolve().parent.parent / "examples" / example)
    base["traces"] = []
    dur = ccsim.run(base).meta["sim_time_s"]
    w = dur / 2

    def run(warmup=None, duration=None):
        s = copy.deepcopy(base)
        s["simulation"]["duration"] = f"{duration or dur}s"
        s["simulation"].pop("warmup", None)
        if warmup:
            s["simulation"]["warmup"] = f"{warmup}s"
        return ccsim.run(s)

    a, whole, cut = run(warmup=w), run(), run(duration=w)
    for table in ("elements", "receivers"):
        ta, tw, tc = (getattr(r, table) for r in (a, whole, cut))
        assert len(ta) > 0
        for col in ta.columns:
            if ta[col].dtype.kind in "iu" and col != "flow" and not col.startswith(("max_", "held_")):
                assert (ta[col] == tw[col] - tc[col]).all(), (table, col)
        summaries = [c for c in ("conform_pkts", "exceed_pkts", "replicated_pkts") if c in ta.columns]
        for col in summaries:  # NaN where the element has no such column
            assert (ta[col].fillna(0) == tw[col].fillna(0) - tc[col].fillna(0)).all(), (table, col)
            assert ta[col].sum() > 0, col


def test_a_markers_lost_tokens_trace_restarts_with_the_other_counters():
    """`lost_tokens_bytes` (token bytes arriving at a full bucket) kept counting from the
    start across the warm-up while the marker's colour counts restarted: at the end it read
    what a run without warm-up reads. A 1 Mb/s CBR under a 2 Mb/s bucket loses 1 Mb/s of
    tokens, 125 000 bytes a second: from the warm-up's end, 7 s of it."""
    d = ccsim.loads("""
name = "tb"
[simulation]
duration = "8s"
warmup = "1s"
[dumbbell]
senders = 1
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
[[flows]]
name = "c"
kind = "cbr"
src = "s0"
dst = "d0"
rate = "1Mbps"
packet_size = "1000B"
[[elements]]
kind = "marker"
node = "s0"
meter = "token_bucket"
rate = "2Mbps"
depth = "10KB"
[[traces]]
kind = "element"
element = "*"
interval = "500ms"
""")
    s = ccsim.run(d).series("element:marker0").set_index("time")
    assert s.loc[1.0, "lost_tokens_bytes"] == s.loc[1.0, "green"] == 0
    assert s.loc[8.0, "lost_tokens_bytes"] == pytest.approx(7 * 125_000, abs=1000)
    d["simulation"].pop("warmup")
    whole = ccsim.run(d).series("element:marker0").set_index("time")
    assert whole.loc[8.0, "lost_tokens_bytes"] == pytest.approx(8 * 125_000, abs=1000)
