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

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from warpscope.emulator.timing import compiled

#: traced warp instructions from which a launch is timed on the timing thread (the compiled
#: model takes about 0.5 µs a traced instruction: from here on, tens of milliseconds)
OVERLAP_MIN = 100_000

T = TypeVar("T")
_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None
_last: Future | None = None  # the last launch handed to the timing thread


def run(job: Callable[[], T], traced: int) -> T | Future[T]:
    """``job()`` (a launch's timing), or a ``Future`` of it from the timing thread: for a big
    launch where the compiled model is at hand, and for any launch while the thread is still
    timing one (queued behind it, so the program does not wait); either way in launch order."""
    global _executor, _last
    with _lock:
        busy = _last is not None and not _last.done()  # done: so is every job before it
        if busy or (traced >= OVERLAP_MIN and compiled.numba_available()):
            if _executor is None:
                _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="warpscope-timing")
            _last = _executor.submit(job)  # one worker: after the ones before it
            return _last
        _last = None
    return job()


def wait() -> None:
    """Return once every launch handed to the timing thread is timed (what a program's run
    costs with its timings: ``warpscope emulate`` reads them all before its report)."""
    global _last
    with _lock:
        pending, _last = _last, None
    if pending is not None:
        pending.exception()
