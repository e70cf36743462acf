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
import tempfile
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
            arrays.append(pa.array(list(data), type=pa.string()))
        names.append(name)
    return pa.table(arrays, names=names)


def series_filename(name: str) -> str:
    """A file-system-safe name for a series (``queue:r0->r1`` -> ``queue_r0-r1``)."""
    s = name.replace("->", "-").replace(":", "_")
    return re.sub(r"[^A-Za-z0-9_.\-]", "_", s)


def _write_parquet_atomic(table: pa.Table, path: Path) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        pq.write_table(table, tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _write_text_atomic(text: str, path: Path) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


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
        arrivals, departures, drops (packets and bytes), packets queued at the end."""
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
        (``ideal_s``) and the slowdown (their ratio). Flows still open at the end have NaN ends."""
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
        try:
            return self._series[name].to_pandas()
        except KeyError:
            known = ", ".join(self._series) or "none (add [[traces]] to the scenario)"
            raise KeyError(f"no series {name!r}; recorded series: {known}") from None

    def series_arrow(self, name: str) -> pa.Table:
        return self._series[name]

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
    def save(self, out: str | os.PathLike) -> Path:
        """Writes ``summary.json``, ``flows.parquet``, ``queues.parquet``, ``drops.parquet``,
        ``series/*.parquet`` and ``scenario.json`` under ``out``. Every file is written to a
        temporary name and renamed, and ``summary.json`` is written last, so a directory
        with a summary is complete."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        summary = out / "summary.json"
        if summary.exists():
            summary.unlink()
        for k, t in self.tables.items():
            _write_parquet_atomic(t, out / f"{k}.parquet")
        sdir = out / "series"
        if sdir.exists():
            shutil.rmtree(sdir)
        if self._series:
            sdir.mkdir()
            for name, t in self._series.items():
                _write_parquet_atomic(t, sdir / f"{series_filename(name)}.parquet")
        if self.scenario is not None:
            _write_text_atomic(json.dumps(self.scenario, indent=2, sort_keys=True), out / "scenario.json")
        pcaps = {}
        if self.files:
            pdir = out / "pcap"
            pdir.mkdir(exist_ok=True)
            for link, path in self.files.items():
                src = Path(path)
                dst = pdir / src.name
                if src.resolve() != dst.resolve():
                    tmp = pdir / f".{src.name}.tmp"
                    shutil.copyfile(src, tmp)
                    os.replace(tmp, dst)
                pcaps[link] = f"pcap/{src.name}"
            self.files = {link: str(out / rel) for link, rel in pcaps.items()}
        s = self.summary()
        s["series"] = {name: f"series/{series_filename(name)}.parquet" for name in self._series}
        s["pcap"] = pcaps
        _write_text_atomic(json.dumps(s, indent=2, allow_nan=False), summary)
        return out

    @classmethod
    def load(cls, out: str | os.PathLike) -> "Results":
        """Reads a directory written by :meth:`save`."""
        out = Path(out)
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
