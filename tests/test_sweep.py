"""Sweeps: caching, resuming after a real kill, failures, Dask, reports."""

import datetime
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import ccsim
from ccsim.catalog import Catalog
from ccsim.sweep import load_sweep
from conftest import EXAMPLES, ROOT

SWEEP = """
name = "kill-test"
seeds = [1, 2]
[base]
name = "kt"
[base.simulation]
duration = "120s"
[base.dumbbell]
senders = 4
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
queue = { kind = "droptail", limit = 30 }
[[base.flows]]
kind = "tcp"
count = 4
src = "s{i}"
dst = "d{i}"
window = 1000
start_jitter = "1s"
[grid]
"dumbbell.queue.limit" = [10, 20, 40, 80, 160]
"""


def catalog_rows(path):
    """Everything deterministic in a catalog: runs and metrics, sorted."""
    con = duckdb.connect(str(Path(path) / "catalog.duckdb"), read_only=True)
    runs = con.execute("SELECT run_id, version, sweep, params, seed, status, error, events FROM runs ORDER BY run_id").fetchall()
    mets = con.execute("SELECT run_id, name, value FROM metrics ORDER BY run_id, name").fetchall()
    con.close()
    return runs, mets


def test_sweep_expands_grid_zip_and_seeds():
    spec = ccsim.SweepSpec(name="x", base=ccsim.load(EXAMPLES / "dumbbell_cbr.toml"),
                           grid={"dumbbell.queue.limit": [10, 20]}, zipped={"simulation.duration": ["1s", "2s", "3s"],
                                                                             "simulation.warmup": [0, "0.5s", "1s"]},
                           seeds=[1, 2])
    tasks = spec.tasks()
    assert len(tasks) == 2 * 3 * 2
    assert len({t.run_id for t in tasks}) == 12
    t = tasks[-1]
    assert t.scenario["dumbbell"]["queue"]["limit"] == 20 and t.scenario["simulation"]["duration"] == "3s"
    with pytest.raises(ccsim.ScenarioError, match="equal lengths"):
        ccsim.SweepSpec(name="x", base={}, zipped={"a": [1], "b": [1, 2]}).tasks()


def test_a_sweeps_name_stays_in_results_and_seeds_are_listed_once(tmp_path, monkeypatch):
    """A sweep's name is its default folder under results/: a name with a path in it had
    put the catalog wherever it pointed (`../x` outside results/). A seed listed twice had
    silently become one run."""
    monkeypatch.chdir(tmp_path)
    base = ccsim.load(EXAMPLES / "dumbbell_cbr.toml")
    for bad in ("../escape", "a/b", "..", "", "tab\there"):
        with pytest.raises(ccsim.ScenarioError, match="name"):
            ccsim.sweep(base, name=bad, workers=1)
    with pytest.raises(ccsim.ScenarioError, match="name"):  # an empty out is no out
        ccsim.sweep(base, name="../../escaped", out="", workers=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    sw = tmp_path / "s.toml"
    sw.write_text(f'name = "../escape"\nbase = "{(EXAMPLES / "dumbbell_cbr.toml").as_posix()}"\n')
    r = subprocess.run([sys.executable, "-m", "ccsim", "sweep", str(sw), "-q"], capture_output=True, text=True)
    assert r.returncode == 2 and "name: '../escape' is not a folder name" in r.stderr, r.stderr
    assert not (tmp_path.parent / "escape").exists() and not (tmp_path / "results").exists()
    # With an output folder given, the name is only a name.
    base["simulation"].update(duration="1.2s", warmup="0.2s")
    res = ccsim.sweep(base, name="a/b", out=tmp_path / "out", workers=1)
    assert res.ran == 1 and res.sweep == "a/b"
    with pytest.raises(ccsim.ScenarioError, match="seeds: seed 2 is listed more than once"):
        ccsim.sweep(base, seeds=[1, 2, 2], out=tmp_path / "out2", workers=1)
    assert not (tmp_path / "out2").exists()


def test_rerun_runs_nothing_and_says_so(tmp_path):
    lines = []
    base = ccsim.load(EXAMPLES / "dumbbell_cbr.toml")
    base["simulation"]["duration"] = "2s"
    r1 = ccsim.sweep(base, grid={"dumbbell.queue.limit": [10, 30]}, seeds=2, out=tmp_path, workers=1, log=lines.append)
    assert (r1.ran, r1.cached, r1.failed) == (4, 0, 0)
    r2 = ccsim.sweep(base, grid={"dumbbell.queue.limit": [10, 30]}, seeds=2, out=tmp_path, workers=1, log=lines.append)
    assert (r2.ran, r2.cached) == (0, 4)
    assert "nothing to run" in lines[-1]
    # Adding a seed runs only the new runs.
    r3 = ccsim.sweep(base, grid={"dumbbell.queue.limit": [10, 30]}, seeds=3, out=tmp_path, workers=1)
    assert (r3.ran, r3.cached) == (2, 4)
    s = r3.summary("queues.r0->r1.mean_len_pkts")
    assert list(s["n"]) == [3, 3]
    assert (s["ci_low"] <= s["mean"]).all() and (s["mean"] <= s["ci_high"]).all()
    assert s["mean"].iloc[1] > s["mean"].iloc[0]


def n_queued(res) -> dict:
    """A module-level `extract` (worker processes receive it by name)."""
    return {"n_queued": float(res.queues["max_len_pkts"].max())}


def test_typos_and_stale_extracts_are_said_not_silent(tmp_path, cli):
    """A metric or sweep the catalog never recorded is an error naming those it has; an
    `extract` that meets cached runs warns that they keep their stored metrics; the local
    pool's default size follows the CPU affinity; a catalog another process writes cannot
    be opened for reading, and the error says why (not `--out`)."""
    base = ccsim.load(EXAMPLES / "dumbbell_cbr.toml")
    base["simulation"]["duration"] = "2s"
    r = ccsim.sweep(base, name="t", grid={"dumbbell.queue.limit": [10, 30]}, seeds=1, out=tmp_path, workers=1)
    with pytest.raises(ccsim.ScenarioError, match=r"unknown metric 'total.goodput_bp' \(did you mean 'total.goodput_bps'.*\); recorded here: events, "):
        r.summary("total.goodput_bp")
    with Catalog(tmp_path, read_only=True) as c:
        with pytest.raises(ccsim.ScenarioError, match="no sweep named 'nosuch'.*it has: t"):
            c.summary("events", sweep="nosuch")
        assert list(c.summary("events", sweep="t")["n"]) == [1, 1]
    lines = []
    r2 = ccsim.sweep(base, name="t", grid={"dumbbell.queue.limit": [10, 30, 50]}, seeds=1, out=tmp_path, workers=1,
                     extract=n_queued, log=lines.append)
    assert r2.ran == 1 and list(r2.summary("n_queued")["n"]) == [1]  # only the new run has it
    with pytest.warns(UserWarning, match="every run is cached, so extract=n_queued was applied to none; if it is new, the 3"):
        r3 = ccsim.sweep(base, name="t", grid={"dumbbell.queue.limit": [10, 30, 50]}, seeds=1, out=tmp_path, workers=1,
                         extract=n_queued, log=lines.append)
    assert r3.ran == 0 and lines[-2].startswith("warning: t: every run is cached")
    # A process allowed one core (as `taskset -c 0` or a one-core Slurm job) gets one worker.
    one = subprocess.run([sys.executable, "-c", "import os, ccsim; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
                          f"b = ccsim.load({str(EXAMPLES / 'dumbbell_cbr.toml')!r}); b['simulation']['duration'] = '2s'; "
                          f"ccsim.sweep(b, name='one', seeds=2, out={str(tmp_path / 'one')!r}, log=print)"],
                         capture_output=True, text=True, check=True)
    assert "to run on 1 local worker(s)" in one.stdout, one.stdout
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text('name = "t"\nbase = "%s"\n[grid]\n"dumbbell.queue.limit" = [10, 30]\n' % (EXAMPLES / "dumbbell_cbr.toml"))
    out = cli("sweep", sweep_file, "--out", tmp_path / "cli", "-q", "-w", "1", "-m", "bogus.metric")
    assert out.returncode == 2 and "invalid option: --metric: unknown metric 'bogus.metric': a metric is one of" in out.stderr, out.stderr
    assert not (tmp_path / "cli").exists()  # refused before any run
    # A name only a run can tell (a flow's column) is warned of when the first run ends.
    out = cli("sweep", sweep_file, "--out", tmp_path / "cli", "-q", "-w", "1", "-m", "flows.cbr0.delay_men_s")
    assert out.returncode == 2 and "invalid option: metric: unknown metric 'flows.cbr0.delay_men_s'" in out.stderr, out.stderr
    warned = [ln for ln in out.stderr.splitlines() if ln.startswith("warning: metric 'flows.cbr0.delay_men_s' is not among")]
    assert len(warned) == 1 and "did you mean 'flows.cbr0.delay_mean_s'" in warned[0], out.stderr
    lines = out.stderr.splitlines()
    runs = [i for i, ln in enumerate(lines) if ln.startswith("run ")]
    assert len(runs) == 2 and lines.index(warned[0]) < runs[1], out.stderr  # said before the second run ended
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from ccsim.catalog import Catalog; "
                               f"c = Catalog({str(tmp_path)!r}); print('open', flush=True); time.sleep(30)"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        with pytest.raises(RuntimeError, match="open in another process .* finished run's files are in runs/"):
            Catalog(tmp_path, read_only=True)
    finally:
        holder.kill()
        holder.wait()


def test_metric_names_no_run_can_record_are_refused_before_any_run(tmp_path):
    """A sweep file's or a caller's metric outside the families every run records is an
    error naming the field, with the nearest name; an extract= function's own names pass."""
    base = ccsim.load(EXAMPLES / "dumbbell_cbr.toml")
    with pytest.raises(ccsim.ScenarioError, match=r"metrics: unknown metric 'total.goodput': .*did you mean 'total.goodput_bps'"):
        ccsim.sweep(base, name="t", out=tmp_path / "a", metrics=["total.goodput"])
    with pytest.raises(ccsim.ScenarioError, match=r"unknown metric 'queues.r0->r1.drops': a queue's columns are arrivals"):
        ccsim.sweep(base, name="t", out=tmp_path / "a", metrics=["queues.r0->r1.drops"])
    with pytest.raises(ccsim.ScenarioError, match=r"unknown metric 'flows.cbr0'"):
        ccsim.sweep(base, name="t", out=tmp_path / "a", metrics=["flows.cbr0"])
    with pytest.raises(ccsim.ScenarioError, match=r"^metrics: expected a list of metric names, e.g. \['total.goodput_bps'\]"):
        ccsim.sweep(base, name="t", out=tmp_path / "a", metrics="total.goodput_bps")
    assert not (tmp_path / "a").exists()
    f = tmp_path / "s.toml"
    f.write_text('name = "t"\nbase = "%s"\nmetrics = ["jain"]\n' % (EXAMPLES / "dumbbell_cbr.toml"))
    with pytest.raises(ccsim.ScenarioError, match=r"metrics: unknown metric 'jain'.*did you mean 'jain.goodput'"):
        load_sweep(f)
    base["simulation"]["duration"] = "2s"
    with pytest.warns(UserWarning, match="metric 'n_queud' is not among the 1.. the first finished run recorded") as w:
        r = ccsim.sweep(base, name="t", out=tmp_path / "b", workers=1, extract=n_queued,
                        metrics=["n_queued", "n_queud", "queues.r0->r1.utilization", "queues.r1->r0.drops_loss"])
    assert r.ran == 1
    # A direction that carried nothing in that run (r1->r0: CBR sends no ACKs) is not named:
    # another point may record it.
    assert all("queues." not in str(x.message) for x in w)
    with Catalog(tmp_path / "b") as c:
        rid = c.runs("t")["run_id"][0]
        with pytest.raises(ccsim.ScenarioError, match=r"^series_name: run .* has no series 'queue:r9->r1'; its series files "
                                                      r"are: .*\(a name's ':' stored as '_'"):
            c.series(rid, "queue:r9->r1")


def test_the_local_pool_from_piped_code_and_unguarded_scripts(tmp_path):
    """Workers do not re-run the caller's main script unless extract= is defined there:
    code piped to `python -` and scripts without a `__main__` guard can use the pool; an
    extract= the workers could not get is refused before any run, and an unguarded script
    defining its extract= fails saying why (before: a multiprocessing traceback)."""
    head = (f"import ccsim\nb = ccsim.load({str(EXAMPLES / 'dumbbell_cbr.toml')!r})\n"
            "b['simulation']['duration'] = '2s'\ndef ex(res):\n    return {'n_flows': len(res.flows)}\n")

    def sweep_call(out, extract):
        return (f"r = ccsim.sweep(b, name='p', grid={{'dumbbell.queue.limit': [10, 20]}}, out={str(tmp_path / out)!r}, "
                f"workers=2, extract={extract})\nprint('ran', r.ran, r.failed, sorted(r.metrics().columns))\n")

    def python(code, script=None):
        if script is None:
            return subprocess.run([sys.executable, "-"], input=code, capture_output=True, text=True, timeout=300)
        (tmp_path / script).write_text(code)
        return subprocess.run([sys.executable, str(tmp_path / script)], capture_output=True, text=True, timeout=300)

    piped = python(head + sweep_call("piped", None))
    assert piped.returncode == 0 and "ran 2 0" in piped.stdout, piped.stderr
    unguarded = python(head + sweep_call("unguarded", None), "unguarded.py")
    assert unguarded.returncode == 0 and "ran 2 0" in unguarded.stdout, unguarded.stderr
    guarded = python(head + "if __name__ == '__main__':\n" + "".join("    " + line + "\n" for line in
                                                                  sweep_call("guarded", "ex").splitlines()), "guarded.py")
    assert guarded.returncode == 0 and "ran 2 0" in guarded.stdout and "'n_flows'" in guarded.stdout, guarded.stderr
    bad = python(head + sweep_call("bad", "ex"), "bad.py")
    assert bad.returncode == 1 and 'guard the sweep with `if __name__ == "__main__":`' in bad.stderr, bad.stderr
    assert "RuntimeError: a sweep worker process ended abruptly" in bad.stderr
    piped_ex = python(head + sweep_call("piped_ex", "ex"))
    assert "ScenarioError: extract: ex is defined in code that worker processes cannot import" in piped_ex.stderr
    lam = python(head + sweep_call("lam", "lambda r: {}"))
    assert "ScenarioError: extract: <lambda> cannot be sent to worker processes" in lam.stderr
    # A partial of the script's function refers to the script too: its workers import it.
    partial = python("import functools\n" + head + "if __name__ == '__main__':\n" + "".join(
        "    " + line + "\n" for line in sweep_call("partial", "functools.partial(ex)").splitlines()), "partial.py")
    assert partial.returncode == 0 and "'n_flows'" in partial.stdout, partial.stderr
    assert not (tmp_path / "piped_ex").exists() and not (tmp_path / "lam").exists()
    # Every run cached: no worker starts, so any extract= will do (it was refused before).
    cached = python(head + sweep_call("piped", "lambda r: {}"))
    assert cached.returncode == 0 and "ran 0 0" in cached.stdout and "every run is cached" in cached.stderr, cached.stderr
    # A run left to do needs the workers: refused, before it runs, and the sweep's runs as
    # recorded stay those of its last accepted definition.
    more = python(head + sweep_call("piped", "lambda r: {}").replace("[10, 20]", "[30, 40]"))
    assert "ScenarioError: extract: <lambda> cannot be sent to worker processes" in more.stderr, more.stderr
    with Catalog(tmp_path / "piped", read_only=True) as c:
        assert list(c.metrics("p")["dumbbell.queue.limit"]) == [10, 20]


def test_a_redefined_sweep_reports_only_its_own_runs(tmp_path):
    """A sweep re-run under the same name with another base keeps the earlier runs in the
    catalog (cached for their own definition) but summarises only its own."""
    base = ccsim.load(EXAMPLES / "dumbbell_cbr.toml")
    base["simulation"]["duration"] = "3s"
    ccsim.sweep(base, name="same", grid={"dumbbell.queue.limit": [10, 30]}, seeds=2, out=tmp_path, workers=1)
    base["simulation"]["duration"] = "2s"
    r = ccsim.sweep(base, name="same", grid={"dumbbell.queue.limit": [10, 30]}, seeds=1, out=tmp_path, workers=1)
    assert (r.ran, len(r.run_ids)) == (2, 2)
    assert len(r.metrics()) == 2 and list(r.summary("events")["n"]) == [1, 1]
    # The catalog's queries by name see the sweep as last defined too (they mixed the 4
    # earlier runs in: n = 3 per point, means over both definitions).
    with Catalog(tmp_path, read_only=True) as c:
        assert len(c.metrics("same")) == 2 and list(c.summary("events", "same")["n"]) == [1, 1]
        assert len(c.runs("same")) == 2 and len(c.runs()) == 6


def test_sweeps_sharing_a_folder_each_see_their_own_runs(tmp_path):
    """A run cached from another sweep counts for the sweep that found it (its catalog
    queries had lost it: a sweep whose every point was cached had no runs at all)."""
    base = ccsim.load(EXAMPLES / "dumbbell_cbr.toml")
    base["simulation"]["duration"] = "2s"
    base["dumbbell"]["queue"]["limit"] = 25
    base["dumbbell"]["bottleneck_rate"] = "10Mbps"
    ccsim.sweep(base, name="A", grid={"dumbbell.bottleneck_rate": ["10Mbps", "12Mbps"]}, out=tmp_path, workers=1)
    b = ccsim.sweep(base, name="B", grid={"dumbbell.queue.limit": [25, 50]}, out=tmp_path, workers=1)
    c = ccsim.sweep(base, name="C", grid={"dumbbell.queue.limit": [25]}, out=tmp_path, workers=1)
    assert (b.ran, b.cached, c.ran, c.cached) == (1, 1, 0, 1)
    with Catalog(tmp_path, read_only=True) as cat:
        # The shared run under each sweep's own parameters (it was stored with A's).
        assert list(cat.summary("events", "B")["dumbbell.queue.limit"]) == [25, 50]
        assert list(cat.metrics("C").columns[:1]) == ["dumbbell.queue.limit"]
        assert list(cat.metrics("C")["dumbbell.queue.limit"]) == [25]
        assert list(cat.runs("C")["sweep"]) == ["A"]  # the sweep that ran it
        assert list(cat.runs("C")["params"]) == ['{"dumbbell.queue.limit":25}']
        assert list(b.metrics()["dumbbell.queue.limit"]) == [25, 50]


def test_a_generator_s_data_file_is_part_of_the_cache_key(tmp_path):
    """Editing a file a generator reads (arrival times, a size distribution) runs the
    scenario again: the cache had returned the runs made with the old contents."""
    (tmp_path / "times.txt").write_text("0.1\n0.2\n0.3\n")
    (tmp_path / "sizes.csv").write_text("1000,0.5\n2000,1.0\n")
    base = ccsim.load(EXAMPLES / "dumbbell_cbr.toml")
    base.update(flows=[], traces=[], generators=[{
        "name": "g", "src": "s0", "dst": "d0", "transport": {"kind": "tcp", "profile": "linux"},
        "arrivals": {"kind": "times", "file": str(tmp_path / "times.txt")},
        "size": {"kind": "empirical", "file": str(tmp_path / "sizes.csv")}}])
    base["simulation"].update(duration="3s", warmup=0)

    def go():
        return ccsim.sweep(base, name="files", grid={"dumbbell.queue.limit": [20]},
                           out=tmp_path / "out", workers=1)

    first = go()
    assert (first.ran, go().ran) == (1, 0)
    (tmp_path / "times.txt").write_text("0.1\n0.2\n0.3\n0.4\n0.5\n")
    again = go()
    assert again.ran == 1 and again.run_ids != first.run_ids
    with Catalog(tmp_path / "out", read_only=True) as c:
        assert len(c.table(again.run_ids[0], "fct")) == 5


def test_an_invalid_point_fails_the_sweep_before_anything_runs(tmp_path, cli):
    sw = tmp_path / "s.toml"
    sw.write_text(f'''
name = "with-a-bad-point"
base = "{(EXAMPLES / "dumbbell_cbr.toml").as_posix()}"
seeds = [1, 2]
[grid]
"dumbbell.queue.limit" = [10, -5, 40]
"dumbbell.no_such_field" = [1]
''')
    r = cli("sweep", sw, "--out", tmp_path / "out", "--workers", "2", "-q")
    assert r.returncode == 2, r.stderr
    # Each problem once, with the points it concerns; nothing ran.
    assert r.stderr.count("no_such_field: unknown field") == 1 and "at 3 point(s)" in r.stderr
    assert "dumbbell.queue.limit" in r.stderr and "-5" in r.stderr
    assert not (tmp_path / "out" / "catalog.duckdb").exists()


def _fail_on_small_queue(res):
    if res.scenario["dumbbell"]["queue"]["limit"] < 20:
        raise RuntimeError("deliberate failure in the extractor")
    return {}


def test_a_failing_run_is_recorded_and_the_rest_completes(tmp_path):
    spec = ccsim.SweepSpec(name="with-a-failing-run", base=ccsim.load(EXAMPLES / "dumbbell_cbr.toml"), seeds=[1],
                           grid={"dumbbell.queue.limit": [10, 40, 80], "simulation.duration": ["2s"]},
                           extract=_fail_on_small_queue)
    res = ccsim.sweep(spec, out=tmp_path / "out", workers=2)
    assert (res.total, res.failed) == (3, 1)
    with Catalog(tmp_path / "out", read_only=True) as c:
        runs = c.runs()
    assert sorted(runs["status"]) == ["failed", "ok", "ok"]
    bad = runs[runs["status"] == "failed"].iloc[0]
    assert "deliberate failure" in bad["error"] and json.loads(bad["params"])["dumbbell.queue.limit"] == 10
    # Every column of the runs table; finished_at in UTC whatever the local time zone.
    assert list(runs.columns) == ["run_id", "version", "sweep", "point", "params", "seed", "status", "error",
                                  "wall_s", "events", "sim_time_s", "finished_at"]
    assert json.loads(bad["point"]) == json.loads(bad["params"])
    age = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None) - runs["finished_at"].max()
    assert datetime.timedelta(0) <= age < datetime.timedelta(minutes=10), age
    # Recorded in UTC also where the local time zone is not (the column's default was local).
    code = (f"from ccsim.catalog import Catalog\nwith Catalog({str(tmp_path / 'tz')!r}, create=True) as c:\n"
            "    c.record(run_id='r', version='v', sweep='s', params={}, seed=1, status='ok', error=None, meta={}, "
            "metrics={}, tables=None)\n    print(c.runs()['finished_at'][0].isoformat())")
    seoul = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "TZ": "Asia/Seoul"})
    age = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None) - datetime.datetime.fromisoformat(seoul.stdout.strip())
    assert datetime.timedelta(0) <= age < datetime.timedelta(minutes=10), age
    # A rerun retries only the failed run (and fails it again).
    again = ccsim.sweep(spec, out=tmp_path / "out", workers=1)
    assert (again.cached, again.ran, again.failed) == (2, 1, 1)


def test_an_interrupt_inside_a_catalog_write_stays_an_interrupt(tmp_path):
    """Ctrl-C while DuckDB read the Arrow batch of a catalog write came out as DuckDB's
    InvalidInputException ("internal error", exit 1) instead of an interrupt (exit 130)."""
    import pyarrow as pa

    from ccsim.catalog import Catalog

    cat = Catalog(tmp_path / "c", create=True)
    schema = pa.schema([("x", pa.int64())])

    def batches():
        yield pa.record_batch([pa.array([1, 2])], schema=schema)
        raise KeyboardInterrupt

    cat.con.execute("CREATE TABLE t (x BIGINT)")
    with pytest.raises(KeyboardInterrupt):
        with cat._transaction():
            cat.con.register("_b", pa.RecordBatchReader.from_batches(schema, batches()))
            cat.con.execute("INSERT INTO t SELECT x FROM _b")
    assert cat.con.execute("SELECT count(*) FROM t").fetchone() == (0,), "rolled back"


def test_duckdb_s_reports_of_an_interrupt_are_interrupts():
    """DuckDB 2.0 reports a Ctrl-C met while a query runs as a plain RuntimeError("Query
    interrupted"), and the next statement of that transaction (an unregister in a finally)
    as a TransactionException: both were "internal error", exit 1, instead of an interrupt."""
    from ccsim.catalog import interrupted

    assert interrupted(RuntimeError("Query interrupted"))
    assert interrupted(duckdb.InterruptException("INTERRUPT Error: Interrupted!"))
    try:
        try:
            raise RuntimeError("Query interrupted")
        finally:
            raise duckdb.TransactionException("TransactionContext Error: Current transaction is aborted (please ROLLBACK)")
    except duckdb.Error as e:
        assert interrupted(e)
    assert not interrupted(RuntimeError("Query failed"))
    assert not interrupted(duckdb.TransactionException("TransactionContext Error: Current transaction is aborted"))


def test_a_sweep_says_it_keeps_no_captures(tmp_path):
    """A sweep of a scenario with pcap traces kept none of them, without a word."""
    base = ccsim.load(EXAMPLES / "tcp_dumbbell.toml")
    base["simulation"]["duration"] = "7s"
    said = []
    r = ccsim.sweep(base, name="pc", out=tmp_path / "o", workers=1, progress=False, log=said.append)
    assert r.failed == 0
    assert any("pcap traces are not kept by a sweep" in m for m in said), said


def test_a_worker_interrupted_starts_no_more_runs(monkeypatch):
    """After a Ctrl-C a pool worker had finished its interrupted run and then ran, in full,
    the runs the pool had already handed it (they cannot be cancelled): a sweep of long
    runs waited for them. It now stops each of them at once; before the interrupt, and in
    the driving process, runs go on as ever."""
    import importlib
    import signal

    # The module holding the workers' state (ccsim.sweep re-exports execute, not that state).
    sw = importlib.import_module("ccsim._sweep_exec")

    from ccsim.scenario import as_dict
    from ccsim.sweep import Task

    scen = as_dict(EXAMPLES / "dumbbell_cbr.toml")
    scen["simulation"]["duration"] = "1.1s"
    task = Task(run_id="r", params={}, seed=1, scenario=scen, sweep="s")
    monkeypatch.setattr(sw, "_STOPPING", False)
    assert sw.execute(task)["status"] == "ok"
    sw._worker_sigint(signal.SIGINT, None)  # an idle worker: no exception, but noted
    assert sw._STOPPING
    with pytest.raises(KeyboardInterrupt):
        sw.execute(task)
    assert not sw._IN_RUN


def test_interrupted_sweep_resumes_to_the_same_catalog(tmp_path):
    sw = tmp_path / "kill.toml"
    sw.write_text(SWEEP)
    exe = Path(sys.executable).with_name("ccsim")
    # Reference: uninterrupted.
    ref = subprocess.run([str(exe), "sweep", str(sw), "--out", str(tmp_path / "ref"), "-q", "--workers", "2"],
                         capture_output=True, text=True, timeout=600)
    assert ref.returncode == 0, ref.stderr
    for sig in (signal.SIGKILL, signal.SIGINT):
        out = tmp_path / f"killed-{sig.name}"
        p = subprocess.Popen([str(exe), "sweep", str(sw), "--out", str(out), "-q", "--workers", "2"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
        # With -q the sweep logs one line per run once it is committed: kill after three.
        committed = 0
        for line in p.stderr:
            if line.startswith("run ") and " ok " in line:
                committed += 1
                if committed == 3:
                    break
        assert committed == 3
        os.killpg(p.pid, sig)
        p.wait(timeout=60)
        assert p.returncode != 0
        if sig == signal.SIGINT:
            # Interrupted: "interrupted", exit 130, and no worker-pool thread's traceback.
            rest = p.stderr.read()
            assert p.returncode == 130 and "interrupted" in rest and "Traceback" not in rest, rest
        r = subprocess.run([str(exe), "sweep", str(sw), "--out", str(out), "-q", "--workers", "2"],
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr
        cached = int(r.stderr.split(" cached")[0].rsplit(",", 1)[1])
        assert 1 <= cached < 10, r.stderr
        assert catalog_rows(out) == catalog_rows(tmp_path / "ref")
        with Catalog(out, read_only=True) as c:
            ids = set(c.runs()["run_id"])
        assert {d.name for d in (out / "runs").iterdir() if not d.name.startswith(".")} >= ids


def test_dask_local_cluster_matches_the_local_pool(tmp_path):
    base = ccsim.load(EXAMPLES / "red_onoff_lossy.toml")
    base["simulation"]["duration"] = "3s"
    grid = {"links[3].queue.max_p": [0.05, 0.2]}
    a = ccsim.sweep(base, grid=grid, seeds=2, out=tmp_path / "pool", workers=2)
    b = ccsim.sweep(base, grid=grid, seeds=2, out=tmp_path / "dask", workers=2, dask="local")
    assert (a.ran, b.ran) == (4, 4)
    sa = a.summary(["total.goodput_bps", "queues.r0->r1.drops_early"])
    sb = b.summary(["total.goodput_bps", "queues.r0->r1.drops_early"])
    assert sa.equals(sb)
    assert catalog_rows(tmp_path / "pool") == catalog_rows(tmp_path / "dask")


def test_toy_paper_report_has_every_claim_with_a_verdict(tmp_path, cli):
    r = cli("reproduce", "--module", ROOT / "tests" / "toy_paper.py", "--quick", "--out", tmp_path / "rep", "-q",
            "--workers", "2")
    assert r.returncode == 0, r.stderr
    assert "claims 2 hold, 1 do not hold (of 3)" in r.stdout
    md = (tmp_path / "rep" / "report.md").read_text()
    html = (tmp_path / "rep" / "report.html").read_text()
    for claim, verdict in (("C1", "holds"), ("C2", "holds"), ("C3", "does not hold")):
        assert f"### {claim}: {verdict}" in md
        assert f"{claim}: {verdict}" in html
    assert "ccsim default" in md and "the paper does not say" in md
    assert "![Grows with the buffer.](figures/fig1.png)" in md
    assert "data:image/png;base64," in html
    assert "Table 1: Mean queue" in md
    # The folder is the toy paper's now: another paper's reproduction is refused there (its
    # figures would replace some of these, its report count these runs), as is a bad
    # worker count; the same paper again is a cached rerun.
    again = cli("reproduce", "--module", ROOT / "tests" / "toy_paper.py", "--quick", "--out", tmp_path / "rep", "-q")
    assert again.returncode == 0 and "claims 2 hold" in again.stdout, again.stderr
    other = cli("reproduce", "udt-rtt", "--quick", "--out", tmp_path / "rep", "-q")
    assert other.returncode == 2 and "invalid option: --out:" in other.stderr and "another paper (toy)" in other.stderr
    zero = cli("reproduce", "udt-rtt", "--quick", "--out", tmp_path / "z", "-q", "--workers", "0")
    assert zero.returncode == 2 and "--workers: must be at least 1" in zero.stderr
    # A paper id beside --module is the module's, or refused (it was ignored).
    both = cli("reproduce", "udt-rtt", "--module", ROOT / "tests" / "toy_paper.py", "--quick", "--out", tmp_path / "b", "-q")
    assert both.returncode == 2 and "reproduces paper 'toy', not 'udt-rtt'" in both.stderr, both.stderr
    assert not (tmp_path / "b").exists()
    same = cli("reproduce", "toy", "--module", ROOT / "tests" / "toy_paper.py", "--quick", "--out", tmp_path / "rep", "-q")
    assert same.returncode == 0 and "claims 2 hold" in same.stdout, same.stderr


def test_reproduce_list_and_unimplemented(cli):
    r = cli("reproduce", "--list")
    assert r.returncode == 0
    for pid in ("diffserv-marker", "atm-mcs", "westwood-abe", "udt-rtt", "eimd"):
        assert pid in r.stdout
    assert "implemented" in r.stdout
    r = cli("reproduce", "no-such-paper", "--quick")
    assert r.returncode == 2
    assert "unknown paper" in r.stderr and "atm-mcs" in r.stderr


def test_a_paper_not_yet_implemented_is_refused(monkeypatch):
    from ccsim import papers

    monkeypatch.setitem(papers.REGISTRY, "future-paper", (None, "F: a paper to come", "not yet implemented"))
    with pytest.raises(ccsim.ScenarioError, match="not yet implemented"):
        papers.load_paper("future-paper")


def test_reproduce_eimd_quick(tmp_path, cli):
    """Paper E end to end in quick mode: every claim gets a three-valued verdict with the
    paper's value beside ccsim's, the figures are drawn, the choices are listed."""
    r = cli("reproduce", "eimd", "--quick", "--out", tmp_path / "e", "-q", "--workers", "2", timeout=900)
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "e" / "report.md").read_text()
    claims = ["T-200M-EIMD", "T-200M-BIC", "T-200M-HSTCP", "F-200M-3", "F-200M-6", "Q3-200M", "Fig3-200M", "U-200M",
              "Fig3u-200M", "Fig4-HSTCP", "Fig4-BIC", "S"]
    for c in claims:
        assert any(f"### {c}: {v}" in md for v in ("holds", "does not hold", "inconclusive")), f"{c} has no verdict"
    assert "18.54" in md and "86.22%" in md  # the paper's values beside ccsim's
    for fig in ("rtt_fairness", "fig3", "fig4"):
        assert (tmp_path / "e" / "figures" / f"{fig}.png").stat().st_size > 10_000
    assert "EIMD beta" in md and "ccsim default" in md


def test_reproduce_udt_rtt_quick(tmp_path, cli):
    """Paper D end to end in quick mode: a verdict for every claim, the paper's value beside
    ccsim's, Figs 3-5 drawn, the choices listed."""
    r = cli("reproduce", "udt-rtt", "--quick", "--out", tmp_path / "d", "-q", "--workers", "2", timeout=900)
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "d" / "report.md").read_text()
    claims = [f"Fig3-{r}" for r in (1, 50, 100, 200)] + ["Fig4-1ms", "Fig4-200-UDT", "Fig4-200-TCP", "Fig4-trend",
                                                        "Fig5-TCP", "Fig5-TCP-1ms", "Fig5-UDT", "Fig5-steady"]
    for c in claims:
        assert any(f"### {c}: {v}" in md for v in ("holds", "does not hold", "inconclusive")), f"{c} has no verdict"
    assert "+14%" in md and "+130%" in md
    for fig in ("fig3", "fig4", "fig5"):
        assert (tmp_path / "d" / "figures" / f"{fig}.png").stat().st_size > 10_000
    assert "Gu's ns-2 Agent/UDT module" in md and "ccsim default" in md
    assert "| UDT | after 15 s |" in md  # goodput past the start-up beside the whole run's


def test_reproduce_diffserv_marker_quick(tmp_path, cli):
    """Paper A (experiments 1-3) in quick mode: a verdict for every claim, Table 1 with the
    paper's values, Figs 3-8 drawn."""
    r = cli("reproduce", "diffserv-marker", "--quick", "--out", tmp_path / "a", "-q", "--workers", "2", timeout=900)
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "a" / "report.md").read_text()
    for c in ("T1-IN", "Fig4-lost", "Fig4-smooth", "T1-target", "Fig5-too-large", "Fig6-token-only", "Fig6-nearer", "Fig6-best-grows", "Fig7-subscription",
              "Fig8-rtt"):
        assert any(f"### {c}: {v}" in md for v in ("holds", "does not hold", "inconclusive")), f"{c} has no verdict"
    assert "1.13" in md and "0.94" in md  # Table 1's paper values
    for fig in ("fig3", "fig4", "fig5", "fig6", "fig7", "fig8"):
        assert (tmp_path / "a" / "figures" / f"{fig}.png").stat().st_size > 10_000


def test_reproduce_atm_mcs_quick(tmp_path, cli):
    """Paper B in quick mode: a verdict for every claim, Figs 8-11 drawn, the parameter
    table states the choices the paper leaves open."""
    r = cli("reproduce", "atm-mcs", "--quick", "--out", tmp_path / "b", "-q", "--workers", "2", timeout=900)
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "b" / "report.md").read_text()
    for c in ("F8a-dff", "F8a-spd", "F8b-dff", "F8b-spd", "F10-tail", "F10-spd"):
        assert any(f"### {c}: {v}" in md for v in ("holds", "does not hold", "inconclusive")), f"{c} has no verdict"
    for fig in ("fig8a", "fig8b", "fig9a", "fig9b", "fig10", "fig11"):
        assert (tmp_path / "b" / "figures" / f"{fig}.png").stat().st_size > 10_000
    assert "the paper does not say how ACKs reach the sender" in md


def test_reproduce_westwood_abe_quick(tmp_path, cli):
    """Paper C end to end: every claim of the paper gets a verdict in the report."""
    r = cli("reproduce", "westwood-abe", "--quick", "--out", tmp_path / "c", "-q", "--workers", "2", timeout=900)
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "c" / "report.md").read_text()
    for i in range(1, 11):
        assert any(f"### C{i}: {v}" in md for v in ("holds", "does not hold", "inconclusive")), f"C{i} has no verdict"
    for fig in ("fig2", "fig3", "fig5", "fig6", "fig7", "fig8"):
        assert (tmp_path / "c" / "figures" / f"{fig}.png").stat().st_size > 10_000
    assert "Table 1" in md and "ccsim default" in md
    # Rerunning reuses every run.
    r = cli("reproduce", "westwood-abe", "--quick", "--out", tmp_path / "c", "-q")
    assert r.returncode == 0
    assert "nothing to run" in r.stderr


def test_numpy_values_in_a_grid_seeds_and_a_scenario(tmp_path):
    """Grids built with NumPy (np.arange, a DataFrame's column) are plain values: they had
    failed with a TypeError from the JSON encoder (or "must be a non-empty list" for an
    array)."""
    import numpy as np

    base = ccsim.load(EXAMPLES / "dumbbell_cbr.toml")
    base["simulation"]["duration"] = "2s"
    r = ccsim.sweep(base, name="np", grid={"dumbbell.queue.limit": np.arange(10, 30, 10)},
                    seeds=[np.int64(1), np.int64(2)], out=tmp_path, workers=1)
    assert (r.ran, r.failed) == (4, 0)
    assert list(r.summary("events")["dumbbell.queue.limit"]) == [10, 20]
    base["dumbbell"]["queue"]["limit"] = np.int64(20)
    assert ccsim.run(base).meta["events"] > 0
    with pytest.raises(ccsim.ScenarioError, match="workers: must be a whole number at least 1"):
        ccsim.sweep(base, grid={"dumbbell.queue.limit": [10]}, out=tmp_path / "w", workers=0)


def test_a_field_in_both_grid_and_zip_is_refused(tmp_path):
    base = ccsim.load(EXAMPLES / "dumbbell_cbr.toml")
    with pytest.raises(ccsim.ScenarioError, match=r"zip.dumbbell.queue.limit: also in grid"):
        ccsim.sweep(base, grid={"dumbbell.queue.limit": [10]}, zip={"dumbbell.queue.limit": [20]}, out=tmp_path)
    # One swept field inside another: the runs had been labelled with a value never applied.
    with pytest.raises(ccsim.ScenarioError, match=r"zip.dumbbell.queue.limit: lies inside grid.dumbbell.queue"):
        ccsim.sweep(base, grid={"dumbbell.queue": [{"limit": 10}]}, zip={"dumbbell.queue.limit": [30, 40]}, out=tmp_path)
    # The seed is the seeds' to sweep (a grid of it had collapsed to the sweep's own seeds).
    with pytest.raises(ccsim.ScenarioError, match=r"grid.simulation.seed: the seed is swept by `seeds`"):
        ccsim.sweep(base, grid={"simulation.seed": [1, 2, 3]}, out=tmp_path)
    with pytest.raises(ccsim.ScenarioError, match=r"seeds: 1,000,001 seeds"):
        ccsim.sweep(base, grid={"dumbbell.queue.limit": [10]}, seeds=list(range(1_000_001)), out=tmp_path)
    assert not (tmp_path / "catalog.duckdb").exists()


def test_a_swept_data_file_is_relative_to_the_sweep_file(tmp_path):
    """A generator's data file given as a grid value in a sweep file is found beside the
    sweep file, as the base's are beside the base (it was looked up in the working folder)."""
    (tmp_path / "times.txt").write_text("0.1\n0.2\n")
    base = ccsim.load(EXAMPLES / "dumbbell_cbr.toml")
    base.update(flows=[], traces=[], generators=[{
        "name": "g", "src": "s0", "dst": "d0", "transport": {"kind": "tcp", "profile": "linux"},
        "arrivals": {"kind": "times", "times": [0.5]}, "size": {"kind": "fixed", "value": "10KB"}}])
    base["simulation"].update(duration="2s", warmup=0)
    (tmp_path / "base.json").write_text(json.dumps(base))
    (tmp_path / "sw.toml").write_text('name = "f"\nbase = "base.json"\n[grid]\n"generators[0].arrivals" = '
                                      '[{kind = "times", file = "times.txt"}]\n"generators[0].arrivals.file" = ["times.txt"]\n')
    with pytest.raises(ccsim.ScenarioError, match="lies inside"):
        load_sweep(tmp_path / "sw.toml").tasks()
    (tmp_path / "sw.toml").write_text('name = "f"\nbase = "base.json"\n[grid]\n"generators[0].arrivals.file" = ["times.txt"]\n')
    (tmp_path / "base.json").write_text(json.dumps(base).replace('"times": [0.5]', '"file": "nowhere.txt"'))
    r = subprocess.run([sys.executable, "-m", "ccsim", "sweep", str(tmp_path / "sw.toml"), "--out",
                        str(tmp_path / "o"), "-q", "-w", "1"], capture_output=True, text=True, cwd="/", timeout=300)
    assert r.returncode == 0, r.stderr
    with Catalog(tmp_path / "o", read_only=True) as c:
        assert len(c.table(c.runs("f")["run_id"][0], "fct")) == 2


def test_a_query_of_an_empty_catalog_names_the_problem(tmp_path):
    """A mistyped folder is no catalog (it was made anew, and every query of it was
    empty); an empty catalog asked for a sweep says so, and so does any query naming a
    sweep it does not hold (runs() returned an empty table)."""
    for typo in (tmp_path / "typo", tmp_path):
        with pytest.raises(ccsim.ScenarioError, match=r"^root: no catalog at .*catalog.duckdb \((no such folder|a folder without)"):
            Catalog(typo)
    assert not (tmp_path / "typo").exists()
    with Catalog(tmp_path / "empty", create=True) as c, pytest.raises(ccsim.ScenarioError, match="it holds no runs"):
        c.summary("total.goodput_bps", "buffers")
    base = ccsim.load(EXAMPLES / "dumbbell_cbr.toml")
    base["simulation"]["duration"] = "2s"
    ccsim.sweep(base, name="mysweep", out=tmp_path / "s", workers=1)
    with Catalog(tmp_path / "s") as c:
        assert len(c.runs("mysweep")) == 1
        with pytest.raises(ccsim.ScenarioError, match="no sweep named 'mysweeP'.*it has: mysweep"):
            c.runs("mysweeP")


def test_a_sweep_too_large_is_refused_at_once(tmp_path):
    """10⁸ seeds or a grid of 10⁶ points × 2 seeds had sat silent while every point was
    validated (or a list of 10⁸ seeds was built)."""
    base = ccsim.load(EXAMPLES / "dumbbell_cbr.toml")
    with pytest.raises(ccsim.ScenarioError, match="100,000,000 seeds: a sweep has at most 1,000,000 runs"):
        ccsim.sweep(base, grid={"dumbbell.queue.limit": [10]}, seeds=10**8, out=tmp_path)
    with pytest.raises(ccsim.ScenarioError, match="2,000,000 runs"):
        ccsim.sweep(base, grid={"dumbbell.queue.limit": list(range(1, 1001)), "simulation.duration": list(range(1, 1001))},
                    seeds=2, out=tmp_path)
    assert not (tmp_path / "catalog.duckdb").exists()


def test_a_catalog_with_the_first_membership_table_still_opens(tmp_path):
    """A catalog whose sweep_runs lacks the sweep's own parameters (a version between two
    commits wrote it) is read by runs stored and rebuilt when a sweep next runs (its
    report had failed: "table sweep_runs has 3 columns but 6 values were supplied")."""
    base = ccsim.load(EXAMPLES / "dumbbell_cbr.toml")
    base["simulation"]["duration"] = "2s"
    ccsim.sweep(base, name="s", grid={"dumbbell.queue.limit": [10]}, out=tmp_path, workers=1)
    con = duckdb.connect(str(tmp_path / "catalog.duckdb"))
    con.execute("DROP TABLE sweep_runs")
    con.execute("CREATE TABLE sweep_runs (sweep VARCHAR, run_id VARCHAR, version VARCHAR)")
    con.execute("INSERT INTO sweep_runs VALUES ('s', 'x', 'y')")
    con.close()
    with Catalog(tmp_path, read_only=True) as c:
        assert list(c.metrics("s")["dumbbell.queue.limit"]) == [10]
    r = ccsim.sweep(base, name="s", grid={"dumbbell.queue.limit": [10, 20]}, out=tmp_path, workers=1)
    assert (r.ran, r.cached) == (1, 1)
    with Catalog(tmp_path, read_only=True) as c:
        assert list(c.metrics("s")["dumbbell.queue.limit"]) == [10, 20]


def test_a_sweep_refused_by_a_held_catalog_leaves_it_alone(tmp_path, monkeypatch):
    """A refused sweep removes the catalog it made, never one another process holds: two
    sweeps starting into one new folder, the one refused (the catalog is in use) had
    removed the other's open catalog and folder (review of the forty-first session)."""
    import ccsim.sweep  # noqa: F401 - the module, for its Catalog
    import sys as _sys
    module = _sys.modules["ccsim.sweep"]
    out = tmp_path / "out"
    holder = ("import sys, time\nfrom ccsim.catalog import Catalog\n"
              f"with Catalog({str(out)!r}, create=True):\n    print('ready', flush=True)\n    sys.stdin.read()\n")
    real = module.Catalog
    procs = []

    def racing(*args, **kwargs):
        # The other sweep's catalog appears after this one found the folder new.
        p = subprocess.Popen([sys.executable, "-c", holder], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        procs.append(p)
        assert p.stdout.readline().strip() == "ready"
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "Catalog", racing)
    base = {"nodes": ["a", "b"], "simulation": {"duration": "0.1s"},
            "links": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "1ms"}]}
    try:
        with pytest.raises(ccsim.ScenarioError, match="another process is using"):
            ccsim.sweep(base, out=out, workers=1)
        assert (out / "catalog.duckdb").is_file()
    finally:
        for p in procs:
            p.communicate("")


def test_a_sweep_over_lists_and_mixed_values_summarises(tmp_path):
    """A swept list (`receiver_delays`) made the catalog's metrics and summary fail
    (unhashable list) after every run had been recorded: `ccsim sweep` ended in an internal
    error. It is its JSON text now; a grid mixing numbers and text sorts numbers first."""
    sw = tmp_path / "sw.toml"
    sw.write_text(f'name = "lists"\nbase = "{(EXAMPLES / "dumbbell_cbr.toml").as_posix()}"\n[grid]\n'
                  '"simulation.duration" = ["0.3s"]\n"simulation.warmup" = ["0.1s"]\n'
                  '"dumbbell.receiver_delays" = [["1ms", "1ms", "1ms", "1ms"], ["1ms", "2ms", "3ms", "4ms"]]\n')
    r = subprocess.run([sys.executable, "-m", "ccsim", "sweep", str(sw), "--out", str(tmp_path / "o"), "-q", "--workers", "1",
                        "-m", "total.goodput_bps"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with Catalog(tmp_path / "o") as c:
        s = c.summary("total.goodput_bps", sweep="lists")
    assert list(s["dumbbell.receiver_delays"]) == ['["1ms", "1ms", "1ms", "1ms"]', '["1ms", "2ms", "3ms", "4ms"]']
    base = ccsim.load(EXAMPLES / "dumbbell_cbr.toml")
    base["simulation"].update(duration="0.3s", warmup="0.1s")
    res = ccsim.sweep(base, grid={"dumbbell.queue.limit": [10, "20pkt", 5]}, out=tmp_path / "mixed", workers=1)
    assert list(res.summary("total.goodput_bps")["dumbbell.queue.limit"]) == [5, 10, "20pkt"]
    # A level that is no level, or no metric, is refused (they gave NaN intervals, an empty table).
    for bad in ({"confidence": 1.5}, {"confidence": 0}):
        with pytest.raises(ccsim.ScenarioError, match="confidence: expected a level between 0 and 1"):
            res.summary("total.goodput_bps", **bad)
    with pytest.raises(ccsim.ScenarioError, match="at least one metric"):
        res.summary([])
