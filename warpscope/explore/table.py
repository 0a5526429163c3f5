"""The kernel table: one row per launch, grouped into one row per kernel, column-wise.

The TUI sorts, filters and regroups these frames on every keystroke, so nothing here
loops over launches in Python: 100k launches group, sort and filter in milliseconds.
A kernel is one name at one launch configuration in one file on one device, as in the
reports (``warpscope.report.kernels``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from warpscope.analysis import SEVERITY_RANK
from warpscope.explore.stated import StatedMetrics
from warpscope.model import schema
from warpscope.model.catalog import BY_ID as CATALOG
from warpscope.model.profile import Profile
from warpscope.report.escape import visible

#: canonical metrics the table shows (others are joined on demand by filters)
SHOWN_METRICS = (
    "theoretical_occupancy_pct",
    "achieved_occupancy_pct",
    "warp_execution_efficiency_pct",
    "branch_efficiency_pct",
    "global_load_sectors_per_request",
    "global_store_sectors_per_request",
    "shared_load_bank_conflicts",
    "shared_store_bank_conflicts",
)
GROUP_KEY = ("source_file", "kernel", "grid", "block", "device")
NO_RANK = 1 << 30  # findings rank of a launch without findings


@dataclass(frozen=True)
class Column:
    """One column of the kernel table: frame column, header, and how it reads."""

    id: str
    label: str
    help: str
    numeric: bool = True
    digits: int = 1
    metric: str | None = None  # the catalog id the glossary explains


COLUMNS: tuple[Column, ...] = (
    Column("name", "Kernel", "kernel short name (grouped launches) or launch id", numeric=False),
    Column("time_share_pct", "Time%", "share of its file's kernel time (per device)", metric="duration_ns"),
    Column("duration_us", "Time µs", "total GPU time (all launches), µs", digits=2, metric="duration_ns"),
    Column(
        "theoretical_occupancy_pct", "Occ th%", "theoretical occupancy", metric="theoretical_occupancy_pct"
    ),
    Column("achieved_occupancy_pct", "Occ ach%", "achieved occupancy", metric="achieved_occupancy_pct"),
    Column(
        "warp_execution_efficiency_pct",
        "WarpEff%",
        "warp execution efficiency",
        metric="warp_execution_efficiency_pct",
    ),
    Column(
        "global_load_sectors_per_request",
        "Sect/req",
        "global load sectors per request",
        digits=2,
        metric="global_load_sectors_per_request",
    ),
    Column(
        "bank_conflicts",
        "BankConf",
        "shared load + store bank conflicts",
        digits=0,
        metric="shared_load_bank_conflicts",
    ),
    Column("top_stall", "Top stall", "largest warp stall reason", numeric=False),
    Column(
        "worst_finding", "Worst finding", "most severe finding, largest estimated gain first", numeric=False
    ),
    Column("launches", "Runs", "launches in the group", digits=0),
    Column("grid", "Grid", "grid dimensions", numeric=False),
    Column("block", "Block", "block dimensions", numeric=False),
)

BY_ID = {c.id: c for c in COLUMNS}


@dataclass
class KernelTable:
    """The launches of a profile as flat rows, and how they group into kernels."""

    launches: pl.DataFrame
    metrics: pl.DataFrame = field(repr=False)  # the profile's metrics (for on-demand columns)
    _extra: dict[str, pl.Series] = field(default_factory=dict, repr=False)
    stated: StatedMetrics | None = field(default=None, repr=False)  # metrics by exported name

    @classmethod
    def of(cls, profile: Profile) -> KernelTable:
        return cls(launch_frame(profile), profile.metrics, stated=StatedMetrics.of(profile))

    def has_metric(self, name: str) -> bool:
        """A canonical metric id, or a name the profile's file gave a metric."""
        return name in CATALOG or (self.stated is not None and name in self.stated.names())

    def with_findings(self, findings: pl.DataFrame) -> KernelTable:
        """The table with each launch's worst finding (from an analysed profile's findings)."""
        worst = worst_findings(findings)
        frame = self.launches.drop("worst_finding", "worst_rank").join(worst, on="launch_id", how="left")
        frame = _shown_literally(
            frame.with_columns(pl.col("worst_rank").fill_null(NO_RANK)), ("worst_finding",)
        )
        return KernelTable(frame.select(self.launches.columns), self.metrics, self._extra, self.stated)

    def metric(self, metric_id: str) -> pl.Series:
        """One metric per launch, in the order of ``launches`` (null where absent): a canonical
        id, else a name as the file exported it, in base units."""
        if metric_id in self.launches.columns:
            return self.launches[metric_id]
        if metric_id not in self._extra:
            if metric_id not in CATALOG and self.stated is not None:
                values = self.stated.values(metric_id).rename({"value": metric_id})
            else:
                values = _pivot(self.metrics, (metric_id,))
            joined = self.launches.select("launch_id").join(
                values, on="launch_id", how="left", maintain_order="left"
            )
            self._extra[metric_id] = (
                joined[metric_id]
                if metric_id in joined.columns
                else pl.Series(metric_id, [None] * self.launches.height, dtype=pl.Float64)
            )
        return self._extra[metric_id]

    def kernels(self, launches: pl.DataFrame | None = None, *, pooled: bool = False) -> pl.DataFrame:
        """One row per kernel over ``launches`` (default: all), the most time first; time shares
        per file and device, or of everything open when ``pooled``."""
        return group_kernels(self.launches if launches is None else launches, self.launches, pooled=pooled)


def launch_frame(profile: Profile) -> pl.DataFrame:
    """One row per launch: configuration, shown metrics, top stall; findings columns empty."""
    launches = profile.launches.sort("launch_id")
    dims = ("grid", "block")
    frame = launches.select(
        "launch_id",
        "source_file",
        "kernel",
        pl.coalesce("kernel_short", "kernel").alias("kernel_short"),
        pl.coalesce("device_name", "device").alias("device"),
        *(_dims(d) for d in dims),
        *((pl.col(f"{d}_x") * pl.col(f"{d}_y") * pl.col(f"{d}_z")).alias(f"{d}_size") for d in dims),
        "registers_per_thread",
        "static_shared_bytes",
        "dynamic_shared_bytes",
        "compute_capability",
        "duration_ns",
    )
    values = _pivot(profile.metrics, SHOWN_METRICS + ("duration_ns",))
    frame = frame.join(
        values.rename({"duration_ns": "_duration"}, strict=False),
        on="launch_id",
        how="left",
        maintain_order="left",
    )
    for metric in SHOWN_METRICS:
        if metric not in frame.columns:
            frame = frame.with_columns(pl.lit(None, dtype=pl.Float64).alias(metric))
    if "_duration" in frame.columns:
        frame = frame.with_columns(pl.coalesce("duration_ns", "_duration").alias("duration_ns")).drop(
            "_duration"
        )
    conflicts = ("shared_load_bank_conflicts", "shared_store_bank_conflicts")
    frame = frame.with_columns(
        pl.when(pl.any_horizontal(pl.col(c).is_not_null() for c in conflicts))
        .then(pl.sum_horizontal(conflicts))
        .alias("bank_conflicts"),
    )
    frame = frame.join(top_stalls(profile.stalls), on="launch_id", how="left", maintain_order="left")
    frame = frame.with_columns(
        pl.lit(None, dtype=pl.String).alias("worst_finding"),
        pl.lit(NO_RANK, dtype=pl.Int64).alias("worst_rank"),
        pl.struct(GROUP_KEY).rank("dense").cast(pl.Int64).alias("group"),
    )
    frame = _shown_literally(frame, ("kernel", "kernel_short", "source_file", "device"))
    # with several files open, a name says which file it is from (the H100 export or the emulator)
    several = frame["source_file"].n_unique() > 1
    source_name = pl.col("source_file").str.replace(r"^.*[/\\]", "")
    frame = frame.with_columns(
        (pl.col("kernel_short") + pl.lit(" · ") + source_name if several else pl.col("kernel_short")).alias(
            "label"
        )
    )
    # lower-case copies once, so a name filter keystroke is one substring scan
    return frame.with_columns(
        pl.col("kernel").str.to_lowercase().alias("kernel_lower"),
        pl.col("kernel_short").str.to_lowercase().alias("kernel_short_lower"),
    )


def _dims(prefix: str) -> pl.Expr:
    parts = [pl.col(f"{prefix}_{axis}") for axis in "xyz"]
    return (
        pl.when(pl.all_horizontal(p.is_not_null() for p in parts))
        .then(pl.concat_str(parts, separator="×"))
        .otherwise(pl.lit("–"))
        .alias(prefix)
    )


def _pivot(metrics: pl.DataFrame, ids: tuple[str, ...]) -> pl.DataFrame:
    """launch_id and one Float64 column per metric of ``ids`` the profile has (first value wins)."""
    rows = metrics.filter(
        pl.col("metric").is_in(ids)
        & pl.col("value").is_not_null()
        & pl.col("value").is_finite()
        & schema.single_value()
    ).select("launch_id", pl.col("metric").cast(pl.String), "value")
    if rows.is_empty():
        return pl.DataFrame(schema={"launch_id": pl.Int64})
    return rows.pivot(on="metric", index="launch_id", values="value", aggregate_function="first")


def top_stalls(stalls: pl.DataFrame) -> pl.DataFrame:
    """launch_id -> its largest stall reason (``selected`` is issuing, not a stall)."""
    return (
        stalls.filter((pl.col("reason") != "selected") & (pl.col("cycles_per_issue") > 0))
        .sort(["launch_id", "cycles_per_issue", "reason"], descending=[False, True, False])
        .group_by("launch_id", maintain_order=True)
        .agg(pl.col("reason").first().alias("top_stall"))
    )


def worst_findings(findings: pl.DataFrame) -> pl.DataFrame:
    """launch_id -> worst finding (title, labelled by origin) and its rank (lower is worse)."""
    rows = findings.filter(pl.col("launch_id").is_not_null() & pl.col("covered_by").is_null())
    rank = pl.col("severity").replace_strict(
        SEVERITY_RANK, default=len(SEVERITY_RANK), return_dtype=pl.Int64
    ) * 100_000 - (pl.col("estimated_speedup_pct").fill_null(0.0) * 100).round().cast(pl.Int64).clip(
        0, 99_999
    )
    label = pl.when(pl.col("origin") == "warpscope").then(pl.lit("")).otherwise(pl.col("origin") + ": ")
    text = label + pl.coalesce("title", "message", "rule_id").str.replace_all(r"\s+", " ")
    return (
        rows.select("launch_id", rank.alias("worst_rank"), text.alias("worst_finding"), "rule_id")
        .sort(["launch_id", "worst_rank", "rule_id"])
        .group_by("launch_id", maintain_order=True)
        .agg(pl.col("worst_finding").first(), pl.col("worst_rank").first())
    )


def group_kernels(
    launches: pl.DataFrame, everything: pl.DataFrame | None = None, *, pooled: bool = False
) -> pl.DataFrame:
    """One row per kernel of ``launches``; time shares are of ``everything`` (default: ``launches``)."""
    totals = file_totals(everything if everything is not None else launches, pooled=pooled)
    means = [pl.col(c).mean() for c in SHOWN_METRICS + ("bank_conflicts",)]
    grouped = launches.group_by("group", maintain_order=True).agg(
        pl.col("launch_id").first(),
        *(
            pl.col(c).first()
            for c in GROUP_KEY
            + (
                "kernel_short",
                "label",
                "grid_size",
                "block_size",
                "registers_per_thread",
                "compute_capability",
            )
        ),
        pl.len().alias("launches"),
        pl.col("duration_ns").sum().alias("duration_ns"),
        pl.col("duration_ns").is_not_null().any().alias("_timed"),
        *means,
        pl.col("top_stall").drop_nulls().mode().sort().first().alias("top_stall"),
        pl.col("worst_finding").sort_by("worst_rank").first().alias("worst_finding"),
        pl.col("worst_rank").min(),
    )
    return (
        grouped.with_columns(
            pl.when(pl.col("_timed")).then(pl.col("duration_ns")).alias("duration_ns"),
        )
        .drop("_timed")
        .pipe(with_time_share, totals)
        .sort(["duration_ns", "launch_id"], descending=[True, False], nulls_last=True)
    )


def file_totals(launches: pl.DataFrame, *, pooled: bool = False) -> pl.DataFrame:
    """Kernel time per (source file, device): what a row's time share is a share of; with
    ``pooled``, every file and device has the kernel time of them all."""
    totals = launches.group_by("source_file", "device").agg(pl.col("duration_ns").sum().alias("_total"))
    return totals.with_columns(pl.col("_total").sum()) if pooled else totals


def with_time_share(rows: pl.DataFrame, totals: pl.DataFrame) -> pl.DataFrame:
    """``time_share_pct`` of rows (with source_file, device, duration_ns): of their own file's
    and device's kernel time, so that two files open (an H100 export and its emulation, a
    baseline run) are never pooled into one 100%."""
    return (
        rows.join(totals, on=["source_file", "device"], how="left", nulls_equal=True, maintain_order="left")
        .with_columns(
            pl.when(pl.col("_total") > 0)
            .then(100 * pl.col("duration_ns") / pl.col("_total"))
            .otherwise(None)
            .alias("time_share_pct")
        )
        .drop("_total")
    )


def _shown_literally(frame: pl.DataFrame, columns: tuple[str, ...]) -> pl.DataFrame:
    """Text columns with control and bidi characters made visible (``report.escape.visible``).

    Only the distinct values are escaped in Python: a profile has few kernel names."""
    out = []
    for name in columns:
        col = frame[name]
        unsafe = [v for v in col.unique().drop_nulls().to_list() if visible(v) != v]
        out.append(col.replace({v: visible(v) for v in unsafe}) if unsafe else col)
    return frame.with_columns(out)
