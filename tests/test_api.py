import math
import os
import subprocess
import sys

import pytest

import ccsim
from ccsim import Scenario, ScenarioError
from conftest import EXAMPLES, OVERLOADED_DUMBBELL, TWO_NODE


def test_version():
    assert ccsim.__version__.count(".") == 2


def test_run_two_node_exact_delay():
    res = ccsim.run(ccsim.loads(TWO_NODE))
    f = res.flows.iloc[0]
    # 1.2 ms serialization + 35 ms propagation, no queueing at 1 Mb/s on 10 Mb/s.
    assert f["delay_min_s"] == pytest.approx(0.0362, abs=1e-12)
    assert f["delay_max_s"] == pytest.approx(0.0362, abs=1e-12)
    assert f["sent_pkts"] == 84  # 0, 12 ms, ..., 996 ms
    # The last three (972, 984, 996 ms) are still in flight at 1 s.
    assert f["delivered_pkts"] == 81
    assert f["goodput_bps"] == pytest.approx(81 * 1500 * 8 / 1.0)
    assert res.meta["stop"] == "end_time"
    assert res.meta["events"] > 0


def test_builder_matches_toml_and_validates():
    s = (Scenario("demo", duration="3s", seed=2)
         .dumbbell(senders=2, access_rate="100Mbps", access_delay="1ms",
                   bottleneck_rate="10Mbps", bottleneck_delay="20ms", queue={"kind": "red"})
         .flow("cbr", src="s{i}", dst="d{i}", count=2, rate="6Mbps", jitter=True)
         .trace("queue", link="bottleneck", interval="10ms")
         .trace("flow", flow="*", interval="100ms"))
    info = s.validate()
    assert info["flows"] == 2 and info["nodes"] == 6 and info["links"] == 5
    res = ccsim.run(s)
    assert set(res.series_names) == {"queue:r0->r1", "flow:flow0-0", "flow:flow0-1"}
    q = res.series("queue:r0->r1")
    assert list(q.columns[:3]) == ["time", "len_pkts", "len_bytes"]
    assert "red_avg" in q.columns
    assert len(q) == 301
    # Rates and delays by name only: two rates given by position are easily swapped.
    with pytest.raises(TypeError, match="positional"):
        Scenario("x").dumbbell(2, "100Mbps", "10Mbps", "10ms", "1ms")
    thr = res.series("flow:flow0-0")["throughput_bps"]
    # 12 Mb/s offered into 10 Mb/s: each flow gets about 5 Mb/s.
    assert thr.iloc[5:].mean() == pytest.approx(5e6, rel=0.1)
    with pytest.raises(KeyError, match="recorded series"):
        res.series("nope")


def test_overrides_and_seed():
    d = ccsim.load(EXAMPLES / "dumbbell_cbr.toml")
    res = ccsim.run(d, seed=5, overrides=["dumbbell.bottleneck_rate=20Mbps", "flows[0].rate=1Mbps"])
    assert res.meta["seed"] == 5
    # 4 x 1 Mb/s into 20 Mb/s: nothing dropped.
    assert res.flows["queue_drops"].sum() == 0
    d2 = ccsim.set_path(ccsim.load(EXAMPLES / "dumbbell_cbr.toml"), "flows[*].packet_size", 500)
    assert d2["flows"][0]["packet_size"] == 500


def test_set_path_errors():
    d = ccsim.load(EXAMPLES / "dumbbell_cbr.toml")
    with pytest.raises(ScenarioError, match=r"flows\[7\]"):
        ccsim.set_path(d, "flows[7].rate", 1)
    with pytest.raises(ScenarioError, match="path=value"):
        ccsim.apply_overrides(d, ["flows[0].rate"])


def test_determinism_same_seed_identical_tables():
    a = ccsim.run(EXAMPLES / "red_onoff_lossy.toml")
    b = ccsim.run(EXAMPLES / "red_onoff_lossy.toml")
    c = ccsim.run(EXAMPLES / "red_onoff_lossy.toml", seed=99)
    assert a.tables["flows"].equals(b.tables["flows"])
    assert a.tables["queues"].equals(b.tables["queues"])
    assert a.series_arrow("queue:r0->r1").equals(b.series_arrow("queue:r0->r1"))
    assert not a.tables["flows"].equals(c.tables["flows"])


@pytest.mark.parametrize(
    "patch, path",
    [
        (("rate = \"10Mbps\"", "rate = \"-10Mbps\""), "links[0].rate"),
        (("rate = \"10Mbps\"", "rate = \"10Mbsp\""), "links[0].rate"),
        (("delay = \"35ms\"", ""), "links[0].delay"),
        (("kind = \"droptail\"", "kind = \"fifo\""), "links[0].queue.kind"),
        (("b = \"b\"", "b = \"nowhere\""), "links[0].b"),
        (("duration = \"1s\"", ""), "simulation.duration"),
        (("packet_size = \"1500B\"", "packet_size = \"1500 bytez\""), "flows[0].packet_size"),
    ],
)
def test_invalid_scenarios_name_the_field(patch, path):
    bad = TWO_NODE.replace(*patch, 1)
    with pytest.raises(ScenarioError) as e:
        ccsim.run(ccsim.loads(bad))
    assert path in [p for p, _ in e.value.errors], e.value.errors
    assert path in str(e.value)


def test_all_errors_reported_at_once():
    bad = TWO_NODE.replace('rate = "10Mbps"', 'rate = "x"').replace('delay = "35ms"', 'delay = -1')
    with pytest.raises(ScenarioError) as e:
        ccsim.validate(ccsim.loads(bad))
    paths = {p for p, _ in e.value.errors}
    assert {"links[0].rate", "links[0].delay"} <= paths


def test_unknown_queue_lists_allowed_values():
    with pytest.raises(ScenarioError, match="allowed: droptail, red"):
        ccsim.validate(ccsim.loads(TWO_NODE.replace('"droptail"', '"fifo"')))


def test_not_toml():
    with pytest.raises(ScenarioError, match="not valid TOML"):
        ccsim.loads("this = is = not toml")


def test_non_data_values_rejected():
    d = ccsim.loads(TWO_NODE)
    d["simulation"]["duration"] = object()
    with pytest.raises(ScenarioError, match="plain data"):
        ccsim.run(d)
    d["simulation"]["duration"] = math.nan
    with pytest.raises(ScenarioError):
        ccsim.run(d)


def test_rust_panic_becomes_python_exception():
    from ccsim import _core

    with pytest.raises(RuntimeError, match="internal error.*deliberate test panic"):
        _core._panic_for_test()
    # The interpreter is still fine afterwards.
    assert ccsim.run(ccsim.loads(TWO_NODE)).meta["events"] > 0


def test_save_and_load_roundtrip(tmp_path):
    res = ccsim.run(EXAMPLES / "dumbbell_cbr.toml")
    res.save(tmp_path / "out")
    files = sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*"))
    assert "summary.json" in files and "flows.parquet" in files
    assert "series/queue_r0-r1.parquet" in files
    assert not [f for f in files if f.endswith(".tmp")]
    back = ccsim.Results.load(tmp_path / "out")
    assert back.tables["flows"].equals(res.tables["flows"])
    assert back.series("queue:r0->r1").equals(res.series("queue:r0->r1"))


def test_save_refuses_a_file_naming_its_argument(tmp_path, cli):
    """The Python API names its own argument `out`; the command line names `--out`."""
    (tmp_path / "f").write_text("x")
    res = ccsim.run(ccsim.loads(TWO_NODE))
    with pytest.raises(ScenarioError, match=r"^out: .*/f is a file"):
        res.save(tmp_path / "f")
    (tmp_path / "s.toml").write_text(TWO_NODE)
    r = cli("run", tmp_path / "s.toml", "--out", tmp_path / "f")
    assert r.returncode == 2 and "invalid option: --out: " in r.stderr and " is a file" in r.stderr
    # A file on the way to the folder is named as such (it had been "cannot create ...: File exists").
    for args in (("run", tmp_path / "s.toml"), ("reproduce", "westwood-abe")):
        r = cli(*args, "--out", tmp_path / "f" / "sub")
        assert r.returncode == 2 and f"invalid option: --out: {tmp_path / 'f'} is a file (in {tmp_path / 'f' / 'sub'}); give a folder" in r.stderr, r.stderr
    with pytest.raises(ScenarioError, match=r"^out: .*/f is a file \(in .*/f/sub\)"):
        ccsim.sweep(ccsim.loads(TWO_NODE), out=tmp_path / "f" / "sub")


def test_warmup_excluded_from_counters():
    d = ccsim.loads(TWO_NODE)
    d["simulation"]["warmup"] = "0.5s"
    res = ccsim.run(d)
    # Packets created at 504, 516, ..., 996 ms: 42 sent in the window. Deliveries in the
    # window: 3 sent before it (468-492 ms, arriving after 500 ms) + 39 of those 42.
    assert res.flows["sent_pkts"][0] == 42
    assert res.flows["delivered_pkts"][0] == 42
    assert res.flows["goodput_bps"][0] == pytest.approx(42 * 1500 * 8 / 0.5)


def test_max_events_stops_early():
    d = ccsim.loads(TWO_NODE)
    d["simulation"]["max_events"] = 10
    res = ccsim.run(d)
    assert res.meta["stop"] == "max_events"
    assert res.meta["events"] == 10
    assert res.meta["sim_time_s"] < 1.0


def test_max_events_reads_the_queues_as_of_the_stop():
    """A run stopped by `max_events` counts on its queues what a run ending at that
    instant counts: no crossing decided ahead of the clock for after the stop."""
    def scenario(**sim):
        s = (Scenario("stop", duration="8s", seed=3)
             .dumbbell(senders=4, access_rate="1Gbps", access_delay="1ms",
                       bottleneck_rate="20Mbps", bottleneck_delay="10ms",
                       queue={"kind": "droptail", "limit": 30})
             .flow("tcp", src="s{i}", dst="d{i}", count=4, window=200, start_jitter="0.2s"))
        d = s.to_dict()
        d["simulation"].update(sim)
        return d
    cols = ["arrivals", "departures", "drops_overflow", "max_len_pkts", "mean_len_pkts", "utilization"]
    for n in (5_000, 40_000):
        stopped = ccsim.run(scenario(max_events=n))
        assert stopped.meta["stop"] == "max_events"
        t = stopped.meta["sim_time_s"]
        ended = ccsim.run(scenario(duration=t))
        assert ended.meta["stop"] == "end_time"
        a, b = stopped.queues, ended.queues
        # Packets waited: crossings decided ahead of the clock were still queued.
        assert a["max_len_pkts"].max() > 1
        for c in cols:
            assert list(a[c]) == list(b[c]), (n, c)


def test_every_example_validates():
    paths = sorted(EXAMPLES.glob("*.toml"))
    assert len(paths) >= 3
    for p in paths:
        info = ccsim.validate(p)
        assert info["flows"] + info["generators"] >= 1, p


def test_gil_is_released_while_the_engine_runs():
    import threading

    from ccsim import _core

    toml = _core.bench_scenario("S1")
    d = ccsim.loads(toml)
    d["simulation"]["duration"] = 60
    done = []
    t = threading.Thread(target=lambda: done.append(ccsim.run(d)))
    t.start()
    spins = 0
    while t.is_alive():
        spins += 1
    t.join()
    assert done and done[0].meta["events"] > 1_000_000
    # With the GIL held for the whole run this loop could not advance at all.
    assert spins > 10_000, spins


def test_analytic_models():
    from ccsim.models import jain, mathis, pftk

    assert jain([1, 1, 1, 1]) == 1.0
    assert jain([1, 0, 0, 0]) == 0.25
    # Mathis: 1.2247/(0.1·sqrt(0.01)) = 122.47 packets/s.
    assert abs(mathis(0.01, 0.1) - 122.47) < 0.01
    # PFTK tends to Mathis at small p and falls below it at high p (timeouts).
    assert abs(pftk(1e-4, 0.1, 0.2) / mathis(1e-4, 0.1) - 1) < 0.05
    assert pftk(0.05, 0.1, 0.2) < 0.85 * mathis(0.05, 0.1)
    # A window cap binds: at most wmax/RTT.
    assert pftk(1e-5, 0.1, 0.2, wmax=20) <= 20 / 0.1 * 1.01


def test_bench_ccsim_trace_cuts_the_scenario(tmp_path):
    """bench/ccsim_trace.py (ccsim's side of the ns-3 script's --startup-trace): one line per
    cut, cumulative counters that never decrease, the last cut equal to a run that long."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    import ccsim
    from ccsim import _core
    from ccsim.scenario import loads

    script = Path(__file__).resolve().parent.parent / "bench" / "ccsim_trace.py"
    out = subprocess.run([sys.executable, str(script), "S1", "1.5", "0.5", 'recovery="sack"'], capture_output=True,
                         text=True, check=True).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["t"] for r in rows] == [0.5, 1.0, 1.5]
    for a, b in zip(rows, rows[1:]):
        assert all(b[k] >= a[k] for k in a if k != "idle_flows")
    sc = loads(_core.bench_scenario("S1"))
    sc["flows"][0]["recovery"] = "sack"
    sc["simulation"]["duration"] = 1.5
    r = ccsim.run(sc)
    assert rows[-1]["goodput_bytes"] == int(r.flows["goodput_bytes"].sum()) > 0
    assert rows[-1]["bottleneck_drops"] > 0
    bad = subprocess.run([sys.executable, str(script), "S9", "1", "1"], capture_output=True, text=True)
    assert bad.returncode != 0 and "unknown benchmark" in bad.stderr


_HUGE_PAGES_PROBE = r"""
import hashlib, sys, ccsim
from ccsim import _core
small = ccsim.run(ccsim.load(sys.argv[1]))
after_small = _core.huge_pages()
big = ccsim.run(ccsim.loads(sys.argv[2]))
smaps = open("/proc/self/smaps").read().split("\n")
heap = [i for i, l in enumerate(smaps) if l.endswith("[heap]")]
flags = next(l for l in smaps[heap[0]:] if l.startswith("VmFlags:")).split()[1:] if heap else []
digest = hashlib.sha256(b"".join(t.to_csv().encode() for r in (small, big) for t in (r.flows, r.queues))).hexdigest()
print(after_small, _core.huge_pages(), "hg" in flags, digest)
"""

_THOUSAND_FLOWS = """
[simulation]
duration = "0.2s"
[dumbbell]
senders = 2
access_rate = "1Gbps"
access_delay = "1ms"
bottleneck_rate = "100Mbps"
bottleneck_delay = "5ms"
[[flows]]
kind = "cbr"
count = 1000
src = "s0"
dst = "d0"
rate = "50kbps"
"""


def _thp_mode() -> str:
    """The system's transparent-huge-page setting ("always", "madvise", "never"), or ""."""
    try:
        text = open("/sys/kernel/mm/transparent_hugepage/enabled").read()
    except OSError:
        return ""
    return text.split("[", 1)[1].split("]", 1)[0] if "[" in text else ""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="transparent huge pages are Linux's")
def test_huge_pages_advised_for_large_worlds_and_results_unchanged():
    """By default the engine's memory is advised onto transparent huge pages once a world
    of 1 000 flows is built (the main heap's mapping carries the `hg` flag), not for a
    small one; CCSIM_HUGEPAGES=1 advises every world, 0 none; the results are the same
    every way."""
    out = {}
    for flag in ("auto", "1", "0"):
        env = {k: v for k, v in os.environ.items() if k != "CCSIM_HUGEPAGES"}
        if flag != "auto":
            env["CCSIM_HUGEPAGES"] = flag
        r = subprocess.run([sys.executable, "-c", _HUGE_PAGES_PROBE, str(EXAMPLES / "tcp_dumbbell.toml"), _THOUSAND_FLOWS],
                           capture_output=True, text=True, env=env, check=True)
        out[flag] = r.stdout.split()
    assert out["auto"][:2] == ["False", "True"] and out["1"][:2] == ["True", "True"], out
    assert out["0"][:3] == ["False", "False", "False"], out
    if _thp_mode() in ("always", "madvise"):
        # The advice took (a kernel without transparent huge pages refuses it).
        assert out["auto"][2] == "True" and out["1"][2] == "True", out
    assert out["auto"][3] == out["1"][3] == out["0"][3]


def test_text_columns_keep_any_utf8_and_empty_tables():
    """Text columns leave the engine as Arrow buffers (offsets and UTF-8 bytes): names of
    several bytes per character, empty names' neighbours and tables with no rows survive."""
    text = """
name = "utf8"
nodes = ["höst-α", "b", "узел"]
[simulation]
duration = "0.2s"
[[links]]
a = "höst-α"
b = "b"
rate = "10Mbps"
delay = "1ms"
[[links]]
name = "→"
a = "b"
b = "узел"
rate = "10Mbps"
delay = "1ms"
[[flows]]
name = "flüsse-{i}"
kind = "cbr"
count = 2
src = "höst-α"
dst = "узел"
rate = "1Mbps"
"""
    res = ccsim.run(ccsim.loads(text))
    assert list(res.flows["name"]) == ["flüsse-0", "flüsse-1"]
    assert list(res.flows["src"]) == ["höst-α"] * 2 and list(res.flows["dst"]) == ["узел"] * 2
    assert list(res.queues["link"]) == ["höst-α-b", "höst-α-b", "→", "→"]
    assert list(res.queues["direction"]) == ["höst-α->b", "b->höst-α", "b->узел", "узел->b"]
    assert res.tables["drops"].num_rows == 0 and res.drops.empty
    for t in res.tables.values():
        t.validate(full=True)


def test_the_drops_trace_is_the_packets_traces_drops():
    """A `drops` trace logs every drop of its direction with the `packets` trace's types:
    integer flow, sequence number and size, the reason by name; row for row the packets
    trace's `d` events."""
    d = ccsim.loads(OVERLOADED_DUMBBELL)
    d["dumbbell"]["queue"] = {"kind": "droptail", "limit": 10}
    d["traces"] = [{"kind": "drops", "link": "bottleneck"}, {"kind": "packets", "link": "bottleneck"}]
    res = ccsim.run(d)
    d = res.series("drops:r0->r1")
    p = res.series("packets:r0->r1")
    p = p[p["event"] == "d"].reset_index(drop=True)
    assert len(d) > 100 and len(d) == len(p)
    assert set(d["reason"]) == {"overflow"}
    for c in ("flow", "seq", "size"):
        assert str(d[c].dtype) == "int64", c
        assert (d[c] == p[c]).all(), c
    assert (d["time"] == p["time"]).all()
    assert (d["reason"] == p["reason"]).all()


def test_a_results_folders_scenario_json_runs_again(tmp_path, cli):
    """`scenario.json` is the scenario as run: `ccsim run` and `ccsim.run` take it (it was
    read as TOML: "not valid TOML ... line 1")."""
    (tmp_path / "s.toml").write_text(TWO_NODE)
    assert cli("run", tmp_path / "s.toml", "--out", tmp_path / "a", "-q").returncode == 0
    r = cli("run", tmp_path / "a" / "scenario.json", "--out", tmp_path / "b", "-q")
    assert r.returncode == 0, r.stderr
    assert ccsim.Results.load(tmp_path / "b").tables["flows"].equals(ccsim.Results.load(tmp_path / "a").tables["flows"])
    (tmp_path / "bad.json").write_text("[1, 2]")
    with pytest.raises(ScenarioError, match=r"a JSON scenario is an object"):
        ccsim.run(tmp_path / "bad.json")


def test_a_stopped_flows_goodput_stays_within_the_path(tmp_path):
    """A flow's rate is what it delivered within [start, stop]: what its packets in flight
    (here up to 1.8 s of queue) deliver after its stop counts in goodput_bytes, not in the
    rate, which had reached 17.9 Mb/s through a 10 Mb/s link."""
    d = ccsim.loads(TWO_NODE.replace("limit = 100 }", "limit = 2000 }").replace('kind = "cbr"', 'kind = "tcp"\nprofile = "linux"')
                    .replace('rate = "1Mbps"\npacket_size = "1500B"', 'start = "1s"\nstop = "3s"'))
    d["simulation"]["duration"] = "6s"
    f = ccsim.run(d).flows.iloc[0]
    assert f["goodput_bps"] <= 10e6
    assert f["goodput_bytes"] * 8 / 2.0 > 12e6  # the tail delivered after the stop is kept
    # The same for a flow that is not stopped: its rate is over its whole active time.
    d["flows"][0].pop("stop")
    g = ccsim.run(d).flows.iloc[0]
    assert g["goodput_bps"] == pytest.approx(g["goodput_bytes"] * 8 / 5.0)


def test_flows_with_stops_give_the_same_results_on_the_event_path(tmp_path):
    """A stop reads its receiver's goodput, so receivers take no packet ahead of the clock
    past it: the fast paths must still give what the event-per-stage reference gives, with
    several flows stopping at one instant, a stop at the warm-up's end, one after the run
    and a receiver with delayed ACKs (timers) beside ones without."""
    d = ccsim.load(EXAMPLES / "dumbbell_cbr.toml")
    d["dumbbell"]["senders"] = 4
    d["simulation"].update(duration="4s", warmup="1s")
    d["traces"] = []
    d["flows"] = [{"name": f"t{i}", "kind": "tcp", "profile": "linux" if i % 2 else "ns2", "src": f"s{i}", "dst": f"d{i}",
                   "start": f"{0.1 * i}s", "stop": stop} for i, stop in enumerate(["2s", "2s", "1s", "9s"])]
    fast, ref = ccsim.run(d), ccsim.run(d, per_hop_events=True)
    assert fast.flows.equals(ref.flows)
    assert fast.tables["receivers"].to_pandas().equals(ref.tables["receivers"].to_pandas())
    f = fast.flows.set_index("name")
    assert f.loc["t2", "goodput_bps"] == 0 and f.loc["t3", "goodput_bps"] == pytest.approx(f.loc["t3", "goodput_bytes"] * 8 / 3)
    assert all(f.loc[n, "goodput_bps"] <= 10e6 for n in ("t0", "t1"))


def test_import_ccsim_is_light_and_its_functions_stay_functions():
    """`import ccsim` loads running, results and sweeps on first use (they bring numpy,
    pyarrow, pandas and DuckDB: `ccsim --version` took 0.6 s, now about 0.1 s), and
    `ccsim.run` / `ccsim.sweep` are the functions even when their modules, of the same
    names, were imported first."""
    code = """
import sys
import ccsim
heavy = [m for m in ("pandas", "pyarrow", "duckdb", "numpy") if m in sys.modules]
assert not heavy, heavy
import ccsim.run, ccsim.sweep, ccsim.catalog
from ccsim.sweep import load_sweep
assert callable(ccsim.run) and ccsim.run.__module__ == "ccsim.run", ccsim.run
assert callable(ccsim.sweep) and ccsim.sweep.__module__ == "ccsim.sweep", ccsim.sweep
assert ccsim.Catalog.__name__ == "Catalog" and ccsim.load_sweep is load_sweep
assert set(ccsim.__all__) <= set(dir(ccsim))
# Submodules are attributes as when `import ccsim` imported them all.
assert ccsim.results.Results is ccsim.Results and ccsim.catalog.Catalog is ccsim.Catalog
# A patch of the function in its module does not outlive the patch (a first lookup
# during one had kept the mock for good).
from unittest import mock
with mock.patch("ccsim.sweep.load_sweep", lambda p: "fake"):
    assert ccsim.load_sweep("x") == "fake"
assert ccsim.load_sweep is load_sweep
try:
    ccsim.no_such_name
except AttributeError as e:
    assert "no_such_name" in str(e)
else:
    raise AssertionError("no AttributeError")
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
