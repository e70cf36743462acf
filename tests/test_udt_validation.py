"""UDT's design claims measured (issue #17; docs/validation/udt.md). The runs are
docs/validation/udt_checks.py's; every run is seeded, so the numbers are exact and the
documented table is what these tests see.

    pytest tests/test_udt_validation.py -s     # prints the measured values
"""

import functools
import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "validation"))
uc = importlib.import_module("udt_checks")

efficiency = functools.cache(uc.efficiency)


@pytest.mark.parametrize("rtt", [1, 50, 100, 200])
def test_ns2_udt_fills_an_idle_gigabit_path_after_start_up(rtt):
    e = efficiency("ns2", rtt)
    print(f"\nns2 {rtt} ms: 90 % at {e['reach_s']:.1f} s, then {100 * e['util_after']:.1f} %")
    assert e["reach_s"] < 20
    assert e["util_after"] >= 0.90


@pytest.mark.parametrize("rtt", [1, 50, 100, 200])
def test_udt4_start_up_and_utilisation(rtt):
    """UDT 4.11 reaches 90 % within 10 s everywhere; afterwards its loss cycles (its period
    creeps past the link rate by 0.01 packet per SYN until the one-BDP buffer overflows; a
    lost retransmission then waits for EXP) keep it at 88-93 %: below 90 % at 50-200 ms
    (docs/validation/udt.md), hence the 0.85 floor here."""
    e = efficiency("udt4", rtt)
    print(f"\nudt4 {rtt} ms: 90 % at {e['reach_s']:.1f} s, then {100 * e['util_after']:.1f} % ({e['timeouts']} EXP)")
    assert e["reach_s"] < 10
    assert e["util_after"] >= 0.85


@pytest.mark.parametrize("profile", ["ns2", "udt4"])
def test_rtt_independence(profile):
    x = uc.rtt_independence(profile)
    print(f"\n{profile}: 10 ms {x['short_bps'] / 1e6:.1f} Mb/s, 100 ms {x['long_bps'] / 1e6:.1f} Mb/s")
    assert 1 / 1.2 <= x["ratio"] <= 1.2
    assert x["short_bps"] + x["long_bps"] > 0.85e9


@pytest.mark.parametrize("profile", ["ns2", "udt4"])
def test_tcp_shares_shrink_with_the_rtt(profile):
    """UDT's rate control does not depend on the RTT, TCP's AIMD does: beside UDT, TCP keeps
    less of the link at 100 ms than at 10 ms (the shares are in docs/validation/udt.md)."""
    a, b = uc.tcp_friendliness(profile, 10), uc.tcp_friendliness(profile, 100)
    print(f"\n{profile}: UDT's share {100 * a['udt_share']:.1f} % at 10 ms, {100 * b['udt_share']:.1f} % at 100 ms")
    assert a["udt_share"] < b["udt_share"]
    assert a["udt_bps"] + a["tcp_bps"] > 0.85e9
