"""Parameter sweeps that cache and resume.

A sweep is a base scenario, a grid (cartesian product) and/or zipped lists of parameter
paths, and replications (seeds). Every (point, seed) is one run, identified by the hash of
its fully resolved scenario; runs already in the results folder's catalog (same hash, same
ccsim version) are not run again, so an interrupted sweep (Ctrl-C, kill -9) simply
continues where it stopped. Runs execute in a local process pool (default, one worker per
core) or on a Dask cluster; the catalog is written by this process only.

    >>> import ccsim
    >>> res = ccsim.sweep("examples/dumbbell_cbr.toml", grid={"dumbbell.queue.limit": [20, 50]},
    ...                   seeds=3, out="results/demo")
    >>> res.summary("total.goodput_bps")
"""

from __future__ import annotations

import copy
import io
import itertools
import json
import math
import os
import sys
import threading
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from . import __version__
from .catalog import Catalog, scenario_hash
from .results import file_in_the_way
from .scenario import PathLike, Scenario, ScenarioError, _resolve_files, _split_path, as_dict, load, plain, set_path


@dataclass
class SweepSpec:
    """What to run. `extract` (optional, a module-level function so it can be pickled)
    maps a run's Results to extra metrics {name: number}."""

    name: str
    base: dict
    grid: dict[str, list] = field(default_factory=dict)
    zipped: dict[str, list] = field(default_factory=dict)
    seeds: list[int] = field(default_factory=lambda: [1])
    extract: Callable | None = None
    #: Metrics `ccsim sweep` summarises at the end when none is asked for.
    metrics: list[str] = field(default_factory=list)

    def points(self) -> list[dict]:
        both = sorted(set(self.grid) & set(self.zipped))
        if both:
            raise ScenarioError([(f"zip.{k}", "also in grid: give each field in one of them") for k in both])
        swept = [(f"grid.{k}" if k in self.grid else f"zip.{k}", _split_path(k)) for k in {**self.grid, **self.zipped}]
        for where, a in swept:
            if a == ["simulation", "seed"]:
                raise ScenarioError([(where, "the seed is swept by `seeds` (a count or a list), which sets it last")])
        for where, a in swept:
            for other_where, b in swept:
                if len(a) < len(b) and b[:len(a)] == a:
                    raise ScenarioError([(other_where, f"lies inside {where}: one run would set both, the later "
                                                       "hiding the other; sweep the whole table or its fields, not both")])
        for k, v in {**self.grid, **self.zipped}.items():
            if not isinstance(v, list) or not v:
                raise ScenarioError([(f"grid.{k}" if k in self.grid else f"zip.{k}", "must be a non-empty list of values")])
        lens = {len(v) for v in self.zipped.values()}
        if len(lens) > 1:
            raise ScenarioError([("zip", f"zipped lists must have equal lengths, got {sorted(lens)}")])
        n = math.prod(len(v) for v in self.grid.values()) * (lens.pop() if lens else 1) * len(self.seeds)
        if n > MAX_RUNS:
            raise ScenarioError([("grid", f"{n:,} runs (points × seeds): a sweep has at most {MAX_RUNS:,}; split it "
                                          "into several sweeps into the same folder")])
        gkeys = list(self.grid)
        gvals = [self.grid[k] for k in gkeys]
        zrows = [dict(zip(self.zipped, vals)) for vals in zip(*self.zipped.values())] if self.zipped else [{}]
        out = []
        for combo in itertools.product(*gvals) if gkeys else [()]:
            for z in zrows:
                out.append({**dict(zip(gkeys, combo)), **z})
        return out

    def tasks(self) -> list["Task"]:
        tasks = []
        for params in self.points():
            for seed in self.seeds:
                scen = copy.deepcopy(self.base)
                error = None
                try:
                    for path, value in params.items():
                        set_path(scen, path, value)
                    set_path(scen, "simulation.seed", int(seed))
                    rid = scenario_hash(scen)
                except ScenarioError as e:
                    error = str(e)
                    rid = scenario_hash({"base": self.base, "params": params, "seed": seed, "invalid": True})
                tasks.append(Task(run_id=rid, params=params, seed=int(seed), scenario=scen, error=error,
                                  sweep=self.name, extract=self.extract))
        return tasks


@dataclass
class Task:
    run_id: str
    params: dict
    seed: int
    scenario: dict
    sweep: str
    error: str | None = None
    extract: Callable | None = None
    #: When set (local pool: a shared file system), the worker writes the run's Parquet
    #: files itself under this results folder instead of returning them.
    out: str | None = None


#: The most runs one sweep may define (points × seeds): a larger one is refused at once
#: (it would sit silent while every point is validated, and its catalog would not be
#: usable); split it into several sweeps.
MAX_RUNS = 1_000_000


def _seeds(value: Any) -> list[int]:
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            raise ScenarioError([("seeds", "must be at least 1 (a count) or a list of seeds")])
        if value > MAX_RUNS:
            raise ScenarioError([("seeds", f"{value:,} seeds: a sweep has at most {MAX_RUNS:,} runs")])
        return list(range(1, value + 1))
    if isinstance(value, list) and len(value) > MAX_RUNS:
        raise ScenarioError([("seeds", f"{len(value):,} seeds: a sweep has at most {MAX_RUNS:,} runs")])
    if isinstance(value, list) and value and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in value):
        seen: set[int] = set()
        for s in value:
            if s in seen:
                raise ScenarioError([("seeds", f"seed {s} is listed more than once; a seed gives the same run each "
                                               "time, so list each seed once")])
            seen.add(s)
        return list(value)
    raise ScenarioError([("seeds", f"expected a count (e.g. 5) or a list of seeds >= 0, got {value!r}")])


def _check_name(name: Any, folder: bool, field: str = "name") -> str:
    """A sweep's name, a non-empty string; where it names the folder its results go to
    (results/<name>, no out= given), one folder name, not a path."""
    if not isinstance(name, str) or not name.strip():
        raise ScenarioError([(field, f"expected a sweep name (a non-empty string), got {name!r}")])
    if not folder:
        return name
    if name in (".", "..") or any(c in name for c in "/\\\0") or any(ord(c) < 32 for c in name):
        raise ScenarioError([(field, f"{name!r} is not a folder name: a sweep's name has no '/', '\\', control "
                                     "characters and is not '.' or '..' (its results go to results/<name>; "
                                     "give --out / out= for another place)")])
    if len(name) > 200:
        raise ScenarioError([(field, f"a sweep's name has at most 200 characters, got {len(name)}")])
    return name


def load_sweep(path: PathLike) -> SweepSpec:
    """Reads a sweep file::

        name = "buffers"
        base = "dumbbell.toml"        # relative to this file; or an inline [base] table
        seeds = 5                     # or [1, 2, 3]
        metrics = ["total.goodput_bps"]   # summarised at the end (default: goodput)
        [grid]
        "dumbbell.queue.limit" = [20, 50, 100]
        [zip]
        "links[0].rate" = ["10Mbps", "20Mbps"]
        "links[0].delay" = ["10ms", "20ms"]
    """
    p = Path(path)
    d = load(p)
    known = {"name", "base", "seeds", "grid", "zip", "description", "metrics"}
    bad = [k for k in d if k not in known]
    if bad and "base" not in d and "simulation" in d:
        raise ScenarioError([("", f"{p} is a scenario ([simulation], no base), not a sweep file: run it with "
                                  f"`ccsim run {p}`, or sweep it from a sweep file whose base is it (docs/sweeps.md)")])
    if bad:
        raise ScenarioError([(k, f"unknown field; allowed: {', '.join(sorted(known))}") for k in bad])
    base = d.get("base")
    if isinstance(base, str):
        base = load(p.parent / base)
    elif not isinstance(base, dict):
        raise ScenarioError([("base", "required: a scenario file path (relative to the sweep file) or an inline [base] table")])
    for k in ("grid", "zip"):
        if k in d and not isinstance(d[k], dict):
            raise ScenarioError([(k, "expected a table of 'path' = [values]")])
    # Generators' data files named here (an inline base's, or swept values: a `file` or a
    # table holding one) are relative to the sweep file, as a base file's are to it.
    folder = p.resolve().parent
    if isinstance(d.get("base"), dict):
        _resolve_files(base.get("generators"), folder)
    for k in ("grid", "zip"):
        for path, values in (d.get(k) or {}).items():
            if str(path).startswith("generators") and isinstance(values, list):
                last = _split_path(path)[-1]
                wrapped = [{last: v} for v in values]
                _resolve_files(wrapped, folder)
                d[k][path] = [w[last] for w in wrapped]
    metrics = d.get("metrics", [])
    if not isinstance(metrics, list) or not all(isinstance(m, str) for m in metrics):
        raise ScenarioError([("metrics", "expected a list of metric names, e.g. [\"total.goodput_bps\"]")])
    check_metric_names(metrics, field="metrics")
    return SweepSpec(name=_check_name(d.get("name", p.stem), folder=False), base=base, grid=d.get("grid", {}), zipped=d.get("zip", {}),
                     seeds=_seeds(d.get("seeds", 1)), metrics=metrics)


# Running one task (in a worker process) ----------------------------------------------------

def _ipc(table) -> bytes:
    import pyarrow as pa

    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return sink.getvalue()


#: The run-wide metrics every run records (standard_metrics), and a queue's per-direction ones.
RUN_METRICS = ("events", "total.goodput_bps", "mean.goodput_bps", "jain.goodput")
QUEUE_METRICS = ("arrivals", "departures", "drops_overflow", "drops_early", "drops_forced", "drops_loss",
                 "mean_len_pkts", "max_len_pkts", "utilization")


def check_metric_names(names: Iterable[str], *, field: str = "metric", extract: bool = False) -> None:
    """A metric name that no run can record is refused before any run: one of RUN_METRICS,
    `flows.<flow>.<column>` or `queues.<direction>.<column>` (a column of QUEUE_METRICS);
    with an `extract` function, any other name may be one of its own. Which flows,
    directions and agent columns a run has is known only once it ran: `sweep` checks those
    names against its first finished run."""
    import difflib

    bad = []
    for n in names:
        if n in RUN_METRICS:
            continue
        parts = n.split(".")
        if parts[0] == "flows" and len(parts) >= 3 and all(parts):
            continue
        if parts[0] == "queues" and len(parts) >= 3 and all(parts):
            if parts[-1] in QUEUE_METRICS:
                continue
            near = difflib.get_close_matches(parts[-1], QUEUE_METRICS, n=1)
            bad.append((n, f"a queue's columns are {', '.join(QUEUE_METRICS)}" + (f" (did you mean {near[0]!r}?)" if near else "")))
            continue
        if extract and parts[0] not in ("flows", "queues"):
            continue
        near = [m for m in RUN_METRICS if n and n in m] or difflib.get_close_matches(n, RUN_METRICS, n=1)
        bad.append((n, "a metric is one of " + ", ".join(RUN_METRICS) + ", flows.<flow>.<column> or "
                    "queues.<direction>.<column>" + (f" (did you mean {near[0]!r}?)" if near else "")))
    if bad:
        raise ScenarioError([(field, f"unknown metric {n!r}: {why}") for n, why in bad])


def _absent_metrics(names: Iterable[str], recorded: Mapping[str, float]) -> str | None:
    """The names the first finished run did not record, said with the nearest it did."""
    import difflib

    # A queue's metrics are recorded only where it carried traffic, and the run-wide means
    # only with flows: another point may have them. Flows' and extract's names are per run.
    missing = [n for n in names if n not in recorded and not n.startswith(("queues.", "mean.", "jain."))]
    if not missing:
        return None
    near = [m for n in missing for m in difflib.get_close_matches(n, list(recorded), n=2)]
    hint = f" (did you mean {', '.join(map(repr, dict.fromkeys(near)))}?)" if near else ""
    return (f"metric {', '.join(map(repr, missing))} is not among the {len(recorded)} the first finished run "
            f"recorded{hint}; the sweep goes on (Ctrl-C stops it; finished runs are kept)")


def standard_metrics(res) -> dict[str, float]:
    """Numbers every run records: totals, Jain's index of goodput, every numeric flow
    column per flow, and queue figures for every link direction that carried traffic."""
    import numpy as np

    m: dict[str, float] = {"events": float(res.meta["events"])}
    f = res.tables["flows"].to_pydict()
    g = np.array(f["goodput_bps"], dtype=float)
    m["total.goodput_bps"] = float(g.sum())
    if len(g):
        from .models import jain

        m["mean.goodput_bps"] = float(g.mean())
        m["jain.goodput"] = jain(g)
    skip = {"flow", "name", "kind", "src", "dst"}
    for i, name in enumerate(f["name"]):
        for col, vals in f.items():
            if col not in skip and vals[i] is not None:
                m[f"flows.{name}.{col}"] = float(vals[i])
    q = res.tables["queues"].to_pydict()
    for i, d in enumerate(q["direction"]):
        if q["arrivals"][i] > 0:
            for col in QUEUE_METRICS:
                m[f"queues.{d}.{col}"] = float(q[col][i])
    return m


#: In a pool worker: whether a run is under way (what an interrupt then stops).
_IN_RUN = False
#: In a pool worker: an interrupt came; runs handed to it after that stop at once (the
#: pool had already moved some queued runs to its workers, which cannot be cancelled).
_STOPPING = False


def _worker_sigint(signum, frame) -> None:
    """A pool worker's Ctrl-C (the terminal interrupts the whole process group; the sweep
    passes its own on to its workers): a run under way stops as an interrupted run, whose
    result goes to the sweep as any other; an idle worker, waiting for work, takes no
    notice and ends when the sweep shuts the pool down. (It used to end at once: a worker
    ended while it held the pool's queue lock left the others waiting on it, and the
    sweep's shutdown with them, and an ended worker broke the pool while the sweep still
    submitted runs, an "internal error" instead of an interrupt.)"""
    global _STOPPING
    _STOPPING = True
    if _IN_RUN:
        raise KeyboardInterrupt


def _worker_init() -> None:
    import signal

    signal.signal(signal.SIGINT, _worker_sigint)


def execute(task: Task) -> dict:
    """Runs one task; never raises (a failure is a result)."""
    global _IN_RUN
    if _STOPPING:
        # A run the pool had already handed over when the interrupt came: not started.
        raise KeyboardInterrupt
    _IN_RUN = True
    try:
        return _execute(task)
    finally:
        _IN_RUN = False


def _execute(task: Task) -> dict:
    from .run import run

    t0 = time.perf_counter()
    base = {"run_id": task.run_id, "params": task.params, "seed": task.seed, "sweep": task.sweep}
    if task.error:
        return {**base, "status": "failed", "error": task.error, "meta": {}, "metrics": {}, "tables": None}
    try:
        res = run(task.scenario)
        metrics = standard_metrics(res)
        if task.extract is not None:
            metrics.update({k: float(v) for k, v in task.extract(res).items()})
        from .results import named_series, series_files

        arrow = dict(res.tables)
        for name, file in series_files(res.series_names).items():
            arrow[file.removesuffix(".parquet")] = named_series(name, res.series_arrow(name))
        if task.out is not None:
            from .catalog import write_run_tables

            write_run_tables(Path(task.out), task.run_id, arrow)
            tables = None
        else:
            tables = {k: _ipc(t) for k, t in arrow.items()}
        meta = dict(res.meta)
        meta["overhead_s"] = time.perf_counter() - t0 - meta["wall_s"]
        return {**base, "status": "ok", "error": None, "meta": meta, "metrics": metrics, "tables": tables}
    except ScenarioError as e:
        return {**base, "status": "failed", "error": str(e), "meta": {}, "metrics": {}, "tables": None}
    except Exception as e:  # noqa: BLE001 - recorded, the sweep goes on
        tb = traceback.format_exc(limit=3)
        return {**base, "status": "failed", "error": f"{type(e).__name__}: {e}\n{tb}", "meta": {}, "metrics": {}, "tables": None}


# The sweep driver ---------------------------------------------------------------------------

@dataclass
class SweepResult:
    out: Path
    sweep: str
    total: int
    ran: int
    cached: int
    failed: int
    wall_s: float
    engine_s: float = 0.0
    overhead_s: float = 0.0
    #: The scenario of the sweep's first valid run (as run: grid values and seed applied).
    first_scenario: dict | None = None
    #: The runs this sweep is made of: a catalog may also hold runs of an earlier definition
    #: of a sweep of the same name (another base, grid or seed list), which are not its own.
    run_ids: list[str] = field(default_factory=list)

    def catalog(self) -> Catalog:
        return Catalog(self.out, read_only=True)

    def summary(self, metric: str | list[str], confidence: float = 0.95):
        with self.catalog() as c:
            return c.summary(metric, sweep=self.sweep, confidence=confidence, run_ids=self.run_ids)

    def metrics(self, names: Iterable[str] | None = None):
        with self.catalog() as c:
            return c.metrics(self.sweep, names, run_ids=self.run_ids)

    def runs(self):
        with self.catalog() as c:
            r = c.runs(self.sweep)
            return r[r["run_id"].isin(self.run_ids)]


def _local_results(tasks: list[Task], workers: int, main):
    """The runs' results as they finish: in this process with one worker, else in a pool
    whose workers start under `main` (`_main_for_workers`: what they get as `__main__`)."""
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool
    from multiprocessing import get_context

    if workers == 1:
        for t in tasks:
            yield execute(t)
        return
    # forkserver: workers fork from a server that has imported ccsim once, so starting them
    # is cheap and safe (no threads of this process are inherited).
    ctx = get_context("forkserver")
    ctx.set_forkserver_preload(["ccsim.sweep", "ccsim._forkserver_sigint"])
    _start_forkserver()
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init) as pool:
        pending = set()
        it = iter(tasks)

        def submit(t: Task) -> None:
            # Workers start inside submit(); what they are told to import as __main__ is
            # decided then.
            with main:
                pending.add(pool.submit(execute, t))

        try:
            for t in itertools.islice(it, workers * 2):
                submit(t)
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    try:
                        yield fut.result()
                    except BrokenProcessPool as e:
                        raise RuntimeError(
                            "a sweep worker process ended abruptly (killed, out of memory, or it failed while "
                            "starting: a script whose extract= function is defined in it is re-run by each "
                            "worker and must guard its sweep with `if __name__ == \"__main__\":`); "
                            "see the worker's error above") from e
                    nxt = next(it, None)
                    if nxt is not None:
                        submit(nxt)
        except BaseException as e:
            for fut in pending:
                fut.cancel()
            if isinstance(e, KeyboardInterrupt):
                # An interrupt of this process alone (`kill -INT`, not the terminal's Ctrl-C,
                # which reaches every worker too) stops the runs under way as well.
                _interrupt_workers(pool)
            # Stop at once (an interrupt, a failure): no waiting for queued runs, and the
            # pool's threads are done before the caller unwinds further.
            pool.shutdown(wait=True, cancel_futures=True)
            raise


def _start_forkserver() -> None:
    """Starts the fork server (if it is not running) with Ctrl-C ignored, as it is once the
    server runs: a Ctrl-C while it imported ccsim printed the server's traceback. (The
    server is its own program, started with exec: an ignored signal is all it inherits;
    this process ignores Ctrl-C only while it starts it.) Its last preload,
    `ccsim._forkserver_sigint`, gives Ctrl-C its default handler back, which the server
    keeps for the processes it forks: other pools of the same process (the user's own)
    would otherwise start with Ctrl-C ignored."""
    import signal
    from multiprocessing import forkserver

    if threading.current_thread() is not threading.main_thread():
        forkserver.ensure_running()
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        forkserver.ensure_running()
    finally:
        signal.signal(signal.SIGINT, old)


def _interrupt_workers(pool) -> None:
    """Sends SIGINT to the pool's worker processes still alive (an idle one ignores it)."""
    import signal

    # `_processes` is the executor's own table of its workers (CPython 3.10-3.14).
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            if proc.is_alive():
                os.kill(proc.pid, signal.SIGINT)
        except (OSError, ValueError, AttributeError):
            pass


_MAIN_LOCK = threading.Lock()


class _HiddenMain:
    """While active, `sys.modules["__main__"]` is an empty module, so that worker processes
    started then do not re-run the caller's main script (multiprocessing re-runs it to find
    functions defined there): code piped to `python -` cannot be re-run at all, and a
    script without an `if __name__ == "__main__":` guard would start its sweep again in
    every worker. The runs need nothing from `__main__` unless `extract` refers to it.
    Sweeps in several threads take turns (a lock), and each restores only its own swap."""

    def __enter__(self):
        import types

        _MAIN_LOCK.acquire()
        self.saved = sys.modules.get("__main__")
        self.empty = types.ModuleType("__main__")
        sys.modules["__main__"] = self.empty

    def __exit__(self, *exc):
        try:
            if sys.modules.get("__main__") is self.empty:
                sys.modules["__main__"] = self.saved
        finally:
            _MAIN_LOCK.release()


def _main_for_workers(extract: Callable | None):
    """What worker processes get as `__main__` while they start: nothing, unless `extract`
    is a function of the main script (then the script, as multiprocessing does; it must
    be a file). An `extract` workers cannot receive is a ScenarioError before any run."""
    import contextlib
    import pickle

    if extract is None:
        return _HiddenMain()
    try:
        pickled = pickle.dumps(extract)
    except Exception as e:
        raise ScenarioError([("extract", f"{getattr(extract, '__name__', 'the function')} cannot be sent to worker "
                                         f"processes ({type(e).__name__}: {e}): it must be defined at the top level "
                                         f"of an importable module or script file; or run with workers=1")]) from None
    # A reference to the main script anywhere in it (the function itself, or one a
    # functools.partial wraps) needs the script in the workers.
    if b"__main__" not in pickled:
        return _HiddenMain()
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    name = getattr(getattr(main, "__spec__", None), "name", None)
    if name is None and (path is None or not os.path.isfile(path)):
        raise ScenarioError([("extract", f"{getattr(extract, '__name__', 'it')} is defined in code that worker processes cannot "
                                         f"import (typed or piped to Python, or a notebook cell: not a file); define it in a "
                                         f"module or script file, or run with workers=1")])
    return contextlib.nullcontext()


def check_points(tasks: list["Task"]) -> None:
    """Validates every point of a sweep before anything runs (seeds apart: they do not
    change validity); raises one ScenarioError listing each distinct problem once, with
    the points it concerns, so a misspelt grid field fails at once, not once per run."""
    from .scenario import validate

    problems: dict[str, list] = {}
    seen: set[str] = set()
    for t in tasks:
        key = json.dumps(t.params, sort_keys=True, default=str)
        if key in seen:
            continue
        seen.add(key)
        msgs = [t.error] if t.error else []
        if not msgs:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    validate(t.scenario)
            except ScenarioError as e:
                msgs = [f"{p}: {m}" if p else m for p, m in e.errors]
        for m in msgs:
            # One entry per problem: messages that differ only after a ';' (the list of
            # allowed fields, say) are the same problem.
            entry = problems.setdefault(m.split(";")[0], [m, []])
            entry[1].append(key)
    if problems:
        errors = []
        for m, points in problems.values():
            where = ", ".join(points[:3]) + (f" and {len(points) - 3} more" if len(points) > 3 else "")
            errors.append(("sweep", f"{m} (at {len(points)} point(s): {where})"))
        raise ScenarioError(errors)


#: Seconds to wait for a Dask scheduler before giving up.
DASK_CONNECT_TIMEOUT_S = 10


def dask_client(address: str, workers: int):
    """A Dask client (and the LocalCluster for ``"local"``); an unreachable scheduler is a
    ScenarioError naming ``--dask`` after at most DASK_CONNECT_TIMEOUT_S seconds."""
    from distributed import Client, LocalCluster

    if address == "local":
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        return Client(cluster), cluster
    try:
        return Client(address, timeout=f"{DASK_CONNECT_TIMEOUT_S}s"), None
    except (ValueError, TypeError) as e:
        raise ScenarioError([("--dask", f"{address!r} is not a Dask scheduler address ({e}); give tcp://host:port of a "
                                        "running scheduler, or 'local'")]) from None
    except (OSError, TimeoutError) as e:
        raise ScenarioError([("--dask", f"cannot reach the Dask scheduler at {address!r} within {DASK_CONNECT_TIMEOUT_S} s "
                                        f"({type(e).__name__}: {e}); give tcp://host:port of a running scheduler, or 'local'")]) from None


def _dask_results(tasks: list[Task], client):
    """The runs' results as Dask's workers finish them (the caller closes the client)."""
    from distributed import as_completed

    futures = client.map(execute, tasks, pure=False)
    for fut in as_completed(futures):
        yield fut.result()


def usable_cpus() -> int:
    """The cores this process may run on (its CPU affinity: `taskset`, a Slurm allocation,
    a container's cpuset), else the machine's; at least 1. The local pool's default size."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def sweep(base: Scenario | Mapping | PathLike | SweepSpec, *, grid: Mapping[str, list] | None = None,
          zip: Mapping[str, list] | None = None, seeds: int | list[int] = 1, out: PathLike | None = None,
          name: str | None = None, workers: int | None = None, dask: str | None = None, progress: bool = False,
          extract: Callable | None = None, log: Callable[[str], None] | None = None,
          metrics: Iterable[str] | None = None) -> SweepResult:
    """Runs a sweep (see module docs); returns counts and access to the catalog.

    `progress` shows a progress bar (runs done, failed, cached, ETA); `log` receives one
    line per event (start, each finished run when there is no bar, failures, the end).
    `metrics` (default: the sweep file's) are the names the caller will summarise: one no
    run can record is refused before any run, and one the first finished run did not
    record is warned of then, not only after the last run."""
    from multiprocessing import current_process

    if getattr(current_process(), "_inheriting", False):
        # A worker re-running the caller's script (its extract= is defined there) reached
        # the script's sweep: without this, it would open the catalog the caller holds.
        raise RuntimeError("ccsim.sweep() called while a worker process was starting: the script defines its "
                           "extract= function and runs its sweep at the top level; guard the sweep with "
                           "`if __name__ == \"__main__\":`")
    if isinstance(base, SweepSpec):
        spec = base
    else:
        spec = SweepSpec(name=name if name is not None else (as_dict(base).get("name") or "sweep"), base=as_dict(base), grid=plain(dict(grid or {})),
                         zipped=plain(dict(zip or {})), seeds=_seeds(plain(seeds)), extract=extract)
    if name is not None:
        spec.name = name
    spec.name = _check_name(spec.name, folder=not out)
    out = Path(out or Path("results") / spec.name)
    blocker = file_in_the_way(out)
    if blocker:
        raise ScenarioError([("out", f"{blocker}; give a folder (new, or one of earlier sweeps' results)")])
    workers = plain(workers)
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ScenarioError([("workers", f"must be a whole number at least 1 (None: one per usable core), got {workers!r}")])
    workers = workers or usable_cpus()
    if isinstance(metrics, str):
        raise ScenarioError([("metrics", f"expected a list of metric names, e.g. [{metrics!r}], got the string {metrics!r}")])
    metrics = list(spec.metrics if metrics is None else [plain(m) for m in metrics])
    if not all(isinstance(m, str) for m in metrics):
        raise ScenarioError([("metrics", f"expected metric names (strings), got {metrics!r}")])
    check_metric_names(metrics, extract=spec.extract is not None, field="metrics")
    tasks = spec.tasks()
    say = log or (lambda s: None)
    if len(tasks) > 10_000:
        say(f"{spec.name}: {len(tasks):,} runs; checking every point before any runs")
    check_points(tasks)
    # Several seeds/points can resolve to the same scenario (e.g. a seedless model): run once.
    unique: dict[str, Task] = {}
    for t in tasks:
        unique.setdefault(t.run_id, t)
    first = next((t.scenario for t in tasks if t.error is None), None)
    # An extract= the local pool's workers could not receive is refused before anything
    # (the catalog included) is made; with a catalog already there, once it is known that
    # a run is left to do (every run cached starts no worker, so any extract will do).
    pool = not dask and workers > 1
    main = _main_for_workers(spec.extract) if pool and not (out / "catalog.duckdb").exists() else None
    t0 = time.perf_counter()
    fresh = [p for p in (out, out / "catalog.duckdb") if not p.exists()]
    empty = False
    try:
        with Catalog(out, create=True) as cat:
            try:
                return _sweep_in(cat, spec, unique, out, dask, workers, pool, main, metrics, progress, say, first, t0)
            except ScenarioError:
                # Refused before any run (an unreachable Dask scheduler). Only a catalog this
                # call holds, which holds nothing, may go (a catalog another process holds
                # refuses the open above, and is that process's).
                empty = cat.is_empty()
                raise
    except ScenarioError:
        # The catalog (and folder) this call made are not left behind, empty.
        for p in reversed(fresh if empty else []):
            for q in ([p.with_name(p.name + ".wal"), p] if p.suffix == ".duckdb" else [p]):
                try:
                    q.rmdir() if q.is_dir() else q.unlink()
                except OSError:
                    pass
        raise


def _sweep_in(cat, spec, unique, out, dask, workers, pool, main, metrics, progress, say, first, t0) -> "SweepResult":
    """The part of :func:`sweep` that runs with its catalog open."""
    done = cat.done_ids(__version__)
    todo = [t for t in unique.values() if t.run_id not in done]
    cached = len(unique) - len(todo)
    if pool and main is None and todo:
        main = _main_for_workers(spec.extract)
    # A Dask scheduler is reached (or refused) before the sweep is recorded or says it runs
    # there (a refused one had left the sweep's new definition in the catalog).
    client = dask_client(dask, workers) if dask and todo else None
    results = bar = None
    ran = failed = 0
    engine = overhead = 0.0
    try:
        # Recorded once the sweep is accepted (a refused call leaves the list as it was).
        cat.set_members(spec.name, [(t.run_id, t.params, t.seed) for t in unique.values()], __version__)
        own = spec.extract is not None and str(getattr(spec.extract, "__module__", "")).startswith("ccsim.")
        if not todo and spec.extract is not None and not own:
            # The cache is keyed by the scenario alone: a cached run keeps the metrics it was
            # stored with. With every run cached, `extract` is applied to none: harmless when
            # it is the function the runs were stored with, a silent no-op when it is new.
            # (Not said of ccsim's own extracts, the papers': they ship with the version
            # that keys the cache, so a rerun of a reproduction is silent.)
            msg = (f"{spec.name}: every run is cached, so extract={getattr(spec.extract, '__name__', 'fn')} was applied to "
                   f"none; if it is new, the {cached} runs in {out} do not have its metrics (another out, or an empty "
                   "folder, computes it for every run)")
            warnings.warn(msg, UserWarning, stacklevel=3)
            say(f"warning: {msg}")
        if any(isinstance(tr, dict) and tr.get("kind") == "pcap" for t in todo for tr in (t.scenario or {}).get("traces") or []):
            # The runs' tables and series go to the catalog; their captures are not kept.
            say(f"warning: {spec.name}: pcap traces are not kept by a sweep (each run's captures go to a temporary "
                "folder): run a point with `ccsim run --out DIR` for its captures")
        if not todo:
            say(f"{spec.name}: all {len(unique)} runs are already in {out}/catalog.duckdb (ccsim {__version__}): nothing to run")
            return SweepResult(out, spec.name, len(unique), 0, cached, 0, time.perf_counter() - t0, first_scenario=first,
                               run_ids=list(unique))
        say(f"{spec.name}: {len(unique)} runs, {cached} cached, {len(todo)} to run on "
            f"{'dask ' + dask if dask else f'{workers} local worker(s)'}")
        if not dask:
            for t in todo:
                t.out = str(out)
        results = _dask_results(todo, client[0]) if client else _local_results(todo, workers, main)
        bar = _progress(len(unique), cached) if progress else None
        for r in results:
            cat.record(run_id=r["run_id"], version=__version__, sweep=r["sweep"], params=r["params"], seed=r["seed"],
                       status=r["status"], error=r["error"], meta=r["meta"], metrics=r["metrics"], tables=r["tables"])
            ran += 1
            if metrics and r["status"] == "ok":
                absent = _absent_metrics(metrics, r["metrics"])
                metrics = []
                if absent:
                    warnings.warn(absent, UserWarning, stacklevel=3)
                    say(f"warning: {absent}")
            if r["status"] != "ok":
                failed += 1
                say(f"run {r['run_id']} ({json.dumps(r['params'])}, seed {r['seed']}) failed: {r['error'].splitlines()[0]}")
            else:
                engine += r["meta"].get("wall_s", 0.0)
                overhead += r["meta"].get("overhead_s", 0.0)
                if bar is None:
                    say(f"run {r['run_id']} ok ({json.dumps(r['params'])}, seed {r['seed']}, "
                        f"{r['meta'].get('wall_s', 0):.2f} s)")
            if bar:
                bar.advance(r["status"] == "ok")
    finally:
        # Closing the runs' generator shuts its worker pool down here, also when the
        # caller stopped early (an interrupt while recording a run); a Dask client (and
        # its local cluster) is closed even if no run was asked of it.
        if results is not None:
            results.close()
        if bar:
            bar.stop()
        for c in client or ():
            if c is not None:
                c.close()
    wall = time.perf_counter() - t0
    say(f"{spec.name}: ran {ran} ({failed} failed), {cached} cached, in {wall:.1f} s")
    return SweepResult(out, spec.name, len(unique), ran, cached, failed, wall, engine, overhead, first_scenario=first,
                       run_ids=list(unique))


class _progress:
    """A rich progress bar: runs done, failed, cached, ETA."""

    def __init__(self, total: int, cached: int):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self.failed = 0
        self.cached = cached
        self.p = Progress(TextColumn("[bold]sweep"), BarColumn(), MofNCompleteColumn(),
                          TextColumn("{task.fields[info]}"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                          transient=False)
        self.p.start()
        self.task = self.p.add_task("sweep", total=total, completed=cached, info=self._info())

    def _info(self) -> str:
        return f"failed {self.failed} · cached {self.cached}"

    def advance(self, ok: bool) -> None:
        if not ok:
            self.failed += 1
        self.p.update(self.task, advance=1, info=self._info())

    def stop(self) -> None:
        self.p.stop()
