"""The ``ccsim`` command line.

Exit status: 0 success, 2 invalid input (message on stderr, no traceback), 1 internal error.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import statistics
import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from . import __version__
from .scenario import ScenarioError, ScenarioWarning

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="ccsim: a fast, validated packet-level network simulator.")
# Piped or redirected output (logs, files, CI) is not cut to 80 columns: wide tables such as
# `bench --ns3`'s stay readable. A terminal (or $COLUMNS) keeps its own width.
_WIDE = None if sys.stdout.isatty() or os.environ.get("COLUMNS") else 200
out = Console(width=_WIDE)
err = Console(stderr=True, width=None if sys.stderr.isatty() or os.environ.get("COLUMNS") else 200)


def _version(value: bool) -> None:
    if value:
        from ._core import __build__

        print(f"ccsim {__version__} ({__build__} build)")
        raise typer.Exit(0)


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       metavar="", help="Print the version and exit.")) -> None:
    """ccsim: a fast, validated packet-level network simulator."""


def guarded(fn):
    """Maps errors to exit codes: ScenarioError -> 2, anything unexpected -> 1."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            try:
                return fn(*args, **kwargs)
            except Exception as e:
                from .catalog import interrupted

                if interrupted(e):
                    # A Ctrl-C that DuckDB reported as its own error.
                    raise KeyboardInterrupt from e
                raise
        except ScenarioError as e:
            # The Python API's `out=` is the command line's --out.
            if any(p == "out" for p, _ in e.errors):
                e = ScenarioError([("--out" if p == "out" else p, m) for p, m in e.errors])
            # An error in the command line itself (an option, the paper to reproduce) is not
            # the scenario's.
            what = "invalid option" if e.errors and all(p.startswith("--") or p in ("paper", "metric") for p, _ in e.errors) else "invalid scenario"
            err.print(f"[bold red]{what}[/]: {escape(str(e))}", markup=True, highlight=False, soft_wrap=True)
            raise typer.Exit(2)
        except KeyboardInterrupt:
            err.print("interrupted")
            if _AS_MAIN:
                # Everything is written and closed by now (the interrupt unwound through
                # the catalogs' and runs' context managers). While the interpreter shuts the
                # worker pool down, its threads may meet futures the interrupt cancelled
                # (`InvalidStateError`) or closed pipes: nothing a user can act on, so not
                # printed.
                import threading

                threading.excepthook = lambda args: None
                sys.unraisablehook = lambda unraisable: None
            raise typer.Exit(130)
        except (typer.Exit, typer.Abort):
            raise
        except OSError as e:
            if e.filename is None:
                err.print(f"ccsim: internal error: {type(e).__name__}: {e}", markup=False, highlight=False, soft_wrap=True)
                raise typer.Exit(1)
            # A folder or file the command cannot create, read or write (an --out under
            # /sys, a read-only disk, one that is full): what and why, not a traceback.
            # Bad input exits 2; a full disk or an I/O error is not the input's fault: 1.
            err.print(f"[bold red]cannot use {escape(str(e.filename))}[/]: {escape(e.strerror or str(e))}", markup=True,
                      highlight=False, soft_wrap=True)
            raise typer.Exit(1 if e.errno in (errno.ENOSPC, errno.EIO, errno.EDQUOT) else 2)
        except Exception as e:  # noqa: BLE001 - the contract is "never a traceback"
            user = _user_frames(e)
            if user:
                # An error in the user's own code (a `reproduce --module` paper, an
                # extract): its traceback is what they need to fix it.
                import traceback

                where = f"{user[-1].filename}, line {user[-1].lineno}"
                err.print(f"error in {where}:\n" + "".join(traceback.format_exception(e)).rstrip(), markup=False,
                          highlight=False, soft_wrap=True)
                raise typer.Exit(1)
            err.print(f"ccsim: internal error: {type(e).__name__}: {e}", markup=False, highlight=False, soft_wrap=True)
            raise typer.Exit(1)

    return wrapper


def _user_frames(e: BaseException) -> list:
    """The frames of `e`'s traceback in the user's own code: the folders of the paper
    modules loaded with `reproduce --module` (ccsim's package apart, should it be there)."""
    import traceback

    from .papers import USER_CODE

    if not USER_CODE:
        return []
    if isinstance(e, SyntaxError) and e.filename:
        # Raised while compiling the user's file: no frame of it in the traceback.
        where = Path(e.filename).resolve()
        if any(where.is_relative_to(d) for d in USER_CODE):
            return [traceback.FrameSummary(str(where), e.lineno or 0, "<module>")]
    import sysconfig

    # Not ours, nor Python's or an installed package's (a virtual environment may sit in
    # the user's folder).
    lib = [Path(__file__).resolve().parent] + [Path(p).resolve() for k in ("stdlib", "platstdlib", "purelib", "platlib")
                                               if (p := sysconfig.get_paths().get(k))]
    out = []
    for f in traceback.extract_tb(e.__traceback__):
        if not f.filename or f.filename.startswith("<"):
            continue
        path = Path(f.filename).resolve()
        if any(path.is_relative_to(d) for d in USER_CODE) and not any(path.is_relative_to(d) for d in lib):
            out.append(f)
    return out


def _check_workers(workers: int | None) -> None:
    """`--workers` of `sweep` and `reproduce`: at least 1 when given (0 would silently mean
    the default)."""
    if workers is not None and workers < 1:
        raise ScenarioError([("--workers", "must be at least 1")])


def _num(v: float) -> str:
    """A table number: digit groups for large values (10,000,000 rather than 1e+07)."""
    if v != v:
        return "-"
    if abs(v) >= 1e4:
        return f"{v:,.0f}"
    return f"{v:.6g}"


def _mbps(x) -> str:
    return "-" if x is None else f"{x / 1e6:.3f}"


def print_summary(res) -> None:
    m = res.meta
    out.print(f"[bold]{escape(m['name'])}[/]  seed {m['seed']}  {m['sim_time_s']:g} s simulated  "
              f"{m['events']:,} events in {m['wall_s']:.3f} s ({m['events'] / max(m['wall_s'], 1e-9) / 1e6:.2f} M events/s)"
              + ("" if m["stop"] == "end_time" else f"  [yellow]stopped: {m['stop']}[/]"))
    s = res.summary()
    t = Table(title="flows", title_justify="left")
    # `loss_rate` is drops per packet sent: for a multicast flow, drops anywhere in its tree
    # (up to one per receiver a packet), for an ATM flow cells dropped per frame sent; the
    # header says what it is (receivers.parquet gives each receiver's deliveries).
    for c in ("flow", "kind", "src→dst", "goodput Mb/s", "sent", "delivered", "drops", "drops/sent", "mean delay ms"):
        t.add_column(c, justify="right" if c not in ("flow", "kind", "src→dst") else "left")
    for f in s["flows"][:40]:
        t.add_row(escape(f["name"]), f["kind"], escape(f"{f['src']}→{f['dst']}"), _mbps(f["goodput_bps"]), f"{f['sent_pkts']:,}",
                  f"{f['delivered_pkts']:,}", f"{f['queue_drops'] + f['wire_losses']:,}", f"{(f['loss_rate'] or 0):.4f}",
                  "-" if f["delay_mean_s"] is None else f"{f['delay_mean_s'] * 1e3:.3f}")
    if len(s["flows"]) > 40:
        t.caption = f"... {len(s['flows']) - 40} more flows in flows.parquet"
    if s["flows"]:
        out.print(t)
    if "fct" in res.tables and res.tables["fct"].num_rows:
        t = Table(title="generated flows", title_justify="left")
        for c in ("generator", "opened", "completed", "median FCT ms", "p99 FCT ms", "median slowdown", "p99 slowdown"):
            t.add_column(c, justify="left" if c == "generator" else "right")
        df = res.fct
        for g, d in df.groupby("generator", sort=False):
            done = d[d["end_s"].notna()]
            q = lambda col, p: "-" if done[col].notna().sum() == 0 else f"{done[col].quantile(p):.3g}"  # noqa: E731
            # Ended without every byte at the receiver (UDT's ns2 profile, a lossy UDP burst).
            short = int((done["complete"] == 0).sum()) if "complete" in done else 0
            t.add_row(escape(str(g)), f"{len(d):,}", f"{len(done):,}" + (f" ({short:,} short)" if short else ""),
                      "-" if done.empty else f"{done['fct_s'].median() * 1e3:.3g}",
                      "-" if done.empty else f"{done['fct_s'].quantile(0.99) * 1e3:.3g}", q("slowdown", 0.5), q("slowdown", 0.99))
        out.print(t)
    busy = sorted(s["queues"], key=lambda q: -(q["utilization"] or 0))[:8]
    if busy:
        t = Table(title="busiest queues", title_justify="left")
        for c in ("direction", "queue", "utilisation", "mean len", "max len", "drops"):
            t.add_column(c, justify="left" if c in ("direction", "queue") else "right")
        for q in busy:
            drops = q["drops_overflow"] + q["drops_early"] + q["drops_forced"]
            t.add_row(escape(q["direction"]), q["queue"], f"{q['utilization']:.3f}", f"{q['mean_len_pkts']:.2f}",
                      str(q["max_len_pkts"]), f"{drops:,}" + (f" (+{q['drops_loss']:,} wire)" if q["drops_loss"] else ""))
        out.print(t)


@app.command("run")
@guarded
def run_cmd(
    scenario: Path = typer.Argument(..., help="Scenario file: TOML, or JSON (.json, e.g. a results folder's scenario.json)."),
    out_dir: Optional[Path] = typer.Option(None, "--out", "-o", help="Write summary.json, flows.parquet, series/*.parquet here."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Override simulation.seed."),
    set_: List[str] = typer.Option([], "--set", help="Override a field: path=value (repeatable), e.g. links[0].rate=20Mbps."),
    quiet: bool = typer.Option(False, "--quiet", "-q", metavar="", help="Print nothing on success."),
    per_hop_events: bool = typer.Option(False, "--per-hop-events", metavar="", help="Run the event-per-stage reference implementation (slower; to check the fast paths on your scenario)."),
) -> None:
    """Validate and run a scenario."""
    import shutil
    import warnings

    from .results import check_out_dir, staging_dir
    from .run import prepare, run
    from .scenario import validate

    stage = None
    if out_dir is not None:
        # Checked before any work; everything goes to a staging folder that replaces
        # out_dir at the end, so an interrupted run leaves the previous results whole.
        check_out_dir(out_dir)
        stage = staging_dir(out_dir)
    pcap_dir = (stage / "pcap") if stage is not None else Path("pcap")
    shown = set()
    try:
        # The run's warnings are printed here, once each, as `validate` prints them (the
        # Python API's ScenarioWarning would print them a second time with a source line):
        # the scenario's before the run (a warning that the run may take hours came after
        # it, or never if it was stopped), the run's own after it.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ScenarioWarning)
            # Validated here and again by the run (a parse more, milliseconds against the
            # run), so that its warnings come first.
            d = prepare(scenario, seed, set_)
            for path, msg in validate(d).get("warnings", []):
                text = f"{path}: {msg}" if path else msg  # as the run's results give it
                shown.add(text)
                err.print(f"warning: {text}", markup=False, highlight=False, soft_wrap=True)
            res = run(d, pcap_dir=pcap_dir, per_hop_events=per_hop_events)
        if stage is not None:
            # Messages name the folder the user gave, not the staging folder it replaces.
            res.meta["warnings"] = [w.replace(str(stage), str(out_dir)) for w in res.meta.get("warnings", [])]
        if out_dir is not None:
            res.save(out_dir, staging=stage)
    finally:
        if stage is not None and stage.exists():
            shutil.rmtree(stage, ignore_errors=True)
    # A capture that could not be written (a full disk) is a lost output: the results are
    # kept, and the exit status says that not everything asked for was written.
    lost = [w for w in res.meta.get("warnings", []) if w.startswith("pcap of ") and " not written: " in w]
    for w in res.meta.get("warnings", []):
        if w not in shown:
            err.print(f"{'error' if w in lost else 'warning'}: {w}", markup=False, highlight=False, soft_wrap=True)
    if not quiet:
        print_summary(res)
        if res.files and out_dir is None:
            out.print("pcap written: " + ", ".join(res.files.values()), markup=False)
        if out_dir is not None:
            out.print(f"results written to {out_dir}/", markup=False)
    if lost:
        raise typer.Exit(1)


@app.command("sweep")
@guarded
def sweep_cmd(
    sweep_file: Path = typer.Argument(..., help="Sweep TOML file (base scenario, grid/zip, seeds)."),
    out_dir: Optional[Path] = typer.Option(None, "--out", "-o", help="Results folder (catalog.duckdb + runs/). Default: results/<sweep name>."),
    workers: Optional[int] = typer.Option(None, "--workers", "-w", help="Local worker processes (default: one per core it may use: its CPU affinity, e.g. taskset or a Slurm allocation)."),
    dask: Optional[str] = typer.Option(None, "--dask", help="Dask scheduler address, or 'local' for a LocalCluster."),
    quiet: bool = typer.Option(False, "--quiet", "-q", metavar="", help="Log lines instead of a progress bar."),
    metric: List[str] = typer.Option([], "--metric", "-m", help="Metrics to summarise at the end (default: total.goodput_bps)."),
) -> None:
    """Run a parameter sweep; finished runs are cached, an interrupted sweep resumes."""
    import warnings

    from .sweep import check_metric_names, load_sweep, sweep

    spec = load_sweep(sweep_file)
    _check_workers(workers)
    check_metric_names(metric, field="--metric")
    log = (lambda m: err.print(m, markup=False, highlight=False))
    with warnings.catch_warnings():
        # A metric the first run did not record is said by `log`, once, without a source line.
        warnings.filterwarnings("ignore", message="metric ", category=UserWarning)
        res = sweep(spec, out=out_dir, workers=workers, dask=dask, progress=not quiet, log=log, metrics=metric or None)
    if res.total and (res.total - res.failed) > 0:
        for m in metric or spec.metrics or ["total.goodput_bps"]:
            df = res.summary(m)
            if df.empty:
                continue
            # A grid field with one value says nothing per row: it goes to the title.
            fixed = [c for c in spec.grid if c in df.columns and df[c].nunique() == 1 and len(df) > 1]
            note = "".join(f", {c} = {df[c].iloc[0]}" for c in fixed)
            df = df.drop(columns=fixed)
            t = Table(title=escape(f"{spec.name}: {m} (mean and 95 % CI over seeds{note})"), title_justify="left")
            for c in df.columns:
                t.add_column(escape(str(c)), justify="right")
            for _, row in df.iterrows():
                t.add_row(*[_num(v) if isinstance(v, float) else escape(str(v)) for v in row.values])
            out.print(t)
    out.print(f"catalog: {res.out}/catalog.duckdb ({res.ran} ran, {res.cached} cached, {res.failed} failed)", markup=False)
    if res.failed:
        runs = res.runs()
        errors = runs[runs["status"] != "ok"]["error"].fillna("").map(lambda e: e.splitlines()[0] if e else "")
        err.print(f"{res.failed} of {res.total} runs failed:", markup=False)
        for e, n in errors.value_counts().items():
            err.print(f"  {n} x {e}", markup=False, highlight=False)
        raise typer.Exit(1)


@app.command("reproduce")
@guarded
def reproduce_cmd(
    paper: Optional[str] = typer.Argument(None, help="Paper id (see --list), or 'all'."),
    quick: bool = typer.Option(False, "--quick", metavar="", help="Small runs, for CI (the default)."),
    full: bool = typer.Option(False, "--full", metavar="", help="The real study."),
    out_dir: Optional[Path] = typer.Option(None, "--out", "-o", help="Results and report folder. Default: results/<paper>-<mode>."),
    workers: Optional[int] = typer.Option(None, "--workers", "-w", help="Local worker processes (default: one per core it may use: its CPU affinity, e.g. taskset or a Slurm allocation)."),
    dask: Optional[str] = typer.Option(None, "--dask", help="Dask scheduler address, or 'local'."),
    module: Optional[Path] = typer.Option(None, "--module", help="Reproduce a paper module from this .py file (defines PAPER)."),
    list_: bool = typer.Option(False, "--list", metavar="", help="List the papers and exit."),
    quiet: bool = typer.Option(False, "--quiet", "-q", metavar="", help="Log lines instead of progress bars."),
) -> None:
    """Reproduce a paper end to end: sweeps, figures, tables, claims, report.md/report.html."""
    from .papers import REGISTRY, available, load_paper, load_paper_file
    from .report import reproduce

    if list_:
        t = Table(title="papers", title_justify="left")
        for c in ("id", "paper", "status"):
            t.add_column(c)
        for pid, (mod, title, status) in REGISTRY.items():
            t.add_row(pid, title, "implemented" if mod else status)
        out.print(t)
        return
    if quick and full:
        raise ScenarioError([("--full", "choose --quick or --full, not both")])
    _check_workers(workers)
    mode = "full" if full else "quick"
    if module is not None:
        papers = [load_paper_file(module)]
        if paper is not None and paper != papers[0].id:
            # The module's paper would have run in its place, without a word.
            raise ScenarioError([("paper", f"--module {module} reproduces paper '{papers[0].id}', not '{paper}': give "
                                           "the paper id or --module, not both")])
    elif paper is None:
        raise ScenarioError([("paper", "give a paper id (ccsim reproduce --list), 'all', or --module FILE")])
    elif paper == "all":
        papers = [load_paper(p) for p in available()]
        if not papers:
            raise ScenarioError([("paper", "no paper reproduction is implemented yet (ccsim reproduce --list)")])
    else:
        papers = [load_paper(paper)]
    log = (lambda m: err.print(m, markup=False, highlight=False))
    failed = 0
    targets = [out_dir if (out_dir and len(papers) == 1) else (out_dir or Path("results")) / f"{p.id}-{mode}" for p in papers]
    from .report import claim_folder

    for p, target in zip(papers, targets):
        claim_folder(target, p)  # every folder checked before anything runs
    for p, target in zip(papers, targets):
        r = reproduce(p, target, mode=mode, workers=workers, dask=dask, progress=not quiet, log=log)
        from .papers import tally

        out.print(f"{p.id}: claims {tally(r['verdicts'])}; report: {r['report_md']} and {r['report_html']}", markup=False)
        failed += sum(s.failed for s in r["sweeps"].values())
    if failed:
        err.print(f"{failed} runs failed (recorded in the catalog)")
        raise typer.Exit(1)


@app.command("validate")
@guarded
def validate_cmd(
    scenario: Path = typer.Argument(..., help="Scenario file: TOML, or JSON (.json, e.g. a results folder's scenario.json)."),
    set_: List[str] = typer.Option([], "--set", help="Override a field before validating: path=value."),
) -> None:
    """Check a scenario without running it."""
    from .scenario import apply_overrides, as_dict, validate

    import warnings

    d = apply_overrides(as_dict(scenario), set_)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        info = validate(d)
    for path, message in info.get("warnings", []):
        err.print(f"warning: {path}: {message}", markup=False, highlight=False, soft_wrap=True)
    out.print(f"ok: {escape(info['name'])}: {info['nodes']} nodes, {info['links']} links, {info['flows']} flows, "
              f"{info['elements']} elements, {info['generators']} generators, "
              f"{info['traces']} traces, {info['duration_s']:g} s, seed {info['seed']}")


@app.command("bench")
@guarded
def bench_cmd(
    scenario: List[str] = typer.Option([], "--scenario", "-s",
                                       help="S1, S2, S3, S4 (TCP dumbbells, see docs/benchmarks.md), 10k (S3's dumbbell with 10 000 flows), cbr, web, E2.5, E5 (Paper E), D-UDT, D-Proposed, D-TCP (Paper D); repeatable. Default: S1 S2 S3 S4."),
    reps: int = typer.Option(3, help="Repetitions, each in its own process (best reported)."),
    ns3: Optional[str] = typer.Option(None, "--ns3", help="A Python with ns-3's `ns3` package: run ns-3 on the same scenarios, alternating."),
    ns3_script: Optional[Path] = typer.Option(None, "--ns3-script", help="The ns-3 scenario script (default: the one ccsim ships, "
                                              "ccsim/_ns3_dumbbell.py)."),
    memory_flows: int = typer.Option(50_000, "--memory-flows", help="Idle flows for the memory-per-flow measurement (0 = skip)."),
    memory_pairs: int = typer.Option(1000, "--memory-pairs", help="Host pairs of S3's dumbbell the idle flows run between "
                                     "(spread evenly; at most half of --memory-flows); 0 = two nodes joined by one link."),
    flows: Optional[int] = typer.Option(None, help="cbr only: CBR flows (default 10)."),
    rate: Optional[float] = typer.Option(None, help="cbr only: bottleneck rate, bit/s (default 1e9)."),
    duration: Optional[float] = typer.Option(None, help="cbr, E2.5 and E5: simulated seconds (default 5)."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Write all measurements as JSON here."),
    sweep_runs: int = typer.Option(0, "--sweep-runs", help="Also measure sweep scaling (1 vs 2 workers) on this many short runs."),
    sack: bool = typer.Option(False, "--sack", metavar="", help="S1-S4 with SACK loss recovery (ccsim recovery = sack; ns-3 Sack = true)."),
    classic: bool = typer.Option(False, "--classic", metavar="", help="S1-S4 with classic fast recovery instead of PRR (ccsim prr = false; "
                                 "ns-3 TcpClassicRecovery)."),
    web_flows: Optional[int] = typer.Option(None, "--web-flows", help="web only: TCP transfers opened during the run (default 100 000)."),
    min_time: float = typer.Option(0.0, "--min-time", help="S1-S4: each repetition runs ccsim back to back in its process for at "
                                   "least this many seconds of loop time and reports the mean (a long ns-3 run averages the "
                                   "machine's speed over its own duration; default 0: one run)."),
    ns3_target: Optional[float] = typer.Option(None, "--ns3-target", help="With --ns3: a speed-up to judge (e.g. 500): holds, "
                                               "does not hold or inconclusive, on the 95 % interval of the paired ratios."),
) -> None:
    """Benchmarks: wall time, events/s, bottleneck packets/s, peak RSS, memory per flow; with --ns3, the ratio to ns-3."""
    import platform

    from .bench import run_suite, sweep_scaling

    names = scenario or ["S1", "S2", "S3", "S4"]
    known = {"S1", "S2", "S3", "S4", "10k", "cbr", "web", "E2.5", "E5", "D-UDT", "D-Proposed", "D-TCP"}
    bad = [n for n in names if n not in known]
    if not 0 <= min_time <= 3600:
        raise ScenarioError([("--min-time", f"expected seconds from 0 to 3600, got {min_time}")])
    if ns3_target is not None and not (ns3_target > 0 and ns3_target != float("inf")):
        raise ScenarioError([("--ns3-target", f"expected a positive speed-up, got {ns3_target}")])
    if ns3_target is not None and not ns3:
        raise ScenarioError([("--ns3-target", "needs --ns3 (a Python with ns-3's `ns3` package)")])
    if bad:
        raise ScenarioError([("--scenario", f"unknown scenario {bad}; known: S1, S2, S3, S4, 10k, cbr, web, E2.5, E5, D-UDT, D-Proposed, "
                                            "D-TCP")])
    if json_out is not None:
        # Checked before the benchmark runs (it had run in full, its measurements then lost).
        parent = json_out.absolute().parent
        if json_out.is_dir():
            raise ScenarioError([("--json", f"{json_out} is a folder; give a file name")])
        if not parent.is_dir():
            raise ScenarioError([("--json", f"no folder {parent} to write {json_out.name} in")])
        if not os.access(parent, os.W_OK | os.X_OK):
            raise ScenarioError([("--json", f"cannot write in {parent}")])
    # An option only some scenarios read is refused when none of them runs (rather than
    # ignored), and each bad value is named.
    for opt, value, users, ok, allowed in (
            ("--reps", reps, None, reps >= 1, "at least 1"),
            ("--flows", flows, {"cbr"}, flows is None or flows >= 1, "at least 1"),
            ("--rate", rate, {"cbr"}, rate is None or 0 < rate < float("inf"), "a positive rate in bit/s"),
            ("--duration", duration, {"cbr", "E2.5", "E5"}, duration is None or 0 < duration < float("inf"), "positive seconds"),
            ("--web-flows", web_flows, {"web"}, web_flows is None or web_flows >= 1, "at least 1"),
            ("--memory-flows", memory_flows, None, memory_flows >= 0, "0 (skip) or more"),
            ("--memory-pairs", memory_pairs, None, memory_pairs >= 0, "0 (two nodes) or more")):
        if not ok:
            raise ScenarioError([(opt, f"expected {allowed}, got {value}")])
        if users is not None and value is not None and not users & set(names):
            raise ScenarioError([(opt, f"applies to {', '.join(sorted(users))} only, which this call does not run "
                                       f"(scenarios: {', '.join(names)}); add -s {sorted(users)[0]}")])
    flows, rate, duration = flows or 10, rate or 1e9, duration or 5.0
    web_flows = web_flows or 100_000
    if ns3_script is None:
        from .bench import NS3_SCRIPT as ns3_script
    if ns3 and not ns3_script.exists():
        raise ScenarioError([("--ns3-script", f"{ns3_script} not found")])

    def progress(name, sim, r):
        err.print(f"  {name} {sim}: {r['wall_s']:.3f} s wall, goodput {r['goodput_bps'] / 1e6:.1f} Mb/s", markup=False, highlight=False)

    res = run_suite(names, reps, ns3, ns3_script, (flows, rate, duration), memory_flows or None, on_result=progress, sack=sack,
                    classic=classic, web_flows=web_flows, min_time=min_time, memory_pairs=memory_pairs)
    variant = (", SACK" if sack else "") + (", classic recovery" if classic else "")
    # The workers' memory pages (docs/architecture.md, "Memory pages"), as each reported them.
    huge = {r.get("huge_pages") for e in res["scenarios"].values() for r in e["ccsim"]} - {None}
    variant += ", huge pages " + ("/".join("on" if h else "off" for h in sorted(huge, reverse=True)) if huge else "n/a")
    from ._core import __build__

    each = f", ccsim's S1-S4 each the mean of back-to-back runs over at least {min_time:g} s" if min_time > 0 else ""
    t = Table(title=f"ccsim {__version__} ({__build__} build) benchmarks (best of {reps}, one process per run{each}{variant})")
    cols = ["scenario", "flows", "sim s", "wall s", "set-up", "M events/s", "M bottleneck pkts/s", "goodput Mb/s", "peak RSS MB", "engine MB"]
    if ns3:
        cols += ["ns-3 CPU s", "ns-3 goodput Mb/s", "speed-up", "paired [95 % CI]", "goodput diff", "steady diff"]
    for c in cols:
        t.add_column(c, justify="left" if c == "scenario" else "right")
    for name, e in res["scenarios"].items():
        b = e["best"]
        # Set-up (parse, validation, building the world) as a share of each run's event loop:
        # the median over the repetitions, and the largest (the kernel sometimes compacts
        # memory to find 2 MiB pages while the world is built).
        shares = sorted(r["setup_s"] / r["wall_s"] for r in e["ccsim"] if r.get("setup_s") is not None and r["wall_s"] > 0)
        if shares:
            e["setup_share"] = {"median": statistics.median(shares), "max": shares[-1]}
        setup = "-" if not shares else f"{100 * statistics.median(shares):.1f}%" + (f" (≤{100 * shares[-1]:.1f}%)" if len(shares) > 1 else "")
        row = [name, str(b["flows"]), f"{b['sim_s']:g}", f"{b['wall_s']:.3f}", setup, f"{b['events_per_s'] / 1e6:.2f}",
               f"{b['bottleneck_pkts_per_s'] / 1e6:.2f}", f"{b['goodput_bps'] / 1e6:.1f}", f"{e['peak_rss_mb']:.0f}",
               f"{e['engine_rss_mb']:.0f}"]
        if ns3:
            nb = e.get("ns3_best")
            pr = e.get("speedup_paired")
            row += ([f"{nb.get('cpu_s', nb['wall_s']):.1f}", f"{nb['goodput_bps'] / 1e6:.1f}", f"{e['speedup']:.0f}x",
                     f"{pr['median']:.0f}x [{pr['lo']:.0f}, {pr['hi']:.0f}]" if pr and pr["n"] else "-",
                     f"{100 * e['goodput_diff']:+.1f}%" if e.get("goodput_diff") is not None else "-",
                     f"{100 * e['goodput_steady_diff']:+.1f}%" if e.get("goodput_steady_diff") is not None else "-"]
                    if nb else ["-"] * 6)
        t.add_row(*row)
    out.print(t)
    if ns3:
        out.print("ns-3 ran each scenario with ccsim's own flow start times (ccsim's ns-3 script, --starts); "
                  "speed-up = ns-3's CPU time of Simulator::Run / ccsim's wall time of its event loop, of the best runs; "
                  "paired = the median of each ns-3 run's ratio to the ccsim run just before it, with its 95 % bootstrap interval")
        if ns3_target is not None:
            from .bench import target_verdict

            for name, e in res["scenarios"].items():
                pr = e.get("speedup_paired")
                if pr and pr["n"]:
                    e["ns3_verdict"] = target_verdict(pr["lo"], pr["hi"], ns3_target)
                    out.print(f"{name}: speed-up over ns-3 {pr['median']:.1f}x [{pr['lo']:.1f}, {pr['hi']:.1f}] ({pr['n']} pairs) "
                              f"against {ns3_target:g}x: {e['ns3_verdict']}")
    out.print("wall s = the event loop; set-up = parsing, validation and building the world, as a share of the loop's time "
              "(median of the repetitions, the largest in brackets)")
    out.print(f"peak RSS = whole process; engine MB = peak RSS minus an idle ccsim process ({res['baseline_rss_mb']:.0f} MB: "
              "Python, numpy, pyarrow)")
    if "web" in res["scenarios"]:
        w = res["scenarios"]["web"]["best"]
        out.print(f"web: {w['flows']:,} TCP transfers opened during the run ({w['flows_completed']:,} completed), "
                  f"{w['flows_per_s']:,.0f} flows opened per wall second, {w['bottleneck_pkts_per_s'] / 1e6:.2f} M bottleneck packets "
                  f"per wall second (both ways), at most {w['flow_slots']:,} flows alive at once; the flow-completion table with "
                  f"every flow's time alone on its path took {w['results_wall_s']:.2f} s more")
    if "idle_memory" in res:
        m = res["idle_memory"]
        where = f"between {m['pairs']:,} host pairs of S3's dumbbell" if m["pairs"] else "between two nodes"
        out.print(f"memory per idle TCP flow: {m['bytes_per_flow']:.0f} bytes ({m['flows']:,} more flows {where}: "
                  f"{m['rss_mb']:.0f} MB vs {m['rss_base_mb']:.0f} MB peak RSS)"
                  + (" - rough: peak RSS moves in steps of up to 2 MB; use --memory-flows 20000 or more" if m["rough"] else ""))
    if sweep_runs:
        sw = sweep_scaling(sweep_runs)
        res["sweep"] = sw
        out.print(f"sweep of {sw['runs']} short runs: {sw['wall_1']:.2f} s with 1 worker, {sw['wall_2']:.2f} s with 2 "
                  f"(x{sw['speedup']:.2f}); overhead outside the engine {1e3 * sw['overhead_per_run_s']:.1f} ms per run "
                  f"({1e3 * sw['overhead_in_worker_per_run_s']:.1f} ms of it in the worker)")
    if json_out:
        # Whole or not at all: written beside, then moved into place.
        tmp = json_out.with_name(json_out.name + ".tmp")
        try:
            tmp.write_text(json.dumps({"version": __version__, "build": __build__, "machine": platform.platform(),
                                       "processor": platform.processor(), "cpus": os.cpu_count(), **res}, indent=2))
            os.replace(tmp, json_out)
        except OSError as e:
            raise OSError(e.errno, e.strerror, str(json_out)) from None


#: True when running as the `ccsim` command (not inside a caller's process, as tests do).
_AS_MAIN = False


def main() -> None:
    """Console entry point (click's usage errors exit with status 2, as invalid input)."""
    global _AS_MAIN
    _AS_MAIN = True
    app()


if __name__ == "__main__":
    main()
