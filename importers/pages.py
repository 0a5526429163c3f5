"""Pages of one Nsight Compute report, given as several files, become one set of launches.

``ncu --import report.ncu-rep --page raw`` and ``--page details`` of the same report list the
same launches: the same process, launch IDs, kernels and launch configurations, and the same
durations (the details page rounds them). Opened together they must not count every kernel
twice. Two runs of the same program differ in process ID and durations, so they stay apart.
"""

from __future__ import annotations

import polars as pl

from warpscope.model import schema
from warpscope.model.profile import Profile

#: what must be equal, launch by launch, for two files to be pages of one report
_IDENTITY = (
    "profiler_launch_id",
    "process_id",
    "kernel",
    "grid_x",
    "grid_y",
    "grid_z",
    "block_x",
    "block_y",
    "block_z",
)
#: durations of two pages of one report agree to the details page's rounding (4 digits)
_DURATION_REL = 0.005


def same_report(a: Profile, b: Profile) -> bool:
    """``b`` lists the same launches as ``a``, in the same order, from the same process."""
    la, lb = a.launches.sort("launch_id"), b.launches.sort("launch_id")
    if la.is_empty() or la.height != lb.height:
        return False
    if not all(str(f).startswith("ncu") for f in (*la["source_format"], *lb["source_format"])):
        return False
    if la["process_id"].null_count() or la["profiler_launch_id"].null_count():
        return False
    if not la.select(_IDENTITY).equals(lb.select(_IDENTITY)):
        return False
    da, db = la["duration_ns"], lb["duration_ns"]
    if da.null_count() or db.null_count():
        return False
    return bool(((da - db).abs() <= _DURATION_REL * da.abs()).all())


def merge_pages(profiles: list[Profile]) -> list[Profile]:
    """``profiles`` with each one that is another page of an earlier one merged into it."""
    out: list[Profile] = []
    for p in profiles:
        for i, kept in enumerate(out):
            if same_report(kept, p):
                out[i] = _merge(kept, p)
                break
        else:
            out.append(p)
    return out


def _merge(a: Profile, b: Profile) -> Profile:
    """``a`` with ``b``'s launches mapped onto it: what ``a`` lacks filled from ``b``, every
    metric ``a`` does not state added, ``b``'s rule results, stalls and per-line data kept."""
    ids = dict(zip(b.launches.sort("launch_id")["launch_id"], a.launches.sort("launch_id")["launch_id"]))

    def mapped(frame: pl.DataFrame) -> pl.DataFrame:
        if "launch_id" not in frame.columns:
            return frame
        return frame.with_columns(
            pl.col("launch_id").replace_strict(ids, default=None, return_dtype=pl.Int64)
        )

    fill = mapped(b.launches).rename({c: f"_{c}" for c in b.launches.columns if c != "launch_id"})
    launches = a.launches.join(fill, on="launch_id", how="left").with_columns(
        pl.coalesce(c, f"_{c}").alias(c) for c in a.launches.columns if c != "launch_id"
    )
    theirs = mapped(b.metrics)
    stated = a.metrics.filter(pl.col("metric").is_not_null()).select("launch_id", "metric", "stat").unique()
    theirs = theirs.join(stated, on=["launch_id", "metric", "stat"], how="anti", nulls_equal=True)
    stalls = pl.concat([a.stalls, mapped(b.stalls)]).unique(
        ["launch_id", "reason"], keep="first", maintain_order=True
    )
    raw_metrics, raw_pages = _raw(a, b, ids)
    return Profile(
        launches=schema.conform("launches", launches.select(a.launches.columns)),
        metrics=pl.concat([a.metrics, theirs]),
        stalls=stalls,
        findings=pl.concat([a.findings, mapped(b.findings)]),
        source=pl.concat([a.source, mapped(b.source)]),
        transfers=pl.concat([a.transfers, b.transfers]),
        api_calls=pl.concat([a.api_calls, b.api_calls]),
        sources=pl.concat([a.sources, b.sources]),
        rejected=pl.concat([a.rejected, b.rejected]),
        timeline=a.timeline,
        raw_units=pl.concat([a.raw_units, b.raw_units]).unique(maintain_order=True),
        raw_metrics=raw_metrics,
        raw_pages=raw_pages,
    )


def _raw(a: Profile, b: Profile, ids: dict[int, int]) -> tuple[pl.LazyFrame, pl.DataFrame]:
    """The raw page's unmapped columns: ``a``'s, or ``b``'s when only ``b`` is a raw page
    (two raw pages of one report, in base and auto units, say the same: the first is kept)."""
    if a.raw_names() or not b.raw_names():
        return a.raw_metrics, a.raw_pages
    cells = b.raw_cells().with_columns(
        pl.col("launch_id").replace_strict(ids, default=None, return_dtype=pl.Int64)
    )
    return cells, schema.empty("raw_pages")
