"""Paper E's scenarios and per-run metrics (the report is in :mod:`ccsim.papers.eimd`).

A dumbbell: two high-speed flows (s0 -> d0 at 40 ms RTT, s1 -> d1 at 40, 120 or 240 ms),
eight long-lived window-limited standard TCP flows each way (window 64 segments, RTTs 40
to 180 ms) and web traffic each way (Poisson arrivals, Pareto sizes). Every choice the
paper leaves open is a module constant, listed in the report's parameter table.
"""

from __future__ import annotations

import math

import numpy as np

#: Bytes on the wire per full segment (1460 payload + 40 headers): the paper's example
#: (10 Gb/s at 100 ms is an average window of 83 333 packets) uses 1500-byte packets.
MSS = 1460
PKT = MSS + 40
BASE_RTT = 0.040
#: Bottleneck one-way delay; the access links make up the rest of each path's RTT.
BOTTLENECK_DELAY = 0.010
RECEIVER_DELAY = 0.001
#: Bottleneck buffer in units of rate x BASE_RTT (the BIC scripts' 1.0: 100 % of the BDP).
BUFFER_BDP = 1.0
#: Long-lived window-limited standard TCP flows per direction, their window, their RTTs.
LL_FLOWS = 8
LL_WINDOW = 64
LL_RTTS = [0.040 + 0.020 * i for i in range(LL_FLOWS)]
#: Web traffic per direction: offered load as a fraction of the bottleneck.
WEB_LOAD = 0.05
WEB_MEAN = 60_000
WEB_SHAPE = 1.2
START_JITTER = 20.0

#: The five controllers: the 2.6.22-era modules of ns-2.35 (Paper E's likely baselines).
PROTOCOLS = {
    "EIMD": {"cc": "eimd"},
    "BIC": {"cc": "bic", "cc_params": {"version": "2.6.22"}},
    "HSTCP": {"cc": "highspeed", "cc_params": {"variant": "ns2"}},
    "CUBIC": {"cc": "cubic", "cc_params": {"version": "2.1"}},
    "Scalable": {"cc": "scalable", "cc_params": {"version": "2.6.22"}},
}
PAPER_PROTOCOLS = ["EIMD", "BIC", "HSTCP"]
RATIOS = [1, 3, 6]


def access_delay(rtt: float) -> str:
    """The sender's access delay giving a path of round-trip propagation `rtt`."""
    return f"{(rtt / 2 - BOTTLENECK_DELAY - RECEIVER_DELAY) * 1e3:g}ms"


def rtt_of_ratio(k: int) -> str:
    return access_delay(BASE_RTT * k)


def _tcp(**kw) -> dict:
    return {"kind": "tcp", "profile": "ns2", "recovery": "sack1", "mss": MSS, **kw}


def scenario(proto: str, rate: float, *, ratio: int = 1, duration: float = 200.0, warmup: float = 60.0,
             buffer_bdp: float = BUFFER_BDP, background: bool = True, cc_params: dict | None = None,
             second_start: float | None = None, trace_interval: float | None = None) -> dict:
    """One run: two `proto` flows on a `rate` bit/s dumbbell, the second with RTT
    `ratio` x 40 ms (or starting at `second_start`, both at 100 ms, for Fig 4)."""
    cc = dict(PROTOCOLS[proto])
    if cc_params:
        cc["cc_params"] = {**cc.get("cc_params", {}), **cc_params}
    if second_start is None:
        rtts = [BASE_RTT, BASE_RTT * ratio]
    else:
        rtts = [0.100, 0.100]
    n = 2 + (LL_FLOWS if background else 0)
    host_rtts = rtts + (LL_RTTS if background else [])
    limit = max(10, int(round(buffer_bdp * rate * BASE_RTT / (PKT * 8))))
    flows = []
    for i in range(2):
        f = _tcp(name=f"hs{i}", src=f"s{i}", dst=f"d{i}", window=10**7, **cc)
        if second_start is not None and i == 1:
            f["start"] = second_start
        else:
            f["start_jitter"] = START_JITTER
        flows.append(f)
    gens = []
    if background:
        for i in range(2, n):
            flows.append(_tcp(name=f"ll-fwd-{i - 2}", src=f"s{i}", dst=f"d{i}", window=LL_WINDOW, start_jitter=START_JITTER))
            flows.append(_tcp(name=f"ll-rev-{i - 2}", src=f"d{i}", dst=f"s{i}", window=LL_WINDOW, start_jitter=START_JITTER))
        web_rate = WEB_LOAD * rate / (WEB_MEAN * 8)
        for name, src, dst in (("web-fwd", "s", "d"), ("web-rev", "d", "s")):
            gens.append({"name": name, "src": f"{src}{{2..{n - 1}}}", "dst": f"{dst}{{2..{n - 1}}}",
                         "arrivals": {"kind": "poisson", "rate": web_rate},
                         "size": {"kind": "pareto", "mean": WEB_MEAN, "shape": WEB_SHAPE},
                         "transport": _tcp(window=LL_WINDOW), "slowdown": False})
    d = {
        "name": f"eimd-{proto}",
        "simulation": {"duration": duration, "seed": 1, "warmup": warmup},
        "dumbbell": {
            "senders": n, "bottleneck_rate": rate, "bottleneck_delay": f"{BOTTLENECK_DELAY * 1e3:g}ms",
            "access_rate": 10 * rate, "access_delays": [access_delay(r) for r in host_rtts],
            "receiver_delays": [f"{RECEIVER_DELAY * 1e3:g}ms"] * n,
            "queue": {"kind": "droptail", "limit": limit},
            "access_queue": {"kind": "droptail", "limit": 10**6},
        },
        "flows": flows,
    }
    if gens:
        d["generators"] = gens
    if trace_interval:
        d["traces"] = [{"kind": "flow", "flow": "hs0", "interval": trace_interval},
                       {"kind": "flow", "flow": "hs1", "interval": trace_interval}]
    return d


def shares(res) -> dict:
    """Throughput ratio of the two high-speed flows and the bottleneck's shares (bit/s on
    the wire, after the warm-up): high-speed, long-lived TCP, web background, unused."""
    meta = res.meta
    f = res.tables["flows"].to_pandas()
    q = res.tables["queues"].to_pandas().set_index("direction")
    span = float(meta["sim_time_s"]) - float(res.scenario["simulation"].get("warmup", 0))
    rate = float(res.scenario["dumbbell"]["bottleneck_rate"])
    wire = f.set_index("name")["delivered_bytes"] * 8 / span
    hs = [float(wire.get(f"hs{i}", math.nan)) for i in range(2)]
    g = f.set_index("name")["goodput_bps"]
    ll = float(wire[[n for n in wire.index if n.startswith("ll-fwd")]].sum())
    util = float(q.loc["r0->r1", "utilization"])
    out = {"hs0_bps": hs[0], "hs1_bps": hs[1], "ratio": float(g["hs0"] / g["hs1"]) if g["hs1"] > 0 else math.nan,
           "util": util, "share.hs": sum(hs) / rate, "share.ll": ll / rate,
           "share.bg": max(0.0, util - (sum(hs) + ll) / rate), "share.unused": 1.0 - util}
    return out


def fairness(res) -> dict:
    """Fig 4: Jain's index of the two flows' throughput accumulated since the second one
    joined, every 5 s (`jain.t085` ... ), from the flows' traces."""
    from ..models import jain

    a, b = res.series("flow:hs0"), res.series("flow:hs1")
    join = float(res.scenario["flows"][1]["start"])
    out = {}
    t = a["time"].to_numpy()
    ca, cb = a["delivered_bytes"].to_numpy(dtype=float), b["delivered_bytes"].to_numpy(dtype=float)
    i0 = int(np.searchsorted(t, join - 1e-9))
    for i in range(i0 + 1, len(t)):
        x = [ca[i] - ca[i0], cb[i] - cb[i0]]
        out[f"jain.t{int(round(t[i])):03d}"] = jain(np.array(x)) if sum(x) > 0 else math.nan
    out.update(shares(res))
    return out
