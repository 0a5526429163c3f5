"""Per-launch records of a Profile (metrics, stalls, limiter, findings): what the JSON report writes."""

from __future__ import annotations

from typing import Any

from warpscope.analysis.views import LaunchView
from warpscope.model.profile import Profile
from warpscope.model.values import canonical_values, stall_values
from warpscope.occupancy import occupancy_limiter


def finding_record(row: dict[str, Any]) -> dict[str, Any]:
    """A findings-table row as reports state it (``rule`` is the table's ``rule_id``)."""
    return {
        "rule": row["rule_id"], "category": row["category"], "origin": row["origin"],
        "severity": row["severity"], "title": row["title"], "message": row["message"],
        "why": row["why"], "fix": row["fix"], "threshold": row["threshold"],
        "estimated_speedup_pct": row["estimated_speedup_pct"], "speedup_type": row["speedup_type"],
        "speedup_formula": row["speedup_formula"], "section": row["section"],
        "evidence": list(row["evidence"] or ()), "covered_by": row["covered_by"],
    }


def findings_by_launch(profile: Profile) -> dict[int | None, list[dict[str, Any]]]:
    """launch_id (None: the whole run) -> its findings, in table order."""
    out: dict[int | None, list[dict[str, Any]]] = {}
    for row in profile.findings.iter_rows(named=True):
        out.setdefault(row["launch_id"], []).append(finding_record(row))
    return out


def launch_records(profile: Profile, findings: dict[int | None, list[dict[str, Any]]] | None = None,
                   views: list[LaunchView] | None = None) -> list[dict[str, Any]]:
    """Everything a report says about each launch, in launch order (``views``: the profile's
    launch views, when the caller has them, to read values once)."""
    if views is None:
        metrics, stalls = canonical_values(profile), stall_values(profile)
    else:
        metrics = {v.launch_id: v.stated for v in views}
        stalls = {v.launch_id: v.stalls for v in views}
    findings = findings_by_launch(profile) if findings is None else findings
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
            "metrics": dict(m),
            "stalls": dict(stalls.get(lid, {})),
            "occupancy_limiter": occupancy_limiter(m),
            "findings": findings.get(lid, []),
        })
    return records
