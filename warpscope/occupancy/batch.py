"""Batch mode: a CSV of launch configurations in, one occupancy record per row out."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl

from warpscope.errors import InputError
from warpscope.occupancy.arch import UnknownArch
from warpscope.occupancy.calculator import OccupancyError, evaluate

REQUIRED = ("arch", "block_size", "registers_per_thread")
OPTIONAL = {"static_smem": 0, "dynamic_smem": 0, "carveout": None, "barriers": 1}
INTEGER_COLUMNS = (
    "block_size",
    "registers_per_thread",
    "static_smem",
    "dynamic_smem",
    "carveout",
    "barriers",
)


def read_configs(path: Path) -> pl.DataFrame:
    """The configurations, integers checked; a bad cell is one error naming its line."""
    try:
        frame = pl.read_csv(path, infer_schema=False, raise_if_empty=False)
    except (OSError, pl.exceptions.PolarsError) as e:
        raise InputError(str(path), f"unreadable CSV ({str(e).splitlines()[0]})") from None
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise InputError(
            str(path),
            f"missing column(s) {', '.join(missing)}; expected {','.join(REQUIRED + tuple(OPTIONAL))}",
            line=1,
        )
    frame = frame.with_columns(pl.col(pl.String).str.strip_chars())
    for col in INTEGER_COLUMNS:
        if col not in frame.columns:
            continue
        cast = frame[col].cast(pl.Int64, strict=False)
        bad = frame[col].is_not_null() & (frame[col] != "") & cast.is_null()
        if bad.any():
            row = int(bad.arg_true()[0])
            raise InputError(str(path), f'{col} "{frame[col][row]}" is not an integer', line=row + 2)
        frame = frame.with_columns(cast.alias(col))
    return frame


def records(frame: pl.DataFrame) -> Iterator[dict[str, object]]:
    """One dict per configuration: the calculator's result, or the reason it cannot run."""
    cols = [c for c in (*REQUIRED, *OPTIONAL) if c in frame.columns]
    for line, row in enumerate(frame.select(cols).iter_rows(named=True), start=2):
        args: dict[str, Any] = {k: (v if v is not None else OPTIONAL.get(k)) for k, v in row.items()}
        for k, default in OPTIONAL.items():
            args.setdefault(k, default)
        if any(args[k] is None for k in REQUIRED):
            yield {"line": line, **row, "error": "arch, block_size and registers_per_thread are required"}
            continue
        try:
            yield {"line": line, **evaluate(**args).to_dict()}
        except (OccupancyError, UnknownArch) as e:
            yield {"line": line, **row, "error": str(e)}


def json_lines(frame: pl.DataFrame) -> Iterator[str]:
    for record in records(frame):
        yield json.dumps(record, ensure_ascii=True)
