"""The JSON report: stable keys, deterministic bytes, every string escaped."""

from __future__ import annotations

import json
from typing import Any

from warpscope.analysis.views import LaunchView
from warpscope.model.profile import Profile
from warpscope.report.summary import findings_by_launch, launch_records


def report_dict(profile: Profile, views: list[LaunchView] | None = None) -> dict[str, Any]:
    """Sources, findings about the whole run, and every launch with its metrics and findings."""
    sources = [{"path": r["path"], "format": r["format"], "launches": r["launches"],
                "rows_rejected": r["rows_rejected"], "notes": list(r["notes"] or ())}
               for r in profile.sources.iter_rows(named=True)]
    findings = findings_by_launch(profile)
    return {"sources": sources, "run_findings": findings.get(None, []),
            "launches": launch_records(profile, findings, views)}


def render(profile: Profile, views: list[LaunchView] | None = None) -> str:
    """The JSON report of an analysed profile (``views``: its launch views, if at hand)."""
    # ensure_ascii: control, bidi and every other non-ASCII character becomes \uXXXX,
    # so the report is inert when printed to a terminal.
    # compact: json.dumps with indent falls back to the pure-Python encoder (10x slower at 10k launches)
    return json.dumps(report_dict(profile, views), ensure_ascii=True, allow_nan=False) + "\n"
