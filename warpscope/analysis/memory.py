"""Global-memory coalescing and shared-memory bank conflicts."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace

from warpscope.analysis.divergence import one_output_per_block
from warpscope.analysis.finding import Finding, rule
from warpscope.analysis.text import num, pct
from warpscope.analysis.views import LAUNCH_FLOOR_NS, PRACTICAL_ROOF_PCT, LaunchView

IDEAL_SECTORS = 4.0  # 32 lanes × 4 bytes = 128 bytes = four 32-byte sectors
VECTOR_SECTORS = 16.0  # 32 lanes × 16 bytes (float4): the most an access without excess needs


#: (sectors per request, ideal sectors per request, sectors) of global loads or stores
GlobalOp = tuple[float, float, float] | None


def _global_op(v: LaunchView, op: str) -> GlobalOp:
    """(sectors per request, ideal sectors per request, sectors) of global loads or stores."""
    spr = v.get(f"global_{op}_sectors_per_request")
    requests = v.get(f"global_{op}_requests")
    sectors = v.get(f"global_{op}_sectors")
    if spr is None and requests and sectors is not None:
        spr = sectors / requests
    if spr is None or spr <= 0:
        return None
    if sectors is None:
        sectors = spr * requests if requests else 0.0
    ideal = IDEAL_SECTORS
    eff = v.get(f"global_{op}_efficiency_pct")
    if eff is not None and 0 < eff <= 100:
        # bytes used / bytes moved: a 100%-efficient 8-byte access needs 8 sectors, not 4
        ideal = max(1.0, math.ceil(spr * eff / 100 - 1e-9))
    return spr, min(ideal, spr), sectors


def _pattern_fix(op: str, spr: float, ideal: float) -> str:
    verb = "read" if op == "load" else "write"
    if spr <= 1.5 * ideal:
        return (
            f"A warp's {verb}s straddle sector boundaries: align the start of each warp's "
            "range to 128 bytes (an offset like `in[i + 1]` costs one extra sector per request), "
            "or pad rows to a multiple of 32 elements."
        )
    # 32 lanes of 4-byte words s bytes apart span 32·s bytes = s sectors
    stride = "≥ 32 bytes" if spr >= 31 else f"about {num(spr, 0)} bytes"
    return (
        f"Neighbouring lanes {verb} addresses {stride} apart: make threadIdx.x index the "
        "contiguous (fastest-varying) dimension; when both a row and a column access are "
        "needed (transpose), stage a 32×32 tile in shared memory, padded to [32][33], so "
        "global reads and writes are both row-wise; or store the data transposed "
        "(structure of arrays)."
    )


#: what a coalescing fix leaves to do: the SM's instructions (fewer sectors, the same arithmetic)
COALESCING_LEAVES = ("sm_throughput_pct",)
#: what padding a shared tile leaves to do: the DRAM traffic (fewer wavefronts, the same bytes)
PADDING_LEAVES = ("dram_throughput_pct",)
#: the fix where every request moves its ideal sectors yet sectors are in excess
PARTIAL_WARP_FIX = (
    "Each request moves the sectors of a whole warp for part of its lanes: accesses on both sides "
    "of a branch (predicated), each side's lanes paying for the other's. Select the value and "
    "access once (`out[i] = v * 2 + (i & 1 ? 1 : -1)` instead of a store in each branch), or make "
    "the whole warp take one side."
)
#: what to collect when sectors per request cannot tell strided access from wide vectors
COLLECT_COALESCING = (
    "collect `--section MemoryWorkloadAnalysis_Tables` (excess sectors) or "
    "`--section SourceCounters` (bytes per sector of each instruction) to be sure"
)


@rule(
    "uncoalesced_global_access",
    "coalescing",
    ncu=("UncoalescedGlobalAccess", "MemoryCacheAccessPattern"),
    checklist=("C7", "C8"),
    speedup="with Nsight Compute's exact excess (derived__memory_l2_theoretical_sectors_global_excessive, "
    "atomics' sectors taken out) on a kernel with a unit ≥ 60% busy: 1 − (launch floor + the busiest "
    "unit's work after: DRAM moving at most the ideal sectors' bytes at max(its own rate, 60%), L1 and L2 "
    "without the excess share at 90%, the SM's instructions at 90%) / duration; otherwise memory "
    "throughput % × excess sectors / all sectors (excess from bytes per sector, else at least the sectors "
    "beyond 16 per request); at most 1 − SM throughput / 90%: the instructions stay",
    evidence="excess sectors (exact), bytes per sector, sectors and requests per operation, memory throughput",
    threshold="excess sectors ≥ 10% of the sectors moved; from sectors per request alone > 16 (≤ 16: info, can't tell the width)",
    severity="high: ≥ 50% of sectors excess; medium: ≥ 25%; else low; low where the estimate is < 10%; at most medium from sectors per request alone",
)
def uncoalesced_global_access(v: LaunchView) -> Finding | None:
    """Global loads or stores moving more 32-byte sectors than the bytes they access need."""
    ops = {op: _global_op(v, op) for op in ("load", "store")}
    total = sum(x[2] for x in ops.values() if x is not None)
    if v.get("global_excess_sectors") is not None:
        return _coalescing_from_excess(v, ops, total)
    if any(v.get(f"global_{op}_efficiency_pct") is not None for op in ops):
        return _coalescing_from_ratio(v, ops, total, "high")
    return _coalescing_from_sectors_per_request(v, ops, total)


def _coalescing_from_excess(v: LaunchView, ops: dict[str, GlobalOp], total: float) -> Finding | None:
    """Nsight Compute counted the excess sectors: the claim is exact. Its count covers atomics
    and reductions too (whose sectors are not loads or stores): their sectors are taken out, so
    a histogram's contended atomics are not reported as uncoalesced loads (global_atomics is)."""
    atomic = (v.get("global_atomic_sectors") or 0.0) + (v.get("global_reduction_sectors") or 0.0)
    excess = max(0.0, (v.get("global_excess_sectors") or 0.0) - atomic)
    if total <= 0 or excess / total < 0.10:
        return None  # no excess (16-byte vectors need 16 sectors per request: that is ideal)
    share = min(1.0, excess / total)
    known = {op: x for op, x in ops.items() if x is not None}
    worst_op = max(known, key=lambda op: known[op][0], default="load")
    spr = known[worst_op][0] if worst_op in known else 0.0
    mem = v.get("memory_throughput_pct")
    # every request at its ideal sectors, yet sectors in excess: requests made by part of a warp
    # (a store on each side of a branch, predicated), each moving the whole warp's sectors
    partial = bool(known) and all(x[0] <= IDEAL_SECTORS * 1.1 for x in known.values())
    evidence = {"global_excess_sectors": excess}
    for op, x in ops.items():
        if x is not None:
            evidence[f"global_{op}_sectors"] = x[2]
            evidence[f"global_{op}_sectors_per_request"] = round(x[0], 4)
    if mem is not None:
        evidence["memory_throughput_pct"] = mem
    gain = 100 * v.within_untouched_roofs(
        _coalesced_gain(v, ops, excess) or (mem if mem is not None else 100.0) * share / 100,
        *COALESCING_LEAVES,
    )
    return Finding(
        # by the share of excess, at most what the estimate is worth (a few % is low)
        severity="low" if gain < 10 else "high" if share >= 0.5 else "medium" if share >= 0.25 else "low",
        title=f"uncoalesced global {worst_op}s ({pct(100 * share)} of sectors excess)",
        message=f"{num(excess, 0)} of the {num(total, 0)} global sectors moved ({pct(100 * share)}) are "
        "beyond the fewest the accessed bytes fit in (Nsight Compute's exact count); the worst are "
        f"global {worst_op}s at {num(spr, 2)} sectors per request.",
        why="A warp's memory access is served in 32-byte sectors; when the 32 lanes touch "
        "scattered addresses each sector brings mostly unused bytes, wasting bandwidth.",
        fix=PARTIAL_WARP_FIX if partial else _pattern_fix(worst_op, spr, IDEAL_SECTORS),
        threshold="excess sectors ≥ 10% of the sectors moved",
        evidence=evidence,
        estimated_speedup_pct=gain,
        confidence="high",
    )


#: a unit this busy (% of peak) says the kernel's time is its work: below it, latency
THROUGHPUT_BOUND_PCT = 60.0


def _op_excess(ops: dict[str, GlobalOp], excess: float) -> dict[str, float]:
    """Nsight Compute's excess sectors shared out between loads and stores: each operation's
    sectors beyond its ideal per request, scaled so they add up to the exact count."""
    natural = {
        op: max(0.0, x[2] - x[2] / x[0] * x[1]) if x is not None and x[0] > 0 else 0.0
        for op, x in ops.items()
    }
    known = sum(natural.values())
    if known <= 0:
        total = sum(x[2] for x in ops.values() if x is not None) or 1.0
        return {op: excess * (x[2] if x is not None else 0.0) / total for op, x in ops.items()}
    return {op: excess * n / known for op, n in natural.items()}


def _coalesced_gain(v: LaunchView, ops: dict[str, GlobalOp], excess: float) -> float | None:
    """The gain (0..1) of moving only the sectors the accessed bytes need. DRAM reads and writes
    each shrink to at most their ideal sectors' bytes (a structure's unused fields reached DRAM
    too), less the stores the L2 still holds when the launch ends (views.dram_bytes_after), and
    stream at the rate the loads' ideal bytes in flight allow; the L1 loses the excess share of
    its work, the L2 serves the ideal sectors, the SM keeps its instructions (each at the
    practical roof). The time after is the launch floor plus what the busiest of them needs. None for a latency-bound kernel (no unit ≥ 60% busy) and where the profile
    lacks a unit's throughput, the DRAM bytes and roof, or the loads in flight."""
    duration, peak = v.get("duration_ns"), v.get("peak_dram_bytes_per_s")
    units = [
        v.get(m)
        for m in ("dram_throughput_pct", "l1tex_throughput_pct", "l2_throughput_pct", "sm_throughput_pct")
    ]
    if not duration or not peak or any(u is None for u in units):
        return None
    dram, l1, l2, sm = (float(u or 0.0) for u in units)
    if max(dram, l1, l2, sm) < THROUGHPUT_BOUND_PCT:
        return None  # latency-bound: its time is not its units' work (the share model applies)
    op_excess = _op_excess(ops, excess)
    ideal = {op: max(0.0, x[2] - op_excess[op]) * 32 if x is not None else 0.0 for op, x in ops.items()}
    load = ops.get("load")
    rate = v.stream_rate_pct(ideal["load"] / (load[2] / load[0]) if load and load[0] else None)
    if rate is None or rate <= 0:
        return None
    after_bytes = v.dram_bytes_after(ideal["load"] or None, ideal["store"] or None)
    if after_bytes is None:
        return None
    share = min(1.0, excess / max(1.0, sum(x[2] for x in ops.values() if x is not None)))
    l2_peak = v.get("peak_l2_bytes_per_s")
    work = [
        1e9 * after_bytes / (peak * rate / 100),
        duration * l1 * (1 - share) / max(l1, PRACTICAL_ROOF_PCT),
        # the L2 serves at most the ideal sectors (at its bandwidth roof): scattered stores cost
        # it more than their sectors (a naive transpose's L2 at 79% for 315 µs, then at 80% of a
        # DRAM stream for 44 µs: 14% of the work where the sectors fell to 22%)
        1e9 * (ideal["load"] + ideal["store"]) / (l2_peak * PRACTICAL_ROOF_PCT / 100)
        if l2_peak
        else duration * l2 * (1 - share) / max(l2, PRACTICAL_ROOF_PCT),
        duration * sm / max(sm, PRACTICAL_ROOF_PCT),
    ]
    # a launch costs its fixed start and drain plus its streaming (an empty kernel: the floor)
    return max(0.0, 1.0 - min(duration, LAUNCH_FLOOR_NS + max(work)) / duration)


def _coalescing_from_sectors_per_request(
    v: LaunchView, ops: dict[str, GlobalOp], total: float
) -> Finding | None:
    """Sectors per request alone: up to 16 is ideal for 16-byte vectors, so only more is proof."""
    seen = {op: x for op, x in ops.items() if x is not None and x[0] > IDEAL_SECTORS * 1.1}
    if not seen:
        return None
    over = {op: (x[0], VECTOR_SECTORS, x[2]) for op, x in seen.items() if x[0] > VECTOR_SECTORS * 1.1}
    if over:
        finding = _coalescing_from_ratio(v, over, total, "medium")
        if finding is not None:
            return replace(
                finding,
                severity="medium" if finding.severity == "high" else finding.severity,
                message=finding.message + " More than 16 sectors per request is excess for any access "
                "up to 16 bytes wide; the excess shown is the least it can be (4-byte elements would "
                f"make it larger): {COLLECT_COALESCING}.",
            )
    worst_op, (spr, _, _) = max(seen.items(), key=lambda kv: kv[1][0])
    evidence = {f"global_{op}_sectors_per_request": round(x[0], 4) for op, x in seen.items()}
    return Finding(
        severity="info",
        title=f"global {worst_op}s at {num(spr, 1)} sectors per request: can't tell",
        message=f"Global {worst_op}s move {num(spr, 2)} sectors per request: 4-byte accesses "
        "strided apart, or 8- or 16-byte vector accesses (float2/float4: 8 or 16 sectors is their "
        f"ideal). The export cannot tell which: {COLLECT_COALESCING}.",
        why="Sectors per request count sectors per warp instruction, not per byte used: wide "
        "vector loads move more sectors and use every byte of them.",
        fix="If the elements are 4 bytes wide, make threadIdx.x index the contiguous dimension; "
        "if they are float2/float4 vectors, nothing to fix.",
        threshold="4 < sectors per request ≤ 16, access width unknown",
        evidence=evidence,
        confidence="low",
    )


def _coalescing_from_ratio(
    v: LaunchView, bad_ops: Mapping[str, GlobalOp], total: float, confidence: str
) -> Finding | None:
    """Sectors per request against an ideal the evidence supports (bytes per sector, or 16)."""
    bad = {op: x for op, x in bad_ops.items() if x is not None and x[0] > x[1] * 1.1}
    if not bad:
        return None
    excess = sum(x[2] * (1 - x[1] / x[0]) for x in bad.values())
    worst_op, (spr, ideal, _) = max(bad.items(), key=lambda kv: kv[1][0] / kv[1][1])
    ratio = spr / ideal
    evidence: dict[str, float] = {}
    for op, x in bad.items():
        evidence[f"global_{op}_sectors_per_request"] = round(x[0], 4)
        evidence |= v.known(f"global_{op}_requests", f"global_{op}_sectors", f"global_{op}_efficiency_pct")
    mem = v.get("memory_throughput_pct")
    if mem is not None:
        evidence["memory_throughput_pct"] = mem
    gain = (
        100
        * v.within_untouched_roofs(
            (mem if mem is not None else 100.0) * excess / total / 100, *COALESCING_LEAVES
        )
        if total
        else None
    )
    parts = [
        f"global {op}s {num(x[0], 2)} sectors per request (ideal {num(x[1], 0)})" for op, x in bad.items()
    ]
    message = (
        "; ".join(parts) + f": {pct(100 * excess / total if total else 0)} of the sectors moved are excess."
    )
    return Finding(
        severity="high" if ratio >= 4 else "medium" if ratio >= 1.9 else "low",
        title=f"uncoalesced global {worst_op}s ({num(spr, 1)} sectors per request)",
        message=message[0].upper() + message[1:],
        why="A warp's memory access is served in 32-byte sectors; when the 32 lanes touch "
        "scattered addresses each sector brings mostly unused bytes, wasting bandwidth.",
        fix=_pattern_fix(worst_op, spr, ideal),
        threshold="sectors per request > 1.1 × ideal",
        evidence=evidence,
        estimated_speedup_pct=gain,
        confidence=confidence,  # type: ignore[arg-type]
    )


def _shared_op(v: LaunchView, op: str) -> tuple[float, float, float] | None:
    """(requests, wavefronts, conflicts) of shared loads or stores."""
    requests = v.get(f"shared_{op}_requests")
    wavefronts = v.get(f"shared_{op}_wavefronts")
    if not requests or not wavefronts:
        return None
    conflicts = v.get(f"shared_{op}_bank_conflicts")
    if conflicts is None:
        conflicts = max(0.0, wavefronts - requests)
    return requests, wavefronts, conflicts


def _near_power_of_two(x: float) -> int | None:
    n = 2 ** round(math.log2(x)) if x >= 1.9 else None
    return n if n and abs(x - n) <= 0.05 * n else None


@rule(
    "shared_bank_conflicts",
    "bank_conflicts",
    ncu=("SharedMemoryConflicts", "UncoalescedSharedAccess"),
    checklist=("C6",),
    speedup="at most (short-scoreboard + MIO-throttle stall cycles) / all warp cycles × conflict share; "
    "conflict wavefronts / (SMs × elapsed SM cycles) × 100: the cycles the SMs' shared-memory "
    "pipes spend on replays (one wavefront per cycle per SM) as a share of the launch; without "
    "cycle counts, conflict share × L1TEX throughput % (Nsight Compute's estimate); at most "
    "1 − DRAM throughput / 90%: the DRAM traffic stays",
    evidence="excess shared wavefronts (exact), wavefronts, requests and conflict counters per operation, elapsed SM cycles, SM count",
    threshold="bank conflicts ≥ 10% of shared wavefronts",
    severity="high: ≥ 8-way or ≥ 50% of wavefronts; medium: ≥ 25%; else low; low confidence on the hardware counter alone",
)
def shared_bank_conflicts(v: LaunchView) -> Finding | None:
    """Shared loads or stores replayed because lanes of a warp hit one bank (≥ 10% of wavefronts)."""
    ops = {op: _shared_op(v, op) for op in ("load", "store")}
    excess = v.get("shared_excess_wavefronts")
    all_wavefronts = sum(x[1] for x in ops.values() if x is not None)
    if excess is not None and v.source_format != "emulator":
        # Nsight Compute's exact count of wavefronts beyond the ideal decides whether there
        # are conflicts at all; the per-op counter only says where
        if not all_wavefronts or excess / all_wavefronts < 0.10:
            return None
        confidence = "high"
    elif v.source_format == "emulator":
        confidence = "high"  # the emulator counts the ideal wavefronts of every access
    elif any(v.get(f"shared_{op}_bank_conflicts") is not None for op in ops):
        confidence = "low"  # the l1tex counter alone also counts events that are not conflicts
    else:
        # wavefronts against instructions: 8- and 16-byte accesses need 2 and 4 without conflict
        ops = {op: (x[0], x[1], max(0.0, x[1] - 4 * x[0])) if x else None for op, x in ops.items()}
        confidence = "medium"
    bad = {op: x for op, x in ops.items() if x is not None and x[2] / x[1] >= 0.10}
    if not bad:
        return None
    _worst_op, (requests, wavefronts, conflicts) = max(bad.items(), key=lambda kv: kv[1][2] / kv[1][1])
    # n-way against the access's own ideal: an 8-byte access needs 2 wavefronts without any
    # conflict, so 4 per request is 2-way, not 4-way
    nway = wavefronts / max(requests, wavefronts - conflicts)
    all_wave = sum(x[1] for x in ops.values() if x is not None)
    all_conf = sum(x[2] for x in bad.values())
    share = all_conf / all_wave
    l1 = v.get("l1tex_throughput_pct")
    evidence: dict[str, float] = {}
    for op in bad:
        evidence |= v.known(f"shared_{op}_requests", f"shared_{op}_wavefronts", f"shared_{op}_bank_conflicts")
    if l1 is not None:
        evidence["l1tex_throughput_pct"] = l1
    if excess is not None:
        evidence["shared_excess_wavefronts"] = excess
    n = _near_power_of_two(nway)
    if one_output_per_block(v):
        fix = (
            "This is a tree reduction whose index (`2 * s * tid`) doubles its stride every step "
            "(2-, 4-, … 32-way): use sequential addressing (`if (tid < s) sd[tid] += sd[tid + s]` "
            "with s halving), which keeps lanes on consecutive words. Padding cannot fix a "
            "stride that changes every step."
        )
    elif n is not None:
        # lanes s words apart hit gcd(s, 32) words per bank: n-way means a stride of n × an odd number
        stride = (
            "a multiple of 32 words — e.g. reading a column of a [32][32] float tile"
            if n == 32
            else f"{n} words (or {n} × an odd number)"
        )
        fix = (
            f"Lanes hit each bank {n} times: they are {stride} apart. Pad the row to an odd "
            "stride (`tile[32][33]`) or XOR-swizzle the column index."
        )
    else:
        fix = (
            f"An irregular pattern (on average {num(nway, 1)}-way): find the access in the source "
            "view. +1 padding fixes a fixed power-of-two stride, not data-dependent indices or "
            "different words of one bank chosen at random."
        )
    parts = [
        f"shared {op}s {num(x[1] / x[0], 2)} wavefronts per request, {pct(100 * x[2] / x[1])} "
        "of them conflicts"
        for op, x in bad.items()
    ]
    message = "; ".join(parts)[0].upper() + "; ".join(parts)[1:] + "."
    if confidence == "low":
        message += (
            " Only the hardware counter (l1tex__data_bank_conflicts_pipe_lsu_mem_shared) says so, and "
            "it also counts events that are not bank conflicts: collect "
            "`--section MemoryWorkloadAnalysis_Tables` (excess shared wavefronts) or "
            "`--section SourceCounters` to be sure."
        )
    return Finding(
        severity="high" if nway >= 8 or share >= 0.5 else "medium" if share >= 0.25 else "low",
        title=f"{num(nway, 1)}-way shared-memory bank conflicts",
        message=message,
        confidence=confidence,  # type: ignore[arg-type]
        why="Shared memory has 32 banks of 4 bytes; lanes of a warp that hit different words in "
        "one bank are served one after the other (n-way = n wavefronts per request).",
        fix=fix,
        threshold="bank conflicts ≥ 10% of shared wavefronts",
        evidence=evidence,
        estimated_speedup_pct=100
        * min(
            v.within_untouched_roofs(
                (
                    _replay_share(v, excess if excess is not None else all_conf)
                    or share * (l1 if l1 is not None else 100.0)
                )
                / 100,
                *PADDING_LEAVES,
            ),
            _conflict_stalls(v, min(1.0, share)),
        ),
    )


#: an L1/shared pipe this busy (% of peak) is the kernel's roof: padding shortens the time itself
#: (the [32][32] transpose tile at 89%: replays 74% of the SM's cycles, padding saved 58% of
#: ncu's duration where its warps' shared-memory waits were 55% of their cycles)
SHARED_BOUND_PCT = 80.0
#: the stalls of a warp waiting on shared memory: the result (short scoreboard) or a full queue
SHARED_STALLS = ("short_scoreboard", "mio_throttle")


def _conflict_stalls(v: LaunchView, conflict_share: float) -> float:
    """The time (0..1) conflicts can cost a kernel whose warps wait on shared memory for a
    share of their cycles: that share × the conflicts' share of the wavefronts (padding removes
    the replays, not shared memory's own latency). 1 where the profile has no stall reasons.
    A DRAM-bound copy staged through a conflicted tile waits on DRAM (9% of cycles on shared
    memory): padding it saved 0.6% on the H100."""
    cpi = v.cycles_per_issue
    if not cpi or not v.stalls or v.source_format == "emulator":  # the emulator's stalls are modelled
        return 1.0
    if (v.get("l1tex_throughput_pct") or 0.0) >= SHARED_BOUND_PCT:
        return 1.0  # the shared pipe is the kernel's roof: its replays are its time, not a wait
    return conflict_share * sum(v.stalls.get(r, 0.0) for r in SHARED_STALLS) / cpi


def _replay_share(v: LaunchView, replays: float) -> float | None:
    """The launch's time its shared-memory pipes spend on ``replays`` extra wavefronts, in %:
    each SM serves one wavefront a cycle. Calibrated on the seed pairs (docs/checklist.md):
    41.3% predicted for padding transposeShared (measured 40.8%), 17.8% for sequential
    addressing in the reduction (17.4%); the L1-throughput model said 61.8% and 56.9%."""
    cycles = v.get("smsp_elapsed_cycles") or v.get("elapsed_cycles")
    sms = v.get("sm_count")
    if not cycles or not sms:
        return None
    return min(100.0, 100.0 * replays / (sms * cycles))
