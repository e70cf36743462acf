"""Where a sweep's runs execute (private; `ccsim.sweep` re-exports the public names).

One run in a worker process (execute, with the Ctrl-C handling of pool workers), the local
process pool started from a fork server (_local_results, _start_forkserver,
_interrupt_workers), what worker processes get as `__main__` while they start
(_HiddenMain, _main_for_workers), a Dask cluster (dask_client, _dask_results), and the
local pool's default size (usable_cpus). The sweep driver, the catalog's only writer, is
`ccsim.sweep`; this module does not import it (a Task's type is only named).
"""

from __future__ import annotations

import io
import itertools
import os
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ._sweep_metrics import standard_metrics
from .scenario import ScenarioError

if TYPE_CHECKING:
    from .sweep import Task


# Running one task (in a worker process) ----------------------------------------------------

def _ipc(table) -> bytes:
    import pyarrow as pa

    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return sink.getvalue()


#: In a pool worker: whether a run is under way (what an interrupt then stops).
_IN_RUN = False
#: In a pool worker: an interrupt came; runs handed to it after that stop at once (the
#: pool had already moved some queued runs to its workers, which cannot be cancelled).
_STOPPING = False


def _worker_sigint(signum, frame) -> None:
    """A pool worker's Ctrl-C (the terminal interrupts the whole process group; the sweep
    passes its own on to its workers): a run under way stops as an interrupted run, whose
    result goes to the sweep as any other; an idle worker, waiting for work, takes no
    notice and ends when the sweep shuts the pool down. (It used to end at once: a worker
    ended while it held the pool's queue lock left the others waiting on it, and the
    sweep's shutdown with them, and an ended worker broke the pool while the sweep still
    submitted runs, an "internal error" instead of an interrupt.)"""
    global _STOPPING
    _STOPPING = True
    if _IN_RUN:
        raise KeyboardInterrupt


def _worker_init() -> None:
    import signal

    signal.signal(signal.SIGINT, _worker_sigint)


def execute(task: Task) -> dict:
    """Runs one task; never raises (a failure is a result)."""
    global _IN_RUN
    if _STOPPING:
        # A run the pool had already handed over when the interrupt came: not started.
        raise KeyboardInterrupt
    _IN_RUN = True
    try:
        return _execute(task)
    finally:
        _IN_RUN = False


def _execute(task: Task) -> dict:
    from .run import run

    t0 = time.perf_counter()
    base = {"run_id": task.run_id, "params": task.params, "seed": task.seed, "sweep": task.sweep}
    if task.error:
        return {**base, "status": "failed", "error": task.error, "meta": {}, "metrics": {}, "tables": None}
    try:
        res = run(task.scenario)
        metrics = standard_metrics(res)
        if task.extract is not None:
            metrics.update({k: float(v) for k, v in task.extract(res).items()})
        from .results import named_series, series_files

        arrow = dict(res.tables)
        for name, file in series_files(res.series_names).items():
            arrow[file.removesuffix(".parquet")] = named_series(name, res.series_arrow(name))
        if task.out is not None:
            from .catalog import write_run_tables

            write_run_tables(Path(task.out), task.run_id, arrow)
            tables = None
        else:
            tables = {k: _ipc(t) for k, t in arrow.items()}
        meta = dict(res.meta)
        meta["overhead_s"] = time.perf_counter() - t0 - meta["wall_s"]
        return {**base, "status": "ok", "error": None, "meta": meta, "metrics": metrics, "tables": tables}
    except ScenarioError as e:
        return {**base, "status": "failed", "error": str(e), "meta": {}, "metrics": {}, "tables": None}
    except Exception as e:  # noqa: BLE001 - recorded, the sweep goes on
        tb = traceback.format_exc(limit=3)
        return {**base, "status": "failed", "error": f"{type(e).__name__}: {e}\n{tb}", "meta": {}, "metrics": {}, "tables": None}


def _local_results(tasks: list[Task], workers: int, main):
    """The runs' results as they finish: in this process with one worker, else in a pool
    whose workers start under `main` (`_main_for_workers`: what they get as `__main__`)."""
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool
    from multiprocessing import get_context

    if workers == 1:
        for t in tasks:
            yield execute(t)
        return
    # forkserver: workers fork from a server that has imported ccsim once, so starting them
    # is cheap and safe (no threads of this process are inherited).
    ctx = get_context("forkserver")
    ctx.set_forkserver_preload(["ccsim.sweep", "ccsim._forkserver_sigint"])
    _start_forkserver()
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init) as pool:
        pending = set()
        it = iter(tasks)

        def submit(t: Task) -> None:
            # Workers start inside submit(); what they are told to import as __main__ is
            # decided then.
            with main:
                pending.add(pool.submit(execute, t))

        try:
            for t in itertools.islice(it, workers * 2):
                submit(t)
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    try:
                        yield fut.result()
                    except BrokenProcessPool as e:
                        raise RuntimeError(
                            "a sweep worker process ended abruptly (killed, out of memory, or it failed while "
                            "starting: a script whose extract= function is defined in it is re-run by each "
                            "worker and must guard its sweep with `if __name__ == \"__main__\":`); "
                            "see the worker's error above") from e
                    nxt = next(it, None)
                    if nxt is not None:
                        submit(nxt)
        except BaseException as e:
            for fut in pending:
                fut.cancel()
            if isinstance(e, KeyboardInterrupt):
                # An interrupt of this process alone (`kill -INT`, not the terminal's Ctrl-C,
                # which reaches every worker too) stops the runs under way as well.
                _interrupt_workers(pool)
            # Stop at once (an interrupt, a failure): no waiting for queued runs, and the
            # pool's threads are done before the caller unwinds further.
            pool.shutdown(wait=True, cancel_futures=True)
            raise


def _start_forkserver() -> None:
    """Starts the fork server (if it is not running) with Ctrl-C ignored, as it is once the
    server runs: a Ctrl-C while it imported ccsim printed the server's traceback. (The
    server is its own program, started with exec: an ignored signal is all it inherits;
    this process ignores Ctrl-C only while it starts it.) Its last preload,
    `ccsim._forkserver_sigint`, gives Ctrl-C its default handler back, which the server
    keeps for the processes it forks: other pools of the same process (the user's own)
    would otherwise start with Ctrl-C ignored."""
    import signal
    from multiprocessing import forkserver

    if threading.current_thread() is not threading.main_thread():
        forkserver.ensure_running()
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        forkserver.ensure_running()
    finally:
        signal.signal(signal.SIGINT, old)


def _interrupt_workers(pool) -> None:
    """Sends SIGINT to the pool's worker processes still alive (an idle one ignores it)."""
    import signal

    # `_processes` is the executor's own table of its workers (CPython 3.10-3.14).
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            if proc.is_alive():
                os.kill(proc.pid, signal.SIGINT)
        except (OSError, ValueError, AttributeError):
            pass


_MAIN_LOCK = threading.Lock()


class _HiddenMain:
    """While active, `sys.modules["__main__"]` is an empty module, so that worker processes
    started then do not re-run the caller's main script (multiprocessing re-runs it to find
    functions defined there): code piped to `python -` cannot be re-run at all, and a
    script without an `if __name__ == "__main__":` guard would start its sweep again in
    every worker. The runs need nothing from `__main__` unless `extract` refers to it.
    Sweeps in several threads take turns (a lock), and each restores only its own swap."""

    def __enter__(self):
        import types

        _MAIN_LOCK.acquire()
        self.saved = sys.modules.get("__main__")
        self.empty = types.ModuleType("__main__")
        sys.modules["__main__"] = self.empty

    def __exit__(self, *exc):
        try:
            if sys.modules.get("__main__") is self.empty:
                sys.modules["__main__"] = self.saved
        finally:
            _MAIN_LOCK.release()


def _main_for_workers(extract: Callable | None):
    """What worker processes get as `__main__` while they start: nothing, unless `extract`
    is a function of the main script (then the script, as multiprocessing does; it must
    be a file). An `extract` workers cannot receive is a ScenarioError before any run."""
    import contextlib
    import pickle

    if extract is None:
        return _HiddenMain()
    try:
        pickled = pickle.dumps(extract)
    except Exception as e:
        raise ScenarioError([("extract", f"{getattr(extract, '__name__', 'the function')} cannot be sent to worker "
                                         f"processes ({type(e).__name__}: {e}): it must be defined at the top level "
                                         f"of an importable module or script file; or run with workers=1")]) from None
    # A reference to the main script anywhere in it (the function itself, or one a
    # functools.partial wraps) needs the script in the workers.
    if b"__main__" not in pickled:
        return _HiddenMain()
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    name = getattr(getattr(main, "__spec__", None), "name", None)
    if name is None and (path is None or not os.path.isfile(path)):
        raise ScenarioError([("extract", f"{getattr(extract, '__name__', 'it')} is defined in code that worker processes cannot "
                                         f"import (typed or piped to Python, or a notebook cell: not a file); define it in a "
                                         f"module or script file, or run with workers=1")])
    return contextlib.nullcontext()


#: Seconds to wait for a Dask scheduler before giving up.
DASK_CONNECT_TIMEOUT_S = 10


def dask_client(address: str, workers: int):
    """A Dask client (and the LocalCluster for ``"local"``); an unreachable scheduler is a
    ScenarioError naming ``--dask`` after at most DASK_CONNECT_TIMEOUT_S seconds."""
    from distributed import Client, LocalCluster

    if address == "local":
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        return Client(cluster), cluster
    try:
        return Client(address, timeout=f"{DASK_CONNECT_TIMEOUT_S}s"), None
    except (ValueError, TypeError) as e:
        raise ScenarioError([("--dask", f"{address!r} is not a Dask scheduler address ({e}); give tcp://host:port of a "
                                        "running scheduler, or 'local'")]) from None
    except (OSError, TimeoutError) as e:
        raise ScenarioError([("--dask", f"cannot reach the Dask scheduler at {address!r} within {DASK_CONNECT_TIMEOUT_S} s "
                                        f"({type(e).__name__}: {e}); give tcp://host:port of a running scheduler, or 'local'")]) from None


def _dask_results(tasks: list[Task], client):
    """The runs' results as Dask's workers finish them (the caller closes the client)."""
    from distributed import as_completed

    futures = client.map(execute, tasks, pure=False)
    for fut in as_completed(futures):
        yield fut.result()


def usable_cpus() -> int:
    """The cores this process may run on (its CPU affinity: `taskset`, a Slurm allocation,
    a container's cpuset), else the machine's; at least 1. The local pool's default size."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
