"""Running a scenario."""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
import weakref
from pathlib import Path
from typing import Any, Iterable, Mapping

from . import _core
from .results import Results
from .scenario import Scenario, ScenarioError, _raise_invalid, _to_json, apply_overrides, as_dict, set_path, warn_all, PathLike


def prepare(scenario: "Scenario | Mapping | PathLike", seed: int | None = None,
            overrides: "Iterable[str] | Mapping | None" = None) -> dict:
    """The scenario as :func:`run` runs it: a dict, with ``overrides`` applied and ``seed``
    (if given) as ``simulation.seed``."""
    d = as_dict(scenario)
    apply_overrides(d, overrides)
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise ScenarioError([("simulation.seed", f"expected a whole number from 0 to 2^63 - 1, got {seed!r}")])
        set_path(d, "simulation.seed", seed)
    return d


def run(scenario: Scenario | Mapping | PathLike, *, seed: int | None = None,
        overrides: Iterable[str] | Mapping[str, Any] | None = None,
        pcap_dir: str | os.PathLike | None = None, per_hop_events: bool = False) -> Results:
    """Validates and runs a scenario (a :class:`Scenario`, a dict or a TOML path).

    ``seed`` replaces ``simulation.seed``; ``overrides`` are ``path=value`` strings or a
    ``{path: value}`` mapping applied first. pcap traces are written to ``pcap_dir``; when
    it is not given, to a fresh temporary folder removed with the returned
    :class:`Results` (or at once if the run fails): ``Results.save`` copies the traces
    into ``pcap/``, where they stay.
    The engine runs with the GIL released; Ctrl-C stops it and raises ``KeyboardInterrupt``.
    ``per_hop_events=True`` runs the reference implementation of the same model (an event
    per packet per link stage, no event-free DropTail links or cut-through): slower, and
    equal to the default except in the order of simultaneous events (docs/architecture.md).
    """
    d = prepare(scenario, seed, overrides)
    if not isinstance(per_hop_events, bool):
        raise ScenarioError([("per_hop_events", f"expected True or False, got {per_hop_events!r}")])
    traces = d.get("traces")
    wants_pcap = isinstance(traces, list) and any(isinstance(t, dict) and t.get("kind") == "pcap" for t in traces)
    own_dir = None
    if pcap_dir is None and wants_pcap:
        pcap_dir = own_dir = tempfile.mkdtemp(prefix="ccsim-pcap-")
    elif wants_pcap:
        # A folder the captures cannot go to is an error naming it (the command line's exit
        # 2), before the run, not an error after the set-up.
        if Path(pcap_dir).exists() and not Path(pcap_dir).is_dir():
            raise ScenarioError([("pcap_dir", f"the captures go to {os.fspath(pcap_dir)}, which is a file; give a folder "
                                              "(ccsim run: --out DIR writes them into DIR/pcap)")])
        try:
            Path(pcap_dir).mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ScenarioError([("pcap_dir", f"cannot create {os.fspath(pcap_dir)} for the captures: {e.strerror}")]) from None
        if not os.access(pcap_dir, os.W_OK | os.X_OK):
            raise ScenarioError([("pcap_dir", f"cannot write the captures in {os.fspath(pcap_dir)}: "
                                              f"{os.strerror(errno.EACCES)}")])
    try:
        try:
            raw = _core.run(_to_json(d), None if pcap_dir is None else os.fspath(pcap_dir), per_hop_events)
        except _core.ScenarioInvalid as e:
            _raise_invalid(e)
            raise
        except OSError as e:
            # The engine's only OSError: a capture it could not create (its message names
            # the file and why), a problem of where the captures go.
            raise ScenarioError([("pcap_dir", str(e))]) from None
        res = Results.from_raw(raw, scenario=d)
    except BaseException:
        if own_dir is not None:
            shutil.rmtree(own_dir, ignore_errors=True)
        raise
    if own_dir is not None:
        # The folder lives as long as the results that name its files (and no longer than
        # the interpreter): runs in a loop or a notebook do not fill the temporary folder.
        weakref.finalize(res, shutil.rmtree, own_dir, True)
    warn_all(res.meta.get("warnings", []))
    return res
