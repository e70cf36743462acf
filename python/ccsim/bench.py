"""Benchmarks: each repetition runs in its own process (peak RSS measured with wait4), and
optionally alternates with ns-3 on the same scenario (`--ns3 PYTHON`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from ._pairstats import paired_ratio, target_verdict  # noqa: F401  (target_verdict: for the CLI)

TCP = ("S1", "S2", "S3", "S4")


def _spawn(cmd: list[str], timeout: float | None = None, cwd: str | None = None) -> tuple[dict, float]:
    """Runs `cmd` (in `cwd`), returns (its last JSON line, its own peak RSS in MB via wait4)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as errf:
        p = subprocess.Popen(cmd, stdout=out, stderr=errf, text=True, cwd=cwd)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        errf.seek(0)
        text, errtext = out.read(), errf.read()
    if p.returncode != 0:
        raise RuntimeError(f"benchmark process failed ({' '.join(cmd)}): {errtext.strip()[-2000:]}")
    lines = [ln for ln in text.splitlines() if ln.startswith("{")]
    if not lines:
        raise RuntimeError(f"benchmark process printed no result ({' '.join(cmd)}): {errtext.strip()[-2000:]}")
    return json.loads(lines[-1]), ru.ru_maxrss / 1024.0


def _variant(sack: bool, classic: bool) -> list[str]:
    return (["--sack"] if sack else []) + (["--classic"] if classic else [])


def ccsim_run(name: str, flows: int = 10, rate: float = 1e9, duration: float = 5.0, sack: bool = False,
              classic: bool = False, web_flows: int = 100_000, min_time: float = 0.0) -> dict:
    """One benchmark run in its own process; `min_time` (S1-S4): the run repeated back to
    back in that process for at least this many seconds of loop time, `wall_s` the mean."""
    cmd = [sys.executable, "-m", "ccsim._benchworker", name]
    if name == "web":
        cmd += [str(web_flows)]
    elif name in ("E2.5", "E5"):
        cmd += [str(duration)]
    elif name == "cbr":
        cmd += [str(flows), str(rate), str(duration)]
    elif name == "10k":
        # Issue #20's large world: S3's dumbbell with 10 000 TCP flows for 10 s.
        cmd = [sys.executable, "-m", "ccsim._benchworker", "scale", "10000", "10", "--once"]
    else:
        cmd += _variant(sack, classic)
        if min_time > 0:
            cmd += ["--min-time", repr(float(min_time))]
    r, rss = _spawn(cmd)
    r["peak_rss_mb"] = rss
    return r


#: ccsim's ns-3 version of the benchmark dumbbells, shipped in the package: run (never
#: imported) by the Python given to `ccsim bench --ns3`.
NS3_SCRIPT = Path(__file__).with_name("_ns3_dumbbell.py")


def ns3_run(python: str, script: Path, name: str, sack: bool = False, classic: bool = False,
            starts_ns: list[int] | None = None) -> dict:
    """ns-3's run of scenario `name`; `starts_ns`: the flows' start times (ccsim's, so that
    both simulators start every flow at the same instant), else the script draws its own."""
    # Paths made absolute for the folder the run starts in (a bare command name is looked
    # up on PATH as before; a venv's interpreter is not followed out of its venv).
    python = os.path.abspath(python) if os.sep in python else python
    cmd = [python, os.path.abspath(script), name] + _variant(sack, classic)
    # In a folder of its own, whatever the caller's working directory: started from `/`,
    # ns-3's Python (cppyy) spent minutes in system calls before its run began.
    with tempfile.TemporaryDirectory(prefix="ccsim-ns3-") as work:
        if starts_ns is not None:
            starts = Path(work) / "starts.json"
            starts.write_text(json.dumps(starts_ns))
            cmd += ["--starts", str(starts)]
        r, rss = _spawn(cmd, cwd=work)
    r["peak_rss_mb"] = rss
    r["same_starts"] = starts_ns is not None
    return r


def memory_per_idle_flow(n: int = 50_000, pairs: int = 1000) -> dict:
    """Memory per idle TCP flow: the slope of peak RSS between runs with about n/2 and 3n/2
    flows that never start (a difference of two large runs, so the process's fixed
    footprint, the hosts' and its noise cancel).

    `pairs` > 0 (the default, as issue #20 asks): the flows run between the `pairs` host
    pairs of S3's dumbbell (each host with its access link and routes), spread evenly, so
    that each run has a whole number of flows per pair (at most n/2 pairs); `pairs` = 0:
    between two nodes joined by one link (the flow state alone)."""
    if pairs < 0 or n < 1:
        raise ValueError(f"memory_per_idle_flow: n must be positive and pairs >= 0, got n={n}, pairs={pairs}")
    if pairs == 0:
        lo, what = max(n // 2, 1), ["idle"]
    else:
        pairs = max(1, min(pairs, n // 2))
        lo, what = max(1, round(n / 2 / pairs)) * pairs, ["idle-dumbbell"]
    hi = 3 * lo
    worker = [sys.executable, "-m", "ccsim._benchworker", *what]
    extra = [str(pairs)] if pairs else []
    _, rss_lo = _spawn(worker + [str(lo)] + extra)
    _, rss_hi = _spawn(worker + [str(hi)] + extra)
    # Peak RSS moves in steps of up to 2 MB (huge pages, the allocator's arenas): a
    # difference below 20 MB (about 10 000 flows) is rough to 10 % or worse.
    return {"flows": hi - lo, "pairs": pairs, "rss_base_mb": rss_lo, "rss_mb": rss_hi,
            "bytes_per_flow": (rss_hi - rss_lo) * 1024 * 1024 / (hi - lo), "rough": rss_hi - rss_lo < 20}


def run_suite(names: list[str], reps: int, ns3_python: str | None, ns3_script: Path | None, cbr: tuple[int, float, float],
              memory_flows: int | None, on_result=None, sack: bool = False, classic: bool = False, web_flows: int = 100_000,
              min_time: float = 0.0, memory_pairs: int = 1000) -> dict:
    results: dict = {"scenarios": {}, "sack": sack, "classic": classic, "note": "peak RSS of the whole process (Python interpreter, ccsim and its libraries included)"}
    _, base_rss = _spawn([sys.executable, "-m", "ccsim._benchworker", "idle", "0"])
    results["baseline_rss_mb"] = base_rss
    for name in names:
        entry: dict = {"ccsim": [], "ns3": []}
        for _ in range(reps):
            entry["ccsim"].append(ccsim_run(name, *cbr, sack=sack, classic=classic, web_flows=web_flows, min_time=min_time))
            if on_result:
                on_result(name, "ccsim", entry["ccsim"][-1])
            if ns3_python and name in TCP:
                entry["ns3"].append(ns3_run(ns3_python, ns3_script, name, sack=sack, classic=classic,
                                            starts_ns=entry["ccsim"][-1].get("starts_ns")))
                if on_result:
                    on_result(name, "ns3", entry["ns3"][-1])
        best = min(entry["ccsim"], key=lambda r: r["wall_s"])
        entry["best"] = best
        entry["peak_rss_mb"] = max(r["peak_rss_mb"] for r in entry["ccsim"])
        entry["engine_rss_mb"] = entry["peak_rss_mb"] - base_rss
        if entry["ns3"]:
            nb = min(entry["ns3"], key=lambda r: r["wall_s"])
            entry["ns3_best"] = nb
            # ns-3's CPU time of Simulator::Run when reported (robust to a busy machine), else its wall time.
            entry["speedup"] = nb.get("cpu_s", nb["wall_s"]) / best["wall_s"]
            # Each ns-3 run against the ccsim run just before it: robust to the machine's
            # speed changing during the call, which the ratio of the two bests is not.
            entry["speedup_paired"] = paired_ratio([r.get("cpu_s", r["wall_s"]) for r in entry["ns3"]],
                                                   [r["wall_s"] for r in entry["ccsim"]])
            entry["goodput_diff"] = best["goodput_bps"] / nb["goodput_bps"] - 1 if nb["goodput_bps"] else None
            if nb.get("goodput_steady_bps") and best.get("goodput_steady_bps"):
                entry["goodput_steady_diff"] = best["goodput_steady_bps"] / nb["goodput_steady_bps"] - 1
        results["scenarios"][name] = entry
    if memory_flows:
        results["idle_memory"] = memory_per_idle_flow(memory_flows, memory_pairs)
    return results


def sweep_scaling(runs: int = 100, duration: float = 30.0) -> dict:
    """Sweep throughput on the local pool with 1 and 2 workers, on short runs (benchmark S1
    shortened to `duration` simulated seconds: about 75 ms of engine time each), and the
    per-run overhead outside the engine (scheduling, result transfer, Parquet and catalog
    writes) with one worker."""
    import shutil

    from . import _core
    from .scenario import loads
    from .sweep import sweep

    base = loads(_core.bench_scenario("S1"))
    base["simulation"]["duration"] = duration
    out: dict = {"runs": runs}
    for workers in (1, 2):
        d = Path(tempfile.mkdtemp(prefix="ccsim-sweep-bench-"))
        try:
            r = sweep(base, seeds=list(range(1, runs + 1)), out=d, workers=workers)
            out[f"wall_{workers}"] = r.wall_s
            if workers == 1:
                out["engine_s"] = r.engine_s
                out["overhead_per_run_s"] = (r.wall_s - r.engine_s) / runs
                out["overhead_in_worker_per_run_s"] = r.overhead_s / runs
        finally:
            shutil.rmtree(d, ignore_errors=True)
    out["speedup"] = out["wall_1"] / out["wall_2"]
    return out
