"""A big launch timed on a thread of its own while the program goes on to its next launch.

The compiled timing model releases the GIL (``compiled``: numba's ``nogil``), so on a
machine with a second core the model's time for a big launch (the seed's matmuls: a tenth
of a second and more each) overlaps the functional emulation of the launches after it. The
result is the same: launches are timed one at a time and in launch order (the model's caches
and its rent-or-buy choice see the same sequence): a launch made while the thread is busy is
queued behind, and reading a ``Launch``'s ``timing`` waits for its own.

A launch goes to the thread where the compiled model would time it (numba installed and not
switched off) and it has at least ``OVERLAP_MIN`` traced warp instructions, or while the thread
is busy; any other is timed where it is made: the reference model holds the GIL (a second
thread would only share one core with the first), and a small launch's timing costs less
than handing it to a thread.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from warpscope.emulator.timing import compiled

#: traced warp instructions from which a launch is timed on the timing thread (the compiled
#: model takes about 0.5 µs a traced instruction: from here on, tens of milliseconds)
OVERLAP_MIN = 100_000

T = TypeVar("T")
_lock = threading.Lock()
# the timing thread's queue (None: no thread yet). Not a ThreadPoolExecutor: its thread is
# joined at exit after every queued job, so a program stopped (Ctrl-C, an error) would wait
# for timings nobody reads; a daemon thread is dropped with the process instead
_jobs: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]]] | None = None
_last: Future[Any] | None = None  # the last launch handed to the timing thread


def run(job: Callable[[], T], traced: int) -> T | Future[T]:
    """``job()`` (a launch's timing), or a ``Future`` of it from the timing thread: for a big
    launch where the compiled model is at hand, and for any launch while the thread is still
    timing one (queued behind it, so the program does not wait); either way in launch order."""
    global _jobs, _last
    with _lock:
        busy = _last is not None and not _last.done()  # done: so is every job before it
        if busy or (traced >= OVERLAP_MIN and compiled.numba_available()):
            if _jobs is None:
                _jobs = queue.SimpleQueue()
                threading.Thread(target=_work, args=(_jobs,), name="warpscope-timing", daemon=True).start()
            future: Future[T] = Future()
            _jobs.put((future, job))
            _last = future
            return future
        _last = None
    return job()


def wait() -> None:
    """Return once every launch handed to the timing thread is timed (what a program's run
    costs with its timings: ``warpscope emulate`` reads them all before its report)."""
    with _lock:
        pending = _last  # left in place: a launch made meanwhile still queues behind it
    if pending is not None:
        pending.exception()


def _work(jobs: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]]]) -> None:
    """The timing thread: each job in turn, its result or exception into its future."""
    while True:
        future, job = jobs.get()
        try:
            result = job()
        except BaseException as e:  # every future resolved: a reader never waits forever
            future.set_exception(e)
        else:
            future.set_result(result)


def _forget_thread() -> None:
    """In a forked child: the timing thread is not there (a new one starts when needed)."""
    global _jobs, _last, _lock
    _jobs, _last, _lock = None, None, threading.Lock()


if hasattr(os, "register_at_fork"):  # not on Windows, which does not fork
    os.register_at_fork(after_in_child=_forget_thread)
