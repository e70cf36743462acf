"""UDT's design claims measured in ccsim (issue #17): the runs behind docs/validation/udt.md
and tests/test_udt_validation.py.

1. Efficiency: one UDT flow on an idle 1 Gb/s path (one-BDP DropTail buffer, no random loss),
   RTT 1, 50, 100, 200 ms, 60 s: the time its throughput averaged over 2 s (four 0.5 s bins)
   first reaches 90 % of the link (the end of its start-up), and its mean throughput from
   then on.
2. RTT independence: two UDT flows with RTTs 10 and 100 ms through one 1 Gb/s bottleneck
   (buffer one BDP of 100 ms), 60 s, measured after a 20 s warm-up.
3. TCP friendliness: one UDT flow against one TCP flow (ns-2 NewReno), same RTT (10 or 100
   ms, buffer one BDP), 60 s after a 20 s warm-up: the shares.

    python docs/validation/udt_checks.py           # prints the markdown tables
"""

from __future__ import annotations

import numpy as np

import ccsim
from ccsim.papers import udt_rtt_setup as S

PROFILES = {
    "ns2": {"kind": "udt", "profile": "ns2"},
    # UDT 4.11 with buffers past the 200 ms path's BDP (its 8192-packet default would cap it).
    "udt4": {"kind": "udt", "profile": "udt4", "buffer": 100_000, "flight_flag": 100_000},
}
TCP = {"kind": "tcp", "profile": "ns2", "mss": S.TCP_MSS, "window": S.TCP_WINDOW, "recovery": "newreno"}


def efficiency(profile: str, rtt_ms: float, duration: float = 60.0) -> dict:
    d = S.scenario("UDT", rtt_ms, duration=duration, trace_interval=0.5, extra=PROFILES[profile])
    res = ccsim.run(d)
    s = res.series("flow:f")
    t, thr = s["time"].to_numpy(), s["throughput_bps"].to_numpy()
    # Start-up ends when a 2 s average (four bins) first reaches 90 % of the link.
    avg = np.convolve(thr, np.ones(4) / 4, mode="full")[: len(thr)]
    hit = avg >= 0.9 * S.RATE
    reach = float(t[np.argmax(hit)]) if hit.any() else float("nan")
    after = thr[t > reach] if hit.any() else thr[:0]
    f = res.flows.iloc[0]
    return {"reach_s": reach, "util_after": float(after.mean() / S.RATE) if len(after) else float("nan"),
            "min_after": float(after.min() / S.RATE) if len(after) else float("nan"),
            "timeouts": int(f["timeouts"]), "loss_rate": float(f["loss_rate"])}


def _pair(kinds: list[dict], rtts: list[float], queue_rtt: float, duration: float = 60.0, warmup: float = 20.0) -> np.ndarray:
    d = {"name": "udt-pair", "simulation": {"duration": duration, "seed": 1, "warmup": warmup},
         "dumbbell": {"senders": 2, "bottleneck_rate": S.RATE, "bottleneck_delay": "0.5ms", "access_rate": S.ACCESS_RATE,
                      "access_delays": [f"{r / 2 - 1:g}ms" for r in rtts], "receiver_delays": ["0.5ms", "0.5ms"],
                      "queue": {"kind": "droptail", "limit": S.queue_limit(queue_rtt)},
                      "access_queue": {"kind": "droptail", "limit": 100_000}},
         "flows": [{**k, "name": f"f{i}", "src": f"s{i}", "dst": f"d{i}"} for i, k in enumerate(kinds)]}
    return ccsim.run(d).flows["goodput_bps"].to_numpy()


def rtt_independence(profile: str) -> dict:
    g = _pair([PROFILES[profile]] * 2, [10, 100], 100)
    return {"short_bps": float(g[0]), "long_bps": float(g[1]), "ratio": float(g[0] / g[1])}


def tcp_friendliness(profile: str, rtt_ms: float) -> dict:
    g = _pair([PROFILES[profile], TCP], [rtt_ms, rtt_ms], rtt_ms)
    return {"udt_bps": float(g[0]), "tcp_bps": float(g[1]), "udt_share": float(g[0] / g.sum())}


def main() -> None:
    print("| profile | RTT | reaches 90 % at | mean after | lowest 0.5 s bin after | EXP timeouts | loss |")
    print("|---|---|---|---|---|---|---|")
    for p in PROFILES:
        for r in S.RTTS_MS:
            e = efficiency(p, r)
            print(f"| {p} | {r} ms | {e['reach_s']:.1f} s | {100 * e['util_after']:.1f} % | {100 * e['min_after']:.1f} % | "
                  f"{e['timeouts']} | {100 * e['loss_rate']:.2f} % |")
    print("\n| profile | 10 ms flow (Mb/s) | 100 ms flow (Mb/s) | ratio |")
    print("|---|---|---|---|")
    for p in PROFILES:
        x = rtt_independence(p)
        print(f"| {p} | {x['short_bps'] / 1e6:.1f} | {x['long_bps'] / 1e6:.1f} | {x['ratio']:.3f} |")
    print("\n| profile | RTT | UDT (Mb/s) | TCP (Mb/s) | UDT's share |")
    print("|---|---|---|---|---|")
    for p in PROFILES:
        for r in (10, 100):
            x = tcp_friendliness(p, r)
            print(f"| {p} | {r} ms | {x['udt_bps'] / 1e6:.1f} | {x['tcp_bps'] / 1e6:.1f} | {100 * x['udt_share']:.1f} % |")


if __name__ == "__main__":
    main()
