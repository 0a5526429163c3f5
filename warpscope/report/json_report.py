"""The JSON report: stable keys, deterministic bytes, every string escaped."""

from __future__ import annotations

import io
import json
import math
import re
from typing import Any, TextIO

import polars as pl

from warpscope.analysis.views import LaunchView, LazyViews
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
    out = io.StringIO()
    write(profile, out, views)
    return out.getvalue()


def write(profile: Profile, out: TextIO, views: list[LaunchView] | None = None) -> None:
    """``render``'s report written to ``out`` a slice of launches at a time: a long profile's
    report (hundreds of megabytes at 100,000 launches) is never held whole, nor its launches'
    views and findings as text."""
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
    run_rows = profile.findings.filter(pl.col("launch_id").is_null())
    for part in (
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
        _array(findings_json_by_launch(run_rows).get(None, [])),
        ',"launches":[',
    ):
        out.write(part)
    ids = profile.launches["launch_id"].sort()
    by_launch = profile.findings.filter(pl.col("launch_id").is_not_null()).sort(
        "launch_id", maintain_order=True
    )
    finding_ids = by_launch["launch_id"]
    lazy = LazyViews(profile) if views is None else None
    by_id = {v.launch_id: v for v in views or ()}
    for start in range(0, len(ids), SLICE):
        part_ids = ids.slice(start, SLICE)
        # the slice's findings: a range of the findings sorted by launch
        first, last = part_ids[0], part_ids[-1]
        lo = finding_ids.search_sorted(first, "left")
        hi = finding_ids.search_sorted(last, "right")
        findings = findings_json_by_launch(by_launch.slice(lo, hi - lo))
        part_views = (
            lazy[start : start + SLICE] if lazy is not None else [by_id[i] for i in part_ids if i in by_id]
        )
        for i, record in enumerate(launch_records(profile, part_views, part_ids)):
            # each launch object is closed by its findings, which arrive as JSON text already
            out.write("," if start or i else "")
            out.write(_dumps(record)[:-1])
            out.write(',"findings":')
            out.write(_array(findings.get(record["launch_id"], [])))
            out.write("}")
    out.write("]}\n")


#: launches whose views, records and findings' text are made at once
SLICE = 5000


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
