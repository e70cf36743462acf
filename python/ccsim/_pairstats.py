"""Paired speed ratios and the verdict on a speed target, standard library only.

Used by `ccsim bench --ns3` (through :mod:`ccsim.bench`) and loaded by file path by the
checkout's `bench/ab.py` and `bench/htsim/run.py`, which run without ccsim installed: one
implementation of docs/benchmarks.md's rule for every speed figure, and of the mean of
runs repeated for a minimum time (`repeated`).
"""

from __future__ import annotations

import random
import statistics


def paired_ratio(num: list[float], den: list[float], resamples: int = 2000) -> dict:
    """The median of the paired ratios num[i] / den[i] with its 95 % bootstrap interval
    (percentiles of the medians of `resamples` resamples with replacement; seeded, so a
    call repeats its interval). Pairs are runs made next to each other, so a change in the
    machine's speed during a call moves both sides of a pair alike. A pair whose `den` is
    0 (a run reported as 0.000 s) has no ratio; with none, NaNs and `n` 0."""
    ratios = [n / d for n, d in zip(num, den) if d > 0]
    if not ratios:
        return {"median": float("nan"), "lo": float("nan"), "hi": float("nan"), "n": 0}
    rng = random.Random(1)
    meds = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(resamples))
    cut = int(0.025 * resamples)
    return {"median": statistics.median(ratios), "lo": meds[cut], "hi": meds[resamples - 1 - cut], "n": len(ratios)}


def target_verdict(lo: float, hi: float, target: float, at_most: bool = False) -> str:
    """A speed target judged on an interval (docs/benchmarks.md's rule): holds when the
    whole interval reaches `target` (with `at_most`: stays at or below it), does not hold
    when it lies wholly on the other side, inconclusive when `target` lies inside it (or
    there is no interval)."""
    if at_most:
        return target_verdict(-hi, -lo, -target)
    if lo >= target:
        return "holds"
    if hi < target:
        return "does not hold"
    return "inconclusive"


def repeated(run, min_time: float, first: dict) -> dict:
    """`first` (one benchmark's dict, with `wall_s`) and `run()` (another of the same)
    repeated back to back until their loops took `min_time` seconds of wall time in all
    (`_benchworker --min-time`, in its process; `bench/htsim/run.py compare --min-time`,
    a process a run, for either simulator):
    `first`'s measurements with `wall_s` the mean of the runs' (rates recomputed from it),
    `runs` and `wall_all_s` (every run's). A short run samples the machine's speed at one
    instant; a mean over seconds is what a long run of another simulator (ns-3's S1:
    about 45 s) measures."""
    walls = [first["wall_s"]]
    while sum(walls) < min_time and len(walls) < 100_000:
        walls.append(run()["wall_s"])
    r = dict(first)
    mean = sum(walls) / len(walls)
    for k in ("events_per_s", "bottleneck_pkts_per_s"):
        if k in r and r["wall_s"] > 0:
            r[k] = r[k] * r["wall_s"] / mean
    r.update(wall_s=mean, runs=len(walls), wall_all_s=walls)
    return r
