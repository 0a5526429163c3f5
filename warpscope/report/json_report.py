"""The JSON report: stable keys, deterministic bytes, every string escaped."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from warpscope.analysis.views import LaunchView
from warpscope.model.profile import Profile
from warpscope.report.coverage import missing as missing_sections
from warpscope.report.opportunities import opportunities
from warpscope.report.runs import run_records
from warpscope.report.summary import findings_json_by_launch, launch_records

_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def render(profile: Profile, views: list[LaunchView] | None = None) -> str:
    """The JSON report of an analysed profile (``views``: its launch views, if at hand).

    Keys: ``sources`` (path, format, launches, rows_rejected, notes), ``missing_sections`` (the
    Nsight Compute sections the export lacks and the rules that could not run), ``hazards`` (the
    emulator's racecheck and divergent barriers: kernel, kind RAW/WAR/WAW or barrier, space, array,
    both lines, count, a block and thread pair, the one-line message; empty for a GPU's export),
    ``opportunities`` (the
    fix-first list: one entry per kernel and rule, largest saving first), ``runs`` (each run's
    repeated step and one step's time by family of work), ``run_findings`` (findings about the
    whole run) and ``launches`` (each with its metrics, stalls,
    occupancy limiter and ``findings``).
    """
    findings = findings_json_by_launch(profile)
    sources = [
        {
            "path": r["path"],
            "format": r["format"],
            "launches": r["launches"],
            "rows_rejected": r["rows_rejected"],
            "notes": list(r["notes"] or ()),
        }
        for r in profile.sources.iter_rows(named=True)
    ]
    missing = [
        {"what": m.what, "sections": m.sections, "rules": list(m.rules)} for m in missing_sections(profile)
    ]
    parts = [
        '{"sources":',
        _dumps(sources),
        ',"missing_sections":',
        _dumps(missing),
        ',"hazards":',
        _dumps([finite(dict(r)) for r in profile.hazards.iter_rows(named=True)]),
        ',"opportunities":',
        _dumps(finite(opportunities(profile))),
        ',"runs":',
        _dumps(finite(run_records(profile))),
        ',"run_findings":',
        _array(findings.get(None, [])),
        ',"launches":[',
    ]
    for i, record in enumerate(launch_records(profile, views)):
        # each launch object is closed by its findings, which arrive as JSON text already
        parts.extend(
            (
                "," if i else "",
                _dumps(record)[:-1],
                ',"findings":',
                _array(findings.get(record["launch_id"], [])),
                "}",
            )
        )
    parts.append("]}\n")
    return "".join(parts)


def report_dict(profile: Profile, views: list[LaunchView] | None = None) -> dict[str, Any]:
    """The JSON report as Python objects (for notebooks and tests)."""
    return json.loads(render(profile, views))


def _dumps(value: Any) -> str:
    # ensure_ascii: control, bidi and every other non-ASCII character becomes \\uXXXX, so
    # the report is inert when printed to a terminal.
    # compact: json.dumps with indent falls back to the pure-Python encoder (10x slower at 10k launches)
    return json.dumps(value, ensure_ascii=True, allow_nan=False)


def finite(value: Any) -> Any:
    """``value`` with every infinite or NaN float (absurd times in a damaged file summed past
    the float range) as None: JSON has no such numbers. Tuples become lists, as JSON has them."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def _array(objects: list[str]) -> str:
    """A JSON array of JSON texts, non-ASCII escaped as ``_dumps`` does it."""
    # str.isascii is O(1) (CPython records it when the string is made)
    return "[" + ",".join(o if o.isascii() else _NON_ASCII.sub(_escape, o) for o in objects) + "]"


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # outside the BMP: a UTF-16 surrogate pair, as JSON spells it
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
