"""Every value within its definition (issue: the Memory tab once showed "efficiency 200%" and
"excess sectors -16,777,216" for an emulated kernel): each canonical metric of the emulated
seed workload, of every bundled export and of every public sample lies in the range its
definition allows (warpscope/model/bounds.py), and so do stall shares."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import warpscope
from tests.conftest import ROOT, UNSHIPPED
from warpscope.model.bounds import bounds


def _violations(profile: warpscope.Profile, slack: float) -> list[tuple[str, float, str]]:
    metrics = profile.metrics.filter(pl.col("metric").is_not_null() & pl.col("value").is_not_null())
    rows = metrics.select(pl.col("metric").cast(pl.String), "value", pl.col("name").cast(pl.String))
    limits = {m: bounds(m) for m in rows["metric"].unique().to_list()}
    bad = [
        (m, v, n)
        for m, v, n in rows.iter_rows()
        if not (limits[m][0] - slack <= v <= limits[m][1] * (1 + slack) + slack)
    ]
    shares = profile.stalls.filter((pl.col("share_pct") < 0) | (pl.col("share_pct") > 100 + slack))
    bad += [("stall share_pct", v, r) for r, v in zip(shares["reason"], shares["share_pct"])]
    return bad


def test_emulated_metrics_are_within_their_definitions(emulated_seed):
    _, profile = emulated_seed
    assert profile.metrics.height > 1000
    assert _violations(profile, slack=0.0) == []


def _is_export(path: Path) -> bool:
    """Profiles with launches: not the notes, sources, logs, session pages, timings and the
    error-only file that lie beside them."""
    return (
        path.is_file()
        and path.suffix not in (".md", ".txt", ".cu", ".py")
        and "_session" not in path.name
        and "error_only" not in path.name
        and "_timings" not in path.name  # the calibration suite's CUDA-event timings
    )


def _exports() -> list[Path]:
    found = [p for p in sorted((ROOT / "sample_traces").rglob("*")) if _is_export(p)]
    shipped = {p.name for p in found}
    # ../shared's public exports that the repository may not ship (nothing when it is absent)
    return found + [p for p in sorted(UNSHIPPED.rglob("*")) if _is_export(p) and p.name not in shipped]


@pytest.mark.parametrize("path", _exports(), ids=lambda p: p.name)
def test_imported_metrics_are_within_their_definitions(path):
    """A profiler's own rounding may pass a bound by a hair (100.01% of peak): 1% of slack."""
    profile = warpscope.load(path)
    assert _violations(profile, slack=0.01) == []
