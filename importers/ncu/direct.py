"""A plain ``--csv`` details or raw page, read by Polars straight from the file.

Polars reads a file it is given by path with every core and without a copy in Python
(memory-mapped), where framing the bytes in Python first (``framing.py``) costs several
passes and copies (a 300 MB details page: 1.0 s this way, 1.5 s framed in chunks), and only
stdout captures, several processes, damaged rows and cut files need that. So the file is read directly first, and the result is kept only when it shows
that the file is exactly one clean page: every row a launch row (and the raw page's units
row), nothing rejected, the last line whole. Anything else returns None, and the framed
path reads the file again, with its line numbers and messages; tests check that both ways
give the same tables on every real sample the direct way accepts.

A raw page's columns the catalog does not map (thousands) are not parsed here: the file's
text is kept, compressed, and parsed a column at a time when asked (``raw_pages``).

The whole page is held as a frame (about 0.2-0.9x the file's size), so only files up to
``WHOLE_READ_LIMIT`` are read this way; larger ones stream (``stream.py``).
"""

from __future__ import annotations

import os
from dataclasses import replace

import polars as pl
from polars.exceptions import PanicException

from warpscope.importers.ncu import MAX_COLUMNS, assemble_profile, first_rows, framing, import_block
from warpscope.importers.ncu.framing import DETAILS_HEADER, CsvBlock
from warpscope.importers.ncu.long_page import CATEGORICAL_COLUMNS, PageResult
from warpscope.importers.ncu.raw_page import parsed_columns, unmapped_columns
from warpscope.importers.ncu.values import matches_by_run
from warpscope.model import raw_pages
from warpscope.model.profile import Profile

WHOLE_READ_LIMIT = 1 << 30
_TAIL = 1 << 16


def eligible(path: str, head: bytes) -> bool:
    """A plain, uncompressed page that starts with its header (no BOM, no NUL byte up front)."""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            first = f.read(len(DETAILS_HEADER))
    except OSError:
        return False
    return (
        first == DETAILS_HEADER and size <= WHOLE_READ_LIMIT and b"\0" not in head and _ends_whole(path, size)
    )


def _ends_whole(path: str, size: int) -> bool:
    """The file ends with a newline and its last line closes every quote it opens (a file cut
    inside a quoted field would otherwise read as a row with half a value)."""
    with open(path, "rb") as f:
        f.seek(max(0, size - _TAIL))
        tail = f.read()
    if not tail.endswith(b"\n"):
        return False
    last = tail[tail.rfind(b"\n", 0, len(tail) - 1) + 1 :]
    return last.startswith(b'"') and last.count(b'"') % 2 == 0


def import_direct(path: str) -> Profile | None:
    """The page's Profile, or None when the file needs the framed path."""
    started: list[raw_pages.Compressing] = []
    try:
        return _import_direct(path, started)
    finally:
        for thread in started:  # never left running: a fork (the rules' workers) must not copy it mid-call
            thread.join()


def _import_direct(path: str, started: list[raw_pages.Compressing]) -> Profile | None:
    try:
        first_lines = _first_lines(path, 2)
        if first_lines.split(b"\n", 1)[0].count(b",") >= MAX_COLUMNS:
            return None  # damage (a field of commas): the framed path says so, without parsing it
        head = pl.read_csv(first_lines, infer_schema=False, truncate_ragged_lines=True)
        raw = not {"Metric Name", "Metric Value"} & set(head.columns)  # as import_block tells
        header = head.columns
        if len(header) >= MAX_COLUMNS or len(set(header)) != len(header) or "ID" not in header:
            return None
        # a raw page's unmapped columns stay text (below), a details page's per-launch columns
        # are read from each launch's first line: only what is needed is parsed on every row
        columns = parsed_columns(header) if raw else [c for c in header if c not in first_rows.PER_LAUNCH]
        text = None
        if raw:  # its unmapped columns kept as text: compressed meanwhile
            text = raw_pages.Compressing(path)
            started.append(text)
        frame = _read(path, columns, raw)
    except (pl.exceptions.PolarsError, PanicException, OSError):
        return None  # not UTF-8, a malformed row...: the framed path says where
    if frame.is_empty():
        return None
    launch_row = matches_by_run(frame["ID"], r"^\d+$").fill_null(False)
    units_row = raw and not (frame["ID"][0] or "")
    if not launch_row.slice(1 if units_row else 0).all():
        return None  # program output, another process's header, a side table, a bad row
    block = CsvBlock(b"", 1, None)
    try:
        identity = (
            None
            if raw
            else first_rows.PendingIdentity(path, first_lines[: first_lines.find(b"\n") + 1], header)
        )
        fmt, result = import_block(path, block, _numbered(frame), False, 0, identity)
    except first_rows.IdentityNotFound:
        try:
            frame = _read(path, None, raw)
        except (pl.exceptions.PolarsError, PanicException, OSError):
            return None
        fmt, result = import_block(path, block, _numbered(frame), False, 0)
    if result.rejected or result.set_aside:
        return None
    if text is not None:
        result = _unmapped_as_text(text, result, head, units_row)
    return assemble_profile(path, [(result, block, fmt)], framing.Framing())


def _numbered(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_row_index("_row").with_columns(pl.col("_row").cast(pl.Int64))


def _read(path: str, columns: list[str] | None, raw: bool) -> pl.DataFrame:
    return pl.read_csv(
        path,
        has_header=True,
        infer_schema=False,
        schema_overrides=None if raw else CATEGORICAL_COLUMNS,
        columns=columns,
        truncate_ragged_lines=True,
        raise_if_empty=False,
    )


def _first_lines(path: str, count: int) -> bytes:
    """The file's first ``count`` lines (a header and a raw page's units row: a few hundred KB)."""
    with open(path, "rb") as f:
        data = b""
        while data.count(b"\n") < count and (chunk := f.read(1 << 20)):
            data += chunk
    end = -1
    for _ in range(count):
        end = data.find(b"\n", end + 1)
        if end < 0:
            return data
    return data[: end + 1]


def _unmapped_as_text(
    text: raw_pages.Compressing, result: PageResult, head: pl.DataFrame, units_row: bool
) -> PageResult:
    """The page's unmapped columns kept as its compressed text (``raw_pages``), not parsed."""
    columns = unmapped_columns(head.columns)
    units = [(head[c][0] or "") if units_row else "" for c in columns]
    page = raw_pages.page_row(
        text, first_launch_id=0, launches=result.launches.height, units_row=units_row, columns=columns
    )
    return replace(
        result,
        raw_metrics=None,
        raw_units=pl.DataFrame(
            {"name": columns, "unit": units}, schema={"name": pl.String, "unit": pl.String}
        ),
        raw_pages=page,
    )
