"""Publication-style figures from catalog queries (matplotlib, Agg backend).

    >>> from ccsim import plot
    >>> df = sweep_result.summary("total.goodput_bps")
    >>> fig, ax = plot.line(df, x="dumbbell.queue.limit", ylabel="goodput (b/s)")
    >>> plot.save(fig, "goodput.png")

Flow completion times of a run with traffic generators::

    >>> fig, axes = plot.fct(ccsim.run("examples/web_traffic.toml"))
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

STYLE = {
    "figure.figsize": (6.0, 4.0),
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "font.size": 10,
}


def _axes(ax=None):
    if ax is not None:
        return ax.figure, ax
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots()
    ax.grid(True, alpha=0.3)
    return fig, ax


def _legend(ax, **kw) -> None:
    """A legend when something on `ax` has a label (matplotlib warns "No artists with
    labels" otherwise: a plot of a run without the series)."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(**kw)


def label(ax, xlabel: str, ylabel: str, title: str, legend: int | None = 7):
    """Axis labels, a title and (unless `legend` is None) a legend of that font size."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if legend is not None:
        _legend(ax, fontsize=legend)
    return ax


#: A summary's own columns (`Catalog.summary`), never a parameter.
_STATS = {"n", "mean", "std", "ci_low", "ci_high"}


def _has(df, **columns) -> None:
    """Each named argument's column (None: not asked) is in `df`, or a ScenarioError naming
    the argument and the table's columns (a bare KeyError had said only the name)."""
    from .scenario import ScenarioError

    for arg, cols in columns.items():
        for c in [cols] if isinstance(cols, str) else (cols or ()):
            if c not in df:
                raise ScenarioError([(arg, f"no column {c!r}; the table has: {', '.join(map(str, df.columns))}")])


def _one_point_per_x(groups, x: str, hue: str | None, used: set) -> None:
    """A line through rows that repeat an x value zig-zags between points of another
    parameter: refused, naming the parameter that varies (give it as `hue`, or select)."""
    from .scenario import ScenarioError

    for _, g in groups:
        if x not in g:
            raise ScenarioError([("x", f"no column {x!r}; the table has: {', '.join(map(str, g.columns))}")])
        if not g[x].duplicated().any():
            continue
        # Parameters: not a summary's own columns (`mean`; with several metrics, each
        # `<metric>.n`, `<metric>.mean`, ... as a set).
        cols = {str(c) for c in g.columns}
        stats = set(_STATS) | {c for c in cols for m in [c.rpartition(".")[0]]
                               if m and all(f"{m}.{s}" in cols for s in _STATS)}
        others = [c for c in g.columns if c not in {x, hue, *used} and str(c) not in stats
                  and g[c].astype(str).nunique(dropna=False) > 1]
        why = f"{', '.join(map(repr, others))} {'varies' if len(others) == 1 else 'vary'}" if others else "rows repeat it"
        raise ScenarioError([("x", f"{x!r} takes a value more than once in one line ({why}): give hue= one of "
                                   f"{', '.join(map(repr, others)) or 'the varying columns'}, or select the rows of one value first")])


def line(df, x: str, y: str = "mean", hue: str | None = None, band: Sequence[str] | None = ("ci_low", "ci_high"),
         ax=None, xlabel: str | None = None, ylabel: str | None = None, title: str | None = None,
         logx: bool = False, logy: bool = False, marker: str = "o", label: str | None = None):
    """Lines of `y` against `x` (one per value of `hue`), with a shaded band (e.g. the
    95 % confidence interval of a `Catalog.summary`)."""
    _has(df, x=x, y=y, hue=hue)
    groups = [(label, df)] if hue is None else [(f"{hue}={k}", g) for k, g in df.groupby(hue, sort=True)]
    _one_point_per_x(groups, x, hue, {y, *(band or ())})
    fig, ax = _axes(ax)
    for lab, g in groups:
        g = g.sort_values(x)
        ax.plot(g[x], g[y], marker=marker, label=lab)
        if band and all(b in g for b in band) and g[band[0]].notna().any():
            ax.fill_between(g[x], g[band[0]], g[band[1]], alpha=0.2)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel or x)
    ax.set_ylabel(ylabel or y)
    if title:
        ax.set_title(title)
    if hue is not None or label:
        _legend(ax)
    return fig, ax


def bars(df, x: str, y: str = "mean", err: Sequence[str] | None = ("ci_low", "ci_high"), hue: str | None = None,
         ax=None, xlabel: str | None = None, ylabel: str | None = None, title: str | None = None):
    """Grouped bars with error bars."""
    _has(df, x=x, y=y, hue=hue)
    groups = [(None, df)] if hue is None else list(df.groupby(hue, sort=True))
    # One bar per x value and group: a value that repeats is refused as `line` refuses it
    # (pandas' "cannot reindex on an axis with duplicate labels" had said it).
    _one_point_per_x(groups, x, hue, {y, *(err or ())})
    fig, ax = _axes(ax)
    cats = list(dict.fromkeys(df[x]))
    width = 0.8 / len(groups)
    for i, (k, g) in enumerate(groups):
        g = g.set_index(x).reindex(cats)
        pos = np.arange(len(cats)) + (i - (len(groups) - 1) / 2) * width
        yerr = None
        if err and all(e in g for e in err):
            yerr = np.vstack([g[y] - g[err[0]], g[err[1]] - g[y]])
        ax.bar(pos, g[y], width, yerr=yerr, capsize=3, label=None if k is None else f"{hue}={k}")
    ax.set_xticks(np.arange(len(cats)), [str(c) for c in cats])
    ax.set_xlabel(xlabel or x)
    ax.set_ylabel(ylabel or y)
    if title:
        ax.set_title(title)
    if hue is not None:
        _legend(ax)
    return fig, ax


def cdf(samples: dict[str, Iterable[float]] | Iterable[float], ax=None, xlabel: str = "value", title: str | None = None,
        logx: bool = False):
    """Empirical CDFs, one per labelled sample set."""
    fig, ax = _axes(ax)
    sets = samples.items() if isinstance(samples, dict) else [(None, samples)]
    for lab, vals in sets:
        v = np.sort(np.asarray(list(vals), dtype=float))
        ax.step(v, np.arange(1, len(v) + 1) / max(len(v), 1), where="post", label=lab)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("CDF")
    if logx:
        ax.set_xscale("log")
    if title:
        ax.set_title(title)
    if isinstance(samples, dict):
        _legend(ax)
    return fig, ax


def timeseries(df, y: str | Sequence[str], x: str = "time", ax=None, ylabel: str | None = None, title: str | None = None,
               style: str = "-", label: str | None = None):
    """One run's time series (a `Results.series(...)` or `Catalog.series(...)` frame)."""
    _has(df, x=x, y=y)
    fig, ax = _axes(ax)
    for col in [y] if isinstance(y, str) else y:
        ax.plot(df[x], df[col], style, label=label or col, drawstyle="steps-post" if style == "-" else "default")
    ax.set_xlabel("time (s)" if x == "time" else x)
    ax.set_ylabel(ylabel or (y if isinstance(y, str) else ""))
    if title:
        ax.set_title(title)
    if not isinstance(y, str) or label:
        _legend(ax)
    return fig, ax


def _size_bins(sizes: np.ndarray, per_decade: int) -> np.ndarray:
    lo, hi = np.log10(max(sizes.min(), 1.0)), np.log10(max(sizes.max(), 1.0))
    n = max(int(np.ceil((hi - lo) * per_decade)), 1)
    return np.logspace(lo, hi + 1e-9, n + 1)


def fct(table, by: str | None = "generator", per_decade: int = 4, quantile: float = 0.99, min_flows: int = 5):
    """Flow completion time and slowdown against flow size, from a flow-completion table
    (``Results.fct`` or a ``fct.parquet`` frame): every completed flow as a dot, and per
    logarithmic size bin (``per_decade`` bins per decade, bins with at least ``min_flows``
    flows) the median and the ``quantile`` as lines; one colour per value of ``by``.
    Returns ``(fig, (ax_fct, ax_slowdown))``."""
    df = table.fct if hasattr(table, "fct") else table
    df = df[df["end_s"].notna()]
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, 2, figsize=(11.0, 4.0))
    groups = [(None, df)] if by is None or by not in df else list(df.groupby(by, sort=True))
    for (ax, col, label) in ((axes[0], "fct_s", "flow completion time (s)"), (axes[1], "slowdown", "slowdown (FCT / alone on the idle path)")):
        for k, g in groups:
            g = g[g[col].notna()]
            if g.empty:
                continue
            dots = ax.scatter(g["size_bytes"], g[col], s=4, alpha=0.25, label=None)
            colour = tuple(dots.get_facecolor()[0][:3])
            edges = _size_bins(g["size_bytes"].to_numpy(dtype=float), per_decade)
            idx = np.digitize(g["size_bytes"], edges)
            mids, med, hi = [], [], []
            for b in range(1, len(edges)):
                v = g[col].to_numpy()[idx == b]
                if len(v) >= min_flows:
                    mids.append(np.sqrt(edges[b - 1] * edges[b]))
                    med.append(np.median(v))
                    hi.append(np.quantile(v, quantile))
            name = "" if k is None else f"{k}: "
            ax.plot(mids, med, "-", color=colour, lw=2, label=f"{name}median")
            ax.plot(mids, hi, "--", color=colour, lw=1.5, label=f"{name}p{quantile * 100:g}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("flow size (bytes)")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
    axes[1].axhline(1.0, color="grey", lw=0.8)
    if df.empty:
        # Said on the figure (it had been an empty plot): no generator opened a flow, or
        # none finished in the run.
        for ax in axes:
            ax.text(0.5, 0.5, "no completed flows", ha="center", va="center", transform=ax.transAxes, color="grey")
    _legend(axes[0], fontsize=8)
    return fig, axes


def save(fig, path: str | Path, dpi: int = 120) -> Path:
    """Saves `fig` to `path` and closes it; a path whose suffix is no image format
    matplotlib writes (none, or `fig_0.5`'s `.5`) gets `.png` after it. Returns the file
    written."""
    text = str(path)
    path = Path(path)
    if not path.name or path.name in (".", "..") or text.endswith(("/", "\\")) or path.is_dir():
        raise ValueError(f"plot.save: {text!r} names no file (a folder? give a file name in it)")
    if path.suffix[1:].lower() not in fig.canvas.get_supported_filetypes():
        path = path.with_name(path.name + ".png")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path
