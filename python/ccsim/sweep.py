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
import itertools
import json
import math
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from . import __version__
# Where the runs execute, and the metrics they record: private modules, re-exported here.
from ._sweep_exec import (DASK_CONNECT_TIMEOUT_S, _dask_results, _local_results, _main_for_workers,  # noqa: F401 - re-exported
                          dask_client, execute, usable_cpus)
from ._sweep_metrics import QUEUE_METRICS, RUN_METRICS, _absent_metrics, check_metric_names, standard_metrics  # noqa: F401 - re-exported
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
