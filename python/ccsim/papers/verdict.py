"""Three-valued verdicts: a claim holds, does not hold, or the runs cannot tell.

A claim's rule names the effect it needs (a threshold, a band, a minimum difference or
ratio) and is judged on the 95 % confidence interval of ccsim's estimate over seeds, never
on the point value alone:

* a threshold (`above`, `below`): holds when the whole interval is on the claimed side;
  does not hold when the whole interval is on the other side; inconclusive when the
  threshold lies inside the interval (met or missed within the noise);
* a band (`inside`, `equivalent`): holds when the interval lies inside the band; does not
  hold when it lies wholly outside; inconclusive when it straddles an edge;
* an effect of at least δ (`effect_at_least`, a difference or a ratio): holds when the
  whole interval is at δ or beyond (a threshold at δ); does not hold when the whole
  interval is below δ (the effect, if any, is smaller than the claim needs); inconclusive
  otherwise — a difference inside the noise, or one whose interval straddles δ (until
  2026-12-08 such a claim held when its interval excluded no effect and its mean reached
  δ: a looser rule than the reports stated).

Every seed giving the same value is an exact result (zero width) only with at least
MIN_IDENTICAL seeds: two equal values may be chance (a best buffer on a three-point grid),
so two seeds that agree leave a claim inconclusive, as one seed does.

Comparisons between two settings pair the runs by seed (the same seeds run every setting):
the estimate is the mean of the per-seed differences (or ratios) with its Student-t
interval, which is what the claim is about and tighter than comparing two intervals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

HOLDS, FAILS, INCONCLUSIVE, NOT_EVALUATED = "holds", "does not hold", "inconclusive", "not evaluated"
OUTCOMES = (HOLDS, FAILS, INCONCLUSIVE, NOT_EVALUATED)


#: `Estimate.of`'s `within` for a rate or a count (goodput, throughput): never negative.
RATE = (0.0, math.inf)
#: ... for a fraction (a utilisation, a share, Jain's index, a relative spread): 0 to 1.
FRACTION = (0.0, 1.0)


#: The fewest seeds whose equal values count as an exact result (see the module's notes).
MIN_IDENTICAL = 3


@dataclass(frozen=True)
class Estimate:
    """A mean over seeds with its confidence interval (NaN bounds with fewer than 2 seeds, or
    with fewer than MIN_IDENTICAL that all agree)."""

    mean: float
    lo: float
    hi: float
    n: int
    #: Every seed gave the same value (a setting that draws no random numbers, or whose
    #: draws did not change this quantity): no interval is shown, since a zero-width one
    #: would read as a spread measured over the seeds. With fewer than MIN_IDENTICAL
    #: seeds the bounds are NaN (no interval, as for one seed): the agreement may be chance.
    identical: bool = False

    @classmethod
    def of(cls, values, confidence: float = 0.95, within: tuple[float, float] | None = None) -> Estimate:
        """The Student-t interval of the values' mean; `within` is the quantity's range
        (`RATE`, `FRACTION`): an interval reaching past it (a few seeds, a value near its
        bound) is cut at it, as the mean cannot lie outside. Values outside the range cut
        nothing (the range was not the quantity's)."""
        from scipy import stats

        x = np.asarray([v for v in values if v is not None and math.isfinite(v)], dtype=float)
        n = len(x)
        if n == 0:
            return cls(math.nan, math.nan, math.nan, 0)
        mean = float(x.mean())
        if n < 2:
            return cls(mean, math.nan, math.nan, n)
        if x.min() == x.max():
            v = float(x[0]) + 0.0  # -0.0 and 0.0 alike print 0.00
            b = v if n >= MIN_IDENTICAL else math.nan
            return cls(v, b, b, n, True)
        half = float(stats.t.ppf(0.5 + confidence / 2, n - 1) * x.std(ddof=1) / math.sqrt(n))
        lo, hi = mean - half, mean + half
        if within is not None and within[0] <= x.min() and x.max() <= within[1]:
            lo, hi = max(lo, within[0]), min(hi, within[1])
        return cls(mean, lo, hi, n)

    @property
    def known(self) -> bool:
        return math.isfinite(self.mean)

    @property
    def has_ci(self) -> bool:
        return math.isfinite(self.lo) and math.isfinite(self.hi)

    def fmt(self, scale: float = 1.0, unit: str = "", digits: int = 2, sign: bool = False) -> str:
        """`4.69 Mb/s (95 % CI 4.61–4.77, 10 seeds)` with values divided by `scale`."""
        if not self.known:
            return "n/a"
        f = f"{{:{'+' if sign else ''}.{digits}f}}"
        u = f" {unit}" if unit else ""
        s = f.format(self.mean / scale) + u
        if self.identical:
            s += f" (identical in all {self.n} seeds: no interval)"
        elif self.has_ci:
            s += f" (95 % CI {self.lo / scale:.{digits}f} to {self.hi / scale:.{digits}f}, {self.n} seeds)"
        else:
            s += f" ({self.n} seed{'s' if self.n != 1 else ''}, no CI)"
        return s


def error_bars(es: list[Estimate], scale: float = 1.0) -> list[list[float]]:
    """Matplotlib's `yerr` for estimates: each interval's lower and upper distance from its
    mean (intervals cut at a range are not symmetric), 0 where there is none."""
    return [[(e.mean - e.lo) / scale if e.has_ci else 0.0 for e in es],
            [(e.hi - e.mean) / scale if e.has_ci else 0.0 for e in es]]


def geometric(values, confidence: float = 0.95) -> Estimate:
    """The geometric mean of positive values with its interval: a Student-t interval of
    their logarithms, exponentiated (for ratios, whose spread is multiplicative and whose
    arithmetic mean one large seed dominates)."""
    logs = [math.log(v) for v in values if v is not None and math.isfinite(v) and v > 0]
    e = Estimate.of(logs, confidence)
    return Estimate(*(math.exp(x) if math.isfinite(x) else math.nan for x in (e.mean, e.lo, e.hi)), e.n, e.identical)


def per_seed(frame: pd.DataFrame, metric: str, **where) -> pd.Series:
    """Per-seed values of `metric` from a `Catalog.metrics` frame, at the parameter point
    `where` (column = value; floats compared with a relative tolerance)."""
    sel = pd.Series(True, index=frame.index)
    for col, val in where.items():
        c = frame[col]
        sel &= np.isclose(c.astype(float), float(val), rtol=1e-9) if isinstance(val, float) else (c == val)
    rows = frame[sel]
    if metric not in rows:
        return pd.Series(dtype=float)
    return rows.set_index("seed")[metric].astype(float).sort_index()


def paired(a: pd.Series, b: pd.Series, how: Callable[[float, float], float] = lambda x, y: x - y,
           within: tuple[float, float] | None = None) -> Estimate:
    """The effect of `a` against `b` over the seeds both have: mean of `how(a_s, b_s)`
    (`within`: the effect's range, as for `Estimate.of`)."""
    common = a.index.intersection(b.index)
    return Estimate.of([how(a[s], b[s]) for s in common], within=within)


def ratio(a: pd.Series, b: pd.Series, within: tuple[float, float] | None = None) -> Estimate:
    """Mean over seeds of `a_s / b_s`; `within=RATE` for a ratio of quantities that cannot
    be negative (its interval then stops at 0)."""
    return paired(a, b, lambda x, y: x / y if y else math.nan, within)


def log_ratio(a: pd.Series, b: pd.Series) -> Estimate:
    """The effect of `a` against `b` as a geometric mean of the per-seed ratios `a_s/b_s`."""
    common = a.index.intersection(b.index)
    return geometric([a[s] / b[s] if b[s] else math.nan for s in common])


def _judge(e: Estimate, yes: bool, no: bool) -> str:
    if not e.known:
        return NOT_EVALUATED
    if not e.has_ci:
        return INCONCLUSIVE
    return HOLDS if yes else FAILS if no else INCONCLUSIVE


def above(e: Estimate, threshold: float) -> str:
    """Claim: the quantity exceeds `threshold`."""
    return _judge(e, e.lo > threshold, e.hi < threshold)


def below(e: Estimate, threshold: float) -> str:
    """Claim: the quantity is under `threshold`."""
    return _judge(e, e.hi < threshold, e.lo > threshold)


def inside(e: Estimate, low: float, high: float) -> str:
    """Claim: the quantity lies in `[low, high]`."""
    return _judge(e, low <= e.lo and e.hi <= high, e.hi < low or e.lo > high)


def near(e: Estimate, target: float, rel: float) -> str:
    """Claim: the quantity is `target` within ±`rel` (relative)."""
    return inside(e, target - rel * abs(target), target + rel * abs(target))


def equivalent(effect: Estimate, margin: float) -> str:
    """Claim: no difference larger than `margin` either way."""
    return inside(effect, -margin, margin)


def effect_at_least(effect: Estimate, delta: float, null: float = 0.0) -> str:
    """Claim: an effect of at least `delta` beyond `null` (0 for a difference, 1 for a
    ratio); a negative `delta` claims an effect in the other direction (at most `delta`)."""
    if delta < 0:
        flipped = Estimate(-effect.mean, -effect.hi, -effect.lo, effect.n, effect.identical)
        return effect_at_least(flipped, -delta, -null)
    return _judge(effect, effect.lo > null and effect.lo >= null + delta, effect.hi < null + delta)


def all_of(*outcomes: str) -> str:
    """Every part must hold; one that does not makes the claim fail."""
    if FAILS in outcomes:
        return FAILS
    if NOT_EVALUATED in outcomes:
        return NOT_EVALUATED
    return HOLDS if all(o == HOLDS for o in outcomes) else INCONCLUSIVE


def any_of(*outcomes: str) -> str:
    """One part holding is enough; the claim fails only if every part fails."""
    if HOLDS in outcomes:
        return HOLDS
    if all(o == FAILS for o in outcomes):
        return FAILS
    return NOT_EVALUATED if NOT_EVALUATED in outcomes and INCONCLUSIVE not in outcomes else INCONCLUSIVE
