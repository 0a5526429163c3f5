"""Large Nsight Compute CSV exports, read in chunks: memory stays bounded by the chunk and
the resulting tables, not the file.

A chunk ends at a launch boundary (details pages: the first row of the last launch the
chunk reaches; raw pages: a line end), so no launch is split; every later chunk is
imported with the page's header (and units row) put back in front of it, and its line
numbers shifted to the file's. The chunks' profiles become one, as if the file had been
read whole: ``tests/test_robustness.py`` checks that both ways give the same tables.
"""

from __future__ import annotations

import gzip
import io
import os
import re
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from typing import BinaryIO

import polars as pl

from warpscope.errors import InputError
from warpscope.importers import _input
from warpscope.importers.ncu.framing import DETAILS_HEADER, SUMMARY_HEADER, header_offsets
from warpscope.model import schema
from warpscope.model.profile import Profile

CHUNK_BYTES = 64 << 20
IN_FLIGHT = 2  # chunks being imported at once
STREAM_ABOVE = 256 << 20  # files larger than this (uncompressed, estimated) stream
_MAX_MESSAGES = 200
# a launch row starts "ID","Process ID" (embedded section tables start "0","NVIDIA ..."); match()
# anchors at the line start it is given
_ID = re.compile(rb'"(\d+)","(\d+)",')

#: (bytes read so far, bytes in the file) after each chunk
Progress = Callable[[int, int], None]


def should_stream(path: str, head: bytes) -> bool:
    """A CSV page with launch rows (details or raw) in a file over ``STREAM_ABOVE`` bytes."""
    if not header_offsets(head, DETAILS_HEADER) or header_offsets(head, SUMMARY_HEADER):
        return False
    size = os.path.getsize(path) * (4 if _is_gzip(path) else 1)  # gzip: a guess at 4x
    return size > STREAM_ABOVE


def import_stream(
    path: str, import_chunk: Callable[[str, bytes], Profile], progress: Progress | None = None
) -> Profile:
    """The file read ``CHUNK_BYTES`` at a time, each chunk through ``import_chunk``."""
    total = os.path.getsize(path)
    parts: list[Profile] = []
    # Chunks are independent (launch ids are renumbered when the parts are merged), and Polars
    # releases the GIL: chunks are imported on worker threads while this one reads and cuts
    # the next, so both cores work. At most IN_FLIGHT chunks are held at once.
    in_flight: deque[tuple[Future[Profile], int]] = deque()
    with open(path, "rb") as raw, ThreadPoolExecutor(IN_FLIGHT, thread_name_prefix="import") as pool:
        stream: BinaryIO = gzip.open(raw) if _is_gzip(path) else raw  # type: ignore[assignment]  # noqa: SIM115 (closed with raw)
        try:
            for first_line, header_lines, body in _chunks(path, stream):
                _input.check_text(path, body)
                if len(in_flight) == IN_FLIGHT:
                    parts.append(_next_part(in_flight, progress, total))
                in_flight.append(
                    (pool.submit(_shifted, path, import_chunk, body, first_line, header_lines), raw.tell())
                )
            while in_flight:
                parts.append(_next_part(in_flight, progress, total))
        except BaseException:
            for future, _ in in_flight:
                future.cancel()
            raise
    if not parts:
        raise InputError(path, "no launch rows found in the Nsight Compute CSV", line=1)
    return _merged(path, parts)


def _next_part(
    in_flight: deque[tuple[Future[Profile], int]], progress: Progress | None, total: int
) -> Profile:
    """The oldest chunk's profile (chunks finish in file order, so errors do too)."""
    future, read = in_flight.popleft()
    part = future.result()
    if progress is not None:
        progress(read, total)
    return part


def _is_gzip(path: str) -> bool:
    with open(path, "rb") as f:
        return f.read(2) == _input.GZIP_MAGIC


def _chunks(path: str, stream: BinaryIO) -> Iterator[tuple[int, int, bytes]]:
    """(file line of the chunk's first own line, header lines put in front, chunk bytes)."""
    data = stream.read(CHUNK_BYTES)
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    starts = header_offsets(data, DETAILS_HEADER)
    if not starts:
        raise InputError(
            path,
            f'no Nsight Compute header ("ID","Process ID",...) in the first {CHUNK_BYTES >> 20} MiB',
            line=1,
        )
    header = _header_at(data, starts[-1])
    line = 1  # file line of the next piece's first own line
    prefix = b""  # the header lines, in front of every chunk after the first
    pending = [data]  # read, not yet handed out (no launch boundary in it yet)
    while True:
        more = stream.read(CHUNK_BYTES)
        if more:
            # ``more`` alone, first: then the piece is one copy (header, pending, ``more`` up
            # to the boundary)
            cut = _launch_boundary(more, first=more.find(b"\n") + 1)
            if cut == 0:  # fewer than two launches start in ``more``
                more = b"".join((*pending, more))
                pending = []
                cut = _launch_boundary(more)
                if cut == 0:  # one launch longer than the chunk: read on
                    pending = [more]
                    continue
            piece = b"".join((prefix, *pending, memoryview(more)[:cut]))
            pending = [more[cut:]]
        else:
            piece = b"".join((prefix, *pending))
            pending = []
        if len(piece) > len(prefix):
            yield line, prefix.count(b"\n"), piece
            starts = [s for s in header_offsets(piece, DETAILS_HEADER) if s >= len(prefix)]
            if starts:  # a later process's header: the next chunks need it
                header = _header_at(piece, starts[-1])
            line += piece.count(b"\n", len(prefix))
            prefix = header
        if not more:
            return


def _header_at(data: bytes, start: int) -> bytes:
    """The header line at ``start``, with the raw page's units row when one follows."""
    end = data.find(b"\n", start) + 1 or len(data)
    if data.startswith(b'"",', end):  # raw page: a units row under the header
        end = data.find(b"\n", end) + 1 or len(data)
    return data[start:end]


def _launch_boundary(data: bytes, first: int = 0) -> int:
    """Where the launches of ``data`` that are certainly whole end: just after the last row of
    the launch before the last one seen (0: no boundary yet), looking at the lines that start
    at or after ``first``. Lines that are not launch rows (headers, ==PROF== lines, program
    output) after that row go with the next chunk."""
    pos = data.rfind(b"\n") + 1  # only complete lines count
    last: bytes | None = None
    while pos > first:
        start = data.rfind(b"\n", 0, pos - 1) + 1
        row = _ID.match(data, start)
        if row is not None:
            if last is None:
                last = row.group(0)
            elif row.group(0) != last:
                return pos
        pos = start
    return 0


def _shifted(
    path: str, import_chunk: Callable[[str, bytes], Profile], body: bytes, first_line: int, header_lines: int
) -> Profile:
    """``body`` imported, with its line numbers made the file's."""
    shift = first_line - 1 - header_lines
    try:
        part = import_chunk(path, body)
    except InputError as e:
        if e.line is None or e.line <= header_lines or not shift:
            raise
        raise InputError(path, e.message, line=e.line + shift) from None
    if shift:
        part = replace(part, rejected=part.rejected.with_columns(pl.col("line") + shift))
    return replace(part, raw_metrics=_packed(part.raw_metrics))


def _packed(wide: pl.LazyFrame) -> pl.LazyFrame:
    """A raw page's unmapped columns, held as LZ4 Parquet in memory and scanned lazily.

    A text column holds 16 bytes per cell however short the text, so a 64 MiB chunk of a raw
    page's two thousand columns is ~200 MB in memory: kept as read, a 2 GB raw export's chunks
    added up to 7 GB. Packed, a chunk keeps a few MB (the columns are mostly constant), for
    ~0.09 s of writing per chunk."""
    if wide.collect_schema().len() <= 1:
        return wide
    sink = io.BytesIO()
    wide.collect().write_parquet(sink, compression="lz4", statistics=False)
    return pl.scan_parquet(io.BytesIO(sink.getvalue()))


def _merged(path: str, parts: list[Profile]) -> Profile:
    profile = Profile.concat(parts)
    sources = profile.sources
    messages = [m for ms in sources["messages"].to_list() for m in ms or ()][:_MAX_MESSAGES]
    notes = list(dict.fromkeys(n for ns in sources["notes"].to_list() for n in ns or ()))
    formats = sorted(set(sources["format"].to_list()))
    row = {
        "path": path,
        "format": "+".join(formats),
        "launches": profile.launches.height,
        **{
            c: int(sources[c].sum()) for c in ("rows_in", "rows_imported", "rows_rejected", "lines_set_aside")
        },
        "messages": messages,
        "notes": notes,
    }
    return replace(profile, sources=pl.DataFrame([row], schema=schema.SOURCES))
