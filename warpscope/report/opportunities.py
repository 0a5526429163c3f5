"""Fix first: one entry per (kernel, rule) over all the kernel's launches, ranked by the time
its fix would save across the whole profile."""

from __future__ import annotations

from typing import Any

import polars as pl

from warpscope.analysis.calibration import calibration_of
from warpscope.analysis.finding import CONFIDENCES, SEVERITIES
from warpscope.analysis.program import dominant_fix, dominant_kernels
from warpscope.model.libraries import library_of
from warpscope.model.profile import Profile


def opportunities(profile: Profile) -> list[dict[str, Any]]:
    """Entries with ``kernel``, ``kernel_short``, ``source_file``, ``library``, ``rule``, ``category``, ``severity``,
    ``confidence``, ``launches``, ``time_ns`` (the kernel's total time), ``est_saved_ns``,
    ``program_share_pct``, ``fix`` and ``calibration`` (the rule's error against fixes measured on
    the H100, ``Calibration.as_dict``; None where no measured pair names it); largest saving first.

    An entry never saves more than its kernel takes, nor do a kernel's entries together:
    ``analyze`` splits each launch's combined gain (1 − Π(1 − gᵢ)) among its findings.
    Launches of different files are different programs (an H100 export and its emulation):
    their entries stay apart, each ``program_share_pct`` a share of its own file's kernel time.
    Findings of severity ``info``, ones with no estimate, and stall reasons (symptoms: the
    finding that names their cause carries the fix) are not opportunities.

    A kernel holding most of the kernel time (``program.dominant_kernels``) comes first however
    it is launched and whatever its estimates: its entries lead the list, or, where it has none
    (a library kernel, whose launch findings are only info), a ``dominant_kernel`` entry does.
    """
    launches = profile.launches.select("launch_id", "source_file", "kernel", "kernel_short", "duration_ns")
    # each file is a program of its own (an H100 export and its emulation, a baseline run):
    # its kernels' entries and shares are never pooled with another file's
    file_total = launches.group_by("source_file").agg(pl.col("duration_ns").sum().alias("_file_ns"))
    kernel_time = launches.group_by("source_file", "kernel_short").agg(
        pl.col("duration_ns").sum().alias("time_ns")
    )
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
    dominant = dominant_kernels(launches)
    lead = _dominant_entries(profile, dominant, set(found["kernel_short"].to_list()))
    if found.is_empty():
        return lead
    grouped = (
        found.group_by("source_file", "kernel_short", "rule_id")
        .agg(
            pl.col("kernel").first(),
            pl.col("category").first(),
            pl.col("_sev").min(),
            pl.col("_conf").max(),
            pl.col("launch_id").n_unique().alias("launches"),
            pl.col("est_saved_ns").sum(),
            pl.col("fix").sort_by("est_saved_ns", descending=True).first(),
        )
        .join(kernel_time, on=["source_file", "kernel_short"])
        .join(file_total, on="source_file")
        .sort(
            ["est_saved_ns", "source_file", "kernel_short", "rule_id"], descending=[True, False, False, False]
        )
    )
    entries = [
        {
            "kernel": r["kernel"],
            "kernel_short": r["kernel_short"],
            "source_file": r["source_file"],
            "library": library_of(r["kernel_short"]),
            "rule": r["rule_id"],
            "category": r["category"],
            "severity": SEVERITIES[r["_sev"]],
            "confidence": CONFIDENCES[r["_conf"]],
            "launches": r["launches"],
            "time_ns": r["time_ns"],
            "est_saved_ns": r["est_saved_ns"],
            "program_share_pct": 100.0 * r["est_saved_ns"] / r["_file_ns"] if r["_file_ns"] else None,
            "fix": r["fix"],
            "calibration": calibrated.as_dict() if (calibrated := calibration_of(r["rule_id"])) else None,
        }
        for r in grouped.iter_rows(named=True)
    ]
    first = set(dominant["kernel_short"].to_list())
    return (
        lead
        + [e for e in entries if e["kernel_short"] in first]
        + [e for e in entries if e["kernel_short"] not in first]
    )


def _dominant_entries(profile: Profile, dominant: pl.DataFrame, has_entry: set[str]) -> list[dict[str, Any]]:
    """A ``dominant_kernel`` entry for each dominant kernel with no other opportunity (none in
    ``has_entry``): the rule's fix, no estimate (it says where the time is, not what a fix saves)."""
    out = []
    for r in dominant.sort("time_ns", descending=True).iter_rows(named=True):
        if r["kernel_short"] in has_entry:
            continue
        named = profile.launches.filter(pl.col("kernel_short") == r["kernel_short"])
        out.append(
            {
                "kernel": named["kernel"][0],
                "kernel_short": r["kernel_short"],
                "source_file": named["source_file"][0],
                "library": library_of(r["kernel_short"]),
                "rule": "dominant_kernel",
                "category": "program",
                "severity": "medium",
                "confidence": "high",
                "launches": r["launches"],
                "time_ns": r["time_ns"],
                "est_saved_ns": None,
                "program_share_pct": None,
                "fix": dominant_fix(r["kernel_short"], r["share_pct"]),
                "calibration": None,
            }
        )
    return out
