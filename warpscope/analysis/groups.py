"""Launches the rules cannot tell apart: the same kernel, configuration, duration, canonical
metrics, stall reasons and Nsight Compute rule results. A long profile repeats a step, so its
100,000 launches are a few hundred such groups; the rules run once per group (on its first
launch, the representative) and their findings are copied to the other members.

Exact, not "within noise": a member's findings are the ones the rules would give it. The key
leaves out only what no launch rule reads (the launch's start time, its ids).
"""

from __future__ import annotations

import polars as pl

from warpscope.model import schema
from warpscope.model.profile import Profile

#: launch columns the rules read (through LaunchView): equal in a group
_LAUNCH_KEY = (
    "source_file",  # reports group kernels per file and device
    "device",
    "kernel",
    "kernel_short",
    "source_format",
    "device_name",
    "compute_capability",
    "grid_x",
    "grid_y",
    "grid_z",
    "block_x",
    "block_y",
    "block_z",
    "registers_per_thread",
    "static_shared_bytes",
    "dynamic_shared_bytes",
    "sm_count",
    "duration_ns",
)
#: canonical metrics that identify a launch rather than describe it (run-scope rules read them)
_NOT_KEY = ("start_ns",)


def launch_groups(profile: Profile) -> pl.DataFrame:
    """``launch_id`` and ``rep`` (the first launch of its group), one row per launch."""
    launches = profile.launches.select("launch_id", *_LAUNCH_KEY)
    # a launch whose own row (kernel, configuration, duration) no other launch shares is a group
    # of one: only the others' values are compared (a real profile's durations all differ)
    shared = launches.filter(pl.len().over(_LAUNCH_KEY) > 1)
    alone = launches.filter(~pl.col("launch_id").is_in(shared["launch_id"].implode())).select(
        "launch_id", pl.col("launch_id").alias("rep")
    )
    if shared.is_empty():
        return alone.sort("launch_id")
    grouped = _compared(profile, shared)
    return pl.concat([alone, grouped]).sort("launch_id")


def _compared(profile: Profile, launches: pl.DataFrame) -> pl.DataFrame:
    """``launch_groups`` of ``launches`` (their launch rows), their values compared."""
    ids = launches["launch_id"].implode()
    metrics = (
        profile.metrics.filter(pl.col("launch_id").is_in(ids))
        .filter(pl.col("metric").is_not_null() & ~pl.col("metric").is_in(_NOT_KEY) & schema.single_value())
        # a name's category code stands for it (one mapping for the process): no text per value
        .select("launch_id", pl.col("metric").to_physical(), "value")
        .sort("launch_id", "metric", "value", nulls_last=True)
        .group_by("launch_id", maintain_order=True)
        .agg(pl.struct("metric", "value").alias("_metrics"))
    )
    stalls = (
        profile.stalls.filter(pl.col("launch_id").is_in(ids))
        .select("launch_id", "reason", "cycles_per_issue")
        .sort("launch_id", "reason", "cycles_per_issue", nulls_last=True)
        .group_by("launch_id", maintain_order=True)
        .agg(pl.struct("reason", "cycles_per_issue").alias("_stalls"))
    )
    rules = (
        profile.findings.filter(pl.col("origin") != "warpscope")
        .filter(pl.col("launch_id").is_in(ids))
        .select("launch_id", "rule_id", "category", "severity", "estimated_speedup_pct", "message", "section")
        .with_row_index("_order")
        .group_by("launch_id", maintain_order=True)
        .agg(pl.struct(pl.exclude("launch_id", "_order")).sort_by("_order").alias("_rules"))
    )
    keyed = (
        launches.join(metrics, on="launch_id", how="left")
        .join(stalls, on="launch_id", how="left")
        .join(rules, on="launch_id", how="left")
    )
    key = [c for c in keyed.columns if c != "launch_id"]
    return keyed.select(
        "launch_id", pl.col("launch_id").min().over(key, mapping_strategy="group_to_rows").alias("rep")
    )


def representatives(groups: pl.DataFrame) -> dict[int, int]:
    """rep -> how many launches it stands for."""
    return dict(groups.group_by("rep").len().iter_rows())
