"""Paper D's scenarios and per-run metrics (the report is in :mod:`ccsim.papers.udt_rtt`).

One bulk flow (TCP, UDT or the RTT-prediction UDT) from s0 to d0 across a 1 Gb/s DropTail
bottleneck, 10 Gb/s access links, a path RTT of 1, 50, 100 or 200 ms, 1500-byte packets,
60 s. Every choice the paper leaves open is a module constant, listed in the report's
parameter table.
"""

from __future__ import annotations

RATE = 1e9
PKT = 1500
RTTS_MS = [1, 50, 100, 200]
DURATION = 60.0
ACCESS_RATE = 10e9
#: One-way delay of each access link (sender side and receiver side).
ACCESS_DELAY = 10e-6
#: Bottleneck buffer: this many bandwidth-delay products of the path, at least QUEUE_MIN.
QUEUE_BDP = 1.0
QUEUE_MIN = 100
#: The paper's Fig 5: random loss on the bottleneck, data direction only.
LOSS = 0.01
#: Goodput after the start-up is measured from this time to the end of the run (seconds):
#: at 50-200 ms every loss (NAK) of a run without random loss falls before it, and the
#: proposal's period has reached its floor by about 8 s. A flow trace sampled every
#: STEADY_INTERVAL seconds gives the payload delivered by then.
STEADY_FROM = 15.0
STEADY_INTERVAL = 5.0
#: TCP: the ns2 profile with 1460-byte segments (1500 on the wire), a window that never
#: limits, NewReno (read as the paper's standard TCP); SACK is the sensitivity run.
TCP_MSS = PKT - 40
TCP_WINDOW = 10**6

PROTOCOLS = {
    "TCP": {"kind": "tcp", "profile": "ns2", "mss": TCP_MSS, "window": TCP_WINDOW, "recovery": "newreno"},
    "UDT": {"kind": "udt", "profile": "ns2"},
    "Proposed": {"kind": "udt", "profile": "ns2", "cc": "rttpred"},
}
#: Beyond the paper: the same two UDTs as UDT 4.11 (its 8192-packet buffer would cap the
#: window below the 200 ms path's BDP, so the buffer is raised to the ns-2 module's 100 000).
UDT4 = {
    "UDT4": {"kind": "udt", "profile": "udt4", "buffer": 100_000, "flight_flag": 100_000},
    "Proposed-UDT4": {"kind": "udt", "profile": "udt4", "buffer": 100_000, "flight_flag": 100_000, "cc": "rttpred"},
    "TCP-SACK": {"kind": "tcp", "profile": "ns2", "mss": TCP_MSS, "window": TCP_WINDOW, "recovery": "sack1"},
}
ALL = {**PROTOCOLS, **UDT4}


def queue_limit(rtt_ms: float, bdp: float = QUEUE_BDP) -> int:
    return max(QUEUE_MIN, int(round(bdp * RATE * rtt_ms / 1e3 / (PKT * 8))))


def bottleneck_delay(rtt_ms: float) -> str:
    return f"{rtt_ms / 2 - 2 * ACCESS_DELAY * 1e3:g}ms"


def scenario(proto: str, rtt_ms: float, *, loss: float = 0.0, duration: float = DURATION, queue_bdp: float = QUEUE_BDP,
             log_acks: bool = False, trace_interval: float | None = None, flows: int = 1, extra: dict | None = None) -> dict:
    """One `proto` flow (or `flows` of them) on the 1 Gb/s path of round-trip time `rtt_ms`."""
    f = {"name": "f", "src": "s0", "dst": "d0", **ALL[proto], **(extra or {})}
    if f["kind"] == "udt" and log_acks:
        f["log_acks"] = True
    d = {
        "name": f"udt-rtt-{proto}",
        "simulation": {"duration": duration, "seed": 1},
        "dumbbell": {
            "senders": 1, "bottleneck_rate": RATE, "bottleneck_delay": bottleneck_delay(rtt_ms),
            "access_rate": ACCESS_RATE, "access_delay": f"{ACCESS_DELAY * 1e6:g}us",
            "queue": {"kind": "droptail", "limit": queue_limit(rtt_ms, queue_bdp)},
            "access_queue": {"kind": "droptail", "limit": 100_000},
        },
        "flows": [f] if flows == 1 else [{**f, "name": "f{i}", "count": flows}],
    }
    if loss:
        d["dumbbell"]["loss"] = {"kind": "bernoulli", "p": loss}
    if trace_interval:
        d["traces"] = [{"kind": "flow", "flow": "f", "interval": trace_interval}]
    return d


def metrics(res) -> dict:
    """Goodput and wire throughput of the flow over the whole run, its loss and RTT; with a
    flow trace (`trace_interval`), its goodput from STEADY_FROM to the end too."""
    f = res.tables["flows"].to_pandas().iloc[0]
    dur = float(res.meta["sim_time_s"])
    out = {"goodput_bps": float(f["goodput_bps"]), "throughput_bps": float(f["delivered_bytes"]) * 8 / dur,
           "loss_rate": float(f["loss_rate"]), "retransmitted": float(f.get("retransmitted_pkts", 0.0))}
    for k in ("mean_rtt_s", "naks_received", "timeouts", "pktspw_applied", "final_period_us"):
        if k in f and f[k] == f[k]:
            out[k] = float(f[k])
    import numpy as np

    if "flow:f" in res.series_names:
        t = res.series_arrow("flow:f")
        times, got = np.asarray(t.column("time")), np.asarray(t.column("goodput_bytes"))
        at = np.flatnonzero(np.isclose(times, STEADY_FROM))
        if len(at) and times[-1] > STEADY_FROM:
            out["goodput_after_bps"] = float(got[-1] - got[at[0]]) * 8 / float(times[-1] - STEADY_FROM)
    name = "flow:f:ridr"
    if name in res.series_names:

        t = res.series_arrow(name)
        r = np.asarray(t.column("ridr"))[np.asarray(t.column("time")) >= RIDR_FROM]
        # Right-closed bins (a, b], as Fig 2 files R_idr = 1 under "≤ 1"; tails go to the end bins.
        idx = np.clip(np.digitize(r, RIDR_BINS[1:-1], right=True), 0, len(RIDR_BINS) - 2)
        for i in range(len(RIDR_BINS) - 1):
            out[f"ridr.bin{i}"] = float((idx == i).sum()) / max(1, len(r))
        out["ridr.n"] = float(len(r))
    return out


#: Fig 3's R_idr bins: ≤ 0.98, (0.98, 0.996], (0.996, 0.998], (0.998, 1.0], (1.0, 1.02], > 1.02
#: (the paper names 0.998-1.0 the mode and 1.0-1.02 the next; α and β are 0.996 and 1.004).
RIDR_BINS = [0.9, 0.98, 0.996, 0.998, 1.0, 1.02, 1.1]
RIDR_LABELS = ["≤0.98", "0.98–0.996", "0.996–0.998", "0.998–1.0", "1.0–1.02", ">1.02"]
MODE_BIN, SECOND_BIN = 3, 4
#: R_idr is counted from this time on (past the start-up), seconds.
RIDR_FROM = 5.0
