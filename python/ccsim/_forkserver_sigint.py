"""Imported by a sweep's fork server as its last preload (see `_sweep_exec._start_forkserver`).
Not for import anywhere else: it sets the importing process's Ctrl-C handler and its
`sys.excepthook`, which the server keeps for every process it forks.

- The server was started with Ctrl-C ignored, so that a Ctrl-C while it imported ccsim did
  not print its traceback; with the imports done, Ctrl-C gets Python's default handler
  back (the server's own wait ignores Ctrl-C anyway).
- A worker the server forks reads its start-up state from the sweep, the pool's
  semaphores among it; after a Ctrl-C the sweep may have shut its pool down, and removed
  them, before a worker it had asked for got there. That worker's `FileNotFoundError` was
  a traceback after "interrupted"; it is one line now, which also says what happened if
  the semaphores went otherwise (a cleaned `/dev/shm`). Any other error goes to Python's
  hook, as before."""

import signal
import sys
import threading
import traceback


def _quiet_when_orphaned(kind, value, tb) -> None:
    if isinstance(value, FileNotFoundError) and any(
        frame.f_code.co_name == "__setstate__" and frame.f_code.co_filename.endswith("synchronize.py")
        for frame, _ in traceback.walk_tb(tb)
    ):
        sys.stderr.write("ccsim: a worker process could not start: its pool's semaphores were gone (the pool had "
                         "shut down, as after Ctrl-C)\n")
        return
    sys.__excepthook__(kind, value, tb)


if threading.current_thread() is threading.main_thread():
    signal.signal(signal.SIGINT, signal.default_int_handler)
sys.excepthook = _quiet_when_orphaned
