"""A Profile's numbers per launch as plain dicts: what rules and reports read."""

from __future__ import annotations

import math

import polars as pl

from warpscope.model import schema
from warpscope.model.catalog import CATALOG
from warpscope.model.profile import Profile

_ORDER = {m.id: i for i, m in enumerate(CATALOG)}


def canonical_values(profile: Profile, ordered: bool = True) -> dict[int, dict[str, float]]:
    """launch_id -> {canonical id: value}, single values (or averages) only; in catalog order
    unless ``ordered`` is False (rules look values up and need no order)."""
    rows = profile.metrics.filter(
        pl.col("metric").is_not_null() & pl.col("value").is_not_null() & schema.single_value()
    ).select("launch_id", pl.col("metric").cast(pl.String), "value")
    if ordered:  # sorting here (stable: the first of repeated values wins) beats a sort per launch
        rows = rows.sort(pl.col("metric").replace_strict(_ORDER, default=len(_ORDER)), maintain_order=True)
    out: dict[int, dict[str, float]] = {}
    for launch_id, metric, value in rows.iter_rows():
        if math.isfinite(value):
            out.setdefault(launch_id, {}).setdefault(metric, value)
    return out


def stall_values(profile: Profile) -> dict[int, dict[str, float]]:
    """launch_id -> {stall reason: warp cycles per issued instruction}."""
    out: dict[int, dict[str, float]] = {}
    for launch_id, reason, value in profile.stalls.select(
        "launch_id", "reason", "cycles_per_issue"
    ).iter_rows():
        if value is not None and math.isfinite(value):
            out.setdefault(launch_id, {})[reason] = value
    return out
