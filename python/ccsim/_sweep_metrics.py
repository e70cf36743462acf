"""The metrics of a sweep's runs (private; `ccsim.sweep` re-exports the public names).

The names every run records (RUN_METRICS, and QUEUE_METRICS per queue direction), the
check that refuses a metric name no run can record before any run (check_metric_names),
the warning about names the first finished run did not record (_absent_metrics), and the
numbers taken from each run's Results (standard_metrics, called in the worker processes).
"""

from __future__ import annotations

from typing import Iterable, Mapping

from .scenario import ScenarioError


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
