"""The per-launch rules of a long profile in forked worker processes.

The rules are plain Python over plain views, so a long profile whose launches all differ is
CPU work for every core, and work that never holds the GIL of the process that asked for it
(a UI stays responsive while they run). Each worker is a fork of this process (the views and
the rules are inherited, nothing is sent to it) that evaluates one contiguous chunk of launches
and writes back its findings as tables (Arrow files in memory, /dev/shm where there is one,
named through a pipe: the parent maps them without making an object per finding); results are read in launch order, so the findings
are the ones, in the order, the rules give in one process.

Where fork is not available (not Linux), for short profiles, or when a worker fails, the
launches are evaluated in this process: the same findings, one core.
"""

from __future__ import annotations

import contextlib
import gc
import os
import select
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from typing import overload

import polars as pl
import pyarrow as pa

from warpscope.analysis.finding import (
    Finding,
    add_findings,
    columns_table,
    new_columns,
    table_frame,
)
from warpscope.analysis.views import LaunchView

#: fewer launches to evaluate than this: one process (a fork costs tens of milliseconds)
PARALLEL_FROM = 4000
#: the smallest chunk a worker takes; progress is heard once per chunk
MIN_CHUNK = 1000
#: chunks per worker: enough for progress and for the workers to finish together
CHUNKS_PER_WORKER = 8
#: launches whose findings a worker writes as one table (its parent reads each in ~1 ms)
WRITE_EVERY = 500
#: launches whose findings one process gathers as Python values before they become a table
#: (a long profile's findings never wait as Python objects all at once)
FRAME_EVERY = 2000
#: seconds a worker may go without writing (200 launches take ~50 ms) before it is stopped
STALL_S = 60.0
#: launches evaluated between two progress reports in one process (a UI pauses the rules
#: there while someone types: ~20 ms of rules at most)
PROGRESS_EVERY = 50

Evaluate = Callable[[LaunchView], list[Finding]]
Progress = Callable[[int, int], None]


def default_workers() -> int:
    """The cores this process may run on (at most 8), or 1 where fork is not safe."""
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return 1
    return max(1, min(8, len(os.sched_getaffinity(0))))


def evaluate_all(
    views: Sequence[LaunchView],
    evaluate: Evaluate,
    progress: Progress | None = None,
    weight: dict[int, int] | None = None,
    total: int | None = None,
    workers: int | None = None,
) -> pl.DataFrame:
    """The findings ``evaluate`` gives each view, in order, as a ``findings`` table (made once
    from every part's Arrow table). ``progress(done, total)`` hears of the launches done, a view counting
    ``weight[launch_id]`` launches (1 where not given); ``workers``: processes to use (default:
    ``default_workers``)."""
    weight = weight or {}
    total = len(views) if total is None else total
    workers = default_workers() if workers is None else workers
    if workers > 1 and len(views) >= PARALLEL_FROM:
        parts = _forked(views, evaluate, progress, weight, total, workers)
    else:
        parts = _here(views, evaluate, progress, weight, total)
    return table_frame(pa.concat_tables(parts))


def _here(
    views: Sequence[LaunchView],
    evaluate: Evaluate,
    progress: Progress | None = None,
    weight: dict[int, int] | None = None,
    total: int | None = None,
) -> list[pa.Table]:
    """``evaluate_all`` in this process, as Arrow tables."""
    weight = weight or {}
    total = len(views) if total is None else total
    parts = []
    done = 0
    for start in range(0, len(views), FRAME_EVERY):
        columns = new_columns()
        for i, view in enumerate(views[start : start + FRAME_EVERY]):  # made a slice at a time
            if progress is not None and i % PROGRESS_EVERY == 0:
                progress(done, total)
            done += weight.get(view.launch_id, 1)
            add_findings(columns, view.launch_id, evaluate(view))
        parts.append(columns_table(columns))
    return parts or [columns_table(new_columns())]


class Part(Sequence[LaunchView]):
    """Launches ``start`` to ``stop`` of ``views``, made only when sliced: a worker makes the
    views of its own part (``views.LazyViews``), the process that forked it none."""

    def __init__(self, views: Sequence[LaunchView], start: int, stop: int) -> None:
        self.views, self.start, self.stop = views, start, stop

    def __len__(self) -> int:
        return self.stop - self.start

    @overload
    def __getitem__(self, index: int) -> LaunchView: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[LaunchView]: ...
    def __getitem__(self, index: int | slice) -> LaunchView | Sequence[LaunchView]:
        if isinstance(index, slice):
            start, stop, _ = index.indices(len(self))
            return self.views[self.start + start : self.start + stop]
        return self.views[self.start + range(len(self))[index]]

    @property
    def ids(self) -> list[int]:
        """The launch ids of the part, without making its views where the views know them."""
        ids = getattr(self.views, "ids", None)
        if ids is not None:
            return list(ids[self.start : self.stop])
        return [v.launch_id for v in self.views[self.start : self.stop]]


def _done(chunk: Part, weight: dict[int, int]) -> int:
    return sum(weight.get(i, 1) for i in chunk.ids)


def _forked(
    views: Sequence[LaunchView],
    evaluate: Evaluate,
    progress: Progress | None,
    weight: dict[int, int],
    total: int,
    workers: int,
) -> list[pa.Table]:
    size = max(MIN_CHUNK, -(-len(views) // (workers * CHUNKS_PER_WORKER)))
    chunks = [Part(views, i, min(i + size, len(views))) for i in range(0, len(views), size)]
    jobs = [Job(_evaluating(chunk, evaluate), _done(chunk, weight)) for chunk in chunks]
    return run_forked(jobs, workers, progress, total)


def _evaluating(chunk: Part, evaluate: Evaluate) -> Callable[[], Iterator[pa.Table]]:
    return lambda: _evaluated(chunk, evaluate)


class Job:
    """Work for a forked worker: ``make`` yields Arrow tables (with pyarrow alone: Polars' thread
    pool does not survive a fork), the same in this process if the worker fails; ``weight``: the
    launches it counts for progress."""

    def __init__(self, make: Callable[[], Iterator[pa.Table]], weight: int) -> None:
        self.make, self.weight = make, weight


def run_forked(
    jobs: Sequence[Job],
    workers: int,
    progress: Progress | None = None,
    total: int | None = None,
    done: int = 0,
) -> list[pa.Table]:
    """Every job's tables, in job order, at most ``workers`` forked processes at a time;
    ``progress(done, total)`` hears of the launches done (counting on from ``done``)."""
    total = sum(j.weight for j in jobs) if total is None else total
    running: list[tuple[int, int]] = []  # (pid, read end), oldest first
    parts: list[pa.Table] = []
    next_job = 0
    spool = tempfile.mkdtemp(prefix="warpscope-", dir=_spool_root())
    try:
        for job in jobs:
            while len(running) < workers and next_job < len(jobs):
                running.append(_start(jobs[next_job].make, spool))
                next_job += 1
            if progress is not None:
                progress(done, total)
            pid, read = running.pop(0)
            found = _result(pid, read)
            if found is None:  # the worker failed: this job here, where an error shows as itself
                found = list(job.make())
            parts.extend(found)
            done += job.weight
    finally:
        for pid, read in running:  # abandoned (an error, or the caller stopped): stop them
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            _result(pid, read)
        shutil.rmtree(spool, ignore_errors=True)
    return parts


def _spool_root() -> str | None:
    """Where workers leave their tables: memory (/dev/shm) where there is one."""
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


def _evaluated(chunk: Part, evaluate: Evaluate) -> Iterator[pa.Table]:
    """The findings of ``chunk``'s views, a table every ``WRITE_EVERY`` launches."""
    for i in range(0, len(chunk), WRITE_EVERY):
        columns = new_columns()
        for view in chunk[i : i + WRITE_EVERY]:
            add_findings(columns, view.launch_id, evaluate(view))
        yield columns_table(columns)


def _start(make: Callable[[], Iterator[pa.Table]], spool: str) -> tuple[int, int]:
    """Fork a worker that writes the tables ``make`` yields: (its pid, the read end of its pipe).
    Each table is an Arrow file in ``spool`` that the parent maps (a pipe copied tens of
    megabytes of a long profile's texts 64 kB at a time); the pipe carries its name."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker: evaluate, write, and leave without running anything of the parent's
        code = 1
        try:
            # what the worker inherits left out of its collector: a collection that walked it
            # would touch (and so copy) every page it lies on. (Only here: a UI keeps its own
            # objects frozen, and an unfreeze in the parent would hand them all back.)
            gc.freeze()
            os.close(read)
            _quiet_signals()
            with open(write, "wb") as out:
                for table in make():
                    handle, path = tempfile.mkstemp(suffix=".arrow", dir=spool)
                    with os.fdopen(handle, "wb") as file, pa.ipc.new_file(file, table.schema) as writer:
                        writer.write_table(table)
                    frame = path.encode()
                    out.write(len(frame).to_bytes(8, "little") + frame)
                    out.flush()
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    return pid, read


def _quiet_signals() -> None:
    """A worker leaves terminal signals to its parent (a UI's resize handler and wakeup pipe are
    the parent's) and dies of Ctrl+C like any program."""
    with contextlib.suppress(ValueError, OSError):
        signal.set_wakeup_fd(-1)
    for name, handler in (("SIGWINCH", signal.SIG_IGN), ("SIGINT", signal.SIG_DFL)):
        if hasattr(signal, name):
            with contextlib.suppress(ValueError, OSError):
                signal.signal(getattr(signal, name), handler)


def _result(pid: int, read: int) -> list[pa.Table] | None:
    """A worker's findings; None if it failed, died, or wrote nothing for ``STALL_S`` seconds (a
    rule that waits on something a fork does not have, a lock or a thread pool, is stopped)."""
    found = []
    ok = True
    try:
        # read as written, a few hundred launches at a time
        while (head := _read(read, 8)) is not None:
            frame = _read(read, int.from_bytes(head, "little"))
            if frame is None:
                raise EOFError("a worker's frame cut short")
            path = frame.decode()
            try:  # our own fork wrote it; mapped, not copied (the name goes, the mapping stays)
                found.append(pa.ipc.open_file(pa.memory_map(path)).read_all())
            finally:
                os.unlink(path)
    except (OSError, EOFError, TimeoutError, pa.ArrowInvalid):
        ok = False
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    finally:
        os.close(read)
    _, status = os.waitpid(pid, 0)
    return found if ok and os.waitstatus_to_exitcode(status) == 0 else None


def _read(fd: int, size: int) -> bytes | None:
    """``size`` bytes from the pipe ``fd``; None at its end."""
    got = bytearray()
    while len(got) < size:
        ready, _, _ = select.select([fd], [], [], STALL_S)
        if not ready:
            raise TimeoutError("a worker wrote nothing")
        data = os.read(fd, size - len(got))
        if not data:
            if got:
                raise EOFError("a worker's frame cut short")
            return None
        got += data
    return bytes(got)
