"""High-speed TCP response functions measured in simulation (issue #16, Paper E).

    python docs/validation/highspeed_response.py             # the markdown tables (about 45 s)
    python docs/validation/highspeed_response.py --seed 2    # another seed
    python docs/validation/highspeed_response.py --sawtooth  # also EIMD's c_form = "sawtooth"

tests/test_highspeed_validation.py asserts on the same runs.

Response functions: one TCP flow s0 -> d0 across a dumbbell whose 10 Gb/s links never
queue, so that only the Bernoulli loss on the bottleneck limits it. ns2 profile, Sack1
recovery, 1460-byte segments, a receiver window of 10^7 segments.

Estimator of the mean window: packets sent per RTT after warm-up, ``w = sent_pkts /
(duration - warmup) * mean_rtt_s`` (sent rather than delivered: the window counts what is
in flight, retransmissions included; the two differ by p). ``mean_rtt_s`` is the
propagation RTT within 0.5 % (no queue). It is compared with the response function at the
loss rate the run actually saw, ``p_meas = wire_losses / sent_pkts``: with n losses the
realised loss rate is off by about 1/sqrt(n), which would move the window by s/sqrt(n)
(15 % at n = 30 for s = 0.835) against the nominal p; against p_meas what is left is the
scatter of the loss intervals' order (measured over 20 seeds at 10^-4: one sigma 0.044 for
HighSpeed TCP at 40 losses where the nominal p gives 0.15). The tables also show the
window moved to the nominal p along the analytic exponent, ``w (p_meas/p)^s``, which is
what compares with RFC 3649's Table 3 (the correction is a few per cent).

Each run is sized for a number of loss events after warm-up (packets = losses / p, the
duration from the expected window) and starts with ``initial_ssthresh`` at the expected
window, so that slow start ends near the operating point: from a huge ssthresh slow start
would end near 1/p segments (10^6 at p = 10^-6), and HighSpeed TCP, Scalable TCP and EIMD
give up only 10-20 % per loss. The warm-up (slow start plus two expected loss cycles) is
skipped with ``[simulation] warmup``.
"""

from __future__ import annotations

import argparse
import functools
import math
import sys

from ccsim import models

MSS = 1460
RATE = "10Gbps"  # bottleneck and access links: never the limit (HSTCP at 10^-6: 1.5 Gb/s)
ACCESS_DELAY = 0.001  # s, each of the two access links

# Analytic forms ----------------------------------------------------------------------------
RFC3649_TABLE3 = {1e-4: 263, 1e-5: 1795, 1e-6: 12279}


# The analytic forms live in ccsim.models (shared with the Paper E report).
hstcp_w = models.hstcp_window
scalable_w = models.scalable_window
eimd_w = models.eimd_window
cubic_w = models.cubic_window


def scalable_recovery_rtts(a: float = 0.01, b: float = 0.125) -> float:
    """RTTs from (1 - b) W back to W growing by a factor (1 + a) per RTT: 13.4."""
    return math.log(1 / (1 - b)) / math.log(1 + a)


#: The level of eq. 1 that EIMD's c_form = "paper" reaches under Bernoulli loss (about 0.66,
#: docs/models/eimd.md): used only to size runs and their initial ssthresh.
EIMD_PAPER_LEVEL = 0.66
EIMD_SAWTOOTH_LEVEL = 2.2


def loglog_slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of ln y against ln x."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def eimd_exponents(points: list[dict]) -> dict:
    """ln w = ln A' + r ln RTT - s ln p_meas, least squares over runs at several p and RTTs.

    Each run gives a measured pair (loss rate, window) at its RTT: no exponent is assumed."""
    import numpy as np

    x = np.array([[1.0, math.log(pt["rtt"]), math.log(pt["p_meas"])] for pt in points])
    y = np.array([math.log(pt["w"]) for pt in points])
    (la, r, ms), *_ = np.linalg.lstsq(x, y, rcond=None)
    return {"r": float(r), "s": float(-ms), "a": float(math.exp(la))}


# Scenarios ---------------------------------------------------------------------------------
def one_flow(cc: str, rtt: float, duration: float, *, cc_params: dict | None = None, loss: dict | None = None,
             ssthresh: float = 1e9, warmup: float = 0.0, seed: int = 1, trace: str | None = None,
             bottleneck: str | float = RATE) -> dict:
    """One TCP flow s0 -> d0 over the dumbbell; ``rtt`` (s) is the propagation RTT."""
    bdelay = rtt / 2 - 2 * ACCESS_DELAY
    assert bdelay > 0
    sim = {"duration": duration, "seed": seed}
    if warmup:
        sim["warmup"] = warmup
    huge = {"kind": "droptail", "limit": 10**7}
    db = {"senders": 1, "bottleneck_rate": bottleneck, "bottleneck_delay": bdelay, "access_rate": RATE,
          "access_delay": ACCESS_DELAY, "queue": huge, "access_queue": huge}
    if loss:
        db["loss"] = loss
    sc = {"name": f"{cc}-response", "simulation": sim, "dumbbell": db,
          "flows": [{"name": "x", "kind": "tcp", "src": "s0", "dst": "d0", "profile": "ns2", "recovery": "sack1",
                     "mss": MSS, "window": 10**7, "initial_ssthresh": ssthresh, "cc": cc,
                     "cc_params": cc_params or {}}]}
    if trace:
        sc["traces"] = [{"kind": "flow", "flow": "x", "interval": trace}]
    return sc


def response_point(cc: str, p: float, rtt: float, w_expected: float, *, cc_params: dict | None = None,
                   losses: int = 40, seed: int = 1, periodic: bool = False) -> dict:
    """Mean window (packets sent per RTT) of one flow under Bernoulli loss p.

    ``w_expected`` sizes the run: ``losses / p`` packets after a warm-up of slow start
    plus two loss cycles (``1 / (p w)`` RTTs each), and is the initial ssthresh."""
    import ccsim

    cycle = rtt / (p * w_expected)
    warmup = rtt * (math.log2(w_expected) + 2) + 2 * cycle
    measure = losses / p / w_expected * rtt
    loss = {"kind": "periodic", "period": 1 / p} if periodic else {"kind": "bernoulli", "p": p}
    sc = one_flow(cc, rtt, warmup + measure, cc_params=cc_params, loss=loss,
                  ssthresh=round(w_expected), warmup=warmup, seed=seed)
    f = ccsim.run(sc).flows.iloc[0]
    sent, lost = int(f["sent_pkts"]), int(f["wire_losses"])
    return {"cc": cc, "p": p, "rtt": rtt, "seed": seed, "secs": measure, "sent": sent, "losses": lost,
            "p_meas": lost / sent, "mean_rtt": float(f["mean_rtt_s"]), "w": sent / measure * float(f["mean_rtt_s"]),
            "reductions": int(f["fast_retransmits"]), "timeouts": int(f["timeouts"])}


def at_nominal(pt: dict, s: float) -> float:
    """The measured window brought to the nominal p along the exponent s: w (p_meas/p)^s."""
    return pt["w"] * (pt["p_meas"] / pt["p"]) ** s


# Response functions under Bernoulli loss ---------------------------------------------------
# p -> loss events per run. Scatter of measured / analytic at the measured p, over 20 seeds
# at 10^-4: 0.044 (one sigma) for HighSpeed TCP with 40 losses, 0.025 for Scalable TCP with
# 60; it falls as 1/sqrt(losses). The 10^-6 points are the costly ones (10^6 packets per
# loss, about 0.6 s of CPU per loss). Levels over 1000-3000 losses (seeds 1-3): HighSpeed
# 1.02 at 10^-4 and 10^-5; Scalable 0.92 at 10^-3, 0.935 at 10^-4; EIMD ("paper") 0.64 at
# 10^-3, 0.68 at 10^-4, 0.66 at 10^-5 (200 losses).
HSTCP_PS = {1e-4: 300, 1e-5: 100, 1e-6: 30}
SCALABLE_PS = {1e-3: 1000, 1e-4: 300, 1e-5: 100}
EIMD_PS = {1e-3: 300, 1e-4: 300, 1e-5: 60, 1e-6: 20}
EIMD_RTTS = {0.04: 300, 0.1: 300, 0.25: 300}  # at EIMD_RTT_P; 100 ms is the p sweep's point
EIMD_RTT_P = 1e-4
RTT = 0.1


@functools.cache
def hstcp(p: float, seed: int = 1) -> dict:
    """HighSpeed TCP, variant "rfc", against RFC 3649's w = 0.12 / p^0.835 (Table 3)."""
    pt = response_point("highspeed", p, RTT, hstcp_w(p), cc_params={"variant": "rfc"}, losses=HSTCP_PS[p], seed=seed)
    return {**pt, "ref": hstcp_w(pt["p_meas"]), "ref_nominal": RFC3649_TABLE3[p], "w_nominal": at_nominal(pt, 0.835)}


def scalable_params(p: float) -> dict:
    """At 10^-3 the window (70-80 segments) lies wholly below the default low_window (100),
    where Scalable TCP grows as Reno (+1 per RTT): the run would measure that hybrid (about
    2.7/sqrt(p), by chance near 0.08/p there). low_window = 0 gives the pure 1 %-per-RTT
    rule. At 10^-4 and below the window never falls under 100: the defaults."""
    return {"low_window": 0} if p * 100 > 0.08 else {}


@functools.cache
def scalable(p: float, seed: int = 1) -> dict:
    pt = response_point("scalable", p, RTT, scalable_w(p), cc_params=scalable_params(p), losses=SCALABLE_PS[p],
                        seed=seed)
    return {**pt, "ref": scalable_w(pt["p_meas"]), "ref_nominal": scalable_w(p), "w_nominal": at_nominal(pt, 1.0)}


@functools.cache
def eimd(p: float, rtt: float = RTT, c_form: str = "paper", losses: int | None = None, seed: int = 1,
         periodic: bool = False) -> dict:
    """EIMD with the paper's defaults (A = 1.75, r = s = 0.82, beta = 0.2) against eq. 1,
    under Bernoulli loss or (``periodic``) one loss every 1/p packets."""
    if losses is None:
        losses = EIMD_PS[p] if rtt == RTT else EIMD_RTTS[rtt]
    level = 1.0 if periodic and c_form == "sawtooth" else EIMD_PAPER_LEVEL if c_form == "paper" else EIMD_SAWTOOTH_LEVEL
    pt = response_point("eimd", p, rtt, level * eimd_w(p, rtt), cc_params={"c_form": c_form}, losses=losses,
                        seed=seed, periodic=periodic)
    return {**pt, "ref": eimd_w(pt["p_meas"], rtt), "ref_nominal": eimd_w(p, rtt), "w_nominal": at_nominal(pt, 0.82)}


# EIMD under periodic loss: eqs. 4-6's own model --------------------------------------------
# One loss every 1/p packets is the deterministic sawtooth eqs. 4-6 assume; there the
# re-derived c (c_form = "sawtooth", no Gamma(u+1)) must give eq. 1 itself.
EIMD_PERIODIC_PS = {1e-3: 40, 1e-4: 30, 1e-5: 20, 1e-6: 20}
EIMD_PERIODIC_RTTS = (0.04, 0.25)  # at 1e-4, besides 100 ms


def eimd_periodic(p: float, rtt: float = RTT, c_form: str = "sawtooth") -> dict:
    losses = EIMD_PERIODIC_PS[p] if rtt == RTT else EIMD_PERIODIC_PS[EIMD_RTT_P]
    return eimd(p, rtt, c_form=c_form, losses=losses, periodic=True)


# Scalable TCP: recovery time after one loss ------------------------------------------------
SCALABLE_RECOVERY_WINDOWS = (200, 2000, 20000)


def scalable_recovery(window: int, rtt: float = RTT) -> dict:
    """One loss (a drop list) at about ``window`` segments; the cwnd trace (1 ms) back to it.

    Slow start ends at ``window`` (initial ssthresh), congestion avoidance runs about 3 RTTs
    (packet 5 * window is dropped) and the flow reduces to 7/8 of the window W it had when
    it detected the loss: W = post / (1 - b) (the last sample before the reduction is up to
    one millisecond's growth short of it; the decrease itself is reported against it).

    Here the bottleneck is not idle: its rate is set to 1.15 windows per RTT, so that the
    flow fills 80-90 % of it and its packets, hence its ACKs, are spread over the RTT. On an
    idle 10 Gb/s path each window would go out as one burst and cwnd would be a staircase
    growing once per RTT, which rounds the time back to whole RTTs (and the first round
    after recovery is partial: some of its ACKs arrive while cwnd is frozen).
    ``growth_rtts``: from the first sample where cwnd grows again (the end of Sack1's
    recovery) to the first at or above W, in mean RTTs; ``from_reduction_rtts`` also counts
    the recovery (about one RTT, cwnd frozen until the retransmission is acknowledged)."""
    import ccsim
    import numpy as np

    b = 0.125
    rate = round(window * 1.15 * (MSS + 40) * 8 / rtt)
    sc = one_flow("scalable", rtt, rtt * (math.log2(window) + 25), loss={"kind": "drop_list", "packets": [5 * window]},
                  ssthresh=window, trace="1ms", bottleneck=rate)
    r = ccsim.run(sc)
    s, f = r.series("flow:x"), r.flows.iloc[0]
    c, t = s["cwnd"].to_numpy(), s["time"].to_numpy()
    i = int(np.argmax(np.diff(c) < 0)) + 1  # first sample after the reduction
    post = c[i]
    w = post / (1 - b)
    g = i + int(np.argmax(c[i:] > post + 1e-6))  # first sample showing growth
    back = i + int(np.argmax(c[i:] >= w))
    assert c[back] >= w, "the window did not come back within the run"
    mrtt = float(f["mean_rtt_s"])
    return {"window": window, "rate_mbps": rate / 1e6, "w_pre": float(w), "decrease": float(post / c[i - 1]),
            "growth_rtts": float(t[back] - t[g]) / mrtt, "from_reduction_rtts": float(t[back] - t[i]) / mrtt,
            "recovery_rtts": float(f["mean_recovery_s"]) / mrtt, "mean_rtt": mrtt, "losses": int(f["wire_losses"]),
            "queue_drops": int(f["queue_drops"]), "timeouts": int(f["timeouts"]), "ref": scalable_recovery_rtts()}


# CUBIC: one loss-free epoch against C (t - K)^3 + W_max ----------------------------------
def cubic_epoch(window: int = 1000, rtt: float = RTT, c: float = 0.4, beta: float = 0.7) -> dict:
    """RFC 9438 CUBIC, one loss (a drop list) at about ``window`` segments, then no loss.

    W_max is the last sampled cwnd before the reduction (10 ms trace), t = 0 the first
    sample where cwnd grows again (the epoch starts at the first ACK of congestion avoidance,
    after Sack1's recovery). The epoch is followed for 2 K (up to 1.3 W_max): a free cubic
    fit gives C, K (its inflection) and W_max (its value there); the trace is compared
    pointwise with the analytic W(t) = C (t - K)^3 + W_max, K = cbrt(W_max (1 - beta) / C)."""
    import ccsim
    import numpy as np

    k_est = (window * (1 - beta) / c) ** (1 / 3)
    sc = one_flow("cubic", rtt, 1.0 + 2 * k_est + 2.0, cc_params={"version": "rfc9438", "c": c, "beta": beta},
                  loss={"kind": "drop_list", "packets": [5 * window]}, ssthresh=window, trace="10ms")
    r = ccsim.run(sc)
    s, f = r.series("flow:x"), r.flows.iloc[0]
    cw, tt = s["cwnd"].to_numpy(), s["time"].to_numpy()
    i = int(np.argmax(np.diff(cw) < 0)) + 1
    w_max, post = cw[i - 1], cw[i]
    e = i + int(np.argmax(cw[i:] > post + 1e-6))
    k = (w_max * (1 - beta) / c) ** (1 / 3)
    sel = (tt >= tt[e]) & (tt <= tt[e] + 2 * k)
    t, y = tt[sel] - tt[e], cw[sel]
    a3, a2, a1, a0 = np.polyfit(t, y, 3)
    k_fit = -a2 / (3 * a3)
    model = cubic_w(t, w_max, c, beta)
    r2 = 1 - float(np.sum((y - model) ** 2) / np.sum((y - y.mean()) ** 2))
    return {"w_max": w_max, "post": post, "reduction": post / w_max, "t_loss": tt[i], "t_epoch": tt[e], "k": k,
            "c_fit": a3, "k_fit": k_fit, "w_max_fit": float(np.polyval([a3, a2, a1, a0], k_fit)),
            "r2": r2, "max_err": float(np.max(np.abs(y - model) / model)), "samples": int(sel.sum()),
            "losses": int(f["wire_losses"]), "timeouts": int(f["timeouts"])}


# EIMD: RTT fairness on a shared DropTail bottleneck ---------------------------------------
FAIR_RATE_MBPS, FAIR_SECS, FAIR_WARMUP, FAIR_RTT = 200, 300, 50, 0.040


def eimd_fairness(k: int, seed: int = 1) -> dict:
    """Two EIMD flows, propagation RTTs 40 ms and k * 40 ms, on a 200 Mb/s DropTail
    bottleneck with one 40 ms BDP of buffer (667 packets), no other traffic, 300 s (the
    first 50 s skipped). Eq. 3 (r = s, synchronized losses): throughput ratio = k."""
    import ccsim

    bd, rd = 0.010, 0.001
    acc = [FAIR_RTT / 2 - bd - rd, k * FAIR_RTT / 2 - bd - rd]
    buf = round(FAIR_RATE_MBPS * 1e6 * FAIR_RTT / 8 / (MSS + 40))
    huge = {"kind": "droptail", "limit": 10**6}
    sc = {"name": "eimd-rtt-fairness", "simulation": {"duration": FAIR_SECS, "seed": seed, "warmup": FAIR_WARMUP},
          "dumbbell": {"senders": 2, "bottleneck_rate": f"{FAIR_RATE_MBPS}Mbps", "bottleneck_delay": bd,
                       "access_rate": RATE, "access_delays": acc, "receiver_delays": [rd, rd],
                       "queue": {"kind": "droptail", "limit": buf}, "access_queue": huge},
          "flows": [{"name": "f{i}", "count": 2, "kind": "tcp", "src": "s{i}", "dst": "d{i}", "profile": "ns2",
                     "recovery": "sack1", "mss": MSS, "window": 10**7, "cc": "eimd", "start_jitter": 1.0}]}
    f = ccsim.run(sc).flows
    g, rtt = f["goodput_bps"].to_numpy(), f["mean_rtt_s"].to_numpy()
    events = (f["fast_retransmits"] + f["timeouts"]).to_numpy()
    return {"k": k, "buffer": buf, "mbps": (g / 1e6).tolist(), "ratio": float(g[0] / g[1]),
            "rtt": rtt.tolist(), "rtt_ratio": float(rtt[1] / rtt[0]),
            "windows": (g / 8 / (MSS + 40) * rtt).tolist(), "drops": f["queue_drops"].astype(int).tolist(),
            "events": events.astype(int).tolist()}


# The page ----------------------------------------------------------------------------------
def _row(name: str, pt: dict) -> str:
    return (f"| {name} | {pt['p']:g} | {pt['rtt'] * 1000:g} | {pt['losses']} | {pt['w']:.0f} | {pt['ref']:.0f} | "
            f"{pt['w'] / pt['ref']:.3f} | {pt['w_nominal']:.0f} | {pt['ref_nominal']:.0f} |")


def tables(seed: int = 1, sawtooth: bool = False) -> str:
    out = ["Response functions under Bernoulli loss (one flow, 10 Gb/s path, ns2 profile, Sack1, MSS 1460). "
           "w: packets sent per RTT after warm-up; analytic at the loss rate the run saw (p_meas = losses / sent); "
           "'w at p': the measured window moved to the nominal p along the analytic exponent.", "",
           "| controller | p | RTT (ms) | losses | w | analytic (p_meas) | ratio | w at p | analytic (p) |",
           "|---|---|---|---|---|---|---|---|---|"]
    for p in HSTCP_PS:
        out.append(_row("HighSpeed (rfc), RFC 3649 Table 3", hstcp(p, seed)))
    for p in SCALABLE_PS:
        out.append(_row("Scalable, 0.08/p" + (" (low_window 0)" if scalable_params(p) else ""), scalable(p, seed)))
    ep = {p: eimd(p, seed=seed) for p in EIMD_PS}
    er = {rtt: (ep[EIMD_RTT_P] if rtt == RTT else eimd(EIMD_RTT_P, rtt, seed=seed)) for rtt in EIMD_RTTS}
    for p, pt in ep.items():
        out.append(_row('EIMD (c_form "paper"), eq. 1', pt))
    for rtt, pt in er.items():
        if rtt != RTT:
            out.append(_row('EIMD (c_form "paper"), eq. 1', pt))
    es = {}
    if sawtooth:
        es = {p: eimd(p, c_form="sawtooth", losses=EIMD_PS[p], seed=seed) for p in (1e-4, 1e-5)}
        for pt in es.values():
            out.append(_row('EIMD (c_form "sawtooth"), eq. 1', pt))
    fit = eimd_exponents(list(ep.values()) + [pt for rtt, pt in er.items() if rtt != RTT])
    out += ["", "EIMD exponents: least squares of ln w on ln RTT and ln p_meas over the EIMD runs above "
            f"(p = {min(ep):g} to {max(ep):g} at 100 ms; RTT {', '.join(f'{x * 1000:g}' for x in er)} ms at "
            f"p = {EIMD_RTT_P:g}):", "",
            "| | measured | eq. 1 | ratio |", "|---|---|---|---|",
            f"| s (w against 1/p) | {fit['s']:.3f} | 0.82 | {fit['s'] / 0.82:.3f} |",
            f"| r (w against RTT) | {fit['r']:.3f} | 0.82 | {fit['r'] / 0.82:.3f} |"]
    if es:
        ss = loglog_slope([pt["p_meas"] for pt in es.values()], [pt["w"] for pt in es.values()])
        out.append(f'| s, c_form "sawtooth" (p = {min(es):g}, {max(es):g}) | {-ss:.3f} | 0.82 | {-ss / 0.82:.3f} |')
    out += ["", "EIMD under periodic loss (one loss every 1/p packets, the deterministic sawtooth eqs. 4-6 assume), "
            'c_form "sawtooth" (eq. 7 without Gamma(u+1)) and "paper":', "",
            "| controller | p | RTT (ms) | losses | w | analytic (p_meas) | ratio | w at p | analytic (p) |",
            "|---|---|---|---|---|---|---|---|---|"]
    for p in EIMD_PERIODIC_PS:
        out.append(_row('EIMD (c_form "sawtooth"), eq. 1', eimd_periodic(p)))
    for rtt in EIMD_PERIODIC_RTTS:
        out.append(_row('EIMD (c_form "sawtooth"), eq. 1', eimd_periodic(EIMD_RTT_P, rtt)))
    out.append(_row('EIMD (c_form "paper"), eq. 1', eimd_periodic(EIMD_RTT_P, c_form="paper")))
    out += ["", "Scalable TCP, one loss (drop list) at about W segments, RTT 100 ms, the bottleneck 1.15 windows "
            "per RTT (the ACK clock spreads the packets over the RTT):", "",
            "| W | bottleneck (Mb/s) | decrease | RTTs of growth back to W | analytic "
            "| from the reduction (incl. recovery) |",
            "|---|---|---|---|---|---|"]
    for w in SCALABLE_RECOVERY_WINDOWS:
        x = scalable_recovery(w)
        out.append(f"| {x['w_pre']:.0f} | {x['rate_mbps']:.1f} | {x['decrease']:.4f} | {x['growth_rtts']:.2f} | "
                   f"{x['ref']:.2f} | {x['from_reduction_rtts']:.2f} |")
    cu = cubic_epoch()
    out += ["", "CUBIC (RFC 9438), one loss-free epoch after a loss at W_max, RTT 100 ms, fit over 2 K:", "",
            "| W_max | C fit | C | K fit (s) | K (s) | W at K fit | R² vs analytic | max error |",
            "|---|---|---|---|---|---|---|---|",
            f"| {cu['w_max']:.1f} | {cu['c_fit']:.4f} | 0.4 | {cu['k_fit']:.3f} | {cu['k']:.3f} | "
            f"{cu['w_max_fit']:.1f} | {cu['r2']:.5f} | {cu['max_err'] * 100:.2f} % |"]
    out += ["", f"EIMD RTT fairness: two flows, {FAIR_RATE_MBPS} Mb/s DropTail, buffer one 40 ms BDP, {FAIR_SECS} s "
            f"({FAIR_WARMUP} s warm-up); eq. 3 predicts ratio = k:", "",
            "| k | Mb/s (40 ms, k·40 ms) | ratio | eq. 3 | mean RTT ratio | windows | loss events | drops |",
            "|---|---|---|---|---|---|---|---|"]
    for k in (3, 6):
        fr = eimd_fairness(k, seed)
        out.append(f"| {k} | {fr['mbps'][0]:.1f}, {fr['mbps'][1]:.1f} | {fr['ratio']:.2f} | {k} | "
                   f"{fr['rtt_ratio']:.2f} | {fr['windows'][0]:.0f}, {fr['windows'][1]:.0f} | "
                   f"{fr['events'][0]}, {fr['events'][1]} | "
                   f"{fr['drops'][0]}, {fr['drops'][1]} |")
    return "\n".join(out)


def figure(path: str, seed: int = 1) -> None:
    """Measured mean windows against p (points) and the analytic response functions
    (lines), 100 ms RTT: the runs of the tables (seed 1), drawn log-log."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    ps = np.logspace(-6.2, -2.8, 50)
    series = [
        ("HighSpeed (rfc), Bernoulli", [hstcp(p, seed) for p in HSTCP_PS], hstcp_w, "o"),
        ("Scalable, Bernoulli", [scalable(p, seed) for p in SCALABLE_PS if p < 1e-3], scalable_w, "s"),
        ('EIMD "paper", Bernoulli', [eimd(p, seed=seed) for p in EIMD_PS], lambda p: eimd_w(p, RTT), "^"),
        ('EIMD "sawtooth", periodic', [eimd_periodic(p) for p in EIMD_PERIODIC_PS], lambda p: eimd_w(p, RTT), "v"),
    ]
    for label, pts, ref, marker in series:
        line = ax.plot([pt["p_meas"] for pt in pts], [pt["w"] for pt in pts], marker, ls="none", label=f"{label} (ccsim)")
        if "sawtooth" not in label:  # the two EIMD series share eq. 1
            ax.plot(ps, [ref(p) for p in ps], "-", lw=0.9, color=line[0].get_color(),
                    label="eq. 1 (EIMD)" if "EIMD" in label else f"{label.split(',')[0]} analytic")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("loss rate p (measured)")
    ax.set_ylabel("mean window (segments), RTT 100 ms")
    ax.set_title("Response functions: ccsim against the analytic forms")
    ax.grid(True, alpha=0.3, which="both")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sawtooth", action="store_true", help='also EIMD with c_form = "sawtooth" (slope only)')
    ap.add_argument("--figure", help="also draw the response functions to this PNG")
    a = ap.parse_args(argv)
    print(tables(a.seed, a.sawtooth))
    if a.figure:
        figure(a.figure, a.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
