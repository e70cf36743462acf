"""Imported by a sweep's fork server as its last preload (see `sweep._start_forkserver`):
the server was started with Ctrl-C ignored, so that a Ctrl-C while it imported ccsim did
not print its traceback; with the imports done, Ctrl-C gets Python's default handler back,
which the server keeps for every process it forks (its own wait ignores Ctrl-C anyway).
Not for import anywhere else: it sets the importing process's Ctrl-C handler."""

import signal
import threading

if threading.current_thread() is threading.main_thread():
    signal.signal(signal.SIGINT, signal.default_int_handler)
