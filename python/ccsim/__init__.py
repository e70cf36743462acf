"""ccsim: a fast, validated packet-level network simulator.

The Rust engine (``ccsim._core``) owns every per-packet event; this package builds
scenarios, runs them, and turns results into tables, files and plots.

    >>> import ccsim
    >>> res = ccsim.run("examples/dumbbell_cbr.toml")
    >>> res.flows[["name", "goodput_bps"]]
"""

import sys
import types
from typing import TYPE_CHECKING

from ._core import __version__
from .scenario import Scenario, ScenarioError, ScenarioWarning, load, loads, params, validate, apply_overrides, set_path

# Running, results and sweeps are imported on first use (PEP 562): they bring numpy,
# pyarrow, pandas and DuckDB, half a second that `ccsim --version`, `ccsim validate` and
# a script that only builds scenarios need not pay.
_LAZY = {"run": "run", "Results": "results", "SweepSpec": "sweep", "load_sweep": "sweep", "sweep": "sweep",
         "Catalog": "catalog"}

if TYPE_CHECKING:
    from .catalog import Catalog
    from .results import Results
    from .run import run
    from .sweep import SweepSpec, load_sweep, sweep


def __getattr__(name: str):
    # Not cached here: a value taken while a test patches `ccsim.run.run` would outlive the
    # patch. (A submodule, `ccsim.results` say, is bound on import, as before.)
    import importlib
    import importlib.util

    module = _LAZY.get(name)
    if module is not None:
        return getattr(importlib.import_module(f".{module}", __name__), name)
    if not name.startswith("_") and importlib.util.find_spec(f".{name}", __name__) is not None:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'ccsim' has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(globals()) | set(_LAZY))


class _Package(types.ModuleType):
    """`ccsim.run` and `ccsim.sweep` are functions, named as the modules that hold them:
    the import system binds a submodule to its package's attribute once loaded, which
    would make `ccsim.run` the module whenever `ccsim.run` (the module) was imported
    first. The package keeps its attribute the function."""

    def __setattr__(self, name: str, value) -> None:
        if name in ("run", "sweep") and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

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
