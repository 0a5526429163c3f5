"""What bounds the kernel (memory, compute or latency) and which warp stalls explain it."""

from __future__ import annotations

from warpscope.analysis.finding import Finding, rule
from warpscope.analysis.roofline import roofline
from warpscope.analysis.text import num, pct
from warpscope.analysis.views import LAUNCH_FLOOR_NS, LaunchView

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
    return v.known(*keys, "arithmetic_intensity_dram")


def _roofline_text(v: LaunchView) -> str:
    """Where the launch sits on the roofline, when the profile has the flop, bytes and roofs."""
    r = roofline(v.metrics)
    if r is None:
        return ""
    return (
        f" On the roofline: {num(r.intensity, 3)} flop per DRAM byte, {pct(r.pct_of_roof)} of the "
        f"{r.precision} roof there ({r.bound} side of the ridge at {num(r.ridge, 1)} flop/B)."
    )


#: stalls that wait on memory: the expected state of a kernel at the memory roof
MEMORY_STALLS = frozenset({"long_scoreboard", "lg_throttle", "drain", "tex_throttle"})
#: stalls that wait on a pipe or the MIO queue: expected at the SM roof
PIPE_STALLS = frozenset({"math_pipe_throttle", "mio_throttle", "short_scoreboard", "wait", "dispatch_stall"})


def _mostly_shared(v: LaunchView) -> bool:
    """More shared-memory wavefronts than global sectors: the L1 traffic is shared memory."""
    shared = sum(v.get(f"shared_{op}_wavefronts") or 0.0 for op in ("load", "store"))
    global_ = sum(v.get(f"global_{op}_sectors") or 0.0 for op in ("load", "store"))
    return shared > global_ > 0


#: the share of the DRAM peak a copy reached on the H100 once each thread moved 16 bytes a load
#: (float4) instead of 4: 81.5% (calibration pair p06; the scalar copy: 60.0%)
VECTOR_STREAM_PCT = 81.5
#: the widest load a lane makes (float4): a warp's request moves at most 512 bytes
VECTOR_BYTES_PER_REQUEST = 512.0


def _vector_gain(v: LaunchView, mem: float) -> float:
    """The gain (0..1) of 16-byte loads and stores: the same DRAM bytes (less the stores a faster
    stream leaves in L2 at its end) at the rate four times the bytes in flight per load stream at
    (Little's law, views.stream_rate_pct), after the launch floor; where the profile lacks the loads or the bytes, the float4 copy's rate."""
    sectors, requests = v.get("global_load_sectors"), v.get("global_load_requests")
    stores = v.get("global_store_sectors")
    dram = v.dram_bytes_after(None, 32 * stores if stores else None)
    peak = v.get("peak_dram_bytes_per_s")
    rate = None
    if sectors and requests:
        rate = v.stream_rate_pct(min(VECTOR_BYTES_PER_REQUEST, 4 * 32 * sectors / requests))
    if rate is None or not dram or not peak:
        return max(0.0, 1.0 - mem / VECTOR_STREAM_PCT)
    return v.gain_to(LAUNCH_FLOOR_NS + 1e9 * dram / (peak * rate / 100)) or 0.0


#: the share of an L1-bound kernel's time a shared-memory tile wins back per unit of L1 hit rate:
#: the re-reads that hit in L1 leave the L1's tag and miss path for shared memory's data path,
#: which still carries them. Measured on the H100: naive → 16×16-tiled matmul saved 29.0%
#: (events, L1 hit rate 87.6%; calibration pair p24) and 27.6% (ncu, 88.0%; the seed's
#: matmulNaive → matmulTiled<16, 0>)
TILING_SAVES_PER_HIT = 1 / 3


def _tiling_gain(v: LaunchView, unit: tuple[str, float] | None) -> float | None:
    """What tiling through shared memory saves (%) of an L1-bound kernel that re-reads data:
    its L1 hit rate × TILING_SAVES_PER_HIT, within the SM's roof (the arithmetic stays)."""
    hits = v.get("l1_hit_rate_pct")
    if unit is None or unit[0] != "L1TEX" or hits is None:
        return None
    gain = v.within_untouched_roofs(hits / 100 * TILING_SAVES_PER_HIT, "sm_throughput_pct")
    return 100 * min(gain, v.floor_ceiling)


@rule(
    "memory_bound",
    "memory_bound",
    ncu=("SOLBottleneck",),
    checklist=("C7", "C8"),
    speedup="below the roof: 1 − (launch floor + DRAM bytes at the rate 16-byte accesses stream at: "
    "Little's law with four times the bytes in flight per load) / duration, at most 1 − L2 "
    "throughput / 90% (wider accesses move the same sectors); L1-bound "
    "re-reads (tiling): L1 hit rate / 3, at most 1 − SM throughput / 90%",
    evidence="DRAM, L1 and L2 throughput, memory and SM throughput, arithmetic intensity, the top stall",
    threshold="memory ≥ 80%, or ≥ 55% and 10 points above compute",
    severity="low at the DRAM roof; medium at a cache roof (≥ 80%) with DRAM far below, low where the cache traffic is mostly shared memory (already tiled); below the roof medium when waiting on loads and worth ≥ 10%; else low",
)
def memory_bound(v: LaunchView) -> Finding | None:
    """Memory throughput ≥ 55% of peak and well above compute: bytes bound the kernel.

    At the DRAM roof the kernel is as fast as its bytes allow (a state, not a defect: low); at
    the roof of the caches it re-reads data it could keep on chip (medium: tile it); below the
    roof, waiting on loads, it keeps too few bytes in flight (medium when that is worth ≥ 20%).
    """
    tp = _throughputs(v)
    if tp is None:
        return None
    sm, mem = tp
    # from 55%: within 5 points of the rate a plain copy streams at (LATENCY_HIDDEN_DRAM_PCT), where
    # bytes per access are the lever left; below it occupancy or the launch hold the kernel back
    if not (mem >= 80 or (mem >= 55 and mem - sm >= 10)) or sm > mem:
        return None
    unit = _busiest_memory(v)
    where = f"; the busiest unit is {unit[0]} at {pct(unit[1])}" if unit else ""
    evidence = _evidence(
        v,
        "memory_throughput_pct",
        "sm_throughput_pct",
        "dram_throughput_pct",
        "l1tex_throughput_pct",
        "l2_throughput_pct",
    )
    dram = v.get("dram_throughput_pct")
    # re-read data shows as cache traffic well above DRAM's (matmulNaive: L1 92%, DRAM 1%);
    # a streaming kernel's L2 runs level with DRAM
    in_caches = unit is not None and unit[0] != "DRAM" and (dram is None or dram < unit[1] / 2)
    gain = None
    if mem >= 80 and not in_caches:
        severity, title = "low", "memory-bound (at the DRAM roof)"
        fix = (
            "Only fewer bytes make it faster: fuse kernels that pass data through DRAM, use narrower "
            "types, skip data that is not needed. The access pattern itself is already as good as DRAM allows."
        )
    elif in_caches and _mostly_shared(v):
        # the reuse is already staged in shared memory (a tiled kernel): tiling again is no fix
        severity, title = "low", "shared-memory-bound" + (" (at the roof)" if mem >= 80 else "")
        fix = (
            "The traffic is shared memory the kernel stages on purpose. Make each shared load feed "
            "more arithmetic: register tiling (each thread computes a 2×2 or 4×4 block of outputs "
            "from values held in registers), wider shared loads (float4), or tensor cores."
        )
    elif in_caches:
        severity = "medium" if mem >= 80 else "low"
        title = "memory-bound in the caches" + (" (at the roof)" if mem >= 80 else "")
        fix = (
            "The traffic is in the caches, not DRAM: the kernel re-reads data. Fix uncoalesced or "
            "strided accesses first (excess sectors), then keep reused data in shared memory or "
            "registers (matmulNaive → matmulTiled)."
        )
        gain = _tiling_gain(v, unit)
        hits = v.get("l1_hit_rate_pct")
        if gain is not None and hits is not None:
            evidence["l1_hit_rate_pct"] = hits
            title = f"re-reads through L1 ({pct(hits)} hits): tile through shared memory"
            fix = (
                f"{pct(hits)} of the global loads hit in L1: data the block's threads read again and "
                "again. Load each tile of the reused data once into shared memory (`__shared__ float "
                "tile[16][16+1]`, `__syncthreads()`, then compute from the tile), or keep it in "
                "registers (matmulNaive → matmulTiled). Fix uncoalesced or strided accesses first."
            )
    else:
        top = v.top_stalls(1)
        waiting = bool(top) and top[0][0] in MEMORY_STALLS
        # what more bytes in flight reach: the float4 copy's share of the DRAM peak
        # wider accesses move the same sectors: the L2's sector work stays (split stores from
        # both sides of a branch kept one copy's L2 at 89% with DRAM at 57%)
        gain = 100 * v.within_untouched_roofs(_vector_gain(v, mem), "l2_throughput_pct")
        severity = "medium" if waiting and gain >= 10 else "low"
        title = "memory-bound below the roof"
        fix = (
            "Keep more bytes in flight per thread: 16-byte vector loads (float4), or a grid-stride "
            "loop unrolled so each thread has several independent loads outstanding. (On the H100 a "
            "float copy reached 60% of DRAM peak with scalar loads and 81.5% with float4.)"
        )
        if top:
            evidence[f"stalls.{top[0][0]}"] = top[0][1]
    return Finding(
        severity=severity,  # type: ignore[arg-type]
        title=title,
        message=f"Memory throughput {pct(mem)} of peak vs compute {pct(sm)}{where}."
        + _stall_text(v)
        + _roofline_text(v),
        why="The kernel waits on bytes, not arithmetic: only moving fewer bytes, better-packed "
        "bytes, or more of them at once makes it faster; faster math will not.",
        fix=fix,
        threshold="memory ≥ 80%, or ≥ 55% and 10 points above compute",
        evidence=evidence,
        estimated_speedup_pct=gain,
    )


@rule(
    "compute_bound",
    "compute_bound",
    ncu=("SOLBottleneck",),
    checklist=("C12",),
    evidence="SM and memory throughput, issue slots, warp execution efficiency, arithmetic intensity",
    threshold="SM ≥ 80%, or ≥ 60% and 10 points above memory",
    severity="low at ≥ 80% of SM peak; else info",
)
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
        message=f"SM throughput {pct(sm)} of peak vs memory {pct(mem)}.{idle}"
        + _stall_text(v)
        + _roofline_text(v),
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
    "latency_bound",
    "latency_bound",
    ncu=("SOLBottleneck", "IssueSlotUtilization"),
    checklist=("C11", "C12"),
    evidence="SM and memory throughput, issue slots, waves per SM, the top stalls",
    threshold="SM and memory throughput both < 60%",
    severity="medium: both < 40% and the grid fills the GPU; else low",
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
        severity="low" if small or max(sm, mem) >= 40 else "medium",
        title="latency-bound" + (" (grid too small)" if small else ""),
        message=f"SM {pct(sm)} and memory {pct(mem)} of peak{issued}: neither is busy, warps are "
        "waiting." + _stall_text(v),
        why="With both units idle the time goes to waiting on dependencies; more independent "
        "work per scheduler (warps or instructions in flight) hides it.",
        fix=fix,
        threshold="SM and memory throughput both < 60% (medium: both < 40%)",
        evidence=_evidence(
            v, "sm_throughput_pct", "memory_throughput_pct", "issue_slot_utilization_pct", "waves_per_sm"
        ),
    )


@rule(
    "stall_reason",
    "stalls",
    ncu=("CPIStall",),
    checklist=("C6", "C7", "C8", "C12"),
    speedup="none: a stall is a symptom; the finding that names its cause carries the gain",
    evidence="warp cycles per issued instruction and per stall reason, issue slots, the throughput of the unit waited on",
    threshold="one reason ≥ 30% of warp cycles, issue slots < 80% busy",
    severity="low; info where the unit it waits on is at ≥ 80% of peak (a symptom, never above low)",
)
def stall_reason(v: LaunchView) -> list[Finding]:
    """One stall reason takes ≥ 30% of warp cycles while issue slots are < 80% busy.

    A stall is a symptom: at most ``low`` (the rule that names its cause carries the severity),
    and ``info`` where the kernel is at the roof the stall waits on.
    """
    cpi = v.cycles_per_issue
    issue = v.get("issue_slot_utilization_pct")
    if not cpi or (issue is not None and issue >= 80):
        return []
    sm, mem = v.get("sm_throughput_pct"), v.get("memory_throughput_pct")
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
        roof = (mem if reason in MEMORY_STALLS else sm if reason in PIPE_STALLS else None) or 0.0
        at_roof = roof >= 80
        message = (
            f"Each warp spends {num(cycles, 1)} of its {num(cpi, 1)} cycles per issued "
            f"instruction waiting for {waits}."
        )
        if at_roof:
            message += f" Expected here: the unit it waits on runs at {pct(roof)} of peak."
            evidence["memory_throughput_pct" if reason in MEMORY_STALLS else "sm_throughput_pct"] = roof
        out.append(
            Finding(
                severity="info" if at_roof else "low",
                title=f"{reason} stalls ({pct(100 * share, 0)} of warp cycles)",
                message=message,
                why="A stalled warp issues nothing; when most warps stall for the same reason the "
                "schedulers run out of ready warps. A stall is a symptom: fix its cause.",
                fix=fix[0].upper() + fix[1:] + ".",
                threshold="one reason ≥ 30% of warp cycles, issue slots < 80% busy",
                evidence=evidence,
            )
        )
    return out
