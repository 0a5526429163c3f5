"""The roofline of a launch: its floating-point work against its DRAM bytes, under the roofs.

Where a kernel sits: arithmetic intensity (flop per DRAM byte) on the x axis, achieved flop/s on
the y axis. The roofs are the DRAM bandwidth (a line of slope 1 on log-log axes) and the peak
flop/s of the precision the kernel mostly computes in; they meet at the ridge point. Left of
the ridge the bandwidth bounds the kernel, right of it the arithmetic does. The canonical
metrics (``flop``, ``dram_bytes``, the ``peak_*`` roofs) come from the importers and the
emulator; this module only places the point.

Beside it, the hierarchical rooflines of Nsight Compute's SpeedOfLight_Hierarchical*Roofline
charts: the same work against the L1, L2 and DRAM bytes, each under its level's bandwidth, for
the SIMT precision (``hierarchical_roofline``) and for each tensor-core path against its own
peak (``tensor_rooflines``); ``main_roofline`` is the pipe a launch uses the most, and its
``bound`` the roof that binds it (``L1``, ``L2``, ``DRAM`` or ``compute``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from warpscope.model.tensor_paths import TENSOR_PATHS

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


# -- hierarchical and tensor-core rooflines ------------------------------------------------------

Level = Literal["L1", "L2", "DRAM"]
Bound = Literal["L1", "L2", "DRAM", "compute"]

#: the memory levels of Nsight Compute's hierarchical rooflines, nearest the SM first:
#: (level, the catalog id of its bytes, of its bandwidth roof)
LEVELS: tuple[tuple[Level, str, str], ...] = (
    ("L1", "l1_writeback_bytes", "peak_l1_bytes_per_s"),
    ("L2", "l2_xbar_bytes", "peak_l2_bytes_per_s"),
    ("DRAM", "dram_bytes", "peak_dram_bytes_per_s"),
)


@dataclass(frozen=True)
class LevelPoint:
    """The work of one pipe against one memory level: its intensity there and that level's roof."""

    level: Level
    bytes: float  # what the level moved (L1: returned to the SMs; L2: sent to the crossbar)
    intensity: float  # work per byte of this level
    achieved: float  # work/s, the same at every level
    peak_work: float  # work/s, the pipe's roof
    peak_bytes: float  # byte/s, this level's roof

    @property
    def ridge(self) -> float:
        """The intensity where this level's bandwidth roof meets the pipe's roof (work/byte)."""
        return self.peak_work / self.peak_bytes

    @property
    def roof(self) -> float:
        """The attainable work/s at this intensity: the lower of the two roofs."""
        return min(self.peak_work, self.intensity * self.peak_bytes)

    @property
    def pct_of_roof(self) -> float:
        return 100.0 * self.achieved / self.roof if self.roof > 0 else 0.0

    @property
    def memory_bound(self) -> bool:
        """Left of the ridge: this level's bandwidth, not the pipe, is the roof here."""
        return self.intensity < self.ridge


@dataclass(frozen=True)
class HierarchicalRoofline:
    """One pipe's work (SIMT floating point, or one tensor-core path) under the roofs of every
    memory level the profile states, as Nsight Compute's hierarchical roofline charts draw it."""

    pipe: str  # "fp32", "fp64", "fp16" (SIMT), or a tensor path's label ("tf32 HGMMA")
    precision: str  # the operands: fp32, fp64, fp16, bf16, tf32, fp8, int8
    tensor: bool
    work: float  # flop (SIMT) or tensor operations (a multiply-add counts 2)
    achieved: float  # work/s over the launch's duration
    peak_work: float  # work/s: the pipe's roof
    levels: tuple[LevelPoint, ...]  # L1, L2, DRAM: those with bytes and a roof, in that order

    @property
    def unit(self) -> str:
        """What ``work`` counts: ``flop`` or ``op``."""
        return "op" if self.tensor else "flop"

    @property
    def binding(self) -> LevelPoint:
        """The level whose roof is the lowest at its intensity (the highest % of roof): the
        one a kernel meets first."""
        return min(self.levels, key=lambda lv: lv.roof)

    @property
    def bound(self) -> Bound:
        """What binds: the binding level's bandwidth where the work is left of that level's
        ridge, else the pipe's own peak (``compute``)."""
        b = self.binding
        return b.level if b.memory_bound else "compute"

    @property
    def pct_of_roof(self) -> float:
        """Achieved work/s over the lowest roof: how close the kernel runs to what binds it."""
        return self.binding.pct_of_roof

    def level(self, name: Level) -> LevelPoint | None:
        return next((lv for lv in self.levels if lv.level == name), None)


def _under_levels(
    metrics: Mapping[str, float],
    pipe: str,
    precision: str,
    tensor: bool,
    work: float,
    peak_work: float | None,
) -> HierarchicalRoofline | None:
    duration = metrics.get("duration_ns")
    if work <= 0 or not duration or not peak_work:
        return None
    achieved = work / (duration * 1e-9)
    levels = tuple(
        LevelPoint(level, b, work / b, achieved, peak_work, peak)
        for level, bytes_id, peak_id in LEVELS
        if (b := metrics.get(bytes_id) or 0.0) > 0 and (peak := metrics.get(peak_id))
    )
    if not levels:
        return None
    return HierarchicalRoofline(pipe, precision, tensor, work, achieved, peak_work, levels)


def hierarchical_roofline(metrics: Mapping[str, float]) -> HierarchicalRoofline | None:
    """The SIMT floating-point work of a launch (or of a kernel's mean metrics) under the L1,
    L2 and DRAM roofs: the precision with the most flop, counted and roofed as Nsight Compute's
    Hierarchical Single/Double/Half Precision Roofline Chart does (that precision's flop only).
    None where the profile lacks the flop, the duration, the pipe's roof or every level's bytes."""
    flops = {p: metrics.get(f"{p}_flop") or 0.0 for p in PRECISIONS}
    precision = max(PRECISIONS, key=lambda p: flops[p])
    return _under_levels(
        metrics, precision, precision, False, flops[precision], metrics.get(f"peak_{precision}_flop_per_s")
    )


def tensor_rooflines(metrics: Mapping[str, float]) -> list[HierarchicalRoofline]:
    """The tensor-core work of a launch under the L1, L2 and DRAM roofs: one point per dense
    path it ran (``warpscope.model.tensor_paths``), against that path's own roof, as Nsight
    Compute's Hierarchical Tensor Roofline Chart draws them."""
    out = []
    for path in TENSOR_PATHS:
        point = _under_levels(
            metrics,
            path.label,
            path.precision,
            True,
            metrics.get(path.ops_id) or 0.0,
            metrics.get(path.peak_id),
        )
        if point is not None:
            out.append(point)
    return out


def rooflines(metrics: Mapping[str, float]) -> list[HierarchicalRoofline]:
    """Every point of a launch: its SIMT floating-point work, then each tensor path's."""
    simt = hierarchical_roofline(metrics)
    return ([simt] if simt is not None else []) + tensor_rooflines(metrics)


def main_roofline(metrics: Mapping[str, float]) -> HierarchicalRoofline | None:
    """The point of the pipe a launch uses the most (achieved work/s over that pipe's peak):
    for a tf32 convolution its tensor path, not the few FP32 flop of its epilogue. Its
    ``bound`` says which roof binds (L1, L2, DRAM or compute) and ``pct_of_roof`` how close
    the launch runs to it. (At a memory-bound level the % of roof is that level's bandwidth
    use, whichever pipe: choosing the pipe by its % of roof would be a coin toss.)"""
    points = rooflines(metrics)
    return max(points, key=lambda r: r.achieved / r.peak_work) if points else None
