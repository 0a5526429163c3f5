"""The JSON report: stable keys, deterministic bytes, every string escaped."""

from __future__ import annotations

import json
from typing import Any

from warpscope.model.profile import Profile
from warpscope.report.summary import findings_by_launch, launch_records


def report_dict(profile: Profile) -> dict[str, Any]:
    """Sources, findings about the whole run, and every launch with its metrics and findings."""
    sources = [{"path": r["path"], "format": r["format"], "launches": r["launches"],
                "rows_rejected": r["rows_rejected"], "notes": list(r["notes"] or ())}
               for r in profile.sources.iter_rows(named=True)]
    return {"sources": sources, "run_findings": findings_by_launch(profile).get(None, []),
            "launches": launch_records(profile)}


def render(profile: Profile) -> str:
    # ensure_ascii: control, bidi and every other non-ASCII character becomes \uXXXX,
    # so the report is inert when printed to a terminal.
    return json.dumps(report_dict(profile), indent=2, ensure_ascii=True, allow_nan=False) + "\n"
