"""A details page's launch columns, read from the first row of each launch only.

A details page repeats the launch's identity (process, host, kernel name, context, stream,
grid, block, device, compute capability) on each of its ~90 metric rows, and the kernel
name is most of each row's bytes. Parsing those columns on every row is two fifths of
reading a 300 MB page (0.4 of 1.0 s) for values that only the first row of a launch gives.
So the page is parsed without them, and each launch's first line is found in the file and
parsed alone. Polars cannot parse a column for chosen rows only, hence the search here.

Finding a first line: its rows start with ``"ID","Process ID",``, and every row of the
launch before it is at least as long as that launch's identity fields, so the search for
the next launch starts that many bytes on and scans only the rest. Each line found must be
a first line (the line before it belongs to another launch) and parse to the expected ID
and process; anything else returns None and the page is parsed whole.

The search is Python and the page's metrics are assembled by Polars, which releases the
GIL: ``PendingIdentity`` runs the search on a worker thread meanwhile (0.1 s of work on a
300 MB page). What it needs per row is computed in the page's one vectorised pass
(``row_columns``), and the loop yields the GIL every few launches (``_YIELD_EVERY``).
"""

from __future__ import annotations

import mmap
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import polars as pl

from warpscope.importers.ncu.launches import DIM_TUPLES, IDENTITY

#: the columns a launch row carries (``launches.py``) that the page repeats on every row;
#: ID and Process ID are read with the page (they tell the launches apart)
_KEYS = ["ID", "Process ID"]
#: launches searched between two yields of the GIL. The importing thread makes many short
#: Polars calls meanwhile, each of which releases the GIL and must take it back: from a loop
#: that never yields it, it gets it only after the switch interval (5 ms), which slowed the
#: importing thread threefold; this way it waits ~0.1 ms at most. (``time.sleep(0)``: a
#: thread that only releases the GIL, ``os.sched_yield()`` say, takes it straight back.)
_YIELD_EVERY = 32
PER_LAUNCH = [c for c in (*IDENTITY, *DIM_TUPLES) if c not in (*_KEYS, "Kernel Mangled Name")]


@dataclass
class SearchPlan:
    """What the search for a page's first lines needs, per launch in page order: its ``ID`` and
    ``Process ID`` text, its row count, and a lower bound on the bytes of its rows' parsed
    fields after the identity ones (``rest``); and the fields the identity spans."""

    ids: list[str]
    processes: list[str]
    rows: list[int]
    rest: list[int]
    prefix_fields: int
    wanted: list[str]


#: the column of a row's parsed bytes after its identity fields (``PendingIdentity.row_columns``)
REST_BYTES = "_rest_bytes"
#: the fields after the identity that hold most of a row's bytes (a metric's name and section, a
#: rule's message); the others (unit, value, rule type...) take a few bytes, which the search
#: scans past: counting them cost more than scanning them
_REST_COLUMNS = ("Section Name", "Metric Name", "Rule Description")


def search_plan(columns: list[str], frame: pl.DataFrame) -> SearchPlan | None:
    """The plan for ``frame`` (the page parsed without the per-launch columns, every row a launch
    row, with its ``launch_id``, one run of rows per launch, and ``REST_BYTES``), or None when
    the page's columns do not start with ``ID``, ``Process ID``."""
    if columns[:2] != _KEYS:
        return None
    runs = frame["launch_id"].rle().struct.field("len").cast(pl.UInt32)
    ends = runs.cum_sum()
    starts = frame.select(*_KEYS)[ends - runs]
    rest = frame[REST_BYTES].cast(pl.Int64).cum_sum().gather(ends - 1)
    return SearchPlan(
        ids=starts["ID"].to_list(),
        processes=starts["Process ID"].to_list(),
        rows=runs.to_list(),
        rest=rest.diff().fill_null(rest.first()).to_list(),
        prefix_fields=_prefix_fields(columns),
        wanted=[c for c in columns if c in PER_LAUNCH],
    )


def _prefix_fields(columns: list[str]) -> int:
    """How many fields the identity spans: up to the last per-launch column."""
    wanted = [c for c in columns if c in PER_LAUNCH]
    return columns.index(wanted[-1]) + 1 if wanted else 2


def launch_identity(path: str, header: bytes, plan: SearchPlan) -> pl.DataFrame | None:
    """One row per launch (in page order) with ``_KEYS`` and the ``PER_LAUNCH`` columns the
    page has, or None when a first line cannot be found exactly. ``header`` is the page's
    header line as bytes."""
    prefix_fields = plan.prefix_fields
    lines: list[bytes] = []
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as text:
        at = len(header) - 1  # the newline ending the header
        for i, (launch_id, process, count, after) in enumerate(
            zip(plan.ids, plan.processes, plan.rows, plan.rest)
        ):
            if i % _YIELD_EVERY == 0:
                time.sleep(0)  # let the importing thread back in (see _YIELD_EVERY)
            mark = b'\n"%s","%s",' % (launch_id.encode(), process.encode())
            found = text.find(mark, at)
            if found < 0 or not _first_of_launch(text, found, mark):
                return None
            end = text.find(b"\n", found + 1)
            line = text[found + 1 : end + 1 if end >= 0 else len(text)]
            lines.append(line)
            least = _identity_bytes(line, prefix_fields)
            if least is None:
                return None
            # every row of this launch repeats its identity fields, and its other fields take at
            # least their parsed bytes: skip past both
            at = max(found + 1, found + count * (least + 1) + after - 1)
    try:
        identity = pl.read_csv(
            header + b"".join(lines),
            has_header=True,
            infer_schema=False,
            columns=[*_KEYS, *plan.wanted],
            truncate_ragged_lines=True,
        )
    except pl.exceptions.PolarsError:  # a damaged line: the page is read whole, and said
        return None
    if (
        identity.height != len(plan.ids)
        or "Kernel Name" not in identity.columns
        or identity["ID"].to_list() != plan.ids
        or identity["Process ID"].to_list() != plan.processes
    ):
        return None
    return identity


def _search(path: str, header: bytes, columns: list[str], frame: pl.DataFrame) -> pl.DataFrame | None:
    plan = search_plan(columns, frame)
    return None if plan is None else launch_identity(path, header, plan)


class IdentityNotFound(Exception):
    """A launch's first line was not found exactly: the page is to be parsed whole."""


class PendingIdentity:
    """``launch_identity`` on a worker thread: its ``columns`` now, the search started once the
    page's launches are told apart (``start``), its table when asked."""

    def __init__(self, path: str, header: bytes, columns: list[str]) -> None:
        self.columns = [*_KEYS, *(c for c in columns if c in PER_LAUNCH)]
        self._path, self._header, self._page_columns = path, header, columns
        self._future: Future[pl.DataFrame | None] | None = None

    def row_columns(self, schema: pl.Schema) -> list[pl.Expr]:
        """The per-row columns the search reads, for the page's one pass over its rows (here,
        on a worker, the pass would hold up the page's other work queued for Polars' cores)."""
        after = self._page_columns[_prefix_fields(self._page_columns) :]
        return [_rest_bytes(schema, [c for c in _REST_COLUMNS if c in schema and c in after])]

    def start(self, frame: pl.DataFrame) -> None:
        """Search for the first lines of ``frame``'s launches (with ``row_columns``) meanwhile,
        on a worker thread."""
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="first-rows")
        self._future = pool.submit(_search, self._path, self._header, self._page_columns, frame)
        pool.shutdown(wait=False)

    def result(self) -> pl.DataFrame:
        """The identity table; ``IdentityNotFound`` where a first line or a kernel name is missing."""
        if self._future is None:
            raise RuntimeError("PendingIdentity.result() before start()")
        identity = self._future.result()
        if identity is None or identity["Kernel Name"].null_count():
            raise IdentityNotFound
        return identity


def _rest_bytes(schema: pl.Schema, columns: list[str]) -> pl.Expr:
    """A row's bytes in ``columns`` as parsed: a lower bound on their text in the file (quotes
    and separators only add to it). Summed in 32 bits (a row's sum fits; 64 costs twice)."""
    lengths = [
        (pl.col(c).cat.len_bytes() if schema[c] == pl.Categorical else pl.col(c).str.len_bytes()).fill_null(0)
        for c in columns
    ]
    return (pl.sum_horizontal(lengths) if lengths else pl.lit(0, dtype=pl.UInt32)).alias(REST_BYTES)


def _first_of_launch(text: mmap.mmap, found: int, mark: bytes) -> bool:
    """The line at ``found + 1`` is its launch's first: the line before it starts otherwise."""
    before = text.rfind(b"\n", 0, found)
    return text[before : before + len(mark)] != mark


def _identity_bytes(line: bytes, fields: int) -> int | None:
    """A lower bound on the bytes the first ``fields`` fields take in any row of this launch:
    up to the ``fields``-th ``","`` (a value holding that text only moves it earlier)."""
    parts = line.split(b'","', fields)
    if len(parts) <= fields:
        return None
    return len(line) - len(parts[-1])
