"""Every kernel of a profile on the roofline (the TUI's roofline screen and the report's figure)."""

from __future__ import annotations

from dataclasses import dataclass

from warpscope.analysis.roofline import HierarchicalRoofline, Roofline, main_roofline, roofline
from warpscope.model.profile import Profile
from warpscope.report.kernels import kernels


@dataclass(frozen=True)
class KernelPoint:
    """A kernel (one launch configuration, all its launches) and its point."""

    number: int  # its row in the kernel table order (most time first), from 1
    kernel_short: str
    launch_ids: list[int]
    time_share_pct: float | None
    point: Roofline
    label: str  # what the plot writes beside the point
    main: HierarchicalRoofline | None = None  # its main pipe under the L1, L2 and DRAM roofs


def kernel_points(profile: Profile) -> list[KernelPoint]:
    """The kernels that have a roofline point, the most time first (means over launches)."""
    out = []
    for i, k in enumerate(kernels(profile), 1):
        r = roofline(k.metrics)
        if r is not None:
            out.append(
                KernelPoint(
                    i,
                    k.kernel_short or k.kernel,
                    list(k.launch_ids),
                    k.time_share_pct,
                    r,
                    str(i),
                    main_roofline(k.metrics),
                )
            )
    return out
