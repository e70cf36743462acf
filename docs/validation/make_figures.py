"""Regenerates the figures and numbers of docs/validation.md.

    python docs/validation/make_figures.py [--quick]

Every number comes from a ccsim run made by this script (nothing is typed in by hand).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import ccsim  # noqa: E402
from ccsim.models import jain, mathis, pftk  # noqa: E402

HERE = Path(__file__).resolve().parent
QUICK = "--quick" in sys.argv


def lossy(p, recovery, secs, seed=1):
    return (ccsim.Scenario("pftk", duration=secs, seed=seed).nodes("a", "b")
            .link("a", "b", "100Mbps", "50ms", queue={"kind": "droptail", "limit": 100000},
                  loss={"kind": "bernoulli", "p": p})
            .flow("tcp", src="a", dst="b", name="t", window=100000, recovery=recovery))


def fig_pftk(out):
    ps = [1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2] if not QUICK else [1e-3, 1e-2, 5e-2]
    secs = 100 if QUICK else 400
    rows = []
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for rec, marker in (("reno", "o"), ("newreno", "s"), ("sack", "^")):
        good, model = [], []
        for p in ps:
            f = ccsim.run(lossy(p, rec, secs)).flows.iloc[0]
            g = f["goodput_bytes"] / 1000 / secs
            m = pftk(p, f["mean_rtt_s"], f["mean_rto_s"])
            good.append(g)
            model.append(m)
            rows.append({"recovery": rec, "p": p, "goodput_pkts": g, "pftk_pkts": m, "mathis_pkts": mathis(p, f["mean_rtt_s"]),
                         "rtt": f["mean_rtt_s"], "t0": f["mean_rto_s"], "timeouts": int(f["timeouts"])})
        ax.plot(ps, good, marker=marker, linestyle="none", label=f"ccsim {rec}")
    pp = np.logspace(math.log10(ps[0]), math.log10(ps[-1]), 100)
    rtt = rows[0]["rtt"]
    ax.plot(pp, [pftk(p, rtt, 0.2) for p in pp], "k-", label="PFTK (RTT 100 ms, T0 200 ms)")
    ax.plot(pp, [mathis(p, rtt) for p in pp], "k:", label="Mathis 1.22/(RTT·√p)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("packet loss probability p")
    ax.set_ylabel("goodput (packets/s)")
    ax.set_title("One TCP flow, random loss, no queueing loss")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "pftk.png", dpi=110)
    plt.close(fig)
    return rows


def fig_variants(out):
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    rows = []
    for rec in ("tahoe", "reno", "newreno", "sack"):
        s = (ccsim.Scenario("multi", duration="4s").nodes("a", "r", "b")
             .link("a", "r", "100Mbps", "1ms", loss={"kind": "drop_list", "packets": [60, 62, 64]})
             .link("r", "b", "10Mbps", "24ms", queue={"kind": "droptail", "limit": 1000})
             .flow("tcp", src="a", dst="b", name="t", window=1000, recovery=rec, initial_ssthresh=30)
             .trace("flow", flow="t", interval="5ms"))
        r = ccsim.run(s)
        ser = r.series("flow:t")
        f = r.flows.iloc[0]
        ax.plot(ser["time"], ser["cwnd"], label=rec, drawstyle="steps-post")
        rows.append({"recovery": rec, "timeouts": int(f["timeouts"]), "retransmitted": int(f["retransmitted_pkts"]),
                     "recovery_rtts": f["mean_recovery_s"] / f["min_rtt_s"], "goodput_bps": f["goodput_bps"]})
    ax.set_xlim(0, 2.5)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd + inflation (segments)")
    ax.set_title("Three losses in one window (segments 60, 62, 64)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "variants.png", dpi=110)
    plt.close(fig)
    return rows


def dumbbell(n, k, recovery, overhead, secs, seed):
    d1 = 1 + (k - 1) * 22
    delays = ["1ms"] * n
    if n > 1:
        delays[1] = f"{d1}ms"
    return (ccsim.Scenario("db", duration=secs, seed=seed, warmup="10s")
            .dumbbell(senders=n, access_rate="100Mbps", access_delays=delays, bottleneck_rate="10Mbps",
                      bottleneck_delay="20ms", queue={"kind": "droptail", "limit": 53},
                      access_queue={"kind": "droptail", "limit": 1000})
            .flow("tcp", src="s{i}", dst="d{i}", count=n, recovery=recovery, window=10000, start_jitter="2s",
                  overhead=overhead))


def fig_bias(out):
    ks = [1, 2, 3, 4, 6]
    seeds = range(1, 4 if QUICK else 9)
    secs = 60 if QUICK else 100
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    rows = []
    for label, overhead, queue in (("DropTail, overhead 2 ms", "2ms", None), ("DropTail, no overhead", "0s", None),
                                   ("RED", "0s", {"kind": "red", "limit": 100, "min_th": 10, "max_th": 40})):
        means = []
        for k in ks:
            logs = []
            for seed in seeds:
                sc = dumbbell(2, k, "reno", overhead, secs, seed)
                if queue:
                    sc.set("dumbbell.queue", queue)
                x = ccsim.run(sc).flows["goodput_bps"].values
                logs.append(math.log(x[0] / x[1]))
            means.append(math.exp(sum(logs) / len(logs)))
        rows.append({"setting": label, "k": ks, "ratio": means})
        ax.plot(ks, means, marker="o", label=label)
    ax.plot(ks, ks, "k:", label="ratio = k")
    ax.set_yscale("log")
    ax.set_xlabel("RTT ratio k (long / short)")
    ax.set_ylabel("throughput ratio (short / long), geometric mean")
    ax.set_title("Two Reno flows, RTT bias")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "rtt_bias.png", dpi=110)
    plt.close(fig)
    return rows


def fairness():
    r = ccsim.run(dumbbell(8, 1, "newreno", "0s", 100 if QUICK else 200, 1))
    x = r.flows["goodput_bps"].values
    q = r.queues.set_index("direction").loc["r0->r1"]
    return {"jain": jain(x), "utilization": float(q["utilization"]),
            "goodput_mbps": [round(v / 1e6, 3) for v in x]}


def main():
    rows = {"pftk": fig_pftk(HERE), "variants": fig_variants(HERE), "rtt_bias": fig_bias(HERE), "fairness": fairness()}
    (HERE / "numbers.json").write_text(json.dumps(rows, indent=1, default=float))
    print(json.dumps(rows, indent=1, default=float))


if __name__ == "__main__":
    main()
