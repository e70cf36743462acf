"""Scenarios as data: load TOML, build from Python, override fields, validate.

There is one schema and one validator, in the Rust core; this module only moves trees
around. A scenario is a plain dict (what a TOML file parses to) or a :class:`Scenario`
builder around one. Field paths look like ``links[2].delay``, ``simulation.seed`` or
``flows[*].rate`` (``*`` = every element).
"""

from __future__ import annotations

import copy
import json
import os
import re
from pathlib import Path
from typing import Any, Iterable, Mapping

from . import _core

PathLike = str | os.PathLike


class ScenarioWarning(UserWarning):
    """Valid scenario input that is probably not what was meant (a bare number as a rate,
    a flow that starts after the end of the run)."""


class ScenarioError(ValueError):
    """A scenario is invalid. ``errors`` is a list of ``(path, message)``."""

    def __init__(self, errors: Iterable[tuple[str, str]]):
        self.errors = [(str(p), str(m)) for p, m in errors]
        super().__init__(self.__str__())

    def __str__(self) -> str:
        lines = [f"{p}: {m}" if p else m for p, m in self.errors]
        if len(lines) == 1:
            return lines[0]
        return f"{len(lines)} problems:\n" + "\n".join(f"  - {line}" for line in lines)


def _raise_invalid(exc: Exception) -> None:
    args = exc.args[0] if exc.args else [("", str(exc))]
    raise ScenarioError(args) from None


def loads(text: str) -> dict:
    """Parses TOML text into a scenario dict."""
    try:
        return json.loads(_core.toml_to_json(text))
    except _core.ScenarioInvalid as e:
        _raise_invalid(e)
        raise  # unreachable


def load(path: PathLike) -> dict:
    """Reads a scenario file into a dict: TOML, or JSON when it ends in `.json` (a results
    folder's `scenario.json`, the scenario as run)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError([("", f"scenario file not found: {p}")]) from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise ScenarioError([("", f"cannot read scenario file {p}: {e}")]) from None
    if p.suffix.lower() == ".json":
        try:
            d = json.loads(text)
        except ValueError as e:
            raise ScenarioError([("", f"{p}: not valid JSON: {e}")]) from None
        if not isinstance(d, dict):
            raise ScenarioError([("", f"{p}: a JSON scenario is an object ({{...}}), got {type(d).__name__}")])
    else:
        try:
            d = loads(text)
        except ScenarioError as e:
            raise ScenarioError([(pth, f"{p}: {m}" if not pth else m) for pth, m in e.errors]) from None
    gens = d.get("generators")
    if isinstance(gens, list):
        for g in gens:
            _resolve_files(g, p.resolve().parent)
    return d


def _resolve_files(d: Any, base: Path) -> None:
    """Data files a traffic generator names (``file = "sizes.csv"``: an empirical size or
    think-time distribution, arrival times) are relative to the scenario file's folder."""
    if isinstance(d, dict):
        for k, v in d.items():
            if k == "file" and isinstance(v, str) and v and not Path(v).is_absolute():
                d[k] = str(base / v)
            else:
                _resolve_files(v, base)
    elif isinstance(d, list):
        for v in d:
            _resolve_files(v, base)


def plain(v: Any) -> Any:
    """A fresh copy of `v` with NumPy scalars and arrays as the Python numbers and lists
    they hold (grids built with `np.arange`, values read from a DataFrame), tuples as lists;
    anything else is copied as it is (and refused later if it is not plain data)."""
    import sys

    np = sys.modules.get("numpy")
    if np is not None:
        if isinstance(v, np.ndarray):
            # Numbers come out as Python's at once (a long array is not walked again).
            return v.tolist() if v.dtype.kind in "biuf" else plain(v.tolist())
        if isinstance(v, np.generic):
            return v.item()
    if isinstance(v, Mapping):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return copy.deepcopy(v)


def as_dict(scenario: "Scenario | Mapping | PathLike") -> dict:
    """Any accepted scenario form -> a fresh dict."""
    try:
        if isinstance(scenario, Scenario):
            return plain(scenario.data)
        if isinstance(scenario, Mapping):
            return plain(dict(scenario))
    except RecursionError:
        raise ScenarioError([("", f"the scenario is nested more than {MAX_DEPTH} levels deep")]) from None
    if isinstance(scenario, (str, os.PathLike)):
        d = load(scenario)
        if "base" in d and "simulation" not in d:
            raise ScenarioError([("", f"{os.fspath(scenario)} is a sweep file (base, no [simulation]), not a scenario: run "
                                      f"it with `ccsim sweep {os.fspath(scenario)}` or ccsim.sweep(ccsim.load_sweep(...)), or "
                                      "run its base scenario (docs/sweeps.md)")])
        return d
    raise ScenarioError([("", f"expected a Scenario, a dict or a path to a TOML file, got {type(scenario).__name__}")])


#: Deepest nesting of tables and lists a scenario may have.
MAX_DEPTH = 64


def _check_data(v: Any, path: str, depth: int = 0) -> None:
    """Plain data only (tables with string keys, lists, strings, booleans, finite numbers
    that fit in 64 bits), at most MAX_DEPTH deep: else a ScenarioError naming the field."""
    if depth > MAX_DEPTH:
        raise ScenarioError([(path, f"nested more than {MAX_DEPTH} levels deep")])
    if isinstance(v, Mapping):
        for k, x in v.items():
            if not isinstance(k, str):
                raise ScenarioError([(path, f"table keys must be strings, got {type(k).__name__} {k!r}")])
            _check_data(x, f"{path}.{k}" if path else k, depth + 1)
    elif isinstance(v, (list, tuple)):
        for i, x in enumerate(v):
            _check_data(x, f"{path}[{i}]", depth + 1)
    elif isinstance(v, bool) or v is None or isinstance(v, str):
        return
    elif isinstance(v, int):
        if not -(2**63) <= v < 2**64:
            raise ScenarioError([(path, f"number {v} does not fit in 64 bits")])
    elif isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise ScenarioError([(path, f"expected a finite number, got {v}")])
    else:
        raise ScenarioError([(path, f"expected plain data (a number, string, boolean, list or table), got {type(v).__name__}")])


def _to_json(d: Mapping) -> str:
    _check_data(d, "")
    try:
        return json.dumps(d, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as e:
        raise ScenarioError([("", f"scenario is not plain data (numbers, strings, lists, tables): {e}")]) from None


def validate(scenario: "Scenario | Mapping | PathLike") -> dict:
    """Validates; returns a short description (with ``warnings``: (path, message) pairs,
    also issued as :class:`ScenarioWarning`), raises :class:`ScenarioError` listing every
    problem."""
    d = as_dict(scenario)
    try:
        info = _core.validate(_to_json(d))
    except _core.ScenarioInvalid as e:
        _raise_invalid(e)
        raise
    warn_all(info.get("warnings", []))
    return info


def warn_all(warnings_: Iterable) -> None:
    """Issues scenario warnings ((path, message) pairs or strings) as ScenarioWarning."""
    import warnings

    for w in warnings_:
        text = f"{w[0]}: {w[1]}" if isinstance(w, (tuple, list)) and len(w) == 2 else str(w)
        warnings.warn(text, ScenarioWarning, stacklevel=3)


def params(scenario: "Scenario | Mapping | PathLike") -> dict:
    """Every component's resolved parameters (defaults filled in, times in seconds, rates
    in bit/s), from the typed configurations the engine builds: ``links`` (per direction:
    queue and loss model), ``flows``, ``elements``, ``generators``."""
    d = as_dict(scenario)
    try:
        return json.loads(_core.params(_to_json(d)))
    except _core.ScenarioInvalid as e:
        _raise_invalid(e)
        raise


def flatten_params(p: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """``params(...)`` as (path, value) pairs, e.g. ``links[0].ab.queue.params.limit``."""
    if isinstance(p, dict):
        return [kv for k, v in p.items() for kv in flatten_params(v, f"{prefix}.{k}" if prefix else k)]
    if isinstance(p, list) and p and all(isinstance(x, (dict, list)) for x in p):
        return [kv for i, v in enumerate(p) for kv in flatten_params(v, f"{prefix}[{i}]")]
    return [(prefix, p)]


_TOKEN = re.compile(r"([^.\[\]]+)|\[(\*|\d+)\]")
#: A whole field path: a key, then `.key` or `[index]` (a whole number without leading
#: zeros, or `*`) steps; keys hold no dots, brackets or spaces.
_PATH = re.compile(r"[^.\[\]\s]+(?:\.[^.\[\]\s]+|\[(?:\*|0|[1-9]\d*)\])*")


def _split_path(path: str) -> list[str | int]:
    path = path.strip()
    if not path:
        raise ScenarioError([(path, "empty field path")])
    if not _PATH.fullmatch(path):
        # flows[0]..rate, .flows[0].rate, flows[0]rate, flows [0].rate and flows[00] had
        # been read as flows[0].rate.
        raise ScenarioError([(path, "invalid field path: keys joined by single dots, list indices in brackets right "
                                    "after a key (use e.g. links[0].rate, flows[*].cc or dumbbell.queue.limit)")])
    parts: list[str | int] = []
    for m in _TOKEN.finditer(path):
        if m.group(1) is not None:
            parts.append(m.group(1))
        else:
            parts.append("*" if m.group(2) == "*" else int(m.group(2)))
    return parts


def set_path(d: dict, path: str, value: Any) -> dict:
    """Sets ``path`` (``links[0].rate``, ``flows[*].rate``, ``dumbbell.queue.limit``) to
    ``value`` in place, creating missing tables. Returns ``d``."""
    parts = _split_path(path)
    value = plain(value)

    def walk(node: Any, i: int, where: str) -> None:
        key = parts[i]
        last = i == len(parts) - 1
        if isinstance(key, str) and key != "*":
            if not isinstance(node, dict):
                raise ScenarioError([(where, f"is not a table, cannot set '{key}'")])
            if last:
                node[key] = copy.deepcopy(value)
            else:
                nxt = parts[i + 1]
                if key not in node:
                    node[key] = {} if isinstance(nxt, str) and nxt != "*" else []
                walk(node[key], i + 1, f"{where}.{key}" if where else key)
            return
        if not isinstance(node, list):
            raise ScenarioError([(where, "is not a list, cannot index it")])
        idxs = range(len(node)) if key == "*" else [key]
        for j in idxs:
            if j >= len(node):
                raise ScenarioError([(f"{where}[{j}]", f"index out of range (the list has {len(node)} {'entry' if len(node) == 1 else 'entries'})")])
            if last:
                node[j] = copy.deepcopy(value)
            else:
                walk(node[j], i + 1, f"{where}[{j}]")

    walk(d, 0, "")
    return d


def parse_value(text: str) -> Any:
    """A ``--set`` value: a TOML literal (``10``, ``0.5``, ``true``, ``"x"``, ``[1, 2]``,
    ``{ kind = "red" }``), else the bare text as a string (so ``10Mbps`` works unquoted)."""
    try:
        return json.loads(_core.toml_to_json(f"v = {text}"))["v"]
    except _core.ScenarioInvalid:
        return text


def apply_overrides(d: dict, overrides: Iterable[str] | Mapping[str, Any] | None) -> dict:
    """Applies ``path=value`` strings (CLI ``--set``) or a ``{path: value}`` mapping."""
    if not overrides:
        return d
    if isinstance(overrides, Mapping):
        for k, v in overrides.items():
            if not isinstance(k, str):
                raise ScenarioError([(str(k), "an override's path must be a string such as 'links[0].rate'")])
            set_path(d, k, v)
        return d
    if isinstance(overrides, (str, bytes)) or not isinstance(overrides, Iterable):
        raise ScenarioError([("overrides", "expected a list of 'path=value' strings or a {path: value} mapping")])
    for item in overrides:
        if not isinstance(item, str) or "=" not in item:
            raise ScenarioError([(item, "an override must look like path=value, e.g. links[0].rate=20Mbps")])
        k, v = item.split("=", 1)
        set_path(d, k.strip(), parse_value(v.strip()))
    return d


class Scenario:
    """A small builder over the scenario dict.

    >>> s = (Scenario("demo", duration="10s", seed=1)
    ...      .dumbbell(senders=2, access_rate="100Mbps", access_delay="1ms",
    ...                bottleneck_rate="10Mbps", bottleneck_delay="20ms",
    ...                queue={"kind": "red"})
    ...      .flow("cbr", src="s{i}", dst="d{i}", count=2, rate="4Mbps")
    ...      .trace("queue", link="bottleneck", interval="10ms"))
    >>> s.validate()["flows"]
    2
    """

    def __init__(self, name: str = "scenario", duration: Any = "10s", seed: int = 1, warmup: Any = 0, **simulation: Any):
        self.data: dict = {"name": name, "simulation": {"duration": duration, "seed": seed, "warmup": warmup, **simulation}}

    @classmethod
    def from_dict(cls, d: Mapping) -> "Scenario":
        s = cls.__new__(cls)
        s.data = copy.deepcopy(dict(d))
        return s

    @classmethod
    def load(cls, path: PathLike) -> "Scenario":
        return cls.from_dict(load(path))

    def nodes(self, *names: str) -> "Scenario":
        self.data.setdefault("nodes", []).extend(names)
        return self

    def link(self, a: str, b: str, rate: Any, delay: Any, *, name: str | None = None, queue: Mapping | None = None,
             reverse_queue: Mapping | None = None, loss: Mapping | None = None) -> "Scenario":
        entry: dict = {"a": a, "b": b, "rate": rate, "delay": delay}
        for k, v in (("name", name), ("queue", queue), ("reverse_queue", reverse_queue), ("loss", loss)):
            if v is not None:
                entry[k] = dict(v) if isinstance(v, Mapping) else v
        self.data.setdefault("links", []).append(entry)
        return self

    def dumbbell(self, senders: int, *, access_rate: Any, bottleneck_rate: Any, bottleneck_delay: Any,
                 access_delay: Any = None, **extra: Any) -> "Scenario":
        """The `[dumbbell]` table (docs/scenario.md): rates and delays by name only, since
        two rates and two delays given by position are easily swapped unnoticed."""
        d = {"senders": senders, "access_rate": access_rate, "bottleneck_rate": bottleneck_rate,
             "bottleneck_delay": bottleneck_delay, **extra}
        if access_delay is not None:
            d["access_delay"] = access_delay
        self.data["dumbbell"] = d
        return self

    def flow(self, kind: str, src: str, dst: str, *, name: str | None = None, **params: Any) -> "Scenario":
        entry = {"kind": kind, "src": src, "dst": dst, **params}
        if name is not None:
            entry["name"] = name
        self.data.setdefault("flows", []).append(entry)
        return self

    def trace(self, kind: str, *, interval: Any = "100ms", **target: Any) -> "Scenario":
        self.data.setdefault("traces", []).append({"kind": kind, "interval": interval, **target})
        return self

    def set(self, path: str, value: Any) -> "Scenario":
        set_path(self.data, path, value)
        return self

    def to_dict(self) -> dict:
        return copy.deepcopy(self.data)

    def validate(self) -> dict:
        return validate(self.data)

    def __repr__(self) -> str:
        return f"Scenario({self.data.get('name', 'scenario')!r}, {len(self.data.get('flows', []))} flow entries)"
