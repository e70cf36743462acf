"""ccsim's side of `bench/ns3/dumbbell.py NAME --startup-trace STEP`: the benchmark scenario
cut at every STEP seconds up to T (one run per cut; a run's first t seconds are the same
whatever its length), printing the same cumulative counters as one JSON line per cut.

    python bench/ccsim_trace.py S4 5 0.5 [key=JSON ...]     # e.g. recovery='"sack"'

key=JSON overrides a field of the scenario's TCP flows (as `--sack` does for the ns-3 script).
"""

import json
import sys

import ccsim
from ccsim import _core
from ccsim.scenario import loads


def main() -> None:
    name, end, step = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    overrides = {k: json.loads(v) for k, v in (a.split("=", 1) for a in sys.argv[4:])}
    base = _core.bench_scenario(name)
    if base is None:
        raise SystemExit(f"unknown benchmark '{name}'; known: S1, S2, S3, S4")
    t = 0.0
    while t < end - 1e-9:
        t = min(end, t + step)
        sc = loads(base)
        sc["flows"][0].update(overrides)
        sc["simulation"]["duration"] = t
        r = ccsim.run(sc)
        f, q = r.flows, r.queues
        b = q[q["link"] == "bottleneck"].iloc[0]  # the a->b (forward) direction comes first
        print(json.dumps({"t": round(t, 9), "goodput_bytes": int(f["goodput_bytes"].sum()),
                          "data_sent": int(f["sent_pkts"].sum()), "retransmitted": int(f["retransmitted_pkts"].sum()),
                          "fast_recoveries": int(f["fast_retransmits"].sum()), "timeouts": int(f["timeouts"].sum()),
                          "bottleneck_drops": int(b["drops_overflow"]), "bottleneck_sent": int(b["departures"]),
                          "idle_flows": int((f["goodput_bytes"] == 0).sum()),
                          "duplicates_received": int(f["duplicate_segments"].sum())}), flush=True)


if __name__ == "__main__":
    main()
