"""Three-valued verdict rules (ccsim.papers.verdict)."""

import math

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ccsim.papers import Verdict, tally
from ccsim.papers.verdict import (FAILS, FRACTION, HOLDS, INCONCLUSIVE, NOT_EVALUATED, RATE, Estimate, above, all_of, any_of, below,
                                  effect_at_least, equivalent, near, paired, per_seed, ratio)


def E(lo, hi, mean=None, n=10):
    return Estimate((lo + hi) / 2 if mean is None else mean, lo, hi, n)


def test_estimate_is_a_student_t_interval():
    e = Estimate.of([1.0, 2.0, 3.0])
    assert e.mean == 2.0 and e.n == 3
    assert e.hi - e.mean == pytest.approx(4.302652729911275 * 1.0 / math.sqrt(3))
    assert not Estimate.of([5.0]).has_ci and not Estimate.of([]).known
    assert Estimate.of([1.0, float("nan"), 3.0]).n == 2
    # Every seed the same (a setting drawing no random numbers): exact, and said so rather
    # than shown as a zero-width interval (0.1 three times sums to a mean of 0.1 + 1e-17).
    same = Estimate.of([0.1, 0.1, 0.1])
    assert same.identical and same.mean == same.lo == same.hi == 0.1 and not e.identical
    assert same.fmt(digits=1) == "0.1 (identical in all 3 seeds: no interval)"
    assert above(same, 0.05) == HOLDS and below(same, 0.05) == FAILS
    # Two seeds that agree may agree by chance (a best buffer on a three-point grid): no
    # interval, so no firm verdict, as with one seed.
    two = Estimate.of([1.0, 1.0])
    assert two.identical and not two.has_ci and two.mean == 1.0
    assert two.fmt(digits=1) == "1.0 (identical in all 2 seeds: no interval)"
    assert above(two, 0.5) == INCONCLUSIVE and effect_at_least(two, 0.5) == INCONCLUSIVE


def test_an_interval_stops_at_its_quantity_s_range():
    """Two seeds' utilisations near 1 (t = 12.7 with one degree of freedom) gave an interval
    past 100 %; a goodput near 0 one below 0. Cut at the range, the mean unchanged."""
    u = Estimate.of([0.99, 1.0], within=FRACTION)
    assert (u.mean, u.hi) == (pytest.approx(0.995), 1.0) and u.lo < 0.99
    assert Estimate.of([0.99, 1.0]).hi > 1.0
    g = Estimate.of([1e3, 9e3], within=RATE)
    assert g.lo == 0.0 and g.hi == Estimate.of([1e3, 9e3]).hi
    # Values outside the range: it was not the quantity's; nothing is cut.
    assert Estimate.of([0.99, 1.01], within=FRACTION).hi > 1.01


def test_thresholds():
    assert above(E(3.1, 3.5), 3.0) == HOLDS
    assert above(E(2.5, 2.9), 3.0) == FAILS
    assert above(E(2.9, 3.1), 3.0) == INCONCLUSIVE
    assert below(E(2.5, 2.9), 3.0) == HOLDS and below(E(3.1, 3.2), 3.0) == FAILS
    assert above(Estimate(3.5, math.nan, math.nan, 1), 3.0) == INCONCLUSIVE  # one seed: no interval
    assert above(Estimate.of([]), 3.0) == NOT_EVALUATED


def test_bands_and_equivalence():
    assert near(E(4.6, 4.8), 4.5, 0.10) == HOLDS
    assert near(E(4.9, 5.1), 4.5, 0.10) == INCONCLUSIVE  # straddles 4.95
    assert near(E(5.0, 5.2), 4.5, 0.10) == FAILS
    assert equivalent(E(-0.1, 0.2), 0.25) == HOLDS and equivalent(E(0.2, 0.4), 0.25) == INCONCLUSIVE
    assert equivalent(E(0.3, 0.4), 0.25) == FAILS


def test_effects_need_their_size_and_must_clear_zero():
    assert effect_at_least(E(0.3, 0.5), 0.25) == HOLDS
    assert effect_at_least(E(0.06, 0.09), 0.25) == FAILS       # real but too small
    assert effect_at_least(E(-0.1, 0.6, 0.3), 0.25) == INCONCLUSIVE  # inside the noise
    assert effect_at_least(E(0.1, 0.5, 0.2), 0.25) == INCONCLUSIVE
    # A mean at δ whose interval straddles δ is not yet an effect of δ (it held until
    # 2026-12-08: Paper A's Fig6, +1.0 packet with a CI of 0.1 to 1.9, against 1 needed).
    assert effect_at_least(E(0.1, 1.9, 1.0), 1.0) == INCONCLUSIVE
    assert effect_at_least(E(1.0, 1.9), 1.0) == HOLDS
    # Ratios: "at most 0.8 times" is an effect of -0.2 around 1.
    assert effect_at_least(E(0.55, 0.76, 0.66), -0.2, null=1.0) == HOLDS
    assert effect_at_least(E(0.85, 0.95), -0.2, null=1.0) == FAILS
    assert effect_at_least(E(0.6, 1.1, 0.7), -0.2, null=1.0) == INCONCLUSIVE


@given(st.floats(-10, 10), st.floats(0, 5), st.floats(-10, 10), st.floats(0.01, 5))
def test_outcomes_are_exclusive_and_consistent(lo, width, threshold, delta):
    e = E(lo, lo + width)
    assert {above(e, threshold), below(e, threshold)} <= {HOLDS, FAILS, INCONCLUSIVE}
    assert not (above(e, threshold) == HOLDS and below(e, threshold) == HOLDS)
    assert (above(e, threshold) == HOLDS) == (below(e, threshold) == FAILS)
    if effect_at_least(e, delta) == HOLDS:
        assert e.lo > 0 and e.lo >= delta
    assert (effect_at_least(e, delta) == HOLDS) == (e.lo >= delta)
    if effect_at_least(e, delta) == FAILS:
        assert e.hi < delta


def test_combinations():
    assert all_of(HOLDS, HOLDS) == HOLDS and all_of(HOLDS, INCONCLUSIVE) == INCONCLUSIVE
    assert all_of(INCONCLUSIVE, FAILS) == FAILS
    assert any_of(FAILS, HOLDS) == HOLDS and any_of(FAILS, INCONCLUSIVE) == INCONCLUSIVE and any_of(FAILS, FAILS) == FAILS


def test_paired_by_seed():
    frame = pd.DataFrame({"p": [0.01] * 3 + [0.1] * 3, "est": ["a"] * 3 + ["a"] * 3, "seed": [1, 2, 3, 1, 2, 3],
                          "m": [10.0, 11.0, 12.0, 12.0, 13.0, 14.5]})
    hi, lo = per_seed(frame, "m", p=0.1, est="a"), per_seed(frame, "m", p=0.01, est="a")
    assert list(hi.index) == [1, 2, 3]
    d = paired(hi, lo)
    assert d.mean == pytest.approx(2.1666666) and d.n == 3
    assert ratio(hi, lo).mean == pytest.approx((1.2 + 13 / 11 + 14.5 / 12) / 3)
    assert paired(hi, lo.drop(2)).n == 2


def test_verdicts_accept_outcomes_and_tally():
    vs = [Verdict("C1", "s", "p", "c", HOLDS, "r"), Verdict("C2", "s", "p", "c", INCONCLUSIVE, "r"),
          Verdict("C3", "s", "p", "c", False, "r")]
    assert [v.label for v in vs] == ["holds", "inconclusive", "does not hold"]
    assert tally(vs) == "1 hold, 1 do not hold, 1 inconclusive (of 3)"
    with pytest.raises(ValueError):
        Verdict("C4", "s", "p", "c", "maybe", "r")
