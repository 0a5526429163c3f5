"""Kernels across the runs of a dataset: per kernel, a metric over runs, its change points, and
the counters that moved with each change.

A series is one value per point (a run, or with ``by`` all runs sharing a label value, in order
of first import): the median over the kernel's launches in it. Change points are found by
binary segmentation on the mean shift, scored against the series' own run-to-run noise (the
robust spread of consecutive differences), and kept where the medians on either side differ
by at least ``min_change_pct``. A one-point segment counts only at the newest end of the
series, so a fresh regression is caught at once while a one-off spike in the past is not.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from warpscope.model import schema, store
from warpscope.model.catalog import BY_ID
from warpscope.report.diff import Threshold

#: a change must stand this many noise units above the spread of a series (binary segmentation
#: tests hundreds of split points: at 5, Gaussian jitter over 1,000 runs flags nothing)
Z_MIN = 5.0
#: runs either side of a change point whose counters are compared
WINDOW = 5
#: counters named per change point
MOVED_MAX = 5
#: launch columns compared beside the metrics (a rebuilt kernel's configuration)
_CONFIG = ("registers_per_thread", "static_shared_bytes", "dynamic_shared_bytes", "grid_size", "block_size")


@dataclass
class Change:
    index: int  # first point after the change
    before: float  # median of the segment before
    after: float  # median of the segment after
    change_pct: float
    z: float
    moved: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Series:
    kernel: str
    metric: str
    values: list[float | None]  # per point; None where the kernel did not run
    launches: list[int]
    changes: list[Change] = field(default_factory=list)


@dataclass
class Trend:
    dataset: str
    by: str | None
    points: list[dict[str, Any]]  # key, run_ids, imported_at (first)
    series: list[Series]
    crossings: list[dict[str, Any]]
    thresholds: list[Threshold]

    @property
    def regression(self) -> bool:
        return bool(self.crossings)


def trend(
    dataset: str | os.PathLike[str],
    metrics: list[str] | None = None,
    *,
    kernel: str | None = None,
    by: str | None = None,
    last: int | None = None,
    since: str | None = None,
    min_change_pct: float = 3.0,
    thresholds: list[Threshold] | None = None,
) -> Trend:
    """Per kernel and metric of ``dataset``, the series over its runs and its change points.

    ``kernel``: a case-insensitive substring of the kernel's short name. ``by``: a label key
    (``commit``): runs sharing its value are one point. ``last``: only the newest points.
    ``since``: from the run with this id, or the first run labelled ``KEY=VALUE``, on."""
    metrics = list(dict.fromkeys(metrics or ["duration_ns"]))
    for m in metrics:
        if m not in BY_ID:
            raise ValueError(f"--metric {m}: not a canonical metric (see `warpscope metrics`)")
    thresholds = thresholds or []
    runs = store.runs(dataset)
    points = _points(runs, by)
    points = _since(points, since) if since else points
    if last is not None:
        points = points[-last:] if last > 0 else []
    run_point = {r: i for i, p in enumerate(points) for r in p["run_ids"]}
    series = _values(dataset, run_point, len(points), metrics, kernel)
    for s in series:
        s.changes = change_points(s.values, min_change_pct)
    _attach_moved(dataset, points, series)
    crossings = [
        {
            "kernel": s.kernel,
            "metric": s.metric,
            "at": points[c.index]["key"],
            "before": c.before,
            "after": c.after,
            "change_pct": c.change_pct,
            "threshold": t.text,
        }
        for s in series
        for c in s.changes
        for t in thresholds
        if t.metric == s.metric and t.crossed(c.before, c.after)
    ]
    return Trend(str(dataset), by, points, series, crossings, thresholds)


def _points(runs: pl.DataFrame, by: str | None) -> list[dict[str, Any]]:
    rows = runs.select("run_id", "imported_at", "labels").to_dicts()
    for r in rows:
        r["labels"] = {lab["key"]: lab["value"] for lab in r["labels"] or ()}
    if by is None:
        return [
            {
                "key": r["run_id"],
                "run_ids": [r["run_id"]],
                "imported_at": r["imported_at"],
                "labels": r["labels"],
            }
            for r in rows
        ]
    grouped: dict[str, dict[str, Any]] = {}
    for r in rows:  # oldest first: a label's point sits where it first appeared
        value = r["labels"].get(by)
        if value is None:
            continue
        point = grouped.setdefault(
            value, {"key": value, "run_ids": [], "imported_at": r["imported_at"], "labels": r["labels"]}
        )
        point["run_ids"].append(r["run_id"])
    return list(grouped.values())


def _since(points: list[dict[str, Any]], since: str) -> list[dict[str, Any]]:
    key, sep, value = since.partition("=")
    for i, p in enumerate(points):
        if (since in p["run_ids"] or p["key"] == since) or (sep and p["labels"].get(key) == value):
            return points[i:]
    raise ValueError(f"--since {since!r}: no such run in the dataset")


def _values(
    dataset: str | os.PathLike[str], run_point: dict[str, int], n: int, metrics: list[str], kernel: str | None
) -> list[Series]:
    """Per kernel and metric, the median over each point's launches."""
    launches = store.committed_files(dataset, "launches", list(run_point))
    if not launches:
        return []
    frame = store.read_files(launches, ["run_id", "launch_id", "kernel_short", "duration_ns"]).rename(
        {"kernel_short": "kernel"}
    )
    if kernel:
        frame = frame.filter(pl.col("kernel").str.to_lowercase().str.contains(kernel.lower(), literal=True))
    parts = []
    if "duration_ns" in metrics:
        parts.append(
            frame.select(
                "run_id",
                "kernel",
                pl.lit("duration_ns").alias("metric"),
                pl.col("duration_ns").alias("value"),
            )
        )
    others = [m for m in metrics if m != "duration_ns"]
    files = store.committed_files(dataset, "metrics", list(run_point)) if others else []
    if files:
        rows = store.read_files(
            files,
            ["run_id", "launch_id", "metric", "value"],
            pl.col("metric").is_in(others) & pl.col("value").is_not_null() & schema.single_value(),
        )
        parts.append(
            rows.join(frame, on=["run_id", "launch_id"]).select("run_id", "kernel", "metric", "value")
        )
    if not parts:
        return []
    values = pl.concat(parts).filter(pl.col("value").is_finite())
    return _series(values, run_point, n, metrics)


def _series(values: pl.DataFrame, run_point: dict[str, int], n: int, metrics: list[str]) -> list[Series]:
    points = pl.DataFrame(
        {"run_id": list(run_point), "point": list(run_point.values())},
        schema={"run_id": pl.String, "point": pl.Int64},
    )
    per_point = (
        values.join(points, on="run_id")
        .group_by("kernel", "metric", "point")
        .agg(pl.col("value").median(), pl.len().alias("launches"))
        .group_by("kernel", "metric")
        .agg("point", "value", "launches")
    )
    order = {m: i for i, m in enumerate(metrics)}
    out = []
    for kernel, metric, where, value, count in per_point.iter_rows():
        vals: list[float | None] = [None] * n
        counts = [0] * n
        for i, v, c in zip(where, value, count, strict=True):
            vals[i], counts[i] = v, c
        out.append(Series(str(kernel), str(metric), vals, counts))
    return sorted(out, key=lambda s: (order.get(s.metric, len(order)), s.kernel))


def noise(x: np.ndarray) -> float:
    """Run-to-run spread of a series: the robust deviation of consecutive differences / sqrt 2."""
    if x.size < 3:
        return 0.0
    d = np.diff(x)
    return float(1.4826 * np.median(np.abs(d - np.median(d))) / math.sqrt(2))


def change_points(values: list[float | None], min_change_pct: float, z_min: float = Z_MIN) -> list[Change]:
    """The changes of a series (points where the kernel did not run are skipped)."""
    where = [i for i, v in enumerate(values) if v is not None]
    x = np.array([values[i] for i in where], dtype=float)
    n = x.size
    if n < 3:
        return []
    sigma = max(noise(x), 1e-9 * float(np.median(np.abs(x))), 1e-300)
    found: list[Change] = []

    def split(lo: int, hi: int) -> None:
        m = hi - lo
        if m < 3 or len(found) >= 16:
            return
        t = np.arange(1, m)
        ok = (t >= 2) & ((m - t >= 2) | (hi == n))  # a lone point only at the newest end
        if not ok.any():
            return
        csum = np.cumsum(x[lo:hi])
        left = csum[t - 1] / t
        right = (csum[-1] - csum[t - 1]) / (m - t)
        stat = np.where(ok, np.abs(right - left) / (sigma * np.sqrt(1 / t + 1 / (m - t))), 0.0)
        k = int(np.argmax(stat))
        if stat[k] < z_min:
            return
        cut = lo + k + 1
        before, after = float(np.median(x[lo:cut])), float(np.median(x[cut:hi]))
        pct = (after - before) / abs(before) * 100 if before else math.copysign(math.inf, after)
        if abs(pct) >= min_change_pct:
            found.append(Change(where[cut], before, after, pct, float(stat[k])))
        split(lo, cut)
        split(cut, hi)

    split(0, n)
    return sorted(found, key=lambda c: c.index)


def _attach_moved(
    dataset: str | os.PathLike[str], points: list[dict[str, Any]], series: list[Series]
) -> None:
    """Per change point, the kernel's counters that moved with it (``WINDOW`` points a side)."""
    for s in series:
        for c in s.changes:
            lo, hi = max(0, c.index - WINDOW), min(len(points), c.index + WINDOW)
            side = {
                r: ("before" if i < c.index else "after") for i in range(lo, hi) for r in points[i]["run_ids"]
            }
            c.moved = _moved(dataset, s.kernel, s.metric, side)


def _moved(
    dataset: str | os.PathLike[str], kernel: str, metric: str, side: dict[str, str]
) -> list[dict[str, Any]]:
    runs = list(side)
    launches = (
        store.scan(dataset, "launches", runs)
        .filter(pl.col("kernel_short") == kernel)
        .with_columns(
            (pl.col("grid_x") * pl.col("grid_y") * pl.col("grid_z")).alias("grid_size"),
            (pl.col("block_x") * pl.col("block_y") * pl.col("block_z")).alias("block_size"),
        )
    )
    config = launches.unpivot(index=["run_id", "launch_id"], on=list(_CONFIG), variable_name="metric").select(
        "run_id", "metric", pl.col("value").cast(pl.Float64)
    )
    counters = (
        store.scan(dataset, "metrics", runs)
        .filter(pl.col("metric").is_not_null() & pl.col("value").is_not_null() & schema.single_value())
        .join(launches.select("run_id", "launch_id"), on=["run_id", "launch_id"], how="semi")
        .select("run_id", pl.col("metric").cast(pl.String), "value")
    )
    counted = counters.collect()
    config_only = config.collect().filter(~pl.col("metric").is_in(counted["metric"].unique().implode()))
    per_run = (
        pl.concat([counted, config_only])
        .filter((pl.col("metric") != metric) & pl.col("value").is_finite())
        .group_by("run_id", "metric")
        .agg(pl.col("value").median())
        .with_columns(pl.col("run_id").replace_strict(side).alias("side"))
    )
    stats = (
        per_run.group_by("metric", "side")
        .agg(
            pl.col("value").median().alias("median"),
            (pl.col("value") - pl.col("value").median()).abs().median().alias("mad"),
        )
        .pivot("side", index="metric", values=["median", "mad"])
    )
    if "median_before" not in stats.columns or "median_after" not in stats.columns:
        return []
    out = []
    for row in stats.iter_rows(named=True):
        before, after = row["median_before"], row["median_after"]
        if before is None or after is None or before == after:
            continue
        spread = 1.4826 * max(row["mad_before"] or 0.0, row["mad_after"] or 0.0)
        delta = after - before
        pct = delta / abs(before) * 100 if before else math.copysign(math.inf, delta)
        points_metric = row["metric"].endswith("_pct")
        big = abs(delta) >= 2.0 if points_metric else abs(pct) >= 5.0
        if big and abs(delta) > 3 * spread:
            out.append({"metric": row["metric"], "before": before, "after": after, "change_pct": pct})
    out.sort(key=lambda m: (-min(abs(m["change_pct"]), 1e12), m["metric"]))
    return out[:MOVED_MAX]


def sparkline(values: list[float | None]) -> str:
    """Eight-level bars, one per point; a space where the kernel did not run."""
    bars = "▁▂▃▄▅▆▇█"
    present = [v for v in values if v is not None]
    if not present:
        return ""
    lo, hi = min(present), max(present)
    span = hi - lo
    return "".join(
        " " if v is None else bars[0 if span == 0 else min(7, int((v - lo) / span * 8))] for v in values
    )


def dataset_path(path: str | os.PathLike[str]) -> Path:
    """``path`` as a dataset, or a ValueError saying what it is instead."""
    p = Path(path)
    if not store.is_dataset(p):
        what = "a saved profile folder" if store.is_profile_folder(p) else "not a warpscope dataset"
        raise ValueError(f"{p}: {what} (make one with `warpscope import FILES --into {p}`)")
    return p
