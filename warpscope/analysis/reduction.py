"""Reductions: one thread summing a block, or shared-memory trees where warp shuffles would do.

A block reduction shows in the counters as one global store per block from a block of
several warps; what it does in between shows in lane efficiency, shared-memory traffic
and barrier stalls.
"""

from __future__ import annotations

from warpscope.analysis.divergence import lane_efficiency, one_output_per_block
from warpscope.analysis.finding import Finding, rule
from warpscope.analysis.text import num, pct
from warpscope.analysis.views import LaunchView

SERIAL_FIX = (
    "Reduce with warp shuffles: each warp adds its 32 values with `__shfl_down_sync` (5 steps, no "
    "shared memory), one warp adds the warp sums; or call cub::BlockReduce. A shared-memory tree "
    "with a __syncthreads() per step is not enough: on the H100 it saved 4.9% of a 256-thread "
    "serial reduction where shuffles saved 33%."
)
#: the share of a serial reduction's instructions whose time a warp-shuffle reduction saves.
#: Instructions run by one lane of 32 make up (1 − lane efficiency) × 32/31 of the launch's; on
#: the H100, shuffles saved 37.7% of ncu's duration (32.9% event-timed) of a 256-thread serial
#: reduction of 64-bit sums whose serial share is 79% (math-pipe bound; calibration pair p17),
#: and 32.4% of the seed's reduceSingleThread, 73% serial (latency-bound): 0.48 and 0.44
SERIAL_TO_SHUFFLE_SAVES = 0.46


def _evidence(v: LaunchView) -> dict[str, float]:
    keys = (
        "global_store_requests",
        "grid_size",
        "block_size",
        "warp_execution_efficiency_pct",
        "warp_nonpred_execution_efficiency_pct",
        "shared_load_requests",
        "shared_store_requests",
    )
    return v.known(*keys)


@rule(
    "serial_reduction",
    "reduction",
    checklist=("C9",),
    speedup="0.46 × the serial instructions' share of the launch's instructions ((1 − lowest lane "
    "efficiency / 100) × 32/31: one lane of 32 does the block's work): a warp-shuffle reduction saves "
    "about half the time they take (its shuffle chain and barrier take the rest; calibration pair "
    "p17 and the seed's reduceSingleThread)",
    evidence="one global store per block, warp execution efficiency, shared loads and stores",
    threshold="one store per block and lane efficiency < 50%",
    severity="high: estimate ≥ 20%; medium: ≥ 10%; else low",
)
def serial_reduction(v: LaunchView) -> Finding | None:
    """One output per block with under half the lanes busy: one thread sums the block."""
    eff = lane_efficiency(v)
    if not one_output_per_block(v) or eff is None or eff[0] >= 50:
        return None
    low = eff[0]
    size = v.block_size
    serial_share = min(1.0, (1 - low / 100) * 32 / 31)
    gain = 100 * min(v.floor_ceiling, SERIAL_TO_SHUFFLE_SAVES * serial_share)
    return Finding(
        severity="high" if gain >= 20 else "medium" if gain >= 10 else "low",
        title="reduction done by one thread",
        message=f"One global store per block ({num(v.get('global_store_requests') or 0)} for {num(v.grid_size or 0)} "
        f"blocks) and {num(32 * low / 100, 1)} of 32 lanes busy on average: one thread adds up "
        f"the block while the other {num(size - 1) if size else 'threads'} wait.",
        why="A serial loop in one thread uses 1 of the warp's 32 lanes and 1 warp of the block; "
        "a parallel tree finishes in log2(block size) steps.",
        fix=SERIAL_FIX,
        threshold="one store per block and lane efficiency < 50%",
        evidence=_evidence(v),
        estimated_speedup_pct=gain,
    )


@rule(
    "shared_memory_tree_reduction",
    "reduction",
    checklist=("C9",),
    speedup="min((barrier + ½ short-scoreboard stall cycles) / all warp cycles per issued instruction, "
    "1 − issue-slot utilization / 90%) × 100: the time warps wait at __syncthreads() between steps, "
    "and the half of the shared-memory round trips that shuffles do not keep",
    evidence="one global store per block, shared loads and stores, barrier stalls",
    threshold="one store per block, shared loads and stores, barriers",
    severity="medium: barrier stalls ≥ 10% of warp cycles; else low",
)
def shared_memory_tree_reduction(v: LaunchView) -> Finding | None:
    """A block reduction through shared memory with a barrier per step."""
    eff = lane_efficiency(v)
    if not one_output_per_block(v) or (eff is not None and eff[0] < 50):
        return None
    if not v.get("shared_load_requests") or not v.get("shared_store_requests"):
        return None
    barrier = v.stall_share("barrier")
    if not barrier and not v.get("barriers_per_block"):
        return None
    exchange = v.stall_share("short_scoreboard") or 0.0  # waiting on the tree's shared loads
    size = v.block_size
    steps = f"{(size or 2).bit_length() - 1} steps" if size else "one step per halving"
    evidence = _evidence(v)
    if barrier is not None:
        evidence["stalls.barrier"] = v.stalls["barrier"]
    waits = f"; warps spend {pct(100 * barrier, 0)} of their cycles at the barriers" if barrier else ""
    return Finding(
        severity="medium" if barrier is not None and barrier >= 0.10 else "low",
        title="shared-memory tree reduction",
        message=f"One global store per block after a shared-memory tree ({steps}, each "
        f"followed by __syncthreads()){waits}.",
        why="The last five steps of the tree run inside one warp, yet still go through shared "
        "memory and a block-wide barrier; warp shuffles exchange registers directly.",
        fix="Reduce each warp's 32 values in registers with `__shfl_down_sync` (5 steps, no "
        "barrier), write one value per warp to shared memory, and let the first warp reduce "
        "those with shuffles again: one __syncthreads() instead of one per step.",
        threshold="one store per block, shared loads and stores, barriers",
        evidence=evidence,
        estimated_speedup_pct=100 * v.capped(barrier + SHUFFLE_KEEPS * exchange) if barrier else None,
    )


#: the share of the shared-memory exchange stalls (short scoreboard) a shuffle tree still waits:
#: shuffles go through the same MIO path. Measured on the H100: a 256-thread shared tree → warp
#: shuffles saved 29.5% with barrier 14% and short scoreboard 32% of warp cycles (calibration
#: pair p20), and 27.2% with 16% and 27% (the seed's reduceSequential → reduceShuffle)
SHUFFLE_KEEPS = 0.5
