"""A plain ``--csv`` details or raw page, read by Polars straight from the file.

Polars reads a file it is given by path with every core and without a copy in Python
(memory-mapped), where framing the bytes in Python first (``framing.py``) costs several
passes and copies (a 300 MB details page: 1.0 s this way, 1.5 s framed in chunks), and only
stdout captures, several processes, damaged rows and cut files need that. So the file is read directly first, and the result is kept only when it shows
that the file is exactly one clean page: every row a launch row (and the raw page's units
row), nothing rejected, the last line whole. Anything else returns None, and the framed
path reads the file again, with its line numbers and messages; tests check that both ways
give the same tables on every real sample the direct way accepts.

The whole page is held as a frame (about 0.2-0.9x the file's size), so only files up to
``WHOLE_READ_LIMIT`` are read this way; larger ones stream (``stream.py``).
"""

from __future__ import annotations

import os

import polars as pl
from polars.exceptions import PanicException

from importers.ncu import MAX_COLUMNS, assemble_profile, framing, import_block
from importers.ncu.framing import DETAILS_HEADER, CsvBlock
from importers.ncu.long_page import CATEGORICAL_COLUMNS
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
    try:
        frame = pl.read_csv(
            path,
            has_header=True,
            infer_schema=False,
            schema_overrides=CATEGORICAL_COLUMNS,
            truncate_ragged_lines=True,
            raise_if_empty=False,
        )
    except (pl.exceptions.PolarsError, PanicException, OSError):
        return None  # not UTF-8, a malformed row...: the framed path says where
    if frame.width >= MAX_COLUMNS or "ID" not in frame.columns or frame.is_empty():
        return None
    launch_row = frame["ID"].str.contains(r"^\d+$").fill_null(False)
    units_row = "Metric Name" not in frame.columns and not (frame["ID"][0] or "")
    if not launch_row.slice(1 if units_row else 0).all():
        return None  # program output, another process's header, a side table, a bad row
    frame = frame.with_row_index("_row").with_columns(pl.col("_row").cast(pl.Int64))
    block = CsvBlock(b"", 1, None)
    fmt, result = import_block(path, block, frame, False, 0)
    if result.rejected or result.set_aside:
        return None
    return assemble_profile(path, [(result, block, fmt)], framing.Framing())
