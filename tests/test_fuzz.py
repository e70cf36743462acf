"""Bounded fuzzing of the scenario schema and the engine (Hypothesis), and a replay corpus of
every past failure. Each case mutates a valid scenario (an example) at one to three random
places — scales a number or a quantity keeping its unit, repeats or drops a list element,
deletes a field, puts a random value there (huge, negative, non-finite, unicode, control
characters, unit strings, wrong types), nests it 80 deep, adds an unknown field — then
validates and, if valid, runs it with a cap on events. The only outcomes allowed: a result,
or `ccsim.ScenarioError`; no other exception, no panic, each case within 20 s and the
process under 4 GiB. Some cases go through the CLI too: exit status 0 or 2 only, no
traceback, no panic text, within the same bounds (an address-space limit: an allocation
beyond it aborts the process, which the exit-status check catches).

CI runs about a minute of cases (derandomised: the same cases each time). The long mode, before a release:
``CCSIM_FUZZ_CASES=10000 python -m pytest tests/test_fuzz.py -q`` (its last result is in
docs/fuzzing.md).
"""

from __future__ import annotations

import copy
import json
import os
import re
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import ccsim

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).resolve().parent / "fuzz_corpus"
CASES = int(os.environ.get("CCSIM_FUZZ_CASES", "2000"))
#: CLI cases cost a process each (about 0.8 s): a tenth of the API cases in the long mode.
CLI_CASES = int(os.environ.get("CCSIM_FUZZ_CLI_CASES", "30" if "CCSIM_FUZZ_CASES" not in os.environ else str(CASES // 10)))
LONG = "CCSIM_FUZZ_CASES" in os.environ
#: Per case: events cap for the run, and the wall-time bound.
MAX_EVENTS = 30_000
CASE_SECONDS = 20.0
#: Address space of a CLI case, and the peak resident size of the test process.
MAX_MEMORY = 4 << 30

SEEDS = [ccsim.load(p) for p in sorted((ROOT / "examples").glob("*.toml"))]

UNIT_STRINGS = ["1e300s", "-5ms", "0s", "1ns", "1e-9s", "10", "10Mbps", "1e20bps", "0bps", "nanms", "inf", "5KB",
                "1e19B", "0B", "100pkt", "-1pkt", "€€€", "a\x00b", "\n", "", " ", "s{0..9}", "s{5..1}", "d{0..99999}",
                "x->y", "r0->r1", "*", "AF11", "EF", "1.5", "1e9s", "2e9s"]
scalars = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.integers(min_value=-3, max_value=2000),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, 1, -1, 2**63, 2**64 - 1, 1e-300, 1e300, 0.5]),
    st.booleans(),
    st.text(max_size=12),
    st.sampled_from(UNIT_STRINGS),
)
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                      max_leaves=6)


def _places(d, path=()):
    """Every (container, key) in the tree."""
    if isinstance(d, dict):
        for k, v in d.items():
            yield d, k
            yield from _places(v, path + (k,))
    elif isinstance(d, list):
        for i, v in enumerate(d):
            yield d, i
            yield from _places(v, path + (i,))


FACTORS = [0, -1, 1e-9, 1e-3, 0.5, 2, 10, 1e3, 1e6, 1e9, 1e12, 1e18]
UNIT_RE = re.compile(r"^([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-zµ/]*)$")


def _tweak(data, v):
    """A value of the same shape as `v`: a number scaled, a quantity with its unit kept and
    its number scaled, a list with an element repeated or dropped — near the valid region,
    where the interesting bugs are."""
    if isinstance(v, bool):
        return not v
    if isinstance(v, (int, float)):
        r = v * data.draw(st.sampled_from(FACTORS), label="factor")
        return int(r) if isinstance(v, int) and abs(r) < 2**62 else r
    if isinstance(v, str):
        m = UNIT_RE.match(v)
        if m:
            x = float(m.group(1)) * data.draw(st.sampled_from(FACTORS), label="factor")
            return f"{x:g}{m.group(2)}"
        return data.draw(st.sampled_from([v + v, v[:1], v.upper(), v + "x", v + "{0..3}", ""]), label="string")
    if isinstance(v, list) and v:
        i = data.draw(st.integers(0, len(v) - 1), label="index")
        return data.draw(st.sampled_from([v + [v[i]], v[:i] + v[i + 1:], v * 3]), label="list")
    return v


def _mutate(data, scen: dict) -> dict:
    d = copy.deepcopy(scen)
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        places = list(_places(d))
        if not places:
            break
        container, key = data.draw(st.sampled_from(places), label="place")
        action = data.draw(st.sampled_from(["tweak"] * 4 + ["replace", "replace", "delete", "add", "nest"]), label="action")
        if action == "tweak":
            container[key] = _tweak(data, container[key])
        elif action == "replace":
            container[key] = data.draw(values, label="value")
        elif action == "delete":
            del container[key]
        elif action == "add" and isinstance(container, dict):
            container[data.draw(st.text(min_size=1, max_size=8), label="new key")] = data.draw(values, label="value")
        elif action == "nest":
            v = container[key]
            for _ in range(data.draw(st.integers(1, 80), label="depth")):
                v = {"x": v}
            container[key] = v
    return d


def _bounded(d: dict) -> dict:
    sim = d.get("simulation")
    if isinstance(sim, dict):
        sim["max_events"] = MAX_EVENTS
    return d


def _check(d: dict) -> str:
    """Validate and run; returns "ok" or "invalid"; anything else fails the test."""
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ccsim.validate(d)
            res = ccsim.run(_bounded(copy.deepcopy(d)), pcap_dir=os.environ.get("CCSIM_FUZZ_TMP", "/tmp/ccsim-fuzz-pcap"))
        outcome = "ok"
        assert res.meta["events"] <= MAX_EVENTS
    except ccsim.ScenarioError:
        outcome = "invalid"
    except Exception as e:  # noqa: BLE001 - the point of the test
        raise AssertionError(f"{type(e).__name__}: {e}\nscenario: {json.dumps(d, default=repr)[:2000]}") from e
    assert time.perf_counter() - t0 < CASE_SECONDS, f"slow case: {json.dumps(d, default=repr)[:2000]}"
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    assert peak < MAX_MEMORY, f"peak resident size {peak >> 20} MiB after: {json.dumps(d, default=repr)[:2000]}"
    return outcome


@settings(max_examples=CASES, deadline=None, derandomize=not LONG, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(data=st.data())
def test_mutated_scenarios_are_run_or_refused_cleanly(data):
    scen = data.draw(st.sampled_from(SEEDS), label="seed scenario")
    event(_check(_mutate(data, scen)))


def _limit_memory():
    """The memory bound of a CLI case: an allocation beyond it aborts the process, which
    the exit-status check reports."""
    resource.setrlimit(resource.RLIMIT_AS, (MAX_MEMORY, MAX_MEMORY))


def _cli(path: Path, tmp: Path):
    exe = Path(sys.executable).with_name("ccsim")
    t0 = time.perf_counter()
    p = subprocess.Popen([str(exe), "run", str(path), "-q", "--out", str(tmp / "out"), "--set", f"simulation.max_events={MAX_EVENTS}"],
                         cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_limit_memory)
    try:
        out, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        raise AssertionError(f"hang: {path.read_text()[:2000]}")
    assert p.returncode in (0, 2), (p.returncode, err, path.read_text()[:2000])
    for bad in ("Traceback", "panic", "internal error"):
        assert bad not in err and bad not in out, (err, path.read_text()[:2000])
    assert time.perf_counter() - t0 < 120
    return p.returncode


@settings(max_examples=CLI_CASES, deadline=None, derandomize=not LONG, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_scenarios_through_the_cli(data, tmp_path):
    scen = _mutate(data, data.draw(st.sampled_from(SEEDS), label="seed scenario"))
    try:
        text = json.dumps(scen, allow_nan=False)
    except (ValueError, TypeError):
        return  # not representable in a file; the API test covers it
    p = tmp_path / "case.toml"
    p.write_text(_to_toml(json.loads(text)))
    event(f"exit {_cli(p, tmp_path)}")


def _to_toml(d: dict) -> str:
    """A TOML rendering good enough for fuzzing: everything as inline values."""

    def val(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return json.dumps(v)
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(val(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{json.dumps(k)} = {val(x)}" for k, x in v.items()) + " }"
        return json.dumps(str(v))

    return "\n".join(f"{json.dumps(k)} = {val(v)}" for k, v in d.items()) + "\n"


CORPUS_FILES = sorted(CORPUS.glob("*.json"))


@pytest.mark.parametrize("case", CORPUS_FILES, ids=lambda p: p.stem)
def test_replay_corpus(case, tmp_path):
    """Every past failure, replayed: refused cleanly or run (API and CLI)."""
    d = json.loads(case.read_text())
    _check(d)
    p = tmp_path / "case.toml"
    p.write_text(_to_toml(d))
    _cli(p, tmp_path)
