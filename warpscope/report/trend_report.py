"""A Trend as GitHub markdown or JSON: deterministic, every quoted string escaped."""

from __future__ import annotations

import json
import math
from typing import Any

from warpscope.analysis.text import num
from warpscope.model.catalog import BY_ID
from warpscope.report.escape import md_cell, md_code
from warpscope.report.json_report import finite
from warpscope.report.names import middle
from warpscope.report.trend import Series, Trend, sparkline


def _pct(value: float) -> str:
    if math.isinf(value):
        return "+∞%" if value > 0 else "−∞%"
    return f"{'+' if value >= 0 else ''}{num(value, 2)}%"


def _value(metric: str, value: float | None) -> str:
    if value is None:
        return "–"
    if metric == "duration_ns":
        return f"{num(value / 1e3, 3)} µs"
    if metric.endswith("_pct"):
        return f"{num(value, 2)}%"
    unit = BY_ID[metric].unit if metric in BY_ID else ""
    return f"{num(value, 3)}{' ' + unit if unit and unit not in ('count', '') else ''}"


def _present(s: Series) -> list[float]:
    return [v for v in s.values if v is not None]


def render_markdown(t: Trend) -> str:
    per = f"label `{t.by}`" if t.by else "run"
    changed = [s for s in t.series if s.changes]
    out = [
        "# warpscope trend",
        "",
        f"- dataset: {md_cell(t.dataset)}",
        f"- {len(t.points)} points (one per {md_cell(per)}), {len(t.series)} series, "
        f"{sum(len(s.changes) for s in t.series)} change points in {len(changed)} series",
    ]
    if t.points:
        out.append(f"- from {md_cell(t.points[0]['key'])} to {md_cell(t.points[-1]['key'])}")
    out.append("")
    if t.thresholds:
        out += ["## Thresholds", "", "| threshold | change points crossing |", "|---|---:|"]
        for th in t.thresholds:
            hits = sum(1 for c in t.crossings if c["threshold"] == th.text)
            out.append(f"| {md_cell(th.text)} | {hits} |")
        out.append("")
    if changed:
        out += ["## Change points", ""]
        for s in changed:
            for c in s.changes:
                at = md_cell(t.points[c.index]["key"])
                out.append(
                    f"- {md_cell(s.kernel)}: {md_code(s.metric)} {_value(s.metric, c.before)} → "
                    f"{_value(s.metric, c.after)} ({_pct(c.change_pct)}) at {at}, "
                    f"{num(c.z, 1)}× the run-to-run noise"
                )
                for m in c.moved:
                    out.append(
                        f"  - moved with it: {md_code(m['metric'])} {_value(m['metric'], m['before'])} → "
                        f"{_value(m['metric'], m['after'])} ({_pct(m['change_pct'])})"
                    )
        out.append("")
    out += [
        "## Series",
        "",
        "| kernel | metric | points | first | last | median | changes | trend |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for s in t.series:
        vals = _present(s)
        median = sorted(vals)[len(vals) // 2] if vals else None
        out.append(
            f"| {md_cell(middle(s.kernel))} | {md_code(s.metric)} | {len(vals)} | {_value(s.metric, vals[0] if vals else None)} "
            f"| {_value(s.metric, vals[-1] if vals else None)} | {_value(s.metric, median)} | {len(s.changes)} "
            f"| `{sparkline(_last(s.values, 60))}` |"
        )
    out.append("")
    return "\n".join(out)


def _last(values: list[float | None], n: int) -> list[float | None]:
    """The newest ``n`` points: a table cell's sparkline stays one line."""
    return values[-n:]


def trend_dict(t: Trend) -> dict[str, Any]:
    return finite(
        {
            "dataset": t.dataset,
            "by": t.by,
            "points": [
                {"key": p["key"], "run_ids": p["run_ids"], "imported_at": p["imported_at"].isoformat()}
                for p in t.points
            ],
            "series": [
                {
                    "kernel": s.kernel,
                    "metric": s.metric,
                    "values": s.values,
                    "launches": s.launches,
                    "changes": [
                        {
                            "at": t.points[c.index]["key"],
                            "index": c.index,
                            "before": c.before,
                            "after": c.after,
                            "change_pct": c.change_pct,
                            "noise_units": c.z,
                            "moved": c.moved,
                        }
                        for c in s.changes
                    ],
                }
                for s in t.series
            ],
            "thresholds": [th.text for th in t.thresholds],
            "crossings": t.crossings,
            "regression": t.regression,
        }
    )


def render_json(t: Trend) -> str:
    return json.dumps(trend_dict(t), ensure_ascii=True, allow_nan=False) + "\n"
