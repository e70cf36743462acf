"""Runs, numbers, figures and the page docs/validation.md: nothing there is typed in by hand.

    python docs/validation/make_validation.py --full     # 10 seeds: numbers.json, figures, the page
    python docs/validation/make_validation.py --quick    # seeds 1-3 of some points: must equal numbers.json
    python docs/validation/make_validation.py --render   # figures and the page from numbers.json

`numbers.json` keeps every run's own values (per point and seed); the page shows means
over seeds with 95 % Student-t intervals. ccsim is deterministic, so `--quick` (CI,
`tests/test_validation.py`) recomputes a subset and requires the stored values exactly: a
change to the models that moves any of them fails CI until the page is regenerated.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAGE = HERE.parent / "validation.md"
NUMBERS = HERE / "numbers.json"
SEEDS = list(range(1, 11))
QUICK_SEEDS = [1, 2, 3]
PS = [1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2]
RECOVERIES = ["reno", "newreno", "sack"]
KS = [1, 2, 3, 4, 6]
BIAS = {"overhead": ("DropTail + 2 ms overhead", "2ms", None), "deterministic": ("DropTail, deterministic", "0s", None),
        "red": ("RED (10/40, max_p 0.1)", "0s", {"kind": "red", "limit": 100, "min_th": 10, "max_th": 40})}
PFTK_SECS, BIAS_SECS, FAIR_SECS = 400, 100, 200


# Experiments: each returns the values of one run --------------------------------------------
def pftk_run(recovery: str, p: float, seed: int) -> dict:
    import ccsim

    s = (ccsim.Scenario("pftk", duration=PFTK_SECS, seed=seed).nodes("a", "b")
         .link("a", "b", "100Mbps", "50ms", queue={"kind": "droptail", "limit": 100000}, loss={"kind": "bernoulli", "p": p})
         .flow("tcp", src="a", dst="b", name="t", window=100000, recovery=recovery))
    f = ccsim.run(s).flows.iloc[0]
    return {"goodput_pkts": f["goodput_bytes"] / 1000 / PFTK_SECS, "rtt": f["mean_rtt_s"], "t0": f["mean_rto_s"],
            "timeouts": int(f["timeouts"])}


def dumbbell(n: int, k: int, recovery: str, overhead: str, secs: float, seed: int):
    import ccsim

    delays = ["1ms"] * n
    if n > 1:
        delays[1] = f"{1 + (k - 1) * 22}ms"
    return (ccsim.Scenario("db", duration=secs, seed=seed, warmup="10s")
            .dumbbell(senders=n, access_rate="100Mbps", access_delays=delays, bottleneck_rate="10Mbps",
                      bottleneck_delay="20ms", queue={"kind": "droptail", "limit": 53},
                      access_queue={"kind": "droptail", "limit": 1000})
            .flow("tcp", src="s{i}", dst="d{i}", count=n, recovery=recovery, window=10000, start_jitter="2s",
                  overhead=overhead))


def bias_run(setting: str, k: int, seed: int) -> dict:
    import ccsim

    _, overhead, queue = BIAS[setting]
    sc = dumbbell(2, k, "reno", overhead, BIAS_SECS, seed)
    if queue:
        sc.set("dumbbell.queue", queue)
    x = ccsim.run(sc).flows["goodput_bps"].values
    return {"ratio": float(x[0] / x[1])}


def fair_run(seed: int) -> dict:
    import ccsim
    from ccsim.models import jain

    r = ccsim.run(dumbbell(8, 1, "newreno", "0s", FAIR_SECS, seed))
    x = r.flows["goodput_bps"].values
    q = r.queues.set_index("direction").loc["r0->r1"]
    return {"jain": jain(x), "utilization": float(q["utilization"]), "min_mbps": float(x.min() / 1e6),
            "max_mbps": float(x.max() / 1e6)}


def variants_run(recovery: str) -> dict:
    """Deterministic (a drop list, no random draws): one run per variant."""
    import ccsim

    s = (ccsim.Scenario("multi", duration="4s").nodes("a", "r", "b")
         .link("a", "r", "100Mbps", "1ms", loss={"kind": "drop_list", "packets": [60, 62, 64]})
         .link("r", "b", "10Mbps", "24ms", queue={"kind": "droptail", "limit": 1000})
         .flow("tcp", src="a", dst="b", name="t", window=1000, recovery=recovery, initial_ssthresh=30)
         .trace("flow", flow="t", interval="5ms"))
    r = ccsim.run(s)
    ser = r.series("flow:t")
    ser = ser[ser["time"] <= 2.5]
    f = r.flows.iloc[0]
    return {"timeouts": int(f["timeouts"]), "retransmitted": int(f["retransmitted_pkts"]),
            "recovery_rtts": float(f["mean_recovery_s"] / f["min_rtt_s"]), "goodput_bps": float(f["goodput_bps"]),
            "time": ser["time"].round(9).tolist(), "cwnd": ser["cwnd"].tolist()}


def jobs(quick: bool) -> list[tuple[str, dict]]:
    seeds = QUICK_SEEDS if quick else SEEDS
    ps = [1e-3, 1e-2, 5e-2] if quick else PS
    ks = [1, 3, 6] if quick else KS
    out = [("pftk", {"recovery": r, "p": p, "seed": s}) for r in RECOVERIES for p in ps for s in seeds]
    out += [("bias", {"setting": b, "k": k, "seed": s}) for b in BIAS for k in ks for s in seeds]
    out += [("fair", {"seed": s}) for s in seeds]
    out += [("variants", {"recovery": r}) for r in ("tahoe", "reno", "newreno", "sack")]
    return out


RUNNERS = {"pftk": pftk_run, "bias": bias_run, "fair": fair_run, "variants": variants_run}


def _one(job):
    exp, params = job
    return {"exp": exp, "params": params, "values": RUNNERS[exp](**params)}


def run_all(quick: bool, workers: int) -> list[dict]:
    js = jobs(quick)
    with ProcessPoolExecutor(workers) as ex:
        return list(ex.map(_one, js, chunksize=1))


# Statistics ----------------------------------------------------------------------------------
def ci(xs: list[float]) -> tuple[float, float, float]:
    """Mean and 95 % Student-t interval."""
    from scipy import stats

    n = len(xs)
    m = sum(xs) / n
    if n < 2:
        return m, math.nan, math.nan
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    h = stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n)
    return m, m - h, m + h


def select(runs: list[dict], exp: str, **params) -> list[dict]:
    return [r for r in runs if r["exp"] == exp and all(r["params"].get(k) == v for k, v in params.items())]


def fmt(t: tuple[float, float, float], digits: int = 1, pct: bool = False) -> str:
    m, lo, hi = t
    if pct:
        return f"{(m - 1) * 100:+.{digits}f} % [{(lo - 1) * 100:+.{digits}f}, {(hi - 1) * 100:+.{digits}f}]"
    return f"{m:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


# Page and figures ----------------------------------------------------------------------------
def pftk_stats(runs):
    from ccsim.models import mathis, pftk

    rows = {}
    for rec in RECOVERIES:
        for p in PS:
            rs = select(runs, "pftk", recovery=rec, p=p)
            good = [r["values"]["goodput_pkts"] for r in rs]
            ratio = [r["values"]["goodput_pkts"] / pftk(p, r["values"]["rtt"], r["values"]["t0"]) for r in rs]
            mratio = [r["values"]["goodput_pkts"] / mathis(p, r["values"]["rtt"]) for r in rs]
            rows[rec, p] = {"good": ci(good), "ratio": ci(ratio), "mathis": ci(mratio), "n": len(rs),
                            "timeouts": ci([r["values"]["timeouts"] for r in rs])}
    return rows


def render(runs: list[dict], meta: dict) -> str:
    from ccsim.models import jain  # noqa: F401  (the page names it)

    st = pftk_stats(runs)
    n = st["reno", PS[0]]["n"]
    lines = []
    for p in PS:
        cells = [f"{p:g}"]
        for rec in RECOVERIES:
            cells += [fmt(st[rec, p]["good"]), fmt(st[rec, p]["ratio"], pct=True)]
        lines.append("| " + " | ".join(cells) + " |")
    pftk_table = "\n".join(lines)
    worst = {rec: min((st[rec, p]["ratio"][0], p) for p in PS) for rec in RECOVERIES}
    best = {rec: max((st[rec, p]["ratio"][0], p) for p in PS) for rec in RECOVERIES}
    inside = [(rec, p) for rec in RECOVERIES for p in PS if 0.85 <= st[rec, p]["ratio"][1] and st[rec, p]["ratio"][2] <= 1.15]
    outside = [(rec, p) for rec in RECOVERIES for p in PS if (rec, p) not in inside]
    mathis_ok = [p for p in PS if all(abs(st[rec, p]["mathis"][0] - 1) <= 0.10 for rec in ("reno",))]
    reno_to = st["reno", PS[-1]]["timeouts"]

    fair = [r["values"] for r in select(runs, "fair")]
    fj, fu = ci([v["jain"] for v in fair]), ci([v["utilization"] for v in fair])
    fmin, fmax = min(v["min_mbps"] for v in fair), max(v["max_mbps"] for v in fair)

    bias_rows = []
    for b, (label, _, _) in BIAS.items():
        cells = [label]
        for k in KS:
            logs = [math.log(r["values"]["ratio"]) for r in select(runs, "bias", setting=b, k=k)]
            m, lo, hi = ci(logs)
            cells.append(f"{math.exp(m):.2f} [{math.exp(lo):.2f}, {math.exp(hi):.2f}]")
        bias_rows.append("| " + " | ".join(cells) + " |")
    nb = len(select(runs, "bias", setting="red", k=1))
    red6 = [math.log(r["values"]["ratio"]) for r in select(runs, "bias", setting="red", k=6)]
    slope = ci(red6)[0] / math.log(6)

    var = {r["params"]["recovery"]: r["values"] for r in select(runs, "variants")}
    var_rows = "\n".join(f"| {name} | {var[rec]['timeouts']} | {var[rec]['retransmitted']} | {var[rec]['recovery_rtts']:.1f} |"
                         for rec, name in (("tahoe", "Tahoe"), ("reno", "Reno"), ("newreno", "NewReno"), ("sack", "SACK")))

    def listing(pairs):
        return ", ".join(f"{rec} at p = {p:g}" for rec, p in pairs) or "none"

    return f"""# Validation

<!-- Generated by docs/validation/make_validation.py --full ({meta['date']}, ccsim {meta['version']}); do not edit:
     tests/test_validation.py checks that this page is what numbers.json renders to. -->

Every figure and number here is produced by `python docs/validation/make_validation.py --full`
from runs it makes ({meta['runs']} runs, {meta['seconds']:.0f} s on {meta['workers']} workers); the per-run values are in
`docs/validation/numbers.json`. Figures with random draws are means over {n} seeds with 95 %
Student-t confidence intervals in brackets. CI runs `--quick`, which recomputes seeds 1–3 of
a subset of the points and requires the stored values exactly (ccsim is deterministic): the
page cannot drift from the build. The same properties are asserted, on shorter runs, by
`crates/ccsim-core/tests/tcp.rs` and `tests/test_tcp.py`.

## 1. Goodput against PFTK and Mathis (one flow, random loss)

**Method.** One TCP flow (ns2 profile, window 100 000 segments so it is never
window-limited) over a 100 Mb/s link with 50 ms one-way delay and a loss model dropping
each packet with probability p; the queue is 100 000 packets, so no loss is queueing
loss and the RTT stays at 100 ms. {PFTK_SECS} s per run, {n} seeds per point. The model is PFTK's
full formula with b = 1 (an ACK per segment), each run's mean RTT and mean RTO as T0, and
Mathis's `1.22/(RTT·√p)`.

![PFTK](validation/pftk.png)

| p | Reno (pkts/s) | Reno vs PFTK | NewReno (pkts/s) | NewReno vs PFTK | SACK (pkts/s) | SACK vs PFTK |
|---|---|---|---|---|---|---|
{pftk_table}

Per recovery, the point furthest below PFTK: {", ".join(f"{rec} {(worst[rec][0] - 1) * 100:+.1f} % (p = {worst[rec][1]:g})" for rec in RECOVERIES)};
furthest above: {", ".join(f"{rec} {(best[rec][0] - 1) * 100:+.1f} % (p = {best[rec][1]:g})" for rec in RECOVERIES)}.
With its whole interval within ±15 % of PFTK: {len(inside)} of {len(inside) + len(outside)} points; the others:
{listing(outside)}. Reno is closest to the model, which assumes Reno's timeout-prone
recovery; NewReno and SACK recover several losses of a window without a timeout and sit
above it at low p. Reno at p = {PS[-1]:g} times out {reno_to[0]:.0f} times in {PFTK_SECS} s on average
[{reno_to[1]:.0f}, {reno_to[2]:.0f}]: timeouts, which Mathis ignores, dominate there; Mathis agrees with
Reno within 10 % for p ∈ {{{", ".join(f"{p:g}" for p in mathis_ok)}}}.

## 2. Fairness and utilisation

8 NewReno flows, 10 Mb/s 20 ms bottleneck, 1 ms 100 Mb/s access links (RTT 44 ms), a
one-BDP DropTail buffer (53 packets), starts spread over 2 s, {FAIR_SECS} s with 10 s warm-up,
{len(fair)} seeds: Jain's index **{fj[0]:.5f}** [{fj[1]:.5f}, {fj[2]:.5f}], bottleneck utilisation
**{fu[0]:.5f}** [{fu[1]:.5f}, {fu[2]:.5f}], per-flow goodput {fmin:.2f}–{fmax:.2f} Mb/s over all seeds.
(Asserted on shorter runs: Jain ≥ 0.98, utilisation ≥ 0.95.)

## 3. RTT bias

Two Reno flows, one with RTT k times the other's (44 ms vs k·44 ms, by lengthening one
access link), the same dumbbell, ratio of goodputs (short/long) as a geometric mean over
{nb} seeds, {BIAS_SECS} s each (interval: the exponential of the log-ratios' 95 % interval).

![RTT bias](validation/rtt_bias.png)

| setting | {" | ".join(f"k = {k}" for k in KS)} |
|---|{"---|" * len(KS)}
{chr(10).join(bias_rows)}

With RED (random drops) the ratio grows as about k^{slope:.1f} (at k = 6). With DropTail the
outcome of a deterministic simulation depends on the phase of the two flows' packet trains
at the moment the buffer overflows (Floyd & Jacobson, "On traffic phase effects in
packet-switched gateways", 1992). As ns-2 studies did, a random per-packet send overhead
(`overhead`, ns-2's `overhead_`) of about two bottleneck packet times breaks the phase
locking. The test asserts the growth for k = 1, 3, 6 with overhead; the deterministic row
is kept here as a warning for users of DropTail.

## 4. Recovery variants on a multi-loss window

One flow over a 10 Mb/s, 50 ms RTT path, ssthresh 30; segments 60, 62 and 64 are dropped
(the `drop_list` loss model), so three losses fall in one window. Deterministic: one run
each.

![variants](validation/variants.png)

| variant | timeouts | retransmitted segments | recovery time (RTTs) |
|---|---|---|---|
{var_rows}

As the literature says (Fall & Floyd 1996): NewReno recovers k losses in k RTTs without a
timeout, Reno tends to time out, SACK recovers in about one RTT. (Asserted.)

## 5. pcap against an independent parser

A lossy run (1 % random loss plus a 30-packet DropTail) captured on the sender's access
link, for both profiles: dpkt counts data segments whose sequence number is below the
highest byte already seen; the count equals ccsim's `retransmitted_pkts` exactly, and the
number of captured data segments equals `sent_pkts`. tshark reads the file without
malformed packets or errors, flags every retransmission (as retransmission, fast
retransmission or — when sent within 3 ms of the previous segment — out-of-order),
decodes SACK blocks and timestamps, and marks duplicate ACKs. `tests/test_warmup.py` checks
every counter after a warm-up against captures the same way.

## 6. ns-2.35 conformance

ccsim's `ns2` profile is compared packet event by packet event with the reference
outputs of ns-2.35's own validation suites: [validation/ns2-conformance.md](validation/ns2-conformance.md).

## 7. Engine exactness (from the foundation)

Serialization and propagation are exact to the nanosecond; DropTail never exceeds its
limit; RED's measured drop rate follows its configured curve (5 standard errors, 200 000
arrivals per point, three modes); Bernoulli and Gilbert-Elliott loss rates match theory;
the same seed gives bit-identical tables. See `docs/models/`.

## 8. High-speed response functions

HighSpeed TCP, Scalable TCP, CUBIC and EIMD measured in simulation against their analytic
forms (one flow under Bernoulli loss over three or four decades of p; Scalable's recovery
time; CUBIC's cubic epoch; EIMD's RTT fairness; EIMD under periodic loss), with a figure of
the measured response functions against the analytic ones:
[validation/highspeed.md](validation/highspeed.md), checked by `tests/test_highspeed_validation.py`.

## 9. UDT's design claims

Efficiency on an idle 1 Gb/s path at RTT 1–200 ms, RTT independence of two flows, and the
shares against TCP, for Gu's ns-2 module and UDT 4.11:
[validation/udt.md](validation/udt.md), checked by `tests/test_udt_validation.py`.
"""


def figures(runs: list[dict]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from ccsim.models import mathis, pftk

    st = pftk_stats(runs)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for rec, marker in zip(RECOVERIES, "os^"):
        m = np.array([st[rec, p]["good"] for p in PS])
        ax.errorbar(PS, m[:, 0], yerr=[m[:, 0] - m[:, 1], m[:, 2] - m[:, 0]], marker=marker, ls="none", capsize=2,
                    label=f"ccsim {rec}")
    first = select(runs, "pftk", recovery="reno", p=PS[0])[0]["values"]
    pp = np.logspace(math.log10(PS[0]), math.log10(PS[-1]), 100)
    ax.plot(pp, [pftk(p, first["rtt"], 0.2) for p in pp], "k-", label="PFTK (RTT 100 ms, T0 200 ms)")
    ax.plot(pp, [mathis(p, first["rtt"]) for p in pp], "k:", label="Mathis 1.22/(RTT·√p)")
    ax.set(xscale="log", yscale="log", xlabel="packet loss probability p", ylabel="goodput (packets/s)",
           title="One TCP flow, random loss, no queueing loss (mean, 95 % CI)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(HERE / "pftk.png", dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for b, (label, _, _) in BIAS.items():
        c = np.array([ci([math.log(r["values"]["ratio"]) for r in select(runs, "bias", setting=b, k=k)]) for k in KS])
        ax.errorbar(KS, np.exp(c[:, 0]), yerr=[np.exp(c[:, 0]) - np.exp(c[:, 1]), np.exp(c[:, 2]) - np.exp(c[:, 0])],
                    marker="o", capsize=2, label=label)
    ax.plot(KS, KS, "k:", label="ratio = k")
    ax.set(yscale="log", xlabel="RTT ratio k (long / short)", ylabel="throughput ratio (short / long)",
           title="Two Reno flows, RTT bias (geometric mean, 95 % CI)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(HERE / "rtt_bias.png", dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for r in select(runs, "variants"):
        ax.plot(r["values"]["time"], r["values"]["cwnd"], label=r["params"]["recovery"], drawstyle="steps-post")
    ax.set(xlim=(0, 2.5), xlabel="time (s)", ylabel="cwnd + inflation (segments)",
           title="Three losses in one window (segments 60, 62, 64)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(HERE / "variants.png", dpi=110)
    plt.close(fig)


def _atomic(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def compare(quick: list[dict], stored: list[dict]) -> list[str]:
    """Every quick run must be in numbers.json with the same values."""
    index = {(r["exp"], json.dumps(r["params"], sort_keys=True)): r["values"] for r in stored}
    problems = []
    for r in quick:
        key = (r["exp"], json.dumps(r["params"], sort_keys=True))
        old = index.get(key)
        if old is None:
            problems.append(f"{key}: not in numbers.json")
            continue
        for k, v in r["values"].items():
            w = old.get(k)
            same = (v == w) if not isinstance(v, float) else (w is not None and math.isclose(v, w, rel_tol=1e-9, abs_tol=1e-12))
            if not same:
                problems.append(f"{key} {k}: now {str(v)[:60]}, numbers.json {str(w)[:60]}")
    return problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--full", action="store_true")
    g.add_argument("--quick", action="store_true")
    g.add_argument("--render", action="store_true")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args(argv)
    if a.quick:
        stored = json.loads(NUMBERS.read_text())["runs"]
        problems = compare(run_all(True, a.workers), stored)
        for p in problems:
            print(p)
        print(f"{len(problems)} differences from numbers.json" if problems else "every quick run equals numbers.json")
        return 1 if problems else 0
    if a.full:
        import datetime
        import time

        import ccsim

        t0 = time.perf_counter()
        runs = run_all(False, a.workers)
        meta = {"date": f"{datetime.date.today():%Y-%m-%d}", "version": ccsim.__version__, "runs": len(runs),
                "seconds": time.perf_counter() - t0, "workers": a.workers}
        _atomic(NUMBERS, json.dumps({"meta": meta, "runs": runs}, indent=0, default=float))
    data = json.loads(NUMBERS.read_text())
    figures(data["runs"])
    _atomic(PAGE, render(data["runs"], data["meta"]))
    print(f"wrote {PAGE} and {NUMBERS.parent}/*.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
