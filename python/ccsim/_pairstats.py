"""Paired speed ratios and the verdict on a speed target, standard library only.

Used by `ccsim bench --ns3` (through :mod:`ccsim.bench`) and loaded by file path by the
checkout's `bench/ab.py` and `bench/htsim/run.py`, which run without ccsim installed: one
implementation of docs/benchmarks.md's rule for every speed figure.
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
