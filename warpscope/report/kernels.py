"""Launches grouped into kernels (``kernel_groups``: same name and launch configuration in one
file on one device): what reports show.

A profile of 10,000 launches of five kernels reads as five kernels: metrics are averaged
over a kernel's launches, durations summed, and each finding is shown once with the
number of launches it fired on (the instance with the largest estimated gain speaks).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from warpscope.analysis import SEVERITY_RANK
from warpscope.analysis.groups import launch_groups, representatives
from warpscope.analysis.views import FROM_LAUNCH, LaunchView, LazyViews
from warpscope.model.catalog import CATALOG
from warpscope.model.profile import Profile
from warpscope.model.values import stated_values
from warpscope.occupancy import occupancy_limiter
from warpscope.occupancy.profile_check import launch_occupancies
from warpscope.report.kernel_groups import group_kernels, launch_frame, with_worst_findings


@dataclass
class Kernel:
    """One kernel at one launch configuration, over all its launches."""

    kernel: str
    kernel_short: str
    source: str
    device: str | None
    compute_capability: str | None
    grid: tuple[int | None, ...]
    block: tuple[int | None, ...]
    launch_ids: list[int] = field(default_factory=list)
    #: the first launch as the rules see it (its occupancy, its cycles per instruction)
    view: LaunchView | None = None
    #: means over the kernel's launches of what the rules read: canonical values (a launch
    #: row's block size, ... where the profile states none) and stall reasons
    metrics: dict[str, float] = field(default_factory=dict)
    stalls: dict[str, float] = field(default_factory=dict)
    total_ns: float | None = None
    time_share_pct: float | None = None
    findings: list[dict[str, Any]] = field(default_factory=list)  # warpscope + uncovered ncu
    covered: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # warpscope rule -> ncu rows

    worst: dict[str, Any] | None = None  # findings row of the worst finding (``kernel_groups``)

    @property
    def limiter(self) -> str | None:
        return occupancy_limiter(self.metrics)


def kernels(profile: Profile, groups: pl.DataFrame | None = None) -> list[Kernel]:
    """The profile's kernels, the most time first (then in launch order).

    Which launches make a kernel, its worst finding and its time share are
    ``kernel_groups``' (as in the TUI's kernel table). The time share is of the kernel time of
    the kernel's own file and device, the TUI's default: a report on several files (an export
    and its emulation, say) gives each file's kernels their own 100%, never one pooled 100%.
    ``groups``: the profile's ``launch_groups``, where the caller has them."""
    groups = launch_groups(profile) if groups is None else groups
    rep_of = dict(groups.iter_rows())
    weight = representatives(groups)
    frame = with_worst_findings(launch_frame(profile), profile.findings)
    grouped = group_kernels(frame).select("group", "launch_id", "duration_ns", "time_share_pct", "worst_row")
    members = dict(frame.group_by("group", maintain_order=True).agg("launch_id").iter_rows())
    cols = (
        "launch_id",
        "kernel",
        "kernel_short",
        "source_file",
        "device_name",
        "device",
        "compute_capability",
        "grid_x",
        "grid_y",
        "grid_z",
        "block_x",
        "block_y",
        "block_z",
    )
    first_ids = grouped["launch_id"]
    firsts = {
        row["launch_id"]: row
        for row in profile.launches.filter(pl.col("launch_id").is_in(first_ids.implode()))
        .select(cols)
        .iter_rows(named=True)
    }
    rows = list(grouped.iter_rows())
    reps_of = [list(dict.fromkeys(rep_of[i] for i in members[row[0]])) for row in rows]
    # the first launch's view only (a long profile's kernels are a few hundred of its launches)
    viewed = sorted({reps[0] for reps in reps_of})
    keep = pl.col("launch_id").is_in(viewed)
    occupancy = launch_occupancies(profile.launches.filter(keep), profile.metrics.filter(keep))
    views = {v.launch_id: v for v in LazyViews(profile, viewed, occupancy)[:]}
    means = _means(profile, reps_of, weight)
    out = []
    for (group, first, total_ns, share, worst_row), reps, (metrics, stalls) in zip(
        rows, reps_of, means, strict=True
    ):
        row = firsts[first]
        k = Kernel(
            row["kernel"] or "",
            row["kernel_short"] or "",
            row["source_file"] or "",
            row["device_name"] or row["device"],
            row["compute_capability"],
            (row["grid_x"], row["grid_y"], row["grid_z"]),
            (row["block_x"], row["block_y"], row["block_z"]),
            launch_ids=members[group],
            view=views[reps[0]],
            metrics=metrics,
            stalls=stalls,
            total_ns=total_ns,
            time_share_pct=share,
            worst=None if worst_row is None else profile.findings.row(worst_row, named=True),
        )
        out.append(k)
    _attach_findings(profile.findings, out, weight)
    return out


_ORDER = {m.id: i for i, m in enumerate(CATALOG)}


def _means(
    profile: Profile, kernel_reps: list[list[int]], weight: dict[int, int]
) -> list[tuple[dict[str, float], dict[str, float]]]:
    """Per kernel (its launch groups' representatives, each standing for ``weight`` launches),
    the mean of each value and stall reason over the launches that have it. Group-bys over the
    long tables: a view per launch, only to average it, took seconds on a long profile."""
    index_ids = [r for reps in kernel_reps for r in reps]
    index = pl.LazyFrame(
        {
            "launch_id": index_ids,
            "_kernel": [i for i, reps in enumerate(kernel_reps) for _ in reps],
            "_w": [weight[r] for reps in kernel_reps for r in reps],
        },
        schema={"launch_id": pl.Int64, "_kernel": pl.Int64, "_w": pl.Float64},
    )
    stated = stated_values(profile).join(index, on="launch_id").collect().lazy()  # read twice below
    size = {
        f"{what}_size": pl.when(pl.all_horizontal(pl.col(f"{what}_{d}").is_not_null() for d in "xyz")).then(
            pl.col(f"{what}_x").cast(pl.Float64) * pl.col(f"{what}_y") * pl.col(f"{what}_z")
        )
        for what in ("block", "grid")
    }
    # the launch row's values stand in only for a value some launch does not state
    fallbacks = ["block_size", "grid_size", *FROM_LAUNCH]
    stating = dict(
        stated.filter(pl.col("metric").is_in(fallbacks))
        .group_by(pl.col("metric").cast(pl.String))
        .len()
        .collect()
        .iter_rows()
    )
    unstated = {
        c: e
        for c, e in {**size, **{c: pl.col(c).cast(pl.Float64) for c in FROM_LAUNCH}}.items()
        if stating.get(c, 0) < len(index_ids)
    }
    from_launch = (
        profile.launches.lazy()
        .join(index, on="launch_id")
        .select("launch_id", "_kernel", "_w", *[e.alias(c) for c, e in unstated.items()])
        .unpivot(index=["launch_id", "_kernel", "_w"], variable_name="metric", value_name="value")
        .drop_nulls("value")
        .join(  # the launch row's value only where the profile states none
            stated.filter(pl.col("metric").is_in(["block_size", "grid_size", *FROM_LAUNCH])).select(
                "launch_id", pl.col("metric").cast(pl.String)
            ),
            on=["launch_id", "metric"],
            how="anti",
        )
    )
    reasons = (
        profile.stalls.lazy()
        .filter(pl.col("cycles_per_issue").is_finite())
        .select("launch_id", pl.col("reason").alias("metric"), pl.col("cycles_per_issue").alias("value"))
        .group_by("launch_id", "metric")  # a repeated reason: the last, as a view keeps it
        .agg(pl.col("value").last())
        .join(index, on="launch_id")
    )

    def weighted(values: pl.LazyFrame) -> pl.DataFrame:
        # per kernel and metric its weighted values and their weight: the categorical names
        # become text on a few thousand rows, not on every value
        return (
            values.group_by("_kernel", "metric")
            .agg((pl.col("value") * pl.col("_w")).alias("_x"), pl.col("_w").sum())
            .with_columns(pl.col("metric").cast(pl.String))
            .collect()
        )

    out: list[tuple[dict[str, float], dict[str, float]]] = [({}, {}) for _ in kernel_reps]
    values = (stated, from_launch) if unstated else (stated,)
    for part, frames in enumerate((values, (reasons,))):
        sums: dict[tuple[int, str], tuple[list[float], float]] = {}
        for frame in frames:
            for kernel, metric, xs, w in weighted(frame).iter_rows():
                seen, weights = sums.get((kernel, metric), ((), 0.0))
                sums[kernel, metric] = ([*seen, *xs], weights + w)
        for kernel, metric in sorted(sums, key=lambda km: (km[0], _ORDER.get(km[1], len(_ORDER)), km[1])):
            xs, w = sums[kernel, metric]
            # fsum: exact, so the mean is the same whatever order the rows arrive in (a
            # parallel sum is not: reports of one profile must not differ by a digit)
            out[kernel][part][metric] = math.fsum(xs) / w
    return out


def finding_key(row: dict[str, Any]) -> tuple:
    """What makes two findings rows the same finding on different launches or profiles:
    origin and rule (a warpscope rule fires once per launch, but for the stall reason it
    names), or, for Nsight Compute, its message with numbers blanked."""
    if row["origin"] == "warpscope":
        detail: object = tuple(
            e["metric"] for e in row["evidence"] or () if e["metric"].startswith("stalls.")
        )
    else:
        detail = re.sub(r"[0-9][0-9.,]*", "#", row["message"] or "")
    return (row["origin"], row["rule_id"], row["category"], detail)


def _one_per_ncu_rule(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A kernel's rows of one Nsight Compute rule (``WorkloadImbalance`` for SMs, SMSPs and L1
    slices, say) as one finding: its messages in turn, its highest gain and severity. One entry
    per thing said, as the reading budget asks (docs/checklist.md)."""
    out: list[dict[str, Any]] = []
    first: dict[tuple, dict[str, Any]] = {}
    for f in found:
        if f["origin"] == "warpscope":
            out.append(f)
            continue
        key = (id(f["kernel"]), f["origin"], f["rule_id"], f["category"])
        kept = first.get(key)
        if kept is None:
            first[key] = f
            out.append(f)
            continue
        if f["message"] and f["message"] not in (kept["message"] or ""):
            kept["message"] = f"{kept['message']} {f['message']}" if kept["message"] else f["message"]
        if (f["estimated_speedup_pct"] or 0) > (kept["estimated_speedup_pct"] or 0):
            kept["estimated_speedup_pct"] = f["estimated_speedup_pct"]
        if SEVERITY_RANK.get(f["severity"], 9) < SEVERITY_RANK.get(kept["severity"], 9):
            kept["severity"] = f["severity"]
        kept["launches"] = max(kept["launches"], f["launches"])
    return out


def _attach_findings(findings: pl.DataFrame, groups: list[Kernel], weight: dict[int, int]) -> None:
    """Each kernel's findings, one per problem, with the number of launches it fired on; only
    the representatives' rows are read (a group's members have the same findings)."""
    merged: dict[tuple, dict[str, Any]] = {}
    covered: dict[tuple, dict[str, Any]] = {}
    # lazy, so only the columns scanned are copied (not a long profile's texts)
    rows = findings.lazy().with_row_index("_row").filter(pl.col("launch_id").is_in(list(weight)))
    # the scan reads a few columns as tuples (each finding's key made by Polars, as
    # ``finding_key`` makes it); only the rows that speak for a kernel are read whole: a long
    # profile has hundreds of thousands of findings and a few hundred kernels
    detail = (
        pl.when(pl.col("origin") == "warpscope")
        .then(
            pl.col("evidence")
            .list.eval(
                pl.element()
                .struct.field("metric")
                .filter(pl.element().struct.field("metric").str.starts_with("stalls."))
            )
            .fill_null([])
            .list.join("\x00")
        )
        .otherwise(
            # numbers blanked in Nsight Compute's messages only (not copies of warpscope's)
            pl.when(pl.col("origin") != "warpscope")
            .then(pl.col("message"))
            .fill_null("")
            .str.replace_all(r"[0-9][0-9.,]*", "#")
        )
    )
    scan = rows.select(
        "_row",
        "launch_id",
        "origin",
        "rule_id",
        "category",
        detail.alias("_detail"),
        "covered_by",
        "estimated_speedup_pct",
        "severity",
    ).collect()
    kernel_of = pl.DataFrame(
        {
            "launch_id": [i for k in groups for i in k.launch_ids],
            "_kernel": [n for n, k in enumerate(groups) for _ in k.launch_ids],
        },
        schema={"launch_id": pl.Int64, "_kernel": pl.Int64},
    )
    # one row per kernel and problem (in the order the problems first appear), its rows in order
    # a launch stands for ``weight`` launches (its group); all 1 where nothing groups
    stands_for = (
        pl.col("launch_id").replace_strict(weight, return_dtype=pl.Int64)
        if any(w != 1 for w in weight.values())
        else pl.lit(1, pl.Int64)
    )
    problems = (
        scan.join(kernel_of, on="launch_id", maintain_order="left")
        .with_columns(
            stands_for.alias("_launches"),
            pl.when(pl.col("covered_by") != "").then(pl.col("covered_by")).alias("_covered"),
            pl.col("estimated_speedup_pct").fill_null(0.0).alias("_gain"),
            pl.col("severity")
            .cast(pl.String)
            .replace_strict(SEVERITY_RANK, default=9, return_dtype=pl.Int64)
            .fill_null(9)
            .alias("_rank"),
        )
        .group_by("_kernel", "origin", "rule_id", "category", "_detail", "_covered", maintain_order=True)
        .agg(pl.col("_launches").sum(), "_row", "_gain", "_rank")
    )
    for *key, launches, indices, gains, ranks in problems.iter_rows():
        # the instance that speaks: a later one with a larger gain or a worse severity takes over
        index, gain, rank = indices[0], gains[0], ranks[0]
        for i, g, r in zip(indices, gains, ranks, strict=True):
            if g > gain or r < rank:
                index, gain, rank = i, g, r
        row = {**findings.row(index, named=True), "launches": launches, "kernel": groups[key[0]]}
        (covered if key[-1] else merged)[tuple(key)] = row
    for f in _one_per_ncu_rule(list(merged.values())):
        f.pop("kernel").findings.append(f)
    for f in covered.values():
        f.pop("kernel").covered.setdefault(f["covered_by"], []).append(f)
    for k in groups:
        # what matters first (severity), then what it is worth (estimated gain)
        k.findings.sort(
            key=lambda f: (
                SEVERITY_RANK.get(f["severity"], len(SEVERITY_RANK)),
                f["estimated_speedup_pct"] is None,
                -(f["estimated_speedup_pct"] or 0),
                f["rule_id"] or "",
            )
        )
