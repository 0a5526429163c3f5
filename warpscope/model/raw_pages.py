"""A raw page's unmapped columns kept as the file's own text, compressed, parsed on demand.

A raw page has thousands of metric columns the catalog does not map. Parsing them into
text columns cost four fifths of a big raw page's import and most of its save (a 300 MB
page: 2.0 s of Polars' CSV reader, ~1 s of Parquet encoding), for cells that no view reads
until someone asks for one by name. So a page read whole keeps its CSV text instead, zstd
compressed (one ``raw_pages`` row), and a query parses only the columns it names.

Launch ``first_launch_id + i`` is the page's ``i``-th data row (after the units row): a page
is kept this way only when every data row became a launch.
"""

from __future__ import annotations

import mmap
import threading
from typing import Any, cast

import polars as pl

from warpscope.model import schema

#: zstd level 1: ~350 MB/s on real raw pages (the reader's CSV parse of the same columns is
#: several times slower) and ~7x smaller; higher levels cost time for little
_LEVEL = 1


def compress(text: bytes | memoryview | mmap.mmap) -> bytes:
    """``text`` zstd-compressed. pyarrow's codec: Polars exposes none, and zstd is not in
    Python's standard library before 3.14."""
    import pyarrow as pa

    return cast(bytes, pa.Codec("zstd", compression_level=_LEVEL).compress(text, asbytes=True))


def _decompress(blob: bytes, size: int) -> bytes:
    import pyarrow as pa

    return cast(bytes, pa.Codec("zstd").decompress(blob, decompressed_size=size, asbytes=True))


class Compressing(threading.Thread):
    """A file's text compressed in a thread of its own while the caller parses the file
    (pyarrow's codec leaves the GIL: a 240 MB page's 0.45 s of zstd beside Polars' read of it).
    The thread maps the file itself; a caller that does not want the result joins it all the same."""

    def __init__(self, path: str) -> None:
        super().__init__(name="warpscope-compress", daemon=True)
        self.path = path
        self._out: tuple[bytes, int] | None = None
        self._error: BaseException | None = None
        self.start()

    def run(self) -> None:
        try:
            with open(self.path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as text:
                self._out = (compress(text), len(text))
        except BaseException as e:  # raised where the result is asked for
            self._error = e

    def result(self) -> tuple[bytes, int]:
        """The compressed text and the text's size in bytes."""
        self.join()
        if self._error is not None:
            raise self._error
        assert self._out is not None
        return self._out


def page_row(
    text: bytes | memoryview | mmap.mmap | Compressing,
    *,
    first_launch_id: int,
    launches: int,
    units_row: bool,
    columns: list[str],
) -> pl.DataFrame:
    """One ``raw_pages`` row for a page whose file text is ``text`` (or is being compressed)."""
    blob, size = text.result() if isinstance(text, Compressing) else (compress(text), len(text))
    return pl.DataFrame(
        {
            "first_launch_id": [first_launch_id],
            "launches": [launches],
            "units_row": [units_row],
            "columns": [columns],
            "size": [size],
            "text": [blob],
        },
        schema=schema.RAW_PAGES,
    )


def names(pages: pl.DataFrame) -> set[str]:
    """Every column name the pages hold."""
    return {c for cols in pages["columns"].to_list() for c in cols or ()}


def cells(pages: pl.DataFrame, columns: list[str] | None = None) -> list[pl.LazyFrame]:
    """One lazy frame per page: ``launch_id`` and its ``columns`` that the page has (all, when
    None), as text. Nothing is decompressed or parsed until a frame is collected."""
    return [_page_cells(page, columns) for page in pages.iter_rows(named=True)]


def _page_cells(page: dict[str, Any], columns: list[str] | None) -> pl.LazyFrame:
    has = page["columns"]
    wanted = has if columns is None else [c for c in dict.fromkeys(columns) if c in set(has)]
    first, count = page["first_launch_id"], page["launches"]
    ids = pl.int_range(first, first + count, dtype=pl.Int64).alias("launch_id")
    if not wanted:
        return pl.LazyFrame().select(ids)

    def parse() -> pl.DataFrame:
        text = _decompress(page["text"], page["size"])
        try:
            # a name Polars reads differently (a quote in a damaged header): its error for a
            # missing column took 35 s to build on a 0.5 MB page, so the header is checked first
            header = set(pl.read_csv(text, n_rows=0, infer_schema=False).columns)
            if not header.issuperset(wanted):
                raise pl.exceptions.ColumnNotFoundError
            frame = pl.read_csv(
                text,
                has_header=True,
                infer_schema=False,
                columns=wanted,
                skip_rows_after_header=1 if page["units_row"] else 0,
                truncate_ragged_lines=True,
            ).select(*wanted)
        except pl.exceptions.PolarsError:  # damage Polars tolerated when importing the page
            frame = _tolerant(text, wanted, page["units_row"])
        if frame.height != count:
            frame = _tolerant(text, wanted, page["units_row"])
        return frame.head(count).select(ids, *wanted)

    return pl.defer(parse, schema={"launch_id": pl.Int64, **dict.fromkeys(wanted, pl.String)})


def _tolerant(text: bytes, wanted: list[str], units_row: bool) -> pl.DataFrame:
    """The ``wanted`` columns as Python's csv module reads a damaged page (whatever Polars
    refused): a column its header lacks, or a cell a short row lacks, is null."""
    import csv
    import io

    rows = csv.reader(io.StringIO(text.decode("utf-8", errors="replace"), newline=""))
    header = next(rows, [])
    where = {name: i for i, name in reversed(list(enumerate(header)))}
    if units_row:
        next(rows, None)
    cells: dict[str, list[str | None]] = {name: [] for name in wanted}
    for row in rows:
        for name in wanted:
            i = where.get(name)
            cells[name].append(row[i] if i is not None and i < len(row) else None)
    return pl.DataFrame(cells, schema=dict.fromkeys(wanted, pl.String))
