"""A Diff as GitHub markdown or JSON: deterministic, every quoted string escaped."""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from typing import Any

from warpscope.analysis.text import count, num, us
from warpscope.report.budget import cut_note, fit_sections, size
from warpscope.report.diff import NOISE_PCT, NOISE_POINTS, Diff, Pair, within_noise
from warpscope.report.escape import md_cell, md_code
from warpscope.report.json_report import finite
from warpscope.report.names import HEADING_WIDTH, middle


def _change(value: float | None, relative: bool = True) -> str:
    if value is None:
        return "–"
    if math.isinf(value):
        return "+∞%" if value > 0 else "−∞%"
    sign = "+" if value >= 0 else ""
    return f"{sign}{num(value, 2)}{'%' if relative else ''}"


def render_markdown(d: Diff, budget: int | None = None) -> str:
    """The diff as GitHub markdown; ``budget``: at most this many characters (the head, time and
    thresholds always; then the changed launches in order, as many as fit, and a closing line)."""
    changed = [p for p in d.pairs if p.changed]
    out = [
        "# warpscope diff",
        "",
        f"- base: {md_cell(d.base)}",
        f"- new: {md_cell(d.new)}",
        f"- {count(len(d.pairs), 'launch')} matched (by kernel name and order), {len(changed)} changed beyond "
        f"noise; {len(d.only_in_base)} only in base, {len(d.only_in_new)} only in new",
        *(f"- **warning**: {md_cell(w)}" for w in d.warnings),
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
                    f"| {md_cell(middle(c['kernel']))} | {c['base_launch']} → {c['new_launch']} | "
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
    sections = [_pair(p) for p in changed] + _only(d)
    if budget is None or size(out) + sum(size(x) for x in sections) <= budget:
        return _joined(out + [line for x in sections for line in x])
    out, written = fit_sections(out, sections, budget)
    return _joined(
        out
        + cut_note(
            budget,
            written,
            len(sections),
            "parts (each changed launch, in order, then the kernels on one side only, "
            f"{ONLY_ROWS} to a part)",
            "`warpscope diff --full` (or `-o FILE`) writes the whole diff.",
        )
    )


def _joined(lines: list[str]) -> str:
    return "\n".join(lines).rstrip("\n") + "\n"


def _pair(p: Pair) -> list[str]:
    """One changed launch: its configuration change, metrics beyond noise, findings come and gone."""
    out = [f"### {md_cell(middle(p.kernel, HEADING_WIDTH))} (launch {p.base_launch} → {p.new_launch})", ""]
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
    return out


#: rows of a one-side-only table per part, so a diff cut to a budget keeps what fits of it
ONLY_ROWS = 25


def _only(d: Diff) -> list[list[str]]:
    """The kernels on one side only: per side a table in parts of ``ONLY_ROWS`` rows (the parts
    follow each other line by line, one table, so a cut can fall between them)."""
    out = []
    for label, items in (("Only in base", d.only_in_base), ("Only in new", d.only_in_new)):
        rows = [
            f"| {md_cell(middle(i['kernel'] or ''))} | {i['launch']} | {'×'.join(map(str, i['grid']))} | "
            f"{'×'.join(map(str, i['block']))} |"
            for i in items
        ]
        parts = [rows[k : k + ONLY_ROWS] for k in range(0, len(rows), ONLY_ROWS)]
        for k, part in enumerate(parts):
            head = (
                [f"## {label}", "", "| kernel | launch | grid | block |", "|---|---:|---|---|"]
                if k == 0
                else []
            )
            out.append(head + part + ([""] if k == len(parts) - 1 else []))
    return out


TIME_ROWS = 15


def _time(d: Diff) -> list[str]:
    """The time change first: the whole profile, then the kernels that changed most."""
    base = sum(t["base_ns"] or 0.0 for t in d.times)
    new = sum(t["new_ns"] or 0.0 for t in d.times)
    if not base and not new:
        return []
    whole = (new - base) / base * 100 if base else None
    counts = any(t["base_launches"] != t["new_launches"] for t in d.times)
    what = (
        "Kernel time of the launches matched per kernel (all of a kernel's where one side lacks it)"
        if (counts)
        else "Kernel time"
    )
    out = [
        "## Time",
        "",
        f"{what}: {us(base)} → {us(new)} ({_change(whole)}"
        + (", within noise" if base and new and within_noise("duration_ns", base, new) else "")
        + ").",
        "",
        "| kernel | base | new | change |" + (" launches (base → new) |" if counts else ""),
        "|---|---:|---:|---:|" + ("---:|" if counts else ""),
    ]
    for t in d.times[:TIME_ROWS]:
        change = _change(t["change_pct"]) + (" (noise)" if t["within_noise"] else "")
        row = (
            f"| {md_cell(middle(t['kernel'] or ''))} | {_us(t['base_ns'])} | {_us(t['new_ns'])} | {change} |"
        )
        if counts:
            row += f" {t['base_launches']:,} → {t['new_launches']:,} |"
        out.append(row)
    if len(d.times) > TIME_ROWS:
        out.append(f"| … {len(d.times) - TIME_ROWS} more kernels | | | |" + (" |" if counts else ""))
    return out + [""]


def _us(ns: float | None) -> str:
    return "–" if ns is None else us(ns)


def _dims(d: list[int | None]) -> str:
    return "×".join("?" if x is None else str(x) for x in d)


def diff_dict(d: Diff) -> dict[str, Any]:
    """The diff as JSON-ready objects; an infinite or NaN number (an overflowing delta, a change
    from 0) is null, as Polars writes non-finite values in the JSON report."""
    return finite(
        {
            "base": d.base,
            "new": d.new,
            "regression": d.regression,
            "matched": len(d.pairs),
            "launches": d.launches,
            "warnings": d.warnings,
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
