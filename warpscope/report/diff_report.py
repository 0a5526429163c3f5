"""A Diff as GitHub markdown or JSON: deterministic, every quoted string escaped."""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from typing import Any

from warpscope.analysis.text import num
from warpscope.report.diff import Diff
from warpscope.report.escape import md_cell, md_code


def _change(value: float | None, relative: bool = True) -> str:
    if value is None:
        return "–"
    if math.isinf(value):
        return "+∞%" if value > 0 else "−∞%"
    sign = "+" if value >= 0 else ""
    return f"{sign}{num(value, 2)}{'%' if relative else ''}"


def render_markdown(d: Diff) -> str:
    changed = [p for p in d.pairs if p.changed]
    out = [
        "# warpscope diff",
        "",
        f"- base: {md_cell(d.base)}",
        f"- new: {md_cell(d.new)}",
        f"- {len(d.pairs)} launches matched, {len(changed)} changed; "
        f"{len(d.only_in_base)} only in base, {len(d.only_in_new)} only in new",
        "",
    ]
    if d.thresholds:
        out += ["## Thresholds", "", "| threshold | launches crossing |", "|---|---:|"]
        for t in d.thresholds:
            hits = sum(1 for c in d.crossings if c["threshold"] == t.text)
            out.append(f"| {md_cell(t.text)} | {hits} |")
        out.append("")
        if d.crossings:
            out += [
                "| kernel | launch (base → new) | threshold | base | new | change |",
                "|---|---|---|---:|---:|---:|",
            ]
            for c in d.crossings:
                out.append(
                    f"| {md_cell(c['kernel'])} | {c['base_launch']} → {c['new_launch']} | "
                    f"{md_cell(c['threshold'])} | {num(c['base'], 4)} | {num(c['new'], 4)} | "
                    f"{_change(c['change'], c['relative'])} |"
                )
            out.append("")
    out += ["## Changes", ""]
    if not changed:
        out += ["No differences in the matched launches.", ""]
    for p in changed:
        out += [f"### {md_cell(p.kernel)} (launch {p.base_launch} → {p.new_launch})", ""]
        if p.deltas:
            out += ["| metric | base | new | change |", "|---|---:|---:|---:|"]
            out += [
                f"| {md_code(x['metric'])} | {num(x['base'], 4)} | {num(x['new'], 4)} | "
                f"{_change(x['change_pct'])} |"
                for x in p.deltas
            ]
            out.append("")
        for label, items in (("new findings", p.appeared), ("findings gone", p.disappeared)):
            for f in items:
                out.append(
                    f"- {label}: **{f['severity']}** {md_code(f['rule'] or '')} "
                    f"({md_cell(f['origin'])}): {md_cell(f['title'])}"
                )
        if p.appeared or p.disappeared:
            out.append("")
    for label, items in (("Only in base", d.only_in_base), ("Only in new", d.only_in_new)):
        if items:
            out += [f"## {label}", "", "| kernel | launch | grid | block |", "|---|---:|---|---|"]
            out += [
                f"| {md_cell(i['kernel'])} | {i['launch']} | {'×'.join(map(str, i['grid']))} | "
                f"{'×'.join(map(str, i['block']))} |"
                for i in items
            ]
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def diff_dict(d: Diff) -> dict[str, Any]:
    """The diff as JSON-ready objects; an infinite or NaN number (an overflowing delta, a change
    from 0) is null, as Polars writes non-finite values in the JSON report."""
    return _finite(
        {
            "base": d.base,
            "new": d.new,
            "regression": d.regression,
            "matched": len(d.pairs),
            "changed": [asdict(p) for p in d.pairs if p.changed],
            "only_in_base": d.only_in_base,
            "only_in_new": d.only_in_new,
            "thresholds": [t.text for t in d.thresholds],
            "crossings": d.crossings,
        }
    )


def render_json(d: Diff) -> str:
    return json.dumps(diff_dict(d), ensure_ascii=True, allow_nan=False) + "\n"


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value
