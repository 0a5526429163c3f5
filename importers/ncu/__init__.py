"""Nsight Compute importer: every CSV page and the plain-text output, detected from content."""

from __future__ import annotations

import csv
import io
from typing import TYPE_CHECKING

import polars as pl

from warpscope.errors import InputError
from warpscope.importers.ncu import framing, text_page
from warpscope.importers.ncu.framing import DETAILS_HEADER, SUMMARY_HEADER, CsvBlock
from warpscope.importers.ncu.long_page import (
    CATEGORICAL_COLUMNS,
    IDENTITY_REQUIRED,
    PageResult,
    import_long,
    required_columns,
)
from warpscope.importers.ncu.raw_page import import_raw
from warpscope.model import schema
from warpscope.model.profile import Profile

if TYPE_CHECKING:
    from warpscope.importers.ncu.first_rows import PendingIdentity


def looks_like_csv(data: bytes) -> bool:
    return bool(framing.header_offsets(data, DETAILS_HEADER) or framing.header_offsets(data, SUMMARY_HEADER))


def import_csv(path: str, data: bytes) -> Profile:
    """Every ``--csv`` page with launch rows: details, raw, summary (and stdout captures of them)."""
    details = framing.header_offsets(data, DETAILS_HEADER)
    summary = framing.header_offsets(data, SUMMARY_HEADER) if not details else []
    frames = framing.split(data, details or summary)
    results: list[tuple[PageResult, CsvBlock, str]] = []
    offset = 0
    for block in frames.blocks:
        if block.truncated_last:
            raise InputError(
                path,
                "the file ends inside a row (truncated copy?); expected complete quoted Nsight Compute rows",
                line=block.truncated_line,
            )
        frame = _read_block(path, block)
        fmt, result = import_block(path, block, frame, bool(summary), offset)
        results.append((result, block, fmt))
        if result.launches.height:
            offset = int(result.launches["launch_id"].max()) + 1  # type: ignore[arg-type]
    return assemble_profile(path, results, frames)


def import_block(
    path: str,
    block: CsvBlock,
    frame: pl.DataFrame,
    summary: bool,
    offset: int,
    identity: PendingIdentity | None = None,
) -> tuple[str, PageResult]:
    """One page's tables. ``identity``: a details page's per-launch columns, one row per
    launch, where ``frame`` lacks them (``first_rows.py``)."""
    cols = set(frame.columns) | (set(identity.columns) if identity is not None else set())
    if summary:
        _require(path, block, cols, required_columns(summary=True))
        return "ncu-summary", import_long(frame, summary=True, fmt="ncu-summary", launch_offset=offset)
    if "Metric Name" in cols or "Metric Value" in cols:
        _require(path, block, cols, required_columns(summary=False))
        return "ncu-details", import_long(
            frame, summary=False, fmt="ncu-details", launch_offset=offset, identity=identity
        )
    _require(path, block, cols, ["ID", *IDENTITY_REQUIRED])
    return "ncu-raw", import_raw(frame, fmt="ncu-raw", launch_offset=offset)


def _require(path: str, block: CsvBlock, have: set[str], need: list[str]) -> None:
    missing = [c for c in need if c not in have]
    if missing:
        raise InputError(
            path,
            "Nsight Compute header lacks column(s) " + ", ".join(f'"{c}"' for c in missing),
            line=block.header_line,
        )


#: more columns than any Nsight Compute page has (--page raw --metrics regex:.* on a 2025 GPU:
#: about 8,000): a header past this is damage (a field full of commas), not a profile
MAX_COLUMNS = 65_536


def _read_block(path: str, block: CsvBlock) -> pl.DataFrame:
    header = block.body.split(b"\n", 1)[0]
    if header.count(b",") >= MAX_COLUMNS:
        raise InputError(
            path,
            f"header of {header.count(b',') + 1:,} columns; an Nsight Compute page has "
            f"at most a few thousand",
            line=block.header_line,
        )
    try:
        frame = pl.read_csv(
            block.body,
            has_header=True,
            infer_schema=False,
            schema_overrides=CATEGORICAL_COLUMNS,
            truncate_ragged_lines=True,
            raise_if_empty=False,
        )
    except pl.exceptions.PolarsError as e:
        raise _locate_csv_error(path, block, e) from None
    return frame.with_row_index("_row").with_columns(pl.col("_row").cast(pl.Int64))


def _locate_csv_error(path: str, block: CsvBlock, error: Exception) -> InputError:
    """Polars says what broke, not where: find the first line Python's csv cannot read."""
    try:
        text = block.body.decode("utf-8")
    except UnicodeDecodeError as e:
        line_in_block = block.body.count(b"\n", 0, e.start)
        line = block.header_line if line_in_block == 0 else block.line_of_row(line_in_block - 1)
        return InputError(
            path,
            f"not UTF-8 text (byte 0x{block.body[e.start]:02x}); expected a UTF-8 Nsight Compute export",
            line=line,
        )
    try:
        header = next(csv.reader(io.StringIO(text.split("\n", 1)[0], newline="")), [])
    except csv.Error as e:
        return InputError(
            path, f"malformed CSV header ({e}); expected quoted Nsight Compute fields", line=block.header_line
        )
    if len(set(header)) != len(header):
        dup = next(h for h in header if header.count(h) > 1)
        return InputError(path, f'Nsight Compute header repeats column "{dup}"', line=block.header_line)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        for _ in reader:
            pass
    except csv.Error as e:
        row = reader.line_num - 2
        line = block.header_line if row < 0 else block.line_of_row(row)
        return InputError(path, f"malformed CSV row ({e}); expected quoted Nsight Compute fields", line=line)
    return InputError(path, f"unreadable CSV table ({str(error).splitlines()[0]})", line=block.header_line)


def assemble_profile(
    path: str, results: list[tuple[PageResult, CsvBlock, str]], frames: framing.Framing
) -> Profile:
    launches, metrics, stalls, findings, rejected = [], [], [], [], []
    raw_metrics, raw_units, raw_pages = [], [], []
    rows_in = rows_rejected = 0
    set_aside = frames.other_lines
    formats = []
    for result, block, fmt in results:
        formats.append(fmt)
        lines = [(block.line_of_row(r), why) for r, why in result.rejected]
        rows_in += result.rows_in
        rows_rejected += len(lines)
        set_aside += result.set_aside
        rejected += lines
        launches.append(result.launches)
        metrics.append(result.metrics)
        stalls.append(result.stalls)
        findings.append(result.findings)
        if result.raw_metrics is not None:
            raw_metrics.append(result.raw_metrics)
        if result.raw_pages is not None:
            raw_pages.append(result.raw_pages)
        if result.raw_units is not None:
            raw_units.append(result.raw_units.with_columns(pl.lit(path).alias("source_file")))
    launches_df = pl.concat(launches, how="vertical").with_columns(pl.lit(path).alias("source_file"))
    fmt = formats[0] if len(set(formats)) == 1 else "+".join(sorted(set(formats)))
    sources = pl.DataFrame(
        [
            {
                "path": path,
                "format": fmt,
                "launches": launches_df.height,
                "rows_in": rows_in,
                "rows_imported": rows_in - rows_rejected,
                "rows_rejected": rows_rejected,
                "lines_set_aside": set_aside,
                "messages": frames.messages,
                "notes": [],
            }
        ],
        schema=schema.SOURCES,
    )
    rejected_df = pl.DataFrame(
        {
            "path": [path] * len(rejected),
            "line": [l for l, _ in rejected],
            "reason": [w for _, w in rejected],
        },
        schema=schema.REJECTED,
    )
    return Profile(
        launches=schema.conform("launches", launches_df),
        metrics=pl.concat(metrics, how="vertical"),
        stalls=pl.concat(stalls, how="vertical"),
        findings=pl.concat(findings, how="vertical"),
        sources=sources,
        rejected=rejected_df,
        raw_metrics=(
            pl.concat(raw_metrics, how="diagonal") if raw_metrics else schema.empty("raw_metrics")
        ).lazy(),
        raw_units=(
            schema.conform("raw_units", pl.concat(raw_units).unique(maintain_order=True))
            if raw_units
            else schema.empty("raw_units")
        ),
        raw_pages=pl.concat(raw_pages) if raw_pages else schema.empty("raw_pages"),
    )


def import_text(path: str, text: str) -> Profile:
    """The plain-text details output (no ``--csv``)."""
    result, messages, other, lines = text_page.import_text(text)
    if result.rows_in == 0:
        raise InputError(
            path,
            "no launch found in the Nsight Compute text output (expected a "
            '"  kernel (grid)x(block), Context N, Stream N" line)',
            line=1,
        )
    block = CsvBlock(b"", 0, lines)
    return assemble_profile(
        path, [(result, block, "ncu-text")], framing.Framing(messages=messages, other_lines=other)
    )
