"""Fix first: one entry per (kernel, rule) over all the kernel's launches, ranked by the time
its fix would save across the whole profile."""

from __future__ import annotations

from typing import Any

import polars as pl

from warpscope.analysis.finding import CONFIDENCES, SEVERITIES
from warpscope.model.libraries import library_of
from warpscope.model.profile import Profile


def opportunities(profile: Profile) -> list[dict[str, Any]]:
    """Entries with ``kernel``, ``kernel_short``, ``library``, ``rule``, ``category``, ``severity``,
    ``confidence``, ``launches``, ``time_ns`` (the kernel's total time), ``est_saved_ns``,
    ``program_share_pct`` and ``fix``; largest saving first.

    An entry never saves more than its kernel takes, nor do a kernel's entries together:
    ``analyze`` splits each launch's combined gain (1 − Π(1 − gᵢ)) among its findings.
    Findings of severity ``info``, ones with no estimate, and stall reasons (symptoms: the
    finding that names their cause carries the fix) are not opportunities.
    """
    launches = profile.launches.select("launch_id", "kernel", "kernel_short", "duration_ns")
    total = launches["duration_ns"].sum() or 0.0
    kernel_time = launches.group_by("kernel_short").agg(pl.col("duration_ns").sum().alias("time_ns"))
    found = (
        profile.findings.filter(
            (pl.col("origin") == "warpscope")
            & (pl.col("severity") != "info")
            & (pl.col("category") != "stalls")
            & pl.col("est_saved_ns").is_not_null()
            & pl.col("launch_id").is_not_null()
        )
        .join(launches, on="launch_id")
        .with_columns(
            pl.col("severity")
            .replace_strict(SEVERITIES, list(range(len(SEVERITIES))), return_dtype=pl.Int8)
            .alias("_sev"),
            pl.col("confidence")
            .replace_strict(
                CONFIDENCES, list(range(len(CONFIDENCES))), default=len(CONFIDENCES) - 1, return_dtype=pl.Int8
            )
            .alias("_conf"),
        )
    )
    if found.is_empty():
        return []
    grouped = (
        found.group_by("kernel_short", "rule_id")
        .agg(
            pl.col("kernel").first(),
            pl.col("category").first(),
            pl.col("_sev").min(),
            pl.col("_conf").max(),
            pl.col("launch_id").n_unique().alias("launches"),
            pl.col("est_saved_ns").sum(),
            pl.col("fix").sort_by("est_saved_ns", descending=True).first(),
        )
        .join(kernel_time, on="kernel_short")
        .sort(["est_saved_ns", "kernel_short", "rule_id"], descending=[True, False, False])
    )
    return [
        {
            "kernel": r["kernel"],
            "kernel_short": r["kernel_short"],
            "library": library_of(r["kernel_short"]),
            "rule": r["rule_id"],
            "category": r["category"],
            "severity": SEVERITIES[r["_sev"]],
            "confidence": CONFIDENCES[r["_conf"]],
            "launches": r["launches"],
            "time_ns": r["time_ns"],
            "est_saved_ns": r["est_saved_ns"],
            "program_share_pct": 100.0 * r["est_saved_ns"] / total if total else None,
            "fix": r["fix"],
        }
        for r in grouped.iter_rows(named=True)
    ]
