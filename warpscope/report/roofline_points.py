"""Every kernel of a profile on the roofline (the TUI's roofline screen and the report's figure)."""

from __future__ import annotations

from dataclasses import dataclass

from warpscope.analysis.roofline import (
    HierarchicalRoofline,
    Roofline,
    hierarchical_roofline,
    main_roofline,
    roofline,
    tensor_rooflines,
)
from warpscope.model.profile import Profile
from warpscope.report.kernels import kernels


@dataclass(frozen=True)
class KernelPoint:
    """A kernel (one launch configuration, all its launches) and its points."""

    number: int  # its row in the kernel table order (most time first), from 1
    kernel_short: str
    launch_ids: list[int]
    time_share_pct: float | None
    point: Roofline | None  # its flop under the DRAM roofline; None: tensor-core work only
    label: str  # what the plot writes beside the point
    main: HierarchicalRoofline | None = None  # its main pipe under the L1, L2 and DRAM roofs
    levels: HierarchicalRoofline | None = None  # its SIMT flop under the L1, L2 and DRAM roofs
    tensor: tuple[HierarchicalRoofline, ...] = ()  # each tensor path it ran, under its roofs


def kernel_points(profile: Profile) -> list[KernelPoint]:
    """The kernels that have a roofline point (DRAM, or only tensor-core work), the most time
    first (means over launches)."""
    out = []
    for i, k in enumerate(kernels(profile), 1):
        r = roofline(k.metrics)
        tensor = tuple(tensor_rooflines(k.metrics))
        if r is not None or tensor:
            out.append(
                KernelPoint(
                    i,
                    k.kernel_short or k.kernel,
                    list(k.launch_ids),
                    k.time_share_pct,
                    r,
                    str(i),
                    main_roofline(k.metrics),
                    hierarchical_roofline(k.metrics),
                    tensor,
                )
            )
    return out
