"""The kernel table: one row per launch, grouped into one row per kernel, column-wise.

The TUI sorts, filters and regroups these frames on every keystroke, so nothing here
loops over launches in Python: 100k launches group, sort and filter in milliseconds.
The frames, the grouping into kernels, the worst finding and the time share are the
reports' (``warpscope.report.kernel_groups``); this module adds the columns and the table.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from warpscope.explore.stated import StatedMetrics
from warpscope.model.catalog import BY_ID as CATALOG
from warpscope.model.profile import Profile
from warpscope.report.kernel_groups import (
    group_kernels,
    launch_frame,
    pivot_metrics,
    with_worst_findings,
)


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
        frame = with_worst_findings(self.launches, findings)
        return KernelTable(frame, self.metrics, self._extra, self.stated)

    def metric(self, metric_id: str) -> pl.Series:
        """One metric per launch, in the order of ``launches`` (null where absent): a canonical
        id, else a name as the file exported it, in base units."""
        if metric_id in self.launches.columns:
            return self.launches[metric_id]
        if metric_id not in self._extra:
            if metric_id not in CATALOG and self.stated is not None:
                values = self.stated.values(metric_id).rename({"value": metric_id})
            else:
                values = pivot_metrics(self.metrics, (metric_id,))
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
