"""Per-launch records of a Profile (metrics, stalls, limiter, findings): what the JSON report writes."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import polars as pl

from warpscope.analysis.views import LaunchView
from warpscope.model.libraries import library_of
from warpscope.model.profile import Profile
from warpscope.model.values import canonical_values, stall_values
from warpscope.occupancy import occupancy_limiter

#: findings-table column -> the key reports use for it, in report order
FINDING_KEYS = {
    "rule_id": "rule",
    "category": "category",
    "origin": "origin",
    "severity": "severity",
    "confidence": "confidence",
    "title": "title",
    "message": "message",
    "why": "why",
    "fix": "fix",
    "threshold": "threshold",
    "estimated_speedup_pct": "estimated_speedup_pct",
    "speedup_type": "speedup_type",
    "speedup_formula": "speedup_formula",
    "section": "section",
    "evidence": "evidence",
    "evidence_grade": "evidence_grade",
    "est_saved_ns": "est_saved_ns",
    "program_share_pct": "program_share_pct",
    "covered_by": "covered_by",
}


def findings_json_by_launch(table: pl.DataFrame) -> dict[int | None, list[str]]:
    """launch_id (None: the whole run) -> its findings (rows of a ``findings`` table) as JSON
    objects (UTF-8 text), in table order."""
    # Polars writes the JSON in Rust: 40k findings take 0.07 s against ~1 s for
    # Python dicts through json.dumps, most of a 10k-launch JSON report.
    records = table.select(
        *(pl.col(column).alias(key) for column, key in FINDING_KEYS.items() if column != "evidence"),
    ).insert_column(
        list(FINDING_KEYS).index("evidence"),
        table["evidence"].fill_null(pl.lit([], dtype=table.schema["evidence"])).alias("evidence"),
    )
    sink = io.BytesIO()
    records.write_ndjson(sink)
    out: dict[int | None, list[str]] = {}
    # "\n" only: str.splitlines would also cut at a U+0085 or U+2028 inside a kernel name
    for launch_id, line in zip(table["launch_id"].to_list(), sink.getvalue().decode().split("\n")):
        out.setdefault(launch_id, []).append(line)
    return out


def launch_records(
    profile: Profile, views: Sequence[LaunchView] | None = None, ids: pl.Series | None = None
) -> list[dict[str, Any]]:
    """Everything a report says about each launch except its findings, in launch order
    (``views``: the profile's launch views, when the caller has them, to read values once;
    ``ids``: these launches only)."""
    if views is None:
        metrics, stalls = canonical_values(profile), stall_values(profile)
    else:
        metrics = {v.launch_id: dict(v.stated) for v in views}
        stalls = {v.launch_id: dict(v.stalls) for v in views}
    launches = profile.launches.sort("launch_id")
    if ids is not None:
        launches = launches.filter(pl.col("launch_id").is_in(ids.implode()))
    records = []
    for row in launches.iter_rows(named=True):
        lid = row["launch_id"]
        m = metrics.get(lid, {})
        records.append(
            {
                "launch_id": lid,
                "source": row["source_file"],
                "kernel": row["kernel"],
                "kernel_short": row["kernel_short"],
                "library": library_of(row["kernel_short"]),
                "device": row["device_name"] if row["device_name"] is not None else row["device"],
                "compute_capability": row["compute_capability"],
                "grid": [row["grid_x"], row["grid_y"], row["grid_z"]],
                "block": [row["block_x"], row["block_y"], row["block_z"]],
                "metrics": dict(m),
                "stalls": dict(stalls.get(lid, {})),
                "occupancy_limiter": occupancy_limiter(m),
            }
        )
    return records
