"""The roofline of a launch: its floating-point work against its DRAM bytes, under the roofs.

Where a kernel sits: arithmetic intensity (flop per DRAM byte) on the x axis, achieved flop/s on
the y axis. The roofs are the DRAM bandwidth (a line of slope 1 on log-log axes) and the peak
flop/s of the precision the kernel mostly computes in; they meet at the ridge point. Left of
the ridge the bandwidth bounds the kernel, right of it the arithmetic does. The canonical
metrics (``flop``, ``dram_bytes``, the ``peak_*`` roofs) come from the importers and the
emulator; this module only places the point.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

PRECISIONS = ("fp32", "fp64", "fp16")


@dataclass(frozen=True)
class Roofline:
    """A kernel's point under its roofs."""

    precision: str  # the precision with the most flop: its roof applies
    flop: float
    dram_bytes: float
    intensity: float  # flop per DRAM byte
    achieved: float  # flop/s
    peak_flop: float  # flop/s, the precision's roof
    peak_bytes: float  # byte/s, the DRAM roof
    bound: Literal["memory", "compute"]

    @property
    def ridge(self) -> float:
        """The intensity where the two roofs meet (flop/byte)."""
        return self.peak_flop / self.peak_bytes

    @property
    def roof(self) -> float:
        """The attainable flop/s at the kernel's intensity: the lower roof."""
        return min(self.peak_flop, self.intensity * self.peak_bytes)

    @property
    def pct_of_roof(self) -> float:
        return 100.0 * self.achieved / self.roof if self.roof > 0 else 0.0


def roofline(metrics: Mapping[str, float]) -> Roofline | None:
    """The point of a launch (or of a kernel's mean metrics), or None where the profile lacks
    the flop, the DRAM bytes, the duration or the roofs (or the kernel does no floating point)."""
    flops = {p: metrics.get(f"{p}_flop") or 0.0 for p in PRECISIONS}
    flop = sum(flops.values())
    dram = metrics.get("dram_bytes")
    duration = metrics.get("duration_ns")
    precision = max(PRECISIONS, key=lambda p: flops[p])
    peak_flop = metrics.get(f"peak_{precision}_flop_per_s")
    peak_bytes = metrics.get("peak_dram_bytes_per_s")
    if flop <= 0 or not dram or not duration or not peak_flop or not peak_bytes:
        return None
    intensity = flop / dram
    return Roofline(
        precision=precision,
        flop=flop,
        dram_bytes=dram,
        intensity=intensity,
        achieved=flop / (duration * 1e-9),
        peak_flop=peak_flop,
        peak_bytes=peak_bytes,
        bound="memory" if intensity < peak_flop / peak_bytes else "compute",
    )
