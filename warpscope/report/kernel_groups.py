"""Launches grouped into kernels, column-wise: the one definition of a kernel, its worst
finding and its time share, for the reports (``warpscope.report.kernels``) and the TUI's
kernel table (``warpscope.explore.table``).

A kernel is one name at one launch configuration in one file on one device. A launch's worst
finding is its most severe uncovered finding, the largest estimated gain first (to 0.01%), then
the rule id; a kernel's is the worst of its launches'. A kernel's time share is of the kernel
time of its own file and device (two files open, an H100 export and its emulation or a
baseline run, are never pooled into one 100%); ``pooled`` makes it a share of everything.

Nothing here loops over launches in Python: 100k launches group, sort and filter in
milliseconds, as the TUI needs on every keystroke.
"""

from __future__ import annotations

import polars as pl

from warpscope.analysis import SEVERITY_RANK
from warpscope.model import schema
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
#: an Nsight Compute rule estimating less than this gain ranks as info in the worst-finding column
NEGLIGIBLE_GAIN_PCT = 1.0


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
    values = pivot_metrics(profile.metrics, SHOWN_METRICS + ("duration_ns",))
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
        pl.lit(None, dtype=pl.Int64).alias("worst_row"),
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


def pivot_metrics(metrics: pl.DataFrame, ids: tuple[str, ...]) -> pl.DataFrame:
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
    """launch_id -> worst finding (title, labelled by origin), its rank (lower is worse) and
    ``worst_row``, its row in ``findings``."""
    rows = findings.with_row_index("worst_row").filter(
        pl.col("launch_id").is_not_null() & pl.col("covered_by").is_null()
    )
    # an Nsight Compute rule whose own estimate is negligible ranks as info, whatever its level:
    # "low, est. gain 0%" must not hide a warpscope finding worth 75%
    gain = pl.col("estimated_speedup_pct")
    negligible = (pl.col("origin") != "warpscope") & (gain < NEGLIGIBLE_GAIN_PCT)
    severity = pl.when(negligible).then(pl.lit("info")).otherwise(pl.col("severity"))
    rank = severity.replace_strict(
        SEVERITY_RANK, default=len(SEVERITY_RANK), return_dtype=pl.Int64
    ) * 100_000 - (gain.fill_null(0.0) * 100).round().cast(pl.Int64).clip(0, 99_999)
    label = pl.when(pl.col("origin") == "warpscope").then(pl.lit("")).otherwise(pl.col("origin") + ": ")
    # a short title: warpscope's, else the rule's name (ncu's message is a paragraph); written
    # for each launch's worst row only
    text = label + pl.coalesce("title", "rule_id", "message").str.replace_all(r"\s+", " ")
    worst = (
        rows.select("launch_id", rank.alias("worst_rank"), pl.col("worst_row").cast(pl.Int64), "rule_id")
        .sort(["launch_id", "worst_rank", "rule_id"])
        .group_by("launch_id", maintain_order=True)
        .agg(pl.col("worst_rank").first(), pl.col("worst_row").first())
    )
    chosen = findings.select(pl.col("origin", "title", "rule_id", "message").gather(worst["worst_row"]))
    return worst.select(
        "launch_id", chosen.select(text.alias("worst_finding")).to_series(), "worst_rank", "worst_row"
    )


def with_worst_findings(frame: pl.DataFrame, findings: pl.DataFrame) -> pl.DataFrame:
    """``launch_frame`` rows with each launch's worst finding of ``findings`` (an analysed
    profile's findings) in place of what they had."""
    worst = worst_findings(findings)
    joined = frame.drop("worst_finding", "worst_rank", "worst_row").join(worst, on="launch_id", how="left")
    joined = _shown_literally(
        joined.with_columns(pl.col("worst_rank").fill_null(NO_RANK)), ("worst_finding",)
    )
    return joined.select(frame.columns)


def group_kernels(
    launches: pl.DataFrame, everything: pl.DataFrame | None = None, *, pooled: bool = False
) -> pl.DataFrame:
    """One row per kernel of ``launches`` (``launch_frame`` rows), the most time first (then
    the first launch); time shares are of ``everything`` (default: ``launches``), per file and
    device unless ``pooled``. ``launch_id`` is the kernel's first launch, ``worst_row`` the
    findings row of its worst finding."""
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
        pl.col("worst_finding").get(pl.col("worst_rank").arg_min()),
        pl.col("worst_row").get(pl.col("worst_rank").arg_min()),
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
