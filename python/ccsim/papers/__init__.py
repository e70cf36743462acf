"""Paper reproductions: each paper is a module declaring its experiments (sweeps), its
figures and tables, the parameters it used (and every default ccsim chose where the
paper is silent), and its claims with a comparison rule. `ccsim reproduce PAPER` runs the
sweeps (cached in the results catalog) and writes `report.md` and `report.html`.

A paper module defines `PAPER`, an instance of a :class:`Paper` subclass.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import sys
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..sweep import SweepSpec

MODES = ("quick", "full")


@dataclass
class Parameter:
    """One parameter of the study: its value and where it comes from."""

    name: str
    value: Any
    source: str  # "paper" or "ccsim default"
    why: str = ""


@dataclass
class Figure:
    id: str
    title: str
    path: Path
    caption: str = ""


@dataclass
class ReportTable:
    id: str
    title: str
    frame: pd.DataFrame
    note: str = ""


@dataclass
class Verdict:
    """A claim of the paper checked against ccsim's runs."""

    id: str
    statement: str
    paper: str
    ccsim: str
    #: An outcome of :mod:`ccsim.papers.verdict` ("holds", "does not hold", "inconclusive",
    #: "not evaluated"), or a bool for a claim without noise, or None (not evaluated).
    holds: bool | str | None
    rule: str
    reason: str = ""

    def __post_init__(self):
        from .verdict import OUTCOMES

        if isinstance(self.holds, str) and self.holds not in OUTCOMES:
            raise ValueError(f"verdict {self.id}: outcome {self.holds!r} is not one of {OUTCOMES}")

    @property
    def label(self) -> str:
        if isinstance(self.holds, str):
            return self.holds
        return {True: "holds", False: "does not hold", None: "not evaluated"}[self.holds]


def tally(verdicts: list[Verdict]) -> str:
    """`3 hold, 2 do not hold, 4 inconclusive (of 9)`."""
    from collections import Counter

    c = Counter(v.label for v in verdicts)
    parts = [f"{c['holds']} hold"] + [f"{c[k]} {w}" for k, w in (("does not hold", "do not hold"), ("inconclusive", "inconclusive"),
                                                                   ("not evaluated", "not evaluated")) if c[k]]
    return f"{', '.join(parts)} (of {len(verdicts)})"


@dataclass
class Context:
    """What a paper's figure/table/claim code gets: the catalog, the output folder, the mode."""

    catalog: Any
    out: Path
    mode: str
    sweeps: dict[str, Any] = field(default_factory=dict)

    def _ids(self, sweep: str):
        """The runs of this reproduction's definition of `sweep` (None: every run of that name)."""
        res = self.sweeps.get(sweep)
        return None if res is None else res.run_ids

    # Not strict: a report asks for the sweeps of both modes, and a quick run has only some.
    def summary(self, sweep: str, metric: str | list[str]) -> pd.DataFrame:
        return self.catalog.summary(metric, sweep=sweep, run_ids=self._ids(sweep), strict=False)

    def metrics(self, sweep: str, names=None) -> pd.DataFrame:
        return self.catalog.metrics(sweep, names, run_ids=self._ids(sweep), strict=False)

    def frame(self, sweep: str) -> pd.DataFrame:
        """Every metric of `sweep`, read once per report (shared: do not modify it)."""
        cache = self.__dict__.setdefault("_frames", {})
        if sweep not in cache:
            cache[sweep] = self.metrics(sweep)
        return cache[sweep]

    def first_run(self, sweep: str) -> str | None:
        """The id of the first successful run of this reproduction's `sweep` (a trace run)."""
        ids = self._ids(sweep)
        from ..scenario import ScenarioError

        try:
            runs = self.catalog.runs(sweep)
        except ScenarioError:  # a sweep this catalog does not hold: no run
            return None
        for _, r in runs.iterrows():
            if r["status"] == "ok" and (ids is None or r["run_id"] in ids):
                return r["run_id"]
        return None


class Paper(ABC):
    """Base class of a paper module. Override what the paper has; `experiments` is required."""

    id: str = ""
    title: str = ""
    citation: str = ""
    summary: str = ""

    def parameters(self, mode: str) -> list[Parameter]:
        return []

    @abstractmethod
    def experiments(self, mode: str) -> list[SweepSpec]:
        """The sweeps to run in `mode` ("quick" for CI, "full" for the real study)."""

    def figures(self, ctx: Context) -> list[Figure]:
        return []

    def tables(self, ctx: Context) -> list[ReportTable]:
        return []

    def claims(self, ctx: Context) -> list[Verdict]:
        return []

    def discussion(self, ctx: Context) -> str:
        """Free text for the report: what deviates and why, what ccsim adds."""
        return ""


# Paper id -> (module, title, issue). A module of None is not implemented yet.
REGISTRY: dict[str, tuple[str | None, str, str]] = {
    "diffserv-marker": ("ccsim.papers.diffserv_marker", "A: DiffServ assured service, token-bucket vs data-buffer marker, RIO", "done"),
    "atm-mcs": ("ccsim.papers.atm_mcs", "B: TCP multicast through an ATM Multicast Server, EPD+SPD", "implemented"),
    "westwood-abe": ("ccsim.papers.westwood_abe", "C: TCP Westwood bandwidth estimation under random loss", "implemented"),
    "udt-rtt": ("ccsim.papers.udt_rtt", "D: UDT rate control by RTT prediction", "implemented"),
    "eimd": ("ccsim.papers.eimd", "E: EIMD high-speed TCP vs HSTCP, BIC, CUBIC, Scalable", "implemented"),
}


def available() -> list[str]:
    return [k for k, (m, _, _) in REGISTRY.items() if m]


def load_paper(paper_id: str) -> Paper:
    from ..scenario import ScenarioError

    if paper_id not in REGISTRY:
        raise ScenarioError([("paper", f"unknown paper '{paper_id}'; known: {', '.join(REGISTRY)}, all")])
    module, _, status = REGISTRY[paper_id]
    if module is None:
        raise ScenarioError([("paper", f"'{paper_id}' is {status}; implemented: {', '.join(available()) or 'none yet'}")])
    return importlib.import_module(module).PAPER


#: Folders of the paper modules loaded from the user's files (`load_paper_file`): errors
#: raised in code there are the user's (the command line shows their traceback).
USER_CODE: set[Path] = set()


def load_paper_file(path: str | Path) -> Paper:
    """Loads a user's paper module from a .py file (it must define PAPER)."""
    from ..scenario import ScenarioError

    path = Path(path)
    USER_CODE.add(path.resolve().parent)
    # Imported by its own name from its folder (put on sys.path), so that functions it
    # defines (an `extract=`) can be sent to sweep workers, which import it the same way;
    # a name already taken (a module of the same name) is loaded under a private one.
    name = path.stem if path.stem.isidentifier() and path.stem not in sys.modules else f"ccsim_user_paper_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None or not path.exists():
        raise ScenarioError([("--module", f"cannot load {path}")])
    mod = importlib.util.module_from_spec(spec)
    if name == path.stem:
        folder = str(path.resolve().parent)
        if folder not in sys.path:
            sys.path.insert(0, folder)
        sys.modules[name] = mod
    spec.loader.exec_module(mod)
    if not isinstance(getattr(mod, "PAPER", None), Paper):
        raise ScenarioError([("--module", f"{path} defines no PAPER (an instance of ccsim.papers.Paper)")])
    return mod.PAPER


# Comparison rules for claims ------------------------------------------------------------

def within(value: float, target: float, rel: float) -> bool:
    return math.isfinite(value) and abs(value - target) <= rel * abs(target)


def increasing(values: list[float], strict: bool = True) -> bool:
    pairs = list(zip(values, values[1:]))
    return all(b > a for a, b in pairs) if strict else all(b >= a for a, b in pairs)


def ordered(values: dict[str, float], order: list[str]) -> bool:
    """True if values[order[0]] > values[order[1]] > ..."""
    seq = [values[k] for k in order]
    return all(a > b for a, b in zip(seq, seq[1:]))
