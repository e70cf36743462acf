"""Core II from the user's side: node elements, multicast, traffic generators (the three
examples), the flow-completion table and its plot."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import ccsim
from ccsim import plot

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ccsim", *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def test_web_traffic_example_writes_an_fct_table_and_plots_it(tmp_path):
    out = tmp_path / "web"
    p = _cli("run", str(EXAMPLES / "web_traffic.toml"), "--out", str(out), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "generated flows" in p.stdout
    fct = pd.read_parquet(out / "fct.parquet")
    assert len(fct) >= 2000
    assert set(fct["generator"]) == {"left-to-right", "right-to-left"}
    done = fct[fct["end_s"].notna()]
    assert len(done) > 0.99 * len(fct)
    assert (done["fct_s"] > 0).all() and done["ideal_s"].notna().all()
    assert done["slowdown"].median() >= 1.0
    res = ccsim.Results.load(out)
    assert len(res.fct) == len(fct) == res.meta["flows_opened"]
    fig, axes = plot.fct(res)
    assert axes[0].get_xscale() == "log" and len(axes[1].lines) >= 4
    png = plot.save(fig, tmp_path / "fct.png")
    assert png.stat().st_size > 10_000


def test_plot_save_returns_the_file_it_writes(tmp_path):
    """A path without a suffix is written as .png, and that is the path returned (it had
    returned the suffix-less path, which does not exist); an empty path is refused; a plot
    of a run without generated flows warns of nothing."""
    import warnings

    res = ccsim.run(EXAMPLES / "dumbbell_cbr.toml")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig, axes = plot.fct(res)
    assert [t.get_text() for t in axes[0].texts] == ["no completed flows"]  # an empty plot had said nothing
    written = plot.save(fig, tmp_path / "q")
    assert written == tmp_path / "q.png" and written.is_file()
    with pytest.raises(ValueError, match="names no file"):
        plot.save(plot.fct(res)[0], "")
    # A folder is no file name (it had written q.png beside the folder); a suffix that is
    # no image format is part of the name.
    (tmp_path / "figs").mkdir()
    for folder in (tmp_path / "figs", f"{tmp_path / 'figs'}/"):
        with pytest.raises(ValueError, match="names no file"):
            plot.save(plot.fct(res)[0], folder)
    assert plot.save(plot.fct(res)[0], tmp_path / "figs" / "buf_0.5") == tmp_path / "figs" / "buf_0.5.png"
    assert plot.save(plot.fct(res)[0], tmp_path / "figs" / "a.pdf").suffix == ".pdf"


def test_a_line_through_two_swept_parameters_is_refused_naming_the_other():
    """A summary over two swept parameters drawn against one of them made one zig-zag line
    through both; it is refused, naming the parameter to give as hue=, which draws it."""
    import pandas as pd

    df = pd.DataFrame({"dumbbell.queue.limit": [10, 10, 50, 50], "flows[*].rate": ["9Mbps", "11Mbps"] * 2,
                       "n": 3, "mean": [1.0, 2.0, 3.0, 4.0], "std": 0.1, "ci_low": 0.5, "ci_high": 5.0})
    with pytest.raises(ccsim.ScenarioError, match=r"^x: 'dumbbell.queue.limit' takes a value more than once in one line "
                                                  r"\('flows\[\*\].rate' varies\): give hue= one of 'flows\[\*\].rate'"):
        plot.line(df, x="dumbbell.queue.limit")
    fig, ax = plot.line(df, x="dumbbell.queue.limit", hue="flows[*].rate")
    assert len(ax.get_lines()) == 2
    with pytest.raises(ccsim.ScenarioError, match=r"^x: no column 'limit'"):
        plot.line(df, x="limit")
    # bars and timeseries check their columns, and bars refuse a repeated x as line does
    # (a bare KeyError, and pandas' "cannot reindex on an axis with duplicate labels").
    with pytest.raises(ccsim.ScenarioError, match=r"^y: no column 'nope'"):
        plot.line(df, x="dumbbell.queue.limit", y="nope", hue="flows[*].rate")
    with pytest.raises(ccsim.ScenarioError, match=r"^x: 'dumbbell.queue.limit' takes a value more than once"):
        plot.bars(df, x="dumbbell.queue.limit")
    assert len(plot.bars(df, x="dumbbell.queue.limit", hue="flows[*].rate")[1].patches) == 4
    with pytest.raises(ccsim.ScenarioError, match=r"^x: no column 'time'"):
        plot.timeseries(df, y="mean")


def test_same_seed_gives_a_byte_identical_fct_file(tmp_path):
    digests = []
    for k in range(2):
        out = tmp_path / f"run{k}"
        p = _cli("run", str(EXAMPLES / "web_traffic.toml"), "--out", str(out), "--set", "simulation.duration=15s", "-q", cwd=tmp_path)
        assert p.returncode == 0, p.stderr
        digests.append(hashlib.sha256((out / "fct.parquet").read_bytes()).hexdigest())
    assert digests[0] == digests[1]


def test_shaper_and_policer_example():
    res = ccsim.run(EXAMPLES / "shaper.toml")
    el = res.elements.set_index("element")
    flows = res.flows.set_index("name")
    # The shaper lets 5 Mb/s through (plus one 15 KB burst over 10 s) and drops the rest.
    assert flows.loc["shaped", "goodput_bps"] == pytest.approx(5e6, rel=0.01)
    assert el.loc["tbf", "drops_buffer"] > 0 and el.loc["tbf", "max_queue_bytes"] <= 30_000
    # The policer re-marks about a quarter of a 4 Mb/s flow at 3 Mb/s, drops none.
    share = el.loc["police", "exceed_pkts"] / el.loc["police", "arrivals"]
    assert 0.2 < share < 0.3 and el.loc["police", "drops_policed"] == 0
    assert {"element:tbf", "element:police", "element:tbf:departures"} <= set(res.series_names)


def test_multicast_example():
    res = ccsim.run(EXAMPLES / "multicast.toml")
    rx = res.receivers.set_index("receiver")
    sent = int(res.flows["sent_pkts"][0])
    q = res.queues.set_index("direction")
    # The shared link carries each packet once; the clean branches deliver everything but
    # the few packets still on their way at the end.
    assert q.loc["r0->r1", "departures"] <= sent
    assert sent - 5 <= rx.loc["d0", "delivered_pkts"] <= sent and sent - 10 <= rx.loc["d1", "delivered_pkts"] <= sent
    # The slow, lossy branch to d2 loses what its queue and its wire drop.
    assert q.loc["r1->d2", "drops_overflow"] > 0 and q.loc["r1->d2", "drops_loss"] > 0
    on_d2 = q.loc["r1->d2", "departures"] - q.loc["r1->d2", "drops_loss"]
    assert on_d2 - 3 <= rx.loc["d2", "delivered_pkts"] <= on_d2
    assert rx.loc["d2", "delivered_pkts"] < 0.7 * rx.loc["d0", "delivered_pkts"]


def test_generator_errors_name_the_field():
    d = ccsim.load(EXAMPLES / "web_traffic.toml")
    d["generators"][0]["size"] = {"kind": "pareto", "mean": "-5KB"}
    d["generators"][1]["transport"] = {"kind": "onoff", "rate": "1Mbps"}
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.validate(d)
    paths = [p for p, _ in e.value.errors]
    assert "generators[0].size.mean" in paths and "generators[1].transport" in paths


def test_a_generator_data_file_that_is_not_a_regular_file(tmp_path):
    """A FIFO named as a data file would block the run (and the cache key's hash of it),
    /dev/zero would fill the memory: refused, naming the field."""
    import os

    os.mkfifo(tmp_path / "fifo")
    d = ccsim.load(EXAMPLES / "web_traffic.toml")
    d["generators"][0]["size"] = {"kind": "empirical", "file": str(tmp_path / "fifo")}
    d["generators"][1]["size"] = {"kind": "empirical", "file": "/dev/zero"}
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.validate(d)
    msgs = dict(e.value.errors)
    assert "not a regular file" in msgs["generators[0].size.file"] and "not a regular file" in msgs["generators[1].size.file"]
    from ccsim.catalog import scenario_hash
    assert scenario_hash(d)  # returns: the FIFO is not opened (it would block)


def test_generator_data_files_are_relative_to_the_scenario(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "sizes.csv").write_text("size,p\n1000,0\n5000,0.5\n20000,1\n")
    (tmp_path / "data" / "times.txt").write_text("0.1\n0.2\n# a comment\n0.5\n")
    scen = tmp_path / "s.toml"
    scen.write_text("""
nodes = ["a", "b"]
[simulation]
duration = "2s"
[[links]]
a = "a"
b = "b"
rate = "10Mbps"
delay = "5ms"
[[generators]]
src = "a"
dst = "b"
arrivals = { kind = "times", file = "data/times.txt" }
size = { kind = "empirical", file = "data/sizes.csv" }
transport = { kind = "tcp" }
""")
    p = _cli("run", str(scen), "--out", str(tmp_path / "out"), "-q", cwd=Path("/"))
    assert p.returncode == 0, p.stderr
    fct = pd.read_parquet(tmp_path / "out" / "fct.parquet")
    assert list(fct["start_s"]) == [0.1, 0.2, 0.5]
    assert fct["size_bytes"].between(1000, 20000).all()
