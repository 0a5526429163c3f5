"""A Diff as GitHub markdown or JSON: deterministic, every quoted string escaped."""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from typing import Any

from warpscope.analysis.text import num, us
from warpscope.report.diff import NOISE_PCT, NOISE_POINTS, Diff, within_noise
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
        f"- {len(d.pairs)} launches matched (by kernel name and order), {len(changed)} changed beyond "
        f"noise; {len(d.only_in_base)} only in base, {len(d.only_in_new)} only in new",
        "",
    ]
    out += _time(d)
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
    out += [
        "## Changes",
        "",
        f"Differences under {num(NOISE_PCT, 0)}% (or {num(NOISE_POINTS, 0)} points of a percentage) are "
        "run-to-run noise and are not listed: two profiles of the seed program on one H100 differ by "
        "up to 3.2% in kernel time. `--format json` lists them too, flagged `within_noise`.",
        "",
    ]
    if not changed:
        out += ["No differences beyond noise in the matched launches.", ""]
    for p in changed:
        out += [f"### {md_cell(p.kernel)} (launch {p.base_launch} → {p.new_launch})", ""]
        if p.config:
            grid, block = p.config["grid"], p.config["block"]
            out += [
                f"Launch configuration: grid {_dims(grid[0])} → {_dims(grid[1])}, "
                f"block {_dims(block[0])} → {_dims(block[1])}.",
                "",
            ]
        shown = [x for x in p.deltas if not x["within_noise"]]
        if shown:
            out += ["| metric | base | new | change |", "|---|---:|---:|---:|"]
            out += [
                f"| {md_code(x['metric'])} | {num(x['base'], 4)} | {num(x['new'], 4)} | "
                f"{_change(x['change_pct'])} |"
                for x in shown
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


TIME_ROWS = 15


def _time(d: Diff) -> list[str]:
    """The time change first: the whole profile, then the kernels that changed most."""
    base = sum(t["base_ns"] or 0.0 for t in d.times)
    new = sum(t["new_ns"] or 0.0 for t in d.times)
    if not base and not new:
        return []
    whole = (new - base) / base * 100 if base else None
    out = [
        "## Time",
        "",
        f"Kernel time: {us(base)} → {us(new)} ({_change(whole)}"
        + (", within noise" if base and new and within_noise("duration_ns", base, new) else "")
        + ").",
        "",
        "| kernel | base | new | change |",
        "|---|---:|---:|---:|",
    ]
    for t in d.times[:TIME_ROWS]:
        change = _change(t["change_pct"]) + (" (noise)" if t["within_noise"] else "")
        out.append(f"| {md_cell(t['kernel'])} | {_us(t['base_ns'])} | {_us(t['new_ns'])} | {change} |")
    if len(d.times) > TIME_ROWS:
        out.append(f"| … {len(d.times) - TIME_ROWS} more kernels | | | |")
    return out + [""]


def _us(ns: float | None) -> str:
    return "–" if ns is None else us(ns)


def _dims(d: list[int | None]) -> str:
    return "×".join("?" if x is None else str(x) for x in d)


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
            "times": d.times,
            "noise": {"relative_pct": NOISE_PCT, "points_for_pct_metrics": NOISE_POINTS},
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
