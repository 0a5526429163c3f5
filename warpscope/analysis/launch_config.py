"""Launch configuration: block size, grid size against the SMs, the partial last wave."""

from __future__ import annotations

import math

from warpscope.analysis.finding import Finding, rule
from warpscope.analysis.text import num, pct
from warpscope.analysis.views import LaunchView
from warpscope.occupancy.advice import what_would_help

WARP = 32


@rule(
    "block_size_not_warp_multiple",
    "launch_config",
    ncu=("LaunchConfiguration",),
    checklist=("C1",),
    speedup="(1 / warps per block) × (1 − threads in the last warp / 32) × 100: "
    "the idle lanes of every block's ragged last warp",
    evidence="block size",
    threshold="block size mod 32 ≠ 0",
    severity="medium: estimate ≥ 5%; else low",
)
def block_size_not_warp_multiple(v: LaunchView) -> Finding | None:
    """The block size is not a multiple of 32: every block's last warp runs with idle lanes."""
    size = v.block_size
    if size is None or size % WARP == 0:
        return None
    warps = -(-size // WARP)
    last = size - (warps - 1) * WARP
    gain = 100.0 / warps * (1.0 - last / WARP)
    up = warps * WARP
    other = f" (or {up - WARP})" if up > WARP else ""
    return Finding(
        severity="medium" if gain >= 5 else "low",
        title="block size not a multiple of 32",
        message=f"{size} threads per block = {warps} warps, the last with {last} of 32 lanes: "
        f"{WARP - last} lanes idle in every block.",
        why="The GPU runs whole warps of 32 threads; a partial last warp still takes a full "
        "warp's issue slots and registers.",
        fix=f"Use {up}{other} threads per block and keep the bounds check (`if (i < n)`) "
        "for the elements past the end.",
        threshold="block size mod 32 ≠ 0",
        evidence={"block_size": size},
        estimated_speedup_pct=gain,
    )


@rule(
    "block_size_outside_128_256",
    "launch_config",
    checklist=("C2",),
    speedup="blocks > 256 at ≥ 80% theoretical occupancy: min((theoretical − achieved) / theoretical occupancy, "
    "1 − issue-slot use / 90%, "
    "1 − busiest throughput / 90%, 1 − DRAM throughput / 60%) × 100: the warp slots big blocks leave "
    "empty while they drain and start, as far as latency hiding pays; smaller blocks: none",
    evidence="block size, block shape, barrier stalls",
    threshold="block size < 128 with no block-slot cost, or > 256",
    severity="medium: ≥ 512 threads with barrier stalls ≥ 10% of warp cycles; else low",
)
def block_size_outside_128_256(v: LaunchView) -> Finding | None:
    """A block outside the 128–256 starting range with no visible reason for it."""
    size = v.block_size
    if size is None or size % WARP or 128 <= size <= 256:
        return None
    occ = v.occupancy
    if size < 128 and occ is not None and "blocks" in occ.limiters and occ.occupancy_pct < 100:
        return None  # blocks_too_small_for_sm says it with numbers
    evidence: dict[str, float] = {"block_size": size}
    barrier = v.stall_share("barrier")
    if size < 128:
        theo = v.get("theoretical_occupancy_pct")
        cost = (
            f"it costs nothing visible here (theoretical occupancy {pct(theo)})"
            if theo is not None and theo >= 100
            else ""
        )
        return Finding(
            severity="low",
            title=f"small blocks ({size} threads)",
            message=f"{size} threads per block" + (f": {cost}." if cost else "."),
            why="Small blocks use many of the SM's block slots and give each block's "
            "__syncthreads() few warps to overlap; 128–256 threads is the usual start.",
            fix="Try 128 or 256 threads per block (same total threads, fewer blocks) and keep "
            "whichever is faster.",
            threshold="block size < 128",
            evidence=evidence,
        )
    shaped = v.block[0] is not None and v.block[1] is not None and v.block[1] > 1 and v.block[0] % WARP == 0
    heavy_sync = size >= 512 and barrier is not None and barrier >= 0.10
    if barrier is not None:
        evidence["stalls.barrier"] = v.stalls["barrier"]
        evidence["warp_cycles_per_issued_instruction"] = v.cycles_per_issue or 0.0
    reason = (
        f"a {v.block[0]}×{v.block[1]} block matches a {v.block[0]}-wide tile"
        if shaped
        else "no tile shape explains it"
    )
    sync = (
        f"; warps spend {pct(100 * (barrier or 0.0))} of their cycles waiting at __syncthreads()"
        if heavy_sync
        else ""
    )
    fix = (
        "Keep the tile but give each thread several elements: e.g. 32×8 threads for a "
        "32×32 tile, each thread handling 4 rows (fewer threads wait at each barrier)."
        if shaped
        else "Try 256 threads per block; split the work of one big block across several."
    )
    # what the big steps cost: the warp slots the SM holds empty while big blocks drain and
    # start (the achieved-occupancy gap), as far as latency hiding can still pay
    theo, achieved = v.get("theoretical_occupancy_pct"), v.get("achieved_occupancy_pct")
    gain = None
    if theo and theo >= 80 and achieved is not None and theo > achieved:  # below 80: occupancy_limited's
        gain = 100 * v.latency_gain((theo - achieved) / theo)
        evidence |= {"theoretical_occupancy_pct": theo, "achieved_occupancy_pct": achieved}
    return Finding(
        severity="medium" if heavy_sync else "low",
        title=f"large blocks ({size} threads)",
        message=f"{size} threads per block ({reason}){sync}.",
        why="A large block waits at every __syncthreads() for its slowest warp, and the SM "
        "gains or loses residency in big steps; 128–256 threads is the usual start.",
        fix=fix,
        threshold="block size > 256",
        evidence=evidence,
        estimated_speedup_pct=gain,
    )


@rule(
    "blocks_too_small_for_sm",
    "launch_config",
    ncu=("TheoreticalOccupancy",),
    checklist=("C2", "C11"),
    speedup="min(1 − achieved (else theoretical) occupancy / 100, 1 − issue-slot utilization, "
    "1 − busiest throughput / 90%) × 100: warp slots the tiny blocks leave empty, counted only "
    "while issue slots idle and up to the roof",
    evidence="block size, the block-slot limit, theoretical occupancy",
    threshold="block-slot limit binds and theoretical occupancy < 100% (never with fewer blocks than SMs)",
    severity="high: theoretical occupancy ≤ 50%; else medium",
)
def blocks_too_small_for_sm(v: LaunchView) -> Finding | None:
    """Blocks so small that the SM's block slots run out before its warp slots do."""
    occ = v.occupancy
    if occ is None or "blocks" not in occ.limiters or occ.occupancy_pct >= 100:
        return None
    if v.grid_size is not None and v.sm_count and v.grid_size < v.sm_count:
        return None  # no SM gets a second block: the block-slot limit never binds (grid_smaller_than_sms)
    if occ.limiter not in ("blocks", None):
        return None
    need = -(-occ.arch.max_threads_per_sm // occ.arch.max_blocks_per_sm)
    need = -(-need // WARP) * WARP
    better = [c for c in what_would_help(occ) if c.lever == "block_size"]
    what_if = f" ({better[0].text})" if better else ""
    return Finding(
        severity="high" if occ.occupancy_pct <= 50 else "medium",
        title="blocks too small to fill the SM",
        message=f"{occ.block_size}-thread blocks: the SM holds at most {occ.arch.max_blocks_per_sm} "
        f"blocks = {occ.active_warps_per_sm} of {occ.arch.max_warps_per_sm} warps, "
        f"theoretical occupancy {pct(occ.occupancy_pct)}.",
        why="An SM runs a limited number of blocks at once; tiny blocks use up those slots "
        "while warp slots stay empty, so fewer warps are there to hide latency.",
        fix=f"Use at least {need} threads per block ({occ.arch.max_threads_per_sm} threads / "
        f"{occ.arch.max_blocks_per_sm} block slots); 128–256 is the usual choice{what_if}.",
        threshold="block-slot limit binds and theoretical occupancy < 100%",
        evidence={
            "block_size": occ.block_size,
            "block_limit_blocks": occ.block_limit_blocks,
            "theoretical_occupancy_pct": round(occ.occupancy_pct, 2),
        },
        estimated_speedup_pct=100 * v.latency_gain(1 - _resident_pct(v, occ.occupancy_pct) / 100),
    )


def _resident_pct(v: LaunchView, theoretical: float) -> float:
    """The warp slots a launch keeps filled: achieved occupancy where measured (tiny blocks also
    start slowly, so it falls below the theoretical), else the theoretical."""
    achieved = v.get("achieved_occupancy_pct")
    return min(achieved, theoretical) if achieved is not None else theoretical


@rule(
    "grid_smaller_than_sms",
    "launch_config",
    ncu=("LaunchConfiguration", "SOLBottleneck"),
    checklist=("C3",),
    speedup="(1 − blocks × warps per block / (SMs × resident warps per SM)) × (1 − launch floor / "
    "duration) × 100, at most 1 − busiest throughput / 90%: the warps the GPU could hold that the "
    "grid leaves empty, of the time after the launch's fixed cost, up to "
    "the roof (without the occupancy: the share of SMs left with nothing to run)",
    evidence="grid size, SM count, block size",
    threshold="blocks < SMs",
    severity="high: half the SMs idle or more; medium: a fifth; else low",
)
def grid_smaller_than_sms(v: LaunchView) -> Finding | None:
    """Fewer blocks than SMs: part of the GPU has no work at all."""
    grid, sms = v.grid_size, v.sm_count
    if grid is None or not sms or grid >= sms:
        return None
    sms = int(sms)
    size = v.block_size
    threads = grid * size if size else None
    capacity = sms * v.occupancy.arch.max_threads_per_sm if v.occupancy else None
    if threads is not None and capacity is not None and threads < capacity:
        fix = (
            f"The whole launch is {num(threads)} threads, less than the GPU holds at once "
            f"({num(capacity)}). If each thread does a lot (a loop per row or item), spread that "
            "work over more threads: a warp or a block per row instead of a thread per row. If the "
            "problem is just small, batch such launches into one (several problems per grid) or "
            "run them concurrently (streams, CUDA Graphs)."
        )
    else:
        fix = f"Split the work into at least {2 * sms} blocks (2 × {sms} SMs): smaller blocks or fewer elements per block."
    evidence: dict[str, float] = {"grid_size": grid, "sm_count": sms}
    if size:
        evidence["block_size"] = size
    idle = (sms - grid) / sms
    return Finding(
        severity="high" if idle >= 0.5 else "medium" if idle >= 0.2 else "low",
        title="grid smaller than the SM count",
        message=f"{grid} blocks on {sms} SMs: {sms - grid} SMs ({pct(100 * (sms - grid) / sms)}) get no block.",
        why="Each block runs on one SM; with fewer blocks than SMs the rest of the GPU idles.",
        fix=fix,
        threshold="blocks < SMs (high: half the SMs idle or more; medium: a fifth)",
        evidence=evidence,
        estimated_speedup_pct=100.0 * _parallelism_gain(v, grid, sms, idle),
    )


def _parallelism_gain(v: LaunchView, grid: int, sms: int, idle_sms: float) -> float:
    """The time (0..1) more blocks could save: the resident warps the GPU could hold against the
    ones this grid brings (all of its blocks resident at once), of the time after the launch's
    fixed cost, no more than the busiest unit's distance to its roof. Without the occupancy, the idle SMs' share."""
    warps = v.warps_per_block
    occ = v.occupancy
    if not warps or occ is None or not occ.active_warps_per_sm:
        return idle_sms
    raw = max(0.0, 1.0 - grid * warps / (sms * occ.active_warps_per_sm)) * v.work_share
    headroom = v.roof_headroom
    return raw if headroom is None else min(raw, headroom)


@rule(
    "grid_few_blocks_per_sm",
    "launch_config",
    ncu=("LaunchConfiguration",),
    checklist=("C3",),
    speedup="while every block is resident at once (under 0.9 of a wave): (1 − blocks × warps per "
    "block / (SMs × resident warps per SM)) × (1 − launch floor / duration) × 100, at most 1 − "
    "busiest throughput / 90%",
    evidence="grid size, SM count, waves per SM",
    threshold="1–4 blocks per SM",
    severity="medium: < 2 per SM and under 0.9 of a wave; else low",
)
def grid_few_blocks_per_sm(v: LaunchView) -> Finding | None:
    """Between 1 and 4 blocks per SM: little to switch to while blocks sync, and an uneven end."""
    grid, sms = v.grid_size, v.sm_count
    if grid is None or not sms or grid < sms or grid >= 4 * sms:
        return None
    sms = int(sms)
    per_sm = grid / sms
    waves = v.get("waves_per_sm")
    fills = waves is not None and waves >= 0.9  # every block resident at once: nothing left waiting
    return Finding(
        severity="medium" if grid < 2 * sms and not fills else "low",
        title=f"only {num(per_sm, 1)} blocks per SM",
        message=f"{grid} blocks on {sms} SMs = {num(per_sm, 2)} blocks per SM.",
        why="With under 2–4 blocks per SM an SM has nothing else to run while a block waits at "
        "__syncthreads(), and SMs that finish early stay idle until the launch ends.",
        fix=f"Aim for {2 * sms}–{4 * sms} blocks or more (2–4 × {sms} SMs): smaller blocks or less work per block.",
        threshold="blocks < 2 × SMs and under 0.9 of a wave (medium), < 4 × SMs (low)",
        evidence={"grid_size": grid, "sm_count": sms},
        estimated_speedup_pct=100.0 * _parallelism_gain(v, grid, sms, 0.0) if not fills else None,
    )


@rule(
    "tail_effect",
    "tail_effect",
    ncu=("LaunchConfiguration",),
    checklist=("C3",),
    speedup="(1 − f) / (W + 1) × 100 for W full waves and a last wave that is f full: "
    "the SM time the partial last wave leaves idle; at most the SM time measured idle "
    "(1 − SM active cycles / elapsed cycles)",
    evidence="waves per SM, grid size, SM count, SM active and elapsed cycles",
    threshold="partial last wave costing ≥ 5% of the kernel time",
    severity="medium: estimate ≥ 15%; else low",
)
def tail_effect(v: LaunchView) -> Finding | None:
    """A partial last wave: for its whole duration most SMs have nothing to do."""
    waves = v.get("waves_per_sm")
    grid, sms = v.grid_size, v.sm_count
    if grid and sms and v.occupancy and v.occupancy.active_blocks_per_sm:
        # exactly, from the grid: a file rounds waves (1.00 for one wave and one block)
        waves = grid / (int(sms) * v.occupancy.active_blocks_per_sm)
    if waves is None or waves < 1:
        return None
    whole = math.floor(waves)
    part = waves - whole
    if part < 1e-6:
        return None
    gain = 100.0 * (1.0 - part) / (whole + 1)
    evidence: dict[str, float] = {"waves_per_sm": waves}
    active, elapsed = v.get("sm_active_cycles"), v.get("elapsed_cycles")
    if active is not None and elapsed:
        # the SM time the launch measured idle is all a tail fix can reclaim (blocks of the last
        # wave run faster alone: less contention for DRAM and L2 than the model's full waves)
        gain = min(gain, 100.0 * max(0.0, 1.0 - active / elapsed))
        evidence |= {"sm_active_cycles": active, "elapsed_cycles": elapsed}
    if gain < 5:
        return None
    fix = "Size the grid to whole waves, or make more, shorter waves (more blocks with less work each)."
    if grid and v.occupancy and sms:
        per_wave = int(sms) * v.occupancy.active_blocks_per_sm
        evidence |= {"grid_size": grid, "sm_count": sms}
        fix = (
            f"One wave is {per_wave} blocks ({int(sms)} SMs × {v.occupancy.active_blocks_per_sm} "
            f"resident): {grid} blocks = {whole} full waves + {pct(100 * part, 0)} of one. Use "
            f"{whole * per_wave} or {(whole + 1) * per_wave} blocks (a grid-stride loop lets any "
            "grid cover the data), or many more waves so the tail matters less."
        )
    return Finding(
        severity="medium" if gain >= 15 else "low",
        title="partial last wave (tail effect)",
        message=f"{num(waves, 2)} waves per SM: the last wave fills {pct(100 * part, 0)} of the GPU.",
        why="Blocks run in waves of what the SMs hold at once; during the last, partial wave "
        "most SMs sit idle.",
        fix=fix,
        threshold="partial last wave costing ≥ 5% of the kernel time",
        evidence=evidence,
        estimated_speedup_pct=gain,
    )
