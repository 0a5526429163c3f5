"""Everything the kernel view shows about one kernel (a group of launches), headless.

Built from the analysed profile restricted to the kernel's launches, with the same
grouping, averaging and finding merge as the reports (``warpscope.report.kernels``),
plus the occupancy calculator's what-if and sweeps, source hot spots and the timeline.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from warpscope.explore.source_view import SourceListing
from warpscope.model.profile import Profile
from warpscope.occupancy.advice import Change, what_would_help
from warpscope.occupancy.calculator import Occupancy
from warpscope.occupancy.sweeps import sweep
from warpscope.report.kernels import Kernel, kernels


@dataclass
class KernelDetail:
    """One kernel as the kernel view sees it."""

    kernel: Kernel
    occupancy: Occupancy | None
    what_if: list[Change]
    source: pl.DataFrame  # hot spots: line, address, code, hot counter first, then others
    listing: SourceListing  # every line and instruction, for the Source tab
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
    listing = SourceListing.of(part.source)
    groups = kernels(part)
    k = groups[0]
    occ = k.view.occupancy if k.view is not None else None
    return KernelDetail(
        kernel=k,
        occupancy=occ,
        what_if=what_would_help(occ) if occ is not None else [],
        source=hot_spots(listing),
        listing=listing,
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


def hot_spots(listing: SourceListing, limit: int = 200) -> pl.DataFrame:
    """Source lines (or instructions) of the first launch with counters, hottest first, each
    once (``limit`` rows): ``row`` (source order), line, address, code, the counters."""
    if listing.is_empty():
        return pl.DataFrame()
    return (
        listing.ordered("hottest")
        .head(limit)
        .select(pl.col("order").cast(pl.Int64).alias("row"), "line", "address", "code", *listing.counters)
    )
