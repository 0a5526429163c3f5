"""What bounds the kernel (memory, compute or latency) and which warp stalls explain it."""

from __future__ import annotations

from warpscope.analysis.finding import Finding, rule
from warpscope.analysis.text import num, pct
from warpscope.analysis.views import LaunchView

# reason -> (what the warp waits for, the fix); Nsight Compute's taxonomy
STALLS: dict[str, tuple[str, str]] = {
    "long_scoreboard": (
        "data from global or local memory (L1TEX)",
        "coalesce the accesses, reuse data through shared memory (tiling), keep more "
        "independent loads in flight per thread (unrolling, float4 loads)",
    ),
    "short_scoreboard": (
        "shared memory or special-function results (MIO)",
        "remove shared-memory bank conflicts, keep hot values in registers",
    ),
    "mio_throttle": (
        "a full MIO queue (shared memory, special math, shuffles)",
        "fewer, wider shared-memory accesses (float2/float4), fewer bank conflicts",
    ),
    "lg_throttle": (
        "a full local/global memory queue",
        "fewer, wider global accesses; avoid local memory (register spills, indexed arrays)",
    ),
    "barrier": (
        "other warps of the block at __syncthreads()",
        "fewer __syncthreads(), even work between barriers, smaller blocks (256)",
    ),
    "membar": ("a memory fence", "fewer or narrower fences (__threadfence_block instead of __threadfence)"),
    "math_pipe_throttle": (
        "a busy math pipe",
        "a better instruction mix: move work to another pipe "
        "(FP32 vs INT vs FP64), fewer redundant operations",
    ),
    "wait": ("a fixed-latency dependency", "more independent instructions per thread (unrolling, ILP)"),
    "not_selected": (
        "an issue slot (it was ready; another warp was picked)",
        "nothing to fix: there are enough warps (fewer would do)",
    ),
    "no_instruction": (
        "instruction fetch",
        "longer-running warps (very short kernels and big jumps miss the instruction cache)",
    ),
    "branch_resolving": ("a branch target", "fewer and more uniform branches"),
    "drain": ("its stores to finish after the last instruction", "fewer, coalesced final stores"),
    "dispatch_stall": ("the dispatcher", "usually a pipeline conflict; look at the SASS around the hot spot"),
    "tex_throttle": ("a full texture queue", "fewer texture/surface fetches or more reuse"),
    "imc_miss": ("a constant-cache miss", "make constant-memory accesses uniform across the warp"),
    "sleeping": ("nanosleep or a warp-level wait", "check spin loops"),
    "misc": ("something rare", "look at the source view's stall columns"),
}


def _throughputs(v: LaunchView) -> tuple[float, float] | None:
    sm, mem = v.get("sm_throughput_pct"), v.get("memory_throughput_pct")
    return None if sm is None or mem is None else (sm, mem)


def _stall_text(v: LaunchView, n: int = 2) -> str:
    cpi = v.cycles_per_issue
    top = v.top_stalls(n)
    if not top or not cpi:
        return ""
    parts = [
        f"{r} ({pct(100 * c / cpi, 0)} of warp cycles: waiting for {STALLS.get(r, ('?',))[0]})"
        for r, c in top
    ]
    return " Top stalls: " + "; ".join(parts) + "."


def _busiest_memory(v: LaunchView) -> tuple[str, float] | None:
    units = {
        "DRAM": v.get("dram_throughput_pct"),
        "L1TEX": v.get("l1tex_throughput_pct"),
        "L2": v.get("l2_throughput_pct"),
    }
    known = [(k, x) for k, x in units.items() if x is not None]
    return max(known, key=lambda kx: kx[1]) if known else None


def _evidence(v: LaunchView, *keys: str) -> dict[str, float]:
    return {k: v.get(k) for k in keys if v.get(k) is not None}


@rule("memory_bound", "memory_bound", ncu=("SOLBottleneck",), checklist=("C7", "C8"))
def memory_bound(v: LaunchView) -> Finding | None:
    """Memory throughput ≥ 60% of peak and well above compute: bytes bound the kernel."""
    tp = _throughputs(v)
    if tp is None:
        return None
    sm, mem = tp
    if not (mem >= 80 or (mem >= 60 and mem - sm >= 10)) or sm > mem:
        return None
    unit = _busiest_memory(v)
    where = f"; the busiest unit is {unit[0]} at {pct(unit[1])}" if unit else ""
    if unit and unit[0] == "DRAM":
        fix = (
            "Move fewer bytes: reuse data through shared-memory tiles (matmulNaive → matmulTiled), "
            "fuse kernels that pass data through DRAM, use narrower types."
        )
    else:
        fix = (
            "The traffic is in the caches: fix uncoalesced or strided accesses first (excess "
            "sectors), then reuse data in shared memory or registers instead of re-loading it."
        )
    return Finding(
        severity="medium" if mem >= 80 else "low",
        title="memory-bound" + (" (at the roof)" if mem >= 80 else ""),
        message=f"Memory throughput {pct(mem)} of peak vs compute {pct(sm)}{where}." + _stall_text(v),
        why="The kernel waits on bytes, not arithmetic: only moving fewer or better-packed bytes "
        "makes it faster; more occupancy or faster math will not.",
        fix=fix,
        threshold="memory ≥ 80%, or ≥ 60% and 10 points above compute",
        evidence=_evidence(
            v,
            "memory_throughput_pct",
            "sm_throughput_pct",
            "dram_throughput_pct",
            "l1tex_throughput_pct",
            "l2_throughput_pct",
        ),
    )


@rule("compute_bound", "compute_bound", ncu=("SOLBottleneck",), checklist=("C12",))
def compute_bound(v: LaunchView) -> Finding | None:
    """SM throughput ≥ 60% of peak and well above memory: instructions bound the kernel."""
    tp = _throughputs(v)
    if tp is None:
        return None
    sm, mem = tp
    if not (sm >= 80 or (sm >= 60 and sm - mem >= 10)) or mem > sm:
        return None
    eff = v.get("warp_execution_efficiency_pct")
    idle = (
        f" {pct(100 - eff)} of the lanes issued are idle (divergence): fix that first."
        if eff is not None and eff < 75
        else ""
    )
    return Finding(
        severity="low" if sm >= 80 else "info",
        title="compute-bound" + (" (at the roof)" if sm >= 80 else ""),
        message=f"SM throughput {pct(sm)} of peak vs memory {pct(mem)}.{idle}" + _stall_text(v),
        why="The SM's pipes are the bottleneck: only fewer or cheaper instructions help; "
        "occupancy is not the problem.",
        fix="Cut instructions: remove redundant math, use FMA and fast intrinsics where accuracy "
        "allows (`--use_fast_math`), move work from a saturated pipe to an idle one.",
        threshold="SM ≥ 80%, or ≥ 60% and 10 points above memory",
        evidence=_evidence(
            v,
            "sm_throughput_pct",
            "memory_throughput_pct",
            "issue_slot_utilization_pct",
            "warp_execution_efficiency_pct",
        ),
    )


@rule(
    "latency_bound", "latency_bound", ncu=("SOLBottleneck", "IssueSlotUtilization"), checklist=("C11", "C12")
)
def latency_bound(v: LaunchView) -> Finding | None:
    """Both SM and memory throughput under 60% of peak: warps wait rather than work."""
    tp = _throughputs(v)
    if tp is None:
        return None
    sm, mem = tp
    if sm >= 60 or mem >= 60:
        return None
    waves, issue = v.get("waves_per_sm"), v.get("issue_slot_utilization_pct")
    small = waves is not None and waves < 1
    top = v.top_stalls(1)
    if small:
        fix = "The grid does not fill the GPU: see the launch-configuration findings."
    elif top and top[0][0] in STALLS:
        fix = f"Go after the top stall, {top[0][0]}: {STALLS[top[0][0]][1]}."
    else:
        fix = "Give the schedulers more independent work: more resident warps or more ILP per thread."
    issued = f"; schedulers issue in {pct(issue)} of cycles" if issue is not None else ""
    return Finding(
        severity="low" if small else "medium",
        title="latency-bound" + (" (grid too small)" if small else ""),
        message=f"SM {pct(sm)} and memory {pct(mem)} of peak{issued}: neither is busy, warps are "
        "waiting." + _stall_text(v),
        why="With both units idle the time goes to waiting on dependencies; more independent "
        "work per scheduler (warps or instructions in flight) hides it.",
        fix=fix,
        threshold="SM and memory throughput both < 60%",
        evidence=_evidence(
            v, "sm_throughput_pct", "memory_throughput_pct", "issue_slot_utilization_pct", "waves_per_sm"
        ),
    )


@rule(
    "stall_reason",
    "stalls",
    ncu=("CPIStall",),
    checklist=("C6", "C7", "C8", "C12"),
    speedup="min(cycles in this reason / all warp cycles per issued instruction, "
    "1 − issue-slot utilization) × 100",
)
def stall_reason(v: LaunchView) -> list[Finding]:
    """One stall reason takes ≥ 30% of warp cycles while issue slots are < 80% busy."""
    cpi = v.cycles_per_issue
    issue = v.get("issue_slot_utilization_pct")
    if not cpi or (issue is not None and issue >= 80):
        return []
    out = []
    for reason, cycles in v.top_stalls(3):
        share = cycles / cpi
        if share < 0.30 or reason == "not_selected":
            continue
        waits, fix = STALLS.get(reason, ("an unlisted reason", "see the source view's stall columns"))
        store_spr = v.get("global_store_sectors_per_request")
        if reason == "drain" and store_spr is not None and store_spr > 4.4:
            fix = (
                f"the stores are uncoalesced ({num(store_spr, 1)} sectors per request), which is "
                "what keeps warps draining: coalesce them"
            )
        evidence: dict[str, float] = {"warp_cycles_per_issued_instruction": cpi, f"stalls.{reason}": cycles}
        if issue is not None:
            evidence["issue_slot_utilization_pct"] = issue
        out.append(
            Finding(
                severity="medium" if cpi > 10 else "low",
                title=f"{reason} stalls ({pct(100 * share, 0)} of warp cycles)",
                message=f"Each warp spends {num(cycles, 1)} of its {num(cpi, 1)} cycles per issued "
                f"instruction waiting for {waits}.",
                why="A stalled warp issues nothing; when most warps stall for the same reason the "
                "schedulers run out of ready warps.",
                fix=fix[0].upper() + fix[1:] + ".",
                threshold="one reason ≥ 30% of warp cycles, issue slots < 80% busy",
                evidence=evidence,
                estimated_speedup_pct=100 * v.capped(share),
            )
        )
    return out
