"""Hardening (issue #14): every failure a fuzzing campaign and a new user's first hour
found, reproduced, with the behaviour it must have now: a clear error naming the field
(exit 2, never a panic, abort, hang or traceback), results that never mix runs."""

from __future__ import annotations

import copy
import hashlib
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

import ccsim
from conftest import EXAMPLES, TWO_NODE, ccsim_cli

ROOT = Path(__file__).resolve().parents[1]


def _write(tmp_path, text, name="s.toml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def _assert_clean_failure(r, field=None):
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    for bad in ("internal error", "Traceback", "panic"):
        assert bad not in r.stderr and bad not in r.stdout, r.stderr
    if field:
        assert field in r.stderr, r.stderr


# 1. Non-ASCII text in an error message -------------------------------------------------------

def test_1_non_ascii_values_in_errors(tmp_path):
    p = _write(tmp_path, TWO_NODE.replace('duration = "1s"', 'duration = "' + "€" * 70 + '"'))
    for cmd in ("validate", "run"):
        r = ccsim_cli(cmd, p)
        _assert_clean_failure(r, "simulation.duration")
        assert "..." in r.stderr
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.validate(p)
    assert e.value.errors[0][0] == "simulation.duration"


# 2. Memory linear in nodes -----------------------------------------------------------------

def test_2_a_dumbbell_of_100000_hosts_runs_in_bounded_memory(tmp_path):
    p = _write(tmp_path, """
[simulation]
duration = "0.1s"
[dumbbell]
senders = 100000
access_rate = "1Gbps"
access_delay = "1ms"
bottleneck_rate = "10Gbps"
bottleneck_delay = "10ms"
[[flows]]
kind = "cbr"
src = "s99999"
dst = "d0"
rate = "1Mbps"
""")
    exe = Path(sys.executable).with_name("ccsim")
    t0 = time.perf_counter()
    proc = subprocess.Popen([str(exe), "run", str(p), "-q"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    assert os.waitstatus_to_exitcode(status) == 0, proc.stderr.read().decode()
    # It aborted allocating 160 GB (an n x n routing table); now: about 0.4 GB.
    assert ru.ru_maxrss < 1_500_000, f"{ru.ru_maxrss} kB"
    assert wall < 120


# 3. A non-list where a list of tables belongs ------------------------------------------------

@pytest.mark.parametrize("value", ["5", "1.5", "true", '"x"'])
def test_3_traces_that_are_not_a_list(tmp_path, value):
    p = _write(tmp_path, TWO_NODE.replace('name = "two-node"', f'name = "two-node"\ntraces = {value}'))
    _assert_clean_failure(ccsim_cli("run", p), "traces")
    with pytest.raises(ccsim.ScenarioError):
        ccsim.run(p)


# 4. A NUL byte in a pcap file name ----------------------------------------------------------

def test_4_control_characters_in_a_pcap_file_name(tmp_path):
    d = ccsim.loads(TWO_NODE)
    d["traces"] = [{"kind": "pcap", "link": "a->b", "file": "x\x00y.pcap"}]
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(d, pcap_dir=tmp_path)
    assert e.value.errors[0][0] == "traces[0].file" and "\\0" in e.value.errors[0][1]



@pytest.mark.parametrize("name, why", [(".x.pcap", "not starting with '.'"), ("a/x.pcap", "without a folder"),
                                       ("x.cap", "ending in .pcap")])
def test_a_refused_pcap_name_says_why(name, why):
    d = ccsim.loads(TWO_NODE)
    d["traces"] = [{"kind": "pcap", "link": "a->b", "file": name}]
    with pytest.raises(ccsim.ScenarioError, match=why):
        ccsim.validate(d)
    d["traces"][0]["file"] = "X.PCAP"  # any case
    ccsim.validate(d)


# 5. Times and rates beyond what the engine represents ------------------------------------------

@pytest.mark.parametrize("field,value", [("clock_granularity", '"1e300s"'), ("min_rto", '"2e10s"'), ("max_rto", '"1e12s"')])
def test_5_huge_times_are_refused_with_the_limit(tmp_path, field, value):
    text = TWO_NODE.replace('kind = "cbr"', 'kind = "tcp"').replace('rate = "1Mbps"\n', "").replace(
        'packet_size = "1500B"', f"{field} = {value}")
    r = ccsim_cli("run", _write(tmp_path, text))
    _assert_clean_failure(r, f"flows[0].{field}")
    assert "at most 1e9 s" in r.stderr


def test_5_huge_durations_and_rates(tmp_path):
    for old, new, field in [('duration = "1s"', 'duration = "2e10s"', "simulation.duration"),
                            ('rate = "10Mbps"', 'rate = "1e20bps"', "links[0].rate")]:
        _assert_clean_failure(ccsim_cli("validate", _write(tmp_path, TWO_NODE.replace(old, new))), field)


# 6. A late start with jitter ------------------------------------------------------------------

def test_6_a_start_beyond_the_limit_does_not_wrap_around(tmp_path):
    text = TWO_NODE.replace('packet_size = "1500B"', 'packet_size = "1500B"\nstart = "1.9e10s"\nstart_jitter = "1s"')
    _assert_clean_failure(ccsim_cli("run", _write(tmp_path, text)), "flows[0].start")


# 7. A trace interval that would need unbounded memory ---------------------------------------------

def test_7_trace_samples_are_bounded(tmp_path):
    text = TWO_NODE + '[[traces]]\nkind = "queue"\nlink = "a->b"\ninterval = "1ns"\n'
    r = ccsim_cli("run", _write(tmp_path, text))
    _assert_clean_failure(r, "traces[0].interval")
    assert "gives 1000000001 samples" in r.stderr and "at most 1000000" in r.stderr, r.stderr
    assert "use an interval longer than 0.000001 s" in r.stderr, r.stderr


def test_a_wrong_loss_direction_is_one_error(tmp_path):
    """A loss model's fields were left unread when its direction was wrong, and reported as
    unknown beside the direction's error (`p: unknown field; allowed fields here:
    direction, kind`, though `p` is the model's)."""
    text = TWO_NODE.replace('[[links]]\na = "a"\nb = "b"\n', '[[links]]\na = "a"\nb = "b"\nloss = { kind = "bernoulli", p = 0.1, direction = "up" }\n')
    assert "loss = {" in text
    r = ccsim_cli("validate", _write(tmp_path, text))
    _assert_clean_failure(r, "links[0].loss.direction")
    assert "unknown field" not in r.stderr, r.stderr
    r = ccsim_cli("validate", _write(tmp_path, text.replace("p = 0.1", "p = 2")))
    assert "links[0].loss.p" in r.stderr and "links[0].loss.direction" in r.stderr, r.stderr


def test_a_capture_of_packets_smaller_than_their_headers_is_warned_of(tmp_path):
    """A CBR packet of fewer than 28 bytes is captured with an IPv4 length below its own
    header's (tshark: "Bogus IP length"), which no warning said."""
    text = TWO_NODE.replace('packet_size = "1500B"', 'packet_size = "20B"') + '[[traces]]\nkind = "pcap"\nlink = "a->b"\n'
    r = ccsim_cli("validate", _write(tmp_path, text))
    assert r.returncode == 0, r.stderr
    assert "flow 'f' sends packets of 20 bytes, fewer than the 28" in r.stderr, r.stderr
    r = ccsim_cli("validate", _write(tmp_path, text.replace('"20B"', '"28B"')))
    assert "fewer than the 28" not in r.stderr, r.stderr
    # The last packet of a burst that is not a whole number of packets; a generator's.
    r = ccsim_cli("validate", _write(tmp_path, text.replace('"20B"', '"1000B"\nbytes = 3010')))
    assert "flow 'f' sends packets of 10 bytes, fewer than the 28" in r.stderr, r.stderr
    # UDT's last packet carries its headers too (a 1-byte rest is an 89-byte packet).
    udt = text.replace('kind = "cbr"', 'kind = "udt"').replace('rate = "1Mbps"\n', "").replace('"20B"', '"1500B"\nbytes = 1501')
    r = ccsim_cli("validate", _write(tmp_path, udt))
    assert r.returncode == 0 and "fewer than the 28" not in r.stderr, r.stderr
    gen = ccsim.load(EXAMPLES / "web_traffic.toml")
    gen["generators"][0]["transport"] = {"kind": "cbr", "rate": "1Mbps", "packet_size": "20B"}
    gen["traces"] = [{"kind": "pcap", "link": gen["traces"][0]["link"]}] if gen.get("traces") else [
        {"kind": "pcap", "link": "r0->r1"}]
    with pytest.warns(ccsim.ScenarioWarning, match="generator 'left-to-right' sends packets of 20 bytes"):
        ccsim.validate(gen)


def test_run_prints_each_scenario_warning_once(tmp_path):
    """`ccsim run` prints the scenario's warnings before the run (validating first) and the
    run's own after it, each once: a warning the run's results repeat is not printed again,
    and `--seed` is checked as the Python API checks it."""
    text = TWO_NODE.replace('packet_size = "1500B"', 'packet_size = "1500B"\nstart = "5s"')
    p = _write(tmp_path, text)
    r = ccsim_cli("run", p, "-q", "--seed", "4")
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("starts at 5 s, at or after the end of the run") == 1, r.stderr
    r = ccsim_cli("run", p, "-q", "--seed", "-1")
    _assert_clean_failure(r, "simulation.seed: expected a whole number from 0 to 2^63 - 1")


def test_7_all_the_traces_samples_are_bounded_too(tmp_path):
    """`flow = "*"` is a trace per flow, each within the per-trace limit: 20 flows sampled
    every nanosecond for a millisecond took 1.7 GB (100 flows, 8.5 GB) without a word."""
    flows = '[[flows]]\nname = "c{i}"\nkind = "cbr"\nsrc = "a"\ndst = "b"\ncount = %d\nrate = "1Mbps"\n'
    trace = '[[traces]]\nkind = "flow"\nflow = "*"\ninterval = "1ns"\n'
    # 999 001 samples a flow (at 0, 1 ns, ... 999 µs), within the limit of a trace's.
    base = TWO_NODE.replace('duration = "1s"', 'duration = "999us"')
    r = ccsim_cli("validate", _write(tmp_path, base + flows % 20 + trace))
    _assert_clean_failure(r, "traces[0].interval")
    assert "give 20979021 samples" in r.stderr and "at most 10000000" in r.stderr, r.stderr
    assert ccsim_cli("validate", _write(tmp_path, base + flows % 5 + trace)).returncode == 0


# 8. An interrupted run never replaces or mixes an earlier run's files ---------------------------

def _digest(folder: Path) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_8_an_interrupted_run_leaves_the_previous_results_whole(tmp_path):
    out = tmp_path / "res"
    scen = EXAMPLES / "tcp_dumbbell.toml"
    r = ccsim_cli("run", scen, "--out", out, "-q", "--set", "simulation.duration=10s", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    before = _digest(out)
    assert "pcap/bulk0.pcap" in before
    exe = Path(sys.executable).with_name("ccsim")
    long = ["--set", "simulation.duration=100000s", "--set", "traces[0].interval=100s", "--set", "traces[1].interval=100s"]
    for sig in (signal.SIGINT, signal.SIGKILL):
        p = subprocess.Popen([str(exe), "run", str(scen), "--out", str(out), "-q", *long], cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(2.5)
        p.send_signal(sig)
        p.communicate(timeout=60)
        assert _digest(out) == before, f"results changed after {sig!r}"
    # The killed run's staging folder goes with the next run; nothing partial is left.
    r = ccsim_cli("run", scen, "--out", out, "-q", "--set", "simulation.duration=10s", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    assert not list(out.rglob("*.partial"))
    modes = {oct(p.stat().st_mode & 0o777) for p in out.rglob("*") if p.is_file()}
    assert modes == {oct(0o666 & ~_umask())}, modes


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


def test_8_out_must_be_a_results_folder(tmp_path, two_node):
    f = tmp_path / "afile"
    f.write_text("x")
    t0 = time.perf_counter()
    _assert_clean_failure(ccsim_cli("run", two_node, "--out", f), "--out")
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    _assert_clean_failure(ccsim_cli("run", two_node, "--out", other), "--out")
    assert (other / "notes.txt").read_text() == "keep me"
    if os.geteuid() != 0:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        _assert_clean_failure(ccsim_cli("run", two_node, "--out", ro / "x"), "--out")
    # Folders no one may write, even root (they were an "internal error", exit 1).
    _assert_clean_failure(ccsim_cli("run", two_node, "--out", "/sys/ccsim-test"), "--out: cannot write /sys/ccsim-test")
    _assert_clean_failure(ccsim_cli("run", two_node, "--out", "/proc/ccsim-nope/x"), "/proc/ccsim-nope")
    assert time.perf_counter() - t0 < 30


def test_8_out_replaces_only_what_an_earlier_run_wrote(tmp_path, two_node):
    """A folder is replaced only when it holds nothing but an earlier run's results: a
    stray summary.json, hidden files, or a file added to a results folder make it refused,
    with every file left as it was (a folder with any summary.json had been replaced whole,
    `.git` and all)."""
    def refused(folder, named):
        before = _digest(folder)
        r = ccsim_cli("run", two_node, "--out", folder, "-q")
        _assert_clean_failure(r, "--out")
        assert named in r.stderr, r.stderr
        assert _digest(folder) == before

    fake = tmp_path / "fake"
    (fake / "data").mkdir(parents=True)
    (fake / "summary.json").write_text("{}")
    (fake / "data" / "results.csv").write_text("precious")
    refused(fake, "data/, summary.json")
    hidden = tmp_path / "hidden"
    (hidden / ".git").mkdir(parents=True)
    (hidden / ".git" / "HEAD").write_text("ref")
    (hidden / ".env").write_text("SECRET=1")
    refused(hidden, ".env, .git/")
    res = tmp_path / "res"
    assert ccsim_cli("run", two_node, "--out", res, "-q").returncode == 0
    assert ccsim_cli("run", two_node, "--out", res, "-q").returncode == 0  # an earlier run's: replaced
    (res / "notes.txt").write_text("mine")
    refused(res, "notes.txt")
    (res / "notes.txt").unlink()
    (res / "series").mkdir(exist_ok=True)
    (res / "series" / "extra.parquet").write_text("not ccsim's")
    refused(res, "series/extra.parquet")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert ccsim_cli("run", two_node, "--out", empty, "-q").returncode == 0
    # A file manager's litter is not the user's data (a folder Finder had shown was refused).
    (res / "series" / "extra.parquet").unlink()
    for folder in (tmp_path / "shown", res):
        folder.mkdir(exist_ok=True)
        (folder / ".DS_Store").write_text("finder")
        if (folder / "series").is_dir():
            (folder / "series" / "Thumbs.db").write_text("explorer")
        r = ccsim_cli("run", two_node, "--out", folder, "-q")
        assert r.returncode == 0, r.stderr
        assert (folder / "summary.json").is_file()
    (res / ".DS_Store").mkdir()  # a folder of that name is not litter
    refused(res, ".DS_Store/")


COLLIDING = """
nodes = ["a", "b-c", "a-b", "c"]
[simulation]
duration = "1s"
[[links]]
a = "a"
b = "b-c"
rate = "10Mbps"
delay = "1ms"
[[links]]
name = "L2"
a = "a-b"
b = "c"
rate = "10Mbps"
delay = "1ms"
[[flows]]
name = "f x"
kind = "cbr"
src = "a"
dst = "b-c"
rate = "1Mbps"
[[flows]]
name = "f_x"
kind = "cbr"
src = "a-b"
dst = "c"
rate = "5Mbps"
[[traces]]
kind = "queue"
link = "a->b-c"
[[traces]]
kind = "queue"
link = "a-b->c"
[[flows]]
name = "g"
kind = "cbr"
src = "a"
dst = "b-c"
rate = "2Mbps"
[[flows]]
name = "G"
kind = "cbr"
src = "a"
dst = "b-c"
rate = "3Mbps"
[[traces]]
kind = "flow"
flow = "*"
"""


def test_8_series_whose_file_names_collide_are_all_kept(tmp_path):
    """`a->b-c` and `a-b->c` (or flows `f x` and `f_x`) make the same file-safe name: each
    series gets a file of its own (the later `~2`), saved, loaded and read from a sweep's
    catalog as the run made it (the last one written had been read for both)."""
    scen = _write(tmp_path, COLLIDING)
    res = ccsim.run(scen)
    want = {n: res.series(n) for n in res.series_names}
    assert {"queue:a->b-c", "queue:a-b->c", "flow:f x", "flow:f_x", "flow:g", "flow:G"} <= set(want)
    assert want["queue:a->b-c"]["arrivals"].iloc[-1] != want["queue:a-b->c"]["arrivals"].iloc[-1]
    back = ccsim.Results.load(res.save(tmp_path / "out"))
    files = sorted(p.name for p in (tmp_path / "out" / "series").iterdir())
    assert "queue_a-b-c.parquet" in files and "queue_a-b-c~2.parquet" in files and "flow_f_x~2.parquet" in files
    # Names that differ only in case: one file on a case-insensitive file system.
    assert "flow_g.parquet" in files and "flow_G~2.parquet" in files
    for n, df in want.items():
        assert back.series(n).equals(df), n
    base = ccsim.load(scen)
    r = ccsim.sweep(base, name="coll", out=tmp_path / "sw", workers=1, progress=False)
    with ccsim.Catalog(tmp_path / "sw") as c:
        rid = c.runs("coll")["run_id"][0]
        for n, df in want.items():
            assert c.series(rid, n).equals(df), n
    assert r.failed == 0


# 9. A full disk during a catalog commit; a sweep with failed runs -------------------------------

def test_9_the_real_error_of_a_failed_commit(tmp_path, monkeypatch):
    import duckdb

    from ccsim.catalog import Catalog

    cat = Catalog(tmp_path, create=True)
    real = cat.con

    class Full:
        def execute(self, q, *a):
            if q == "COMMIT":
                real.execute("ROLLBACK")
                raise duckdb.IOException("IO Error: No space left on device")
            return real.execute(q, *a)

        def __getattr__(self, k):
            return getattr(real, k)

    cat.con = Full()
    with pytest.raises(OSError) as e:
        cat.record(run_id="r", version="v", sweep="s", params={}, seed=1, status="ok", error=None, meta={}, metrics={"x": 1.0},
                   tables=None)
    assert "no space left" in str(e.value).lower()
    real.close()


def test_9_a_sweep_with_a_failed_run_exits_non_zero(monkeypatch):
    from typer.testing import CliRunner

    import ccsim.cli as cli

    sweep_mod = sys.modules["ccsim.sweep"]

    class Res:
        total, ran, cached, failed, out = 3, 3, 0, 1, Path("x")

        def summary(self, m):
            import pandas as pd

            return pd.DataFrame()

        def runs(self):
            import pandas as pd

            return pd.DataFrame({"status": ["ok", "ok", "failed"], "error": [None, None, "RuntimeError: boom\ntrace"]})

    monkeypatch.setattr(sweep_mod, "sweep", lambda *a, **k: Res())
    monkeypatch.setattr(sweep_mod, "load_sweep", lambda p: type("S", (), {"name": "s", "metrics": []})())
    r = CliRunner().invoke(cli.app, ["sweep", "whatever.toml", "-q"])
    assert r.exit_code == 1
    assert "1 of 3 runs failed" in r.output and "RuntimeError: boom" in r.output


# 10. One exception family in the Python API ----------------------------------------------------

@pytest.mark.parametrize("mutate,path", [
    (lambda d: d["simulation"].__setitem__("duration", float("nan")), "simulation.duration"),
    (lambda d: d["links"][0].__setitem__("rate", float("inf")), "links[0].rate"),
    (lambda d: d["flows"][0].__setitem__("rate", 10**40), "flows[0].rate"),
    (lambda d: d.__setitem__("deep", _nested(200)), ""),
    (lambda d: d["flows"][0].__setitem__("extra", object()), "flows[0].extra"),
])
def test_10_invalid_data_raises_scenario_error_with_its_path(mutate, path):
    d = ccsim.loads(TWO_NODE)
    mutate(d)
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(d)
    assert isinstance(e.value, ValueError)
    assert e.value.errors[0][0].startswith(path), e.value.errors


def _nested(n):
    d: dict = {}
    for _ in range(n):
        d = {"x": d}
    return d


@pytest.mark.parametrize("kwargs", [{"seed": "x"}, {"seed": []}, {"seed": -1}, {"seed": 2**70}, {"seed": True},
                                    {"overrides": 5}, {"overrides": ["nonsense"]}, {"overrides": {"a..b": 1}},
                                    {"per_hop_events": "yes"}])
def test_10_bad_arguments_raise_scenario_error(kwargs):
    with pytest.raises(ccsim.ScenarioError):
        ccsim.run(ccsim.loads(TWO_NODE), **kwargs)


def test_10_a_scenario_of_the_wrong_type():
    for bad in (5, None, [1, 2], b"bytes"):
        with pytest.raises(ccsim.ScenarioError):
            ccsim.validate(bad)
    with pytest.raises(ccsim.ScenarioError):
        ccsim.validate("/no/such/file.toml")
    with pytest.raises(ccsim.ScenarioError):
        ccsim.validate("bad\x00name.toml")


# 11. Errors a new user meets -------------------------------------------------------------------

def test_11_a_wrong_kind_is_one_error(tmp_path):
    text = TWO_NODE.replace('queue = { kind = "droptail", limit = 100 }', 'queue = { kind = "fifo", limit = 100 }')
    r = ccsim_cli("validate", _write(tmp_path, text))
    _assert_clean_failure(r, "links[0].queue.kind")
    assert "unknown field" not in r.stderr
    d = ccsim.loads(TWO_NODE)
    d["flows"][0]["kind"] = "udp"
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.validate(d)
    assert [p for p, _ in e.value.errors] == ["flows[0].kind"]
    d = ccsim.loads(TWO_NODE.replace('kind = "cbr"', 'kind = "tcp"').replace('rate = "1Mbps"\npacket_size = "1500B"', 'profile = "bsd"\nwindow = 20'))
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.validate(d)
    assert [p for p, _ in e.value.errors] == ["flows[0].profile"]


def test_11_a_broken_flow_or_topology_gives_no_false_trace_error():
    """A trace (or element) naming a flow that was left out for its own error, or because
    the topology is broken, is not reported as naming no flow: only the real error is."""
    base = {
        "name": "t", "simulation": {"duration": 1},
        "dumbbell": {"senders": 1, "access_rate": "100Mbps", "access_delay": "1ms",
                     "bottleneck_rate": "10Mbps", "bottleneck_delay": "5ms"},
        "flows": [{"name": "f", "kind": "tcp", "src": "s0", "dst": "d0"}],
        "traces": [{"kind": "flow", "flow": "f"}],
    }

    def paths(mutate):
        d = copy.deepcopy(base)
        mutate(d)
        with pytest.raises(ccsim.ScenarioError) as e:
            ccsim.validate(d)
        return [p for p, _ in e.value.errors]

    assert paths(lambda d: d["dumbbell"].update(bottleneck_rate="-1Mbps")) == ["dumbbell.bottleneck_rate"]
    assert paths(lambda d: d["flows"][0].update(dst="d9")) == ["flows[0].dst"]
    assert paths(lambda d: d["flows"][0].update(kind="udp")) == ["flows[0].kind"]
    # A name that no flow has is still an error, also beside a flow left out for its own.
    assert paths(lambda d: d["traces"][0].update(flow="g")) == ["traces[0].flow"]
    assert paths(lambda d: (d["flows"][0].update(kind="udp"), d["traces"].append({"kind": "flow", "flow": "g"}))) == [
        "flows[0].kind", "traces[1].flow"]
    # A counted entry left out covers its instances' names, and only those.
    assert paths(lambda d: (d["flows"][0].update(count=2, kind="udp"), d["traces"][0].update(flow="f-1"))) == ["flows[0].kind"]
    assert paths(lambda d: (d["flows"][0].update(count=2, kind="udp"), d["traces"][0].update(flow="f-2"))) == [
        "flows[0].kind", "traces[0].flow"]
    ccsim.validate(base)


def test_11_two_sweeps_into_one_folder(tmp_path):
    import duckdb

    out = tmp_path / "out"
    out.mkdir()
    holder = duckdb.connect(str(out / "catalog.duckdb"))
    try:
        sw = _write(tmp_path, f'name = "x"\nbase = "{(EXAMPLES / "dumbbell_cbr.toml").as_posix()}"\n[grid]\n"dumbbell.queue.limit" = [20]\n',
                    "sw.toml")
        r = ccsim_cli("sweep", sw, "--out", out, "-q")
        _assert_clean_failure(r, "another process is using")
    finally:
        holder.close()


def test_11_an_unreachable_dask_scheduler(tmp_path):
    sw = _write(tmp_path, f'name = "x"\nbase = "{(EXAMPLES / "dumbbell_cbr.toml").as_posix()}"\n[grid]\n"dumbbell.queue.limit" = [20]\n',
                "sw.toml")
    t0 = time.perf_counter()
    r = ccsim_cli("sweep", sw, "--out", tmp_path / "o", "--dask", "tcp://127.0.0.1:9", "-q", timeout=120)
    _assert_clean_failure(r, "--dask")
    assert time.perf_counter() - t0 < 40
    # Not an address at all: said so, not "cannot reach ... within 10 s".
    bogus = ccsim_cli("sweep", sw, "--out", tmp_path / "o2", "--dask", "bogus", "-q", timeout=120)
    _assert_clean_failure(bogus, "--dask")
    assert "'bogus' is not a Dask scheduler address" in bogus.stderr, bogus.stderr
    assert "to run on" not in bogus.stderr + bogus.stdout  # refused before the sweep said where it runs
    # A refused sweep leaves no empty catalog (nor folder) behind; one into an earlier
    # sweep's folder leaves its catalog as it was, this sweep unrecorded.
    assert not (tmp_path / "o").exists() and not (tmp_path / "o2").exists()
    ok = tmp_path / "ok"
    assert ccsim_cli("sweep", sw, "--out", ok, "-q", timeout=120).returncode == 0
    sw2 = _write(tmp_path, f'name = "y"\nbase = "{(EXAMPLES / "dumbbell_cbr.toml").as_posix()}"\n[grid]\n"dumbbell.queue.limit" = [30]\n',
                 "sw2.toml")
    _assert_clean_failure(ccsim_cli("sweep", sw2, "--out", ok, "--dask", "bogus", "-q", timeout=120), "--dask")
    with ccsim.Catalog(ok) as c:
        assert len(c.runs("x")) == 1
        with pytest.raises(ccsim.ScenarioError, match="no sweep named 'y'"):
            c.runs("y")


def test_11_warnings_for_a_bare_rate_and_a_late_flow(tmp_path):
    text = TWO_NODE.replace('rate = "1Mbps"', "rate = 10").replace('packet_size = "1500B"', 'packet_size = "1500B"\nstart = "5s"')
    r = ccsim_cli("validate", _write(tmp_path, text))
    assert r.returncode == 0, r.stderr
    assert "warning: flows[0].rate: a number without a unit is bit/s" in r.stderr
    assert "starts at 5 s, at or after the end of the run" in r.stderr
    with pytest.warns(ccsim.ScenarioWarning) as caught:
        ccsim.validate(ccsim.loads(text))
    said = [str(w.message) for w in caught]
    assert any("without a unit" in m for m in said) and any("at or after the end of the run" in m for m in said), said
    # A quoted number too (it had passed silently as 10 bit/s).
    with pytest.warns(ccsim.ScenarioWarning, match="without a unit is bit/s: 10 bit/s"):
        ccsim.validate(ccsim.loads(TWO_NODE.replace('rate = "1Mbps"', 'rate = "10"')))


def test_a_quoted_queue_limit_needs_a_unit(tmp_path):
    """A number is packets, a size bytes: "1000" had silently meant 1000 bytes (one packet;
    "10" dropped every packet of an idle link)."""
    text = TWO_NODE.replace("limit = 100 }", 'limit = "1000" }')
    assert 'limit = "1000"' in text
    r = ccsim_cli("validate", _write(tmp_path, text))
    assert r.returncode == 2 and "limit: queue limit '1000' has no unit: write 1000 (packets)" in r.stderr, r.stderr
    # Any number without a unit (it was bytes in exponent or decimal form).
    for odd in ('"1e3"', '"1000."', '"1.5e3"'):
        r = ccsim_cli("validate", _write(tmp_path, text.replace('"1000"', odd)))
        assert r.returncode == 2 and "has no unit" in r.stderr, r.stderr
    # 1000 bytes is a valid limit, which the flow's 1500-byte packets never fit (a warning).
    with pytest.warns(ccsim.ScenarioWarning, match="holds 1000 bytes, less than the 1500-byte packets of flow 'f'"):
        ccsim.validate(ccsim.loads(text.replace('"1000"', '"1000B"')))
    for ok in ('"1000pkt"', "1000"):
        ccsim.validate(ccsim.loads(text.replace('"1000"', ok)))


def test_11_warnings_for_runs_that_would_take_hours_or_exhaust_memory(tmp_path):
    # An open-loop source at 1 Pb/s into 10 Mb/s: 8e10 packets, each an event (it ran for
    # minutes with no word); a generator opening 1e9 flows/s that its hosts cannot carry
    # (memory grew without bound until the allocator aborted).
    fast = ccsim_cli("validate", _write(tmp_path, TWO_NODE.replace('rate = "1Mbps"', 'rate = "1e15bps"')))
    assert fast.returncode == 0 and "the open-loop flows offer up to 8.3e10 packets in the run (flow 'f'" in fast.stderr
    assert "may take 2 hours or more" in fast.stderr, fast.stderr
    web = ccsim.load(EXAMPLES / "web_traffic.toml")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ccsim.validate(web)  # 40 flows/s of 60 KB: no warning
    web["generators"][0]["arrivals"]["rate"] = 1e9
    with pytest.warns(ccsim.ScenarioWarning, match=r"generator 'left-to-right' offers 4\.80e14 b/s .* 60000× what its senders' links carry .* lower arrivals.rate"):
        ccsim.validate(web)
    # A bounded burst its links clear at once is no overload.
    web["generators"][0]["max_flows"] = 50
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ccsim.validate(web)
    # An on-off source sends a packet at the start of every burst: bursts and pauses of
    # 1 ns at 1 Mb/s offer 5e8 packets a second, not the 83 its rate alone gives (no warning).
    onoff = TWO_NODE.replace('kind = "cbr"', 'kind = "onoff"\non_mean = "1ns"\noff_mean = "1ns"').replace('duration = "1s"', 'duration = "10s"')
    assert 'on_mean = "1ns"' in onoff
    r = ccsim_cli("validate", _write(tmp_path, onoff))
    assert r.returncode == 0 and "the open-loop flows offer up to 5.0e9 packets in the run (flow 'f'" in r.stderr, r.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ccsim.validate(ccsim.loads(onoff.replace('"1ns"', '"1ms"')))


def test_11_many_late_flows_give_a_few_warnings(tmp_path):
    # 5 flows from one entry, all after the end: three named, one line for the other two.
    text = TWO_NODE.replace('name = "f"', 'name = "f{i}"\ncount = 5').replace('packet_size = "1500B"', 'packet_size = "1500B"\nstart = "5s"')
    r = ccsim_cli("validate", _write(tmp_path, text))
    assert r.returncode == 0, r.stderr
    assert [ln for ln in r.stderr.splitlines() if "at or after the end of the run" in ln] == [
        "warning: flows: flow 'f0' starts at 5 s, at or after the end of the run (1 s): it sends nothing",
        "warning: flows: flow 'f1' starts at 5 s, at or after the end of the run (1 s): it sends nothing",
        "warning: flows: flow 'f2' starts at 5 s, at or after the end of the run (1 s): it sends nothing",
        "warning: flows: 2 more flows start at or after the end of the run (1 s): they send nothing",
    ], r.stderr


def test_an_error_in_a_users_paper_module_shows_its_traceback(tmp_path):
    """`reproduce --module` runs the user's code: its errors are theirs to fix, so they get
    the file, the line and the traceback (they had read "ccsim: internal error: KeyError")."""
    bad = _write(tmp_path, "import ccsim.papers\n\ndef broken():\n    raise RuntimeError('boom')\n\nbroken()\n", "bad_paper.py")
    r = ccsim_cli("reproduce", "--module", bad, "--quick", "--out", tmp_path / "o", "-q")
    assert r.returncode == 1, r.stderr
    assert f"error in {bad.resolve()}, line 4:" in r.stderr and "Traceback" in r.stderr
    assert "RuntimeError: boom" in r.stderr and "internal error" not in r.stderr
    # A syntax error too (no frame of the file in its traceback).
    bad.write_text("def broken(:\n")
    r = ccsim_cli("reproduce", "--module", bad, "--quick", "--out", tmp_path / "o", "-q")
    assert r.returncode == 1 and f"error in {bad.resolve()}, line 1:" in r.stderr and "SyntaxError" in r.stderr, r.stderr


def test_a_capture_folder_that_cannot_be_made(tmp_path):
    """`ccsim run` without --out writes captures into ./pcap: a file of that name is a clean
    exit 2 naming it (it had been an internal error from the engine's set-up)."""
    (tmp_path / "pcap").write_text("not a folder")
    scen = _write(tmp_path, TWO_NODE + '[[traces]]\nkind = "pcap"\nlink = "a->b"\n')
    r = ccsim_cli("run", scen, "-q", cwd=tmp_path)
    assert r.returncode == 2 and "pcap_dir: the captures go to pcap, which is a file; give a folder" in r.stderr, r.stderr


def test_fifth_trials_slips_name_what_to_do(tmp_path):
    """A fifth new-user trial's slips: each a ScenarioError or exit 2 naming the field
    (they were bare FileNotFoundErrors, an internal staging name, or unknown-field lists)."""
    from ccsim.catalog import Catalog

    # A sweep file given to `run` or `validate`.
    for cmd in ("run", "validate"):
        r = ccsim_cli(cmd, EXAMPLES / "sweeps" / "buffers.toml")
        _assert_clean_failure(r, "is a sweep file (base, no [simulation]), not a scenario: run it with `ccsim sweep")
    # Captures that cannot go where asked; a results folder that is not one.
    d = ccsim.loads(TWO_NODE)
    d["traces"] = [{"kind": "pcap", "link": "a->b"}]
    with pytest.raises(ccsim.ScenarioError, match=r"^pcap_dir: cannot create /proc/nope for the captures"):
        ccsim.run(d, pcap_dir="/proc/nope")
    with pytest.raises(ccsim.ScenarioError, match=r"^out: .*/missing holds no results \(no such folder\)"):
        ccsim.Results.load(tmp_path / "missing")
    # --out where nothing can be created: the user's folder named, not the staging one.
    r = ccsim_cli("run", EXAMPLES / "dumbbell_cbr.toml", "-q", "--out", "/proc/x")
    _assert_clean_failure(r, "--out: cannot write /proc/x (nothing can be created in /proc")
    assert ".partial" not in r.stderr
    # A stored table or run a catalog does not hold.
    base = ccsim.load(EXAMPLES / "dumbbell_cbr.toml")
    base["simulation"]["duration"] = "2s"
    res = ccsim.sweep(base, name="t", out=tmp_path / "s", workers=1)
    with Catalog(tmp_path / "s") as c:
        rid = res.run_ids[0]
        with pytest.raises(ccsim.ScenarioError, match=rf"^name: run {rid} has no table 'nosuch'; it has: drops, elements, .*, series/queue_r0-r1"):
            c.table(rid, "nosuch")
        with pytest.raises(ccsim.ScenarioError, match=r"^run_id: no run 'r0' in "):
            c.series("r0", "queue:r0->r1")
    # A name with '->' would shadow a link direction in traces and filters.
    d = ccsim.loads(TWO_NODE)
    d["links"][0]["name"] = "b->a"
    with pytest.raises(ccsim.ScenarioError, match=r"links\[0\]\.name: link name 'b->a' contains '->'"):
        ccsim.validate(d)


def test_fifth_trials_silent_cases_warn_or_refuse(tmp_path):
    """Field paths that only looked like a path were read as another; a generator that
    opens nothing, and a segment larger than an IPv4 packet in a capture, passed silently."""
    d = ccsim.loads(TWO_NODE)
    for bad in ("flows[0]..rate", "flows[0]rate", ".flows[0].rate", "flows[0]. rate", "flows [0].rate", "flows[00].rate"):
        with pytest.raises(ccsim.ScenarioError, match="invalid field path: keys joined by single dots"):
            ccsim.run(d, overrides=[f"{bad}=2Mbps"])
    assert ccsim.run(d, overrides=["flows[0].rate=2Mbps"]).flows["goodput_bps"].iloc[0] > 1.5e6
    times = tmp_path / "times.txt"
    times.write_text("", encoding="utf-8")
    gen = {"name": "g", "src": "a", "dst": "b", "size": {"kind": "fixed", "value": "10KB"}, "transport": {"kind": "tcp"}}
    for arrivals, extra, why in [({"kind": "poisson", "rate": 10}, {"stop": "0s"}, "stops at or before its start"),
                                 ({"kind": "times", "file": str(times)}, {}, "has no arrival times"),
                                 ({"kind": "times", "times": [5.0]}, {}, "has no arrival time between its start and its stop")]:
        g = {**copy.deepcopy(gen), "arrivals": arrivals, **extra}
        with pytest.warns(ccsim.ScenarioWarning, match=f"generator 'g' {why}"):
            ccsim.validate({**ccsim.loads(TWO_NODE), "generators": [g]})
    # A host range past the hosts: one error for the list, not one per name.
    g = {**copy.deepcopy(gen), "arrivals": {"kind": "poisson", "rate": 10}, "src": "a{0..99}"}
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.validate({**ccsim.loads(TWO_NODE), "generators": [g]})
    assert str(e.value) == "generators[0].src: no nodes named 'a0' … 'a99' (100 names of this list name no node)", str(e.value)
    d = ccsim.loads(TWO_NODE)
    d["flows"] = [{"name": "t", "kind": "tcp", "src": "a", "dst": "b", "mss": 70000}]
    d["traces"] = [{"kind": "pcap", "link": "a->b"}]
    with pytest.warns(ccsim.ScenarioWarning, match="flow 't' sends packets larger than an IPv4 packet can be"):
        ccsim.validate(d)
    d["flows"][0].update(mss=65490, profile="linux")  # with its 12 bytes of timestamps
    with pytest.warns(ccsim.ScenarioWarning, match="flow 't' sends packets larger"):
        ccsim.validate(d)
    d["flows"][0]["mss"] = 9000
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ccsim.validate(d)


def test_sixth_trials_silent_cases_warn():
    """A queue limited in bytes below a flow's packets dropped every packet, even on an idle
    link, and a datagram over 65 535 bytes was cut in a capture, both without a word."""
    d = ccsim.loads(TWO_NODE)
    d["links"][0]["queue"]["limit"] = "999B"  # the flow's packets are 1 500 bytes
    with pytest.warns(ccsim.ScenarioWarning, match=r"link 'a-b': the queue of a->b holds 999 bytes, less than the "
                                                   r"1500-byte packets of flow 'f': each is dropped on arrival"):
        r = ccsim.run(d)
    assert r.flows["goodput_bps"].iloc[0] == 0
    # A TCP flow's packets are its segment with headers (ns2: 1 000 + 40); its ACKs do not count.
    d["flows"] = [{"name": "t", "kind": "tcp", "src": "a", "dst": "b"}]
    d["links"][0]["queue"]["limit"] = "1039B"
    with pytest.warns(ccsim.ScenarioWarning, match="1040-byte packets of flow 't'"):
        ccsim.validate(d)
    d["links"][0]["queue"]["limit"] = "1040B"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ccsim.validate(d)
    # A generator's flows too; and a limit of 0 packets says what is allowed.
    d["generators"] = [{"name": "g", "src": "a", "dst": "b", "arrivals": {"kind": "poisson", "rate": 1},
                        "size": {"kind": "fixed", "value": "10KB"}, "transport": {"kind": "tcp", "mss": 1460}}]
    with pytest.warns(ccsim.ScenarioWarning, match="1500-byte packets of generator 'g'"):
        ccsim.validate(d)
    d["links"][0]["queue"]["limit"] = 0
    with pytest.raises(ccsim.ScenarioError, match=r"links\[0\]\.queue\.limit: invalid queue limit 0: give packets as a "
                                                  r"whole number of at least 1"):
        ccsim.validate(d)
    d = ccsim.loads(TWO_NODE)
    d["flows"][0]["packet_size"] = "100000B"
    d["traces"] = [{"kind": "pcap", "link": "a->b"}]
    with pytest.warns(ccsim.ScenarioWarning, match="flow 'f' sends packets larger than an IPv4 packet can be"):
        ccsim.validate(d)


@pytest.mark.parametrize("change, only", [
    # `nodes` misplaced under [simulation]: one error for the undeclared nodes, not one per link end.
    (lambda d: d["simulation"].update(nodes=d.pop("nodes")), "simulation.nodes: unknown field"),
    (lambda d: d["elements"][0].update(meter="tokenbucket"), "elements[0].meter: unknown value 'tokenbucket'"),
    (lambda d: d["elements"][1].update(rtt="-1ms"), "elements[1].rtt: time must not be negative"),
    (lambda d: d["elements"][1].update(buffer=-1), "elements[1].buffer: expected a whole number from 0 to 1000000"),
    (lambda d: d["dumbbell"]["queue"].update(mode="rio_x"), "dumbbell.queue.mode: unknown value 'rio_x'"),
])
def test_one_slip_one_error(change, only):
    """A refused value stands alone: a fifth trial saw an unknown meter also report its
    table's fields as unknown, a negative rtt or buffer also as missing, and an unknown RIO
    mode report its thresholds as unknown."""
    d = ccsim.load(EXAMPLES / ("udt_rttpred.toml" if "nodes" in only else "assured_service.toml"))
    change(d)
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.validate(d)
    if "nodes" in only:
        assert str(e.value).startswith("2 problems:") and "no node is declared, but links name nodes" in str(e.value)
        assert "no node named" not in str(e.value), str(e.value)
    else:
        assert str(e.value).startswith(only) and "\n" not in str(e.value), str(e.value)


def test_an_elements_misspelt_field_is_reported_with_what_it_left_missing():
    """An element refused for a missing field (`rate`) did not report its unknown ones
    (`rat`), so the message hid the misspelling that caused it. Every element table of
    the examples, each field removed in turn: no field the kind reads is called unknown,
    and a misspelt one always is, unless the table was refused for a choice (an unknown
    meter), on which the fields it reads depend."""
    cells = {"kind": "cell", "limit": 1000}
    mcs = {"name": "mcs", "nodes": ["s", "sw", "r"], "simulation": {"duration": "0.1s"},
           "links": [{"a": "s", "b": "sw", "rate": "155Mbps", "delay": "5us", "reverse_queue": cells},
                     {"a": "sw", "b": "r", "rate": "155Mbps", "delay": "5us", "queue": cells}],
           "flows": [{"name": "f", "kind": "tcp", "src": "s", "dst": ["r"], "mss": 512, "handshake": False}],
           "elements": [{"kind": "aal5", "node": "s", "llc": True}, {"kind": "aal5", "node": "r"},
                        {"kind": "mcs", "node": "sw", "common_buffer": "40KB", "ack": "min", "spd": True,
                         "spd_threshold": 50, "resend": True, "resend_below": 10, "local_repair": True,
                         "resend_interval": "2ms", "llc": False}]}
    ccsim.validate(mcs)
    cases = [(p.name, ccsim.load(p)) for p in sorted(EXAMPLES.glob("*.toml"))] + [("mcs", mcs)]
    seen = set()
    for name, base in cases:
        for i, el in enumerate(base.get("elements", [])):
            seen.add(el["kind"])
            for key in [k for k in el if k not in ("kind", "node", "name")]:
                for typo in (False, True):
                    d = copy.deepcopy(base)
                    d["elements"][i].pop(key)
                    if typo:
                        d["elements"][i][key + "x"] = el[key]
                    try:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            ccsim.validate(d)
                        errors = []
                    except ccsim.ScenarioError as e:
                        errors = e.errors
                    unknown = [p for p, m in errors if m.startswith("unknown field")]
                    choice = any("(one of:" in m or m.startswith("unknown value") for _, m in errors)
                    where = f"{name} elements[{i}] without {key}"
                    assert unknown == ([f"elements[{i}].{key}x"] if typo and not choice else []), (where, errors)
    assert seen >= {"shaper", "policer", "marker", "aal5", "mcs"}, seen
    # A refused choice: the fields the kind would read are unknown, so none is reported.
    d = ccsim.load(EXAMPLES / "assured_service.toml")
    marker = next(e for e in d["elements"] if e["kind"] == "marker")
    marker["meter"] = "nope"
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.validate(d)
    assert not [m for _, m in e.value.errors if m.startswith("unknown field")], e.value.errors


def test_data_files_with_a_byte_order_mark_read_as_without(tmp_path):
    """A byte-order mark (spreadsheets write one) is not data: an arrival-times file that
    began with one had its first time refused, while scenario files and empirical
    distributions took it."""
    text = """
[simulation]
duration = "1s"
[dumbbell]
senders = 1
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
[[generators]]
src = "s0"
dst = "d0"
arrivals = { kind = "times", file = "times.txt" }
size = { kind = "empirical", file = "sizes.csv" }
transport = { kind = "tcp" }
"""
    fcts = []
    for bom in ("", "\ufeff"):
        folder = tmp_path / ("bom" if bom else "plain")
        folder.mkdir()
        (folder / "times.txt").write_text(bom + "0.1\n0.2\n0.35\n", encoding="utf-8")
        (folder / "sizes.csv").write_text(bom + "1000,0.5\n20000,1.0\n", encoding="utf-8")
        (folder / "s.toml").write_text(bom + text, encoding="utf-8")
        fcts.append(ccsim.run(folder / "s.toml").tables["fct"].to_pandas()[["start_s", "size_bytes", "fct_s"]])
    assert len(fcts[0]) == 3 and fcts[0].equals(fcts[1])
