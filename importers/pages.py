"""Pages of one Nsight Compute report, given as several files, become one set of launches.

``ncu --import report.ncu-rep --page raw`` and ``--page details`` of the same report list the
same launches: the same process, launch IDs, kernels and launch configurations, and the same
durations (the details page rounds them). Opened together they must not count every kernel
twice. Two runs of the same program differ in process ID and durations, so they stay apart.

A source page (``--page source``) lists per-line counters by kernel name, without launch IDs:
opened beside another page, each listing goes to the launch it was taken from
(``attach_source_pages``).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import replace

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


#: a C-style cast of a template argument, as the source page prints it: ``<(int)0>``, where
#: the other pages print ``<0>``
_CAST = re.compile(r"\((?:unsigned |signed |long |short |const )*[A-Za-z_][\w:]*\)(?=-?\d|true\b|false\b)")


def kernel_key(name: str) -> str:
    """A kernel name as every page of a report writes it: template-argument casts and spaces gone."""
    return re.sub(r"\s+", "", _CAST.sub("", name))


def attach_source_pages(profiles: list[Profile]) -> list[Profile]:
    """Each source page's listings moved onto the launches they were taken from, in the other
    files: a kernel's k-th listing to its k-th launch without per-line data of its own, kernels
    matched by ``kernel_key``. The page's file row goes with them, saying so in its notes; a
    listing no launch matches stays a launch of the source page."""
    targets = [i for i, p in enumerate(profiles) if not _is_source_page(p)]
    if not targets or len(targets) == len(profiles):  # nothing to attach, or nowhere to
        return profiles
    out = list(profiles)
    free = {i: _launches_by_kernel(profiles[i]) for i in targets}
    gone: set[int] = set()
    for i, page in enumerate(profiles):
        if not _is_source_page(page):
            continue
        moved: dict[int, dict[int, int]] = defaultdict(dict)  # target -> listing id -> launch id
        for listing, kernel in page.launches.sort("launch_id").select("launch_id", "kernel").iter_rows():
            key = kernel_key(kernel)
            target = next((t for t in targets if free[t].get(key)), None)
            if target is not None:
                moved[target][listing] = free[target][key].pop(0)
        if not moved:
            continue
        for target, ids in moved.items():
            out[target] = _with_listings(out[target], page, ids)
        attached = {listing for ids in moved.values() for listing in ids}
        left = page.subset([lid for lid in page.launches["launch_id"].to_list() if lid not in attached])
        if left.launches.is_empty():
            first = next(iter(moved))
            out[first] = _with_file_row(out[first], page, len(attached))
            gone.add(i)
        else:
            out[i] = _noted(left, f"{len(attached)} listings attached to the launches of other files")
    return [p for i, p in enumerate(out) if i not in gone]


def _is_source_page(p: Profile) -> bool:
    return p.sources.height == 1 and p.sources["format"][0] == "ncu-source"


def _launches_by_kernel(p: Profile) -> dict[str, list[int]]:
    """Launch ids by kernel key, in launch order, of launches with no per-line data yet."""
    have = set(p.source["launch_id"].unique().to_list())
    out: dict[str, list[int]] = defaultdict(list)
    for lid, kernel in p.launches.sort("launch_id").select("launch_id", "kernel").iter_rows():
        if lid not in have and kernel is not None:
            out[kernel_key(kernel)].append(lid)
    return out


def _with_listings(p: Profile, page: Profile, ids: dict[int, int]) -> Profile:
    rows = page.source.filter(pl.col("launch_id").is_in(list(ids))).with_columns(
        pl.col("launch_id").replace_strict(ids, return_dtype=pl.Int64)
    )
    return replace(p, source=pl.concat([p.source, rows], how="vertical_relaxed"))


def _with_file_row(p: Profile, page: Profile, count: int) -> Profile:
    """``p`` listing the source page's file too (launches 0: its launches are ``p``'s)."""
    row = page.sources.with_columns(
        pl.lit(0, dtype=page.sources["launches"].dtype).alias("launches"),
        pl.col("notes").list.concat(pl.lit([f"{count} listings attached to the launches of {_name(p)}"])),
    )
    return replace(p, sources=pl.concat([p.sources, row]), rejected=pl.concat([p.rejected, page.rejected]))


def _noted(p: Profile, note: str) -> Profile:
    """``p`` with ``note`` on its file row, which counts the launches it has kept."""
    return replace(
        p,
        sources=p.sources.with_columns(
            pl.lit(p.launches.height, dtype=p.sources["launches"].dtype).alias("launches"),
            pl.col("notes").list.concat(pl.lit([note])),
        ),
    )


def _name(p: Profile) -> str:
    return ", ".join(p.sources["path"].to_list())
