"""Warp divergence: lanes a warp carries but does not use."""

from __future__ import annotations

from warpscope.analysis.finding import Finding, Severity, rule
from warpscope.analysis.text import num, pct
from warpscope.analysis.views import LaunchView

LINE = 75.0  # Nsight Compute's line: fewer than 24 of 32 threads active per warp instruction
#: the share of the idle lanes' cost a fix wins back: the remapping or sorting it needs costs
#: instructions and strided accesses of its own. Measured on the H100 (ncu's durations): a
#: branch on the warp instead of the lane's parity 0.82 of the idle lanes (pair p02), a four-way
#: switch grouped by warp 0.90 (v05), sorted data 1.0 (the seed's withDivergence); reading
#: through a sorted index instead 0.49 (p01): the median of the four, 0.86
DIVERGENCE_FIX_KEEPS = 0.86


def one_output_per_block(v: LaunchView) -> bool:
    """One global store per block from a block of several warps: a block reduction."""
    per_block = v.stores_per_block()
    return per_block is not None and 0 < per_block <= 1.0 + 1e-9 and (v.warps_per_block or 0) > 1


def lane_efficiency(v: LaunchView) -> tuple[float, float | None, float | None] | None:
    """(lowest, active, predicated-on) efficiency in %, from what the profile has."""
    active = v.get("warp_execution_efficiency_pct")
    pred = v.get("warp_nonpred_execution_efficiency_pct")
    known = [x for x in (active, pred) if x is not None]
    return (min(known), active, pred) if known else None


@rule(
    "warp_divergence",
    "divergence",
    ncu=("ThreadDivergence",),
    checklist=("C4",),
    speedup="(1 − lowest lane efficiency / 100) × SM throughput % × 0.86: the idle lanes, weighted "
    "by how busy the SM is (Nsight Compute's estimate), less what the remapping or sorting costs "
    "(calibration pairs p01, p02, v05 and the seed's withDivergence)",
    evidence="warp execution efficiency (and predicated-on), branch efficiency, divergent branches, SM throughput",
    threshold="< 24 of 32 lanes active or predicated on (75%)",
    severity="high: estimate ≥ 20% (or no SM throughput and < 16 lanes); medium: ≥ 10%; else low",
)
def warp_divergence(v: LaunchView) -> Finding | None:
    """Fewer than 24 of 32 lanes active (or predicated on) per warp instruction."""
    eff = lane_efficiency(v)
    if eff is None or eff[0] >= LINE:
        return None
    low, active, pred = eff
    evidence = v.known(
        "warp_execution_efficiency_pct",
        "warp_nonpred_execution_efficiency_pct",
        "divergent_branches",
        "branch_efficiency_pct",
        "sm_throughput_pct",
    )
    lanes = 32 * low / 100
    if active is not None and active >= LINE and pred is not None:
        seen = (
            f"{num(active, 1)}% of lanes are active but only {num(pred, 1)}% predicated on: the "
            "compiler turned branches into predicated code, so masked lanes cost the same as idle ones"
        )
    else:
        seen = f"on average {num(lanes, 1)} of 32 lanes do work per warp instruction ({pct(low)})"
        branches = v.get("divergent_branches")
        if branches:
            seen += f"; {num(branches)} divergent branches"
    if one_output_per_block(v):
        fix = (
            "In a block reduction lanes idle as the tree narrows: add several inputs per thread "
            "before the tree, and finish the last 32 values with __shfl_down_sync instead of "
            "shared-memory steps."
        )
    else:
        fix = (
            "Make the condition uniform per warp: branch on the warp index (`(tid / 32) % 2`), not "
            "the lane (`tid % 2`); sort or bin the data itself so a warp sees one case "
            "(withDivergence on an H100: 62.5 µs on random data, 35.7 µs sorted) — reading it "
            "through a sorted index instead gathers scattered sectors and keeps less (22% of the "
            "time saved where the idle lanes accounted for 45%); for short branches compute both sides "
            "and select."
        )
    sm = v.get("sm_throughput_pct")
    gain = (1 - low / 100) * (sm if sm is not None else 100.0) * DIVERGENCE_FIX_KEEPS
    severity: Severity = (
        "high" if gain >= 20 or (sm is None and low < 50) else "medium" if gain >= 10 else "low"
    )
    return Finding(
        severity=severity,
        title=f"warp divergence: {num(lanes, 1)} of 32 lanes busy",
        message=seen[0].upper() + seen[1:] + ".",
        why="The 32 threads of a warp run one instruction at a time; when they take different "
        "paths the paths run one after the other with the other lanes masked off.",
        fix=fix,
        threshold="< 24 of 32 lanes active or predicated on (75%)",
        evidence=evidence,
        estimated_speedup_pct=gain,
    )


@rule(
    "bounds_check_divergence",
    "divergence",
    checklist=("C4",),
    evidence="divergent branches, warp execution efficiency, grid size",
    threshold="divergent branches ≤ blocks and lane efficiency ≥ 90%",
    severity="info: explains, asks for no change",
)
def bounds_check_divergence(v: LaunchView) -> Finding | None:
    """A few divergent branches with nearly full warps: a bounds check or tail, harmless."""
    eff = lane_efficiency(v)
    branches, warps, grid = v.get("divergent_branches"), v.warps_per_block, v.grid_size
    if eff is None or not branches or eff[0] < 90 or not warps or not grid:
        return None
    if branches > grid:
        return None
    return Finding(
        severity="info",
        title="divergence from a bounds check (harmless)",
        message=f"{num(branches)} divergent branches for {num(grid)} blocks, lane efficiency {pct(eff[0])}: "
        "only a few warps split, as a bounds check (`if (i < n)`) or the last partial warp does.",
        why="Divergence costs time only when many warps split for long; one split warp per block "
        "at the edge of the data costs almost nothing.",
        fix="Nothing to change; keep the bounds check.",
        threshold="divergent branches ≤ blocks and lane efficiency ≥ 90%",
        evidence=v.known("divergent_branches", "grid_size", "warp_execution_efficiency_pct"),
    )
