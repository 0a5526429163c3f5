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
"""

from __future__ import annotations

import mmap

import polars as pl

from importers.ncu.launches import DIM_TUPLES, IDENTITY

#: the columns a launch row carries (``launches.py``) that the page repeats on every row;
#: ID and Process ID are read with the page (they tell the launches apart)
_KEYS = ["ID", "Process ID"]
PER_LAUNCH = [c for c in (*IDENTITY, *DIM_TUPLES) if c not in (*_KEYS, "Kernel Mangled Name")]


def launch_identity(path: str, header: bytes, columns: list[str], frame: pl.DataFrame) -> pl.DataFrame | None:
    """One row per launch (in page order) with ``_KEYS`` and the ``PER_LAUNCH`` columns the
    page has, or None when a first line cannot be found exactly.

    ``header`` is the page's header line as bytes, ``columns`` its names, ``frame`` the page
    parsed without the per-launch columns (every row a launch row)."""
    if columns[:2] != _KEYS:
        return None
    starts = frame.select(*_KEYS).with_row_index("row").filter(pl.struct(*_KEYS).rle_id().is_first_distinct())
    rows = starts["row"].append(pl.Series([frame.height], dtype=pl.UInt32)).diff().drop_nulls().to_list()
    wanted = [c for c in columns if c in PER_LAUNCH]
    prefix_fields = columns.index(wanted[-1]) + 1 if wanted else 2
    lines: list[bytes] = []
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as text:
        at = len(header) - 1  # the newline ending the header
        for launch_id, process, count in zip(starts["ID"].to_list(), starts["Process ID"].to_list(), rows):
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
            # every row of this launch repeats its identity fields: skip past them
            at = max(found + 1, found + count * (least + 1) - 1)
    try:
        identity = pl.read_csv(
            header + b"".join(lines),
            has_header=True,
            infer_schema=False,
            columns=[*_KEYS, *wanted],
            truncate_ragged_lines=True,
        )
    except pl.exceptions.PolarsError:  # a damaged line: the page is read whole, and said
        return None
    if (
        identity.height != starts.height
        or "Kernel Name" not in identity.columns
        or not (identity["ID"].equals(starts["ID"]) and identity["Process ID"].equals(starts["Process ID"]))
    ):
        return None
    return identity


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
