"""High-speed TCP response functions measured in simulation (issue #16, Paper E).

The runs and the estimator are docs/validation/highspeed_response.py's (the same numbers
as its markdown tables, for docs/validation.md): one flow on an idle 10 Gb/s path under
Bernoulli loss; mean window = packets sent per RTT after warm-up, compared with the
analytic window at the loss rate the run saw (``p_meas = losses / sent``). Every run is
seeded, so the numbers are exact; the tolerances are the documented ones, and the comments
give each check's statistical margin (one-sigma scatter across seeds, measured).

    pytest tests/test_highspeed_validation.py -s     # prints the measured values
"""

import functools
import importlib
import sys
from pathlib import Path

import pytest

import ccsim

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "validation"))
hs = importlib.import_module("highspeed_response")

# Each run once per session, whichever tests use it.
hstcp = functools.cache(hs.hstcp)
scalable = functools.cache(hs.scalable)
eimd = functools.cache(hs.eimd)
scalable_recovery = functools.cache(hs.scalable_recovery)
cubic_epoch = functools.cache(hs.cubic_epoch)
eimd_fairness = functools.cache(hs.eimd_fairness)
eimd_periodic = functools.cache(hs.eimd_periodic)


def show(label, pt):
    print(f"\n{label}: p {pt['p']:g} RTT {pt['rtt'] * 1000:g} ms, {pt['losses']} losses "
          f"({pt['reductions']} reductions, {pt['timeouts']} timeouts), p_meas {pt['p_meas']:.3g}: "
          f"w {pt['w']:.1f}, analytic {pt['ref']:.1f} (ratio {pt['w'] / pt['ref']:.3f}); "
          f"at the nominal p {pt['w_nominal']:.1f} against {pt['ref_nominal']:.1f}")


# 1. HighSpeed TCP against RFC 3649's Table 3 ---------------------------------------------
@pytest.mark.parametrize("p", list(hs.HSTCP_PS))
def test_hstcp_response_function_meets_rfc3649_table3(p):
    """Mean window within 10 % of 0.12 / p^0.835 (263, 1795, 12279 at 10^-4, 10^-5, 10^-6).

    Measured level 1.02 over 1000 losses; one sigma 0.044 at 40 losses, so the 30-loss
    point at 10^-6 (0.6 s of CPU per loss) has about 0.05."""
    pt = hstcp(p)
    show("HighSpeed TCP (rfc)", pt)
    assert pt["timeouts"] == 0
    assert 0.9 <= pt["w"] / pt["ref"] <= 1.1
    assert pt["w_nominal"] == pytest.approx(hs.RFC3649_TABLE3[p], rel=0.10)


# 2. Scalable TCP ----------------------------------------------------------------------------
@pytest.mark.parametrize("p", list(hs.SCALABLE_PS))
def test_scalable_response_function_is_0_08_over_p(p):
    """Mean window within 10 % of 0.08 / p.

    0.08/p is the sawtooth's peak (the fluid equilibrium); its mean is 0.936 of it, and the
    runs give 0.92-0.96 (0.92 at 10^-3 over 3000 losses: the check has 2 % of margin there;
    one sigma 0.01 at 1000 losses). At 10^-3 low_window = 0: with the default 100 the whole
    sawtooth would be in the Reno region (see hs.scalable_params)."""
    pt = scalable(p)
    show("Scalable TCP", pt)
    print(f"  against the sawtooth's mean 0.0749/p: {pt['w'] / (0.936 * pt['ref']):.3f}")
    assert 0.9 <= pt["w"] / pt["ref"] <= 1.1
    assert pt["w_nominal"] == pytest.approx(hs.scalable_w(p), rel=0.10)


@pytest.mark.parametrize("window", hs.SCALABLE_RECOVERY_WINDOWS)
def test_scalable_recovers_from_a_loss_in_13_4_rtts(window):
    """After one loss the window is back in ln(8/7)/ln(1.01) = 13.42 RTTs of growth at 200,
    2000 and 20000 segments (2.3 Mb/s to 2.3 Gb/s), within 0.25 RTT; the decrease is 1/8."""
    r = scalable_recovery(window)
    print(f"\nScalable TCP at W = {r['w_pre']:.0f}: decrease {r['decrease']:.4f}, back in {r['growth_rtts']:.2f} RTTs "
          f"of growth (analytic {r['ref']:.2f}), {r['from_reduction_rtts']:.2f} from the reduction "
          f"(recovery {r['recovery_rtts']:.2f})")
    assert (r["losses"], r["queue_drops"], r["timeouts"]) == (1, 0, 0)
    assert r["decrease"] == pytest.approx(0.875, abs=0.001)
    assert r["growth_rtts"] == pytest.approx(r["ref"], abs=0.25)
    # Sack1's recovery freezes cwnd for about one RTT (measured 1.11-1.21) before the growth.
    assert 1.0 <= r["from_reduction_rtts"] - r["growth_rtts"] <= 1.4


def test_scalable_recovery_time_does_not_depend_on_the_rate():
    times = [scalable_recovery(w)["growth_rtts"] for w in hs.SCALABLE_RECOVERY_WINDOWS]
    print(f"\nScalable TCP recovery at {hs.SCALABLE_RECOVERY_WINDOWS} segments: {[round(t, 2) for t in times]} RTTs")
    assert max(times) - min(times) <= 0.2


# 3. EIMD: w = A RTT^r / p^s ----------------------------------------------------------------
def eimd_points():
    pts = [eimd(p) for p in hs.EIMD_PS]
    pts += [eimd(hs.EIMD_RTT_P, rtt) for rtt in hs.EIMD_RTTS if rtt != hs.RTT]
    return pts


def test_eimd_exponents_are_r_and_s():
    """ln w on ln RTT and ln p_meas (p = 10^-3 to 10^-6 at 100 ms; 40, 100, 250 ms at 10^-4):
    both exponents within 10 % of 0.82, the paper's r = s."""
    fit = hs.eimd_exponents(eimd_points())
    print(f"\nEIMD exponents: s = {fit['s']:.3f}, r = {fit['r']:.3f} (eq. 1: 0.82, 0.82)")
    assert fit["s"] == pytest.approx(0.82, rel=0.10)
    assert fit["r"] == pytest.approx(0.82, rel=0.10)


@pytest.mark.parametrize("key", [("p", p) for p in hs.EIMD_PS] + [("rtt", r) for r in hs.EIMD_RTTS if r != hs.RTT],
                         ids=lambda k: f"{k[0]}={k[1]:g}")
def test_eimd_level_is_below_eq1_by_the_known_factor(key):
    """A known deviation, not conformance: with c_form = "paper" (eq. 7 as printed, with its
    Gamma(u+1)) the mean window under Bernoulli loss is about 0.66 of eq. 1 (a fluid model
    gives that factor; docs/models/eimd.md, "Eq. 7's Gamma(u+1)"). Measured: 0.64-0.72 at
    300 losses (one sigma about 0.03), 0.58 at 10^-6 with 20 losses (about 0.06): the band
    0.5-0.8 holds the level with room for that scatter, and would catch the sawtooth form
    (about 2.2) or a lost Gamma factor (a level near 1)."""
    pt = eimd(key[1]) if key[0] == "p" else eimd(hs.EIMD_RTT_P, key[1])
    show('EIMD (c_form "paper")', pt)
    assert pt["timeouts"] <= 1
    assert 0.5 <= pt["w"] / pt["ref"] <= 0.8


@pytest.mark.parametrize("key", [("p", p) for p in hs.EIMD_PERIODIC_PS] + [("rtt", r) for r in hs.EIMD_PERIODIC_RTTS],
                         ids=lambda k: f"{k[0]}={k[1]:g}")
def test_eimd_sawtooth_form_meets_eq1_under_periodic_loss(key):
    """Under one loss every 1/p packets (the deterministic sawtooth of eqs. 4-6) the
    re-derived c (c_form = "sawtooth", eq. 7 without Gamma(u+1)) gives eq. 1 within 10 %
    over three decades of p (10^-3 to 10^-6 at 100 ms) and over the RTT (40 and 250 ms at
    10^-4). Measured 0.93-1.00: the small windows of 10^-3 and 10^-4 (70-500 segments)
    sit lowest."""
    pt = eimd_periodic(key[1]) if key[0] == "p" else eimd_periodic(hs.EIMD_RTT_P, key[1])
    show('EIMD (c_form "sawtooth", periodic loss)', pt)
    assert pt["timeouts"] == 0
    assert 0.9 <= pt["w"] / pt["ref"] <= 1.1


def test_eimd_paper_form_under_periodic_loss_is_gamma_low():
    """The printed eq. 7 under the same periodic loss: about 0.31 of eq. 1 (a fluid model
    gives 0.30), the cost of its Gamma(u+1) factor; a known deviation, pinned in 0.25-0.40."""
    pt = eimd_periodic(hs.EIMD_RTT_P, c_form="paper")
    show('EIMD (c_form "paper", periodic loss)', pt)
    assert 0.25 <= pt["w"] / pt["ref"] <= 0.40


# 4. CUBIC: one loss-free epoch --------------------------------------------------------------
def test_cubic_epoch_is_c_t_minus_k_cubed_plus_w_max():
    """RFC 9438: after a loss at W_max (about 1000 segments, 100 ms) cwnd follows
    C (t - K)^3 + W_max from the epoch's start for 2 K: R^2 > 0.99 and every sample within
    5 % of the analytic curve; a free cubic fit recovers C and K within 2 %."""
    r = cubic_epoch()
    print(f"\nCUBIC: W_max {r['w_max']:.1f}, reduction {r['reduction']:.4f}, K {r['k']:.3f} s; fit C {r['c_fit']:.4f}, "
          f"K {r['k_fit']:.3f} s, W(K) {r['w_max_fit']:.1f}; R^2 {r['r2']:.5f}, max error {r['max_err'] * 100:.2f} % "
          f"over {r['samples']} samples")
    assert (r["losses"], r["timeouts"]) == (1, 0)
    assert r["reduction"] == pytest.approx(0.7, abs=0.005)
    assert r["r2"] > 0.99
    assert r["max_err"] < 0.05
    assert r["c_fit"] == pytest.approx(0.4, rel=0.02)
    assert r["k_fit"] == pytest.approx(r["k"], rel=0.02)
    assert r["w_max_fit"] == pytest.approx(r["w_max"], rel=0.01)


# 5. EIMD RTT fairness -----------------------------------------------------------------------
@pytest.mark.xfail(strict=True, reason=(
    "eq. 3 (throughput ratio = k) does not hold on a DropTail bottleneck: losses are not "
    "synchronized. k = 3: 118.8 / 75.8 Mb/s, ratio 1.57 (mean RTTs 64 and 144 ms with the "
    "queue, ratio 2.25); windows 633 and 909 segments where eq. 3 needs them equal; loss "
    "events 34 and 26 (drops 813 and 43: the 40 ms flow's bursts take the overflow). "
    "k = 6: ratio 2.05. Also 1.09-1.57 over seeds and 100-200 Mb/s."))
@pytest.mark.parametrize("k", [3, 6])
def test_eimd_rtt_fairness_follows_eq3(k):
    r = eimd_fairness(k)
    print(f"\nEIMD RTT fairness k = {k}: {r['mbps'][0]:.1f} / {r['mbps'][1]:.1f} Mb/s, ratio {r['ratio']:.2f} "
          f"(eq. 3: {k}); mean RTTs {r['rtt'][0] * 1000:.0f} / {r['rtt'][1] * 1000:.0f} ms, windows "
          f"{r['windows'][0]:.0f} / {r['windows'][1]:.0f}, loss events {r['events']}, drops {r['drops']}")
    assert r["ratio"] == pytest.approx(k, rel=0.20)


# 6. CUBIC's HyStart end to end ----------------------------------------------------------------
@pytest.mark.parametrize("profile", ["ns2", "linux"])
def test_hystart_ends_slow_start_before_the_queue_overflows(profile):
    """One RFC 9438 CUBIC flow, 100 Mb/s, 50 ms, a 1000-packet buffer, no ssthresh: with
    HyStart slow start ends on its own (an ACK train or a delay rise) and nothing is
    dropped; without it slow start overflows the buffer (thousands of drops)."""
    def run(hystart):
        d = {"name": "hystart", "simulation": {"duration": 10, "seed": 1},
             "dumbbell": {"senders": 1, "bottleneck_rate": "100Mbps", "bottleneck_delay": "20ms", "access_rate": "1Gbps",
                          "access_delay": "5ms", "queue": {"kind": "droptail", "limit": 1000}},
             "flows": [{"name": "a", "kind": "tcp", "src": "s0", "dst": "d0", "profile": profile, "window": 100000,
                        "initial_ssthresh": 1e9, "cc": "cubic", "cc_params": {"hystart": hystart}}]}
        return ccsim.run(d).tables["flows"].to_pandas().iloc[0]
    on, off = run(True), run(False)
    print(f"\nHyStart ({profile}): exits ack train {on['hystart_ack_train']:.0f}, delay {on['hystart_delay']:.0f}; "
          f"drops {on['queue_drops']} with, {off['queue_drops']} without")
    assert on["hystart_ack_train"] + on["hystart_delay"] == 1
    assert on["queue_drops"] == 0 and off["queue_drops"] > 1000
