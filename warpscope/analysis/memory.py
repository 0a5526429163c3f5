"""Global-memory coalescing and shared-memory bank conflicts."""

from __future__ import annotations

import math

from warpscope.analysis.divergence import one_output_per_block
from warpscope.analysis.finding import Finding, rule
from warpscope.analysis.text import num, pct
from warpscope.analysis.views import LaunchView

IDEAL_SECTORS = 4.0  # 32 lanes × 4 bytes = 128 bytes = four 32-byte sectors


def _global_op(v: LaunchView, op: str) -> tuple[float, float, float] | None:
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


@rule(
    "uncoalesced_global_access",
    "coalescing",
    ncu=("UncoalescedGlobalAccess", "MemoryCacheAccessPattern"),
    checklist=("C7", "C8"),
    speedup="memory throughput % × excess sectors / all sectors, with 4 sectors per request "
    "(32 lanes × 4 bytes) or the exported efficiency as the ideal",
)
def uncoalesced_global_access(v: LaunchView) -> Finding | None:
    """Global loads or stores moving more 32-byte sectors per request than the data needs."""
    ops = {op: _global_op(v, op) for op in ("load", "store")}
    bad = {op: x for op, x in ops.items() if x is not None and x[0] > x[1] * 1.1}
    if not bad:
        return None
    total = sum(x[2] for x in ops.values() if x is not None)
    excess = sum(x[2] * (1 - x[1] / x[0]) for x in bad.values())
    worst_op, (spr, ideal, _) = max(bad.items(), key=lambda kv: kv[1][0] / kv[1][1])
    ratio = spr / ideal
    evidence: dict[str, float] = {}
    for op, x in bad.items():
        evidence[f"global_{op}_sectors_per_request"] = round(x[0], 4)
        for key in (f"global_{op}_requests", f"global_{op}_sectors", f"global_{op}_efficiency_pct"):
            if v.get(key) is not None:
                evidence[key] = v.get(key)
    mem = v.get("memory_throughput_pct")
    if mem is not None:
        evidence["memory_throughput_pct"] = mem
    gain = (mem if mem is not None else 100.0) * excess / total if total else None
    parts = [
        f"global {op}s {num(x[0], 2)} sectors per request (ideal {num(x[1], 0)})" for op, x in bad.items()
    ]
    message = (
        "; ".join(parts) + f": {pct(100 * excess / total if total else 0)} of the sectors moved are excess."
    )
    if ratio >= 1.9 and ideal == IDEAL_SECTORS and v.get(f"global_{worst_op}_efficiency_pct") is None:
        message += " (If the elements are 8 or 16 bytes wide, 8 or 16 sectors is ideal.)"
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
    speedup="conflict wavefronts / all shared wavefronts × L1TEX throughput % (Nsight Compute's estimate)",
)
def shared_bank_conflicts(v: LaunchView) -> Finding | None:
    """Shared loads or stores replayed because lanes of a warp hit one bank (≥ 10% of wavefronts)."""
    ops = {op: _shared_op(v, op) for op in ("load", "store")}
    bad = {op: x for op, x in ops.items() if x is not None and x[2] / x[1] >= 0.10}
    if not bad:
        return None
    _worst_op, (requests, wavefronts, _conflicts) = max(bad.items(), key=lambda kv: kv[1][2] / kv[1][1])
    nway = wavefronts / requests
    all_wave = sum(x[1] for x in ops.values() if x is not None)
    all_conf = sum(x[2] for x in bad.values())
    share = all_conf / all_wave
    l1 = v.get("l1tex_throughput_pct")
    evidence: dict[str, float] = {}
    for op in bad:
        for key in (f"shared_{op}_requests", f"shared_{op}_wavefronts", f"shared_{op}_bank_conflicts"):
            if v.get(key) is not None:
                evidence[key] = v.get(key)
    if l1 is not None:
        evidence["l1tex_throughput_pct"] = l1
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
    return Finding(
        severity="high" if nway >= 8 or share >= 0.5 else "medium" if share >= 0.25 else "low",
        title=f"{num(nway, 1)}-way shared-memory bank conflicts",
        message="; ".join(parts)[0].upper() + "; ".join(parts)[1:] + ".",
        why="Shared memory has 32 banks of 4 bytes; lanes of a warp that hit different words in "
        "one bank are served one after the other (n-way = n wavefronts per request).",
        fix=fix,
        threshold="bank conflicts ≥ 10% of shared wavefronts",
        evidence=evidence,
        estimated_speedup_pct=share * (l1 if l1 is not None else 100.0),
    )
