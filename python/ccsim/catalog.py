"""The results catalog: one DuckDB database per results folder, one row per run.

Layout of a results folder::

    DIR/catalog.duckdb          runs(run_id, version, sweep, point, params, seed, status, error, ...)
                                metrics(run_id, name, value)   long format, one row per number
                                sweep_runs(sweep, run_id, version, point, params, seed)
                                    each sweep's runs as last defined, with its own params
    DIR/runs/<run_id>/          flows.parquet, queues.parquet, drops.parquet, series/*.parquet

A run is identified by the content hash of its fully resolved scenario (after overrides
and seed, with the contents of the data files its generators read) together with the ccsim
version: the same scenario under the same version is
never run twice. Only the process that owns the sweep writes the catalog (workers return
their results), each run in one transaction, after its Parquet files are in place.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import math
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterable

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id VARCHAR,
    version VARCHAR,
    sweep VARCHAR,
    point VARCHAR,
    params VARCHAR,
    seed BIGINT,
    status VARCHAR,
    error VARCHAR,
    wall_s DOUBLE,
    events BIGINT,
    sim_time_s DOUBLE,
    finished_at TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (run_id, version)
);
CREATE TABLE IF NOT EXISTS metrics (
    run_id VARCHAR,
    version VARCHAR,
    name VARCHAR,
    value DOUBLE
);
CREATE TABLE IF NOT EXISTS sweep_runs (
    sweep VARCHAR,
    run_id VARCHAR,
    version VARCHAR,
    point VARCHAR,
    params VARCHAR,
    seed BIGINT
);
"""


def _sort_key(col: "pd.Series") -> "pd.Series":
    """Sorts a column of mixed values (a grid of `10` and `"20pkt"`): numbers first, by
    value, then text; a column of one kind sorts as itself."""
    if col.dtype != object:
        return col

    def rank(v: Any) -> tuple:
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return (0, float(v), "")
        return (1, 0.0, v if isinstance(v, str) else json.dumps(v, sort_keys=True, default=str))

    return col.map(rank)


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


def scenario_hash(scenario: dict) -> str:
    """Content hash of a fully resolved scenario (16 hex digits of SHA-256), with the
    contents of the data files its traffic generators read (`file = ...`: arrival times,
    empirical distributions), so that editing such a file runs the scenario again instead
    of returning the runs made with the old contents."""
    files = input_files(scenario)
    payload = scenario if not files else {"scenario": scenario, "input_files": files}
    return hashlib.sha256(canonical_json(payload).encode()).hexdigest()[:16]


def input_files(scenario: Any) -> dict[str, str]:
    """{path: SHA-256 of its contents} of every data file the scenario's generators name
    (paths as the engine opens them; a file that cannot be read: `unreadable`, which the
    run then reports)."""
    found: dict[str, str] = {}

    def walk(d: Any) -> None:
        if isinstance(d, dict):
            for k, v in d.items():
                if k == "file" and isinstance(v, str):
                    found[v] = _file_digest(v)
                else:
                    walk(v)
        elif isinstance(d, list):
            for v in d:
                walk(v)

    if isinstance(scenario, dict):
        walk(scenario.get("generators"))
    return found


_DIGESTS: dict[tuple, str] = {}
#: The largest data file the engine reads (`config::MAX_DATA_FILE_BYTES`).
MAX_DATA_FILE_BYTES = 64 << 20


def _file_digest(path: str) -> str:
    """A file's SHA-256, remembered while the file is unchanged (same inode, size and
    change times: a sweep's many runs name the same files); "unreadable" for what the
    engine refuses (not a regular file: a FIFO would block; larger than it reads)."""
    import stat

    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_DATA_FILE_BYTES:
            return "unreadable"
        key = (os.path.abspath(path), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        if key not in _DIGESTS:
            with open(path, "rb") as f:
                data = f.read(MAX_DATA_FILE_BYTES + 1)
            if len(data) > MAX_DATA_FILE_BYTES:
                return "unreadable"
            if len(_DIGESTS) > 4096:
                _DIGESTS.clear()
            _DIGESTS[key] = hashlib.sha256(data).hexdigest()
        return _DIGESTS[key]
    except (OSError, ValueError):
        return "unreadable"


def point_key(params: dict) -> str:
    return canonical_json(params)


def write_run_tables(root: Path, run_id: str, tables: dict[str, pa.Table]) -> None:
    """Writes one run's tables as `root/runs/<run_id>/<name>.parquet`, atomically: into a
    temporary folder first, then renamed into place (replacing an earlier attempt)."""
    final = Path(root) / "runs" / run_id
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{run_id}.", dir=final.parent))
    try:
        for name, t in tables.items():
            dest = tmp / f"{name}.parquet"
            dest.parent.mkdir(parents=True, exist_ok=True)
            pq.write_table(t, dest)
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def interrupted(e: BaseException) -> bool:
    """Whether `e` is DuckDB's report of a Ctrl-C: a KeyboardInterrupt raised while it read
    a Python object, which it wraps in its own error, or the signal met while a query ran,
    which DuckDB 2.0 raises as a plain ``RuntimeError("Query interrupted")`` (its own
    ``InterruptException`` elsewhere). An error raised while handling one (a statement in
    the transaction the interrupt aborted: "Current transaction is aborted") is one too."""
    seen = 0
    while e is not None and seen < 8:
        if isinstance(e, (KeyboardInterrupt, duckdb.InterruptException)):
            return True
        if isinstance(e, RuntimeError) and not isinstance(e, duckdb.Error) and str(e) == "Query interrupted":
            return True
        if isinstance(e, duckdb.Error) and "KeyboardInterrupt" in str(e):
            return True
        e, seen = e.__cause__ or (None if e.__suppress_context__ else e.__context__), seen + 1
    return False


class Catalog:
    """A results folder's catalog. Use as a context manager or call close().

    `Catalog(DIR)` opens the catalog a sweep or a reproduction wrote in DIR; a folder
    without one is a ScenarioError on `root` (a mistyped folder had been made anew, and
    every query of it was empty). `create=True` (what a sweep does) makes one."""

    def __init__(self, root: str | os.PathLike, read_only: bool = False, create: bool = False):
        self.root = Path(root)
        path = self.root / "catalog.duckdb"
        if not path.exists() and (read_only or not create):
            from .scenario import ScenarioError

            what = "not a folder" if self.root.exists() and not self.root.is_dir() else (
                "a folder without catalog.duckdb" if self.root.is_dir() else "no such folder")
            raise ScenarioError([("root", f"no catalog at {path} ({what}): give the results folder of a sweep or "
                                          "reproduction (ccsim sweep/reproduce --out)")])
        if not read_only:
            self.root.mkdir(parents=True, exist_ok=True)
        try:
            self.con = duckdb.connect(str(path), read_only=read_only)
        except duckdb.IOException as e:
            from .scenario import ScenarioError

            if "lock" in str(e).lower():
                if read_only:
                    raise RuntimeError(f"{path} is open in another process (a sweep or report writing into {self.root}): "
                                       "DuckDB lets no other process read it meanwhile; wait for it to finish (each "
                                       "finished run's files are in runs/<run_id>/ already)") from None
                raise ScenarioError([("out", f"another process is using {path} (a sweep or report into the same folder): "
                                               "wait for it to finish, or give another --out")]) from None
            raise
        if not read_only:
            # A membership list without the sweep's own parameters (written by a version
            # between two commits of 2026-12-07) is rebuilt as each sweep next runs.
            cols = self._members_columns()
            if cols and "params" not in cols:
                self.con.execute("DROP TABLE sweep_runs")
            self.con.execute(SCHEMA)

    def __enter__(self) -> "Catalog":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.con.close()

    # Writing ----------------------------------------------------------------------------
    def has(self, run_id: str, version: str, ok_only: bool = True) -> bool:
        q = "SELECT status FROM runs WHERE run_id = ? AND version = ?"
        row = self.con.execute(q, [run_id, version]).fetchone()
        return row is not None and (row[0] == "ok" or not ok_only)

    def is_empty(self) -> bool:
        """Whether the catalog holds no run and no sweep."""
        return not any(self.con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("runs", "sweep_runs"))

    def done_ids(self, version: str) -> set[str]:
        return {r[0] for r in self.con.execute("SELECT run_id FROM runs WHERE version = ? AND status = 'ok'", [version]).fetchall()}

    def record(self, *, run_id: str, version: str, sweep: str, params: dict, seed: int, status: str,
               error: str | None, meta: dict, metrics: dict[str, float], tables: dict[str, bytes] | None) -> None:
        """Stores one run: Parquet files first (atomically), then its catalog rows in one
        transaction (a failed run replaces an earlier failure; an ok run is final)."""
        if tables:
            self._write_tables(run_id, tables)
        rows = [(run_id, version, k, float(v)) for k, v in sorted(metrics.items())
                if v is not None and isinstance(v, (int, float)) and math.isfinite(float(v))]
        with self._transaction():
            # Only a run recorded before (a failure being retried) has rows to replace; the
            # check uses the runs table's key, so new runs never scan the metrics table.
            if self.con.execute("SELECT 1 FROM runs WHERE run_id = ? AND version = ?", [run_id, version]).fetchone():
                self.con.execute("DELETE FROM runs WHERE run_id = ? AND version = ?", [run_id, version])
                self.con.execute("DELETE FROM metrics WHERE run_id = ? AND version = ?", [run_id, version])
            self.con.execute(
                "INSERT INTO runs (run_id, version, sweep, point, params, seed, status, error, wall_s, events, sim_time_s, "
                "finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [run_id, version, sweep, point_key(params), canonical_json(params), int(seed), status, error,
                 meta.get("wall_s"), meta.get("events"), meta.get("sim_time_s"),
                 # UTC (the column's default would be the session's local time zone).
                 datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)],
            )
            if rows:
                # One Arrow batch instead of a statement per row (executemany is ~0.1 ms per row).
                self._insert("metrics", pa.table({"run_id": [r[0] for r in rows], "version": [r[1] for r in rows],
                                                  "name": [r[2] for r in rows], "value": [r[3] for r in rows]}))

    @contextlib.contextmanager
    def _transaction(self):
        """One transaction; rolled back on any error (the real error is raised, not a
        failed rollback after it: on a full disk the transaction may already be gone)."""
        self.con.execute("BEGIN TRANSACTION")
        try:
            yield
            self.con.execute("COMMIT")
        except BaseException as e:
            try:
                self.con.execute("ROLLBACK")
            except duckdb.Error:
                pass
            if isinstance(e, duckdb.Error) and "space" in str(e).lower():
                raise OSError(28, f"no space left on the device holding {self.root}: {e}") from e
            if interrupted(e):
                # Ctrl-C while DuckDB read an Arrow batch: it reports the interrupt as its own
                # error; the transaction is rolled back, and the interrupt stays one.
                raise KeyboardInterrupt from e
            raise

    def _insert(self, table: str, batch: pa.Table) -> None:
        """Appends an Arrow batch to `table` (its columns in the batch's order)."""
        self.con.register("_batch", batch)
        try:
            self.con.execute(f"INSERT INTO {table} SELECT {', '.join(batch.column_names)} FROM _batch")
        finally:
            self.con.unregister("_batch")

    def set_members(self, sweep: str, runs: Iterable[tuple[str, dict, int]], version: str) -> None:
        """Records the runs of `sweep` as it is now defined, `(run_id, params, seed)` each,
        replacing its earlier list: a sweep re-run with another base scenario or grid is
        then queried for its own runs only, and a run first made (and cached) for another
        sweep counts for this one too, under this sweep's parameters."""
        rows = list({rid: (rid, params, seed) for rid, params, seed in runs}.values())
        with self._transaction():
            self.con.execute("DELETE FROM sweep_runs WHERE sweep = ?", [sweep])
            self._insert("sweep_runs", pa.table({
                "sweep": [sweep] * len(rows), "run_id": [r[0] for r in rows], "version": [version] * len(rows),
                "point": [point_key(r[1]) for r in rows], "params": [canonical_json(r[1]) for r in rows],
                "seed": pa.array([int(r[2]) for r in rows], pa.int64())}))

    def _members_columns(self) -> set[str]:
        """The columns of the membership table (none in catalogs written before it existed)."""
        return {r[0] for r in self.con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'sweep_runs'").fetchall()}

    def _has_members(self, sweep: str) -> bool:
        """Whether this catalog lists `sweep`'s runs (catalogs written before the list
        existed know a sweep only by the runs it stored)."""
        return "params" in self._members_columns() and self.con.execute(
            "SELECT 1 FROM sweep_runs WHERE sweep = ? LIMIT 1", [sweep]).fetchone() is not None

    def _sweep_source(self, sweep: str | None, unlisted_all: bool = False) -> tuple[str, list]:
        """The runs of `sweep` (every run when None) as a FROM clause named `r`, with the
        runs table's columns: a listed sweep's `point`, `params` and `seed` are its own
        (a run cached from another sweep was stored with that sweep's). A sweep this
        catalog does not list (written before the list existed): the runs it stored, or
        every run with `unlisted_all` (the caller names the runs)."""
        listed = sweep is not None and self._has_members(sweep)
        if sweep is None or (unlisted_all and not listed):
            return "runs r", []
        if listed:
            return ("(SELECT u.run_id, u.version, u.sweep, s.point, s.params, s.seed, u.status, u.error, u.wall_s, "
                    "u.events, u.sim_time_s, u.finished_at FROM runs u JOIN sweep_runs s ON s.run_id = u.run_id "
                    "AND s.version = u.version WHERE s.sweep = ?) r", [sweep])
        return "(SELECT * FROM runs WHERE sweep = ?) r", [sweep]

    def _write_tables(self, run_id: str, tables: dict[str, bytes]) -> None:
        write_run_tables(self.root, run_id, {name: pa.ipc.open_stream(ipc).read_all() for name, ipc in tables.items()})

    # Reading ----------------------------------------------------------------------------
    def runs(self, sweep: str | None = None) -> pd.DataFrame:
        """Every run (of `sweep` when given: its runs as last defined, including those it
        found cached from another sweep), one row each with the runs table's columns:
        `sweep` is the sweep that ran it, `point` the parameter point's key (params without
        the seed), `finished_at` the UTC time the run was recorded."""
        if sweep is not None:
            self._check_names(sweep, None)
        source, args = self._sweep_source(sweep)
        q = ("SELECT run_id, version, sweep, point, params, seed, status, error, wall_s, events, sim_time_s, "
             f"finished_at FROM {source}")
        df = self.con.execute(q + " ORDER BY sweep, point, seed", args).df()
        return df

    def metrics(self, sweep: str | None = None, names: Iterable[str] | None = None,
                run_ids: Iterable[str] | None = None, strict: bool = True) -> pd.DataFrame:
        """Wide table: one row per ok run (params expanded into columns, plus seed), one
        column per metric; the runs of `sweep` as last defined (a sweep re-run with another
        base or grid: its new runs only; runs it found cached from another sweep included),
        or only the runs `run_ids` when given (whichever sweep stored them). `strict`: a sweep or metric name this catalog has
        never recorded is a ScenarioError (a typo), not an empty table."""
        source, args = self._sweep_source(sweep, unlisted_all=run_ids is not None)
        q = (f"SELECT r.run_id, r.params, r.seed, m.name, m.value FROM {source} JOIN metrics m "
             "ON r.run_id = m.run_id AND r.version = m.version WHERE r.status = 'ok'")
        if run_ids is not None:
            # Given run ids name the sweep's runs, including those first run (and stored)
            # for another sweep with the identical scenario.
            q += " AND list_contains(?, r.run_id)"
            args.append(list(run_ids))
        names = None if names is None else list(names)
        if strict:
            self._check_names(sweep if run_ids is None else None, names)
        long = self.con.execute(q, args).df()
        if long.empty:
            return pd.DataFrame()
        if names is not None:
            long = long[long["name"].isin(list(names))]
        if long.empty:
            return pd.DataFrame()
        wide = long.pivot_table(index=["run_id", "params", "seed"], columns="name", values="value").reset_index()
        wide.columns.name = None
        params = pd.json_normalize(wide["params"].map(json.loads), sep=".")
        params.columns = [str(c) for c in params.columns]
        for c in params.columns:
            # A swept list (`access_delays`, RIO's `thresholds`) as its JSON text: a value
            # one can group and sort by (a list column made `summary` and the sort fail).
            if params[c].map(lambda v: isinstance(v, (list, dict))).any():
                params[c] = params[c].map(lambda v: json.dumps(v, separators=(", ", ": ")) if isinstance(v, (list, dict)) else v)
        out = pd.concat([params, wide.drop(columns=["params"])], axis=1)
        return out.sort_values(list(params.columns) + ["seed"], key=_sort_key).reset_index(drop=True)

    def _check_names(self, sweep: str | None, names: Iterable[str] | None) -> None:
        """A sweep or metric this catalog has never recorded is a typo, not an empty result:
        a ScenarioError naming the ones it has (a sweep asked of an empty catalog too: a
        mistyped folder is made anew and empty; an empty catalog checks no metric name)."""
        from .scenario import ScenarioError

        if sweep is not None:
            q = "SELECT DISTINCT sweep FROM runs" + (" UNION SELECT DISTINCT sweep FROM sweep_runs" if self._members_columns() else "")
            sweeps = sorted(r[0] for r in self.con.execute(q).fetchall() if r[0] is not None)
            if sweep not in sweeps:
                has = f"it has: {', '.join(sweeps)}" if sweeps else "it holds no runs (a mistyped folder?)"
                raise ScenarioError([("sweep", f"no sweep named {sweep!r} in {self.root}; {has}")])
        if names is not None:
            known = sorted(r[0] for r in self.con.execute("SELECT DISTINCT name FROM metrics").fetchall())
            bad = [n for n in names if n not in set(known)]
            if known and bad:
                import difflib

                near = [m for n in bad for m in difflib.get_close_matches(n, known, n=3)]
                # The run-wide metrics first, then the per-flow and per-queue ones.
                ordered = sorted(known, key=lambda k: (k.startswith(("flows.", "queues.")), k))
                shown = ", ".join(ordered[:12]) + (f", ... ({len(known)} in all)" if len(known) > 12 else "")
                hint = f" (did you mean {', '.join(map(repr, dict.fromkeys(near)))}?)" if near else ""
                raise ScenarioError([("metric", f"unknown metric {', '.join(map(repr, bad))}{hint}; recorded here: {shown}")])

    def summary(self, metric: str | list[str], sweep: str | None = None, confidence: float = 0.95,
                run_ids: Iterable[str] | None = None, strict: bool = True) -> pd.DataFrame:
        """Per parameter point: n, mean, std and a Student-t confidence interval of each metric."""
        from scipy import stats

        from .scenario import ScenarioError

        metrics = [metric] if isinstance(metric, str) else list(metric)
        if not metrics:
            raise ScenarioError([("metric", "give at least one metric name")])
        if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
            raise ScenarioError([("confidence", f"expected a level between 0 and 1 (0.95: a 95 % interval), got {confidence!r}")])
        wide = self.metrics(sweep, metrics, run_ids, strict)
        if wide.empty:
            return wide
        pcols = [c for c in wide.columns if c not in set(metrics) | {"run_id", "seed"}]
        rows = []
        for key, g in wide.groupby(pcols, dropna=False, sort=True) if pcols else [((), wide)]:
            key = key if isinstance(key, tuple) else (key,)
            row = dict(zip(pcols, key))
            for m in metrics:
                x = g[m].dropna().to_numpy(dtype=float) if m in g else []
                n = len(x)
                mean = float(x.mean()) if n else math.nan
                std = float(x.std(ddof=1)) if n > 1 else math.nan
                half = float(stats.t.ppf(0.5 + confidence / 2, n - 1) * std / math.sqrt(n)) if n > 1 else math.nan
                prefix = "" if len(metrics) == 1 else f"{m}."
                row.update({f"{prefix}n": n, f"{prefix}mean": mean, f"{prefix}std": std,
                            f"{prefix}ci_low": mean - half if n > 1 else math.nan,
                            f"{prefix}ci_high": mean + half if n > 1 else math.nan})
            rows.append(row)
        return pd.DataFrame(rows)

    def table(self, run_id: str, name: str = "flows") -> pd.DataFrame:
        """A stored table of one run (`flows`, `queues`, `drops`, or `series/<file>`); a
        run or table this folder does not hold is a ScenarioError naming those it does."""
        folder = self.root / "runs" / str(run_id)
        path = folder / f"{name}.parquet"
        if not path.is_file():
            from .scenario import ScenarioError

            if not folder.is_dir():
                raise ScenarioError([("run_id", f"no run {run_id!r} in {self.root}/runs (runs() lists them)")])
            has = sorted(p.relative_to(folder).with_suffix("").as_posix() for p in folder.rglob("*.parquet"))
            raise ScenarioError([("name", f"run {run_id} has no table {name!r}; it has: {', '.join(has) or 'none'}")])
        return pq.read_table(path).to_pandas()

    def series(self, run_id: str, series_name: str) -> pd.DataFrame:
        """A stored time series of one run, by its name (`queue:r0->r1`, `flow:f0`, ...)."""
        from .results import SERIES_KEY, series_filename
        from .scenario import ScenarioError

        path = f"series/{series_filename(series_name)}"
        folder = self.root / "runs" / str(run_id)

        def holds(p: Path) -> bool | None:
            """Whether file `p` holds this series (None: it does not say, as files written
            before the name was kept in them)."""
            meta = pq.read_schema(p).metadata or {}
            return None if SERIES_KEY not in meta else meta[SERIES_KEY] == series_name.encode("utf-8")

        base = folder / f"{path}.parquet"
        if folder.is_dir() and not (base.is_file() and holds(base) is not False):
            # Two names made the same file name (or one differing only in case): the run's
            # files say which holds this one.
            found = [p for p in sorted((folder / "series").glob("*.parquet")) if holds(p)]
            path = f"series/{found[0].stem}" if found else f"{path}~"
        if folder.is_dir() and not (folder / f"{path}.parquet").is_file():
            # Files hold names made safe for a file system: shown as such, with the rule.
            files = sorted(p.stem for p in (folder / "series").glob("*.parquet"))
            raise ScenarioError([("series_name", f"run {run_id} has no series {series_name!r}; its series files are: "
                                                 f"{', '.join(files) or 'none'} (a name's ':' stored as '_' and '->' as '-', "
                                                 "e.g. queue:r0->r1 in queue_r0-r1)")])
        return self.table(run_id, path)
