"""End-to-end tests of the `ccsim` command."""

import json
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import EXAMPLES, OVERLOADED_DUMBBELL, TWO_NODE


def htsim_runner():
    """A fresh copy of bench/htsim/run.py (which is no package), so that a test's changes to
    its module state (the binary, the environment, the pinned core) stay in that test."""
    import importlib.util

    htsim_runner.loaded += 1
    spec = importlib.util.spec_from_file_location(f"htsim_runner{htsim_runner.loaded}",
                                                  Path(__file__).resolve().parent.parent / "bench" / "htsim" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


htsim_runner.loaded = 0


def test_version(cli):
    r = cli("--version")
    assert r.returncode == 0
    assert r.stdout.startswith("ccsim 0.")
    # Which build (docs/build.md): "plain" from source, "pgo" from the wheel.
    from ccsim import _core

    assert r.stdout.rstrip().endswith(f"({_core.__build__} build)"), r.stdout


def test_build_is_reported_with_results():
    import ccsim
    from ccsim import _core

    assert _core.__build__ in ("plain", "pgo", "pgo-training")
    res = ccsim.run(ccsim.load(str(EXAMPLES / "dumbbell_cbr.toml")))
    assert res.meta["build"] == _core.__build__


def test_run_writes_outputs(cli, tmp_path):
    out = tmp_path / "out"
    r = cli("run", EXAMPLES / "dumbbell_cbr.toml", "--out", out)
    assert r.returncode == 0, r.stderr
    assert "cbr0" in r.stdout and "r0->r1" in r.stdout
    s = json.loads((out / "summary.json").read_text())
    assert s["meta"]["name"] == "dumbbell-cbr"
    assert len(s["flows"]) == 4
    t = pq.read_table(out / "flows.parquet")
    assert t.num_rows == 4 and "goodput_bps" in t.column_names
    assert (out / "series" / "queue_r0-r1.parquet").exists()
    assert (out / "series" / "flow_cbr0.parquet").exists()


def test_same_seed_bit_identical_parquet(cli, tmp_path):
    for d in ("a", "b", "c"):
        seed = "2" if d == "c" else "1"
        r = cli("run", EXAMPLES / "red_onoff_lossy.toml", "--out", tmp_path / d, "--seed", seed, "-q")
        assert r.returncode == 0, r.stderr
        assert r.stdout == ""
    a = (tmp_path / "a" / "flows.parquet").read_bytes()
    assert a == (tmp_path / "b" / "flows.parquet").read_bytes()
    assert a != (tmp_path / "c" / "flows.parquet").read_bytes()


def test_set_overrides(cli, tmp_path):
    r = cli("run", EXAMPLES / "dumbbell_cbr.toml", "--out", tmp_path / "o", "-q",
            "--set", "dumbbell.bottleneck_rate=100Mbps", "--set", "simulation.duration=2s")
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert s["meta"]["sim_time_s"] == 2.0
    assert all(f["queue_drops"] == 0 for f in s["flows"])


def test_set_a_default_queues_limit_and_warnings_once(cli, tmp_path):
    """`--set dumbbell.queue.limit=N` on a dumbbell that names no queue changes the default
    DropTail's limit (a queue table without `kind` is a DropTail); each warning of a run is
    printed once, as `warning: ...`, not also as a Python warning."""
    sc = tmp_path / "d.toml"
    sc.write_text(OVERLOADED_DUMBBELL + '[[flows]]\nname = "late"\nkind = "cbr"\nsrc = "s0"\ndst = "d0"\nrate = "1Mbps"\nstart = "5s"\n')
    r = cli("run", sc, "--out", tmp_path / "o", "-q", "--set", "dumbbell.queue.limit=7")
    assert r.returncode == 0, r.stderr
    rows = pq.read_table(tmp_path / "o" / "queues.parquet").to_pylist()
    # The bottleneck's forward direction (listed first), overloaded 1.6x: the limit reached.
    assert [q["max_len_pkts"] for q in rows if q["link"] == "bottleneck"][0] == 7
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert lines == ["warning: flows: flow 'late' starts at 5 s, at or after the end of the run (2 s): it sends nothing"], r.stderr


def test_the_readmes_error_example_is_what_validate_prints(cli, tmp_path):
    """README.md shows the error a wrong queue kind gives: it is the one printed today."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    shown = next(ln for ln in readme.splitlines() if ln.startswith("invalid scenario: dumbbell.queue.kind"))
    sc = tmp_path / "q.toml"
    sc.write_text('name = "q"\n[simulation]\nduration = "1s"\n[dumbbell]\nsenders = 1\naccess_rate = "100Mbps"\n'
                  'access_delay = "1ms"\nbottleneck_rate = "10Mbps"\nbottleneck_delay = "20ms"\nqueue = { kind = "fifo" }\n')
    r = cli("validate", sc)
    assert r.returncode == 2 and r.stderr.strip() == shown, r.stderr


def test_a_new_users_slips_get_their_own_messages(cli, tmp_path, two_node):
    """A scenario given to `sweep`, TOML's nan as a number, an error in an option rather than
    the scenario: each message says which it is; the flows table names its drops column."""
    r = cli("sweep", two_node)
    assert r.returncode == 2 and "is a scenario ([simulation], no base), not a sweep file" in r.stderr, r.stderr
    bad = tmp_path / "nan.toml"
    bad.write_text(Path(two_node).read_text().replace("[simulation]\n", "[simulation]\nwarmup = nan\n", 1))
    r = cli("validate", bad)
    assert r.returncode == 2 and "simulation.warmup: expected a finite number, got NaN" in r.stderr, r.stderr
    r = cli("bench", "--reps", "0")
    assert r.returncode == 2 and r.stderr.startswith("invalid option: --reps"), r.stderr
    r = cli("reproduce", "nosuch")
    assert r.returncode == 2 and r.stderr.startswith("invalid option: paper"), r.stderr
    r = cli("validate", two_node, "--set", "simulation.duration=0")
    assert r.returncode == 2 and r.stderr.startswith("invalid scenario: ") and "simulation.duration: must be greater than 0" in r.stderr, r.stderr
    r = cli("run", two_node)
    assert r.returncode == 0 and "drops/sent" in r.stdout


def test_validate_ok(cli):
    r = cli("validate", EXAMPLES / "red_onoff_lossy.toml")
    assert r.returncode == 0, r.stderr
    assert "ok: red-onoff-lossy" in r.stdout


BAD = [
    ("missing field", ('delay = "35ms"', ""), "links[0].delay"),
    ("negative rate", ('rate = "10Mbps"', 'rate = "-5Mbps"'), "links[0].rate"),
    ("unknown queue", ('kind = "droptail"', 'kind = "wfq"'), "links[0].queue.kind"),
    ("unit typo", ('delay = "35ms"', 'delay = "35mz"'), "links[0].delay"),
    ("missing node", ('b = "b"', 'b = "c"'), "links[0].b"),
    ("unknown field", ('delay = "35ms"', 'delay = "35ms"\ndelya = 1'), "links[0].delya"),
]


@pytest.mark.parametrize("label, patch, field", BAD, ids=[b[0] for b in BAD])
@pytest.mark.parametrize("command", ["run", "validate"])
def test_invalid_input_exit_2(cli, tmp_path, label, patch, field, command):
    p = tmp_path / "bad.toml"
    p.write_text(TWO_NODE.replace(*patch, 1))
    r = cli(command, p)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert field in r.stderr
    assert "Traceback" not in r.stderr and "panicked" not in r.stderr


def test_non_toml_file_exit_2(cli, tmp_path):
    p = tmp_path / "x.toml"
    p.write_bytes(b"\x89PNG\r\n\x1a\n\x00binary")
    r = cli("run", p)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr


def test_missing_file_exit_2(cli, tmp_path):
    r = cli("run", tmp_path / "nope.toml")
    assert r.returncode == 2
    assert "not found" in r.stderr


def test_bad_set_exit_2(cli, two_node):
    r = cli("run", two_node, "--set", "links[5].rate=1Mbps")
    assert r.returncode == 2
    assert "links[5]" in r.stderr
    r = cli("run", two_node, "--set", "links[0].rate=fast")
    assert r.returncode == 2
    assert "links[0].rate" in r.stderr


def test_bench_json(cli, tmp_path):
    r = cli("bench", "-s", "cbr", "-s", "S1", "--flows", "4", "--rate", "1e8", "--duration", "0.5", "--reps", "1",
            "--memory-flows", "2000", "--json", tmp_path / "b.json")
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "b.json").read_text())
    cbr = data["scenarios"]["cbr"]["best"]
    assert cbr["bottleneck_pkts"] > 3000 and cbr["events_per_s"] > 0
    assert data["scenarios"]["cbr"]["peak_rss_mb"] > 1
    # Between S3's dumbbell's host pairs by default (issue #20: "a dumbbell with many hosts"):
    # 1 000 pairs, one flow each against three.
    assert data["idle_memory"]["flows"] == 2000 and data["idle_memory"]["pairs"] == 1000
    assert "between 1,000 host pairs of S3's dumbbell" in r.stdout
    # 2 000 flows move the peak by a few MB: the figure says it is rough.
    assert data["idle_memory"]["rough"] and "rough: peak RSS moves" in r.stdout
    s1 = data["scenarios"]["S1"]["best"]
    # S1: 10 NewReno flows fill most of the 100 Mb/s bottleneck for 60 s.
    assert s1["goodput_bps"] > 85e6 and s1["bottleneck_pkts"] > 400_000


def test_bench_json_is_checked_before_the_benchmark_runs(cli, tmp_path):
    """A --json that cannot be written had been found out after the whole benchmark, its
    measurements lost (and the message named a temporary file)."""
    for bad, said in ((tmp_path / "no" / "b.json", "--json: no folder"), (tmp_path, "is a folder")):
        r = cli("bench", "-s", "cbr", "--reps", "1", "--flows", "2", "--memory-flows", "0", "--duration", "0.1", "--json", bad)
        assert r.returncode == 2 and said in r.stderr, r.stderr
        assert "wall" not in r.stdout  # nothing ran


def test_bench_10k_reports_set_up_beside_the_loop(cli, tmp_path):
    """`ccsim bench -s 10k`: issue #20's large world (S3's dumbbell with 10 000 flows), and
    the set-up's share of the loop in the table (a benchmark figure, not asserted here)."""
    r = cli("bench", "-s", "10k", "--reps", "2", "--memory-flows", "0", "--json", tmp_path / "k.json")
    assert r.returncode == 0, r.stderr
    assert "set-up" in r.stdout and "10k" in r.stdout
    e = json.loads((tmp_path / "k.json").read_text())["scenarios"]["10k"]
    b = e["best"]
    assert b["flows"] == 10_000 and b["sim_s"] == 10 and b["bottleneck_pkts"] > 500_000
    shares = sorted(r["setup_s"] / r["wall_s"] for r in e["ccsim"])
    # Two repetitions: the median is their mean, not the larger one.
    assert e["setup_share"] == {"median": (shares[0] + shares[1]) / 2, "max": shares[1]}


def test_memory_per_idle_flow_between_hosts_or_two_nodes(cli):
    """Memory per idle flow on a dumbbell with many host pairs (the flows spread evenly, a
    whole number per pair) or between two nodes; bad counts are refused."""
    import subprocess
    import sys

    from ccsim.bench import memory_per_idle_flow

    m = memory_per_idle_flow(60, 10)
    assert (m["flows"], m["pairs"]) == (60, 10) and m["rss_mb"] >= m["rss_base_mb"] > 0
    # At most half the flows as pairs: 50 flows between 25 pairs, one flow each against three.
    m = memory_per_idle_flow(50)
    assert (m["pairs"], m["flows"]) == (25, 50)
    assert memory_per_idle_flow(40, 0)["pairs"] == 0
    with pytest.raises(ValueError, match="pairs >= 0"):
        memory_per_idle_flow(40, -1)
    # The worker: N flows between P pairs of S3's dumbbell, N/P each.
    out = subprocess.run([sys.executable, "-m", "ccsim._benchworker", "idle-dumbbell", "6", "3"], capture_output=True, text=True,
                         check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert r["flows"] == 6 and r["bottleneck_pkts"] == 0
    bad = subprocess.run([sys.executable, "-m", "ccsim._benchworker", "idle-dumbbell", "7", "3"], capture_output=True, text=True)
    assert bad.returncode != 0 and "multiple of P" in bad.stderr
    r = cli("bench", "-s", "S1", "--reps", "1", "--memory-pairs", "-1")
    assert r.returncode == 2 and "--memory-pairs" in r.stderr


def test_bench_options_name_themselves_and_are_not_ignored(cli):
    """A bad option value is named; an option for scenarios the call does not run (cbr's
    --flows without -s cbr) is refused, not silently ignored."""
    for args, where, what in ((["-s", "cbr", "--flows", "0"], "--flows", "expected at least 1, got 0"),
                              (["-s", "E5", "--duration", "-1"], "--duration", "expected positive seconds"),
                              (["--reps", "0"], "--reps", "expected at least 1"),
                              (["-s", "S1", "--flows", "4"], "--flows", "applies to cbr only"),
                              (["--rate", "1e8"], "--rate", "applies to cbr only"),
                              (["-s", "S1", "--duration", "2"], "--duration", "applies to E2.5, E5, cbr only"),
                              (["-s", "S1", "--web-flows", "5"], "--web-flows", "applies to web only"),
                              (["-s", "S9"], "--scenario", "unknown scenario")):
        r = cli("bench", *args, "--memory-flows", "0")
        assert r.returncode == 2 and where in r.stderr and what in r.stderr, (args, r.stderr)
        assert "Traceback" not in r.stderr


def test_benchworker_scale_runs_s3_with_n_flows():
    """`python -m ccsim._benchworker scale N SECONDS` (bench/htsim/run.py's scaling): S3's
    dumbbell with N flows; the htsim runner's arguments match its scenarios."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "ccsim._benchworker", "scale", "3", "0.5"], capture_output=True, text=True, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert r["flows"] == 3 and r["sim_s"] == 0.5 and r["bottleneck_pkts"] > 1000
    assert 0 < r["setup_s"] < r["wall_s"] + 1
    # With another bottleneck (run.py scaling --per-flow-mbps): 20 Mb/s carries at most
    # 833 packets of 1 500 bytes each way in 0.5 s.
    from ccsim._benchworker import _sub, s3_with

    with pytest.raises(ValueError, match="lacks"):
        _sub("senders = 10", "senders = 200", "senders = 3")  # a missed substitution is an error
    toml = s3_with(3, 0.5, rate_bps=20e6, queue=30)
    assert "bottleneck_rate = 2e+07" in toml and "access_rate = 2e+08" in toml and "limit = 30 }" in toml
    out = subprocess.run([sys.executable, "-m", "ccsim._benchworker", "scale", "3", "0.5", "20e6", "30"], capture_output=True, text=True,
                         check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert 50 < r["bottleneck_pkts"] <= 834
    runner = htsim_runner()
    from ccsim import _core

    # A machine that runs both simulators at either of two speeds: the medians' ratio
    # follows how the runs fell; each round's ratio and the best runs' do not.
    c, h = [6.0, 6.0, 4.0, 4.0, 4.0], [6.0, 6.0, 6.0, 4.0, 4.0]
    r = runner.ratios([x * 1.1 for x in c], h)
    assert r["ratio"] == pytest.approx(1.1 * 4.0 / 6.0)
    assert r["ratio_paired"] == pytest.approx(1.1)
    # The one round run in different states (4.4 against 6) widens its interval downwards.
    assert r["ratio_paired_ci"] == pytest.approx([1.1 * 4.0 / 6.0, 1.1])
    assert r["ratio_best"] == pytest.approx(1.1)
    # Rounds that spread: the interval holds the median and is judged against the target.
    r = runner.ratios([1.0, 1.2, 1.3, 1.4, 1.5, 1.25, 1.35], [1.0] * 7)
    lo, hi = r["ratio_paired_ci"]
    assert r["ratio_paired"] == pytest.approx(1.3) and 1.0 <= lo < 1.3 < hi <= 1.5
    assert runner.verdict(lo, hi, 1.25) == "inconclusive"
    assert [runner.verdict(*ci, 1.25) for ci in ([1.26, 1.4], [1.0, 1.24], [1.2, 1.3], [1.25, 1.4], [1.0, 1.25])] == \
        ["holds", "does not hold", "inconclusive", "holds", "inconclusive"]
    for name, args in runner.HTSIM_ARGS.items():
        toml = _core.bench_scenario(name)
        flows, mbps, delay, queue, secs = args[:5]
        assert f"count = {flows}" in toml or (flows == "1" and "count" not in toml), name
        assert f"duration = {secs}" in toml and f'bottleneck_delay = "{delay}ms"' in toml, name
        assert f"limit = {queue} }}" in toml, name


def test_ab_runner_scenarios_and_output(tmp_path):
    """bench/ab.py (two builds side by side): `scale:N` is S3's dumbbell with N flows for
    10 s, and it reads the bench example's report line (format of examples/bench.rs)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("ab_runner", Path(__file__).resolve().parent.parent / "bench" / "ab.py")
    ab = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ab)
    args = ab.scenario_args("scale:7", tmp_path)
    assert args[0] == "toml"
    toml = Path(args[1]).read_text()
    assert "senders = 7" in toml and "count = 7" in toml and "duration = 10" in toml
    assert ab.scenario_args("S2", tmp_path) == ["S2"] and ab.scenario_args("file:x.toml", tmp_path) == ["toml", "x.toml"]
    fmt = (Path(__file__).resolve().parent.parent / "crates" / "ccsim-core" / "examples" / "bench.rs").read_text()
    assert "{} events in {:.3} s" in fmt and "{} bottleneck packets" in fmt and "goodput {:.1} Mb/s" in fmt
    line = "S1: 10 flows, 60 s simulated: 1073246 events in 0.120 s = 8.93 M events/s; 480667 bottleneck packets = 4.00 M pkts/s; goodput 93.3 Mb/s; peak packets 438"
    m = ab.LINE.search(line)
    assert m and (m.group(1), m.group(2), m.group(3), m.group(4)) == ("1073246", "0.120", "480667", "93.3")
    # Paired ratios: a machine that drifts between a fast and a slow state moves both runs
    # of a pair alike; the paired median sees the 10 % gain the separate medians blur.
    old = [1.0, 1.5, 1.0, 1.5, 1.0, 1.5, 1.0]
    new = [0.9 * t for t in old]
    m, lo, hi = ab.paired(old, new)
    assert abs(m - 0.9) < 1e-12 and abs(lo - 0.9) < 1e-12 and abs(hi - 0.9) < 1e-12
    m, lo, hi = ab.paired([1.0] * 9, [0.8, 0.9, 1.0, 1.1, 1.2, 0.95, 1.05, 0.85, 1.15])
    assert m == 1.0 and lo < 1.0 < hi
    # A run reported as 0.000 s (under a millisecond) has no ratio; none at all gives NaN.
    assert ab.paired([0.0, 1.0, 1.0], [1.0, 0.5, 0.5])[0] == 0.5
    assert all(x != x for x in ab.paired([0.0], [1.0]))
    # Seeded: the same times give the same interval.
    assert ab.paired([1.0, 1.1, 0.9, 1.2], [1.0] * 4) == ab.paired([1.0, 1.1, 0.9, 1.2], [1.0] * 4)


def test_bench_paper_e_scenario(cli, tmp_path):
    """`ccsim bench -s E2.5`: Paper E's 2.5 Gb/s dumbbell (two EIMD flows with background)."""
    r = cli("bench", "-s", "E2.5", "--duration", "2", "--reps", "1", "--memory-flows", "0", "--json", tmp_path / "e.json")
    assert r.returncode == 0, r.stderr
    e = json.loads((tmp_path / "e.json").read_text())["scenarios"]["E2.5"]["best"]
    assert e["sim_s"] == 2 and e["flows"] == 18 and e["bottleneck_pkts"] > 200_000 and e["goodput_bps"] > 0.3e9


def test_bench_sack_runs_the_sack_variant(cli, tmp_path):
    r = cli("bench", "-s", "S1", "--sack", "--reps", "1", "--memory-flows", "0", "--json", tmp_path / "s.json")
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["sack"] is True
    s1 = data["scenarios"]["S1"]["best"]
    assert s1["goodput_bps"] > 85e6 and s1["goodput_steady_bps"] > s1["goodput_bps"] * 0.9
    from ccsim import _core
    # A different recovery gives a different run (same scenario otherwise).
    assert s1["goodput_bps"] != _core.bench_tcp("S1")["goodput_bps"]


def test_bench_classic_runs_without_prr(cli, tmp_path):
    r = cli("bench", "-s", "S1", "--classic", "--reps", "1", "--memory-flows", "0", "--json", tmp_path / "c.json")
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "c.json").read_text())
    assert data["classic"] is True and data["sack"] is False
    s1 = data["scenarios"]["S1"]["best"]
    assert s1["goodput_bps"] > 85e6
    from ccsim import _core
    # The scenario as defined recovers with PRR; classic recovery is a different run.
    assert 'prr = true' in _core.bench_scenario("S1")
    assert s1["goodput_bps"] != _core.bench_tcp("S1")["goodput_bps"]


def test_the_ns3_script_ships_and_matches_the_benchmarks(cli, tmp_path):
    """`ccsim bench --ns3` needs no checkout: the ns-3 script is in the installed package
    (the default of `--ns3-script`), the checkout's `bench/ns3/dumbbell.py` runs that same
    file, and its scenario parameters are those of ccsim's benchmark scenarios."""
    import runpy
    import subprocess
    import sys

    from ccsim import _core
    from ccsim.bench import NS3_SCRIPT
    from ccsim.scenario import loads

    assert NS3_SCRIPT.is_file()
    params = runpy.run_path(str(NS3_SCRIPT))["PARAMS"]  # not as __main__: ns-3 is not needed
    assert sorted(params) == ["S1", "S2", "S3", "S4"]
    for name, (flows, rate, delay, queue, access, secs, buf_mib) in params.items():
        sc = loads(_core.bench_scenario(name))
        d, f = sc["dumbbell"], sc["flows"][0]
        assert (f.get("count", 1), d["bottleneck_rate"], d["bottleneck_delay"], d["queue"]["limit"], d["access_rate"]) == \
            (flows, rate, delay, queue, access), name
        assert sc["simulation"]["duration"] == secs, name
        # The same window: ns-3's socket buffer in bytes, ccsim's in whole segments.
        assert f["window"] == buf_mib * 2**20 // f["mss"], name
    # Run from the checkout's path, the script is the packaged one (here without ns-3, it
    # stops where it first needs it).
    import importlib.util

    if importlib.util.find_spec("ns") is None:
        shim = Path(__file__).resolve().parent.parent / "bench" / "ns3" / "dumbbell.py"
        r = subprocess.run([sys.executable, str(shim), "S1"], capture_output=True, text=True)
        assert r.returncode != 0 and "from ns import ns" in r.stderr and "_ns3_dumbbell.py" in r.stderr
    # An explicit script that does not exist is refused, naming the option.
    r = cli("bench", "-s", "S1", "--reps", "1", "--memory-flows", "0", "--ns3", sys.executable, "--ns3-script", tmp_path / "none.py")
    assert r.returncode == 2 and "--ns3-script" in r.stderr and "none.py" in r.stderr


def test_bench_ns3_runs_the_packaged_script_in_a_folder_of_its_own(cli, tmp_path):
    """Without `--ns3-script`, `--ns3` runs the script shipped in the package, by absolute
    path, in a temporary folder of its own; an interpreter given by a relative path still
    runs (it is resolved against the caller's folder, not that one)."""
    import sys

    from ccsim.bench import NS3_SCRIPT

    seen = tmp_path / "seen.txt"
    fake = tmp_path / "venv" / "bin" / "python"
    fake.parent.mkdir(parents=True)
    # A stand-in for ns-3's Python: records its arguments and folder, prints a result.
    fake.write_text(f"""#!{sys.executable}
import json, os, sys
open({str(seen)!r}, "w").write(json.dumps({{"argv": sys.argv[1:], "cwd": os.getcwd()}}))
print(json.dumps({{"simulator": "ns-3", "wall_s": 2.0, "cpu_s": 1.5, "goodput_bps": 9.0e7, "goodput_steady_bps": 9.5e7}}))
""")
    fake.chmod(0o755)
    r = cli("bench", "-s", "S1", "--reps", "1", "--memory-flows", "0", "--ns3", "venv/bin/python", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    got = json.loads(seen.read_text())
    assert got["argv"][:2] == [str(NS3_SCRIPT), "S1"] and Path(got["argv"][0]).is_absolute()
    assert Path(got["cwd"]).resolve() != tmp_path.resolve() and not Path(got["cwd"]).exists(), "a temporary folder, removed after"
    # A relative --ns3-script is taken from the caller's folder too.
    (tmp_path / "mine.py").write_text("")
    r = cli("bench", "-s", "S1", "--reps", "1", "--memory-flows", "0", "--ns3", "venv/bin/python", "--ns3-script", "mine.py", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(seen.read_text())["argv"][0] == str(tmp_path / "mine.py")


def test_bench_ns3_gets_ccsims_start_times(cli, tmp_path):
    """`--ns3` hands the ns-3 script ccsim's own flow start times (so the two simulators
    start every flow at the same instant) and takes its result into the ratio."""
    fake = tmp_path / "fake_ns3.py"
    seen = tmp_path / "seen.json"
    fake.write_text(f"""
import json, sys
starts = json.load(open(sys.argv[sys.argv.index("--starts") + 1]))
json.dump({{"argv": sys.argv[1:], "starts": starts}}, open({str(seen)!r}, "w"))
print(json.dumps({{"simulator": "ns-3", "wall_s": 2.0, "cpu_s": 1.5, "goodput_bps": 9.0e7, "goodput_steady_bps": 9.5e7}}))
""")
    import sys

    r = cli("bench", "-s", "S1", "--reps", "1", "--memory-flows", "0", "--ns3", sys.executable, "--ns3-script", fake,
            "--json", tmp_path / "n.json")
    assert r.returncode == 0, r.stderr
    got = json.loads(seen.read_text())
    assert got["argv"][0] == "S1"
    data = json.loads((tmp_path / "n.json").read_text())
    entry = data["scenarios"]["S1"]
    ccsim_starts = entry["best"]["starts_ns"]
    assert got["starts"] == ccsim_starts and len(ccsim_starts) == 10
    assert all(0 <= t < 1_000_000_000 for t in ccsim_starts) and len(set(ccsim_starts)) == 10
    # The same instants as the flows' start_s of an ordinary run of the scenario.
    import ccsim
    from ccsim import _core
    from ccsim.scenario import loads

    sc = loads(_core.bench_scenario("S1"))
    sc["simulation"]["duration"] = 0.1
    assert [round(t * 1e9) for t in ccsim.run(sc).flows["start_s"]] == ccsim_starts
    assert entry["ns3_best"]["same_starts"] is True
    assert "speed-up" in r.stdout and f"{entry['speedup']:.0f}x" in r.stdout
    assert entry["speedup"] == 1.5 / entry["best"]["wall_s"]
    assert abs(entry["goodput_diff"] - (entry["best"]["goodput_bps"] / 9.0e7 - 1)) < 1e-12


def test_bench_ns3_pairs_each_run_and_judges_a_target(cli, tmp_path):
    """With several repetitions, each ns-3 run is paired with the ccsim run just before it:
    the median of those ratios with its bootstrap interval, and with `--ns3-target` a
    verdict on it; `--ns3-target` without `--ns3`, or not a positive number, exits 2."""
    import sys

    # A stand-in for ns-3 whose CPU time grows run by run (1, 2, 3 s): the pairs differ.
    fake = tmp_path / "fake_ns3.py"
    count = tmp_path / "count.txt"
    fake.write_text(f"""
import json, os
n = int(open({str(count)!r}).read()) + 1 if os.path.exists({str(count)!r}) else 1
open({str(count)!r}, "w").write(str(n))
print(json.dumps({{"simulator": "ns-3", "wall_s": 2.0 * n, "cpu_s": 1.0 * n, "goodput_bps": 9.0e7}}))
""")
    r = cli("bench", "-s", "S1", "--reps", "3", "--memory-flows", "0", "--ns3", sys.executable, "--ns3-script", fake,
            "--ns3-target", "1e9", "--json", tmp_path / "n.json")
    assert r.returncode == 0, r.stderr
    e = json.loads((tmp_path / "n.json").read_text())["scenarios"]["S1"]
    ratios = sorted(n["cpu_s"] / c["wall_s"] for n, c in zip(e["ns3"], e["ccsim"]))
    pr = e["speedup_paired"]
    assert pr["n"] == 3 and pr["median"] == ratios[1] and ratios[0] <= pr["lo"] <= pr["median"] <= pr["hi"] <= ratios[2]
    assert e["ns3_verdict"] == "does not hold"  # no ratio comes near 10^9
    assert f"{pr['median']:.0f}x" in r.stdout and "does not hold" in r.stdout and "paired" in r.stdout
    for bad in (["--ns3-target", "0"], ["--ns3-target", "-5"], ["--ns3-target", "inf"]):
        r = cli("bench", "-s", "S1", "--reps", "1", "--memory-flows", "0", "--ns3", sys.executable, "--ns3-script", fake, *bad)
        assert r.returncode == 2 and "--ns3-target" in r.stderr, (bad, r.stderr)
    r = cli("bench", "-s", "S1", "--reps", "1", "--memory-flows", "0", "--ns3-target", "500")
    assert r.returncode == 2 and "--ns3-target" in r.stderr and "needs --ns3" in r.stderr


def test_bench_min_time_reports_the_mean_of_back_to_back_runs(cli, tmp_path):
    """`--min-time T`: each repetition of S1-S4 runs back to back in its process until its
    loops took T seconds, and reports their mean (with every run's time); rates follow."""
    r = cli("bench", "-s", "S1", "--reps", "1", "--memory-flows", "0", "--min-time", "0.3", "--json", tmp_path / "m.json")
    assert r.returncode == 0, r.stderr
    b = json.loads((tmp_path / "m.json").read_text())["scenarios"]["S1"]["best"]
    walls = b["wall_all_s"]
    assert b["runs"] == len(walls) >= 2 and sum(walls) >= 0.3 and sum(walls[:-1]) < 0.3
    assert abs(b["wall_s"] - sum(walls) / len(walls)) < 1e-12
    assert abs(b["bottleneck_pkts_per_s"] * b["wall_s"] - b["bottleneck_pkts"]) < 1e-6 * b["bottleneck_pkts"]
    assert "back-to-back" in r.stdout
    for bad in ("-1", "4000", "nan"):
        r = cli("bench", "-s", "S1", "--reps", "1", "--memory-flows", "0", "--min-time", bad)
        assert r.returncode == 2 and "--min-time" in r.stderr, (bad, r.stderr)


def test_paired_ratio_and_target_verdict():
    from ccsim.bench import paired_ratio, target_verdict

    pr = paired_ratio([10.0, 20.0, 30.0, 40.0, 50.0], [1.0, 1.0, 1.0, 1.0, 1.0])
    assert pr["median"] == 30.0 and 10.0 <= pr["lo"] <= 30.0 <= pr["hi"] <= 50.0 and pr["n"] == 5
    assert paired_ratio([1.0, 2.0], [0.0, 0.0])["n"] == 0  # a run reported as 0 s has no ratio
    assert paired_ratio([3.0] * 4, [1.0] * 4) == {"median": 3.0, "lo": 3.0, "hi": 3.0, "n": 4}
    assert [target_verdict(lo, hi, 500) for lo, hi in ((510, 600), (400, 499), (450, 550), (500, 500))] == [
        "holds", "does not hold", "inconclusive", "holds"]


def test_piped_output_keeps_wide_tables_whole():
    """Without a terminal (and without $COLUMNS) rich would cut tables to 80 columns; the
    CLI prints them whole, so that a log or file holds every header and value."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    exe = Path(sys.executable).with_name("ccsim")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "ccsim"]
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    r = subprocess.run(cmd + ["bench", "-s", "cbr", "--flows", "2", "--duration", "0.2", "--reps", "1", "--memory-flows", "0"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "M bottleneck pkts/s" in r.stdout and "engine MB" in r.stdout and "…" not in r.stdout


def test_bench_unknown_scenario_exit_2(cli):
    r = cli("bench", "-s", "S9")
    assert r.returncode == 2
    assert "S9" in r.stderr


def test_error_messages_keep_brackets(cli, tmp_path):
    # "[dumbbell]" in a message must not be swallowed as terminal markup.
    p = tmp_path / "empty.toml"
    p.write_text('[simulation]\nduration = "1s"\n')
    r = cli("validate", p)
    assert r.returncode == 2
    assert "[dumbbell]" in r.stderr


def test_ctrl_c_stops_a_run_promptly(tmp_path):
    """SIGINT during the engine run ends it (exit 130) instead of waiting for the end."""
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    from ccsim import _core

    scen = tmp_path / "long.toml"
    scen.write_text(_core.bench_scenario("S1").replace("duration = 60", "duration = 100000"))
    exe = Path(sys.executable).with_name("ccsim")
    p = subprocess.Popen([str(exe), "run", str(scen)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2.0)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "interrupted" in err
    assert time.monotonic() - t0 < 10


def test_per_hop_events_reference_gives_the_same_counts(cli, tmp_path):
    """The reference implementation (an event per packet per stage) against the default
    event-free DropTail links with cut-through, on the TCP dumbbell example."""
    sums = {}
    for mode in ("fast", "ref"):
        extra = ["--per-hop-events"] if mode == "ref" else []
        r = cli("run", EXAMPLES / "tcp_dumbbell.toml", "--out", tmp_path / mode, "-q", *extra)
        assert r.returncode == 0, r.stderr
        s = json.loads((tmp_path / mode / "summary.json").read_text())
        sums[mode] = s
    fast, ref = sums["fast"], sums["ref"]
    assert fast["meta"]["events"] < ref["meta"]["events"]
    # Hosts take most packets ahead of the clock, never in the reference mode.
    assert fast["meta"]["taken_ahead"] > sum(f["delivered_pkts"] for f in fast["flows"]) // 2
    assert ref["meta"]["taken_ahead"] == 0
    for key in ("goodput_bps", "sent_pkts", "delivered_pkts", "queue_drops"):
        assert [f[key] for f in fast["flows"]] == [f[key] for f in ref["flows"]], key


def test_htsim_runner_hugepages_flag(tmp_path, monkeypatch, capsys):
    """`run.py compare --htsim-hugepages` runs htsim with glibc's huge-page tunable (the
    advice ccsim's engine gives itself); without the flag, htsim's environment is left as
    it is. A stand-in htsim reports the variable back."""
    runner = htsim_runner()
    fake = tmp_path / "htsim"
    fake.write_text("#!/bin/sh\necho '{\"bottleneck_pkts_per_s\": 1e6, \"tunables\": \"'\"$GLIBC_TUNABLES\"'\"}'\n")
    fake.chmod(0o755)
    monkeypatch.setattr(runner, "BINARY", fake)
    monkeypatch.setattr(runner, "run_ccsim", lambda args: {"bottleneck_pkts_per_s": 2e6})
    monkeypatch.delenv("GLIBC_TUNABLES", raising=False)
    seen = []
    real = runner.run_htsim
    monkeypatch.setattr(runner, "run_htsim", lambda args: seen.append(real(args)["tunables"]) or {"bottleneck_pkts_per_s": 1e6})
    assert runner.main(["compare", "--scenario", "S1", "--reps", "1", "--htsim-hugepages"]) == 0
    assert runner.main(["compare", "--scenario", "S1", "--reps", "1"]) == 0
    assert seen == ["glibc.malloc.hugetlb=1", ""]
    assert "ccsim/htsim 2.00" in capsys.readouterr().out


def test_htsim_runner_min_time(tmp_path, monkeypatch, capsys):
    """`run.py compare --min-time T`: each side of a round repeats its run until its loops
    took T seconds and counts the mean: ccsim through `_benchworker S --min-time T` (which
    repeats in its process), htsim one process a run, its rate recomputed from the mean
    loop time. Without it, one run each, as before; a bad value exits 2."""
    runner = htsim_runner()
    ccsim_args, walls = [], iter([0.4, 0.2, 0.6, 0.5, 0.5])
    monkeypatch.setattr(runner, "run_ccsim", lambda args: ccsim_args.append(args) or {"bottleneck_pkts_per_s": 3e6})
    calls = []

    def htsim(args):
        calls.append(args)
        wall = next(walls)
        return {"bottleneck_pkts": 1_000_000, "wall_s": wall, "bottleneck_pkts_per_s": 1e6 / wall}

    monkeypatch.setattr(runner, "run_htsim", htsim)
    out = tmp_path / "cmp.json"
    assert runner.main(["compare", "--scenario", "S1", "--reps", "2", "--min-time", "1", "--json", str(out)]) == 0
    # Round 1: 0.4 + 0.2 + 0.6 (three runs, mean 0.4 s); round 2: 0.5 + 0.5 (mean 0.5 s).
    assert len(calls) == 5 and ccsim_args == [["S1", "--min-time", "1"]] * 2
    row = json.loads(out.read_text())[0]
    assert row["htsim_all"] == pytest.approx([2.5e6, 2e6]) and row["min_time"] == 1
    assert row["ratio_paired"] == pytest.approx((3 / 2.5 + 3 / 2) / 2)
    assert "ccsim/htsim" in capsys.readouterr().out
    calls.clear()
    ccsim_args.clear()
    monkeypatch.setattr(runner, "run_htsim", lambda args: calls.append(args) or {"bottleneck_pkts_per_s": 1e6})
    assert runner.main(["compare", "--scenario", "S1", "--reps", "1"]) == 0
    assert len(calls) == 1 and ccsim_args == [["S1"]]
    assert runner.main(["compare", "--scenario", "S1", "--min-time", "-1"]) == 2
    assert "--min-time must be" in capsys.readouterr().err


def test_htsim_runner_ratio_by_state():
    """`compare` groups the rounds' ratios by the machine's speed around each round (the
    neighbouring rounds' rates), not by the round's own rates, whose noise would decide
    its group: a round whose htsim run alone was fast stays with its neighbours."""
    runner = htsim_runner()
    # Eight slow rounds (ratio 1.4) then eight fast ones (ratio 1.1); round 3's htsim run
    # alone is very fast (ratio 0.7), which does not move it out of the slow group.
    h = [1.0] * 8 + [2.0] * 8
    c = [1.4] * 8 + [2.2] * 8
    h[3] = 2.0
    g = runner.by_state(c, h, parts=2)
    assert [x["rounds"] for x in g] == [8, 8]
    assert g[0]["ratio"] == pytest.approx(1.4) and g[1]["ratio"] == pytest.approx(1.1)
    assert g[0]["speed"][1] <= g[1]["speed"][0]
    assert runner.by_state(c[:7], h[:7]) == [] and runner.by_state(c, h[:-1]) == []


def test_htsim_runner_pin(tmp_path, monkeypatch):
    """`run.py compare|scaling --pin CPU` runs both simulators under `taskset -c CPU`;
    without it, as they are."""
    runner = htsim_runner()
    fake = tmp_path / "htsim"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setattr(runner, "BINARY", fake)
    seen = []
    line = '{"bottleneck_pkts_per_s": 1e6, "bottleneck_pkts": 1000, "wall_s": 0.001}'
    monkeypatch.setattr(runner, "sh", lambda cmd, **kw: seen.append(cmd) or line)
    monkeypatch.setattr(runner.shutil, "which", lambda name: "/usr/bin/" + name)
    assert runner.main(["compare", "--scenario", "S1", "--reps", "1", "--pin", "1"]) == 0
    assert len(seen) == 2 and all(c[:3] == ["taskset", "-c", "1"] for c in seen)
    assert {c[3] for c in seen} == {str(fake), sys.executable}
    seen.clear()
    assert runner.main(["scaling", "--flows", "10", "--reps", "1", "--pin", "0"]) == 0
    assert len(seen) == 2 and all(c[:3] == ["taskset", "-c", "0"] for c in seen)
    seen.clear()
    assert runner.main(["compare", "--scenario", "S1", "--reps", "1"]) == 0
    assert len(seen) == 2 and all(c[0] != "taskset" for c in seen)
    monkeypatch.setattr(runner.shutil, "which", lambda name: None)
    assert runner.main(["compare", "--scenario", "S1", "--pin", "1"]) == 2


def test_htsim_runner_instructions(tmp_path, monkeypatch, capsys):
    """`run.py instructions`: each simulator counted under callgrind for the full and the
    short duration of each scenario; the marginal instructions per bottleneck packet (the
    difference of the counts over the difference of the packets). A stand-in callgrind."""
    import subprocess

    runner = htsim_runner()
    # callgrind's summary line, as it prints it.
    assert runner.instructions_of("==12== Events    : Ir\n==12== Collected : 1214424835\n\n==12== I   refs:      1,214,424,835\n") \
        == 1_214_424_835
    with pytest.raises(ValueError):
        runner.instructions_of("no summary")
    with pytest.raises(ValueError, match="no more"):
        runner.marginal((10, {"bottleneck_pkts": 5, "events": 1}), (8, {"bottleneck_pkts": 5, "events": 1}))
    fake = tmp_path / "htsim"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setattr(runner, "htsim_binary", fake)
    monkeypatch.setattr(runner, "BINARY", fake)
    monkeypatch.setattr(runner.shutil, "which", lambda name: "/usr/bin/" + name)
    seen = []

    def fake_count(cmd, env=None):
        # ccsim: 3 M instructions of start-up, 2 000 per packet, 1 000 packets a second;
        # htsim: 1 000 of start-up, 1 500 per packet.
        seen.append(cmd)
        if cmd[0] == sys.executable:
            secs = float(cmd[cmd.index("--seconds") + 1])
            pkts = 1000 * secs
            return 3_000_000 + 2000 * pkts, {"bottleneck_pkts": pkts, "events": 2.2 * pkts}
        secs = float(cmd[5])
        pkts = 1000 * secs
        return 1000 + 1500 * pkts, {"bottleneck_pkts": pkts, "events": 3 * pkts}

    monkeypatch.setattr(runner, "callgrind_count", fake_count)
    out = tmp_path / "i.json"
    assert runner.main(["instructions", "--scenario", "S1", "--json", str(out)]) == 0
    assert [c[-1] for c in seen if c[0] == sys.executable] == ["60"] * 3 + ["6"] * 3  # three counts of each, medians
    assert [c[5] for c in seen if c[0] != sys.executable] == ["60", "6"]
    row = json.loads(out.read_text())[0]
    assert row["ccsim_instr_per_pkt"] == pytest.approx(2000) and row["htsim_instr_per_pkt"] == pytest.approx(1500)
    assert row["ccsim_events_per_pkt"] == pytest.approx(2.2) and row["htsim_over_ccsim"] == pytest.approx(0.75)
    assert row["ccsim_instr_spread"] == 0
    assert "S1: ccsim 2000 instructions per bottleneck packet" in capsys.readouterr().out
    assert runner.main(["instructions", "--short", "1.5"]) == 2
    assert row["htsim_access"] is False
    # `--access`: htsim with an access queue per flow at S1's access rate (1 Gb/s), both
    # durations; ccsim's commands unchanged.
    seen.clear()
    assert runner.main(["instructions", "--scenario", "S1", "--access", "--reps", "1", "--json", str(out)]) == 0
    hcmds = [c for c in seen if c[0] != sys.executable]
    assert [c[5] for c in hcmds] == ["60", "6"] and all(c[-2:] == ["--access-mbps", "1000"] for c in hcmds)
    assert all("--access-mbps" not in c for c in seen if c[0] == sys.executable)
    assert json.loads(out.read_text())[0]["htsim_access"] is True
    assert "an access queue per flow" in capsys.readouterr().out
    # ccsim's start-up varies from run to run: the medians of the reps, and their spread.
    noise = iter([0, 50_000, -50_000, 20_000, 0, -20_000])

    def noisy(cmd, env=None):
        n, r = fake_count(cmd, env)
        if cmd[0] == sys.executable:
            assert env["PYTHONHASHSEED"] == "0"
            n += next(noise)
        return n, r

    monkeypatch.setattr(runner, "callgrind_count", noisy)
    assert runner.main(["instructions", "--scenario", "S1", "--json", str(out)]) == 0
    row = json.loads(out.read_text())[0]
    # 54 000 packets between the runs; the medians cancel; the pairs differ by -20 000, 50 000, -30 000
    assert row["ccsim_instr_per_pkt"] == pytest.approx(2000)
    assert row["ccsim_instr_spread"] == pytest.approx((50_000 - (-30_000)) / 54_000)
    monkeypatch.setattr(runner, "callgrind_count", fake_count)
    # The scaling curve in instructions: ccsim's worker runs once per count (`--once`).
    seen.clear()

    def fake_scale(cmd, env=None):
        if cmd[0] == sys.executable:
            assert cmd[-1] == "--once" and cmd[3] == "scale"
            n, secs = int(cmd[4]), float(cmd[5])
            return 10**6 + (2000 + n) * 100 * secs, {"bottleneck_pkts": 100 * secs, "events": 200 * secs}
        n, secs = int(cmd[1]), float(cmd[5])
        return 500 + (1500 + 2 * n) * 100 * secs, {"bottleneck_pkts": 100 * secs, "events": 300 * secs}

    monkeypatch.setattr(runner, "callgrind_count", fake_scale)
    assert runner.main(["scaling", "--instructions", "--flows", "10", "1000", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert [round(r["ccsim_instr_per_pkt"]) for r in rows] == [2010, 3000]
    assert [round(r["htsim_instr_per_pkt"]) for r in rows] == [1520, 3500]
    assert rows[1]["ccsim_vs_first"] == pytest.approx(3000 / 2010)
    # The worker's --seconds: one run of the scenario for that long (no steady-state rerun).
    r = subprocess.run([sys.executable, "-m", "ccsim._benchworker", "S1", "--seconds", "0.5"], capture_output=True, text=True, check=True)
    r = json.loads(r.stdout.strip().splitlines()[-1])
    assert r["sim_s"] == 0.5 and r["bottleneck_pkts"] > 0 and r["goodput_steady_bps"] != r["goodput_steady_bps"]  # NaN
    for bad in (["--secs", "3"], ["--seconds"], ["--seconds", "x"], ["--seconds", "-1"]):
        r = subprocess.run([sys.executable, "-m", "ccsim._benchworker", "S1", *bad], capture_output=True, text=True)
        assert r.returncode == 2 and "not understood" in r.stderr, (bad, r.stderr)


def test_htsim_runner_scaling_both_pages(tmp_path, monkeypatch):
    """`run.py scaling --pages both`: ccsim with CCSIM_HUGEPAGES 0 and 1, htsim without and
    with glibc's tunable, alternating; the main columns are the huge-page runs."""
    runner = htsim_runner()
    fake = tmp_path / "htsim"
    # A stand-in htsim: 1 s for 1e6 packets without the tunable, 0.5 s with it.
    fake.write_text("#!/bin/sh\nif [ -n \"$GLIBC_TUNABLES\" ]; then w=0.5; else w=1.0; fi\n"
                    "echo \"{\\\"wall_s\\\": $w, \\\"bottleneck_pkts\\\": 1000000}\"\n")
    fake.chmod(0o755)
    monkeypatch.setattr(runner, "BINARY", fake)
    monkeypatch.setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1")  # the small-page runs must drop it
    seen = []

    def fake_ccsim(args, env=None):
        seen.append(env["CCSIM_HUGEPAGES"])
        return {"wall_s": 0.2 if env["CCSIM_HUGEPAGES"] == "1" else 0.4, "bottleneck_pkts": 1_000_000}

    monkeypatch.setattr(runner, "run_ccsim", fake_ccsim)
    out = tmp_path / "s.json"
    assert runner.main(["scaling", "--flows", "10", "20", "--reps", "2", "--pages", "both", "--json", str(out)]) == 0
    # Rounds: every flow count once per round, forwards then backwards, pages alternating.
    assert seen == ["0", "1", "0", "1", "1", "0", "1", "0"]
    rows = json.loads(out.read_text())
    r = rows[0]
    got = [r[k] for k in ("ccsim_small_ns_per_pkt", "ccsim_huge_ns_per_pkt", "htsim_small_ns_per_pkt", "htsim_huge_ns_per_pkt",
                          "ccsim_ns_per_pkt", "htsim_ns_per_pkt")]
    assert got == pytest.approx([400, 200, 1000, 500, 200, 500]) and rows[1]["ccsim_vs_first"] == pytest.approx(1.0)


def test_htsim_runner_scaling_growth_verdict(tmp_path, monkeypatch, capsys):
    """`run.py scaling`: each count's growth over 10 flows is the median of the rounds'
    ratios (a round runs every count once, so a slow round slows all its points alike) with
    its interval, and the last count's growth is judged against `--max-growth`."""
    runner = htsim_runner()
    order = []
    slow = iter([1.0] * 3 + [1.5] * 3 + [1.0] * 3)  # the second round runs 1.5x slower throughout

    def fake_ccsim(args, env=None):
        n = int(args[1])
        order.append(n)
        cost = {1: 90, 10: 100, 10000: 300}[n] * next(slow)
        return {"wall_s": cost * 1e-9 * 1e6, "bottleneck_pkts": 1_000_000}

    def fake_htsim(args):
        n = int(args[0])
        return {"wall_s": {1: 100, 10: 100, 10000: 1000}[n] * 1e-9 * 1e6, "bottleneck_pkts": 1_000_000}

    monkeypatch.setattr(runner, "run_ccsim", fake_ccsim)
    monkeypatch.setattr(runner, "run_htsim", fake_htsim)
    monkeypatch.setattr(runner, "scale_args", lambda n, secs, per_flow, pkts: ([str(n), str(secs)], [str(n), "1000", "q", "1000"], secs))
    out = tmp_path / "g.json"
    assert runner.main(["scaling", "--flows", "1", "10", "10000", "--reps", "3", "--json", str(out)]) == 0
    assert order == [1, 10, 10000, 10000, 10, 1, 1, 10, 10000]
    rows = json.loads(out.read_text())
    assert [r["base_flows"] for r in rows] == [10] * 3
    assert rows[2]["ccsim_growth"] == pytest.approx(3.0) and rows[2]["ccsim_growth_ci"] == pytest.approx([3.0, 3.0])
    assert rows[0]["ccsim_growth"] == pytest.approx(0.9) and rows[2]["htsim_growth"] == pytest.approx(10.0)
    assert rows[2]["verdict"] == "does not hold" and rows[2]["max_growth"] == 2.0
    assert "10 -> 10000 flows: ccsim x3.00 [3.00, 3.00]" in capsys.readouterr().out
    order.clear()
    slow = iter([1.0] * 9)
    assert runner.main(["scaling", "--flows", "10", "10000", "--reps", "3", "--max-growth", "4", "--json", str(out)]) == 0
    assert json.loads(out.read_text())[1]["verdict"] == "holds"
    assert [runner.verdict(*ci, 2.0, at_most=True) for ci in ([1.5, 2.0], [2.1, 3.0], [1.9, 2.1])] == ["holds", "does not hold", "inconclusive"]
