"""Nsight Compute's ``--page source --csv``: per-instruction (SASS) or per-line (CUDA)
counters, one listing per kernel.

Two layouts exist: SASS only (``"Kernel Name","..."`` then ``"Address","Source",...``)
and CUDA with SASS (``"File Path"``, ``"Function Name"``, then ``"Line No","Source",
"Address","Source",...``). A listing carries no launch ID, so each distinct listing
becomes one launch (a kernel profiled twice has two); ncu 2025.3 prints each listing twice
when importing a report, and an exact repeat is read once. Opened beside another page of the
report, the listings move onto its launches (``importers.pages.attach_source_pages``). The files are small (one row per instruction), so
Python's csv module reads them; Polars buys nothing here.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass, field

import polars as pl

from warpscope.errors import InputError
from warpscope.importers.ncu.values import parse_number
from warpscope.model import schema
from warpscope.model.kernels import short_name
from warpscope.model.profile import Profile

MARKERS = (b'"Kernel Name",', b'"File Path",')


@dataclass
class _Listing:
    kernel: str
    file: str | None
    header: list[str]
    rows: list[tuple[int, list[str]]] = field(default_factory=list)  # (file line, fields)


def looks_like_source(data: bytes) -> bool:
    first = next((l for l in data[:4096].split(b"\n") if l.strip() and not l.startswith(b"==")), b"")
    return first.startswith(MARKERS)


def import_source(path: str, text: str) -> Profile:
    listings, rejected, rows_in = _listings(path, text)
    kernels: list[str] = []  # one per distinct listing
    seen: set[tuple[str, tuple[str, ...], tuple[tuple[str, ...], ...]]] = set()
    parts: list[pl.DataFrame] = []
    for listing in listings:
        fingerprint = (listing.kernel, tuple(listing.header), tuple(tuple(r) for _, r in listing.rows))
        if fingerprint in seen:
            continue
        seen.add(fingerprint)
        parts.append(_rows(len(kernels), listing))
        kernels.append(listing.kernel)
    source = pl.concat(parts, how="vertical") if parts else schema.empty("source")
    launches = pl.DataFrame(
        {
            "launch_id": list(range(len(kernels))),
            "kernel": kernels,
            "kernel_short": [short_name(k) for k in kernels],
        }
    ).with_columns(
        pl.lit(path).alias("source_file"),
        pl.lit("ncu-source").alias("source_format"),
        pl.lit(1).alias("invocations"),
    )
    sources = pl.DataFrame(
        [
            {
                "path": path,
                "format": "ncu-source",
                "launches": len(kernels),
                "rows_in": rows_in,
                "rows_imported": rows_in - len(rejected),
                "rows_rejected": len(rejected),
                "lines_set_aside": 0,
                "messages": [],
                "notes": [],
            }
        ],
        schema=schema.SOURCES,
    )
    return Profile(
        launches=schema.conform("launches", launches),
        source=source,
        sources=sources,
        rejected=pl.DataFrame(
            {
                "path": [path] * len(rejected),
                "line": [l for l, _ in rejected],
                "reason": [w for _, w in rejected],
            },
            schema=schema.REJECTED,
        ),
    )


def _listings(path: str, text: str) -> tuple[list[_Listing], list[tuple[int, str]], int]:
    listings: list[_Listing] = []
    rejected: list[tuple[int, str]] = []
    rows_in = 0
    current: _Listing | None = None
    pending_file: str | None = None
    pending_kernel: str | None = None
    reader = csv.reader(io.StringIO(text, newline=""))
    for fields in _checked(path, reader):
        line = reader.line_num
        if not fields or not any(f.strip() for f in fields):
            continue
        head = fields[0]
        if head.startswith("=="):
            continue
        if head == "File Path" and len(fields) >= 2:
            pending_file = fields[1]
        elif head in ("Kernel Name", "Function Name") and len(fields) >= 2:
            pending_kernel = fields[1]
        elif head in ("Address", "Line No") and pending_kernel is not None:
            current = _Listing(pending_kernel, pending_file, fields)
            listings.append(current)
            pending_kernel = None
        elif current is not None:
            rows_in += 1
            if len(fields) < len(current.header):
                rejected.append((line, f"{len(fields)} fields, expected {len(current.header)}"))
            else:
                current.rows.append((line, fields))
        else:
            rows_in += 1
            rejected.append((line, 'row before any listing header ("Kernel Name" / "Address",...)'))
    return listings, rejected, rows_in


def _checked(path: str, reader: Iterator[list[str]]) -> Iterator[list[str]]:
    """The reader's rows; a row the csv module cannot read is an InputError at its line."""
    while True:
        try:
            yield next(reader)
        except StopIteration:
            return
        except csv.Error as e:
            raise InputError(
                path,
                f"malformed CSV row ({e}); expected a Nsight Compute source page",
                line=getattr(reader, "line_num", None),
            ) from None


def _rows(launch_id: int, listing: _Listing) -> pl.DataFrame:
    header = listing.header
    cuda = header[0] == "Line No"
    first_counter = 4 if cuda else 2
    records: dict[str, list[object]] = {k: [] for k in ("row", "line", "address", "code", "counter", "text")}
    for row_no, (_, fields) in enumerate(listing.rows):
        if cuda:
            line_no = (
                int(fields[0])
                if fields[0].isascii() and fields[0].isdigit() and len(fields[0]) < 16
                else None
            )
            address = fields[2] if fields[2] not in ("", "-") else None
            code = fields[1] if line_no is not None else fields[3]
        else:
            line_no, address, code = None, fields[0] or None, fields[1]
        for counter, value in zip(header[first_counter:], fields[first_counter:]):
            records["row"].append(row_no)
            records["line"].append(line_no)
            records["address"].append(address)
            records["code"].append(code)
            records["counter"].append(counter)
            records["text"].append(value)
    frame = pl.DataFrame(
        records,
        schema={
            "row": pl.Int64,
            "line": pl.Int64,
            "address": pl.String,
            "code": pl.String,
            "counter": pl.String,
            "text": pl.String,
        },
    )
    frame = frame.with_columns(
        pl.lit(launch_id, dtype=pl.Int64).alias("launch_id"),
        pl.lit(listing.file, dtype=pl.String).alias("file"),
        parse_number(pl.col("text")).alias("value"),
    )
    return schema.conform("source", frame)
