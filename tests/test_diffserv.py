"""DiffServ building blocks (issue #18, first part): markers as node elements and the RIO
queue, checked on CBR traffic where the outcome can be worked out by hand."""

import pytest

import ccsim

BASE = """
[simulation]
duration = DUR
seed = 1
[dumbbell]
senders = 2
access_rate = "10Mbps"
access_delay = "1ms"
bottleneck_rate = "BNECK"
bottleneck_delay = "10ms"
queue = QUEUE
[[flows]]
name = "a"
kind = "cbr"
src = "s0"
dst = "d0"
rate = "RATE"
packet_size = 1000
[[flows]]
name = "b"
kind = "cbr"
src = "s1"
dst = "d1"
rate = "RATE"
packet_size = 1000
[[elements]]
node = "s0"
MARKER
[[elements]]
kind = "marker"
node = "s1"
meter = "out"
"""


def run(marker, rate="2Mbps", dur=10, bneck="100Mbps", queue='{ kind = "droptail", limit = 1000 }', traces=None, warmup=None):
    d = ccsim.loads(BASE.replace("MARKER", marker).replace("RATE", rate).replace("DUR", str(dur))
                    .replace("BNECK", bneck).replace("QUEUE", queue))
    if warmup is not None:
        d["simulation"]["warmup"] = warmup
    if traces:
        d["traces"] = traces
    return ccsim.run(d)


def colours(res, flow="a"):
    """Packets the flow's marker coloured green, yellow, red (by code point)."""
    e = res.elements.set_index("element").loc["marker0" if flow == "a" else "marker1"]
    return {k: int(e[c]) for k, c in (("AF11", "green_pkts"), ("AF12", "yellow_pkts"), ("AF13", "red_pkts"))}


def test_token_bucket_marks_by_hand():
    """CBR 2 Mb/s of 1000-byte packets (one per 4 ms), bucket 1 Mb/s (1000 bytes per 8 ms)
    of depth 2000, full at 0: green, green, green, then red and green alternating."""
    res = run('kind = "marker"\nmeter = "token_bucket"\nrate = "1Mbps"\ndepth = 2000')
    f = res.flows.set_index("name").loc["a"]
    n = int(f["sent_pkts"])
    c = colours(res)
    # Packets k = 0, 1, 2 and then every even k (a two-colour meter's OUT is its "red").
    assert c["AF11"] == 3 + len(range(4, n, 2))
    assert c["AF11"] + c["AF13"] == n
    # Best effort is always OUT (AF12 on the wire).
    assert colours(res, "b") == {"AF11": 0, "AF12": 0, "AF13": int(res.flows.set_index("name").loc["b", "sent_pkts"])}
    fc = res.flow_classes
    assert set(fc[(fc["flow"] == "b") & (fc["delivered_pkts"] > 0)]["class_name"]) == {"AF12"}


def test_depth_from_rtt_and_lost_tokens():
    """depth = rate × rtt (Paper A): 1 Mb/s × 80 ms = 10 000 bytes. A 0.5 Mb/s stream never
    empties it, so every token beyond the 10 000 bytes is lost: 1 Mb/s − 0.5 Mb/s."""
    res = run('kind = "marker"\nmeter = "token_bucket"\nrate = "1Mbps"\nrtt = "80ms"', rate="0.5Mbps",
              traces=[{"kind": "element", "element": "marker0", "interval": 1.0}])
    s = res.series("element:marker0")
    lost = s["lost_tokens_bytes"].iloc[-1]
    assert lost == pytest.approx(10 * (1e6 - 0.5e6) / 8, rel=0.01)
    assert s["tokens_bytes"].max() <= 10_000
    assert colours(res)["AF13"] == 0
    # The elements table has the same count at the run's end (no trace needed).
    e = res.elements.set_index("element").loc["marker0"]
    assert e["lost_token_bytes"] == pytest.approx(lost, rel=1e-9)


def test_lost_tokens_in_the_table_count_from_the_warm_up():
    """The elements table's `lost_token_bytes` restarts at the end of warm-up, as the
    trace's count does: 10 s measured after 5 s of warm-up lose 10 × 0.5 Mb/s."""
    res = run('kind = "marker"\nmeter = "token_bucket"\nrate = "1Mbps"\nrtt = "80ms"', rate="0.5Mbps", dur=15, warmup=5)
    e = res.elements.set_index("element").loc["marker0"]
    assert e["lost_token_bytes"] == pytest.approx(10 * (1e6 - 0.5e6) / 8, rel=0.01)


def test_data_buffer_keeps_order_and_bounds_the_wait():
    """Paper A's marker: a 2 Mb/s stream through a 1 Mb/s bucket with a 3-packet buffer.
    Half the packets go IN; none is reordered; none waits longer than 3 token intervals
    (3 × 8 ms) in the marker."""
    res = run('kind = "marker"\nmeter = "data_buffer"\nrate = "1Mbps"\ndepth = 1000\nbuffer = 3',
              traces=[{"kind": "packets", "link": "s0->r0"}])
    c = colours(res)
    n = int(res.flows.set_index("name").loc["a", "sent_pkts"])
    assert abs(c["AF11"] / n - 0.5) < 0.01
    assert c["AF11"] + c["AF13"] >= n - 3  # at most the buffer still held at the end
    p = res.series("packets:s0->r0")
    enq = p[(p["event"] == "+") & (p["flow"] == 0)]
    assert enq["seq"].is_monotonic_increasing
    # Sent at seq × 4 ms; entering the access link at most 24 ms later.
    wait = enq["time"] - enq["seq"] * 0.004
    assert wait.max() <= 0.024 + 1e-9
    e = res.elements.set_index("element").loc["marker0"]
    assert e["max_buffer_pkts"] == 3


def test_data_buffer_of_zero_is_the_token_bucket():
    a = colours(run('kind = "marker"\nmeter = "data_buffer"\nrate = "1Mbps"\ndepth = 2000\nbuffer = 0'))
    b = colours(run('kind = "marker"\nmeter = "token_bucket"\nrate = "1Mbps"\ndepth = 2000'))
    assert a == b


@pytest.mark.parametrize("marker, want", [
    # trTCM, CIR 1, PIR 2 Mb/s on 3 Mb/s: a third each.
    ('meter = "trtcm"\nrate = "1Mbps"\ndepth = 2000\npeak_rate = "2Mbps"\npeak_burst = 2000', (1 / 3, 1 / 3, 1 / 3)),
    # srTCM, CIR 1 Mb/s: the committed bucket never fills, so E stays empty once drained.
    ('meter = "srtcm"\nrate = "1Mbps"\ndepth = 2000\nexcess_burst = 2000', (1 / 3, 0.0, 2 / 3)),
    # TSW3CM, CIR 1, PIR 2 on 3 Mb/s: r = avg·U, thirds.
    ('meter = "tsw3cm"\nrate = "1Mbps"\npeak_rate = "2Mbps"', (1 / 3, 1 / 3, 1 / 3)),
    # TSW2CM, CIR 1 Mb/s on 3 Mb/s: OUT with probability 2/3.
    ('meter = "tsw2cm"\nrate = "1Mbps"', (1 / 3, 0.0, 2 / 3)),
])
def test_three_colour_meters_on_cbr(marker, want):
    res = run('kind = "marker"\n' + marker, rate="3Mbps", dur=100)
    c = colours(res)
    two = "tsw2cm" in marker
    g, y, r = c["AF11"], c["AF12"], c["AF13"]
    assert not two or y == 0
    n = g + y + r
    for got, w in zip((g / n, y / n, r / n), want):
        assert abs(got - w) < 0.02, (c, want)


def test_rio_drops_out_before_in():
    """Two 2 Mb/s streams into 3 Mb/s, RIO with Paper A's curves: the IN packets (half of
    flow a) all get through, every drop is OUT."""
    res = run('kind = "marker"\nmeter = "token_bucket"\nrate = "1Mbps"\ndepth = 2000', bneck="3Mbps",
              queue='{ kind = "rio", limit = 100, thresholds = [[20, 80, 0.02], [20, 50, 0.1]] }')
    q = res.queue_classes
    q = q[q["direction"] == "r0->r1"].set_index("class_name")
    assert q.loc["AF11", "drops"] == 0
    assert q.loc["AF12", "drops"] > 1000
    # Output ≈ the link: IN 1 Mb/s, OUT the rest.
    assert q.loc["AF11", "departures"] + q.loc["AF12", "departures"] == pytest.approx(10 * 3e6 / 8000, rel=0.02)


@pytest.mark.parametrize("marker, field", [
    ('meter = "token_bucket"\nrate = "1Mbps"', "elements[0].depth"),
    ('meter = "data_buffer"\nrate = "1Mbps"\ndepth = 1000', "elements[0].buffer"),
    ('meter = "trtcm"\nrate = "2Mbps"\ndepth = 1000\npeak_rate = "1Mbps"\npeak_burst = 1000', "elements[0].peak_rate"),
    ('meter = "leaky"', "elements[0].meter"),
    ('meter = "out"\ngreen = "AF99"', "elements[0].green"),
    ('meter = "tsw2cm"\nrate = "1Mbps"\nstrict = true', "elements[0].strict"),
    ('meter = "out"\ninitial_tokens = 100', "elements[0].initial_tokens"),
    # A field the meter does not read is refused (before: silently ignored).
    ('meter = "tsw3cm"\nrate = "1Mbps"\npeak_rate = "2Mbps"\nwindow = "2s"', "elements[0].window: applies to meter = \"tsw2cm\" only"),
    ('meter = "token_bucket"\nrate = "1Mbps"\ndepth = 1000\ncolor_aware = true', "elements[0].color_aware"),
    ('meter = "tsw2cm"\nrate = "1Mbps"\npeak_rate = "2Mbps"', "elements[0].peak_rate"),
    ('meter = "tsw2cm"\nrate = "1Mbps"\ndepth = 1000', "elements[0].depth"),
    ('meter = "token_bucket"\nrate = "1Mbps"\ndepth = 1000\nrtt = "80ms"', "elements[0].rtt: give one of depth, burst and rtt"),
])
def test_marker_errors_name_the_field(tmp_path, cli, marker, field):
    p = tmp_path / "s.toml"
    p.write_text(BASE.replace("MARKER", 'kind = "marker"\n' + marker).replace("RATE", "1Mbps").replace("DUR", "1")
                 .replace("BNECK", "10Mbps").replace("QUEUE", '{ kind = "droptail", limit = 10 }'))
    r = cli("run", p, "--out", tmp_path / "o", "-q")
    assert r.returncode == 2 and field in r.stderr, r.stderr


@pytest.mark.parametrize("queue, field", [
    ('{ kind = "rio", thresholds = [[30, 20, 0.1]] }', "dumbbell.queue.thresholds"),
    ('{ kind = "rio", phb = [[46, 2]] }', "dumbbell.queue.phb"),
    ('{ kind = "rio", phb = [[64, 0]] }', "dumbbell.queue.phb"),
    ('{ kind = "red_rio", in_thresholds = [10, 5, 0.1] }', "dumbbell.queue.in_thresholds"),
    ('{ kind = "red_rio", out_thresholds = [3, 9] }', "dumbbell.queue.out_thresholds"),
    ('{ kind = "red_rio", priority = "fid" }', "dumbbell.queue.priority"),
    ('{ kind = "red_rio", rng_skip = 4 }', "dumbbell.queue.rng_skip"),
    ('{ kind = "red_rio", stale_total = true }', "dumbbell.queue.stale_total"),
])
def test_rio_errors_name_the_field(tmp_path, cli, queue, field):
    p = tmp_path / "s.toml"
    p.write_text(BASE.replace("MARKER", 'kind = "marker"\nmeter = "out"').replace("RATE", "1Mbps").replace("DUR", "1")
                 .replace("BNECK", "10Mbps").replace("QUEUE", queue))
    r = cli("run", p, "--out", tmp_path / "o", "-q")
    assert r.returncode == 2 and field in r.stderr, r.stderr


def test_phb_table_moves_a_code_point_between_precedences():
    """Flow a marked all AF13 (OUT by default with two curves), flow b AF12; a PHB entry
    AF13 -> precedence 0 makes a IN: RIO then drops (almost) only flow b."""
    queue = '{ kind = "rio", limit = 100, thresholds = [[20, 80, 0.02], [20, 50, 0.1]]PHB }'
    marker = 'kind = "marker"\nmeter = "out"\nred = "AF13"'
    plain = run(marker, bneck="3Mbps", queue=queue.replace("PHB", ""))
    moved = run(marker, bneck="3Mbps", queue=queue.replace("PHB", ", phb = [[14, 0]]"))
    drops = lambda res: res.drops.groupby("name")["pkts"].sum()
    assert drops(plain)["a"] > 300 and drops(plain)["b"] > 300
    assert drops(moved).get("a", 0) < drops(plain)["a"] / 20 and drops(moved)["b"] > 1000


def test_queue_classes_count_drops_by_reason():
    res = run('kind = "marker"\nmeter = "token_bucket"\nrate = "1Mbps"\ndepth = 2000', bneck="3Mbps",
              queue='{ kind = "rio", limit = 100, thresholds = [[20, 80, 0.02], [20, 50, 0.1]] }')
    q = res.queue_classes
    reasons = [c for c in q.columns if c.startswith("drops_")]
    assert {"drops_overflow", "drops_early", "drops_forced", "drops_loss"} <= set(reasons)
    assert (q[reasons].sum(axis=1) == q["drops"]).all()
    out = q[(q["direction"] == "r0->r1") & (q["class_name"] == "AF12")].iloc[0]
    assert out["drops_early"] > 0 and out["drops_early"] + out["drops_forced"] + out["drops_overflow"] == out["drops"]


def test_a_bucket_shallower_than_a_packet_sends_it_out_at_once():
    res = run('kind = "marker"\nmeter = "data_buffer"\nrate = "1Mbps"\ndepth = 500\nbuffer = 3')
    e = res.elements.set_index("element").loc["marker0"]
    assert e["green_pkts"] == 0 and e["held_pkts"] == 0  # none waits (it passes through the buffer at once)
    assert e["red_pkts"] == res.flows.set_index("name").loc["a", "sent_pkts"]


def test_a_marker_lets_packets_for_its_own_node_pass():
    """A marker at a TCP sender, with no placement filter: the ACKs reaching the sender pass
    unmetered, so it colours exactly the data the sender sent."""
    d = ccsim.loads(BASE.replace("MARKER", 'kind = "marker"\nmeter = "token_bucket"\nrate = "1Mbps"\ndepth = 2000')
                    .replace("RATE", "2Mbps").replace("DUR", "5").replace("BNECK", "10Mbps")
                    .replace("QUEUE", '{ kind = "droptail", limit = 100 }'))
    for f in d["flows"]:
        f.update({"kind": "tcp"})
        for k in ("rate", "packet_size"):
            f.pop(k)
    res = ccsim.run(d)
    e = res.elements.set_index("element").loc["marker0"]
    sent = res.flows.set_index("name").loc["a", "sent_pkts"]
    assert e["arrivals"] > sent  # the ACKs went through the element
    assert e["green_pkts"] + e["red_pkts"] == sent
