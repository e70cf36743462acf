"""ccsim: a fast, validated packet-level network simulator.

The Rust engine (``ccsim._core``) owns every per-packet event; this package builds
scenarios, runs them, and turns results into tables, files and plots.

    >>> import ccsim
    >>> res = ccsim.run("examples/dumbbell_cbr.toml")
    >>> res.flows[["name", "goodput_bps"]]
"""

from ._core import __version__
from .scenario import Scenario, ScenarioError, ScenarioWarning, load, loads, params, validate, apply_overrides, set_path
from .run import run
from .results import Results
from .sweep import SweepSpec, load_sweep, sweep
from .catalog import Catalog

__all__ = [
    "__version__",
    "Scenario",
    "ScenarioError",
    "ScenarioWarning",
    "Results",
    "Catalog",
    "SweepSpec",
    "load_sweep",
    "sweep",
    "apply_overrides",
    "load",
    "loads",
    "params",
    "run",
    "set_path",
    "validate",
]
