"""Results of one run: columnar tables (Arrow), DataFrames, and files on disk.

Tables leave the engine as raw column buffers and become Arrow tables without a Python
object per value; ``.flows``, ``.queues``, ``.drops`` and ``.series(name)`` are pandas
DataFrames built from them.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


#: The result tables every run has (one parquet file each).
TABLES = ("flows", "queues", "drops", "elements", "receivers", "fct", "queue_classes", "flow_classes")


def _arrow(cols: list) -> pa.Table:
    arrays, names = [], []
    for name, kind, data in cols:
        if kind == "f64":
            arrays.append(pa.array(np.frombuffer(data, dtype="<f8")))
        elif kind == "i64":
            arrays.append(pa.array(np.frombuffer(data, dtype="<i8")))
        else:
            # (rows, offsets as little-endian i32, UTF-8 bytes): Arrow's own string layout.
            n, offsets, text = data
            arrays.append(pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(text)))
        names.append(name)
    return pa.table(arrays, names=names)


def series_filename(name: str) -> str:
    """A file-system-safe name for a series (``queue:r0->r1`` -> ``queue_r0-r1``). Two
    names can give the same one (``a->b-c`` and ``a-b->c``, ``f x`` and ``f_x``): a run's
    files are named by :func:`series_files`, which tells them apart."""
    s = name.replace("->", "-").replace(":", "_")
    return re.sub(r"[^A-Za-z0-9_.\-]", "_", s)


#: The key in a series file's schema metadata that holds the series' own name.
SERIES_KEY = b"ccsim.series"


def series_files(names) -> dict[str, str]:
    """Each series' file (``series/<name>.parquet``, relative to a run's folder), unique
    even where :func:`series_filename` gives two names the same file, or names that differ
    only in case (one file on a case-insensitive file system): the later of the two, in the
    run's order of series, gets ``~2`` (``~3``, ...) after its name."""
    files, taken = {}, set()
    for name in names:
        base = series_filename(name)
        stem, k = base, 1
        while stem.lower() in taken:
            k += 1
            stem = f"{base}~{k}"
        taken.add(stem.lower())
        files[name] = f"series/{stem}.parquet"
    return files


def named_series(name: str, t: pa.Table) -> pa.Table:
    """`t` with the series' name in its schema metadata ([`SERIES_KEY`]), so that a file
    says which series it holds whatever its name."""
    return t.replace_schema_metadata({**(t.schema.metadata or {}), SERIES_KEY: name.encode("utf-8")})


def file_in_the_way(out: Path) -> str | None:
    """Says which file (not folder) `out` or one of its parents is, if one is: `--out
    afile/sub` cannot be made whatever is written."""
    for p in (out, *out.parents):
        if p.exists():
            return None if p.is_dir() else f"{p} is a file" + ("" if p == out else f" (in {out})")
    return None


#: Files a file manager leaves in any folder it shows (macOS's Finder, Windows' Explorer):
#: not the user's data, so they do not stop a results folder being replaced.
_OS_LITTER = frozenset({".DS_Store", "Thumbs.db", "desktop.ini"})


def _litter(p: Path) -> bool:
    return p.name in _OS_LITTER and p.is_file() and not p.is_symlink()


def _not_ccsims(out: Path) -> list[str]:
    """The entries of folder `out` that a results folder written by :meth:`Results.save`
    would not hold (hidden ones included, a file manager's ``.DS_Store``, ``Thumbs.db`` and
    ``desktop.ini`` apart): all of them unless its ``summary.json`` is ccsim's; otherwise
    anything but the tables, ``scenario.json`` and the series and captures that summary
    lists."""
    entries = sorted((p for p in out.iterdir() if not _litter(p)), key=lambda p: p.name)
    try:
        s = json.loads((out / "summary.json").read_text(encoding="utf-8"))
        listed = {*s.get("series", {}).values(), *s.get("pcap", {}).values()} if isinstance(s.get("meta"), dict) else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        listed = None
    if listed is None:
        return [p.name + ("/" if p.is_dir() else "") for p in entries]
    own = {"summary.json", "scenario.json", *(f"{k}.parquet" for k in TABLES)}
    foreign = []
    for p in entries:
        if p.name in ("series", "pcap") and p.is_dir() and not p.is_symlink():
            foreign += [f"{p.name}/{q.name}" for q in sorted(p.iterdir())
                        if not _litter(q) and (f"{p.name}/{q.name}" not in listed or not q.is_file()
                                                   or q.is_symlink())]
        elif p.name not in own or not p.is_file():
            foreign.append(p.name + ("/" if p.is_dir() else ""))
    return foreign


def check_out_dir(out: Path) -> None:
    """Refuses an output folder ccsim must not replace: an existing file, a folder that
    holds anything an earlier run's results would not (any file or folder, hidden ones
    included, unless its ``summary.json`` is ccsim's; then anything but the files that
    summary lists), or a place it cannot write. A results folder is replaced as a whole, so
    a file a user adds to one (notes, an analysis) makes it refused too. Raises
    ScenarioError naming ``out`` (the command line shows it as ``--out``)."""
    from .scenario import ScenarioError

    blocker = file_in_the_way(out)
    if blocker:
        raise ScenarioError([("out", f"{blocker}; give a folder (new, empty, or an earlier results folder)")])
    if out.is_dir():
        try:
            foreign = _not_ccsims(out)
        except OSError as e:
            raise ScenarioError([("out", f"cannot read {out}: {e.strerror}")]) from None
        if foreign:
            shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
            raise ScenarioError([("out", f"{out} holds files an earlier run's results would not ({shown}): ccsim "
                                           "replaces a results folder as a whole, so give a new or empty folder "
                                           "(or move those files out)")])
    parent = out.resolve().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ScenarioError([("out", f"cannot create {parent}: {e.strerror}")]) from None
    if not os.access(parent, os.W_OK | os.X_OK) or (out.is_dir() and not os.access(out, os.W_OK | os.X_OK)):
        raise ScenarioError([("out", f"cannot write in {parent}")])


def staging_dir(out: str | os.PathLike) -> Path:
    """A fresh folder beside ``out`` for a run's outputs before they replace ``out``; staging
    folders of runs killed earlier (their process gone) are removed first."""
    out = Path(out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    for old in out.parent.glob(f".{out.name}.partial-*"):
        pid = old.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    stage = out.parent / f".{out.name}.partial-{os.getpid()}"
    shutil.rmtree(stage, ignore_errors=True)
    try:
        stage.mkdir()
    except OSError as e:
        # Named as the user's folder (the staging folder is ccsim's own).
        from .scenario import ScenarioError

        raise ScenarioError([("out", f"cannot write {out} (nothing can be created in {out.parent}: {e.strerror})")]) from None
    return stage


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _swap_into_place(stage: Path, out: Path) -> None:
    """Replaces ``out`` by ``stage`` (two renames on one file system; the old folder is
    removed after)."""
    out = out.resolve()
    old = None
    if out.exists():
        old = out.parent / f".{out.name}.old-{os.getpid()}"
        shutil.rmtree(old, ignore_errors=True)
        os.replace(out, old)
    os.replace(stage, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _clean(v: Any) -> Any:
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None
    if isinstance(v, (np.floating,)):
        return _clean(float(v))
    if isinstance(v, (np.integer,)):
        return int(v)
    return v


class Results:
    """One run's results."""

    def __init__(self, meta: dict, tables: dict[str, pa.Table], series: dict[str, pa.Table], scenario: dict | None = None,
                 files: dict[str, str] | None = None):
        self.meta = meta
        self.tables = tables
        self._series = series
        self.scenario = scenario
        #: pcap captures: link direction -> file path.
        self.files = dict(files or {})

    @classmethod
    def from_raw(cls, raw: dict, scenario: dict | None = None) -> "Results":
        tables = {k: _arrow(raw[k]) for k in TABLES if k in raw}
        series = {name: _arrow(cols) for name, cols in raw["series"]}
        meta = dict(raw["meta"])
        meta["warnings"] = list(raw.get("warnings", []))
        # Every component's resolved parameters (defaults filled in), as scenario values.
        meta["params"] = json.loads(meta.pop("params_json", "null"))
        return cls(meta, tables, series, scenario, dict(raw.get("files", [])))

    # Tables -----------------------------------------------------------------------------
    @property
    def flows(self):
        """One row per flow: packets and bytes sent/delivered, goodput, drops, delay."""
        return self.tables["flows"].to_pandas()

    @property
    def queues(self):
        """One row per link direction: arrivals, departures, drops by reason, mean length, utilisation."""
        return self.tables["queues"].to_pandas()

    @property
    def drops(self):
        """Where each flow lost packets: one row per (flow, link direction or element, reason, direction)."""
        return self.tables["drops"].to_pandas()

    @property
    def queue_classes(self):
        """Per traffic class (DSCP) at each link direction that carried a marked packet:
        arrivals, departures, drops (packets and bytes; by reason in ``drops_<reason>``),
        packets queued at the end."""
        return self.tables["queue_classes"].to_pandas()

    @property
    def flow_classes(self):
        """Per traffic class of each flow with a marked packet: sent, delivered (packets,
        bytes, payload) and dropped, with the class each packet had there."""
        return self.tables["flow_classes"].to_pandas()

    @property
    def fct(self):
        """One row per flow opened by a traffic generator: size, start and end, flow completion
        time (``fct_s``), the time the same transfer takes alone on its idle path
        (``ideal_s``) and the slowdown (their ratio), and ``complete`` (1 if the receiver held
        every byte when the flow ended: 0 for a UDP burst that lost a packet, or a UDT ``ns2``
        transfer whose ACKs stepped over holes). Flows still open at the end have NaN ends."""
        return self.tables["fct"].to_pandas()

    @property
    def receivers(self):
        """One row per (flow, receiver): delivered packets and bytes, goodput, delay (flows
        with several receivers, multicast, have one row per receiver)."""
        return self.tables["receivers"].to_pandas()

    @property
    def elements(self):
        """One row per node element: arrivals, departures, drops by reason, copies, packets held."""
        return self.tables["elements"].to_pandas()

    @property
    def series_names(self) -> list[str]:
        return list(self._series)

    def series(self, name: str):
        """A sampled time series (``queue:r0->r1``, ``flow:f0``) as a DataFrame."""
        return self.series_arrow(name).to_pandas()

    def series_arrow(self, name: str) -> pa.Table:
        """A series as an Arrow table; a name not recorded is a KeyError listing those that are."""
        try:
            return self._series[name]
        except KeyError:
            known = ", ".join(self._series) or "none (add [[traces]] to the scenario)"
            raise KeyError(f"no series {name!r}; recorded series: {known}") from None

    # Summaries --------------------------------------------------------------------------
    def summary(self) -> dict:
        """A JSON-ready digest: run metadata, per-flow and per-queue headline figures."""
        f = self.tables["flows"].to_pydict()
        q = self.tables["queues"].to_pydict()
        flows = [
            {k: _clean(f[k][i]) for k in ("name", "kind", "src", "dst", "goodput_bps", "sent_pkts", "delivered_pkts",
                                            "queue_drops", "wire_losses", "loss_rate", "delay_mean_s")}
            for i in range(len(f["name"]))
        ]
        queues = [
            {k: _clean(q[k][i]) for k in ("link", "direction", "queue", "arrivals", "departures", "drops_overflow",
                                            "drops_early", "drops_forced", "drops_loss", "mean_len_pkts", "max_len_pkts",
                                            "utilization")}
            for i in range(len(q["link"]))
            if q["arrivals"][i] > 0
        ]
        total = sum(x["goodput_bps"] or 0 for x in flows)
        return {"meta": dict(self.meta), "total_goodput_bps": total, "flows": flows, "queues": queues}

    # Files ------------------------------------------------------------------------------
    def save(self, out: str | os.PathLike, staging: str | os.PathLike | None = None) -> Path:
        """Writes ``summary.json`` (last), the tables (``flows.parquet``, ``queues.parquet``,
        ...), ``series/*.parquet``, ``pcap/*.pcap`` and ``scenario.json`` as the folder
        ``out``, all at once: everything is written into a staging folder beside it
        (``staging``, e.g. from :func:`staging_dir`, whose ``pcap/`` may already hold the
        run's captures) that then replaces ``out``. An interrupted save leaves the previous
        results whole; ``out`` must be new, empty, or an earlier results folder holding
        nothing else than what its ccsim ``summary.json`` lists (see :func:`check_out_dir`):
        anything else is refused rather than overwritten."""
        out = Path(out)
        check_out_dir(out)
        stage = Path(staging) if staging is not None else staging_dir(out)
        stage.mkdir(parents=True, exist_ok=True)
        for k, t in self.tables.items():
            pq.write_table(t, stage / f"{k}.parquet")
        files = series_files(self._series)
        if self._series:
            (stage / "series").mkdir(exist_ok=True)
            for name, t in self._series.items():
                pq.write_table(named_series(name, t), stage / files[name])
        if self.scenario is not None:
            (stage / "scenario.json").write_text(json.dumps(self.scenario, indent=2, sort_keys=True), encoding="utf-8")
        pcaps = {}
        if self.files:
            pdir = stage / "pcap"
            pdir.mkdir(exist_ok=True)
            for link, path in self.files.items():
                src = Path(path)
                if src.resolve() != (pdir / src.name).resolve():
                    shutil.copyfile(src, pdir / src.name)
                pcaps[link] = f"pcap/{src.name}"
        s = self.summary()
        s["series"] = files
        s["pcap"] = pcaps
        (stage / "summary.json").write_text(json.dumps(s, indent=2, allow_nan=False), encoding="utf-8")
        _swap_into_place(stage, out)
        self.files = {link: str(out / rel) for link, rel in pcaps.items()}
        return out

    @classmethod
    def load(cls, out: str | os.PathLike) -> "Results":
        """Reads a directory written by :meth:`save` (a folder without its summary.json is
        a ScenarioError on `out`)."""
        out = Path(out)
        if not (out / "summary.json").is_file():
            from .scenario import ScenarioError

            what = "no such folder" if not out.exists() else "not a folder" if not out.is_dir() else "no summary.json in it"
            raise ScenarioError([("out", f"{out} holds no results ({what}): give a folder written by ccsim run --out or Results.save")])
        s = json.loads((out / "summary.json").read_text())
        tables = {k: pq.read_table(out / f"{k}.parquet") for k in TABLES if (out / f"{k}.parquet").exists()}
        series = {name: pq.read_table(out / rel) for name, rel in s.get("series", {}).items()}
        scen = json.loads((out / "scenario.json").read_text()) if (out / "scenario.json").exists() else None
        files = {link: str(out / rel) for link, rel in s.get("pcap", {}).items()}
        return cls(s["meta"], tables, series, scen, files)

    def __repr__(self) -> str:
        m = self.meta
        return (f"Results({m.get('name')!r}, seed={m.get('seed')}, {self.tables['flows'].num_rows} flows, "
                f"{m.get('events')} events, {m.get('sim_time_s')} s simulated in {m.get('wall_s', 0):.3f} s)")
