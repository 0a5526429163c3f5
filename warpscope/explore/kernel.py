"""Everything the kernel view shows about one kernel (a group of launches), headless.

Built from the analysed profile restricted to the kernel's launches, with the same
grouping, averaging and finding merge as the reports (``warpscope.report.kernels``),
plus the occupancy calculator's what-if and sweeps, source hot spots and the timeline.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from warpscope.model.profile import Profile
from warpscope.occupancy.advice import Change, what_would_help
from warpscope.occupancy.calculator import Occupancy
from warpscope.occupancy.sweeps import sweep
from warpscope.report.kernels import Kernel, kernels

#: source counters that say where time goes, hottest-first order (ncu source page, emulator)
HOT_COUNTERS = (
    "Warp Stall Sampling (All Samples)",
    "# Samples",
    "Instructions Executed",
    "warp_instructions",
)
#: counters shown beside the code when present, in this order
SOURCE_COUNTERS = (
    "Warp Stall Sampling (All Samples)",
    "Instructions Executed",
    "Avg. Threads Executed",
    "L2 Theoretical Sectors Global Excessive",
    "L1 Wavefronts Shared Excessive",
    "warp_instructions",
    "thread_instructions",
    "divergent_branches",
    "global_load_sectors",
    "global_store_sectors",
    "shared_load_bank_conflicts",
    "shared_store_bank_conflicts",
)


@dataclass
class KernelDetail:
    """One kernel as the kernel view sees it."""

    kernel: Kernel
    occupancy: Occupancy | None
    what_if: list[Change]
    source: pl.DataFrame  # hot spots: line, address, code, hot counter first, then others
    timeline: pl.DataFrame  # the first launch's timeline rows (emulated launches)
    stall_shares: pl.DataFrame  # reason, cycles_per_issue, share_pct (largest first)
    time_share_pct: float | None = None  # of all kernel time in the workspace

    @property
    def launch_id(self) -> int:
        return self.kernel.launch_ids[0]

    def sweep(self, over: str) -> pl.DataFrame:
        """Occupancy over ``over`` (block_size, registers, shared_mem), current point marked."""
        if self.occupancy is None:
            return pl.DataFrame()
        return sweep(self.occupancy, over)


def kernel_detail(profile: Profile, launch_ids: list[int]) -> KernelDetail:
    """The detail of the kernel made of ``launch_ids`` in an analysed ``profile``."""
    part = profile.subset(launch_ids)
    groups = kernels(part)
    k = groups[0]
    occ = next((v.occupancy for v in k.views if v.occupancy is not None), None)
    return KernelDetail(
        kernel=k,
        occupancy=occ,
        what_if=what_would_help(occ) if occ is not None else [],
        source=hot_spots(part.source),
        timeline=part.timeline.filter(pl.col("launch_id") == k.launch_ids[0]),
        stall_shares=stall_shares(k.stalls),
    )


def stall_shares(stalls: dict[str, float]) -> pl.DataFrame:
    """Stall reasons of a kernel, largest first, with their share of all warp cycles."""
    total = sum(v for v in stalls.values() if v > 0)
    rows = sorted(((r, v) for r, v in stalls.items() if v > 0), key=lambda rv: (-rv[1], rv[0]))
    return pl.DataFrame(
        {
            "reason": [r for r, _ in rows],
            "cycles_per_issue": [v for _, v in rows],
            "share_pct": [100 * v / total if total else 0.0 for _, v in rows],
        },
        schema={"reason": pl.String, "cycles_per_issue": pl.Float64, "share_pct": pl.Float64},
    )


def hot_spots(source: pl.DataFrame, limit: int = 200) -> pl.DataFrame:
    """Source or SASS rows of the first launch with counters, hottest first (``limit`` rows)."""
    if source.is_empty():
        return pl.DataFrame()
    first = source.filter(pl.col("launch_id") == source["launch_id"].min())
    counters = set(first["counter"].cast(pl.String).unique().to_list())
    shown = [c for c in SOURCE_COUNTERS if c in counters]
    hot = next((c for c in HOT_COUNTERS if c in counters), shown[0] if shown else None)
    if hot is None:
        return pl.DataFrame()
    ordered = [hot] + [c for c in shown if c != hot]
    values = (
        first.filter(pl.col("counter").cast(pl.String).is_in(ordered))
        .with_columns(pl.col("counter").cast(pl.String))
        .pivot(on="counter", index="row", values="value", aggregate_function="sum")
        .with_columns(pl.exclude("row").fill_null(0.0))  # a report keeps non-zero cells only
    )
    where = first.group_by("row", maintain_order=True).agg(
        pl.col("line").first(), pl.col("address").first(), pl.col("code").first()
    )
    return (
        where.join(values, on="row", how="inner")
        .select("row", "line", "address", "code", *[c for c in ordered if c in values.columns])
        .sort([hot, "row"], descending=[True, False], nulls_last=True)
        .head(limit)
    )
