"""Per-launch summaries of a Profile: the one view JSON and markdown reports share."""

from __future__ import annotations

import math
from typing import Any

import polars as pl

from warpscope.model.catalog import CATALOG
from warpscope.model.profile import Profile
from warpscope.occupancy import occupancy_limiter

_ORDER = {m.id: i for i, m in enumerate(CATALOG)}


def canonical_values(profile: Profile) -> dict[int, dict[str, float]]:
    """launch_id -> {canonical id: value}, catalog order, single values (or averages) only."""
    rows = (profile.metrics
            .filter(pl.col("metric").is_not_null() & pl.col("value").is_not_null()
                    & (pl.col("stat").is_null() | (pl.col("stat") == "avg")))
            .select("launch_id", pl.col("metric").cast(pl.String), "value"))
    out: dict[int, dict[str, float]] = {}
    for launch_id, metric, value in rows.iter_rows():
        if math.isfinite(value):
            out.setdefault(launch_id, {}).setdefault(metric, value)
    return {k: dict(sorted(v.items(), key=lambda kv: _ORDER.get(kv[0], 1 << 30))) for k, v in out.items()}


def stall_values(profile: Profile) -> dict[int, dict[str, float]]:
    out: dict[int, dict[str, float]] = {}
    for launch_id, reason, value in profile.stalls.select(
            "launch_id", "reason", "cycles_per_issue").iter_rows():
        if value is not None and math.isfinite(value):
            out.setdefault(launch_id, {})[reason] = value
    return out


def findings_by_launch(profile: Profile) -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = {}
    for row in profile.findings.iter_rows(named=True):
        launch_id = row.pop("launch_id")
        row["evidence"] = [e for e in (row["evidence"] or [])]
        out.setdefault(launch_id, []).append(row)
    return out


def launch_records(profile: Profile) -> list[dict[str, Any]]:
    """Everything a report says about each launch, in launch order."""
    metrics = canonical_values(profile)
    stalls = stall_values(profile)
    findings = findings_by_launch(profile)
    records = []
    for row in profile.launches.sort("launch_id").iter_rows(named=True):
        lid = row["launch_id"]
        m = metrics.get(lid, {})
        records.append({
            "launch_id": lid,
            "source": row["source_file"],
            "kernel": row["kernel"],
            "kernel_short": row["kernel_short"],
            "device": row["device_name"] if row["device_name"] is not None else row["device"],
            "compute_capability": row["compute_capability"],
            "grid": [row["grid_x"], row["grid_y"], row["grid_z"]],
            "block": [row["block_x"], row["block_y"], row["block_z"]],
            "metrics": m,
            "stalls": stalls.get(lid, {}),
            "occupancy_limiter": occupancy_limiter(m),
            "findings": findings.get(lid, []),
        })
    return records
