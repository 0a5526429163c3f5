"""Mapping ncu metric names and labels onto the canonical catalog, as join tables."""

from __future__ import annotations

import re
from functools import lru_cache

import polars as pl

from warpscope.model.catalog import CATALOG

STALL_RAW = re.compile(r"^smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio$")
STALL_SECTION = "Warp State Statistics"
STALL_TABLE = "Warp State (All Cycles)"


@lru_cache(maxsize=1)
def by_name() -> pl.DataFrame:
    """Internal metric name -> canonical id, factor, priority (first alias wins)."""
    rows = []
    for m in CATALOG:
        for prio, alias in enumerate(m.ncu):
            rows.append((alias.name, m.id, alias.factor, prio))
    return pl.DataFrame(rows, schema={"name": pl.String, "metric": pl.String,
                                      "factor": pl.Float64, "prio": pl.Int64}, orient="row")


@lru_cache(maxsize=1)
def by_label() -> pl.DataFrame:
    """(section, label) of the details page -> canonical id, factor, priority."""
    rows = []
    for m in CATALOG:
        for prio, alias in enumerate(m.labels):
            rows.append((alias.section, alias.name, m.id, alias.factor, 100 + prio))
    return pl.DataFrame(rows, schema={"section": pl.String, "name": pl.String, "metric": pl.String,
                                      "factor": pl.Float64, "prio": pl.Int64}, orient="row")


def stall_reason_from_label(label: str) -> str:
    """'Stall Long Scoreboard' -> 'long_scoreboard'; 'Selected' -> 'selected'."""
    text = label.removeprefix("Stall ").strip()
    return re.sub(r"[^0-9a-z]+", "_", text.lower()).strip("_")
