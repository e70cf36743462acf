"""Paper A's scenarios and per-run metrics (the report is in :mod:`ccsim.papers.diffserv_marker`).

A dumbbell: every sender and receiver on a 10 Mb/s link, a bottleneck whose rate each
experiment sets, RIO with the paper's curves at every queue (100 packets; IN 20/80/0.02,
OUT 20/50/0.1), TCP Reno with ns-2's defaults, FTP sources. Each assured (AS) flow has a
marker at its sender (token bucket of depth rate × RTT, with or without a data buffer);
best-effort (BE) flows are marked OUT. Every choice the paper leaves open is a constant
here, listed in the report's parameter table.
"""

from __future__ import annotations

#: RTT of experiments 1 and 2 (paper silent), seconds.
RTT = 0.05
BOTTLENECK_DELAY = 0.002
RECEIVER_DELAY = 0.0005
ACCESS_RATE = 10e6
QUEUE = 100
RIO = {"kind": "rio", "limit": QUEUE, "thresholds": [[20, 80, 0.02], [20, 50, 0.1]], "w_q": 0.002, "mean_pktsize": 1040}
#: TCP: ns-2's Reno agent with its defaults (1000-byte segments, window 20).
TCP = {"kind": "tcp", "profile": "ns2", "recovery": "reno"}
START_JITTER = 1.0
#: IP bytes of a full segment (ns-2: 1000 + 40).
PKT = 1040
#: The series of the packets reaching AS flow 0's sender (`scenario(..., ack_trace=True)`).
ACK_SERIES = "packets:r0->s0"


def access_delay(rtt: float) -> str:
    return f"{(rtt / 2 - BOTTLENECK_DELAY - RECEIVER_DELAY) * 1e3:g}ms"


def scenario(as_rates: list[float], n_be: int, bottleneck: float, buffer: int, *, rtts: list[float] | None = None,
             be_rtts: list[float] | None = None, duration: float = 200.0, warmup: float = 20.0, trace: bool = False,
             window: int | None = None, depth_factor: float = 1.0, ack_trace: bool = False) -> dict:
    """AS flows with reservations `as_rates` (bit/s) and `n_be` BE flows; `buffer` packets
    of data buffer in each AS marker (0: the token-bucket marker); `depth_factor` scales
    every bucket's depth (r × RTT, the paper's) for the depth sensitivity; `ack_trace`
    logs the packets reaching AS flow 0's sender (its ACKs: Fig 4's even ACK spacing)."""
    n_as = len(as_rates)
    rtts = rtts or [RTT] * n_as
    be_rtts = be_rtts or [RTT] * n_be
    flows, els = [], []
    tcp = {**TCP, **({"window": window} if window else {})}
    for i, (r, rtt) in enumerate(zip(as_rates, rtts)):
        flows.append({**tcp, "name": f"as{i}", "src": f"s{i}", "dst": f"d{i}", "start_jitter": START_JITTER})
        # A data buffer of 0 packets is the token-bucket marker (tests/test_diffserv.py).
        # Depth r × RTT (the paper), at least one packet: a shallower bucket never marks IN.
        # `from = "local"`: the marker meters the data its sender sends, not the ACKs that
        # reach the sender (which would take tokens and wait in the data buffer).
        m = {"kind": "marker", "name": f"m{i}", "node": f"s{i}", "from": ["local"], "flows": [f"as{i}"], "rate": r,
             "depth": max(PKT, round(r * rtt * depth_factor / 8)), "meter": "data_buffer", "buffer": buffer}
        els.append(m)
    for j in range(n_be):
        k = n_as + j
        flows.append({**tcp, "name": f"be{j}", "src": f"s{k}", "dst": f"d{k}", "start_jitter": START_JITTER})
        els.append({"kind": "marker", "name": f"out{j}", "node": f"s{k}", "from": ["local"], "meter": "out"})
    n = n_as + n_be
    d = {
        "name": "diffserv-marker",
        "simulation": {"duration": duration, "seed": 1, "warmup": warmup},
        "dumbbell": {"senders": n, "access_rate": ACCESS_RATE, "access_delays": [access_delay(x) for x in rtts + be_rtts],
                     "receiver_delays": [f"{RECEIVER_DELAY * 1e3:g}ms"] * n, "bottleneck_rate": bottleneck,
                     "bottleneck_delay": f"{BOTTLENECK_DELAY * 1e3:g}ms", "queue": RIO, "access_queue": RIO},
        "flows": flows,
        "elements": els,
    }
    if ack_trace:
        d["traces"] = [{"kind": "packets", "link": "r0->s0"}]
    if trace:
        d["simulation"]["warmup"] = 0
        d["traces"] = [{"kind": "flow", "flow": "as0", "interval": 0.05}, {"kind": "element", "element": "m0", "interval": 0.05}]
    return d


def target(as_rates: list[float], n: int, capacity: float) -> list[float]:
    """The paper's eqs. 1 and 2: reservation plus an equal share of the excess, or a
    proportional share when over-subscribed."""
    total = sum(as_rates)
    if total <= capacity:
        return [r + (capacity - total) / n for r in as_rates]
    return [r / total * capacity for r in as_rates]


def metrics(res) -> dict:
    """Per flow: goodput and the goodput of its IN (AF11) packets over the measured span;
    per AS marker (`m<i>`, flow `as<i>`): the tokens it lost (arriving at a full bucket) in
    that span, in bit/s (`lost.as<i>`, Figs 3-4)."""
    meta = res.meta
    span = float(meta["sim_time_s"]) - float(res.scenario["simulation"].get("warmup", 0))
    f = res.tables["flows"].to_pandas().set_index("name")
    fc = res.tables["flow_classes"].to_pandas()
    out = {}
    for name in f.index:
        out[f"goodput.{name}"] = float(f.loc[name, "goodput_bps"])
        sel = fc[(fc["flow"] == name) & (fc["class_name"] == "AF11")]
        # delivered_payload counts duplicates too; IN packets are rarely retransmitted.
        out[f"in.{name}"] = float(sel["delivered_payload"].sum()) * 8 / span if len(sel) else 0.0
    if ACK_SERIES in res.series_names:
        # Fig 4: how evenly AS flow 0's ACKs reach its sender after the warm-up (the
        # coefficient of variation of their gaps; the trace is on in its own sweep only).
        p = res.series(ACK_SERIES)
        warm = float(res.scenario["simulation"].get("warmup", 0))
        t = p[(p["event"] == "r") & (p["kind"] == "ack") & (p["flow"] == 0) & (p["time"] >= warm)]["time"].to_numpy()
        gaps = t[1:] - t[:-1]
        out["ack_cv.as0"] = float(gaps.std() / gaps.mean()) if len(gaps) > 1 and gaps.mean() > 0 else float("nan")
    els = res.tables["elements"].to_pandas()
    for _, e in els[els["element"].str.match(r"^m\d+$")].iterrows():
        out[f"lost.as{e['element'][1:]}"] = float(e["lost_token_bytes"]) * 8 / span
    return out
