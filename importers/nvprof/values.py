"""nvprof cells: numbers with per-cell or per-column units, levels, and their base units.

nvprof scales sizes by 1024 (a trace's ``195.312500 KB`` is 200,000 bytes, and its
``MB/s`` are MiB per second), unlike Nsight Compute's 1000.
"""

from __future__ import annotations

import math
import re

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
CELL = re.compile(rf"^\s*({_NUMBER})\s*([A-Za-z%/]*)\s*$")
LEVEL = re.compile(r"^\s*(Idle|Low|Mid|High|Max)\s*\((\d+)\)\s*$")

_BINARY = {"": 1.0, "K": 1024.0, "M": 1024.0**2, "G": 1024.0**3, "T": 1024.0**4}
_TIME_NS = {"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1.0}


def unit_factor(unit: str) -> tuple[float, str] | None:
    """Factor to base units and the base unit, or None for a unit nvprof does not print."""
    if unit in ("", "%"):
        return 1.0, unit
    if unit in _TIME_NS:
        return _TIME_NS[unit], "ns"
    match = re.fullmatch(r"([KMGT]?)B(/s)?", unit)
    if match:
        return _BINARY[match[1]], "byte/s" if match[2] else "byte"
    return None


UNIT_TOKENS = re.compile(r"^(?:%|s|ms|us|ns|[KMGT]?B(?:/s)?)?$")


def is_units_row(fields: list[str]) -> bool:
    """The row under a CSV header that names each column's unit (``s,ms,,,B,KB,MB/s,,``)."""
    return any(f for f in fields) and all(UNIT_TOKENS.match(f.strip()) for f in fields)


def parse(cell: str | None, column_unit: str = "") -> tuple[float | None, str]:
    """(value in base units, base unit) of one cell; (None, "") when it holds no number.

    The cell's own suffix wins over the column's unit (summaries and text output print
    per-cell units; CSV traces put them in the units row). Levels (``"Low (1)"``) give
    their number on the 0-10 scale.
    """
    if cell is None:
        return None, ""
    text = cell.strip()
    level = LEVEL.match(text)
    if level:
        return float(level[2]), "level"
    match = CELL.match(text)
    if not match:
        return None, ""
    unit = match[2] or column_unit
    scale = unit_factor(unit)
    if scale is None:
        return None, ""
    return float(match[1]) * scale[0], scale[1]


def unit_of(cell: str) -> str:
    """The unit a cell prints after its number (``"2.0000KB"`` -> ``"KB"``), or ""."""
    match = CELL.match(cell)
    return match[2] if match else ""


def count(text: str) -> int | None:
    """A call or invocation count: ASCII digits that fit an Int64 column, else None."""
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else None


def whole(value: float | None) -> int | None:
    """A grid/block dimension, register or byte count: a whole number that fits, or absent."""
    if value is None or not math.isfinite(value) or value < 0 or value >= 2**53 or value != int(value):
        return None
    return int(value)
