"""One benchmark run in its own process, so the parent can measure its peak memory.

    python -m ccsim._benchworker S1|S2|S3|S4 [--sack] [--classic] [--seconds X]
    python -m ccsim._benchworker S1|S2|S3|S4 --min-time T   # back to back for T s of loops, the mean
    python -m ccsim._benchworker cbr FLOWS RATE SECONDS
    python -m ccsim._benchworker idle N        # N TCP flows that never start
    python -m ccsim._benchworker web N         # N TCP transfers opened during the run
    python -m ccsim._benchworker E2.5|E5 SECONDS   # Paper E's dumbbell at 2.5 or 5 Gb/s, two EIMD flows
    python -m ccsim._benchworker D-UDT|D-Proposed|D-TCP   # Paper D's 1 Gb/s path, 100 ms, 60 s
    python -m ccsim._benchworker scale N SECONDS [RATE_BPS QUEUE] [--once]   # S3's dumbbell (1 Gb/s, 10 ms, queue 1000) with N flows
    python -m ccsim._benchworker idle-hosts N      # S3's dumbbell with N host pairs, N TCP flows that never start
    python -m ccsim._benchworker idle-dumbbell N P # S3's dumbbell with P host pairs, N idle TCP flows, N/P per pair
Prints one JSON line.
"""

import json
import re
import sys

from . import _core, _pairstats


#: Paper E's heaviest runs: the eimd reproduction's dumbbell at these rates (bit/s).
PAPER_E = {"E2.5": 2.5e9, "E5": 5e9}


def paper_e(rate: float, seconds: float) -> dict:
    """Two EIMD flows (40 ms) with the reproduction's background, no warm-up, every flow
    starting in the first second; the same keys as the engine's own benchmarks."""
    from .papers.eimd_setup import scenario
    from .run import run

    d = scenario("EIMD", rate, duration=seconds, warmup=0)
    for f in d["flows"]:  # every flow starts within the first second (the study spreads them over 20 s)
        f["start_jitter"] = 1.0
    res = run(d)
    q = res.tables["queues"].to_pandas().set_index("direction")
    pkts = float(q.loc["r0->r1", "departures"] + q.loc["r1->r0", "departures"])
    f = res.tables["flows"].to_pandas()
    wall = float(res.meta["wall_s"])
    return {"flows": int(len(f)), "sim_s": seconds, "wall_s": wall, "events": int(res.meta["events"]),
            "events_per_s": res.meta["events"] / wall, "bottleneck_pkts": pkts, "bottleneck_pkts_per_s": pkts / wall,
            "goodput_bps": float(f["goodput_bps"][f["name"].str.startswith("hs")].sum())}


#: Paper D's runs: one flow on the udt-rtt reproduction's 1 Gb/s path at 100 ms, 60 s.
PAPER_D = {"D-UDT": "UDT", "D-Proposed": "Proposed", "D-TCP": "TCP"}


def paper_d(proto: str) -> dict:
    from .papers.udt_rtt_setup import scenario
    from .run import run

    res = run(scenario(proto, 100))
    q = res.tables["queues"].to_pandas().set_index("direction")
    pkts = float(q.loc["r0->r1", "departures"] + q.loc["r1->r0", "departures"])
    f = res.tables["flows"].to_pandas()
    wall = float(res.meta["wall_s"])
    return {"flows": 1, "sim_s": float(res.meta["sim_time_s"]), "wall_s": wall, "events": int(res.meta["events"]),
            "events_per_s": res.meta["events"] / wall, "bottleneck_pkts": pkts, "bottleneck_pkts_per_s": pkts / wall,
            "goodput_bps": float(f["goodput_bps"].sum())}


def _sub(toml: str, old: str, new: str) -> str:
    """`toml` with `old` replaced by `new`; an error if `old` is not there (the engine's
    scenario changed: a silent no-op would benchmark the wrong thing)."""
    if old not in toml:
        raise ValueError(f"benchmark scenario lacks {old!r}")
    return toml.replace(old, new)


def s3_with(n: int, duration: float, start: str | None = None, rate_bps: float | None = None, queue: int | None = None) -> str:
    """S3's dumbbell (1 Gb/s, 10 ms, queue 1 000) with `n` sender/receiver pairs and `n`
    flows, run for `duration` s; `start`: every flow's start instead of S3's jitter;
    `rate_bps`, `queue`: another bottleneck rate (access links 10 times it) and queue."""
    toml = _sub(_sub(_core.bench_scenario("S3"), "senders = 200", f"senders = {n}"), "count = 200", f"count = {n}")
    toml = _sub(toml, "duration = 20", f"duration = {duration:g}")
    if rate_bps is not None:
        toml = _sub(toml, 'bottleneck_rate = "1Gbps"', f"bottleneck_rate = {rate_bps:g}")
        toml = _sub(toml, 'access_rate = "10Gbps"', f"access_rate = {10 * rate_bps:g}")
    if queue is not None:
        toml = _sub(toml, 'queue = { kind = "droptail", limit = 1000 }', f'queue = {{ kind = "droptail", limit = {queue} }}')
    if start is not None:
        toml = _sub(toml, 'start_jitter = "1s"', f'start = "{start}"')
    return toml


def _reset_peak_rss() -> None:
    """Restarts this process's peak RSS (Linux: `/proc/self/clear_refs`, 5), so that a
    memory-per-flow run's peak is its world's and not the interpreter's start-up, whose
    imports can peak higher than a small world (the peak then moved by nothing: 0 bytes
    per flow for 2 000 flows). The parent reads the peak from `wait4`."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def main() -> None:
    what = sys.argv[1]
    if what.startswith("idle") and len(sys.argv) > 2 and sys.argv[2] != "0":
        # Not for `idle 0`: `ccsim bench` subtracts that process's whole peak (an idle
        # interpreter's) from its scenarios' peaks, which include their start-up.
        _reset_peak_rss()
    if what in PAPER_D:
        r = paper_d(PAPER_D[what])
    elif what in PAPER_E:
        r = paper_e(PAPER_E[what], float(sys.argv[2]) if len(sys.argv) > 2 else 60.0)
    elif what == "web":
        r = _core.bench_web(int(sys.argv[2]) if len(sys.argv) > 2 else 100_000, True)
    elif what == "cbr":
        flows, rate, secs = int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
        r = _core.bench_cbr(flows, rate, secs, 1.05)
    elif what == "scale":
        # Cost per packet as flows grow: S3's dumbbell and TCP with N flows (issue #20);
        # optionally another bottleneck rate (bit/s) and queue (packets); `--once`: no
        # second run for the steady-state goodput (for instruction counts).
        args = [a for a in sys.argv[2:] if a != "--once"]
        n, secs = int(args[0]), float(args[1])
        rate, queue = (float(args[2]), int(args[3])) if len(args) > 3 else (None, None)
        r = _core.bench_toml(f"scale-{n}", s3_with(n, secs, rate_bps=rate, queue=queue), "--once" not in sys.argv[2:])
    elif what == "idle-hosts":
        # Memory per idle flow with its own hosts and access links (routing included).
        n = int(sys.argv[2])
        r = _core.bench_toml(f"idle-hosts-{n}", s3_with(n, 1, start="100s"))
    elif what == "idle-dumbbell":
        # N TCP flows that never start, spread evenly over P host pairs of S3's dumbbell:
        # the memory per flow between many hosts that exist anyway, routing included.
        n, pairs = int(sys.argv[2]), int(sys.argv[3])
        if pairs < 1 or n < pairs or n % pairs:
            raise SystemExit(f"idle-dumbbell: N ({n}) must be a positive multiple of P ({pairs})")
        head, flows = s3_with(pairs, 1, start="100s").split("[[flows]]\n", 1)
        r = _core.bench_toml(f"idle-dumbbell-{n}-{pairs}", head + "".join("[[flows]]\n" + flows for _ in range(n // pairs)), False)
    elif what == "idle":
        # N TCP flows (S1's settings) that start after the run ends: the cost of flow state.
        n = int(sys.argv[2])
        flows = "" if n == 0 else f"""
[[flows]]
kind = "tcp"
count = {n}
src = "a"
dst = "b"
mss = 1460
window = 1000000
start = "100s"
"""
        toml = f"""
name = "idle-{n}"
nodes = ["a", "b"]
[simulation]
duration = 1
[[links]]
name = "bottleneck"
a = "a"
b = "b"
rate = "1Gbps"
delay = "1ms"
{flows}"""
        r = _core.bench_toml(f"idle-{n}", toml)
    elif len(sys.argv) > 2:
        # The same TCP scenario with SACK loss recovery and/or classic recovery (no PRR),
        # as ns-3's script with --sack / --classic; `--seconds X`: run X simulated seconds
        # once (no second run for the steady-state goodput: for instruction counts).
        toml = _core.bench_scenario(what)
        if toml is None:
            raise SystemExit(f"unknown benchmark '{what}'; known: S1, S2, S3, S4")
        args = sys.argv[2:]
        unknown = [a for i, a in enumerate(args) if a not in ("--sack", "--classic", "--seconds", "--min-time")
                   and not (i > 0 and args[i - 1] in ("--seconds", "--min-time"))]
        seconds, min_time = None, 0.0
        if "--seconds" in args:
            try:
                seconds = float(args[args.index("--seconds") + 1])
                if not seconds > 0:
                    raise ValueError
            except (IndexError, ValueError):
                unknown.append("--seconds without a positive number of seconds")
        if "--min-time" in args:
            try:
                min_time = float(args[args.index("--min-time") + 1])
                if not 0 <= min_time <= 3600:
                    raise ValueError
            except (IndexError, ValueError):
                unknown.append("--min-time without a number of seconds from 0 to 3600")
        if unknown:
            print(f"usage: {what} [--sack] [--classic] [--seconds X] [--min-time T]; not understood: {' '.join(unknown)}",
                  file=sys.stderr)
            sys.exit(2)
        if "--sack" in args:
            toml = toml.replace('recovery = "newreno"', 'recovery = "sack"')
        if "--classic" in args:
            toml = toml.replace("prr = true", "prr = false")
        if seconds is not None:
            toml, n = re.subn(r"^duration = \d+$", f"duration = {seconds:g}", toml, count=1, flags=re.M)
            if n != 1:
                raise ValueError("benchmark scenario lacks its duration")
        r = _core.bench_toml(what, toml, seconds is None)
        if min_time > 0:
            # Repeats without the steady-state run: only their loop times are used.
            r = _pairstats.repeated(lambda: _core.bench_toml(what, toml, False), min_time, first=r)
    else:
        r = _core.bench_tcp(what)
    print(json.dumps(r))


if __name__ == "__main__":
    main()
