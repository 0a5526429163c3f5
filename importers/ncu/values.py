"""Numbers and units as Nsight Compute prints them, as Polars expressions and frames."""

from __future__ import annotations

import polars as pl


# A number, grouped with thousands separators only in the strict 1,234,567 form (a
# European "27.595.520" or "65,77" is left as text), optionally followed by the
# per-instance list that --print-metric-instances adds: "458,752 (131,072; ...)".
NUMBER = (r"^\s*([-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|[-+]?\.\d+)"
          r"(?:\s*\(.*\))?\s*$")


def parse_number(text: pl.Expr) -> pl.Expr:
    """Float value of ncu's printed number, null for n/a, text values and nan."""
    num = text.str.extract(NUMBER, 1).str.replace_all(",", "", literal=True)
    value = num.cast(pl.Float64, strict=False)
    return pl.when(value.is_nan()).then(None).otherwise(value)


def parse_numbers(text: pl.Series) -> pl.Series:
    """``parse_number`` for a whole column, fast: a plain cast first, the regex only for
    the cells it rejects (grouped digits, instance lists, padding)."""
    fast = text.cast(pl.Float64, strict=False)
    slow = fast.is_null() & text.is_not_null() & text.str.contains(r"\d")
    if slow.any():
        idx = slow.arg_true()
        parsed = pl.select(parse_number(pl.lit(text.gather(idx)))).to_series()
        fast = fast.scatter(idx, parsed)
    return fast.fill_nan(None)


def parse_dims(col: str, prefix: str) -> list[pl.Expr]:
    """'(32, 4, 1)' in ``col`` -> Int64 columns <prefix>_x, _y, _z (null when absent)."""
    parts = pl.col(col).str.extract_groups(r"^\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)$")
    return [parts.struct.field(str(i + 1)).cast(pl.Int64, strict=False).alias(f"{prefix}_{axis}")
            for i, axis in enumerate("xyz")]
