"""Analytic models used to validate and to plot against (see docs/validation.md)."""

from __future__ import annotations

import math
from typing import Iterable


def pftk(p: float, rtt: float, t0: float, b: float = 1.0, wmax: float = math.inf) -> float:
    """TCP throughput in packets/s, Padhye-Firoiu-Towsley-Kurose (SIGCOMM 1998) full model.
    `p` loss probability, `rtt` and `t0` (timeout) in seconds, `b` packets per ACK,
    `wmax` receiver window in packets."""
    ew = (2 + b) / (3 * b) + math.sqrt(8 * (1 - p) / (3 * b * p) + ((2 + b) / (3 * b)) ** 2)

    def q(w: float) -> float:
        return min(1.0, (1 - (1 - p) ** 3) * (1 + (1 - p) ** 3 * (1 - (1 - p) ** (w - 3))) / (1 - (1 - p) ** w))

    f = 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6
    if ew < wmax:
        return ((1 - p) / p + ew + q(ew) / (1 - p)) / (rtt * (b * ew / 2 + 1) + q(ew) * t0 * f / (1 - p))
    return ((1 - p) / p + wmax + q(wmax) / (1 - p)) / (rtt * (b * wmax / 8 + (1 - p) / (p * wmax) + 2) + q(wmax) * t0 * f / (1 - p))


def mathis(p: float, rtt: float, b: float = 1.0) -> float:
    """Mathis et al. 1997 square-root law, packets/s: sqrt(3/(2b)) / (RTT·sqrt(p))."""
    return math.sqrt(3 / (2 * b)) / (rtt * math.sqrt(p))


def jain(xs: Iterable[float]) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²)."""
    xs = [float(x) for x in xs]
    sq = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * sq) if xs and sq > 0 else math.nan


def hstcp_window(p: float) -> float:
    """HighSpeed TCP's response function as RFC 3649 section 5 prints it: w = 0.12 / p^0.835
    segments (its Table 3 is computed from it)."""
    return 0.12 / p**0.835


def scalable_window(p: float, a: float = 0.01, b: float = 0.125) -> float:
    """Scalable TCP (Kelly 2003): w = a / (b p) = 0.08 / p segments, where the expected
    growth (a w per RTT) meets the expected decrease (p w losses of b w each per RTT): the
    peak of the deterministic sawtooth, whose mean is 0.936 of it."""
    return a / (b * p)


def eimd_window(p: float, rtt: float, a: float = 1.75, r: float = 0.82, s: float = 0.82) -> float:
    """EIMD's response function (Paper E, eq. 1): w = A * RTT^r / p^s segments, RTT in s."""
    return a * rtt**r / p**s


def cubic_window(t: float, w_max: float, c: float = 0.4, beta: float = 0.7) -> float:
    """CUBIC (RFC 9438): W(t) = C (t - K)^3 + W_max, K = cbrt(W_max (1 - beta) / C)."""
    k = (w_max * (1 - beta) / c) ** (1 / 3)
    return c * (t - k) ** 3 + w_max

