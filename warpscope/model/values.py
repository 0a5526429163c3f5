"""A Profile's numbers per launch as plain dicts: what rules and reports read."""

from __future__ import annotations

import weakref

import polars as pl

from warpscope.model import schema
from warpscope.model.catalog import CATALOG
from warpscope.model.profile import Profile

_ORDER = {m.id: i for i, m in enumerate(CATALOG)}


def canonical_values(profile: Profile, ordered: bool = True) -> dict[int, dict[str, float]]:
    """launch_id -> {canonical id: value}, single values (or averages) only; in catalog order
    unless ``ordered`` is False (rules look values up and need no order)."""
    # one list of names and values per launch (the first of repeated values kept), made into a
    # dict by zip: a Python loop over every value took most of a long profile's views
    return {
        launch_id: dict(zip(metrics, values, strict=True))
        for launch_id, metrics, values in canonical_lists(profile, ordered).iter_rows()
    }


#: ``stated_values`` of the metrics tables still alive (a report reads them for its rules, its
#: views and its means): id -> (the table, weakly; its values). Keyed by id because a frame is not
#: hashable; the weak reference tells a live table from a new one at a reused address.
_STATED: dict[int, tuple[weakref.ref[pl.DataFrame], pl.DataFrame]] = {}


def stated_values(profile: Profile) -> pl.LazyFrame:
    """Every launch's canonical values as rows (launch_id, metric, value; the metric
    categorical): single values (or averages) only, finite, the first of repeated ones.
    Worked out once per metrics table."""
    metrics = profile.metrics
    kept = _STATED.get(id(metrics))
    if kept is None or kept[0]() is not metrics:
        key = id(metrics)
        kept = (weakref.ref(metrics, lambda _: _STATED.pop(key, None)), _stated(metrics))
        _STATED[key] = kept
    return kept[1].lazy()


def _stated(metrics: pl.DataFrame) -> pl.DataFrame:
    return (
        metrics.lazy()
        .filter(pl.col("metric").is_not_null() & pl.col("value").is_finite() & schema.single_value())
        .select("launch_id", "metric", "value")
        # repeated values keyed by one integer (the name's category code), not the name as text
        .filter(
            (
                pl.col("launch_id") * (1 << 32) + pl.col("metric").to_physical().cast(pl.Int64)
            ).is_first_distinct()
        )
        .collect()
    )


def canonical_lists(profile: Profile, ordered: bool = True) -> pl.DataFrame:
    """``canonical_values`` as a table: launch_id, its metrics and their values (lists)."""
    rows = stated_values(profile)
    if ordered:  # sorting here (stable) beats a sort per launch
        order = pl.col("metric").cast(pl.String).replace_strict(_ORDER, default=len(_ORDER))
        rows = rows.sort(order, maintain_order=True)
    return (
        rows.group_by("launch_id", maintain_order=True)
        .agg(pl.col("metric").cast(pl.String), "value")
        .collect()
    )


def stall_values(profile: Profile) -> dict[int, dict[str, float]]:
    """launch_id -> {stall reason: warp cycles per issued instruction}."""
    return {
        launch_id: dict(zip(reasons, values, strict=True))
        for launch_id, reasons, values in stall_lists(profile).iter_rows()
    }


def stall_lists(profile: Profile) -> pl.DataFrame:
    """``stall_values`` as a table: launch_id, its reasons and their cycles (lists)."""
    return (
        profile.stalls.filter(pl.col("cycles_per_issue").is_finite())
        .group_by("launch_id", maintain_order=True)
        .agg(pl.col("reason").cast(pl.String), "cycles_per_issue")
    )
